//! `tavla luck`: the luck of the dice in recorded games (`.mat` or gnubg's SGF), and the
//! players' results with it taken out.
//!
//! Each roll is valued where it was thrown: the equity its best play leaves (the neural engine
//! at 0-ply), minus the mean over all 36 rolls (the 30 non-doubles for the opening roll), times
//! the cube's value then (money games with the cube). A player's luck is the sum over its
//! rolls. Each roll's luck has mean zero whatever happened
//! before it, so a game's points minus the players' difference in luck estimate the same
//! thing as the points, with far less noise: the luck-adjusted result (`tavla arena --luck`
//! does the same for games it plays).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use rayon::prelude::*;
use serde::Serialize;
use tavla_core::{GameState, Position, Rules};
use tavla_match::arena::{match_roll_luck, roll_luck, LuckJudge};
use tavla_nn::search::{Prune, Search};
use tavla_nn::Weights;
use tavla_notation::mat::Replay;

use crate::input::{threads, InputError};
use crate::players::shared_bearoff;
use crate::records::{read_records, GameContext};

/// The luck judge of `tavla luck` and `tavla arena --luck`: the neural engine at 0-ply (the
/// inner move choice of a search: pruned, races home from the bearoff databases).
#[derive(Clone)]
pub struct NeuralLuck(Search);

impl NeuralLuck {
    /// The judge with the embedded networks, or those of `weights`.
    ///
    /// # Errors
    /// A weights file that cannot be read or does not match; bearoff databases that cannot be
    /// built.
    pub fn new(weights: Option<&Path>) -> Result<NeuralLuck> {
        let weights = match weights {
            Some(f) => {
                Arc::new(Weights::load(f).map_err(|e| InputError(format!("--luck-weights: {e}")))?)
            }
            None => Weights::shared_default(),
        };
        let bearoff = shared_bearoff();
        Ok(NeuralLuck(
            Search::new(weights)
                .with_bearoff(bearoff)
                .with_prune(Prune::embedded()),
        ))
    }
}

impl LuckJudge for NeuralLuck {
    fn roll_values(&mut self, position: &Position, rules: Rules, out: &mut [f64; 21]) {
        self.0.roll_values(position, rules, out);
    }

    /// Empties the search's cache. What is in the cache changes the values a little (a
    /// value from the cache can differ in the last bits from the same value computed in
    /// another batch, and plays already valued escape the pruning networks' cut), and which
    /// games a worker judged before depends on the scheduling: each game starts from an empty
    /// cache, so that the figures depend neither on the threads nor on the games before, and
    /// `tavla luck` on a record gives what the arena gave when it played it.
    fn new_game(&mut self) {
        self.0.reset();
    }

    fn values_matches(&self) -> bool {
        true
    }

    fn match_roll_values(&mut self, state: &GameState, rules: Rules, out: &mut [f64; 21]) {
        self.0.match_roll_values(state, rules, out);
    }
}

