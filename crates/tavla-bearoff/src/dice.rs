//! The roll of two dice, as far as a bearoff needs it.

use std::fmt;
use std::str::FromStr;

use crate::error::DiceError;

/// A roll of two dice; the larger die is stored first, so `31` and `13` are the same roll.
///
/// ```
/// use tavla_bearoff::Dice;
///
/// let d: Dice = "16".parse()?;
/// assert_eq!((d.high(), d.low()), (6, 1));
/// assert_eq!(Dice::ALL_21.iter().map(|&(_, w)| u32::from(w)).sum::<u32>(), 36);
/// # Ok::<(), tavla_bearoff::DiceError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dice {
    high: u8,
    low: u8,
}

impl Dice {
    /// The 21 distinct rolls with their weight out of 36: doubles `11`..`66` (weight 1) first,
    /// then the non-doubles (weight 2).
    pub const ALL_21: [(Dice, u8); 21] = {
        let mut all = [(Dice { high: 1, low: 1 }, 1u8); 21];
        let mut n = 0;
        let mut d = 1;
        while d <= 6 {
            all[n] = (Dice { high: d, low: d }, 1);
            n += 1;
            d += 1;
        }
        let mut high = 2;
        while high <= 6 {
            let mut low = 1;
            while low < high {
                all[n] = (Dice { high, low }, 2);
                n += 1;
                low += 1;
            }
            high += 1;
        }
        all
    };

    /// The roll of `a` and `b`, in either order.
    ///
    /// # Errors
    /// [`DiceError::OutOfRange`] when a value is not 1 to 6.
    pub fn new(a: u8, b: u8) -> Result<Dice, DiceError> {
        for value in [a, b] {
            if !(1..=6).contains(&value) {
                return Err(DiceError::OutOfRange { value });
            }
        }
        Ok(Dice {
            high: a.max(b),
            low: a.min(b),
        })
    }

    /// The larger die.
    #[must_use]
    pub fn high(self) -> u8 {
        self.high
    }

    /// The smaller die.
    #[must_use]
    pub fn low(self) -> u8 {
        self.low
    }

    /// Whether both dice show the same number.
    #[must_use]
    pub fn is_double(self) -> bool {
        self.high == self.low
    }

    /// Position of this roll in [`Dice::ALL_21`].
    #[must_use]
    pub fn index21(self) -> usize {
        if self.is_double() {
            usize::from(self.high - 1)
        } else {
            let (h, l) = (usize::from(self.high), usize::from(self.low));
            // Non-doubles with a smaller high die come first: (h-1)(h-2)/2 of them.
            6 + (h - 1) * (h - 2) / 2 + (l - 1)
        }
    }
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.high, self.low)
    }
}

impl FromStr for Dice {
    type Err = DiceError;

    /// Reads two digits (`61`), optionally separated by a space, comma, dash or `x`.
    fn from_str(s: &str) -> Result<Dice, DiceError> {
        let digits: Vec<char> = s
            .trim()
            .chars()
            .filter(|c| !matches!(c, ' ' | ',' | '-' | 'x'))
            .collect();
        let syntax = || DiceError::Syntax {
            text: s.to_string(),
        };
        match digits[..] {
            [a, b] => {
                let a = a.to_digit(10).ok_or_else(syntax)? as u8;
                let b = b.to_digit(10).ok_or_else(syntax)? as u8;
                Dice::new(a, b)
            }
            _ => Err(syntax()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_21_are_distinct_and_indexed() {
        for (i, (d, w)) in Dice::ALL_21.iter().enumerate() {
            assert_eq!(d.index21(), i);
            assert_eq!(*w, if d.is_double() { 1 } else { 2 });
        }
    }

    #[test]
    fn parse() {
        assert_eq!("61".parse::<Dice>().unwrap(), Dice::new(1, 6).unwrap());
        assert_eq!("1-6".parse::<Dice>().unwrap(), Dice::new(6, 1).unwrap());
        assert_eq!(
            "71".parse::<Dice>(),
            Err(DiceError::OutOfRange { value: 7 })
        );
        assert!(matches!(
            "611".parse::<Dice>(),
            Err(DiceError::Syntax { .. })
        ));
    }
}
