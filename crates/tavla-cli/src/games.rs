//! Games against the engine over HTTP: `tavla serve`'s `/v1/games`, which the web page at `/`
//! plays through.
//!
//! A game is a state machine on the server. The person acts (`roll`, `double`, `take`, `pass`,
//! `move`, `resign`, `accept`, `reject`, `next`), and the engine answers at once: it plays its
//! turns, doubles, takes and passes, resigns and answers resignations, until the person must act
//! again. Every answer is the game as it stands ([`Game::view`]): the board from the person's
//! side, the dice, the cube, what the person may do now (`phase`), the legal plays when a move is
//! due, and a log of what both sides did. The rules are those of `tavla play`: the opening roll
//! one die each, rolls with no legal play passed and rolls with one legal play played for the
//! person (both logged), the cube with the Crawford rule in a match. The dice come from the same
//! seeded stream as `tavla play --seed`'s, so a game can be replayed in the terminal.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use serde::Deserialize;
use serde_json::{json, Value};
use tavla_core::{
    BySide, CubeOwner, CubeResponse, Dice, GameState, PlayList, Position, Resign, Roll, Rules, Side,
};
use tavla_nn::review::{review_answer, review_double, Skill};
use tavla_nn::Search;
use tavla_notation::mat::{Action, GameRecord, MatchRecord};
use tavla_notation::{format, format_pretty, Notation};
use tavla_player::Player;

use crate::analyse_cmd::rating;
use crate::input::InputError;
use crate::play_cmd::{
    read_play, set_up, side_to_act, unplayable, won_points, DiceRng, ENGINE, PERSON,
};
use crate::players::PlayerSpec;

/// The games a server keeps; starting one more forgets the one least recently used. (Each
/// holds an engine with its own evaluation cache, about 4 MiB.)
pub const MAX_GAMES: usize = 32;

/// The longest match a game may be part of: tavla's match equity table reaches
/// [`MAX_AWAY`](tavla_nn::met::MAX_AWAY) points (as `tavla play --match`).
pub const MAX_MATCH_LENGTH: u32 = tavla_nn::met::MAX_AWAY as u32;

/// The largest seed: 2^53 - 1, the largest integer a JavaScript number (the web page's)
/// holds exactly.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// An action that is not allowed in the game's phase (answered 409 with the reason).
#[derive(Debug)]
pub struct Conflict(pub String);

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Conflict {}

/// What a new game is played for, as `POST /v1/games` reads it (every field optional).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// The engine's search depth, 0 to 3 (default 2).
    pub ply: Option<u8>,
    /// Money play with the doubling cube (default true; a match always has it).
    pub cube: Option<bool>,
    /// A match to this many points; 0 or absent for a money game.
    pub match_length: Option<u32>,
    /// The dice seed, at most [`MAX_SEED`] (default: from the clock).
    pub seed: Option<u64>,
    /// The person's side, `x` (default) or `o`; for a `position`, by default the side that
    /// acts next (on roll, or to answer its double).
    pub side: Option<String>,
    /// The person's name in the record (default `You`).
    pub name: Option<String>,
    /// Money play with the cube: a doubled side may beaver (default false).
    pub beavers: Option<bool>,
    /// Money play with the cube: the Jacoby rule, gammons counting single until the cube is
    /// turned (default false).
    pub jacoby: Option<bool>,
    /// The tutor: the person's checker plays, cube actions and resignations are judged by the
    /// engine at the game's depth as they are made (default false).
    pub tutor: Option<bool>,
    /// With the tutor: an action that loses at least this much (normalised equity, above 0,
    /// at most 1; e.g. 0.04, doubtful) is held back with a warning until it is sent again
    /// with `anyway` (default: none held back).
    pub tutor_warn: Option<f64>,
    /// Play on from this position (any notation tavla reads) instead of the starting position:
    /// its side on roll with its dice, or before the roll without them; its cube, and in a
    /// match its length, score and Crawford game (then the rest of the match). The cube is in
    /// play in a match and wherever the position has it turned or the Jacoby rule or beavers.
    pub position: Option<String>,
}

/// The tutor's judgement of one of the person's decisions, before it is carried out.
#[derive(Debug, Clone)]
struct Judgement {
    /// What the person did: `play`, `double`, `no double`, `take`, `beaver`, `pass`,
    /// `resign`, `accept` or `reject`.
    kind: &'static str,
    /// The action made, in words (`13/7 8/7`, `Take`, ...).
    made: String,
    /// The engine's choice, in words.
    best: String,
    /// The loss (normalised equity; see `tavla_nn::review`).
    loss: f32,
    /// In match play, the loss in match winning chances.
    loss_mwc: Option<f32>,
    /// Whether an error rate counts it: every unforced play, the cube decisions analysis
    /// counts (`tavla_nn::review::CLOSE_CUBE`); resignations are judged but not counted.
    counted: bool,
}

impl Judgement {
    fn json(&self, ply: u8) -> Value {
        let skill = Skill::of(self.loss);
        let mut v = json!({
            "kind": self.kind,
            "made": self.made,
            "best": self.best,
            "loss": self.loss,
            "skill": skill,
            "mark": skill.mark(),
            "ply": ply,
        });
        if let Some(m) = self.loss_mwc {
            v["loss_mwc"] = json!(m);
        }
        v
    }
}

/// The tutor's totals over the games of a session (a money game, or every game of a match),
/// counted as `tavla analyse` counts decisions; also `tavla play --tutor`'s.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    plays: u32,
    play_loss: f64,
    cube_decisions: u32,
    cube_loss: f64,
    resignations: u32,
    resignation_loss: f64,
    /// Checker plays doubtful, bad and very bad.
    checker: [u32; 3],
    /// Counted cube decisions that lost a doubtful amount or more.
    cube_errors: u32,
    /// Resignations offered, accepted or rejected that lost a doubtful amount or more.
    wrong_resignations: u32,
}

/// Mean loss per decision in mEMG (0 with no decisions).
fn per_decision(loss: f64, n: u32) -> f64 {
    if n == 0 {
        0.0
    } else {
        1000.0 * loss / f64::from(n)
    }
}

impl Tally {
    /// Counts `j` as `tavla analyse` counts a decision.
    fn add(&mut self, j: &Judgement) {
        match j.kind {
            "play" => self.add_play(j.loss),
            "resign" | "accept" | "reject" => {
                self.resignations += 1;
                self.resignation_loss += f64::from(j.loss);
                self.wrong_resignations += u32::from(Skill::of(j.loss) != Skill::Fine);
            }
            _ => self.add_cube(j.loss, j.counted),
        }
    }

    /// Counts an unforced checker play that lost `loss`.
    pub fn add_play(&mut self, loss: f32) {
        self.plays += 1;
        self.play_loss += f64::from(loss);
        match Skill::of(loss) {
            Skill::Fine => {}
            Skill::Doubtful => self.checker[0] += 1,
            Skill::Bad => self.checker[1] += 1,
            Skill::VeryBad => self.checker[2] += 1,
        }
    }

    /// Counts a cube decision that lost `loss`, where an error rate counts it (`counted`).
    pub fn add_cube(&mut self, loss: f32, counted: bool) {
        if counted {
            self.cube_decisions += 1;
            self.cube_loss += f64::from(loss);
            self.cube_errors += u32::from(Skill::of(loss) != Skill::Fine);
        }
    }

    /// The error rate over checker plays and counted cube decisions, in mEMG.
    fn error_rate(&self) -> f64 {
        per_decision(
            self.play_loss + self.cube_loss,
            self.plays + self.cube_decisions,
        )
    }

    /// The totals as the web game's `tutor` object, for judgements at `ply` holding back from
    /// `warn`.
    #[must_use]
    pub fn json(&self, ply: u8, warn: Option<f64>) -> Value {
        let rate = self.error_rate();
        json!({
            "ply": ply,
            "warn": warn,
            "plays": self.plays,
            "play_loss": self.play_loss,
            "cube_decisions": self.cube_decisions,
            "cube_loss": self.cube_loss,
            "resignations": self.resignations,
            "resignation_loss": self.resignation_loss,
            "play_error_rate": per_decision(self.play_loss, self.plays),
            "cube_error_rate": per_decision(self.cube_loss, self.cube_decisions),
            "error_rate": rate,
            "rating": if self.plays + self.cube_decisions == 0 { "no decisions" } else { rating(rate) },
            "checker_doubtful": self.checker[0],
            "checker_bad": self.checker[1],
            "checker_very_bad": self.checker[2],
            "cube_errors": self.cube_errors,
            "wrong_resignations": self.wrong_resignations,
        })
    }

    /// The totals in a few lines of text, for the terminal.
    #[must_use]
    pub fn text(&self) -> String {
        if self.plays + self.cube_decisions == 0 {
            return "no decisions judged".to_string();
        }
        let [doubtful, bad, very_bad] = self.checker;
        let mut lines = Vec::new();
        if self.plays > 0 {
            lines.push(format!(
                "checker plays judged: {} ({:.1} mEMG a play; doubtful / bad / very bad: \
                 {doubtful} / {bad} / {very_bad})",
                self.plays,
                per_decision(self.play_loss, self.plays),
            ));
        }
        if self.cube_decisions > 0 {
            lines.push(format!(
                "cube decisions judged: {} ({:.1} mEMG a decision; errors: {})",
                self.cube_decisions,
                per_decision(self.cube_loss, self.cube_decisions),
                self.cube_errors,
            ));
        }
        let rate = self.error_rate();
        lines.push(format!(
            "error rate: {rate:.1} mEMG a decision, rating: {}",
            rating(rate)
        ));
        lines.join("\n")
    }
}

