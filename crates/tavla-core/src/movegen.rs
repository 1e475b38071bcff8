//! Legal play generation.
//!
//! # Algorithm
//!
//! The generator walks the dice depth first on a copy of the position, keeping three things
//! beside the board: a bit mask of the points the mover occupies (bit 25 is the bar), a bit mask
//! of the points the opponent holds (two or more checkers; it cannot change during a turn, since
//! only blots are hit) and the additive hash key of the layout. The sources that can move a die
//! `d` are then one mask operation: occupied points whose destination `p - d` is not held.
//!
//! * Doubles: checker moves are generated with non-increasing source points. Every legal set of
//!   checker moves can be played in that order (moving the back checkers first never blocks a
//!   later move, and it is the only order that allows bearing off from the highest point), so
//!   each set of sources is met once. Different sets of equal steps always give different
//!   positions: if two source multisets `M1`, `M2` moved the checkers alike, the difference
//!   `f = M1 - M2` would satisfy `f(q) = f(q + d)` at every point `q`, hence `f = 0`. So doubles
//!   need no de-duplication at all.
//! * Non-doubles: both orders of the dice are walked.
//! * Plays using the most dice are kept, even when a shorter play bears off the last checker
//!   (gnubg agrees: with one checker on the 3-point and a blot on the 2-point, 31 must be
//!   played `3/2*/off`); when only
//!   one die of a non-double can be played, plays of the larger die are kept if there are any.
//! * Non-doubles can reach one position in several ways (`13/9 9/8` and `13/12 12/8` when a
//!   checker was already on 12, or two bear-offs with the dice swapped). Candidates from the
//!   smaller-die-first order whose two checker moves are independent, and whose larger die could
//!   move first, are skipped before hashing (the other order produced them); the rest are
//!   de-duplicated by resulting position, through a small open-addressing table keyed
//!   by the hash and confirmed by comparing positions.
//!
//! A checker move changes a position by adding two constant 32-byte rows (see [`ROWS`]), so
//! positions are built in vector registers and never byte by byte.
//!
//! Nothing is allocated per call: the [`PlayList`] is owned by the caller and reused.

use crate::hash::{KEYS, KEY_OFF};
use crate::play::{CheckerMove, Play};
use crate::position::{Position, BAR, OFF, OPPONENT_BAR};
use crate::Roll;

/// Rule variants that change which plays are legal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rules {
    /// Standard backgammon: doubles are played four times.
    #[default]
    Standard,
    /// Doubles are played only twice, like any other roll (the seed AI article's experiment).
    DoublesTwice,
}

impl Rules {
    /// How many checker moves a double allows.
    #[must_use]
    pub const fn double_moves(self) -> usize {
        match self {
            Rules::Standard => 4,
            Rules::DoublesTwice => 2,
        }
    }
}

/// The legal plays of one position and roll, each with the resulting position (still seen from
/// the mover: call [`Position::flip`] to hand the roll to the opponent).
///
/// Reuse one list across calls: after the first few calls it no longer allocates.
#[derive(Debug, Clone)]
pub struct PlayList {
    /// Resulting positions, one per play.
    positions: Vec<Position>,
    /// The plays, packed as paths (see [`Path`]).
    paths: Vec<Path>,
    /// Open-addressing table of `(key, generation, index)`; a slot is empty when its generation
    /// is not the current one, so clearing is a counter increment.
    table: Vec<Slot>,
    generation: u32,
    /// Dice used by the plays in the list.
    best_len: u8,
    /// The position and roll the plays belong to, to unpack paths into [`Play`]s.
    origin: Position,
    roll: Roll,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u64,
    generation: u32,
    index: u32,
}

/// A play packed in 32 bits: bits 0..3 the number of checker moves, bit 3 set when the smaller
/// die of a non-double was played first, then 5 bits per checker move holding its source point
/// (25 for the bar), first move lowest. Destinations and hits follow from the position and dice.
type Path = u32;

const PATH_LOW_FIRST: u32 = 1 << 3;

