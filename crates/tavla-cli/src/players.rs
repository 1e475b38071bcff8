//! PLAYER on the command line: which player, and a factory that makes it on any thread.
//!
//! * `random`: uniform among the legal plays, seeded.
//! * `heuristic[:FILE]`: the seed article's evaluation at 0 ply, with the constants of FILE
//!   (TOML) or the article's. With `bearoff = true` under `[race]` in FILE, races use the
//!   one-sided bearoff database (built on first use into the cache, see `tavla bearoff`).
//! * `heuristic-1ply[:FILE]`: the same evaluation with the article's 1-ply probability score.
//! * `neural[:ply=N][,cube-ply=N][,cubeless-plays][,weights=FILE][,no-bearoff][,filters=K:M/K:M/K:M][,no-prune|,prune=FILE][,keep=K]`: the neural engine
//!   searching N plies (0 to 3, default 0) with the embedded default weights or those of FILE;
//!   its cube decisions search `cube-ply` plies (default: N); `cubeless-plays` chooses money
//!   plays by cubeless equity even once the cube has been turned.
//!   Races with every checker home are valued by the bearoff databases (exact two-sided 6 × 8,
//!   one-sided 6 × 15; built on first use into the cache) unless `no-bearoff` is given
//!   (`bearoff`, the default, is accepted). The candidates of the search's inner move choices
//!   are picked by the embedded pruning networks (`prune=FILE`: those of FILE; `no-prune`: none,
//!   every candidate evaluated in full; `prune`, the default, is accepted), and the full
//!   networks evaluate only their best `keep=K` (default [`DEFAULT_KEEP`]).
//! * `ubgi:COMMAND`: an external engine speaking UBGI, started with `sh -c COMMAND`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use anyhow::{Context, Result};
use tavla_bearoff::cache::CacheOutcome;
use tavla_bearoff::DbError;
use tavla_core::Rules;
use tavla_eval::heuristic::{HeuristicConfig, HeuristicEval};
use tavla_nn::bearoff::BearoffRace;
use tavla_nn::search::{MoveFilter, Prune, DEFAULT_FILTERS, DEFAULT_KEEP, MAX_KEEP, MAX_PLY};
use tavla_nn::{NeuralPlayer, Weights};
use tavla_player::{Player, RandomPlayer};
use tavla_protocol::UbgiPlayer;
use tavla_search::{HeuristicLookahead, HeuristicPlayer, OneSidedRace};

use crate::input::InputError;

/// The forms PLAYER takes, for messages.
pub const FORMS: &str = "random, heuristic[:FILE], heuristic-1ply[:FILE], \
                         neural[:ply=N][,cube-ply=N][,cubeless-plays][,weights=FILE][,no-bearoff][,filters=K:M/K:M/K:M][,no-prune|,prune=FILE][,keep=K] \
                         or ubgi:COMMAND";

/// A player named on the command line, its files already read.
#[derive(Debug, Clone)]
pub enum PlayerSpec {
    /// `random`.
    Random,
    /// `heuristic[:FILE]`.
    Heuristic {
        /// The constants.
        config: HeuristicConfig,
        /// Where they came from, if not the defaults.
        file: Option<PathBuf>,
        /// The bearoff database, when the configuration asks for it.
        race: Option<Arc<OneSidedRace>>,
    },
    /// `heuristic-1ply[:FILE]`.
    HeuristicLookahead {
        /// The constants.
        config: HeuristicConfig,
        /// Where they came from, if not the defaults.
        file: Option<PathBuf>,
        /// The bearoff database, when the configuration asks for it.
        race: Option<Arc<OneSidedRace>>,
    },
    /// `neural[:ply=N][,cube-ply=N][,cubeless-plays][,weights=FILE][,no-bearoff][,filters=K:M/K:M/K:M][,no-prune|,prune=FILE][,keep=K]`.
    Neural {
        /// Search depth in plies.
        ply: u8,
        /// The depth of its cube decisions, when not `ply`.
        cube_ply: Option<u8>,
        /// Money plays chosen cubeless even once the cube has been turned.
        cubeless_plays: bool,
        /// The networks.
        weights: Arc<Weights>,
        /// Where they came from, if not the embedded default.
        file: Option<PathBuf>,
        /// Race values from the bearoff databases, unless `no-bearoff` turned them off.
        bearoff: Option<Arc<BearoffRace>>,
        /// Move filters other than the default ones.
        filters: Option<[MoveFilter; MAX_PLY as usize]>,
        /// Pruning networks for the inner move choices, and the file they came from (none:
        /// the embedded ones); `None` with `no-prune`.
        prune: Option<(Prune, Option<PathBuf>)>,
    },
    /// `ubgi:COMMAND`.
    Ubgi {
        /// The shell command.
        command: String,
    },
}

