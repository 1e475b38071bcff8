//! `tavla play`: one money game in the terminal, a person against the engine, cubeless or
//! (`--cube`) with the doubling cube, or (`--match N`) a match with the cube and the Crawford
//! rule.
//!
//! The person types moves in standard notation (`8/5 6/5`, `24/14`, `bar/22*`, `6/off(2)`) or
//! one of the commands `hint`, `board`, `resign [single|gammon|backgammon]`, `help`, `quit`;
//! the engine answers a resignation, and offers one when its game is lost (`accept` or
//! `reject`). With `--beavers` (money play with the cube) a double may be beavered. Unreadable or illegal moves print a
//! one-line error and the prompt again. A roll with no legal play is passed automatically, and
//! a roll with exactly one legal play is played automatically (both are said). The opening is
//! decided the usual way: each side rolls one die, ties are rolled again, and the higher die
//! starts, playing both dice. The dice come from a ChaCha8 generator seeded with `--seed` (by
//! default from the clock; the seed is printed so the game can be replayed). End of input ends
//! the game cleanly. `--save FILE` writes the game, finished or not, as a `.mat` record (the
//! person left, the engine right) that `tavla luck`, `tavla analyse` and gnubg read, or as SGF
//! when FILE ends in `.sgf`; `--analyse` prints the engine's analysis of the game when it ends.
//! `--position POS` plays on from a position in any notation (the game, or the rest of the
//! match, from there): its side on roll, dice (or the cube decision before the roll), cube,
//! score and rules; each board drawn carries its XGID, so an abandoned game can be taken up
//! again that way.

use std::io::{BufRead, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{
    BySide, CubeOwner, CubeResponse, Dice, GameState, NoDouble, PlayList, Position, Resign, Roll,
    Rules, Side,
};
use tavla_nn::cube::{CubeHolder, PlayWorth};
use tavla_nn::review::{review_answer, review_double, Skill};
use tavla_nn::{RankedPlay, Search, Weights};
use tavla_notation::landing::LandingMarks;
use tavla_notation::mat::{Action, GameRecord, MatchRecord, SetUp};
use tavla_notation::{format_pretty, PlayText};

use tavla_player::Player;

use crate::analyse_cmd::{analyse_records, write_report, AnalyseArgs};
use crate::games::Tally;
use crate::input::{self, InputError};
use crate::players::PlayerSpec;

/// The record's columns: the person left, the engine right.
pub(crate) const PERSON: usize = 0;
pub(crate) const ENGINE: usize = 1;

/// Plays shown by `hint`.
const HINT_PLAYS: usize = 3;

/// The side the person plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum SideArg {
    /// X: drawn at the bottom, home board bottom right.
    #[default]
    X,
    /// O: drawn at the top; the board's points are numbered from O's side.
    O,
}

impl From<SideArg> for Side {
    fn from(s: SideArg) -> Side {
        match s {
            SideArg::X => Side::X,
            SideArg::O => Side::O,
        }
    }
}

/// `tavla play`.
#[derive(Args)]
pub struct PlayArgs {
    /// The engine to play against: random, heuristic[:FILE], heuristic-1ply[:FILE],
    /// neural[:ply=N][,cube-ply=N][,cubeless-plays][,weights=FILE][,no-bearoff]
    /// [,filters=K:M/K:M/K:M][,no-prune|,prune=FILE][,keep=K] or ubgi:COMMAND.
    #[arg(long, default_value = "neural", value_name = "PLAYER")]
    engine: String,
    /// Seed of the dice (default: from the clock, printed so the game can be replayed).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// The side you play [default: x; with --position, the side that acts next].
    #[arg(long, value_enum)]
    side: Option<SideArg>,
    /// Write the game to FILE as a `.mat` record when it ends (also when abandoned), or as
    /// SGF when FILE ends in `.sgf` (a game from --position, which `.mat` cannot hold): you
    /// are the left player, the engine the right.
    #[arg(long, value_name = "FILE")]
    save: Option<std::path::PathBuf>,
    /// Your name in the saved record.
    #[arg(long, value_name = "NAME", default_value = "player")]
    name: String,
    /// Play with the doubling cube (money play): before your roll, when you may double, Enter
    /// rolls and `double` doubles; the engine doubles, takes and passes by its own cube
    /// decisions.
    #[arg(long)]
    cube: bool,
    /// With --cube: the Jacoby rule. Gammons and backgammons count single until the cube has
    /// been turned; the engine plays, doubles and resigns knowing it.
    #[arg(long, conflicts_with = "match_length")]
    jacoby: bool,
    /// With --cube: beavers are allowed. A side doubled may take and at once redouble,
    /// keeping the cube (`beaver` at the take prompt); the engine beavers a double it finds
    /// wrong. No raccoons.
    #[arg(long, conflicts_with = "match_length")]
    beavers: bool,
    /// Play a match to N points instead of one money game, with the cube and the Crawford
    /// rule; the engine plays and doubles by match equity. Game g's dice come from seed S + g - 1.
    #[arg(long = "match", value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=32))]
    match_length: Option<u32>,
    /// Play on from POS (any notation: XGID, gnubg IDs, BPN, FIBS board) instead of the
    /// starting position: its side on roll with its dice, or before the roll (the cube
    /// decision first) when it has none, or with its double waiting for the answer; its cube,
    /// and in a match its score and the rest of the match. You play the side that acts next
    /// (on roll, or to answer its double) unless --side says otherwise. The cube is in play in a match, with --cube, or when POS has it
    /// turned or offered or the Jacoby rule or beavers; an XGID whose cube limit (field 10) is
    /// 0 is a game without the cube, a cube above its limit is refused, and no double or
    /// beaver passes it in the game. Each board drawn shows its XGID, to play on from later.
    #[arg(
        long,
        value_name = "POS",
        conflicts_with = "match_length",
        allow_hyphen_values = true
    )]
    position: Option<String>,
    /// When the game (or match) ends, or is abandoned, the engine's analysis of it at 2-ply,
    /// as `tavla analyse` gives it: each side's doubtful, bad and very bad decisions with the
    /// best play or cube action, error rates and luck.
    #[arg(long)]
    analyse: bool,
    /// The tutor: each of your checker plays and cube decisions is judged by the engine at
    /// 2-ply before it is made (as `tavla analyse` judges it); one that loses at least
    /// --tutor-warn is held back with what it loses and the engine's choice, and `y` makes it
    /// anyway (anything else: choose again). At the end, the error rate of the decisions made.
    #[arg(long)]
    tutor: bool,
    /// With --tutor: the loss (normalised equity) from which a decision is held back: 0.04
    /// doubtful, 0.08 bad, 0.16 very bad.
    #[arg(long, value_name = "X", default_value_t = tavla_nn::review::DOUBTFUL,
          requires = "tutor", value_parser = tutor_warn)]
    tutor_warn: f32,
}

/// Reads `--tutor-warn`: above 0, at most 1.
fn tutor_warn(text: &str) -> Result<f32, String> {
    text.parse::<f32>()
        .ok()
        .filter(|w| *w > 0.0 && *w <= 1.0)
        .ok_or_else(|| format!("`{text}` is not a loss above 0 and at most 1 (e.g. 0.04)"))
}

/// The tutor of `tavla play --tutor`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tutor {
    /// The loss from which a decision is held back.
    pub warn: f32,
}

/// The depth of the tutor's judgements.
const TUTOR_PLY: u8 = 2;

/// What a game is played for: money (with the cube or not), or a game of a match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setting {
    /// The doubling cube is in play.
    pub cube: bool,
    /// The match length; 0 for money.
    pub match_length: u32,
    /// Points won so far in the match.
    pub score: BySide<u32>,
    /// This is the Crawford game (no doubling).
    pub crawford: bool,
    /// Money play with the cube: beavers are allowed.
    pub beavers: bool,
    /// Money play with the cube: the Jacoby rule.
    pub jacoby: bool,
    /// The tutor, when the person has it.
    pub tutor: Option<Tutor>,
    /// Where the (first) game starts, instead of the opening roll from the starting position:
    /// the side on roll, its dice or none, the cube (the other fields come from the setting).
    pub start: Option<GameState>,
    /// The cube limit of the XGID the game starts from (field 10: log2 of the highest cube),
    /// kept through the game: no double, redouble or beaver past it, and the XGIDs drawn
    /// carry it. `None` for the rules' own highest cube.
    pub cube_limit: Option<u8>,
}

impl Setting {
    /// `state` with this setting's match length, score, Crawford game and money rules.
    #[must_use]
    pub fn rules_of(&self, mut state: GameState) -> GameState {
        state.match_length = self.match_length;
        state.score = self.score;
        state.crawford = self.crawford;
        state.beavers = self.beavers && self.match_length == 0;
        state.jacoby = self.jacoby && self.match_length == 0 && self.cube;
        state
    }

    /// A money game, with the cube or not.
    #[must_use]
    pub fn money(cube: bool) -> Setting {
        Setting {
            cube,
            match_length: 0,
            score: BySide::default(),
            crawford: false,
            beavers: false,
            jacoby: false,
            tutor: None,
            start: None,
            cube_limit: None,
        }
    }
}

/// How a game run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameEnd {
    /// Played to the end, or a double passed: the winner and the points won (1 single, 2
    /// gammon, 3 backgammon, times the cube).
    Finished {
        /// The winner.
        winner: Side,
        /// Points won.
        points: u32,
    },
    /// The person typed `quit`.
    Quit,
    /// The input ended.
    EndOfInput,
}

