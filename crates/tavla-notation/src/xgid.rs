//! XGID, eXtreme Gammon's position ID (SPEC-xgid.md).
//!
//! ```text
//! [XGID=]<pos26>:<cube>:<cubepos>:<turn>:<dice>:<score1>:<score2>:<rules>:<length>[:<maxcube>]
//! ```
//!
//! * `pos26`: character 0 = the top side's (lowercase, [`Side::O`]) checkers on the bar;
//!   characters 1..=24 = points numbered from the bottom side ([`Side::X`], uppercase): an
//!   uppercase letter is that many X checkers on X's point `i`, a lowercase letter that many O
//!   checkers on O's point `25 - i`; character 25 = X's bar; `-` empty, `a`/`A` = 1 .. `o`/`O`
//!   = 15.
//! * `cube`: log2 of the cube value; `cubepos`: `1` X owns, `0` centred, `-1` O owns.
//! * `turn`: `1` X, `-1` O: the side on roll, or the doubler when `dice` is `D`.
//! * `dice`: `00` not rolled, `D` doubled (the opponent must answer), or two dice. `B` and `R`
//!   (beaver, raccoon pending) are refused: a [`GameState`] cannot hold them.
//! * `score1` = X's score, `score2` = O's; `length` 0..=32767, 0 = money (score 0:0).
//! * `rules`: match play `1` = the Crawford game; money play Jacoby + 2 × beavers.
//! * `maxcube`: log2 of the largest cube allowed; XG writes 10. Missing in 9-field IDs (read as
//!   10).

use std::fmt;
use std::str::FromStr;

use tavla_core::{BySide, Cube, CubeOwner, Dice, GameState, Side};

use crate::error::{parse_int, parse_uint, split_offsets, Problem};
use crate::state::{check_match, position_from_sides, sides_of, MatchCheck, MAX_MATCH_LENGTH};

/// The field of an XGID an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XgidField {
    /// The ID as a whole (the number of fields).
    Whole,
    /// Field 1, the 26 characters of the checker layout.
    Position,
    /// Field 2, the cube value as log2.
    Cube,
    /// Field 3, the cube owner.
    CubePosition,
    /// Field 4, the side on roll.
    Turn,
    /// Field 5, the dice.
    Dice,
    /// Field 6, the bottom side's (X's) score.
    ScoreBottom,
    /// Field 7, the top side's (O's) score.
    ScoreTop,
    /// Field 8, the Crawford flag or the money-play rules.
    Rules,
    /// Field 9, the match length.
    Length,
    /// Field 10, the largest cube allowed.
    MaxCube,
}

impl XgidField {
    const ORDER: [XgidField; 10] = [
        XgidField::Position,
        XgidField::Cube,
        XgidField::CubePosition,
        XgidField::Turn,
        XgidField::Dice,
        XgidField::ScoreBottom,
        XgidField::ScoreTop,
        XgidField::Rules,
        XgidField::Length,
        XgidField::MaxCube,
    ];
}

impl fmt::Display for XgidField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            XgidField::Whole => "ID",
            XgidField::Position => "position",
            XgidField::Cube => "cube",
            XgidField::CubePosition => "cube position",
            XgidField::Turn => "turn",
            XgidField::Dice => "dice",
            XgidField::ScoreBottom => "bottom score",
            XgidField::ScoreTop => "top score",
            XgidField::Rules => "rules",
            XgidField::Length => "match length",
            XgidField::MaxCube => "max cube",
        })
    }
}

/// Text that is not a valid XGID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid XGID: {field} at offset {offset}: {problem}")]
pub struct ParseXgidError {
    /// The field at fault.
    pub field: XgidField,
    /// Byte offset in the text where the problem was found.
    pub offset: usize,
    /// What is wrong.
    pub problem: Problem,
}

