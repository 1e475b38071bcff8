//! `tavla bearoff`: build, inspect and use the bearoff databases.

use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use tavla_bearoff::cache::{self, CacheOutcome, DEFAULT_ONE_SIDED, DEFAULT_TWO_SIDED};
use tavla_bearoff::format::{Header, Kind};
use tavla_bearoff::{
    analyse, Dice, OneSided, OneSidedDb, PolicyStats, TwoSidedDb, TwoSidedOptions,
};

use crate::input::InputError;

/// `println!` that reports a failed write (a closed pipe) as an error instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        writeln!(io::stdout().lock(), $($arg)*)?
    };
}

/// `print!` that reports a failed write as an error instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        write!(io::stdout().lock(), $($arg)*)?
    };
}

/// Bearoff databases: build them, look positions up, find perfect plays, draw figures.
///
/// The default databases (one-sided 6 points x 15 checkers, two-sided 6 x 8) are built on first
/// use and cached in $TAVLA_DATA_DIR, else in the platform cache directory (~/.cache/tavla on
/// Linux).
#[derive(Debug, Args)]
pub struct BearoffArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: BearoffCommand,
}

/// The `tavla bearoff` subcommands.
#[derive(Debug, Subcommand)]
pub enum BearoffCommand {
    /// Build a database and write it to a file (by default into the cache).
    Build {
        /// Points covered (1 to 24).
        #[arg(long, default_value_t = 6)]
        points: usize,
        /// Checkers per side (0 to 15); default 15 one-sided, 8 two-sided, 6 two-sided
        /// cubeful (the shapes the engine reads from the cache).
        #[arg(long)]
        checkers: Option<usize>,
        /// Build the two-sided database (exact winning chances) instead of the one-sided one.
        #[arg(long)]
        two_sided: bool,
        /// With --two-sided: also compute cubeful money equities (cube centred or owned).
        #[arg(long, requires = "two_sided")]
        cubeful: bool,
        /// Output file (default: the cache file for this shape); its folder must exist.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Look up one-sided positions: index, mean rolls, standard deviation, EPC, distribution.
    Lookup {
        /// Checkers on points 1, 2, ... (ace point first), e.g. 3,3,2,0,2,1; or #INDEX.
        #[arg(required_unless_present = "batch", conflicts_with = "batch")]
        position: Option<String>,
        /// Print a JSON object.
        #[arg(long)]
        json: bool,
        /// Read one position per line from FILE ('-' for stdin) and print one JSON line each.
        #[arg(long, value_name = "FILE")]
        batch: Option<PathBuf>,
        /// One-sided database file (default: the cached 6 x 15 database).
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
    },
    /// The best play in a bearoff under both policies: fewest expected rolls, most wins.
    Best {
        /// gnubg Position ID, or the two sides' checkers as ME/OPPONENT, each ace point first
        /// and from its own side (e.g. 0,0,2,1,0,0/1,1,0,0,0,0).
        position: String,
        /// The roll, e.g. 61.
        dice: String,
        /// Print a JSON object.
        #[arg(long)]
        json: bool,
        /// One-sided database file (default: the cached 6 x 15 database).
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
        /// Two-sided database file (default: the cached 6 x 8 database).
        #[arg(long, value_name = "FILE")]
        two_sided_db: Option<PathBuf>,
        /// Do not use a two-sided database (rank by expected rolls only).
        #[arg(long, conflicts_with = "two_sided_db")]
        no_two_sided: bool,
    },
    /// Draw the paper's Figure 3 (pip count against index) and Figure 4 (EPC against index).
    Plot {
        /// Directory for fig3-pips.png and fig4-epc.png.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// TrueType font for the labels (default: $TAVLA_FONT or a system font).
        #[arg(long, value_name = "FILE")]
        font: Option<PathBuf>,
        /// One-sided database file (default: the cached 6 x 15 database).
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
    },
    /// Show the header of a database file, after checking the file whole (length, checksum,
    /// and the contents read as its kind and shape).
    Info {
        /// The database file.
        file: PathBuf,
    },
}

/// Runs a `tavla bearoff` command.
///
/// # Errors
/// Bad input, unreadable or corrupt files, failed output.
pub fn run(args: BearoffArgs) -> Result<()> {
    match args.command {
        BearoffCommand::Build {
            points,
            checkers,
            two_sided,
            cubeful,
            output,
        } => build(points, checkers, two_sided, cubeful, output),
        BearoffCommand::Lookup {
            position,
            json,
            batch,
            db,
        } => {
            let db = one_sided(db.as_deref())?;
            match (batch, position) {
                (Some(file), _) => lookup_batch(&db, &file),
                (None, Some(pos)) => lookup_one(&db, &pos, json),
                (None, None) => Err(InputError("give a position or --batch FILE".into()).into()),
            }
        }
        BearoffCommand::Best {
            position,
            dice,
            json,
            db,
            two_sided_db,
            no_two_sided,
        } => best(
            &position,
            &dice,
            json,
            db.as_deref(),
            two_sided_db.as_deref(),
            no_two_sided,
        ),
        BearoffCommand::Plot { out, font, db } => {
            let db = one_sided(db.as_deref())?;
            let files = tavla_bearoff::plot::draw_figures(&db, &out, font.as_deref())?;
            for f in files {
                outln!("{}", f.display());
            }
            Ok(())
        }
        BearoffCommand::Info { file } => {
            // Checked whole, as loading it would be: a file cut short or damaged is not shown
            // as a database.
            let h = Header::read_verified(&file)?;
            // And its payload read as its kind and shape would be.
            match h.kind {
                Kind::OneSided => drop(OneSidedDb::load(&file)?),
                Kind::TwoSided => drop(TwoSidedDb::load(&file)?),
            }
            outln!("file      {}", file.display());
            let cubeful = if h.kind == Kind::TwoSided && h.flags & 1 != 0 {
                " (with cubeful equities)"
            } else {
                ""
            };
            outln!("kind      {}{cubeful}", h.kind);
            outln!("shape     {} points x {} checkers", h.points, h.checkers);
            outln!("positions {} per side", h.positions);
            outln!("payload   {} bytes", h.payload_len);
            Ok(())
        }
    }
}

/// A progress bar on stderr (hidden when stderr is not a terminal) and its callback.
fn progress_bar(message: String) -> ProgressBar {
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{elapsed_precise}] {wide_bar} {percent:>3}%")
            .expect("valid template"),
    );
    bar.set_message(message);
    bar
}

