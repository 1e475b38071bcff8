//! The seed article's trainer for the heuristic constants: vary one constant at a time, play
//! the candidate against the current configuration, keep the change when it wins more than 51%.
//!
//! # The search
//!
//! The six constants are visited in turn, `bt`, `bf`, `bfp`, `cbp`, `cb`, `rb`, each first
//! upwards then downwards by its step size (`bt` by 1, never below zero). A candidate plays
//! the current configuration in the arena ([`tavla_match::arena`]: duplicate dice, colours
//! alternating) over `games_per_step` games; it replaces the current configuration when it wins
//! more than `threshold` of them. After an accepted change the same constant is pushed again in
//! the same direction; after a rejection the search turns to the other direction or the next
//! constant. Twelve tries in a row without an accepted change (every constant in both
//! directions) halve the step sizes (except `bt`'s).
//!
//! # Reproducibility
//!
//! Step `k` plays with the dice seed derived from the run's seed and `k`, so a run is fixed by
//! its seed and settings. The whole state is written to a JSON [`Checkpoint`] after every step;
//! a run resumed from it continues exactly as if it had not stopped.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};
use tavla_core::Rules;
use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
use tavla_match::arena::{run_arena, variant_name, ArenaConfig, ArenaError};
use tavla_search::HeuristicPlayer;

/// The checkpoint format's version.
pub const CHECKPOINT_FORMAT: u32 = 1;

/// One of the trained constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `bt`, the blot threshold.
    Bt,
    /// `bf`, the blot factor.
    Bf,
    /// `bfp`, the blot factor once passed.
    Bfp,
    /// `cbp`, the connected-blocks point score.
    Cbp,
    /// `cb`, the connected-blocks exponent.
    Cb,
    /// `rb`, the run-or-block factor.
    Rb,
}

impl Param {
    /// The constants in the order the trainer visits them.
    pub const ALL: [Param; 6] = [
        Param::Bt,
        Param::Bf,
        Param::Bfp,
        Param::Cbp,
        Param::Cb,
        Param::Rb,
    ];

    /// The initial step sizes, in the order of [`Param::ALL`].
    pub const INITIAL_STEPS: [f64; 6] = [1.0, 0.5, 0.5, 0.5, 0.25, 0.1];

    /// The key in the TOML file.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Param::Bt => "bt",
            Param::Bf => "bf",
            Param::Bfp => "bfp",
            Param::Cbp => "cbp",
            Param::Cb => "cb",
            Param::Rb => "rb",
        }
    }

    /// The constant's value in `config`.
    #[must_use]
    pub fn get(self, config: &HeuristicConfig) -> f64 {
        match self {
            Param::Bt => f64::from(config.bt),
            Param::Bf => config.bf,
            Param::Bfp => config.bfp,
            Param::Cbp => config.cbp,
            Param::Cb => config.cb,
            Param::Rb => config.rb,
        }
    }

    /// `config` with this constant set to `value`, clamped to its range (zero or more; `bt`
    /// rounded and at most 24).
    #[must_use]
    pub fn with(self, config: &HeuristicConfig, value: f64) -> HeuristicConfig {
        let v = value.max(0.0);
        let mut c = *config;
        match self {
            Param::Bt => c.bt = v.round().min(24.0) as u8,
            Param::Bf => c.bf = v,
            Param::Bfp => c.bfp = v,
            Param::Cbp => c.cbp = v,
            Param::Cb => c.cb = v,
            Param::Rb => c.rb = v,
        }
        c
    }
}

/// What a training run does. Everything but `threads` is recorded in the checkpoint, and a run
/// only resumes with the same values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainSettings {
    /// The seed of every step's dice.
    pub seed: u64,
    /// Games per candidate (even): the article plays 3,000.
    pub games_per_step: u64,
    /// The share of games a candidate must win to be kept: the article's 0.51.
    pub threshold: f64,
    /// The rules of the games.
    pub rules: Rules,
    /// Arena threads; 0 for one per core.
    pub threads: usize,
}

impl Default for TrainSettings {
    fn default() -> TrainSettings {
        TrainSettings {
            seed: 1,
            games_per_step: 3000,
            threshold: 0.51,
            rules: Rules::Standard,
            threads: 0,
        }
    }
}

/// One candidate tried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step number, from 0.
    pub step: u64,
    /// The constant varied.
    pub param: String,
    /// Its value in the current configuration.
    pub from: f64,
    /// Its value in the candidate.
    pub to: f64,
    /// Games played.
    pub games: u64,
    /// Games the candidate won.
    pub wins: u64,
    /// The candidate's points per game.
    pub ppg: f64,
    /// Whether the candidate was kept.
    pub accepted: bool,
}

