//! What the controller sends: [`Command`], read from one line by [`FromStr`] (syntax only:
//! whether the command can be applied is the engine's business).

use std::fmt;
use std::str::FromStr;

use tavla_core::{Cube, CubeOwner, Die, GameState, Position, Resign, Roll, Side};
use tavla_notation::{Bpn, FibsBoard, GameStatus, GnubgId, Notation, ParseError, Xgid};

use crate::response::ErrorCode;

/// A seat as UBGI v0.1 names it: `p0` is gnubg's player 0 ([`Side::O`]), `p1` gnubg's player 1
/// ([`Side::X`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seat {
    /// `p0`, gnubg's player 0, [`Side::O`].
    P0,
    /// `p1`, gnubg's player 1, [`Side::X`].
    P1,
}

impl Seat {
    /// The side sitting there.
    #[must_use]
    pub const fn side(self) -> Side {
        match self {
            Seat::P0 => Side::O,
            Seat::P1 => Side::X,
        }
    }

    /// The seat of `side`.
    #[must_use]
    pub const fn of(side: Side) -> Seat {
        match side {
            Side::O => Seat::P0,
            Side::X => Seat::P1,
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Seat::P0 => "p0",
            Seat::P1 => "p1",
        })
    }
}

/// The session `newsession` starts (UBGI v0.1, as the gnubg adapter reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionSpec {
    /// Match length; 0 for money play (`type money`).
    pub match_length: u32,
    /// The Jacoby rule (money play only; default off).
    pub jacoby: bool,
    /// The Crawford rule (match play; default on).
    pub crawford: bool,
}

/// Search limits after `go` (v0.1 `movetime`, `depth`, `nodes`, `trials`; tavla's `seed` and
/// `truncate`). tavla's players decide in fixed time and ignore them, except in `go rollout`:
/// `trials` games, stopped after `movetime` milliseconds, the players choosing at `depth`
/// (root-inclusive, as `engine.ply`), the dice from `seed`, each game stopped after
/// `truncate` plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Limits {
    /// `movetime <ms>`.
    pub movetime_ms: Option<u64>,
    /// `depth <n>`.
    pub depth: Option<u64>,
    /// `nodes <n>`.
    pub nodes: Option<u64>,
    /// `trials <n>`.
    pub trials: Option<u64>,
    /// `seed <n>` (tavla: a rollout's dice).
    pub seed: Option<u64>,
    /// `truncate <n>` (tavla: the plays after which a rollout game stops).
    pub truncate: Option<u64>,
}

/// What `go` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GoMode {
    /// `chequer` (also spelled `checker`): the play for the dice.
    Chequer,
    /// `cube`: double or not, or take or drop when a double is pending.
    Cube,
    /// `turn`: the cube decision and the play together.
    Turn,
    /// `eval` (a tavla extension): the cubeless outcome probabilities and equity of the
    /// position for the side on roll, before it rolls.
    Eval,
    /// `rollout` (a tavla extension): a cubeless rollout of the position before its side rolls
    /// or, with dice, of its best plays on the same dice; `stop` ends it early.
    Rollout,
    /// `resign` (a tavla extension): whether the side on roll resigns now, and how much.
    Resign,
    /// `accept <level>` (a tavla extension): the side on roll offers to resign a single game, a
    /// gammon or a backgammon (`single|gammon|backgammon` or `1|2|3`); does its opponent accept?
    Accept(Resign),
}

impl fmt::Display for GoMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GoMode::Chequer => "chequer",
            GoMode::Cube => "cube",
            GoMode::Turn => "turn",
            GoMode::Eval => "eval",
            GoMode::Rollout => "rollout",
            GoMode::Resign => "resign",
            GoMode::Accept(level) => return write!(f, "accept {level}"),
        })
    }
}

/// A decision request: `go`, `go <mode>` (v0.2) or `go role <mode>` (v0.1), then limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Go {
    /// The mode; `None` for a bare `go` (the engine picks: the cube when a double is pending or
    /// no dice are known, else the play).
    pub mode: Option<GoMode>,
    /// Written in v0.1's `go role <mode>` form (answered in v0.1's way where the two differ).
    pub role: bool,
    /// Search limits.
    pub limits: Limits,
}

