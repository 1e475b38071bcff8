//! The position and move notations tavla reads and writes, on top of [`tavla_core`].
//!
//! Every position notation is parsed into a [`GameState`] (the checkers seen from the side on
//! roll, plus dice, cube, score and match rules) and written back from one:
//!
//! * [`MatchId`] and [`GnubgId`]: gnubg's Match ID and its `PositionID:MatchID` form, byte for
//!   byte as gnubg writes them (the Position ID itself is [`tavla_core::PositionId`]);
//! * [`Bpn`]: the Backgammon Position Notation, as SPEC-bpn.md resolves it;
//! * [`Xgid`]: eXtreme Gammon's XGID, with or without the `XGID=` prefix;
//! * [`FibsBoard`]: FIBS `board:` strings, in the FIBS server's and gnubg's dialects.
//!
//! [`parse_position`] recognises any of them (and a bare Position ID); [`format()`] writes a
//! [`GameState`] in the [`Notation`] asked for.
//!
//! Moves are read in two steps: [`PlayText`] checks the syntax (`8/5 6/5`, `bar/22*`,
//! `24/18*/14`, `13/7(2)`), then [`PlayText::resolve`] finds the legal [`tavla_core::Play`] it
//! describes. [`format_pretty`] writes gnubg's hint-list form, [`format_plain`] the `.mat`
//! form and [`format_ubgi`] the engine-protocol form.
//!
//! Game records: [`mat`] reads Jellyfish `.mat` files (gnubg's export) and replays their games;
//! [`sgf`] reads gnubg's SGF match records (`GM[6]`) into the same model, and
//! [`sgf::parse_record`] reads either, chosen by content.
//!
//! Parsers never panic; their errors name the field and the byte offset at fault and carry a
//! [`Problem`].
//!
//! # What each notation loses
//!
//! A [`GameState`] read from one notation and written in another keeps everything the target
//! can hold. What a notation cannot hold:
//!
//! | notation | not representable |
//! |---|---|
//! | BPN | nothing in a [`GameState`] (outside it: resignations, an XGID's cube limit, beavers pending) |
//! | XGID | nothing in a [`GameState`]; a pending beaver/raccoon (`B`/`R`) is refused. Its max cube (field 10) is outside a [`GameState`] (kept in [`Xgid`]): every other notation drops it, so an XGID with a limit (field 10 = 0: cubeless) converted to another notation is an ordinary cubeful game, and [`format()`] writes field 10 as 10 |
//! | gnubg ID | beavers (read as off); the Jacoby rule in match play (read as off); money-session scores (read as 0:0); a turn that is not the dice owner's with nothing pending (read as the dice owner's, as gnubg does); the game status and a pending resignation ([`MatchId`] keeps them, a [`GameState`] does not) |
//! | FIBS board | the Jacoby rule and beavers (read as off); money-session scores (read as 0:0); a 9999-point match (FIBS's "unlimited", read as money) |
//! | Position ID | everything but the checkers (read as X on roll, money, centred cube, no dice) |
//!
//! Readers refuse states no notation should hold, so that whatever one reader accepts every
//! writer can carry: a match longer than 32767 points (the 15 bits of gnubg's Match ID), a
//! money game with a score, a score not below the match length, a Crawford game with no side
//! at 1-away (or with both sides there), in money play or with a turned cube, the Jacoby or
//! beaver flag in match play (BPN), and a pending double by a side that may not double (the
//! cube is the opponent's, it is the Crawford game, the cube is dead or at 32768).
//!
//! # Feature flags
//!
//! * `proptest`: the `testing` module, with proptest strategies for random legal game
//!   states.
//!
//! # Example
//!
//! ```
//! use tavla_notation::{format, parse_position, Notation, PlayText, format_pretty};
//! use tavla_core::{Position, Roll, Side};
//!
//! let state = parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10")?;
//! assert_eq!(state.position, Position::START);
//! assert_eq!(state.turn, Side::X);
//! assert_eq!(format(&state, Notation::Bpn), "b4E1C3eE3c1e4B-w0b0-b31-n1-0:0:7");
//! assert_eq!(format(&state, Notation::Gnubg), "4HPwATDgc/ABMA:cInlAAAAAAAE");
//!
//! let roll = state.roll().expect("rolled");
//! let play = "6/5 8/5".parse::<PlayText>()?.resolve(&state.position, roll)?;
//! assert_eq!(format_pretty(&state.position, &play), "8/5 6/5");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod bpn;
mod error;
mod fibs;
mod illegal;
pub mod landing;
pub mod mat;
mod match_id;
mod moves;
pub mod sgf;
mod state;
#[cfg(feature = "proptest")]
pub mod testing;
mod xgid;

