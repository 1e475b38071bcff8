//! The exact number of backgammon positions.

/// Counts every placement of both sides' fifteen checkers on the 24 points, the two bars and off,
/// with never two colours on one point (the side on roll is not part of the count).
///
/// Dynamic programming over the 24 points: `ways[a][b]` is the number of ways to put `a` of X's
/// and `b` of O's checkers on the points seen so far, each point empty, X's only or O's only.
/// The checkers left over, `r` per side, go to that side's bar and off in `r + 1` ways.
#[must_use]
pub fn count_legal_positions() -> u128 {
    let mut ways = [[0u128; 16]; 16];
    ways[0][0] = 1;
    for _point in 0..24 {
        let mut next = [[0u128; 16]; 16];
        for a in 0..16 {
            for b in 0..16 {
                let w = ways[a][b];
                if w == 0 {
                    continue;
                }
                next[a][b] += w;
                for k in 1..16 - a {
                    next[a + k][b] += w;
                }
                for k in 1..16 - b {
                    next[a][b + k] += w;
                }
            }
        }
        ways = next;
    }
    let mut total = 0u128;
    for (a, row) in ways.iter().enumerate() {
        for (b, &w) in row.iter().enumerate() {
            total += w * (16 - a as u128) * (16 - b as u128);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_the_seed_figure() {
        assert_eq!(super::count_legal_positions(), 18_528_584_051_601_162_496);
    }
}
