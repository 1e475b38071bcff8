//! Positions: the checker layout seen from the side on roll.

use std::fmt;

use crate::error::{PositionError, PositionProblem};

/// Index of the side on roll's bar in the signed board array.
pub const BAR: usize = 25;
/// Index of the opponent's bar in the signed board array.
pub const OPPONENT_BAR: usize = 0;

/// A raw, unvalidated checker layout in gnubg's orientation; the way parsers and tests build
/// positions. Turn it into a [`Position`] with `Position::try_from`.
///
/// Each array is in its owner's numbering: index `i` (0..=23) is the owner's point `i + 1`
/// (his 1-point is the last before bearing off), index 24 is the owner's bar. Checkers borne off
/// are not stored: they are 15 minus the sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Board {
    /// The side on roll's checkers.
    pub on_roll: [u8; 25],
    /// The opponent's checkers.
    pub opponent: [u8; 25],
}

/// A legal backgammon position, seen from the side on roll; small and `Copy`.
///
/// Points are numbered from the side on roll: it moves from its 24-point towards its 1-point and
/// bears off from points 1..=6. The opponent's own point `q` is point `25 - q` here.
///
/// Invariants (checked by `TryFrom<Board>`): each side has at most fifteen checkers on the board
/// and bar (the rest are borne off), and no point holds checkers of both sides.
///
/// Equality is equality of the checker layout; who is on roll in absolute terms (X or O), the dice
/// and the cube belong to [`crate::GameState`].
///
/// The layout is 32 signed bytes, two vector registers: the board, the borne-off counts and four
/// zero bytes; the move generator builds positions with whole-vector byte additions.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, align(16))]
pub struct Position {
    /// Index 1..=24: that point, positive for the side on roll's checkers, negative for the
    /// opponent's. Index 25 ([`BAR`]): the side on roll's bar (`>= 0`). Index 0
    /// ([`OPPONENT_BAR`]): the opponent's bar, stored negative (`<= 0`). Index 26 ([`OFF`]) and
    /// 27: the checkers borne off by the side on roll and by the opponent. 28..32: zero.
    pub(crate) cells: [i8; 32],
}

/// Index of the side on roll's borne-off count in [`Position`]'s cells (the opponent's is next).
pub(crate) const OFF: usize = 26;

impl Position {
    /// The starting position: two checkers on the 24-point, five on the 13, three on the 8 and
    /// five on the 6, for each side.
    pub const START: Position = {
        let mut cells = [0i8; 32];
        cells[24] = 2;
        cells[13] = 5;
        cells[8] = 3;
        cells[6] = 5;
        cells[1] = -2;
        cells[12] = -5;
        cells[17] = -3;
        cells[19] = -5;
        Position { cells }
    };

    /// The same layout seen from the opponent: the opponent is now on roll.
    #[must_use]
    #[inline]
    pub fn flip(self) -> Position {
        let mut cells = [0i8; 32];
        for (i, b) in cells.iter_mut().take(26).enumerate() {
            *b = -self.cells[25 - i];
        }
        cells[OFF] = self.cells[OFF + 1];
        cells[OFF + 1] = self.cells[OFF];
        Position { cells }
    }

    /// Checkers on `point` (1..=24, side on roll's numbering): positive for the side on roll,
    /// negative for the opponent, 0 when empty.
    ///
    /// # Panics
    /// When `point` is not in 1..=24.
    #[must_use]
    #[track_caller]
    pub fn at(&self, point: u8) -> i8 {
        assert!((1..=24).contains(&point), "points are numbered 1..=24");
        self.cells[usize::from(point)]
    }

    /// The signed array: index 1..=24 the points (positive = side on roll), 25 the side on roll's
    /// bar, 0 the opponent's bar as a negative count.
    #[must_use]
    pub fn signed_board(&self) -> &[i8; 26] {
        self.cells
            .first_chunk()
            .expect("the board is the first 26 cells")
    }

    /// Checkers of the side on roll on the bar.
    #[must_use]
    pub fn bar(&self) -> u8 {
        self.cells[BAR] as u8
    }

    /// Checkers of the opponent on the bar.
    #[must_use]
    pub fn opponent_bar(&self) -> u8 {
        (-self.cells[OPPONENT_BAR]) as u8
    }

    /// Checkers the side on roll has borne off.
    #[must_use]
    pub fn off(&self) -> u8 {
        self.cells[OFF] as u8
    }

    /// Checkers the opponent has borne off.
    #[must_use]
    pub fn opponent_off(&self) -> u8 {
        self.cells[OFF + 1] as u8
    }

