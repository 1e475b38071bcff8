//! gnubg as the oracle for move text: for every move in `tests/data/gnubg-pretty.txt` (gnubg's
//! own hint list), the legal play with the same resulting position is written exactly as gnubg
//! writes it, and gnubg's text resolves back to that play.

use std::collections::HashMap;

use tavla_core::{PlayList, Position, Roll};
use tavla_notation::{format_pretty, PlayText};

#[test]
fn pretty_form_matches_gnubg_and_reads_back() {
    let path = format!("{}/tests/data/gnubg-pretty.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut list = PlayList::new();
    let mut cache: HashMap<(String, String), HashMap<String, String>> = HashMap::new();
    let mut checked = 0;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut it = line.splitn(4, ' ');
        let (posid, dice, after, gnubg) = (
            it.next().unwrap(),
            it.next().unwrap(),
            it.next().unwrap(),
            it.next().unwrap(),
        );
        let pos = Position::from_position_id(posid).unwrap();
        let roll: Roll = dice.parse().unwrap();
        let ours = cache
            .entry((posid.to_string(), dice.to_string()))
            .or_insert_with(|| {
                pos.legal_plays(roll, &mut list);
                list.iter()
                    .map(|(play, p)| (p.position_id().to_string(), format_pretty(&pos, &play)))
                    .collect()
            });
        let line_no = n + 1;
        let mine = ours
            .get(after)
            .unwrap_or_else(|| panic!("line {line_no}: no legal play gives {after}"));
        assert_eq!(mine, gnubg, "line {line_no}: {line}");
        let play = gnubg
            .parse::<PlayText>()
            .unwrap_or_else(|e| panic!("line {line_no}: {e}"))
            .resolve(&pos, roll)
            .unwrap_or_else(|e| panic!("line {line_no}: {e}"));
        let reached = pos.apply_moves(&play).unwrap().position_id().to_string();
        assert_eq!(reached, after, "line {line_no}: {line}");
        checked += 1;
    }
    assert!(checked > 1000, "only {checked} moves checked");
}
