//! `tavla serve`: the engine over HTTP, JSON in and out, for GUIs, bots and web pages.
//!
//! | request | answer |
//! |---|---|
//! | `GET /v1/version` | `{"name": "tavla", "version": ...}` |
//! | `GET /v1/position?position=P` | the position in every notation, with the side on roll, dice, cube and score |
//! | `GET /v1/moves?position=P&dice=31` | every legal play (as `tavla moves --json`) |
//! | `GET /v1/hint?position=P&dice=31&ply=2&top=5` | the best plays, ranked (as `tavla hint --json`) |
//! | `GET /v1/eval?position=P&ply=2` | outcome probabilities, equity and the cube decision (as `tavla eval --json`) |
//! | `GET /v1/rollout?position=P&games=1296&seed=1&ply=0&truncate=0&cube=false&time_limit=S` | a rollout (as `tavla rollout --json`; at most 100,000 games at 0-ply, fewer deeper; `time_limit` seconds, optional) |
//! | `POST /v1/analyse?ply=1` with a `.mat` or SGF record as the body | the analysis (as `tavla analyse --json`) |
//! | `POST /v1/rollouts` with `/v1/rollout`'s fields | 202 and a rollout job, running in the background ([`crate::rollout_jobs`]) |
//! | `GET /v1/rollouts/ID`, `POST /v1/rollouts/ID/stop`, `DELETE /v1/rollouts/ID`, `GET /v1/rollouts` | a job's state, progress and result; stopped; forgotten; all of them |
//! | `POST /v1/games`, `GET /v1/games/ID`, `POST /v1/games/ID/ACTION`, `GET /v1/games/ID/hint`, `GET /v1/games/ID/record`, `DELETE /v1/games/ID` | games against the engine ([`crate::games`]) |
//! | `GET /` | the web page that plays them |
//!
//! `/v1/position`, `/v1/moves`, `/v1/hint`, `/v1/eval` and `/v1/rollout` answer a `GET` (fields
//! in the query string) and a `POST` (the same fields in a JSON object) alike. A position is in any
//! notation tavla reads (in a query string, `+` must be written `%2B`, as in any URL). Bad
//! input is answered with status 400 and `{"error": "..."}` naming what is wrong; each request
//! is computed on a blocking thread, several at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use axum::body::Bytes;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use clap::Args;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tavla_nn::search::{Prune, Search};
use tavla_nn::Weights;
use tavla_notation::{format, Notation};

use crate::analyse_cmd::{analyse_records, AnalyseArgs};
use crate::games::{self as web_games, Conflict, Decision, Games, NewGame};
use crate::input::{self, InputError};
use crate::nn_cmd::{
    eval_with, hint_with, rollout_watched, EngineArgs, EvalArgs, HintArgs, PruneArgs, RolloutArgs,
    RolloutWatch,
};
use crate::players::shared_bearoff;
use crate::rollout_jobs::{Busy, Job, Jobs};
use crate::tempmap_cmd::{tempmap_with, TempmapArgs};

/// `tavla serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Where to listen: HOST:PORT (port 0 picks a free one; the address is printed on stderr).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    listen: String,
    /// Answer only requests that carry `Authorization: Bearer TOKEN`, TOKEN being the first
    /// line of FILE (`GET /v1/version` excepted); the environment variable TAVLA_SERVE_TOKEN
    /// does the same without a file. Without either, every request is answered.
    #[arg(long, value_name = "FILE")]
    token_file: Option<std::path::PathBuf>,
    /// Let web pages of ORIGIN (`scheme://host[:port]`, as a browser sends it; repeat for
    /// more, or `*` for any) call the API: the answers carry CORS headers for them, and
    /// their preflight requests are answered (before the token is asked for). Without it the
    /// answers carry none, and only pages of the server's own origin can read them.
    #[arg(long, value_name = "ORIGIN")]
    cors: Vec<String>,
}

/// The CORS layer `--cors` asks for: `None` without it.
fn cors_layer(origins: &[String]) -> Result<Option<tower_http::cors::CorsLayer>> {
    use axum::http::{header, HeaderValue, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    if origins.is_empty() {
        return Ok(None);
    }
    let allow = if origins.iter().any(|o| o == "*") {
        if origins.len() > 1 {
            return Err(InputError(
                "--cors *: any origin already; give `*` alone, or the origins".into(),
            )
            .into());
        }
        AllowOrigin::any()
    } else {
        let values = origins
            .iter()
            .map(|o| parse_origin(o))
            .collect::<Result<Vec<HeaderValue>, String>>()
            .map_err(InputError)?;
        AllowOrigin::list(values)
    };
    Ok(Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers([header::CONTENT_TYPE, header::AUTHORIZATION])
            // The address of a rollout job or a game just started.
            .expose_headers([header::LOCATION])
            .max_age(Duration::from_secs(3600)),
    ))
}

