//! Landing marks: a turn written as where each die's checker landed, the fast record of Hideo
//! Kato's 1981 method ("Recording Backgammon Games"; SPEC-move-notation.md §4).
//!
//! Kato's recorder writes each die's number on the square where a checker landed, crosses out a
//! die that could not be played, and leaves the rest (which checker moved, the order, hits, bar
//! entries, the roll itself) to be worked out. A turn here is the same marks on one line:
//!
//! | mark | meaning |
//! |---|---|
//! | `6@18` | a checker moved with a 6 landed on the mover's 18-point |
//! | `5@off` | a checker was borne off with a 5 |
//! | `@18` | a checker landed on 18 with whichever die fits (when the roll is known) |
//! | `4x` | a 4 could not be played |
//! | `6@18<bar`, `5@off<3` | the same, saying where the checker started (only needed to choose between plays the marks alone cannot tell apart) |
//!
//! Points are the mover's (1 to 24, `off`; a start may also be `bar` or 25); marks are separated
//! by spaces or commas and may come in any order. A two-step move of one checker is two marks
//! (`6@18 4@14`). The roll is the dice of the marks (two different dice, or four of a double,
//! crossed-out dice counted), unless it is known ([`LandingMarks::resolve`] with a roll). The
//! marks are resolved against the legal plays: exactly one must fit.

use std::fmt;
use std::str::FromStr;

use tavla_core::{Play, Position, Roll};

use crate::error::Problem;
use crate::moves::{format_pretty, PlayText, TextMove};

/// One reading of a mark: the die, the start point (25 the bar) and the landing point (0 off).
type Step = (u8, u8, u8);

/// Where a mark's checker went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Landing {
    /// On this point (1..=24).
    Point(u8),
    /// Borne off.
    Off,
    /// Nowhere: the die could not be played.
    NotPlayed,
}

/// One mark: a die, where its checker landed, and optionally where it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LandingMark {
    /// The die (1..=6); `None` for `@P`, whose die is found from the roll.
    pub die: Option<u8>,
    /// Where the checker landed.
    pub landing: Landing,
    /// Where it started (1..=24, 25 for the bar), when written.
    pub from: Option<u8>,
}

/// A turn's marks, as written (syntax only; [`LandingMarks::resolve`] finds the play).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LandingMarks {
    /// The marks in written order.
    pub marks: Vec<LandingMark>,
}

/// Text that is not landing marks, or marks that fit no legal play or several.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LandingError {
    /// The text cannot be read.
    #[error("invalid landing marks at offset {offset}: {problem}")]
    Syntax {
        /// Byte offset of the mark at fault.
        offset: usize,
        /// What is wrong.
        problem: Problem,
    },
    /// The roll cannot be read off the marks' dice.
    #[error("{0}")]
    Roll(String),
    /// The marks name a die the roll does not have, or too many of one.
    #[error("the marks use {dice}, but the roll is {roll}")]
    NotTheRoll {
        /// The dice written, in order.
        dice: String,
        /// The roll.
        roll: Roll,
    },
    /// No legal play fits the marks.
    #[error("no legal play of {roll} lands as {marks}")]
    Illegal {
        /// The marks, in normal form.
        marks: String,
        /// The roll.
        roll: Roll,
    },
    /// Several legal plays fit.
    #[error("{marks} fits several plays of {roll}: {}; write where a checker started (e.g. 6@18<24)", .candidates.join(" or "))]
    Ambiguous {
        /// The marks, in normal form.
        marks: String,
        /// The roll.
        roll: Roll,
        /// The plays, in gnubg's pretty form.
        candidates: Vec<String>,
    },
}

fn syntax(offset: usize, problem: Problem) -> LandingError {
    LandingError::Syntax { offset, problem }
}

/// A point of a mark: 1..=24, `off` (when `off` may be), `bar`/25 (when `bar` may be).
fn point(text: &str, offset: usize, off: bool, bar: bool) -> Result<Option<u8>, LandingError> {
    let lower = text.to_ascii_lowercase();
    if off && lower == "off" {
        return Ok(None);
    }
    if bar && lower == "bar" {
        return Ok(Some(25));
    }
    let expected = match (off, bar) {
        (true, _) => "a point 1 to 24 or off",
        (false, true) => "a point 1 to 25 or bar",
        (false, false) => "a point 1 to 24",
    };
    if text.is_empty() {
        return Err(syntax(offset, Problem::Missing { expected }));
    }
    let n: i64 = text.parse().map_err(|_| {
        syntax(
            offset,
            Problem::BadNumber {
                text: text.to_string(),
            },
        )
    })?;
    let top = if bar { 25 } else { 24 };
    if !(1..=top).contains(&n) {
        return Err(syntax(offset, Problem::OutOfRange { value: n, expected }));
    }
    Ok(Some(n as u8))
}