impl PlayerSpec {
    /// Reads a PLAYER, loading its configuration file if it names one, and the bearoff
    /// database if the configuration asks for it.
    ///
    /// # Errors
    /// [`InputError`] naming the text and what is wrong with it; the database's error when it
    /// is asked for and cannot be had.
    pub fn parse(text: &str) -> Result<PlayerSpec> {
        let (kind, arg) = match text.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (text, None),
        };
        let config = |arg: Option<&str>| -> Result<(HeuristicConfig, Option<PathBuf>), InputError> {
            match arg {
                None => Ok((HeuristicConfig::default(), None)),
                Some("") => Err(InputError(format!(
                    "invalid player `{text}`: no file after `:` (omit `:` for the article's constants)"
                ))),
                Some(file) => {
                    let path = PathBuf::from(file);
                    let config = HeuristicConfig::load(&path)
                        .map_err(|e| InputError(format!("invalid player `{text}`: {e}")))?;
                    Ok((config, Some(path)))
                }
            }
        };
        let race = |config: &HeuristicConfig| -> Result<Option<Arc<OneSidedRace>>> {
            if !config.race.bearoff {
                return Ok(None);
            }
            let (db, _) = tavla_bearoff::cache::default_one_sided()
                .with_context(|| format!("player `{text}` asks for the bearoff database"))?;
            Ok(Some(Arc::new(OneSidedRace::new(db))))
        };
        match kind {
            "random" if arg.is_none() => Ok(PlayerSpec::Random),
            "heuristic" => {
                let (config, file) = config(arg)?;
                let race = race(&config)?;
                Ok(PlayerSpec::Heuristic { config, file, race })
            }
            "heuristic-1ply" => {
                let (config, file) = config(arg)?;
                let race = race(&config)?;
                Ok(PlayerSpec::HeuristicLookahead { config, file, race })
            }
            "neural" => neural(text, arg),
            "ubgi" => match arg {
                Some(command) if !command.trim().is_empty() => Ok(PlayerSpec::Ubgi {
                    command: command.to_string(),
                }),
                _ => Err(InputError(format!(
                    "invalid player `{text}`: give the engine's command after `ubgi:`"
                ))
                .into()),
            },
            _ => Err(InputError(format!("invalid player `{text}`: expected {FORMS}")).into()),
        }
    }

    /// The name in reports: the PLAYER text, with the file as given.
    #[must_use]
    pub fn name(&self) -> String {
        let with_file = |base: &str, file: &Option<PathBuf>| match file {
            Some(f) => format!("{base}:{}", f.display()),
            None => base.to_string(),
        };
        match self {
            PlayerSpec::Random => "random".into(),
            PlayerSpec::Heuristic { file, .. } => with_file("heuristic", file),
            PlayerSpec::HeuristicLookahead { file, .. } => with_file("heuristic-1ply", file),
            PlayerSpec::Neural {
                ply,
                cube_ply,
                cubeless_plays,
                file,
                bearoff,
                filters,
                prune,
                ..
            } => {
                let mut name = format!("neural:ply={ply}");
                if let Some(c) = cube_ply {
                    name += &format!(",cube-ply={c}");
                }
                if *cubeless_plays {
                    name += ",cubeless-plays";
                }
                if let Some(f) = file {
                    name += &format!(",weights={}", f.display());
                }
                if bearoff.is_none() {
                    name += ",no-bearoff";
                }
                if let Some(filters) = filters {
                    let f: Vec<String> = filters
                        .iter()
                        .map(|f| format!("{}:{}", f.keep, f.margin))
                        .collect();
                    name += &format!(",filters={}", f.join("/"));
                }
                match prune {
                    Some((prune, file)) => {
                        if let Some(f) = file {
                            name += &format!(",prune={}", f.display());
                        }
                        if prune.keep != DEFAULT_KEEP {
                            name += &format!(",keep={}", prune.keep);
                        }
                    }
                    None => name += ",no-prune",
                }
                name
            }
            PlayerSpec::Ubgi { command } => format!("ubgi:{command}"),
        }
    }

    /// Makes the player for games under `rules`; `seed` seeds a random player.
    ///
    /// # Errors
    /// When an external engine cannot be started.
    pub fn create(&self, seed: u64, rules: Rules) -> Result<Box<dyn Player>> {
        let eval = |config: &HeuristicConfig, race: &Option<Arc<OneSidedRace>>| match race {
            Some(race) => HeuristicEval::with_race(*config, race.clone()),
            None => HeuristicEval::new(*config),
        };
        Ok(match self {
            PlayerSpec::Random => Box::new(RandomPlayer::new(seed)),
            PlayerSpec::Heuristic { config, race, .. } => {
                Box::new(HeuristicPlayer::new(eval(config, race)).with_name(self.name()))
            }
            PlayerSpec::HeuristicLookahead { config, race, .. } => {
                Box::new(HeuristicLookahead::new(eval(config, race), rules).with_name(self.name()))
            }
            PlayerSpec::Neural {
                ply,
                cube_ply,
                cubeless_plays,
                weights,
                bearoff,
                filters,
                prune,
                ..
            } => {
                let mut player = NeuralPlayer::new(weights.clone(), *ply)
                    .with_cube_ply(cube_ply.unwrap_or(*ply))
                    .with_cubeless_plays(*cubeless_plays)
                    .with_name(self.name());
                if let Some((prune, _)) = prune {
                    player = player.with_prune(prune.clone());
                }
                if let Some(db) = bearoff {
                    player = player.with_bearoff(db.clone());
                }
                if let Some(f) = filters {
                    player = player.with_filters(*f);
                }
                Box::new(player)
            }
            PlayerSpec::Ubgi { command } => Box::new(
                UbgiPlayer::spawn(command)
                    .with_context(|| format!("cannot start player `{}`", self.name()))?,
            ),
        })
    }
}

