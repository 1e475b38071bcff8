//! Training tavla's players.
//!
//! For now the seed article's trainer for the heuristic constants, in [`heuristic`]: a
//! coordinate search that plays each candidate configuration against the current one in the
//! arena and keeps it when it wins more than 51% of 3,000 games ([`heuristic::Trainer`]),
//! seeded and resumable from a JSON [`heuristic::Checkpoint`].
//!
//! ```
//! use indicatif::ProgressBar;
//! use tavla_eval::heuristic::HeuristicConfig;
//! use tavla_train::heuristic::{TrainSettings, Trainer};
//!
//! let settings = TrainSettings { games_per_step: 20, threads: 1, ..TrainSettings::default() };
//! let mut trainer = Trainer::new(HeuristicConfig::article_untrained(), settings)?;
//! let record = trainer.step(&ProgressBar::hidden())?;
//! assert_eq!(record.games, 20);
//! # Ok::<(), tavla_train::heuristic::TrainError>(())
//! ```
#![warn(missing_docs)]

pub mod heuristic;
