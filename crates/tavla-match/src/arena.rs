//! Measuring one player against another: cubeless money games with duplicate dice, on several
//! threads, with a 95% confidence interval.
//!
//! # How games are played
//!
//! * Money games without the cube: a win scores 1, a gammon 2, a backgammon 3.
//! * **Duplicate dice.** Games come in pairs. Pair `k` draws its rolls from one seeded stream
//!   ([`DiceStream::new`]`(seed, k)`), and plays it twice: in the first game A is `X` and starts,
//!   in the second B is `X` and starts, with the same rolls in the same order. Whatever luck A
//!   had in one game, B has in the other.
//! * **Opening roll.** The side to start plays the first roll of the stream, re-rolled until it
//!   is not a double. That is the distribution of the usual opening rule (each player throws a
//!   die, the higher starts and plays both, ties re-thrown): the first roll is a uniform
//!   non-double, and who starts is a fair coin independent of it. Here the coin is replaced by
//!   alternation inside each pair, so each player starts exactly half the games.
//! * A player is asked only when it has a choice (more than one legal play).
//! * A game still going after [`MAX_PLIES`] plies is stopped, unfinished: no winner, no
//!   points. Only players that never mind their blots get there.
//!
//! # Statistics
//!
//! A's points per game is the mean over pairs of `y = (points of A in game 1 + in game 2) / 2`;
//! the 95% confidence interval is `1.96 * s / sqrt(n)` with `s` the sample standard deviation of
//! `y` over the `n` pairs (normal approximation). Pairs are independent, games inside a pair are
//! not, which is why the pair is the unit. The win rate is treated the same way. Sums are kept
//! in integers, so results do not depend on the number of threads.
//!
//! # Luck-adjusted results
//!
//! With a [`LuckJudge`] ([`run_arena_judged`]) the arena also reports A's points per game with
//! the luck of the dice taken out, as gnubg's and eXtreme Gammon's analyses do. The judge values
//! each of the 21 rolls at the position where a roll is thrown (the equity left by the roll's
//! best play, for the side that rolls); the roll's **luck** is its value minus the mean of the
//! values over all 36 rolls (over the 30 non-doubles for the opening roll). A game's
//! luck-adjusted result for A is A's points minus A's luck plus B's luck. Whatever the judge,
//! each roll's luck has mean zero given everything before it (the dice do not know the
//! position), so the adjusted result has the same expectation as the points: it estimates the
//! same thing, with a smaller variance the better the judge values positions. The interval is
//! computed over pairs as above. These sums are floating point, added in a fixed order (games
//! in order inside a block, blocks in order), so they too do not depend on the threads.
//!
//! # Threads and reproducibility
//!
//! Pairs are cut into fixed blocks of [`BLOCK_PAIRS`]. Each block creates its two players with
//! seeds derived from the arena seed and the block number, so a run is reproducible for a given
//! seed and game count whatever `threads` is, even with random players.

use std::error::Error as StdError;
use std::fmt;

use indicatif::ProgressBar;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use tavla_core::{
    BySide, CubeResponse, Dice, GameState, Play, PlayList, Position, PositionId, Resign, Roll,
    Rules, Side,
};
use tavla_player::Player;

/// Game pairs per block: each block makes its own two players (see the module docs).
pub const BLOCK_PAIRS: u64 = 32;

/// A game still going after this many plies is stopped and scored as unfinished: no points,
/// no winner. Games between the article's heuristic configurations last under 100 plies (the
/// longest of 400 was 82); but two players that hit whenever they can and never mind their
/// blots (the all-zero heuristic configuration against itself) can trade hits for ever: 370 of
/// 400 such games ran past 20,000 plies.
pub const MAX_PLIES: u32 = 5_000;

/// An error from a player factory.
pub type BoxError = Box<dyn StdError + Send + Sync>;

/// The seeded dice of one game pair. ChaCha8 with the stream number set to the pair, so every
/// pair has its own independent rolls and any pair can be replayed alone.
#[derive(Debug, Clone)]
pub struct DiceStream {
    rng: ChaCha8Rng,
}

impl DiceStream {
    /// The rolls of stream `stream` under `seed`.
    #[must_use]
    pub fn new(seed: u64, stream: u64) -> DiceStream {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        DiceStream { rng }
    }

    fn die(&mut self) -> u8 {
        self.rng.gen_range(1..=6)
    }

    /// The opening roll: two dice, thrown again while they show a double.
    pub fn opening_roll(&mut self) -> Roll {
        loop {
            let (a, b) = (self.die(), self.die());
            if a != b {
                return Roll::from_values(a, b);
            }
        }
    }

    /// The next roll.
    pub fn roll(&mut self) -> Roll {
        let (a, b) = (self.die(), self.die());
        Roll::from_values(a, b)
    }
}

/// Values the rolls of a position, for luck-adjusted results (see the module docs).
pub trait LuckJudge {
    /// The value, for the side on roll of `position` (not a finished game), of each of the 21
    /// rolls in the order of [`Roll::ALL_21`] under `rules`: the equity (expected points)
    /// left by its best play.
    fn roll_values(&mut self, position: &Position, rules: Rules, out: &mut [f64; 21]);

    /// Called before each game (a judge with a cache may empty it, so that each game's luck
    /// does not depend on the games judged before).
    fn new_game(&mut self) {}

    /// Whether the judge values the rolls of match play ([`LuckJudge::match_roll_values`]);
    /// without it matches get no luck-adjusted result.
    fn values_matches(&self) -> bool {
        false
    }

    /// In match play, the value of each of the 21 rolls for the side on roll of `state` (its
    /// position, score and cube), as its chance of winning the match after the roll's best
    /// play. Called only when [`LuckJudge::values_matches`]; by default the money values of
    /// [`LuckJudge::roll_values`].
    fn match_roll_values(&mut self, state: &GameState, rules: Rules, out: &mut [f64; 21]) {
        self.roll_values(&state.position, rules, out);
    }
}

/// The luck of `roll` at `position` for the side on roll, as `judge` values the rolls: the
/// roll's value minus the mean of all rolls' values (the 36 rolls, or the 30 non-doubles when
/// `opening`). `values` is scratch space.
pub fn roll_luck(
    judge: &mut dyn LuckJudge,
    position: &Position,
    roll: Roll,
    rules: Rules,
    opening: bool,
    values: &mut [f64; 21],
) -> f64 {
    judge.roll_values(position, rules, values);
    luck_among(values, roll, opening)
}

/// The luck of `roll` for the side on roll of `state` in match play, in match winning chances
/// ([`LuckJudge::match_roll_values`]): as [`roll_luck`] otherwise.
pub fn match_roll_luck(
    judge: &mut dyn LuckJudge,
    state: &GameState,
    roll: Roll,
    rules: Rules,
    opening: bool,
    values: &mut [f64; 21],
) -> f64 {
    judge.match_roll_values(state, rules, values);
    luck_among(values, roll, opening)
}

/// `roll`'s value among the 21 `values` minus their mean over the 36 rolls (the 30
/// non-doubles when `opening`).
fn luck_among(values: &[f64; 21], roll: Roll, opening: bool) -> f64 {
    let (mut sum, mut weight, mut own) = (0.0, 0.0, 0.0);
    for (&(r, w), &v) in Roll::ALL_21.iter().zip(values.iter()) {
        if r == roll {
            own = v;
        }
        if !(opening && r.is_double()) {
            sum += f64::from(w) * v;
            weight += f64::from(w);
        }
    }
    own - sum / weight
}

/// How one game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameResult {
    /// The winner; `None` when the game was stopped unfinished after [`MAX_PLIES`].
    pub winner: Option<Side>,
    /// 1 single (or a double passed), 2 gammon, 3 backgammon; 0 unfinished.
    pub points: u8,
    /// The cube's value at the end (the value before a double that was passed); 1 without
    /// the cube. The winner scores `points * cube`.
    pub cube: u32,
    /// Plies played, passes included.
    pub plies: u32,
}

impl GameResult {
    /// The points the winner scores.
    #[must_use]
    pub fn score(&self) -> u32 {
        u32::from(self.points) * self.cube
    }
}

/// What the games are played for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stakes {
    /// Money games without the cube.
    #[default]
    Cubeless,
    /// Money games with the doubling cube (no Jacoby rule, no beavers): the side on roll may
    /// double before it rolls ([`Player::wants_to_double`]), the other takes or passes
    /// ([`Player::accepts_double`]).
    Cube,
    /// Matches to this many points with the cube and the Crawford rule. Each game of the
    /// arena is then a whole match, worth 1 to its winner.
    Match(u32),
}

