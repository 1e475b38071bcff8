//! The [`Evaluator`] trait and its neural implementation.

use tavla_core::Position;

use crate::inputs::{encode, phase, Phase, NUM_INPUTS};
use crate::net::{BATCH, MAX_HIDDEN, MAX_INPUTS, MAX_SECOND, NUM_OUTPUTS};
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
        let phase = phase(pos);
        let net = self.network(phase);
        net.hidden_sums(&x, &mut hidden, self.rows16(phase));
        let mut y = [[0.0f32; NUM_OUTPUTS]; 1];
        let mut mid = [[0.0f32; MAX_SECOND]; 1];
        net.outputs_batch(
            std::slice::from_mut(&mut hidden),
            &mut y,
            self.mid16(phase),
            &mut mid,
        );
        let p = Probabilities::from_array(y[0]).consistent();
        Possible::of(pos, phase).apply(p)
    }

    /// As the trait's, but incrementally (see `Weights::evaluate_similar`).
    fn evaluate_batch(&self, positions: &[Position], out: &mut [Probabilities]) {
        assert_eq!(positions.len(), out.len(), "one output per position");
        self.evaluate_positions(|i| positions[i], out);
    }

    /// As the trait's, but incrementally (see `Weights::evaluate_similar`).
    fn evaluate_plays(&self, after: &[Position], out: &mut [Probabilities]) {
        assert_eq!(after.len(), out.len(), "one output per play");
        self.evaluate_positions(|i| after[i].flip(), out);
        for o in out.iter_mut() {
            *o = o.flip();
        }
    }
}

/// Network inputs of a batch of positions, encoded once for several networks of the same
/// input layout: the search ranks a roll's plays with the pruning networks and then evaluates
/// the best few in full from the same inputs ([`Weights::evaluate_encoded`]).
#[derive(Clone, Default)]
pub(crate) struct EncodedBatch {
    inputs: Vec<[f32; NUM_INPUTS]>,
    /// Per position: its phase and possible results, or its exact value when the game is
    /// over.
    items: Vec<Result<(Phase, Possible), Probabilities>>,
}

impl EncodedBatch {
    /// Encodes `positions`, replacing what the batch held.
    pub(crate) fn encode(&mut self, positions: &[Position]) {
        self.inputs.resize(positions.len(), [0.0; NUM_INPUTS]);
        self.items.clear();
        for (pos, x) in positions.iter().zip(&mut self.inputs) {
            self.items.push(match pos.outcome() {
                Some(outcome) => Err(Probabilities::from_outcome(outcome)),
                None => {
                    encode(pos, x);
                    let phase = phase(pos);
                    Ok((phase, Possible::of(pos, phase)))
                }
            });
        }
    }
}

/// The working memory of [`Weights::evaluate_similar`], kept per thread: it is larger than
/// most batches' work, and zeroing it for every call showed in profiles.
struct Scratch {
    /// Per phase, the inputs of the reference position.
    ref_inputs: [[f32; NUM_INPUTS]; Phase::ALL.len()],
    /// Per phase, the reference position's hidden sums.
    ref_sums: [[f32; MAX_HIDDEN]; Phase::ALL.len()],
    /// Up to BATCH positions of one phase whose outputs are computed together.
    block: [[f32; MAX_HIDDEN]; BATCH],
    /// The inputs that differ from the reference ([`crate::net::Network::update_sums`]).
    delta: [(u32, f32); MAX_INPUTS],
    /// The second hidden layer's sums of a block (`Network::outputs_batch`).
    mid: [[f32; MAX_SECOND]; BATCH],
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Box<Scratch>> = std::cell::RefCell::new(Box::new(Scratch {
        ref_inputs: [[0.0; NUM_INPUTS]; Phase::ALL.len()],
        ref_sums: [[0.0; MAX_HIDDEN]; Phase::ALL.len()],
        block: [[0.0; MAX_HIDDEN]; BATCH],
        delta: [(0, 0.0); MAX_INPUTS],
        mid: [[0.0; MAX_SECOND]; BATCH],
    }));
}

