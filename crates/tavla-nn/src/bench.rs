//! The fixed benchmark behind `tavla bench`: decisions on embedded positions at a fixed ply,
//! one thread, the cache cleared before each decision.
//!
//! Its node count (full network evaluations; the pruning networks' are not counted), run as the
//! engine plays by default (inner move choices pruned by [`Prune::embedded`]), is the engine's
//! signature: the same
//! build and weights give the same count on any machine with the same instruction set (the
//! forward pass sums in a fixed order and picks no code path at run time), and any change to
//! the search, the inputs or the weights changes it. The per-decision times give the median
//! decision time the speed targets are stated in.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavla_core::{PlayList, Position, Roll};

use crate::search::{Prune, Search};
use crate::weights::Weights;

/// The embedded positions: 200 gnubg Position IDs from gnubg self-play.
const POSITIONS: &str = include_str!("../data/bench-positions.txt");

/// The benchmark positions, each with its roll (drawn from a fixed seed).
///
/// # Panics
/// Never: the embedded list is checked by the tests.
#[must_use]
pub fn positions() -> Vec<(Position, Roll)> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    POSITIONS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|id| {
            let pos = Position::from_position_id(id.trim()).expect("valid embedded position");
            let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
            (pos, roll)
        })
        .collect()
}

/// What one run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchReport {
    /// Search depth.
    pub ply: u8,
    /// Decisions made (positions with more than one legal play).
    pub decisions: usize,
    /// Network evaluations, summed over the decisions: the signature.
    pub nodes: u64,
    /// Wall time of all decisions.
    pub total: Duration,
    /// Each decision's time, sorted.
    pub times: Vec<Duration>,
}

impl BenchReport {
    /// Nodes per second.
    #[must_use]
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.total.as_secs_f64().max(1e-9)
    }

    /// The `q`-quantile of the decision times (0.5 for the median).
    #[must_use]
    pub fn quantile(&self, q: f64) -> Duration {
        if self.times.is_empty() {
            return Duration::ZERO;
        }
        let i = ((self.times.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
        self.times[i]
    }
}

/// Runs the benchmark on the first `count` positions at `ply`, the inner move choices pruned
/// by `prune` when given (the signature is that of the engine's default, [`Prune::embedded`]).
pub fn run(weights: &Arc<Weights>, ply: u8, count: usize, prune: Option<&Prune>) -> BenchReport {
    let mut search = Search::new(weights.clone());
    if let Some(p) = prune {
        search = search.with_prune(p.clone());
    }
    let mut plays = PlayList::new();
    let mut ranked = Vec::new();
    let mut times = Vec::new();
    let mut nodes = 0;
    let start = Instant::now();
    for (pos, roll) in positions().into_iter().take(count) {
        pos.legal_plays(roll, &mut plays);
        if plays.len() < 2 {
            continue;
        }
        search.reset();
        let t = Instant::now();
        search.choose(&plays, ply, &mut ranked);
        times.push(t.elapsed());
        nodes += search.nodes();
    }
    let total = start.elapsed();
    times.sort();
    BenchReport {
        ply,
        decisions: times.len(),
        nodes,
        total,
        times,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_parse_and_the_signature_is_reproducible() {
        assert_eq!(positions().len(), 200);
        let w = Arc::new(Weights::random(16, 8, 1));
        let a = run(&w, 1, 5, None);
        let b = run(&w, 1, 5, None);
        assert_eq!(a.nodes, b.nodes);
        assert!(a.decisions >= 3 && a.nodes > 0);
        assert!(a.quantile(0.0) <= a.quantile(0.5) && a.quantile(0.5) <= a.quantile(1.0));
        // Pruned to two plays a choice, the same decisions take fewer full evaluations.
        let small = Prune {
            weights: Arc::new(Weights::random(8, 8, 2)),
            keep: 2,
        };
        let c = run(&w, 1, 5, Some(&small));
        assert_eq!(c.decisions, a.decisions);
        assert!(c.nodes < a.nodes, "{} against {}", c.nodes, a.nodes);
    }
}
