//! The [`Player`] interface: anything that chooses plays (and, later, cube actions) for tavla:
//! the random player here, the heuristic players, the neural engine, or an external engine
//! driven over UBGI. Arenas, the engine protocol and the terminal game all talk to players
//! through this trait only.
//!
//! ```
//! use tavla_core::{GameState, PlayList, Position, Roll};
//! use tavla_player::{Player, RandomPlayer};
//!
//! let mut player = RandomPlayer::new(7);
//! let state = GameState::money(Position::START);
//! let mut plays = PlayList::new();
//! let roll = Roll::from_values(3, 1);
//! state.position.legal_plays(roll, &mut plays);
//! let choice = player.choose_play(&state, roll, &plays);
//! assert!(choice < plays.len());
//! ```
#![warn(missing_docs)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{GameState, PlayList, Position, Resign, Roll};

/// A decision maker.
///
/// `state.position` is always seen from the side to act. Implementations may keep state between
/// calls (caches, an external process); [`Player::new_game`] is called before every game.
pub trait Player: Send {
    /// A short name for reports (`random`, `heuristic`, `ubgi:gnubg`...).
    fn name(&self) -> String;

    /// Called before each game.
    fn new_game(&mut self) {}

    /// Chooses one of `plays`, the legal plays of `state.position` for `roll` (generated under
    /// the rules in force; never empty, the pass is a play). Returns its index.
    fn choose_play(&mut self, state: &GameState, roll: Roll, plays: &PlayList) -> usize;

    /// Whether to double before rolling (only asked when doubling is allowed). Cubeless players
    /// never double.
    fn wants_to_double(&mut self, _state: &GameState) -> bool {
        false
    }

    /// Whether to take a double offered by the opponent (`state.position` seen from the side
    /// that must answer). Cubeless players always take.
    fn accepts_double(&mut self, _state: &GameState) -> bool {
        true
    }

    /// Whether to beaver a double just taken (money play with beavers, `state.beavers`): to
    /// redouble at once, keeping the cube, so the game is played for four times the cube before
    /// the double. Asked after [`Player::accepts_double`] said take, with the same `state`.
    /// Players without judgement never beaver.
    fn beavers(&mut self, _state: &GameState) -> bool {
        false
    }

    /// Whether to resign now, before rolling, and at what level. `state.position` is seen from
    /// the player, on roll; `cube` says whether the cube is in play (in money play it may not
    /// be). Players without judgement never resign.
    fn resigns(&mut self, _state: &GameState, _cube: bool) -> Option<Resign> {
        None
    }

    /// Whether to accept the opponent's offer to resign `offered`. `state` is the game as the
    /// resigning side sees it: it is on roll (`state.turn`, `state.position` from its side),
    /// with the dice rolled or not; `cube` says whether the cube is in play. By default a
    /// player accepts when the offer is all the resigning side can still lose
    /// ([`Resign::worst_for`]), which playing on could not beat.
    fn accepts_resignation(&mut self, state: &GameState, _cube: bool, offered: Resign) -> bool {
        offered >= Resign::worst_for(&state.position)
    }

    /// The depth of its search in gnubg's numbering (0: the plays valued as they stand), for
    /// players that search; `None` for the others.
    fn ply(&self) -> Option<u8> {
        None
    }

    /// Sets the depth of its search (gnubg's numbering), of its plays and its cube decisions;
    /// `false`, changing nothing, when the player has no such depth or not this one.
    fn set_ply(&mut self, _ply: u8) -> bool {
        false
    }

    /// The best `top` of `plays` (the legal plays of `state.position` for `roll`, two or more),
    /// best first, each with its value as the player ranks it; the first is the play
    /// [`Player::choose_play`] would choose. `None` for players that do not value plays.
    fn rank_plays(
        &mut self,
        _state: &GameState,
        _roll: Roll,
        _plays: &PlayList,
        _top: usize,
    ) -> Option<Vec<PlayValue>> {
        None
    }

    /// The cubeless outcome probabilities of `state.position` for the side on roll, before it
    /// rolls (win, win gammon, win backgammon, lose gammon, lose backgammon; cumulative as
    /// gnubg writes them), at the player's depth. `None` for players that do not evaluate.
    fn evaluate(&mut self, _state: &GameState) -> Option<[f32; 5]> {
        None
    }

