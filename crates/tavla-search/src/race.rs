//! Race leads from the one-sided bearoff database, for the heuristic evaluation.

use tavla_bearoff::{OneSided, OneSidedDb, PIPS_PER_ROLL};
use tavla_core::Position;
use tavla_eval::heuristic::RaceEval;

/// A [`RaceEval`] backed by a one-sided bearoff database ([`tavla_bearoff::OneSidedDb`]):
/// once both sides have every checker within the database's points (no checker on the bar or
/// further out), the lead is the difference of the expected numbers of rolls to bear off, in
/// pips (times 49/6, [`PIPS_PER_ROLL`]). Elsewhere it gives no answer and the pip lead is used.
///
/// Choosing among plays by this lead bears off as the database plays: minimising the expected
/// number of rolls.
#[derive(Debug)]
pub struct OneSidedRace {
    db: OneSidedDb,
}

impl OneSidedRace {
    /// The race evaluator over `db`.
    #[must_use]
    pub fn new(db: OneSidedDb) -> OneSidedRace {
        OneSidedRace { db }
    }

    /// The database.
    #[must_use]
    pub fn db(&self) -> &OneSidedDb {
        &self.db
    }

    /// Expected rolls to bear off the side's checkers (`sign` 1) or the opponent's (`sign` -1),
    /// or `None` when a checker lies outside the database's points.
    fn mean_rolls(&self, pos: &Position, sign: i8) -> Option<f64> {
        let b = pos.signed_board();
        let points = self.db.points().min(24);
        let mut counts = [0u8; 24];
        for (p, &count) in b.iter().enumerate().take(25).skip(1) {
            let n = count * sign;
            if n > 0 {
                // In the side's own numbering: the opponent's point p is its 25 - p.
                let own = if sign > 0 { p } else { 25 - p };
                if own > points {
                    return None;
                }
                counts[own - 1] = n as u8;
            }
        }
        let side = OneSided::new(&counts[..points]).ok()?;
        Some(self.db.lookup(&side).ok()?.mean_rolls)
    }
}

impl RaceEval for OneSidedRace {
    fn race_lead(&self, pos: &Position) -> Option<f64> {
        if pos.bar() > 0 || pos.opponent_bar() > 0 {
            return None;
        }
        let mine = self.mean_rolls(pos, 1)?;
        let theirs = self.mean_rolls(pos, -1)?;
        Some((theirs - mine) * PIPS_PER_ROLL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_core::{Board, PlayList, Roll};
    use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};

    /// A small database (up to 4 checkers) keeps the tests fast.
    fn race() -> OneSidedRace {
        OneSidedRace::new(OneSidedDb::build(6, 4).unwrap())
    }

    fn position(mine: &[(usize, u8)], theirs: &[(usize, u8)]) -> Position {
        let mut b = Board::default();
        for &(p, n) in mine {
            b.on_roll[p - 1] = n;
        }
        for &(p, n) in theirs {
            b.opponent[p - 1] = n;
        }
        Position::try_from(b).unwrap()
    }

    #[test]
    fn lead_is_the_difference_of_expected_rolls_in_pips() {
        let r = race();
        // One checker on the 1-point against one on the 6-point.
        let p = position(&[(1, 1)], &[(6, 1)]);
        let me = r.db().lookup(&"1".parse().unwrap()).unwrap().mean_rolls;
        let them = r
            .db()
            .lookup(&"0,0,0,0,0,1".parse().unwrap())
            .unwrap()
            .mean_rolls;
        assert_eq!(me, 1.0);
        assert!(them > 1.0);
        assert_eq!(r.race_lead(&p), Some((them - me) * PIPS_PER_ROLL));
        // Mirror.
        assert_eq!(r.race_lead(&p.flip()), Some((me - them) * PIPS_PER_ROLL));
        // A checker outside the home board, or on the bar: no answer.
        assert_eq!(r.race_lead(&position(&[(7, 1)], &[(6, 1)])), None);
        assert_eq!(r.race_lead(&position(&[(1, 1)], &[(7, 1)])), None);
        assert_eq!(r.race_lead(&position(&[(25, 1)], &[(6, 1)])), None);
    }

    #[test]
    fn with_the_database_the_player_bears_off_by_expected_rolls() {
        // 2 checkers on the 6-point and 1 on the 5-point, roll 41: the pip lead sees every
        // play alike (5 pips each, none off), the database prefers the smoothest.
        let eval =
            HeuristicEval::with_race(HeuristicConfig::article(), std::sync::Arc::new(race()));
        let r = race();
        let pos = position(&[(6, 2), (5, 1)], &[(6, 3)]);
        let mut list = PlayList::new();
        pos.legal_plays(Roll::from_values(4, 1), &mut list);
        let rolls_left = |p: &Position| r.mean_rolls(p, 1).unwrap();
        let best_db = list
            .positions()
            .iter()
            .map(rolls_left)
            .fold(f64::INFINITY, f64::min);
        let scores: Vec<f64> = list.positions().iter().map(|p| eval.score(p)).collect();
        let chosen = (0..list.len())
            .max_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(b.cmp(&a)))
            .unwrap();
        assert_eq!(rolls_left(&list.positions()[chosen]), best_db);
        // More checkers than the database holds: no answer.
        assert_eq!(r.race_lead(&position(&[(1, 5)], &[(6, 1)])), None);
    }
}