/// An origin as browsers send it in `Origin`, which the CORS layer compares byte for byte: a
/// scheme (`http`, `https`, or an app shell's such as `tauri`), `://`, a host (a name, an IPv4
/// address or a bracketed IPv6 one, in lower case) and a port where it is not the scheme's
/// default, nothing after. What a browser would never send (upper case, `:443` on https, a
/// port with a leading zero, a path) is refused, as it could never match.
fn parse_origin(text: &str) -> Result<axum::http::HeaderValue, String> {
    let bad = |why: &str| format!("--cors {text}: {why} (an origin is scheme://host[:port])");
    if text == "null" {
        return Err(bad(
            "`null` is refused: it is the origin of every page opened from a file and of every \
             sandboxed page alike; serve the page from a web server and give its origin",
        ));
    }
    let (scheme, rest) = text
        .split_once("://")
        .ok_or_else(|| bad("no scheme (such as http://)"))?;
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_lowercase())
        && scheme
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+-.".contains(c));
    if !scheme_ok {
        return Err(bad(&format!("`{scheme}` is not a scheme in lower case")));
    }
    if rest.contains(['/', '?', '#']) {
        return Err(bad("an origin has no path, query or trailing slash"));
    }
    // An IPv6 host is bracketed: `[::1]:8080`.
    let (host, port) = if let Some(inner) = rest.strip_prefix('[') {
        let (address, after) = inner
            .split_once(']')
            .ok_or_else(|| bad("a `[` without its `]`"))?;
        if address.is_empty()
            || !address
                .chars()
                .all(|c| c.is_ascii_hexdigit() || ":.".contains(c))
        {
            return Err(bad(&format!("`[{address}]` is not an IPv6 address")));
        }
        if address.chars().any(|c| c.is_ascii_uppercase()) {
            return Err(bad("browsers write an IPv6 address in lower case"));
        }
        match after {
            "" => (address, None),
            _ => match after.strip_prefix(':') {
                Some(p) => (address, Some(p)),
                None => return Err(bad("a bracketed host is followed by `:port` or nothing")),
            },
        }
    } else {
        let (host, port) = match rest.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        };
        let label_ok = |l: &str| {
            !l.is_empty()
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        if !host.split('.').all(label_ok) {
            return Err(bad(&format!(
                "`{host}` is not a host name in lower case (letters, digits and `-`, in \
                 labels parted by `.`)"
            )));
        }
        (host, port)
    };
    if let Some(p) = port {
        let number = p
            .parse::<u16>()
            .ok()
            .filter(|_| !p.starts_with('0') && p.chars().all(|c| c.is_ascii_digit()))
            .ok_or_else(|| bad(&format!("the port `{p}` is not a number from 1 to 65535")))?;
        let default = match scheme {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        };
        if Some(number) == default {
            return Err(bad(&format!(
                "browsers leave out {scheme}'s own port {number}: give {scheme}://{host}"
            )));
        }
    }
    axum::http::HeaderValue::from_str(text).map_err(|e| bad(&e.to_string()))
}

/// The environment variable that holds the token when `--token-file` is not given.
const TOKEN_VARIABLE: &str = "TAVLA_SERVE_TOKEN";

/// The token requests must carry, if any: `--token-file`'s first line, or the environment's.
fn token(args: &ServeArgs) -> Result<Option<String>> {
    let (token, source) = match &args.token_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| InputError(format!("--token-file {}: {e}", path.display())))?;
            let line = text.lines().next().unwrap_or("").trim().to_string();
            (line, format!("--token-file {}", path.display()))
        }
        None => match std::env::var(TOKEN_VARIABLE) {
            Ok(v) => (v.trim().to_string(), TOKEN_VARIABLE.to_string()),
            Err(std::env::VarError::NotPresent) => return Ok(None),
            Err(e) => return Err(InputError(format!("{TOKEN_VARIABLE}: {e}")).into()),
        },
    };
    if token.is_empty() {
        return Err(InputError(format!("{source}: the token is empty")).into());
    }
    Ok(Some(token))
}

/// Lets a request through when it carries the token (or asks for the version), else answers
/// 401 with the reason.
async fn require_token(
    State(token): State<Arc<String>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    // The version and the web page hold nothing to protect (the page asks for the token).
    if matches!(request.uri().path(), "/v1/version" | "/") {
        return next.run(request).await;
    }
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token);
    let reason = match given {
        Some(g) if same_bytes(g.trim().as_bytes(), token.as_bytes()) => {
            return next.run(request).await
        }
        Some(_) => "the token in Authorization: Bearer is not the server's",
        None => "this server answers only requests with Authorization: Bearer <token>",
    };
    let mut r = json_answer(StatusCode::UNAUTHORIZED, &json!({ "error": reason }));
    r.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer"),
    );
    r
}

/// Whether `a` and `b` are equal, in a time that does not depend on where they differ.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The fields of a request, from the query string or a JSON body.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Fields {
    position: Option<String>,
    dice: Option<String>,
    ply: Option<u8>,
    top: Option<usize>,
    /// Rollouts: games, seed, cube (a cubeful rollout), truncate, time limit (seconds).
    games: Option<u32>,
    seed: Option<u64>,
    cube: Option<bool>,
    truncate: Option<u32>,
    time_limit: Option<u64>,
    /// `/v1/analyse`: money games played under the Jacoby rule; cubeful rollouts: the rule
    /// in money play.
    jacoby: Option<bool>,
    /// `/v1/tempmap`: candidate plays of the position's roll (or `dice`), each position they
    /// leave mapped: a JSON list, or one string of plays separated by commas (a query string).
    #[serde(default, deserialize_with = "plays_list")]
    plays: Option<Vec<String>>,
}

/// `plays`: a list of plays, or one string of them separated by commas (no play's notation
/// has a comma), so that a query string can carry several.
fn plays_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    let given = Option::<OneOrMany>::deserialize(d).map_err(|_| {
        serde::de::Error::custom(
            "expected a list of plays, or one string of plays separated by commas",
        )
    })?;
    Ok(match given {
        None => None,
        Some(OneOrMany::Many(v)) => Some(v),
        Some(OneOrMany::One(s)) => Some(s.split(',').map(|p| p.trim().to_string()).collect()),
    })
}

impl Fields {
    /// The fields given, as a JSON object (a rollout job's `request`).
    fn given(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.retain(|_, x| !x.is_null());
        }
        v
    }
}

/// What every request shares: searches ready to use (built once, taken and given back).
struct Engine {
    prototype: Search,
    /// Searches given back, at most [`MAX_IDLE_SEARCHES`] (more, made for a burst of
    /// requests, are dropped).
    idle: Mutex<Vec<Search>>,
    /// The long computations answered while the client waits (rollouts, tempmaps, analyses,
    /// 3-ply hints and evaluations) running now: at most [`MAX_HEAVY`].
    heavy: AtomicUsize,
    /// The rollouts running in the background, and those finished.
    jobs: Jobs,
    /// The games against the engine.
    games: Games,
}

