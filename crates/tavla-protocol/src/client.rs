//! The controller side: [`UbgiPlayer`], a [`Player`] whose decisions an external UBGI engine
//! makes.

use std::error::Error as StdError;
use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use tavla_core::{Cube, Dice, GameState, PlayList, Position, Resign, Roll};
use tavla_notation::{PlayText, Xgid};
use tavla_player::{ci95_factor, PlayValue, Player, RolloutControl, RolloutRequest, RolloutValue};

use crate::response::ErrorCode;

/// How long the engine may take over one answer unless [`UbgiPlayer::set_timeout`] says
/// otherwise (the gnubg harness's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a closing engine gets to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// A failure of the external engine.
#[derive(Debug, thiserror::Error)]
pub enum UbgiError {
    /// Writing to the engine failed (other than a closed pipe).
    #[error("cannot send {request:?} to the engine: {source}")]
    Io {
        /// What was being sent.
        request: String,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The engine closed its end (it exited or crashed).
    #[error("the engine closed the connection{} while answering {request:?}", exit_text(.status))]
    Closed {
        /// The request it was answering.
        request: String,
        /// Its exit status, when it has exited.
        status: Option<ExitStatus>,
    },
    /// The engine did not answer in time.
    #[error("the engine did not answer {request:?} within {} s", .after.as_secs_f64())]
    Timeout {
        /// The request.
        request: String,
        /// The time allowed.
        after: Duration,
    },
    /// The engine answered with an `error` line.
    #[error("the engine answered {request:?} with `error {}{}{message}`", .code.map_or("", ErrorCode::as_str), if .code.is_some() { " " } else { "" })]
    Engine {
        /// The request.
        request: String,
        /// The error code, when it is one of the standard ones (either draft's spelling).
        code: Option<ErrorCode>,
        /// The rest of the line (an unknown code stays here).
        message: String,
    },
    /// The answer has the expected keyword but cannot be read.
    #[error("the engine's answer {reply:?} to {request:?} is malformed: {reason}")]
    BadReply {
        /// The request.
        request: String,
        /// The answer.
        reply: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The engine chose a play that is not legal.
    #[error("the engine's answer {reply:?} to {request:?} is not a legal play: {reason}")]
    IllegalPlay {
        /// The request.
        request: String,
        /// The answer.
        reply: String,
        /// Why it is not legal.
        reason: String,
    },
    /// The engine lacks something the request needs.
    #[error("the engine does not support {what}")]
    Unsupported {
        /// What it lacks.
        what: &'static str,
    },
    /// An earlier failure of the connection: the engine is no longer asked.
    #[error("the engine is no longer connected (an earlier failure)")]
    Disconnected,
}

fn exit_text(status: &Option<ExitStatus>) -> String {
    status.map_or(String::new(), |s| format!(" ({s})"))
}

impl UbgiError {
    /// Whether the connection is lost for good (I/O failure, closed, timed out): after such an
    /// error the engine is no longer asked.
    #[must_use]
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            UbgiError::Io { .. }
                | UbgiError::Closed { .. }
                | UbgiError::Timeout { .. }
                | UbgiError::Disconnected
        )
    }
}

/// An engine that could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The process could not be started.
    #[error("cannot start engine {command:?}")]
    Spawn {
        /// The command.
        command: String,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// It started but did not complete `ubgi` ... `ubgiok`, `isready` ... `readyok`.
    #[error("engine {command:?} failed the UBGI handshake")]
    Handshake {
        /// The command.
        command: String,
        /// What went wrong.
        #[source]
        source: UbgiError,
    },
}

/// What the engine said about itself in the handshake.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineInfo {
    /// `id name`.
    pub name: Option<String>,
    /// `id author`.
    pub author: Option<String>,
    /// `id version`.
    pub version: Option<String>,
    /// `proto` (v0.2 engines say `0.2`).
    pub proto: Option<String>,
    /// The `key` lines, without the keyword.
    pub keys: Vec<String>,
    /// The `option` lines, without the keyword.
    pub options: Vec<String>,
}

/// The two ends of the conversation.
struct Link {
    writer: Option<Box<dyn Write + Send>>,
    lines: Receiver<io::Result<String>>,
    child: Option<Child>,
    timeout: Duration,
}

