//! The game state around a position: dice, cube, score and the match rules.

use std::fmt;
use std::str::FromStr;

use crate::{BySide, Position, Roll, Side};

/// Who owns the cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CubeOwner {
    /// Nobody: either side may double.
    #[default]
    Centre,
    /// This side owns the cube and alone may redouble.
    Side(Side),
}

/// The doubling cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cube {
    /// Base-2 logarithm of the value: the cube shows `1 << log2` (0..=15).
    pub log2: u8,
    /// The owner.
    pub owner: CubeOwner,
}

impl Default for Cube {
    fn default() -> Cube {
        Cube {
            log2: 0,
            owner: CubeOwner::Centre,
        }
    }
}

impl Cube {
    /// The base-2 logarithm of the highest cube: 32768, as in gnubg.
    pub const MAX_LOG2: u8 = 15;

    /// The value shown on the cube. A `log2` too large for a `u32` (32 or more; no valid
    /// state has more than [`Cube::MAX_LOG2`]) gives `u32::MAX` instead of overflowing.
    #[must_use]
    pub const fn value(self) -> u32 {
        if self.log2 >= 32 {
            u32::MAX
        } else {
            1 << self.log2
        }
    }
}

/// The dice of the side on roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dice {
    /// Not rolled yet: the side on roll may double, then rolls.
    #[default]
    NotRolled,
    /// Rolled: the side on roll must play this roll.
    Rolled(Roll),
    /// The side on roll has just doubled; the opponent must take or pass. The cube still shows
    /// the value before the double.
    DoubleOffered,
}

/// A position with everything around it.
///
/// `turn` is the side on roll (for a pending double, the doubler), and `position` is seen from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameState {
    /// The checkers, seen from `turn`.
    pub position: Position,
    /// The side on roll.
    pub turn: Side,
    /// The dice.
    pub dice: Dice,
    /// The cube.
    pub cube: Cube,
    /// Points won in this match (0:0 in money play).
    pub score: BySide<u32>,
    /// Match length; 0 for a money game.
    pub match_length: u32,
    /// This game is the Crawford game (no doubling).
    pub crawford: bool,
    /// Money play: gammons count single until the cube is turned.
    pub jacoby: bool,
    /// Money play: a doubled side may beaver.
    pub beavers: bool,
}

/// Why the side on roll may not double: [`GameState::why_no_double`], the one place the rules
/// of the cube's turning are written. Its `Display` says it in a few words for messages
/// ("the Crawford game: no doubling").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoDouble {
    /// The opponent owns the cube: only it may redouble.
    OpponentsCube,
    /// This is the Crawford game.
    Crawford,
    /// The cube is at its highest value, [`Cube::MAX_LOG2`] (32768).
    CubeAtMaximum,
    /// The cube is dead for the side ([`GameState::cube_is_dead`]): a single game at its
    /// value already wins it the match.
    DeadCube,
}

impl fmt::Display for NoDouble {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NoDouble::OpponentsCube => "the opponent owns the cube: only it may double",
            NoDouble::Crawford => "the Crawford game: no doubling",
            NoDouble::CubeAtMaximum => "the cube is at its highest (32768)",
            NoDouble::DeadCube => {
                "the cube is dead: a single game at its value already wins the match"
            }
        })
    }
}

impl GameState {
    /// Whether the side on roll may double now: the cube is in the middle or its own, it is
    /// not the Crawford game, the cube is below its highest value (2^15), and the cube is not
    /// dead for the side ([`GameState::cube_is_dead`]). [`GameState::why_no_double`] says
    /// which of these fails.
    #[must_use]
    pub fn may_double(&self) -> bool {
        self.why_no_double().is_none()
    }

    /// Why the side on roll may not double now, in this order of precedence: the opponent's
    /// cube, the Crawford game, a dead cube, the cube at its highest; `None` when it may.
    /// The state's dice are not looked at: a side that has rolled (or has doubled) is judged
    /// as before its roll.
    #[must_use]
    pub fn why_no_double(&self) -> Option<NoDouble> {
        if matches!(self.cube.owner, CubeOwner::Side(s) if s != self.turn) {
            Some(NoDouble::OpponentsCube)
        } else if self.crawford {
            Some(NoDouble::Crawford)
        } else if self.cube_is_dead() {
            Some(NoDouble::DeadCube)
        } else if self.cube.log2 >= Cube::MAX_LOG2 {
            Some(NoDouble::CubeAtMaximum)
        } else {
            None
        }
    }

