//! The default databases, built on first use and kept in a cache directory.
//!
//! The directory is, in order of preference:
//!
//! 1. `$TAVLA_DATA_DIR` when set and not empty;
//! 2. the platform's cache directory: `$XDG_CACHE_HOME/tavla` or `~/.cache/tavla` on Linux and
//!    other Unix systems, `~/Library/Caches/tavla` on macOS, `%LOCALAPPDATA%\tavla\cache` on
//!    Windows.
//!
//! File names carry the kind, the shape and the format version
//! (`bearoff-os-6x15.v1.tbo`, `bearoff-ts-6x8.v1.tbo`, and the cubeful two-sided table
//! `bearoff-ts-6x6-cubeful.v1.tbo`). A file that is missing, unreadable,
//! corrupt or of another shape is rebuilt and replaced (written to a temporary file and renamed,
//! so concurrent processes never read half a file). Nothing is committed to the repository: the
//! default 6 × 15 one-sided database takes well under a second to build.

use std::path::{Path, PathBuf};

use crate::error::DbError;
use crate::format::VERSION;
use crate::one_sided::OneSidedDb;
use crate::two_sided::{TwoSidedDb, TwoSidedOptions};

/// The environment variable that overrides the cache directory.
pub const DATA_DIR_ENV: &str = "TAVLA_DATA_DIR";

/// Shape (points, checkers) of the default one-sided database.
pub const DEFAULT_ONE_SIDED: (usize, usize) = (6, 15);

/// Shape (points, checkers) of the default two-sided database.
pub const DEFAULT_TWO_SIDED: (usize, usize) = (6, 8);

/// Shape (points, checkers) of the default two-sided database with cubeful money equities
/// (the shape of gnubg's own exact cubeful table: its positions are the short bearoffs where
/// the last rolls decide the cube, and it takes about 14 MB).
pub const DEFAULT_CUBEFUL_TWO_SIDED: (usize, usize) = (6, 6);

/// How a database was obtained from the cache.
#[derive(Debug)]
pub enum CacheOutcome {
    /// Read from the cache file.
    Loaded,
    /// There was no file: built and saved.
    Built,
    /// The file could not be used (the error says why): built again and saved.
    Rebuilt(DbError),
    /// Built, but the file could not be written (the error says why); the database is fine,
    /// it will be built again next time.
    NotSaved(DbError),
}

/// The cache directory (see the [module docs](self)).
///
/// # Errors
/// [`DbError::NoCacheDir`] when neither the variable nor a home directory is known.
pub fn data_dir() -> Result<PathBuf, DbError> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var(DATA_DIR_ENV) {
        return Ok(dir);
    }
    let dir = if cfg!(windows) {
        var("LOCALAPPDATA").map(|d| d.join("tavla").join("cache"))
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|h| h.join("Library").join("Caches").join("tavla"))
    } else {
        var("XDG_CACHE_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".cache")))
            .map(|d| d.join("tavla"))
    };
    dir.ok_or(DbError::NoCacheDir)
}

/// The file name of a cached one-sided database.
#[must_use]
pub fn one_sided_file_name(points: usize, checkers: usize) -> String {
    format!("bearoff-os-{points}x{checkers}.v{VERSION}.tbo")
}

/// The file name of a cached two-sided database.
#[must_use]
pub fn two_sided_file_name(points: usize, checkers: usize) -> String {
    format!("bearoff-ts-{points}x{checkers}.v{VERSION}.tbo")
}

/// The file name of a cached two-sided database with cubeful money equities.
#[must_use]
pub fn cubeful_two_sided_file_name(points: usize, checkers: usize) -> String {
    format!("bearoff-ts-{points}x{checkers}-cubeful.v{VERSION}.tbo")
}

