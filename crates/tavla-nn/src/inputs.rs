//! Network inputs: a TD-Gammon style raw encoding of both sides plus a few expert features.
//!
//! Layout ([`NUM_INPUTS`] floats): one block of [`SIDE_INPUTS`] for the side on roll, the same
//! block for the opponent (computed on the flipped position, so in the opponent's own point
//! numbering), then the race lead. A block is:
//!
//! | offset | inputs | meaning |
//! |---|---|---|
//! | 0 | 96 | points 1..=24 of the side, 4 units each: `n >= 1`, `n >= 2`, `n >= 3`, `(n - 3) / 2` |
//! | 96 | 1 | checkers on the bar / 2 |
//! | 97 | 1 | checkers borne off / 15 |
//! | 98 | 1 | pip count / 100 |
//! | 99 | 1 | blots (points holding exactly one checker) / 5 |
//! | 100 | 1 | home-board points made (points 1..=6 with two or more) / 6 |
//! | 101 | 1 | longest prime (consecutive made points) / 6 |
//! | 102 | 1 | anchors (made points in the opponent's home board, 19..=24) / 3 |
//! | 103 | 1 | direct shots at the side's blots / 12: over its blots, the opponent points (bar included) 1..=6 pips away in the opponent's direction |
//! | 104 | 1 | indirect shots / 12: the same, 7..=12 pips away |
//!
//! The input at `2 * SIDE_INPUTS` is the race lead `(opponent pips - own pips) / 100`. After it
//! come [`EXTRA_INPUTS`] per side (the side on roll, then the opponent), each computed with the
//! dice: the share of the 36 rolls for which
//!
//! | offset | meaning |
//! |---|---|
//! | 0 | the opponent can hit at least one of the side's blots (by one die, or by both with an open landing point between; from the bar only while he has checkers there) |
//! | 1 | the side's rearmost checker can escape: reach a point with no opposing made point between it and the side's 7-point |
//! | 2 | the side, with checkers on the bar, cannot enter (zero when it has none there) |
//!
//! Then come [`STRUCTURE_INPUTS`] per side (layout v3), likewise the side on roll first:
//!
//! | offset | meaning |
//! |---|---|
//! | 0 | pip loss / 12: over the 36 rolls, the mean of the most pips a hit with that roll costs the side (a blot on point `p` goes back to 25: `25 - p`) |
//! | 1 | trapped checkers / 5: the side's checkers on points 13..=25, each weighted by the share of rolls that fail to carry it past the opposing made points (from the 7-point up) within 12 pips in front of it |
//! | 2 | containment: 1 - the fewest rolls (out of 36) that escape, in that sense, from any of the points 15..=24, wherever the side's checkers are |
//! | 3 | pips to break contact / 100: for each of the side's checkers above the opponent's rearmost one, the distance to it |
//!
//! Each layout was appended to the one before (v1: 211 inputs, v2: 217), so weights of an
//! earlier layout load with zero rows for the new inputs: the same function
//! ([`PREDECESSOR_LAYOUTS`]).
//!
//! [`INPUT_LAYOUT`] describes this layout in words; its hash ([`input_layout_hash`]) is stored in
//! weight files, so a file trained for another layout is refused. Change the text whenever the
//! encoding changes.

use tavla_core::{Position, BAR, OPPONENT_BAR};

/// Inputs per side.
pub const SIDE_INPUTS: usize = 105;
/// Inputs per side computed with the dice, after the race lead.
pub const EXTRA_INPUTS: usize = 3;
/// Structure inputs per side, appended in layout v3 after the dice inputs.
pub const STRUCTURE_INPUTS: usize = 4;
/// Total number of network inputs.
pub const NUM_INPUTS: usize = 2 * SIDE_INPUTS + 1 + 2 * EXTRA_INPUTS + 2 * STRUCTURE_INPUTS;

const V1_LAYOUT: &str = "tavla-nn inputs v1: per side (on roll, then opponent in own \
numbering): 24 points x [n>=1, n>=2, n>=3, (n-3)/2]; bar/2; off/15; pips/100; blots/5; \
home points/6; longest prime/6; anchors/3; direct shots/12; indirect shots/12; then race lead/100";

const V2_LAYOUT: &str = "tavla-nn inputs v2: per side (on roll, then opponent in own \
numbering): 24 points x [n>=1, n>=2, n>=3, (n-3)/2]; bar/2; off/15; pips/100; blots/5; \
home points/6; longest prime/6; anchors/3; direct shots/12; indirect shots/12; then race \
lead/100; then per side (on roll, then opponent): rolls/36 that hit a blot of the side, rolls/36 \
that escape its rearmost checker, rolls/36 that fail to enter from the bar";

