//! Exact cubeful match play in short bearoffs, at one match score.
//!
//! In a race where both sides are bearing off fewer than 15 checkers no gammon is possible,
//! so a game at a match score ends in one of two ways for each cube: a side wins the cube's
//! value. Given each side's chance of winning the match after each such result and the rules
//! of who may double when ([`MatchGame`]), [`MatchTable::solve`] finds every side's chance of
//! winning the match with both sides playing and handling the cube perfectly, by dynamic
//! programming over the pairs of positions reachable from a starting pair: a play lowers the
//! mover's index, so the pairs are filled in index order with no recursion.
//!
//! The money cubeful database ([`TwoSidedDb`](crate::TwoSidedDb) with
//! [`TwoSidedOptions::cubeful`](crate::TwoSidedOptions)) needs one table for every position,
//! because money equities scale with the cube; a match score needs its own, so these are
//! solved when asked for, over the positions that can still arise.

use crate::dice::Dice;
use crate::hash::PerfectHash;
use crate::movegen::for_each_play;

/// The distinct results of every roll from every position of a shape, ascending, as indices
/// of its [`PerfectHash`].
#[derive(Clone, PartialEq, Eq)]
pub struct PlayTable {
    points: usize,
    checkers: usize,
    offsets: Vec<u32>,
    list: Vec<u32>,
}

impl std::fmt::Debug for PlayTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlayTable")
            .field("points", &self.points)
            .field("checkers", &self.checkers)
            .field("results", &self.list.len())
            .finish()
    }
}

impl PlayTable {
    /// The plays of every position of `hash`'s shape. Every roll moves a checker while one is
    /// left (the highest can always move down or bear off), so no list but index 0's is empty.
    #[must_use]
    pub fn new(hash: &PerfectHash) -> PlayTable {
        let n = hash.count() as usize;
        let mut offsets = Vec::with_capacity(n * 21 + 1);
        let mut list = Vec::new();
        let mut buf: Vec<u32> = Vec::new();
        offsets.push(0);
        for x in 0..n {
            let st = hash.state_of_index(x as u64).expect("index in range");
            for &(dice, _) in &Dice::ALL_21 {
                buf.clear();
                if x > 0 {
                    for_each_play(hash, &st, dice, &mut |c, _| buf.push(c.index as u32));
                    debug_assert!(!buf.is_empty());
                }
                buf.sort_unstable();
                buf.dedup();
                list.extend_from_slice(&buf);
                offsets.push(list.len() as u32);
            }
        }
        PlayTable {
            points: hash.points(),
            checkers: hash.checkers(),
            offsets,
            list,
        }
    }

    /// Positions of the shape.
    #[must_use]
    pub fn positions(&self) -> usize {
        self.offsets.len() / 21
    }

    /// Points of the shape.
    #[must_use]
    pub fn points(&self) -> usize {
        self.points
    }

    /// Checkers of the shape.
    #[must_use]
    pub fn checkers(&self) -> usize {
        self.checkers
    }

    /// The distinct positions the roll of index `roll` (in [`Dice::ALL_21`]'s order) leads to
    /// from the position of index `x`, ascending; none from index 0 (every checker off).
    ///
    /// # Panics
    /// When `x` or `roll` is out of range.
    #[inline]
    #[must_use]
    pub fn of(&self, x: usize, roll: usize) -> &[u32] {
        let k = x * 21 + roll;
        &self.list[self.offsets[k] as usize..self.offsets[k + 1] as usize]
    }
}

/// Who holds the cube, seen from the side on roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Holder {
    /// In the middle: either side may double.
    Centre = 0,
    /// The side on roll.
    OnRoll = 1,
    /// The side not on roll.
    Opponent = 2,
}

impl Holder {
    /// The same cube seen from the other side.
    #[must_use]
    pub const fn flip(self) -> Holder {
        match self {
            Holder::Centre => Holder::Centre,
            Holder::OnRoll => Holder::Opponent,
            Holder::Opponent => Holder::OnRoll,
        }
    }
}

