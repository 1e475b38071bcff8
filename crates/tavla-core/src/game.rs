//! The game state around a position: dice, cube, score and the match rules.

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
    /// The value shown on the cube.
    #[must_use]
    pub const fn value(self) -> u32 {
        1 << self.log2
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

impl GameState {
    /// Whether the side on roll may double now: the cube is in the middle or its own, it is
    /// not the Crawford game, and the cube is below its highest value (2^15).
    #[must_use]
    pub fn may_double(&self) -> bool {
        let own = match self.cube.owner {
            CubeOwner::Centre => true,
            CubeOwner::Side(s) => s == self.turn,
        };
        own && !self.crawford && self.cube.log2 < 15
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