impl fmt::Display for Stakes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stakes::Cubeless => write!(f, "cubeless money games"),
            Stakes::Cube => write!(f, "money games with the cube"),
            Stakes::Match(n) => write!(f, "{n}-point matches"),
        }
    }
}

/// How a game is played beyond its starting state (whose `beavers` says whether a doubled side
/// may beaver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameOptions {
    /// The cube is in play: before each roll but the opening one, the side on roll may double
    /// where [`GameState::may_double`] allows it; a passed double ends the game.
    pub cube: bool,
    /// Before each roll but the opening one, the side on roll may offer to resign
    /// ([`Player::resigns`]); an accepted offer ends the game. A side whose offer was rejected
    /// makes no offer at that level or below again that game.
    pub resignations: bool,
}

/// The most games of one match: a match still going after them is stopped, unfinished.
pub const MAX_MATCH_GAMES: u64 = 1_000;

/// One roll of a recorded game: the position it was thrown in (seen from the roller), the
/// roll and the play chosen. The rollers alternate, `X` first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordedRoll {
    /// The position, from the roller's side.
    pub position: Position,
    /// The roll.
    pub roll: Roll,
    /// The play chosen (the pass when none was legal).
    pub play: Play,
}

/// A double of a recorded game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordedDouble {
    /// The rolls played before it: the doubler is the side of roll `before`, `X` when it is
    /// even.
    pub before: usize,
    /// The cube's value after the double.
    pub value: u32,
    /// Whether it was taken; a pass ends the game.
    pub taken: bool,
    /// Whether the take was a beaver (the cube then at twice `value`, owned by the taker).
    pub beavered: bool,
}

/// What a game logs as it is played, when asked ([`play_game_from`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameLog {
    /// Every roll, `X`'s first.
    pub rolls: Vec<RecordedRoll>,
    /// Every double, in order.
    pub doubles: Vec<RecordedDouble>,
    /// The level of the resignation that ended the game, if one did.
    pub resigned: Option<Resign>,
}

/// A game of an arena run, recorded ([`run_arena_recorded`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedGame {
    /// Whether A played `X` (and moved first): the first game of each pair (of money games),
    /// every game of the first match of each pair (of matches).
    pub a_is_x: bool,
    /// Every roll, `X`'s first.
    pub rolls: Vec<RecordedRoll>,
    /// Every double (none without the cube).
    pub doubles: Vec<RecordedDouble>,
    /// The level of the resignation that ended it, if one did.
    pub resigned: Option<Resign>,
    /// How it ended.
    pub result: GameResult,
    /// In a match, `X`'s and `O`'s points before the game; 0 and 0 in money play.
    pub score: [u32; 2],
    /// In a match, the game's number in it from 0; 0 in money play.
    pub game_in_match: u32,
}

impl RecordedGame {
    fn new(a_is_x: bool, log: GameLog, result: GameResult) -> RecordedGame {
        RecordedGame {
            a_is_x,
            rolls: log.rolls,
            doubles: log.doubles,
            resigned: log.resigned,
            result,
            score: [0, 0],
            game_in_match: 0,
        }
    }
}

/// Plays one cubeless money game from the start, `X` first with the opening roll of `dice`.
///
/// `plays` is scratch space. Players are told [`Player::new_game`] first.
///
/// A game still going after [`MAX_PLIES`] is stopped, with no winner.
///
/// # Errors
/// [`ArenaError::IllegalChoice`] when a player returns an index outside the legal plays,
/// [`ArenaError::PlayerFailed`] when a player reports a failure after the game
/// ([`Player::take_failure`]).
pub fn play_game(
    x: &mut dyn Player,
    o: &mut dyn Player,
    dice: &mut DiceStream,
    rules: Rules,
    plays: &mut PlayList,
) -> Result<GameResult, ArenaError> {
    play_game_judged(x, o, dice, rules, plays, None, None).map(|(result, _)| result)
}

/// [`play_game`], also returning the luck of `X`'s rolls minus the luck of `O`'s as `judge`
/// values them (0 without a judge; see the module docs), and adding every roll played to
/// `record` when given.
///
/// # Errors
/// As [`play_game`].
pub fn play_game_judged(
    x: &mut dyn Player,
    o: &mut dyn Player,
    dice: &mut DiceStream,
    rules: Rules,
    plays: &mut PlayList,
    judge: Option<&mut dyn LuckJudge>,
    record: Option<&mut GameLog>,
) -> Result<(GameResult, f64), ArenaError> {
    let start = GameState::money(Position::START);
    play_game_from(
        x,
        o,
        dice,
        rules,
        plays,
        &start,
        GameOptions::default(),
        judge,
        record,
    )
}

/// [`play_game_judged`] from the start of a game whose cube, score and match are those of
/// `start` (its position is ignored), played as `options` say (the cube, resignations) and, in
/// money play with the cube, with beavers when `start.beavers`. The luck of a roll counts at the cube's value when
/// it is thrown (still an unbiased adjustment: the value is known before the roll).
///
/// # Errors
/// As [`play_game`].
#[allow(clippy::too_many_arguments)]
pub fn play_game_from(
    x: &mut dyn Player,
    o: &mut dyn Player,
    dice: &mut DiceStream,
    rules: Rules,
    plays: &mut PlayList,
    start: &GameState,
    options: GameOptions,
    mut judge: Option<&mut dyn LuckJudge>,
    record: Option<&mut GameLog>,
) -> Result<(GameResult, f64), ArenaError> {
    x.new_game();
    o.new_game();
    if let Some(judge) = judge.as_deref_mut() {
        judge.new_game();
    }
    let mut state = *start;
    state.position = Position::START;
    state.turn = Side::X;
    state.dice = Dice::NotRolled;
    let result = play_moves(x, o, dice, rules, plays, state, options, judge, record)?;
    // A player that failed (an external engine that died or answered nonsense) played some
    // moves by its fallback: the game is not a fair result.
    check_failure(x)?;
    check_failure(o)?;
    Ok(result)
}

/// Plays one match of `length` points with the cube and the Crawford rule, `X` starting every
/// game; game `g` draws its rolls from stream `first_stream + g` of `seed`. The result is the
/// match's: its winner, `points` 1 and `cube` 1, the plies of all its games; unfinished (no
/// winner) after [`MAX_MATCH_GAMES`] games; with it, the luck of `X`'s rolls minus the luck of
/// `O`'s over the whole match, in match winning chances, as `judge` values them (0 without a
/// judge, or one that does not value match play). With `record`, every game is added to it
/// (with `a_is_x` true: the caller says who A is). With `resignations`, before each roll the
/// side on roll may offer to resign as in money games ([`GameOptions::resignations`]), a game
/// resigned scoring the level offered times the cube.
///
/// # Errors
/// As [`play_game`].
#[allow(clippy::too_many_arguments)]
pub fn play_match(
    x: &mut dyn Player,
    o: &mut dyn Player,
    seed: u64,
    first_stream: u64,
    length: u32,
    rules: Rules,
    resignations: bool,
    plays: &mut PlayList,
    mut judge: Option<&mut dyn LuckJudge>,
    mut record: Option<&mut Vec<RecordedGame>>,
) -> Result<(GameResult, f64), ArenaError> {
    let mut score = BySide { x: 0u32, o: 0u32 };
    let mut crawford_played = false;
    let mut plies = 0;
    let mut luck_x = 0.0;
    for g in 0..MAX_MATCH_GAMES {
        let mut dice = DiceStream::new(seed, first_stream.wrapping_add(g));
        let crawford = GameState::is_crawford_game(length, score, crawford_played);
        crawford_played |= crawford;
        let start = GameState {
            match_length: length,
            score,
            crawford,
            ..GameState::money(Position::START)
        };
        let mut log = GameLog::default();
        let (game, luck) = play_game_from(
            x,
            o,
            &mut dice,
            rules,
            plays,
            &start,
            GameOptions {
                cube: true,
                resignations,
            },
            judge.as_mut().map(|j| &mut **j as &mut dyn LuckJudge),
            record.is_some().then_some(&mut log),
        )?;
        luck_x += luck;
        if let Some(record) = record.as_deref_mut() {
            record.push(RecordedGame {
                score: [score.x, score.o],
                game_in_match: g as u32,
                ..RecordedGame::new(true, log, game)
            });
        }
        plies += game.plies;
        if let Some(winner) = game.winner {
            let points = score.get_mut(winner);
            *points += game.score();
            if *points >= length {
                let result = GameResult {
                    winner: Some(winner),
                    points: 1,
                    cube: 1,
                    plies,
                };
                return Ok((result, luck_x));
            }
        }
    }
    let result = GameResult {
        winner: None,
        points: 0,
        cube: 1,
        plies,
    };
    Ok((result, luck_x))
}

