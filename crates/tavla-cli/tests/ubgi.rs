//! `tavla ubgi` end to end: the binary driven through pipes, by a script and by
//! `tavla_protocol::UbgiPlayer`.

use std::io::Write;
use std::process::{Command, Stdio};

use tavla_core::{Dice, GameState, PlayList, Position, Resign, Roll};
use tavla_player::Player;
use tavla_protocol::UbgiPlayer;

const TAVLA: &str = env!("CARGO_BIN_EXE_tavla");

/// Runs `tavla ARGS` with `script` on stdin; its stdout, once it has exited successfully.
fn session(args: &[&str], script: &str) -> String {
    let mut child = Command::new(TAVLA)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_scripted_session_through_the_binary() {
    let out = session(
        &["ubgi", "--player", "random", "--seed", "3"],
        "ubgi\nisready\nset engine.info false\nposition gnubgid 4HPwATDgc/ABMA\ndice 3 1\ngo chequer\nnonsense\nquit\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "id name tavla random");
    assert!(lines.contains(&"ubgiok"));
    assert!(lines.contains(&"readyok"));
    let n = lines.len();
    assert!(lines[n - 2].starts_with("bestmove "), "{out}");
    assert_eq!(
        lines[n - 1],
        "error bad_command unknown command \"nonsense\""
    );
}

#[test]
fn the_neural_player_doubles_takes_and_passes_in_money_play() {
    // The opening position, then a sure single win for the side on roll (two checkers on its
    // 1-point against ten on the opponent's), each asked to double, then each doubled.
    let script = "ubgi\nisready\nset engine.info false\n\
        position gnubgid 4HPwATDgc/ABMA:cAkAAAAAAAAE\ngo cube\n\
        position gnubgid /wMAABgAAAAAAA:cAkAAAAAAAAE\ngo cube\n\
        position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10\ngo cube\n\
        position xgid XGID=-B----------------------j-:0:0:1:D:0:0:0:0:10\ngo cube\nquit\n";
    let out = session(&["ubgi", "--player", "neural:ply=1,no-bearoff"], script);
    let answers: Vec<&str> = out.lines().filter(|l| l.starts_with("bestcube")).collect();
    assert_eq!(
        answers,
        [
            "bestcube nodouble",
            "bestcube double",
            "bestcube take",
            "bestcube drop"
        ],
        "{out}"
    );
}

#[test]
fn an_unknown_player_is_a_usage_error() {
    let out = Command::new(TAVLA)
        .args(["ubgi", "--player", "grandmaster"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("grandmaster"));
}

#[test]
fn ubgi_player_drives_the_binary_through_a_game() {
    let mut engine = UbgiPlayer::spawn(&format!("{TAVLA} ubgi --player random --seed 11")).unwrap();
    assert_eq!(engine.name(), "ubgi:tavla random");
    engine.new_game();
    let mut state = GameState::money(Position::START);
    let mut plays = PlayList::new();
    let mut seed = 12345u32;
    let mut die = || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        ((seed >> 16) % 6) as u8 + 1
    };
    let mut turns = 0;
    while !state.position.is_game_over() {
        let roll = Roll::from_values(die(), die());
        state.dice = Dice::Rolled(roll);
        state.position.legal_plays(roll, &mut plays);
        let i = engine.choose_play(&state, roll, &plays);
        assert!(i < plays.len());
        state.position = plays.positions()[i].flip();
        state.turn = state.turn.other();
        turns += 1;
    }
    assert!(turns > 10);
    assert!(engine.take_failure().is_none());
}

#[test]
fn a_searching_player_lists_its_best_plays_evaluates_and_takes_its_depth() {
    let script = "ubgi\nset engine.info false\nget engine.ply\nset engine.multipv 3\n\
        position gnubgid 4HPwATDgc/ABMA\ndice 3 1\ngo chequer\ngo eval\n\
        position gnubgid 4HPwATDgc/ABMA\ngo cube\ndice 3 1\n\
        set engine.ply 3\nget engine.ply\ngo chequer\nset engine.ply 5\nquit\n";
    let out = session(&["ubgi", "--player", "neural"], script);
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("id ")).collect();
    assert!(lines.contains(&"key engine.ply int 1..4 1 root-inclusive decision depth (1: the plays valued as they stand; gnubg's ply + 1)"), "{out}");
    assert!(lines.contains(&"value engine.ply 1") && lines.contains(&"value engine.ply 3"));
    // Each `go chequer`: three plays best first, the first the one played.
    let pv = |line: &str| line.split(" pv ").nth(1).unwrap().to_string();
    let answers: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("bestmove "))
        .collect();
    assert_eq!(answers.len(), 2, "{out}");
    for (&i, ply) in answers.iter().zip(["1", "3"]) {
        let listed = &lines[i - 3..i];
        for (k, line) in listed.iter().enumerate() {
            assert!(
                line.starts_with(&format!("info multipv {} score ", k + 1)),
                "{out}"
            );
        }
        let scores: Vec<f64> = listed
            .iter()
            .map(|l| value_of(l, "score").parse().unwrap())
            .collect();
        assert!(scores[0] >= scores[1] && scores[1] >= scores[2], "{out}");
        assert_eq!(value_of(listed[0], "ply"), ply);
        assert_eq!(format!("bestmove {}", pv(listed[0])), lines[i]);
    }
    // `go eval` gives `tavla eval`'s numbers for the side on roll, before the roll.
    let eval = lines
        .iter()
        .find(|l| l.starts_with("besteval "))
        .expect("besteval");
    let v = json(&["eval", "4HPwATDgc/ABMA", "--json"]);
    for (key, field) in [
        ("equity", "equity"),
        ("win", "win"),
        ("wg", "win_gammon"),
        ("lbg", "lose_backgammon"),
    ] {
        let ours: f64 = value_of(eval, key).parse().unwrap();
        assert!(
            (ours - v[field].as_f64().unwrap()).abs() < 6e-5,
            "{key}: {eval} against {v}"
        );
    }
    // With the cube in play, its equities too, as `tavla eval` gives them.
    for (key, field) in [
        ("nodouble", "no_double"),
        ("doubletake", "double_take"),
        ("doublepass", "double_pass"),
    ] {
        let ours: f64 = value_of(eval, key).parse().unwrap();
        assert!(
            (ours - v["cube"][field].as_f64().unwrap()).abs() < 6e-5,
            "{key}: {eval} against {v}"
        );
    }
    // Listing plays, the engine gives the cube equities before `bestcube` as well.
    let cube = lines
        .iter()
        .position(|l| l.starts_with("bestcube "))
        .unwrap();
    assert_eq!(lines[cube], "bestcube nodouble");
    assert_eq!(
        lines[cube - 1],
        format!("info {}", &eval[eval.find("nodouble").unwrap()..])
    );
    assert_eq!(
        lines.last(),
        Some(&"error bad_value engine.ply must be 1..4, not \"5\"")
    );
    // A player that does not search has neither key, and does not evaluate.
    let out = session(
        &["ubgi", "--player", "random"],
        "set engine.ply 2\nposition gnubgid 4HPwATDgc/ABMA\ngo eval\nquit\n",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "error unsupported unknown key \"engine.ply\"",
            "error unsupported go eval: this player does not evaluate positions"
        ]
    );
}