    /// Whether the cube is dead for the side on roll: in a match, a single game at the cube's
    /// value already brings it to the match's length, so its double could gain nothing (a
    /// 1-point match; the leader after the Crawford game; a 2-away side facing a 2-cube). gnubg
    /// refuses such a double ("The cube is dead; you can't double any more").
    #[must_use]
    pub fn cube_is_dead(&self) -> bool {
        !self.is_money()
            && self.match_length.saturating_sub(*self.score.get(self.turn)) <= self.cube.value()
    }

    /// Why no game goes on from this state, in words, where its notations let it through: a
    /// double offered where the cube cannot be turned, a game over, a centred cube above 1 in
    /// a match (a turned cube has an owner), a cube in a match doubled where it was dead (its
    /// doubler's single win at the cube before already ended the match). `None` for a state a
    /// game can be played on from.
    #[must_use]
    pub fn why_unplayable(&self) -> Option<String> {
        let mut before = *self;
        before.dice = Dice::NotRolled;
        if let Some(why) = before
            .why_no_double()
            .filter(|_| self.dice == Dice::DoubleOffered)
        {
            Some(format!(
                "a double is offered where the cube cannot be turned ({why})"
            ))
        } else if self.position.is_game_over() {
            Some("the game is over in this position".into())
        } else if !self.is_money() && self.cube.owner == CubeOwner::Centre && self.cube.log2 > 0 {
            Some(format!(
                "a centred cube of {} in a match: a turned cube has an owner (match play has no \
                 automatic doubles)",
                self.cube.value()
            ))
        } else {
            self.dead_double_behind()
        }
    }

    /// In a match, a cube owned by a side whose opponent, who doubled it, could not gain by
    /// that double: the doubler's single win at the cube before it already ended the match
    /// (a dead cube, which [`GameState::may_double`] refuses, as gnubg does).
    fn dead_double_behind(&self) -> Option<String> {
        let CubeOwner::Side(owner) = self.cube.owner else {
            return None;
        };
        if self.is_money() || self.cube.log2 == 0 {
            return None;
        }
        // The state the double was made from: the doubler on roll, the cube one level down.
        let mut before = *self;
        before.turn = owner.other();
        before.cube.log2 -= 1;
        before.cube_is_dead().then(|| {
            format!(
                "{owner} owns a cube of {}, but {}, who doubled it, needs {}: the double from {} \
                 could not gain (the cube was dead), and no game reaches it",
                self.cube.value(),
                before.turn,
                self.match_length
                    .saturating_sub(*self.score.get(before.turn)),
                before.cube.value()
            )
        })
    }

    /// A money game at `position`, X on roll, dice not rolled, centred 1-cube, no Jacoby.
    #[must_use]
    pub fn money(position: Position) -> GameState {
        GameState {
            position,
            turn: Side::X,
            dice: Dice::NotRolled,
            cube: Cube::default(),
            score: BySide::default(),
            match_length: 0,
            crawford: false,
            jacoby: false,
            beavers: false,
        }
    }

    /// Whether this is a money game.
    #[must_use]
    pub const fn is_money(&self) -> bool {
        self.match_length == 0
    }

    /// Whether a double offered now may be beavered by the side it is offered to: money play
    /// with beavers on, and the cube, doubled and at once redoubled, stays within its highest
    /// value ([`Cube::MAX_LOG2`]). The state's cube is the one before the double, whichever
    /// side's view the state is.
    #[must_use]
    pub const fn may_beaver(&self) -> bool {
        self.beavers && self.is_money() && self.cube.log2 + 2 <= Cube::MAX_LOG2
    }

