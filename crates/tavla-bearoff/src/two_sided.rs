//! The two-sided database: the exact cubeless probability that the side on roll wins a race
//! in which both sides are bearing off, with both sides playing to maximise their winning
//! chances.

// The build walks several parallel tables with the same indices; index loops say that best.
#![allow(clippy::needless_range_loop)]

use std::path::Path;

use crate::dice::Dice;
use crate::error::{DbError, FormatError, ProbeError, ShapeError};
use crate::format::{self, Kind, Reader};
use crate::hash::PerfectHash;
use crate::match_play::PlayTable;
use crate::one_sided::{db_hash, OneSidedDb};
use crate::position::OneSided;

/// Winning chances that differ by less than this are a tie in [`PolicyStats`].
pub const POLICY_EPSILON: f64 = 1e-12;

/// How the play that minimises the expected number of rolls (the one-sided database's policy)
/// compares with the play that maximises winning chances, over every decision of a two-sided
/// database: every pair of positions `(x, o)` with checkers left on both sides and every one of
/// the 21 rolls (a roll counts once, whatever its probability, in `decisions`, `with_choice`
/// and `differ`).
///
/// The cost of a decision is the winning chance lost by making the rolls-minimising play
/// instead of the best one, both sides playing perfectly afterwards. Ties in expected rolls
/// are broken towards the result with the smallest index.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PolicyStats {
    /// Decisions: (on roll, opponent, roll) triples with checkers left on both sides.
    pub decisions: u64,
    /// Decisions with at least two different resulting positions.
    pub with_choice: u64,
    /// Decisions where the rolls-minimising play loses winning chances (by more than
    /// [`POLICY_EPSILON`]).
    pub differ: u64,
    /// Decisions where two or more plays minimise the expected rolls equally.
    pub rolls_ties: u64,
    /// Sum of the winning chances lost over the `differ` decisions.
    pub total_cost: f64,
    /// Sum over position pairs of the expected loss on one turn (each decision's cost weighted
    /// by its roll's probability); divide by `pairs` for the mean loss per turn.
    pub weighted_cost: f64,
    /// Position pairs with checkers left on both sides.
    pub pairs: u64,
    /// The largest loss of a single decision.
    pub max_cost: f64,
    /// Where the largest loss happens: (on roll, opponent, roll) as indices and dice.
    pub max_at: Option<(u64, u64, Dice)>,
}

impl PolicyStats {
    /// Share of decisions with a choice where the policies disagree.
    #[must_use]
    pub fn differ_share(&self) -> f64 {
        self.differ as f64 / self.with_choice.max(1) as f64
    }

    /// Mean winning chance lost per disagreeing decision.
    #[must_use]
    pub fn mean_cost(&self) -> f64 {
        self.total_cost / self.differ.max(1) as f64
    }

    /// Mean winning chance lost per turn, over all position pairs.
    #[must_use]
    pub fn mean_loss_per_turn(&self) -> f64 {
        self.weighted_cost / self.pairs.max(1) as f64
    }

    fn record(&mut self, cost: f64, weight: f64, x: usize, o: usize, r: usize) {
        if cost > POLICY_EPSILON {
            self.differ += 1;
            self.total_cost += cost;
            self.weighted_cost += weight * cost;
            if cost > self.max_cost {
                self.max_cost = cost;
                self.max_at = Some((x as u64, o as u64, Dice::ALL_21[r].0));
            }
        }
    }
}

/// The plays of every position of a shape (a [`PlayTable`]), and for each position and roll
/// the result that minimises the expected number of rolls.
struct Children {
    plays: PlayTable,
    min_rolls: Vec<u32>,
    rolls_tie: Vec<bool>,
}

