//! `tavla bench`: the fixed benchmark and the engine's signature (see `tavla_nn::bench`).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use tavla_nn::Weights;

use crate::input::InputError;
use crate::nn_cmd::PruneArgs;

/// `tavla bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Search depth; default: 0 and 1 on all 200 positions, 2 on the first 50.
    #[arg(long)]
    pub ply: Option<u8>,
    /// Positions (at most 200); default: as above.
    #[arg(long, value_name = "N")]
    pub positions: Option<usize>,
    /// Weights file instead of the embedded default.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// The pruning of the search's inner move choices (the signature is the default's).
    #[command(flatten)]
    pub prune: PruneArgs,
}

/// Runs `tavla bench`.
pub fn bench(args: &BenchArgs, out: &mut impl Write) -> Result<()> {
    if let Some(p) = args.ply {
        crate::nn_cmd::check_ply(p)?;
    }
    match args.positions {
        Some(0) => return Err(InputError("--positions must be at least 1".into()).into()),
        Some(n) if n > 200 => {
            return Err(InputError(format!(
                "--positions must be at most 200 (the embedded positions), got {n}"
            ))
            .into())
        }
        _ => {}
    }
    let weights = Arc::new(Weights::load_or_default(args.weights.as_deref())?);
    let prune = args.prune.load()?;
    let runs: Vec<(u8, usize)> = match args.ply {
        Some(p) => vec![(p, args.positions.unwrap_or(if p >= 2 { 50 } else { 200 }))],
        None => {
            let n = args.positions.unwrap_or(200);
            vec![(0, n), (1, n), (2, args.positions.unwrap_or(50))]
        }
    };
    writeln!(
        out,
        "| ply | decisions | nodes | time | nodes/s | median decision | 90% decision |"
    )?;
    writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|")?;
    let mut total = 0;
    for (ply, n) in runs {
        let r = tavla_nn::bench::run(&weights, ply, n, prune.as_ref());
        total += r.nodes;
        writeln!(
            out,
            "| {} | {} | {} | {:.3} s | {:.0} | {:.1} µs | {:.1} µs |",
            r.ply,
            r.decisions,
            r.nodes,
            r.total.as_secs_f64(),
            r.nodes_per_second(),
            r.quantile(0.5).as_secs_f64() * 1e6,
            r.quantile(0.9).as_secs_f64() * 1e6
        )?;
        out.flush()?;
    }
    if !args.prune.is_default() {
        writeln!(
            out,
            "Nodes searched (other pruning than the default, not the signature) : {total}"
        )?;
    } else {
        writeln!(out, "Nodes searched : {total}")?;
    }
    Ok(())
}