    /// The state in which the opponent of the side on roll answers its double: the position
    /// seen from the answering side, the answerer as `turn`, the dice
    /// [`Dice::DoubleOffered`], the cube still at its value before the double. This is the
    /// state a player is asked to take or pass (and beaver) in.
    #[must_use]
    pub fn double_to_answer(&self) -> GameState {
        GameState {
            position: self.position.flip(),
            turn: !self.turn,
            dice: Dice::DoubleOffered,
            ..*self
        }
    }

    /// Turns the cube for the side on roll's double, answered by its opponent with
    /// `response`; `self` is the doubler's state before the double (its dice are left as they
    /// are). A take doubles the cube and gives it to the taker; a beaver doubles it twice,
    /// the taker redoubling at once and keeping it (a beaver where [`GameState::may_beaver`]
    /// refuses one counts as a take). A pass leaves the cube and returns the points the
    /// doubler wins: the cube's value before the double. The cube never passes its highest
    /// value, [`Cube::MAX_LOG2`].
    pub fn answer_double(&mut self, response: CubeResponse) -> Option<u32> {
        let turns = match response {
            CubeResponse::Pass => return Some(self.cube.value()),
            CubeResponse::Beaver if self.may_beaver() => 2,
            CubeResponse::Take | CubeResponse::Beaver => 1,
        };
        self.cube = Cube {
            log2: (self.cube.log2 + turns).min(Cube::MAX_LOG2),
            owner: CubeOwner::Side(!self.turn),
        };
        None
    }

    /// Whether the next game of a `length`-point match at `score` is the Crawford game: the
    /// first game in which a side stands 1-away, when it has not been played yet (`played`).
    /// A 1-point match has none: both sides start 1-away, the cube dead for both.
    #[must_use]
    pub const fn is_crawford_game(length: u32, score: BySide<u32>, played: bool) -> bool {
        length > 1 && !played && (score.x + 1 == length || score.o + 1 == length)
    }

    /// Whether this game is after the Crawford game: a match where one side is 1-away and this is
    /// not the Crawford game.
    #[must_use]
    pub fn is_post_crawford(&self) -> bool {
        !self.is_money()
            && !self.crawford
            && (self.score.x + 1 == self.match_length || self.score.o + 1 == self.match_length)
    }

    /// The roll, when the dice have been rolled.
    #[must_use]
    pub fn roll(&self) -> Option<Roll> {
        match self.dice {
            Dice::Rolled(r) => Some(r),
            _ => None,
        }
    }

    /// The checker layout of `side`, in its own numbering (index 0..=23 its points 1..=24,
    /// index 24 its bar).
    #[must_use]
    pub fn checkers_of(&self, side: Side) -> [u8; 25] {
        let b = self.position.to_board();
        if side == self.turn {
            b.on_roll
        } else {
            b.opponent
        }
    }
}

/// How a doubled side answers a double.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CubeResponse {
    /// Takes: owns the cube at the doubled value.
    Take,
    /// Passes: the doubler wins the cube's value before the double.
    Pass,
    /// Beavers (money play): takes and redoubles at once, keeping the cube at twice the
    /// doubled value.
    Beaver,
}

/// A resignation: what the resigning side offers to lose, before the cube (the opponent wins
/// [`Resign::points_in`] when it accepts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resign {
    /// A single game: 1 point times the cube.
    Single = 1,
    /// A gammon: 2 points times the cube.
    Gammon = 2,
    /// A backgammon: 3 points times the cube.
    Backgammon = 3,
}

impl Resign {
    /// The three levels, from the smallest.
    pub const ALL: [Resign; 3] = [Resign::Single, Resign::Gammon, Resign::Backgammon];

    /// 1, 2 or 3.
    #[must_use]
    pub const fn level(self) -> u32 {
        self as u32
    }

    /// The level of a game won with `points` (1 single, 2 gammon, 3 or more backgammon), so that
    /// [`Resign::points_in`] gives what the game wins: times the cube, or single under the
    /// Jacoby rule while the cube is in the middle.
    #[must_use]
    pub const fn of_outcome(points: u8) -> Resign {
        match points {
            0 | 1 => Resign::Single,
            2 => Resign::Gammon,
            _ => Resign::Backgammon,
        }
    }

