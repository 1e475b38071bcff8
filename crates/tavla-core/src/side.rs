//! The two sides of the board and a per-side container.

use std::fmt;
use std::ops::Not;

/// One of the two players, named by gnubg's letters.
///
/// `X` is gnubg's player 1: drawn at the bottom of the board, uppercase in XGID, "black" in BPN.
/// `O` is gnubg's player 0: drawn at the top, lowercase in XGID, "white" in BPN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// gnubg's player 1 (bottom, uppercase).
    X,
    /// gnubg's player 0 (top, lowercase).
    O,
}

impl Side {
    /// Both sides, `X` first.
    pub const ALL: [Side; 2] = [Side::X, Side::O];

    /// The opponent.
    #[must_use]
    pub const fn other(self) -> Side {
        match self {
            Side::X => Side::O,
            Side::O => Side::X,
        }
    }

    /// gnubg's player index: 1 for `X`, 0 for `O`.
    #[must_use]
    pub const fn gnubg_index(self) -> usize {
        match self {
            Side::X => 1,
            Side::O => 0,
        }
    }

    /// The side with gnubg player index `i` (0 = `O`, 1 = `X`); `None` for anything else.
    #[must_use]
    pub const fn from_gnubg_index(i: usize) -> Option<Side> {
        match i {
            0 => Some(Side::O),
            1 => Some(Side::X),
            _ => None,
        }
    }

    /// The letter `X` or `O`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Side::X => 'X',
            Side::O => 'O',
        }
    }
}

impl Not for Side {
    type Output = Side;
    fn not(self) -> Side {
        self.other()
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A value for each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BySide<T> {
    /// The value for `X`.
    pub x: T,
    /// The value for `O`.
    pub o: T,
}

impl<T> BySide<T> {
    /// Builds the container from a function of the side.
    pub fn from_fn(mut f: impl FnMut(Side) -> T) -> Self {
        BySide {
            x: f(Side::X),
            o: f(Side::O),
        }
    }

    /// The value for `side`.
    #[must_use]
    pub const fn get(&self, side: Side) -> &T {
        match side {
            Side::X => &self.x,
            Side::O => &self.o,
        }
    }

    /// The value for `side`, mutably.
    pub fn get_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::X => &mut self.x,
            Side::O => &mut self.o,
        }
    }

    /// Applies `f` to both values.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> BySide<U> {
        BySide {
            x: f(self.x),
            o: f(self.o),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_is_an_involution_and_matches_not() {
        for side in Side::ALL {
            assert_eq!(side.other().other(), side);
            assert_eq!(!side, side.other());
            assert_eq!(Side::from_gnubg_index(side.gnubg_index()), Some(side));
        }
        assert_eq!(Side::from_gnubg_index(2), None);
    }

    #[test]
    fn by_side_get_and_map() {
        let mut s = BySide { x: 1, o: 2 };
        *s.get_mut(Side::O) += 10;
        assert_eq!(*s.get(Side::O), 12);
        assert_eq!(s.map(|v| v * 2), BySide { x: 2, o: 24 });
    }
}
