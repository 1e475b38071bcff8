//! FIBS board strings (`board:...`, FIBS "rawboard" / boardstyle 3), as sent by a FIBS server
//! and as written and read by gnubg (`set output rawboard on`, the external-player socket).
//!
//! The string has 53 `:`-separated tokens (SPEC-fibs-board.md §1). The "player" it is
//! addressed to is read as [`Side::X`] and the opponent as [`Side::O`]; this is how gnubg
//! writes it (the player is gnubg's player 1). The reader understands both dialects:
//!
//! * bar checkers are read from board positions 0 and 25 (gnubg leaves the on-bar tokens at 0;
//!   a FIBS server fills both);
//! * match length 9999 (FIBS) and 0 (gnubg) both mean money play; the scores of an unlimited
//!   FIBS session are then dropped (a money [`GameState`] has a 0:0 score);
//! * any non-zero "was doubled" means a double is pending; the doubler is the side named by the
//!   turn token;
//! * the game is the Crawford game when exactly one side is 1-away (a 1-point match, or both
//!   sides at 1-away, has none), tokens 51 and 52 are both zero (gnubg's reading of them as
//!   post-Crawford and not-Crawford; a FIBS server sends them as 0) and the cube is a centred
//!   1-cube;
//! * tokens 43 (home) and 44 (bar) must agree with the direction: `0:25` for direction -1,
//!   `25:0` for direction 1;
//! * exactly one side allowed to double owns the cube, otherwise it is centred.
//!
//! Not representable: the Jacoby rule and beavers (gnubg passes them as options after the board
//! string), a finished game (turn 0, refused).

use std::fmt;
use std::str::FromStr;

use tavla_core::{BySide, Cube, CubeOwner, Dice, Die, GameState, PlayList, Roll, Side};

use crate::error::{parse_int, Problem};
use crate::state::{
    check_match, crawford_possible, position_from_sides, sides_of, MatchCheck, MAX_MATCH_LENGTH,
};

/// The names of the 53 tokens, in order.
pub const FIBS_TOKEN_NAMES: [&str; 53] = [
    "tag",
    "player",
    "opponent",
    "match length",
    "player score",
    "opponent score",
    "position 0",
    "position 1",
    "position 2",
    "position 3",
    "position 4",
    "position 5",
    "position 6",
    "position 7",
    "position 8",
    "position 9",
    "position 10",
    "position 11",
    "position 12",
    "position 13",
    "position 14",
    "position 15",
    "position 16",
    "position 17",
    "position 18",
    "position 19",
    "position 20",
    "position 21",
    "position 22",
    "position 23",
    "position 24",
    "position 25",
    "turn",
    "player die 1",
    "player die 2",
    "opponent die 1",
    "opponent die 2",
    "cube",
    "player may double",
    "opponent may double",
    "was doubled",
    "colour",
    "direction",
    "home",
    "bar",
    "player off",
    "opponent off",
    "player on bar",
    "opponent on bar",
    "can move",
    "forced move",
    "did crawford",
    "redoubles",
];

const TURN: usize = 32;
const PLAYER_DICE: usize = 33;
const OPPONENT_DICE: usize = 35;
const CUBE: usize = 37;
const PLAYER_MAY_DOUBLE: usize = 38;
const WAS_DOUBLED: usize = 40;
const COLOUR: usize = 41;
const DIRECTION: usize = 42;
const HOME: usize = 43;
const BAR: usize = 44;
const PLAYER_OFF: usize = 45;
const PLAYER_ON_BAR: usize = 47;
const DID_CRAWFORD: usize = 51;
const REDOUBLES: usize = 52;

/// A token of a FIBS board string, by its index (0..=52); `Display` gives its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FibsField(pub u8);

impl fmt::Display for FibsField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match FIBS_TOKEN_NAMES.get(usize::from(self.0)) {
            Some(name) => write!(f, "token {} ({name})", self.0),
            None => write!(f, "token {}", self.0),
        }
    }
}

/// Text that is not a valid FIBS board string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid FIBS board: {field} at offset {offset}: {problem}")]
pub struct ParseFibsError {
    /// The token at fault.
    pub field: FibsField,
    /// Byte offset in the text where the problem was found.
    pub offset: usize,
    /// What is wrong.
    pub problem: Problem,
}

/// The two spellings of a FIBS board string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FibsDialect {
    /// gnubg's rawboard output: money as length 0, both players' dice set to the roll, a
    /// signed "was doubled", tokens 47-50 zero, tokens 51/52 = post-Crawford / not Crawford.
    #[default]
    Gnubg,
    /// A FIBS server: money as length 9999, only the mover's dice, "was doubled" 1, the on-bar
    /// counts and "can move" filled in, token 51 = the Crawford game has been played, token
    /// 52 (redoubles) 0.
    Server,
}

