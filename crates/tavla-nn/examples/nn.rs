//! Development harness for the neural commands before they are wired into `tavla`: the same
//! code as `tavla-cli/src/nn_cmd.rs`, included verbatim.
//!
//! `cargo run --release -p tavla-nn --example nn -- train-td --dir /tmp/run`

#[path = "../../tavla-cli/src/nn_cmd.rs"]
mod nn_cmd;

use clap::{Parser, Subcommand};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    TrainTd(nn_cmd::TrainTdArgs),
    TrainCurve(nn_cmd::TrainCurveArgs),
    Hint(nn_cmd::HintArgs),
    Eval(nn_cmd::EvalArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::TrainTd(a) => nn_cmd::train_td(&a),
        Command::TrainCurve(a) => nn_cmd::train_curve(&a),
        Command::Hint(a) => nn_cmd::hint(&a, &mut std::io::stdout()),
        Command::Eval(a) => nn_cmd::eval(&a, &mut std::io::stdout()),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
