//! The subcommands that read and write positions and plays.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use tavla_core::perft::{divide, perft as count_perft};
use tavla_core::{CubeOwner, Dice, GameState, PlayList, Roll, Rules};
use tavla_notation::{format, format_pretty, format_ubgi, Notation, Xgid};

use crate::board;
use crate::input::{self, InputError};

/// Rule variants, on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum RulesArg {
    /// Standard backgammon.
    #[default]
    Standard,
    /// Doubles are played twice, not four times.
    DoublesTwice,
}

impl From<RulesArg> for Rules {
    fn from(r: RulesArg) -> Rules {
        match r {
            RulesArg::Standard => Rules::Standard,
            RulesArg::DoublesTwice => Rules::DoublesTwice,
        }
    }
}

/// A notation, on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NotationArg {
    /// Backgammon Position Notation.
    Bpn,
    /// gnubg `PositionID:MatchID`.
    Gnubg,
    /// eXtreme Gammon's XGID.
    Xgid,
    /// FIBS board string.
    Fibs,
}

impl From<NotationArg> for Notation {
    fn from(n: NotationArg) -> Notation {
        match n {
            NotationArg::Bpn => Notation::Bpn,
            NotationArg::Gnubg => Notation::Gnubg,
            NotationArg::Xgid => Notation::Xgid,
            NotationArg::Fibs => Notation::Fibs,
        }
    }
}

/// `tavla show`.
#[derive(Args)]
pub struct ShowArgs {
    /// The position, in any notation.
    #[arg(allow_hyphen_values = true)]
    position: String,
    /// Also write the board as an SVG diagram to FILE (from the side on roll, with the dice,
    /// the cube, the pip counts and a caption); `-` writes only the diagram, to stdout.
    #[arg(long, value_name = "FILE")]
    svg: Option<std::path::PathBuf>,
}

/// `tavla convert`.
#[derive(Args)]
pub struct ConvertArgs {
    /// The position, in any notation.
    #[arg(allow_hyphen_values = true)]
    position: String,
    /// The notation to write.
    #[arg(long, value_enum)]
    to: NotationArg,
}

/// `tavla moves`.
#[derive(Args)]
pub struct MovesArgs {
    /// The position, in any notation (not with --batch).
    #[arg(
        required_unless_present = "batch",
        conflicts_with = "batch",
        allow_hyphen_values = true
    )]
    position: Option<String>,
    /// The dice (`31`, `3-1` or `3 1`); else the position's own dice.
    dice: Vec<String>,
    /// Print one JSON array of objects with `play`, `ubgi` and `result`.
    #[arg(long)]
    json: bool,
    /// Read lines `POSITION DICE` from FILE (`-` for stdin) and write one JSON line each.
    #[arg(long, value_name = "FILE")]
    batch: Option<String>,
    /// Rule variant.
    #[arg(long, value_enum, default_value_t)]
    rules: RulesArg,
}

/// `tavla perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// The position, in any notation.
    #[arg(allow_hyphen_values = true)]
    position: String,
    /// Depth in plies.
    depth: u32,
    /// Print the count of every roll and every play at the root.
    #[arg(long)]
    divide: bool,
    /// Rule variant.
    #[arg(long, value_enum, default_value_t)]
    rules: RulesArg,
}

pub fn show(args: &ShowArgs, out: &mut impl Write) -> Result<()> {
    let state = input::position(&args.position)?;
    if let Some(file) = &args.svg {
        let diagram = crate::diagram::svg(&state);
        if file.as_os_str() == "-" {
            write!(out, "{diagram}")?;
            return Ok(());
        }
        std::fs::write(file, diagram)
            .with_context(|| format!("writing the diagram to {}", file.display()))?;
    }
    // The effective pip counts of a bearoff, from the one-sided database (read only when a
    // side has every checker home).
    let db = crate::players::shared_bearoff();
    write!(out, "{}", board::draw_with_epc(&state, |home| db.epc(home)))?;
    for (label, n) in [
        ("BPN:  ", Notation::Bpn),
        ("gnubg:", Notation::Gnubg),
        ("XGID: ", Notation::Xgid),
        ("FIBS: ", Notation::Fibs),
    ] {
        writeln!(out, "{label} {}", write_as(&args.position, &state, n))?;
    }
    let mut notes = notes(&args.position, &state);
    for to in [Notation::Gnubg, Notation::Fibs] {
        notes.extend(lost_in(&state, to));
    }
    if !notes.is_empty() {
        writeln!(out, "Note: {}", notes.join("; "))?;
    }
    Ok(())
}

