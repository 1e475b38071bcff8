//! TD(λ) self-play training from random weights.
//!
//! Both sides are played by the current networks at 0-ply: for each roll the play whose
//! resulting position the networks like best for the mover (highest cubeless equity) is taken.
//! After each game the networks learn from it with the forward view of TD(λ): for the
//! position `s_t` before roll `t` (seen from the side on roll), the one-step target `v_t` is the
//! evaluation, for that side, of the position its chosen play left (which is the opponent's
//! pre-roll evaluation flipped, or the exact result when the play ended the game); the λ-return
//! is `G_T = v_T` at the last move and `G_t = (1 - λ) v_t + λ flip(G_{t+1})` before it, the flip
//! because `G_{t+1}` is seen from the opponent. Each `s_t` then takes one cross-entropy gradient
//! step towards `G_t` in the network of its phase (contact, crashed or race). With λ = 0 this is TD(0).
//!
//! A [`TdTrainer`] owns the weights, the dice generator (ChaCha8, pinned) and the game counter;
//! [`TdTrainer::save_checkpoint`] writes all three, so a run resumed from a checkpoint plays
//! and learns exactly the games the uninterrupted run would have.
//!
//! A checkpoint is `state.json` and the weights file it names, `weights-N.tnn` for `N` games.
//! Each file is written under a temporary name and renamed into place, the weights first:
//! a run killed at any moment leaves a `state.json` whose weights file is there and agrees
//! with it. Only then is the older weights file removed and `weights.tnn`, the run's current
//! weights for other commands, rewritten (it may lag behind after a kill; loading does not
//! read it). A `state.json` that names no file (the layout before) goes with `weights.tnn`.

use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tavla_core::{PlayList, Position, Roll};

use crate::evaluator::Evaluator;
use crate::inputs::{encode, phase, NUM_INPUTS};
use crate::probs::Probabilities;
use crate::weights::{Weights, WeightsError};

/// Settings of a TD run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TdConfig {
    /// Seed of the initial weights and of the dice.
    pub seed: u64,
    /// Learning rate.
    pub alpha: f32,
    /// Trace decay λ in 0..=1.
    pub lambda: f32,
    /// Hidden units of the contact network.
    pub contact_hidden: usize,
    /// Hidden units of the race network.
    pub race_hidden: usize,
}

impl Default for TdConfig {
    fn default() -> Self {
        TdConfig {
            seed: 1,
            alpha: 0.1,
            lambda: 0.7,
            contact_hidden: 96,
            race_hidden: 48,
        }
    }
}

/// What one self-play game did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameSummary {
    /// Plays made (both sides, passes included).
    pub moves: u32,
    /// Points won by the side that moved first (negative when it lost); 0 if the game was cut
    /// off at [`MAX_MOVES`].
    pub first_player_points: i32,
}

/// Games longer than this are cut off (never seen in practice; a safety net for degenerate
/// early networks).
pub const MAX_MOVES: usize = 5_000;

/// Why a checkpoint could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The weights file.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// A file of the checkpoint could not be read, written or removed.
    #[error("cannot access checkpoint file {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The state file is not valid.
    #[error("invalid checkpoint state {path}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// A field of the state file is not valid.
    #[error("invalid checkpoint state {path}: {what}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

#[derive(Serialize, Deserialize)]
struct State {
    config: TdConfig,
    games: u64,
    /// ChaCha8 seed, hex.
    rng_seed: String,
    rng_stream: u64,
    /// ChaCha8 word position, decimal (a u128).
    rng_word_pos: String,
    /// The weights file of this checkpoint, in the same folder; none in checkpoints written
    /// before it was named (their weights are `weights.tnn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weights: Option<String>,
}

/// The weights file that the checkpoints of older runs kept beside `state.json`, and that a
/// run keeps as its current weights for other commands.
pub const CURRENT_WEIGHTS: &str = "weights.tnn";

/// The weights file of the checkpoint at `games` games.
fn weights_name(games: u64) -> String {
    format!("weights-{games:09}.tnn")
}

