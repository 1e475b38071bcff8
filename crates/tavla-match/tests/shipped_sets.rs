//! The judged sets shipped in tools/judge parse in full: every position's plays are exactly its
//! legal plays by tavla's move generator (gnubg listed them), with gnubg's deep equities.

use std::path::Path;

use tavla_match::judge::JudgedSet;

fn check(name: &str, positions: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tools/judge")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the judged set is in the repository");
    let set = JudgedSet::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(set.positions.len(), positions, "{name}");
    assert_eq!(set.plies, 2);
    for p in &set.positions {
        assert!([8, 9, 10].contains(&p.class), "{name}: class {}", p.class);
    }
}

#[test]
fn the_first_set_parses() {
    check("gnubg-2ply.jsonl", 1891);
}

#[test]
fn the_2027_set_parses() {
    check("gnubg-2ply-2027.jsonl", 3770);
}