impl fmt::Display for StepRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "step {}: {} {} -> {}: won {}/{} ({:.2}%), {:+.3} ppg: {}",
            self.step,
            self.param,
            self.from,
            self.to,
            self.wins,
            self.games,
            100.0 * self.wins as f64 / self.games as f64,
            self.ppg,
            if self.accepted { "kept" } else { "rejected" }
        )
    }
}

/// The whole state of a training run, written as JSON after every step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// [`CHECKPOINT_FORMAT`].
    pub format: u32,
    /// The settings' seed.
    pub seed: u64,
    /// The settings' games per step.
    pub games_per_step: u64,
    /// The settings' threshold.
    pub threshold: f64,
    /// The settings' rules (`standard` or `no-quad-doubles`).
    pub variant: String,
    /// The configuration the run started from.
    pub start: HeuristicConfig,
    /// The current configuration.
    pub config: HeuristicConfig,
    /// The constant to try next (index into [`Param::ALL`]).
    pub param: usize,
    /// The direction to try next: +1 or -1.
    pub direction: i8,
    /// The step sizes, in the order of [`Param::ALL`].
    pub step_sizes: [f64; 6],
    /// Tries since the last accepted change or the last halving.
    pub tries_without_change: u32,
    /// Every step so far.
    pub history: Vec<StepRecord>,
}

/// Why training failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum TrainError {
    /// The settings are unusable.
    Settings {
        /// What is wrong.
        reason: String,
    },
    /// A checkpoint could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A checkpoint is not valid JSON of the expected shape.
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// The parser's error (with line and column).
        source: serde_json::Error,
    },
    /// A checkpoint was made with other settings.
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The setting.
        field: &'static str,
        /// Its value in the checkpoint.
        checkpoint: String,
        /// The value given now.
        given: String,
    },
    /// The arena failed.
    Arena(ArenaError),
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Settings { reason } => write!(f, "invalid training settings: {reason}"),
            TrainError::Io { path, .. } => {
                write!(f, "cannot access checkpoint {}", path.display())
            }
            TrainError::Checkpoint { path, source } => {
                write!(f, "checkpoint {}: {source}", path.display())
            }
            TrainError::Mismatch {
                path,
                field,
                checkpoint,
                given,
            } => write!(
                f,
                "checkpoint {} was made with {field} = {checkpoint}, not {given}; give the same \
                 settings to resume, or another checkpoint file to start afresh",
                path.display()
            ),
            TrainError::Arena(_) => write!(f, "a training game failed"),
        }
    }
}

impl std::error::Error for TrainError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TrainError::Io { source, .. } => Some(source),
            TrainError::Arena(e) => Some(e),
            _ => None,
        }
    }
}

/// A training run in progress.
#[derive(Debug, Clone)]
pub struct Trainer {
    state: Checkpoint,
    settings: TrainSettings,
}

impl Trainer {
    /// A new run from `start`.
    ///
    /// # Errors
    /// [`TrainError::Settings`] for an odd or zero game count, a threshold outside 0..1, or a
    /// start configuration out of range.
    pub fn new(start: HeuristicConfig, settings: TrainSettings) -> Result<Trainer, TrainError> {
        check_settings(&settings)?;
        start.validate().map_err(|e| TrainError::Settings {
            reason: format!("start configuration: {e}"),
        })?;
        Ok(Trainer {
            state: Checkpoint {
                format: CHECKPOINT_FORMAT,
                seed: settings.seed,
                games_per_step: settings.games_per_step,
                threshold: settings.threshold,
                variant: variant_name(settings.rules).into(),
                start,
                config: start,
                param: 0,
                direction: 1,
                step_sizes: Param::INITIAL_STEPS,
                tries_without_change: 0,
                history: Vec::new(),
            },
            settings,
        })
    }

