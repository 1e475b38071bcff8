//! `tavla analyse`: recorded games (`.mat` or gnubg's SGF) judged decision by decision by the
//! neural engine: each checker play and cube action with what it cost, the errors listed, and
//! each player's error rates, error counts and luck.
//!
//! Checker plays are valued as the players rank them (`tavla_nn::review`): cubeless equity in a
//! cubeless session, cubeful equity in money games with the cube, match equity in matches. A
//! play is reviewed at `--ply` (the search's filters pick the candidates; the play made is
//! always valued at the full depth); the doubler's decision before each roll where it may
//! double, and each answer to a double, by the cubeful search at `--cube-ply`. Losses are in
//! normalised equity (EMG: per unit of the cube; in matches the normalised match equity), and
//! in matches also in match winning chances. The luck of each roll is `tavla luck`'s (0-ply).
//!
//! A game that ended by resignation (a result neither borne off nor passed) is judged where it
//! stopped, at `--cube-ply` with the cube where it was: the resigner loses what it gave away
//! beyond the value of playing on, the side that accepted what it took short of it
//! ([`Search::review_resignation`]). Resignations are listed and counted apart from the error
//! rates, which are per move and cube decision.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use tavla_core::{CubeResponse, Dice, GameState, PlayList, Position, Roll, Rules};
use tavla_match::arena::{match_roll_luck, roll_luck};
use tavla_nn::cube::CubeHolder;
use tavla_nn::met::MatchScore;
use tavla_nn::review::{review_answer, review_double, CubeReview, PlayReview, Skill};
use tavla_nn::search::Search;
use tavla_nn::Weights;
use tavla_notation::mat::{DoubleTurn, MatchRecord, Replay, Resignation, RolledTurn};
use tavla_notation::{format_pretty, Xgid};

use crate::input::{threads, InputError};
use crate::luck_cmd::NeuralLuck;
use crate::nn_cmd::PruneArgs;
use crate::players::shared_bearoff;
use crate::records::{read_records, GameContext};

/// `tavla analyse`.
#[derive(Args)]
pub struct AnalyseArgs {
    /// Match records in Jellyfish `.mat` form or gnubg's SGF, told apart by content; their
    /// games are taken together (players by column: left and right).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The depth at which checker plays are judged, 0 to 3.
    #[arg(long, default_value_t = 2)]
    ply: u8,
    /// The depth of the cubeful search that judges cube decisions (default: --ply).
    #[arg(long, value_name = "PLY")]
    cube_ply: Option<u8>,
    /// Money games are played with the cube even where a record has no cube action (by
    /// default a money session is taken as cubeless when none of its games has one).
    #[arg(long, conflicts_with = "no_cube")]
    cube: bool,
    /// Judge money games cubeless and leave the cube decisions out.
    #[arg(long)]
    no_cube: bool,
    /// Money play under the Jacoby rule (gammons count once the cube is turned; also assumed
    /// for a record that says so: SGF's `RU[Jacoby]`, `.mat`'s `; [Jacoby "On"]`).
    #[arg(long)]
    jacoby: bool,
    /// Money play with beavers (also assumed for a record that has one, or says so with
    /// `.mat`'s `; [Beaver "On"]`).
    #[arg(long)]
    beavers: bool,
    /// List every decision, not only the doubtful and worse.
    #[arg(long, conflicts_with = "summary")]
    all: bool,
    /// Print only the summary of each player.
    #[arg(long)]
    summary: bool,
    /// List only this player's decisions: `left`, `right`, or a name from the record (the
    /// summary still gives both).
    #[arg(long, value_name = "PLAYER")]
    player: Option<String>,
    /// Check each listed checker-play error by rollouts: the play made and the best play
    /// rolled out, GAMES games each on the same dice (0-ply players, luck-adjusted, seed
    /// --rollout-seed; with the cube where the game had it, cubeless in a cubeless session),
    /// and the rollouts' difference printed beside the search's.
    #[arg(long, value_name = "GAMES", conflicts_with = "summary",
          value_parser = clap::value_parser!(u32).range(i64::from(tavla_player::MIN_ROLLOUT_GAMES)..))]
    rollout: Option<u32>,
    /// The dice seed of --rollout.
    #[arg(long, value_name = "S", default_value_t = 1, requires = "rollout")]
    rollout_seed: u64,
    /// Networks from FILE instead of the embedded ones.
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    #[command(flatten)]
    prune: PruneArgs,
    /// Worker threads; 0 for one per core.
    #[arg(long, default_value_t = 0, value_parser = crate::input::threads_arg, value_name = "T")]
    threads: usize,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
}

/// One judged decision.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    /// The record's file (index into the files given).
    pub file: usize,
    /// The game's number in its record.
    pub game: u32,
    /// The game's roll the decision belongs to (from 1): the move's, or the roll a cube
    /// decision came before.
    pub turn: usize,
    /// The line of the move or cube action in the record (0 for a game not read from a file).
    pub line: usize,
    /// Who decided: 0 left, 1 right.
    pub player: usize,
    /// `move`, `double`, `no double`, `take`, `pass`, `beaver`, `resign` or `accept`.
    pub kind: &'static str,
    /// The roll of a move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roll: Option<String>,
    /// What was done: the play, or the cube action.
    pub made: String,
    /// The best: the best play, or the right cube action.
    pub best: String,
    /// The loss in normalised equity (EMG).
    pub loss: f32,
    /// In money play, the loss in points at the cube's value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_points: Option<f32>,
    /// In match play, the loss in match winning chances.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_mwc: Option<f32>,
    /// How bad the loss is.
    pub skill: Skill,
    /// The position before the decision (the mover's or the doubler's, dice rolled for a move),
    /// as an XGID for `tavla hint` or `tavla eval`.
    pub xgid: String,
    /// For a move: legal plays, and the play's rank among the plays searched deepest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plays: Option<usize>,
    /// Its rank (1 the best), `None` when the search's filters dropped it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
    /// Whether the decision counts for the error rates (unforced moves; cube decisions that
    /// are close, made or wrong).
    pub counted: bool,
    /// For a move: the luck of its roll (normalised equity, or in matches match winning
    /// chances), 0-ply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub luck: Option<f64>,
    /// With `--rollout`: the error checked by rollouts of the play made and the best play.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollout: Option<RolloutCheck>,
    /// For a move: the positions the play made and the best play leave (the mover's view).
    #[serde(skip)]
    pub afters: Option<[Position; 2]>,
    /// For a move in a game played with the cube: the game as the mover saw it (cube, owner,
    /// score), for rollouts with the cube.
    #[serde(skip)]
    pub with_cube: Option<GameState>,
}

