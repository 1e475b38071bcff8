//! Error types of the core crate.

use std::fmt;

/// Dice text or values that do not make a roll.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseDiceError {
    /// A die value outside 1..=6.
    #[error("die value {value} is not in 1..=6")]
    DieOutOfRange {
        /// The value given.
        value: u8,
    },
    /// A character that is not a die.
    #[error("invalid die {found:?} at offset {offset} in dice {input:?}")]
    BadChar {
        /// The whole input.
        input: String,
        /// Byte offset of the bad character.
        offset: usize,
        /// The character found.
        found: char,
    },
    /// Not two dice.
    #[error("dice {input:?} are not two dice such as 31, 3-1 or \"3 1\"")]
    Syntax {
        /// The whole input.
        input: String,
    },
}

/// One thing wrong with a checker layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionProblem {
    /// A side has more than fifteen checkers on the board and bar.
    TooManyCheckers {
        /// Which side, relative to the board: `true` for the side on roll.
        on_roll: bool,
        /// How many it has.
        count: u32,
    },
    /// Both sides have checkers on one point.
    SharedPoint {
        /// The point in the numbering of the side on roll (1..=24).
        point: u8,
    },
    /// Both sides have a checker on the bar against a closed board (all six home points
    /// made): neither can ever move, and no game reaches it (gnubg refuses it too).
    BothClosedOut,
}

impl fmt::Display for PositionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionProblem::TooManyCheckers { on_roll, count } => write!(
                f,
                "{} has {count} checkers on the board (at most 15)",
                if *on_roll {
                    "the side on roll"
                } else {
                    "the opponent"
                }
            ),
            PositionProblem::SharedPoint { point } => write!(
                f,
                "point {point} (side on roll's numbering) holds checkers of both sides"
            ),
            PositionProblem::BothClosedOut => write!(
                f,
                "both sides are on the bar against a closed board, so neither can ever move"
            ),
        }
    }
}

/// A checker layout that is not a legal position; lists everything that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PositionError {
    /// What is wrong, at least one item.
    pub problems: Vec<PositionProblem>,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid position: ")?;
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                write!(f, "; ")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// A play that is not legal in the position for the roll.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal play {play} for roll {roll}")]
pub struct IllegalPlayError {
    /// The play, as written in plain notation.
    pub play: String,
    /// The roll.
    pub roll: crate::Roll,
}

/// Text that is not a gnubg Position ID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParsePositionIdError {
    /// Not 14 characters.
    #[error("position ID {input:?} has {len} characters, expected 14")]
    Length {
        /// The input.
        input: String,
        /// Its length in characters.
        len: usize,
    },
    /// A character outside the Base64 alphabet.
    #[error("invalid character {found:?} at offset {offset} in position ID {input:?}")]
    BadChar {
        /// The input.
        input: String,
        /// Byte offset of the character.
        offset: usize,
        /// The character.
        found: char,
    },
    /// A last character with bits beyond the 80 a Position ID holds.
    #[error(
        "position ID {input:?} ends in {found:?}: its 80 bits leave the last character A, Q, g or w"
    )]
    LastChar {
        /// The input.
        input: String,
        /// The last character.
        found: char,
    },
    /// The bits do not describe 2 × 25 slots followed by zero bits.
    #[error("position ID {input:?} does not encode a board: {reason}")]
    Structure {
        /// The input.
        input: String,
        /// What is wrong with the bit string.
        reason: &'static str,
    },
    /// The bits describe a board that is not a legal position.
    #[error("position ID {input:?}: {source}")]
    Position {
        /// The input.
        input: String,
        /// What is wrong with the board.
        source: PositionError,
    },
}