/// The decision a hint is about ([`Game::decision`]).
pub enum Decision {
    /// The person's move: the position, the dice rolled, as an XGID.
    Move(String),
    /// The cube: before the person's roll (the person on roll), or the engine's double (the
    /// engine on roll); as an XGID.
    Cube(String),
    /// The engine's offer to resign `level`, the engine on roll in `state`.
    Resignation {
        /// The game, the engine on roll.
        state: GameState,
        /// What it offers.
        level: Resign,
        /// The cube is in play.
        cube: bool,
    },
}

/// What the person may do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the person's roll, with the cube theirs to turn: `roll` or `double`.
    Roll,
    /// The person rolled these dice and must `move`.
    Move(Roll),
    /// The engine doubled: `take` or `pass`.
    Take,
    /// The engine offers to resign this much: `accept` or `reject`.
    Resignation(Resign),
    /// The game is over; in a match not yet won, `next` starts the next game.
    Over,
}

/// How a game ended.
#[derive(Debug, Clone, Copy)]
struct Ending {
    winner: Side,
    points: u32,
    /// `single`, `gammon`, `backgammon`, `pass` (a double passed) or `resignation`.
    how: &'static str,
}

/// One game (or match) against the engine.
pub struct Game {
    id: u64,
    seed: u64,
    ply: u8,
    human: Side,
    engine: Box<dyn Player>,
    cube: bool,
    length: u32,
    state: GameState,
    dice: DiceRng,
    phase: Phase,
    record: MatchRecord,
    /// The match score before this game (the person's side and the engine's).
    score: BySide<u32>,
    crawford_played: bool,
    /// This game is the Crawford game.
    crawford: bool,
    /// A doubled side may beaver (money play with the cube).
    beavers: bool,
    /// The Jacoby rule (money play with the cube).
    jacoby: bool,
    /// The highest resignation of the engine's the person rejected in this game.
    rejected: Option<Resign>,
    ending: Option<Ending>,
    /// What happened in this game, oldest first.
    log: Vec<Value>,
    plays: PlayList,
    /// The tutor is on.
    tutor: bool,
    /// The tutor holds back actions that lose at least this much.
    tutor_warn: Option<f64>,
    /// The judgement of the person's action being carried out, for its event in the log.
    judged: Option<Judgement>,
    /// The tutor's totals.
    tally: Tally,
    /// Where the first game starts, when not from the opening roll (taken by [`Game::begin`]).
    start: Option<GameState>,
    /// The cube limit of the XGID the game starts from (field 10: log2 of the highest cube),
    /// kept through the game as `tavla play` keeps it; `None` for the rules' own highest.
    cube_limit: Option<u8>,
}

