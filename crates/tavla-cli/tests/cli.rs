//! End-to-end tests of the `tavla` binary: output shapes other tools rely on, and exit codes.

mod common;
use common::{stderr, stdout, tavla, tavla_stdin};

const START: &str = "4HPwATDgc/ABMA";

#[test]
fn moves_lists_plays_with_the_opponents_position_id() {
    let out = stdout(&tavla(&["moves", START, "31"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 16);
    // The ID after 8/5 6/5 is one of gnubg's results for this case (tests/data/gnubg-moves.txt).
    assert!(lines.contains(&"8/5 6/5\tsGfwATDgc/ABMA"));
    for line in &lines {
        let (play, id) = line.split_once('\t').expect("tab");
        assert!(!play.is_empty());
        assert_eq!(id.len(), 14);
    }
    // All three dice spellings.
    assert_eq!(stdout(&tavla(&["moves", START, "3-1"])), out);
    assert_eq!(stdout(&tavla(&["moves", START, "3", "1"])), out);
}

#[test]
fn moves_json_has_play_ubgi_and_result() {
    let out = stdout(&tavla(&["moves", START, "66", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 11);
    for o in arr {
        assert!(o["play"].is_string());
        assert!(o["ubgi"].as_str().unwrap().contains('/'));
        for k in ["gnubg", "bpn", "xgid"] {
            assert!(o["result"][k].is_string(), "{k}");
        }
    }
}

#[test]
fn batch_writes_one_line_per_input_line_with_errors_in_place() {
    let input = format!("{START} 31\nnot-a-position 31\n{START} 6-6\n{START} 7 1\n");
    let out = tavla_stdin(&["moves", "--batch", "-"], &input);
    let text = stdout(&out);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["moves"].as_array().unwrap().len(), 16);
    assert!(lines[1]["error"].as_str().unwrap().contains("line 2"));
    assert_eq!(lines[2]["moves"].as_array().unwrap().len(), 11);
    assert!(lines[3]["error"].is_string());
    // A die out of range is named as a die, as it is without --batch.
    let error = &lines[3]["error"];
    assert!(
        error.as_str().unwrap().contains("invalid die '7'"),
        "{error}"
    );
    // Three dice are named as such, not read as part of the position.
    let out = tavla_stdin(&["moves", "--batch", "-"], &format!("{START} 3 1 2\n"));
    assert!(stdout(&out).contains("three dice `3 1 2`"));
}

#[test]
fn an_xgid_without_its_prefix_is_a_position_not_an_option() {
    // Without `XGID=` an XGID starts with `-` (an empty bar).
    let xgid = "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";
    assert!(stdout(&tavla(&["show", xgid])).contains(START));
    assert_eq!(
        stdout(&tavla(&["convert", xgid, "--to", "gnubg"])).trim(),
        format!("{START}:cAkAAAAAAAAE")
    );
    assert_eq!(stdout(&tavla(&["perft", xgid, "1"])).trim(), "perft 1 447");
}

#[test]
fn bearoff_best_reads_a_position_id_holding_a_slash() {
    // `/` is a Base64 character: the ID is read as one, the same race as its counts.
    let by_id = stdout(&tavla(&["bearoff", "best", "8AIAQH/rAQAAAA", "21"]));
    let by_counts = stdout(&tavla(&[
        "bearoff",
        "best",
        "1,7,2,1,4,0/0,0,0,0,4,1",
        "21",
    ]));
    assert_eq!(by_id, by_counts);
}

#[test]
fn perft_prints_the_count() {
    let out = stdout(&tavla(&["perft", START, "2"]));
    assert_eq!(out.trim(), "perft 2 202782");
    let out = stdout(&tavla(&["perft", START, "1", "--divide"]));
    assert!(out.contains("66 11\n"));
    assert!(out.ends_with("perft 1 447\n"));
}

#[test]
fn convert_writes_each_notation_on_one_line() {
    let bpn = stdout(&tavla(&["convert", START, "--to", "bpn"]));
    assert_eq!(bpn, "b4E1C3eE3c1e4B-w0b0-b00-n1-0:0:0\n");
    let gnubg = stdout(&tavla(&["convert", bpn.trim(), "--to", "gnubg"]));
    assert_eq!(gnubg, "4HPwATDgc/ABMA:cAkAAAAAAAAE\n");
    let xgid = stdout(&tavla(&["convert", gnubg.trim(), "--to", "xgid"]));
    assert!(xgid.starts_with("XGID=-b----E-C---eE---c-e----B-:"));
    let fibs = stdout(&tavla(&["convert", xgid.trim(), "--to", "fibs"]));
    assert!(fibs.starts_with("board:"));
    let back = stdout(&tavla(&["convert", fibs.trim(), "--to", "gnubg"]));
    assert_eq!(back, gnubg);
}

#[test]
fn show_draws_the_board_and_every_notation() {
    let out = stdout(&tavla(&["show", START]));
    assert!(out.contains("+13-14-15-16-17-18------19-20-21-22-23-24-+"));
    assert!(out.contains("X: 167 pips"));
    for label in ["BPN:", "gnubg:", "XGID:", "FIBS:"] {
        assert!(out.contains(label), "{label}");
    }
    assert!(!out.contains("Note:"), "{out}");
    // What a Match ID says that the game state does not keep is named (gnubg's vectors M12:
    // a game ended by a resigned backgammon; M14: a dropped double).
    let out = stdout(&tavla(&["show", "4HPwATDgc/ABMA:VmMgA0ABwAAE"]));
    assert!(out.ends_with("Note: the Match ID says the game ended by a resignation; shown as a game in progress; the Match ID has a resignation of a backgammon pending, not kept\n"), "{out}");
    let out = stdout(&tavla(&["show", "4HPwATDgc/ABMA:AwRgAaAAGAAE"]));
    assert!(out.ends_with("Note: the Match ID says the game ended by a dropped double; shown as a game in progress\n"), "{out}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    const NOT_WEIGHTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    for args in [
        vec!["moves", "xyz", "31"],
        vec!["moves", START, "71"],
        vec!["moves", START],
        vec!["show", "4HPwATDgc/ABM"],
        vec!["perft", "b4E1C3eE3c1e4B-w0b0-w31-n3-0:0:7", "1"],
        vec!["hint", "xyz", "31"],
        vec!["hint", START, "71"],
        vec!["hint", START],
        vec!["eval", START, "--ply", "4"],
        vec!["rollout", "xyz"],
        vec!["rollout", START, "--games", "0"],
        vec!["rollout", START, "--balance-parity"],
        vec!["train", "td", "--dir", "unused", "--lambda", "2"],
        vec!["bearoff", "lookup", "1,2,x"],
        vec!["bearoff", "best", "0,0,2/1", "71"],
        vec!["bearoff", "best", "0,0,2/1,x", "61"],
        // Files named on the command line that are missing or are not what they should be.
        vec!["eval", START, "--weights", "/nonexistent/w.tnn"],
        vec!["eval", START, "--weights", NOT_WEIGHTS],
        vec!["rollout", START, "--weights", "/nonexistent/w.tnn"],
        vec!["judge", "/nonexistent/set.jsonl", "--player", "neural"],
        vec![
            "train",
            "fit",
            "--data",
            "/nonexistent/d.txt",
            "--out",
            "/nonexistent/w.tnn",
        ],
        vec!["bearoff", "lookup", "--db", "/nonexistent/db", "0"],
        // Both sides on the bar against closed boards: no game reaches it, none would end.
        vec![
            "rollout",
            "XGID=aBBBBBB-----------bbbbbbbA:0:0:1:00:0:0:0:0:10",
            "--games",
            "1",
        ],
        vec!["bearoff", "best", "0,0,0,0,0,0,1/1", "21"],
        vec!["bearoff", "best", "0/1", "21"],
        vec!["bearoff", "build", "--points", "0", "-o", "/nonexistent/db"],
        vec!["met", "--away", "1", "2", "--crawford", "--cube", "4"],
        vec!["bench", "--positions", "500"],
        vec!["perft", START, "31"],
        // A chunk's games are held together: not a chunk bigger than memory.
        vec![
            "train",
            "label",
            "--out",
            "/tmp/tavla-never-written.txt",
            "--games",
            "100000000000000",
            "--chunk",
            "100000000000000",
        ],
        // Where the games would go is checked before they are played.
        vec![
            "arena",
            "--a",
            "random",
            "--b",
            "random",
            "--games",
            "2",
            "--mat",
            "/nonexistent/g.mat",
        ],
        // A file with no line ends is not read whole.
        vec!["moves", "--batch", "/dev/zero"],
    ] {
        let o = tavla(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("tavla: "), "{err}");
    }
}

#[test]
fn bearoff_info_checks_the_whole_file_and_build_its_output_first() {
    let dir = common::temp_dir("bearoff-info");
    let db = dir.join("os.tbo");
    let db_s = db.to_str().unwrap();
    stdout(&tavla(&[
        "bearoff",
        "build",
        "--points",
        "3",
        "--checkers",
        "3",
        "-o",
        db_s,
    ]));
    let info = stdout(&tavla(&["bearoff", "info", db_s]));
    assert!(info.contains("kind      one-sided"), "{info}");
    // Review: a file cut short or damaged was shown as fine. Now info fails as lookup does.
    let bytes = std::fs::read(&db).unwrap();
    let cut = dir.join("cut.tbo");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let damaged = dir.join("damaged.tbo");
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    std::fs::write(&damaged, &flipped).unwrap();
    for (file, want) in [(&cut, "the header says"), (&damaged, "checksum")] {
        let file = file.to_str().unwrap();
        let o = tavla(&["bearoff", "info", file]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
        let lookup = tavla(&["bearoff", "lookup", "--db", file, "1"]);
        assert_eq!(stderr(&o), stderr(&lookup));
    }
    // Review: an output file in a "folder" that is a file was refused only after the build.
    let o = tavla(&[
        "bearoff",
        "build",
        "--points",
        "3",
        "--checkers",
        "3",
        "-o",
        &format!("{db_s}/x.tbo"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!("tavla: --output {db_s}/x.tbo: {db_s} is a file, not a folder\n")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A few positions of tools/judge/gnubg-2ply.jsonl.
const JUDGED: &str = "../tavla-match/tests/data/judged-sample.jsonl";

#[test]
fn judge_compares_players_on_the_same_positions() {
    let sample = format!("{}/{JUDGED}", env!("CARGO_MANIFEST_DIR"));
    let out = stdout(&tavla(&[
        "judge", &sample, "--player", "neural", "--player", "random", "--json",
    ]));
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["player"], "neural:ply=0");
    assert_eq!(lines[0]["plies"], 2);
    let neural = lines[0]["all"]["mean_loss"].as_f64().unwrap();
    let random = lines[1]["all"]["mean_loss"].as_f64().unwrap();
    assert!(neural < random / 3.0, "{neural} {random}");
    let d = lines[1]["vs_first"]["difference"].as_f64().unwrap();
    assert!((d - (random - neural)).abs() < 1e-9);
    // --differ lists where the second player's choice is not the first's, with the judge's
    // difference, in the table and in the JSON alike.
    let differ: Vec<serde_json::Value> = stdout(&tavla(&[
        "judge", &sample, "--player", "neural", "--player", "random", "--json", "--differ",
    ]))
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    let listed = differ[1]["differ"].as_array().unwrap();
    assert!(!listed.is_empty());
    let mut sum = 0.0;
    for d in listed {
        assert_ne!(d["played"], d["first"], "{d}");
        sum += d["judge_difference"].as_f64().unwrap();
    }
    // The differences are the paired losses (in mEMG there) of the positions that differ.
    let positions = differ[0]["all"]["positions"].as_f64().unwrap();
    assert!((sum * 1000.0 / positions + d).abs() < 1e-6, "{sum} {d}");
    let table = stdout(&tavla(&[
        "judge", &sample, "--player", "neural", "--player", "random", "--differ",
    ]));
    let header = format!("  {} choices differ from neural:ply=0's:", listed.len());
    assert!(table.contains(&header), "{table}");
    let rows = table.lines().filter(|l| l.contains(", first ")).count();
    assert_eq!(rows, listed.len(), "{table}");
    // --worst lists the costliest choices, in the table and in the JSON alike.
    let worst: Vec<serde_json::Value> = stdout(&tavla(&[
        "judge", &sample, "--player", "random", "--json", "--worst", "3",
    ]))
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    let listed = worst[0]["worst"].as_array().unwrap();
    assert_eq!(listed.len(), 3, "{}", worst[0]);
    let losses: Vec<f64> = listed.iter().map(|w| w["loss"].as_f64().unwrap()).collect();
    assert!(
        losses.windows(2).all(|w| w[0] >= w[1]) && losses[2] > 0.0,
        "{losses:?}"
    );
    assert!(listed.iter().all(|w| w["played"] != w["best"]));
    let table = stdout(&tavla(&[
        "judge", &sample, "--player", "random", "--worst", "3",
    ]));
    assert!(
        table.contains(&format!("-{:.3}  played", losses[0])),
        "{table}"
    );
    // The counts by gnubg's marks: not best, bad beyond 0.08, blunders beyond 0.16.
    let all = &worst[0]["all"];
    let counts = ["errors", "bad", "blunders"].map(|k| all[k].as_u64().unwrap());
    assert!(counts[0] >= counts[1] && counts[1] >= counts[2], "{all}");
    assert!(table.contains("bad (> 0.08)") && table.contains("blunders (> 0.16)"));
    // The table names every player and class.
    let table = stdout(&tavla(&[
        "judge", &sample, "--player", "neural", "--limit", "10",
    ]));
    assert!(table.starts_with("10 positions"), "{table}");
    assert!(table.contains("contact"), "{table}");
    // A broken line is named.
    let dir = std::env::temp_dir().join(format!("tavla-judge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "# comment\n{\"posid\": 3}\n").unwrap();
    let o = tavla(&["judge", bad.to_str().unwrap(), "--player", "neural"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("line 2"), "{err}");
    // Several files are judged as one set, if they were judged at the same depth.
    let both = stdout(&tavla(&["judge", &sample, &sample, "--player", "neural"]));
    let one_count = table_count(&stdout(&tavla(&["judge", &sample, "--player", "neural"])));
    assert_eq!(table_count(&both), 2 * one_count, "{both}");
    let deeper = dir.join("deeper.jsonl");
    let text = std::fs::read_to_string(&sample).unwrap();
    std::fs::write(&deeper, text.replace("\"plies\":2", "\"plies\":3")).unwrap();
    let o = tavla(&[
        "judge",
        &sample,
        deeper.to_str().unwrap(),
        "--player",
        "neural",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("judged at 3 plies, the files before it at 2"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The number of positions a judge table starts with.
fn table_count(table: &str) -> usize {
    table.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn bench_prints_a_reproducible_signature() {
    let run = || stdout(&tavla(&["bench", "--ply", "1", "--positions", "12"]));
    let a = run();
    let b = run();
    let nodes = |s: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix("Nodes searched : "))
            .expect("a signature line")
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    assert!(nodes(&a) > 0, "{a}");
    assert_eq!(nodes(&a), nodes(&b));
    assert!(a.contains("median decision"), "{a}");
    let o = tavla(&["bench", "--ply", "9"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn rollout_at_any_ply_is_seeded_and_refuses_bad_options() {
    let run = |threads: &str, ply: &str| {
        let o = tavla(&[
            "rollout",
            START,
            "--games",
            "12",
            "--truncate",
            "3",
            "--ply",
            ply,
            "--threads",
            threads,
            "--json",
        ]);
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let one = run("1", "1");
    assert_eq!(one, run("2", "1"), "the threads do not change the result");
    assert_eq!(one["ply"], 1);
    assert_eq!(one["games"], 12);
    let stderr = one["equity_stderr"].as_f64().unwrap();
    assert!(stderr > 0.0, "{one}");
    let half = one["equity_ci95"].as_f64().unwrap();
    // A half-width of Student's t at 11 degrees of freedom.
    assert!((half - 2.201 * stderr).abs() < 1e-12, "a half-width: {one}");
    assert_ne!(one["equity"], run("1", "0")["equity"]);
    for (args, what) in [
        (
            vec!["rollout", START, "--ply", "4"],
            "--ply must be in 0..=3",
        ),
        (
            vec!["rollout", START, "--games", "0"],
            "--games 0: a rollout plays at least 2 games",
        ),
        (
            vec!["rollout", START, "--games", "1"],
            "--games 1: a rollout plays at least 2 games",
        ),
        (
            vec!["rollout", START, "--balance-parity"],
            "--balance-parity applies to truncated rollouts",
        ),
    ] {
        let o = tavla(&args);
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(what), "{err}");
    }
}

#[test]
fn a_time_limit_stops_a_rollout_after_its_first_games() {
    // A hundred million games asked for, one second allowed: the answer covers the games
    // played, which are the first ones, so the same number asked for gives the same numbers.
    let json =
        |args: &[&str]| serde_json::from_str::<serde_json::Value>(&stdout(&tavla(args))).unwrap();
    // A limit too far off to represent is no limit.
    let all = json(&[
        "rollout",
        START,
        "--games",
        "2",
        "--time-limit",
        "18446744073709551615",
        "--json",
        "--quiet",
    ]);
    assert_eq!(all["games"], 2);
    // A position, the plays of a roll (with the cube, too) and a cubeful rollout.
    for args in [
        vec!["rollout", START],
        vec!["rollout", START, "31", "--top", "2"],
        vec!["rollout", START, "31", "--top", "2", "--cube"],
        vec!["rollout", START, "--cube"],
    ] {
        let mut limited = args.clone();
        limited.extend([
            "--games",
            "100000000",
            "--time-limit",
            "1",
            "--json",
            "--quiet",
        ]);
        let mut stopped = json(&limited);
        let games = stopped["games"].as_u64().unwrap();
        assert!((2..100_000_000).contains(&games), "{stopped}");
        // It says how many were asked for, and otherwise is the rollout of the games played.
        let asked = stopped.as_object_mut().unwrap().remove("games_asked");
        assert_eq!(asked, Some(100_000_000.into()), "{args:?}");
        let n = games.to_string();
        let mut full = args.clone();
        full.extend(["--games", n.as_str(), "--json", "--quiet"]);
        let mut full = json(&full);
        assert_eq!(
            full.as_object_mut().unwrap().remove("games_asked"),
            Some(games.into())
        );
        assert_eq!(full, stopped, "{args:?}");
    }
}

#[test]
fn rollout_of_the_plays_of_a_roll() {
    // The opening 3-1: the 2-ply search's three best plays and a named one, on the same dice.
    let o = tavla(&[
        "rollout",
        START,
        "31",
        "--top",
        "3",
        "--play",
        "24/21 24/23",
        "--games",
        "72",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["dice"], "31");
    let plays = v["plays"].as_array().unwrap();
    assert_eq!(plays.len(), 4);
    assert!(plays.iter().any(|p| p["play"] == "24/23 24/21"));
    // Ranked by the rolled-out equity; the best's difference is 0, the others' their gap.
    let eq = |p: &serde_json::Value| p["equity"].as_f64().unwrap();
    assert_eq!(plays[0]["difference"], 0.0);
    for (i, p) in plays.iter().enumerate() {
        assert_eq!(p["rank"], i + 1);
        let d = p["difference"].as_f64().unwrap();
        assert!((d - (eq(p) - eq(&plays[0]))).abs() < 1e-6, "{p}");
        let stderr = p["equity_stderr"].as_f64().unwrap();
        let half = p["equity_ci95"].as_f64().unwrap();
        // Student's t at 71 degrees of freedom, 1.994.
        assert!(
            (half - (1.96 + 2.4 / 71.0) * stderr).abs() < 1e-12,
            "a half-width: {p}"
        );
    }
    // The text form names the roll and the plays, best first.
    let text = stdout(&tavla(&[
        "rollout", START, "31", "--top", "2", "--games", "36",
    ]));
    assert!(text.starts_with("2 plays for 31, 36 games each"), "{text}");
    assert!(
        text.lines().nth(1).unwrap().trim_start().starts_with("1. "),
        "{text}"
    );
    for (args, what) in [
        (vec!["rollout", START, "--top", "2"], "give the dice"),
        (
            vec!["rollout", START, "31", "--play", "24/18"],
            "--play \"24/18\"",
        ),
        (vec!["rollout", START, "31", "--play", "x"], "--play \"x\""),
        (
            vec!["rollout", START, "31", "--top", "0"],
            "--top must be at least 1",
        ),
        (vec!["rollout", START, "3x"], "cannot read dice"),
    ] {
        let o = tavla(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
    }
}

#[test]
fn cubeful_rollout_of_the_plays_of_a_roll() {
    // The opening 3-1 with the cube in the middle (money), then in a 5-point match at 0-0.
    for (position, cube) in [(START, "money"), ("4HPwATDgc/ABMA:cAmgAAAAAAAE", "match")] {
        let o = tavla(&[
            "rollout",
            position,
            "31",
            "--top",
            "2",
            "--games",
            "36",
            "--threads",
            "2",
            "--cube",
            "--json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["cube"], cube);
        let plays = v["plays"].as_array().unwrap();
        assert_eq!(plays.len(), 2);
        assert_eq!(plays[0]["difference"], 0.0);
        let eq = |p: &serde_json::Value| p["equity"].as_f64().unwrap();
        assert!(eq(&plays[0]) >= eq(&plays[1]));
        if cube == "match" {
            for p in plays {
                assert!((0.0..=1.0).contains(&eq(p)), "{p}");
            }
        }
    }
    let text = stdout(&tavla(&[
        "rollout", START, "31", "--top", "2", "--games", "36", "--cube",
    ]));
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("cubeful (money, per unit of the cube"),
        "{text}"
    );
}

#[test]
fn play_rollouts_with_the_cube_take_the_best_plays_by_cubeful_equity() {
    // A money game with the cube in the middle: by cubeless equity the default networks'
    // 2-ply search plays 13/10 6/5 with this 3-1, by cubeful equity 24/21 6/5. The candidates
    // of a play rollout are ranked as the rollout values them.
    let xgid = "XGID=-aa--BD-B---dE---d-e----B-:0:0:1:31:0:0:0:0:10";
    let first = |extra: &[&str]| {
        let mut args = vec![
            "rollout", xgid, "--top", "1", "--games", "2", "--json", "--quiet",
        ];
        args.extend_from_slice(extra);
        let v: serde_json::Value = serde_json::from_str(&stdout(&tavla(&args))).unwrap();
        v["plays"][0]["play"].as_str().unwrap().to_string()
    };
    assert_eq!(first(&[]), "13/10 6/5");
    assert_eq!(first(&["--cube"]), "24/21 6/5");
}

#[test]
fn pruning_is_the_default_and_no_prune_turns_it_off() {
    let hint = |extra: &[&str]| {
        let mut args = vec!["hint", START, "43", "--ply", "2", "--top", "1", "--json"];
        args.extend_from_slice(extra);
        let v: serde_json::Value = serde_json::from_str(&stdout(&tavla(&args))).unwrap();
        (
            v[0]["play"].as_str().unwrap().to_string(),
            v[0]["equity"].as_f64().unwrap(),
        )
    };
    let (pruned, bare, full) = (hint(&[]), hint(&["--prune"]), hint(&["--no-prune"]));
    // A bare --prune names the default; the pruned search picks the unpruned one's play.
    assert_eq!(pruned, bare);
    assert_eq!(pruned.0, full.0);
    assert!(
        (pruned.1 - full.1).abs() < 0.01,
        "{pruned:?} against {full:?}"
    );
    for extra in [["--no-prune", "--keep=3"], ["--no-prune", "--prune=x.tnn"]] {
        let mut args = vec!["hint", START, "43", "--ply", "2"];
        args.extend_from_slice(&extra);
        let o = tavla(&args);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("cannot be used with"), "{err}");
    }
}

#[test]
fn cubeful_rollouts_give_both_lines_and_the_action() {
    // The start, the cube on 2 owned by the side on roll: a redouble decision.
    let mut state = tavla_notation::parse_position(START).unwrap();
    state.cube = tavla_core::Cube {
        log2: 1,
        owner: tavla_core::CubeOwner::Side(state.turn),
    };
    let xgid = tavla_notation::Xgid::new(state).to_string();
    let args = [
        "rollout",
        &xgid,
        "--cube",
        "--games",
        "36",
        "--truncate",
        "6",
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v: serde_json::Value = serde_json::from_str(&stdout(&tavla(&with_json))).unwrap();
    assert_eq!(v["holder"], "on_roll", "{v}");
    assert_eq!(v["cube_value"], 2, "{v}");
    assert_eq!(v["games"], 36, "{v}");
    assert_eq!(v["double_pass"], 1.0, "{v}");
    let (nd, dt) = (
        v["no_double"].as_f64().unwrap(),
        v["double_take"].as_f64().unwrap(),
    );
    // Near even at the start: no redouble, and a redouble would be taken.
    assert!(nd.abs() < 0.5 && dt < nd && dt > -1.5, "{v}");
    assert_eq!(v["action"], "No redouble, take", "{v}");
    let text = stdout(&tavla(&args));
    assert!(text.contains("owned by the side on roll"), "{text}");
    assert!(text.contains("redouble, take"), "{text}");
    assert!(
        text.contains("proper cube action: No redouble, take"),
        "{text}"
    );
    // In a match: match winning chances, and the normalised equities beside them.
    let mut state = tavla_notation::parse_position(START).unwrap();
    state.match_length = 7;
    state.score = tavla_core::BySide { x: 4, o: 2 };
    let xgid = tavla_notation::Xgid::new(state).to_string();
    let args = [
        "rollout",
        &xgid,
        "--cube",
        "--games",
        "36",
        "--truncate",
        "6",
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v: serde_json::Value = serde_json::from_str(&stdout(&tavla(&with_json))).unwrap();
    let m = &v["match_winning_chances"];
    let chances =
        [&m["no_double"], &m["double_take"], &m["double_pass"]].map(|x| x.as_f64().unwrap());
    assert!(chances.iter().all(|c| (0.0..=1.0).contains(c)), "{v}");
    // 3-away against 5-away at the start: about even, no double.
    assert!(chances[0] > 0.45 && chances[0] < 0.75, "{v}");
    assert_eq!(v["double_pass"], 1.0, "{v}");
    assert!(
        v["action"].as_str().unwrap().starts_with("No double"),
        "{v}"
    );
    let text = stdout(&tavla(&args));
    assert!(
        text.contains("7-point match, the side on roll 3-away, the opponent 5-away"),
        "{text}"
    );
    assert!(text.contains("match winning chances"), "{text}");
    // The Crawford game has no cube to roll out.
    state.score = tavla_core::BySide { x: 6, o: 2 };
    state.crawford = true;
    let xgid = tavla_notation::Xgid::new(state).to_string();
    let o = tavla(&["rollout", &xgid, "--cube"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("Crawford game"), "{err}");
    // Nor has a dead cube: the leader after the Crawford game, and a 1-point match.
    for (length, x, o) in [(5, 4, 2), (1, 0, 0)] {
        state.match_length = length;
        state.score = tavla_core::BySide { x, o };
        state.crawford = false;
        let xgid = tavla_notation::Xgid::new(state).to_string();
        let out = tavla(&["rollout", &xgid, "--cube", "--games", "36"]);
        assert_eq!(out.status.code(), Some(2), "{xgid}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("the cube is dead for X"), "{xgid}: {err}");
    }
    // With the opponent's cube there is no double: one line, playing on, and no double's.
    let mut state = tavla_notation::parse_position(START).unwrap();
    state.cube = tavla_core::Cube {
        log2: 1,
        owner: tavla_core::CubeOwner::Side(state.turn.other()),
    };
    let xgid = tavla_notation::Xgid::new(state).to_string();
    let args = [
        "rollout",
        &xgid,
        "--cube",
        "--games",
        "36",
        "--truncate",
        "6",
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v: serde_json::Value = serde_json::from_str(&stdout(&tavla(&with_json))).unwrap();
    assert_eq!(v["holder"], "opponent", "{v}");
    assert!(v["no_double"].as_f64().unwrap().abs() < 1.0, "{v}");
    for absent in [
        "double_take",
        "double_pass",
        "double_take_minus_no_double_ci95",
    ] {
        assert!(v.get(absent).is_none(), "{absent}: {v}");
    }
    let text = stdout(&tavla(&args));
    assert!(text.contains("playing on"), "{text}");
    assert!(!text.contains("double, take"), "{text}");
}

#[test]
fn cubeful_rollouts_under_the_jacoby_rule() {
    // The side on roll bears its last two checkers off with any roll, the opponent has none
    // off: a gammon, 2 points without the rule, 1 under it with the cube in the middle.
    let mut b = [0i8; 26];
    b[1] = 2;
    b[12] = -15;
    let mut state = tavla_core::GameState::money(tavla_core::Position::try_from(b).unwrap());
    let no_double = |xgid: &str, extra: &[&str]| {
        let mut args = vec!["rollout", xgid, "--cube", "--games", "36", "--json"];
        args.extend_from_slice(extra);
        let v: serde_json::Value = serde_json::from_str(&stdout(&tavla(&args))).unwrap();
        v["no_double"].as_f64().unwrap()
    };
    let plain = tavla_notation::Xgid::new(state).to_string();
    assert!((no_double(&plain, &[]) - 2.0).abs() < 1e-9);
    assert!((no_double(&plain, &["--jacoby"]) - 1.0).abs() < 1e-9);
    // An XGID that says the Jacoby rule is played.
    state.jacoby = true;
    let jacoby = tavla_notation::Xgid::new(state).to_string();
    assert_ne!(jacoby, plain);
    assert!((no_double(&jacoby, &[]) - 1.0).abs() < 1e-9);
    // Only with the cube, and only in money play.
    let out = tavla(&["rollout", &plain, "--jacoby", "--games", "36"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cube"));
    let mut in_a_match = tavla_notation::parse_position(START).unwrap();
    in_a_match.match_length = 5;
    let xgid = tavla_notation::Xgid::new(in_a_match).to_string();
    let out = tavla(&["rollout", &xgid, "--cube", "--jacoby", "--games", "36"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--jacoby: the Jacoby rule is for money play"));
}

#[test]
fn finished_and_impossible_positions_are_refused_and_a_blocked_roll_passes() {
    // X has borne off all its checkers: the game is over, there are no plays to list.
    let over = "XGID=---------------------bbbb-:0:0:1:31:0:0:0:0:10";
    for cmd in ["moves", "hint"] {
        let o = tavla(&[cmd, over]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(
            stderr(&o).contains("the game is over"),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    // Both sides borne off: no game reaches it, whatever the command.
    let empty = "XGID=--------------------------:0:0:1:00:0:0:0:0:10";
    for args in [
        &["eval", empty][..],
        &["show", empty],
        &["moves", empty, "31"],
    ] {
        let o = tavla(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains("XGID \"XGID=--------------------------:0:0:1:00:0:0:0:0:10\": both sides have borne off"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // On the bar against a closed board: the one play is a pass, named so by hint and moves.
    let closed = "XGID=-----AE-C---cE-----bbbbbbA:0:0:1:64:0:0:0:0:10";
    let hint = common::json(&tavla(&["hint", closed, "--json"]));
    assert_eq!(hint[0]["play"], "pass", "{hint}");
    assert!(stdout(&tavla(&["moves", closed])).starts_with("pass\t"));
    // A bad die in a batch line is named as dice, not taken for part of the position.
    let o = tavla_stdin(&["moves", "--batch", "-"], "4HPwATDgc/ABMA 77\n");
    assert!(stdout(&o).contains("invalid dice"), "{}", stdout(&o));
}

#[test]
fn thread_counts_are_bounded() {
    // A slip of the keyboard does not start thousands of threads.
    for args in [
        vec![
            "arena",
            "--a",
            "random",
            "--b",
            "random",
            "--games",
            "2",
            "--threads",
            "2000",
        ],
        vec!["rollout", START, "--games", "36", "--threads", "5000"],
    ] {
        let o = tavla(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains("from 0 (one per core) to 1024"),
            "{args:?}"
        );
    }
}

const S: &str = "-b----E-C---eE---c-e----B-";

/// An XGID's cube limit (field 10) is kept XGID to XGID, named by `show` when it is not XG's
/// usual 10, and a cube above it is refused, as `play` and UBGI refuse it.
#[test]
fn an_xgids_cube_limit_is_kept_named_and_enforced() {
    let cubeless = format!("XGID={S}:0:0:1:00:0:0:0:0:0");
    let out = stdout(&tavla(&["convert", &cubeless, "--to", "xgid"]));
    assert_eq!(out, format!("{cubeless}\n"));
    let out = stdout(&tavla(&["show", &cubeless]));
    assert!(out.contains(&format!("XGID:  {cubeless}\n")), "{out}");
    assert!(
        out.contains("Note: the XGID is of a game without the cube (field 10 is 0)"),
        "{out}"
    );
    let out = stdout(&tavla(&["show", &format!("XGID={S}:0:0:1:00:0:0:0:0:4")]));
    assert!(
        out.contains("the XGID's cube limit is 16 (field 10 is 4, not 10)"),
        "{out}"
    );
    assert!(!stdout(&tavla(&["show", &format!("XGID={S}:0:0:1:00:0:0:0:0:10")])).contains("Note:"));
    let over = format!("XGID={S}:3:0:1:00:0:0:0:0:2");
    for args in [vec!["show", &over], vec!["convert", &over, "--to", "bpn"]] {
        let o = tavla(&args);
        let cmd = args[0];
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(
            stderr(&o).contains("the cube at 8 is above the XGID's limit of 4 (field 10, 2)"),
            "{cmd}: {}",
            stderr(&o)
        );
    }
}

/// Under an XGID's cube limit `eval` makes no cube decision and `rollout --cube` has none to
/// roll out: a game without the cube (field 10 is 0), or a cube already at the limit. A
/// position where the side on roll would double and the opponent pass.
#[test]
fn eval_and_rollout_keep_the_xgids_cube_limit() {
    let strong = "aa--BBBB----dE---d-e----B-";
    let cubeless = format!("XGID={strong}:0:0:1:00:0:0:0:0:0");
    let at_limit = format!("XGID={strong}:1:1:1:00:0:0:0:0:1");
    let free = format!("XGID={strong}:0:0:1:00:0:0:0:0:10");
    let out = stdout(&tavla(&["eval", &free, "--ply", "0"]));
    assert!(out.contains("proper cube action: Double, pass"), "{out}");
    let out = stdout(&tavla(&["eval", &cubeless, "--ply", "0"]));
    assert!(
        out.ends_with(
            "Cube: the XGID is of a game without the cube (field 10 is 0), no doubling.\n"
        ),
        "{out}"
    );
    let out = stdout(&tavla(&["eval", &at_limit, "--ply", "0"]));
    assert!(
        out.ends_with("Cube: the cube is at the XGID's limit of 2 (field 10 is 1), no doubling.\n"),
        "{out}"
    );
    let json = stdout(&tavla(&["eval", &cubeless, "--ply", "0", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v.get("cube").is_none_or(serde_json::Value::is_null),
        "{json}"
    );
    let o = tavla(&["rollout", &cubeless, "--cube", "--games", "36"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--cube: the XGID is of a game without the cube (field 10 is 0)"),
        "{}",
        stderr(&o)
    );
}

/// With beavers (an XGID's rules field 2), a double that leaves the taker ahead is beavered,
/// and eval says so as gnubg does; without them the same figures are a take.
#[test]
fn eval_beavers_a_double_that_leaves_the_taker_ahead() {
    // The opening position with a double waiting: the doubler is no better than even.
    let doubled = |rules| format!("XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:{rules}:0:10");
    for (rules, answer) in [(2, "beaver"), (0, "take")] {
        let text = stdout(&tavla(&["eval", &doubled(rules), "--ply", "0"]));
        for line in [
            format!("proper cube action: No double, {answer}"),
            format!("The double waiting in the position: {answer}"),
        ] {
            assert!(text.contains(&line), "{line}: {text}");
        }
    }
    let v: serde_json::Value = serde_json::from_str(&stdout(&tavla(&[
        "eval",
        &doubled(2),
        "--ply",
        "0",
        "--json",
    ])))
    .unwrap();
    assert!(v["cube"]["double_take"].as_f64().unwrap() < 0.0, "{v}");
    assert_eq!(v["cube"]["beaver"], true, "{v}");
    assert_eq!(v["cube"]["action"], "No double, beaver", "{v}");
}

/// Without a cube decision eval's JSON says why under `no_cube`, with the match winning
/// chance where neither side can turn the cube: the Crawford game, double match point.
#[test]
fn eval_says_why_there_is_no_cube_decision() {
    let at = |score: &str| format!("XGID=-cBBBBc-A--aBB-----bbcaB--:0:0:1:00:{score}:10");
    let json = |score: &str| -> serde_json::Value {
        serde_json::from_str(&stdout(&tavla(&[
            "eval",
            &at(score),
            "--ply",
            "0",
            "--json",
        ])))
        .unwrap()
    };
    let crawford = json("6:2:1:7");
    assert!(crawford.get("cube").is_none(), "{crawford}");
    assert_eq!(crawford["no_cube"]["why"], "the Crawford game, no doubling");
    let m = crawford["no_cube"]["match_winning_chance"]
        .as_f64()
        .unwrap();
    // X needs 1, O needs 5: X's win ends the match, and X's loss leaves X 1-away at worst.
    let win = crawford["win"].as_f64().unwrap();
    assert!(m > win && m < 1.0, "{crawford}");
    let text = stdout(&tavla(&["eval", &at("6:2:1:7"), "--ply", "0"]));
    assert!(
        text.ends_with(&format!(
            "Cube: the Crawford game, no doubling; match winning chance {:.1}% (cubeless).\n",
            100.0 * m
        )),
        "{text}"
    );
    // Double match point: the game decides the match, so the chance is the game's.
    let dmp = json("6:6:0:7");
    let m = dmp["no_cube"]["match_winning_chance"].as_f64().unwrap();
    assert!((m - dmp["win"].as_f64().unwrap()).abs() < 1e-6, "{dmp}");
    // Beyond the match equity table: a reason and no chance.
    let long = json("0:0:0:40");
    assert!(long["no_cube"]["why"]
        .as_str()
        .unwrap()
        .contains("beyond the match equity table"));
    assert!(
        long["no_cube"].get("match_winning_chance").is_none(),
        "{long}"
    );
    // With a decision there is no `no_cube`.
    assert!(json("0:0:0:7").get("no_cube").is_none());
}

/// `show` names what a gnubg Match ID holds that is dropped or read otherwise, and a cube
/// owned at 1 (SPEC-bpn A4: "parses but is flagged as unusual").
#[test]
fn show_notes_money_scores_a_stray_turn_and_an_owned_1_cube() {
    let out = stdout(&tavla(&["show", "4HPwATDgc/ABMA:cAkAADAAKAAE"]));
    assert!(
        out.ends_with("Note: the Match ID has a money session's score, X 5 and O 3, not kept (shown as 0:0)\n"),
        "{out}"
    );
    for id in ["cAEAAAAAAAAE", "cIEFAAAAAAAE"] {
        let out = stdout(&tavla(&["show", &format!("4HPwATDgc/ABMA:{id}")]));
        assert!(
            out.ends_with("Note: the Match ID's turn is O's with nothing pending, but X holds the dice: read as X's turn, as gnubg does\n"),
            "{id}: {out}"
        );
    }
    for (bpn, owner) in [("n12", "X"), ("n11", "O")] {
        let out = stdout(&tavla(&[
            "show",
            &format!("b4E1C3eE3c1e4B-w0b0-b00-{bpn}-0:0:0"),
        ]));
        assert!(
            out.contains(&format!(
                "Note: the cube is at 1 and owned by {owner}, which no game reaches"
            )),
            "{bpn}: {out}"
        );
    }
}

#[test]
fn eval_says_what_it_makes_of_a_pending_double_and_dice_and_hint_waits_for_the_answer() {
    // A double waiting at the start (the cube in the middle): eval gives the doubler's
    // decision and answers the double by it; hint has no play to rank before the answer.
    let doubled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10";
    let text = stdout(&tavla(&["eval", doubled]));
    assert!(
        text.contains("proper cube action: No double, take"),
        "{text}"
    );
    assert!(
        text.contains("The double waiting in the position: take"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["eval", doubled, "--json"]))).unwrap();
    assert_eq!(v["double_pending"], true, "{v}");
    let plain: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["eval", START, "--json"]))).unwrap();
    assert!(plain.get("double_pending").is_none(), "{plain}");
    let o = tavla(&["hint", doubled, "31"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a double is waiting for its answer"),
        "{}",
        stderr(&o)
    );
    // A position with its roll: eval values it before the roll, and says so.
    let rolled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10";
    let text = stdout(&tavla(&["eval", rolled]));
    assert!(
        text.contains("the roll 31 in the position is not used"),
        "{text}"
    );
    // A match beyond the match equity table: hint ranks by money equity, and says so.
    let long = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:64:10";
    let text = stdout(&tavla(&["hint", long, "--top", "1"]));
    assert!(text.contains("ranked by money equity"), "{text}");
    // Short bearoffs: the cube decision is exact, and says so (two checkers against one:
    // gnubg's exact table says double, take; no double +0.2778, double/take +0.5556).
    let short = "XGID=--A-A----------------a----:0:0:1:00:0:0:0:0:10";
    let text = stdout(&tavla(&["eval", short]));
    assert!(
        text.contains("exact: tavla's cubeful bearoff database"),
        "{text}"
    );
    assert!(text.contains("proper cube action: Double, take"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["eval", short, "--json"]))).unwrap();
    assert_eq!(v["cube"]["exact"], true, "{v}");
    assert!(
        (v["cube"]["no_double"].as_f64().unwrap() - 0.2778).abs() < 1e-3,
        "{v}"
    );
    assert!(
        (v["cube"]["double_take"].as_f64().unwrap() - 0.5556).abs() < 1e-3,
        "{v}"
    );
    // The same race in a match, 5-away 3-away: exact from the match tables, at every depth.
    let matched = "XGID=--A-A----------------a----:0:0:1:00:2:4:0:7:10";
    let text = stdout(&tavla(&["eval", matched]));
    assert!(
        text.contains("exact: tavla's match tables of short bearoffs"),
        "{text}"
    );
    let deep: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["eval", matched, "--ply", "2", "--json"]))).unwrap();
    let shallow: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["eval", matched, "--json"]))).unwrap();
    assert_eq!(deep["cube"]["exact"], true, "{deep}");
    assert_eq!(deep["cube"], shallow["cube"]);
    let hint = stdout(&tavla(&[
        "hint",
        "XGID=-BBAA----------------bbb--:0:0:1:31:2:4:0:7:10",
    ]));
    assert!(
        hint.contains("Match equities exact: tavla's match tables of short bearoffs"),
        "{hint}"
    );
    // The opponent's cube: only the equity of playing on, no double for the side on roll to
    // make; in a match, its chance of winning the match with it.
    for (xgid, matched) in [
        (
            "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:0:0:0:0:10",
            false,
        ),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:1:2:0:7:10", true),
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&stdout(&tavla(&["eval", xgid, "--json"]))).unwrap();
        let cube = &v["cube"];
        assert_eq!(cube["holder"], "opponent", "{v}");
        for absent in ["double_take", "double_pass", "match_winning_chances"] {
            assert!(cube.get(absent).is_none(), "{absent}: {v}");
        }
        assert_eq!(cube["no_double"], cube["equity"], "{v}");
        let mwc = cube
            .get("match_winning_chance")
            .and_then(serde_json::Value::as_f64);
        assert_eq!(mwc.is_some(), matched, "{v}");
        if let Some(m) = mwc {
            assert!(m > 0.0 && m < 1.0, "{v}");
        }
    }
}

/// The bearoff databases are read (or built and cached) by the first probe that needs each,
/// so a command that meets no race reads none of them.
#[test]
fn bearoff_databases_are_loaded_only_by_commands_that_meet_a_race() {
    let dir = std::env::temp_dir().join(format!("tavla-lazy-bearoff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tavla"))
            .args(args)
            .env("TAVLA_DATA_DIR", &dir)
            .output()
            .unwrap()
    };
    let files = || {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    stdout(&run(&["hint", START, "31", "--ply", "1"]));
    assert!(files().is_empty(), "{:?}", files());
    // Ten and eight checkers, all home: more than the exact database holds.
    stdout(&run(&[
        "eval",
        "XGID=-BBBBAA--------------bbbb-:1:1:1:00:0:0:0:0:10",
        "--ply",
        "0",
    ]));
    assert_eq!(files(), ["bearoff-os-6x15.v1.tbo"]);
    // A short race, with its cube decision.
    let text = stdout(&run(&[
        "eval",
        "XGID=-AAB-----------------bb---:1:0:1:00:0:0:0:0:10",
        "--ply",
        "0",
    ]));
    assert!(
        text.contains("exact: tavla's cubeful bearoff database"),
        "{text}"
    );
    assert_eq!(
        files(),
        [
            "bearoff-os-6x15.v1.tbo",
            "bearoff-ts-6x6-cubeful.v1.tbo",
            "bearoff-ts-6x8.v1.tbo"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With the cube turned, `hint` ranks the plays of a short bearoff by their exact cubeful
/// equities, which can prefer a play with fewer winning chances, and says so.
#[test]
fn hint_ranks_short_bearoff_plays_by_exact_cubeful_equity() {
    let xgid = "XGID=---BBAA------------b--a-a-:1:1:1:51:0:0:0:0:10";
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["hint", xgid, "--top", "2", "--json"]))).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows[0]["play"], "5/off 3/2", "{v}");
    assert_eq!(rows[1]["play"], "6/off", "{v}");
    assert!(rows.iter().all(|r| r["exact"] == true), "{v}");
    // Fewer winning chances, a better cube.
    let f = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap();
    assert!(f(&rows[0], "win") < f(&rows[1], "win"), "{v}");
    assert!(
        f(&rows[0], "cubeful_equity") > f(&rows[1], "cubeful_equity"),
        "{v}"
    );
    let text = stdout(&tavla(&["hint", xgid, "--top", "2"]));
    assert!(text.contains("Cubeful equities exact"), "{text}");
    // Every play loses the cube (the opponent, owning it, redoubles and the mover passes): the
    // ties go to the best play should the opponent not cash, by cubeless equity.
    let cashed = "XGID=---BBAA------------b--a-a-:1:-1:1:51:0:0:0:0:10";
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["hint", cashed, "--top", "6", "--json"]))).unwrap();
    let rows = v.as_array().unwrap();
    assert!(rows.iter().all(|r| f(r, "cubeful_equity") == -1.0), "{v}");
    assert_eq!(rows[0]["play"], "6/off", "{v}");
    assert!(
        rows.windows(2)
            .all(|w| f(&w[0], "equity") >= f(&w[1], "equity")),
        "{v}"
    );
    // A cube at its highest cannot be turned again: the plays are ranked cubeless.
    let dead = "XGID=---BBAA------------b--a-a-:15:1:1:51:0:0:0:0:15";
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["hint", dead, "--top", "2", "--json"]))).unwrap();
    assert_eq!(v[0]["play"], "6/off", "{v}");
    assert!(
        v[0].get("cubeful_equity").is_none() && v[0].get("exact").is_none(),
        "{v}"
    );
    // A contact position: the model, and not said to be exact.
    let contact = "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:0:0:0:0:10";
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&tavla(&["hint", contact, "--top", "1", "--json"]))).unwrap();
    assert_eq!(v[0]["exact"], false, "{v}");
    assert!(!stdout(&tavla(&["hint", contact])).contains("exact"));
}

/// `show` gives a side with every checker home its effective pip count, from the one-sided
/// bearoff database (the same figure as `bearoff lookup`), and none to a side with checkers
/// outside.
#[test]
fn show_gives_the_effective_pip_count_of_a_bearoff() {
    let text = stdout(&tavla(&[
        "show",
        "XGID=---BBAA------------b--a-a-:1:1:1:00:0:0:0:0:10",
    ]));
    assert!(text.contains("X: 25 pips, 9 off, EPC 31.9\n"), "{text}");
    assert!(text.contains("O: 16 pips, 11 off, EPC 23.1\n"), "{text}");
    let lookup = stdout(&tavla(&["bearoff", "lookup", "0,0,2,2,1,1"]));
    assert!(lookup.contains("EPC         31.93"), "{lookup}");
    let text = stdout(&tavla(&["show", START]));
    assert!(
        text.contains("X: 167 pips, 0 off\n") && !text.contains("EPC"),
        "{text}"
    );
}

/// `bearoff build` without `-o` writes each kind of database under the name the cache reads
/// (the one the engine loads on first use), the cubeful one included.
#[test]
fn bearoff_build_writes_the_files_the_cache_reads() {
    let dir = std::env::temp_dir().join(format!("tavla-build-names-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for args in [
        vec!["--points", "2", "--checkers", "1"],
        vec!["--points", "2", "--checkers", "1", "--two-sided"],
        vec![
            "--points",
            "2",
            "--checkers",
            "1",
            "--two-sided",
            "--cubeful",
        ],
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tavla"))
            .args(["bearoff", "build"])
            .args(&args)
            .env("TAVLA_DATA_DIR", &dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    use tavla_bearoff::cache;
    let mut expected = vec![
        cache::one_sided_file_name(2, 1),
        cache::two_sided_file_name(2, 1),
        cache::cubeful_two_sided_file_name(2, 1),
    ];
    expected.sort();
    assert_eq!(names, expected);
    assert!(names.contains(&"bearoff-ts-2x1-cubeful.v1.tbo".to_string()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A roll without a legal play is `pass` in `tempmap --json`, as in `moves` and `hint`, and
/// `cannot move` in its grid (a checker on the bar against a closed board: every roll).
#[test]
fn tempmap_names_no_play_as_the_other_commands_do() {
    let closed = "board:X:O:0:0:0:0:14:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-3:-2:-2:-2:-2:-2:-2:1:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";
    let json = stdout(&tavla(&["tempmap", closed, "--json", "--ply", "0"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rolls = v[0]["rolls"].as_array().unwrap_or_else(|| panic!("{json}"));
    assert_eq!(rolls.len(), 21, "{json}");
    assert!(rolls.iter().all(|r| r["play"] == "pass"), "{json}");
    let grid = stdout(&tavla(&["tempmap", closed, "--ply", "0"]));
    assert!(grid.contains("cannot move"), "{grid}");
}

/// A position with a double waiting for its answer has no plays yet: `moves` and `perft`
/// refuse it as `hint` does; `perft` of a position with a roll says that it counts every roll.
#[test]
fn moves_and_perft_refuse_a_pending_double() {
    let pending = format!("XGID={S}:0:0:1:D:0:0:0:7:10");
    for args in [
        vec!["moves", &pending, "52"],
        vec!["perft", &pending, "1"],
        vec!["hint", &pending, "52"],
    ] {
        let o = tavla(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains("a double is waiting for its answer in this position"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let rolled = format!("XGID={S}:0:0:1:31:0:0:0:7:10");
    let o = tavla(&["perft", &rolled, "1"]);
    assert_eq!(stdout(&o), "perft 1 447\n");
    assert!(
        stderr(&o).contains("note: the roll 31 in the position is not used"),
        "{}",
        stderr(&o)
    );
}

/// `convert` writes one line on stdout and says on stderr what that line does not keep: a
/// money session's beavers (gnubg ID, FIBS board) and Jacoby rule (FIBS board), an XGID's
/// cube limit outside an XGID.
#[test]
fn convert_notes_what_the_target_notation_does_not_keep() {
    let rules = format!("XGID={S}:0:0:1:52:0:0:3:0:10");
    let o = tavla(&["convert", &rules, "--to", "fibs"]);
    assert_eq!(stdout(&o).lines().count(), 1);
    assert_eq!(
        stderr(&o),
        "note: beavers are not kept in a FIBS board\nnote: the Jacoby rule is not kept in a FIBS board\n"
    );
    let o = tavla(&["convert", &rules, "--to", "gnubg"]);
    assert_eq!(stderr(&o), "note: beavers are not kept in a gnubg ID\n");
    assert_eq!(stderr(&tavla(&["convert", &rules, "--to", "bpn"])), "");
    let cubeless = format!("XGID={S}:0:0:1:52:0:0:0:0:0");
    assert_eq!(stderr(&tavla(&["convert", &cubeless, "--to", "xgid"])), "");
    assert!(stderr(&tavla(&["convert", &cubeless, "--to", "bpn"]))
        .contains("note: the XGID is of a game without the cube (field 10 is 0)"));
    // Review (fifty-eighth round): `show` said nothing of what its gnubg and FIBS lines
    // drop.
    assert!(stdout(&tavla(&["show", &rules])).contains(
        "Note: beavers are not kept in a gnubg ID; beavers are not kept in a FIBS board; the \
         Jacoby rule is not kept in a FIBS board\n"
    ));
    // A FIBS money session's score, and a 9999-point match written as FIBS's unlimited one.
    let board = "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:\
                 0:25:0:0:0:0:2:0:0:0";
    let session = format!("board:You:someplayer:9999:5:7:{board}");
    let o = tavla(&["convert", &session, "--to", "gnubg"]);
    assert_eq!(
        stderr(&o),
        "note: the FIBS board has a money session's score, 5 and 7, not kept (shown as 0:0)\n"
    );
    // FIBS to FIBS keeps the players' names.
    assert!(stdout(&tavla(&["convert", &session, "--to", "fibs"]))
        .starts_with("board:You:someplayer:0:0:0:"));
    let long = format!("XGID={S}:1:1:1:31:12:5:0:9999:10");
    assert_eq!(
        stderr(&tavla(&["convert", &long, "--to", "fibs"])),
        "note: a FIBS board of a 9999-point match reads back as money play (FIBS writes an \
         unlimited match as 9999)\n"
    );
    // An XGID without its prefix and with a line after it, as gnubg writes one.
    let o = tavla(&[
        "convert",
        &format!("{S}:0:0:1:00:0:0:0:0\nScore is X:0 O:0"),
        "--to",
        "xgid",
    ]);
    assert_eq!(
        stdout(&o),
        format!("XGID={S}:0:0:1:00:0:0:0:0:10\n"),
        "{}",
        stderr(&o)
    );
}

/// Review (fifty-eighth round): `moves --json` and `--batch` wrote the results' XGIDs with XG's
/// usual cube limit, turning a game without the cube into one with it.
#[test]
fn moves_keep_the_xgids_cube_limit_in_the_results() {
    let cubeless = format!("XGID={S}:0:0:1:31:0:0:0:0:0");
    let json = stdout(&tavla(&["moves", &cubeless, "--json"]));
    let plays: serde_json::Value = serde_json::from_str(&json).unwrap();
    let plays = plays.as_array().unwrap();
    assert_eq!(plays.len(), 16);
    for p in plays {
        let xgid = p["result"]["xgid"].as_str().unwrap();
        assert!(xgid.ends_with(":0:0:-1:00:0:0:0:0:0"), "{xgid}");
    }
    let capped = "XGID=-B-CBBB---a---A---ABcbbbd-:1:-1:1:21:3:6:0:7:3";
    let line = stdout(&tavla_stdin(
        &["moves", "--batch", "-"],
        &format!("{capped}\n"),
    ));
    let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    let first = v["moves"][0]["result"]["xgid"].as_str().unwrap();
    assert!(first.ends_with(":1:-1:-1:00:3:6:0:7:3"), "{first}");
    // Other notations give XG's usual limit.
    let json = stdout(&tavla(&["moves", START, "31", "--json"]));
    assert!(json.contains(":0:0:-1:00:0:0:0:0:10\""), "{json}");
}