/// A checker-play error checked by rollouts (`tavla analyse --rollout`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RolloutCheck {
    /// Games rolled out for each of the two plays, on the same dice.
    pub games: u32,
    /// The best play's rolled-out result minus the play made's, in the units of the decision's
    /// `loss` (positive when the rollouts agree that the play made is worse): cubeless equity,
    /// or with the cube, equity per unit of the cube in money play and normalised match equity
    /// in a match.
    pub loss: f64,
    /// The 95% half-width of that difference, paired game by game.
    pub ci95: f64,
    /// Whether the games were played with the cube (the game's own: money or the match score).
    pub cubeful: bool,
    /// In a match, the loss in match winning chances.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_mwc: Option<f64>,
}

/// One player's figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PlayerStats {
    /// Its name, from the first file.
    pub name: String,
    /// Moves with two plays or more.
    pub unforced_moves: u32,
    /// Moves with one play or none.
    pub forced_moves: u32,
    /// The checker plays' loss, summed (EMG).
    pub checker_error: f64,
    /// The same in match winning chances (matches).
    pub checker_error_mwc: f64,
    /// Checker plays doubtful, bad and very bad.
    pub checker_doubtful: u32,
    /// See `checker_doubtful`.
    pub checker_bad: u32,
    /// See `checker_doubtful`.
    pub checker_very_bad: u32,
    /// Cube decisions counted (close, made or wrong).
    pub cube_decisions: u32,
    /// Doubles made.
    pub doubles: u32,
    /// Doubles taken.
    pub takes: u32,
    /// Doubles passed.
    pub passes: u32,
    /// Doubles beavered.
    pub beavers: u32,
    /// Doubles that should have been made and were not.
    pub missed_doubles: u32,
    /// Doubles that should not have been made (too soon or too good).
    pub wrong_doubles: u32,
    /// Takes (and beavers) that should have been passes (or takes).
    pub wrong_takes: u32,
    /// Passes that should have been takes.
    pub wrong_passes: u32,
    /// The cube decisions' loss, summed (EMG).
    pub cube_error: f64,
    /// The same in match winning chances (matches).
    pub cube_error_mwc: f64,
    /// Cube decisions doubtful or worse.
    pub cube_errors: u32,
    /// Games it resigned.
    pub resignations: u32,
    /// Resignations that gave away too much (doubtful or worse), and resignations it accepted
    /// that gave it too little.
    pub wrong_resignations: u32,
    /// See `wrong_resignations`.
    pub wrong_accepts: u32,
    /// The resignations' loss, its own and those it accepted, summed (EMG); not in the rates.
    pub resignation_error: f64,
    /// The same in match winning chances (matches).
    pub resignation_error_mwc: f64,
    /// Chequer error per unforced move, in thousandths (mEMG).
    pub checker_rate: f64,
    /// Cube error per counted cube decision (mEMG).
    pub cube_rate: f64,
    /// All errors per unforced move and counted cube decision (mEMG).
    pub error_rate: f64,
    /// The usual words for `error_rate`.
    pub rating: &'static str,
    /// Rolls thrown.
    pub rolls: u32,
    /// The luck of its rolls, summed (normalised equity in money play, match winning chances
    /// in matches).
    pub luck: f64,
    /// Luck per roll, in thousandths.
    pub luck_rate: f64,
    /// Money play: the points the player won (negative: lost) over the finished games.
    pub points: f64,
    /// Money play: the luck of its rolls in points (each roll's luck times the cube then).
    pub luck_points: f64,
    /// Money play: the points won with the luck taken out, its own and the opponent's
    /// (`tavla luck`'s luck-adjusted result).
    pub luck_adjusted_points: f64,
    /// Rolls worth 0.3 or more above the mean (lucky) and 0.6 or more (very lucky).
    pub lucky: u32,
    /// See `lucky`.
    pub very_lucky: u32,
    /// Rolls worth 0.3 or more below the mean, and 0.6 or more.
    pub unlucky: u32,
    /// See `unlucky`.
    pub very_unlucky: u32,
}

/// The report of `tavla analyse` (its `--json` object).
#[derive(Debug, Clone, Serialize)]
pub struct AnalysisReport {
    /// The files read.
    pub files: Vec<String>,
    /// Games analysed.
    pub games: usize,
    /// The checker play depth.
    pub ply: u8,
    /// The cube decision depth.
    pub cube_ply: u8,
    /// `cubeless money`, `money with the cube`, `match`, or `mixed` (money games of both
    /// kinds; matches and money play are not analysed together).
    pub kind: &'static str,
    /// Money games were judged under the Jacoby rule (all or some of them).
    pub jacoby: bool,
    /// Money games were judged with beavers allowed (all or some of them).
    pub beavers: bool,
    /// Left and right.
    pub players: [PlayerStats; 2],
    /// Each game's figures, in the order of the files and their games.
    pub per_game: Vec<GameFigures>,
    /// The decisions listed: the doubtful and worse, or all with `--all`.
    pub decisions: Vec<Decision>,
}

/// One game's figures for each player (left, right).
#[derive(Debug, Clone, Serialize)]
pub struct GameFigures {
    /// The record's file (index into the files given).
    pub file: usize,
    /// The game's number in its record.
    pub game: u32,
    /// Moves with a choice.
    pub unforced_moves: [u32; 2],
    /// Their loss, summed (EMG).
    pub checker_error: [f64; 2],
    /// Cube decisions counted.
    pub cube_decisions: [u32; 2],
    /// Their loss, summed (EMG).
    pub cube_error: [f64; 2],
    /// The luck of the rolls, summed.
    pub luck: [f64; 2],
}

