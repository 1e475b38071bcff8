//! `tavla train relabel`: the positions of a label file labelled again, by another search or
//! other networks, line for line (search twins of rollout labels, or of another network's
//! games, for `tools/labels/shift` and `tools/labels/lean`).

use std::fs::OpenOptions;
use std::io::{BufRead, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavla_core::Position;
use tavla_nn::supervised::{self, Sample};
use tavla_nn::{Search, Weights};

use crate::input::InputError;
use crate::nn_cmd::PruneArgs;
use crate::supervised_cmd::{bearoff_databases, labelling_search, open_data};

/// `tavla train relabel`.
#[derive(Debug, Args)]
pub struct RelabelArgs {
    /// Label file whose positions are labelled again (`train label`'s, plain or gzip).
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// Where to write DATA's lines with each position's label replaced by the search's
    /// (comment lines, chunk marks among them, kept as they are), under a header line of its
    /// own. An existing file from the same settings is resumed after its last whole line.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Search depth of the labels, 0 to 3.
    #[arg(long, default_value_t = 2)]
    pub ply: u8,
    /// Networks that label the positions; default: the embedded weights.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Race values from the bearoff databases (exact two-sided 6 x 8, one-sided 6 x 15) in the
    /// search.
    #[arg(long)]
    pub bearoff: bool,
    /// Worker threads; 0 for one per core.
    #[arg(long, default_value_t = 0, value_parser = crate::input::threads_arg)]
    pub threads: usize,
    /// Pruned inner move choices in the search.
    #[command(flatten)]
    pub prune: PruneArgs,
}

/// One line of the data file: a comment kept as it is, or a position to label.
enum Line {
    Comment(String),
    Position(Position),
}

/// Lines labelled between two writes (and chances to resume).
const BATCH: usize = 512;

/// Runs `tavla train relabel`.
///
/// # Errors
/// A bad option, an unreadable or malformed data file (naming its line), an output file of
/// other settings, or a failed write.
pub fn relabel(args: &RelabelArgs) -> Result<()> {
    crate::nn_cmd::check_ply(args.ply)?;
    crate::input::output_file("--out", &args.out)?;
    let lines = read_lines(args)?;
    let weights = Arc::new(Weights::load_or_default(args.weights.as_deref()).context("--weights")?);
    let exact = bearoff_databases(args.bearoff)?;
    let prune = if args.ply >= 1 {
        args.prune.load()?
    } else {
        None
    };
    let mut settings = format!(
        "# tavla train relabel: ply {} bearoff {} weights {:016x}",
        args.ply,
        args.bearoff,
        tavla_nn::inputs::fnv1a(&weights.to_bytes())
    );
    if let Some(p) = &prune {
        let hash = tavla_nn::inputs::fnv1a(&p.weights.to_bytes());
        settings += &format!(" prune {hash:016x} keep {}", p.keep);
    }
    let header = format!("{settings} of {}", args.data.display());
    let resumed = resume_point(args, &settings, &header, &lines)?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .with_context(|| format!("opening {}", args.out.display()))?;
    let done = match resumed {
        None => {
            writeln!(file, "{header}")
                .with_context(|| format!("writing {}", args.out.display()))?;
            0
        }
        Some(done) => {
            eprintln!(
                "resuming {} after line {done} of the data",
                args.out.display()
            );
            done
        }
    };
    let todo = lines[done..]
        .iter()
        .filter(|l| matches!(l, Line::Position(_)))
        .count();
    let threads = workers(crate::input::threads(args.threads), todo);
    let mut searches: Vec<Search> = (0..threads)
        .map(|_| labelling_search(weights.clone(), exact.as_ref(), prune.as_ref()))
        .collect();
    let bar = ProgressBar::new(todo as u64).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} {wide_bar} {pos}/{len} positions ({per_sec}, {eta} left)",
        )
        .expect("a valid template"),
    );
    let start = Instant::now();
    for batch in lines[done..].chunks(BATCH) {
        let positions: Vec<Position> = batch
            .iter()
            .filter_map(|l| match l {
                Line::Position(p) => Some(*p),
                Line::Comment(_) => None,
            })
            .collect();
        let mut labels = vec![None; positions.len()];
        let slice = positions.len().div_ceil(threads).max(1);
        std::thread::scope(|s| {
            for ((search, part), out) in searches
                .iter_mut()
                .zip(positions.chunks(slice))
                .zip(labels.chunks_mut(slice))
            {
                s.spawn(move || {
                    for (p, o) in part.iter().zip(out.iter_mut()) {
                        *o = Some(search.evaluate(p, args.ply));
                    }
                });
            }
        });
        let mut w = BufWriter::new(&mut file);
        let mut next = labels.into_iter();
        for line in batch {
            match line {
                Line::Comment(text) => writeln!(w, "{text}")?,
                Line::Position(position) => {
                    let target = next.next().flatten().expect("every position labelled");
                    supervised::write_samples(
                        &mut w,
                        &[Sample {
                            position: *position,
                            target,
                        }],
                    )?;
                }
            }
        }
        w.flush()?;
        bar.inc(positions.len() as u64);
    }
    bar.finish_and_clear();
    eprintln!(
        "{todo} positions labelled at {}-ply in {:.0} s; {} is complete",
        args.ply,
        start.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// The searches worth making for `threads` asked and `todo` positions: no more than a batch
/// has positions (each search holds about 4 MB of tables), nor than there are to label.
fn workers(threads: usize, todo: usize) -> usize {
    threads.min(todo).clamp(1, BATCH)
}

/// The data file's lines, each position checked (a bad one is named by its line).
fn read_lines(args: &RelabelArgs) -> Result<Vec<Line>> {
    let name = args.data.display();
    let mut lines = Vec::new();
    for (i, line) in open_data(&args.data).context("--data")?.lines().enumerate() {
        let line = line.with_context(|| format!("reading {name}"))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            lines.push(Line::Comment(line));
            continue;
        }
        let id = text.split_ascii_whitespace().next().unwrap_or_default();
        let position = Position::from_position_id(id).map_err(|e| {
            InputError(format!(
                "{name} line {}: field 1 (position ID {id:?}): {e}",
                i + 1
            ))
        })?;
        if position.is_game_over() {
            return Err(InputError(format!(
                "{name} line {}: position {id} is a finished game",
                i + 1
            ))
            .into());
        }
        lines.push(Line::Position(position));
    }
    Ok(lines)
}

