//! Supervised training on positions labelled by tavla's own deeper search.
//!
//! Two steps, each reproducible from a seed:
//!
//! 1. **Labelling** ([`label_games`]): self-play games at 0-ply with some exploration (now and
//!    then one of the best few plays instead of the best) give a stream of realistic
//!    positions; a sample of them, plus a sample of the positions left by random legal plays
//!    (the positions a 0-ply ranking must also value well), is labelled with the n-ply value of
//!    [`Search::evaluate`]. Game `i` draws everything from ChaCha8 with the run's seed and
//!    stream `i`, so the data do not depend on the thread count.
//! 2. **Fitting** ([`Fitter`]): stochastic gradient descent on the cross-entropy between each
//!    network's outputs and the labels, in a seeded shuffled order, with a held-out validation
//!    set.
//!
//! Labels never come from another engine: they are tavla's own search over its own networks.
//!
//! The data file is text, one sample per line: the gnubg Position ID of the position (side on
//! roll first) and the five label probabilities (win, win gammon, win backgammon, lose gammon,
//! lose backgammon); `#` starts a comment line.

use std::fmt;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{PlayList, Position, Roll};

use crate::evaluator::Evaluator;
use crate::inputs::{encode, phase, Phase, NUM_INPUTS};
use crate::net::NUM_OUTPUTS;
use crate::optim::Adam;
use crate::probs::Probabilities;
use crate::rollout::{rollout_here, RolloutConfig};
use crate::search::Search;
use crate::td::best_index;
use crate::weights::Weights;

/// Longest game played (a safety net; real games end long before).
const MAX_MOVES: usize = 1000;

/// One labelled position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The position, side on roll to move, before rolling.
    pub position: Position,
    /// Its value for the side on roll.
    pub target: Probabilities,
}

/// How positions are chosen and labelled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelConfig {
    /// Seed of the dice and of every random choice.
    pub seed: u64,
    /// Search depth of the labels.
    pub ply: u8,
    /// Probability that a move of the self-play game is one of the best [`LabelConfig::top`]
    /// plays at random instead of the best.
    pub explore: f32,
    /// Plays the exploration chooses from.
    pub top: usize,
    /// Probability that a position of the game (side on roll, before rolling) is labelled.
    pub sample: f32,
    /// Probability that, at a move, the position left by a uniformly random legal play (seen
    /// from the opponent, who is then on roll) is labelled too.
    pub sample_alternative: f32,
    /// Probability that, at a move, the positions left by the best [`LabelConfig::siblings`]
    /// plays at 0-ply (seen from the opponent) are labelled: the positions whose order a 0-ply
    /// choice must get right.
    pub sample_siblings: f32,
    /// Plays labelled when the siblings of a move are.
    pub siblings: usize,
    /// Disputed decisions only (0: every move drawn for siblings): when positive, a move
    /// drawn for siblings has them labelled only if the search at this ply chooses another
    /// play than 0-ply does, and then the search's choice first, the 0-ply best next and
    /// the following 0-ply plays up to [`LabelConfig::siblings`]. The decisions where a
    /// search corrects the network, as gnubg's training positions were chosen.
    pub disputed: u8,
    /// Label by truncated, luck-adjusted rollouts instead of the search: games per position
    /// (0: use the search at [`LabelConfig::ply`]). All the positions labelled at one move
    /// share their dice, so their differences are measured with less noise than their values.
    pub rollout_games: u32,
    /// Depth at which both sides choose their plays in those rollouts (0 to
    /// [`crate::search::MAX_PLY`]; [`RolloutConfig::ply`]): deeper players play better, at a
    /// cost (`docs/neural-rounds.md`, thirty-third round).
    pub rollout_ply: u8,
    /// Plays per rollout game before the 0-ply networks value the position reached.
    pub truncate: u32,
    /// Truncate every second rollout game one play later
    /// ([`RolloutConfig::balance_parity`]).
    pub balance_parity: bool,
    /// Label only the positions of this phase (`None`: all). The games and every random draw
    /// are the same either way, so the labels are those of the unfiltered run that fall in
    /// the phase, at a fraction of the search time.
    pub only: Option<Phase>,
}

impl LabelConfig {
    /// The settings of the rollouts that label positions (when `rollout_games > 0`): players at
    /// [`LabelConfig::rollout_ply`], luck-adjusted, one thread; the seed is set per move.
    #[must_use]
    pub fn rollout_config(&self) -> RolloutConfig {
        RolloutConfig {
            games: self.rollout_games,
            seed: 0,
            threads: 1,
            luck_adjust: true,
            truncate: self.truncate,
            balance_parity: self.balance_parity,
            ply: self.rollout_ply,
            deadline: None,
            jacoby: false,
        }
    }
}

impl Default for LabelConfig {
    fn default() -> Self {
        LabelConfig {
            seed: 1,
            ply: 2,
            explore: 0.1,
            top: 4,
            sample: 0.2,
            sample_alternative: 0.1,
            sample_siblings: 0.0,
            siblings: 5,
            disputed: 0,
            rollout_games: 0,
            rollout_ply: 0,
            truncate: 0,
            balance_parity: false,
            only: None,
        }
    }
}