impl Game {
    /// A new game (or the first game of a match), the engine's opening turn played if it
    /// starts.
    ///
    /// # Errors
    /// An [`InputError`] naming the field that cannot be used.
    pub fn start(id: u64, request: &NewGame) -> Result<Game> {
        let ply = request.ply.unwrap_or(2);
        crate::nn_cmd::check_depth("ply", ply)?;
        let start = match request.position.as_deref() {
            None => None,
            Some(text) => {
                let state = crate::input::position(text)
                    .map_err(|e| InputError(format!("position: {e}")))?;
                if let Some(problem) = unplayable(&state) {
                    return Err(InputError(format!("position: {problem}")).into());
                }
                if request.match_length.is_some() {
                    return Err(InputError(
                        "match_length: a position brings its own (leave match_length out)".into(),
                    )
                    .into());
                }
                Some(state)
            }
        };
        let length = start.map_or(request.match_length.unwrap_or(0), |s| s.match_length);
        let cube_limit = request
            .position
            .as_deref()
            .and_then(crate::input::xgid)
            .map(|x| x.max_cube_log2);
        // Field 10 at 0: a game without the cube.
        let cubeless_xgid = cube_limit == Some(0);
        if cubeless_xgid
            && (length > 0
                || request.cube == Some(true)
                || request.beavers == Some(true)
                || request.jacoby == Some(true))
        {
            return Err(InputError(
                "position: the XGID is of a game without the cube (field 10 is 0): no match, \
                 cube, beavers or jacoby with it"
                    .into(),
            )
            .into());
        }
        if length > MAX_MATCH_LENGTH {
            return Err(InputError(format!(
                "match_length must be at most {MAX_MATCH_LENGTH}, got {length}"
            ))
            .into());
        }
        let human = match request
            .side
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None => start.as_ref().map_or(Side::X, side_to_act),
            Some("x") => Side::X,
            Some("o") => Side::O,
            Some(other) => {
                return Err(InputError(format!("side must be `x` or `o`, got {other:?}")).into())
            }
        };
        let name = request.name.clone().unwrap_or_else(|| "You".to_string());
        if name.contains(" : ") || name.trim().is_empty() || name.contains(['\n', '\r']) {
            return Err(InputError(format!(
                "name {name:?}: a name must not be blank nor hold ` : ` or a line break"
            ))
            .into());
        }
        let seed = match request.seed {
            Some(seed) if seed > MAX_SEED => {
                return Err(
                    InputError(format!("seed must be at most {MAX_SEED}, got {seed}")).into(),
                )
            }
            Some(seed) => seed,
            None => {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64)
                    & MAX_SEED
            }
        };
        let beavers = request.beavers.unwrap_or(false);
        let jacoby = request.jacoby.unwrap_or(false);
        for (on, field) in [(beavers, "beavers"), (jacoby, "jacoby")] {
            if on && (length > 0 || request.cube == Some(false)) {
                return Err(InputError(format!(
                    "{field}: only in money play with the cube (no match_length, cube not false)"
                ))
                .into());
            }
        }
        // A money position brings its cube and rules: the cube is in play where it is turned
        // or the rules need it.
        let (cube_needed, beavers, jacoby) = match start {
            Some(s) if length == 0 => {
                let turned = s.cube.log2 > 0 || s.cube.owner != CubeOwner::Centre;
                (
                    turned || s.jacoby || s.beavers || s.dice == Dice::DoubleOffered,
                    beavers || s.beavers,
                    jacoby || s.jacoby,
                )
            }
            _ => (false, beavers, jacoby),
        };
        if cube_needed && request.cube == Some(false) {
            return Err(InputError(
                "cube: the position has the cube turned or offered, or the Jacoby rule or beavers"
                    .into(),
            )
            .into());
        }
        let tutor = request.tutor.unwrap_or(false);
        let tutor_warn = request.tutor_warn;
        if let Some(w) = tutor_warn {
            if !tutor {
                return Err(
                    InputError("tutor_warn: only with the tutor (tutor true)".into()).into(),
                );
            }
            if !(w > 0.0 && w <= 1.0) {
                return Err(InputError(format!(
                    "tutor_warn must be above 0 and at most 1 (normalised equity, e.g. 0.04), got {w}"
                ))
                .into());
            }
        }
        let engine =
            PlayerSpec::parse(&format!("neural:ply={ply}"))?.create(seed, Rules::Standard)?;
        let mut record = MatchRecord::new(length, [name, engine.name().replace(" : ", " ")]);
        record.jacoby = jacoby;
        record.beavers = beavers;
        let mut game = Game {
            id,
            seed,
            ply,
            human,
            engine,
            cube: !cubeless_xgid && (length > 0 || request.cube.unwrap_or(true)),
            length,
            state: GameState::money(Position::START),
            dice: DiceRng::new(seed),
            phase: Phase::Over,
            record,
            score: start.map_or_else(BySide::default, |s| s.score),
            crawford_played: false,
            crawford: false,
            beavers,
            jacoby,
            rejected: None,
            ending: None,
            log: Vec::new(),
            plays: PlayList::new(),
            tutor,
            tutor_warn,
            judged: None,
            tally: Tally::default(),
            start,
            cube_limit,
        };
        game.begin();
        Ok(game)
    }

    /// Whether the game has the tutor and it may judge `action` now (the phase allows it and
    /// the tutor judges such actions): only then does [`Game::act_tutored`] need a search.
    #[must_use]
    pub fn tutors(&self, action: &str) -> bool {
        self.tutor
            && matches!(
                (action, self.phase),
                ("move", Phase::Move(_))
                    | ("roll" | "double" | "resign", Phase::Roll)
                    | ("resign", Phase::Move(_))
                    | ("take" | "beaver" | "pass" | "drop", Phase::Take)
                    | ("accept" | "reject", Phase::Resignation(_))
            )
    }

    /// The game's number.
    #[must_use]
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The game so far as a `.mat` record (the person left, the engine right), or as SGF for
    /// a game played on from a position (whose set-up `.mat` cannot hold).
    ///
    /// # Errors
    /// Never for a game played here, but the writer can refuse.
    pub fn record_text(&self) -> Result<String> {
        if self.record_is_sgf() {
            Ok(self.record.to_sgf())
        } else {
            Ok(self.record.to_mat()?)
        }
    }

    /// Whether [`Game::record_text`] is SGF.
    fn record_is_sgf(&self) -> bool {
        self.record
            .games
            .iter()
            .any(|g| g.turns.iter().any(|t| matches!(t.action, Action::SetUp(_))))
    }

    /// The decision the person faces, for a hint.
    ///
    /// # Errors
    /// A [`Conflict`] once the game is over.
    pub fn decision(&self) -> Result<Decision> {
        let xgid = self.xgid(&self.state);
        match self.phase {
            Phase::Move(_) => Ok(Decision::Move(xgid)),
            Phase::Roll | Phase::Take => Ok(Decision::Cube(xgid)),
            Phase::Resignation(level) => Ok(Decision::Resignation {
                state: self.state,
                level,
                cube: self.cube,
            }),
            Phase::Over => Err(Conflict("no decision to hint at: the game is over".into()).into()),
        }
    }

    /// Begins game `record.games.len() + 1`: the opening roll, and the engine's first turn if
    /// it wins it.
    fn begin(&mut self) {
        let number = self.record.games.len() as u32 + 1;
        let leader_at = |s: &BySide<u32>| GameState::is_crawford_game(self.length, *s, false);
        let start = self.start.take();
        self.crawford = match start {
            // A side one point away and not the Crawford game: that game was played.
            Some(s) => {
                self.crawford_played = leader_at(&self.score) && !s.crawford;
                s.crawford
            }
            None => GameState::is_crawford_game(self.length, self.score, self.crawford_played),
        };
        let mut game = GameRecord::new(
            number,
            [*self.score.get(self.human), *self.score.get(!self.human)],
        );
        // Said, not left to be inferred: a match may start from a position after the
        // Crawford game.
        game.crawford = (self.length > 0).then_some(self.crawford);
        self.record.games.push(game);
        // Game g of a match throws the dice of seed S + g - 1, as `tavla play --match`.
        self.dice = DiceRng::new(self.seed.wrapping_add(u64::from(number) - 1));
        self.engine.new_game();
        self.rejected = None;
        self.ending = None;
        self.log.clear();
        let bot = !self.human;
        if let Some(start) = start {
            let state = self.rules_of(start);
            let on_roll = if state.turn == self.human {
                PERSON
            } else {
                ENGINE
            };
            self.push_action(on_roll, set_up(&state, self.human));
            self.log.push(json!({
                "event": "position",
                "xgid": self.xgid(&state),
                "turn": self.who(state.turn),
            }));
            self.state = state;
            self.state.dice = Dice::NotRolled;
            match (state.dice, state.turn == self.human) {
                (Dice::Rolled(roll), true) => self.person_rolled(roll),
                (Dice::Rolled(roll), false) => self.engine_rolled(roll),
                (Dice::DoubleOffered, true) => self.person_doubles(),
                (Dice::DoubleOffered, false) => self.engine_doubles(),
                (Dice::NotRolled, true) => self.person_on_roll(),
                (Dice::NotRolled, false) => self.engine_on_roll(),
            }
            return;
        }
        let (state, roll) = loop {
            let (h, b) = (self.dice.die(), self.dice.die());
            self.log
                .push(json!({ "event": "opening", "you": h, "engine": b }));
            if h == b {
                continue;
            }
            let mut state = self.rules_of(GameState::money(Position::START));
            state.turn = if h > b { self.human } else { bot };
            break (state, Roll::from_values(h, b));
        };
        self.state = state;
        if state.turn == self.human {
            self.person_rolled(roll);
        } else {
            self.engine_rolled(roll);
        }
    }

    /// `state` with this game's match length, score, Crawford game and money rules.
    fn rules_of(&self, mut state: GameState) -> GameState {
        state.match_length = self.length;
        state.score = self.score;
        state.crawford = self.crawford;
        state.beavers = self.beavers && self.length == 0;
        state.jacoby = self.jacoby && self.length == 0 && self.cube;
        state
    }

    /// Whether a double now offered may be beavered ([`GameState::may_beaver`]).
    fn may_beaver(&self) -> bool {
        crate::input::may_beaver_within(&self.state, self.cube_limit)
    }

    /// Whether the side on roll may double, under the game's cube limit as well as the rules.
    fn may_double(&self) -> bool {
        crate::input::may_double_within(&self.state, self.cube_limit)
    }

    /// `state` as an XGID with the game's cube limit.
    fn xgid(&self, state: &GameState) -> String {
        crate::input::xgid_with_limit(state, self.cube_limit)
    }

    /// Whether the cube may be turned in this game.
    fn cube_on(&self) -> bool {
        self.cube && !self.crawford
    }

    /// The person is on roll before rolling: asked to roll or double when the cube is theirs
    /// to turn, else the dice are rolled.
    fn person_on_roll(&mut self) {
        self.state.turn = self.human;
        self.state.dice = Dice::NotRolled;
        if self.cube_on() && self.may_double() {
            self.phase = Phase::Roll;
        } else {
            let roll = self.dice.roll();
            self.person_rolled(roll);
        }
    }

    /// The person threw `roll`: a pass or the one legal play is played for them; otherwise
    /// they must move.
    fn person_rolled(&mut self, roll: Roll) {
        self.state.turn = self.human;
        self.state.dice = Dice::Rolled(roll);
        self.person_log(json!({ "event": "roll", "side": "you", "dice": roll.to_string() }));
        self.state.position.legal_plays(roll, &mut self.plays);
        if self.plays.len() == 1 {
            let forced = if self.plays.is_pass() {
                "pass"
            } else {
                "forced"
            };
            self.play(0, roll, Some(forced));
        } else {
            self.phase = Phase::Move(roll);
        }
    }

    /// Plays play `index` of `self.plays` for the side on roll, then goes on: the game ends,
    /// or the other side is on roll.
    fn play(&mut self, index: usize, roll: Roll, note: Option<&str>) {
        let pos = self.state.position;
        let play = self.plays.play(index);
        let mover = self.state.turn;
        let column = if mover == self.human { PERSON } else { ENGINE };
        if let Some(game) = self.record.games.last_mut() {
            game.push_play(column, &pos, roll, &play);
        }
        let text = if play.is_empty() {
            "pass".to_string()
        } else {
            format_pretty(&pos, &play)
        };
        // The checker moves in the mover's numbering (25 the bar, 0 off).
        let moves: Vec<[u8; 2]> = play.moves().iter().map(|m| [m.from(), m.to()]).collect();
        let mut event = json!({
            "event": "play",
            "side": self.who(mover),
            "dice": roll.to_string(),
            "play": text,
            "moves": moves,
        });
        if let Some(note) = note {
            event["note"] = json!(note);
        }
        if mover == self.human {
            self.person_log(event);
        } else {
            self.log.push(event);
        }
        let after = self.plays.positions()[index];
        if let Some(outcome) = after.outcome() {
            let how = match outcome.points {
                1 => "single",
                2 => "gammon",
                _ => "backgammon",
            };
            self.state.position = after.flip();
            self.state.turn = !mover;
            self.state.dice = Dice::NotRolled;
            let points = won_points(&self.state, outcome.points);
            self.end(mover, points, how);
            return;
        }
        self.state.position = after.flip();
        self.state.turn = !mover;
        self.state.dice = Dice::NotRolled;
        if mover == self.human {
            self.engine_on_roll();
        } else {
            self.person_on_roll();
        }
    }

    /// The engine is on roll before rolling: it may offer to resign, or double, else it rolls
    /// and plays.
    fn engine_on_roll(&mut self) {
        self.state.turn = !self.human;
        self.state.dice = Dice::NotRolled;
        let cube = self.cube;
        if let Some(level) = self.engine.resigns(&self.state, cube) {
            if self.rejected.is_none_or(|r| level > r) {
                let points = level.points_in(&self.state);
                self.log.push(json!({
                    "event": "resign", "side": "engine", "level": level.to_string(), "points": points,
                }));
                self.phase = Phase::Resignation(level);
                return;
            }
        }
        self.engine_cube_or_roll();
    }

    /// The engine, on roll, doubles or rolls and plays.
    fn engine_cube_or_roll(&mut self) {
        if self.cube_on() && self.may_double() && self.engine.wants_to_double(&self.state) {
            self.engine_doubles();
            return;
        }
        let roll = self.dice.roll();
        self.engine_rolled(roll);
    }

    /// The engine, on roll, doubles: the person is to take or pass.
    fn engine_doubles(&mut self) {
        let doubled = self.state.cube.value() * 2;
        self.push_action(ENGINE, Action::Double(doubled));
        self.log
            .push(json!({ "event": "double", "side": "engine", "cube": doubled }));
        self.phase = Phase::Take;
    }

    /// The engine threw `roll`, and plays it.
    fn engine_rolled(&mut self, roll: Roll) {
        self.state.turn = !self.human;
        self.state.dice = Dice::Rolled(roll);
        self.state.position.legal_plays(roll, &mut self.plays);
        let choice = if self.plays.len() == 1 {
            0
        } else {
            let state = self.state;
            self.engine
                .choose_play(&state, roll, &self.plays)
                .min(self.plays.len() - 1)
        };
        self.play(choice, roll, None);
    }

    fn push_action(&mut self, column: usize, action: Action) {
        if let Some(game) = self.record.games.last_mut() {
            game.push(column, action);
        }
    }

    fn who(&self, side: Side) -> &'static str {
        if side == self.human {
            "you"
        } else {
            "engine"
        }
    }

    /// The game ends: `winner` wins `points`.
    fn end(&mut self, winner: Side, points: u32, how: &'static str) {
        let column = if winner == self.human { PERSON } else { ENGINE };
        self.push_action(column, Action::Wins(points));
        self.log.push(json!({
            "event": "end", "winner": self.who(winner), "points": points, "how": how,
        }));
        self.crawford_played |= self.crawford;
        *self.score.get_mut(winner) += points;
        self.ending = Some(Ending {
            winner,
            points,
            how,
        });
        self.phase = Phase::Over;
    }

    /// Whether the match (or money game) is over: no next game.
    fn finished(&self) -> bool {
        self.phase == Phase::Over
            && (self.length == 0
                || self.score.get(Side::X).max(self.score.get(Side::O)) >= &self.length)
    }

    /// Refuses an action meant for the game as it stood when its log held `seen` events, once
    /// the game has moved on (a play sent twice, the second time for the next roll): a
    /// [`Conflict`]. `None` checks nothing.
    ///
    /// # Errors
    /// The [`Conflict`] when the log holds another number of events.
    pub fn check_seen(&self, seen: Option<usize>) -> Result<()> {
        match seen {
            Some(n) if n != self.log.len() => Err(Conflict(format!(
                "the game has moved on: its log holds {} events, not the {n} of `after` (get \
                 the game again)",
                self.log.len()
            ))
            .into()),
            _ => Ok(()),
        }
    }

    /// Carries out the person's `action` (with `play` for `move`, `level` for `resign`), and
    /// the engine's answers.
    ///
    /// # Errors
    /// A [`Conflict`] when the action is not one the phase allows; an [`InputError`] for a play
    /// that cannot be read or is illegal, or an unknown level or action.
    pub fn act(&mut self, action: &str, play: Option<&str>, level: Option<&str>) -> Result<()> {
        let phase = self.phase;
        let beavers = self.may_beaver();
        let wrong = || -> anyhow::Error {
            Conflict(format!(
                "cannot {action} now: {}",
                match phase {
                    Phase::Roll => "roll or double (or resign)",
                    Phase::Move(_) => "move (or resign)",
                    Phase::Take if beavers => "take, beaver or pass the double",
                    Phase::Take => "take or pass the double",
                    Phase::Resignation(_) => "accept or reject the engine's resignation",
                    Phase::Over => "the game is over (`next` starts the next game of a match)",
                }
            ))
            .into()
        };
        match (action, phase) {
            ("roll", Phase::Roll) => {
                let roll = self.dice.roll();
                self.person_rolled(roll);
            }
            ("double", Phase::Roll) => self.person_doubles(),
            ("take", Phase::Take) => {
                self.push_action(PERSON, Action::Take);
                self.person_log(json!({ "event": "take", "side": "you" }));
                self.state.answer_double(CubeResponse::Take);
                let roll = self.dice.roll();
                self.engine_rolled(roll);
            }
            ("beaver", Phase::Take) if self.may_beaver() => {
                // The person redoubles at once and keeps the cube; the engine must accept
                // (gnubg records it as a double answered by a take).
                let beavered = self.state.cube.value() * 4;
                self.push_action(PERSON, Action::Beaver(beavered));
                self.push_action(ENGINE, Action::Take);
                self.person_log(json!({ "event": "beaver", "side": "you", "cube": beavered }));
                self.state.answer_double(CubeResponse::Beaver);
                let roll = self.dice.roll();
                self.engine_rolled(roll);
            }
            ("pass" | "drop", Phase::Take) => {
                self.push_action(PERSON, Action::Drop);
                self.person_log(json!({ "event": "pass", "side": "you" }));
                let value = self.state.cube.value();
                self.end(!self.human, value, "pass");
            }
            ("move", Phase::Move(roll)) => {
                let text =
                    play.ok_or_else(|| InputError("missing field `play` for `move`".into()))?;
                let index = self.chosen(text, roll)?;
                self.play(index, roll, None);
            }
            ("resign", Phase::Roll | Phase::Move(_)) => {
                let level = match level {
                    None => Resign::Single,
                    Some(l) => l
                        .parse::<Resign>()
                        .map_err(|e| InputError(format!("level: {e}")))?,
                };
                self.person_resigns(level);
            }
            ("accept", Phase::Resignation(level)) => {
                let points = level.points_in(&self.state);
                self.person_log(json!({ "event": "accept", "side": "you" }));
                self.end(self.human, points, "resignation");
            }
            ("reject", Phase::Resignation(level)) => {
                self.rejected = Some(level);
                self.person_log(json!({ "event": "reject", "side": "you" }));
                self.engine_cube_or_roll();
            }
            ("next", Phase::Over) if !self.finished() => self.begin(),
            (
                "roll" | "double" | "take" | "beaver" | "pass" | "drop" | "move" | "resign" | "accept"
                | "reject" | "next",
                _,
            ) => return Err(wrong()),
            _ => {
                return Err(InputError(format!(
                    "unknown action {action:?}: roll, double, take, beaver, pass, move, resign, accept, \
                     reject or next"
                ))
                .into())
            }
        }
        Ok(())
    }

    /// Logs an event of the person's, with the tutor's judgement of it when there is one.
    fn person_log(&mut self, mut event: Value) {
        if let Some(j) = self.judged.take() {
            event["tutor"] = j.json(self.ply);
            self.tally.add(&j);
        }
        self.log.push(event);
    }

    /// The index in `self.plays` of the play `text` (standard notation or landing marks) for
    /// `roll`.
    fn chosen(&self, text: &str, roll: Roll) -> Result<usize> {
        let chosen = read_play(text, &self.state.position, roll)
            .map_err(InputError)?
            .sorted_moves();
        Ok(self
            .plays
            .plays()
            .position(|p| p.sorted_moves() == chosen)
            .ok_or_else(|| InputError(format!("Illegal: {text}.")))?)
    }

    /// The tutor's judgement of the person's `action` (with `play`, `level` as for
    /// [`Game::act`]) before it is carried out, by `search` at the game's depth; `None` for an
    /// action it does not judge (a roll with no cube decision, `next`) or one the phase does
    /// not allow (which [`Game::act`] then refuses).
    fn judge(
        &self,
        action: &str,
        play: Option<&str>,
        level: Option<&str>,
        search: &mut Search,
    ) -> Result<Option<Judgement>> {
        let ply = self.ply;
        let state = &self.state;
        let redouble = matches!(state.cube.owner, CubeOwner::Side(_));
        Ok(match (action, self.phase) {
            ("move", Phase::Move(roll)) => {
                let Some(text) = play else { return Ok(None) };
                let index = self.chosen(text, roll)?;
                let pos = state.position;
                let Some(r) =
                    search.review_play(state, roll, &self.plays.positions()[index], ply, self.cube)
                else {
                    return Ok(None);
                };
                let best = (0..self.plays.len())
                    .find(|&i| self.plays.positions()[i] == r.best)
                    .map_or_else(String::new, |i| format_pretty(&pos, &self.plays.play(i)));
                Some(Judgement {
                    kind: "play",
                    made: format_pretty(&pos, &self.plays.play(index)),
                    best,
                    loss: r.loss,
                    loss_mwc: r.loss_mwc,
                    counted: true,
                })
            }
            ("roll" | "double", Phase::Roll) => {
                let Some(a) = search.cube_decision(state, ply) else {
                    return Ok(None);
                };
                let doubled = action == "double";
                let r = review_double(&a, doubled, self.may_beaver());
                let made = match (doubled, redouble) {
                    (true, true) => "Redouble",
                    (true, false) => "Double",
                    (false, true) => "No redouble",
                    (false, false) => "No double",
                };
                Some(Judgement {
                    kind: if doubled { "double" } else { "no double" },
                    made: made.into(),
                    best: a.action.describe(redouble).into(),
                    loss: r.loss,
                    loss_mwc: r.loss_mwc,
                    counted: r.counted,
                })
            }
            ("take" | "beaver" | "pass" | "drop", Phase::Take) => {
                if action == "beaver" && !self.may_beaver() {
                    return Ok(None);
                }
                // The engine doubled, on roll: the analysis is from its side.
                let Some(a) = search.cube_decision(state, ply) else {
                    return Ok(None);
                };
                let (response, kind, made) = match action {
                    "take" => (CubeResponse::Take, "take", "Take"),
                    "beaver" => (CubeResponse::Beaver, "beaver", "Beaver"),
                    _ => (CubeResponse::Pass, "pass", "Pass"),
                };
                let beavers = self.may_beaver();
                let r = review_answer(&a, response, beavers);
                let best = a.answer_words(beavers);
                Some(Judgement {
                    kind,
                    made: made.into(),
                    best: best.into(),
                    loss: r.loss,
                    loss_mwc: r.loss_mwc,
                    counted: r.counted,
                })
            }
            ("resign", Phase::Roll | Phase::Move(_)) => {
                let level = match level {
                    None => Resign::Single,
                    Some(l) => l
                        .parse::<Resign>()
                        .map_err(|e| InputError(format!("level: {e}")))?,
                };
                // Before the roll or after it: `resignation_worth` takes either.
                let points = level.points_in(state);
                let Some(r) = search.review_resignation(state, true, points, self.cube, ply) else {
                    return Ok(None);
                };
                Some(Judgement {
                    kind: "resign",
                    made: format!("Resign {level}"),
                    best: if r.resigner_loss > 0.0 {
                        "Play on".into()
                    } else {
                        format!("Resign {level}")
                    },
                    loss: r.resigner_loss,
                    loss_mwc: r.loss_mwc.map(|m| m[0]),
                    counted: false,
                })
            }
            ("accept" | "reject", Phase::Resignation(level)) => {
                // The engine offers, on roll.
                let points = level.points_in(state);
                let Some(r) = search.review_resignation(state, true, points, self.cube, ply) else {
                    return Ok(None);
                };
                let accept_right = r.resigner_loss > 0.0 || r.accepter_loss == 0.0;
                let (loss, loss_mwc) = if action == "accept" {
                    (r.accepter_loss, r.loss_mwc.map(|m| m[1]))
                } else {
                    (r.resigner_loss, r.loss_mwc.map(|m| m[0]))
                };
                Some(Judgement {
                    kind: if action == "accept" {
                        "accept"
                    } else {
                        "reject"
                    },
                    made: if action == "accept" {
                        "Accept"
                    } else {
                        "Reject"
                    }
                    .into(),
                    best: if accept_right { "Accept" } else { "Reject" }.into(),
                    loss,
                    loss_mwc,
                    counted: false,
                })
            }
            _ => None,
        })
    }

    /// Like [`Game::act`], with the tutor when the game has it: the action is judged first by
    /// `search` at the game's depth, and one that loses at least the game's `tutor_warn` is
    /// held back unless `anyway`: the answer is then the warning (the judgement), the game
    /// unchanged. A judged action carried out has the judgement in its event of the log.
    ///
    /// # Errors
    /// As [`Game::act`].
    pub fn act_tutored(
        &mut self,
        action: &str,
        play: Option<&str>,
        level: Option<&str>,
        anyway: bool,
        search: &mut Search,
    ) -> Result<Option<Value>> {
        self.judged = None;
        if self.tutor {
            if let Some(j) = self.judge(action, play, level, search)? {
                if !anyway && self.tutor_warn.is_some_and(|w| j.loss >= w as f32) {
                    return Ok(Some(j.json(self.ply)));
                }
                self.judged = Some(j);
            }
        }
        let done = self.act(action, play, level);
        self.judged = None;
        done.map(|()| None)
    }

    /// The person doubles; the engine takes (the person then rolls) or passes.
    fn person_doubles(&mut self) {
        let doubled = self.state.cube.value() * 2;
        self.push_action(PERSON, Action::Double(doubled));
        self.person_log(json!({ "event": "double", "side": "you", "cube": doubled }));
        let asked = self.state.double_to_answer();
        if self.engine.accepts_double(&asked) {
            if self.may_beaver() && self.engine.beavers(&asked) {
                let beavered = doubled * 2;
                self.push_action(ENGINE, Action::Beaver(beavered));
                self.push_action(PERSON, Action::Take);
                self.log
                    .push(json!({ "event": "beaver", "side": "engine", "cube": beavered }));
                self.state.answer_double(CubeResponse::Beaver);
            } else {
                self.push_action(ENGINE, Action::Take);
                self.log.push(json!({ "event": "take", "side": "engine" }));
                self.state.answer_double(CubeResponse::Take);
            }
            let roll = self.dice.roll();
            self.person_rolled(roll);
        } else {
            self.push_action(ENGINE, Action::Drop);
            self.log.push(json!({ "event": "pass", "side": "engine" }));
            let value = self.state.cube.value();
            self.end(self.human, value, "pass");
        }
    }

    /// The person offers to resign `level`; the engine accepts (the game ends) or rejects.
    fn person_resigns(&mut self, level: Resign) {
        let points = level.points_in(&self.state);
        self.person_log(json!({
            "event": "resign", "side": "you", "level": level.to_string(), "points": points,
        }));
        let state = self.state;
        if self.engine.accepts_resignation(&state, self.cube, level) {
            self.log
                .push(json!({ "event": "accept", "side": "engine" }));
            self.end(!self.human, points, "resignation");
        } else {
            self.log
                .push(json!({ "event": "reject", "side": "engine" }));
        }
    }

    /// The game as it stands, for the person.
    #[must_use]
    pub fn view(&mut self) -> Value {
        let human = self.human;
        let bot = !human;
        // The board from the person's side: index p (1..=24) the person's point p, positive
        // for the person's checkers, negative for the engine's.
        let mine = self.state.checkers_of(human);
        let theirs = self.state.checkers_of(bot);
        let mut points = vec![0i32; 25];
        for p in 1..=24usize {
            points[p] = i32::from(mine[p - 1]) - i32::from(theirs[24 - p]);
        }
        let on_board = |c: &[u8; 25]| c.iter().map(|&n| u32::from(n)).sum::<u32>();
        let pips = |c: &[u8; 25]| {
            c.iter()
                .enumerate()
                .map(|(i, &n)| (i as u32 + 1) * u32::from(n))
                .sum::<u32>()
        };
        let phase = match self.phase {
            Phase::Roll => "roll",
            Phase::Move(_) => "move",
            Phase::Take => "take",
            Phase::Resignation(_) => "resignation",
            Phase::Over if self.finished() => "finished",
            Phase::Over => "over",
        };
        let mut shown = self.state;
        if self.phase == Phase::Take {
            shown.dice = Dice::DoubleOffered;
        }
        let mut v = json!({
            "id": self.id,
            "seed": self.seed,
            "engine": self.engine.name(),
            "ply": self.ply,
            "you": if human == Side::X { "x" } else { "o" },
            "cube_in_play": self.cube,
            "beavers": self.beavers,
            "jacoby": self.jacoby,
            // A double offered now may be beavered (beavers on, the cube not too high).
            "may_beaver": self.may_beaver(),
            "match_length": self.length,
            "record_format": if self.record_is_sgf() { "sgf" } else { "mat" },
            "game": self.record.games.len(),
            "score": { "you": self.score.get(human), "engine": self.score.get(bot) },
            "crawford": self.crawford,
            "phase": phase,
            "turn": self.who(self.state.turn),
            "board": {
                "points": points,
                "bar": { "you": mine[24], "engine": theirs[24] },
                "off": { "you": 15 - on_board(&mine), "engine": 15 - on_board(&theirs) },
            },
            "pips": { "you": pips(&mine), "engine": pips(&theirs) },
            "dice": self.state.roll().map(|r| [r.high().value(), r.low().value()]),
            "cube": {
                "value": self.state.cube.value(),
                "owner": match self.state.cube.owner {
                    CubeOwner::Centre => Value::Null,
                    CubeOwner::Side(s) => json!(self.who(s)),
                },
            },
            // With the double offered while it waits for its answer, so that the game can be
            // taken up there.
            "position": {
                "xgid": self.xgid(&shown),
                "gnubg": format(&shown, Notation::Gnubg),
            },
            "log": self.log,
        });
        if let Phase::Move(_) = self.phase {
            let pos = self.state.position;
            let plays: Vec<Value> = self
                .plays
                .plays()
                .map(|p| {
                    let moves: Vec<[u8; 2]> =
                        p.moves().iter().map(|m| [m.from(), m.to()]).collect();
                    json!({ "play": format_pretty(&pos, &p), "moves": moves })
                })
                .collect();
            v["plays"] = json!(plays);
        }
        if let Phase::Resignation(level) = self.phase {
            v["offer"] = json!({
                "level": level.to_string(),
                "points": level.points_in(&self.state),
                "describe": level.describe(),
            });
        }
        if let Some(e) = self.ending {
            v["result"] = json!({
                "winner": self.who(e.winner),
                "points": e.points,
                "how": e.how,
                "describe": match e.how {
                    "pass" => "the double was passed",
                    "resignation" => "a resignation accepted",
                    "single" => "a single game",
                    // Counted single: the Jacoby rule, the cube never turned.
                    "gammon" | "backgammon" if e.points == 1 => {
                        "counted single under the Jacoby rule"
                    }
                    "gammon" => "a gammon",
                    _ => "a backgammon",
                },
            });
        }
        if self.tutor {
            v["tutor"] = self.tally.json(self.ply, self.tutor_warn);
        }
        if let Some(failure) = self.engine.take_failure() {
            v["engine_failure"] = json!(failure.to_string());
        }
        v
    }
}