    /// Resumes the run saved in `checkpoint` (read from `path`, which names it in errors).
    ///
    /// # Errors
    /// [`TrainError::Mismatch`] when the checkpoint was made with other settings,
    /// [`TrainError::Checkpoint`] for an unknown format version.
    pub fn resume(
        checkpoint: Checkpoint,
        settings: TrainSettings,
        path: &Path,
    ) -> Result<Trainer, TrainError> {
        check_settings(&settings)?;
        let mismatch = |field, checkpoint: String, given: String| TrainError::Mismatch {
            path: path.to_path_buf(),
            field,
            checkpoint,
            given,
        };
        if checkpoint.format != CHECKPOINT_FORMAT {
            return Err(mismatch(
                "format",
                checkpoint.format.to_string(),
                CHECKPOINT_FORMAT.to_string(),
            ));
        }
        if checkpoint.seed != settings.seed {
            return Err(mismatch(
                "seed",
                checkpoint.seed.to_string(),
                settings.seed.to_string(),
            ));
        }
        if checkpoint.games_per_step != settings.games_per_step {
            return Err(mismatch(
                "games",
                checkpoint.games_per_step.to_string(),
                settings.games_per_step.to_string(),
            ));
        }
        if checkpoint.threshold != settings.threshold {
            return Err(mismatch(
                "threshold",
                checkpoint.threshold.to_string(),
                settings.threshold.to_string(),
            ));
        }
        if checkpoint.variant != variant_name(settings.rules) {
            return Err(mismatch(
                "variant",
                checkpoint.variant.clone(),
                variant_name(settings.rules).into(),
            ));
        }
        if checkpoint.param >= Param::ALL.len() || checkpoint.direction.abs() != 1 {
            return Err(mismatch(
                "param/direction",
                format!("{}/{}", checkpoint.param, checkpoint.direction),
                "0..6 and +1 or -1".into(),
            ));
        }
        checkpoint
            .config
            .validate()
            .map_err(|e| mismatch("config", e.to_string(), "a valid configuration".into()))?;
        Ok(Trainer {
            state: checkpoint,
            settings,
        })
    }