impl Link {
    fn new<R: Read + Send + 'static>(
        reader: R,
        writer: Box<dyn Write + Send>,
        child: Option<Child>,
    ) -> io::Result<Link> {
        let (tx, lines) = mpsc::channel();
        thread::Builder::new()
            .name("ubgi-reader".into())
            .spawn(move || {
                let mut reader = BufReader::new(reader);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).into_owned();
                            if tx.send(Ok(line)).is_err() {
                                break;
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            break;
                        }
                    }
                }
            })?;
        Ok(Link {
            writer: Some(writer),
            lines,
            child,
            timeout: DEFAULT_TIMEOUT,
        })
    }

    fn send(&mut self, line: &str) -> Result<(), UbgiError> {
        let Some(w) = self.writer.as_mut() else {
            return Err(UbgiError::Disconnected);
        };
        match writeln!(w, "{line}").and_then(|()| w.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(UbgiError::Closed {
                request: line.to_string(),
                status: self.exit_status(),
            }),
            Err(source) => Err(UbgiError::Io {
                request: line.to_string(),
                source,
            }),
        }
    }

    /// The exit status of the child, waiting a little for it (the pipe closes just before the
    /// process is reaped).
    fn exit_status(&mut self) -> Option<ExitStatus> {
        let child = self.child.as_mut()?;
        for _ in 0..20 {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// The next non-blank line, trimmed.
    fn next_line(&mut self, request: &str, deadline: Instant) -> Result<String, UbgiError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Ok(line)) => {
                    let line = line.trim();
                    if !line.is_empty() {
                        return Ok(line.to_string());
                    }
                }
                Ok(Err(source)) => {
                    return Err(UbgiError::Io {
                        request: request.to_string(),
                        source,
                    })
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(UbgiError::Timeout {
                        request: request.to_string(),
                        after: self.timeout,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(UbgiError::Closed {
                        request: request.to_string(),
                        status: self.exit_status(),
                    })
                }
            }
        }
    }

    /// Reads until a line whose first word is in `want`; `info` and unknown lines are skipped,
    /// an `error` line is returned as [`UbgiError::Engine`].
    fn expect(&mut self, request: &str, want: &[&str]) -> Result<String, UbgiError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let line = self.next_line(request, deadline)?;
            let head = line.split_whitespace().next().unwrap_or("");
            if want.contains(&head) {
                return Ok(line);
            }
            if head == "error" {
                return Err(engine_error(request, &line));
            }
        }
    }

    /// `isready` ... `readyok`, skipping everything before it (stale answers, errors).
    fn sync(&mut self) -> Result<(), UbgiError> {
        self.send("isready")?;
        let deadline = Instant::now() + self.timeout;
        while self.next_line("isready", deadline)? != "readyok" {}
        Ok(())
    }

    /// Asks the engine to quit and makes sure it is gone.
    fn close(&mut self) {
        if self.writer.is_some() {
            let _ = self.send("quit");
        }
        self.writer = None;
        if let Some(mut child) = self.child.take() {
            let deadline = Instant::now() + QUIT_GRACE;
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Drops the connection at once (after a fatal failure: a late answer must not be read as
    /// the answer to a later request).
    fn kill(&mut self) {
        self.writer = None;
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.close();
    }
}

fn engine_error(request: &str, line: &str) -> UbgiError {
    let rest = line.strip_prefix("error").unwrap_or(line).trim();
    let (first, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let code = ErrorCode::from_wire(first);
    UbgiError::Engine {
        request: request.to_string(),
        code,
        message: if code.is_some() { tail.trim() } else { rest }.to_string(),
    }
}

/// A [`Player`] whose decisions an external engine makes over UBGI (either bgci draft).
///
/// # Conversation
///
/// Start: `ubgi` (the engine's `id`, `proto`, `key` and `option` lines are kept in
/// [`UbgiPlayer::engine_info`]) until `ubgiok`, then `isready` until `readyok`. Before each
/// game: `newgame`, `isready`. A play: the position, `dice <high> <low>`, `go chequer`, read
/// until `bestmove` (or `bestmoveid`), skipping `info` and unknown lines. A play is not asked
/// when only one is legal. The position is sent as `position gnubgid <PositionID>` for a money
/// game at a centred 1-cube without the Jacoby rule, else as `position xgid <XGID>` so that the
/// engine knows the cube and the score; an engine that refuses XGIDs is sent Position IDs from
/// then on. The cube: `position xgid ...`, `go cube`, read `bestcube`. Resignations (tavla's
/// extension): `position xgid ...`, `go resign`, read `bestresign`; `go accept <level>`, read
/// `bestaccept`; an engine that answers either with `error bad_command` or `error
/// unsupported` does not know the extension, and is not asked again (it then never resigns,
/// and accepts an offer of all the resigning side can still lose, as players without
/// judgement do). At the end (drop):
/// `quit`; the process is killed if it has not exited a second later.
///
/// The play chosen is identified by its **resulting position** among the legal plays (any
/// sub-move order, `*`, `(n)`, combined moves, `bar`/`off` or `25`/`0`).
///
/// # Failures
///
/// [`Player`]'s methods cannot return errors, and a library must not panic because another
/// program misbehaved. So a failure never stops a game: the decision falls back to a fixed
/// choice (the **first legal play**, **no double**, **take**), the first failure is kept for
/// [`UbgiPlayer::take_error`] (also reachable through [`Player::take_failure`] behind a
/// `Box<dyn Player>`), and [`UbgiPlayer::failures`] counts the fallback decisions. After an
/// `error` answer or an illegal play the engine is resynchronised (`isready`) and asked again
/// next time; after a timeout, a closed pipe or an I/O error it is killed and never asked
/// again. A caller that needs fair games (an arena) checks for a failure after every game and
/// discards or reports the game.
pub struct UbgiPlayer {
    link: Link,
    info: EngineInfo,
    error: Option<UbgiError>,
    failures: u64,
    alive: bool,
    xgid: bool,
    cube: bool,
    /// The engine answered the last double with `beaver` (asked for by [`Player::beavers`]).
    beaver: bool,
    /// Whether to ask the engine about resignations (`go resign`, `go accept`, tavla's
    /// extension): until it answers one of them with an `error` line, as an engine that does
    /// not know the extension does.
    resign: bool,
    /// The engine's depth (gnubg's numbering), when it declares `engine.ply`.
    ply: Option<u8>,
    /// The engine's `engine.multipv` as last set, when it declares the key.
    multipv: Option<usize>,
    /// The engine's `engine.threads` as last set (`None` until set), when it declares the key.
    threads: Option<Option<usize>>,
    /// Whether to ask `go eval` and `go rollout` (tavla's extensions): until the engine
    /// answers one with an `error` line that says it does not know it.
    evals: bool,
    rollouts: bool,
    /// The last `go eval` answer and the state it was for (`evaluate` and `cube_equities` of
    /// one state ask once).
    last_eval: Option<(GameState, String)>,
}

/// The default of key `key` among the engine's `key` lines (`<key> <type> <range> <default>
/// ...`), when it declares it.
fn key_default<'a>(info: &'a EngineInfo, key: &str) -> Option<&'a str> {
    info.keys.iter().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some(key)).then(|| words.nth(2)).flatten()
    })
}