/// `state`, read from `text`, written in `notation`; an XGID written as an XGID keeps its cube
/// limit (field 10), which a [`GameState`] does not hold.
fn write_as(text: &str, state: &GameState, notation: Notation) -> String {
    match notation {
        Notation::Xgid => match input::xgid(text) {
            Some(xgid) => xgid.to_string(),
            None => format(state, notation),
        },
        // A FIBS board written from one keeps its players' names.
        Notation::Fibs => match fibs_board(text) {
            Some(board) => board.to_string(),
            None => format(state, notation),
        },
        _ => format(state, notation),
    }
}

/// `text` read as a FIBS board, when it is one.
fn fibs_board(text: &str) -> Option<tavla_notation::FibsBoard> {
    (Notation::detect(text) == Some(Notation::Fibs))
        .then(|| text.trim().parse().ok())
        .flatten()
}

/// What a line in `to` does not keep of `state`'s rules (beavers, the Jacoby rule), or reads
/// back otherwise (a 9999-point match from a FIBS board), in words.
fn lost_in(state: &GameState, to: Notation) -> Vec<String> {
    let mut notes = Vec::new();
    if state.beavers && matches!(to, Notation::Gnubg | Notation::Fibs) {
        notes.push(format!("beavers are not kept in {}", notation_name(to)));
    }
    if state.jacoby && to == Notation::Fibs {
        notes.push(format!(
            "the Jacoby rule is not kept in {}",
            notation_name(to)
        ));
    }
    if state.match_length == 9999 && to == Notation::Fibs {
        notes.push(
            "a FIBS board of a 9999-point match reads back as money play (FIBS writes an \
             unlimited match as 9999)"
                .to_string(),
        );
    }
    notes
}

/// What `text` says that the notations shown do not all keep, or that is unusual, in words.
fn notes(text: &str, state: &GameState) -> Vec<String> {
    let mut notes = dropped_from_match_id(text);
    notes.extend(dropped_from_fibs(text));
    if let Some(xgid) = input::xgid(text) {
        let max = xgid.max_cube_log2;
        if max == 0 {
            notes.push(
                "the XGID is of a game without the cube (field 10 is 0); only the XGID keeps it"
                    .to_string(),
            );
        } else if max != Xgid::DEFAULT_MAX_CUBE_LOG2 {
            notes.push(format!(
                "the XGID's cube limit is {} (field 10 is {max}, not {}); only the XGID keeps it",
                1u64 << max,
                Xgid::DEFAULT_MAX_CUBE_LOG2
            ));
        }
    }
    if let (0, CubeOwner::Side(owner)) = (state.cube.log2, state.cube.owner) {
        notes.push(format!(
            "the cube is at 1 and owned by {owner}, which no game reaches (a cube is owned once \
             doubled); kept as given"
        ));
    }
    notes
}

/// What a gnubg ID says that a [`GameState`] does not keep (the game's state when it is not
/// in progress, a pending resignation, a money session's score), or reads otherwise (a turn
/// that is not the dice owner's), in words; nothing for anything else.
fn dropped_from_match_id(text: &str) -> Vec<String> {
    use tavla_notation::{GameStatus, GnubgId, Resignation};
    let Ok(id) = text.trim().parse::<GnubgId>() else {
        return Vec::new();
    };
    let id = id.match_id;
    let status = match id.game_state {
        GameStatus::Playing => None,
        GameStatus::NoGame => Some("no game has started"),
        GameStatus::Over => Some("the game is over"),
        GameStatus::Resigned => Some("the game ended by a resignation"),
        GameStatus::Dropped => Some("the game ended by a dropped double"),
    };
    let resignation = match id.resignation {
        Resignation::None => None,
        Resignation::Single => Some("a single game"),
        Resignation::Gammon => Some("a gammon"),
        Resignation::Backgammon => Some("a backgammon"),
    };
    let mut notes = Vec::new();
    if let Some(s) = status {
        notes.push(format!(
            "the Match ID says {s}; shown as a game in progress"
        ));
    }
    if let Some(r) = resignation {
        notes.push(format!(
            "the Match ID has a resignation of {r} pending, not kept"
        ));
    }
    if id.match_length == 0 && (id.score.x, id.score.o) != (0, 0) {
        notes.push(format!(
            "the Match ID has a money session's score, X {} and O {}, not kept (shown as 0:0)",
            id.score.x, id.score.o
        ));
    }
    if !id.doubled && id.resignation == Resignation::None && id.turn != id.dice_owner {
        notes.push(format!(
            "the Match ID's turn is {}'s with nothing pending, but {} holds the dice: read as \
             {}'s turn, as gnubg does",
            id.turn, id.dice_owner, id.dice_owner
        ));
    }
    notes
}