/// `tavla luck`.
#[derive(Args)]
pub struct LuckArgs {
    /// Match records in Jellyfish `.mat` form (gnubg's `export match mat`,
    /// `match-vs-external --mat`) or gnubg's SGF (`save match`), told apart by content;
    /// their games are taken together: records of the same two players in the same columns,
    /// all money play or all matches (others are refused).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The games of each file come in duplicate pairs (games 1 and 2, 3 and 4, ...: the same
    /// dice with the players' seats swapped, as `match-vs-external` plays them): the interval
    /// is computed over pairs, the independent units. For matches (one a file), the files
    /// come in pairs: 1 and 2, 3 and 4, ... (as `tavla arena --match N --mat DIR` writes them).
    #[arg(long)]
    pairs: bool,
    /// Value the rolls with the networks of FILE instead of the embedded ones.
    #[arg(long, value_name = "FILE")]
    luck_weights: Option<PathBuf>,
    /// Worker threads; 0 for one per core.
    #[arg(long, default_value_t = 0, value_parser = crate::input::threads_arg, value_name = "T")]
    threads: usize,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// One game's figures, from the left player's side.
#[derive(Debug, Clone, Copy)]
struct GameLuck {
    /// Points won by the left player (negative when it lost).
    points: f64,
    /// The luck of each player's rolls, summed (left, right).
    luck: [f64; 2],
    /// In a match, the same in match winning chances.
    match_luck: [f64; 2],
    /// Rolls thrown by each player.
    rolls: [u32; 2],
}

/// The report of `tavla luck` (its `--json` object).
#[derive(Debug, Clone, Serialize)]
pub struct LuckReport {
    /// The players' names (left, right), from the first file.
    pub players: [String; 2],
    /// Games read.
    pub games: usize,
    /// Whether the interval is over duplicate pairs.
    pub pairs: bool,
    /// Whether every game was cubeless money play.
    pub cubeless_money: bool,
    /// Whether every game was money play, cubeless or with the cube (points per game are then
    /// money results, and the luck-adjusted result is given).
    pub money: bool,
    /// Mean luck per game of each player, in equity (points).
    pub luck_per_game: [f64; 2],
    /// Mean luck per roll of each player, in thousandths of a point (mEMG).
    pub luck_per_roll_memg: [f64; 2],
    /// The left player's points per game.
    pub ppg_left: f64,
    /// Its 95% half-width; `None` from a single unit.
    pub ci95: Option<f64>,
    /// The left player's luck-adjusted points per game: points minus its luck plus the right
    /// player's. Only for money games (the luck is cubeless equity at the cube's value, not a
    /// match winning chance).
    pub luck_adjusted_ppg_left: Option<f64>,
    /// Its 95% half-width.
    pub luck_adjusted_ci95: Option<f64>,
    /// When every file is one finished match: the left player's matches won and the same luck
    /// adjusted, each roll's luck in match winning chances.
    pub matches: Option<MatchLuck>,
}

/// The match results of `tavla luck` on finished matches, one a file.
#[derive(Debug, Clone, Serialize)]
pub struct MatchLuck {
    /// Matches read.
    pub matches: usize,
    /// The left player's share of the matches won.
    pub win_rate_left: f64,
    /// Its 95% half-width (over matches, or over pairs of files with `--pairs`).
    pub win_rate_ci95: Option<f64>,
    /// The left player's luck-adjusted share: each match's result (1 or 0) minus the left
    /// player's luck in match winning chances plus the right player's.
    pub luck_adjusted_win_rate_left: f64,
    /// Its 95% half-width.
    pub luck_adjusted_win_rate_ci95: Option<f64>,
}

/// Runs `tavla luck`.
pub fn luck(args: &LuckArgs, out: &mut impl Write) -> Result<()> {
    let records = read_records(&args.files)?;
    crate::records::check_together(&records, |i| args.files[i].display().to_string())?;
    for ((record, replays), f) in records.iter().zip(&args.files) {
        if args.pairs && record.length == 0 && record.games.len() % 2 == 1 {
            return Err(InputError(format!(
                "{}: {} games cannot be duplicate pairs (--pairs)",
                f.display(),
                record.games.len()
            ))
            .into());
        }
        if let Some((g, _)) = record
            .games
            .iter()
            .zip(replays)
            .find(|(_, r)| r.result.is_none())
        {
            return Err(InputError(format!(
                "{}: game {} (line {}) has no result",
                f.display(),
                g.number,
                g.line
            ))
            .into());
        }
    }
    let judge = NeuralLuck::new(args.luck_weights.as_deref())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads(args.threads))
        .build()?;
    // Every game with its match context (none in money play).
    let mut all: Vec<(&Replay, Option<GameContext>)> = Vec::new();
    for (record, replays) in &records {
        let contexts = GameContext::of_games(record);
        all.extend(
            replays
                .iter()
                .zip(contexts)
                .map(|(r, c)| (r, (record.length > 0).then_some(c))),
        );
    }
    let games: Vec<GameLuck> = pool.install(|| {
        all.par_iter()
            .map_init(
                || (judge.clone(), [0.0; 21]),
                |(judge, values), (replay, context)| game_luck(judge, values, replay, *context),
            )
            .collect()
    });
    let money = records.iter().all(|(r, _)| r.length == 0);
    let cubeless = records
        .iter()
        .all(|(_, replays)| replays.iter().all(|g| !g.cube));
    if args.pairs && !money && records.len() % 2 == 1 {
        return Err(InputError(format!(
            "{} matches cannot be duplicate pairs (--pairs pairs the files of matches)",
            records.len()
        ))
        .into());
    }
    // Duplicate pairs are of games in money sessions, of match files in matches.
    let mut report = report(
        records[0].0.players.clone(),
        &games,
        args.pairs && money,
        money,
    );
    report.cubeless_money = money && cubeless;
    report.matches = match_report(&records, &games, args.pairs);
    if args.json {
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write_table(out, &args.files, &report)?;
    }
    Ok(())
}

