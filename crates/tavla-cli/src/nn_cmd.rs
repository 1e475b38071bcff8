//! The neural engine's commands: `tavla train td`, `tavla train curve`, `tavla train
//! plot-curve`, `tavla hint`, `tavla eval` and `tavla rollout`.
//!
//! Everything here is argument handling and printing; the work is in `tavla-nn`.

use std::convert::Infallible;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use tavla_core::{Dice, GameState, NoDouble, PlayList, Position, Roll, Rules};
use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
use tavla_match::arena::{run_arena, ArenaConfig, Stakes};
use tavla_nn::cube::{CubeAction, CubeAnalysis, CubeHolder, PlayWorth};
use tavla_nn::rollout::ci95_factor;
use tavla_nn::search::{Prune, RankedPlay, Search, DEFAULT_KEEP, MAX_KEEP, MAX_PLY};
use tavla_nn::td::{TdConfig, TdTrainer};
use tavla_nn::{NeuralPlayer, Probabilities, Weights, MAX_HIDDEN};
use tavla_player::{Player, RandomPlayer, RolloutControl};
use tavla_search::HeuristicPlayer;

use crate::input::InputError;

/// `tavla train td`: TD(λ) self-play from random weights, checkpointed and resumable.
#[derive(Debug, Clone, Args)]
pub struct TrainTdArgs {
    /// Run directory: checkpoint (`state.json` and the `weights-N.tnn` it names), the current
    /// weights (`weights.tnn`), snapshots and the learning curve (`curve.csv`). A run resumes
    /// from the checkpoint found there; a folder with a run's files but no `state.json` is
    /// refused, and so is a folder another run is training in (it holds the folder's `lock`
    /// file locked while it runs).
    #[arg(long)]
    pub dir: PathBuf,
    /// Train until this many games in total have been played (counting earlier sittings).
    #[arg(long, default_value_t = 100_000)]
    pub games: u64,
    /// Seed of the initial weights and the dice (new runs only).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Learning rate (new runs; with --set-alpha also on resume).
    #[arg(long, default_value_t = 0.1)]
    pub alpha: f32,
    /// Apply --alpha to a resumed run too (recorded in the checkpoint).
    #[arg(long)]
    pub set_alpha: bool,
    /// Apply --lambda to a resumed run too (recorded in the checkpoint).
    #[arg(long)]
    pub set_lambda: bool,
    /// TD(λ) trace decay (new runs; with --set-lambda also on resume).
    #[arg(long, default_value_t = 0.7)]
    pub lambda: f32,
    /// Hidden units of the contact network (new runs only).
    #[arg(long, default_value_t = 96)]
    pub contact_hidden: usize,
    /// Hidden units of the race network (new runs only).
    #[arg(long, default_value_t = 48)]
    pub race_hidden: usize,
    /// Write the checkpoint every this many games.
    #[arg(long, default_value_t = 2_000)]
    pub checkpoint_every: u64,
    /// Keep a snapshot of the weights (`snapshots/games-N.tnn`) and run the strength check
    /// every this many games.
    #[arg(long, default_value_t = 10_000)]
    pub check_every: u64,
    /// Games per strength check (0-ply against the random and the heuristic player).
    #[arg(long, default_value_t = 200)]
    pub check_games: u32,
    /// No progress bar (for logs).
    #[arg(long)]
    pub quiet: bool,
}

/// Runs `tavla train td`.
///
/// # Errors
/// When the run directory cannot be read or written, or a checkpoint there is invalid.
pub fn train_td(args: &TrainTdArgs) -> Result<()> {
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err(InputError(format!("--lambda must be in 0..=1, got {}", args.lambda)).into());
    }
    if !(args.alpha > 0.0 && args.alpha.is_finite()) {
        return Err(InputError(format!("--alpha must be positive, got {}", args.alpha)).into());
    }
    check_pairs("--check-games", args.check_games, true)?;
    if args.checkpoint_every == 0 || args.check_every == 0 {
        return Err(
            InputError("--checkpoint-every and --check-every must be positive".into()).into(),
        );
    }
    for (name, h) in [
        ("--contact-hidden", args.contact_hidden),
        ("--race-hidden", args.race_hidden),
    ] {
        if !(1..=MAX_HIDDEN).contains(&h) {
            return Err(InputError(format!("{name} must be in 1..={MAX_HIDDEN}, got {h}")).into());
        }
    }
    let dir = &args.dir;
    let resume = dir.join("state.json").exists();
    if !resume {
        not_a_run_yet(dir)?;
    }
    // Held until the run ends (the system lets go of it when the process does, however it
    // ends).
    let _lock = lock_run(dir)?;
    let mut trainer = if resume {
        let mut t = TdTrainer::load_checkpoint(dir)
            .with_context(|| format!("resuming from {}", dir.display()))?;
        let curve = dir.join("curve.csv");
        let dropped = trim_curve(&curve, t.games())?;
        if dropped > 0 {
            eprintln!(
                "dropped {dropped} rows of {} beyond the checkpoint's game {} (played again)",
                curve.display(),
                t.games()
            );
        }
        if args.set_alpha {
            t.set_alpha(args.alpha);
        }
        if args.set_lambda {
            t.set_lambda(args.lambda);
        }
        eprintln!(
            "resuming {} at game {} ({:?})",
            dir.display(),
            t.games(),
            t.config()
        );
        t
    } else {
        let config = TdConfig {
            seed: args.seed,
            alpha: args.alpha,
            lambda: args.lambda,
            contact_hidden: args.contact_hidden,
            race_hidden: args.race_hidden,
        };
        let t = TdTrainer::new(config);
        t.save_checkpoint(dir)
            .with_context(|| format!("writing the first checkpoint in {}", dir.display()))?;
        strength_check(&t, dir, args.check_games)?;
        eprintln!("new run in {} ({config:?})", dir.display());
        t
    };
    let start_games = trainer.games();
    if start_games >= args.games {
        eprintln!("already at {start_games} games");
        return Ok(());
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(args.games)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {pos}/{len} games ({per_sec}, eta {eta}) {msg}",
        )
        .expect("valid template"),
    );
    bar.set_position(start_games);
    let started = Instant::now();
    let mut moves = 0u64;
    while trainer.games() < args.games {
        let s = trainer.train_game();
        moves += u64::from(s.moves);
        let g = trainer.games();
        bar.set_position(g);
        // The check before the checkpoint of the same game: a run stopped between the two
        // has the row beyond its checkpoint, dropped and measured again on resuming, rather
        // than a checkpoint whose check is never made.
        if g % args.check_every == 0 {
            let snap = dir.join("snapshots");
            std::fs::create_dir_all(&snap)
                .with_context(|| format!("creating {}", snap.display()))?;
            trainer
                .weights()
                .save(&snap.join(format!("games-{g:09}.tnn")))?;
            let msg = strength_check(&trainer, dir, args.check_games)?;
            bar.set_message(msg.clone());
            if args.quiet {
                eprintln!("{g} games: {msg}");
            }
        }
        if g % args.checkpoint_every == 0 || g == args.games {
            trainer
                .save_checkpoint(dir)
                .with_context(|| format!("writing the checkpoint in {}", dir.display()))?;
        }
    }
    bar.finish();
    let secs = started.elapsed().as_secs_f64();
    let played = trainer.games() - start_games;
    eprintln!(
        "{played} games in {secs:.0} s ({:.1} games/s, {:.0} moves/game)",
        played as f64 / secs,
        moves as f64 / played.max(1) as f64
    );
    Ok(())
}

/// The name of the file in a run folder that `train td` holds locked while it runs.
const RUN_LOCK: &str = "lock";

/// Locks the run folder `dir` (made if missing) for this process, so that a second `train td`
/// in it is refused rather than writing over the first one's checkpoints: an advisory lock
/// on `dir/lock`, let go when the returned file is dropped or the process ends.
fn lock_run(dir: &Path) -> Result<std::fs::File> {
    std::fs::create_dir_all(dir).with_context(|| format!("making {}", dir.display()))?;
    let path = dir.join(RUN_LOCK);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    // Named in full: from Rust 1.89 `File` has a `try_lock` of its own, with another error.
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => Ok(file),
        Err(fs4::TryLockError::WouldBlock) => Err(anyhow::anyhow!(
            "--dir {}: another `tavla train td` is running in this folder (it holds {} \
             locked); wait for it to stop, or give another folder",
            dir.display(),
            path.display()
        )),
        // A file system without locks (some network ones): run unguarded, as before locks.
        Err(fs4::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {
            eprintln!(
                "warning: {} cannot be locked here ({e}): nothing stops a second run in this \
                 folder",
                path.display()
            );
            Ok(file)
        }
        Err(fs4::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("locking {}", path.display()))
        }
    }
}

/// Refuses to start a new run in `dir` when it holds a run's files without its `state.json`
/// (a run whose state was lost, or another program's folder): a new run would write over
/// its weights and snapshots and add its rows to its learning curve.
fn not_a_run_yet(dir: &Path) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // A checkpoint's own weights file alone (`weights-N.tnn`) is what a run killed in
        // its first checkpoint leaves: no run to lose, and the next checkpoint removes it.
        let run_file =
            name == tavla_nn::td::CURRENT_WEIGHTS || name == "curve.csv" || name == "snapshots";
        if run_file {
            found.push(if name == "snapshots" {
                "snapshots/".to_string()
            } else {
                name
            });
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    found.sort();
    Err(InputError(format!(
        "--dir {}: it holds {} but no state.json, so there is no run to resume there; \
         a new run would write over them: give another folder, or move them away",
        dir.display(),
        found.join(", ")
    ))
    .into())
}

/// Plays the current weights at 0-ply against the fixed opponents (random, heuristic) and
/// appends a line per opponent to `curve.csv`: `games,opponent,check_games,ppg,ppg_stderr,win_rate`.
fn strength_check(trainer: &TdTrainer, dir: &Path, games: u32) -> Result<String> {
    if games == 0 {
        return Ok(String::new());
    }
    let weights = Arc::new(trainer.weights().clone());
    let path = dir.join("curve.csv");
    let mut msg = String::new();
    for opponent in ["random", "heuristic"] {
        let r = measure(&weights, &Opponent::named(opponent)?, games, 0xc0ffee)?;
        append_curve(&path, trainer.games(), opponent, &r)?;
        msg += &format!(
            "vs {opponent} {:+.3} ppg ± {:.3} ({:.1}% wins) ",
            r.ppg,
            r.stderr,
            100.0 * r.win_rate
        );
    }
    Ok(msg)
}

/// Drops the rows of the learning curve at `path` beyond `games` (and a last line cut short),
/// which a run stopped after its last checkpoint wrote and plays again when resumed; returns
/// how many. No file: nothing to drop.
fn trim_curve(path: &Path, games: u64) -> Result<usize> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut kept = String::with_capacity(text.len());
    let mut dropped = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let beyond = i > 0
            && (!line.ends_with('\n')
                || line
                    .split(',')
                    .next()
                    .and_then(|g| g.trim().parse::<u64>().ok())
                    .is_some_and(|g| g > games));
        if beyond {
            dropped += 1;
        } else {
            kept += line;
        }
    }
    if dropped > 0 {
        let tmp = path.with_extension("csv.tmp");
        std::fs::write(&tmp, kept).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(dropped)
}

