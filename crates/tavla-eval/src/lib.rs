//! Position evaluation for tavla.
//!
//! For now one evaluator: [`heuristic`], the seed article's hand-made evaluation, tavla's
//! baseline and teaching example. [`heuristic::HeuristicConfig`] holds its constants (TOML),
//! [`heuristic::HeuristicEval`] scores positions without allocating.
//!
//! ```
//! use tavla_core::Position;
//! use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
//!
//! let eval = HeuristicEval::new(HeuristicConfig::default());
//! let terms = eval.terms(&Position::START);
//! assert_eq!(terms.lead, 0.0); // equal pip counts
//! assert!(terms.blocks > 0.0); // four made points
//! ```
#![warn(missing_docs)]

pub mod heuristic;
