//! Match play: tavla's match equity table and the value of a game's results at a match score.
//!
//! A match equity (match winning chance, MWC) is the chance of winning the match. The table
//! ([`MatchEquityTable`]) gives it at the start of a game for every score up to
//! [`MAX_AWAY`]-away, before the Crawford game, in it and after it. tavla computes its own from
//! one model, the same that values its cube decisions ([`crate::cube`]): each game is
//! Janowski's mix of a live and a dead cube (efficiency 0.68) started at even chances, whose
//! wins and losses are gammons in the proportion [`GAMMON_RATE`] and lead to the scores of the
//! table itself; a live cube is doubled at the opponent's take point, recursively up to the
//! level where any win ends the match. A score where one side has reached 1-away plays the
//! Crawford game without the cube, then the post-Crawford games, where the trailer doubles at
//! once (the leader passes when that costs nothing: the free drop).
//!
//! [`MatchScore`] is a score seen from the side on roll: how many points each side needs, and
//! whether this is the Crawford game or after it. [`MatchScore::after`] gives the match equity
//! once a game is won or lost by some points.

use std::sync::OnceLock;

/// The longest match the table covers, in points to go for either side.
pub const MAX_AWAY: usize = 32;

/// The share of wins that are gammons (or backgammons) in the table's model: tavla's own
/// 0-ply self-play, cubeless (`tavla arena --a neural --b neural --games 4000 --seed 5`:
/// 569 gammons and 19 backgammons in 2,000 wins a side, 0.29; rounded down for the games the
/// cube ends early).
pub const GAMMON_RATE: f32 = 0.28;

/// The cube efficiency of the table's model: that of a contact position.
const EFFICIENCY: f32 = 0.68;

/// The leader's chance of winning the game when a post-Crawford trailer first may double
/// (before its first roll, or after its opening play and the leader's reply), as its
/// difference from even chances, with each value's probability: tavla's own 1-ply search over
/// every opening, binned to 0.005 (`tools/met/first-double`: 44 bins of 320 values,
/// their mean 0.4989 taken as 0.5, standard deviation 0.0358). The leader passes where his
/// chance is low enough that the score after a pass is worth more (the free drop), so the
/// trailer's double is worth less to him than an even game would say.
const FIRST_DOUBLE: [(f32, f32); 44] = [
    (-0.085, 0.001852),
    (-0.080, 0.009259),
    (-0.075, 0.005556),
    (-0.070, 0.009259),
    (-0.065, 0.011111),
    (-0.060, 0.016667),
    (-0.055, 0.011111),
    (-0.050, 0.026852),
    (-0.045, 0.025926),
    (-0.040, 0.025926),
    (-0.035, 0.037037),
    (-0.030, 0.045370),
    (-0.025, 0.048148),
    (-0.020, 0.034259),
    (-0.015, 0.018519),
    (-0.010, 0.008333),
    (-0.005, 0.011111),
    (0.000, 0.215741),
    (0.005, 0.146296),
    (0.010, 0.010185),
    (0.015, 0.045370),
    (0.020, 0.007407),
    (0.025, 0.012963),
    (0.030, 0.041667),
    (0.035, 0.037037),
    (0.040, 0.040741),
    (0.045, 0.008333),
    (0.050, 0.012963),
    (0.055, 0.037037),
    (0.060, 0.003704),
    (0.065, 0.004630),
    (0.075, 0.003704),
    (0.080, 0.001852),
    (0.085, 0.000926),
    (0.090, 0.000926),
    (0.095, 0.002778),
    (0.100, 0.005556),
    (0.105, 0.000926),
    (0.110, 0.002778),
    (0.115, 0.001852),
    (0.120, 0.000926),
    (0.125, 0.001852),
    (0.130, 0.001852),
    (0.135, 0.003704),
];

/// A match score from the side on roll: points each side needs, and the Crawford state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatchScore {
    /// Points the side on roll needs (1 or more).
    pub me: u32,
    /// Points the opponent needs (1 or more).
    pub them: u32,
    /// This is the Crawford game: a side has just reached 1-away; no doubling.
    pub crawford: bool,
    /// The Crawford game has been played.
    pub post_crawford: bool,
}

