//! Money-game cube decisions from cubeless probabilities, by Janowski's model.
//!
//! Rick Janowski ("Take-points in money games", 1993) values a position with the cube as a mix
//! of two extremes. With a **dead** cube (nobody can double again) the equity is the cubeless
//! one, `p (W + L) - L`, where `p` is the chance of winning and `W`, `L` are the points a win and
//! a loss are worth on average (gammons and backgammons included). With a fully **live** cube
//! (the position moves smoothly, so a side can double exactly at its opponent's take point) the
//! equity is piecewise linear in `p` between a few fixed points: losing `L` at `p = 0`, `-1` at
//! the take point `(L - 1/2) / (W + L + 1/2)`, `+1` at the cash point `(L + 1) / (W + L + 1/2)`
//! and `W` at `p = 1`, the segments in use depending on who holds the cube. Real positions lie
//! between: the cubeful equity is `x live + (1 - x) dead` with the **cube efficiency** `x`.
//!
//! Equities here are per unit of the current cube, for the side on roll, before it rolls.
//! [`CubeAnalysis::money`] compares not doubling with doubling (the opponent then takes or
//! passes); a doubled side takes when [`CubeAnalysis::double_take`] is at most
//! [`CubeAnalysis::double_pass`] (one point).
//!
//! The efficiencies are tavla's choice from the model's published range (Janowski found about
//! two thirds): 0.68 in contact, and in a race from 0.6 for the side on roll at 30 pips or
//! fewer to 0.7 at 120 or more (a short race swings by whole rolls, so a side cannot double at
//! the right moment as often).
//!
//! In match play ([`CubeAnalysis::match_play`]) the same model works in match winning chances
//! over tavla's match equity table ([`crate::met`]).
//!
//! ```
//! use tavla_core::Position;
//! use tavla_nn::cube::{CubeAction, CubeAnalysis, CubeHolder};
//! use tavla_nn::Probabilities;
//!
//! // A gammonless 70% favourite with the cube in the middle: a double and an easy take.
//! let p = Probabilities { win: 0.7, ..Probabilities::default() };
//! let a = CubeAnalysis::money(&Position::START, p, CubeHolder::Centre, false);
//! assert_eq!(a.action, CubeAction::DoubleTake);
//! assert!(a.double_take < a.double_pass);
//! ```

use tavla_core::{CubeOwner, GameState, Position};

use crate::bearoff::BearoffRace;
use crate::inputs::{phase, Phase};
use crate::met::{Game, MatchEquityTable, MatchScore, Outcomes};
use crate::Probabilities;

/// Who holds the cube, seen from the side on roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CubeHolder {
    /// In the middle: either side may double.
    Centre,
    /// The side on roll owns it and alone may redouble.
    OnRoll,
    /// The opponent owns it: the side on roll cannot double.
    Opponent,
}

impl CubeHolder {
    /// Every holder, in declaration order (the index of each is `holder as usize`).
    pub const ALL: [CubeHolder; 3] = [CubeHolder::Centre, CubeHolder::OnRoll, CubeHolder::Opponent];

    /// The same cube seen from the other side.
    #[must_use]
    pub const fn flip(self) -> CubeHolder {
        match self {
            CubeHolder::Centre => CubeHolder::Centre,
            CubeHolder::OnRoll => CubeHolder::Opponent,
            CubeHolder::Opponent => CubeHolder::OnRoll,
        }
    }

    /// Its name in machine-readable output (JSON): `centre`, `on_roll` or `opponent`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CubeHolder::Centre => "centre",
            CubeHolder::OnRoll => "on_roll",
            CubeHolder::Opponent => "opponent",
        }
    }

    /// The holder in a game's state, seen from the side on roll (`state.turn`).
    #[must_use]
    pub fn of(state: &GameState) -> CubeHolder {
        match state.cube.owner {
            CubeOwner::Centre => CubeHolder::Centre,
            CubeOwner::Side(s) if s == state.turn => CubeHolder::OnRoll,
            CubeOwner::Side(_) => CubeHolder::Opponent,
        }
    }
}

/// The right cube action for the side on roll, with the opponent's answer to a double.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CubeAction {
    /// Not good enough to double; a double would be taken. (When a double would be passed,
    /// the side either cashes or is too good.)
    NoDoubleTake,
    /// Double, and the opponent should take.
    DoubleTake,
    /// Double, and the opponent should pass.
    DoublePass,
    /// Too good to double (playing on for a gammon is worth more than the point); a double
    /// would be taken.
    TooGoodTake,
    /// Too good to double; a double would be passed.
    TooGoodPass,
    /// The opponent owns the cube: no decision for the side on roll.
    NotAvailable,
}

impl CubeAction {
    /// Whether the side on roll should double.
    #[must_use]
    pub const fn doubles(self) -> bool {
        matches!(self, CubeAction::DoubleTake | CubeAction::DoublePass)
    }