impl Children {
    fn new(hash: &PerfectHash, os: &OneSidedDb) -> Children {
        let plays = PlayTable::new(hash);
        let n = hash.count() as usize;
        let mut min_rolls = Vec::with_capacity(n * 21);
        let mut rolls_tie = Vec::with_capacity(n * 21);
        for x in 0..n {
            for r in 0..21 {
                let mut best = (f64::INFINITY, 0u32);
                let mut tie = false;
                for &c in plays.of(x, r) {
                    let m = os.mean_rolls_at(u64::from(c));
                    if m < best.0 - 1e-12 {
                        best = (m, c);
                        tie = false;
                    } else if (m - best.0).abs() <= 1e-12 {
                        tie = true;
                    }
                }
                min_rolls.push(best.1);
                rolls_tie.push(tie);
            }
        }
        Children {
            plays,
            min_rolls,
            rolls_tie,
        }
    }

    #[inline]
    fn of(&self, x: usize, r: usize) -> &[u32] {
        self.plays.of(x, r)
    }
}

/// Money equities of the side on roll before its roll in a race, with a cube of value 1
/// (multiply by the cube value), both sides playing and handling the cube perfectly; no
/// gammons (in a bearoff with fewer than 15 checkers a side none are possible).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubefulEquities {
    /// Cubeless equity, `2p - 1`.
    pub cubeless: f64,
    /// Cube in the centre: the side on roll may double.
    pub centred: CubeDecision,
    /// The side on roll owns the cube and may redouble.
    pub owned: CubeDecision,
    /// The opponent owns the cube: no cube action, the equity of playing on.
    pub opponent_owns: f64,
}

/// A doubling decision of the side on roll (money, cube value 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeDecision {
    /// Equity if it does not double now (and both sides handle the cube perfectly after).
    pub no_double: f64,
    /// Equity if it doubles and the opponent takes (2 × the opponent-owns equity).
    pub double_take: f64,
    /// The equity with the right decisions: `max(no_double, min(double_take, 1))`.
    pub equity: f64,
}

impl CubeDecision {
    fn new(no_double: f64, opponent_owns: f64) -> CubeDecision {
        let double_take = 2.0 * opponent_owns;
        CubeDecision {
            no_double,
            double_take,
            equity: no_double.max(double_take.min(1.0)),
        }
    }

    /// Whether the side on roll should double (ties: no double).
    #[must_use]
    pub fn should_double(&self) -> bool {
        self.double_take.min(1.0) > self.no_double
    }

    /// Whether the opponent should take a double (ties: take).
    #[must_use]
    pub fn should_take(&self) -> bool {
        self.double_take <= 1.0
    }
}

/// What to compute in a two-sided build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TwoSidedOptions {
    /// Also compute cubeful money equities (cube centred, owned by either side); this takes
    /// about four times as long and four times the space.
    pub cubeful: bool,
}

/// The two-sided bearoff database of a shape: for every pair of positions, the probability
/// that the side on roll wins, both sides playing to maximise their winning chances; and
/// optionally ([`TwoSidedOptions::cubeful`]) the cubeful money equities.
///
/// Stored as `f32` (about 7 significant digits; computed in `f64`). By convention the side on
/// roll with no checkers left has won (probability 1, equity +1) and the side on roll whose
/// opponent has none left has lost (0, -1); the pair with no checkers on either side is stored
/// as a loss.
///
/// # File payload (format version 1, after the [header](crate::format))
///
/// Header byte 15 holds flags: bit 0 set when the cubeful equities are present.
/// Then `N × N` f32 winning probabilities, `N` the number of positions of one side, row-major:
/// the value for the side on roll at index `x` and the opponent at index `o` is at
/// `x * N + o`. With bit 0, three more `N × N` f32 tables in the same layout follow: the side
/// on roll's equity (cube value 1) if it does not double now, with the cube owned by the side
/// on roll, in the centre, and owned by the opponent.
///
/// ```
/// use tavla_bearoff::{OneSided, TwoSidedDb};
///
/// let (db, _stats) = TwoSidedDb::build(6, 2)?;
/// let me: OneSided = "0,0,0,0,0,1".parse()?;  // one checker on the 6-point
/// let opp: OneSided = "1".parse()?;           // one checker on the ace point
/// // I win only by bearing off at once: 27 rolls in 36.
/// assert!((db.win_probability(&me, &opp)? - 0.75).abs() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TwoSidedDb {
    hash: PerfectHash,
    probs: Vec<f32>,
    /// With cubeful equities: no-double equities `[owned, centred, opponent owns]`.
    cube: Option<[Vec<f32>; 3]>,
}