/// The `<name> <value>` pairs of an answer line after its keyword(s), up to `pv` (whose value
/// is the rest of the line, a play); the pairs and the play.
fn answer_pairs(line: &str) -> (Vec<(&str, &str)>, Option<&str>) {
    let mut pairs = Vec::new();
    let mut rest = line;
    loop {
        let trimmed = rest.trim_start();
        let Some((name, after)) = trimmed.split_once(char::is_whitespace) else {
            return (pairs, None);
        };
        if name == "pv" {
            return (pairs, Some(after.trim()));
        }
        let after = after.trim_start();
        let (value, tail) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
        pairs.push((name, value));
        rest = tail;
        if rest.trim().is_empty() {
            return (pairs, None);
        }
    }
}

/// The number named `name` among `pairs`.
fn number(pairs: &[(&str, &str)], name: &str) -> Result<f64, String> {
    let value = pairs
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
        .ok_or_else(|| format!("no `{name}`"))?;
    value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("`{name} {value}` is not a number"))
}

/// A rollout's 95% half-interval `name` among `pairs`: infinite where the engine leaves it
/// out (a rollout of a single game has none).
fn half_interval(pairs: &[(&str, &str)], name: &str) -> Result<f64, String> {
    if pairs.iter().any(|(n, _)| *n == name) {
        number(pairs, name)
    } else {
        Ok(f64::INFINITY)
    }
}

/// The five outcome probabilities (`win wg wbg lg lbg`) among `pairs`.
fn probabilities(pairs: &[(&str, &str)]) -> Result<[f32; 5], String> {
    let mut p = [0.0f32; 5];
    for (slot, name) in p.iter_mut().zip(["win", "wg", "wbg", "lg", "lbg"]) {
        *slot = number(pairs, name)? as f32;
    }
    Ok(p)
}

/// The position `position` leaves after the play written `text` for `roll` (seen from the
/// mover, as a [`PlayList`] holds it); why not, when it cannot be made.
fn play_after(position: &Position, roll: Roll, text: &str) -> Result<Position, String> {
    let text = text.parse::<PlayText>().map_err(|e| e.to_string())?;
    if text.is_pass() {
        return Ok(*position);
    }
    let play = text.resolve(position, roll).map_err(|e| e.to_string())?;
    position
        .apply_moves(&play)
        .ok_or_else(|| "the play does not apply".to_string())
}

/// The index among `plays` (the legal plays of `state.position` for `roll`) of the play
/// written `text` (any spelling; `pass` where none can be played); why not, when none.
fn play_index(
    state: &GameState,
    roll: Roll,
    plays: &PlayList,
    text: &str,
) -> Result<usize, String> {
    if text
        .parse::<PlayText>()
        .map_err(|e| e.to_string())?
        .is_pass()
    {
        return if plays.is_pass() {
            Ok(0)
        } else {
            Err(format!("pass, but {} plays are legal", plays.len()))
        };
    }
    let target = play_after(&state.position, roll, text)?;
    plays
        .positions()
        .iter()
        .position(|p| *p == target)
        .ok_or_else(|| format!("not among the {} legal plays", plays.len()))
}

