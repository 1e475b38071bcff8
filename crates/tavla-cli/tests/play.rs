//! `tavla play` as a program: moves from stdin, the game on stdout.

mod common;

fn play(args: &[&str], input: &str) -> (i32, String, String) {
    let mut argv = vec!["play"];
    argv.extend_from_slice(args);
    let out = common::tavla_stdin(&argv, input);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_seeded_game_shows_the_board_answers_bad_input_and_ends_at_eof() {
    let input = "24/1\nfoo\nhint\n";
    let (code, out, err) = play(&["--engine", "random", "--seed", "7"], input);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Dice seed: 7 (replay with --seed 7)"), "{out}");
    assert!(out.contains("Opening roll:"), "{out}");
    assert!(out.contains("pips"), "{out}");
    assert!(out.contains("Your move ("), "{out}");
    assert!(
        out.contains(
            "Illegal: 24/1 is not a legal play for 51: 24/1 moves 23 pips, which the dice 5 \
             and 1 cannot make."
        ),
        "{out}"
    );
    assert!(out.contains("Cannot read `foo`"), "{out}");
    assert!(out.contains("  1. "), "{out}");
    assert!(out.ends_with("End of input: game abandoned.\n"), "{out}");
    // The same seed gives the same game.
    let (_, again, _) = play(&["--engine", "random", "--seed", "7"], input);
    assert_eq!(out, again);
}

#[test]
fn quit_exits_cleanly_and_bad_engines_are_refused() {
    let (code, out, err) = play(
        &["--engine", "random", "--seed", "1", "--side", "o"],
        "quit\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("you are O"), "{out}");
    assert!(out.contains("Game abandoned."), "{out}");
    let (code, _, err) = play(&["--engine", "nonsense"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("invalid player `nonsense`"), "{err}");
}

#[test]
fn analyse_prints_the_engines_view_of_the_game_played() {
    // Seed 3: the engine opens with 41 (24/23 13/9), and the person answers 41 with 8/4 8/7,
    // which leaves three blots where hitting two (6/2*/1*) is best.
    let (code, out, err) = play(
        &["--engine", "neural:ply=0", "--seed", "3", "--analyse"],
        "8/4 8/7\n",
    );
    assert_eq!(code, 0, "{err}");
    let analysis = out
        .split("The engine's analysis of this game at 2-ply:")
        .nth(1)
        .unwrap_or_else(|| panic!("no analysis: {out}"));
    assert!(analysis.contains("41: 8/7 8/4"), "{analysis}");
    assert!(analysis.contains("??"), "a blunder: {analysis}");
    assert!(analysis.contains("best: 6/2*/1*"), "{analysis}");
    assert!(
        analysis.contains("error rate (mEMG per move)"),
        "{analysis}"
    );
    // Without --analyse, none.
    let (_, out, _) = play(&["--engine", "neural:ply=0", "--seed", "3"], "8/4 8/7\n");
    assert!(!out.contains("analysis"), "{out}");
}

#[test]
fn moves_may_be_typed_as_landing_marks() {
    // Seed 3: the engine opens with 41; the person's 41 typed as where its checkers landed.
    let (code, out, err) = play(
        &["--engine", "neural:ply=0", "--seed", "3"],
        "@3 @1\n4@2 1@1\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Illegal: no legal play of 41 lands as @3 @1."),
        "{out}"
    );
    // 6/2*/1* was played: the engine's next roll starts from the bar.
    assert!(out.contains("Your move (51)"), "{out}");
    assert!(out.contains("plays bar/"), "{out}");
}

#[test]
fn a_game_plays_on_from_a_position_and_is_saved_as_sgf() {
    // A bearoff with the cube at 2 on the person's side, the person (X) on roll with 6-5.
    let position = "XGID=-BBBBAA--------------bbbb-:1:1:1:65:0:0:0:0:10";
    let dir = common::temp_dir("play-position");
    let sgf = dir.join("game.sgf");
    let sgf = sgf.to_str().unwrap();
    let (code, out, err) = play(
        &[
            "--engine",
            "random",
            "--seed",
            "5",
            "--position",
            position,
            "--save",
            sgf,
        ],
        "6/off 5/off\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("From {position}: you are on roll with 65.")),
        "{out}"
    );
    assert!(!out.contains("Opening roll"), "{out}");
    assert!(out.contains(position), "the board's XGID: {out}");
    // The record holds the set-up and the play, and reads back.
    let text = std::fs::read_to_string(sgf).unwrap();
    assert!(
        text.contains("AE[a:y]") && text.contains("DI[65]") && text.contains("CV[2]"),
        "{text}"
    );
    let record = common::tavla(&["record", sgf, "--to", "sgf"]);
    assert!(
        record.status.success(),
        "{}",
        String::from_utf8_lossy(&record.stderr)
    );

    // Refused, each before any game: a .mat file, which cannot hold a set-up; a double
    // waiting for its answer; a game already over; a position that cannot be read.
    let mat = dir.join("game.mat");
    for (args, needle) in [
        (
            vec!["--position", position, "--save", mat.to_str().unwrap()],
            "name the file .sgf",
        ),
        (
            vec![
                "--position",
                "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:3:4:1:5:10",
            ],
            "no doubling in the Crawford game",
        ),
        (
            vec![
                "--position",
                "XGID=-------------------b------:0:0:1:00:0:0:0:0:10",
            ],
            "the game is over",
        ),
        (
            vec!["--position", "nonsense"],
            "--position: invalid position",
        ),
        (
            vec!["--position", position, "--match", "5"],
            "cannot be used with",
        ),
        (
            vec![
                "--position",
                "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:0:5:10",
                "--cube",
                "--jacoby",
            ],
            "are for money play",
        ),
    ] {
        let (code, out, err) = play(&args, "");
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!out.contains("Your move"), "{out}");
    }
    assert!(!mat.exists());

    // A double waiting for its answer: the person (O) answers it, here with a pass.
    let doubled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10";
    let sgf = dir.join("doubled.sgf");
    let sgf = sgf.to_str().unwrap();
    let (code, out, err) = play(
        &[
            "--engine",
            "random",
            "--position",
            doubled,
            "--save",
            sgf,
            "--analyse",
        ],
        "pass\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("you are O against random"),
        "the side to answer: {out}"
    );
    assert!(out.contains(": random is on roll, doubling to 2."), "{out}");
    // A game of cube actions alone is analysed too.
    assert!(out.contains("The engine's analysis of this game"), "{out}");
    assert!(
        out.contains("Take or pass? Game over: random wins (X) 1 point"),
        "{out}"
    );
    // The take prompt's board carries the XGID with the double offered.
    assert!(out.contains(doubled), "{out}");
    let text = std::fs::read_to_string(sgf).unwrap();
    assert!(text.contains(";B[double]\n;W[drop]"), "{text}");

    // The person plays the side on roll, unless --side says otherwise.
    let o_on_roll = "XGID=-BBBBAA--------------bbbb-:0:0:-1:00:0:0:0:0:10";
    let (_, out, _) = play(&["--engine", "random", "--position", o_on_roll], "");
    assert!(
        out.contains("you are O") && out.contains(": you are on roll"),
        "{out}"
    );
    let (_, out, _) = play(
        &["--engine", "random", "--position", o_on_roll, "--side", "x"],
        "",
    );
    assert!(
        out.contains("you are X") && out.contains(": random is on roll"),
        "{out}"
    );
}

#[test]
fn a_save_path_that_cannot_be_written_is_refused_before_the_game() {
    let (code, out, err) = play(&["--save", "/nonexistent-tavla-dir/g.mat"], "quit\n");
    assert_eq!(code, 2);
    assert!(
        err.contains("there is no folder /nonexistent-tavla-dir"),
        "{err}"
    );
    // Refused before the board is drawn: nothing was played.
    assert!(out.is_empty(), "{out}");
    // A path whose folder is there but where no file can be made (here /proc, where nothing
    // can be made) is refused too, before the game.
    if std::path::Path::new("/proc/self").exists() {
        let (code, out, err) = play(&["--save", "/proc/tavla-game.mat"], "quit\n");
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("--save /proc/tavla-game.mat: cannot write it"),
            "{err}"
        );
        assert!(out.is_empty(), "{out}");
    }
}