/// The match score a [`MatchTable`] is solved at, as the table needs it: for each side (side
/// 0 and side 1) and each cube level `k` (the cube at its lowest value times `2^k`), the
/// side's chance of winning the match when it wins this game with the cube there (or its
/// opponent passes its double from there), and whether it may double from there. A side that
/// loses the game has the opponent's win: its chance is one minus the opponent's.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchGame {
    /// `win[s][k]`: side `s`'s chance of winning the match after it wins the game at level
    /// `k`. Both have one entry per level, at least one.
    pub win: [Vec<f64>; 2],
    /// `may_double[s][k]`: side `s` may double from level `k` to `k + 1` when it holds the
    /// cube or the cube is in the middle (not in the Crawford game, not where its win at level
    /// `k` already ends the match). Ignored at the highest level.
    pub may_double: [Vec<bool>; 2],
    /// Who holds the cube at level 0: `None` in the middle, or the side (0 or 1). Above level 0
    /// the cube is always held, by the side that took the last double.
    pub owner: Option<usize>,
}

/// The most cube levels a [`MatchGame`] may have: a cube from 1 to 2^15.
pub const MAX_LEVELS: usize = 16;

/// Why a [`MatchTable`] was not solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The table would hold more values than the limit given.
    #[error("the table would hold {values} values, more than the limit of {limit}")]
    TooLarge {
        /// The values it would hold.
        values: u64,
        /// The limit.
        limit: u64,
    },
    /// A starting position's index is out of range, or has no checker left.
    #[error("starting position index {index} is not a position with checkers of the {count} of the shape")]
    Root {
        /// The index given.
        index: u64,
        /// Positions of the shape.
        count: u64,
    },
    /// The shape is not a short bearoff: more than 6 points, or 15 checkers (gammons).
    #[error("a {points}-point, {checkers}-checker shape is not a bearoff without gammons")]
    Shape {
        /// Points of the shape.
        points: usize,
        /// Checkers of the shape.
        checkers: usize,
    },
    /// The game's two sides do not have the same number of cube levels, or have none or more
    /// than [`MAX_LEVELS`], or its owner is no side.
    #[error("the match game needs the same number of cube levels (1 to 16) for both sides, and an owner of side 0 or 1 if any")]
    Levels,
}

/// Every side's chance of winning the match at one score, for every pair of positions that
/// can arise from a starting pair and every state of the cube the game can reach from its
/// state at the start (level 0 held as [`MatchGame::owner`] says, then each higher level held
/// by either side), both sides handling the cube and their plays perfectly.
#[derive(Clone, PartialEq)]
pub struct MatchTable {
    game: MatchGame,
    levels: usize,
    /// The points and checkers of the [`PlayTable`] it was solved with.
    shape: (usize, usize),
    /// For each side, each position's index among the side's reachable positions
    /// (`u32::MAX` where it cannot arise).
    compact: [Vec<u32>; 2],
    sizes: [usize; 2],
    /// The cube states a cell holds, rounded up to a power of two (the rest padding), so that
    /// a roll's best play is taken over whole vectors of a size known to the compiler.
    width: usize,
    /// `wins[s][state]`: side `s`'s chance of winning the match when it bears off its last
    /// checker with the cube in `state`.
    wins: [[f32; 2 * MAX_LEVELS]; 2],
    /// `moved[s]`: the pairs with side `s` on roll, valued for the other side, the one that
    /// has just moved there: its chance of winning the match with `s`'s best cube action to
    /// come, at `(i0 * sizes[1] + i1) * width + state`, `i0` and `i1` the compact indices of
    /// side 0's and side 1's positions (see [`MatchTable::state`] for the cube's states). So a
    /// play's value is one entry, and a roll's best play the largest of its plays' entries,
    /// slice by slice.
    moved: [Vec<f32>; 2],
}

impl std::fmt::Debug for MatchTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatchTable")
            .field("game", &self.game)
            .field("positions", &self.sizes)
            .finish()
    }
}

/// The cube's states in a table of `levels` levels: level 0 as it starts, then each higher
/// level held by side 0 or side 1.
const fn states(levels: usize) -> usize {
    (2 * levels).saturating_sub(1)
}

/// The level of a cube state.
const fn level_of(state: usize) -> usize {
    state.div_ceil(2)
}

impl MatchTable {
    /// The values a table of the pairs reachable from `roots` (side 0's position and side
    /// 1's, as indices of `plays`' shape) with `levels` cube levels would hold: the cost of
    /// [`MatchTable::solve`], in time and in memory (4 bytes each, and more where a cell's
    /// states are padded to the next power of two: 7 states take 8 places, 9 take 16). 0 for a
    /// root out of range or no levels.
    #[must_use]
    pub fn size(plays: &PlayTable, roots: [u64; 2], levels: usize) -> u64 {
        let n = plays.positions() as u64;
        if levels == 0 || roots.iter().any(|&r| r >= n) {
            return 0;
        }
        let [a, b] = roots.map(|r| reachable(plays, r as usize).iter().filter(|&&m| m).count());
        Self::values(a as u64, b as u64, levels)
    }

