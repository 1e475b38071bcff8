//! The one-sided database: for every position of one side, the distribution of the number of
//! rolls needed to bear off all checkers, and of the rolls needed to bear off the first one.

use std::path::Path;

use crate::dice::Dice;
use crate::error::{DbError, FormatError, IndexError, PositionError, ShapeError};
use crate::format::{self, Kind, Reader};
use crate::hash::PerfectHash;
use crate::position::OneSided;

/// The largest number of checkers a database holds.
pub const MAX_DB_CHECKERS: usize = 15;

/// Effective pip count per expected roll: the average roll moves 49/6 pips (8 1/6).
pub const PIPS_PER_ROLL: f64 = 49.0 / 6.0;

/// Probability distributions over the number of rolls, stored as the non-zero range only.
#[derive(Debug, Clone, PartialEq)]
struct Dists {
    start: Vec<u8>,
    len: Vec<u8>,
    offset: Vec<usize>,
    data: Vec<f32>,
}

impl Dists {
    fn with_capacity(n: usize) -> Dists {
        Dists {
            start: Vec::with_capacity(n),
            len: Vec::with_capacity(n),
            offset: Vec::with_capacity(n + 1),
            data: Vec::with_capacity(n * 12),
        }
    }

    /// Appends the distribution `acc[lo..hi]` (index = rolls), trimmed to its non-zero range.
    fn push(&mut self, acc: &[f64], lo: usize, hi: usize) {
        let mut lo = lo;
        let mut hi = hi;
        while lo < hi && acc[lo] as f32 == 0.0 {
            lo += 1;
        }
        while hi > lo && acc[hi - 1] as f32 == 0.0 {
            hi -= 1;
        }
        self.start.push(lo as u8);
        self.len.push((hi - lo) as u8);
        self.offset.push(self.data.len());
        self.data.extend(acc[lo..hi].iter().map(|&p| p as f32));
    }

    /// Adds `weight` × the distribution of position `i`, shifted by one roll, into `acc`;
    /// widens `[lo, hi)` to cover what was added.
    #[inline]
    fn add_shifted(&self, i: usize, weight: f64, acc: &mut [f64], lo: &mut usize, hi: &mut usize) {
        let start = usize::from(self.start[i]) + 1;
        let len = usize::from(self.len[i]);
        let src = &self.data[self.offset[i]..self.offset[i] + len];
        for (a, &p) in acc[start..start + len].iter_mut().zip(src) {
            *a += weight * f64::from(p);
        }
        *lo = (*lo).min(start);
        *hi = (*hi).max(start + len);
    }

    fn get(&self, i: usize) -> RollDistribution<'_> {
        let len = usize::from(self.len[i]);
        RollDistribution {
            start: usize::from(self.start[i]),
            probs: &self.data[self.offset[i]..self.offset[i] + len],
        }
    }

    fn to_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.start);
        out.extend_from_slice(&self.len);
    }

    fn data_bytes(&self, out: &mut Vec<u8>) {
        for p in &self.data {
            out.extend_from_slice(&p.to_le_bytes());
        }
    }

    fn from_parts(start: &[u8], len: &[u8], data: Vec<f32>) -> Dists {
        let mut offset = Vec::with_capacity(start.len());
        let mut o = 0usize;
        for &l in len {
            offset.push(o);
            o += usize::from(l);
        }
        Dists {
            start: start.to_vec(),
            len: len.to_vec(),
            offset,
            data,
        }
    }
}

/// A probability distribution over the number of rolls, borrowed from a [`OneSidedDb`].
///
/// Probabilities are stored as `f32` (about 7 significant digits).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RollDistribution<'a> {
    start: usize,
    probs: &'a [f32],
}