/// The value after `key` in a line of `key value` pairs.
fn value_of(line: &str, key: &str) -> String {
    let mut w = line.split(' ');
    w.by_ref().find(|&x| x == key);
    w.next()
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        .to_string()
}

/// `tavla ARGS --json`'s answer.
fn json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(TAVLA).args(args).output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn rollouts_over_ubgi_are_the_rollout_commands() {
    // `go rollout` without dice rolls the position out as `tavla rollout` does (the same
    // games, so the same numbers); with dice, the best `engine.multipv` plays on the same
    // dice, best by the rollouts first, as `tavla rollout POSITION DICE --top K` does (which
    // picks its candidates at 2-ply, as the player does here at `engine.ply` 3).
    let out = session(
        &["ubgi"],
        "set engine.threads 2\nset engine.ply 3\nposition gnubgid 4HPwATDgc/ABMA\n\
         go rollout trials 36 seed 5\nset engine.multipv 3\ndice 3 1\ngo rollout trials 36 seed 5\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    let best = lines
        .iter()
        .find(|l| l.starts_with("bestrollout "))
        .expect("bestrollout");
    let v = json(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "--games",
        "36",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(value_of(best, "games"), "36");
    for (key, field) in [
        ("equity", "equity"),
        ("win", "win"),
        ("wg", "win_gammon"),
        ("lg", "lose_gammon"),
        ("lbg", "lose_backgammon"),
    ] {
        let ours: f64 = value_of(best, key).parse().unwrap();
        assert!(
            (ours - v[field].as_f64().unwrap()).abs() < 6e-5,
            "{key}: {best} against {v}"
        );
    }
    let ci: f64 = value_of(best, "ci").parse().unwrap();
    // Student's t at 35 degrees of freedom, as `tavla rollout` gives it.
    assert!(
        (ci - v["equity_ci95"].as_f64().unwrap()).abs() < 6e-5,
        "{best} against {v}"
    );

    // The answer's lines (with `diff`), not the running estimates written on the way.
    let listed: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("info multipv ") && l.contains(" diff "))
        .collect();
    assert_eq!(listed.len(), 3, "{out}");
    for line in lines.iter().filter(|l| l.starts_with("info multipv ")) {
        assert!(line.contains(" score ") && line.contains(" ci "), "{line}");
    }
    let v = json(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "31",
        "--top",
        "3",
        "--games",
        "36",
        "--seed",
        "5",
        "--json",
    ]);
    let plays = v["plays"].as_array().unwrap();
    for (k, line) in listed.iter().enumerate() {
        assert_eq!(value_of(line, "multipv"), (k + 1).to_string());
        assert_eq!(value_of(line, "games"), "36");
        let pv = line.split(" pv ").nth(1).unwrap();
        let theirs = plays
            .iter()
            .find(|p| p["play"] == pv)
            .unwrap_or_else(|| panic!("{pv} is not among {v}"));
        for (key, field) in [("score", "equity"), ("diff", "difference")] {
            let ours: f64 = value_of(line, key).parse().unwrap();
            assert!(
                (ours - theirs[field].as_f64().unwrap()).abs() < 6e-5,
                "{key}: {line} against {theirs}"
            );
        }
    }
    assert_eq!(value_of(listed[0], "diff"), "+0.0000");
    let bestmove = lines.last().unwrap();
    assert_eq!(
        *bestmove,
        format!("bestmove {}", listed[0].split(" pv ").nth(1).unwrap())
    );
}