/// `tavla play`: one game or a match against the engine, moves read from stdin.
pub fn play(args: &PlayArgs, out: &mut impl Write) -> Result<()> {
    let seed = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let spec = PlayerSpec::parse(&args.engine)?;
    let engine = spec.create(seed, Rules::Standard)?;
    if args.name.contains(" : ") || args.name.trim().is_empty() {
        anyhow::bail!(
            "--name {:?}: a name must not be blank nor hold ` : `",
            args.name
        );
    }
    let start = args.position.as_deref().map(start_state).transpose()?;
    // An XGID's cube limit (field 10; 0: a game without the cube) is kept as far as `play`
    // can: a cube above it is refused (by `input::parse`), and 0 plays without the cube.
    let cube_limit = match (args.position.as_deref(), start) {
        (Some(text), Some(_)) => input::xgid(text).map(|x| x.max_cube_log2),
        _ => None,
    };
    let cubeless_xgid = cube_limit == Some(0);
    if cubeless_xgid && (args.cube || args.jacoby || args.beavers) {
        return Err(InputError(
            "--cube, --jacoby and --beavers: the XGID is of a game without the cube (field 10 \
             is 0)"
                .into(),
        )
        .into());
    }
    let save_sgf = args
        .save
        .as_deref()
        .is_some_and(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("sgf")));
    if let (Some(path), Some(_), false) = (&args.save, start, save_sgf) {
        // Refused before the game, which would otherwise be lost.
        return Err(InputError(format!(
            "--save {}: a game from --position cannot be written as .mat; name the file .sgf",
            path.display()
        ))
        .into());
    }
    if let Some(path) = &args.save {
        // The folder must be there before the game is played, or the game would be lost.
        crate::input::output_file("--save", path)?;
    }
    let length = start.map_or(args.match_length.unwrap_or(0), |s| s.match_length);
    if length > 0 && (args.jacoby || args.beavers) {
        return Err(InputError(
            "--jacoby and --beavers are for money play, and --position is in a match".into(),
        )
        .into());
    }
    let human = match (args.side, start) {
        (Some(side), _) => side.into(),
        (None, Some(s)) => side_to_act(&s),
        (None, None) => Side::X,
    };
    // The cube and the money rules: a position brings its own.
    let (cube, jacoby, beavers) = match start {
        _ if length > 0 && cubeless_xgid => {
            return Err(InputError(
                "--position: a match from an XGID without the cube (field 10 is 0); tavla \
                 plays matches with the cube"
                    .into(),
            )
            .into())
        }
        _ if length > 0 => (true, false, false),
        Some(_) if cubeless_xgid => (false, false, false),
        Some(s) => {
            let turned = s.cube.log2 > 0 || s.cube.owner != CubeOwner::Centre;
            let cube =
                args.cube || turned || s.jacoby || s.beavers || s.dice == Dice::DoubleOffered;
            (
                cube,
                cube && (args.jacoby || s.jacoby),
                cube && (args.beavers || s.beavers),
            )
        }
        None => (args.cube, args.jacoby, args.beavers),
    };
    if (args.jacoby || args.beavers) && !cube {
        return Err(InputError(
            "--jacoby and --beavers need the cube: --cube, or a position that has it in play"
                .into(),
        )
        .into());
    }
    let mut record = MatchRecord::new(
        length,
        [args.name.clone(), engine.name().replace(" : ", " ")],
    );
    record.jacoby = jacoby;
    record.beavers = beavers;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut engine = engine;
    let tutor = args.tutor.then_some(Tutor {
        warn: args.tutor_warn,
    });
    let mut tally = Tally::default();
    if length == 0 {
        let mut game = GameRecord::new(1, [0, 0]);
        run_game(
            &mut input,
            &mut *out,
            &mut *engine,
            seed,
            human,
            Setting {
                beavers,
                jacoby,
                tutor,
                start,
                cube_limit,
                ..Setting::money(cube)
            },
            &mut game,
            &mut tally,
        )?;
        record.games.push(game);
    } else {
        run_match(
            &mut input,
            &mut *out,
            &mut *engine,
            seed,
            human,
            Setting {
                match_length: length,
                tutor,
                start,
                cube_limit,
                ..Setting::money(true)
            },
            &mut record,
            &mut tally,
        )?;
    }
    if args.tutor {
        writeln!(
            out,
            "\nThe tutor's judgement of your decisions at {TUTOR_PLY}-ply:\n{}",
            tally.text()
        )?;
    }
    if let Some(path) = &args.save {
        let text = if save_sgf {
            record.to_sgf()
        } else {
            // Only a set-up turn, from --position (refused above), cannot be written as .mat.
            record.to_mat().context("cannot write the game as .mat")?
        };
        std::fs::write(path, text)
            .with_context(|| format!("cannot write the game to {}", path.display()))?;
        let what = if length == 0 { "Game" } else { "Match" };
        writeln!(out, "{what} saved to {}.", path.display())?;
    }
    if args.analyse {
        analyse_played(&record, cube, jacoby, out)?;
    }
    Ok(())
}

/// Reads `--position`: a position to play on from, with its dice or none.
///
/// # Errors
/// [`InputError`] when POS cannot be read, or cannot be played on from ([`unplayable`]).
fn start_state(text: &str) -> Result<GameState, InputError> {
    let state = input::position(text).map_err(|e| InputError(format!("--position: {e}")))?;
    match unplayable(&state) {
        Some(p) => Err(InputError(format!("--position {text}: {p}"))),
        None => Ok(state),
    }
}

/// The set-up turn of a game played on from `state` (the person, `human`, the left player):
/// the board, the side on roll, its dice if rolled, and the cube.
pub(crate) fn set_up(state: &GameState, human: Side) -> Action {
    let column = |side: Side| usize::from(side != human);
    let board = state.position.to_board();
    let mut layout = [board.on_roll, board.opponent];
    if state.turn != human {
        layout.swap(0, 1);
    }
    Action::SetUp(SetUp {
        board: Some(layout),
        to_move: Some(column(state.turn)),
        dice: match state.dice {
            Dice::Rolled(roll) => Some(roll),
            _ => None,
        },
        cube: Some(state.cube.value()),
        cube_owner: Some(match state.cube.owner {
            CubeOwner::Centre => None,
            CubeOwner::Side(side) => Some(column(side)),
        }),
    })
}

/// The side that acts next in `state`: the side on roll, or the side to answer its double.
pub(crate) fn side_to_act(state: &GameState) -> Side {
    if state.dice == Dice::DoubleOffered {
        !state.turn
    } else {
        state.turn
    }
}

/// Why a game cannot be played on from `state`, if it cannot: a double offered where the
/// cube cannot be turned, a game over, a centred cube above 1 in a match, a match longer than
/// tavla's match equity table reaches.
pub(crate) fn unplayable(state: &GameState) -> Option<String> {
    state.why_unplayable().or_else(|| {
        (state.match_length > 32).then(|| {
            format!(
                "a {}-point match: tavla plays matches of at most 32 points",
                state.match_length
            )
        })
    })
}

/// Prints the engine's analysis of the games in `record` (`tavla play --analyse`).
///
/// # Errors
/// When the analysis cannot load its networks or databases, or writing fails.
fn analyse_played(
    record: &MatchRecord,
    cube: bool,
    jacoby: bool,
    out: &mut impl Write,
) -> Result<()> {
    // The games were played through the legal plays: each replays.
    let replays = record
        .games
        .iter()
        .map(GameRecord::replay)
        .collect::<Result<Vec<_>, _>>()
        .context("replaying the game for its analysis")?;
    // Nothing to analyse until a roll or a cube action (a game from a position starts with
    // its set-up).
    let decided = record.games.iter().any(|g| {
        g.turns
            .iter()
            .any(|t| !matches!(t.action, Action::SetUp(_)))
    });
    if !decided {
        return Ok(());
    }
    let args = AnalyseArgs::defaults().with_cube(cube).with_jacoby(jacoby);
    let what = if record.length == 0 {
        "this game"
    } else {
        "this match"
    };
    writeln!(out, "\nThe engine's analysis of {what} at 2-ply:")?;
    let records = [(record.clone(), replays)];
    let report = analyse_records(&args, &records, vec![what.to_string()], false)?;
    write_report(out, &report, false)?;
    Ok(())
}

/// Plays a match to `length` (`setting.match_length`) points, with `setting.tutor` (its other
/// fields are each game's own): games until a side has `length`, the Crawford game after
/// the first side reaches `length - 1`; game `g`'s dice from `seed + g - 1`. Every game is added
/// to `record`, and the tutor's judgements to `tally`. Returns the final score, or `None` when
/// the person quit or the input ended.
///
/// # Errors
/// Only when writing to `out` or reading `input` fails.
#[allow(clippy::too_many_arguments)]
pub fn run_match<R: BufRead, W: Write>(
    input: &mut R,
    out: &mut W,
    engine: &mut dyn Player,
    seed: u64,
    human: Side,
    setting: Setting,
    record: &mut MatchRecord,
    tally: &mut Tally,
) -> Result<Option<BySide<u32>>> {
    let length = setting.match_length;
    writeln!(
        out,
        "A {length}-point match against {}; replay it with --seed {seed}.",
        engine.name()
    )?;
    let leader_at = |s: &BySide<u32>| GameState::is_crawford_game(length, *s, false);
    // From `setting.start`: its score, and its game is the Crawford game where it says so
    // (with a side one point away and not the Crawford game, that game was played).
    let mut score = setting.start.map_or_else(BySide::default, |s| s.score);
    let mut crawford_played = setting.start.is_some_and(|_| leader_at(&score));
    for g in 1u32.. {
        let start = setting.start.filter(|_| g == 1);
        let crawford = match start {
            Some(s) => s.crawford,
            None => GameState::is_crawford_game(length, score, crawford_played),
        };
        writeln!(
            out,
            "\nGame {g} of a {length}-point match. Score: you {}, {} {}{}.",
            score.get(human),
            engine.name(),
            score.get(!human),
            if crawford {
                " (the Crawford game: no doubling)"
            } else {
                ""
            }
        )?;
        let setting = Setting {
            cube: true,
            match_length: length,
            score,
            crawford,
            beavers: false,
            jacoby: false,
            tutor: setting.tutor,
            start,
            cube_limit: setting.cube_limit,
        };
        let mut game = GameRecord::new(g, [*score.get(human), *score.get(!human)]);
        // Said, not left to be inferred: the match may start after the Crawford game.
        game.crawford = Some(crawford);
        let end = run_game(
            &mut *input,
            &mut *out,
            &mut *engine,
            seed.wrapping_add(u64::from(g) - 1),
            human,
            setting,
            &mut game,
            &mut *tally,
        )?;
        record.games.push(game);
        let GameEnd::Finished { winner, points } = end else {
            return Ok(None);
        };
        crawford_played |= crawford;
        *score.get_mut(winner) += points;
        if *score.get(winner) >= length {
            writeln!(
                out,
                "\nMatch over: {} the {length}-point match, {} to {}.",
                who_wins(winner, human, engine),
                score.get(winner),
                score.get(!winner)
            )?;
            out.flush()?;
            return Ok(Some(score));
        }
    }
    unreachable!("a match ends within u32::MAX games")
}

/// The search of hints and the tutor: the default networks, the bearoff databases when they
/// can be had, and the pruned inner choices.
fn engine_search() -> Search {
    Search::new(Weights::shared_default())
        .with_prune(tavla_nn::search::Prune::embedded())
        .with_bearoff(crate::players::shared_bearoff())
}

/// A cube decision of the person's, for the tutor.
#[derive(Clone, Copy)]
enum CubeChoice {
    /// Before the roll: to double (`true`) or roll.
    Double(bool),
    /// The answer to the engine's double.
    Answer(CubeResponse),
}