fn append_curve(path: &Path, games: u64, opponent: &str, r: &Measured) -> Result<()> {
    let new = !path.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    if new {
        writeln!(f, "games,opponent,check_games,ppg,ppg_stderr,win_rate")?;
    }
    writeln!(
        f,
        "{games},{opponent},{},{:.4},{:.4},{:.4}",
        r.games, r.ppg, r.stderr, r.win_rate
    )?;
    Ok(())
}

/// A fixed opponent of the strength checks: `random` or `heuristic` (0-ply on the seed
/// article's evaluation, default constants), or a weights file played at 0-ply.
enum Opponent {
    Random,
    Heuristic(Box<HeuristicEval>),
    Neural(Arc<Weights>),
}

impl Opponent {
    /// The opponent named `name`.
    fn named(name: &str) -> Result<Opponent> {
        Ok(match name {
            "random" => Opponent::Random,
            "heuristic" => {
                Opponent::Heuristic(Box::new(HeuristicEval::new(HeuristicConfig::default())))
            }
            path => {
                let w = Weights::load(Path::new(path)).with_context(|| {
                    format!("opponent {path:?} is neither random, heuristic nor a weights file")
                })?;
                Opponent::Neural(Arc::new(w))
            }
        })
    }

    /// A player of this opponent, seeded (only the random player draws on it).
    fn player(&self, seed: u64) -> Box<dyn Player> {
        match self {
            Opponent::Random => Box::new(RandomPlayer::new(seed)),
            Opponent::Heuristic(eval) => Box::new(HeuristicPlayer::new((**eval).clone())),
            Opponent::Neural(w) => Box::new(NeuralPlayer::new(w.clone(), 0)),
        }
    }
}

/// A strength check's result: `weights` at 0-ply against an opponent, cubeless money.
struct Measured {
    games: u64,
    ppg: f64,
    /// The standard error of `ppg`, over the pairs of games that share their dice.
    stderr: f64,
    win_rate: f64,
}

/// `weights` at 0-ply against `opponent` in the arena (`tavla_match::arena`): `games` cubeless
/// money games (an even number: game pairs share their dice, the sides swapped), the dice from
/// `seed`, on every core (the result does not depend on the threads).
fn measure(weights: &Arc<Weights>, opponent: &Opponent, games: u32, seed: u64) -> Result<Measured> {
    let config = ArenaConfig {
        games: u64::from(games),
        seed,
        rules: Rules::Standard,
        threads: 0,
        stakes: Stakes::Cubeless,
        beavers: false,
        resignations: false,
    };
    let me = |_seed: u64| Ok::<_, Infallible>(NeuralPlayer::new(weights.clone(), 0));
    let them = |seed: u64| Ok::<_, Infallible>(opponent.player(seed));
    let r = run_arena(&config, me, them, &ProgressBar::hidden())?;
    Ok(Measured {
        games: r.games,
        ppg: r.ppg_a,
        stderr: r.ci95.map_or(0.0, |ci| ci / 1.96),
        win_rate: r.win_rate_a,
    })
}

/// Refuses a count of strength-check games the arena cannot play: it plays pairs.
fn check_pairs(option: &str, games: u32, zero: bool) -> Result<()> {
    if (games == 0 && !zero) || games % 2 == 1 {
        let what = if zero {
            "0 or even"
        } else {
            "positive and even"
        };
        return Err(InputError(format!(
            "{option} must be {what} (each pair of games shares its dice), got {games}"
        ))
        .into());
    }
    Ok(())
}

/// `tavla train curve`: the learning curve of a TD run, from its snapshots.
#[derive(Debug, Clone, Args)]
pub struct TrainCurveArgs {
    /// Run directory (reads `snapshots/*.tnn`).
    #[arg(long)]
    pub dir: PathBuf,
    /// Opponents: `random`, `heuristic` or weights files.
    #[arg(long, value_delimiter = ',', default_value = "random,heuristic")]
    pub opponents: Vec<String>,
    /// Games per snapshot and opponent.
    #[arg(long, default_value_t = 1000)]
    pub games: u32,
    /// Only every k-th snapshot (the last one always).
    #[arg(long, default_value_t = 1)]
    pub every: usize,
    /// Dice seed (the same dice for every snapshot).
    #[arg(long, default_value_t = 2024)]
    pub seed: u64,
}

/// Runs `tavla train curve`: prints a table `games opponent ppg ± se win%` and writes it to
/// `DIR/curve-eval.csv`.
///
/// # Errors
/// When the directory has no snapshots, or a file cannot be read or written.
pub fn train_curve(args: &TrainCurveArgs) -> Result<()> {
    // Every option checked before the output file is made (it replaces the last one).
    check_pairs("--games", args.games, false)?;
    if args.every == 0 {
        return Err(InputError("--every must be positive (1 takes every snapshot)".into()).into());
    }
    if args.opponents.is_empty() {
        return Err(InputError("--opponents names no opponent".into()).into());
    }
    let opponents = args
        .opponents
        .iter()
        .map(|name| Ok((name, Opponent::named(name)?)))
        .collect::<Result<Vec<_>>>()?;
    let snap = args.dir.join("snapshots");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&snap)
        .with_context(|| format!("reading {}", snap.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tnn"))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no snapshots in {}", snap.display());
    }
    let last = files.len() - 1;
    let every = args.every;
    let picked: Vec<&PathBuf> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| i % every == 0 || *i == last)
        .map(|(_, p)| p)
        .collect();
    let bar = ProgressBar::new((picked.len() * args.opponents.len()) as u64);
    let out_path = args.dir.join("curve-eval.csv");
    let mut out = std::fs::File::create(&out_path)
        .with_context(|| format!("creating {}", out_path.display()))?;
    writeln!(out, "games,opponent,check_games,ppg,ppg_stderr,win_rate")?;
    let mut rows = Vec::new();
    for path in picked {
        let w = Arc::new(Weights::load(path)?);
        for (name, opponent) in &opponents {
            let r = measure(&w, opponent, args.games, args.seed)?;
            writeln!(
                out,
                "{},{name},{},{:.4},{:.4},{:.4}",
                w.games, r.games, r.ppg, r.stderr, r.win_rate
            )?;
            rows.push(format!(
                "| {} | {name} | {:+.3} ± {:.3} | {:.1}% |",
                w.games,
                r.ppg,
                r.stderr,
                100.0 * r.win_rate
            ));
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    println!("| games | opponent | ppg ± se | wins |\n|---|---|---|---|");
    for r in rows {
        println!("{r}");
    }
    Ok(())
}

/// `tavla train plot-curve`: a learning curve drawn as a PNG.
#[derive(Debug, Clone, Args)]
pub struct PlotCurveArgs {
    /// The curve: `games,opponent,check_games,ppg,ppg_stderr,win_rate` per line after a header
    /// line (`train curve`'s `curve-eval.csv`, or a TD run's `curve.csv`); `check_games` and
    /// `win_rate` are not drawn and may be empty.
    pub csv: PathBuf,
    /// The PNG to write.
    pub png: PathBuf,
    /// TrueType font for the labels (default: $TAVLA_FONT or a system font).
    #[arg(long)]
    pub font: Option<PathBuf>,
}

/// One opponent's points: thousands of training games, ppg, standard error of the ppg.
type CurveSeries = (String, Vec<(f64, f64, f64)>);

/// Reads a learning-curve CSV into one series per opponent, sorted by games.
fn read_curve(text: &str, name: &str) -> Result<Vec<CurveSeries>> {
    let mut series: Vec<CurveSeries> = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{name}:{}", n + 1);
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 6 {
            return Err(InputError(format!("{}: {} fields, expected 6", at(), f.len())).into());
        }
        let number = |i: usize, what: &str| -> Result<f64> {
            f[i].trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    InputError(format!(
                        "{}: field {} ({what}) {:?} is not a number",
                        at(),
                        i + 1,
                        f[i]
                    ))
                    .into()
                })
        };
        let point = (
            number(0, "games")? / 1000.0,
            number(3, "ppg")?,
            number(4, "ppg_stderr")?,
        );
        match series.iter_mut().find(|(o, _)| o == f[1]) {
            Some((_, v)) => v.push(point),
            None => series.push((f[1].to_string(), vec![point])),
        }
    }
    if series.is_empty() {
        return Err(InputError(format!("{name}: no data lines after the header")).into());
    }
    for (_, points) in &mut series {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Ok(series)
}

/// Runs `tavla train plot-curve`: points per game against training games, one line per
/// opponent, with ±2 standard errors.
///
/// # Errors
/// When the CSV cannot be read or parsed, no font is usable, or the PNG cannot be written.
pub fn plot_curve(args: &PlotCurveArgs) -> Result<()> {
    use plotters::prelude::*;
    let name = args.csv.display().to_string();
    let text = std::fs::read_to_string(&args.csv).with_context(|| format!("reading {name}"))?;
    let series = read_curve(&text, &name)?;
    crate::input::output_file("the PNG", &args.png)?;
    tavla_bearoff::plot::register_font(args.font.as_deref())?;
    let x_max = series
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let (y_min, y_max) = series
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| (p.1 - 2.0 * p.2, p.1 + 2.0 * p.2)))
        .fold((-0.5f64, 0.5f64), |(a, b), (lo, hi)| (a.min(lo), b.max(hi)));
    tavla_bearoff::plot::save_png(&args.png, (1200, 750), |root| {
        let draw = |e: &dyn std::fmt::Display| e.to_string();
        root.fill(&WHITE).map_err(|e| draw(&e))?;
        let mut chart = ChartBuilder::on(root)
            .caption(
                "tavla TD(lambda) self-play: 0-ply strength against fixed opponents",
                ("sans-serif", 24),
            )
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_max * 1.02, y_min - 0.1..y_max + 0.1)
            .map_err(|e| draw(&e))?;
        chart
            .configure_mesh()
            .x_desc("training games (thousands)")
            .y_desc("points per game (cubeless money), +/- 2 s.e.")
            .axis_desc_style(("sans-serif", 18))
            .label_style(("sans-serif", 15))
            .draw()
            .map_err(|e| draw(&e))?;
        let colours = [
            RGBColor(31, 84, 160),
            RGBColor(200, 70, 40),
            RGBColor(40, 150, 60),
            RGBColor(120, 60, 160),
        ];
        for (k, (opponent, points)) in series.iter().enumerate() {
            let c = colours[k % colours.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|p| (p.0, p.1)),
                    c.stroke_width(2),
                ))
                .map_err(|e| draw(&e))?
                .label(format!("vs {opponent}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|p| {
                    PathElement::new(
                        vec![(p.0, p.1 - 2.0 * p.2), (p.0, p.1 + 2.0 * p.2)],
                        c.mix(0.5),
                    )
                }))
                .map_err(|e| draw(&e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .label_font(("sans-serif", 16))
            .draw()
            .map_err(|e| draw(&e))?;
        Ok(())
    })?;
    Ok(())
}

