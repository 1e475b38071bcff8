//! `tavla train`: training runs. `tavla train heuristic` tunes the seed article's constants.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use tavla_core::Rules;
use tavla_eval::heuristic::HeuristicConfig;
use tavla_nn::Weights;
use tavla_train::heuristic::{Decision, TrainSettings, Trainer};

use crate::arena_cmd::VariantArg;
use crate::input::InputError;

/// `tavla train`.
#[derive(Args)]
pub struct TrainArgs {
    #[command(subcommand)]
    what: TrainCommand,
}

#[derive(Subcommand)]
enum TrainCommand {
    /// Tune the heuristic constants as the seed article does: one constant at a time, play a
    /// grid of candidate values against the current configuration, keep the best when it wins
    /// more than the threshold. Resumes from the checkpoint when one exists.
    Heuristic(HeuristicArgs),
    /// Train the neural networks by TD(lambda) self-play from random weights (seeded,
    /// resumable from the checkpoint in --dir, with periodic strength checks).
    Td(crate::nn_cmd::TrainTdArgs),
    /// Measure the learning curve of a TD run: its snapshots against fixed opponents.
    Curve(crate::nn_cmd::TrainCurveArgs),
    /// Draw a learning curve (the CSV of `train curve` or of a TD run) as a PNG.
    PlotCurve(crate::nn_cmd::PlotCurveArgs),
    /// Label positions from self-play with tavla's own n-ply search (data for `train fit`;
    /// seeded, multithreaded, resumable).
    Label(crate::supervised_cmd::LabelArgs),
    /// Train the networks by gradient descent on labelled positions (from `train label`),
    /// keeping the weights with the best validation loss.
    Fit(crate::supervised_cmd::FitArgs),
    /// Label the positions of a label file again, line for line, by a search of other depth
    /// or other networks (search twins of rollout labels; multithreaded, resumable).
    Relabel(crate::relabel_cmd::RelabelArgs),
    /// Average the weights of several files of the same shape, weight by weight (a "soup" of
    /// fits from one start).
    Average(AverageArgs),
}

