//! n-ply expectimax search over the 21 rolls, with move filtering and an evaluation cache, and
//! the [`NeuralPlayer`].
//!
//! Plies follow gnubg's convention. A position (seen from the side on roll, before it rolls) at
//! 0-ply is the network's evaluation. At `n`-ply it is the average, over the 21 rolls weighted
//! by their chances, of the position left by the side's best play for that roll (chosen at
//! 0-ply), evaluated at `n - 1` ply from the other side. A play is worth the `n`-ply value of the
//! position it leaves. At the root all plays are ranked at 0-ply; only the best few within an
//! equity margin ([`MoveFilter`]) go on to each deeper ply.

use std::sync::Arc;

use tavla_core::{GameState, PlayList, Position, Resign, Roll, Rules};
use tavla_player::{Player, RolloutControl, RolloutRequest, RolloutValue};

use crate::bearoff::BearoffRace;
use crate::cube::{self, best_cube_action, cube_efficiency, CubeAnalysis, CubeHolder, PlayWorth};
use crate::evaluator::{EncodedBatch, Evaluator};
use crate::met::MatchScore;
use crate::probs::Probabilities;
use crate::resign::RESIGN_MAX_BETTER;
use crate::weights::{Weights, WeightsError};

/// Deepest supported search.
pub const MAX_PLY: u8 = 3;

/// Cube values a match cubeful search keeps per node: the cube's own and one more for each
/// double a search of [`MAX_PLY`] can see below it.
const MATCH_LEVELS: usize = MAX_PLY as usize + 2;

/// Which root plays go on to the next ply: at most `keep`, and only those within `margin` of
/// the best equity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveFilter {
    /// Plays kept at most.
    pub keep: usize,
    /// Equity margin behind the best play.
    pub margin: f32,
}

/// The default filters, one per ply transition: after 0-ply keep 8 within 0.16 (gnubg's
/// "normal" first filter), after 1-ply keep 5 within 0.08, after 2-ply keep 2 within 0.04.
/// (Keeping 5 after 1-ply rather than 3 took 0.11 mEMG per move off the 2-ply player's
/// judged error for a quarter to a third more time; `docs/neural-rounds.md`, twenty-second
/// round.)
pub const DEFAULT_FILTERS: [MoveFilter; MAX_PLY as usize] = [
    MoveFilter {
        keep: 8,
        margin: 0.16,
    },
    MoveFilter {
        keep: 5,
        margin: 0.08,
    },
    MoveFilter {
        keep: 2,
        margin: 0.04,
    },
];

/// Candidate pruning at the search's inner nodes (gnubg's pruning networks): where a side picks
/// its best play for a roll, a small network ranks the plays the cache and the databases do not
/// already know, and only its best `keep` go on to the full networks. The root's own ranking
/// ([`Search::rank_plays`]) is never pruned.
#[derive(Debug, Clone)]
pub struct Prune {
    /// The small networks (any sizes, same input layout).
    pub weights: Arc<Weights>,
    /// Plays the full networks evaluate at each choice.
    pub keep: usize,
}

impl Prune {
    /// The embedded default pruning networks ([`Weights::shared_default_prune`]) keeping
    /// [`DEFAULT_KEEP`] plays.
    #[must_use]
    pub fn embedded() -> Prune {
        Prune {
            weights: Weights::shared_default_prune(),
            keep: DEFAULT_KEEP,
        }
    }

    /// The pruning networks of `file` (the embedded ones when `None`) keeping `keep` plays.
    ///
    /// # Errors
    /// When the file cannot be read as weights of this build's input layout.
    pub fn load(file: Option<&std::path::Path>, keep: usize) -> Result<Prune, WeightsError> {
        let weights = match file {
            Some(f) => Arc::new(Weights::load(f)?),
            None => Weights::shared_default_prune(),
        };
        Ok(Prune { weights, keep })
    }
}

/// Plays the full networks evaluate at each pruned choice by default.
pub const DEFAULT_KEEP: usize = 4;

/// A play ranked by the search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedPlay {
    /// Its index in the [`PlayList`].
    pub index: usize,
    /// Its probabilities for the mover.
    pub probs: Probabilities,
    /// The ply it was evaluated at (lower than asked when filtered out early).
    pub ply: u8,
}

impl RankedPlay {
    /// Its cubeless equity for the mover.
    #[must_use]
    pub fn equity(&self) -> f32 {
        self.probs.equity()
    }
}

#[derive(Clone, Copy)]
struct Entry {
    pos: Position,
    ply: u8,
    /// The entry is valid when this is the cache's current generation.
    generation: u32,
    probs: Probabilities,
}

/// A direct-mapped cache of evaluations keyed by position and ply. Clearing bumps a
/// generation counter instead of touching the table.
#[derive(Clone)]
struct Cache {
    entries: Vec<Entry>,
    mask: usize,
    generation: u32,
}

impl Cache {
    fn new(bits: u32) -> Cache {
        let n = 1usize << bits;
        Cache {
            entries: vec![
                Entry {
                    pos: Position::START,
                    ply: 0,
                    generation: 0,
                    probs: Probabilities::default(),
                };
                n
            ],
            mask: n - 1,
            generation: 1,
        }
    }

    #[inline]
    fn slot(&self, pos: &Position, ply: u8) -> usize {
        let b = pos.signed_board();
        let mut h: u64 = u64::from(ply).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for chunk in b.chunks(8) {
            let mut w = 0u64;
            for (i, &v) in chunk.iter().enumerate() {
                w |= u64::from(v as u8) << (8 * i);
            }
            h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h ^= h >> 29;
        }
        (h as usize) & self.mask
    }

    #[inline]
    fn get(&self, pos: &Position, ply: u8) -> Option<Probabilities> {
        let e = &self.entries[self.slot(pos, ply)];
        (e.generation == self.generation && e.ply == ply && e.pos == *pos).then_some(e.probs)
    }

    /// Reads the slots of `positions` ahead of their lookups: independent loads, so their
    /// cache misses overlap instead of waiting one behind the other.
    #[inline]
    fn touch(&self, positions: impl Iterator<Item = Position>, ply: u8) {
        let mut any = 0u32;
        for pos in positions {
            any ^= self.entries[self.slot(&pos, ply)].generation;
        }
        std::hint::black_box(any);
    }

    #[inline]
    fn put(&mut self, pos: &Position, ply: u8, probs: Probabilities) {
        let s = self.slot(pos, ply);
        self.entries[s] = Entry {
            pos: *pos,
            ply,
            generation: self.generation,
            probs,
        };
    }

    fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for e in &mut self.entries {
                e.generation = 0;
            }
            self.generation = 1;
        }
    }
}

/// The search: networks, per-depth scratch lists, the cache and a node counter.
#[derive(Clone)]
pub struct Search {
    weights: Arc<Weights>,
    bearoff: Option<Arc<BearoffRace>>,
    filters: [MoveFilter; MAX_PLY as usize],
    prune: Option<Prune>,
    cache: Cache,
    lists: Vec<PlayList>,
    evals: Vec<Vec<Probabilities>>,
    /// Scratch of [`Search::eval_plays0`]: the positions to evaluate, their plays' indices and
    /// their values.
    batch: Vec<Position>,
    batch_index: Vec<usize>,
    batch_values: Vec<Probabilities>,
    /// Scratch: the value of each play at the root ([`Search::choose_by`]).
    worth: Vec<f32>,
    /// Scratch of the pruned choice: the batch's inputs and the candidates' indices in `batch`.
    encoded: EncodedBatch,
    picked_index: Vec<usize>,
    /// Per play of the last [`Search::eval_plays0`]: left out by the pruning networks.
    pruned: Vec<bool>,
    nodes: u64,
}