/// The position of a `position` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionSpec {
    /// `position gnubgid <PositionID>`: the checkers only, seen from the side on roll (the
    /// engine); score, cube and turn come from the session (`setscore`, `setcube`, `setturn`).
    PositionId(Position),
    /// `position gnubgid <PositionID>:<MatchID>`: a whole game state.
    GnubgId(GameState),
    /// `position xgid <XGID>`: a whole game state, with XG's cube limit (0 = cubeless).
    Xgid(Xgid),
    /// `position bpn <BPN>`: a whole game state (tavla's extension).
    Bpn(GameState),
    /// `position fibs <board:...>`: a whole game state (tavla's extension).
    Fibs(FibsBoard),
}

/// A position sent on its own line, as draft 0.01 asks for the best action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BarePosition {
    /// An XGID, with or without `XGID=`.
    Xgid(Xgid),
    /// A FIBS `board:` string.
    Fibs(FibsBoard),
}

impl BarePosition {
    /// The game state.
    #[must_use]
    pub fn state(&self) -> &GameState {
        match self {
            BarePosition::Xgid(x) => &x.state,
            BarePosition::Fibs(b) => &b.state,
        }
    }
}

/// One line from the controller.
///
/// Keywords are case-sensitive (both drafts say so). `Display` writes the canonical line, which
/// parses back to the same command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `ubgi`: identify, declare the options, `ubgiok`.
    Ubgi,
    /// `isready`: answered `readyok`.
    IsReady,
    /// `newgame`: forget the position, the dice and the cube.
    NewGame,
    /// `stop`: end a search (tavla's searches are synchronous, so there is never one to stop).
    Stop,
    /// `quit`.
    Quit,
    /// v0.1 `setoption name <name> value <value>`.
    SetOption {
        /// The option name (v0.1 name or v0.2 key).
        name: String,
        /// The value.
        value: String,
    },
    /// v0.2 `set <key> <value>`.
    Set {
        /// The key.
        key: String,
        /// The value (the rest of the line).
        value: String,
    },
    /// v0.2 `get <key>`: answered `value <key> <value>`.
    Get {
        /// The key.
        key: String,
    },
    /// v0.2 `keys`: the key declarations again.
    Keys,
    /// v0.1 `newsession type money|match [length N] [jacoby on|off] [crawford on|off]`.
    NewSession(SessionSpec),
    /// v0.1 `setscore <p0> <p1>`.
    SetScore {
        /// Points of `p0` (O).
        p0: u32,
        /// Points of `p1` (X).
        p1: u32,
    },
    /// v0.1 `setcube value <N> owner center|p0|p1`.
    SetCube(Cube),
    /// v0.1 `setturn p0|p1`: who is on roll.
    SetTurn(Seat),
    /// `position ...`.
    Position(PositionSpec),
    /// `dice <d1> <d2>`.
    Dice(Roll),
    /// `go ...`.
    Go(Go),
    /// Draft 0.01: a bare XGID or FIBS board, asking for the best action.
    Bare(BarePosition),
}

/// A line that is not a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseCommandError {
    /// Nothing but whitespace.
    #[error("empty command")]
    Empty,
    /// The first word is no command (and the line is no XGID or FIBS board).
    #[error("unknown command {token:?}")]
    Unknown {
        /// The first word.
        token: String,
    },
    /// The words after the command do not fit its syntax.
    #[error("{command}: expected `{usage}`, found {}", found.as_ref().map_or("end of line".to_string(), |t| format!("{t:?}")))]
    Syntax {
        /// The command.
        command: &'static str,
        /// Its syntax.
        usage: &'static str,
        /// The word where it went wrong; `None` at the end of the line.
        found: Option<String>,
    },
    /// A word in the right place with a value that is not allowed.
    #[error("{command}: {token:?} is not {expected}")]
    Value {
        /// The command.
        command: &'static str,
        /// The word.
        token: String,
        /// What is allowed.
        expected: &'static str,
    },
    /// A position format tavla does not read.
    #[error("position: unsupported format {token:?} (gnubgid, xgid, bpn, fibs)")]
    Format {
        /// The format word.
        token: String,
    },
    /// The position text is not valid in its notation.
    #[error("position {format}: {source}")]
    Position {
        /// The notation (`gnubgid`, `xgid`, `bpn`, `fibs`).
        format: &'static str,
        /// What is wrong with it.
        #[source]
        source: ParseError,
    },
    /// A gnubg Match ID of a game that is not in progress: there is no decision to make.
    #[error("position gnubgid: the Match ID says {status}: no game is in progress to act in")]
    NotPlaying {
        /// The game's state, in words.
        status: &'static str,
    },
    /// A line that looks like a bare XGID or FIBS board (draft 0.01) and is not a valid one.
    #[error("{format}: {source}")]
    Bare {
        /// The notation (`xgid`, `fibs`).
        format: &'static str,
        /// What is wrong with it.
        #[source]
        source: ParseError,
    },
}