fn build(
    points: usize,
    checkers: Option<usize>,
    two_sided: bool,
    cubeful: bool,
    output: Option<PathBuf>,
) -> Result<()> {
    let checkers = checkers.unwrap_or(match (two_sided, cubeful) {
        (true, true) => cache::DEFAULT_CUBEFUL_TWO_SIDED.1,
        (true, false) => cache::DEFAULT_TWO_SIDED.1,
        (false, _) => cache::DEFAULT_ONE_SIDED.1,
    });
    let (kind, name) = if cubeful {
        (
            "two-sided cubeful",
            cache::cubeful_two_sided_file_name(points, checkers),
        )
    } else if two_sided {
        ("two-sided", cache::two_sided_file_name(points, checkers))
    } else {
        ("one-sided", cache::one_sided_file_name(points, checkers))
    };
    let path = match output {
        Some(p) => {
            // Checked before the build, which may take minutes.
            crate::input::output_file("--output", &p)?;
            p
        }
        None => cache::data_dir()?.join(name),
    };
    let bar = progress_bar(format!("{kind} {points}x{checkers}"));
    let mut progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let start = Instant::now();
    // Saving goes through a temporary file and a rename: a reader of the cache never sees half
    // a file.
    let (positions, stats) = if two_sided {
        let options = TwoSidedOptions { cubeful };
        let (db, stats) = TwoSidedDb::build_with(points, checkers, options, &mut progress)?;
        bar.finish_and_clear();
        db.save(&path)?;
        (db.hash().count(), Some(stats))
    } else {
        let db = OneSidedDb::build_with_progress(points, checkers, &mut progress)?;
        bar.finish_and_clear();
        db.save(&path)?;
        (db.len(), None)
    };
    let secs = start.elapsed().as_secs_f64();
    let size = std::fs::metadata(&path)
        .with_context(|| format!("reading {}", path.display()))?
        .len();
    outln!(
        "built {kind} {points}x{checkers}: {positions} positions per side in {secs:.2} s, \
         written to {} ({size} bytes)",
        path.display()
    );
    if let Some(s) = stats {
        print_policy_stats(&s)?;
    }
    Ok(())
}

