//! `tavla serve`: the HTTP API, spoken to over a plain TCP socket.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

mod common;

/// A server on a free port, stopped when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&[], None)
    }

    /// A server with more arguments to `tavla serve`, and TAVLA_SERVE_TOKEN set to `token`
    /// (unset with `None`).
    fn start_with(args: &[&str], token: Option<&str>) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tavla"));
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .env_remove("TAVLA_SERVE_TOKEN");
        if let Some(token) = token {
            command.env("TAVLA_SERVE_TOKEN", token);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let address = line
            .trim()
            .strip_prefix("tavla serve: listening on http://")
            .unwrap_or_else(|| panic!("{line}"))
            .to_string();
        Server { child, address }
    }

    /// One request: the status and the body read as JSON.
    fn request(&self, method: &str, target: &str, body: &str, json: bool) -> (u16, Value) {
        self.request_with(method, target, body, json, "")
    }

    /// One request with more header lines (`headers`, each ending in CRLF).
    fn request_with(
        &self,
        method: &str,
        target: &str,
        body: &str,
        json: bool,
        headers: &str,
    ) -> (u16, Value) {
        let (status, _, text) = self.raw(method, target, body, json, headers);
        let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text:?}"));
        (status, value)
    }

    /// One request: the status, the head (lower case) and the body as text.
    fn raw(
        &self,
        method: &str,
        target: &str,
        body: &str,
        json: bool,
        headers: &str,
    ) -> (u16, String, String) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        let kind = if json {
            "application/json"
        } else {
            "text/plain"
        };
        write!(
            stream,
            "{method} {target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{headers}Content-Type: {kind}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        let status: u16 = reply[9..12].parse().unwrap();
        let (head, rest) = reply.split_once("\r\n\r\n").unwrap();
        // A chunked body: the chunks' sizes in hex on lines of their own.
        let text = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            let mut out = String::new();
            let mut r = rest;
            loop {
                let (size, after) = r.split_once("\r\n").unwrap();
                let n = usize::from_str_radix(size.trim(), 16).unwrap();
                if n == 0 {
                    break;
                }
                out.push_str(&after[..n]);
                r = &after[n + 2..];
            }
            out
        } else {
            rest.to_string()
        };
        (status, head.to_ascii_lowercase(), text)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_api_answers_as_the_commands_do() {
    let server = Server::start();
    let (status, v) = server.request("GET", "/v1/version", "", false);
    assert_eq!(status, 200);
    assert_eq!(v["name"], "tavla");
    // A hint: the same plays and values as `tavla hint --json`.
    let (status, v) = server.request(
        "GET",
        "/v1/hint?position=4HPwATDgc/ABMA&dice=31&ply=1&top=3",
        "",
        false,
    );
    assert_eq!(status, 200, "{v}");
    let cli = common::json(&common::tavla(&[
        "hint",
        "4HPwATDgc/ABMA",
        "31",
        "--ply",
        "1",
        "--top",
        "3",
        "--json",
    ]));
    assert_eq!(v, cli);
    assert_eq!(v[0]["play"], "8/5 6/5");
    // The same request as a JSON body.
    let (status, posted) = server.request(
        "POST",
        "/v1/hint",
        r#"{"position": "4HPwATDgc/ABMA", "dice": "31", "ply": 1, "top": 3}"#,
        true,
    );
    assert_eq!(status, 200);
    assert_eq!(posted, cli);
    // Review (fifty-eighth round): after an evaluation of the same position, whose search
    // left values in the cache, the hint differed in its last digits: each request starts
    // from an empty cache, as the command does.
    let hint_cli = cli;
    for _ in 0..2 {
        let (status, _) =
            server.request("GET", "/v1/eval?position=4HPwATDgc/ABMA&ply=2", "", false);
        assert_eq!(status, 200);
        let (_, again) = server.request(
            "GET",
            "/v1/hint?position=4HPwATDgc/ABMA&dice=31&ply=1&top=3",
            "",
            false,
        );
        assert_eq!(again, hint_cli);
    }
    // An evaluation with its cube decision, at a match score.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:0:7:10";
    let (status, v) = server.request(
        "POST",
        "/v1/eval",
        &format!(r#"{{"position": "{xgid}", "ply": 1}}"#),
        true,
    );
    assert_eq!(status, 200);
    let cli = common::json(&common::tavla(&["eval", xgid, "--ply", "1", "--json"]));
    assert_eq!(v, cli);
    assert!(v["cube"]["match_winning_chances"].is_array(), "{v}");
    // A temperature map, and the maps of two candidate plays: the command's.
    let (status, v) = server.request(
        "GET",
        "/v1/tempmap?position=4HPwATDgc/ABMA&ply=0",
        "",
        false,
    );
    assert_eq!(status, 200);
    let cli = common::json(&common::tavla(&["tempmap", "4HPwATDgc/ABMA", "--json"]));
    assert_eq!(v, cli);
    assert_eq!(v[0]["rolls"].as_array().unwrap().len(), 21);
    let (status, v) = server.request(
        "POST",
        "/v1/tempmap",
        r#"{"position": "4HPwATDgc/ABMA", "dice": "21", "plays": ["13/11 6/5", "24/23 13/11"]}"#,
        true,
    );
    assert_eq!(status, 200);
    let cli = common::json(&common::tavla(&[
        "tempmap",
        "4HPwATDgc/ABMA",
        "--dice",
        "21",
        "--play",
        "13/11 6/5",
        "--play",
        "24/23 13/11",
        "--json",
    ]));
    assert_eq!(v, cli);
    assert_eq!(v[1]["on_roll"], "o");
    // The same plays in a query string, separated by commas.
    let (status, by_get) = server.request(
        "GET",
        "/v1/tempmap?position=4HPwATDgc/ABMA&dice=21&plays=13/11%206/5,24/23%2013/11",
        "",
        false,
    );
    assert_eq!(status, 200, "{by_get}");
    assert_eq!(by_get, v);
    let (status, v) = server.request(
        "POST",
        "/v1/tempmap",
        r#"{"position": "4HPwATDgc/ABMA", "dice": "21", "plays": ["13/10 6/5"]}"#,
        true,
    );
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("play \"13/10 6/5\""),
        "{v}"
    );
    // A board diagram: `tavla show --svg -`, with the dice given.
    let (status, head, svg) = server.raw(
        "GET",
        "/v1/diagram?position=4HPwATDgc/ABMA&dice=31",
        "",
        false,
        "",
    );
    assert_eq!(status, 200);
    assert!(head.contains("content-type: image/svg+xml"), "{head}");
    let opening = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10";
    let cli = common::tavla(&["show", opening, "--svg", "-"]);
    assert_eq!(svg, String::from_utf8(cli.stdout).unwrap());
    let (status, v) = server.request("GET", "/v1/diagram?position=nonsense", "", false);
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("position"), "{v}");
    // Legal plays, and a position in every notation.
    let (_, v) = server.request(
        "GET",
        "/v1/moves?position=4HPwATDgc/ABMA&dice=66",
        "",
        false,
    );
    let cli = common::json(&common::tavla(&["moves", "4HPwATDgc/ABMA", "66", "--json"]));
    assert_eq!(v, cli);
    assert_eq!(v.as_array().unwrap().len(), 11, "{v}");
    let (_, v) = server.request("GET", "/v1/position?position=4HPwATDgc/ABMA", "", false);
    assert_eq!(
        v["xgid"],
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    );
    assert_eq!(v["pips"], serde_json::json!([167, 167]));
    assert_eq!(v["epc"], serde_json::json!([null, null]));
    assert_eq!(v["cube_owner"], "centre");
    // A bearoff: the effective pip counts, side on roll first, as `tavla show` gives them.
    let (_, b) = server.request(
        "GET",
        "/v1/position?position=XGID=---BBAA------------b--a-a-:1:1:1:00:0:0:0:0:10",
        "",
        false,
    );
    assert_eq!(b["pips"], serde_json::json!([25, 16]), "{b}");
    let epc = |i: usize| b["epc"][i].as_f64().unwrap();
    assert!(
        (epc(0) - 31.9316).abs() < 1e-3 && (epc(1) - 23.1).abs() < 0.05,
        "{b}"
    );
    assert_eq!(
        v["board"]["points"],
        serde_json::json!([
            0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2
        ])
    );
    assert_eq!(v["board"]["bar"], serde_json::json!([0, 0]));
    assert_eq!(v["board"]["off"], serde_json::json!([0, 0]));
    // A rollout, cubeful at the match score: the same as the command's.
    let (status, v) = server.request(
        "POST",
        "/v1/rollout",
        &format!(r#"{{"position": "{xgid}", "games": 36, "truncate": 6, "cube": true}}"#),
        true,
    );
    assert_eq!(status, 200, "{v}");
    let cli = common::json(&common::tavla(&[
        "rollout",
        xgid,
        "--games",
        "36",
        "--truncate",
        "6",
        "--cube",
        "--json",
    ]));
    assert_eq!(v, cli);
    assert!(v["match_winning_chances"].is_object(), "{v}");
    // The plays of a roll rolled out, cubeless and with the cube.
    for (query, flag, cube) in [
        ("", None, None),
        ("&cube=true", Some("--cube"), Some("money")),
    ] {
        let (status, v) = server.request(
            "GET",
            &format!("/v1/rollout?position=4HPwATDgc/ABMA&dice=42&top=2&games=36{query}"),
            "",
            false,
        );
        assert_eq!(status, 200, "{v}");
        let mut args = vec![
            "rollout",
            "4HPwATDgc/ABMA",
            "42",
            "--top",
            "2",
            "--games",
            "36",
        ];
        args.extend(flag);
        args.push("--json");
        assert_eq!(v, common::json(&common::tavla(&args)));
        assert_eq!(v["plays"].as_array().unwrap().len(), 2, "{v}");
        assert_eq!(v["cube"].as_str(), cube, "{v}");
    }
    // A time limit: the first games that fit in it (at least two), as the command gives them.
    let (status, mut v) = server.request(
        "GET",
        "/v1/rollout?position=4HPwATDgc/ABMA&games=100000&time_limit=1",
        "",
        false,
    );
    assert_eq!(status, 200, "{v}");
    let games = v["games"].as_u64().unwrap();
    assert!((2..100_000).contains(&games), "{v}");
    let asked = v.as_object_mut().unwrap().remove("games_asked");
    assert_eq!(asked, Some(100_000.into()), "{v}");
    let n = games.to_string();
    let mut cli = common::json(&common::tavla(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "--games",
        &n,
        "--json",
    ]));
    cli.as_object_mut().unwrap().remove("games_asked");
    assert_eq!(v, cli);
    // A record analysed.
    let record = std::fs::read_to_string(common::data("analyse/random-cubeless.mat")).unwrap();
    let (status, v) = server.request("POST", "/v1/analyse?ply=0", &record, false);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["games"], 4);
    assert_eq!(v["players"][0]["unforced_moves"], 59);
    // A record whose result does not fit its game is refused as `tavla analyse` refuses it.
    let edited = record.replacen("Wins 3 points", "Wins 5 points", 1);
    let (status, v) = server.request("POST", "/v1/analyse?ply=0", &edited, false);
    assert_eq!(status, 400, "{v}");
    let error = v["error"].as_str().unwrap();
    assert!(
        error.starts_with("the record: game 1: line 29: wins 5 points"),
        "{error}"
    );
}