impl Engine {
    /// Runs `f` with a search of the pool.
    fn with_search<T>(&self, f: impl FnOnce(&mut Search) -> T) -> T {
        let taken = self.idle.lock().ok().and_then(|mut v| v.pop());
        let mut search = taken.unwrap_or_else(|| self.prototype.clone());
        // Each request from an empty cache, as the CLI's commands start: a value cached by
        // an earlier request may differ in its last bits (the inputs' sums are found
        // incrementally from the plays around it), and answers would depend on what was
        // asked before.
        search.reset();
        let out = f(&mut search);
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < MAX_IDLE_SEARCHES {
                idle.push(search);
            }
        }
        out
    }

    /// A place among the long computations running now, held until it is dropped.
    ///
    /// # Errors
    /// [`Busy`] when [`MAX_HEAVY`] are running.
    fn heavy_slot(&self) -> Result<HeavySlot<'_>> {
        if self.heavy.fetch_add(1, Ordering::SeqCst) >= MAX_HEAVY {
            self.heavy.fetch_sub(1, Ordering::SeqCst);
            return Err(Busy(format!(
                "{MAX_HEAVY} long computations (rollouts, temperature maps, analyses, 3-ply \
                 hints and evaluations) are running, the most at once: try again when one \
                 has ended, or start a rollout in the background (POST /v1/rollouts)"
            ))
            .into());
        }
        Ok(HeavySlot(&self.heavy))
    }
}

/// The most searches kept for reuse between requests.
const MAX_IDLE_SEARCHES: usize = 16;

/// The most long computations answered while the client waits that run at once (each uses
/// every core, or one for minutes); background rollouts have their own limit.
const MAX_HEAVY: usize = 4;

/// A place among the long computations running ([`Engine::heavy_slot`]).
struct HeavySlot<'a>(&'a AtomicUsize);

impl Drop for HeavySlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Stops a rollout when the request that asked for it is dropped: its client has gone, and
/// nobody will read the answer.
struct StopOnDrop(Arc<RolloutWatch>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.control.stop();
    }
}

/// An answer: the JSON text, or an error with its status.
fn answer(result: Result<String>) -> Response {
    match result {
        Ok(body) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(e) => {
            let status = if e.chain().any(|c| c.is::<InputError>()) {
                StatusCode::BAD_REQUEST
            } else if e.chain().any(|c| c.is::<Busy>()) {
                StatusCode::SERVICE_UNAVAILABLE
            } else if e.chain().any(|c| c.is::<Conflict>()) {
                StatusCode::CONFLICT
            } else {
                StatusCode::INTERNAL_SERVER_ERROR
            };
            let body = json!({ "error": field_names(&format!("{e:#}")) }).to_string();
            (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
    }
}

/// The command-line flags that are a request's fields under another name.
const FLAG_FIELDS: [(&str, &str); 10] = [
    ("--ply", "ply"),
    ("--top", "top"),
    ("--games", "games"),
    ("--seed", "seed"),
    ("--cube", "cube"),
    ("--truncate", "truncate"),
    ("--time-limit", "time_limit"),
    ("--jacoby", "jacoby"),
    ("--play", "plays"),
    ("--dice", "dice"),
];

/// What the commands the server shares with the CLI say of the command line, as said to an
/// HTTP client.
const CLI_PHRASES: [(&str, &str); 2] = [
    (
        "give them after the position",
        "give them in the field `dice`",
    ),
    (
        "give the dice after the position",
        "give the field `dice`, or a position with its dice",
    ),
];

/// `message` with each command-line flag that is a request's field named as the field: the
/// commands the server shares with the CLI name their options as flags (`--ply must be in
/// 0..=3`), and an HTTP client sent fields (`ply must be in 0..=3`).
fn field_names(message: &str) -> String {
    let mut message = message.to_string();
    for (cli, http) in CLI_PHRASES {
        message = message.replace(cli, http);
    }
    let mut out = String::with_capacity(message.len());
    let mut rest = message.as_str();
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let flag_len = 2 + tail[2..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(tail.len() - 2);
        let flag = &tail[..flag_len];
        match FLAG_FIELDS.iter().find(|(f, _)| *f == flag) {
            Some((_, field)) => out.push_str(field),
            None => out.push_str(flag),
        }
        rest = &tail[flag_len..];
    }
    out.push_str(rest);
    out
}

/// The answer to a request that cannot be read: 400 and `reason`.
fn bad(reason: String) -> Response {
    answer(Err(InputError(reason).into()))
}

fn required(field: Option<String>, name: &str) -> Result<String> {
    field.ok_or_else(|| InputError(format!("missing field `{name}`")).into())
}

fn engine_args(ply: Option<u8>) -> EngineArgs {
    EngineArgs {
        ply: ply.unwrap_or(0),
        weights: None,
        json: true,
        no_bearoff: false,
        prune: PruneArgs::default(),
    }
}

impl Route {
    /// The fields this route reads; any other given is refused, not ignored.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Route::Position => &["position"],
            Route::Moves => &["position", "dice"],
            Route::Hint => &["position", "dice", "ply", "top"],
            Route::Eval => &["position", "ply"],
            Route::Tempmap => &["position", "dice", "ply", "plays"],
            Route::Rollout => &[
                "position",
                "dice",
                "ply",
                "top",
                "games",
                "seed",
                "cube",
                "truncate",
                "time_limit",
                "jacoby",
            ],
        }
    }

    /// Refuses a field given that this route does not read.
    fn check(self, f: &Fields, path: &str) -> Result<(), InputError> {
        only_fields(f, self.fields(), path)
    }

    /// The route's path.
    fn path(self) -> &'static str {
        match self {
            Route::Position => "/v1/position",
            Route::Moves => "/v1/moves",
            Route::Hint => "/v1/hint",
            Route::Eval => "/v1/eval",
            Route::Tempmap => "/v1/tempmap",
            Route::Rollout => "/v1/rollout",
        }
    }
}

