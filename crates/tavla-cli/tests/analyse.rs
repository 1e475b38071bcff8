//! `tavla analyse` against gnubg's analysis of the same records (`tests/data/analyse/`):
//! the heuristic player, the random player and tavla's 0-ply player in cubeless money games,
//! money games with the cube and two 5-point matches, written by `tavla arena --mat`, then
//! analysed by gnubg 1.07 at 2-ply (`gnubg-2ply.json`, made with
//! `../shared/tools/gnubg/analyse`). tavla analyses at 1-ply here, to keep the test fast.

use serde_json::Value;

mod common;
use common::{data, f, json, tavla};

fn gnubg() -> Value {
    let text = std::fs::read_to_string(data("analyse/gnubg-2ply.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `tavla analyse FILE --json` at `ply` with `extra` arguments.
fn analyse(file: &str, ply: &str, extra: &[&str]) -> Value {
    let path = data(&format!("analyse/{file}"));
    let mut args = vec!["analyse", path.as_str(), "--json", "--ply", ply];
    args.extend_from_slice(extra);
    json(&tavla(&args))
}

/// Pearson's correlation of two equally long series.
fn correlation(xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let cov: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let vy: f64 = ys.iter().map(|y| (y - my) * (y - my)).sum();
    cov / (vx * vy).sqrt()
}

const FILES: [&str; 5] = [
    "heur-cubeless.mat",
    "random-cubeless.mat",
    "heur-cube.mat",
    "match5-1.mat",
    "match5-2.mat",
];

#[test]
fn unforced_moves_are_counted_as_gnubg_counts_them() {
    let reference = gnubg();
    for file in FILES {
        let g = &reference["files"][file];
        let v = analyse(file, "0", &[]);
        for p in 0..2 {
            assert_eq!(
                v["players"][p]["unforced_moves"], g["players"][p]["unforced_moves"],
                "{file}, player {p}"
            );
        }
        // Game by game too.
        let per_game = v["per_game"].as_array().unwrap();
        let theirs = g["per_game_unforced"].as_array().unwrap();
        assert_eq!(per_game.len(), theirs.len(), "{file}");
        for (ours, theirs) in per_game.iter().zip(theirs) {
            assert_eq!(&ours["unforced_moves"], theirs, "{file}");
        }
    }
}

#[test]
fn error_rates_agree_with_gnubgs_analysis() {
    let reference = gnubg();
    for file in FILES {
        let g = &reference["files"][file];
        let v = analyse(file, "1", &[]);
        assert_eq!(v["ply"], 1);
        for p in 0..2 {
            let (ours, theirs) = (&v["players"][p], &g["players"][p]);
            assert_eq!(ours["name"], theirs["name"]);
            let weak = theirs["name"] != "neural-ply=0";
            let rates = [
                (f(&ours["checker_rate"]), f(&theirs["chequer_rate"])),
                (f(&ours["error_rate"]), f(&theirs["overall_rate"])),
            ];
            for (ours, theirs) in rates {
                if weak {
                    // The heuristic and random players lose 46 to 155 mEMG a decision by
                    // gnubg's judgement: tavla's agrees within a tenth.
                    assert!(
                        (ours - theirs).abs() <= 0.1 * theirs,
                        "{file}, player {p}: {ours} against gnubg's {theirs}"
                    );
                } else {
                    // tavla's 0-ply player loses 2 to 5 mEMG by gnubg's judgement.
                    assert!(
                        ours < 10.0 && (ours - theirs).abs() < 4.0,
                        "{file}, player {p}: {ours} against gnubg's {theirs}"
                    );
                }
            }
            // The cube decisions counted (gnubg's close ones): within a sixth, or 5.
            let (close, theirs_close) = (
                f(&ours["cube_decisions"]),
                f(&theirs["close_cube_decisions"]),
            );
            assert!(
                (close - theirs_close).abs() <= (theirs_close / 6.0).max(5.0),
                "{file}, player {p}: {close} cube decisions against gnubg's {theirs_close}"
            );
        }
        // Game by game, the weak player's chequer error rates follow gnubg's closely.
        let ours: Vec<f64> = v["per_game"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| 1000.0 * f(&g["checker_error"][0]) / f(&g["unforced_moves"][0]).max(1.0))
            .collect();
        let theirs: Vec<f64> = g["per_game_chequer_rate"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| f(&g[0]))
            .collect();
        if ours.len() >= 10 {
            let r = correlation(&ours, &theirs);
            assert!(r > 0.95, "{file}: per-game correlation {r}");
        }
    }
}

#[test]
fn cube_errors_are_found_where_gnubg_finds_them() {
    let reference = gnubg();
    let g = &reference["files"]["heur-cube.mat"]["players"][0]["cube_errors"];
    let v = analyse("heur-cube.mat", "1", &[]);
    let heuristic = &v["players"][0];
    // The heuristic player never doubles and takes every double: gnubg finds 20 missed
    // doubles and 9 wrong takes in its 20 games.
    assert_eq!(heuristic["doubles"], 0);
    assert_eq!(heuristic["takes"], 20);
    assert_eq!(f(&g["wrong-take"]), 9.0);
    assert_eq!(heuristic["wrong_takes"], g["wrong-take"]);
    let missed = f(&g["missed-double-below-cp"]) + f(&g["missed-double-above-cp"]);
    let ours = f(&heuristic["missed_doubles"]);
    assert!(
        (ours - missed).abs() <= 0.5 * missed,
        "{ours} against {missed}"
    );
    // The neural player doubles 20 times; its cube errors are few and small.
    let neural = &v["players"][1];
    assert_eq!(neural["doubles"], 20);
    assert!(f(&neural["cube_rate"]) < 5.0, "{neural}");
    // The listed decisions carry their position, and the wrong takes are among them.
    let listed = v["decisions"].as_array().unwrap();
    let takes = listed
        .iter()
        .filter(|d| d["kind"] == "take" && d["player"] == 0 && f(&d["loss"]) >= 0.04)
        .count();
    assert!(takes >= 5, "{takes} wrong takes listed");
    for d in listed {
        assert!(d["xgid"].as_str().unwrap().starts_with("XGID="), "{d}");
        assert!(
            f(&d["loss"]) >= 0.04,
            "only the doubtful and worse are listed: {d}"
        );
    }
}

#[test]
fn the_report_lists_errors_and_sums_them() {
    let path = data("analyse/heur-cubeless.mat");
    let o = tavla(&["analyse", &path, "--ply", "0", "--threads", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("20 games from"), "{text}");
    assert!(text.contains("error rate (mEMG per move)"), "{text}");
    assert!(text.contains("??"), "blunders are marked: {text}");
    assert!(text.contains("XGID="), "{text}");
    // --all lists every unforced move: as many as gnubg counts.
    let v = analyse("heur-cubeless.mat", "0", &["--all"]);
    let moves = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "move")
        .count();
    assert_eq!(moves, 366 + 430);
    // The summary's totals are the sums of the decisions.
    for p in 0..2 {
        let sum: f64 = v["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["player"] == p)
            .map(|d| f(&d["loss"]))
            .sum();
        let total = f(&v["players"][p]["checker_error"]);
        assert!((sum - total).abs() < 1e-3, "{sum} against {total}");
    }
    // One player's decisions only, by name or column.
    for who in ["heuristic", "left"] {
        let one = analyse("heur-cubeless.mat", "0", &["--all", "--player", who]);
        let listed = one["decisions"].as_array().unwrap();
        assert_eq!(listed.len(), 366, "{who}");
        assert!(listed.iter().all(|d| d["player"] == 0));
        assert_eq!(one["players"], v["players"]);
    }
    let o = tavla(&["analyse", &path, "--player", "nobody"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("--player nobody: not left, right, heuristic or neural-ply=0")
    );
    // The same with one thread or two.
    let two = analyse("heur-cubeless.mat", "0", &["--all", "--threads", "2"]);
    assert_eq!(v["players"], two["players"]);
}

#[test]
fn bad_input_is_refused_with_a_message() {
    let o = tavla(&["analyse", "/nonexistent/file.mat"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    let path = data("analyse/heur-cubeless.mat");
    let o = tavla(&["analyse", &path, "--ply", "9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--ply must be in 0..=3"));
    let dir = std::env::temp_dir().join(format!("tavla-analyse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.mat");
    std::fs::write(
        &bad,
        " 0 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/4 6/5\n",
    )
    .unwrap();
    let o = tavla(&["analyse", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("line 5") && err.contains("8/4"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_result_luck_adjusted_is_tavla_lucks() {
    for file in ["heur-cube.mat", "heur-cubeless.mat"] {
        let v = analyse(file, "0", &["--summary"]);
        let path = data(&format!("analyse/{file}"));
        let luck = json(&tavla(&["luck", &path, "--json"]));
        let games = f(&v["games"]);
        let [left, right] = [&v["players"][0], &v["players"][1]];
        assert!((f(&left["points"]) + f(&right["points"])).abs() < 1e-9);
        assert!(
            (f(&left["points"]) / games - f(&luck["ppg_left"])).abs() < 1e-9,
            "{file}"
        );
        assert!(
            (f(&left["luck_adjusted_points"]) / games - f(&luck["luck_adjusted_ppg_left"])).abs()
                < 1e-9,
            "{file}: {} against {}",
            f(&left["luck_adjusted_points"]) / games,
            luck["luck_adjusted_ppg_left"]
        );
    }
}

/// The listed checker-play decisions of an analysis.
fn moves(r: &Value) -> Vec<&Value> {
    r["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "move")
        .collect()
}

#[test]
fn rollouts_check_the_listed_errors() {
    // The random player's games at 0-ply: every listed checker-play error is rolled out, the
    // play made against the best, on the same dice; the rollouts confirm every very bad one.
    let r = analyse("random-cubeless.mat", "0", &["--rollout", "36"]);
    let moves = moves(&r);
    assert!(moves.len() >= 20, "{}", moves.len());
    let mut very_bad = 0;
    for d in &moves {
        let c = &d["rollout"];
        assert_eq!(c["games"], 36, "{d}");
        assert!(f(&c["ci95"]) >= 0.0, "{d}");
        if f(&d["loss"]) >= 0.16 {
            very_bad += 1;
            assert!(f(&c["loss"]) > 0.0, "the rollouts disagree: {d}");
        }
    }
    assert!(very_bad >= 10, "{very_bad}");
    // The report prints each check under its error; --rollout lists errors, so not with
    // --summary.
    let path = data("analyse/random-cubeless.mat");
    let o = tavla(&[
        "analyse",
        &path,
        "--ply",
        "0",
        "--rollout",
        "12",
        "--player",
        "left",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("rollout, 12 games a play: "), "{text}");
    let o = tavla(&["analyse", &path, "--rollout", "12", "--summary"]);
    assert_eq!(o.status.code(), Some(2));
    // A rollout plays two games at least: one has no interval.
    for games in ["0", "1"] {
        let o = tavla(&["analyse", &path, "--rollout", games]);
        assert_eq!(o.status.code(), Some(2), "{games}");
    }
}

#[test]
fn rollouts_check_match_errors_with_the_cube() {
    // A 5-point match at 0-ply: each listed checker-play error rolled out with the cube at the
    // game's score, its loss normalised as the search's and in match winning chances; on
    // average the rollouts find the errors as costly as the search does.
    let r = analyse("match5-1.mat", "0", &["--rollout", "36"]);
    let moves = moves(&r);
    assert!(moves.len() >= 10, "{}", moves.len());
    let (mut search, mut rolled) = (0.0, 0.0);
    for d in &moves {
        let c = &d["rollout"];
        assert_eq!(c["cubeful"], true, "{d}");
        assert!(f(&c["loss_mwc"]).abs() <= 1.0, "{d}");
        // Normalised equity and winning chances have the same sign.
        assert!(f(&c["loss"]) * f(&c["loss_mwc"]) >= 0.0, "{d}");
        search += f(&d["loss"]);
        rolled += f(&c["loss"]);
    }
    let n = moves.len() as f64;
    assert!(
        rolled / n > 0.5 * search / n,
        "{} {}",
        rolled / n,
        search / n
    );
}

#[test]
fn resignations_are_judged_where_the_game_stopped() {
    // `resigned.mat` is gnubg's export of a 5-point match of the notation vectors (MAT2): each
    // player resigned one game, a single game at the 2-cube, in a bear-off it had lost.
    let v = analyse("resigned.mat", "0", &["--cube-ply", "0", "--all"]);
    for p in 0..2 {
        let s = &v["players"][p];
        assert_eq!(s["resignations"], 1, "player {p}");
        assert_eq!(
            (
                s["wrong_resignations"].as_u64(),
                s["wrong_accepts"].as_u64()
            ),
            (Some(0), Some(0))
        );
        assert!(f(&s["resignation_error"]) < 0.005, "{s}");
    }
    let rows: Vec<&Value> = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "resign" || d["kind"] == "accept")
        .collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["made"], "Resign a single game (2 points)");
    assert_eq!(
        (&rows[0]["line"], &rows[1]["kind"]),
        (&Value::from(31), &Value::from("accept"))
    );

    // Resigning straight after the opening gives away a game that is not far from even (the
    // side that played the 3-1 is on roll): a blunder of the resigner's, none of the side
    // that accepted.
    let dir = std::env::temp_dir().join(format!("tavla-resign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("early.mat");
    std::fs::write(
        &path,
        " 0 point match

 Game 1
 left : 0                       right : 0
  1)                             31: 8/5 6/5
  2) 62: 24/18 13/11
                                  Wins 1 point
",
    )
    .unwrap();
    let v = json(&tavla(&[
        "analyse",
        path.to_str().unwrap(),
        "--json",
        "--ply",
        "0",
    ]));
    std::fs::remove_dir_all(&dir).unwrap();
    let left = &v["players"][0];
    assert_eq!(
        (
            left["resignations"].as_u64(),
            left["wrong_resignations"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(v["players"][1]["wrong_accepts"], 0);
    let resign = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "resign")
        .expect("the resignation is listed");
    assert_eq!(
        (&resign["player"], &resign["skill"], &resign["best"]),
        (
            &Value::from(0),
            &Value::from("very-bad"),
            &Value::from("Play on")
        )
    );
    assert!(
        f(&resign["loss"]) > 0.5
            && (f(&left["resignation_error"]) - f(&resign["loss"])).abs() < 1e-6,
        "{resign}"
    );
    // The rates are those of the moves alone.
    assert_eq!(left["checker_rate"], left["error_rate"]);
}

#[test]
fn games_under_the_jacoby_rule_are_judged_with_the_cube() {
    // A cubeless record judged under the Jacoby rule: a game under the rule is played with the
    // cube, so its doubles are judged too, and its kind says so.
    let plain = analyse("heur-cubeless.mat", "0", &["--cube-ply", "0"]);
    assert_eq!(plain["kind"], "cubeless money", "{}", plain["kind"]);
    let jacoby = analyse("heur-cubeless.mat", "0", &["--cube-ply", "0", "--jacoby"]);
    assert_eq!(jacoby["kind"], "money with the cube", "{}", jacoby["kind"]);
    let decisions = |v: &Value| {
        v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["cube_decisions"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(decisions(&plain), 0);
    assert!(decisions(&jacoby) > 0, "{}", jacoby["players"]);

    // The same record saying so in eXtreme Gammon's header tag is judged as with --jacoby.
    let text = std::fs::read_to_string(data("analyse/heur-cubeless.mat")).unwrap();
    let tagged = common::temp_dir("jacoby-tag").join("tagged.mat");
    std::fs::write(
        &tagged,
        format!("; [Jacoby \"On\"]\n; [Beaver \"Off\"]\n{text}"),
    )
    .unwrap();
    let path = tagged.to_str().unwrap();
    let by_tag = json(&tavla(&[
        "analyse",
        path,
        "--json",
        "--ply",
        "0",
        "--cube-ply",
        "0",
    ]));
    assert_eq!(by_tag["players"], jacoby["players"]);
    assert_eq!(by_tag["kind"], jacoby["kind"]);
}

#[test]
fn matches_beyond_the_match_equity_table_are_refused() {
    // Beyond 32 points tavla's table has no match winning chances: the rolls would be valued
    // in money equity labelled as MWC and the cube decisions left out.
    for cmd in ["analyse", "luck"] {
        let o = tavla(&[cmd, &data("records/match-33.mat")]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains("match-33.mat: a 33-point match")
                && e.contains("covers matches of up to 32 points"),
            "{cmd}: {e}"
        );
        assert_eq!(e.trim().lines().count(), 1, "{cmd}: {e}");
    }
    // 32 points is within it, its double analysed in match winning chances.
    let v = json(&tavla(&[
        "analyse",
        &data("records/match-32.mat"),
        "--ply",
        "0",
        "--json",
    ]));
    assert_eq!(v["kind"], "match");
    assert_eq!(v["players"][0]["cube_decisions"], 1);
    assert!(v["players"][0]["cube_error_mwc"].as_f64().is_some());
}

#[test]
fn records_that_cannot_be_summed_together_are_refused() {
    let refused = |args: &[&str], what: &str| {
        let o = tavla(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(what) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    };
    let (cube, cubeless, random, match5) = (
        data("analyse/heur-cube.mat"),
        data("analyse/heur-cubeless.mat"),
        data("analyse/random-cubeless.mat"),
        data("analyse/match5-1.mat"),
    );
    // Money points and match winning chances are not added up.
    refused(
        &["analyse", &cube, &match5, "--ply", "0"],
        "take matches and money play apart",
    );
    // The figures are kept by column: the second file's players are others.
    refused(
        &["analyse", &cubeless, &random, "--ply", "0"],
        "its players are random and",
    );
    // Review (fifty-eighth round): `luck` pooled them, under the first file's names.
    refused(&["luck", &cubeless, &random], "its players are random and");
    refused(
        &["luck", &cube, &match5],
        "take matches and money play apart",
    );
    // Money play's options are refused for a match, not ignored.
    for option in ["--no-cube", "--jacoby", "--beavers"] {
        refused(
            &["analyse", &match5, option, "--ply", "0"],
            &format!("{option}: "),
        );
    }
}

#[test]
fn a_matchs_lucky_rolls_are_marked_in_normalised_equity() {
    // In match winning chances hardly any roll moves 0.3; normalised, as gnubg marks them,
    // some do.
    let r = analyse("match5-1.mat", "0", &["--summary"]);
    let marks: u64 = r["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            ["lucky", "very_lucky", "unlucky", "very_unlucky"]
                .iter()
                .map(|k| p[*k].as_u64().unwrap())
                .sum::<u64>()
        })
        .sum();
    let rolls: u64 = r["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["rolls"].as_u64().unwrap())
        .sum();
    assert!(marks > 0 && marks < rolls / 2, "{marks} of {rolls}");
}

#[test]
fn a_beaver_beavered_back_as_gnubg_allows_is_read() {
    // gnubg's self-play with beavers (`../shared/tools/gnubg/selfplay --jacoby ... --seed 4`):
    // a double to 2 beavered to 4, 8 and 16 in turn.
    let path = data("analyse/gnubg-beavers-chained.mat");
    let r = json(&tavla(&["analyse", &path, "--json", "--ply", "0", "--all"]));
    assert_eq!(r["beavers"], true, "{}", r["kind"]);
    let beaver = r["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "beaver")
        .expect("the first beaver is judged");
    // Listed at its own line, after the double's.
    assert_eq!(beaver["line"], 14, "{beaver}");
    // The next roll is at the cube the chain left: 16, owned by the last to beaver (left).
    let next = r["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "move" && d["line"] == 15)
        .expect("the doubler's roll after the chain");
    let xgid = next["xgid"].as_str().unwrap();
    // The cube at 2^4 on the side not on roll (cube 1, turn -1).
    assert!(xgid.contains(":4:1:-1:"), "{xgid}");
    assert_eq!(next["player"], 1, "the doubler rolls: {next}");
}
