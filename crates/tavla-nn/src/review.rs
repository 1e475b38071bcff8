//! The review of decisions already made: what a checker play or a cube action cost, by the
//! search. `tavla analyse` walks recorded games through these.
//!
//! A decision's *loss* is the equity the best choice keeps minus the equity the choice made
//! keeps, never below 0, in normalised units: in money play per unit of the cube (EMG, what
//! the same decision costs with a 1-cube), in match play the normalised match equity (a pass
//! of a double 1, the loss of a single game at the cube -1), as gnubg and most analysis
//! programs count; in match play also in match winning chances. A loss is *doubtful* from
//! [`DOUBTFUL`], *bad* from [`BAD`] and *very bad* (a blunder) from [`VERY_BAD`].

use serde::Serialize;
use tavla_core::{CubeResponse, GameState, PlayList, Position, Roll};

use crate::cube::{normalise, CubeAnalysis, CubeHolder, PlayWorth};
use crate::met::MatchScore;
use crate::search::Search;
use crate::RankedPlay;

/// A loss from which a decision is doubtful (normalised equity).
pub const DOUBTFUL: f32 = 0.04;
/// A loss from which a decision is bad.
pub const BAD: f32 = 0.08;
/// A loss from which a decision is very bad (a blunder).
pub const VERY_BAD: f32 = 0.16;
/// A cube decision is *close* when the worse of doubling and not doubling (each with the
/// opponent's best answer) costs less than this: such positions, with every actual double,
/// take, pass and beaver and every cube error, are the cube decisions an error rate counts.
pub const CLOSE_CUBE: f32 = 0.16;

/// How bad a decision's loss is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Skill {
    /// Below [`DOUBTFUL`].
    Fine,
    /// From [`DOUBTFUL`].
    Doubtful,
    /// From [`BAD`].
    Bad,
    /// From [`VERY_BAD`].
    VeryBad,
}

impl Skill {
    /// The skill of a decision that lost `loss` (normalised equity).
    #[must_use]
    pub fn of(loss: f32) -> Skill {
        if loss >= VERY_BAD {
            Skill::VeryBad
        } else if loss >= BAD {
            Skill::Bad
        } else if loss >= DOUBTFUL {
            Skill::Doubtful
        } else {
            Skill::Fine
        }
    }

    /// Its mark in a listing: nothing, `?!`, `?` or `??`.
    #[must_use]
    pub const fn mark(self) -> &'static str {
        match self {
            Skill::Fine => "",
            Skill::Doubtful => "?!",
            Skill::Bad => "?",
            Skill::VeryBad => "??",
        }
    }
}

/// What a checker play cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayReview {
    /// The number of legal plays (distinct resulting positions); a review is made only when
    /// there are two or more.
    pub plays: usize,
    /// The position the best play leaves (the mover's view).
    pub best: Position,
    /// Its value for the mover (normalised; see the module's documentation).
    pub best_value: f32,
    /// The value of the play made, at the same depth.
    pub played_value: f32,
    /// `best_value - played_value`, at least 0.
    pub loss: f32,
    /// In match play, the loss in the mover's match winning chances.
    pub loss_mwc: Option<f32>,
    /// The play made's place among the plays searched deepest (1 the best); `None` when the
    /// filters dropped it before the last depth (it is then valued at the full depth alone).
    pub rank: Option<usize>,
    /// The depth of the values.
    pub ply: u8,
}

/// What a cube decision cost: the doubler's (to double or not) or the doubled side's (take,
/// pass or beaver), with the analysis it was judged by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeReview {
    /// The cube analysis from the doubler's side, before its roll.
    pub analysis: CubeAnalysis,
    /// The loss of the decision made (normalised, per unit of the cube before the double).
    pub loss: f32,
    /// In match play, the loss in the decider's match winning chances.
    pub loss_mwc: Option<f32>,
    /// Whether the decision counts for an error rate (see [`CLOSE_CUBE`]).
    pub counted: bool,
}

