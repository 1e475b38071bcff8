//! The evaluation itself.

use std::fmt;
use std::sync::Arc;

use tavla_core::Position;

use super::HeuristicConfig;

/// A race evaluator that can stand in for the pip lead once contact is broken, such as a bearoff
/// database; see [`HeuristicEval::with_race`].
pub trait RaceEval: Send + Sync {
    /// The lead of the side whose checkers are positive in `pos`, in pips (for example
    /// `(opponent's expected rolls - own expected rolls) * 49 / 6`), when this evaluator covers
    /// the position; `None` otherwise, and the pip lead is used.
    ///
    /// Called only for positions without contact. The side whose checkers are positive is on
    /// roll in `pos` as stored, whatever the caller's own convention.
    fn race_lead(&self, pos: &Position) -> Option<f64>;
}

/// The terms of one evaluation, for the side whose checkers are positive in the position.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Terms {
    /// Whether the sides are still in contact (the side's rearmost checker is behind the
    /// opponent's rearmost one). Without contact only `lead` and `race` are non-zero.
    pub contact: bool,
    /// The pip lead (opponent's pips minus the side's), or a [`RaceEval`]'s lead in a race.
    pub lead: f64,
    /// The connected blocks: `(k * cbp) ^ cb` summed over the runs of `k` made points.
    pub blocks: f64,
    /// The blots, negative: `-n / bf` or `-n / bfp` for each blot with number `n > bt`.
    pub blots: f64,
    /// The run-or-block term, `lead * rb`, when it applies.
    pub run_or_block: f64,
    /// The race terms: checkers borne off and checkers in the home board.
    pub race: f64,
}

impl Terms {
    /// The score: the sum of the terms.
    #[must_use]
    pub fn total(&self) -> f64 {
        self.lead + self.structure()
    }

    /// The score without the lead: what the article calls "evaluate checkers".
    #[must_use]
    pub fn structure(&self) -> f64 {
        self.blocks + self.blots + self.run_or_block + self.race
    }
}

/// The seed article's hand-made evaluation, ready to use: the constants of a
/// [`HeuristicConfig`] turned into tables. Cheap to clone; evaluating allocates nothing.
///
/// **Perspective.** Every method scores the position for the side whose checkers are positive
/// in it, that is the side on roll of the [`Position`] as stored. For the positions of a
/// [`tavla_core::PlayList`] (not flipped yet) that is the side that has just moved, which is
/// what choosing a play needs. Higher is better for that side.
///
/// ```
/// use tavla_core::{PlayList, Position, Roll};
/// use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
///
/// let eval = HeuristicEval::new(HeuristicConfig::default());
/// let mut plays = PlayList::new();
/// Position::START.legal_plays(Roll::from_values(3, 1), &mut plays);
/// let best = (0..plays.len())
///     .max_by(|&a, &b| eval.score(&plays.positions()[a]).total_cmp(&eval.score(&plays.positions()[b])))
///     .unwrap();
/// assert_eq!(plays.play(best).to_string(), "8/5 6/5"); // makes the 5-point
/// ```
#[derive(Clone)]
pub struct HeuristicEval {
    config: HeuristicConfig,
    /// `blot_cost[passed][p]`: the cost of a blot on point `p` (1..=24), with `passed` set when
    /// every opponent checker has passed it. Zero at and behind the threshold.
    blot_cost: [[f64; 25]; 2],
    /// `block_value[k]`: the score of a run of `k` made points.
    block_value: [f64; 25],
    race: Option<Arc<dyn RaceEval>>,
}

impl fmt::Debug for HeuristicEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeuristicEval")
            .field("config", &self.config)
            .field("race", &self.race.as_ref().map(|_| "RaceEval"))
            .finish()
    }
}

