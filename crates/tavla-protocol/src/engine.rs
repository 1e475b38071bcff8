//! The engine side: [`Engine`] holds what the controller has said and answers each command
//! with the [`Player`]'s decisions; [`Engine::run`] is the loop over a reader and a writer.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use tavla_core::{BySide, Cube, CubeOwner, Dice, GameState, Play, PlayList, Position, Roll, Side};
use tavla_notation::Xgid;
use tavla_player::{PlayValue, Player, RolloutControl, RolloutRequest, RolloutValue};

use crate::command::{BarePosition, Command, Go, GoMode, PositionSpec, SessionSpec};
use crate::response::{CubeAction, DraftAnswer, ErrorCode, IdField, KeySpec, KeyType, Response};

/// The options tavla declares (`key` lines for v0.2, `option` lines for v0.1).
pub const KEYS: [KeySpec; 4] = [
    KeySpec {
        key: "game.variant",
        option_name: "Variant",
        kind: KeyType::Enum(&["backgammon"]),
        default: "backgammon",
        minor: false,
        description: "rules variant (standard backgammon only)",
    },
    KeySpec {
        key: "game.jacoby",
        option_name: "Jacoby",
        kind: KeyType::Bool,
        default: "false",
        minor: false,
        description: "money play: gammons count single while the cube is centred (for positions that do not carry the rule)",
    },
    KeySpec {
        key: "game.beavers",
        option_name: "Beavers",
        kind: KeyType::Bool,
        default: "false",
        minor: false,
        description: "money play: a side doubled may beaver (for positions that do not carry the rule)",
    },
    KeySpec {
        key: "engine.info",
        option_name: "Info",
        kind: KeyType::Bool,
        default: "true",
        minor: true,
        description: "write an info line before each answer",
    },
];

/// The search options, declared besides [`KEYS`] when the player searches
/// ([`Player::ply`]): `engine.ply` (UBGI v0.2's root-inclusive depth, gnubg's ply plus one;
/// its default, declared here as 1, is the player's own), `engine.multipv` and
/// `engine.threads` (`go rollout`'s worker threads).
pub const SEARCH_KEYS: [KeySpec; 3] = [
    KeySpec {
        key: "engine.ply",
        option_name: "Ply",
        kind: KeyType::Int { min: 1, max: 4 },
        default: "1",
        minor: false,
        description:
            "root-inclusive decision depth (1: the plays valued as they stand; gnubg's ply + 1)",
    },
    KeySpec {
        key: "engine.multipv",
        option_name: "MultiPV",
        kind: KeyType::Int { min: 1, max: 64 },
        default: "1",
        minor: true,
        description: "plays listed, best first, in info multipv lines before each bestmove",
    },
    KeySpec {
        key: "engine.threads",
        option_name: "Threads",
        kind: KeyType::Int { min: 0, max: 256 },
        default: "0",
        minor: true,
        description: "worker threads of go rollout (0: one per core)",
    },
];

/// `go rollout`'s games when `trials` is not given, and the most it takes.
pub const ROLLOUT_TRIALS: u64 = 1296;
const MAX_ROLLOUT_TRIALS: u64 = 100_000_000;

/// How often a running rollout reports its progress (`info games .. trials .. time_ms ..`).
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// `engine.ply`'s values as text, for its declared default.
const PLY_TEXT: [&str; 4] = ["1", "2", "3", "4"];

/// What the engine answers to one line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    /// The lines to write, in order.
    pub responses: Vec<Response>,
    /// The controller said `quit`: stop serving.
    pub quit: bool,
}

/// An answer that is an `error` line.
struct Refusal(ErrorCode, String);

type Answer<T> = Result<T, Refusal>;

fn bad_state(message: impl Into<String>) -> Refusal {
    Refusal(ErrorCode::BadState, message.into())
}

/// Everything around the checkers, as the session commands or the last full position set it.
#[derive(Debug, Clone, Copy)]
struct Context {
    turn: Side,
    cube: Cube,
    score: BySide<u32>,
    match_length: u32,
    /// The Crawford rule of the session (`newsession ... crawford on|off`).
    crawford_rule: bool,
    /// Whether this game is the Crawford game, when a position said so (XGID, BPN, Match ID).
    crawford_game: Option<bool>,
    /// The first score of the session with exactly one side at 1-away (the Crawford game's)
    /// and how many `newgame`s came at it: a later score, or a second game at it, is after the
    /// Crawford game.
    crawford_at: Option<(BySide<u32>, u32)>,
    jacoby: bool,
    beavers: bool,
    /// XGID's cube limit: log2 of the largest cube; 0 = cubeless.
    max_cube_log2: u8,
}

impl Default for Context {
    fn default() -> Context {
        Context {
            turn: Side::X,
            cube: Cube::default(),
            score: BySide::default(),
            match_length: 0,
            crawford_rule: true,
            crawford_game: None,
            crawford_at: None,
            jacoby: false,
            beavers: false,
            max_cube_log2: Xgid::DEFAULT_MAX_CUBE_LOG2,
        }
    }
}

impl Context {
    /// Whether this game is the Crawford game: as the position said, else (session commands
    /// only) the first game with exactly one side at 1-away under the Crawford rule: at the
    /// first such score of the session, before a second `newgame` at it.
    fn crawford(&self) -> bool {
        if !self.one_away() {
            return false;
        }
        self.crawford_game.unwrap_or_else(|| {
            self.crawford_rule
                && self
                    .crawford_at
                    .is_none_or(|(score, games)| score == self.score && games <= 1)
        })
    }