/// The tutor's question about a decision that loses `loss` (`made`; the engine's choice
/// `best`): whether to make it anyway (`y` or `yes`). `None` at the end of the input.
fn tutor_asks<R: BufRead, W: Write>(
    input: &mut R,
    out: &mut W,
    made: &str,
    loss: f32,
    best: &str,
) -> Result<Option<bool>> {
    let skill = match Skill::of(loss) {
        Skill::Fine => "fine",
        Skill::Doubtful => "doubtful",
        Skill::Bad => "bad",
        Skill::VeryBad => "very bad",
    };
    writeln!(
        out,
        "The tutor: {made} loses {loss:.3} ({skill}) at {TUTOR_PLY}-ply; the engine's choice: {best}."
    )?;
    write!(out, "Make it anyway? (y/N) ")?;
    out.flush()?;
    let mut line = String::new();
    if read_typed_line(input, &mut line)? == 0 {
        writeln!(out, "\nEnd of input: game abandoned.")?;
        out.flush()?;
        return Ok(None);
    }
    Ok(Some(matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    )))
}

/// What the person typed, read.
enum Command {
    Hint,
    Board,
    Help,
    Quit,
    /// `resign [single|gammon|backgammon]`, or the error reading the level.
    Resign(Result<Resign, tavla_core::ParseResignError>),
    Move(String),
    /// A word of the cube or of a resignation (`double`, `take`, `accept`, ...), typed where
    /// it does not apply.
    Word(String),
    Empty,
}

/// One line the person typed, into `line`; bytes that are not UTF-8 (a paste, a terminal in
/// another encoding) read as U+FFFD, so that the line is refused as any unreadable one is and
/// the game goes on. The bytes read, 0 at the end of the input.
fn read_typed_line(input: &mut impl BufRead, line: &mut String) -> std::io::Result<usize> {
    let mut bytes = Vec::new();
    let n = input.read_until(b'\n', &mut bytes)?;
    line.push_str(&String::from_utf8_lossy(&bytes));
    Ok(n)
}

fn command(line: &str) -> Command {
    let text = line.trim();
    let lower = text.to_ascii_lowercase();
    let mut words = lower.split_whitespace();
    if words.next() == Some("resign") {
        let level = words.collect::<Vec<_>>().join(" ");
        return Command::Resign(if level.is_empty() {
            Ok(Resign::Single)
        } else {
            level.parse()
        });
    }
    match lower.as_str() {
        "" => Command::Empty,
        "hint" | "h" | "?" => Command::Hint,
        "board" | "b" => Command::Board,
        "help" => Command::Help,
        "quit" | "q" | "exit" => Command::Quit,
        "double" | "redouble" | "roll" | "take" | "pass" | "drop" | "beaver" | "accept"
        | "reject" => Command::Word(lower),
        _ => Command::Move(text.to_string()),
    }
}

/// Why `word` (a word of the cube or of a resignation) does not apply once the person has
/// rolled `roll` in `state`, in a game with the cube or without.
fn misplaced_word(word: &str, setting: &Setting, state: &GameState, roll: Roll) -> String {
    let cube = setting.cube;
    let why = match word {
        "double" | "redouble" if !cube => {
            "There is no cube in this game (play with --cube for one)".to_string()
        }
        "double" | "redouble" => {
            // Why no double was offered before this roll, if one could not be.
            match state.why_no_double() {
                Some(NoDouble::Crawford) => "No double in the Crawford game".to_string(),
                Some(NoDouble::OpponentsCube) => {
                    "The engine owns the cube: only it may double".to_string()
                }
                Some(NoDouble::DeadCube) => {
                    "Your cube is dead: a single game at its value wins the match already"
                        .to_string()
                }
                Some(NoDouble::CubeAtMaximum) => "The cube is at its highest".to_string(),
                None if !input::may_double_within(state, setting.cube_limit) => format!(
                    "The cube is at the position's limit of {} (its XGID's field 10)",
                    state.cube.value()
                ),
                None => format!("You have rolled {roll}: a double comes before the roll"),
            }
        }
        "roll" => format!("You have rolled {roll} already"),
        "accept" | "reject" => "No resignation is offered".to_string(),
        _ => "No double is offered".to_string(),
    };
    format!("{why}; type your move for {roll} (`help` for commands).")
}

const HELP: &str = "\
Commands:
  a move in standard notation, from your side: 8/5 6/5, 24/14, bar/22*, 6/off(2), 13/7*/5
         or as landing marks, where each die's checker landed: @5 @5 (or 3@5 1@5), 6@18 4@14,
         6@off; a start settles the rare marks that fit two plays: @11<13
  hint   the engine's best plays for your roll, with their equities (before a roll or when
         doubled, with --cube: the engine's cube decision)
  board  draw the board again
  resign [single|gammon|backgammon]
         offer to resign (a single game if no level is named); the engine accepts or rejects
  help   this text
  quit   abandon the game
With --cube, before your roll: Enter (or `roll`) rolls, `double` doubles; when doubled:
  `take` or `pass` (with --beavers, also `beaver`). When the engine offers to resign:
  `accept` or `reject`.";

/// The person's play for `roll` in `pos`, typed in standard notation (`8/5 6/5`) or as
/// landing marks (`@5 @5`, `3@5 1@5`: where each die's checker landed); when it is not a legal
/// play, what is wrong, in words that suit any front end (the terminal adds its own hints).
pub(crate) fn read_play(
    text: &str,
    pos: &Position,
    roll: Roll,
) -> Result<tavla_core::Play, String> {
    if text.contains('@') {
        let marks = text
            .parse::<LandingMarks>()
            .map_err(|e| format!("Cannot read `{text}` as landing marks ({e})"))?;
        return marks
            .resolve(pos, Some(roll))
            .map(|(_, play)| play)
            .map_err(|e| format!("Illegal: {e}"));
    }
    let play_text = text
        .parse::<PlayText>()
        .map_err(|e| format!("Cannot read `{text}` as a move ({e})"))?;
    play_text
        .resolve(pos, roll)
        .map_err(|e| format!("Illegal: {e}"))
}

/// The dice: one ChaCha8 stream.
pub(crate) struct DiceRng(ChaCha8Rng);

impl DiceRng {
    /// The dice of `seed`: `tavla play --seed` and a web game of the same seed throw the same.
    pub(crate) fn new(seed: u64) -> DiceRng {
        DiceRng(ChaCha8Rng::seed_from_u64(seed))
    }

    pub(crate) fn die(&mut self) -> u8 {
        self.0.gen_range(1..=6)
    }

    pub(crate) fn roll(&mut self) -> Roll {
        let (a, b) = (self.die(), self.die());
        Roll::from_values(a, b)
    }
}

/// Draws the board, then its XGID; for a person playing O the point numbers are O's own.
fn draw(state: &GameState, human: Side, cube_limit: Option<u8>) -> String {
    let board = crate::board::draw(state);
    // The XGID, to play on from here later (`--position`), with the game's cube limit.
    let id = format!("{}\n", input::xgid_with_limit(state, cube_limit));
    if human == Side::X {
        return board + &id;
    }
    // The headers of `board::draw` are 44 characters wide: ` +`, twelve 3-character points, a
    // 5-character bar and `+`. O's point p is X's 25 - p.
    let header = |points: &[usize]| -> String {
        let mut s = String::from(" +");
        for (i, p) in points.iter().enumerate() {
            if i == 6 {
                s.push_str("-----");
            }
            s.push_str(&format!("{p:->2}-"));
        }
        s.push('+');
        s
    };
    let top: Vec<usize> = (1..=12).rev().collect();
    let bottom: Vec<usize> = (13..=24).collect();
    let mut headers = [header(&top), header(&bottom)].into_iter();
    let mut drawn = String::new();
    for line in board.lines() {
        match (line.starts_with(" +"), line.get(44..)) {
            (true, Some(rest)) => {
                if let Some(h) = headers.next() {
                    drawn.push_str(&h);
                    drawn.push_str(rest);
                } else {
                    drawn.push_str(line);
                }
            }
            _ => drawn.push_str(line),
        }
        drawn.push('\n');
    }
    drawn + &id
}

fn outcome_word(points: u8) -> &'static str {
    match points {
        1 => "a single game (1 point)",
        2 => "a gammon (2 points)",
        _ => "a backgammon (3 points)",
    }
}