    /// The action in words, "double" as "redouble" when `redouble`.
    #[must_use]
    pub const fn describe(self, redouble: bool) -> &'static str {
        match (self, redouble) {
            (CubeAction::NoDoubleTake, false) => "No double, take",
            (CubeAction::NoDoubleTake, true) => "No redouble, take",
            (CubeAction::DoubleTake, false) => "Double, take",
            (CubeAction::DoubleTake, true) => "Redouble, take",
            (CubeAction::DoublePass, false) => "Double, pass",
            (CubeAction::DoublePass, true) => "Redouble, pass",
            (CubeAction::TooGoodTake, false) => "Too good to double, take",
            (CubeAction::TooGoodTake, true) => "Too good to redouble, take",
            (CubeAction::TooGoodPass, false) => "Too good to double, pass",
            (CubeAction::TooGoodPass, true) => "Too good to redouble, pass",
            (CubeAction::NotAvailable, _) => "The opponent owns the cube",
        }
    }
}

/// The equity of the better of not doubling (`no_double`) and doubling (`double_take` if the
/// opponent takes; he passes, for 1, when that is worse for him), per unit of the cube, for a
/// side that may double ([`CubeAnalysis::from_equities`] decides the same way).
#[must_use]
pub fn best_cube_action(no_double: f32, double_take: f32) -> f32 {
    if should_double(no_double, double_take) {
        double_take.min(1.0)
    } else {
        no_double
    }
}

/// Whether doubling beats not doubling, or is worth as much (within [`TIE_MARGIN`]: gnubg's
/// "optional double", as for a trailer after the Crawford game, whose double costs nothing
/// and should come at once) where the game is not lost for sure; cashing (a double the
/// opponent should pass) is preferred when it is worth as much as playing on, within
/// [`CASH_MARGIN`] (a sure win, whose value a search sums from 21 rolls with rounding errors).
fn should_double(no_double: f32, double_take: f32) -> bool {
    let doubled = double_take.min(1.0);
    let tie = doubled >= no_double - TIE_MARGIN && no_double > -1.0 + TIE_MARGIN;
    doubled > no_double || tie || (double_take > 1.0 && doubled >= no_double - CASH_MARGIN)
}

/// Equity by which playing on must beat cashing to be preferred.
pub const CASH_MARGIN: f32 = 1e-4;

/// Equity by which playing on must beat a double that is taken to be preferred: equities
/// this close are the same decision told apart by rounding alone.
pub const TIE_MARGIN: f32 = 1e-5;

/// The cube efficiency of a position (see the module documentation): how live the cube is.
#[must_use]
pub fn cube_efficiency(pos: &Position) -> f32 {
    match phase(pos) {
        Phase::Contact | Phase::Crashed => 0.68,
        Phase::Race => {
            let pips = pos.pips().0 as f32;
            0.6 + 0.1 * ((pips - 30.0) / 90.0).clamp(0.0, 1.0)
        }
    }
}

/// A money cube decision for the side on roll, before it rolls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeAnalysis {
    /// The cube efficiency used.
    pub efficiency: f32,
    /// Cubeful equity without doubling, per unit of the current cube.
    pub no_double: f32,
    /// Cubeful equity after a double and a take (the opponent then owns the cube at twice the
    /// value), per unit of the current cube. When the opponent owns the cube, what a double
    /// would be worth if the side on roll could make one.
    pub double_take: f32,
    /// After a double and a pass: the current cube's value, 1.
    pub double_pass: f32,
    /// The right action.
    pub action: CubeAction,
    /// In match play, the match winning chances of no double, double take and double pass
    /// (the equities above are these normalised: a pass 1, the loss of a single game at the
    /// current cube -1); `None` in money play.
    pub match_winning_chances: Option<[f32; 3]>,
}

impl CubeAnalysis {
    /// The money cube decision of the side on roll of `pos`, whose cubeless probabilities
    /// (before it rolls) are `p`, with the cube held by `holder`. Under the Jacoby rule
    /// (`jacoby`) gammons count only once the cube has been turned.
    #[must_use]
    pub fn money(pos: &Position, p: Probabilities, holder: CubeHolder, jacoby: bool) -> Self {
        let x = cube_efficiency(pos);
        let v = Values::of(p);
        let dead = v.dead();
        let theirs = x * v.live_theirs() + (1.0 - x) * dead;
        if holder == CubeHolder::Opponent {
            return CubeAnalysis::from_equities(x, holder, theirs, 2.0 * theirs);
        }
        let no_double = if holder == CubeHolder::OnRoll {
            x * v.live_mine() + (1.0 - x) * dead
        } else if jacoby {
            // Gammons count only after a double: the play-on ends of the live line and the
            // dead cube value a win and a loss at one point.
            let single = Values {
                w: 1.0,
                l: 1.0,
                ..v
            };
            x * v.live_centre(&single) + (1.0 - x) * single.dead()
        } else {
            x * v.live_centre(&v) + (1.0 - x) * dead
        };
        CubeAnalysis::from_equities(x, holder, no_double, 2.0 * theirs)
    }