    /// The values of a table of `a` and `b` positions a side and `levels` levels (0 for no
    /// levels; `u64::MAX` where they cannot be counted in a `u64`).
    #[must_use]
    pub fn values(a: u64, b: u64, levels: usize) -> u64 {
        2u64.saturating_mul(a)
            .saturating_mul(b)
            .saturating_mul(states(levels) as u64)
    }

    /// Solves the game at `game`'s score for every pair of positions reachable from `roots`,
    /// provided the table holds at most `limit` values ([`MatchTable::size`]).
    ///
    /// # Errors
    /// [`SolveError`] for a root out of range or without checkers, a shape with gammons or
    /// beyond a home board, a game without levels (or an owner that is no side), or a table
    /// beyond `limit`.
    pub fn solve(
        plays: &PlayTable,
        roots: [u64; 2],
        game: MatchGame,
        limit: u64,
    ) -> Result<MatchTable, SolveError> {
        if plays.points() > 6 || plays.checkers() >= 15 {
            return Err(SolveError::Shape {
                points: plays.points(),
                checkers: plays.checkers(),
            });
        }
        let levels = game.win[0].len();
        if levels == 0
            || levels > MAX_LEVELS
            || game.win[1].len() != levels
            || game.may_double.iter().any(|m| m.len() != levels)
            || game.owner.is_some_and(|o| o > 1)
        {
            return Err(SolveError::Levels);
        }
        let n = plays.positions();
        for &r in &roots {
            if r == 0 || r >= n as u64 {
                return Err(SolveError::Root {
                    index: r,
                    count: n as u64,
                });
            }
        }
        let reach = roots.map(|r| reachable(plays, r as usize));
        let lists: [Vec<u32>; 2] =
            std::array::from_fn(|s| (0..n as u32).filter(|&x| reach[s][x as usize]).collect());
        let values = Self::values(lists[0].len() as u64, lists[1].len() as u64, levels);
        if values > limit {
            return Err(SolveError::TooLarge { values, limit });
        }
        let compact: [Vec<u32>; 2] = std::array::from_fn(|s| {
            let mut c = vec![u32::MAX; n];
            for (i, &x) in lists[s].iter().enumerate() {
                c[x as usize] = i as u32;
            }
            c
        });
        let sizes = [lists[0].len(), lists[1].len()];
        let stride = states(levels);
        let width = stride.next_power_of_two();
        let cells = sizes[0] * sizes[1] * width;
        let wins = std::array::from_fn(|side| {
            let mut row = [0.0f32; 2 * MAX_LEVELS];
            for (state, w) in row.iter_mut().enumerate().take(stride) {
                *w = game.win[side][level_of(state)] as f32;
            }
            row
        });
        let mut table = MatchTable {
            game,
            levels,
            shape: (plays.points(), plays.checkers()),
            compact,
            sizes,
            width,
            wins,
            moved: [vec![0.0; cells], vec![0.0; cells]],
        };
        let mut nd = [0.0f32; 2 * MAX_LEVELS];
        // Pairs in index order: side 0 on roll at (a, b) needs side 1 on roll at (a', b) with
        // a' < a (an earlier row); side 1 on roll at (a, b) needs side 0 at (a, b') with
        // b' < b (earlier in this row, side 0 first).
        for (i0, &a) in lists[0].iter().enumerate() {
            if a == 0 {
                continue;
            }
            for (i1, &b) in lists[1].iter().enumerate() {
                if b == 0 {
                    continue;
                }
                for side in 0..2 {
                    table.no_double_into(plays, side, [i0, i1], [a, b], &mut nd);
                    let at = (i0 * sizes[1] + i1) * width;
                    let mut out = std::mem::take(&mut table.moved[side]);
                    table.finish(side, &nd[..stride], &mut out[at..at + stride]);
                    table.moved[side] = out;
                }
            }
        }
        Ok(table)
    }