/// Options shared by `hint`, `eval` and `rollout`.
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Search depth, 0 to 3 (in a rollout, the depth at which both sides choose their plays):
    /// deeper is slower and plays better.
    #[arg(long, default_value_t = 0)]
    pub ply: u8,
    /// Weights file instead of the embedded default.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// Value races with every checker home by the network instead of the bearoff databases
    /// (by default exact two-sided 6 x 8 and one-sided 6 x 15, and exact money cube decisions
    /// from a cubeful two-sided 6 x 6; built on first use and cached, see `tavla bearoff`).
    #[arg(long)]
    pub no_bearoff: bool,
    /// Pruned inner move choices.
    #[command(flatten)]
    pub prune: PruneArgs,
}

/// `--no-prune`, `--prune=FILE` and `--keep K`: the search's inner move choices, pruned by
/// small networks by default (`tavla_nn::search::Prune`).
#[derive(Debug, Clone, Args)]
pub struct PruneArgs {
    /// Evaluate every candidate of the search's inner move choices, and of a rollout's 0-ply
    /// players, with the full networks. By default small pruning networks pick them and the
    /// full networks evaluate only their best --keep, which makes 2- and 3-ply searches about
    /// half again as fast and 0-ply rollouts about two and a half times.
    #[arg(long, conflicts_with_all = ["prune", "keep"])]
    pub no_prune: bool,
    /// Pruning networks from FILE instead of the embedded ones (a bare --prune, the default, is
    /// accepted).
    #[arg(long, value_name = "FILE", require_equals = true)]
    pub prune: Option<Option<PathBuf>>,
    /// Plays the full networks evaluate at each pruned choice.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_KEEP as u16,
          value_parser = clap::value_parser!(u16).range(1..=MAX_KEEP as i64))]
    pub keep: u16,
}

impl Default for PruneArgs {
    /// The defaults: the embedded pruning networks keeping [`DEFAULT_KEEP`] plays.
    fn default() -> PruneArgs {
        PruneArgs {
            no_prune: false,
            prune: None,
            keep: DEFAULT_KEEP as u16,
        }
    }
}

impl PruneArgs {
    /// No pruning (`--no-prune`).
    #[cfg(test)]
    #[must_use]
    pub fn off() -> PruneArgs {
        PruneArgs {
            no_prune: true,
            ..PruneArgs::default()
        }
    }

    /// Whether these are the defaults: the embedded networks keeping [`DEFAULT_KEEP`].
    #[must_use]
    pub fn is_default(&self) -> bool {
        !self.no_prune
            && self.prune.as_ref().is_none_or(Option::is_none)
            && usize::from(self.keep) == DEFAULT_KEEP
    }

    /// The pruning asked for, its networks loaded; `None` with `--no-prune`.
    ///
    /// # Errors
    /// When the file cannot be read as weights of this build's input layout.
    pub fn load(&self) -> Result<Option<Prune>> {
        if self.no_prune {
            return Ok(None);
        }
        let file = self.prune.as_ref().and_then(Option::as_deref);
        let prune = Prune::load(file, usize::from(self.keep));
        Ok(Some(prune.with_context(|| match file {
            Some(f) => format!("--prune {}", f.display()),
            None => "--prune".to_string(),
        })?))
    }
}

/// Refuses a depth beyond [`MAX_PLY`].
pub(crate) fn check_ply(ply: u8) -> Result<()> {
    check_depth("--ply", ply)
}

/// Refuses a search depth above [`MAX_PLY`], naming the option (or field) `name` that gave it.
pub(crate) fn check_depth(name: &str, ply: u8) -> Result<()> {
    if ply > MAX_PLY {
        return Err(InputError(format!("{name} must be in 0..={MAX_PLY}, got {ply}")).into());
    }
    Ok(())
}

impl EngineArgs {
    pub(crate) fn search(&self) -> Result<Search> {
        check_ply(self.ply)?;
        let weights = Weights::load_or_default(self.weights.as_deref())?;
        let mut search = Search::new(Arc::new(weights));
        if let Some(prune) = self.prune.load()? {
            search = search.with_prune(prune);
        }
        if self.no_bearoff {
            return Ok(search);
        }
        Ok(search.with_bearoff(crate::players::shared_bearoff()))
    }
}

/// `tavla hint POSITION [DICE]`: the best plays.
#[derive(Debug, Clone, Args)]
pub struct HintArgs {
    /// The position, in any notation `tavla` reads (BPN, XGID, gnubg ID, FIBS board, Position ID).
    #[arg(allow_hyphen_values = true)]
    pub position: String,
    /// The dice (`31`, `3-1`); required unless the position includes them.
    pub dice: Option<String>,
    /// Plays to show.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Serialize)]
pub(crate) struct JsonProbs {
    win: f32,
    win_gammon: f32,
    win_backgammon: f32,
    lose_gammon: f32,
    lose_backgammon: f32,
    equity: f32,
}

/// `p` as it is shown: each chance within 0..=1. A luck-adjusted rollout's means may leave
/// that range by a hair (a gammon that never happened, adjusted by the luck of the games); the
/// equity is the mean's as it is.
fn shown(p: Probabilities) -> Probabilities {
    let c = |x: f32| x.clamp(0.0, 1.0);
    Probabilities {
        win: c(p.win),
        win_gammon: c(p.win_gammon),
        win_backgammon: c(p.win_backgammon),
        lose_gammon: c(p.lose_gammon),
        lose_backgammon: c(p.lose_backgammon),
    }
}

impl From<Probabilities> for JsonProbs {
    fn from(p: Probabilities) -> Self {
        let equity = p.equity();
        let p = shown(p);
        JsonProbs {
            win: p.win,
            win_gammon: p.win_gammon,
            win_backgammon: p.win_backgammon,
            lose_gammon: p.lose_gammon,
            lose_backgammon: p.lose_backgammon,
            equity,
        }
    }
}

#[derive(Serialize)]
struct JsonHint {
    rank: usize,
    play: String,
    ply: u8,
    #[serde(flatten)]
    probs: JsonProbs,
    /// Match play: the play's normalised match equity at the score, by which it is ranked
    /// (gnubg's "MWC" normalised: a pass of a double 1, the loss of a single game -1).
    #[serde(skip_serializing_if = "Option::is_none")]
    match_equity: Option<f32>,
    /// Match play: the mover's chance of winning the match after the play, of which
    /// `match_equity` is the normalised form.
    #[serde(skip_serializing_if = "Option::is_none")]
    match_winning_chance: Option<f32>,
    /// Money play once the cube has been turned: the play's cubeful equity per unit of the
    /// cube (Janowski's model on its probabilities, or exact in a short bearoff), by which it
    /// is ranked.
    #[serde(skip_serializing_if = "Option::is_none")]
    cubeful_equity: Option<f32>,
    /// With `cubeful_equity` or `match_equity`: whether it is exact, from tavla's cubeful
    /// bearoff database or its match tables of short bearoffs.
    #[serde(skip_serializing_if = "Option::is_none")]
    exact: Option<bool>,
}

/// Runs `tavla hint`, writing to `out`.
///
/// # Errors
/// When the position, the dice or the weights cannot be read, or `out` fails.
pub fn hint(args: &HintArgs, out: &mut dyn Write) -> Result<()> {
    note_replaced_roll(&args.position, args.dice.as_deref());
    hint_with(args, &mut args.engine.search()?, out)
}

/// Says on stderr when dice given on the command line replace other dice that the position
/// itself holds (an XGID's, a FIBS board's).
fn note_replaced_roll(position: &str, dice: Option<&str>) {
    let Some(given) = dice.and_then(|d| d.parse::<Roll>().ok()) else {
        return;
    };
    if let Some(own) = crate::input::parse(position).ok().and_then(|s| s.roll()) {
        if own != given {
            eprintln!("note: the dice {given} replace the position's roll {own}");
        }
    }
}

/// [`hint`] with a search already built (`tavla serve`; `args`'s weights and pruning are
/// then the search's, its depth is `args`'s).
///
/// # Errors
/// As [`hint`].
pub fn hint_with(args: &HintArgs, search: &mut Search, out: &mut dyn Write) -> Result<()> {
    let state = crate::input::parse(&args.position)
        .map_err(|e| InputError(format!("cannot read position {:?}: {e}", args.position)))?;
    let roll = roll_of(
        args.dice.as_deref(),
        &state,
        "no dice: give them after the position (for example `31`)",
    )?;
    let pos = state.position;
    if pos.is_game_over() {
        return Err(InputError("the game is over in this position".into()).into());
    }
    crate::input::no_double_pending(&state)?;
    check_ply(args.engine.ply)?;
    if args.top == 0 {
        return Err(InputError("--top must be at least 1".into()).into());
    }
    let mut plays = PlayList::new();
    pos.legal_plays(roll, &mut plays);
    let mut ranked: Vec<RankedPlay> = Vec::new();
    // As the player chooses them: in match play by their match equity at the score
    // (normalised); in money play by the cubeless equity, or once the cube has been turned (or
    // under the Jacoby rule) by the cubeful equity per unit of the cube.
    // Exact in short bearoffs once the cube is turned (the cubeful bearoff database).
    let worth_of = PlayWorth::of(&state);
    search.rank_plays_worth(&plays, args.engine.ply, &mut ranked, worth_of);
    let worth = |r: &RankedPlay| search.play_value(worth_of, &plays.positions()[r.index], r.probs);
    let best = worth(&ranked[0]);
    let label = match worth_of {
        PlayWorth::Match { .. } => "match eq",
        PlayWorth::Cubeful(_) | PlayWorth::Jacoby => "cubeful eq",
        PlayWorth::Cubeless => "eq",
    };
    let cubeful = matches!(worth_of, PlayWorth::Cubeful(_) | PlayWorth::Jacoby);
    let matched = matches!(worth_of, PlayWorth::Match { .. });
    // Whether a play's cubeful equity (or match equity) is exact: the position it leaves is
    // in the cubeful bearoff database (or the match tables of short bearoffs).
    let exact = |r: &RankedPlay| {
        worth_of.is_exact(&plays.positions()[r.index], search.bearoff().map(|b| &**b))
    };
    let (exact_source, model) = if matched {
        (
            "tavla's match tables of short bearoffs",
            "by Janowski's model at the score",
        )
    } else {
        ("tavla's cubeful bearoff database", "by Janowski's model")
    };
    // A play that ends the game is worth its result, exactly, wherever it is.
    let finished = |r: &RankedPlay| plays.positions()[r.index].is_game_over();
    // In match play, the chance of winning the match after a play.
    let chance = |r: &RankedPlay| {
        worth_of.match_chance(
            &plays.positions()[r.index],
            r.probs,
            search.bearoff().map(|b| &**b),
        )
    };
    if args.engine.json {
        let rows: Vec<JsonHint> = ranked
            .iter()
            .take(args.top)
            .enumerate()
            .map(|(i, r)| JsonHint {
                rank: i + 1,
                play: crate::cmd::play_text(&pos, &plays.play(r.index)),
                ply: r.ply,
                probs: r.probs.into(),
                match_equity: matches!(worth_of, PlayWorth::Match { .. }).then(|| worth(r)),
                match_winning_chance: chance(r),
                cubeful_equity: cubeful.then(|| worth(r)),
                exact: (cubeful || matched).then(|| exact(r) || finished(r)),
            })
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
    } else {
        if state.match_length > 0 && !matches!(worth_of, PlayWorth::Match { .. }) {
            writeln!(
                out,
                "Note: this score is beyond tavla's match equity table (32-away): the plays are \
                 ranked by money equity."
            )?;
        }
        let shown = || ranked.iter().take(args.top);
        // Exact values beside the model's (a side with seven checkers whose play can leave
        // six) are marked one by one.
        let with_cube = cubeful || matched;
        let all_exact = with_cube && shown().all(|r| exact(r) || finished(r));
        let marked = with_cube && !all_exact && shown().any(exact);
        let what = if matched {
            "Match equities"
        } else {
            "Cubeful equities"
        };
        for (i, r) in shown().enumerate() {
            let text = crate::cmd::play_text(&pos, &plays.play(r.index));
            let diff = if i == 0 {
                String::new()
            } else {
                format!("({:+.3})", worth(r) - best)
            };
            let mwc = chance(r).map_or(String::new(), |m| format!(" {:5.1}%", 100.0 * m));
            writeln!(
                out,
                "{:>2}. {:<28} {}-ply  {label} {:+.3}{mwc} {:>8}  {}{}",
                i + 1,
                text,
                r.ply,
                worth(r),
                diff,
                probability_columns(&r.probs),
                if marked && exact(r) { "  exact" } else { "" }
            )?;
        }
        if all_exact && shown().any(exact) {
            writeln!(
                out,
                "{what} exact: {exact_source} (both sides handling the cube perfectly)."
            )?;
        } else if marked {
            let what = if matched {
                "match equity"
            } else {
                "cubeful equity"
            };
            writeln!(
                out,
                "Plays marked exact: {what} from {exact_source}; the others {model}."
            )?;
        }
    }
    Ok(())
}

/// The roll: `dice` as typed, else the dice of the position; `missing` is the error when
/// there are neither.
pub(crate) fn roll_of(dice: Option<&str>, state: &GameState, missing: &str) -> Result<Roll> {
    match (dice, state.roll()) {
        (Some(d), _) => Ok(d
            .parse::<Roll>()
            .map_err(|e| InputError(format!("cannot read dice {d:?}: {e}")))?),
        (None, Some(r)) => Ok(r),
        (None, None) => Err(InputError(missing.into()).into()),
    }
}

/// `tavla eval POSITION`: cubeless probabilities and equity for the side on roll, before it
/// rolls, and in money play the cube decision.
#[derive(Debug, Clone, Args)]
pub struct EvalArgs {
    /// The position, in any notation `tavla` reads (an XGID or a gnubg ID also gives the cube,
    /// the score and the Jacoby rule).
    #[arg(allow_hyphen_values = true)]
    pub position: String,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Serialize)]