    /// The points the opponent of the resigning side wins when it accepts in `state`: the level
    /// times the cube, except that in money play under the Jacoby rule with the cube still in
    /// the middle a gammon or backgammon would count single, so any level is worth one point.
    #[must_use]
    pub fn points_in(self, state: &GameState) -> u32 {
        let jacoby_single =
            state.is_money() && state.jacoby && state.cube.owner == CubeOwner::Centre;
        let level = if jacoby_single { 1 } else { self.level() };
        level * state.cube.value()
    }

    /// The most the side on roll of `pos` (the resigning side's view) can still lose, before
    /// the cube: a single game once it has borne off a checker; a backgammon while it has a
    /// checker on the bar or in the opponent's home board (its points 19 to 24); else a gammon.
    /// A resignation at this level or above gives the opponent all it can still win.
    #[must_use]
    pub fn worst_for(pos: &Position) -> Resign {
        let board = pos.signed_board();
        if pos.off() > 0 {
            Resign::Single
        } else if pos.bar() > 0 || board[19..=24].iter().any(|&n| n > 0) {
            Resign::Backgammon
        } else {
            Resign::Gammon
        }
    }

    /// `a single game`, `a gammon` or `a backgammon`.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Resign::Single => "a single game",
            Resign::Gammon => "a gammon",
            Resign::Backgammon => "a backgammon",
        }
    }
}

impl fmt::Display for Resign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Resign::Single => "single",
            Resign::Gammon => "gammon",
            Resign::Backgammon => "backgammon",
        })
    }
}

impl FromStr for Resign {
    type Err = ParseResignError;

    /// `single` (also `normal`, `s`, `n`, `1`), `gammon` (`g`, `2`) or `backgammon` (`bg`,
    /// `b`, `3`), in any case.
    fn from_str(s: &str) -> Result<Resign, ParseResignError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "single" | "normal" | "s" | "n" | "1" => Ok(Resign::Single),
            "gammon" | "g" | "2" => Ok(Resign::Gammon),
            "backgammon" | "bg" | "b" | "3" => Ok(Resign::Backgammon),
            _ => Err(ParseResignError {
                input: s.to_string(),
            }),
        }
    }
}

/// Text that names no resignation level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a resignation level: single, gammon or backgammon")]
pub struct ParseResignError {
    /// The text given.
    pub input: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_beaver_is_money_plays_and_keeps_the_cube_within_its_highest() {
        let mut g = GameState::money(Position::START);
        assert!(!g.may_beaver(), "beavers off");
        g.beavers = true;
        assert!(g.may_beaver());
        // A double to 2^14 beavered to 2^15: the highest cube.
        g.cube.log2 = Cube::MAX_LOG2 - 2;
        assert!(g.may_beaver());
        g.cube.log2 = Cube::MAX_LOG2 - 1;
        assert!(!g.may_beaver(), "the beaver would pass 32768");
        g.cube.log2 = 0;
        g.match_length = 5;
        assert!(!g.may_beaver(), "no beavers in a match");
    }

    #[test]
    fn a_double_is_answered_from_the_takers_side_and_turns_the_cube_to_it() {
        let mut g = GameState::money(Position::START);
        g.turn = Side::O;
        g.cube = Cube {
            log2: 1,
            owner: CubeOwner::Side(Side::O),
        };
        let asked = g.double_to_answer();
        assert_eq!(asked.turn, Side::X);
        assert_eq!(asked.position, g.position.flip());
        assert_eq!(asked.dice, Dice::DoubleOffered);
        assert_eq!(asked.cube, g.cube, "the cube before the double");

        let mut passed = g;
        assert_eq!(passed.answer_double(CubeResponse::Pass), Some(2));
        assert_eq!(passed, g, "a pass turns nothing");
        let mut taken = g;
        assert_eq!(taken.answer_double(CubeResponse::Take), None);
        assert_eq!(taken.cube.value(), 4);
        assert_eq!(taken.cube.owner, CubeOwner::Side(Side::X));
        let mut beavered = g;
        beavered.answer_double(CubeResponse::Beaver);
        assert_eq!(beavered.cube, taken.cube, "no beavers: a take");
        g.beavers = true;
        let mut beavered = g;
        beavered.answer_double(CubeResponse::Beaver);
        assert_eq!(beavered.cube.value(), 8);
        assert_eq!(beavered.cube.owner, CubeOwner::Side(Side::X));
        // At the highest cube the beaver is refused and a take stops there.
        g.cube.log2 = Cube::MAX_LOG2 - 1;
        let mut beavered = g;
        beavered.answer_double(CubeResponse::Beaver);
        assert_eq!(beavered.cube.log2, Cube::MAX_LOG2);
        // In a match there are no beavers: a beaver is a take.
        g.cube.log2 = 1;
        g.match_length = 7;
        let mut beavered = g;
        beavered.answer_double(CubeResponse::Beaver);
        assert_eq!(beavered.cube.value(), 4);
    }

