//! Runs `tavla bearoff ...` without the tavla binary: the CLI module of tavla-cli
//! (`crates/tavla-cli/src/bearoff_cmd.rs`) behind a stand-alone `main`.
//!
//! ```text
//! cargo run --release -p tavla-bearoff --features plot --example bearoff -- lookup 3,3,2,0,2,1
//! ```

#[path = "../../tavla-cli/src/bearoff_cmd.rs"]
mod bearoff_cmd;

use clap::Parser;

/// tavla bearoff (stand-alone).
#[derive(Debug, Parser)]
#[command(name = "tavla-bearoff")]
struct Cli {
    #[command(flatten)]
    args: bearoff_cmd::BearoffArgs,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match bearoff_cmd::run(cli.args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // A closed pipe (`| head`) is not an error.
            let broken_pipe = e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return std::process::ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