fn mark(text: &str, offset: usize) -> Result<LandingMark, LandingError> {
    let die_of = |d: &str| -> Result<u8, LandingError> {
        match d.parse::<u8>() {
            Ok(v @ 1..=6) => Ok(v),
            _ => Err(syntax(
                offset,
                Problem::BadNumber {
                    text: d.to_string(),
                },
            )),
        }
    };
    let lower = text.to_ascii_lowercase();
    if let Some(d) = lower.strip_suffix('x') {
        return Ok(LandingMark {
            die: Some(die_of(d)?),
            landing: Landing::NotPlayed,
            from: None,
        });
    }
    let Some((die, rest)) = text.split_once('@') else {
        return Err(syntax(
            offset,
            Problem::UnexpectedChar {
                found: text.chars().next().unwrap_or(' '),
                expected: "a mark D@P, @P or Dx",
            },
        ));
    };
    let die = if die.is_empty() {
        None
    } else {
        Some(die_of(die)?)
    };
    let at = offset + text.len() - rest.len();
    let (to, from) = match rest.split_once('<') {
        Some((to, from)) => {
            let f = at + to.len() + 1;
            (to, point(from, f, false, true)?)
        }
        None => (rest, None),
    };
    let landing = match point(to, at, true, false)? {
        Some(p) => Landing::Point(p),
        None => Landing::Off,
    };
    Ok(LandingMark { die, landing, from })
}

impl FromStr for LandingMarks {
    type Err = LandingError;

    fn from_str(s: &str) -> Result<LandingMarks, LandingError> {
        let mut marks = Vec::new();
        let mut offset = 0;
        for word in s.split([' ', ',', '\t']) {
            if !word.is_empty() {
                marks.push(mark(word, offset)?);
            }
            offset += word.len() + 1;
        }
        if marks.is_empty() {
            return Err(syntax(0, Problem::Missing { expected: "a mark" }));
        }
        if marks.len() > 4 {
            return Err(LandingError::Roll(format!(
                "{} marks: a turn has at most four",
                marks.len()
            )));
        }
        Ok(LandingMarks { marks })
    }
}

impl fmt::Display for LandingMarks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, m) in self.marks.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if let Some(d) = m.die {
                write!(f, "{d}")?;
            }
            match m.landing {
                Landing::Point(p) => write!(f, "@{p}")?,
                Landing::Off => f.write_str("@off")?,
                Landing::NotPlayed => f.write_str("x")?,
            }
            match m.from {
                Some(25) => f.write_str("<bar")?,
                Some(p) => write!(f, "<{p}")?,
                None => {}
            }
        }
        Ok(())
    }
}

