//! The one-sided 6 × 15 database against gnubg's, an independent program.
//!
//! `tests/data/gnubg-os-6x15-sample.txt` holds 2,565 positions of gnubg 1.07's `gnubg_os0.bd`
//! (how it was made is in its header). gnubg stores 16-bit probabilities and builds each
//! position from the rounded values of the positions it reaches, so its numbers are not the
//! exact ones: two checks follow from that.
//!
//! 1. The same dynamic programme in gnubg's arithmetic ([`QuantizedOneSided`]) must reproduce
//!    gnubg to within one 65535th: this checks the index, the move generator and the recursion.
//! 2. The exact database must agree with gnubg to 1e-4 wherever gnubg's rounding did not tip a
//!    near-tie to another play, and never differ by more than gnubg's rounding can explain.

use tavla_bearoff::gnubg_compat::QuantizedOneSided;
use tavla_bearoff::{OneSided, OneSidedDb};

struct Row {
    line: usize,
    index: u64,
    pos: OneSided,
    mean: f64,
    sd: f64,
    rolls: Vec<f64>,
    first_off: Vec<f64>,
}

fn rows() -> Vec<Row> {
    let text = include_str!("data/gnubg-os-6x15-sample.txt");
    let nums = |s: &str| -> Vec<f64> { s.split(',').map(|x| x.parse().unwrap()).collect() };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let f: Vec<&str> = l.split(';').collect();
            assert_eq!(f.len(), 6, "line {}: {l}", i + 1);
            Row {
                line: i + 1,
                index: f[0].parse().unwrap(),
                pos: f[1].parse().unwrap(),
                mean: f[2].parse().unwrap(),
                sd: f[3].parse().unwrap(),
                rolls: nums(f[4]),
                first_off: nums(f[5]),
            }
        })
        .collect()
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    (0..a.len().max(b.len()))
        .map(|k| (a.get(k).unwrap_or(&0.0) - b.get(k).unwrap_or(&0.0)).abs())
        .fold(0.0, f64::max)
}

#[test]
fn sample_is_large_and_indices_agree() {
    let rows = rows();
    assert!(rows.len() >= 2000, "{} rows", rows.len());
    let db = OneSidedDb::build(6, 15).unwrap();
    for r in &rows {
        assert_eq!(db.hash().rank(&r.pos), Ok(r.index), "line {}", r.line);
    }
}

#[test]
fn gnubg_arithmetic_reproduces_gnubg() {
    let q = QuantizedOneSided::build(6, 15).unwrap();
    let mut worst = 0.0f64;
    for r in rows() {
        let d = max_diff(&q.distribution(r.index).unwrap(), &r.rolls);
        // One 65535th (1.53e-5) plus gnubg's printing to 6 decimals.
        assert!(
            d < 1.6e-5,
            "line {}: index {} differs by {d}",
            r.line,
            r.index
        );
        worst = worst.max(d);
    }
    assert!(worst < 1e-4);
}

#[test]
fn exact_database_agrees_with_gnubg() {
    let db = OneSidedDb::build(6, 15).unwrap();
    let rows = rows();
    let mut close = 0;
    for r in &rows {
        let e = db.entry(r.index).unwrap();
        let rolls = max_diff(&e.distribution.to_vec(), &r.rolls);
        let first = max_diff(&e.first_off.to_vec(), &r.first_off);
        // The first-off distributions agree everywhere.
        assert!(
            first < 1e-4,
            "line {}: first-off differs by {first}",
            r.line
        );
        // gnubg's rounding moves its mean by at most a few 1e-4 and its distribution by at
        // most 3e-3 (where a near-tie between plays tipped the other way).
        assert!(
            (e.mean_rolls - r.mean).abs() < 2.5e-4,
            "line {}: mean {} vs {}",
            r.line,
            e.mean_rolls,
            r.mean
        );
        assert!(
            (e.sd_rolls - r.sd).abs() < 3e-3,
            "line {}: sd {} vs {}",
            r.line,
            e.sd_rolls,
            r.sd
        );
        assert!(rolls < 3e-3, "line {}: rolls differ by {rolls}", r.line);
        if rolls < 1e-4 && (e.mean_rolls - r.mean).abs() < 1e-4 {
            close += 1;
        }
    }
    // Agreement to 1e-4 in the mean and every probability: 2,511 of the 2,565 sampled
    // positions (97.9 %; 53,161 of all 54,264).
    let share = f64::from(close) / rows.len() as f64;
    assert!(
        share > 0.975,
        "only {close} of {} agree to 1e-4",
        rows.len()
    );
}

/// A database of more points than the home board holds races still coming in: checkers bear
/// off only once all are home. `tests/data/gnubg-os-8x15-sample.txt` holds 440 positions of
/// an 8-point database made by gnubg 1.07's `makebearoff` (how, in its header), 364 of them
/// with checkers on the 7- or 8-point; gnubg prints their means and deviations to 3 decimals.
#[test]
fn an_eight_point_database_agrees_with_gnubg() {
    let text = include_str!("data/gnubg-os-8x15-sample.txt");
    let db = OneSidedDb::build(8, 15).unwrap();
    let mut rows = 0;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(';').collect();
        assert_eq!(f.len(), 4, "line {}: {line}", i + 1);
        let pos: OneSided = f[1].parse().unwrap();
        let index: u64 = f[0].parse().unwrap();
        assert_eq!(db.hash().rank(&pos), Ok(index), "line {}", i + 1);
        let e = db.entry(index).unwrap();
        let (mean, sd): (f64, f64) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        // Printing to 3 decimals, and gnubg's 16-bit rounding.
        assert!(
            (e.mean_rolls - mean).abs() < 1e-3,
            "line {}: {pos} mean {} vs gnubg {mean}",
            i + 1,
            e.mean_rolls
        );
        assert!(
            (e.sd_rolls - sd).abs() < 4e-3,
            "line {}: {pos} sd {} vs gnubg {sd}",
            i + 1,
            e.sd_rolls
        );
        rows += 1;
    }
    assert_eq!(rows, 440);
}
