//! `tavla train label` and `tavla train fit`: supervised training of the networks on positions
//! labelled by tavla's own deeper search (see `tavla_nn::supervised`).

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use flate2::bufread::MultiGzDecoder;
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tavla_nn::bearoff::BearoffRace;
use tavla_nn::inputs::{phase, Phase};
use tavla_nn::search::{Prune, MAX_PLY};
use tavla_nn::supervised::{self, Fitter, LabelConfig, Sample};
use tavla_nn::{Search, Weights, MAX_HIDDEN, MAX_SECOND};

use crate::input::InputError;
use crate::nn_cmd::PruneArgs;

/// The most games in a chunk of `train label` (a chunk's labels are held together until it
/// is written).
const MAX_CHUNK: u64 = 1_000_000;

/// The most rollout games for one position's label.
const MAX_ROLLOUT_GAMES: u32 = 1_000_000;

/// `tavla train label`.
#[derive(Debug, Args)]
pub struct LabelArgs {
    /// Data file: one labelled position per line. An existing file from the same settings is
    /// resumed after its last complete chunk.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Self-play games to draw positions from, in all (counting earlier sittings).
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub games: u64,
    /// Search depth of the labels, 0 to 3.
    #[arg(long, default_value_t = 2)]
    pub ply: u8,
    /// Seed of the dice and of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Networks that play the games and label the positions; default: the embedded weights.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Probability that a move is one of the best --top plays at random instead of the best.
    #[arg(long, default_value_t = 0.1)]
    pub explore: f32,
    /// Plays the exploration chooses among.
    #[arg(long, default_value_t = 4)]
    pub top: usize,
    /// Probability that a position of the games is labelled.
    #[arg(long, default_value_t = 0.2)]
    pub sample: f32,
    /// Probability that at a move the position left by a random legal play is labelled too.
    #[arg(long, default_value_t = 0.1)]
    pub sample_alternative: f32,
    /// Probability that at a move the positions left by the best --siblings plays (at 0-ply)
    /// are labelled too.
    #[arg(long, default_value_t = 0.0)]
    pub sample_siblings: f32,
    /// Plays labelled when a move's siblings are.
    #[arg(long, default_value_t = 5)]
    pub siblings: usize,
    /// Label the siblings of disputed decisions only: a move drawn by --sample-siblings has
    /// them labelled only when the search at this ply (1 to 3, pruned as --keep says) chooses
    /// another play than 0-ply does; the search's choice comes first, then the 0-ply best and
    /// the next 0-ply plays up to --siblings.
    #[arg(long, value_name = "PLY")]
    pub disputed: Option<u8>,
    /// Label by luck-adjusted rollouts of N games each (players at --rollout-ply, truncated
    /// after --truncate plays) instead of the --ply search; the positions labelled at one move
    /// share dice.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub rollout_games: u32,
    /// Depth at which both sides choose their plays in the --rollout-games rollouts, 0 to 3
    /// (pruned as --keep says): deeper players play better and cost more (one-game 1-ply
    /// rollouts of contact positions come at about half the 0-ply rate).
    #[arg(long, default_value_t = 0, value_name = "PLY")]
    pub rollout_ply: u8,
    /// Plays per rollout game before the 0-ply networks value the position reached (0: play
    /// to the end).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub truncate: u32,
    /// Truncate every second rollout game one play later, so that half the games end on each
    /// side's play and the last mover's advantage in the value reached cancels.
    #[arg(long)]
    pub balance_parity: bool,
    /// Race values from the bearoff databases (exact two-sided 6 x 8, one-sided 6 x 15) in the
    /// search and the rollouts.
    #[arg(long)]
    pub bearoff: bool,
    /// Worker threads; 0 for one per core.
    #[arg(long, default_value_t = 0, value_parser = crate::input::threads_arg)]
    pub threads: usize,
    /// Games per chunk (the data are written, and can be resumed, chunk by chunk).
    #[arg(long, default_value_t = 100)]
    pub chunk: u64,
    /// Stop after this many seconds, at the end of a chunk (the run can be resumed).
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<u64>,
    /// Label only the positions of this phase (contact, crashed or race): the same games and
    /// the same labels as without it, filtered, at a fraction of the search time.
    #[arg(long, value_parser = parse_phase)]
    pub phase: Option<Phase>,
    /// Pruned inner move choices in the labelling search.
    #[command(flatten)]
    pub prune: PruneArgs,
}