/// Plays self-play game `game` and returns its labelled positions, in game order.
///
/// `search` supplies both the labels ([`Search::evaluate`] at `config.ply`) and the networks
/// that play the game at 0-ply.
pub fn label_game(search: &mut Search, config: &LabelConfig, game: u64) -> Vec<Sample> {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    rng.set_stream(game);
    let weights = search.weights().clone();
    let mut plays = PlayList::new();
    let mut evals: Vec<Probabilities> = Vec::new();
    let mut order: Vec<usize> = Vec::new();
    let mut samples = Vec::new();
    let mut pos = Position::START;
    let mut rollout_plays = PlayList::new();
    let mut rollout_evals = Vec::new();
    let mut ranked = Vec::new();
    let mut picks = Vec::new();
    let mut rollout = config.rollout_config();
    let mut label = |search: &mut Search,
                     rollout: &RolloutConfig,
                     position: Position,
                     samples: &mut Vec<Sample>| {
        if position.is_game_over() || config.only.is_some_and(|only| phase(&position) != only) {
            return;
        }
        let target = if rollout.games > 0 {
            rollout_here(
                search,
                position,
                rollout,
                (rollout.seed % 36) as u32,
                &mut rollout_plays,
                &mut rollout_evals,
            )
            .consistent()
        } else {
            search.evaluate(&position, config.ply)
        };
        samples.push(Sample { position, target });
    };
    for t in 0..MAX_MOVES {
        // The dice of this move's rollouts: one seed per game and move.
        rollout.seed = mix(mix(config.seed, game), t as u64);
        let roll = loop {
            let r = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
            if t > 0 || !r.is_double() {
                break r;
            }
        };
        if rng.gen::<f32>() < config.sample {
            label(search, &rollout, pos, &mut samples);
        }
        pos.legal_plays(roll, &mut plays);
        evals.resize(plays.len(), Probabilities::default());
        weights.evaluate_plays(plays.positions(), &mut evals);
        if rng.gen::<f32>() < config.sample_alternative {
            let alt = plays.positions()[rng.gen_range(0..plays.len())];
            label(search, &rollout, alt.flip(), &mut samples);
        }
        // Drawn only when asked for, so data made without siblings stay as they were.
        if config.sample_siblings > 0.0 && rng.gen::<f32>() < config.sample_siblings {
            by_equity(&evals, &mut order);
            picks.clear();
            if config.disputed == 0 {
                picks.extend(order.iter().take(config.siblings));
            } else if plays.len() > 1 && config.only.is_none_or(|only| phase(&pos) == only) {
                let choice = search.choose(&plays, config.disputed, &mut ranked);
                if choice != order[0] {
                    picks.push(choice);
                    picks.extend(
                        order
                            .iter()
                            .filter(|&&i| i != choice)
                            .take(config.siblings.saturating_sub(1).max(1)),
                    );
                }
            }
            for &i in &picks {
                label(search, &rollout, plays.positions()[i].flip(), &mut samples);
            }
        }
        let chosen = if rng.gen::<f32>() < config.explore && plays.len() > 1 {
            by_equity(&evals, &mut order);
            order[rng.gen_range(0..config.top.clamp(1, plays.len()))]
        } else {
            best_index(&evals)
        };
        let after = plays.positions()[chosen];
        if after.is_game_over() {
            break;
        }
        pos = after.flip();
    }
    samples
}

/// A 64-bit mix of two numbers (the finaliser of SplitMix64 over their combination).
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b
        .wrapping_add(0x9e37_79b9_7f4a_7c15)
        .wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The indices of `evals` from the best equity down.
fn by_equity(evals: &[Probabilities], order: &mut Vec<usize>) {
    order.clear();
    order.extend(0..evals.len());
    order.sort_by(|&a, &b| evals[b].equity().total_cmp(&evals[a].equity()));
}

/// Labels games `first..first + count` on `threads` threads and returns their samples in game
/// order (the same for any thread count). `progress` counts finished games.
pub fn label_games(
    weights: &Arc<Weights>,
    make_search: &(dyn Fn(Arc<Weights>) -> Search + Sync),
    config: &LabelConfig,
    first: u64,
    count: u64,
    threads: usize,
    progress: &AtomicU64,
) -> Vec<Sample> {
    let threads = threads.max(1) as u64;
    let mut per_game: Vec<(u64, Vec<Sample>)> = Vec::new();
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        for k in 0..threads {
            let weights = weights.clone();
            handles.push(s.spawn(move || {
                let mut search = make_search(weights);
                let mut mine = Vec::new();
                let mut g = k;
                while g < count {
                    // Each game starts with an empty cache: a pruned search's values could
                    // otherwise depend on the games its thread labelled before.
                    search.reset();
                    mine.push((g, label_game(&mut search, config, first + g)));
                    progress.fetch_add(1, Ordering::Relaxed);
                    g += threads;
                }
                mine
            }));
        }
        for h in handles {
            per_game.extend(h.join().expect("a labelling thread panicked"));
        }
    });
    per_game.sort_unstable_by_key(|&(g, _)| g);
    per_game
        .into_iter()
        .flat_map(|(_, samples)| samples)
        .collect()
}

/// Writes samples, one per line.
///
/// # Errors
/// When writing fails.
pub fn write_samples(out: &mut impl Write, samples: &[Sample]) -> io::Result<()> {
    for s in samples {
        let p = s.target.to_array();
        writeln!(
            out,
            "{} {:.5} {:.5} {:.5} {:.5} {:.5}",
            s.position.position_id(),
            p[0],
            p[1],
            p[2],
            p[3],
            p[4]
        )?;
    }
    Ok(())
}

/// An error in a data file, with its line.
#[derive(Debug)]
pub enum DataError {
    /// Reading failed.
    Io(io::Error),
    /// A line is not `POSITION-ID P1 P2 P3 P4 P5`.
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Io(e) => write!(f, "reading the data: {e}"),
            DataError::Line { line, message } => write!(f, "line {line}: {message}"),
        }
    }
}