#[test]
fn a_rollout_hears_stop_isready_and_its_time_limit() {
    // The script arrives at once: the rollout of a hundred million games hears `isready` (at
    // once) and `stop` while it runs and answers with the games it finished; the commands
    // after it wait for that answer. A time limit stops one too; with `quit` the session ends
    // after the commands before it, and the rollouts among them stop at once.
    let out = session(
        &["ubgi"],
        "position gnubgid 4HPwATDgc/ABMA\ngo rollout trials 100000000\nisready\nstop\n\
         set engine.info false\ngo eval\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "readyok", "{out}");
    let best = lines
        .iter()
        .position(|l| l.starts_with("bestrollout games "))
        .unwrap();
    let games: u64 = value_of(lines[best], "games").parse().unwrap();
    assert!(games < 100_000_000);
    assert!(lines[best + 1].starts_with("besteval "), "{out}");
    assert_eq!(lines.len(), best + 2, "{out}");

    let started = std::time::Instant::now();
    let out = session(
        &["ubgi"],
        "set engine.threads 1\nposition gnubgid 4HPwATDgc/ABMA\n\
         go rollout trials 100000000 movetime 1200\n",
    );
    assert!(started.elapsed().as_secs() < 60);
    let best = out.lines().last().unwrap();
    let games: u64 = value_of(best, "games").parse().unwrap();
    assert!((1..100_000_000).contains(&games), "{out}");
    // Progress once a second, with the running estimate once a game has finished (none
    // before).
    let progress: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info games "))
        .collect();
    assert!(!progress.is_empty(), "{out}");
    for line in progress {
        assert!(line.contains(" trials 100000000 "), "{line}");
        if line.starts_with("info games 0 ") {
            assert!(!line.contains(" equity "), "{line}");
        }
    }

    // Review (fifty-eighth round): `isready` behind other commands waiting for the rollout
    // was answered before them; it waits its turn.
    let out = session(
        &["ubgi"],
        "set engine.info false\nposition gnubgid 4HPwATDgc/ABMA\n\
         go rollout trials 100000000 movetime 1000\ngo eval\nisready\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("bestrollout games "), "{out}");
    assert!(lines[1].starts_with("besteval "), "{out}");
    assert_eq!(lines[2], "readyok", "{out}");

    // A time limit too far off to represent is no limit.
    let out = session(
        &["ubgi"],
        "set engine.info false\nposition gnubgid 4HPwATDgc/ABMA\n\
         go rollout trials 2 movetime 18446744073709551615\n",
    );
    assert!(out.starts_with("bestrollout games 2 "), "{out}");

    // `quit` stops the rollout (at once, or after the few games its threads had started by
    // then, which a slow build or a busy machine may give) and answers the one queued behind
    // it at once; nothing after `quit` is read.
    let out = session(
        &["ubgi"],
        "set engine.info false\nposition gnubgid 4HPwATDgc/ABMA\ngo rollout trials 100000000\n\
         go rollout trials 100000000\nquit\ngo eval\n",
    );
    let lines: Vec<_> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    for line in lines {
        let games: usize = line
            .strip_prefix("bestrollout games ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{out}"));
        assert!(games < 10_000, "{out}");
    }
    assert!(out.ends_with("bestrollout games 0\n"), "{out}");
}

#[test]
fn bad_rollout_requests_are_refused() {
    let out = session(
        &["ubgi"],
        "go rollout\nposition gnubgid 4HPwATDgc/ABMA\ngo rollout trials 0\ngo rollout depth 5\n\
         go rollout seed x\nquit\n",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "error bad_state missing position (send position gnubgid <id> or position xgid <xgid>)",
            "error bad_value go rollout: trials 0 is not 2 to 100000000",
            "error bad_value go rollout: depth 5 is not 1 to 4",
            "error bad_value go: \"x\" is not a whole number",
        ]
    );
    let out = session(
        &["ubgi", "--player", "random"],
        "position gnubgid 4HPwATDgc/ABMA\ngo rollout\ndice 3 1\ngo rollout\n",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "error unsupported go rollout: this player does not roll out",
            "error unsupported go rollout: this player does not rank plays",
        ]
    );
}