struct JsonEval {
    #[serde(flatten)]
    probs: JsonProbs,
    /// The position has a double waiting for its answer: the decision below is the doubler's,
    /// and its take or pass answers it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    double_pending: bool,
    /// The cube decision; absent when the game is over, in the Crawford game, or beyond the
    /// match equity table.
    #[serde(skip_serializing_if = "Option::is_none")]
    cube: Option<JsonCube>,
    /// Why there is no cube decision (absent when there is one, or the game is over).
    #[serde(skip_serializing_if = "Option::is_none")]
    no_cube: Option<JsonNoCube>,
}

#[derive(Serialize)]
struct JsonNoCube {
    /// In words, as the text form says it.
    why: String,
    /// In a match where neither side can turn the cube (the Crawford game, or both sides'
    /// single wins ending the match): the side on roll's chance of winning the match, the
    /// game's cubeless outcomes at their scores.
    #[serde(skip_serializing_if = "Option::is_none")]
    match_winning_chance: Option<f32>,
}

#[derive(Serialize)]
struct JsonCube {
    efficiency: f32,
    /// The equities are exact (the efficiency is then not used): in money play from the
    /// cubeful bearoff database, in match play from the match tables of short bearoffs.
    exact: bool,
    /// Money play under the Jacoby rule.
    jacoby: bool,
    holder: &'static str,
    /// Playing on without doubling (with the opponent's cube: the cubeful equity).
    no_double: f32,
    /// Absent when the opponent owns the cube: the side on roll has no double to make.
    #[serde(skip_serializing_if = "Option::is_none")]
    double_take: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    double_pass: Option<f32>,
    action: String,
    /// Money play with beavers: a double would be beavered (the taker is the better off
    /// after it: double/take below 0).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    beaver: bool,
    equity: f32,
    /// Match play: the match winning chances of no double, double take and double pass
    /// (absent when the opponent owns the cube).
    #[serde(skip_serializing_if = "Option::is_none")]
    match_winning_chances: Option<[f32; 3]>,
    /// Match play: the side on roll's chance of winning the match with the proper action.
    #[serde(skip_serializing_if = "Option::is_none")]
    match_winning_chance: Option<f32>,
}

/// Runs `tavla eval`, writing to `out`.
///
/// # Errors
/// When the position or the weights cannot be read, or `out` fails.
pub fn eval(args: &EvalArgs, out: &mut dyn Write) -> Result<()> {
    eval_with(args, &mut args.engine.search()?, out)
}

