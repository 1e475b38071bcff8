//! Records gnubg (and the programs gnubg imports) write that the readers once refused or read
//! wrong: automatic doubles, matches without the Crawford rule, `and the match`, a byte-order
//! mark, Latin-1 names, a cube value beyond the cube, names beyond ASCII; and records that go
//! on after their game ended. The files in `tests/data/records/` are gnubg 1.07's (`save
//! match`, with the analysis taken out, and `export match mat`).

use tavla_core::CubeResponse;
use tavla_notation::landing::read_fast_record;
use tavla_notation::mat::{Action, GameRecord, MatchRecord};
use tavla_notation::sgf::{decode_text, parse_record};

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/records/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A `.mat` text without its `;` header lines and the blank line after them: gnubg writes an
/// `EventDate`, tavla the rules of a money session.
fn body(mat: &str) -> String {
    let text: String = mat
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect();
    text.trim_start_matches('\n').to_string()
}

#[test]
fn automatic_doubles_start_the_game_at_the_root_cube() {
    // gnubg's session with `set automatic doubles`: the opening roll doubled the cube to 2
    // (`RU[Jacoby]CV[2]`), then a double to 4, one to 8, and a gammon resigned: 16 points.
    let record = MatchRecord::parse_sgf(&data("auto4.sgf")).unwrap();
    let game = &record.games[0];
    assert_eq!(game.cube, 2);
    let doubles: Vec<u32> = game
        .turns
        .iter()
        .filter_map(|t| match t.action {
            Action::Double(v) => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(doubles, [4, 8]);
    let replay = record.replay().unwrap_or_else(|e| panic!("{e}")).remove(0);
    assert_eq!(replay.rolls[0].cube, 2);
    assert_eq!(
        replay
            .doubles
            .iter()
            .map(|d| (d.cube, d.answer))
            .collect::<Vec<_>>(),
        [(2, Some(CubeResponse::Take)), (4, Some(CubeResponse::Take))]
    );
    assert_eq!(replay.result, Some((1, 16)));
    // SGF keeps the starting cube in the root, as gnubg writes it.
    let sgf = record.to_sgf();
    assert!(
        sgf.lines()
            .next()
            .unwrap()
            .contains("RU[Jacoby]CV[2]RE[B+16R]"),
        "{sgf}"
    );
    let back = MatchRecord::parse_sgf(&sgf).unwrap();
    assert_eq!(back.games[0].cube, 2);
    assert_eq!(back.games[0].turns, game.turns);
    // .mat cannot say it: the game is written as gnubg exports it, as though the cube had
    // started at 1 (doubles to 2 and 4, 8 points), and that reads and replays.
    let mat = record.to_mat().unwrap();
    assert_eq!(body(&mat), body(&data("auto4.mat")));
    let from_mat = MatchRecord::parse(&data("auto4.mat")).unwrap();
    assert_eq!(from_mat.games[0].cube, 1);
    let replay = from_mat
        .replay()
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0);
    assert_eq!(replay.result, Some((1, 8)));
}

#[test]
fn a_built_games_starting_cube_goes_to_sgf_and_back() {
    let mut record = MatchRecord::new(0, ["a".into(), "b".into()]);
    let mut game = GameRecord::new(1, [0, 0]);
    game.cube = 2;
    game.push(0, Action::Wins(2));
    record.games.push(game);
    let sgf = record.to_sgf();
    assert!(sgf.contains("CV[2]"), "{sgf}");
    assert_eq!(MatchRecord::parse_sgf(&sgf).unwrap().games[0].cube, 2);
}

#[test]
fn a_match_without_the_crawford_rule() {
    // gnubg's `set automatic crawford off`: no `RU` at all, and root (at 4-0 in a 5-point
    // match) is doubled in game 2, which under the rule would be the Crawford game.
    let sgf = MatchRecord::parse_sgf(&data("nocr8.sgf")).unwrap();
    assert!(!sgf.crawford);
    assert!(!sgf.crawford_rule());
    assert_eq!(sgf.crawford_games(), [false, false, false]);
    let replays = sgf.replay().unwrap_or_else(|e| panic!("{e}"));
    assert!(!replays[1].doubles.is_empty());
    // Written back without `Crawford`, as gnubg writes it, and read back the same.
    let written = sgf.to_sgf();
    assert!(!written.contains("RU["), "{written}");
    assert!(!MatchRecord::parse_sgf(&written).unwrap().crawford_rule());
    // gnubg's .mat of the same match cannot say the rule was off; the double says it.
    let mat = MatchRecord::parse(&data("nocr8.mat")).unwrap();
    assert!(mat.crawford && !mat.crawford_rule());
    assert_eq!(mat.crawford_games(), [false, false, false]);
    mat.replay().unwrap_or_else(|e| panic!("{e}"));
    assert!(!mat.to_sgf().contains("RU["));
    // Where the record says the rule is on and the game is the Crawford game, its double is
    // still refused.
    let crawford = data("nocr8.sgf")
        .replace("PB[root]", "PB[root]RU[Crawford]")
        .replace(
            "[bs:4]PW[gnubg]PB[root]RU[Crawford]",
            "[bs:4]PW[gnubg]PB[root]RU[Crawford:CrawfordGame]",
        );
    let record = MatchRecord::parse_sgf(&crawford).unwrap();
    assert!(record.crawford_rule());
    let e = record.replay().unwrap_err().to_string();
    assert!(
        e.starts_with("game 2: line ") && e.contains("a double in the Crawford game"),
        "{e}"
    );
}

/// The replay error of game 1 of a `.mat` text of a 5-point match between `a` and `b`.
fn refused(turns: &str) -> String {
    let text = format!(" 5 point match\n\n Game 1\n a : 0                          b : 0\n{turns}");
    let record = MatchRecord::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    record.replay().unwrap_err().to_string()
}

#[test]
fn nothing_follows_the_end_of_a_game() {
    let opening = "  1) 31: 8/5 6/5                 62: 24/18 13/11\n";
    for (rest, needle) in [
        // Moves after a drop, before the result and after it.
        (
            "  2)  Doubles => 2                Drops\n  3) 42: 8/4 6/4                 31: 8/5 6/5\n      Wins 1 point\n",
            "line 7: a move after the game ended (the drop on line 6)",
        ),
        (
            "  2)  Doubles => 2                Drops\n      Wins 1 point\n  3) 42: 8/4 6/4\n",
            "line 8: a move after the game ended (the result on line 7)",
        ),
        // A move after the result.
        (
            "      Wins 1 point\n  2) 42: 8/4 6/4                 31: 8/5 6/5\n",
            "line 7: a move after the game ended (the result on line 6)",
        ),
        // A take after the drop, and cube answers with no double.
        (
            "  2)  Doubles => 2                Drops\n  3)                              Takes\n",
            "line 7: a take after the game ended (the drop on line 6)",
        ),
        (
            "  2) 42: 8/4 6/4                  Takes\n",
            "line 6: a take with no double to answer",
        ),
        (
            "  2)  Drops                      42: 8/4 6/4\n",
            "line 6: a drop with no double to answer",
        ),
        // A double after the result.
        (
            "      Wins 1 point\n  2)  Doubles => 2\n",
            "line 7: a double after the game ended (the result on line 6)",
        ),
    ] {
        let e = refused(&format!("{opening}{rest}"));
        assert!(e.contains(needle), "{rest:?}: {e}");
    }
    // A double on the other player's turn, and a move before a double is answered.
    let e = refused("  1) 31: 8/5 6/5\n  2)  Doubles => 2                Takes\n");
    assert!(
        e.contains("line 6: the left player doubles on the right player's turn"),
        "{e}"
    );
    let e = refused("  1) 31: 8/5 6/5                  Doubles => 2\n  2) 42: 8/4 6/4\n");
    assert!(
        e.contains("line 6: a move while the double on line 5 waits for its answer"),
        "{e}"
    );
    // The reviewer's first case: a take answering nothing, on the right of the first line.
    let e = refused("  1) 31: 8/5 6/5                  Takes\n  2)  Drops                      62: 24/18 13/11\n");
    assert!(e.contains("line 5: a take with no double to answer"), "{e}");
    // A drop, then its result beside it or on the next line, ends the game as it should.
    for ending in [
        "  2)  Doubles => 2                Drops\n      Wins 1 point\n",
        "  2) 42: 8/4 6/4                  Doubles => 2\n  3)  Drops                       Wins 1 point\n",
    ] {
        let text = format!(" 5 point match\n\n Game 1\n a : 0                          b : 0\n{opening}{ending}");
        let replay = MatchRecord::parse(&text).unwrap().replay().unwrap_or_else(|e| panic!("{ending:?}: {e}"));
        assert_eq!(replay[0].doubles[0].answer, Some(CubeResponse::Pass));
    }
    // The same in SGF: a move after the drop is refused at its node's line.
    let sgf =
        "(;FF[4]GM[6]MI[length:0]PW[a]PB[b]RE[B+1]\n;W[31hefe]\n;B[double]\n;W[drop]\n;B[62agln])";
    let e = MatchRecord::parse_sgf(sgf)
        .unwrap()
        .replay()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 5: a move after the game ended (the drop on line 4)"),
        "{e}"
    );
}

