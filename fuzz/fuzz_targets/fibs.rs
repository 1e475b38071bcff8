//! FIBS board reader: never panics; whatever it accepts is written back in both dialects and
//! read to the same state.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tavla_notation::{parse_position, FibsBoard, FibsDialect};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(board) = text.parse::<FibsBoard>() else {
        return;
    };
    for dialect in [FibsDialect::Gnubg, FibsDialect::Server] {
        let written = board.to_string_in(dialect);
        let again: FibsBoard = written
            .parse()
            .unwrap_or_else(|e| panic!("{written:?} of {text:?} refused: {e}"));
        assert_eq!(again.state, board.state, "{text:?} -> {written:?}");
        assert_eq!(again.to_string_in(dialect), written);
    }
    if let Ok(detected) = parse_position(&text) {
        assert_eq!(detected, board.state);
    }
});
