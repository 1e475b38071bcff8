//! `tavla`: the one command-line program of the tavla backgammon engine.

// The argument docs are clap's help texts, where brackets mark optional parts, not links.
#![allow(rustdoc::broken_intra_doc_links)]

mod analyse_cmd;
mod arena_cmd;
mod bearoff_cmd;
mod bench_cmd;
mod board;
mod cmd;
mod diagram;
mod external_cmd;
mod games;
mod input;
mod judge_cmd;
mod luck_cmd;
mod met_cmd;
mod nn_cmd;
mod play_cmd;
mod players;
mod record_cmd;
mod records;
mod relabel_cmd;
mod rollout_jobs;
mod serve_cmd;
mod supervised_cmd;
mod tempmap_cmd;
mod train_cmd;
mod ubgi_cmd;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::input::InputError;

/// tavla: a backgammon engine. Positions are accepted in any notation: BPN, XGID, gnubg
/// `PositionID:MatchID`, a bare gnubg Position ID, or a FIBS board string.
#[derive(Parser)]
#[command(name = "tavla", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Draw a position with pip counts, dice, cube and score, and write it in every notation
    /// (`--svg FILE`: also as a diagram).
    Show(cmd::ShowArgs),
    /// Write a position in another notation, on one line.
    Convert(cmd::ConvertArgs),
    /// List every legal play for a roll, one per line, with the resulting position.
    Moves(cmd::MovesArgs),
    /// Count plays to a depth (verification of the move generator).
    Perft(cmd::PerftArgs),
    /// The engine's best plays for a roll, ranked, with their equities.
    Hint(nn_cmd::HintArgs),
    /// The engine's evaluation of a position: outcome probabilities and equity.
    Eval(nn_cmd::EvalArgs),
    /// The temperature map of a position: what each of the 36 rolls is worth to the side on
    /// roll after its best play, as a 6 x 6 grid with each roll's play; candidate plays' maps
    /// side by side.
    Tempmap(tempmap_cmd::TempmapArgs),
    /// tavla's match equity table, or at one score (or a match position's) each side's match
    /// winning chance, gammon value and take points.
    Met(met_cmd::MetArgs),
    /// Play a position, or each candidate play of a roll, out many times (seeded, variance-reduced; cubeless, or both cube lines with --cube).
    Rollout(nn_cmd::RolloutArgs),
    /// Bearoff databases: build, look up, best play, plots.
    Bearoff(bearoff_cmd::BearoffArgs),
    /// Speak UBGI, the engine protocol, on stdin/stdout (for GUIs, bots and test harnesses).
    Ubgi(ubgi_cmd::UbgiArgs),
    /// Answer gnubg's external-player protocol on a TCP socket: FIBS board strings in, plays,
    /// cube actions and evaluations out (for FIBS bots and programs written for gnubg's
    /// `external` mode).
    External(external_cmd::ExternalArgs),
    /// Serve the engine over HTTP: positions, legal plays, hints, evaluations, rollouts, game
    /// analysis and games against the engine as JSON (for GUIs, bots and web pages), and a web
    /// page at / that plays against the engine in a browser.
    Serve(serve_cmd::ServeArgs),
    /// Play one player against another with duplicate dice: money games (cubeless, or with the
    /// cube) with A's points per game, or matches with A's share of them, and 95% confidence
    /// intervals.
    Arena(arena_cmd::ArenaArgs),
    /// Training runs (`tavla train heuristic`: the seed article's trainer).
    Train(train_cmd::TrainArgs),
    /// The fixed benchmark: decisions on 200 embedded positions at fixed plies, one thread;
    /// prints times, the median decision time and the node count (the engine's signature).
    Bench(bench_cmd::BenchArgs),
    /// Judge players' plays on a fixed set of positions against reference equities (gnubg
    /// 2-ply): mean equity lost per move, by class of position, and paired differences.
    Judge(judge_cmd::JudgeArgs),
    /// Play against the engine in the terminal: a money game (cubeless, or with the cube) or a
    /// match; moves typed in standard notation, `hint` for the engine's advice, seeded dice.
    Play(play_cmd::PlayArgs),
    /// The luck of the dice in recorded games (.mat or SGF): each player's luck per game and per
    /// roll, and the results with the luck taken out (luck-adjusted points per game, 95%
    /// interval).
    Luck(luck_cmd::LuckArgs),
    /// Analyse recorded games (.mat or SGF): every checker play and cube decision judged by the
    /// engine, the errors listed, and each player's error rates, error counts and luck.
    Analyse(analyse_cmd::AnalyseArgs),
    /// Read a match record (.mat or SGF), check every game through the legal plays, and write
    /// it as .mat or SGF.
    Record(record_cmd::RecordArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Show(args) => cmd::show(&args, &mut out),
        Command::Convert(args) => cmd::convert(&args, &mut out),
        Command::Moves(args) => cmd::moves(&args, &mut out),
        Command::Perft(args) => cmd::perft(&args, &mut out),
        Command::Hint(args) => nn_cmd::hint(&args, &mut out),
        Command::Eval(args) => nn_cmd::eval(&args, &mut out),
        Command::Tempmap(args) => tempmap_cmd::tempmap(&args, &mut out),
        Command::Met(args) => met_cmd::met(&args, &mut out),
        Command::Rollout(args) => nn_cmd::rollout(&args, &mut out),
        Command::Bearoff(args) => bearoff_cmd::run(args),
        Command::Ubgi(args) => ubgi_cmd::ubgi(&args, &mut out),
        Command::External(args) => external_cmd::external(&args, &mut out),
        Command::Serve(args) => serve_cmd::serve(&args),
        Command::Arena(args) => arena_cmd::arena(&args, &mut out),
        Command::Train(args) => train_cmd::train(&args, &mut out),
        Command::Judge(args) => judge_cmd::judge(&args, &mut out),
        Command::Luck(args) => luck_cmd::luck(&args, &mut out),
        Command::Analyse(args) => analyse_cmd::analyse(&args, &mut out),
        Command::Record(args) => record_cmd::record(&args, &mut out),
        Command::Play(args) => play_cmd::play(&args, &mut out),
        Command::Bench(args) => bench_cmd::bench(&args, &mut out),
    }
    .and_then(|()| out.flush().map_err(anyhow::Error::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`tavla moves ... | head`) is not a failure.
            if err.chain().any(|e| {
                e.downcast_ref::<io::Error>().map(io::Error::kind)
                    == Some(io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("tavla: {err:#}");
            if is_bad_input(&err) {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Whether `err` is the user's to mend (exit code 2): input refused as such ([`InputError`]),
/// a weights file that is not one or does not match this build, a training run's checkpoint
/// state that is not one, a bearoff position or database that does not fit, or a path named
/// on the command line that does not exist, may not be read, or is a file where a folder is
/// wanted (or the other way round).
fn is_bad_input(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.is::<InputError>()
            || e.downcast_ref::<tavla_nn::WeightsError>()
                .is_some_and(|w| !matches!(w, tavla_nn::WeightsError::Io { .. }))
            // A bearoff position outside a database or over, an impossible shape, a file
            // that is not a database or not the one asked for.
            // A run's folder whose checkpoint state is not one.
            || e.downcast_ref::<tavla_nn::td::CheckpointError>().is_some_and(|c| {
                matches!(
                    c,
                    tavla_nn::td::CheckpointError::Parse { .. }
                        | tavla_nn::td::CheckpointError::Invalid { .. }
                )
            })
            || e.is::<tavla_bearoff::ProbeError>()
            || e.is::<tavla_bearoff::ShapeError>()
            || e.is::<tavla_bearoff::FormatError>()
            || e.downcast_ref::<tavla_bearoff::DbError>().is_some_and(|d| {
                matches!(
                    d,
                    tavla_bearoff::DbError::Format { .. }
                        | tavla_bearoff::DbError::ShapeMismatch { .. }
                        | tavla_bearoff::DbError::Shape(_)
                )
            })
            || e.downcast_ref::<io::Error>().is_some_and(|e| {
                matches!(
                    e.kind(),
                    io::ErrorKind::NotFound
                        | io::ErrorKind::PermissionDenied
                        | io::ErrorKind::IsADirectory
                        | io::ErrorKind::NotADirectory
                )
            })
    })
}