impl RollDistribution<'_> {
    /// The probability of needing exactly `rolls` rolls.
    #[must_use]
    pub fn probability(&self, rolls: usize) -> f64 {
        rolls
            .checked_sub(self.start)
            .and_then(|i| self.probs.get(i))
            .map_or(0.0, |&p| f64::from(p))
    }

    /// `(rolls, probability)` over the stored range (zero outside it).
    pub fn iter(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.probs
            .iter()
            .enumerate()
            .map(move |(i, &p)| (self.start + i, f64::from(p)))
    }

    /// The probabilities indexed by number of rolls, from 0 to the last non-zero one.
    #[must_use]
    pub fn to_vec(&self) -> Vec<f64> {
        let mut v = vec![0.0; self.start + self.probs.len()];
        for (r, p) in self.iter() {
            v[r] = p;
        }
        v
    }

    /// The smallest number of rolls with a non-zero probability.
    #[must_use]
    pub fn min_rolls(&self) -> usize {
        self.start
    }

    /// The largest number of rolls with a non-zero probability.
    #[must_use]
    pub fn max_rolls(&self) -> usize {
        (self.start + self.probs.len()).saturating_sub(1)
    }

    /// The mean computed from the stored probabilities.
    #[must_use]
    pub fn mean(&self) -> f64 {
        self.iter().map(|(r, p)| r as f64 * p).sum()
    }
}

/// Everything the one-sided database knows about one position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OneSidedEntry<'a> {
    /// The position's perfect-hash index.
    pub index: u64,
    /// Expected number of rolls to bear off all checkers, playing to minimise it.
    pub mean_rolls: f64,
    /// Standard deviation of that number.
    pub sd_rolls: f64,
    /// The distribution of that number.
    pub distribution: RollDistribution<'a>,
    /// Expected number of rolls to bear off the first checker, playing to minimise it; 0 when
    /// a checker is already off (fewer than the database's checkers are on the board).
    pub first_off_mean: f64,
    /// The distribution of the number of rolls to bear off the first checker.
    pub first_off: RollDistribution<'a>,
}

impl OneSidedEntry<'_> {
    /// Effective pip count: mean rolls × 49/6.
    #[must_use]
    pub fn epc(&self) -> f64 {
        self.mean_rolls * PIPS_PER_ROLL
    }
}

/// The one-sided bearoff database of a shape (points × checkers).
///
/// Built by dynamic programming in index order ([`OneSidedDb::build`]): every play leads to a
/// smaller index, so each position's children are final when it is reached. Each roll is played
/// to minimise the expected number of rolls (a second, independent choice minimises the expected
/// rolls to bear off the first checker, for the gammon distribution). Ties go to the result with
/// the smaller index.
///
/// # File payload (format version 1, after the [header](crate::format))
///
/// With `N` positions: mean rolls (`N` × f64), standard deviation of the rolls (`N` × f64),
/// mean rolls to the first checker off (`N` × f64); for the rolls distribution the first
/// non-zero number of rolls (`N` × u8) and the number of stored entries (`N` × u8); the same two
/// arrays for the first-off distribution; then all rolls probabilities (f32, in index order),
/// then all first-off probabilities (f32).
///
/// ```
/// use tavla_bearoff::{OneSided, OneSidedDb};
///
/// let db = OneSidedDb::build(6, 3)?;
/// let e = db.lookup(&"0,0,0,0,0,1".parse()?)?;
/// // One checker on the 6-point: off in one roll unless it is 1-1, 2-1, 3-1, 4-1, 3-2 or 5-1...
/// assert_eq!(e.distribution.min_rolls(), 1);
/// assert!((e.distribution.iter().map(|(_, p)| p).sum::<f64>() - 1.0).abs() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct OneSidedDb {
    hash: PerfectHash,
    mean: Vec<f64>,
    sd: Vec<f64>,
    first_mean: Vec<f64>,
    rolls: Dists,
    first_off: Dists,
}

/// Checks a database shape and returns its hash.
pub(crate) fn db_hash(
    what: &'static str,
    points: usize,
    checkers: usize,
) -> Result<PerfectHash, ShapeError> {
    if checkers > MAX_DB_CHECKERS {
        return Err(ShapeError::Checkers {
            checkers,
            max: MAX_DB_CHECKERS,
        });
    }
    let hash = PerfectHash::new(points, checkers)?;
    if hash.count() > u64::from(u32::MAX) || usize::try_from(hash.count()).is_err() {
        return Err(ShapeError::TooLarge {
            what,
            points,
            checkers,
        });
    }
    Ok(hash)
}

