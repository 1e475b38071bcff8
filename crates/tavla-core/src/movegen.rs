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
//!   later move, and it is the only order that allows bearing off from the highest point), and
//!   different sets of equal steps always give different positions, so each play is met once.
//! * Non-doubles: both orders of the dice are walked.
//! * Plays using the most dice are kept (a game-ending play counts as using them all); when only
//!   one die of a non-double can be played, plays of the larger die are kept if there are any.
//! * Plays are de-duplicated by resulting position, through a small open-addressing table keyed
//!   by the hash and confirmed by comparing positions.
//!
//! Nothing is allocated per call: the [`PlayList`] is owned by the caller and reused.

use crate::hash::{KEYS, KEY_OFF};
use crate::play::{CheckerMove, Play};
use crate::position::{Position, BAR, OPPONENT_BAR};
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
    plays: Vec<Play>,
    positions: Vec<Position>,
    keys: Vec<u64>,
    /// Open-addressing table: `(generation, index into plays)`; a slot is empty when its
    /// generation is not the current one, so clearing is a counter increment.
    table: Vec<(u32, u32)>,
    generation: u32,
    /// Dice used by the plays in the list.
    best_len: u8,
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
            plays: Vec::with_capacity(64),
            positions: Vec::with_capacity(64),
            keys: Vec::with_capacity(64),
            table: vec![(0, 0); INITIAL_TABLE],
            generation: 1,
            best_len: 0,
        }
    }

    /// Number of distinct legal plays (the pass counts as one).
    #[must_use]
    pub fn len(&self) -> usize {
        self.plays.len()
    }

    /// Whether the list is empty (only before the first generation).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.plays.is_empty()
    }

    /// The plays.
    #[must_use]
    pub fn plays(&self) -> &[Play] {
        &self.plays
    }

    /// The resulting positions, seen from the mover, in the order of [`PlayList::plays`].
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Plays with their resulting positions.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Play, &Position)> {
        self.plays.iter().zip(&self.positions)
    }

    /// Whether the only legal play is the pass.
    #[must_use]
    pub fn is_pass(&self) -> bool {
        self.plays.len() == 1 && self.plays[0].is_empty()
    }

    fn clear(&mut self) {
        self.plays.clear();
        self.positions.clear();
        self.keys.clear();
        self.best_len = 0;
        self.next_generation();
    }

    fn next_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.fill((0, 0));
            self.generation = 1;
        }
    }

    /// Adds a play unless a play with the same resulting position is already in the list.
    /// Returns whether it was added.
    #[inline]
    fn insert(&mut self, play: Play, pos: &Position, key: u64) -> bool {
        if 2 * (self.plays.len() + 1) > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut slot = (key >> 40) as usize & mask;
        loop {
            let (gen, idx) = self.table[slot];
            if gen != self.generation {
                self.table[slot] = (self.generation, self.plays.len() as u32);
                self.plays.push(play);
                self.positions.push(*pos);
                self.keys.push(key);
                return true;
            }
            let idx = idx as usize;
            if self.keys[idx] == key && self.positions[idx] == *pos {
                return false;
            }
            slot = (slot + 1) & mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let size = self.table.len() * 2;
        self.table = vec![(0, 0); size];
        self.generation = 1;
        let mask = size - 1;
        for (i, &key) in self.keys.iter().enumerate() {
            let mut slot = (key >> 40) as usize & mask;
            while self.table[slot].0 == self.generation {
                slot = (slot + 1) & mask;
            }
            self.table[slot] = (self.generation, i as u32);
        }
    }

    /// Records a candidate play that used `len` dice.
    #[inline]
    fn record(&mut self, moves: &[CheckerMove; 4], len: u8, pos: &Position, key: u64) -> bool {
        if len < self.best_len {
            return false;
        }
        if len > self.best_len {
            self.plays.clear();
            self.positions.clear();
            self.keys.clear();
            self.next_generation();
            self.best_len = len;
        }
        self.insert(Play::from_parts(*moves, len), pos, key)
    }
}

/// The generator's copy-make state.
#[derive(Clone, Copy)]
struct State {
    pos: Position,
    key: u64,
    /// Bit `p` set when the mover has checkers on point `p` (1..=24) or the bar (25).
    occ: u32,
}

/// Mask of the bits 7..=25: points outside the home board and the bar.
const OUTSIDE: u32 = !0x7f;

impl State {
    fn new(pos: &Position) -> State {
        let mut occ = 0u32;
        for p in 1..=25 {
            if pos.board[p] > 0 {
                occ |= 1 << p;
            }
        }
        State {
            pos: *pos,
            key: pos.key(),
            occ,
        }
    }

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

