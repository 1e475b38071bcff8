//! Race values from tavla's bearoff databases.
//!
//! When both sides have all their remaining checkers in their home boards, the race is two
//! independent bearoffs, and the databases value it without the race network:
//!
//! * **Exact** ([`tavla_bearoff::TwoSidedDb`], 6 points × 8 checkers by default): with no more
//!   than 8 checkers left each side has borne off at least 7, so no gammon is possible; the
//!   database's cubeless probability of winning is exact, both sides playing to win.
//! * **One-sided** ([`tavla_bearoff::OneSidedDb`], 6 points × 15 checkers by default): the
//!   distributions of the number of rolls each side needs to bear off all its checkers, and to
//!   bear off its first one, give the probabilities of winning and of gammons. The side on roll
//!   needing `n` rolls wins when the opponent needs `n` or more:
//!   `win = Σ P(mine = n) P(theirs >= n)`; it wins a gammon when the opponent, with no checker
//!   off yet, needs `n` or more rolls to bear off its first checker; it loses a gammon when it
//!   has none off and needs more than `m` rolls for its first while the opponent needs `m` for
//!   all. Each side is assumed to play each bearoff to minimise its expected rolls (or its
//!   expected rolls to the first checker, for the gammon terms), independently of the other:
//!   an approximation, close because a bearoff leaves little to choose (measured in
//!   `docs/neural.md`, "Exact values and the bearoff databases"). Backgammons are impossible
//!   with every checker in its own home board.
//!
//! [`BearoffRace::probe`] uses the exact database where it covers the position and the
//! one-sided one otherwise. Before either, it looks for a side on roll that bears off all its
//! checkers with every roll ([`BearoffRace::wins_this_roll`]): that game is decided whatever
//! the opponent's position, which the databases need not cover (a gammon saved or not, the
//! last rolls of a bearoff against checkers still coming home).

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use tavla_bearoff::cache::CacheOutcome;
use tavla_bearoff::{
    CubefulEquities, DbError, Holder, MatchGame, MatchTable, OneSided, OneSidedDb, PerfectHash,
    PlayTable, RollDistribution, TwoSidedDb,
};
use tavla_core::Position;

use crate::cube::{CubeHolder, MAX_CUBE};
use crate::met::MatchScore;
use crate::probs::Probabilities;

/// The bearoff databases as an evaluator of the races they cover.
///
/// Each database is given ([`BearoffRace::new`], [`BearoffRace::with_one_sided`],
/// [`BearoffRace::with_cubeful`]) or loaded the first time a probe needs it
/// ([`BearoffRace::default_databases`], [`BearoffRace::with_lazy_cubeful`]): most
/// processes that value a position never meet a race (a hint in the opening), and reading
/// the default databases (54 MB) took about 50 ms of every such command. Long-lived
/// programs that want even times load them all at the start ([`BearoffRace::preload`]).
#[derive(Debug, Default)]
pub struct BearoffRace {
    two_sided: Source<TwoSidedDb>,
    one_sided: Source<OneSidedDb>,
    /// A two-sided database with cubeful money equities, for cube decisions.
    cubeful: Source<TwoSidedDb>,
    /// Exact match play in the same short bearoffs, solved at each score when first needed.
    matches: MatchTables,
}

/// The most checkers a side may have for exact match play in a bearoff
/// ([`BearoffRace::match_exact`]): the short bearoffs of the cubeful money database.
pub const MATCH_CHECKERS: usize = 6;

/// The most values a match table solved for one decision may hold
/// ([`MatchTable::size`]): 4 million, 16 MB and about 0.4 s on one core.
/// Larger bearoffs are left to the model until they have shrunk to this.
pub const MATCH_TABLE_LIMIT: u64 = 4_000_000;

/// Match tables kept, the most recently used first.
const MATCH_TABLES_KEPT: usize = 4;

/// Exact match play in short bearoffs: the plays of every position of 6 points and
/// [`MATCH_CHECKERS`] checkers, and the tables solved recently, one per score and cube.
#[derive(Default)]
struct MatchTables {
    /// Off unless the bearoff databases of cube decisions are (the cubeful source).
    on: bool,
    plays: OnceLock<MatchPlays>,
    recent: Mutex<Vec<Arc<KeyedTable>>>,
}