/// Refuses a field of `f` given that `path` does not read (`reads`).
fn only_fields(f: &Fields, reads: &[&str], path: &str) -> Result<(), InputError> {
    let given = f.given();
    let stray = given
        .as_object()
        .into_iter()
        .flat_map(|o| o.keys())
        .find(|k| !reads.contains(&k.as_str()));
    match stray {
        Some(k) => Err(InputError(format!(
            "field `{k}` does not apply to {path}, which reads {}",
            reads.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The computation of each route, on a blocking thread; a rollout counts its games in `watch`
/// and stops when it says so.
/// The effective pip counts of the side on roll and of the opponent (as `tavla show` gives
/// them): `null` for a side with a checker outside its home board.
fn epcs(position: &tavla_core::Position) -> [Option<f64>; 2] {
    let board = position.to_board();
    let db = shared_bearoff();
    [board.on_roll, board.opponent].map(|c| {
        if c[6..].iter().any(|&n| n > 0) {
            return None;
        }
        db.epc(&std::array::from_fn(|i| c[i]))
            .map(|e| (e * 1e4).round() / 1e4)
    })
}

fn compute(engine: &Engine, route: Route, f: Fields, watch: &RolloutWatch) -> Result<String> {
    route.check(&f, route.path())?;
    // The long computations take a place among those running.
    let _slot = match route {
        Route::Rollout | Route::Tempmap => Some(engine.heavy_slot()?),
        Route::Hint | Route::Eval if f.ply.unwrap_or(0) >= tavla_nn::search::MAX_PLY => {
            Some(engine.heavy_slot()?)
        }
        _ => None,
    };
    match route {
        Route::Position => {
            let text = required(f.position, "position")?;
            let state = input::position(&text)?;
            Ok(json!({
                "bpn": format(&state, Notation::Bpn),
                "gnubg": format(&state, Notation::Gnubg),
                "xgid": format(&state, Notation::Xgid),
                "fibs": format(&state, Notation::Fibs),
                "turn": if state.turn == tavla_core::Side::X { "x" } else { "o" },
                "dice": state.roll().map(|r| r.to_string()),
                "cube": state.cube.value(),
                "match_length": state.match_length,
                "score": { "x": state.score.x, "o": state.score.o },
                "crawford": state.crawford,
                "jacoby": state.jacoby,
                // The side on roll's and the opponent's.
                "pips": <[u32; 2]>::from(state.position.pips()),
                // Their effective pip counts, for a side with every checker home.
                "epc": epcs(&state.position),
                "cube_owner": tavla_nn::cube::CubeHolder::of(&state).name(),
                "board": board_json(&state.position),
            })
            .to_string())
        }
        Route::Moves => {
            let text = required(f.position, "position")?;
            let state = input::position(&text)?;
            input::not_over(&state)?;
            let dice: Vec<String> = f.dice.into_iter().collect();
            let roll = input::roll_for(&state, &dice)?;
            let mut list = tavla_core::PlayList::new();
            let limit = input::xgid(&text).map(|x| x.max_cube_log2);
            let plays = crate::cmd::play_objects(
                &state,
                limit,
                roll,
                tavla_core::Rules::Standard,
                &mut list,
            );
            Ok(serde_json::Value::Array(plays).to_string())
        }
        Route::Hint => {
            let args = HintArgs {
                position: required(f.position, "position")?,
                dice: f.dice,
                top: f.top.unwrap_or(5),
                engine: engine_args(f.ply),
            };
            let mut out = Vec::new();
            engine.with_search(|s| hint_with(&args, s, &mut out))?;
            Ok(String::from_utf8(out)?)
        }
        Route::Rollout => {
            let args = rollout_args(f)?;
            let mut out = Vec::new();
            rollout_watched(&args, &mut out, watch)?;
            Ok(String::from_utf8(out)?)
        }
        Route::Tempmap => {
            let args = TempmapArgs {
                positions: vec![required(f.position, "position")?],
                plays: f.plays.unwrap_or_default(),
                dice: f.dice,
                engine: engine_args(f.ply),
            };
            let mut out = Vec::new();
            engine.with_search(|s| tempmap_with(&args, s, &mut out))?;
            Ok(String::from_utf8(out)?)
        }
        Route::Eval => {
            let args = EvalArgs {
                position: required(f.position, "position")?,
                engine: engine_args(f.ply),
            };
            let mut out = Vec::new();
            engine.with_search(|s| eval_with(&args, s, &mut out))?;
            Ok(String::from_utf8(out)?)
        }
    }
}

/// The checkers of `pos` for drawing, from the side on roll: `points[p]` its point `p` (1 to
/// 24; index 0 unused), positive for its checkers and negative for the opponent's; `bar` and
/// `off` the side on roll's and the opponent's.
fn board_json(pos: &tavla_core::Position) -> serde_json::Value {
    let mut points = vec![0i32; 25];
    for (p, n) in points.iter_mut().enumerate().skip(1) {
        *n = i32::from(pos.at(p as u8));
    }
    json!({
        "points": points,
        "bar": [pos.bar(), pos.opponent_bar()],
        "off": [pos.off(), pos.opponent_off()],
    })
}

/// The `tavla rollout` arguments of a rollout request (`/v1/rollout`, `/v1/rollouts`).
fn rollout_args(f: Fields) -> Result<RolloutArgs> {
    let games = f.games.unwrap_or(1296);
    let ply = f.ply.unwrap_or(0);
    // With dice (given, or the position's with `top`) every play is rolled out: the limit is
    // on the games of all of them.
    let top = if f.dice.is_some() {
        Some(f.top.unwrap_or(5))
    } else {
        f.top
    };
    let plays = top.unwrap_or(1);
    let most = MAX_ROLLOUT_GAMES[usize::from(ply.min(tavla_nn::search::MAX_PLY))];
    // `top` is the user's: a product too large for a u64 is over the limit too.
    let total = u64::from(games).checked_mul(plays as u64);
    if total.is_none_or(|t| t > u64::from(most)) {
        return Err(InputError(format!(
            "games: at most {most} a request at ply {ply} (over all the plays rolled out; \
             {} at 0 to 3 ply), got {games} for each of {plays}",
            MAX_ROLLOUT_GAMES.map(|g| g.to_string()).join(", ")
        ))
        .into());
    }
    if f.jacoby == Some(true) && f.cube != Some(true) {
        return Err(InputError(
            "jacoby: the Jacoby rule is for cubeful rollouts (cube true)".into(),
        )
        .into());
    }
    Ok(RolloutArgs {
        position: required(f.position, "position")?,
        games,
        seed: f.seed.unwrap_or(1),
        threads: 0,
        no_luck_adjust: false,
        truncate: f.truncate.unwrap_or(0),
        balance_parity: false,
        top,
        dice: f.dice,
        plays: Vec::new(),
        cube: f.cube.unwrap_or(false),
        jacoby: f.jacoby.unwrap_or(false),
        time_limit: f.time_limit,
        quiet: true,
        engine: engine_args(f.ply),
    })
}

#[derive(Debug, Clone, Copy)]
enum Route {
    Position,
    Moves,
    Hint,
    Eval,
    Tempmap,
    Rollout,
}

/// The most games a rollout request may ask for at 0, 1, 2 and 3 ply (a game at 2-ply costs
/// some two hundred at 0-ply): a longer rollout is `tavla rollout`'s.
const MAX_ROLLOUT_GAMES: [u32; 4] = [100_000, 10_000, 1_000, 100];

/// The most rolls of a record `/v1/analyse` judges in one request at 0 to 2 ply (some two
/// hundred games), and at 3 ply.
const MAX_ANALYSE_ROLLS: usize = 10_000;
const MAX_ANALYSE_ROLLS_3PLY: usize = 500;

async fn run(engine: Arc<Engine>, route: Route, fields: Fields) -> Response {
    let watch = Arc::new(RolloutWatch::default());
    // Dropped with this future when the client goes away before the answer: the rollout
    // then starts no more games.
    let _stop = StopOnDrop(Arc::clone(&watch));
    let result = tokio::task::spawn_blocking(move || compute(&engine, route, fields, &watch)).await;
    answer(
        result
            .context("the request's computation failed")
            .and_then(|r| r),
    )
}

/// `POST /v1/analyse`: the body is the record.
async fn analyse(
    State(e): State<Arc<Engine>>,
    q: Result<Query<Fields>, QueryRejection>,
    body: Bytes,
) -> Response {
    let f = match q {
        Ok(Query(f)) => f,
        Err(r) => return bad(r.body_text()),
    };
    if let Err(err) = only_fields(&f, &["ply", "cube", "jacoby"], "/v1/analyse") {
        return answer(Err(err.into()));
    }
    let result = tokio::task::spawn_blocking(move || -> Result<String> {
        let _slot = e.heavy_slot()?;
        // UTF-8, or Latin-1 where it is not, as the CLI reads records (and gnubg).
        let text = tavla_notation::sgf::decode_text(body.to_vec());
        let record = tavla_notation::sgf::parse_record(&text)
            .map_err(|e| InputError(format!("the record: {e}")))?;
        if record.games.is_empty() {
            return Err(InputError("the record has no games".into()).into());
        }
        // Checked as a whole, as `tavla analyse` checks it: scores, results, the cube.
        let replays = record
            .replay()
            .map_err(|e| InputError(format!("the record: {e}")))?;
        let ply = f.ply.unwrap_or(2);
        if ply > tavla_nn::search::MAX_PLY {
            return Err(InputError(format!("ply must be in 0..=3, got {ply}")).into());
        }
        // One request's work is bounded, as a rollout's is: a longer record is `tavla
        // analyse`'s to judge.
        let rolls: usize = replays.iter().map(|r| r.rolls.len()).sum();
        let most = if ply >= tavla_nn::search::MAX_PLY {
            MAX_ANALYSE_ROLLS_3PLY
        } else {
            MAX_ANALYSE_ROLLS
        };
        if rolls > most {
            return Err(InputError(format!(
                "the record: {rolls} rolls, at most {most} a request at ply {ply} \
                 ({MAX_ANALYSE_ROLLS} at 0 to 2 ply; tavla analyse takes any length)"
            ))
            .into());
        }
        let args = AnalyseArgs::defaults()
            .with_ply(ply)
            .with_cube(f.cube.unwrap_or(false))
            .with_jacoby(f.jacoby.unwrap_or(false));
        let report = analyse_records(&args, &[(record, replays)], vec!["request".into()], false)?;
        Ok(serde_json::to_string(&report)?)
    })
    .await;
    answer(result.context("the analysis failed").and_then(|r| r))
}

/// A JSON answer with status `status`.
fn json_answer(status: StatusCode, v: &serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        v.to_string(),
    )
        .into_response()
}

/// `POST /v1/rollouts`: a rollout started in the background (fields as `/v1/rollout`'s, in a
/// JSON body or the query string), answered with 202 and the job once it has started.
async fn start_job(
    State(e): State<Arc<Engine>>,
    uri: axum::http::Uri,
    q: Result<Query<Fields>, QueryRejection>,
    body: Bytes,
) -> Response {
    let fields: Result<Fields> = if body.iter().all(u8::is_ascii_whitespace) {
        q.map(|Query(f)| f)
            .map_err(|r| InputError(r.body_text()).into())
    } else if uri.query().is_some_and(|q| !q.is_empty()) {
        Err(
            InputError("give the fields in the query string or in a JSON body, not both".into())
                .into(),
        )
    } else {
        json_body::<Fields>(&body)
    };
    let started = tokio::task::spawn_blocking(move || -> Result<Arc<Job>> {
        let fields = fields?;
        Route::Rollout.check(&fields, "/v1/rollouts")?;
        let request = fields.given();
        e.jobs.start(rollout_args(fields)?, request)
    })
    .await;
    match started
        .context("starting the rollout failed")
        .and_then(|r| r)
    {
        Ok(job) => {
            let mut r = json_answer(StatusCode::ACCEPTED, &job.to_json());
            if let Ok(location) = format!("/v1/rollouts/{}", job.id()).parse() {
                r.headers_mut().insert(header::LOCATION, location);
            }
            r
        }
        Err(err) => answer(Err(err)),
    }
}

/// `GET /v1/rollouts`: every rollout the server keeps, oldest first.
async fn list_jobs(State(e): State<Arc<Engine>>, uri: axum::http::Uri) -> Response {
    if uri.query().is_some_and(|q| !q.is_empty()) {
        return bad("GET /v1/rollouts takes no query string (POST starts a rollout)".to_string());
    }
    let jobs: Vec<_> = e.jobs.list().iter().map(|j| j.to_json()).collect();
    json_answer(StatusCode::OK, &json!({ "rollouts": jobs }))
}

/// `f`'s answer for the job a path names, or the answer why there is none (400 for an id that
/// is not a number, 404 for one the server does not have).
fn with_job(
    e: &Engine,
    id: Result<Path<u64>, PathRejection>,
    f: impl FnOnce(&Job) -> Response,
) -> Response {
    match path_id(id) {
        Err(r) => r,
        Ok(id) => match e.jobs.get(id) {
            Some(job) => f(&job),
            None => no_job(id),
        },
    }
}

fn no_job(id: u64) -> Response {
    json_answer(
        StatusCode::NOT_FOUND,
        &json!({ "error": format!("no rollout {id}: it never was, or was forgotten") }),
    )
}

/// `GET /v1/rollouts/{id}`: the rollout's state, progress and, once ended, its result.
async fn show_job(State(e): State<Arc<Engine>>, id: Result<Path<u64>, PathRejection>) -> Response {
    with_job(&e, id, |job| json_answer(StatusCode::OK, &job.to_json()))
}

/// `POST /v1/rollouts/{id}/stop`: no game is started after; the answer is the job as it
/// stands (still `running` until the games being played end).
async fn stop_job(State(e): State<Arc<Engine>>, id: Result<Path<u64>, PathRejection>) -> Response {
    with_job(&e, id, |job| {
        job.stop();
        json_answer(StatusCode::OK, &job.to_json())
    })
}

/// `DELETE /v1/rollouts/{id}`: the rollout stopped and forgotten; the answer is the job as it
/// stood.
async fn forget_job(
    State(e): State<Arc<Engine>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Response, Response> {
    let id = path_id(id)?;
    Ok(match e.jobs.remove(id) {
        Some(job) => json_answer(StatusCode::OK, &job.to_json()),
        None => no_job(id),
    })
}

/// The routes of a `GET` (query string) and `POST` (JSON body) pair; fields that cannot be
/// read are answered with 400 and the reason, as JSON.
fn pair(route: Route) -> axum::routing::MethodRouter<Arc<Engine>> {
    get(
        move |State(e): State<Arc<Engine>>, q: Result<Query<Fields>, QueryRejection>| async move {
            match q {
                Ok(Query(f)) => run(e, route, f).await,
                Err(r) => bad(r.body_text()),
            }
        },
    )
    .post(
        // The body is read as JSON whatever its `Content-Type` says, as `/v1/games` reads its
        // own, so that `curl -d '{...}'` (which sends a form's type) works as it is.
        move |State(e): State<Arc<Engine>>, uri: axum::http::Uri, body: Bytes| async move {
            if uri.query().is_some_and(|q| !q.is_empty()) {
                return bad(
                    "a POST reads its fields from a JSON body, not the query string \
                     (or send a GET with them in the query string)"
                        .to_string(),
                );
            }
            match json_body::<Fields>(&body) {
                Ok(f) => run(e, route, f).await,
                Err(err) => bad(format!("{err:#}")),
            }
        },
    )
}

/// Runs `tavla serve` until the process is stopped.
///
/// # Errors
/// When the address cannot be bound, the token cannot be read, or an origin of `--cors`
/// cannot be one.
pub fn serve(args: &ServeArgs) -> Result<()> {
    let token = token(args)?;
    let cors = cors_layer(&args.cors)?;
    let prototype = Search::new(Weights::shared_default())
        .with_bearoff(shared_bearoff())
        .with_prune(Prune::embedded());
    crate::players::preload_shared_bearoff();
    let engine = Arc::new(Engine {
        prototype,
        idle: Mutex::new(Vec::new()),
        heavy: AtomicUsize::new(0),
        jobs: Jobs::default(),
        games: Games::default(),
    });
    let app = Router::new()
        .route(Route::Position.path(), pair(Route::Position))
        .route(Route::Moves.path(), pair(Route::Moves))
        .route(Route::Hint.path(), pair(Route::Hint))
        .route(Route::Eval.path(), pair(Route::Eval))
        .route(Route::Tempmap.path(), pair(Route::Tempmap))
        .route("/v1/diagram", get(diagram))
        .route(Route::Rollout.path(), pair(Route::Rollout))
        .route("/v1/analyse", post(analyse))
        .route("/v1/rollouts", get(list_jobs).post(start_job))
        .route("/v1/games/{id}/hint", get(game_hint))
        // The endpoints that read no query string (their fields, if any, are a JSON body's).
        .merge(
            Router::new()
                .route(
                    "/v1/version",
                    get(|| async {
                        Json(json!({ "name": "tavla", "version": env!("CARGO_PKG_VERSION") }))
                    }),
                )
                .route("/v1/rollouts/{id}", get(show_job).delete(forget_job))
                .route("/v1/rollouts/{id}/stop", post(stop_job))
                .route("/v1/games", post(start_game))
                .route("/v1/games/{id}", get(show_game).delete(forget_game))
                .route("/v1/games/{id}/record", get(game_record))
                .route("/v1/games/{id}/{action}", post(game_action))
                .route_layer(axum::middleware::from_fn(no_query)),
        )
        .route("/", get(page))
        .fallback(|uri: axum::http::Uri| async move {
            let reason = format!("no such endpoint: {} (see docs/http.md)", uri.path());
            json_answer(StatusCode::NOT_FOUND, &json!({ "error": reason }))
        })
        .method_not_allowed_fallback(
            |method: axum::http::Method, uri: axum::http::Uri| async move {
                let reason = format!("{} does not answer {method}", uri.path());
                json_answer(StatusCode::METHOD_NOT_ALLOWED, &json!({ "error": reason }))
            },
        )
        .layer(axum::middleware::map_response(errors_as_json))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(engine);
    let app = match token {
        Some(token) => app.layer(axum::middleware::from_fn_with_state(
            Arc::new(token),
            require_token,
        )),
        None => app,
    };
    // Outermost: a browser's preflight carries no token, and every answer (a refusal too)
    // carries the headers that let the page read it.
    let app = match cors {
        Some(cors) => app.layer(cors),
        None => app,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the HTTP runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .map_err(|e| InputError(format!("--listen {}: {e}", args.listen)))?;
        eprintln!(
            "tavla serve: listening on http://{}",
            listener.local_addr()?
        );
        serve_connections(listener, app).await
    })
}

/// The most bytes of a request's body (a record for `/v1/analyse`, a JSON object elsewhere).
const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// The most connections served at once; more wait in the listener's queue until one closes.
const MAX_CONNECTIONS: usize = 256;

/// How long a client may take over a request's head, and how long a kept-alive connection may
/// sit idle before its next request: a client that falls silent does not hold a connection.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves HTTP/1.1 on `listener` for ever: at most [`MAX_CONNECTIONS`] connections at once,
/// each closed after [`HEAD_TIMEOUT`] without a request's head. A connection that cannot be
/// accepted (out of file handles, reset before it was) is reported and the server goes on
/// after a pause.
async fn serve_connections(listener: tokio::net::TcpListener, app: Router) -> Result<()> {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let slot = Arc::clone(&slots)
            .acquire_owned()
            .await
            .context("the connection limit")?;
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("tavla serve: accepting a connection: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            // A connection's failure (a client gone, a head too slow) is the client's affair.
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            drop(slot);
        });
    }
}

/// An error answered as text by axum's extractors and layers (a body over the limit, a
/// malformed header) answered as JSON, `{"error": ...}`, as every other error is.
async fn errors_as_json(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let text = axum::body::to_bytes(response.into_body(), MAX_BODY_BYTES)
        .await
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let reason = if status == StatusCode::PAYLOAD_TOO_LARGE {
        format!("the request's body is over {MAX_BODY_BYTES} bytes, the most it may be")
    } else if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    json_answer(status, &json!({ "error": reason }))
}

/// An optional JSON body: empty (or only white space) reads as `T::default()`.
fn json_body<T: serde::de::DeserializeOwned + Default>(body: &Bytes) -> Result<T> {
    let Some(&first) = body.iter().find(|c| !c.is_ascii_whitespace()) else {
        return Ok(T::default());
    };
    if first != b'{' {
        return Err(
            InputError("the JSON body: expected an object `{...}` of fields".to_string()).into(),
        );
    }
    let mut json = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        // A syntax error has no field (its path is `?`).
        match path.as_str() {
            "." | "" | "?" => InputError(format!("the JSON body: {inner}")),
            field => InputError(format!("the JSON body: field `{field}`: {inner}")),
        }
    })?;
    json.end()
        .map_err(|e| InputError(format!("the JSON body: {e} (text after its object)")))?;
    Ok(value)
}