/// What a FIBS board says that a [`GameState`] does not keep (a money session's score), in
/// words; nothing for anything else.
fn dropped_from_fibs(text: &str) -> Option<String> {
    fibs_board(text)?;
    // The board was read: its fields 4 to 6 are numbers (the length, then X's and O's score).
    let fields: Vec<i64> = text
        .trim()
        .split(':')
        .skip(3)
        .take(3)
        .map(|f| f.trim().parse().unwrap_or(0))
        .collect();
    match fields[..] {
        [0 | 9999, x, o] if (x, o) != (0, 0) => Some(format!(
            "the FIBS board has a money session's score, {x} and {o}, not kept (shown as 0:0)"
        )),
        _ => None,
    }
}

pub fn convert(args: &ConvertArgs, out: &mut impl Write) -> Result<()> {
    let state = input::position(&args.position)?;
    let to: Notation = args.to.into();
    writeln!(out, "{}", write_as(&args.position, &state, to))?;
    // What the line written does not keep, on stderr (stdout stays the one line).
    let mut notes = notes(&args.position, &state);
    if to == Notation::Xgid {
        // An XGID written from an XGID keeps its cube limit.
        notes.retain(|n| !n.contains("only the XGID keeps it"));
    }
    notes.extend(lost_in(&state, to));
    for n in notes {
        eprintln!("note: {n}");
    }
    Ok(())
}

/// A notation's name in a note.
fn notation_name(n: Notation) -> &'static str {
    match n {
        Notation::Bpn => "BPN",
        Notation::Gnubg => "a gnubg ID",
        Notation::Xgid => "an XGID",
        Notation::Fibs => "a FIBS board",
    }
}

/// The game state after a play: the opponent on roll, dice not rolled.
fn after(state: &GameState, result: &tavla_core::Position) -> GameState {
    GameState {
        position: result.flip(),
        turn: !state.turn,
        dice: Dice::NotRolled,
        ..*state
    }
}

/// Every legal play of `roll` in `state` as `tavla moves --json` writes it: the play, its UBGI
/// form and the resulting position in three notations, the XGID with the cube limit
/// `cube_limit` (field 10) of the XGID `state` was read from, if it was.
pub fn play_objects(
    state: &GameState,
    cube_limit: Option<u8>,
    roll: Roll,
    rules: Rules,
    list: &mut PlayList,
) -> Vec<Value> {
    state.position.legal_plays_with(roll, rules, list);
    list.iter()
        .map(|(play, result)| {
            let next = after(state, result);
            json!({
                "play": pretty(state, &play),
                "ubgi": if play.is_empty() { "pass".to_string() } else { format_ubgi(&play) },
                "result": {
                    "gnubg": format(&next, Notation::Gnubg),
                    "bpn": format(&next, Notation::Bpn),
                    "xgid": input::xgid_with_limit(&next, cube_limit),
                },
            })
        })
        .collect()
}

fn pretty(state: &GameState, play: &tavla_core::Play) -> String {
    play_text(&state.position, play)
}

/// A play as gnubg writes it (`format_pretty`), or `pass` for the empty play of a roll that
/// cannot be played.
pub fn play_text(position: &tavla_core::Position, play: &tavla_core::Play) -> String {
    if play.is_empty() {
        "pass".into()
    } else {
        format_pretty(position, play)
    }
}

