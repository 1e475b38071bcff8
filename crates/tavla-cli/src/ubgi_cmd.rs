//! `tavla ubgi`: the engine protocol on stdin/stdout.

use std::io::{self, Write};

use anyhow::{Context, Result};
use clap::Args;
use tavla_core::Rules;

use crate::players::PlayerSpec;

/// `tavla ubgi`.
#[derive(Args)]
pub struct UbgiArgs {
    /// The player that makes the decisions: neural[:ply=N][,cube-ply=N][,cubeless-plays]
    /// [,weights=FILE][,no-bearoff][,filters=K:M/K:M/K:M][,no-prune|,prune=FILE][,keep=K] (the
    /// default, at 0 ply), random, heuristic[:FILE], heuristic-1ply[:FILE] or ubgi:COMMAND (a
    /// relay for another engine: its plays, cube, evaluations and rollouts).
    #[arg(long, value_name = "PLAYER", default_value = "neural")]
    pub player: String,

    /// Seed of a random player.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Serves UBGI (both bgci drafts and the bare-position draft 0.01) on stdin and `out` until
/// `quit` or the end of the input. See `docs/ubgi.md`.
pub fn ubgi(args: &UbgiArgs, out: &mut impl Write) -> Result<()> {
    let player = PlayerSpec::parse(&args.player)?.create(args.seed, Rules::Standard)?;
    crate::players::preload_shared_bearoff();
    // Read on a thread of its own (so a rollout hears `stop`): the unlocked handle, buffered.
    let stdin = io::BufReader::new(io::stdin());
    tavla_protocol::run(stdin, out, player).context("ubgi session")
}