/// `tavla train average`.
#[derive(Args)]
struct AverageArgs {
    /// Weights files to average: networks of the same sizes, as fits grown or fine-tuned from
    /// one start are.
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    weights: Vec<PathBuf>,
    /// Where to write the averaged weights.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// `tavla train heuristic`.
#[derive(Args)]
struct HeuristicArgs {
    /// Where to write the configuration (TOML), after every step.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The configuration to start from (TOML); default: the article program's own untrained
    /// configuration (bf = bfp = 1, one point per run of made points).
    #[arg(long, value_name = "FILE")]
    start: Option<PathBuf>,
    /// Train until this many steps (candidates) have been played in all, counting the steps of
    /// the run being resumed.
    #[arg(long, default_value_t = 50, value_name = "N")]
    steps: u64,
    /// Games per candidate (even).
    #[arg(long, default_value_t = 3000, value_name = "N")]
    games: u64,
    /// Share of games a candidate must win to be kept.
    #[arg(long, default_value_t = 0.51, value_name = "X")]
    threshold: f64,
    /// Seed of the dice.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Rules of the training games.
    #[arg(long, value_enum, default_value_t = VariantArg::Standard)]
    variant: VariantArg,
    /// Worker threads; 0 for one per core.
    #[arg(long, default_value_t = 0, value_parser = crate::input::threads_arg, value_name = "T")]
    threads: usize,
    /// The checkpoint (JSON), written after every step; default: the output file with the
    /// extension `.checkpoint.json`.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
}

/// Runs `tavla train`.
pub fn train(args: &TrainArgs, out: &mut impl Write) -> Result<()> {
    match &args.what {
        TrainCommand::Heuristic(h) => heuristic(h, out),
        TrainCommand::Td(t) => crate::nn_cmd::train_td(t),
        TrainCommand::Curve(c) => crate::nn_cmd::train_curve(c),
        TrainCommand::PlotCurve(p) => crate::nn_cmd::plot_curve(p),
        TrainCommand::Label(l) => crate::supervised_cmd::label(l),
        TrainCommand::Fit(f) => crate::supervised_cmd::fit(f, out),
        TrainCommand::Relabel(r) => crate::relabel_cmd::relabel(r),
        TrainCommand::Average(a) => average(a, out),
    }
}

/// The mean of the weights files, written to `--out`: a running mean, so that each file
/// counts the same.
fn average(args: &AverageArgs, out: &mut impl Write) -> Result<()> {
    let load = |path: &PathBuf| Weights::load(path).map_err(|e| InputError(e.to_string()));
    let mut mean = load(&args.weights[0])?;
    let shape = |w: &Weights| {
        w.networks()
            .each_ref()
            .map(|n| (n.inputs(), n.hidden(), n.second()))
    };
    // Hidden units of each network, "1024" or "1024+64" with a second layer.
    let units = |w: &Weights| {
        let units = shape(w).map(|(_, h, s)| match s {
            0 => h.to_string(),
            s => format!("{h}+{s}"),
        });
        units.join(", ")
    };
    for (k, path) in args.weights.iter().enumerate().skip(1) {
        let next = load(path)?;
        if shape(&next) != shape(&mean) {
            return Err(InputError(format!(
                "{}: networks of {} hidden units, but {} has {}; only weights of the same \
                 sizes can be averaged",
                path.display(),
                units(&next),
                args.weights[0].display(),
                units(&mean),
            ))
            .into());
        }
        #[allow(clippy::cast_precision_loss)]
        mean.blend_towards(&next, 1.0 / (k + 1) as f32);
        mean.games = mean.games.max(next.games);
    }
    mean.save(&args.out)
        .map_err(|e| InputError(e.to_string()))?;
    writeln!(
        out,
        "the mean of {} weights files written to {}",
        args.weights.len(),
        args.out.display()
    )?;
    Ok(())
}

fn default_checkpoint(out: &Path) -> PathBuf {
    out.with_extension("checkpoint.json")
}

fn heuristic(args: &HeuristicArgs, out: &mut impl Write) -> Result<()> {
    if args.games < 2 || args.games % 2 == 1 {
        return Err(InputError(format!(
            "invalid --games {}: must be even and at least 2 (pairs of duplicate games)",
            args.games
        ))
        .into());
    }
    if !(args.threshold > 0.0 && args.threshold < 1.0) {
        return Err(InputError(format!(
            "invalid --threshold {}: must be between 0 and 1",
            args.threshold
        ))
        .into());
    }
    let settings = TrainSettings {
        seed: args.seed,
        games_per_step: args.games,
        threshold: args.threshold,
        rules: Rules::from(args.variant),
        threads: args.threads,
    };
    let checkpoint = args
        .checkpoint
        .clone()
        .unwrap_or_else(|| default_checkpoint(&args.out));

    // Read for a resumed run too, which must have started from it.
    let start = match &args.start {
        Some(file) => HeuristicConfig::load(file).map_err(|e| InputError(e.to_string()))?,
        None => HeuristicConfig::article_untrained(),
    };
    let mut trainer = if checkpoint.exists() {
        let saved = Trainer::load_checkpoint(&checkpoint)?;
        let t = Trainer::resume(saved, settings, &start, &checkpoint)?;
        writeln!(
            out,
            "resuming {} at step {}",
            checkpoint.display(),
            t.steps_done()
        )?;
        t
    } else {
        Trainer::new(start, settings)?
    };
    out.flush()?;

    let remaining = args.steps.saturating_sub(trainer.steps_done());
    let progress = ProgressBar::new(remaining * args.games).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} {wide_bar} {pos}/{len} games ({per_sec}, {eta} left) {msg}",
        )
        .expect("a valid template"),
    );
    let mut kept = 0;
    while trainer.steps_done() < args.steps {
        progress.set_message(format!("step {}", trainer.steps_done()));
        let record = trainer.step(&progress)?;
        kept += u64::from(matches!(record.decision, Some(Decision::Kept { .. })));
        trainer.save_checkpoint(&checkpoint)?;
        trainer
            .config()
            .save(&args.out)
            .with_context(|| format!("after step {}", record.step))?;
        progress.suspend(|| -> Result<()> {
            writeln!(out, "{record}")?;
            out.flush()?;
            Ok(())
        })?;
    }
    progress.finish_and_clear();
    // Write the configuration even when no step was left to play.
    trainer.config().save(&args.out)?;
    let c = trainer.config();
    writeln!(
        out,
        "{} steps, {kept} changes kept in this run; bf {} bfp {} bt {} cbp {} cb {} rb {}; written to {} \
         (checkpoint {})",
        trainer.steps_done(),
        c.bf,
        c.bfp,
        c.bt,
        c.cbp,
        c.cb,
        c.rb,
        args.out.display(),
        checkpoint.display()
    )?;
    Ok(())
}