use std::fmt;
use std::str::FromStr;

use tavla_core::{GameState, ParsePositionIdError, Position};

pub use bpn::{Bpn, BpnField, ParseBpnError};
pub use error::Problem;
pub use fibs::{FibsBoard, FibsDialect, FibsField, ParseFibsError, FIBS_TOKEN_NAMES};
pub use match_id::{
    GameStatus, GnubgId, MatchId, MatchIdField, ParseGnubgIdError, ParseMatchIdError, Resignation,
};
pub use moves::{
    format_plain, format_pretty, format_ubgi, ParsePlayTextError, PlayText, ResolvePlayError,
    TextMove, TextPoint,
};
pub use xgid::{ParseXgidError, Xgid, XgidField};

/// The position notations [`format()`] can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notation {
    /// BPN, canonical form ([`Bpn`]).
    Bpn,
    /// gnubg's `PositionID:MatchID` ([`GnubgId`]).
    Gnubg,
    /// XGID with the `XGID=` prefix and max cube 10, or the cube's log2 if higher ([`Xgid`]).
    Xgid,
    /// A FIBS board string in gnubg's dialect, players named `X` and `O` ([`FibsBoard`]).
    Fibs,
}

impl Notation {
    /// All notations.
    pub const ALL: [Notation; 4] = [
        Notation::Bpn,
        Notation::Gnubg,
        Notation::Xgid,
        Notation::Fibs,
    ];

    /// The notation `s` looks like, from its shape alone (nothing is validated);
    /// `None` for a bare Position ID or unrecognisable text.
    #[must_use]
    pub fn detect(s: &str) -> Option<Notation> {
        match detect(s) {
            Detected::Bpn => Some(Notation::Bpn),
            Detected::Gnubg => Some(Notation::Gnubg),
            Detected::Xgid => Some(Notation::Xgid),
            Detected::Fibs => Some(Notation::Fibs),
            Detected::PositionId | Detected::Unknown => None,
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Notation::Bpn => "bpn",
            Notation::Gnubg => "gnubg",
            Notation::Xgid => "xgid",
            Notation::Fibs => "fibs",
        })
    }
}

/// A notation name that is not one of `bpn`, `gnubg`, `xgid`, `fibs`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown notation {0:?}, expected bpn, gnubg, xgid or fibs")]
pub struct ParseNotationError(pub String);

impl FromStr for Notation {
    type Err = ParseNotationError;

    /// `bpn`, `gnubg` (or `gnubgid`), `xgid`, `fibs`, in any case.
    fn from_str(s: &str) -> Result<Notation, ParseNotationError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "bpn" => Ok(Notation::Bpn),
            "gnubg" | "gnubgid" => Ok(Notation::Gnubg),
            "xgid" => Ok(Notation::Xgid),
            "fibs" => Ok(Notation::Fibs),
            _ => Err(ParseNotationError(s.to_string())),
        }
    }
}

