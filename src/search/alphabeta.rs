//! Alpha-beta: negamax with iterative deepening, aspiration windows at the root,
//! principal-variation (null-window) search, a transposition table, killer and history
//! move ordering, optional enhanced transposition cutoffs (a node first asks the table
//! about the positions its moves lead to), quiescence while a position is not quiet
//! (pending captures in checkers) and one more ply where the opponent threatens one (a set
//! number of times along a line), solved tables (endgame databases) below the root when the
//! game has them loaded, and time / node / depth limits. Evaluator values in [0,1] become
//! centi-scores in [-1000, 1000]; finished games score ±[`WIN`] minus the distance in plies.

use super::time_plan::TimePlan;
use super::{Deadline, Limits, SearchGame};
use crate::eval::Evaluator;
use crate::game::{Game, Solved};
use crate::huge_pages;
use crate::rng::Rng;
use rand::seq::SliceRandom;
use std::collections::{HashMap, TryReserveError};
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// The score of a won game at the root (a win in `n` plies scores `WIN - n`).
pub const WIN: i32 = 100_000;
/// Scores beyond this are forced wins or losses.
pub const WIN_THRESHOLD: i32 = WIN - 1_000;
const INFINITY: i32 = WIN + 1;
const MAX_PLY: usize = 256;
/// Depth searched when only a time or node limit is given.
const UNLIMITED_DEPTH: u32 = 64;
/// Iterations from this depth on start with an aspiration window around the last score.
const ASPIRATION_FROM: u32 = 4;
/// Half-width of the aspiration window (centi-scores).
const ASPIRATION: i32 = 50;
/// Late-move reductions apply from this remaining depth on...
const REDUCE_FROM_DEPTH: u32 = 3;
/// ...to the moves after this many (the table move and killers come first).
const REDUCE_AFTER_MOVES: usize = 3;
/// After the first threat extension of a line, a threatened horizon is extended again only
/// when its static score lies within this many centi-scores of the window: far outside it,
/// the threat is unlikely to change which side of the window the line falls on.
const THREAT_MARGIN: i32 = 150;
/// Threat extensions along a line unless [`AlphaBeta::with_threat_extensions`] says otherwise.
pub const DEFAULT_THREAT_EXTENSIONS: u32 = 1;
/// Enhanced transposition cutoffs from this remaining depth on unless
/// [`AlphaBeta::with_transposition_cutoffs`] says otherwise (0: none). From 3 plies they take
/// checkers' middle games to depth 19 in 0.93 of the time, without a gain seen in games.
pub const DEFAULT_ETC_FROM_DEPTH: u32 = 0;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// A table entry in 16 bytes, aligned to them: four to a cache line (two buckets of two),
/// none straddling two.
#[derive(Clone, Copy)]
#[repr(align(16))]
struct TtEntry {
    /// The lower half of the position's mixed hash ([`table_key`]; the upper half chose
    /// the slot).
    check: u32,
    score: i32,
    /// The game the entry was stored in ([`AlphaBeta::new_game`] starts another).
    generation: u16,
    /// The best move's index among the position's legal moves in the order the game
    /// lists them ([`NO_MOVE`] when there was none).
    best: u16,
    /// Remaining depth (searches stay far below 255 plies).
    depth: u8,
    bound: Bound,
}

const _: () = assert!(
    std::mem::size_of::<Option<TtEntry>>() == 16 && std::mem::align_of::<Option<TtEntry>>() == 16
);

/// [`TtEntry::best`] of a node without a best move.
const NO_MOVE: u16 = u16::MAX;

/// A position's hash mixed by an odd multiplier (a bijection): its upper half picks the
/// slot and its lower half is the entry's check, so that even a game whose hashes are small
/// numbers (below 2^32, as a toy game's) spreads over the table and never mistakes one
/// position for another.
fn table_key(hash: u64) -> (usize, u32) {
    let key = hash.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((key >> 32) as usize, key as u32)
}

/// What an alpha-beta search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchReport<M> {
    /// The best move of the deepest completed iteration (`None` when there is no legal move).
    pub best: Option<M>,
    /// Its score for the side to move (centi-scores, or ±(`WIN` - plies) for forced results).
    pub score: i32,
    /// The deepest completed iteration.
    pub depth: u32,
    /// Nodes visited, quiescence included.
    pub nodes: u64,
}