impl fmt::Debug for MatchTables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kept = self.recent.lock().map_or(0, |r| r.len());
        f.debug_struct("MatchTables")
            .field("on", &self.on)
            .field("kept", &kept)
            .finish()
    }
}

/// The plays of the short bearoffs, and how many positions can arise from each.
struct MatchPlays {
    hash: PerfectHash,
    plays: PlayTable,
    reachable: Vec<u32>,
}

impl MatchPlays {
    fn new() -> MatchPlays {
        let hash = PerfectHash::new(6, MATCH_CHECKERS).expect("a valid shape");
        let plays = PlayTable::new(&hash);
        let n = plays.positions();
        // Each position's count of positions that can arise from it, one walk each.
        let mut seen = vec![u32::MAX; n];
        let mut stack = Vec::new();
        let reachable = (0..n)
            .map(|root| {
                let mark = root as u32;
                let mut count = 1u32;
                seen[root] = mark;
                stack.push(root);
                while let Some(x) = stack.pop() {
                    for r in 0..21 {
                        for &c in plays.of(x, r) {
                            if seen[c as usize] != mark {
                                seen[c as usize] = mark;
                                count += 1;
                                stack.push(c as usize);
                            }
                        }
                    }
                }
                count
            })
            .collect();
        MatchPlays {
            hash,
            plays,
            reachable,
        }
    }
}

/// A match table and what it was solved for: its side 0's score, the cube's value at level 0
/// and who held it there.
struct KeyedTable {
    score: MatchScore,
    cube: u32,
    table: MatchTable,
}

/// The exact chances of a side on roll in a short bearoff at a match score
/// ([`BearoffRace::match_exact`]).
pub struct MatchExact<'a> {
    plays: &'a PlayTable,
    table: Arc<KeyedTable>,
    on_roll: usize,
    /// The table's level of the cube asked for.
    level: usize,
    /// Who holds the cube asked for, seen from the side on roll.
    holder: CubeHolder,
    x: u64,
    y: u64,
}

impl fmt::Debug for MatchExact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MatchExact")
            .field("score", &self.table.score)
            .field("cube", &self.table.cube)
            .field("on_roll", &self.on_roll)
            .field("level", &self.level)
            .field("holder", &self.holder)
            .field("x", &self.x)
            .field("y", &self.y)
            .finish()
    }
}

/// The table's holder of a [`CubeHolder`].
fn table_holder(h: CubeHolder) -> Holder {
    match h {
        CubeHolder::Centre => Holder::Centre,
        CubeHolder::OnRoll => Holder::OnRoll,
        CubeHolder::Opponent => Holder::Opponent,
    }
}

impl MatchExact<'_> {
    /// The side on roll's chances of winning the match if it does not double now, `[k][h]`
    /// with the cube on the asked value times `2^k` held by the holder of index `h`, where
    /// the game can reach that cube from the one asked for (`None` elsewhere: another holder
    /// of the same value, or the middle once doubled). At the table's highest level nobody
    /// may double, so every holder has the same chances there, and levels beyond it are the
    /// same again (a win there ends the match as at the highest).
    #[must_use]
    pub fn no_doubles<const N: usize>(&self) -> [[Option<f32>; 3]; N] {
        let t = &self.table.table;
        let nd = t
            .no_doubles(self.plays, self.on_roll, self.x, self.y)
            .expect("the pair is in the table");
        let top = t.levels() - 1;
        // The one state of the highest level, whoever holds the cube there.
        let top_state = if top == 0 { 0 } else { 2 * top - 1 };
        std::array::from_fn(|k| {
            let level = self.level + k;
            std::array::from_fn(|h| {
                if level >= top {
                    return Some(nd[top_state]);
                }
                // Above the cube asked for, only held cubes; at it, only its holder.
                let holder = CubeHolder::ALL[h];
                let reached = if k == 0 {
                    holder == self.holder
                } else {
                    holder != CubeHolder::Centre
                };
                let state = t.state(self.on_roll, level, table_holder(holder))?;
                reached.then(|| nd[state])
            })
        })
    }

    /// The side on roll's chance of winning the match with its best cube action, with the
    /// cube as asked for.
    #[must_use]
    pub fn with_action(&self) -> f32 {
        let t = &self.table.table;
        let at = t.with_action(
            self.on_roll,
            self.x,
            self.y,
            self.level,
            table_holder(self.holder),
        );
        at.expect("the pair and the cube are in the table") as f32
    }
}