/// Refuses a query string on an endpoint that reads none (its fields, if any, are a JSON
/// body's), rather than carrying out the request as if the fields had not been sent.
async fn no_query(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    if request.uri().query().is_some_and(|q| !q.is_empty()) {
        let reason = if request.method() == axum::http::Method::POST {
            format!(
                "{} reads its fields from a JSON body, not the query string",
                request.uri().path()
            )
        } else {
            format!("{} takes no query string", request.uri().path())
        };
        return bad(reason);
    }
    next.run(request).await
}

/// The id a path names, or the answer for one that is not a number (400).
#[allow(
    clippy::result_large_err,
    reason = "the error is the handler's answer, returned at once"
)]
fn path_id(id: Result<Path<u64>, PathRejection>) -> Result<u64, Response> {
    id.map(|Path(id)| id).map_err(|r| bad(r.body_text()))
}

/// The answer when the server has no game `id`.
fn no_game(id: u64) -> Response {
    json_answer(
        StatusCode::NOT_FOUND,
        &json!({ "error": format!(
            "no game {id}: it never was, or was forgotten (the server keeps the {} used last)",
            web_games::MAX_GAMES
        ) }),
    )
}

/// Runs `f` on game `id` on a blocking thread (the engine may think), and answers its JSON.
async fn on_game(
    e: Arc<Engine>,
    id: u64,
    f: impl FnOnce(&mut web_games::Game) -> Result<serde_json::Value> + Send + 'static,
) -> Response {
    let Some(game) = e.games.get(id) else {
        return no_game(id);
    };
    let result = tokio::task::spawn_blocking(move || f(&mut web_games::lock(&game))).await;
    match result
        .context("the game's computation failed")
        .and_then(|r| r)
    {
        Ok(v) => json_answer(StatusCode::OK, &v),
        Err(err) => answer(Err(err)),
    }
}