impl UbgiPlayer {
    /// Starts `command` through `sh -c` (so it may hold arguments, pipes and redirections) and
    /// completes the handshake. The engine's stderr goes to ours.
    ///
    /// # Errors
    /// [`SpawnError::Spawn`] when the shell cannot be started, [`SpawnError::Handshake`] when
    /// the engine exits, times out or answers an `error` before `ubgiok`/`readyok`.
    pub fn spawn(command: &str) -> Result<UbgiPlayer, SpawnError> {
        let spawn_err = |source| SpawnError::Spawn {
            command: command.to_string(),
            source,
        };
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(spawn_err)?;
        let (stdin, stdout): (Option<ChildStdin>, Option<ChildStdout>) =
            (child.stdin.take(), child.stdout.take());
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(spawn_err(io::Error::other("no pipes to the child")));
        };
        let link = Link::new(stdout, Box::new(stdin), Some(child)).map_err(spawn_err)?;
        UbgiPlayer::handshake(link).map_err(|source| SpawnError::Handshake {
            command: command.to_string(),
            source,
        })
    }

    /// Talks to an engine over any byte streams (a socket, an in-process engine) and completes
    /// the handshake. A thread reads `reader`; it ends when the stream does.
    ///
    /// # Errors
    /// As [`UbgiPlayer::spawn`].
    pub fn connect<R, W>(reader: R, writer: W) -> Result<UbgiPlayer, SpawnError>
    where
        R: Read + Send + 'static,
        W: Write + Send + 'static,
    {
        let command = "(connected streams)";
        let link =
            Link::new(reader, Box::new(writer), None).map_err(|source| SpawnError::Spawn {
                command: command.to_string(),
                source,
            })?;
        UbgiPlayer::handshake(link).map_err(|source| SpawnError::Handshake {
            command: command.to_string(),
            source,
        })
    }

    fn handshake(mut link: Link) -> Result<UbgiPlayer, UbgiError> {
        let mut info = EngineInfo::default();
        link.send("ubgi")?;
        let deadline = Instant::now() + link.timeout;
        loop {
            let line = link.next_line("ubgi", deadline)?;
            let (head, rest) = line.split_once(' ').unwrap_or((&line, ""));
            let rest = rest.trim().to_string();
            match head {
                "ubgiok" => break,
                "id" => {
                    let (field, value) = rest.split_once(' ').unwrap_or((&rest, ""));
                    let value = Some(value.trim().to_string());
                    match field {
                        "name" => info.name = value,
                        "author" => info.author = value,
                        "version" => info.version = value,
                        _ => {}
                    }
                }
                "proto" => info.proto = Some(rest),
                "key" => info.keys.push(rest),
                "option" => info.options.push(rest),
                "error" => return Err(engine_error("ubgi", &line)),
                _ => {}
            }
        }
        link.send("isready")?;
        link.expect("isready", &["readyok"])?;
        Ok(UbgiPlayer {
            link,
            error: None,
            failures: 0,
            alive: true,
            xgid: true,
            cube: true,
            beaver: false,
            resign: true,
            ply: key_default(&info, "engine.ply")
                .and_then(|d| d.parse::<u8>().ok())
                .and_then(|d| d.checked_sub(1)),
            multipv: key_default(&info, "engine.multipv").map(|_| 1),
            threads: key_default(&info, "engine.threads").map(|_| None),
            evals: true,
            rollouts: true,
            last_eval: None,
            info,
        })
    }

    /// What the engine said about itself.
    #[must_use]
    pub fn engine_info(&self) -> &EngineInfo {
        &self.info
    }

    /// How long the engine may take over one answer (default [`DEFAULT_TIMEOUT`]).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.link.timeout = timeout;
    }

    /// Sends `set <key> <value>` and waits for `readyok`.
    ///
    /// # Errors
    /// The engine's `error` answer, or a failure of the connection.
    pub fn set_option(&mut self, key: &str, value: &str) -> Result<(), UbgiError> {
        if !self.alive {
            return Err(UbgiError::Disconnected);
        }
        self.last_eval = None;
        let request = format!("set {key} {value}");
        let result = self.link.send(&request).and_then(|()| {
            self.link.send("isready")?;
            let mut refused = None;
            let deadline = Instant::now() + self.link.timeout;
            loop {
                let line = self.link.next_line(&request, deadline)?;
                if line == "readyok" {
                    return refused.map_or(Ok(()), Err);
                }
                if line.starts_with("error") && refused.is_none() {
                    refused = Some(engine_error(&request, &line));
                }
            }
        });
        if let Err(e) = &result {
            if e.is_fatal() {
                self.alive = false;
                self.link.kill();
            }
        }
        result
    }

    /// The first failure not yet taken, if any.
    #[must_use]
    pub fn error(&self) -> Option<&UbgiError> {
        self.error.as_ref()
    }

    /// Takes the first failure since the last call.
    pub fn take_error(&mut self) -> Option<UbgiError> {
        self.error.take()
    }

    /// How many decisions were made by the fallback instead of the engine.
    #[must_use]
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// Whether the engine is still asked (no fatal failure so far).
    #[must_use]
    pub fn is_alive(&self) -> bool {
        self.alive
    }

    /// Records a failure; a fatal one ends the connection, another resynchronises.
    fn fail(&mut self, e: UbgiError) {
        self.failures += 1;
        self.last_eval = None;
        let fatal = e.is_fatal();
        if self.error.is_none() {
            self.error = Some(e);
        }
        if fatal {
            self.alive = false;
            self.link.kill();
        } else if let Err(e) = self.link.sync() {
            self.fail(e);
        }
    }

    /// The `position` line for `state`.
    fn position_line(&self, state: &GameState) -> String {
        let plain = state.is_money() && state.cube == Cube::default() && !state.jacoby;
        if plain || !self.xgid {
            format!("position gnubgid {}", state.position.position_id())
        } else {
            format!("position xgid {}", Xgid::new(*state))
        }
    }

    /// Sends the lines of one request; returns the request text for messages.
    fn send_all(&mut self, lines: &[&str]) -> Result<String, UbgiError> {
        for line in lines {
            self.link.send(line)?;
        }
        Ok(lines.join(" / "))
    }

    fn ask_play(
        &mut self,
        state: &GameState,
        roll: Roll,
        plays: &PlayList,
    ) -> Result<usize, UbgiError> {
        let position = self.position_line(state);
        let dice = format!("dice {} {}", roll.high(), roll.low());
        let request = self.send_all(&[&position, &dice, "go chequer"])?;
        let reply = match self.link.expect(&request, &["bestmove", "bestmoveid"]) {
            Err(UbgiError::Engine { .. }) if position.starts_with("position xgid") => {
                // An engine without XGIDs: Position IDs from now on (v0.2 requires them).
                self.link.sync()?;
                self.xgid = false;
                return self.ask_play(state, roll, plays);
            }
            other => other?,
        };
        let illegal = |reason: String| UbgiError::IllegalPlay {
            request: request.clone(),
            reply: reply.clone(),
            reason,
        };
        let (head, payload) = reply.split_once(' ').unwrap_or((&reply, ""));
        let payload = payload.trim();
        if head == "bestmoveid" {
            let after = Position::from_position_id(payload).map_err(|e| UbgiError::BadReply {
                request: request.clone(),
                reply: reply.clone(),
                reason: e.to_string(),
            })?;
            // gnubg's view is the opponent's (on roll next); accept the mover's view too.
            return plays
                .positions()
                .iter()
                .position(|p| p.flip() == after)
                .or_else(|| plays.positions().iter().position(|p| *p == after))
                .ok_or_else(|| illegal("no legal play leads to that position".into()));
        }
        // Unreadable text is a malformed answer; readable text that is no legal play, illegal.
        if let Err(e) = payload.parse::<PlayText>() {
            return Err(UbgiError::BadReply {
                request: request.clone(),
                reply: reply.clone(),
                reason: e.to_string(),
            });
        }
        play_index(state, roll, plays, payload).map_err(illegal)
    }

    /// Sets `engine.multipv` to `n` (at most 64) where it is not already.
    fn ensure_multipv(&mut self, n: usize) -> Result<(), UbgiError> {
        let n = n.clamp(1, 64);
        if self.multipv != Some(n) {
            self.set_option("engine.multipv", &n.to_string())?;
            self.multipv = Some(n);
        }
        Ok(())
    }

    /// Sets `engine.threads` to `n` where it is not already (and the engine declares it).
    fn ensure_threads(&mut self, n: usize) -> Result<(), UbgiError> {
        if matches!(self.threads, Some(t) if t != Some(n)) {
            self.set_option("engine.threads", &n.to_string())?;
            self.threads = Some(Some(n));
        }
        Ok(())
    }

    /// The engine's best `top` plays with their values, read from its `info multipv` lines.
    fn ask_ranking(
        &mut self,
        state: &GameState,
        roll: Roll,
        plays: &PlayList,
        top: usize,
    ) -> Result<Vec<PlayValue>, UbgiError> {
        // With `engine.multipv` 1 an engine lists no plays: ask for two at least.
        self.ensure_multipv(top.max(2))?;
        let position = self.position_line(state);
        let dice = format!("dice {} {}", roll.high(), roll.low());
        let request = self.send_all(&[&position, &dice, "go chequer"])?;
        let deadline = Instant::now() + self.link.timeout;
        let mut ranked = Vec::new();
        loop {
            let line = self.link.next_line(&request, deadline)?;
            let bad = |reason: String| UbgiError::BadReply {
                request: request.clone(),
                reply: line.clone(),
                reason,
            };
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some("bestmove" | "bestmoveid"), _) => break,
                (Some("error"), _) => return Err(engine_error(&request, &line)),
                (Some("info"), Some("multipv")) => {
                    let (pairs, pv) = answer_pairs(&line["info".len()..]);
                    let pv = pv.ok_or_else(|| bad("no `pv`".into()))?;
                    let index = play_index(state, roll, plays, pv).map_err(|reason| {
                        UbgiError::IllegalPlay {
                            request: request.clone(),
                            reply: line.clone(),
                            reason,
                        }
                    })?;
                    let ply = number(&pairs, "ply").map_err(&bad)?;
                    ranked.push(PlayValue {
                        index,
                        value: number(&pairs, "score").map_err(&bad)? as f32,
                        probs: probabilities(&pairs).map_err(&bad)?,
                        // UBGI's depth counts the root.
                        ply: (ply as u8).saturating_sub(1),
                    });
                }
                _ => {}
            }
        }
        if ranked.is_empty() {
            return Err(UbgiError::Unsupported {
                what: "info multipv lines (engine.multipv)",
            });
        }
        ranked.truncate(top);
        Ok(ranked)
    }

    /// The engine's `go eval` answer for `state` (before the roll): the pairs after
    /// `besteval`. One state's answer is kept, so that its probabilities and its cube
    /// equities are asked once.
    fn ask_eval(&mut self, state: &GameState) -> Option<String> {
        let state = GameState {
            dice: Dice::NotRolled,
            ..*state
        };
        if let Some((s, answer)) = &self.last_eval {
            if *s == state {
                return Some(answer.clone());
            }
        }
        if !self.alive || !self.evals {
            return None;
        }
        let position = self.position_line(&state);
        let reply = self
            .send_all(&[&position, "go eval"])
            .and_then(|request| self.link.expect(&request, &["besteval"]));
        match reply {
            Ok(line) => {
                let answer = line["besteval".len()..].trim().to_string();
                self.last_eval = Some((state, answer.clone()));
                Some(answer)
            }
            Err(e) => {
                self.refused(e, |p| p.evals = false);
                None
            }
        }
    }

    /// After an `error` answer to one of tavla's extensions: an engine that does not know it
    /// (`bad_command`, `unsupported`, or no code) is not asked again (`forget`); the engine is
    /// resynchronised. Any other failure is recorded as a failure.
    fn refused(&mut self, e: UbgiError, forget: impl FnOnce(&mut UbgiPlayer)) {
        match e {
            UbgiError::Engine { code, .. } => {
                if matches!(
                    code,
                    None | Some(ErrorCode::BadCommand | ErrorCode::Unsupported)
                ) {
                    forget(self);
                }
                if let Err(e) = self.link.sync() {
                    self.fail(e);
                }
            }
            e => self.fail(e),
        }
    }

    /// `go rollout` for `state` (before its roll, or with the roll of `afters`), watched
    /// through `control`: progress read from the engine's `info games` lines, `stop` sent
    /// when the control says so. The engine is silent only as long as the timeout allows
    /// between two lines (it reports every second).
    fn ask_rollout(
        &mut self,
        state: &GameState,
        afters: &[Position],
        request: &RolloutRequest,
        control: &RolloutControl,
    ) -> Result<Vec<RolloutValue>, UbgiError> {
        let roll = match (afters.is_empty(), state.dice) {
            (true, _) => None,
            (false, Dice::Rolled(roll)) => Some(roll),
            (false, _) => {
                return Err(UbgiError::Unsupported {
                    what: "rolling out plays without their roll",
                })
            }
        };
        if afters.len() > 64 {
            return Err(UbgiError::Unsupported {
                what: "rolling out more than 64 plays at once",
            });
        }
        if roll.is_some() {
            if self.multipv.is_none() {
                return Err(UbgiError::Unsupported {
                    what: "rolling out plays without engine.multipv",
                });
            }
            self.ensure_multipv(afters.len())?;
        }
        self.ensure_threads(request.threads)?;
        let state = GameState {
            dice: roll.map_or(Dice::NotRolled, Dice::Rolled),
            ..*state
        };
        let position = self.position_line(&state);
        let go = format!(
            "go rollout trials {} seed {} depth {} truncate {}",
            request.games,
            request.seed,
            u32::from(request.ply) + 1,
            request.truncate
        );
        let request_text = match roll {
            Some(roll) => {
                let dice = format!("dice {} {}", roll.high(), roll.low());
                self.send_all(&[&position, &dice, &go])?
            }
            None => self.send_all(&[&position, &go])?,
        };
        let result = self.read_rollout(&request_text, &state, roll, afters, control);
        if let Err(e) = &result {
            if !e.is_fatal() && !matches!(e, UbgiError::Engine { .. }) {
                // Stop the rollout and skip the rest of its answer, so that no stale line is
                // read as the answer to a later request.
                self.link.send("stop")?;
                self.link
                    .expect(&request_text, &["bestmove", "bestrollout"])?;
            }
        }
        result
    }

    /// Reads `go rollout`'s progress and answer (see [`UbgiPlayer::ask_rollout`]).
    fn read_rollout(
        &mut self,
        request_text: &str,
        state: &GameState,
        roll: Option<Roll>,
        afters: &[Position],
        control: &RolloutControl,
    ) -> Result<Vec<RolloutValue>, UbgiError> {
        let request_text = request_text.to_string();
        let plays = afters.len().max(1);
        let mut values: Vec<Option<RolloutValue>> = vec![None; plays];
        let mut stopped = false;
        let mut deadline = Instant::now() + self.link.timeout;
        loop {
            if !stopped && control.should_stop() {
                self.link.send("stop")?;
                stopped = true;
            }
            let slice = (Instant::now() + Duration::from_millis(100)).min(deadline);
            let line = match self.link.next_line(&request_text, slice) {
                Ok(line) => line,
                Err(UbgiError::Timeout { .. }) if Instant::now() < deadline => continue,
                Err(e) => return Err(e),
            };
            deadline = Instant::now() + self.link.timeout;
            let bad = |reason: String| UbgiError::BadReply {
                request: request_text.clone(),
                reply: line.clone(),
                reason,
            };
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some("error"), _) => return Err(engine_error(&request_text, &line)),
                (Some("bestrollout"), _) if roll.is_none() => {
                    let (pairs, _) = answer_pairs(&line["bestrollout".len()..]);
                    let games = number(&pairs, "games").map_err(&bad)? as u32;
                    if games == 0 {
                        return Ok(Vec::new());
                    }
                    return Ok(vec![RolloutValue {
                        games,
                        probs: probabilities(&pairs).map_err(&bad)?,
                        equity: number(&pairs, "equity").map_err(&bad)?,
                        equity_stderr: half_interval(&pairs, "ci").map_err(&bad)?
                            / ci95_factor(games),
                        difference: 0.0,
                        difference_stderr: 0.0,
                    }]);
                }
                (Some("bestmove"), _) if roll.is_some() => break,
                (Some("info"), Some("games")) => {
                    let (pairs, _) = answer_pairs(&line["info".len()..]);
                    let games = number(&pairs, "games").map_err(&bad)? as u64;
                    if let (Ok(mean), Ok(ci)) = (number(&pairs, "equity"), number(&pairs, "ci")) {
                        let z = ci95_factor(u32::try_from(games).unwrap_or(u32::MAX));
                        control.set_estimate(plays, 0, games, mean, ci / z);
                    } else {
                        control.counter().store(
                            games.saturating_mul(plays as u64),
                            std::sync::atomic::Ordering::Relaxed,
                        );
                    }
                }
                (Some("info"), Some("multipv")) if roll.is_some() => {
                    let (pairs, pv) = answer_pairs(&line["info".len()..]);
                    let pv = pv.ok_or_else(|| bad("no `pv`".into()))?;
                    let after = roll
                        .ok_or_else(|| "no roll".to_string())
                        .and_then(|roll| play_after(&state.position, roll, pv))
                        .map_err(&bad)?;
                    let Some(k) = afters.iter().position(|a| *a == after) else {
                        return Err(UbgiError::Unsupported {
                            what: "rolling out plays other than its own best ones",
                        });
                    };
                    let games = number(&pairs, "games").map_err(&bad)?;
                    let equity = number(&pairs, "score").map_err(&bad)?;
                    // The engine's half-width at its games, as tavla's own (Student's t).
                    let z = ci95_factor(games as u32);
                    let stderr = half_interval(&pairs, "ci").map_err(&bad)? / z;
                    if pairs.iter().any(|(n, _)| *n == "diff") {
                        values[k] = Some(RolloutValue {
                            games: games as u32,
                            probs: probabilities(&pairs).map_err(&bad)?,
                            equity,
                            equity_stderr: stderr,
                            difference: number(&pairs, "diff").map_err(&bad)?,
                            difference_stderr: half_interval(&pairs, "diffci").map_err(&bad)? / z,
                        });
                    } else {
                        control.set_estimate(plays, k, games as u64, equity, stderr);
                    }
                }
                _ => {}
            }
        }
        // Stopped before any game: no values. Otherwise one for each play.
        if values.iter().all(Option::is_none) {
            return Ok(Vec::new());
        }
        values
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or(UbgiError::Unsupported {
                what: "rolling out plays other than its own best ones",
            })
    }

    /// `position xgid` + `go` (`go cube`, `go resign`, ...); returns the word after `answer`
    /// (`bestcube`, ...), one of `words`.
    fn ask_word(
        &mut self,
        state: &GameState,
        go: &str,
        answer: &str,
        words: &[&str],
    ) -> Result<String, UbgiError> {
        let position = format!("position xgid {}", Xgid::new(*state));
        let request = self.send_all(&[&position, go])?;
        let reply = self.link.expect(&request, &[answer])?;
        let word = reply.split_whitespace().nth(1).unwrap_or("").to_string();
        if words.contains(&word.as_str()) {
            Ok(word)
        } else {
            Err(UbgiError::BadReply {
                request,
                reply,
                reason: format!("expected {answer} {}", words.join("|")),
            })
        }
    }

    /// A question about resigning (`go resign` or `go accept <level>`, tavla's extension) in
    /// `state` (before the roll), answered by a word after `answer`; `None` when it cannot be
    /// asked. An engine that answers it with `error bad_command` or `error unsupported` (or an
    /// `error` without a code) does not know the extension: it is not asked again. An `error`
    /// answer is not counted as a failure.
    fn resign_question(
        &mut self,
        state: &GameState,
        go: &str,
        answer: &str,
        words: &[&str],
    ) -> Option<String> {
        if !self.alive {
            self.failures += 1;
            return None;
        }
        if !self.resign || !self.xgid {
            return None;
        }
        let state = GameState {
            dice: Dice::NotRolled,
            ..*state
        };
        match self.ask_word(&state, go, answer, words) {
            Ok(word) => Some(word),
            Err(UbgiError::Engine { code, .. }) => {
                // An unknown command: the engine does not know the extension. Another error
                // is about this question only. Either way the default answers it, and the
                // lines still to come are skipped.
                if matches!(
                    code,
                    None | Some(ErrorCode::BadCommand | ErrorCode::Unsupported)
                ) {
                    self.resign = false;
                }
                if let Err(e) = self.link.sync() {
                    self.fail(e);
                }
                None
            }
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// A cube question, with the fallback.
    fn cube_question(&mut self, state: &GameState, words: &[&str], fallback: bool) -> bool {
        if !self.alive {
            self.failures += 1;
            return fallback;
        }
        if self.cube && !self.xgid {
            // Cube questions need the cube and the score: XGIDs.
            self.cube = false;
            self.fail(UbgiError::Unsupported {
                what: "position xgid, which cube decisions need",
            });
            return fallback;
        }
        if !self.cube {
            // Already reported: this engine does not answer cube questions.
            self.failures += 1;
            return fallback;
        }
        match self.ask_word(state, "go cube", "bestcube", words) {
            Ok(word) => {
                self.beaver = word == "beaver";
                matches!(word.as_str(), "double" | "take" | "beaver")
            }
            Err(e) => {
                if let UbgiError::Engine { .. } = e {
                    self.cube = false;
                }
                self.fail(e);
                fallback
            }
        }
    }
}

impl fmt::Debug for UbgiPlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UbgiPlayer")
            .field("info", &self.info)
            .field("error", &self.error)
            .field("failures", &self.failures)
            .field("alive", &self.alive)
            .finish_non_exhaustive()
    }
}