/// The data lines an existing output file already holds, after checking that it was written
/// with the same `settings` (its header, less the data file's name, which may be written
/// another way: the data are checked line by line) from the same data; a partly written last
/// line is cut off. `None`
/// when there is no file or it holds not even the whole header line (which is then to be
/// written); `Some(0)` when it holds only the header (a run stopped in its first batch).
fn resume_point(
    args: &RelabelArgs,
    settings: &str,
    header: &str,
    lines: &[Line],
) -> Result<Option<usize>> {
    let out = args.out.display();
    let mut file = match OpenOptions::new().read(true).write(true).open(&args.out) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("opening {out}")),
    };
    let mut text = String::new();
    file.read_to_string(&mut text)
        .with_context(|| format!("reading {out}"))?;
    let whole = text.rfind('\n').map_or(0, |i| i + 1);
    if whole == 0 && header.starts_with(text.as_str()) {
        // Empty, or the header cut short: start afresh.
        file.set_len(0)
            .with_context(|| format!("truncating {out}"))?;
        return Ok(None);
    }
    let mut kept = text[..whole].lines();
    let first = kept.next().unwrap_or_default();
    if !first.starts_with(&format!("{settings} of ")) {
        return Err(InputError(format!(
            "{out} was written with other settings: its header is {first:?}, this run's \
             {settings:?} (choose another --out, or the settings it was made with)"
        ))
        .into());
    }
    let mut done = 0;
    for (n, written) in kept.enumerate() {
        let same = match lines.get(n) {
            Some(Line::Comment(c)) => written == c,
            Some(Line::Position(p)) => written
                .split_ascii_whitespace()
                .next()
                .is_some_and(|id| id == p.position_id().to_string()),
            None => false,
        };
        if !same {
            return Err(InputError(format!(
                "{out} line {}: not the labelled line {} of {}",
                n + 2,
                n + 1,
                args.data.display()
            ))
            .into());
        }
        done = n + 1;
    }
    file.set_len(whole as u64)
        .with_context(|| format!("truncating {out}"))?;
    file.seek(SeekFrom::End(0))?;
    Ok(Some(done))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_are_capped_by_the_work_and_a_batch() {
        // Regression (review item 9): 512 threads on a file of 172 positions made 512
        // searches of about 4 MB each.
        assert_eq!(workers(512, 172), 172);
        assert_eq!(workers(4096, 1_000_000), BATCH);
        assert_eq!(workers(4, 1_000_000), 4);
        // Nothing left to label (a complete file resumed): one search, never none.
        assert_eq!(workers(8, 0), 1);
    }
}