fn print_policy_stats(s: &PolicyStats) -> Result<()> {
    outln!("policy comparison (fewest expected rolls vs most wins):");
    outln!("  decisions (position pairs x 21 rolls): {}", s.decisions);
    outln!("  with a choice of results:             {}", s.with_choice);
    outln!(
        "  policies differ:                       {} ({:.2}% of decisions with a choice)",
        s.differ,
        100.0 * s.differ_share()
    );
    outln!(
        "  winning chance lost when they differ:  mean {:.5}, max {:.5}",
        s.mean_cost(),
        s.max_cost
    );
    if let Some((x, o, d)) = s.max_at {
        outln!("    (largest at on-roll index {x}, opponent index {o}, roll {d})");
    }
    outln!(
        "  mean loss per turn over all pairs:     {:.3e}",
        s.mean_loss_per_turn()
    );
    outln!("  decisions with tied expected rolls:    {}", s.rolls_ties);
    Ok(())
}

/// An error and its causes, `a: b: c`.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Reports how a cached database was obtained, on stderr.
pub(crate) fn note(what: &str, outcome: &CacheOutcome) {
    match outcome {
        CacheOutcome::Loaded => {}
        CacheOutcome::Built => eprintln!("note: built the {what} database (cached for next time)"),
        CacheOutcome::Rebuilt(why) => {
            eprintln!(
                "note: rebuilt the {what} database: the cached file was unusable: {}",
                chain(why)
            )
        }
        CacheOutcome::NotSaved(why) => {
            eprintln!(
                "warning: built the {what} database but could not cache it: {}",
                chain(why)
            )
        }
    }
}

fn one_sided(file: Option<&Path>) -> Result<OneSidedDb> {
    if let Some(f) = file {
        return Ok(OneSidedDb::load(f)?);
    }
    let (p, c) = DEFAULT_ONE_SIDED;
    let bar = progress_bar(format!("building one-sided {p}x{c} (once)"));
    let (db, outcome) = cache::one_sided_in(&cache::data_dir()?, p, c, &mut |d, t| {
        bar.set_length(t);
        bar.set_position(d);
    })?;
    bar.finish_and_clear();
    note("one-sided 6x15", &outcome);
    Ok(db)
}

fn two_sided(file: Option<&Path>) -> Result<TwoSidedDb> {
    if let Some(f) = file {
        return Ok(TwoSidedDb::load(f)?);
    }
    let (p, c) = DEFAULT_TWO_SIDED;
    let bar = progress_bar(format!("building two-sided {p}x{c} (once)"));
    let (db, outcome) = cache::two_sided_in(&cache::data_dir()?, p, c, &mut |d, t| {
        bar.set_length(t);
        bar.set_position(d);
    })?;
    bar.finish_and_clear();
    note("two-sided 6x8", &outcome);
    Ok(db)
}

/// Reads `C1,C2,...` (ace point first) or `#INDEX`.
fn parse_one_sided(db: &OneSidedDb, text: &str) -> Result<OneSided> {
    if let Some(index) = text.trim().strip_prefix('#') {
        let index: u64 = index
            .parse()
            .with_context(|| format!("{text:?} is not #INDEX with a number"))?;
        return Ok(db.hash().unrank(index)?);
    }
    Ok(text.parse()?)
}

fn lookup_json(db: &OneSidedDb, text: &str) -> Result<serde_json::Value> {
    let pos = parse_one_sided(db, text)?;
    let e = db.lookup(&pos)?;
    Ok(json!({
        "position": pos.to_string(),
        "pips": pos.pips(),
        "index": e.index,
        "mean_rolls": e.mean_rolls,
        "sd_rolls": e.sd_rolls,
        "epc": e.epc(),
        "distribution": e.distribution.to_vec(),
        "first_off_mean_rolls": e.first_off_mean,
        "first_off_distribution": e.first_off.to_vec(),
    }))
}