/// Reads the options of `neural[:ply=N][,cube-ply=N][,cubeless-plays][,weights=FILE][,no-bearoff][,filters=K:M/K:M/K:M][,no-prune|,prune=FILE][,keep=K]`.
fn neural(text: &str, arg: Option<&str>) -> Result<PlayerSpec> {
    let bad = |why: String| InputError(format!("invalid player `{text}`: {why}"));
    let mut ply = 0u8;
    let mut cube_ply = None;
    let mut cubeless_plays = false;
    let mut file = None;
    let mut use_bearoff = true;
    let mut filters = None;
    let mut no_prune = false;
    let mut prune_file = None;
    let mut keep = None;
    // Each option once (a second would silently win over the first), and not beside its
    // opposite. `prune=FILE` and the bare `prune` (the default) are told apart.
    let mut seen: Vec<&str> = Vec::new();
    for option in arg.into_iter().flat_map(|a| a.split(',')) {
        let key = option.split_once('=').map_or(option, |(k, _)| k);
        let entry = if option.contains('=') {
            &option[..=key.len()]
        } else {
            key
        };
        if seen.contains(&entry) {
            return Err(bad(format!("`{key}` is given twice")).into());
        }
        for (a, b) in [("bearoff", "no-bearoff"), ("prune", "no-prune")] {
            if (entry == a && seen.contains(&b)) || (entry == b && seen.contains(&a)) {
                return Err(bad(format!("`{a}` and `{b}` say the opposite")).into());
            }
        }
        seen.push(entry);
        match option {
            "bearoff" => {
                use_bearoff = true;
                continue;
            }
            "no-bearoff" => {
                use_bearoff = false;
                continue;
            }
            "prune" => continue,
            "no-prune" => {
                no_prune = true;
                continue;
            }
            "cubeless-plays" => {
                cubeless_plays = true;
                continue;
            }
            _ => {}
        }
        match option.split_once('=') {
            Some(("ply", n)) => {
                ply = n
                    .parse()
                    .ok()
                    .filter(|&p| p <= tavla_nn::search::MAX_PLY)
                    .ok_or_else(|| {
                        bad(format!(
                            "ply `{n}` is not 0 to {}",
                            tavla_nn::search::MAX_PLY
                        ))
                    })?;
            }
            Some(("cube-ply", n)) => {
                cube_ply = Some(
                    n.parse()
                        .ok()
                        .filter(|&p| p <= tavla_nn::search::MAX_PLY)
                        .ok_or_else(|| {
                            bad(format!(
                                "cube-ply `{n}` is not 0 to {}",
                                tavla_nn::search::MAX_PLY
                            ))
                        })?,
                );
            }
            Some(("weights", f)) if !f.is_empty() => file = Some(PathBuf::from(f)),
            Some(("filters", f)) => filters = Some(parse_filters(f).map_err(bad)?),
            Some(("prune", f)) if !f.is_empty() => prune_file = Some(PathBuf::from(f)),
            Some(("keep", k)) => {
                keep = Some(
                    k.parse::<usize>()
                        .ok()
                        .filter(|k| (1..=MAX_KEEP).contains(k))
                        .ok_or_else(|| bad(format!("keep `{k}` is not 1 to {MAX_KEEP}")))?,
                );
            }
            _ => {
                return Err(bad(format!(
                    "unknown option `{option}` (ply=N, cube-ply=N, cubeless-plays, weights=FILE, \
                     bearoff, no-bearoff, filters=K:M/K:M/K:M, no-prune, prune=FILE or keep=K)"
                ))
                .into())
            }
        }
    }
    let weights = match &file {
        Some(f) => Arc::new(Weights::load(f).map_err(|e| bad(format!("{e}")))?),
        None => Weights::shared_default(),
    };
    let bearoff = if use_bearoff {
        Some(shared_bearoff())
    } else {
        None
    };
    let prune = if no_prune {
        if prune_file.is_some() || keep.is_some() {
            return Err(bad("no-prune cannot be given with prune=FILE or keep=K".into()).into());
        }
        None
    } else {
        let prune = Prune::load(prune_file.as_deref(), keep.unwrap_or(DEFAULT_KEEP))
            .map_err(|e| bad(format!("prune: {e}")))?;
        Some((prune, prune_file))
    };
    Ok(PlayerSpec::Neural {
        ply,
        cube_ply: cube_ply.filter(|&c| c != ply),
        cubeless_plays,
        weights,
        file,
        bearoff,
        filters,
        prune,
    })
}