/// A reusable alpha-beta searcher (its tables persist between moves).
pub struct AlphaBeta<G: Game> {
    table: Vec<Option<TtEntry>>,
    /// Entries of other generations are ignored: a new game starts a new generation.
    generation: u16,
    killers: Vec<[Option<G::Move>; 2]>,
    history: HashMap<G::Move, i64, BuildHasherDefault<MoveHasher>>,
    /// Reused move lists, one per ply: the moves in search order with their sort keys and
    /// their indices among the legal moves.
    buffers: Vec<Vec<(i64, u16, G::Move)>>,
    /// Scratch list for move generation.
    legal: Vec<G::Move>,
    nodes: u64,
    node_limit: u64,
    deadline: Deadline,
    aborted: bool,
    /// Probe the game's solved tables ([`SearchGame::solved`]).
    probe_solved: bool,
    /// Threat extensions allowed along one line ([`AlphaBeta::with_threat_extensions`]).
    max_threat_extensions: u32,
    /// Threat extensions on the line being searched.
    threat_extensions: u32,
    /// Remaining depth from which a node looks up its children's table entries for a cut
    /// before searching them (0: never; [`AlphaBeta::with_transposition_cutoffs`]).
    etc_from_depth: u32,
    /// Scratch list of those children's buckets: slot, check and move index.
    child_buckets: Vec<(usize, u32, u16)>,
}

impl<G: SearchGame> AlphaBeta<G> {
    /// A searcher with a transposition table of 2^`table_bits` entries (panics when the
    /// table cannot be allocated; see [`AlphaBeta::try_new`]).
    pub fn new(table_bits: u32) -> AlphaBeta<G> {
        AlphaBeta::try_new(table_bits).expect("the transposition table fits in memory")
    }

    /// A searcher with a transposition table of 2^`table_bits` entries (at least one bucket
    /// of two), or the allocation error when the machine cannot provide the table.
    pub fn try_new(table_bits: u32) -> Result<AlphaBeta<G>, TryReserveError> {
        let entries = 1usize.checked_shl(table_bits.max(1)).unwrap_or(usize::MAX);
        let mut table = huge_pages::reserve(entries)?;
        table.resize(entries, None);
        Ok(AlphaBeta {
            table,
            generation: 0,
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: HashMap::default(),
            buffers: Vec::new(),
            legal: Vec::new(),
            nodes: 0,
            node_limit: u64::MAX,
            deadline: Deadline::default(),
            aborted: false,
            probe_solved: false,
            max_threat_extensions: DEFAULT_THREAT_EXTENSIONS,
            threat_extensions: 0,
            etc_from_depth: DEFAULT_ETC_FROM_DEPTH,
            child_buckets: Vec::new(),
        })
    }

    /// Bytes of one transposition table entry (for sizing a table in megabytes).
    pub fn entry_bytes() -> usize {
        std::mem::size_of::<Option<TtEntry>>()
    }

    /// The same searcher probing the game's solved tables (loaded by
    /// [`SearchGame::load_solved`]) below the root.
    pub fn probing_solved(mut self) -> AlphaBeta<G> {
        self.probe_solved = true;
        self
    }

    /// The same searcher extending up to `extensions` threatened horizons along a line
    /// ([`DEFAULT_THREAT_EXTENSIONS`] otherwise; 0 turns the extension off). The second and
    /// later ones are taken only where the static score lies within 150 centi-scores of the
    /// window.
    pub fn with_threat_extensions(mut self, extensions: u32) -> AlphaBeta<G> {
        self.max_threat_extensions = extensions;
        self
    }

    /// The same searcher with enhanced transposition cutoffs at nodes with at least
    /// `from_depth` plies left (0 turns them off): before its moves are searched, a node
    /// looks up the table entries of the positions they lead to, and one that proves a move
    /// reaches beta cuts the node at once, as the move's search would have.
    pub fn with_transposition_cutoffs(mut self, from_depth: u32) -> AlphaBeta<G> {
        self.etc_from_depth = from_depth;
        self
    }