    /// The decision between `no_double` and `double_take` (the equities, per unit of the
    /// current cube, of not doubling and of doubling into a take; a pass is worth 1) for a side
    /// whose cube is held by `holder`, as found by any method (Janowski's model, or a cubeful
    /// search, `Search::cubeful`). `efficiency` is recorded as given.
    #[must_use]
    pub fn from_equities(
        efficiency: f32,
        holder: CubeHolder,
        no_double: f32,
        double_take: f32,
    ) -> CubeAnalysis {
        let double_pass = 1.0;
        let action = if holder == CubeHolder::Opponent {
            CubeAction::NotAvailable
        } else {
            let passes = double_take > double_pass;
            // A double that would be passed is made unless playing on is worth more (too
            // good), so "no double" comes with a take only.
            match (
                should_double(no_double, double_take),
                passes,
                no_double > double_pass,
            ) {
                (true, false, _) => CubeAction::DoubleTake,
                (true, true, _) => CubeAction::DoublePass,
                (false, false, true) => CubeAction::TooGoodTake,
                (false, true, _) => CubeAction::TooGoodPass,
                (false, false, false) => CubeAction::NoDoubleTake,
            }
        };
        CubeAnalysis {
            efficiency,
            no_double,
            double_take,
            double_pass,
            action,
            match_winning_chances: None,
        }
    }

    /// The cube decision in match play of the side on roll of `pos`, whose cubeless
    /// probabilities (before it rolls) are `p`, with the cube on `cube` held by `holder`, at
    /// `score`: Janowski's model over tavla's match equity table ([`crate::met`]), the
    /// position's own shares of gammons and backgammons valued at the score. In the Crawford
    /// game the cube is not available. The equities are normalised (a pass 1, a single loss
    /// at the current cube -1); [`CubeAnalysis::match_winning_chances`] has them as chances
    /// of winning the match.
    #[must_use]
    pub fn match_play(
        pos: &Position,
        p: Probabilities,
        holder: CubeHolder,
        cube: u32,
        score: MatchScore,
    ) -> CubeAnalysis {
        let m = MatchValues::new(pos, p, cube, score);
        let no_double = m.value(holder);
        let double_take = m.game.theirs(m.win, 2 * m.cube, m.efficiency);
        match_analysis(m.efficiency, holder, m.cube, score, no_double, double_take)
    }

    /// The match play decision of the side on roll of `pos` with the cube on `cube` held by
    /// `holder` at `score`, from its match winning chances without doubling (`no_double`) and
    /// after a double and a take (`double_take`), as found by any method (Janowski's model,
    /// or a cubeful search, `Search::cube_decision`).
    #[must_use]
    pub fn from_match_chances(
        pos: &Position,
        holder: CubeHolder,
        cube: u32,
        score: MatchScore,
        no_double: f32,
        double_take: f32,
    ) -> CubeAnalysis {
        let cube = cube.clamp(1, MAX_CUBE);
        match_analysis(
            cube_efficiency(pos),
            holder,
            cube,
            score,
            no_double,
            double_take,
        )
    }

    /// The match equity, normalised as in [`CubeAnalysis::match_play`], of the position
    /// `after` a play (seen from the mover, the opponent to roll) whose probabilities for the
    /// mover are `p`, at `score` from the mover's side with the cube on `cube` held by `holder`
    /// (from the mover's side): Janowski's cubeful value, or the dead cube's in the Crawford
    /// game. What the player maximises over its plays in match play.
    #[must_use]
    pub fn play_value(
        after: &Position,
        p: Probabilities,
        holder: CubeHolder,
        cube: u32,
        score: MatchScore,
    ) -> f32 {
        let chance = CubeAnalysis::play_match_chance(after, p, holder, cube, score);
        normalise(score, cube.clamp(1, MAX_CUBE), chance)
    }

    /// The mover's chance of winning the match after a play, as [`CubeAnalysis::play_value`]
    /// but not normalised; a play that ends the game has the chance after its result.
    #[must_use]
    pub fn play_match_chance(
        after: &Position,
        p: Probabilities,
        holder: CubeHolder,
        cube: u32,
        score: MatchScore,
    ) -> f32 {
        if let Some(o) = after.outcome() {
            let points = u32::from(o.points) * cube.clamp(1, MAX_CUBE);
            return if o.on_roll_wins {
                score.after(points, 0)
            } else {
                score.after(0, points)
            };
        }
        let m = MatchValues::new(&after.flip(), p, cube, score);
        let mine = m.value(holder);
        // The opponent, on roll there, may double at once (not in the Crawford game, not from
        // its own cube, dead where its single win at the cube already ends the match): where
        // taking or passing, whichever is the better, leaves the mover less, it does.
        if holder == CubeHolder::OnRoll
            || !score.cube_in_play()
            || score.them <= m.cube
            || m.cube >= MAX_CUBE
        {
            return mine;
        }
        let take = m.game.owned(m.win, 2 * m.cube, m.efficiency);
        let pass = score.after(0, m.cube);
        mine.min(take.max(pass))
    }

    /// The money equity, per unit of the cube, of the position `after` a play (seen from the
    /// mover, the opponent to roll) whose probabilities for the mover are `p`, with the cube
    /// held by `holder` (from the mover's side): Janowski's cubeful value, or where the
    /// opponent may double and should, at once, what its double leaves the mover (the better
    /// of taking and passing). What the player maximises over its plays in money play once the
    /// cube has been turned.
    #[must_use]
    pub fn money_play_value(after: &Position, p: Probabilities, holder: CubeHolder) -> f32 {
        let mine = CubeAnalysis::money(&after.flip(), p, holder, false).no_double;
        money_after_their_double(after, p, holder, mine)
    }

