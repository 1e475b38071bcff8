//! Judging a player's plays against reference equities: the equity each choice loses against
//! the best play, over a fixed set of positions.
//!
//! A *judged set* is a text file of JSON lines, one position per line, written by
//! `tools/judge/make-judged-set` with gnubg as the judge:
//!
//! ```text
//! {"posid":"ZrsVGAA77gIDIA","dice":[3,4],"class":10,"plies":2,
//!  "moves":[{"move":"7/3 6/3","after":"u7kBAyBmuxUYAA","eq0":-0.73892,"eqN":-0.72871},...]}
//! ```
//!
//! * `posid`: the position (gnubg Position ID, side on roll's view); `dice`: the roll to play.
//! * `class`: the judge's class of the position (gnubg: 10 contact, 9 crashed, 8 race).
//! * `plies`: the depth of the deep equities.
//! * `moves`: every legal play, best first by `eq0`: `after` is the position it leaves (the
//!   opponent on roll), `eq0` its cubeless equity for the mover at 0-ply, `eqN` at `plies`
//!   (present for the best plays by `eq0`).
//!
//! A choice's loss is the best `eqN` minus the choice's `eqN`, or minus its `eq0` when the judge
//! did not look at it deeply (such choices are counted as `shallow`). With cubeless money play,
//! the mean loss in thousandths is the error rate in mEMG per move that gnubg's analysis reports.
//! Every position is judged the same way for every player, so two players' rates on one set
//! compare without the luck of the dice that makes match results noisy.
//!
//! ```
//! use tavla_match::judge::{judge, JudgedSet};
//! use tavla_player::RandomPlayer;
//!
//! let set = JudgedSet::parse(include_str!("../tests/data/judged-sample.jsonl"))?;
//! let random = judge(&set, 1, || Ok::<_, std::convert::Infallible>(RandomPlayer::new(1)))?;
//! assert_eq!(random.all.positions, set.positions.len());
//! assert!(random.all.mean_loss > set.zero_ply_losses().mean_loss);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::fmt;

use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tavla_core::{GameState, PlayList, Position, Roll};
use tavla_player::Player;

use crate::arena::BoxError;

/// One play of a judged position.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedPlay {
    /// The play in the judge's notation, when the file gives it.
    pub notation: Option<String>,
    /// The position the play leaves, seen from the opponent (on roll next).
    pub after: Position,
    /// Its equity for the mover at 0-ply.
    pub eq0: f32,
    /// Its equity for the mover at the set's depth, when the judge computed it.
    pub deep: Option<f32>,
}

/// A position with a roll to play, and the judge's values of its plays.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedPosition {
    /// The position, side on roll's view.
    pub position: Position,
    /// The roll to play.
    pub roll: Roll,
    /// The judge's class of the position (gnubg: 10 contact, 9 crashed, 8 race).
    pub class: u8,
    /// Every legal play.
    pub plays: Vec<JudgedPlay>,
    /// The best deep equity.
    best: f32,
}

impl JudgedPosition {
    /// The equity lost by the play that leaves `after` (opponent's view), and whether it was
    /// judged deeply; `None` when no judged play leaves `after`.
    #[must_use]
    pub fn loss(&self, after: &Position) -> Option<(f32, bool)> {
        let p = self.plays.iter().find(|p| p.after == *after)?;
        Some(self.loss_of(p))
    }

    fn loss_of(&self, p: &JudgedPlay) -> (f32, bool) {
        match p.deep {
            Some(e) => ((self.best - e).max(0.0), true),
            None => ((self.best - p.eq0).max(0.0), false),
        }
    }

    /// The judge's best play: the one with the best deep equity.
    #[must_use]
    pub fn best_play(&self) -> &JudgedPlay {
        self.plays
            .iter()
            .find(|p| p.deep == Some(self.best))
            .expect("parsing checked that a play has the best deep equity")
    }
}

/// A judged set: the positions of one file.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedSet {
    /// The positions, in file order.
    pub positions: Vec<JudgedPosition>,
    /// The depth of the deep equities (the same for every line).
    pub plies: u8,
}