impl MatchScore {
    /// The score of a match of `length` points with the side on roll at `mine` and the
    /// opponent at `theirs`; `crawford` is this game's Crawford flag. `None` when either side
    /// has already won, or needs more than [`MAX_AWAY`].
    #[must_use]
    pub fn new(length: u32, mine: u32, theirs: u32, crawford: bool) -> Option<MatchScore> {
        let me = length.checked_sub(mine).filter(|&n| n >= 1)?;
        let them = length.checked_sub(theirs).filter(|&n| n >= 1)?;
        if me as usize > MAX_AWAY || them as usize > MAX_AWAY {
            return None;
        }
        let at_one = me == 1 || them == 1;
        Some(MatchScore {
            me,
            them,
            crawford: crawford && at_one,
            post_crawford: at_one && !crawford,
        })
    }

    /// The score of a game's state seen from `side`; `None` in money play, or as
    /// [`MatchScore::new`].
    #[must_use]
    pub fn of(state: &tavla_core::GameState, side: tavla_core::Side) -> Option<MatchScore> {
        if state.match_length == 0 {
            return None;
        }
        MatchScore::new(
            state.match_length,
            *state.score.get(side),
            *state.score.get(side.other()),
            state.crawford,
        )
    }

    /// Why the match of `state` has no score in tavla's table, in words: a side that needs
    /// more than [`MAX_AWAY`] points (`None` in money play and at every score the table holds;
    /// a match already won is no game to play).
    #[must_use]
    pub fn beyond_table(state: &tavla_core::GameState) -> Option<String> {
        let away =
            |side: tavla_core::Side| state.match_length.saturating_sub(*state.score.get(side));
        let most = away(state.turn).max(away(state.turn.other()));
        (state.match_length > 0 && most as usize > MAX_AWAY).then(|| {
            format!(
                "the score {}-{} of a {}-point match is beyond tavla's match equity table \
                 ({MAX_AWAY}-away at most)",
                state.score.get(state.turn),
                state.score.get(state.turn.other()),
                state.match_length,
            )
        })
    }

    /// The same score from the other side.
    #[must_use]
    pub fn flip(self) -> MatchScore {
        MatchScore {
            me: self.them,
            them: self.me,
            ..self
        }
    }

    /// Whether the cube may be turned in this game.
    #[must_use]
    pub fn cube_in_play(self) -> bool {
        !self.crawford
    }

    /// The side on roll's match equity at the start of this game.
    #[must_use]
    pub fn equity(self) -> f32 {
        MatchEquityTable::tavla().at(self)
    }

    /// The side on roll's match equity after this game, when it wins `won` points (and loses
    /// none) or loses `lost` (one of the two is 0).
    #[must_use]
    pub fn after(self, won: u32, lost: u32) -> f32 {
        MatchEquityTable::tavla().after(self, won, lost)
    }

    /// The side on roll's take points of a double from `cube` to `2 * cube`: the least
    /// chances of winning the game at which taking is worth as much as passing, with a dead
    /// cube and every game a single (the classic figure), and in the table's model (wins and
    /// losses gammons in the share [`GAMMON_RATE`]) with a dead cube and with a fully live one
    /// (then the taker's, redoubled at the doubler's own take points). `None` where the cube
    /// cannot be turned (the Crawford game) or the double cannot gain (the doubler's win at
    /// `cube` already ends the match).
    #[must_use]
    pub fn take_points(self, cube: u32) -> Option<TakePoints> {
        if !self.can_double(cube) {
            return None;
        }
        let pass = self.after(0, cube);
        let (win, lose) = (self.after(2 * cube, 0), self.after(0, 2 * cube));
        let g = GAMMON_RATE;
        let outcomes = Outcomes {
            win: [1.0 - g, g, 0.0],
            lose: [1.0 - g, g, 0.0],
        };
        let game = Game::new(MatchEquityTable::tavla(), self, &outcomes);
        Some(TakePoints {
            dead_singles: ((pass - lose) / (win - lose)).clamp(0.0, 1.0),
            dead: solve_rising(|p| game.dead(p, 2 * cube), pass),
            live: game.a_take_point(2 * cube),
        })
    }