#[test]
fn beavers_and_resignations_over_ubgi() {
    // X, on roll, has all fifteen checkers on its 13-point, O eight and seven on its 1- and
    // 2-points: X loses a gammon whatever it rolls. Doubled by X where beavers are allowed
    // (the XGID's rule field 2), O beavers; without them it takes. X should resign a gammon;
    // O rejects a single and accepts a gammon. From the opening position nobody resigns, and
    // a single offered there is accepted.
    let lost = "XGID=-------------O---------gh-:0:0:1";
    let script = format!(
        "set engine.info false\nget game.beavers\n\
         position xgid {lost}:D:0:0:2:0:10\ngo cube\n\
         position xgid {lost}:D:0:0:0:0:10\ngo cube\n\
         position xgid {lost}:00:0:0:2:0:10\ngo resign\ngo accept single\ngo accept gammon\n\
         go accept 3\nposition gnubgid 4HPwATDgc/ABMA\ngo resign\ngo accept single\n\
         go accept double\nset game.beavers true\nget game.beavers\nquit\n"
    );
    let out = session(&["ubgi", "--player", "neural:ply=1"], &script);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "value game.beavers false",
            "bestcube beaver",
            "bestcube take",
            "bestresign gammon",
            "bestaccept reject",
            "bestaccept accept",
            "bestaccept accept",
            "bestresign no",
            "bestaccept accept",
            "error bad_value go: \"double\" is not single, gammon, backgammon, 1, 2 or 3",
            "value game.beavers true",
        ]
    );
    // The other side of the protocol: `UbgiPlayer` hears the beaver.
    let mut engine = UbgiPlayer::spawn(&format!("{TAVLA} ubgi --player neural:ply=1")).unwrap();
    let doubled = format!("{lost}:D:0:0:2:0:10")
        .parse::<tavla_notation::Xgid>()
        .unwrap()
        .state;
    // The side that answers, seen from its own side.
    let taker = GameState {
        position: doubled.position.flip(),
        turn: doubled.turn.other(),
        ..doubled
    };
    assert!(taker.beavers);
    assert!(engine.accepts_double(&taker));
    assert!(engine.beavers(&taker));
    // And is asked about resigning: X resigns a gammon, O rejects a single and accepts a
    // gammon; nobody resigns the opening position.
    let resigner = format!("{lost}:00:0:0:2:0:10")
        .parse::<tavla_notation::Xgid>()
        .unwrap()
        .state;
    assert_eq!(engine.resigns(&resigner, true), Some(Resign::Gammon));
    assert!(!engine.accepts_resignation(&resigner, true, Resign::Single));
    assert!(engine.accepts_resignation(&resigner, true, Resign::Gammon));
    let opening = tavla_notation::parse_position("4HPwATDgc/ABMA").unwrap();
    assert_eq!(engine.resigns(&opening, true), None);
    assert!(engine.take_failure().is_none());
    // An engine that does not know the extension answers `error`: it never resigns, accepts
    // only all the resigner can lose, is not asked again, and has not failed.
    let asked = std::env::temp_dir().join(format!("tavla-plain-engine-{}", std::process::id()));
    let plain = format!(
        "while read -r l; do case \"$l\" in ubgi) echo 'id name plain'; echo ubgiok;; \
         isready) echo readyok;; go*) echo \"$l\" >> '{}'; echo \"error bad_command $l\";; \
         quit) exit 0;; esac; done",
        asked.display()
    );
    let mut plain = UbgiPlayer::spawn(&plain).unwrap();
    for _ in 0..2 {
        assert_eq!(plain.resigns(&resigner, true), None);
        assert!(!plain.accepts_resignation(&resigner, true, Resign::Single));
        assert!(plain.accepts_resignation(&resigner, true, Resign::Backgammon));
    }
    assert_eq!(plain.failures(), 0);
    assert!(plain.take_failure().is_none());
    drop(plain);
    let lines = std::fs::read_to_string(&asked).unwrap();
    std::fs::remove_file(&asked).unwrap();
    assert_eq!(lines, "go resign\n", "asked once only");
}

