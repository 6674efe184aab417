//! The nodes of a search tree, which several threads read and update at once without a
//! lock (lock-free tree parallelism): a node's move is written once before its parent
//! publishes it, the nodes live in chunks that never move (so the tree grows while other
//! threads walk it), visits and results are atomic additions, and the cached selection
//! terms are recomputed after every update (a racing thread may store a stale one, which the
//! next update puts right). The all-moves-as-first statistics, which each simulation updates
//! on many siblings, are added with plain loads and stores: two threads updating one node at
//! the same instant may lose one update of an estimate, where locked additions on those
//! shared nodes cost more than a second thread brings. A node also keeps its proven value,
//! once the search proves it (MCTS-solver).

use crate::game::Color;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::{Mutex, OnceLock, PoisonError};

/// `first_child` of a node without children.
const NO_CHILDREN: u32 = u32::MAX;

/// `first_child` of a leaf whose children one thread is making (the others play out from
/// it meanwhile).
const EXPANDING: u32 = u32::MAX - 1;

/// Selection value of unvisited nodes without a bias: above any visited one.
const UNVISITED: f64 = 1e9;

/// Scores are kept in fixed point, so concurrent updates are plain integer additions.
const SCORE_ONE: f64 = (1u64 << 20) as f64;

/// Bits of `bias` meaning "no bias" (a NaN no finite bias has).
const NO_BIAS: u32 = u32::MAX;

/// How the progressive bias `W p` of a node fades as the node is visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiasDecay {
    /// `W p / (visits + 1)`.
    Visits,
    /// `W p / sqrt(visits + 1)`: the bias fades more slowly and steers the tree longer.
    SqrtVisits,
}

impl BiasDecay {
    /// The share of the bias left after `visits` visits.
    fn fade(self, visits: u32) -> f64 {
        let visited = f64::from(visits + 1);
        match self {
            BiasDecay::Visits => 1.0 / visited,
            BiasDecay::SqrtVisits => 1.0 / visited.sqrt(),
        }
    }
}

/// What a node's selection value is made of beside its mean: the RAVE equivalence
/// parameter k (`None`: no RAVE) and how its progressive bias fades.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scoring {
    pub rave: Option<f64>,
    pub bias_decay: BiasDecay,
}

/// One position of the tree: the move leading to it and its statistics.
pub(super) struct Node<M> {
    /// The move leading here (`None` at the root) and the colour that played it; set once,
    /// before the node is reachable from its parent.
    head: OnceLock<(Option<M>, Color)>,
    first_child: AtomicU32,
    /// Published last (release), so a reader that sees children sees them complete.
    child_count: AtomicU32,
    visits: AtomicU32,
    /// Sum of the scores of the mover over the visits, in units of `1 / SCORE_ONE`.
    wins: AtomicU64,
    amaf_visits: AtomicU32,
    amaf_wins: AtomicU64,
    /// Cached selection value (f64 bits): the mean (blended with AMAF under RAVE), plus the
    /// decaying progressive bias when there is one; unvisited nodes without a bias get
    /// `UNVISITED` plus their AMAF mean so they are tried first.
    value: AtomicU64,
    /// Cached `1 / sqrt(visits)` (f64 bits; 0 while unvisited).
    explore: AtomicU64,
    /// The progressive bias `W p` (f32 bits; `NO_BIAS` without one).
    bias: AtomicU32,
    /// The game-theoretic value for the mover, once proven (`UNPROVEN`, `WON` or `LOST`).
    proof: AtomicU8,
}

const UNPROVEN: u8 = 0;
const WON: u8 = 1;
const LOST: u8 = 2;

impl<M: Copy> Node<M> {
    fn empty() -> Node<M> {
        Node {
            head: OnceLock::new(),
            first_child: AtomicU32::new(NO_CHILDREN),
            child_count: AtomicU32::new(0),
            visits: AtomicU32::new(0),
            wins: AtomicU64::new(0),
            amaf_visits: AtomicU32::new(0),
            amaf_wins: AtomicU64::new(0),
            value: AtomicU64::new(UNVISITED.to_bits()),
            explore: AtomicU64::new(0),
            bias: AtomicU32::new(NO_BIAS),
            proof: AtomicU8::new(UNPROVEN),
        }
    }

    /// The move leading here (`None` at the root).
    pub(super) fn mv(&self) -> Option<M> {
        self.head.get().and_then(|&(mv, _)| mv)
    }

