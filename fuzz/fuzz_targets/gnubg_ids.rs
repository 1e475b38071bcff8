//! gnubg's Match ID, `PositionID:MatchID` and bare Position IDs: never panic; a valid Match ID
//! is written back byte for byte; a state read from a gnubg ID is written back to an ID that
//! reads to the same state.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tavla_core::Position;
use tavla_notation::{parse_position, GnubgId, MatchId};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(m) = text.parse::<MatchId>() {
        assert_eq!(m.to_string(), text.trim(), "match ID not written back");
        if let Ok(state) = m.to_game_state(Position::START) {
            let again = MatchId::from_game_state(&state);
            assert_eq!(again.to_game_state(Position::START), Ok(state), "{text:?}");
        }
    }
    if let Ok(id) = text.parse::<GnubgId>() {
        assert_eq!(id.to_string(), text.trim(), "gnubg ID not written back");
        if let Ok(state) = id.to_game_state() {
            let written = GnubgId::from_game_state(&state).to_string();
            let back = parse_position(&written)
                .unwrap_or_else(|e| panic!("{written:?} of {text:?} refused: {e}"));
            assert_eq!(back, state, "{text:?} -> {written:?}");
        }
    }
    let _ = parse_position(&text);
});