#[test]
fn a_line_that_is_not_utf8_is_refused_and_the_game_goes_on_and_is_saved() {
    let dir = std::env::temp_dir().join(format!("tavla-play-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = dir.join("g.mat");
    let mut argv = vec!["play", "--engine", "random", "--seed", "3", "--save"];
    argv.push(save.to_str().unwrap());
    let input: &[u8] = b"8/4 6/5\n\xff\n";
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tavla"))
        .args(&argv)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(input)?;
            child.wait_with_output()
        })
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("Cannot read `\u{fffd}` as a move"), "{out}");
    assert!(out.contains("Game saved to"), "{out}");
    assert!(std::fs::read_to_string(&save).unwrap().contains("Game 1"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cube_words_typed_at_the_move_prompt_say_why_they_do_not_apply() {
    let (code, out, err) = play(&["--seed", "1"], "double\ntake\nroll\naccept\n");
    assert_eq!(code, 0, "{err}");
    for said in [
        "There is no cube in this game (play with --cube for one); type your move for 43",
        "No double is offered; type your move for 43",
        "You have rolled 43 already; type your move for 43",
        "No resignation is offered; type your move for 43",
    ] {
        assert!(out.contains(said), "{said}: {out}");
    }
    let (_, out, _) = play(&["--seed", "1", "--cube"], "double\n");
    assert!(
        out.contains("You have rolled 43: a double comes before the roll"),
        "{out}"
    );
    // Where no double could have been offered, the reason is given.
    for (position, said) in [
        (
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:0:1:3:10",
            "No double in the Crawford game;",
        ),
        (
            "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:0:0:0:0:10",
            "The engine owns the cube: only it may double;",
        ),
    ] {
        let (_, out, _) = play(
            &[
                "--seed",
                "1",
                "--cube",
                "--engine",
                "random",
                "--position",
                position,
            ],
            "double\n",
        );
        assert!(out.contains(said), "{said}: {out}");
    }
}

#[test]
fn an_xgids_cube_limit_is_kept() {
    // Field 10 at 0: a game without the cube; a cube above the limit is refused.
    let start = "XGID=-b----E-C---eE---c-e----B-";
    let (code, _, err) = play(
        &[
            "--engine",
            "random",
            "--position",
            &format!("{start}:1:1:1:00:0:0:0:0:0"),
        ],
        "quit\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the cube at 2 is above the XGID's limit of 1 (field 10, 0: cubeless)"),
        "{err}"
    );
    let cubeless = format!("{start}:0:0:1:00:0:0:0:0:0");
    let (code, out, err) = play(
        &["--engine", "random", "--seed", "1", "--position", &cubeless],
        "double\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(a cubeless money game)"), "{out}");
    assert!(out.contains("There is no cube in this game"), "{out}");
    let (code, _, err) = play(
        &["--engine", "random", "--cube", "--position", &cubeless],
        "quit\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the XGID is of a game without the cube"),
        "{err}"
    );
    // Review (fifty-eighth round): the limit held only when the game started. At a cube of 4
    // with a limit of 4 (field 10 is 2) no redouble is offered, and the XGIDs drawn keep the
    // limit.
    let (code, out, err) = play(
        &[
            "--engine",
            "random",
            "--seed",
            "3",
            "--position",
            &format!("{start}:2:1:1:00:0:0:0:0:2"),
        ],
        "double\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("redouble` to redouble"), "{out}");
    assert!(
        out.contains("The cube is at the position's limit of 4 (its XGID's field 10)"),
        "{out}"
    );
    assert!(
        out.contains(&format!("From {start}:2:1:1:00:0:0:0:0:2:")),
        "{out}"
    );
    // A beaver past the limit (1024 here) is not offered.
    let (code, out, err) = play(
        &[
            "--engine",
            "random",
            "--position",
            &format!("{start}:9:-1:-1:D:0:0:2:0:10"),
        ],
        "beaver\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Take or pass? "), "{out}");
    assert!(!out.contains("beaver?"), "{out}");
}

/// In a short bearoff the terminal's cube hint is the exact one of the cubeful bearoff
/// database, and says so; elsewhere it names its depth.
#[test]
fn the_cube_hint_of_a_short_bearoff_is_exact_and_says_so() {
    let short = "XGID=---BBAA------------b--a-a-:1:1:1:00:0:0:0:0:10";
    let (code, out, err) = play(&["--cube", "--seed", "5", "--position", short], "hint\n");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "The engine's cube analysis (exact: tavla's cubeful bearoff database, cubeful, \
             equity per unit of the cube for X):"
        ),
        "{out}"
    );
    assert!(
        out.contains("proper cube action: No redouble, take"),
        "{out}"
    );
    // The person owns the cube: a redouble, by either word.
    assert!(out.contains("`redouble` to redouble"), "{out}");
    // The plays of a roll, at the move prompt: exact too.
    let rolled = "XGID=---BBAA------------b--a-a-:1:1:1:51:0:0:0:0:10";
    let (code, out, err) = play(&["--cube", "--seed", "5", "--position", rolled], "hint\n");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "The engine's best plays (0-ply, cubeful equity, exact: tavla's cubeful bearoff \
             database):\n  1. 5/off 3/2"
        ),
        "{out}"
    );
    let contact = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:10";
    let (code, out, err) = play(&["--cube", "--seed", "5", "--position", contact], "hint\n");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("The engine's cube analysis (2-ply, cubeful"),
        "{out}"
    );
}