/// A game state read from or written as an XGID, with XGID's cube limit.
///
/// `Display` writes XG's canonical form: the `XGID=` prefix, ten fields, dice larger first.
///
/// ```
/// use tavla_notation::Xgid;
/// use tavla_core::{Position, Side};
///
/// let xgid: Xgid = "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10".parse()?;
/// assert_eq!(xgid.state.position, Position::START);
/// assert_eq!(xgid.state.turn, Side::X);
/// assert_eq!(xgid.to_string(), "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10");
/// # Ok::<(), tavla_notation::ParseXgidError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Xgid {
    /// The game state.
    pub state: GameState,
    /// Log2 of the largest cube value allowed (field 10); XG writes 10.
    pub max_cube_log2: u8,
}

impl Xgid {
    /// The max-cube value XG writes when no limit is set.
    pub const DEFAULT_MAX_CUBE_LOG2: u8 = 10;

    /// `state` with XG's usual cube limit, 2^10, or the cube's value if it is higher (the
    /// value it is doubled to, when a double is offered).
    #[must_use]
    pub fn new(state: GameState) -> Xgid {
        let doubled = u8::from(state.dice == Dice::DoubleOffered);
        Xgid {
            state,
            max_cube_log2: Xgid::DEFAULT_MAX_CUBE_LOG2.max((state.cube.log2 + doubled).min(15)),
        }
    }

    /// Why the cube, or the double offered, is above this XGID's cube limit (field 10), if it
    /// is: `the cube at 2 is above the XGID's limit of 1 (field 10, 0: cubeless)`.
    #[must_use]
    pub fn cube_over_limit(&self) -> Option<String> {
        let (cube, max) = (self.state.cube.log2, self.max_cube_log2);
        let doubled = self.state.dice == Dice::DoubleOffered;
        (cube > max || (doubled && cube >= max)).then(|| {
            format!(
                "the cube {} is above the XGID's limit of {} (field 10, {max}{})",
                if doubled {
                    format!("doubled to {}", 2u64 << cube)
                } else {
                    format!("at {}", 1u64 << cube)
                },
                1u64 << max,
                if max == 0 { ": cubeless" } else { "" }
            )
        })
    }
}

impl From<GameState> for Xgid {
    fn from(state: GameState) -> Xgid {
        Xgid::new(state)
    }
}

fn err(field: XgidField, offset: usize, problem: Problem) -> ParseXgidError {
    ParseXgidError {
        field,
        offset,
        problem,
    }
}

/// Reads the 26 position characters into X's and O's arrays.
fn parse_position(
    text: &str,
    at: usize,
    x: &mut [u8; 25],
    o: &mut [u8; 25],
) -> Result<(), ParseXgidError> {
    let n = text.chars().count();
    if n != 26 {
        return Err(err(
            XgidField::Position,
            at,
            Problem::FieldCount {
                found: n,
                expected: "26 characters",
            },
        ));
    }
    for (i, (off, c)) in text.char_indices().enumerate() {
        let expected = match i {
            0 => "'-' or a-o (the top side's bar)",
            25 => "'-' or A-O (the bottom side's bar)",
            _ => "'-', a-o or A-O",
        };
        let bad = || {
            err(
                XgidField::Position,
                at + off,
                Problem::UnexpectedChar { found: c, expected },
            )
        };
        match c {
            '-' => {}
            'a'..='o' => {
                let n = c as u8 - b'a' + 1;
                match i {
                    0 => o[24] = n,
                    25 => return Err(bad()),
                    _ => o[24 - i] = n,
                }
            }
            'A'..='O' => {
                let n = c as u8 - b'A' + 1;
                match i {
                    0 => return Err(bad()),
                    25 => x[24] = n,
                    _ => x[i - 1] = n,
                }
            }
            _ => return Err(bad()),
        }
    }
    Ok(())
}

/// Reads the dice field.
fn parse_dice(text: &str, at: usize) -> Result<Dice, ParseXgidError> {
    let fail = |i: usize, p| err(XgidField::Dice, at + i, p);
    match text {
        "00" => return Ok(Dice::NotRolled),
        "D" => return Ok(Dice::DoubleOffered),
        "B" | "R" => {
            return Err(fail(
                0,
                Problem::Unsupported {
                    what: "a pending beaver or raccoon (dice B or R)",
                },
            ))
        }
        _ => {}
    }
    let expected = "00, D or two dice 1-6";
    let roll = crate::error::parse_two_dice(text, expected, "the end of the dice")
        .map_err(|(i, p)| fail(i, p))?;
    Ok(Dice::Rolled(roll))
}