/// A roll luck this far from the mean is lucky or unlucky; twice as far, very.
const LUCKY: f64 = 0.3;

/// The usual rating words for an overall error rate in mEMG per decision.
pub(crate) fn rating(rate: f64) -> &'static str {
    match rate {
        r if r < 2.0 => "supernatural",
        r if r < 5.0 => "world class",
        r if r < 8.0 => "expert",
        r if r < 12.0 => "advanced",
        r if r < 18.0 => "intermediate",
        r if r < 26.0 => "casual player",
        r if r < 35.0 => "beginner",
        _ => "awful",
    }
}

/// What each game needs besides its replay.
#[derive(Debug, Clone, Copy)]
struct Context {
    /// The record's file (its index).
    file: usize,
    /// The game's number in the record.
    number: u32,
    /// Where it stands in its match, and the money rules.
    game: GameContext,
    /// Played with the cube (always in a match).
    cube: bool,
}

/// The settings of one run.
struct Settings {
    ply: u8,
    cube_ply: u8,
    all: bool,
}

/// Runs `tavla analyse`.
pub fn analyse(args: &AnalyseArgs, out: &mut impl Write) -> Result<()> {
    let cube_ply = args.cube_ply.unwrap_or(args.ply);
    for (name, p) in [("--ply", args.ply), ("--cube-ply", cube_ply)] {
        crate::nn_cmd::check_depth(name, p)?;
    }
    let records = read_records(&args.files)?;
    let only = match args.player.as_deref() {
        None => None,
        Some(p) if p.eq_ignore_ascii_case("left") => Some(0),
        Some(p) if p.eq_ignore_ascii_case("right") => Some(1),
        Some(p) => Some(
            records[0]
                .0
                .players
                .iter()
                .position(|n| n == p)
                .ok_or_else(|| {
                    InputError(format!(
                        "--player {p}: not left, right, {} or {}",
                        records[0].0.players[0], records[0].0.players[1]
                    ))
                })?,
        ),
    };
    let names: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
    let mut report = analyse_records(args, &records, names, !args.json)?;
    if let Some(p) = only {
        report.decisions.retain(|d| d.player == p);
    }
    if let Some(games) = args.rollout {
        check_by_rollouts(args, games, &mut report.decisions, !args.json)?;
    }
    if args.json {
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write_report(out, &report, args.summary)?;
    }
    Ok(())
}

impl AnalyseArgs {
    /// The defaults of `tavla analyse` (2-ply, the embedded networks, the cube as the records
    /// have it) for records that are not files: `tavla play --analyse`.
    #[must_use]
    pub fn defaults() -> AnalyseArgs {
        AnalyseArgs {
            files: Vec::new(),
            ply: 2,
            cube_ply: None,
            cube: false,
            no_cube: false,
            jacoby: false,
            beavers: false,
            all: false,
            summary: false,
            player: None,
            rollout: None,
            rollout_seed: 1,
            weights: None,
            prune: PruneArgs::default(),
            threads: 0,
            json: false,
        }
    }

    /// The same at `ply` (checker play and cube decisions).
    #[must_use]
    pub fn with_ply(mut self, ply: u8) -> AnalyseArgs {
        self.ply = ply;
        self
    }

    /// The same, with a money session played with the cube (`--cube`) when `cube`.
    #[must_use]
    pub fn with_cube(mut self, cube: bool) -> AnalyseArgs {
        self.cube = cube;
        self
    }

    /// The same, with money games played under the Jacoby rule (`--jacoby`) when `jacoby`.
    #[must_use]
    pub fn with_jacoby(mut self, jacoby: bool) -> AnalyseArgs {
        self.jacoby = jacoby;
        self
    }
}