impl std::error::Error for DataError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DataError::Io(e) => Some(e),
            DataError::Line { .. } => None,
        }
    }
}

/// Reads samples written by [`write_samples`], appending them to `out`. Blank lines and lines
/// starting with `#` are skipped.
///
/// # Errors
/// [`DataError::Line`] names the first bad line and what is wrong with it.
pub fn read_samples(input: impl BufRead, out: &mut Vec<Sample>) -> Result<(), DataError> {
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(DataError::Io)?;
        let bad = |message: String| DataError::Line {
            line: i + 1,
            message,
        };
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let mut fields = text.split_ascii_whitespace();
        let id = fields.next().unwrap_or_default();
        let position = Position::from_position_id(id)
            .map_err(|e| bad(format!("field 1 (position ID {id:?}): {e}")))?;
        if position.is_game_over() {
            return Err(bad(format!("field 1: position {id} is a finished game")));
        }
        let mut p = [0.0f32; 5];
        for (k, v) in p.iter_mut().enumerate() {
            let f = fields
                .next()
                .ok_or_else(|| bad(format!("{} fields, expected 6", k + 1)))?;
            *v = f
                .parse::<f32>()
                .ok()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| bad(format!("field {}: {f:?} is not a probability", k + 2)))?;
        }
        if fields.next().is_some() {
            return Err(bad("more than 6 fields".to_string()));
        }
        out.push(Sample {
            position,
            target: Probabilities::from_array(p),
        });
    }
    Ok(())
}

/// Losses over a set of samples.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Loss {
    /// Samples measured.
    pub samples: usize,
    /// Mean cross-entropy per output (nats), over the five outputs.
    pub cross_entropy: f64,
    /// Mean absolute difference between the network's money equity and the label's.
    pub equity_mae: f64,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} samples, cross-entropy {:.5}, equity error {:.4}",
            self.samples, self.cross_entropy, self.equity_mae
        )
    }
}

/// The losses of `weights` on `samples` (only those of `only`'s phase when given).
#[must_use]
pub fn loss(weights: &Weights, samples: &[Sample], only: Option<Phase>) -> Loss {
    let mut x = [0.0f32; NUM_INPUTS];
    let mut l = Loss::default();
    for s in samples {
        let ph = phase(&s.position);
        if only.is_some_and(|o| o != ph) {
            continue;
        }
        encode(&s.position, &mut x);
        let y = weights.network(ph).forward(&x);
        let t = s.target.to_array();
        for k in 0..5 {
            let yk = f64::from(y[k]).clamp(1e-7, 1.0 - 1e-7);
            let tk = f64::from(t[k]);
            // Cross-entropy minus the label's own entropy (zero for a perfect fit).
            let ent = |p: f64| {
                if p <= 0.0 || p >= 1.0 {
                    0.0
                } else {
                    -(p * p.ln() + (1.0 - p) * (1.0 - p).ln())
                }
            };
            l.cross_entropy += -(tk * yk.ln() + (1.0 - tk) * (1.0 - yk).ln()) - ent(tk);
        }
        let e = Probabilities::from_array(y).equity() - s.target.equity();
        l.equity_mae += f64::from(e.abs());
        l.samples += 1;
    }
    if l.samples > 0 {
        l.cross_entropy /= 5.0 * l.samples as f64;
        l.equity_mae /= l.samples as f64;
    }
    l
}

/// Stochastic gradient descent over labelled samples.
#[derive(Debug)]
pub struct Fitter {
    rng: ChaCha8Rng,
    order: Vec<usize>,
    output_bias_only: bool,
    average: Option<Average>,
    /// Mini-batch Adam instead of one plain step per sample (see [`Fitter::with_adam`]).
    adam: Option<Batches>,
}

/// Mini-batch Adam: one optimiser state per network (in the order of [`Phase::ALL`]).
#[derive(Debug)]
struct Batches {
    size: usize,
    states: Vec<Adam>,
    /// Samples and pairs since the last step.
    filled: usize,
}

/// An exponential moving average of the weights being fitted (see [`Fitter::with_average`]).
#[derive(Debug)]
struct Average {
    weights: Weights,
    /// Steps between two updates of the average.
    every: usize,
    /// The fraction of the way the average moves at an update.
    beta: f32,
    steps: usize,
}

impl Average {
    /// Counts one gradient step of `current`, updating the average every `every` steps.
    #[inline]
    fn step(&mut self, current: &Weights) {
        self.steps += 1;
        if self.steps % self.every == 0 {
            self.weights.blend_towards(current, self.beta);
        }
    }
}