/// Plays one game for `setting` (money with or without the cube, or a game of a match): the
/// person (`human`) reads moves from `input`, the engine plays the other side; dice from
/// `seed`. Returns how it ended. Every roll played and every cube action is added to `record`,
/// the person's as the left player's, the engine's as the right's, and the result; the
/// tutor's judgements of the decisions the person made (with `setting.tutor`) to `tally`.
///
/// # Errors
/// Only when writing to `out` or reading `input` fails.
#[allow(clippy::too_many_arguments)]
pub fn run_game<R: BufRead, W: Write>(
    mut input: R,
    mut out: W,
    engine: &mut dyn Player,
    seed: u64,
    human: Side,
    setting: Setting,
    record: &mut GameRecord,
    tally: &mut Tally,
) -> Result<GameEnd> {
    let cube = setting.cube;
    let mut dice = DiceRng::new(seed);
    let mut plays = PlayList::new();
    let mut search: Option<Search> = None;
    let mut ranked: Vec<RankedPlay> = Vec::new();
    let bot = !human;
    // The highest resignation of the engine's the person has rejected in this game.
    let mut rejected: Option<Resign> = None;
    engine.new_game();
    writeln!(
        out,
        "tavla play: you are {human} against {} ({}). Dice seed: {seed}{}.",
        engine.name(),
        match (setting.match_length, cube) {
            (0, true) => "a money game".to_string(),
            (0, false) => "a cubeless money game".to_string(),
            (n, _) => format!("a game of a {n}-point match"),
        },
        if setting.match_length == 0 {
            format!(" (replay with --seed {seed})")
        } else {
            String::new()
        }
    )?;
    writeln!(
        out,
        "You move from your 24-point to your 1-point and bear off from your home board \
         ({}). Type `help` for commands.",
        if human == Side::X {
            "bottom right"
        } else {
            "top right"
        }
    )?;
    // The questions between rolls (and a resignation at the move prompt), over this game's
    // input, output, engine, search and tutor.
    macro_rules! between {
        () => {
            Between {
                input: &mut input,
                out: &mut out,
                engine: &mut *engine,
                human,
                search: &mut search,
                cube,
                cube_limit: setting.cube_limit,
                tutor: setting.tutor,
                tally: &mut *tally,
            }
        };
    }
    // Where the game starts: the opening roll from the starting position (one die each, ties
    // rolled again), or `setting.start` with its dice, or before its roll without them, or
    // with its side on roll's double waiting for the answer.
    let mut doubled = false;
    let (mut state, mut pending) = if let Some(start) = setting.start {
        let mut state = setting.rules_of(start);
        let pending = match state.dice {
            Dice::Rolled(r) => Some(r),
            _ => None,
        };
        doubled = state.dice == Dice::DoubleOffered;
        record.push(usize::from(state.turn != human), set_up(&state, human));
        writeln!(
            out,
            "From {}: {} on roll{}.",
            input::xgid_with_limit(&state, setting.cube_limit),
            if state.turn == human {
                "you are".to_string()
            } else {
                format!("{} is", engine.name())
            },
            match pending {
                Some(r) => format!(" with {r}"),
                None if doubled => format!(", doubling to {}", 2 * state.cube.value()),
                None => ", before the roll".to_string(),
            }
        )?;
        state.dice = Dice::NotRolled;
        (state, pending)
    } else {
        loop {
            let (h, b) = (dice.die(), dice.die());
            writeln!(
                out,
                "Opening roll: you ({human}) {h}, {} ({bot}) {b}.",
                engine.name()
            )?;
            if h == b {
                writeln!(out, "A tie: rolling again.")?;
                continue;
            }
            let mut state = setting.rules_of(GameState::money(Position::START));
            state.turn = if h > b { human } else { bot };
            break (state, Some(Roll::from_values(h, b)));
        }
    };
    loop {
        let roll = match pending.take() {
            Some(roll) => roll,
            None => {
                // Before the roll: the engine may offer to resign, and the side on roll may
                // double.
                let mut ctx = between!();
                if state.turn == bot && !doubled {
                    if let Some(end) = ctx.engine_offers(&state, &mut rejected, record)? {
                        return Ok(end);
                    }
                }
                if cube && input::may_double_within(&state, setting.cube_limit) {
                    if let Some(end) = ctx.cube_turn(&mut state, record, doubled)? {
                        return Ok(end);
                    }
                }
                doubled = false;
                dice.roll()
            }
        };
        state.dice = Dice::Rolled(roll);
        let pos = state.position;
        pos.legal_plays(roll, &mut plays);
        let choice = if state.turn == human {
            write!(out, "\n{}", draw(&state, human, setting.cube_limit))?;
            if plays.is_pass() {
                writeln!(out, "You rolled {roll} and have no legal play: you pass.")?;
                0
            } else if plays.len() == 1 {
                writeln!(
                    out,
                    "You rolled {roll}; your only legal play, {}, is played for you.",
                    format_pretty(&pos, &plays.play(0))
                )?;
                0
            } else {
                let mut chosen = None;
                while chosen.is_none() {
                    write!(out, "Your move ({roll}): ")?;
                    out.flush()?;
                    let mut line = String::new();
                    if read_typed_line(&mut input, &mut line)? == 0 {
                        writeln!(out, "\nEnd of input: game abandoned.")?;
                        out.flush()?;
                        return Ok(GameEnd::EndOfInput);
                    }
                    match command(&line) {
                        Command::Empty => {}
                        Command::Help => writeln!(out, "{HELP}")?,
                        Command::Board => {
                            write!(out, "{}", draw(&state, human, setting.cube_limit))?
                        }
                        Command::Quit => {
                            writeln!(out, "Game abandoned.")?;
                            out.flush()?;
                            return Ok(GameEnd::Quit);
                        }
                        Command::Hint => {
                            let search = search.get_or_insert_with(engine_search);
                            // Ranked as the engine chooses its own plays.
                            let worth = PlayWorth::of(&state);
                            search.rank_plays_worth(&plays, 0, &mut ranked, worth);
                            // In a short bearoff with the cube turned, exact: said as `hint` says it.
                            let shown = || ranked.iter().take(HINT_PLAYS);
                            let bearoff = search.bearoff().map(|b| &**b);
                            let exact = shown().all(|r| {
                                let after = plays.positions()[r.index];
                                after.is_game_over() || worth.is_exact(&after, bearoff)
                            }) && shown()
                                .any(|r| !plays.positions()[r.index].is_game_over());
                            let what = match (exact, worth) {
                                (true, PlayWorth::Match { .. }) => {
                                    "match equity, exact: tavla's match tables of short bearoffs"
                                }
                                (true, _) => {
                                    "cubeful equity, exact: tavla's cubeful bearoff database"
                                }
                                (false, _) => worth.describe(),
                            };
                            writeln!(out, "The engine's best plays (0-ply, {what}):")?;
                            for (i, r) in shown().enumerate() {
                                let text = format_pretty(&pos, &plays.play(r.index));
                                let eq =
                                    search.play_value(worth, &plays.positions()[r.index], r.probs);
                                writeln!(out, "  {}. {text:<24}  eq {eq:+.3}", i + 1)?;
                            }
                        }
                        Command::Resign(Err(e)) => writeln!(out, "Cannot resign: {e}.")?,
                        Command::Resign(Ok(level)) => {
                            let mut ctx = between!();
                            if let Some(end) = ctx.person_resigns(&state, level, record)? {
                                return Ok(end);
                            }
                        }
                        Command::Word(word) => {
                            writeln!(out, "{}", misplaced_word(&word, &setting, &state, roll))?;
                        }
                        Command::Move(text) => match read_play(&text, &pos, roll) {
                            Err(message) => writeln!(
                                out,
                                "{message}. Type `help` for commands, `hint` for good plays."
                            )?,
                            Ok(play) => {
                                chosen = plays
                                    .plays()
                                    .position(|p| p.sorted_moves() == play.sorted_moves());
                                if chosen.is_none() {
                                    // Cannot happen: both readers return a play of the list.
                                    writeln!(out, "Illegal: {text}. Try again.")?;
                                }
                                if let (Some(i), Some(tutor)) = (chosen, setting.tutor) {
                                    let search = search.get_or_insert_with(engine_search);
                                    let review = search.review_play(
                                        &state,
                                        roll,
                                        &plays.positions()[i],
                                        TUTOR_PLY,
                                        cube,
                                    );
                                    let made_anyway = match review.filter(|r| r.loss >= tutor.warn)
                                    {
                                        None => true,
                                        Some(r) => {
                                            let best = (0..plays.len())
                                                .find(|&k| plays.positions()[k] == r.best)
                                                .map_or_else(String::new, |k| {
                                                    format_pretty(&pos, &plays.play(k))
                                                });
                                            let made = format_pretty(&pos, &plays.play(i));
                                            match tutor_asks(
                                                &mut input, &mut out, &made, r.loss, &best,
                                            )? {
                                                None => return Ok(GameEnd::EndOfInput),
                                                Some(false) => chosen = None,
                                                Some(true) => {}
                                            }
                                            chosen.is_some()
                                        }
                                    };
                                    if let Some(r) = review.filter(|_| made_anyway) {
                                        tally.add_play(r.loss);
                                    }
                                }
                            }
                        },
                    }
                }
                chosen.unwrap_or(0)
            }
        } else {
            let choice = if plays.len() == 1 {
                0
            } else {
                engine
                    .choose_play(&state, roll, &plays)
                    .min(plays.len() - 1)
            };
            if plays.is_pass() {
                writeln!(
                    out,
                    "\n{bot} ({}) rolls {roll} and cannot move.",
                    engine.name()
                )?;
            } else {
                writeln!(
                    out,
                    "\n{bot} ({}) rolls {roll} and plays {}",
                    engine.name(),
                    format_pretty(&pos, &plays.play(choice))
                )?;
            }
            choice
        };
        let column = usize::from(state.turn != human);
        record.push_play(column, &pos, roll, &plays.play(choice));
        let after = plays.positions()[choice];
        if let Some(outcome) = after.outcome() {
            let winner = state.turn;
            let mut end = state;
            end.position = after.flip();
            end.turn = !winner;
            end.dice = Dice::NotRolled;
            write!(out, "\n{}", draw(&end, human, setting.cube_limit))?;
            let value = state.cube.value();
            let points = won_points(&state, outcome.points);
            record.push(column, Action::Wins(points));
            let cubed = if points < u32::from(outcome.points) * value {
                ", counted single under the Jacoby rule: 1 point".to_string()
            } else if value > 1 {
                format!(", times the cube at {value}: {points} points")
            } else {
                String::new()
            };
            writeln!(
                out,
                "Game over: {} ({winner}) {}{cubed}.",
                who_wins(winner, human, engine),
                outcome_word(outcome.points)
            )?;
            return finish(&mut out, engine, winner, points);
        }
        state.position = after.flip();
        state.turn = !state.turn;
        state.dice = Dice::NotRolled;
    }
}

/// The points a game ending with `outcome_points` (1 single, 2 gammon, 3 backgammon) wins in
/// `state`: times the cube, and single under the Jacoby rule while the cube is in the middle.
pub(crate) fn won_points(state: &GameState, outcome_points: u8) -> u32 {
    Resign::of_outcome(outcome_points).points_in(state)
}

/// "You win" or "ENGINE wins".
fn who_wins(winner: Side, human: Side, engine: &dyn Player) -> String {
    if winner == human {
        "You win".to_string()
    } else {
        format!("{} wins", engine.name())
    }
}

/// Ends a finished game: warns of an engine failure and flushes `out`.
fn finish(
    out: &mut impl Write,
    engine: &mut dyn Player,
    winner: Side,
    points: u32,
) -> Result<GameEnd> {
    if let Some(e) = engine.take_failure() {
        writeln!(out, "Warning: the engine failed during the game: {e}")?;
    }
    out.flush()?;
    Ok(GameEnd::Finished { winner, points })
}

/// Depth of the engine's cube decision shown by `hint` before a roll or when doubled, and of
/// its analysis of a resignation.
const CUBE_HINT_PLY: u8 = 2;

/// What the questions between rolls (the cube, resignations) need besides the game.
struct Between<'a, R, W> {
    input: &'a mut R,
    out: &'a mut W,
    engine: &'a mut dyn Player,
    human: Side,
    search: &'a mut Option<Search>,
    /// The cube is in play.
    cube: bool,
    /// The game's cube limit ([`Setting::cube_limit`]).
    cube_limit: Option<u8>,
    /// The person's tutor.
    tutor: Option<Tutor>,
    /// The tutor's judgements of the decisions made.
    tally: &'a mut Tally,
}

/// What the person typed at a question: one of its answers (by index), or a command handled.
enum Reply {
    Answer(usize),
    Resign(Resign),
    Ended(GameEnd),
    Again,
}

/// What `hint` shows at a question.
#[derive(Clone, Copy)]
enum HintFor {
    /// The engine's cube decision for the side on roll.
    Cube,
    /// The engine's view of a resignation offered by the side on roll.
    Resignation(Resign),
}