fn lookup_one(db: &OneSidedDb, text: &str, as_json: bool) -> Result<()> {
    let refused = |e: anyhow::Error| InputError(format!("position {text:?}: {e:#}"));
    let pos = parse_one_sided(db, text).map_err(refused)?;
    let e = db.lookup(&pos).map_err(|e| refused(e.into()))?;
    let out = io::stdout();
    let mut out = out.lock();
    if as_json {
        writeln!(out, "{}", lookup_json(db, text)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "position    {pos} ({} checkers, {} pips)",
        pos.checkers(),
        pos.pips()
    )?;
    writeln!(
        out,
        "index       {} of {} ({} points x {} checkers)",
        e.index,
        db.len(),
        db.points(),
        db.checkers()
    )?;
    writeln!(out, "mean rolls  {:.6}", e.mean_rolls)?;
    writeln!(out, "sd rolls    {:.6}", e.sd_rolls)?;
    writeln!(
        out,
        "EPC         {:.4} (wastage {:.4})",
        e.epc(),
        e.epc() - f64::from(pos.pips())
    )?;
    writeln!(out, "rolls  probability   cumulative")?;
    let mut cum = 0.0;
    for (r, p) in e.distribution.iter() {
        cum += p;
        if p >= 1e-6 {
            writeln!(out, "{r:5}  {p:11.8}   {cum:10.8}")?;
        } else {
            writeln!(out, "{r:5}  {p:11.3e}   {cum:10.8}")?;
        }
    }
    if e.first_off_mean > 0.0 {
        let dist: Vec<String> = e
            .first_off
            .iter()
            .map(|(r, p)| format!("{r}:{p:.6}"))
            .collect();
        writeln!(
            out,
            "first checker off: mean {:.6} rolls; {}",
            e.first_off_mean,
            dist.join(" ")
        )?;
    }
    Ok(())
}

fn lookup_batch(db: &OneSidedDb, file: &Path) -> Result<()> {
    let reader: Box<dyn BufRead> = if file == Path::new("-") {
        Box::new(io::stdin().lock())
    } else {
        let f = std::fs::File::open(file).with_context(|| format!("opening {}", file.display()))?;
        Box::new(io::BufReader::new(f))
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let (mut lines, mut bad) = (0usize, 0usize);
    for (n, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("reading {} line {}", file.display(), n + 1))?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        lines += 1;
        let value = lookup_json(db, text).unwrap_or_else(|e| {
            bad += 1;
            json!({ "line": n + 1, "input": text, "error": format!("{e:#}") })
        });
        writeln!(out, "{value}")?;
    }
    out.flush()?;
    if bad > 0 {
        bail!("{bad} of {lines} positions could not be looked up (see the \"error\" lines)");
    }
    Ok(())
}

/// Reads `ME/OPPONENT` counts or a gnubg Position ID into the two sides' home boards.
fn parse_race(text: &str) -> Result<(OneSided, OneSided)> {
    // A Position ID may hold a '/' (a Base64 character): it is read as one first.
    let id = tavla_core::Position::from_position_id(text);
    if let (Err(_), Some((me, opp))) = (&id, text.split_once('/')) {
        let me: OneSided = me.parse().context("player on roll (before the '/')")?;
        let opp: OneSided = opp.parse().context("opponent (after the '/')")?;
        return Ok((me, opp));
    }
    let pos = id.with_context(|| {
        format!("{text:?} is neither ME/OPPONENT checker counts nor a Position ID")
    })?;
    let board = pos.to_board();
    let side = |name: &str, b: &[u8; 25]| -> Result<OneSided> {
        if b[24] > 0 {
            bail!(
                "the {name} has {} checker(s) on the bar: not a bearoff",
                b[24]
            );
        }
        Ok(OneSided::new(&b[..24])?)
    };
    Ok((
        side("player on roll", &board.on_roll)?,
        side("opponent", &board.opponent)?,
    ))
}

fn best(
    position: &str,
    dice: &str,
    as_json: bool,
    db: Option<&Path>,
    ts_file: Option<&Path>,
    no_two_sided: bool,
) -> Result<()> {
    let (me, opp) = parse_race(position).map_err(|e| InputError(format!("{e:#}")))?;
    let dice: Dice = dice
        .parse()
        .map_err(|e| InputError(format!("dice {dice:?}: {e}")))?;
    let os = one_sided(db)?;
    let ts = if no_two_sided {
        None
    } else {
        Some(two_sided(ts_file)?)
    };
    let a = analyse(&me, &opp, dice, &os, ts.as_ref())?;
    let ts_note = match &ts {
        Some(t) if a.max_win.is_some() => format!("two-sided {}x{}", t.points(), t.checkers()),
        Some(t) => format!(
            "outside the two-sided {}x{} database: expected rolls only",
            t.points(),
            t.checkers()
        ),
        None => "no two-sided database: expected rolls only".to_string(),
    };
    if as_json {
        let plays: Vec<serde_json::Value> = a
            .plays
            .iter()
            .map(|p| {
                json!({
                    "play": p.play.to_string(),
                    "result": p.result_string(),
                    "mean_rolls": p.mean_rolls,
                    "win_probability": p.win_probability,
                })
            })
            .collect();
        let v = json!({
            "me": me.to_string(),
            "opponent": opp.to_string(),
            "dice": dice.to_string(),
            "win_before_roll": a.win_before_roll,
            "min_rolls_play": a.best_for_rolls().play.to_string(),
            "max_win_play": a.best_for_winning().map(|p| p.play.to_string()),
            "cost_of_min_rolls": a.cost_of_min_rolls(),
            "plays": plays,
        });
        outln!("{v}");
        return Ok(());
    }
    let os_me = os.lookup(&me)?;
    outln!(
        "player on roll {me}  ({} pips, mean rolls {:.4}, EPC {:.3})",
        me.pips(),
        os_me.mean_rolls,
        os_me.epc()
    );
    match os.lookup(&opp) {
        Ok(e) => outln!(
            "opponent       {opp}  ({} pips, mean rolls {:.4}, EPC {:.3})",
            opp.pips(),
            e.mean_rolls,
            e.epc()
        ),
        Err(_) => outln!("opponent       {opp}  ({} pips)", opp.pips()),
    }
    out!("roll {dice}; {ts_note}");
    if let Some(w) = a.win_before_roll {
        out!("; winning chance before the roll {:.4}%", 100.0 * w);
    }
    outln!();
    outln!();
    outln!("   play                  result               mean rolls after   wins after");
    for (i, p) in a.plays.iter().enumerate() {
        let mut tags = Vec::new();
        if a.max_win == Some(i) {
            tags.push("most wins");
        }
        if a.min_rolls == i {
            tags.push("fewest rolls");
        }
        let win = p
            .win_probability
            .map_or("-".to_string(), |w| format!("{:.4}%", 100.0 * w));
        outln!(
            "{:>2} {:<21} {:<20} {:>17.5} {:>12}  {}",
            i + 1,
            p.play.to_string(),
            p.result_string(),
            p.mean_rolls,
            win,
            tags.join(", ")
        );
    }
    outln!();
    let r = a.best_for_rolls();
    outln!(
        "fewest expected rolls: {} (mean rolls after {:.5})",
        r.play,
        r.mean_rolls
    );
    if let Some(w) = a.best_for_winning() {
        outln!(
            "most wins:             {} (wins {:.4}%)",
            w.play,
            100.0 * w.win_probability.unwrap_or(0.0)
        );
        match a.cost_of_min_rolls() {
            Some(c) if c > 0.0 => outln!(
                "the policies differ: the fewest-rolls play gives away {:.4}% winning chance",
                100.0 * c
            ),
            _ => outln!("the policies agree"),
        }
    }
    Ok(())
}

trait ResultString {
    fn result_string(&self) -> String;
}

impl ResultString for tavla_bearoff::RankedPlay {
    fn result_string(&self) -> String {
        if self.play.result.is_empty() {
            "all off".to_string()
        } else {
            self.play.result.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_json_has_the_documented_fields() {
        let db = OneSidedDb::build(6, 15).unwrap();
        let v = lookup_json(&db, "3,3,2,0,2,1").unwrap();
        assert_eq!(v["index"], 8887);
        for key in ["mean_rolls", "sd_rolls", "epc"] {
            assert!(v[key].as_f64().unwrap() > 0.0, "{key}");
        }
        let dist = v["distribution"].as_array().unwrap();
        let total: f64 = dist.iter().map(|p| p.as_f64().unwrap()).sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert_eq!(lookup_json(&db, "#8887").unwrap(), v);
        let e = lookup_json(&db, "0,0,0,0,0,0,1").unwrap_err();
        assert!(format!("{e:#}").contains("point 7"), "{e:#}");
        assert!(lookup_json(&db, "#54264").is_err());
    }

    #[test]
    fn race_from_counts_and_position_id() {
        let (me, opp) = parse_race("0,0,2,1,0,0/1,1").unwrap();
        assert_eq!(me.to_string(), "0,0,2,1,0,0");
        assert_eq!(opp.pips(), 3);
        let e = parse_race("1,x/1").unwrap_err();
        assert!(format!("{e:#}").contains("player on roll"), "{e:#}");
        // The same race as a gnubg Position ID.
        let mut board = tavla_core::Board::default();
        board.on_roll[..6].copy_from_slice(&[0, 0, 2, 1, 0, 0]);
        board.opponent[..2].copy_from_slice(&[1, 1]);
        let id = tavla_core::Position::try_from(board)
            .unwrap()
            .position_id()
            .to_string();
        assert_eq!(parse_race(&id).unwrap(), (me, opp));
        let e = parse_race("nonsense").unwrap_err();
        assert!(format!("{e:#}").contains("neither"), "{e:#}");
    }
}
