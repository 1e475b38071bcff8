//! `tavla judge`: players' plays on a fixed set of positions, judged against reference equities
//! (see `tavla_match::judge`).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavla_core::Rules;
use tavla_match::judge::{
    judge_with_progress as judge_set, paired_difference, JudgedPlay, JudgedPosition, JudgedSet,
    Judgement,
};

use crate::input::InputError;
use crate::players::PlayerSpec;

/// `tavla judge`.
#[derive(Args)]
pub struct JudgeArgs {
    /// The judged sets: JSON lines written by tools/judge/make-judged-set (the repo ships
    /// tools/judge/gnubg-2ply.jsonl and gnubg-2ply-2027.jsonl); several files are judged as
    /// one set.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// A player to judge (random, heuristic[:FILE], heuristic-1ply[:FILE],
    /// neural[:ply=N][,weights=FILE][,no-bearoff][,filters=K:M/K:M/K:M][,no-prune|,prune=FILE][,keep=K] or
    /// ubgi:COMMAND); give it
    /// several times to compare players on the same positions.
    #[arg(long = "player", value_name = "PLAYER", required = true)]
    players: Vec<String>,
    /// Judge only the first N positions.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Worker threads; 0 for one per core.
    #[arg(long, default_value_t = 0, value_parser = crate::input::threads_arg, value_name = "T")]
    threads: usize,
    /// Also list each player's N costliest choices beside the judge's best play.
    #[arg(long, value_name = "N", default_value_t = 0)]
    worst: usize,
    /// Also list every position where a player's choice differs from the first player's,
    /// with the judge's equity of the one minus the other (for tools/judge/disagreements
    /// --against).
    #[arg(long)]
    differ: bool,
    /// Print one JSON object per player instead of the table.
    #[arg(long)]
    json: bool,
}

/// The name of a class number of gnubg's `classifypos`.
fn class_name(class: u8) -> String {
    match class {
        10 => "contact".into(),
        9 => "crashed".into(),
        8 => "race".into(),
        c => format!("class {c}"),
    }
}

/// The indices of the `n` costliest choices of `j` (those that lost anything), costliest
/// first.
fn worst(j: &Judgement, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..j.losses.len()).collect();
    order.sort_by(|&a, &b| j.losses[b].total_cmp(&j.losses[a]).then(a.cmp(&b)));
    order
        .into_iter()
        .take(n)
        .filter(|&i| j.losses[i] > 0.0)
        .collect()
}

/// Lists the `n` costliest choices of `j`.
fn write_worst(out: &mut impl Write, set: &JudgedSet, j: &Judgement, n: usize) -> Result<()> {
    for i in worst(j, n) {
        let jp = &set.positions[i];
        writeln!(
            out,
            "    {}  -{:.3}  played {}, best {}",
            position_and_dice(jp),
            j.losses[i],
            play_name(&jp.plays[j.choices[i]]),
            play_name(jp.best_play())
        )?;
    }
    Ok(())
}

/// A judged position as the tables list it: its Position ID and the roll, high die first.
fn position_and_dice(jp: &JudgedPosition) -> String {
    format!(
        "{} {}{}",
        jp.position.position_id(),
        jp.roll.high().value(),
        jp.roll.low().value()
    )
}

/// The name of a judged play: its notation, or the Position ID after it.
fn play_name(p: &JudgedPlay) -> String {
    p.notation
        .clone()
        .unwrap_or_else(|| p.after.position_id().to_string())
}

/// Where `j` chose another play than `first`, in set order: the position's index, the judge's
/// equity of `j`'s play minus `first`'s (the difference of their losses) and both plays' names.
fn differences<'a>(
    set: &'a JudgedSet,
    j: &'a Judgement,
    first: &'a Judgement,
) -> impl Iterator<Item = (usize, f64, String, String)> + 'a {
    set.positions
        .iter()
        .enumerate()
        .filter(|&(i, _)| j.choices[i] != first.choices[i])
        .map(|(i, jp)| {
            (
                i,
                first.losses[i] - j.losses[i],
                play_name(&jp.plays[j.choices[i]]),
                play_name(&jp.plays[first.choices[i]]),
            )
        })
}

