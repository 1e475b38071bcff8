//! Regression tests for inputs found by fuzzing (`fuzz/`), named after the target and the
//! artifact.

use tavla_notation::{format, parse_position, Bpn, FibsBoard, Notation, Problem, Xgid, XgidField};

/// fuzz/xgid crash-e3c2677e9e67fd81f0304070e284ba9171234d09: an XGID with a 48533-point match
/// was accepted, and gnubg's Match ID (15 bits) could not carry it. Every reader now refuses
/// matches longer than 32767 points, so every state read converts to every notation.
#[test]
fn xgid_match_longer_than_a_match_id_holds() {
    let text = "XGID=aBBBBBB----------------ca-:0:1:1:00:0:0:0:48533";
    let e = text.parse::<Xgid>().unwrap_err();
    assert_eq!(e.field, XgidField::Length);
    assert!(matches!(
        e.problem,
        Problem::OutOfRange { value: 48533, .. }
    ));
    assert!(parse_position(text).is_err());
    assert!("24-w0b0-b00-n1-0:0:32768".parse::<Bpn>().is_err());

    let longest = "XGID=aBBBBBB----------------ca-:0:1:1:00:0:0:0:32767";
    let state = parse_position(longest).unwrap();
    for n in Notation::ALL {
        let back = parse_position(&format(&state, n)).unwrap();
        assert_eq!(back.match_length, 32767, "{n}");
    }
    let fibs = format(&state, Notation::Fibs).replacen(":32767:", ":32768:", 1);
    assert!(fibs.parse::<FibsBoard>().is_err());
}