    /// The cubeful values, for the side on roll of `state` (before it rolls), of no double,
    /// double/take and double/pass: per unit of the cube in money play, in a match the
    /// normalised match equity (a pass 1). `None` for players that do not value the cube,
    /// and where there is no cube decision (the Crawford game, a game over).
    fn cube_equities(&mut self, _state: &GameState) -> Option<[f32; 3]> {
        None
    }

    /// Rolls out, cubeless, the position of `state` before its side rolls (`afters` empty:
    /// one result) or the positions left by several plays of one roll (`afters`, each seen from
    /// the mover as a [`PlayList`] holds them: one result each, all on the same dice, for the
    /// mover), as `request` asks, watched and stopped through `control` (which may be read and
    /// set from another thread while this runs). The results cover the games finished when it
    /// stopped; `Some` of an empty list when none was. `None` for players that cannot roll out.
    fn rollout(
        &mut self,
        _state: &GameState,
        _afters: &[Position],
        _request: &RolloutRequest,
        _control: &RolloutControl,
    ) -> Option<Vec<RolloutValue>> {
        None
    }

    /// Why the player cannot play the game of `state` as it stands, in words: a match longer
    /// than its match equity table reaches, say, which it would otherwise play as money.
    /// Engines that serve requests (`tavla_protocol`) refuse such a state with this reason
    /// rather than answer for a game the player misreads. `None` (the default) where it can.
    fn cannot_play(&self, _state: &GameState) -> Option<String> {
        None
    }

    /// Takes the first failure since the last call, for players that can fail without the
    /// decision methods being able to say so: an external engine that died, timed out or
    /// answered an illegal play (`tavla_protocol::UbgiPlayer`). Such a player still returns a
    /// legal decision (a documented fallback), so a caller that needs fair games (an arena)
    /// checks this after every game. Built-in players never fail: `None`.
    fn take_failure(&mut self) -> Option<Box<dyn std::error::Error + Send + Sync>> {
        None
    }
}

impl<P: Player + ?Sized> Player for Box<P> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn new_game(&mut self) {
        (**self).new_game();
    }
    fn choose_play(&mut self, state: &GameState, roll: Roll, plays: &PlayList) -> usize {
        (**self).choose_play(state, roll, plays)
    }
    fn wants_to_double(&mut self, state: &GameState) -> bool {
        (**self).wants_to_double(state)
    }
    fn accepts_double(&mut self, state: &GameState) -> bool {
        (**self).accepts_double(state)
    }
    fn beavers(&mut self, state: &GameState) -> bool {
        (**self).beavers(state)
    }
    fn resigns(&mut self, state: &GameState, cube: bool) -> Option<Resign> {
        (**self).resigns(state, cube)
    }
    fn accepts_resignation(&mut self, state: &GameState, cube: bool, offered: Resign) -> bool {
        (**self).accepts_resignation(state, cube, offered)
    }
    fn ply(&self) -> Option<u8> {
        (**self).ply()
    }
    fn set_ply(&mut self, ply: u8) -> bool {
        (**self).set_ply(ply)
    }
    fn rank_plays(
        &mut self,
        state: &GameState,
        roll: Roll,
        plays: &PlayList,
        top: usize,
    ) -> Option<Vec<PlayValue>> {
        (**self).rank_plays(state, roll, plays, top)
    }
    fn evaluate(&mut self, state: &GameState) -> Option<[f32; 5]> {
        (**self).evaluate(state)
    }
    fn cube_equities(&mut self, state: &GameState) -> Option<[f32; 3]> {
        (**self).cube_equities(state)
    }
    fn rollout(
        &mut self,
        state: &GameState,
        afters: &[Position],
        request: &RolloutRequest,
        control: &RolloutControl,
    ) -> Option<Vec<RolloutValue>> {
        (**self).rollout(state, afters, request, control)
    }
    fn cannot_play(&self, state: &GameState) -> Option<String> {
        (**self).cannot_play(state)
    }
    fn take_failure(&mut self) -> Option<Box<dyn std::error::Error + Send + Sync>> {
        (**self).take_failure()
    }
}

/// What a cubeless rollout ([`Player::rollout`]) is asked to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolloutRequest {
    /// Games (for each play, all on the same dice).
    pub games: u32,
    /// Dice seed: the same seed gives the same games.
    pub seed: u64,
    /// Plays after which a game stops and is valued as it stands; 0 plays it to the end.
    pub truncate: u32,
    /// The depth at which both sides choose their plays (gnubg's numbering).
    pub ply: u8,
    /// Worker threads; 0 for one per core.
    pub threads: usize,
}