impl Search {
    /// What playing to `played` (the position the play left, the mover's view) with `roll`
    /// cost the side on roll of `state`, by the plays' values at `ply`: all plays are ranked
    /// at 0-ply, the search's filters keep the best few for each depth, and the play made is
    /// valued at `ply` whether or not they kept it. A play is valued as the players rank
    /// plays ([`PlayWorth`]), but in money play by the cubeful equity whenever `cube` says the
    /// game is played with the cube, turned or not. `None` when the roll leaves one play or
    /// none, or `played` is not one of them.
    pub fn review_play(
        &mut self,
        state: &GameState,
        roll: Roll,
        played: &Position,
        ply: u8,
        cube: bool,
    ) -> Option<PlayReview> {
        let mut plays = PlayList::new();
        state.position.legal_plays(roll, &mut plays);
        if plays.len() <= 1 {
            return None;
        }
        let index = plays.positions().iter().position(|p| p == played)?;
        let worth = match PlayWorth::of(state) {
            // The cube in play from the first roll; a cube at its highest cannot be turned
            // again, and its game is played out cubeless.
            PlayWorth::Cubeless if cube && state.cube.log2 < tavla_core::Cube::MAX_LOG2 => {
                PlayWorth::Cubeful(CubeHolder::of(state))
            }
            w => w,
        };
        let mut ranked: Vec<RankedPlay> = Vec::new();
        self.rank_plays_worth(&plays, ply, &mut ranked, worth);
        let deepest = ranked[0].ply;
        let positions = plays.positions();
        let best = ranked[0];
        let rank = ranked
            .iter()
            .take_while(|r| r.ply == deepest)
            .position(|r| r.index == index)
            .map(|i| i + 1);
        let played_probs = match rank {
            Some(i) => ranked[i - 1].probs,
            None => self.play_probs(played, deepest),
        };
        let best_value = self.play_value(worth, &positions[best.index], best.probs);
        let played_value = self.play_value(worth, played, played_probs);
        // The play made may value above the filters' choice once searched as deep.
        let (best_pos, best_probs, best_value) = if played_value > best_value {
            (*played, played_probs, played_value)
        } else {
            (positions[best.index], best.probs, best_value)
        };
        let bearoff = self.bearoff().map(|b| &**b);
        let loss_mwc = worth
            .match_chance(&best_pos, best_probs, bearoff)
            .zip(worth.match_chance(played, played_probs, bearoff))
            .map(|(best, played)| (best - played).max(0.0));
        Some(PlayReview {
            plays: plays.len(),
            best: best_pos,
            best_value,
            played_value,
            loss: (best_value - played_value).max(0.0),
            loss_mwc,
            rank,
            ply: deepest,
        })
    }
}

/// What ending a game by resignation cost, by the search: the resigner loses what it gave away
/// beyond what playing on was worth, the side that accepted what it took short of it. At most
/// one of the two losses is above 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResignationReview {
    /// Playing on, for the resigner (normalised, as a loss is).
    pub playing_on: f32,
    /// The resignation, for the resigner, in the same units: in money play minus its points
    /// over the cube's value.
    pub resigned: f32,
    /// The resigner's loss: `playing_on - resigned`, at least 0.
    pub resigner_loss: f32,
    /// The accepting side's loss: `resigned - playing_on`, at least 0.
    pub accepter_loss: f32,
    /// In match play, the resigner's and the accepting side's losses in match winning
    /// chances.
    pub loss_mwc: Option<[f32; 2]>,
}

impl Search {
    /// What resigning `points` (the points given to the winner, the cube's value included) in
    /// `state` cost, by [`Search::resignation_worth`] at `ply`: the resigner is the side on
    /// roll of `state` when `resigner_on_roll`, else its opponent, who accepted; `cube` as
    /// for [`Search::resignation_worth`]. `None` when `points` is not 1, 2 or 3 times the
    /// cube's value, or the state's score is not a match score tavla's table holds.
    pub fn review_resignation(
        &mut self,
        state: &GameState,
        resigner_on_roll: bool,
        points: u32,
        cube: bool,
        ply: u8,
    ) -> Option<ResignationReview> {
        let value = state.cube.value();
        if points == 0 || points % value != 0 || points / value > 3 {
            return None;
        }
        let resigner = if resigner_on_roll {
            state.turn
        } else {
            state.turn.other()
        };
        let score = MatchScore::of(state, resigner);
        if state.match_length > 0 && score.is_none() {
            return None;
        }
        let on_roll = self.resignation_worth(state, cube, ply).playing_on;
        let review = |playing_on: f32, resigned: f32| ResignationReview {
            playing_on,
            resigned,
            resigner_loss: (playing_on - resigned).max(0.0),
            accepter_loss: (resigned - playing_on).max(0.0),
            loss_mwc: None,
        };
        Some(match score {
            None => {
                let unit = value as f32;
                let playing_on = if resigner_on_roll { on_roll } else { -on_roll };
                review(playing_on / unit, -(points as f32) / unit)
            }
            Some(s) => {
                let playing_on = if resigner_on_roll {
                    on_roll
                } else {
                    1.0 - on_roll
                };
                let resigned = s.after(0, points);
                ResignationReview {
                    loss_mwc: Some([
                        (playing_on - resigned).max(0.0),
                        (resigned - playing_on).max(0.0),
                    ]),
                    ..review(
                        normalise(s, value, playing_on),
                        normalise(s, value, resigned),
                    )
                }
            }
        })
    }
}