/// A description of the input layout; its hash identifies the layout in weight files.
pub const INPUT_LAYOUT: &str = "tavla-nn inputs v3: the v2 layout, then per side (on roll, \
then opponent): expected pips lost to a hit this roll/12; checkers on 13..=25 weighted by the \
share of rolls that do not escape the opposing points (from 7 up) within 12 pips in front/5; 1 - the \
fewest escaping rolls/36 from any of the points 15..=24; pips to break contact/100";

/// Earlier layouts that are prefixes of this one: (layout hash, inputs). Weights trained for
/// them load with zero weights for the inputs added since, which computes the same function.
pub const PREDECESSOR_LAYOUTS: [(u64, usize); 2] = [
    (fnv1a(V1_LAYOUT.as_bytes()), 211),
    (fnv1a(V2_LAYOUT.as_bytes()), 217),
];

/// FNV-1a (64 bit) of `bytes`, usable in constants.
#[must_use]
pub const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h
}

/// The hash of [`INPUT_LAYOUT`], stored in weight files.
#[must_use]
pub const fn input_layout_hash() -> u64 {
    fnv1a(INPUT_LAYOUT.as_bytes())
}

/// Game phase, which selects the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The sides can still hit each other.
    Contact,
    /// Contact where one side's board has crashed: [`CRASHED_DEAD`] or more of its checkers are
    /// borne off or on its two lowest points, so it has little left to play with.
    Crashed,
    /// No contact: every checker of the side on roll has passed every opposing checker.
    Race,
}

impl Phase {
    /// Every phase, in the order of the networks in a weights file.
    pub const ALL: [Phase; 3] = [Phase::Contact, Phase::Crashed, Phase::Race];

    /// The phase's name in reports and on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Contact => "contact",
            Phase::Crashed => "crashed",
            Phase::Race => "race",
        }
    }
}

/// Checkers borne off or on a side's 1- and 2-points from which a contact position counts as
/// [`Phase::Crashed`]. (Chosen so that the phase agrees with gnubg's own class of crashed
/// positions on 5,062 of the 5,076 contact and crashed positions of the two judged sets.)
pub const CRASHED_DEAD: u8 = 10;

/// The phase of `pos`: a race when the rearmost checker of the side on roll (the bar counts as
/// point 25) is below the rearmost opposing checker (the opponent's bar counts as point 0);
/// otherwise crashed when either side has [`CRASHED_DEAD`] or more checkers borne off or on its
/// 1- and 2-points, else contact.
#[must_use]
pub fn phase(pos: &Position) -> Phase {
    let b = pos.signed_board();
    let my_back = (1..=BAR).rev().find(|&p| b[p] > 0).unwrap_or(0);
    let their_back = (OPPONENT_BAR..=24).find(|&p| b[p] < 0).unwrap_or(25);
    if my_back < their_back {
        return Phase::Race;
    }
    let mine = pos.off() as i32 + b[1].max(0) as i32 + b[2].max(0) as i32;
    let theirs = pos.opponent_off() as i32 - b[24].min(0) as i32 - b[23].min(0) as i32;
    if mine.max(theirs) >= i32::from(CRASHED_DEAD) {
        Phase::Crashed
    } else {
        Phase::Contact
    }
}

/// Fills `out` with the inputs of `pos`, seen from the side on roll.
pub fn encode(pos: &Position, out: &mut [f32; NUM_INPUTS]) {
    let flipped = pos.flip();
    let boards = [pos.signed_board(), flipped.signed_board()];
    let masks = Masks::of(boards[0]);
    let masks = [masks, masks.flipped()];
    let (mine, theirs) = out.split_at_mut(SIDE_INPUTS);
    let sides = [
        encode_side(boards[0], pos.off(), &masks[0], mine),
        encode_side(
            boards[1],
            flipped.off(),
            &masks[1],
            &mut theirs[..SIDE_INPUTS],
        ),
    ];
    out[2 * SIDE_INPUTS] = (sides[1].pips as f32 - sides[0].pips as f32) / 100.0;
    let extra = 2 * SIDE_INPUTS + 1;
    let structure = extra + 2 * EXTRA_INPUTS;
    for (k, side) in sides.iter().enumerate() {
        out[extra + k * EXTRA_INPUTS..extra + (k + 1) * EXTRA_INPUTS].copy_from_slice(&side.dice);
        out[structure + k * STRUCTURE_INPUTS..structure + (k + 1) * STRUCTURE_INPUTS]
            .copy_from_slice(&side.structure);
    }
}

