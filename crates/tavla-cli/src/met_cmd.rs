//! `tavla met`: tavla's match equity table, and at one score the match winning chances, take
//! points and gammon values.

use std::io::Write;

use anyhow::Result;
use clap::Args;
use serde::Serialize;
use tavla_core::{CubeOwner, Side};
use tavla_nn::met::{MatchScore, TakePoints, MAX_AWAY};

use crate::input::InputError;

/// The largest cube `--cube` takes: its double must still fit on the cube (32768).
const MAX_CUBE: u32 = 1 << 14;

/// `tavla met`: the table, or one score.
#[derive(Debug, Clone, Args)]
pub struct MetArgs {
    /// The table up to this many points away (at most 32).
    #[arg(long, default_value_t = 11, conflicts_with_all = ["away", "position"])]
    pub length: u32,
    /// One score: the points the side of the first column needs, then the other's
    /// (`--away 3 5`).
    #[arg(long, num_args = 2, value_names = ["ME", "THEM"], conflicts_with = "position")]
    pub away: Option<Vec<u32>>,
    /// With --away and a side 1-away: this is the Crawford game (no cube); by default the
    /// game is after it.
    #[arg(long, requires = "away", conflicts_with = "position")]
    pub crawford: bool,
    /// One score, from a match position in any notation (XGID, gnubg ID, ...): its score,
    /// Crawford game and cube, the side on roll first.
    #[arg(long, value_name = "POSITION", allow_hyphen_values = true)]
    pub position: Option<String>,
    /// With --away or --position: the cube's value before the double (by default 1, or the
    /// position's), a power of two up to 16384.
    #[arg(long)]
    pub cube: Option<u32>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct JsonSide {
    /// Points this side needs.
    away: u32,
    /// Its chance of winning the match, before this game.
    match_winning_chance: f32,
    /// What a gammon adds to a single win, in units of a single game's swing.
    gammon_value: f32,
    /// Its take points of the other side's double, as chances of winning the game; absent
    /// where that double cannot be made (the Crawford game, or this side holds the cube) or
    /// cannot gain.
    #[serde(skip_serializing_if = "Option::is_none")]
    take_points: Option<JsonTakePoints>,
}

#[derive(Serialize)]
struct JsonTakePoints {
    dead_singles: f32,
    dead: f32,
    live: f32,
}

#[derive(Serialize)]
struct JsonScore {
    cube: u32,
    crawford: bool,
    post_crawford: bool,
    sides: [JsonSide; 2],
}

/// Runs `tavla met`, writing to `out`.
///
/// # Errors
/// When the score, the cube or the position cannot be used, or `out` fails.
pub fn met(args: &MetArgs, out: &mut dyn Write) -> Result<()> {
    let (score, cube, holder) = match (&args.away, &args.position) {
        (Some(away), _) => (score_of(away, args.crawford)?, args.cube.unwrap_or(1), None),
        (None, Some(text)) => {
            let state = crate::input::position(text)?;
            if state.match_length == 0 {
                return Err(InputError(format!(
                    "--position {text:?} is a money position: it has no match score"
                ))
                .into());
            }
            let score = MatchScore::of(&state, state.turn).ok_or_else(|| {
                let side = |s: Side| state.match_length.saturating_sub(*state.score.get(s));
                let (me, them) = (side(state.turn), side(state.turn.other()));
                InputError(if me == 0 || them == 0 {
                    format!("--position {text:?}: the match is over ({me}-away {them}-away)")
                } else {
                    format!(
                        "--position {text:?}: {me}-away {them}-away is beyond the table, \
                         which goes to {MAX_AWAY}-away"
                    )
                })
            })?;
            // Sides are listed on-roll first; a held cube can only be turned by its holder.
            let holder = match state.cube.owner {
                CubeOwner::Centre => None,
                CubeOwner::Side(s) => Some(usize::from(s != state.turn)),
            };
            (score, args.cube.unwrap_or(state.cube.value()), holder)
        }
        (None, None) => {
            if args.cube.is_some() {
                return Err(InputError(
                    "--cube needs --away or --position: the table is at the start of a game, \
                     the cube at 1"
                        .to_string(),
                )
                .into());
            }
            return table(args, out);
        }
    };
    // The cube is --cube's, or else the position's.
    let source = match (&args.cube, &args.position) {
        (None, Some(_)) => "--position's cube",
        _ => "--cube",
    };
    if cube == 0 || !cube.is_power_of_two() || cube > MAX_CUBE {
        return Err(InputError(format!(
            "{source} must be a power of two from 1 to {MAX_CUBE}, got {cube}"
        ))
        .into());
    }
    if score.crawford && cube > 1 {
        return Err(InputError(format!(
            "{source} is {cube} in the Crawford game, where the cube stays at 1"
        ))
        .into());
    }
    one_score(score, cube, holder, args.json, out)
}

/// The score of `--away ME THEM`.
fn score_of(away: &[u32], crawford: bool) -> Result<MatchScore> {
    let (me, them) = (away[0], away[1]);
    for n in [me, them] {
        if !(1..=MAX_AWAY as u32).contains(&n) {
            return Err(InputError(format!(
                "--away: points to go must be in 1..={MAX_AWAY}, got {n}"
            ))
            .into());
        }
    }
    let at_one = me == 1 || them == 1;
    if crawford && (!at_one || me == them) {
        return Err(InputError(format!(
            "--crawford: the Crawford game needs one side 1-away and the other not, got \
             {me}-away {them}-away"
        ))
        .into());
    }
    Ok(MatchScore {
        me,
        them,
        crawford: crawford && at_one,
        post_crawford: at_one && !crawford,
    })
}

fn side(score: MatchScore, cube: u32) -> JsonSide {
    JsonSide {
        away: score.me,
        match_winning_chance: score.equity(),
        gammon_value: score.gammon_value(cube),
        take_points: score.take_points(cube).map(|t: TakePoints| JsonTakePoints {
            dead_singles: t.dead_singles,
            dead: t.dead,
            live: t.live,
        }),
    }
}

/// Writes one score's figures; `holder` is the index (0: on roll) of the side that holds the
/// cube, whose own take point is left out: only it can double.
fn one_score(
    score: MatchScore,
    cube: u32,
    holder: Option<usize>,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let mut sides = [side(score, cube), side(score.flip(), cube)];
    if let Some(h) = holder {
        sides[h].take_points = None;
    }
    if json {
        let j = JsonScore {
            cube,
            crawford: score.crawford,
            post_crawford: score.post_crawford,
            sides,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&j)?)?;
        return Ok(());
    }
    let game = if score.crawford {
        ", the Crawford game (no cube)"
    } else if score.post_crawford {
        ", after the Crawford game"
    } else {
        ""
    };
    writeln!(
        out,
        "{}-away {}-away{game}, the cube at {cube} (tavla's match equity table):",
        score.me, score.them
    )?;
    let head = |a: &JsonSide| format!("{}-away", a.away);
    writeln!(
        out,
        "  {:<40} {:>8} {:>8}",
        "",
        head(&sides[0]),
        head(&sides[1])
    )?;
    let pct = |x: f32| format!("{:.1}%", 100.0 * x);
    let row = |out: &mut dyn Write, label: &str, f: &dyn Fn(&JsonSide) -> String| {
        writeln!(out, "  {label:<40} {:>8} {:>8}", f(&sides[0]), f(&sides[1]))
    };
    row(out, "match winning chance at the game's start", &|s| {
        pct(s.match_winning_chance)
    })?;
    row(out, "gammon value", &|s| format!("{:.3}", s.gammon_value))?;
    let tp = |f: fn(&JsonTakePoints) -> f32| {
        move |s: &JsonSide| {
            s.take_points
                .as_ref()
                .map_or("-".to_string(), |t| pct(f(t)))
        }
    };
    writeln!(out, "  take point of a double to {}:", 2 * cube)?;
    row(
        out,
        "  dead cube, every game single",
        &tp(|t| t.dead_singles),
    )?;
    row(out, "  dead cube, gammons 28%", &tp(|t| t.dead))?;
    row(out, "  live cube, gammons 28%", &tp(|t| t.live))?;
    if let Some(h) = holder {
        // Two sides as far away are told apart by their columns.
        let side = if sides[0].away == sides[1].away {
            format!("{} column's", ["left", "right"][h])
        } else {
            format!("{}-away", sides[h].away)
        };
        writeln!(
            out,
            "  (the {side} side holds the cube: only it can double, so only the other takes)"
        )?;
    }
    let unmade = (0..2).any(|i| Some(i) != holder && sides[i].take_points.is_none());
    if unmade {
        writeln!(
            out,
            "  (-: no such double: the Crawford game, or the doubler's win at {cube} already ends the match)"
        )?;
    }
    Ok(())
}

