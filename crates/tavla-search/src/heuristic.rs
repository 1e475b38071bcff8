//! The seed article's players: the best heuristic score at 0 ply, and the probability score at
//! 1 ply.

use tavla_core::{GameState, PlayList, Position, Roll, Rules};
use tavla_eval::heuristic::HeuristicEval;
use tavla_player::Player;

/// The total weight of the 21 distinct rolls: 6 doubles of weight 1 and 15 others of weight 2.
const TOTAL_WEIGHT: f64 = 36.0;

/// The index of the first play of `plays` whose value is largest; a play that ends the game
/// (the mover has borne off every checker) is taken at once.
fn argmax(plays: &PlayList, mut value: impl FnMut(&Position) -> f64) -> usize {
    let mut best = 0;
    let mut best_value = f64::NEG_INFINITY;
    for (i, pos) in plays.positions().iter().enumerate() {
        if pos.off() == 15 {
            return i;
        }
        let v = value(pos);
        if v > best_value {
            best = i;
            best_value = v;
        }
    }
    best
}

/// The article's 0-ply player: scores the position after each play with
/// [`HeuristicEval::score`] and plays the best (the first of equals, in the generator's order).
#[derive(Debug, Clone)]
pub struct HeuristicPlayer {
    eval: HeuristicEval,
    name: String,
}

impl HeuristicPlayer {
    /// The player, named `heuristic`.
    #[must_use]
    pub fn new(eval: HeuristicEval) -> HeuristicPlayer {
        HeuristicPlayer {
            eval,
            name: "heuristic".into(),
        }
    }

    /// The same player under another name (for reports).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> HeuristicPlayer {
        self.name = name.into();
        self
    }

    /// The evaluation.
    #[must_use]
    pub fn eval(&self) -> &HeuristicEval {
        &self.eval
    }

    /// The index of the chosen play in `plays` (which must not be empty).
    #[must_use]
    pub fn best_play(&self, plays: &PlayList) -> usize {
        if plays.len() <= 1 {
            return 0;
        }
        argmax(plays, |pos| self.eval.score(pos))
    }
}

impl Player for HeuristicPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_play(&mut self, _state: &GameState, _roll: Roll, plays: &PlayList) -> usize {
        self.best_play(plays)
    }
}

/// The article's probability score of `after`, a position just reached by a play and still
/// seen from the side that played it: minus the expectation, over the opponent's 21 rolls with
/// weights 1/36 and 2/36, of the opponent's best reply scored by
/// [`HeuristicEval::balanced_score`] from its own side. Higher is better for the side that
/// played.
///
/// A roll the opponent cannot play counts as the pass (the position is scored as it stands).
/// The article averaged the weighted scores over the number of rolls that could be played;
/// here the weighted sum is divided by the total weight, 36, so this is an expectation.
///
/// `replies` is scratch space for the opponent's plays; replies follow `rules`.
#[must_use]
pub fn probability_score(
    eval: &HeuristicEval,
    after: &Position,
    rules: Rules,
    replies: &mut PlayList,
) -> f64 {
    let opponent = after.flip();
    let mut sum = 0.0;
    for &(roll, weight) in &Roll::ALL_21 {
        opponent.legal_plays_with(roll, rules, replies);
        let best = replies
            .positions()
            .iter()
            .map(|reply| eval.balanced_score(reply))
            .fold(f64::NEG_INFINITY, f64::max);
        sum += f64::from(weight) * best;
    }
    -sum / TOTAL_WEIGHT
}

/// The article's 1-ply player: plays the play with the best [`probability_score`] (the first
/// of equals). Exact: every play and every reply is scored. Replies follow the rules given at
/// construction, which must be the rules of the game played.
#[derive(Debug, Clone)]
pub struct HeuristicLookahead {
    eval: HeuristicEval,
    rules: Rules,
    replies: PlayList,
    name: String,
}

impl HeuristicLookahead {
    /// The player for games under `rules`, named `heuristic-1ply`.
    #[must_use]
    pub fn new(eval: HeuristicEval, rules: Rules) -> HeuristicLookahead {
        HeuristicLookahead {
            eval,
            rules,
            replies: PlayList::new(),
            name: "heuristic-1ply".into(),
        }
    }

    /// The same player under another name (for reports).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> HeuristicLookahead {
        self.name = name.into();
        self
    }

    /// The evaluation.
    #[must_use]
    pub fn eval(&self) -> &HeuristicEval {
        &self.eval
    }

    /// The rules the replies follow.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The index of the chosen play in `plays` (which must not be empty).
    pub fn best_play(&mut self, plays: &PlayList) -> usize {
        if plays.len() <= 1 {
            return 0;
        }
        let HeuristicLookahead {
            eval,
            rules,
            replies,
            ..
        } = self;
        argmax(plays, |pos| probability_score(eval, pos, *rules, replies))
    }
}

impl Player for HeuristicLookahead {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_play(&mut self, _state: &GameState, _roll: Roll, plays: &PlayList) -> usize {
        self.best_play(plays)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use tavla_core::Board;
    use tavla_eval::heuristic::HeuristicConfig;

    fn article() -> HeuristicEval {
        HeuristicEval::new(HeuristicConfig::article())
    }