#[inline(always)]
const fn path_push(path: Path, depth: usize, src: u32) -> Path {
    path | src << (4 + 5 * depth)
}

impl Default for PlayList {
    fn default() -> Self {
        PlayList::new()
    }
}

/// Slots in the de-duplication table at first; doubled whenever the list fills half of it.
const INITIAL_TABLE: usize = 256;

impl PlayList {
    /// An empty list.
    #[must_use]
    pub fn new() -> PlayList {
        PlayList {
            positions: Vec::with_capacity(INITIAL_TABLE / 2),
            paths: Vec::with_capacity(INITIAL_TABLE / 2),
            table: vec![Slot::default(); INITIAL_TABLE],
            generation: 1,
            best_len: 0,
            origin: Position::START,
            roll: Roll::from_values(1, 1),
        }
    }

    /// The position the plays are played from (seen from the mover, before the roll's
    /// plays).
    #[must_use]
    pub fn origin(&self) -> Position {
        self.origin
    }

    /// Number of distinct legal plays (the pass counts as one).
    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the list is empty (only before the first generation).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The resulting positions, seen from the mover, one per play.
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The play at `index`, with its checker moves in playing order.
    ///
    /// # Panics
    /// When `index >= self.len()`.
    #[must_use]
    pub fn play(&self, index: usize) -> Play {
        let path = self.paths[index];
        let len = (path & 7) as usize;
        let (high, low) = (
            u32::from(self.roll.high().value()),
            u32::from(self.roll.low().value()),
        );
        let dice = if path & PATH_LOW_FIRST != 0 {
            [low, high, low, high]
        } else {
            [high, low, high, low]
        };
        let double = high == low;
        let mut moves = [CheckerMove::default(); 4];
        let mut board = self.origin.cells;
        for (depth, mv) in moves.iter_mut().enumerate().take(len) {
            let from = (path >> (4 + 5 * depth)) & 31;
            let die = if double { high } else { dice[depth] };
            let to = from.saturating_sub(die);
            let hit = to > 0 && board[to as usize] == -1;
            board[from as usize] -= 1;
            if to > 0 {
                if hit {
                    board[OPPONENT_BAR] -= 1;
                    board[to as usize] = 0;
                }
                board[to as usize] += 1;
            }
            *mv = CheckerMove::raw(from as u8, to as u8, hit);
        }
        Play::from_parts(moves, len as u8)
    }

    /// The plays, in the order of [`PlayList::positions`].
    pub fn plays(&self) -> impl ExactSizeIterator<Item = Play> + '_ {
        (0..self.len()).map(|i| self.play(i))
    }

    /// Plays with their resulting positions.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Play, &Position)> + '_ {
        self.plays().zip(&self.positions)
    }

    /// Whether the only legal play is the pass.
    #[must_use]
    pub fn is_pass(&self) -> bool {
        self.paths.len() == 1 && self.paths[0] & 7 == 0
    }

    fn reset(&mut self) {
        self.positions.clear();
        self.paths.clear();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.fill(Slot::default());
            self.generation = 1;
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let size = self.table.len() * 2;
        let old = std::mem::replace(&mut self.table, vec![Slot::default(); size]);
        let mask = size - 1;
        for slot in old.into_iter().filter(|s| s.generation == self.generation) {
            let mut i = (slot.key >> 40) as usize & mask;
            while self.table[i].generation == self.generation {
                i = (i + 1) & mask;
            }
            self.table[i] = slot;
        }
    }

    /// Records a candidate play of `moves` checker moves that used `len` dice (a game-ending
    /// play counts as using them all) and is known to lead to a position no other
    /// candidate leads to.
    #[inline(always)]
    fn record_unique(&mut self, path: Path, len: u8, moves: u32, pos: &Position) -> bool {
        if len < self.best_len {
            return false;
        }
        if len > self.best_len {
            self.reset();
            self.best_len = len;
        }
        self.positions.push(*pos);
        self.paths.push(path | moves);
        true
    }

    /// Records a candidate play of `moves` checker moves that used `len` dice, unless a play with the same resulting
    /// position is already in the list. Returns whether it was added.
    #[inline(always)]
    fn record(&mut self, path: Path, len: u8, moves: u32, pos: &Position, key: u64) -> bool {
        if len < self.best_len {
            return false;
        }
        if len > self.best_len {
            self.reset();
            self.best_len = len;
        }
        if 2 * (self.positions.len() + 1) > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut i = (key >> 40) as usize & mask;
        loop {
            let slot = self.table[i];
            if slot.generation != self.generation {
                self.table[i] = Slot {
                    key,
                    generation: self.generation,
                    index: self.positions.len() as u32,
                };
                self.positions.push(*pos);
                self.paths.push(path | moves);
                return true;
            }
            if slot.key == key && self.positions[slot.index as usize] == *pos {
                return false;
            }
            i = (i + 1) & mask;
        }
    }
}

