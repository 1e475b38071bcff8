//! Resignations: what playing on is worth to a side against resigning a single game, a gammon
//! or a backgammon, valued by the search, so the engine can offer a resignation when it has
//! nothing left to play for and answer one offered to it.
//!
//! The values are of the side that would resign, on roll, in the stakes of the game: points
//! (the cube's value included) in money play, its chance of winning the match in match play. A
//! resignation is worth its points in [`Resign::points_in`] (in a match, the match winning
//! chance after losing them); playing on is worth the search's value of the position with the
//! cube where it is: the cubeful equity with the right cube action when the cube is in play
//! (Janowski's model at 0-ply, the cubeful search deeper, over tavla's match equity table in a
//! match), else the cubeless equity. With the dice rolled, the side's best play is made and the
//! opponent's value then taken.
//!
//! ```
//! use tavla_core::{GameState, Position, Resign};
//! use tavla_nn::Search;
//!
//! // The side on roll has all fifteen checkers on its ace point; the opponent bears off its
//! // last two next roll. Every roll bears off two checkers first: a sure single loss.
//! let mut b = [0i8; 26];
//! b[1] = 15;
//! b[24] = -2;
//! let lost = GameState::money(Position::try_from(b).unwrap());
//! let mut search = Search::new(tavla_nn::Weights::shared_default());
//! // At 1-ply every roll bears off a checker, after which a gammon cannot happen.
//! let worth = search.resignation_worth(&lost, true, 1);
//! assert_eq!(worth.offer(), Some(Resign::Single));
//! assert!(worth.accepts(Resign::Single));
//! ```

use tavla_core::{Dice, GameState, PlayList, Resign};

use crate::cube::{CubeHolder, PlayWorth};
use crate::met::MatchScore;
use crate::probs::Probabilities;
use crate::search::Search;

/// By how much (points per unit of the cube in money play) a resignation may fall short of
/// playing on and still be offered or accepted: the search's values of a decided game carry
/// small errors, and a resignation that gives up less than this is not worth playing on for.
pub const RESIGN_TOLERANCE: f32 = 0.005;

/// The same margin in match winning chances.
pub const RESIGN_TOLERANCE_MATCH: f32 = 0.001;

/// The highest chance, by the search, of doing better than a resignation by playing on, at
/// which a side offers it. Equity alone would resign a single game with a quarter of the
/// games still won where gammons balance them; a resignation is for a game that is decided,
/// and the networks' values of lopsided positions are the least sure.
pub const RESIGN_MAX_BETTER: f32 = 0.01;

/// The worth, to the side on roll, of playing on and of each resignation it could offer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResignationWorth {
    /// Playing on: points in money play (the cube's value included), the match winning chance
    /// in match play.
    pub playing_on: f32,
    /// Resigning a single game, a gammon, a backgammon, in the same units.
    pub resigning: [f32; 3],
    /// The side's chance of doing better by playing on than each resignation (cubeless, by
    /// the search): of winning; of winning or losing a single game; of anything short of
    /// losing a backgammon.
    pub better: [f32; 3],
    /// The most the side can still lose ([`Resign::worst_for`]).
    pub worst: Resign,
    /// The margin, in the same units: [`RESIGN_TOLERANCE`] times the cube in money play,
    /// [`RESIGN_TOLERANCE_MATCH`] in match play.
    pub tolerance: f32,
}

impl ResignationWorth {
    /// The resignation to offer: the smallest the opponent should accept ([`Self::accepts`]),
    /// when it costs the side no more than playing on (within the tolerance) and the side
    /// would do better by playing on in at most [`RESIGN_MAX_BETTER`] of the games; `None`
    /// otherwise.
    #[must_use]
    pub fn offer(&self) -> Option<Resign> {
        self.offer_within(self.tolerance, RESIGN_MAX_BETTER)
    }

    /// [`Self::offer`] with another tolerance and chance of doing better (a wider pair makes
    /// a cheap first look that lets through every position a deeper search might resign).
    #[must_use]
    pub fn offer_within(&self, tolerance: f32, max_better: f32) -> Option<Resign> {
        let r = Resign::ALL.into_iter().find(|&r| self.accepts(r))?;
        let k = r as usize - 1;
        (self.resigning[k] >= self.playing_on - tolerance && self.better[k] <= max_better)
            .then_some(r)
    }

    /// Whether the opponent should accept `offered`: it gains as much as by playing on (within
    /// the tolerance), or it is all the side can still lose.
    #[must_use]
    pub fn accepts(&self, offered: Resign) -> bool {
        offered >= self.worst
            || self.resigning[offered as usize - 1] <= self.playing_on + self.tolerance
    }
}