/// The lines of a session that do not depend on timing: no `time_ms` lines, no progress
/// lines of a running rollout (those `info multipv` lines that carry no `diff`), and
/// `besteval` without its equity (a relay works it out again from the probabilities, written
/// to four decimals).
fn steady_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.contains("time_ms") && !l.starts_with("id name "))
        .filter(|l| {
            !(l.starts_with("info multipv ") && l.contains(" ci ") && !l.contains(" diff "))
        })
        .map(|l| match l.strip_prefix("besteval equity ") {
            Some(rest) => format!("besteval {}", rest.split_once(' ').unwrap().1),
            None => l.to_string(),
        })
        .collect()
}

#[test]
fn a_relayed_engine_answers_as_the_engine_itself() {
    // `tavla ubgi --player ubgi:COMMAND` relays every question to the engine behind it: its
    // depth, its best plays, its evaluations with the cube, its rollouts of a position and of
    // its best plays, each with the same answer as the engine asked directly.
    let script = "ubgi\nset engine.threads 1\nset engine.multipv 3\n\
        position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10\ngo chequer\ngo eval\n\
        set engine.ply 2\nget engine.ply\ngo chequer\n\
        position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10\ngo eval\n\
        set engine.ply 1\ngo rollout trials 36 seed 5\n\
        position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10\n\
        go rollout trials 36 seed 5\n";
    let direct = session(&["ubgi", "--player", "neural:ply=0"], script);
    let relay = format!("ubgi:{TAVLA} ubgi --player neural:ply=0");
    let relayed = session(&["ubgi", "--player", &relay], script);
    assert!(
        relayed.starts_with("id name tavla ubgi:tavla neural:ply=0\n"),
        "{relayed}"
    );
    assert_eq!(steady_lines(&relayed), steady_lines(&direct), "{relayed}");
    // Each kind of answer was given, not refused.
    for needle in [
        "info multipv 3 score",
        "value engine.ply 2",
        " ply 2 ",
        " nodouble ",
        "bestrollout games 36 ",
        " diff -",
    ] {
        assert!(relayed.contains(needle), "{needle}: {relayed}");
    }
    assert!(!relayed.contains("error"), "{relayed}");
    // The probabilities are the engine's; the equity is worked out from them again.
    let eq = |out: &str| -> f64 {
        let line = out.lines().find(|l| l.starts_with("besteval ")).unwrap();
        value_of(line, "equity").parse().unwrap()
    };
    assert!((eq(&relayed) - eq(&direct)).abs() <= 0.00015);
}

