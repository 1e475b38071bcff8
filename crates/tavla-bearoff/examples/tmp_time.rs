fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let t = std::time::Instant::now();
    if args[0] == 1 {
        let db = tavla_bearoff::OneSidedDb::build(args[1], args[2]).unwrap();
        eprintln!(
            "one-sided {}x{}: {} positions in {:?}",
            args[1],
            args[2],
            db.len(),
            t.elapsed()
        );
    } else {
        let (db, s) = tavla_bearoff::TwoSidedDb::build(args[1], args[2]).unwrap();
        eprintln!(
            "two-sided {}x{}: {} in {:?}",
            args[1],
            args[2],
            db.hash().count(),
            t.elapsed()
        );
        eprintln!(
            "{s:?}\ndiffer share {} mean cost {} loss/turn {}",
            s.differ_share(),
            s.mean_cost(),
            s.mean_loss_per_turn()
        );
    }
}
