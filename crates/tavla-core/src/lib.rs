//! The rules of backgammon for tavla: the vocabulary types, legal play generation and perft.
//!
//! * [`Side`] and [`BySide`]: the two players, X (gnubg's player 1) and O (player 0).
//! * [`Die`] and [`Roll`], with [`Roll::ALL_21`], the distinct rolls and their weights.
//! * [`Board`]: a raw, unvalidated checker layout; [`Position`]: a validated, `Copy` layout seen
//!   from the side on roll, with a cheap [`Position::flip`].
//! * [`CheckerMove`] and [`Play`]; [`PlayList`], the legal plays of a roll with their results.
//! * [`GameState`]: a position with everything around it (dice, cube, score, match rules).
//! * [`PositionId`]: gnubg's Position ID; [`perft`]: play counting for verification.
//!
//! ```
//! use tavla_core::{PlayList, Position, Roll};
//!
//! let mut plays = PlayList::new();
//! Position::START.legal_plays("31".parse::<Roll>()?, &mut plays);
//! assert!(plays.plays().any(|p| p.to_string() == "8/5 6/5"));
//! # Ok::<(), tavla_core::ParseDiceError>(())
//! ```
#![warn(missing_docs)]

mod count;
mod dice;
mod error;
mod game;
mod hash;
mod movegen;
pub mod perft;
mod play;
mod position;
mod position_id;
mod side;

pub use count::count_legal_positions;
pub use dice::{Die, Roll};
pub use error::{
    IllegalPlayError, ParseDiceError, ParsePositionIdError, PositionError, PositionProblem,
};
pub use game::{
    Cube, CubeOwner, CubeResponse, Dice, GameState, NoDouble, ParseResignError, Resign,
};
pub use movegen::{PlayList, Rules};
pub use play::{CheckerMove, Play, FROM_BAR, TO_OFF};
pub use position::{Board, Outcome, Position, BAR, OPPONENT_BAR};
pub use position_id::PositionId;
pub use side::{BySide, Side};