    /// [`CubeAnalysis::money_play_value`] under the Jacoby rule, the cube in the middle:
    /// gammons count only once it has been turned, as by the opponent's double at once.
    #[must_use]
    pub fn jacoby_play_value(after: &Position, p: Probabilities) -> f32 {
        let mine = CubeAnalysis::money(&after.flip(), p, CubeHolder::Centre, true).no_double;
        money_after_their_double(after, p, CubeHolder::Centre, mine)
    }

    /// Whether a doubled opponent should take: taking loses no more than passing.
    #[must_use]
    pub fn opponent_takes(&self) -> bool {
        self.double_take <= self.double_pass
    }

    /// Whether the doubled side should beaver, were beavers allowed: it takes, and the double
    /// leaves the doubler below 0 (double/take under 0 for the doubler: the taker is the better
    /// off after it; gnubg's "No double, beaver").
    #[must_use]
    pub fn should_beaver(&self) -> bool {
        self.opponent_takes() && self.double_take < 0.0
    }

    /// The right answer to a double, in words: `Pass`, `Beaver` (where `beavers` allows one
    /// and [`CubeAnalysis::should_beaver`]) or `Take`.
    #[must_use]
    pub fn answer_words(&self, beavers: bool) -> &'static str {
        if !self.opponent_takes() {
            "Pass"
        } else if beavers && self.should_beaver() {
            "Beaver"
        } else {
            "Take"
        }
    }

    /// The cubeful equity with the right action, per unit of the current cube.
    #[must_use]
    pub fn equity(&self) -> f32 {
        match self.action {
            CubeAction::NotAvailable => self.no_double,
            _ => best_cube_action(self.no_double, self.double_take),
        }
    }
}

/// Janowski's match values of a position whose side on roll has the cubeless probabilities `p`
/// (before it rolls) at `score`: `out[k][h]` is the side's match winning chance with the cube
/// on `cube << k` held by the [`CubeHolder`] of index `h` (the leaves of a match cubeful
/// search). In the Crawford game every entry is the dead cube's.
pub(crate) fn match_values<const N: usize>(
    pos: &Position,
    p: Probabilities,
    cube: u32,
    score: MatchScore,
) -> [[f32; 3]; N] {
    let mut m = MatchValues::new(pos, p, cube, score);
    let mut out = [[0.0; 3]; N];
    for row in &mut out {
        *row = CubeHolder::ALL.map(|h| m.value(h));
        m.cube = (2 * m.cube).min(MAX_CUBE);
    }
    out
}

/// The highest cube value: 2^15.
pub(crate) const MAX_CUBE: u32 = 1 << 15;

/// The mover's money equity `mine` (playing on) after a play leaving `after` (seen from the
/// mover) with probabilities `p` for it, lowered to what the opponent's double at once leaves it
/// where the opponent may double (`holder`, from the mover's side, is not the mover) and that
/// leaves the mover less: the better of a take, the mover then owning the cube at twice the
/// value (gammons count in full, as the cube has been turned), and a pass, -1.
fn money_after_their_double(
    after: &Position,
    p: Probabilities,
    holder: CubeHolder,
    mine: f32,
) -> f32 {
    if holder == CubeHolder::OnRoll {
        return mine;
    }
    let take = 2.0 * CubeAnalysis::money(&after.flip(), p, CubeHolder::OnRoll, false).no_double;
    mine.min(take.max(-1.0))
}

/// Janowski's model of one position in match play: the game at the score, with the position's
/// outcomes, efficiency and chance of winning.
struct MatchValues {
    game: Game<'static>,
    efficiency: f32,
    win: f32,
    /// The cube's value, 1 to 2^15.
    cube: u32,
    score: MatchScore,
}

impl MatchValues {
    /// `pos` is the position whose efficiency counts (seen from the side on roll).
    fn new(pos: &Position, p: Probabilities, cube: u32, score: MatchScore) -> MatchValues {
        let outcomes = Outcomes::of(p);
        MatchValues {
            game: Game::new(MatchEquityTable::tavla(), score, &outcomes),
            efficiency: cube_efficiency(pos),
            win: p.win.clamp(0.0, 1.0),
            cube: cube.clamp(1, MAX_CUBE),
            score,
        }
    }

    /// The match equity with the cube where it is (dead in the Crawford game).
    fn value(&self, holder: CubeHolder) -> f32 {
        let (g, p, v, x) = (&self.game, self.win, self.cube, self.efficiency);
        if !self.score.cube_in_play() {
            return g.dead(p, v);
        }
        match holder {
            CubeHolder::Centre => g.centred(p, v, x),
            CubeHolder::OnRoll => g.owned(p, v, x),
            CubeHolder::Opponent => g.theirs(p, v, x),
        }
    }
}

/// The match play decision at `score` with the cube on `cube` held by `holder`, from the side
/// on roll's match winning chances of no double and double/take (no decision in the Crawford
/// game); `efficiency` is recorded as given.
fn match_analysis(
    efficiency: f32,
    holder: CubeHolder,
    cube: u32,
    score: MatchScore,
    no_double: f32,
    double_take: f32,
) -> CubeAnalysis {
    let double_pass = score.after(cube, 0);
    let holder = if score.cube_in_play() {
        holder
    } else {
        CubeHolder::Opponent
    };
    // Sums of products of chances, a rounding error outside 0..1 at a sure result.
    let (no_double, double_take) = (no_double.clamp(0.0, 1.0), double_take.clamp(0.0, 1.0));
    let mut a = CubeAnalysis::from_equities(
        efficiency,
        holder,
        normalise(score, cube, no_double),
        normalise(score, cube, double_take),
    );
    a.match_winning_chances = Some([no_double, double_take, double_pass]);
    a
}

