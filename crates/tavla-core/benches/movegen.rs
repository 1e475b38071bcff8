//! Legal play generation over a fixed set of 1000 positions × 21 rolls.
//!
//! One iteration generates (with de-duplication) the plays of every position for every roll:
//! 21,000 position×roll expansions. Throughput is reported in expansions per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use tavla_core::{PlayList, Position, Roll};

fn positions() -> Vec<Position> {
    include_str!("data/positions.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| Position::from_position_id(l).expect("valid bench position"))
        .collect()
}

fn expand_all(positions: &[Position], list: &mut PlayList) -> u64 {
    let mut plays = 0u64;
    for pos in positions {
        for &(roll, _) in &Roll::ALL_21 {
            pos.legal_plays(roll, list);
            plays += list.len() as u64;
        }
    }
    plays
}

fn bench_movegen(c: &mut Criterion) {
    let positions = positions();
    assert_eq!(positions.len(), 1000);
    let mut list = PlayList::new();
    // The work count is part of the benchmark: a change in it is a change in behaviour.
    let plays = expand_all(&positions, &mut list);
    assert_eq!(
        plays, EXPECTED_PLAYS,
        "distinct plays over the bench set changed"
    );

    let mut group = c.benchmark_group("movegen");
    group.throughput(Throughput::Elements((positions.len() * 21) as u64));
    group.bench_function("1000 positions x 21 rolls", |b| {
        b.iter(|| expand_all(black_box(&positions), &mut list));
    });
    group.finish();
}

/// Distinct plays summed over the bench set (every count per position and roll is checked
/// against gnubg by `tests/gnubg_moves.rs` for the reference set).
const EXPECTED_PLAYS: u64 = 386_101;

criterion_group!(benches, bench_movegen);
criterion_main!(benches);
