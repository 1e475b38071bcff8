//! gnubg's external-player protocol: the engine answers one request line at a time over a TCP
//! socket, as gnubg does after `external <host>:<port>` (SPEC-fibs-board.md §5). FIBS bots and
//! programs written for gnubg's external mode drive tavla the same way.
//!
//! | request | answer |
//! |---|---|
//! | `board:...` (a FIBS board string, either dialect), then optionally `jacobyrule on\|off`, `crawfordrule on\|off`, `beavers on\|off`, `resignation N` | the action of the side to act: a play in plain notation with a trailing space (`24/18 13/11 `; an empty line when no play is legal), `double` or `roll` before the roll, `take`, `drop` or `beaver` when doubled, `accept` or `reject` when `resignation N` offers it N points (1 single, 2 gammon, 3 backgammon, times the cube) |
//! | `evaluation fibsboard board:... [plies N] [cubeful\|cubeless\|cube on\|off] [jacobyrule on\|off] [crawfordrule on\|off] [beavers on\|off] [resignation N] [noise 0] [prune [on\|off]] [deterministic [on\|off]]` | six numbers for the side on roll, before it rolls: the chances of winning, winning a gammon and a backgammon, losing a gammon and a backgammon, and the equity (money play: cubeless, or cubeful with the cube where it is) or the chance of winning the match. As in gnubg the equity is cubeless unless `cubeful` (or `cube on`) is asked, and cubeful money play keeps the Jacoby rule unless `jacobyrule off` |
//! | `version` | four lines: `Interface: 2`, `RFBF: 0`, `Engine: ...`, `Software: ...` |
//! | `help` | the requests, one a line |
//! | `set debug on\|off` | `Debug output ON` / `OFF` (the decisions are then explained on stderr) |
//! | `exit`, `quit` | the connection closes |
//!
//! A request that cannot be read gets one line `Error: ...` naming what is wrong, and the
//! engine keeps serving. Requests are answered for the side to act whatever the board's
//! "player" is: the side on roll, or the side a pending double is offered to.

use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::Duration;

use tavla_core::{Dice, GameState, PlayList, Resign};
use tavla_notation::{format_plain, FibsBoard};
use tavla_player::Player;

/// What `evaluation` requests: the side on roll's outcome chances and equity (money: cubeless,
/// or cubeful with the cube where it is; match play: its chance of winning the match), by a
/// search `plies` deep.
pub trait Evaluate {
    /// `[win, win gammon, win backgammon, lose gammon, lose backgammon, equity]` for the side
    /// on roll of `state` (its position from that side, the dice ignored).
    ///
    /// # Errors
    /// Why it cannot evaluate the game of `state` (a match beyond its match equity table), in
    /// words.
    fn evaluate(&mut self, state: &GameState, plies: u8, cubeful: bool)
        -> Result<[f32; 6], String>;
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Lines to send, each ended by a newline.
    Lines(Vec<String>),
    /// Close the connection.
    Close,
}

/// An engine speaking gnubg's external-player protocol: a [`Player`] decides, an [`Evaluate`]
/// (if any) answers `evaluation` requests.
pub struct External {
    player: Box<dyn Player>,
    evaluator: Option<Box<dyn Evaluate>>,
    /// `Software:` in the answer to `version`.
    software: String,
    debug: bool,
    plays: PlayList,
}

/// The requests, for `help`.
const HELP: [&str; 6] = [
    "board:... [jacobyrule on|off] [crawfordrule on|off] [beavers on|off] [resignation N]",
    "evaluation fibsboard board:... [plies N] [cubeful|cubeless|cube on|off] [jacobyrule on|off] [noise 0] [prune] [deterministic]",
    "version",
    "set debug on|off",
    "help",
    "exit",
];

fn error(message: impl Into<String>) -> Reply {
    let message = message.into();
    Reply::Lines(vec![format!(
        "Error: {}",
        crate::response::capped(&message)
    )])
}

fn line(text: impl Into<String>) -> Reply {
    Reply::Lines(vec![text.into()])
}

/// `on` or `off`, for `option`.
fn on_off(option: &str, value: Option<&str>) -> Result<bool, String> {
    match value {
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        Some(v) => Err(format!("{option}: expected on or off, got `{v}`")),
        None => Err(format!("{option}: expected on or off")),
    }
}

impl External {
    /// The engine of `player`; `evaluator` answers `evaluation` requests (without one they get
    /// an error). `software` is the program's name and version, for `version`.
    #[must_use]
    pub fn new(
        player: Box<dyn Player>,
        evaluator: Option<Box<dyn Evaluate>>,
        software: impl Into<String>,
    ) -> External {
        External {
            player,
            evaluator,
            software: software.into(),
            debug: false,
            plays: PlayList::new(),
        }
    }

