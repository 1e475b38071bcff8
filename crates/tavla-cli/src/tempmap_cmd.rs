//! `tavla tempmap`: the temperature map of a position, what each of the 36 rolls is worth to
//! the side on roll after its best play, as a 6 x 6 grid with the best play of each roll.

use std::io::Write;

use anyhow::Result;
use clap::Args;
use serde::Serialize;
use tavla_core::{Dice, GameState};
use tavla_nn::search::Search;
use tavla_nn::tempmap::TemperatureMap;
use tavla_notation::{format, format_pretty, Notation};

use crate::input::InputError;
use crate::nn_cmd::{check_ply, roll_of, EngineArgs, JsonProbs};

/// `tavla tempmap POSITION...`: what each roll is worth to the side on roll.
#[derive(Debug, Clone, Args)]
pub struct TempmapArgs {
    /// The positions, in any notation `tavla` reads, each mapped for its side on roll before
    /// the roll (dice in a position are ignored, except with --play).
    #[arg(required = true, value_name = "POSITION")]
    pub positions: Vec<String>,
    /// Map the position this play leaves (standard notation, `13/7 8/7`, or landing marks,
    /// `@7 @7`), from the opponent's side, for the position's roll or --dice; repeat it to set
    /// candidate plays side by side (at most 8). Needs a single position.
    #[arg(long = "play", value_name = "PLAY")]
    pub plays: Vec<String>,
    /// The roll the --play plays are of, when the position has no dice.
    #[arg(long, value_name = "DICE", requires = "plays")]
    pub dice: Option<String>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Serialize)]
struct JsonRoll {
    roll: String,
    weight: u8,
    play: String,
    ply: u8,
    /// What the roll is worth after its best play, in the map's `measure`.
    worth: f32,
    #[serde(flatten)]
    probs: JsonProbs,
}

#[derive(Serialize)]
struct JsonMap {
    /// The position mapped, before the roll (XGID).
    position: String,
    /// `x` or `o`: the side on roll, whose rolls these are.
    on_roll: &'static str,
    /// With `--play`: the play that left the position, by the opponent of the side on roll.
    #[serde(skip_serializing_if = "Option::is_none")]
    after_play: Option<String>,
    ply: u8,
    /// `cubeless equity`, `cubeful equity` or `match equity` (as `tavla hint` ranks plays).
    measure: &'static str,
    /// The mean worth over the 36 rolls.
    mean: f32,
    /// The standard deviation of the worth over the 36 rolls.
    spread: f32,
    /// The mean cubeless probabilities over the 36 rolls.
    probabilities: JsonProbs,
    /// The 21 rolls, best first.
    rolls: Vec<JsonRoll>,
}

/// The most plays mapped at once (each costs 21 searches).
pub const MAX_PLAYS: usize = 8;

/// A position to map: the state before its roll, and the play that led to it (`--play`).
struct Target {
    state: GameState,
    after_play: Option<String>,
}

/// Runs `tavla tempmap`, writing to `out`.
///
/// # Errors
/// When a position, the dice, a play or the weights cannot be read, a position is a finished
/// game, or `out` fails.
pub fn tempmap(args: &TempmapArgs, out: &mut dyn Write) -> Result<()> {
    // Read everything before the (slower) search is built.
    targets(args)?;
    tempmap_with(args, &mut args.engine.search()?, out)
}

/// [`tempmap`] with a search already built (`tavla serve`; `args`'s weights and pruning are
/// then the search's, its depth is `args`'s).
///
/// # Errors
/// As [`tempmap`].
pub fn tempmap_with(args: &TempmapArgs, search: &mut Search, out: &mut dyn Write) -> Result<()> {
    let ply = args.engine.ply;
    check_ply(ply)?;
    let targets = targets(args)?;
    let maps: Vec<(Target, TemperatureMap)> = targets
        .into_iter()
        .map(|t| {
            let map = TemperatureMap::of(search, &t.state, ply);
            (t, map)
        })
        .collect();
    if args.engine.json {
        let json: Vec<JsonMap> = maps.iter().map(|(t, m)| json_map(t, m)).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(());
    }
    for (i, (t, m)) in maps.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_map(out, t, m)?;
    }
    if maps.len() > 1 {
        writeln!(out)?;
        writeln!(
            out,
            "Side by side (each for its side on roll; after candidate plays, the lower the \
             mean, the better for the side that plays them):\n  {:<32} {:>8} {:>7}  best      worst",
            "", "mean", "spread"
        )?;
        for (t, m) in &maps {
            let ranked = m.ranked();
            let (best, worst) = (ranked[0], ranked[ranked.len() - 1]);
            let name = t
                .after_play
                .clone()
                .unwrap_or_else(|| format(&t.state, Notation::Xgid));
            writeln!(
                out,
                "  {:<32} {:>+8.3} {:>7.3}  {} {:+.3}  {} {:+.3}",
                name,
                m.mean(),
                m.spread(),
                best.roll,
                best.worth,
                worst.roll,
                worst.worth
            )?;
        }
    }
    Ok(())
}