#[test]
fn a_relayed_rollout_is_stopped_through_the_relay() {
    // `stop` to the relay stops the engine behind it, which answers with the games it
    // finished; the relay answers with them.
    let relay = format!("ubgi:{TAVLA} ubgi --player neural:ply=0");
    let out = session(
        &["ubgi", "--player", &relay],
        "set engine.threads 1\nposition gnubgid 4HPwATDgc/ABMA\ngo rollout trials 100000000\n\
         isready\nstop\nset engine.info false\ngo eval\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "readyok", "{out}");
    let best = lines
        .iter()
        .position(|l| l.starts_with("bestrollout games "))
        .unwrap_or_else(|| panic!("{out}"));
    let games: u64 = value_of(lines[best], "games").parse().unwrap();
    assert!(games < 100_000_000, "{out}");
    assert!(lines[best + 1].starts_with("besteval "), "{out}");
}

#[test]
fn a_rollout_stops_when_its_controller_is_gone() {
    // The controller reads the first progress line and closes its end of the engine's
    // output, keeping the engine's input open: the next progress line cannot be written and
    // the engine stops the rollout of a hundred million games and exits.
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(TAVLA)
        .args(["ubgi", "--player", "neural:ply=0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(
            b"set engine.threads 1\nposition gnubgid 4HPwATDgc/ABMA\ngo rollout trials 100000000\n",
        )
        .unwrap();
    input.flush().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    assert!(line.starts_with("info games "), "{line}");
    drop(output);
    // Without the check it would roll on for hours; give it a minute to notice.
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed().as_secs() > 60 {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    drop(input);
    assert!(
        status.is_some(),
        "the engine rolled on with no one to read it"
    );
}

/// A match longer than tavla's match equity table reaches (a side more than 32-away) is
/// refused, not played as money; at 32-away it is played.
#[test]
fn a_match_beyond_the_table_is_refused() {
    let start = "-b----E-C---eE---c-e----B-";
    let out = session(
        &["ubgi"],
        &format!(
            "ubgi\nnewsession type match length 40\nposition xgid XGID={start}:0:0:1:52:0:0:0:40:10\n\
             go\nposition xgid XGID={start}:0:0:1:52:8:8:0:40:10\ngo\nquit\n"
        ),
    );
    assert!(
        out.contains(
            "error bad_state the score 0-0 of a 40-point match is beyond tavla's match equity \
             table (32-away at most)"
        ),
        "{out}"
    );
    assert!(out.contains("bestmove "), "{out}");
}