fn game_luck(
    judge: &mut NeuralLuck,
    values: &mut [f64; 21],
    replay: &Replay,
    context: Option<GameContext>,
) -> GameLuck {
    judge.new_game();
    let mut luck = [0.0; 2];
    let mut match_luck = [0.0; 2];
    let mut rolls = [0; 2];
    for r in &replay.rolls {
        if let Some(m) = context {
            let state = m.state(r.player, r.position, r.cube, r.cube_owner);
            match_luck[r.player] +=
                match_roll_luck(judge, &state, r.roll, Rules::Standard, r.opening, values);
        }
        luck[r.player] += f64::from(r.cube)
            * roll_luck(
                judge,
                &r.position,
                r.roll,
                Rules::Standard,
                r.opening,
                values,
            );
        rolls[r.player] += 1;
    }
    let (winner, points) = replay.result.expect("checked when read");
    let points = f64::from(points);
    GameLuck {
        points: if winner == 0 { points } else { -points },
        luck,
        match_luck,
        rolls,
    }
}

/// The match figures of `records` when every one is a finished match (one match a file), in
/// the order of `games` (theirs, game by game): each match's result for the left player and
/// its luck in match winning chances; duplicate pairs of files with `pairs`.
fn match_report(
    records: &[(tavla_notation::mat::MatchRecord, Vec<Replay>)],
    games: &[GameLuck],
    pairs: bool,
) -> Option<MatchLuck> {
    let mut units = Vec::new();
    let mut next = 0;
    for (record, replays) in records {
        let played = &games[next..next + replays.len()];
        next += replays.len();
        let (last, replay) = (record.games.last()?, replays.last()?);
        let (winner, points) = replay.result?;
        let mut score = last.scores;
        score[winner] += points;
        if record.length == 0 || score[winner] < record.length {
            return None;
        }
        let won = if winner == 0 { 1.0 } else { -1.0 };
        let luck: f64 = played
            .iter()
            .map(|g| g.match_luck[0] - g.match_luck[1])
            .sum();
        // A match counts ±1: a change of the winning chance by d is worth 2d.
        units.push((won, won - 2.0 * luck));
    }
    if pairs {
        if units.len() % 2 == 1 {
            return None;
        }
        units = units
            .chunks(2)
            .map(|p| ((p[0].0 + p[1].0) / 2.0, (p[0].1 + p[1].1) / 2.0))
            .collect();
    }
    let rate = |xs: Vec<f64>| {
        let (m, ci) = mean_ci(&xs);
        (0.5 * (1.0 + m), ci.map(|c| 0.5 * c))
    };
    let (win_rate_left, win_rate_ci95) = rate(units.iter().map(|u| u.0).collect());
    let (luck_adjusted_win_rate_left, luck_adjusted_win_rate_ci95) =
        rate(units.iter().map(|u| u.1).collect());
    Some(MatchLuck {
        matches: records.len(),
        win_rate_left,
        win_rate_ci95,
        luck_adjusted_win_rate_left,
        luck_adjusted_win_rate_ci95,
    })
}