    /// Positions from seeded random games, with the side on roll to play.
    fn sample_positions(n: usize, seed: u64) -> Vec<(Position, Roll)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut list = PlayList::new();
        let mut out = Vec::new();
        while out.len() < n {
            let mut p = Position::START;
            while !p.is_game_over() && out.len() < n {
                let roll = Roll::from_values(rng.gen_range(1..=6), rng.gen_range(1..=6));
                out.push((p, roll));
                p.legal_plays(roll, &mut list);
                p = list.positions()[rng.gen_range(0..list.len())].flip();
            }
        }
        out
    }

    #[test]
    fn zero_ply_plays_the_best_scoring_play() {
        let mut player = HeuristicPlayer::new(article());
        let mut list = PlayList::new();
        for (pos, roll) in sample_positions(300, 1) {
            pos.legal_plays(roll, &mut list);
            let i = player.choose_play(&GameState::money(pos), roll, &list);
            let scores: Vec<f64> = list
                .positions()
                .iter()
                .map(|p| article().score(p))
                .collect();
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if list.positions()[i].off() < 15 {
                assert_eq!(scores[i], max);
                // The first of equals.
                assert!(scores[..i].iter().all(|&s| s < max));
            }
        }
    }

    /// The probability score by the definition, written out the slow way: every roll as its 36
    /// ordered dice, each reply scored from the opponent's side.
    fn probability_score_by_definition(eval: &HeuristicEval, after: &Position) -> f64 {
        let opp = after.flip();
        let mut list = PlayList::new();
        let mut total = 0.0;
        for a in 1..=6 {
            for b in 1..=6 {
                opp.legal_plays(Roll::from_values(a, b), &mut list);
                let best = list
                    .positions()
                    .iter()
                    .map(|reply| eval.score(reply) - eval.terms(&reply.flip()).structure())
                    .fold(f64::NEG_INFINITY, f64::max);
                total += best;
            }
        }
        -total / 36.0
    }

    #[test]
    fn probability_score_is_the_weighted_expectation() {
        let eval = article();
        let mut list = PlayList::new();
        let mut replies = PlayList::new();
        for (pos, roll) in sample_positions(40, 2) {
            pos.legal_plays(roll, &mut list);
            for after in list.positions().iter().take(3) {
                let fast = probability_score(&eval, after, Rules::Standard, &mut replies);
                let slow = probability_score_by_definition(&eval, after);
                assert!(
                    (fast - slow).abs() < 1e-9 * (1.0 + slow.abs()),
                    "{fast} {slow}"
                );
            }
        }
    }

    #[test]
    fn a_blocked_opponent_counts_as_passing() {
        // Given the opponent on the bar against a closed board: every roll is a pass, so the
        // score is minus the balanced score of the position as it stands, from its side.
        let mut b = Board::default();
        for i in 0..6 {
            b.on_roll[i] = 2;
        }
        b.on_roll[12] = 3;
        b.opponent[24] = 1;
        b.opponent[5] = 14;
        let after = Position::try_from(b).unwrap();
        let eval = article();
        let mut replies = PlayList::new();
        let s = probability_score(&eval, &after, Rules::Standard, &mut replies);
        let want = -eval.balanced_score(&after.flip());
        assert!((s - want).abs() < 1e-9 * want.abs(), "{s} {want}");
    }

    #[test]
    fn lookahead_takes_the_best_probability_score_and_rules_matter() {
        let eval = article();
        let mut player = HeuristicLookahead::new(eval.clone(), Rules::Standard);
        let mut twice = HeuristicLookahead::new(eval.clone(), Rules::DoublesTwice);
        let mut list = PlayList::new();
        let mut replies = PlayList::new();
        let mut differs = false;
        for (pos, roll) in sample_positions(12, 3) {
            pos.legal_plays(roll, &mut list);
            let i = player.choose_play(&GameState::money(pos), roll, &list);
            if list.positions()[i].off() == 15 {
                continue;
            }
            let scores: Vec<f64> = list
                .positions()
                .iter()
                .map(|p| probability_score(&eval, p, Rules::Standard, &mut replies))
                .collect();
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(scores[i], max);
            let s2 = probability_score(
                &eval,
                &list.positions()[i],
                Rules::DoublesTwice,
                &mut replies,
            );
            differs |= s2 != scores[i];
            let _ = twice.choose_play(&GameState::money(pos), roll, &list);
        }
        assert!(differs, "doubles played twice must change some reply");
    }

    #[test]
    fn a_winning_play_is_always_taken() {
        // The side has two checkers left on its 1- and 2-points; 21 bears both off.
        let mut b = Board::default();
        b.on_roll[0] = 1;
        b.on_roll[1] = 1;
        b.opponent[5] = 15;
        let pos = Position::try_from(b).unwrap();
        let roll = Roll::from_values(2, 1);
        let mut list = PlayList::new();
        pos.legal_plays(roll, &mut list);
        let state = GameState::money(pos);
        let i = HeuristicPlayer::new(article()).choose_play(&state, roll, &list);
        assert_eq!(list.positions()[i].off(), 15);
        let j =
            HeuristicLookahead::new(article(), Rules::Standard).choose_play(&state, roll, &list);
        assert_eq!(list.positions()[j].off(), 15);
    }
}