/// The analysis of `records` (played through) by `args`'s settings; `files` names them in the
/// report. A progress bar on stderr when `progress`.
///
/// # Errors
/// Weights or pruning networks that cannot be loaded. (A bearoff database that can be neither
/// read nor built is said on stderr, and its races are valued by the networks.)
pub fn analyse_records(
    args: &AnalyseArgs,
    records: &[(MatchRecord, Vec<Replay>)],
    files: Vec<String>,
    progress: bool,
) -> Result<AnalysisReport> {
    let cube_ply = args.cube_ply.unwrap_or(args.ply);
    let search = judging_search(args)?;
    let judge = NeuralLuck::new(args.weights.as_deref())?;
    check_together(args, records, &files)?;
    let mut games: Vec<(&Replay, Context)> = Vec::new();
    let mut kinds = Vec::new();
    let (mut any_jacoby, mut any_beavers) = (false, false);
    for (file, (record, replays)) in records.iter().enumerate() {
        // Money games under the Jacoby rule (`--jacoby`, or the record's `RU[Jacoby]` or
        // `; [Jacoby "On"]`) are played with the cube.
        let jacoby = (args.jacoby || record.jacoby) && record.length == 0;
        let cube = !args.no_cube
            && (record.length > 0
                || args.cube
                || jacoby
                || record.beavers
                || replays.iter().any(|r| r.cube));
        let beavers = args.beavers || record.beavers || record_has_beaver(replays);
        any_jacoby |= jacoby && cube;
        any_beavers |= beavers && cube && record.length == 0;
        kinds.push(match (record.length, cube) {
            (0, false) => "cubeless money",
            (0, true) => "money with the cube",
            _ => "match",
        });
        for ((g, replay), mut context) in record
            .games
            .iter()
            .zip(replays)
            .zip(GameContext::of_games(record))
        {
            context.jacoby = jacoby;
            context.beavers = beavers && record.length == 0;
            games.push((
                replay,
                Context {
                    file,
                    number: g.number,
                    game: context,
                    cube,
                },
            ));
        }
    }
    let settings = Settings {
        ply: args.ply,
        cube_ply,
        all: args.all,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads(args.threads))
        .build()?;
    let decisions_total: u64 = games.iter().map(|(r, _)| r.rolls.len() as u64).sum();
    let bar = if progress {
        crate::players::load_shared_bearoff_before_progress();
        ProgressBar::new(decisions_total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {pos}/{len} moves (eta {eta})",
        )
        .expect("valid template"),
    );
    let done = AtomicU64::new(0);
    let analysed: Vec<GameAnalysis> = pool.install(|| {
        games
            .par_iter()
            .map_init(
                || (search.clone(), judge.clone()),
                |(search, judge), (replay, context)| {
                    let a = analyse_game(search, judge, replay, *context, &settings);
                    let n = done.fetch_add(replay.rolls.len() as u64, Ordering::Relaxed);
                    bar.set_position(n + replay.rolls.len() as u64);
                    a
                },
            )
            .collect()
    });
    bar.finish_and_clear();
    let mut players: [PlayerStats; 2] = Default::default();
    for (p, name) in players.iter_mut().zip(&records[0].0.players) {
        p.name.clone_from(name);
    }
    let mut decisions = Vec::new();
    let mut per_game = Vec::with_capacity(analysed.len());
    for (a, (_, c)) in analysed.into_iter().zip(&games) {
        for (total, game) in players.iter_mut().zip(&a.stats) {
            total.add(game);
        }
        let both = |f: &dyn Fn(&PlayerStats) -> f64| [f(&a.stats[0]), f(&a.stats[1])];
        per_game.push(GameFigures {
            file: c.file,
            game: c.number,
            unforced_moves: [a.stats[0].unforced_moves, a.stats[1].unforced_moves],
            checker_error: both(&|p| p.checker_error),
            cube_decisions: [a.stats[0].cube_decisions, a.stats[1].cube_decisions],
            cube_error: both(&|p| p.cube_error),
            luck: both(&|p| p.luck),
        });
        decisions.extend(a.decisions);
    }
    for p in &mut players {
        p.finish();
    }
    let luck = [players[0].luck_points, players[1].luck_points];
    for (i, p) in players.iter_mut().enumerate() {
        p.luck_adjusted_points = p.points - luck[i] + luck[1 - i];
    }
    kinds.dedup();
    Ok(AnalysisReport {
        files,
        games: games.len(),
        ply: args.ply,
        cube_ply,
        kind: if kinds.len() == 1 { kinds[0] } else { "mixed" },
        jacoby: any_jacoby,
        beavers: any_beavers,
        players,
        per_game,
        decisions,
    })
}

/// Refuses records that cannot be analysed together, or options that do not apply to them:
/// matches beside money play (their luck and errors are in different units), records of
/// other players than the first one's (the figures are kept by column), and the money
/// options (`--no-cube`, `--jacoby`, `--beavers`) for a match.
fn check_together(
    args: &AnalyseArgs,
    records: &[(MatchRecord, Vec<Replay>)],
    files: &[String],
) -> Result<()> {
    let name = |i: usize| {
        files
            .get(i)
            .map_or_else(|| format!("record {}", i + 1), Clone::clone)
    };
    crate::records::check_together(records, name)?;
    for (i, (record, _)) in records.iter().enumerate() {
        let what = |r: &MatchRecord| format!("a {}-point match", r.length);
        if record.length > 0 {
            for (on, option) in [
                (args.no_cube, "--no-cube"),
                (args.jacoby, "--jacoby"),
                (args.beavers, "--beavers"),
            ] {
                if on {
                    return Err(InputError(format!(
                        "{option}: {} is {}, and the option is for money play (a match is \
                         played with the cube, without the Jacoby rule or beavers)",
                        name(i),
                        what(record)
                    ))
                    .into());
                }
            }
        }
    }
    Ok(())
}

/// The search of `args`'s networks, bearoff databases and pruning.
fn judging_search(args: &AnalyseArgs) -> Result<Search> {
    let weights = match &args.weights {
        Some(f) => Arc::new(Weights::load(f).map_err(|e| InputError(format!("--weights: {e}")))?),
        None => Weights::shared_default(),
    };
    let mut search = Search::new(weights).with_bearoff(shared_bearoff());
    if let Some(prune) = args.prune.load()? {
        search = search.with_prune(prune);
    }
    Ok(search)
}

/// `--rollout`: each listed checker-play error (the play made is not the best) checked by
/// rolling out both plays on the same dice with `args`'s networks. A progress bar on stderr
/// when `progress`.
///
/// # Errors
/// Weights or pruning networks that cannot be loaded.
pub fn check_by_rollouts(
    args: &AnalyseArgs,
    games: u32,
    decisions: &mut [Decision],
    progress: bool,
) -> Result<()> {
    use tavla_nn::rollout::{cubeful_play_rollouts, rollout_plays, RolloutConfig};
    let search = judging_search(args)?;
    let config = RolloutConfig {
        games,
        seed: args.rollout_seed,
        threads: threads(args.threads),
        luck_adjust: true,
        truncate: 0,
        balance_parity: false,
        ply: 0,
        deadline: None,
        jacoby: false,
    };
    let mut checked: Vec<&mut Decision> = decisions
        .iter_mut()
        .filter(|d| d.afters.is_some_and(|[made, best]| made != best))
        .collect();
    let done = AtomicU64::new(0);
    let len = 2 * u64::from(games) * checked.len() as u64;
    crate::nn_cmd::with_progress(!progress, len, "rollout games", &done, || {
        for d in &mut checked {
            let afters = d.afters.expect("filtered");
            // With the cube where the game had it; a match score beyond tavla's table is
            // rolled out cubeless.
            let cube = d.with_cube.and_then(|state| {
                let score = MatchScore::of(&state, state.turn);
                (state.match_length == 0 || score.is_some()).then_some((state, score))
            });
            d.rollout = Some(match cube {
                None => {
                    let r = rollout_plays(&search, &afters, config, &done);
                    // One of the two is the best by rollout, its difference 0.
                    RolloutCheck {
                        games,
                        loss: r[1].result.equity - r[0].result.equity,
                        ci95: tavla_nn::rollout::ci95_factor(games)
                            * r[0].difference_stderr.max(r[1].difference_stderr),
                        cubeful: false,
                        loss_mwc: None,
                    }
                }
                Some((state, score)) => {
                    let cube = state.cube.value();
                    let r = cubeful_play_rollouts(
                        &search,
                        &afters,
                        CubeHolder::of(&state),
                        cube,
                        score,
                        config,
                        &done,
                    );
                    let loss = r[1].equity - r[0].equity;
                    let ci95 = tavla_nn::rollout::ci95_factor(games)
                        * r[0].difference_stderr.max(r[1].difference_stderr);
                    // In a match, normalised as the search's loss is: a game's worth at the
                    // cube's value is 2.
                    let scale = score.map_or(1.0, |s| {
                        2.0 / f64::from(s.after(cube, 0) - s.after(0, cube))
                    });
                    RolloutCheck {
                        games,
                        loss: loss * scale,
                        ci95: ci95 * scale,
                        cubeful: true,
                        loss_mwc: score.map(|_| loss),
                    }
                }
            });
        }
    });
    Ok(())
}

