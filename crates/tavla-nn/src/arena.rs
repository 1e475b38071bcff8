//! Cubeless money games between two players, for strength checks during training.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{GameState, PlayList, Position, Roll};
use tavla_player::Player;

/// The result of a duel, from the first player's side.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DuelResult {
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Points won minus points lost.
    pub points: i64,
    /// Sum of squared points per game (for the standard error).
    pub points_sq: u64,
}

impl DuelResult {
    /// Points per game.
    #[must_use]
    pub fn ppg(&self) -> f64 {
        self.points as f64 / f64::from(self.games.max(1))
    }

    /// Fraction of games won.
    #[must_use]
    pub fn win_rate(&self) -> f64 {
        f64::from(self.wins) / f64::from(self.games.max(1))
    }

    /// Standard error of [`DuelResult::ppg`].
    #[must_use]
    pub fn ppg_stderr(&self) -> f64 {
        let n = f64::from(self.games.max(2));
        let mean = self.ppg();
        let var = (self.points_sq as f64 / n - mean * mean).max(0.0) * n / (n - 1.0);
        (var / n).sqrt()
    }
}

/// Plays one cubeless game; `dice` gives every roll. Returns the points won by `first` (the
/// player who moves first; negative when it loses).
pub fn play_game(
    first: &mut dyn Player,
    second: &mut dyn Player,
    dice: &mut ChaCha8Rng,
    plays: &mut PlayList,
) -> i32 {
    first.new_game();
    second.new_game();
    let mut state = GameState::money(Position::START);
    let mut roll = loop {
        let r = Roll::from_values(dice.gen_range(1..=6), dice.gen_range(1..=6));
        if !r.is_double() {
            break r;
        }
    };
    let mut t = 0usize;
    loop {
        state.position.legal_plays(roll, plays);
        let mover: &mut dyn Player = if t % 2 == 0 { first } else { second };
        let i = if plays.len() == 1 {
            0
        } else {
            mover.choose_play(&state, roll, plays).min(plays.len() - 1)
        };
        let after = plays.positions()[i];
        if let Some(o) = after.outcome() {
            let p = i32::from(o.points);
            return if t % 2 == 0 { p } else { -p };
        }
        state.position = after.flip();
        state.turn = !state.turn;
        t += 1;
        roll = Roll::from_values(dice.gen_range(1..=6), dice.gen_range(1..=6));
    }
}

/// Plays `games` games between `a` and `b`, alternating who moves first; games `2k` and
/// `2k + 1` use the same dice (seeded from `seed` and `k`), so luck partly cancels.
pub fn duel(a: &mut dyn Player, b: &mut dyn Player, games: u32, seed: u64) -> DuelResult {
    let mut r = DuelResult::default();
    let mut plays = PlayList::new();
    for g in 0..games {
        let mut dice = ChaCha8Rng::seed_from_u64(seed.wrapping_add(u64::from(g / 2)));
        let pts = if g % 2 == 0 {
            play_game(a, b, &mut dice, &mut plays)
        } else {
            -play_game(b, a, &mut dice, &mut plays)
        };
        r.games += 1;
        if pts > 0 {
            r.wins += 1;
        }
        r.points += i64::from(pts);
        r.points_sq += (pts * pts) as u64;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_player::RandomPlayer;

    #[test]
    fn random_against_itself_is_balanced_and_reproducible() {
        let run = || duel(&mut RandomPlayer::new(1), &mut RandomPlayer::new(2), 40, 9);
        let r = run();
        assert_eq!(r, run());
        assert_eq!(r.games, 40);
        assert!(r.ppg().abs() < 1.5);
        assert!(r.ppg_stderr() > 0.0);
    }
}
