//! The match rules every reader enforces, checked through each notation: a pending double
//! with a dead cube, the Crawford game of a 1-point match, and the fields errors name.

use tavla_core::{Dice, Side};
use tavla_notation::{
    parse_position, Bpn, BpnField, FibsBoard, FibsField, GnubgId, MatchIdField, ParseGnubgIdError,
    Xgid, XgidField,
};

const S: &str = "-b----E-C---eE---c-e----B-";

/// gnubg refuses a double where the cube is dead ("The cube is dead; you can't double any
/// more"): a single game at the cube's value already wins the doubler the match.
#[test]
fn a_double_with_a_dead_cube_is_refused_in_every_notation() {
    for (rest, why) in [
        ("0:0:1:D:0:0:0:1:10", "1-point match"),
        ("0:0:1:D:2:0:0:3:10", "the leader after the Crawford game"),
        ("3:1:1:D:0:0:0:5:10", "X owns an 8-cube in a 5-point match"),
    ] {
        let text = format!("XGID={S}:{rest}");
        let e = text.parse::<Xgid>().unwrap_err();
        assert_eq!(e.field, XgidField::Dice, "{why}");
        assert!(e.to_string().contains("the cube is dead"), "{why}: {e}");
        assert!(parse_position(&text).is_err(), "{why}");
    }
    // The trailer after the Crawford game may double, and so may X with a 4-cube at 0-0 of 5.
    for rest in ["0:0:-1:D:2:0:0:3:10", "2:1:1:D:0:0:0:5:10"] {
        let state = format!("XGID={S}:{rest}").parse::<Xgid>().unwrap().state;
        assert_eq!(state.dice, Dice::DoubleOffered, "{rest}");
    }

    let e = "4HPwATDgc/ABMA:cBEgAAAAAAAE"
        .parse::<GnubgId>()
        .unwrap()
        .to_game_state()
        .unwrap_err();
    let ParseGnubgIdError::State { field, .. } = e.clone() else {
        panic!("{e:?}");
    };
    assert_eq!(field, MatchIdField::Decision);
    assert!(e.to_string().contains("the cube is dead"), "{e}");

    // A 32768 cube has no higher value to be doubled to.
    let e = "b4E1C3eE3c1e4B-w0b0-bD-n327682-0:0:0"
        .parse::<Bpn>()
        .unwrap_err();
    assert_eq!(e.field, BpnField::Turn);
    assert!(e.to_string().contains("32768"), "{e}");

    // FIBS: a 1-point match with a double pending (token 40).
    let fibs = "board:You:someplayer:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:0";
    let e = fibs.parse::<FibsBoard>().unwrap_err();
    assert_eq!(e.field, FibsField(40));
    assert!(e.to_string().contains("the cube is dead"), "{e}");
}

/// Finding: every FIBS board of a 1-point match was refused, the reader inferring a Crawford
/// game with both sides at 1-away.
#[test]
fn a_fibs_board_of_a_1_point_match_is_read() {
    let text = "board:You:someplayer:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
    let state = parse_position(text).unwrap();
    assert_eq!(state.match_length, 1);
    assert!(!state.crawford);
    assert_eq!(state.turn, Side::X);
}

/// A gnubg ID's game-state error names the Match ID's field and its offset, and says what
/// is wrong (a double in the Crawford game here, not a raccoon).
#[test]
fn gnubg_id_state_errors_name_the_field() {
    let e = tavla_notation::parse_position("4HPwATDgc/ABMA:8BGgAEAAAAAE").unwrap_err();
    assert_eq!(
        e.to_string(),
        "gnubg ID \"4HPwATDgc/ABMA:8BGgAEAAAAAE\": match ID double/resignation at offset 16: \
         no doubling in the Crawford game"
    );
}