/// Rows of one step's change, by destination: row `i` (1..=26) adds one checker at cell `i`
/// (26 is [`OFF`]: a bear-off); row `HIT + i` is a hit on point `i`: the blot (-1) becomes the
/// mover's checker (+2) and goes to the opponent's bar (cell 0, stored negative). A step is
/// `cells - ROWS[src] + ROWS[destination]`, two vector subtractions and additions: writing
/// single bytes of a position and then copying it whole would make the copy wait for them (a
/// failed store-to-load forward), which cost more than the rest of a step.
static ROWS: [[i8; 32]; 2 * HIT] = {
    let mut rows = [[0i8; 32]; 2 * HIT];
    let mut i = 0;
    while i < HIT {
        rows[i][i] = 1;
        rows[HIT + i][i] = 2;
        rows[HIT + i][OPPONENT_BAR] -= 1;
        i += 1;
    }
    rows
};

/// Offset of the hit rows in [`ROWS`] and [`ROW_KEYS`].
const HIT: usize = 32;

/// The hash-key change of each row of [`ROWS`].
static ROW_KEYS: [u64; 2 * HIT] = {
    let mut keys = [0u64; 2 * HIT];
    let mut i = 0;
    while i < OFF {
        keys[i] = KEYS[i];
        keys[HIT + i] = KEYS[i].wrapping_mul(2).wrapping_sub(KEYS[OPPONENT_BAR]);
        i += 1;
    }
    keys[OFF] = KEY_OFF;
    keys
};

impl Position {
    /// `self - ROWS[src] + ROWS[row]`, cell by cell. (The remainders cost nothing and let the
    /// compiler drop the bounds checks.)
    #[inline(always)]
    fn moved(&self, src: usize, row: usize) -> Position {
        let (minus, plus) = (&ROWS[src % HIT], &ROWS[row % (2 * HIT)]);
        let mut cells = [0i8; 32];
        for (i, c) in cells.iter_mut().enumerate() {
            *c = self.cells[i].wrapping_sub(minus[i]).wrapping_add(plus[i]);
        }
        Position { cells }
    }

    /// The row of [`ROWS`] that puts a checker moved from `src` by `die` on its destination.
    #[inline(always)]
    fn destination_row(&self, src: u32, die: u32) -> usize {
        let to = if src > die { (src - die) as usize } else { OFF };
        // A legal destination holds at most one opposing checker, so a negative count is a
        // hit; a borne-off count is never negative.
        to + HIT * usize::from(self.cells[to] as u8 >> 7)
    }

    /// The position after one checker moves from `src` by `die` (a legal step).
    #[inline(always)]
    fn after_step(&self, src: u32, die: u32) -> Position {
        self.moved(src as usize, self.destination_row(src, die))
    }
}

/// The generator's copy-make state.
#[derive(Clone, Copy)]
struct State {
    pos: Position,
    /// Hash key of `pos` relative to the root (the root has key 0: only differences matter).
    key: u64,
    /// Bit `p` set when the mover has checkers on point `p` (1..=24) or the bar (25).
    occ: u32,
}

/// Mask of the bits 7..=25: points outside the home board and the bar.
const OUTSIDE: u32 = !0x7f;

