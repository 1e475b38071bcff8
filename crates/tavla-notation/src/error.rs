//! What can be wrong with a notation, shared by all the parsers.

use std::fmt;

use tavla_core::{PositionError, Side};

/// One thing wrong with a piece of notation. The error types of the parsers pair it with the
/// field and the byte offset where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// The field is empty or the text ends too early.
    Missing {
        /// What should have been there.
        expected: &'static str,
    },
    /// The text does not have the right number of fields.
    FieldCount {
        /// How many were found (fields, tokens or characters, as `expected` says).
        found: usize,
        /// How many are allowed, in words.
        expected: &'static str,
    },
    /// A character that does not belong here.
    UnexpectedChar {
        /// The character found.
        found: char,
        /// What was expected instead.
        expected: &'static str,
    },
    /// A number that cannot be read (no digits, a sign where none belongs, or too large).
    BadNumber {
        /// The text of the number.
        text: String,
    },
    /// A number outside the allowed range.
    OutOfRange {
        /// The number.
        value: i64,
        /// The allowed values, in words.
        expected: &'static str,
    },
    /// A BPN placement that does not describe exactly 24 points.
    PointCount {
        /// The number of points described.
        found: u32,
    },
    /// A cube value that is not a power of two from 1 to 32768.
    NotPowerOfTwo {
        /// The value.
        value: u64,
    },
    /// A side with more than fifteen checkers.
    TooManyCheckers {
        /// The side.
        side: Side,
        /// Its checkers on the board and the bar.
        count: u32,
    },
    /// More than 15 checkers for a side the notation names in its own words (FIBS: the
    /// player, the opponent).
    TooManyCheckersOf {
        /// The side, in the notation's words.
        who: &'static str,
        /// Its count.
        count: u32,
    },
    /// A stated count of borne-off checkers that disagrees with the checkers on the board.
    BorneOffMismatch {
        /// The side.
        side: Side,
        /// The count written.
        stated: i64,
        /// Fifteen minus the checkers on the board and bar.
        implied: u32,
    },
    /// Fields that are each well formed but contradict each other.
    Inconsistent {
        /// What contradicts what.
        reason: &'static str,
    },
    /// A well-formed state that [`tavla_core::GameState`] cannot represent.
    Unsupported {
        /// What it is.
        what: &'static str,
    },
    /// The checkers do not make a legal position.
    Position(PositionError),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing { expected } => write!(f, "missing {expected}"),
            Problem::FieldCount { found, expected } => {
                write!(f, "found {found}, expected {expected}")
            }
            Problem::UnexpectedChar { found, expected } => {
                write!(f, "unexpected {found:?}, expected {expected}")
            }
            Problem::BadNumber { text } => write!(f, "{text:?} is not a number in range"),
            Problem::OutOfRange { value, expected } => {
                write!(f, "{value} is out of range, expected {expected}")
            }
            Problem::PointCount { found } => {
                write!(f, "the placement covers {found} points, expected 24")
            }
            Problem::NotPowerOfTwo { value } => {
                write!(
                    f,
                    "cube value {value} is not a power of two from 1 to 32768"
                )
            }
            Problem::TooManyCheckers { side, count } => {
                write!(f, "{side} has {count} checkers (at most 15)")
            }
            Problem::TooManyCheckersOf { who, count } => {
                write!(f, "{who} has {count} checkers (at most 15)")
            }
            Problem::BorneOffMismatch {
                side,
                stated,
                implied,
            } => write!(
                f,
                "{side} is said to have borne off {stated} checker{} but the board implies \
                 {implied}",
                if *stated == 1 { "" } else { "s" }
            ),
            Problem::Inconsistent { reason } => f.write_str(reason),
            Problem::Unsupported { what } => write!(f, "unsupported: {what}"),
            Problem::Position(e) => write!(f, "{e}"),
        }
    }
}

/// Reads an unsigned decimal number (digits only) in `0..=max`.
pub(crate) fn parse_uint(text: &str, max: u64, expected: &'static str) -> Result<u64, Problem> {
    if text.is_empty() {
        return Err(Problem::Missing { expected });
    }
    if let Some(c) = text.chars().find(|c| !c.is_ascii_digit()) {
        return Err(Problem::UnexpectedChar { found: c, expected });
    }
    let value: u64 = text.parse().map_err(|_| Problem::BadNumber {
        text: text.to_string(),
    })?;
    if value > max {
        return Err(Problem::OutOfRange {
            value: i64::try_from(value).unwrap_or(i64::MAX),
            expected,
        });
    }
    Ok(value)
}

