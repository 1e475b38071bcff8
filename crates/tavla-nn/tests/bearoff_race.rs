//! Race values from the bearoff databases, checked against gnubg and against the exact
//! two-sided database; and money cube decisions in short bearoffs, checked against gnubg's.
//!
//! `data/gnubg-cubeful-bearoff.txt` was made with `tools/refdata/make-cubeful-bearoff`: 398
//! races of 1 to 6 checkers a side, the cube centred or owned by the side on roll, and gnubg's
//! cube decision from its exact cubeful bearoff database (most within 0.12 of the doubling
//! line).
//!
//! `data/gnubg-bearoff-race.txt` was made with `tools/refdata/make-bearoff-race`: 600 races
//! with every checker home, 1 to 15 checkers a side, and gnubg's 0-ply probabilities, which
//! gnubg takes from its own bearoff databases (exact two-sided for 6 checkers or fewer, class
//! `bearoff2`; the one-sided estimate otherwise, class `bearoff1`).

use tavla_bearoff::{OneSided, OneSidedDb, PerfectHash, TwoSidedDb};
use tavla_core::Position;
use tavla_nn::bearoff::BearoffRace;
use tavla_nn::cube::CubeHolder;
use tavla_nn::{Evaluator, Probabilities, Search, Weights};

struct Case {
    pos: Position,
    gnubg: Probabilities,
    class: String,
}

fn cases() -> Vec<Case> {
    include_str!("data/gnubg-bearoff-race.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let v: Vec<f32> = t[1..6].iter().map(|x| x.parse().unwrap()).collect();
            Case {
                pos: Position::from_position_id(t[0]).unwrap(),
                gnubg: Probabilities {
                    win: v[0],
                    win_gammon: v[1],
                    win_backgammon: v[2],
                    lose_gammon: v[3],
                    lose_backgammon: v[4],
                },
                class: t[6].to_string(),
            }
        })
        .collect()
}

fn sides(pos: &Position) -> (OneSided, OneSided) {
    let b = pos.signed_board();
    let mine: Vec<u8> = (1..=6).map(|p| b[p].max(0) as u8).collect();
    let theirs: Vec<u8> = (1..=6).map(|q| (-b[25 - q]).max(0) as u8).collect();
    (
        OneSided::new(&mine).unwrap(),
        OneSided::new(&theirs).unwrap(),
    )
}

fn max_diff(a: &Probabilities, b: &Probabilities) -> f32 {
    [
        a.win - b.win,
        a.win_gammon - b.win_gammon,
        a.win_backgammon - b.win_backgammon,
        a.lose_gammon - b.lose_gammon,
        a.lose_backgammon - b.lose_backgammon,
    ]
    .iter()
    .fold(0.0f32, |m, d| m.max(d.abs()))
}

#[test]
fn bearoff_values_agree_with_gnubg() {
    let cases = cases();
    assert_eq!(cases.len(), 600);
    let (two, _) = TwoSidedDb::build(6, 8).unwrap();
    let race = BearoffRace::new(two).with_one_sided(OneSidedDb::build(6, 15).unwrap());
    let (mut worst_exact, mut worst_estimate, mut worst_probe) = (0.0f32, 0.0f32, 0.0f32);
    let mut gammons = 0;
    let weights = Weights::shared_default();
    let (mut net_error, mut net_equity_error) = (0.0f64, 0.0f64);
    for c in &cases {
        let net = weights.evaluate(&c.pos);
        net_error += f64::from((net.win - c.gnubg.win).abs());
        net_equity_error += f64::from((net.equity() - c.gnubg.equity()).abs());
        let (me, opp) = sides(&c.pos);
        let estimate = race.one_sided_estimate(&me, &opp).unwrap();
        let probe = race.probe(&c.pos).unwrap();
        gammons += usize::from(c.gnubg.win_gammon > 0.001 || c.gnubg.lose_gammon > 0.001);
        match c.class.as_str() {
            // gnubg's exact two-sided values: ours are exact too.
            "bearoff2" => {
                let exact = race.exact(&me, &opp).unwrap();
                worst_exact = worst_exact.max(max_diff(&exact, &c.gnubg));
                assert_eq!(probe, exact);
            }
            // gnubg's one-sided estimate: ours is the same estimate.
            "bearoff1" => worst_estimate = worst_estimate.max(max_diff(&estimate, &c.gnubg)),
            other => panic!("unexpected gnubg class {other}"),
        }
        worst_probe = worst_probe.max(max_diff(&probe, &c.gnubg));
    }
    let n = cases.len() as f64;
    eprintln!(
        "race network against gnubg: mean |win| difference {:.5}, mean |equity| difference {:.5}",
        net_error / n,
        net_equity_error / n
    );
    // The databases agree with gnubg's to a ten-thousandth; the network is much further off.
    assert!(net_error / n > 0.002, "{}", net_error / n);
    eprintln!(
        "largest difference from gnubg: exact {worst_exact:.6}, one-sided {worst_estimate:.6}, \
         probe {worst_probe:.6}; {gammons} positions with gammon chances"
    );
    assert!(gammons >= 20, "{gammons}");
    assert!(worst_exact < 1e-4, "{worst_exact}");
    assert!(worst_estimate < 5e-4, "{worst_estimate}");
    assert!(worst_probe < 0.01, "{worst_probe}");
}

