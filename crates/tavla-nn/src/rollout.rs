//! Rollouts: games played out from a position by the networks, with seeded dice, over several
//! threads, with variance reduction; cubeless ([`rollout`]), or with the cube, no double and
//! double/take played on the same dice, in money play ([`cubeful_rollout`]) or in a match
//! ([`cubeful_match_rollout`]).
//!
//! The players choose their plays at [`RolloutConfig::ply`]: 0 (the networks' best play, the
//! fast default) or deeper, through a [`Search`] per thread with its move filters and cache.
//! At 0-ply they choose as the search's inner nodes do, so with the search's
//! [`Prune`](crate::search::Prune) the pruning networks rank the plays and the full networks
//! value only the best few (the luck adjustment's 21 choices a roll too): 0-ply rollouts then
//! take about two fifths of the time. Each game starts with an empty cache, so a game's result
//! depends only on the root, the seed and the game's number.
//!
//! Variance reduction:
//! - **First rolls enumerated.** Game `i` starts with the `(i mod 36)`-th of the 36 ordered
//!   dice outcomes, so every block of 36 games sees each first roll exactly as often as chance
//!   would on average.
//! - **Luck adjustment.** Before each roll the values (0-ply, for the mover) of the best play of
//!   all 21 rolls are computed; their weighted mean is what the mover expects. The luck of the
//!   roll that came is its value minus that mean. The adjusted result of a game is its outcome
//!   minus the sum of the lucks (each seen from the root side), which keeps the expectation and
//!   removes most of the dice noise. Applied to the five probabilities and so to the equity.
//!
//! **Truncation.** With [`RolloutConfig::truncate`] `n > 0` a game stops after `n` plays (both
//! sides counted) and the position reached is valued by the 0-ply networks: much cheaper, and
//! the first moves, where most of a position's difficulty lies, are still played out. The leaf
//! is valued at 0-ply even when the players search deeper: an n-ply value is the mean over the
//! rolls of a maximum over plays, which favours the side that chooses (from the opening
//! position, 1-ply players truncated after 2 plays gave +0.139 and after 1 play -0.001 with
//! 1-ply leaves, where full games gave +0.06), while the networks are fitted to be unbiased.
//!
//! **Parity.** The value of the position reached leans towards the side that made the last
//! play: it chose that play as the best by the same networks, so their errors in its favour are
//! the ones it picked (from the opening position the 0-ply value is -0.003 and the 1-ply value,
//! the mean over the rolls of the best play's 0-ply value, +0.144). Truncated after an even
//! number of plays, every game's last play is the opponent's, and a network fitted to such
//! values undervalues the side on roll more with every round of labels.
//! [`RolloutConfig::balance_parity`] stops the odd-numbered games one play later, so that half
//! the games end on each side's play and the two leanings cancel.
//!
//! The luck adjustment always uses the 0-ply values: the adjustment has expectation zero
//! whatever the players choose, so it removes dice noise without biasing a deeper rollout.
//!
//! **Bearoff.** With a search that has the bearoff databases ([`Search::with_bearoff`]), the
//! players value the positions those cover by the databases instead of the race network,
//! in the luck adjustment too, as the search does, and a game stops at the first race the exact
//! two-sided database covers, valued exactly there: the same expectation (the players bear off
//! by the exact values from then on anyway) in fewer plays and with less noise.
//!
//! Game `i` draws its dice from ChaCha8 seeded with `seed`, stream `i`, so results do not
//! depend on the number of threads; per-game results are summed in game order.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{PlayList, Position, Roll};

use crate::bearoff::BearoffRace;
use crate::cube::{cube_efficiency, CubeAnalysis, CubeHolder, PlayWorth, MAX_CUBE};
use crate::evaluator::Evaluator;
use crate::met::MatchScore;
use crate::probs::Probabilities;
use crate::search::{RankedPlay, Search, MAX_PLY};
use crate::weights::Weights;

/// Told of every game a rollout finishes ([`rollout_until`], [`rollout_plays_until`]): the
/// index of the play it was played for (0 for a position rolled out alone) and the game's
/// (luck-adjusted) probabilities for the side the results are for, in whatever order the
/// threads finish them. Called from the rollout's threads.
pub type GameFinished<'a> = &'a (dyn Fn(usize, &[f64; 5]) + Sync);

/// Told of every game a cubeful rollout finishes on each of its lines
/// ([`cubeful_rollout_until`], [`cubeful_play_rollouts_until`]): the line's index (for a
/// position 0 the line without a double, 1 double/take; for the plays of a roll the play's
/// index) and the game's value as the result counts it (in money play cubeful equity per unit
/// of the cube, in a match chances of winning it), in whatever order the threads finish them.
/// Called from the rollout's threads.
pub type CubefulFinished<'a> = &'a (dyn Fn(usize, f64) + Sync);

/// Settings of a rollout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolloutConfig {
    /// Games to play.
    pub games: u32,
    /// Dice seed.
    pub seed: u64,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Subtract the luck of every roll.
    pub luck_adjust: bool,
    /// Stop each game after this many plays and value the position by the 0-ply networks;
    /// 0 plays every game to its end.
    pub truncate: u32,
    /// With truncation, stop the odd-numbered games one play later, so that half the games
    /// end on each side's play (see the module docs).
    pub balance_parity: bool,
    /// The depth at which both sides choose their plays (0 to [`MAX_PLY`]).
    pub ply: u8,
    /// Start no game after this moment, once two have been started: the rollout then covers
    /// its first games, at least two where it asks for two (see [`rollout_until`]).
    pub deadline: Option<Instant>,
    /// Money play with the cube under the Jacoby rule: in a cubeful money rollout, gammons and
    /// backgammons count single while the cube has not been turned, and the players double,
    /// take and choose their plays knowing it ([`PlayWorth::Jacoby`]). Cubeless and match
    /// rollouts ignore it.
    pub jacoby: bool,
}

impl RolloutConfig {
    /// The plays after which games stop, in words: `"8"`, or `"8 or 9"` with balanced parity.
    #[must_use]
    pub fn truncation_words(&self) -> String {
        if self.balance_parity {
            format!("{} or {}", self.truncate, self.truncate.saturating_add(1))
        } else {
            self.truncate.to_string()
        }
    }
}

/// What a rollout found, for the side on roll at the root.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RolloutResult {
    /// Games played.
    pub games: u32,
    /// Mean probabilities (luck-adjusted when asked; may then leave 0..=1 slightly).
    pub probs: Probabilities,
    /// Mean equity.
    pub equity: f64,
    /// Standard error of the mean equity.
    pub equity_stderr: f64,
}

impl RolloutResult {
    /// The 95% confidence interval of the equity ([`ci95_factor`] standard errors either side).
    #[must_use]
    pub fn equity_ci95(&self) -> (f64, f64) {
        let h = ci95_factor(self.games) * self.equity_stderr;
        (self.equity - h, self.equity + h)
    }
}

pub use tavla_player::ci95_factor;

/// The 36 ordered dice outcomes as rolls.
fn first_roll(i: u32) -> Roll {
    let k = (i % 36) as u8;
    Roll::from_values(k / 6 + 1, k % 6 + 1)
}

/// The dice of rollout game `game`: the enumerated first roll ([`first_roll`]), then ChaCha8
/// seeded with the rollout's seed on stream `game`.
struct GameDice {
    rng: ChaCha8Rng,
    first: Option<Roll>,
}

impl GameDice {
    fn new(seed: u64, game: u32) -> GameDice {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(u64::from(game));
        GameDice {
            rng,
            first: Some(first_roll(game)),
        }
    }

    fn next(&mut self) -> Roll {
        self.first.take().unwrap_or_else(|| {
            Roll::from_values(self.rng.gen_range(1..=6), self.rng.gen_range(1..=6))
        })
    }
}

/// The best play of `pos` for `roll` at 0-ply, the bearoff databases valuing what they cover:
/// its index in `plays` (filled with the legal plays) and its probabilities for the mover.
fn best_play0(
    weights: &Weights,
    bearoff: Option<&BearoffRace>,
    pos: &Position,
    roll: Roll,
    plays: &mut PlayList,
    evals: &mut Vec<Probabilities>,
) -> (usize, Probabilities) {
    pos.legal_plays(roll, plays);
    evals.resize(plays.len(), Probabilities::default());
    weights.evaluate_plays(plays.positions(), evals);
    if let Some(b) = bearoff {
        for (e, after) in evals.iter_mut().zip(plays.positions()) {
            if let Some(p) = b.probe(&after.flip()) {
                *e = p.flip();
            }
        }
    }
    let i = crate::td::best_index(evals);
    (i, evals[i])
}

/// A 0-ply player's choice for `roll` in `pos`: with pruning, as the search's inner nodes
/// choose ([`Search::best_of_roll`]; the plays the pruning networks left out are marked in
/// [`Search::pruned`], their values in `evals` the pruning networks'); without, the full
/// networks' values of every play ([`best_play0`], the rollouts of earlier versions bit for
/// bit). Its index in `plays` (filled) and its value for the mover.
fn choose0(
    search: &mut Search,
    pos: &Position,
    roll: Roll,
    plays: &mut PlayList,
    evals: &mut Vec<Probabilities>,
) -> (usize, Probabilities) {
    if search.prunes() {
        search.best_of_roll(pos, roll, plays, evals)
    } else {
        let weights = Arc::clone(search.weights());
        best_play0(
            &weights,
            search.bearoff().map(|b| &**b),
            pos,
            roll,
            plays,
            evals,
        )
    }
}

