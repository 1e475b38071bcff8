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
    assert!(out.contains("Illegal: 24/1"), "{out}");
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