/// Memoised partial plays. For each position `s`, die `d` and number of moves `j` in 1..=3,
/// the result of playing `j` moves of `d` from `s` that minimises a value (expected rolls, or
/// expected rolls to the first checker off), ties going to the smaller index; 0 when the last
/// checker goes off on the way.
///
/// Every partial play is itself a position with a smaller index, so the table is filled in
/// index order like the database, and the best play of a roll costs one lookup per first move:
/// a double is the best first move followed by the best three more, a non-double the best first
/// move of either die followed by the best move of the other. On 10 points that is about 500
/// lookups per position instead of enumerating some 7,000 plays.
struct Partial {
    table: Vec<u32>,
}

impl Partial {
    const STRIDE: usize = 18;

    fn new(n: usize, points: usize, checkers: usize) -> Result<Partial, ShapeError> {
        let len = n.checked_mul(Self::STRIDE).ok_or(ShapeError::TooLarge {
            what: "one-sided",
            points,
            checkers,
        })?;
        let mut table = Vec::new();
        table
            .try_reserve_exact(len)
            .map_err(|_| ShapeError::TooLarge {
                what: "one-sided",
                points,
                checkers,
            })?;
        table.resize(len, 0);
        Ok(Partial { table })
    }

    /// The best of `candidates` by `(value, index)`.
    #[inline]
    fn best(candidates: impl Iterator<Item = u32>, value: &[f64]) -> u32 {
        let mut best = (f64::INFINITY, u32::MAX);
        for c in candidates {
            let v = value[c as usize];
            if v < best.0 || (v == best.0 && c < best.1) {
                best = (v, c);
            }
        }
        best.1
    }

    /// After one move to `c`, the best result of `more` further moves of die `d` (1-based).
    #[inline]
    fn then(&self, c: u32, d: usize, more: usize) -> u32 {
        if more == 0 || c == 0 {
            c
        } else {
            self.table[c as usize * Self::STRIDE + (d - 1) * 3 + (more - 1)]
        }
    }

    /// Fills the entries of position `i`, whose one-move children per die are `kids`.
    fn fill(&mut self, i: usize, kids: &[Vec<u32>; 6], value: &[f64]) {
        for (d0, list) in kids.iter().enumerate() {
            for j in 0..3 {
                let best = Self::best(list.iter().map(|&c| self.then(c, d0 + 1, j)), value);
                self.table[i * Self::STRIDE + d0 * 3 + j] = best;
            }
        }
    }

    /// The best result of a whole roll from the position whose one-move children are `kids`.
    fn best_play(&self, kids: &[Vec<u32>; 6], dice: Dice, value: &[f64]) -> usize {
        let (a, b) = (usize::from(dice.high()), usize::from(dice.low()));
        let best = if a == b {
            Self::best(kids[a - 1].iter().map(|&c| self.then(c, a, 3)), value)
        } else {
            let high_first = kids[a - 1].iter().map(|&c| self.then(c, b, 1));
            let low_first = kids[b - 1].iter().map(|&c| self.then(c, a, 1));
            Self::best(high_first.chain(low_first), value)
        };
        best as usize
    }
}

impl OneSidedDb {
    /// Builds the database of `checkers` checkers (at most 15) on `points` points.
    ///
    /// # Errors
    /// [`ShapeError`] for a shape out of range or too large to index.
    pub fn build(points: usize, checkers: usize) -> Result<OneSidedDb, ShapeError> {
        Self::build_with_progress(points, checkers, &mut |_, _| {})
    }

