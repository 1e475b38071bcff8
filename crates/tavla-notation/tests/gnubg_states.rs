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
    let mut dead_doubles = 0;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (xgid, gnubg) = line.split_once(' ').unwrap();
        let line_no = n + 1;
        // The file predates the rule that a dead cube may not be turned: its doubles with a
        // dead cube are now refused (gnubg refuses them too, "The cube is dead"), and checked
        // as the doubler's cube decision, which is what gnubg made of them.
        let parsed: Xgid = match xgid.parse::<Xgid>() {
            Err(e) if e.to_string().contains("the cube is dead") => {
                dead_doubles += 1;
                let (head, tail) = xgid.split_once(":D:").expect("a pending double");
                let undoubled = format!("{head}:00:{tail}");
                let parsed: Xgid = undoubled
                    .parse()
                    .unwrap_or_else(|e| panic!("line {line_no}: {e}"));
                assert!(parsed.state.cube_is_dead(), "line {line_no}");
                parsed
            }
            other => {
                let parsed = other.unwrap_or_else(|e| panic!("line {line_no}: {e}"));
                assert_eq!(parsed.to_string(), xgid, "line {line_no}");
                parsed
            }
        };
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
    assert_eq!(dead_doubles, 71);
}