impl FromStr for Xgid {
    type Err = ParseXgidError;

    /// Reads an XGID with or without the `XGID=` prefix (in any case); surrounding whitespace and anything
    /// after the first line break are ignored. Nine fields (no max cube) are accepted.
    fn from_str(s: &str) -> Result<Xgid, ParseXgidError> {
        let first_line = s.split(['\n', '\r']).next().unwrap_or("");
        let t = first_line.trim();
        let mut lead = first_line.len() - first_line.trim_start().len();
        // The prefix in any case (`xgid=` as some programs write it).
        let prefixed = t.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("XGID="));
        let t = match t.get(5..).filter(|_| prefixed) {
            Some(rest) => {
                lead += 5;
                rest
            }
            None => t,
        };
        let fields = split_offsets(t, ':', lead);
        if !(9..=10).contains(&fields.len()) {
            return Err(err(
                XgidField::Whole,
                lead,
                Problem::FieldCount {
                    found: fields.len(),
                    expected: "10 (or 9 without the max cube), separated by ':'",
                },
            ));
        }
        let field = |i: usize| (XgidField::ORDER[i], fields[i].0, fields[i].1);
        let int = |i: usize, min: i64, max: i64, expected: &'static str| {
            let (f, at, text) = field(i);
            parse_int(text, min, max, expected).map_err(|p| err(f, at, p))
        };
        let uint = |i: usize, expected: &'static str| {
            let (f, at, text) = field(i);
            parse_uint(text, u64::from(u32::MAX), expected)
                .map(|v| v as u32)
                .map_err(|p| err(f, at, p))
        };
        let mut x = [0u8; 25];
        let mut o = [0u8; 25];
        parse_position(fields[0].1, fields[0].0, &mut x, &mut o)?;
        let log2 = uint(1, "a cube log2 0..=15")?;
        if log2 > 15 {
            return Err(err(
                XgidField::Cube,
                fields[1].0,
                Problem::OutOfRange {
                    value: i64::from(log2),
                    expected: "a cube log2 0..=15",
                },
            ));
        }
        let owner = match int(2, -1, 1, "-1, 0 or 1")? {
            1 => CubeOwner::Side(Side::X),
            -1 => CubeOwner::Side(Side::O),
            _ => CubeOwner::Centre,
        };
        let turn = match int(3, -1, 1, "1 (bottom) or -1 (top)")? {
            1 => Side::X,
            -1 => Side::O,
            _ => {
                return Err(err(
                    XgidField::Turn,
                    fields[3].0,
                    Problem::OutOfRange {
                        value: 0,
                        expected: "1 (bottom) or -1 (top)",
                    },
                ))
            }
        };
        let dice = parse_dice(fields[4].1, fields[4].0)?;
        let score = BySide {
            x: uint(5, "a score")?,
            o: uint(6, "a score")?,
        };
        let rules = uint(7, "the rules 0..=3")?;
        let match_length = int(8, 0, MAX_MATCH_LENGTH as i64, "a match length 0..=32767")? as u32;
        let rules_max = if match_length == 0 { 3 } else { 1 };
        if rules > rules_max {
            return Err(err(
                XgidField::Rules,
                fields[7].0,
                Problem::OutOfRange {
                    value: i64::from(rules),
                    expected: if match_length == 0 {
                        "money rules 0..=3 (Jacoby + 2 × beavers)"
                    } else {
                        "0, or 1 for the Crawford game"
                    },
                },
            ));
        }
        let max_cube_log2 = if fields.len() == 10 {
            int(9, 0, 15, "a max cube log2 0..=15")? as u8
        } else {
            Xgid::DEFAULT_MAX_CUBE_LOG2
        };
        let position = position_from_sides(&x, &o, turn)
            .map_err(|p| err(XgidField::Position, fields[0].0, p))?;
        let money = match_length == 0;
        let state = GameState {
            position,
            turn,
            dice,
            cube: Cube {
                log2: log2 as u8,
                owner,
            },
            score,
            match_length,
            crawford: !money && rules == 1,
            jacoby: money && rules & 1 == 1,
            beavers: money && rules & 2 == 2,
        };
        check_match(&state).map_err(|(check, p)| {
            let i = match check {
                MatchCheck::Score => 5,
                MatchCheck::Crawford => 7,
                MatchCheck::Double => 4,
            };
            err(XgidField::ORDER[i], fields[i].0, p)
        })?;
        Ok(Xgid {
            state,
            max_cube_log2,
        })
    }
}