    /// The move leading here (a child's) and the colour that played it.
    pub(super) fn child_head(&self) -> (M, Color) {
        match self.head.get() {
            Some(&(Some(mv), color)) => (mv, color),
            _ => panic!("child nodes carry a move"),
        }
    }

    /// The move leading here, which every node but the root has.
    pub(super) fn child_move(&self) -> M {
        self.mv().expect("child nodes carry a move")
    }

    /// The colour that played the move leading here.
    pub(super) fn mover(&self) -> Color {
        self.head.get().expect("nodes are made with their move").1
    }

    /// The children's indices (empty for a leaf).
    pub(super) fn children(&self) -> std::ops::Range<usize> {
        let count = self.child_count.load(Acquire) as usize;
        if count == 0 {
            return 0..0;
        }
        let first = self.first_child.load(Relaxed) as usize;
        first..first + count
    }

    /// True once the node has children.
    pub(super) fn has_children(&self) -> bool {
        self.child_count.load(Acquire) > 0
    }

    /// Claims the expansion of a leaf for the calling thread; false when the node has
    /// children or another thread is making them.
    pub(super) fn claim_expansion(&self) -> bool {
        self.first_child
            .compare_exchange(NO_CHILDREN, EXPANDING, Acquire, Relaxed)
            .is_ok()
    }

    /// True while a thread is making the node's children.
    #[cfg(test)]
    pub(super) fn expanding(&self) -> bool {
        self.first_child.load(Relaxed) == EXPANDING
    }

    /// Visits so far (each counted when a simulation passes on its way down).
    pub(super) fn visits(&self) -> u32 {
        self.visits.load(Relaxed)
    }

    /// Summed score of the mover over the visits.
    pub(super) fn wins(&self) -> f64 {
        self.wins.load(Relaxed) as f64 / SCORE_ONE
    }

    /// The selection value, with the exploration term weighted by `weight`.
    pub(super) fn score(&self, weight: f64) -> f64 {
        f64::from_bits(self.value.load(Relaxed))
            + weight * f64::from_bits(self.explore.load(Relaxed))
    }

    /// Whether the mover wins with best play from here (`None` until proven).
    pub(super) fn proof(&self) -> Option<bool> {
        match self.proof.load(Relaxed) {
            WON => Some(true),
            LOST => Some(false),
            _ => None,
        }
    }

    /// Records that the mover wins (`true`) or loses with best play from here (a value is
    /// the same whichever thread proves it).
    pub(super) fn prove(&self, won: bool) {
        self.proof.store(if won { WON } else { LOST }, Relaxed);
    }

    /// Gives a new node `visits` visits worth `score` each (a prior).
    pub(super) fn set_prior(&self, visits: u32, score: f64, scoring: Scoring) {
        self.visits.store(visits, Relaxed);
        self.wins.store(fixed(f64::from(visits) * score), Relaxed);
        self.refresh(scoring);
    }

    /// Sets the progressive bias of a new node.
    pub(super) fn set_bias(&self, bias: f32, scoring: Scoring) {
        self.bias.store(bias.to_bits(), Relaxed);
        self.refresh(scoring);
    }

    /// Counts a visit whose result is not known yet (a virtual loss until it is); returns
    /// the visits counted with it (one thread sees each count).
    pub(super) fn add_visit(&self, scoring: Scoring) -> u32 {
        let visits = self.visits.fetch_add(1, Relaxed) + 1;
        self.refresh(scoring);
        visits
    }

    /// Adds the result of a visit already counted.
    pub(super) fn add_result(&self, score: f64, scoring: Scoring) {
        self.wins.fetch_add(fixed(score), Relaxed);
        self.refresh_value(self.visits.load(Relaxed), scoring);
    }

    /// Adds an all-moves-as-first result (RAVE; not atomic, see the module's notes).
    pub(super) fn add_amaf(&self, score: f64, scoring: Scoring) {
        self.amaf_visits
            .store(self.amaf_visits.load(Relaxed) + 1, Relaxed);
        self.amaf_wins
            .store(self.amaf_wins.load(Relaxed) + fixed(score), Relaxed);
        self.refresh_value(self.visits.load(Relaxed), scoring);
    }

    /// Recomputes the cached selection terms from the statistics (racing threads may each
    /// store theirs: the next update puts it right).
    fn refresh(&self, scoring: Scoring) {
        let visits = self.visits.load(Relaxed);
        if visits > 0 {
            let explore = 1.0 / f64::from(visits).sqrt();
            self.explore.store(explore.to_bits(), Relaxed);
        }
        self.refresh_value(visits, scoring);
    }