    #[test]
    fn the_crawford_game_is_the_first_with_a_side_one_away() {
        let s = |x, o| BySide { x, o };
        assert!(!GameState::is_crawford_game(5, s(3, 2), false));
        assert!(GameState::is_crawford_game(5, s(4, 2), false));
        assert!(GameState::is_crawford_game(5, s(0, 4), false));
        assert!(
            !GameState::is_crawford_game(5, s(4, 2), true),
            "already played"
        );
        assert!(
            !GameState::is_crawford_game(1, s(0, 0), false),
            "a 1-point match has none"
        );
        assert!(GameState::is_crawford_game(2, s(1, 0), false));
    }

    #[test]
    fn post_crawford_is_derived() {
        let mut g = GameState::money(Position::START);
        assert!(!g.is_post_crawford());
        g.match_length = 5;
        g.score = BySide { x: 4, o: 2 };
        g.crawford = true;
        assert!(!g.is_post_crawford());
        g.crawford = false;
        assert!(g.is_post_crawford());
        assert_eq!(g.cube.value(), 1);
        assert_eq!(g.checkers_of(Side::O)[5], 5);
    }

    /// The cases gnubg 1.07 was asked to double in (it answers "The cube is dead; you can't
    /// double any more" where the cube is dead).
    #[test]
    fn a_dead_cube_may_not_be_turned() {
        let mut g = GameState::money(Position::START);
        g.cube.log2 = 6;
        assert!(
            !g.cube_is_dead() && g.may_double(),
            "money play: never dead"
        );
        // A 1-point match.
        g = GameState::money(Position::START);
        g.match_length = 1;
        assert!(g.cube_is_dead() && !g.may_double());
        // After the Crawford game, 3 points: the leader (2) may not double, the trailer may.
        g.match_length = 3;
        g.score = BySide { x: 2, o: 0 };
        assert!(!g.may_double());
        g.turn = Side::O;
        assert!(g.may_double());
        // 0-3 in a 5-point match, a centred 2-cube: dead for the side 2-away only.
        g.match_length = 5;
        g.score = BySide { x: 0, o: 3 };
        g.cube.log2 = 1;
        assert!(g.cube_is_dead() && !g.may_double());
        g.turn = Side::X;
        assert!(!g.cube_is_dead() && g.may_double());
    }

    #[test]
    fn a_cube_doubled_when_dead_is_unplayable() {
        let mut g = GameState::money(Position::START);
        g.match_length = 1;
        g.cube = Cube {
            log2: 1,
            owner: CubeOwner::Side(Side::X),
        };
        let why = g.why_unplayable().unwrap();
        assert!(
            why.contains("X owns a cube of 2, but O, who doubled it, needs 1"),
            "{why}"
        );
        // A 2-cube owned by the leader after the Crawford game: the trailer's double.
        g.match_length = 5;
        g.score = BySide { x: 4, o: 2 };
        assert_eq!(g.why_unplayable(), None);
        // The leader's own double to 2, taken by the trailer, was dead.
        g.cube.owner = CubeOwner::Side(Side::O);
        assert!(g.why_unplayable().is_some());
        // A 4-cube owned by X: O doubled from 2 needing 3, which can gain.
        g.score = BySide { x: 0, o: 2 };
        g.cube = Cube {
            log2: 2,
            owner: CubeOwner::Side(Side::X),
        };
        assert_eq!(g.why_unplayable(), None);
        // Needing 2, O's double from 2 could not gain.
        g.score = BySide { x: 0, o: 3 };
        assert!(g.why_unplayable().is_some());
        // Money play has no such limit.
        g.match_length = 0;
        g.score = BySide::default();
        assert_eq!(g.why_unplayable(), None);
    }

