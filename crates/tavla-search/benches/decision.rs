//! Decision time of the heuristic players over (position, roll) pairs from seeded random games.
//!
//! Throughput is in decisions: 1,000 for the 0-ply player, 100 for the 1-ply one (each of which
//! scores every reply to every roll after every play). Generating the plays is included, as in
//! a game.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{PlayList, Position, Roll, Rules};
use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
use tavla_search::{HeuristicLookahead, HeuristicPlayer};

/// `(position, roll)` pairs with more than one legal play, from random games.
fn decisions(n: usize) -> Vec<(Position, Roll)> {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let mut list = PlayList::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut p = Position::START;
        while !p.is_game_over() && out.len() < n {
            let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
            p.legal_plays(roll, &mut list);
            if list.len() > 1 {
                out.push((p, roll));
            }
            p = list.positions()[rng.gen_range(0..list.len())].flip();
        }
    }
    out
}

fn bench_decisions(c: &mut Criterion) {
    let set = decisions(1000);
    let eval = HeuristicEval::new(HeuristicConfig::article());
    let mut list = PlayList::new();
    // The work: plays scored by the 0-ply player over the set.
    let plays: usize = set
        .iter()
        .map(|(p, r)| {
            p.legal_plays(*r, &mut list);
            list.len()
        })
        .sum();
    assert_eq!(plays, EXPECTED_PLAYS, "bench decisions changed");

    let zero = HeuristicPlayer::new(eval.clone());
    let mut one = HeuristicLookahead::new(eval, Rules::Standard);
    let mut group = c.benchmark_group("decision");
    group.throughput(Throughput::Elements(set.len() as u64));
    group.bench_function("heuristic 0-ply, 1000 decisions", |b| {
        b.iter(|| {
            let mut sum = 0;
            for (p, r) in &set {
                p.legal_plays(*r, &mut list);
                sum += zero.best_play(black_box(&list));
            }
            sum
        });
    });
    let few = &set[..100];
    group.throughput(Throughput::Elements(few.len() as u64));
    group.sample_size(10);
    group.bench_function("heuristic 1-ply, 100 decisions", |b| {
        b.iter(|| {
            let mut sum = 0;
            for (p, r) in few {
                p.legal_plays(*r, &mut list);
                sum += one.best_play(black_box(&list));
            }
            sum
        });
    });
    group.finish();
}

/// Legal plays summed over the 1,000 decisions (seed 77).
const EXPECTED_PLAYS: usize = 19_996;

criterion_group!(benches, bench_decisions);
criterion_main!(benches);