#[test]
fn one_sided_estimate_is_close_to_exact() {
    // Every pair of positions with up to 5 checkers on six points.
    let (two, _) = TwoSidedDb::build(6, 5).unwrap();
    let race = BearoffRace::new(two).with_one_sided(OneSidedDb::build(6, 5).unwrap());
    let hash = PerfectHash::new(6, 5).unwrap();
    let all: Vec<OneSided> = (1..hash.count()).map(|i| hash.unrank(i).unwrap()).collect();
    let (mut sum, mut worst, mut n) = (0.0f64, 0.0f32, 0u32);
    for me in &all {
        for opp in &all {
            let exact = race.exact(me, opp).unwrap().win;
            let estimate = race.one_sided_estimate(me, opp).unwrap();
            assert_eq!(estimate.win_gammon, 0.0);
            let d = (estimate.win - exact).abs();
            sum += f64::from(d);
            worst = worst.max(d);
            n += 1;
        }
    }
    let mean = sum / f64::from(n);
    eprintln!("{n} pairs: one-sided estimate minus exact, mean |d| {mean:.6}, largest {worst:.6}");
    assert!(mean < 0.002, "{mean}");
    assert!(worst < 0.03, "{worst}");
}

fn position(me: &OneSided, opp: &OneSided) -> Position {
    let mut b = [0i8; 26];
    for i in 0..6 {
        b[i + 1] = me.counts()[i] as i8;
        b[24 - i] = -(opp.counts()[i] as i8);
    }
    Position::try_from(b).unwrap()
}

#[test]
fn the_databases_are_closer_to_exact_than_the_race_network() {
    // 20,000 pairs of positions of up to 8 checkers spread over the 6 x 8 database.
    let (two, _) = TwoSidedDb::build(6, 8).unwrap();
    let race = BearoffRace::new(two).with_one_sided(OneSidedDb::build(6, 15).unwrap());
    let hash = PerfectHash::new(6, 8).unwrap();
    let weights = Weights::shared_default();
    let n = hash.count() - 1;
    let (mut net, mut estimate) = (0.0f64, 0.0f64);
    let pairs = 20_000u64;
    for k in 0..pairs {
        let me = hash.unrank(1 + (k * 7919) % n).unwrap();
        let opp = hash.unrank(1 + (k * 104_729 + 17) % n).unwrap();
        let exact = race.exact(&me, &opp).unwrap().win;
        let pos = position(&me, &opp);
        assert_eq!(race.probe(&pos).unwrap().win, exact);
        net += f64::from((weights.evaluate(&pos).win - exact).abs());
        estimate += f64::from((race.one_sided_estimate(&me, &opp).unwrap().win - exact).abs());
    }
    let (net, estimate) = (net / pairs as f64, estimate / pairs as f64);
    eprintln!(
        "mean |win - exact| over {pairs} pairs: race network {net:.5}, one-sided {estimate:.5}"
    );
    assert!(estimate < net / 2.0, "one-sided {estimate}, network {net}");
}