impl Search {
    /// A search over `weights` with the default filters and a cache of 2^16 entries.
    #[must_use]
    pub fn new(weights: Arc<Weights>) -> Search {
        Search {
            weights,
            bearoff: None,
            filters: DEFAULT_FILTERS,
            prune: None,
            cache: Cache::new(16),
            lists: (0..=MAX_PLY).map(|_| PlayList::new()).collect(),
            evals: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            batch: Vec::new(),
            batch_index: Vec::new(),
            batch_values: Vec::new(),
            worth: Vec::new(),
            encoded: EncodedBatch::default(),
            picked_index: Vec::new(),
            pruned: Vec::new(),
            nodes: 0,
        }
    }

    /// Prunes the move choices of the inner nodes with `prune` (see [`Prune`]); `prune.keep`
    /// is taken as 1 to [`MAX_KEEP`].
    #[must_use]
    pub fn with_prune(mut self, mut prune: Prune) -> Search {
        prune.keep = prune.keep.clamp(1, MAX_KEEP);
        self.prune = Some(prune);
        self
    }

    /// Uses `bearoff` for the race positions it covers (exact instead of the race network).
    #[must_use]
    pub fn with_bearoff(mut self, bearoff: Arc<BearoffRace>) -> Search {
        self.bearoff = Some(bearoff);
        self
    }

    /// The bearoff databases, if the search uses them.
    #[must_use]
    pub fn bearoff(&self) -> Option<&Arc<BearoffRace>> {
        self.bearoff.as_ref()
    }

    /// Replaces the move filters.
    pub fn set_filters(&mut self, filters: [MoveFilter; MAX_PLY as usize]) {
        self.filters = filters;
    }

    /// The networks.
    #[must_use]
    pub fn weights(&self) -> &Arc<Weights> {
        &self.weights
    }

    /// Evaluations by the full networks since creation or the last [`Search::reset`] (the
    /// pruning networks' are not counted).
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Clears the cache and the node counter.
    pub fn reset(&mut self) {
        self.cache.clear();
        self.nodes = 0;
    }

    fn eval0(&mut self, pos: &Position) -> Probabilities {
        if let Some(p) = self.known0(pos) {
            return p;
        }
        self.nodes += 1;
        let p = self.weights.evaluate(pos);
        self.cache.put(pos, 0, p);
        p
    }

    /// The 0-ply value of `pos` when it needs no network: a finished game, a cached value, or
    /// the bearoff database's (which goes into the cache).
    fn known0(&mut self, pos: &Position) -> Option<Probabilities> {
        if let Some(o) = pos.outcome() {
            return Some(Probabilities::from_outcome(o));
        }
        if let Some(p) = self.cache.get(pos, 0) {
            return Some(p);
        }
        let p = self.bearoff.as_ref().and_then(|b| b.probe(pos))?;
        self.cache.put(pos, 0, p);
        Some(p)
    }

    /// The value of the position left by a play (seen from the mover) for the mover, at `ply`
    /// (a play at 0-ply is the static value of the position it leaves).
    pub fn play_probs(&mut self, after: &Position, ply: u8) -> Probabilities {
        self.eval_after(after, ply)
    }

    /// The value of the position left by a play (seen from the mover) for the mover, at `ply`.
    fn eval_after(&mut self, after: &Position, ply: u8) -> Probabilities {
        match after.outcome() {
            Some(o) => Probabilities::from_outcome(o),
            None => self.evaluate(&after.flip(), ply).flip(),
        }
    }

    /// The value of `pos` for the side on roll, before it rolls, at `ply` (capped at
    /// [`MAX_PLY`]).
    pub fn evaluate(&mut self, pos: &Position, ply: u8) -> Probabilities {
        let ply = ply.min(MAX_PLY);
        if ply == 0 || pos.is_game_over() {
            return self.eval0(pos);
        }
        if let Some(p) = self.cache.get(pos, ply) {
            return p;
        }
        let depth = usize::from(ply);
        let mut list = std::mem::take(&mut self.lists[depth]);
        let mut evals = std::mem::take(&mut self.evals[depth]);
        let mut sum = Probabilities::default();
        for (roll, weight) in Roll::ALL_21 {
            pos.legal_plays(roll, &mut list);
            // The side's best play for this roll, at 0-ply.
            let (best, best_p) = self.best_play0(list.positions(), &mut evals);
            let value = if ply == 1 {
                best_p
            } else {
                let after = list.positions()[best];
                self.eval_after(&after, ply - 1)
            };
            sum = sum.add_scaled(&value, f32::from(weight) / 36.0);
        }
        self.lists[depth] = list;
        self.evals[depth] = evals;
        self.cache.put(pos, ply, sum);
        sum
    }

    /// The money cube decision of the side on roll of `pos`, before it rolls, with the cube
    /// held by `holder` (under the Jacoby rule when `jacoby`), by a cubeful search `ply` deep.
    ///
    /// In the short races the cubeful bearoff database covers
    /// ([`BearoffRace::probe_cubeful`]) the equities are exact at every depth. Elsewhere, at
    /// 0-ply this is [`CubeAnalysis::money`] on the 0-ply probabilities. Deeper, the
    /// equities of not doubling and of doubling into a take are averages over the 21 rolls of
    /// the position left by the best play (chosen cubeless at 0-ply, as in [`Search::evaluate`]),
    /// valued for the opponent with the cube where that decision leaves it and the opponent's
    /// own best cube action, down to Janowski's model at the leaves. The search thus sees the
    /// market losers a double now forestalls, which a model at the root cannot.
    pub fn cube_analysis(
        &mut self,
        pos: &Position,
        ply: u8,
        holder: CubeHolder,
        jacoby: bool,
    ) -> CubeAnalysis {
        let ply = ply.min(MAX_PLY);
        let exact = self.exact_cubeful(pos);
        if exact.is_none() && (ply == 0 || pos.is_game_over()) {
            let p = self.eval0(pos);
            return CubeAnalysis::money(pos, p, holder, jacoby);
        }
        let nd = exact.unwrap_or_else(|| self.cubeful(pos, ply, jacoby));
        let k = holder as usize;
        CubeAnalysis::from_equities(
            cube_efficiency(pos),
            holder,
            nd[k],
            2.0 * nd[CubeHolder::Opponent as usize],
        )
    }

    /// The cube decision of the side on roll in `state` (its position seen from `state.turn`,
    /// dice not rolled) at `ply`: in money play by [`Search::cube_analysis`]; in match play by
    /// [`CubeAnalysis::match_play`] on the cubeless probabilities at `ply`. `None` when the game
    /// is over, in the Crawford game, when the side's cube is at its highest (2^15) or dead
    /// ([`GameState::cube_is_dead`]), or at a match score beyond the match equity table.
    pub fn cube_decision(&mut self, state: &GameState, ply: u8) -> Option<CubeAnalysis> {
        let pos = &state.position;
        let holder = CubeHolder::of(state);
        if pos.is_game_over() || (holder != CubeHolder::Opponent && !state.may_double()) {
            return None;
        }
        if state.match_length == 0 {
            return Some(self.cube_analysis(pos, ply, holder, state.jacoby));
        }
        let score = MatchScore::of(state, state.turn).filter(|s| s.cube_in_play())?;
        Some(self.match_cube_analysis(pos, ply, holder, state.cube.value(), score))
    }

    /// The match play cube decision of the side on roll of `pos`, before it rolls, with the
    /// cube on `cube` held by `holder` at `score` (the side on roll's), by a cubeful search
    /// `ply` deep over tavla's match equity table.
    ///
    /// At 0-ply this is [`CubeAnalysis::match_play`] on the 0-ply probabilities. Deeper it is
    /// the money search of [`Search::cube_analysis`] in match winning chances: each node keeps
    /// the chances of its side on roll for the cube at its value and each higher value a
    /// double below it can reach, with each holder; a side's double is taken or passed by
    /// the chances at the score, and the leaves are Janowski's model at the score. So the
    /// search sees the market losers, and the value of the redoubles it can see (the recube
    /// vig), which a model at the root cannot.
    pub fn match_cube_analysis(
        &mut self,
        pos: &Position,
        ply: u8,
        holder: CubeHolder,
        cube: u32,
        score: MatchScore,
    ) -> CubeAnalysis {
        let ply = ply.min(MAX_PLY);
        // The root: the match table is solved here, the search's nodes look it up.
        let exact = self.exact_match(pos, cube, holder, score, true);
        if exact.is_none() && (ply == 0 || pos.is_game_over()) {
            let p = self.eval0(pos);
            return CubeAnalysis::match_play(pos, p, holder, cube, score);
        }
        let chances = exact.unwrap_or_else(|| self.cubeful_match(pos, ply, cube, holder, score));
        CubeAnalysis::from_match_chances(
            pos,
            holder,
            cube,
            score,
            chances[0][holder as usize],
            chances[1][CubeHolder::Opponent as usize],
        )
    }

