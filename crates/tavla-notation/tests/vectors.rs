//! The reference vectors of the notation specs (copied into `tests/data/`): valid strings are
//! decoded as published and written back byte for byte, invalid ones are refused for the
//! documented reason.

use serde_json::Value;
use tavla_core::{Board, CubeOwner, Dice, GameState, Position, Roll, Side};
use tavla_notation::{
    format, format_plain, format_pretty, format_ubgi, parse_position, Bpn, BpnField, FibsBoard,
    FibsDialect, GameStatus, GnubgId, MatchId, Notation, PlayText, Problem, Resignation, Xgid,
};

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn array25(v: &Value) -> [u8; 25] {
    let mut out = [0u8; 25];
    for (k, n) in v.as_array().unwrap().iter().enumerate() {
        out[k] = u(n) as u8;
    }
    out
}

/// Pip count of a side's own layout (index 24 = bar).
fn pips(arr: &[u8; 25]) -> u64 {
    arr.iter()
        .enumerate()
        .map(|(k, &n)| (k as u64 + 1) * u64::from(n))
        .sum()
}

fn off(arr: &[u8; 25]) -> u64 {
    15 - arr.iter().map(|&n| u64::from(n)).sum::<u64>()
}

fn dice_text(d: Dice) -> String {
    match d {
        Dice::NotRolled => "00".into(),
        Dice::DoubleOffered => "D".into(),
        Dice::Rolled(r) => r.to_string(),
    }
}