/// A game state read from or written as a FIBS board string, with the two names.
///
/// `Display` writes gnubg's dialect; [`FibsBoard::to_string_in`] chooses. The board is always
/// written from the player's (X's) side as colour `1`, direction `-1`, as gnubg does. A `:` or
/// control character in a name is written as `_`.
///
/// ```
/// use tavla_notation::FibsBoard;
/// use tavla_core::{Position, Side};
///
/// let s = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
/// let board: FibsBoard = s.parse()?;
/// assert_eq!(board.state.position, Position::START);
/// assert_eq!(board.state.turn, Side::X);
/// assert_eq!(board.player, "You");
/// # Ok::<(), tavla_notation::ParseFibsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FibsBoard {
    /// The name of the player the board is addressed to ([`Side::X`]).
    pub player: String,
    /// The name of the opponent ([`Side::O`]).
    pub opponent: String,
    /// The game state.
    pub state: GameState,
}

impl FibsBoard {
    /// `state` with the names `X` and `O`.
    #[must_use]
    pub fn new(state: GameState) -> FibsBoard {
        FibsBoard {
            player: "X".to_string(),
            opponent: "O".to_string(),
            state,
        }
    }

    /// The board string in `dialect`.
    #[must_use]
    pub fn to_string_in(&self, dialect: FibsDialect) -> String {
        let state = &self.state;
        let server = dialect == FibsDialect::Server;
        let (x, o) = sides_of(state);
        let name = |n: &str| -> String {
            n.chars()
                .map(|c| if c == ':' || c.is_control() { '_' } else { c })
                .collect()
        };
        let money = state.match_length == 0;
        let mut t: Vec<String> = vec![
            "board".to_string(),
            name(&self.player),
            name(&self.opponent),
            if money && server {
                "9999".to_string()
            } else {
                state.match_length.to_string()
            },
            state.score.x.to_string(),
            state.score.o.to_string(),
        ];
        // Positions 0..=25: 0 = opponent's bar (negative), 1..=24 = the player's points,
        // 25 = the player's bar.
        t.push((-i32::from(o[24])).to_string());
        for p in 1..=24usize {
            let v = if x[p - 1] > 0 {
                i32::from(x[p - 1])
            } else {
                -i32::from(o[24 - p])
            };
            t.push(v.to_string());
        }
        t.push(x[24].to_string());
        t.push(if state.turn == Side::X { "1" } else { "-1" }.to_string());
        let dice = state
            .roll()
            .map_or((0, 0), |r| (r.high().value(), r.low().value()));
        let (player_dice, opponent_dice) = match (server, state.turn) {
            (false, _) => (dice, dice),
            (true, Side::X) => (dice, (0, 0)),
            (true, Side::O) => ((0, 0), dice),
        };
        for d in [
            player_dice.0,
            player_dice.1,
            opponent_dice.0,
            opponent_dice.1,
        ] {
            t.push(d.to_string());
        }
        t.push(state.cube.value().to_string());
        let owner = state.cube.owner;
        t.push(u8::from(owner != CubeOwner::Side(Side::O)).to_string());
        t.push(u8::from(owner != CubeOwner::Side(Side::X)).to_string());
        let was_doubled = match (state.dice, server, state.turn) {
            (Dice::DoubleOffered, true, _) => 1,
            // gnubg: -1 when the player (X) must answer, +1 when the player doubled.
            (Dice::DoubleOffered, false, Side::O) => -1,
            (Dice::DoubleOffered, false, Side::X) => 1,
            _ => 0,
        };
        t.push(was_doubled.to_string());
        t.extend(["1", "-1", "0", "25"].map(String::from));
        let off = |arr: &[u8; 25]| 15u32.saturating_sub(arr.iter().map(|&n| u32::from(n)).sum());
        t.push(off(&x).to_string());
        t.push(off(&o).to_string());
        let post_crawford = u8::from(state.is_post_crawford());
        if server {
            t.push(x[24].to_string());
            t.push(o[24].to_string());
            let can_move = match (state.turn, state.roll()) {
                (Side::X, Some(roll)) => {
                    let mut list = PlayList::new();
                    state.position.legal_plays(roll, &mut list);
                    if list.is_empty() {
                        0
                    } else {
                        list.play(0).len()
                    }
                }
                _ => 0,
            };
            t.push(can_move.to_string());
            t.push("0".to_string());
            t.push(post_crawford.to_string());
            t.push("0".to_string());
        } else {
            t.extend(["0", "0", "0", "0"].map(String::from));
            t.push(post_crawford.to_string());
            t.push(u8::from(!state.crawford).to_string());
        }
        t.join(":")
    }
}