impl Fitter {
    /// A fitter whose shuffles come from `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Fitter {
        Fitter {
            rng: ChaCha8Rng::seed_from_u64(seed),
            order: Vec::new(),
            output_bias_only: false,
            average: None,
            adam: None,
        }
    }

    /// A fitter that takes Adam steps ([`Adam`]) along the mean gradient of `batch` samples
    /// (and sibling pairs) at a time instead of one plain gradient step per sample; the
    /// learning rate then is Adam's (about 0.001), and a pair's loss counts `rank_alpha /
    /// alpha` times a sample's.
    ///
    /// # Panics
    /// When `batch` is 0 (a programming error).
    #[must_use]
    #[track_caller]
    pub fn with_adam(mut self, weights: &Weights, batch: usize) -> Fitter {
        assert!(batch > 0, "the batch size must be positive");
        self.adam = Some(Batches {
            size: batch,
            states: Phase::ALL
                .iter()
                .map(|&ph| Adam::new(weights.network(ph)))
                .collect(),
            filled: 0,
        });
        self
    }

    /// A fitter that also keeps an exponential moving average of the weights, starting from
    /// `start` (the weights to be fitted), with a time constant of `horizon` gradient steps.
    /// Stochastic gradient descent leaves the weights wherever the last few thousand samples
    /// pushed them; the average ([`Fitter::averaged`]) smooths that noise out.
    ///
    /// # Panics
    /// When `horizon` is 0 (a programming error).
    #[must_use]
    #[track_caller]
    pub fn with_average(mut self, start: &Weights, horizon: usize) -> Fitter {
        assert!(horizon > 0, "the averaging horizon must be positive");
        // Updating every step would cost as much as a gradient step; every 256th (or every
        // step of a short horizon) costs a few per cent and averages the same.
        let every = (horizon / 16).clamp(1, 256);
        self.average = Some(Average {
            weights: start.clone(),
            every,
            beta: (every as f32 / horizon as f32).min(1.0),
            steps: 0,
        });
        self
    }

    /// The moving average of the weights, when the fitter keeps one
    /// ([`Fitter::with_average`]).
    #[must_use]
    pub fn averaged(&self) -> Option<&Weights> {
        self.average.as_ref().map(|a| &a.weights)
    }

    /// A fitter that trains only the output biases of the networks
    /// ([`crate::net::Network::train_output_bias`]): a calibration that shifts each output's
    /// logit to the labels' mean level and leaves what the networks know about positions, and
    /// so their order of plays, nearly as it was. Pair steps are not taken.
    #[must_use]
    pub fn output_bias_only(mut self) -> Fitter {
        self.output_bias_only = true;
        self
    }

    /// One pass over `samples` in a fresh random order: one gradient step of learning rate
    /// `alpha` per sample, in the network of its phase.
    pub fn epoch(&mut self, weights: &mut Weights, samples: &[Sample], alpha: f32) {
        self.epoch_with_pairs(weights, samples, alpha, &[], &[], 0.0);
    }
}

/// Equity weights of the five outputs (win, win gammon, win backgammon, lose gammon, lose
/// backgammon): `equity = 2 win - 1 + wg + wbg - lg - lbg`.
const EQUITY: [f32; NUM_OUTPUTS] = [2.0, 1.0, 1.0, -1.0, -1.0];

/// Whether `a` and `b` (each seen from the side on roll) can be the positions left by two plays
/// of one roll from one position: the mover (the side not on roll) has the same pip count in
/// both and as many checkers off, and the side on roll differs only by blots hit (a point with
/// one checker in one and none in the other, the checker on the bar instead).
#[must_use]
pub fn could_be_siblings(a: &Position, b: &Position) -> bool {
    if a == b || a.opponent_off() != b.opponent_off() || a.off() != b.off() {
        return false;
    }
    if a.pips().1 != b.pips().1 {
        return false;
    }
    let (x, y) = (a.signed_board(), b.signed_board());
    let mut hits = 0i32;
    for p in 1..=24 {
        let (m, n) = (x[p].max(0), y[p].max(0));
        if m != n {
            if m + n != 1 {
                return false;
            }
            hits += i32::from(m) - i32::from(n);
        }
    }
    hits == i32::from(b.bar()) - i32::from(a.bar())
}

/// Pairs of consecutive samples that are siblings ([`could_be_siblings`]) and in the same
/// network: labelling writes the positions of one move one after the other (a random play's,
/// the best few plays'), and with rollout labels they share their dice, so the difference of
/// their labels is measured more precisely than either label.
#[must_use]
pub fn sibling_pairs(samples: &[Sample]) -> Vec<(usize, usize)> {
    samples
        .windows(2)
        .enumerate()
        .filter(|(_, w)| {
            could_be_siblings(&w[0].position, &w[1].position)
                && phase(&w[0].position) == phase(&w[1].position)
        })
        .map(|(i, _)| (i, i + 1))
        .collect()
}

