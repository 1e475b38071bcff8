//! One side's checkers in a bearoff: counts on points 1, 2, ...

use std::fmt;
use std::str::FromStr;

use crate::error::{ParsePositionError, PositionError};
use crate::MAX_POINTS;

/// One side's checkers in a bearoff position, as counts on its points 1 ([`MAX_POINTS`] at most),
/// from the side's own point of view: point 1 is its ace point, the last point it passes before
/// bearing off. Checkers not on a point are borne off; the other side's checkers do not matter.
///
/// Equality is equality of the counts. A `OneSided` knows nothing of a database's shape: whether
/// it fits one is checked when it is looked up ([`PositionError`]).
///
/// ```
/// use tavla_bearoff::OneSided;
///
/// let pos: OneSided = "3,3,2,0,2,1".parse()?;
/// assert_eq!(pos.count(1), 3);
/// assert_eq!(pos.checkers(), 11);
/// assert_eq!(pos.pips(), 3 + 6 + 6 + 10 + 6);
/// assert_eq!(pos.to_string(), "3,3,2,0,2,1");
/// # Ok::<(), tavla_bearoff::ParsePositionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OneSided {
    counts: [u8; MAX_POINTS],
}

impl OneSided {
    /// No checkers left: all borne off.
    pub const EMPTY: OneSided = OneSided {
        counts: [0; MAX_POINTS],
    };

    /// The position with `counts[i]` checkers on point `i + 1`.
    ///
    /// # Errors
    /// [`PositionError::TooManyPoints`] when more than [`MAX_POINTS`] counts are given.
    pub fn new(counts: &[u8]) -> Result<OneSided, PositionError> {
        if counts.len() > MAX_POINTS {
            return Err(PositionError::TooManyPoints {
                found: counts.len(),
                max: MAX_POINTS,
            });
        }
        let mut pos = OneSided::EMPTY;
        pos.counts[..counts.len()].copy_from_slice(counts);
        Ok(pos)
    }

    pub(crate) fn from_array(counts: [u8; MAX_POINTS]) -> OneSided {
        OneSided { counts }
    }

    /// Checkers on each point; index 0 is point 1.
    #[must_use]
    pub fn counts(&self) -> &[u8; MAX_POINTS] {
        &self.counts
    }

    /// Checkers on `point` (1-based); 0 for a point outside `1..=MAX_POINTS`.
    #[must_use]
    pub fn count(&self, point: usize) -> u8 {
        if (1..=MAX_POINTS).contains(&point) {
            self.counts[point - 1]
        } else {
            0
        }
    }

    /// Checkers still on the board.
    #[must_use]
    pub fn checkers(&self) -> u32 {
        self.counts.iter().map(|&c| u32::from(c)).sum()
    }

    /// Pip count: the sum over checkers of their point numbers.
    #[must_use]
    pub fn pips(&self) -> u32 {
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as u32 + 1) * u32::from(c))
            .sum()
    }

    /// The highest point with a checker, 0 when all are off.
    #[must_use]
    pub fn highest_point(&self) -> usize {
        self.counts
            .iter()
            .rposition(|&c| c > 0)
            .map_or(0, |i| i + 1)
    }

    /// Whether all checkers are borne off.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }
}

impl fmt::Display for OneSided {
    /// Comma-separated counts, ace point first, at least six fields (`0,0,2,1,0,0`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.highest_point().max(6);
        for (i, c) in self.counts[..n].iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl FromStr for OneSided {
    type Err = ParsePositionError;

    /// Reads comma-separated checker counts, ace point first (`3,3,2,0,2,1`); missing trailing
    /// points are empty. Spaces around fields are allowed.
    fn from_str(s: &str) -> Result<OneSided, ParsePositionError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(ParsePositionError::Empty);
        }
        let fields: Vec<&str> = s.split(',').collect();
        if fields.len() > MAX_POINTS {
            return Err(ParsePositionError::TooManyPoints {
                found: fields.len(),
                max: MAX_POINTS,
            });
        }
        let mut counts = [0u8; MAX_POINTS];
        let mut total = 0usize;
        for (i, field) in fields.iter().enumerate() {
            let t = field.trim();
            let c: u8 = t.parse().ok().filter(|&c| c <= 15).ok_or_else(|| {
                ParsePositionError::BadCount {
                    field: i + 1,
                    text: (*field).to_string(),
                }
            })?;
            counts[i] = c;
            total += usize::from(c);
        }
        if total > 15 {
            return Err(ParsePositionError::TooManyCheckers { found: total });
        }
        Ok(OneSided { counts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        let p: OneSided = " 0, 0,2,1 ".parse().unwrap();
        assert_eq!(p.to_string(), "0,0,2,1,0,0");
        assert_eq!(p.highest_point(), 4);
        assert_eq!(p.pips(), 10);
        let q: OneSided = "0,0,0,0,0,0,1".parse().unwrap();
        assert_eq!(q.to_string(), "0,0,0,0,0,0,1");
    }

    #[test]
    fn parse_errors_name_the_field() {
        assert_eq!(
            "1,x,3".parse::<OneSided>(),
            Err(ParsePositionError::BadCount {
                field: 2,
                text: "x".into()
            })
        );
        assert_eq!("".parse::<OneSided>(), Err(ParsePositionError::Empty));
        assert_eq!(
            "1,16".parse::<OneSided>(),
            Err(ParsePositionError::BadCount {
                field: 2,
                text: "16".into()
            })
        );
        assert_eq!(
            "8,8".parse::<OneSided>(),
            Err(ParsePositionError::TooManyCheckers { found: 16 })
        );
        let many = vec!["0"; 25].join(",");
        assert!(matches!(
            many.parse::<OneSided>(),
            Err(ParsePositionError::TooManyPoints { found: 25, .. })
        ));
    }
}