/// A line of a judged set that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseJudgedSetError {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for ParseJudgedSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "judged set, line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseJudgedSetError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    posid: String,
    dice: [u8; 2],
    class: u8,
    plies: u8,
    moves: Vec<MoveLine>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveLine {
    #[serde(default)]
    r#move: Option<String>,
    after: String,
    eq0: f32,
    #[serde(rename = "eqN")]
    eq_n: Option<f32>,
}

impl JudgedSet {
    /// Reads a judged set. Blank lines and lines starting with `#` are skipped.
    ///
    /// Each position's plays must be exactly its legal plays (by the positions they leave), at
    /// least two of them, with at least one deep equity, and every line must have the same
    /// `plies`.
    ///
    /// # Errors
    /// [`ParseJudgedSetError`] naming the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<JudgedSet, ParseJudgedSetError> {
        let mut positions = Vec::new();
        let mut plies = None;
        let mut list = PlayList::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let raw = raw.trim();
            if raw.is_empty() || raw.starts_with('#') {
                continue;
            }
            let err = |message: String| ParseJudgedSetError { line, message };
            let l: Line = serde_json::from_str(raw).map_err(|e| err(e.to_string()))?;
            if *plies.get_or_insert(l.plies) != l.plies {
                return Err(err(format!(
                    "plies {} differs from the first line's {}",
                    l.plies,
                    plies.unwrap_or_default()
                )));
            }
            let position =
                Position::from_position_id(&l.posid).map_err(|e| err(format!("posid: {e}")))?;
            if position.is_game_over() {
                return Err(err(format!("posid {}: the game is over", l.posid)));
            }
            let [d1, d2] = l.dice;
            if !(1..=6).contains(&d1) || !(1..=6).contains(&d2) {
                return Err(err(format!("dice [{d1},{d2}]: each must be 1 to 6")));
            }
            let roll = Roll::from_values(d1, d2);
            let mut plays = Vec::with_capacity(l.moves.len());
            for (k, m) in l.moves.iter().enumerate() {
                let after = Position::from_position_id(&m.after)
                    .map_err(|e| err(format!("moves[{k}].after: {e}")))?;
                if !m.eq0.is_finite() || m.eq_n.is_some_and(|e| !e.is_finite()) {
                    return Err(err(format!("moves[{k}]: equities must be finite")));
                }
                plays.push(JudgedPlay {
                    notation: m.r#move.clone(),
                    after,
                    eq0: m.eq0,
                    deep: m.eq_n,
                });
            }
            position.legal_plays(roll, &mut list);
            let mut legal: Vec<[i8; 26]> = list
                .positions()
                .iter()
                .map(|p| *p.flip().signed_board())
                .collect();
            let mut given: Vec<[i8; 26]> = plays.iter().map(|p| *p.after.signed_board()).collect();
            legal.sort_unstable();
            given.sort_unstable();
            if legal != given {
                return Err(err(format!(
                    "moves: {} plays given, but {} {d1}{d2} has {} legal plays and they differ",
                    given.len(),
                    l.posid,
                    legal.len()
                )));
            }
            if plays.len() < 2 {
                return Err(err(format!(
                    "{} {d1}{d2} has a single legal play: nothing to judge",
                    l.posid
                )));
            }
            let best = plays
                .iter()
                .filter_map(|p| p.deep)
                .fold(f32::NEG_INFINITY, f32::max);
            if best == f32::NEG_INFINITY {
                return Err(err("no play has a deep equity (eqN)".to_string()));
            }
            positions.push(JudgedPosition {
                position,
                roll,
                class: l.class,
                plays,
                best,
            });
        }
        Ok(JudgedSet {
            positions,
            plies: plies.unwrap_or(0),
        })
    }
}