impl State {
    /// Mask of sources that can legally move `die` pips now. `blocked` has bit `p` set for the
    /// points the opponent holds.
    #[inline(always)]
    fn sources(&self, die: u32, blocked: u32) -> u32 {
        let occ = self.occ;
        if occ & (1 << BAR) != 0 {
            // Bar checkers enter first: only the bar may move.
            return (1 << BAR) & !(blocked << die);
        }
        // Ordinary moves: destination p - die >= 1 and not held by the opponent.
        let mut m = occ & !(blocked << die) & !((2u32 << die) - 1);
        if occ & OUTSIDE == 0 {
            // All home: bear off exactly, or from the highest point when the die is larger.
            if occ & (1 << die) != 0 {
                m |= 1 << die;
            } else if occ >> die == 0 && occ != 0 {
                m |= 1 << (31 - occ.leading_zeros());
            }
        }
        m
    }

    /// Moves one checker from `src` by `die`; `src` must be in `sources(die, ..)`. Branch-free:
    /// whether a blot is hit and whether the source empties are data the branch predictor
    /// cannot guess.
    #[inline(always)]
    fn step(&self, src: u32, die: u32) -> State {
        let from = src as usize;
        let row = self.pos.destination_row(src, die);
        let to = row % HIT;
        let emptied = u32::from(self.pos.cells[from] == 1);
        State {
            pos: self.pos.moved(from, row),
            key: self
                .key
                .wrapping_sub(ROW_KEYS[from])
                .wrapping_add(ROW_KEYS[row]),
            // Bit 26 (a bear-off) is not a point: masked away.
            occ: ((self.occ ^ (emptied << src)) | (1 << to)) & ((1 << OFF) - 1),
        }
    }
}