/// What [`encode_side`] gives besides the side's block.
struct SideRest {
    /// The side's dice inputs (layout v2).
    dice: [f32; EXTRA_INPUTS],
    /// The side's structure inputs (layout v3).
    structure: [f32; STRUCTURE_INPUTS],
    /// The side's pip count.
    pips: u32,
}

/// The scales of a side's counted inputs, in the order [`encode_side`] and
/// [`side_dice_features`] fill them: the nine after the point units (block offsets 96..105),
/// then the dice inputs (v2) and the structure inputs (v3; the third is one minus its count
/// over its scale).
const SCALES: [f32; 16] = [
    2.0,
    15.0,
    100.0,
    5.0,
    6.0,
    6.0,
    3.0,
    12.0,
    12.0,
    36.0,
    36.0,
    36.0,
    36.0 * 12.0,
    36.0 * 5.0,
    36.0,
    100.0,
];

/// The points of a signed board as sets, seen from the side whose checkers are positive: bit
/// `p` for point `p` (1..=24); the bars are not in them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Masks {
    /// Points with one checker of mine.
    blots: u32,
    /// Points with two or more of mine.
    made: u32,
    /// Points with one or more of mine.
    mine: u32,
    /// Points with one checker of his.
    their_blots: u32,
    /// Points with two or more of his.
    their_made: u32,
    /// Points with one or more of his.
    theirs: u32,
}

impl Masks {
    #[inline]
    fn of(b: &[i8; 26]) -> Masks {
        let held: &[i8; 24] = b[1..25].try_into().expect("24 points");
        // One comparison of all 24 points per set, which the compiler makes at once.
        let set = |keep: fn(i8) -> bool| {
            held.iter()
                .enumerate()
                .fold(0u32, |m, (k, &n)| m | u32::from(keep(n)) << (k + 1))
        };
        let (made, mine) = (set(|n| n >= 2), set(|n| n >= 1));
        let (their_made, theirs) = (set(|n| n <= -2), set(|n| n <= -1));
        Masks {
            blots: mine & !made,
            made,
            mine,
            their_blots: theirs & !their_made,
            their_made,
            theirs,
        }
    }

    /// The same sets seen from the other side: his point `p` is my point `25 - p`.
    #[inline]
    fn flipped(&self) -> Masks {
        let turn = |m: u32| m.reverse_bits() >> 6;
        Masks {
            blots: turn(self.their_blots),
            made: turn(self.their_made),
            mine: turn(self.theirs),
            their_blots: turn(self.blots),
            their_made: turn(self.made),
            theirs: turn(self.mine),
        }
    }
}

/// The points of a set (bit `p` for point `p`), lowest first.
#[inline]
fn points(set: u32) -> impl Iterator<Item = usize> {
    crate::bits(set)
}

/// For each 12-bit pattern of blocked points in front of a checker (bit `i` is the point
/// `12 - i` pips ahead), the rolls (out of 36) that carry it past every blocked point of the
/// pattern, landing on the way only on open points.
fn escape_table() -> &'static [u8; 4096] {
    static TABLE: std::sync::OnceLock<Box<[u8; 4096]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0u8; 4096]);
        for (pattern, e) in t.iter_mut().enumerate() {
            // Bit d (1..=12) of `blocked` is the point d pips ahead; the checker is on bit 0.
            let blocked = (1..=12u32)
                .filter(|&d| pattern & (1 << (12 - d)) != 0)
                .fold(0u32, |m, d| m | 1 << d);
            *e = if blocked == 0 {
                36
            } else {
                let farthest = 31 - blocked.leading_zeros();
                let past = !((2u32 << farthest) - 1);
                rolls_weight(rolls_reaching(1, past, blocked, |set, d| set << d)) as u8
            };
        }
        t
    })
}

/// The 21 rolls as (larger die, smaller die, weight out of 36).
const ROLLS: [(usize, usize, u32); 21] = {
    let mut out = [(0, 0, 0); 21];
    let mut i = 0;
    let mut a = 1;
    while a <= 6 {
        let mut b = 1;
        while b <= a {
            out[i] = (a, b, if a == b { 1 } else { 2 });
            i += 1;
            b += 1;
        }
        a += 1;
    }
    out
};

/// Weight out of 36 of each of the [`ROLLS`] whose bit is set in `mask`.
#[inline]
fn rolls_weight(mask: u32) -> u32 {
    const DOUBLES: u32 = {
        let mut out = 0u32;
        let mut i = 0;
        while i < 21 {
            if ROLLS[i].0 == ROLLS[i].1 {
                out |= 1 << i;
            }
            i += 1;
        }
        out
    };
    (mask & DOUBLES).count_ones() + 2 * (mask & !DOUBLES).count_ones()
}