fn record_has_beaver(replays: &[Replay]) -> bool {
    replays.iter().any(|r| {
        r.doubles
            .iter()
            .any(|d| d.answer == Some(CubeResponse::Beaver))
    })
}

/// One game's figures and listed decisions.
struct GameAnalysis {
    stats: [PlayerStats; 2],
    decisions: Vec<Decision>,
}

fn analyse_game(
    search: &mut Search,
    judge: &mut NeuralLuck,
    replay: &Replay,
    c: Context,
    s: &Settings,
) -> GameAnalysis {
    use tavla_match::arena::LuckJudge;
    search.reset();
    judge.new_game();
    let mut a = GameAnalysis {
        stats: Default::default(),
        decisions: Vec::new(),
    };
    let mut values = [0.0f64; 21];
    let mut doubles = replay.doubles.iter().peekable();
    // A double not followed by its doubler's roll: out of turn, or passed at the end.
    let alone = |d: &DoubleTurn| CubeTurn {
        doubler: d.doubler,
        position: d.position,
        value: d.cube,
        owner: d.cube_owner,
        double: Some(*d),
        turn: d.before_roll + 1,
        line: d.line,
    };
    for (i, r) in replay.rolls.iter().enumerate() {
        // The doubles made before this roll: the roller's (normally one), and any other.
        let mut doubled = None;
        while let Some(d) = doubles.next_if(|d| d.before_roll == i) {
            if d.doubler == r.player && doubled.is_none() {
                doubled = Some(*d);
            } else {
                cube_decision(search, &c, s, &alone(d), &mut a);
            }
        }
        // No one may double before the opening roll.
        if c.cube && !r.opening {
            let (value, owner) = doubled.map_or((r.cube, r.cube_owner), |d| (d.cube, d.cube_owner));
            let turn = CubeTurn {
                doubler: r.player,
                position: r.position,
                value,
                owner,
                double: doubled,
                turn: i + 1,
                line: doubled.map_or(r.line, |d| d.line),
            };
            cube_decision(search, &c, s, &turn, &mut a);
        }
        move_decision(search, judge, &mut values, &c, s, (i + 1, r), &mut a);
    }
    for d in doubles {
        cube_decision(search, &c, s, &alone(d), &mut a);
    }
    if let Some(r) = &replay.resignation {
        resignation(search, &c, s, r, replay.rolls.len() + 1, &mut a);
    }
    if let (0, Some((winner, points))) = (c.game.length, replay.result) {
        a.stats[winner].points += f64::from(points);
        a.stats[1 - winner].points -= f64::from(points);
    }
    a
}

/// The move of `r`: reviewed when the roll leaves a choice; its roll's luck.
fn move_decision(
    search: &mut Search,
    judge: &mut NeuralLuck,
    values: &mut [f64; 21],
    c: &Context,
    s: &Settings,
    (turn, r): (usize, &RolledTurn),
    a: &mut GameAnalysis,
) {
    let mut state = c.game.state(r.player, r.position, r.cube, r.cube_owner);
    let luck = if c.game.length > 0 {
        match_roll_luck(judge, &state, r.roll, Rules::Standard, r.opening, values)
    } else {
        roll_luck(
            judge,
            &r.position,
            r.roll,
            Rules::Standard,
            r.opening,
            values,
        )
    };
    let stats = &mut a.stats[r.player];
    stats.rolls += 1;
    stats.luck += luck;
    if c.game.length == 0 {
        stats.luck_points += luck * f64::from(r.cube);
    }
    // Marked in normalised equity: in a match the luck in match winning chances over what a
    // single game at the cube is worth at the score (as gnubg marks it).
    let marked = match MatchScore::of(&state, state.turn) {
        Some(score) => {
            let cube = r.cube.max(1);
            let spread = f64::from(score.after(cube, 0) - score.after(0, cube));
            if spread > 0.0 {
                2.0 * luck / spread
            } else {
                0.0
            }
        }
        None => luck,
    };
    match marked {
        l if l >= 2.0 * LUCKY => stats.very_lucky += 1,
        l if l >= LUCKY => stats.lucky += 1,
        l if l <= -2.0 * LUCKY => stats.very_unlucky += 1,
        l if l <= -LUCKY => stats.unlucky += 1,
        _ => {}
    }
    let review = search.review_play(&state, r.roll, &r.after, s.ply, c.cube);
    let Some(review) = review else {
        stats.forced_moves += 1;
        return;
    };
    stats.unforced_moves += 1;
    stats.checker_error += f64::from(review.loss);
    stats.checker_error_mwc += f64::from(review.loss_mwc.unwrap_or(0.0));
    let skill = Skill::of(review.loss);
    match skill {
        Skill::Fine => {}
        Skill::Doubtful => stats.checker_doubtful += 1,
        Skill::Bad => stats.checker_bad += 1,
        Skill::VeryBad => stats.checker_very_bad += 1,
    }
    if skill == Skill::Fine && !s.all {
        return;
    }
    state.dice = Dice::Rolled(r.roll);
    a.decisions
        .push(move_row(c, (turn, r), &review, skill, state, luck));
}

