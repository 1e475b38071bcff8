//! The constants of the heuristic evaluation and their TOML file.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The constants of the seed article's evaluation (see `docs/heuristic.md`).
///
/// Point numbers in these descriptions are the article's: a blot's number is `25 - p` for a
/// checker on the side's point `p`, which is also the number of pips it loses when hit.
///
/// Conventions for zero (so that [`HeuristicConfig::untrained`], with every factor at zero, is
/// the pure pip-count player): a divisor `bf` or `bfp` of zero switches its blot term off, and a
/// `cbp` of zero switches the block term off (IEEE `pow` would give `0^0 = 1` per run).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeuristicConfig {
    /// Blot factor: a blot with number `n > bt` costs `n / bf`.
    pub bf: f64,
    /// Blot factor once every opponent checker has passed the blot: it costs `n / bfp`.
    pub bfp: f64,
    /// Blot threshold: blots with number `n <= bt` (far back) cost nothing.
    pub bt: u8,
    /// Connected-blocks point score: a run of `k` consecutive made points scores
    /// `(k * cbp) ^ cb`.
    pub cbp: f64,
    /// Connected-blocks exponent (see `cbp`).
    pub cb: f64,
    /// Run-or-block factor: with contact and no opponent checker on the side's 1-point or bar,
    /// the pip lead is counted again times `rb`.
    pub rb: f64,
    /// The race terms (no contact left).
    #[serde(default)]
    pub race: RaceWeights,
}

/// The terms of the article's race evaluation: bring the checkers home, then bear them off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaceWeights {
    /// Score per checker borne off (the article's program: 100).
    pub off: f64,
    /// Score per checker in the home board, points 1 to 6 (the article's program meant 50; see
    /// `docs/heuristic.md`).
    pub home: f64,
    /// Whether players should take the race lead from a bearoff database where it covers the
    /// position (`tavla_search::OneSidedRace`) instead of the pip lead. [`super::HeuristicEval`]
    /// itself only uses a database given to [`super::HeuristicEval::with_race`]; the players
    /// that `tavla` builds honour this flag. Off by default, as in the article.
    #[serde(default)]
    pub bearoff: bool,
}

impl Default for RaceWeights {
    fn default() -> RaceWeights {
        RaceWeights {
            off: 100.0,
            home: 50.0,
            bearoff: false,
        }
    }
}

impl Default for HeuristicConfig {
    /// The constants the article's program ships ([`HeuristicConfig::article`]).
    fn default() -> HeuristicConfig {
        HeuristicConfig::article()
    }
}

impl HeuristicConfig {
    /// The constants the article's program ships as its trained configuration.
    #[must_use]
    pub const fn article() -> HeuristicConfig {
        HeuristicConfig {
            bf: 1.225,
            bfp: 1.925,
            bt: 3,
            cbp: 1.608432,
            cb: 0.739531007,
            rb: 0.262721103,
            race: RaceWeights {
                off: 100.0,
                home: 50.0,
                bearoff: false,
            },
        }
    }

    /// Every factor at zero: the pip lead alone while there is contact (the race terms keep
    /// their weights; they are not among the article's trained constants).
    #[must_use]
    pub const fn untrained() -> HeuristicConfig {
        HeuristicConfig {
            bf: 0.0,
            bfp: 0.0,
            bt: 0,
            cbp: 0.0,
            cb: 0.0,
            rb: 0.0,
            race: RaceWeights {
                off: 100.0,
                home: 50.0,
                bearoff: false,
            },
        }
    }

    /// The article program's own "untrained" configuration, which differs from all zeros:
    /// `bf = bfp = 1`, `bt = 0`, and since C#'s `Math.Pow(0, 0)` is 1, every run of made points
    /// scores 1 (here `cbp = 1, cb = 0`).
    #[must_use]
    pub const fn article_untrained() -> HeuristicConfig {
        HeuristicConfig {
            bf: 1.0,
            bfp: 1.0,
            bt: 0,
            cbp: 1.0,
            cb: 0.0,
            rb: 0.0,
            race: RaceWeights {
                off: 100.0,
                home: 50.0,
                bearoff: false,
            },
        }
    }