#[test]
fn bpn_vectors() {
    let data = load("vectors-bpn.json");
    let valid = data["vectors"].as_array().unwrap();
    assert_eq!(valid.len(), 9);
    for v in valid {
        let id = s(&v["id"]);
        let text = s(&v["bpn"]);
        let Bpn(state) = text.parse().unwrap_or_else(|e| panic!("{id}: {e}"));
        let d = &v["decoded"];
        let (x, o) = (state.checkers_of(Side::X), state.checkers_of(Side::O));
        for p in 1..=24usize {
            let white = d["white_points"].get(p.to_string()).map_or(0, u);
            let black = d["black_points"].get(p.to_string()).map_or(0, u);
            assert_eq!(u64::from(o[24 - p]), white, "{id} white on BPN point {p}");
            assert_eq!(u64::from(x[p - 1]), black, "{id} black on BPN point {p}");
        }
        assert_eq!(u64::from(o[24]), u(&d["bar_white"]), "{id}");
        assert_eq!(u64::from(x[24]), u(&d["bar_black"]), "{id}");
        assert_eq!(off(&o), u(&d["off_white"]), "{id}");
        assert_eq!(off(&x), u(&d["off_black"]), "{id}");
        assert_eq!(pips(&o), u(&d["pips_white"]), "{id}");
        assert_eq!(pips(&x), u(&d["pips_black"]), "{id}");
        let active = if state.turn == Side::O { "w" } else { "b" };
        assert_eq!(active, s(&d["active"]), "{id}");
        assert_eq!(dice_text(state.dice), s(&d["dice"]), "{id}");
        assert_eq!(u64::from(state.cube.value()), u(&d["cube_value"]), "{id}");
        let owner = match state.cube.owner {
            CubeOwner::Centre => "centre",
            CubeOwner::Side(Side::O) => "white",
            CubeOwner::Side(Side::X) => "black",
        };
        assert_eq!(owner, s(&d["cube_owner"]), "{id}");
        assert_eq!(u64::from(state.score.o), u(&d["score_white"]), "{id}");
        assert_eq!(u64::from(state.score.x), u(&d["score_black"]), "{id}");
        assert_eq!(u64::from(state.match_length), u(&d["match_length"]), "{id}");
        let flags: String = [
            (state.crawford, 'c'),
            (state.jacoby, 'j'),
            (state.beavers, 'v'),
        ]
        .iter()
        .filter(|(set, _)| *set)
        .map(|(_, c)| c)
        .collect();
        assert_eq!(flags, s(&d["flags"]), "{id}");

        // Canonical writer, XGID equivalent, round trips.
        assert_eq!(Bpn(state).to_string(), s(&v["canonical"]), "{id}");
        assert_eq!(format(&state, Notation::Bpn), s(&v["canonical"]), "{id}");
        assert_eq!(
            format(&state, Notation::Xgid),
            s(&v["equivalent_xgid"]),
            "{id}"
        );
        assert_eq!(parse_position(text).unwrap(), state, "{id}");
        assert_eq!(
            parse_position(s(&v["canonical"])).unwrap(),
            state,
            "{id} canonical"
        );
        if let Some(x) = v["from_xgid"].as_str() {
            assert_eq!(parse_position(x).unwrap(), state, "{id} from XGID");
        }

        // gnubg's IDs of the same state.
        let pos_id = s(&v["reference_position_id"]);
        assert_eq!(state.position.position_id().to_string(), pos_id, "{id}");
        assert_eq!(s(&v["gnubg"]["position_id"]), pos_id, "{id}");
        let ours = GnubgId::from_game_state(&state);
        if state.dice == Dice::DoubleOffered {
            // gnubg's `set xgid` steps back from a pending double (SPEC-gnubg-ids.md §3.2); we
            // write the pending double itself.
            assert!(ours.match_id.doubled, "{id}");
            assert_eq!(ours.match_id.turn, state.turn.other(), "{id}");
        } else {
            assert_eq!(
                ours.to_string(),
                format!("{pos_id}:{}", s(&v["gnubg"]["match_id"])),
                "{id}"
            );
        }
    }

    let invalid = data["invalid"].as_array().unwrap();
    assert_eq!(invalid.len(), 8);
    for v in invalid {
        let text = s(&v["bpn"]);
        let reason = s(&v["reason"]);
        let e = text
            .parse::<Bpn>()
            .expect_err(&format!("{text} must be refused: {reason}"));
        let ok = match reason {
            r if r.contains("23 points") => {
                e.field == BpnField::Placement && e.problem == Problem::PointCount { found: 23 }
            }
            r if r.contains("26 points") => {
                e.field == BpnField::Placement && e.problem == Problem::PointCount { found: 26 }
            }
            r if r.contains("not a power of two") => {
                e.field == BpnField::Cube && e.problem == Problem::NotPowerOfTwo { value: 3 }
            }
            r if r.contains("owner digit 3") => {
                e.field == BpnField::Cube
                    && matches!(e.problem, Problem::UnexpectedChar { found: '3', .. })
            }
            r if r.contains("'p'") => {
                e.field == BpnField::Placement
                    && e.offset == 0
                    && matches!(e.problem, Problem::UnexpectedChar { found: 'p', .. })
            }
            r if r.contains("16 checkers") => {
                e.problem
                    == Problem::TooManyCheckersOf {
                        who: "white",
                        count: 16,
                    }
            }
            r if r.contains("die value 7") => {
                e.field == BpnField::Turn
                    && matches!(e.problem, Problem::OutOfRange { value: 7, .. })
            }
            r if r.contains("unknown flag") => {
                e.field == BpnField::Flags
                    && matches!(e.problem, Problem::UnexpectedChar { found: 'x', .. })
            }
            r => panic!("no expectation for reason {r:?}"),
        };
        assert!(ok, "{text}: expected {reason:?}, got {e}");
        // The auto-detecting reader refuses it too, with the BPN error.
        assert!(matches!(
            parse_position(text),
            Err(tavla_notation::ParseError::Bpn(_))
        ));
    }
}