fn play_text(position: &Position, roll: Roll, after: &Position) -> String {
    let mut plays = PlayList::new();
    position.legal_plays(roll, &mut plays);
    plays
        .positions()
        .iter()
        .position(|p| p == after)
        .map_or_else(
            || "?".to_string(),
            |i| format_pretty(position, &plays.play(i)),
        )
}

fn move_row(
    c: &Context,
    (turn, r): (usize, &RolledTurn),
    review: &PlayReview,
    skill: Skill,
    state: GameState,
    luck: f64,
) -> Decision {
    Decision {
        file: c.file,
        game: c.number,
        turn,
        line: r.line,
        player: r.player,
        kind: "move",
        roll: Some(r.roll.to_string()),
        made: play_text(&r.position, r.roll, &r.after),
        best: play_text(&r.position, r.roll, &review.best),
        loss: review.loss,
        loss_points: (c.game.length == 0).then_some(review.loss * r.cube as f32),
        loss_mwc: review.loss_mwc,
        skill,
        xgid: Xgid::new(state).to_string(),
        plays: Some(review.plays),
        rank: review.rank,
        counted: true,
        luck: Some(luck),
        rollout: None,
        afters: Some([r.after, review.best]),
        with_cube: c.cube.then_some(state),
    }
}

/// The resignation `r` that ended the game, before the game's roll `turn`: the resigner's
/// decision and the winner's acceptance, each charged what it lost.
fn resignation(
    search: &mut Search,
    c: &Context,
    s: &Settings,
    r: &Resignation,
    turn: usize,
    a: &mut GameAnalysis,
) {
    let state = c.game.state(r.to_move, r.position, r.cube, r.cube_owner);
    let on_roll = r.resigner == r.to_move;
    a.stats[r.resigner].resignations += 1;
    let Some(review) = search.review_resignation(&state, on_roll, r.points, c.cube, s.cube_ply)
    else {
        return;
    };
    let what = match r.points / r.cube {
        1 => "a single game",
        2 => "a gammon",
        _ => "a backgammon",
    };
    let plural = if r.points == 1 { "" } else { "s" };
    let made = format!("Resign {what} ({} point{plural})", r.points);
    let sides = [
        (
            r.resigner,
            "resign",
            made.clone(),
            "Play on",
            review.resigner_loss,
            review.loss_mwc.map(|l| l[0]),
        ),
        (
            1 - r.resigner,
            "accept",
            "Accept".to_string(),
            "Reject",
            review.accepter_loss,
            review.loss_mwc.map(|l| l[1]),
        ),
    ];
    for (player, kind, made, other, loss, loss_mwc) in sides {
        let skill = Skill::of(loss);
        let stats = &mut a.stats[player];
        stats.resignation_error += f64::from(loss);
        stats.resignation_error_mwc += f64::from(loss_mwc.unwrap_or(0.0));
        if skill != Skill::Fine {
            if kind == "resign" {
                stats.wrong_resignations += 1;
            } else {
                stats.wrong_accepts += 1;
            }
        }
        if skill == Skill::Fine && !s.all {
            continue;
        }
        let best = if skill == Skill::Fine {
            made.clone()
        } else {
            other.to_string()
        };
        a.decisions.push(Decision {
            file: c.file,
            game: c.number,
            turn,
            line: r.line,
            player,
            kind,
            roll: None,
            made,
            best,
            loss,
            loss_points: (c.game.length == 0).then_some(loss * r.cube as f32),
            loss_mwc,
            skill,
            xgid: Xgid::new(state).to_string(),
            plays: None,
            rank: None,
            counted: false,
            luck: None,
            rollout: None,
            afters: None,
            with_cube: None,
        });
    }
}

/// A doubler's cube decision before a roll.
#[derive(Clone, Copy)]
struct CubeTurn {
    /// Who may double: 0 left, 1 right.
    doubler: usize,
    /// The position, the doubler's view.
    position: Position,
    /// The cube's value before any double.
    value: u32,
    /// Its owner then; `None` in the middle.
    owner: Option<usize>,
    /// The double, when one was made.
    double: Option<DoubleTurn>,
    /// The game's roll it comes before (from 1).
    turn: usize,
    /// Its line in the record.
    line: usize,
}

/// The doubler's decision at `t`, and the answer to its double when it made one.
fn cube_decision(
    search: &mut Search,
    c: &Context,
    s: &Settings,
    t: &CubeTurn,
    a: &mut GameAnalysis,
) {
    let (doubler, value, owner, double) = (t.doubler, t.value, t.owner, t.double.as_ref());
    let state = c.game.state(doubler, t.position, value, owner);
    if double.is_none() && !state.may_double() {
        return;
    }
    let Some(analysis) = search.cube_decision(&state, s.cube_ply) else {
        return;
    };
    let redouble = owner.is_some();
    let right = analysis.action.describe(redouble).to_string();
    let xgid = Xgid::new(state).to_string();
    let review = review_double(&analysis, double.is_some(), c.game.beavers);
    let kind = if double.is_some() {
        "double"
    } else {
        "no double"
    };
    let stats = &mut a.stats[doubler];
    if double.is_some() {
        stats.doubles += 1;
    }
    if review.loss > 0.0 {
        if double.is_some() {
            stats.wrong_doubles += 1;
        } else {
            stats.missed_doubles += 1;
        }
    }
    let made = if double.is_some() {
        if redouble {
            "Redouble"
        } else {
            "Double"
        }
    } else if redouble {
        "No redouble"
    } else {
        "No double"
    }
    .to_string();
    record_cube(
        c,
        s,
        a,
        doubler,
        kind,
        made,
        right.clone(),
        &review,
        t,
        &xgid,
    );
    let Some(d) = double else { return };
    let Some(response) = d.answer else { return };
    let taker = 1 - doubler;
    let review = review_answer(&analysis, response, c.game.beavers);
    let stats = &mut a.stats[taker];
    let (kind, made) = match response {
        CubeResponse::Take => {
            stats.takes += 1;
            ("take", "Take")
        }
        CubeResponse::Pass => {
            stats.passes += 1;
            ("pass", "Pass")
        }
        CubeResponse::Beaver => {
            stats.beavers += 1;
            ("beaver", "Beaver")
        }
    };
    if review.loss > 0.0 {
        if response == CubeResponse::Pass {
            stats.wrong_passes += 1;
        } else {
            stats.wrong_takes += 1;
        }
    }
    let best = analysis.answer_words(c.game.beavers);
    // Listed at the answer's own line.
    let answered = CubeTurn {
        line: if d.answer_line > 0 {
            d.answer_line
        } else {
            t.line
        },
        ..*t
    };
    record_cube(
        c,
        s,
        a,
        taker,
        kind,
        made.to_string(),
        best.to_string(),
        &review,
        &answered,
        &xgid,
    );
}

