//! Why written moves are not a legal play: the first move that cannot be made, or the rule of
//! the dice that the moves break, in words a player can act on.

use tavla_core::{PlayList, Position, Roll};

use crate::moves::{format_pretty, PlayText};

/// The side on roll's bar, as a written source point.
const BAR: u8 = 25;

/// A point as a player names it: `the 12-point`, `the bar`.
fn point_name(p: u8) -> String {
    if p == BAR {
        "the bar".to_string()
    } else {
        format!("the {p}-point")
    }
}

/// A written pair `from/to`.
fn pair_name(from: u8, to: u8) -> String {
    let end = |p: u8| match p {
        0 => "off".to_string(),
        BAR => "bar".to_string(),
        p => p.to_string(),
    };
    format!("{}/{}", end(from), end(to))
}

/// Dice as a player lists them: `3 and 1`, `5, 5 and 5`.
fn dice_list(dice: &[u8]) -> String {
    match dice {
        [] => String::new(),
        [d] => d.to_string(),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(u8::to_string).collect();
            format!("{} and {last}", rest.join(", "))
        }
    }
}

/// Why one die's step cannot be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The opponent holds the landing point (with this many checkers).
    Blocked(u8, i8),
    /// Bearing off with a checker outside the home board (the highest one's point).
    NotHome(u8),
    /// Bearing off with a larger die than needed while a checker is on a higher point.
    Higher(u8),
}

/// The board as the moves are made one by one: `cells[1..=24]` the points (positive the mover's),
/// `cells[25]` the mover's bar.
#[derive(Clone, Copy)]
struct Board {
    cells: [i8; 26],
}

impl Board {
    /// The highest point holding one of the mover's checkers (25 for the bar), 0 if none.
    fn highest(&self) -> u8 {
        (1..=25u8)
            .rev()
            .find(|&p| self.cells[usize::from(p)] > 0)
            .unwrap_or(0)
    }

    /// Where a checker from `from` lands with `die` (0 for off), or why it cannot.
    fn landing(&self, from: u8, die: u8) -> Result<u8, Step> {
        if die < from {
            let to = from - die;
            let there = self.cells[usize::from(to)];
            return if there <= -2 {
                Err(Step::Blocked(to, -there))
            } else {
                Ok(to)
            };
        }
        let highest = self.highest();
        if highest > 6 {
            return Err(Step::NotHome(highest));
        }
        if die > from && highest > from {
            return Err(Step::Higher(highest));
        }
        Ok(0)
    }

    fn apply(&mut self, from: u8, to: u8) {
        self.cells[usize::from(from)] -= 1;
        if to > 0 {
            let there = &mut self.cells[usize::from(to)];
            *there = if *there == -1 { 1 } else { *there + 1 };
        }
    }
}

/// The search for a way to make one written pair with the dice left.
struct Pair<'a> {
    board: Board,
    dice: &'a mut Vec<u8>,
    /// The steps' problems met on the ways tried.
    problems: Vec<Step>,
}

impl Pair<'_> {
    /// Moves the checker at `at` towards `to` (0: off) with the dice left, one die a step;
    /// true, the board and the dice updated, when it arrives.
    fn go(&mut self, at: u8, to: u8) -> bool {
        let mut tried = [false; 7];
        for i in 0..self.dice.len() {
            let d = self.dice[i];
            if std::mem::replace(&mut tried[usize::from(d)], true) {
                continue;
            }
            let (arrives, short) = if to == 0 {
                (d >= at, d < at)
            } else {
                (at.checked_sub(d) == Some(to), at > to + d)
            };
            if !arrives && !short {
                continue;
            }
            match self.board.landing(at, d) {
                Err(problem) => self.problems.push(problem),
                Ok(next) => {
                    let saved = self.board;
                    self.board.apply(at, next);
                    self.dice.remove(i);
                    if arrives || self.go(next, to) {
                        return true;
                    }
                    self.dice.insert(i, d);
                    self.board = saved;
                }
            }
        }
        false
    }
}

/// Whether some of `dice` make `distance` pips: exactly, or bearing off (`off`) with the last
/// die carrying past it.
fn adds_up(distance: u8, dice: &[u8], off: bool) -> bool {
    (1u32..1 << dice.len()).any(|mask| {
        let chosen: Vec<u8> = (0..dice.len())
            .filter(|&i| mask & (1 << i) != 0)
            .map(|i| dice[i])
            .collect();
        let sum: u8 = chosen.iter().sum();
        let last = chosen.iter().copied().max().unwrap_or(0);
        if off {
            sum >= distance && sum - last < distance
        } else {
            sum == distance
        }
    })
}