impl fmt::Display for FibsBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_in(FibsDialect::Gnubg))
    }
}

fn err(token: usize, offset: usize, problem: Problem) -> ParseFibsError {
    ParseFibsError {
        field: FibsField(token as u8),
        offset,
        problem,
    }
}

impl FromStr for FibsBoard {
    type Err = ParseFibsError;

    /// Reads a board string of either dialect; surrounding whitespace is ignored.
    fn from_str(s: &str) -> Result<FibsBoard, ParseFibsError> {
        let t = s.trim();
        let lead = s.len() - s.trim_start().len();
        let tokens = crate::error::split_offsets(t, ':', lead);
        if tokens[0].1.eq_ignore_ascii_case("board") && tokens[0].1 != "board" {
            let (i, found) = tokens[0]
                .1
                .char_indices()
                .find(|(_, c)| c.is_ascii_uppercase())
                .unwrap_or((0, 'B'));
            return Err(err(
                0,
                lead + i,
                Problem::UnexpectedChar {
                    found,
                    expected: "the tag \"board\" in lower case",
                },
            ));
        }
        if tokens[0].1 != "board" {
            return Err(err(
                0,
                lead,
                Problem::Missing {
                    expected: "the tag \"board\"",
                },
            ));
        }
        if tokens.len() != 53 {
            return Err(err(
                0,
                lead,
                Problem::FieldCount {
                    found: tokens.len(),
                    expected: "53 tokens separated by ':'",
                },
            ));
        }
        // Every token after the names is an integer; read them all first.
        let mut v = [0i64; 53];
        for i in 3..53 {
            let (min, max, expected): (i64, i64, &'static str) = match i {
                3 => (0, MAX_MATCH_LENGTH as i64, "a match length 0..=32767"),
                4 | 5 => (0, i64::from(u32::MAX), "a non-negative number"),
                6..=31 => (-15, 15, "a checker count -15..=15"),
                TURN => (-1, 1, "-1, 0 or 1"),
                33..=36 => (0, 6, "a die 0..=6"),
                CUBE => (1, 1 << 15, "a cube value 1..=32768"),
                38 | 39 => (0, 1, "0 or 1"),
                WAS_DOUBLED => (-1, 1, "-1, 0 or 1"),
                COLOUR | DIRECTION => (-1, 1, "-1 or 1"),
                HOME | BAR => (0, 25, "0 or 25"),
                45..=48 => (0, 15, "a checker count 0..=15"),
                49 => (0, 4, "0..=4"),
                _ => (0, i64::from(i32::MAX), "a non-negative number"),
            };
            let (at, text) = tokens[i];
            v[i] = parse_int(text, min, max, expected).map_err(|p| err(i, at, p))?;
        }
        let at = |i: usize| tokens[i].0;
        for i in [COLOUR, DIRECTION] {
            if v[i] == 0 {
                return Err(err(
                    i,
                    at(i),
                    Problem::OutOfRange {
                        value: 0,
                        expected: "-1 or 1",
                    },
                ));
            }
        }
        let (colour, direction) = (v[COLOUR], v[DIRECTION]);
        // The player bears off at `home` and enters from `bar`, which the direction fixes.
        let (home, bar) = if direction == -1 { (0, 25) } else { (25, 0) };
        for (i, want, expected) in [
            (
                HOME,
                home,
                "the home the direction gives: 0 for direction -1, 25 for 1",
            ),
            (
                BAR,
                bar,
                "the bar the direction gives: 25 for direction -1, 0 for 1",
            ),
        ] {
            if v[i] != want {
                return Err(err(
                    i,
                    at(i),
                    Problem::OutOfRange {
                        value: v[i],
                        expected,
                    },
                ));
            }
        }
        // Step 1. The checkers, in each side's own numbering.
        let mut x = [0u8; 25];
        let mut o = [0u8; 25];
        for i in 1..=24usize {
            let n = v[6 + i];
            let own = if direction == -1 { i } else { 25 - i };
            if n * colour > 0 {
                x[own - 1] = n.unsigned_abs() as u8;
            } else if n != 0 {
                o[24 - own] = n.unsigned_abs() as u8;
            }
        }
        let (player_bar, opponent_bar) = if direction == -1 { (25, 0) } else { (0, 25) };
        for (arr, bar_index, on_bar) in [
            (&mut x, player_bar, PLAYER_ON_BAR),
            (&mut o, opponent_bar, PLAYER_ON_BAR + 1),
        ] {
            let board = v[6 + bar_index].unsigned_abs() as u8;
            let token = v[on_bar] as u8;
            if board != 0 && token != 0 && board != token {
                return Err(err(
                    on_bar,
                    at(on_bar),
                    Problem::Inconsistent {
                        reason: "the on-bar count disagrees with the board's bar position",
                    },
                ));
            }
            arr[24] = board.max(token);
        }
        // Step 2. Side to move, dice, cube.
        if v[TURN] == 0 {
            return Err(err(
                TURN,
                at(TURN),
                Problem::Unsupported {
                    what: "a finished game (turn 0)",
                },
            ));
        }
        let turn = if v[TURN] == colour { Side::X } else { Side::O };
        let position = position_from_sides(&x, &o, turn).map_err(|p| match p {
            // Named as the string names them, at the token of the bar when the side has
            // checkers there (the count is the board's and the bar's).
            Problem::TooManyCheckers { side, count } => {
                let (who, bar) = if side == Side::X {
                    ("the player (token 1)", PLAYER_ON_BAR)
                } else {
                    ("the opponent (token 2)", PLAYER_ON_BAR + 1)
                };
                let arr = if side == Side::X { &x } else { &o };
                let token = if arr[24] > 0 { bar } else { 6 };
                err(token, at(token), Problem::TooManyCheckersOf { who, count })
            }
            p => err(6, at(6), p),
        })?;
        for (side, arr, token) in [(Side::X, &x, PLAYER_OFF), (Side::O, &o, PLAYER_OFF + 1)] {
            let implied = 15 - arr.iter().map(|&n| u32::from(n)).sum::<u32>();
            if v[token] != i64::from(implied) {
                return Err(err(
                    token,
                    at(token),
                    Problem::BorneOffMismatch {
                        side,
                        stated: v[token],
                        implied,
                    },
                ));
            }
        }
        let dice_at = if turn == Side::X {
            PLAYER_DICE
        } else {
            OPPONENT_DICE
        };
        let (d1, d2) = (v[dice_at], v[dice_at + 1]);
        let pending = v[WAS_DOUBLED] != 0;
        let dice = match (d1, d2) {
            (0, 0) if pending => Dice::DoubleOffered,
            (0, 0) => Dice::NotRolled,
            _ if pending => {
                return Err(err(
                    WAS_DOUBLED,
                    at(WAS_DOUBLED),
                    Problem::Inconsistent {
                        reason: "a double is pending but the dice are rolled",
                    },
                ))
            }
            (0, _) | (_, 0) => {
                return Err(err(
                    dice_at,
                    at(dice_at),
                    Problem::Inconsistent {
                        reason: "one die rolled and the other not",
                    },
                ))
            }
            (a, b) => Dice::Rolled(Roll::new(Die::new(a as u8), Die::new(b as u8))),
        };
        let cube_value = v[CUBE] as u32;
        if !cube_value.is_power_of_two() {
            return Err(err(
                CUBE,
                at(CUBE),
                Problem::NotPowerOfTwo {
                    value: u64::from(cube_value),
                },
            ));
        }
        let owner = match (v[PLAYER_MAY_DOUBLE], v[PLAYER_MAY_DOUBLE + 1]) {
            (1, 0) => CubeOwner::Side(Side::X),
            (0, 1) => CubeOwner::Side(Side::O),
            _ => CubeOwner::Centre,
        };
        // Step 3. Match, score, Crawford.
        let length = v[3] as u32;
        let money = length == 0 || length == 9999;
        let match_length = if money { 0 } else { length };
        let score = if money {
            BySide::default()
        } else {
            BySide {
                x: v[4] as u32,
                o: v[5] as u32,
            }
        };
        // A turned cube also says the game is not the Crawford game.
        let crawford = !money
            && crawford_possible(score.x, score.o, match_length)
            && v[DID_CRAWFORD] == 0
            && v[REDOUBLES] == 0
            && cube_value == 1
            && owner == CubeOwner::Centre;
        let state = GameState {
            position,
            turn,
            dice,
            cube: Cube {
                log2: cube_value.trailing_zeros() as u8,
                owner,
            },
            score,
            match_length,
            crawford,
            jacoby: false,
            beavers: false,
        };
        check_match(&state).map_err(|(check, p)| {
            let i = match check {
                MatchCheck::Score => 4,
                MatchCheck::Crawford => DID_CRAWFORD,
                MatchCheck::Double => WAS_DOUBLED,
            };
            err(i, at(i), p)
        })?;
        Ok(FibsBoard {
            player: tokens[1].1.to_string(),
            opponent: tokens[2].1.to_string(),
            state,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_core::Position;

    const SPEC: &str = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";

    #[test]
    fn spec_example_reads_and_writes_in_the_server_dialect() {
        let b: FibsBoard = SPEC.parse().unwrap();
        assert_eq!(b.state.position, Position::START);
        assert_eq!(b.state.dice, Dice::Rolled(Roll::from_values(6, 2)));
        assert_eq!(b.state.match_length, 3);
        assert!(!b.state.crawford);
        assert_eq!(b.to_string_in(FibsDialect::Server), SPEC);
    }

    #[test]
    fn mirrored_orientation_reads_the_same_board() {
        // The same start position sent to a player who is X (colour -1) moving 1 -> 24.
        let mut t: Vec<String> = SPEC.split(':').map(String::from).collect();
        let board: Vec<i64> = t[6..32].iter().map(|s| s.parse().unwrap()).collect();
        for i in 0..26 {
            t[6 + i] = (-board[25 - i]).to_string();
        }
        t[32] = "-1".into();
        t[41] = "-1".into();
        t[42] = "1".into();
        t[43] = "25".into();
        t[44] = "0".into();
        let b: FibsBoard = t.join(":").parse().unwrap();
        assert_eq!(b.state.position, Position::START);
        assert_eq!(b.state.turn, Side::X);
    }

    #[test]
    fn errors_name_the_token() {
        let e = "board:a:b:3".parse::<FibsBoard>().unwrap_err();
        assert!(matches!(e.problem, Problem::FieldCount { found: 4, .. }));
        let bad = SPEC.replacen(":1:6:2:", ":1:7:2:", 1);
        let e = bad.parse::<FibsBoard>().unwrap_err();
        assert_eq!(e.field, FibsField(33));
        assert_eq!(&bad[e.offset..e.offset + 1], "7");
        let e = SPEC
            .replace("board:", "bored:")
            .parse::<FibsBoard>()
            .unwrap_err();
        assert_eq!(e.field, FibsField(0));
        assert_eq!(e.field.to_string(), "token 0 (tag)");
        // Sixteen checkers for the player, one of them on the bar: named as the string names
        // the side, at the bar's token.
        let sixteen = "board:X:O:0:0:0:0:15:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-3:-2:-2:-2:-2:-2:-2:1:1:6:6:6:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";
        let e = sixteen.parse::<FibsBoard>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid FIBS board: token 47 (player on bar) at offset 108: the player (token 1) \
             has 16 checkers (at most 15)"
        );
        let e = SPEC
            .replacen("board", "Board", 1)
            .parse::<FibsBoard>()
            .unwrap_err();
        assert_eq!((e.field, e.offset), (FibsField(0), 0));
        assert!(e.to_string().contains("lower case"), "{e}");
    }

    /// Home and bar (tokens 43, 44) follow the direction: 0:25 for -1, 25:0 for 1.
    #[test]
    fn home_and_bar_must_match_the_direction() {
        let swapped = SPEC.replacen(":1:-1:0:25:", ":1:-1:25:0:", 1);
        let e = swapped.parse::<FibsBoard>().unwrap_err();
        assert_eq!(e.field, FibsField(43));
        assert_eq!(&swapped[e.offset..e.offset + 3], "25:");
        let e = SPEC
            .replacen(":1:-1:0:25:", ":1:-1:0:0:", 1)
            .parse::<FibsBoard>()
            .unwrap_err();
        assert_eq!(e.field, FibsField(44));
        assert!(
            e.to_string()
                .starts_with("invalid FIBS board: token 44 (bar) at offset"),
            "{e}"
        );
    }

    /// A FIBS server sends tokens 51/52 as 0: with both sides at 1-away (a 1-point match, or
    /// double match point) there is no Crawford game to infer.
    #[test]
    fn no_crawford_game_when_both_sides_are_1_away() {
        let one_point = SPEC.replacen(":3:0:0:", ":1:0:0:", 1);
        let b: FibsBoard = one_point.parse().unwrap();
        assert_eq!(b.state.match_length, 1);
        assert!(!b.state.crawford);
        let dmp = SPEC.replacen(":3:0:0:", ":3:2:2:", 1);
        assert!(!dmp.parse::<FibsBoard>().unwrap().state.crawford);
        // One side at 1-away: the Crawford game, as before.
        let crawford = SPEC.replacen(":3:0:0:", ":3:2:0:", 1);
        assert!(crawford.parse::<FibsBoard>().unwrap().state.crawford);
    }
}
