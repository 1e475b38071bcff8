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
//! The last input, at `2 * SIDE_INPUTS`, is the race lead `(opponent pips - own pips) / 100`.
//!
//! [`INPUT_LAYOUT`] describes this layout in words; its hash ([`input_layout_hash`]) is stored in
//! weight files, so a file trained for another layout is refused. Change the text whenever the
//! encoding changes.

use tavla_core::{Position, BAR, OPPONENT_BAR};

/// Inputs per side.
pub const SIDE_INPUTS: usize = 105;
/// Total number of network inputs.
pub const NUM_INPUTS: usize = 2 * SIDE_INPUTS + 1;

/// A description of the input layout; its hash identifies the layout in weight files.
pub const INPUT_LAYOUT: &str = "tavla-nn inputs v1: per side (on roll, then opponent in own \
numbering): 24 points x [n>=1, n>=2, n>=3, (n-3)/2]; bar/2; off/15; pips/100; blots/5; \
home points/6; longest prime/6; anchors/3; direct shots/12; indirect shots/12; then race lead/100";

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
    /// No contact: every checker of the side on roll has passed every opposing checker.
    Race,
}

/// The phase of `pos`: a race when the rearmost checker of the side on roll (the bar counts as
/// point 25) is below the rearmost opposing checker (the opponent's bar counts as point 0).
#[must_use]
pub fn phase(pos: &Position) -> Phase {
    let b = pos.signed_board();
    let my_back = (1..=BAR).rev().find(|&p| b[p] > 0).unwrap_or(0);
    let their_back = (OPPONENT_BAR..=24).find(|&p| b[p] < 0).unwrap_or(25);
    if my_back < their_back {
        Phase::Race
    } else {
        Phase::Contact
    }
}

/// Fills `out` with the inputs of `pos`, seen from the side on roll.
pub fn encode(pos: &Position, out: &mut [f32; NUM_INPUTS]) {
    let (mine, theirs) = out.split_at_mut(SIDE_INPUTS);
    encode_side(pos.signed_board(), pos.off(), mine);
    let flipped = pos.flip();
    encode_side(
        flipped.signed_board(),
        flipped.off(),
        &mut theirs[..SIDE_INPUTS],
    );
    let (p_mine, p_theirs) = pos.pips();
    out[2 * SIDE_INPUTS] = (p_theirs as f32 - p_mine as f32) / 100.0;
}

/// One side's block, from the signed board seen from that side.
fn encode_side(b: &[i8; 26], off: u8, out: &mut [f32]) {
    let out = &mut out[..SIDE_INPUTS];
    out.fill(0.0);
    let mut pips = 0u32;
    let mut blots = 0u32;
    let mut home = 0u32;
    let mut prime = 0u32;
    let mut run = 0u32;
    let mut anchors = 0u32;
    for p in 1..=24usize {
        let n = b[p].max(0) as u32;
        let u = &mut out[4 * (p - 1)..4 * p];
        if n >= 1 {
            u[0] = 1.0;
        }
        if n >= 2 {
            u[1] = 1.0;
        }
        if n >= 3 {
            u[2] = 1.0;
        }
        if n > 3 {
            u[3] = (n - 3) as f32 / 2.0;
        }
        pips += n * p as u32;
        if n == 1 {
            blots += 1;
        }
        if n >= 2 {
            run += 1;
            prime = prime.max(run);
            if p <= 6 {
                home += 1;
            }
            if p >= 19 {
                anchors += 1;
            }
        } else {
            run = 0;
        }
    }
    let bar = b[BAR].max(0) as u32;
    pips += 25 * bar;
    // Shots: the opponent moves towards higher point numbers here; his bar enters from point 0.
    let mut direct = 0u32;
    let mut indirect = 0u32;
    for p in 1..=24usize {
        if b[p] != 1 {
            continue;
        }
        for d in 1..=12usize.min(p) {
            let from = p - d;
            let occupied = if from == OPPONENT_BAR {
                b[OPPONENT_BAR] < 0
            } else {
                b[from] < 0
            };
            if occupied {
                if d <= 6 {
                    direct += 1;
                } else {
                    indirect += 1;
                }
            }
        }
    }
    out[96] = bar as f32 / 2.0;
    out[97] = f32::from(off) / 15.0;
    out[98] = pips as f32 / 100.0;
    out[99] = blots as f32 / 5.0;
    out[100] = home as f32 / 6.0;
    out[101] = prime as f32 / 6.0;
    out[102] = anchors as f32 / 3.0;
    out[103] = direct as f32 / 12.0;
    out[104] = indirect as f32 / 12.0;
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

    #[test]
    fn layout_hash_is_stable() {
        assert_eq!(input_layout_hash(), fnv1a(INPUT_LAYOUT.as_bytes()));
        assert_ne!(input_layout_hash(), 0);
    }
}
