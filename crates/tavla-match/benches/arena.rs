//! Arena throughput: 2,000 cubeless games of the article's heuristic player against itself
//! with duplicate dice, on two threads (this machine's cores) and on one.

use std::convert::Infallible;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use indicatif::ProgressBar;
use tavla_core::Rules;
use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
use tavla_match::arena::{run_arena, ArenaConfig};
use tavla_search::HeuristicPlayer;

const GAMES: u64 = 2000;

fn bench_arena(c: &mut Criterion) {
    let eval = HeuristicEval::new(HeuristicConfig::article());
    let player = |_seed: u64| Ok::<_, Infallible>(HeuristicPlayer::new(eval.clone()));
    let config = |threads| ArenaConfig {
        games: GAMES,
        seed: 1,
        rules: Rules::Standard,
        threads,
        stakes: tavla_match::arena::Stakes::Cubeless,
        beavers: false,
        resignations: false,
    };
    let hidden = ProgressBar::hidden();
    // The work: the plies played are fixed by the seed.
    let result = run_arena(&config(2), player, player, &hidden).unwrap();
    assert_eq!(
        (result.plies_avg * GAMES as f64).round() as u64,
        EXPECTED_PLIES,
        "arena games changed"
    );

    let mut group = c.benchmark_group("arena");
    group.throughput(Throughput::Elements(GAMES));
    group.sample_size(10);
    for threads in [2, 1] {
        group.bench_function(
            format!("heuristic vs heuristic, 2000 games, {threads} threads"),
            |b| {
                b.iter(|| run_arena(&config(threads), player, player, &hidden).unwrap());
            },
        );
    }
    group.finish();
}

/// Plies in the 2,000 games (seed 1).
const EXPECTED_PLIES: u64 = 92_204;

criterion_group!(benches, bench_arena);
criterion_main!(benches);
