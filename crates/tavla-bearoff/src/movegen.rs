//! Legal plays of one side in a bearoff.
//!
//! In a bearoff every die can always be played while a checker is left (move a checker down
//! from a point above the die, bear off from the die's point, or else bear off the highest
//! checker), so a play uses both dice (four for a double) unless the last checker goes off first;
//! the rules about playing the larger die never bite.

use std::fmt;

use crate::dice::Dice;
use crate::hash::{PerfectHash, State};
use crate::position::OneSided;

/// One checker moved: `from` a point down to `to` (0 = borne off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CheckerMove {
    /// The point the checker leaves (1-based).
    pub from: u8,
    /// The point it reaches, 0 when it is borne off.
    pub to: u8,
}

impl fmt::Display for CheckerMove {
    /// gnubg's notation: `6/2`, `3/off`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.to == 0 {
            write!(f, "{}/off", self.from)
        } else {
            write!(f, "{}/{}", self.from, self.to)
        }
    }
}

/// A legal play in a bearoff: the checker moves, in the order played, and the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BearoffPlay {
    /// The checker moves (one to four).
    pub moves: Vec<CheckerMove>,
    /// The position after the play.
    pub result: OneSided,
    /// The result's perfect-hash index.
    pub result_index: u64,
}

impl fmt::Display for BearoffPlay {
    /// The moves from the highest point down, separated by spaces (`6/off 5/3`); a checker
    /// moved twice is written once (`3/off`, not `3/1 1/off`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut moves = self.moves.clone();
        moves.sort_by_key(|m| std::cmp::Reverse((m.from, m.to)));
        // Join a move ending on a point with a later move starting there.
        let mut i = 0;
        while i < moves.len() {
            let to = moves[i].to;
            match moves
                .iter()
                .enumerate()
                .position(|(j, m)| j > i && to != 0 && m.from == to)
            {
                Some(j) => {
                    moves[i].to = moves[j].to;
                    moves.remove(j);
                }
                None => i += 1,
            }
        }
        for (i, m) in moves.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{m}")?;
        }
        Ok(())
    }
}

/// Calls `f` with the result and the moves of every legal play of `dice` from `st`, which must
/// have a checker left. Different plays may reach the same result; `f` sees each of them.
///
/// Doubles are generated with non-increasing source points: any legal order of four moves of
/// the same die can be replayed from the highest source down and stays legal (moving the higher
/// checkers first never lets a smaller checker bear off with a larger die that it could not
/// before), so this reaches every result without trying all orders.
#[inline]
pub(crate) fn for_each_play(
    hash: &PerfectHash,
    st: &State,
    dice: Dice,
    f: &mut impl FnMut(&State, &[CheckerMove]),
) {
    let mut moves = [CheckerMove { from: 0, to: 0 }; 4];
    if dice.is_double() {
        doubles(
            hash,
            st,
            usize::from(dice.high()),
            4,
            usize::from(st.top),
            &mut moves,
            0,
            f,
        );
        return;
    }
    let (a, b) = (usize::from(dice.high()), usize::from(dice.low()));
    for (d1, d2) in [(a, b), (b, a)] {
        for p1 in 1..=usize::from(st.top) {
            let Some(s1) = hash.step(st, p1, d1) else {
                continue;
            };
            moves[0] = checker_move(p1, d1);
            if s1.top == 0 {
                f(&s1, &moves[..1]);
                continue;
            }
            for p2 in 1..=usize::from(s1.top) {
                if let Some(s2) = hash.step(&s1, p2, d2) {
                    moves[1] = checker_move(p2, d2);
                    f(&s2, &moves[..2]);
                }
            }
        }
    }
}

