//! BPN, the Backgammon Position Notation (Kristian Jakobsen, 2023), as SPEC-bpn.md resolves it.
//!
//! ```text
//! bpn        = placement "-" bar "-" turn "-" cube "-" match [ "-" flags ]
//! placement  = 1*( checkers / run )   ; exactly 24 points, BPN index = black's (X's) point
//! checkers   = a..o (white count 1..15) / A..O (black count 1..15)
//! run        = 1..24 empty points, decimal without leading zero
//! bar        = "w" count "b" count    ; count 0..15, at most two digits
//! turn       = ("w" / "b") ( "00" / die die / "D" )
//! cube       = "n" value [ owner ]    ; value 1..32768, a power of two; owner 0 centre,
//!                                     ; 1 white, 2 black
//! match      = white ":" black ":" length   ; length 0..=32767, 0 = money (score 0:0)
//! flags      = ["c"] ["j"] ["v"]      ; Crawford game (match) / Jacoby, beavers (money)
//! ```
//!
//! White is [`Side::O`] (lowercase, gnubg's player 0), black is [`Side::X`] (uppercase, player
//! 1). White's own point for BPN index `i` is `25 - i`. The 4-field first draft
//! (`placement-value:owner-colour-score`, owner `n`/`w`/`b`, no bar field, no dice) is read too;
//! the writer always produces the canonical 5- or 6-field form.

use std::fmt;
use std::str::FromStr;

use tavla_core::{BySide, Cube, CubeOwner, Dice, GameState, Side};

use crate::error::{parse_uint, split_offsets, Problem};
use crate::state::{check_match, position_from_sides, sides_of, MatchCheck, MAX_MATCH_LENGTH};

/// The field of a BPN string an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BpnField {
    /// The string as a whole (the number of fields).
    Whole,
    /// Field 1, the checkers on the 24 points.
    Placement,
    /// Field 2, the checkers on the bar.
    Bar,
    /// Field 3, the side on roll and the dice.
    Turn,
    /// Field 4, the cube.
    Cube,
    /// Field 5, the scores and the match length.
    Match,
    /// Field 6, the rule flags.
    Flags,
}

impl fmt::Display for BpnField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BpnField::Whole => "string",
            BpnField::Placement => "placement",
            BpnField::Bar => "bar",
            BpnField::Turn => "turn",
            BpnField::Cube => "cube",
            BpnField::Match => "match",
            BpnField::Flags => "flags",
        })
    }
}

/// Text that is not a valid BPN string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid BPN: {field} at offset {offset}: {problem}")]
pub struct ParseBpnError {
    /// The field at fault.
    pub field: BpnField,
    /// Byte offset in the text where the problem was found.
    pub offset: usize,
    /// What is wrong.
    pub problem: Problem,
}

/// A game state read from or written as BPN.
///
/// `Display` is the canonical writer: runs of empty points merged, the cube owner digit only
/// when the cube is owned, dice larger first, flags only when set. It writes `c` only in match
/// play and `j`/`v` only in money play, which is all the reader accepts.
///
/// ```
/// use tavla_notation::Bpn;
///
/// let Bpn(state) = "b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:7".parse()?;
/// assert_eq!(state.match_length, 7);
/// assert_eq!(Bpn(state).to_string(), "b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:7");
/// # Ok::<(), tavla_notation::ParseBpnError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bpn(pub GameState);

type Result<T> = std::result::Result<T, ParseBpnError>;

fn err(field: BpnField, offset: usize, problem: Problem) -> ParseBpnError {
    ParseBpnError {
        field,
        offset,
        problem,
    }
}

/// Whether `text` is a whole BPN placement (24 points), for telling BPN from other notations.
pub(crate) fn is_placement(text: &str) -> bool {
    parse_placement(text, 0, &mut [0; 25], &mut [0; 25]).is_ok()
}