#[test]
fn bad_requests_get_400_and_the_reason() {
    let server = Server::start();
    // A JSON body is read as such whatever its Content-Type (curl -d sends a form's).
    let body = r#"{"position": "4HPwATDgc/ABMA", "ply": 0}"#;
    let (status, plain) = server.request("POST", "/v1/eval", body, false);
    assert_eq!(status, 200, "{plain}");
    assert_eq!(server.request("POST", "/v1/eval", body, true).1, plain);
    // A record longer than one request may analyse is refused before any work.
    let mat = std::env::temp_dir().join(format!("tavla-serve-long-{}.mat", std::process::id()));
    let made = Command::new(env!("CARGO_BIN_EXE_tavla"))
        .args([
            "arena", "--a", "random", "--b", "random", "--games", "120", "--mat",
        ])
        .arg(&mat)
        .output()
        .unwrap();
    assert!(made.status.success());
    let record = std::fs::read_to_string(&mat).unwrap();
    std::fs::remove_file(&mat).unwrap();
    let (status, e) = server.request("POST", "/v1/analyse?ply=0", &record, false);
    assert_eq!(status, 400, "{e}");
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("at most 10000 a request"),
        "{e}"
    );
    let (status, e) = server.request("POST", "/v1/eval", r#"{"bogus": 1}"#, false);
    assert_eq!(status, 400);
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("unknown field `bogus`"),
        "{e}"
    );
    for (method, target, body, what) in [
        (
            "GET",
            "/v1/hint?position=foo&dice=31",
            "",
            "cannot read position",
        ),
        ("GET", "/v1/hint?dice=31", "", "missing field `position`"),
        // A `top` whose product with the games wraps a u64 is over the limit too.
        (
            "GET",
            "/v1/rollout?position=4HPwATDgc/ABMA&dice=31&games=100000&top=576460752303423488",
            "",
            "games: at most",
        ),
        (
            "GET",
            "/v1/eval?position=4HPwATDgc/ABMA&ply=9",
            "",
            "ply must be in 0..=3, got 9",
        ),
        ("GET", "/v1/moves?position=4HPwATDgc/ABMA", "", "no dice"),
        (
            "GET",
            "/v1/hint?position=4HPwATDgc/ABMA&dice=31&top=0",
            "",
            "top must be at least 1",
        ),
        (
            "GET",
            "/v1/hint?position=4HPwATDgc/ABMA&bogus=1",
            "",
            "bogus",
        ),
        ("POST", "/v1/hint", "{not json", "JSON"),
        // A field the endpoint does not read is refused, not ignored.
        (
            "GET",
            "/v1/position?position=4HPwATDgc/ABMA&dice=31",
            "",
            "field `dice` does not apply to /v1/position",
        ),
        (
            "GET",
            "/v1/moves?position=4HPwATDgc/ABMA&dice=31&ply=2",
            "",
            "field `ply` does not apply to /v1/moves, which reads position, dice",
        ),
        ("POST", "/v1/analyse", "hello", "the record"),
        (
            "GET",
            "/v1/rollout?position=4HPwATDgc/ABMA&games=1000000",
            "",
            "at most 100000",
        ),
        (
            "GET",
            "/v1/rollout?position=4HPwATDgc/ABMA&dice=31&games=30000",
            "",
            "over all the plays",
        ),
    ] {
        let (status, v) = server.request(
            method,
            target,
            body,
            method == "POST" && target != "/v1/analyse",
        );
        assert_eq!(status, 400, "{target}: {v}");
        let error = v["error"].as_str().unwrap_or_else(|| panic!("{v}"));
        assert!(error.contains(what), "{target}: {error}");
        // Fields are named as fields, not as the command line's flags.
        assert!(!error.contains("--"), "{target}: {error}");
    }
    // No such endpoint, and a method an endpoint does not answer: JSON errors too.
    let (status, v) = server.request("GET", "/v1/nope", "", false);
    assert_eq!(status, 404, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("no such endpoint: /v1/nope"),
        "{v}"
    );
    let (status, v) = server.request("DELETE", "/v1/hint", "", false);
    assert_eq!(status, 405, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("does not answer DELETE"),
        "{v}"
    );
}