impl Fitter {
    /// Like [`Fitter::epoch`], with gradient steps on `pairs` of `rank_samples` mixed in at
    /// random places: each fits the difference of the two positions' equities to the
    /// difference of their labels (the order of plays a 0-ply choice depends on), at learning
    /// rate `rank_alpha`. The pairs constrain only differences; mixing them with the
    /// cross-entropy steps keeps the values themselves from drifting.
    pub fn epoch_with_pairs(
        &mut self,
        weights: &mut Weights,
        samples: &[Sample],
        alpha: f32,
        rank_samples: &[Sample],
        pairs: &[(usize, usize)],
        rank_alpha: f32,
    ) {
        let pairs = if self.output_bias_only { &[] } else { pairs };
        self.order.clear();
        self.order.extend(0..samples.len() + pairs.len());
        self.order.shuffle(&mut self.rng);
        let mut xa = [0.0f32; NUM_INPUTS];
        let mut xb = [0.0f32; NUM_INPUTS];
        let equity =
            |y: &[f32; NUM_OUTPUTS]| -> f32 { EQUITY.iter().zip(y).map(|(c, v)| c * v).sum() };
        // In Adam mode a pair's loss counts `rank_alpha / alpha` times a sample's.
        let pair_scale = if self.adam.is_some() {
            rank_alpha / alpha
        } else {
            rank_alpha
        };
        for &i in &self.order {
            if i < samples.len() {
                let s = &samples[i];
                encode(&s.position, &mut xa);
                let ph = phase(&s.position);
                let target = s.target.to_array();
                if let Some(batches) = &mut self.adam {
                    let buffer = batches.states[ph as usize].batch_buffer();
                    weights.network(ph).accumulate_descent(&xa, buffer, |y| {
                        std::array::from_fn(|k| target[k] - y[k])
                    });
                } else if self.output_bias_only {
                    weights
                        .network_mut(ph)
                        .train_output_bias(&xa, &target, alpha);
                } else {
                    weights.network_mut(ph).train(&xa, &target, alpha);
                }
            } else {
                let (a, b) = pairs[i - samples.len()];
                let (a, b) = (&rank_samples[a], &rank_samples[b]);
                encode(&a.position, &mut xa);
                encode(&b.position, &mut xb);
                let target = a.target.equity() - b.target.equity();
                let ph = phase(&a.position);
                if let Some(batches) = &mut self.adam {
                    let net = weights.network(ph);
                    let ya = net.forward(&xa);
                    let yb = net.forward(&xb);
                    let err = pair_scale * (equity(&ya) - equity(&yb) - target);
                    let state = &mut batches.states[ph as usize];
                    net.accumulate_descent(&xa, state.batch_buffer(), |ya| {
                        std::array::from_fn(|k| -err * EQUITY[k] * ya[k] * (1.0 - ya[k]))
                    });
                    // The pair counts as one item of the batch, not two.
                    net.accumulate_descent(&xb, state.buffer(), |yb| {
                        std::array::from_fn(|k| err * EQUITY[k] * yb[k] * (1.0 - yb[k]))
                    });
                } else {
                    let net = weights.network_mut(ph);
                    let yb = net.forward(&xb);
                    let mut err = 0.0;
                    net.train_with(&xa, pair_scale, |ya| {
                        err = equity(ya) - equity(&yb) - target;
                        std::array::from_fn(|k| -err * EQUITY[k] * ya[k] * (1.0 - ya[k]))
                    });
                    net.train_with(&xb, pair_scale, |yb| {
                        std::array::from_fn(|k| err * EQUITY[k] * yb[k] * (1.0 - yb[k]))
                    });
                }
            }
            if let Some(batches) = &mut self.adam {
                batches.filled += 1;
                if batches.filled == batches.size {
                    batches.step(weights, alpha);
                }
            }
            if let Some(a) = &mut self.average {
                a.step(weights);
            }
        }
        if let Some(batches) = &mut self.adam {
            batches.step(weights, alpha);
        }
    }
}

impl Batches {
    /// One Adam step of every network with samples in the batch.
    fn step(&mut self, weights: &mut Weights, lr: f32) {
        for (state, ph) in self.states.iter_mut().zip(Phase::ALL) {
            state.step(weights.network_mut(ph), lr);
        }
        self.filled = 0;
    }
}

/// The mean absolute error of the equity differences of `pairs` of `samples` against the
/// differences of their labels.
#[must_use]
pub fn pair_error(weights: &Weights, samples: &[Sample], pairs: &[(usize, usize)]) -> f64 {
    if pairs.is_empty() {
        return 0.0;
    }
    let sum: f64 = pairs
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (&samples[a], &samples[b]);
            let d = weights.evaluate(&a.position).equity() - weights.evaluate(&b.position).equity();
            f64::from((d - (a.target.equity() - b.target.equity())).abs())
        })
        .sum();
    sum / pairs.len() as f64
}

/// Which samples [`split`] holds out: `held[i]` for sample `i` of `n`, with the same `every`
/// and `seed`.
#[must_use]
pub fn held_out(n: usize, every: usize, seed: u64) -> Vec<bool> {
    let mut index: Vec<usize> = (0..n).collect();
    index.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let every = every.max(2);
    let mut held = vec![false; n];
    for (i, &k) in index.iter().enumerate() {
        held[k] = i % every == 0;
    }
    held
}