#[test]
fn and_the_match_is_the_result() {
    // Jellyfish and eXtreme Gammon end a match's last game so; gnubg reads it.
    let text = " 1 point match\n\n Game 1\n a : 0                          b : 0\n  1) 31: 8/5 6/5                 62: 24/18 13/11\n      Wins 1 point and the match\n";
    let record = MatchRecord::parse(text).unwrap();
    assert_eq!(
        record.games[0].turns.last().unwrap().action,
        Action::Wins(1)
    );
    let replay = record.replay().unwrap().remove(0);
    assert_eq!(replay.result, Some((0, 1)));
    let plural = text.replace("Wins 1 point and", "Wins 2 points and");
    assert_eq!(
        MatchRecord::parse(&plural).unwrap().games[0]
            .turns
            .last()
            .unwrap()
            .action,
        Action::Wins(2)
    );
    // Anything else after the points is still refused, at its line.
    for bad in [
        "Wins 1 point and",
        "Wins 1 point and the game",
        "Wins 1 point and the match!",
    ] {
        let e = MatchRecord::parse(&text.replace("Wins 1 point and the match", bad)).unwrap_err();
        assert_eq!(e.line, 6, "{bad}: {e}");
        assert!(e.problem.contains("unexpected words"), "{bad}: {e}");
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let mat = "\u{feff} 5 point match\n\n Game 1\n a : 0                          b : 0\n  1) 31: 8/5 6/5\n";
    let record = MatchRecord::parse(mat).unwrap();
    assert_eq!((record.length, record.games[0].turns.len()), (5, 1));
    assert_eq!(parse_record(mat).unwrap(), record);
    let fast = "\u{feff}players A B\nmatch 3\nR 3@5 1@5\n";
    let record = read_fast_record(fast).unwrap();
    assert_eq!(record.players, ["A".to_string(), "B".to_string()]);
    assert_eq!((record.length, record.games[0].turns.len()), (3, 1));
}

/// `line` as an editor's "tabify" leaves it: each run of two or more spaces that ends at a
/// multiple of 8 columns becomes a tab (the line is ASCII).
fn tabify(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(8) {
        let text = std::str::from_utf8(chunk).unwrap();
        let kept = text.trim_end_matches(' ');
        if chunk.len() == 8 && text.len() - kept.len() >= 2 {
            out.push_str(kept);
            out.push('\t');
        } else {
            out.push_str(text);
        }
    }
    out
}

#[test]
fn a_record_laid_out_with_tabs_reads_as_its_columns_show() {
    // gnubg's own export, tabified: turn lines whose left half is blank (a double, a take,
    // a roll the left player could not play) keep their right half by column.
    let mat = data("nocr8.mat");
    let tabbed: String = mat.lines().map(|l| format!("{}\n", tabify(l))).collect();
    assert!(
        tabbed.contains("\t\t\t"),
        "the fixture has blank left halves"
    );
    assert!(tabbed.lines().filter(|l| l.contains('\t')).count() > 50);
    let record = MatchRecord::parse(&tabbed).unwrap();
    assert_eq!(record, MatchRecord::parse(&mat).unwrap());
    assert!(record.replay().is_ok());
    // A right-half result indented by tabs is the right player's.
    let wins = "\t\t\t\t  Wins 4 points";
    let text =
        format!(" 1 point match\n Game 1\n a : 0  b : 0\n  1)\t\t\t\t 52: 13/11 13/8\n{wins}\n");
    let record = MatchRecord::parse(&text).unwrap();
    let players: Vec<usize> = record.games[0].turns.iter().map(|t| t.player).collect();
    assert_eq!(players, [1, 1]);
}

#[test]
fn a_fast_record_game_with_no_turns_is_refused_with_its_line() {
    let e = read_fast_record("players A B\ngame\ngame\nR 3@5 1@5\n").unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    assert!(
        e.problem.contains("the game begun on line 2 has no turns"),
        "{e}"
    );
    let e = read_fast_record("players A B\nR 3@5 1@5\nR wins 1\ngame\n").unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.problem.contains("a game with no turns at the end"), "{e}");
}