    /// As [`build`](OneSidedDb::build), calling `progress(done, total)` now and then.
    ///
    /// # Errors
    /// [`ShapeError`] for a shape out of range or too large to index.
    pub fn build_with_progress(
        points: usize,
        checkers: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<OneSidedDb, ShapeError> {
        let hash = db_hash("one-sided", points, checkers)?;
        let n = hash.count() as usize;
        let too_large = ShapeError::TooLarge {
            what: "one-sided",
            points,
            checkers,
        };
        // The build's tables take about 400 bytes a position (three means, two distribution
        // tables, two tables of partial plays): a shape whose tables this machine cannot hold
        // is refused before anything is built, rather than aborting the process part way.
        let bytes = n.checked_mul(400).ok_or_else(|| too_large.clone())?;
        Vec::<u8>::new()
            .try_reserve_exact(bytes)
            .map_err(|_| too_large.clone())?;
        let zeros = || -> Result<Vec<f64>, ShapeError> {
            let mut v = Vec::new();
            v.try_reserve_exact(n).map_err(|_| too_large.clone())?;
            v.resize(n, 0.0);
            Ok(v)
        };
        let mut mean = zeros()?;
        let mut sd = zeros()?;
        let mut first_mean = zeros()?;
        let mut rolls = Dists::with_capacity(n);
        let mut first_off = Dists::with_capacity(n);
        // At most ceil(pips / 2) rolls: every die moves a checker at least one pip.
        let max_rolls = (points * checkers).div_ceil(2) + 2;
        let mut acc = vec![0.0f64; max_rolls + 2];
        let mut acc_first = vec![0.0f64; max_rolls + 2];
        // Position 0: all off, zero rolls.
        acc[0] = 1.0;
        rolls.push(&acc, 0, 1);
        first_off.push(&acc, 0, 1);
        acc[0] = 0.0;
        // The best results after j = 1, 2, 3 moves of each die, per position (see `Partial`),
        // for the rolls policy and for the first-off policy.
        let mut partial = Partial::new(n, points, checkers)?;
        let mut partial_first = Partial::new(n, points, checkers)?;
        let mut kids: [Vec<u32>; 6] = Default::default();
        let step = (n / 200).max(1);
        for i in 1..n {
            if i % step == 0 {
                progress(i as u64, n as u64);
            }
            let st = hash
                .state_of_index(i as u64)
                .expect("index below the position count");
            let full = usize::from(st.on_board()) == checkers;
            // Step 1. The positions one move of each die leads to.
            for (d, list) in kids.iter_mut().enumerate() {
                list.clear();
                for p in 1..=usize::from(st.top) {
                    if let Some(c) = hash.step(&st, p, d + 1) {
                        list.push(c.index as u32);
                    }
                }
            }
            // Step 2. The best results after 1..=3 moves of each die, for later positions.
            partial.fill(i, &kids, &mean);
            if full {
                partial_first.fill(i, &kids, &first_mean);
            }
            let (mut lo, mut hi) = (usize::MAX, 0);
            let (mut lo_f, mut hi_f) = (usize::MAX, 0);
            let mut m = 0.0;
            let mut m_first = 0.0;
            // Step 3. The best play of every roll. Accumulate 36 × the probabilities with the
            // integer weights 1 and 2, and divide once at the end: the total is then exactly 1
            // where it should be.
            for &(dice, w) in &Dice::ALL_21 {
                let weight = f64::from(w);
                let best = partial.best_play(&kids, dice, &mean);
                m += weight * mean[best];
                rolls.add_shifted(best, weight, &mut acc, &mut lo, &mut hi);
                if full {
                    let best = partial_first.best_play(&kids, dice, &first_mean);
                    m_first += weight * first_mean[best];
                    first_off.add_shifted(best, weight, &mut acc_first, &mut lo_f, &mut hi_f);
                }
            }
            acc[lo..hi].iter_mut().for_each(|a| *a /= 36.0);
            mean[i] = 1.0 + m / 36.0;
            // Two passes (mean, then squared deviations) avoid the cancellation in E[X²] - μ².
            let mu: f64 = acc[lo..hi]
                .iter()
                .enumerate()
                .map(|(j, &p)| (lo + j) as f64 * p)
                .sum();
            let var: f64 = acc[lo..hi]
                .iter()
                .enumerate()
                .map(|(j, &p)| ((lo + j) as f64 - mu).powi(2) * p)
                .sum();
            sd[i] = var.sqrt();
            rolls.push(&acc, lo, hi);
            acc[lo..hi].fill(0.0);
            if full {
                acc_first[lo_f..hi_f].iter_mut().for_each(|a| *a /= 36.0);
                first_mean[i] = 1.0 + m_first / 36.0;
                first_off.push(&acc_first, lo_f, hi_f);
                acc_first[lo_f..hi_f].fill(0.0);
            } else {
                acc_first[0] = 1.0;
                first_off.push(&acc_first, 0, 1);
                acc_first[0] = 0.0;
            }
        }
        progress(n as u64, n as u64);
        Ok(OneSidedDb {
            hash,
            mean,
            sd,
            first_mean,
            rolls,
            first_off,
        })
    }

    /// The perfect hash (shape and numbering) of the database.
    #[must_use]
    pub fn hash(&self) -> &PerfectHash {
        &self.hash
    }

    /// Points covered.
    #[must_use]
    pub fn points(&self) -> usize {
        self.hash.points()
    }

    /// Checkers per side.
    #[must_use]
    pub fn checkers(&self) -> usize {
        self.hash.checkers()
    }

    /// Number of positions.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.hash.count()
    }

