//! Dice and rolls.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseDiceError;

/// One die, 1 to 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Die(u8);

impl Die {
    /// The six faces in increasing order.
    pub const ALL: [Die; 6] = [Die(1), Die(2), Die(3), Die(4), Die(5), Die(6)];

    /// A die showing `value`.
    ///
    /// # Panics
    /// When `value` is not in 1..=6.
    #[must_use]
    #[track_caller]
    pub const fn new(value: u8) -> Die {
        assert!(value >= 1 && value <= 6, "a die shows 1 to 6");
        Die(value)
    }

    /// The number shown.
    #[must_use]
    pub const fn value(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for Die {
    type Error = ParseDiceError;
    fn try_from(value: u8) -> Result<Die, ParseDiceError> {
        if (1..=6).contains(&value) {
            Ok(Die(value))
        } else {
            Err(ParseDiceError::DieOutOfRange { value })
        }
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A roll of two dice. The order is not significant: the larger die is stored first, so `31`
/// and `13` are the same roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Roll {
    high: Die,
    low: Die,
}

impl Roll {
    /// The 21 distinct rolls with their weight out of 36 (2 for a non-double, 1 for a double),
    /// doubles first (`11`, `22`, ..., `66`), then the non-doubles in increasing order.
    pub const ALL_21: [(Roll, u8); 21] = {
        let mut all = [(Roll::from_values(1, 1), 1u8); 21];
        let mut n = 0;
        let mut d = 1;
        while d <= 6 {
            all[n] = (Roll::from_values(d, d), 1);
            n += 1;
            d += 1;
        }
        let mut low = 1;
        while low <= 6 {
            let mut high = low + 1;
            while high <= 6 {
                all[n] = (Roll::from_values(high, low), 2);
                n += 1;
                high += 1;
            }
            low += 1;
        }
        all
    };

    /// A roll of the two dice, in any order.
    #[must_use]
    pub const fn new(a: Die, b: Die) -> Roll {
        if a.0 >= b.0 {
            Roll { high: a, low: b }
        } else {
            Roll { high: b, low: a }
        }
    }

    /// A roll from two numbers.
    ///
    /// # Panics
    /// When a value is not in 1..=6.
    #[must_use]
    #[track_caller]
    pub const fn from_values(a: u8, b: u8) -> Roll {
        Roll::new(Die::new(a), Die::new(b))
    }

    /// The larger die.
    #[must_use]
    pub const fn high(self) -> Die {
        self.high
    }

    /// The smaller die.
    #[must_use]
    pub const fn low(self) -> Die {
        self.low
    }

    /// Whether both dice show the same number (played four times).
    #[must_use]
    pub const fn is_double(self) -> bool {
        self.high.0 == self.low.0
    }

    /// The probability weight out of 36: 1 for a double, 2 otherwise.
    #[must_use]
    pub const fn weight(self) -> u8 {
        if self.is_double() {
            1
        } else {
            2
        }
    }
}

impl fmt::Display for Roll {
    /// Two digits, larger first: `31`, `66`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.high, self.low)
    }
}

impl FromStr for Roll {
    type Err = ParseDiceError;

    /// Reads `31`, `3-1`, `3 1`, `3,1` or `3/1`, with surrounding whitespace.
    fn from_str(s: &str) -> Result<Roll, ParseDiceError> {
        let digits: Vec<(usize, char)> = s
            .char_indices()
            .filter(|(_, c)| !c.is_whitespace() && !matches!(c, '-' | ',' | '/'))
            .collect();
        if digits.len() != 2 {
            return Err(ParseDiceError::Syntax {
                input: s.to_string(),
            });
        }
        let mut dice = [Die(1); 2];
        for (slot, &(offset, c)) in dice.iter_mut().zip(&digits) {
            let value = c.to_digit(10).ok_or(ParseDiceError::BadChar {
                input: s.to_string(),
                offset,
                found: c,
            })?;
            *slot = Die::try_from(value as u8).map_err(|_| ParseDiceError::BadChar {
                input: s.to_string(),
                offset,
                found: c,
            })?;
        }
        Ok(Roll::new(dice[0], dice[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_21_has_weight_36_and_distinct_rolls() {
        let total: u32 = Roll::ALL_21.iter().map(|&(_, w)| u32::from(w)).sum();
        assert_eq!(total, 36);
        for (i, (a, wa)) in Roll::ALL_21.iter().enumerate() {
            assert_eq!(*wa, a.weight());
            for (b, _) in &Roll::ALL_21[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn parses_the_usual_spellings() {
        for s in ["31", "13", "3-1", "3 1", " 3,1 "] {
            assert_eq!(s.parse::<Roll>().unwrap(), Roll::from_values(3, 1), "{s}");
        }
        assert_eq!(Roll::from_values(1, 3).to_string(), "31");
    }

    #[test]
    fn rejects_bad_dice_with_the_offset() {
        assert!(matches!(
            "37".parse::<Roll>(),
            Err(ParseDiceError::BadChar {
                offset: 1,
                found: '7',
                ..
            })
        ));
        assert!(matches!(
            "3".parse::<Roll>(),
            Err(ParseDiceError::Syntax { .. })
        ));
        assert!(matches!(
            "312".parse::<Roll>(),
            Err(ParseDiceError::Syntax { .. })
        ));
        assert!(Die::try_from(0).is_err());
    }
}