    /// Whether exactly one side is 1-away in a match.
    fn one_away(&self) -> bool {
        let len = self.match_length;
        len > 0 && ((self.score.x + 1 == len) != (self.score.o + 1 == len))
    }

    /// Notes the score just set: the first with exactly one side at 1-away is the Crawford
    /// game's.
    fn scored(&mut self) {
        if self.crawford_at.is_none() && self.one_away() {
            self.crawford_at = Some((self.score, 0));
        }
    }

    /// Notes a `newgame`: a second game at the Crawford game's score is after it.
    fn new_game(&mut self) {
        self.crawford_game = None;
        if let Some((score, games)) = &mut self.crawford_at {
            if *score == self.score {
                *games += 1;
            }
        }
    }

    fn state(&self, position: Position, dice: Dice) -> GameState {
        let money = self.match_length == 0;
        GameState {
            position,
            turn: self.turn,
            dice,
            cube: self.cube,
            score: self.score,
            match_length: self.match_length,
            crawford: self.crawford(),
            jacoby: self.jacoby && money,
            beavers: self.beavers && money,
        }
    }
}

/// A UBGI engine: the state a controller builds up with its commands, and the [`Player`] that
/// makes the decisions.
///
/// It speaks both bgci drafts (v0.1: `setoption`, `newsession`, `setscore`, `setcube`,
/// `setturn`, `go role ...`; v0.2: `set`/`get`/`keys`, `go [mode]`) and answers a bare XGID or
/// FIBS board (draft 0.01) with the best action. Any line it cannot apply gets an
/// `error <code> <message>` answer and changes nothing; the engine keeps serving.
///
/// ```
/// use tavla_protocol::Engine;
/// use tavla_player::RandomPlayer;
///
/// let mut engine = Engine::new(Box::new(RandomPlayer::new(1)));
/// engine.handle_line("position gnubgid 4HPwATDgc/ABMA");
/// engine.handle_line("dice 3 1");
/// let reply = engine.handle_line("go chequer");
/// assert!(reply.responses.last().unwrap().to_string().starts_with("bestmove "));
/// ```
pub struct Engine {
    player: Box<dyn Player>,
    ctx: Context,
    /// The checkers, seen from the side on roll (for a pending double, the doubler).
    position: Option<Position>,
    roll: Option<Roll>,
    double_pending: bool,
    info: bool,
    /// `engine.multipv`.
    multipv: usize,
    /// `engine.threads` (0: one per core).
    threads: usize,
    plays: PlayList,
    /// The options declared: [`KEYS`], and [`SEARCH_KEYS`] for a player that searches.
    keys: Vec<KeySpec>,
    /// `game.jacoby` and `game.beavers` as the controller set them: the rules of positions
    /// that do not carry their own (Position IDs). A full position's rules replace the
    /// context's, not these.
    jacoby_key: bool,
    beavers_key: bool,
}

impl Engine {
    /// An engine whose decisions `player` makes.
    #[must_use]
    pub fn new(player: Box<dyn Player>) -> Engine {
        let mut keys = KEYS.to_vec();
        if let Some(ply) = player.ply() {
            keys.extend(SEARCH_KEYS.iter().map(|k| match k.key {
                "engine.ply" => KeySpec {
                    default: PLY_TEXT[usize::from(ply.min(3))],
                    ..*k
                },
                _ => *k,
            }));
        }
        Engine {
            player,
            ctx: Context::default(),
            position: None,
            roll: None,
            double_pending: false,
            info: true,
            multipv: 1,
            threads: 0,
            plays: PlayList::new(),
            keys,
            jacoby_key: false,
            beavers_key: false,
        }
    }

    /// Serves commands from `input` until `quit` or the end of the input, writing and flushing
    /// each response line to `output`. A line that is not valid UTF-8 is read with replacement
    /// characters (and so is an unknown command).
    ///
    /// `input` is read on a thread of its own, so that a running `go rollout` hears `stop`,
    /// answers `isready` at once and reports its progress while it runs; any other command
    /// sent meanwhile waits for the rollout's answer and is then answered in turn. `quit`
    /// stops the rollout (and any rollout still waiting before it) and ends the session once
    /// the commands before it are answered. The reading thread ends with the input; after
    /// `quit` it may still be waiting on a line. A rollout whose progress or `readyok` cannot
    /// be written is stopped, and the error returned.
    ///
    /// # Errors
    /// Only when reading `input` or writing `output` fails; a bad command is answered with an
    /// `error` line, never returned.
    pub fn run<R, W>(&mut self, input: R, mut output: W) -> io::Result<()>
    where
        R: BufRead + Send + 'static,
        W: Write,
    {
        let (events, rx) = mpsc::channel();
        let reader = events.clone();
        std::thread::spawn(move || read_lines(input, &reader));
        let mut pending = VecDeque::new();
        let mut input_ended = false;
        let mut quitting = false;
        loop {
            let line = match pending.pop_front() {
                Some(line) => line,
                None if input_ended => return Ok(()),
                None => match rx.recv() {
                    Ok(Event::Line(line)) => line,
                    Ok(Event::Failed(e)) => return Err(e),
                    Ok(Event::RolloutDone) => continue,
                    Ok(Event::End) | Err(_) => return Ok(()),
                },
            };
            let rollout = match line.parse::<Command>() {
                Ok(Command::Go(go)) if go.mode == Some(GoMode::Rollout) => Some(go),
                _ => None,
            };
            let reply = match rollout {
                Some(go) => {
                    let watch = Watch {
                        events: &events,
                        rx: &rx,
                        pending: &mut pending,
                        input_ended: &mut input_ended,
                        quitting: &mut quitting,
                    };
                    self.watched_rollout(&go, watch, &mut output)?
                }
                None => self.handle_line(&line),
            };
            for response in &reply.responses {
                writeln!(output, "{response}")?;
                output.flush()?;
            }
            if reply.quit {
                return Ok(());
            }
        }
    }