/// Text that [`parse_position`] could not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Nothing but whitespace.
    #[error("empty position text")]
    Empty,
    /// The text has the shape of none of the notations.
    #[error("{input:?} is not BPN, XGID, a gnubg ID, a Position ID or a FIBS board")]
    Unrecognized {
        /// The text.
        input: String,
    },
    /// The text looks like BPN and is not valid BPN.
    #[error(transparent)]
    Bpn(#[from] ParseBpnError),
    /// The text looks like an XGID and is not a valid one.
    #[error(transparent)]
    Xgid(#[from] ParseXgidError),
    /// The text looks like a gnubg ID and is not a valid one.
    #[error(transparent)]
    Gnubg(#[from] ParseGnubgIdError),
    /// The text looks like a Position ID and is not a valid one.
    #[error(transparent)]
    PositionId(#[from] ParsePositionIdError),
    /// The text looks like a FIBS board and is not a valid one.
    #[error(transparent)]
    Fibs(#[from] ParseFibsError),
}

/// What the shape of a text suggests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Detected {
    Bpn,
    Gnubg,
    Xgid,
    Fibs,
    PositionId,
    Unknown,
}

fn is_base64(s: &str) -> bool {
    s.bytes().all(|c| match_id::base64_value(c).is_some())
}

/// The notation `s` most resembles, so that a mistyped position gets the error of the parser
/// it was meant for (naming its field and offset) rather than another's.
fn detect(s: &str) -> Detected {
    // By its first line: an XGID may be followed by more text after a newline (gnubg writes
    // one so), which its reader ignores.
    let t = s.trim().lines().next().unwrap_or_default().trim();
    let starts = |prefix: &str| {
        t.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    if starts("board:") {
        return Detected::Fibs;
    }
    if starts("XGID=") {
        return Detected::Xgid;
    }
    let fields: Vec<&str> = t.split(':').collect();
    let first = fields[0];
    let spaced = t.contains(char::is_whitespace);
    // A FIBS board has 53 tokens; with a mistyped tag it is still one.
    if fields.len() > 20 {
        return Detected::Fibs;
    }
    // XGID has 9 or 10 `:`-separated fields, BPN at most 4, a gnubg ID 2. XGID's position
    // field has only `-` and letters; BPN's text before its first `:` always has a digit (its
    // bar field, or the first draft's cube).
    let xgid_board = (20..=32).contains(&first.len())
        && first.bytes().all(|c| c == b'-' || c.is_ascii_alphabetic());
    if !spaced && (fields.len() >= 8 || (fields.len() >= 2 && xgid_board)) {
        return Detected::Xgid;
    }
    // `PositionID:MatchID`: two fields, no `-` (which BPN always has and Base64 never).
    if fields.len() == 2 && !spaced && !t.contains('-') && (10..=18).contains(&first.len()) {
        return Detected::Gnubg;
    }
    if fields.len() == 1 && !t.contains('-') {
        if t.parse::<tavla_core::PositionId>().is_ok() {
            return Detected::PositionId;
        }
        // A BPN placement alone (the rest of the fields left out).
        if bpn::is_placement(t) {
            return Detected::Bpn;
        }
        if (10..=18).contains(&t.len()) && is_base64(t) {
            return Detected::PositionId;
        }
    }
    if t.contains('-') {
        return Detected::Bpn;
    }
    Detected::Unknown
}

/// Reads a game state from any notation: BPN, XGID (with or without `XGID=`), gnubg's
/// `PositionID:MatchID`, a bare Position ID, or a FIBS board. The notation is chosen by the
/// shape of the text; the error is that notation's.
///
/// A bare Position ID gives [`GameState::money`]: X on roll (the position seen from X), money
/// play, centred cube, dice not rolled.
///
/// # Errors
/// [`ParseError::Empty`] or [`ParseError::Unrecognized`] when no notation fits the shape, else
/// the error of the notation it has the shape of.
pub fn parse_position(s: &str) -> Result<GameState, ParseError> {
    if s.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    match detect(s) {
        Detected::Bpn => Ok(s.parse::<Bpn>()?.0),
        Detected::Xgid => Ok(s.parse::<Xgid>()?.state),
        Detected::Gnubg => Ok(s.parse::<GnubgId>()?.to_game_state()?),
        Detected::Fibs => Ok(s.parse::<FibsBoard>()?.state),
        Detected::PositionId => Ok(GameState::money(Position::from_position_id(s.trim())?)),
        Detected::Unknown => Err(ParseError::Unrecognized {
            input: s.to_string(),
        }),
    }
}

/// Writes `state` in `notation`: canonical BPN, gnubg's ID byte for byte, XGID with the
/// prefix and max cube 10 (or the cube's log2 if higher), or a FIBS board in gnubg's dialect with players `X` and `O`.
///
/// What a notation cannot hold is dropped (see the crate docs). Values too wide for gnubg's
/// Match ID (a score or match length above 32767) saturate.
#[must_use]
pub fn format(state: &GameState, notation: Notation) -> String {
    match notation {
        Notation::Bpn => Bpn(*state).to_string(),
        Notation::Gnubg => GnubgId::from_game_state(state).to_string(),
        Notation::Xgid => Xgid::new(*state).to_string(),
        Notation::Fibs => FibsBoard::new(*state).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_notation_by_shape() {
        let cases = [
            ("b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:7", Detected::Bpn),
            ("b4E1C3eE3c1e4B-1:n-w-0:0:7", Detected::Bpn),
            (
                "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
                Detected::Xgid,
            ),
            (
                "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
                Detected::Xgid,
            ),
            ("4HPwATDgc/ABMA:cAkAAAAAAAAE", Detected::Gnubg),
            (" 4HPwATDgc/ABMA ", Detected::PositionId),
            ("board:a:b:1", Detected::Fibs),
            ("hello", Detected::Unknown),
            // Mistyped, each is taken for the notation it most resembles.
            (
                "-b----E-C---eE---c-e---B-:0:0:1:00:0:0:0:0:10",
                Detected::Xgid,
            ),
            ("-b----E-C---eE---c-e----B-:0:0:1:00", Detected::Xgid),
            ("b4E1C3eE3c1e4B", Detected::Bpn),
            ("4HPwATDgc/AB!A:cAkAAAAAAAAE", Detected::Gnubg),
            ("4HPwATDgc/ABMA:cAkAAAAAAA!E", Detected::Gnubg),
            ("4HPwATDgc/ABMAA", Detected::PositionId),
            ("Board:X:O:1", Detected::Fibs),
            (
                "bord:X:O:1:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0",
                Detected::Fibs,
            ),
        ];
        for (s, d) in cases {
            assert_eq!(detect(s), d, "{s}");
        }
        // An XGID without its prefix, followed by more text after a newline (SPEC-xgid §1:
        // readers ignore it), is an XGID; the text after it was taken for BPN's.
        let with_more = "  -b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0\nScore is X:0 O:0";
        assert_eq!(detect(with_more), Detected::Xgid);
        assert_eq!(
            parse_position(with_more),
            Ok(parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10").unwrap())
        );
        assert_eq!(parse_position("  "), Err(ParseError::Empty));
        assert!(matches!(
            parse_position("hello"),
            Err(ParseError::Unrecognized { .. })
        ));
    }

    /// A mistyped position gets the error of the notation it was meant in, naming the field
    /// and the offset.
    #[test]
    fn mistyped_positions_get_their_notations_error() {
        let cases = [
            (
                "-b----E-C---eE---c-e---B-:0:0:1:00:0:0:0:0:10",
                "invalid XGID: position at offset 0: found 25, expected 26 characters",
            ),
            (
                "b4E1C3eE3c1e4B",
                "invalid BPN: string at offset 0: found 1, expected 5 or 6, separated by '-'",
            ),
            ("4HPwATDgc/AB!A:cAkAAAAAAAAE", "'!'"),
            ("4HPwATDgc/ABMA:cAkAAAAAAA!E", "invalid match ID"),
            ("4HPwATDgc/ABMAA", "15"),
            ("Board:X:O:1", "invalid FIBS board: token 0 (tag)"),
        ];
        for (text, want) in cases {
            let e = parse_position(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
            assert!(!e.contains("is not BPN, XGID"), "{text}: {e}");
        }
    }

    #[test]
    fn bare_position_id_is_a_money_state_with_x_on_roll() {
        let g = parse_position("4HPwATDgc/ABMA").unwrap();
        assert_eq!(g, GameState::money(Position::START));
    }

    #[test]
    fn notation_names() {
        for n in Notation::ALL {
            assert_eq!(n.to_string().parse::<Notation>().unwrap(), n);
        }
        assert!("sgf".parse::<Notation>().is_err());
    }
}