/// `POST /v1/games`: a new game against the engine (fields of [`NewGame`] in an optional JSON
/// body), answered with 201, the game, and its `Location`.
async fn start_game(State(e): State<Arc<Engine>>, body: Bytes) -> Response {
    let started = tokio::task::spawn_blocking(move || -> Result<(u64, serde_json::Value)> {
        let request: NewGame = json_body(&body)?;
        let game = e.games.start(&request)?;
        let mut game = web_games::lock(&game);
        Ok((game.id(), game.view()))
    })
    .await;
    match started.context("starting the game failed").and_then(|r| r) {
        Ok((id, v)) => {
            let mut r = json_answer(StatusCode::CREATED, &v);
            if let Ok(location) = format!("/v1/games/{id}").parse() {
                r.headers_mut().insert(header::LOCATION, location);
            }
            r
        }
        Err(err) => answer(Err(err)),
    }
}

/// `GET /v1/games/{id}`: the game as it stands.
async fn show_game(
    State(e): State<Arc<Engine>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Response, Response> {
    Ok(on_game(e, path_id(id)?, |g| Ok(g.view())).await)
}

/// The fields of a game action: the play of `move`, the level of `resign`, `anyway` to
/// carry out an action the tutor held back, and `after`, the number of events in the game's
/// `log` when the action was chosen (the action is refused, 409, once the game has moved on).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionFields {
    play: Option<String>,
    level: Option<String>,
    anyway: Option<bool>,
    after: Option<usize>,
}