    /// Pip counts `(side on roll, opponent)`: the total distance the checkers must travel to bear
    /// off, 25 for a checker on the bar.
    #[must_use]
    pub fn pips(&self) -> (u32, u32) {
        let mut mine = 0u32;
        let mut theirs = 0u32;
        for p in 1..=24usize {
            let n = self.cells[p];
            if n > 0 {
                mine += n as u32 * p as u32;
            } else if n < 0 {
                theirs += (-n) as u32 * (25 - p) as u32;
            }
        }
        mine += 25 * u32::from(self.bar());
        theirs += 25 * u32::from(self.opponent_bar());
        (mine, theirs)
    }

    /// Whether the game is over (one side has borne off all fifteen checkers).
    #[must_use]
    pub fn is_game_over(&self) -> bool {
        self.cells[OFF] == 15 || self.cells[OFF + 1] == 15
    }

    /// The result of a finished game, relative to the side on roll; `None` while it goes on.
    ///
    /// Single when the loser has borne off a checker, gammon when not, backgammon when in addition
    /// the loser has a checker on the bar or in the winner's home board.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        let (winner_is_on_roll, loser) = if self.cells[OFF] == 15 {
            (true, self.flip())
        } else if self.cells[OFF + 1] == 15 {
            (false, *self)
        } else {
            return None;
        };
        // `loser` is seen from the loser: his checkers are positive; the winner's home board is
        // the loser's points 19..=24.
        let points = if loser.cells[OFF] > 0 {
            1
        } else if loser.cells[BAR] > 0 || (19..=24).any(|p| loser.cells[p] > 0) {
            3
        } else {
            2
        };
        Some(Outcome {
            on_roll_wins: winner_is_on_roll,
            points,
        })
    }

    /// The layout in gnubg's orientation.
    #[must_use]
    pub fn to_board(&self) -> Board {
        let mut b = Board::default();
        for p in 1..=24usize {
            let n = self.cells[p];
            if n > 0 {
                b.on_roll[p - 1] = n as u8;
            } else if n < 0 {
                b.opponent[24 - p] = (-n) as u8;
            }
        }
        b.on_roll[24] = self.bar();
        b.opponent[24] = self.opponent_bar();
        b
    }

    /// Recomputes the cached borne-off counts; used by constructors.
    fn from_signed_unchecked(board: [i8; 26]) -> Position {
        let mut on = 0i32;
        let mut opp = 0i32;
        for &n in &board {
            if n > 0 {
                on += i32::from(n);
            } else {
                opp -= i32::from(n);
            }
        }
        let mut cells = [0i8; 32];
        cells[..26].copy_from_slice(&board);
        cells[OFF] = (15 - on) as i8;
        cells[OFF + 1] = (15 - opp) as i8;
        Position { cells }
    }
}

/// The end of a game, relative to the side on roll of the final position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Whether the side on roll in that position has won.
    pub on_roll_wins: bool,
    /// 1 single, 2 gammon, 3 backgammon (before the cube).
    pub points: u8,
}

impl TryFrom<Board> for Position {
    type Error = PositionError;

    fn try_from(b: Board) -> Result<Position, PositionError> {
        let mut problems = Vec::new();
        for (on_roll, arr) in [(true, &b.on_roll), (false, &b.opponent)] {
            let count: u32 = arr.iter().map(|&n| u32::from(n)).sum();
            if count > 15 {
                problems.push(PositionProblem::TooManyCheckers { on_roll, count });
            }
        }
        for p in 1..=24u8 {
            let i = usize::from(p);
            if b.on_roll[i - 1] > 0 && b.opponent[24 - i] > 0 {
                problems.push(PositionProblem::SharedPoint { point: p });
            }
        }
        // The side on roll enters on the opponent's home board, the opponent on its.
        let closed = |home: &[u8; 25]| home[..6].iter().all(|&n| n >= 2);
        if b.on_roll[24] > 0 && b.opponent[24] > 0 && closed(&b.on_roll) && closed(&b.opponent) {
            problems.push(PositionProblem::BothClosedOut);
        }
        if !problems.is_empty() {
            return Err(PositionError { problems });
        }
        let mut board = [0i8; 26];
        for (p, n) in board.iter_mut().enumerate().take(25).skip(1) {
            *n = b.on_roll[p - 1] as i8 - b.opponent[24 - p] as i8;
        }
        board[BAR] = b.on_roll[24] as i8;
        board[OPPONENT_BAR] = -(b.opponent[24] as i8);
        Ok(Position::from_signed_unchecked(board))
    }
}

impl TryFrom<[i8; 26]> for Position {
    type Error = PositionError;

    /// From the signed array of [`Position::signed_board`]; the bars may be given with either
    /// sign (index 25 is always the side on roll's bar, index 0 the opponent's).
    fn try_from(signed: [i8; 26]) -> Result<Position, PositionError> {
        let mut b = Board::default();
        for (p, &n) in signed.iter().enumerate().take(25).skip(1) {
            if n > 0 {
                b.on_roll[p - 1] = n as u8;
            } else {
                b.opponent[24 - p] = n.unsigned_abs();
            }
        }
        b.on_roll[24] = signed[BAR].unsigned_abs();
        b.opponent[24] = signed[OPPONENT_BAR].unsigned_abs();
        Position::try_from(b)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", crate::PositionId::from(*self))
    }
}

