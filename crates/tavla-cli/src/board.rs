//! The ASCII board of `tavla show`.

use std::fmt::Write as _;

use tavla_core::{CubeOwner, Dice, GameState, Side};

/// Checkers shown per point before the count is written as a number.
const ROWS: usize = 5;

/// Draws the board from X's side: X's home board is bottom right and X moves from the top
/// right (its 24-point) round to the bottom right (its 1-point). O's checkers are `O`.
pub fn draw(state: &GameState) -> String {
    draw_with_epc(state, |_| None)
}

/// [`draw`], with each side's effective pip count after its pips where `epc` gives one (of
/// the side's checkers on its points 1 to 6, when they are all there).
pub fn draw_with_epc(state: &GameState, epc: impl Fn(&[u8; 6]) -> Option<f64>) -> String {
    let x = state.checkers_of(Side::X);
    let o = state.checkers_of(Side::O);
    // Signed count on X's point p (1..=24): positive X, negative O.
    let at = |p: usize| -> i32 { i32::from(x[p - 1]) - i32::from(o[24 - p]) };
    let pips = |c: &[u8; 25]| -> u32 {
        c.iter()
            .enumerate()
            .map(|(i, &n)| u32::from(n) * (i as u32 + 1))
            .sum()
    };
    let off = |c: &[u8; 25]| 15 - c.iter().map(|&n| u32::from(n)).sum::<u32>();
    // ", EPC 27.4" for a side with every checker left in its home board.
    let epc_of = |c: &[u8; 25]| -> String {
        if c[6..].iter().any(|&n| n > 0) {
            return String::new();
        }
        let home: [u8; 6] = std::array::from_fn(|i| c[i]);
        epc(&home).map_or(String::new(), |e| format!(", EPC {e:.1}"))
    };
    let mut out = String::new();
    let top: Vec<usize> = (13..=24).collect();
    let bottom: Vec<usize> = (1..=12).rev().collect();
    let header = |points: &[usize]| -> String {
        let mut s = String::from(" +");
        for (i, p) in points.iter().enumerate() {
            if i == 6 {
                s.push_str("-----");
            }
            let _ = write!(s, "{p:->2}-");
        }
        s.push('+');
        s
    };
    let cell = |count: i32, row: usize| -> String {
        let n = count.unsigned_abs() as usize;
        let ch = if count > 0 { 'X' } else { 'O' };
        if n == 0 || row >= n.min(ROWS) {
            " ".into()
        } else if row == ROWS - 1 && n > ROWS {
            format!("{n}")
        } else {
            ch.to_string()
        }
    };
    let _ = writeln!(
        out,
        "{}   O: {} pips, {} off{}",
        header(&top),
        pips(&o),
        off(&o),
        epc_of(&o)
    );
    // One row of checkers across a half of the board; the bar shows `bar` checkers of `side`.
    let row_line = |points: &[usize], row: usize, bar: u8, side: char| -> String {
        let mut line = String::from(" |");
        for (i, &p) in points.iter().enumerate() {
            if i == 6 {
                let shown = if row == 0 && bar > 0 {
                    format!("{:^3}", format!("{bar}{side}"))
                } else {
                    "   ".into()
                };
                let _ = write!(line, "|{shown}|");
            }
            let _ = write!(line, "{:^3}", cell(at(p), row));
        }
        line.push_str("|\n");
        line
    };
    for row in 0..ROWS {
        out.push_str(&row_line(&top, row, o[24], 'O'));
    }
    let _ = writeln!(out, " |                  |BAR|                  |");
    for row in (0..ROWS).rev() {
        out.push_str(&row_line(&bottom, row, x[24], 'X'));
    }
    let _ = writeln!(
        out,
        "{}   X: {} pips, {} off{}",
        header(&bottom),
        pips(&x),
        off(&x),
        epc_of(&x)
    );
    let dice = match state.dice {
        Dice::NotRolled => "not rolled".to_string(),
        Dice::Rolled(r) => r.to_string(),
        Dice::DoubleOffered => "double offered".to_string(),
    };
    let owner = match state.cube.owner {
        CubeOwner::Centre => "centred".to_string(),
        CubeOwner::Side(s) => format!("owned by {s}"),
    };
    let _ = writeln!(
        out,
        "On roll: {}   Dice: {dice}   Cube: {} ({owner})",
        state.turn,
        state.cube.value()
    );
    if state.is_money() {
        let mut rules = vec![];
        if state.jacoby {
            rules.push("Jacoby");
        }
        if state.beavers {
            rules.push("beavers");
        }
        let rules = if rules.is_empty() {
            String::new()
        } else {
            format!(" ({})", rules.join(", "))
        };
        let _ = writeln!(out, "Money game{rules}");
    } else {
        let len = state.match_length;
        let crawford = if state.crawford {
            " (Crawford game)"
        } else if state.score.x + 1 == len && state.score.o + 1 == len {
            // Both 1-away (a 1-point match, or after the Crawford game was lost): the cube
            // is dead, and in a 1-point match there never was a Crawford game.
            " (double match point)"
        } else if state.is_post_crawford() {
            " (post-Crawford)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "Match to {}: X {} - O {}{crawford}",
            state.match_length, state.score.x, state.score.o
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::draw;

    fn match_line(xgid: &str) -> String {
        let state = tavla_notation::parse_position(xgid).unwrap();
        draw(&state)
            .lines()
            .find(|l| l.starts_with("Match to"))
            .unwrap()
            .to_string()
    }

    #[test]
    fn the_match_line_names_the_crawford_state() {
        let at = |score: &str, len: u32| {
            match_line(&format!(
                "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:{score}:0:{len}:10"
            ))
        };
        assert!(
            at("4:1", 5).ends_with("(post-Crawford)"),
            "{}",
            at("4:1", 5)
        );
        // A 1-point match has no Crawford game: both sides are at double match point.
        assert!(
            at("0:0", 1).ends_with("(double match point)"),
            "{}",
            at("0:0", 1)
        );
        assert!(at("4:4", 5).ends_with("(double match point)"));
        assert!(at("2:1", 5).ends_with("O 1"), "{}", at("2:1", 5));
    }
}
