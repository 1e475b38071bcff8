//! Property tests: every notation reads back what it wrote, within what it can hold, and every
//! legal play reads back from each move spelling.

use proptest::prelude::*;
use tavla_core::{PlayList, Roll};
use tavla_notation::landing::LandingMarks;
use tavla_notation::testing::{arb_game_state, arb_position, kept_by};
use tavla_notation::{
    format, format_plain, format_pretty, format_ubgi, parse_position, Bpn, FibsBoard, FibsDialect,
    GnubgId, MatchId, Notation, PlayText, Xgid,
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_notation_round_trips(state in arb_game_state()) {
        for n in Notation::ALL {
            let text = format(&state, n);
            let back = parse_position(&text)
                .map_err(|e| TestCaseError::fail(format!("{n}: {text}: {e}")))?;
            prop_assert_eq!(back, kept_by(&state, n), "{} {}", n, text);
            // Writing again gives the same text, or, where the notation dropped something (a
            // 9999-point match is FIBS's money play), text that reads and writes as itself.
            let again = format(&back, n);
            if back == state {
                prop_assert_eq!(&again, &text);
            }
            prop_assert_eq!(parse_position(&again).unwrap(), back);
            prop_assert_eq!(format(&parse_position(&again).unwrap(), n), again);
        }
    }

    #[test]
    fn typed_readers_round_trip(state in arb_game_state()) {
        let bpn = Bpn(state).to_string();
        prop_assert_eq!(bpn.parse::<Bpn>().unwrap(), Bpn(state));
        let xgid = Xgid { state, max_cube_log2: 7 };
        prop_assert_eq!(xgid.to_string().parse::<Xgid>().unwrap(), xgid);
        let id = GnubgId::from_game_state(&state);
        prop_assert_eq!(id.to_string().parse::<GnubgId>().unwrap(), id);
        let m = MatchId::from_game_state(&state);
        prop_assert_eq!(m.to_string().parse::<MatchId>().unwrap(), m);
        prop_assert_eq!(id.to_game_state().unwrap(), kept_by(&state, Notation::Gnubg));
        let board = FibsBoard { player: "me".into(), opponent: "you".into(), state };
        for dialect in [FibsDialect::Gnubg, FibsDialect::Server] {
            let text = board.to_string_in(dialect);
            let back: FibsBoard = text.parse().unwrap();
            prop_assert_eq!(back.state, kept_by(&state, Notation::Fibs), "{}", text);
            let again = back.to_string_in(dialect);
            if back.state == state {
                prop_assert_eq!(&again, &text);
            }
            let read_again: FibsBoard = again.parse().unwrap();
            prop_assert_eq!(read_again.to_string_in(dialect), again);
        }
    }

    #[test]
    fn every_legal_play_reads_back_from_its_landing_marks(
        pos in arb_position(),
        a in 1u8..=6,
        b in 1u8..=6,
    ) {
        let roll = Roll::from_values(a, b);
        let mut list = PlayList::new();
        pos.legal_plays(roll, &mut list);
        for (play, after) in list.iter() {
            let marks = LandingMarks::from_play(roll, &play);
            let text = marks.to_string();
            let parsed: LandingMarks = text.parse()
                .map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
            prop_assert_eq!(&parsed, &marks);
            // With the roll read off the marks, and with it given.
            for given in [None, Some(roll)] {
                let (r, resolved) = parsed.resolve(&pos, given)
                    .map_err(|e| TestCaseError::fail(format!("{pos:?} {roll} {text:?}: {e}")))?;
                prop_assert_eq!(r, roll);
                prop_assert_eq!(pos.apply_moves(&resolved), Some(*after), "{}", text);
            }
        }
    }

    #[test]
    fn every_legal_play_reads_back_from_each_spelling(
        pos in arb_position(),
        a in 1u8..=6,
        b in 1u8..=6,
    ) {
        let roll = Roll::from_values(a, b);
        let mut list = PlayList::new();
        pos.legal_plays(roll, &mut list);
        for (play, after) in list.iter() {
            for text in [format_pretty(&pos, &play), format_plain(&pos, &play), format_ubgi(&play)] {
                let parsed: PlayText = text.parse()
                    .map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
                let resolved = parsed.resolve(&pos, roll)
                    .map_err(|e| TestCaseError::fail(format!("{pos:?} {roll} {text:?}: {e}")))?;
                prop_assert_eq!(pos.apply_moves(&resolved), Some(*after), "{}", text);
                // The normal form of the text reads back the same.
                let again: PlayText = parsed.to_string().parse().unwrap();
                prop_assert_eq!(again, parsed);
            }
        }
    }
}