/// [`shared_bearoff`]'s databases, made the first time a player asks for them.
static SHARED_BEAROFF: OnceLock<Arc<BearoffRace>> = OnceLock::new();

/// The default bearoff databases, one set per process however many players (and luck
/// judges) use them, each loaded when a probe first needs it ([`BearoffRace::default_databases`]).
pub fn shared_bearoff() -> Arc<BearoffRace> {
    SHARED_BEAROFF
        .get_or_init(|| {
            // A cache that does not serve (unwritable, or holding an unusable file) costs
            // every run a rebuild: said once, on stderr, when the database is loaded. A first
            // build is not worth a word.
            let report =
                |what: &'static str, loaded: Result<Option<CacheOutcome>, &DbError>| match loaded {
                    Ok(Some(outcome @ (CacheOutcome::Rebuilt(_) | CacheOutcome::NotSaved(_)))) => {
                        crate::bearoff_cmd::note(what, &outcome);
                    }
                    Ok(_) => {}
                    Err(e) => eprintln!(
                        "warning: the {what} database could not be loaded or built, so its \
                         positions are valued by the networks: {}",
                        crate::bearoff_cmd::chain(e)
                    ),
                };
            Arc::new(BearoffRace::default_databases_reported(Arc::new(report)))
        })
        .clone()
}

/// Loads the shared bearoff databases now, when a player of this process uses them: before a
/// progress bar is drawn, so that a note about one (a cache that did not serve) is not
/// written across the bar. The commands that draw one run long enough for the load (about
/// 50 ms) not to matter.
pub fn load_shared_bearoff_before_progress() {
    if let Some(db) = SHARED_BEAROFF.get() {
        db.preload();
    }
}

