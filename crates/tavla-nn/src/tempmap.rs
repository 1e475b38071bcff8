//! The temperature map of a position: what each of the 21 rolls is worth to the side on roll.
//!
//! For every roll the side's best play is found at the asked depth, ranked as `tavla hint`
//! ranks (cubeless money equity, cubeful once the cube has been turned or under the Jacoby
//! rule, match equity in a match: [`PlayWorth`]), and the roll is worth what that play leaves.
//! The rolls' mean, each weighted by its chance (1/36 a double, 2/36 the others), is what the
//! position is worth before the roll with the cube left where it is (at 0-ply and cubeless,
//! exactly its 1-ply value; deeper, close to the value one ply deeper, whose inner choices are
//! made at 0-ply); the spread between the best and the worst rolls shows how much hangs on the
//! dice, which is what analysts compare when they set
//! two candidate plays' maps side by side (gnubg's "temperature map", eXtreme Gammon's dice
//! distribution).

use tavla_core::{GameState, Play, PlayList, Position, Roll};

use crate::cube::PlayWorth;
use crate::search::{RankedPlay, Search, MAX_PLY};
use crate::Probabilities;

/// One roll of a [`TemperatureMap`].
#[derive(Debug, Clone, PartialEq)]
pub struct RollChoice {
    /// The roll.
    pub roll: Roll,
    /// Its chance out of 36 (1 for a double, 2 otherwise).
    pub weight: u8,
    /// The best play for it (empty when the side cannot move).
    pub play: Play,
    /// The position that play leaves, seen from the mover.
    pub after: Position,
    /// Its probabilities for the mover, at [`RollChoice::ply`].
    pub probs: Probabilities,
    /// The depth the play was valued at.
    pub ply: u8,
    /// What the play is worth to the mover, in the map's [`PlayWorth`].
    pub worth: f32,
}

/// What each of the 21 rolls is worth to the side on roll of a position.
#[derive(Debug, Clone, PartialEq)]
pub struct TemperatureMap {
    /// The 21 rolls in the order of [`Roll::ALL_21`] (doubles first).
    pub rolls: Vec<RollChoice>,
    /// The measure of the worths.
    pub worth: PlayWorth,
    /// The depth each roll's plays were ranked at.
    pub ply: u8,
}

impl TemperatureMap {
    /// The map of `state`'s side on roll (its dice, if any, are ignored): each roll's best
    /// play ranked at `ply` by `search`, as `tavla hint` ranks them.
    ///
    /// `state` must not be a finished game.
    #[must_use]
    pub fn of(search: &mut Search, state: &GameState, ply: u8) -> TemperatureMap {
        let worth = PlayWorth::of(state);
        let pos = state.position;
        let mut plays = PlayList::new();
        let mut ranked: Vec<RankedPlay> = Vec::new();
        let rolls = Roll::ALL_21
            .iter()
            .map(|&(roll, weight)| {
                pos.legal_plays(roll, &mut plays);
                search.rank_plays_worth(&plays, ply, &mut ranked, worth);
                let best = ranked[0];
                let after = plays.positions()[best.index];
                RollChoice {
                    roll,
                    weight,
                    play: plays.play(best.index),
                    after,
                    probs: best.probs,
                    ply: best.ply,
                    worth: search.play_value(worth, &after, best.probs),
                }
            })
            .collect();
        TemperatureMap {
            rolls,
            worth,
            ply: ply.min(MAX_PLY),
        }
    }

    /// The mean worth over the 36 rolls.
    #[must_use]
    pub fn mean(&self) -> f32 {
        let sum: f32 = self
            .rolls
            .iter()
            .map(|r| f32::from(r.weight) * r.worth)
            .sum();
        sum / 36.0
    }

    /// The roll `roll`'s entry.
    #[must_use]
    pub fn get(&self, roll: Roll) -> &RollChoice {
        self.rolls
            .iter()
            .find(|r| r.roll == roll)
            .expect("a temperature map holds all 21 rolls")
    }

    /// The mean probabilities over the 36 rolls (cubeless, for the side on roll).
    #[must_use]
    pub fn mean_probabilities(&self) -> Probabilities {
        let mut sum = [0.0f32; 5];
        for r in &self.rolls {
            let w = f32::from(r.weight) / 36.0;
            let p = r.probs;
            for (s, v) in sum.iter_mut().zip([
                p.win,
                p.win_gammon,
                p.win_backgammon,
                p.lose_gammon,
                p.lose_backgammon,
            ]) {
                *s += w * v;
            }
        }
        Probabilities {
            win: sum[0],
            win_gammon: sum[1],
            win_backgammon: sum[2],
            lose_gammon: sum[3],
            lose_backgammon: sum[4],
        }
    }

    /// The rolls from the best to the worst for the side on roll (ties in the order of
    /// [`Roll::ALL_21`]).
    #[must_use]
    pub fn ranked(&self) -> Vec<&RollChoice> {
        let mut all: Vec<&RollChoice> = self.rolls.iter().collect();
        all.sort_by(|a, b| b.worth.total_cmp(&a.worth));
        all
    }