/// The match game of a score (side 0's) with the cube's value `cube` at level 0 held by
/// `owner`: as many levels as doubles can reach, up to the first where nobody may double.
fn match_game(score: MatchScore, cube: u32, owner: Option<usize>) -> MatchGame {
    let sides = [score, score.flip()];
    let mut game = MatchGame {
        win: [Vec::new(), Vec::new()],
        may_double: [Vec::new(), Vec::new()],
        owner,
    };
    let mut v = cube.clamp(1, MAX_CUBE);
    loop {
        let mut any = false;
        for (s, side) in sides.iter().enumerate() {
            let may = side.cube_in_play() && v < side.me && v < MAX_CUBE;
            any |= may;
            game.win[s].push(f64::from(side.after(v, 0)));
            game.may_double[s].push(may);
        }
        if !any {
            return game;
        }
        v *= 2;
    }
}

/// How a process learns how a database it loads on first use was obtained
/// ([`BearoffRace::default_databases_reported`]): which database ("two-sided bearoff",
/// "one-sided bearoff", "cubeful two-sided bearoff"), and the cache's outcome (`None` where
/// there is no cache folder and it was built in memory) or the error that left its positions
/// to the networks. It is called while the database is being loaded, so it must not probe
/// the same [`BearoffRace`] (that would wait for itself).
pub type LoadReport =
    Arc<dyn Fn(&'static str, Result<Option<CacheOutcome>, &DbError>) + Send + Sync>;

/// A loader run once, on first use.
type Loader<T> = Box<dyn Fn() -> Option<T> + Send + Sync>;

/// Where a database comes from: none, one at hand, or one loaded the first time a probe
/// asks for it.
#[derive(Default)]
enum Source<T> {
    #[default]
    None,
    Ready(T),
    Lazy {
        /// The most checkers a side has in the positions the database holds: a probe of a
        /// race with more does not load it.
        checkers: usize,
        load: Loader<T>,
        db: OnceLock<Option<T>>,
    },
}

impl<T> Source<T> {
    fn lazy(checkers: usize, load: Loader<T>) -> Source<T> {
        Source::Lazy {
            checkers,
            load,
            db: OnceLock::new(),
        }
    }

    /// The database for a race of `checkers` checkers on the larger side: a lazy one is
    /// loaded (once, whichever thread asks first) only when it can hold such a race.
    fn get(&self, checkers: usize) -> Option<&T> {
        match self {
            Source::None => None,
            Source::Ready(db) => Some(db),
            Source::Lazy { checkers: most, .. } if checkers > *most => None,
            Source::Lazy { load, db, .. } => db.get_or_init(load).as_ref(),
        }
    }

    /// Whether the database is in memory: given, or loaded by a first probe.
    fn loaded(&self) -> bool {
        match self {
            Source::None => false,
            Source::Ready(_) => true,
            Source::Lazy { db, .. } => db.get().is_some_and(Option::is_some),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Source<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::None => f.write_str("None"),
            Source::Ready(db) => f.debug_tuple("Ready").field(db).finish(),
            Source::Lazy { checkers, db, .. } => f
                .debug_struct("Lazy")
                .field("checkers", checkers)
                .field("db", db)
                .finish(),
        }
    }
}

/// The cached database, or where there is no cache folder one built in memory.
fn cached_or_built<T>(
    cached: Result<(T, CacheOutcome), DbError>,
    build: impl FnOnce() -> Result<T, DbError>,
) -> Result<(T, Option<CacheOutcome>), DbError> {
    match cached {
        Ok((db, outcome)) => Ok((db, Some(outcome))),
        Err(DbError::NoCacheDir) => Ok((build()?, None)),
        Err(e) => Err(e),
    }
}

/// The checkers on the board of the side of a race that has more.
fn most_checkers(me: &OneSided, opp: &OneSided) -> usize {
    me.checkers().max(opp.checkers()) as usize
}

/// The checkers of both sides of a race with every checker in its home board, in the
/// databases' numbering (index 0 is the side's 1-point): `None` when a checker is outside its
/// home board or on the bar, or the game is over.
fn home_boards(pos: &Position) -> Option<([u8; 6], [u8; 6])> {
    if pos.is_game_over() {
        return None;
    }
    let b = pos.signed_board();
    if b[tavla_core::BAR] != 0 || b[tavla_core::OPPONENT_BAR] != 0 {
        return None;
    }
    let mut mine = [0u8; 6];
    let mut theirs = [0u8; 6];
    for p in 1..=24usize {
        let n = b[p];
        if n > 0 {
            if p > 6 {
                return None;
            }
            mine[p - 1] = n as u8;
        } else if n < 0 {
            let q = 25 - p;
            if q > 6 {
                return None;
            }
            theirs[q - 1] = (-n) as u8;
        }
    }
    Some((mine, theirs))
}

/// `Σ_n P(a = n) P(b >= n)`: the probability that a side needing `a` rolls, rolling first,
/// finishes no later than a side needing `b`.
fn first_finishes(a: &RollDistribution<'_>, b: &RollDistribution<'_>) -> f64 {
    let mut sum = 0.0;
    // P(b >= next)
    let mut tail = 1.0;
    let mut next = 0;
    for (n, p) in a.iter() {
        while next < n {
            tail -= b.probability(next);
            next += 1;
        }
        sum += p * tail;
    }
    sum
}

impl BearoffRace {
    /// Exact values from `db` only.
    #[must_use]
    pub fn new(db: TwoSidedDb) -> BearoffRace {
        BearoffRace {
            two_sided: Source::Ready(db),
            ..BearoffRace::default()
        }
    }

    /// Exact cubeful money equities from `db` where it covers a race (ignored unless `db`
    /// holds them, [`TwoSidedDb::is_cubeful`]).
    #[must_use]
    pub fn with_cubeful(mut self, db: TwoSidedDb) -> BearoffRace {
        self.cubeful = if db.is_cubeful() {
            Source::Ready(db)
        } else {
            Source::None
        };
        self.matches.on = matches!(self.cubeful, Source::Ready(_));
        self
    }

    /// Exact cubeful money equities from the database `load` gives, of at most `checkers`
    /// checkers a side, called the first time a cube decision probes a race it can cover
    /// (once, whichever thread asks first); a database without them, or `None`, leaves the
    /// cube decisions to the model.
    #[must_use]
    pub fn with_lazy_cubeful(
        mut self,
        checkers: usize,
        load: impl Fn() -> Option<TwoSidedDb> + Send + Sync + 'static,
    ) -> BearoffRace {
        self.cubeful = Source::lazy(
            checkers,
            Box::new(move || load().filter(TwoSidedDb::is_cubeful)),
        );
        self.matches.on = true;
        self
    }

    /// One-sided values from `db` where the exact database (if any) does not reach.
    #[must_use]
    pub fn with_one_sided(mut self, db: OneSidedDb) -> BearoffRace {
        self.one_sided = Source::Ready(db);
        self
    }

    /// The effective pip count of a side whose checkers are all in its home board
    /// (`home[i]` on its `i + 1`-point), from the one-sided database: its expected rolls to
    /// bear them all off, times 49/6 pips a roll. `None` without the database or with no
    /// checker left.
    #[must_use]
    pub fn epc(&self, home: &[u8; 6]) -> Option<f64> {
        let side = OneSided::new(home).ok()?;
        if side.checkers() == 0 {
            return None;
        }
        self.one_sided
            .get(side.checkers() as usize)?
            .epc(&side)
            .ok()
    }

    /// Whether the cubeful database is in memory: given, or loaded by a first probe.
    #[must_use]
    pub fn cubeful_loaded(&self) -> bool {
        self.cubeful.loaded()
    }

    /// Whether each database is in memory (two-sided, one-sided, cubeful): given, or loaded
    /// by a first probe or [`BearoffRace::preload`].
    #[must_use]
    pub fn loaded(&self) -> [bool; 3] {
        [
            self.two_sided.loaded(),
            self.one_sided.loaded(),
            self.cubeful.loaded(),
        ]
    }

    /// Loads every database that is loaded on first use now, so that no later probe waits
    /// for one: for programs that answer a controller under a clock (UBGI, the
    /// external-player socket, the HTTP API) or must know at the start that every database is
    /// there ([`BearoffRace::loaded`]).
    pub fn preload(&self) {
        // Asked for a race of no checkers, which every database can hold: each is loaded.
        self.two_sided.get(0);
        self.one_sided.get(0);
        self.cubeful.get(0);
    }

    /// The default databases (two-sided 6 × 8, one-sided 6 × 15, and two-sided 6 × 6 with
    /// cubeful money equities), each loaded when a probe first needs it from the cache, or
    /// built and cached the first time (see `tavla_bearoff::cache`; a few seconds). Where
    /// there is no cache folder they are built in memory. A database that can be neither
    /// loaded nor built leaves its positions to the networks.
    #[must_use]
    pub fn default_databases() -> BearoffRace {
        BearoffRace::default_databases_reported(Arc::new(|_, _| {}))
    }

    /// As [`BearoffRace::default_databases`], with `report` told how each database was
    /// obtained when it is loaded, so that a program can say when the cache did not serve
    /// or a database could not be had.
    #[must_use]
    pub fn default_databases_reported(report: LoadReport) -> BearoffRace {
        use tavla_bearoff::cache::{
            self, DEFAULT_CUBEFUL_TWO_SIDED, DEFAULT_ONE_SIDED, DEFAULT_TWO_SIDED,
        };
        use tavla_bearoff::TwoSidedOptions;
        /// A loader for the database named `what`: from the cache, or built; said to `report`.
        fn loader<T: 'static>(
            what: &'static str,
            report: &LoadReport,
            cached: fn() -> Result<(T, CacheOutcome), DbError>,
            build: fn() -> Result<T, DbError>,
        ) -> Loader<T> {
            let report = report.clone();
            Box::new(move || match cached_or_built(cached(), build) {
                Ok((db, outcome)) => {
                    report(what, Ok(outcome));
                    Some(db)
                }
                Err(e) => {
                    report(what, Err(&e));
                    None
                }
            })
        }
        BearoffRace {
            two_sided: Source::lazy(
                DEFAULT_TWO_SIDED.1,
                loader(
                    "two-sided bearoff",
                    &report,
                    cache::default_two_sided,
                    || Ok(TwoSidedDb::build(DEFAULT_TWO_SIDED.0, DEFAULT_TWO_SIDED.1)?.0),
                ),
            ),
            one_sided: Source::lazy(
                DEFAULT_ONE_SIDED.1,
                loader(
                    "one-sided bearoff",
                    &report,
                    cache::default_one_sided,
                    || Ok(OneSidedDb::build(DEFAULT_ONE_SIDED.0, DEFAULT_ONE_SIDED.1)?),
                ),
            ),
            cubeful: Source::lazy(
                DEFAULT_CUBEFUL_TWO_SIDED.1,
                loader(
                    "cubeful two-sided bearoff",
                    &report,
                    cache::default_cubeful_two_sided,
                    || {
                        let (p, c) = DEFAULT_CUBEFUL_TWO_SIDED;
                        let options = TwoSidedOptions { cubeful: true };
                        Ok(TwoSidedDb::build_with(p, c, options, &mut |_, _| {})?.0)
                    },
                ),
            ),
            matches: MatchTables {
                on: true,
                ..MatchTables::default()
            },
        }
    }

    /// The exact match play of `pos` for the side on roll, before its cube decision, at
    /// `score` (its own) with the cube on `cube` held by `holder`, from a match table already
    /// solved ([`BearoffRace::solve_match`]) that holds the position and the cube; `None`
    /// otherwise. For the inner nodes of searches and the plays of a roll: their tables are
    /// solved from the position at the root, and a position too large for a table should not
    /// have one solved for each of its successors.
    #[must_use]
    pub fn match_exact(
        &self,
        pos: &Position,
        cube: u32,
        holder: CubeHolder,
        score: MatchScore,
    ) -> Option<MatchExact<'_>> {
        self.match_table(pos, cube, holder, score, false)
    }

    /// The exact match play of `pos` for the side on roll, before its cube decision, at
    /// `score` (its own) with the cube on `cube` held by `holder`: where both sides have at most
    /// [`MATCH_CHECKERS`] checkers, all in their home boards, and the positions that can still
    /// arise make a table of at most [`MATCH_TABLE_LIMIT`] values. Both sides play and handle
    /// the cube perfectly over tavla's match equity table (no gammons are possible). The table
    /// is solved on first need (under a millisecond to about 0.4 s) and kept among
    /// the four most recent: every later position of the game is in it, the cube's doubles
    /// included. `None` where the databases of cube decisions are off (given without cubeful
    /// equities).
    #[must_use]
    pub fn solve_match(
        &self,
        pos: &Position,
        cube: u32,
        holder: CubeHolder,
        score: MatchScore,
    ) -> Option<MatchExact<'_>> {
        self.match_table(pos, cube, holder, score, true)
    }

    fn match_table(
        &self,
        pos: &Position,
        cube: u32,
        holder: CubeHolder,
        score: MatchScore,
        solve: bool,
    ) -> Option<MatchExact<'_>> {
        if !self.matches.on {
            return None;
        }
        let (mine, theirs) = home_boards(pos)?;
        let (me, opp) = (OneSided::new(&mine).ok()?, OneSided::new(&theirs).ok()?);
        if most_checkers(&me, &opp) > MATCH_CHECKERS || me.is_empty() || opp.is_empty() {
            return None;
        }
        let plays = self.matches.plays.get_or_init(MatchPlays::new);
        let (x, y) = (plays.hash.rank(&me).ok()?, plays.hash.rank(&opp).ok()?);
        let cube = cube.clamp(1, MAX_CUBE);
        // Where a table holds the pair and the cube: the side on roll's index there, and the
        // cube's level (a table solved before a double holds the cube after it).
        let found = |t: &Arc<KeyedTable>| {
            let level =
                (0..t.table.levels()).find(|&k| t.cube.checked_shl(k as u32) == Some(cube))?;
            [0, 1].into_iter().find_map(|on_roll| {
                let score_there = if on_roll == 0 {
                    t.score
                } else {
                    t.score.flip()
                };
                (score_there == score
                    && t.table
                        .state(on_roll, level, table_holder(holder))
                        .is_some()
                    && t.table.contains(on_roll, x, y))
                .then_some((on_roll, level))
            })
        };
        let exact = |table: Arc<KeyedTable>, (on_roll, level): (usize, usize)| MatchExact {
            plays: &plays.plays,
            table,
            on_roll,
            level,
            holder,
            x,
            y,
        };
        // A kept table that holds the pair, moved to the front.
        let kept = |recent: &mut Vec<Arc<KeyedTable>>| {
            let (i, at) = recent
                .iter()
                .enumerate()
                .find_map(|(i, t)| Some((i, found(t)?)))?;
            let t = recent.remove(i);
            recent.insert(0, t.clone());
            Some((t, at))
        };
        if let Some((t, at)) = kept(&mut *self.matches.recent.lock().ok()?) {
            return Some(exact(t, at));
        }
        if !solve {
            return None;
        }
        // Solved with the side on roll as side 0.
        let owner = match holder {
            CubeHolder::Centre => None,
            CubeHolder::OnRoll => Some(0),
            CubeHolder::Opponent => Some(1),
        };
        let game = match_game(score, cube, owner);
        let values = MatchTable::values(
            u64::from(plays.reachable[x as usize]),
            u64::from(plays.reachable[y as usize]),
            game.win[0].len(),
        );
        if values > MATCH_TABLE_LIMIT {
            return None;
        }
        let table = MatchTable::solve(&plays.plays, [x, y], game, MATCH_TABLE_LIMIT).ok()?;
        let keyed = Arc::new(KeyedTable { score, cube, table });
        let mut recent = self.matches.recent.lock().ok()?;
        // Another thread may have solved the same meanwhile: keep one.
        if let Some((t, at)) = kept(&mut recent) {
            return Some(exact(t, at));
        }
        recent.insert(0, keyed.clone());
        recent.truncate(MATCH_TABLES_KEPT);
        Some(exact(keyed, (0, 0)))
    }

    /// The exact cubeful money equities of `pos` for the side on roll before its cube
    /// decision (per unit of the cube, both sides handling the cube perfectly), when the
    /// cubeful database covers it; `None` otherwise. The database's races are too short for
    /// gammons, so the Jacoby rule changes nothing in them.
    #[must_use]
    pub fn probe_cubeful(&self, pos: &Position) -> Option<CubefulEquities> {
        let (mine, theirs) = home_boards(pos)?;
        let (me, opp) = (OneSided::new(&mine).ok()?, OneSided::new(&theirs).ok()?);
        let db = self.cubeful.get(most_checkers(&me, &opp))?;
        db.cubeful_equities(&me, &opp).ok().flatten()
    }

    /// The probabilities of `pos` for the side on roll, before it rolls, when a database
    /// covers it: exact from the two-sided database, else estimated from the one-sided one;
    /// `None` otherwise (contact, a checker outside its home board, more checkers than the
    /// databases hold, or a finished game).
    #[must_use]
    pub fn probe(&self, pos: &Position) -> Option<Probabilities> {
        if let Some(p) = self.wins_this_roll(pos) {
            return Some(p);
        }
        let (mine, theirs) = home_boards(pos)?;
        let me = OneSided::new(&mine).ok()?;
        let opp = OneSided::new(&theirs).ok()?;
        self.exact(&me, &opp)
            .or_else(|| self.one_sided_estimate(&me, &opp))
    }

    /// The exact result when the side on roll of `pos` bears off all its checkers with every
    /// roll (its checkers all home, and the one-sided database says one roll always does it),
    /// whatever the opponent's position: a win, a gammon when the opponent has borne off
    /// none, a backgammon when in addition it has a checker on the bar or in the winner's home
    /// board. `None` otherwise.
    #[must_use]
    pub fn wins_this_roll(&self, pos: &Position) -> Option<Probabilities> {
        if pos.is_game_over() || pos.bar() > 0 {
            return None;
        }
        let b = pos.signed_board();
        if b[7..=24].iter().any(|&n| n > 0) {
            return None;
        }
        let mut mine = [0u8; 6];
        for (m, &n) in mine.iter_mut().zip(&b[1..=6]) {
            *m = n.max(0) as u8;
        }
        let me = OneSided::new(&mine).ok()?;
        let db = self.one_sided.get(me.checkers() as usize)?;
        let entry = db.lookup(&me).ok()?;
        if entry.distribution.max_rolls() != 1 {
            return None;
        }
        let gammon = pos.opponent_off() == 0;
        let backgammon = gammon && (pos.opponent_bar() > 0 || b[1..=6].iter().any(|&n| n < 0));
        let share = |yes: bool| if yes { 1.0 } else { 0.0 };
        Some(Probabilities {
            win: 1.0,
            win_gammon: share(gammon),
            win_backgammon: share(backgammon),
            lose_gammon: 0.0,
            lose_backgammon: 0.0,
        })
    }

    /// The exact probabilities of `pos` for the side on roll, when the two-sided database
    /// covers it; `None` otherwise (including the races only the one-sided database covers).
    #[must_use]
    pub fn probe_exact(&self, pos: &Position) -> Option<Probabilities> {
        let (mine, theirs) = home_boards(pos)?;
        self.exact(&OneSided::new(&mine).ok()?, &OneSided::new(&theirs).ok()?)
    }

    /// The exact value, when the two-sided database covers both sides.
    #[must_use]
    pub fn exact(&self, me: &OneSided, opp: &OneSided) -> Option<Probabilities> {
        let db = self.two_sided.get(most_checkers(me, opp))?;
        let win = db.win_probability(me, opp).ok()? as f32;
        Some(Probabilities {
            win,
            ..Probabilities::default()
        })
    }

    /// The one-sided estimate, when the one-sided database covers both sides and each has a
    /// checker left.
    #[must_use]
    pub fn one_sided_estimate(&self, me: &OneSided, opp: &OneSided) -> Option<Probabilities> {
        let db = self.one_sided.get(most_checkers(me, opp))?;
        let (mine, theirs) = (db.lookup(me).ok()?, db.lookup(opp).ok()?);
        if mine.distribution.min_rolls() == 0 || theirs.distribution.min_rolls() == 0 {
            return None;
        }
        let none_off = |side: &OneSided| side.checkers() == 15;
        let win = first_finishes(&mine.distribution, &theirs.distribution);
        let win_gammon = if none_off(opp) {
            first_finishes(&mine.distribution, &theirs.first_off)
        } else {
            0.0
        };
        // Gammoned when the side needs more rolls for its first checker than the opponent,
        // rolling second, needs for all of its: 1 - P(first <= theirs).
        let lose_gammon = if none_off(me) {
            1.0 - first_finishes(&mine.first_off, &theirs.distribution)
        } else {
            0.0
        };
        Some(Probabilities {
            win: win as f32,
            win_gammon: win_gammon as f32,
            win_backgammon: 0.0,
            lose_gammon: lose_gammon as f32,
            lose_backgammon: 0.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tavla_bearoff::TwoSidedOptions;

    fn position(mine: &[(usize, i8)], theirs: &[(usize, i8)]) -> Position {
        let mut b = [0i8; 26];
        for &(p, n) in mine {
            b[p] = n;
        }
        for &(p, n) in theirs {
            b[25 - p] = -n;
        }
        Position::try_from(b).unwrap()
    }

    /// Each default database is loaded by the first probe that needs it, and only then:
    /// none for contact, the one-sided one alone for full home boards (too many checkers
    /// for the exact ones), the exact two-sided one for a short race, the cubeful one for a
    /// cube decision there.
    #[test]
    fn the_default_databases_are_loaded_by_the_probes_that_need_them() {
        let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
        let h = heard.clone();
        let race = BearoffRace::default_databases_reported(Arc::new(move |what, loaded| {
            assert!(loaded.is_ok(), "{what}: {loaded:?}");
            h.lock().unwrap().push(what);
        }));
        assert_eq!(race.loaded(), [false; 3]);
        assert!(race.probe(&Position::START).is_none());
        assert_eq!(race.loaded(), [false; 3]);
        let home = [(1, 3), (2, 3), (3, 3), (4, 2), (5, 2), (6, 2)];
        assert!(race.probe(&position(&home, &home)).is_some());
        assert_eq!(race.loaded(), [false, true, false]);
        let short = position(&[(1, 1), (3, 1)], &[(2, 2)]);
        let exact = race.probe(&short).unwrap();
        assert_eq!(race.loaded(), [true, true, false]);
        assert!(race.probe_cubeful(&short).is_some());
        assert_eq!(race.loaded(), [true; 3]);
        assert_eq!(
            *heard.lock().unwrap(),
            [
                "one-sided bearoff",
                "two-sided bearoff",
                "cubeful two-sided bearoff"
            ]
        );
        // The same values as databases given at the start.
        let (p, c) = tavla_bearoff::cache::DEFAULT_TWO_SIDED;
        let given = BearoffRace::new(TwoSidedDb::build(p, c).unwrap().0);
        assert_eq!(given.probe_exact(&short), Some(exact));
        race.preload();
        assert_eq!(heard.lock().unwrap().len(), 3, "loaded once each");
    }

    /// The lazy cubeful table is loaded once, by the first probe of a race it can hold, and
    /// never for contact, for checkers outside the home boards, or for more checkers than
    /// it holds.
    #[test]
    fn the_cubeful_table_is_loaded_on_first_use_only() {
        let loads = Arc::new(AtomicUsize::new(0));
        let counted = loads.clone();
        let race = BearoffRace::default().with_lazy_cubeful(3, move || {
            counted.fetch_add(1, Ordering::Relaxed);
            let options = TwoSidedOptions { cubeful: true };
            Some(
                TwoSidedDb::build_with(3, 3, options, &mut |_, _| {})
                    .unwrap()
                    .0,
            )
        });
        assert!(!race.cubeful_loaded());
        assert!(race.probe_cubeful(&Position::START).is_none());
        // Four checkers on the larger side: beyond the table, not loaded for it.
        let four = position(&[(1, 2), (2, 2)], &[(1, 1)]);
        assert!(race.probe_cubeful(&four).is_none());
        // A checker outside its home board.
        assert!(race
            .probe_cubeful(&position(&[(7, 1)], &[(1, 1)]))
            .is_none());
        assert_eq!(loads.load(Ordering::Relaxed), 0);
        let short = position(&[(1, 1), (3, 1)], &[(2, 2)]);
        // Four threads at once: one loads, the others wait for it.
        std::thread::scope(|s| {
            let probes: Vec<_> = (0..4)
                .map(|_| s.spawn(|| race.probe_cubeful(&short)))
                .collect();
            assert!(probes.into_iter().all(|p| p.join().unwrap().is_some()));
        });
        assert_eq!(loads.load(Ordering::Relaxed), 1);
        assert!(race.cubeful_loaded());
        // A loader that gives nothing leaves the cube to the model, and is not asked again.
        let failed = Arc::new(AtomicUsize::new(0));
        let counted = failed.clone();
        let none = BearoffRace::default().with_lazy_cubeful(3, move || {
            counted.fetch_add(1, Ordering::Relaxed);
            None
        });
        assert!(none.probe_cubeful(&short).is_none() && none.probe_cubeful(&short).is_none());
        assert_eq!(failed.load(Ordering::Relaxed), 1);
        assert!(!none.cubeful_loaded());
    }
}