impl Server {
    /// Asks for rollout job `id` until it has ended (at most two minutes), and returns it.
    fn wait_for(&self, id: u64) -> Value {
        let start = std::time::Instant::now();
        loop {
            let (status, v) = self.request("GET", &format!("/v1/rollouts/{id}"), "", false);
            assert_eq!(status, 200, "{v}");
            if v["state"] != "running" {
                return v;
            }
            assert!(start.elapsed().as_secs() < 120, "still running: {v}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Forgets rollout `job`.
    fn forget(&self, job: &Value) {
        let (status, v) = self.request("DELETE", &format!("/v1/rollouts/{}", job["id"]), "", false);
        assert_eq!(status, 200, "{v}");
    }
}

/// Each play of an ended rollout `job` of the plays of a roll has its running estimate: `games`
/// games, whose mean is the play's equity in the result.
fn assert_running_plays(job: &Value, games: u64) {
    for play in job["result"]["plays"].as_array().unwrap() {
        let estimate = job["running"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["play"] == play["play"])
            .unwrap_or_else(|| panic!("{job}"));
        assert_eq!(estimate["games"].as_u64(), Some(games), "{job}");
        let (mean, equity) = (
            estimate["equity"].as_f64().unwrap(),
            play["equity"].as_f64().unwrap(),
        );
        assert!((mean - equity).abs() < 1e-6, "{mean} {equity}");
    }
}

#[test]
fn rollouts_run_in_the_background_and_stop_on_request() {
    let server = Server::start();
    // Started, watched to its end: the same result as the command's.
    let (status, v) = server.request(
        "POST",
        "/v1/rollouts",
        r#"{"position": "4HPwATDgc/ABMA", "games": 72, "seed": 3}"#,
        true,
    );
    assert_eq!(status, 202, "{v}");
    assert!(v["state"] == "running" || v["state"] == "done", "{v}");
    assert_eq!(v["games_total"], 72, "{v}");
    assert_eq!(
        v["request"],
        serde_json::json!({"position": "4HPwATDgc/ABMA", "games": 72, "seed": 3})
    );
    let id = v["id"].as_u64().unwrap();
    let done = server.wait_for(id);
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["games_done"], 72, "{done}");
    let cli = common::json(&common::tavla(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "--games",
        "72",
        "--seed",
        "3",
        "--json",
    ]));
    assert_eq!(done["result"], cli);
    // The running estimate, once every game is in, is the result's.
    let running = done["running"].as_array().unwrap();
    assert_eq!(running.len(), 1, "{done}");
    assert_eq!(running[0]["games"], 72);
    assert!(running[0].get("play").is_none(), "{done}");
    let equity = cli["equity"].as_f64().unwrap();
    assert!((running[0]["equity"].as_f64().unwrap() - equity).abs() < 1e-6);
    // The plays of a roll, cubeless: each play's running estimate, named.
    let (status, v) = server.request(
        "POST",
        "/v1/rollouts",
        r#"{"position": "4HPwATDgc/ABMA", "dice": "31", "top": 2, "games": 36}"#,
        true,
    );
    assert_eq!(status, 202, "{v}");
    let plays = server.wait_for(v["id"].as_u64().unwrap());
    assert_eq!(plays["state"], "done", "{plays}");
    assert_running_plays(&plays, 36);
    server.forget(&plays);

    // A position with the cube: each line's running estimate, named, in the result's units.
    let (status, v) = server.request(
        "POST",
        "/v1/rollouts",
        r#"{"position": "4HPwATDgc/ABMA", "games": 36, "truncate": 6, "cube": true}"#,
        true,
    );
    assert_eq!(status, 202, "{v}");
    let cubeful = server.wait_for(v["id"].as_u64().unwrap());
    assert_eq!(cubeful["state"], "done", "{cubeful}");
    assert_eq!(
        cubeful["running_units"], "cubeful equity per unit of the cube",
        "{cubeful}"
    );
    let running = cubeful["running"].as_array().unwrap();
    assert_eq!(running.len(), 2, "{cubeful}");
    for (line, key) in [("no double", "no_double"), ("double, take", "double_take")] {
        let estimate = running.iter().find(|r| r["line"] == line).unwrap();
        assert_eq!(estimate["games"], 36, "{cubeful}");
        let mean = estimate["equity"].as_f64().unwrap();
        let result = cubeful["result"][key].as_f64().unwrap();
        assert!((mean - result).abs() < 1e-9, "{line}: {mean} {result}");
    }
    assert_eq!(plays["running_units"], "cubeless equity");
    server.forget(&cubeful);

    // The plays of a roll with the cube (fields in the query string), stopped once two games
    // of each play are done: the first games of the full rollout, as the command gives them
    // (which plays two games at least).
    let (status, v) = server.request(
        "POST",
        "/v1/rollouts?position=4HPwATDgc/ABMA&dice=42&top=2&games=50000&cube=true&truncate=6",
        "",
        false,
    );
    assert_eq!(status, 202, "{v}");
    assert_eq!(v["games_total"], 100_000, "{v}");
    let big = v["id"].as_u64().unwrap();
    assert!(big > id);
    let start = std::time::Instant::now();
    loop {
        let (_, v) = server.request("GET", &format!("/v1/rollouts/{big}"), "", false);
        if v["games_done"].as_u64().unwrap() >= 4 {
            break;
        }
        assert!(start.elapsed().as_secs() < 60, "not two games played: {v}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (status, v) = server.request("POST", &format!("/v1/rollouts/{big}/stop"), "", false);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["stop_requested"], true, "{v}");
    let stopped = server.wait_for(big);
    assert_eq!(stopped["state"], "stopped", "{stopped}");
    let games = stopped["result"]["games"].as_u64().unwrap();
    assert!((2..50_000).contains(&games), "{stopped}");
    assert_eq!(stopped["result"]["games_asked"], 50_000, "{stopped}");
    let n = games.to_string();
    let mut cli = common::json(&common::tavla(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "42",
        "--top",
        "2",
        "--games",
        &n,
        "--cube",
        "--truncate",
        "6",
        "--json",
    ]));
    cli["games_asked"] = 50_000.into();
    assert_eq!(stopped["result"], cli);
    // Each play's running estimate: the stopped rollout's games, as its result has them.
    assert_eq!(
        stopped["running_units"],
        "cubeful equity per unit of the cube"
    );
    assert_running_plays(&stopped, games);

    // Both are listed, oldest first; a forgotten one is gone.
    let (_, list) = server.request("GET", "/v1/rollouts", "", false);
    let ids: Vec<u64> = list["rollouts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [id, big]);
    let (status, v) = server.request("DELETE", &format!("/v1/rollouts/{id}"), "", false);
    assert_eq!((status, &v["state"]), (200, &Value::from("done")), "{v}");
    let (status, v) = server.request("GET", &format!("/v1/rollouts/{id}"), "", false);
    assert_eq!(status, 404, "{v}");
    assert!(v["error"].as_str().unwrap().contains("no rollout"), "{v}");

    // At most four run at once; the fifth is refused until one is forgotten.
    let mut running = Vec::new();
    for _ in 0..4 {
        let (status, v) = server.request(
            "POST",
            "/v1/rollouts",
            r#"{"position": "4HPwATDgc/ABMA", "games": 100000}"#,
            true,
        );
        assert_eq!(status, 202, "{v}");
        running.push(v["id"].as_u64().unwrap());
    }
    let fifth = r#"{"position": "4HPwATDgc/ABMA", "games": 100000}"#;
    let (status, v) = server.request("POST", "/v1/rollouts", fifth, true);
    assert_eq!(status, 503, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("rollouts are running"),
        "{v}"
    );
    let (status, _) = server.request("DELETE", &format!("/v1/rollouts/{}", running[0]), "", false);
    assert_eq!(status, 200);
    // The forgotten one ends once its games in play are done.
    let start = std::time::Instant::now();
    let id = loop {
        let (status, v) = server.request("POST", "/v1/rollouts", fifth, true);
        if status == 202 {
            break v["id"].as_u64().unwrap();
        }
        assert_eq!(status, 503, "{v}");
        assert!(start.elapsed().as_secs() < 60, "{v}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    for id in running[1..].iter().chain([&id]) {
        let (status, _) = server.request("DELETE", &format!("/v1/rollouts/{id}"), "", false);
        assert_eq!(status, 200);
    }
}

#[test]
fn bad_rollout_jobs_get_the_reason() {
    let server = Server::start();
    for (method, target, body, status, what) in [
        (
            "POST",
            "/v1/rollouts",
            r#"{"position": "foo"}"#,
            400,
            "cannot read position",
        ),
        (
            "POST",
            "/v1/rollouts",
            r#"{"position": "4HPwATDgc/ABMA", "games": 1}"#,
            400,
            "games 1: a rollout plays at least 2 games",
        ),
        (
            "POST",
            "/v1/rollouts",
            r#"{"position": "XGID=-B-----------------b------:0:0:1:00:3:4:1:5:10", "cube": true}"#,
            400,
            "cube: this is the Crawford game",
        ),
        (
            "POST",
            "/v1/rollouts",
            r#"{"position": "4HPwATDgc/ABMA", "dice": "31", "top": 0}"#,
            400,
            "top must be at least 1",
        ),
        (
            "POST",
            "/v1/rollouts",
            r#"{"position": "4HPwATDgc/ABMA", "bogus": 1}"#,
            400,
            "bogus",
        ),
        (
            "POST",
            "/v1/rollouts",
            r#"{"position": "4HPwATDgc/ABMA", "jacoby": true}"#,
            400,
            "jacoby: the Jacoby rule is for cubeful rollouts",
        ),
        (
            "POST",
            "/v1/rollouts",
            r#"{"position": "4HPwATDgc/ABMA", "games": 1000000}"#,
            400,
            "at most 100000",
        ),
        ("GET", "/v1/rollouts/7", "", 404, "no rollout 7"),
        ("POST", "/v1/rollouts/7/stop", "", 404, "no rollout 7"),
        ("DELETE", "/v1/rollouts/7", "", 404, "no rollout 7"),
        ("GET", "/v1/rollouts/seven", "", 400, "seven"),
    ] {
        let (got, v) = server.request(method, target, body, body.starts_with('{'));
        assert_eq!(got, status, "{target}: {v}");
        let error = v["error"].as_str().unwrap_or_else(|| panic!("{v}"));
        assert!(error.contains(what), "{target}: {error}");
        // Fields are named as fields, not as the command line's flags.
        assert!(!error.contains("--"), "{target}: {error}");
    }
    // Nothing refused is kept.
    let (_, list) = server.request("GET", "/v1/rollouts", "", false);
    assert_eq!(list["rollouts"], serde_json::json!([]));
}

#[test]
fn a_token_guards_the_api() {
    let dir = std::env::temp_dir().join(format!("tavla-serve-token-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("token");
    std::fs::write(&file, "s3cret\n").unwrap();
    let server = Server::start_with(&["--token-file", file.to_str().unwrap()], None);
    let target = "/v1/position?position=4HPwATDgc/ABMA";
    // The version is open to all; everything else needs the token.
    let (status, v) = server.request("GET", "/v1/version", "", false);
    assert_eq!((status, &v["name"]), (200, &Value::from("tavla")), "{v}");
    for (headers, reason) in [
        ("", "only requests with Authorization: Bearer"),
        ("Authorization: Bearer nope\r\n", "not the server's"),
        (
            "Authorization: s3cret\r\n",
            "only requests with Authorization: Bearer",
        ),
    ] {
        let (status, v) = server.request_with("GET", target, "", false, headers);
        assert_eq!(status, 401, "{headers:?}: {v}");
        assert!(v["error"].as_str().unwrap().contains(reason), "{v}");
    }
    let (status, _) = server.request("POST", "/v1/rollouts", r#"{"position": "x"}"#, true);
    assert_eq!(status, 401);
    let (status, _) = server.request("POST", "/v1/games", "", true);
    assert_eq!(status, 401);
    // The web page is open too: it asks for the token and sends it with its requests.
    let (status, _, page) = server.raw("GET", "/", "", false, "");
    assert_eq!(status, 200);
    assert!(page.contains("Bearer"), "{page}");
    let (status, v) =
        server.request_with("GET", target, "", false, "Authorization: Bearer s3cret\r\n");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["pips"], serde_json::json!([167, 167]));
    // The scheme's name in any case, as HTTP has it.
    let (status, _) =
        server.request_with("GET", target, "", false, "authorization: bearer s3cret\r\n");
    assert_eq!(status, 200);
    drop(server);
    // The same token from the environment.
    let server = Server::start_with(&[], Some("s3cret"));
    let (status, _) = server.request("GET", target, "", false);
    assert_eq!(status, 401);
    let (status, _) =
        server.request_with("GET", target, "", false, "Authorization: Bearer s3cret\r\n");
    assert_eq!(status, 200);
    drop(server);

    // A token file that cannot serve is refused at the start, with the reason.
    std::fs::write(&file, "\n").unwrap();
    for (args, what) in [
        (
            vec!["--token-file", file.to_str().unwrap()],
            "the token is empty",
        ),
        (
            vec!["--token-file", "/nonexistent/token"],
            "--token-file /nonexistent/token",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tavla"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(&args)
            .env_remove("TAVLA_SERVE_TOKEN")
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(what), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--cors`: the answers to a page of an allowed origin carry the headers that let it read
/// them, a preflight is answered before the token is asked for, other origins get no such
/// headers, and without the option no answer has them; bad origins are refused at the start.
#[test]
fn cors_lets_the_pages_of_the_origins_given_call_the_api() {
    let origin = "http://localhost:5173";
    let server = Server::start_with(
        &["--cors", origin, "--cors", "https://gui.example"],
        Some("s3cret"),
    );
    let from = |o: &str| format!("Origin: {o}\r\n");
    // A preflight, as a browser sends it before a POST with a token: no token on it.
    let (status, head, _) = server.raw(
        "OPTIONS",
        "/v1/eval",
        "",
        false,
        &format!(
            "{}Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: authorization, content-type\r\n",
            from(origin)
        ),
    );
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains(&format!("access-control-allow-origin: {origin}")),
        "{head}"
    );
    assert!(
        head.contains("access-control-allow-methods: get,post,delete"),
        "{head}"
    );
    assert!(
        head.contains("access-control-allow-headers: content-type,authorization"),
        "{head}"
    );
    // The request itself, with the token, and a refusal without it: both readable.
    let (status, head, body) = server.raw(
        "GET",
        "/v1/position?position=4HPwATDgc/ABMA",
        "",
        false,
        &format!("{}Authorization: Bearer s3cret\r\n", from(origin)),
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        head.contains(&format!("access-control-allow-origin: {origin}")),
        "{head}"
    );
    assert!(
        head.contains("access-control-expose-headers: location"),
        "{head}"
    );
    let (status, head, _) = server.raw(
        "GET",
        "/v1/hint?position=4HPwATDgc/ABMA",
        "",
        false,
        &from("https://gui.example"),
    );
    assert_eq!(status, 401);
    assert!(
        head.contains("access-control-allow-origin: https://gui.example"),
        "{head}"
    );
    // Another origin: no permission.
    let (_, head, _) = server.raw(
        "GET",
        "/v1/version",
        "",
        false,
        &from("http://evil.example"),
    );
    assert!(!head.contains("access-control-allow-origin"), "{head}");
    drop(server);
    // Any origin; an app shell's and an IPv6 one are origins too.
    for origin in [
        "tauri://localhost",
        "http://[::1]:8080",
        "http://127.0.0.1:3000",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tavla"))
            .args(["serve", "--listen", "127.0.0.1:99999", "--cors", origin])
            .output()
            .unwrap();
        // Refused for the address, not the origin.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--listen") && !stderr.contains("--cors"),
            "{stderr}"
        );
    }
    let any = Server::start_with(&["--cors", "*"], None);
    let (status, head, _) = any.raw(
        "GET",
        "/v1/version",
        "",
        false,
        &from("http://a.example:8000"),
    );
    assert_eq!(status, 200);
    assert!(head.contains("access-control-allow-origin: *"), "{head}");
    drop(any);
    // Without --cors: no such headers.
    let plain = Server::start();
    let (_, head, _) = plain.raw("GET", "/v1/version", "", false, &from(origin));
    assert!(!head.contains("access-control-"), "{head}");
    drop(plain);
    for (origin, why) in [
        ("localhost:5173", "--cors localhost:5173: no scheme"),
        (
            "http://localhost:5173/",
            "--cors http://localhost:5173/: an origin has no path",
        ),
        (
            "http://host:99999",
            "the port `99999` is not a number from 1 to 65535",
        ),
        ("http://host:080", "the port `080` is not"),
        ("https://", "--cors https://: no host"),
        ("http://[::1", "a `[` without its `]`"),
        ("http://[zz]", "`[zz]` is not an IPv6 address"),
        ("http://a]b", "`a]b` is not a host name"),
        ("http://a:b:80", "the port `b:80` is not"),
        (
            "http://Localhost",
            "`Localhost` is not a host name in lower case",
        ),
        ("http://-x.example", "is not a host name"),
        (
            "https://gui.example:443",
            "browsers leave out https's own port 443",
        ),
        ("HTTP://x", "`HTTP` is not a scheme in lower case"),
        ("null", "`null` is refused"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tavla"))
            .args(["serve", "--listen", "127.0.0.1:0", "--cors", origin])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{origin}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(why) && stderr.lines().count() == 1,
            "{stderr}"
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tavla"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--cors",
            "*",
            "--cors",
            "http://a.b",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The person's side of a game over HTTP: the first legal play, rolls, takes, rejects; the
/// number of actions until the game is over.
fn play_out(server: &Server, id: u64) -> usize {
    let mut actions = 0;
    loop {
        let (status, v) = server.request("GET", &format!("/v1/games/{id}"), "", false);
        assert_eq!(status, 200, "{v}");
        let (action, body) = match v["phase"].as_str().unwrap() {
            "roll" => ("roll", String::new()),
            "move" => (
                "move",
                serde_json::json!({ "play": v["plays"][0]["play"] }).to_string(),
            ),
            "take" => ("take", String::new()),
            "resignation" => ("reject", String::new()),
            "over" | "finished" => return actions,
            other => panic!("phase {other}: {v}"),
        };
        let (status, after) =
            server.request("POST", &format!("/v1/games/{id}/{action}"), &body, true);
        assert_eq!(status, 200, "{action} {body}: {after}");
        actions += 1;
        assert!(actions < 2000, "the game does not end");
    }
}

#[test]
fn games_are_played_over_http() {
    let server = Server::start();
    // The web page that plays through the API.
    let (status, head, page) = server.raw("GET", "/", "", false, "");
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/html"), "{head}");
    assert!(page.contains("<svg id=\"board\"") && page.contains("/v1/games"));

    let request = r#"{"seed": 21, "ply": 0, "cube": true}"#;
    let (status, head, text) = server.raw("POST", "/v1/games", request, true, "");
    assert_eq!(status, 201, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let id = v["id"].as_u64().unwrap();
    assert!(
        head.contains(&format!("location: /v1/games/{id}")),
        "{head}"
    );
    assert_eq!(v["seed"], 21);
    // The engine's advice on the decision at hand.
    let (status, h) = server.request(
        "GET",
        &format!("/v1/games/{id}/hint?ply=1&top=3"),
        "",
        false,
    );
    assert_eq!(status, 200, "{h}");
    match v["phase"].as_str().unwrap() {
        "move" => {
            assert_eq!(h["for"], "move");
            assert!(!h["hint"].as_array().unwrap().is_empty());
        }
        _ => {
            assert_eq!(h["for"], "cube");
            assert!(h["eval"]["cube"]["action"].is_string(), "{h}");
        }
    }
    assert!(play_out(&server, id) > 0);
    let (status, v) = server.request("GET", &format!("/v1/games/{id}"), "", false);
    assert_eq!(status, 200);
    assert_eq!(v["phase"], "finished", "{v}");
    assert!(v["result"]["points"].as_u64().unwrap() >= 1);
    // Nothing more to do in a finished money game: 409 and the reason.
    let (status, e) = server.request("POST", &format!("/v1/games/{id}/roll"), "", true);
    assert_eq!(status, 409, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("cannot roll now"),
        "{e}"
    );
    let (status, e) = server.request("POST", &format!("/v1/games/{id}/next"), "", true);
    assert_eq!(status, 409, "{e}");
    let (status, e) = server.request("GET", &format!("/v1/games/{id}/hint"), "", false);
    assert_eq!(status, 409, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("the game is over"),
        "{e}"
    );
    // The record, as gnubg and `tavla analyse` read it.
    let (status, head, mat) = server.raw("GET", &format!("/v1/games/{id}/record"), "", false, "");
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/plain"), "{head}");
    assert!(
        mat.contains("0 point match") && mat.contains("Wins"),
        "{mat}"
    );
    let (status, report) = server.request("POST", "/v1/analyse?ply=0", &mat, false);
    assert_eq!(status, 200, "{report}");
    // The same seed throws the same game.
    let (_, a) = server.request("POST", "/v1/games", request, true);
    let id2 = a["id"].as_u64().unwrap();
    play_out(&server, id2);
    let (_, _, mat2) = server.raw("GET", &format!("/v1/games/{id2}/record"), "", false, "");
    assert_eq!(mat, mat2);
    // Forgotten on request.
    let (status, _) = server.request("DELETE", &format!("/v1/games/{id}"), "", false);
    assert_eq!(status, 200);
    let (status, e) = server.request("GET", &format!("/v1/games/{id}"), "", false);
    assert_eq!(status, 404, "{e}");
    assert!(e["error"]
        .as_str()
        .unwrap()
        .contains(&format!("no game {id}")));
}

#[test]
fn bad_game_requests_get_the_reason() {
    let server = Server::start();
    for (body, what) in [
        (r#"{"ply": 9}"#, "ply must be in 0..=3"),
        (r#"{"side": "w"}"#, "side must be"),
        (r#"{"match_length": 999}"#, "match_length"),
        (r#"{"bogus": 1}"#, "unknown field `bogus`"),
        ("{", "the JSON body"),
        // Review (fifty-eighth round): text after the object, an array for the object, and
        // a syntax error named as a field `?`.
        (r#"{"ply": 0} trailing"#, "text after its object"),
        (r#"{"ply": 0}{}"#, "text after its object"),
        ("[0]", "expected an object"),
        ("{bad", "the JSON body: key must be a string"),
    ] {
        let (status, e) = server.request("POST", "/v1/games", body, true);
        assert_eq!(status, 400, "{body}: {e}");
        assert!(e["error"].as_str().unwrap().contains(what), "{body}: {e}");
    }
    // Review: fields in the query string of a POST were ignored and the request carried out
    // with the defaults (a resignation of a single game among them, which cannot be undone);
    // endpoints that read no query string refuse one.
    let (status, e) = server.request("POST", "/v1/games?ply=0&cube=false", "", true);
    assert_eq!(status, 400, "{e}");
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("/v1/games reads its fields from a JSON body"),
        "{e}"
    );
    for target in ["/v1/version?x=1", "/v1/rollouts?x=1", "/v1/games/1?x=1"] {
        let (status, e) = server.request("GET", target, "", false);
        assert_eq!(status, 400, "{target}: {e}");
        assert!(
            e["error"]
                .as_str()
                .unwrap()
                .contains("takes no query string"),
            "{e}"
        );
    }
    let (status, e) = server.request("GET", "/v1/games/abc", "", false);
    assert_eq!(status, 400, "{e}");
    let (status, e) = server.request("POST", "/v1/games/77/roll", "", true);
    assert_eq!(status, 404, "{e}");
    // A seed where the person opens, with a move to make.
    let (id, v) = (0..100)
        .find_map(|seed| {
            let body = format!(r#"{{"seed": {seed}, "ply": 0}}"#);
            let (_, v) = server.request("POST", "/v1/games", &body, true);
            (v["phase"] == "move").then(|| (v["id"].as_u64().unwrap(), v))
        })
        .unwrap();
    let path = format!("/v1/games/{id}/move");
    for (body, status, what) in [
        (r#"{"play": "24/1"}"#, 400, "Illegal"),
        (r#"{"play": "hello"}"#, 400, "Cannot read `hello`"),
        ("", 400, "missing field `play`"),
        (r#"{"plays": "8/5"}"#, 400, "unknown field `plays`"),
    ] {
        let (s, e) = server.request("POST", &path, body, true);
        assert_eq!(s, status, "{body}: {e}");
        assert!(e["error"].as_str().unwrap().contains(what), "{body}: {e}");
    }
    let (s, e) = server.request("POST", &format!("/v1/games/{id}/take"), "", true);
    assert_eq!(s, 409, "{e}");
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("cannot take now: move"),
        "{e}"
    );
    let (s, e) = server.request("POST", &format!("/v1/games/{id}/jump"), "", true);
    assert_eq!(s, 400, "{e}");
    let (s, e) = server.request(
        "POST",
        &format!("/v1/games/{id}/resign?level=gammon"),
        "",
        true,
    );
    assert_eq!(s, 400, "{e}");
    // None of it changed the game.
    let (_, after) = server.request("GET", &format!("/v1/games/{id}"), "", false);
    assert_eq!(after, v);
}

#[test]
fn the_tutor_judges_the_persons_decisions_and_holds_back_errors() {
    let server = Server::start();
    for (body, what) in [
        (r#"{"tutor_warn": 0.04}"#, "only with the tutor"),
        (
            r#"{"tutor": true, "tutor_warn": 2}"#,
            "above 0 and at most 1",
        ),
    ] {
        let (status, e) = server.request("POST", "/v1/games", body, true);
        assert_eq!(status, 400, "{body}: {e}");
        assert!(e["error"].as_str().unwrap().contains(what), "{body}: {e}");
    }
    let request = r#"{"seed": 11, "ply": 0, "cube": true, "tutor": true, "tutor_warn": 0.08}"#;
    let (status, v) = server.request("POST", "/v1/games", request, true);
    assert_eq!(status, 201, "{v}");
    let id = v["id"].as_u64().unwrap();
    assert_eq!(v["tutor"]["plays"], 0);
    assert_eq!(v["tutor"]["warn"], 0.08);
    let (mut warnings, mut actions) = (0, 0);
    loop {
        let (_, v) = server.request("GET", &format!("/v1/games/{id}"), "", false);
        let (action, play) = match v["phase"].as_str().unwrap() {
            "roll" => ("roll", None),
            // The first play listed: often a poor one.
            "move" => ("move", Some(v["plays"][0]["play"].clone())),
            "take" => ("take", None),
            "resignation" => ("reject", None),
            _ => break,
        };
        let path = format!("/v1/games/{id}/{action}");
        if action == "move" {
            let (status, e) =
                server.request("POST", &path, r#"{"play": "24/1", "anyway": true}"#, true);
            assert_eq!(status, 400, "{e}");
            assert!(e["error"].as_str().unwrap().contains("Illegal"), "{e}");
        }
        let body = serde_json::json!({ "play": play }).to_string();
        let (status, after) = server.request("POST", &path, &body, true);
        assert_eq!(status, 200, "{after}");
        if let Some(w) = after.get("warning") {
            // Held back: the game as it was, and the reason.
            warnings += 1;
            assert!(w["loss"].as_f64().unwrap() >= 0.08, "{w}");
            assert_eq!(after["log"], v["log"]);
            assert_eq!(after["phase"], v["phase"]);
            let body = serde_json::json!({ "play": play, "anyway": true }).to_string();
            let (status, done) = server.request("POST", &path, &body, true);
            assert_eq!(status, 200, "{done}");
            assert!(done.get("warning").is_none(), "{done}");
            let judged = done["log"]
                .as_array()
                .unwrap()
                .iter()
                .rfind(|e| e["side"] == "you" && e.get("tutor").is_some())
                .unwrap()
                .clone();
            assert_eq!(judged["tutor"]["loss"], w["loss"], "{judged}");
        }
        actions += 1;
        assert!(actions < 2000, "the game does not end");
    }
    assert!(warnings > 0, "no play of the game lost 0.08");
    let (_, v) = server.request("GET", &format!("/v1/games/{id}"), "", false);
    let t = &v["tutor"];
    let count = |k: &str| t[k].as_u64().unwrap();
    let errors = count("checker_bad")
        + count("checker_very_bad")
        + count("cube_errors")
        + count("wrong_resignations");
    assert!(errors >= warnings, "{t}");
    assert!(t["error_rate"].as_f64().unwrap() > 0.0, "{t}");
}

#[test]
fn the_server_bounds_its_work_and_names_what_it_refuses() {
    let server = Server::start();
    let error = |(status, v): (u16, Value)| (status, v["error"].as_str().unwrap().to_string());
    // A JSON body's error names its field.
    let (status, e) = error(server.request("POST", "/v1/eval", r#"{"position": 5}"#, true));
    assert_eq!(status, 400);
    assert!(
        e.starts_with("the JSON body: field `position`: invalid type"),
        "{e}"
    );
    let (status, e) = error(server.request("POST", "/v1/tempmap", r#"{"plays": 5}"#, true));
    assert_eq!(status, 400);
    assert!(e.contains("field `plays`: expected a list of plays"), "{e}");
    // A POST's fields are its body's; a query string beside them is refused.
    let body = r#"{"position": "4HPwATDgc/ABMA"}"#;
    let (status, e) = error(server.request("POST", "/v1/eval?ply=1", body, true));
    assert_eq!(status, 400);
    assert!(e.contains("not the query string"), "{e}");
    let (status, e) = error(server.request("POST", "/v1/rollouts?games=10", body, true));
    assert_eq!(status, 400);
    assert!(e.contains("not both"), "{e}");
    // Fields an endpoint does not read are refused everywhere.
    let (status, e) = error(server.request(
        "GET",
        "/v1/diagram?position=4HPwATDgc/ABMA&ply=3",
        "",
        false,
    ));
    assert_eq!(status, 400);
    assert!(
        e.contains("field `ply` does not apply to /v1/diagram"),
        "{e}"
    );
    let (status, e) = error(server.request("POST", "/v1/analyse?games=5", "x", false));
    assert_eq!(status, 400);
    assert!(
        e.contains("field `games` does not apply to /v1/analyse"),
        "{e}"
    );
    let (status, game) = server.request("POST", "/v1/games", r#"{"seed": 3}"#, true);
    assert_eq!(status, 201, "{game}");
    let roll = format!("/v1/games/{}/roll", game["id"]);
    let (status, e) = error(server.request("POST", &roll, r#"{"play": "8/5 6/5"}"#, true));
    assert_eq!(status, 400);
    assert_eq!(e, "field `play` does not apply to roll, only to move");
    // A body over the limit is answered 413 in JSON.
    let big = "a".repeat(2 * 1024 * 1024 + 1);
    let (status, e) = error(server.request("POST", "/v1/analyse", &big, false));
    assert_eq!(status, 413);
    assert!(e.contains("over 2097152 bytes"), "{e}");
    // A rollout's games are bounded by its depth.
    let (status, e) = error(server.request(
        "GET",
        "/v1/rollout?position=4HPwATDgc/ABMA&ply=2&games=2000",
        "",
        false,
    ));
    assert_eq!(status, 400);
    assert!(
        e.starts_with("games: at most 1000 a request at ply 2"),
        "{e}"
    );
    // `top` without `dice` rolls out the plays of the position's own dice, as the CLI does.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10";
    let (status, v) = server.request(
        "GET",
        &format!("/v1/rollout?position={xgid}&top=2&games=2"),
        "",
        false,
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["plays"].as_array().unwrap().len(), 2, "{v}");
    let (status, e) = error(server.request(
        "GET",
        "/v1/rollout?position=4HPwATDgc/ABMA&top=2&games=2",
        "",
        false,
    ));
    assert_eq!(status, 400);
    assert!(e.contains("give the field `dice`"), "{e}");
    // The score is named by side, with the game's flags.
    let (status, v) = server.request(
        "GET",
        "/v1/position?position=XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:4:1:1:5:10",
        "",
        false,
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["score"], serde_json::json!({"x": 4, "o": 1}));
    assert_eq!(
        (v["turn"].as_str(), v["crawford"].as_bool()),
        (Some("o"), Some(true))
    );
    // At most four long computations at once: four rollouts asked for by clients that then
    // wait, and a fifth is answered 503. Once those clients hang up, their rollouts stop and
    // the server takes new ones.
    let long = "/v1/rollout?position=4HPwATDgc/ABMA&games=100000";
    let waiting: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = TcpStream::connect(&server.address).unwrap();
            write!(s, "GET {long} HTTP/1.1\r\nHost: test\r\n\r\n").unwrap();
            s
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let (status, e) = error(server.request("GET", long, "", false));
    assert_eq!(status, 503, "{e}");
    assert!(e.contains("long computations"), "{e}");
    drop(waiting);
    let start = std::time::Instant::now();
    loop {
        let (status, v) = server.request(
            "GET",
            "/v1/rollout?position=4HPwATDgc/ABMA&games=36",
            "",
            false,
        );
        if status == 200 {
            assert_eq!(v["games"], 36, "{v}");
            break;
        }
        assert_eq!(status, 503, "{v}");
        assert!(start.elapsed().as_secs() < 60, "the rollouts went on: {v}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn a_latin1_record_is_analysed_as_the_cli_reads_it() {
    let server = Server::start();
    let record = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/records/latin1.mat"
    ))
    .unwrap();
    assert!(
        String::from_utf8(record.clone()).is_err(),
        "the file is Latin-1"
    );
    let mut stream = TcpStream::connect(&server.address).unwrap();
    write!(
        stream,
        "POST /v1/analyse?ply=0 HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        record.len()
    )
    .unwrap();
    stream.write_all(&record).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("Jos\u{e9}"), "{reply}");
}