/// Splits `samples` into training and validation sets: every `every`-th sample (by a seeded
/// shuffle) is held out.
#[must_use]
pub fn split(samples: Vec<Sample>, every: usize, seed: u64) -> (Vec<Sample>, Vec<Sample>) {
    let mut samples = samples;
    samples.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let every = every.max(2);
    let mut train = Vec::with_capacity(samples.len());
    let mut valid = Vec::with_capacity(samples.len() / every + 1);
    for (i, s) in samples.into_iter().enumerate() {
        if i % every == 0 {
            valid.push(s);
        } else {
            train.push(s);
        }
    }
    (train, valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_weights() -> Arc<Weights> {
        Weights::shared_default()
    }

    fn config() -> LabelConfig {
        LabelConfig {
            ply: 0,
            sample: 0.5,
            sample_alternative: 0.5,
            ..LabelConfig::default()
        }
    }

    #[test]
    fn labelling_is_reproducible_and_independent_of_threads() {
        let w = small_weights();
        let make = |w: Arc<Weights>| Search::new(w);
        let a = label_games(&w, &make, &config(), 0, 6, 1, &AtomicU64::new(0));
        let b = label_games(&w, &make, &config(), 0, 6, 3, &AtomicU64::new(0));
        assert!(!a.is_empty());
        assert_eq!(a, b);
        // Games 3..6 alone are the tail of the same data.
        let c = label_games(&w, &make, &config(), 3, 3, 2, &AtomicU64::new(0));
        assert_eq!(&a[a.len() - c.len()..], &c[..]);
    }

    #[test]
    fn pruned_search_labels_do_not_depend_on_threads() {
        // A pruned search lets the full networks see only the plays the small ones rank
        // best among those the cache does not already hold, so a cache carried over from
        // another game could change a label in its last digits.
        let w = small_weights();
        let make = |w: Arc<Weights>| Search::new(w).with_prune(crate::search::Prune::embedded());
        let config = LabelConfig { ply: 1, ..config() };
        let a = label_games(&w, &make, &config, 0, 6, 1, &AtomicU64::new(0));
        let b = label_games(&w, &make, &config, 0, 6, 2, &AtomicU64::new(0));
        assert!(!a.is_empty());
        assert_eq!(a, b);
    }

    #[test]
    fn rollout_labels_are_reproducible_and_played_out() {
        let w = small_weights();
        let make = |w: Arc<Weights>| Search::new(w);
        let config = LabelConfig {
            rollout_games: 2,
            truncate: 4,
            sample_siblings: 0.3,
            ..config()
        };
        let a = label_games(&w, &make, &config, 0, 3, 1, &AtomicU64::new(0));
        let b = label_games(&w, &make, &config, 0, 3, 2, &AtomicU64::new(0));
        assert!(a.len() > 10);
        assert_eq!(a, b);
        // The labels are rollouts, not the networks' own values.
        let differ = a
            .iter()
            .filter(|s| (s.target.equity() - w.evaluate(&s.position).equity()).abs() > 1e-4)
            .count();
        assert!(differ > a.len() / 2, "{differ} of {}", a.len());
        for s in &a {
            let p = s.target;
            assert!(
                (0.0..=1.0).contains(&p.win) && p.win_gammon <= p.win,
                "{p:?}"
            );
        }
    }

    #[test]
    fn deeper_rollout_players_label_the_same_positions_otherwise() {
        let w = small_weights();
        let make = |w: Arc<Weights>| Search::new(w);
        let shallow = LabelConfig {
            rollout_games: 1,
            truncate: 2,
            ..config()
        };
        let deep = LabelConfig {
            rollout_ply: 1,
            ..shallow
        };
        assert_eq!(deep.rollout_config().ply, 1);
        let a = label_games(&w, &make, &shallow, 0, 3, 1, &AtomicU64::new(0));
        let b = label_games(&w, &make, &deep, 0, 3, 2, &AtomicU64::new(0));
        assert!(a.len() > 10);
        // The games, and so the labelled positions, are the same; the rollouts' plays are not.
        assert_eq!(
            a.iter().map(|s| s.position).collect::<Vec<_>>(),
            b.iter().map(|s| s.position).collect::<Vec<_>>()
        );
        let differ = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| x.target != y.target)
            .count();
        assert!(differ > a.len() / 4, "{differ} of {}", a.len());
    }

    #[test]
    fn a_phase_alone_is_the_same_labels_filtered() {
        let w = small_weights();
        let make = |w: Arc<Weights>| Search::new(w);
        let all = label_games(&w, &make, &config(), 0, 8, 2, &AtomicU64::new(0));
        for only in Phase::ALL {
            let config = LabelConfig {
                only: Some(only),
                ..config()
            };
            let some = label_games(&w, &make, &config, 0, 8, 2, &AtomicU64::new(0));
            let want: Vec<Sample> = all
                .iter()
                .filter(|s| phase(&s.position) == only)
                .cloned()
                .collect();
            assert!(!some.is_empty(), "{only:?}");
            assert_eq!(some, want, "{only:?}");
        }
    }

    #[test]
    fn labels_are_the_search_values() {
        let w = small_weights();
        let config = LabelConfig {
            ply: 1,
            sample: 0.1,
            sample_alternative: 0.0,
            ..config()
        };
        let mut search = Search::new(w.clone());
        let samples = label_game(&mut search, &config, 4);
        assert!(samples.len() >= 2);
        let mut fresh = Search::new(w);
        for s in &samples {
            assert!(!s.position.is_game_over());
            assert_eq!(s.target, fresh.evaluate(&s.position, 1));
        }
    }

    /// 0-ply games without exploration that label the three best plays of every move.
    fn siblings_config() -> LabelConfig {
        LabelConfig {
            ply: 0,
            explore: 0.0,
            sample: 0.0,
            sample_alternative: 0.0,
            sample_siblings: 1.0,
            siblings: 3,
            ..LabelConfig::default()
        }
    }

    /// Replays game `game` of `config` as `label_game` plays it with no exploration (the best
    /// play at 0-ply every move), making the configuration's draws in its order, and calls
    /// `each_move` with every move's plays and their 0-ply values.
    fn replay(
        w: &Weights,
        config: &LabelConfig,
        game: u64,
        mut each_move: impl FnMut(&PlayList, &[Probabilities]),
    ) {
        assert_eq!(config.explore, 0.0, "replay follows the best play");
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        rng.set_stream(game);
        let (mut pos, mut plays, mut evals) = (Position::START, PlayList::new(), Vec::new());
        for t in 0.. {
            let roll = loop {
                let r = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                if t > 0 || !r.is_double() {
                    break r;
                }
            };
            let _sample: f32 = rng.gen();
            pos.legal_plays(roll, &mut plays);
            evals.resize(plays.len(), Probabilities::default());
            w.evaluate_plays(plays.positions(), &mut evals);
            let _alternative: f32 = rng.gen();
            let _siblings: f32 = rng.gen();
            each_move(&plays, &evals);
            let _explore: f32 = rng.gen();
            let after = plays.positions()[best_index(&evals)];
            if after.is_game_over() {
                break;
            }
            pos = after.flip();
        }
    }

    #[test]
    fn disputed_siblings_come_from_moves_where_the_search_disagrees() {
        let w = small_weights();
        let config = LabelConfig {
            disputed: 1,
            ..siblings_config()
        };
        let mut disputes = 0;
        for game in 0..4 {
            let mut search = Search::new(w.clone());
            let samples = label_game(&mut search, &config, game);
            // Replay the game and list, move by move, what should have been labelled.
            let mut fresh = Search::new(w.clone());
            let (mut order, mut ranked) = (Vec::new(), Vec::new());
            let mut next = samples.iter();
            replay(&w, &config, game, |plays, evals| {
                by_equity(evals, &mut order);
                if plays.len() < 2 {
                    return;
                }
                let choice = fresh.choose(plays, 1, &mut ranked);
                if choice == order[0] {
                    return;
                }
                disputes += 1;
                let mut expected = vec![choice];
                expected.extend(order.iter().filter(|&&i| i != choice).take(2));
                for i in expected {
                    let after = plays.positions()[i].flip();
                    if !after.is_game_over() {
                        let s = next.next().expect("a label for every disputed sibling");
                        assert_eq!(s.position, after);
                    }
                }
            });
            assert!(next.next().is_none(), "labels only at disputed moves");
        }
        assert!(disputes > 0, "four games without a dispute test nothing");
    }

    #[test]
    fn siblings_are_the_best_plays_of_each_move() {
        let w = small_weights();
        let config = siblings_config();
        let mut search = Search::new(w.clone());
        let samples = label_game(&mut search, &config, 2);
        // Replay the game (no exploration: the best play every move) and compare each move's
        // labelled positions with its three best plays, in order.
        let mut next = samples.iter();
        let mut order = Vec::new();
        replay(&w, &config, 2, |plays, evals| {
            by_equity(evals, &mut order);
            for &i in order.iter().take(3) {
                let expected = plays.positions()[i].flip();
                if expected.is_game_over() {
                    continue;
                }
                let s = next.next().expect("a label for every sibling");
                assert_eq!(s.position, expected);
                assert_eq!(s.target, w.evaluate(&expected));
            }
        });
        assert!(next.next().is_none());
        assert!(samples.len() > 30);
    }

    #[test]
    fn file_round_trip_and_errors_name_the_line() {
        let w = small_weights();
        let mut search = Search::new(w);
        let samples = label_game(&mut search, &config(), 1);
        let mut text = b"# comment\n".to_vec();
        write_samples(&mut text, &samples).unwrap();
        let mut back = Vec::new();
        read_samples(&text[..], &mut back).unwrap();
        assert_eq!(back.len(), samples.len());
        for (a, b) in back.iter().zip(&samples) {
            assert_eq!(a.position, b.position);
            for (x, y) in a.target.to_array().iter().zip(b.target.to_array()) {
                assert!((x - y).abs() < 1e-5);
            }
        }
        let err = read_samples(
            &b"4HPwATDgc/ABMA 0.5 0.1 0 0.1 0\nxyz 1 0 0 0 0\n"[..],
            &mut back,
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("line 2: field 1"), "{err}");
        let err = read_samples(&b"4HPwATDgc/ABMA 0.5 0.1 1.5 0.1 0\n"[..], &mut back).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: field 4: \"1.5\" is not a probability"
        );
        let err = read_samples(&b"4HPwATDgc/ABMA 0.5\n"[..], &mut back).unwrap_err();
        assert_eq!(err.to_string(), "line 1: 2 fields, expected 6");
    }

    /// The samples of ten games labelled by the small test weights.
    fn ten_labelled_games() -> Vec<Sample> {
        let mut search = Search::new(small_weights());
        (0..10)
            .flat_map(|g| label_game(&mut search, &config(), g))
            .collect()
    }

    #[test]
    fn fitting_reduces_the_loss() {
        let samples = ten_labelled_games();
        let mut student = Weights::random(16, 8, 99);
        let before = loss(&student, &samples, None);
        let mut fitter = Fitter::new(1);
        for _ in 0..20 {
            fitter.epoch(&mut student, &samples, 0.05);
        }
        let after = loss(&student, &samples, None);
        assert_eq!(before.samples, samples.len());
        assert!(
            after.cross_entropy < before.cross_entropy * 0.5,
            "{before} -> {after}"
        );
    }

    #[test]
    fn adam_batches_reduce_the_loss_and_fit_the_pairs() {
        let samples = ten_labelled_games();
        let pairs = sibling_pairs(&samples);
        assert!(!pairs.is_empty());
        let mut student = Weights::random(16, 8, 99);
        let before = loss(&student, &samples, None);
        let pairs_before = pair_error(&student, &samples, &pairs);
        let mut fitter = Fitter::new(1).with_adam(&student, 16);
        for _ in 0..20 {
            fitter.epoch_with_pairs(&mut student, &samples, 0.01, &samples, &pairs, 0.02);
        }
        let after = loss(&student, &samples, None);
        let pairs_after = pair_error(&student, &samples, &pairs);
        assert!(
            after.cross_entropy < before.cross_entropy * 0.5,
            "{before} -> {after}"
        );
        assert!(
            pairs_after < pairs_before * 0.8,
            "{pairs_before} -> {pairs_after}"
        );
    }

    #[test]
    fn the_average_of_the_weights_follows_the_fit() {
        let samples = ten_labelled_games();
        let start = Weights::random(16, 8, 99);
        let mut student = start.clone();
        let mut fitter = Fitter::new(1).with_average(&student, 64);
        for _ in 0..20 {
            fitter.epoch(&mut student, &samples, 0.05);
        }
        let averaged = fitter.averaged().expect("an average is kept");
        assert_ne!(averaged, &student);
        assert_ne!(averaged, &start);
        let before = loss(&start, &samples, None);
        let after = loss(averaged, &samples, None);
        assert!(
            after.cross_entropy < before.cross_entropy * 0.5,
            "{before} -> {after}"
        );
        // Without an average there is none to read.
        assert!(Fitter::new(1).averaged().is_none());
    }

    #[test]
    fn blending_moves_each_weight_a_fraction_of_the_way() {
        let a = Weights::random(16, 8, 1);
        let b = Weights::random(16, 8, 2);
        let mut c = a.clone();
        c.blend_towards(&b, 0.0);
        assert_eq!(c, a);
        let mut m = a.clone();
        m.blend_towards(&b, 0.25);
        let (x, y, z) = (
            &a.networks()[0].w1,
            &b.networks()[0].w1,
            &m.networks()[0].w1,
        );
        for i in 0..x.len() {
            assert!((z[i] - (x[i] + 0.25 * (y[i] - x[i]))).abs() < 1e-6);
        }
    }

    #[test]
    fn output_bias_calibration_moves_only_the_output_biases() {
        // Labels leaning 0.1 towards the side on roll: a calibration takes the network's
        // win output towards them and changes no other weight.
        let teacher = small_weights();
        let mut search = Search::new(teacher.clone());
        let mut samples = Vec::new();
        for g in 0..6 {
            samples.extend(label_game(&mut search, &config(), g));
        }
        for s in &mut samples {
            let mut t = s.target.to_array();
            t[0] = (t[0] + 0.1).min(1.0);
            s.target = Probabilities::from_array(t);
        }
        let mut w = (*teacher).clone();
        let before = loss(&w, &samples, None);
        let mut fitter = Fitter::new(1).output_bias_only();
        for _ in 0..5 {
            fitter.epoch(&mut w, &samples, 0.05);
        }
        let after = loss(&w, &samples, None);
        assert!(
            after.cross_entropy < before.cross_entropy,
            "{before} -> {after}"
        );
        for phase in Phase::ALL {
            let (a, b) = (teacher.network(phase), w.network(phase));
            assert_eq!((&a.w1, &a.b1, &a.w2), (&b.w1, &b.b1, &b.w2));
        }
        let c = (teacher.network(Phase::Contact), w.network(Phase::Contact));
        assert!(c.1.b2[0] > c.0.b2[0], "the win logit rises");
    }

    #[test]
    fn split_holds_out_every_nth() {
        let s = Sample {
            position: Position::START,
            target: Probabilities::default(),
        };
        let (train, valid) = split(vec![s; 100], 10, 1);
        assert_eq!((train.len(), valid.len()), (90, 10));
        // held_out names the same samples: mark each by its win probability.
        let marked: Vec<Sample> = (0..100)
            .map(|i| Sample {
                position: Position::START,
                target: Probabilities {
                    win: i as f32 / 100.0,
                    ..Probabilities::default()
                },
            })
            .collect();
        let held = held_out(100, 10, 1);
        let (_, valid) = split(marked, 10, 1);
        let mut want: Vec<usize> = (0..100).filter(|&i| held[i]).collect();
        let mut got: Vec<usize> = valid
            .iter()
            .map(|s| (s.target.win * 100.0).round() as usize)
            .collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn siblings_are_recognised() {
        // Every two plays of one roll leave siblings, hits included (the blot on the 5-point
        // is hit by 6/5* with a 1).
        let pos = Position::from_position_id("4HPwATDgc/ABMA").unwrap();
        let mut b = *pos.signed_board();
        b[5] = 0;
        b[6] -= 1;
        b[20] = 1;
        b[24] -= 1;
        let blots = Position::try_from(b).unwrap();
        let mut plays = PlayList::new();
        for (p, roll) in [
            (pos, Roll::from_values(3, 1)),
            (blots.flip(), Roll::from_values(6, 1)),
        ] {
            p.legal_plays(roll, &mut plays);
            let after: Vec<Position> = plays.positions().iter().map(|a| a.flip()).collect();
            assert!(after.len() > 5);
            for x in &after {
                for y in &after {
                    assert_eq!(could_be_siblings(x, y), x != y, "{x:?} {y:?}");
                }
            }
            // The position before the roll is not a sibling of those after it.
            assert!(!could_be_siblings(&p, &after[0]));
        }
        // Another roll moves other pips.
        pos.legal_plays(Roll::from_values(4, 2), &mut plays);
        let a = plays.positions()[0].flip();
        pos.legal_plays(Roll::from_values(5, 2), &mut plays);
        assert!(!could_be_siblings(&a, &plays.positions()[0].flip()));
    }

    #[test]
    fn pair_steps_fit_the_differences_of_siblings() {
        // Siblings labelled by the default networks; a small random network learns their
        // differences from the pair steps alone.
        let config = LabelConfig {
            ply: 0,
            sample: 0.0,
            sample_alternative: 0.0,
            sample_siblings: 1.0,
            siblings: 4,
            ..LabelConfig::default()
        };
        let mut search = Search::new(small_weights());
        let mut samples = Vec::new();
        for g in 0..4 {
            samples.extend(label_game(&mut search, &config, g));
        }
        let pairs = sibling_pairs(&samples);
        assert!(pairs.len() * 2 > samples.len(), "{} pairs", pairs.len());
        let mut student = Weights::random(16, 8, 5);
        let before = pair_error(&student, &samples, &pairs);
        let mut fitter = Fitter::new(3);
        for _ in 0..100 {
            fitter.epoch_with_pairs(&mut student, &[], 0.0, &samples, &pairs, 0.1);
        }
        let after = pair_error(&student, &samples, &pairs);
        assert!(after < before * 0.75, "{before} -> {after}");
    }
}