/// Mean and 95% half-width (normal approximation) of `xs`; no width from one value.
fn mean_ci(xs: &[f64]) -> (f64, Option<f64>) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, None);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, Some(1.96 * (var / n).sqrt()))
}

fn report(players: [String; 2], games: &[GameLuck], pairs: bool, money: bool) -> LuckReport {
    let units = |f: &dyn Fn(&GameLuck) -> f64| -> Vec<f64> {
        if pairs {
            games
                .chunks(2)
                .map(|p| (f(&p[0]) + f(&p[1])) / 2.0)
                .collect()
        } else {
            games.iter().map(f).collect()
        }
    };
    let (ppg_left, ci95) = mean_ci(&units(&|g| g.points));
    let (luck_adjusted_ppg_left, luck_adjusted_ci95) = if money {
        let (m, ci) = mean_ci(&units(&|g| g.points - g.luck[0] + g.luck[1]));
        (Some(m), ci)
    } else {
        (None, None)
    };
    let n = games.len() as f64;
    let sum = |i: usize| games.iter().map(|g| g.luck[i]).sum::<f64>();
    let rolls = |i: usize| games.iter().map(|g| f64::from(g.rolls[i])).sum::<f64>();
    LuckReport {
        players,
        games: games.len(),
        pairs,
        cubeless_money: false,
        money,
        luck_per_game: [sum(0) / n, sum(1) / n],
        luck_per_roll_memg: [1000.0 * sum(0) / rolls(0), 1000.0 * sum(1) / rolls(1)],
        ppg_left,
        ci95,
        luck_adjusted_ppg_left,
        luck_adjusted_ci95,
        matches: None,
    }
}

fn write_table(out: &mut impl Write, files: &[PathBuf], r: &LuckReport) -> Result<()> {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    writeln!(out, "{} games from {}", r.games, names.join(", "))?;
    writeln!(
        out,
        "rolls valued by the neural engine at 0-ply; luck = a roll's value minus the mean of all \
         rolls, times the cube"
    )?;
    writeln!(
        out,
        "{:<24} {:>14} {:>20}",
        "player", "luck per game", "luck per roll (mEMG)"
    )?;
    for i in 0..2 {
        // A player who never rolled has no luck per roll (NaN here, null in the JSON).
        let per_roll = r.luck_per_roll_memg[i];
        let per_roll = if per_roll.is_finite() {
            format!("{per_roll:+.1}")
        } else {
            "-".to_string()
        };
        writeln!(
            out,
            "{:<24} {:>+14.4} {per_roll:>20}",
            r.players[i], r.luck_per_game[i]
        )?;
    }
    let over = if r.pairs {
        format!("over {} duplicate pairs", r.games / 2)
    } else {
        format!("over {} games", r.games)
    };
    let ci = |c: Option<f64>| c.map_or(String::new(), |c| format!(" ± {c:.4} (95% CI {over})"));
    writeln!(
        out,
        "{}'s points per game: {:+.4}{}",
        r.players[0],
        r.ppg_left,
        ci(r.ci95)
    )?;
    if let Some(m) = r.luck_adjusted_ppg_left {
        writeln!(
            out,
            "{}'s luck-adjusted points per game: {m:+.4}{}",
            r.players[0],
            ci(r.luck_adjusted_ci95)
        )?;
    }
    match &r.matches {
        Some(m) => {
            let pct = |c: Option<f64>| c.map_or(String::new(), |c| format!(" ± {:.2}%", 100.0 * c));
            writeln!(
                out,
                "{}'s matches won: {:.2}%{} of {}; luck-adjusted (the luck in match winning \
                 chances): {:.2}%{}",
                r.players[0],
                100.0 * m.win_rate_left,
                pct(m.win_rate_ci95),
                m.matches,
                100.0 * m.luck_adjusted_win_rate_left,
                pct(m.luck_adjusted_win_rate_ci95)
            )?;
        }
        None if !r.money => writeln!(
            out,
            "no luck-adjusted result: a match's is given when every file is one finished match"
        )?,
        None => {}
    }
    Ok(())
}
