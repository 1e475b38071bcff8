//! `tavla arena`: one player against another with duplicate dice: cubeless money games (the
//! default), money games with the cube (`--cube`) or matches (`--match N`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use tavla_core::Rules;
use tavla_match::arena::{
    run_arena_recorded, ArenaConfig, ArenaResult, LuckJudge, RecordedGame, Stakes,
};
use tavla_nn::met::MAX_AWAY;
use tavla_notation::mat::{Action, GameRecord, MatchRecord};

use crate::input::InputError;
use crate::luck_cmd::NeuralLuck;
use crate::players::PlayerSpec;

/// The rules of the games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum VariantArg {
    /// Standard backgammon.
    #[default]
    Standard,
    /// Doubles are played twice, not four times (the seed article's experiment).
    NoQuadDoubles,
}

impl From<VariantArg> for Rules {
    fn from(v: VariantArg) -> Rules {
        match v {
            VariantArg::Standard => Rules::Standard,
            VariantArg::NoQuadDoubles => Rules::DoublesTwice,
        }
    }
}

/// `tavla arena`.
#[derive(Args)]
pub struct ArenaArgs {
    /// Player A: random, heuristic[:FILE], heuristic-1ply[:FILE],
    /// neural[:ply=N][,cube-ply=N][,cubeless-plays][,weights=FILE][,no-bearoff]
    /// [,filters=K:M/K:M/K:M][,no-prune|,prune=FILE][,keep=K] or ubgi:COMMAND.
    #[arg(long = "a", value_name = "PLAYER")]
    a: String,
    /// Player B, in the same forms.
    #[arg(long = "b", value_name = "PLAYER")]
    b: String,
    /// Games to play: even, as each dice sequence is played twice with colours swapped.
    #[arg(long, value_name = "N")]
    games: u64,
    /// Seed of the dice (and of random players).
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Rules.
    #[arg(long, value_enum, default_value_t = VariantArg::Standard)]
    variant: VariantArg,
    /// Worker threads; 0 for one per core.
    #[arg(long, default_value_t = 0, value_parser = crate::input::threads_arg, value_name = "T")]
    threads: usize,
    /// Also report A's luck-adjusted points per game: each roll's luck (its value minus the
    /// mean over all rolls) taken out of the results, the rolls valued by the neural engine at
    /// 0-ply with the embedded weights (same expectation, a much smaller interval; `tavla
    /// luck`). With --match, A's luck-adjusted match winning rate: each roll valued by the
    /// chance of winning the match its best play leaves.
    #[arg(long)]
    luck: bool,
    /// With --luck: value the rolls with the networks of FILE instead of the embedded ones.
    #[arg(long, value_name = "FILE", requires = "luck")]
    luck_weights: Option<PathBuf>,
    /// Money games with the doubling cube (no Jacoby rule): the players double, take and pass
    /// by their own cube decisions. Raw points per game; with --luck each roll's luck counts at
    /// the cube's value when it is thrown.
    #[arg(long, conflicts_with = "match_length")]
    cube: bool,
    /// With --cube: a doubled player may beaver (take and redouble at once, keeping the cube).
    /// A money-game rule: refused with --match.
    #[arg(long, requires = "cube")]
    beavers: bool,
    /// Before each roll the side on roll may offer to resign, and the other accepts or rejects
    /// (by their own judgement, in a match by match winning chances; an offer rejected is not
    /// made again at that level or below that game). Resigned games score the level offered,
    /// times the cube.
    #[arg(long)]
    resign: bool,
    /// Matches to N points with the cube and the Crawford rule instead of money games: --games
    /// counts matches (in pairs on the same dice), and A's "wins" are matches won.
    #[arg(long = "match", value_name = "N")]
    match_length: Option<u32>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Also write every game to FILE as a `.mat` money session (A the left player; the games
    /// in pairs, A moving first in the first of each; with --cube, the doubles and their
    /// answers too), for `tavla luck --pairs` or gnubg's analysis. With --match, FILE is a
    /// directory that gets one `.mat` file per match, `match-00001.mat` on (a directory that
    /// already holds `match-*.mat` files is refused). Standard rules only.
    #[arg(long, value_name = "FILE")]
    mat: Option<PathBuf>,
}

/// Makes the folder of `--mat DIR` for a match arena, refusing one that already holds
/// match records (`match-*.mat`): an earlier run's files beyond this run's matches would stay
/// there among them.
fn match_folder(dir: &Path) -> Result<(), InputError> {
    if dir.exists() && !dir.is_dir() {
        return Err(InputError(format!(
            "--mat {}: that is a file; with --match, --mat names a folder for one file per match",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        InputError(format!(
            "--mat {}: cannot make the folder: {e}",
            dir.display()
        ))
    })?;
    let cannot_read = |e: std::io::Error| {
        InputError(format!(
            "--mat {}: cannot read the folder: {e}",
            dir.display()
        ))
    };
    let mut earlier: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot_read)? {
        let name = entry.map_err(cannot_read)?.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("match-") && name.ends_with(".mat") {
            earlier.push(name.into_owned());
        }
    }
    earlier.sort();
    match earlier.first() {
        None => Ok(()),
        Some(first) => Err(InputError(format!(
            "--mat {}: the folder already holds {} match record{} ({first}{}); give an empty \
             folder or remove them, so that the records there are of one run",
            dir.display(),
            earlier.len(),
            if earlier.len() == 1 { "" } else { "s" },
            if earlier.len() > 1 { ", ..." } else { "" },
        ))),
    }
}

/// The longest match: tavla's match equity table reaches [`MAX_AWAY`] points.
const MAX_MATCH_LENGTH: u32 = MAX_AWAY as u32;

/// The games as a `.mat` money session, A the left player.
fn session(result: &ArenaResult, games: &[RecordedGame]) -> MatchRecord {
    let mut record = MatchRecord::new(0, [result.a.clone(), result.b.clone()]);
    for (number, game) in (1..).zip(games) {
        record.games.push(game_record(number, game));
    }
    record
}

/// The games of a match arena as one `.mat` match each, A the left player, in order.
fn matches(result: &ArenaResult, length: u32, games: &[RecordedGame]) -> Vec<MatchRecord> {
    let mut out: Vec<MatchRecord> = Vec::new();
    for game in games {
        if game.game_in_match == 0 {
            out.push(MatchRecord::new(
                length,
                [result.a.clone(), result.b.clone()],
            ));
        }
        let record = out.last_mut().expect("a match starts with its game 0");
        record.games.push(game_record(game.game_in_match + 1, game));
    }
    out
}

/// One game as a `.mat` game, A the left player (column 0): its rolls, its doubles with their
/// answers, and its result.
fn game_record(number: u32, game: &RecordedGame) -> GameRecord {
    // Column of a side; X rolls first.
    let column = |x: bool| usize::from(x != game.a_is_x);
    let [x_score, o_score] = game.score;
    let scores = if game.a_is_x {
        [x_score, o_score]
    } else {
        [o_score, x_score]
    };
    let mut g = GameRecord::new(number, scores);
    let mut doubles = game.doubles.iter().peekable();
    for k in 0..=game.rolls.len() {
        while let Some(d) = doubles.next_if(|d| d.before == k) {
            let doubler = column(k % 2 == 0);
            g.push(doubler, Action::Double(d.value));
            if d.beavered {
                // gnubg's record of a beaver: the beaver, then the doubler's take.
                g.push(1 - doubler, Action::Beaver(2 * d.value));
                g.push(doubler, Action::Take);
            } else {
                g.push(
                    1 - doubler,
                    if d.taken { Action::Take } else { Action::Drop },
                );
            }
        }
        if let Some(r) = game.rolls.get(k) {
            g.push_play(column(k % 2 == 0), &r.position, r.roll, &r.play);
        }
    }
    if let Some(winner) = game.result.winner {
        let won = column(winner == tavla_core::Side::X);
        g.push(won, Action::Wins(game.result.score()));
    }
    g
}

/// Runs `tavla arena`.
pub fn arena(args: &ArenaArgs, out: &mut impl Write) -> Result<()> {
    let a = PlayerSpec::parse(&args.a)?;
    let b = PlayerSpec::parse(&args.b)?;
    if args.games < 2 || args.games % 2 == 1 {
        return Err(InputError(format!(
            "invalid --games {}: must be even and at least 2 (each dice sequence is played twice, \
             with colours swapped)",
            args.games
        ))
        .into());
    }
    let rules = Rules::from(args.variant);
    if args.mat.is_some() && rules != Rules::Standard {
        return Err(InputError(
            "--mat: a .mat record holds standard games only, not --variant no-quad-doubles"
                .to_string(),
        )
        .into());
    }
    let stakes = match args.match_length {
        Some(0) => {
            return Err(
                InputError("invalid --match 0: a match is of 1 point or more".into()).into(),
            )
        }
        Some(n) if n > MAX_MATCH_LENGTH => {
            return Err(InputError(format!(
                "invalid --match {n}: at most {MAX_MATCH_LENGTH} points (the match equity table)"
            ))
            .into())
        }
        Some(n) => Stakes::Match(n),
        None if args.cube => Stakes::Cube,
        None => Stakes::Cubeless,
    };
    if args.beavers && matches!(stakes, Stakes::Match(_)) {
        return Err(InputError(
            "--beavers: beavers are a money-game rule, not played in a match (--match)".into(),
        )
        .into());
    }
    // Where the games go is checked before they are played, which may take hours.
    match (&args.mat, stakes) {
        (Some(dir), Stakes::Match(_)) => match_folder(dir)?,
        (Some(path), _) => crate::input::output_file("--mat", path)?,
        (None, _) => {}
    }
    let config = ArenaConfig {
        games: args.games,
        seed: args.seed,
        rules,
        threads: args.threads,
        stakes,
        beavers: args.beavers,
        resignations: args.resign,
    };
    crate::players::load_shared_bearoff_before_progress();
    let progress = ProgressBar::new(args.games).with_style(
        ProgressStyle::with_template(if matches!(stakes, Stakes::Match(_)) {
            "{elapsed_precise} {wide_bar} {pos}/{len} matches ({per_sec}, {eta} left)"
        } else {
            "{elapsed_precise} {wide_bar} {pos}/{len} games ({per_sec}, {eta} left)"
        })
        .expect("a valid template"),
    );
    let judge = if args.luck {
        Some(NeuralLuck::new(args.luck_weights.as_deref())?)
    } else {
        None
    };
    let factory = judge.map(|judge| move || -> Box<dyn LuckJudge> { Box::new(judge.clone()) });
    let start = Instant::now();
    let (result, games) = run_arena_recorded(
        &config,
        |seed| a.create(seed, rules),
        |seed| b.create(seed, rules),
        factory
            .as_ref()
            .map(|f| f as &(dyn Fn() -> Box<dyn LuckJudge> + Sync)),
        &progress,
        args.mat.is_some(),
    )
    .context("arena failed")?;
    let seconds = start.elapsed().as_secs_f64();
    progress.finish_and_clear();
    // The results first: a record that cannot be written then loses no more than itself.
    if args.json {
        serde_json::to_writer(&mut *out, &result)?;
        writeln!(out)?;
    } else {
        write_table(out, &result, seconds)?;
    }
    match (&args.mat, stakes) {
        (Some(dir), Stakes::Match(length)) => {
            for (k, m) in (1..).zip(matches(&result, length, &games)) {
                let path = dir.join(format!("match-{k:05}.mat"));
                let text = m.to_mat().context("cannot write a match as .mat")?;
                std::fs::write(&path, text)
                    .with_context(|| format!("cannot write the match to {}", path.display()))?;
            }
        }
        (Some(path), _) => {
            let mut record = session(&result, &games);
            record.beavers = args.beavers && args.cube;
            let text = record.to_mat().context("cannot write the games as .mat")?;
            std::fs::write(path, text)
                .with_context(|| format!("cannot write the games to {}", path.display()))?;
        }
        (None, _) => {}
    }
    Ok(())
}

fn write_table(out: &mut impl Write, r: &ArenaResult, seconds: f64) -> Result<()> {
    let pct = |n: u64| 100.0 * n as f64 / r.games as f64;
    writeln!(out, "A: {}", r.a)?;
    writeln!(out, "B: {}", r.b)?;
    if let Stakes::Match(length) = r.stakes {
        return write_matches(out, r, length, seconds);
    }
    writeln!(
        out,
        "{} games ({} duplicate pairs), {}, {}, seed {}, {:.1} s ({:.0} games/s)",
        r.games,
        r.pairs,
        r.stakes,
        r.variant,
        r.seed,
        seconds,
        r.games as f64 / seconds
    )?;
    writeln!(
        out,
        "      {:>16} {:>16} {:>16}",
        "wins", "gammons", "backgammons"
    )?;
    for (side, wins, gammons, backgammons) in [
        ("A", r.wins_a, r.gammons_a, r.backgammons_a),
        ("B", r.wins_b, r.gammons_b, r.backgammons_b),
    ] {
        writeln!(
            out,
            "{side}     {:>8} {:>6.2}% {:>8} {:>6.2}% {:>8} {:>6.2}%",
            wins,
            pct(wins),
            gammons,
            pct(gammons),
            backgammons,
            pct(backgammons)
        )?;
    }
    if r.unfinished > 0 {
        writeln!(
            out,
            "unfinished: {} games stopped after {} plies (no points)",
            r.unfinished,
            tavla_match::arena::MAX_PLIES
        )?;
    }
    let none = " (no interval from one pair)".to_string();
    let ppg_ci = r
        .ci95
        .map_or(none.clone(), |c| format!(" ± {c:.3} (95% CI)"));
    let win_ci = r
        .win_rate_ci95
        .map_or(none, |c| format!(" ± {:.2}% (95% CI)", 100.0 * c));
    writeln!(out, "A's points per game: {:+.3}{ppg_ci}", r.ppg_a)?;
    if let Some(adjusted) = r.luck_adjusted_ppg_a {
        let ci = r
            .luck_adjusted_ci95
            .map_or(" (no interval from one pair)".to_string(), |c| {
                format!(" ± {c:.4} (95% CI)")
            });
        writeln!(out, "A's luck-adjusted points per game: {adjusted:+.4}{ci}")?;
    }
    writeln!(out, "A's win rate: {:.2}%{win_ci}", 100.0 * r.win_rate_a)?;
    writeln!(out, "plies per game: {:.1}", r.plies_avg)?;
    Ok(())
}

/// The table of a match arena: matches won, with the interval.
fn write_matches(out: &mut impl Write, r: &ArenaResult, length: u32, seconds: f64) -> Result<()> {
    writeln!(
        out,
        "{} {length}-point matches ({} duplicate pairs), {}, seed {}, {:.1} s ({:.1} matches/s)",
        r.games,
        r.pairs,
        r.variant,
        r.seed,
        seconds,
        r.games as f64 / seconds
    )?;
    writeln!(out, "A won {} matches, B {}", r.wins_a, r.wins_b)?;
    if r.unfinished > 0 {
        writeln!(
            out,
            "unfinished: {} matches stopped after {} games",
            r.unfinished,
            tavla_match::arena::MAX_MATCH_GAMES
        )?;
    }
    let ci = r
        .win_rate_ci95
        .map_or(" (no interval from one pair)".to_string(), |c| {
            format!(" ± {:.2}% (95% CI)", 100.0 * c)
        });
    writeln!(
        out,
        "A's match winning rate: {:.2}%{ci}",
        100.0 * r.win_rate_a
    )?;
    if let Some(adjusted) = r.luck_adjusted_ppg_a {
        // A match counts ±1 point: the rate is half the points past a half.
        let ci = r
            .luck_adjusted_ci95
            .map_or(" (no interval from one pair)".to_string(), |c| {
                format!(" ± {:.2}% (95% CI)", 50.0 * c)
            });
        writeln!(
            out,
            "A's luck-adjusted match winning rate: {:.2}%{ci}",
            50.0 * (1.0 + adjusted)
        )?;
    }
    writeln!(out, "plies per match: {:.1}", r.plies_avg)?;
    Ok(())
}
