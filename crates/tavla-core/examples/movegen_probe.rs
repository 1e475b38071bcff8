//! Runs the move generator over the bench set once; for profiling with callgrind or perf.
use tavla_core::{PlayList, Position, Roll};

fn main() {
    let positions: Vec<Position> = include_str!("../benches/data/positions.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| Position::from_position_id(l).expect("valid"))
        .collect();
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let mut list = PlayList::new();
    let mut plays = 0u64;
    let t = std::time::Instant::now();
    for _ in 0..reps {
        for pos in &positions {
            for &(roll, _) in &Roll::ALL_21 {
                pos.legal_plays(roll, &mut list);
                plays += list.len() as u64;
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();

    println!(
        "{plays} plays, {:.0} expansions/s",
        (reps * positions.len() * 21) as f64 / secs
    );
}