    /// The standard deviation of the worth over the 36 rolls: how much hangs on the dice.
    #[must_use]
    pub fn spread(&self) -> f32 {
        let mean = self.mean();
        let var: f32 = self
            .rolls
            .iter()
            .map(|r| f32::from(r.weight) * (r.worth - mean).powi(2))
            .sum::<f32>()
            / 36.0;
        var.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn search() -> Search {
        Search::new(Arc::new(crate::Weights::default_weights()))
    }

    /// A position from its signed board (index 1..=24 the side on roll's points, positive its
    /// checkers; 25 its bar, 0 the opponent's).
    fn position(b: [i8; 26]) -> GameState {
        GameState::money(Position::try_from(b).unwrap())
    }

    #[test]
    fn the_mean_of_the_rolls_is_the_position_one_ply_deeper() {
        // At 0-ply each roll's best play is the one the 1-ply evaluation chooses, so the map's
        // mean is the position's 1-ply value as the search computes it.
        let state = GameState::money(Position::START);
        let mut s = search();
        let map = TemperatureMap::of(&mut s, &state, 0);
        assert_eq!(map.rolls.len(), 21);
        assert_eq!(
            map.rolls.iter().map(|r| u32::from(r.weight)).sum::<u32>(),
            36
        );
        let one_ply = s.evaluate(&state.position, 1);
        assert!(
            (map.mean() - one_ply.equity()).abs() < 1e-4,
            "map mean {} against 1-ply {}",
            map.mean(),
            one_ply.equity()
        );
        let mp = map.mean_probabilities();
        assert!((mp.win - one_ply.win).abs() < 1e-4);
        assert!((mp.equity() - map.mean()).abs() < 1e-4);
        // 6-5 from the start runs a back checker: 24/13, one checker left on the 24-point and
        // six on the midpoint.
        let r65 = map.get(Roll::from_values(6, 5));
        assert_eq!(
            tavla_core::Position::START
                .play(r65.roll, &r65.play)
                .unwrap(),
            r65.after
        );
        assert_eq!((r65.after.at(24), r65.after.at(13)), (1, 6));
    }

    #[test]
    fn a_closed_out_side_is_worth_the_same_after_every_roll() {
        // X has a checker on the bar against a closed board: no roll plays, so every roll
        // leaves the same position and is worth the same.
        let mut b = [0i8; 26];
        b[25] = 1;
        b[6] = 5;
        b[8] = 3;
        b[13] = 5;
        b[12] = 1;
        b[19..=24].fill(-2);
        b[18] = -3;
        let map = TemperatureMap::of(&mut search(), &position(b), 0);
        let first = map.rolls[0].worth;
        assert!(map
            .rolls
            .iter()
            .all(|r| r.worth == first && r.play.is_empty()));
        assert!(map.spread() < 1e-6);
        assert_eq!(map.ranked().len(), 21);
    }

    #[test]
    fn the_doubles_that_bear_off_are_the_best_rolls() {
        // X has two checkers on its 5-point and two on its 4-point; O has three left on its
        // 1-point. 5-5 and 6-6 bear all four off and win; 4-4 leaves two and O a double to
        // win; every other roll leaves O more.
        let mut b = [0i8; 26];
        b[5] = 2;
        b[4] = 2;
        b[24] = -3;
        let map = TemperatureMap::of(&mut search(), &position(b), 0);
        let ranked = map.ranked();
        let top: Vec<Roll> = ranked[..2].iter().map(|r| r.roll).collect();
        assert!(top.contains(&Roll::from_values(6, 6)) && top.contains(&Roll::from_values(5, 5)));
        assert!(ranked[0].worth > 0.99 && ranked[1].worth > 0.99);
        assert!(
            ranked[2].worth < 0.9,
            "{}: {}",
            ranked[2].roll,
            ranked[2].worth
        );
        assert_eq!(map.get(Roll::from_values(2, 1)).weight, 2);
        assert!(map.spread() > 0.1);
    }

    #[test]
    fn in_a_bearoff_the_mean_is_the_exact_value_of_the_databases() {
        // Both sides bearing off with checkers already off (no gammons): every play is valued
        // exactly by the two-sided database, so the map's mean over the rolls is the
        // database's own value of the position before the roll.
        let race = Arc::new(crate::bearoff::BearoffRace::default_databases());
        let mut s = search().with_bearoff(race.clone());
        let mut b = [0i8; 26];
        b[6] = 1;
        b[5] = 1;
        b[3] = 1;
        b[24] = -1;
        b[22] = -2;
        let state = position(b);
        let exact = race
            .probe(&state.position)
            .expect("in the two-sided database");
        let map = TemperatureMap::of(&mut s, &state, 0);
        assert!(
            (map.mean() - exact.equity()).abs() < 1e-5,
            "map {} against the database {}",
            map.mean(),
            exact.equity()
        );
        // 6-6 and 5-5 take all three off; 4-4 leaves one on the 1-point.
        assert!(map.get(Roll::from_values(4, 4)).worth < 0.99);
        for d in 5..=6 {
            assert!(map.get(Roll::from_values(d, d)).worth > 0.9999);
        }
    }
}
