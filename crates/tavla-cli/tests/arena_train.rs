//! End-to-end tests of `tavla arena` and `tavla train`.

use serde_json::Value;

mod common;
use common::{json, stderr, stdout, tavla, temp_dir};

const UNTRAINED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tavla-eval/data/heuristic/untrained.toml"
);

#[test]
fn arena_json_is_reproducible_across_threads() {
    let run = |threads: &str| {
        json(&tavla(&[
            "arena",
            "--a",
            "heuristic",
            "--b",
            "random",
            "--games",
            "200",
            "--seed",
            "5",
            "--threads",
            threads,
            "--json",
        ]))
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    for key in [
        "games",
        "ppg_a",
        "ci95",
        "wins_a",
        "wins_b",
        "gammons_a",
        "gammons_b",
        "backgammons_a",
        "backgammons_b",
        "plies_avg",
    ] {
        assert!(one.get(key).is_some(), "{key} missing: {one}");
    }
    assert_eq!(one["games"], 200);
    assert_eq!(
        one["wins_a"].as_u64().unwrap() + one["wins_b"].as_u64().unwrap(),
        200
    );
    // The heuristic beats the random player by far more than the interval.
    let ppg = one["ppg_a"].as_f64().unwrap();
    let ci = one["ci95"].as_f64().unwrap();
    assert!(ppg - ci > 1.0, "{one}");
}

#[test]
fn arena_table_names_players_and_interval() {
    let out = stdout(&tavla(&[
        "arena",
        "--a",
        &format!("heuristic:{UNTRAINED}"),
        "--b",
        "heuristic",
        "--games",
        "40",
        "--variant",
        "no-quad-doubles",
    ]));
    assert!(out.contains(&format!("A: heuristic:{UNTRAINED}")), "{out}");
    assert!(out.contains("B: heuristic\n"), "{out}");
    assert!(
        out.contains(
            "40 games (20 duplicate pairs), cubeless money games, no-quad-doubles, seed 1"
        ),
        "{out}"
    );
    assert!(out.contains("A's points per game: "), "{out}");
    assert!(out.contains("(95% CI)"), "{out}");
}

#[test]
fn arena_plays_with_the_cube_and_matches() {
    // Money games with the cube: the neural players double, take and pass; identical
    // players break even pair by pair.
    let r = json(&tavla(&[
        "arena", "--a", "neural", "--b", "neural", "--games", "20", "--cube", "--json",
    ]));
    assert_eq!(r["stakes"], "cube");
    assert_eq!(r["points_a"], 0);
    assert_eq!(r["games"], 20);
    // Matches: A searches its cube decisions one ply deep, B decides at the root.
    let o = tavla(&[
        "arena",
        "--a",
        "neural:cube-ply=1",
        "--b",
        "neural",
        "--games",
        "4",
        "--match",
        "3",
        "--seed",
        "2",
    ]);
    let out = stdout(&o);
    assert!(out.contains("A: neural:ply=0,cube-ply=1"), "{out}");
    assert!(
        out.contains("4 3-point matches (2 duplicate pairs), standard, seed 2"),
        "{out}"
    );
    assert!(out.contains("A's match winning rate: "), "{out}");
    assert!(!out.contains("luck-adjusted"), "{out}");
    // With --luck, the luck-adjusted rate too (each roll valued in match winning chances).
    let o = tavla(&[
        "arena",
        "--a",
        "neural:cube-ply=1",
        "--b",
        "neural",
        "--games",
        "4",
        "--match",
        "3",
        "--seed",
        "2",
        "--luck",
    ]);
    let out = stdout(&o);
    assert!(
        out.contains("A's luck-adjusted match winning rate: "),
        "{out}"
    );
    let r = json(&tavla(&[
        "arena", "--a", "neural", "--b", "random", "--games", "4", "--match", "3", "--json",
    ]));
    assert_eq!(r["stakes"]["match"], 3);
    assert_eq!(r["wins_a"], 4);
    // Recorded: money games with their doubles in one session, matches one file each.
    let dir = temp_dir("cube-records");
    let session = dir.join("cube.mat");
    let matches = dir.join("matches");
    for args in [
        vec![
            "--cube",
            "--games",
            "10",
            "--mat",
            session.to_str().unwrap(),
        ],
        vec![
            "--match",
            "3",
            "--games",
            "4",
            "--mat",
            matches.to_str().unwrap(),
        ],
    ] {
        let mut all = vec![
            "arena",
            "--a",
            "neural",
            "--b",
            "neural:cube-ply=1",
            "--seed",
            "3",
        ];
        all.extend(args);
        stdout(&tavla(&all));
    }
    let text = std::fs::read_to_string(&session).unwrap();
    assert!(text.contains("Doubles => 2"), "{text}");
    let record = tavla_notation::mat::MatchRecord::parse(&text).unwrap();
    assert_eq!(record.games.len(), 10);
    // Names as gnubg's reader can take them: no colon.
    assert_eq!(record.players, ["neural-ply=0", "neural-ply=0,cube-ply=1"]);
    let mut files: Vec<_> = std::fs::read_dir(&matches)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "match-00001.mat",
            "match-00002.mat",
            "match-00003.mat",
            "match-00004.mat"
        ]
    );
    for f in files {
        let text = std::fs::read_to_string(matches.join(&f)).unwrap();
        let record = tavla_notation::mat::MatchRecord::parse(&text).unwrap();
        assert_eq!(record.length, 3, "{f}");
        assert!(!record.games.is_empty(), "{f}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn arena_refuses_bad_input_with_exit_code_2() {
    for (args, want) in [
        (
            vec!["--a", "heuristc", "--b", "random", "--games", "2"],
            "invalid player `heuristc`: expected random, heuristic[:FILE]",
        ),
        (
            vec!["--a", "random", "--b", "random", "--games", "3"],
            "invalid --games 3: must be even",
        ),
        (
            vec![
                "--a", "random", "--b", "random", "--games", "2", "--match", "0",
            ],
            "invalid --match 0: a match is of 1 point or more",
        ),
        (
            vec![
                "--a", "random", "--b", "random", "--games", "2", "--match", "33",
            ],
            "invalid --match 33: at most 32 points",
        ),
        (
            vec![
                "--a", "random", "--b", "random", "--games", "2", "--cube", "--match", "3",
            ],
            "cannot be used with",
        ),
        // Review: --beavers was refused without --cube, but taken (and ignored) in a match.
        (
            vec![
                "--a",
                "random",
                "--b",
                "random",
                "--games",
                "2",
                "--match",
                "3",
                "--beavers",
            ],
            "--beavers: beavers are a money-game rule, not played in a match (--match)",
        ),
        (
            vec![
                "--a",
                "heuristic:/no/such.toml",
                "--b",
                "random",
                "--games",
                "2",
            ],
            "cannot read heuristic config /no/such.toml",
        ),
    ] {
        let mut all = vec!["arena"];
        all.extend(args);
        let o = tavla(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(stderr(&o).contains(want), "{all:?}: {}", stderr(&o));
    }
}

#[test]
fn arena_records_go_where_they_cannot_mix_with_others() {
    let dir = temp_dir("arena-mat");
    let matches = dir.join("matches");
    let matches_s = matches.to_str().unwrap();
    let arena = |games: &str, mat: &str, more: &[&str]| {
        let mut args = vec![
            "arena", "--a", "random", "--b", "random", "--games", games, "--mat", mat,
        ];
        args.extend_from_slice(more);
        tavla(&args)
    };
    stdout(&arena("4", matches_s, &["--match", "1"]));
    // Review: a second, shorter run wrote over the first two files and left the others.
    let o = arena("2", matches_s, &["--match", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "tavla: --mat {matches_s}: the folder already holds 4 match records \
             (match-00001.mat, ...); give an empty folder or remove them, so that the records \
             there are of one run\n"
        )
    );
    assert_eq!(std::fs::read_dir(&matches).unwrap().count(), 4);
    // Other files do not count; a folder without records is written into.
    let other = dir.join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "").unwrap();
    stdout(&arena("2", other.to_str().unwrap(), &["--match", "1"]));
    assert!(other.join("match-00002.mat").exists());
    // Review: a "folder" that is a file was said not to exist (money games), or refused with
    // the system's "File exists" (matches).
    let file = dir.join("other/notes.txt");
    let file_s = file.to_str().unwrap();
    let o = arena("2", &format!("{file_s}/g.mat"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!("tavla: --mat {file_s}/g.mat: {file_s} is a file, not a folder\n")
    );
    let o = arena("2", file_s, &["--match", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("--mat {file_s}: that is a file; with --match")),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn arena_plays_an_external_engine_over_ubgi() {
    // tavla itself as the external engine, deciding with the same heuristic: with duplicate
    // dice every pair then splits exactly, which shows the protocol round trip loses nothing.
    let engine = format!(
        "ubgi:{} ubgi --player heuristic",
        env!("CARGO_BIN_EXE_tavla")
    );
    let r = json(&tavla(&[
        "arena",
        "--a",
        &engine,
        "--b",
        "heuristic",
        "--games",
        "20",
        "--threads",
        "2",
        "--json",
    ]));
    assert_eq!(r["ppg_a"], 0.0, "{r}");
    assert_eq!(r["wins_a"], r["wins_b"], "{r}");

    let o = tavla(&[
        "arena",
        "--a",
        "ubgi:exit 3",
        "--b",
        "random",
        "--games",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot create player A"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn train_writes_config_and_checkpoint_and_resumes() {
    let dir = temp_dir("train");
    let out = dir.join("trained.toml");
    let out_s = out.to_str().unwrap();
    let args = |steps: &'static str| {
        vec![
            "train",
            "heuristic",
            "--out",
            out_s,
            "--steps",
            steps,
            "--games",
            "40",
            "--seed",
            "9",
            "--threads",
            "2",
        ]
    };
    let first = stdout(&tavla(&args("3")));
    assert_eq!(first.matches("step ").count(), 3, "{first}");
    assert!(first.contains("step 0: bt 0 -> 1"), "{first}");
    let checkpoint = dir.join("trained.checkpoint.json");
    let cp: Value = serde_json::from_str(&std::fs::read_to_string(&checkpoint).unwrap()).unwrap();
    assert_eq!(cp["history"].as_array().unwrap().len(), 3);
    // The configuration written is the checkpoint's current one.
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.contains(&format!("bt = {}", cp["config"]["bt"])),
        "{written}"
    );

    // The grid of bt from 0 has three values: the third step decides.
    assert!(first.contains("; bt "), "{first}");

    let second = stdout(&tavla(&args("5")));
    assert!(second.starts_with("resuming"), "{second}");
    assert!(second.contains("at step 3"), "{second}");
    assert!(second.contains("step 4: bf "), "{second}");
    assert!(!second.contains("step 2: "), "{second}");

    // Other settings do not resume silently.
    let mut other = args("6");
    other[9] = "10";
    let o = tavla(&other);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("was made with seed = 9, not 10"),
        "{}",
        stderr(&o)
    );
    // Nor from another start (review item 12: --start was ignored on resuming).
    let mut other = args("6");
    other.extend(["--start", UNTRAINED]);
    let o = tavla(&other);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("was made with start = bf 1, not bf 0"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn label_resumes_to_the_same_data_and_fit_writes_weights() {
    let dir = temp_dir("label");
    let data = dir.join("d.txt");
    let data_s = data.to_str().unwrap();
    let args = |games: &'static str, seed: &'static str| {
        vec![
            "train",
            "label",
            "--out",
            data_s,
            "--games",
            games,
            "--ply",
            "1",
            "--seed",
            seed,
            "--chunk",
            "2",
            "--threads",
            "2",
            "--sample",
            "0.3",
        ]
    };
    // Four games in one sitting...
    let o = tavla(&args("4", "3"));
    assert!(o.status.success(), "{}", stderr(&o));
    let whole = std::fs::read_to_string(&data).unwrap();
    // ...equal two games, an interrupted chunk, then a resumed sitting.
    std::fs::remove_file(&data).unwrap();
    assert!(tavla(&args("2", "3")).status.success());
    let mut partial = std::fs::read_to_string(&data).unwrap();
    partial.push_str("4HPwATDgc/ABMA 0.5 0.1 0.0 0.1\n");
    std::fs::write(&data, partial).unwrap();
    let o = tavla(&args("4", "3"));
    assert!(stderr(&o).contains("resuming"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&data).unwrap(), whole);
    assert!(whole.contains("# games 4\n"), "{whole}");
    let positions = whole.lines().filter(|l| !l.starts_with('#')).count();
    assert!(positions > 10, "{positions} positions");

    // Other settings do not resume silently: the user's to mend, exit code 2 (review item 14).
    let o = tavla(&args("6", "4"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("was written with other settings"));
    // A folder as --out is named as such, before any game is played.
    let dir_s = dir.to_str().unwrap();
    let mut to_dir = args("2", "3");
    to_dir[3] = dir_s;
    let o = tavla(&to_dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("--out {dir_s}: that is a folder")),
        "{}",
        stderr(&o)
    );

    let weights = dir.join("w.tnn");
    let w_s = weights.to_str().unwrap();
    let fit_on = |data: &str| {
        stdout(&tavla(&[
            "train",
            "fit",
            "--data",
            data,
            "--out",
            w_s,
            "--epochs",
            "2",
            "--holdout",
            "4",
        ]))
    };
    let fit = fit_on(data_s);
    assert!(fit.contains("epoch 2"), "{fit}");
    assert!(fit.contains("best validation cross-entropy"), "{fit}");
    // The same data compressed with gzip (as in data/labels) fit the same, to the last digit.
    let packed = dir.join("d.txt.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&packed).unwrap(),
        flate2::Compression::best(),
    );
    std::io::Write::write_all(&mut gz, whole.as_bytes()).unwrap();
    gz.finish().unwrap();
    assert_eq!(fit_on(packed.to_str().unwrap()), fit);
    // The weights load and evaluate.
    let eval = stdout(&tavla(&["eval", "4HPwATDgc/ABMA", "--weights", w_s]));
    assert!(eval.contains("equity"), "{eval}");

    // A bad data line is named.
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        "4HPwATDgc/ABMA 0.5 0.1 0 0.1 0\nnot-an-id 1 0 0 0 0\n",
    )
    .unwrap();
    let o = tavla(&[
        "train",
        "fit",
        "--data",
        bad.to_str().unwrap(),
        "--out",
        w_s,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 2: field 1"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn label_by_truncated_rollouts_and_refuse_bad_options() {
    let dir = temp_dir("label-rollout");
    let data = dir.join("r.txt");
    let data_s = data.to_str().unwrap();
    let label = |out: &str, more: &[&str]| {
        let mut args = vec![
            "train",
            "label",
            "--out",
            out,
            "--games",
            "2",
            "--rollout-games",
            "2",
            "--truncate",
            "4",
            "--sample-siblings",
            "0.2",
            "--threads",
            "1",
        ];
        args.extend_from_slice(more);
        tavla(&args)
    };
    let o = label(data_s, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("labelled by rollouts of 2 games of 0-ply players truncated after 4 plays"),
        "{}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(&data).unwrap();
    let header = text.lines().next().unwrap();
    // The rollout players prune their choices, and the header says so.
    assert!(
        header.contains("sample-siblings 0.2 siblings 5 rollout-games 2 truncate 4 prune ")
            && header.ends_with(" keep 4"),
        "{header}"
    );
    assert!(text.lines().filter(|l| !l.starts_with('#')).count() > 10);
    // Unpruned players: the header of the files made before they pruned, the same positions.
    let unpruned = dir.join("u.txt");
    let o = label(unpruned.to_str().unwrap(), &["--no-prune"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text_u = std::fs::read_to_string(&unpruned).unwrap();
    let header_u = text_u.lines().next().unwrap();
    assert!(
        header_u.ends_with("sample-siblings 0.2 siblings 5 rollout-games 2 truncate 4"),
        "{header_u}"
    );
    // Balanced parity: recorded in the header, and other labels from the same games.
    let balanced = dir.join("b.txt");
    let o = label(balanced.to_str().unwrap(), &["--balance-parity"]);
    assert!(
        stderr(&o).contains("rollouts of 2 games of 0-ply players truncated after 4 or 5 plays"),
        "{}",
        stderr(&o)
    );
    let text_b = std::fs::read_to_string(&balanced).unwrap();
    assert!(text_b
        .lines()
        .next()
        .unwrap()
        .contains("truncate 4 balance-parity prune "));
    let positions = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(positions(&text_u), positions(&text), "the same positions");
    assert_eq!(positions(&text_b), positions(&text), "the same positions");
    assert_ne!(text_b.lines().nth(1), text.lines().nth(1), "other labels");
    // 1-ply rollout players: recorded with their pruning, the same positions, other labels.
    let deep = dir.join("p1.txt");
    let o = label(deep.to_str().unwrap(), &["--rollout-ply", "1"]);
    assert!(
        stderr(&o).contains("rollouts of 2 games of 1-ply players truncated after 4 plays"),
        "{}",
        stderr(&o)
    );
    let text_d = std::fs::read_to_string(&deep).unwrap();
    let header_d = text_d.lines().next().unwrap();
    assert!(
        header_d.contains("rollout-games 2 truncate 4 rollout-ply 1 prune "),
        "{header_d}"
    );
    assert_eq!(positions(&text_d), positions(&text), "the same positions");
    assert_ne!(
        text_d.lines().skip(1).collect::<Vec<_>>(),
        text.lines().skip(1).collect::<Vec<_>>(),
        "other labels"
    );
    // Fitting with pair steps over the siblings, picked by their held-out error.
    let weights = dir.join("w.tnn");
    let fit = |more: &[&str]| {
        let mut args = vec!["train", "fit", "--data", data_s, "--out"];
        args.push(weights.to_str().unwrap());
        args.extend_from_slice(more);
        tavla(&args)
    };
    let paired = stdout(&fit(&[
        "--epochs",
        "1",
        "--holdout",
        "4",
        "--rank-weight",
        "1",
    ]));
    assert!(
        paired.contains("pairs of sibling positions train"),
        "{paired}"
    );
    assert!(
        paired.contains("best validation sibling difference error"),
        "{paired}"
    );
    // The same pair steps with the weights picked by the cross-entropy, or the last epoch's.
    let by_loss = stdout(&fit(&[
        "--epochs",
        "1",
        "--holdout",
        "4",
        "--rank-weight",
        "1",
        "--select",
        "loss",
    ]));
    assert!(
        by_loss.contains("sibling difference error")
            && by_loss.contains("best validation cross-entropy"),
        "{by_loss}"
    );
    let last = stdout(&fit(&[
        "--epochs",
        "1",
        "--holdout",
        "4",
        "--select",
        "last",
    ]));
    assert!(
        last.contains("last epoch's validation cross-entropy"),
        "{last}"
    );
    let o = fit(&["--select", "pairs"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--select pairs needs --rank-weight"));
    let o = fit(&["--rank-weight=-1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--rank-weight must be 0 or positive"));
    // Calibration: the output biases only, without pair steps.
    let calibrated = stdout(&fit(&["--epochs", "1", "--output-bias-only"]));
    assert!(
        calibrated.contains("best validation cross-entropy"),
        "{calibrated}"
    );
    let o = fit(&["--output-bias-only", "--rank-weight", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // One phase alone: the other networks are written back as they were. The fitted one
    // starts fresh, with two hidden layers, so that it surely improves on its start (a fit
    // keeps the best weights it saw, and the trained default may already be the best on so
    // few samples); the others are the embedded default's.
    let o = fit(&[
        "--epochs",
        "1",
        "--phase",
        "contact",
        "--fresh",
        "--contact-hidden",
        "8",
        "--second-hidden",
        "3",
        "--seed",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("fitting the contact network alone"));
    let fitted = tavla_nn::Weights::load(&weights).unwrap();
    let start = tavla_nn::Weights::random_deep([(8, 3), (8, 3), (64, 0)], 3);
    let default = tavla_nn::Weights::default_weights();
    use tavla_nn::inputs::Phase;
    let contact = fitted.network(Phase::Contact);
    assert_eq!((contact.hidden(), contact.second()), (8, 3));
    assert_ne!(contact, start.network(Phase::Contact));
    assert_eq!(
        fitted.network(Phase::Crashed),
        default.network(Phase::Crashed)
    );
    assert_eq!(fitted.network(Phase::Race), default.network(Phase::Race));
    // A network can start as a copy of another phase's (here the fresh two-layer contact
    // network, for the crashed positions).
    let o = fit(&[
        "--epochs",
        "1",
        "--init",
        weights.to_str().unwrap(),
        "--phase",
        "crashed",
        "--copy-from",
        "contact",
        // The few crashed positions of the data: one in two held out.
        "--holdout",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("the crashed network starts as a copy of the contact network"),
        "{}",
        stdout(&o)
    );
    let copied = tavla_nn::Weights::load(&weights).unwrap();
    let crashed = copied.network(Phase::Crashed);
    assert_eq!((crashed.hidden(), crashed.second()), (8, 3));
    assert_eq!(
        copied.network(Phase::Contact),
        fitted.network(Phase::Contact)
    );
    // A second layer needs fresh weights, and has a limit.
    let o = fit(&["--second-hidden", "3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = fit(&["--fresh", "--phase", "race", "--second-hidden", "3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not --phase race"), "{}", stderr(&o));
    // The size of a network --phase leaves alone would be ignored, or change it: refused.
    let o = fit(&["--phase", "race", "--contact-hidden", "128"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--contact-hidden: with --phase race only the race network"),
        "{}",
        stderr(&o)
    );
    // --init is only used with --fresh for the networks --phase leaves alone.
    let o = fit(&["--fresh", "--init", weights.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("needs --phase"), "{}", stderr(&o));
    let o = fit(&["--fresh", "--second-hidden", "100000"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--second-hidden must be at most"),
        "{}",
        stderr(&o)
    );
    // An average of the weights is what is validated and written.
    let o = fit(&["--epochs", "1", "--average", "50"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("epoch 1 (alpha 0.01000, averaged)"),
        "{}",
        stdout(&o)
    );
    let o = fit(&["--phase", "endgame"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unknown phase \"endgame\""),
        "{}",
        stderr(&o)
    );
    for (args, message) in [
        (
            &["--truncate", "8"][..],
            "--truncate applies to rollout labels",
        ),
        (
            &["--balance-parity"][..],
            "--balance-parity applies to truncated rollouts",
        ),
        (&["--siblings", "0"][..], "--siblings must be positive"),
        (
            &["--sample-siblings", "1.5"][..],
            "--sample-siblings must be in 0..=1",
        ),
        (
            &["--sample-siblings", "1", "--disputed", "0"][..],
            "--disputed must be in 1..=3, got 0",
        ),
        (
            &["--disputed", "2"][..],
            "--disputed chooses which siblings are labelled: add --sample-siblings",
        ),
        (
            &["--rollout-ply", "1"][..],
            "--rollout-ply is the depth of the rollouts' players: add --rollout-games",
        ),
        (
            &["--rollout-games", "1", "--rollout-ply", "4"][..],
            "--rollout-ply must be in 0..=3, got 4",
        ),
        // Review (fifty-eighth round): unread at 0-ply, a missing file passed unseen.
        (&["--ply", "0", "--prune=/no/such.tnn"][..], "/no/such.tnn"),
    ] {
        let mut all = vec!["train", "label", "--out", data_s];
        all.extend_from_slice(args);
        let o = tavla(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(message), "{}", stderr(&o));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn average_weights_of_one_shape_and_refuse_others() {
    let dir = temp_dir("average");
    let data = dir.join("d.txt");
    std::fs::write(
        &data,
        "4HPwATDgc/ABMA 0.5 0.1 0 0.1 0\n4HPwATDgc/ABMA 0.52 0.12 0 0.1 0\n\
         4HPwATDgc/ABMA 0.48 0.1 0 0.12 0\n4HPwATDgc/ABMA 0.5 0.11 0 0.11 0\n",
    )
    .unwrap();
    let fresh = |name: &str, seed: &str| {
        let path = dir.join(name);
        stdout(&tavla(&[
            "train",
            "fit",
            "--data",
            data.to_str().unwrap(),
            "--out",
            path.to_str().unwrap(),
            "--fresh",
            "--contact-hidden",
            "8",
            "--race-hidden",
            "4",
            "--epochs",
            "1",
            "--holdout",
            "2",
            "--seed",
            seed,
        ]));
        path
    };
    let a = fresh("a.tnn", "1");
    let b = fresh("b.tnn", "2");
    let mean = dir.join("mean.tnn");
    let (a_s, b_s, mean_s) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        mean.to_str().unwrap(),
    );
    // The mean of a file with itself is the file.
    let said = stdout(&tavla(&["train", "average", a_s, a_s, "--out", mean_s]));
    assert!(said.contains("the mean of 2 weights files"), "{said}");
    assert_eq!(std::fs::read(&mean).unwrap(), std::fs::read(&a).unwrap());
    // The mean of two fits is a third network that loads and evaluates (the arithmetic is
    // `Weights::blend_towards`, tested in tavla-nn).
    stdout(&tavla(&["train", "average", a_s, b_s, "--out", mean_s]));
    let equity = |w: &str| -> f64 {
        let o = json(&tavla(&[
            "eval",
            "4HPwATDgc/ABMA",
            "--weights",
            w,
            "--json",
        ]));
        o["equity"].as_f64().expect("an equity")
    };
    let (ea, eb, em) = (equity(a_s), equity(b_s), equity(mean_s));
    assert!(em != ea && em != eb && ea != eb, "{ea} {eb} {em}");
    // Networks of other sizes are refused, naming the file.
    let default = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tavla-nn/weights/default.tnn"
    );
    let o = tavla(&["train", "average", a_s, default, "--out", mean_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("default.tnn: networks of 1024+64, 1024+64, 256 hidden units"),
        "{}",
        stderr(&o)
    );
    // One file is not an average.
    let o = tavla(&["train", "average", a_s, "--out", mean_s]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn arena_luck_adjusts_the_result_and_narrows_its_interval() {
    let args = [
        "arena",
        "--a",
        "neural",
        "--b",
        "heuristic",
        "--games",
        "200",
        "--seed",
        "1",
        "--luck",
        "--json",
    ];
    let v = json(&tavla(&args));
    let raw = v["ci95"].as_f64().unwrap();
    let adjusted = v["luck_adjusted_ci95"].as_f64().unwrap();
    let ppg = v["ppg_a"].as_f64().unwrap();
    let adjusted_ppg = v["luck_adjusted_ppg_a"].as_f64().unwrap();
    // The neural engine values the rolls well: much of the dice's noise goes. (Over 200
    // games the default weights narrow the interval 1.55 to 2.2 times on seeds 1 to 12; 40
    // games gave 1.2 to 2.6, too few for a bound.)
    assert!(adjusted < raw / 1.3, "{adjusted} {raw}");
    // The adjustment is the mean luck difference, which is most of the raw result's noise:
    // it lies within the raw half-width about 95% of the time, within twice it almost always.
    assert!(
        (adjusted_ppg - ppg).abs() < 2.0 * raw,
        "{adjusted_ppg} {ppg} {raw}"
    );
    // Without --luck the fields are null; the table prints the adjusted line with it.
    let v = json(&tavla(
        &args[..args.len() - 2]
            .iter()
            .chain(&["--json"])
            .copied()
            .collect::<Vec<_>>(),
    ));
    assert!(v["luck_adjusted_ppg_a"].is_null());
    let table = stdout(&tavla(&args[..args.len() - 1]));
    assert!(
        table.contains("A's luck-adjusted points per game: +"),
        "{table}"
    );
    // --luck-weights needs --luck, and must be a weights file.
    let o = tavla(&[
        "arena",
        "--a",
        "random",
        "--b",
        "random",
        "--games",
        "2",
        "--luck-weights",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = tavla(&[
        "arena",
        "--a",
        "random",
        "--b",
        "random",
        "--games",
        "2",
        "--luck",
        "--luck-weights",
        "/nonexistent.tnn",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--luck-weights: cannot access weights file /nonexistent.tnn"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn relabel_gives_the_labels_of_a_search_of_the_same_positions_and_resumes() {
    let dir = temp_dir("relabel");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (zero, one, again) = (path("zero.txt"), path("one.txt"), path("again.txt"));
    let label = |ply: &str, out: &str| {
        let o = tavla(&[
            "train",
            "label",
            "--out",
            out,
            "--games",
            "3",
            "--chunk",
            "2",
            "--seed",
            "5",
            "--sample",
            "0.3",
            "--ply",
            ply,
            "--no-prune",
            "--threads",
            "1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    };
    // The same games labelled at 0-ply and at 1-ply.
    label("0", &zero);
    label("1", &one);
    let relabel = |threads: &str| {
        tavla(&[
            "train",
            "relabel",
            "--data",
            &zero,
            "--out",
            &again,
            "--ply",
            "1",
            "--no-prune",
            "--threads",
            threads,
        ])
    };
    let o = relabel("2");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&again).unwrap();
    let body = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("# tavla"))
            .map(str::to_string)
            .collect()
    };
    // The 0-ply file's positions and chunk marks, with the 1-ply labels of `train label`.
    let one_text = std::fs::read_to_string(&one).unwrap();
    assert!(body(&one_text).len() > 20, "{one_text}");
    assert_eq!(body(&text), body(&one_text));
    assert!(text.starts_with("# tavla train relabel: ply 1 bearoff false weights "));
    // Cut in the middle of a line, it resumes to the same file.
    std::fs::write(&again, &text[..text.len() * 2 / 3]).unwrap();
    let o = relabel("1");
    assert!(stderr(&o).contains("resuming"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);
    // The data file named another way is the same data (checked line by line).
    std::fs::write(&again, &text[..text.len() / 2]).unwrap();
    let other_name = dir.join(".").join("zero.txt");
    let o = tavla(&[
        "train",
        "relabel",
        "--data",
        other_name.to_str().unwrap(),
        "--out",
        &again,
        "--ply",
        "1",
        "--no-prune",
    ]);
    assert!(stderr(&o).contains("resuming"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);
    // Stopped in its first batch, with only the header written (or a part of it), it resumes
    // from the first line and writes no second header (review item 1).
    let header = text.lines().next().unwrap();
    for kept in [format!("{header}\n"), header[..10].to_string()] {
        std::fs::write(&again, kept).unwrap();
        let o = relabel("1");
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&again).unwrap(), text);
    }
    // Other settings are refused, and so is a bad position, by its line.
    let o = tavla(&[
        "train", "relabel", "--data", &zero, "--out", &again, "--ply", "0",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("other settings"), "{}", stderr(&o));
    let bad = path("bad.txt");
    std::fs::write(
        &bad,
        "# x\n4HPwATDgc/ABMA 0.5 0.1 0 0.1 0\nnot-an-id 0.5 0.1 0 0.1 0\n",
    )
    .unwrap();
    let o = tavla(&["train", "relabel", "--data", &bad, "--out", &path("b.txt")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("line 3"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fit_refuses_what_it_cannot_fit_and_selects_without_held_out_pairs() {
    let dir = temp_dir("fit-checks");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let data = path("l.txt");
    let o = tavla(&[
        "train",
        "label",
        "--out",
        &data,
        "--games",
        "10",
        "--ply",
        "0",
        "--threads",
        "1",
        "--chunk",
        "5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fit = |out: &str, more: &[&str]| {
        let mut args = vec!["train", "fit", "--data", &data, "--out", out];
        args.extend_from_slice(more);
        tavla(&args)
    };
    let fresh = ["--fresh", "--contact-hidden", "8"];
    // Review item 6: pair steps, but no sibling pair held out. The error over no pairs is 0 and
    // was never beaten, so the untrained start was written; now the cross-entropy selects.
    let (trained, start) = (path("trained.tnn"), path("start.tnn"));
    let o = fit(
        &trained,
        &[&fresh[..], &["--epochs", "3", "--rank-weight", "1"]].concat(),
    );
    let said = stdout(&o);
    assert!(
        said.contains("pairs of sibling positions train, 0 validate"),
        "{said}"
    );
    assert!(
        said.contains("no pair is held out to select the weights by")
            && said.contains("best validation cross-entropy"),
        "{said}"
    );
    stdout(&fit(&start, &[&fresh[..], &["--epochs", "0"]].concat()));
    assert_ne!(
        std::fs::read(&trained).unwrap(),
        std::fs::read(&start).unwrap(),
        "the trained weights are written, not the start"
    );
    // Asked for by name, the selection by pairs is refused.
    let o = fit(
        &trained,
        &[&fresh[..], &["--rank-weight", "1", "--select", "pairs"]].concat(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--select pairs: none of the"),
        "{}",
        stderr(&o)
    );
    // Review items 7, 11 and 2: a phase without samples, an oversized --holdout, a bad --decay
    // and a bad size, each refused by its option.
    let bad_out = path("bad.tnn");
    // Contact positions only (the opening, 30 times).
    let contact = path("contact.txt");
    std::fs::write(&contact, "4HPwATDgc/ABMA 0.5 0.1 0 0.1 0\n".repeat(30)).unwrap();
    let o = tavla(&[
        "train", "fit", "--data", &contact, "--out", &bad_out, "--phase", "race",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no samples of the race phase in the data"),
        "{}",
        stderr(&o)
    );
    for (args, message) in [
        (
            &["--phase", "crashed", "--holdout", "1000"][..],
            "samples of the crashed phase in the data, fewer than --holdout 1000",
        ),
        (&["--holdout", "100000"][..], "fewer than --holdout 100000"),
        (&["--decay", "nan"][..], "--decay must be positive, got NaN"),
        (&["--decay=-1"][..], "--decay must be positive, got -1"),
        // Review (fifty-eighth round): a decay above 1 made the rate grow every epoch.
        (&["--decay", "2"][..], "--decay must be at most 1"),
        (
            &["--race-hidden", "0"][..],
            "--race-hidden must be in 1..=1024, got 0",
        ),
    ] {
        let o = fit(&bad_out, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
        assert!(!dir.join("bad.tnn").exists(), "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Review (fifty-eighth round): a run folder that is a file, or whose checkpoint state is not
/// one, exited 1 as if the program had failed; it is the user's to mend (exit 2).
#[test]
fn a_run_folder_that_is_no_run_folder_exits_2() {
    let dir = temp_dir("td-bad");
    let file = dir.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("state.json"), "{bad").unwrap();
    for (run, what) in [
        (&file, "Not a directory"),
        (&bad, "invalid checkpoint state"),
    ] {
        let o = tavla(&[
            "train",
            "td",
            "--dir",
            run.to_str().unwrap(),
            "--games",
            "2",
            "--quiet",
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(what), "{}", stderr(&o));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn td_curve_and_plot_curve_check_their_options_and_resume_cleanly() {
    let dir = temp_dir("td");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let td = |run: &str, games: &str| {
        let o = tavla(&[
            "train",
            "td",
            "--dir",
            run,
            "--games",
            games,
            "--contact-hidden",
            "8",
            "--race-hidden",
            "8",
            "--checkpoint-every",
            "2",
            "--check-every",
            "1",
            "--check-games",
            "2",
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        o
    };
    let o = tavla(&[
        "train",
        "td",
        "--dir",
        &path("odd"),
        "--games",
        "2",
        "--check-games",
        "3",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--check-games must be 0 or even"),
        "{}",
        stderr(&o)
    );
    // Review item 2: a size out of range was a panic in the networks' code.
    let bad = path("bad");
    for (option, value) in [
        ("--contact-hidden", "0"),
        ("--contact-hidden", "100000"),
        ("--race-hidden", "0"),
    ] {
        let o = tavla(&[
            "train", "td", "--dir", &bad, "--games", "2", option, value, "--quiet",
        ]);
        assert_eq!(o.status.code(), Some(2), "{option} {value}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{option} must be in 1..=1024, got {value}")),
            "{}",
            stderr(&o)
        );
    }
    // Review item 5: a run stopped after its checkpoint at game 2 had written the checks of
    // game 3 (and part of a row of game 4); resumed, it plays them again and wrote them twice.
    let (straight, stopped) = (path("straight"), path("stopped"));
    td(&straight, "4");
    let curve = std::fs::read_to_string(dir.join("straight/curve.csv")).unwrap();
    assert_eq!(curve.lines().count(), 1 + 5 * 2, "{curve}");
    // Two runs in one folder: while one holds the folder's lock, another is refused and
    // touches nothing; once it lets go, the run goes on.
    let held = std::fs::File::open(dir.join("straight/lock")).unwrap();
    fs4::FileExt::try_lock(&held).unwrap();
    let o = tavla(&["train", "td", "--dir", &straight, "--games", "6", "--quiet"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "tavla: --dir {straight}: another `tavla train td` is running in this folder (it \
             holds {} locked); wait for it to stop, or give another folder\n",
            dir.join("straight").join("lock").display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("straight/curve.csv")).unwrap(),
        curve
    );
    drop(held);
    td(&stopped, "2");
    let stopped_curve = dir.join("stopped/curve.csv");
    let mut text = std::fs::read_to_string(&stopped_curve).unwrap();
    text += "3,random,2,9.0000,0.0000,1.0000\n3,heuristic,2,9.0000,0.0000,1.0000\n4,ran";
    std::fs::write(&stopped_curve, text).unwrap();
    let o = td(&stopped, "4");
    assert!(stderr(&o).contains("dropped 3 rows"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&stopped_curve).unwrap(), curve);
    // A run killed in its first checkpoint leaves only that checkpoint's weights: a new run
    // starts there.
    let first = dir.join("first");
    std::fs::create_dir_all(&first).unwrap();
    std::fs::write(first.join("weights-000000000.tnn"), b"cut short").unwrap();
    let first = first.to_str().unwrap().to_string();
    let o = tavla(&["train", "td", "--dir", &first, "--games", "2", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The checkpoint and the current weights, which other commands take.
    let mut names: Vec<String> = std::fs::read_dir(dir.join("stopped"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "curve.csv",
            "lock",
            "snapshots",
            "state.json",
            "weights-000000004.tnn",
            "weights.tnn"
        ]
    );
    stdout(&tavla(&[
        "eval",
        "4HPwATDgc/ABMA",
        "--weights",
        &path("stopped/weights.tnn"),
    ]));
    // Review: a folder with a run's files but no state.json got a new run over them.
    std::fs::remove_file(dir.join("stopped/state.json")).unwrap();
    let o = tavla(&["train", "td", "--dir", &stopped, "--games", "2", "--quiet"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "tavla: --dir {stopped}: it holds curve.csv, snapshots/, weights.tnn but no \
             state.json, so there is no run to resume there; a new run would write over \
             them: give another folder, or move them away\n"
        )
    );
    assert_eq!(std::fs::read_to_string(&stopped_curve).unwrap(), curve);

    // Review items 4 and 10: a mistyped opponent or --games 0 leaves the last measurements.
    let curve_eval = dir.join("straight/curve-eval.csv");
    let measure = |more: &[&str]| {
        let mut args = vec!["train", "curve", "--dir", &straight];
        args.extend_from_slice(more);
        tavla(&args)
    };
    stdout(&measure(&["--games", "2"]));
    let measured = std::fs::read_to_string(&curve_eval).unwrap();
    assert_eq!(measured.lines().count(), 1 + 4 * 2, "{measured}");
    for (args, message) in [
        (
            &["--games", "2", "--opponents", "random,heurstic"][..],
            "opponent \"heurstic\" is neither random, heuristic nor a weights file",
        ),
        (&["--games", "0"][..], "--games must be positive"),
        // The checks are arena runs, which play pairs of games on the same dice.
        (
            &["--games", "3"][..],
            "--games must be positive and even (each pair of games shares its dice), got 3",
        ),
        // Review: --every 0 was taken as 1.
        (&["--every", "0"][..], "--every must be positive"),
    ] {
        let o = measure(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&curve_eval).unwrap(), measured);
    }
    // Review item 14: a PNG in a missing folder is named before anything is drawn.
    let png = dir.join("nodir/p.png");
    let o = tavla(&[
        "train",
        "plot-curve",
        &path("straight/curve.csv"),
        png.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "the PNG {}: there is no folder {}",
            png.display(),
            dir.join("nodir").display()
        )),
        "{}",
        stderr(&o)
    );
    // A name that does not end in .png is still written as a PNG (when a font is found), and
    // a file that cannot be written is named in one line.
    if tavla_bearoff::plot::find_font().is_some() {
        let gif = dir.join("curve.gif");
        let o = tavla(&[
            "train",
            "plot-curve",
            &path("straight/curve.csv"),
            gif.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(&std::fs::read(&gif).unwrap()[..8], b"\x89PNG\r\n\x1a\n");
        if std::path::Path::new("/dev/full").exists() {
            let o = tavla(&[
                "train",
                "plot-curve",
                &path("straight/curve.csv"),
                "/dev/full",
            ]);
            assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
            assert_eq!(
                stderr(&o),
                "tavla: cannot write /dev/full: No space left on device (os error 28)\n"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
