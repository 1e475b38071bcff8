//! gnubg as the oracle for game states: for random legal states (`tests/data/gnubg-states.txt`),
//! GNU Backgammon's `set xgid` of our XGID gives exactly the gnubg ID we write, and that ID reads
//! back to the same state.

use tavla_core::Dice;
use tavla_notation::testing::kept_by;
use tavla_notation::{format, parse_position, Notation, Xgid};

#[test]
fn gnubg_reads_our_xgid_as_our_gnubg_id() {
    let path = format!("{}/tests/data/gnubg-states.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut checked = 0;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (xgid, gnubg) = line.split_once(' ').unwrap();
        let line_no = n + 1;
        let parsed: Xgid = xgid
            .parse()
            .unwrap_or_else(|e| panic!("line {line_no}: {e}"));
        assert_eq!(parsed.to_string(), xgid, "line {line_no}");
        let mut state = parsed.state;
        if state.dice == Dice::DoubleOffered {
            // gnubg steps back from a pending double to the doubler's cube decision.
            state.dice = Dice::NotRolled;
        }
        assert_eq!(format(&state, Notation::Gnubg), gnubg, "line {line_no}");
        let back = parse_position(gnubg).unwrap_or_else(|e| panic!("line {line_no}: {e}"));
        assert_eq!(back, kept_by(&state, Notation::Gnubg), "line {line_no}");
        checked += 1;
    }
    assert_eq!(checked, 750);
}