    /// Recomputes the cached selection value alone (the visits did not change).
    fn refresh_value(&self, visits: u32, scoring: Scoring) {
        let amaf_visits = self.amaf_visits.load(Relaxed);
        let amaf = (amaf_visits > 0)
            .then(|| self.amaf_wins.load(Relaxed) as f64 / (SCORE_ONE * f64::from(amaf_visits)));
        let bias = match self.bias.load(Relaxed) {
            NO_BIAS => None,
            bits => Some(f64::from(f32::from_bits(bits))),
        };
        let value = if visits == 0 {
            match bias {
                Some(_) => amaf.unwrap_or(0.5),
                None => UNVISITED + amaf.unwrap_or(0.0),
            }
        } else {
            let n = f64::from(visits);
            let mean = self.wins.load(Relaxed) as f64 / (SCORE_ONE * n);
            match (scoring.rave, amaf) {
                (Some(k), Some(amaf)) => {
                    let beta = (k / (3.0 * n + k)).sqrt();
                    (1.0 - beta) * mean + beta * amaf
                }
                _ => mean,
            }
        };
        let value = match bias {
            Some(bias) => value + bias * scoring.bias_decay.fade(visits),
            None => value,
        };
        self.value.store(value.to_bits(), Relaxed);
    }

    /// Copies `self` into `slot`, a node just made in another arena (whose move, if set
    /// already, is kept), with its children (if any) starting at `first_child` there.
    fn copy_into(&self, slot: &Node<M>, first_child: Option<usize>) {
        if let Some(&head) = self.head.get() {
            let _ = slot.head.set(head);
        }
        if let Some(first) = first_child {
            slot.first_child.store(first as u32, Relaxed);
            slot.child_count
                .store(self.child_count.load(Relaxed), Relaxed);
        }
        let copy = |from: &AtomicU64, to: &AtomicU64| to.store(from.load(Relaxed), Relaxed);
        slot.visits.store(self.visits(), Relaxed);
        copy(&self.wins, &slot.wins);
        slot.amaf_visits
            .store(self.amaf_visits.load(Relaxed), Relaxed);
        copy(&self.amaf_wins, &slot.amaf_wins);
        copy(&self.value, &slot.value);
        copy(&self.explore, &slot.explore);
        slot.bias.store(self.bias.load(Relaxed), Relaxed);
        slot.proof.store(self.proof.load(Relaxed), Relaxed);
    }
}

/// A score (at least 0) in fixed point, rounded.
fn fixed(score: f64) -> u64 {
    (score * SCORE_ONE + 0.5) as u64
}

/// log2 of the nodes in the first chunk; chunk `c` holds `FIRST_CHUNK << c` nodes, so a
/// small search allocates little and a large one few chunks.
const FIRST_CHUNK_BITS: u32 = 10;
const FIRST_CHUNK: usize = 1 << FIRST_CHUNK_BITS;

/// The chunk holding node `index`, and the node's place in it.
fn locate(index: usize) -> (usize, usize) {
    // Chunk c starts at FIRST_CHUNK * (2^c - 1).
    let shifted = index + FIRST_CHUNK;
    let chunk = (usize::BITS - 1 - shifted.leading_zeros() - FIRST_CHUNK_BITS) as usize;
    (chunk, shifted - (FIRST_CHUNK << chunk))
}

/// The index of the first node of chunk `chunk`.
fn chunk_start(chunk: usize) -> usize {
    (FIRST_CHUNK << chunk) - FIRST_CHUNK
}

/// A chunk of nodes, made when the first node in it is needed.
type Chunk<M> = OnceLock<Box<[Node<M>]>>;

/// The nodes of one tree, in chunks allocated as the tree grows and never moved.
pub(super) struct Arena<M> {
    chunks: Box<[Chunk<M>]>,
    /// The next free index (children never straddle two chunks).
    next: Mutex<usize>,
    /// Nodes made so far.
    made: AtomicUsize,
    /// The nodes asked for when the arena was made (its copies ask for as many).
    capacity: usize,
}