    /// The side on roll's gammon value with the cube on `cube`: what winning a gammon adds to
    /// winning a single game, in units of the difference between winning and losing a single
    /// game (0.5 in money play, where a gammon wins one point more than a single game and a single
    /// game swings two; 0 where a single win already ends the match).
    #[must_use]
    pub fn gammon_value(self, cube: u32) -> f32 {
        let (single, gammon, lose) = (
            self.after(cube, 0),
            self.after(cube.saturating_mul(2), 0),
            self.after(0, cube),
        );
        (gammon - single) / (single - lose)
    }

    /// Whether the opponent's double from `cube` can be made and can gain: not in the
    /// Crawford game, and not where the opponent's win at `cube` already ends the match.
    fn can_double(self, cube: u32) -> bool {
        cube >= 1 && !self.crawford && cube < self.them && cube <= 1 << (LEVELS - 1)
    }

    /// The side on roll's chance of winning the match when this game, whose cubeless outcome
    /// probabilities are `p`, is played out with the cube on `cube` and never turned again:
    /// each result at its score.
    #[must_use]
    pub fn cubeless_chance(self, p: crate::Probabilities, cube: u32) -> f32 {
        let lose = 1.0 - p.win;
        let wins = [
            p.win - p.win_gammon,
            p.win_gammon - p.win_backgammon,
            p.win_backgammon,
        ];
        let losses = [
            lose - p.lose_gammon,
            p.lose_gammon - p.lose_backgammon,
            p.lose_backgammon,
        ];
        (1..=3u32)
            .zip(wins.iter().zip(&losses))
            .map(|(k, (w, l))| {
                let points = k.saturating_mul(cube);
                w * self.after(points, 0) + l * self.after(0, points)
            })
            .sum::<f32>()
            // A rounding error outside 0..1 at a sure result.
            .clamp(0.0, 1.0)
    }
}

/// A side's take points at a match score ([`MatchScore::take_points`]), as chances of winning
/// the game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TakePoints {
    /// Dead cube, every game a single.
    pub dead_singles: f32,
    /// Dead cube, gammons in the share [`GAMMON_RATE`].
    pub dead: f32,
    /// Fully live cube, gammons in the share [`GAMMON_RATE`].
    pub live: f32,
}

/// Match equities at the start of a game for every score up to [`MAX_AWAY`]-away, from the side
/// that needs `me` points against one that needs `them`.
#[derive(Debug, Clone)]
pub struct MatchEquityTable {
    /// Before the Crawford game, both sides 2-away or more: `pre[me][them]`.
    pre: Vec<[f32; MAX_AWAY + 1]>,
    /// The Crawford game, the side on roll 1-away: `crawford[them]`.
    crawford: [f32; MAX_AWAY + 1],
    /// After the Crawford game, the side on roll 1-away: `post[them]`.
    post: [f32; MAX_AWAY + 1],
}

