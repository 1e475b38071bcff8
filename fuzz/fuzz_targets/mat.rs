//! `.mat` reader: never panics, and neither does replaying what it accepts; every replayed roll
//! starts from the position the one before left (seen from the other side).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tavla_notation::mat::MatchRecord;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(record) = MatchRecord::parse(&text) else {
        return;
    };
    for game in &record.games {
        let Ok(replay) = game.replay() else { continue };
        for w in replay.rolls.windows(2) {
            assert_eq!(w[1].position, w[0].after.flip());
            assert_ne!(w[0].player, w[1].player);
        }
    }
});