    /// The match winning chances of `pos` for the side on roll at `score` before its cube
    /// decision, `[k][h]` with the cube on `cube << k` held by the holder of index `h`, at
    /// `ply`; `holder` holds the cube on `cube` (the others of `[0]` are computed, not used).
    /// The decisions below the root are the side's best: not doubling, or doubling into the
    /// opponent's better answer, take or pass.
    fn cubeful_match(
        &mut self,
        pos: &Position,
        ply: u8,
        cube: u32,
        holder: CubeHolder,
        score: MatchScore,
    ) -> [[f32; 3]; MATCH_LEVELS] {
        if let Some(exact) = self.exact_match(pos, cube, holder, score, false) {
            return exact;
        }
        if ply == 0 || pos.is_game_over() {
            let p = self.eval0(pos);
            return cube::match_values(pos, p, cube, score);
        }
        let depth = usize::from(ply);
        let mut list = std::mem::take(&mut self.lists[depth]);
        let mut evals = std::mem::take(&mut self.evals[depth]);
        let them = score.flip();
        let mut out = [[0.0f32; 3]; MATCH_LEVELS];
        let (centre, on_roll, opponent) = (
            CubeHolder::Centre as usize,
            CubeHolder::OnRoll as usize,
            CubeHolder::Opponent as usize,
        );
        for (roll, weight) in Roll::ALL_21 {
            pos.legal_plays(roll, &mut list);
            let (best, _) = self.best_play0(list.positions(), &mut evals);
            let next = list.positions()[best].flip();
            let child = self.cubeful_match(&next, ply - 1, cube, holder.flip(), them);
            let w = f32::from(weight) / 36.0;
            for (k, values) in out.iter_mut().enumerate() {
                let v = (cube << k).min(cube::MAX_CUBE);
                // The opponent's chances there with his best cube action, where he may
                // double from `v`: into our take (we then own the cube on 2v) or our pass.
                let may_double = k + 1 < MATCH_LEVELS && v < cube::MAX_CUBE;
                let best = |no_double: f32| {
                    if may_double {
                        let taken = child[k + 1][opponent];
                        no_double.max(taken.min(them.after(v, 0)))
                    } else {
                        no_double
                    }
                };
                values[centre] += w * (1.0 - best(child[k][centre]));
                values[on_roll] += w * (1.0 - child[k][opponent]);
                values[opponent] += w * (1.0 - best(child[k][on_roll]));
            }
        }
        self.lists[depth] = list;
        self.evals[depth] = evals;
        out
    }

    /// Whether the money cube decisions of `pos` are exact at every depth (the cubeful bearoff
    /// database holds the position, [`BearoffRace::probe_cubeful`]).
    #[must_use]
    pub fn has_exact_cube(&self, pos: &Position) -> bool {
        self.exact_cubeful(pos).is_some()
    }

    /// Whether the cube decision of the side on roll in `state` is exact at every depth: in
    /// money play as [`Search::has_exact_cube`], in match play where the match tables of
    /// short bearoffs hold the position at its score ([`BearoffRace::match_exact`]).
    #[must_use]
    pub fn has_exact_cube_in(&self, state: &GameState) -> bool {
        if state.match_length == 0 {
            return self.has_exact_cube(&state.position);
        }
        let holder = CubeHolder::of(state);
        MatchScore::of(state, state.turn).is_some_and(|score| {
            let b = self.bearoff.as_ref();
            b.and_then(|b| b.solve_match(&state.position, state.cube.value(), holder, score))
                .is_some()
        })
    }

    /// The exact match chances of `pos` as [`Search::cubeful_match`] gives them, where the
    /// match tables of short bearoffs hold the position (solving its table when `solve`,
    /// [`BearoffRace::solve_match`], else only looking one up, [`BearoffRace::match_exact`]):
    /// the cubes the game can reach from `cube` held by `holder` are exact, the others (never
    /// used) stand-ins.
    fn exact_match(
        &mut self,
        pos: &Position,
        cube: u32,
        holder: CubeHolder,
        score: MatchScore,
        solve: bool,
    ) -> Option<[[f32; 3]; MATCH_LEVELS]> {
        let bearoff = self.bearoff.clone()?;
        let exact = if solve {
            bearoff.solve_match(pos, cube, holder, score)?
        } else {
            bearoff.match_exact(pos, cube, holder, score)?
        };
        let exact = exact.no_doubles::<MATCH_LEVELS>();
        // Cubes the game cannot reach (another holder of the cube asked for, the middle once
        // doubled) feed only other such entries of the nodes above: each row's first reached
        // value stands in for them.
        Some(exact.map(|row| {
            let stand_in = row.iter().flatten().next().copied().unwrap_or(0.5);
            row.map(|v| v.unwrap_or(stand_in))
        }))
    }

    /// The exact cubeful money equities of `pos` as [`Search::cubeful`] gives them, where the
    /// bearoff databases hold them ([`BearoffRace::probe_cubeful`]).
    fn exact_cubeful(&self, pos: &Position) -> Option<[f32; 3]> {
        let e = self.bearoff.as_ref()?.probe_cubeful(pos)?;
        let mut nd = [0.0f32; 3];
        nd[CubeHolder::Centre as usize] = e.centred.no_double as f32;
        nd[CubeHolder::OnRoll as usize] = e.owned.no_double as f32;
        nd[CubeHolder::Opponent as usize] = e.opponent_owns as f32;
        Some(nd)
    }

    /// The cubeful equities of `pos` for the side on roll before its cube decision, one per
    /// [`CubeHolder`] (in declaration order), per unit of the cube, at `ply` (exact where the
    /// bearoff databases hold cubeful equities).
    fn cubeful(&mut self, pos: &Position, ply: u8, jacoby: bool) -> [f32; 3] {
        if let Some(exact) = self.exact_cubeful(pos) {
            return exact;
        }
        if ply == 0 || pos.is_game_over() {
            let p = self.eval0(pos);
            return CubeHolder::ALL.map(|h| CubeAnalysis::money(pos, p, h, jacoby).no_double);
        }
        let depth = usize::from(ply);
        let mut list = std::mem::take(&mut self.lists[depth]);
        let mut evals = std::mem::take(&mut self.evals[depth]);
        let mut nd = [0.0f32; 3];
        for (roll, weight) in Roll::ALL_21 {
            pos.legal_plays(roll, &mut list);
            let (best, _) = self.best_play0(list.positions(), &mut evals);
            let next = list.positions()[best].flip();
            let child = self.cubeful(&next, ply - 1, jacoby);
            // The opponent's value there, with his best cube action where he may double: the
            // cube in the middle; owned by him (when the opponent owns it here); owned by us
            // (he cannot double).
            let take = 2.0 * child[CubeHolder::Opponent as usize];
            let centre = best_cube_action(child[CubeHolder::Centre as usize], take);
            let opponent_owns = best_cube_action(child[CubeHolder::OnRoll as usize], take);
            let we_own = child[CubeHolder::Opponent as usize];
            let w = f32::from(weight) / 36.0;
            nd[CubeHolder::Centre as usize] -= w * centre;
            nd[CubeHolder::OnRoll as usize] -= w * we_own;
            nd[CubeHolder::Opponent as usize] -= w * opponent_owns;
        }
        self.lists[depth] = list;
        self.evals[depth] = evals;
        nd
    }