/// Runs `tavla judge`.
pub fn judge(args: &JudgeArgs, out: &mut impl Write) -> Result<()> {
    let specs = args
        .players
        .iter()
        .map(|p| PlayerSpec::parse(p))
        .collect::<Result<Vec<_>>>()?;
    let names = args
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut set: Option<JudgedSet> = None;
    for file in &args.files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let more =
            JudgedSet::parse(&text).map_err(|e| InputError(format!("{}: {e}", file.display())))?;
        match &mut set {
            None => set = Some(more),
            Some(set) if set.plies == more.plies => set.positions.extend(more.positions),
            Some(set) => {
                return Err(InputError(format!(
                    "{}: judged at {} plies, the files before it at {}",
                    file.display(),
                    more.plies,
                    set.plies
                ))
                .into())
            }
        }
    }
    let mut set = set.expect("clap requires at least one file");
    if let Some(n) = args.limit {
        set.positions.truncate(n);
    }
    if set.positions.is_empty() {
        return Err(InputError(format!("{names}: no positions to judge")).into());
    }
    let mut results: Vec<(Judgement, f64)> = Vec::new();
    for spec in &specs {
        let start = Instant::now();
        crate::players::load_shared_bearoff_before_progress();
        let progress = ProgressBar::new(set.positions.len() as u64).with_style(
            ProgressStyle::with_template(
                "{elapsed_precise} {msg} {wide_bar} {pos}/{len} positions ({eta} left)",
            )
            .expect("a valid template"),
        );
        progress.set_message(spec.name());
        let judged = judge_set(
            &set,
            args.threads,
            || spec.create(0, Rules::Standard),
            &progress,
        );
        progress.finish_and_clear();
        let mut j = judged.with_context(|| format!("judging {}", spec.name()))?;
        j.player = spec.name();
        results.push((j, start.elapsed().as_secs_f64()));
    }
    if args.json {
        for (i, (j, seconds)) in results.iter().enumerate() {
            let mut v = serde_json::to_value(j)?;
            v["seconds"] = (*seconds).into();
            v["plies"] = set.plies.into();
            if args.worst > 0 {
                v["worst"] = worst(j, args.worst)
                    .into_iter()
                    .map(|k| {
                        let jp = &set.positions[k];
                        serde_json::json!({
                            "posid": jp.position.position_id().to_string(),
                            "dice": [jp.roll.high().value(), jp.roll.low().value()],
                            "loss": j.losses[k],
                            "played": play_name(&jp.plays[j.choices[k]]),
                            "best": play_name(jp.best_play()),
                        })
                    })
                    .collect();
            }
            if i > 0 {
                let (d, ci) = paired_difference(j, &results[0].0);
                v["vs_first"] = serde_json::json!({ "difference": d, "ci95": ci });
                if args.differ {
                    v["differ"] = differences(&set, j, &results[0].0)
                        .map(|(k, difference, played, first)| {
                            let jp = &set.positions[k];
                            serde_json::json!({
                                "posid": jp.position.position_id().to_string(),
                                "dice": [jp.roll.high().value(), jp.roll.low().value()],
                                "judge_difference": difference,
                                "played": played,
                                "first": first,
                            })
                        })
                        .collect();
                }
            }
            serde_json::to_writer(&mut *out, &v)?;
            writeln!(out)?;
        }
        return Ok(());
    }
    let zero = set.zero_ply_losses();
    writeln!(
        out,
        "{} positions, {}, judged at {} plies; loss in mEMG per move (cubeless money)",
        set.positions.len(),
        names,
        set.plies
    )?;
    writeln!(
        out,
        "the judge's own 0-ply choices: {:.2}{}",
        zero.mean_loss,
        zero.ci95.map_or(String::new(), |c| format!(" ± {c:.2}"))
    )?;
    for (i, (j, seconds)) in results.iter().enumerate() {
        writeln!(out)?;
        writeln!(out, "{} ({seconds:.1} s)", j.player)?;
        let ci = |c: Option<f64>| c.map_or(String::new(), |c| format!(" ± {c:.2}"));
        let rows = std::iter::once(("all".to_string(), &j.all))
            .chain(j.by_class.iter().map(|(c, s)| (class_name(*c), s)));
        for (name, s) in rows {
            writeln!(
                out,
                "  {:<10} {:>5} positions  {:>7.2}{:<8}  {} not best, {} bad (> 0.08), {} blunders (> 0.16)",
                name,
                s.positions,
                s.mean_loss,
                ci(s.ci95),
                s.errors,
                s.bad,
                s.blunders
            )?;
        }
        if j.shallow > 0 {
            writeln!(
                out,
                "  {} choices outside the judge's deeply evaluated plays (valued at 0-ply)",
                j.shallow
            )?;
        }
        write_worst(out, &set, j, args.worst)?;
        if i > 0 {
            let (d, c) = paired_difference(j, &results[0].0);
            writeln!(
                out,
                "  minus {}: {d:+.2}{} (paired)",
                results[0].0.player,
                ci(c)
            )?;
            if args.differ {
                let first = &results[0].0;
                let listed: Vec<_> = differences(&set, j, first).collect();
                writeln!(
                    out,
                    "  {} choices differ from {}'s:",
                    listed.len(),
                    first.player
                )?;
                for (k, difference, played, first) in listed {
                    writeln!(
                        out,
                        "    {}  {difference:+.5}  played {played}, first {first}",
                        position_and_dice(&set.positions[k]),
                    )?;
                }
            }
        }
    }
    Ok(())
}