/// Starts loading the shared bearoff databases on a thread of their own, when a player of
/// this process uses them: for the commands that serve a controller under a clock (UBGI, the
/// external-player socket, the HTTP API), so that the session starts at once and no later
/// decision waits for a database (a probe meanwhile waits for the load it needs).
pub fn preload_shared_bearoff() {
    if let Some(db) = SHARED_BEAROFF.get() {
        let db = db.clone();
        std::thread::spawn(move || db.preload());
    }
}

/// Reads `K:M/K:M/K:M`: for each ply transition, the plays kept at most and the equity margin.
fn parse_filters(text: &str) -> Result<[MoveFilter; MAX_PLY as usize], String> {
    let parts: Vec<&str> = text.split('/').collect();
    if parts.len() != usize::from(MAX_PLY) {
        return Err(format!(
            "filters `{text}`: give {MAX_PLY} filters K:M separated by `/` (keep K plays within \
             equity M), one per ply transition"
        ));
    }
    let mut filters = DEFAULT_FILTERS;
    for (f, part) in filters.iter_mut().zip(parts) {
        let parsed = part.split_once(':').and_then(|(k, m)| {
            let keep = k.parse::<usize>().ok().filter(|&k| k >= 1)?;
            let margin = m
                .parse::<f32>()
                .ok()
                .filter(|m| m.is_finite() && *m >= 0.0)?;
            Some(MoveFilter { keep, margin })
        });
        *f = parsed.ok_or_else(|| {
            format!("filter `{part}` in `{text}`: expected K:M, K a count of at least 1 and M a non-negative equity")
        })?;
    }
    Ok(filters)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        // The default's bare `prune` beside a file of pruning networks is no repetition.
        assert!(PlayerSpec::parse("neural:prune,keep=3").is_ok());
        assert!(matches!(
            PlayerSpec::parse("random"),
            Ok(PlayerSpec::Random)
        ));
        match PlayerSpec::parse("heuristic").unwrap() {
            PlayerSpec::Heuristic { config, file, race } => {
                assert_eq!(config, HeuristicConfig::article());
                assert!(file.is_none() && race.is_none());
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            PlayerSpec::parse("heuristic-1ply"),
            Ok(PlayerSpec::HeuristicLookahead { file: None, .. })
        ));
        match PlayerSpec::parse("neural:ply=2").unwrap() {
            PlayerSpec::Neural { ply, file, .. } => assert_eq!((ply, file), (2, None)),
            other => panic!("{other:?}"),
        }
        assert_eq!(PlayerSpec::parse("neural").unwrap().name(), "neural:ply=0");
        assert_eq!(
            PlayerSpec::parse("neural:cube-ply=2").unwrap().name(),
            "neural:ply=0,cube-ply=2"
        );
        assert_eq!(
            PlayerSpec::parse("neural:ply=1,cube-ply=1").unwrap().name(),
            "neural:ply=1"
        );
        assert_eq!(
            PlayerSpec::parse("neural:ply=1,bearoff").unwrap().name(),
            "neural:ply=1"
        );
        match PlayerSpec::parse("neural:no-bearoff,ply=1").unwrap() {
            spec @ PlayerSpec::Neural { bearoff: None, .. } => {
                assert_eq!(spec.name(), "neural:ply=1,no-bearoff");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            PlayerSpec::parse("neural").unwrap(),
            PlayerSpec::Neural {
                bearoff: Some(_),
                ..
            }
        ));
        let spec = PlayerSpec::parse("neural:ply=2,filters=8:0.16/8:0.2/2:0.04").unwrap();
        assert_eq!(spec.name(), "neural:ply=2,filters=8:0.16/8:0.2/2:0.04");
        match spec {
            PlayerSpec::Neural {
                filters: Some(f), ..
            } => assert_eq!(
                f[1],
                MoveFilter {
                    keep: 8,
                    margin: 0.2
                }
            ),
            other => panic!("{other:?}"),
        }
        match PlayerSpec::parse("ubgi:gnubg -t --ubgi").unwrap() {
            PlayerSpec::Ubgi { command } => assert_eq!(command, "gnubg -t --ubgi"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn loads_config_files_and_names_them() {
        let dir = std::env::temp_dir().join(format!("tavla-cli-players-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("zero.toml");
        HeuristicConfig::untrained().save(&file).unwrap();
        let text = format!("heuristic-1ply:{}", file.display());
        let spec = PlayerSpec::parse(&text).unwrap();
        assert_eq!(spec.name(), text);
        match &spec {
            PlayerSpec::HeuristicLookahead { config, .. } => {
                assert_eq!(*config, HeuristicConfig::untrained());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(spec.create(1, Rules::Standard).unwrap().name(), text);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pruning_is_the_default_and_networks_load_and_are_named() {
        let dir = std::env::temp_dir().join(format!("tavla-cli-prune-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("small.tnn");
        std::fs::write(&file, Weights::random(8, 8, 1).to_bytes()).unwrap();
        let text = format!("neural:ply=1,prune={}", file.display());
        let spec = PlayerSpec::parse(&text).unwrap();
        assert_eq!(spec.name(), text);
        let text = format!("neural:ply=1,prune={},keep=2", file.display());
        let spec = PlayerSpec::parse(&text).unwrap();
        assert_eq!(spec.name(), text);
        match &spec {
            PlayerSpec::Neural {
                prune: Some((p, _)),
                ..
            } => assert_eq!(p.keep, 2),
            other => panic!("{other:?}"),
        }
        assert_eq!(spec.create(1, Rules::Standard).unwrap().name(), text);
        std::fs::remove_dir_all(&dir).unwrap();
        // The embedded networks keeping DEFAULT_KEEP are the default, and `prune` names them.
        for text in [
            "neural:ply=2",
            "neural:ply=2,prune",
            "neural:ply=2,prune,keep=4",
        ] {
            let spec = PlayerSpec::parse(text).unwrap();
            assert_eq!(spec.name(), "neural:ply=2");
            match &spec {
                PlayerSpec::Neural {
                    prune: Some((p, None)),
                    ..
                } => assert_eq!(p.keep, DEFAULT_KEEP),
                other => panic!("{other:?}"),
            }
        }
        let spec = PlayerSpec::parse("neural:ply=2,keep=3").unwrap();
        assert_eq!(spec.name(), "neural:ply=2,keep=3");
        let spec = PlayerSpec::parse("neural:ply=2,no-prune").unwrap();
        assert_eq!(spec.name(), "neural:ply=2,no-prune");
        assert!(matches!(spec, PlayerSpec::Neural { prune: None, .. }));
    }

    #[test]
    fn bad_players_say_what_is_wrong() {
        for (text, want) in [
            ("randm", "expected random, heuristic[:FILE]"),
            ("random:x", "expected random"),
            ("heuristic:", "no file after `:`"),
            (
                "heuristic:/no/such/file.toml",
                "cannot read heuristic config /no/such/file.toml",
            ),
            ("ubgi:", "give the engine's command"),
            ("neural:ply=7", "ply `7` is not 0 to 3"),
            ("neural:depth=2", "unknown option `depth=2`"),
            ("neural:cube-ply=4", "cube-ply `4` is not 0 to 3"),
            ("neural:weights=/no/such.tnn", "/no/such.tnn"),
            ("neural:filters=8:0.16", "give 3 filters"),
            ("neural:filters=8:0.16/0:1/2:0.04", "filter `0:1`"),
            ("neural:filters=8:0.16/3:x/2:0.04", "filter `3:x`"),
            (
                "neural:ply=2,no-prune,keep=3",
                "no-prune cannot be given with prune=FILE or keep=K",
            ),
            (
                "neural:no-prune,prune=x.tnn",
                "no-prune cannot be given with prune=FILE or keep=K",
            ),
            ("neural:prune=/no/such.tnn", "prune: "),
            // Review (fifty-eighth round): the second ply was taken, the first dropped, and
            // the later of two opposites won.
            ("neural:ply=1,ply=2", "`ply` is given twice"),
            (
                "neural:bearoff,no-bearoff",
                "`bearoff` and `no-bearoff` say the opposite",
            ),
            (
                "neural:no-prune,prune",
                "`prune` and `no-prune` say the opposite",
            ),
            (
                "neural:prune=/no/such.tnn,keep=0",
                "keep `0` is not 1 to 64",
            ),
        ] {
            let err = PlayerSpec::parse(text).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("invalid player `{text}`")),
                "{err}"
            );
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