impl JudgedSet {
    /// The losses of the judge's own 0-ply choices (the play with the best `eq0`): how far the
    /// judge's static evaluation is from its deep one, a yardstick for players' rates.
    #[must_use]
    pub fn zero_ply_losses(&self) -> LossSummary {
        let losses: Vec<f64> = self
            .positions
            .iter()
            .map(|jp| {
                let first = jp
                    .plays
                    .iter()
                    .max_by(|a, b| a.eq0.total_cmp(&b.eq0))
                    .expect("at least two plays");
                f64::from(jp.loss_of(first).0)
            })
            .collect();
        LossSummary::of(&losses)
    }
}

/// Losses of one group of positions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LossSummary {
    /// Positions judged.
    pub positions: usize,
    /// Mean loss per position, in thousandths of a point (mEMG per move, cubeless money).
    pub mean_loss: f64,
    /// Half-width of the 95% confidence interval of `mean_loss` (positions sampled at random
    /// from the set's source); `None` with fewer than two positions.
    pub ci95: Option<f64>,
    /// Choices that were not the judge's best play (any loss).
    pub errors: usize,
    /// Choices that lost more than 0.08: gnubg's "bad" (its error marks start there).
    pub bad: usize,
    /// Choices that lost more than 0.16: gnubg's "very bad", its blunders.
    pub blunders: usize,
}

impl LossSummary {
    fn of(losses: &[f64]) -> LossSummary {
        let n = losses.len();
        if n == 0 {
            return LossSummary::default();
        }
        let mean = losses.iter().sum::<f64>() / n as f64;
        let ci95 = (n >= 2).then(|| {
            let var = losses.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            1.96 * (var / n as f64).sqrt() * 1000.0
        });
        LossSummary {
            positions: n,
            mean_loss: mean * 1000.0,
            ci95,
            errors: losses.iter().filter(|&&l| l > 1e-6).count(),
            bad: losses.iter().filter(|&&l| l > 0.08).count(),
            blunders: losses.iter().filter(|&&l| l > 0.16).count(),
        }
    }
}

/// A player's judgement over a set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    /// The player's name.
    pub player: String,
    /// Over all positions.
    pub all: LossSummary,
    /// Per class of position, by the judge's class number, ascending.
    pub by_class: Vec<(u8, LossSummary)>,
    /// Choices the judge valued at 0-ply only (outside its deeply evaluated plays).
    pub shallow: usize,
    /// The loss of each position, in set order (equity, not thousandths).
    #[serde(skip)]
    pub losses: Vec<f64>,
    /// The play chosen in each position, in set order: its index in the position's `plays`.
    #[serde(skip)]
    pub choices: Vec<usize>,
}

/// Why a set could not be judged.
#[derive(Debug)]
pub enum JudgeError {
    /// The player factory failed.
    CreatePlayer(BoxError),
    /// The thread pool could not be built.
    Threads(rayon::ThreadPoolBuildError),
    /// The player chose a play outside the list.
    IllegalChoice {
        /// The player's name.
        player: String,
        /// The position's index in the set.
        position: usize,
    },
    /// The player reported a failure ([`Player::take_failure`]).
    PlayerFailed {
        /// The player's name.
        player: String,
        /// Its failure.
        source: BoxError,
    },
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::CreatePlayer(_) => write!(f, "cannot create the player"),
            JudgeError::Threads(_) => write!(f, "cannot start the judging threads"),
            JudgeError::IllegalChoice { player, position } => write!(
                f,
                "player {player} chose a play outside the list at position {} of the set",
                position + 1
            ),
            JudgeError::PlayerFailed { player, .. } => write!(f, "player {player} failed"),
        }
    }
}

impl std::error::Error for JudgeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JudgeError::CreatePlayer(e) | JudgeError::PlayerFailed { source: e, .. } => {
                Some(e.as_ref())
            }
            JudgeError::Threads(e) => Some(e),
            JudgeError::IllegalChoice { .. } => None,
        }
    }
}

/// One choice: its loss, whether it was judged deeply, its index in the judged plays.
type Choice = (f64, bool, usize);

/// Positions one player instance judges in a row (a fresh instance, fresh caches, per chunk).
const CHUNK: usize = 64;