    /// The no-double chances of side `side` on roll at the compact cell `cell` (positions
    /// `pos`, by index), for every cube state, into the first [`MatchTable::width`] entries of
    /// `nd`: each roll's best play, averaged.
    fn no_double_into(
        &self,
        plays: &PlayTable,
        side: usize,
        cell: [usize; 2],
        pos: [u32; 2],
        nd: &mut [f32; 2 * MAX_LEVELS],
    ) {
        match self.width {
            1 => self.no_double_of::<1>(plays, side, cell, pos, nd),
            2 => self.no_double_of::<2>(plays, side, cell, pos, nd),
            4 => self.no_double_of::<4>(plays, side, cell, pos, nd),
            8 => self.no_double_of::<8>(plays, side, cell, pos, nd),
            16 => self.no_double_of::<16>(plays, side, cell, pos, nd),
            _ => self.no_double_of::<32>(plays, side, cell, pos, nd),
        }
    }

    /// [`MatchTable::no_double_into`] for a table `W` wide.
    fn no_double_of<const W: usize>(
        &self,
        plays: &PlayTable,
        side: usize,
        cell: [usize; 2],
        pos: [u32; 2],
        nd: &mut [f32; 2 * MAX_LEVELS],
    ) {
        let other = 1 - side;
        let wins: &[f32; W] = self.wins[side][..W].try_into().expect("W fits");
        let moved = &self.moved[other];
        let mut sum = [0.0f32; W];
        for (r, &(_, w)) in Dice::ALL_21.iter().enumerate() {
            let mut best = [f32::NEG_INFINITY; W];
            for &kid in plays.of(pos[side] as usize, r) {
                // The mover bears off its last checker and wins the cube.
                let values: &[f32; W] = if kid == 0 {
                    wins
                } else {
                    let mut c = cell;
                    c[side] = self.compact[side][kid as usize] as usize;
                    let at = (c[0] * self.sizes[1] + c[1]) * W;
                    moved[at..at + W].try_into().expect("a cell is W wide")
                };
                for (b, &v) in best.iter_mut().zip(values) {
                    *b = if v > *b { v } else { *b };
                }
            }
            let w = f32::from(w) / 36.0;
            for (n, &b) in sum.iter_mut().zip(&best) {
                *n += w * b;
            }
        }
        nd[..W].copy_from_slice(&sum);
    }

    /// Whether side `side` may double in cube state `state`, and to which state.
    fn double_to(&self, side: usize, state: usize) -> Option<usize> {
        let level = level_of(state);
        let holder = if state == 0 {
            self.game.owner
        } else {
            Some((state + 1) % 2)
        };
        let may = holder.is_none_or(|h| h == side)
            && level + 1 < self.levels
            && self.game.may_double[side][level];
        // The opponent takes and owns the cube one level up.
        may.then_some(2 * (level + 1) - 1 + (1 - side))
    }

    /// From side `side`'s no-double chances at a cell to the entries of the side that moved
    /// there: one minus `side`'s chances with its best cube action.
    fn finish(&self, side: usize, nd: &[f32], out: &mut [f32]) {
        for (state, o) in out.iter_mut().enumerate() {
            let no_double = nd[state];
            let with_action = match self.double_to(side, state) {
                Some(taken) => {
                    let pass = self.game.win[side][level_of(state)] as f32;
                    no_double.max(nd[taken].min(pass))
                }
                None => no_double,
            };
            *o = 1.0 - with_action;
        }
    }

    /// The game the table was solved for.
    #[must_use]
    pub fn game(&self) -> &MatchGame {
        &self.game
    }

    /// Cube levels.
    #[must_use]
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// Whether the pair (side `on_roll` at index `x`, the other side at `y`) can arise from
    /// the table's roots, with checkers left on both sides.
    #[must_use]
    pub fn contains(&self, on_roll: usize, x: u64, y: u64) -> bool {
        self.cell(on_roll, x, y).is_some()
    }

    /// The table's state of the cube on `level` held by `holder` (seen from side `on_roll`),
    /// where the game can reach it: level 0 held as at the start, a higher level held by
    /// either side.
    #[must_use]
    pub fn state(&self, on_roll: usize, level: usize, holder: Holder) -> Option<usize> {
        if on_roll > 1 || level >= self.levels {
            return None;
        }
        let owner = match holder {
            Holder::Centre => None,
            Holder::OnRoll => Some(on_roll),
            Holder::Opponent => Some(1 - on_roll),
        };
        match (level, owner) {
            (0, _) if owner == self.game.owner => Some(0),
            (0, _) | (_, None) => None,
            (_, Some(o)) => Some(2 * level - 1 + o),
        }
    }

