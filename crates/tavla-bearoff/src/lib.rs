//! Bearoff databases for tavla, numbered by the Benjamin–Ross perfect hash.
//!
//! In a race where both sides are bearing off, backgammon can be played perfectly from a table.
//! Following Arthur Benjamin and Andrew M. Ross, "Enumerating Backgammon Positions: The Perfect
//! Hash", every one-sided position is numbered without gaps ([`PerfectHash`]), and since every
//! legal play leads to a smaller number, the databases are filled by dynamic programming in
//! index order, with no recursion.
//!
//! * [`OneSided`]: one side's checkers on its points 1 (ace) and up; [`Dice`]: a roll.
//! * [`PerfectHash`]: rank and unrank for any number of points and checkers.
//! * [`OneSidedDb`]: for every position, the distribution of the number of rolls to bear off
//!   (playing to minimise its mean), its mean, standard deviation and EPC, and the distribution
//!   of the rolls to bear off the first checker.
//! * [`TwoSidedDb`]: the exact cubeless probability that the side on roll wins, playing to
//!   maximise it, with [`PolicyStats`] comparing the two policies.
//! * [`MatchTable`]: exact cubeful match play in short bearoffs at one score, solved over the
//!   positions that can arise from a starting pair ([`match_play`]).
//! * [`bearoff_plays`] and [`analyse`]: the legal plays of a roll, ranked under both policies.
//! * [`cache`]: the default 6 × 15 one-sided (and 6 × 8 two-sided) databases, built on first
//!   use and kept in a cache directory.
//! * [`format`](mod@format): the versioned file format (magic, version, shape, kind, checksum).
//! * [`gnubg_compat`]: the same dynamic programme in gnubg's 16-bit arithmetic, which
//!   reproduces gnubg's own one-sided database (a check against an independent program).
//!
//! Feature `plot` (off by default) adds `plot`, which draws the paper's figures as
//! PNG files with the plotters crate.
//!
//! ```
//! use tavla_bearoff::{analyse, Dice, OneSided, OneSidedDb, TwoSidedDb};
//!
//! let os = OneSidedDb::build(6, 15)?;
//! let pos: OneSided = "3,3,2,0,2,1".parse()?;
//! let e = os.lookup(&pos)?;
//! assert_eq!(e.index, 8_887);
//! println!("mean rolls {:.4}, EPC {:.3}", e.mean_rolls, e.epc());
//!
//! // Perfect play in a small race: 6-1 with checkers on my 5- and 4-points.
//! let (ts, _stats) = TwoSidedDb::build(6, 3)?;
//! let me: OneSided = "0,0,0,1,1".parse()?;
//! let opp: OneSided = "1,1".parse()?;
//! let a = analyse(&me, &opp, "61".parse::<Dice>()?, &os, Some(&ts))?;
//! println!("{} (wins {:.4})", a.best_for_winning().unwrap().play, a.plays[0].win_probability.unwrap());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod best;
pub mod cache;
mod dice;
mod error;
pub mod format;
pub mod gnubg_compat;
mod hash;
pub mod match_play;
mod movegen;
mod one_sided;
#[cfg(feature = "plot")]
pub mod plot;
mod position;
mod two_sided;

/// The most points a one-sided position can have checkers on (a side's whole board).
pub const MAX_POINTS: usize = 24;

pub use best::{analyse, Analysis, RankedPlay};
pub use dice::Dice;
pub use error::{
    DbError, DiceError, FormatError, IndexError, ParsePositionError, PositionError, ProbeError,
    ShapeError,
};
pub use hash::{PerfectHash, MAX_CHECKERS};
pub use match_play::{Holder, MatchGame, MatchTable, PlayTable, SolveError, MAX_LEVELS};
pub use movegen::{bearoff_plays, BearoffPlay, CheckerMove};
pub use one_sided::{OneSidedDb, OneSidedEntry, RollDistribution, MAX_DB_CHECKERS, PIPS_PER_ROLL};
pub use position::OneSided;
pub use two_sided::{
    CubeDecision, CubefulEquities, PolicyStats, TwoSidedDb, TwoSidedOptions, POLICY_EPSILON,
};