    /// The value, for the side on roll of `pos`, of each of the 21 rolls (in the order of
    /// [`Roll::ALL_21`]) under `rules`: the 0-ply equity left by its best play at 0-ply (chosen
    /// as at the inner nodes of a search, so with [`Prune`] when the search has it). The
    /// luck of a roll is its value minus the mean over all rolls (`tavla arena --luck`).
    ///
    /// `pos` must not be a finished game.
    pub fn roll_values(&mut self, pos: &Position, rules: Rules, out: &mut [f64; 21]) {
        let mut list = std::mem::take(&mut self.lists[0]);
        let mut evals = std::mem::take(&mut self.evals[0]);
        for ((roll, _), v) in Roll::ALL_21.iter().zip(out.iter_mut()) {
            pos.legal_plays_with(*roll, rules, &mut list);
            let (_, best) = self.best_play0(list.positions(), &mut evals);
            *v = f64::from(best.equity());
        }
        self.lists[0] = list;
        self.evals[0] = evals;
    }

    /// In match play, the value of each of the 21 rolls for the side on roll of `state` (in
    /// the order of [`Roll::ALL_21`]) under `rules`: its chance of winning the match after the
    /// roll's best play at 0-ply by that chance (as the player ranks its plays in a match,
    /// [`PlayWorth`]), with the cube where it is. The match luck of `tavla arena --match
    /// --luck`. A state that is not match play (or whose score tavla's match equity table does
    /// not reach) gets [`Search::roll_values`]'s money equities.
    pub fn match_roll_values(&mut self, state: &GameState, rules: Rules, out: &mut [f64; 21]) {
        let Some(score) = MatchScore::of(state, state.turn) else {
            return self.roll_values(&state.position, rules, out);
        };
        let (holder, cube) = (CubeHolder::of(state), state.cube.value());
        let mut list = std::mem::take(&mut self.lists[0]);
        let mut evals = std::mem::take(&mut self.evals[0]);
        for ((roll, _), v) in Roll::ALL_21.iter().zip(out.iter_mut()) {
            state.position.legal_plays_with(*roll, rules, &mut list);
            self.eval_plays0(list.positions(), &mut evals);
            let best = evals
                .iter()
                .zip(&self.pruned)
                .zip(list.positions())
                .filter(|((_, &pruned), _)| !pruned)
                .map(|((&p, _), after)| {
                    CubeAnalysis::play_match_chance(after, p, holder, cube, score)
                })
                .fold(f32::NEG_INFINITY, f32::max);
            *v = f64::from(best);
        }
        self.lists[0] = list;
        self.evals[0] = evals;
    }

    /// The best play of `pos` for `roll` at 0-ply, chosen as the search's inner nodes choose
    /// (finished games exact, the cache, the bearoff databases, then the networks, with
    /// [`Prune`] when the search has it): its index in `plays` (filled with the legal plays)
    /// and its value for the mover. A rollout's 0-ply players choose by it.
    pub(crate) fn best_of_roll(
        &mut self,
        pos: &Position,
        roll: Roll,
        plays: &mut PlayList,
        evals: &mut Vec<Probabilities>,
    ) -> (usize, Probabilities) {
        pos.legal_plays(roll, plays);
        self.best_play0(plays.positions(), evals)
    }

    /// Which plays of the last 0-ply choice ([`Search::best_of_roll`]) the pruning networks
    /// left out: their values are the pruning networks', not the full networks'.
    pub(crate) fn pruned(&self) -> &[bool] {
        &self.pruned
    }

    /// Whether the search prunes its inner move choices ([`Search::with_prune`]).
    #[must_use]
    pub fn prunes(&self) -> bool {
        self.prune.is_some()
    }

    /// The best of `plays` at 0-ply for the mover: its index and value. With [`Prune`], the
    /// plays whose values are not known without a network are ranked by the pruning networks
    /// first and only the best `keep` of them are evaluated in full.
    fn best_play0(
        &mut self,
        plays: &[Position],
        evals: &mut Vec<Probabilities>,
    ) -> (usize, Probabilities) {
        self.eval_plays0(plays, evals);
        let mut best = 0;
        let mut best_eq = f32::NEG_INFINITY;
        for (i, (p, &pruned)) in evals.iter().zip(&self.pruned).enumerate() {
            let e = p.equity();
            if e > best_eq && !pruned {
                best_eq = e;
                best = i;
            }
        }
        (best, evals[best])
    }

    /// The 0-ply values of the positions left by `plays` for the mover, into `out`: finished
    /// games exact, then the cache, then the bearoff database, and the rest in one batch
    /// ([`Evaluator::evaluate_batch`], incremental over plays alike), which goes into the cache.
    /// With [`Prune`] and more than `keep` plays in that batch, only the pruning networks'
    /// best `keep` are evaluated in full; the others are marked in `self.pruned`, their values
    /// in `out` the pruning networks'.
    fn eval_plays0(&mut self, plays: &[Position], out: &mut Vec<Probabilities>) {
        out.clear();
        let mut batch = std::mem::take(&mut self.batch);
        let mut batch_index = std::mem::take(&mut self.batch_index);
        batch.clear();
        batch_index.clear();
        // The flips and hashes are done again by the lookups below: cheap beside a miss.
        self.cache.touch(plays.iter().map(|after| after.flip()), 0);
        for (i, after) in plays.iter().enumerate() {
            let pos = after.flip();
            let p = match self.known0(&pos) {
                Some(p) => p.flip(),
                None => {
                    batch.push(pos);
                    batch_index.push(i);
                    Probabilities::default()
                }
            };
            out.push(p);
        }
        self.pruned.clear();
        self.pruned.resize(plays.len(), false);
        if !batch.is_empty() {
            let mut values = std::mem::take(&mut self.batch_values);
            values.clear();
            values.resize(batch.len(), Probabilities::default());
            match &self.prune {
                Some(prune) if batch.len() > prune.keep => {
                    // Encoded once: the pruning networks rank them all, the full networks
                    // evaluate the best `keep` from the same inputs.
                    let mut encoded = std::mem::take(&mut self.encoded);
                    encoded.encode(&batch);
                    let mut order = std::mem::take(&mut self.picked_index);
                    order.clear();
                    order.extend(0..batch.len());
                    prune
                        .weights
                        .evaluate_encoded(&encoded, &order, &mut values);
                    // The mover's best `keep` by the pruning networks (the batch is seen from
                    // the other side: the lowest equities there).
                    order.select_nth_unstable_by(prune.keep - 1, |&a, &b| {
                        values[a].equity().total_cmp(&values[b].equity())
                    });
                    order.truncate(prune.keep);
                    order.sort_unstable();
                    for (k, &i) in batch_index.iter().enumerate() {
                        if order.binary_search(&k).is_err() {
                            self.pruned[i] = true;
                            out[i] = values[k].flip();
                        }
                    }
                    // The pruning values are written out; their scratch takes the full ones.
                    let full = &mut values[..order.len()];
                    self.weights.evaluate_encoded(&encoded, &order, full);
                    self.nodes += order.len() as u64;
                    for (&k, &p) in order.iter().zip(full.iter()) {
                        self.cache.put(&batch[k], 0, p);
                        out[batch_index[k]] = p.flip();
                    }
                    self.encoded = encoded;
                    self.picked_index = order;
                }
                _ => {
                    self.weights.evaluate_batch(&batch, &mut values);
                    self.nodes += batch.len() as u64;
                    for ((&i, pos), &p) in batch_index.iter().zip(&batch).zip(&values) {
                        self.cache.put(pos, 0, p);
                        out[i] = p.flip();
                    }
                }
            }
            self.batch_values = values;
        }
        self.batch = batch;
        self.batch_index = batch_index;
    }

    /// Ranks the plays of `plays` at up to `ply`, best first, into `out`: all at 0-ply, then
    /// the survivors of each [`MoveFilter`] one ply deeper. The best play is always evaluated
    /// at `ply`.
    pub fn rank_plays(&mut self, plays: &PlayList, ply: u8, out: &mut Vec<RankedPlay>) {
        self.rank(plays, ply, out, false, |_, p| p.equity());
    }