/// One game from `root` (side on roll to move); returns the (adjusted) probabilities from the
/// root side. `search` chooses the plays when `config.ply > 0`; its networks are the players'.
fn play_out(
    search: &mut Search,
    root: Position,
    game: u32,
    config: &RolloutConfig,
    plays: &mut PlayList,
    evals: &mut Vec<Probabilities>,
) -> [f64; 5] {
    let weights = Arc::clone(search.weights());
    let bearoff = search.bearoff().cloned();
    // Each game starts with an empty cache: with pruning, which plays the full networks see
    // depends on what the cache holds, and a game must not depend on the games before it on
    // its thread (the result would change with the thread count).
    search.reset();
    let ply = config.ply.min(MAX_PLY);
    let mut ranked: Vec<RankedPlay> = Vec::new();
    let (seed, luck_adjust) = (config.seed, config.luck_adjust);
    let truncate = if config.balance_parity && config.truncate > 0 && game % 2 == 1 {
        config.truncate.saturating_add(1)
    } else {
        config.truncate
    };
    let mut dice = GameDice::new(seed, game);
    let mut pos = root;
    let mut luck = [0.0f64; 5];
    let mut root_to_move = true;
    let mut t = 0u32;
    loop {
        let roll = dice.next();
        // The play chosen for the roll that came, and its value for the mover.
        let mut chosen = None;
        if luck_adjust {
            let mut mean = [0.0f64; 5];
            for (r, w) in Roll::ALL_21 {
                let (i, v) = choose0(search, &pos, r, plays, evals);
                for (m, x) in mean.iter_mut().zip(v.to_array()) {
                    *m += f64::from(w) / 36.0 * f64::from(x);
                }
                if r == roll {
                    chosen = Some((plays.positions()[i], v));
                }
            }
            let (_, got) = chosen.expect("the roll that came is one of the 21");
            // Seen from the root side.
            let got = if root_to_move { got } else { got.flip() };
            let mean_p = Probabilities::from_array(mean.map(|m| m as f32));
            let mean_p = if root_to_move { mean_p } else { mean_p.flip() };
            for ((l, g), m) in luck.iter_mut().zip(got.to_array()).zip(mean_p.to_array()) {
                *l += f64::from(g) - f64::from(m);
            }
        }
        let (after, value) = if ply > 0 {
            pos.legal_plays(roll, plays);
            let i = search.choose(plays, ply, &mut ranked);
            let after = plays.positions()[i];
            let value = match after.outcome() {
                Some(o) => Probabilities::from_outcome(o),
                // The leaf of a truncated game is valued at 0-ply, whatever the players' ply
                // (see the module docs).
                None if t + 1 == truncate => weights.evaluate(&after.flip()).flip(),
                None => Probabilities::default(),
            };
            (after, value)
        } else {
            chosen.unwrap_or_else(|| {
                let (i, v) = choose0(search, &pos, roll, plays, evals);
                (plays.positions()[i], v)
            })
        };
        let end = match after.outcome() {
            Some(o) => Some(Probabilities::from_outcome(o)),
            None if t + 1 == truncate => Some(value),
            // A race the exact database covers ends the game at its exact value.
            None => bearoff
                .as_ref()
                .and_then(|b| b.probe_exact(&after.flip()))
                .map(|p| p.flip()),
        };
        if let Some(p) = end {
            let p = if root_to_move { p } else { p.flip() };
            let mut out = p.to_array().map(f64::from);
            for (o, l) in out.iter_mut().zip(luck) {
                *o -= l;
            }
            return out;
        }
        pos = after.flip();
        root_to_move = !root_to_move;
        t += 1;
    }
}

/// The mean (adjusted) probabilities of games `first..first + config.games` from `root`, played
/// one after another on this thread (`config.threads` is not used) with the networks of
/// `search` (which also chooses the plays when `config.ply > 0`): for callers that are
/// parallel already, such as the labelling of training data. `first` chooses the first rolls
/// when there are fewer than 36 games.
#[must_use]
pub fn rollout_here(
    search: &mut Search,
    root: Position,
    config: &RolloutConfig,
    first: u32,
    plays: &mut PlayList,
    evals: &mut Vec<Probabilities>,
) -> Probabilities {
    let mut sum = [0.0f64; 5];
    for game in first..first.saturating_add(config.games) {
        for (s, x) in sum
            .iter_mut()
            .zip(play_out(search, root, game, config, plays, evals))
        {
            *s += x;
        }
    }
    let n = f64::from(config.games.max(1));
    Probabilities::from_array(sum.map(|s| (s / n) as f32))
}

/// Rolls `root` out (side on roll to move, before rolling) with the networks, bearoff
/// databases and move filters of `search` (cloned for each thread). `progress` counts
/// finished games.
///
/// # Panics
/// When `config.games` is 0 or `root` is a finished game.
pub fn rollout(
    search: &Search,
    root: Position,
    config: RolloutConfig,
    progress: &AtomicU64,
) -> RolloutResult {
    assert!(config.games > 0, "a rollout needs at least one game");
    let count = |_: usize, _: &[f64; 5]| {
        progress.fetch_add(1, Ordering::Relaxed);
    };
    rollout_until(search, root, config, &count, &|| false).expect("at least one game")
}