fn board(cells: &[(usize, i8)]) -> Position {
    let mut b = [0i8; 26];
    for &(i, n) in cells {
        b[i] = n;
    }
    Position::try_from(b).unwrap()
}

#[test]
fn a_side_that_bears_off_with_every_roll_wins_exactly_whatever_the_opponent_has() {
    let race = BearoffRace::default_databases();
    // Two on the ace point: every roll bears both off. The opponent, with five off, loses a
    // single game; with none off and fifteen on its 13-point, a gammon; with one of them on
    // the bar, a backgammon. The databases do not cover these (the opponent is not home).
    let single = board(&[(1, 2), (12, -10)]);
    let gammon = board(&[(1, 2), (12, -15)]);
    let backgammon = board(&[(1, 2), (12, -14), (0, -1)]);
    for (pos, equity) in [(single, 1.0), (gammon, 2.0), (backgammon, 3.0)] {
        let p = race.probe(&pos).expect("a sure win");
        assert_eq!(p.equity(), equity, "{p:?}");
        // The opponent on roll instead: not a sure thing, and not covered.
        assert_eq!(race.probe(&pos.flip()), None);
    }
    // 2-1 leaves one of these three checkers: not sure.
    assert_eq!(race.wins_this_roll(&board(&[(1, 3), (12, -15)])), None);
    // 2-1 bears off a checker on the 2-point and one on the ace point.
    let p = race.wins_this_roll(&board(&[(1, 1), (2, 1), (12, -15)]));
    assert_eq!(p.map(|p| p.equity()), Some(2.0));
}

#[test]
fn results_that_cannot_happen_are_valued_at_zero() {
    let w = Weights::default_weights();
    // The side on roll has borne off a checker: it cannot lose a gammon.
    let p = w.evaluate(&board(&[(10, 14), (24, -1)]));
    assert_eq!((p.lose_gammon, p.lose_backgammon), (0.0, 0.0), "{p:?}");
    // A race with none of its checkers in the opponent's home board: no backgammon loss (the
    // network alone says about two in three here); a gammon is nearly sure.
    let p = w.evaluate(&board(&[(10, 15), (24, -1)]));
    assert_eq!(p.lose_backgammon, 0.0, "{p:?}");
    assert!(p.lose_gammon > 0.95, "{p:?}");
    // The same in a batch of plays (seen from the mover, the opponent on roll).
    let mut plays = tavla_core::PlayList::new();
    // The mover is far ahead in a race with no opponent checker in its home board: no
    // backgammon win.
    board(&[(1, 1), (8, 1), (12, -15)])
        .legal_plays(tavla_core::Roll::from_values(2, 1), &mut plays);
    let mut out = vec![Probabilities::default(); plays.len()];
    w.evaluate_plays(plays.positions(), &mut out);
    for (after, p) in plays.positions().iter().zip(&out) {
        let direct = w.evaluate(&after.flip()).flip();
        assert_eq!(p.win_backgammon, 0.0, "{p:?}");
        assert!(max_diff(p, &direct) < 1e-5);
    }
}

