//! Evaluation speed and decision time of the neural engine, on one thread.
//!
//! The positions are those met in 200 seeded games of the default weights against themselves
//! at 0-ply, every 4th position with a fixed roll drawn from the same generator.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{PlayList, Position, Roll};
use tavla_nn::{Evaluator, NeuralPlayer, Probabilities, Search, Weights};

fn roll(rng: &mut ChaCha8Rng) -> Roll {
    Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6))
}

/// Positions (before the roll) with a roll, from seeded 0-ply self-play.
fn sample(weights: &Arc<Weights>) -> Vec<(Position, Roll)> {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut search = Search::new(weights.clone());
    let mut plays = PlayList::new();
    let mut ranked = Vec::new();
    let mut out = Vec::new();
    for _ in 0..200 {
        let mut pos = Position::START;
        for t in 0.. {
            let r = roll(&mut rng);
            if t % 4 == 0 {
                out.push((pos, r));
            }
            pos.legal_plays(r, &mut plays);
            let i = search.choose(&plays, 0, &mut ranked);
            let after = plays.positions()[i];
            if after.is_game_over() {
                break;
            }
            pos = after.flip();
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let weights = Arc::new(Weights::default_weights());
    let positions = sample(&weights);
    // All plays of every sampled roll, as the batches the search evaluates.
    let mut batches: Vec<Vec<Position>> = Vec::new();
    let mut plays = PlayList::new();
    for (pos, r) in &positions {
        pos.legal_plays(*r, &mut plays);
        batches.push(plays.positions().to_vec());
    }
    let total: usize = batches.iter().map(Vec::len).sum();
    assert_eq!(positions.len(), batches.len());

    let mut g = c.benchmark_group("evaluate");
    g.throughput(Throughput::Elements(total as u64));
    // The inputs alone: a quarter of a pruned 2-ply search's time goes to them.
    g.bench_function(BenchmarkId::new("encode", total), |b| {
        let mut inputs = [0.0f32; tavla_nn::inputs::NUM_INPUTS];
        b.iter(|| {
            for batch in &batches {
                for pos in batch {
                    tavla_nn::inputs::encode(pos, &mut inputs);
                    black_box(&inputs);
                }
            }
        });
    });
    let mut out = vec![Probabilities::default(); 1024];
    g.bench_function(BenchmarkId::new("plays_batch", total), |b| {
        b.iter(|| {
            let mut n = 0;
            for batch in &batches {
                let o = &mut out[..batch.len()];
                weights.evaluate_plays(batch, o);
                n += o.len();
            }
            assert_eq!(n, total);
            black_box(&out);
        });
    });
    // The same with the `f32` networks themselves (as training evaluates them) instead of the
    // 16-bit copies of their layers.
    let exact = Weights::default_weights().exact();
    g.bench_function(BenchmarkId::new("plays_batch_f32", total), |b| {
        b.iter(|| {
            for batch in &batches {
                let o = &mut out[..batch.len()];
                exact.evaluate_plays(batch, o);
            }
            black_box(&out);
        });
    });
    g.finish();

    let mut g = c.benchmark_group("decision");
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(8));
    for ply in [0u8, 1, 2] {
        // Every position at 0-ply; the first 50 (1-ply) or 10 (2-ply) deeper.
        let n = [positions.len(), 50, 10][usize::from(ply)];
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::new(format!("ply{ply}"), n), |b| {
            let mut player = NeuralPlayer::new(weights.clone(), ply);
            let mut plays = PlayList::new();
            let state = tavla_core::GameState::money(Position::START);
            b.iter(|| {
                for (pos, r) in &positions[..n] {
                    // A cold cache for every decision (clearing is a counter increment).
                    tavla_player::Player::new_game(&mut player);
                    pos.legal_plays(*r, &mut plays);
                    let s = tavla_core::GameState {
                        position: *pos,
                        ..state
                    };
                    black_box(tavla_player::Player::choose_play(
                        &mut player,
                        &s,
                        *r,
                        &plays,
                    ));
                }
            });
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
