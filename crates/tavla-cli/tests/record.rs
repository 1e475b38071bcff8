//! `tavla record` and `tavla play --save`: records converted between `.mat` and SGF, games
//! saved as they are played, and clear errors for what is not a record.

use std::io::Write;
use std::process::{Command, Stdio};

use tavla_notation::mat::MatchRecord;

mod common;
use common::{data, stdout, tavla, tavla_stdin};

#[test]
fn a_session_goes_to_sgf_and_back_unchanged() {
    let file = data("tavla-gnubg-2ply.mat");
    let original = std::fs::read_to_string(&file).unwrap();
    let dir = std::env::temp_dir().join(format!("tavla-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sgf = dir.join("s.sgf");
    let o = tavla(&[
        "record",
        &file,
        "--to",
        "sgf",
        "--out",
        sgf.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = String::from_utf8_lossy(&o.stderr);
    assert!(summary.contains("20 games"), "{summary}");
    let text = std::fs::read_to_string(&sgf).unwrap();
    assert_eq!(text.matches("(;FF[4]GM[6]").count(), 20);
    // Back to .mat: the same games, turn for turn.
    let back = stdout(&tavla(&["record", sgf.to_str().unwrap()]));
    let a = MatchRecord::parse(&original).unwrap();
    let b = MatchRecord::parse(&back).unwrap();
    assert_eq!(a.games.len(), b.games.len());
    for (x, y) in a.games.iter().zip(&b.games) {
        let (rx, ry) = (x.replay().unwrap(), y.replay().unwrap());
        let px: Vec<_> = rx
            .rolls
            .iter()
            .map(|r| (r.player, r.roll, r.after))
            .collect();
        let py: Vec<_> = ry
            .rolls
            .iter()
            .map(|r| (r.player, r.roll, r.after))
            .collect();
        assert_eq!(px, py, "game {}", x.number);
        assert_eq!(rx.result, ry.result, "game {}", x.number);
    }
    // The text too, but for the hits: the harness wrote none, and SGF (which has none) comes
    // back to .mat with each marked, as gnubg marks them.
    assert!(!original.contains('*') && back.contains('*'));
    let words = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| {
                l.replace('*', "")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(words(&back), words(&a.to_mat().unwrap()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn what_is_not_a_playable_record_is_refused_with_its_place() {
    let dir = std::env::temp_dir().join(format!("tavla-record-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.mat");
    std::fs::write(
        &bad,
        " 0 point match\n\n Game 1\n a : 0                          b : 0\n  1) 31: 8/5 6/5                 42: 24/17\n",
    )
    .unwrap();
    let o = tavla(&["record", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("game 1") && err.contains("line 5"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let o = tavla(&["record", dir.join("missing.mat").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_game_played_is_saved_and_reads_back() {
    let dir = std::env::temp_dir().join(format!("tavla-play-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = dir.join("g.mat");
    // Against the random player, the person passing the engine's turn and quitting at the
    // first prompt: the record holds every roll played before the quit.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tavla"))
        .args([
            "play",
            "--engine",
            "random",
            "--seed",
            "7",
            "--name",
            "Ann",
            "--save",
            save.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"quit\n").unwrap();
    let o = child.wait_with_output().unwrap();
    let text = stdout(&o);
    assert!(text.contains("Game saved to"), "{text}");
    let record = MatchRecord::parse(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert_eq!(record.players, ["Ann".to_string(), "random".to_string()]);
    let replay = record.games[0].replay().unwrap();
    assert_eq!(replay.result, None);
    let engine_moves = text.matches("(random) rolls").count();
    assert_eq!(
        replay.rolls.iter().filter(|r| r.player == 1).count(),
        engine_moves
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tavla arena --mat` records the games it plays: the same results as without it, and `tavla
/// luck` on the record gives the arena's own luck-adjusted figure (the same judge).
#[test]
fn arena_games_are_recorded_and_their_luck_agrees() {
    let dir = std::env::temp_dir().join(format!("tavla-arena-mat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mat = dir.join("a.mat");
    let args = [
        "arena",
        "--a",
        "heuristic",
        "--b",
        "random",
        "--games",
        "40",
        "--seed",
        "3",
        "--luck",
        "--json",
        "--threads",
        "2",
    ];
    let plain: serde_json::Value = serde_json::from_str(&stdout(&tavla(&args))).unwrap();
    let mut with_mat = args.to_vec();
    with_mat.extend(["--mat", mat.to_str().unwrap()]);
    let recorded: serde_json::Value = serde_json::from_str(&stdout(&tavla(&with_mat))).unwrap();
    assert_eq!(plain, recorded);
    let luck: serde_json::Value = serde_json::from_str(&stdout(&tavla(&[
        "luck",
        mat.to_str().unwrap(),
        "--pairs",
        "--json",
    ])))
    .unwrap();
    assert_eq!(luck["games"], 40);
    assert_eq!(luck["players"][0], "heuristic");
    assert_eq!(luck["ppg_left"], plain["ppg_a"]);
    let (a, b) = (
        luck["luck_adjusted_ppg_left"].as_f64().unwrap(),
        plain["luck_adjusted_ppg_a"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-6, "{a} {b}");
    // With the cube: `tavla luck` values each roll at the cube's value then, as the arena does.
    let cube_mat = dir.join("cube.mat");
    let mut cube_args = args.to_vec();
    cube_args[2] = "neural";
    cube_args.extend(["--cube", "--mat", cube_mat.to_str().unwrap()]);
    let cubed: serde_json::Value = serde_json::from_str(&stdout(&tavla(&cube_args))).unwrap();
    let luck: serde_json::Value = serde_json::from_str(&stdout(&tavla(&[
        "luck",
        cube_mat.to_str().unwrap(),
        "--pairs",
        "--json",
    ])))
    .unwrap();
    assert_eq!(
        (&luck["money"], &luck["cubeless_money"]),
        (&true.into(), &false.into())
    );
    assert!(
        std::fs::read_to_string(&cube_mat)
            .unwrap()
            .contains("Doubles => 2"),
        "the neural player doubles the random one out"
    );
    assert_eq!(luck["ppg_left"], cubed["ppg_a"]);
    let (a, b) = (
        luck["luck_adjusted_ppg_left"].as_f64().unwrap(),
        cubed["luck_adjusted_ppg_a"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-6, "{a} {b}");
    // Matches: `tavla luck` on the files, in pairs, gives the arena's luck-adjusted rate, the
    // luck in match winning chances. (Seed 7: the two matches of each of seed 5's pairs were
    // played alike, so that their luck cancelled to the raw result.)
    let dir_m = dir.join("matches");
    let match_args = [
        "arena",
        "--a",
        "neural:cube-ply=1",
        "--b",
        "neural",
        "--match",
        "3",
        "--games",
        "8",
        "--seed",
        "7",
        "--luck",
        "--json",
        "--mat",
        dir_m.to_str().unwrap(),
    ];
    let arena: serde_json::Value = serde_json::from_str(&stdout(&tavla(&match_args))).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(&dir_m)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    files.sort();
    let mut luck_args = vec!["luck", "--pairs", "--json"];
    luck_args.extend(files.iter().map(String::as_str));
    let luck: serde_json::Value = serde_json::from_str(&stdout(&tavla(&luck_args))).unwrap();
    let m = &luck["matches"];
    assert_eq!(m["matches"], 8, "{luck}");
    assert_eq!(m["win_rate_left"], arena["win_rate_a"], "{luck}");
    let rate = |v: &serde_json::Value| 0.5 * (1.0 + v.as_f64().unwrap());
    let (a, b) = (
        m["luck_adjusted_win_rate_left"].as_f64().unwrap(),
        rate(&arena["luck_adjusted_ppg_a"]),
    );
    assert!((a - b).abs() < 1e-9, "{a} {b}");
    assert_ne!(a, m["win_rate_left"].as_f64().unwrap(), "the luck counts");
    // Seven matches cannot be pairs.
    let o = tavla(
        &["luck", "--pairs"]
            .into_iter()
            .chain(files[..7].iter().map(String::as_str))
            .collect::<Vec<_>>(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("7 matches cannot be duplicate pairs"));
    // Other rules cannot be recorded.
    let mut variant = with_mat.clone();
    variant.extend(["--variant", "no-quad-doubles"]);
    let o = tavla(&variant);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--mat"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A record with a set-up position goes to SGF, and `--to mat` is refused with its line (a
/// `.mat` record cannot hold a set-up).
#[test]
fn set_up_records_go_to_sgf_only() {
    let file = format!(
        "{}/../tavla-notation/tests/data/gnubg-reads-sgf/SETUP1.gnubg.sgf",
        env!("CARGO_MANIFEST_DIR")
    );
    let sgf = stdout(&tavla(&["record", &file, "--to", "sgf"]));
    assert!(sgf.contains("\n;PL[B]AE[a:y]AW[f][f]"), "{sgf}");
    let o = tavla(&["record", &file, "--to", "mat"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 2") && err.contains("cannot hold"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A record written as a fast record: each play as its landing marks, the cube actions and
/// resignations by name, every line naming its player.
fn fast_record(record: &MatchRecord) -> String {
    use tavla_core::Position;
    use tavla_notation::landing::LandingMarks;
    use tavla_notation::mat::Action;
    let mut out = format!(
        "players {} {}\nmatch {}\n",
        record.players[0].replace(' ', "_"),
        record.players[1].replace(' ', "_"),
        record.length
    );
    for game in &record.games {
        out.push_str("game\n");
        let mut pos = Position::START;
        let mut over = false;
        for t in &game.turns {
            let who = ["L", "R"][t.player];
            match &t.action {
                Action::Move(text) => {
                    let roll = text.roll.unwrap();
                    let play = text.resolve(&pos, roll).unwrap();
                    let marks = LandingMarks::from_play(roll, &play);
                    out.push_str(&format!("{who} {marks}\n"));
                    let after = pos.play(roll, &play).unwrap();
                    over = after.outcome().is_some();
                    pos = after.flip();
                }
                Action::Double(_) => out.push_str(&format!("{who} double\n")),
                Action::Take => out.push_str("take\n"),
                Action::Beaver(_) => out.push_str("beaver\n"),
                Action::Drop => {
                    out.push_str("drop\n");
                    over = true;
                }
                Action::Wins(n) if !over => out.push_str(&format!("{who} wins {n}\n")),
                Action::Wins(_) | Action::SetUp(_) => {}
            }
        }
    }
    out
}

#[test]
fn fast_records_of_landing_marks_read_back_as_the_games_played() {
    for file in [
        "tavla-gnubg-2ply.mat",
        "analyse/heur-cube.mat",
        "analyse/match5-2.mat",
    ] {
        let original = MatchRecord::parse(&std::fs::read_to_string(data(file)).unwrap()).unwrap();
        let fast = fast_record(&original);
        let back = tavla_notation::landing::read_fast_record(&fast)
            .unwrap_or_else(|e| panic!("{file}: {e}\n{fast}"));
        assert_eq!(back.length, original.length, "{file}");
        assert_eq!(back.games.len(), original.games.len(), "{file}");
        for (a, b) in original.games.iter().zip(&back.games) {
            let (ra, rb) = (a.replay().unwrap(), b.replay().unwrap());
            // A money session's scores are the running totals (gnubg's way); the arena writes
            // 0 to 0 for every game.
            if original.length > 0 {
                assert_eq!(a.scores, b.scores, "{file}: game {}", a.number);
            }
            assert_eq!(ra.result, rb.result, "{file}: game {}", a.number);
            assert_eq!(
                ra.doubles.len(),
                rb.doubles.len(),
                "{file}: game {}",
                a.number
            );
            let steps = |r: &tavla_notation::mat::Replay| -> Vec<_> {
                r.rolls
                    .iter()
                    .map(|t| (t.player, t.roll, t.after, t.cube))
                    .collect()
            };
            assert_eq!(steps(&ra), steps(&rb), "{file}: game {}", a.number);
        }
        // Through the binary: the same record, as .mat.
        let dir = std::env::temp_dir().join(format!("tavla-fast-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("fast.txt");
        std::fs::write(&path, &fast).unwrap();
        let mat = stdout(&tavla(&["record", "--fast", path.to_str().unwrap()]));
        let again = MatchRecord::parse(&mat).unwrap();
        assert_eq!(again.games.len(), original.games.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn fast_record_errors_name_the_line() {
    use tavla_notation::landing::read_fast_record;
    let cases = [
        ("3@5 1@5\n", 1, "name the player"),
        ("R 3@5 1@5\n3@5 3@5 3@5 3@5\n", 2, "no legal play"),
        (
            "R 3@5 3@5 3@21 3@21\n",
            1,
            "opening roll cannot be a double",
        ),
        ("R 3@5 1@5\nR 6@18 2@11\n", 2, "turn"),
        ("R 3@5 1@5\ntake\n", 2, "no double"),
        ("R 3@5 1@5\ndouble\n6@18 2@11\n", 3, "awaits its answer"),
        ("R 3@5 1@5\ndouble\ndrop\nL 6@18 2@11\n", 4, "game is over"),
        ("R 3@5 1@5\ngame\nR 3@5 1@5\n", 2, "no result"),
        ("R 3@5 1@5\nmatch 5\n", 2, "before the first game"),
        ("match x\n", 1, "match N"),
        ("# nothing\n", 1, "no games"),
        ("R 3@5 1@5\nwins 2\n", 2, "name the winner"),
        // Review (fifty-eighth round): a result with a double unanswered, an answer by the
        // doubler, and a double before the opening roll were recorded.
        (
            "R 3@5 1@5\ndouble\nL wins 1\n",
            3,
            "a double awaits its answer",
        ),
        (
            "R 3@5 1@5\nL double\nL take\n",
            3,
            "the left player doubled",
        ),
        (
            "R 3@5 1@5\nL double\nL drop\n",
            3,
            "the right player answers",
        ),
        ("L double\ntake\n", 1, "a double before the opening roll"),
    ];
    for (text, line, what) in cases {
        let e = read_fast_record(text).unwrap_err();
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.to_string().contains(what), "{text:?}: {e}");
    }
    // Read, but not adding up: a resignation at the 2-cube worth 9, at its line.
    let o = tavla_stdin(
        &["record", "--fast", "-"],
        "match 3\nR 3@5 1@5\ndouble\ntake\nL wins 9\n",
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("game 1: line 5: wins 9 points, but a resignation with the cube at 2 is worth 2 or 4 or 6"),
        "{err}"
    );
}

#[test]
fn arena_games_with_resignations_are_recorded_and_judged_alike() {
    let dir = std::env::temp_dir().join(format!("tavla-resign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mat = dir.join("games.mat");
    let mat_s = mat.to_str().unwrap();
    let arena: serde_json::Value = serde_json::from_str(&stdout(&tavla(&[
        "arena",
        "--a",
        "neural:ply=0",
        "--b",
        "neural:ply=1",
        "--cube",
        "--beavers",
        "--resign",
        "--games",
        "20",
        "--seed",
        "9",
        "--luck",
        "--json",
        "--mat",
        mat_s,
    ])))
    .unwrap();
    // Resigned games end early: fewer plies than games played out.
    let played_out: serde_json::Value = serde_json::from_str(&stdout(&tavla(&[
        "arena",
        "--a",
        "neural:ply=0",
        "--b",
        "neural:ply=1",
        "--cube",
        "--games",
        "20",
        "--seed",
        "9",
        "--json",
    ])))
    .unwrap();
    assert!(
        arena["plies_avg"].as_f64().unwrap() < played_out["plies_avg"].as_f64().unwrap(),
        "{arena} {played_out}"
    );
    // The record reads back, and its luck is the arena's.
    let luck: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["luck", mat_s, "--pairs", "--json"]))).unwrap();
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    // The same sums, added in another order.
    assert!((f(&luck["luck_adjusted_ppg_left"]) - f(&arena["luck_adjusted_ppg_a"])).abs() < 1e-12);
    assert!((f(&luck["ppg_left"]) - f(&arena["ppg_a"])).abs() < 1e-12);
    // Beavers need the cube.
    let o = tavla(&["arena", "--a", "random", "--b", "random", "--beavers"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_latin1_record_is_read_as_gnubg_reads_it() {
    // `José` written in ISO-8859-1 by an older program: not UTF-8, read byte for character.
    let file = data("records/latin1.mat");
    assert!(String::from_utf8(std::fs::read(&file).unwrap()).is_err());
    let o = tavla(&["record", &file]);
    let text = stdout(&o);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("José against b"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Written back in UTF-8, padded by bytes as gnubg pads (`José : 0` is 9 bytes).
    assert!(
        text.contains(&format!(" José : 0{}b : 0\n", " ".repeat(22))),
        "{text}"
    );
    // A UTF-8 byte-order mark on stdin is skipped.
    let bom = format!(
        "\u{feff}{}",
        std::fs::read_to_string(data("tavla-gnubg-2ply.mat")).unwrap()
    );
    let o = tavla_stdin(&["record", "-"], &bom);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("20 games"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