/// The doubler's side of a cube decision: what doubling (`doubled`) or not cost, by the
/// analysis `a` from its side. Doubling is worth the opponent's best answer: the smaller of
/// taking and passing, and of beavering too when `beavers`.
#[must_use]
pub fn review_double(a: &CubeAnalysis, doubled: bool, beavers: bool) -> CubeReview {
    let answer = |dt: f32, dp: f32| {
        let best = dt.min(dp);
        if beavers && 2.0 * dt < best {
            2.0 * dt
        } else {
            best
        }
    };
    let doubling = answer(a.double_take, a.double_pass);
    let best = a.no_double.max(doubling);
    let made = if doubled { doubling } else { a.no_double };
    let loss = (best - made).max(0.0);
    let loss_mwc = a.match_winning_chances.map(|[nd, dt, dp]| {
        let doubling = dt.min(dp);
        let made = if doubled { doubling } else { nd };
        (nd.max(doubling) - made).max(0.0)
    });
    CubeReview {
        analysis: *a,
        loss,
        loss_mwc,
        counted: doubled || loss > 0.0 || (a.no_double - doubling).abs() < CLOSE_CUBE,
    }
}

/// The doubled side's answer `response` to a double, by the analysis `a` from the doubler's
/// side (its equities are the doubler's: the doubled side wants them small). A beaver is
/// worth twice the take to both. Every answer counts for an error rate.
#[must_use]
pub fn review_answer(a: &CubeAnalysis, response: CubeResponse, beavers: bool) -> CubeReview {
    let (dt, dp) = (a.double_take, a.double_pass);
    let value = |r: CubeResponse| match r {
        CubeResponse::Take => dt,
        CubeResponse::Pass => dp,
        CubeResponse::Beaver => 2.0 * dt,
    };
    let mut best = dt.min(dp);
    if beavers || response == CubeResponse::Beaver {
        best = best.min(2.0 * dt);
    }
    let loss = (value(response) - best).max(0.0);
    let loss_mwc = a.match_winning_chances.map(|[_, dt, dp]| {
        let made = match response {
            CubeResponse::Pass => dp,
            _ => dt,
        };
        (made - dt.min(dp)).max(0.0)
    });
    CubeReview {
        analysis: *a,
        loss,
        loss_mwc,
        counted: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::CubeAction;
    use crate::Weights;
    use tavla_core::{BySide, Cube, CubeOwner, Dice, Side};

    fn search() -> Search {
        Search::new(Weights::shared_default())
    }

    fn money(position: Position) -> GameState {
        GameState::money(position)
    }

    /// A game with the cube is judged by cubeful equity, but a cube at its highest cannot be
    /// turned again: its plays are judged cubeless, as the players choose them.
    #[test]
    fn a_cube_at_its_highest_is_judged_cubeless() {
        let mut s = search();
        let roll = Roll::from_values(3, 1);
        let mut plays = PlayList::new();
        Position::START.legal_plays(roll, &mut plays);
        let played = &plays.positions()[3];
        let mut state = money(Position::START);
        let cubeless = s.review_play(&state, roll, played, 0, false).unwrap();
        let cubeful = s.review_play(&state, roll, played, 0, true).unwrap();
        assert_ne!(cubeless.best_value, cubeful.best_value);
        state.cube = Cube {
            log2: Cube::MAX_LOG2,
            owner: CubeOwner::Side(Side::X),
        };
        let dead = s.review_play(&state, roll, played, 0, true).unwrap();
        assert_eq!(
            (dead.best_value, dead.played_value),
            (cubeless.best_value, cubeless.played_value)
        );
    }

    #[test]
    fn the_best_play_loses_nothing_and_a_blunder_is_very_bad() {
        let mut s = search();
        let state = money(Position::START);
        let roll = Roll::from_values(3, 1);
        let mut plays = PlayList::new();
        Position::START.legal_plays(roll, &mut plays);
        let best = s.review_play(&state, roll, &plays.positions()[0], 1, false);
        let best = best.unwrap();
        // Reviewing the best play found costs nothing.
        let r = s.review_play(&state, roll, &best.best, 1, false).unwrap();
        assert_eq!(r.loss, 0.0);
        assert_eq!(r.rank, Some(1));
        assert_eq!(r.plays, plays.len());
        // 31 played 24/21 24/23 instead of making the 5-point: worse, and valued at 1-ply
        // whether or not the filters kept it.
        let worst = plays
            .positions()
            .iter()
            .min_by(|a, b| {
                let (pa, pb) = (s.play_probs(a, 0), s.play_probs(b, 0));
                pa.equity().total_cmp(&pb.equity())
            })
            .copied()
            .unwrap();
        let r = s.review_play(&state, roll, &worst, 1, false).unwrap();
        assert!(r.loss >= VERY_BAD, "{r:?}");
        assert_eq!(Skill::of(r.loss), Skill::VeryBad);
        assert_eq!(r.ply, 1);
        assert!((r.best_value - r.played_value - r.loss).abs() < 1e-6);
        assert!(r.loss_mwc.is_none());
    }

    #[test]
    fn forced_plays_are_not_reviewed() {
        let mut s = search();
        // A checker on the bar against a closed board has no play at all.
        let mut b = [0i8; 26];
        b[tavla_core::BAR] = 1;
        b[1] = 14;
        b[19..=24].fill(-2);
        b[18] = -3;
        let pos = Position::try_from(b).unwrap();
        let state = money(pos);
        assert!(s
            .review_play(&state, Roll::from_values(6, 5), &pos, 1, false)
            .is_none());
    }

    #[test]
    fn cube_reviews_charge_the_wrong_action() {
        // A double-pass: doubling is right, the opponent should pass.
        let a = CubeAnalysis {
            efficiency: 0.7,
            no_double: 0.8,
            double_take: 1.6,
            double_pass: 1.0,
            action: CubeAction::DoublePass,
            match_winning_chances: None,
        };
        let missed = review_double(&a, false, false);
        assert!((missed.loss - 0.2).abs() < 1e-6 && missed.counted);
        assert_eq!(review_double(&a, true, false).loss, 0.0);
        assert!((review_answer(&a, CubeResponse::Take, false).loss - 0.6).abs() < 1e-6);
        assert_eq!(review_answer(&a, CubeResponse::Pass, false).loss, 0.0);
        // A take that should be a beaver: the double takes to -0.2 for the doubler.
        let b = CubeAnalysis {
            no_double: 0.1,
            double_take: -0.2,
            action: CubeAction::NoDoubleTake,
            ..a
        };
        let wrong = review_double(&b, true, false);
        assert!((wrong.loss - 0.3).abs() < 1e-6);
        assert!((review_double(&b, true, true).loss - 0.5).abs() < 1e-6);
        assert!((review_answer(&b, CubeResponse::Take, true).loss - 0.2).abs() < 1e-6);
        assert_eq!(review_answer(&b, CubeResponse::Beaver, true).loss, 0.0);
        assert!((review_answer(&b, CubeResponse::Pass, false).loss - 1.2).abs() < 1e-6);
        // Not doubling costs nothing, and the decision is not close: doubling (into the
        // take) would cost 0.3, more than CLOSE_CUBE.
        let no = review_double(&b, false, false);
        assert_eq!(no.loss, 0.0);
        assert!(!no.counted);
    }

    #[test]
    fn match_play_reviews_carry_match_winning_chances() {
        let mut s = search();
        let state = GameState {
            position: Position::START,
            turn: Side::X,
            dice: Dice::NotRolled,
            cube: Cube {
                log2: 0,
                owner: CubeOwner::Centre,
            },
            score: BySide { x: 2, o: 4 },
            match_length: 7,
            crawford: false,
            jacoby: false,
            beavers: false,
        };
        let roll = Roll::from_values(6, 4);
        let mut plays = PlayList::new();
        Position::START.legal_plays(roll, &mut plays);
        let mut worst = (0.0f32, 0.0f32);
        for after in plays.positions() {
            let r = s.review_play(&state, roll, after, 0, true).unwrap();
            let mwc = r.loss_mwc.unwrap();
            assert!(mwc >= 0.0 && (mwc > 0.0) == (r.loss > 0.0), "{r:?}");
            if r.loss > worst.0 {
                worst = (r.loss, mwc);
            }
        }
        assert!(worst.0 > BAD && worst.1 > 0.01, "{worst:?}");
    }

    /// The side on roll has all fifteen checkers on its ace point and the opponent bears off
    /// its last two next roll; every roll of the side bears off two first: a sure single loss.
    fn sure_single_loss() -> Position {
        let mut b = [0i8; 26];
        b[1] = 15;
        b[24] = -2;
        Position::try_from(b).unwrap()
    }

    #[test]
    fn a_resignation_costs_what_it_gives_away_beyond_playing_on() {
        let mut s = search();
        let lost = money(sure_single_loss());
        // Resigning the single game the side surely loses costs neither side anything;
        // resigning a gammon there gives away a whole point more.
        let single = s.review_resignation(&lost, true, 1, true, 1).unwrap();
        assert!((single.playing_on + 1.0).abs() < 0.01, "{single:?}");
        assert!(single.resigner_loss < 0.01 && single.accepter_loss < 0.01);
        let gammon = s.review_resignation(&lost, true, 2, true, 1).unwrap();
        assert_eq!(gammon.resigned, -2.0);
        assert!((gammon.resigner_loss - 1.0).abs() < 0.01, "{gammon:?}");
        assert_eq!(gammon.accepter_loss, 0.0);
        // At the cube's value of 4, the same in normalised units.
        let mut four = lost;
        four.cube = Cube {
            log2: 2,
            owner: CubeOwner::Side(Side::X),
        };
        let gammon4 = s.review_resignation(&four, true, 8, true, 1).unwrap();
        assert!((gammon4.resigner_loss - 1.0).abs() < 0.01, "{gammon4:?}");
        // Points that are not a resignation at the cube's value.
        assert!(s.review_resignation(&four, true, 6, true, 1).is_none());
        assert!(s.review_resignation(&lost, true, 4, true, 1).is_none());
        // Resigning at the start gives away a game that is even.
        let start = s
            .review_resignation(&money(Position::START), true, 1, true, 1)
            .unwrap();
        assert!(
            start.resigner_loss > 0.8 && start.accepter_loss == 0.0,
            "{start:?}"
        );
    }

    #[test]
    fn accepting_a_single_game_where_a_gammon_is_sure_costs_the_accepting_side() {
        let mut s = search();
        // The side on roll bears off its last checker with any roll, and the opponent has
        // borne off none: a sure gammon, the opponent resigned a single game.
        let mut b = [0i8; 26];
        b[1] = 1;
        b[24] = -15;
        let won = money(Position::try_from(b).unwrap());
        let r = s.review_resignation(&won, false, 1, true, 1).unwrap();
        assert!((r.playing_on + 2.0).abs() < 0.01, "{r:?}");
        assert!(
            (r.accepter_loss - 1.0).abs() < 0.01 && r.resigner_loss == 0.0,
            "{r:?}"
        );
        // Had it resigned the gammon, neither side would have lost anything.
        let g = s.review_resignation(&won, false, 2, true, 1).unwrap();
        assert!(g.accepter_loss < 0.01 && g.resigner_loss < 0.01, "{g:?}");
    }

    #[test]
    fn a_resignation_in_a_match_is_judged_by_match_winning_chances() {
        let mut s = search();
        let state = GameState {
            score: BySide { x: 2, o: 4 },
            match_length: 7,
            ..money(sure_single_loss())
        };
        let single = s.review_resignation(&state, true, 1, true, 1).unwrap();
        let [resigner, accepter] = single.loss_mwc.unwrap();
        assert!(resigner < 0.001 && accepter < 0.001, "{single:?}");
        // A gammon at 5-away to 3-away costs the resigner the match winning chances between
        // losing one point and losing two; normalised, one point's worth.
        let gammon = s.review_resignation(&state, true, 2, true, 1).unwrap();
        let score = MatchScore::of(&state, Side::X).unwrap();
        let lost = score.after(0, 1) - score.after(0, 2);
        let [resigner, accepter] = gammon.loss_mwc.unwrap();
        assert!(
            (resigner - lost).abs() < 0.001 && accepter == 0.0,
            "{gammon:?}"
        );
        assert!(
            (gammon.resigner_loss - 2.0 * lost / (score.after(1, 0) - score.after(0, 1))).abs()
                < 0.01,
            "{gammon:?}"
        );
    }
}