/// A weights file of a checkpoint (`weights-N.tnn`) or one being written (`.tmp`).
fn is_checkpoint_weights(name: &str) -> bool {
    name.strip_prefix("weights-")
        .and_then(|rest| {
            rest.strip_suffix(".tnn")
                .or_else(|| rest.strip_suffix(".tnn.tmp"))
        })
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A self-play TD(λ) trainer.
#[derive(Debug, Clone)]
pub struct TdTrainer {
    config: TdConfig,
    weights: Weights,
    rng: ChaCha8Rng,
    plays: PlayList,
    evals: Vec<Probabilities>,
    /// Positions before each roll of the current game, with their one-step targets (replaced
    /// by the λ-returns before learning).
    trajectory: Vec<(Position, Probabilities)>,
}

impl TdTrainer {
    /// A fresh run: random weights and dice from `config.seed`.
    ///
    /// # Panics
    /// When `config`'s hidden units are 0 or above [`crate::MAX_HIDDEN`].
    #[must_use]
    pub fn new(config: TdConfig) -> TdTrainer {
        let weights = Weights::random(config.contact_hidden, config.race_hidden, config.seed);
        let rng = ChaCha8Rng::seed_from_u64(config.seed ^ 0x5eed_d1ce);
        TdTrainer::from_parts(config, weights, rng)
    }

    fn from_parts(config: TdConfig, weights: Weights, rng: ChaCha8Rng) -> TdTrainer {
        TdTrainer {
            config,
            weights,
            rng,
            plays: PlayList::new(),
            evals: Vec::new(),
            trajectory: Vec::new(),
        }
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &TdConfig {
        &self.config
    }

    /// Changes the learning rate (for a schedule; recorded in the next checkpoint).
    pub fn set_alpha(&mut self, alpha: f32) {
        self.config.alpha = alpha;
    }

    /// Changes λ (recorded in the next checkpoint).
    pub fn set_lambda(&mut self, lambda: f32) {
        self.config.lambda = lambda;
    }

    /// The current weights.
    #[must_use]
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// Games trained so far.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.weights.games
    }

    fn roll(&mut self) -> Roll {
        Roll::from_values(self.rng.gen_range(1..=6), self.rng.gen_range(1..=6))
    }

    /// Plays one self-play game and learns from it.
    pub fn train_game(&mut self) -> GameSummary {
        // Step 1. Play the game greedily at 0-ply, recording each position before the roll and
        // the value of the play chosen from it.
        self.trajectory.clear();
        let mut pos = Position::START;
        let mut roll = loop {
            let r = self.roll();
            if !r.is_double() {
                break r;
            }
        };
        let mut points = 0i32;
        for t in 0..MAX_MOVES {
            if t > 0 {
                roll = self.roll();
            }
            pos.legal_plays(roll, &mut self.plays);
            let n = self.plays.len();
            self.evals.resize(n, Probabilities::default());
            self.weights
                .evaluate_plays(self.plays.positions(), &mut self.evals);
            let best = best_index(&self.evals);
            let value = self.evals[best];
            self.trajectory.push((pos, value));
            let after = self.plays.positions()[best];
            if let Some(outcome) = after.outcome() {
                let p = i32::from(outcome.points);
                // Move t was made by the first player when t is even.
                points = if t % 2 == 0 { p } else { -p };
                break;
            }
            pos = after.flip();
        }
        let moves = self.trajectory.len() as u32;
        // Step 2. λ-returns, backwards.
        let lambda = self.config.lambda;
        let mut next: Option<Probabilities> = None;
        for (_, target) in self.trajectory.iter_mut().rev() {
            if let Some(g) = next {
                let later = g.flip();
                let v = *target;
                *target = Probabilities::from_array(std::array::from_fn(|k| {
                    (1.0 - lambda) * v.to_array()[k] + lambda * later.to_array()[k]
                }));
            }
            next = Some(*target);
        }
        // Step 3. One gradient step per position, in game order.
        let alpha = self.config.alpha;
        let mut x = [0.0f32; NUM_INPUTS];
        for (pos, target) in &self.trajectory {
            encode(pos, &mut x);
            self.weights
                .network_mut(phase(pos))
                .train(&x, &target.to_array(), alpha);
        }
        self.weights.games += 1;
        GameSummary {
            moves,
            first_player_points: points,
        }
    }

    /// Writes a checkpoint in `dir` (creating it): `weights-N.tnn`, then `state.json` naming
    /// it, then removes the weights files of earlier checkpoints and rewrites `weights.tnn`.
    /// Stopped at any point, `dir` holds a checkpoint [`TdTrainer::load_checkpoint`] reads: this
    /// one or the one before.
    ///
    /// # Errors
    /// When a file cannot be written or removed.
    pub fn save_checkpoint(&self, dir: &Path) -> Result<(), CheckpointError> {
        let state_path = dir.join("state.json");
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CheckpointError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let name = weights_name(self.weights.games);
        self.weights.save(&dir.join(&name))?;
        let seed: String = self
            .rng
            .get_seed()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let state = State {
            config: self.config,
            games: self.weights.games,
            rng_seed: seed,
            rng_stream: self.rng.get_stream(),
            rng_word_pos: self.rng.get_word_pos().to_string(),
            weights: Some(name.clone()),
        };
        let text = serde_json::to_string_pretty(&state).expect("plain data serialises");
        let tmp = dir.join("state.json.tmp");
        std::fs::write(&tmp, text).map_err(io(&state_path))?;
        std::fs::rename(&tmp, &state_path).map_err(io(&state_path))?;
        // The checkpoint is complete: what follows only tidies up.
        for entry in std::fs::read_dir(dir).map_err(io(dir))? {
            let entry = entry.map_err(io(dir))?;
            let other = entry.file_name();
            let Some(other) = other.to_str() else {
                continue;
            };
            if other != name && is_checkpoint_weights(other) {
                // A file left behind costs only space, and the next checkpoint tries again:
                // not a reason to stop a run whose checkpoint is complete.
                let _ = std::fs::remove_file(entry.path());
            }
        }
        self.weights.save(&dir.join(CURRENT_WEIGHTS))?;
        Ok(())
    }

    /// Resumes from a checkpoint written by [`TdTrainer::save_checkpoint`].
    ///
    /// # Errors
    /// When a file is missing or invalid, or the weights and the state disagree.
    pub fn load_checkpoint(dir: &Path) -> Result<TdTrainer, CheckpointError> {
        let state_path = dir.join("state.json");
        let text = std::fs::read_to_string(&state_path).map_err(|source| CheckpointError::Io {
            path: state_path.clone(),
            source,
        })?;
        let state: State =
            serde_json::from_str(&text).map_err(|source| CheckpointError::Parse {
                path: state_path.clone(),
                source,
            })?;
        let invalid = |what: String| CheckpointError::Invalid {
            path: state_path.clone(),
            what,
        };
        let name = state.weights.as_deref().unwrap_or(CURRENT_WEIGHTS);
        // A file of this folder, nowhere else.
        if Path::new(name).file_name() != Some(std::ffi::OsStr::new(name)) {
            return Err(invalid(format!(
                "weights {name:?} is not a file name in the checkpoint's folder"
            )));
        }
        // Training evaluates with the f32 networks, as the run before the checkpoint did.
        let weights = Weights::load(&dir.join(name))?.exact();
        if weights.games != state.games {
            return Err(invalid(format!(
                "state says {} games, {name} says {}",
                state.games, weights.games
            )));
        }
        if state.rng_seed.len() != 64 || !state.rng_seed.is_ascii() {
            return Err(invalid("rng_seed must be 64 hex digits".into()));
        }
        let mut seed = [0u8; 32];
        for (i, b) in seed.iter_mut().enumerate() {
            *b = u8::from_str_radix(&state.rng_seed[2 * i..2 * i + 2], 16)
                .map_err(|_| invalid(format!("rng_seed is not hex at digit {}", 2 * i)))?;
        }
        let word_pos: u128 = state.rng_word_pos.parse().map_err(|_| {
            invalid(format!(
                "rng_word_pos {:?} is not a number",
                state.rng_word_pos
            ))
        })?;
        let mut rng = ChaCha8Rng::from_seed(seed);
        rng.set_stream(state.rng_stream);
        rng.set_word_pos(word_pos);
        Ok(TdTrainer::from_parts(state.config, weights, rng))
    }
}

/// Index of the highest equity (the first one on ties).
#[must_use]
pub fn best_index(evals: &[Probabilities]) -> usize {
    let mut best = 0;
    let mut best_eq = f32::NEG_INFINITY;
    for (i, p) in evals.iter().enumerate() {
        let e = p.equity();
        if e > best_eq {
            best_eq = e;
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> TdConfig {
        TdConfig {
            seed: 5,
            alpha: 0.1,
            lambda: 0.7,
            contact_hidden: 16,
            race_hidden: 8,
        }
    }

    #[test]
    fn games_finish_and_are_reproducible() {
        let mut a = TdTrainer::new(small());
        let mut b = TdTrainer::new(small());
        for _ in 0..5 {
            // Untrained networks may play very long games (both sides hitting back and forth);
            // those are cut off at MAX_MOVES, so no assertion on the result here.
            let sa = a.train_game();
            assert!(sa.moves > 0 && sa.moves as usize <= MAX_MOVES);
            assert_eq!(sa, b.train_game());
        }
        assert_eq!(a.weights(), b.weights());
        assert_eq!(a.games(), 5);
    }

    #[test]
    fn resume_from_checkpoint_is_exact() {
        let dir = std::env::temp_dir().join(format!("tavla-nn-td-test-{}", std::process::id()));
        let mut a = TdTrainer::new(small());
        for _ in 0..3 {
            a.train_game();
        }
        a.save_checkpoint(&dir).unwrap();
        let mut b = TdTrainer::load_checkpoint(&dir).unwrap();
        for _ in 0..3 {
            assert_eq!(a.train_game(), b.train_game());
        }
        assert_eq!(a.weights(), b.weights());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_checkpoint_cut_short_leaves_the_one_before() {
        // Review: the weights were renamed into place before state.json was written; a run
        // killed between the two left a pair that never loaded again ("state says 3 games,
        // weights.tnn says 4"). Here state.json cannot be written (a folder has its temporary
        // name), as if the run had been killed at that moment.
        let dir = std::env::temp_dir().join(format!("tavla-nn-td-cut-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut a = TdTrainer::new(small());
        for _ in 0..3 {
            a.train_game();
        }
        a.save_checkpoint(&dir).unwrap();
        let at_3 = a.clone();
        a.train_game();
        let blocker = dir.join("state.json.tmp");
        std::fs::create_dir(&blocker).unwrap();
        assert!(a.save_checkpoint(&dir).is_err());
        std::fs::remove_dir(&blocker).unwrap();
        let mut b = TdTrainer::load_checkpoint(&dir).unwrap();
        assert_eq!(b.games(), 3);
        let mut at_3 = at_3;
        for _ in 0..2 {
            assert_eq!(at_3.train_game(), b.train_game());
        }
        assert_eq!(at_3.weights(), b.weights());
        // The next checkpoint removes what the one cut short left.
        b.save_checkpoint(&dir).unwrap();
        assert_eq!(
            files(&dir),
            ["state.json", "weights-000000005.tnn", "weights.tnn"]
        );
        assert_eq!(
            &Weights::load(&dir.join(CURRENT_WEIGHTS)).unwrap().exact(),
            b.weights()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_checkpoint_of_the_layout_before_resumes() {
        // Runs made before the weights file was named: state.json and weights.tnn.
        let dir = std::env::temp_dir().join(format!("tavla-nn-td-old-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut a = TdTrainer::new(small());
        for _ in 0..2 {
            a.train_game();
        }
        a.save_checkpoint(&dir).unwrap();
        std::fs::rename(dir.join("weights-000000002.tnn"), dir.join(CURRENT_WEIGHTS)).unwrap();
        let path = dir.join("state.json");
        let mut state: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        state.as_object_mut().unwrap().remove("weights").unwrap();
        std::fs::write(&path, state.to_string()).unwrap();
        let mut b = TdTrainer::load_checkpoint(&dir).unwrap();
        assert_eq!(a.train_game(), b.train_game());
        // Its next checkpoint is of the new layout.
        b.save_checkpoint(&dir).unwrap();
        assert_eq!(
            files(&dir),
            ["state.json", "weights-000000003.tnn", "weights.tnn"]
        );
        // A name that leads out of the folder is refused.
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("weights-000000003.tnn", "../weights-000000003.tnn");
        std::fs::write(&path, text).unwrap();
        let err = TdTrainer::load_checkpoint(&dir).unwrap_err();
        assert!(
            err.to_string()
                .contains("\"../weights-000000003.tnn\" is not a file name"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_seed_that_is_not_ascii_is_refused() {
        // 64 bytes, but a two-byte character among them: refused, not a slice through it.
        let dir = std::env::temp_dir().join(format!("tavla-nn-td-seed-{}", std::process::id()));
        TdTrainer::new(small()).save_checkpoint(&dir).unwrap();
        let path = dir.join("state.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let at = text.find("\"rng_seed\"").unwrap();
        let start = at + text[at..].find(": \"").unwrap() + 3;
        let mut edited = text.clone();
        edited.replace_range(start..start + 2, "é");
        std::fs::write(&path, edited).unwrap();
        let err = TdTrainer::load_checkpoint(&dir).unwrap_err();
        assert!(err.to_string().contains("rng_seed"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_checkpoint_names_the_file() {
        let err = TdTrainer::load_checkpoint(Path::new("/nonexistent/ckpt")).unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent/ckpt/state.json"),
            "{err}"
        );
    }
}
