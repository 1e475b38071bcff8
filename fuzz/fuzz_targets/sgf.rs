//! SGF reader (`.mat` or SGF by content): never panics, and neither does replaying what it
//! accepts; every replayed roll of a game without set-up turns starts from the position the one
//! before left (seen from the other side). A record whose games all replay is written as SGF,
//! and as `.mat` unless it sets up a position (which `to_mat` refuses, and only then), and each
//! is read back to the same rolls and results.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tavla_notation::mat::{Action, MatchRecord, Replay};
use tavla_notation::sgf::parse_record;

fn rolls(r: &Replay) -> Vec<(usize, tavla_core::Roll, tavla_core::Position)> {
    r.rolls.iter().map(|t| (t.player, t.roll, t.after)).collect()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let record = match parse_record(&text) {
        Ok(r) => r,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let mut replays = Vec::new();
    for game in &record.games {
        let Ok(replay) = game.replay() else { return };
        let set_up = game.turns.iter().any(|t| matches!(t.action, Action::SetUp(_)));
        if !set_up {
            for w in replay.rolls.windows(2) {
                assert_eq!(w[1].position, w[0].after.flip());
                assert_ne!(w[0].player, w[1].player);
            }
        }
        replays.push(replay);
    }
    let mat = record.to_mat();
    let set_up = record
        .games
        .iter()
        .any(|g| g.turns.iter().any(|t| matches!(t.action, Action::SetUp(_))));
    assert_eq!(mat.is_err(), set_up, "to_mat refuses exactly the records with a set-up");
    let mut written = vec![("sgf", record.to_sgf())];
    if let Ok(text) = mat {
        written.push(("mat", text));
    }
    for (format, written) in written {
        let back = if format == "mat" {
            MatchRecord::parse(&written).map_err(|e| e.to_string())
        } else {
            MatchRecord::parse_sgf(&written).map_err(|e| e.to_string())
        };
        let back = back.unwrap_or_else(|e| panic!("{format}: {e}\n{written}"));
        assert_eq!(back.games.len(), record.games.len(), "{format}");
        for (game, replay) in back.games.iter().zip(&replays) {
            let again = game
                .replay()
                .unwrap_or_else(|e| panic!("{format}: {e}\n{written}"));
            assert_eq!(rolls(&again), rolls(replay), "{format}\n{written}");
        }
    }
});