/// `POST /v1/games/{id}/{action}`: the person's action (`roll`, `double`, `take`, `pass`,
/// `move` with `{"play": "8/5 6/5"}`, `resign` with an optional `{"level": "gammon"}`,
/// `accept`, `reject`, `next`) and the engine's answers; the game as it then stands. An action
/// the phase does not allow is answered 409, an illegal play 400, each with the reason; so is
/// an action whose `after` (the events of the game's `log` its sender saw) the game has
/// moved past, 409. With
/// the tutor, the action is judged first; one it holds back leaves the game as it was, and
/// the answer carries the `warning`.
async fn game_action(
    State(e): State<Arc<Engine>>,
    path: Result<Path<(u64, String)>, PathRejection>,
    body: Bytes,
) -> Result<Response, Response> {
    let Path((id, action)) = path.map_err(|r| bad(r.body_text()))?;
    let fields: ActionFields = json_body(&body).map_err(|err| answer(Err(err)))?;
    for (field, given, reader) in [
        ("play", fields.play.is_some(), "move"),
        ("level", fields.level.is_some(), "resign"),
    ] {
        if given && action != reader {
            return Err(bad(format!(
                "field `{field}` does not apply to {action}, only to {reader}"
            )));
        }
    }
    let pool = e.clone();
    Ok(on_game(e, id, move |g| {
        g.check_seen(fields.after)?;
        let (play, level) = (fields.play.as_deref(), fields.level.as_deref());
        let warning = if g.tutors(&action) {
            let anyway = fields.anyway.unwrap_or(false);
            pool.with_search(|s| g.act_tutored(&action, play, level, anyway, s))?
        } else {
            g.act(&action, play, level)?;
            None
        };
        let mut v = g.view();
        if let Some(w) = warning {
            v["warning"] = w;
        }
        Ok(v)
    })
    .await)
}