    /// `go rollout` under [`Engine::run`]: the rollout runs on a thread of its own while this
    /// one reads the input (`stop`, `quit`, `isready`; other lines wait in `watch.pending`)
    /// and writes a progress line every [`PROGRESS_EVERY`].
    fn watched_rollout<W: Write>(
        &mut self,
        go: &Go,
        watch: Watch<'_>,
        output: &mut W,
    ) -> io::Result<Reply> {
        let started = Instant::now();
        let job = match self.rollout_job(go) {
            Ok(job) => job,
            Err(Refusal(code, message)) => {
                return Ok(Reply {
                    responses: vec![Response::Error(code, message)],
                    quit: false,
                })
            }
        };
        let control = RolloutControl::new(job.deadline);
        if *watch.quitting {
            control.stop();
        }
        let player = &mut self.player;
        let values = std::thread::scope(|s| -> io::Result<_> {
            let done = watch.events.clone();
            let (job, control) = (&job, &control);
            let worker = s.spawn(move || {
                let values = player.rollout(&job.state, &job.afters, &job.request, control);
                // The watcher may have returned already (a failed write); nothing to tell.
                let _ = done.send(Event::RolloutDone);
                values
            });
            let mut next_report = started + PROGRESS_EVERY;
            loop {
                let wait = next_report.saturating_duration_since(Instant::now());
                match watch.rx.recv_timeout(wait) {
                    Ok(Event::RolloutDone) => break,
                    Ok(Event::Line(line)) => match line.parse::<Command>() {
                        Ok(Command::Stop) => control.stop(),
                        Ok(Command::Quit) => {
                            control.stop();
                            *watch.quitting = true;
                            watch.pending.push_back(line);
                        }
                        // Answered at once unless commands wait before it: they are answered
                        // in order once the rollout ends.
                        Ok(Command::IsReady) if watch.pending.is_empty() => {
                            let written = writeln!(output, "{}", Response::ReadyOk)
                                .and_then(|()| output.flush());
                            stop_on_failure(written, control)?;
                        }
                        _ if line.trim().is_empty() => {}
                        _ => watch.pending.push_back(line),
                    },
                    Ok(Event::End) => *watch.input_ended = true,
                    Ok(Event::Failed(e)) => {
                        control.stop();
                        let _ = worker.join();
                        return Err(e);
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        if self.info {
                            let written = progress_lines(job, control, started)
                                .iter()
                                .try_for_each(|line| writeln!(output, "{line}"))
                                .and_then(|()| output.flush());
                            stop_on_failure(written, control)?;
                        }
                        next_report += PROGRESS_EVERY;
                    }
                    // Not while `events` lives; were it so, the rollout is simply awaited.
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            Ok(worker.join().expect("the rollout thread panicked"))
        })?;
        let mut responses = Vec::new();
        if let Err(Refusal(code, message)) =
            self.rollout_answer(&job, values, &mut responses, started)
        {
            responses.push(Response::Error(code, message));
        }
        Ok(Reply {
            responses,
            quit: false,
        })
    }

    /// Answers one line. Blank lines are ignored (an empty reply); a line that does not parse
    /// is answered with an `error` line.
    pub fn handle_line(&mut self, line: &str) -> Reply {
        if line.trim().is_empty() {
            return Reply::default();
        }
        if line == TOO_LONG {
            return Reply {
                responses: vec![Response::Error(
                    ErrorCode::BadCommand,
                    format!(
                        "a line longer than {} bytes, skipped",
                        crate::lines::MAX_LINE
                    ),
                )],
                quit: false,
            };
        }
        match line.parse::<Command>() {
            Ok(command) => self.execute(&command),
            Err(e) => Reply {
                responses: vec![Response::Error(e.code(), e.to_string())],
                quit: false,
            },
        }
    }

    /// Answers one command.
    pub fn execute(&mut self, command: &Command) -> Reply {
        let mut responses = Vec::new();
        let mut quit = false;
        let result = match command {
            Command::Quit => {
                quit = true;
                Ok(())
            }
            Command::Stop => Ok(()),
            other => self.apply(other, &mut responses),
        };
        if let Err(Refusal(code, message)) = result {
            responses.push(Response::Error(code, message));
        }
        Reply { responses, quit }
    }

    fn apply(&mut self, command: &Command, out: &mut Vec<Response>) -> Answer<()> {
        match command {
            Command::Ubgi => {
                out.push(Response::Id(
                    IdField::Name,
                    format!("tavla {}", self.player.name()),
                ));
                out.push(Response::Id(IdField::Author, "the tavla authors".into()));
                out.push(Response::Id(
                    IdField::Version,
                    env!("CARGO_PKG_VERSION").into(),
                ));
                out.extend(self.keys.iter().map(|k| Response::Option(*k)));
                out.push(Response::Proto("0.2"));
                out.extend(self.keys.iter().map(|k| Response::Key(*k)));
                out.push(Response::UbgiOk);
            }
            Command::IsReady => out.push(Response::ReadyOk),
            Command::NewGame => {
                self.position = None;
                self.roll = None;
                self.double_pending = false;
                self.ctx.cube = Cube::default();
                self.ctx.new_game();
                self.player.new_game();
            }
            Command::Stop | Command::Quit => {}
            Command::SetOption { name, value } => {
                let spec = *self
                    .keys
                    .iter()
                    .find(|k| k.option_name.eq_ignore_ascii_case(name) || k.key == name)
                    .ok_or_else(|| {
                        Refusal(ErrorCode::Unsupported, format!("unknown option {name:?}"))
                    })?;
                self.set(&spec, value)?;
            }
            Command::Set { key, value } => {
                let spec = *self.key(key)?;
                self.set(&spec, value)?;
            }
            Command::Get { key } => {
                let spec = *self.key(key)?;
                out.push(Response::Value(spec.key, self.get(&spec)));
            }
            Command::Keys => out.extend(self.keys.iter().map(|k| Response::Key(*k))),
            Command::NewSession(spec) => self.new_session(*spec),
            Command::SetScore { p0, p1 } => {
                let len = self.ctx.match_length;
                if len == 0 && (*p0 != 0 || *p1 != 0) {
                    return Err(bad_state(
                        "a money session has no score (newsession type match length <n> first)",
                    ));
                }
                if len > 0 && (*p0 >= len || *p1 >= len) {
                    return Err(Refusal(
                        ErrorCode::BadValue,
                        format!("setscore: a score is not below the match length {len}"),
                    ));
                }
                self.ctx.score = BySide { x: *p1, o: *p0 };
                self.ctx.crawford_game = None;
                self.ctx.scored();
            }
            Command::SetCube(cube) => self.ctx.cube = *cube,
            Command::SetTurn(seat) => self.ctx.turn = seat.side(),
            Command::Position(spec) => match spec {
                PositionSpec::PositionId(pos) => {
                    // Only the checkers: the rules are the keys', the cube limit none but
                    // XG's usual one (an earlier XGID's does not carry over).
                    self.rules_from_keys();
                    self.ctx.max_cube_log2 = Xgid::DEFAULT_MAX_CUBE_LOG2;
                    self.position = Some(*pos);
                    self.roll = None;
                    self.double_pending = false;
                }
                PositionSpec::Bpn(state) => self.load(state, Xgid::DEFAULT_MAX_CUBE_LOG2),
                PositionSpec::GnubgId(state) => {
                    self.load(state, Xgid::DEFAULT_MAX_CUBE_LOG2);
                    // A Match ID carries the Jacoby rule, not beavers.
                    self.ctx.beavers = self.beavers_key;
                }
                PositionSpec::Xgid(xgid) => {
                    if let Some(why) = xgid.cube_over_limit() {
                        return Err(Refusal(
                            ErrorCode::BadValue,
                            format!("position xgid: {why}"),
                        ));
                    }
                    self.load(&xgid.state, xgid.max_cube_log2);
                }
                PositionSpec::Fibs(board) => {
                    self.load(&board.state, Xgid::DEFAULT_MAX_CUBE_LOG2);
                    self.rules_from_keys();
                }
            },
            Command::Dice(roll) => self.roll = Some(*roll),
            Command::Go(go) => self.go(go, out)?,
            Command::Bare(bare) => {
                let max = match bare {
                    BarePosition::Xgid(x) => x.max_cube_log2,
                    BarePosition::Fibs(_) => Xgid::DEFAULT_MAX_CUBE_LOG2,
                };
                self.load(bare.state(), max);
                if matches!(bare, BarePosition::Fibs(_)) {
                    self.rules_from_keys();
                }
                out.push(Response::Draft(self.draft_answer()?));
            }
        }
        Ok(())
    }

    fn set(&mut self, spec: &KeySpec, value: &str) -> Answer<()> {
        if !spec.accepts(value) {
            return Err(Refusal(
                ErrorCode::BadValue,
                format!("{} must be {}, not {value:?}", spec.key, spec.expected()),
            ));
        }
        // An integer key's value is checked above.
        let number = || value.parse::<u8>().unwrap_or(1);
        match spec.key {
            "game.jacoby" => {
                self.jacoby_key = value == "true";
                self.ctx.jacoby = self.jacoby_key;
            }
            "game.beavers" => {
                self.beavers_key = value == "true";
                self.ctx.beavers = self.beavers_key;
            }
            "engine.info" => self.info = value == "true",
            "engine.ply" if !self.player.set_ply(number() - 1) => {
                return Err(Refusal(
                    ErrorCode::Unsupported,
                    format!("engine.ply {value}: the player cannot search that deep"),
                ));
            }
            "engine.multipv" => self.multipv = usize::from(number()),
            "engine.threads" => self.threads = value.parse().unwrap_or(0),
            // game.variant: the only accepted value is the one in force.
            _ => {}
        }
        Ok(())
    }

    fn get(&self, spec: &KeySpec) -> String {
        match spec.key {
            "game.jacoby" => self.jacoby_key.to_string(),
            "game.beavers" => self.beavers_key.to_string(),
            "engine.info" => self.info.to_string(),
            "engine.ply" => self
                .player
                .ply()
                .map_or_else(|| spec.default.to_string(), |p| (p + 1).to_string()),
            "engine.multipv" => self.multipv.to_string(),
            "engine.threads" => self.threads.to_string(),
            _ => spec.default.to_string(),
        }
    }

    /// The declared key named `key`.
    fn key(&self, key: &str) -> Answer<&KeySpec> {
        self.keys
            .iter()
            .find(|k| k.key == key)
            .ok_or_else(|| Refusal(ErrorCode::Unsupported, format!("unknown key {key:?}")))
    }

    fn new_session(&mut self, spec: SessionSpec) {
        // The session's Jacoby rule is the one of the positions that do not carry theirs.
        self.jacoby_key = spec.jacoby && spec.match_length == 0;
        self.ctx = Context {
            match_length: spec.match_length,
            jacoby: spec.jacoby && spec.match_length == 0,
            beavers: self.beavers_key,
            crawford_rule: spec.crawford,
            ..Context::default()
        };
        self.position = None;
        self.roll = None;
        self.double_pending = false;
    }

    /// The money rules of a position that carries neither (a FIBS board): the keys'.
    fn rules_from_keys(&mut self) {
        self.ctx.jacoby = self.jacoby_key;
        self.ctx.beavers = self.beavers_key;
    }

    /// Takes the whole context from a position that carries it.
    fn load(&mut self, state: &GameState, max_cube_log2: u8) {
        self.ctx = Context {
            turn: state.turn,
            cube: state.cube,
            score: state.score,
            match_length: state.match_length,
            crawford_rule: self.ctx.crawford_rule,
            crawford_game: Some(state.crawford),
            // After the Crawford game, at this score or any later one; in it, until the
            // next game at this score.
            crawford_at: (state.crawford || state.is_post_crawford())
                .then_some((state.score, if state.crawford { 1 } else { 2 })),
            jacoby: state.jacoby,
            beavers: state.beavers,
            max_cube_log2,
        };
        self.position = Some(state.position);
        (self.roll, self.double_pending) = match state.dice {
            Dice::NotRolled => (None, false),
            Dice::Rolled(roll) => (Some(roll), false),
            Dice::DoubleOffered => (None, true),
        };
    }

    fn position(&self) -> Answer<Position> {
        let pos = self.position.ok_or_else(|| {
            bad_state("missing position (send position gnubgid <id> or position xgid <xgid>)")
        })?;
        if pos.is_game_over() {
            return Err(bad_state("the game is over"));
        }
        Ok(pos)
    }

    fn go(&mut self, go: &Go, out: &mut Vec<Response>) -> Answer<()> {
        let position = self.position()?;
        if self.ctx.crawford() && self.ctx.cube.log2 > 0 {
            return Err(bad_state(format!(
                "the Crawford game has no doubling, yet the cube is at {} (setcube value 1, or \
                 setscore for a game after it)",
                self.ctx.cube.value()
            )));
        }
        let before_roll = self.ctx.state(position, Dice::NotRolled);
        if !before_roll.is_money()
            && before_roll.cube.owner == CubeOwner::Centre
            && before_roll.cube.log2 > 0
        {
            return Err(bad_state(format!(
                "a centred cube of {} in a match: a turned cube has an owner (match play has \
                 no automatic doubles; setcube value {} owner ...)",
                before_roll.cube.value(),
                before_roll.cube.value()
            )));
        }
        if let Some(why) = self.player.cannot_play(&before_roll) {
            return Err(bad_state(why));
        }
        if let Some(why) = before_roll.why_no_double().filter(|_| self.double_pending) {
            return Err(bad_state(format!(
                "a double is pending that the doubler could not offer ({why})"
            )));
        }
        let mode = go
            .mode
            .unwrap_or(if self.double_pending || self.roll.is_none() {
                GoMode::Cube
            } else {
                GoMode::Chequer
            });
        let started = Instant::now();
        match mode {
            GoMode::Chequer => {
                let (play, _, count) = self.choose_play(position, out)?;
                self.info(out, count, started);
                out.push(Response::BestMove(play));
            }
            GoMode::Eval => {
                let state = self.ctx.state(position, Dice::NotRolled);
                let p = self.player.evaluate(&state).ok_or_else(|| {
                    Refusal(
                        ErrorCode::Unsupported,
                        "go eval: this player does not evaluate positions".into(),
                    )
                })?;
                let cube = self.cube_pairs(&state);
                self.info(out, 0, started);
                let equity = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4];
                let mut pairs = vec![("equity", format!("{equity:+.4}"))];
                pairs.extend(probability_pairs(p));
                pairs.extend(cube);
                out.push(Response::BestEval(pairs));
            }
            GoMode::Rollout => {
                let job = self.rollout_job(go)?;
                let control = RolloutControl::new(job.deadline);
                let values = self
                    .player
                    .rollout(&job.state, &job.afters, &job.request, &control);
                self.rollout_answer(&job, values, out, started)?;
            }
            GoMode::Resign => {
                if self.double_pending {
                    return Err(bad_state("a double is pending: answer it with go cube"));
                }
                let state = self.ctx.state(position, Dice::NotRolled);
                let level = self.player.resigns(&state, self.cube_in_play(&state));
                self.info(out, 0, started);
                out.push(Response::BestResign(level));
            }
            GoMode::Accept(offered) => {
                if self.double_pending {
                    return Err(bad_state("a double is pending: answer it with go cube"));
                }
                let state = self.ctx.state(position, Dice::NotRolled);
                let accepts =
                    self.player
                        .accepts_resignation(&state, self.cube_in_play(&state), offered);
                self.info(out, 0, started);
                out.push(Response::BestAccept(accepts));
            }
            GoMode::Cube => {
                if self.roll.is_some() && !self.double_pending {
                    return Err(bad_state(
                        "the dice are rolled: a double comes before the roll (send the \
                         position without dice for go cube, or go chequer for the play)",
                    ));
                }
                if self.multipv > 1 && !self.double_pending {
                    let state = self.ctx.state(position, Dice::NotRolled);
                    let pairs = self.cube_pairs(&state);
                    if !pairs.is_empty() {
                        out.push(Response::Info(pairs));
                    }
                }
                let action = self.cube_action(position);
                self.info(out, 0, started);
                out.push(Response::BestCube(action));
            }
            GoMode::Turn => {
                if self.double_pending {
                    return Err(bad_state("a double is pending: answer it with go cube"));
                }
                let cube = self.double_decision(position);
                let (play, after, count) = self.choose_play(position, out)?;
                self.info(out, count, started);
                if go.role {
                    out.push(Response::BestTurnId(cube, after.flip().position_id()));
                } else {
                    out.push(Response::BestTurn(cube, play));
                }
            }
        }
        Ok(())
    }

    /// What `go rollout` asks: without dice the position before its side rolls; with dice the
    /// player's best `engine.multipv` plays (all of them when fewer), on the same dice.
    fn rollout_job(&mut self, go: &Go) -> Answer<RolloutJob> {
        let position = self.position()?;
        if self.double_pending {
            return Err(bad_state("a double is pending: answer it with go cube"));
        }
        let l = &go.limits;
        let bad = |message: String| Refusal(ErrorCode::BadValue, message);
        let games = l.trials.unwrap_or(ROLLOUT_TRIALS);
        let fewest = u64::from(tavla_player::MIN_ROLLOUT_GAMES);
        if !(fewest..=MAX_ROLLOUT_TRIALS).contains(&games) {
            return Err(bad(format!(
                "go rollout: trials {games} is not {fewest} to {MAX_ROLLOUT_TRIALS}"
            )));
        }
        let ply = match l.depth {
            None => 0,
            Some(d @ 1..=4) => d as u8 - 1,
            Some(d) => return Err(bad(format!("go rollout: depth {d} is not 1 to 4"))),
        };
        let truncate = u32::try_from(l.truncate.unwrap_or(0))
            .map_err(|_| bad("go rollout: truncate is too large".into()))?;
        let request = RolloutRequest {
            games: games as u32,
            seed: l.seed.unwrap_or(1),
            truncate,
            ply,
            threads: self.threads,
        };
        // A time too far off to represent is no limit.
        let deadline = l
            .movetime_ms
            .and_then(|ms| Instant::now().checked_add(Duration::from_millis(ms)));
        let (state, afters, plays) = match self.roll {
            None => (
                self.ctx.state(position, Dice::NotRolled),
                Vec::new(),
                Vec::new(),
            ),
            Some(roll) => {
                position.legal_plays(roll, &mut self.plays);
                let state = self.ctx.state(position, Dice::Rolled(roll));
                let count = self.plays.len();
                let chosen: Vec<usize> = if count == 1 {
                    vec![0]
                } else {
                    self.player
                        .rank_plays(&state, roll, &self.plays, self.multipv)
                        .filter(|r| !r.is_empty())
                        .ok_or_else(|| {
                            Refusal(
                                ErrorCode::Unsupported,
                                "go rollout: this player does not rank plays".into(),
                            )
                        })?
                        .iter()
                        .map(|r| r.index.min(count - 1))
                        .collect()
                };
                let afters = chosen.iter().map(|&i| self.plays.positions()[i]).collect();
                let plays = chosen.iter().map(|&i| self.plays.play(i)).collect();
                (state, afters, plays)
            }
        };
        Ok(RolloutJob {
            state,
            afters,
            plays,
            request,
            deadline,
        })
    }

    /// The answer to `go rollout`: `bestrollout` for a position, or for plays an `info multipv`
    /// line each, best by the rollouts first, and `bestmove` (the search's first choice when
    /// the rollout was stopped before any game).
    fn rollout_answer(
        &self,
        job: &RolloutJob,
        values: Option<Vec<RolloutValue>>,
        out: &mut Vec<Response>,
        started: Instant,
    ) -> Answer<()> {
        let values = values.ok_or_else(|| {
            Refusal(
                ErrorCode::Unsupported,
                "go rollout: this player does not roll out".into(),
            )
        })?;
        // A half-interval, left out after a single game (which has none).
        let ci = |name: &'static str, stderr: f64, games: u64| {
            let z = tavla_player::ci95_factor(u32::try_from(games).unwrap_or(u32::MAX));
            stderr
                .is_finite()
                .then(|| (name, format!("{:.4}", z * stderr)))
        };
        if job.plays.is_empty() {
            let mut pairs = vec![("games", values.first().map_or(0, |v| v.games).to_string())];
            if let Some(v) = values.first() {
                pairs.push(("equity", format!("{:+.4}", v.equity)));
                pairs.extend(ci("ci", v.equity_stderr, v.games.into()));
                pairs.extend(probability_pairs(v.probs));
            }
            self.info(out, 0, started);
            out.push(Response::BestRollout(pairs));
            return Ok(());
        }
        let mut order: Vec<usize> = (0..values.len().min(job.plays.len())).collect();
        order.sort_by(|&a, &b| values[b].equity.total_cmp(&values[a].equity));
        for (k, &i) in order.iter().enumerate() {
            let v = &values[i];
            let mut pairs = vec![
                ("multipv", (k + 1).to_string()),
                ("score", format!("{:+.4}", v.equity)),
            ];
            pairs.extend(ci("ci", v.equity_stderr, v.games.into()));
            pairs.push(("diff", format!("{:+.4}", v.difference)));
            pairs.extend(ci("diffci", v.difference_stderr, v.games.into()));
            pairs.push(("games", v.games.to_string()));
            pairs.extend(probability_pairs(v.probs));
            pairs.push(("pv", tavla_notation::format_ubgi(&job.plays[i])));
            out.push(Response::Info(pairs));
        }
        self.info(out, 0, started);
        out.push(Response::BestMove(
            job.plays[order.first().copied().unwrap_or(0)],
        ));
        Ok(())
    }

