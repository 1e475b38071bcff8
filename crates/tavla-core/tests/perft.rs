//! Perft against the frozen counts in `tests/data/*.perft`, each cross-checked with gnubg's move
//! lists when it was made (see the file headers). Counts above `NODE_LIMIT` run only with
//! `cargo test -- --ignored`.

use tavla_core::perft::perft;
use tavla_core::{PlayList, Position, Roll, Rules};

const NODE_LIMIT: u64 = 3_000_000;

struct Case {
    name: String,
    id: String,
    depths: Vec<(u32, u64)>,
    rolls: Vec<(Roll, u64)>,
}

fn cases(text: &str) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    let mut comment = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(id) = line.strip_prefix("id ") {
            out.push(Case {
                name: comment.clone(),
                id: id.to_string(),
                depths: Vec::new(),
                rolls: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut f = rest
                .split_whitespace()
                .map(|x| x.parse::<u64>().expect("number"));
            let case = out.last_mut().expect("perft line after an id line");
            case.depths
                .push((f.next().unwrap() as u32, f.next().unwrap()));
        } else if let Some(rest) = line.strip_prefix("# roll ") {
            let mut f = rest.split_whitespace();
            let roll: Roll = f.next().unwrap().parse().unwrap();
            let n: u64 = f.next().unwrap().parse().unwrap();
            out.last_mut()
                .expect("roll line after an id line")
                .rolls
                .push((roll, n));
        } else if let Some(c) = line.strip_prefix("# ") {
            comment = c.to_string();
        }
    }
    out
}

fn all_cases() -> Vec<Case> {
    let mut v = cases(include_str!("data/start.perft"));
    v.extend(cases(include_str!("data/tricky.perft")));
    v
}

fn run(deep: bool) {
    let mut checked = 0;
    for case in all_cases() {
        let pos = Position::from_position_id(&case.id).expect("valid position");
        for &(depth, expected) in &case.depths {
            if (expected > NODE_LIMIT) != deep {
                continue;
            }
            assert_eq!(
                perft(&pos, depth, Rules::Standard),
                expected,
                "perft {depth} of {} ({})",
                case.id,
                case.name
            );
            checked += 1;
        }
    }
    if !deep {
        assert!(checked >= 2 * 11, "only {checked} perft lines checked");
    }
}

#[test]
fn perft_matches_the_frozen_counts() {
    run(false);
}

#[test]
#[ignore = "deep perft: slow"]
fn deep_perft_matches_the_frozen_counts() {
    run(true);
}

#[test]
fn per_roll_counts_match() {
    let mut list = PlayList::new();
    let mut n = 0;
    for case in all_cases() {
        let pos = Position::from_position_id(&case.id).unwrap();
        assert_eq!(case.rolls.len(), 21, "{}: divide has 21 rolls", case.id);
        for &(roll, expected) in &case.rolls {
            pos.legal_plays(roll, &mut list);
            assert_eq!(
                list.len() as u64,
                expected,
                "{} roll {roll} ({})",
                case.id,
                case.name
            );
            n += 1;
        }
    }
    assert!(n >= 12 * 21);
}
