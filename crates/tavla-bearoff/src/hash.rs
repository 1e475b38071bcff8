//! The Benjamin–Ross perfect hash of one-sided bearoff positions.
//!
//! A position of at most `k` checkers on `n` points is written as the non-decreasing list of
//! its `k` checkers' points, a checker borne off counting as point 0. The positions are numbered
//! `0..C(n + k, k)` in lexicographic order of these lists, so all off is 0 and all `k` checkers
//! on point `n` is the last index. This is also gnubg's numbering of its bearoff databases.
//!
//! # The formula
//!
//! Let `S(p)` be the number of checkers on points `p` and above. Then
//!
//! ```text
//! index = sum over p in 1..=n of C(n - p + S(p), S(p) - 1)      (the term is 0 when S(p) = 0)
//! ```
//!
//! Proof sketch: `C(n - 1 + s, s - 1)` counts the positions with fewer than `s` checkers on
//! the board, which all sort before any position with `s` checkers on the board (they have more
//! leading zeros); among positions with `S(1)` checkers on the board, the checkers on point 1
//! are leading ones, and the rest is a position on the `n - 1` points `2..=n`, counted the same
//! way. The index does not depend on `k`, so the positions of a database with fewer checkers are
//! a prefix of a larger one's.
//!
//! Moving one checker down from point `p` to point `q < p` (0 = off) lowers `S(j)` by one for
//! `q < j <= p`, so by Pascal's rule the index drops by
//! `sum over q < j <= p of C(n - j + S(j) - 1, S(j) - 1)`: every legal bearoff play leads to a
//! smaller index, and a move costs one table lookup per pip.

use crate::error::{IndexError, PositionError, ShapeError};
use crate::position::OneSided;
use crate::MAX_POINTS;

/// The points of the home board: checkers bear off only once all are there.
const HOME_POINTS: usize = 6;

/// The largest number of checkers the hash accepts (counts are stored in a `u8`).
pub const MAX_CHECKERS: usize = 255;

/// The perfect hash for positions of at most `checkers` checkers on `points` points: a bijection
/// between those positions and `0..count()`.
///
/// [`rank`](PerfectHash::rank) takes O(n) table lookups, [`unrank`](PerfectHash::unrank)
/// O(n + k).
///
/// ```
/// use tavla_bearoff::{OneSided, PerfectHash};
///
/// let hash = PerfectHash::new(6, 15)?;
/// assert_eq!(hash.count(), 54_264);
/// let pos: OneSided = "3,3,2,0,2,1".parse()?;
/// assert_eq!(hash.rank(&pos)?, 8_887);
/// assert_eq!(hash.unrank(8_887)?, pos);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerfectHash {
    points: usize,
    checkers: usize,
    count: u64,
    /// `term[p * stride + s] = C(n - p + s, s - 1)`, the contribution of point `p` when
    /// `S(p) = s` (0 for `s = 0`); rows `p = 0` and `p > n` are zero.
    term: Vec<u64>,
    /// `drop[p * stride + s] = C(n - p + s - 1, s - 1)`: how much the index falls when `S(p)`
    /// falls from `s` to `s - 1`.
    drop: Vec<u64>,
    stride: usize,
}

/// The binomial coefficient `C(a, b)` if it fits a `u64`.
fn binomial(a: usize, b: usize) -> Option<u64> {
    if b > a {
        return Some(0);
    }
    let b = b.min(a - b);
    let mut c: u128 = 1;
    for i in 1..=b {
        // c = C(a - b + i, i), exact at every step.
        c = c.checked_mul((a - b + i) as u128)? / i as u128;
        if c > u128::from(u64::MAX) {
            return None;
        }
    }
    u64::try_from(c).ok()
}

impl PerfectHash {
    /// The hash for at most `checkers` checkers on `points` points.
    ///
    /// # Errors
    /// [`ShapeError`] when `points` is not in `1..=MAX_POINTS`, `checkers` is above
    /// [`MAX_CHECKERS`], or the positions cannot be counted in a `u64`.
    pub fn new(points: usize, checkers: usize) -> Result<PerfectHash, ShapeError> {
        if !(1..=MAX_POINTS).contains(&points) {
            return Err(ShapeError::Points {
                points,
                max: MAX_POINTS,
            });
        }
        let too_many = ShapeError::TooManyPositions { points, checkers };
        if checkers > MAX_CHECKERS {
            return Err(too_many);
        }
        let count = binomial(points + checkers, points).ok_or(too_many)?;
        let stride = checkers + 1;
        let mut term = vec![0u64; (points + 2) * stride];
        let mut drop = vec![0u64; (points + 2) * stride];
        for p in 1..=points {
            for s in 1..=checkers {
                // Both are below `count`, so they fit.
                term[p * stride + s] = binomial(points - p + s, s - 1).unwrap_or(u64::MAX);
                drop[p * stride + s] = binomial(points - p + s - 1, s - 1).unwrap_or(u64::MAX);
            }
        }
        Ok(PerfectHash {
            points,
            checkers,
            count,
            term,
            drop,
            stride,
        })
    }

