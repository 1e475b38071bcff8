//! The seed article's hand-made evaluation ("Backgammon Artificial Intelligence", Kristian
//! Ekman, 2021–22): pip lead, connected blocks, blots, run-or-block, and race terms, with the
//! constants in a TOML file. `docs/heuristic.md` gives the formulas and how they read the
//! article's program.
//!
//! * [`HeuristicConfig`]: the constants (`bf`, `bfp`, `bt`, `cbp`, `cb`, `rb`, race weights),
//!   with [`HeuristicConfig::article`] (the default), [`HeuristicConfig::untrained`] (every factor
//!   zero) and loading and saving TOML; [`ConfigError`].
//! * [`HeuristicEval`]: the evaluation, from the side whose checkers are positive in the
//!   position; [`Terms`] for its parts; [`RaceEval`] to plug a bearoff database into races.

mod config;
mod eval;

pub use config::{ConfigError, HeuristicConfig, Location, RaceWeights};
pub use eval::{HeuristicEval, RaceEval, Terms};