/// How a running rollout is watched and stopped, from any thread: the games finished so far
/// and each play's running mean (the rollout tells it of each game, [`RolloutControl::record`]),
/// a stop flag, and an optional deadline. A game once started is finished; the rollout's
/// results cover the games finished before it stopped.
#[derive(Debug, Default)]
pub struct RolloutControl {
    /// Games finished so far, counted once for each play rolled out.
    progress: AtomicU64,
    /// Per play rolled out: games, sum and sum of squares of their equities.
    running: Mutex<Vec<(u64, f64, f64)>>,
    stop: AtomicBool,
    deadline: Option<Instant>,
}

impl RolloutControl {
    /// A control that stops no rollout until [`RolloutControl::stop`], or `deadline` passes.
    #[must_use]
    pub fn new(deadline: Option<Instant>) -> RolloutControl {
        RolloutControl {
            deadline,
            ..RolloutControl::default()
        }
    }

    /// Asks the rollout to stop (the games started are finished first).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether the rollout should start no more games: stopped, or past the deadline.
    #[must_use]
    pub fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Games finished so far (counted once for each play rolled out).
    #[must_use]
    pub fn games_done(&self) -> u64 {
        self.progress.load(Ordering::Relaxed)
    }

    /// The counter of games finished, which [`RolloutControl::games_done`] reads (for a
    /// progress bar that watches it).
    #[must_use]
    pub fn counter(&self) -> &AtomicU64 {
        &self.progress
    }

    /// Tells the control of a finished game: its value for play (or cube line) `play` (0 for a
    /// position rolled out alone), in the rollout's units: cubeless equity, or a cubeful
    /// rollout's equity per unit of the cube or chances of winning the match.
    pub fn record(&self, play: usize, equity: f64) {
        self.progress.fetch_add(1, Ordering::Relaxed);
        // A poisoned lock (a thread that panicked while holding it) only loses the estimate.
        if let Ok(mut running) = self.running.lock() {
            if running.len() <= play {
                running.resize(play + 1, (0, 0.0, 0.0));
            }
            let r = &mut running[play];
            *r = (r.0 + 1, r.1 + equity, r.2 + equity * equity);
        }
    }

    /// Sets the progress from a report made elsewhere (a rollout run by another program, whose
    /// games this process does not see one by one): `games` finished for each of `plays`
    /// plays rolled out, and play `play`'s running estimate, `games` games of mean `mean`
    /// with standard error `stderr`, as [`RolloutControl::running`] gives it back.
    pub fn set_estimate(&self, plays: usize, play: usize, games: u64, mean: f64, stderr: f64) {
        self.progress
            .store(games.saturating_mul(plays.max(1) as u64), Ordering::Relaxed);
        if let Ok(mut running) = self.running.lock() {
            if running.len() <= play {
                running.resize(play + 1, (0, 0.0, 0.0));
            }
            // The sums whose mean and standard error these are.
            let n = games as f64;
            // One game has no spread (its standard error, infinite, is not a sum's).
            let spread = if games > 1 {
                stderr * stderr * n * (n - 1.0)
            } else {
                0.0
            };
            running[play] = (games, mean * n, spread + n * mean * mean);
        }
    }

    /// Each play's running estimate so far, in the order of the plays: the games finished for
    /// it (in whatever order the threads finished them, so not yet the first ones of the
    /// rollout), their mean equity and its standard error (infinite before two games).
    #[must_use]
    pub fn running(&self) -> Vec<(u64, f64, f64)> {
        let running = self.running.lock().map(|r| r.clone()).unwrap_or_default();
        running
            .into_iter()
            .map(|(n, sum, sq)| {
                let k = n as f64;
                let mean = if n > 0 { sum / k } else { 0.0 };
                // One game says nothing of the spread: its standard error is infinite.
                let var = if n > 1 {
                    ((sq - k * mean * mean) / (k - 1.0)).max(0.0)
                } else {
                    f64::INFINITY
                };
                (n, mean, (var / k.max(1.0)).sqrt())
            })
            .collect()
    }
}

/// The fewest games a rollout plays: one game says nothing of the spread of its result, so a
/// rollout of one would have no interval.
pub const MIN_ROLLOUT_GAMES: u32 = 2;