    /// Reads a configuration from TOML text.
    ///
    /// # Errors
    /// [`ConfigError::Syntax`] for TOML that does not parse or names unknown or mistyped keys
    /// (the message gives the key, line and column), [`ConfigError::Invalid`] for a value out
    /// of range.
    pub fn from_toml(text: &str) -> Result<HeuristicConfig, ConfigError> {
        let config: HeuristicConfig = toml::from_str(text).map_err(|source| {
            let location = source.span().map(|span| Location::of(text, span.start));
            ConfigError::Syntax {
                path: None,
                location,
                source: Box::new(source),
            }
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Reads a configuration file.
    ///
    /// # Errors
    /// As [`HeuristicConfig::from_toml`], with the path, and [`ConfigError::Read`] when the file
    /// cannot be read.
    pub fn load(path: &Path) -> Result<HeuristicConfig, ConfigError> {
        let text = fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        HeuristicConfig::from_toml(&text).map_err(|e| e.with_path(path))
    }

    /// Writes the configuration as a commented TOML file.
    ///
    /// # Errors
    /// [`ConfigError::Write`] when the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        fs::write(path, self.to_toml()).map_err(|source| ConfigError::Write {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The configuration as commented TOML text, read back by [`HeuristicConfig::from_toml`].
    #[must_use]
    pub fn to_toml(&self) -> String {
        // `{:?}` writes the shortest text that reads back to the same f64, always with a
        // decimal point, so every float stays a TOML float.
        format!(
            "# tavla heuristic evaluation: the seed article's constants (docs/heuristic.md).\n\
             # A blot on the side's point p, with n = 25 - p (the pips it loses when hit) and\n\
             # n > bt, costs n / bf, or n / bfp once every opponent checker has passed it.\n\
             bf = {:?}\n\
             bfp = {:?}\n\
             bt = {}\n\
             # Each run of k consecutive made points scores (k * cbp) ^ cb.\n\
             cbp = {:?}\n\
             cb = {:?}\n\
             # Contact, and no opponent checker on the side's 1-point or bar: + pip lead * rb.\n\
             rb = {:?}\n\
             \n\
             # No contact: + off * (checkers borne off) + home * (checkers on points 1-6), and\n\
             # the pip lead, or with bearoff = true a bearoff database's lead where it covers\n\
             # both sides (in pips: the difference of expected rolls to bear off times 49/6).\n\
             [race]\n\
             off = {:?}\n\
             home = {:?}\n\
             bearoff = {}\n",
            self.bf,
            self.bfp,
            self.bt,
            self.cbp,
            self.cb,
            self.rb,
            self.race.off,
            self.race.home,
            self.race.bearoff
        )
    }

    /// Checks that every value is in range.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let non_negative = [
            ("bf", self.bf),
            ("bfp", self.bfp),
            ("cbp", self.cbp),
            ("cb", self.cb),
        ];
        for (field, value) in non_negative {
            if !value.is_finite() || value < 0.0 {
                return Err(ConfigError::invalid(
                    field,
                    value,
                    "a finite number, zero or more",
                ));
            }
        }
        let finite = [
            ("rb", self.rb),
            ("race.off", self.race.off),
            ("race.home", self.race.home),
        ];
        for (field, value) in finite {
            if !value.is_finite() {
                return Err(ConfigError::invalid(field, value, "a finite number"));
            }
        }
        if self.bt > 24 {
            return Err(ConfigError::invalid(
                "bt",
                f64::from(self.bt),
                "an integer from 0 to 24",
            ));
        }
        Ok(())
    }
}

/// Why a heuristic configuration could not be read, written or used.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// Not valid TOML, or a key that is unknown, missing or of the wrong type.
    Syntax {
        /// The file, when read from one.
        path: Option<PathBuf>,
        /// Where in the text, when the parser knows.
        location: Option<Location>,
        /// The parser's error.
        source: Box<toml::de::Error>,
    },
    /// A value out of range.
    Invalid {
        /// The file, when read from one.
        path: Option<PathBuf>,
        /// The key (`bf`, `race.off`...).
        field: &'static str,
        /// The value found.
        value: f64,
        /// What the field must hold.
        expected: &'static str,
    },
}

impl ConfigError {
    fn invalid(field: &'static str, value: f64, expected: &'static str) -> ConfigError {
        ConfigError::Invalid {
            path: None,
            field,
            value,
            expected,
        }
    }

    fn with_path(self, file: &Path) -> ConfigError {
        match self {
            ConfigError::Syntax {
                location, source, ..
            } => ConfigError::Syntax {
                path: Some(file.to_path_buf()),
                location,
                source,
            },
            ConfigError::Invalid {
                field,
                value,
                expected,
                ..
            } => ConfigError::Invalid {
                path: Some(file.to_path_buf()),
                field,
                value,
                expected,
            },
            other => other,
        }
    }
}

/// A place in a TOML text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The line's text, trimmed.
    pub text: String,
}

impl Location {
    fn of(text: &str, offset: usize) -> Location {
        let offset = offset.min(text.len());
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        Location {
            line: before.matches('\n').count() + 1,
            column: text[line_start..offset].chars().count() + 1,
            text: text[line_start..line_end].trim().to_string(),
        }
    }
}

struct Where<'a>(&'a Option<PathBuf>);