/// Builds a position in tests: `pos!(x 24:2, 13:5; o 19:5)`; points in the numbering of the side
/// on roll (`x`) for `x` and in the opponent's own numbering for `o`; `25` is the bar.
#[cfg(test)]
#[macro_export]
macro_rules! pos {
    (x $($xp:literal : $xn:literal),* ; o $($op:literal : $on:literal),*) => {{
        let mut b = $crate::Board::default();
        $( b.on_roll[$xp - 1] += $xn; )*
        $( b.opponent[$op - 1] += $on; )*
        $crate::Position::try_from(b).expect("valid test position")
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_two_vector_registers_with_zero_padding() {
        // The move generator relies on this: a step is two 16-byte additions.
        assert_eq!(std::mem::size_of::<Position>(), 32);
        assert_eq!(std::mem::align_of::<Position>(), 16);
        let p = pos!(x 6:5, 13:4, 25:1; o 6:5, 13:5, 8:3, 24:1);
        let mut list = crate::PlayList::new();
        for &(roll, _) in &crate::Roll::ALL_21 {
            p.legal_plays(roll, &mut list);
            for q in list.positions() {
                assert_eq!(q.cells[28..], [0; 4], "{roll:?}");
                assert_eq!(q.flip().cells[28..], [0; 4]);
            }
        }
    }

    #[test]
    fn start_is_symmetric_with_167_pips() {
        assert_eq!(Position::START.pips(), (167, 167));
        assert_eq!(Position::START.flip(), Position::START);
        assert_eq!(Position::START.off(), 0);
        assert!(!Position::START.is_game_over());
    }

    #[test]
    fn board_round_trip_and_flip() {
        let p = pos!(x 25:1, 13:4, 3:2; o 25:2, 20:3, 1:1);
        assert_eq!(Position::try_from(p.to_board()).unwrap(), p);
        assert_eq!(p.bar(), 1);
        assert_eq!(p.opponent_bar(), 2);
        assert_eq!(p.off(), 8);
        assert_eq!(p.opponent_off(), 9);
        let f = p.flip();
        assert_eq!(f.bar(), 2);
        assert_eq!(f.at(20), 3);
        assert_eq!(f.at(1), 1);
        assert_eq!(f.at(12), -4);
        assert_eq!(f.flip(), p);
    }

    #[test]
    fn invalid_boards_list_every_problem() {
        let mut b = Board::default();
        b.on_roll[5] = 16;
        b.opponent[18] = 1; // opponent's 19 = my 6
        let err = Position::try_from(b).unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                PositionProblem::TooManyCheckers {
                    on_roll: true,
                    count: 16
                },
                PositionProblem::SharedPoint { point: 6 },
            ]
        );
        assert!(err.to_string().contains("point 6"));
    }

    #[test]
    fn both_sides_closed_out_is_refused() {
        // Each side on the bar against the other's closed board: no one can ever move (a game
        // that never ends, which gnubg refuses as well).
        let mut b = Board::default();
        for p in 0..6 {
            b.on_roll[p] = 2;
            b.opponent[p] = 2;
        }
        b.on_roll[24] = 1;
        b.opponent[24] = 1;
        let err = Position::try_from(b).unwrap_err();
        assert_eq!(err.problems, vec![PositionProblem::BothClosedOut]);
        // One side free, or one board open: a game goes on.
        b.opponent[24] = 0;
        assert!(Position::try_from(b).is_ok());
        b.opponent[24] = 1;
        b.on_roll[5] = 1;
        assert!(Position::try_from(b).is_ok());
    }

    #[test]
    fn outcomes_single_gammon_backgammon() {
        // The side on roll has borne everything off; the opponent still has checkers.
        let single = pos!(x ; o 6:14);
        assert_eq!(
            single.outcome(),
            Some(Outcome {
                on_roll_wins: true,
                points: 1
            })
        );
        let gammon = pos!(x ; o 6:15);
        assert_eq!(gammon.outcome().unwrap().points, 2);
        let bg = pos!(x ; o 6:14, 24:1);
        assert_eq!(bg.outcome().unwrap().points, 3);
        let bg_bar = pos!(x ; o 6:14, 25:1);
        assert_eq!(bg_bar.outcome().unwrap().points, 3);
        let seven = pos!(x ; o 6:14, 18:1);
        assert_eq!(seven.outcome().unwrap().points, 2);
        assert_eq!(
            bg.flip().outcome(),
            Some(Outcome {
                on_roll_wins: false,
                points: 3
            })
        );
        assert_eq!(Position::START.outcome(), None);
    }
}