pub fn moves(args: &MovesArgs, out: &mut impl Write) -> Result<()> {
    let rules = Rules::from(args.rules);
    let mut list = PlayList::new();
    if let Some(path) = &args.batch {
        let reader: Box<dyn BufRead> = if path == "-" {
            Box::new(BufReader::new(io::stdin()))
        } else {
            Box::new(BufReader::new(
                File::open(path).with_context(|| format!("cannot open {path}"))?,
            ))
        };
        // Lines are read to a bound, so that a file without line ends (a device) is refused
        // rather than read into memory whole.
        const MAX_LINE: u64 = 64 * 1024;
        let mut reader = reader;
        let mut buf = Vec::new();
        for i in 0.. {
            buf.clear();
            let read = (&mut reader)
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("reading {path} line {}", i + 1))?;
            if read == 0 {
                break;
            }
            if buf.len() as u64 > MAX_LINE {
                return Err(InputError(format!(
                    "{path} line {}: longer than {MAX_LINE} bytes: not a line `POSITION DICE`",
                    i + 1
                ))
                .into());
            }
            let Ok(line) = std::str::from_utf8(&buf) else {
                writeln!(
                    out,
                    "{}",
                    json!({ "error": format!("line {}: not UTF-8 text", i + 1) })
                )?;
                continue;
            };
            if line.trim().is_empty() {
                continue;
            }
            let value = match batch_case(line) {
                Ok((state, limit, roll)) => {
                    json!({ "moves": play_objects(&state, limit, roll, rules, &mut list) })
                }
                Err(e) => json!({ "error": format!("line {}: {e}", i + 1) }),
            };
            writeln!(out, "{value}")?;
        }
        return Ok(());
    }
    let text = args.position.as_deref().unwrap_or_default();
    let state = input::position(text)?;
    input::not_over(&state)?;
    input::no_double_pending(&state)?;
    let roll = input::roll_for(&state, &args.dice)?;
    if args.json {
        let limit = input::xgid(text).map(|x| x.max_cube_log2);
        let objects = play_objects(&state, limit, roll, rules, &mut list);
        writeln!(out, "{}", Value::Array(objects))?;
        return Ok(());
    }
    state.position.legal_plays_with(roll, rules, &mut list);
    for (play, result) in list.iter() {
        writeln!(
            out,
            "{}\t{}",
            pretty(&state, &play),
            result.flip().position_id()
        )?;
    }
    Ok(())
}

/// One `--batch` line: a position, then the dice (`31`, `3-1` or `3 1`), which may be left out
/// when the position has a roll. With the cube limit of an XGID.
fn batch_case(line: &str) -> Result<(GameState, Option<u8>, Roll), InputError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    // Any one digit is a die word, as the words after the position are without --batch: `7`
    // is refused as a die, not read as part of the position.
    let is_die = |w: &str| w.len() == 1 && w.chars().all(|c| c.is_ascii_digit());
    // Dice-like words (`31`, `3-1`, and `77`, refused below as dice, not read as a position).
    let is_dice = |w: &str| {
        w.len() <= 3
            && w.chars().any(|c| c.is_ascii_digit())
            && w.chars().all(|c| c.is_ascii_digit() || c == '-')
    };
    if let [.., a, b, c] = words.as_slice() {
        if words.len() > 3 && is_die(a) && is_die(b) && is_die(c) {
            return Err(InputError(format!(
                "three dice `{a} {b} {c}` at the end of the line: give two"
            )));
        }
    }
    let (pos_words, dice_words): (&[&str], &[&str]) = match words.as_slice() {
        [rest @ .., a, b] if !rest.is_empty() && is_die(a) && is_die(b) => {
            (rest, &words[words.len() - 2..])
        }
        [rest @ .., d] if !rest.is_empty() && is_dice(d) => (rest, &words[words.len() - 1..]),
        _ => (&words[..], &[]),
    };
    let text = pos_words.join(" ");
    let state = input::position(&text)?;
    input::not_over(&state)?;
    input::no_double_pending(&state)?;
    let dice: Vec<String> = dice_words.iter().map(|s| s.to_string()).collect();
    let roll = input::roll_for(&state, &dice)?;
    Ok((state, input::xgid(&text).map(|x| x.max_cube_log2), roll))
}

/// The deepest perft asked for: each ply multiplies the count by a few hundred (202,782 at
/// depth 2 from the start), so a larger number is a slip (a roll typed as the depth).
const MAX_PERFT_DEPTH: u32 = 5;

pub fn perft(args: &PerftArgs, out: &mut impl Write) -> Result<()> {
    if args.depth > MAX_PERFT_DEPTH {
        return Err(InputError(format!(
            "depth {} is beyond {MAX_PERFT_DEPTH}: each ply multiplies the count by a few hundred",
            args.depth
        ))
        .into());
    }
    let state = input::position(&args.position)?;
    input::no_double_pending(&state)?;
    if let Dice::Rolled(roll) = state.dice {
        eprintln!(
            "note: the roll {roll} in the position is not used: perft counts every roll from \
             the position before it"
        );
    }
    let rules = Rules::from(args.rules);
    let start = std::time::Instant::now();
    let total = if args.divide {
        let (report, total) = divide(&state.position, args.depth, rules);
        write!(out, "{report}")?;
        total
    } else {
        count_perft(&state.position, args.depth, rules)
    };
    let secs = start.elapsed().as_secs_f64();
    writeln!(out, "perft {} {total}", args.depth)?;
    eprintln!(
        "{total} nodes in {secs:.3} s ({:.0} nodes/s)",
        total as f64 / secs.max(1e-9)
    );
    Ok(())
}