/// Bit masks of a position's cells: `(occupied, blocked)`, bit `i` set when `cells[i] > 0`
/// (`i` < 26), respectively `cells[i] <= -2` (1..=24). Eight bytes at a time (SWAR): a byte is
/// non-zero when adding 0x7f to its low seven bits or its own top bit sets bit 7; the top bit is
/// the sign.
#[inline(always)]
fn masks(cells: &[i8; 32]) -> (u32, u32) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Gathers bit 7 of each byte into the low 8 bits (multiplication puts bit 8k+7 at 56+k).
    #[inline(always)]
    fn gather(v: u64) -> u32 {
        (((v >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    }
    #[inline(always)]
    fn nonzero(x: u64) -> u64 {
        (((x & LOW7) + LOW7) | x) & HIGH
    }
    let mut bytes = [0u8; 32];
    for (b, &n) in bytes.iter_mut().zip(cells) {
        *b = n as u8;
    }
    let mut occ = 0u32;
    let mut blocked = 0u32;
    for k in 0..4 {
        let mut chunk = [0u8; 8];
        chunk.copy_from_slice(&bytes[8 * k..8 * k + 8]);
        let x = u64::from_le_bytes(chunk);
        let sign = x & HIGH;
        occ |= gather(nonzero(x) & !sign) << (8 * k);
        blocked |= gather(nonzero(!x) & sign) << (8 * k);
    }
    (occ & 0x03ff_ffff, blocked & 0x01ff_fffe)
}

/// Mask of the points at or below `p` (sources allowed after a move from `p`).
#[inline(always)]
fn below(p: u32) -> u32 {
    (2u32 << p) - 1
}

/// Highest set bit of a non-zero mask.
#[inline(always)]
fn top(m: u32) -> u32 {
    31 - m.leading_zeros()
}

struct Gen<'a> {
    list: &'a mut PlayList,
    blocked: u32,
}

impl Gen<'_> {
    /// A double played `MAX` times (4, or 2 under [`Rules::DoublesTwice`]), one level per die,
    /// with non-increasing sources. Unrolled by hand: a recursive walk spends its time
    /// mispredicting its own depth test.
    fn doubles<const MAX: usize>(&mut self, s0: &State, die: u32) {
        let blocked = self.blocked;
        let mut m0 = s0.sources(die, blocked);
        while m0 != 0 {
            let src0 = top(m0);
            m0 &= !(1 << src0);
            let s1 = s0.step(src0, die);
            let p1 = path_push(0, 0, src0);
            let mut m1 = s1.sources(die, blocked) & below(src0);
            if m1 == 0 {
                self.list.record_unique(p1, 1, 1, &s1.pos);
                continue;
            }
            if MAX == 2 {
                self.leaves(&s1, m1, die, p1, 1);
                continue;
            }
            while m1 != 0 {
                let src1 = top(m1);
                m1 &= !(1 << src1);
                let s2 = s1.step(src1, die);
                let p2 = path_push(p1, 1, src1);
                let mut m2 = s2.sources(die, blocked) & below(src1);
                if m2 == 0 {
                    self.list.record_unique(p2, 2, 2, &s2.pos);
                    continue;
                }
                while m2 != 0 {
                    let src2 = top(m2);
                    m2 &= !(1 << src2);
                    let s3 = s2.step(src2, die);
                    let p3 = path_push(p2, 2, src2);
                    let m3 = s3.sources(die, blocked) & below(src2);
                    if m3 == 0 {
                        self.list.record_unique(p3, 3, 3, &s3.pos);
                        continue;
                    }
                    self.leaves(&s3, m3, die, p3, 3);
                }
            }
        }
    }

    /// The last die of a double: every source in `m` gives a play using all the dice, written
    /// straight into the list (it replaces any shorter play found before).
    #[inline(always)]
    fn leaves(&mut self, s: &State, mut m: u32, die: u32, path: Path, depth: usize) {
        let len = depth as u8 + 1;
        let list = &mut *self.list;
        if list.best_len < len {
            list.reset();
            list.best_len = len;
        }
        while m != 0 {
            let src = top(m);
            m &= !(1 << src);
            list.positions.push(s.pos.after_step(src, die));
            list.paths
                .push(path_push(path, depth, src) | u32::from(len));
        }
    }

    fn non_double(&mut self, s: &State, high: u32, low: u32) {
        let singles_high = self.one_order::<false>(s, high, low);
        self.one_order::<true>(s, high, low);
        // Only one die can be played: the larger one if it can.
        if self.list.best_len == 1 && singles_high > 0 {
            self.list.positions.truncate(singles_high);
            self.list.paths.truncate(singles_high);
        }
    }

    /// The plays of a non-double that start with the larger die (`LOW_FIRST == false`) or with
    /// the smaller one. Returns how many one-move plays it added.
    #[inline(always)]
    fn one_order<const LOW_FIRST: bool>(&mut self, s: &State, high: u32, low: u32) -> usize {
        let blocked = self.blocked;
        let (first, second, flag) = if LOW_FIRST {
            (low, high, PATH_LOW_FIRST)
        } else {
            (high, low, 0)
        };
        let root_high = s.sources(high, blocked);
        let mut singles = 0;
        let mut m1 = s.sources(first, blocked);
        while m1 != 0 {
            let src1 = top(m1);
            m1 &= !(1 << src1);
            let s1 = s.step(src1, first);
            let path1 = path_push(flag, 0, src1);
            let mut m2 = s1.sources(second, blocked);
            if m2 == 0 {
                // A single checker move can only meet another with the same result when both
                // bear off.
                let added = if src1 <= first {
                    self.list.record(path1, 1, 1, &s1.pos, s1.key)
                } else {
                    self.list.record_unique(path1, 1, 1, &s1.pos)
                };
                singles += usize::from(added);
                continue;
            }
            if LOW_FIRST {
                // Smaller die first, then the larger from `src2`. When the two checker moves are
                // independent (the second checker was not brought there by the first) and the
                // larger die could move `src2` at the start, the larger-first order generated
                // the same play: skip it before hashing.
                let landing = src1.saturating_sub(low);
                let continued = (1u32 << landing) & !1;
                let own_there = continued * u32::from(s.pos.cells[landing as usize] > 0);
                m2 &= !(root_high & !(continued & !own_there));
            }
            // Two checker moves, `p` by one die and `q` by the other, have another
            // decomposition (and so may meet another candidate) only when they are chained (one
            // lands where the other starts) or bear off; the rest are unique.
            let may_repeat = if src1 <= first {
                !0
            } else {
                (1u32 << (src1 - first))
                    | ((1u32 << (src1 + second)) & ((1 << 26) - 1))
                    | ((2u32 << second) - 2)
            };
            let list = &mut *self.list;
            if list.best_len < 2 {
                list.reset();
                list.best_len = 2;
            }
            let mut unique = m2 & !may_repeat;
            while unique != 0 {
                let src2 = top(unique);
                unique &= !(1 << src2);
                list.positions.push(s1.pos.after_step(src2, second));
                list.paths.push(path_push(path1, 1, src2) | 2);
            }
            m2 &= may_repeat;
            while m2 != 0 {
                let src2 = top(m2);
                m2 &= !(1 << src2);
                let s2 = s1.step(src2, second);
                list.record(path_push(path1, 1, src2), 2, 2, &s2.pos, s2.key);
            }
        }
        singles
    }
}