impl ParseCommandError {
    /// The UBGI error code to answer with.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        match self {
            ParseCommandError::Empty
            | ParseCommandError::Unknown { .. }
            | ParseCommandError::Syntax { .. } => ErrorCode::BadCommand,
            ParseCommandError::Value { .. }
            | ParseCommandError::Position { .. }
            | ParseCommandError::Bare { .. } => ErrorCode::BadValue,
            ParseCommandError::NotPlaying { .. } => ErrorCode::BadState,
            ParseCommandError::Format { .. } => ErrorCode::Unsupported,
        }
    }
}

/// The words of a line with their byte offsets, so that "the rest of the line" keeps its
/// spacing.
struct Words<'a> {
    line: &'a str,
    words: Vec<(usize, &'a str)>,
}

impl<'a> Words<'a> {
    fn new(line: &'a str) -> Words<'a> {
        let mut words = Vec::new();
        let mut start = None;
        for (i, c) in line.char_indices() {
            match (c.is_whitespace(), start) {
                (true, Some(s)) => {
                    words.push((s, &line[s..i]));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if let Some(s) = start {
            words.push((s, &line[s..]));
        }
        Words { line, words }
    }

    fn get(&self, i: usize) -> Option<&'a str> {
        self.words.get(i).map(|&(_, w)| w)
    }

    fn len(&self) -> usize {
        self.words.len()
    }

    /// The text from word `i` to the end of the line, trimmed; `None` when there is no word `i`.
    fn rest(&self, i: usize) -> Option<&'a str> {
        self.words.get(i).map(|&(at, _)| self.line[at..].trim_end())
    }
}

fn syntax(command: &'static str, usage: &'static str, found: Option<&str>) -> ParseCommandError {
    ParseCommandError::Syntax {
        command,
        usage,
        found: found.map(str::to_string),
    }
}

fn value(command: &'static str, token: &str, expected: &'static str) -> ParseCommandError {
    ParseCommandError::Value {
        command,
        token: token.to_string(),
        expected,
    }
}

/// Checks that the line has exactly `n` words.
fn exactly(
    w: &Words<'_>,
    n: usize,
    command: &'static str,
    usage: &'static str,
) -> Result<(), ParseCommandError> {
    if w.len() == n {
        Ok(())
    } else {
        Err(syntax(command, usage, w.get(n)))
    }
}

fn parse_u32(
    command: &'static str,
    token: &str,
    expected: &'static str,
) -> Result<u32, ParseCommandError> {
    if token.bytes().all(|b| b.is_ascii_digit()) {
        token.parse().map_err(|_| value(command, token, expected))
    } else {
        Err(value(command, token, expected))
    }
}

fn parse_u64(
    command: &'static str,
    token: &str,
    expected: &'static str,
) -> Result<u64, ParseCommandError> {
    if token.bytes().all(|b| b.is_ascii_digit()) {
        token.parse().map_err(|_| value(command, token, expected))
    } else {
        Err(value(command, token, expected))
    }
}

fn parse_on_off(
    command: &'static str,
    token: Option<&str>,
    usage: &'static str,
) -> Result<bool, ParseCommandError> {
    match token {
        Some("on" | "true") => Ok(true),
        Some("off" | "false") => Ok(false),
        Some(t) => Err(value(command, t, "on or off")),
        None => Err(syntax(command, usage, None)),
    }
}

const NEWSESSION: &str =
    "newsession type money|match [length <n>] [jacoby on|off] [crawford on|off]";
const SETCUBE: &str = "setcube value <n> owner center|p0|p1";
const SETOPTION: &str = "setoption name <name> value <value>";
const GO: &str = "go [role] [chequer|cube|turn|eval|rollout|resign|accept <level>] \
                  [movetime <ms>] [depth <n>] [nodes <n>] [trials <n>] [seed <n>] [truncate <n>]";
const POSITION: &str = "position gnubgid|xgid|bpn|fibs <text>";

fn parse_newsession(w: &Words<'_>) -> Result<SessionSpec, ParseCommandError> {
    const C: &str = "newsession";
    let mut match_play = None;
    let mut length = None;
    let mut jacoby = false;
    let mut crawford = true;
    let mut i = 1;
    while let Some(word) = w.get(i) {
        let arg = w.get(i + 1);
        match word {
            "type" => {
                match_play = Some(match arg {
                    Some("money") => false,
                    Some("match") => true,
                    Some(t) => return Err(value(C, t, "money or match")),
                    None => return Err(syntax(C, NEWSESSION, None)),
                });
            }
            "length" => {
                let t = arg.ok_or_else(|| syntax(C, NEWSESSION, None))?;
                length = Some(parse_u32(C, t, "a match length 0..=32767")?);
                if length > Some(32767) {
                    return Err(value(C, t, "a match length 0..=32767"));
                }
            }
            "jacoby" => jacoby = parse_on_off(C, arg, NEWSESSION)?,
            "crawford" => crawford = parse_on_off(C, arg, NEWSESSION)?,
            other => return Err(syntax(C, NEWSESSION, Some(other))),
        }
        i += 2;
    }
    let match_length = match (match_play, length) {
        (None, _) => return Err(syntax(C, NEWSESSION, None)),
        (Some(false), None | Some(0)) => 0,
        (Some(false), Some(n)) => {
            return Err(value(
                C,
                &n.to_string(),
                "0 in money play (length is for matches)",
            ))
        }
        (Some(true), Some(n)) if n > 0 => n,
        (Some(true), Some(_)) => return Err(value(C, "0", "a match length of at least 1")),
        (Some(true), None) => return Err(syntax(C, NEWSESSION, None)),
    };
    Ok(SessionSpec {
        match_length,
        jacoby,
        crawford,
    })
}

fn parse_setcube(w: &Words<'_>) -> Result<Cube, ParseCommandError> {
    const C: &str = "setcube";
    let mut log2 = None;
    let mut owner = CubeOwner::Centre;
    let mut i = 1;
    while let Some(word) = w.get(i) {
        let arg = w.get(i + 1).ok_or_else(|| syntax(C, SETCUBE, None))?;
        match word {
            "value" => {
                let v = parse_u32(C, arg, "a cube value 1, 2, 4 ... 32768")?;
                if !v.is_power_of_two() || v > 32768 {
                    return Err(value(C, arg, "a cube value 1, 2, 4 ... 32768"));
                }
                log2 = Some(v.trailing_zeros() as u8);
            }
            "owner" => {
                owner = match arg {
                    "center" | "centre" => CubeOwner::Centre,
                    "p0" => CubeOwner::Side(Seat::P0.side()),
                    "p1" => CubeOwner::Side(Seat::P1.side()),
                    other => return Err(value(C, other, "center, p0 or p1")),
                };
            }
            other => return Err(syntax(C, SETCUBE, Some(other))),
        }
        i += 2;
    }
    let log2 = log2.ok_or_else(|| syntax(C, SETCUBE, None))?;
    if log2 == 0 && owner != CubeOwner::Centre {
        return Err(value(
            C,
            "1",
            "a value of 2 or more (a cube with an owner has been turned)",
        ));
    }
    Ok(Cube { log2, owner })
}

fn parse_setoption(w: &Words<'_>) -> Result<Command, ParseCommandError> {
    const C: &str = "setoption";
    if w.get(1) != Some("name") {
        return Err(syntax(C, SETOPTION, w.get(1)));
    }
    let value_at = (2..w.len()).find(|&i| w.get(i) == Some("value"));
    let name_end = value_at.unwrap_or(w.len());
    if name_end == 2 {
        return Err(syntax(C, SETOPTION, w.get(2)));
    }
    let name = w.words[2..name_end]
        .iter()
        .map(|&(_, s)| s)
        .collect::<Vec<_>>()
        .join(" ");
    let value = match value_at.and_then(|i| w.rest(i + 1)) {
        Some(v) => v.to_string(),
        None => return Err(syntax(C, SETOPTION, None)),
    };
    Ok(Command::SetOption { name, value })
}

fn parse_go(w: &Words<'_>) -> Result<Go, ParseCommandError> {
    const C: &str = "go";
    let mut i = 1;
    let role = w.get(1) == Some("role");
    if role {
        i += 1;
    }
    let mode = match w.get(i) {
        Some("chequer" | "checker") => Some(GoMode::Chequer),
        Some("cube") => Some(GoMode::Cube),
        Some("turn") => Some(GoMode::Turn),
        Some("eval") => Some(GoMode::Eval),
        Some("rollout") => Some(GoMode::Rollout),
        Some("resign") => Some(GoMode::Resign),
        Some("accept") => {
            let level = w.get(i + 1).ok_or_else(|| syntax(C, GO, None))?;
            i += 1;
            Some(GoMode::Accept(level.parse::<Resign>().map_err(|_| {
                value(C, level, "single, gammon, backgammon, 1, 2 or 3")
            })?))
        }
        _ => None,
    };
    if mode.is_some() {
        i += 1;
    } else if role {
        return Err(match w.get(i) {
            Some(t) => value(C, t, "chequer, cube or turn"),
            None => syntax(C, GO, None),
        });
    }
    let mut limits = Limits::default();
    while let Some(word) = w.get(i) {
        let slot = match word {
            "movetime" => &mut limits.movetime_ms,
            "depth" => &mut limits.depth,
            "nodes" => &mut limits.nodes,
            "trials" => &mut limits.trials,
            "seed" => &mut limits.seed,
            "truncate" => &mut limits.truncate,
            other => return Err(syntax(C, GO, Some(other))),
        };
        let arg = w.get(i + 1).ok_or_else(|| syntax(C, GO, None))?;
        *slot = Some(parse_u64(C, arg, "a whole number")?);
        i += 2;
    }
    Ok(Go { mode, role, limits })
}

fn parse_position(w: &Words<'_>) -> Result<PositionSpec, ParseCommandError> {
    let Some(format) = w.get(1) else {
        return Err(syntax("position", POSITION, None));
    };
    let Some(text) = w.rest(2) else {
        return Err(syntax("position", POSITION, None));
    };
    let fail = |format: &'static str| {
        move |e: ParseError| ParseCommandError::Position { format, source: e }
    };
    match format {
        "gnubgid" => {
            if text.contains(':') {
                let id = text
                    .parse::<GnubgId>()
                    .map_err(|e| fail("gnubgid")(e.into()))?;
                let status = match id.match_id.game_state {
                    GameStatus::Playing => None,
                    GameStatus::NoGame => Some("no game has started"),
                    GameStatus::Over => Some("the game is over"),
                    GameStatus::Resigned => Some("the game ended by a resignation"),
                    GameStatus::Dropped => Some("the game ended by a dropped double"),
                };
                if let Some(status) = status {
                    return Err(ParseCommandError::NotPlaying { status });
                }
                let state = id.to_game_state().map_err(|e| fail("gnubgid")(e.into()))?;
                Ok(PositionSpec::GnubgId(state))
            } else {
                let pos =
                    Position::from_position_id(text).map_err(|e| fail("gnubgid")(e.into()))?;
                Ok(PositionSpec::PositionId(pos))
            }
        }
        "xgid" => Ok(PositionSpec::Xgid(
            text.parse::<Xgid>().map_err(|e| fail("xgid")(e.into()))?,
        )),
        "bpn" => Ok(PositionSpec::Bpn(
            text.parse::<Bpn>().map_err(|e| fail("bpn")(e.into()))?.0,
        )),
        "fibs" => Ok(PositionSpec::Fibs(
            text.parse::<FibsBoard>()
                .map_err(|e| fail("fibs")(e.into()))?,
        )),
        other => Err(ParseCommandError::Format {
            token: other.to_string(),
        }),
    }
}

fn parse_die(token: &str) -> Result<Die, ParseCommandError> {
    let bad = || value("dice", token, "a die 1..6");
    match token.as_bytes() {
        [d @ b'1'..=b'6'] => Die::try_from(d - b'0').map_err(|_| bad()),
        _ => Err(bad()),
    }
}

impl FromStr for Command {
    type Err = ParseCommandError;

