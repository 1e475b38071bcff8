//! tavla's neural evaluator: cubeless outcome probabilities from small networks trained by
//! tavla's own self-play, and the search and player built on them.
//!
//! - [`Probabilities`]: the five cubeless outcome probabilities, with [`Probabilities::equity`].
//! - [`inputs`]: the input encoding (raw board plus expert features) and its layout hash.
//! - [`Network`]: one hidden layer or two, allocation-free forward pass, gradient step.
//! - [`Weights`]: the contact, crashed and race networks and the versioned `.tnn` file format, with the
//!   default weights embedded ([`Weights::default_weights`]).
//! - [`Evaluator`]: the evaluation trait, with batch evaluation of all plays of a roll;
//!   implemented by [`Weights`]. Finished games are exact.
//! - [`bearoff`]: exact race values from the two-sided bearoff database, used by the search
//!   when given one.
//! - [`search`]: n-ply expectimax with move filters and a cache; [`NeuralPlayer`].
//! - [`td`]: TD(λ) self-play training from random weights, checkpointed and resumable.
//! - [`supervised`]: positions from self-play labelled by tavla's own deeper search, and
//!   gradient descent on them.
//! - [`rollout`]: cubeless, multithreaded, seeded rollouts with variance reduction.
//! - [`cube`]: money cube decisions from cubeless probabilities (Janowski's model).
//! - [`review`]: what a play or a cube action already made cost (`tavla analyse`).
//! - [`mod@bench`]: the fixed benchmark behind `tavla bench` (node-count signature, decision times).
//!
//! ```
//! use tavla_core::{PlayList, Position, Roll};
//! use tavla_nn::{Evaluator, Probabilities, Weights};
//!
//! let weights = Weights::default_weights();
//! let start = weights.evaluate(&Position::START);
//! assert!(start.win > 0.3 && start.win < 0.7);
//!
//! // All plays of a roll as one batch, each valued for the mover.
//! let mut plays = PlayList::new();
//! Position::START.legal_plays(Roll::from_values(3, 1), &mut plays);
//! let mut values = vec![Probabilities::default(); plays.len()];
//! weights.evaluate_plays(plays.positions(), &mut values);
//! ```
#![warn(missing_docs)]

pub mod bearoff;
pub mod bench;
pub mod cube;
mod evaluator;
pub mod inputs;
pub mod met;
mod net;
pub mod optim;
mod probs;
pub mod resign;
pub mod review;
pub mod rollout;
pub mod search;
pub mod supervised;
pub mod td;
pub mod tempmap;
mod weights;

pub use evaluator::Evaluator;
pub use net::{Network, MAX_HIDDEN, MAX_SECOND, NUM_OUTPUTS};
pub use probs::Probabilities;
pub use search::{NeuralPlayer, RankedPlay, Search};
pub use weights::{Weights, WeightsError, DEFAULT_WEIGHTS, FORMAT_VERSION, MAGIC, MAX_FILE_BYTES};

/// The set bits of `set`, lowest first: the points of a set of points, the changed inputs of
/// a span.
#[inline]
pub(crate) fn bits(mut set: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let k = set.trailing_zeros() as usize;
            set &= set - 1;
            k
        })
    })
}
