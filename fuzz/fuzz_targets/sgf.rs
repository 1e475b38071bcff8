//! SGF reader (`.mat` or SGF by content): never panics, and neither does replaying what it
//! accepts; every replayed roll starts from the position the one before left (seen from the
//! other side).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tavla_notation::sgf::parse_record;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let record = match parse_record(&text) {
        Ok(r) => r,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for game in &record.games {
        let Ok(replay) = game.replay() else { continue };
        for w in replay.rolls.windows(2) {
            assert_eq!(w[1].position, w[0].after.flip());
            assert_ne!(w[0].player, w[1].player);
        }
    }
});