/// Lets players made by `make` choose a play in every position of `set`, on `threads` threads
/// (0: one per core), and sums up what their choices lose. The result does not depend on the
/// thread count for players whose choices depend only on the position and roll.
///
/// # Errors
/// [`JudgeError`] when a player cannot be made, fails, or chooses outside the list.
pub fn judge<P, F, E>(set: &JudgedSet, threads: usize, make: F) -> Result<Judgement, JudgeError>
where
    P: Player,
    F: Fn() -> Result<P, E> + Sync,
    E: Into<BoxError>,
{
    judge_with_progress(set, threads, make, &ProgressBar::hidden())
}

/// As [`judge`], advancing `progress` by one for each position judged.
///
/// # Errors
/// As [`judge`].
pub fn judge_with_progress<P, F, E>(
    set: &JudgedSet,
    threads: usize,
    make: F,
    progress: &ProgressBar,
) -> Result<Judgement, JudgeError>
where
    P: Player,
    F: Fn() -> Result<P, E> + Sync,
    E: Into<BoxError>,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(JudgeError::Threads)?;
    // Each chunk's player name and choices.
    let chunks: Vec<Result<(String, Vec<Choice>), JudgeError>> = pool.install(|| {
        set.positions
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut player = make().map_err(|e| JudgeError::CreatePlayer(e.into()))?;
                let mut list = PlayList::new();
                let mut out = Vec::with_capacity(chunk.len());
                for (k, jp) in chunk.iter().enumerate() {
                    let index = c * CHUNK + k;
                    jp.position.legal_plays(jp.roll, &mut list);
                    player.new_game();
                    let state = GameState::money(jp.position);
                    let choice = player.choose_play(&state, jp.roll, &list);
                    if let Some(source) = player.take_failure() {
                        return Err(JudgeError::PlayerFailed {
                            player: player.name(),
                            source,
                        });
                    }
                    let after = list
                        .positions()
                        .get(choice)
                        .ok_or_else(|| JudgeError::IllegalChoice {
                            player: player.name(),
                            position: index,
                        })?
                        .flip();
                    // Parsing checked that the judged plays are the legal plays.
                    let k = jp
                        .plays
                        .iter()
                        .position(|p| p.after == after)
                        .expect("the judged plays are the legal plays");
                    let (loss, deep) = jp.loss_of(&jp.plays[k]);
                    out.push((f64::from(loss), deep, k));
                    progress.inc(1);
                }
                Ok((player.name(), out))
            })
            .collect()
    });
    let mut name = String::new();
    let mut results = Vec::with_capacity(set.positions.len());
    for c in chunks {
        let (n, choices) = c?;
        if name.is_empty() {
            name = n;
        }
        results.extend(choices);
    }
    let losses: Vec<f64> = results.iter().map(|r| r.0).collect();
    let mut classes: HashMap<u8, Vec<f64>> = HashMap::new();
    for (jp, &l) in set.positions.iter().zip(&losses) {
        classes.entry(jp.class).or_default().push(l);
    }
    let mut by_class: Vec<(u8, LossSummary)> = classes
        .into_iter()
        .map(|(c, l)| (c, LossSummary::of(&l)))
        .collect();
    by_class.sort_by_key(|(c, _)| *c);
    Ok(Judgement {
        player: name,
        all: LossSummary::of(&losses),
        by_class,
        shallow: results.iter().filter(|r| !r.1).count(),
        losses,
        choices: results.iter().map(|r| r.2).collect(),
    })
}