impl Position {
    /// Fills `list` with the distinct legal plays for `roll` under standard rules. When no
    /// checker can move the list holds one play, the pass.
    ///
    /// ```
    /// use tavla_core::{PlayList, Position, Roll};
    /// let mut list = PlayList::new();
    /// Position::START.legal_plays(Roll::from_values(3, 1), &mut list);
    /// assert_eq!(list.len(), 16);
    /// ```
    #[inline]
    pub fn legal_plays(&self, roll: Roll, list: &mut PlayList) {
        self.legal_plays_with(roll, Rules::Standard, list);
    }

    /// As [`Position::legal_plays`], under a rule variant.
    pub fn legal_plays_with(&self, roll: Roll, rules: Rules, list: &mut PlayList) {
        list.reset();
        list.best_len = 0;
        list.origin = *self;
        list.roll = roll;
        let (occ, blocked) = masks(&self.cells);
        let state = State {
            pos: *self,
            key: 0,
            occ,
        };
        let mut gen = Gen { list, blocked };
        let high = u32::from(roll.high().value());
        let low = u32::from(roll.low().value());
        if !self.is_game_over() {
            if high == low {
                match rules {
                    Rules::Standard => gen.doubles::<4>(&state, high),
                    Rules::DoublesTwice => gen.doubles::<2>(&state, high),
                }
            } else {
                gen.non_double(&state, high, low);
            }
        }
        if list.best_len == 0 {
            // Nothing moves: the single legal play is the pass.
            list.reset();
            list.record(0, 0, 0, self, 0);
        }
    }

    /// Whether `play` is one of the legal plays for `roll` (compared by resulting position).
    #[must_use]
    pub fn is_legal(&self, roll: Roll, play: &Play) -> bool {
        self.play(roll, play).is_ok()
    }

    /// The position after `play` for `roll`, still seen from the mover.
    ///
    /// A play is identified by the position it leads to, so sub-moves may come in any order.
    ///
    /// # Errors
    /// [`crate::IllegalPlayError`] when no legal play for the roll leads to that position.
    pub fn play(&self, roll: Roll, play: &Play) -> Result<Position, crate::IllegalPlayError> {
        let illegal = || crate::IllegalPlayError {
            play: play.to_string(),
            roll,
        };
        let target = self.apply_moves(play).ok_or_else(illegal)?;
        let mut list = PlayList::new();
        self.legal_plays(roll, &mut list);
        if list.positions().contains(&target) {
            Ok(target)
        } else {
            Err(illegal())
        }
    }