    /// Reads a checkpoint file.
    ///
    /// # Errors
    /// [`TrainError::Io`] or [`TrainError::Checkpoint`], naming the file.
    pub fn load_checkpoint(path: &Path) -> Result<Checkpoint, TrainError> {
        let text = fs::read_to_string(path).map_err(|source| TrainError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| TrainError::Checkpoint {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Writes the checkpoint to `path`, through a temporary file renamed into place, so that
    /// an interrupted write never leaves a broken checkpoint.
    ///
    /// # Errors
    /// [`TrainError::Io`].
    pub fn save_checkpoint(&self, path: &Path) -> Result<(), TrainError> {
        let io = |source| TrainError::Io {
            path: path.to_path_buf(),
            source,
        };
        let text = serde_json::to_string_pretty(&self.state).expect("a checkpoint serialises");
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        fs::write(&tmp, text + "\n").map_err(io)?;
        fs::rename(&tmp, path).map_err(io)
    }

    /// The state, as it would be saved.
    #[must_use]
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.state
    }

    /// The current configuration: the start with every accepted change.
    #[must_use]
    pub fn config(&self) -> &HeuristicConfig {
        &self.state.config
    }

    /// Steps done so far.
    #[must_use]
    pub fn steps_done(&self) -> u64 {
        self.state.history.len() as u64
    }

    /// The next candidate: the constant and its new value, skipping tries that would not change
    /// the configuration (going below zero).
    fn next_candidate(&mut self) -> (Param, HeuristicConfig) {
        loop {
            let s = &mut self.state;
            let param = Param::ALL[s.param];
            let from = param.get(&s.config);
            let to = from + f64::from(s.direction) * s.step_sizes[s.param];
            let candidate = param.with(&s.config, to);
            if candidate != s.config {
                return (param, candidate);
            }
            self.advance(false);
        }
    }

    /// Moves the cursor after a try.
    fn advance(&mut self, accepted: bool) {
        let s = &mut self.state;
        if accepted {
            s.tries_without_change = 0;
            return;
        }
        s.tries_without_change += 1;
        if s.direction == 1 {
            s.direction = -1;
        } else {
            s.direction = 1;
            s.param = (s.param + 1) % Param::ALL.len();
        }
        if s.tries_without_change >= 2 * Param::ALL.len() as u32 {
            for (i, step) in s.step_sizes.iter_mut().enumerate() {
                if Param::ALL[i] != Param::Bt {
                    *step /= 2.0;
                }
            }
            s.tries_without_change = 0;
        }
    }

    /// Plays one step: the next candidate against the current configuration. `progress` is
    /// advanced by one per game.
    ///
    /// # Errors
    /// [`TrainError::Arena`] when the arena fails.
    pub fn step(&mut self, progress: &ProgressBar) -> Result<StepRecord, TrainError> {
        let (param, candidate) = self.next_candidate();
        let current = self.state.config;
        let step = self.steps_done();
        let arena = ArenaConfig {
            games: self.settings.games_per_step,
            seed: step_seed(self.settings.seed, step),
            rules: self.settings.rules,
            threads: self.settings.threads,
        };
        let make = |config: HeuristicConfig| {
            let eval = HeuristicEval::new(config);
            move |_seed: u64| Ok::<_, std::convert::Infallible>(HeuristicPlayer::new(eval.clone()))
        };
        let result = run_arena(&arena, make(candidate), make(current), progress)
            .map_err(TrainError::Arena)?;
        let accepted = result.wins_a as f64 > self.settings.threshold * result.games as f64;
        let record = StepRecord {
            step,
            param: param.name().into(),
            from: param.get(&current),
            to: param.get(&candidate),
            games: result.games,
            wins: result.wins_a,
            ppg: result.ppg_a,
            accepted,
        };
        if accepted {
            self.state.config = candidate;
        }
        self.advance(accepted);
        self.state.history.push(record.clone());
        Ok(record)
    }
}

fn check_settings(s: &TrainSettings) -> Result<(), TrainError> {
    if s.games_per_step < 2 || s.games_per_step % 2 != 0 {
        return Err(TrainError::Settings {
            reason: format!(
                "{} games per step: must be even and at least 2 (pairs of duplicate games)",
                s.games_per_step
            ),
        });
    }
    if !(s.threshold > 0.0 && s.threshold < 1.0) {
        return Err(TrainError::Settings {
            reason: format!("threshold {} is not between 0 and 1", s.threshold),
        });
    }
    Ok(())
}

/// The dice seed of step `step`.
fn step_seed(seed: u64, step: u64) -> u64 {
    // SplitMix64 of the pair, so neighbouring steps get unrelated dice.
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(step.wrapping_add(1).wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> TrainSettings {
        TrainSettings {
            seed: 3,
            games_per_step: 64,
            threshold: 0.51,
            rules: Rules::Standard,
            threads: 2,
        }
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tavla-train-{}-{name}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir.join("run.json")
    }

    #[test]
    fn a_resumed_run_matches_an_uninterrupted_one() {
        let hidden = ProgressBar::hidden();
        let mut straight = Trainer::new(HeuristicConfig::article_untrained(), settings()).unwrap();
        for _ in 0..6 {
            straight.step(&hidden).unwrap();
        }

        let path = temp("resume");
        let mut first = Trainer::new(HeuristicConfig::article_untrained(), settings()).unwrap();
        for _ in 0..3 {
            first.step(&hidden).unwrap();
            first.save_checkpoint(&path).unwrap();
        }
        let cp = Trainer::load_checkpoint(&path).unwrap();
        let mut resumed = Trainer::resume(
            cp,
            TrainSettings {
                threads: 1,
                ..settings()
            },
            &path,
        )
        .unwrap();
        for _ in 0..3 {
            resumed.step(&hidden).unwrap();
        }
        assert_eq!(resumed.checkpoint(), straight.checkpoint());
        fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn steps_follow_the_documented_search() {
        let hidden = ProgressBar::hidden();
        let mut t = Trainer::new(HeuristicConfig::untrained(), settings()).unwrap();
        let first = t.step(&hidden).unwrap();
        // From all zeros: bt goes up by one first. With bf = bfp = 0 the threshold changes
        // nothing, so both sides play alike and the candidate cannot win more than half.
        assert_eq!(
            (first.param.as_str(), first.from, first.to),
            ("bt", 0.0, 1.0)
        );
        assert!(first.wins * 2 <= first.games);
        assert!(!first.accepted);
        // bt cannot go below zero: the next try is bf upwards.
        let second = t.step(&hidden).unwrap();
        assert_eq!(
            (second.param.as_str(), second.from, second.to),
            ("bf", 0.0, 0.5)
        );
        assert_eq!(second.accepted, second.wins as f64 > 0.51 * 64.0);
        if second.accepted {
            assert_eq!(t.config().bf, 0.5);
        }
    }

    #[test]
    fn halving_after_a_full_sweep_without_change() {
        let mut t = Trainer::new(HeuristicConfig::article(), settings()).unwrap();
        for _ in 0..12 {
            t.advance(false);
        }
        assert_eq!(t.state.param, 0);
        assert_eq!(t.state.step_sizes, [1.0, 0.25, 0.25, 0.25, 0.125, 0.05]);
    }

    #[test]
    fn mismatched_or_broken_checkpoints_are_refused() {
        let path = temp("mismatch");
        let t = Trainer::new(HeuristicConfig::article(), settings()).unwrap();
        t.save_checkpoint(&path).unwrap();
        let cp = Trainer::load_checkpoint(&path).unwrap();
        let err = Trainer::resume(
            cp,
            TrainSettings {
                seed: 4,
                ..settings()
            },
            &path,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("was made with seed = 3, not 4"),
            "{err}"
        );
        fs::write(&path, "{\"format\": 1,").unwrap();
        let err = Trainer::load_checkpoint(&path).unwrap_err().to_string();
        assert!(err.contains("run.json") && err.contains("line"), "{err}");
        assert!(Trainer::new(
            HeuristicConfig::article(),
            TrainSettings {
                games_per_step: 3,
                ..settings()
            }
        )
        .is_err());
        fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
