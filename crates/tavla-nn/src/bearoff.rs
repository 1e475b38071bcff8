//! Exact race values from tavla's two-sided bearoff database.
//!
//! When both sides have all their remaining checkers in their home boards and no more than the
//! database holds (8 on six points for the default database), the cubeless probability of
//! winning is exact ([`tavla_bearoff::TwoSidedDb`]); with at most 8 checkers left each side has
//! borne off at least 7, so no gammon is possible and the other four fields are zero.

use tavla_bearoff::{OneSided, TwoSidedDb};
use tavla_core::Position;

use crate::probs::Probabilities;

/// A two-sided bearoff database as an exact evaluator of the positions it covers.
#[derive(Debug)]
pub struct ExactRace {
    db: TwoSidedDb,
}

impl ExactRace {
    /// Wraps `db`.
    #[must_use]
    pub fn new(db: TwoSidedDb) -> ExactRace {
        ExactRace { db }
    }

    /// The default two-sided database (6 points, 8 checkers), built on first use and cached
    /// (see `tavla_bearoff::cache`).
    ///
    /// # Errors
    /// When the cached file cannot be read or written.
    pub fn default_database() -> Result<ExactRace, tavla_bearoff::DbError> {
        let (db, _) = tavla_bearoff::cache::default_two_sided()?;
        Ok(ExactRace::new(db))
    }

    /// The exact probabilities of `pos` for the side on roll, before it rolls, when the database
    /// covers it; `None` otherwise (contact, checkers outside the home boards, too many
    /// checkers, or a finished game).
    #[must_use]
    pub fn probe(&self, pos: &Position) -> Option<Probabilities> {
        let points = self.db.points();
        let max = self.db.checkers() as u8;
        if pos.is_game_over() || 15 - pos.off() > max || 15 - pos.opponent_off() > max {
            return None;
        }
        let b = pos.signed_board();
        if b[tavla_core::BAR] != 0 || b[tavla_core::OPPONENT_BAR] != 0 {
            return None;
        }
        let mut mine = [0u8; 6];
        let mut theirs = [0u8; 6];
        for p in 1..=24usize {
            let n = b[p];
            if n > 0 {
                if p > points.min(6) {
                    return None;
                }
                mine[p - 1] = n as u8;
            } else if n < 0 {
                let q = 25 - p;
                if q > points.min(6) {
                    return None;
                }
                theirs[q - 1] = (-n) as u8;
            }
        }
        let me = OneSided::new(&mine).ok()?;
        let opp = OneSided::new(&theirs).ok()?;
        let win = self.db.win_probability(&me, &opp).ok()? as f32;
        Some(Probabilities {
            win,
            ..Probabilities::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covered_races_are_exact_and_others_are_not_probed() {
        let (db, _) = TwoSidedDb::build(6, 3).unwrap();
        let exact = ExactRace::new(db);
        // One checker each on the ace point: the side on roll wins.
        let mut b = [0i8; 26];
        b[1] = 1;
        b[24] = -1;
        let pos = Position::try_from(b).unwrap();
        assert_eq!(exact.probe(&pos).unwrap().win, 1.0);
        // Side on roll: one checker on its 6-point; opponent: one on its ace point. The side
        // on roll wins only if it bears off at once.
        let mut b = [0i8; 26];
        b[6] = 1;
        b[24] = -1;
        let pos = Position::try_from(b).unwrap();
        let p = exact.probe(&pos).unwrap();
        assert!(p.win > 0.0 && p.win < 1.0);
        assert_eq!(p.win_gammon, 0.0);
        // Contact or too many checkers: not covered.
        assert!(exact.probe(&Position::START).is_none());
        let mut b = [0i8; 26];
        b[1] = 4;
        b[24] = -1;
        assert!(exact.probe(&Position::try_from(b).unwrap()).is_none());
    }
}
