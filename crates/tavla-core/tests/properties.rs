//! Property tests: invariants of positions and of the move generator on random positions, and
//! the generator against a slow, obviously-correct reference generator written from the rules.

use std::collections::BTreeSet;

use proptest::prelude::*;
use tavla_core::{Board, CheckerMove, Play, PlayList, Position, PositionId, Roll, Rules};

/// A small deterministic RNG for building positions from a proptest seed.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A position reached by `plies` random legal plays from the start.
fn played_position(seed: u64, plies: u32) -> Position {
    let mut rng = Lcg(seed);
    let mut pos = Position::START;
    let mut list = PlayList::new();
    for _ in 0..plies {
        if pos.is_game_over() {
            break;
        }
        let roll = Roll::from_values(rng.next(6) as u8 + 1, rng.next(6) as u8 + 1);
        pos.legal_plays(roll, &mut list);
        pos = list.positions()[rng.next(list.len() as u64) as usize].flip();
    }
    pos
}

/// A random legal layout: each side's checkers thrown on slots (points, bar, off), biased
/// towards some structure so bear-offs and bar positions come up.
fn scattered_position(seed: u64) -> Position {
    let mut rng = Lcg(seed);
    let mut board = Board::default();
    let home_only = rng.next(4) == 0;
    for side in 0..2 {
        let n = 15 - rng.next(16) as usize * usize::from(rng.next(3) == 0);
        for _ in 0..n {
            loop {
                let slot = if home_only && side == 0 {
                    rng.next(6) as usize
                } else {
                    rng.next(25) as usize
                };
                let (mine, theirs) = if side == 0 {
                    (&mut board.on_roll, &board.opponent)
                } else {
                    (&mut board.opponent, &board.on_roll)
                };
                // Never two colours on a point (slot 24 is the owner's bar).
                if slot < 24 && theirs[23 - slot] > 0 {
                    if rng.next(8) == 0 {
                        break; // the checker stays off
                    }
                    continue;
                }
                mine[slot] += 1;
                break;
            }
        }
    }
    Position::try_from(board).expect("scattered position is legal")
}

fn any_position() -> impl Strategy<Value = Position> {
    prop_oneof![
        (any::<u64>(), 0u32..120).prop_map(|(s, p)| played_position(s, p)),
        any::<u64>().prop_map(scattered_position),
    ]
}

fn any_roll() -> impl Strategy<Value = Roll> {
    (1u8..=6, 1u8..=6).prop_map(|(a, b)| Roll::from_values(a, b))
}

/// Checkers of each side on the board, bar and off.
fn totals(p: &Position) -> (u32, u32) {
    let b = p.to_board();
    let on: u32 = b.on_roll.iter().map(|&n| u32::from(n)).sum::<u32>() + u32::from(p.off());
    let opp: u32 =
        b.opponent.iter().map(|&n| u32::from(n)).sum::<u32>() + u32::from(p.opponent_off());
    (on, opp)
}

/// The reference generator: every sequence of single-die moves under the written rules, longest
/// sequences only, the larger die when only one die can be played, distinct by result.
fn reference_plays(pos: &Position, roll: Roll, rules: Rules) -> BTreeSet<PositionId> {
    if pos.is_game_over() {
        return BTreeSet::from([pos.position_id()]);
    }
    let dice: Vec<Vec<u8>> = if roll.is_double() {
        vec![vec![roll.high().value(); rules.double_moves()]]
    } else {
        vec![
            vec![roll.high().value(), roll.low().value()],
            vec![roll.low().value(), roll.high().value()],
        ]
    };
    // (dice used, first die, position)
    let mut found: Vec<(usize, u8, Position)> = Vec::new();
    fn walk(
        p: Position,
        dice: &[u8],
        used: usize,
        first: u8,
        out: &mut Vec<(usize, u8, Position)>,
    ) {
        if used == dice.len() {
            out.push((used, first, p));
            return;
        }
        let die = dice[used];
        let mut moved = false;
        for from in 1..=25u8 {
            if let Some(next) = single_step(&p, from, die) {
                moved = true;
                walk(
                    next,
                    dice,
                    used + 1,
                    if used == 0 { die } else { first },
                    out,
                );
            }
        }
        if !moved {
            out.push((used, first, p));
        }
    }
    for order in &dice {
        walk(*pos, order, 0, 0, &mut found);
    }
    let max = found.iter().map(|f| f.0).max().unwrap_or(0);
    let mut best: Vec<&(usize, u8, Position)> = found.iter().filter(|f| f.0 == max).collect();
    if max == 1 && !roll.is_double() && best.iter().any(|f| f.1 == roll.high().value()) {
        best.retain(|f| f.1 == roll.high().value());
    }
    best.iter().map(|f| f.2.position_id()).collect()
}