fn check_failure(player: &mut dyn Player) -> Result<(), ArenaError> {
    match player.take_failure() {
        Some(source) => Err(ArenaError::PlayerFailed {
            player: player.name(),
            source,
        }),
        None => Ok(()),
    }
}

#[allow(clippy::too_many_arguments)]
fn play_moves(
    x: &mut dyn Player,
    o: &mut dyn Player,
    dice: &mut DiceStream,
    rules: Rules,
    plays: &mut PlayList,
    mut state: GameState,
    options: GameOptions,
    mut judge: Option<&mut dyn LuckJudge>,
    mut record: Option<&mut GameLog>,
) -> Result<(GameResult, f64), ArenaError> {
    let cube = options.cube;
    let mut roll = dice.opening_roll();
    let mut luck_x = 0.0;
    let mut values = [0.0; 21];
    // The level of each side's last rejected resignation (X, O).
    let mut rejected: [Option<Resign>; 2] = [None, None];
    for plies in 1..=MAX_PLIES {
        if options.resignations && plies > 1 {
            state.dice = Dice::NotRolled;
            let side = usize::from(state.turn == Side::O);
            let (resigner, other): (&mut dyn Player, &mut dyn Player) = if state.turn == Side::X {
                (&mut *x, &mut *o)
            } else {
                (&mut *o, &mut *x)
            };
            let offer = resigner
                .resigns(&state, cube)
                .filter(|&level| rejected[side].is_none_or(|r| level > r));
            if let Some(level) = offer {
                if other.accepts_resignation(&state, cube, level) {
                    let result = GameResult {
                        winner: Some(!state.turn),
                        points: u8::try_from(level.points_in(&state) / state.cube.value())
                            .unwrap_or(1),
                        cube: state.cube.value(),
                        plies: plies - 1,
                    };
                    if let Some(record) = record.as_deref_mut() {
                        record.resigned = Some(level);
                    }
                    return Ok((result, luck_x));
                }
                rejected[side] = Some(level);
            }
        }
        if cube && plies > 1 && state.may_double() {
            state.dice = Dice::NotRolled;
            let (doubler, answerer): (&mut dyn Player, &mut dyn Player) = if state.turn == Side::X {
                (&mut *x, &mut *o)
            } else {
                (&mut *o, &mut *x)
            };
            if doubler.wants_to_double(&state) {
                let asked = state.double_to_answer();
                let taken = answerer.accepts_double(&asked);
                let beavered = taken && state.may_beaver() && answerer.beavers(&asked);
                if let Some(record) = record.as_deref_mut() {
                    record.doubles.push(RecordedDouble {
                        before: record.rolls.len(),
                        value: 2 * state.cube.value(),
                        taken,
                        beavered,
                    });
                }
                let response = match (taken, beavered) {
                    (false, _) => CubeResponse::Pass,
                    (true, false) => CubeResponse::Take,
                    (true, true) => CubeResponse::Beaver,
                };
                if state.answer_double(response).is_some() {
                    let result = GameResult {
                        winner: Some(state.turn),
                        points: 1,
                        cube: state.cube.value(),
                        plies: plies - 1,
                    };
                    return Ok((result, luck_x));
                }
            }
        }
        if let Some(judge) = judge.as_deref_mut() {
            let opening = plies == 1;
            let l = if state.is_money() {
                let l = roll_luck(judge, &state.position, roll, rules, opening, &mut values);
                l * f64::from(state.cube.value())
            } else if judge.values_matches() {
                match_roll_luck(judge, &state, roll, rules, opening, &mut values)
            } else {
                0.0
            };
            luck_x += if state.turn == Side::X { l } else { -l };
        }
        state.dice = Dice::Rolled(roll);
        state.position.legal_plays_with(roll, rules, plays);
        let choice = if plays.len() == 1 {
            0
        } else {
            let player: &mut dyn Player = if state.turn == Side::X {
                &mut *x
            } else {
                &mut *o
            };
            let choice = player.choose_play(&state, roll, plays);
            if choice >= plays.len() {
                return Err(ArenaError::IllegalChoice {
                    player: player.name(),
                    index: choice,
                    plays: plays.len(),
                    position: PositionId::from(state.position).to_string(),
                    roll,
                });
            }
            choice
        };
        if let Some(record) = record.as_deref_mut() {
            record.rolls.push(RecordedRoll {
                position: state.position,
                roll,
                play: plays.play(choice),
            });
        }
        let after = plays.positions()[choice];
        if let Some(outcome) = after.outcome() {
            debug_assert!(outcome.on_roll_wins, "only the mover can finish");
            let result = GameResult {
                winner: Some(state.turn),
                points: outcome.points,
                cube: state.cube.value(),
                plies,
            };
            return Ok((result, luck_x));
        }
        state.position = after.flip();
        state.turn = !state.turn;
        roll = dice.roll();
    }
    let result = GameResult {
        winner: None,
        points: 0,
        cube: state.cube.value(),
        plies: MAX_PLIES,
    };
    Ok((result, luck_x))
}

/// What to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArenaConfig {
    /// Games to play; even and at least 2 (pairs of duplicate games).
    pub games: u64,
    /// The seed of the dice (and of the players' own seeds).
    pub seed: u64,
    /// The rules.
    pub rules: Rules,
    /// Worker threads; 0 for one per available core.
    pub threads: usize,
    /// What the games are played for.
    pub stakes: Stakes,
    /// Money games with the cube: a doubled side may beaver ([`Player::beavers`]).
    pub beavers: bool,
    /// Before each roll but the first, the side on roll may offer to resign
    /// ([`Player::resigns`]) and the other accepts or not ([`Player::accepts_resignation`]);
    /// a side whose offer was rejected offers no less again that game.
    pub resignations: bool,
}

/// The result of an arena run. Serialises (serde) to the JSON object of `tavla arena --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArenaResult {
    /// Player A's name.
    pub a: String,
    /// Player B's name.
    pub b: String,
    /// The rules: `standard` or `no-quad-doubles`.
    pub variant: &'static str,
    /// What the games were played for (`"cubeless"`, `"cube"` or `{"match": N}`); with
    /// [`Stakes::Match`] each game below is a whole match.
    pub stakes: Stakes,
    /// The seed.
    pub seed: u64,
    /// Games played.
    pub games: u64,
    /// Game pairs (duplicate dice).
    pub pairs: u64,
    /// Games A won.
    pub wins_a: u64,
    /// Games B won.
    pub wins_b: u64,
    /// Games A won with a gammon (backgammons not included).
    pub gammons_a: u64,
    /// Games B won with a gammon (backgammons not included).
    pub gammons_b: u64,
    /// Games A won with a backgammon.
    pub backgammons_a: u64,
    /// Games B won with a backgammon.
    pub backgammons_b: u64,
    /// Games stopped unfinished after [`MAX_PLIES`] plies (no points, no winner).
    pub unfinished: u64,
    /// A's net points.
    pub points_a: i64,
    /// A's points per game.
    pub ppg_a: f64,
    /// Half-width of the 95% confidence interval of `ppg_a`; `None` with a single pair.
    pub ci95: Option<f64>,
    /// The share of games A won.
    pub win_rate_a: f64,
    /// Half-width of the 95% confidence interval of `win_rate_a`; `None` with a single pair.
    pub win_rate_ci95: Option<f64>,
    /// Mean plies per game (passes included; unfinished games count [`MAX_PLIES`]).
    pub plies_avg: f64,
    /// A's luck-adjusted points per game (see the module docs); `None` without a judge.
    pub luck_adjusted_ppg_a: Option<f64>,
    /// Half-width of the 95% confidence interval of `luck_adjusted_ppg_a`; `None` without a
    /// judge or with a single pair.
    pub luck_adjusted_ci95: Option<f64>,
}

