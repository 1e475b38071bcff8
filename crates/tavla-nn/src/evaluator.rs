//! The [`Evaluator`] trait and its neural implementation.

use tavla_core::Position;

use crate::inputs::{encode, phase, NUM_INPUTS};
use crate::net::MAX_HIDDEN;
use crate::probs::Probabilities;
use crate::weights::Weights;

/// Cubeless evaluation of positions.
pub trait Evaluator {
    /// The probabilities of `pos` for the side on roll, before it rolls. Finished games are
    /// exact.
    fn evaluate(&self, pos: &Position) -> Probabilities;

    /// Evaluates `positions` into `out` (same length), each for its side on roll.
    ///
    /// # Panics
    /// When the slices differ in length.
    fn evaluate_batch(&self, positions: &[Position], out: &mut [Probabilities]) {
        assert_eq!(positions.len(), out.len(), "one output per position");
        for (p, o) in positions.iter().zip(out) {
            *o = self.evaluate(p);
        }
    }

    /// Evaluates the results of plays (positions seen from the mover, as in
    /// [`tavla_core::PlayList::positions`]) for the mover: the opponent is on roll next, so each
    /// position is flipped, evaluated and the probabilities flipped back.
    ///
    /// # Panics
    /// When the slices differ in length.
    fn evaluate_plays(&self, after: &[Position], out: &mut [Probabilities]) {
        assert_eq!(after.len(), out.len(), "one output per play");
        for (p, o) in after.iter().zip(out) {
            *o = match p.outcome() {
                Some(outcome) => Probabilities::from_outcome(outcome),
                None => self.evaluate(&p.flip()).flip(),
            };
        }
    }
}

impl Evaluator for Weights {
    fn evaluate(&self, pos: &Position) -> Probabilities {
        if let Some(outcome) = pos.outcome() {
            return Probabilities::from_outcome(outcome);
        }
        let mut x = [0.0f32; NUM_INPUTS];
        encode(pos, &mut x);
        let mut hidden = [0.0f32; MAX_HIDDEN];
        let y = self.network(phase(pos)).forward_into(&x, &mut hidden);
        Probabilities::from_array(y).consistent()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_core::{PlayList, Roll};

    #[test]
    fn game_over_is_exact() {
        let w = Weights::random(8, 8, 1);
        // Side on roll has borne off everything; the opponent has a checker in our home board.
        let mut b = [0i8; 26];
        b[3] = -15;
        let pos = Position::try_from(b).unwrap();
        let p = w.evaluate(&pos);
        assert_eq!(p.equity(), 3.0);
        assert_eq!(w.evaluate(&pos.flip()).equity(), -3.0);
    }

    #[test]
    fn plays_are_evaluated_for_the_mover() {
        let w = Weights::default_weights();
        let mut plays = PlayList::new();
        Position::START.legal_plays(Roll::from_values(3, 1), &mut plays);
        let mut out = vec![Probabilities::default(); plays.len()];
        w.evaluate_plays(plays.positions(), &mut out);
        for (p, o) in plays.positions().iter().zip(&out) {
            assert!((o.equity() + w.evaluate(&p.flip()).equity()).abs() < 1e-5);
        }
    }
}