fn checker_move(from: usize, die: usize) -> CheckerMove {
    CheckerMove {
        from: from as u8,
        to: from.saturating_sub(die) as u8,
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn doubles(
    hash: &PerfectHash,
    st: &State,
    die: usize,
    left: usize,
    max_from: usize,
    moves: &mut [CheckerMove; 4],
    done: usize,
    f: &mut impl FnMut(&State, &[CheckerMove]),
) {
    for p in 1..=max_from.min(usize::from(st.top)) {
        let Some(next) = hash.step(st, p, die) else {
            continue;
        };
        moves[done] = checker_move(p, die);
        if left == 1 || next.top == 0 {
            f(&next, &moves[..=done]);
        } else {
            doubles(hash, &next, die, left - 1, p, moves, done + 1, f);
        }
    }
}

/// The distinct legal plays of `dice` for `pos` (one per resulting position, in increasing order
/// of the result's index); empty when `pos` has no checkers.
///
/// # Errors
/// [`PositionError`](crate::PositionError) when `pos` does not fit `hash`.
pub fn bearoff_plays(
    hash: &PerfectHash,
    pos: &OneSided,
    dice: Dice,
) -> Result<Vec<BearoffPlay>, crate::PositionError> {
    hash.check(pos)?;
    let st = hash.state_of(pos);
    let mut plays: Vec<BearoffPlay> = Vec::new();
    if st.top == 0 {
        return Ok(plays);
    }
    for_each_play(hash, &st, dice, &mut |next, moves| {
        if !plays.iter().any(|p| p.result_index == next.index) {
            plays.push(BearoffPlay {
                moves: moves.to_vec(),
                result: next.to_position(hash.points()),
                result_index: next.index,
            });
        }
    });
    plays.sort_by_key(|p| p.result_index);
    Ok(plays)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAX_POINTS;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Plain bearoff rules on a counts array, every order of the dice tried.
    fn brute_force(pos: &OneSided, dice: Dice, points: usize) -> BTreeSet<Vec<u8>> {
        fn one(c: &[u8], from: usize, die: usize) -> Option<Vec<u8>> {
            if c[from - 1] == 0 {
                return None;
            }
            let higher = c[from..].iter().any(|&x| x > 0);
            let outside = c.iter().skip(6).any(|&x| x > 0);
            let mut n = c.to_vec();
            n[from - 1] -= 1;
            if from > die {
                n[from - die - 1] += 1;
            } else if outside || (from < die && higher) {
                return None;
            }
            Some(n)
        }
        fn rec(c: Vec<u8>, dice: &[usize], out: &mut BTreeSet<Vec<u8>>) {
            if dice.is_empty() || c.iter().all(|&x| x == 0) {
                out.insert(c);
                return;
            }
            for from in 1..=c.len() {
                if let Some(n) = one(&c, from, dice[0]) {
                    rec(n, &dice[1..], out);
                }
            }
        }
        let c = pos.counts()[..points].to_vec();
        let mut out = BTreeSet::new();
        let (h, l) = (usize::from(dice.high()), usize::from(dice.low()));
        if dice.is_double() {
            rec(c, &[h; 4], &mut out);
        } else {
            rec(c.clone(), &[h, l], &mut out);
            rec(c, &[l, h], &mut out);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The generator finds exactly the plays of the plain rules, and every play lowers the
        /// index (what lets the databases be built in index order without recursion).
        #[test]
        fn plays_match_brute_force_and_lower_the_index(
            points in 1usize..=8,
            checkers in 1usize..=15,
            seed in any::<u64>(),
            roll in 0usize..21,
        ) {
            let hash = PerfectHash::new(points, checkers).unwrap();
            let index = seed % hash.count();
            let pos = hash.unrank(index).unwrap();
            let dice = Dice::ALL_21[roll].0;
            let plays = bearoff_plays(&hash, &pos, dice).unwrap();
            let got: BTreeSet<Vec<u8>> =
                plays.iter().map(|p| p.result.counts()[..points].to_vec()).collect();
            if pos.is_empty() {
                prop_assert!(plays.is_empty());
            } else {
                prop_assert_eq!(&got, &brute_force(&pos, dice, points));
                prop_assert_eq!(got.len(), plays.len());
            }
            for p in &plays {
                prop_assert!(p.result_index < index);
                prop_assert_eq!(hash.rank(&p.result).unwrap(), p.result_index);
                prop_assert!(p.result.counts()[points..].iter().all(|&c| c == 0));
                // Replaying the recorded moves gives the result.
                let mut c = *pos.counts();
                for m in &p.moves {
                    c[usize::from(m.from) - 1] -= 1;
                    if m.to > 0 {
                        c[usize::from(m.to) - 1] += 1;
                    }
                }
                prop_assert_eq!(&c[..MAX_POINTS], &p.result.counts()[..]);
            }
        }
    }

    #[test]
    fn notation() {
        let hash = PerfectHash::new(6, 15).unwrap();
        let pos = OneSided::new(&[0, 0, 0, 1, 1, 0]).unwrap();
        let plays = bearoff_plays(&hash, &pos, Dice::new(6, 5).unwrap()).unwrap();
        assert_eq!(plays.len(), 1);
        assert_eq!(plays[0].to_string(), "5/off 4/off");
        assert!(plays[0].result.is_empty());
        // The same checker twice is written once.
        let pos = OneSided::new(&[0, 0, 1, 1]).unwrap();
        let plays = bearoff_plays(&hash, &pos, Dice::new(2, 1).unwrap()).unwrap();
        let text: Vec<String> = plays.iter().map(ToString::to_string).collect();
        assert!(text.contains(&"3/off".to_string()), "{text:?}");
        assert!(text.contains(&"4/1".to_string()), "{text:?}");
        let pos = OneSided::new(&[0, 0, 0, 0, 0, 2]).unwrap();
        let plays = bearoff_plays(&hash, &pos, Dice::new(2, 2).unwrap()).unwrap();
        let text: Vec<String> = plays.iter().map(ToString::to_string).collect();
        assert!(text.contains(&"6/2 6/2".to_string()), "{text:?}");
        assert!(text.contains(&"6/off 6/4".to_string()), "{text:?}");
        // One checker left: the game ends with the first die.
        let pos = OneSided::new(&[1]).unwrap();
        let plays = bearoff_plays(&hash, &pos, Dice::new(2, 2).unwrap()).unwrap();
        assert_eq!(plays.len(), 1);
        assert_eq!(plays[0].moves.len(), 1);
    }
}