/// The most memory a two-sided build may ask for, 256 GiB: far above the largest database
/// built here (6 × 10 cubeless, about 770 MB: docs/bearoff.md), far below the sizes no machine
/// holds (12 × 15: petabytes), which are refused before any work.
const MAX_BUILD_BYTES: u64 = 256 << 30;

fn alloc<T: Clone>(
    len: usize,
    value: T,
    points: usize,
    checkers: usize,
) -> Result<Vec<T>, ShapeError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| ShapeError::TooLarge {
        what: "two-sided",
        points,
        checkers,
    })?;
    v.resize(len, value);
    Ok(v)
}

/// The layers of the build. Layer 0 is P, the side on roll's winning chance. With the cube,
/// layers 1..=3 are the side on roll's cubeful equity before its roll, its cube action
/// included: E_own (it owns the cube), E_cen (centred), E_opp (the opponent owns it).
///
/// A layer's value is `sum over rolls of w * transform(min over plays c of V_src(o, c))`: the
/// mover picks the play that leaves the opponent, now on roll at `(o, c)`, the least. The
/// opponent's cube state is the mover's seen from the other side: a cube the mover owns is
/// owned by the opponent's opponent (E_opp), a centred one stays centred, and a cube the
/// opponent owns is its own (E_own). `SOURCE[l]` is that layer.
const SOURCE: [usize; 4] = [0, 3, 2, 1];

impl TwoSidedDb {
    /// Builds the database (winning chances only) for `checkers` checkers a side (at most 15)
    /// on `points` points, and compares the two playing policies on the way.
    ///
    /// # Errors
    /// [`ShapeError`] for a shape out of range, or one whose tables do not fit in memory
    /// (`N` positions need about `12 N²` bytes while building, `60 N²` with the cube).
    pub fn build(points: usize, checkers: usize) -> Result<(TwoSidedDb, PolicyStats), ShapeError> {
        Self::build_with(points, checkers, TwoSidedOptions::default(), &mut |_, _| {})
    }