    fn from_str(line: &str) -> Result<Command, ParseCommandError> {
        let w = Words::new(line);
        let Some(head) = w.get(0) else {
            return Err(ParseCommandError::Empty);
        };
        let bare = |cmd: Command, name: &'static str| exactly(&w, 1, name, name).map(|()| cmd);
        match head {
            "ubgi" => bare(Command::Ubgi, "ubgi"),
            "isready" => bare(Command::IsReady, "isready"),
            "newgame" => bare(Command::NewGame, "newgame"),
            "stop" => bare(Command::Stop, "stop"),
            "quit" => bare(Command::Quit, "quit"),
            "keys" => bare(Command::Keys, "keys"),
            "setoption" => parse_setoption(&w),
            "set" => {
                let key = w
                    .get(1)
                    .ok_or_else(|| syntax("set", "set <key> <value>", None))?;
                let value = w
                    .rest(2)
                    .ok_or_else(|| syntax("set", "set <key> <value>", None))?;
                Ok(Command::Set {
                    key: key.to_string(),
                    value: value.to_string(),
                })
            }
            "get" => {
                exactly(&w, 2, "get", "get <key>")?;
                Ok(Command::Get {
                    key: w.words[1].1.to_string(),
                })
            }
            "newsession" => parse_newsession(&w).map(Command::NewSession),
            "setscore" => {
                const USAGE: &str = "setscore <p0> <p1>";
                exactly(&w, 3, "setscore", USAGE)?;
                let score = |t: &str| {
                    parse_u32("setscore", t, "a score 0..=32767").and_then(|v| {
                        if v <= 32767 {
                            Ok(v)
                        } else {
                            Err(value("setscore", t, "a score 0..=32767"))
                        }
                    })
                };
                Ok(Command::SetScore {
                    p0: score(w.words[1].1)?,
                    p1: score(w.words[2].1)?,
                })
            }
            "setcube" => parse_setcube(&w).map(Command::SetCube),
            "setturn" => {
                exactly(&w, 2, "setturn", "setturn p0|p1")?;
                match w.words[1].1 {
                    "p0" => Ok(Command::SetTurn(Seat::P0)),
                    "p1" => Ok(Command::SetTurn(Seat::P1)),
                    other => Err(value("setturn", other, "p0 or p1")),
                }
            }
            "position" => parse_position(&w).map(Command::Position),
            "dice" => {
                exactly(&w, 3, "dice", "dice <d1> <d2>")?;
                let a = parse_die(w.words[1].1)?;
                let b = parse_die(w.words[2].1)?;
                Ok(Command::Dice(Roll::new(a, b)))
            }
            "go" => parse_go(&w).map(Command::Go),
            _ => {
                let text = line.trim();
                match Notation::detect(text) {
                    Some(Notation::Xgid) => text
                        .parse::<Xgid>()
                        .map(|x| Command::Bare(BarePosition::Xgid(x)))
                        .map_err(|e| ParseCommandError::Bare {
                            format: "xgid",
                            source: e.into(),
                        }),
                    Some(Notation::Fibs) => text
                        .parse::<FibsBoard>()
                        .map(|b| Command::Bare(BarePosition::Fibs(b)))
                        .map_err(|e| ParseCommandError::Bare {
                            format: "fibs",
                            source: e.into(),
                        }),
                    _ => Err(ParseCommandError::Unknown {
                        token: head.to_string(),
                    }),
                }
            }
        }
    }
}

impl fmt::Display for PositionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionSpec::PositionId(pos) => write!(f, "position gnubgid {}", pos.position_id()),
            PositionSpec::GnubgId(state) => {
                write!(f, "position gnubgid {}", GnubgId::from_game_state(state))
            }
            PositionSpec::Xgid(x) => write!(f, "position xgid {x}"),
            PositionSpec::Bpn(state) => write!(f, "position bpn {}", Bpn(*state)),
            PositionSpec::Fibs(board) => write!(f, "position fibs {board}"),
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Ubgi => f.write_str("ubgi"),
            Command::IsReady => f.write_str("isready"),
            Command::NewGame => f.write_str("newgame"),
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
            Command::Keys => f.write_str("keys"),
            Command::SetOption { name, value } => write!(f, "setoption name {name} value {value}"),
            Command::Set { key, value } => write!(f, "set {key} {value}"),
            Command::Get { key } => write!(f, "get {key}"),
            Command::NewSession(s) => {
                let on = |b: bool| if b { "on" } else { "off" };
                if s.match_length == 0 {
                    f.write_str("newsession type money")?;
                } else {
                    write!(f, "newsession type match length {}", s.match_length)?;
                }
                write!(f, " jacoby {} crawford {}", on(s.jacoby), on(s.crawford))
            }
            Command::SetScore { p0, p1 } => write!(f, "setscore {p0} {p1}"),
            Command::SetCube(cube) => {
                write!(f, "setcube value {} owner ", cube.value())?;
                match cube.owner {
                    CubeOwner::Centre => f.write_str("center"),
                    CubeOwner::Side(side) => write!(f, "{}", Seat::of(side)),
                }
            }
            Command::SetTurn(seat) => write!(f, "setturn {seat}"),
            Command::Position(spec) => write!(f, "{spec}"),
            Command::Dice(roll) => write!(f, "dice {} {}", roll.high(), roll.low()),
            Command::Go(go) => {
                f.write_str("go")?;
                if go.role {
                    f.write_str(" role")?;
                }
                if let Some(mode) = go.mode {
                    write!(f, " {mode}")?;
                }
                let l = &go.limits;
                for (name, v) in [
                    ("movetime", l.movetime_ms),
                    ("depth", l.depth),
                    ("nodes", l.nodes),
                    ("trials", l.trials),
                    ("seed", l.seed),
                    ("truncate", l.truncate),
                ] {
                    if let Some(v) = v {
                        write!(f, " {name} {v}")?;
                    }
                }
                Ok(())
            }
            Command::Bare(BarePosition::Xgid(x)) => write!(f, "{x}"),
            Command::Bare(BarePosition::Fibs(b)) => write!(f, "{b}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Command, ParseCommandError> {
        s.parse()
    }