impl Weights {
    /// Evaluates the positions `which` of `batch` into `out` (same length), in that order and
    /// incrementally as [`Evaluator::evaluate_batch`], with the same values as it would give
    /// on those positions.
    ///
    /// # Panics
    /// When `which` and `out` differ in length or `which` names a position outside `batch`.
    pub(crate) fn evaluate_encoded(
        &self,
        batch: &EncodedBatch,
        which: &[usize],
        out: &mut [Probabilities],
    ) {
        assert_eq!(which.len(), out.len(), "one output per position");
        self.evaluate_similar(
            |i, x| {
                let k = which[i];
                let item = batch.items[k];
                if item.is_ok() {
                    *x = batch.inputs[k];
                }
                item
            },
            out,
        );
    }

    /// Evaluates `item(i, x)` into `out[i]` for each `i` of `out`, each for its side on roll,
    /// and fastest when they are alike (the plays of one roll, seen by the opponent). `item`
    /// gives a finished game's exact value, or else writes the position's inputs into `x` and
    /// gives its phase. The first position of each phase is evaluated in full and becomes that
    /// phase's reference; each later one's hidden sums start from the reference's and add only
    /// the rows of the inputs that differ ([`crate::net::Network::update_sums`]). Up to four
    /// positions of one phase in a row then get their outputs together
    /// (`Network::outputs_batch`, which reads a second hidden layer's weights once for all of
    /// them). The values agree with [`Evaluator::evaluate`] to rounding.
    fn evaluate_similar(
        &self,
        item: impl FnMut(usize, &mut [f32; NUM_INPUTS]) -> Result<(Phase, Possible), Probabilities>,
        out: &mut [Probabilities],
    ) {
        SCRATCH.with_borrow_mut(|scratch| self.evaluate_similar_in(scratch, item, out));
    }

    /// [`Weights::evaluate_similar`] in `scratch`.
    fn evaluate_similar_in(
        &self,
        scratch: &mut Scratch,
        mut item: impl FnMut(usize, &mut [f32; NUM_INPUTS]) -> Result<(Phase, Possible), Probabilities>,
        out: &mut [Probabilities],
    ) {
        let Scratch {
            ref_inputs,
            ref_sums,
            block,
            delta,
            mid,
        } = scratch;
        let mut have_ref = [false; Phase::ALL.len()];
        let mut x = [0.0f32; NUM_INPUTS];
        let mut block_at = [(0usize, Possible::ALL); BATCH];
        let mut block_phase = Phase::Contact;
        let mut n = 0;
        let flush = |phase: Phase,
                     block: &mut [[f32; MAX_HIDDEN]],
                     at: &[(usize, Possible)],
                     out: &mut [Probabilities],
                     mid: &mut [[f32; MAX_SECOND]]| {
            let mut y = [[0.0f32; NUM_OUTPUTS]; BATCH];
            self.network(phase)
                .outputs_batch(block, &mut y[..block.len()], self.mid16(phase), mid);
            for (&(i, possible), y) in at.iter().zip(&y) {
                out[i] = possible.apply(Probabilities::from_array(*y).consistent());
            }
        };
        for i in 0..out.len() {
            let (phase, possible) = match item(i, &mut x) {
                Ok(item) => item,
                Err(exact) => {
                    out[i] = exact;
                    continue;
                }
            };
            if n > 0 && (n == BATCH || phase != block_phase) {
                flush(block_phase, &mut block[..n], &block_at[..n], out, mid);
                n = 0;
            }
            let k = phase as usize;
            let net = self.network(phase);
            let nh = net.hidden();
            let sums = &mut block[n];
            if have_ref[k] {
                sums[..nh].copy_from_slice(&ref_sums[k][..nh]);
                net.update_sums(&ref_inputs[k], &x, sums, delta, self.rows16(phase));
            } else {
                net.hidden_sums(&x, sums, self.rows16(phase));
                ref_inputs[k] = x;
                ref_sums[k][..nh].copy_from_slice(&sums[..nh]);
                have_ref[k] = true;
            }
            block_at[n] = (i, possible);
            block_phase = phase;
            n += 1;
        }
        if n > 0 {
            flush(block_phase, &mut block[..n], &block_at[..n], out, mid);
        }
    }