    /// Applies checker moves one by one without the rules of the roll, from the highest source
    /// down; `None` when a move has no checker to move or lands on a held point.
    #[must_use]
    pub fn apply_moves(&self, play: &Play) -> Option<Position> {
        let mut pos = *self;
        for mv in play.sorted_moves().moves() {
            let from = usize::from(mv.from());
            let to = usize::from(mv.to());
            if pos.cells[from] <= 0 {
                return None;
            }
            pos.cells[from] -= 1;
            if to == 0 {
                pos.cells[OFF] += 1;
            } else if pos.cells[to] == -1 {
                pos.cells[to] = 1;
                pos.cells[OPPONENT_BAR] -= 1;
            } else if pos.cells[to] < -1 {
                return None;
            } else {
                pos.cells[to] += 1;
            }
        }
        Some(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos;

    fn plays(p: &Position, roll: (u8, u8)) -> Vec<String> {
        let mut list = PlayList::new();
        p.legal_plays(Roll::from_values(roll.0, roll.1), &mut list);
        let mut v: Vec<String> = list.plays().map(|p| p.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn opening_six_six_has_eleven_plays() {
        // From the start 66 can move 24/18, 13/7 and 8/2 (18/12, 7/1 and 2/off are impossible):
        // a + b + c = 4 checker moves with a <= 2 from the 24 and c <= 3 from the 8 gives 11
        // distinct plays.
        assert_eq!(plays(&Position::START, (6, 6)).len(), 11);
    }

    #[test]
    fn swar_masks_match_a_plain_loop() {
        let mut seed = 0x1234_5678_u64;
        for _ in 0..2000 {
            let mut board = [0i8; 32];
            for b in &mut board {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *b = ((seed >> 33) % 31) as i8 - 15;
            }
            let (occ, blocked) = masks(&board);
            for (i, &n) in board.iter().enumerate() {
                assert_eq!(occ >> i & 1 == 1, n > 0 && i < 26, "{board:?} occ {i}");
                let expect = n <= -2 && (1..=24).contains(&i);
                assert_eq!(blocked >> i & 1 == 1, expect, "{board:?} blocked {i}");
            }
        }
    }

    #[test]
    fn larger_die_when_only_one_can_be_played() {
        // R1 of the rules vectors: one checker on 24, only one of 6 and 1 playable: the 6.
        let p = pos!(x 24:1; o 8:2, 6:13);
        assert_eq!(plays(&p, (6, 1)), vec!["24/18"]);
    }

    #[test]
    fn both_dice_when_some_order_allows_it() {
        // R2: the 6 is blocked directly but 1 then 6 works.
        let p = pos!(x 24:1; o 7:2, 6:13);
        assert_eq!(plays(&p, (6, 1)), vec!["24/23 23/17"]);
    }

    #[test]
    fn bear_off_from_the_highest_point() {
        // R4: 6-5 with highest checkers on 4 and 3.
        let p = pos!(x 4:1, 3:3, 2:2, 1:1; o 1:3, 2:4, 3:3, 4:3, 5:2);
        assert_eq!(plays(&p, (6, 5)), vec!["4/off 3/off"]);
    }

    #[test]
    fn closed_board_passes() {
        let p = pos!(x 25:1, 13:14; o 1:2, 2:2, 3:2, 4:2, 5:2, 6:2);
        let mut list = PlayList::new();
        p.legal_plays(Roll::from_values(6, 6), &mut list);
        assert!(list.is_pass());
        assert_eq!(list.positions()[0], p);
    }

    #[test]
    fn doubles_twice_variant_uses_two_moves() {
        let mut list = PlayList::new();
        Position::START.legal_plays_with(Roll::from_values(6, 6), Rules::DoublesTwice, &mut list);
        assert!(list.plays().all(|p| p.len() == 2));
    }

    #[test]
    fn play_accepts_any_sub_move_order_and_refuses_illegal_ones() {
        let roll = Roll::from_values(3, 1);
        let good = Play::new(&[CheckerMove::new(6, 5, false), CheckerMove::new(8, 5, false)]);
        assert!(Position::START.is_legal(roll, &good));
        let half = Play::new(&[CheckerMove::new(8, 5, false)]);
        assert!(!Position::START.is_legal(roll, &half));
        let blocked = Play::new(&[
            CheckerMove::new(13, 12, false),
            CheckerMove::new(13, 10, false),
        ]);
        assert!(Position::START.play(roll, &blocked).is_err());
    }
}