/// The engine's advice, searched `ply` deep, on the resignation `level` that the side on roll of
/// `state` offers: what accepting and playing on are worth to the other side (in points, or
/// chances of winning the match) and whether to accept (`Game::decision`'s resignation).
#[must_use]
pub fn resignation_advice(
    search: &mut tavla_nn::Search,
    state: &GameState,
    level: Resign,
    cube: bool,
    ply: u8,
) -> Value {
    let w = search.resignation_worth(state, cube, ply);
    // The worth is the resigning side's: the other's is its opposite.
    let money = state.match_length == 0;
    let other = |x: f32| if money { -x } else { 1.0 - x };
    json!({
        "for": "resignation",
        "ply": ply,
        "units": if money { "points" } else { "chances of winning the match" },
        "level": level.to_string(),
        "playing_on": other(w.playing_on),
        "accepting": other(w.resigning[level as usize - 1]),
        "accept": w.accepts(level),
    })
}

/// The games of a server, each behind its own lock.
#[derive(Default)]
pub struct Games {
    inner: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    next_id: u64,
    games: BTreeMap<u64, (Arc<Mutex<Game>>, Instant)>,
}

impl Games {
    fn kept(&self) -> MutexGuard<'_, Kept> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts a game for `request`, forgetting the least recently used one when
    /// [`MAX_GAMES`] are kept.
    ///
    /// # Errors
    /// As [`Game::start`].
    pub fn start(&self, request: &NewGame) -> Result<Arc<Mutex<Game>>> {
        let id = {
            let mut kept = self.kept();
            kept.next_id += 1;
            kept.next_id
        };
        let game = Arc::new(Mutex::new(Game::start(id, request)?));
        let mut kept = self.kept();
        while kept.games.len() >= MAX_GAMES {
            let oldest = kept
                .games
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(&id, _)| id);
            match oldest {
                Some(id) => kept.games.remove(&id),
                None => break,
            };
        }
        kept.games.insert(id, (game.clone(), Instant::now()));
        Ok(game)
    }

    /// Game `id`, if the server keeps it (marked as used now).
    #[must_use]
    pub fn get(&self, id: u64) -> Option<Arc<Mutex<Game>>> {
        let mut kept = self.kept();
        let entry = kept.games.get_mut(&id)?;
        entry.1 = Instant::now();
        Some(entry.0.clone())
    }

    /// Forgets game `id`; whether it was kept.
    pub fn remove(&self, id: u64) -> bool {
        self.kept().games.remove(&id).is_some()
    }
}

