//! XGID reader: never panics; whatever it accepts is written back and read to the same value,
//! and the other notations can carry it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tavla_notation::testing::kept_by;
use tavla_notation::{format, parse_position, Notation, Xgid};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(xgid) = text.parse::<Xgid>() else {
        return;
    };
    let written = xgid.to_string();
    let again: Xgid = written
        .parse()
        .unwrap_or_else(|e| panic!("{written:?} of {text:?} refused: {e}"));
    assert_eq!(again, xgid, "{text:?} -> {written:?}");
    for n in Notation::ALL {
        let other = format(&xgid.state, n);
        let back = parse_position(&other).unwrap_or_else(|e| panic!("{n} {other:?}: {e}"));
        assert_eq!(back, kept_by(&xgid.state, n), "{text:?} via {other:?}");
    }
});
