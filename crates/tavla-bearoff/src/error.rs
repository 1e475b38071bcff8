//! Error types, one per failure domain.
//!
//! An error that wraps another one says what it was doing in its message and hands the cause
//! out through `source()` (print the chain, e.g. with anyhow's `{:#}`), never both.

use std::path::PathBuf;

use crate::format::Kind;

/// A number of points and checkers the perfect hash or a database cannot be made for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// The number of points is 0 or above [`MAX_POINTS`](crate::MAX_POINTS).
    #[error("number of points {points} is out of range 1..={max}")]
    Points {
        /// The number asked for.
        points: usize,
        /// The largest number supported.
        max: usize,
    },
    /// Databases hold at most 15 checkers a side.
    #[error("number of checkers {checkers} is out of range 0..={max} for a database")]
    Checkers {
        /// The number asked for.
        checkers: usize,
        /// The largest number supported.
        max: usize,
    },
    /// There are more positions than a `u64` can count.
    #[error("{points} points and {checkers} checkers give more positions than a u64 can index")]
    TooManyPositions {
        /// Points asked for.
        points: usize,
        /// Checkers asked for.
        checkers: usize,
    },
    /// The database would not fit in this machine's address space (or in the file format).
    #[error("a {what} database of {points} points and {checkers} checkers is too large to build")]
    TooLarge {
        /// "one-sided" or "two-sided".
        what: &'static str,
        /// Points asked for.
        points: usize,
        /// Checkers asked for.
        checkers: usize,
    },
}

/// A one-sided position that does not fit a shape (points × checkers).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// More point counts were given than the board has home points.
    #[error("{found} point counts given, at most {max} are supported")]
    TooManyPoints {
        /// How many counts were given.
        found: usize,
        /// The largest number supported.
        max: usize,
    },
    /// A checker stands on a point the database does not cover.
    #[error("a checker on point {point} is outside the {points} points of the database")]
    OutsidePoints {
        /// The point (1 = ace point).
        point: usize,
        /// The number of points covered.
        points: usize,
    },
    /// More checkers than the database holds.
    #[error("{found} checkers on the board, the database holds at most {max}")]
    TooManyCheckers {
        /// Checkers in the position.
        found: usize,
        /// Checkers the database allows.
        max: usize,
    },
}

/// An index outside `0..count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("index {index} is out of range 0..{count}")]
pub struct IndexError {
    /// The index given.
    pub index: u64,
    /// The number of positions.
    pub count: u64,
}

/// A position written as checker counts (`3,3,2,0,2,1`, ace point first) that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParsePositionError {
    /// Nothing was given.
    #[error("empty position: expected checker counts such as 0,0,2,1,0,0 (ace point first)")]
    Empty,
    /// A field is not a number from 0 to 15.
    #[error("field {field} ({text:?}) is not a checker count from 0 to 15")]
    BadCount {
        /// 1-based field number, which is also the point number.
        field: usize,
        /// The text of the field.
        text: String,
    },
    /// More fields than points on a board's side.
    #[error("{found} fields given, at most {max} points are supported")]
    TooManyPoints {
        /// Fields given.
        found: usize,
        /// The largest number supported.
        max: usize,
    },
    /// More than 15 checkers in all.
    #[error("{found} checkers in all, a side has at most 15")]
    TooManyCheckers {
        /// Checkers given.
        found: usize,
    },
}

/// A roll of two dice that cannot be read or made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    /// A die is not 1 to 6.
    #[error("die value {value} is out of range 1..=6")]
    OutOfRange {
        /// The value given.
        value: u8,
    },
    /// The text is not two digits 1 to 6.
    #[error("dice {text:?} are not two digits 1 to 6 such as 61")]
    Syntax {
        /// The text given.
        text: String,
    },
}