    /// As [`build`](TwoSidedDb::build) with options, calling `progress(done, total)` now and
    /// then.
    ///
    /// # Errors
    /// As [`build`](TwoSidedDb::build).
    pub fn build_with(
        points: usize,
        checkers: usize,
        options: TwoSidedOptions,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(TwoSidedDb, PolicyStats), ShapeError> {
        if options.cubeful {
            Self::build_layers::<4>(points, checkers, progress)
        } else {
            Self::build_layers::<1>(points, checkers, progress)
        }
    }

    fn build_layers<const L: usize>(
        points: usize,
        checkers: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(TwoSidedDb, PolicyStats), ShapeError> {
        let hash = db_hash("two-sided", points, checkers)?;
        let too_large = ShapeError::TooLarge {
            what: "two-sided",
            points,
            checkers,
        };
        let n = hash.count() as usize;
        let nn = n.checked_mul(n).ok_or(too_large.clone())?;
        // The tables the build holds (an f64 a layer, and with the cube two f32 tables of
        // no-double equities), refused at once when beyond any machine's memory rather than
        // after the one-sided build and part of the allocation.
        let per_pair = (8 * L + if L == 4 { 8 } else { 0 }) as u64;
        if (nn as u64)
            .checked_mul(per_pair)
            .is_none_or(|bytes| bytes > MAX_BUILD_BYTES)
        {
            return Err(too_large);
        }
        // Step 1. The one-sided database of the same shape gives the rolls-minimising plays.
        let os = OneSidedDb::build(points, checkers)?;
        let ch = Children::new(&hash, &os);
        let weights: [f64; 21] = std::array::from_fn(|r| f64::from(Dice::ALL_21[r].1));

        // Step 2. Fill `t[l][c * n + o] = V_l(o, c)` (the transpose of the final tables) in
        // shells m = 1, 2, ...: first V(m, o) for o < m, then V(m, m), then V(x, m) for x < m.
        // Every value needed is in an earlier shell or earlier in the same one, because a play
        // lowers the mover's index.
        let mut t: [Vec<f64>; L] = std::array::from_fn(|_| Vec::new());
        for table in &mut t {
            *table = alloc(nn, 0.0, points, checkers)?;
        }
        // The no-double equities with the cube owned and centred are kept for the file; with
        // the opponent owning the cube, the no-double equity is E_opp itself.
        let mut nd: [Vec<f32>; 2] = [Vec::new(), Vec::new()];
        if L == 4 {
            for table in &mut nd {
                *table = alloc(nn, 0.0f32, points, checkers)?;
            }
        }
        let mut rows: [Vec<f64>; L] = std::array::from_fn(|_| vec![0.0; n]); // V(m, ·)
        let mut acc: [Vec<f64>; L] = std::array::from_fn(|_| vec![0.0; n]);
        let mut tmp = vec![0.0f64; n];
        let mut stats = PolicyStats {
            pairs: (n as u64 - 1) * (n as u64 - 1),
            ..PolicyStats::default()
        };
        for x in 1..n {
            for r in 0..21 {
                stats.decisions += n as u64 - 1;
                if ch.of(x, r).len() > 1 {
                    stats.with_choice += n as u64 - 1;
                }
                if ch.rolls_tie[x * 21 + r] {
                    stats.rolls_ties += n as u64 - 1;
                }
            }
        }
        // Terminal values: V(o, 0) is a loss for the side on roll o (P 0, E -1), V(0, c) a win.
        for l in 1..L {
            for o in 1..n {
                t[l][o] = -1.0;
            }
        }
        for m in 1..n {
            progress((m * m) as u64, nn as u64);
            // Step 2a. V(m, o) for 1 <= o < m: stream the columns V(·, c) of the children.
            for a in &mut acc {
                a[1..m].fill(0.0);
            }
            for r in 0..21 {
                let w = weights[r];
                let kids = ch.of(m, r);
                if kids[0] == 0 {
                    // Bearing off the last checker wins at once, whatever the opponent has.
                    for a in &mut acc {
                        a[1..m].iter_mut().for_each(|a| *a += w);
                    }
                    continue;
                }
                for l in 0..L {
                    let src = &t[SOURCE[l]];
                    let col = |c: u32| &src[c as usize * n + 1..c as usize * n + m];
                    let tmp = &mut tmp[1..m];
                    tmp.copy_from_slice(col(kids[0]));
                    for &c in &kids[1..] {
                        for (t, &s) in tmp.iter_mut().zip(col(c)) {
                            *t = if s < *t { s } else { *t };
                        }
                    }
                    let a = &mut acc[l][1..m];
                    if l == 0 {
                        for (a, &t) in a.iter_mut().zip(tmp.iter()) {
                            *a += w * (1.0 - t);
                        }
                        if kids.len() > 1 {
                            let epc = col(ch.min_rolls[m * 21 + r]);
                            for (o, (&e, &t)) in epc.iter().zip(tmp.iter()).enumerate() {
                                if e - t > POLICY_EPSILON {
                                    stats.record(e - t, w / 36.0, m, o + 1, r);
                                }
                            }
                        }
                    } else {
                        for (a, &t) in a.iter_mut().zip(tmp.iter()) {
                            *a -= w * t;
                        }
                    }
                }
            }
            for l in 0..L {
                rows[l][0] = if l == 0 { 0.0 } else { -1.0 };
            }
            for o in 1..m {
                let v: [f64; L] = std::array::from_fn(|l| acc[l][o] / 36.0);
                Self::store(&mut rows, &mut nd, o, &v, m * n + o);
            }
            // Step 2b. V(m, m), from the row just made.
            let v = Self::cell::<L>(&ch, &rows, m, m, &weights, &mut stats);
            Self::store(&mut rows, &mut nd, m, &v, m * n + m);
            for l in 0..L {
                for o in 0..=m {
                    t[l][o * n + m] = rows[l][o];
                }
                // V(0, m): the side on roll has borne off.
                t[l][m * n] = 1.0;
            }
            // Step 2c. V(x, m) for 1 <= x < m, gathering from row m (small, cached).
            for x in 1..m {
                let v = Self::cell::<L>(&ch, &rows, x, m, &weights, &mut stats);
                let e = Self::finish(&v, &mut nd, x * n + m);
                for l in 0..L {
                    t[l][m * n + x] = e[l];
                }
            }
        }
        progress(nn as u64, nn as u64);

        // Step 3. Transpose into the stored layout, in blocks to stay in cache.
        drop((acc, tmp, rows));
        let transpose = |src: &[f64]| -> Result<Vec<f32>, ShapeError> {
            let mut out: Vec<f32> = alloc(nn, 0.0f32, points, checkers)?;
            const B: usize = 64;
            for c0 in (0..n).step_by(B) {
                for o0 in (0..n).step_by(B) {
                    for c in c0..(c0 + B).min(n) {
                        for o in o0..(o0 + B).min(n) {
                            out[o * n + c] = src[c * n + o] as f32;
                        }
                    }
                }
            }
            Ok(out)
        };
        let probs = transpose(&t[0])?;
        let cube = if L == 4 {
            let opp = transpose(&t[3])?;
            let [own, cen] = nd;
            Some([own, cen, opp])
        } else {
            None
        };
        Ok((TwoSidedDb { hash, probs, cube }, stats))
    }

    /// From the layer sums of a cell (P and the three no-double equities) to the stored values
    /// (P and the cubeful equities with the side on roll's cube action); keeps the no-double
    /// equities for the file.
    #[inline]
    fn finish<const L: usize>(v: &[f64; L], nd: &mut [Vec<f32>; 2], at: usize) -> [f64; L] {
        let mut e = *v;
        if L == 4 {
            let (own, cen, opp) = (v[1], v[2], v[3]);
            let double_take = (2.0 * opp).min(1.0);
            e[1] = own.max(double_take);
            e[2] = cen.max(double_take);
            e[3] = opp;
            nd[0][at] = own as f32;
            nd[1][at] = cen as f32;
        }
        e
    }

    #[inline]
    fn store<const L: usize>(
        rows: &mut [Vec<f64>; L],
        nd: &mut [Vec<f32>; 2],
        o: usize,
        v: &[f64; L],
        at: usize,
    ) {
        let e = Self::finish(v, nd, at);
        for l in 0..L {
            rows[l][o] = e[l];
        }
    }

    /// The layer sums of cell (x, o) from the rows V(o, ·), recording the policy comparison.
    #[inline]
    fn cell<const L: usize>(
        ch: &Children,
        rows: &[Vec<f64>; L],
        x: usize,
        o: usize,
        weights: &[f64; 21],
        stats: &mut PolicyStats,
    ) -> [f64; L] {
        let mut v = [0.0; L];
        for (r, &w) in weights.iter().enumerate() {
            let kids = ch.of(x, r);
            for l in 0..L {
                let row = &rows[SOURCE[l]];
                let mut best = f64::INFINITY;
                for &c in kids {
                    let p = row[c as usize];
                    best = if p < best { p } else { best };
                }
                if l == 0 {
                    v[0] += w * (1.0 - best);
                    if kids.len() > 1 {
                        let e = row[ch.min_rolls[x * 21 + r] as usize];
                        if e - best > POLICY_EPSILON {
                            stats.record(e - best, w / 36.0, x, o, r);
                        }
                    }
                } else {
                    v[l] -= w * best;
                }
            }
        }
        v.map(|s| s / 36.0)
    }

    /// The perfect hash (shape and numbering) of one side.
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

    /// The probability that the side on roll, at index `on_roll`, wins against `opponent`.
    ///
    /// # Panics
    /// When an index is out of range.
    #[must_use]
    pub fn win_probability_at(&self, on_roll: u64, opponent: u64) -> f64 {
        let n = self.hash.count() as usize;
        let (x, o) = (on_roll as usize, opponent as usize);
        assert!(x < n && o < n, "index out of range 0..{n}");
        f64::from(self.probs[x * n + o])
    }

    /// The probability that the side on roll wins the race, cubeless, both sides playing
    /// perfectly.
    ///
    /// # Errors
    /// [`ProbeError`] when a side does not fit the database, or neither has checkers left.
    pub fn win_probability(
        &self,
        on_roll: &OneSided,
        opponent: &OneSided,
    ) -> Result<f64, ProbeError> {
        let (x, o) = self.indices(on_roll, opponent)?;
        Ok(self.win_probability_at(x, o))
    }

    /// Whether the database holds cubeful equities.
    #[must_use]
    pub fn is_cubeful(&self) -> bool {
        self.cube.is_some()
    }

    /// The cubeful money equities of the side on roll at index `on_roll` against `opponent`,
    /// if the database holds them.
    ///
    /// # Panics
    /// When an index is out of range.
    #[must_use]
    pub fn cubeful_equities_at(&self, on_roll: u64, opponent: u64) -> Option<CubefulEquities> {
        let cube = self.cube.as_ref()?;
        let n = self.hash.count() as usize;
        let (x, o) = (on_roll as usize, opponent as usize);
        assert!(x < n && o < n, "index out of range 0..{n}");
        let k = x * n + o;
        let [own, cen, opp] = [cube[0][k], cube[1][k], cube[2][k]].map(f64::from);
        Some(CubefulEquities {
            cubeless: 2.0 * f64::from(self.probs[k]) - 1.0,
            centred: CubeDecision::new(cen, opp),
            owned: CubeDecision::new(own, opp),
            opponent_owns: opp,
        })
    }

    /// The cubeful money equities of the side on roll, if the database holds them.
    ///
    /// # Errors
    /// [`ProbeError`] when a side does not fit the database, or neither has checkers left.
    pub fn cubeful_equities(
        &self,
        on_roll: &OneSided,
        opponent: &OneSided,
    ) -> Result<Option<CubefulEquities>, ProbeError> {
        let (x, o) = self.indices(on_roll, opponent)?;
        Ok(self.cubeful_equities_at(x, o))
    }

    fn indices(&self, on_roll: &OneSided, opponent: &OneSided) -> Result<(u64, u64), ProbeError> {
        let x = self
            .hash
            .rank(on_roll)
            .map_err(|source| ProbeError::Position {
                side: "player on roll",
                source,
            })?;
        let o = self
            .hash
            .rank(opponent)
            .map_err(|source| ProbeError::Position {
                side: "opponent",
                source,
            })?;
        if x == 0 && o == 0 {
            return Err(ProbeError::GameOver { side: "opponent" });
        }
        Ok((x, o))
    }

    /// The file image: header and payload.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let tables = 1 + self.cube.as_ref().map_or(0, |c| c.len());
        let mut payload = Vec::with_capacity(4 * self.probs.len() * tables);
        let mut put = |v: &[f32]| {
            for p in v {
                payload.extend_from_slice(&p.to_le_bytes());
            }
        };
        put(&self.probs);
        if let Some(cube) = &self.cube {
            cube.iter().for_each(|t| put(t));
        }
        let flags = u8::from(self.cube.is_some());
        let mut out = Vec::with_capacity(format::HEADER_LEN + payload.len());
        format::write(&mut out, Kind::TwoSided, flags, &self.hash, &payload)
            .expect("writing to a Vec");
        out
    }

    /// Reads a database from its file image.
    ///
    /// # Errors
    /// [`FormatError`] when the bytes are not a valid two-sided database.
    pub fn from_bytes(bytes: &[u8]) -> Result<TwoSidedDb, FormatError> {
        let (h, payload) = format::parse(bytes, Kind::TwoSided)?;
        let hash = db_hash("two-sided", usize::from(h.points), usize::from(h.checkers))?;
        let n = hash.count() as usize;
        let total = payload.len() as u64;
        let bytes = n
            .checked_mul(n)
            .and_then(|nn| nn.checked_mul(4))
            .ok_or(FormatError::Shape(ShapeError::TooLarge {
                what: "two-sided",
                points: usize::from(h.points),
                checkers: usize::from(h.checkers),
            }))?;
        let mut r = Reader::new(payload);
        let probs = format::f32s(r.take(bytes, total)?);
        let cube = if h.flags & 1 != 0 {
            let mut table = || r.take(bytes, total).map(format::f32s);
            Some([table()?, table()?, table()?])
        } else {
            None
        };
        if r.remaining() != 0 {
            return Err(FormatError::PayloadLength {
                found: total,
                expected: total - r.remaining() as u64,
            });
        }
        if let Some(i) = probs.iter().position(|p| !(0.0..=1.0).contains(p)) {
            return Err(FormatError::Corrupt {
                index: (i / n) as u64,
                what: "winning probability outside 0..=1",
            });
        }
        if let Some(cube) = &cube {
            if let Some(i) = cube
                .iter()
                .flat_map(|t| t.iter().enumerate())
                .find_map(|(i, e)| (!(-1.0..=1.0).contains(e)).then_some(i))
            {
                return Err(FormatError::Corrupt {
                    index: (i / n) as u64,
                    what: "equity outside -1..=1",
                });
            }
        }
        Ok(TwoSidedDb { hash, probs, cube })
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
    /// [`DbError`] when the file cannot be read or is not a valid two-sided database.
    pub fn load(path: &Path) -> Result<TwoSidedDb, DbError> {
        let bytes = format::read_file(path)?;
        TwoSidedDb::from_bytes(&bytes).map_err(|source| DbError::Format {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::for_each_play;

    /// Review (fifty-eighth round): 12 points and 15 checkers (petabytes of tables) started
    /// the one-sided build, gigabytes of it, before the allocation failed.
    #[test]
    fn a_build_beyond_any_memory_is_refused_before_any_work() {
        for cubeful in [false, true] {
            let options = TwoSidedOptions { cubeful };
            let e = TwoSidedDb::build_with(12, 15, options, &mut |_, _| {}).unwrap_err();
            assert!(matches!(e, ShapeError::TooLarge { .. }), "{e}");
        }
    }

    /// The definition, evaluated by plain memoised recursion over positions.
    fn reference(hash: &PerfectHash, x: u64, o: u64, memo: &mut Vec<Vec<Option<f64>>>) -> f64 {
        if x == 0 {
            return 1.0;
        }
        if o == 0 {
            return 0.0;
        }
        if let Some(v) = memo[x as usize][o as usize] {
            return v;
        }
        let st = hash.state_of_index(x).unwrap();
        let mut v = 0.0;
        for &(dice, w) in &Dice::ALL_21 {
            let mut kids = Vec::new();
            for_each_play(hash, &st, dice, &mut |c, _| kids.push(c.index));
            let best = kids
                .iter()
                .map(|&c| 1.0 - reference(hash, o, c, memo))
                .fold(f64::NEG_INFINITY, f64::max);
            v += f64::from(w) / 36.0 * best;
        }
        memo[x as usize][o as usize] = Some(v);
        v
    }

    #[test]
    fn matches_plain_recursion() {
        let (db, _) = TwoSidedDb::build(4, 3).unwrap();
        let hash = db.hash().clone();
        let n = hash.count();
        let mut memo = vec![vec![None; n as usize]; n as usize];
        for x in 0..n {
            for o in 0..n {
                if x == 0 && o == 0 {
                    continue;
                }
                let want = reference(&hash, x, o, &mut memo);
                let got = db.win_probability_at(x, o);
                assert!((want - got).abs() < 1e-6, "x={x} o={o}: {got} vs {want}");
            }
        }
    }

    /// Cubeful equities `[owned, centred, opponent owns]` of the side on roll before its roll,
    /// its own cube action included, by plain memoised recursion.
    fn reference_cube(
        hash: &PerfectHash,
        x: u64,
        o: u64,
        memo: &mut Vec<Vec<Option<[f64; 3]>>>,
    ) -> [f64; 3] {
        if x == 0 {
            return [1.0; 3];
        }
        if o == 0 {
            return [-1.0; 3];
        }
        if let Some(v) = memo[x as usize][o as usize] {
            return v;
        }
        let st = hash.state_of_index(x).unwrap();
        let mut nd = [0.0; 3];
        for &(dice, w) in &Dice::ALL_21 {
            let mut kids = Vec::new();
            for_each_play(hash, &st, dice, &mut |c, _| kids.push(c.index));
            // My cube owned -> the opponent faces a cube it does not own, and so on.
            for (k, theirs) in [(0, 2), (1, 1), (2, 0)] {
                let best = kids
                    .iter()
                    .map(|&c| -reference_cube(hash, o, c, memo)[theirs])
                    .fold(f64::NEG_INFINITY, f64::max);
                nd[k] += f64::from(w) / 36.0 * best;
            }
        }
        let take = (2.0 * nd[2]).min(1.0);
        let v = [nd[0].max(take), nd[1].max(take), nd[2]];
        memo[x as usize][o as usize] = Some(v);
        v
    }

    #[test]
    fn cubeful_matches_plain_recursion() {
        let options = TwoSidedOptions { cubeful: true };
        let (db, _) = TwoSidedDb::build_with(5, 3, options, &mut |_, _| {}).unwrap();
        let (plain, _) = TwoSidedDb::build(5, 3).unwrap();
        let hash = db.hash().clone();
        let n = hash.count();
        let mut memo = vec![vec![None; n as usize]; n as usize];
        let mut doubles = 0;
        for x in 1..n {
            for o in 1..n {
                let want = reference_cube(&hash, x, o, &mut memo);
                let e = db.cubeful_equities_at(x, o).unwrap();
                let got = [e.owned.equity, e.centred.equity, e.opponent_owns];
                for k in 0..3 {
                    assert!(
                        (want[k] - got[k]).abs() < 1e-6,
                        "x={x} o={o} k={k}: {got:?} vs {want:?}"
                    );
                }
                assert_eq!(db.win_probability_at(x, o), plain.win_probability_at(x, o));
                // Owning the cube is worth at least as much as a centred one, which is worth at
                // least as much as the opponent's cube.
                assert!(got[0] >= got[1] - 1e-6 && got[1] >= got[2] - 1e-6);
                doubles += usize::from(e.centred.should_double());
            }
        }
        assert!(doubles > 0);
        assert!(plain.cubeful_equities_at(1, 1).is_none());
        let bytes = db.to_bytes();
        assert_eq!(TwoSidedDb::from_bytes(&bytes).unwrap(), db);
    }

    #[test]
    fn symmetric_sanity() {
        let (db, stats) = TwoSidedDb::build(6, 3).unwrap();
        let n = db.hash().count();
        for x in 1..n {
            // Being on roll in the same position is an advantage.
            assert!(db.win_probability_at(x, x) > 0.5);
            assert_eq!(db.win_probability_at(x, 0), 0.0);
            assert_eq!(db.win_probability_at(0, x), 1.0);
        }
        assert_eq!(stats.pairs, (n - 1) * (n - 1));
        assert_eq!(stats.decisions, 21 * stats.pairs);
        assert!(stats.differ <= stats.with_choice);
    }

    #[test]
    fn bytes_round_trip_and_refusal() {
        let (db, _) = TwoSidedDb::build(3, 3).unwrap();
        let bytes = db.to_bytes();
        assert_eq!(TwoSidedDb::from_bytes(&bytes).unwrap(), db);
        assert!(matches!(
            OneSidedDb::from_bytes(&bytes),
            Err(FormatError::WrongKind { .. })
        ));
    }
}
