//! Perft: counting plays to verify the move generator.
//!
//! * depth 0 counts 1;
//! * depth `d` sums, over the 21 distinct rolls (each counted once, unweighted), over every
//!   distinct legal play (de-duplicated by resulting position), the value at depth `d - 1` of the
//!   child position, flipped so that the opponent is on roll;
//! * a roll with no legal play counts as one play (the position passes);
//! * a game-ending play is a leaf: it counts 1 whatever the remaining depth.

use std::fmt::Write as _;

use crate::{PlayList, Position, Roll, Rules};

/// The perft count of `pos` at `depth` under `rules`.
#[must_use]
pub fn perft(pos: &Position, depth: u32, rules: Rules) -> u64 {
    count(pos, depth, rules, &mut Vec::new())
}

/// The count at `depth`; `lists` holds one play list per level below, made as the walk first
/// reaches each level (so a huge `depth` costs nothing up front).
fn count(pos: &Position, depth: u32, rules: Rules, lists: &mut Vec<PlayList>) -> u64 {
    if depth == 0 || pos.is_game_over() {
        return 1;
    }
    let mut list = lists.pop().unwrap_or_default();
    let total = count_with(pos, depth, rules, &mut list, lists);
    lists.push(list);
    total
}

fn count_with(
    pos: &Position,
    depth: u32,
    rules: Rules,
    list: &mut PlayList,
    lists: &mut Vec<PlayList>,
) -> u64 {
    let mut total = 0;
    for &(roll, _) in &Roll::ALL_21 {
        pos.legal_plays_with(roll, rules, list);
        if depth == 1 {
            total += list.len() as u64;
            continue;
        }
        for child in list.positions() {
            total += count(&child.flip(), depth - 1, rules, lists);
        }
    }
    total
}

/// Perft with the count of every roll and every play at the root, like Stockfish's divide, so a
/// mismatch can be found. Returns the report (one line per roll, then `  play count` lines) and
/// the total.
#[must_use]
pub fn divide(pos: &Position, depth: u32, rules: Rules) -> (String, u64) {
    let mut out = String::new();
    let mut total = 0;
    if depth == 0 || pos.is_game_over() {
        return (out, 1);
    }
    let mut root = PlayList::new();
    let mut lists = Vec::new();
    for &(roll, _) in &Roll::ALL_21 {
        pos.legal_plays_with(roll, rules, &mut root);
        let mut per_roll = 0;
        let mut lines = String::new();
        for (play, child) in root.iter() {
            let n = count(&child.flip(), depth - 1, rules, &mut lists);
            per_roll += n;
            let _ = writeln!(lines, "  {play} {n}");
        }
        let _ = writeln!(out, "{roll} {per_roll}");
        out.push_str(&lines);
        total += per_roll;
    }
    (out, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_zero_and_game_over_count_one() {
        assert_eq!(perft(&Position::START, 0, Rules::Standard), 1);
        let over = Position::from_position_id("AAAAAAAAAAAAAA").unwrap();
        assert_eq!(perft(&over, 3, Rules::Standard), 1);
        // No list is made for levels the walk never reaches.
        assert_eq!(perft(&over, u32::MAX, Rules::Standard), 1);
    }

    #[test]
    fn divide_sums_to_perft() {
        let (report, total) = divide(&Position::START, 1, Rules::Standard);
        assert_eq!(total, perft(&Position::START, 1, Rules::Standard));
        assert_eq!(report.lines().filter(|l| !l.starts_with(' ')).count(), 21);
    }
}