#[test]
fn gnubg_position_id_vectors() {
    let data = load("vectors-gnubg-ids.json");
    let vectors = data["position_id"].as_array().unwrap();
    assert_eq!(vectors.len(), 14);
    for v in vectors {
        let id = s(&v["id"]);
        let board = Board {
            on_roll: array25(&v["board_on_roll"]),
            opponent: array25(&v["board_not_on_roll"]),
        };
        let pos = Position::try_from(board).unwrap_or_else(|e| panic!("{id}: {e}"));
        let text = s(&v["position_id"]);
        assert_eq!(pos.position_id().to_string(), text, "{id}");
        // A bare Position ID reads as X on roll in a money game.
        assert_eq!(parse_position(text).unwrap(), GameState::money(pos), "{id}");
    }
}

#[test]
fn gnubg_match_id_vectors() {
    let data = load("vectors-gnubg-ids.json");
    let vectors = data["match_id"].as_array().unwrap();
    assert_eq!(vectors.len(), 21);
    let side = |v: &Value| if u(v) == 1 { Side::X } else { Side::O };
    for v in vectors {
        let id = s(&v["id"]);
        let text = s(&v["match_id"]);
        let f = &v["fields"];
        let m: MatchId = text.parse().unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(u64::from(m.cube_log2), u(&f["cube_log2"]), "{id}");
        let owner = match m.cube_owner {
            CubeOwner::Side(Side::O) => 0,
            CubeOwner::Side(Side::X) => 1,
            CubeOwner::Centre => 3,
        };
        assert_eq!(owner, u(&f["cube_owner"]), "{id}");
        assert_eq!(m.dice_owner, side(&f["dice_owner"]), "{id}");
        assert_eq!(m.crawford, u(&f["crawford"]) == 1, "{id}");
        assert_eq!(m.game_state as u64, u(&f["game_state"]), "{id}");
        assert_eq!(m.turn, side(&f["turn"]), "{id}");
        assert_eq!(m.doubled, u(&f["doubled"]) == 1, "{id}");
        assert_eq!(m.resignation as u64, u(&f["resign"]), "{id}");
        let (d1, d2) = m.dice.map_or((0, 0), |(a, b)| {
            (u64::from(a.value()), u64::from(b.value()))
        });
        assert_eq!((d1, d2), (u(&f["die1"]), u(&f["die2"])), "{id}");
        assert_eq!(u64::from(m.match_length), u(&f["match_len"]), "{id}");
        assert_eq!(u64::from(m.score.o), u(&f["score0"]), "{id}");
        assert_eq!(u64::from(m.score.x), u(&f["score1"]), "{id}");
        assert_eq!(m.jacoby, u(&f["jacoby_not_in_use"]) == 0, "{id}");
        let hex: String = m.key().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, s(&v["key_hex"]), "{id}");
        assert_eq!(m.to_string(), text, "{id}");

        // Into a game state and back. The checkers are the start position (any will do).
        let state = m.to_game_state(Position::START);
        let beaver =
            m.doubled && (m.turn == m.dice_owner || m.cube_owner == CubeOwner::Side(m.turn));
        if beaver {
            assert!(
                matches!(state, Err(Problem::Unsupported { .. })),
                "{id}: beaver/raccoon states are refused, got {state:?}"
            );
            continue;
        }
        if m.crawford && (m.cube_log2 > 0 || m.cube_owner != CubeOwner::Centre) {
            // M10 comes from gnubg.matchid() with made-up values: a turned cube in the Crawford
            // game, which no game reaches (gnubg resets the cube to 1 when it loads the ID).
            assert!(
                matches!(state, Err(Problem::Inconsistent { .. })),
                "{id}: {state:?}"
            );
            continue;
        }
        let state = state.unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(state.turn, m.dice_owner, "{id}");
        assert_eq!(state.dice == Dice::DoubleOffered, m.doubled, "{id}");
        // gnubg writes exactly this ID back for a game in progress with nothing lost: no
        // resignation, and the Jacoby bit as gnubg sets it (match play: "not in use").
        let lossless = m.game_state == GameStatus::Playing
            && m.resignation == Resignation::None
            && (m.match_length == 0 || !m.jacoby);
        if lossless {
            assert_eq!(MatchId::from_game_state(&state), m, "{id}");
            let combined = format!("4HPwATDgc/ABMA:{text}");
            assert_eq!(parse_position(&combined).unwrap(), state, "{id}");
            assert_eq!(format(&state, Notation::Gnubg), combined, "{id}");
        }
    }
}