    /// The chance that side `on_roll` (0 or 1), with its position at index `x` and the other
    /// side's at `y`, wins the match if it does not double now, with the cube on `level` held
    /// by `holder`; `None` where the table does not hold the pair (or a side has no checker
    /// left) or the game cannot reach that cube, or `plays` is not of the shape the match
    /// table was solved with. Allocates nothing.
    #[must_use]
    pub fn no_double(
        &self,
        plays: &PlayTable,
        on_roll: usize,
        x: u64,
        y: u64,
        level: usize,
        holder: Holder,
    ) -> Option<f64> {
        let state = self.state(on_roll, level, holder)?;
        Some(f64::from(self.no_doubles(plays, on_roll, x, y)?[state]))
    }

    /// [`MatchTable::no_double`] for every cube state at once, by the index of
    /// [`MatchTable::state`] (the first `2 * levels - 1` entries).
    #[must_use]
    pub fn no_doubles(
        &self,
        plays: &PlayTable,
        on_roll: usize,
        x: u64,
        y: u64,
    ) -> Option<[f32; 2 * MAX_LEVELS]> {
        if (plays.points(), plays.checkers()) != self.shape {
            return None;
        }
        let cell = self.cell(on_roll, x, y)?;
        let pos = if on_roll == 0 { [x, y] } else { [y, x] }.map(|p| p as u32);
        let mut nd = [0.0f32; 2 * MAX_LEVELS];
        self.no_double_into(plays, on_roll, cell, pos, &mut nd);
        // Only the table's states (the rest of its width is padding).
        nd[states(self.levels)..].fill(0.0);
        Some(nd)
    }

    /// The chance that side `on_roll`, at index `x` against `y`, wins the match with its best
    /// cube action (doubling, when it may, into the opponent's better answer), with the cube on
    /// `level` held by `holder`; `None` as for [`MatchTable::no_double`].
    #[must_use]
    pub fn with_action(
        &self,
        on_roll: usize,
        x: u64,
        y: u64,
        level: usize,
        holder: Holder,
    ) -> Option<f64> {
        let state = self.state(on_roll, level, holder)?;
        let [i0, i1] = self.cell(on_roll, x, y)?;
        let at = (i0 * self.sizes[1] + i1) * self.width + state;
        Some(1.0 - f64::from(self.moved[on_roll][at]))
    }

    /// The compact cell `[side 0's, side 1's]` of a pair given from the side on roll.
    fn cell(&self, on_roll: usize, x: u64, y: u64) -> Option<[usize; 2]> {
        if on_roll > 1 || x == 0 || y == 0 {
            return None;
        }
        let (p0, p1) = if on_roll == 0 { (x, y) } else { (y, x) };
        let get = |s: usize, p: u64| {
            let c = *self.compact[s].get(usize::try_from(p).ok()?)?;
            (c != u32::MAX).then_some(c as usize)
        };
        Some([get(0, p0)?, get(1, p1)?])
    }
}

