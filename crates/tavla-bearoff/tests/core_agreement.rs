//! The bearoff move generator against tavla-core's general one: in every bearoff position
//! tried, both find the same set of resulting positions for every roll.

use std::collections::BTreeSet;

use proptest::prelude::*;
use tavla_bearoff::{bearoff_plays, Dice, OneSided, PerfectHash};
use tavla_core::{Board, PlayList, Position, Roll};

fn core_results(me: &OneSided, opp: &OneSided, dice: Dice) -> BTreeSet<Vec<u8>> {
    let mut board = Board::default();
    board.on_roll[..6].copy_from_slice(&me.counts()[..6]);
    board.opponent[..6].copy_from_slice(&opp.counts()[..6]);
    let pos = Position::try_from(board).expect("a legal bearoff position");
    let mut list = PlayList::new();
    pos.legal_plays(Roll::from_values(dice.high(), dice.low()), &mut list);
    list.positions()
        .iter()
        .map(|p| p.to_board().on_roll[..6].to_vec())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn same_results_as_tavla_core(me in 1u64..54_264, opp in 1u64..54_264, roll in 0usize..21) {
        let hash = PerfectHash::new(6, 15).unwrap();
        let me = hash.unrank(me).unwrap();
        let opp = hash.unrank(opp).unwrap();
        let dice = Dice::ALL_21[roll].0;
        let ours: BTreeSet<Vec<u8>> = bearoff_plays(&hash, &me, dice)
            .unwrap()
            .iter()
            .map(|p| p.result.counts()[..6].to_vec())
            .collect();
        prop_assert_eq!(ours, core_results(&me, &opp, dice));
    }
}
