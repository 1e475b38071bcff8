//! Property tests: no reader panics, whatever the input.

use proptest::prelude::*;
use tavla_core::{Position, Roll};
use tavla_notation::landing::{read_fast_record, LandingMarks};
use tavla_notation::mat::MatchRecord;
use tavla_notation::sgf::parse_record;
use tavla_notation::testing::{arb_game_state, arb_position};
use tavla_notation::{
    format, parse_position, Bpn, FibsBoard, GnubgId, MatchId, Notation, PlayText, Xgid,
};

/// Runs every reader on `s`; resolves move text against `pos`.
fn read_everything(s: &str, pos: &Position, roll: Roll) {
    let _ = parse_position(s);
    let _ = s.parse::<Bpn>();
    let _ = s.parse::<Xgid>();
    let _ = s.parse::<FibsBoard>();
    let _ = s.parse::<GnubgId>().map(|id| id.to_game_state());
    let _ = s.parse::<MatchId>().map(|m| m.to_game_state(*pos));
    if let Ok(m) = s.parse::<LandingMarks>() {
        let _ = m.to_string();
        let _ = m.resolve(pos, Some(roll)).map_err(|e| e.to_string());
        let _ = m.resolve(pos, None).map_err(|e| e.to_string());
    }
    let _ = read_fast_record(s).map_err(|e| e.to_string());
    if let Ok(t) = s.parse::<PlayText>() {
        let _ = t.to_string();
        let _ = t.resolve(pos, roll);
    }
    // Errors display without panicking too.
    if let Err(e) = parse_position(s) {
        let _ = e.to_string();
    }
    if let Err(e) = s.parse::<PlayText>() {
        let _ = e.to_string();
    }
    match MatchRecord::parse(s) {
        Ok(r) => {
            for g in &r.games {
                let _ = g.replay().map_err(|e| e.to_string());
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    // SGF or `.mat`, by content.
    match parse_record(s) {
        Ok(r) => {
            for g in &r.games {
                let _ = g.replay().map_err(|e| e.to_string());
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// A `.mat` session to mutate: two games, a pass, a combined move, results in both columns.
const MAT: &str = " 0 point match

 Game 1
 a : 0                          b : 0
  1)                             31: 8/5 6/5
  2) 62: 24/18 13/11             66: 13/7 13/7 24/18 24/18
  3) 56: 13/2                    12:
  4)  Doubles => 2                Takes
                                  Wins 1 point

 Game 2
 a : 0                          b : 1
  1) 21: 13/11 6/5               Wins 3 points
";

/// An SGF record to mutate: analysis values with an escaped `]`, a double and take, a
/// variation, and a second game ending in a drop.
const SGF: &str = "(;FF[4]GM[6]MI[length:5][game:0][ws:0][bs:0]PW[a]PB[b]RU[Crawford]RE[B+2R]
;W[32xumk]A[0][xumk E ver 3 0.50 \\] 1]MR[x]
;B[61lrqr]
;W[64mgkg]
;B[double]
;W[take](;B[33qtqtruru])(;B[11]))
(;FF[4]GM[6]MI[length:5][game:1][ws:0][bs:2]PW[a]PB[b]RE[W+1]
;B[42qusu]
;W[42hdfd]
;B[double]
;W[drop])
";

#[test]
fn the_sgf_sample_is_valid() {
    let r = parse_record(SGF).unwrap();
    assert_eq!(r.games.len(), 2);
    for g in &r.games {
        assert!(g.replay().unwrap().result.is_some());
    }
}

/// Characters SGF uses, for its mutations.
const SGF_ALPHABET: &[char] = &[
    '(', ')', ';', '[', ']', '\\', ':', '+', ' ', '\n', '0', '1', '3', '6', '9', 'a', 'k', 'x',
    'y', 'z', 'A', 'B', 'W', 'R', 'E', 'é',
];

/// Characters the notations use, so that mutations stay close to valid text.
const ALPHABET: &[char] = &[
    '-', ':', '/', '*', '(', ')', '=', ' ', ',', '0', '1', '2', '3', '4', '5', '6', '7', '9', 'a',
    'b', 'c', 'j', 'n', 'o', 'p', 'v', 'w', 'A', 'B', 'D', 'O', 'P', 'X', 'G', 'I', '+', 'é', '\n',
];

#[derive(Debug, Clone)]
enum Edit {
    Replace(usize, usize),
    Insert(usize, usize),
    Delete(usize),
    Swap(usize, usize),
    Truncate(usize),
}

fn arb_edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Swap(i, j)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn mutate(s: &str, edits: &[Edit]) -> String {
    let mut v: Vec<char> = s.chars().collect();
    for e in edits {
        let n = v.len().max(1);
        match *e {
            Edit::Replace(i, c) if !v.is_empty() => v[i % n] = ALPHABET[c % ALPHABET.len()],
            Edit::Insert(i, c) => v.insert(i % (v.len() + 1), ALPHABET[c % ALPHABET.len()]),
            Edit::Delete(i) if !v.is_empty() => {
                v.remove(i % n);
            }
            Edit::Swap(i, j) if !v.is_empty() => v.swap(i % n, j % n),
            Edit::Truncate(i) => v.truncate(i % (v.len() + 1)),
            _ => {}
        }
    }
    v.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>(), pos in arb_position(), a in 1u8..=6, b in 1u8..=6) {
        read_everything(&s, &pos, Roll::from_values(a, b));
    }

    #[test]
    fn notation_like_strings_never_panic(
        s in "[-a-zA-Z0-9:/*()=, ]{0,80}",
        pos in arb_position(),
        a in 1u8..=6,
        b in 1u8..=6,
    ) {
        read_everything(&s, &pos, Roll::from_values(a, b));
    }

    #[test]
    fn mutated_sgf_never_panics(edits in prop::collection::vec((arb_edit(), any::<bool>()), 1..8)) {
        // Half the edits use SGF's characters, half the notations'.
        let mut v: Vec<char> = SGF.chars().collect();
        for (e, sgf) in &edits {
            let alphabet = if *sgf { SGF_ALPHABET } else { ALPHABET };
            let c = |k: usize| alphabet[k % alphabet.len()];
            let n = v.len().max(1);
            match *e {
                Edit::Replace(i, k) if !v.is_empty() => v[i % n] = c(k),
                Edit::Insert(i, k) => v.insert(i % (v.len() + 1), c(k)),
                Edit::Delete(i) if !v.is_empty() => {
                    v.remove(i % n);
                }
                Edit::Swap(i, j) if !v.is_empty() => v.swap(i % n, j % n),
                Edit::Truncate(i) => v.truncate(i % (v.len() + 1)),
                _ => {}
            }
        }
        let text: String = v.into_iter().collect();
        read_everything(&text, &Position::START, Roll::from_values(3, 1));
    }

    #[test]
    fn mutated_valid_strings_never_panic(
        state in arb_game_state(),
        n in 0usize..6,
        edits in prop::collection::vec(arb_edit(), 1..6),
        a in 1u8..=6,
        b in 1u8..=6,
    ) {
        let text = match n {
            4 => "24/18*/14 13/7(2) bar/22 6/off".to_string(),
            5 => MAT.to_string(),
            _ => format(&state, Notation::ALL[n]),
        };
        read_everything(&mutate(&text, &edits), &state.position, Roll::from_values(a, b));
    }
}