const CHUNK_MARK: &str = "# games ";

/// The bearoff databases when `bearoff` (`--bearoff`) asks for them, all loaded before the
/// labels are made: labels are kept, so one that could not be had ends the run rather than
/// leaving its races to the networks.
pub(crate) fn bearoff_databases(bearoff: bool) -> Result<Option<Arc<BearoffRace>>> {
    if !bearoff {
        return Ok(None);
    }
    let db = crate::players::shared_bearoff();
    db.preload();
    if db.loaded() != [true; 3] {
        anyhow::bail!(
            "--bearoff: the bearoff databases could not all be loaded or built (see the \
             warning above)"
        );
    }
    Ok(Some(db))
}

/// A search of `weights` that labels positions: races from `exact` and inner choices pruned
/// by `prune` when given.
pub(crate) fn labelling_search(
    weights: Arc<Weights>,
    exact: Option<&Arc<BearoffRace>>,
    prune: Option<&Prune>,
) -> Search {
    let mut s = Search::new(weights);
    if let Some(e) = exact {
        s = s.with_bearoff(e.clone());
    }
    if let Some(p) = prune {
        s = s.with_prune(p.clone());
    }
    s
}

/// The header line that identifies a labelling run's settings.
fn header(args: &LabelArgs, weights: &Weights, prune: Option<&Prune>) -> String {
    let hash = tavla_nn::inputs::fnv1a(&weights.to_bytes());
    // Written only when used, so the headers of files made before these options stay the same.
    let mut extra = String::new();
    if args.sample_siblings > 0.0 {
        extra += &format!(
            " sample-siblings {} siblings {}",
            args.sample_siblings, args.siblings
        );
    }
    if let Some(d) = args.disputed {
        extra += &format!(" disputed {d}");
    }
    if args.rollout_games > 0 {
        extra += &format!(
            " rollout-games {} truncate {}",
            args.rollout_games, args.truncate
        );
        if args.balance_parity {
            extra += " balance-parity";
        }
        if args.rollout_ply > 0 {
            extra += &format!(" rollout-ply {}", args.rollout_ply);
        }
    }
    if let Some(only) = args.phase {
        extra += &format!(" phase {}", only.name());
    }
    if let Some(p) = prune {
        let hash = tavla_nn::inputs::fnv1a(&p.weights.to_bytes());
        extra += &format!(" prune {hash:016x} keep {}", p.keep);
    }
    format!(
        "# tavla train label: seed {} ply {} explore {} top {} sample {} sample-alternative {} \
         bearoff {} weights {hash:016x}{extra}",
        args.seed,
        args.ply,
        args.explore,
        args.top,
        args.sample,
        args.sample_alternative,
        args.bearoff
    )
}

/// Reads an existing data file: its header and the games of its last complete chunk; cuts off a
/// partly written chunk after it.
fn resume_point(args: &LabelArgs, header: &str) -> Result<u64> {
    let out = args.out.display();
    let file = match File::open(&args.out) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("opening {out}")),
    };
    let mut reader = BufReader::new(file);
    let mut line = String::new();
    let mut offset = 0u64;
    let mut games = 0u64;
    let mut keep = 0u64;
    let mut first = true;
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .with_context(|| format!("reading {out}"))?;
        if n == 0 {
            break;
        }
        offset += n as u64;
        let text = line.trim_end();
        if first {
            if text != header {
                return Err(InputError(format!(
                    "{out} was written with other settings:\n  {text}\nnot\n  {header}\n\
                     (choose another --out or the same settings)"
                ))
                .into());
            }
            keep = offset;
            first = false;
        } else if let Some(n) = text.strip_prefix(CHUNK_MARK) {
            games = n
                .parse()
                .map_err(|_| InputError(format!("bad chunk line {text:?} in {out}")))?;
            keep = offset;
        }
    }
    if first {
        return Ok(0);
    }
    let f = OpenOptions::new()
        .write(true)
        .open(&args.out)
        .with_context(|| format!("opening {out}"))?;
    f.set_len(keep)
        .with_context(|| format!("truncating {out}"))?;
    Ok(games)
}

