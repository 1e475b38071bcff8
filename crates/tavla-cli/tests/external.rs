//! `tavla external`: gnubg's external-player protocol, against gnubg's own answers to the FIBS
//! board vectors (`vectors-fibs-board.json`: gnubg 1.07 at 0-ply on its external socket), on
//! stdin/stdout and over a TCP socket.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStderr, Command, Stdio};

use serde_json::Value;

mod common;

fn vectors() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tavla-notation/tests/data/vectors-fibs-board.json"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

/// One `--stdio` session: the answer lines.
fn session(requests: &[String]) -> Vec<String> {
    let input = requests.join("\n") + "\n";
    common::stdout(&common::tavla_stdin(&["external", "--stdio"], &input))
        .lines()
        .map(String::from)
        .collect()
}

/// A play's sub-moves, in any order.
fn moves(reply: &str) -> Vec<String> {
    let mut m: Vec<String> = reply.split_whitespace().map(String::from).collect();
    m.sort();
    m
}

#[test]
fn the_answers_are_gnubgs_where_the_engines_agree() {
    let with_reply: Vec<Value> = vectors()
        .into_iter()
        .filter(|v| v["gnubg_external_reply"].is_array())
        .collect();
    assert_eq!(with_reply.len(), 7);
    let requests: Vec<String> = with_reply
        .iter()
        .map(|v| v["fibs"].as_str().unwrap().to_string())
        .collect();
    let answers = session(&requests);
    assert_eq!(answers.len(), requests.len(), "{answers:?}");
    for (v, ours) in with_reply.iter().zip(&answers) {
        let id = v["id"].as_str().unwrap();
        let gnubg = v["gnubg_external_reply"][0].as_str().unwrap();
        if gnubg.ends_with(' ') {
            // A play: gnubg's (XG's best play in F11), with gnubg's trailing space.
            assert!(ours.ends_with(' '), "{id}: {ours:?}");
            assert_eq!(moves(ours), moves(gnubg), "{id}");
        } else if id == "F13" {
            // XG (Roller++) redoubles here and gnubg 0-ply rolls: tavla 0-ply redoubles.
            assert!(ours == "double" || ours == "roll", "{id}: {ours:?}");
        } else {
            assert_eq!(ours, gnubg, "{id}");
        }
    }
}