/// Bytes that are not a valid tavla bearoff database.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// Shorter than the header.
    #[error("file is {len} bytes, shorter than the {header}-byte header")]
    TooShort {
        /// Length found.
        len: usize,
        /// Header length.
        header: usize,
    },
    /// Not a tavla bearoff database at all.
    #[error("bad magic bytes {found:02x?}: not a tavla bearoff database")]
    Magic {
        /// The first eight bytes found.
        found: [u8; 8],
    },
    /// Written by a different version of the format.
    #[error("format version {found} is not supported (this build reads version {supported})")]
    Version {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// A kind byte that names no database kind.
    #[error("unknown database kind {found}")]
    UnknownKind {
        /// The kind byte.
        found: u8,
    },
    /// Flag bits this version does not know.
    #[error("unknown flags {found:#04x} in the header")]
    Flags {
        /// The flags byte.
        found: u8,
    },
    /// A database of the other kind.
    #[error("expected a {expected} database, found a {found} database")]
    WrongKind {
        /// The kind asked for.
        expected: Kind,
        /// The kind in the file.
        found: Kind,
    },
    /// The header names a shape that cannot exist.
    #[error("impossible shape in the header")]
    Shape(#[from] ShapeError),
    /// The header's position count disagrees with its shape.
    #[error(
        "header says {found} positions, {points} points and {checkers} checkers have {expected}"
    )]
    Positions {
        /// Count in the header.
        found: u64,
        /// Count implied by the shape.
        expected: u64,
        /// Points in the header.
        points: u8,
        /// Checkers in the header.
        checkers: u8,
    },
    /// The payload has the wrong length.
    #[error("payload is {found} bytes, the header says {expected}")]
    PayloadLength {
        /// Bytes after the header.
        found: u64,
        /// Bytes announced.
        expected: u64,
    },
    /// The data were damaged.
    #[error("checksum mismatch: header says {expected:#010x}, data give {computed:#010x} (file is corrupt)")]
    Checksum {
        /// CRC-32 in the header.
        expected: u32,
        /// CRC-32 of the data.
        computed: u32,
    },
    /// The payload is inconsistent.
    #[error("corrupt payload at position {index}: {what}")]
    Corrupt {
        /// The position whose record is bad.
        index: u64,
        /// What is wrong.
        what: &'static str,
    },
}

/// A database file that could not be read, written or built.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// Reading or writing failed.
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a valid database.
    #[error("{}: not a valid bearoff database", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: FormatError,
    },
    /// The file holds a database of another shape than asked for.
    #[error("{}: holds {found_points} points x {found_checkers} checkers, expected {points} x {checkers}", path.display())]
    ShapeMismatch {
        /// The file.
        path: PathBuf,
        /// Points in the file.
        found_points: u8,
        /// Checkers in the file.
        found_checkers: u8,
        /// Points asked for.
        points: u8,
        /// Checkers asked for.
        checkers: u8,
    },
    /// The file holds a two-sided database with cubeful equities where one without was asked
    /// for, or the other way round.
    #[error("{}: {} cubeful equities", path.display(), if *cubeful { "holds no" } else { "holds unexpected" })]
    CubefulMismatch {
        /// The file.
        path: PathBuf,
        /// Whether cubeful equities were asked for.
        cubeful: bool,
    },
    /// The database cannot be built.
    #[error("cannot build the database")]
    Shape(#[from] ShapeError),
    /// No place for the cache: neither `TAVLA_DATA_DIR` nor a platform cache directory is known.
    #[error("no cache directory for the bearoff databases: set TAVLA_DATA_DIR")]
    NoCacheDir,
}

/// A position or roll the databases cannot answer for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The position does not fit the database.
    #[error("{side}")]
    Position {
        /// Which side ("player on roll", "opponent", "position").
        side: &'static str,
        /// What is wrong.
        source: PositionError,
    },
    /// A side has borne off all its checkers: the game is over.
    #[error("the {side} has no checkers left: the game is over")]
    GameOver {
        /// Which side ("player on roll", "opponent").
        side: &'static str,
    },
}
