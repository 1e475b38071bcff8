//! Games between tavla players.
//!
//! The [`arena`]: money games (cubeless or with the cube) or matches between two
//! [`tavla_player::Player`]s with duplicate dice, on several threads, reporting wins, gammons,
//! backgammons and A's points per game with a 95% confidence interval ([`arena::run_arena`],
//! [`arena::ArenaResult`]).
//!
//! ```
//! use std::convert::Infallible;
//! use indicatif::ProgressBar;
//! use tavla_core::Rules;
//! use tavla_match::arena::{run_arena, ArenaConfig, Stakes};
//! use tavla_player::RandomPlayer;
//!
//! let config = ArenaConfig { games: 20, seed: 1, rules: Rules::Standard, threads: 1, stakes: Stakes::Cubeless, beavers: false, resignations: false };
//! let random = |seed| Ok::<_, Infallible>(RandomPlayer::new(seed));
//! let result = run_arena(&config, random, random, &ProgressBar::hidden())?;
//! assert_eq!(result.wins_a + result.wins_b, 20);
//! # Ok::<(), tavla_match::arena::ArenaError>(())
//! ```
#![warn(missing_docs)]

pub mod arena;
pub mod judge;