impl Search {
    /// What playing on and each resignation are worth to the side on roll of `state` (dice
    /// rolled or not; a pending double is not answered here), searched `ply` deep; `cube` says
    /// whether the cube is in play in a money game (in a match it always is). See the module
    /// documentation.
    pub fn resignation_worth(
        &mut self,
        state: &GameState,
        cube: bool,
        ply: u8,
    ) -> ResignationWorth {
        let score = MatchScore::of(state, state.turn);
        let resigning = Resign::ALL.map(|r| {
            let points = r.points_in(state);
            match score {
                Some(s) => s.after(0, points),
                None => -(points as f32),
            }
        });
        let unit = state.cube.value() as f32;
        let (playing_on, p) = self.playing_on(state, cube, ply);
        let lose_single = (p.lose() - p.lose_gammon).max(0.0);
        let better = [
            p.win,
            p.win + lose_single,
            (1.0 - p.lose_backgammon).clamp(0.0, 1.0),
        ];
        ResignationWorth {
            playing_on,
            resigning,
            better,
            worst: Resign::worst_for(&state.position),
            tolerance: match score {
                Some(_) => RESIGN_TOLERANCE_MATCH,
                None => RESIGN_TOLERANCE * unit,
            },
        }
    }

    /// The value of playing on for the side on roll of `state`, in the units of
    /// [`ResignationWorth::playing_on`], and its cubeless probabilities.
    fn playing_on(&mut self, state: &GameState, cube: bool, ply: u8) -> (f32, Probabilities) {
        let score = MatchScore::of(state, state.turn);
        let cube_on = cube || state.match_length > 0;
        let value = state.cube.value();
        if let Some(o) = state.position.outcome() {
            // Times the cube, or single under the Jacoby rule with the cube in the middle.
            let points = Resign::of_outcome(o.points).points_in(state);
            let worth = match (score, o.on_roll_wins) {
                (Some(s), true) => s.after(points, 0),
                (Some(s), false) => s.after(0, points),
                (None, true) => points as f32,
                (None, false) => -(points as f32),
            };
            return (worth, Probabilities::from_outcome(o));
        }
        if let Dice::Rolled(roll) = state.dice {
            let mut plays = PlayList::new();
            state.position.legal_plays(roll, &mut plays);
            let worth = if cube_on {
                PlayWorth::of(state)
            } else {
                PlayWorth::Cubeless
            };
            let mut ranked = Vec::new();
            let best = if plays.len() == 1 {
                0
            } else {
                self.choose_worth(&plays, ply, &mut ranked, worth)
            };
            let after = plays.positions()[best];
            let next = GameState {
                position: after.flip(),
                turn: state.turn.other(),
                dice: Dice::NotRolled,
                ..*state
            };
            let (theirs, p) = self.playing_on(&next, cube, ply);
            let worth = match score {
                Some(_) => 1.0 - theirs,
                None => -theirs,
            };
            return (worth, p.flip());
        }
        let pos = &state.position;
        let holder = CubeHolder::of(state);
        let p = self.evaluate(pos, ply);
        let worth = match score {
            Some(s) => {
                let a = self.match_cube_analysis(pos, ply, holder, value, s);
                let [no_double, double_take, double_pass] =
                    a.match_winning_chances
                        .unwrap_or([a.no_double, a.double_take, a.double_pass]);
                if a.action.doubles() {
                    double_take.min(double_pass)
                } else {
                    no_double
                }
            }
            None if cube_on => {
                let a = self.cube_analysis(pos, ply, holder, state.jacoby);
                a.equity() * value as f32
            }
            None => p.equity() * value as f32,
        };
        (worth, p)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tavla_core::{Position, Roll, Side};
    use tavla_player::Player;

    use super::*;
    use crate::bearoff::BearoffRace;
    use crate::{NeuralPlayer, Weights};

    fn pos(cells: &[(usize, i8)]) -> Position {
        let mut b = [0i8; 26];
        for &(i, n) in cells {
            b[i] = n;
        }
        Position::try_from(b).unwrap()
    }

    /// The side on roll bears off two checkers on any roll, then loses: a sure single loss.
    fn single_loss() -> Position {
        pos(&[(1, 15), (24, -2)])
    }

    fn bearoff() -> Arc<BearoffRace> {
        Arc::new(BearoffRace::default_databases())
    }

    /// A search with the bearoff databases, as the players have by default.
    fn search() -> Search {
        Search::new(Weights::shared_default()).with_bearoff(bearoff())
    }

    /// The side on roll has all fifteen on its 10-point; the opponent bears off its last
    /// checker next roll: a sure gammon.
    fn gammon_loss() -> Position {
        pos(&[(10, 15), (24, -1)])
    }

    #[test]
    fn decided_games_are_resigned_at_their_level_and_accepted() {
        let mut search = search();
        for ply in [0, 1, 2] {
            for cube in [false, true] {
                let single = GameState::money(single_loss());
                let w = search.resignation_worth(&single, cube, ply);
                assert!((w.playing_on + 1.0).abs() < 0.01, "{w:?}");
                assert_eq!(w.offer(), Some(Resign::Single), "ply {ply} cube {cube}");
                assert!(w.accepts(Resign::Single));
                let gammon = GameState::money(gammon_loss());
                let w = search.resignation_worth(&gammon, cube, ply);
                assert!((w.playing_on + 2.0).abs() < 0.01, "{w:?}");
                assert_eq!(w.offer(), Some(Resign::Gammon), "ply {ply} cube {cube}");
                assert!(!w.accepts(Resign::Single), "a gammon is sure");
                assert!(w.accepts(Resign::Gammon));
            }
        }
    }

    #[test]
    fn the_start_is_not_resigned_and_the_cube_counts() {
        let mut search = search();
        let mut start = GameState::money(Position::START);
        let w = search.resignation_worth(&start, true, 1);
        assert_eq!(w.offer(), None);
        // A point for nothing: the opponent accepts gladly.
        assert!(w.accepts(Resign::Single));
        // On a 4-cube a sure single loss costs 4 points; resigning gives the same.
        let mut single = GameState::money(single_loss());
        single.cube.log2 = 2;
        single.cube.owner = tavla_core::CubeOwner::Side(Side::X);
        let w = search.resignation_worth(&single, true, 0);
        assert!((w.playing_on + 4.0).abs() < 0.04, "{w:?}");
        assert_eq!(w.resigning, [-4.0, -8.0, -12.0]);
        assert_eq!(w.offer(), Some(Resign::Single));
        // With the dice rolled the play is made first: still a sure single loss.
        start.dice = Dice::Rolled(Roll::from_values(6, 5));
        single.dice = Dice::Rolled(Roll::from_values(2, 1));
        assert_eq!(
            search.resignation_worth(&single, true, 0).offer(),
            Some(Resign::Single)
        );
        assert_eq!(search.resignation_worth(&start, true, 0).offer(), None);
    }

    #[test]
    fn match_play_values_are_match_winning_chances() {
        let mut search = search();
        let mut state = GameState::money(gammon_loss());
        state.match_length = 7;
        state.score = tavla_core::BySide { x: 3, o: 4 };
        let w = search.resignation_worth(&state, true, 0);
        let score = MatchScore::of(&state, Side::X).unwrap();
        assert_eq!(w.resigning[1], score.after(0, 2));
        assert!((w.playing_on - score.after(0, 2)).abs() < 0.005, "{w:?}");
        assert_eq!(w.offer(), Some(Resign::Gammon));
        // Needing two points, the opponent takes a single resignation as a win of the match
        // only if it needs one: at 3-5 (it needs 2) a gammon or a single both win the match.
        state.score = tavla_core::BySide { x: 3, o: 6 };
        let w = search.resignation_worth(&state, true, 0);
        assert_eq!(w.offer(), Some(Resign::Single), "{w:?}");
    }

    #[test]
    fn the_player_resigns_accepts_and_beavers() {
        for ply in [0, 1] {
            let mut player = NeuralPlayer::with_default_weights(ply).with_bearoff(bearoff());
            let start = GameState::money(Position::START);
            assert_eq!(player.resigns(&start, true), None);
            assert!(player.accepts_resignation(&start, true, Resign::Single));
            let single = GameState::money(single_loss());
            assert_eq!(player.resigns(&single, false), Some(Resign::Single));
            assert!(player.accepts_resignation(&single, false, Resign::Single));
            let gammon = GameState::money(gammon_loss());
            assert_eq!(player.resigns(&gammon, true), Some(Resign::Gammon));
            assert!(!player.accepts_resignation(&gammon, true, Resign::Single));

            // A double in a position the doubler loses nearly always (the opponent's
            // position seen from the answering side): taken and beavered, with beavers only.
            let mut asked = GameState::money(single_loss().flip());
            asked.dice = Dice::DoubleOffered;
            assert!(!player.beavers(&asked), "no beavers");
            asked.beavers = true;
            let wrong = GameState::money(single_loss());
            assert!(player.accepts_double(&asked));
            assert!(player.beavers(&asked), "ply {ply}");
            let mut doubler = wrong;
            doubler.beavers = true;
            assert!(!player.wants_to_double(&doubler));
            // A double the doubler wins (it bears off its last two next roll) is passed and
            // never beavered. (A double at the opening position would be: the doubler, giving
            // the cube away for a small edge, is behind after it.)
            let mut passed = GameState::money(pos(&[(1, 2), (24, -10)]).flip());
            passed.beavers = true;
            passed.dice = Dice::DoubleOffered;
            assert!(!player.accepts_double(&passed));
            assert!(!player.beavers(&passed));
        }
    }
}