    /// Number of points covered.
    #[must_use]
    pub fn points(&self) -> usize {
        self.points
    }

    /// Largest number of checkers.
    #[must_use]
    pub fn checkers(&self) -> usize {
        self.checkers
    }

    /// Number of positions, `C(points + checkers, checkers)`.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Checks that `pos` fits: no checker above point `points`, at most `checkers` in all.
    ///
    /// # Errors
    /// The [`PositionError`] that says what does not fit.
    pub fn check(&self, pos: &OneSided) -> Result<(), PositionError> {
        let high = pos.highest_point();
        if high > self.points {
            return Err(PositionError::OutsidePoints {
                point: high,
                points: self.points,
            });
        }
        let total = pos.checkers() as usize;
        if total > self.checkers {
            return Err(PositionError::TooManyCheckers {
                found: total,
                max: self.checkers,
            });
        }
        Ok(())
    }

    /// The index of `pos`.
    ///
    /// # Errors
    /// [`PositionError`] when `pos` does not fit the hash (see [`check`](PerfectHash::check)).
    pub fn rank(&self, pos: &OneSided) -> Result<u64, PositionError> {
        self.check(pos)?;
        Ok(self.rank_unchecked(pos.counts()))
    }

    /// The index of a position known to fit.
    pub(crate) fn rank_unchecked(&self, counts: &[u8; MAX_POINTS]) -> u64 {
        let mut s = 0usize;
        let mut index = 0u64;
        for p in (1..=self.points).rev() {
            s += usize::from(counts[p - 1]);
            index += self.term[p * self.stride + s];
        }
        index
    }

    /// The position with the given index.
    ///
    /// # Errors
    /// [`IndexError`] when `index >= count()`.
    pub fn unrank(&self, index: u64) -> Result<OneSided, IndexError> {
        let state = self.state_of_index(index)?;
        Ok(state.to_position(self.points))
    }

    /// The move generator's state of the position with the given index.
    pub(crate) fn state_of_index(&self, index: u64) -> Result<State, IndexError> {
        if index >= self.count {
            return Err(IndexError {
                index,
                count: self.count,
            });
        }
        let mut st = State {
            s: [0; MAX_POINTS + 2],
            index,
            top: 0,
        };
        let mut rem = index;
        let mut s = self.checkers;
        for p in 1..=self.points {
            // term(p, s) grows with s: take the largest s <= S(p - 1) that fits in what is left.
            let row = &self.term[p * self.stride..(p + 1) * self.stride];
            while row[s] > rem {
                s -= 1;
            }
            rem -= row[s];
            st.s[p] = s as u8;
            if s > 0 {
                st.top = p as u8;
            }
        }
        debug_assert_eq!(rem, 0);
        Ok(st)
    }

    /// The move generator's state of a position known to fit.
    pub(crate) fn state_of(&self, pos: &OneSided) -> State {
        let mut st = State {
            s: [0; MAX_POINTS + 2],
            index: self.rank_unchecked(pos.counts()),
            top: pos.highest_point() as u8,
        };
        let mut s = 0u8;
        for p in (1..=self.points).rev() {
            s += pos.counts()[p - 1];
            st.s[p] = s;
        }
        st
    }

    /// Moves one checker from `from` down by `die` pips if that is legal in a bearoff: the point
    /// holds a checker, checkers bear off only once all are in the home board (points 1 to 6;
    /// shapes of more points hold races still coming in), and a die larger than the point
    /// bears off only the highest checker.
    #[inline]
    pub(crate) fn step(&self, st: &State, from: usize, die: usize) -> Option<State> {
        if st.s[from] <= st.s[from + 1] {
            return None;
        }
        let home = usize::from(st.top) <= HOME_POINTS;
        let to = if from > die {
            from - die
        } else if home && (from == die || from == usize::from(st.top)) {
            0
        } else {
            return None;
        };
        let mut next = *st;
        for j in to + 1..=from {
            let s = usize::from(next.s[j]);
            next.index -= self.drop[j * self.stride + s];
            next.s[j] -= 1;
        }
        while next.top > 0 && next.s[usize::from(next.top)] == 0 {
            next.top -= 1;
        }
        Some(next)
    }
}

/// A position as the move generator sees it: suffix counts and index, kept in step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct State {
    /// `s[p]` = checkers on points `p` and above, for `p` in `1..=points`; 0 beyond.
    pub s: [u8; MAX_POINTS + 2],
    /// The perfect-hash index.
    pub index: u64,
    /// The highest occupied point, 0 when all checkers are off.
    pub top: u8,
}

