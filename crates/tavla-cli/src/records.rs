//! Match records read for `tavla luck` and `tavla analyse`: each file's games played through,
//! and the state of the game at each roll.

use std::path::PathBuf;

use anyhow::Result;
use tavla_core::{BySide, Cube, CubeOwner, Dice, GameState, Position, Side};
use tavla_nn::met::MAX_AWAY;
use tavla_notation::mat::{Column, MatchRecord, Replay};
use tavla_notation::sgf::{decode_text, parse_record};

use crate::input::InputError;

/// Reads each file as a match record (`.mat` or gnubg's SGF, told apart by content; UTF-8, or
/// Latin-1 where it is not) and plays its games through.
///
/// # Errors
/// [`InputError`] naming the file (and the game and line) that cannot be read, has no games,
/// holds a move that cannot be played, or does not add up ([`MatchRecord::replay`]); a match
/// longer than [`MAX_AWAY`] points, beyond tavla's match equity table (its rolls would be
/// valued in money equity and its cube decisions left out).
pub fn read_records(files: &[PathBuf]) -> Result<Vec<(MatchRecord, Vec<Replay>)>> {
    let mut records = Vec::with_capacity(files.len());
    for f in files {
        let text = std::fs::read(f)
            .map(decode_text)
            .map_err(|e| InputError(format!("cannot read {}: {e}", f.display())))?;
        let record =
            parse_record(&text).map_err(|e| InputError(format!("{}: {e}", f.display())))?;
        if record.games.is_empty() {
            return Err(InputError(format!("{}: no games", f.display())).into());
        }
        if record.length as usize > MAX_AWAY {
            return Err(InputError(format!(
                "{}: a {}-point match: tavla's match equity table covers matches of up to \
                 {MAX_AWAY} points",
                f.display(),
                record.length
            ))
            .into());
        }
        let replays = record
            .replay()
            .map_err(|e| InputError(format!("{}: {e}", f.display())))?;
        records.push((record, replays));
    }
    Ok(records)
}

/// Refuses records that cannot be taken together: matches beside money play (their figures
/// are in different units), and records of other players than the first one's (the figures
/// are kept by column). `name(i)` names record `i` in the message.
///
/// # Errors
/// [`InputError`] naming the record at fault and the first.
pub fn check_together(
    records: &[(MatchRecord, Vec<Replay>)],
    name: impl Fn(usize) -> String,
) -> Result<(), InputError> {
    let Some((first, _)) = records.first() else {
        return Ok(());
    };
    let what = |r: &MatchRecord| {
        if r.length == 0 {
            "money play".to_string()
        } else {
            format!("a {}-point match", r.length)
        }
    };
    for (i, (record, _)) in records.iter().enumerate() {
        if (record.length == 0) != (first.length == 0) {
            return Err(InputError(format!(
                "{}: {}, but {} is {}: take matches and money play apart",
                name(i),
                what(record),
                name(0),
                what(first)
            )));
        }
        if record.players != first.players {
            return Err(InputError(format!(
                "{}: its players are {} and {}, {}'s {} and {}: only records of the same two \
                 players, each in the same column, are taken together",
                name(i),
                record.players[0],
                record.players[1],
                name(0),
                first.players[0],
                first.players[1]
            )));
        }
    }
    Ok(())
}

/// Where a game stands in its match: what its rolls' states need besides the board and the
/// cube.
#[derive(Debug, Clone, Copy, Default)]
pub struct GameContext {
    /// The match length; 0 for money play.
    pub length: u32,
    /// The scores before the game (left, right).
    pub scores: [u32; 2],
    /// Whether it is the Crawford game.
    pub crawford: bool,
    /// Money play under the Jacoby rule.
    pub jacoby: bool,
    /// Money play with beavers.
    pub beavers: bool,
}

impl GameContext {
    /// The context of each game of `record`, in order: the match length and the scores from
    /// its score lines, the Crawford game ([`MatchRecord::crawford_games`]), and
    /// the Jacoby rule and beavers where the record says so (SGF's `RU[Jacoby]`, `.mat`'s
    /// `Jacoby` and `Beaver` tags).
    #[must_use]
    pub fn of_games(record: &MatchRecord) -> Vec<GameContext> {
        record
            .games
            .iter()
            .zip(record.crawford_games())
            .map(|(g, crawford)| GameContext {
                length: record.length,
                scores: g.scores,
                crawford,
                jacoby: record.jacoby && record.length == 0,
                beavers: record.beavers && record.length == 0,
            })
            .collect()
    }

    /// The state with `player` (0 left, 1 right) on roll at `position` (its view), the dice
    /// not rolled, the cube at `value` held by `owner` (`None`: in the middle).
    #[must_use]
    pub fn state(
        &self,
        player: Column,
        position: Position,
        value: u32,
        owner: Option<Column>,
    ) -> GameState {
        GameState {
            position,
            turn: side(player),
            dice: Dice::NotRolled,
            cube: Cube {
                log2: value.max(1).ilog2().min(15) as u8,
                owner: owner.map_or(CubeOwner::Centre, |o| CubeOwner::Side(side(o))),
            },
            score: BySide {
                x: self.scores[0],
                o: self.scores[1],
            },
            match_length: self.length,
            crawford: self.crawford,
            jacoby: self.jacoby,
            beavers: self.beavers,
        }
    }
}

/// The side of a record's column: the left player is X.
#[must_use]
pub fn side(column: Column) -> Side {
    if column == 0 {
        Side::X
    } else {
        Side::O
    }
}
