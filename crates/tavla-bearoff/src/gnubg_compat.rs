//! The one-sided dynamic programme with gnubg's 16-bit arithmetic, to check this crate against
//! gnubg's database files.
//!
//! gnubg (`makebearoff`) stores every probability as a 16-bit fraction of 65535 and builds each
//! position from the *stored* (rounded) distributions of the positions it can reach: the play
//! is chosen on the rounded expected rolls, the weighted sum is rounded to the nearest 65535th,
//! and the largest entry absorbs the rounding so the 16-bit values sum to 65535. Those
//! roundings compound and sometimes tip a near-tie to a different play, so gnubg's numbers
//! differ from the exact ones by up to about 3e-3 in a few hundred of the 54,264 positions of
//! the 6 × 15 database (see `docs/bearoff.md`).
//!
//! [`QuantizedOneSided`] runs this crate's perfect hash, move generator and dynamic programme
//! with the same arithmetic (written from the description above, not from gnubg's code; ties
//! go to the result with the larger index). It reproduces gnubg's `gnubg_os0.bd` exactly in
//! 54,261 of the 54,264 positions and within one 65535th in the other three, which checks
//! the generator and the recursion against an independent program. It is a test instrument;
//! for play use the exact [`OneSidedDb`](crate::OneSidedDb).

use crate::dice::Dice;
use crate::error::{IndexError, ShapeError};
use crate::hash::PerfectHash;
use crate::movegen::for_each_play;
use crate::one_sided::db_hash;

/// One-sided roll distributions in gnubg's 16-bit arithmetic (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantizedOneSided {
    hash: PerfectHash,
    stride: usize,
    probs: Vec<u16>,
}

impl QuantizedOneSided {
    /// Builds the quantised distributions of all positions of the shape.
    ///
    /// # Errors
    /// [`ShapeError`] for a shape out of range or too large.
    pub fn build(points: usize, checkers: usize) -> Result<QuantizedOneSided, ShapeError> {
        let hash = db_hash("one-sided", points, checkers)?;
        let n = hash.count() as usize;
        // Rolls needed never exceed ceil(pips / 2).
        let stride = (points * checkers).div_ceil(2) + 2;
        let mut probs = vec![0u16; n * stride];
        // The rounded expected rolls, times 65535 (an integer), used to choose plays.
        let mut score = vec![0u64; n];
        probs[0] = 0xFFFF;
        let mut acc = vec![0u64; stride];
        for i in 1..n {
            let st = hash.state_of_index(i as u64).expect("index in range");
            acc.fill(0);
            for &(dice, w) in &Dice::ALL_21 {
                let mut best = (u64::MAX, 0usize);
                for_each_play(&hash, &st, dice, &mut |c, _| {
                    let ci = c.index as usize;
                    if score[ci] < best.0 || (score[ci] == best.0 && ci > best.1) {
                        best = (score[ci], ci);
                    }
                });
                let child = &probs[best.1 * stride..(best.1 + 1) * stride];
                for k in 0..stride - 1 {
                    acc[k + 1] += u64::from(w) * u64::from(child[k]);
                }
            }
            let out = &mut probs[i * stride..(i + 1) * stride];
            let mut total = 0i64;
            let mut mode = 0;
            for k in 0..stride {
                // Round to the nearest 65535th: acc is 36 × the probability in 65535ths.
                out[k] = ((acc[k] + 18) / 36) as u16;
                total += i64::from(out[k]);
                if out[k] > out[mode] {
                    mode = k;
                }
            }
            out[mode] = (i64::from(out[mode]) - (total - 0xFFFF)) as u16;
            score[i] = out
                .iter()
                .enumerate()
                .map(|(k, &p)| k as u64 * u64::from(p))
                .sum();
        }
        Ok(QuantizedOneSided {
            hash,
            stride,
            probs,
        })
    }

    /// The perfect hash of the shape.
    #[must_use]
    pub fn hash(&self) -> &PerfectHash {
        &self.hash
    }

    /// The 16-bit probabilities (65535 = 1) of needing 0, 1, 2, ... rolls.
    ///
    /// # Errors
    /// [`IndexError`] when the index is out of range.
    pub fn raw(&self, index: u64) -> Result<&[u16], IndexError> {
        if index >= self.hash.count() {
            return Err(IndexError {
                index,
                count: self.hash.count(),
            });
        }
        let i = index as usize;
        Ok(&self.probs[i * self.stride..(i + 1) * self.stride])
    }

    /// The probabilities of needing 0, 1, 2, ... rolls, as fractions.
    ///
    /// # Errors
    /// [`IndexError`] when the index is out of range.
    pub fn distribution(&self, index: u64) -> Result<Vec<f64>, IndexError> {
        Ok(self
            .raw(index)?
            .iter()
            .map(|&p| f64::from(p) / 65535.0)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::one_sided::OneSidedDb;

    #[test]
    fn close_to_the_exact_database() {
        let q = QuantizedOneSided::build(6, 6).unwrap();
        let db = OneSidedDb::build(6, 6).unwrap();
        for i in 0..db.len() {
            let exact = db.entry(i).unwrap().distribution.to_vec();
            let quant = q.distribution(i).unwrap();
            assert_eq!(
                q.raw(i).unwrap().iter().map(|&p| u64::from(p)).sum::<u64>(),
                0xFFFF
            );
            for (k, &p) in quant.iter().enumerate() {
                let e = exact.get(k).copied().unwrap_or(0.0);
                assert!((p - e).abs() < 1e-3, "index {i}, {k} rolls: {p} vs {e}");
            }
        }
    }
}