    /// Like [`Search::rank_plays`], but stops deepening as soon as a filter leaves a single
    /// play: enough to choose, cheaper than a full ranking.
    pub fn choose(&mut self, plays: &PlayList, ply: u8, out: &mut Vec<RankedPlay>) -> usize {
        self.rank(plays, ply, out, true, |_, p| p.equity());
        out[0].index
    }

    /// Like [`Search::rank_plays`], but the plays are ranked and filtered by `value` (of the
    /// position a play leaves, seen from the mover, and its probabilities for the mover)
    /// instead of the money equity: in match play, a play's normalised match equity, whose
    /// units the filters' margins are taken in as they are in money equity (as gnubg does).
    /// The search below the root still chooses by money equity.
    pub fn rank_plays_by(
        &mut self,
        plays: &PlayList,
        ply: u8,
        out: &mut Vec<RankedPlay>,
        value: impl Fn(&Position, Probabilities) -> f32,
    ) {
        self.rank(plays, ply, out, false, value);
    }

    /// Like [`Search::choose`], ranked by `value` as in [`Search::rank_plays_by`].
    pub fn choose_by(
        &mut self,
        plays: &PlayList,
        ply: u8,
        out: &mut Vec<RankedPlay>,
        value: impl Fn(&Position, Probabilities) -> f32,
    ) -> usize {
        self.rank(plays, ply, out, true, value);
        out[0].index
    }

    /// The plays ranked by `worth` as [`Search::rank_plays_by`] ranks them, exact in short
    /// bearoffs where the search's databases hold cubeful money equities
    /// ([`PlayWorth::value_exact`]): how the player, `tavla hint`, the analysis and the tutor
    /// rank a side's plays.
    pub fn rank_plays_worth(
        &mut self,
        plays: &PlayList,
        ply: u8,
        out: &mut Vec<RankedPlay>,
        worth: PlayWorth,
    ) {
        self.prepare_exact(plays, worth);
        let bearoff = self.bearoff.clone();
        self.rank(plays, ply, out, false, |after, p| {
            worth.value_exact(after, p, bearoff.as_deref())
        });
    }

    /// In match play, solves the match table of short bearoffs from the position the plays
    /// are played from, where there is one: it then holds the result of every play, which
    /// tables solved from each result would not.
    fn prepare_exact(&self, plays: &PlayList, worth: PlayWorth) {
        if let (
            PlayWorth::Match {
                cube,
                score,
                holder,
            },
            Some(b),
        ) = (worth, &self.bearoff)
        {
            // Only the table is wanted (kept by the databases for the plays' lookups).
            let _ = b.solve_match(&plays.origin(), cube, holder, score);
        }
    }

    /// Like [`Search::choose_by`], by `worth` as in [`Search::rank_plays_worth`].
    pub fn choose_worth(
        &mut self,
        plays: &PlayList,
        ply: u8,
        out: &mut Vec<RankedPlay>,
        worth: PlayWorth,
    ) -> usize {
        self.prepare_exact(plays, worth);
        let bearoff = self.bearoff.clone();
        self.rank(plays, ply, out, true, |after, p| {
            worth.value_exact(after, p, bearoff.as_deref())
        });
        out[0].index
    }

    /// The worth of the position `after` a play (seen from the mover) whose probabilities
    /// for the mover are `p`, by `worth` as [`Search::rank_plays_worth`] values it.
    #[must_use]
    pub fn play_value(&self, worth: PlayWorth, after: &Position, p: Probabilities) -> f32 {
        worth.value_exact(after, p, self.bearoff.as_deref())
    }

    fn rank(
        &mut self,
        plays: &PlayList,
        ply: u8,
        out: &mut Vec<RankedPlay>,
        choose_only: bool,
        value: impl Fn(&Position, Probabilities) -> f32,
    ) {
        let ply = ply.min(MAX_PLY);
        out.clear();
        let mut evals = std::mem::take(&mut self.evals[0]);
        evals.resize(plays.len(), Probabilities::default());
        self.weights.evaluate_plays(plays.positions(), &mut evals);
        self.nodes += plays.len() as u64;
        if let Some(b) = &self.bearoff {
            for (e, after) in evals.iter_mut().zip(plays.positions()) {
                if let Some(p) = b.probe(&after.flip()) {
                    *e = p.flip();
                }
            }
        }
        out.extend(evals.iter().enumerate().map(|(index, &probs)| RankedPlay {
            index,
            probs,
            ply: 0,
        }));
        self.evals[0] = evals;
        let positions = plays.positions();
        // Each play's value, by play index, computed once per evaluation.
        let mut worth = std::mem::take(&mut self.worth);
        worth.clear();
        worth.extend(out.iter().map(|r| value(&positions[r.index], r.probs)));
        // Plays of equal worth (a cubeful equity of -1 for every play: the opponent cashes
        // whatever is played) are ordered by their cubeless equity, the better the play
        // should the cube not be used as expected; then by their order in the list.
        let by_worth = |worth: &[f32], a: &RankedPlay, b: &RankedPlay| {
            worth[b.index]
                .total_cmp(&worth[a.index])
                .then(b.probs.equity().total_cmp(&a.probs.equity()))
        };
        out.sort_by(|a, b| by_worth(&worth, a, b).then(a.index.cmp(&b.index)));
        for p in 1..=ply {
            let filter = self.filters[usize::from(p - 1)];
            let best = worth[out[0].index];
            let n = out
                .iter()
                .take(filter.keep.max(1))
                .take_while(|r| worth[r.index] >= best - filter.margin)
                .count();
            if n <= 1 && choose_only {
                break;
            }
            for r in out[..n.max(1)].iter_mut() {
                let after = positions[r.index];
                r.probs = self.eval_after(&after, p);
                r.ply = p;
                worth[r.index] = value(&after, r.probs);
            }
            out[..n.max(1)].sort_by(|a, b| by_worth(&worth, a, b));
        }
        self.worth = worth;
    }
}

/// The most plays a [`Prune`] may keep.
pub const MAX_KEEP: usize = 64;

/// The least depth of a player's resignation decisions, offered or answered, whatever its own
/// ply.
pub const RESIGN_PLY: u8 = 2;

/// The neural engine as a [`Player`]: plays the best play found at a fixed ply (by money
/// equity, or in match play by match equity), and doubles and takes by
/// [`Search::cube_decision`] at the same ply.
#[derive(Clone)]
pub struct NeuralPlayer {
    search: Search,
    ply: u8,
    /// The ply of its cube decisions.
    cube_ply: u8,
    /// Whether its money plays are chosen cubeless even once the cube has been turned.
    cubeless_plays: bool,
    ranked: Vec<RankedPlay>,
    name: Option<String>,
}

impl NeuralPlayer {
    /// A player searching `ply` plies deep (capped at [`MAX_PLY`]).
    #[must_use]
    pub fn new(weights: Arc<Weights>, ply: u8) -> NeuralPlayer {
        NeuralPlayer {
            search: Search::new(weights),
            ply: ply.min(MAX_PLY),
            cube_ply: ply.min(MAX_PLY),
            cubeless_plays: false,
            ranked: Vec::new(),
            name: None,
        }
    }

    /// The player with the embedded default weights.
    #[must_use]
    pub fn with_default_weights(ply: u8) -> NeuralPlayer {
        NeuralPlayer::new(Weights::shared_default(), ply)
    }

    /// Uses `bearoff` for the race positions it covers.
    #[must_use]
    pub fn with_bearoff(mut self, bearoff: Arc<BearoffRace>) -> NeuralPlayer {
        self.search = self.search.with_bearoff(bearoff);
        self
    }

    /// Uses `filters` instead of [`DEFAULT_FILTERS`].
    #[must_use]
    pub fn with_filters(mut self, filters: [MoveFilter; MAX_PLY as usize]) -> NeuralPlayer {
        self.search.set_filters(filters);
        self
    }

    /// Prunes the search's inner move choices (see [`Prune`]).
    #[must_use]
    pub fn with_prune(mut self, prune: Prune) -> NeuralPlayer {
        self.search = self.search.with_prune(prune);
        self
    }

