//! Property tests: no reader panics, whatever the input.

use proptest::prelude::*;
use tavla_core::{Position, Roll};
use tavla_notation::mat::MatchRecord;
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