/// For each of the [`ROLLS`], the points on which a checker starting on a point of `from`
/// lands, using one die or several, every landing point before the last outside `blocked`.
/// Point `p` is bit `p`; `step(set, d)` moves a set of points `d` pips.
#[inline]
fn points_reached(from: u32, blocked: u32, step: impl Fn(u32, usize) -> u32) -> [u32; 21] {
    let mut out = [0u32; 21];
    for (o, &(a, b, _)) in out.iter_mut().zip(ROLLS.iter()) {
        *o = if a == b {
            let mut r = from;
            let mut reached = 0;
            for _ in 0..4 {
                r = step(r, a);
                reached |= r;
                r &= !blocked;
            }
            reached
        } else {
            let ra = step(from, a);
            let rb = step(from, b);
            ra | rb | step(ra & !blocked, b) | step(rb & !blocked, a)
        };
    }
    out
}

/// The rolls (bits of [`ROLLS`]) with which a checker starting on a point of `from` lands on a
/// point of `target`, using one die or several, every landing point before the last outside
/// `blocked` ([`points_reached`]).
#[inline]
fn rolls_reaching(from: u32, target: u32, blocked: u32, step: impl Fn(u32, usize) -> u32) -> u32 {
    points_reached(from, blocked, step)
        .iter()
        .enumerate()
        .fold(0, |mask, (i, &r)| mask | u32::from(r & target != 0) << i)
}

/// The dice-based features (layout v2) and the structure features (v3) of the side whose
/// signed board `b` is (its checkers positive, moving down; the opponent's negative, moving up
/// and entering from point 0). Sets of points are bit masks, bit `p` for point `p`.
fn side_dice_features(b: &[i8; 26], m: &Masks, counts: &mut [f32; SCALES.len()]) {
    let (blots, mine_made, theirs, theirs_made) = (m.blots, m.made, m.theirs, m.their_made);
    // My checkers' points with the bar (25).
    let mine = m.mine | u32::from(b[BAR] > 0) << BAR;
    // Hits: the opponent's checkers (only those on his bar, point 0, while he has any there)
    // reaching one of my blots, landing on the way only where I have no made point.
    // Per roll, the most pips a hit costs: a blot on point p goes back to 25.
    let shooters = if b[OPPONENT_BAR] < 0 { 1 } else { theirs };
    let (mut hit, mut pip_loss) = (0u32, 0u32);
    if blots != 0 {
        let reached = points_reached(shooters, mine_made, |set, d| set << d);
        for (&(_, _, w), r) in ROLLS.iter().zip(reached) {
            let hits = r & blots;
            if hits != 0 {
                // The lowest blot hit goes back furthest.
                hit += w;
                pip_loss += w * (25 - hits.trailing_zeros());
            }
        }
    }
    // Containment: escapes past the opposing points within 12 pips in front of a point (his
    // points in my home board hold nothing back).
    let table = escape_table();
    let wall = theirs_made & !0x7f;
    let escapes_from = |p: usize| u32::from(table[((wall >> (p - 12)) & 0xfff) as usize]);
    let trapped: u32 = points(mine & !((1 << 13) - 1))
        .map(|p| b[p] as u32 * (36 - escapes_from(p)))
        .sum();
    let fewest = (15..=24).map(escapes_from).min().unwrap_or(36);
    // Pips to break contact: my checkers above the opponent's rearmost one (point 0 is his bar)
    // must each pass it.
    let contact_pips: u32 = match points(theirs | u32::from(b[OPPONENT_BAR] < 0)).next() {
        Some(q) => points(mine & !((2 << q) - 1))
            .map(|p| b[p] as u32 * (p - q) as u32)
            .sum(),
        None => 0,
    };
    // Escapes: from my rearmost checker (the bar is 25) to a point past every opposing made
    // point from the 7-point up, that is at or below the lowest of them.
    let wall = (theirs_made >> 7 << 7).trailing_zeros().min(25);
    let back = 31usize.saturating_sub(mine.leading_zeros() as usize);
    let escape = if back <= wall as usize {
        36
    } else {
        let past = ((1u32 << wall) - 1) & !1 & !theirs_made;
        rolls_weight(rolls_reaching(1 << back, past, theirs_made, |set, d| {
            set >> d
        }))
    };
    // Entering: a roll fails when both dice point at made points of his home board (my 19..=24).
    let fail = if b[BAR] > 0 {
        let closed = (theirs_made >> 19).count_ones();
        closed * closed
    } else {
        0
    };
    counts[9..].copy_from_slice(
        &[hit, escape, fail, pip_loss, trapped, fewest, contact_pips].map(|c| c as f32),
    );
}

