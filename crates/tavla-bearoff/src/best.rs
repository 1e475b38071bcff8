//! Perfect bearoff play: the legal plays of a roll, ranked by both policies.

use crate::dice::Dice;
use crate::error::ProbeError;
use crate::movegen::{bearoff_plays, BearoffPlay};
use crate::one_sided::OneSidedDb;
use crate::position::OneSided;
use crate::two_sided::TwoSidedDb;

/// A legal play with the numbers behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedPlay {
    /// The play and its result.
    pub play: BearoffPlay,
    /// Expected rolls the mover still needs after the play (0 when it bears off the last
    /// checker).
    pub mean_rolls: f64,
    /// The mover's cubeless winning chance after the play, the opponent on roll and both sides
    /// playing perfectly (1 for a play that bears off the last checker); otherwise `None`
    /// when no two-sided database covers both sides.
    pub win_probability: Option<f64>,
}

/// The legal plays of one roll in a bearoff, under both policies.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The roll.
    pub dice: Dice,
    /// The distinct plays (one per result). Sorted best first by winning chance when
    /// `win_probability` is known, else by expected rolls; ties keep the smaller result index.
    pub plays: Vec<RankedPlay>,
    /// Index in `plays` of the play that minimises the expected rolls (ties: smaller result
    /// index, as in [`PolicyStats`](crate::PolicyStats)).
    pub min_rolls: usize,
    /// Index in `plays` of the play that maximises the winning chances, if known.
    pub max_win: Option<usize>,
    /// The mover's winning chance before rolling, if known.
    pub win_before_roll: Option<f64>,
}

impl Analysis {
    /// The play that minimises the expected number of rolls.
    #[must_use]
    pub fn best_for_rolls(&self) -> &RankedPlay {
        &self.plays[self.min_rolls]
    }

    /// The play that maximises the winning chances, if a two-sided database covers the race.
    #[must_use]
    pub fn best_for_winning(&self) -> Option<&RankedPlay> {
        self.max_win.map(|i| &self.plays[i])
    }

    /// Winning chance the rolls-minimising play gives away, if known (0 when the policies
    /// agree).
    #[must_use]
    pub fn cost_of_min_rolls(&self) -> Option<f64> {
        let best = self.best_for_winning()?.win_probability?;
        Some(best - self.best_for_rolls().win_probability?)
    }
}