/// Reads the placement into X's and O's arrays.
fn parse_placement(text: &str, at: usize, x: &mut [u8; 25], o: &mut [u8; 25]) -> Result<()> {
    let bytes = text.as_bytes();
    let mut point = 0u32; // points described so far
    let mut i = 0;
    let fail = |i: usize, p| err(BpnField::Placement, at + i, p);
    if text.is_empty() {
        return Err(fail(
            0,
            Problem::Missing {
                expected: "the checkers on 24 points",
            },
        ));
    }
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'a'..=b'o' | b'A'..=b'O' => {
                point += 1;
                if point > 24 {
                    return Err(fail(i, Problem::PointCount { found: point }));
                }
                let p = point as usize;
                if c.is_ascii_lowercase() {
                    o[24 - p] = c - b'a' + 1;
                } else {
                    x[p - 1] = c - b'A' + 1;
                }
                i += 1;
            }
            b'1'..=b'9' => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let run = parse_uint(&text[start..i], 24, "a run of 1..=24 empty points")
                    .map_err(|p| fail(start, p))?;
                point += run as u32;
                if point > 24 {
                    return Err(fail(start, Problem::PointCount { found: point }));
                }
            }
            _ => {
                let found = text[i..].chars().next().unwrap_or('\0');
                return Err(fail(
                    i,
                    Problem::UnexpectedChar {
                        found,
                        expected: "a checker count a-o or A-O, or a run of empty points 1-24",
                    },
                ));
            }
        }
    }
    if point != 24 {
        return Err(fail(text.len(), Problem::PointCount { found: point }));
    }
    Ok(())
}

/// Reads `w<n>b<n>`: white's and black's checkers on the bar.
fn parse_bar(text: &str, at: usize) -> Result<(u8, u8)> {
    let fail = |i: usize, p| err(BpnField::Bar, at + i, p);
    let expected = "w<count>b<count>";
    let Some(rest) = text.strip_prefix('w') else {
        return Err(match text.chars().next() {
            Some(found) => fail(0, Problem::UnexpectedChar { found, expected }),
            None => fail(0, Problem::Missing { expected }),
        });
    };
    let Some(b) = rest.find('b') else {
        return Err(fail(
            text.len(),
            Problem::Missing {
                expected: "b<count>",
            },
        ));
    };
    let count = |s: &str, off: usize| -> Result<u8> {
        if s.len() > 2 {
            return Err(fail(
                off,
                Problem::BadNumber {
                    text: s.to_string(),
                },
            ));
        }
        parse_uint(s, 15, "a bar count 0..=15")
            .map(|v| v as u8)
            .map_err(|p| fail(off, p))
    };
    let white = count(&rest[..b], 1)?;
    let black = count(&rest[b + 1..], b + 2)?;
    Ok((white, black))
}

/// `w`/`b` at the start of a field: the side.
fn parse_colour(c: Option<char>, field: BpnField, at: usize) -> Result<Side> {
    match c {
        Some('w') => Ok(Side::O),
        Some('b') => Ok(Side::X),
        Some(found) => Err(err(
            field,
            at,
            Problem::UnexpectedChar {
                found,
                expected: "the side on roll, w or b",
            },
        )),
        None => Err(err(
            field,
            at,
            Problem::Missing {
                expected: "the side on roll, w or b",
            },
        )),
    }
}

/// Reads the turn field: side, then `00`, `D` or two dice.
fn parse_turn(text: &str, at: usize) -> Result<(Side, Dice)> {
    let side = parse_colour(text.chars().next(), BpnField::Turn, at)?;
    let dice = &text[1..];
    let fail = |i: usize, p| err(BpnField::Turn, at + 1 + i, p);
    let expected = "dice: 00, D or two dice 1-6";
    match dice {
        "00" => return Ok((side, Dice::NotRolled)),
        "D" => return Ok((side, Dice::DoubleOffered)),
        _ => {}
    }
    let roll = crate::error::parse_two_dice(dice, expected, "the end of the turn field")
        .map_err(|(i, p)| fail(i, p))?;
    Ok((side, Dice::Rolled(roll)))
}