/// One rollout's result ([`Player::rollout`]), for the side it values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RolloutValue {
    /// Games played.
    pub games: u32,
    /// The mean outcome probabilities (as [`Player::evaluate`] orders them; luck-adjusted
    /// means may leave 0..=1 slightly).
    pub probs: [f32; 5],
    /// The mean cubeless equity.
    pub equity: f64,
    /// Its standard error.
    pub equity_stderr: f64,
    /// Its equity minus the best one's among the plays rolled out together, game by game on
    /// the same dice: 0 for the best (and for a position rolled out alone).
    pub difference: f64,
    /// The standard error of that difference.
    pub difference_stderr: f64,
}

/// A play as a player ranks it ([`Player::rank_plays`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayValue {
    /// Its index in the [`PlayList`].
    pub index: usize,
    /// Its value for the mover as the player ranks plays: cubeless equity, cubeful equity per
    /// unit of the cube, or normalised match equity.
    pub value: f32,
    /// Its cubeless outcome probabilities for the mover (as [`Player::evaluate`] orders them).
    pub probs: [f32; 5],
    /// The depth it was valued at (gnubg's numbering): shallower than the player's own when
    /// its filters dropped it early.
    pub ply: u8,
}

/// Chooses uniformly among the legal plays, from a seeded generator (ChaCha8, pinned, so a seed
/// gives the same choices on every machine).
#[derive(Debug, Clone)]
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    /// A random player seeded with `seed`.
    #[must_use]
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose_play(&mut self, _state: &GameState, _roll: Roll, plays: &PlayList) -> usize {
        self.rng.gen_range(0..plays.len())
    }
}

/// The standard errors either side of a mean of `games` games that make its 95% confidence
/// interval: Student's t at `games - 1` degrees of freedom (12.7 for 2 games, 2.03 for 36),
/// so that a rollout stopped after a few games does not claim the normal approximation's
/// 1.96, which it reaches only over hundreds.
#[must_use]
pub fn ci95_factor(games: u32) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    let df = games.saturating_sub(1).max(1);
    match T.get(df as usize - 1) {
        Some(&t) => t,
        // Within 0.002 of the exact quantile from 30 degrees of freedom on.
        None => 1.96 + 2.4 / f64::from(df),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tavla_core::Position;

    #[test]
    fn a_rollout_control_keeps_each_plays_running_mean() {
        let control = RolloutControl::new(None);
        assert!(control.running().is_empty());
        for (play, equity) in [(1, 1.0), (0, -1.0), (1, 0.0), (1, 2.0)] {
            control.record(play, equity);
        }
        assert_eq!(control.games_done(), 4);
        let running = control.running();
        assert_eq!(running.len(), 2);
        // One game: no spread known.
        assert_eq!(running[0], (1, -1.0, f64::INFINITY));
        // Play 1: 1, 0, 2: mean 1, sample variance 1, standard error 1/sqrt(3).
        let (n, mean, stderr) = running[1];
        assert_eq!((n, mean), (3, 1.0));
        assert!((stderr - (1.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!(!control.should_stop());
        control.stop();
        assert!(control.should_stop());
        let late = RolloutControl::new(Some(Instant::now()));
        assert!(late.should_stop());
    }

    #[test]
    fn random_player_is_reproducible_and_in_range() {
        let state = GameState::money(Position::START);
        let mut plays = PlayList::new();
        let roll = Roll::from_values(5, 2);
        state.position.legal_plays(roll, &mut plays);
        let picks = |seed| {
            let mut p = RandomPlayer::new(seed);
            (0..50)
                .map(|_| p.choose_play(&state, roll, &plays))
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(3), picks(3));
        assert_ne!(picks(3), picks(4));
        assert!(picks(5).iter().all(|&i| i < plays.len()));
    }

    #[test]
    fn without_judgement_a_player_accepts_only_all_that_can_be_lost() {
        let mut p = RandomPlayer::new(1);
        let start = GameState::money(Position::START);
        assert_eq!(p.resigns(&start, true), None);
        assert!(!p.beavers(&start));
        assert!(!p.accepts_resignation(&start, true, Resign::Gammon));
        assert!(p.accepts_resignation(&start, true, Resign::Backgammon));
        // The resigning side has borne off a checker: a single game is all it can lose.
        let mut b = [0i8; 26];
        b[3] = 14;
        b[22] = -15;
        let off = GameState::money(Position::try_from(b).unwrap());
        assert!(p.accepts_resignation(&off, false, Resign::Single));
    }
}