impl Player for UbgiPlayer {
    /// `ubgi:<id name>`.
    fn name(&self) -> String {
        match &self.info.name {
            Some(n) => format!("ubgi:{n}"),
            None => "ubgi".to_string(),
        }
    }

    fn new_game(&mut self) {
        self.last_eval = None;
        if !self.alive {
            return;
        }
        if let Err(e) = self.link.send("newgame").and_then(|()| self.link.sync()) {
            self.fail(e);
        }
    }

    /// The engine's play; the first legal play when it fails (see the type's docs).
    fn choose_play(&mut self, state: &GameState, roll: Roll, plays: &PlayList) -> usize {
        if plays.len() <= 1 {
            return 0;
        }
        if !self.alive {
            self.failures += 1;
            return 0;
        }
        match self.ask_play(state, roll, plays) {
            Ok(index) => index,
            Err(e) => {
                self.fail(e);
                0
            }
        }
    }

    /// The engine's `go cube` answer; no double when it fails.
    fn wants_to_double(&mut self, state: &GameState) -> bool {
        let state = GameState {
            dice: Dice::NotRolled,
            ..*state
        };
        self.cube_question(&state, &["double", "nodouble"], false)
    }

    /// The engine's `go cube` answer to the pending double; take when it fails.
    fn accepts_double(&mut self, state: &GameState) -> bool {
        // `state` is seen from the side that answers; the XGID names the doubler.
        let doubler = GameState {
            position: state.position.flip(),
            turn: state.turn.other(),
            dice: Dice::DoubleOffered,
            ..*state
        };
        self.beaver = false;
        self.cube_question(&doubler, &["take", "drop", "pass", "beaver"], true)
    }