/// The rules' name in reports.
#[must_use]
pub fn variant_name(rules: Rules) -> &'static str {
    match rules {
        Rules::Standard => "standard",
        Rules::DoublesTwice => "no-quad-doubles",
    }
}

/// Which of the two players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Player A.
    A,
    /// Player B.
    B,
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Slot::A => "A",
            Slot::B => "B",
        })
    }
}

/// Why an arena run failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ArenaError {
    /// The number of games is odd or zero.
    Games {
        /// The number asked for.
        games: u64,
    },
    /// The thread pool could not be built.
    Threads(rayon::ThreadPoolBuildError),
    /// A player factory failed.
    CreatePlayer {
        /// Which player.
        slot: Slot,
        /// The factory's error.
        source: BoxError,
    },
    /// A player reported a failure during a game ([`Player::take_failure`]).
    PlayerFailed {
        /// The player's name.
        player: String,
        /// Its failure.
        source: BoxError,
    },
    /// The stakes cannot be played with the options asked for.
    Stakes {
        /// The stakes.
        stakes: Stakes,
        /// Why not.
        why: &'static str,
    },
    /// A player chose a play that is not in the list.
    IllegalChoice {
        /// The player's name.
        player: String,
        /// The index it returned.
        index: usize,
        /// How many plays there were.
        plays: usize,
        /// The position (gnubg Position ID, side on roll's view).
        position: String,
        /// The roll.
        roll: Roll,
    },
}

impl fmt::Display for ArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaError::Games { games } => write!(
                f,
                "{games} games asked for: the arena plays pairs of duplicate games, so the number \
                 must be even and at least 2"
            ),
            ArenaError::Threads(_) => write!(f, "cannot start the arena's threads"),
            ArenaError::Stakes { stakes, why } => write!(f, "{stakes}: {why}"),
            ArenaError::CreatePlayer { slot, .. } => write!(f, "cannot create player {slot}"),
            ArenaError::PlayerFailed { player, .. } => {
                write!(f, "player {player} failed during a game")
            }
            ArenaError::IllegalChoice {
                player,
                index,
                plays,
                position,
                roll,
            } => write!(
                f,
                "player {player} chose play {index} of {plays} (indices 0..{plays}) at position \
                 {position} with roll {roll}"
            ),
        }
    }
}

impl StdError for ArenaError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            ArenaError::Threads(e) => Some(e),
            ArenaError::CreatePlayer { source, .. } | ArenaError::PlayerFailed { source, .. } => {
                Some(source.as_ref())
            }
            _ => None,
        }
    }
}

/// Integer sums over pairs (exact, so the order of addition cannot matter).
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    pairs: u64,
    wins: [u64; 2],
    unfinished: u64,
    gammons: [u64; 2],
    backgammons: [u64; 2],
    plies: u64,
    /// Sum over pairs of A's points in the pair, and of its square.
    pair_points: i64,
    pair_points_sq: i64,
    /// Sum over pairs of A's wins in the pair (0, 1 or 2), and of its square.
    pair_wins: u64,
    pair_wins_sq: u64,
    /// Sum over pairs of A's luck-adjusted points in the pair, and of its square.
    pair_adjusted: f64,
    pair_adjusted_sq: f64,
}

impl Tally {
    fn add_game(&mut self, a_side: Side, result: GameResult) -> (i64, u64) {
        self.plies += u64::from(result.plies);
        let Some(winner) = result.winner else {
            self.unfinished += 1;
            return (0, 0);
        };
        let winner = usize::from(winner != a_side); // 0 = A, 1 = B
        self.wins[winner] += 1;
        match result.points {
            2 => self.gammons[winner] += 1,
            3 => self.backgammons[winner] += 1,
            _ => {}
        }
        let points = i64::from(result.score());
        if winner == 0 {
            (points, 1)
        } else {
            (-points, 0)
        }
    }

    fn add_pair(&mut self, points: i64, wins: u64, adjusted: f64) {
        self.pairs += 1;
        self.pair_adjusted += adjusted;
        self.pair_adjusted_sq += adjusted * adjusted;
        self.pair_points += points;
        self.pair_points_sq += points * points;
        self.pair_wins += wins;
        self.pair_wins_sq += wins * wins;
    }

    fn merge(mut self, o: Tally) -> Tally {
        self.pairs += o.pairs;
        for i in 0..2 {
            self.wins[i] += o.wins[i];
            self.gammons[i] += o.gammons[i];
            self.backgammons[i] += o.backgammons[i];
        }
        self.plies += o.plies;
        self.unfinished += o.unfinished;
        self.pair_points += o.pair_points;
        self.pair_points_sq += o.pair_points_sq;
        self.pair_wins += o.pair_wins;
        self.pair_wins_sq += o.pair_wins_sq;
        self.pair_adjusted += o.pair_adjusted;
        self.pair_adjusted_sq += o.pair_adjusted_sq;
        self
    }
}

/// Mean and 95% half-width of `y = v / 2` over `n` pairs, from the sums of `v` and `v²`.
fn mean_ci(n: u64, sum: f64, sum_sq: f64) -> (f64, Option<f64>) {
    let n_f = n as f64;
    let mean = sum / 2.0 / n_f;
    if n < 2 {
        return (mean, None);
    }
    let var = ((sum_sq / 4.0) - n_f * mean * mean).max(0.0) / (n_f - 1.0);
    (mean, Some(1.96 * (var / n_f).sqrt()))
}

/// SplitMix64: seeds for the players of each block.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed handed to the factory of `slot` for block `block`.
#[must_use]
pub fn player_seed(seed: u64, block: u64, slot: Slot) -> u64 {
    mix(mix(seed ^ 0x7461_766C_615F_6172) ^ mix(block.wrapping_mul(2) + u64::from(slot == Slot::B)))
}

/// Plays `config.games` games of A against B (see the module docs) and gathers the statistics.
///
/// `make_a` and `make_b` create a player from a seed; they are called once per block of
/// [`BLOCK_PAIRS`] pairs, on the worker threads. `progress` is advanced by one per game (pass
/// `ProgressBar::hidden()` for none).
///
/// # Errors
/// [`ArenaError`]: an odd game count, a factory error, an illegal choice by a player, or a
/// thread pool that cannot start.
pub fn run_arena<PA, PB, FA, FB, E>(
    config: &ArenaConfig,
    make_a: FA,
    make_b: FB,
    progress: &ProgressBar,
) -> Result<ArenaResult, ArenaError>
where
    PA: Player,
    PB: Player,
    FA: Fn(u64) -> Result<PA, E> + Sync,
    FB: Fn(u64) -> Result<PB, E> + Sync,
    E: Into<BoxError>,
{
    run_arena_judged(config, make_a, make_b, None, progress)
}

/// A factory of luck judges, called once per block on the worker threads.
pub type JudgeFactory<'a> = &'a (dyn Fn() -> Box<dyn LuckJudge> + Sync);

/// [`run_arena`], with luck-adjusted results when `make_judge` is given (see the module docs).
///
/// # Errors
/// As [`run_arena`].
pub fn run_arena_judged<PA, PB, FA, FB, E>(
    config: &ArenaConfig,
    make_a: FA,
    make_b: FB,
    make_judge: Option<JudgeFactory<'_>>,
    progress: &ProgressBar,
) -> Result<ArenaResult, ArenaError>
where
    PA: Player,
    PB: Player,
    FA: Fn(u64) -> Result<PA, E> + Sync,
    FB: Fn(u64) -> Result<PB, E> + Sync,
    E: Into<BoxError>,
{
    run_arena_recorded(config, make_a, make_b, make_judge, progress, false)
        .map(|(result, _)| result)
}