impl MatchEquityTable {
    /// tavla's table, computed once.
    #[must_use]
    pub fn tavla() -> &'static MatchEquityTable {
        static TABLE: OnceLock<MatchEquityTable> = OnceLock::new();
        TABLE.get_or_init(|| MatchEquityTable::compute(GAMMON_RATE, EFFICIENCY))
    }

    /// The table of the model with wins a gammon in the share `gammon_rate` and cube
    /// efficiency `efficiency`.
    #[must_use]
    pub fn compute(gammon_rate: f32, efficiency: f32) -> MatchEquityTable {
        let mut t = MatchEquityTable {
            pre: vec![[0.0; MAX_AWAY + 1]; MAX_AWAY + 1],
            crawford: [0.0; MAX_AWAY + 1],
            post: [0.0; MAX_AWAY + 1],
        };
        let g = gammon_rate;
        let outcomes = Outcomes {
            win: [1.0 - g, g, 0.0],
            lose: [1.0 - g, g, 0.0],
        };
        // After the Crawford game, 1-away against `them`: the trailer doubles at once (the
        // leader's gammons count for nothing, so the cube costs the trailer nothing), and the
        // leader, seeing his chance `q` of winning the game, takes, or passes where that is
        // worth more (the free drop).
        t.post[1] = 0.5;
        let total: f32 = FIRST_DOUBLE.iter().map(|&(_, w)| w).sum();
        for them in 2..=MAX_AWAY {
            let after = |n: usize| if n == 0 { 0.0 } else { t.post[n] };
            // The leader's match equity when the doubled game is lost.
            let lost =
                (1.0 - g) * after(them.saturating_sub(2)) + g * after(them.saturating_sub(4));
            let pass = t.post[them - 1];
            t.post[them] = FIRST_DOUBLE
                .iter()
                .map(|&(d, w)| {
                    let q = 0.5 + d;
                    w * (q + (1.0 - q) * lost).max(pass)
                })
                .sum::<f32>()
                / total;
        }
        // The Crawford game: no cube.
        t.crawford[1] = 0.5;
        for them in 2..=MAX_AWAY as u32 {
            let score = MatchScore {
                me: 1,
                them,
                crawford: true,
                post_crawford: false,
            };
            t.crawford[them as usize] = t.game_equity(score, &outcomes, 0.5, efficiency);
        }
        // Before it, by the total points to go: every score a game leads to comes first.
        for total in 4..=2 * MAX_AWAY as u32 {
            for me in 2..=(total - 2).min(MAX_AWAY as u32) {
                let them = total - me;
                if !(2..=MAX_AWAY as u32).contains(&them) {
                    continue;
                }
                let score = MatchScore {
                    me,
                    them,
                    crawford: false,
                    post_crawford: false,
                };
                t.pre[me as usize][them as usize] =
                    t.game_equity(score, &outcomes, 0.5, efficiency);
            }
        }
        t
    }

    /// The match equity at the start of a game at `score`.
    #[must_use]
    pub fn at(&self, score: MatchScore) -> f32 {
        let away = |n: u32| (n as usize).clamp(1, MAX_AWAY);
        let (me, them) = (away(score.me), away(score.them));
        match (me, them) {
            (1, 1) => 0.5,
            (1, _) if score.crawford => self.crawford[them],
            (1, _) => self.post[them],
            (_, 1) => 1.0 - self.at(score.flip()),
            _ => self.pre[me][them],
        }
    }

    /// The side on roll's match equity after the game at `score`, when it wins `won` points or
    /// loses `lost`.
    #[must_use]
    pub fn after(&self, score: MatchScore, won: u32, lost: u32) -> f32 {
        let me = score.me.saturating_sub(won);
        let them = score.them.saturating_sub(lost);
        if me == 0 {
            return 1.0;
        }
        if them == 0 {
            return 0.0;
        }
        let at_one = me == 1 || them == 1;
        let was_at_one = score.me == 1 || score.them == 1;
        let next = MatchScore {
            me: me.min(MAX_AWAY as u32),
            them: them.min(MAX_AWAY as u32),
            // The game that first finds a side 1-away is the Crawford game.
            crawford: at_one && !was_at_one,
            post_crawford: at_one && was_at_one,
        };
        self.at(next)
    }

    /// The match equity of a game at `score` started at winning chance `p` with the cube in
    /// the middle (no cube in the Crawford game).
    fn game_equity(&self, score: MatchScore, outcomes: &Outcomes, p: f32, efficiency: f32) -> f32 {
        let game = Game::new(self, score, outcomes);
        if score.cube_in_play() {
            game.centred(p, 1, efficiency)
        } else {
            game.dead(p, 1)
        }
    }
}

/// A game's outcomes: of the wins and of the losses of the side on roll, the shares that are
/// singles, gammons and backgammons (each triple sums to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Outcomes {
    pub win: [f32; 3],
    pub lose: [f32; 3],
}

impl Outcomes {
    /// The shares of a position's cubeless probabilities (all singles where a side cannot
    /// win).
    pub(crate) fn of(p: crate::Probabilities) -> Outcomes {
        let shares = |all: f32, gammon: f32, backgammon: f32| {
            if all <= 1e-6 {
                return [1.0, 0.0, 0.0];
            }
            let bg = (backgammon / all).clamp(0.0, 1.0);
            let g = (gammon / all).clamp(bg, 1.0) - bg;
            [1.0 - g - bg, g, bg]
        };
        Outcomes {
            win: shares(p.win, p.win_gammon, p.win_backgammon),
            lose: shares(p.lose(), p.lose_gammon, p.lose_backgammon),
        }
    }
}