    /// Whether the engine's answer to the double just taken was `beaver` (tavla's UBGI
    /// extension, sent only where the XGID allows beavers).
    fn beavers(&mut self, state: &GameState) -> bool {
        state.beavers && std::mem::take(&mut self.beaver)
    }

    /// The engine's `go resign` answer (tavla's extension; see [`UbgiPlayer`]); no resignation
    /// when it cannot be asked or fails.
    fn resigns(&mut self, state: &GameState, _cube: bool) -> Option<Resign> {
        let words = ["no", "single", "gammon", "backgammon"];
        let word = self.resign_question(state, "go resign", "bestresign", &words)?;
        word.parse().ok()
    }

    /// The engine's `go accept <level>` answer (tavla's extension); when it cannot be asked or
    /// fails, the default: accepted when the offer is all the resigning side can still lose.
    fn accepts_resignation(&mut self, state: &GameState, _cube: bool, offered: Resign) -> bool {
        let go = format!("go accept {offered}");
        match self.resign_question(state, &go, "bestaccept", &["accept", "reject"]) {
            Some(word) => word == "accept",
            None => offered >= Resign::worst_for(&state.position),
        }
    }

    /// The engine's depth: `engine.ply`'s default less one (UBGI counts the root), or as
    /// last set; `None` for an engine that does not declare the key.
    fn ply(&self) -> Option<u8> {
        self.ply
    }

