//! Checker moves and whole plays.

use std::fmt;

/// Where the bar is in a [`CheckerMove`]'s `from`.
pub const FROM_BAR: u8 = 25;
/// Where "off" is in a [`CheckerMove`]'s `to`.
pub const TO_OFF: u8 = 0;

/// One checker moved by one die (or, in a written-out play, several dice in one go).
///
/// Points are in the mover's numbering: `from` is 1..=24 or [`FROM_BAR`] (25), `to` is 1..=24 or
/// [`TO_OFF`] (0). `hit` says an opposing blot on `to` was sent to the bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct CheckerMove {
    from: u8,
    to: u8,
    hit: bool,
}

impl CheckerMove {
    /// A checker move.
    ///
    /// # Panics
    /// When `from` is not in 1..=25, `to` is not in 0..=24, or `to >= from`.
    #[must_use]
    #[track_caller]
    pub const fn new(from: u8, to: u8, hit: bool) -> CheckerMove {
        assert!(
            from >= 1 && from <= 25 && to <= 24 && to < from,
            "invalid checker move"
        );
        assert!(!(hit && to == TO_OFF), "no hit when bearing off");
        CheckerMove { from, to, hit }
    }

    /// Unchecked constructor for the generator.
    #[inline(always)]
    pub(crate) const fn raw(from: u8, to: u8, hit: bool) -> CheckerMove {
        CheckerMove { from, to, hit }
    }

    /// The source point, 25 for the bar.
    #[must_use]
    pub const fn from(self) -> u8 {
        self.from
    }

    /// The destination point, 0 for off.
    #[must_use]
    pub const fn to(self) -> u8 {
        self.to
    }

    /// Whether an opposing blot was hit on the destination.
    #[must_use]
    pub const fn is_hit(self) -> bool {
        self.hit
    }

    /// Whether the checker enters from the bar.
    #[must_use]
    pub const fn is_entry(self) -> bool {
        self.from == FROM_BAR
    }

    /// Whether the checker is borne off.
    #[must_use]
    pub const fn is_bear_off(self) -> bool {
        self.to == TO_OFF
    }
}

impl fmt::Display for CheckerMove {
    /// `13/7`, `bar/22*`, `6/off`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.from == FROM_BAR {
            write!(f, "bar/")?;
        } else {
            write!(f, "{}/", self.from)?;
        }
        if self.to == TO_OFF {
            write!(f, "off")?;
        } else {
            write!(f, "{}", self.to)?;
        }
        if self.hit {
            write!(f, "*")?;
        }
        Ok(())
    }
}

/// The whole move for one roll: up to four checker moves, in the order they are played. The
/// empty play is the pass (no legal move).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Play {
    moves: [CheckerMove; 4],
    len: u8,
}

impl Play {
    /// The pass: no checker moves.
    pub const PASS: Play = Play {
        moves: [CheckerMove::raw(0, 0, false); 4],
        len: 0,
    };

    /// A play from its checker moves, in playing order.
    ///
    /// # Panics
    /// With more than four moves.
    #[must_use]
    #[track_caller]
    pub fn new(moves: &[CheckerMove]) -> Play {
        assert!(moves.len() <= 4, "a play has at most four checker moves");
        let mut p = Play::PASS;
        p.moves[..moves.len()].copy_from_slice(moves);
        p.len = moves.len() as u8;
        p
    }

    #[inline(always)]
    pub(crate) fn from_parts(moves: [CheckerMove; 4], len: u8) -> Play {
        Play { moves, len }
    }

    /// The checker moves, in playing order.
    #[must_use]
    pub fn moves(&self) -> &[CheckerMove] {
        &self.moves[..usize::from(self.len)]
    }

    /// Number of checker moves (dice used).
    #[must_use]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether this is the pass.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The checker moves sorted for writing: highest source first, then highest destination.
    #[must_use]
    pub fn sorted_moves(&self) -> Play {
        let mut p = *self;
        p.moves[..usize::from(p.len)].sort_by_key(|m| std::cmp::Reverse((m.from, m.to)));
        p
    }
}

impl fmt::Display for Play {
    /// Plain notation: every checker move on its own, sorted from the highest point down
    /// (`24/18 13/11*`); `pass` for the empty play.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "pass");
        }
        for (i, m) in self.sorted_moves().moves().iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{m}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_plain_notation_sorted() {
        let p = Play::new(&[
            CheckerMove::new(6, 5, false),
            CheckerMove::new(25, 22, true),
            CheckerMove::new(3, 0, false),
        ]);
        assert_eq!(p.to_string(), "bar/22* 6/5 3/off");
        assert_eq!(Play::PASS.to_string(), "pass");
        assert_eq!(p.len(), 3);
    }
}