    /// Makes its cube decisions at `ply` (capped at [`MAX_PLY`]) instead of its own ply.
    #[must_use]
    pub fn with_cube_ply(mut self, ply: u8) -> NeuralPlayer {
        self.cube_ply = ply.min(MAX_PLY);
        self
    }

    /// Chooses its money plays by cubeless equity even once the cube has been turned
    /// (see [`Player::choose_play`] below).
    #[must_use]
    pub fn with_cubeless_plays(mut self, cubeless: bool) -> NeuralPlayer {
        self.cubeless_plays = cubeless;
        self
    }

    /// Reports `name` instead of `neural:ply=N` (say, the command line's PLAYER).
    #[must_use]
    pub fn with_name(mut self, name: String) -> NeuralPlayer {
        self.name = Some(name);
        self
    }

    /// The search, for statistics.
    #[must_use]
    pub fn search(&self) -> &Search {
        &self.search
    }

    /// The cube decision of the doubler, at the player's cube ply, when the player is asked
    /// to answer a double: `state.position` is seen from the answering side, the doubler on
    /// roll.
    fn doubler_decision(&mut self, state: &GameState) -> Option<CubeAnalysis> {
        let doubler = GameState {
            position: state.position.flip(),
            turn: state.turn.other(),
            ..*state
        };
        self.search.cube_decision(&doubler, self.cube_ply)
    }
}

impl NeuralPlayer {
    /// What its plays are ranked by in `state` (see [`Player::choose_play`]).
    fn play_worth(&self, state: &GameState) -> PlayWorth {
        match PlayWorth::of(state) {
            PlayWorth::Cubeful(_) | PlayWorth::Jacoby if self.cubeless_plays => PlayWorth::Cubeless,
            worth => worth,
        }
    }
}

impl Player for NeuralPlayer {
    fn name(&self) -> String {
        match &self.name {
            Some(name) => name.clone(),
            None => format!("neural:ply={}", self.ply),
        }
    }

    fn new_game(&mut self) {
        self.search.reset();
    }

    fn ply(&self) -> Option<u8> {
        Some(self.ply)
    }

    /// A match score beyond tavla's match equity table (a side more than
    /// [`crate::met::MAX_AWAY`]-away), where the player would rank plays and cubes as money.
    fn cannot_play(&self, state: &GameState) -> Option<String> {
        MatchScore::beyond_table(state)
    }

    /// Sets the ply of its plays and of its cube decisions (0 to [`MAX_PLY`]).
    fn set_ply(&mut self, ply: u8) -> bool {
        if ply > MAX_PLY {
            return false;
        }
        self.ply = ply;
        self.cube_ply = ply;
        true
    }

    /// The plays ranked as [`Player::choose_play`] ranks them, at the player's ply (the plays
    /// its filters drop early at a shallower one), valued by the same measure.
    fn rank_plays(
        &mut self,
        state: &GameState,
        _roll: Roll,
        plays: &PlayList,
        top: usize,
    ) -> Option<Vec<tavla_player::PlayValue>> {
        let worth = self.play_worth(state);
        self.search
            .rank_plays_worth(plays, self.ply, &mut self.ranked, worth);
        let positions = plays.positions();
        let search = &self.search;
        Some(
            self.ranked
                .iter()
                .take(top)
                .map(|r| tavla_player::PlayValue {
                    index: r.index,
                    value: search.play_value(worth, &positions[r.index], r.probs),
                    probs: r.probs.to_array(),
                    ply: r.ply,
                })
                .collect(),
        )
    }

    fn evaluate(&mut self, state: &GameState) -> Option<[f32; 5]> {
        Some(self.search.evaluate(&state.position, self.ply).to_array())
    }

    /// Cubeless and luck-adjusted, by [`rollout_until`](crate::rollout::rollout_until) or
    /// [`rollout_plays_until`](crate::rollout::rollout_plays_until) with the player's
    /// networks, databases and pruning (`request.ply` capped at [`MAX_PLY`]); a finished
    /// game at the root has nothing to roll out (an empty list).
    fn rollout(
        &mut self,
        state: &GameState,
        afters: &[Position],
        request: &RolloutRequest,
        control: &RolloutControl,
    ) -> Option<Vec<RolloutValue>> {
        use crate::rollout::{rollout_plays_until, rollout_until, RolloutConfig, RolloutResult};
        let threads = match request.threads {
            0 => std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            t => t,
        };
        let config = RolloutConfig {
            games: request.games,
            seed: request.seed,
            threads,
            luck_adjust: true,
            truncate: request.truncate,
            balance_parity: false,
            ply: request.ply.min(MAX_PLY),
            deadline: None,
            jacoby: false,
        };
        let stop = || control.should_stop();
        let finished = |play: usize, g: &[f64; 5]| {
            control.record(play, crate::rollout::game_equity(g));
        };
        let value = |r: &RolloutResult, difference: f64, difference_stderr: f64| RolloutValue {
            games: r.games,
            probs: r.probs.to_array(),
            equity: r.equity,
            equity_stderr: r.equity_stderr,
            difference,
            difference_stderr,
        };
        let values = if afters.is_empty() {
            if state.position.is_game_over() {
                return Some(Vec::new());
            }
            rollout_until(&self.search, state.position, config, &finished, &stop)
                .map(|r| vec![value(&r, 0.0, 0.0)])
        } else {
            rollout_plays_until(&self.search, afters, config, &finished, &stop).map(|plays| {
                plays
                    .iter()
                    .map(|p| value(&p.result, p.difference, p.difference_stderr))
                    .collect()
            })
        };
        Some(values.unwrap_or_default())
    }

    /// By [`Search::cube_decision`] at the player's cube ply.
    fn cube_equities(&mut self, state: &GameState) -> Option<[f32; 3]> {
        self.search
            .cube_decision(state, self.cube_ply)
            .map(|a| [a.no_double, a.double_take, a.double_pass])
    }

    /// The best play by money equity, or in match play by match equity (the normalised
    /// cubeful value of each play's probabilities at the score, [`CubeAnalysis::play_value`]).
    /// In money play, once the cube has been turned (so the game is surely played with the
    /// cube), by the cubeful money equity ([`CubeAnalysis::money_play_value`]) unless
    /// [`NeuralPlayer::with_cubeless_plays`]; before that, cubeless, since a money game with a
    /// centred 1-cube may be a cubeless one, except under the Jacoby rule (a game surely played
    /// with the cube, [`PlayWorth::Jacoby`]).
    fn choose_play(&mut self, state: &GameState, _roll: Roll, plays: &PlayList) -> usize {
        if plays.len() <= 1 {
            return 0;
        }
        match self.play_worth(state) {
            PlayWorth::Cubeless => self.search.choose(plays, self.ply, &mut self.ranked),
            worth => self
                .search
                .choose_worth(plays, self.ply, &mut self.ranked, worth),
        }
    }

    /// Doubles when [`Search::cube_decision`] at the player's cube ply (its own ply unless
    /// [`NeuralPlayer::with_cube_ply`] says otherwise) says so: a cubeful search, in money
    /// play or over tavla's match equity table.
    fn wants_to_double(&mut self, state: &GameState) -> bool {
        // Not searched when it cannot double (the answer would be "not available").
        if !state.may_double() {
            return false;
        }
        let Some(a) = self.search.cube_decision(state, self.cube_ply) else {
            return false;
        };
        if state.may_beaver() && a.should_beaver() {
            // The opponent would beaver: the double is played for twice as much.
            return 2.0 * a.double_take > a.no_double;
        }
        a.action.doubles()
    }

    /// Takes when taking loses no more than passing, by [`Search::cube_decision`] from the
    /// doubler's side at the player's cube ply.
    fn accepts_double(&mut self, state: &GameState) -> bool {
        self.doubler_decision(state)
            .is_none_or(|a| a.opponent_takes())
    }