    /// `set engine.ply <ply + 1>`; `false` when the engine does not declare the key or refuses
    /// the value.
    fn set_ply(&mut self, ply: u8) -> bool {
        if self.ply.is_none() || !self.alive {
            return false;
        }
        match self.set_option("engine.ply", &(u32::from(ply) + 1).to_string()) {
            Ok(()) => {
                self.ply = Some(ply);
                self.last_eval = None;
                true
            }
            Err(e) => {
                if e.is_fatal() {
                    self.fail(e);
                }
                false
            }
        }
    }

    /// The engine's `info multipv` lines for `go chequer` with `engine.multipv` at `top` (at
    /// least 2, since an engine lists no plays at 1); `None` for an engine that does not
    /// declare the key, or when it fails.
    fn rank_plays(
        &mut self,
        state: &GameState,
        roll: Roll,
        plays: &PlayList,
        top: usize,
    ) -> Option<Vec<PlayValue>> {
        if !self.alive || self.multipv.is_none() || plays.len() < 2 || top == 0 {
            return None;
        }
        match self.ask_ranking(state, roll, plays, top) {
            Ok(ranked) => Some(ranked),
            Err(e) => {
                self.refused(e, |p| p.multipv = None);
                None
            }
        }
    }

    /// The engine's `go eval` probabilities (tavla's extension); `None` for an engine that
    /// does not know it, or when it fails.
    fn evaluate(&mut self, state: &GameState) -> Option<[f32; 5]> {
        let answer = self.ask_eval(state)?;
        let (pairs, _) = answer_pairs(&answer);
        match probabilities(&pairs) {
            Ok(p) => Some(p),
            Err(reason) => {
                self.fail(UbgiError::BadReply {
                    request: "go eval".into(),
                    reply: format!("besteval {answer}"),
                    reason,
                });
                None
            }
        }
    }