/// Why `text` is no legal play for `roll` in `pos` (whose legal plays are `list`): the first
/// written move that cannot be made after the ones before it (no checker to move, a checker on
/// the bar not entered first, a distance the dice left do not make, a point the opponent holds,
/// bearing off too soon or from below a higher checker); or, when each move can be made, the
/// rule of the dice the whole breaks (as many dice as can be must be played; with one, the
/// higher where either can be).
pub(crate) fn why_illegal(text: &PlayText, pos: &Position, roll: Roll, list: &PlayList) -> String {
    let pairs = text.pairs();
    // Moves may be written in any order: the written one is tried first and named when no
    // order makes them all.
    let dice = match walk(&pairs, pos, roll) {
        Ok(dice) => dice,
        Err(reason) => {
            let mut orders = Vec::new();
            permutations(&pairs, &mut Vec::new(), &mut orders);
            match orders.iter().find_map(|o| walk(o, pos, roll).ok()) {
                Some(dice) => dice,
                None => return reason,
            }
        }
    };
    dice_rules(pos, roll, list, &dice)
}

/// Every order of `rest` after `prefix`, into `out`.
fn permutations(rest: &[(u8, u8)], prefix: &mut Vec<(u8, u8)>, out: &mut Vec<Vec<(u8, u8)>>) {
    if rest.is_empty() {
        out.push(prefix.clone());
        return;
    }
    for i in 0..rest.len() {
        let mut others = rest.to_vec();
        let next = others.remove(i);
        prefix.push(next);
        permutations(&others, prefix, out);
        prefix.pop();
    }
}

/// Makes the moves `pairs` in order: the dice left, or why a move cannot be made.
fn walk(pairs: &[(u8, u8)], pos: &Position, roll: Roll) -> Result<Vec<u8>, String> {
    let mut board = Board {
        cells: *pos.signed_board(),
    };
    let mut dice: Vec<u8> = if roll.is_double() {
        vec![roll.high().value(); 4]
    } else {
        vec![roll.high().value(), roll.low().value()]
    };
    let mut done: Vec<String> = Vec::new();
    let after = |done: &[String]| {
        if done.is_empty() {
            String::new()
        } else {
            format!(" after {}", done.join(" "))
        }
    };
    for &(from, to) in pairs {
        let name = pair_name(from, to);
        if from != BAR && board.cells[usize::from(BAR)] > 0 {
            return Err(format!(
                "{name}: a checker of yours is on the bar, and it must enter first"
            ));
        }
        if board.cells[usize::from(from)] <= 0 {
            return Err(format!(
                "{name}: no checker of yours is on {}{}",
                point_name(from),
                after(&done)
            ));
        }
        if dice.is_empty() {
            return Err(format!(
                "{name}: the dice of {roll} are used up by the moves before it"
            ));
        }
        let distance = from - to;
        if !adds_up(distance, &dice, to == 0) {
            let left = match (done.is_empty(), dice.len()) {
                (true, _) => format!("the dice {}", dice_list(&dice)),
                (false, 1) => format!("the die left, {},", dice[0]),
                (false, _) => format!("the dice left, {},", dice_list(&dice)),
            };
            return Err(format!(
                "{name} moves {distance} pips, which {left} cannot make{}",
                after(&done)
            ));
        }
        let mut pair = Pair {
            board,
            dice: &mut dice,
            problems: Vec::new(),
        };
        if pair.go(from, to) {
            board = pair.board;
            done.push(name);
            continue;
        }
        let problems = pair.problems;
        return Err(match problems.first() {
            None => format!(
                "{name}: it cannot be made with the dice left ({}){}",
                dice_list(&dice),
                after(&done)
            ),
            Some(Step::Blocked(..)) => {
                let mut held: Vec<(u8, i8)> = problems
                    .iter()
                    .filter_map(|p| match *p {
                        Step::Blocked(q, n) => Some((q, n)),
                        _ => None,
                    })
                    .collect();
                held.sort_unstable_by(|a, b| b.cmp(a));
                held.dedup();
                let points: Vec<String> = held
                    .iter()
                    .map(|&(q, n)| format!("{} ({n} checkers)", point_name(q)))
                    .collect();
                format!(
                    "{name}: the opponent holds {}{}",
                    points.join(" and "),
                    after(&done)
                )
            }
            Some(Step::NotHome(p)) => format!(
                "{name}: no bearing off while a checker is outside your home board (on {}){}",
                point_name(*p),
                after(&done)
            ),
            Some(Step::Higher(p)) => format!(
                "{name}: a larger die than needed bears off only the highest checker, and one \
                 is on {}{}",
                point_name(*p),
                after(&done)
            ),
        });
    }
    Ok(dice)
}