/// [`run_arena_judged`], also returning every game played when `record` is set (else none),
/// in order: pair by pair, the game with A as `X` first. The results are those of the same
/// run unrecorded.
///
/// # Errors
/// As [`run_arena`].
pub fn run_arena_recorded<PA, PB, FA, FB, E>(
    config: &ArenaConfig,
    make_a: FA,
    make_b: FB,
    make_judge: Option<JudgeFactory<'_>>,
    progress: &ProgressBar,
    record: bool,
) -> Result<(ArenaResult, Vec<RecordedGame>), ArenaError>
where
    PA: Player,
    PB: Player,
    FA: Fn(u64) -> Result<PA, E> + Sync,
    FB: Fn(u64) -> Result<PB, E> + Sync,
    E: Into<BoxError>,
{
    if config.games < 2 || config.games % 2 != 0 {
        return Err(ArenaError::Games {
            games: config.games,
        });
    }
    if let Stakes::Match(length) = config.stakes {
        let unjudged = make_judge.is_some_and(|make| !make().values_matches());
        if length == 0 || unjudged {
            return Err(ArenaError::Stakes {
                stakes: config.stakes,
                why: if length == 0 {
                    "a match is of 1 point or more"
                } else {
                    "the luck judge does not value match play"
                },
            });
        }
    }
    let pairs = config.games / 2;
    let blocks = pairs.div_ceil(BLOCK_PAIRS);
    let names = (
        make_a(player_seed(config.seed, 0, Slot::A))
            .map_err(|e| create_error(Slot::A, e))?
            .name(),
        make_b(player_seed(config.seed, 0, Slot::B))
            .map_err(|e| create_error(Slot::B, e))?
            .name(),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(ArenaError::Threads)?;

    let run_block = |block: u64| -> Result<(Tally, Vec<RecordedGame>), ArenaError> {
        let mut a = make_a(player_seed(config.seed, block, Slot::A))
            .map_err(|e| create_error(Slot::A, e))?;
        let mut b = make_b(player_seed(config.seed, block, Slot::B))
            .map_err(|e| create_error(Slot::B, e))?;
        let mut judge = make_judge.map(|make| make());
        let mut plays = PlayList::new();
        let mut tally = Tally::default();
        let mut games = Vec::new();
        let (mut log1, mut log2) = (GameLog::default(), GameLog::default());
        let first = block * BLOCK_PAIRS;
        let start = GameState::money(Position::START);
        for pair in first..(first + BLOCK_PAIRS).min(pairs) {
            let ((g1, luck1), (g2, luck2)) = if let Stakes::Match(length) = config.stakes {
                // A pair of matches on the same dice, game by game.
                let streams = pair.wrapping_mul(MAX_MATCH_GAMES);
                let (a, b) = (&mut a as &mut dyn Player, &mut b as &mut dyn Player);
                let (seed, rules, resign) = (config.seed, config.rules, config.resignations);
                let first = games.len();
                let rec = record.then_some(&mut games);
                let j = judge.as_mut().map(|j| &mut **j as &mut dyn LuckJudge);
                let m1 = play_match(
                    a, b, seed, streams, length, rules, resign, &mut plays, j, rec,
                )?;
                let second = games.len();
                let rec = record.then_some(&mut games);
                let j = judge.as_mut().map(|j| &mut **j as &mut dyn LuckJudge);
                let m2 = play_match(
                    b, a, seed, streams, length, rules, resign, &mut plays, j, rec,
                )?;
                // A is X in the first match, O in the second.
                for g in &mut games[first..second] {
                    g.a_is_x = true;
                }
                for g in &mut games[second..] {
                    g.a_is_x = false;
                }
                // A match counts ±1 point, and its luck is in winning chances: a change of
                // the chance by d changes the expected points by 2d.
                ((m1.0, 2.0 * m1.1), (m2.0, 2.0 * m2.1))
            } else {
                let options = GameOptions {
                    cube: config.stakes == Stakes::Cube,
                    resignations: config.resignations,
                };
                let start = GameState {
                    beavers: config.beavers && options.cube,
                    ..start
                };
                // One game of the pair, on the pair's dice.
                let mut game = |x: &mut dyn Player, o: &mut dyn Player, log| {
                    let mut dice = DiceStream::new(config.seed, pair);
                    play_game_from(
                        x,
                        o,
                        &mut dice,
                        config.rules,
                        &mut plays,
                        &start,
                        options,
                        judge.as_mut().map(|j| &mut **j as &mut dyn LuckJudge),
                        record.then_some(log),
                    )
                };
                let g1 = game(&mut a, &mut b, &mut log1)?;
                let g2 = game(&mut b, &mut a, &mut log2)?;
                if record {
                    games.push(RecordedGame::new(true, std::mem::take(&mut log1), g1.0));
                    games.push(RecordedGame::new(false, std::mem::take(&mut log2), g2.0));
                }
                (g1, g2)
            };
            let (p1, w1) = tally.add_game(Side::X, g1);
            let (p2, w2) = tally.add_game(Side::O, g2);
            // A is X in the first game and O in the second.
            let adjusted = (p1 + p2) as f64 - luck1 + luck2;
            tally.add_pair(p1 + p2, w1 + w2, adjusted);
            progress.inc(2);
        }
        Ok((tally, games))
    };
    // Blocks come back in block order (an indexed parallel iterator), so the games do too.
    let blocks: Vec<(Tally, Vec<RecordedGame>)> = pool.install(|| {
        (0..blocks)
            .into_par_iter()
            .map(run_block)
            .collect::<Result<Vec<_>, _>>()
    })?;
    let mut recorded = Vec::new();
    let mut t = Tally::default();
    for (tally, games) in blocks {
        t = t.merge(tally);
        recorded.extend(games);
    }

    let (ppg_a, ci95) = mean_ci(t.pairs, t.pair_points as f64, t.pair_points_sq as f64);
    let (win_rate_a, win_rate_ci95) = mean_ci(t.pairs, t.pair_wins as f64, t.pair_wins_sq as f64);
    let (luck_adjusted_ppg_a, luck_adjusted_ci95) = if make_judge.is_some() {
        let (mean, ci) = mean_ci(t.pairs, t.pair_adjusted, t.pair_adjusted_sq);
        (Some(mean), ci)
    } else {
        (None, None)
    };
    let games = 2 * t.pairs;
    let result = ArenaResult {
        a: names.0,
        b: names.1,
        variant: variant_name(config.rules),
        stakes: config.stakes,
        seed: config.seed,
        games,
        pairs: t.pairs,
        wins_a: t.wins[0],
        wins_b: t.wins[1],
        gammons_a: t.gammons[0],
        gammons_b: t.gammons[1],
        backgammons_a: t.backgammons[0],
        backgammons_b: t.backgammons[1],
        unfinished: t.unfinished,
        points_a: t.pair_points,
        ppg_a,
        ci95,
        win_rate_a,
        win_rate_ci95,
        plies_avg: t.plies as f64 / games as f64,
        luck_adjusted_ppg_a,
        luck_adjusted_ci95,
    };
    Ok((result, recorded))
}

fn create_error(slot: Slot, e: impl Into<BoxError>) -> ArenaError {
    ArenaError::CreatePlayer {
        slot,
        source: e.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;
    use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
    use tavla_player::RandomPlayer;
    use tavla_search::HeuristicPlayer;

    fn config(games: u64, seed: u64, threads: usize) -> ArenaConfig {
        ArenaConfig {
            games,
            seed,
            rules: Rules::Standard,
            threads,
            stakes: Stakes::Cubeless,
            beavers: false,
            resignations: false,
        }
    }

    fn random(seed: u64) -> Result<RandomPlayer, Infallible> {
        Ok(RandomPlayer::new(seed))
    }

    fn heuristic(_: u64) -> Result<HeuristicPlayer, Infallible> {
        Ok(HeuristicPlayer::new(HeuristicEval::new(
            HeuristicConfig::article(),
        )))
    }

    #[test]
    fn dice_streams_are_seeded_and_openings_never_doubles() {
        let rolls = |seed, stream| {
            let mut d = DiceStream::new(seed, stream);
            (0..50).map(|_| d.roll()).collect::<Vec<_>>()
        };
        assert_eq!(rolls(1, 2), rolls(1, 2));
        assert_ne!(rolls(1, 2), rolls(1, 3));
        assert_ne!(rolls(1, 2), rolls(2, 2));
        let mut counts = [0u32; 36];
        let mut d = DiceStream::new(5, 0);
        for _ in 0..36_000 {
            let r = d.roll();
            counts[usize::from(r.high().value() - 1) * 6 + usize::from(r.low().value() - 1)] += 1;
            assert!(!d.opening_roll().is_double());
        }
        // Each double ~1000 times, each non-double (stored high-low) ~2000.
        for h in 0..6 {
            for l in 0..=h {
                let want = if h == l { 1000.0 } else { 2000.0 };
                let c = f64::from(counts[h * 6 + l]);
                assert!((c - want).abs() < 5.0 * want.sqrt(), "{h}{l}: {c}");
            }
        }
    }

    #[test]
    fn games_end_with_consistent_results() {
        let mut plays = PlayList::new();
        let mut x = RandomPlayer::new(1);
        let mut o = RandomPlayer::new(2);
        let mut gammons = 0;
        for g in 0..200 {
            let mut dice = DiceStream::new(9, g);
            let r = play_game(&mut x, &mut o, &mut dice, Rules::Standard, &mut plays).unwrap();
            assert!((1..=3).contains(&r.points));
            assert!(
                r.plies >= 14,
                "at least 7 rolls each to bear off 15 checkers: {r:?}"
            );
            gammons += u32::from(r.points > 1);
        }
        // Random players gammon each other often.
        assert!(gammons > 20, "{gammons}");
    }

    #[test]
    fn duplicate_games_replay_the_same_rolls() {
        // Identical deterministic players: with the rolls replayed, the two games of a pair are
        // the same game, won by the side that starts or by the other in both.
        let mut plays = PlayList::new();
        for pair in 0..20 {
            let mut a = HeuristicPlayer::new(HeuristicEval::new(HeuristicConfig::article()));
            let mut b = a.clone();
            let g1 = play_game(
                &mut a,
                &mut b,
                &mut DiceStream::new(3, pair),
                Rules::Standard,
                &mut plays,
            )
            .unwrap();
            let g2 = play_game(
                &mut b,
                &mut a,
                &mut DiceStream::new(3, pair),
                Rules::Standard,
                &mut plays,
            )
            .unwrap();
            assert_eq!(g1, g2);
        }
    }

    #[test]
    fn identical_players_break_even_exactly() {
        // With duplicate dice two copies of one deterministic player play each pair's two games
        // identically: every pair scores zero.
        let r = run_arena(
            &config(64, 4, 2),
            heuristic,
            heuristic,
            &ProgressBar::hidden(),
        )
        .unwrap();
        assert_eq!(r.games, 64);
        assert_eq!(r.wins_a, r.wins_b);
        assert_eq!(r.points_a, 0);
        assert_eq!(r.ppg_a, 0.0);
        assert_eq!(r.ci95, Some(0.0));
        assert_eq!(r.win_rate_a, 0.5);
        assert!(r.plies_avg > 30.0 && r.plies_avg < 150.0, "{}", r.plies_avg);
    }

    #[test]
    fn results_do_not_depend_on_threads_and_are_seeded() {
        let hidden = ProgressBar::hidden();
        let one = run_arena(&config(200, 11, 1), heuristic, random, &hidden).unwrap();
        let two = run_arena(&config(200, 11, 2), heuristic, random, &hidden).unwrap();
        assert_eq!(one, two);
        let other = run_arena(&config(200, 12, 2), heuristic, random, &hidden).unwrap();
        assert_ne!(one, other);
        // The heuristic crushes the random player.
        assert!(one.ppg_a > 1.0, "{one:?}");
        assert!(one.ppg_a - one.ci95.unwrap() > 0.0);
        assert_eq!(one.wins_a + one.wins_b, 200);
        assert!(one.gammons_a + one.backgammons_a > one.gammons_b + one.backgammons_b);
        assert_eq!(one.a, "heuristic");
        assert_eq!(one.b, "random");
        // Points add up.
        let won_a = (one.wins_a - one.gammons_a - one.backgammons_a)
            + 2 * one.gammons_a
            + 3 * one.backgammons_a;
        let won_b = (one.wins_b - one.gammons_b - one.backgammons_b)
            + 2 * one.gammons_b
            + 3 * one.backgammons_b;
        assert_eq!(one.points_a, won_a as i64 - won_b as i64);
        assert!((one.ppg_a - one.points_a as f64 / 200.0).abs() < 1e-12);
    }

    /// The heuristic player with a fixed cube policy: doubles whenever it may (or never),
    /// takes always (or never); it records any question asked in the Crawford game or when
    /// it may not double.
    struct Cubing {
        player: HeuristicPlayer,
        doubles: bool,
        takes: bool,
        asked_wrongly: bool,
        /// Beavers every double it takes (when beavers are allowed).
        beavers: bool,
        /// Offers to resign at this level before every roll.
        resigns: Option<Resign>,
        /// Accepts every resignation offered.
        accepts: bool,
    }

    impl Player for Cubing {
        fn name(&self) -> String {
            format!("cubing {} {}", self.doubles, self.takes)
        }
        fn choose_play(&mut self, s: &GameState, r: Roll, plays: &PlayList) -> usize {
            self.player.choose_play(s, r, plays)
        }
        fn wants_to_double(&mut self, state: &GameState) -> bool {
            self.asked_wrongly |= !state.may_double() || state.dice != Dice::NotRolled;
            self.doubles
        }
        fn accepts_double(&mut self, state: &GameState) -> bool {
            self.asked_wrongly |= state.crawford || state.dice != Dice::DoubleOffered;
            self.takes
        }
        fn beavers(&mut self, state: &GameState) -> bool {
            self.asked_wrongly |= !state.beavers;
            self.beavers
        }
        fn resigns(&mut self, state: &GameState, _cube: bool) -> Option<Resign> {
            self.asked_wrongly |= state.dice != Dice::NotRolled;
            self.resigns
        }
        fn accepts_resignation(&mut self, _state: &GameState, _cube: bool, _: Resign) -> bool {
            self.accepts
        }
    }

    fn cubing(doubles: bool, takes: bool) -> Cubing {
        Cubing {
            player: HeuristicPlayer::new(HeuristicEval::new(HeuristicConfig::article())),
            doubles,
            takes,
            asked_wrongly: false,
            beavers: false,
            resigns: None,
            accepts: false,
        }
    }

    #[test]
    fn beavers_and_resignations_when_the_arena_allows_them() {
        let hidden = ProgressBar::hidden();
        let money = |beavers, resignations| ArenaConfig {
            stakes: Stakes::Cube,
            beavers,
            resignations,
            ..config(4, 5, 1)
        };
        // A doubler against a beaverer: the first double is beavered, the cube at 4 owned by
        // the beaverer, recorded as such.
        let beaverer = || Cubing {
            beavers: true,
            ..cubing(false, true)
        };
        let (r, games) = run_arena_recorded(
            &money(true, false),
            |_| Ok::<_, Infallible>(cubing(true, true)),
            |_| Ok::<_, Infallible>(beaverer()),
            None,
            &hidden,
            true,
        )
        .unwrap();
        for g in &games {
            let first = g.doubles[0];
            assert!(first.taken && first.beavered && first.value == 2, "{g:?}");
            // After the beaver the beaverer owns the cube at 4 and never doubles: the doubler
            // cannot double again, and the game is played for 4.
            assert_eq!(g.doubles.len(), 1, "{g:?}");
            assert_eq!(g.result.cube, 4, "{g:?}");
        }
        assert!(r.games == 4);
        // Without beavers allowed, none is asked for.
        let (_, games) = run_arena_recorded(
            &money(false, false),
            |_| Ok::<_, Infallible>(cubing(true, true)),
            |_| Ok::<_, Infallible>(beaverer()),
            None,
            &hidden,
            true,
        )
        .unwrap();
        assert!(games.iter().all(|g| g.doubles.iter().all(|d| !d.beavered)));
        // A side that resigns a gammon at once to one that accepts: every game ends before
        // the resigner's first roll after the opening, for 2 points, recorded.
        let quitter = || Cubing {
            resigns: Some(Resign::Gammon),
            ..cubing(false, true)
        };
        let accepter = || Cubing {
            accepts: true,
            ..cubing(false, true)
        };
        let (r, games) = run_arena_recorded(
            &money(false, true),
            |_| Ok::<_, Infallible>(accepter()),
            |_| Ok::<_, Infallible>(quitter()),
            None,
            &hidden,
            true,
        )
        .unwrap();
        assert_eq!((r.wins_a, r.points_a, r.gammons_a), (4, 8, 4), "{r:?}");
        assert!(games
            .iter()
            .all(|g| g.resigned == Some(Resign::Gammon) && g.rolls.len() <= 2));
        // Rejected, the offer is not made again at that level: the games are played out.
        let (r, games) = run_arena_recorded(
            &money(false, true),
            |_| Ok::<_, Infallible>(cubing(false, true)),
            |_| Ok::<_, Infallible>(quitter()),
            None,
            &hidden,
            true,
        )
        .unwrap();
        assert!(games.iter().all(|g| g.resigned.is_none()), "{r:?}");
        assert!(r.plies_avg > 20.0, "{r:?}");
        // In 3-point matches, the quitter's gammons resigned at once: the accepter wins every
        // match in two games (2 points, then the Crawford game), each game recorded resigned.
        let matches = ArenaConfig {
            stakes: Stakes::Match(3),
            resignations: true,
            ..config(4, 5, 1)
        };
        let (r, games) = run_arena_recorded(
            &matches,
            |_| Ok::<_, Infallible>(accepter()),
            |_| Ok::<_, Infallible>(quitter()),
            None,
            &hidden,
            true,
        )
        .unwrap();
        assert_eq!(r.wins_a, 4, "{r:?}");
        assert_eq!(games.len(), 8, "{games:?}");
        assert!(games.iter().all(|g| g.resigned == Some(Resign::Gammon)));
        // Without resignations in the arena, no offer is asked for in a match either.
        let (_, games) = run_arena_recorded(
            &ArenaConfig {
                resignations: false,
                ..matches
            },
            |_| Ok::<_, Infallible>(accepter()),
            |_| Ok::<_, Infallible>(quitter()),
            None,
            &hidden,
            true,
        )
        .unwrap();
        assert!(games.iter().all(|g| g.resigned.is_none()));
    }

    #[test]
    fn with_the_cube_doubles_are_taken_or_passed() {
        let hidden = ProgressBar::hidden();
        let cube = |games, seed| ArenaConfig {
            stakes: Stakes::Cube,
            beavers: false,
            resignations: false,
            ..config(games, seed, 2)
        };
        // A passer against a doubler: every game ends at the doubler's first turn after the
        // opening, for one point.
        let r = run_arena(
            &cube(20, 5),
            |_| Ok::<_, Infallible>(cubing(true, false)),
            |_| Ok::<_, Infallible>(cubing(false, false)),
            &hidden,
        )
        .unwrap();
        assert_eq!(r.stakes, Stakes::Cube);
        assert_eq!((r.wins_a, r.wins_b, r.points_a), (20, 0, 20));
        assert!(r.plies_avg <= 2.0, "{r:?}");
        // Recorded, every game holds its one passed double, before the doubler's first roll.
        let (_, games) = run_arena_recorded(
            &cube(4, 5),
            |_| Ok::<_, Infallible>(cubing(true, false)),
            |_| Ok::<_, Infallible>(cubing(false, false)),
            None,
            &hidden,
            true,
        )
        .unwrap();
        for g in &games {
            let before = if g.a_is_x { 2 } else { 1 };
            let passed = RecordedDouble {
                before,
                value: 2,
                taken: false,
                beavered: false,
            };
            assert_eq!(g.doubles, [passed], "{g:?}");
            assert_eq!(g.rolls.len(), before);
        }
        // Two players that double whenever they may and always take: the cube grows, and a
        // duplicate pair of identical players still breaks even.
        let always = |_| Ok::<_, Infallible>(cubing(true, true));
        let r = run_arena(&cube(40, 6), always, always, &hidden).unwrap();
        assert_eq!(r.points_a, 0);
        let mut plays = PlayList::new();
        let (mut x, mut o) = (cubing(true, true), cubing(true, true));
        let mut dice = DiceStream::new(6, 0);
        let start = GameState::money(Position::START);
        let (game, _) = play_game_from(
            &mut x,
            &mut o,
            &mut dice,
            Rules::Standard,
            &mut plays,
            &start,
            GameOptions {
                cube: true,
                resignations: false,
            },
            None,
            None,
        )
        .unwrap();
        // A double before every roll but the opening one.
        assert_eq!(game.cube, 1 << (game.plies - 1).min(15), "{game:?}");
        assert!(game.score() >= 2);
        assert!(!x.asked_wrongly && !o.asked_wrongly);
        // Cubeless, the same players are never asked.
        let r = run_arena(&config(20, 6, 2), always, always, &hidden).unwrap();
        assert!(r.plies_avg > 20.0, "{r:?}");
    }

    #[test]
    fn matches_are_played_to_their_length_with_the_crawford_rule() {
        let mut plays = PlayList::new();
        for seed in 0..20 {
            // A doubler that always takes, against a side that passes every double: the
            // match still ends, and nobody is asked in the Crawford game.
            let (mut x, mut o) = (cubing(true, true), cubing(seed % 2 == 0, false));
            let m = play_match(
                &mut x,
                &mut o,
                seed,
                0,
                5,
                Rules::Standard,
                false,
                &mut plays,
                None,
                None,
            )
            .unwrap()
            .0;
            assert!(m.winner.is_some(), "{m:?}");
            assert_eq!((m.points, m.cube), (1, 1));
            assert!(!x.asked_wrongly && !o.asked_wrongly, "seed {seed}");
        }
        let hidden = ProgressBar::hidden();
        let matches = |games, seed, length| ArenaConfig {
            stakes: Stakes::Match(length),
            beavers: false,
            resignations: false,
            ..config(games, seed, 2)
        };
        // Identical players break even pair by pair; the better player wins more matches.
        let r = run_arena(&matches(20, 7, 5), heuristic, heuristic, &hidden).unwrap();
        assert_eq!((r.wins_a, r.wins_b, r.points_a), (10, 10, 0));
        let r = run_arena(&matches(20, 7, 3), heuristic, random, &hidden).unwrap();
        assert!(r.wins_a >= 18, "{r:?}");
        assert_eq!(r.gammons_a + r.backgammons_a, 0);
        // Recorded: each match's games in order, with the score before each; the last game
        // takes its winner to the length.
        let (r, games) = run_arena_recorded(
            &matches(4, 3, 5),
            |_| Ok::<_, Infallible>(cubing(true, true)),
            heuristic,
            None,
            &hidden,
            true,
        )
        .unwrap();
        let starts: Vec<usize> = (0..games.len())
            .filter(|&k| games[k].game_in_match == 0)
            .collect();
        assert_eq!(starts.len(), 4, "{r:?}");
        for (m, &first) in starts.iter().enumerate() {
            let end = starts.get(m + 1).copied().unwrap_or(games.len());
            let played = &games[first..end];
            assert!(played.iter().all(|g| g.a_is_x == (m % 2 == 0)));
            let last = played.last().unwrap();
            let winner = usize::from(last.result.winner == Some(Side::O));
            assert!(last.score[winner] + last.result.score() >= 5, "{last:?}");
            assert!(played.iter().any(|g| !g.doubles.is_empty()));
        }
        let e = run_arena(&matches(2, 1, 0), heuristic, random, &hidden).unwrap_err();
        assert!(e.to_string().contains("1 point or more"), "{e}");
    }

    #[test]
    fn endless_hitting_games_are_stopped_unfinished() {
        // Two pure pip-count players hit each other for ever (see MAX_PLIES).
        let zero = |_: u64| {
            Ok::<_, Infallible>(HeuristicPlayer::new(HeuristicEval::new(
                HeuristicConfig::untrained(),
            )))
        };
        let r = run_arena(&config(8, 123, 2), zero, zero, &ProgressBar::hidden()).unwrap();
        assert!(r.unfinished > 0, "{r:?}");
        assert_eq!(r.wins_a + r.wins_b + r.unfinished, 8);
        // Identical players: the duplicate games mirror each other, unfinished ones included.
        assert_eq!(r.points_a, 0);
        assert!(r.plies_avg > 1000.0);
    }

    #[test]
    fn confidence_interval_matches_the_textbook_formula() {
        // Pairs with v = 2, 0, -2, 4 (sum of A's points in the pair): y = 1, 0, -1, 2.
        let v = [2.0f64, 0.0, -2.0, 4.0];
        let (mean, ci) = mean_ci(4, v.iter().sum(), v.iter().map(|x| x * x).sum());
        assert_eq!(mean, 0.5);
        let y = [1.0f64, 0.0, -1.0, 2.0];
        let var = y.iter().map(|x| (x - 0.5) * (x - 0.5)).sum::<f64>() / 3.0;
        assert!((ci.unwrap() - 1.96 * (var / 4.0).sqrt()).abs() < 1e-12);
        assert_eq!(mean_ci(1, 2.0, 4.0), (1.0, None));
    }

    #[test]
    fn bad_input_and_bad_players_are_errors() {
        let hidden = ProgressBar::hidden();
        for games in [0, 1, 7] {
            let e = run_arena(&config(games, 1, 1), heuristic, random, &hidden).unwrap_err();
            assert!(matches!(e, ArenaError::Games { .. }), "{e}");
        }
        let failing = |_: u64| -> Result<RandomPlayer, BoxError> { Err("no engine here".into()) };
        let ok = |s: u64| -> Result<RandomPlayer, BoxError> { Ok(RandomPlayer::new(s)) };
        let e = run_arena(&config(2, 1, 1), ok, failing, &hidden).unwrap_err();
        assert!(matches!(e, ArenaError::CreatePlayer { slot: Slot::B, .. }));
        assert_eq!(e.source().unwrap().to_string(), "no engine here");

        struct Cheat;
        impl Player for Cheat {
            fn name(&self) -> String {
                "cheat".into()
            }
            fn choose_play(&mut self, _: &GameState, _: Roll, plays: &PlayList) -> usize {
                plays.len()
            }
        }
        let e = run_arena(
            &config(2, 1, 1),
            |_| Ok::<_, Infallible>(Cheat),
            random,
            &hidden,
        )
        .unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("player cheat chose play"), "{msg}");

        struct Failing(RandomPlayer, bool);
        impl Player for Failing {
            fn name(&self) -> String {
                "failing".into()
            }
            fn choose_play(&mut self, s: &GameState, r: Roll, plays: &PlayList) -> usize {
                self.1 = true;
                self.0.choose_play(s, r, plays)
            }
            fn take_failure(&mut self) -> Option<BoxError> {
                std::mem::take(&mut self.1).then(|| "engine died".into())
            }
        }
        let e = run_arena(
            &config(2, 1, 1),
            |s| Ok::<_, Infallible>(Failing(RandomPlayer::new(s), false)),
            |s| Ok::<_, Infallible>(Failing(RandomPlayer::new(s), false)),
            &hidden,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "player failing failed during a game");
        assert_eq!(e.source().unwrap().to_string(), "engine died");
    }

    #[test]
    fn doubles_twice_makes_games_longer() {
        let hidden = ProgressBar::hidden();
        let std = run_arena(&config(100, 5, 2), heuristic, random, &hidden).unwrap();
        let twice = run_arena(
            &ArenaConfig {
                rules: Rules::DoublesTwice,
                ..config(100, 5, 2)
            },
            heuristic,
            random,
            &hidden,
        )
        .unwrap();
        assert_eq!(twice.variant, "no-quad-doubles");
        // Doubles move fewer pips, so games take more plies.
        assert!(
            twice.plies_avg > std.plies_avg,
            "{} {}",
            twice.plies_avg,
            std.plies_avg
        );
    }

    /// Values each roll by the pips it lets the side on roll move (a crude but real judge).
    struct PipJudge;
    impl LuckJudge for PipJudge {
        fn roll_values(&mut self, position: &Position, rules: Rules, out: &mut [f64; 21]) {
            let mut plays = PlayList::new();
            let before = position.pips().0;
            for (&(roll, _), v) in Roll::ALL_21.iter().zip(out.iter_mut()) {
                position.legal_plays_with(roll, rules, &mut plays);
                let best = plays.positions().iter().map(|p| p.pips().0).min().unwrap();
                *v = f64::from(before - best) / 50.0;
            }
        }
    }

    #[test]
    fn luck_has_mean_zero_over_the_rolls() {
        let mut judge = PipJudge;
        let mut values = [0.0; 21];
        for (pos, opening) in [(Position::START, true), (Position::START, false)] {
            let mut mean = 0.0;
            for &(roll, w) in &Roll::ALL_21 {
                if opening && roll.is_double() {
                    continue;
                }
                let l = roll_luck(
                    &mut judge,
                    &pos,
                    roll,
                    Rules::Standard,
                    opening,
                    &mut values,
                );
                mean += f64::from(w) * l;
            }
            assert!(mean.abs() < 1e-12, "{mean}");
        }
        // 66 moves 24 pips, 21 three: lucky and unlucky.
        let six = roll_luck(
            &mut judge,
            &Position::START,
            Roll::from_values(6, 6),
            Rules::Standard,
            false,
            &mut values,
        );
        let small = roll_luck(
            &mut judge,
            &Position::START,
            Roll::from_values(2, 1),
            Rules::Standard,
            false,
            &mut values,
        );
        assert!(six > 0.2 && small < -0.1, "{six} {small}");
    }

    #[test]
    fn luck_adjusted_results_cancel_for_identical_players_and_are_seeded() {
        let judge = || -> Box<dyn LuckJudge> { Box::new(PipJudge) };
        let hidden = ProgressBar::hidden();
        let same = run_arena_judged(
            &config(64, 4, 2),
            heuristic,
            heuristic,
            Some(&judge),
            &hidden,
        )
        .unwrap();
        assert_eq!(same.luck_adjusted_ppg_a, Some(0.0));
        assert_eq!(same.luck_adjusted_ci95, Some(0.0));
        // Without a judge the fields are absent; with one the raw figures do not change.
        let plain = run_arena(&config(400, 8, 2), heuristic, random, &hidden).unwrap();
        let judged =
            run_arena_judged(&config(400, 8, 2), heuristic, random, Some(&judge), &hidden).unwrap();
        assert_eq!(plain.luck_adjusted_ppg_a, None);
        assert_eq!(plain.ppg_a, judged.ppg_a);
        assert_eq!(plain.ci95, judged.ci95);
        // The adjusted result estimates the same thing: it stays inside the raw interval. (How
        // much narrower its own interval is depends on the judge: the neural one's, in
        // tavla-cli's tests.)
        let raw = judged.ci95.unwrap();
        assert!((judged.luck_adjusted_ppg_a.unwrap() - judged.ppg_a).abs() < raw);
        // The same whatever the threads.
        let one =
            run_arena_judged(&config(400, 8, 1), heuristic, random, Some(&judge), &hidden).unwrap();
        assert_eq!(one, judged);
    }

    /// [`PipJudge`] in match play too (pips, not match winning chances: the arithmetic only).
    struct MatchPipJudge;
    impl LuckJudge for MatchPipJudge {
        fn roll_values(&mut self, position: &Position, rules: Rules, out: &mut [f64; 21]) {
            PipJudge.roll_values(position, rules, out);
        }
        fn values_matches(&self) -> bool {
            true
        }
        fn match_roll_values(&mut self, state: &GameState, rules: Rules, out: &mut [f64; 21]) {
            assert!(state.match_length > 0, "asked in match play only");
            PipJudge.roll_values(&state.position, rules, out);
        }
    }

    #[test]
    fn matches_are_luck_adjusted_by_a_judge_of_match_play() {
        let hidden = ProgressBar::hidden();
        let matches = |games, seed| ArenaConfig {
            stakes: Stakes::Match(3),
            beavers: false,
            resignations: false,
            ..config(games, seed, 2)
        };
        let money_only = || -> Box<dyn LuckJudge> { Box::new(PipJudge) };
        let e = run_arena_judged(
            &matches(4, 1),
            heuristic,
            random,
            Some(&money_only),
            &hidden,
        )
        .unwrap_err();
        assert!(e.to_string().contains("does not value match play"), "{e}");
        let judge = || -> Box<dyn LuckJudge> { Box::new(MatchPipJudge) };
        let same =
            run_arena_judged(&matches(20, 3), heuristic, heuristic, Some(&judge), &hidden).unwrap();
        assert_eq!(same.luck_adjusted_ppg_a, Some(0.0));
        let plain = run_arena(&matches(40, 3), heuristic, random, &hidden).unwrap();
        let judged =
            run_arena_judged(&matches(40, 3), heuristic, random, Some(&judge), &hidden).unwrap();
        assert_eq!((plain.ppg_a, plain.wins_a), (judged.ppg_a, judged.wins_a));
        let adjusted = judged.luck_adjusted_ppg_a.unwrap();
        assert_ne!(adjusted, judged.ppg_a, "the luck counts");
        assert!((adjusted - judged.ppg_a).abs() < 1.0, "{judged:?}");
    }

    #[test]
    fn json_has_the_documented_keys() {
        let r = run_arena(&config(4, 1, 1), heuristic, random, &ProgressBar::hidden()).unwrap();
        let v = serde_json::to_value(&r).unwrap();
        for key in [
            "games",
            "ppg_a",
            "ci95",
            "wins_a",
            "wins_b",
            "gammons_a",
            "gammons_b",
            "backgammons_a",
            "backgammons_b",
            "plies_avg",
            "stakes",
        ] {
            assert!(v.get(key).is_some(), "{key} missing in {v}");
        }
    }
}
