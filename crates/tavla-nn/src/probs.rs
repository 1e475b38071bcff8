//! Cubeless outcome probabilities and money equity.

use tavla_core::Outcome;

/// Cubeless outcome probabilities of a game, seen from one side (the side on roll unless a
/// function says otherwise).
///
/// The gammon and backgammon fields are cumulative, as in gnubg: `win_gammon` includes
/// `win_backgammon`, and `win` includes both. So `1 >= win >= win_gammon >= win_backgammon >= 0`
/// and `1 - win >= lose_gammon >= lose_backgammon >= 0`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Probabilities {
    /// Probability of winning (any result).
    pub win: f32,
    /// Probability of winning a gammon or a backgammon.
    pub win_gammon: f32,
    /// Probability of winning a backgammon.
    pub win_backgammon: f32,
    /// Probability of losing a gammon or a backgammon.
    pub lose_gammon: f32,
    /// Probability of losing a backgammon.
    pub lose_backgammon: f32,
}

impl Probabilities {
    /// The exact probabilities of a finished game, from the side the outcome is relative to.
    #[must_use]
    pub fn from_outcome(outcome: Outcome) -> Probabilities {
        let g = if outcome.points >= 2 { 1.0 } else { 0.0 };
        let bg = if outcome.points >= 3 { 1.0 } else { 0.0 };
        if outcome.on_roll_wins {
            Probabilities {
                win: 1.0,
                win_gammon: g,
                win_backgammon: bg,
                lose_gammon: 0.0,
                lose_backgammon: 0.0,
            }
        } else {
            Probabilities {
                win: 0.0,
                win_gammon: 0.0,
                win_backgammon: 0.0,
                lose_gammon: g,
                lose_backgammon: bg,
            }
        }
    }

    /// Probability of losing (any result).
    #[must_use]
    pub fn lose(&self) -> f32 {
        1.0 - self.win
    }

    /// Cubeless money equity: `p(win) - p(lose)` plus one point per gammon and one more per
    /// backgammon, each side. Between -3 and 3.
    #[must_use]
    pub fn equity(&self) -> f32 {
        2.0 * self.win - 1.0 + self.win_gammon - self.lose_gammon + self.win_backgammon
            - self.lose_backgammon
    }

    /// The same probabilities seen from the other side.
    #[must_use]
    pub fn flip(&self) -> Probabilities {
        Probabilities {
            win: 1.0 - self.win,
            win_gammon: self.lose_gammon,
            win_backgammon: self.lose_backgammon,
            lose_gammon: self.win_gammon,
            lose_backgammon: self.win_backgammon,
        }
    }

    /// As an array in field order: win, win gammon, win backgammon, lose gammon, lose backgammon.
    #[must_use]
    pub fn to_array(&self) -> [f32; 5] {
        [
            self.win,
            self.win_gammon,
            self.win_backgammon,
            self.lose_gammon,
            self.lose_backgammon,
        ]
    }

    /// From an array in the order of [`Probabilities::to_array`].
    #[must_use]
    pub fn from_array(a: [f32; 5]) -> Probabilities {
        Probabilities {
            win: a[0],
            win_gammon: a[1],
            win_backgammon: a[2],
            lose_gammon: a[3],
            lose_backgammon: a[4],
        }
    }

    /// Clamps the fields into the consistent ordering described on the type (network outputs
    /// are independent sigmoids and may violate it slightly).
    #[must_use]
    #[allow(
        clippy::manual_clamp,
        reason = "`clamp` panics on a NaN bound, `max` then `min` do not"
    )]
    pub fn consistent(self) -> Probabilities {
        // `max` then `min`, not `clamp`: a NaN output (of weights a fit made diverge) becomes
        // 0 rather than a NaN bound, with which `clamp` panics.
        let win = self.win.max(0.0).min(1.0);
        let win_gammon = self.win_gammon.max(0.0).min(win);
        let win_backgammon = self.win_backgammon.max(0.0).min(win_gammon);
        let lose_gammon = self.lose_gammon.max(0.0).min(1.0 - win);
        let lose_backgammon = self.lose_backgammon.max(0.0).min(lose_gammon);
        Probabilities {
            win,
            win_gammon,
            win_backgammon,
            lose_gammon,
            lose_backgammon,
        }
    }

    /// Weighted sum `self + w * other`, field by field (for averaging over rolls).
    #[must_use]
    pub(crate) fn add_scaled(self, other: &Probabilities, w: f32) -> Probabilities {
        Probabilities {
            win: self.win + w * other.win,
            win_gammon: self.win_gammon + w * other.win_gammon,
            win_backgammon: self.win_backgammon + w * other.win_backgammon,
            lose_gammon: self.lose_gammon + w * other.lose_gammon,
            lose_backgammon: self.lose_backgammon + w * other.lose_backgammon,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equity_of_exact_outcomes() {
        let cases = [
            (true, 1, 1.0),
            (true, 2, 2.0),
            (true, 3, 3.0),
            (false, 1, -1.0),
            (false, 2, -2.0),
            (false, 3, -3.0),
        ];
        for (on_roll_wins, points, eq) in cases {
            let p = Probabilities::from_outcome(Outcome {
                on_roll_wins,
                points,
            });
            assert_eq!(p.equity(), eq);
            assert_eq!(p.flip().equity(), -eq);
        }
    }

    #[test]
    fn flip_is_an_involution() {
        let p = Probabilities {
            win: 0.6,
            win_gammon: 0.2,
            win_backgammon: 0.01,
            lose_gammon: 0.1,
            lose_backgammon: 0.005,
        };
        assert_eq!(p.flip().flip(), p);
        assert!((p.equity() + p.flip().equity()).abs() < 1e-6);
    }

    #[test]
    fn consistent_orders_fields() {
        let p = Probabilities {
            win: 0.3,
            win_gammon: 0.5,
            win_backgammon: 0.6,
            lose_gammon: 0.9,
            lose_backgammon: 1.0,
        }
        .consistent();
        assert!(p.win >= p.win_gammon && p.win_gammon >= p.win_backgammon);
        assert!(p.lose() + 1e-6 >= p.lose_gammon && p.lose_gammon >= p.lose_backgammon);
    }
}