impl<M: Copy> Arena<M> {
    /// An arena with room for `capacity` nodes (whatever the gaps the children of a node
    /// leave at the ends of chunks), holding only a root whose mover is `mover`.
    pub(super) fn with_root(capacity: usize, mover: Color) -> Arena<M> {
        // Each chunk may leave a gap smaller than the first chunk.
        let mut chunks = 1;
        while chunk_start(chunks) < capacity + chunks * FIRST_CHUNK {
            chunks += 1;
        }
        let arena = Arena {
            chunks: (0..chunks).map(|_| OnceLock::new()).collect(),
            next: Mutex::new(0),
            made: AtomicUsize::new(0),
            capacity,
        };
        let root = arena
            .allocate(1)
            .expect("a new arena has room for its root");
        let _ = arena[root].head.set((None, mover));
        arena
    }

    /// Nodes in the tree.
    pub(super) fn len(&self) -> usize {
        self.made.load(Relaxed)
    }

    /// The most nodes the arena can hold.
    fn room(&self) -> usize {
        chunk_start(self.chunks.len())
    }

    /// Room for `count` consecutive new nodes: the index of the first, or `None` when the
    /// arena is full.
    fn allocate(&self, count: usize) -> Option<usize> {
        let start = {
            let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
            let mut start = *next;
            // Children never straddle two chunks: skip to the next chunk that holds them.
            loop {
                let (chunk, _) = locate(start);
                if start + count <= chunk_start(chunk + 1) {
                    break;
                }
                start = chunk_start(chunk + 1);
            }
            if start + count > self.room() {
                return None;
            }
            *next = start + count;
            start
        };
        if count > 0 {
            let (chunk, _) = locate(start);
            self.chunks[chunk]
                .get_or_init(|| (0..FIRST_CHUNK << chunk).map(|_| Node::empty()).collect());
        }
        self.made.fetch_add(count, Relaxed);
        Some(start)
    }

    /// Makes the children of the leaf `parent`, which the calling thread has claimed: one per
    /// move, played by `mover`, each set up by `init` (index among them, node) before they
    /// are published. False when the arena is full (the leaf stays one).
    pub(super) fn expand(
        &self,
        parent: usize,
        moves: &[M],
        mover: Color,
        mut init: impl FnMut(usize, &Node<M>),
    ) -> bool {
        let node = &self[parent];
        let Some(first) = self.allocate(moves.len()) else {
            node.first_child.store(NO_CHILDREN, Release);
            return false;
        };
        for (k, &mv) in moves.iter().enumerate() {
            let child = &self[first + k];
            let _ = child.head.set((Some(mv), mover));
            init(k, child);
        }
        node.first_child.store(first as u32, Relaxed);
        node.child_count.store(moves.len() as u32, Release);
        true
    }

    /// A compact copy of the subtree under `top` (its move dropped), in an arena of the same
    /// capacity.
    pub(super) fn subtree(&self, top: usize) -> Arena<M> {
        let copy = Arena::with_root(self.capacity, self[top].mover());
        let mut queue = vec![(top, 0)];
        while let Some((old, new)) = queue.pop() {
            let range = self[old].children();
            let first = if range.is_empty() {
                None
            } else {
                copy.allocate(range.len())
            };
            self[old].copy_into(&copy[new], first);
            if let Some(first) = first {
                queue.extend(range.enumerate().map(|(k, child)| (child, first + k)));
            }
        }
        copy
    }
}

impl<M> Arena<M> {
    /// The nodes of `range`, which lie in one chunk (a node's children).
    pub(super) fn slice(&self, range: std::ops::Range<usize>) -> &[Node<M>] {
        if range.is_empty() {
            return &[];
        }
        let (chunk, offset) = locate(range.start);
        let nodes = self.chunks[chunk]
            .get()
            .expect("nodes are read only where they were made");
        &nodes[offset..][..range.len()]
    }
}

impl<M> std::ops::Index<usize> for Arena<M> {
    type Output = Node<M>;