#[test]
fn latin1_records_are_read_as_gnubg_reads_them() {
    let bytes = std::fs::read(format!(
        "{}/tests/data/records/latin1.mat",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert!(std::str::from_utf8(&bytes).is_err());
    let record = MatchRecord::parse(&decode_text(bytes)).unwrap();
    assert_eq!(record.players, ["José".to_string(), "b".to_string()]);
    // UTF-8 stays UTF-8 (not read as Latin-1 pairs).
    let utf8 = data("gutf.mat");
    assert_eq!(decode_text(utf8.clone().into_bytes()), utf8);
    assert_eq!(
        MatchRecord::parse(&utf8).unwrap().players,
        ["José".to_string(), "Ünal".to_string()]
    );
}

#[test]
fn names_beyond_ascii_are_padded_by_bytes_as_gnubg_pads_them() {
    // gnubg's `%-31s` pads `José : 0` (9 bytes, 8 characters) with 22 spaces, not 23.
    let gnubg = data("gutf.mat");
    let record = MatchRecord::parse(&gnubg).unwrap();
    let written = record.to_mat().unwrap();
    assert_eq!(body(&written), body(&gnubg));
    assert!(
        written.contains(&format!(" José : 0{}Ünal : 0\n", " ".repeat(22))),
        "{written}"
    );
}

#[test]
fn a_cube_value_beyond_the_cube_is_refused_at_its_property() {
    for (sgf, at) in [
        (
            "(;FF[4]GM[6]MI[length:0]PW[a]PB[b]RE[W+3R]\n;CV[2147483648]\n;W[31hefe]\n;B[double])",
            "line 2 (byte 47): CV[2147483648]: a cube value is a power of two from 1 to 32768",
        ),
        (
            "(;FF[4]GM[6]MI[length:0]PW[a]PB[b]CV[65536]\n;W[31hefe])",
            "line 1 (byte 37): CV[65536]: a cube value is a power of two from 1 to 32768",
        ),
        (
            "(;FF[4]GM[6]MI[length:0]PW[a]PB[b]CV[3]\n;W[31hefe])",
            "line 1 (byte 37): CV[3]: a cube value is a power of two from 1 to 32768",
        ),
    ] {
        let e = MatchRecord::parse_sgf(sgf).unwrap_err().to_string();
        assert!(e.contains(at), "{sgf}: {e}");
    }
    // The largest is read, and a double beyond it is an error, not an overflow.
    let top = "(;FF[4]GM[6]MI[length:0]PW[a]PB[b]\n;CV[32768]\n;W[31hefe]\n;B[double])";
    let record = MatchRecord::parse_sgf(top).unwrap();
    let e = record.replay().unwrap_err().to_string();
    assert!(
        e.contains("line 4: a double to 65536, beyond the cube's largest value, 32768"),
        "{e}"
    );
    // A built game whose cube cannot double is refused, not wrapped round.
    let mut record = MatchRecord::new(0, ["a".into(), "b".into()]);
    let mut game = GameRecord::new(1, [0, 0]);
    game.cube = 1 << 31;
    game.push(0, Action::Double(0));
    record.games.push(game);
    let e = record.replay().unwrap_err().to_string();
    assert!(
        e.contains("a double to 0, but the cube is at 2147483648: it goes to 4294967296"),
        "{e}"
    );
    // And a resignation at such a cube is weighed without overflow.
    let mut record = MatchRecord::new(0, ["a".into(), "b".into()]);
    let mut game = GameRecord::new(1, [0, 0]);
    game.cube = 1 << 31;
    game.push(0, Action::Move("31: 8/5 6/5".parse().unwrap()));
    game.push(1, Action::Wins(5));
    record.games.push(game);
    let e = record.replay().unwrap_err().to_string();
    assert!(
        e.contains("a resignation with the cube at 2147483648"),
        "{e}"
    );
}

#[test]
fn a_gammon_at_an_automatic_cube_under_jacoby_is_worth_the_cube() {
    // The cube at 2 from automatic doubles, never turned: under the Jacoby rule gnubg scores
    // white's gammon (its last checker off, black's all at home) as a single game, 2 points;
    // without it, 4.
    let board = format!("AE[a:y]AW[a]AB{}PL[W]", "[l]".repeat(15));
    for points in [2, 4] {
        let sgf = format!(
            "(;FF[4]GM[6]MI[length:0]PW[a]PB[b]RU[Jacoby]CV[2]RE[W+{points}]\n;{board}\n;W[21az])"
        );
        let record = MatchRecord::parse_sgf(&sgf).unwrap();
        let replay = record
            .replay()
            .unwrap_or_else(|e| panic!("{points}: {e}"))
            .remove(0);
        assert_eq!(replay.result, Some((0, points)));
    }
    let sgf =
        format!("(;FF[4]GM[6]MI[length:0]PW[a]PB[b]RU[Jacoby]CV[2]RE[W+3]\n;{board}\n;W[21az])");
    let e = MatchRecord::parse_sgf(&sgf)
        .unwrap()
        .replay()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("wins 3 points, but a gammon with the cube at 2 is worth 4 or 2"),
        "{e}"
    );
}
