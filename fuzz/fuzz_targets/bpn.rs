//! BPN reader: never panics; whatever it accepts, the canonical writer writes so that it reads
//! back to the same state (and the canonical text is a fixed point), and the auto-detecting
//! reader agrees.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tavla_notation::{parse_position, Bpn};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(Bpn(state)) = text.parse::<Bpn>() else {
        return;
    };
    let canonical = Bpn(state).to_string();
    let Bpn(again) = canonical
        .parse::<Bpn>()
        .unwrap_or_else(|e| panic!("canonical {canonical:?} of {text:?} refused: {e}"));
    assert_eq!(again, state, "{text:?} -> {canonical:?}");
    assert_eq!(Bpn(again).to_string(), canonical);
    if let Ok(detected) = parse_position(&text) {
        assert_eq!(detected, state, "{text:?}");
    }
});