    fn info(&self, out: &mut Vec<Response>, plays: usize, started: Instant) {
        if self.info {
            let mut pairs = Vec::with_capacity(2);
            if plays > 0 {
                pairs.push(("plays", plays.to_string()));
            }
            pairs.push(("time_ms", started.elapsed().as_millis().to_string()));
            out.push(Response::Info(pairs));
        }
    }

    /// The player's play for the dice; returns it with the position after it (still seen from
    /// the mover) and the number of legal plays. With `engine.multipv` above 1 and a choice
    /// to make, the player's best plays are written to `out` first, one `info multipv` line
    /// each, and the first of them is the play.
    fn choose_play(
        &mut self,
        position: Position,
        out: &mut Vec<Response>,
    ) -> Answer<(Play, Position, usize)> {
        if self.double_pending {
            return Err(bad_state("a double is pending: answer it with go cube"));
        }
        let roll = self
            .roll
            .ok_or_else(|| bad_state("missing dice (send dice <d1> <d2>)"))?;
        position.legal_plays(roll, &mut self.plays);
        let count = self.plays.len();
        let state = self.ctx.state(position, Dice::Rolled(roll));
        let ranked = if count > 1 && self.multipv > 1 {
            self.player
                .rank_plays(&state, roll, &self.plays, self.multipv)
                .filter(|r| !r.is_empty())
        } else {
            None
        };
        let index = match &ranked {
            _ if count == 1 => 0,
            Some(ranked) => {
                for (k, r) in ranked.iter().enumerate() {
                    out.push(self.multipv_line(k + 1, r));
                }
                ranked[0].index
            }
            None => self.player.choose_play(&state, roll, &self.plays),
        };
        if index >= count {
            return Err(bad_state(format!(
                "internal: the player chose play {index} of {count}"
            )));
        }
        Ok((self.plays.play(index), self.plays.positions()[index], count))
    }