    #[test]
    fn reads_the_v02_playable_core() {
        assert_eq!(parse("ubgi"), Ok(Command::Ubgi));
        assert_eq!(parse("  isready  "), Ok(Command::IsReady));
        assert_eq!(
            parse("position gnubgid 4HPwATDgc/ABMA"),
            Ok(Command::Position(PositionSpec::PositionId(Position::START)))
        );
        assert_eq!(
            parse("dice 1 3"),
            Ok(Command::Dice(Roll::from_values(3, 1)))
        );
        for (line, mode) in [
            ("go", None),
            ("go chequer", Some(GoMode::Chequer)),
            ("go checker", Some(GoMode::Chequer)),
            ("go cube", Some(GoMode::Cube)),
            ("go turn", Some(GoMode::Turn)),
            ("go eval", Some(GoMode::Eval)),
            ("go rollout", Some(GoMode::Rollout)),
            ("go resign", Some(GoMode::Resign)),
            ("go accept gammon", Some(GoMode::Accept(Resign::Gammon))),
            ("go accept 3", Some(GoMode::Accept(Resign::Backgammon))),
        ] {
            assert_eq!(
                parse(line),
                Ok(Command::Go(Go {
                    mode,
                    role: false,
                    limits: Limits::default()
                })),
                "{line}"
            );
        }
        assert_eq!(
            parse("set engine.info false"),
            Ok(Command::Set {
                key: "engine.info".into(),
                value: "false".into()
            })
        );
    }

