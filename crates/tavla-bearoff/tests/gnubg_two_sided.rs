//! The two-sided 6 × 6 database against gnubg's `makebearoff -t 6x6`, an independent program.
//!
//! `tests/data/gnubg-ts-6x6-sample.txt` holds 3,200 position pairs of gnubg's database (how it
//! was made is in its header): cubeless winning chances and the no-double money equities with
//! the cube owned, centred and owned by the opponent. gnubg keeps 16-bit equities (steps of
//! 3e-5) and rounds down at every step, so it agrees with the exact values only to about 1e-4.

use tavla_bearoff::{OneSided, TwoSidedDb, TwoSidedOptions};

struct Row {
    line: usize,
    x: u64,
    o: u64,
    me: OneSided,
    opp: OneSided,
    p: f64,
    /// Owned, centred, opponent owns.
    nd: [f64; 3],
}

fn rows() -> Vec<Row> {
    include_str!("data/gnubg-ts-6x6-sample.txt")
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let f: Vec<&str> = l.split(';').collect();
            assert_eq!(f.len(), 9, "line {}: {l}", i + 1);
            let num = |k: usize| -> f64 { f[k].parse().unwrap() };
            Row {
                line: i + 1,
                x: f[0].parse().unwrap(),
                o: f[1].parse().unwrap(),
                me: f[2].parse().unwrap(),
                opp: f[3].parse().unwrap(),
                p: num(4),
                nd: [num(6), num(7), num(8)],
            }
        })
        .collect()
}

#[test]
fn winning_chances_and_cubeful_equities_agree_with_gnubg() {
    let rows = rows();
    assert!(rows.len() >= 3000);
    let options = TwoSidedOptions { cubeful: true };
    let (db, _) = TwoSidedDb::build_with(6, 6, options, &mut |_, _| {}).unwrap();
    let (mut worst_p, mut worst_e) = (0.0f64, 0.0f64);
    for r in &rows {
        assert_eq!(db.hash().rank(&r.me), Ok(r.x), "line {}", r.line);
        assert_eq!(db.hash().rank(&r.opp), Ok(r.o), "line {}", r.line);
        let p = db.win_probability(&r.me, &r.opp).unwrap();
        let d = (p - r.p).abs();
        assert!(d < 1e-4, "line {}: p {p} vs gnubg {}", r.line, r.p);
        worst_p = worst_p.max(d);
        let e = db.cubeful_equities(&r.me, &r.opp).unwrap().unwrap();
        for (ours, theirs) in [e.owned.no_double, e.centred.no_double, e.opponent_owns]
            .into_iter()
            .zip(r.nd)
        {
            let d = (ours - theirs).abs();
            assert!(
                d < 2.5e-4,
                "line {}: equity {ours} vs gnubg {theirs}",
                r.line
            );
            worst_e = worst_e.max(d);
        }
    }
    eprintln!("largest differences: winning chance {worst_p:.2e}, equity {worst_e:.2e}");
}