    fn index(&self, index: usize) -> &Node<M> {
        let (chunk, offset) = locate(index);
        let nodes = self.chunks[chunk]
            .get()
            .expect("nodes are read only where they were made");
        &nodes[offset]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scoring of RAVE `rave` with the bias fading by the visits.
    fn scoring(rave: Option<f64>) -> Scoring {
        Scoring {
            rave,
            bias_decay: BiasDecay::Visits,
        }
    }

    #[test]
    fn the_bias_fades_by_the_visits_or_their_square_root() {
        for (bias_decay, fade) in [
            (BiasDecay::Visits, 1.0 / 4.0),
            (BiasDecay::SqrtVisits, 1.0 / 2.0),
        ] {
            let scoring = Scoring {
                rave: None,
                bias_decay,
            };
            let arena = Arena::<u16>::with_root(FIRST_CHUNK, Color::White);
            let node = &arena[0];
            node.set_bias(2.0, scoring);
            assert_eq!(
                node.score(0.0),
                2.5,
                "unvisited: the AMAF default and the whole bias"
            );
            for score in [1.0, 0.0, 1.0] {
                node.add_visit(scoring);
                node.add_result(score, scoring);
            }
            // Three visits, two won: 2/3 and the bias 2 over 4 or over 2.
            let expected = 2.0 / 3.0 + 2.0 * fade;
            assert!((node.score(0.0) - expected).abs() < 1e-9, "{bias_decay:?}");
        }
    }

    #[test]
    fn chunks_double_and_are_located_exactly() {
        let mut index = 0;
        for chunk in 0..20 {
            assert_eq!(chunk_start(chunk), index);
            for offset in [0, 1, (FIRST_CHUNK << chunk) - 1] {
                assert_eq!(locate(index + offset), (chunk, offset));
            }
            index += FIRST_CHUNK << chunk;
        }
    }

    #[test]
    fn children_never_straddle_two_chunks_and_a_full_arena_refuses() {
        let arena = Arena::<u16>::with_root(5 * FIRST_CHUNK, Color::White);
        let room = arena.room();
        assert!(room >= 5 * FIRST_CHUNK + arena.chunks.len() * FIRST_CHUNK);
        assert_eq!(arena.allocate(FIRST_CHUNK - 10), Some(1));
        // 20 nodes do not fit in the 9 left in the first chunk.
        assert_eq!(arena.allocate(20), Some(FIRST_CHUNK));
        assert_eq!(arena.len(), 1 + FIRST_CHUNK - 10 + 20);
        // Nor 3 x FIRST_CHUNK in what is left of the second chunk.
        assert_eq!(arena.allocate(3 * FIRST_CHUNK), Some(3 * FIRST_CHUNK));
        // The rest of the third chunk, then the whole fourth and last.
        assert_eq!(arena.allocate(FIRST_CHUNK), Some(6 * FIRST_CHUNK));
        assert_eq!(arena.allocate(8 * FIRST_CHUNK), Some(7 * FIRST_CHUNK));
        assert_eq!(room, 15 * FIRST_CHUNK);
        assert_eq!(arena.allocate(1), None);
        // Full but for the gaps at the ends of the first two chunks.
        assert_eq!(arena.len(), room - 9 - (3 * FIRST_CHUNK - 1044));
    }

    #[test]
    fn a_subtree_copy_keeps_moves_and_statistics() {
        let arena = Arena::<u16>::with_root(4 * FIRST_CHUNK, Color::White);
        assert!(arena[0].claim_expansion());
        assert!(arena.expand(0, &[7, 8], Color::Black, |k, node| {
            node.set_prior(10, 0.1 * (k + 1) as f64, scoring(None))
        }));
        assert!(!arena[0].claim_expansion(), "a node is expanded once");
        let second = arena[0].children().nth(1).unwrap();
        assert!(arena[second].claim_expansion());
        assert!(arena.expand(second, &[3, 4, 5], Color::White, |_, _| {}));
        for child in arena[second].children() {
            arena[child].add_visit(scoring(Some(100.0)));
            arena[child].add_result(1.0, scoring(Some(100.0)));
            arena[child].add_amaf(0.5, scoring(Some(100.0)));
        }
        let copy = arena.subtree(second);
        assert_eq!(copy.len(), 4);
        assert_eq!(
            copy.room(),
            arena.room(),
            "a copy is no larger than its original"
        );
        assert_eq!(copy[0].mv(), None);
        assert_eq!(copy[0].mover(), Color::Black);
        assert_eq!(copy[0].visits(), 10);
        assert!((copy[0].wins() - 2.0).abs() < 1e-6);
        let moves: Vec<u16> = copy[0].children().map(|c| copy[c].child_move()).collect();
        assert_eq!(moves, vec![3, 4, 5]);
        for (old, new) in arena[second].children().zip(copy[0].children()) {
            assert_eq!(copy[new].mover(), Color::White);
            assert_eq!(copy[new].visits(), arena[old].visits());
            assert_eq!(copy[new].score(1.0), arena[old].score(1.0));
        }
    }
}
