//! `tavla external`: gnubg's external-player protocol on a TCP socket (or stdin/stdout), for
//! FIBS bots and programs written for gnubg's `external` mode.

use std::io::{self, Write};
use std::net::TcpListener;

use anyhow::{Context, Result};
use clap::Args;
use tavla_core::{GameState, Rules};
use tavla_nn::cube::CubeHolder;
use tavla_nn::met::MatchScore;
use tavla_nn::search::{Prune, Search};
use tavla_nn::Weights;
use tavla_protocol::{Evaluate, External};

use crate::input::InputError;
use crate::players::{shared_bearoff, PlayerSpec};

/// `tavla external`.
#[derive(Args)]
pub struct ExternalArgs {
    /// Where to listen: HOST:PORT (port 0 picks a free one; the address is printed on stderr).
    #[arg(
        long,
        value_name = "HOST:PORT",
        default_value = "127.0.0.1:4321",
        conflicts_with = "stdio"
    )]
    listen: String,
    /// Answer one session on stdin and stdout instead of a socket.
    #[arg(long)]
    stdio: bool,
    /// Serve this many connections, one after another, then stop (default: serve for ever).
    #[arg(long, value_name = "N")]
    connections: Option<usize>,
    /// The player that decides: neural[:ply=N][,...] (the default, at 0 ply), random,
    /// heuristic[:FILE], heuristic-1ply[:FILE] or ubgi:COMMAND.
    #[arg(long, value_name = "PLAYER", default_value = "neural")]
    player: String,
    /// Seed of a random player.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Close a connection after this many seconds without a request, so that a client that
    /// falls silent does not hold the one connection served; 0 waits for ever.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    idle_timeout: u64,
}

/// The answers to `evaluation` requests: the embedded networks with the bearoff databases.
struct NeuralEvaluate(Search);

impl Evaluate for NeuralEvaluate {
    fn evaluate(
        &mut self,
        state: &GameState,
        plies: u8,
        cubeful: bool,
    ) -> Result<[f32; 6], String> {
        let pos = &state.position;
        if let Some(why) = MatchScore::beyond_table(state) {
            return Err(why);
        }
        let p = self.0.evaluate(pos, plies);
        let holder = CubeHolder::of(state);
        let cube = state.cube.value();
        let equity = match MatchScore::of(state, state.turn) {
            None if cubeful => self
                .0
                .cube_analysis(pos, plies, holder, state.jacoby)
                .equity(),
            None => p.equity(),
            Some(score) if cubeful && score.cube_in_play() => {
                let a = self.0.match_cube_analysis(pos, plies, holder, cube, score);
                let [nd, dt, dp] = a.match_winning_chances.expect("match play");
                if a.action.doubles() {
                    dt.min(dp)
                } else {
                    nd
                }
            }
            Some(score) => score.cubeless_chance(p, cube),
        };
        Ok([
            p.win,
            p.win_gammon,
            p.win_backgammon,
            p.lose_gammon,
            p.lose_backgammon,
            equity,
        ])
    }
}

/// Runs `tavla external`: serves until the connections asked for are done (for ever by
/// default), or one session on stdin/stdout with `--stdio`.
pub fn external(args: &ExternalArgs, out: &mut impl Write) -> Result<()> {
    if args.connections == Some(0) {
        return Err(InputError(
            "--connections must be at least 1 (leave it out to serve for ever)".into(),
        )
        .into());
    }
    let player = PlayerSpec::parse(&args.player)?.create(args.seed, Rules::Standard)?;
    let search = Search::new(Weights::shared_default())
        .with_bearoff(shared_bearoff())
        .with_prune(Prune::embedded());
    crate::players::preload_shared_bearoff();
    let software = format!("tavla {}", env!("CARGO_PKG_VERSION"));
    let mut engine = External::new(player, Some(Box::new(NeuralEvaluate(search))), software);
    if args.stdio {
        let stdin = io::stdin();
        return engine
            .serve(stdin.lock(), out)
            .context("external-player session");
    }
    let listener = TcpListener::bind(&args.listen)
        .map_err(|e| InputError(format!("--listen {}: {e}", args.listen)))?;
    let address = listener.local_addr()?;
    eprintln!("tavla external: listening on {address}");
    let idle = Some(std::time::Duration::from_secs(args.idle_timeout));
    engine.listen(&listener, args.connections, idle)?;
    Ok(())
}
