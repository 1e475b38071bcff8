//! `tavla record`: a match record (`.mat`, gnubg's SGF, or with `--fast` a fast record of
//! landing marks) checked game by game through the legal plays and written as `.mat` or SGF.

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use tavla_notation::landing::read_fast_record;
use tavla_notation::sgf::{decode_text, parse_record};

use crate::input::InputError;

/// The format written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecordFormat {
    /// Jellyfish `.mat` text, laid out as gnubg's `export match mat` writes it.
    Mat,
    /// gnubg's SGF (`GM[6]`), as its `save match` writes it (without analysis).
    Sgf,
}

/// `tavla record`.
#[derive(Args)]
pub struct RecordArgs {
    /// The record: `.mat` or SGF, told apart by content; `-` for stdin.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The format to write.
    #[arg(long, value_enum, default_value_t = RecordFormat::Mat)]
    to: RecordFormat,
    /// Write to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The input is a fast record: each turn written as landing marks (where each die's
    /// checker landed, Hideo Kato's 1981 method), checked against the legal plays; see
    /// docs/notations.md.
    #[arg(long)]
    fast: bool,
}

/// `tavla record`: reads the record, replays every game (an illegal move, a result the cube
/// and the game's end do not give, or a score that does not follow is refused with its game
/// and line), and writes it in `--to`'s format; a summary line goes to stderr.
///
/// # Errors
/// A file that cannot be read, is not a record, or holds a game that cannot be played; an
/// output file that cannot be written.
pub fn record(args: &RecordArgs, out: &mut impl Write) -> Result<()> {
    let name = args.file.display().to_string();
    // UTF-8, or Latin-1 where the bytes are not UTF-8 (as gnubg reads them).
    let bytes = if name == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| InputError(format!("cannot read stdin: {e}")))?;
        bytes
    } else {
        std::fs::read(&args.file).map_err(|e| InputError(format!("cannot read {name}: {e}")))?
    };
    let text = decode_text(bytes);
    let record = if args.fast {
        read_fast_record(&text).map_err(|e| InputError(format!("{name}: {e}")))?
    } else {
        parse_record(&text).map_err(|e| InputError(format!("{name}: {e}")))?
    };
    let rolls: usize = record
        .replay()
        .map_err(|e| InputError(format!("{name}: {e}")))?
        .iter()
        .map(|r| r.rolls.len())
        .sum();
    let written = match args.to {
        RecordFormat::Mat => record
            .to_mat()
            .map_err(|e| InputError(format!("{name}: {e}")))?,
        RecordFormat::Sgf => record.to_sgf(),
    };
    match &args.out {
        Some(path) => std::fs::write(path, &written)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => out.write_all(written.as_bytes())?,
    }
    eprintln!(
        "{name}: {} games, {rolls} rolls, {} against {}",
        record.games.len(),
        record.players[0],
        record.players[1]
    );
    Ok(())
}