/// The four inputs of a point holding `n` (0..=15) of the side's checkers: one, two, three
/// or more, and the checkers past three halved.
const POINT_UNITS: [[f32; 4]; 16] = {
    let mut t = [[0.0f32; 4]; 16];
    let mut n = 1;
    while n < 16 {
        t[n][0] = 1.0;
        if n >= 2 {
            t[n][1] = 1.0;
        }
        if n >= 3 {
            t[n][2] = 1.0;
        }
        if n > 3 {
            t[n][3] = (n - 3) as f32 / 2.0;
        }
        n += 1;
    }
    t
};

/// One side's block, from the signed board seen from that side and its [`Masks`], and the
/// rest of its inputs. The counts that become inputs over a scale ([`SCALES`]) are divided at
/// once. Always inlined: called on its own it lost most of what the single division gains
/// (criterion `evaluate/encode` 8.87 ms against 7.46 ms inlined).
#[inline(always)]
fn encode_side(b: &[i8; 26], off: u8, m: &Masks, out: &mut [f32]) -> SideRest {
    let mut counts = [0.0f32; SCALES.len()];
    let out = &mut out[..SIDE_INPUTS];
    let held: &[i8; 24] = b[1..25].try_into().expect("24 points");
    for (u, &n) in out[..96].chunks_exact_mut(4).zip(held) {
        u.copy_from_slice(&POINT_UNITS[n.clamp(0, 15) as usize]);
    }
    // A loop of its own, which the compiler vectorises.
    let mut pips = held
        .iter()
        .zip(1..)
        .map(|(&n, p)| i32::from(n.max(0)) * p)
        .sum::<i32>() as u32;
    // The longest run of made points: each step removes the lowest point of every run.
    let mut prime = 0u32;
    let mut runs = m.made;
    while runs != 0 {
        runs &= runs << 1;
        prime += 1;
    }
    let bar = b[BAR].max(0) as u32;
    pips += 25 * bar;
    // Shots: the opponent moves towards higher point numbers here; his bar enters from point 0
    // (OPPONENT_BAR). Over the blots, his points 1..=6 pips behind them (direct) and 7..=12
    // (indirect), as bit masks of the points 0..=24.
    let theirs = m.theirs | u32::from(b[OPPONENT_BAR] < 0);
    let below = |p: usize| (1u32 << p) - 1;
    let mut direct = 0u32;
    let mut indirect = 0u32;
    for p in points(m.blots) {
        direct += (theirs & below(p) & !below(p.saturating_sub(6))).count_ones();
        if p > 6 {
            indirect += (theirs & below(p - 6) & !below(p.saturating_sub(12))).count_ones();
        }
    }
    // Home-board points 1..=6, anchors on the opponent's home board 19..=24.
    counts[..9].copy_from_slice(
        &[
            bar,
            u32::from(off),
            pips,
            m.blots.count_ones(),
            (m.made & 0x7e).count_ones(),
            prime,
            (m.made >> 19).count_ones(),
            direct,
            indirect,
        ]
        .map(|c| c as f32),
    );
    side_dice_features(b, m, &mut counts);
    for (c, s) in counts.iter_mut().zip(SCALES) {
        *c /= s;
    }
    out[96..SIDE_INPUTS].copy_from_slice(&counts[..9]);
    SideRest {
        dice: [counts[9], counts[10], counts[11]],
        structure: [counts[12], counts[13], 1.0 - counts[14], counts[15]],
        pips,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_symmetric_contact() {
        let mut x = [0.0; NUM_INPUTS];
        encode(&Position::START, &mut x);
        assert_eq!(&x[..SIDE_INPUTS], &x[SIDE_INPUTS..2 * SIDE_INPUTS]);
        assert_eq!(x[2 * SIDE_INPUTS], 0.0);
        // 5 checkers on the 6-point: units 1,1,1,(5-3)/2.
        assert_eq!(&x[20..24], &[1.0, 1.0, 1.0, 1.0]);
        assert_eq!(x[98], 1.67);
        assert_eq!(x[100], 1.0 / 6.0);
        assert_eq!(x[99], 0.0);
        assert_eq!(phase(&Position::START), Phase::Contact);
    }

    #[test]
    fn race_detection() {
        let mut b = [0i8; 26];
        b[3] = 15;
        b[10] = -15;
        let race = Position::try_from(b).unwrap();
        assert_eq!(phase(&race), Phase::Race);
        assert_eq!(phase(&race.flip()), Phase::Race);
        let mut b = [0i8; 26];
        b[12] = 15;
        b[10] = -15;
        let contact = Position::try_from(b).unwrap();
        assert_eq!(phase(&contact), Phase::Contact);
        assert_eq!(phase(&contact.flip()), Phase::Contact);
    }

    #[test]
    fn crashed_detection_counts_either_side() {
        // Nine checkers on my 1- and 2-points and one borne off, one checker still back.
        let mut b = [0i8; 26];
        b[1] = 5;
        b[2] = 4;
        b[6] = 4;
        b[24] = 1;
        b[20] = -2;
        b[8] = -13;
        let crashed = Position::try_from(b).unwrap();
        assert_eq!(crashed.off(), 1);
        assert_eq!(phase(&crashed), Phase::Crashed);
        assert_eq!(phase(&crashed.flip()), Phase::Crashed);
        // One checker fewer down there: contact.
        b[2] = 3;
        b[6] = 5;
        let contact = Position::try_from(b).unwrap();
        assert_eq!(phase(&contact), Phase::Contact);
        assert_eq!(phase(&contact.flip()), Phase::Contact);
    }

    #[test]
    fn shots_count_opponent_sources_in_range() {
        // A blot on 8, opponent checkers on my 5 (3 away) and on the bar (8 away).
        let mut b = [0i8; 26];
        b[8] = 1;
        b[24] = 14;
        b[5] = -14;
        b[OPPONENT_BAR] = -1;
        let pos = Position::try_from(b).unwrap();
        let mut x = [0.0; NUM_INPUTS];
        encode(&pos, &mut x);
        assert_eq!(x[103], 1.0 / 12.0);
        assert_eq!(x[104], 1.0 / 12.0);
        assert_eq!(x[SIDE_INPUTS + 96], 0.5);
    }

    fn dice_features(b: [i8; 26]) -> [f32; EXTRA_INPUTS] {
        let pos = Position::try_from(b).unwrap();
        let mut x = [0.0; NUM_INPUTS];
        encode(&pos, &mut x);
        x[2 * SIDE_INPUTS + 1..2 * SIDE_INPUTS + 1 + EXTRA_INPUTS]
            .try_into()
            .unwrap()
    }

    #[test]
    fn hit_rolls_count_the_36() {
        // A blot on my 8, an opposing checker on my 5 (the rest past it, on 10): hit by any 3
        // (11 rolls), 2-1 (2 more, via 6 or 7, both open) and 1-1 (1-1-1): 14 of 36.
        let mut b = [0i8; 26];
        b[8] = 1;
        b[24] = 14;
        b[5] = -1;
        b[10] = -14;
        assert_eq!(dice_features(b)[0], 14.0 / 36.0);
        // Block 6 and 7 with made points: 21 and 11 no longer hit; 3s do.
        b[24] = 10;
        b[6] = 2;
        b[7] = 2;
        assert_eq!(dice_features(b)[0], 11.0 / 36.0);
        // No blots: no hits.
        b[8] = 0;
        b[24] = 11;
        assert_eq!(dice_features(b)[0], 0.0);
    }

    /// The hit and pip-loss inputs counted checker by checker: for each roll, each opposing
    /// checker (only those on his bar, point 0, while he has any there) walks its dice one
    /// at a time (both orders, or four steps of a double) and stops where the side has a made
    /// point; a roll's loss is the most pips of the blots it hits (`25 - p`).
    fn hits_checker_by_checker(b: &[i8; 26]) -> (f32, f32) {
        let made = |p: usize| p <= 24 && b[p] >= 2;
        let blot = |p: usize| (1..=24).contains(&p) && b[p] == 1;
        let shooters: Vec<usize> = if b[OPPONENT_BAR] < 0 {
            vec![0]
        } else {
            (1..=24).filter(|&p| b[p] < 0).collect()
        };
        let (mut rolls, mut pips) = (0, 0);
        for &(x, y, w) in &ROLLS {
            let paths: Vec<Vec<usize>> = if x == y {
                vec![vec![x; 4]]
            } else {
                vec![vec![x, y], vec![y, x]]
            };
            let mut lowest = None;
            for &s in &shooters {
                for path in &paths {
                    let mut at = s;
                    for &d in path {
                        at += d;
                        if blot(at) {
                            lowest = Some(lowest.map_or(at, |l: usize| l.min(at)));
                        }
                        if made(at) || at > 24 {
                            break;
                        }
                    }
                }
            }
            if let Some(p) = lowest {
                rolls += w;
                pips += w * (25 - p as u32);
            }
        }
        (rolls as f32 / 36.0, pips as f32 / (36.0 * 12.0))
    }

    /// The side block counted point by point, the slow way, without bit masks.
    fn side_block_point_by_point(b: &[i8; 26], off: u8) -> [f32; SIDE_INPUTS] {
        let mut out = [0.0; SIDE_INPUTS];
        let (mut pips, mut blots, mut home, mut anchors) = (0u32, 0u32, 0u32, 0u32);
        let (mut run, mut prime) = (0u32, 0u32);
        for p in 1..=24usize {
            let n = b[p].max(0) as u32;
            for (k, at_least) in [1, 2, 3].into_iter().enumerate() {
                out[4 * (p - 1) + k] = if n >= at_least { 1.0 } else { 0.0 };
            }
            out[4 * (p - 1) + 3] = n.saturating_sub(3) as f32 / 2.0;
            pips += n * p as u32;
            blots += u32::from(n == 1);
            home += u32::from(n >= 2 && p <= 6);
            anchors += u32::from(n >= 2 && p >= 19);
            run = if n >= 2 { run + 1 } else { 0 };
            prime = prime.max(run);
        }
        let bar = b[BAR].max(0) as u32;
        out[96] = bar as f32 / 2.0;
        out[97] = f32::from(off) / 15.0;
        out[98] = (pips + 25 * bar) as f32 / 100.0;
        out[99] = blots as f32 / 5.0;
        out[100] = home as f32 / 6.0;
        out[101] = prime as f32 / 6.0;
        out[102] = anchors as f32 / 3.0;
        out
    }

    #[test]
    fn side_block_matches_a_count_point_by_point() {
        use rand::{Rng, SeedableRng};
        use tavla_core::{PlayList, Roll};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        let mut plays = PlayList::new();
        let (mut primes, mut stacks) = (0, 0);
        for _ in 0..30 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                let flipped = pos.flip();
                let masks = Masks::of(pos.signed_board());
                assert_eq!(masks.flipped(), Masks::of(flipped.signed_board()));
                assert_eq!(masks.flipped().flipped(), masks);
                for (b, off) in [
                    (pos.signed_board(), pos.off()),
                    (flipped.signed_board(), flipped.off()),
                ] {
                    let mut side = [0.0; SIDE_INPUTS];
                    encode_side(b, off, &Masks::of(b), &mut side);
                    let slow = side_block_point_by_point(b, off);
                    // Shots (103, 104) have their own test.
                    assert_eq!(side[..103], slow[..103], "{b:?}");
                    primes += usize::from(side[101] >= 4.0 / 6.0);
                    stacks += usize::from(side[..96].iter().skip(3).step_by(4).any(|&u| u > 0.0));
                }
                let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                pos.legal_plays(roll, &mut plays);
                pos = plays.positions()[rng.gen_range(0..plays.len())].flip();
            }
        }
        assert!(
            primes > 50 && stacks > 500,
            "primes {primes}, stacks {stacks}"
        );
    }

    #[test]
    fn hits_and_shots_match_a_count_checker_by_checker() {
        use rand::{Rng, SeedableRng};
        use tavla_core::{PlayList, Roll};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let mut plays = PlayList::new();
        let mut several = 0;
        for _ in 0..30 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                for b in [pos.signed_board(), pos.flip().signed_board()] {
                    let mut side = [0.0; SIDE_INPUTS];
                    let rest = encode_side(b, 0, &Masks::of(b), &mut side);
                    assert_eq!(
                        (rest.dice[0], rest.structure[0]),
                        hits_checker_by_checker(b),
                        "{b:?}"
                    );
                    // Shots point by point: his checkers 1..=6 and 7..=12 pips behind a blot.
                    let (mut direct, mut indirect) = (0, 0);
                    for p in (1..=24).filter(|&p| b[p] == 1) {
                        for d in (1..=12).filter(|&d| d <= p && b[p - d] < 0) {
                            *(if d <= 6 { &mut direct } else { &mut indirect }) += 1;
                        }
                    }
                    assert_eq!(side[103], direct as f32 / 12.0, "{b:?}");
                    assert_eq!(side[104], indirect as f32 / 12.0, "{b:?}");
                    several += usize::from((1..=24).filter(|&p| b[p] == 1).count() >= 2);
                }
                let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                pos.legal_plays(roll, &mut plays);
                pos = plays.positions()[rng.gen_range(0..plays.len())].flip();
            }
        }
        assert!(several > 500, "positions with two blots or more: {several}");
    }

    #[test]
    fn escapes_and_entering() {
        // Start position: from 24 an escape must pass the opposing 12-point (the midpoint)
        // without landing on 19, 17 or 12; no roll does it.
        let f = dice_features(*Position::START.signed_board());
        assert_eq!(f, [0.0, 0.0, 0.0]);
        // Opposing points 20 and 18 in front of my checker on 24: escaping means reaching 17 or
        // lower. 9 non-doubles sum to 7 or more; 64 cannot land between (20 and 18 are made);
        // 55 goes 19, 14; 66, 44, 33 and 22 are blocked. (9 - 1) x 2 + 1 = 17.
        let mut b = [0i8; 26];
        b[24] = 1;
        b[6] = 14;
        b[20] = -2;
        b[18] = -2;
        b[3] = -11;
        assert_eq!(dice_features(b)[1], 17.0 / 36.0);
        // A race: escaped.
        let mut b = [0i8; 26];
        b[3] = 15;
        b[20] = -15;
        assert_eq!(dice_features(b)[1], 1.0);
        // On the bar against a 3-point board: 9 of 36 rolls fail.
        let mut b = [0i8; 26];
        b[BAR] = 1;
        b[5] = 14;
        b[19] = -2;
        b[20] = -2;
        b[21] = -2;
        b[10] = -9;
        assert_eq!(dice_features(b)[2], 9.0 / 36.0);
    }

    fn structure_features(b: [i8; 26]) -> [f32; STRUCTURE_INPUTS] {
        let pos = Position::try_from(b).unwrap();
        let mut x = [0.0; NUM_INPUTS];
        encode(&pos, &mut x);
        let at = 2 * SIDE_INPUTS + 1 + 2 * EXTRA_INPUTS;
        x[at..at + STRUCTURE_INPUTS].try_into().unwrap()
    }

    #[test]
    fn escape_table_counts_rolls_past_the_block() {
        let t = escape_table();
        assert_eq!(t[0], 36);
        // One point 6 pips ahead (bit 12 - 6): every non-double of 7 or more (9, played in
        // the order that avoids the 6) and 44 and 55: 20.
        assert_eq!(t[1 << 6], 20);
        // A full prime directly ahead (1..=6 pips): nothing.
        assert_eq!(t[0b1111_1100_0000], 0);
        // Blocks 1 pip ahead: all but 11.
        assert_eq!(t[1 << 11], 35);
    }

    #[test]
    fn structure_features_of_known_positions() {
        // Start: the two back checkers cannot pass the points 19, 17 and 12 (12 pips ahead);
        // the midpoint's five escape with all but 11. Pips to break contact with his checkers
        // on my 1-point: 2 x 23 + 5 x 12 + 3 x 7 + 5 x 5 = 152.
        let f = structure_features(*Position::START.signed_board());
        assert_eq!(f[0], 0.0);
        assert_eq!(f[1], (2.0 * 36.0 + 5.0 * 1.0) / (36.0 * 5.0));
        assert_eq!(f[2], 1.0);
        assert_eq!(f[3], 1.52);
        // A blot on my 8 hit by 14 rolls from his checker on my 5 (see hit_rolls_count_the_36):
        // each hit costs 25 - 8 = 17 pips.
        let mut b = [0i8; 26];
        b[8] = 1;
        b[24] = 14;
        b[5] = -1;
        b[10] = -14;
        let f = structure_features(b);
        assert_eq!(f[0], (14.0 * 17.0) / (36.0 * 12.0));
        // His rearmost checker is on my 5: to break contact my 8 must pass it (3 pips) and my
        // fourteen on 24 (19 pips each).
        assert_eq!(f[3], (14.0 * 19.0 + 3.0) / 100.0);
        // A race: no contact pips, nothing trapped.
        let mut b = [0i8; 26];
        b[3] = 15;
        b[20] = -15;
        assert_eq!(structure_features(b)[1], 0.0);
        assert_eq!(structure_features(b)[3], 0.0);
    }

    #[test]
    fn roll_weights_match_the_dice() {
        for (i, &(a, b, w)) in ROLLS.iter().enumerate() {
            assert_eq!(rolls_weight(1 << i), w);
            assert_eq!(w, if a == b { 1 } else { 2 });
        }
        assert_eq!(rolls_weight((1 << 21) - 1), 36);
        // From point 0 with nothing blocked, every roll reaches the points of its full move.
        for (i, &(a, b, _)) in ROLLS.iter().enumerate() {
            let full = if a == b { 4 * a } else { a + b };
            let m = rolls_reaching(1, 1 << full, 0, |set, d| set << d);
            assert!(m & (1 << i) != 0, "{a}{b}");
        }
    }

    #[test]
    fn layout_hash_is_stable() {
        assert_eq!(input_layout_hash(), fnv1a(INPUT_LAYOUT.as_bytes()));
        assert_ne!(input_layout_hash(), 0);
    }
}
