//! Helpers shared by the notations: absolute checker layouts and the rules a game state obeys.

use tavla_core::{Board, Cube, Dice, GameState, NoDouble, Position, Side};

use crate::error::{check_counts, Problem};

/// The checkers of X and of O, each in its own numbering (index 0..=23 its points 1..=24,
/// index 24 its bar).
pub(crate) type Sides = ([u8; 25], [u8; 25]);

/// The layouts of X and O from a game state.
pub(crate) fn sides_of(state: &GameState) -> Sides {
    let b = state.position.to_board();
    match state.turn {
        Side::X => (b.on_roll, b.opponent),
        Side::O => (b.opponent, b.on_roll),
    }
}

/// The position seen from `turn`, after checking the fifteen-checker limit of each side.
pub(crate) fn position_from_sides(
    x: &[u8; 25],
    o: &[u8; 25],
    turn: Side,
) -> Result<Position, Problem> {
    check_counts(x, o)?;
    let board = match turn {
        Side::X => Board {
            on_roll: *x,
            opponent: *o,
        },
        Side::O => Board {
            on_roll: *o,
            opponent: *x,
        },
    };
    Position::try_from(board).map_err(Problem::Position)
}

/// The longest match the readers accept: gnubg's Match ID holds 15 bits, and with this limit
/// every notation can carry every state the others read.
pub(crate) const MAX_MATCH_LENGTH: u64 = 0x7fff;

/// Which part of the match state a failed check is about, so that each notation can name its
/// own field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatchCheck {
    /// Scores against the match length.
    Score,
    /// The Crawford flag.
    Crawford,
    /// A pending double against the cube.
    Double,
}

/// Whether `len`-point match scores put a side at 1-away.
pub(crate) fn someone_one_away(x: u32, o: u32, len: u32) -> bool {
    len > 0 && (x + 1 == len || o + 1 == len)
}

/// Whether `len`-point match scores can be those of the Crawford game: exactly one side at
/// 1-away. With both there (a 1-point match, or double match point after the Crawford game)
/// there is no Crawford game.
pub(crate) fn crawford_possible(x: u32, o: u32, len: u32) -> bool {
    len > 0 && ((x + 1 == len) != (o + 1 == len))
}

/// The rules every reader enforces on the match part of a state:
///
/// * money play (`match_length == 0`) has a 0:0 score and no Crawford game;
/// * in match play each score is below the match length, and the Crawford game needs a side at
///   1-away and a centred 1-cube;
/// * a pending double comes from a side that may double: the cube is centred or the doubler's,
///   it is not the Crawford game, the cube is below 32768 and it is not dead
///   ([`GameState::cube_is_dead`]: gnubg refuses such a double, "The cube is dead").
pub(crate) fn check_match(state: &GameState) -> Result<(), (MatchCheck, Problem)> {
    let len = state.match_length;
    let (x, o) = (state.score.x, state.score.o);
    if len == 0 {
        if x != 0 || o != 0 {
            return Err((
                MatchCheck::Score,
                Problem::Inconsistent {
                    reason: "a money game (length 0) must have a 0:0 score",
                },
            ));
        }
        if state.crawford {
            return Err((
                MatchCheck::Crawford,
                Problem::Inconsistent {
                    reason: "a money game has no Crawford game",
                },
            ));
        }
    } else {
        if x >= len || o >= len {
            return Err((
                MatchCheck::Score,
                Problem::Inconsistent {
                    reason: "a score is not below the match length",
                },
            ));
        }
        if state.crawford && !someone_one_away(x, o, len) {
            return Err((
                MatchCheck::Crawford,
                Problem::Inconsistent {
                    reason: "the Crawford game needs a side at 1-away",
                },
            ));
        }
        // One game brings one side to 1-away: the Crawford game never has both there.
        if state.crawford && x + 1 == len && o + 1 == len {
            return Err((
                MatchCheck::Crawford,
                Problem::Inconsistent {
                    reason: "the Crawford game has one side at 1-away, not both",
                },
            ));
        }
        // The Crawford game starts like any game and no one may double in it; gnubg resets a
        // turned cube to 1 there.
        if state.crawford && state.cube != Cube::default() {
            return Err((
                MatchCheck::Crawford,
                Problem::Inconsistent {
                    reason: "the cube of the Crawford game is a centred 1-cube",
                },
            ));
        }
    }
    if state.dice == Dice::DoubleOffered {
        if let Some(why) = state.why_no_double() {
            let reason = match why {
                NoDouble::OpponentsCube => {
                    "the doubler does not own the cube (a beaver or raccoon?)"
                }
                NoDouble::Crawford => "no doubling in the Crawford game",
                NoDouble::DeadCube => {
                    "the cube is dead: a single game at the cube's value already wins the \
                     doubler the match, so no double is offered"
                }
                NoDouble::CubeAtMaximum => "a 32768 cube (the highest) cannot be doubled",
            };
            return Err((MatchCheck::Double, Problem::Inconsistent { reason }));
        }
    }
    Ok(())
}