/// Janowski's model of one game at a match score, from the side on roll ("A"); `p` is A's
/// chance of winning, equities are A's match winning chances.
pub(crate) struct Game<'a> {
    table: &'a MatchEquityTable,
    score: MatchScore,
    outcomes: Outcomes,
    /// The highest cube level with values of its own: from `2^top` on every win and every
    /// loss ends the match, so higher levels read this one's.
    top: usize,
    /// `wins[k]`: A's equity when it wins with the cube on `2^k`, over singles, gammons and
    /// backgammons; `losses[k]` when it loses.
    wins: [f32; LEVELS + 2],
    losses: [f32; LEVELS + 2],
    /// `a_cash[k]`: A's equity when B passes A's double from `2^k`; `b_cash[k]` when A passes
    /// B's.
    a_cash: [f32; LEVELS + 2],
    b_cash: [f32; LEVELS + 2],
    /// B's take points of A's doubles to `2^k` (index `k`).
    b_takes: [f32; LEVELS + 1],
    /// A's take points of B's doubles to `2^k`.
    a_takes: [f32; LEVELS + 1],
}

/// Cube levels the model considers: up to `2^LEVELS`.
const LEVELS: usize = 15;

impl<'a> Game<'a> {
    pub(crate) fn new(table: &'a MatchEquityTable, score: MatchScore, outcomes: &Outcomes) -> Self {
        let most = score.me.max(score.them).clamp(1, 1 << LEVELS);
        let top = (most.next_power_of_two().trailing_zeros() as usize).min(LEVELS + 1);
        let mut game = Game {
            table,
            score,
            outcomes: *outcomes,
            top,
            wins: [0.0; LEVELS + 2],
            losses: [0.0; LEVELS + 2],
            a_cash: [0.0; LEVELS + 2],
            b_cash: [0.0; LEVELS + 2],
            b_takes: [1.0; LEVELS + 1],
            a_takes: [0.0; LEVELS + 1],
        };
        for k in 0..=top {
            let v = 1u32 << k;
            game.wins[k] = game.win_at(v);
            game.losses[k] = game.lose_at(v);
            game.a_cash[k] = table.after(score, v, 0);
            game.b_cash[k] = table.after(score, 0, v);
        }
        // From the top down: a take point at 2^k needs those at 2^(k+1).
        for k in (1..=LEVELS).rev() {
            let u = 1u32 << k;
            if game.dead_at(u) {
                continue;
            }
            // B takes while owning the cube on `u` is worth no more to A than B's pass; A
            // takes while owning it is worth no less to A than A's pass.
            game.b_takes[k] = game.take_point(
                |p| game.b_owns(p, u),
                game.owns_knots(u, false),
                game.a_cashes(u / 2),
            );
            game.a_takes[k] = game.take_point(
                |p| game.a_owns(p, u),
                game.owns_knots(u, true),
                game.b_cashes(u / 2),
            );
        }
        game
    }