impl State {
    /// Checkers on the board.
    pub fn on_board(&self) -> u8 {
        self.s[1]
    }

    /// The position's checker counts.
    pub fn to_position(self, points: usize) -> OneSided {
        let mut counts = [0u8; MAX_POINTS];
        for p in 1..=points {
            counts[p - 1] = self.s[p] - self.s[p + 1];
        }
        OneSided::from_array(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position of at most `k` checkers on `n` points, as sorted point lists (0 = off).
    fn all_sorted_lists(n: usize, k: usize) -> Vec<Vec<usize>> {
        fn rec(n: usize, k: usize, min: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if cur.len() == k {
                out.push(cur.clone());
                return;
            }
            for v in min..=n {
                cur.push(v);
                rec(n, k, v, cur, out);
                cur.pop();
            }
        }
        let mut out = Vec::new();
        rec(n, k, 0, &mut Vec::new(), &mut out);
        out // generated in lexicographic order
    }

    fn from_list(list: &[usize]) -> OneSided {
        let mut counts = [0u8; MAX_POINTS];
        for &v in list {
            if v > 0 {
                counts[v - 1] += 1;
            }
        }
        OneSided::from_array(counts)
    }

    #[test]
    fn paper_figures() {
        let h = PerfectHash::new(6, 15).unwrap();
        assert_eq!(h.count(), 54_264);
        let pos = OneSided::new(&[3, 3, 2, 0, 2, 1]).unwrap();
        assert_eq!(h.rank(&pos), Ok(8_887));
        assert_eq!(h.rank(&OneSided::EMPTY), Ok(0));
        assert_eq!(
            h.rank(&OneSided::new(&[0, 0, 0, 0, 0, 15]).unwrap()),
            Ok(54_263)
        );
    }

    #[test]
    fn index_is_the_lexicographic_rank_for_small_shapes() {
        for n in 1..=7 {
            for k in 0..=6 {
                let h = PerfectHash::new(n, k).unwrap();
                let lists = all_sorted_lists(n, k);
                assert_eq!(lists.len() as u64, h.count(), "n={n} k={k}");
                for (i, list) in lists.iter().enumerate() {
                    let pos = from_list(list);
                    assert_eq!(h.rank(&pos), Ok(i as u64), "n={n} k={k} {list:?}");
                    assert_eq!(h.unrank(i as u64), Ok(pos));
                    let st = h.state_of(&pos);
                    assert_eq!(h.state_of_index(i as u64), Ok(st));
                }
            }
        }
    }

    #[test]
    fn rank_unrank_round_trip_6x15() {
        let h = PerfectHash::new(6, 15).unwrap();
        for i in 0..h.count() {
            let pos = h.unrank(i).unwrap();
            assert_eq!(h.rank(&pos), Ok(i));
        }
        assert_eq!(
            h.unrank(54_264),
            Err(IndexError {
                index: 54_264,
                count: 54_264
            })
        );
    }

    #[test]
    fn shape_limits() {
        assert!(matches!(
            PerfectHash::new(0, 15),
            Err(ShapeError::Points { points: 0, .. })
        ));
        assert!(matches!(
            PerfectHash::new(25, 15),
            Err(ShapeError::Points { points: 25, .. })
        ));
        assert!(matches!(
            PerfectHash::new(24, 255),
            Err(ShapeError::TooManyPositions { .. })
        ));
        // The whole board: 24 points, 15 checkers.
        let h = PerfectHash::new(24, 15).unwrap();
        assert_eq!(h.count(), 25_140_840_660);
        let last =
            OneSided::new(&[0; 23].iter().chain(&[15]).copied().collect::<Vec<_>>()).unwrap();
        assert_eq!(h.rank(&last), Ok(h.count() - 1));
        assert_eq!(h.unrank(h.count() - 1), Ok(last));
    }

    #[test]
    fn positions_that_do_not_fit_are_refused() {
        let h = PerfectHash::new(6, 8).unwrap();
        assert_eq!(
            h.rank(&OneSided::new(&[0, 0, 0, 0, 0, 0, 1]).unwrap()),
            Err(PositionError::OutsidePoints {
                point: 7,
                points: 6
            })
        );
        assert_eq!(
            h.rank(&OneSided::new(&[9]).unwrap()),
            Err(PositionError::TooManyCheckers { found: 9, max: 8 })
        );
    }

    #[test]
    fn smaller_databases_are_prefixes() {
        let big = PerfectHash::new(6, 15).unwrap();
        let small = PerfectHash::new(6, 8).unwrap();
        for i in 0..small.count() {
            assert_eq!(big.unrank(i), small.unrank(i));
        }
    }
}
