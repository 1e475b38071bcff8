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
    Rollout(nn_cmd::RolloutArgs),
    /// Draws a learning curve CSV (`games,opponent,check_games,ppg,ppg_stderr,win_rate`) as a
    /// PNG: points per game against training games, one line per opponent, ±2 standard errors.
    PlotCurve {
        /// The CSV (from `train-curve` or the training run's `curve.csv`).
        csv: std::path::PathBuf,
        /// The PNG to write.
        png: std::path::PathBuf,
        /// A TrueType font.
        #[arg(
            long,
            default_value = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        )]
        font: std::path::PathBuf,
    },
    /// gnubg's external-engine line protocol (`match-vs-external`), cubeless.
    LineEngine {
        /// Search depth.
        #[arg(long, default_value_t = 0)]
        ply: u8,
        /// Weights file instead of the embedded default.
        #[arg(long)]
        weights: Option<std::path::PathBuf>,
    },
}

/// Answers `move POSID D1 D2 ...` with `after POSID2`, `double` with `roll` and `take` with
/// `take`, until `quit` or end of input.
fn line_engine(ply: u8, weights: Option<std::path::PathBuf>) -> anyhow::Result<()> {
    use std::io::{BufRead, Write};
    use tavla_core::{PlayList, Position, PositionId, Roll};
    let weights = match weights {
        Some(p) => tavla_nn::Weights::load(&p)?,
        None => tavla_nn::Weights::default_weights(),
    };
    let mut search = tavla_nn::Search::new(std::sync::Arc::new(weights));
    let mut plays = PlayList::new();
    let mut ranked = Vec::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.first().copied() {
            Some("move") if f.len() >= 4 => {
                let pos = Position::from_position_id(f[1])
                    .map_err(|e| anyhow::anyhow!("bad position id {}: {e}", f[1]))?;
                let roll = Roll::from_values(f[2].parse()?, f[3].parse()?);
                pos.legal_plays(roll, &mut plays);
                let i = search.choose(&plays, ply, &mut ranked);
                let after = plays.positions()[i].flip();
                writeln!(out, "after {}", PositionId::from(after))?;
            }
            Some("double") => writeln!(out, "roll")?,
            Some("take") => writeln!(out, "take")?,
            Some("quit") | None => break,
            Some(_) => writeln!(out, "error unknown request")?,
        }
        out.flush()?;
    }
    Ok(())
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::TrainTd(a) => nn_cmd::train_td(&a),
        Command::TrainCurve(a) => nn_cmd::train_curve(&a),
        Command::Hint(a) => nn_cmd::hint(&a, &mut std::io::stdout()),
        Command::Eval(a) => nn_cmd::eval(&a, &mut std::io::stdout()),
        Command::Rollout(a) => nn_cmd::rollout(&a, &mut std::io::stdout()),
        Command::LineEngine { ply, weights } => line_engine(ply, weights),
        Command::PlotCurve { csv, png, font } => plot_curve(&csv, &png, &font),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn plot_curve(
    csv: &std::path::Path,
    png: &std::path::Path,
    font: &std::path::Path,
) -> anyhow::Result<()> {
    use anyhow::Context;
    use plotters::prelude::*;
    let text =
        std::fs::read_to_string(csv).with_context(|| format!("reading {}", csv.display()))?;
    /// Thousands of games, ppg, standard error.
    type Point = (f64, f64, f64);
    let mut series: Vec<(String, Vec<Point>)> = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 6 {
            anyhow::bail!("{}:{}: expected 6 fields", csv.display(), n + 1);
        }
        let games: f64 = f[0]
            .parse()
            .with_context(|| format!("{}:{}", csv.display(), n + 1))?;
        let ppg: f64 = f[3]
            .parse()
            .with_context(|| format!("{}:{}", csv.display(), n + 1))?;
        let se: f64 = f[4]
            .parse()
            .with_context(|| format!("{}:{}", csv.display(), n + 1))?;
        match series.iter_mut().find(|(o, _)| o == f[1]) {
            Some((_, v)) => v.push((games / 1000.0, ppg, se)),
            None => series.push((f[1].to_string(), vec![(games / 1000.0, ppg, se)])),
        }
    }
    for (_, pts) in &mut series {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let bytes: &'static [u8] = Box::leak(
        std::fs::read(font)
            .with_context(|| format!("reading font {}", font.display()))?
            .into_boxed_slice(),
    );
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| anyhow::anyhow!("{} is not a usable font", font.display()))?;
    let x_max = series
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let (y_min, y_max) = series
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| (p.1 - 2.0 * p.2, p.1 + 2.0 * p.2)))
        .fold((-0.5f64, 0.5f64), |(a, b), (lo, hi)| (a.min(lo), b.max(hi)));
    let root = BitMapBackend::new(png, (1200, 750)).into_drawing_area();
    let draw = |e: &dyn std::fmt::Display| anyhow::anyhow!("drawing {}: {e}", png.display());
    root.fill(&WHITE).map_err(|e| draw(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "tavla TD(lambda) self-play: 0-ply strength against fixed opponents",
            ("sans-serif", 24),
        )
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max * 1.02, y_min - 0.1..y_max + 0.1)
        .map_err(|e| draw(&e))?;
    chart
        .configure_mesh()
        .x_desc("training games (thousands)")
        .y_desc("points per game (cubeless money), +/- 2 s.e.")
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| draw(&e))?;
    let colours = [
        RGBColor(31, 84, 160),
        RGBColor(200, 70, 40),
        RGBColor(40, 150, 60),
        RGBColor(120, 60, 160),
    ];
    for (k, (name, pts)) in series.iter().enumerate() {
        let c = colours[k % colours.len()];
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, p.1)),
                c.stroke_width(2),
            ))
            .map_err(|e| draw(&e))?
            .label(format!("vs {name}"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart
            .draw_series(pts.iter().map(|p| {
                PathElement::new(
                    vec![(p.0, p.1 - 2.0 * p.2), (p.0, p.1 + 2.0 * p.2)],
                    c.mix(0.5),
                )
            }))
            .map_err(|e| draw(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .label_font(("sans-serif", 16))
        .draw()
        .map_err(|e| draw(&e))?;
    root.present().map_err(|e| draw(&e))?;
    Ok(())
}
