//! Players that choose plays by evaluating positions, for tavla.
//!
//! For now the seed article's AI ("Backgammon Artificial Intelligence", Kristian Ekman),
//! tavla's baseline player, over [`tavla_eval::heuristic::HeuristicEval`]:
//!
//! * [`HeuristicPlayer`] (0-ply): plays the play whose resulting position scores best.
//! * [`HeuristicLookahead`] (1-ply): plays the play with the best [`probability_score`], the
//!   expectation over the opponent's 21 rolls of its best reply. Exact: every play and every
//!   reply is evaluated, nothing is filtered.
//!
//! Both implement [`tavla_player::Player`]. [`OneSidedRace`] plugs the one-sided bearoff
//! database into the evaluation's races ([`tavla_eval::heuristic::RaceEval`]).
//!
//! ```
//! use tavla_core::{GameState, PlayList, Position, Roll};
//! use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
//! use tavla_player::Player;
//! use tavla_search::HeuristicPlayer;
//!
//! let mut player = HeuristicPlayer::new(HeuristicEval::new(HeuristicConfig::default()));
//! let state = GameState::money(Position::START);
//! let roll = Roll::from_values(3, 1);
//! let mut plays = PlayList::new();
//! state.position.legal_plays(roll, &mut plays);
//! let choice = player.choose_play(&state, roll, &plays);
//! assert_eq!(plays.play(choice).to_string(), "8/5 6/5");
//! ```
#![warn(missing_docs)]

mod heuristic;
mod race;

pub use heuristic::{probability_score, HeuristicLookahead, HeuristicPlayer};
pub use race::OneSidedRace;