/// The match winning chance `m` of the side on roll at `score` with the cube on `cube`,
/// normalised: its pass of a double 1, its loss of a single game -1.
pub(crate) fn normalise(score: MatchScore, cube: u32, m: f32) -> f32 {
    let (pass, lose) = (score.after(cube, 0), score.after(0, cube));
    2.0 * (m - lose) / (pass - lose) - 1.0
}

/// By what the side on roll of a game ranks its plays: cubeless equity in money play until the
/// cube has been turned (a 1-cube in the middle may be a cubeless game), then cubeful equity
/// ([`CubeAnalysis::money_play_value`]), and cubeless again once the cube is at its highest
/// (32768: nobody may double); in match play its match equity at the score
/// ([`CubeAnalysis::play_value`]). The player (`NeuralPlayer`), `tavla hint` and the hints of
/// `tavla play` all rank this way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlayWorth {
    /// The cubeless money equity.
    Cubeless,
    /// The cubeful money equity per unit of the cube, with the cube held by the holder (from
    /// the mover's side).
    Cubeful(CubeHolder),
    /// Money play under the Jacoby rule with the cube still in the middle: the cubeful equity
    /// with gammons and backgammons counting only once the cube is turned
    /// ([`CubeAnalysis::money`] with `jacoby`). A game under the Jacoby rule is surely played
    /// with the cube.
    Jacoby,
    /// The normalised match equity at the score (the mover's), with the cube on `cube` held by
    /// `holder` (from the mover's side).
    Match {
        /// Who holds the cube.
        holder: CubeHolder,
        /// The cube's value.
        cube: u32,
        /// The score.
        score: MatchScore,
    },
}

impl PlayWorth {
    /// How the side on roll of `state` ranks its plays.
    #[must_use]
    pub fn of(state: &GameState) -> PlayWorth {
        let (holder, cube) = (CubeHolder::of(state), state.cube.value());
        match MatchScore::of(state, state.turn) {
            Some(score) => PlayWorth::Match {
                holder,
                cube,
                score,
            },
            // A cube at its highest is dead: the game is played out cubeless.
            None if state.cube.log2 >= tavla_core::Cube::MAX_LOG2 => PlayWorth::Cubeless,
            None if state.cube.log2 > 0 => PlayWorth::Cubeful(holder),
            None if state.jacoby => PlayWorth::Jacoby,
            None => PlayWorth::Cubeless,
        }
    }

    /// The worth of the position `after` a play (seen from the mover) whose probabilities for
    /// the mover are `p`.
    #[must_use]
    pub fn value(self, after: &Position, p: Probabilities) -> f32 {
        match self {
            PlayWorth::Cubeless => p.equity(),
            PlayWorth::Cubeful(holder) => CubeAnalysis::money_play_value(after, p, holder),
            PlayWorth::Jacoby => CubeAnalysis::jacoby_play_value(after, p),
            PlayWorth::Match {
                holder,
                cube,
                score,
            } => CubeAnalysis::play_value(after, p, holder, cube, score),
        }
    }

    /// [`PlayWorth::value`], exact in short bearoffs: in money play with the cube where
    /// `bearoff`'s cubeful database holds the position `after` ([`BearoffRace::probe_cubeful`]),
    /// in match play where its match tables do ([`BearoffRace::match_exact`]): the opponent,
    /// on roll there, handles the cube perfectly, and so does the mover after. The Jacoby rule
    /// changes nothing there (no gammons are possible). Elsewhere, and cubeless,
    /// [`PlayWorth::value`].
    #[must_use]
    pub fn value_exact(
        self,
        after: &Position,
        p: Probabilities,
        bearoff: Option<&BearoffRace>,
    ) -> f32 {
        self.exact(after, bearoff)
            .unwrap_or_else(|| self.value(after, p))
    }

    /// Whether [`PlayWorth::value_exact`] of the position `after` is exact: a short bearoff
    /// that `bearoff`'s databases hold, valued with the cube.
    #[must_use]
    pub fn is_exact(self, after: &Position, bearoff: Option<&BearoffRace>) -> bool {
        self.exact(after, bearoff).is_some()
    }

    fn exact(self, after: &Position, bearoff: Option<&BearoffRace>) -> Option<f32> {
        let bearoff = bearoff?;
        let holder = match self {
            PlayWorth::Cubeful(holder) => holder,
            PlayWorth::Jacoby => CubeHolder::Centre,
            PlayWorth::Cubeless => return None,
            PlayWorth::Match {
                holder,
                cube,
                score,
            } => {
                let mine = exact_match_chance(after, bearoff, holder, cube, score)?;
                return Some(normalise(score, cube.clamp(1, MAX_CUBE), mine));
            }
        };
        let e = bearoff.probe_cubeful(&after.flip())?;
        // The opponent's equity before its cube decision, with the cube where the mover's
        // play leaves it: the mover's cube is the opponent's opponent's.
        let theirs = match holder {
            CubeHolder::Centre => e.centred.equity,
            CubeHolder::OnRoll => e.opponent_owns,
            CubeHolder::Opponent => e.owned.equity,
        };
        Some(-theirs as f32)
    }