/// The positions to map: each position before its roll, or with `--play` the position each
/// play leaves.
fn targets(args: &TempmapArgs) -> Result<Vec<Target>> {
    let mut states = Vec::new();
    for text in &args.positions {
        let state = crate::input::parse(text)
            .map_err(|e| InputError(format!("cannot read position {text:?}: {e}")))?;
        if state.position.is_game_over() {
            return Err(InputError(format!("the game is over in position {text:?}")).into());
        }
        if state.dice == Dice::DoubleOffered {
            return Err(InputError(format!(
                "position {text:?} has a double waiting for its answer: a map is of a position \
                 before the roll (give the position with the double taken, the cube turned)"
            ))
            .into());
        }
        states.push(state);
    }
    if args.plays.is_empty() {
        if args.dice.is_some() {
            return Err(InputError(
                "dice are for the plays: a map is of the position before the roll, or of \
                 the positions the plays of the dice leave"
                    .into(),
            )
            .into());
        }
        return Ok(states
            .into_iter()
            .map(|state| Target {
                state: GameState {
                    dice: Dice::NotRolled,
                    ..state
                },
                after_play: None,
            })
            .collect());
    }
    if args.plays.len() > MAX_PLAYS {
        return Err(InputError(format!(
            "at most {MAX_PLAYS} plays a map request, got {}",
            args.plays.len()
        ))
        .into());
    }
    let [state] = states[..] else {
        return Err(InputError(format!(
            "the plays need a single position, got {}",
            states.len()
        ))
        .into());
    };
    let roll = roll_of(
        args.dice.as_deref(),
        &state,
        "no dice for the plays: give the roll (for example 31) or a position that holds it",
    )?;
    let pos = state.position;
    args.plays
        .iter()
        .map(|text| {
            let play = crate::play_cmd::read_play(text, &pos, roll)
                .map_err(|e| InputError(format!("play {text:?}: {e}")))?;
            let after = pos
                .play(roll, &play)
                .map_err(|e| InputError(format!("play {text:?}: {e}")))?;
            let shown = if play.is_empty() {
                "cannot move".to_string()
            } else {
                format_pretty(&pos, &play)
            };
            let name = format!("{shown} ({} {roll})", state.turn);
            if after.is_game_over() {
                return Err(InputError(format!("play {text:?} ends the game")).into());
            }
            Ok(Target {
                state: GameState {
                    position: after.flip(),
                    turn: state.turn.other(),
                    dice: Dice::NotRolled,
                    ..state
                },
                after_play: Some(name),
            })
        })
        .collect()
}

fn side_name(state: &GameState) -> &'static str {
    if state.turn == tavla_core::Side::X {
        "x"
    } else {
        "o"
    }
}

fn json_map(t: &Target, m: &TemperatureMap) -> JsonMap {
    JsonMap {
        position: format(&t.state, Notation::Xgid),
        on_roll: side_name(&t.state),
        after_play: t.after_play.clone(),
        ply: m.ply,
        measure: m.worth.describe(),
        mean: m.mean(),
        spread: m.spread(),
        probabilities: m.mean_probabilities().into(),
        rolls: m
            .ranked()
            .into_iter()
            .map(|r| JsonRoll {
                roll: r.roll.to_string(),
                weight: r.weight,
                play: play_text(&t.state, r, "pass"),
                ply: r.ply,
                worth: r.worth,
                probs: r.probs.into(),
            })
            .collect(),
    }
}

/// A roll's best play in standard notation; `none` when it has none (`cannot move` in the
/// grid, `pass` in JSON as in `moves` and `hint`).
fn play_text(state: &GameState, r: &tavla_nn::tempmap::RollChoice, none: &str) -> String {
    if r.play.is_empty() {
        none.into()
    } else {
        format_pretty(&state.position, &r.play)
    }
}

