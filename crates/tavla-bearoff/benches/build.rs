//! Database build and load times. Each benchmark also checks the amount of work done (the
//! number of positions, a known value), so a faster but wrong build cannot pass unnoticed.
//!
//! ```text
//! cargo bench -p tavla-bearoff --bench build
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tavla_bearoff::{
    Holder, MatchGame, MatchTable, OneSided, OneSidedDb, PerfectHash, PlayTable, TwoSidedDb,
};

fn one_sided(c: &mut Criterion) {
    let mut g = c.benchmark_group("one_sided");
    g.sample_size(20).measurement_time(Duration::from_secs(20));
    g.bench_function("build_6x15", |b| {
        b.iter(|| {
            let db = OneSidedDb::build(6, 15).unwrap();
            assert_eq!(db.len(), 54_264);
            // Spot check: fifteen on the 6-point need 12.2662 rolls on average.
            let e = db
                .lookup(&OneSided::new(&[0, 0, 0, 0, 0, 15]).unwrap())
                .unwrap();
            assert!((e.mean_rolls - 12.2662).abs() < 1e-4);
            db
        })
    });
    let bytes = OneSidedDb::build(6, 15).unwrap().to_bytes();
    g.bench_function("load_6x15", |b| {
        b.iter(|| {
            let db = OneSidedDb::from_bytes(black_box(&bytes)).unwrap();
            assert_eq!(db.len(), 54_264);
            db
        })
    });
    g.finish();
}

fn two_sided(c: &mut Criterion) {
    let mut g = c.benchmark_group("two_sided");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("build_6x6", |b| {
        b.iter(|| {
            let (db, stats) = TwoSidedDb::build(6, 6).unwrap();
            assert_eq!(db.hash().count(), 924);
            assert_eq!(stats.pairs, 923 * 923);
            db
        })
    });
    g.measurement_time(Duration::from_secs(40));
    g.bench_function("build_6x8", |b| {
        b.iter(|| {
            let (db, stats) = TwoSidedDb::build(6, 8).unwrap();
            assert_eq!(db.hash().count(), 3003);
            assert_eq!(stats.pairs, 3002 * 3002);
            db
        })
    });
    let bytes = TwoSidedDb::build(6, 8).unwrap().0.to_bytes();
    g.measurement_time(Duration::from_secs(10));
    g.bench_function("load_6x8", |b| {
        b.iter(|| {
            let db = TwoSidedDb::from_bytes(black_box(&bytes)).unwrap();
            assert_eq!(db.hash().count(), 3003);
            db
        })
    });
    g.finish();
}

/// Match tables of short bearoffs at the start of a game of a 7-point match, 2-away 4-away:
/// four cube levels (1, 2, 4, then 8, where nobody may double).
fn match_tables(c: &mut Criterion) {
    let hash = PerfectHash::new(6, 6).unwrap();
    let plays = PlayTable::new(&hash);
    // Chances after a win of 1, 2, 4, 8 points (2-away and 4-away sides; illustrative).
    let game = MatchGame {
        win: [vec![0.68, 1.0, 1.0, 1.0], vec![0.5, 0.68, 1.0, 1.0]],
        may_double: [
            vec![true, false, false, false],
            vec![true, true, false, false],
        ],
        owner: None,
    };
    let mut g = c.benchmark_group("match");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (name, a, b, values) in [
        ("solve_5_against_4", "2,2,1", "1,1,1,1", 8_512),
        ("solve_6_against_6", "0,0,2,2,1,1", "1,0,1,1,1,1", 1_724_380),
    ] {
        let roots = [a, b].map(|s| hash.rank(&s.parse().unwrap()).unwrap());
        assert_eq!(MatchTable::size(&plays, roots, 4), values);
        g.bench_function(name, |bench| {
            bench.iter(|| {
                let t =
                    MatchTable::solve(&plays, black_box(roots), game.clone(), u64::MAX).unwrap();
                let m = t
                    .with_action(0, roots[0], roots[1], 0, Holder::Centre)
                    .unwrap();
                assert!((0.0..=1.0).contains(&m));
                t
            })
        });
    }
    g.finish();
}

criterion_group!(benches, one_sided, two_sided, match_tables);
criterion_main!(benches);
