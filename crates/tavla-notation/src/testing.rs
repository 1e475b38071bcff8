//! Proptest strategies for random legal game states, and what each notation keeps of them
//! (feature `proptest`).
//!
//! ```
//! use proptest::prelude::*;
//! use tavla_notation::{format, parse_position, testing, Notation};
//!
//! proptest!(|(state in testing::arb_game_state())| {
//!     let text = format(&state, Notation::Xgid);
//!     prop_assert_eq!(parse_position(&text).unwrap(), testing::kept_by(&state, Notation::Xgid));
//! });
//! ```

use proptest::prelude::*;
use tavla_core::{Board, BySide, Cube, CubeOwner, Dice, GameState, PlayList, Position, Roll, Side};

use crate::Notation;

/// A random legal position: either checkers dropped anywhere (bars and borne-off included), or
/// a position reached by random plays from the start.
pub fn arb_position() -> impl Strategy<Value = Position> {
    prop_oneof![arb_scattered_position(), arb_played_position()]
}

/// Fifteen checkers per side on random slots (24 points, the bar, off), as seen by a random
/// side on roll. A checker that falls on a point the other side holds moves to the next free
/// point.
pub fn arb_scattered_position() -> impl Strategy<Value = Position> {
    (
        prop::collection::vec(0usize..26, 15),
        prop::collection::vec(0usize..26, 15),
    )
        .prop_map(|(xs, os)| {
            let mut x = [0u8; 25];
            let mut o = [0u8; 25];
            for s in xs {
                if s < 25 {
                    x[s] += 1;
                }
            }
            for s in os {
                if s == 24 {
                    o[24] += 1;
                } else if s < 24 {
                    // O's point s + 1 is X's point 24 - s (index 23 - s).
                    let free = (0..24)
                        .map(|k| (s + k) % 24)
                        .find(|&q| x[23 - q] == 0)
                        .unwrap_or(s);
                    o[free] += 1;
                }
            }
            Position::try_from(Board {
                on_roll: x,
                opponent: o,
            })
            .unwrap_or(Position::START)
        })
}

/// The position after a random number of random plays from the start.
pub fn arb_played_position() -> impl Strategy<Value = Position> {
    (any::<u64>(), 0usize..80).prop_map(|(seed, plies)| {
        let mut rng = seed | 1;
        let mut next = move |n: usize| {
            // xorshift64: deterministic and good enough to pick dice and plays.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let mut pos = Position::START;
        let mut list = PlayList::new();
        for _ in 0..plies {
            if pos.is_game_over() {
                break;
            }
            let roll = Roll::from_values(next(6) as u8 + 1, next(6) as u8 + 1);
            pos.legal_plays(roll, &mut list);
            pos = list.positions()[next(list.len())].flip();
        }
        pos
    })
}

/// Random dice: not rolled, rolled, or a pending double (turned into "not rolled" when the
/// side on roll may not double).
fn arb_dice() -> impl Strategy<Value = Dice> {
    prop_oneof![
        Just(Dice::NotRolled),
        (1u8..=6, 1u8..=6).prop_map(|(a, b)| Dice::Rolled(Roll::from_values(a, b))),
        Just(Dice::DoubleOffered),
    ]
}

/// A random legal game state: any position, either side on roll, any dice, a cube up to 2^15
/// with any owner, and money play (with random Jacoby and beaver rules) or a match of up to
/// 32767 points with scores below the length and the Crawford flag only at 1-away (with a
/// centred 1-cube).
///
/// A pending double only comes from a side that may double (centred cube or its own, not the
/// Crawford game).
pub fn arb_game_state() -> impl Strategy<Value = GameState> {
    let cube = (0u8..=15, 0u8..3).prop_map(|(log2, owner)| Cube {
        log2,
        owner: match owner {
            0 => CubeOwner::Centre,
            1 => CubeOwner::Side(Side::X),
            _ => CubeOwner::Side(Side::O),
        },
    });
    let length = prop_oneof![
        2 => Just(0u32),
        3 => 1u32..=25,
        1 => 26u32..=32767,
    ];
    let game = (arb_position(), any::<bool>(), arb_dice(), cube);
    let rules = (length, any::<u32>(), any::<u32>(), any::<[bool; 3]>());
    (game, rules).prop_map(
        |(
            (position, x_on_roll, dice, cube),
            (match_length, sx, so, [crawford, jacoby, beavers]),
        )| {
            let money = match_length == 0;
            let score = if money {
                BySide::default()
            } else {
                BySide {
                    x: sx % match_length,
                    o: so % match_length,
                }
            };
            // Exactly one side at 1-away: the Crawford game can only happen then.
            let one_away =
                !money && ((score.x + 1 == match_length) != (score.o + 1 == match_length));
            // No one doubles in the Crawford game: its cube is a centred 1-cube.
            let crawford = crawford && one_away;
            let cube = if crawford { Cube::default() } else { cube };
            let turn = if x_on_roll { Side::X } else { Side::O };
            let mut state = GameState {
                position,
                turn,
                dice: Dice::NotRolled,
                cube,
                score,
                match_length,
                crawford,
                jacoby: money && jacoby,
                beavers: money && beavers,
            };
            // A double only where the side on roll may double.
            if dice != Dice::DoubleOffered || state.may_double() {
                state.dice = dice;
            }
            state
        },
    )
}

/// What reading back `format(state, notation)` gives for a state from [`arb_game_state`]:
/// the state itself, less what the notation cannot hold.
///
/// * BPN and XGID keep everything.
/// * gnubg's ID loses beavers.
/// * A FIBS board loses the Jacoby rule and beavers, and a 9999-point match reads as money
///   play (FIBS's spelling of an unlimited match).
#[must_use]
pub fn kept_by(state: &GameState, notation: Notation) -> GameState {
    let mut kept = *state;
    match notation {
        Notation::Bpn | Notation::Xgid => {}
        Notation::Gnubg => kept.beavers = false,
        Notation::Fibs => {
            kept.jacoby = false;
            kept.beavers = false;
            if kept.match_length == 9999 {
                kept.match_length = 0;
                kept.score = BySide::default();
                kept.crawford = false;
            }
        }
    }
    kept
}