    /// The answer to one request line.
    pub fn answer(&mut self, request: &str) -> Reply {
        let mut words = request.split_whitespace();
        let Some(first) = words.next() else {
            // As gnubg answers a blank line.
            return error("no command given");
        };
        if first.starts_with("board:") {
            return match self.board(first, words) {
                Ok(r) => r,
                Err(e) => error(e),
            };
        }
        match first.to_ascii_lowercase().as_str() {
            "evaluation" => match self.evaluation(words) {
                Ok(r) => r,
                Err(e) => error(e),
            },
            "version" => Reply::Lines(vec![
                "Interface: 2".to_string(),
                "RFBF: 0".to_string(),
                format!("Engine: {}", self.player.name()),
                format!("Software: {}", self.software),
            ]),
            "help" => Reply::Lines(HELP.iter().map(|s| (*s).to_string()).collect()),
            "set" => match (words.next(), words.next(), words.next()) {
                (Some("debug"), v, None) => match on_off("set debug", v) {
                    Ok(on) => {
                        self.debug = on;
                        line(if on {
                            "Debug output ON"
                        } else {
                            "Debug output OFF"
                        })
                    }
                    Err(e) => error(e),
                },
                _ => error("expected `set debug on` or `set debug off`"),
            },
            "exit" | "quit" => Reply::Close,
            _ => error(format!(
                "unknown request `{first}` (expected board:..., evaluation, version, set debug, \
                 help or exit)"
            )),
        }
    }