    /// Beavers when the double just taken is wrong: after it the game is worth more to the
    /// taker than nothing, by [`Search::cube_decision`] from the doubler's side at the
    /// player's cube ply (money play with beavers only).
    fn beavers(&mut self, state: &GameState) -> bool {
        if !state.may_beaver() {
            return false;
        }
        self.doubler_decision(state)
            .is_some_and(|a| a.should_beaver())
    }

    /// Offers the smallest resignation worth as much as playing on
    /// ([`Search::resignation_worth`] at the player's ply, and at least [`RESIGN_PLY`]: the
    /// 0-ply networks call some lopsided positions lost that are not), when there is one. A
    /// 0-ply look first spares the search in the positions, nearly all, where resigning is far
    /// from right.
    fn resigns(&mut self, state: &GameState, cube: bool) -> Option<Resign> {
        let quick = self.search.resignation_worth(state, cube, 0);
        quick.offer_within(25.0 * quick.tolerance, 5.0 * RESIGN_MAX_BETTER)?;
        self.search
            .resignation_worth(state, cube, self.ply.max(RESIGN_PLY))
            .offer()
    }

    /// Accepts when the resignation gives it as much as playing on
    /// ([`Search::resignation_worth`] at the player's ply, and at least [`RESIGN_PLY`]), or
    /// all it can still win.
    fn accepts_resignation(&mut self, state: &GameState, cube: bool, offered: Resign) -> bool {
        offered >= Resign::worst_for(&state.position)
            || self
                .search
                .resignation_worth(state, cube, self.ply.max(RESIGN_PLY))
                .accepts(offered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::CubeAction;

    /// The side on roll bears off its last two checkers next roll; the opponent has ten on its
    /// 1-point and five off: a sure single win.
    fn sure_single_win() -> Position {
        let mut b = [0i8; 26];
        b[1] = 2;
        b[24] = -10;
        Position::try_from(b).unwrap()
    }

    #[test]
    fn the_player_doubles_and_takes_in_money_play() {
        // A sure single win is cashed.
        let sure = sure_single_win();
        for ply in [0, 1, 2] {
            let mut player = NeuralPlayer::with_default_weights(ply);
            let start = GameState::money(Position::START);
            assert!(!player.wants_to_double(&start), "ply {ply}");
            assert!(player.accepts_double(&start), "ply {ply}");
            let won = GameState::money(sure);
            assert!(player.wants_to_double(&won), "ply {ply}");
            // Asked to take there (the position seen from the answering side): a pass.
            let asked = GameState::money(sure.flip());
            assert!(!player.accepts_double(&asked), "ply {ply}");
            // A 5-point match at 0-0: a double, and a pass; in the Crawford game no double.
            let in_match = GameState {
                match_length: 5,
                ..won
            };
            assert!(player.wants_to_double(&in_match), "ply {ply}");
            let asked_in_match = GameState {
                match_length: 5,
                ..asked
            };
            assert!(!player.accepts_double(&asked_in_match), "ply {ply}");
            let crawford = GameState {
                score: tavla_core::BySide { x: 4, o: 2 },
                crawford: true,
                ..in_match
            };
            assert!(!player.wants_to_double(&crawford), "ply {ply}");
            // The opponent's cube: no double.
            let theirs = GameState {
                cube: tavla_core::Cube {
                    log2: 1,
                    owner: tavla_core::CubeOwner::Side(won.turn.other()),
                },
                ..won
            };
            assert!(!player.wants_to_double(&theirs), "ply {ply}");
        }
    }

    #[test]
    fn in_match_play_plays_are_chosen_by_match_equity() {
        // At double match point only winning counts: the play with the best chance to win,
        // whatever its gammons. In money play, the best money equity.
        let w = Weights::default_weights();
        let mut player = NeuralPlayer::with_default_weights(0);
        let mut plays = PlayList::new();
        let mut differ = 0;
        for (roll, _) in Roll::ALL_21 {
            Position::START.legal_plays(roll, &mut plays);
            let values: Vec<Probabilities> = plays
                .positions()
                .iter()
                .map(|a| w.evaluate(&a.flip()).flip())
                .collect();
            let best = |f: &dyn Fn(&Probabilities) -> f32| {
                (0..values.len())
                    .max_by(|&a, &b| f(&values[a]).total_cmp(&f(&values[b])).then(b.cmp(&a)))
                    .unwrap()
            };
            let money = GameState::money(Position::START);
            let dmp = GameState {
                match_length: 1,
                ..money
            };
            let by_equity = player.choose_play(&money, roll, &plays);
            let by_win = player.choose_play(&dmp, roll, &plays);
            assert_eq!(by_equity, best(&|p| p.equity()), "{roll:?}");
            assert_eq!(by_win, best(&|p| p.win), "{roll:?}");
            differ += usize::from(by_equity != by_win);
        }
        // The two differ for some opening rolls (here, where gammons weigh).
        assert!(differ > 0);
    }

    #[test]
    fn once_the_cube_is_turned_money_plays_are_chosen_cubeful() {
        // The cube on 2: owned by the mover, or by its opponent. The player's plays are the
        // best by Janowski's cubeful money value; with `cubeless-plays`, by cubeless equity;
        // with the cube still in the middle (maybe a cubeless game), by cubeless equity.
        let w = Weights::default_weights();
        let mut cubeful = NeuralPlayer::with_default_weights(0);
        let mut cubeless = NeuralPlayer::with_default_weights(0).with_cubeless_plays(true);
        let mut plays = PlayList::new();
        let mut differ = 0;
        for owner in [tavla_core::Side::X, tavla_core::Side::O] {
            let state = GameState {
                cube: tavla_core::Cube {
                    log2: 1,
                    owner: tavla_core::CubeOwner::Side(owner),
                },
                ..GameState::money(Position::START)
            };
            let holder = CubeHolder::of(&state);
            for (roll, _) in Roll::ALL_21 {
                Position::START.legal_plays(roll, &mut plays);
                let values: Vec<(f32, f32)> = plays
                    .positions()
                    .iter()
                    .map(|a| {
                        let p = w.evaluate(&a.flip()).flip();
                        (p.equity(), CubeAnalysis::money_play_value(a, p, holder))
                    })
                    .collect();
                let best = |f: &dyn Fn(&(f32, f32)) -> f32| {
                    (0..values.len())
                        .max_by(|&a, &b| f(&values[a]).total_cmp(&f(&values[b])).then(b.cmp(&a)))
                        .unwrap()
                };
                let by_cube = cubeful.choose_play(&state, roll, &plays);
                assert_eq!(by_cube, best(&|v| v.1), "{owner:?} {roll:?}");
                assert_eq!(
                    cubeless.choose_play(&state, roll, &plays),
                    best(&|v| v.0),
                    "{roll:?}"
                );
                let centred = GameState::money(Position::START);
                assert_eq!(cubeful.choose_play(&centred, roll, &plays), best(&|v| v.0));
                differ += usize::from(by_cube != best(&|v| v.0));
            }
        }
        // Some choices differ (2 of the 42 here).
        assert!(differ > 0);
    }

    #[test]
    fn cubeful_search_values_a_sure_win_exactly() {
        let sure = sure_single_win();
        let mut s = Search::new(Arc::new(Weights::default_weights()));
        for ply in 0..=2 {
            for holder in CubeHolder::ALL {
                let a = s.cube_analysis(&sure, ply, holder, false);
                assert!((a.no_double - 1.0).abs() < 1e-5, "{ply} {holder:?} {a:?}");
            }
            // Losing side: every roll loses a single game.
            let a = s.cube_analysis(&sure.flip(), ply, CubeHolder::Centre, false);
            assert!(a.no_double < -0.99, "{ply} {a:?}");
            assert!(!a.action.doubles());
        }
    }

    #[test]
    fn match_cubeful_search_values_a_sure_win_exactly() {
        // 3-away 4-away in a 7-point match: a single win at the cube on 1 or 2.
        let sure = sure_single_win();
        let score = MatchScore::new(7, 4, 3, false).unwrap();
        let mut s = Search::new(Arc::new(Weights::default_weights()));
        for ply in 0..=2 {
            for (holder, cube) in [(CubeHolder::Centre, 1), (CubeHolder::OnRoll, 2)] {
                let a = s.match_cube_analysis(&sure, ply, holder, cube, score);
                let [no_double, _, pass] = a.match_winning_chances.unwrap();
                assert!(
                    (no_double - score.after(cube, 0)).abs() < 1e-5,
                    "{ply} {a:?}"
                );
                assert!((pass - no_double).abs() < 1e-5, "{ply} {a:?}");
                assert!((a.no_double - 1.0).abs() < 1e-4, "{ply} {a:?}");
                assert_eq!(a.action, CubeAction::DoublePass, "{ply} {holder:?}");
            }
            // The losing side loses a single game whatever it does.
            let a = s.match_cube_analysis(&sure.flip(), ply, CubeHolder::Centre, 1, score.flip());
            assert!(a.no_double < -0.99, "{ply} {a:?}");
            assert!(!a.action.doubles());
        }
    }

    #[test]
    fn after_the_crawford_game_the_trailer_doubles_at_once() {
        // 3-away against 1-away after the Crawford game: the leader's gammons count for
        // nothing, so the trailer loses nothing by doubling at once.
        let score = MatchScore::new(7, 4, 6, false).unwrap();
        assert!(score.post_crawford);
        let mut s = Search::new(Arc::new(Weights::default_weights()));
        for ply in 0..=1 {
            let a = s.match_cube_analysis(&Position::START, ply, CubeHolder::Centre, 1, score);
            assert!(a.action.doubles(), "{ply} {a:?}");
            assert!(a.opponent_takes(), "{ply} {a:?}");
        }
    }

    #[test]
    fn zero_ply_ranking_is_sorted_and_complete() {
        let mut s = Search::new(Arc::new(Weights::default_weights()));
        let mut plays = PlayList::new();
        Position::START.legal_plays(Roll::from_values(6, 5), &mut plays);
        let mut out = Vec::new();
        s.rank_plays(&plays, 0, &mut out);
        assert_eq!(out.len(), plays.len());
        assert!(out.windows(2).all(|w| w[0].equity() >= w[1].equity()));
        let mut seen: Vec<usize> = out.iter().map(|r| r.index).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..plays.len()).collect::<Vec<_>>());
    }

