//! What the engine writes: [`Response`], one line each.

use std::fmt;

use tavla_core::{Play, PositionId};
use tavla_notation::format_ubgi;

/// The four error codes of UBGI v0.2 (§5), written after `error`.
///
/// v0.1 only suggested codes (`unknown_command`, `bad_argument`, `missing_context`,
/// `unsupported_feature`); tavla answers both dialects with the v0.2 codes, as the gnubg
/// harness's reference bots do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// An unknown command or malformed syntax.
    BadCommand,
    /// A parsed value that is invalid for its key or argument.
    BadValue,
    /// A valid command that cannot be applied now (no position, no dice...).
    BadState,
    /// A feature, key or format that tavla does not implement.
    Unsupported,
}

impl ErrorCode {
    /// The code as written on the wire.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadCommand => "bad_command",
            ErrorCode::BadValue => "bad_value",
            ErrorCode::BadState => "bad_state",
            ErrorCode::Unsupported => "unsupported",
        }
    }

    /// The code for a wire spelling, v0.2 or v0.1 (`unknown_command`, `bad_argument`,
    /// `missing_context`, `unsupported_feature`); `None` for anything else.
    #[must_use]
    pub fn from_wire(s: &str) -> Option<ErrorCode> {
        Some(match s {
            "bad_command" | "unknown_command" => ErrorCode::BadCommand,
            "bad_value" | "bad_argument" => ErrorCode::BadValue,
            "bad_state" | "missing_context" | "search_in_progress" => ErrorCode::BadState,
            "unsupported" | "unsupported_feature" => ErrorCode::Unsupported,
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A cube decision, as written after `bestcube` (and `bestturn cube=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CubeAction {
    /// Double before rolling.
    Double,
    /// Roll without doubling.
    NoDouble,
    /// Accept the double that is pending.
    Take,
    /// Refuse it (lose the game at the current cube value).
    Drop,
    /// Accept it and redouble at once, keeping the cube (money play with beavers; a tavla
    /// extension in UBGI, gnubg's word in its external-player protocol).
    Beaver,
}

impl CubeAction {
    /// The word on the wire: `double`, `nodouble`, `take`, `drop`, `beaver`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            CubeAction::Double => "double",
            CubeAction::NoDouble => "nodouble",
            CubeAction::Take => "take",
            CubeAction::Drop => "drop",
            CubeAction::Beaver => "beaver",
        }
    }

    /// The draft 0.01 word: `double`, `roll`, `take`, `drop`, `beaver`.
    #[must_use]
    pub const fn draft_word(self) -> &'static str {
        match self {
            CubeAction::NoDouble => "roll",
            other => other.as_str(),
        }
    }
}

impl fmt::Display for CubeAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The type of an engine option, as declared by `key` (v0.2) and `option` (v0.1) lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// `true` or `false` (v0.1 `check`).
    Bool,
    /// One of the listed words (v0.1 `combo`).
    Enum(&'static [&'static str]),
    /// An integer in `min..=max` (v0.1 `spin`).
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
}

/// The declaration of one engine option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeySpec {
    /// The v0.2 key (`game.variant`).
    pub key: &'static str,
    /// The v0.1 option name (`Variant`).
    pub option_name: &'static str,
    /// Its type.
    pub kind: KeyType,
    /// The value it has until set.
    pub default: &'static str,
    /// A minor option (v0.2 `!`): it does not change playing strength.
    pub minor: bool,
    /// One line of description.
    pub description: &'static str,
}

impl KeySpec {
    /// Whether `value` is a valid value of this key.
    #[must_use]
    pub fn accepts(&self, value: &str) -> bool {
        match self.kind {
            KeyType::Bool => matches!(value, "true" | "false"),
            KeyType::Enum(words) => words.contains(&value),
            KeyType::Int { min, max } => {
                value.parse::<i64>().is_ok_and(|v| (min..=max).contains(&v))
            }
        }
    }

    /// The values accepted, in words (for error messages).
    #[must_use]
    pub fn expected(&self) -> String {
        match self.kind {
            KeyType::Bool => "true|false".to_string(),
            KeyType::Enum(words) => words.join("|"),
            KeyType::Int { min, max } => format!("{min}..{max}"),
        }
    }
}

/// An identification line answering `ubgi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdField {
    /// `id name`.
    Name,
    /// `id author`.
    Author,
    /// `id version` (draft 0.01 and bgci's bots).
    Version,
}

/// One line from the engine.
///
/// `Display` writes the line without its line break. Free text (names, error messages, `info`
/// values) is written with control characters replaced by `?`, so that a response is always
/// exactly one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// `id name|author|version <text>`.
    Id(IdField, String),
    /// v0.1 option declaration: `option name <Name> type check|combo|spin default <v> ...`.
    Option(KeySpec),
    /// `proto 0.2`.
    Proto(&'static str),
    /// v0.2 key declaration: `key <name> <type> <default> [!] <description>`.
    Key(KeySpec),
    /// `ubgiok`: the handshake is over.
    UbgiOk,
    /// `readyok`.
    ReadyOk,
    /// `value <key> <value>`, the answer to `get`.
    Value(&'static str, String),
    /// `info <key> <value> ...`: pairs of words.
    Info(Vec<(&'static str, String)>),
    /// `bestmove <from/to ...>` or `bestmove pass`: sub-moves written out, highest source first,
    /// `bar` and `off` as words, no `*`, no `(n)`.
    BestMove(Play),
    /// `bestcube double|nodouble|take|drop`.
    BestCube(CubeAction),
    /// v0.2 `bestturn cube=<double|nodouble> move=<from/to ...|pass>`.
    BestTurn(CubeAction, Play),
    /// `besteval <key> <value> ...` (a tavla extension, the answer to `go eval`): pairs of
    /// words, as `info` writes them.
    BestEval(Vec<(&'static str, String)>),
    /// `bestrollout <key> <value> ...` (a tavla extension, the answer to `go rollout` without
    /// dice): pairs of words, as `info` writes them.
    BestRollout(Vec<(&'static str, String)>),
    /// `bestresign no|single|gammon|backgammon` (a tavla extension, the answer to `go resign`).
    BestResign(Option<tavla_core::Resign>),
    /// `bestaccept accept|reject` (a tavla extension, the answer to `go accept <level>`).
    BestAccept(bool),
    /// v0.1 `bestturn cube=<double|nodouble> moveid=<Position ID>`: the position after the play,
    /// seen from the opponent (who is on roll next), as gnubg writes it.
    BestTurnId(CubeAction, PositionId),
    /// Draft 0.01 answer to a bare position: the move alone (`8/5 6/5`; an empty line for no
    /// move), or `double`, `roll`, `take`, `drop`.
    Draft(DraftAnswer),
    /// `error <code> <message>`.
    Error(ErrorCode, String),
}

/// The best action in draft 0.01's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftAnswer {
    /// A move; the pass is written as an empty line.
    Move(Play),
    /// A cube action.
    Cube(CubeAction),
}

/// The most characters of an error message written; the rest is counted, not written.
const MAX_ERROR_CHARS: usize = 400;

/// An error message as written: a message quotes what it refuses, and a huge line refused is
/// not echoed whole (its first [`MAX_ERROR_CHARS`] characters, then how many more there were).
pub(crate) fn capped(message: &str) -> std::borrow::Cow<'_, str> {
    let chars = message.chars().count();
    if chars <= MAX_ERROR_CHARS {
        return message.into();
    }
    let kept: String = message.chars().take(MAX_ERROR_CHARS).collect();
    format!("{kept}... ({} more characters)", chars - MAX_ERROR_CHARS).into()
}

/// Writes `s` with control characters replaced, so that it stays on one line.
fn write_text(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    for c in s.chars() {
        if c.is_control() {
            f.write_str("?")?;
        } else {
            write!(f, "{c}")?;
        }
    }
    Ok(())
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Id(field, text) => {
                let field = match field {
                    IdField::Name => "name",
                    IdField::Author => "author",
                    IdField::Version => "version",
                };
                write!(f, "id {field} ")?;
                write_text(f, text)
            }
            Response::Option(spec) => {
                write!(f, "option name {} type ", spec.option_name)?;
                match spec.kind {
                    KeyType::Bool => write!(f, "check default {}", spec.default),
                    KeyType::Enum(words) => {
                        write!(f, "combo default {}", spec.default)?;
                        for w in words {
                            write!(f, " var {w}")?;
                        }
                        Ok(())
                    }
                    KeyType::Int { min, max } => {
                        write!(f, "spin default {} min {min} max {max}", spec.default)
                    }
                }
            }
            Response::Proto(v) => write!(f, "proto {v}"),
            Response::Key(spec) => {
                write!(f, "key {} ", spec.key)?;
                match spec.kind {
                    KeyType::Bool => write!(f, "bool {}", spec.default)?,
                    KeyType::Enum(words) => write!(f, "enum {} {}", words.join("|"), spec.default)?,
                    KeyType::Int { min, max } => write!(f, "int {min}..{max} {}", spec.default)?,
                }
                if spec.minor {
                    f.write_str(" !")?;
                }
                write!(f, " {}", spec.description)
            }
            Response::UbgiOk => f.write_str("ubgiok"),
            Response::ReadyOk => f.write_str("readyok"),
            Response::Value(key, value) => {
                write!(f, "value {key} ")?;
                write_text(f, value)
            }
            Response::Info(pairs) => write_pairs(f, "info", pairs),
            Response::BestEval(pairs) => write_pairs(f, "besteval", pairs),
            Response::BestRollout(pairs) => write_pairs(f, "bestrollout", pairs),
            Response::BestResign(None) => f.write_str("bestresign no"),
            Response::BestResign(Some(level)) => write!(f, "bestresign {level}"),
            Response::BestAccept(accepts) => {
                write!(
                    f,
                    "bestaccept {}",
                    if *accepts { "accept" } else { "reject" }
                )
            }
            Response::BestMove(play) => write!(f, "bestmove {}", format_ubgi(play)),
            Response::BestCube(action) => write!(f, "bestcube {action}"),
            Response::BestTurn(action, play) => {
                write!(f, "bestturn cube={action} move={}", format_ubgi(play))
            }
            Response::BestTurnId(action, id) => write!(f, "bestturn cube={action} moveid={id}"),
            Response::Draft(DraftAnswer::Move(play)) => {
                if play.is_empty() {
                    Ok(())
                } else {
                    f.write_str(&format_ubgi(play))
                }
            }
            Response::Draft(DraftAnswer::Cube(action)) => f.write_str(action.draft_word()),
            Response::Error(code, message) => {
                write!(f, "error {code} ")?;
                write_text(f, &capped(message))
            }
        }
    }
}

/// `word`, then each key and its value, after a space each.
fn write_pairs(f: &mut fmt::Formatter<'_>, word: &str, pairs: &[(&str, String)]) -> fmt::Result {
    f.write_str(word)?;
    for (k, v) in pairs {
        write!(f, " {k} ")?;
        write_text(f, v)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_core::CheckerMove;

    #[test]
    fn answers_are_written_as_the_drafts_spell_them() {
        let play = Play::new(&[
            CheckerMove::new(6, 5, false),
            CheckerMove::new(25, 22, true),
        ]);
        assert_eq!(Response::BestMove(play).to_string(), "bestmove bar/22 6/5");
        assert_eq!(Response::BestMove(Play::PASS).to_string(), "bestmove pass");
        assert_eq!(
            Response::BestTurn(CubeAction::NoDouble, play).to_string(),
            "bestturn cube=nodouble move=bar/22 6/5"
        );
        assert_eq!(
            Response::Draft(DraftAnswer::Move(Play::PASS)).to_string(),
            ""
        );
        assert_eq!(
            Response::Draft(DraftAnswer::Cube(CubeAction::NoDouble)).to_string(),
            "roll"
        );
        assert_eq!(
            Response::Error(ErrorCode::BadCommand, "unknown\ncommand".into()).to_string(),
            "error bad_command unknown?command"
        );
        // A huge line refused is not echoed whole.
        let long = format!("unknown command {:?}", "x".repeat(2_000_000));
        let line = Response::Error(ErrorCode::BadCommand, long).to_string();
        assert!(line.len() < 500, "{}", line.len());
        assert!(
            line.ends_with("... (1999618 more characters)"),
            "{}",
            &line[line.len() - 40..]
        );
    }

    #[test]
    fn error_codes_read_both_dialects() {
        for code in [
            ErrorCode::BadCommand,
            ErrorCode::BadValue,
            ErrorCode::BadState,
            ErrorCode::Unsupported,
        ] {
            assert_eq!(ErrorCode::from_wire(code.as_str()), Some(code));
        }
        assert_eq!(
            ErrorCode::from_wire("missing_context"),
            Some(ErrorCode::BadState)
        );
        assert_eq!(ErrorCode::from_wire("oops"), None);
    }
}