impl fmt::Display for Where<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "heuristic config {}", p.display()),
            None => write!(f, "heuristic config"),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, .. } => {
                write!(f, "cannot read heuristic config {}", path.display())
            }
            ConfigError::Write { path, .. } => {
                write!(f, "cannot write heuristic config {}", path.display())
            }
            ConfigError::Syntax {
                path,
                location,
                source,
            } => {
                // toml's own Display spans several lines; keep one: the problem, where, and the
                // line itself (which names the key).
                let msg = source.message().trim_end();
                match location {
                    Some(at) => write!(
                        f,
                        "{}, line {}, column {} (`{}`): {msg}",
                        Where(path),
                        at.line,
                        at.column,
                        at.text
                    ),
                    None => write!(f, "{}: {msg}", Where(path)),
                }
            }
            ConfigError::Invalid {
                path,
                field,
                value,
                expected,
            } => write!(
                f,
                "{}: field `{field}` is {value}, expected {expected}",
                Where(path)
            ),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Read { source, .. } | ConfigError::Write { source, .. } => Some(source),
            ConfigError::Syntax { .. } | ConfigError::Invalid { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_round_trips_every_constant_exactly() {
        for config in [
            HeuristicConfig::article(),
            HeuristicConfig::untrained(),
            HeuristicConfig::article_untrained(),
            HeuristicConfig {
                bf: 0.1 + 0.2,
                rb: -1e-300,
                ..HeuristicConfig::article()
            },
        ] {
            let text = config.to_toml();
            assert_eq!(HeuristicConfig::from_toml(&text).unwrap(), config, "{text}");
        }
    }

    #[test]
    fn article_constants_are_the_shipped_ones() {
        let c = HeuristicConfig::default();
        assert_eq!(
            (c.bf, c.bfp, c.bt, c.cbp, c.cb, c.rb),
            (1.225, 1.925, 3, 1.608432, 0.739531007, 0.262721103)
        );
        let u = HeuristicConfig::untrained();
        assert_eq!(
            (u.bf, u.bfp, u.bt, u.cbp, u.cb, u.rb),
            (0.0, 0.0, 0, 0.0, 0.0, 0.0)
        );
    }

    #[test]
    fn shipped_files_are_the_built_in_configurations() {
        // data/heuristic/*.toml are what `to_toml` writes for the built-in configurations.
        for (text, config) in [
            (
                include_str!("../../data/heuristic/article.toml"),
                HeuristicConfig::article(),
            ),
            (
                include_str!("../../data/heuristic/untrained.toml"),
                HeuristicConfig::untrained(),
            ),
            (
                include_str!("../../data/heuristic/article-untrained.toml"),
                HeuristicConfig::article_untrained(),
            ),
            (
                include_str!("../../data/heuristic/article-bearoff.toml"),
                HeuristicConfig {
                    race: RaceWeights {
                        bearoff: true,
                        ..RaceWeights::default()
                    },
                    ..HeuristicConfig::article()
                },
            ),
        ] {
            assert_eq!(text, config.to_toml());
        }
    }

    #[test]
    fn race_table_is_optional() {
        let c = HeuristicConfig::from_toml(
            "bf = 1.0\nbfp = 2.0\nbt = 1\ncbp = 1.0\ncb = 1.0\nrb = 0.5\n",
        )
        .unwrap();
        assert_eq!(c.race, RaceWeights::default());
    }

    #[test]
    fn errors_name_the_key() {
        let unknown = HeuristicConfig::from_toml(&format!(
            "{}\nbogus = 1\n",
            HeuristicConfig::article()
                .to_toml()
                .replace("[race]", "[other]")
        ))
        .unwrap_err()
        .to_string();
        assert!(unknown.contains("other"), "{unknown}");

        let missing = HeuristicConfig::from_toml("bf = 1.0\n")
            .unwrap_err()
            .to_string();
        assert!(missing.contains("bfp"), "{missing}");

        let typed = HeuristicConfig::from_toml(
            &HeuristicConfig::article()
                .to_toml()
                .replace("bt = 3", "bt = 2.5"),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            typed,
            "heuristic config, line 6, column 6 (`bt = 2.5`): invalid type: floating point `2.5`, expected u8"
        );

        let negative = HeuristicConfig::from_toml(
            &HeuristicConfig::article()
                .to_toml()
                .replace("cb = 0.739531007", "cb = -1.0"),
        )
        .unwrap_err();
        assert!(matches!(negative, ConfigError::Invalid { field: "cb", .. }));
        assert_eq!(
            negative.to_string(),
            "heuristic config: field `cb` is -1, expected a finite number, zero or more"
        );

        let bt = HeuristicConfig::from_toml(
            &HeuristicConfig::article()
                .to_toml()
                .replace("bt = 3", "bt = 30"),
        )
        .unwrap_err();
        assert!(matches!(bt, ConfigError::Invalid { field: "bt", .. }));
    }

    #[test]
    fn load_names_the_file() {
        let dir = std::env::temp_dir().join(format!("tavla-eval-config-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.toml");
        HeuristicConfig::article().save(&good).unwrap();
        assert_eq!(
            HeuristicConfig::load(&good).unwrap(),
            HeuristicConfig::article()
        );

        let bad = dir.join("bad.toml");
        fs::write(&bad, "bf = \"x\"\n").unwrap();
        let err = HeuristicConfig::load(&bad).unwrap_err().to_string();
        assert!(err.contains("bad.toml") && err.contains("bf"), "{err}");

        let err = HeuristicConfig::load(&dir.join("absent.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("absent.toml"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