/// The table: the row side's chances against the column side, before the Crawford game (the
/// 1-away row and column are the Crawford game), then the post-Crawford row.
fn table(args: &MetArgs, out: &mut dyn Write) -> Result<()> {
    let n = args.length;
    if !(1..=MAX_AWAY as u32).contains(&n) {
        return Err(InputError(format!("--length must be in 1..={MAX_AWAY}, got {n}")).into());
    }
    let at = |me: u32, them: u32, crawford: bool| {
        MatchScore {
            me,
            them,
            crawford: crawford && (me == 1 || them == 1),
            post_crawford: !crawford && (me == 1 || them == 1),
        }
        .equity()
    };
    if args.json {
        let pre: Vec<Vec<f32>> = (1..=n)
            .map(|me| (1..=n).map(|them| at(me, them, true)).collect())
            .collect();
        let post: Vec<f32> = (1..=n).map(|them| at(1, them, false)).collect();
        let j = serde_json::json!({ "length": n, "table": pre, "post_crawford": post });
        writeln!(out, "{}", serde_json::to_string_pretty(&j)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "tavla's match equity table: the row side's chance of winning the match, in %, needing \
         the row's points against the column's (1-away: the Crawford game)."
    )?;
    write!(out, "{:>8}", "away")?;
    for them in 1..=n {
        write!(out, "{them:>6}")?;
    }
    writeln!(out)?;
    for me in 1..=n {
        write!(out, "{me:>8}")?;
        for them in 1..=n {
            write!(out, "{:>6.1}", 100.0 * at(me, them, true))?;
        }
        writeln!(out)?;
    }
    writeln!(out, "After the Crawford game, 1-away against the column:")?;
    write!(out, "{:>8}", "1")?;
    for them in 1..=n {
        write!(out, "{:>6.1}", 100.0 * at(1, them, false))?;
    }
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(away: Option<[u32; 2]>, position: Option<&str>, cube: Option<u32>) -> MetArgs {
        MetArgs {
            length: 11,
            away: away.map(|a| a.to_vec()),
            crawford: false,
            position: position.map(str::to_string),
            cube,
            json: true,
        }
    }

    fn run(a: &MetArgs) -> Result<serde_json::Value> {
        let mut out = Vec::new();
        met(a, &mut out)?;
        Ok(serde_json::from_slice(&out)?)
    }

    #[test]
    fn the_table_is_the_libraries_and_its_sides_add_up() {
        let v = run(&args(None, None, None)).unwrap();
        let pre = v["table"].as_array().unwrap();
        assert_eq!(pre.len(), 11);
        let at = |me: usize, them: usize| pre[me - 1][them - 1].as_f64().unwrap();
        for me in 1..=11 {
            for them in 1..=11 {
                assert!((at(me, them) + at(them, me) - 1.0).abs() < 2e-3);
            }
        }
        // 1-away 1-away is even; post-Crawford 1-away 2-away a little better than even for
        // the leader, who passes the trailer's double when behind (the free drop; gnubg's
        // table: 51.2%).
        assert!((at(1, 1) - 0.5).abs() < 1e-6);
        let free_drop = v["post_crawford"][1].as_f64().unwrap();
        assert!(free_drop > 0.505 && free_drop < 0.52, "{free_drop}");
    }

    #[test]
    fn a_position_gives_its_score_and_cube() {
        // 7-point match, X on roll at 3-1 (4-away 6-away), the cube at 2 on X's side.
        let xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:7:10";
        let v = run(&args(None, Some(xgid), None)).unwrap();
        assert_eq!(v["cube"], 2);
        assert_eq!(v["sides"][0]["away"], 4);
        assert_eq!(v["sides"][1]["away"], 6);
        // The same score by --away, but with no holder: both sides' take points.
        let mut same = run(&args(Some([4, 6]), None, Some(2))).unwrap();
        same["sides"][0]
            .as_object_mut()
            .unwrap()
            .remove("take_points");
        assert_eq!(v, same);
        let both = run(&args(Some([4, 6]), None, Some(2))).unwrap();
        let sides = both["sides"].as_array().unwrap();
        let mwc: f64 = sides
            .iter()
            .map(|s| s["match_winning_chance"].as_f64().unwrap())
            .sum();
        assert!((mwc - 1.0).abs() < 2e-3);
        for s in sides {
            let t = &s["take_points"];
            let (singles, live) = (
                t["dead_singles"].as_f64().unwrap(),
                t["live"].as_f64().unwrap(),
            );
            assert!(
                singles > 0.0 && singles < 0.5 && live > 0.0 && live < 0.5,
                "{s}"
            );
        }
    }

    #[test]
    fn bad_input_is_refused_naming_what_is_wrong() {
        let err = |a: MetArgs| run(&a).unwrap_err().to_string();
        assert!(err(args(Some([0, 5]), None, None)).contains("--away"));
        assert!(err(args(Some([3, 40]), None, None)).contains("--away"));
        assert!(err(args(Some([3, 5]), None, Some(3))).contains("--cube"));
        assert!(err(args(None, Some("4HPwATDgc/ABMA"), None)).contains("money"));
        assert!(err(args(None, Some("junk"), None)).contains("invalid position"));
        let mut crawford = args(Some([3, 5]), None, None);
        crawford.crawford = true;
        assert!(err(crawford).contains("--crawford"));
        // At 1-away 1-away the Crawford game is past.
        let mut both = args(Some([1, 1]), None, None);
        both.crawford = true;
        assert!(err(both).contains("--crawford"));
        let mut long = args(None, None, None);
        long.length = 40;
        assert!(err(long).contains("--length"));
        assert!(err(args(Some([3, 5]), None, Some(1 << 15))).contains("--cube"));
        // The table is at the cube's start: a cube there is a mistake, not ignored.
        assert!(err(args(None, None, Some(2))).contains("--cube needs"));
    }

    #[test]
    fn the_cube_holders_own_take_point_is_left_out() {
        // X on roll holds the cube at 2 (owner field 1 = X): only X can redouble, so only
        // O (the second side) has a take point.
        let xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:7:10";
        let v = run(&args(None, Some(xgid), None)).unwrap();
        assert!(v["sides"][0].get("take_points").is_none(), "{v}");
        assert!(
            v["sides"][1]["take_points"]["live"].as_f64().is_some(),
            "{v}"
        );
        // In words: by its away, or by its column where both sides are as far away.
        let text = |xgid: &str| {
            let mut a = args(None, Some(xgid), None);
            a.json = false;
            let mut out = Vec::new();
            met(&a, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert!(text(xgid).contains("(the 4-away side holds the cube"));
        let level = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:5:10";
        assert!(text(level).contains("(the left column's side holds the cube"));
    }
}