/// [`eval`] with a search already built (`tavla serve`; `args`'s weights and pruning are
/// then the search's, its depth is `args`'s).
///
/// # Errors
/// As [`eval`].
pub fn eval_with(args: &EvalArgs, search: &mut Search, out: &mut dyn Write) -> Result<()> {
    let state = crate::input::parse(&args.position)
        .map_err(|e| InputError(format!("cannot read position {:?}: {e}", args.position)))?;
    let ply = args.engine.ply;
    check_ply(ply)?;
    let p = search.evaluate(&state.position, ply);
    let holder = CubeHolder::of(&state);
    // A double pending was within the limit (or the position would not have been read).
    let limited = crate::input::xgid_no_double(&args.position, &state)
        .filter(|_| state.dice != Dice::DoubleOffered);
    let cube = match limited {
        Some(_) => None,
        None => search.cube_decision(&state, ply),
    };
    let redouble = holder == CubeHolder::OnRoll;
    let money = state.match_length == 0;
    let exact = search.has_exact_cube_in(&state);
    let beavers = money && state.beavers && holder != CubeHolder::Opponent;
    let beaver = |a: &CubeAnalysis| beavers && a.should_beaver();
    let action = |a: &CubeAnalysis| action_words(a, redouble, beavers);
    let no_cube = (cube.is_none() && !state.position.is_game_over()).then(|| JsonNoCube {
        why: no_cube_reason(&state, limited.as_deref()),
        match_winning_chance: cube_out_of_play(&state)
            .map(|score| score.cubeless_chance(p, state.cube.value())),
    });
    if args.engine.json {
        let json = JsonEval {
            probs: p.into(),
            double_pending: state.dice == Dice::DoubleOffered,
            cube: cube.map(|a| {
                let can_double = holder != CubeHolder::Opponent;
                JsonCube {
                    efficiency: a.efficiency,
                    exact,
                    jacoby: money && state.jacoby,
                    holder: holder.name(),
                    no_double: a.no_double,
                    double_take: can_double.then_some(a.double_take),
                    double_pass: can_double.then_some(a.double_pass),
                    action: action(&a),
                    beaver: beaver(&a),
                    equity: a.equity(),
                    match_winning_chances: a.match_winning_chances.filter(|_| can_double),
                    match_winning_chance: a.match_winning_chances.map(|m| {
                        match (a.action.doubles(), a.opponent_takes()) {
                            (false, _) => m[0],
                            (true, true) => m[1],
                            (true, false) => m[2],
                        }
                    }),
                }
            }),
            no_cube,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(());
    }
    writeln!(out, "{ply}-ply, side on roll, before rolling (cubeless):")?;
    write_probabilities(out, &p)?;
    writeln!(out, "  equity {:+.4}", p.equity())?;
    if let Dice::Rolled(roll) = state.dice {
        writeln!(
            out,
            "Note: the roll {roll} in the position is not used: this is the value before \
             rolling (`tavla hint` ranks the plays of the roll)."
        )?;
    }
    let Some(a) = cube else {
        let Some(no_cube) = no_cube else {
            return Ok(());
        };
        match no_cube.match_winning_chance {
            Some(m) => writeln!(
                out,
                "Cube: {}; match winning chance {:.1}% (cubeless).",
                no_cube.why,
                100.0 * m
            )?,
            None => writeln!(out, "Cube: {}.", no_cube.why)?,
        }
        return Ok(());
    };
    let jacoby = if state.jacoby { " (Jacoby)" } else { "" };
    let how = if exact && money {
        format!("money{jacoby}, exact: tavla's cubeful bearoff database")
    } else if money {
        format!(
            "money{jacoby}, {ply}-ply cubeful, Janowski leaves at efficiency {:.2}",
            a.efficiency
        )
    } else {
        let side = state.turn;
        let method = if exact {
            "exact: tavla's match tables of short bearoffs".to_string()
        } else {
            format!(
                "{ply}-ply cubeful, Janowski leaves at efficiency {:.2}",
                a.efficiency
            )
        };
        format!(
            "{}-point match, {side} needs {}, {} needs {}; {method}, over tavla's match equity table",
            state.match_length,
            state.match_length.saturating_sub(*state.score.get(side)),
            side.other(),
            state.match_length.saturating_sub(*state.score.get(side.other())),
        )
    };
    if holder == CubeHolder::Opponent {
        let what = if a.match_winning_chances.is_some() {
            "normalised match equity"
        } else {
            "cubeful equity"
        };
        writeln!(
            out,
            "Cube ({how}): the opponent owns it; {what} {:+.4}",
            a.no_double
        )?;
        return Ok(());
    }
    let unit = if a.match_winning_chances.is_some() {
        "normalised equity (match winning chances)"
    } else {
        "equity per unit of the cube"
    };
    writeln!(out, "Cube ({how}), {unit}:")?;
    write_cube_rows(out, &a, redouble, beavers)?;
    if state.dice == Dice::DoubleOffered {
        writeln!(
            out,
            "The double waiting in the position: {} ({} by the figures above).",
            match (a.opponent_takes(), beaver(&a)) {
                (true, true) => "beaver",
                (true, false) => "take",
                (false, _) => "pass",
            },
            if a.opponent_takes() {
                "taking loses no more than passing"
            } else {
                "taking loses more than passing"
            }
        )?;
    }
    Ok(())
}

/// Why `state` (a game not over) has no cube decision for `tavla eval`: `limited` is an
/// XGID's cube limit reached, else the rules' reason.
fn no_cube_reason(state: &GameState, limited: Option<&str>) -> String {
    match (state.why_no_double(), limited) {
        (_, Some(why)) => format!("{why}, no doubling"),
        (Some(NoDouble::Crawford), None) => "the Crawford game, no doubling".to_string(),
        (Some(NoDouble::CubeAtMaximum), None) => "the cube is at its highest".to_string(),
        (Some(NoDouble::DeadCube), None) => format!(
            "dead for {}, whose single win at cube {} ends the match, no doubling",
            state.turn,
            state.cube.value()
        ),
        // The opponent's cube still has a decision: its take or pass when it doubles.
        (Some(NoDouble::OpponentsCube) | None, None) => {
            "no decision at this match score (beyond the match equity table, 32-away)".to_string()
        }
    }
}

/// The score of a match `state` where neither side can turn the cube: the Crawford game, or
/// both sides' single wins at the cube ending the match.
fn cube_out_of_play(state: &GameState) -> Option<tavla_nn::met::MatchScore> {
    let score = tavla_nn::met::MatchScore::of(state, state.turn)?;
    let cube = state.cube.value();
    (score.crawford || (score.me <= cube && score.them <= cube)).then_some(score)
}

/// The proper action of `a` in words, "take" as "beaver" where `beavers` (money play with
/// beavers) allows it and the taker should (gnubg's "No double, beaver").
pub(crate) fn action_words(a: &CubeAnalysis, redouble: bool, beavers: bool) -> String {
    let words = a.action.describe(redouble);
    if beavers && a.should_beaver() {
        words.replace(", take", ", beaver")
    } else {
        words.to_string()
    }
}

/// The equities of no double, double/take and double/pass of a cube decision (with the match
/// winning chances in match play), and the proper action, one line each; `beavers`: money
/// play with beavers, where the action may be a beaver.
///
/// # Errors
/// When `out` fails.
pub fn write_cube_rows(
    out: &mut dyn Write,
    a: &CubeAnalysis,
    redouble: bool,
    beavers: bool,
) -> Result<()> {
    let verb = if redouble { "redouble" } else { "double" };
    let mwc = a.match_winning_chances.map_or([None; 3], |m| m.map(Some));
    for ((label, e), m) in [
        (format!("no {verb}"), a.no_double),
        (format!("{verb}, take"), a.double_take),
        (format!("{verb}, pass"), a.double_pass),
    ]
    .into_iter()
    .zip(mwc)
    {
        match m {
            Some(m) => writeln!(out, "  {label:<16} {e:+.4}  ({:.1}%)", 100.0 * m)?,
            None => writeln!(out, "  {label:<16} {e:+.4}")?,
        }
    }
    writeln!(
        out,
        "  proper cube action: {}",
        action_words(a, redouble, beavers)
    )?;
    Ok(())
}

/// `tavla rollout POSITION --games N [--ply N] [--cube]`: rollout by the networks, cubeless or
/// (`--cube`) cubeful money.
#[derive(Debug, Clone, Args)]
pub struct RolloutArgs {
    /// The position, in any notation `tavla` reads; the side on roll is to roll.
    #[arg(allow_hyphen_values = true)]
    pub position: String,
    /// Games to play (a multiple of 36 keeps the first rolls balanced).
    #[arg(long, default_value_t = 1296)]
    pub games: u32,
    /// Dice seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads; 0, the default, for one per core.
    #[arg(long, default_value_t = 0, value_parser = crate::input::threads_arg)]
    pub threads: usize,
    /// No luck adjustment.
    #[arg(long)]
    pub no_luck_adjust: bool,
    /// Stop each game after N plays (both sides counted) and value the position reached by the
    /// 0-ply networks (whatever --ply); 0 plays the games to the end.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub truncate: u32,
    /// Truncate every second game one play later, so that half the games end on each side's
    /// play and the last mover's advantage in the value reached cancels.
    #[arg(long)]
    pub balance_parity: bool,
    /// The dice (`31`, `3-1`): roll out the plays for this roll (the side on roll has rolled)
    /// instead of the position before rolling. --top and --play choose the plays; the dice may
    /// also come from the position (an XGID or gnubg ID with dice) when either is given.
    pub dice: Option<String>,
    /// With dice: roll out the K best plays by the 2-ply search, valued as the rollouts value
    /// them (cubeless equity; with --cube the cubeful money equity, or in a match the match
    /// equity); 5 when neither --top nor --play is given.
    #[arg(long, value_name = "K")]
    pub top: Option<usize>,
    /// With dice: roll out this play too, in standard notation (`24/18 13/10`); may be repeated.
    #[arg(long = "play", value_name = "MOVE")]
    pub plays: Vec<String>,
    /// A cubeful rollout: no double and double/take, each line played out on the same dice
    /// with the cube where the position puts it, both sides doubling, taking and passing by
    /// their 0-ply cube decisions; in money play equities per unit of the cube, in a match
    /// (an XGID or gnubg Match ID gives the score) match winning chances by tavla's match
    /// equity table, with plays chosen by match equity; and the cube action. With dice, the
    /// plays are rolled out so, the opponent free to double before its first roll.
    #[arg(long)]
    pub cube: bool,
    /// With --cube, in money play: the Jacoby rule (gammons and backgammons count single
    /// while the cube has not been turned; the players double, take and play knowing it).
    /// Also when the position says so (an XGID's Jacoby flag).
    #[arg(long, requires = "cube")]
    pub jacoby: bool,
    /// Start no game after this many seconds (at least two games are played): the result is
    /// that of the games played, the first ones of the full rollout, and says how many.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<u64>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Both sides' players: their depth (`--ply`, 0 to 3: 1 and deeper are slower and play
    /// better), weights, bearoff databases and pruning.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// A rollout as whoever watches it sees it (the progress bar, or the HTTP API's rollout jobs,
/// `tavla serve`): the games asked for, the plays or cube lines rolled out, and the
/// [`RolloutControl`] that counts the games finished, keeps each play's or line's running mean
/// and stops it.
#[derive(Debug, Default)]
pub(crate) struct RolloutWatch {
    /// Games finished, running means and the stop flag: once stopped, no game is started,
    /// and the rollout ends with the games played (the first ones of the full rollout) or,
    /// when none was, with [`Stopped`].
    pub control: RolloutControl,
    /// Games asked for, counted over all the plays or cube lines (0 until the rollout has
    /// started).
    pub total: AtomicU64,
    /// The plays rolled out, in the order of the running means (none for a position).
    pub plays: Mutex<Vec<String>>,
    /// A cubeful rollout of a position: its two lines (`no double`, `double, take`), in the
    /// order of the running means.
    pub lines: Mutex<Vec<&'static str>>,
    /// What the running means are in.
    pub units: Mutex<RunningUnits>,
}

/// What a rollout's running means are in.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunningUnits {
    /// Cubeless equity.
    #[default]
    CubelessEquity,
    /// Cubeful equity per unit of the cube (money play).
    CubefulEquity,
    /// Chances of winning the match (cubeful, at a match score).
    MatchChances,
}

impl RunningUnits {
    /// As the HTTP API names them.
    pub(crate) fn name(self) -> &'static str {
        match self {
            RunningUnits::CubelessEquity => "cubeless equity",
            RunningUnits::CubefulEquity => "cubeful equity per unit of the cube",
            RunningUnits::MatchChances => "chances of winning the match",
        }
    }
}

impl RolloutWatch {
    fn set_units(&self, units: RunningUnits) {
        if let Ok(mut u) = self.units.lock() {
            *u = units;
        }
    }

    fn stopped(&self) -> bool {
        self.control.should_stop()
    }

    /// Tells the control of a finished cubeless game of play `play`.
    fn record(&self, play: usize, game: &[f64; 5]) {
        self.control
            .record(play, tavla_nn::rollout::game_equity(game));
    }
}

/// The error of a rollout stopped ([`RolloutControl::stop`]) before any game was played.
#[derive(Debug)]
pub(crate) struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the rollout was stopped before any game was played")
    }
}

impl std::error::Error for Stopped {}

/// Runs `tavla rollout`, writing to `out` (progress bar on stderr).
///
/// # Errors
/// When the position or the weights cannot be read, the game is over, or `out` fails.
pub fn rollout(args: &RolloutArgs, out: &mut dyn Write) -> Result<()> {
    let plays = args.dice.is_some() || args.top.is_some() || !args.plays.is_empty();
    note_replaced_roll(&args.position, args.dice.as_deref());
    if let Some(state) = crate::input::parse(&args.position).ok().filter(|_| !plays) {
        if let Dice::Rolled(roll) = state.dice {
            eprintln!(
                "note: the position's roll {roll} is not used: this rolls out the position \
                 before the roll (give the dice, --top or --play to roll out the plays of {roll})"
            );
        }
    }
    rollout_watched(args, out, &RolloutWatch::default())
}

/// [`rollout`], counting its games in `watch` and stopping when it says so.
///
/// # Errors
/// As [`rollout`], and [`Stopped`] when stopped before any game was played.
pub(crate) fn rollout_watched(
    args: &RolloutArgs,
    out: &mut dyn Write,
    watch: &RolloutWatch,
) -> Result<()> {
    use tavla_nn::rollout::{rollout_until, RolloutConfig};
    let mut state = crate::input::parse(&args.position)
        .map_err(|e| InputError(format!("cannot read position {:?}: {e}", args.position)))?;
    if state.position.is_game_over() {
        return Err(InputError("the game is over in this position".into()).into());
    }
    if args.games < tavla_player::MIN_ROLLOUT_GAMES {
        return Err(InputError(format!(
            "--games {}: a rollout plays at least {} games (one says nothing of its spread)",
            args.games,
            tavla_player::MIN_ROLLOUT_GAMES
        ))
        .into());
    }
    if args.balance_parity && args.truncate == 0 {
        return Err(InputError(
            "--balance-parity applies to truncated rollouts: add --truncate".into(),
        )
        .into());
    }
    if args.jacoby && state.match_length > 0 {
        return Err(InputError(
            "--jacoby: the Jacoby rule is for money play, and this position is in a match".into(),
        )
        .into());
    }
    // From here on the position carries the rule, as an XGID with it would.
    state.jacoby |= args.jacoby;
    if args.cube && state.match_length > 0 {
        let score = tavla_nn::met::MatchScore::of(&state, state.turn).ok_or_else(|| {
            InputError(format!(
                "--cube: the score {}-{} of a {}-point match is beyond tavla's match equity table",
                state.score.get(state.turn),
                state.score.get(state.turn.other()),
                state.match_length
            ))
        })?;
        let plays = args.dice.is_some() || args.top.is_some() || !args.plays.is_empty();
        if !score.cube_in_play() && !plays {
            return Err(InputError(
                "--cube: this is the Crawford game, where the cube is not in play".into(),
            )
            .into());
        }
    }
    if let Some(why) = crate::input::xgid_no_double(&args.position, &state).filter(|_| args.cube) {
        return Err(InputError(format!("--cube: {why}: there is no cube to roll out")).into());
    }
    let plays = args.dice.is_some() || args.top.is_some() || !args.plays.is_empty();
    if args.cube && !plays && CubeHolder::of(&state) != CubeHolder::Opponent {
        match state.why_no_double() {
            Some(NoDouble::DeadCube) => {
                return Err(InputError(format!(
                    "--cube: the cube is dead for {}, whose single win at cube {} ends the \
                     match: there is no double to roll out (a cubeless rollout values the \
                     position)",
                    state.turn,
                    state.cube.value()
                ))
                .into());
            }
            Some(NoDouble::CubeAtMaximum) => {
                return Err(InputError(
                    "--cube: the cube is at its highest (32768): there is no double to roll out"
                        .into(),
                )
                .into());
            }
            // The Crawford game was refused above; the opponent's cube is not this branch's.
            Some(NoDouble::Crawford | NoDouble::OpponentsCube) | None => {}
        }
    }
    let search = args.engine.search()?;
    let threads = crate::input::threads(args.threads);
    let config = RolloutConfig {
        games: args.games,
        seed: args.seed,
        threads,
        luck_adjust: !args.no_luck_adjust,
        truncate: args.truncate,
        balance_parity: args.balance_parity,
        ply: args.engine.ply,
        // A limit too far off to represent is no limit.
        deadline: args
            .time_limit
            .and_then(|t| std::time::Instant::now().checked_add(std::time::Duration::from_secs(t))),
        jacoby: args.cube && state.match_length == 0 && state.jacoby,
    };
    if args.dice.is_some() || args.top.is_some() || !args.plays.is_empty() {
        return play_rollouts(args, &state, search, config, out, watch);
    }
    if args.cube {
        return cubeful_rollout(args, &state, &search, config, out, watch);
    }
    watch.total.store(u64::from(args.games), Ordering::Relaxed);
    let count = |p: usize, g: &[f64; 5]| watch.record(p, g);
    let r = with_progress(
        args.quiet,
        u64::from(args.games),
        "games",
        watch.control.counter(),
        || rollout_until(&search, state.position, config, &count, &|| watch.stopped()),
    )
    .ok_or(Stopped)?;
    if args.engine.json {
        #[derive(Serialize)]
        struct JsonRollout {
            #[serde(flatten)]
            settings: JsonRolloutSettings,
            #[serde(flatten)]
            probs: JsonProbs,
            equity_stderr: f64,
            equity_ci95: f64,
        }
        let mut probs = JsonProbs::from(r.probs);
        probs.equity = r.equity as f32;
        let j = JsonRollout {
            settings: JsonRolloutSettings::new(r.games, args.seed, &config),
            probs,
            equity_stderr: r.equity_stderr,
            equity_ci95: ci95_factor(r.games) * r.equity_stderr,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&j)?)?;
    } else {
        let (lo, hi) = r.equity_ci95();
        let p = r.probs;
        writeln!(
            out,
            "{} games ({}), side on roll, cubeless:",
            r.games,
            rollout_settings(r.games, args.seed, &config)
        )?;
        write_probabilities(out, &p)?;
        writeln!(
            out,
            "  equity {:+.4} ± {:.4} (95% CI {:+.4} .. {:+.4})",
            r.equity,
            ci95_factor(r.games) * r.equity_stderr,
            lo,
            hi
        )?;
    }
    Ok(())
}

