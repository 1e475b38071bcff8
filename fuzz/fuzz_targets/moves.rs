//! Move text: never panics, whatever the text, position and roll. Input: byte 0 picks the roll,
//! byte 1 the number of random plies from the start, bytes 2..10 their seed; the rest is the
//! text. Text that parses writes back to text that parses the same; a play it resolves to is
//! legal, and each of the three writers' spellings of it resolves to the same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tavla_core::{PlayList, Position, Roll};
use tavla_notation::{format_plain, format_pretty, format_ubgi, PlayText};

fn position(plies: u8, seed: u64) -> Position {
    let mut rng = seed | 1;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut pos = Position::START;
    let mut list = PlayList::new();
    for _ in 0..plies % 96 {
        if pos.is_game_over() {
            break;
        }
        let roll = Roll::from_values(next(6) as u8 + 1, next(6) as u8 + 1);
        pos.legal_plays(roll, &mut list);
        pos = list.positions()[next(list.len())].flip();
    }
    pos
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 10 {
        return;
    }
    let roll = Roll::from_values(data[0] % 6 + 1, data[0] / 6 % 6 + 1);
    let mut seed = [0u8; 8];
    seed.copy_from_slice(&data[2..10]);
    let pos = position(data[1], u64::from_le_bytes(seed));
    let text = String::from_utf8_lossy(&data[10..]);
    let Ok(parsed) = text.parse::<PlayText>() else {
        return;
    };
    let normal = parsed.to_string();
    let again: PlayText = normal
        .parse()
        .unwrap_or_else(|e| panic!("{normal:?} of {text:?} refused: {e}"));
    assert_eq!(again, parsed, "{text:?} -> {normal:?}");
    let Ok(play) = parsed.resolve(&pos, roll) else {
        return;
    };
    let mut list = PlayList::new();
    pos.legal_plays(roll, &mut list);
    let after = pos.apply_moves(&play).expect("a resolved play applies");
    assert!(
        list.positions().contains(&after),
        "{text:?} resolved to an illegal play"
    );
    for spelling in [
        format_pretty(&pos, &play),
        format_plain(&pos, &play),
        format_ubgi(&play),
    ] {
        let back = spelling
            .parse::<PlayText>()
            .and_then(|t| Ok(t.resolve(&pos, roll)))
            .unwrap_or_else(|e| panic!("{spelling:?} refused: {e}"))
            .unwrap_or_else(|e| panic!("{spelling:?} does not resolve: {e}"));
        assert_eq!(pos.apply_moves(&back), Some(after), "{spelling:?}");
    }
});