    #[test]
    fn one_ply_is_the_average_over_rolls() {
        // Check Search::evaluate at 1-ply against a direct computation.
        let w = Arc::new(Weights::default_weights());
        let mut s = Search::new(w.clone());
        let pos = Position::START;
        let got = s.evaluate(&pos, 1);
        let mut want = 0.0f32;
        let mut plays = PlayList::new();
        for (roll, weight) in Roll::ALL_21 {
            pos.legal_plays(roll, &mut plays);
            let best = plays
                .positions()
                .iter()
                .map(|a| w.evaluate(&a.flip()).flip().equity())
                .fold(f32::NEG_INFINITY, f32::max);
            want += best * f32::from(weight) / 36.0;
        }
        assert!(
            (got.equity() - want).abs() < 1e-4,
            "{} vs {want}",
            got.equity()
        );
        // Cached: the same again, no new evaluations.
        let nodes = s.nodes();
        assert_eq!(s.evaluate(&pos, 1), got);
        assert_eq!(s.nodes(), nodes);
    }

    #[test]
    fn pruning_by_the_full_networks_changes_no_value() {
        // Pruned by the same networks, the candidate kept is the play the full search would
        // choose, so every value is the unpruned one, with fewer full evaluations.
        let w = Arc::new(Weights::default_weights());
        let mut full = Search::new(w.clone());
        let mut pruned = Search::new(w.clone()).with_prune(Prune {
            weights: w.clone(),
            keep: 1,
        });
        let mut plays = PlayList::new();
        Position::START.legal_plays(Roll::from_values(3, 1), &mut plays);
        for ply in 1..=2 {
            for after in plays.positions() {
                let pos = after.flip();
                let (a, b) = (full.evaluate(&pos, ply), pruned.evaluate(&pos, ply));
                assert!(
                    (a.equity() - b.equity()).abs() < 1e-6,
                    "{pos:?} at {ply}-ply"
                );
            }
        }
        assert!(
            pruned.nodes() < full.nodes() / 3,
            "{} {}",
            pruned.nodes(),
            full.nodes()
        );
    }

    #[test]
    fn pruning_keeps_the_best_candidates_of_the_small_networks() {
        // With other pruning networks the values move a little, and keeping more plays than
        // any choice has is no pruning at all.
        let w = Arc::new(Weights::default_weights());
        let small = Arc::new(Weights::random(16, 16, 3));
        let pos = Position::START;
        let want = Search::new(w.clone()).evaluate(&pos, 1);
        let all = Search::new(w.clone())
            .with_prune(Prune {
                weights: small.clone(),
                keep: MAX_KEEP,
            })
            .evaluate(&pos, 1);
        assert_eq!(all, want);
        let mut two = Search::new(w.clone()).with_prune(Prune {
            weights: small,
            keep: 2,
        });
        let got = two.evaluate(&pos, 1);
        // Each roll's choice is among fewer plays: never better for the side on roll.
        assert!(
            got.equity() <= want.equity() + 1e-6,
            "{got:?} against {want:?}"
        );
        assert!(got != want, "the random networks keep other plays");
        assert!(two.nodes() <= 21 * 2);
    }

    #[test]
    fn deeper_ranking_keeps_every_play() {
        let mut s = Search::new(Arc::new(Weights::default_weights()));
        let mut plays = PlayList::new();
        Position::START.legal_plays(Roll::from_values(4, 2), &mut plays);
        let mut out = Vec::new();
        s.rank_plays(&plays, 2, &mut out);
        assert_eq!(out.len(), plays.len());
        assert_eq!(out[0].ply, 2);
    }
}

#[cfg(test)]
mod player_ranking_tests {
    use super::*;
    use tavla_core::{Cube, Dice, Side};

    #[test]
    fn the_ranked_plays_start_with_the_play_chosen() {
        // The bench positions with their rolls, as a cubeless money game, a money game with
        // the cube turned (ranked by cubeful equity) and a match (by match equity).
        let cube_owned = Cube {
            log2: 1,
            owner: tavla_core::CubeOwner::Side(Side::O),
        };
        let mut plays = PlayList::new();
        for ply in [0, 1] {
            let mut player = NeuralPlayer::with_default_weights(ply);
            assert_eq!(player.ply(), Some(ply));
            for (pos, roll) in crate::bench::positions().into_iter().take(30) {
                pos.legal_plays(roll, &mut plays);
                if plays.len() < 2 {
                    continue;
                }
                let money = GameState {
                    dice: Dice::Rolled(roll),
                    ..GameState::money(pos)
                };
                let states = [
                    money,
                    GameState {
                        cube: cube_owned,
                        ..money
                    },
                    GameState {
                        match_length: 7,
                        score: tavla_core::BySide { x: 2, o: 4 },
                        ..money
                    },
                ];
                for state in states {
                    let chosen = player.choose_play(&state, roll, &plays);
                    let ranked = player.rank_plays(&state, roll, &plays, 3).unwrap();
                    assert_eq!(ranked[0].index, chosen, "{state:?}");
                    assert!(ranked.len() == plays.len().min(3));
                    assert!(
                        ranked[0].ply == ply && ranked.windows(2).all(|w| w[0].ply >= w[1].ply)
                    );
                }
            }
        }
        // Its depth can be set, within the search's.
        let mut player = NeuralPlayer::with_default_weights(0);
        assert!(player.set_ply(2) && player.ply() == Some(2));
        assert!(!player.set_ply(MAX_PLY + 1) && player.ply() == Some(2));
        // It evaluates at that depth.
        let p = player.evaluate(&GameState::money(Position::START)).unwrap();
        let mut search = Search::new(Weights::shared_default());
        assert_eq!(p, search.evaluate(&Position::START, 2).to_array());
        assert_ne!(p, search.evaluate(&Position::START, 0).to_array());
    }
}