/// [`rollout`], stopped early when `stop` says so: each thread asks it before it starts a
/// game, and a game once started is finished, so the games played are always the first `n`
/// of the rollout (game by game the same as in a full one) and the result is theirs. `None`
/// when no game was played. `finished` hears of each game as it ends (for progress and
/// running estimates).
///
/// # Panics
/// When `root` is a finished game.
pub fn rollout_until(
    search: &Search,
    root: Position,
    config: RolloutConfig,
    finished: GameFinished<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<RolloutResult> {
    assert!(!root.is_game_over(), "the game is over at the root");
    let mut tally = Tally::new(1);
    run_games(
        search,
        &config,
        stop,
        |search, game, plays, evals| {
            let result = play_out(search, root, game, &config, plays, evals);
            finished(0, &result);
            result
        },
        |result| tally.push(&[result]),
    );
    (tally.games() > 0).then(|| tally.result(0))
}

/// Plays games `0..config.games`, each computed by `game` on one of `config.threads` threads
/// (each with its own clone of `search`, reset, and scratch lists), and hands their results
/// to `take` in game order, as each is ready and those before it have been taken (so what a
/// rollout keeps does not grow with its games). The threads take the next game in turn and
/// ask `stop` before each (and, once two games have been taken, whether `config.deadline` has
/// passed); a game once taken is finished, so the games played are the first `n`, for some
/// `n`. A game's result must depend only on its number (each game starts with an empty
/// cache), so neither the thread count nor the order in which the threads finish the games
/// changes what `take` hears. Returns `n`.
fn run_games<T: Send>(
    search: &Search,
    config: &RolloutConfig,
    stop: &(dyn Fn() -> bool + Sync),
    game: impl Fn(&mut Search, u32, &mut PlayList, &mut Vec<Probabilities>) -> T + Sync,
    take: impl FnMut(T) + Send,
) -> u32 {
    /// The games finished before one that is still being played, and where `take` is.
    struct InOrder<T, F> {
        next: usize,
        waiting: BTreeMap<usize, T>,
        take: F,
    }
    let threads = config.threads.max(1).min(config.games.max(1) as usize);
    let next = AtomicUsize::new(0);
    let games = config.games as usize;
    let order = Mutex::new(InOrder {
        next: 0,
        waiting: BTreeMap::new(),
        take,
    });
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let mut search = search.clone();
                search.reset();
                let (next, game, order) = (&next, &game, &order);
                s.spawn(move || {
                    let mut plays = PlayList::new();
                    let mut evals = Vec::new();
                    while !stop() {
                        let late = || config.deadline.is_some_and(|d| Instant::now() >= d);
                        if next.load(Ordering::Relaxed) > 1 && late() {
                            break;
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= games {
                            break;
                        }
                        let result = game(&mut search, i as u32, &mut plays, &mut evals);
                        let mut guard = order.lock().expect("a rollout thread panicked");
                        let o = &mut *guard;
                        o.waiting.insert(i, result);
                        while let Some(r) = o.waiting.remove(&o.next) {
                            (o.take)(r);
                            o.next += 1;
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().expect("a rollout thread panicked");
        }
    });
    let order = order.into_inner().expect("a rollout thread panicked");
    debug_assert!(order.waiting.is_empty(), "the games played are the first n");
    order.next as u32
}

/// The cubeless equity of one game's (adjusted) probabilities, as [`GameFinished`] hears them.
#[must_use]
pub fn game_equity(g: &[f64; 5]) -> f64 {
    2.0 * g[0] - 1.0 + g[1] - g[3] + g[2] - g[4]
}

/// The running means and co-moments of `k` series observed together, one value of each a
/// game, in game order (Welford's update, extended to co-moments): all a rollout keeps of its
/// games' values, so that its memory does not grow with the games played, and enough for each
/// series' standard error and that of any two series' paired difference.
#[derive(Debug, Clone)]
struct Moments {
    n: u64,
    mean: Vec<f64>,
    /// `co[p * k + q]`: the sum over the games of `(x_p - mean_p) * (x_q - mean_q)`.
    co: Vec<f64>,
    /// Scratch: the last game's values less the means before it.
    delta: Vec<f64>,
}

impl Moments {
    fn new(k: usize) -> Moments {
        Moments {
            n: 0,
            mean: vec![0.0; k],
            co: vec![0.0; k * k],
            delta: vec![0.0; k],
        }
    }

    /// Adds one game's values, one for each series.
    fn push(&mut self, xs: impl IntoIterator<Item = f64>) {
        self.n += 1;
        let n = self.n as f64;
        for ((d, m), x) in self.delta.iter_mut().zip(&mut self.mean).zip(xs) {
            *d = x - *m;
            *m += *d / n;
        }
        // x_q less the new mean is delta_q (n - 1) / n.
        let f = (n - 1.0) / n;
        let k = self.mean.len();
        for (row, dp) in self.co.chunks_exact_mut(k.max(1)).zip(&self.delta) {
            for (c, dq) in row.iter_mut().zip(&self.delta) {
                *c += dp * dq * f;
            }
        }
    }

    /// The standard error of a mean whose co-moment sum is `sum_sq` (infinite from fewer than
    /// two games: one game says nothing of the spread).
    fn stderr_of(&self, sum_sq: f64) -> f64 {
        if self.n < 2 {
            return f64::INFINITY;
        }
        let n = self.n as f64;
        (sum_sq.max(0.0) / (n - 1.0) / n).sqrt()
    }

    /// Series `p`'s mean and its standard error.
    fn mean_and_stderr(&self, p: usize) -> (f64, f64) {
        let k = self.mean.len();
        (self.mean[p], self.stderr_of(self.co[p * k + p]))
    }

    /// The mean of series `p` less series `q`'s, and its standard error, paired by game.
    fn difference(&self, p: usize, q: usize) -> (f64, f64) {
        let k = self.mean.len();
        let sum_sq = self.co[p * k + p] + self.co[q * k + q] - 2.0 * self.co[p * k + q];
        (self.mean[p] - self.mean[q], self.stderr_of(sum_sq))
    }

    /// Each series' mean less the highest mean (of the series with it), and the standard error
    /// of that difference, paired by game.
    fn differences_from_best(&self) -> Vec<(f64, f64)> {
        let best = (0..self.mean.len())
            .max_by(|&a, &b| self.mean[a].total_cmp(&self.mean[b]))
            .expect("at least one series");
        (0..self.mean.len())
            .map(|p| self.difference(p, best))
            .collect()
    }
}

/// What a cubeless rollout of one or more positions (on the same dice) keeps of its games:
/// each position's summed (adjusted) probabilities, and its equities' moments.
#[derive(Debug, Clone)]
struct Tally {
    probs: Vec<[f64; 5]>,
    equity: Moments,
}

impl Tally {
    fn new(k: usize) -> Tally {
        Tally {
            probs: vec![[0.0; 5]; k],
            equity: Moments::new(k),
        }
    }

    fn games(&self) -> u64 {
        self.equity.n
    }

    /// Adds one game's (adjusted) probabilities of each position.
    fn push(&mut self, games: &[[f64; 5]]) {
        for (sum, g) in self.probs.iter_mut().zip(games) {
            for (s, x) in sum.iter_mut().zip(g) {
                *s += x;
            }
        }
        self.equity.push(games.iter().map(game_equity));
    }

    /// Position `p`'s result over the games pushed.
    fn result(&self, p: usize) -> RolloutResult {
        let n = self.games().max(1) as f64;
        let (equity, equity_stderr) = self.equity.mean_and_stderr(p);
        RolloutResult {
            games: self.games() as u32,
            probs: Probabilities::from_array(self.probs[p].map(|s| (s / n) as f32)),
            equity,
            equity_stderr,
        }
    }
}

/// One play's rollout ([`rollout_plays`]), for the side that plays it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayRollout {
    /// The position after the play (the mover's view, before the opponent rolls) rolled out,
    /// for the mover.
    pub result: RolloutResult,
    /// Its equity minus the best play's (the highest rolled-out equity), game by game on the
    /// same dice: 0 for the best, negative for the others.
    pub difference: f64,
    /// The standard error of that difference (paired by game).
    pub difference_stderr: f64,
}

/// Rolls out the positions left by several plays of one roll (`afters`, each seen from the
/// mover, as a [`PlayList`] holds them), each with the same dice (game `i` of every play
/// draws the same rolls), for the mover; with each play's difference from the best by
/// rollout, paired game by game (after the luck adjustment the shared dice narrow it little:
/// what noise is left is mostly the plays' own). A play that ends the game is its exact
/// outcome. `progress` counts finished games over all the plays.
///
/// # Panics
/// When `config.games` is 0 or `afters` is empty.
pub fn rollout_plays(
    search: &Search,
    afters: &[Position],
    config: RolloutConfig,
    progress: &AtomicU64,
) -> Vec<PlayRollout> {
    assert!(config.games > 0, "a rollout needs at least one game");
    let count = |_: usize, _: &[f64; 5]| {
        progress.fetch_add(1, Ordering::Relaxed);
    };
    rollout_plays_until(search, afters, config, &count, &|| false).expect("at least one game")
}

/// [`rollout_plays`], stopped early when `stop` says so ([`rollout_until`]): game `i` is
/// played for every play before game `i + 1` is started anywhere, so every play has the same
/// first `n` games, and the differences stay paired. `None` when no game was played.
/// `finished` hears of each play's game as it ends, with the play's index in `afters`.
///
/// # Panics
/// When `afters` is empty.
pub fn rollout_plays_until(
    search: &Search,
    afters: &[Position],
    config: RolloutConfig,
    finished: GameFinished<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<PlayRollout>> {
    assert!(!afters.is_empty(), "no plays to roll out");
    // Each play's games for the mover: the opponent's games from the flipped position, seen
    // from the other side.
    let mut tally = Tally::new(afters.len());
    run_games(
        search,
        &config,
        stop,
        |search, game, plays, evals| {
            afters
                .iter()
                .enumerate()
                .map(|(p, after)| {
                    let result = match after.outcome() {
                        Some(o) => Probabilities::from_outcome(o).to_array().map(f64::from),
                        None => {
                            let [w, wg, wbg, lg, lbg] =
                                play_out(search, after.flip(), game, &config, plays, evals);
                            [1.0 - w, lg, lbg, wg, wbg]
                        }
                    };
                    finished(p, &result);
                    result
                })
                .collect::<Vec<_>>()
        },
        |games| tally.push(&games),
    );
    if tally.games() == 0 {
        return None;
    }
    Some(
        tally
            .equity
            .differences_from_best()
            .into_iter()
            .enumerate()
            .map(|(p, (difference, difference_stderr))| PlayRollout {
                result: tally.result(p),
                difference,
                difference_stderr,
            })
            .collect(),
    )
}

/// One play's cubeful rollout ([`cubeful_play_rollouts`]), for the side that plays it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubefulPlayRollout {
    /// Games played.
    pub games: u32,
    /// The mean result for the mover: in money play its points per unit of the cube, in a
    /// match its chance of winning the match.
    pub equity: f64,
    /// Its standard error.
    pub equity_stderr: f64,
    /// `equity` minus the best play's, game by game on the same dice: 0 for the best.
    pub difference: f64,
    /// The standard error of that difference (paired by game).
    pub difference_stderr: f64,
}

/// Rolls out the positions left by several plays of one roll (`afters`, each seen from the
/// mover, as a [`PlayList`] holds them) with the cube, each on the same dice, for the mover,
/// with the cube as it stands for the mover's play (`cube` held by `holder`, both seen from the
/// mover; the mover's `score` in a match, `None` for money play). The opponent rolls first and
/// may double before it does, as both sides may before every roll after, by their 0-ply cube
/// decisions; the rest is as in [`cubeful_rollout`] (money, results per unit of the cube) and
/// [`cubeful_match_rollout`] (match winning chances by tavla's table, plays chosen by match
/// equity). A play that ends the game is its exact result. `progress` counts finished games
/// over all the plays.
///
/// # Panics
/// When `config.games` is 0 or `afters` is empty.
#[allow(clippy::too_many_arguments)]
pub fn cubeful_play_rollouts(
    search: &Search,
    afters: &[Position],
    holder: CubeHolder,
    cube: u32,
    score: Option<MatchScore>,
    config: RolloutConfig,
    progress: &AtomicU64,
) -> Vec<CubefulPlayRollout> {
    assert!(config.games > 0, "a rollout needs at least one game");
    cubeful_play_rollouts_until(
        search,
        afters,
        holder,
        cube,
        score,
        config,
        &|_, _| {
            progress.fetch_add(1, Ordering::Relaxed);
        },
        &|| false,
    )
    .expect("at least one game")
}

/// [`cubeful_play_rollouts`], stopped early when `stop` says so, as [`rollout_plays_until`]
/// is: every play has the same first `n` games. `None` when no game was played. `finished`
/// hears of each play's games, in the mover's terms (a play that ends the game, of each of its
/// games as the others' game on the same dice is counted).
///
/// # Panics
/// When `afters` is empty.
#[allow(clippy::too_many_arguments)]
pub fn cubeful_play_rollouts_until(
    search: &Search,
    afters: &[Position],
    holder: CubeHolder,
    cube: u32,
    score: Option<MatchScore>,
    config: RolloutConfig,
    finished: CubefulFinished<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<CubefulPlayRollout>> {
    assert!(!afters.is_empty(), "no plays to roll out");
    // In money play results are per unit of the cube.
    let cube = if score.is_some() {
        cube.clamp(1, MAX_CUBE)
    } else {
        1
    };
    // The lines start with the opponent on roll: the root side of each is the opponent, who
    // holds the cube where the mover's opponent does.
    let owner = match holder {
        CubeHolder::Centre => None,
        CubeHolder::OnRoll => Some(false),
        CubeHolder::Opponent => Some(true),
    };
    let running: Vec<usize> = (0..afters.len())
        .filter(|&i| afters[i].outcome().is_none())
        .collect();
    let lines: Vec<CubeLine> = running
        .iter()
        .map(|&i| CubeLine {
            root: afters[i].flip(),
            cube,
            owner,
            score: score.map(MatchScore::flip),
            root_may_double: true,
        })
        .collect();
    // Each line's games for the mover of its play.
    let for_mover = |v: f64| match score {
        None => -v,
        Some(_) => 1.0 - v,
    };
    let heard = |k: usize, v: f64| finished(running[k], for_mover(v));
    // A play that ends the game has its exact result in every game.
    let jacoby = config.jacoby && score.is_none() && holder == CubeHolder::Centre;
    let exact: Vec<Option<f64>> = afters
        .iter()
        .map(|after| {
            after.outcome().map(|o| {
                // Under the Jacoby rule, with the cube never turned, a gammon counts single.
                let points = if jacoby { 1 } else { u32::from(o.points) } * cube;
                match score {
                    None => f64::from(points),
                    Some(s) => f64::from(s.after(points, 0)),
                }
            })
        })
        .collect();
    // Each play's games for the mover.
    let mut moments = Moments::new(afters.len());
    let played = cubeful_games(search, &lines, &config, &heard, stop, |game| {
        let mut line = game.iter();
        moments.push(exact.iter().enumerate().map(|(i, exact)| match exact {
            Some(won) => {
                finished(i, *won);
                *won
            }
            None => for_mover(*line.next().expect("every running play has its line")),
        }));
    });
    // The games played (all of them unless the deadline or `stop` stopped them).
    if played == 0 {
        return None;
    }
    let rollouts = moments
        .differences_from_best()
        .into_iter()
        .enumerate()
        .map(|(p, (difference, difference_stderr))| {
            let (equity, equity_stderr) = moments.mean_and_stderr(p);
            CubefulPlayRollout {
                games: played,
                equity,
                equity_stderr,
                difference,
                difference_stderr,
            }
        })
        .collect();
    Some(rollouts)
}

/// What a cubeful rollout found for the side on roll at the root: in money play per unit of
/// the current cube ([`cubeful_rollout`]), in a match its chances of winning the match
/// ([`cubeful_match_rollout`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubefulRolloutResult {
    /// Games played on each line.
    pub games: u32,
    /// Mean equity of the games played without doubling now.
    pub no_double: f64,
    /// Its standard error.
    pub no_double_stderr: f64,
    /// The line after a double and a take, and the decision the two lines make; `None` when
    /// the opponent owns the cube: the side on roll cannot double, and only the first line is
    /// played.
    pub double: Option<DoubleLine>,
}

/// The double/take line of a cubeful rollout ([`CubefulRolloutResult::double`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DoubleLine {
    /// Mean equity of the games played after a double and a take (the opponent then owns the
    /// cube at twice its value).
    pub double_take: f64,
    /// Its standard error.
    pub double_take_stderr: f64,
    /// Standard error of `double_take - no_double`: the two lines share their dice, so this is
    /// smaller than either line's.
    pub difference_stderr: f64,
    /// The decision the two equities make for the root's cube ([`CubeAnalysis::from_equities`],
    /// or [`CubeAnalysis::from_match_chances`] in a match).
    pub analysis: CubeAnalysis,
}

/// Who holds the cube, from the side on roll, given who holds it (`None`: the middle; `Some(true)`:
/// the root side) and whether the root side is on roll.
fn holder_of(owner: Option<bool>, root_to_move: bool) -> CubeHolder {
    match owner {
        None => CubeHolder::Centre,
        Some(o) if o == root_to_move => CubeHolder::OnRoll,
        Some(_) => CubeHolder::Opponent,
    }
}

/// One rollout line with the cube: where it starts and who may do what there.
#[derive(Debug, Clone, Copy)]
struct CubeLine {
    /// The side on roll at the start (the root side), before rolling.
    root: Position,
    /// The cube's value (1 in money play: results per unit of the cube).
    cube: u32,
    /// Who holds it: `None` the middle, `Some(true)` the root side.
    owner: Option<bool>,
    /// The root side's score in a match; `None` in money play.
    score: Option<MatchScore>,
    /// Whether the root side may double before its first roll (no where that decision is what
    /// the rollout measures, yes where the line starts after another side's play).
    root_may_double: bool,
}

/// One game of `line` with the cube: in money play the root side's points, in a match its
/// chance of winning the match; luck-adjusted when asked. Before every roll (the root's only
/// when the line says so) the side on roll may double by the 0-ply cube
/// decision ([`Search::cube_analysis`], or [`Search::match_cube_analysis`] at its score), and
/// the other takes or passes by the same. In a match, plays are chosen by match equity
/// ([`PlayWorth::Match`]) and each roll's luck is in match winning chances.
fn play_out_cubeful(
    search: &mut Search,
    line: &CubeLine,
    game: u32,
    config: &RolloutConfig,
    plays: &mut PlayList,
    evals: &mut Vec<Probabilities>,
) -> f64 {
    let CubeLine {
        root,
        mut cube,
        mut owner,
        score,
        root_may_double,
    } = *line;
    // Each game starts with an empty cache: with pruning, which plays the full networks see
    // depends on what the cache holds, and a game must not depend on the games before it on
    // its thread (the result would change with the thread count).
    search.reset();
    let ply = config.ply.min(MAX_PLY);
    let mut ranked: Vec<RankedPlay> = Vec::new();
    let truncate = if config.balance_parity && config.truncate > 0 && game % 2 == 1 {
        config.truncate.saturating_add(1)
    } else {
        config.truncate
    };
    let mut dice = GameDice::new(config.seed, game);
    let mut pos = root;
    let mut luck = 0.0f64;
    let mut root_to_move = true;
    let mut t = 0u32;
    let sign = |root_to_move: bool| if root_to_move { 1.0 } else { -1.0 };
    // The root side's result when the side on roll (the root side or not) wins `points` at
    // the cube's value.
    let won = |root_to_move: bool, points: u32| match score {
        None => sign(root_to_move) * f64::from(points),
        Some(s) if root_to_move => f64::from(s.after(points, 0)),
        Some(s) => f64::from(s.after(0, points)),
    };
    // The score from the side on roll's view.
    let score_of = |root_to_move: bool| score.map(|s| if root_to_move { s } else { s.flip() });
    // The worth of a play to its mover: cubeless equity in money play, the chance of winning
    // the match in a match.
    // (exact in the short bearoffs the match tables hold).
    let worth = |search: &Search,
                 after: &Position,
                 p: Probabilities,
                 holder,
                 cube,
                 score: Option<MatchScore>| match score {
        None => f64::from(p.equity()),
        Some(score) => {
            let w = PlayWorth::Match {
                holder,
                cube,
                score,
            };
            let chance = w.match_chance(after, p, search.bearoff().map(|b| &**b));
            f64::from(chance.expect("match play"))
        }
    };
    loop {
        let roll = dice.next();
        let holder = holder_of(owner, root_to_move);
        let here = score_of(root_to_move);
        if (t > 0 || root_may_double) && holder != CubeHolder::Opponent && cube < MAX_CUBE {
            let a = match here {
                None => Some(search.cube_analysis(&pos, 0, holder, config.jacoby)),
                Some(s) if s.cube_in_play() => {
                    Some(search.match_cube_analysis(&pos, 0, holder, cube, s))
                }
                Some(_) => None,
            };
            if let Some(a) = a.filter(|a| a.action.doubles()) {
                if !a.opponent_takes() {
                    return won(root_to_move, cube) - luck;
                }
                cube *= 2;
                owner = Some(!root_to_move);
            }
        }
        // The mover's view of the cube for its plays (its holder after any double).
        let mover_holder = holder_of(owner, root_to_move);
        // Money play under the Jacoby rule, the cube not yet turned: gammons count single.
        let jacoby = config.jacoby && here.is_none() && owner.is_none();
        // In a match the best by match worth of the plays the networks valued in full.
        let best_of = |search: &mut Search,
                       pos: &Position,
                       roll: Roll,
                       plays: &mut PlayList,
                       evals: &mut Vec<Probabilities>| {
            let (i, p) = choose0(search, pos, roll, plays, evals);
            if here.is_none() && !jacoby {
                return (i, f64::from(p.equity()));
            }
            let pruned = search.prunes().then(|| search.pruned());
            (0..plays.len())
                .filter(|&j| pruned.is_none_or(|pruned| !pruned[j]))
                .map(|j| {
                    let after = &plays.positions()[j];
                    let v = if jacoby {
                        f64::from(search.play_value(PlayWorth::Jacoby, after, evals[j]))
                    } else {
                        worth(search, after, evals[j], mover_holder, cube, here)
                    };
                    (j, v)
                })
                .fold((i, f64::NEG_INFINITY), |b, c| if c.1 > b.1 { c } else { b })
        };
        if let (Some(s), Some(b)) = (here, search.bearoff()) {
            // In a short bearoff, the match table of the position before the roll holds every
            // play's result (tables solved from each would not).
            let _ = b.solve_match(&pos, cube, mover_holder, s);
        }
        let mut chosen = None;
        if config.luck_adjust {
            let mut mean = 0.0f64;
            for (r, w) in Roll::ALL_21 {
                let (i, v) = best_of(search, &pos, r, plays, evals);
                mean += f64::from(w) / 36.0 * v;
                if r == roll {
                    chosen = Some((plays.positions()[i], v));
                }
            }
            let (_, got) = chosen.expect("the roll that came is one of the 21");
            // The roll's luck (cubeless at the cube's value in money play, in match winning
            // chances in a match) when it is thrown: of mean zero given the game so far, so
            // the adjustment stays unbiased.
            luck += match here {
                None => sign(root_to_move) * f64::from(cube) * (got - mean),
                Some(_) => sign(root_to_move) * (got - mean),
            };
        }
        let after = if ply > 0 {
            pos.legal_plays(roll, plays);
            let i = match here {
                None if jacoby => search.choose_worth(plays, ply, &mut ranked, PlayWorth::Jacoby),
                None => search.choose(plays, ply, &mut ranked),
                Some(s) => {
                    let w = PlayWorth::Match {
                        holder: mover_holder,
                        cube,
                        score: s,
                    };
                    search.choose_worth(plays, ply, &mut ranked, w)
                }
            };
            plays.positions()[i]
        } else {
            chosen.map_or_else(
                || {
                    let (i, _) = best_of(search, &pos, roll, plays, evals);
                    plays.positions()[i]
                },
                |(after, _)| after,
            )
        };
        if let Some(o) = after.outcome() {
            let points = if jacoby { 1 } else { u32::from(o.points) };
            return won(root_to_move, points * cube) - luck;
        }
        if t + 1 == truncate {
            // The position reached, valued for the side to roll there by Janowski's model on
            // the 0-ply probabilities, with its best cube action.
            let next = after.flip();
            let p = search.evaluate(&next, 0);
            let held = holder_of(owner, !root_to_move);
            return match score_of(!root_to_move) {
                None => {
                    let e = f64::from(CubeAnalysis::money(&next, p, held, config.jacoby).equity());
                    sign(!root_to_move) * e * f64::from(cube) - luck
                }
                Some(s) => {
                    // Exact in the short bearoffs the match tables hold.
                    let a = search.match_cube_analysis(&next, 0, held, cube, s);
                    let [nd, dt, dp] = a.match_winning_chances.expect("match play");
                    let m = if a.action.doubles() { dt.min(dp) } else { nd };
                    let m = f64::from(m);
                    (if root_to_move { 1.0 - m } else { m }) - luck
                }
            };
        }
        pos = after.flip();
        root_to_move = !root_to_move;
        t += 1;
    }
}

/// Rolls `root` out with the cube in money play (under the Jacoby rule with
/// `config.jacoby`; no beavers): the side on roll
/// at the root, before rolling, with the cube held by `holder`, on two lines played on the same
/// dice: without doubling now, and after a double and a take. Below the root both sides
/// double, take and pass by their 0-ply cube decisions ([`Search::cube_analysis`] at 0-ply)
/// and choose their plays cubeless at `config.ply`; games are played to the end (bearoff
/// databases value positions but do not stop the games), or truncated and valued by
/// Janowski's model at 0-ply. Equities are per unit of the current cube. `progress` counts
/// finished games (two a game, one per line).
///
/// # Panics
/// When `config.games` is 0 or `root` is a finished game.
pub fn cubeful_rollout(
    search: &Search,
    root: Position,
    holder: CubeHolder,
    config: RolloutConfig,
    progress: &AtomicU64,
) -> CubefulRolloutResult {
    assert!(config.games > 0, "a rollout needs at least one game");
    let count = |_: usize, _: f64| {
        progress.fetch_add(1, Ordering::Relaxed);
    };
    cubeful_rollout_until(search, root, holder, 1, None, config, &count, &|| false)
        .expect("at least one game")
}

/// Rolls `root` out with the cube in a match, as [`cubeful_rollout`] does in money play: the
/// side on roll at `score` (its own), before rolling, with the cube on `cube` held by
/// `holder`, on two lines played on the same dice (no double; double and take). Below the
/// root both sides double, take and pass by their 0-ply match cube decisions
/// ([`Search::match_cube_analysis`] at 0-ply: tavla's match equity table) and choose their
/// plays by match equity at `config.ply`; each roll's luck is taken in match winning chances.
/// The results are the side's chances of winning the match; the analysis gives them
/// normalised too.
///
/// # Panics
/// When `config.games` is 0 or `root` is a finished game.
pub fn cubeful_match_rollout(
    search: &Search,
    root: Position,
    holder: CubeHolder,
    cube: u32,
    score: MatchScore,
    config: RolloutConfig,
    progress: &AtomicU64,
) -> CubefulRolloutResult {
    assert!(config.games > 0, "a rollout needs at least one game");
    let count = |_: usize, _: f64| {
        progress.fetch_add(1, Ordering::Relaxed);
    };
    cubeful_rollout_until(
        search,
        root,
        holder,
        cube,
        Some(score),
        config,
        &count,
        &|| false,
    )
    .expect("at least one game")
}

/// [`cubeful_rollout`] (`score` `None`, money play, `cube` not used) or
/// [`cubeful_match_rollout`] (the side on roll's `score`, the cube on `cube`), stopped early
/// when `stop` says so, as [`rollout_until`] is: both lines have the same first `n` games.
/// `None` when no game was played. `finished` hears of each line's games.
///
/// # Panics
/// When `root` is a finished game.
#[allow(clippy::too_many_arguments)]
pub fn cubeful_rollout_until(
    search: &Search,
    root: Position,
    holder: CubeHolder,
    cube: u32,
    score: Option<MatchScore>,
    config: RolloutConfig,
    finished: CubefulFinished<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<CubefulRolloutResult> {
    let cube = if score.is_some() {
        cube.clamp(1, MAX_CUBE)
    } else {
        1
    };
    let (games, (no_double, no_double_stderr), double_take) =
        rollout_lines(search, root, holder, cube, score, config, finished, stop)?;
    let double = double_take.map(|(double_take, double_take_stderr, difference_stderr)| {
        let analysis = match score {
            None => CubeAnalysis::from_equities(
                cube_efficiency(&root),
                holder,
                no_double as f32,
                double_take as f32,
            ),
            Some(score) => CubeAnalysis::from_match_chances(
                &root,
                holder,
                cube,
                score,
                no_double as f32,
                double_take as f32,
            ),
        };
        DoubleLine {
            double_take,
            double_take_stderr,
            difference_stderr,
            analysis,
        }
    });
    Some(CubefulRolloutResult {
        games,
        no_double,
        no_double_stderr,
        double,
    })
}

/// The double/take line's mean and standard error, and the standard error of its difference
/// from the no-double line.
type DoubleTakeStats = (f64, f64, f64);

/// The two lines of a cubeful rollout, no double and double/take, until `stop`: the games
/// played on each (fewer than `config.games` when its deadline or `stop` stopped them; `None`
/// when none was), the first line's mean and standard error, and the second's (`None` when
/// the opponent owns the cube and it is not played) with the standard error of the two
/// lines' difference, from the root side's view; in money play per unit of the current cube
/// (`cube` 1), in a match as chances of winning it.
#[allow(clippy::too_many_arguments)]
fn rollout_lines(
    search: &Search,
    root: Position,
    holder: CubeHolder,
    cube: u32,
    score: Option<MatchScore>,
    config: RolloutConfig,
    finished: CubefulFinished<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<(u32, (f64, f64), Option<DoubleTakeStats>)> {
    assert!(!root.is_game_over(), "the game is over at the root");
    let owner = match holder {
        CubeHolder::Centre => None,
        CubeHolder::OnRoll => Some(true),
        CubeHolder::Opponent => Some(false),
    };
    let line = |cube, owner| CubeLine {
        root,
        cube,
        owner,
        score,
        root_may_double: false,
    };
    // The double/take line plays on with the cube doubled, owned by the opponent; there is
    // none when the opponent owns the cube.
    let mut lines = vec![line(cube, owner)];
    if holder != CubeHolder::Opponent {
        lines.push(line(2 * cube, Some(false)));
    }
    let mut moments = Moments::new(lines.len());
    let games = cubeful_games(search, &lines, &config, finished, stop, |game| {
        moments.push(game);
    });
    if games == 0 {
        return None;
    }
    let double_take = (lines.len() == 2).then(|| {
        let (mean, stderr) = moments.mean_and_stderr(1);
        (mean, stderr, moments.difference(1, 0).1)
    });
    Some((games, moments.mean_and_stderr(0), double_take))
}

/// Plays games on each of `lines` (game `i` of every line on the same dice) on
/// `config.threads` threads until `stop`, and hands each game's results, one a line, to `take`
/// in game order ([`run_games`]); returns the games played. `finished` hears of each line's
/// games, with the line's index and the game's value for the line's root side.
fn cubeful_games(
    search: &Search,
    lines: &[CubeLine],
    config: &RolloutConfig,
    finished: CubefulFinished<'_>,
    stop: &(dyn Fn() -> bool + Sync),
    take: impl FnMut(Vec<f64>) + Send,
) -> u32 {
    run_games(
        search,
        config,
        stop,
        |search, game, plays, evals| {
            lines
                .iter()
                .enumerate()
                .map(|(k, line)| {
                    let v = play_out_cubeful(search, line, game, config, plays, evals);
                    finished(k, v);
                    v
                })
                .collect()
        },
        take,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_widens_for_few_games_as_students_t_does() {
        // The 0.975 quantiles of Student's t at 1, 2, 10, 35 and 100 degrees of freedom.
        for (games, t) in [
            (2, 12.706),
            (3, 4.303),
            (11, 2.228),
            (36, 2.030),
            (101, 1.984),
        ] {
            assert!(
                (ci95_factor(games) - t).abs() < 0.002,
                "{games}: {}",
                ci95_factor(games)
            );
        }
        assert!((ci95_factor(u32::MAX) - 1.96).abs() < 1e-6);
        assert_eq!(
            ci95_factor(0),
            ci95_factor(2),
            "no degrees of freedom: as one"
        );
        let f: Vec<f64> = (2..500).map(ci95_factor).collect();
        assert!(
            f.windows(2).all(|w| w[1] <= w[0]),
            "narrower with more games"
        );
    }
    use crate::weights::Weights;

    /// `games` games played out (not truncated) at 0-ply, luck-adjusted, from `seed` on
    /// `threads` threads, cubeless rules.
    fn played_out(games: u32, seed: u64, threads: usize) -> RolloutConfig {
        RolloutConfig {
            games,
            seed,
            threads,
            luck_adjust: true,
            truncate: 0,
            balance_parity: false,
            ply: 0,
            deadline: None,
            jacoby: false,
        }
    }

    fn run(threads: usize, luck_adjust: bool, games: u32) -> RolloutResult {
        let w = Arc::new(Weights::default_weights());
        let cfg = RolloutConfig {
            luck_adjust,
            ..played_out(games, 11, threads)
        };
        rollout(
            &Search::new(w.clone()),
            Position::START,
            cfg,
            &AtomicU64::new(0),
        )
    }

    fn cubeful(
        pos: Position,
        holder: CubeHolder,
        threads: usize,
        games: u32,
    ) -> CubefulRolloutResult {
        let cfg = played_out(games, 7, threads);
        let search = Search::new(Arc::new(Weights::default_weights()));
        cubeful_rollout(&search, pos, holder, cfg, &AtomicU64::new(0))
    }

    /// A short race: the side on roll has one checker on its 6-point, the opponent three on
    /// its 5-, 4- and 3-points and twelve off.
    fn short_race() -> Position {
        let mut b = [0i8; 26];
        b[6] = 1;
        b[20] = -1;
        b[21] = -1;
        b[22] = -1;
        Position::try_from(b).unwrap()
    }

    #[test]
    fn cubeful_rollouts_are_reproducible_and_find_the_cash() {
        let a = cubeful(Position::START, CubeHolder::Centre, 1, 6);
        assert_eq!(a, cubeful(Position::START, CubeHolder::Centre, 3, 6));
        // The side on roll bears off at once unless its roll is short, and the opponent
        // needs a double then: a double is passed (taking would lose about 1.9).
        let r = cubeful(short_race(), CubeHolder::Centre, 2, 144);
        let d = r.double.expect("the double's line is played");
        assert_eq!(
            d.analysis.action,
            crate::cube::CubeAction::DoublePass,
            "{r:?}"
        );
        assert!(r.no_double > 0.9 && r.no_double < 1.0, "{r:?}");
        assert!(d.double_take > 1.8, "{r:?}");
        // No gammons: a game the opponent does not win scores the cube, on both lines.
        assert!((d.double_take - 2.0 * r.no_double).abs() < 1e-9, "{r:?}");
        // The opponent owns the cube: no double's line and no decision, the same games.
        let theirs = cubeful(short_race(), CubeHolder::Opponent, 2, 144);
        assert_eq!(theirs.double, None, "{theirs:?}");
        assert!((theirs.no_double - r.no_double).abs() < 1e-9, "{theirs:?}");
    }

    #[test]
    fn under_the_jacoby_rule_a_gammon_counts_single_until_the_cube_is_turned() {
        // The side on roll bears its last two checkers off with any roll; the opponent has
        // none off: a gammon whatever the dice.
        let mut b = [0i8; 26];
        b[1] = 2;
        b[12] = -15;
        let pos = Position::try_from(b).unwrap();
        let search = Search::new(Arc::new(Weights::default_weights()));
        let config = |jacoby| RolloutConfig {
            jacoby,
            ..played_out(36, 3, 2)
        };
        let run = |jacoby| {
            cubeful_rollout(
                &search,
                pos,
                CubeHolder::Centre,
                config(jacoby),
                &AtomicU64::new(0),
            )
        };
        // Without the rule: 2 points not doubling, 4 on the cube at 2 after a take; too good
        // to double.
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let plain = run(false);
        let d = plain.double.unwrap();
        assert!(
            near(plain.no_double, 2.0) && near(d.double_take, 4.0),
            "{plain:?}"
        );
        assert_eq!(d.analysis.double_pass, 1.0);
        assert!(!d.analysis.action.doubles(), "{plain:?}");
        // With it the gammon counts single on the cube never turned, in full once it is: the
        // side cashes by doubling.
        let jacoby = run(true);
        let d = jacoby.double.unwrap();
        assert!(
            near(jacoby.no_double, 1.0) && near(d.double_take, 4.0),
            "{jacoby:?}"
        );
        assert!(d.analysis.action.doubles(), "{jacoby:?}");
        // The plays of a roll: one that ends the game with a gammon counts single too.
        let mut plays = PlayList::new();
        pos.legal_plays(Roll::from_values(2, 1), &mut plays);
        let afters = plays.positions();
        for jacoby in [false, true] {
            let zero = AtomicU64::new(0);
            let cfg = config(jacoby);
            let r = cubeful_play_rollouts(&search, afters, CubeHolder::Centre, 1, None, cfg, &zero);
            let want = if jacoby { 1.0 } else { 2.0 };
            assert!(r.iter().all(|p| near(p.equity, want)), "{jacoby}: {r:?}");
        }
    }

    fn match_cubeful(
        pos: Position,
        holder: CubeHolder,
        score: MatchScore,
        threads: usize,
        games: u32,
        truncate: u32,
    ) -> CubefulRolloutResult {
        let cfg = RolloutConfig {
            truncate,
            ..played_out(games, 7, threads)
        };
        let search = Search::new(Arc::new(Weights::default_weights()));
        cubeful_match_rollout(&search, pos, holder, 1, score, cfg, &AtomicU64::new(0))
    }

    #[test]
    fn match_rollouts_are_reproducible_and_find_the_cash() {
        // 3-away against 5-away in a 7-point match.
        let score = MatchScore::new(7, 4, 2, false).unwrap();
        let a = match_cubeful(Position::START, CubeHolder::Centre, score, 1, 6, 8);
        assert_eq!(
            a,
            match_cubeful(Position::START, CubeHolder::Centre, score, 3, 6, 8)
        );
        for m in [a.no_double, a.double.unwrap().double_take] {
            assert!((0.0..=1.0).contains(&m), "{a:?}");
        }
        // The short race: a double is passed. No gammons either way, so the games score the
        // cube: winning 1 point or 2, losing 1 or 2 (or more after a redouble).
        let r = match_cubeful(short_race(), CubeHolder::Centre, score, 2, 144, 0);
        let d = r.double.unwrap();
        assert_eq!(
            d.analysis.action,
            crate::cube::CubeAction::DoublePass,
            "{r:?}"
        );
        let pass = f64::from(score.after(1, 0));
        let [_, _, dp] = d.analysis.match_winning_chances.unwrap();
        assert_eq!(f64::from(dp), pass);
        assert!(
            r.no_double < pass && r.no_double > f64::from(score.after(0, 1)),
            "{r:?}"
        );
        assert!(d.double_take > pass, "taking loses: {r:?}");
        // The analysis's equities are the chances normalised.
        let [nd, dt, _] = d.analysis.match_winning_chances.unwrap();
        assert!((f64::from(nd) - r.no_double).abs() < 1e-6);
        assert!((f64::from(dt) - d.double_take).abs() < 1e-6);
    }

    /// The running moments against the textbook two-pass sums over all the values, on series
    /// of different scales and a constant one.
    #[test]
    fn running_moments_are_the_two_pass_figures() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let games: Vec<[f64; 3]> = (0..1_000)
            .map(|_| {
                let a: f64 = rng.gen_range(-3.0..3.0);
                [a, 0.5 * a + rng.gen_range(-0.1..0.1), 1.0]
            })
            .collect();
        let mut m = Moments::new(3);
        for g in &games {
            m.push(g.iter().copied());
        }
        let n = games.len() as f64;
        let two_pass = |x: &dyn Fn(&[f64; 3]) -> f64| {
            let mean = games.iter().map(x).sum::<f64>() / n;
            let var = games.iter().map(|g| (x(g) - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (mean, (var / n).sqrt())
        };
        let close = |(a, b): (f64, f64), (c, d): (f64, f64)| {
            assert!(
                (a - c).abs() < 1e-12 && (b - d).abs() < 1e-12,
                "{a} {b} vs {c} {d}"
            );
        };
        for p in 0..3 {
            close(m.mean_and_stderr(p), two_pass(&|g| g[p]));
        }
        close(m.difference(1, 0), two_pass(&|g| g[1] - g[0]));
        close(m.difference(2, 1), two_pass(&|g| g[2] - g[1]));
        // The constant series has the highest mean: the others are measured from it.
        let d = m.differences_from_best();
        close(d[0], two_pass(&|g| g[0] - g[2]));
        assert_eq!(d[2], (0.0, 0.0));
        // One game says nothing of the spread.
        let mut one = Moments::new(2);
        one.push([1.0, -1.0]);
        assert_eq!(one.mean_and_stderr(1), (-1.0, f64::INFINITY));
        assert_eq!(one.difference(0, 1), (2.0, f64::INFINITY));
    }

    #[test]
    fn reproducible_and_independent_of_threads() {
        let a = run(1, true, 12);
        let b = run(3, true, 12);
        assert_eq!(a, b);
        assert_eq!(a.games, 12);
    }

    #[test]
    fn pruned_players_are_independent_of_threads() {
        // With pruning the plays the full networks see depend on the cache; each game starts
        // with an empty one, so neither the games before it on its thread nor the thread
        // count change a result.
        let search = Search::new(Arc::new(Weights::default_weights()))
            .with_prune(crate::search::Prune::embedded());
        let cfg = |threads| played_out(36, 5, threads);
        let pos = Position::from_position_id("4HPwATDgc/ABMA").unwrap();
        let one = rollout(&search, pos, cfg(1), &AtomicU64::new(0));
        let three = rollout(&search, pos, cfg(3), &AtomicU64::new(0));
        assert_eq!(one, three);
        let cfg = |threads| RolloutConfig {
            games: 12,
            ..cfg(threads)
        };
        let cubeful = |threads| {
            cubeful_rollout(
                &search,
                pos,
                CubeHolder::Centre,
                cfg(threads),
                &AtomicU64::new(0),
            )
        };
        assert_eq!(cubeful(1), cubeful(3));
    }

    /// A rollout of a million games on three threads, luck-adjusted, to be stopped early.
    fn to_be_stopped(seed: u64, truncate: u32) -> RolloutConfig {
        RolloutConfig {
            truncate,
            ..played_out(1_000_000, seed, 3)
        }
    }

    #[test]
    fn a_stopped_rollout_is_the_first_games_of_a_full_one() {
        // Stopped once ten games are done (on three threads), a rollout has played the first
        // n games, n >= 10, and its result is the n-game rollout's; the plays of one roll all
        // get the same games. Stopped at once, nothing was played.
        let search = Search::new(Arc::new(Weights::default_weights()));
        let cfg = to_be_stopped(9, 0);
        let progress = AtomicU64::new(0);
        let count = |_: usize, _: &[f64; 5]| {
            progress.fetch_add(1, Ordering::Relaxed);
        };
        let stop = || progress.load(Ordering::Relaxed) >= 10;
        let stopped = rollout_until(&search, Position::START, cfg, &count, &stop).unwrap();
        assert!((10..1_000).contains(&stopped.games), "{}", stopped.games);
        let full = RolloutConfig {
            games: stopped.games,
            ..cfg
        };
        assert_eq!(
            stopped,
            rollout(&search, Position::START, full, &AtomicU64::new(0))
        );

        let mut plays = PlayList::new();
        Position::START.legal_plays(Roll::from_values(6, 4), &mut plays);
        let afters = &plays.positions()[..3];
        // Each play's games, as they finish: as many for each, the same as the results'.
        let seen = std::sync::Mutex::new(vec![(0u32, 0.0f64); 3]);
        let progress = AtomicU64::new(0);
        let count = |p: usize, g: &[f64; 5]| {
            let mut seen = seen.lock().unwrap();
            seen[p].0 += 1;
            seen[p].1 += game_equity(g);
            progress.fetch_add(1, Ordering::Relaxed);
        };
        let stop = || progress.load(Ordering::Relaxed) >= 10;
        let stopped = rollout_plays_until(&search, afters, cfg, &count, &stop).unwrap();
        let games = stopped[0].result.games;
        assert!(games >= 4 && stopped.iter().all(|p| p.result.games == games));
        for (p, &(n, sum)) in stopped.iter().zip(seen.lock().unwrap().iter()) {
            assert_eq!(n, games);
            assert!((sum / f64::from(n) - p.result.equity).abs() < 1e-9);
        }
        let full = RolloutConfig { games, ..cfg };
        assert_eq!(
            stopped,
            rollout_plays(&search, afters, full, &AtomicU64::new(0))
        );

        let never = |_: usize, _: &[f64; 5]| panic!("no game is played");
        assert_eq!(
            rollout_until(&search, Position::START, cfg, &never, &|| true),
            None
        );
        assert_eq!(
            rollout_plays_until(&search, afters, cfg, &never, &|| true),
            None
        );
    }

    #[test]
    fn a_stopped_cubeful_rollout_is_the_first_games_of_a_full_one() {
        // The same with the cube, truncated to keep it short: both lines of a position (money
        // and a match score) and the plays of a roll. Stopped at once, nothing was played.
        let search = Search::new(Arc::new(Weights::default_weights()));
        let cfg = to_be_stopped(5, 4);
        let score = MatchScore::new(7, 4, 2, false).unwrap();
        let centre = CubeHolder::Centre;
        let nothing = |_: usize, _: f64| {};
        for score in [None, Some(score)] {
            let progress = AtomicU64::new(0);
            let count = |_: usize, _: f64| {
                progress.fetch_add(1, Ordering::Relaxed);
            };
            let stop = || progress.load(Ordering::Relaxed) >= 20;
            let stopped = cubeful_rollout_until(
                &search,
                Position::START,
                centre,
                1,
                score,
                cfg,
                &count,
                &stop,
            )
            .unwrap();
            assert!((10..1_000).contains(&stopped.games), "{}", stopped.games);
            let full = RolloutConfig {
                games: stopped.games,
                ..cfg
            };
            let zero = AtomicU64::new(0);
            let expected = match score {
                None => cubeful_rollout(&search, Position::START, centre, full, &zero),
                Some(s) => {
                    cubeful_match_rollout(&search, Position::START, centre, 1, s, full, &zero)
                }
            };
            assert_eq!(stopped, expected);
            let never = cubeful_rollout_until(
                &search,
                Position::START,
                centre,
                1,
                score,
                cfg,
                &nothing,
                &|| true,
            );
            assert_eq!(never, None);
        }
        let mut plays = PlayList::new();
        Position::START.legal_plays(Roll::from_values(6, 4), &mut plays);
        let afters = &plays.positions()[..3];
        let progress = AtomicU64::new(0);
        let count = |_: usize, _: f64| {
            progress.fetch_add(1, Ordering::Relaxed);
        };
        let stop = || progress.load(Ordering::Relaxed) >= 12;
        let stopped =
            cubeful_play_rollouts_until(&search, afters, centre, 1, None, cfg, &count, &stop)
                .unwrap();
        let games = stopped[0].games;
        assert!(games >= 4 && stopped.iter().all(|p| p.games == games));
        let full = RolloutConfig { games, ..cfg };
        let zero = AtomicU64::new(0);
        assert_eq!(
            stopped,
            cubeful_play_rollouts(&search, afters, centre, 1, None, full, &zero)
        );
        let never =
            cubeful_play_rollouts_until(&search, afters, centre, 1, None, cfg, &nothing, &|| true);
        assert_eq!(never, None);
    }

    #[test]
    fn a_cubeful_rollout_tells_each_game_of_each_line_as_its_result_counts_it() {
        // The means of the values heard, line by line, are the result's: both lines of a
        // position (money and a match score), and the plays of a roll (one of which ends the
        // game) for the mover.
        let search = Search::new(Arc::new(Weights::default_weights()));
        let cfg = RolloutConfig {
            truncate: 4,
            ..played_out(24, 5, 2)
        };
        let heard = std::sync::Mutex::new(Vec::<(usize, f64)>::new());
        let hear = |k: usize, v: f64| heard.lock().unwrap().push((k, v));
        let mean = |k: usize| {
            let h = heard.lock().unwrap();
            let v: Vec<f64> = h.iter().filter(|e| e.0 == k).map(|e| e.1).collect();
            (v.len(), v.iter().sum::<f64>() / v.len() as f64)
        };
        let score = MatchScore::new(7, 4, 2, false).unwrap();
        for score in [None, Some(score)] {
            heard.lock().unwrap().clear();
            let r = cubeful_rollout_until(
                &search,
                Position::START,
                CubeHolder::Centre,
                1,
                score,
                cfg,
                &hear,
                &|| false,
            )
            .unwrap();
            let ((n0, m0), (n1, m1)) = (mean(0), mean(1));
            assert_eq!((n0, n1), (24, 24));
            assert!((m0 - r.no_double).abs() < 1e-9, "{m0} {}", r.no_double);
            let dt = r.double.unwrap().double_take;
            assert!((m1 - dt).abs() < 1e-9, "{m1} {dt}");
        }
        heard.lock().unwrap().clear();
        let won = {
            let mut on_roll = [0u8; 25];
            on_roll[0] = 1;
            let mut opponent = [0u8; 25];
            opponent[5] = 15;
            let pos = Position::try_from(tavla_core::Board { on_roll, opponent }).unwrap();
            let mut plays = PlayList::new();
            pos.legal_plays(Roll::from_values(2, 1), &mut plays);
            plays.positions()[0]
        };
        assert!(won.outcome().is_some());
        let afters = [Position::START, short_race(), won];
        let r = cubeful_play_rollouts_until(
            &search,
            &afters,
            CubeHolder::Centre,
            1,
            None,
            cfg,
            &hear,
            &|| false,
        )
        .unwrap();
        for (i, play) in r.iter().enumerate() {
            let (n, m) = mean(i);
            assert_eq!(n, 24);
            assert!(
                (m - play.equity).abs() < 1e-9,
                "play {i}: {m} {}",
                play.equity
            );
        }
    }

    #[test]
    fn plays_are_rolled_out_as_their_positions_are() {
        // The opening 3-1: every play's rollout is the opponent's rollout of the position it
        // leaves, seen from the other side, on the same dice; the differences are paired.
        let search = Search::new(Arc::new(Weights::default_weights()));
        let mut plays = PlayList::new();
        Position::START.legal_plays(Roll::from_values(3, 1), &mut plays);
        let afters = &plays.positions()[..3];
        let cfg = played_out(36, 3, 2);
        let r = rollout_plays(&search, afters, cfg, &AtomicU64::new(0));
        assert_eq!(r.len(), 3);
        for (p, after) in r.iter().zip(afters) {
            let theirs = rollout(&search, after.flip(), cfg, &AtomicU64::new(0));
            assert!((p.result.equity + theirs.equity).abs() < 1e-9);
            assert!((p.result.probs.win - (1.0 - theirs.probs.win)).abs() < 1e-6);
            assert!((p.result.probs.win_gammon - theirs.probs.lose_gammon).abs() < 1e-6);
            assert!((p.result.equity_stderr - theirs.equity_stderr).abs() < 1e-9);
        }
        let best = r
            .iter()
            .max_by(|a, b| a.result.equity.total_cmp(&b.result.equity))
            .unwrap();
        assert_eq!((best.difference, best.difference_stderr), (0.0, 0.0));
        for p in &r {
            assert!((p.difference - (p.result.equity - best.result.equity)).abs() < 1e-9);
            assert!(p.difference <= 0.0);
        }
        // A play that bears off the last checker is its outcome, without games.
        let plays = last_checker_off();
        let won = rollout_plays(&search, plays.positions(), cfg, &AtomicU64::new(0));
        assert_eq!(
            won[0].result.probs,
            Probabilities::from_outcome(plays.positions()[0].outcome().unwrap())
        );
        assert!(won[0].result.equity >= 2.0 && won[0].result.equity_stderr == 0.0);
    }

    /// The plays of 6-5 with one checker left, on the 2-point: the first bears it off (a
    /// gammon, the opponent has none off).
    fn last_checker_off() -> PlayList {
        let mut board = [0i8; 26];
        board[2] = 1;
        board[20] = -15;
        let racing = Position::try_from(board).unwrap();
        let mut plays = PlayList::new();
        racing.legal_plays(Roll::from_values(6, 5), &mut plays);
        plays
    }

    #[test]
    fn cubeful_plays_are_the_opponents_cube_lines() {
        let mut search = Search::new(Arc::new(Weights::default_weights()));
        let cfg = played_out(36, 7, 2);
        let progress = AtomicU64::new(0);
        // The opening 3-1: no one doubles before the second roll, so each play's games are the
        // opponent's no-double line from the position it leaves, seen from the other side.
        let mut plays = PlayList::new();
        Position::START.legal_plays(Roll::from_values(3, 1), &mut plays);
        let afters = &plays.positions()[..3];
        let r = cubeful_play_rollouts(&search, afters, CubeHolder::Centre, 1, None, cfg, &progress);
        assert_eq!(progress.load(Ordering::Relaxed), 3 * 36);
        for (p, after) in r.iter().zip(afters) {
            let a = search.cube_analysis(&after.flip(), 0, CubeHolder::Centre, false);
            assert!(!a.action.doubles());
            let theirs = cubeful_rollout(&search, after.flip(), CubeHolder::Centre, cfg, &progress);
            assert!(
                (p.equity + theirs.no_double).abs() < 1e-9,
                "{p:?} {theirs:?}"
            );
        }
        assert!(r.iter().any(|p| p.difference == 0.0));
        // A play that leaves the opponent the short race: with the cube in the middle or its
        // own, it doubles at once and the mover passes, every game a point lost; with the
        // mover's cube it cannot double, and the games are its no-double line.
        let after = [short_race().flip()];
        for holder in [CubeHolder::Centre, CubeHolder::Opponent] {
            let r = cubeful_play_rollouts(&search, &after, holder, 1, None, cfg, &progress);
            assert_eq!((r[0].equity, r[0].equity_stderr), (-1.0, 0.0), "{holder:?}");
        }
        let mine =
            cubeful_play_rollouts(&search, &after, CubeHolder::OnRoll, 1, None, cfg, &progress);
        let theirs = cubeful_rollout(&search, short_race(), CubeHolder::Opponent, cfg, &progress);
        assert!((mine[0].equity + theirs.no_double).abs() < 1e-9, "{mine:?}");
        assert!(mine[0].equity > -1.0 && mine[0].equity < -0.9, "{mine:?}");
        // In a match (3-away against 5-away, the mover's score): the pass loses the cube's
        // value, 2 points at a 2-cube.
        let score = MatchScore::new(7, 4, 2, false).unwrap();
        let r = cubeful_play_rollouts(
            &search,
            &after,
            CubeHolder::Centre,
            2,
            Some(score),
            cfg,
            &progress,
        );
        assert_eq!(r[0].equity, f64::from(score.after(0, 2)));
        // A play that bears off the last checker wins its points at once.
        let plays = last_checker_off();
        let won = cubeful_play_rollouts(
            &search,
            &plays.positions()[..1],
            CubeHolder::Centre,
            1,
            None,
            cfg,
            &progress,
        );
        assert_eq!((won[0].equity, won[0].equity_stderr), (2.0, 0.0));
    }

    #[test]
    fn luck_adjustment_reduces_the_error() {
        let plain = run(2, false, 72);
        let adjusted = run(2, true, 72);
        assert!(
            adjusted.equity_stderr < plain.equity_stderr,
            "{} vs {}",
            adjusted.equity_stderr,
            plain.equity_stderr
        );
        let (lo, hi) = adjusted.equity_ci95();
        assert!(lo < adjusted.equity && adjusted.equity < hi);
    }

    #[test]
    fn exact_bearoff_races_roll_out_to_their_exact_value() {
        use crate::bearoff::BearoffRace;
        let (db, _) = tavla_bearoff::TwoSidedDb::build(6, 4).unwrap();
        let race = Arc::new(BearoffRace::new(db));
        // Side on roll: 6-point, 5-point, 2-point; opponent: its 4-point and 1-point.
        let mut b = [0i8; 26];
        b[6] = 1;
        b[5] = 1;
        b[2] = 1;
        b[21] = -1;
        b[24] = -1;
        let pos = Position::try_from(b).unwrap();
        let exact = race.probe_exact(&pos).unwrap();
        assert!(exact.win > 0.1 && exact.win < 0.9, "{exact:?}");
        let search = Search::new(Arc::new(Weights::default_weights())).with_bearoff(race);
        let cfg = played_out(72, 5, 2);
        // Every game stops after one play at an exact value, and the luck adjustment removes
        // the roll's luck: each game is the exact value of the root.
        let r = rollout(&search, pos, cfg, &AtomicU64::new(0));
        assert!((r.probs.win - exact.win).abs() < 1e-5, "{r:?} vs {exact:?}");
        assert!(r.equity_stderr < 1e-5, "{r:?}");
        // Without the luck adjustment the games vary around it.
        let raw = rollout(
            &search,
            pos,
            RolloutConfig {
                luck_adjust: false,
                ..cfg
            },
            &AtomicU64::new(0),
        );
        assert!(raw.equity_stderr > 0.01, "{raw:?}");
    }

    #[test]
    fn truncated_after_one_play_is_the_mean_first_play_value() {
        // Truncated after one play, 36 games are the 36 first rolls, each valued by the 0-ply
        // value of its best play: the 1-ply value of the position.
        let w = Arc::new(Weights::default_weights());
        let cfg = RolloutConfig {
            luck_adjust: false,
            truncate: 1,
            ..played_out(36, 3, 2)
        };
        let r = rollout(
            &Search::new(w.clone()),
            Position::START,
            cfg,
            &AtomicU64::new(0),
        );
        let one_ply = crate::search::Search::new(w).evaluate(&Position::START, 1);
        for (a, b) in r.probs.to_array().iter().zip(one_ply.to_array()) {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
        // Deeper truncations play on and stay reproducible.
        let deeper = RolloutConfig { truncate: 6, ..cfg };
        let a = rollout(
            &Search::new(Arc::new(Weights::default_weights())),
            Position::START,
            deeper,
            &AtomicU64::new(0),
        );
        let b = rollout(
            &Search::new(Arc::new(Weights::default_weights())),
            Position::START,
            RolloutConfig {
                threads: 1,
                ..deeper
            },
            &AtomicU64::new(0),
        );
        assert_eq!(a, b);
        assert_ne!(a.probs, r.probs);
        let here = rollout_here(
            &mut Search::new(Arc::new(Weights::default_weights())),
            Position::START,
            &deeper,
            0,
            &mut PlayList::new(),
            &mut Vec::new(),
        );
        for (x, y) in here.to_array().iter().zip(a.probs.to_array()) {
            assert!((x - y).abs() < 1e-5, "{x} vs {y}");
        }
    }

    #[test]
    fn deeper_players_choose_with_the_search() {
        // Truncated after one play, a 1-ply rollout of 36 games values each first roll by the
        // play the 1-ply search chooses, valued at 0-ply.
        let w = Arc::new(Weights::default_weights());
        let cfg = RolloutConfig {
            games: 36,
            seed: 5,
            threads: 2,
            luck_adjust: false,
            truncate: 1,
            balance_parity: false,
            ply: 1,
            deadline: None,
            jacoby: false,
        };
        let r = rollout(
            &Search::new(w.clone()),
            Position::START,
            cfg,
            &AtomicU64::new(0),
        );
        let mut search = Search::new(w.clone());
        let (mut plays, mut ranked) = (PlayList::new(), Vec::new());
        let mut mean = [0.0f32; 5];
        for i in 0..36 {
            Position::START.legal_plays(first_roll(i), &mut plays);
            let k = search.choose(&plays, 1, &mut ranked);
            let v = w.evaluate(&plays.positions()[k].flip()).flip();
            for (m, x) in mean.iter_mut().zip(v.to_array()) {
                *m += x / 36.0;
            }
        }
        for (a, b) in r.probs.to_array().iter().zip(mean) {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
        let zero = rollout(
            &Search::new(w.clone()),
            Position::START,
            RolloutConfig { ply: 0, ..cfg },
            &AtomicU64::new(0),
        );
        assert_ne!(zero.probs, r.probs);
        // Luck-adjusted deeper rollouts are reproducible and do not depend on the threads.
        let deeper = RolloutConfig {
            games: 6,
            threads: 1,
            luck_adjust: true,
            truncate: 5,
            ..cfg
        };
        let a = rollout(
            &Search::new(w.clone()),
            Position::START,
            deeper,
            &AtomicU64::new(0),
        );
        let b = rollout(
            &Search::new(w.clone()),
            Position::START,
            RolloutConfig {
                threads: 3,
                ..deeper
            },
            &AtomicU64::new(0),
        );
        assert_eq!(a, b);
    }

    #[test]
    fn balanced_parity_stops_odd_games_one_play_later() {
        let w = Arc::new(Weights::default_weights());
        let mut search = Search::new(w);
        let (mut plays, mut evals) = (PlayList::new(), Vec::new());
        let plain = RolloutConfig {
            truncate: 3,
            ..played_out(1, 9, 1)
        };
        let balanced = RolloutConfig {
            balance_parity: true,
            ..plain
        };
        let mut one = |config: &RolloutConfig, game: u32| {
            rollout_here(
                &mut search,
                Position::START,
                config,
                game,
                &mut plays,
                &mut evals,
            )
        };
        // Even games are as before; odd games play one more.
        assert_eq!(one(&balanced, 4), one(&plain, 4));
        let longer = RolloutConfig {
            truncate: 4,
            ..plain
        };
        assert_eq!(one(&balanced, 5), one(&longer, 5));
        assert_ne!(one(&balanced, 5), one(&plain, 5));
    }

    #[test]
    fn first_rolls_cover_all_36() {
        let mut seen = std::collections::HashMap::new();
        for i in 0..36 {
            *seen.entry(first_roll(i)).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 21);
        assert!(seen.iter().all(|(r, &n)| n == u32::from(r.weight())));
    }
}