/// Runs `job` on a thread of its own while a progress bar (none with `quiet`) shows
/// `progress` out of `len` `what` (on stderr), and returns what it returns.
pub(crate) fn with_progress<T: Send>(
    quiet: bool,
    len: u64,
    what: &str,
    progress: &std::sync::atomic::AtomicU64,
    job: impl FnOnce() -> T + Send,
) -> T {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        crate::players::load_shared_bearoff_before_progress();
        ProgressBar::new(len)
    };
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{wide_bar}}] {{pos}}/{{len}} {what} ({{per_sec}}, eta {{eta}})"
        ))
        .expect("valid template"),
    );
    let r = std::thread::scope(|s| {
        let job = s.spawn(job);
        while !job.is_finished() {
            bar.set_position(progress.load(std::sync::atomic::Ordering::Relaxed));
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        job.join().expect("the rollout thread does not panic")
    });
    bar.finish_and_clear();
    r
}

/// `tavla rollout POSITION DICE`: the plays of a roll rolled out on the same dice, ranked by
/// their rolled-out equity, with each one's difference from the best.
fn play_rollouts(
    args: &RolloutArgs,
    state: &GameState,
    mut search: Search,
    config: tavla_nn::rollout::RolloutConfig,
    out: &mut dyn Write,
    watch: &RolloutWatch,
) -> Result<()> {
    let roll = roll_of(
        args.dice.as_deref(),
        state,
        "--top and --play roll out the plays of a roll: give the dice after the position \
         (for example `31`)",
    )?;
    if args.top == Some(0) {
        return Err(InputError("--top must be at least 1".into()).into());
    }
    let pos = state.position;
    let mut plays = PlayList::new();
    pos.legal_plays(roll, &mut plays);
    let mut chosen: Vec<usize> = Vec::new();
    let top = args
        .top
        .unwrap_or(if args.plays.is_empty() { 5 } else { 0 });
    if top > 0 {
        // The candidates as the rollouts will value them: with the cube, by the 2-ply cubeful
        // equity (money) or match equity; cubeless, by the cubeless equity.
        let worth = match PlayWorth::of(state) {
            // (A cube at its highest stays cubeless: it cannot be turned again.)
            PlayWorth::Cubeless if args.cube && state.cube.log2 < tavla_core::Cube::MAX_LOG2 => {
                PlayWorth::Cubeful(CubeHolder::of(state))
            }
            _ if !args.cube => PlayWorth::Cubeless,
            w => w,
        };
        let mut ranked: Vec<RankedPlay> = Vec::new();
        search.rank_plays_worth(&plays, 2, &mut ranked, worth);
        chosen.extend(ranked.iter().take(top).map(|r| r.index));
    }
    for text in &args.plays {
        let play = text
            .parse::<tavla_notation::PlayText>()
            .map_err(|e| InputError(format!("--play {text:?}: {e}")))?
            .resolve(&pos, roll)
            .map_err(|e| InputError(format!("--play {text:?}: {e}")))?;
        let index = (0..plays.len())
            .find(|&i| plays.play(i) == play)
            .expect("a resolved play is one of the legal plays");
        if !chosen.contains(&index) {
            chosen.push(index);
        }
    }
    let afters: Vec<Position> = chosen.iter().map(|&i| plays.positions()[i]).collect();
    let len = u64::from(args.games) * afters.len() as u64;
    let holder = CubeHolder::of(state);
    let score = tavla_nn::met::MatchScore::of(state, state.turn);
    let cube = state.cube.value();
    if let Ok(mut texts) = watch.plays.lock() {
        *texts = chosen
            .iter()
            .map(|&i| crate::cmd::play_text(&pos, &plays.play(i)))
            .collect();
    }
    if args.cube {
        watch.set_units(if score.is_some() {
            RunningUnits::MatchChances
        } else {
            RunningUnits::CubefulEquity
        });
    }
    // Last: a watcher that sees the total sees the labels and units too.
    watch.total.store(len, Ordering::Relaxed);
    let stop = || watch.stopped();
    let count = |p: usize, g: &[f64; 5]| watch.record(p, g);
    // Each play's result for the mover, with its probabilities when cubeless.
    let rows: Vec<(PlayResult, Option<Probabilities>)> = with_progress(
        args.quiet,
        len,
        "games, all plays",
        watch.control.counter(),
        || {
            if args.cube {
                tavla_nn::rollout::cubeful_play_rollouts_until(
                    &search,
                    &afters,
                    holder,
                    cube,
                    score,
                    config,
                    &|i, v| watch.control.record(i, v),
                    &stop,
                )
                .map(|rs| {
                    rs.into_iter()
                        .map(|r| (PlayResult::from(r), None))
                        .collect()
                })
            } else {
                tavla_nn::rollout::rollout_plays_until(&search, &afters, config, &count, &stop).map(
                    |rs| {
                        rs.into_iter()
                            .map(|r| (PlayResult::from(r), Some(r.result.probs)))
                            .collect()
                    },
                )
            }
        },
    )
    .ok_or(Stopped)?;
    // The games played on each play (all asked for unless --time-limit stopped them).
    let games = rows.iter().map(|r| r.0.games).min().unwrap_or(args.games);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| rows[b].0.equity.total_cmp(&rows[a].0.equity));
    let text = |k: usize| crate::cmd::play_text(&pos, &plays.play(chosen[k]));
    let cubeful = args
        .cube
        .then_some(if score.is_some() { "match" } else { "money" });
    if args.engine.json {
        #[derive(Serialize)]
        struct JsonPlay {
            rank: usize,
            play: String,
            #[serde(flatten)]
            probs: Option<JsonProbs>,
            #[serde(skip_serializing_if = "Option::is_none")]
            equity: Option<f64>,
            equity_stderr: f64,
            equity_ci95: f64,
            difference: f64,
            difference_ci95: f64,
        }
        #[derive(Serialize)]
        struct JsonPlays {
            #[serde(flatten)]
            settings: JsonRolloutSettings,
            dice: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            cube: Option<&'static str>,
            plays: Vec<JsonPlay>,
        }
        let plays = order
            .iter()
            .enumerate()
            .map(|(rank, &k)| {
                let (r, probs) = &rows[k];
                // Cubeless, the equity is written with the probabilities.
                let probs = probs.map(|p| JsonProbs {
                    equity: r.equity as f32,
                    ..JsonProbs::from(p)
                });
                JsonPlay {
                    rank: rank + 1,
                    play: text(k),
                    equity: probs.is_none().then_some(r.equity),
                    probs,
                    equity_stderr: r.equity_stderr,
                    equity_ci95: ci95_factor(games) * r.equity_stderr,
                    difference: r.difference,
                    difference_ci95: ci95_factor(games) * r.difference_stderr,
                }
            })
            .collect();
        let j = JsonPlays {
            settings: JsonRolloutSettings::new(games, args.seed, &config),
            dice: roll.to_string(),
            cube: cubeful,
            plays,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&j)?)?;
        return Ok(());
    }
    let how = match cubeful {
        None => "cubeless".to_string(),
        Some(kind) => format!(
            "cubeful ({}; the cube {})",
            if kind == "match" {
                "match winning chances"
            } else {
                "money, per unit of the cube"
            },
            match holder {
                _ if score.is_some_and(|s| !s.cube_in_play()) => {
                    "out of play, the Crawford game".to_string()
                }
                CubeHolder::Centre => format!("at {cube} in the middle"),
                CubeHolder::OnRoll => format!("at {cube}, the mover's"),
                CubeHolder::Opponent => format!("at {cube}, the opponent's"),
            }
        ),
    };
    writeln!(
        out,
        "{} for {roll}, {} each ({}), on the same dice; {how}, for the side that plays:",
        counted(rows.len(), "play"),
        counted(games as usize, "game"),
        rollout_settings(games, args.seed, &config)
    )?;
    // Match winning chances as percentages, as the position's cubeful rollout writes them.
    let percent = cubeful == Some("match");
    let z = ci95_factor(games);
    for (rank, &k) in order.iter().enumerate() {
        let (r, probs) = &rows[k];
        let diff = match (rank, percent) {
            (0, _) => String::new(),
            (_, false) => format!("{:+.4} ± {:.4}", r.difference, z * r.difference_stderr),
            (_, true) => format!(
                "{:+.2}% ± {:.2}%",
                100.0 * r.difference,
                100.0 * z * r.difference_stderr
            ),
        };
        let value = if percent {
            format!(
                "{:6.2}% ± {:.2}%",
                100.0 * r.equity,
                100.0 * z * r.equity_stderr
            )
        } else {
            format!("{:+.4} ± {:.4}", r.equity, z * r.equity_stderr)
        };
        let columns = probs.as_ref().map(probability_columns).unwrap_or_default();
        let line = format!(
            "{:>2}. {:<24} {value}  {diff:<17}  {columns}",
            rank + 1,
            text(k),
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// One play's rolled-out result for the mover (cubeless equity, cubeful points per unit of the
/// cube, or match winning chances), with its paired difference from the best.
struct PlayResult {
    /// Games played.
    games: u32,
    equity: f64,
    equity_stderr: f64,
    difference: f64,
    difference_stderr: f64,
}

impl From<tavla_nn::rollout::PlayRollout> for PlayResult {
    fn from(r: tavla_nn::rollout::PlayRollout) -> Self {
        PlayResult {
            games: r.result.games,
            equity: r.result.equity,
            equity_stderr: r.result.equity_stderr,
            difference: r.difference,
            difference_stderr: r.difference_stderr,
        }
    }
}

impl From<tavla_nn::rollout::CubefulPlayRollout> for PlayResult {
    fn from(r: tavla_nn::rollout::CubefulPlayRollout) -> Self {
        PlayResult {
            games: r.games,
            equity: r.equity,
            equity_stderr: r.equity_stderr,
            difference: r.difference,
            difference_stderr: r.difference_stderr,
        }
    }
}

/// A rollout's settings in `tavla rollout --json`.
#[derive(Serialize)]
struct JsonRolloutSettings {
    games: u32,
    /// The games asked for: more than `games` where the time limit stopped the rollout.
    games_asked: u32,
    seed: u64,
    luck_adjust: bool,
    truncate: u32,
    balance_parity: bool,
    ply: u8,
    /// Cubeful money rollouts: the Jacoby rule was played.
    jacoby: bool,
}

impl JsonRolloutSettings {
    fn new(games: u32, seed: u64, config: &tavla_nn::rollout::RolloutConfig) -> Self {
        JsonRolloutSettings {
            games,
            games_asked: config.games,
            seed,
            luck_adjust: config.luck_adjust,
            truncate: config.truncate,
            balance_parity: config.balance_parity,
            ply: config.ply,
            jacoby: config.jacoby,
        }
    }
}

/// A rollout's settings in words: seed, players, luck adjustment, truncation, and the time
/// limit where it stopped the rollout before the `config.games` asked for (`games` played).
fn rollout_settings(games: u32, seed: u64, config: &tavla_nn::rollout::RolloutConfig) -> String {
    format!(
        "seed {seed}, {}-ply players, {}luck-adjusted{}{}{}",
        config.ply,
        if config.luck_adjust { "" } else { "not " },
        if config.truncate > 0 {
            format!(
                ", truncated after {} play{}",
                config.truncation_words(),
                if config.truncate == 1 && !config.balance_parity {
                    ""
                } else {
                    "s"
                }
            )
        } else {
            String::new()
        },
        if config.jacoby {
            ", under the Jacoby rule"
        } else {
            ""
        },
        if games < config.games {
            format!(
                ", stopped by the time limit after {games} of {} games",
                config.games
            )
        } else {
            String::new()
        }
    )
}

/// `tavla rollout --cube`: both cube lines rolled out, as text or JSON.
fn cubeful_rollout(
    args: &RolloutArgs,
    state: &tavla_core::GameState,
    search: &tavla_nn::Search,
    config: tavla_nn::rollout::RolloutConfig,
    out: &mut dyn Write,
    watch: &RolloutWatch,
) -> Result<()> {
    let holder = CubeHolder::of(state);
    let score = tavla_nn::met::MatchScore::of(state, state.turn);
    // With the opponent's cube there is no double: one line, playing on.
    let can_double = holder != CubeHolder::Opponent;
    let len = if can_double { 2 } else { 1 } * u64::from(args.games);
    watch.set_units(if score.is_some() {
        RunningUnits::MatchChances
    } else {
        RunningUnits::CubefulEquity
    });
    if let Ok(mut lines) = watch.lines.lock() {
        *lines = if can_double {
            vec!["no double", "double, take"]
        } else {
            vec!["playing on"]
        };
    }
    // Last: a watcher that sees the total sees the labels and units too.
    watch.total.store(len, Ordering::Relaxed);
    let r = with_progress(
        args.quiet,
        len,
        if can_double {
            "games, both lines"
        } else {
            "games"
        },
        watch.control.counter(),
        || {
            tavla_nn::rollout::cubeful_rollout_until(
                search,
                state.position,
                holder,
                state.cube.value(),
                score,
                config,
                &|i, v| watch.control.record(i, v),
                &|| watch.stopped(),
            )
        },
    )
    .ok_or(Stopped)?;
    let redouble = holder == CubeHolder::OnRoll;
    // In a match the lines are chances of winning the match: `k` turns their differences into
    // normalised equity (a pass of the double 1, the loss of a single game at the cube -1).
    let (normalise, k) = match score {
        None => (None, 1.0),
        Some(s) => {
            let cube = state.cube.value();
            let (pass, lose) = (f64::from(s.after(cube, 0)), f64::from(s.after(0, cube)));
            let k = 2.0 / (pass - lose);
            (Some((s, pass, lose)), k)
        }
    };
    let equity = |m: f64| normalise.map_or(m, |(_, _, lose)| k * (m - lose) - 1.0);
    let z = ci95_factor(r.games);
    let ci = |se: f64| z * se;
    let eq_ci = |se: f64| z * se * k;
    let action = r
        .double
        .map_or(CubeAction::NotAvailable, |d| d.analysis.action);
    if args.engine.json {
        /// The double's lines: absent when the opponent owns the cube.
        #[derive(Serialize)]
        struct JsonDouble {
            double_take: f64,
            double_take_ci95: f64,
            double_pass: f64,
        }
        #[derive(Serialize)]
        struct JsonChances {
            no_double: f64,
            no_double_ci95: f64,
            #[serde(flatten)]
            double: Option<JsonDouble>,
        }
        #[derive(Serialize)]
        struct JsonCubeful {
            #[serde(flatten)]
            settings: JsonRolloutSettings,
            cube_value: u32,
            holder: &'static str,
            no_double: f64,
            no_double_ci95: f64,
            #[serde(flatten)]
            double: Option<JsonDouble>,
            #[serde(skip_serializing_if = "Option::is_none")]
            double_take_minus_no_double_ci95: Option<f64>,
            action: String,
            /// In a match: the lines as chances of winning the match (the equities above are
            /// these normalised).
            #[serde(skip_serializing_if = "Option::is_none")]
            match_winning_chances: Option<JsonChances>,
        }
        let j = JsonCubeful {
            settings: JsonRolloutSettings::new(r.games, args.seed, &config),
            cube_value: state.cube.value(),
            holder: holder.name(),
            no_double: equity(r.no_double),
            no_double_ci95: eq_ci(r.no_double_stderr),
            double: r.double.map(|d| JsonDouble {
                double_take: equity(d.double_take),
                double_take_ci95: eq_ci(d.double_take_stderr),
                double_pass: 1.0,
            }),
            double_take_minus_no_double_ci95: r.double.map(|d| eq_ci(d.difference_stderr)),
            action: action.describe(redouble).to_string(),
            match_winning_chances: normalise.map(|(_, pass, _)| JsonChances {
                no_double: r.no_double,
                no_double_ci95: ci(r.no_double_stderr),
                double: r.double.map(|d| JsonDouble {
                    double_take: d.double_take,
                    double_take_ci95: ci(d.double_take_stderr),
                    double_pass: pass,
                }),
            }),
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&j)?)?;
        return Ok(());
    }
    let game = match normalise {
        None => "money".to_string(),
        Some((s, _, _)) => format!(
            "{}-point match, the side on roll {}-away, the opponent {}-away{}",
            state.match_length,
            s.me,
            s.them,
            if s.post_crawford {
                ", after the Crawford game"
            } else {
                ""
            }
        ),
    };
    writeln!(
        out,
        "{} games a line ({}, 0-ply cube decisions), side on roll, {game}, the cube on {} ({}){}:",
        r.games,
        rollout_settings(r.games, args.seed, &config),
        state.cube.value(),
        match holder {
            CubeHolder::Centre => "in the middle",
            CubeHolder::OnRoll => "owned by the side on roll",
            CubeHolder::Opponent => "owned by the opponent",
        },
        if normalise.is_some() {
            "; match winning chances, and normalised equity"
        } else {
            ", per unit of the cube"
        }
    )?;
    let verb = if redouble { "redouble" } else { "double" };
    // One line's value: equity in money play; the chance of winning the match and its
    // normalised equity in a match.
    let value = |m: f64, se: Option<f64>| match (normalise, se) {
        (None, Some(se)) => format!("{m:+.4} ± {:.4}", ci(se)),
        (None, None) => format!("{m:+.4}"),
        (Some(_), Some(se)) => format!(
            "{:6.2}% ± {:.2}%  ({:+.4} ± {:.4})",
            100.0 * m,
            100.0 * ci(se),
            equity(m),
            eq_ci(se)
        ),
        (Some(_), None) => format!("{:6.2}%          ({:+.4})", 100.0 * m, equity(m)),
    };
    let Some(double) = r.double else {
        writeln!(
            out,
            "  {:<16} {}",
            "playing on",
            value(r.no_double, Some(r.no_double_stderr))
        )?;
        writeln!(out, "  the opponent owns the cube: no double to decide")?;
        return Ok(());
    };
    writeln!(
        out,
        "  {:<16} {}",
        format!("no {verb}"),
        value(r.no_double, Some(r.no_double_stderr))
    )?;
    writeln!(
        out,
        "  {:<16} {}  (minus no {verb}: {:+.4} ± {:.4})",
        format!("{verb}, take"),
        value(double.double_take, Some(double.double_take_stderr)),
        k * (double.double_take - r.no_double),
        eq_ci(double.difference_stderr)
    )?;
    let pass = normalise.map_or(1.0, |(_, pass, _)| pass);
    writeln!(
        out,
        "  {:<16} {}",
        format!("{verb}, pass"),
        value(pass, None)
    )?;
    writeln!(out, "  proper cube action: {}", action.describe(redouble))?;
    Ok(())
}

/// The win and lose lines of `eval` and `rollout`.
/// `n` things: `1 game`, `2 games`.
fn counted(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// A play's probabilities in one line's columns: `win  55.5%  17.7%   0.6%  lose ...`
/// (win, gammon, backgammon for each side).
fn probability_columns(p: &Probabilities) -> String {
    let p = shown(*p);
    format!(
        "win {:5.1}% {:5.1}% {:5.1}%  lose {:5.1}% {:5.1}% {:5.1}%",
        100.0 * p.win,
        100.0 * p.win_gammon,
        100.0 * p.win_backgammon,
        100.0 * p.lose(),
        100.0 * p.lose_gammon,
        100.0 * p.lose_backgammon
    )
}

fn write_probabilities(out: &mut dyn Write, p: &Probabilities) -> Result<()> {
    let p = shown(*p);
    writeln!(
        out,
        "  win {:5.1}%  gammon {:5.1}%  backgammon {:5.1}%",
        100.0 * p.win,
        100.0 * p.win_gammon,
        100.0 * p.win_backgammon
    )?;
    writeln!(
        out,
        "  lose {:5.1}%  gammon {:5.1}%  backgammon {:5.1}%",
        100.0 * p.lose(),
        100.0 * p.lose_gammon,
        100.0 * p.lose_backgammon
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    const START: &str = "4HPwATDgc/ABMA";

    fn engine(ply: u8, json: bool) -> EngineArgs {
        EngineArgs {
            ply,
            weights: None,
            json,
            no_bearoff: true,
            prune: PruneArgs::default(),
        }
    }

    fn run_hint(position: &str, dice: Option<&str>, ply: u8, json: bool) -> anyhow::Result<String> {
        let args = HintArgs {
            position: position.into(),
            dice: dice.map(Into::into),
            top: 5,
            engine: engine(ply, json),
        };
        let mut out = Vec::new();
        hint(&args, &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn hint_lists_the_best_plays_sorted() {
        let text = run_hint(START, Some("31"), 0, false).unwrap();
        assert_eq!(text.lines().count(), 5, "{text}");
        assert!(text.starts_with(" 1. "), "{text}");
        let json: serde_json::Value =
            serde_json::from_str(&run_hint(START, Some("31"), 1, true).unwrap()).unwrap();
        let rows = json.as_array().unwrap();
        assert_eq!(rows.len(), 5);
        let eq: Vec<f64> = rows.iter().map(|r| r["equity"].as_f64().unwrap()).collect();
        assert_eq!(rows[0]["rank"], 1);
        assert_eq!(rows[0]["ply"], 1);
        // The best play is first and was searched at the asked ply.
        assert!(eq.iter().all(|&e| e <= eq[0]), "{eq:?}");
        let plays: Vec<&str> = rows.iter().map(|r| r["play"].as_str().unwrap()).collect();
        let mut unique = plays.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), plays.len(), "{plays:?}");
    }

    #[test]
    fn hint_ranks_by_match_equity_in_match_play() {
        // A 1-point match (match ID for gnubg's player 1 on roll): only winning counts.
        let dmp = "4HPwATDgc/ABMA:cAkgAAAAAAAE";
        let v: serde_json::Value =
            serde_json::from_str(&run_hint(dmp, Some("64"), 0, true).unwrap()).unwrap();
        let rows = v.as_array().unwrap();
        let wins: Vec<f64> = rows.iter().map(|r| r["win"].as_f64().unwrap()).collect();
        for (r, w) in rows.iter().zip(&wins) {
            let m = r["match_equity"].as_f64().unwrap();
            assert!((m - (2.0 * w - 1.0)).abs() < 1e-4, "{v}");
        }
        assert!(wins.windows(2).all(|w| w[0] >= w[1]), "{wins:?}");
        // Money play has no match equity.
        let money: serde_json::Value =
            serde_json::from_str(&run_hint(START, Some("64"), 0, true).unwrap()).unwrap();
        assert!(money[0].get("match_equity").is_none(), "{money}");
        assert!(money[0].get("cubeful_equity").is_none(), "{money}");
        // Money play with the cube turned (on 2, the opponent's): ranked by cubeful equity.
        let mut state = tavla_notation::parse_position(START).unwrap();
        state.cube = tavla_core::Cube {
            log2: 1,
            owner: tavla_core::CubeOwner::Side(!state.turn),
        };
        let xgid = tavla_notation::Xgid::new(state).to_string();
        let v: serde_json::Value =
            serde_json::from_str(&run_hint(&xgid, Some("64"), 0, true).unwrap()).unwrap();
        let worth: Vec<f64> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["cubeful_equity"].as_f64().unwrap())
            .collect();
        assert!(worth.windows(2).all(|w| w[0] >= w[1]), "{v}");
        let text = run_hint(&xgid, Some("64"), 0, false).unwrap();
        assert!(text.contains("cubeful eq"), "{text}");
    }

    #[test]
    fn pruned_search_gives_the_same_opening_play() {
        let rank = |prune: PruneArgs| {
            let mut engine = engine(2, true);
            engine.prune = prune;
            let args = HintArgs {
                position: START.into(),
                dice: Some("31".into()),
                top: 1,
                engine,
            };
            let mut out = Vec::new();
            hint(&args, &mut out).unwrap();
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            (
                v[0]["play"].as_str().unwrap().to_string(),
                v[0]["equity"].as_f64().unwrap(),
            )
        };
        let (full, pruned) = (rank(PruneArgs::off()), rank(PruneArgs::default()));
        assert_eq!(full.0, pruned.0);
        assert!(
            (full.1 - pruned.1).abs() < 0.01,
            "{full:?} against {pruned:?}"
        );
    }

    #[test]
    fn eval_gives_consistent_probabilities() {
        let args = EvalArgs {
            position: START.into(),
            engine: engine(1, true),
        };
        let mut out = Vec::new();
        eval(&args, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let f = |k: &str| v[k].as_f64().unwrap();
        assert!(f("win") > 0.3 && f("win") < 0.7);
        assert!(f("win") >= f("win_gammon") && f("win_gammon") >= f("win_backgammon"));
        let eq = 2.0 * f("win") - 1.0 + f("win_gammon") - f("lose_gammon") + f("win_backgammon")
            - f("lose_backgammon");
        assert!((eq - f("equity")).abs() < 1e-5);
    }

    fn run_eval(position: &str, ply: u8, json: bool) -> String {
        let args = EvalArgs {
            position: position.into(),
            engine: engine(ply, json),
        };
        let mut out = Vec::new();
        eval(&args, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn eval_gives_the_cube_decision() {
        // The opening position: no double, at every depth.
        for ply in [0, 1] {
            let v: serde_json::Value = serde_json::from_str(&run_eval(START, ply, true)).unwrap();
            let cube = &v["cube"];
            assert_eq!(cube["holder"], "centre");
            assert_eq!(cube["action"], "No double, take", "{v}");
            let (nd, dt) = (
                cube["no_double"].as_f64().unwrap(),
                cube["double_take"].as_f64().unwrap(),
            );
            assert!(nd > dt && nd.abs() < 0.3, "{v}");
            assert_eq!(cube["equity"], cube["no_double"]);
        }
        let text = run_eval(START, 0, false);
        assert!(
            text.contains("proper cube action: No double, take"),
            "{text}"
        );
        // The cube on 2, owned by the side not on roll (player 0 while player 1 is on roll).
        let theirs = run_eval("4HPwATDgc/ABMA:QQkAAAAAAAAE", 0, false);
        assert!(theirs.contains("the opponent owns it"), "{theirs}");
        // A 5-point match at 0-0: the decision in match winning chances.
        let in_match = run_eval("4HPwATDgc/ABMA:cAmgAAAAAAAE", 0, false);
        assert!(
            in_match.contains("5-point match, X needs 5, O needs 5"),
            "{in_match}"
        );
        assert!(
            in_match.contains("proper cube action: No double, take"),
            "{in_match}"
        );
        let v: serde_json::Value =
            serde_json::from_str(&run_eval("4HPwATDgc/ABMA:cAmgAAAAAAAE", 0, true)).unwrap();
        // Near even at the start: no double worth about half the match, a pass of a double
        // (the opponent then 4-away against 5) more.
        let mwc: Vec<f64> = v["cube"]["match_winning_chances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_f64().unwrap())
            .collect();
        assert!((mwc[0] - 0.5).abs() < 0.05 && mwc[2] > mwc[0], "{v}");
        // The cube at its highest, 2^15: no double.
        let top = run_eval(
            "XGID=---bBDC-BB---Ba--b-bcbab--:15:0:1:00:0:0:0:0:15",
            0,
            false,
        );
        assert!(top.contains("Cube: the cube is at its highest."), "{top}");
        // The Crawford game: no cube decision (X needs 1 at 4-2 in a 5-point match).
        let mut state = tavla_notation::parse_position("4HPwATDgc/ABMA:cAmgAAAAAAAE").unwrap();
        state.score = tavla_core::BySide { x: 4, o: 2 };
        state.crawford = true;
        let text = run_eval(&tavla_notation::Xgid::new(state).to_string(), 0, false);
        assert!(
            text.contains("Cube: the Crawford game, no doubling; match winning chance "),
            "{text}"
        );
        // After it, the leader's cube is dead (X needs 1); the trailer's is not.
        state.crawford = false;
        let text = run_eval(&tavla_notation::Xgid::new(state).to_string(), 0, false);
        assert!(
            text.contains("Cube: dead for X, whose single win at cube 1 ends the match"),
            "{text}"
        );
        state.score = tavla_core::BySide { x: 2, o: 4 };
        let text = run_eval(&tavla_notation::Xgid::new(state).to_string(), 0, false);
        assert!(text.contains("proper cube action"), "{text}");
    }

    #[test]
    fn input_errors_say_what_is_wrong() {
        let err = |r: anyhow::Result<String>| format!("{:#}", r.unwrap_err());
        assert!(err(run_hint(START, Some("71"), 0, false)).contains("cannot read dice \"71\""));
        assert!(err(run_hint("nonsense", Some("31"), 0, false)).contains("cannot read position"));
        assert!(err(run_hint(START, None, 0, false)).contains("no dice"));
        assert!(err(run_hint(START, Some("31"), 4, false)).contains("--ply must be in 0..=3"));
        let dir = std::env::temp_dir().join(format!("tavla-nn-cmd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.tnn");
        let mut bytes = tavla_nn::DEFAULT_WEIGHTS.to_vec();
        bytes[8] = 7; // a format version from the future
        std::fs::write(&bad, bytes).unwrap();
        let args = EvalArgs {
            position: START.into(),
            engine: EngineArgs {
                ply: 0,
                weights: Some(bad),
                json: false,
                no_bearoff: true,
                prune: PruneArgs::default(),
            },
        };
        let e = format!("{:#}", eval(&args, &mut Vec::new()).unwrap_err());
        assert!(e.contains("format version 7"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn curve_csv_is_read_per_opponent_and_errors_name_the_line() {
        let csv = "games,opponent,check_games,ppg,ppg_stderr,win_rate\n\
                   50000,gnubg,400,-1.3,0.05,0.2\n\
                   25000,gnubg,400,-0.9,0.06,0.3\n\
                   25000,heuristic,1000,0.13,0.04,0.55\n";
        let series = read_curve(csv, "c.csv").unwrap();
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].0, "gnubg");
        assert_eq!(series[0].1, vec![(25.0, -0.9, 0.06), (50.0, -1.3, 0.05)]);
        assert_eq!(series[1].1, vec![(25.0, 0.13, 0.04)]);
        let e = format!(
            "{:#}",
            read_curve("h\n1,a,2,x,0.1,0.5\n", "c.csv").unwrap_err()
        );
        assert!(e.contains("c.csv:2: field 4 (ppg)"), "{e}");
        let e = format!("{:#}", read_curve("h\n1,a,2\n", "c.csv").unwrap_err());
        assert!(e.contains("c.csv:2: 3 fields, expected 6"), "{e}");
        assert!(read_curve("h\n", "c.csv").is_err());
    }
}