    /// Forgets everything learnt in earlier games (in constant time: the table's entries of
    /// older generations stop counting; the table is cleared when the counter wraps).
    pub fn new_game(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.iter_mut().for_each(|e| *e = None);
        }
    }

    /// Searches `game` by iterative deepening within `limits` (depth 64 when only time or
    /// nodes are limited; depth 6 when nothing is). With a planned time
    /// ([`Limits::target`]) the iterations follow a [`TimePlan`] within the time limit.
    /// Root moves are shuffled first, so equal moves are chosen at random.
    pub fn search(
        &mut self,
        game: &G,
        evaluator: &dyn Evaluator<G>,
        limits: &Limits,
        rng: &mut Rng,
    ) -> SearchReport<G::Move> {
        let max_depth = match limits.depth {
            Some(depth) => depth.max(1),
            None if limits.time.is_some() || limits.nodes.is_some() => UNLIMITED_DEPTH,
            None => 6,
        };
        self.nodes = 0;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.deadline = Deadline::of(limits);
        self.aborted = false;
        self.threat_extensions = 0;
        self.history.clear();
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);

        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        moves.shuffle(rng);
        let mut report = SearchReport {
            best: moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
        };
        if moves.is_empty() {
            return report;
        }
        let started = Instant::now();
        let mut plan = limits
            .target
            .map(|target| TimePlan::new(target, limits.time.unwrap_or(target)));
        let mut position = game.clone();
        for depth in 1..=max_depth {
            if let Some(plan) = &plan {
                if report.depth > 0 && !plan.deepen(started.elapsed()) {
                    break;
                }
                self.deadline.set_end(started + plan.iteration_limit(false));
            }
            // Aspiration: a window around the last iteration's score, widened to the full
            // window on the side the score falls out of.
            let (mut alpha, mut beta) = match report.depth {
                0 => (-INFINITY, INFINITY),
                _ if depth < ASPIRATION_FROM || report.score.abs() >= WIN_THRESHOLD => {
                    (-INFINITY, INFINITY)
                }
                _ => (report.score - ASPIRATION, report.score + ASPIRATION),
            };
            let (score, best, window_alpha) = loop {
                let (score, best) =
                    self.root(&mut position, &mut moves, depth, alpha, beta, evaluator);
                if self.aborted {
                    break (score, best, alpha);
                }
                if score <= alpha && alpha > -INFINITY {
                    // The last best move fails low: a critical move may use all its time.
                    if let Some(plan) = &plan {
                        self.deadline.set_end(started + plan.iteration_limit(true));
                    }
                    alpha = -INFINITY;
                } else if score >= beta && beta < INFINITY {
                    beta = INFINITY;
                } else {
                    break (score, best, alpha);
                }
            };
            if self.aborted {
                // The unfinished iteration still counts where it proved another move better
                // than the last one's best (searched first) at this depth: a score above the
                // window's lower bound, not a bound below it.
                if best > 0 && score > window_alpha {
                    report.best = Some(moves[0]);
                    report.score = score;
                }
                break;
            }
            if let Some(plan) = &mut plan {
                let changed = report.depth > 0 && report.best != Some(moves[0]);
                plan.iteration_done(changed, score);
            }
            report = SearchReport {
                best: Some(moves[0]),
                score,
                depth,
                nodes: self.nodes,
            };
            if score.abs() >= WIN_THRESHOLD {
                break;
            }
        }
        report.nodes = self.nodes;
        report
    }

    /// One root iteration within the window (`alpha`, `beta`): the best score found (a
    /// bound when it falls outside the window) and the index that move had in `moves`,
    /// where it is now moved to the front for the next iteration. When the search is
    /// aborted, the best of the moves searched to the end.
    fn root(
        &mut self,
        game: &mut G,
        moves: &mut [G::Move],
        depth: u32,
        mut alpha: i32,
        beta: i32,
        evaluator: &dyn Evaluator<G>,
    ) -> (i32, usize) {
        let mut best = 0;
        let mut best_score = -INFINITY;
        for (i, &mv) in moves.iter().enumerate() {
            game.play(mv);
            let score =
                self.principal_variation(game, i == 0, depth - 1, alpha, beta, 1, evaluator);
            game.undo();
            if self.aborted {
                break;
            }
            if score > best_score {
                best_score = score;
                best = i;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        // Stable rotation keeps the shuffled order of the others.
        moves[..=best].rotate_right(1);
        (best_score, best)
    }

    /// The score of the move just played, for the side that played it: the first move of a
    /// node gets the whole window, later ones a null window first (they are expected to be
    /// worse) and the whole window again only when they turn out better than `alpha`.
    #[allow(clippy::too_many_arguments)]
    fn principal_variation(
        &mut self,
        game: &mut G,
        first: bool,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: usize,
        evaluator: &dyn Evaluator<G>,
    ) -> i32 {
        if !first {
            let score = -self.negamax(game, depth, -alpha - 1, -alpha, ply, evaluator);
            if score <= alpha || score >= beta || self.aborted {
                return score;
            }
        }
        -self.negamax(game, depth, -beta, -alpha, ply, evaluator)
    }

    fn out_of_budget(&mut self) -> bool {
        // The clock is read every 64 nodes: a slow evaluator (a large Tsetlin Machine takes
        // a few tenths of a millisecond a position) must not overrun a short move time.
        if self.nodes >= self.node_limit
            || (self.nodes.is_multiple_of(64) && self.deadline.passed())
        {
            self.aborted = true;
        }
        self.aborted
    }

    fn negamax(
        &mut self,
        game: &mut G,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: usize,
        evaluator: &dyn Evaluator<G>,
    ) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        let (slot, check) = self.bucket(game.hash());
        prefetch(&self.table[slot]);
        if let Some(outcome) = game.outcome() {
            return match outcome.winner {
                None => 0,
                Some(w) if w == game.side_to_move() => WIN - ply as i32,
                Some(_) => -(WIN - ply as i32),
            };
        }
        // Solved tables answer exactly below the root (the root still needs its move).
        if ply > 0 && self.probe_solved {
            if let Some(solved) = game.solved() {
                return match solved {
                    Solved::Win(plies) => WIN - (ply as i32 + plies as i32),
                    Solved::Loss(plies) => -(WIN - (ply as i32 + plies as i32)),
                    Solved::Draw => 0,
                };
            }
        }
        // A quiet position at the horizon is evaluated, unless the opponent threatens a
        // capture: then the side to move gets one more ply to answer (a set number of times
        // along a line, the later ones only near the window).
        let mut depth = depth;
        let static_score = || centi_score(evaluator.evaluate_one(game).value);
        let quiet_horizon = depth == 0 && game.is_quiet();
        let threat_extension = quiet_horizon
            && ply < MAX_PLY
            && self.threat_extensions < self.max_threat_extensions
            && game.is_threatened();
        if threat_extension {
            if self.threat_extensions > 0 {
                let stand = static_score();
                if stand < alpha - THREAT_MARGIN || stand > beta + THREAT_MARGIN {
                    return stand;
                }
            }
            depth = 1;
        } else if ply >= MAX_PLY || quiet_horizon {
            return static_score();
        }
        self.threat_extensions += u32::from(threat_extension);
        let score = self.search_moves(game, depth, alpha, beta, ply, (slot, check), evaluator);
        self.threat_extensions -= u32::from(threat_extension);
        score
    }

    /// The move loop of [`AlphaBeta::negamax`], with the table probe and store.
    #[allow(clippy::too_many_arguments)]
    fn search_moves(
        &mut self,
        game: &mut G,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        (slot, check): (usize, u32),
        evaluator: &dyn Evaluator<G>,
    ) -> i32 {
        // The moves are generated and ordered while the table entry, asked for by the caller,
        // is still on its way from memory; a cut by the entry wastes that work, but that is
        // the rarer case.
        game.legal_moves(&mut self.legal);
        let mut moves = self.ordered_moves(ply);
        // Children two plies from the horizon or more read the table: the first move's entry
        // is asked for now (it comes while this node's own entry does), each next move's
        // while the move before it is searched.
        let fetch_ahead = depth >= 2;
        if let Some(&(_, _, first)) = moves.first().filter(|_| fetch_ahead) {
            self.prefetch_after(game, first);
        }
        if let Some(entry) = self.probe(slot, check) {
            if u32::from(entry.depth) >= depth {
                let score = score_from_table(entry.score, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    moves.clear();
                    self.buffers[ply] = moves;
                    return score;
                }
            }
            // The table's move goes first; the others keep their order.
            let table_move = moves
                .iter()
                .position(|&(_, index, _)| index == entry.best && index != NO_MOVE);
            if let Some(at) = table_move.filter(|&at| at > 0) {
                moves[..=at].rotate_right(1);
                if fetch_ahead {
                    self.prefetch_after(game, moves[0].2);
                }
            }
        }
        if self.etc_from_depth > 0 && depth >= self.etc_from_depth {
            if let Some((score, index)) = self.transposition_cutoff(game, &moves, depth, beta, ply)
            {
                moves.clear();
                self.buffers[ply] = moves;
                self.store_result((slot, check), depth, ply, score, Bound::Lower, index);
                return score;
            }
        }
        let alpha_start = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = NO_MOVE;
        // Late moves of a quiet node (no capture to make, none threatened) are searched a
        // ply shallower first, and again at full depth only if they beat alpha.
        let reducible = depth >= REDUCE_FROM_DEPTH && game.is_quiet() && !game.is_threatened();
        for (i, &(_, index, mv)) in moves.iter().enumerate() {
            if let Some(&(_, _, next)) = moves.get(i + 1).filter(|_| fetch_ahead) {
                self.prefetch_after(game, next);
            }
            game.play(mv);
            let mut score = alpha + 1;
            if reducible && i >= REDUCE_AFTER_MOVES {
                score = -self.negamax(game, depth - 2, -alpha - 1, -alpha, ply + 1, evaluator);
            }
            if score > alpha && !self.aborted {
                score = self.principal_variation(
                    game,
                    i == 0,
                    depth.saturating_sub(1),
                    alpha,
                    beta,
                    ply + 1,
                    evaluator,
                );
            }
            game.undo();
            if self.aborted {
                break;
            }
            if score > best_score {
                best_score = score;
                best_move = index;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                let killers = &mut self.killers[ply];
                if killers[0] != Some(mv) {
                    killers[1] = killers[0];
                    killers[0] = Some(mv);
                }
                *self.history.entry(mv).or_insert(0) += i64::from(depth) * i64::from(depth);
                break;
            }
        }
        moves.clear();
        self.buffers[ply] = moves;
        if self.aborted {
            return 0;
        }
        let bound = if best_score <= alpha_start {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.store_result((slot, check), depth, ply, best_score, bound, best_move);
        best_score
    }

    /// Stores a node's result in this game's generation ([`AlphaBeta::store`]).
    fn store_result(
        &mut self,
        (slot, check): (usize, u32),
        depth: u32,
        ply: usize,
        score: i32,
        bound: Bound,
        best: u16,
    ) {
        self.store(
            slot,
            TtEntry {
                check,
                generation: self.generation,
                depth: depth.min(u32::from(u8::MAX)) as u8,
                score: score_to_table(score, ply),
                bound,
                best,
            },
        );
    }

    /// The enhanced transposition cutoff of a node with `moves` to search: the score and
    /// index of a move whose position's table entry, searched deep enough, proves it scores
    /// at least `beta` for the side to move here. Every entry is asked for first, then read.
    fn transposition_cutoff(
        &mut self,
        game: &G,
        moves: &[(i64, u16, G::Move)],
        depth: u32,
        beta: i32,
        ply: usize,
    ) -> Option<(i32, u16)> {
        let mut buckets = std::mem::take(&mut self.child_buckets);
        buckets.clear();
        for &(_, index, mv) in moves {
            if let Some(hash) = game.hash_after(mv) {
                let (slot, check) = self.bucket(hash);
                prefetch(&self.table[slot]);
                buckets.push((slot, check, index));
            }
        }
        let cut = buckets.iter().find_map(|&(slot, check, index)| {
            let entry = self.probe(slot, check)?;
            // The child's upper bound (or exact score) is this node's lower bound.
            let proven = u32::from(entry.depth) + 1 >= depth && entry.bound != Bound::Lower;
            let score = -score_from_table(entry.score, ply + 1);
            (proven && score >= beta).then_some((score, index))
        });
        self.child_buckets = buckets;
        cut
    }

    /// Asks for the table bucket of the position after `mv` (see [`SearchGame::hash_after`]).
    fn prefetch_after(&self, game: &G, mv: G::Move) {
        if let Some(hash) = game.hash_after(mv) {
            prefetch(&self.table[self.bucket(hash).0]);
        }
    }

    /// The first slot of the bucket of the position with `hash` (the two entries of a bucket
    /// share a cache line: the table is aligned to pages), and the check its entry carries.
    fn bucket(&self, hash: u64) -> (usize, u32) {
        let (high, check) = table_key(hash);
        (high & (self.table.len() - 1) & !1, check)
    }

    /// The entry of this game's position with `check` in the bucket at `slot` (even), if
    /// the bucket holds one.
    fn probe(&self, slot: usize, check: u32) -> Option<TtEntry> {
        let stored = |e: &TtEntry| e.check == check && e.generation == self.generation;
        self.table[slot]
            .filter(stored)
            .or_else(|| self.table[slot + 1].filter(stored))
    }

    /// Stores `entry` in the bucket at `slot` (even). The first entry keeps the deepest
    /// result of this game, the newer of equals (a position's new result replaces its own
    /// entry there); the second takes whatever the first does not keep, so that shallow
    /// results near the leaves cannot push out the deep ones near the root.
    fn store(&mut self, slot: usize, entry: TtEntry) {
        let keeps_first = self.table[slot].is_some_and(|first| {
            first.generation == self.generation
                && first.check != entry.check
                && first.depth > entry.depth
        });
        self.table[slot + usize::from(keeps_first)] = Some(entry);
    }

    /// The legal moves (already generated into `legal`) in search order before the table
    /// move is known (killers, then by history score), each with its sort key and its index
    /// among the legal moves.
    fn ordered_moves(&mut self, ply: usize) -> Vec<(i64, u16, G::Move)> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
        }
        let mut ordered = std::mem::take(&mut self.buffers[ply]);
        let killers = self.killers[ply];
        ordered.extend(self.legal.iter().enumerate().map(|(i, &mv)| {
            // Lists longer than the index can name keep their extra moves unnamed.
            let index = u16::try_from(i).unwrap_or(NO_MOVE);
            let key = if Some(mv) == killers[0] {
                i64::MIN + 1
            } else if Some(mv) == killers[1] {
                i64::MIN + 2
            } else {
                -self.history.get(&mv).copied().unwrap_or(0)
            };
            (key, index, mv)
        }));
        ordered.sort_by_key(|&(key, _, _)| key);
        ordered
    }
}

