//! `tavla luck` on a record written by `match-vs-external --mat` (tavla 2-ply against gnubg
//! 2-ply, the first 20 games of seed 62: ten duplicate pairs), and on gnubg's own match records
//! in `.mat` and SGF form.

use serde_json::Value;

mod common;
use common::{data, f, json, tavla};

#[test]
fn a_session_record_gives_luck_and_luck_adjusted_results() {
    let file = data("tavla-gnubg-2ply.mat");
    let v = json(&tavla(&["luck", &file, "--pairs", "--json"]));
    assert_eq!(v["games"], 20);
    assert_eq!(v["players"][0], "tavla_neural:ply=2");
    assert_eq!(v["players"][1], "gnubg-2ply");
    assert_eq!(v["cubeless_money"], true);
    // The harness's own log of these games (engine_points per game) sums to -5.
    assert!((f(&v["ppg_left"]) + 5.0 / 20.0).abs() < 1e-12, "{v}");
    // Adjusted = points - left's luck + right's luck, game by game, so on the means too.
    let luck = [f(&v["luck_per_game"][0]), f(&v["luck_per_game"][1])];
    let adjusted = f(&v["luck_adjusted_ppg_left"]);
    assert!((adjusted - (f(&v["ppg_left"]) - luck[0] + luck[1])).abs() < 1e-9);
    // A roll is worth a few hundredths of a point either way on average, not more.
    for l in &v["luck_per_roll_memg"].as_array().unwrap()[..] {
        assert!(f(l).abs() < 60.0, "{l}");
    }
    // Most of the dice's noise goes.
    assert!(f(&v["luck_adjusted_ci95"]) < f(&v["ci95"]) / 3.0, "{v}");
    // The figures do not depend on the threads.
    let one = json(&tavla(&[
        "luck",
        &file,
        "--pairs",
        "--json",
        "--threads",
        "1",
    ]));
    let three = json(&tavla(&[
        "luck",
        &file,
        "--pairs",
        "--json",
        "--threads",
        "3",
    ]));
    assert_eq!(one, three);
    assert_eq!(one, v);
    // Over games instead of pairs: the same means.
    let g = json(&tavla(&["luck", &file, "--json"]));
    assert_eq!(g["pairs"], false);
    assert!((f(&g["luck_adjusted_ppg_left"]) - adjusted).abs() < 1e-9);
    // The table.
    let o = tavla(&["luck", &file, "--pairs"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("over 10 duplicate pairs"), "{text}");
    assert!(
        text.contains("tavla_neural:ply=2's luck-adjusted points per game: "),
        "{text}"
    );
}

#[test]
fn bad_records_say_where() {
    let dir = std::env::temp_dir().join(format!("tavla-luck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let head = " 0 point match\n\n Game 1\n a : 0       b : 0\n";
    let cases = [
        (
            write("illegal.mat", &format!("{head}  1) 31: 8/4 6/5\n")),
            "line 5",
            "8/4 6/5",
        ),
        (
            write("open.mat", &format!("{head}  1) 31: 8/5 6/5\n")),
            "line 3",
            "no result",
        ),
        (write("junk.mat", "hello\n"), "line 1", "point match"),
    ];
    for (file, line, what) in &cases {
        let o = tavla(&["luck", file]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        let e = String::from_utf8(o.stderr).unwrap();
        assert!(e.contains(line) && e.contains(what), "{file}: {e}");
    }
    let o = tavla(&["luck", &dir.join("missing.mat").display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    // Three games cannot be pairs; gnubg's 5-point match is a match: no adjusted result.
    let record = std::fs::read_to_string(data("tavla-gnubg-2ply.mat")).unwrap();
    let cut = record.find(" Game 4\n").unwrap();
    let odd = write("odd.mat", &record[..cut]);
    let o = tavla(&["luck", &odd, "--pairs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("3 games cannot be duplicate pairs"));
    let v = json(&tavla(&["luck", &odd, "--json"]));
    assert_eq!(v["games"], 3);
    let vectors: Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/../tavla-notation/tests/data/vectors-match-records.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    let lines: Vec<&str> = vectors["mat_files"][0]["text"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let cube = write("cube.mat", &(lines.join("\n") + "\n"));
    let v = json(&tavla(&["luck", &cube, "--json"]));
    assert_eq!(v["cubeless_money"], false);
    assert_eq!(v["money"], false, "a match");
    assert!(v["luck_adjusted_ppg_left"].is_null());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// gnubg's records of the vectors (`tavla-notation/tests/data`), one line per element.
fn vector_text(list: &str, id: &str) -> String {
    let path = format!(
        "{}/../tavla-notation/tests/data/vectors-match-records.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let vectors: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let file = vectors[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no {id}"));
    let lines: Vec<&str> = file["text"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    lines.join("\n") + "\n"
}

#[test]
fn sgf_and_mat_records_of_one_match_agree() {
    let dir = std::env::temp_dir().join(format!("tavla-luck-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    // The same 5-point match (gnubg against itself, 4 games) as gnubg exported it to `.mat`
    // and saved it after importing that: the format is told by content, not by name.
    let mat = write("match.mat", &vector_text("mat_files", "MAT2"));
    let sgf = write("match.sgf", &vector_text("sgf_files", "SGF1"));
    let txt = write("match.txt", &vector_text("sgf_files", "SGF1"));
    let from_mat = json(&tavla(&["luck", &mat, "--json", "--threads", "1"]));
    assert_eq!(from_mat["games"], 4);
    assert_eq!(from_mat["players"][0], "gnubg");
    // Game results 0-2, 0-1, 2-0, 0-2: -3 points over 4 games for the left player (white).
    assert!(
        (f(&from_mat["ppg_left"]) + 3.0 / 4.0).abs() < 1e-12,
        "{from_mat}"
    );
    let from_sgf = json(&tavla(&["luck", &sgf, "--json", "--threads", "1"]));
    assert_eq!(from_sgf, from_mat);
    let from_txt = json(&tavla(&["luck", &txt, "--json", "--threads", "1"]));
    assert_eq!(from_txt, from_mat);
    // Both at once: twice the games.
    let both = json(&tavla(&["luck", &sgf, &mat, "--json", "--threads", "1"]));
    assert_eq!(both["games"], 8);
    // Bad records: one line naming the file, the game and the line.
    // SGF3 sets up a board; without its `AE[a:y]` it would edit part of one.
    let setup = vector_text("sgf_files", "SGF3").replacen("AE[a:y]", "", 1);
    let cut = vector_text("sgf_files", "SGF1");
    let cut = &cut[..cut.find(";B[double]").unwrap()];
    let illegal = vector_text("sgf_files", "SGF1").replacen("W[64mgkg]", "W[64mgkf]", 1);
    let cases = [
        (
            write("setup.sgf", &setup),
            "game 1, line 3",
            "boards edited in part are not supported",
        ),
        (write("cut.sgf", cut), "game 1, line 17", "`)` missing"),
        (
            write("illegal.sgf", &illegal),
            "game 1: line 4",
            "64: 13/7 11/6",
        ),
        (
            write("neither.sgf", "\n; [Site \"x\"]\nGNU Backgammon match\n"),
            "line 3",
            "neither an SGF record",
        ),
    ];
    for (file, place, what) in &cases {
        let o = tavla(&["luck", file]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        let e = String::from_utf8(o.stderr).unwrap();
        assert!(e.contains(place) && e.contains(what), "{file}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{file}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
