//! The CLI module `tavla-cli/src/nn_cmd.rs`, run in-process (included verbatim, as in
//! `examples/nn.rs`): `hint` and `eval` output and their errors.

#[path = "../../tavla-cli/src/nn_cmd.rs"]
#[allow(dead_code)]
mod nn_cmd;

use nn_cmd::{EngineArgs, EvalArgs, HintArgs};

const START: &str = "4HPwATDgc/ABMA";

fn engine(ply: u8, json: bool) -> EngineArgs {
    EngineArgs {
        ply,
        weights: None,
        json,
        no_bearoff: true,
    }
}

fn hint(position: &str, dice: Option<&str>, ply: u8, json: bool) -> anyhow::Result<String> {
    let args = HintArgs {
        position: position.into(),
        dice: dice.map(Into::into),
        top: 5,
        engine: engine(ply, json),
    };
    let mut out = Vec::new();
    nn_cmd::hint(&args, &mut out)?;
    Ok(String::from_utf8(out).unwrap())
}

#[test]
fn hint_lists_the_best_plays_sorted() {
    let text = hint(START, Some("31"), 0, false).unwrap();
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.starts_with(" 1. "), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&hint(START, Some("31"), 1, true).unwrap()).unwrap();
    let rows = json.as_array().unwrap();
    assert_eq!(rows.len(), 5);
    let eq: Vec<f64> = rows.iter().map(|r| r["equity"].as_f64().unwrap()).collect();
    assert_eq!(rows[0]["rank"], 1);
    assert_eq!(rows[0]["ply"], 1);
    // The best play is first and was searched at the asked ply.
    assert!(eq.iter().all(|&e| e <= eq[0]), "{eq:?}");
    let plays: Vec<&str> = rows.iter().map(|r| r["play"].as_str().unwrap()).collect();
    let mut unique = plays.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), plays.len(), "{plays:?}");
}

#[test]
fn eval_gives_consistent_probabilities() {
    let args = EvalArgs {
        position: START.into(),
        engine: engine(1, true),
    };
    let mut out = Vec::new();
    nn_cmd::eval(&args, &mut out).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let f = |k: &str| v[k].as_f64().unwrap();
    assert!(f("win") > 0.3 && f("win") < 0.7);
    assert!(f("win") >= f("win_gammon") && f("win_gammon") >= f("win_backgammon"));
    let eq = 2.0 * f("win") - 1.0 + f("win_gammon") - f("lose_gammon") + f("win_backgammon")
        - f("lose_backgammon");
    assert!((eq - f("equity")).abs() < 1e-5);
}

#[test]
fn input_errors_say_what_is_wrong() {
    let err = |r: anyhow::Result<String>| format!("{:#}", r.unwrap_err());
    assert!(err(hint(START, Some("71"), 0, false)).contains("cannot read dice \"71\""));
    assert!(err(hint("nonsense", Some("31"), 0, false)).contains("cannot read position"));
    assert!(err(hint(START, None, 0, false)).contains("no dice"));
    assert!(err(hint(START, Some("31"), 4, false)).contains("--ply must be in 0..=3"));
    let dir = std::env::temp_dir().join(format!("tavla-nn-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.tnn");
    let mut bytes = tavla_nn::DEFAULT_WEIGHTS.to_vec();
    bytes[8] = 7; // a format version from the future
    std::fs::write(&bad, bytes).unwrap();
    let args = EvalArgs {
        position: START.into(),
        engine: EngineArgs {
            ply: 0,
            weights: Some(bad),
            json: false,
            no_bearoff: true,
        },
    };
    let e = format!("{:#}", nn_cmd::eval(&args, &mut Vec::new()).unwrap_err());
    assert!(e.contains("format version 7"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