/// Asks the processor to fetch `entry` into the cache while the node's other work runs: a
/// table probe that misses the cache otherwise takes most of a node's time.
#[inline(always)]
fn prefetch<T>(entry: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint with no effect on memory; the pointer is a valid
    // reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((entry as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = entry;
}

/// A cheap hasher for the history table's keys (moves are a few small integers; the
/// standard hasher, built against adversarial keys, took a seventh of the search's time).
#[derive(Default)]
struct MoveHasher(u64);

impl Hasher for MoveHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A search score as an expected score in [0, 1] for the side it belongs to: the inverse of
/// [`centi_score`] inside [-1000, 1000], 1 or 0 for forced results.
pub fn score_value(score: i32) -> f64 {
    (0.5 + f64::from(score) / 2000.0).clamp(0.0, 1.0)
}

/// An evaluator value in [0,1] as the search's score in [-1000, 1000].
pub fn centi_score(value: f64) -> i32 {
    ((value - 0.5) * 2000.0).round() as i32
}

/// Forced-result scores are stored relative to the node, not the root.
fn score_to_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s >= WIN_THRESHOLD => s + ply as i32,
        s if s <= -WIN_THRESHOLD => s - ply as i32,
        s => s,
    }
}

/// The inverse of [`score_to_table`] at `ply`.
fn score_from_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s >= WIN_THRESHOLD => s - ply as i32,
        s if s <= -WIN_THRESHOLD => s + ply as i32,
        s => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;
    use crate::search::toy::{Neutral, TicTacToe};

    /// Plain minimax oracle: +(10 - plies) for a win of the side to move, 0 draw.
    fn minimax(game: &mut TicTacToe, ply: i32) -> i32 {
        if let Some(outcome) = game.outcome() {
            return match outcome.winner {
                None => 0,
                Some(w) if w == game.side_to_move() => 10 - ply,
                Some(_) => -(10 - ply),
            };
        }
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let mut best = i32::MIN;
        for mv in moves {
            game.play(mv);
            best = best.max(-minimax(game, ply + 1));
            game.undo();
        }
        best
    }

    /// The search's score of a position the oracle values at `oracle` (+(10 - plies) a win).
    fn score_of_oracle(oracle: i32) -> i32 {
        match oracle {
            0 => 0,
            s if s > 0 => WIN - (10 - s),
            s => -(WIN - (10 + s)),
        }
    }

    fn search(game: &TicTacToe, limits: &Limits, seed: u64) -> SearchReport<u8> {
        AlphaBeta::new(12).search(game, &Neutral, limits, &mut seeded(seed))
    }

    #[test]
    fn a_bucket_keeps_its_deepest_entry_and_replaces_the_other() {
        let mut searcher = AlphaBeta::<TicTacToe>::new(1);
        let entry = |check: u32, depth: u8, generation: u16| TtEntry {
            check,
            score: i32::from(depth),
            generation,
            best: NO_MOVE,
            depth,
            bound: Bound::Exact,
        };
        let depth_of = |s: &AlphaBeta<TicTacToe>, check| s.probe(0, check).map(|e| e.depth);
        searcher.store(0, entry(1, 10, 0));
        searcher.store(0, entry(2, 3, 0));
        assert_eq!(
            (depth_of(&searcher, 1), depth_of(&searcher, 2)),
            (Some(10), Some(3))
        );
        // A shallow result takes the second entry; the deep one stays.
        searcher.store(0, entry(3, 5, 0));
        assert_eq!(depth_of(&searcher, 1), Some(10));
        assert_eq!(depth_of(&searcher, 2), None);
        assert_eq!(depth_of(&searcher, 3), Some(5));
        // A position's new result replaces its own deep entry, even a shallower one.
        searcher.store(0, entry(1, 2, 0));
        assert_eq!(depth_of(&searcher, 1), Some(2));
        // A deeper result takes the first entry.
        searcher.store(0, entry(4, 12, 0));
        assert_eq!(
            (depth_of(&searcher, 4), depth_of(&searcher, 1)),
            (Some(12), None)
        );
        assert_eq!(depth_of(&searcher, 3), Some(5));
        // Another game's entries count for nothing, however deep.
        searcher.new_game();
        assert_eq!(depth_of(&searcher, 4), None);
        searcher.store(0, entry(5, 1, 1));
        assert_eq!(depth_of(&searcher, 5), Some(1));
        searcher.store(0, entry(6, 0, 1));
        assert_eq!(
            (depth_of(&searcher, 5), depth_of(&searcher, 6)),
            (Some(1), Some(0))
        );
        // An equally deep result is the newer one: it takes the first entry.
        searcher.store(0, entry(7, 1, 1));
        assert_eq!(
            (depth_of(&searcher, 7), depth_of(&searcher, 5)),
            (Some(1), None)
        );
    }

    #[test]
    fn empty_board_is_a_draw() {
        let depth9 = Limits {
            depth: Some(9),
            ..Limits::default()
        };
        let report = search(&TicTacToe::default(), &depth9, 1);
        assert_eq!(report.score, 0);
        assert_eq!(report.depth, 9);
    }

    #[test]
    fn a_spent_plan_stops_deepening_after_the_first_iteration() {
        // No planned time at all: one iteration, then the plan says stop, long before the
        // hard limit; with the depth limit alone the same search goes to depth 9.
        let planned = Limits {
            time: Some(std::time::Duration::from_secs(3600)),
            target: Some(std::time::Duration::ZERO),
            depth: Some(9),
            ..Limits::default()
        };
        let report = search(&TicTacToe::default(), &planned, 1);
        assert_eq!(report.depth, 1);
        assert!(report.best.is_some());
    }

    #[test]
    fn finds_forced_wins_at_their_exact_distance() {
        // Every position after two moves: the search's score and move match the oracle.
        let depth9 = Limits {
            depth: Some(9),
            ..Limits::default()
        };
        for first in 0..9 {
            for second in (0..9).filter(|&c| c != first) {
                let mut game = TicTacToe::from_moves(&[first, second]);
                let oracle = minimax(&mut game, 0);
                let report = search(&game, &depth9, 7);
                let expected = score_of_oracle(oracle);
                assert_eq!(report.score, expected, "after {first},{second}");
                game.play(report.best.unwrap());
                assert_eq!(-minimax(&mut game, 1), oracle, "after {first},{second}");
                if oracle > 0 {
                    // A win is found as soon as the depth reaches it, not later.
                    assert_eq!(report.depth as i32, 10 - oracle, "after {first},{second}");
                }
            }
        }
    }

    #[test]
    fn transposition_cutoffs_keep_forced_results_exact_and_save_nodes() {
        // Every position after up to two moves, searched to the end with and without the
        // cutoffs (one table for all, as in a game): the oracle's exact scores, and fewer
        // nodes with them.
        let depth9 = Limits {
            depth: Some(9),
            ..Limits::default()
        };
        let mut plain = AlphaBeta::new(12);
        let mut etc = AlphaBeta::new(12).with_transposition_cutoffs(1);
        let (mut plain_nodes, mut etc_nodes) = (0, 0);
        let openings = (0..9)
            .map(|first| vec![first])
            .chain((0..9).flat_map(|a| (0..9).filter(move |&b| b != a).map(move |b| vec![a, b])));
        for opening in openings {
            let mut game = TicTacToe::from_moves(&opening);
            let oracle = minimax(&mut game, 0);
            let expected = score_of_oracle(oracle);
            let without = plain.search(&game, &Neutral, &depth9, &mut seeded(3));
            let with = etc.search(&game, &Neutral, &depth9, &mut seeded(3));
            assert_eq!(without.score, expected, "after {opening:?}");
            assert_eq!(with.score, expected, "after {opening:?}");
            game.play(with.best.unwrap());
            assert_eq!(-minimax(&mut game, 1), oracle, "after {opening:?}");
            plain_nodes += without.nodes;
            etc_nodes += with.nodes;
        }
        assert!(
            etc_nodes < plain_nodes,
            "{etc_nodes} nodes with the cutoffs, {plain_nodes} without"
        );
    }

    #[test]
    fn an_unfinished_iteration_keeps_a_move_it_proved_better() {
        use crate::game::Color;
        use crate::search::toy::{TreeEval, TreeGame, TreeNode};
        // Black's moves from the root: A (node 1) looks best at depth 1 and loses at depth 2;
        // B (node 2) draws; C and D (nodes 3, 4) look worst and lose, after many replies.
        let node = |children: Vec<usize>, result, value| TreeNode {
            children,
            result,
            value,
        };
        let mut tree = vec![
            node(vec![1, 2, 3, 4], None, 0.5),
            node(vec![5], None, 0.2),
            node(vec![6], None, 0.4),
        ];
        let (c_leaves, d_leaves) = (7..37, 37..67);
        tree.push(node(c_leaves.clone().collect(), None, 0.6));
        tree.push(node(d_leaves.clone().collect(), None, 0.6));
        tree.push(node(vec![], Some(Some(Color::White)), 0.0));
        tree.push(node(vec![], Some(None), 0.5));
        for leaf in 7..67 {
            let white_wins = leaf == c_leaves.end - 1 || leaf == d_leaves.end - 1;
            tree.push(node(vec![], Some(white_wins.then_some(Color::White)), 0.5));
        }
        let game = TreeGame::new(tree);
        let mut kept_unfinished = false;
        for seed in 1..=4 {
            for nodes in 1..=150 {
                let limits = Limits {
                    nodes: Some(nodes),
                    ..Limits::default()
                };
                let report = AlphaBeta::new(8).search(&game, &TreeEval, &limits, &mut seeded(seed));
                let best = report.best.unwrap();
                if report.depth == 0 {
                    // Not even depth 1 finished: any move.
                    continue;
                }
                assert!(
                    best == 1 || best == 2,
                    "seed {seed}, {nodes} nodes: move {best}"
                );
                if report.depth >= 2 {
                    assert_eq!(best, 2, "seed {seed}, {nodes} nodes");
                }
                kept_unfinished |= report.depth == 1 && best == 2;
            }
        }
        assert!(kept_unfinished, "no unfinished depth-2 iteration was kept");
    }

    #[test]
    fn later_threat_extensions_see_a_second_threat_near_the_window() {
        use crate::search::toy::{TreeEval, TreeGame, TreeNode};
        // Black's moves at depth 1: B (node 2) is quiet and even. A (node 1) looks good for
        // White, which is threatened there; White's one answer (node 3) leaves Black
        // threatened in a position that looks won for Black, but Black's one move there
        // (node 4) looks won for White.
        let node = |children: Vec<usize>, value| TreeNode {
            children,
            result: None,
            value,
        };
        let tree = vec![
            node(vec![1, 2], 0.5),
            node(vec![3], 0.9),
            node(vec![], 0.5),
            node(vec![4], 0.95),
            node(vec![], 0.95),
        ];
        let game = TreeGame::new(tree).with_threatened(vec![1, 3]);
        let limits = Limits {
            depth: Some(1),
            ..Limits::default()
        };
        for seed in 1..=4 {
            let best = |extensions| {
                AlphaBeta::new(8)
                    .with_threat_extensions(extensions)
                    .search(&game, &TreeEval, &limits, &mut seeded(seed))
                    .best
            };
            // Without extensions Black sees node 1's value and keeps B; one extension sees
            // White's answer and stops at node 3, which looks won for Black; a second sees
            // what Black's move there leads to.
            assert_eq!(best(0), Some(2), "seed {seed}");
            assert_eq!(best(1), Some(1), "seed {seed}");
            assert_eq!(best(2), Some(2), "seed {seed}");
        }
    }

    #[test]
    fn node_limit_is_deterministic() {
        let limits = Limits {
            nodes: Some(500),
            ..Limits::default()
        };
        let game = TicTacToe::from_moves(&[4]);
        let a = search(&game, &limits, 3);
        let b = search(&game, &limits, 3);
        assert_eq!(a, b);
        assert!(a.nodes <= 500);
    }
}