#[test]
fn short_bearoff_cube_decisions_are_gnubgs_exact_ones_at_every_depth() {
    let race = std::sync::Arc::new(BearoffRace::default_databases());
    let mut search =
        Search::new(std::sync::Arc::new(Weights::default_weights())).with_bearoff(race);
    let mut checked = 0;
    for line in include_str!("data/gnubg-cubeful-bearoff.txt").lines() {
        if line.starts_with('#') {
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        let pos = Position::from_position_id(t[0]).unwrap();
        let holder = match t[2] {
            "centre" => CubeHolder::Centre,
            "owned" => CubeHolder::OnRoll,
            other => panic!("{other}"),
        };
        let (nd, dt): (f32, f32) = (t[3].parse().unwrap(), t[4].parse().unwrap());
        let action = t[5].replace('_', " ");
        assert!(search.has_exact_cube(&pos), "{line}");
        for ply in [0, 1] {
            let a = search.cube_analysis(&pos, ply, holder, false);
            assert!((a.no_double - nd).abs() < 2e-4, "{line}: ply {ply}: {a:?}");
            assert!(
                (a.double_take - dt).abs() < 4e-4,
                "{line}: ply {ply}: {a:?}"
            );
            let ours = a.action.describe(holder == CubeHolder::OnRoll);
            assert_eq!(ours, action, "{line}: ply {ply}: {a:?}");
        }
        checked += 1;
    }
    assert_eq!(checked, 398);
    // Seven checkers a side are beyond the table: the model, as before.
    let seven = board(&[(1, 7), (24, -7)]);
    assert!(!search.has_exact_cube(&seven));
}

/// With the cube turned, the plays of short bearoffs are ranked by their exact cubeful money
/// equities: for gnubg's 398 positions, each roll's best play by `Search::rank_plays_worth`,
/// averaged over the 21 rolls, gives gnubg's exact equity of not doubling (cube centred or
/// owned), and the opponent's cube the database's equity of playing on.
#[test]
fn short_bearoff_plays_with_the_cube_are_ranked_by_exact_cubeful_equity() {
    use tavla_core::{PlayList, Roll};
    use tavla_nn::cube::PlayWorth;
    let race = std::sync::Arc::new(BearoffRace::default_databases());
    let mut search =
        Search::new(std::sync::Arc::new(Weights::default_weights())).with_bearoff(race.clone());
    let (mut plays, mut ranked) = (PlayList::new(), Vec::new());
    let (mut checked, mut decisions, mut differ, mut gained) = (0, 0, 0, 0.0f64);
    let mut largest = 0.0f32;
    for line in include_str!("data/gnubg-cubeful-bearoff.txt").lines() {
        if line.starts_with('#') {
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        let pos = Position::from_position_id(t[0]).unwrap();
        let gnubg_nd: f64 = t[3].parse().unwrap();
        let (holder, want) = match t[2] {
            "centre" => (CubeHolder::Centre, gnubg_nd),
            "owned" => (CubeHolder::OnRoll, gnubg_nd),
            other => panic!("{other}"),
        };
        let theirs = race.probe_cubeful(&pos).unwrap().opponent_owns;
        for (holder, want) in [(holder, want), (CubeHolder::Opponent, theirs)] {
            let worth = PlayWorth::Cubeful(holder);
            let mut mean = 0.0f64;
            for (roll, weight) in Roll::ALL_21 {
                pos.legal_plays(roll, &mut plays);
                for ply in [0, 1] {
                    search.rank_plays_worth(&plays, ply, &mut ranked, worth);
                    let best = ranked[0];
                    let after = &plays.positions()[best.index];
                    let v = search.play_value(worth, after, best.probs);
                    // Every play valued, the best first.
                    assert!(ranked.iter().all(|r| {
                        search.play_value(worth, &plays.positions()[r.index], r.probs) <= v
                    }));
                    if ply == 0 {
                        mean += f64::from(weight) / 36.0 * f64::from(v);
                        // What Janowski's model on the exact probabilities would choose.
                        decisions += 1;
                        let model = ranked
                            .iter()
                            .max_by(|a, b| {
                                let value = |r: &&tavla_nn::search::RankedPlay| {
                                    worth.value(&plays.positions()[r.index], r.probs)
                                };
                                value(a).total_cmp(&value(b))
                            })
                            .unwrap();
                        let m =
                            search.play_value(worth, &plays.positions()[model.index], model.probs);
                        if v - m > 1e-5 {
                            differ += 1;
                            gained += f64::from(v - m);
                            largest = largest.max(v - m);
                        }
                    }
                }
            }
            assert!(
                (mean - want).abs() < 2e-4,
                "{line}: {holder:?}: {mean} against {want}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 398);
    eprintln!(
        "{decisions} decisions: the model's choice is worse than the exact one in {differ}, \
         {:.4} equity given up in all, {largest:.4} at most",
        gained
    );
}