impl LandingMarks {
    /// The roll the marks' dice make: two different dice, or four of a double (crossed-out
    /// dice counted).
    ///
    /// # Errors
    /// [`LandingError::Roll`] when a mark has no die (`@P`) or the dice are not a roll.
    pub fn roll(&self) -> Result<Roll, LandingError> {
        let dice: Vec<u8> = self
            .marks
            .iter()
            .map(|m| {
                m.die.ok_or_else(|| {
                    LandingError::Roll(format!(
                        "`{self}`: the roll is not known, so every mark needs its die (D@P)"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        match dice[..] {
            [a, b] if a != b => Ok(Roll::from_values(a, b)),
            [a, b, c, d] if a == b && b == c && c == d => Ok(Roll::from_values(a, a)),
            [a, b] | [a, b, _] | [a, b, _, _] if a == b => Err(LandingError::Roll(format!(
                "`{self}`: a double needs four marks (Dx for a die that could not be played)"
            ))),
            _ => Err(LandingError::Roll(format!(
                "`{self}`: the dice are not a roll (two different dice, or four of a double; Dx \
                 for a die that could not be played)"
            ))),
        }
    }

    /// The legal play of `pos` the marks describe, for `roll` (or, when `None`, the roll the
    /// marks' dice make), with the roll.
    ///
    /// Each mark is a checker step: from its landing point plus the die (the bar past 24), or
    /// from where it says; a bear-off with a die larger than any point left may come from any
    /// lower point. A mark without a die takes whichever of the roll's dice fits. Every way of
    /// reading the marks is matched by resulting position against the legal plays
    /// ([`PlayText::resolve`]); exactly one play must fit.
    ///
    /// # Errors
    /// [`LandingError::Roll`] or [`LandingError::NotTheRoll`] when the dice do not fit the
    /// roll; [`LandingError::Illegal`] when no legal play fits; [`LandingError::Ambiguous`]
    /// when several do.
    pub fn resolve(
        &self,
        pos: &Position,
        roll: Option<Roll>,
    ) -> Result<(Roll, Play), LandingError> {
        let roll = match roll {
            Some(r) => r,
            None => self.roll()?,
        };
        let rolled: Vec<u8> = if roll.is_double() {
            vec![roll.high().value(); 4]
        } else {
            vec![roll.high().value(), roll.low().value()]
        };
        // Each mark's readings; none for a crossed-out die.
        let mut readings: Vec<Vec<Step>> = Vec::new();
        let mut written_dice = Vec::new();
        for m in &self.marks {
            let dice: Vec<u8> = match m.die {
                Some(d) => vec![d],
                None => {
                    let mut d = rolled.clone();
                    d.dedup();
                    d
                }
            };
            if let Some(d) = m.die {
                written_dice.push(d);
            }
            if m.landing == Landing::NotPlayed {
                continue;
            }
            let mut r = Vec::new();
            for d in dice {
                match (m.landing, m.from) {
                    (Landing::Point(p), Some(f)) => r.push((d, f, p)),
                    (Landing::Point(p), None) if p + d <= 25 => r.push((d, p + d, p)),
                    (Landing::Point(_), None) => {}
                    (Landing::Off, Some(f)) => r.push((d, f, 0)),
                    (Landing::Off, None) => r.extend((1..=d).rev().map(|f| (d, f, 0))),
                    (Landing::NotPlayed, _) => {}
                }
            }
            readings.push(r);
        }
        // The written dice must all be the roll's.
        let mut left = rolled.clone();
        for d in &written_dice {
            match left.iter().position(|x| x == d) {
                Some(i) => {
                    left.remove(i);
                }
                None => {
                    return Err(LandingError::NotTheRoll {
                        dice: written_dice
                            .iter()
                            .map(u8::to_string)
                            .collect::<Vec<_>>()
                            .join(" "),
                        roll,
                    })
                }
            }
        }
        let mut found: Vec<Play> = Vec::new();
        let mut steps = Vec::with_capacity(readings.len());
        self.each_reading(&readings, &rolled, &mut steps, &mut |steps| {
            let text = PlayText {
                roll: None,
                moves: steps
                    .iter()
                    .map(|&(_, from, to)| TextMove::step(from, to, false))
                    .collect(),
            };
            if let Ok(play) = text.resolve(pos, roll) {
                let after = pos.play(roll, &play).ok();
                if !found.iter().any(|p| pos.play(roll, p).ok() == after) {
                    found.push(play);
                }
            }
        });
        match found.len() {
            0 => Err(LandingError::Illegal {
                marks: self.to_string(),
                roll,
            }),
            1 => Ok((roll, found.remove(0))),
            _ => Err(LandingError::Ambiguous {
                marks: self.to_string(),
                roll,
                candidates: found.iter().map(|p| format_pretty(pos, p)).collect(),
            }),
        }
    }

    /// Calls `f` with every choice of one reading a mark, using each die of `rolled` at most
    /// once.
    fn each_reading(
        &self,
        readings: &[Vec<Step>],
        rolled: &[u8],
        steps: &mut Vec<Step>,
        f: &mut dyn FnMut(&[Step]),
    ) {
        let Some((first, rest)) = readings.split_first() else {
            f(steps);
            return;
        };
        for &r in first {
            let used = steps.iter().filter(|s| s.0 == r.0).count();
            if used >= rolled.iter().filter(|&&d| d == r.0).count() {
                continue;
            }
            steps.push(r);
            self.each_reading(rest, rolled, steps, f);
            steps.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format_pretty;

    fn resolve(pos: &Position, marks: &str, roll: Option<Roll>) -> Result<String, LandingError> {
        let m: LandingMarks = marks.parse()?;
        let (_, play) = m.resolve(pos, roll)?;
        Ok(format_pretty(pos, &play))
    }

    #[test]
    fn kato_marks_give_the_play() {
        let start = Position::START;
        assert_eq!(resolve(&start, "3@5 1@5", None).unwrap(), "8/5 6/5");
        assert_eq!(resolve(&start, "6@18 2@11", None).unwrap(), "24/18 13/11");
        // One checker twice: the second mark starts where the first landed.
        assert_eq!(resolve(&start, "6@18 4@14", None).unwrap(), "24/14");
        assert_eq!(resolve(&start, "4@20 6@14", None).unwrap(), "24/14");
        // A double: four marks; and the order does not matter.
        assert_eq!(
            resolve(&start, "6@7 6@18 6@18 6@7", None).unwrap(),
            "24/18(2) 13/7(2)"
        );
        // With the roll known, the dice may be left out.
        let r = Some(Roll::from_values(3, 1));
        assert_eq!(resolve(&start, "@5 @5", r).unwrap(), "8/5 6/5");
        assert_eq!(
            resolve(&start, "@7 @7", Some(Roll::from_values(6, 6)))
                .unwrap_err()
                .to_string(),
            "no legal play of 66 lands as @7 @7"
        );
    }

    #[test]
    fn bar_entries_bear_offs_and_dice_not_played() {
        // The side on roll: one checker on the bar, the rest home; the opponent holds its
        // 1- to 5-points (the side's 20 to 24), so only a 6 enters.
        let mut b = [0i8; 26];
        b[tavla_core::BAR] = 1;
        b[6] = 4;
        b[5] = 10;
        b[20..=24].fill(-2);
        b[12] = -5;
        let pos = Position::try_from(b).unwrap();
        // 64: the 6 enters on the 19-point, then the 4 is played from there.
        assert_eq!(resolve(&pos, "6@19 4@15", None).unwrap(), "bar/15");
        // 54: nothing enters.
        assert_eq!(resolve(&pos, "5x 4x", None).unwrap(), "");
        // Bearing off with a larger die than any point left.
        let mut b = [0i8; 26];
        b[3] = 1;
        b[2] = 1;
        b[24] = -15;
        let pos = Position::try_from(b).unwrap();
        assert_eq!(resolve(&pos, "6@off 5@off", None).unwrap(), "3/off 2/off");
        assert_eq!(
            resolve(&pos, "6@off<3 5@off<2", None).unwrap(),
            "3/off 2/off"
        );
    }

    #[test]
    fn ambiguous_and_bad_marks_say_what_is_wrong() {
        let start = Position::START;
        // 65 from the start: `6@18 5@13` is one checker, 24/13.
        assert_eq!(resolve(&start, "6@18 5@13", None).unwrap(), "24/13");
        // With the dice left out, marks can fit two plays: checkers on 19, 17, 15 and 13, a 62
        // landing on 11 and 13 is 17/11 15/13 or 19/13 13/11 (19/11).
        let mut b = [0i8; 26];
        for p in [19, 17, 15, 13] {
            b[p] = 1;
        }
        b[6] = 11;
        b[1] = -15;
        let pos = Position::try_from(b).unwrap();
        let e = resolve(&pos, "@11 @13", Some(Roll::from_values(6, 2))).unwrap_err();
        assert!(
            matches!(&e, LandingError::Ambiguous { candidates, .. } if candidates.len() == 2),
            "{e}"
        );
        assert!(
            e.to_string().contains("write where a checker started"),
            "{e}"
        );
        // The dice, or a start, settle it.
        assert_eq!(resolve(&pos, "6@11 2@13", None).unwrap(), "17/11 15/13");
        assert_eq!(
            resolve(&pos, "@11<13 @13", Some(Roll::from_values(6, 2))).unwrap(),
            "19/11"
        );
        let cases = [
            ("6@18 6@18", "a double needs four marks"),
            ("6@18 4@14 2@12", "not a roll"),
            ("@18 4@14", "every mark needs its die"),
            ("7@18 4@14", "offset 0"),
            ("6@30 4@14", "offset 2"),
            ("6-18", "a mark D@P, @P or Dx"),
            ("", "a mark"),
            ("6@18 4@14<26", "offset 10"),
        ];
        for (text, what) in cases {
            let e = resolve(&start, text, None).unwrap_err().to_string();
            assert!(e.contains(what), "{text:?}: {e}");
        }
        let e = resolve(&start, "5@18", Some(Roll::from_values(6, 4))).unwrap_err();
        assert_eq!(e.to_string(), "the marks use 5, but the roll is 64");
        // Marks that parse and print back the same.
        let m: LandingMarks = "6@18<bar 5@off, 4x @7".parse().unwrap();
        assert_eq!(m.to_string(), "6@18<bar 5@off 4x @7");
    }
}