/// Runs `tavla train label`.
pub fn label(args: &LabelArgs) -> Result<()> {
    crate::nn_cmd::check_ply(args.ply)?;
    for (name, p) in [
        ("--explore", args.explore),
        ("--sample", args.sample),
        ("--sample-alternative", args.sample_alternative),
        ("--sample-siblings", args.sample_siblings),
    ] {
        if !(0.0..=1.0).contains(&p) {
            return Err(InputError(format!("{name} must be in 0..=1, got {p}")).into());
        }
    }
    if args.chunk == 0 || args.top == 0 || args.siblings == 0 {
        return Err(InputError("--chunk, --top and --siblings must be positive".into()).into());
    }
    // A chunk's games are held in memory together, and a label's rollout is counted in u32.
    if args.chunk > MAX_CHUNK {
        return Err(InputError(format!(
            "--chunk must be at most {MAX_CHUNK} games, got {}",
            args.chunk
        ))
        .into());
    }
    if args.rollout_games > MAX_ROLLOUT_GAMES {
        return Err(InputError(format!(
            "--rollout-games must be at most {MAX_ROLLOUT_GAMES} a position, got {}",
            args.rollout_games
        ))
        .into());
    }
    crate::input::output_file("--out", &args.out)?;
    if args.truncate > 0 && args.rollout_games == 0 {
        return Err(
            InputError("--truncate applies to rollout labels: add --rollout-games".into()).into(),
        );
    }
    if args.rollout_ply > 0 && args.rollout_games == 0 {
        return Err(InputError(
            "--rollout-ply is the depth of the rollouts' players: add --rollout-games".into(),
        )
        .into());
    }
    crate::nn_cmd::check_depth("--rollout-ply", args.rollout_ply)?;
    if args.balance_parity && args.truncate == 0 {
        return Err(InputError(
            "--balance-parity applies to truncated rollouts: add --truncate".into(),
        )
        .into());
    }
    if let Some(d) = args.disputed {
        if !(1..=MAX_PLY).contains(&d) {
            return Err(InputError(format!("--disputed must be in 1..={MAX_PLY}, got {d}")).into());
        }
        if args.sample_siblings == 0.0 {
            return Err(InputError(
                "--disputed chooses which siblings are labelled: add --sample-siblings".into(),
            )
            .into());
        }
    }
    let weights = Arc::new(Weights::load_or_default(args.weights.as_deref()).context("--weights")?);
    let exact = bearoff_databases(args.bearoff)?;
    // Pruning changes only labels of the search (not 0-ply labels), the disputed decisions
    // and the rollout players, and only those record it.
    // Read whether used or not: a file that cannot be read is refused, not passed over.
    let loaded = args.prune.load()?;
    let prune = if (args.ply >= 1 && args.rollout_games == 0)
        || args.disputed.is_some()
        || args.rollout_games > 0
    {
        loaded
    } else {
        None
    };
    let header = header(args, &weights, prune.as_ref());
    let make_search = move |w: Arc<Weights>| labelling_search(w, exact.as_ref(), prune.as_ref());
    let mut done = resume_point(args, &header)?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .with_context(|| format!("opening {}", args.out.display()))?;
    if done == 0 && file.metadata()?.len() == 0 {
        writeln!(file, "{header}")?;
    } else {
        eprintln!("resuming {} after game {done}", args.out.display());
    }
    let config = LabelConfig {
        seed: args.seed,
        ply: args.ply,
        explore: args.explore,
        top: args.top,
        sample: args.sample,
        sample_alternative: args.sample_alternative,
        sample_siblings: args.sample_siblings,
        siblings: args.siblings,
        disputed: args.disputed.unwrap_or(0),
        rollout_games: args.rollout_games,
        rollout_ply: args.rollout_ply,
        truncate: args.truncate,
        balance_parity: args.balance_parity,
        only: args.phase,
    };
    let threads = crate::input::threads(args.threads);
    let bar = ProgressBar::new(args.games.saturating_sub(done)).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} {wide_bar} {pos}/{len} games ({per_sec}, {eta} left) {msg}",
        )
        .expect("a valid template"),
    );
    let start = Instant::now();
    let base = done;
    let mut written = 0u64;
    while done < args.games {
        if args
            .time_limit
            .is_some_and(|t| start.elapsed() >= Duration::from_secs(t))
        {
            break;
        }
        let count = args.chunk.min(args.games - done);
        let progress = AtomicU64::new(0);
        let samples = std::thread::scope(|s| {
            let job = s.spawn(|| {
                supervised::label_games(
                    &weights,
                    &make_search,
                    &config,
                    done,
                    count,
                    threads,
                    &progress,
                )
            });
            while !job.is_finished() {
                std::thread::sleep(Duration::from_millis(200));
                bar.set_position(done - base + progress.load(Ordering::Relaxed));
            }
            job.join().expect("the labelling job panicked")
        });
        let mut w = BufWriter::new(&mut file);
        supervised::write_samples(&mut w, &samples)?;
        done += count;
        writeln!(w, "{CHUNK_MARK}{done}")?;
        w.flush()?;
        written += samples.len() as u64;
        bar.set_position(done - base);
        bar.set_message(format!("{written} positions"));
    }
    bar.finish_and_clear();
    let by = if args.rollout_games > 0 {
        format!(
            "by rollouts of {} games of {}-ply players truncated after {} plays",
            args.rollout_games,
            args.rollout_ply,
            config.rollout_config().truncation_words()
        )
    } else {
        format!("at {}-ply", args.ply)
    };
    eprintln!(
        "{written} positions from {} games labelled {by} in {:.0} s; {} has games 0..{done}",
        done - base,
        start.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// `tavla train fit`.
#[derive(Debug, Args)]
pub struct FitArgs {
    /// Data files written by `tavla train label`, plain or compressed with gzip.
    #[arg(long = "data", value_name = "FILE", required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Where to write the weights with the best validation loss.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Weights to start from; default: the embedded weights (with --fresh: of the networks
    /// other than --phase's).
    #[arg(long, value_name = "FILE")]
    pub init: Option<PathBuf>,
    /// Start the fitted networks (all, or --phase's alone) from random weights of
    /// --contact-hidden, --crashed-hidden and --race-hidden units (and --second-hidden); with
    /// --phase the other networks come from --init or the embedded weights.
    #[arg(long)]
    pub fresh: bool,
    /// With --fresh: a second hidden layer of this many units in the fresh contact and crashed
    /// networks (0, the default: one hidden layer).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "fresh")]
    pub second_hidden: usize,
    /// Hidden units of the contact network: of fresh weights (default 128), or more than the
    /// starting weights have, to grow them (by splitting units, see `Network::grown`).
    #[arg(long)]
    pub contact_hidden: Option<usize>,
    /// Hidden units of the crashed network, likewise (default: as the contact network).
    #[arg(long)]
    pub crashed_hidden: Option<usize>,
    /// Hidden units of the race network, likewise (default 64 with --fresh).
    #[arg(long)]
    pub race_hidden: Option<usize>,
    /// Fit only the network of this phase (contact, crashed or race): the samples of the other
    /// phases are left out, and the other networks are written back unchanged.
    #[arg(long, value_parser = parse_phase)]
    pub phase: Option<Phase>,
    /// Start the --phase network as a copy of this phase's network of the starting weights
    /// (how the crashed network was split off the contact network).
    #[arg(long, value_parser = parse_phase, value_name = "PHASE", requires = "phase", conflicts_with = "fresh")]
    pub copy_from: Option<Phase>,
    /// Passes over the training data.
    #[arg(long, default_value_t = 10)]
    pub epochs: u32,
    /// Learning rate of the first epoch.
    #[arg(long, default_value_t = 0.01)]
    pub alpha: f32,
    /// Factor applied to the learning rate after each epoch.
    #[arg(long, default_value_t = 0.8)]
    pub decay: f32,
    /// Hold out every N-th sample (after a seeded shuffle) for validation.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub holdout: usize,
    /// Seed of the shuffles (and of fresh weights).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also fit the pairs of sibling positions in the data (left by two plays of one roll,
    /// written one after the other): one step per pair and epoch, mixed among the others,
    /// fitting the difference of their equities to the difference of their labels, at this
    /// multiple of the learning rate. The weights written are then those with the least error
    /// on the held-out pairs. 0: no pair steps.
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    pub rank_weight: f32,
    /// Calibrate: fit only the five output biases of each network (a shift of each output's
    /// logit), leaving every other weight as it is. Corrects a lean of the values towards one
    /// side (docs/neural.md) and keeps the order of plays nearly as it was.
    #[arg(long, conflicts_with = "rank_weight")]
    pub output_bias_only: bool,
    /// Validate and write an exponential moving average of the weights, with a time constant
    /// of N gradient steps, instead of the weights as the last step left them: it smooths out
    /// the noise of stochastic gradient descent. 0: no average.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub average: usize,
    /// Take Adam steps along the mean gradient of N samples (and sibling pairs) at a time
    /// instead of one plain gradient step per sample; --alpha is then Adam's learning rate
    /// (about 0.001). 0: plain steps.
    #[arg(
        long,
        default_value_t = 0,
        value_name = "N",
        conflicts_with = "output_bias_only"
    )]
    pub adam_batch: usize,
    /// Which weights are written: those of the epoch (or the start) with the least validation
    /// cross-entropy (`loss`), with the least error of the held-out sibling pairs (`pairs`,
    /// needs --rank-weight), or the last epoch's (`last`). Default: `pairs` with
    /// --rank-weight, else `loss`. A fit that moves the values' level (labels shifted towards
    /// rollouts) may leave the sibling error where it started; `loss` then keeps its progress.
    #[arg(long, value_enum, value_name = "CRITERION")]
    pub select: Option<Select>,
}