/// The fields of a game's hint.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HintFields {
    ply: Option<u8>,
    top: Option<usize>,
}

/// `GET /v1/games/{id}/hint?ply=2&top=5`: the engine's advice on the decision at hand: with a
/// move due, the best plays (`{"for": "move", "hint": ...}`, as `/v1/hint`); before a roll or
/// when doubled, the cube analysis of the side on roll (`{"for": "cube", "eval": ...}`, as
/// `/v1/eval`); when the engine offers to resign, what accepting and playing on are worth to the
/// person (`{"for": "resignation", ...}`). Depth 2 by default; 409 once the game is over.
async fn game_hint(
    State(e): State<Arc<Engine>>,
    id: Result<Path<u64>, PathRejection>,
    q: Result<Query<HintFields>, QueryRejection>,
) -> Result<Response, Response> {
    let id = path_id(id)?;
    let Query(f) = q.map_err(|r| bad(r.body_text()))?;
    let game = e.games.get(id).ok_or_else(|| no_game(id))?;
    let result = tokio::task::spawn_blocking(move || -> Result<serde_json::Value> {
        let ply = f.ply.unwrap_or(2);
        if ply > tavla_nn::search::MAX_PLY {
            return Err(InputError(format!("ply must be in 0..=3, got {ply}")).into());
        }
        // A 3-ply hint is a long computation, as on /v1/hint.
        let _slot = (ply >= tavla_nn::search::MAX_PLY)
            .then(|| e.heavy_slot())
            .transpose()?;
        let decision = web_games::lock(&game).decision()?;
        let engine = engine_args(Some(ply));
        let mut out = Vec::new();
        match decision {
            Decision::Move(position) => {
                let args = HintArgs {
                    position,
                    dice: None,
                    top: f.top.unwrap_or(5),
                    engine,
                };
                e.with_search(|s| hint_with(&args, s, &mut out))?;
                Ok(json!({ "for": "move", "hint": serde_json::from_slice::<serde_json::Value>(&out)? }))
            }
            Decision::Cube(position) => {
                let args = EvalArgs { position, engine };
                e.with_search(|s| eval_with(&args, s, &mut out))?;
                Ok(json!({ "for": "cube", "eval": serde_json::from_slice::<serde_json::Value>(&out)? }))
            }
            Decision::Resignation { state, level, cube } => Ok(e.with_search(|s| {
                web_games::resignation_advice(s, &state, level, cube, ply)
            })),
        }
    })
    .await;
    Ok(match result.context("the hint failed").and_then(|r| r) {
        Ok(v) => json_answer(StatusCode::OK, &v),
        Err(err) => answer(Err(err)),
    })
}

/// `GET /v1/games/{id}/record`: the game (or match) so far as a `.mat` record, or SGF for a
/// game played on from a position.
async fn game_record(
    State(e): State<Arc<Engine>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Response, Response> {
    let id = path_id(id)?;
    let game = e.games.get(id).ok_or_else(|| no_game(id))?;
    // The game may be locked by an action whose engine is thinking: wait off the runtime.
    let record = tokio::task::spawn_blocking(move || web_games::lock(&game).record_text()).await;
    let text = record
        .context("writing the record failed")
        .and_then(|r| r)
        .map_err(|err| answer(Err(err)))?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// `DELETE /v1/games/{id}`: the game forgotten.
async fn forget_game(
    State(e): State<Arc<Engine>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Response, Response> {
    let id = path_id(id)?;
    if !e.games.remove(id) {
        return Err(no_game(id));
    }
    Ok(json_answer(StatusCode::OK, &json!({ "forgotten": id })))
}

/// `GET /v1/diagram?position=P[&dice=31]`: the position as an SVG board diagram
/// (`tavla show --svg`), with the dice given if any.
async fn diagram(q: Result<Query<Fields>, QueryRejection>) -> Response {
    let f = match q {
        Ok(Query(f)) => f,
        Err(e) => return bad(e.body_text()),
    };
    if let Err(err) = only_fields(&f, &["position", "dice"], "/v1/diagram") {
        return answer(Err(err.into()));
    }
    let state = required(f.position, "position").and_then(|text| {
        let mut state = input::position(&text)?;
        if let Some(d) = f.dice {
            state.dice = tavla_core::Dice::Rolled(input::dice(&[d])?);
        }
        Ok(state)
    });
    match state {
        Ok(state) => (
            [(header::CONTENT_TYPE, "image/svg+xml")],
            crate::diagram::svg(&state),
        )
            .into_response(),
        Err(e) => answer(Err(e)),
    }
}

/// `GET /`: the web page that plays against the engine through `/v1/games`.
async fn page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        include_str!("web/index.html"),
    )
        .into_response()
}