/// Counts a cube decision by `player` and lists it when it is an error (or with `--all`).
#[allow(clippy::too_many_arguments)]
fn record_cube(
    c: &Context,
    s: &Settings,
    a: &mut GameAnalysis,
    player: usize,
    kind: &'static str,
    made: String,
    best: String,
    review: &CubeReview,
    t: &CubeTurn,
    xgid: &str,
) {
    let stats = &mut a.stats[player];
    let skill = Skill::of(review.loss);
    if review.counted {
        stats.cube_decisions += 1;
        stats.cube_error += f64::from(review.loss);
        stats.cube_error_mwc += f64::from(review.loss_mwc.unwrap_or(0.0));
        if skill != Skill::Fine {
            stats.cube_errors += 1;
        }
    }
    if skill == Skill::Fine && !(s.all && review.counted) {
        return;
    }
    a.decisions.push(Decision {
        file: c.file,
        game: c.number,
        turn: t.turn,
        line: t.line,
        player,
        kind,
        roll: None,
        made,
        best,
        loss: review.loss,
        loss_points: (c.game.length == 0).then_some(review.loss * t.value as f32),
        loss_mwc: review.loss_mwc,
        skill,
        xgid: xgid.to_string(),
        plays: None,
        rank: None,
        counted: review.counted,
        luck: None,
        rollout: None,
        afters: None,
        with_cube: None,
    });
}

impl PlayerStats {
    fn add(&mut self, g: &PlayerStats) {
        self.unforced_moves += g.unforced_moves;
        self.forced_moves += g.forced_moves;
        self.checker_error += g.checker_error;
        self.checker_error_mwc += g.checker_error_mwc;
        self.checker_doubtful += g.checker_doubtful;
        self.checker_bad += g.checker_bad;
        self.checker_very_bad += g.checker_very_bad;
        self.cube_decisions += g.cube_decisions;
        self.doubles += g.doubles;
        self.takes += g.takes;
        self.passes += g.passes;
        self.beavers += g.beavers;
        self.missed_doubles += g.missed_doubles;
        self.wrong_doubles += g.wrong_doubles;
        self.wrong_takes += g.wrong_takes;
        self.wrong_passes += g.wrong_passes;
        self.cube_error += g.cube_error;
        self.cube_error_mwc += g.cube_error_mwc;
        self.cube_errors += g.cube_errors;
        self.resignations += g.resignations;
        self.wrong_resignations += g.wrong_resignations;
        self.wrong_accepts += g.wrong_accepts;
        self.resignation_error += g.resignation_error;
        self.resignation_error_mwc += g.resignation_error_mwc;
        self.rolls += g.rolls;
        self.luck += g.luck;
        self.points += g.points;
        self.luck_points += g.luck_points;
        self.lucky += g.lucky;
        self.very_lucky += g.very_lucky;
        self.unlucky += g.unlucky;
        self.very_unlucky += g.very_unlucky;
    }

    /// Computes the rates from the totals.
    fn finish(&mut self) {
        let per = |x: f64, n: u32| {
            if n == 0 {
                0.0
            } else {
                1000.0 * x / f64::from(n)
            }
        };
        self.checker_rate = per(self.checker_error, self.unforced_moves);
        self.cube_rate = per(self.cube_error, self.cube_decisions);
        self.error_rate = per(
            self.checker_error + self.cube_error,
            self.unforced_moves + self.cube_decisions,
        );
        self.rating = if self.unforced_moves + self.cube_decisions == 0 {
            "no decisions"
        } else {
            rating(self.error_rate)
        };
        self.luck_rate = per(self.luck, self.rolls);
    }
}

