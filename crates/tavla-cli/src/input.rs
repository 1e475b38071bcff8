//! Reading positions and dice from the command line.

use std::fmt;

use tavla_core::{Dice, GameState, Roll};
use tavla_notation::{parse_position, Notation, Xgid};

/// A position or dice the user gave that cannot be read; the program exits with code 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// The most worker threads a `--threads` option takes: far more than any machine's cores, few
/// enough that a slip of the keyboard does not start thousands of threads.
pub const MAX_THREADS: usize = 1024;

/// Reads a `--threads` value: 0 (one per core) to [`MAX_THREADS`].
pub fn threads_arg(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n <= MAX_THREADS => Ok(n),
        _ => Err(format!(
            "expected a number of threads from 0 (one per core) to {MAX_THREADS}"
        )),
    }
}

/// The worker threads of a `--threads N` option: `N`, or one per core for 0.
pub fn threads(n: usize) -> usize {
    match n {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

/// Checks, before long work whose results it will hold, that the file `path` given as `flag`
/// can be made: its folder exists (and is a folder), it is not itself a folder, and it can be opened for
/// writing (a file that is there is left as it is; one that is not is made and removed).
pub fn output_file(flag: &str, path: &std::path::Path) -> Result<(), InputError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !dir.is_dir() {
        let why = if dir.exists() {
            format!("{} is a file, not a folder", dir.display())
        } else {
            format!("there is no folder {}", dir.display())
        };
        return Err(InputError(format!("{flag} {}: {why}", path.display())));
    }
    if path.is_dir() {
        return Err(InputError(format!(
            "{flag} {}: that is a folder",
            path.display()
        )));
    }
    // Opened as the work will write it, touching nothing: a file that is there, for
    // appending; one that is not, made and removed.
    let opened = if path.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map(drop)
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .and_then(|file| {
                drop(file);
                std::fs::remove_file(path)
            })
    };
    opened.map_err(|e| InputError(format!("{flag} {}: cannot write it: {e}", path.display())))
}

/// Reads a position in any notation.
pub fn position(text: &str) -> Result<GameState, InputError> {
    parse(text).map_err(|e| InputError(format!("invalid position: {e}")))
}

/// [`parse_position`], refusing also a board no game reaches: both sides borne off (the game
/// ended when the first side bore off its last checker), which every notation can write; and,
/// for an XGID, a cube above its limit (field 10), as `play` and UBGI refuse it.
///
/// # Errors
/// Why the text is not a position.
pub fn parse(text: &str) -> Result<GameState, String> {
    let state = parse_position(text).map_err(|e| e.to_string())?;
    let name = match Notation::detect(text) {
        Some(Notation::Bpn) => "BPN",
        Some(Notation::Gnubg) => "gnubg ID",
        Some(Notation::Xgid) => "XGID",
        Some(Notation::Fibs) => "FIBS board",
        None => "Position ID",
    };
    let pos = &state.position;
    if pos.off() == 15 && pos.opponent_off() == 15 {
        return Err(format!(
            "{name} {:?}: both sides have borne off all their checkers",
            text.trim()
        ));
    }
    if let Some(why) = xgid(text).and_then(|x| x.cube_over_limit()) {
        return Err(format!("XGID {:?}: {why}", text.trim()));
    }
    Ok(state)
}

/// `text` read as an XGID, when it is one: its cube limit (field 10) is more than a
/// [`GameState`] holds.
pub fn xgid(text: &str) -> Option<Xgid> {
    (Notation::detect(text) == Some(Notation::Xgid))
        .then(|| text.trim().parse::<Xgid>().ok())
        .flatten()
}

/// `state` written as an XGID with the cube limit `limit` (field 10: log2 of the highest cube)
/// of the XGID it came from, if it came from one; else XG's usual limit.
pub fn xgid_with_limit(state: &GameState, limit: Option<u8>) -> String {
    let mut xgid = Xgid::new(*state);
    if let Some(limit) = limit {
        xgid.max_cube_log2 = limit;
    }
    xgid.to_string()
}

/// Whether the side on roll of `state` may double, under an XGID's cube `limit` (log2 of the
/// highest cube; `None`: the rules' own highest) as well as the rules.
pub fn may_double_within(state: &GameState, limit: Option<u8>) -> bool {
    state.may_double() && limit.is_none_or(|max| state.cube.log2 < max)
}

/// Whether a double offered now may be beavered, under an XGID's cube `limit` as well as the
/// rules ([`may_double_within`]).
pub fn may_beaver_within(state: &GameState, limit: Option<u8>) -> bool {
    state.may_beaver() && limit.is_none_or(|max| state.cube.log2 + 2 <= max)
}

/// Why the cube may not be turned in the game of `text` (read as `state`) under an XGID's cube
/// limit (field 10), in words: a game without the cube, or a cube already at a limit below
/// the highest cube. `None` where `text` is no XGID or its limit leaves a double.
pub fn xgid_no_double(text: &str, state: &GameState) -> Option<String> {
    let max = xgid(text)?.max_cube_log2;
    if max == 0 {
        Some("the XGID is of a game without the cube (field 10 is 0)".into())
    } else if state.cube.log2 >= max && max < tavla_core::Cube::MAX_LOG2 {
        // (At the highest cube of all, the game's own rule says so.)
        Some(format!(
            "the cube is at the XGID's limit of {} (field 10 is {max})",
            1u64 << max
        ))
    } else {
        None
    }
}

/// Refuses a finished game (a side has borne off all its checkers): it has no plays.
pub fn not_over(state: &GameState) -> Result<(), InputError> {
    match state.position.outcome() {
        Some(_) => Err(InputError("the game is over in this position".into())),
        None => Ok(()),
    }
}

/// Refuses a position with a double waiting for its answer: no play comes before the answer.
pub fn no_double_pending(state: &GameState) -> Result<(), InputError> {
    if state.dice == Dice::DoubleOffered {
        return Err(InputError(
            "a double is waiting for its answer in this position: no play before it is \
             answered (`tavla eval` gives the take or pass; to play after a take, give the \
             position with the cube turned)"
                .into(),
        ));
    }
    Ok(())
}

/// Reads dice written `31`, `3-1` or `3 1` (the words of `parts` joined).
pub fn dice(parts: &[String]) -> Result<Roll, InputError> {
    let text = parts.join(" ");
    text.parse::<Roll>()
        .map_err(|e| InputError(format!("invalid dice: {e}")))
}

/// The roll to play: the one given, else the position's own dice.
pub fn roll_for(state: &GameState, given: &[String]) -> Result<Roll, InputError> {
    if !given.is_empty() {
        return dice(given);
    }
    match state.dice {
        Dice::Rolled(r) => Ok(r),
        Dice::NotRolled => Err(InputError(
            "no dice: give them (for example 31) or use a position with a roll".into(),
        )),
        Dice::DoubleOffered => Err(InputError(
            "no dice: a double is pending in this position; give the dice to play".into(),
        )),
    }
}