impl fmt::Display for Xgid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = &self.state;
        let (x, o) = sides_of(state);
        let letter = |base: u8, n: u8| -> char {
            if n == 0 {
                '-'
            } else {
                char::from(base + n.min(15) - 1)
            }
        };
        f.write_str("XGID=")?;
        write!(f, "{}", letter(b'a', o[24]))?;
        for i in 1..=24usize {
            let c = if x[i - 1] > 0 {
                letter(b'A', x[i - 1])
            } else {
                letter(b'a', o[24 - i])
            };
            write!(f, "{c}")?;
        }
        write!(f, "{}", letter(b'A', x[24]))?;
        let owner = match state.cube.owner {
            CubeOwner::Centre => 0,
            CubeOwner::Side(Side::X) => 1,
            CubeOwner::Side(Side::O) => -1,
        };
        let turn = match state.turn {
            Side::X => 1,
            Side::O => -1,
        };
        write!(f, ":{}:{owner}:{turn}:", state.cube.log2)?;
        match state.dice {
            Dice::NotRolled => f.write_str("00")?,
            Dice::DoubleOffered => f.write_str("D")?,
            Dice::Rolled(r) => write!(f, "{r}")?,
        }
        let rules = if state.match_length == 0 {
            u8::from(state.jacoby) + 2 * u8::from(state.beavers)
        } else {
            u8::from(state.crawford)
        };
        write!(
            f,
            ":{}:{}:{rules}:{}:{}",
            state.score.x, state.score.o, state.match_length, self.max_cube_log2
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_core::Position;

    #[test]
    fn prefix_and_nine_fields_are_optional() {
        let a: Xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
            .parse()
            .unwrap();
        let b: Xgid = "  -b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0\nScore is X:0"
            .parse()
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.state.position, Position::START);
        // The prefix in any case, and found as an XGID by the notation finder.
        let lower = "xgid=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";
        assert_eq!(lower.parse::<Xgid>().unwrap(), a);
        assert_eq!(crate::parse_position(lower).unwrap(), a.state);
    }

    #[test]
    fn errors_name_field_and_offset() {
        let e = "XGID=A-b---E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
            .parse::<Xgid>()
            .unwrap_err();
        assert_eq!((e.field, e.offset), (XgidField::Position, 5));
        let e = "XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10"
            .parse::<Xgid>()
            .unwrap_err();
        assert_eq!((e.field, e.offset), (XgidField::Turn, 36));
        // A Crawford game at 2-2 of 3 points: one game brings only one side to 1-away.
        let e = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:2:1:3:10"
            .parse::<Xgid>()
            .unwrap_err();
        assert!(
            e.to_string().contains("one side at 1-away, not both"),
            "{e}"
        );
        let e = "XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10"
            .parse::<Xgid>()
            .unwrap_err();
        assert_eq!(e.field, XgidField::Dice);
        assert!(matches!(e.problem, Problem::Unsupported { .. }));
        let e = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:D:0:0:0:0:10"
            .parse::<Xgid>()
            .unwrap_err();
        assert_eq!(e.field, XgidField::Dice);
        let e = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:5:10"
            .parse::<Xgid>()
            .unwrap_err();
        assert_eq!(e.field, XgidField::Rules);
        let e = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:5:10:1"
            .parse::<Xgid>()
            .unwrap_err();
        assert_eq!(e.field, XgidField::Whole);
    }
}