    /// Where `f`, rising from 0 to 1 through the points `knots` (straight between them),
    /// reaches `target`: 0 or 1 where it stays above or below.
    fn take_point(&self, f: impl Fn(f32) -> f32, knots: [(f32, f32); 3], target: f32) -> f32 {
        if f(0.0) >= target {
            return 0.0;
        }
        if f(1.0) <= target {
            return 1.0;
        }
        for w in knots.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            if y1 >= target && y1 > y0 {
                return (x0 + (target - y0) * (x1 - x0) / (y1 - y0)).clamp(x0, x1);
            }
        }
        1.0
    }

    /// The level of a cube of `v` in the tables of values, `None` for a cube that is no
    /// power of two (valued from the match equity table directly).
    fn level(&self, v: u32) -> Option<usize> {
        v.is_power_of_two()
            .then(|| (v.trailing_zeros() as usize).min(self.top))
    }

    /// A's equity when it wins with the cube on `v`, over singles, gammons and backgammons.
    fn win(&self, v: u32) -> f32 {
        self.level(v)
            .map_or_else(|| self.win_at(v), |k| self.wins[k])
    }

    /// A's equity when it loses with the cube on `v`.
    fn lose(&self, v: u32) -> f32 {
        self.level(v)
            .map_or_else(|| self.lose_at(v), |k| self.losses[k])
    }

    /// [`Game::win`] from the match equity table.
    fn win_at(&self, v: u32) -> f32 {
        (1..=3u32)
            .zip(self.outcomes.win)
            .map(|(k, share)| share * self.table.after(self.score, k * v, 0))
            .sum()
    }

    /// [`Game::lose`] from the match equity table.
    fn lose_at(&self, v: u32) -> f32 {
        (1..=3u32)
            .zip(self.outcomes.lose)
            .map(|(k, share)| share * self.table.after(self.score, 0, k * v))
            .sum()
    }

    /// A's equity when B passes A's double from `v`: A wins `v`.
    pub(crate) fn a_cashes(&self, v: u32) -> f32 {
        self.level(v)
            .map_or_else(|| self.table.after(self.score, v, 0), |k| self.a_cash[k])
    }

    /// A's equity when A passes B's double from `v`.
    fn b_cashes(&self, v: u32) -> f32 {
        self.level(v)
            .map_or_else(|| self.table.after(self.score, 0, v), |k| self.b_cash[k])
    }

    /// Whether doubling to `u` changes nothing any more: every win at the cube before it ends
    /// the match, or the cube is at the model's limit.
    fn dead_at(&self, u: u32) -> bool {
        let half = u / 2;
        (half >= self.score.me && half >= self.score.them) || u > 1 << LEVELS
    }

    /// The dead cube on `v`: the game played out.
    pub(crate) fn dead(&self, p: f32, v: u32) -> f32 {
        p * self.win(v) + (1.0 - p) * self.lose(v)
    }

    /// B's take point of A's double to `u`: the highest chance of A at which B still takes.
    fn b_take_point(&self, u: u32) -> f32 {
        self.b_takes[u.trailing_zeros() as usize]
    }

    /// A's take point of B's double to `u`: the lowest chance of A at which A still takes.
    fn a_take_point(&self, u: u32) -> f32 {
        self.a_takes[u.trailing_zeros() as usize]
    }

    /// The points through which A's equity with the cube on `v` owned by A (`a_owns`) or by B
    /// runs, straight between them, as A's chance rises from 0 to 1: A's loss, the owner's
    /// cash at the other side's take point of its redouble, A's win (or the dead cube's line
    /// where a redouble cannot gain).
    fn owns_knots(&self, v: u32, a_owns: bool) -> [(f32, f32); 3] {
        let (lose, win) = (self.lose(v), self.win(v));
        if self.dead_at(2 * v) {
            return [(0.0, lose), (0.5, 0.5 * (lose + win)), (1.0, win)];
        }
        let cash = if a_owns {
            (self.b_take_point(2 * v), self.a_cashes(v))
        } else {
            (self.a_take_point(2 * v), self.b_cashes(v))
        };
        [(0.0, lose), cash, (1.0, win)]
    }

    /// Live cube on `v` owned by A: A redoubles at B's take point.
    pub(crate) fn a_owns(&self, p: f32, v: u32) -> f32 {
        if self.dead_at(2 * v) {
            return self.dead(p, v);
        }
        let [lose, (x, cash), win] = self.owns_knots(v, true);
        if p <= x {
            line(p, lose, (x, cash))
        } else {
            line(p, (x, cash), win).max(cash)
        }
    }

    /// Live cube on `v` owned by B: B redoubles at A's take point.
    pub(crate) fn b_owns(&self, p: f32, v: u32) -> f32 {
        if self.dead_at(2 * v) {
            return self.dead(p, v);
        }
        let [lose, (y, cash), win] = self.owns_knots(v, false);
        if p >= y {
            line(p, (y, cash), win)
        } else {
            line(p, lose, (y, cash)).min(cash)
        }
    }

    /// Live cube on `v` in the middle.
    fn live_centre(&self, p: f32, v: u32) -> f32 {
        if self.dead_at(2 * v) {
            return self.dead(p, v);
        }
        let (y, x) = (self.a_take_point(2 * v), self.b_take_point(2 * v));
        let (a_cash, b_cash) = (self.a_cashes(v), self.b_cashes(v));
        if p < y {
            line(p, (0.0, self.lose(v)), (y, b_cash)).min(b_cash)
        } else if p > x {
            line(p, (x, a_cash), (1.0, self.win(v))).max(a_cash)
        } else {
            line(p, (y, b_cash), (x, a_cash))
        }
    }

    /// Janowski's mix for the cube on `v` in the middle.
    pub(crate) fn centred(&self, p: f32, v: u32, efficiency: f32) -> f32 {
        efficiency * self.live_centre(p, v) + (1.0 - efficiency) * self.dead(p, v)
    }

    /// Janowski's mix for the cube on `v` owned by A.
    pub(crate) fn owned(&self, p: f32, v: u32, efficiency: f32) -> f32 {
        efficiency * self.a_owns(p, v) + (1.0 - efficiency) * self.dead(p, v)
    }

    /// Janowski's mix for the cube on `v` owned by B.
    pub(crate) fn theirs(&self, p: f32, v: u32, efficiency: f32) -> f32 {
        efficiency * self.b_owns(p, v) + (1.0 - efficiency) * self.dead(p, v)
    }
}