/// Reads a signed decimal number (an optional `-` or `+`, then digits) in `min..=max`.
pub(crate) fn parse_int(
    text: &str,
    min: i64,
    max: i64,
    expected: &'static str,
) -> Result<i64, Problem> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() {
        return Err(Problem::Missing { expected });
    }
    if let Some(c) = digits.chars().find(|c| !c.is_ascii_digit()) {
        return Err(Problem::UnexpectedChar { found: c, expected });
    }
    let value: i64 = text.parse().map_err(|_| Problem::BadNumber {
        text: text.to_string(),
    })?;
    if value < min || value > max {
        return Err(Problem::OutOfRange { value, expected });
    }
    Ok(value)
}

/// Checks the fifteen-checker limit of each side, in absolute terms.
pub(crate) fn check_counts(x: &[u8; 25], o: &[u8; 25]) -> Result<(), Problem> {
    for (side, arr) in [(Side::X, x), (Side::O, o)] {
        let count: u32 = arr.iter().map(|&n| u32::from(n)).sum();
        if count > 15 {
            return Err(Problem::TooManyCheckers { side, count });
        }
    }
    Ok(())
}

/// Splits `s` on `sep`, giving each piece with its byte offset in `s` (plus `base`).
pub(crate) fn split_offsets(s: &str, sep: char, base: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == sep {
            out.push((base + start, &s[start..i]));
            start = i + c.len_utf8();
        }
    }
    out.push((base + start, &s[start..]));
    out
}

/// Reads exactly two dice digits (`31`, `66`) from `text`. On error gives the byte offset in
/// `text` and the problem; `expected` describes the field, `end` what must follow the dice.
pub(crate) fn parse_two_dice(
    text: &str,
    expected: &'static str,
    end: &'static str,
) -> Result<tavla_core::Roll, (usize, Problem)> {
    let mut values = [tavla_core::Die::new(1); 2];
    let mut chars = text.char_indices();
    for slot in &mut values {
        let Some((i, c)) = chars.next() else {
            return Err((text.len(), Problem::Missing { expected }));
        };
        let v = c
            .to_digit(10)
            .ok_or((i, Problem::UnexpectedChar { found: c, expected }))?;
        *slot = tavla_core::Die::try_from(v as u8).map_err(|_| {
            (
                i,
                Problem::OutOfRange {
                    value: i64::from(v),
                    expected: "a die 1..=6",
                },
            )
        })?;
    }
    if let Some((i, found)) = chars.next() {
        return Err((
            i,
            Problem::UnexpectedChar {
                found,
                expected: end,
            },
        ));
    }
    Ok(tavla_core::Roll::new(values[0], values[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_strictly() {
        assert_eq!(parse_uint("15", 15, "n"), Ok(15));
        assert!(matches!(
            parse_uint("16", 15, "n"),
            Err(Problem::OutOfRange { value: 16, .. })
        ));
        assert!(matches!(
            parse_uint("1a", 15, "n"),
            Err(Problem::UnexpectedChar { found: 'a', .. })
        ));
        assert!(matches!(
            parse_uint("", 15, "n"),
            Err(Problem::Missing { .. })
        ));
        assert!(matches!(
            parse_uint("99999999999999999999999", u64::MAX, "n"),
            Err(Problem::BadNumber { .. })
        ));
        assert_eq!(parse_int("-1", -1, 1, "n"), Ok(-1));
        assert!(matches!(
            parse_int("-", -1, 1, "n"),
            Err(Problem::Missing { .. })
        ));
        assert!(matches!(
            parse_int("--1", -1, 1, "n"),
            Err(Problem::UnexpectedChar { found: '-', .. })
        ));
    }

    #[test]
    fn split_keeps_offsets() {
        assert_eq!(
            split_offsets("ab:c::d", ':', 10),
            vec![(10, "ab"), (13, "c"), (15, ""), (16, "d")]
        );
    }
}