/// Why moves that can each be made, leaving `dice` unplayed, are no legal play: as many dice
/// as can be must be played, and where only one can, the higher.
fn dice_rules(pos: &Position, roll: Roll, list: &PlayList, dice: &[u8]) -> String {
    let most = list.plays().map(|p| p.len()).max().unwrap_or(0);
    let played = if roll.is_double() { 4 } else { 2 } - dice.len();
    let example = list
        .plays()
        .next()
        .map(|p| format_pretty(pos, &p))
        .unwrap_or_default();
    if played < most {
        let can = if most == 1 {
            "a die can be played".to_string()
        } else {
            format!("{most} dice can be played")
        };
        let plays = match played {
            0 => "it moves nothing".to_string(),
            1 => "it plays one die".to_string(),
            n => format!("it plays {n} dice"),
        };
        return format!("{plays} where {can} (for example {example})");
    }
    if most == 1 && !roll.is_double() {
        return format!(
            "only one die can be played, and then it must be the higher where either can be \
             (for example {example})"
        );
    }
    format!("it is not among the legal plays for {roll}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::tests::pos;
    use crate::ResolvePlayError;

    /// The reason `text` is refused for `roll` in `pos`.
    fn why(pos: &Position, text: &str, roll: (u8, u8)) -> String {
        let roll = Roll::from_values(roll.0, roll.1);
        match text.parse::<PlayText>().unwrap().resolve(pos, roll) {
            Err(ResolvePlayError::Illegal { reason, .. }) => reason,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn the_first_move_that_cannot_be_made_is_named() {
        let start = Position::START;
        for (text, roll, reason) in [
            (
                "8/5 8/5",
                (3, 1),
                "8/5 moves 3 pips, which the die left, 1, cannot make after 8/5",
            ),
            (
                "13/8",
                (3, 1),
                "13/8 moves 5 pips, which the dice 3 and 1 cannot make",
            ),
            (
                "8/5 6/5 6/5",
                (3, 1),
                "6/5: the dice of 31 are used up by the moves before it",
            ),
            (
                "24/21 13/12",
                (3, 1),
                "13/12: the opponent holds the 12-point (5 checkers) after 24/21",
            ),
            // 66: 24/18 is open, 18/12 is not.
            (
                "24/12(2)",
                (6, 6),
                "24/12: the opponent holds the 12-point (5 checkers)",
            ),
            (
                "7/4 6/5",
                (3, 1),
                "7/4: no checker of yours is on the 7-point",
            ),
        ] {
            assert_eq!(why(&start, text, roll), reason, "{text}");
        }
        let on_bar = pos(&[(25, 1), (13, 14)], &[(6, 15)]);
        assert_eq!(
            why(&on_bar, "13/10 13/12", (3, 1)),
            "13/10: a checker of yours is on the bar, and it must enter first"
        );
        assert_eq!(
            why(&pos(&[(13, 15)], &[(6, 15)]), "bar/22", (3, 1)),
            "bar/22: no checker of yours is on the bar"
        );
    }

    #[test]
    fn bearing_off_too_soon_or_from_below() {
        let outside = pos(&[(8, 1), (5, 2)], &[(6, 15)]);
        assert_eq!(
            why(&outside, "5/off 5/2", (5, 3)),
            "5/off: no bearing off while a checker is outside your home board (on the 8-point)"
        );
        let higher = pos(&[(5, 1), (3, 1)], &[(6, 15)]);
        assert_eq!(
            why(&higher, "3/off", (6, 4)),
            "3/off: a larger die than needed bears off only the highest checker, and one is on \
             the 5-point"
        );
        // With the 5-point's checker moved first, it is legal, in either order of writing.
        let roll = Roll::from_values(6, 4);
        for text in ["5/1 3/off", "3/off 5/1"] {
            assert!(text
                .parse::<PlayText>()
                .unwrap()
                .resolve(&higher, roll)
                .is_ok());
        }
        // A move of one die where both can be played.
        let r = why(&Position::START, "6/2", (4, 2));
        assert!(r.starts_with("it plays one die where 2 dice"), "{r}");
    }

    #[test]
    fn the_rules_of_the_dice_are_named() {
        let start = Position::START;
        let r = why(&start, "8/5", (3, 1));
        assert!(
            r.starts_with("it plays one die where 2 dice can be played (for example "),
            "{r}"
        );
        let r = why(&start, "pass", (3, 1));
        assert!(
            r.starts_with("it moves nothing where 2 dice can be played"),
            "{r}"
        );
        // One checker left on the 13-point; the 5-point held: 62 plays one die, the 6.
        let one = pos(&[(13, 1)], &[(20, 2), (1, 13)]);
        assert_eq!(
            why(&one, "13/11", (6, 2)),
            "only one die can be played, and then it must be the higher where either can be \
             (for example 13/7)"
        );
    }
}