    /// In match play, the mover's chance of winning the match after the play that leaves
    /// `after` (with probabilities `p` for the mover), as [`PlayWorth::value_exact`] ranks it
    /// before normalising: exact where `bearoff`'s match tables hold the position, else
    /// [`CubeAnalysis::play_match_chance`]. `None` in money play.
    #[must_use]
    pub fn match_chance(
        self,
        after: &Position,
        p: Probabilities,
        bearoff: Option<&BearoffRace>,
    ) -> Option<f32> {
        let PlayWorth::Match {
            holder,
            cube,
            score,
        } = self
        else {
            return None;
        };
        Some(
            bearoff
                .and_then(|b| exact_match_chance(after, b, holder, cube, score))
                .unwrap_or_else(|| CubeAnalysis::play_match_chance(after, p, holder, cube, score))
                .clamp(0.0, 1.0),
        )
    }

    /// Its name in reports: `cubeless equity`, `cubeful equity` or `match equity`.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            PlayWorth::Cubeless => "cubeless equity",
            PlayWorth::Cubeful(_) | PlayWorth::Jacoby => "cubeful equity",
            PlayWorth::Match { .. } => "match equity",
        }
    }
}

/// The mover's exact chance of winning the match after the play that leaves `after`, with
/// the cube on `cube` held by `holder` at `score` (the mover's), where the match tables hold
/// the position ([`PlayWorth::match_chance`]): the opponent's chance on roll there with its
/// best cube action, the mover's cube being the opponent's opponent's.
fn exact_match_chance(
    after: &Position,
    bearoff: &BearoffRace,
    holder: CubeHolder,
    cube: u32,
    score: MatchScore,
) -> Option<f32> {
    let theirs = bearoff.match_exact(&after.flip(), cube, holder.flip(), score.flip())?;
    Some(1.0 - theirs.with_action())
}

/// The quantities of Janowski's model for one position.
#[derive(Debug, Clone, Copy)]
struct Values {
    /// Chance of winning.
    p: f32,
    /// Points won on average in a win.
    w: f32,
    /// Points lost on average in a loss.
    l: f32,
}

impl Values {
    fn of(p: Probabilities) -> Values {
        let win = p.win.clamp(0.0, 1.0);
        let lose = 1.0 - win;
        let w = if win > 1e-6 {
            (win + p.win_gammon + p.win_backgammon) / win
        } else {
            1.0
        };
        let l = if lose > 1e-6 {
            (lose + p.lose_gammon + p.lose_backgammon) / lose
        } else {
            1.0
        };
        Values {
            p: win,
            w: w.clamp(1.0, 3.0),
            l: l.clamp(1.0, 3.0),
        }
    }

    /// The dead-cube (cubeless) equity.
    fn dead(&self) -> f32 {
        self.p * (self.w + self.l) - self.l
    }

    /// The live-cube take point: below it a side passes a double.
    fn take_point(&self) -> f32 {
        (self.l - 0.5) / (self.w + self.l + 0.5)
    }

    /// The live-cube cash point: above it the opponent passes a double.
    fn cash_point(&self) -> f32 {
        (self.l + 1.0) / (self.w + self.l + 0.5)
    }

    /// The point on the line from `(x0, y0)` to `(x1, y1)` at `self.p`.
    fn line(&self, (x0, y0): (f32, f32), (x1, y1): (f32, f32)) -> f32 {
        y0 + (y1 - y0) * (self.p - x0) / (x1 - x0)
    }

    /// Live cube in the middle. The take and cash points are this position's; the ends, where
    /// a side plays on without doubling, value wins and losses by `ends` (one point each under
    /// the Jacoby rule).
    fn live_centre(&self, ends: &Values) -> f32 {
        let (tp, cp) = (self.take_point(), self.cash_point());
        if self.p < tp {
            self.line((0.0, -ends.l), (tp, -1.0))
        } else if self.p > cp {
            self.line((cp, 1.0), (1.0, ends.w))
        } else {
            self.line((tp, -1.0), (cp, 1.0))
        }
    }

    /// Live cube owned by the side on roll.
    fn live_mine(&self) -> f32 {
        let cp = self.cash_point();
        if self.p < cp {
            self.line((0.0, -self.l), (cp, 1.0))
        } else {
            self.line((cp, 1.0), (1.0, self.w))
        }
    }