    #[test]
    fn cube_value_saturates_past_u32() {
        let cube = |log2| Cube {
            log2,
            owner: CubeOwner::Centre,
        };
        assert_eq!(cube(0).value(), 1);
        assert_eq!(cube(Cube::MAX_LOG2).value(), 32768);
        assert_eq!(cube(31).value(), 1 << 31);
        assert_eq!(cube(32).value(), u32::MAX);
        assert_eq!(cube(255).value(), u32::MAX);
    }

    #[test]
    fn why_no_double_names_each_rule_in_its_order() {
        let mut g = GameState::money(Position::START);
        assert_eq!(g.why_no_double(), None);
        g.cube = Cube {
            log2: 1,
            owner: CubeOwner::Side(Side::O),
        };
        assert_eq!(g.why_no_double(), Some(NoDouble::OpponentsCube));
        g.cube.owner = CubeOwner::Side(Side::X);
        assert_eq!(g.why_no_double(), None);
        g.cube.log2 = Cube::MAX_LOG2;
        assert_eq!(g.why_no_double(), Some(NoDouble::CubeAtMaximum));
        // In a match such a cube is dead, which is said first; the Crawford game before
        // either (a reader refuses these together; the order is what matters here).
        g.match_length = 9;
        assert_eq!(g.why_no_double(), Some(NoDouble::DeadCube));
        g.crawford = true;
        assert_eq!(g.why_no_double(), Some(NoDouble::Crawford));
        g = GameState::money(Position::START);
        g.match_length = 1;
        assert_eq!(g.why_no_double(), Some(NoDouble::DeadCube));
        assert!(!g.may_double());
        assert_eq!(
            NoDouble::Crawford.to_string(),
            "the Crawford game: no doubling"
        );
    }

    #[test]
    fn resignations_are_read_valued_and_bounded() {
        for (text, level) in [
            ("single", Resign::Single),
            ("Normal", Resign::Single),
            ("g", Resign::Gammon),
            (" BG ", Resign::Backgammon),
            ("3", Resign::Backgammon),
        ] {
            assert_eq!(text.parse::<Resign>(), Ok(level), "{text}");
        }
        let e = "double".parse::<Resign>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"double\" is not a resignation level: single, gammon or backgammon"
        );
        assert_eq!(Resign::ALL.map(Resign::level), [1, 2, 3]);
        assert_eq!(
            [1, 2, 3].map(Resign::of_outcome),
            [Resign::Single, Resign::Gammon, Resign::Backgammon]
        );
        assert_eq!(Resign::Gammon.to_string(), "gammon");

        let mut g = GameState::money(Position::START);
        g.cube.log2 = 2;
        g.cube.owner = CubeOwner::Side(Side::O);
        assert_eq!(Resign::Gammon.points_in(&g), 8);
        g.jacoby = true;
        assert_eq!(Resign::Backgammon.points_in(&g), 12, "the cube was turned");
        g.cube = Cube::default();
        assert_eq!(Resign::Backgammon.points_in(&g), 1, "Jacoby, centred cube");
        g.match_length = 7;
        assert_eq!(
            Resign::Backgammon.points_in(&g),
            3,
            "no Jacoby rule in a match"
        );

        // At the start the side on roll has checkers in the opponent's home board.
        assert_eq!(Resign::worst_for(&Position::START), Resign::Backgammon);
        // All fifteen on its own 6-point, none off: a gammon at worst.
        let mut b = [0i8; 26];
        b[6] = 15;
        b[20] = -15;
        let pos = Position::try_from(b).unwrap();
        assert_eq!(Resign::worst_for(&pos), Resign::Gammon);
        // One off: a single game.
        b[6] = 14;
        let pos = Position::try_from(b).unwrap();
        assert_eq!(Resign::worst_for(&pos), Resign::Single);
    }
}