/// The positions that can arise from `root` (itself included), by index.
fn reachable(plays: &PlayTable, root: usize) -> Vec<bool> {
    let mut seen = vec![false; plays.positions()];
    let mut stack = vec![root];
    seen[root] = true;
    while let Some(x) = stack.pop() {
        for r in 0..21 {
            for &c in plays.of(x, r) {
                if !seen[c as usize] {
                    seen[c as usize] = true;
                    stack.push(c as usize);
                }
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{OneSided, TwoSidedDb, TwoSidedOptions};

    fn index(hash: &PerfectHash, s: &str) -> u64 {
        hash.rank(&s.parse::<OneSided>().unwrap()).unwrap()
    }

    /// A money-like game: levels of a long match where a single win changes little, scaled
    /// so that the chances are linear in the points. With `away` points to go for both sides
    /// and wins worth `v / (2 away)` each side of a half, the table is money play scaled.
    fn linear_game(levels: usize, away: f64, owner: Option<usize>) -> MatchGame {
        let win: Vec<f64> = (0..levels)
            .map(|k| 0.5 + f64::from(1u32 << k) / (2.0 * away))
            .collect();
        MatchGame {
            win: [win.clone(), win],
            may_double: [vec![true; levels], vec![true; levels]],
            owner,
        }
    }

    /// The holders of level 0, each with the game's owner that makes it the start.
    const START: [(Holder, Option<usize>); 3] = [
        (Holder::Centre, None),
        (Holder::OnRoll, Some(0)),
        (Holder::Opponent, Some(1)),
    ];

    #[test]
    fn a_linear_match_is_money_play() {
        // Chances linear in the points won, and a cube that can always be redoubled (up to
        // levels deep): the table is the money cubeful database, rescaled.
        let (db, _) =
            TwoSidedDb::build_with(6, 3, TwoSidedOptions { cubeful: true }, &mut |_, _| {})
                .unwrap();
        let hash = db.hash().clone();
        let plays = PlayTable::new(&hash);
        let away = 100.0;
        let levels = 12;
        let roots = [index(&hash, "0,0,1,1,0,1"), index(&hash, "1,0,1,0,1")];
        let money = |m: f64| (m - 0.5) * 2.0 * away;
        let mut checked = 0;
        for (h, owner) in START {
            let game = linear_game(levels, away, owner);
            let table = MatchTable::solve(&plays, roots, game, u64::MAX).unwrap();
            for x in 1..hash.count() {
                for y in 1..hash.count() {
                    if !table.contains(0, x, y) {
                        continue;
                    }
                    let e = db.cubeful_equities_at(x, y).unwrap();
                    let want = match h {
                        Holder::Centre => e.centred.no_double,
                        Holder::OnRoll => e.owned.no_double,
                        Holder::Opponent => e.opponent_owns,
                    };
                    let nd = money(table.no_double(&plays, 0, x, y, 0, h).unwrap());
                    assert!(
                        (nd - want).abs() < 2e-3,
                        "{x} {y} {h:?}: {nd} against {want}"
                    );
                    // The other side on roll in the same pair, the same cube.
                    if table.contains(1, y, x) {
                        let e = db.cubeful_equities_at(y, x).unwrap();
                        let want = match h.flip() {
                            Holder::Centre => e.centred.no_double,
                            Holder::OnRoll => e.owned.no_double,
                            Holder::Opponent => e.opponent_owns,
                        };
                        let nd = money(table.no_double(&plays, 1, y, x, 0, h.flip()).unwrap());
                        assert!((nd - want).abs() < 2e-3, "{y} {x} {h:?}");
                    }
                    checked += 1;
                }
            }
            // Level 0 is held only as at the start.
            let other = if h == Holder::Centre {
                Holder::OnRoll
            } else {
                Holder::Centre
            };
            assert_eq!(
                table.no_double(&plays, 0, roots[0], roots[1], 0, other),
                None
            );
        }
        assert!(checked > 300, "{checked}");
    }

    #[test]
    fn a_dead_cube_gives_the_cubeless_winning_chances() {
        // Double match point: nobody may double, each win ends the match.
        let (db, _) = TwoSidedDb::build(6, 4).unwrap();
        let hash = db.hash().clone();
        let plays = PlayTable::new(&hash);
        let roots = [index(&hash, "1,1,1,1"), index(&hash, "0,2,0,1,1")];
        for (h, owner) in START {
            let game = MatchGame {
                win: [vec![1.0], vec![1.0]],
                may_double: [vec![false], vec![false]],
                owner,
            };
            let table = MatchTable::solve(&plays, roots, game, u64::MAX).unwrap();
            for (x, y) in [
                (roots[0], roots[1]),
                (index(&hash, "1,1"), index(&hash, "0,1")),
            ] {
                for on_roll in 0..2 {
                    let (me, opp) = if on_roll == 0 { (x, y) } else { (y, x) };
                    let p = db.win_probability_at(me, opp);
                    let h = if on_roll == 0 { h } else { h.flip() };
                    let m = table.with_action(on_roll, me, opp, 0, h).unwrap();
                    assert!((m - p).abs() < 1e-6, "{me} {opp}: {m} against {p}");
                }
            }
        }
    }

    #[test]
    fn last_rolls_at_two_away_two_away_by_hand() {
        // At 2-away 2-away a win of 1 point leaves the winner 1-away against 2-away (70% of
        // winning the match, say), a win of 2 ends the match; after a double the cube is
        // dead for both.
        let hash = PerfectHash::new(6, 2).unwrap();
        let plays = PlayTable::new(&hash);
        let game = |owner| MatchGame {
            win: [vec![0.7, 1.0], vec![0.7, 1.0]],
            may_double: [vec![true, false], vec![true, false]],
            owner,
        };
        // Two checkers on the ace point against one: I bear off with any roll, 70%, whoever
        // holds the cube (a double would be passed).
        let (me, opp) = (index(&hash, "2"), index(&hash, "1"));
        for (h, owner) in START {
            let table = MatchTable::solve(&plays, [me, opp], game(owner), u64::MAX).unwrap();
            let nd = table.no_double(&plays, 0, me, opp, 0, h).unwrap();
            assert!((nd - 0.7).abs() < 1e-6, "{nd}");
            let m = table.with_action(0, me, opp, 0, h).unwrap();
            assert!((m - 0.7).abs() < 1e-6, "{m}");
        }
        // One checker on the 6-point against one on the ace point: I bear off with 27 rolls
        // of 36 (a 6, a sum of 6 or more, or a double but 1-1); else the opponent does.
        let (six, ace) = (index(&hash, "0,0,0,0,0,1"), index(&hash, "1"));
        let table = MatchTable::solve(&plays, [six, ace], game(None), u64::MAX).unwrap();
        let p = 27.0 / 36.0;
        // Not doubling: I win 1 point, or it does (its own double would be passed).
        let nd = table
            .no_double(&plays, 0, six, ace, 0, Holder::Centre)
            .unwrap();
        assert!((nd - (p * 0.7 + (1.0 - p) * 0.3)).abs() < 1e-6, "{nd}");
        // Doubled and taken, the game decides the match: 75% for me; so it passes (70%).
        let dt = table
            .no_double(&plays, 0, six, ace, 1, Holder::Opponent)
            .unwrap();
        assert!((dt - p).abs() < 1e-6, "{dt}");
        let best = table.with_action(0, six, ace, 0, Holder::Centre).unwrap();
        assert!((best - 0.7).abs() < 1e-6, "{best}");
        // The opponent's view on roll in the same pair (it to roll first): it bears off at
        // once, and my double was never made.
        let it = table.with_action(1, ace, six, 0, Holder::Centre).unwrap();
        assert!((it - 0.7).abs() < 1e-6, "{it}");
    }

    #[test]
    fn bad_requests_are_refused() {
        let hash = PerfectHash::new(6, 3).unwrap();
        let plays = PlayTable::new(&hash);
        let game = linear_game(3, 10.0, None);
        assert!(matches!(
            MatchTable::solve(&plays, [0, 5], game.clone(), u64::MAX),
            Err(SolveError::Root { index: 0, .. })
        ));
        assert!(matches!(
            MatchTable::solve(&plays, [5, 1 << 40], game.clone(), u64::MAX),
            Err(SolveError::Root { .. })
        ));
        assert!(matches!(
            MatchTable::solve(&plays, [50, 60], game.clone(), 10),
            Err(SolveError::TooLarge { limit: 10, .. })
        ));
        let mut stranger = game.clone();
        stranger.owner = Some(2);
        assert_eq!(
            MatchTable::solve(&plays, [50, 60], stranger, u64::MAX),
            Err(SolveError::Levels)
        );
        let mut uneven = game.clone();
        uneven.win[1].pop();
        assert_eq!(
            MatchTable::solve(&plays, [50, 60], uneven, u64::MAX),
            Err(SolveError::Levels)
        );
        let wide = PlayTable::new(&PerfectHash::new(8, 2).unwrap());
        assert!(matches!(
            MatchTable::solve(&wide, [3, 4], linear_game(2, 10.0, None), u64::MAX),
            Err(SolveError::Shape { points: 8, .. })
        ));
        // A table asked with the plays of another shape answers nothing.
        let table = MatchTable::solve(&plays, [50, 60], game, u64::MAX).unwrap();
        assert!(table.no_doubles(&plays, 0, 50, 60).is_some());
        let other = PlayTable::new(&PerfectHash::new(5, 3).unwrap());
        assert_eq!(table.no_doubles(&other, 0, 50, 60), None);
        assert_eq!(table.no_double(&other, 0, 50, 60, 0, Holder::Centre), None);
        assert_eq!(MatchTable::values(10, 10, 0), 0);
        assert_eq!(MatchTable::values(u64::MAX, 2, 3), u64::MAX);
    }
}