/// Writes the report: the listed decisions game by game (unless `summary`), then each
/// player's figures.
///
/// # Errors
/// When writing fails.
pub fn write_report(out: &mut dyn Write, r: &AnalysisReport, summary: bool) -> Result<()> {
    writeln!(
        out,
        "{} game{} from {} ({}), checker play judged at {}-ply{}",
        r.games,
        if r.games == 1 { "" } else { "s" },
        r.files.join(", "),
        match (r.jacoby, r.beavers) {
            (false, false) => r.kind.to_string(),
            (true, false) => format!("{}, the Jacoby rule", r.kind),
            (false, true) => format!("{}, beavers", r.kind),
            (true, true) => format!("{}, the Jacoby rule and beavers", r.kind),
        },
        r.ply,
        if r.kind == "cubeless money" {
            String::new()
        } else {
            format!(", cube decisions at {}-ply", r.cube_ply)
        }
    )?;
    let names = [&r.players[0].name, &r.players[1].name];
    // The names in full where they are short enough, so that two are told apart.
    let name_width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(12, 24);
    if !summary {
        let mut last: Option<(usize, u32)> = None;
        for d in &r.decisions {
            if last != Some((d.file, d.game)) {
                let file = if r.files.len() > 1 {
                    format!("{}: ", r.files[d.file])
                } else {
                    String::new()
                };
                writeln!(out, "\n{file}Game {}", d.game)?;
                last = Some((d.file, d.game));
            }
            let what = match &d.roll {
                Some(roll) => format!("{roll}: {}", d.made),
                None => d.made.clone(),
            };
            let units = match (d.loss_points, d.loss_mwc) {
                (_, Some(m)) => format!("{:.3} ({:.2}% MWC)", -d.loss, -100.0 * m),
                (Some(p), None) if (p - d.loss).abs() > 1e-6 => {
                    format!("{:.3} ({:+.3} points)", -d.loss, -p)
                }
                _ => format!("{:.3}", -d.loss),
            };
            let at = if d.line > 0 {
                format!("move {:>3} (line {})", d.turn, d.line)
            } else {
                format!("move {:>3}", d.turn)
            };
            writeln!(
                out,
                "  {at:<20} {:<name_width$} {:<34} {:<3} {}  best: {}",
                truncate(names[d.player], name_width),
                what,
                d.skill.mark(),
                units,
                d.best
            )?;
            writeln!(out, "  {:<20} {}", "", d.xgid)?;
            if let Some(c) = &d.rollout {
                let verdict = if c.loss >= 0.0 {
                    format!("loses {:.3} ± {:.3}", c.loss, c.ci95)
                } else {
                    format!("better by {:.3} ± {:.3}", -c.loss, c.ci95)
                };
                writeln!(
                    out,
                    "  {:<20} rollout, {} games a play{}: {verdict}",
                    "",
                    c.games,
                    if c.cubeful { ", with the cube" } else { "" }
                )?;
            }
        }
        writeln!(out)?;
    }
    let row = |out: &mut dyn Write, label: &str, f: &dyn Fn(&PlayerStats) -> String| {
        writeln!(
            out,
            "{:<44} {:>16} {:>16}",
            label,
            f(&r.players[0]),
            f(&r.players[1])
        )
    };
    row(out, "", &|p| truncate(&p.name, 16))?;
    let matches = r.kind == "match";
    row(out, "Checker play", &|_| String::new())?;
    row(out, "  unforced moves (forced)", &|p| {
        format!("{} ({})", p.unforced_moves, p.forced_moves)
    })?;
    row(out, "  error total (EMG)", &|p| {
        format!("{:.3}", p.checker_error)
    })?;
    if matches {
        row(out, "  error total (MWC)", &|p| {
            format!("{:.2}%", 100.0 * p.checker_error_mwc)
        })?;
    }
    row(out, "  error rate (mEMG per move)", &|p| {
        format!("{:.2}", p.checker_rate)
    })?;
    row(out, "  doubtful / bad / very bad", &|p| {
        format!(
            "{} / {} / {}",
            p.checker_doubtful, p.checker_bad, p.checker_very_bad
        )
    })?;
    if r.kind != "cubeless money" {
        row(out, "Cube", &|_| String::new())?;
        row(out, "  decisions counted", &|p| {
            p.cube_decisions.to_string()
        })?;
        row(out, "  doubles / takes / passes / beavers", &|p| {
            format!("{} / {} / {} / {}", p.doubles, p.takes, p.passes, p.beavers)
        })?;
        row(out, "  missed doubles / wrong doubles", &|p| {
            format!("{} / {}", p.missed_doubles, p.wrong_doubles)
        })?;
        row(out, "  wrong takes / wrong passes", &|p| {
            format!("{} / {}", p.wrong_takes, p.wrong_passes)
        })?;
        row(out, "  error total (EMG)", &|p| {
            format!("{:.3}", p.cube_error)
        })?;
        if matches {
            row(out, "  error total (MWC)", &|p| {
                format!("{:.2}%", 100.0 * p.cube_error_mwc)
            })?;
        }
        row(out, "  error rate (mEMG per decision)", &|p| {
            format!("{:.2}", p.cube_rate)
        })?;
    }
    if r.players.iter().any(|p| p.resignations > 0) {
        row(out, "Resignations (not in the rates)", &|_| String::new())?;
        row(out, "  resigned / wrongly / accepted wrongly", &|p| {
            format!(
                "{} / {} / {}",
                p.resignations, p.wrong_resignations, p.wrong_accepts
            )
        })?;
        row(out, "  error total (EMG)", &|p| {
            format!("{:.3}", p.resignation_error)
        })?;
        if matches {
            row(out, "  error total (MWC)", &|p| {
                format!("{:.2}%", 100.0 * p.resignation_error_mwc)
            })?;
        }
    }
    row(out, "Overall", &|_| String::new())?;
    row(out, "  error rate (mEMG per decision)", &|p| {
        format!("{:.2}", p.error_rate)
    })?;
    row(out, "  rating", &|p| p.rating.to_string())?;
    let unit = if matches { "MWC" } else { "EMG" };
    row(out, &format!("Luck (0-ply, {unit})"), &|_| String::new())?;
    row(out, "  total", &|p| {
        if matches {
            format!("{:+.2}%", 100.0 * p.luck)
        } else {
            format!("{:+.3}", p.luck)
        }
    })?;
    row(out, "  per roll (thousandths)", &|p| {
        format!("{:+.1}", p.luck_rate)
    })?;
    row(out, "  very lucky / lucky", &|p| {
        format!("{} / {}", p.very_lucky, p.lucky)
    })?;
    row(out, "  very unlucky / unlucky", &|p| {
        format!("{} / {}", p.very_unlucky, p.unlucky)
    })?;
    if !matches {
        row(out, "Result (points, finished games)", &|_| String::new())?;
        row(out, "  won", &|p| format!("{:+}", p.points))?;
        row(out, "  luck in points (times the cube)", &|p| {
            format!("{:+.3}", p.luck_points)
        })?;
        row(out, "  luck-adjusted", &|p| {
            format!("{:+.3}", p.luck_adjusted_points)
        })?;
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}