    /// [`Weights::evaluate_similar`] over positions, encoding each as it comes.
    fn evaluate_positions(&self, position: impl Fn(usize) -> Position, out: &mut [Probabilities]) {
        self.evaluate_similar(
            |i, x| {
                let pos = position(i);
                match pos.outcome() {
                    Some(outcome) => Err(Probabilities::from_outcome(outcome)),
                    None => {
                        encode(&pos, x);
                        let phase = phase(&pos);
                        Ok((phase, Possible::of(&pos, phase)))
                    }
                }
            },
            out,
        );
    }
}

/// Which gammons and backgammons can still happen in a position, by its structure: a side
/// that has borne off a checker cannot lose a gammon; in a race (no contact, so no checker can
/// be sent back) a side with no checker in the opponent's home board cannot lose a
/// backgammon. The networks' outputs for results that cannot happen are set to 0 (they are
/// small sigmoids, not zeros: up to a tenth of a point in self-play, in about one position in
/// twenty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Possible {
    win_gammon: bool,
    win_backgammon: bool,
    lose_gammon: bool,
    lose_backgammon: bool,
}

impl Possible {
    /// Everything possible.
    const ALL: Possible = Possible {
        win_gammon: true,
        win_backgammon: true,
        lose_gammon: true,
        lose_backgammon: true,
    };

    /// The results still possible in `pos` (for the side on roll), whose phase is `phase`.
    pub(crate) fn of(pos: &Position, phase: Phase) -> Possible {
        let b = pos.signed_board();
        let race = phase == Phase::Race;
        Possible {
            win_gammon: pos.opponent_off() == 0,
            // In a race a backgammon needs a loser's checker in the winner's home board now.
            win_backgammon: pos.opponent_off() == 0 && (!race || b[1..=6].iter().any(|&n| n < 0)),
            lose_gammon: pos.off() == 0,
            lose_backgammon: pos.off() == 0 && (!race || b[19..=24].iter().any(|&n| n > 0)),
        }
    }

