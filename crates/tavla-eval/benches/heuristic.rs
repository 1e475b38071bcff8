//! The heuristic evaluation over 10,000 positions from seeded random games.
//!
//! One iteration scores every position (`score`) or every position and its mirror
//! (`balanced_score`, what the 1-ply look-ahead calls per reply). Throughput is in positions.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{PlayList, Position, Roll};
use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};

/// Positions after random plays, as a `PlayList` gives them (the mover's view).
fn positions(n: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let mut list = PlayList::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut p = Position::START;
        while !p.is_game_over() && out.len() < n {
            let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
            p.legal_plays(roll, &mut list);
            let after = list.positions()[rng.gen_range(0..list.len())];
            out.push(after);
            p = after.flip();
        }
    }
    out
}

fn bench_heuristic(c: &mut Criterion) {
    let positions = positions(10_000);
    let eval = HeuristicEval::new(HeuristicConfig::article());
    // The work: how many of the positions still have contact (a change means other positions).
    let contact = positions.iter().filter(|p| eval.terms(p).contact).count();
    assert_eq!(contact, EXPECTED_CONTACT, "bench positions changed");

    let mut group = c.benchmark_group("heuristic");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("score 10000 positions", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| eval.score(black_box(p)))
                .sum::<f64>()
        });
    });
    group.bench_function("balanced_score 10000 positions", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| eval.balanced_score(black_box(p)))
                .sum::<f64>()
        });
    });
    group.finish();
}

/// Positions with contact among the 10,000 (seed 2024).
const EXPECTED_CONTACT: usize = 8_696;

criterion_group!(benches, bench_heuristic);
criterion_main!(benches);