/// One checker from `from` (25 = bar) by `die`, if the rules allow it.
fn single_step(p: &Position, from: u8, die: u8) -> Option<Position> {
    let b = p.signed_board();
    let count = |i: usize| b[i];
    if count(from as usize) <= 0 {
        return None;
    }
    if p.bar() > 0 && from != 25 {
        return None;
    }
    let to = i16::from(from) - i16::from(die);
    if to >= 1 {
        if count(to as usize) <= -2 {
            return None;
        }
        let hit = count(to as usize) == -1;
        let mv = CheckerMove::new(from, to as u8, hit);
        return p.apply_moves(&Play::new(&[mv]));
    }
    // Bearing off: all checkers home; exact, or from the highest point.
    let all_home = p.bar() == 0 && (7..=24).all(|q| count(q) <= 0);
    let highest = (1..=6u8).rev().find(|&q| count(q as usize) > 0);
    if !all_home || (to < 0 && highest != Some(from)) {
        return None;
    }
    p.apply_moves(&Play::new(&[CheckerMove::new(from, 0, false)]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn flip_twice_is_identity(pos in any_position()) {
        prop_assert_eq!(pos.flip().flip(), pos);
        prop_assert_eq!(pos.flip().pips(), (pos.pips().1, pos.pips().0));
    }

    #[test]
    fn position_id_round_trips(pos in any_position()) {
        let id = pos.position_id().to_string();
        prop_assert_eq!(Position::from_position_id(&id).unwrap(), pos);
        prop_assert_eq!(Position::try_from(pos.to_board()).unwrap(), pos);
    }

    #[test]
    fn plays_conserve_checkers_and_are_legal(pos in any_position(), roll in any_roll()) {
        let mut list = PlayList::new();
        pos.legal_plays(roll, &mut list);
        prop_assert!(!list.is_empty());
        let len = list.play(0).len();
        let mut seen = BTreeSet::new();
        for (play, result) in list.iter() {
            prop_assert_eq!(totals(result), (15, 15));
            prop_assert_eq!(play.len(), len, "all plays use the same number of dice");
            prop_assert!(seen.insert(result.position_id()), "duplicate result");
            prop_assert_eq!(pos.apply_moves(&play), Some(*result));
            prop_assert_eq!(pos.play(roll, &play), Ok(*result));
            // The mover's pips drop by the distance moved; the opponent's rise by what was hit.
            let moved: u32 = play.moves().iter().map(|m| u32::from(m.from() - m.to())).sum();
            let hits: u32 = play.moves().iter().filter(|m| m.is_hit()).map(|m| u32::from(m.to())).sum();
            let (before_me, before_opp) = pos.pips();
            let (after_me, after_opp) = result.pips();
            prop_assert_eq!(before_me - after_me, moved);
            prop_assert_eq!(after_opp - before_opp, hits);
        }
    }

    #[test]
    fn generator_agrees_with_the_reference(pos in any_position(), roll in any_roll(), twice in any::<bool>()) {
        let rules = if twice { Rules::DoublesTwice } else { Rules::Standard };
        let mut list = PlayList::new();
        pos.legal_plays_with(roll, rules, &mut list);
        let got: BTreeSet<PositionId> = list.positions().iter().map(|p| p.position_id()).collect();
        prop_assert_eq!(got.len(), list.len(), "results are distinct");
        prop_assert_eq!(got, reference_plays(&pos, roll, rules));
    }
}