    /// Always false: a database holds at least the empty position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The entry of the position with index `index`.
    ///
    /// # Errors
    /// [`IndexError`] when the index is out of range.
    pub fn entry(&self, index: u64) -> Result<OneSidedEntry<'_>, IndexError> {
        if index >= self.len() {
            return Err(IndexError {
                index,
                count: self.len(),
            });
        }
        let i = index as usize;
        Ok(OneSidedEntry {
            index,
            mean_rolls: self.mean[i],
            sd_rolls: self.sd[i],
            distribution: self.rolls.get(i),
            first_off_mean: self.first_mean[i],
            first_off: self.first_off.get(i),
        })
    }

    /// The entry of `pos`.
    ///
    /// # Errors
    /// [`PositionError`] when `pos` does not fit the database.
    pub fn lookup(&self, pos: &OneSided) -> Result<OneSidedEntry<'_>, PositionError> {
        let index = self.hash.rank(pos)?;
        Ok(self.entry(index).expect("rank is below the count"))
    }

    /// Expected rolls to bear off all checkers of the position with index `index`, without a
    /// range check beyond the slice's.
    ///
    /// # Panics
    /// When `index` is out of range.
    #[must_use]
    pub fn mean_rolls_at(&self, index: u64) -> f64 {
        self.mean[index as usize]
    }

    /// Effective pip count of `pos`: mean rolls × 49/6.
    ///
    /// # Errors
    /// [`PositionError`] when `pos` does not fit the database.
    pub fn epc(&self, pos: &OneSided) -> Result<f64, PositionError> {
        Ok(self.lookup(pos)?.epc())
    }

    /// The file image: header and payload.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.mean.len();
        let mut payload =
            Vec::with_capacity(n * 28 + 4 * (self.rolls.data.len() + self.first_off.data.len()));
        for v in [&self.mean, &self.sd, &self.first_mean] {
            for x in v {
                payload.extend_from_slice(&x.to_le_bytes());
            }
        }
        self.rolls.to_bytes(&mut payload);
        self.first_off.to_bytes(&mut payload);
        self.rolls.data_bytes(&mut payload);
        self.first_off.data_bytes(&mut payload);
        let mut out = Vec::with_capacity(format::HEADER_LEN + payload.len());
        format::write(&mut out, Kind::OneSided, 0, &self.hash, &payload).expect("writing to a Vec");
        out
    }

    /// Reads a database from its file image.
    ///
    /// # Errors
    /// [`FormatError`] when the bytes are not a valid one-sided database.
    pub fn from_bytes(bytes: &[u8]) -> Result<OneSidedDb, FormatError> {
        let (h, payload) = format::parse(bytes, Kind::OneSided)?;
        // At most 15 checkers and u32::MAX positions, as a build allows, so the sizes below
        // cannot overflow.
        let hash = db_hash("one-sided", usize::from(h.points), usize::from(h.checkers))?;
        let n = hash.count() as usize;
        let total = payload.len() as u64;
        let mut r = Reader::new(payload);
        let mean = format::f64s(r.take(8 * n, total)?);
        let sd = format::f64s(r.take(8 * n, total)?);
        let first_mean = format::f64s(r.take(8 * n, total)?);
        let (r_start, r_len) = (r.take(n, total)?, r.take(n, total)?);
        let (f_start, f_len) = (r.take(n, total)?, r.take(n, total)?);
        let sum = |l: &[u8]| l.iter().map(|&x| usize::from(x)).sum::<usize>();
        let (nr, nf) = (sum(r_len), sum(f_len));
        let r_data = format::f32s(r.take(4 * nr, total)?);
        let f_data = format::f32s(r.take(4 * nf, total)?);
        if r.remaining() != 0 {
            return Err(FormatError::PayloadLength {
                found: total,
                expected: total - r.remaining() as u64,
            });
        }
        for i in 0..n {
            if usize::from(r_start[i]) + usize::from(r_len[i]) > 255
                || usize::from(f_start[i]) + usize::from(f_len[i]) > 255
            {
                return Err(FormatError::Corrupt {
                    index: i as u64,
                    what: "distribution range beyond 255 rolls",
                });
            }
            if !mean[i].is_finite() || mean[i] < 0.0 {
                return Err(FormatError::Corrupt {
                    index: i as u64,
                    what: "mean rolls is not a finite non-negative number",
                });
            }
            if !sd[i].is_finite()
                || sd[i] < 0.0
                || !first_mean[i].is_finite()
                || first_mean[i] < 0.0
            {
                return Err(FormatError::Corrupt {
                    index: i as u64,
                    what: "a standard deviation or mean is not a finite non-negative number",
                });
            }
        }
        // Every probability of the two distributions in 0..=1 (NaN fails too), named by the
        // position whose distribution holds it.
        for (lens, data) in [(r_len, &r_data), (f_len, &f_data)] {
            let mut at = 0;
            for (i, &len) in lens.iter().enumerate() {
                let end = at + usize::from(len);
                if !data[at..end].iter().all(|p| (0.0..=1.0).contains(p)) {
                    return Err(FormatError::Corrupt {
                        index: i as u64,
                        what: "a probability of a roll distribution is outside 0..=1",
                    });
                }
                at = end;
            }
        }
        Ok(OneSidedDb {
            hash,
            mean,
            sd,
            first_mean,
            rolls: Dists::from_parts(r_start, r_len, r_data),
            first_off: Dists::from_parts(f_start, f_len, f_data),
        })
    }

    /// Writes the database to `path` (through a temporary file and a rename).
    ///
    /// # Errors
    /// [`DbError::Io`] when the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), DbError> {
        format::write_file_atomically(path, &self.to_bytes())
    }

    /// Reads a database file.
    ///
    /// # Errors
    /// [`DbError`] when the file cannot be read or is not a valid one-sided database.
    pub fn load(path: &Path) -> Result<OneSidedDb, DbError> {
        let bytes = format::read_file(path)?;
        OneSidedDb::from_bytes(&bytes).map_err(|source| DbError::Format {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header whose shape no build makes (46 checkers on 24 points: more positions than
    /// the sizes of the payload could be counted in) is refused, with a valid checksum and no
    /// payload, before any size is computed from it.
    #[test]
    fn a_header_of_an_impossible_shape_is_refused() {
        let mut bytes = Vec::new();
        let hash = PerfectHash::new(24, 46).unwrap();
        format::write(&mut bytes, Kind::OneSided, 0, &hash, &[]).unwrap();
        let err = OneSidedDb::from_bytes(&bytes).unwrap_err();
        assert!(
            matches!(
                err,
                FormatError::Shape(ShapeError::Checkers {
                    checkers: 46,
                    max: 15
                })
            ),
            "{err:?}"
        );
    }

    #[test]
    fn a_file_whose_numbers_are_impossible_is_refused() {
        // Written with a valid checksum, so only the contents can show it.
        let db = OneSidedDb::build(3, 3).unwrap();
        let mut bad = db.clone();
        bad.rolls.data[5] = 1.5;
        let err = OneSidedDb::from_bytes(&bad.to_bytes()).unwrap_err();
        assert!(err.to_string().contains("outside 0..=1"), "{err}");
        let mut bad = db.clone();
        bad.sd[7] = -1.0;
        let err = OneSidedDb::from_bytes(&bad.to_bytes()).unwrap_err();
        assert!(err.to_string().contains("position 7"), "{err}");
        assert!(OneSidedDb::from_bytes(&db.to_bytes()).is_ok());
    }

    #[test]
    fn tiny_positions_by_hand() {
        let db = OneSidedDb::build(6, 2).unwrap();
        // One checker on the 4-point: only 2-1 (3 pips) leaves it on; 1-1 moves 4 pips.
        let e = db.lookup(&OneSided::new(&[0, 0, 0, 1]).unwrap()).unwrap();
        assert!((e.distribution.probability(2) - 2.0 / 36.0).abs() < 1e-7);
        assert!((e.mean_rolls - (1.0 + 2.0 / 36.0)).abs() < 1e-12);
        // Two checkers on the ace point: off in one roll.
        let e = db.lookup(&OneSided::new(&[2]).unwrap()).unwrap();
        assert_eq!(e.mean_rolls, 1.0);
        assert!(e.sd_rolls < 1e-12);
        assert_eq!(e.distribution.to_vec(), vec![0.0, 1.0]);
        // With both checkers on board, the first is off in one roll.
        assert_eq!(e.first_off.to_vec(), vec![0.0, 1.0]);
        // One checker off already: first-off takes zero rolls.
        let e = db.lookup(&OneSided::new(&[1]).unwrap()).unwrap();
        assert_eq!(e.first_off.to_vec(), vec![1.0]);
        assert_eq!(e.first_off_mean, 0.0);
    }

    /// The memoised partial plays choose exactly what enumerating every play would choose.
    #[test]
    fn partial_plays_choose_like_full_enumeration() {
        use crate::movegen::for_each_play;
        for (points, checkers) in [(6, 6), (8, 4), (3, 9)] {
            let db = OneSidedDb::build(points, checkers).unwrap();
            let hash = db.hash();
            for i in 1..db.len() {
                let st = hash.state_of_index(i).unwrap();
                let full = usize::from(st.on_board()) == checkers;
                let mut mean = 0.0;
                let mut first_mean = 0.0;
                let mut dist = vec![0.0f64; 64];
                for &(dice, w) in &Dice::ALL_21 {
                    let mut best = (f64::INFINITY, u64::MAX);
                    let mut best_first = (f64::INFINITY, u64::MAX);
                    for_each_play(hash, &st, dice, &mut |c, _| {
                        let e = db.entry(c.index).unwrap();
                        if (e.mean_rolls, c.index) < best {
                            best = (e.mean_rolls, c.index);
                        }
                        if (e.first_off_mean, c.index) < best_first {
                            best_first = (e.first_off_mean, c.index);
                        }
                    });
                    mean += f64::from(w) * best.0;
                    for (r, p) in db.entry(best.1).unwrap().distribution.iter() {
                        dist[r + 1] += f64::from(w) * p;
                    }
                    first_mean += f64::from(w) * best_first.0;
                }
                let e = db.entry(i).unwrap();
                assert_eq!(
                    e.mean_rolls,
                    1.0 + mean / 36.0,
                    "{points}x{checkers} index {i}"
                );
                let want_first = if full { 1.0 + first_mean / 36.0 } else { 0.0 };
                assert_eq!(e.first_off_mean, want_first, "index {i}");
                for (r, p) in e.distribution.iter() {
                    assert_eq!(
                        p,
                        f64::from((dist[r] / 36.0) as f32),
                        "index {i}, {r} rolls"
                    );
                }
            }
        }
    }

    #[test]
    fn distributions_sum_to_one_and_match_their_means() {
        let db = OneSidedDb::build(6, 6).unwrap();
        for i in 0..db.len() {
            let e = db.entry(i).unwrap();
            let total: f64 = e.distribution.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-5, "index {i}: {total}");
            assert!((e.distribution.mean() - e.mean_rolls).abs() < 1e-5);
            assert!((e.first_off.mean() - e.first_off_mean).abs() < 1e-5);
        }
    }

    #[test]
    fn bytes_round_trip() {
        let db = OneSidedDb::build(4, 5).unwrap();
        let bytes = db.to_bytes();
        assert_eq!(OneSidedDb::from_bytes(&bytes).unwrap(), db);
    }

    #[test]
    fn shapes_out_of_range_are_refused() {
        assert!(matches!(
            OneSidedDb::build(6, 16),
            Err(ShapeError::Checkers { checkers: 16, .. })
        ));
        assert!(matches!(
            OneSidedDb::build(0, 15),
            Err(ShapeError::Points { .. })
        ));
        assert!(matches!(
            OneSidedDb::build(24, 15),
            Err(ShapeError::TooLarge { .. })
        ));
    }
}