    /// Moves one checker from `src` by `die`; `src` must be in `sources(die, ..)`.
    #[inline(always)]
    fn step(&self, src: u32, die: u32) -> (State, CheckerMove) {
        let mut s = *self;
        let from = src as usize;
        let b = &mut s.pos.board;
        b[from] -= 1;
        s.key = s.key.wrapping_sub(KEYS[from]);
        if b[from] == 0 {
            s.occ &= !(1 << src);
        }
        let mut hit = false;
        let to = if src > die {
            let to = (src - die) as usize;
            if b[to] == -1 {
                hit = true;
                b[to] = 1;
                b[OPPONENT_BAR] -= 1;
                s.key = s
                    .key
                    .wrapping_add(KEYS[to].wrapping_mul(2))
                    .wrapping_sub(KEYS[OPPONENT_BAR]);
            } else {
                b[to] += 1;
                s.key = s.key.wrapping_add(KEYS[to]);
            }
            s.occ |= 1 << to;
            to as u8
        } else {
            s.pos.off[0] += 1;
            s.key = s.key.wrapping_add(KEY_OFF);
            0
        };
        (s, CheckerMove::raw(src as u8, to, hit))
    }
}

struct Gen<'a> {
    list: &'a mut PlayList,
    moves: [CheckerMove; 4],
    blocked: u32,
}

impl Gen<'_> {
    fn doubles(&mut self, s: &State, die: u32, depth: usize, max_depth: usize, max_src: u32) {
        if depth == max_depth || s.pos.off[0] == 15 {
            self.list
                .record(&self.moves, max_depth as u8, &s.pos, s.key);
            return;
        }
        // Non-increasing sources: only points at or below `max_src`.
        let mut m = s.sources(die, self.blocked) & ((2u32 << max_src) - 1);
        if m == 0 {
            self.list.record(&self.moves, depth as u8, &s.pos, s.key);
            return;
        }
        while m != 0 {
            let src = 31 - m.leading_zeros();
            m &= !(1 << src);
            let (next, mv) = s.step(src, die);
            self.moves[depth] = mv;
            self.doubles(&next, die, depth + 1, max_depth, src);
        }
    }

    fn non_double(&mut self, s: &State, high: u32, low: u32) {
        let mut singles_high = 0usize;
        for (first, second) in [(high, low), (low, high)] {
            let mut m1 = s.sources(first, self.blocked);
            while m1 != 0 {
                let src1 = 31 - m1.leading_zeros();
                m1 &= !(1 << src1);
                let (s1, mv1) = s.step(src1, first);
                self.moves[0] = mv1;
                if s1.pos.off[0] == 15 {
                    self.list.record(&self.moves, 2, &s1.pos, s1.key);
                    continue;
                }
                let mut m2 = s1.sources(second, self.blocked);
                if m2 == 0 {
                    let added = self.list.record(&self.moves, 1, &s1.pos, s1.key);
                    if added && first == high {
                        singles_high += 1;
                    }
                    continue;
                }
                while m2 != 0 {
                    let src2 = 31 - m2.leading_zeros();
                    m2 &= !(1 << src2);
                    let (s2, mv2) = s1.step(src2, second);
                    self.moves[1] = mv2;
                    self.list.record(&self.moves, 2, &s2.pos, s2.key);
                }
            }
        }
        // Only one die can be played: the larger one if it can.
        if self.list.best_len == 1 && singles_high > 0 {
            self.list.plays.truncate(singles_high);
            self.list.positions.truncate(singles_high);
            self.list.keys.truncate(singles_high);
        }
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
        list.clear();
        let state = State::new(self);
        let mut blocked = 0u32;
        for p in 1..=24 {
            if self.board[p] <= -2 {
                blocked |= 1 << p;
            }
        }
        let mut gen = Gen {
            list,
            moves: [CheckerMove::default(); 4],
            blocked,
        };
        let high = u32::from(roll.high().value());
        let low = u32::from(roll.low().value());
        if !self.is_game_over() {
            if high == low {
                gen.doubles(&state, high, 0, rules.double_moves(), BAR as u32);
            } else {
                gen.non_double(&state, high, low);
            }
        }
        if list.best_len == 0 {
            // Nothing moves: the single legal play is the pass.
            list.clear();
            list.insert(Play::PASS, self, state.key);
        }
    }

    /// Whether `play` is one of the legal plays for `roll` (compared by resulting position).
    #[must_use]
    pub fn is_legal(&self, roll: Roll, play: &Play) -> bool {
        self.play(roll, play).is_ok()
    }

    /// The position after `play` for `roll`, still seen from the mover; the play must be legal.
    ///
    /// # Errors
    /// [`crate::IllegalPlayError`] when no legal play for the roll gives the position `play`
    /// leads to (sub-moves in any order are accepted).
    pub fn play(&self, roll: Roll, play: &Play) -> Result<Position, crate::IllegalPlayError> {
        let illegal = || crate::IllegalPlayError {
            play: play.to_string(),
            roll,
        };
        let mut list = PlayList::new();
        self.legal_plays(roll, &mut list);
        let target = self.apply_moves(play).ok_or_else(illegal)?;
        if list.positions().contains(&target) && list.plays()[0].len() == play.len() {
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
            if pos.board[from] <= 0 {
                return None;
            }
            pos.board[from] -= 1;
            if to == 0 {
                pos.off[0] += 1;
            } else if pos.board[to] == -1 {
                pos.board[to] = 1;
                pos.board[OPPONENT_BAR] -= 1;
            } else if pos.board[to] < -1 {
                return None;
            } else {
                pos.board[to] += 1;
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
        let mut v: Vec<String> = list.plays().iter().map(ToString::to_string).collect();
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
        assert!(list.plays().iter().all(|p| p.len() == 2));
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