/// The point on the line through `(x0, y0)` and `(x1, y1)` at `x` (the mean of the ends when
/// they share their `x`).
fn line(x: f32, (x0, y0): (f32, f32), (x1, y1): (f32, f32)) -> f32 {
    if (x1 - x0).abs() < 1e-9 {
        return 0.5 * (y0 + y1);
    }
    y0 + (y1 - y0) * (x - x0) / (x1 - x0)
}

/// The `p` in 0..=1 where the rising function `f` reaches `target` (0 or 1 when it stays above
/// or below), by bisection.
fn solve_rising(f: impl Fn(f32) -> f32, target: f32) -> f32 {
    if f(0.0) >= target {
        return 0.0;
    }
    if f(1.0) <= target {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pre(me: u32, them: u32) -> f32 {
        MatchScore {
            me,
            them,
            crawford: false,
            post_crawford: false,
        }
        .equity()
    }

    #[test]
    fn the_table_is_symmetric_and_rises_with_the_lead() {
        for me in 2..=15 {
            for them in 2..=15 {
                let (a, b) = (pre(me, them), pre(them, me));
                assert!((a + b - 1.0).abs() < 2e-3, "{me} {them}: {a} + {b}");
                assert!(pre(me, them + 1) > a, "{me} {them}");
                assert!(pre(me + 1, them) < a, "{me} {them}");
            }
            assert!((pre(me, me) - 0.5).abs() < 1e-3);
        }
    }

    fn score(me: u32, them: u32) -> MatchScore {
        MatchScore {
            me,
            them,
            crawford: false,
            post_crawford: me == 1 || them == 1,
        }
    }

    #[test]
    fn take_points_and_gammon_values_follow_from_the_table() {
        // 2-away 2-away: a double is for the match; a pass leaves the taker 2-away against
        // 1-away in the Crawford game, so that is its take point; its single win leads to the
        // other side of the Crawford game, its gammon wins the match.
        let even = score(2, 2);
        let crawford = |me, them| MatchScore {
            me,
            them,
            crawford: true,
            post_crawford: false,
        };
        let trailer = crawford(2, 1).equity();
        assert!((even.take_points(1).unwrap().dead_singles - trailer).abs() < 1e-5);
        let leader = crawford(1, 2).equity();
        let gv = (1.0 - leader) / (leader - trailer);
        assert!((even.gammon_value(1) - gv).abs() < 1e-4);
        // After the Crawford game, 1-away against 2-away: the trailer's double is for the
        // match, and a pass leaves double match point, so the leader needs half its games.
        let post = score(1, 2);
        assert!((post.take_points(1).unwrap().dead_singles - 0.5).abs() < 1e-3);
        // The leader's gammons count for nothing there.
        assert!(post.gammon_value(1).abs() < 1e-6);
        // No double in the Crawford game, nor where the cube already decides the match.
        assert_eq!(crawford(1, 3).take_points(1), None);
        assert_eq!(score(2, 2).take_points(2), None);
        // Far from the end a match plays like money: a dead cube takes at 25% (losing 1 or
        // risking 2 to win 2) when every game is single; with gammons at 28% a side, at
        // (L - 1/2) / (W + L) = 0.78 / 2.56 dead and, live, Janowski's (L - 1/2) / (W + L +
        // 1/2) = 0.78 / 3.06; a gammon's point is worth half a single game's swing.
        let long = score(25, 25).take_points(1).unwrap();
        assert!((long.dead_singles - 0.25).abs() < 0.01, "{long:?}");
        assert!((long.dead - 0.78 / 2.56).abs() < 0.01, "{long:?}");
        assert!((long.live - 0.78 / 3.06).abs() < 0.01, "{long:?}");
        let gv = score(25, 25).gammon_value(1);
        assert!((gv - 0.5).abs() < 0.05, "{gv}");
    }

    #[test]
    fn crawford_and_post_crawford_scores() {
        let t = MatchEquityTable::tavla();
        // 1-away against 2-away after the Crawford game: the trailer doubles at once, and the
        // leader takes, playing one game for the match (his gammons do not count; the
        // trailer's are not needed), or passes to play at double match point, 50%, when his
        // chance of winning the game is below that (the free drop): his match equity is the
        // mean of the larger of the two. gnubg's default table (Kazaross XG2) has 51.2%.
        let post = |them| MatchScore {
            me: 1,
            them,
            crawford: false,
            post_crawford: true,
        };
        let total: f32 = FIRST_DOUBLE.iter().map(|&(_, w)| w).sum();
        let free_drop: f32 = FIRST_DOUBLE
            .iter()
            .map(|&(d, w)| w * d.max(0.0))
            .sum::<f32>()
            / total;
        assert!(
            (t.at(post(2)) - (0.5 + free_drop)).abs() < 1e-5,
            "{}",
            t.at(post(2))
        );
        assert!((t.at(post(2)) - 0.512).abs() < 0.003, "{}", t.at(post(2)));
        // The openings' chances: a distribution about even chances.
        assert!((total - 1.0).abs() < 1e-4, "{total}");
        let mean: f32 = FIRST_DOUBLE.iter().map(|&(d, w)| w * d).sum::<f32>() / total;
        assert!(mean.abs() < 1e-3, "{mean}");
        // In the Crawford game against 2-away, the leader wins the match half the time at
        // once, and otherwise, unless it lost a gammon, plays 1-away against 1-away.
        let crawford = MatchScore {
            me: 1,
            them: 2,
            crawford: true,
            post_crawford: false,
        };
        let want = 0.5 + 0.5 * (1.0 - GAMMON_RATE) * 0.5;
        assert!(
            (crawford.equity() - want).abs() < 1e-3,
            "{}",
            crawford.equity()
        );
        // The leader's chances fall as the trailer needs less; without the free drop an even
        // score would be worth no more to the leader than the odd one below it (the trailer's
        // doubled win takes both to the same score), with it, more.
        for them in 2..15 {
            assert!(t.at(post(them + 1)) >= t.at(post(them)) - 1e-6, "{them}");
        }
        for them in [1, 3, 5, 7] {
            assert!(t.at(post(them + 1)) > t.at(post(them)) + 0.004, "{them}");
        }
    }

    #[test]
    fn scores_from_a_match() {
        // 5-point match at 1-3: the side on roll needs 4, the opponent 2.
        let s = MatchScore::new(5, 1, 3, false).unwrap();
        assert_eq!(
            (s.me, s.them, s.crawford, s.post_crawford),
            (4, 2, false, false)
        );
        assert!(s.equity() < 0.5);
        // 4-2 in a 5-point match with the Crawford flag: the Crawford game.
        let c = MatchScore::new(5, 4, 2, true).unwrap();
        assert!(c.crawford && !c.post_crawford);
        let p = MatchScore::new(5, 4, 2, false).unwrap();
        assert!(!p.crawford && p.post_crawford);
        assert!(MatchScore::new(5, 5, 2, false).is_none());
        // Winning 2 at 4-away against 2-away leaves 2-away all: 0.5.
        assert!((s.after(2, 0) - 0.5).abs() < 1e-3);
        assert_eq!(s.after(0, 2), 0.0);
        assert_eq!(s.after(4, 0), 1.0);
    }
}