    /// The cube equities of the engine's `go eval` answer (`nodouble`, `doubletake`,
    /// `doublepass`); `None` where it gives none (no cube in play) or cannot be asked.
    fn cube_equities(&mut self, state: &GameState) -> Option<[f32; 3]> {
        if !self.xgid {
            return None;
        }
        let answer = self.ask_eval(state)?;
        let (pairs, _) = answer_pairs(&answer);
        let mut e = [0.0f32; 3];
        for (slot, name) in e.iter_mut().zip(["nodouble", "doubletake", "doublepass"]) {
            *slot = number(&pairs, name).ok()? as f32;
        }
        Some(e)
    }

    /// `go rollout` (tavla's extension) with the request's trials, seed, depth and truncation,
    /// and `engine.threads`. For the plays of a roll the engine rolls out its own best
    /// `afters.len()` plays (`engine.multipv`), so `afters` must be those, as a UBGI engine
    /// relaying this player gets them from [`Player::rank_plays`]; other plays get `None`.
    /// Values are as precise as the answer's four decimals.
    fn rollout(
        &mut self,
        state: &GameState,
        afters: &[Position],
        request: &RolloutRequest,
        control: &RolloutControl,
    ) -> Option<Vec<RolloutValue>> {
        if !self.alive || !self.rollouts {
            return None;
        }
        match self.ask_rollout(state, afters, request, control) {
            Ok(values) => Some(values),
            Err(e) => {
                self.refused(e, |p| p.rollouts = false);
                None
            }
        }
    }

    fn take_failure(&mut self) -> Option<Box<dyn StdError + Send + Sync>> {
        self.take_error()
            .map(|e| Box::new(e) as Box<dyn StdError + Send + Sync>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rollout_half_interval_left_out_is_unknown() {
        let pairs = [("games", "1"), ("equity", "+0.1000")];
        assert_eq!(half_interval(&pairs, "ci"), Ok(f64::INFINITY));
        let pairs = [("games", "2"), ("ci", "0.1234")];
        assert_eq!(half_interval(&pairs, "ci"), Ok(0.1234));
        // Written, it must be a number.
        let pairs = [("ci", "inf")];
        assert!(half_interval(&pairs, "ci").is_err());
    }
}