    /// Live cube owned by the opponent.
    fn live_theirs(&self) -> f32 {
        let tp = self.take_point();
        if self.p < tp {
            self.line((0.0, -self.l), (tp, -1.0))
        } else {
            self.line((tp, -1.0), (1.0, self.w))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Review (fifty-eighth round): a double worth exactly as much as playing on (the trailer
    /// after the Crawford game) was "No double" or "Double" by the rounding of each depth.
    #[test]
    fn a_double_worth_as_much_as_playing_on_is_made_unless_the_game_is_lost() {
        let action =
            |nd: f32, dt: f32| CubeAnalysis::from_equities(0.68, CubeHolder::Centre, nd, dt).action;
        assert_eq!(action(0.731, 0.731), CubeAction::DoubleTake);
        assert_eq!(
            action(0.731, 0.731 - 0.5 * TIE_MARGIN),
            CubeAction::DoubleTake
        );
        assert_eq!(action(0.731, 0.730), CubeAction::NoDoubleTake);
        // Lost for sure: no double, though it costs nothing.
        assert_eq!(action(-1.0, -1.0), CubeAction::NoDoubleTake);
        assert_eq!(action(0.2, 0.5), CubeAction::DoubleTake);
        assert_eq!(action(1.2, 1.5), CubeAction::TooGoodPass);
    }

    fn gammonless(win: f32) -> Probabilities {
        Probabilities {
            win,
            ..Probabilities::default()
        }
    }

    fn contact(p: Probabilities, holder: CubeHolder) -> CubeAnalysis {
        CubeAnalysis::money(&Position::START, p, holder, false)
    }

    #[test]
    fn gammonless_points_are_the_textbook_ones() {
        let v = Values::of(gammonless(0.5));
        assert!((v.take_point() - 0.2).abs() < 1e-6);
        assert!((v.cash_point() - 0.8).abs() < 1e-6);
        // The dead cube's take point is 25%: the double-take equity is one point there.
        let at = |win: f32| {
            let v = Values::of(gammonless(win));
            2.0 * v.dead()
        };
        assert!((at(0.75) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn the_take_point_lies_between_live_and_dead() {
        // For the taker (the opponent) with efficiency 0.68, the pass starts between 75% and
        // 80% for the doubler.
        let takes = |win| contact(gammonless(win), CubeHolder::Centre).opponent_takes();
        assert!(takes(0.75));
        assert!(!takes(0.8));
        // Gammons for the doubler make the take harder.
        let gammonish = Probabilities {
            win: 0.74,
            win_gammon: 0.3,
            ..Probabilities::default()
        };
        assert!(!contact(gammonish, CubeHolder::Centre).opponent_takes());
    }

    #[test]
    fn decisions_follow_the_chances() {
        let action = |win| contact(gammonless(win), CubeHolder::Centre).action;
        assert_eq!(action(0.5), CubeAction::NoDoubleTake);
        assert_eq!(action(0.72), CubeAction::DoubleTake);
        assert_eq!(action(0.9), CubeAction::DoublePass);
        // Far ahead with many gammons: too good to double.
        let gammons = Probabilities {
            win: 0.95,
            win_gammon: 0.7,
            ..Probabilities::default()
        };
        assert_eq!(
            contact(gammons, CubeHolder::Centre).action,
            CubeAction::TooGoodPass
        );
        // Owning the cube makes a redouble later than a first double.
        let owned = |win| contact(gammonless(win), CubeHolder::OnRoll).action;
        assert_eq!(action(0.66), CubeAction::NoDoubleTake);
        assert_eq!(action(0.7), CubeAction::DoubleTake);
        assert_eq!(owned(0.7), CubeAction::NoDoubleTake);
        // The opponent's cube: nothing to decide, and the equity is below the centred one.
        let theirs = contact(gammonless(0.6), CubeHolder::Opponent);
        assert_eq!(theirs.action, CubeAction::NotAvailable);
        assert!(!theirs.action.doubles());
        assert!(theirs.no_double < contact(gammonless(0.6), CubeHolder::Centre).no_double);
    }

    #[test]
    fn equities_are_continuous_and_rise_with_the_chances() {
        for holder in [CubeHolder::Centre, CubeHolder::OnRoll, CubeHolder::Opponent] {
            let mut last = f32::NEG_INFINITY;
            for k in 0..=1000 {
                let p = Probabilities {
                    win: k as f32 / 1000.0,
                    win_gammon: 0.2 * k as f32 / 1000.0,
                    lose_gammon: 0.2 * (1000 - k) as f32 / 1000.0,
                    ..Probabilities::default()
                };
                let a = contact(p, holder);
                assert!(a.no_double >= last - 1e-5, "{holder:?} at {k}");
                assert!(
                    a.no_double - last < 0.02 || k == 0,
                    "{holder:?} jumps at {k}"
                );
                last = a.no_double;
            }
        }
        // Sure results are exact whoever holds the cube.
        let sure = contact(gammonless(1.0), CubeHolder::OnRoll);
        assert!((sure.no_double - 1.0).abs() < 1e-6);
        let lost = contact(
            Probabilities {
                lose_gammon: 1.0,
                ..gammonless(0.0)
            },
            CubeHolder::Centre,
        );
        assert!((lost.no_double + 2.0).abs() < 1e-6);
    }

    #[test]
    fn under_jacoby_plays_are_ranked_with_gammons_worth_less() {
        let mut state = GameState::money(Position::START);
        assert_eq!(PlayWorth::of(&state), PlayWorth::Cubeless);
        state.jacoby = true;
        assert_eq!(PlayWorth::of(&state), PlayWorth::Jacoby);
        // Once the cube is turned, gammons count: cubeful as without the rule.
        state.cube.log2 = 1;
        state.cube.owner = tavla_core::CubeOwner::Side(state.turn);
        assert!(matches!(PlayWorth::of(&state), PlayWorth::Cubeful(_)));
        // A cube at its highest cannot be turned again: cubeless.
        state.cube.log2 = tavla_core::Cube::MAX_LOG2;
        assert_eq!(PlayWorth::of(&state), PlayWorth::Cubeless);
        // Gammons are worth less to a play with the cube centred under Jacoby than without the
        // rule: they count only once the cube is turned.
        let gammonish = Probabilities {
            win: 0.6,
            win_gammon: 0.3,
            ..Probabilities::default()
        };
        let plain = Probabilities {
            win: 0.6,
            ..Probabilities::default()
        };
        let after = Position::START;
        let gain = |w: PlayWorth| w.value(&after, gammonish) - w.value(&after, plain);
        let free = gain(PlayWorth::Cubeful(CubeHolder::Centre));
        let jacoby = gain(PlayWorth::Jacoby);
        assert!(jacoby > 0.0 && jacoby < free - 0.05, "{jacoby} {free}");
    }

    /// A play's value is what the opponent's own cube decision in the position it leaves gives
    /// the mover: playing on where the opponent should not double, the better of taking and
    /// passing where it should (so never less than a pass); in money play and at match
    /// scores, over a sweep of chances with and without gammons.
    #[test]
    fn a_plays_value_is_the_opponents_cube_decision_seen_from_the_mover() {
        let after = Position::START;
        let mut doubled = 0;
        for win in (1..20).map(|k| k as f32 / 20.0) {
            for g in [0.0, 0.3] {
                let p = Probabilities {
                    win,
                    win_gammon: g * win,
                    lose_gammon: g * (1.0 - win),
                    ..Probabilities::default()
                };
                for holder in [CubeHolder::Centre, CubeHolder::Opponent] {
                    let theirs = CubeAnalysis::money(&after.flip(), p.flip(), holder.flip(), false);
                    let mine = CubeAnalysis::money_play_value(&after, p, holder);
                    assert!(
                        (mine + theirs.equity()).abs() < 1e-5,
                        "{win} {g} {holder:?}: {mine} {theirs:?}"
                    );
                    // Where the opponent doubles, the mover is left a pass at worst.
                    if theirs.action.doubles() {
                        assert!(mine >= -1.0 - 1e-6, "{win} {g} {holder:?}: {mine}");
                    }
                    doubled += usize::from(theirs.action.doubles());
                }
                let theirs = CubeAnalysis::money(&after.flip(), p.flip(), CubeHolder::Centre, true);
                let mine = CubeAnalysis::jacoby_play_value(&after, p);
                assert!(
                    (mine + theirs.equity()).abs() < 1e-5,
                    "Jacoby {win} {g}: {mine} {theirs:?}"
                );
                for (me, them, cube, holder) in [
                    (4, 2, 2, CubeHolder::OnRoll),
                    (1, 4, 1, CubeHolder::Centre),
                    (3, 3, 1, CubeHolder::Centre),
                    (5, 3, 2, CubeHolder::Opponent),
                ] {
                    let score = MatchScore {
                        me,
                        them,
                        crawford: false,
                        post_crawford: me == 1 || them == 1,
                    };
                    let chance = CubeAnalysis::play_match_chance(&after, p, holder, cube, score);
                    let theirs = CubeAnalysis::match_play(
                        &after.flip(),
                        p.flip(),
                        holder.flip(),
                        cube,
                        score.flip(),
                    );
                    let [nd, dt, dp] = theirs.match_winning_chances.unwrap();
                    let best = match (theirs.action.doubles(), theirs.opponent_takes()) {
                        (false, _) => nd,
                        (true, true) => dt,
                        (true, false) => dp,
                    };
                    assert!(
                        (chance - (1.0 - best)).abs() < 1e-4,
                        "{me}-{them} {win} {g}: {chance} {theirs:?}"
                    );
                    doubled += usize::from(theirs.action.doubles());
                }
            }
        }
        // The sweep reaches the opponent's doubles.
        assert!(doubled > 20, "{doubled}");
    }

    #[test]
    fn jacoby_counts_gammons_only_after_a_double() {
        let p = Probabilities {
            win: 0.85,
            win_gammon: 0.45,
            ..Probabilities::default()
        };
        let free = CubeAnalysis::money(&Position::START, p, CubeHolder::Centre, false);
        let jacoby = CubeAnalysis::money(&Position::START, p, CubeHolder::Centre, true);
        assert_eq!(free.action, CubeAction::TooGoodPass);
        // Under Jacoby, playing on wins single points only: cash the game.
        assert_eq!(jacoby.action, CubeAction::DoublePass);
        assert!(jacoby.no_double < free.no_double);
    }

    #[test]
    fn races_have_a_less_efficient_cube() {
        let race = |on: usize| {
            let mut b = [0i8; 26];
            b[on] = 15;
            b[24] = -15;
            Position::try_from(b).unwrap()
        };
        assert!((cube_efficiency(&Position::START) - 0.68).abs() < 1e-6);
        // 30 pips and 120 pips: the ends of the range.
        assert!((cube_efficiency(&race(2)) - 0.6).abs() < 1e-6);
        assert!((cube_efficiency(&race(8)) - 0.7).abs() < 1e-6);
        let mid = cube_efficiency(&race(5));
        assert!(mid > 0.6 && mid < 0.7, "{mid}");
    }
}