/// Mean and 95% half-width, in thousandths, of `a`'s loss minus `b`'s over the same positions
/// (paired): negative when `a` loses less.
///
/// # Panics
/// When the two judgements are not of the same number of positions.
#[must_use]
pub fn paired_difference(a: &Judgement, b: &Judgement) -> (f64, Option<f64>) {
    assert_eq!(
        a.losses.len(),
        b.losses.len(),
        "judgements of different sets"
    );
    let d: Vec<f64> = a.losses.iter().zip(&b.losses).map(|(x, y)| x - y).collect();
    let s = LossSummary::of(&d);
    (s.mean_loss, s.ci95)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_player::RandomPlayer;

    const SAMPLE: &str = include_str!("../tests/data/judged-sample.jsonl");

    /// Plays the judge's best play: loses nothing.
    struct Oracle(JudgedSet);

    impl Player for Oracle {
        fn name(&self) -> String {
            "oracle".into()
        }
        fn choose_play(&mut self, state: &GameState, roll: Roll, plays: &PlayList) -> usize {
            let jp = self
                .0
                .positions
                .iter()
                .find(|jp| jp.position == state.position && jp.roll == roll)
                .expect("a position of the set");
            plays
                .positions()
                .iter()
                .position(|p| jp.loss(&p.flip()) == Some((0.0, true)))
                .expect("the best play is legal")
        }
    }

    #[test]
    fn sample_parses_and_the_best_play_loses_nothing() {
        let set = JudgedSet::parse(SAMPLE).unwrap();
        assert!(set.positions.len() >= 20);
        assert_eq!(set.plies, 2);
        let j = judge(&set, 2, || Ok::<_, BoxError>(Oracle(set.clone()))).unwrap();
        assert_eq!(j.all.mean_loss, 0.0);
        assert_eq!(j.all.errors, 0);
        assert_eq!(j.shallow, 0);
        for (jp, &k) in set.positions.iter().zip(&j.choices) {
            // Ties are possible: compare equities, not plays.
            assert_eq!(jp.plays[k].deep, jp.best_play().deep);
        }
        // The judge's own 0-ply choices lose something, but little.
        let zero = set.zero_ply_losses();
        assert!(zero.mean_loss > 0.0 && zero.mean_loss < 20.0, "{zero:?}");
    }

    #[test]
    fn random_play_loses_and_the_summary_adds_up() {
        let set = JudgedSet::parse(SAMPLE).unwrap();
        let j = judge(&set, 2, || Ok::<_, BoxError>(RandomPlayer::new(7))).unwrap();
        assert!(j.all.mean_loss > 20.0, "{}", j.all.mean_loss);
        assert_eq!(j.losses.len(), set.positions.len());
        let n: usize = j.by_class.iter().map(|(_, s)| s.positions).sum();
        assert_eq!(n, set.positions.len());
        let (d, ci) = paired_difference(&j, &j);
        assert_eq!(d, 0.0);
        assert_eq!(ci, Some(0.0));
    }

    #[test]
    fn losses_are_counted_by_gnubgs_marks() {
        // gnubg marks a loss beyond 0.08 bad, beyond 0.16 very bad (a blunder).
        let s = LossSummary::of(&[0.0, 0.05, 0.1, 0.2, 0.3]);
        assert_eq!((s.errors, s.bad, s.blunders), (4, 3, 2));
        assert!((s.mean_loss - 130.0).abs() < 1e-9);
    }

    #[test]
    fn bad_lines_name_the_line_and_the_field() {
        let good = SAMPLE.lines().next().unwrap();
        let e = JudgedSet::parse(&format!("{good}\n\n{{\"posid\":1}}")).unwrap_err();
        assert_eq!(e.line, 3);
        let bad_id = good.replacen("\"posid\":\"", "\"posid\":\"!", 1);
        let e = JudgedSet::parse(&bad_id).unwrap_err();
        assert!(e.message.starts_with("posid"), "{e}");
        let bad_dice = good.replacen("\"dice\":[", "\"dice\":[7,", 1);
        assert!(JudgedSet::parse(&bad_dice).is_err());
        // A play removed: the list no longer matches the legal plays.
        let v: serde_json::Value = serde_json::from_str(good).unwrap();
        let mut v2 = v.clone();
        v2["moves"].as_array_mut().unwrap().pop();
        let e = JudgedSet::parse(&v2.to_string()).unwrap_err();
        assert!(e.message.contains("legal plays"), "{e}");
        let mut v3 = v;
        v3["plies"] = 3.into();
        let e = JudgedSet::parse(&format!("{good}\n{v3}")).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("plies"), "{e}");
    }
}