/// Review (fifty-eighth round): gnubg's client ends each request with a NUL byte after the
/// line end, which then led the next request; every request after the first was refused.
#[test]
fn requests_as_gnubg_sends_them_with_a_nul_after_each() {
    let f01 = vectors()[0]["fibs"].as_str().unwrap().to_string();
    let input = format!("{f01}\n\0{f01}\n\0{f01}\n\0");
    let out = common::stdout(&common::tavla_stdin(&["external", "--stdio"], &input));
    let answers: Vec<&str> = out.lines().collect();
    assert_eq!(answers.len(), 3, "{out:?}");
    assert!(
        answers.iter().all(|a| *a == answers[0] && a.ends_with(' ')),
        "{out:?}"
    );
    let o = common::tavla(&["external", "--connections", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("--connections must be at least 1"));
}

#[test]
fn evaluations_version_errors_and_exit() {
    let f01 = vectors()[0]["fibs"].as_str().unwrap().to_string();
    let gnubg: Vec<f64> = vectors()[0]["gnubg_external_evaluation_0ply_cubeless"][0]
        .as_str()
        .unwrap()
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    let answers = session(&[
        format!("evaluation fibsboard {f01} plies 0 cubeless"),
        "version".to_string(),
        "frobnicate".to_string(),
        "board:1:2:3".to_string(),
        format!("{f01} resignation 7"),
        format!("evaluation fibsboard {f01} noise 0.5"),
        "exit".to_string(),
        "version".to_string(),
    ]);
    // Six numbers, each within 0.02 of gnubg's 0-ply figures (the last, in this 3-point
    // match at 0-0, the chance of winning the match).
    let ours: Vec<f64> = answers[0]
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(ours.len(), 6, "{answers:?}");
    for (o, g) in ours.iter().zip(&gnubg) {
        assert!((o - g).abs() < 0.02, "{ours:?} against gnubg's {gnubg:?}");
    }
    assert_eq!(answers[1], "Interface: 2");
    assert_eq!(answers[2], "RFBF: 0");
    assert!(answers[4].starts_with("Software: tavla "), "{answers:?}");
    assert!(
        answers[5].starts_with("Error: unknown request `frobnicate`"),
        "{answers:?}"
    );
    assert!(answers[6].starts_with("Error: the board:"), "{answers:?}");
    assert!(answers[6].contains("53 tokens"), "{answers:?}");
    assert_eq!(
        answers[7],
        "Error: resignation: expected 1, 2 or 3, got `7`"
    );
    assert!(answers[8].starts_with("Error: noise"), "{answers:?}");
    // Nothing is answered after `exit`.
    assert_eq!(answers.len(), 9, "{answers:?}");
}

/// `evaluation` reads gnubg's options and keeps its defaults: the equity cubeless unless
/// `cubeful` or `cube on` is asked, cubeful money play under the Jacoby rule unless
/// `jacobyrule off` (gnubg 1.07's socket on this money board: 0.067119 with no option or
/// `cubeless`, 0.084376 with `cubeful`, 0.092086 with `cubeful jacobyrule off`).
#[test]
fn evaluation_options_and_defaults_are_gnubgs() {
    let money = "board:You:someplayer:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
    let ask = |options: &str| format!("evaluation fibsboard {money} plies 0 {options}");
    let answers = session(&[
        ask(""),
        ask("cubeless"),
        ask("cube off crawfordrule on beavers on resignation 1 prune off deterministic on"),
        ask("cubeful"),
        ask("cube on jacobyrule on"),
        ask("cubeful jacobyrule off"),
        ask("cube maybe"),
        String::new(),
        "exit".to_string(),
    ]);
    let equity = |i: usize| -> f64 {
        let v: Vec<f64> = answers[i]
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(v.len(), 6, "{answers:?}");
        v[5]
    };
    let cubeless = equity(0);
    assert_eq!(answers[1], answers[0]);
    assert_eq!(answers[2], answers[0]);
    let (jacoby, no_jacoby) = (equity(3), equity(5));
    assert_eq!(answers[4], answers[3]);
    // The cube is worth something to the side on roll, and more without the Jacoby rule, as
    // in gnubg's figures; each within 0.03 of gnubg's.
    assert!(cubeless < jacoby && jacoby < no_jacoby, "{answers:?}");
    for (ours, gnubg) in [
        (cubeless, 0.067119),
        (jacoby, 0.084376),
        (no_jacoby, 0.092086),
    ] {
        assert!(
            (ours - gnubg).abs() < 0.03,
            "{ours} against gnubg's {gnubg}"
        );
    }
    assert!(
        answers[6].starts_with("Error: cube: expected on or off"),
        "{answers:?}"
    );
    assert_eq!(answers[7], "Error: no command given");
    assert_eq!(answers.len(), 8, "{answers:?}");
}

/// A match longer than tavla's match equity table reaches (here 35 points, the side on roll
/// 1-away and the other 35-away) is refused, not played or valued as money; 32 points is
/// answered.
#[test]
fn a_match_beyond_the_table_is_refused() {
    let long = "board:You:someplayer:35:34:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:1:1";
    let within = long.replace(":35:34:0:", ":32:31:0:");
    let answers = session(&[
        format!("evaluation fibsboard {long}"),
        long.to_string(),
        format!("evaluation fibsboard {within}"),
        within,
    ]);
    let refused = "Error: the score 34-0 of a 35-point match is beyond tavla's match equity \
                   table (32-away at most)";
    assert_eq!(answers[0], refused);
    assert_eq!(answers[1], refused);
    let mwc: f64 = answers[2]
        .split_whitespace()
        .nth(5)
        .unwrap()
        .parse()
        .unwrap();
    assert!(mwc > 0.99, "{answers:?}");
    assert!(
        answers[3] == "roll" || answers[3] == "double",
        "{answers:?}"
    );
}

/// States no game is played on from get an error, not an answer: a finished game (the player
/// has borne off all 15), and a centred cube of 2 in a match (a turned cube has an owner).
#[test]
fn finished_games_and_centred_turned_cubes_in_matches_are_refused() {
    let finished = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:0:0:0:0:0:0:-5:0:0:0:0:-3:0:-5:0:0:0:0:0:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:15:0:0:0:2:0:0:0";
    let centred = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:2:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";
    let answers = session(&[finished.to_string(), centred.to_string()]);
    assert_eq!(
        answers,
        [
            "Error: the game is over in this position",
            "Error: a centred cube of 2 in a match: a turned cube has an owner (match play has \
             no automatic doubles)"
        ]
    );
}

/// `tavla external` on a free port with more arguments: the process, its stderr (after the
/// line that gives the address) and the address.
fn listening(args: &[&str]) -> (Child, BufReader<ChildStderr>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tavla"))
        .args(["external", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let address = first
        .trim()
        .strip_prefix("tavla external: listening on ")
        .unwrap_or_else(|| panic!("{first}"))
        .to_string();
    (child, stderr, address)
}

/// The first FIBS vector and `exit` sent on a new connection to `address`: all it answers.
fn first_vector_then_exit(address: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    let f01 = vectors()[0]["fibs"].as_str().unwrap().to_string();
    write!(stream, "{f01}\r\nexit\r\n").unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

#[test]
fn a_socket_serves_requests_until_exit() {
    let (mut child, _, address) = listening(&["--connections", "1"]);
    assert_eq!(first_vector_then_exit(&address), "24/18 13/11 \n");
    // One connection asked for: the server stops.
    let status = child.wait().unwrap();
    assert!(status.success());
    // A busy or bad address is refused with exit code 2.
    let o = common::tavla(&["external", "--listen", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("--listen nonsense"));
}

#[test]
fn a_silent_client_is_closed_and_the_next_one_served() {
    let (mut child, mut stderr, address) =
        listening(&["--connections", "2", "--idle-timeout", "1"]);
    // The first client connects, sends half a request and falls silent: the server closes
    // the connection after a second without a request.
    let mut silent = TcpStream::connect(&address).unwrap();
    write!(silent, "board:You:").unwrap();
    let mut nothing = String::new();
    silent.read_to_string(&mut nothing).unwrap();
    assert_eq!(nothing, "");
    let mut closed = String::new();
    stderr.read_line(&mut closed).unwrap();
    assert!(closed.contains("no request in 1 s"), "{closed}");
    // The second is served.
    assert_eq!(first_vector_then_exit(&address), "24/18 13/11 \n");
    assert!(child.wait().unwrap().success());
}