fn write_map(out: &mut dyn Write, t: &Target, m: &TemperatureMap) -> Result<()> {
    if let Some(p) = &t.after_play {
        writeln!(out, "After {p}:")?;
    }
    writeln!(
        out,
        "{} on roll ({}), {}-ply, {} after the best play of each roll:",
        t.state.turn,
        format(&t.state, Notation::Xgid),
        m.ply,
        m.worth.describe()
    )?;
    write!(out, "     ")?;
    for d in 1..=6 {
        write!(out, "{d:>8}")?;
    }
    writeln!(out)?;
    for a in 1..=6u8 {
        write!(out, "  {a}  ")?;
        for b in 1..=6u8 {
            let worth = m.get(tavla_core::Roll::from_values(a, b)).worth;
            write!(out, "{worth:>+8.3}")?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "Mean {:+.3} over the 36 rolls; spread {:.3} (their standard deviation).",
        m.mean(),
        m.spread()
    )?;
    writeln!(out, "Rolls, best first:")?;
    for r in m.ranked() {
        writeln!(
            out,
            "  {}  {:>+7.3}  {}",
            r.roll,
            r.worth,
            play_text(&t.state, r, "cannot move")
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn_cmd::PruneArgs;

    fn args(positions: &[&str], plays: &[&str], dice: Option<&str>, json: bool) -> TempmapArgs {
        TempmapArgs {
            positions: positions.iter().map(ToString::to_string).collect(),
            plays: plays.iter().map(ToString::to_string).collect(),
            dice: dice.map(str::to_string),
            engine: EngineArgs {
                ply: 0,
                weights: None,
                json,
                no_bearoff: false,
                prune: PruneArgs::default(),
            },
        }
    }

    fn run(a: &TempmapArgs) -> Result<String> {
        let mut out = Vec::new();
        tempmap(a, &mut out)?;
        Ok(String::from_utf8(out)?)
    }

    const START: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";

    #[test]
    fn the_opening_map_grid_list_and_mean_agree() {
        let text = run(&args(&[START], &[], None, false)).unwrap();
        let grid: Vec<Vec<f32>> = text
            .lines()
            .skip(2)
            .take(6)
            .map(|l| {
                l.split_whitespace()
                    .skip(1)
                    .map(|v| v.parse().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(grid.len(), 6);
        // Each cell is its roll's worth in the list of rolls.
        let listed = |roll: &str| -> f32 {
            let line = text
                .lines()
                .find(|l| l.starts_with(&format!("  {roll}  ")))
                .unwrap_or_else(|| panic!("{roll} listed: {text}"));
            line.split_whitespace().nth(1).unwrap().parse().unwrap()
        };
        for (a, row) in grid.iter().enumerate() {
            assert_eq!(row.len(), 6);
            for (b, v) in row.iter().enumerate() {
                let roll = format!("{}{}", a.max(b) + 1, a.min(b) + 1);
                assert_eq!(*v, listed(&roll), "{roll}");
            }
        }
        // The mean line is the mean of the 36 cells.
        let cells: f32 = grid.iter().flatten().sum::<f32>() / 36.0;
        let mean: f32 = text
            .lines()
            .find_map(|l| l.strip_prefix("Mean "))
            .and_then(|l| l.split_whitespace().next())
            .unwrap()
            .parse()
            .unwrap();
        assert!((cells - mean).abs() < 0.001, "{cells} against {mean}");
        // The plays every program agrees on from the start.
        assert!(text
            .lines()
            .any(|l| l.starts_with("  31 ") && l.ends_with("8/5 6/5")));
        assert!(text
            .lines()
            .any(|l| l.starts_with("  65 ") && l.ends_with("24/13")));
    }

    #[test]
    fn candidate_plays_are_mapped_from_the_opponent_and_set_side_by_side() {
        let a = args(&[START], &["13/11 6/5", "24/23 13/11"], Some("21"), true);
        let v: serde_json::Value = serde_json::from_str(&run(&a).unwrap()).unwrap();
        let maps = v.as_array().unwrap();
        assert_eq!(maps.len(), 2);
        for m in maps {
            assert_eq!(m["on_roll"], "o");
            assert_eq!(m["rolls"].as_array().unwrap().len(), 21);
            let weights: u64 = m["rolls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["weight"].as_u64().unwrap())
                .sum();
            assert_eq!(weights, 36);
            // Best first.
            let worths: Vec<f64> = m["rolls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["worth"].as_f64().unwrap())
                .collect();
            assert!(worths.windows(2).all(|w| w[0] >= w[1]));
        }
        assert!(maps[0]["after_play"]
            .as_str()
            .unwrap()
            .starts_with("13/11 6/5"));
        let text = run(&args(
            &[START],
            &["13/11 6/5", "24/23 13/11"],
            Some("21"),
            false,
        ))
        .unwrap();
        assert!(text.contains("Side by side"), "{text}");
    }

    #[test]
    fn bad_input_is_refused_naming_what_is_wrong() {
        let err = |a: TempmapArgs| run(&a).unwrap_err().to_string();
        assert!(err(args(&["nonsense"], &[], None, false)).contains("cannot read position"));
        assert!(err(args(&[START], &["13/11 6/5"], None, false)).contains("no dice"));
        let illegal = err(args(&[START], &["13/10 6/5"], Some("21"), false));
        assert!(illegal.contains("play \"13/10 6/5\": Illegal"), "{illegal}");
        assert!(!illegal.contains("help"), "no terminal hints: {illegal}");
        assert!(
            err(args(&[START, START], &["13/11 6/5"], Some("21"), false))
                .contains("single position")
        );
        assert!(err(args(&[START], &[], Some("21"), false)).contains("dice are for the plays"));
        let doubled = "XGID=-b----E-C---eE---c-e----B-:1:0:1:D:0:0:0:0:10";
        assert!(err(args(&[doubled], &[], None, false)).contains("double waiting"));
        let many = ["13/11 6/5"; 9];
        assert!(err(args(&[START], &many, Some("21"), false)).contains("at most 8"));
        // A side that cannot move is named so.
        let closed = "XGID=------E-C---AE----cbbbbbbA:0:0:1:21:0:0:0:0:10";
        let v: serde_json::Value =
            serde_json::from_str(&run(&args(&[closed], &[""], None, true)).unwrap()).unwrap();
        assert!(
            v[0]["after_play"]
                .as_str()
                .unwrap()
                .starts_with("cannot move"),
            "{v}"
        );
    }
}