/// The log2 of a cube value written in decimal, when it is a power of two up to 2^15 without a
/// leading zero.
fn cube_log2(digits: &str) -> Option<u8> {
    if digits.is_empty() || digits.starts_with('0') || digits.len() > 5 {
        return None;
    }
    let v: u32 = digits.parse().ok()?;
    (v.is_power_of_two() && v <= 1 << 15).then(|| v.trailing_zeros() as u8)
}

/// Reads `n<value>[owner]` (SPEC-bpn.md A4).
fn parse_cube(text: &str, at: usize) -> Result<Cube> {
    let fail = |i: usize, p| err(BpnField::Cube, at + i, p);
    let Some(digits) = text.strip_prefix('n') else {
        let expected = "the cube, n<value>[owner]";
        return Err(match text.chars().next() {
            Some(found) => fail(0, Problem::UnexpectedChar { found, expected }),
            None => fail(0, Problem::Missing { expected }),
        });
    };
    if let Some((i, c)) = digits.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        return Err(fail(
            1 + i,
            Problem::UnexpectedChar {
                found: c,
                expected: "a digit of the cube value or owner",
            },
        ));
    }
    if digits.is_empty() {
        return Err(fail(
            1,
            Problem::Missing {
                expected: "the cube value",
            },
        ));
    }
    // The whole digit string is the value when it is a power of two; otherwise the last digit
    // is the owner. This is unambiguous up to 2^15.
    if let Some(log2) = cube_log2(digits) {
        return Ok(Cube {
            log2,
            owner: CubeOwner::Centre,
        });
    }
    let not_power = |s: &str| Problem::NotPowerOfTwo {
        value: s.parse().unwrap_or(u64::MAX),
    };
    if digits.len() == 1 {
        return Err(fail(1, not_power(digits)));
    }
    let (value, owner) = digits.split_at(digits.len() - 1);
    let owner = match owner {
        "0" => CubeOwner::Centre,
        "1" => CubeOwner::Side(Side::O),
        "2" => CubeOwner::Side(Side::X),
        _ => {
            return Err(fail(
                digits.len(),
                Problem::UnexpectedChar {
                    found: owner.chars().next().unwrap_or('\0'),
                    expected: "a cube owner 0 (centre), 1 (white) or 2 (black)",
                },
            ))
        }
    };
    let log2 = cube_log2(value).ok_or_else(|| fail(1, not_power(value)))?;
    Ok(Cube { log2, owner })
}

/// Reads `white:black:length`.
fn parse_match(text: &str, at: usize) -> Result<(BySide<u32>, u32)> {
    let parts = split_offsets(text, ':', at);
    if parts.len() != 3 {
        return Err(err(
            BpnField::Match,
            at,
            Problem::FieldCount {
                found: parts.len(),
                expected: "3 (white:black:length)",
            },
        ));
    }
    let mut v = [0u32; 3];
    for (k, (slot, (off, s))) in v.iter_mut().zip(&parts).enumerate() {
        let (max, expected) = if k == 2 {
            (MAX_MATCH_LENGTH, "a match length 0..=32767")
        } else {
            (u64::from(u32::MAX), "a score")
        };
        *slot = parse_uint(s, max, expected).map_err(|p| err(BpnField::Match, *off, p))? as u32;
    }
    Ok((BySide { o: v[0], x: v[1] }, v[2]))
}