    /// `nodouble`, `doubletake` and `doublepass` pairs: the player's cube equities for the side
    /// on roll of `state`, when the game is played with the cube and the player values it.
    fn cube_pairs(&mut self, state: &GameState) -> Vec<(&'static str, String)> {
        if self.ctx.max_cube_log2 == 0 {
            return Vec::new();
        }
        self.player
            .cube_equities(state)
            .map(|e| {
                ["nodouble", "doubletake", "doublepass"]
                    .into_iter()
                    .zip(e)
                    .map(|(k, v)| (k, format!("{v:+.4}")))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `info multipv <k> score <value> ply <n> win .. wg .. wbg .. lg .. lbg .. pv <play>` for
    /// the `k`-th best play `r` (`ply` in UBGI's root-inclusive numbering).
    fn multipv_line(&self, k: usize, r: &PlayValue) -> Response {
        let play = self.plays.play(r.index.min(self.plays.len() - 1));
        let mut pairs = vec![
            ("multipv", k.to_string()),
            ("score", format!("{:+.4}", r.value)),
            ("ply", (r.ply + 1).to_string()),
        ];
        pairs.extend(probability_pairs(r.probs));
        pairs.push(("pv", tavla_notation::format_ubgi(&play)));
        Response::Info(pairs)
    }

    /// Whether the game of `state` is played with the cube, for resignations: a match, a cube
    /// already turned, or a cube the side may still turn (and the session's cube limit allows).
    fn cube_in_play(&self, state: &GameState) -> bool {
        self.ctx.max_cube_log2 > 0
            && (state.match_length > 0 || state.cube.log2 > 0 || state.may_double())
    }

    /// Double or not, before rolling (never asked when doubling is not allowed: by the game,
    /// `GameState::may_double`, or by the cube limit of the session or XGID).
    fn double_decision(&mut self, position: Position) -> CubeAction {
        let state = self.ctx.state(position, Dice::NotRolled);
        if !state.may_double() || self.ctx.cube.log2 >= self.ctx.max_cube_log2 {
            return CubeAction::NoDouble;
        }
        if self.player.wants_to_double(&state) {
            CubeAction::Double
        } else {
            CubeAction::NoDouble
        }
    }

    /// `go cube`: take or drop a pending double, else double or not.
    fn cube_action(&mut self, position: Position) -> CubeAction {
        if !self.double_pending {
            return self.double_decision(position);
        }
        // The answering side is the doubler's opponent: the position and turn seen from it.
        let mut state = self.ctx.state(position.flip(), Dice::DoubleOffered);
        state.turn = self.ctx.turn.other();
        if !self.player.accepts_double(&state) {
            CubeAction::Drop
        } else if state.may_beaver() && self.player.beavers(&state) {
            CubeAction::Beaver
        } else {
            CubeAction::Take
        }
    }

    /// Draft 0.01: the best action for the state just loaded.
    fn draft_answer(&mut self) -> Answer<DraftAnswer> {
        let position = self.position()?;
        if self.double_pending {
            Ok(DraftAnswer::Cube(self.cube_action(position)))
        } else if self.roll.is_some() {
            Ok(DraftAnswer::Move(
                self.choose_play(position, &mut Vec::new())?.0,
            ))
        } else {
            Ok(DraftAnswer::Cube(self.double_decision(position)))
        }
    }
}

/// The five outcome probabilities as `win`, `wg`, `wbg`, `lg` and `lbg` pairs (gnubg's
/// cumulative order), four decimals each.
fn probability_pairs(p: [f32; 5]) -> impl Iterator<Item = (&'static str, String)> {
    ["win", "wg", "wbg", "lg", "lbg"]
        .into_iter()
        .zip(p)
        // A luck-adjusted rollout's mean may leave 0..=1 by a hair; shown within it.
        .map(|(k, v)| (k, format!("{:.4}", v.clamp(0.0, 1.0))))
}

/// A `go rollout` ready to run ([`Engine::rollout_job`]).
struct RolloutJob {
    state: GameState,
    /// The positions left by the plays rolled out (empty: the position itself).
    afters: Vec<Position>,
    /// Those plays, in the same order.
    plays: Vec<Play>,
    request: RolloutRequest,
    deadline: Option<Instant>,
}

/// What [`Engine::run`]'s loop hears: input lines from the reading thread, and the end of a
/// rollout from its thread.
enum Event {
    Line(String),
    End,
    Failed(io::Error),
    RolloutDone,
}

/// [`Engine::run`]'s input while a rollout runs.
struct Watch<'a> {
    events: &'a Sender<Event>,
    rx: &'a Receiver<Event>,
    /// Lines that wait for the rollout's answer.
    pending: &'a mut VecDeque<String>,
    input_ended: &'a mut bool,
    /// `quit` was heard: rollouts still to come are stopped before they start.
    quitting: &'a mut bool,
}

/// A running rollout's progress: `info games <done> trials <n> [equity <e> ci <h>] time_ms <t>`
/// (the running estimate for a position rolled out alone); for the plays of a roll, then one
/// `info multipv <k> score <e> ci <h> games <n> pv <play>` line per play, best so far first.
fn progress_lines(job: &RolloutJob, control: &RolloutControl, started: Instant) -> Vec<Response> {
    let running = control.running();
    let ci = |stderr: f64, games: u64| {
        let z = tavla_player::ci95_factor(u32::try_from(games).unwrap_or(u32::MAX));
        format!("{:.4}", z * stderr)
    };
    let games = control.games_done() / job.afters.len().max(1) as u64;
    let mut pairs = vec![
        ("games", games.to_string()),
        ("trials", job.request.games.to_string()),
    ];
    // An estimate of one game has no interval: the lines wait for two.
    if job.plays.is_empty() {
        if let Some(&(n, mean, stderr)) = running.first().filter(|r| r.0 > 1) {
            pairs.push(("equity", format!("{mean:+.4}")));
            pairs.push(("ci", ci(stderr, n)));
        }
    }
    pairs.push(("time_ms", started.elapsed().as_millis().to_string()));
    let mut lines = vec![Response::Info(pairs)];
    let mut order: Vec<usize> = (0..running.len().min(job.plays.len()))
        .filter(|&i| running[i].0 > 1)
        .collect();
    order.sort_by(|&a, &b| running[b].1.total_cmp(&running[a].1));
    for (k, &i) in order.iter().enumerate() {
        let (n, mean, stderr) = running[i];
        lines.push(Response::Info(vec![
            ("multipv", (k + 1).to_string()),
            ("score", format!("{mean:+.4}")),
            ("ci", ci(stderr, n)),
            ("games", n.to_string()),
            ("pv", tavla_notation::format_ubgi(&job.plays[i])),
        ]));
    }
    lines
}

/// `written`, the rollout under `control` stopped when it failed: the controller that would
/// read its answer is gone, and the rollout is not run on for nobody (the scope that runs it
/// waits for it to end).
fn stop_on_failure(written: io::Result<()>, control: &RolloutControl) -> io::Result<()> {
    if written.is_err() {
        control.stop();
    }
    written
}

/// What [`read_lines`] passes on for a line too long to read: no line a controller sends is
/// this (it holds a NUL).
const TOO_LONG: &str = "\0(a line too long)";

/// Reads `input` line by line into `events` until its end, a read error, or nobody listens.
/// A line longer than [`crate::lines::MAX_LINE`] is passed on as [`TOO_LONG`].
fn read_lines<R: BufRead>(mut input: R, events: &Sender<Event>) {
    use crate::lines::{read_line, LineRead};
    let mut buf = Vec::new();
    loop {
        let event = match read_line(&mut input, &mut buf) {
            Ok(LineRead::End) => Event::End,
            Ok(LineRead::Line) => Event::Line(String::from_utf8_lossy(&buf).into_owned()),
            Ok(LineRead::TooLong) => Event::Line(TOO_LONG.to_string()),
            Err(e) => Event::Failed(e),
        };
        let last = !matches!(event, Event::Line(_));
        if events.send(event).is_err() || last {
            return;
        }
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("player", &self.player.name())
            .field("ctx", &self.ctx)
            .field("position", &self.position)
            .field("roll", &self.roll)
            .field("double_pending", &self.double_pending)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

/// Serves UBGI on `input`/`output` with `player` making the decisions, until `quit` or the end
/// of the input: [`Engine::new`] then [`Engine::run`].
///
/// # Errors
/// Only when reading `input` or writing `output` fails.
///
/// ```
/// use tavla_player::RandomPlayer;
///
/// let script = "ubgi\nisready\nposition gnubgid 4HPwATDgc/ABMA\ndice 6 5\ngo chequer\nquit\n";
/// let mut out = Vec::new();
/// tavla_protocol::run(script.as_bytes(), &mut out, Box::new(RandomPlayer::new(1)))?;
/// let out = String::from_utf8(out).unwrap();
/// assert!(out.contains("ubgiok\nreadyok\n"));
/// assert!(out.lines().last().unwrap().starts_with("bestmove "));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn run<R, W>(input: R, output: W, player: Box<dyn Player>) -> io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write,
{
    Engine::new(player).run(input, output)
}