impl HeuristicEval {
    /// The evaluation with `config`'s constants and the article's race terms.
    #[must_use]
    pub fn new(config: HeuristicConfig) -> HeuristicEval {
        let mut blot_cost = [[0.0; 25]; 2];
        for (passed, divisor) in [(0, config.bf), (1, config.bfp)] {
            for p in 1..=24u8 {
                let n = 25 - p;
                // A zero divisor switches the term off (see `HeuristicConfig`).
                if n > config.bt && divisor != 0.0 {
                    blot_cost[passed][usize::from(p)] = f64::from(n) / divisor;
                }
            }
        }
        let mut block_value = [0.0; 25];
        if config.cbp != 0.0 {
            for (k, v) in block_value.iter_mut().enumerate().skip(1) {
                *v = (k as f64 * config.cbp).powf(config.cb);
            }
        }
        HeuristicEval {
            config,
            blot_cost,
            block_value,
            race: None,
        }
    }

    /// As [`HeuristicEval::new`], with `race` giving the lead in the positions it covers once
    /// contact is broken (a bearoff database, for instance).
    #[must_use]
    pub fn with_race(config: HeuristicConfig, race: Arc<dyn RaceEval>) -> HeuristicEval {
        HeuristicEval {
            race: Some(race),
            ..HeuristicEval::new(config)
        }
    }

    /// The constants.
    #[must_use]
    pub fn config(&self) -> &HeuristicConfig {
        &self.config
    }

    /// The article's evaluation of `pos` for the side whose checkers are positive (the side
    /// that has just moved, for a position from a `PlayList`): lead plus structure.
    #[must_use]
    #[inline]
    pub fn score(&self, pos: &Position) -> f64 {
        self.terms(pos).total()
    }

    /// The score used by the article's look-ahead: [`HeuristicEval::score`] minus the
    /// opponent's structure terms (its blocks, blots, run-or-block and race terms, evaluated
    /// from its side). Same perspective as `score`.
    #[must_use]
    #[inline]
    pub fn balanced_score(&self, pos: &Position) -> f64 {
        self.terms(pos).total() - self.evaluate(&pos.flip(), false).structure()
    }

    /// The score term by term.
    #[must_use]
    #[inline]
    pub fn terms(&self, pos: &Position) -> Terms {
        self.evaluate(pos, true)
    }