/// Ranks the plays of `dice` for the side on roll `me` against `opponent`.
///
/// `os` gives expected rolls (it must cover `me`); `ts`, if given and covering both sides,
/// gives winning chances.
///
/// # Errors
/// [`ProbeError`] when `me` does not fit `os`, or a side has no checkers left.
pub fn analyse(
    me: &OneSided,
    opponent: &OneSided,
    dice: Dice,
    os: &OneSidedDb,
    ts: Option<&TwoSidedDb>,
) -> Result<Analysis, ProbeError> {
    let on_roll = |source| ProbeError::Position {
        side: "player on roll",
        source,
    };
    if me.is_empty() {
        return Err(ProbeError::GameOver {
            side: "player on roll",
        });
    }
    if opponent.is_empty() {
        return Err(ProbeError::GameOver { side: "opponent" });
    }
    let plays = bearoff_plays(os.hash(), me, dice).map_err(on_roll)?;
    // A two-sided database is used only when both sides fit it.
    let ts = ts.filter(|ts| ts.hash().check(me).is_ok() && ts.hash().check(opponent).is_ok());
    let opp_index = match ts {
        Some(ts) => Some(
            ts.hash()
                .rank(opponent)
                .map_err(|source| ProbeError::Position {
                    side: "opponent",
                    source,
                })?,
        ),
        None => None,
    };
    let mut ranked: Vec<RankedPlay> = plays
        .into_iter()
        .map(|play| {
            let mean_rolls = os.mean_rolls_at(play.result_index);
            // A play that bears off the last checker wins, database or not.
            let win_probability = if play.result.is_empty() {
                Some(1.0)
            } else {
                ts.zip(opp_index).map(|(ts, o)| {
                    let r = ts
                        .hash()
                        .rank(&play.result)
                        .expect("a play keeps the shape");
                    1.0 - ts.win_probability_at(o, r)
                })
            };
            RankedPlay {
                play,
                mean_rolls,
                win_probability,
            }
        })
        .collect();
    // `ranked` is in increasing result index; the first minimum wins ties.
    let min_by_rolls = ranked
        .iter()
        .enumerate()
        .fold(None::<(usize, f64)>, |best, (i, p)| match best {
            Some((_, m)) if m <= p.mean_rolls => best,
            _ => Some((i, p.mean_rolls)),
        })
        .map(|(i, _)| ranked[i].play.result_index)
        .expect("a position with checkers has a legal play");
    let win_before_roll = ts
        .zip(opp_index)
        .map(|(ts, o)| ts.win_probability_at(ts.hash().rank(me).expect("checked above"), o));
    if ts.is_some() {
        ranked.sort_by(|a, b| {
            b.win_probability
                .partial_cmp(&a.win_probability)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.play.result_index.cmp(&b.play.result_index))
        });
    } else {
        ranked.sort_by(|a, b| {
            a.mean_rolls
                .partial_cmp(&b.mean_rolls)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.play.result_index.cmp(&b.play.result_index))
        });
    }
    let min_rolls = ranked
        .iter()
        .position(|p| p.play.result_index == min_by_rolls)
        .expect("still there");
    Ok(Analysis {
        dice,
        max_win: ts.map(|_| 0),
        plays: ranked,
        min_rolls,
        win_before_roll,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_policies_rank_the_same_plays() {
        let os = OneSidedDb::build(6, 6).unwrap();
        let (ts, _) = TwoSidedDb::build(6, 4).unwrap();
        let me = OneSided::new(&[0, 0, 1, 1, 0, 1]).unwrap();
        let opp = OneSided::new(&[1, 1]).unwrap();
        let a = analyse(&me, &opp, Dice::new(2, 1).unwrap(), &os, Some(&ts)).unwrap();
        assert!(a.plays.len() > 1);
        let w = a.best_for_winning().unwrap().win_probability.unwrap();
        assert!(a.plays.iter().all(|p| p.win_probability.unwrap() <= w));
        let m = a.best_for_rolls().mean_rolls;
        assert!(a.plays.iter().all(|p| p.mean_rolls >= m));
        assert!(a.cost_of_min_rolls().unwrap() >= 0.0);
        // The winning chance before the roll is the average over the rolls of the best plays.
        let mut avg = 0.0;
        for &(d, wt) in &Dice::ALL_21 {
            let b = analyse(&me, &opp, d, &os, Some(&ts)).unwrap();
            avg += f64::from(wt) / 36.0 * b.best_for_winning().unwrap().win_probability.unwrap();
        }
        assert!((avg - a.win_before_roll.unwrap()).abs() < 1e-6);
    }

    /// Bearing off the last checker wins, with or without a two-sided database for the race.
    #[test]
    fn bearing_off_the_last_checker_wins_without_a_database() {
        let os = OneSidedDb::build(6, 15).unwrap();
        let me = OneSided::new(&[1]).unwrap();
        let opp = OneSided::new(&[9]).unwrap();
        let a = analyse(&me, &opp, Dice::new(6, 1).unwrap(), &os, None).unwrap();
        assert_eq!(a.plays.len(), 1);
        assert_eq!(a.plays[0].win_probability, Some(1.0));
        assert_eq!(a.max_win, None);
    }

    #[test]
    fn without_two_sided_only_rolls() {
        let os = OneSidedDb::build(6, 15).unwrap();
        let (ts, _) = TwoSidedDb::build(6, 2).unwrap();
        let me = OneSided::new(&[0, 0, 0, 0, 0, 15]).unwrap();
        let opp = OneSided::new(&[1]).unwrap();
        let a = analyse(&me, &opp, Dice::new(6, 6).unwrap(), &os, Some(&ts)).unwrap();
        assert_eq!(a.plays.len(), 1);
        assert!(a.best_for_winning().is_none());
        assert!(a.plays[0].win_probability.is_none());
        assert_eq!(
            analyse(&OneSided::EMPTY, &opp, Dice::new(6, 6).unwrap(), &os, None),
            Err(ProbeError::GameOver {
                side: "player on roll"
            })
        );
    }
}