    #[test]
    fn reads_the_v01_forms() {
        assert_eq!(
            parse("go role turn movetime 100 depth 2"),
            Ok(Command::Go(Go {
                mode: Some(GoMode::Turn),
                role: true,
                limits: Limits {
                    movetime_ms: Some(100),
                    depth: Some(2),
                    ..Limits::default()
                }
            }))
        );
        assert_eq!(
            parse("setoption name Info Lines value false"),
            Ok(Command::SetOption {
                name: "Info Lines".into(),
                value: "false".into()
            })
        );
        assert_eq!(
            parse("newsession type match length 7 crawford off"),
            Ok(Command::NewSession(SessionSpec {
                match_length: 7,
                jacoby: false,
                crawford: false
            }))
        );
        assert_eq!(
            parse("setcube value 4 owner p1"),
            Ok(Command::SetCube(Cube {
                log2: 2,
                owner: CubeOwner::Side(Side::X)
            }))
        );
        assert_eq!(parse("setturn p0"), Ok(Command::SetTurn(Seat::P0)));
        assert_eq!(
            parse("setscore 3 1"),
            Ok(Command::SetScore { p0: 3, p1: 1 })
        );
    }

    #[test]
    fn errors_name_the_token_and_the_code() {
        let e = parse("dice 3 7").unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadValue);
        assert_eq!(e.to_string(), "dice: \"7\" is not a die 1..6");
        let e = parse("dice 3").unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadCommand);
        assert_eq!(
            e.to_string(),
            "dice: expected `dice <d1> <d2>`, found end of line"
        );
        let e = parse("fly away").unwrap_err();
        assert_eq!(e.to_string(), "unknown command \"fly\"");
        assert_eq!(parse("Ubgi").unwrap_err().code(), ErrorCode::BadCommand);
        assert_eq!(
            parse("position sgf x").unwrap_err().code(),
            ErrorCode::Unsupported
        );
        let e = parse("position gnubgid 4HPwATDgc/AB!A").unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadValue);
        assert!(e.to_string().starts_with("position gnubgid: "), "{e}");
        // Review (fifty-eighth round): a Match ID of a game over was answered as one in play.
        let e = parse("position gnubgid 4HPwATDgc/ABMA:cAoAAAAAAAAE").unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadState);
        assert_eq!(
            e.to_string(),
            "position gnubgid: the Match ID says the game is over: no game is in progress to \
             act in"
        );
        assert_eq!(
            parse("setcube value 3").unwrap_err().code(),
            ErrorCode::BadValue
        );
        assert_eq!(parse("go role").unwrap_err().code(), ErrorCode::BadCommand);
        assert_eq!(
            parse("go chequer cube").unwrap_err().code(),
            ErrorCode::BadCommand
        );
        assert_eq!(
            parse("isready now").unwrap_err().code(),
            ErrorCode::BadCommand
        );
        assert_eq!(parse("   ").unwrap_err(), ParseCommandError::Empty);
    }

    #[test]
    fn bare_positions_are_draft_001_requests() {
        let c = parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10").unwrap();
        let Command::Bare(b) = &c else {
            panic!("{c:?}")
        };
        assert_eq!(b.state().position, Position::START);
        let bad = parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:39:0:0:0:0:10").unwrap_err();
        assert_eq!(bad.code(), ErrorCode::BadValue);
    }

    #[test]
    fn display_parses_back() {
        for line in [
            "ubgi",
            "go role chequer movetime 5",
            "go",
            "go rollout movetime 5000 depth 2 trials 1296 seed 7 truncate 10",
            "go resign",
            "go accept single",
            "setcube value 2 owner center",
            "newsession type money jacoby on crawford on",
            "newsession type match length 5 jacoby off crawford on",
            "position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10",
            "position gnubgid 4HPwATDgc/ABMA:cIkKAAAAAAAA",
            "position bpn b4E1C3eE3c1e4B-w0b0-b31-n1-0:0:7",
            "setoption name Info value true",
            "dice 6 5",
        ] {
            let c = parse(line).unwrap();
            assert_eq!(c.to_string(), line);
            assert_eq!(parse(&c.to_string()), Ok(c));
        }
    }
}
