//! How often the neural player's resignations would have been wrong: self-play games at 0-ply
//! (with the bearoff databases, as the players have by default), the first offer of each game
//! noted and the game then played out. The side that offered should seldom do better than its
//! offer. Ignored (about half a minute in release): `cargo test --release -p tavla-nn --test
//! resign_self_play -- --ignored --nocapture`.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use tavla_core::{GameState, PlayList, Position, Resign, Roll, Side};
use tavla_nn::bearoff::BearoffRace;
use tavla_nn::NeuralPlayer;
use tavla_player::Player;

#[test]
#[ignore = "a measurement: 1,000 self-play games"]
fn resignations_offered_in_self_play_are_seldom_beaten() {
    let games = 1000;
    let db = Arc::new(BearoffRace::default_databases());
    let mut player = NeuralPlayer::with_default_weights(0).with_bearoff(db);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut plays = PlayList::new();
    let (mut offers, mut beaten, mut turns_saved) = (0u32, 0u32, 0u32);
    let mut by_level = [0u32; 3];
    for _ in 0..games {
        let mut state = GameState::money(Position::START);
        let mut offer: Option<(Side, Resign, u32)> = None;
        let mut turn = 0u32;
        let (winner, points) = loop {
            if offer.is_none() {
                if let Some(level) = player.resigns(&state, false) {
                    offer = Some((state.turn, level, turn));
                }
            }
            let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
            state.position.legal_plays(roll, &mut plays);
            let after = plays.positions()[player.choose_play(&state, roll, &plays)];
            turn += 1;
            if let Some(o) = after.outcome() {
                break (state.turn, i64::from(o.points));
            }
            state.position = after.flip();
            state.turn = state.turn.other();
        };
        let Some((side, level, at)) = offer else {
            continue;
        };
        offers += 1;
        by_level[level as usize - 1] += 1;
        turns_saved += turn - at;
        let lost = if winner == side { -points } else { points };
        if lost < i64::from(level.level()) {
            beaten += 1;
        }
    }
    println!(
        "{games} games: {offers} offers (single, gammon, backgammon: {by_level:?}); the \
         offering side did better by playing on in {beaten}; {:.1} turns saved an offer",
        f64::from(turns_saved) / f64::from(offers.max(1))
    );
    assert!(offers > games / 4, "decided games are resigned");
    assert!(
        f64::from(beaten) <= 0.01 * f64::from(offers),
        "at most one offer in a hundred beaten"
    );
}