    /// Step 1 reads the board into bit masks and pip counts in one branch-free pass; step 2
    /// decides contact from the rearmost checkers; step 3 scores a race, or steps 4 and 5 score
    /// the runs of made points and the blots.
    #[inline]
    fn evaluate(&self, pos: &Position, with_lead: bool) -> Terms {
        let b = pos.signed_board();

        // Step 1. Bit `p` of each mask is point `p` (1..=24); bit 25 of `mine` is the side's
        // bar, bit 0 of `theirs` the opponent's.
        let mut mine = u32::from(b[25] > 0) << 25;
        let mut theirs = u32::from(b[0] < 0);
        let mut made = 0u32;
        let mut blot = 0u32;
        let mut my_pips = 25 * i32::from(b[25]);
        let mut their_pips = -25 * i32::from(b[0]);
        for (p, &n) in b.iter().enumerate().take(25).skip(1) {
            let n = i32::from(n);
            mine |= u32::from(n > 0) << p;
            theirs |= u32::from(n < 0) << p;
            made |= u32::from(n >= 2) << p;
            blot |= u32::from(n == 1) << p;
            my_pips += n.max(0) * p as i32;
            their_pips += (-n).max(0) * (25 - p as i32);
        }
        let pip_lead = f64::from(their_pips - my_pips);

        // Step 2. The side's rearmost checker (25 on the bar, 0 when none is left) and the
        // opponent's, in the side's numbering (0 on the bar, 25 when none is left). Opponent
        // checkers move up the side's numbering, so they have all passed point `p` exactly
        // when `p < opp_back`.
        let my_back = 31 - (mine | 1).leading_zeros();
        let opp_back = (theirs | 1 << 25).trailing_zeros();

        if my_back <= opp_back {
            // Step 3. No contact: a race. Bring the checkers home and bear them off.
            let home: i32 = b[1..=6].iter().map(|&n| i32::from(n.max(0))).sum();
            let lead = if with_lead {
                self.race
                    .as_ref()
                    .and_then(|r| r.race_lead(pos))
                    .unwrap_or(pip_lead)
            } else {
                0.0
            };
            return Terms {
                contact: false,
                lead,
                race: self.config.race.off * f64::from(pos.off())
                    + self.config.race.home * f64::from(home),
                ..Terms::default()
            };
        }

        // Step 4. Each maximal run of made points (the article walks the points from the
        // 24-point down and closes a run at each point that is not made; the sum is the same).
        let mut blocks = 0.0;
        let mut rest = made;
        while rest != 0 {
            let low = rest.trailing_zeros();
            let len = (!(rest >> low)).trailing_zeros();
            blocks += self.block_value[len as usize];
            rest &= !(((1u32 << len) - 1) << low);
        }

        // Step 5. The blots: those every opponent checker has passed (below `opp_back`) at
        // the `bfp` rate, the others at the `bf` rate; the tables hold zero for the blots at or
        // behind the threshold.
        let passed = (1u32 << opp_back) - 1;
        let mut blots = 0.0;
        for (kind, mut set) in [(1, blot & passed), (0, blot & !passed)] {
            while set != 0 {
                let p = set.trailing_zeros() as usize;
                blots -= self.blot_cost[kind][p];
                set &= set - 1;
            }
        }

        // The article keeps the "all passed" flag of the last point it visits, the side's
        // 1-point: the pip lead counts again once no opponent checker is there or on the bar.
        let run_or_block = if opp_back > 1 {
            pip_lead * self.config.rb
        } else {
            0.0
        };
        Terms {
            contact: true,
            lead: if with_lead { pip_lead } else { 0.0 },
            blocks,
            blots,
            run_or_block,
            race: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_core::{Board, PlayList, Roll};

    /// `x` points in the side's numbering, `o` points in the opponent's own; 25 is the bar.
    fn pos(x: &[(usize, u8)], o: &[(usize, u8)]) -> Position {
        let mut b = Board::default();
        for &(p, n) in x {
            b.on_roll[p - 1] += n;
        }
        for &(p, n) in o {
            b.opponent[p - 1] += n;
        }
        Position::try_from(b).unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn start_position_terms_by_hand() {
        // Given the start, with the article's constants.
        let eval = HeuristicEval::new(HeuristicConfig::article());
        let c = HeuristicConfig::article();
        // When evaluated.
        let t = eval.terms(&Position::START);
        // Then: equal pips; four single made points (24, 13, 8, 6), no blots; the opponent is
        // on the side's 1-point, so no run-or-block term.
        assert!(t.contact);
        assert_eq!(t.lead, 0.0);
        assert!(close(t.blocks, 4.0 * c.cbp.powf(c.cb)));
        assert_eq!(t.blots, 0.0);
        assert_eq!(t.run_or_block, 0.0);
        assert_eq!(t.race, 0.0);
        assert!(close(eval.score(&Position::START), t.blocks));
    }

    #[test]
    fn runs_blots_threshold_and_passed_blots() {
        let c = HeuristicConfig::article();
        let eval = HeuristicEval::new(c);
        // Given runs 13, 8-7-6 and 4-3, and blots on 22 (n = 3, at the threshold: free), on 10
        // (n = 15; the opponent's back checker on the side's 2-point has not passed it) and on
        // 1 (n = 24; every opponent checker has passed it).
        let p = pos(
            &[
                (8, 2),
                (7, 2),
                (6, 2),
                (4, 2),
                (3, 2),
                (22, 1),
                (10, 1),
                (1, 1),
                (13, 2),
            ],
            &[(23, 1), (13, 14)], // opponent's 23 = the side's 2-point; its 13 = side's 12
        );
        let t = eval.terms(&p);
        assert!(t.contact);
        let want_blocks = (3.0 * c.cbp).powf(c.cb) + (2.0 * c.cbp).powf(c.cb) + c.cbp.powf(c.cb);
        assert!(close(t.blocks, want_blocks), "{t:?}");
        let want_blots = -(15.0 / c.bf) - (24.0 / c.bfp);
        assert!(close(t.blots, want_blots), "{t:?}");
        // The opponent is not on the side's 1-point or bar: run-or-block applies.
        let (mine, theirs) = p.pips();
        let lead = f64::from(theirs) - f64::from(mine);
        assert!(close(t.run_or_block, lead * c.rb));
        assert!(close(
            t.total(),
            lead + want_blocks + want_blots + lead * c.rb
        ));
    }

    #[test]
    fn an_opponent_on_the_bar_has_passed_nothing() {
        let c = HeuristicConfig::article();
        let eval = HeuristicEval::new(c);
        let p = pos(&[(1, 1), (13, 14)], &[(25, 1), (23, 14)]);
        let t = eval.terms(&p);
        assert!(close(t.blots, -24.0 / c.bf), "{t:?}");
        assert_eq!(t.run_or_block, 0.0);
    }

    #[test]
    fn untrained_is_the_pip_lead_in_contact() {
        let eval = HeuristicEval::new(HeuristicConfig::untrained());
        let p = pos(&[(8, 2), (7, 2), (10, 1), (24, 10)], &[(24, 2), (6, 13)]);
        let (mine, theirs) = p.pips();
        assert_eq!(eval.score(&p), f64::from(theirs) - f64::from(mine));
        // The article's own untrained program counts one per run of made points and every
        // blot's full number.
        let au = HeuristicEval::new(HeuristicConfig::article_untrained());
        let t = au.terms(&p);
        assert_eq!(t.blocks, 2.0); // 8-7 and 24
        assert_eq!(t.blots, -15.0);
    }

    #[test]
    fn race_counts_home_and_off() {
        let eval = HeuristicEval::new(HeuristicConfig::article());
        // Given no contact: the side has 5 off, 6 in the home board, 4 outside.
        let p = pos(&[(6, 3), (2, 3), (9, 4)], &[(3, 15)]);
        let t = eval.terms(&p);
        assert!(!t.contact);
        assert_eq!(t.race, 100.0 * 5.0 + 50.0 * 6.0);
        assert_eq!((t.blocks, t.blots, t.run_or_block), (0.0, 0.0, 0.0));
        let (mine, theirs) = p.pips();
        assert_eq!(t.lead, f64::from(theirs) - f64::from(mine));
    }

    #[test]
    fn a_race_evaluator_replaces_the_lead_where_it_answers() {
        struct Fixed;
        impl RaceEval for Fixed {
            fn race_lead(&self, pos: &Position) -> Option<f64> {
                (pos.off() > 0).then_some(7.5)
            }
        }
        let eval = HeuristicEval::with_race(HeuristicConfig::article(), Arc::new(Fixed));
        let covered = pos(&[(6, 3)], &[(3, 15)]);
        assert_eq!(eval.terms(&covered).lead, 7.5);
        let not_covered = pos(&[(6, 15)], &[(3, 15)]);
        assert_eq!(eval.terms(&not_covered).lead, 45.0 - 90.0);
    }

    #[test]
    fn balanced_score_subtracts_the_opponents_structure() {
        let eval = HeuristicEval::new(HeuristicConfig::article());
        let p = pos(
            &[(8, 2), (6, 3), (13, 10)],
            &[(6, 2), (5, 2), (4, 2), (8, 1), (13, 8)],
        );
        let want = eval.score(&p) - eval.terms(&p.flip()).structure();
        assert!(close(eval.balanced_score(&p), want));
        // Symmetric: balanced(p) = -balanced(flip p).
        assert!(close(
            eval.balanced_score(&p),
            -eval.balanced_score(&p.flip())
        ));
    }

    /// The evaluation written the article's way, point by point, for comparison.
    fn reference_terms(c: &HeuristicConfig, pos: &Position) -> Terms {
        let b = pos.signed_board();
        let (mine, theirs) = pos.pips();
        let lead = f64::from(theirs) - f64::from(mine);
        let my_back = if b[25] > 0 {
            25
        } else {
            (1..=24).rev().find(|&p| b[p] > 0).unwrap_or(0)
        };
        let opp_back = if b[0] < 0 {
            0
        } else {
            (1..=24).find(|&p| b[p] < 0).unwrap_or(25)
        };
        if my_back <= opp_back {
            let home: i32 = b[1..=6].iter().map(|&n| i32::from(n.max(0))).sum();
            return Terms {
                contact: false,
                lead,
                race: c.race.off * f64::from(pos.off()) + c.race.home * f64::from(home),
                ..Terms::default()
            };
        }
        let block = |k: usize| {
            if k == 0 || c.cbp == 0.0 {
                0.0
            } else {
                (k as f64 * c.cbp).powf(c.cb)
            }
        };
        let (mut blocks, mut blots, mut run) = (0.0, 0.0, 0);
        for p in (1..=24usize).rev() {
            if b[p] >= 2 {
                run += 1;
                continue;
            }
            blocks += block(run);
            run = 0;
            let n = 25 - p as u8;
            if b[p] == 1 && n > c.bt {
                let divisor = if p < opp_back { c.bfp } else { c.bf };
                if divisor != 0.0 {
                    blots -= f64::from(n) / divisor;
                }
            }
        }
        blocks += block(run);
        Terms {
            contact: true,
            lead,
            blocks,
            blots,
            run_or_block: if opp_back > 1 { lead * c.rb } else { 0.0 },
            race: 0.0,
        }
    }

    #[test]
    fn fast_evaluation_equals_the_point_by_point_one() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let configs = [
            HeuristicConfig::article(),
            HeuristicConfig::untrained(),
            HeuristicConfig::article_untrained(),
            HeuristicConfig {
                bt: 0,
                bfp: 0.0,
                ..HeuristicConfig::article()
            },
        ];
        let mut list = PlayList::new();
        let mut seen = 0;
        for _ in 0..100 {
            let mut p = Position::START;
            while !p.is_game_over() {
                let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                p.legal_plays(roll, &mut list);
                for q in list.positions() {
                    for c in &configs {
                        let fast = HeuristicEval::new(*c).terms(q);
                        let slow = reference_terms(c, q);
                        assert_eq!(fast.contact, slow.contact);
                        for (a, b) in [
                            (fast.lead, slow.lead),
                            (fast.blocks, slow.blocks),
                            (fast.blots, slow.blots),
                            (fast.run_or_block, slow.run_or_block),
                            (fast.race, slow.race),
                        ] {
                            assert!(close(a, b), "{q:?} {c:?}: {fast:?} {slow:?}");
                        }
                    }
                    seen += 1;
                }
                p = list.positions()[rng.gen_range(0..list.len())].flip();
            }
        }
        assert!(seen > 50_000, "{seen}");
    }

    #[test]
    fn scores_are_finite_over_random_games() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let evals = [
            HeuristicEval::new(HeuristicConfig::article()),
            HeuristicEval::new(HeuristicConfig::untrained()),
            HeuristicEval::new(HeuristicConfig::article_untrained()),
        ];
        let mut list = PlayList::new();
        for _ in 0..50 {
            let mut p = Position::START;
            while !p.is_game_over() {
                let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                p.legal_plays(roll, &mut list);
                for q in list.positions() {
                    for e in &evals {
                        assert!(e.score(q).is_finite() && e.balanced_score(q).is_finite());
                    }
                }
                p = list.positions()[rng.gen_range(0..list.len())].flip();
            }
        }
    }
}