/// Reads the flags field: `c`, `j`, `v` in this order, each at most once.
fn parse_flags(text: &str, at: usize) -> Result<(bool, bool, bool)> {
    if text.is_empty() {
        return Err(err(
            BpnField::Flags,
            at,
            Problem::Missing {
                expected: "flags c, j, v (or no flags field)",
            },
        ));
    }
    let mut flags = [false; 3];
    let mut next = 0; // flags must come in the order c, j, v
    for (i, ch) in text.char_indices() {
        let k = match ch {
            'c' => 0,
            'j' => 1,
            'v' => 2,
            _ => 3,
        };
        if k == 3 || k < next {
            return Err(err(
                BpnField::Flags,
                at + i,
                Problem::UnexpectedChar {
                    found: ch,
                    expected: "the flags c, j, v, each at most once and in this order",
                },
            ));
        }
        flags[k] = true;
        next = k + 1;
    }
    Ok((flags[0], flags[1], flags[2]))
}

/// Reads the first-draft cube `value:owner`, owner `n`, `w` or `b`.
fn parse_draft_cube(text: &str, at: usize) -> Result<Cube> {
    let fail = |i: usize, p| err(BpnField::Cube, at + i, p);
    let (value, owner) = text.split_once(':').unwrap_or((text, ""));
    let log2 = cube_log2(value).ok_or_else(|| {
        fail(
            0,
            Problem::NotPowerOfTwo {
                value: value.parse().unwrap_or(u64::MAX),
            },
        )
    })?;
    let owner = match owner {
        "n" => CubeOwner::Centre,
        "w" => CubeOwner::Side(Side::O),
        "b" => CubeOwner::Side(Side::X),
        _ => {
            let expected = "a cube owner n, w or b";
            let i = value.len() + 1;
            return Err(match owner.chars().next() {
                Some(found) => fail(i, Problem::UnexpectedChar { found, expected }),
                None => fail(i, Problem::Missing { expected }),
            });
        }
    };
    Ok(Cube { log2, owner })
}

impl FromStr for Bpn {
    type Err = ParseBpnError;

    /// Reads a BPN string (surrounding whitespace is ignored), in the 5- or 6-field form or
    /// the 4-field first draft.
    fn from_str(s: &str) -> Result<Bpn> {
        let t = s.trim();
        let lead = s.len() - s.trim_start().len();
        let fields = split_offsets(t, '-', lead);
        let draft = fields.len() >= 2 && fields[1].1.contains(':');
        let count_ok = if draft {
            fields.len() == 4
        } else {
            (5..=6).contains(&fields.len())
        };
        if !count_ok {
            return Err(err(
                BpnField::Whole,
                lead,
                Problem::FieldCount {
                    found: fields.len(),
                    expected: if draft {
                        "4 in the first-draft form"
                    } else {
                        "5 or 6, separated by '-'"
                    },
                },
            ));
        }
        let mut x = [0u8; 25];
        let mut o = [0u8; 25];
        let (at, text) = fields[0];
        parse_placement(text, at, &mut x, &mut o)?;
        let (turn, dice, cube, (score, match_length), flags, flags_at);
        if draft {
            cube = parse_draft_cube(fields[1].1, fields[1].0)?;
            let (at, text) = fields[2];
            let mut chars = text.chars();
            turn = parse_colour(chars.next(), BpnField::Turn, at)?;
            if let Some(found) = chars.next() {
                return Err(err(
                    BpnField::Turn,
                    at + 1,
                    Problem::UnexpectedChar {
                        found,
                        expected: "only the colour w or b in the first-draft form",
                    },
                ));
            }
            dice = Dice::NotRolled;
            (score, match_length) = parse_match(fields[3].1, fields[3].0)?;
            flags = (false, false, false);
            flags_at = fields[3].0;
        } else {
            let (white_bar, black_bar) = parse_bar(fields[1].1, fields[1].0)?;
            o[24] = white_bar;
            x[24] = black_bar;
            (turn, dice) = parse_turn(fields[2].1, fields[2].0)?;
            cube = parse_cube(fields[3].1, fields[3].0)?;
            (score, match_length) = parse_match(fields[4].1, fields[4].0)?;
            (flags, flags_at) = match fields.get(5) {
                Some(&(at, text)) => (parse_flags(text, at)?, at),
                None => ((false, false, false), fields[4].0),
            };
        }
        let (crawford, jacoby, beavers) = flags;
        if match_length == 0 && crawford {
            return Err(err(
                BpnField::Flags,
                flags_at,
                Problem::Inconsistent {
                    reason: "the Crawford flag c is for match play",
                },
            ));
        }
        if match_length > 0 && (jacoby || beavers) {
            return Err(err(
                BpnField::Flags,
                flags_at,
                Problem::Inconsistent {
                    reason: "the flags j and v are for money play",
                },
            ));
        }
        let position = position_from_sides(&x, &o, turn).map_err(|p| match p {
            // Named in BPN's words, at the side's part of the bar field when it has checkers
            // there (the count is the placement's and the bar's), else at the placement.
            Problem::TooManyCheckers { side, count } => {
                let (who, letter, bar) = match side {
                    Side::X => ("black", 'b', x[24]),
                    Side::O => ("white", 'w', o[24]),
                };
                let problem = Problem::TooManyCheckersOf { who, count };
                match fields[1].1.find(letter).filter(|_| !draft && bar > 0) {
                    Some(i) => err(BpnField::Bar, fields[1].0 + i, problem),
                    None => err(BpnField::Placement, fields[0].0, problem),
                }
            }
            p => err(BpnField::Placement, fields[0].0, p),
        })?;
        let state = GameState {
            position,
            turn,
            dice,
            cube,
            score,
            match_length,
            crawford,
            jacoby,
            beavers,
        };
        check_match(&state).map_err(|(check, p)| {
            let (field, at) = match check {
                MatchCheck::Score => (BpnField::Match, fields[if draft { 3 } else { 4 }].0),
                MatchCheck::Crawford => (BpnField::Flags, flags_at),
                MatchCheck::Double => (BpnField::Turn, fields[2].0),
            };
            err(field, at, p)
        })?;
        Ok(Bpn(state))
    }
}