/// The criterion by which `train fit` picks the weights it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Select {
    /// The least validation cross-entropy.
    Loss,
    /// The least error of the held-out sibling pairs' equity differences.
    Pairs,
    /// The weights of the last epoch.
    Last,
}

/// A data file for reading, decompressed when it starts with gzip's magic bytes (whatever its
/// name), as the label bank in `data/labels` is kept.
pub(crate) fn open_data(path: &std::path::Path) -> Result<Box<dyn BufRead>> {
    let f = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut reader = BufReader::new(f);
    let gzip = reader
        .fill_buf()
        .with_context(|| format!("reading {}", path.display()))?
        .starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        Box::new(BufReader::new(MultiGzDecoder::new(reader)))
    } else {
        Box::new(reader)
    })
}

/// Runs `tavla train fit`.
pub fn fit(args: &FitArgs, out: &mut impl Write) -> Result<()> {
    for (name, x) in [("--alpha", args.alpha), ("--decay", args.decay)] {
        if !(x > 0.0 && x.is_finite()) {
            return Err(InputError(format!("{name} must be positive, got {x}")).into());
        }
    }
    if args.decay > 1.0 {
        return Err(InputError(format!(
            "--decay must be at most 1 (the learning rate is multiplied by it each epoch), got {}",
            args.decay
        ))
        .into());
    }
    if !(args.rank_weight >= 0.0 && args.rank_weight.is_finite()) {
        return Err(InputError(format!(
            "--rank-weight must be 0 or positive, got {}",
            args.rank_weight
        ))
        .into());
    }
    if args.holdout < 2 {
        return Err(InputError(format!(
            "--holdout must be at least 2, got {}",
            args.holdout
        ))
        .into());
    }
    for (name, h) in [
        ("--contact-hidden", args.contact_hidden),
        ("--crashed-hidden", args.crashed_hidden),
        ("--race-hidden", args.race_hidden),
    ] {
        if let Some(h) = h.filter(|h| !(1..=MAX_HIDDEN).contains(h)) {
            return Err(InputError(format!("{name} must be in 1..={MAX_HIDDEN}, got {h}")).into());
        }
    }
    // With --phase the other networks are written back unchanged: a size for one of them
    // would be ignored (or, grown, would change it).
    if let Some(only) = args.phase {
        for (name, phase, h) in [
            ("--contact-hidden", Phase::Contact, args.contact_hidden),
            ("--crashed-hidden", Phase::Crashed, args.crashed_hidden),
            ("--race-hidden", Phase::Race, args.race_hidden),
        ] {
            if h.is_some() && phase != only {
                return Err(InputError(format!(
                    "{name}: with --phase {} only the {} network is fitted, and the {} \
                     network is written back unchanged",
                    only.name(),
                    only.name(),
                    phase.name()
                ))
                .into());
            }
        }
    }
    if args.second_hidden > MAX_SECOND {
        return Err(InputError(format!(
            "--second-hidden must be at most {MAX_SECOND}, got {}",
            args.second_hidden
        ))
        .into());
    }
    if args.fresh && args.phase.is_none() && args.init.is_some() {
        return Err(InputError(
            "--init with --fresh needs --phase: without it every network starts fresh".into(),
        )
        .into());
    }
    if args.second_hidden > 0 && args.phase == Some(Phase::Race) {
        return Err(InputError(
            "--second-hidden applies to the contact and crashed networks, not --phase race".into(),
        )
        .into());
    }
    crate::input::output_file("--out", &args.out)?;
    let mut samples: Vec<Sample> = Vec::new();
    for path in &args.data {
        supervised::read_samples(open_data(path).context("--data")?, &mut samples)
            .map_err(|e| InputError(format!("{}: {e}", path.display())))?;
    }
    // Counted after the phase filter: a phase the data lack would fit nothing.
    let of_phase = match args.phase {
        Some(only) => {
            samples.retain(|s| phase(&s.position) == only);
            format!(" of the {} phase", only.name())
        }
        None => String::new(),
    };
    if samples.is_empty() && args.phase.is_some() {
        return Err(InputError(format!("no samples{of_phase} in the data; nothing to fit")).into());
    }
    if samples.len() < args.holdout {
        return Err(InputError(format!(
            "only {} samples{of_phase} in the data, fewer than --holdout {} (one in {} is held \
             out for validation); too few to train",
            samples.len(),
            args.holdout,
            args.holdout
        ))
        .into());
    }
    if let Some(only) = args.phase {
        writeln!(out, "fitting the {} network alone", only.name())?;
    }
    let mut weights = if args.fresh {
        let contact = args.contact_hidden.unwrap_or(128);
        let crashed = args.crashed_hidden.unwrap_or(contact);
        let second = args.second_hidden;
        let fresh = Weights::random_deep(
            [
                (contact, second),
                (crashed, second),
                (args.race_hidden.unwrap_or(64), 0),
            ],
            args.seed,
        );
        match args.phase {
            None => fresh,
            Some(only) => {
                let mut w = Weights::load_or_default(args.init.as_deref()).context("--init")?;
                *w.network_mut(only) = fresh.network(only).clone();
                w
            }
        }
    } else {
        let mut w = Weights::load_or_default(args.init.as_deref()).context("--init")?;
        if let (Some(from), Some(to)) = (args.copy_from, args.phase) {
            *w.network_mut(to) = w.network(from).clone();
            writeln!(
                out,
                "the {} network starts as a copy of the {} network",
                to.name(),
                from.name()
            )?;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
        for (phase, h) in [
            (Phase::Contact, args.contact_hidden),
            (Phase::Crashed, args.crashed_hidden),
            (Phase::Race, args.race_hidden),
        ] {
            let net = w.network_mut(phase);
            match h {
                Some(h) if h < net.hidden() => {
                    return Err(InputError(format!(
                        "the starting {} network has {} hidden units; it can grow, not \
                         shrink to {h}",
                        phase.name(),
                        net.hidden()
                    ))
                    .into())
                }
                Some(h) => *net = net.grown(h, &mut rng),
                None => {}
            }
        }
        w
    };
    let mut select = args.select.unwrap_or(if args.rank_weight > 0.0 {
        Select::Pairs
    } else {
        Select::Loss
    });
    if select == Select::Pairs && args.rank_weight <= 0.0 {
        return Err(InputError("--select pairs needs --rank-weight above 0".into()).into());
    }
    // The sibling pairs, copied out before the split reorders the samples: those with both
    // samples in the training set train, those with a held-out sample validate.
    let mut rank_samples = Vec::new();
    let mut valid_rank_samples = Vec::new();
    if args.rank_weight > 0.0 {
        let held = supervised::held_out(samples.len(), args.holdout, args.seed);
        for (a, b) in supervised::sibling_pairs(&samples) {
            let to = if held[a] || held[b] {
                &mut valid_rank_samples
            } else {
                &mut rank_samples
            };
            to.push(samples[a]);
            to.push(samples[b]);
        }
    }
    let pairs_of = |v: &[Sample]| -> Vec<(usize, usize)> {
        (0..v.len() / 2).map(|k| (2 * k, 2 * k + 1)).collect()
    };
    let rank_pairs = pairs_of(&rank_samples);
    let valid_rank_pairs = pairs_of(&valid_rank_samples);
    let mut fell_back = false;
    if select == Select::Pairs && valid_rank_pairs.is_empty() {
        // The error over no pairs is 0 at the start and never beaten: the starting weights
        // would be written whatever the epochs did.
        if args.select == Some(Select::Pairs) {
            return Err(InputError(format!(
                "--select pairs: none of the {} pairs of sibling positions in the data is held \
                 out for validation; choose --select loss or last, or a smaller --holdout",
                rank_pairs.len()
            ))
            .into());
        }
        select = Select::Loss;
        fell_back = true;
    }
    let (train, valid) = supervised::split(samples, args.holdout, args.seed);
    // The criterion that picks the weights written (--select): the validation cross-entropy,
    // or the error of the validation sibling pairs' equity differences.
    let report = |w: &Weights, epoch: String, out: &mut dyn Write| -> Result<f64> {
        let all = supervised::loss(w, &valid, None);
        let by_phase = Phase::ALL.map(|ph| (ph.name(), supervised::loss(w, &valid, Some(ph))));
        let list = |f: &dyn Fn(&supervised::Loss) -> String| {
            by_phase
                .iter()
                .map(|(name, l)| match l.samples {
                    0 => format!("{name} none"),
                    _ => format!("{name} {}", f(l)),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(
            out,
            "{epoch}: validation cross-entropy {:.5} ({}), equity error {:.4} ({})",
            all.cross_entropy,
            list(&|l| format!("{:.5}", l.cross_entropy)),
            all.equity_mae,
            list(&|l| format!("{:.4}", l.equity_mae)),
        )?;
        let mut criterion = all.cross_entropy;
        if args.rank_weight > 0.0 {
            let e = supervised::pair_error(w, &valid_rank_samples, &valid_rank_pairs);
            write!(out, ", sibling difference error {e:.4}")?;
            if select == Select::Pairs {
                criterion = e;
            }
        }
        writeln!(out)?;
        out.flush()?;
        Ok(criterion)
    };
    writeln!(
        out,
        "{} training and {} validation samples",
        train.len(),
        valid.len()
    )?;
    if args.rank_weight > 0.0 {
        writeln!(
            out,
            "{} pairs of sibling positions train, {} validate",
            rank_pairs.len(),
            valid_rank_pairs.len()
        )?;
        if fell_back {
            writeln!(
                out,
                "no pair is held out to select the weights by: those of the least validation \
                 cross-entropy are written (--select loss)"
            )?;
        }
    }
    let mut best = report(&weights, "start".into(), out)?;
    weights.save(&args.out)?;
    let mut fitter = Fitter::new(args.seed);
    if args.output_bias_only {
        fitter = fitter.output_bias_only();
    }
    if args.average > 0 {
        fitter = fitter.with_average(&weights, args.average);
    }
    if args.adam_batch > 0 {
        fitter = fitter.with_adam(&weights, args.adam_batch);
    }
    let mut alpha = args.alpha;
    let bar = ProgressBar::new(u64::from(args.epochs)).with_style(
        ProgressStyle::with_template("{elapsed_precise} {wide_bar} epoch {pos}/{len} ({eta} left)")
            .expect("a valid template"),
    );
    for epoch in 1..=args.epochs {
        fitter.epoch_with_pairs(
            &mut weights,
            &train,
            alpha,
            &rank_samples,
            &rank_pairs,
            alpha * args.rank_weight,
        );
        bar.inc(1);
        let (fitted, kind) = match fitter.averaged() {
            Some(average) => (average, ", averaged"),
            None => (&weights, ""),
        };
        let v = bar.suspend(|| {
            report(
                fitted,
                format!("epoch {epoch} (alpha {alpha:.5}{kind})"),
                out,
            )
        })?;
        if v < best || select == Select::Last {
            best = v;
            fitted.save(&args.out)?;
        }
        alpha *= args.decay;
    }
    bar.finish_and_clear();
    let name = if select == Select::Pairs {
        "sibling difference error"
    } else {
        "cross-entropy"
    };
    if select == Select::Last {
        writeln!(
            out,
            "last epoch's validation {name} {best:.5}; weights written to {}",
            args.out.display()
        )?;
    } else {
        writeln!(
            out,
            "best validation {name} {best:.5}; weights written to {}",
            args.out.display()
        )?;
    }
    Ok(())
}

/// A phase named on the command line.
fn parse_phase(s: &str) -> Result<Phase, String> {
    Phase::ALL
        .into_iter()
        .find(|ph| ph.name() == s)
        .ok_or_else(|| format!("unknown phase {s:?}; expected contact, crashed or race"))
}