/// Locks a game (a game whose lock was poisoned by a panic is still readable).
pub fn lock(game: &Mutex<Game>) -> MutexGuard<'_, Game> {
    game.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(seed: u64, ply: u8, cube: bool, length: u32) -> Game {
        Game::start(
            1,
            &NewGame {
                ply: Some(ply),
                cube: Some(cube),
                match_length: Some(length),
                seed: Some(seed),
                ..NewGame::default()
            },
        )
        .unwrap()
    }

    /// A game for `request` (its seed from 0 up) where the person acts first, before a roll.
    fn before_a_roll(request: &NewGame) -> Game {
        (0..200)
            .map(|seed| {
                let request = NewGame {
                    seed: Some(seed),
                    ..request.clone()
                };
                Game::start(1, &request).unwrap()
            })
            .find(|g| g.phase == Phase::Roll)
            .unwrap()
    }

    /// Money play with the cube at 0-ply, and `rules` (beavers, Jacoby) on.
    fn money(rules: NewGame) -> NewGame {
        NewGame {
            ply: Some(0),
            cube: Some(true),
            ..rules
        }
    }

    /// Plays the person's side by always taking the first legal play, rolling, taking and
    /// rejecting, until the game is over; returns the number of actions.
    fn play_out(game: &mut Game) -> usize {
        let mut actions = 0;
        while game.phase != Phase::Over {
            let v = game.view();
            match v["phase"].as_str().unwrap() {
                "roll" => game.act("roll", None, None).unwrap(),
                "move" => {
                    let play = v["plays"][0]["play"].as_str().unwrap().to_string();
                    game.act("move", Some(&play), None).unwrap();
                }
                "take" => game.act("take", None, None).unwrap(),
                "resignation" => game.act("reject", None, None).unwrap(),
                other => panic!("phase {other}"),
            }
            actions += 1;
            assert!(actions < 2000, "the game does not end");
        }
        actions
    }

    #[test]
    fn a_cubeless_game_is_played_to_the_end_and_recorded() {
        let mut game = new(5, 0, false, 0);
        let v = game.view();
        assert_eq!(v["pips"]["you"], 167);
        assert!(["move", "roll"].contains(&v["phase"].as_str().unwrap()));
        play_out(&mut game);
        let v = game.view();
        assert_eq!(v["phase"], "finished");
        let result = &v["result"];
        assert!(["you", "engine"].contains(&result["winner"].as_str().unwrap()));
        // The record replays through the legal plays to the same end.
        let mat = game.record_text().unwrap();
        let record = tavla_notation::mat::MatchRecord::parse(&mat).unwrap();
        assert_eq!(record.games.len(), 1);
        record.games[0].replay().unwrap();
        assert!(mat.contains("Wins"), "{mat}");
    }

    /// An action sent with the log's length its sender saw is refused once the game has moved
    /// on: a play sent twice is not played again on the next roll.
    #[test]
    fn an_action_for_a_game_that_has_moved_on_is_refused() {
        let mut game = new(5, 0, false, 0);
        // To the person's first move.
        while game.view()["phase"] != "move" {
            game.act("roll", None, None).unwrap();
        }
        let v = game.view();
        let seen = v["log"].as_array().unwrap().len();
        let play = v["plays"][0]["play"].as_str().unwrap().to_string();
        game.check_seen(Some(seen)).unwrap();
        game.check_seen(None).unwrap();
        game.act("move", Some(&play), None).unwrap();
        let err = game.check_seen(Some(seen)).unwrap_err();
        assert!(err.is::<Conflict>(), "{err}");
        assert!(
            err.to_string().starts_with("the game has moved on"),
            "{err}"
        );
        let now = game.view()["log"].as_array().unwrap().len();
        game.check_seen(Some(now)).unwrap();
    }

    #[test]
    fn the_same_seed_throws_the_same_game() {
        let mut a = new(11, 0, true, 0);
        let mut b = new(11, 0, true, 0);
        play_out(&mut a);
        play_out(&mut b);
        assert_eq!(a.view()["log"], b.view()["log"]);
        assert_eq!(a.record_text().unwrap(), b.record_text().unwrap());
    }

    #[test]
    fn actions_out_of_turn_and_illegal_moves_are_refused_with_the_reason() {
        // A seed where the person opens with several plays to choose from.
        let mut game = (0..200)
            .map(|s| new(s, 0, true, 0))
            .find(|g| matches!(g.phase, Phase::Move(_)) && g.log.len() == 2)
            .unwrap();
        let before = game.view();
        let e = game.act("take", None, None).unwrap_err();
        assert!(e.is::<Conflict>(), "{e}");
        assert!(e.to_string().contains("cannot take now: move"), "{e}");
        let e = game.act("move", Some("24/1"), None).unwrap_err();
        assert!(e.is::<InputError>(), "{e}");
        assert!(e.to_string().contains("Illegal"), "{e}");
        let e = game.act("move", Some("nonsense!"), None).unwrap_err();
        assert!(e.to_string().contains("Cannot read `nonsense!`"), "{e}");
        let e = game.act("move", None, None).unwrap_err();
        assert!(e.to_string().contains("`play`"), "{e}");
        let e = game.act("fly", None, None).unwrap_err();
        assert!(e.to_string().contains("unknown action"), "{e}");
        let e = game.act("resign", None, Some("triple")).unwrap_err();
        assert!(e.to_string().contains("level"), "{e}");
        // Nothing was changed by the refused actions.
        assert_eq!(game.view(), before);
    }

    #[test]
    fn the_engine_takes_an_early_double_and_accepts_a_resignation() {
        // Doubling at once, before the first roll of the person's: the engine takes.
        let mut game = before_a_roll(&money(NewGame::default()));
        game.act("double", None, None).unwrap();
        let v = game.view();
        assert_eq!(v["cube"]["value"], 2);
        assert_eq!(v["cube"]["owner"], "engine");
        let log = v["log"].as_array().unwrap();
        assert!(log
            .iter()
            .any(|e| e["event"] == "take" && e["side"] == "engine"));
        // The person resigns a gammon at once: the engine, far from winning one at the start,
        // accepts.
        let mut game = before_a_roll(&money(NewGame::default()));
        game.act("resign", None, Some("gammon")).unwrap();
        let v = game.view();
        assert_eq!(v["phase"], "finished");
        assert_eq!(v["result"]["winner"], "engine");
        assert_eq!(v["result"]["how"], "resignation");
        assert_eq!(v["result"]["points"], 2);
    }

    /// A race: the side on roll has `near` checkers on its 1-point and 2-point, the other
    /// `far` checkers on its 6- and 5-points (the rest borne off); seen from the side on roll.
    fn race(near: u8, far: u8) -> Position {
        let mut on_roll = [0u8; 25];
        on_roll[0] = near / 2;
        on_roll[1] = near - near / 2;
        let mut opponent = [0u8; 25];
        opponent[5] = far - far / 2;
        opponent[4] = far / 2;
        Position::try_from(tavla_core::Board { on_roll, opponent }).unwrap()
    }

    #[test]
    fn the_engine_passes_a_hopeless_double_and_doubles_when_far_ahead() {
        let mut game = before_a_roll(&money(NewGame::default()));
        // The person, on roll, bears off four checkers in two rolls; the engine needs eight.
        game.state.position = race(4, 15);
        game.act("double", None, None).unwrap();
        let v = game.view();
        assert_eq!(v["phase"], "finished", "{v}");
        assert_eq!(v["result"]["how"], "pass");
        assert_eq!(v["result"]["winner"], "you");
        assert_eq!(v["result"]["points"], 1);
        let mat = game.record_text().unwrap();
        assert!(
            mat.contains("Doubles => 2") && mat.contains("Drops"),
            "{mat}"
        );
        // The engine on roll, needing two rolls, against four checkers on the 6- and 5-points
        // (no gammon left to play for): it doubles, and the person passes.
        let mut game = before_a_roll(&money(NewGame::default()));
        game.state.turn = !game.human;
        game.state.position = race(4, 4);
        game.engine_on_roll();
        let v = game.view();
        assert_eq!(v["phase"], "take", "{v}");
        assert_eq!(
            v["log"].as_array().unwrap().last().unwrap()["event"],
            "double"
        );
        game.act("pass", None, None).unwrap();
        let v = game.view();
        assert_eq!(v["result"]["winner"], "engine");
        assert_eq!(v["result"]["points"], 1);
    }

    #[test]
    fn the_engine_offers_to_resign_a_lost_gammon_and_the_person_answers() {
        let lost = || {
            let mut game = before_a_roll(&money(NewGame::default()));
            // The engine on roll, 15 checkers on its 8- and 7-points (none can be borne off
            // this turn); the person has one checker left, on its 1-point.
            let mut on_roll = [0u8; 25];
            on_roll[7] = 8;
            on_roll[6] = 7;
            let mut opponent = [0u8; 25];
            opponent[0] = 1;
            game.state.turn = !game.human;
            game.state.position =
                Position::try_from(tavla_core::Board { on_roll, opponent }).unwrap();
            game.engine_on_roll();
            game
        };
        let mut game = lost();
        let v = game.view();
        assert_eq!(v["phase"], "resignation", "{v}");
        let Decision::Resignation { state, level, cube } = game.decision().unwrap() else {
            panic!("not a resignation");
        };
        assert_eq!(level, Resign::Gammon);
        let mut search = tavla_nn::Search::new(tavla_nn::Weights::shared_default());
        let advice = resignation_advice(&mut search, &state, level, cube, 1);
        assert_eq!(advice["accept"], true, "{advice}");
        assert_eq!(advice["units"], "points");
        assert!(
            (advice["accepting"].as_f64().unwrap() - 2.0).abs() < 1e-6,
            "{advice}"
        );
        assert!(
            (advice["playing_on"].as_f64().unwrap() - 2.0).abs() < 0.01,
            "{advice}"
        );
        assert_eq!(v["offer"]["level"], "gammon", "{v}");
        let e = game.act("roll", None, None).unwrap_err();
        assert!(e.to_string().contains("accept or reject"), "{e}");
        game.act("accept", None, None).unwrap();
        let e = game.decision().err().unwrap();
        assert!(e.is::<Conflict>(), "{e}");

        let v = game.view();
        assert_eq!(v["result"]["winner"], "you");
        assert_eq!(v["result"]["how"], "resignation");
        assert_eq!(v["result"]["points"], 2);
        // Rejected, the engine plays on (and offers no less again); the person then bears
        // off the last checker and wins the gammon.
        let mut game = lost();
        game.act("reject", None, None).unwrap();
        play_out(&mut game);
        let v = game.view();
        assert_eq!(v["result"]["winner"], "you", "{v}");
        assert_eq!(v["result"]["how"], "gammon", "{v}");
        let offers = v["log"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["event"] == "resign")
            .count();
        assert_eq!(offers, 1, "{v}");
    }

    #[test]
    fn beavers_both_ways_in_money_play() {
        let with_beavers = |position: Position, engine_on_roll: bool| {
            let mut game = before_a_roll(&money(NewGame {
                beavers: Some(true),
                ..NewGame::default()
            }));
            game.state.position = position;
            if engine_on_roll {
                game.state.turn = !game.human;
                game.engine_on_roll();
            }
            game
        };
        // The engine doubles in a race it wins; the person beavers: the cube is on 4, the
        // person's, and the engine has rolled and played.
        let mut game = with_beavers(race(4, 4), true);
        assert_eq!(game.view()["phase"], "take");
        assert_eq!(game.view()["may_beaver"], true);
        let e = game.act("move", Some("8/5"), None).unwrap_err();
        assert!(e.to_string().contains("take, beaver or pass"), "{e}");
        game.act("beaver", None, None).unwrap();
        let v = game.view();
        assert_eq!(v["cube"]["value"], 4, "{v}");
        assert_eq!(v["cube"]["owner"], "you", "{v}");
        let mat = game.record_text().unwrap();
        assert!(mat.contains("Beavers => 4"), "{mat}");
        // The person doubles in a race the engine wins: the engine beavers.
        let mut on_roll = [0u8; 25];
        on_roll[7] = 8;
        on_roll[6] = 7;
        let mut opponent = [0u8; 25];
        opponent[0] = 2;
        opponent[1] = 2;
        let lost = Position::try_from(tavla_core::Board { on_roll, opponent }).unwrap();
        let mut game = with_beavers(lost, false);
        game.act("double", None, None).unwrap();
        let v = game.view();
        assert_eq!(v["cube"]["value"], 4, "{v}");
        assert_eq!(v["cube"]["owner"], "engine", "{v}");
        let log = v["log"].as_array().unwrap();
        assert!(
            log.iter()
                .any(|e| e["event"] == "beaver" && e["side"] == "engine"),
            "{v}"
        );
        // Without beavers the action is refused; and beavers need money play with the cube.
        let mut game = with_beavers(race(4, 4), true);
        game.beavers = false;
        game.state.beavers = false;
        let e = game.act("beaver", None, None).unwrap_err();
        assert!(
            e.is::<Conflict>() && e.to_string().contains("take or pass"),
            "{e}"
        );
        // Nor with the cube so high that a beaver would pass 2^15.
        let mut game = with_beavers(race(4, 4), true);
        game.state.cube.log2 = 14;
        assert_eq!(game.view()["may_beaver"], false);
        let e = game.act("beaver", None, None).unwrap_err();
        assert!(e.is::<Conflict>(), "{e}");
        for request in [
            NewGame {
                beavers: Some(true),
                match_length: Some(5),
                ..NewGame::default()
            },
            NewGame {
                beavers: Some(true),
                cube: Some(false),
                ..NewGame::default()
            },
        ] {
            let e = Game::start(1, &request).err().unwrap();
            assert!(e.to_string().contains("beavers: only in money play"), "{e}");
        }
    }

    /// Review (fifty-eighth round): the web game played an XGID's game without the cube (field
    /// 10 at 0) with one, and doubled past its limit.
    #[test]
    fn an_xgids_cube_limit_holds_through_the_game() {
        let start = "XGID=-b----E-C---eE---c-e----B-";
        let game = |field10: &str, cube: &str| {
            Game::start(
                1,
                &NewGame {
                    ply: Some(0),
                    seed: Some(3),
                    position: Some(format!("{start}:{cube}:0:0:0:0:{field10}")),
                    ..NewGame::default()
                },
            )
        };
        // The person (X) on roll before the roll, the cube at 4 on their side: with a limit of
        // 4 there is no cube decision, the dice are rolled at once; with XG's usual limit the
        // person may redouble.
        let capped = game("2", "2:1:1:00").unwrap();
        assert!(matches!(capped.phase, Phase::Move(_)), "{:?}", capped.phase);
        assert!(capped.log[0]["xgid"].as_str().unwrap().ends_with(":0:2"));
        assert_eq!(game("10", "2:1:1:00").unwrap().phase, Phase::Roll);
        // Field 10 at 0: no cube in the game, and none asked for beside it.
        let cubeless = game("0", "0:0:1:00").unwrap();
        assert!(!cubeless.cube);
        let e = Game::start(
            1,
            &NewGame {
                cube: Some(true),
                position: Some(format!("{start}:0:0:1:00:0:0:0:0:0")),
                ..NewGame::default()
            },
        )
        .err()
        .unwrap();
        assert!(
            e.to_string()
                .contains("a game without the cube (field 10 is 0)"),
            "{e}"
        );
    }

    #[test]
    fn a_game_plays_on_from_a_position() {
        // A bearoff, the person (X) on roll with 6-5 and the cube at 2 on their side.
        let xgid = "XGID=-BBBBAA--------------bbbb-:1:1:1:65:0:0:0:0:10";
        let mut game = Game::start(
            1,
            &NewGame {
                ply: Some(0),
                seed: Some(3),
                position: Some(xgid.into()),
                ..NewGame::default()
            },
        )
        .unwrap();
        let v = game.view();
        assert_eq!(v["phase"], "move", "{v}");
        assert_eq!(v["dice"], json!([6, 5]), "{v}");
        assert_eq!(v["cube"]["value"], 2, "{v}");
        assert_eq!(v["cube"]["owner"], "you", "{v}");
        assert_eq!(v["record_format"], "sgf", "{v}");
        assert_eq!(v["log"][0]["event"], "position", "{v}");
        assert_eq!(v["log"][0]["xgid"], xgid, "{v}");
        play_out(&mut game);
        assert!(game.finished());
        // The record is SGF, with the set-up, and replays to the result.
        let text = game.record_text().unwrap();
        assert!(
            text.contains("AE[a:y]") && text.contains("DI[65]"),
            "{text}"
        );
        let record = MatchRecord::parse_sgf(&text).unwrap();
        let replay = record.games[0].replay().unwrap();
        assert_eq!(replay.rolls[0].roll, Roll::from_values(6, 5));
        assert!(replay.result.is_some());

        // A 5-point match at 3-4, the Crawford game, the engine on roll before its roll: it
        // rolls (no double in the Crawford game); the match goes on to its end.
        let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:3:4:1:5:10";
        let mut game = Game::start(
            1,
            &NewGame {
                ply: Some(0),
                seed: Some(1),
                side: Some("x".into()),
                position: Some(xgid.into()),
                ..NewGame::default()
            },
        )
        .unwrap();
        let v = game.view();
        assert_eq!(v["match_length"], 5, "{v}");
        assert_eq!(v["score"], json!({"you": 3, "engine": 4}), "{v}");
        assert_eq!(v["crawford"], true, "{v}");
        assert!(
            v["log"][1]["event"] == "play" && v["log"][1]["side"] == "engine",
            "{v}"
        );
        let mut games = 1;
        while !game.finished() {
            play_out(&mut game);
            if !game.finished() {
                game.act("next", None, None).unwrap();
                games += 1;
                // The game after the Crawford game is not one.
                assert_eq!(game.view()["crawford"], false);
            }
        }
        let record = MatchRecord::parse_sgf(&game.record_text().unwrap()).unwrap();
        assert_eq!(record.games.len(), games);
        assert_eq!(record.games[0].scores, [3, 4]);

        // A double waiting for the answer of the person, who plays the side to answer it by
        // default; the game shows the position with the double offered.
        let doubled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10";
        let mut game = Game::start(
            1,
            &NewGame {
                ply: Some(0),
                seed: Some(2),
                position: Some(doubled.into()),
                ..NewGame::default()
            },
        )
        .unwrap();
        let v = game.view();
        assert_eq!(v["you"], "o", "{v}");
        assert_eq!(v["phase"], "take", "{v}");
        assert_eq!(v["position"]["xgid"], doubled, "{v}");
        assert_eq!(v["log"][1]["event"], "double", "{v}");
        game.act("take", None, None).unwrap();
        let v = game.view();
        assert_eq!(v["cube"]["value"], 2, "{v}");
        assert_eq!(v["cube"]["owner"], "you", "{v}");

        // Refused, naming the field.
        for (request, needle) in [
            (
                NewGame {
                    position: Some("nonsense".into()),
                    ..NewGame::default()
                },
                "position: invalid position",
            ),
            (
                NewGame {
                    position: Some(xgid.into()),
                    match_length: Some(5),
                    ..NewGame::default()
                },
                "match_length: a position brings its own",
            ),
            (
                NewGame {
                    position: Some("XGID=-b----E-C---eE---c-e----B-:1:0:1:00:0:0:0:1:10".into()),
                    ..NewGame::default()
                },
                "position: a centred cube of 2 in a match",
            ),
            (
                NewGame {
                    position: Some("XGID=-BBBBAA--------------bbbb-:1:1:1:65:0:0:0:0:10".into()),
                    cube: Some(false),
                    ..NewGame::default()
                },
                "cube: the position has the cube turned",
            ),
            (
                NewGame {
                    position: Some("XGID=-------------------b------:0:0:1:00:0:0:0:0:10".into()),
                    ..NewGame::default()
                },
                "position: the game is over",
            ),
        ] {
            let e = Game::start(1, &request).err().unwrap();
            assert!(e.to_string().contains(needle), "{e}");
        }
    }

    #[test]
    fn under_jacoby_a_gammon_counts_single_until_the_cube_is_turned() {
        let won = |jacoby: bool, cube_turned: bool| {
            let mut game = before_a_roll(&money(NewGame {
                jacoby: Some(jacoby),
                ..NewGame::default()
            }));
            assert_eq!(game.state.jacoby, jacoby);
            // The person, on roll, bears off the last checker; the engine has none off.
            let mut on_roll = [0u8; 25];
            on_roll[0] = 1;
            let mut opponent = [0u8; 25];
            opponent[7] = 8;
            opponent[6] = 7;
            game.state.position =
                Position::try_from(tavla_core::Board { on_roll, opponent }).unwrap();
            if cube_turned {
                game.state.cube.log2 = 1;
                game.state.cube.owner = CubeOwner::Side(game.human);
            }
            game.act("roll", None, None).unwrap();
            game.view()["result"].clone()
        };
        let r = won(true, false);
        assert_eq!(
            (r["how"].as_str(), r["points"].as_u64()),
            (Some("gammon"), Some(1)),
            "{r}"
        );
        assert_eq!(r["describe"], "counted single under the Jacoby rule");
        let r = won(true, true);
        assert_eq!(r["points"], 4, "{r}");
        let r = won(false, false);
        assert_eq!(
            (r["points"].as_u64(), &r["describe"]),
            (Some(2), &json!("a gammon"))
        );
        let e = Game::start(
            1,
            &NewGame {
                jacoby: Some(true),
                match_length: Some(3),
                ..NewGame::default()
            },
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("jacoby: only in money play"), "{e}");
    }

    #[test]
    fn a_match_goes_on_game_after_game_until_it_is_won() {
        let mut game = new(3, 0, true, 3);
        let mut games = 0;
        loop {
            play_out(&mut game);
            games += 1;
            let v = game.view();
            let (you, engine) = (
                v["score"]["you"].as_u64().unwrap(),
                v["score"]["engine"].as_u64().unwrap(),
            );
            if v["phase"] == "finished" {
                assert!(you >= 3 || engine >= 3, "{v}");
                break;
            }
            assert_eq!(v["phase"], "over");
            assert!(you < 3 && engine < 3);
            let e = game.act("roll", None, None).unwrap_err();
            assert!(e.is::<Conflict>());
            game.act("next", None, None).unwrap();
            assert_eq!(game.view()["game"], games + 1);
        }
        let e = game.act("next", None, None).unwrap_err();
        assert!(e.is::<Conflict>(), "{e}");
        let mat = game.record_text().unwrap();
        let record = tavla_notation::mat::MatchRecord::parse(&mat).unwrap();
        assert_eq!(record.games.len(), games as usize);
        for g in &record.games {
            g.replay().unwrap();
        }
    }

    #[test]
    fn bad_requests_name_the_field() {
        let bad = |r: NewGame, what: &str| {
            let e = Game::start(1, &r).err().unwrap();
            assert!(e.is::<InputError>() && e.to_string().contains(what), "{e}");
        };
        bad(
            NewGame {
                ply: Some(4),
                ..NewGame::default()
            },
            "ply",
        );
        bad(
            NewGame {
                side: Some("z".into()),
                ..NewGame::default()
            },
            "side",
        );
        bad(
            NewGame {
                seed: Some(MAX_SEED + 1),
                ..NewGame::default()
            },
            "seed must be at most 9007199254740991",
        );
        bad(
            NewGame {
                match_length: Some(33),
                ..NewGame::default()
            },
            "match_length",
        );
        bad(
            NewGame {
                name: Some("a : b".into()),
                ..NewGame::default()
            },
            "name",
        );
        bad(
            NewGame {
                tutor_warn: Some(0.04),
                ..NewGame::default()
            },
            "tutor_warn: only with the tutor",
        );
        for warn in [0.0, -0.1, 1.5, f64::NAN] {
            bad(
                NewGame {
                    tutor: Some(true),
                    tutor_warn: Some(warn),
                    ..NewGame::default()
                },
                "tutor_warn must be above 0 and at most 1",
            );
        }
    }

    /// A search as the server's (the default networks, the bearoff databases, pruning).
    fn tutor_search() -> Search {
        Search::new(tavla_nn::Weights::shared_default())
            .with_bearoff(crate::players::shared_bearoff())
            .with_prune(tavla_nn::search::Prune::embedded())
    }

    #[test]
    fn the_tutor_holds_back_an_error_until_it_is_made_anyway() {
        let mut search = tutor_search();
        let request = NewGame {
            ply: Some(0),
            cube: Some(false),
            tutor: Some(true),
            tutor_warn: Some(0.04),
            ..NewGame::default()
        };
        let mut game = (0..200)
            .map(|seed| {
                Game::start(
                    1,
                    &NewGame {
                        seed: Some(seed),
                        ..request.clone()
                    },
                )
                .unwrap()
            })
            .find(|g| matches!(g.phase, Phase::Move(_)) && g.plays.len() >= 8)
            .unwrap();
        let plays: Vec<String> = game.view()["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["play"].as_str().unwrap().to_string())
            .collect();
        let judged: Vec<Judgement> = plays
            .iter()
            .map(|p| {
                game.judge("move", Some(p), None, &mut search)
                    .unwrap()
                    .unwrap()
            })
            .collect();
        // Every play is judged against the same best play, which loses nothing.
        let best = &judged[0].best;
        assert!(judged.iter().all(|j| &j.best == best && j.loss >= 0.0));
        let first = plays.iter().position(|p| p == best).unwrap();
        assert_eq!(judged[first].loss, 0.0);
        let worst = (0..plays.len())
            .max_by(|&a, &b| judged[a].loss.total_cmp(&judged[b].loss))
            .unwrap();
        assert!(judged[worst].loss >= 0.04, "{judged:?}");
        // The worst play is held back, the game unchanged ...
        let before = game.view();
        let warning = game
            .act_tutored("move", Some(&plays[worst]), None, false, &mut search)
            .unwrap()
            .unwrap();
        assert_eq!(warning["kind"], "play");
        assert_eq!(warning["made"], plays[worst].as_str());
        assert_eq!(warning["best"], best.as_str());
        assert_eq!(game.view(), before);
        // ... until it is made anyway: then its event carries the judgement.
        let held = game
            .act_tutored("move", Some(&plays[worst]), None, true, &mut search)
            .unwrap();
        assert!(held.is_none());
        let v = game.view();
        let event = v["log"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["event"] == "play" && e["side"] == "you" && e.get("tutor").is_some())
            .unwrap();
        assert_eq!(event["play"], plays[worst].as_str());
        assert_eq!(event["tutor"]["loss"], warning["loss"]);
        assert_eq!(v["tutor"]["plays"], 1);
        assert!(v["tutor"]["play_error_rate"].as_f64().unwrap() >= 40.0);
        // A game without the tutor judges nothing.
        let mut plain = new(7, 0, false, 0);
        let v = plain.view();
        if v["phase"] == "move" {
            let play = v["plays"][0]["play"].as_str().unwrap().to_string();
            assert!(plain
                .act_tutored("move", Some(&play), None, false, &mut search)
                .unwrap()
                .is_none());
        }
        assert!(plain.view().get("tutor").is_none());
    }

    /// The tutor's judgement of `action` (with `level`), which it must judge.
    fn judged(game: &Game, action: &str, level: Option<&str>, search: &mut Search) -> Judgement {
        game.judge(action, None, level, search).unwrap().unwrap()
    }

    #[test]
    fn the_tutor_judges_cube_actions_and_resignations() {
        let mut search = tutor_search();
        let mut game = before_a_roll(&money(NewGame {
            tutor: Some(true),
            ..NewGame::default()
        }));
        // The engine on roll bears its four checkers off in two rolls at most; the person
        // needs 6-6 in one roll: a pass, and a take loses about a point.
        game.state.turn = !game.human;
        game.state.position = race(4, 4);
        game.engine_on_roll();
        assert_eq!(game.phase, Phase::Take);
        let pass = judged(&game, "pass", None, &mut search);
        assert_eq!(
            (pass.kind, pass.best.as_str(), pass.loss),
            ("pass", "Pass", 0.0)
        );
        let take = judged(&game, "take", None, &mut search);
        assert_eq!((take.kind, take.best.as_str()), ("take", "Pass"));
        assert!(take.loss > 0.5, "{take:?}");
        // No warning asked for: the take is made, and judged.
        assert!(game
            .act_tutored("take", None, None, false, &mut search)
            .unwrap()
            .is_none());
        let v = game.view();
        let event = v["log"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["event"] == "take")
            .unwrap()
            .clone();
        assert_eq!(event["tutor"]["skill"], "very-bad");
        assert_eq!(v["tutor"]["cube_decisions"], 1);
        assert_eq!(v["tutor"]["cube_errors"], 1);
        assert_eq!(v["tutor"]["checker_very_bad"], 0);
        // The person far ahead, on roll: doubling is right, and the tutor says so.
        let mut game = before_a_roll(&money(NewGame {
            tutor: Some(true),
            ..NewGame::default()
        }));
        game.state.position = race(4, 4);
        let double = judged(&game, "double", None, &mut search);
        assert_eq!((double.kind, double.loss), ("double", 0.0));
        assert!(double.best.starts_with("Double"), "{double:?}");
        let no_double = judged(&game, "roll", None, &mut search);
        assert_eq!(no_double.kind, "no double");
        assert!(no_double.loss > 0.0, "{no_double:?}");
        // Resigning there gives away about two points.
        let resign = judged(&game, "resign", Some("single"), &mut search);
        assert_eq!((resign.kind, resign.best.as_str()), ("resign", "Play on"));
        assert!(resign.loss > 1.5, "{resign:?}");
        // The engine as far ahead, on roll, offering a single game: accept it.
        game.state.turn = !game.human;
        game.phase = Phase::Resignation(Resign::Single);
        let accept = judged(&game, "accept", None, &mut search);
        assert_eq!(
            (accept.kind, accept.best.as_str(), accept.loss),
            ("accept", "Accept", 0.0)
        );
        let reject = judged(&game, "reject", None, &mut search);
        assert_eq!((reject.kind, reject.best.as_str()), ("reject", "Accept"));
        assert!(reject.loss > 1.5, "{reject:?}");
    }

    #[test]
    fn the_server_forgets_the_least_recently_used_game() {
        let games = Games::default();
        let request = NewGame {
            ply: Some(0),
            seed: Some(1),
            ..NewGame::default()
        };
        let first = lock(&games.start(&request).unwrap()).id();
        for _ in 1..MAX_GAMES {
            games.start(&request).unwrap();
        }
        assert!(games.get(first).is_some());
        // The first was used just now; the second is the least recently used.
        games.start(&request).unwrap();
        assert!(games.get(first).is_some());
        assert!(games.get(2).is_none());
        assert!(games.remove(first));
        assert!(!games.remove(first));
    }
}