impl fmt::Display for Bpn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = &self.0;
        let (x, o) = sides_of(state);
        let mut run = 0;
        for i in 1..=24usize {
            let (black, white) = (x[i - 1], o[24 - i]);
            if black == 0 && white == 0 {
                run += 1;
                continue;
            }
            if run > 0 {
                write!(f, "{run}")?;
                run = 0;
            }
            // Counts above 15 cannot occur in a legal position; they are clamped so that the
            // writer never produces a character outside the alphabet.
            let letter = |base: u8, n: u8| char::from(base + n.min(15) - 1);
            if black > 0 {
                write!(f, "{}", letter(b'A', black))?;
            } else {
                write!(f, "{}", letter(b'a', white))?;
            }
        }
        if run > 0 {
            write!(f, "{run}")?;
        }
        write!(f, "-w{}b{}-", o[24], x[24])?;
        f.write_str(match state.turn {
            Side::O => "w",
            Side::X => "b",
        })?;
        match state.dice {
            Dice::NotRolled => f.write_str("00")?,
            Dice::DoubleOffered => f.write_str("D")?,
            Dice::Rolled(r) => write!(f, "{r}")?,
        }
        write!(f, "-n{}", state.cube.value())?;
        match state.cube.owner {
            CubeOwner::Centre => {}
            CubeOwner::Side(Side::O) => f.write_str("1")?,
            CubeOwner::Side(Side::X) => f.write_str("2")?,
        }
        write!(
            f,
            "-{}:{}:{}",
            state.score.o, state.score.x, state.match_length
        )?;
        let money = state.match_length == 0;
        let c = !money && state.crawford;
        let j = money && state.jacoby;
        let v = money && state.beavers;
        if c || j || v {
            f.write_str("-")?;
            for (set, letter) in [(c, "c"), (j, "j"), (v, "v")] {
                if set {
                    f.write_str(letter)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_core::Position;

    fn parse(s: &str) -> Result<GameState> {
        s.parse::<Bpn>().map(|b| b.0)
    }

    #[test]
    fn published_sample_is_the_start_position() {
        let g = parse("b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:7").unwrap();
        assert_eq!(g.position, Position::START);
        assert_eq!(g.turn, Side::O);
        assert_eq!(g.dice, Dice::Rolled(tavla_core::Roll::from_values(3, 1)));
        assert_eq!(g.match_length, 7);
    }

    #[test]
    fn cube_owner_digit_rules() {
        let cube = |s: &str| parse_cube(s, 0);
        assert_eq!(cube("n1").unwrap(), Cube::default());
        assert_eq!(cube("n10").unwrap(), Cube::default());
        assert_eq!(
            cube("n21").unwrap(),
            Cube {
                log2: 1,
                owner: CubeOwner::Side(Side::O)
            }
        );
        assert_eq!(
            cube("n322").unwrap(),
            Cube {
                log2: 5,
                owner: CubeOwner::Side(Side::X)
            }
        );
        assert_eq!(cube("n32").unwrap().log2, 5);
        assert_eq!(cube("n32768").unwrap().log2, 15);
        assert_eq!(
            cube("n327682").unwrap(),
            Cube {
                log2: 15,
                owner: CubeOwner::Side(Side::X)
            }
        );
        assert!(matches!(
            cube("n3").unwrap_err().problem,
            Problem::NotPowerOfTwo { value: 3 }
        ));
        assert!(matches!(
            cube("n13").unwrap_err().problem,
            Problem::UnexpectedChar { found: '3', .. }
        ));
        assert!(cube("n65536").is_err());
        assert!(cube("n01").is_err());
        assert!(cube("n").is_err());
        assert!(cube("x1").is_err());
    }

    #[test]
    fn errors_name_field_and_offset() {
        let e = parse("b4E1C3eE3c1e4B-w0b0-w71-n1-0:0:7").unwrap_err();
        assert_eq!((e.field, e.offset), (BpnField::Turn, 21));
        let e = parse("b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:7-x").unwrap_err();
        assert_eq!((e.field, e.offset), (BpnField::Flags, 33));
        let e = parse("b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:7-jc").unwrap_err();
        assert_eq!((e.field, e.offset), (BpnField::Flags, 34));
        let e = parse("b4E1C3eE3c1e4B-w0b0-w31-n1-1:0:0").unwrap_err();
        assert_eq!(e.field, BpnField::Match);
        let e = parse("b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:0-c").unwrap_err();
        assert_eq!(e.field, BpnField::Flags);
        let e = parse("b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:7-j").unwrap_err();
        assert_eq!(e.field, BpnField::Flags);
        let e = parse("b4E1C3eE3c1e4B-w1b0-w31-n1-0:0:7").unwrap_err();
        assert_eq!((e.field, e.offset), (BpnField::Bar, 15));
        assert_eq!(
            e.problem,
            Problem::TooManyCheckersOf {
                who: "white",
                count: 16
            }
        );
        // Black's sixteen checkers are all in the placement; white's bar checker is not at
        // fault.
        let e = parse("O1A21-w1b0-b00-n1-0:0:0").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid BPN: placement at offset 0: black has 16 checkers (at most 15)"
        );
        let e = parse("O1A21-w0b1-b00-n1-0:0:0").unwrap_err();
        assert_eq!((e.field, e.offset), (BpnField::Bar, 8));
    }

    #[test]
    fn empty_board_and_runs_merge() {
        let g = parse("24-w0b0-b00-n1-0:0:0").unwrap();
        assert_eq!(g.position.off(), 15);
        assert_eq!(Bpn(g).to_string(), "24-w0b0-b00-n1-0:0:0");
        assert!(parse("12 12-w0b0-b00-n1-0:0:0").is_err());
        assert!(parse("1212-w0b0-b00-n1-0:0:0").is_err());
        assert!(parse("012-w0b0-b00-n1-0:0:0").is_err());
    }
}