/// Loads the one-sided database of the shape from `dir`, or builds and saves it.
///
/// # Errors
/// [`DbError`] only when the shape cannot be built; file problems lead to a rebuild and are
/// reported in the [`CacheOutcome`].
pub fn one_sided_in(
    dir: &Path,
    points: usize,
    checkers: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(OneSidedDb, CacheOutcome), DbError> {
    let path = dir.join(one_sided_file_name(points, checkers));
    load_or_build(
        || {
            let db = OneSidedDb::load(&path)?;
            check_shape(&path, db.points(), db.checkers(), points, checkers)?;
            Ok(db)
        },
        || Ok(OneSidedDb::build_with_progress(points, checkers, progress)?),
        |db| db.save(&path),
    )
}

/// Loads the two-sided database of the shape from `dir`, or builds and saves it.
///
/// # Errors
/// As [`one_sided_in`].
pub fn two_sided_in(
    dir: &Path,
    points: usize,
    checkers: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(TwoSidedDb, CacheOutcome), DbError> {
    two_sided_with(dir, points, checkers, TwoSidedOptions::default(), progress)
}

/// Loads the two-sided database of the shape with cubeful money equities from `dir`, or
/// builds and saves it (under [`cubeful_two_sided_file_name`]).
///
/// # Errors
/// As [`one_sided_in`].
pub fn cubeful_two_sided_in(
    dir: &Path,
    points: usize,
    checkers: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(TwoSidedDb, CacheOutcome), DbError> {
    two_sided_with(
        dir,
        points,
        checkers,
        TwoSidedOptions { cubeful: true },
        progress,
    )
}

fn two_sided_with(
    dir: &Path,
    points: usize,
    checkers: usize,
    options: TwoSidedOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(TwoSidedDb, CacheOutcome), DbError> {
    let name = if options.cubeful {
        cubeful_two_sided_file_name(points, checkers)
    } else {
        two_sided_file_name(points, checkers)
    };
    let path = dir.join(name);
    load_or_build(
        || {
            let db = TwoSidedDb::load(&path)?;
            check_shape(&path, db.points(), db.checkers(), points, checkers)?;
            if db.is_cubeful() != options.cubeful {
                return Err(DbError::CubefulMismatch {
                    path: path.clone(),
                    cubeful: options.cubeful,
                });
            }
            Ok(db)
        },
        || Ok(TwoSidedDb::build_with(points, checkers, options, progress)?.0),
        |db| db.save(&path),
    )
}

/// The default one-sided database (6 points × 15 checkers) from [`data_dir`].
///
/// # Errors
/// [`DbError::NoCacheDir`] when there is no cache directory.
pub fn default_one_sided() -> Result<(OneSidedDb, CacheOutcome), DbError> {
    let (p, c) = DEFAULT_ONE_SIDED;
    one_sided_in(&data_dir()?, p, c, &mut |_, _| {})
}

/// The default two-sided database (6 points × 8 checkers) from [`data_dir`].
///
/// # Errors
/// [`DbError::NoCacheDir`] when there is no cache directory.
pub fn default_two_sided() -> Result<(TwoSidedDb, CacheOutcome), DbError> {
    let (p, c) = DEFAULT_TWO_SIDED;
    two_sided_in(&data_dir()?, p, c, &mut |_, _| {})
}

/// The default two-sided database with cubeful money equities (6 points × 6 checkers) from
/// [`data_dir`].
///
/// # Errors
/// [`DbError::NoCacheDir`] when there is no cache directory.
pub fn default_cubeful_two_sided() -> Result<(TwoSidedDb, CacheOutcome), DbError> {
    let (p, c) = DEFAULT_CUBEFUL_TWO_SIDED;
    cubeful_two_sided_in(&data_dir()?, p, c, &mut |_, _| {})
}

fn check_shape(
    path: &Path,
    found_points: usize,
    found_checkers: usize,
    points: usize,
    checkers: usize,
) -> Result<(), DbError> {
    if (found_points, found_checkers) == (points, checkers) {
        Ok(())
    } else {
        Err(DbError::ShapeMismatch {
            path: path.to_path_buf(),
            found_points: found_points as u8,
            found_checkers: found_checkers as u8,
            points: points as u8,
            checkers: checkers as u8,
        })
    }
}

fn load_or_build<T>(
    load: impl FnOnce() -> Result<T, DbError>,
    build: impl FnOnce() -> Result<T, DbError>,
    save: impl FnOnce(&T) -> Result<(), DbError>,
) -> Result<(T, CacheOutcome), DbError> {
    let why = match load() {
        Ok(db) => return Ok((db, CacheOutcome::Loaded)),
        Err(DbError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => Some(e),
    };
    let db = build()?;
    let outcome = match (save(&db), why) {
        (Err(e), _) => CacheOutcome::NotSaved(e),
        (Ok(()), None) => CacheOutcome::Built,
        (Ok(()), Some(e)) => CacheOutcome::Rebuilt(e),
    };
    Ok((db, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tavla-bearoff-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn builds_then_loads_then_repairs() {
        let dir = temp_dir("cache");
        let (a, o) = one_sided_in(&dir, 5, 4, &mut |_, _| {}).unwrap();
        assert!(matches!(o, CacheOutcome::Built), "{o:?}");
        let (b, o) = one_sided_in(&dir, 5, 4, &mut |_, _| {}).unwrap();
        assert!(matches!(o, CacheOutcome::Loaded), "{o:?}");
        assert_eq!(a, b);
        // Damage the file: it is refused with a checksum error and rebuilt.
        let path = dir.join(one_sided_file_name(5, 4));
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&path, &bytes).unwrap();
        let (c, o) = one_sided_in(&dir, 5, 4, &mut |_, _| {}).unwrap();
        match o {
            CacheOutcome::Rebuilt(DbError::Format {
                source: crate::FormatError::Checksum { .. },
                ..
            }) => {}
            other => panic!("expected a rebuild, got {other:?}"),
        }
        assert_eq!(a, c);
        let (_, o) = two_sided_in(&dir, 3, 3, &mut |_, _| {}).unwrap();
        assert!(matches!(o, CacheOutcome::Built), "{o:?}");
        let (_, o) = two_sided_in(&dir, 3, 3, &mut |_, _| {}).unwrap();
        assert!(matches!(o, CacheOutcome::Loaded), "{o:?}");
        // The cubeful table has its own file; a cubeless one in its place is rebuilt.
        let (db, o) = cubeful_two_sided_in(&dir, 3, 3, &mut |_, _| {}).unwrap();
        assert!(matches!(o, CacheOutcome::Built) && db.is_cubeful(), "{o:?}");
        let (db, o) = cubeful_two_sided_in(&dir, 3, 3, &mut |_, _| {}).unwrap();
        assert!(
            matches!(o, CacheOutcome::Loaded) && db.is_cubeful(),
            "{o:?}"
        );
        std::fs::copy(
            dir.join(two_sided_file_name(3, 3)),
            dir.join(cubeful_two_sided_file_name(3, 3)),
        )
        .unwrap();
        let (db, o) = cubeful_two_sided_in(&dir, 3, 3, &mut |_, _| {}).unwrap();
        assert!(
            matches!(o, CacheOutcome::Rebuilt(DbError::CubefulMismatch { .. })) && db.is_cubeful(),
            "{o:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_names_carry_shape_and_version() {
        assert_eq!(one_sided_file_name(6, 15), "bearoff-os-6x15.v1.tbo");
        assert_eq!(two_sided_file_name(6, 8), "bearoff-ts-6x8.v1.tbo");
        assert_eq!(
            cubeful_two_sided_file_name(6, 6),
            "bearoff-ts-6x6-cubeful.v1.tbo"
        );
    }
}