#[test]
fn xgid_vectors() {
    let data = load("vectors-xgid.json");
    let vectors = data["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 10);
    for v in vectors {
        let id = s(&v["id"]);
        let text = s(&v["xgid"]);
        let xgid: Xgid = text.parse().unwrap_or_else(|e| panic!("{id}: {e}"));
        let state = xgid.state;
        let d = &v["decoded"];
        let (x, o) = (state.checkers_of(Side::X), state.checkers_of(Side::O));
        let points = |arr: &[u8; 25]| arr[..24].iter().map(|&n| u64::from(n)).collect::<Vec<_>>();
        let published = |key: &str| d[key].as_array().unwrap().iter().map(u).collect::<Vec<_>>();
        assert_eq!(
            points(&x),
            published("bottom_uppercase_own_points_1_24"),
            "{id}"
        );
        assert_eq!(
            points(&o),
            published("top_lowercase_own_points_1_24"),
            "{id}"
        );
        assert_eq!(u64::from(x[24]), u(&d["bottom_bar"]), "{id}");
        assert_eq!(u64::from(o[24]), u(&d["top_bar"]), "{id}");
        assert_eq!(off(&x), u(&d["bottom_off"]), "{id}");
        assert_eq!(off(&o), u(&d["top_off"]), "{id}");
        assert_eq!(pips(&x), u(&d["pips_bottom"]), "{id}");
        assert_eq!(pips(&o), u(&d["pips_top"]), "{id}");
        assert_eq!(u64::from(state.cube.value()), u(&d["cube_value"]), "{id}");
        let cubepos = match state.cube.owner {
            CubeOwner::Centre => 0,
            CubeOwner::Side(Side::X) => 1,
            CubeOwner::Side(Side::O) => -1,
        };
        assert_eq!(cubepos, i(&d["cube_position"]), "{id}");
        let turn = if state.turn == Side::X { 1 } else { -1 };
        assert_eq!(turn, i(&d["turn"]), "{id}");
        assert_eq!(dice_text(state.dice), s(&d["dice"]), "{id}");
        assert_eq!(u64::from(state.score.x), u(&d["score_bottom"]), "{id}");
        assert_eq!(u64::from(state.score.o), u(&d["score_top"]), "{id}");
        let rules = if state.is_money() {
            u64::from(state.jacoby) + 2 * u64::from(state.beavers)
        } else {
            u64::from(state.crawford)
        };
        assert_eq!(rules, u(&d["rules_field"]), "{id}");
        assert_eq!(u64::from(state.match_length), u(&d["match_length"]), "{id}");
        assert_eq!(
            u64::from(xgid.max_cube_log2),
            u(&d["max_cube_log2"]),
            "{id}"
        );

        // Written back byte for byte; the same state with or without the prefix.
        assert_eq!(xgid.to_string(), text, "{id}");
        assert_eq!(format(&state, Notation::Xgid), text, "{id}");
        let bare = text.strip_prefix("XGID=").unwrap();
        assert_eq!(parse_position(bare).unwrap(), state, "{id}");
        // gnubg's IDs for the same state (for X10, the pending double itself).
        let reference = &v["reference"];
        assert_eq!(
            format(&state, Notation::Gnubg),
            format!(
                "{}:{}",
                s(&reference["position_id"]),
                s(&reference["match_id"])
            ),
            "{id}"
        );
        // Through the other notations and back.
        for n in [Notation::Bpn, Notation::Gnubg] {
            let back = parse_position(&format(&state, n)).unwrap();
            assert_eq!(
                back,
                tavla_notation::testing::kept_by(&state, n),
                "{id} via {n}"
            );
        }
    }
}

#[test]
fn fibs_board_vectors() {
    let data = load("vectors-fibs-board.json");
    let vectors = data["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 13);
    for v in vectors {
        let id = s(&v["id"]);
        let text = s(&v["fibs"]);
        let board: FibsBoard = text.parse().unwrap_or_else(|e| panic!("{id}: {e}"));
        let state = board.state;
        let d = &v["decoded"];
        assert_eq!(board.player, s(&d["player"]), "{id}");
        assert_eq!(board.opponent, s(&d["opponent"]), "{id}");
        assert_eq!(
            state.checkers_of(Side::X),
            array25(&d["player_board"]),
            "{id}"
        );
        assert_eq!(
            state.checkers_of(Side::O),
            array25(&d["opponent_board"]),
            "{id}"
        );
        let turn = if state.turn == Side::X { 1 } else { -1 };
        assert_eq!(turn * i(&d["colour"]), i(&d["turn"]), "{id}");
        assert_eq!(u64::from(state.cube.value()), u(&d["cube"]), "{id}");
        let money = matches!(u(&d["match_length"]), 0 | 9999);
        assert_eq!(state.is_money(), money, "{id}");
        assert_eq!(
            state.dice == Dice::DoubleOffered,
            i(&d["was_doubled"]) != 0,
            "{id}"
        );
        if let Some(r) = state.roll() {
            let (a, b) = if state.turn == Side::X {
                (u(&d["player_die1"]), u(&d["player_die2"]))
            } else {
                (u(&d["opponent_die1"]), u(&d["opponent_die2"]))
            };
            assert_eq!(r, Roll::from_values(a as u8, b as u8), "{id}");
        }
        if let Some(pid) = v["reference_position_id"].as_str() {
            assert_eq!(state.position.position_id().to_string(), pid, "{id}");
        }
        if let Some(pid) = v["gnubg_position_id"].as_str() {
            assert_eq!(state.position.position_id().to_string(), pid, "{id}");
        }
        if let Some(mid) = v["gnubg_match_id"].as_str() {
            // The Jacoby rule is not in a FIBS board; everything else must agree.
            let theirs: MatchId = mid.parse().unwrap();
            let mut ours = MatchId::from_game_state(&state);
            ours.jacoby = theirs.jacoby;
            assert_eq!(ours, theirs, "{id}");
        }
        // Written back byte for byte: F01 came from a FIBS server, the rest from gnubg.
        let dialect = if id == "F01" {
            FibsDialect::Server
        } else {
            FibsDialect::Gnubg
        };
        assert_eq!(board.to_string_in(dialect), text, "{id}");
        assert_eq!(parse_position(text).unwrap(), state, "{id}");
        let other = board.to_string_in(match dialect {
            FibsDialect::Server => FibsDialect::Gnubg,
            FibsDialect::Gnubg => FibsDialect::Server,
        });
        assert_eq!(
            other.parse::<FibsBoard>().unwrap(),
            board,
            "{id} other dialect"
        );
        // gnubg's external-player answer is a legal play here.
        if let Some(reply) = v["gnubg_external_reply"].as_array() {
            let reply = s(&reply[0]);
            if let Some(roll) = state.roll() {
                let play = reply
                    .parse::<PlayText>()
                    .unwrap()
                    .resolve(&state.position, roll)
                    .unwrap_or_else(|e| panic!("{id}: {e}"));
                // gnubg writes its generator's order; ours is sorted.
                let tokens = |t: &str| {
                    let mut v: Vec<String> = t.split_whitespace().map(String::from).collect();
                    v.sort();
                    v
                };
                assert_eq!(
                    tokens(&format_plain(&state.position, &play)),
                    tokens(reply),
                    "{id}"
                );
            }
        }
    }
}

/// The position of `simple26_on_roll_view`: on-roll bar, points 1..=24 from the side on roll
/// (positive = on roll, negative = opponent), opponent bar.
fn simple26(v: &Value) -> Position {
    let a: Vec<i64> = v.as_array().unwrap().iter().map(i).collect();
    let mut b = Board::default();
    b.on_roll[24] = a[0] as u8;
    b.opponent[24] = a[25].unsigned_abs() as u8;
    for (p, &n) in a.iter().enumerate().take(25).skip(1) {
        if n > 0 {
            b.on_roll[p - 1] = n as u8;
        } else {
            b.opponent[24 - p] = n.unsigned_abs() as u8;
        }
    }
    Position::try_from(b).unwrap()
}

#[test]
fn move_notation_vectors() {
    let data = load("vectors-move-notation.json");
    let vectors = data["pretty_vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 13);
    for v in vectors {
        let id = s(&v["id"]);
        let pos = simple26(&v["simple26_on_roll_view"]);
        assert_eq!(pos.position_id().to_string(), s(&v["position_id"]), "{id}");
        let dice = v["dice"].as_array().unwrap();
        let roll = Roll::from_values(u(&dice[0]) as u8, u(&dice[1]) as u8);
        let typed: PlayText = s(&v["typed"])
            .parse()
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let mut pairs = typed.pairs();
        pairs.sort_unstable_by(|a, b| b.cmp(a));
        let mut expected: Vec<(u8, u8)> = v["parsed_pairs_1based"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (u(&p[0]) as u8, u(&p[1]) as u8))
            .collect();
        expected.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(pairs, expected, "{id}");
        let play = typed
            .resolve(&pos, roll)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let after = pos.apply_moves(&play).unwrap().flip();
        assert_eq!(
            after.position_id().to_string(),
            s(&v["position_id_after"]),
            "{id}"
        );
        let pretty = format_pretty(&pos, &play);
        assert_eq!(pretty, s(&v["gnubg_pretty"]), "{id}");
        // gnubg's form reads back to the same play, and so do the plain and UBGI forms.
        for text in [
            pretty.clone(),
            format_plain(&pos, &play),
            format_ubgi(&play),
        ] {
            let again = text
                .parse::<PlayText>()
                .unwrap()
                .resolve(&pos, roll)
                .unwrap_or_else(|e| panic!("{id} {text}: {e}"));
            assert_eq!(
                pos.apply_moves(&again),
                pos.apply_moves(&play),
                "{id} {text}"
            );
        }
    }
    // Plain and UBGI spellings of N10 (55 hitting twice) and N06 (entering).
    let n10 = &vectors[9];
    let pos = simple26(&n10["simple26_on_roll_view"]);
    let play = "13/8*(2) 6/1*(2)"
        .parse::<PlayText>()
        .unwrap()
        .resolve(&pos, Roll::from_values(5, 5))
        .unwrap();
    assert_eq!(format_plain(&pos, &play), "13/8* 13/8 6/1* 6/1");
    assert_eq!(format_ubgi(&play), "13/8 13/8 6/1 6/1");
    let n06 = &vectors[5];
    let pos = simple26(&n06["simple26_on_roll_view"]);
    let play = "25/22 24/23"
        .parse::<PlayText>()
        .unwrap()
        .resolve(&pos, Roll::from_values(3, 1))
        .unwrap();
    assert_eq!(format_plain(&pos, &play), "25/22 24/23");
    assert_eq!(format_ubgi(&play), "bar/22 24/23");

    // The plain-form examples from gnubg's `.mat` export and external player parse.
    for (example, pairs, pass) in [
        (0, 2, false),
        (1, 4, false),
        (2, 2, false),
        (3, 2, false),
        (4, 0, true),
    ] {
        let text = s(&data["plain_form_examples"][example]["text"]);
        let t: PlayText = text.parse().unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(t.pairs().len(), pairs, "{text:?}");
        assert_eq!(t.is_pass(), pass, "{text:?}");
    }
}