    /// `p` with the impossible results taken out.
    pub(crate) fn apply(self, mut p: Probabilities) -> Probabilities {
        if !self.win_gammon {
            p.win_gammon = 0.0;
        }
        if !self.win_backgammon {
            p.win_backgammon = 0.0;
        }
        if !self.lose_gammon {
            p.lose_gammon = 0.0;
        }
        if !self.lose_backgammon {
            p.lose_backgammon = 0.0;
        }
        p
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
    fn incremental_plays_agree_with_single_evaluations() {
        plays_agree_with_single_evaluations(&Weights::default_weights());
        // Second hidden layers of 20 units (a register chunk of 16 and a tail) in the contact
        // network and of 16 (one chunk) in the crashed one, summed in batches
        // (`Network::outputs_batch`); the race network has one layer.
        plays_agree_with_single_evaluations(&Weights::random_deep(
            [(64, 20), (32, 16), (16, 0)],
            3,
        ));
    }

    #[test]
    fn encoded_batches_give_the_values_of_the_same_positions_evaluated_directly() {
        use rand::{Rng, SeedableRng};
        let w = Weights::default_weights();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut plays = PlayList::new();
        let mut batch = EncodedBatch::default();
        let (mut direct, mut encoded, mut positions) = (Vec::new(), Vec::new(), Vec::new());
        let mut compared = 0;
        for _ in 0..10 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                pos.legal_plays(roll, &mut plays);
                let seen: Vec<Position> = plays.positions().iter().map(|a| a.flip()).collect();
                batch.encode(&seen);
                // Every other position, last first: any subset in any order.
                let which: Vec<usize> = (0..seen.len()).rev().step_by(2).collect();
                positions.clear();
                positions.extend(which.iter().map(|&k| seen[k]));
                direct.resize(which.len(), Probabilities::default());
                encoded.resize(which.len(), Probabilities::default());
                w.evaluate_batch(&positions, &mut direct);
                w.evaluate_encoded(&batch, &which, &mut encoded);
                assert_eq!(direct, encoded);
                compared += which.len();
                pos = plays.positions()[rng.gen_range(0..plays.len())].flip();
            }
        }
        assert!(compared > 500, "{compared}");
    }

    /// Positions of every phase from seeded random games: each play's value from the
    /// incremental batch must match a fresh evaluation of it.
    fn plays_agree_with_single_evaluations(w: &Weights) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut plays = PlayList::new();
        let mut out = Vec::new();
        let mut seen = [0usize; Phase::ALL.len()];
        let mut worst = 0.0f32;
        for _ in 0..40 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                pos.legal_plays(roll, &mut plays);
                out.resize(plays.len(), Probabilities::default());
                w.evaluate_plays(plays.positions(), &mut out);
                for (a, o) in plays.positions().iter().zip(&out) {
                    let want = match a.outcome() {
                        Some(outcome) => Probabilities::from_outcome(outcome),
                        None => {
                            seen[phase(&a.flip()) as usize] += 1;
                            w.evaluate(&a.flip()).flip()
                        }
                    };
                    // To rounding, which can move a 16-bit second-layer activation by one
                    // level (a 4,096th) in weights for play.
                    let tolerance = if w.mid16(Phase::Contact).is_some() {
                        1e-4
                    } else {
                        1e-5
                    };
                    for (g, e) in o.to_array().iter().zip(want.to_array()) {
                        worst = worst.max((g - e).abs());
                        assert!((g - e).abs() < tolerance, "{a:?}: {o:?} against {want:?}");
                    }
                }
                pos = plays.positions()[rng.gen_range(0..plays.len())].flip();
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "every phase met: {seen:?}");
        eprintln!("largest difference {worst}");
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

    /// The default weights for play (16-bit input layers and second hidden layers) against the
    /// same networks in `f32`, over the positions of seeded random games: every output within
    /// 3 * 10^-4 (`gH`: 2.41 * 10^-4 at worst with both 16-bit layers, 2.4 * 10^-4 with the
    /// input layers alone; `fW`: 1.5 * 10^-4), and the same best play at 0-ply nearly always
    /// (`gH`: all 4,787).
    #[test]
    fn sixteen_bit_rows_evaluate_as_the_f32_networks_nearly() {
        use rand::{Rng, SeedableRng};
        let fast = Weights::default_weights();
        assert!(fast.is_for_play());
        let exact = fast.clone().exact();
        assert!(!exact.is_for_play());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut plays = PlayList::new();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (mut worst, mut decisions, mut same) = (0.0f32, 0, 0);
        for _ in 0..60 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                pos.legal_plays(roll, &mut plays);
                a.resize(plays.len(), Probabilities::default());
                b.resize(plays.len(), Probabilities::default());
                fast.evaluate_plays(plays.positions(), &mut a);
                exact.evaluate_plays(plays.positions(), &mut b);
                for (x, y) in a.iter().zip(&b) {
                    for (x, y) in x.to_array().iter().zip(y.to_array()) {
                        worst = worst.max((x - y).abs());
                    }
                }
                let best = |v: &[Probabilities]| {
                    (0..v.len())
                        .max_by(|&i, &j| v[i].equity().total_cmp(&v[j].equity()))
                        .unwrap_or(0)
                };
                if plays.len() > 1 {
                    decisions += 1;
                    same += usize::from(best(&a) == best(&b));
                }
                pos = plays.positions()[rng.gen_range(0..plays.len())].flip();
            }
        }
        eprintln!("worst {worst}, same best play {same} of {decisions}");
        assert!(worst < 3e-4, "outputs differ by up to {worst}");
        assert!(
            decisions > 1000 && same * 1000 >= decisions * 995,
            "{same} of {decisions}"
        );
    }
}