impl<R: BufRead, W: Write> Between<'_, R, W> {
    fn shared_search(&mut self) -> &mut Search {
        self.search.get_or_insert_with(engine_search)
    }

    /// The cube decision of the side on roll of `state` (dice not rolled), unless it has
    /// `doubled` already, and the answer to a double. `Some` when the game ended: a double
    /// passed, a resignation accepted, or the person quit.
    fn cube_turn(
        &mut self,
        state: &mut GameState,
        record: &mut GameRecord,
        doubled: bool,
    ) -> Result<Option<GameEnd>> {
        let (human, doubler) = (self.human, state.turn);
        let value = state.cube.value();
        // A beaver redoubles at once: only while the cube stays within its highest value.
        let may_beaver = input::may_beaver_within(state, self.cube_limit);
        let doubles = if doubled {
            true
        } else if doubler == human {
            write!(self.out, "\n{}", draw(state, human, self.cube_limit))?;
            loop {
                // The person's own cube is redoubled (either word does).
                let verb = if state.cube.owner == CubeOwner::Side(human) {
                    "redouble"
                } else {
                    "double"
                };
                let prompt = format!("Cube at {value}: Enter to roll, `{verb}` to {verb}: ");
                let answers: [&[&str]; 2] = [&["roll", "r", ""], &["double", "d", "redouble"]];
                match self.ask(&prompt, &answers, state, HintFor::Cube)? {
                    Reply::Answer(k) => match self.tutor_cube(state, CubeChoice::Double(k == 1))? {
                        None => return Ok(Some(GameEnd::EndOfInput)),
                        Some(true) => break k == 1,
                        Some(false) => {}
                    },
                    Reply::Resign(level) => {
                        if let Some(end) = self.person_resigns(state, level, record)? {
                            return Ok(Some(end));
                        }
                    }
                    Reply::Ended(end) => return Ok(Some(end)),
                    Reply::Again => {}
                }
            }
        } else {
            self.engine.wants_to_double(state)
        };
        if !doubles {
            return Ok(None);
        }
        let doubled = value * 2;
        let column = |side: Side| usize::from(side != human);
        record.push(column(doubler), Action::Double(doubled));
        let taker = !doubler;
        let asked = state.double_to_answer();
        let response = if doubler == human {
            let takes = self.engine.accepts_double(&asked);
            let beavers = takes && may_beaver && self.engine.beavers(&asked);
            let (response, word) = match (takes, beavers) {
                (true, true) => (
                    CubeResponse::Beaver,
                    "takes and beavers: the cube is redoubled at once",
                ),
                (true, false) => (CubeResponse::Take, "takes"),
                (false, _) => (CubeResponse::Pass, "passes"),
            };
            writeln!(
                self.out,
                "You double to {doubled}; {} {word}.",
                self.engine.name()
            )?;
            response
        } else {
            writeln!(
                self.out,
                "\n{} ({doubler}) doubles to {doubled}.",
                self.engine.name()
            )?;
            let mut offered = *state;
            offered.dice = Dice::DoubleOffered;
            // Drawn with the double offered: its XGID takes the game up at this answer.
            write!(self.out, "{}", draw(&offered, human, self.cube_limit))?;
            let answers: &[&[&str]] = if may_beaver {
                &[&["take", "t"], &["pass", "p", "drop"], &["beaver"]]
            } else {
                &[&["take", "t"], &["pass", "p", "drop"]]
            };
            let prompt = if may_beaver {
                "Take, pass or beaver? "
            } else {
                "Take or pass? "
            };
            loop {
                match self.ask(prompt, answers, &offered, HintFor::Cube)? {
                    Reply::Answer(k) => {
                        let response =
                            [CubeResponse::Take, CubeResponse::Pass, CubeResponse::Beaver][k];
                        match self.tutor_cube(state, CubeChoice::Answer(response))? {
                            None => return Ok(Some(GameEnd::EndOfInput)),
                            Some(true) => break response,
                            Some(false) => {}
                        }
                    }
                    Reply::Resign(_) => writeln!(
                        self.out,
                        "Answer the double first: passing loses {value} point{}.",
                        if value == 1 { "" } else { "s" }
                    )?,
                    Reply::Ended(end) => return Ok(Some(end)),
                    Reply::Again => {}
                }
            }
        };
        if response == CubeResponse::Pass {
            record.push(column(taker), Action::Drop);
            record.push(column(doubler), Action::Wins(value));
            let s = if value == 1 { "" } else { "s" };
            writeln!(
                self.out,
                "Game over: {} ({doubler}) {value} point{s}: the double was passed.",
                who_wins(doubler, human, self.engine)
            )?;
            return finish(self.out, self.engine, doubler, value).map(Some);
        }
        if response == CubeResponse::Beaver {
            // The beaver: the taker redoubles at once and keeps the cube; the doubler must
            // accept it (gnubg records it as a double answered by a take).
            record.push(column(taker), Action::Beaver(doubled * 2));
            record.push(column(doubler), Action::Take);
            if taker == human {
                writeln!(
                    self.out,
                    "You beaver: the cube is on {}, yours.",
                    doubled * 2
                )?;
            }
        } else {
            record.push(column(taker), Action::Take);
        }
        state.answer_double(response);
        Ok(None)
    }

    /// With the tutor, judges the person's cube `choice` by the cube analysis of the doubler,
    /// on roll in `state` before it rolls, and asks before making one that loses at least the
    /// tutor's warning: `Some(true)` to make it, `Some(false)` to choose again, `None` at the
    /// end of the input. Without the tutor, `Some(true)`.
    fn tutor_cube(&mut self, state: &GameState, choice: CubeChoice) -> Result<Option<bool>> {
        let Some(tutor) = self.tutor else {
            return Ok(Some(true));
        };
        let Some(a) = self.shared_search().cube_decision(state, TUTOR_PLY) else {
            return Ok(Some(true));
        };
        let may_beaver = input::may_beaver_within(state, self.cube_limit);
        let redouble = matches!(state.cube.owner, CubeOwner::Side(_));
        let (review, made, best) = match choice {
            CubeChoice::Double(doubled) => (
                review_double(&a, doubled, may_beaver),
                match (doubled, redouble) {
                    (true, true) => "Redouble",
                    (true, false) => "Double",
                    (false, true) => "No redouble",
                    (false, false) => "No double",
                },
                a.action.describe(redouble),
            ),
            CubeChoice::Answer(response) => (
                review_answer(&a, response, may_beaver),
                match response {
                    CubeResponse::Take => "Take",
                    CubeResponse::Pass => "Pass",
                    CubeResponse::Beaver => "Beaver",
                },
                a.answer_words(may_beaver),
            ),
        };
        let make = if review.loss < tutor.warn {
            Some(true)
        } else {
            tutor_asks(&mut *self.input, &mut *self.out, made, review.loss, best)?
        };
        if make == Some(true) {
            self.tally.add_cube(review.loss, review.counted);
        }
        Ok(make)
    }

    /// The engine, on roll in `state` before it rolls, may offer to resign; the person
    /// answers. `rejected` is the highest offer the person has rejected in this game: the
    /// engine offers only more than that. `Some` when the game ended.
    fn engine_offers(
        &mut self,
        state: &GameState,
        rejected: &mut Option<Resign>,
        record: &mut GameRecord,
    ) -> Result<Option<GameEnd>> {
        let Some(level) = self.engine.resigns(state, self.cube) else {
            return Ok(None);
        };
        if rejected.is_some_and(|r| level <= r) {
            return Ok(None);
        }
        let human = self.human;
        let points = level.points_in(state);
        let s = if points == 1 { "" } else { "s" };
        write!(self.out, "\n{}", draw(state, human, self.cube_limit))?;
        writeln!(
            self.out,
            "{} ({}) offers to resign {} ({points} point{s}).",
            self.engine.name(),
            state.turn,
            level.describe()
        )?;
        let answers: [&[&str]; 2] = [&["accept", "a", "yes", "y"], &["reject", "r", "no", "n"]];
        loop {
            match self.ask(
                "Accept or reject? ",
                &answers,
                state,
                HintFor::Resignation(level),
            )? {
                Reply::Answer(0) => {
                    record.push(PERSON, Action::Wins(points));
                    writeln!(self.out, "Game over: you accept and win {points} point{s}.")?;
                    return finish(self.out, self.engine, human, points).map(Some);
                }
                Reply::Answer(_) => {
                    *rejected = Some(level);
                    writeln!(self.out, "You reject the offer: play on.")?;
                    return Ok(None);
                }
                Reply::Resign(_) => {
                    writeln!(
                        self.out,
                        "Answer the engine's offer first: accept or reject."
                    )?;
                }
                Reply::Ended(end) => return Ok(Some(end)),
                Reply::Again => {}
            }
        }
    }

    /// The person, on roll in `state` (dice rolled or not), offers to resign `level`; the
    /// engine accepts or rejects. `Some` when the game ended.
    fn person_resigns(
        &mut self,
        state: &GameState,
        level: Resign,
        record: &mut GameRecord,
    ) -> Result<Option<GameEnd>> {
        let points = level.points_in(state);
        let s = if points == 1 { "" } else { "s" };
        let bot = !self.human;
        if self.engine.accepts_resignation(state, self.cube, level) {
            record.push(ENGINE, Action::Wins(points));
            writeln!(
                self.out,
                "You resign {}; {} accepts. Game over: {} ({bot}) wins {points} point{s}.",
                level.describe(),
                self.engine.name(),
                self.engine.name()
            )?;
            return finish(self.out, self.engine, bot, points).map(Some);
        }
        writeln!(
            self.out,
            "{} rejects your offer to resign {} ({points} point{s}): play on.",
            self.engine.name(),
            level.describe()
        )?;
        Ok(None)
    }

    /// Asks `prompt` and reads a line: one of the words of `answers` (its index is returned),
    /// or a command (`hint` shows the engine's view of `state`, seen from the side on roll,
    /// as `hint_for` says; `resign` is returned for the caller to handle).
    fn ask(
        &mut self,
        prompt: &str,
        answers: &[&[&str]],
        state: &GameState,
        hint_for: HintFor,
    ) -> Result<Reply> {
        write!(self.out, "{prompt}")?;
        self.out.flush()?;
        let mut line = String::new();
        if read_typed_line(&mut self.input, &mut line)? == 0 {
            writeln!(self.out, "\nEnd of input: game abandoned.")?;
            self.out.flush()?;
            return Ok(Reply::Ended(GameEnd::EndOfInput));
        }
        let word = line.trim().to_ascii_lowercase();
        if let Some(k) = answers.iter().position(|a| a.contains(&word.as_str())) {
            return Ok(Reply::Answer(k));
        }
        match command(&line) {
            Command::Quit => {
                writeln!(self.out, "Game abandoned.")?;
                self.out.flush()?;
                return Ok(Reply::Ended(GameEnd::Quit));
            }
            Command::Help => writeln!(self.out, "{HELP}")?,
            Command::Board => write!(self.out, "{}", draw(state, self.human, self.cube_limit))?,
            Command::Hint => match hint_for {
                HintFor::Cube => self.cube_hint(state)?,
                HintFor::Resignation(level) => self.resignation_hint(state, level)?,
            },
            Command::Resign(Ok(level)) => return Ok(Reply::Resign(level)),
            Command::Resign(Err(e)) => writeln!(self.out, "Cannot resign: {e}.")?,
            Command::Move(_) | Command::Word(_) | Command::Empty => {
                let words: Vec<String> = answers.iter().map(|a| format!("`{}`", a[0])).collect();
                writeln!(
                    self.out,
                    "Cannot read `{}` here: {}; type `help` for commands.",
                    line.trim(),
                    words.join(" or ")
                )?;
            }
        }
        Ok(Reply::Again)
    }

    /// The engine's cube decision for the side on roll of `state`, and when a double is offered,
    /// whether the engine would take it.
    fn cube_hint(&mut self, state: &GameState) -> Result<()> {
        let holder = CubeHolder::of(state);
        let Some(a) = self.shared_search().cube_decision(state, CUBE_HINT_PLY) else {
            writeln!(self.out, "No cube decision here.")?;
            return Ok(());
        };
        // As `tavla eval` says it: a short bearoff.
        let exact = self.shared_search().has_exact_cube_in(state);
        writeln!(
            self.out,
            "The engine's cube analysis ({}, {} for {}):",
            if exact && state.match_length > 0 {
                "exact: tavla's match tables of short bearoffs".to_string()
            } else if exact {
                "exact: tavla's cubeful bearoff database".to_string()
            } else {
                format!("{CUBE_HINT_PLY}-ply")
            },
            match (state.match_length, state.jacoby) {
                (0, false) => "cubeful, equity per unit of the cube",
                (0, true) => "cubeful under the Jacoby rule, equity per unit of the cube",
                _ => "normalised match equity",
            },
            state.turn
        )?;
        let beavers = state.is_money() && state.beavers && holder != CubeHolder::Opponent;
        if state.dice == Dice::DoubleOffered {
            let answer = match (a.opponent_takes(), beavers && a.should_beaver()) {
                (true, true) => "beaver",
                (true, false) => "take",
                (false, _) => "pass",
            };
            writeln!(self.out, "  the engine would {answer}")?;
        }
        crate::nn_cmd::write_cube_rows(self.out, &a, holder == CubeHolder::OnRoll, beavers)?;
        Ok(())
    }

    /// The engine's view, for the person, of the resignation `level` offered by the side on
    /// roll of `state`: what playing on is worth, against what the offer gives.
    fn resignation_hint(&mut self, state: &GameState, level: Resign) -> Result<()> {
        let cube = self.cube;
        let w = self
            .shared_search()
            .resignation_worth(state, cube, CUBE_HINT_PLY);
        let offered = w.resigning[level as usize - 1];
        if state.match_length == 0 {
            writeln!(
                self.out,
                "The engine's analysis ({CUBE_HINT_PLY}-ply): playing on is worth {:+.3} points \
                 to you, the offer {:+.3}: {}.",
                -w.playing_on,
                -offered,
                if w.accepts(level) { "accept" } else { "reject" }
            )?;
        } else {
            writeln!(
                self.out,
                "The engine's analysis ({CUBE_HINT_PLY}-ply): playing on gives you {:.1}% of \
                 the match, the offer {:.1}%: {}.",
                100.0 * (1.0 - w.playing_on),
                100.0 * (1.0 - offered),
                if w.accepts(level) { "accept" } else { "reject" }
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::io::{BufReader, Read};
    use std::rc::Rc;

    use serde_json::Value;
    use tavla_player::RandomPlayer;

    use super::*;

    fn game(input: &str, seed: u64, human: Side) -> (GameEnd, String) {
        let mut out = Vec::new();
        let end = run_game(
            input.as_bytes(),
            &mut out,
            &mut RandomPlayer::new(seed),
            seed,
            human,
            Setting::money(false),
            &mut GameRecord::new(1, [0, 0]),
            &mut Tally::default(),
        )
        .unwrap();
        (end, String::from_utf8(out).unwrap())
    }

    /// `game`, with the cube or not and the tutor warning from a loss of 0.04.
    /// `game`, with the tutor's totals (`tavla play --tutor`'s summary) as JSON last.
    fn tutored(input: &str, seed: u64, cube: bool) -> (GameEnd, String, GameRecord, Value) {
        let mut out = Vec::new();
        let mut record = GameRecord::new(1, [0, 0]);
        let mut tally = Tally::default();
        let end = run_game(
            input.as_bytes(),
            &mut out,
            &mut RandomPlayer::new(seed),
            seed,
            Side::X,
            Setting {
                tutor: Some(Tutor { warn: 0.04 }),
                ..Setting::money(cube)
            },
            &mut record,
            &mut tally,
        )
        .unwrap();
        (
            end,
            String::from_utf8(out).unwrap(),
            record,
            tally.json(2, None),
        )
    }

    #[test]
    fn the_tutor_holds_back_an_error_until_it_is_made_anyway() {
        // Seed 1: the person opens with 4-3; 6/3 6/2 leaves two blots and breaks nothing
        // worth it: the tutor asks, and `n` (or anything but `y`) asks for the move again.
        let (end, text, record, tally) = tutored("6/2 6/3\nn\n", 1, false);
        assert_eq!(end, GameEnd::EndOfInput, "{text}");
        assert_eq!(
            text.matches("The tutor: 6/3 6/2 loses ").count(),
            1,
            "{text}"
        );
        assert!(text.contains("the engine's choice: "), "{text}");
        assert_eq!(text.matches("Your move (43): ").count(), 2, "{text}");
        // Nothing was played, and the tutor counts only what is made.
        assert!(record.replay().unwrap().rolls.is_empty(), "{text}");
        assert_eq!(tally["plays"], 0, "{tally}");
        // `y` makes it, and it is counted as the error it is.
        let (_, text, _, tally) = tutored("6/2 6/3\ny\n", 1, false);
        assert_eq!(text.matches("Your move (43): ").count(), 1, "{text}");
        assert!(text.contains("rolls"), "{text}");
        let errors = |t: &Value| {
            ["checker_doubtful", "checker_bad", "checker_very_bad"]
                .iter()
                .map(|k| t[k].as_u64().unwrap())
                .sum::<u64>()
        };
        assert!(tally["plays"].as_u64().unwrap() >= 1, "{tally}");
        assert_eq!(errors(&tally), 1, "{tally}");
        assert!(tally["play_loss"].as_f64().unwrap() >= 0.04, "{tally}");
        // A good play passes without a word.
        let (_, text, _, tally) = tutored("13/10 13/9\n", 1, false);
        assert!(!text.contains("The tutor"), "{text}");
        assert_eq!(errors(&tally), 0, "{tally}");
        // Seed 2, with the cube: the person may double at once, which the tutor calls wrong.
        let (_, text, _, tally) = tutored("double\nn\n\n", 2, true);
        assert!(
            text.contains("The tutor: Double loses ")
                && text.contains("the engine's choice: No double, take."),
            "{text}"
        );
        assert!(!text.contains("You double"), "{text}");
        assert_eq!(tally["cube_errors"], 0, "{tally}");
        let (_, text, _, tally) = tutored("double\ny\n", 2, true);
        assert!(text.contains("You double to 2"), "{text}");
        assert_eq!(tally["cube_decisions"], 1, "{tally}");
        assert_eq!(tally["cube_errors"], 1, "{tally}");
        // Seed 1 again, against an engine that doubles at once: passing is the error.
        let mut out = Vec::new();
        let end = run_game(
            "13/10 13/9\npass\nn\n".as_bytes(),
            &mut out,
            &mut doubler(RandomPlayer::new(1)),
            1,
            Side::X,
            Setting {
                tutor: Some(Tutor { warn: 0.04 }),
                ..Setting::money(true)
            },
            &mut GameRecord::new(1, [0, 0]),
            &mut Tally::default(),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(end, GameEnd::EndOfInput, "{text}");
        assert!(
            text.contains("The tutor: Pass loses ") && text.contains("the engine's choice: Take."),
            "{text}"
        );
        assert_eq!(text.matches("Take or pass? ").count(), 2, "{text}");
    }

    #[test]
    fn the_jacoby_rule_counts_gammons_single_until_the_cube_is_turned() {
        let mut state = GameState::money(Position::START);
        state.jacoby = true;
        assert_eq!(won_points(&state, 2), 1);
        assert_eq!(won_points(&state, 3), 1);
        state.cube.log2 = 1;
        state.cube.owner = CubeOwner::Side(Side::X);
        assert_eq!(won_points(&state, 2), 4);
        state.jacoby = false;
        state.cube = tavla_core::Cube::default();
        assert_eq!(won_points(&state, 3), 3);
    }

    #[test]
    fn shows_the_board_rejects_illegal_moves_hints_and_ends_at_eof() {
        // A seed where the person (X) opens, with several legal plays.
        let seed = (0..100)
            .find(|&s| {
                let (_, text) = game("", s, Side::X);
                text.contains("Your move (")
                    && !text.contains("O (random) rolls")
                    && !text.contains("only legal play")
            })
            .unwrap();
        let (end, text) = game("hint\n24/1\nnonsense!\nboard\nhelp\n", seed, Side::X);
        assert_eq!(end, GameEnd::EndOfInput);
        assert!(text.contains("Dice seed:"), "{text}");
        assert!(text.contains("X: 167 pips"), "{text}");
        assert!(text.contains("1. "), "{text}");
        assert!(text.contains("eq "), "{text}");
        assert!(text.contains("Illegal: "), "{text}");
        assert!(text.contains("Cannot read `nonsense!`"), "{text}");
        assert!(text.contains("Commands:"), "{text}");
        assert!(text.ends_with("End of input: game abandoned.\n"), "{text}");
        // The person is asked again after each bad line and each command.
        assert_eq!(text.matches("Your move (").count(), 6, "{text}");
    }

    #[test]
    fn quit_ends_the_game() {
        let (end, text) = game("quit\n", 5, Side::O);
        // The engine may have won before the person is asked: not with one move.
        assert_eq!(end, GameEnd::Quit, "{text}");
        assert!(text.contains("Game abandoned."));
    }

    #[test]
    fn o_sees_its_own_point_numbers() {
        let mut state = GameState::money(Position::START);
        state.turn = Side::O;
        let x = draw(&state, Side::X, None);
        let o = draw(&state, Side::O, None);
        assert!(x.starts_with(" +13-14-"), "{x}");
        assert!(o.starts_with(" +12-11-"), "{o}");
        assert_eq!(x.lines().count(), o.lines().count());
        assert!(o.contains(" +13-14-15-16-17-18------19-20-21-22-23-24-+   X: 167 pips"));
    }

    /// Output shared between the game and the scripted player reading it.
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A person who asks for a hint at each move prompt, then types the first play it shows;
    /// at a cube prompt types `cube` (an empty string rolls), when doubled `answer`.
    struct HintFollower {
        out: Shared,
        asked: bool,
        cube: &'static str,
        answer: &'static str,
    }

    impl HintFollower {
        fn new(out: Shared) -> HintFollower {
            HintFollower {
                out,
                asked: false,
                cube: "",
                answer: "take",
            }
        }
    }

    impl Read for HintFollower {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let text = String::from_utf8(self.out.0.borrow().clone()).unwrap();
            let prompt = text.lines().last().unwrap_or("");
            let cube = if prompt.starts_with("Cube at") {
                Some(self.cube)
            } else if prompt.starts_with("Take or pass?") || prompt.starts_with("Take, pass") {
                Some(self.answer)
            } else {
                None
            };
            let line = if let Some(word) = cube {
                format!("{word}\n")
            } else if self.asked {
                let best = text
                    .lines()
                    .rev()
                    .find_map(|l| l.trim().strip_prefix("1. "))
                    .unwrap();
                format!("{}\n", best.split("  ").next().unwrap())
            } else {
                "hint\n".to_string()
            };
            if cube.is_none() {
                self.asked = !self.asked;
            }
            buf[..line.len()].copy_from_slice(line.as_bytes());
            Ok(line.len())
        }
    }

    #[test]
    fn a_whole_game_against_random_is_played_to_the_end() {
        for (seed, human) in [(1, Side::X), (2, Side::O)] {
            let shared = Shared::default();
            let input = BufReader::with_capacity(64, HintFollower::new(shared.clone()));
            let mut game = GameRecord::new(1, [0, 0]);
            let end = run_game(
                input,
                shared.clone(),
                &mut RandomPlayer::new(seed),
                seed,
                human,
                Setting::money(false),
                &mut game,
                &mut Tally::default(),
            )
            .unwrap();
            let text = String::from_utf8(shared.0.borrow().clone()).unwrap();
            // The record, written and read back, replays to the same result, the person left.
            let mut record = MatchRecord::new(0, ["player".into(), "random".into()]);
            record.games.push(game);
            let back = MatchRecord::parse(&record.to_mat().unwrap()).unwrap();
            let replay = back.games[0].replay().unwrap();
            let engine_rolls = replay.rolls.iter().filter(|r| r.player == 1).count();
            assert_eq!(
                engine_rolls,
                text.matches("(random) rolls").count(),
                "{text}"
            );
            let person_rolls = replay.rolls.len() - engine_rolls;
            assert!(person_rolls + 1 >= engine_rolls && engine_rolls + 1 >= person_rolls);
            match end {
                GameEnd::Finished { winner, points } => {
                    assert_eq!(replay.result, Some((0, points)), "{text}");
                    assert!((1..=3).contains(&points));
                    // The engine's best play beats a random player (almost always).
                    assert_eq!(winner, human, "{text}");
                    assert!(text.contains("Game over: You win"), "{text}");
                }
                other => panic!("{other:?}\n{text}"),
            }
            assert!(!text.contains("Illegal"), "{text}");
            assert!(
                text.contains(&format!("{} (random) rolls", !human)),
                "{text}"
            );
        }
    }

    /// A random mover with fixed answers between rolls: the `Doubler` doubles whenever it may
    /// and passes every double; the `Quitter` offers to resign a single game whenever it is
    /// asked and beavers every double it takes.
    #[derive(Clone, Copy, PartialEq)]
    enum Habit {
        Doubler,
        Quitter,
    }

    struct Scripted(RandomPlayer, Habit);

    fn doubler(random: RandomPlayer) -> Scripted {
        Scripted(random, Habit::Doubler)
    }

    fn quitter(random: RandomPlayer) -> Scripted {
        Scripted(random, Habit::Quitter)
    }

    impl Player for Scripted {
        fn name(&self) -> String {
            match self.1 {
                Habit::Doubler => "doubler".into(),
                Habit::Quitter => "quitter".into(),
            }
        }
        fn choose_play(&mut self, state: &GameState, roll: Roll, plays: &PlayList) -> usize {
            self.0.choose_play(state, roll, plays)
        }
        fn wants_to_double(&mut self, _state: &GameState) -> bool {
            self.1 == Habit::Doubler
        }
        fn accepts_double(&mut self, _state: &GameState) -> bool {
            self.1 != Habit::Doubler
        }
        fn beavers(&mut self, _state: &GameState) -> bool {
            self.1 == Habit::Quitter
        }
        fn resigns(&mut self, _state: &GameState, _cube: bool) -> Option<Resign> {
            (self.1 == Habit::Quitter).then_some(Resign::Single)
        }
    }

    /// A game with the cube against a `Doubler`; the person doubles with `cube` ("" never)
    /// and answers doubles with `answer`. The end, the text and the record's replayed result.
    fn cube_game(
        seed: u64,
        cube: &'static str,
        answer: &'static str,
    ) -> (GameEnd, String, Option<(usize, u32)>) {
        let shared = Shared::default();
        let mut person = HintFollower::new(shared.clone());
        person.cube = cube;
        person.answer = answer;
        let mut game = GameRecord::new(1, [0, 0]);
        let end = run_game(
            BufReader::with_capacity(64, person),
            shared.clone(),
            &mut doubler(RandomPlayer::new(seed)),
            seed,
            Side::X,
            Setting::money(true),
            &mut game,
            &mut Tally::default(),
        )
        .unwrap();
        let text = String::from_utf8(shared.0.borrow().clone()).unwrap();
        let mut record = MatchRecord::new(0, ["player".into(), "doubler".into()]);
        record.games.push(game);
        let back = MatchRecord::parse(&record.to_mat().unwrap()).unwrap();
        (end, text, back.games[0].replay().unwrap().result)
    }

    #[test]
    fn the_cube_is_offered_taken_and_passed() {
        // The person takes the engine's double, then owns the cube (the engine cannot double
        // again) and wins with the cube on 2.
        let (end, text, result) = cube_game(3, "", "take");
        let GameEnd::Finished { winner, points } = end else {
            panic!("{end:?}\n{text}")
        };
        assert_eq!(winner, Side::X, "{text}");
        assert!(points % 2 == 0 && (2..=6).contains(&points), "{text}");
        assert_eq!(result, Some((0, points)), "{text}");
        assert_eq!(text.matches("doubles to 2").count(), 1, "{text}");
        assert!(!text.contains("doubles to 4"), "{text}");
        assert!(text.contains("Cube at 2: Enter to roll"), "{text}");
        assert!(text.contains("times the cube at 2"), "{text}");
        // The hints rank as the engine plays: cubeless before the double, cubeful after.
        let doubled = text.find("doubles to 2").unwrap();
        let (before, after) = text.split_at(doubled);
        assert!(before.contains("(0-ply, cubeless equity)"), "{text}");
        assert!(!before.contains("cubeful equity"), "{text}");
        assert!(after.contains("(0-ply, cubeful equity)"), "{text}");
        // The person passes: the engine wins one point.
        let (end, text, result) = cube_game(3, "", "pass");
        assert_eq!(
            end,
            GameEnd::Finished {
                winner: Side::O,
                points: 1
            },
            "{text}"
        );
        assert_eq!(result, Some((1, 1)), "{text}");
        assert!(text.contains("the double was passed"), "{text}");
        // The person doubles at the first chance: the engine passes.
        let (end, text, result) = cube_game(3, "double", "take");
        assert_eq!(
            end,
            GameEnd::Finished {
                winner: Side::X,
                points: 1
            },
            "{text}"
        );
        assert_eq!(result, Some((0, 1)), "{text}");
        assert!(text.contains("You double to 2; doubler passes."), "{text}");
    }

    #[test]
    fn cube_prompts_take_commands_and_reject_other_words() {
        // A seed where the engine opens: the person's first prompt is the cube's.
        let seed = (0..100)
            .find(|&s| {
                let (_, text) = game("", s, Side::X);
                let engine = text.find("O (random) rolls");
                engine.is_some() && engine < text.find("Your move (")
            })
            .unwrap();
        let mut out = Vec::new();
        let end = run_game(
            "hint\nboard\n24/20\nquit\n".as_bytes(),
            &mut out,
            &mut RandomPlayer::new(seed),
            seed,
            Side::X,
            Setting::money(true),
            &mut GameRecord::new(1, [0, 0]),
            &mut Tally::default(),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(end, GameEnd::Quit, "{text}");
        assert!(
            text.contains("The engine's cube analysis (2-ply, cubeful"),
            "{text}"
        );
        assert!(
            text.contains("proper cube action: No double, take"),
            "{text}"
        );
        assert!(
            text.contains("Cannot read `24/20` here: `roll` or `double`"),
            "{text}"
        );
        assert_eq!(
            text.matches("Cube at 1: Enter to roll").count(),
            4,
            "{text}"
        );
    }

    /// A `length`-point match (from `start`, if given) of the person, a hint follower who
    /// types `cube` at its cube prompts (`""` rolls) and takes every double, against a random
    /// mover that doubles whenever it may and passes every double, with dice seed `seed`: the
    /// final score, the text and the record.
    fn against_doubler(
        seed: u64,
        cube: &'static str,
        length: u32,
        start: Option<GameState>,
    ) -> (BySide<u32>, String, MatchRecord) {
        let shared = Shared::default();
        let mut person = HintFollower::new(shared.clone());
        person.cube = cube;
        let mut record = MatchRecord::new(length, ["player".into(), "doubler".into()]);
        let end = run_match(
            &mut BufReader::with_capacity(64, person),
            &mut shared.clone(),
            &mut doubler(RandomPlayer::new(seed)),
            seed,
            Side::X,
            Setting {
                match_length: length,
                start,
                ..Setting::money(true)
            },
            &mut record,
            &mut Tally::default(),
        )
        .unwrap();
        let text = String::from_utf8(shared.0.borrow().clone()).unwrap();
        let score = end.unwrap_or_else(|| panic!("{text}"));
        (score, text, record)
    }

    #[test]
    fn a_match_is_played_to_its_length_with_the_crawford_game() {
        // The person (a hint follower, who doubles whenever asked and takes every double)
        // against a random mover that doubles whenever it may and passes every double:
        // 3-point matches.
        let mut crawford_games = 0;
        for seed in 0..8 {
            let (score, text, record) = against_doubler(seed, "double", 3, None);
            assert!(score.x >= 3 || score.o >= 3, "{text}");
            assert!(text.contains("Match over: "), "{text}");
            // The record reads back, game by game, with the running score.
            let back = MatchRecord::parse(&record.to_mat().unwrap()).unwrap();
            assert_eq!(back.length, 3);
            assert_eq!(back.games.len(), record.games.len());
            let mut running = [0u32, 0];
            for g in &back.games {
                assert_eq!(g.scores, running, "{text}");
                let (winner, points) = g.replay().unwrap().result.unwrap();
                running[winner] += points;
            }
            assert_eq!(running, [score.x, score.o], "{text}");
            // Once a side reached 2, the next game was the Crawford game, with no double.
            if let Some(k) = back.games.iter().position(|g| g.scores.contains(&2)) {
                crawford_games += 1;
                let start = text.find(&format!("Game {} of a", k + 1)).unwrap();
                let crawford = &text[start..];
                let crawford = &crawford[..crawford.find("Game over").unwrap_or(crawford.len())];
                assert!(crawford.contains("the Crawford game"), "{text}");
                assert!(!crawford.contains("doubles to"), "{crawford}");
                assert!(!crawford.contains("Cube at"), "{crawford}");
            }
        }
        // Some of the matches had a Crawford game (the others jumped past 2).
        assert!(crawford_games > 0);
    }

    #[test]
    fn a_match_plays_on_from_a_position_with_its_score_and_crawford_rule() {
        // A 5-point match at 3-4 to the person (X), the Crawford game: the person, on roll
        // with two checkers left on the 1-point against two of the engine's and none of its
        // own off, wins it by a single game. Then 4-4, double match point: the cube is dead for
        // both, so the engine (a random mover that doubles whenever it may) does not double.
        let start = input::position("XGID=-B-----------------b------:0:0:1:00:3:4:1:5:10").unwrap();
        assert!(start.crawford && start.dice == Dice::NotRolled);
        let mut second_games = 0;
        for seed in 0..4 {
            let (score, text, record) = against_doubler(seed, "", 5, Some(start));
            assert!(score.x >= 5 || score.o >= 5, "{text}");
            assert!(
                text.contains("Game 1 of a 5-point match. Score: you 3, "),
                "{text}"
            );
            assert!(
                text.contains(": you are on roll, before the roll."),
                "{text}"
            );
            // The Crawford game has no double; a game after it may.
            let first = &text[..text.find("Game over").unwrap()];
            assert!(first.contains("the Crawford game"), "{first}");
            assert!(!first.contains("Cube at"), "{first}");
            // The record starts with the set-up, replays through SGF, and sums to the score.
            let first_game = &record.games[0];
            assert_eq!(first_game.scores, [3, 4]);
            assert!(matches!(first_game.turns[0].action, Action::SetUp(_)));
            assert!(record.to_mat().is_err(), "a set-up needs SGF");
            let back = MatchRecord::parse_sgf(&record.to_sgf()).unwrap();
            let mut running = [3u32, 4];
            for (k, g) in back.games.iter().enumerate() {
                assert_eq!(g.scores, running, "{text}");
                let replay = g.replay().unwrap();
                // The first game goes on from its set-up; the next opens as usual.
                assert_eq!(replay.rolls[0].opening, k > 0, "{text}");
                let (winner, points) = replay.result.unwrap();
                running[winner] += points;
            }
            assert_eq!(running, [score.x, score.o], "{text}");
            // The game after the Crawford game (at 4-4) is not one, but the cube is dead.
            if back.games.len() > 1 {
                let second = &text[text.find("Game 2 of a").unwrap()..];
                assert!(!second.contains("the Crawford game"), "{second}");
                assert!(!second.contains("doubles"), "{second}");
                second_games += 1;
            }
        }
        assert_eq!(second_games, 4);
    }

    #[test]
    fn a_money_game_plays_on_from_a_position_with_its_dice_and_cube() {
        // A bearoff, the person (X) on roll with 6-5 and the cube at 2 on their side: the
        // roll is played first, then the game goes on from the seed's dice.
        let start = input::position("XGID=-BBBBAA--------------bbbb-:1:1:1:65:0:0:0:0:10").unwrap();
        let shared = Shared::default();
        let person = HintFollower::new(shared.clone());
        let mut game = GameRecord::new(1, [0, 0]);
        let end = run_game(
            BufReader::with_capacity(64, person),
            shared.clone(),
            &mut RandomPlayer::new(1),
            1,
            Side::X,
            Setting {
                start: Some(start),
                ..Setting::money(true)
            },
            &mut game,
            &mut Tally::default(),
        )
        .unwrap();
        let text = String::from_utf8(shared.0.borrow().clone()).unwrap();
        assert!(matches!(end, GameEnd::Finished { .. }), "{text}");
        assert!(text.contains(": you are on roll with 65."), "{text}");
        assert!(!text.contains("Opening roll"), "{text}");
        // The first roll is the position's, and the cube is the position's.
        let replay = game.replay().unwrap();
        assert_eq!(replay.rolls[0].roll, Roll::from_values(6, 5), "{text}");
        assert_eq!(replay.rolls[0].cube, 2, "{text}");
        assert_eq!(replay.rolls[0].cube_owner, Some(0), "{text}");
        // Each board drawn carries its XGID.
        assert!(
            text.contains("XGID=-BBBBAA--------------bbbb-:1:1:1:65:0:0:0:0:10"),
            "{text}"
        );
    }

    /// Runs one game of `engine` against the person's `input` lines; the end, the text, and
    /// the record's replayed result.
    fn scripted(
        input: &str,
        engine: &mut dyn Player,
        seed: u64,
        setting: Setting,
    ) -> (GameEnd, String, Option<(usize, u32)>) {
        let mut out = Vec::new();
        let mut game = GameRecord::new(1, [0, 0]);
        let end = run_game(
            input.as_bytes(),
            &mut out,
            engine,
            seed,
            Side::X,
            setting,
            &mut game,
            &mut Tally::default(),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut record = MatchRecord::new(0, ["player".into(), engine.name()]);
        record.games.push(game);
        let back = MatchRecord::parse(&record.to_mat().unwrap()).unwrap();
        (end, text, back.games[0].replay().unwrap().result)
    }

    /// A seed where the person opens with 3-1 (its first prompt is a move, `8/5 6/5`).
    fn person_opens() -> u64 {
        (0..1000)
            .find(|&s| {
                let (_, text) = game("", s, Side::X);
                text.contains("Opening roll: you (X) 3, random (O) 1.")
            })
            .unwrap()
    }

    #[test]
    fn the_person_resigns_and_the_engine_answers() {
        let seed = person_opens();
        // Without judgement the engine accepts only all it can win: at the start, a
        // backgammon. A bad level is an error, and play goes on.
        let input = "resign\nresign triple\nresign backgammon\n";
        let mut engine = RandomPlayer::new(seed);
        let (end, text, result) = scripted(input, &mut engine, seed, Setting::money(false));
        assert!(
            text.contains("random rejects your offer to resign a single game (1 point): play on."),
            "{text}"
        );
        assert!(
            text.contains("Cannot resign: \"triple\" is not a resignation level"),
            "{text}"
        );
        assert!(
            text.contains("You resign a backgammon; random accepts."),
            "{text}"
        );
        let won = GameEnd::Finished {
            winner: Side::O,
            points: 3,
        };
        assert_eq!(end, won, "{text}");
        assert_eq!(
            result,
            Some((1, 3)),
            "the record says the engine won 3: {text}"
        );
        // The neural engine accepts a single game at the start: more than it expects.
        let mut neural = PlayerSpec::parse("neural")
            .unwrap()
            .create(seed, Rules::Standard)
            .unwrap();
        let (end, text, result) = scripted("resign\n", &mut *neural, seed, Setting::money(true));
        assert!(text.contains("You resign a single game; "), "{text}");
        assert_eq!(
            end,
            GameEnd::Finished {
                winner: Side::O,
                points: 1
            },
            "{text}"
        );
        assert_eq!(result, Some((1, 1)), "{text}");
    }

    #[test]
    fn the_engine_offers_to_resign_once_a_level() {
        let seed = person_opens();
        // Rejected, the single game is not offered again; the person quits.
        let (end, text, _) = scripted(
            "hint\n8/5 6/5\nreject\nquit\n",
            &mut quitter(RandomPlayer::new(seed)),
            seed,
            Setting::money(true),
        );
        let mut offers = text.matches("quitter (O) offers to resign a single game (1 point).");
        assert!(offers.next().is_some(), "{text}");
        assert!(text.contains("You reject the offer: play on."), "{text}");
        assert_eq!(offers.count(), 0, "{text}");
        assert!(matches!(end, GameEnd::Quit | GameEnd::EndOfInput), "{text}");
        // Accepted at once: the person wins a point, recorded.
        let (end, text, result) = scripted(
            "hint\n8/5 6/5\n hint\naccept\n",
            &mut quitter(RandomPlayer::new(seed)),
            seed,
            Setting::money(true),
        );
        assert!(
            text.contains("Game over: you accept and win 1 point."),
            "{text}"
        );
        assert!(
            text.contains("The engine's analysis (2-ply): playing on is worth"),
            "{text}"
        );
        assert_eq!(
            end,
            GameEnd::Finished {
                winner: Side::X,
                points: 1
            },
            "{text}"
        );
        assert_eq!(result, Some((0, 1)), "{text}");
    }

    #[test]
    fn beavers_redouble_at_once_and_keep_the_cube() {
        // The engine doubles at its first chance; the person beavers: the cube is on 4, the
        // person's, and the engine cannot double again.
        let setting = Setting {
            beavers: true,
            ..Setting::money(true)
        };
        let shared = Shared::default();
        let mut person = HintFollower::new(shared.clone());
        person.answer = "beaver";
        let mut game = GameRecord::new(1, [0, 0]);
        let end = run_game(
            BufReader::with_capacity(64, person),
            shared.clone(),
            &mut doubler(RandomPlayer::new(3)),
            3,
            Side::X,
            setting,
            &mut game,
            &mut Tally::default(),
        )
        .unwrap();
        let text = String::from_utf8(shared.0.borrow().clone()).unwrap();
        assert!(text.contains("Take, pass or beaver? "), "{text}");
        assert!(
            text.contains("You beaver: the cube is on 4, yours."),
            "{text}"
        );
        assert_eq!(text.matches("doubles to").count(), 1, "{text}");
        let GameEnd::Finished { points, .. } = end else {
            panic!("{end:?}\n{text}")
        };
        assert_eq!(points % 4, 0, "{text}");
        let mut record = MatchRecord::new(0, ["player".into(), "doubler".into()]);
        record.games.push(game);
        let mat = record.to_mat().unwrap();
        assert!(mat.contains("Beavers => 4"), "{mat}");
        let back = MatchRecord::parse(&mat).unwrap();
        assert_eq!(
            back.games[0].replay().unwrap().result.map(|r| r.1),
            Some(points)
        );

        // The person doubles; the engine takes and beavers.
        let seed = person_opens();
        let (_, text, _) = scripted(
            "hint\n8/5 6/5\nreject\ndouble\nquit\n",
            &mut quitter(RandomPlayer::new(seed)),
            seed,
            setting,
        );
        assert!(
            text.contains(
                "You double to 2; quitter takes and beavers: the cube is redoubled at once."
            ),
            "{text}"
        );
    }
}