    /// A `board:` request: the action of the side to act.
    fn board<'a>(
        &mut self,
        board: &str,
        mut options: impl Iterator<Item = &'a str>,
    ) -> Result<Reply, String> {
        let mut state = board
            .parse::<FibsBoard>()
            .map_err(|e| format!("the board: {e}"))?
            .state;
        let mut resignation = None;
        while let Some(option) = options.next() {
            match option.to_ascii_lowercase().as_str() {
                "jacobyrule" => state.jacoby = on_off(option, options.next())?,
                "beavers" => state.beavers = on_off(option, options.next())?,
                // tavla's reading of the board already infers the Crawford game.
                "crawfordrule" => {
                    on_off(option, options.next())?;
                }
                "resignation" => {
                    let n = options
                        .next()
                        .ok_or("resignation: expected N (1, 2 or 3)")?;
                    resignation = match n {
                        "0" => None,
                        "1" => Some(Resign::Single),
                        "2" => Some(Resign::Gammon),
                        "3" => Some(Resign::Backgammon),
                        _ => return Err(format!("resignation: expected 1, 2 or 3, got `{n}`")),
                    };
                }
                _ => return Err(format!("unknown option `{option}`")),
            }
        }
        if state.match_length > 0 {
            state.jacoby = false;
            state.beavers = false;
        }
        if let Some(why) = state
            .why_unplayable()
            .or_else(|| self.player.cannot_play(&state))
        {
            return Err(why);
        }
        let cube = state.match_length > 0 || state.cube.log2 > 0 || state.may_double();
        if let Some(offered) = resignation {
            // The opponent of the side to act offers to resign: its view, on roll.
            let mut resigner = state;
            if resigner.dice == Dice::DoubleOffered {
                resigner.dice = Dice::NotRolled;
            } else {
                resigner.position = resigner.position.flip();
                resigner.turn = resigner.turn.other();
                resigner.dice = Dice::NotRolled;
            }
            let accepts = self.player.accepts_resignation(&resigner, cube, offered);
            self.explain(format_args!("resignation {offered}: accepts {accepts}"));
            return Ok(line(if accepts { "accept" } else { "reject" }));
        }
        match state.dice {
            Dice::DoubleOffered => {
                // The doubler is on roll; the side doubled answers, from its own view.
                let mut taker = state;
                taker.position = state.position.flip();
                taker.turn = state.turn.other();
                let take = self.player.accepts_double(&taker);
                let beaver = take && taker.may_beaver() && self.player.beavers(&taker);
                self.explain(format_args!("doubled: take {take}, beaver {beaver}"));
                Ok(line(match (take, beaver) {
                    (true, true) => "beaver",
                    (true, false) => "take",
                    (false, _) => "drop",
                }))
            }
            Dice::NotRolled => {
                let double = state.may_double() && self.player.wants_to_double(&state);
                self.explain(format_args!("before the roll: double {double}"));
                Ok(line(if double { "double" } else { "roll" }))
            }
            Dice::Rolled(roll) => {
                state.position.legal_plays(roll, &mut self.plays);
                // No legal play: the list holds the one empty play.
                if self.plays.is_pass() {
                    return Ok(line(""));
                }
                let index = match self.plays.len() {
                    1 => 0,
                    _ => self.player.choose_play(&state, roll, &self.plays),
                };
                let play = self.plays.play(index.min(self.plays.len() - 1));
                let text = format_plain(&state.position, &play);
                self.explain(format_args!(
                    "{roll}: {text} (of {} plays)",
                    self.plays.len()
                ));
                // gnubg ends the play with a space.
                Ok(line(format!("{text} ")))
            }
        }
    }

    /// An `evaluation fibsboard board:...` request.
    fn evaluation<'a>(
        &mut self,
        mut words: impl Iterator<Item = &'a str>,
    ) -> Result<Reply, String> {
        if words.next().map(str::to_ascii_lowercase).as_deref() != Some("fibsboard") {
            return Err("expected `evaluation fibsboard board:...`".to_string());
        }
        let board = words
            .next()
            .ok_or("evaluation fibsboard: expected the board")?;
        let mut state = board
            .parse::<FibsBoard>()
            .map_err(|e| format!("the board: {e}"))?
            .state;
        // gnubg's defaults: cubeless, and (for cubeful money play) the Jacoby rule on.
        let (mut plies, mut cubeful) = (0u8, false);
        state.jacoby = state.match_length == 0;
        let mut words = words.peekable();
        while let Some(option) = words.next() {
            match option.to_ascii_lowercase().as_str() {
                "plies" => {
                    let n = words.next().ok_or("plies: expected N")?;
                    plies = n
                        .parse()
                        .ok()
                        .filter(|&p| p <= 3)
                        .ok_or_else(|| format!("plies: expected 0 to 3, got `{n}`"))?;
                }
                "cubeful" => cubeful = true,
                "cubeless" => cubeful = false,
                "cube" => cubeful = on_off(option, words.next())?,
                "jacobyrule" => {
                    state.jacoby = on_off(option, words.next())? && state.match_length == 0;
                }
                // Read as gnubg reads them, and of no weight here: the board already says
                // whether this is the Crawford game, and an evaluation has no double to beaver
                // nor resignation to answer.
                "crawfordrule" | "beavers" => {
                    on_off(option, words.next())?;
                }
                "resignation" => {
                    let n = words.next().ok_or("resignation: expected N (0 to 3)")?;
                    if !matches!(n, "0" | "1" | "2" | "3") {
                        return Err(format!("resignation: expected 0 to 3, got `{n}`"));
                    }
                }
                "noise" => {
                    let x = words.next().ok_or("noise: expected X")?;
                    match x.parse::<f64>() {
                        Ok(0.0) => {}
                        Ok(_) => {
                            return Err("noise: tavla evaluates without noise (noise 0)".into())
                        }
                        Err(_) => return Err(format!("noise: expected a number, got `{x}`")),
                    }
                }
                // tavla's search is deterministic and prunes its inner choices as it is set
                // to; an `on` or `off` after either is read and passed over.
                "prune" | "deterministic" => {
                    if words.peek().is_some_and(|w| {
                        w.eq_ignore_ascii_case("on") || w.eq_ignore_ascii_case("off")
                    }) {
                        words.next();
                    }
                }
                _ => return Err(format!("unknown option `{option}`")),
            }
        }
        let evaluator = self
            .evaluator
            .as_mut()
            .ok_or("this engine has no evaluation")?;
        let v = evaluator.evaluate(&state, plies, cubeful)?;
        let text: Vec<String> = v.iter().map(|x| format!("{x:.6}")).collect();
        Ok(line(text.join(" ")))
    }

    fn explain(&self, what: std::fmt::Arguments<'_>) {
        if self.debug {
            eprintln!("external: {what}");
        }
    }

    /// Answers the requests of one connection, `input` to `output`, until `exit` or the end of
    /// the input.
    ///
    /// # Errors
    /// When reading or writing fails.
    pub fn serve(&mut self, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
        use crate::lines::{read_line, LineRead};
        let mut buf = Vec::new();
        loop {
            let request = match read_line(&mut input, &mut buf)? {
                LineRead::End => break,
                LineRead::Line => String::from_utf8_lossy(&buf).into_owned(),
                LineRead::TooLong => {
                    writeln!(
                        output,
                        "Error: a request longer than {} bytes, skipped",
                        crate::lines::MAX_LINE
                    )?;
                    output.flush()?;
                    continue;
                }
            };
            // gnubg's client ends each request with a NUL byte after its line end, which then
            // starts the next line: NULs around a request are not part of it, and NULs alone
            // (the last one, before the connection closes) are no request.
            let line = request.trim_matches(|c| matches!(c, '\n' | '\r'));
            let request = line.trim_matches('\0');
            if request.is_empty() && !line.is_empty() {
                continue;
            }
            match self.answer(request) {
                Reply::Close => break,
                Reply::Lines(lines) => {
                    for l in lines {
                        writeln!(output, "{l}")?;
                    }
                    output.flush()?;
                }
            }
        }
        Ok(())
    }

    /// Accepts connections on `listener` one at a time, as gnubg does, answering each until it
    /// closes, or until `idle` passes without a request (when given: a client that falls
    /// silent does not hold the one connection served for ever); returns after `connections`
    /// of them (never, when `None`).
    ///
    /// # Errors
    /// When accepting a connection fails.
    pub fn listen(
        &mut self,
        listener: &TcpListener,
        connections: Option<usize>,
        idle: Option<Duration>,
    ) -> io::Result<()> {
        for (served, stream) in listener.incoming().enumerate() {
            let stream = stream?;
            let peer = stream
                .peer_addr()
                .map_or_else(|_| "a client".to_string(), |a| a.to_string());
            // A zero duration is refused by the socket: no limit then.
            let idle = idle.filter(|d| !d.is_zero());
            let ended = stream
                .set_read_timeout(idle)
                .and_then(|()| stream.try_clone())
                .and_then(|reader| self.serve(BufReader::new(reader), &stream));
            match ended {
                Ok(()) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    let secs = idle.map_or(0, |d| d.as_secs());
                    eprintln!(
                        "external: closed the connection from {peer}: no request in {secs} s"
                    );
                }
                Err(e) => self.explain(format_args!("connection from {peer} ended: {e}")),
            }
            if connections.is_some_and(|n| served + 1 >= n) {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_too_long_is_skipped_with_an_error() {
        let mut e = External::new(Box::new(tavla_player::RandomPlayer::new(1)), None, "tavla");
        let input = format!("{}\n", "x".repeat(200_000));
        let mut out = Vec::new();
        e.serve(input.as_bytes(), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "Error: a request longer than 65536 bytes, skipped\n"
        );
    }
    use tavla_player::RandomPlayer;

    /// The FIBS client specification's own example: the start, "You" on roll with 62.
    const START_62: &str = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";

    fn engine() -> External {
        External::new(Box::new(RandomPlayer::new(3)), None, "test")
    }

    fn one(r: Reply) -> String {
        match r {
            Reply::Lines(l) if l.len() == 1 => l[0].clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_play_is_legal_plain_and_ends_with_a_space() {
        let mut e = engine();
        let reply = one(e.answer(START_62));
        assert!(reply.ends_with(' '), "{reply:?}");
        let state = START_62.parse::<FibsBoard>().unwrap().state;
        let mut plays = PlayList::new();
        let roll = state.roll().unwrap();
        state.position.legal_plays(roll, &mut plays);
        let legal: Vec<String> = (0..plays.len())
            .map(|i| format_plain(&state.position, &plays.play(i)))
            .collect();
        assert!(legal.contains(&reply.trim_end().to_string()), "{reply:?}");
        // No legal play (a checker on the bar against a closed board): an empty line.
        let closed = "board:X:O:0:0:0:0:14:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-3:-2:-2:-2:-2:-2:-2:1:1:6:6:6:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";
        assert_eq!(one(e.answer(closed)), "");
    }

    #[test]
    fn cube_questions_and_the_session_commands() {
        let mut e = engine();
        // Before the roll (dice 0 0): a random player never doubles.
        let not_rolled = START_62.replace(":1:6:2:0:0:1:", ":1:0:0:0:0:1:");
        assert_eq!(one(e.answer(&not_rolled)), "roll");
        // The opponent has doubled (gnubg's -1): a random player takes.
        let doubled = not_rolled.replace(":1:1:1:0:1:-1:", ":1:1:1:-1:1:-1:");
        assert_eq!(one(e.answer(&doubled)), "take");
        // Resignations: a random player accepts only all the resigner can lose.
        assert_eq!(
            one(e.answer(&format!("{not_rolled} resignation 1"))),
            "reject"
        );
        assert_eq!(
            one(e.answer(&format!("{not_rolled} resignation 3"))),
            "accept"
        );
        assert!(one(e.answer(&format!("{not_rolled} beavers maybe")))
            .starts_with("Error: beavers: expected on or off"));
        assert!(one(e.answer("evaluation fibsboard board:x")).starts_with("Error:"));
        assert_eq!(
            one(e.answer(&format!("evaluation fibsboard {START_62}"))),
            "Error: this engine has no evaluation"
        );
        assert_eq!(one(e.answer("set debug off")), "Debug output OFF");
        assert_eq!(one(e.answer("")), "Error: no command given");
        assert_eq!(one(e.answer("   ")), "Error: no command given");
        assert_eq!(e.answer("exit"), Reply::Close);
        let Reply::Lines(v) = e.answer("version") else {
            panic!()
        };
        assert_eq!(v[0], "Interface: 2");
        assert_eq!(v[3], "Software: test");
    }
}
