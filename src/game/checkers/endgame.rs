//! Endgame databases: every English checkers position of at most N pieces, solved by
//! retrograde analysis: whether the side to move wins, loses or draws with best play, and in
//! how many plies the game ends (the shortest win, the longest loss).
//!
//! Positions are grouped by material signature (black men, black kings, white men, white
//! kings). A signature's positions are indexed by the combination ranks of its four piece
//! sets over the 32 squares (slots whose sets overlap, or that put a man on its crowning
//! row, are not positions and stay unused). A move either stays in the signature (a plain
//! move that does not crown) or leaves it (a capture, a crowning): signatures are solved
//! fewest pieces first and, among equal counts, fewest men first, so every move that leaves
//! a signature lands in one already solved. Within a signature the solver follows the moves
//! backwards from the decided positions in order of their distance to the end, as Dijkstra
//! does: a position is won in d + 1 plies once one of its successors is lost in d, and lost
//! in d + 1 once all its successors are won, the last of them in d. What nothing decides is
//! drawn (checkers' draw rules aside: the databases know no move counters or repetitions).

use super::board::Position;
use crate::game::{Color, Solved};
use std::collections::HashMap;
use std::fmt;
use std::io::{Read as _, Write as _};
use std::path::Path;

/// The counts of black men, black kings, white men and white kings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature(pub [u8; 4]);

impl Signature {
    /// The signature of `position`.
    pub fn of(position: &Position) -> Signature {
        Signature::of_planes(&position.planes())
    }

    /// The signature of a position's piece sets ([`Position::planes`]).
    fn of_planes(planes: &[u32; 4]) -> Signature {
        Signature(planes.map(|p| p.count_ones() as u8))
    }

    /// All pieces.
    pub fn pieces(&self) -> u32 {
        self.0.iter().map(|&n| n as u32).sum()
    }

    /// Men of both colours.
    pub fn men(&self) -> u32 {
        (self.0[0] + self.0[2]) as u32
    }

    /// Index slots per side to move: the product of the sets' combination counts.
    pub fn slots(&self) -> usize {
        self.0.iter().map(|&n| binomial(32, n as u32)).product()
    }

    /// Every signature with both colours present and at most `max` pieces, in solving
    /// order: fewer pieces first, then fewer men.
    pub fn up_to(max: u32) -> Vec<Signature> {
        let mut all = Vec::new();
        for bm in 0..=max as u8 {
            for bk in 0..=max as u8 {
                for wm in 0..=max as u8 {
                    for wk in 0..=max as u8 {
                        let s = Signature([bm, bk, wm, wk]);
                        if s.pieces() <= max && bm + bk > 0 && wm + wk > 0 {
                            all.push(s);
                        }
                    }
                }
            }
        }
        all.sort_by_key(|s| (s.pieces(), s.men(), s.0));
        all
    }

    /// The number of positions (one side to move) by counting: men on their 28 squares,
    /// kings on 32, no two pieces on one square.
    pub fn positions_by_formula(&self) -> u64 {
        // Black men avoid squares 29-32, white men 1-4: the 24 middle squares are open to
        // both, 4 only to black men, 4 only to white men. Place the black men, split
        // between the middle and their own 4 squares, then the white men likewise, then
        // the kings on whatever is left.
        let [bm, bk, wm, wk] = self.0.map(|n| n as u64);
        let c = |n: u64, k: u64| binomial(n as u32, k as u32) as u64;
        let mut total = 0;
        for black_own in 0..=bm.min(4) {
            let black_mid = bm - black_own;
            for white_own in 0..=wm.min(4) {
                let white_mid = wm - white_own;
                if black_mid + white_mid > 24 {
                    continue;
                }
                let men = c(4, black_own)
                    * c(24, black_mid)
                    * c(4, white_own)
                    * c(24 - black_mid, white_mid);
                let free = 32 - bm - wm;
                total += men * c(free, bk) * c(free - bk, wk);
            }
        }
        total
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let [bm, bk, wm, wk] = self.0;
        write!(f, "{bm}m{bk}k v {wm}m{wk}k")
    }
}

/// The first bytes of an endgame database file.
const MAGIC: &[u8; 8] = b"TMBOTEG\0";
/// Its format version.
const FORMAT: u32 = 1;
/// Most pieces a file may hold (the index arithmetic stays far inside usize).
const MOST_PIECES: u32 = 6;

/// FNV-1a, 64 bits, fed piece by piece.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The value byte of a position: 0 not a position, 1 draw, 2 + d the game ends in d plies
/// (won for the side to move when d is odd, lost when even).
const DRAW: u8 = 1;
const LONGEST: u32 = 253;

fn decode(byte: u8) -> Option<Solved> {
    match byte {
        0 => None,
        DRAW => Some(Solved::Draw),
        b => {
            let d = (b - 2) as u32;
            Some(if d % 2 == 1 {
                Solved::Win(d)
            } else {
                Solved::Loss(d)
            })
        }
    }
}

fn encode(plies: u32) -> u8 {
    assert!(plies <= LONGEST, "a game longer than {LONGEST} plies");
    (plies + 2) as u8
}

/// `n` choose `k` for n up to 32.
fn binomial(n: u32, k: u32) -> usize {
    if k > n {
        return 0;
    }
    (0..k).fold(1usize, |acc, i| acc * (n - i) as usize / (i + 1) as usize)
}

/// Binomials C(n, k) for n < 33, k < 13 (a table: ranks are computed for every move).
struct Binomials([[u32; 13]; 33]);

impl Binomials {
    fn new() -> Binomials {
        let mut table = [[0u32; 13]; 33];
        for (n, row) in table.iter_mut().enumerate() {
            for (k, value) in row.iter_mut().enumerate() {
                *value = binomial(n as u32, k as u32) as u32;
            }
        }
        Binomials(table)
    }

    /// The rank of a set of squares among the sets of its size (combinatorial number
    /// system: the i-th lowest bit at position p adds C(p, i + 1)).
    fn rank(&self, mut set: u32) -> usize {
        let mut rank = 0;
        let mut i = 1;
        while set != 0 {
            rank += self.0[set.trailing_zeros() as usize][i] as usize;
            set &= set - 1;
            i += 1;
        }
        rank
    }

    /// The set of `k` squares of rank `rank`.
    fn unrank(&self, mut rank: usize, k: usize) -> u32 {
        let mut set = 0;
        for i in (1..=k).rev() {
            let mut p = i - 1;
            while p + 1 < 32 && self.0[p + 1][i] as usize <= rank {
                p += 1;
            }
            rank -= self.0[p][i] as usize;
            set |= 1 << p;
        }
        set
    }
}

/// Solved positions of every signature up to a number of pieces.
pub struct Endgame {
    max_pieces: u32,
    binomials: Binomials,
    /// Per signature, the value bytes: black to move at `index`, white at `slots + index`.
    tables: HashMap<Signature, Vec<u8>>,
}

/// Moves of one position inside its signature, and what the moves out of it give.
#[derive(Clone, Copy, Default)]
struct Pending {
    /// Successors inside the signature not yet known to be won for the opponent.
    open: u8,
    /// A move out of the signature draws.
    exit_draw: bool,
    /// The latest end among the moves out (all of them won for the opponent so far).
    exit_longest: u8,
    /// Known to be won in this many plies at most (a successor lost); `NOT_WON` if not.
    won_in: u8,
}

const NOT_WON: u8 = u8::MAX;

impl Endgame {
    /// Solves every signature of at most `max_pieces` pieces, telling `progress` each one
    /// as it is done (its signature and its number of positions).
    pub fn build(max_pieces: u32, mut progress: impl FnMut(Signature, u64)) -> Endgame {
        let mut db = Endgame {
            max_pieces,
            binomials: Binomials::new(),
            tables: HashMap::new(),
        };
        for signature in Signature::up_to(max_pieces) {
            let (table, positions) = db.solve(signature);
            db.tables.insert(signature, table);
            progress(signature, positions);
        }
        db
    }

    /// Writes the tables to `path` (through a temporary file and a rename): a magic word,
    /// the format version, the most pieces, each signature's table in solving order, and a
    /// checksum of all that.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let mut hash = Fnv::new();
        let mut header = Vec::new();
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT.to_le_bytes());
        header.extend_from_slice(&self.max_pieces.to_le_bytes());
        crate::tm::persist::write_atomically_with(path, |out| {
            hash.add(&header);
            out.write_all(&header)?;
            for signature in Signature::up_to(self.max_pieces) {
                let table = &self.tables[&signature];
                hash.add(table);
                out.write_all(table)?;
            }
            out.write_all(&hash.0.to_le_bytes())
        })
        .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads tables written by [`Endgame::save`], checking their sizes and checksum.
    pub fn load(path: &Path) -> Result<Endgame, String> {
        let fail = |what: &str| format!("{}: {what}", path.display());
        let io_fail = |e: std::io::Error| fail(&e.to_string());
        // Read table by table into the tables themselves, so that the file's bytes are never
        // held twice.
        let file = std::fs::File::open(path).map_err(io_fail)?;
        let size = file.metadata().map_err(io_fail)?.len();
        let mut reader = std::io::BufReader::new(file);
        let mut header = [0u8; MAGIC.len() + 8];
        let body = size.saturating_sub(8);
        if body < header.len() as u64
            || reader.read_exact(&mut header).is_err()
            || &header[..MAGIC.len()] != MAGIC
        {
            return Err(fail("not an endgame database file"));
        }
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().unwrap());
        let (format, max_pieces) = (word(MAGIC.len()), word(MAGIC.len() + 4));
        if format != FORMAT {
            return Err(fail(&format!(
                "format {format}; this program reads {FORMAT}"
            )));
        }
        if !(2..=MOST_PIECES).contains(&max_pieces) {
            return Err(fail(&format!("{max_pieces} pieces is out of range")));
        }
        let mut hash = Fnv::new();
        hash.add(&header);
        let mut tables = HashMap::new();
        let mut at = header.len() as u64;
        for signature in Signature::up_to(max_pieces) {
            let len = 2 * signature.slots();
            if at + len as u64 > body {
                return Err(fail(&format!("the table of {signature} is cut short")));
            }
            let mut table = vec![0u8; len];
            reader.read_exact(&mut table).map_err(io_fail)?;
            hash.add(&table);
            tables.insert(signature, table);
            at += len as u64;
        }
        if at != body {
            return Err(fail("bytes after the last table"));
        }
        let mut stored = [0u8; 8];
        reader.read_exact(&mut stored).map_err(io_fail)?;
        if hash.0.to_le_bytes() != stored {
            return Err(fail("checksum mismatch: the file is damaged"));
        }
        Ok(Endgame {
            max_pieces,
            binomials: Binomials::new(),
            tables,
        })
    }

    /// The verdicts of every position of `signature` (both sides to move), in index order.
    pub fn verdicts(&self, signature: Signature) -> Vec<Solved> {
        self.tables
            .get(&signature)
            .map_or_else(Vec::new, |t| t.iter().filter_map(|&b| decode(b)).collect())
    }

    /// The most pieces the database answers for.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Bytes of the tables.
    pub fn bytes(&self) -> usize {
        self.tables.values().map(Vec::len).sum()
    }

    /// The verdict for `position`, if it has at most [`Endgame::max_pieces`] pieces.
    pub fn probe(&self, position: &Position) -> Option<Solved> {
        let planes = position.planes();
        let us = position.side_to_move();
        let mine = match us {
            Color::Black => planes[0] | planes[1],
            Color::White => planes[2] | planes[3],
        };
        if mine == 0 {
            return Some(Solved::Loss(0));
        }
        let signature = Signature::of_planes(&planes);
        let table = self.tables.get(&signature)?;
        decode(table[self.slot(signature, planes, us)])
    }

    fn slot(&self, signature: Signature, planes: [u32; 4], side: Color) -> usize {
        let mut index = 0;
        for (k, &plane) in planes.iter().enumerate() {
            index = index * binomial(32, signature.0[k] as u32) + self.binomials.rank(plane);
        }
        index + side.index() * signature.slots()
    }

    /// The position at `slot` of `signature`, if the slot is one.
    fn position_at(&self, signature: Signature, slot: usize) -> Option<Position> {
        let slots = signature.slots();
        let side = if slot < slots {
            Color::Black
        } else {
            Color::White
        };
        let mut index = slot % slots;
        let mut planes = [0u32; 4];
        for k in (0..4).rev() {
            let n = binomial(32, signature.0[k] as u32);
            planes[k] = self.binomials.unrank(index % n, signature.0[k] as usize);
            index /= n;
        }
        let all = planes.iter().fold(0u32, |acc, p| acc | p);
        // Overlapping sets are no position; nor are men on their crowning rows, which
        // `from_planes` refuses.
        (all.count_ones() == signature.pieces())
            .then(|| Position::from_planes(planes, side).ok())
            .flatten()
    }

    /// The verdict for a successor outside `signature` (solved already).
    fn exit(&self, after: &Position) -> Solved {
        self.probe(after)
            .expect("every move out of a signature lands in one solved before it")
    }

    /// Solves one signature; returns its table and its number of positions.
    fn solve(&self, signature: Signature) -> (Vec<u8>, u64) {
        let total = 2 * signature.slots();
        let mut values = vec![0u8; total];
        let mut pending = vec![
            Pending {
                won_in: NOT_WON,
                ..Pending::default()
            };
            total
        ];
        // Predecessor lists inside the signature, in compressed rows: first the in-degree
        // of every slot, then the edges.
        let mut inner: Vec<(u32, u32)> = Vec::new();
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); LONGEST as usize + 2];
        let mut positions = 0u64;
        for slot in 0..total {
            let Some(position) = self.position_at(signature, slot) else {
                continue;
            };
            positions += 1;
            values[slot] = DRAW; // until decided
            let moves = position.legal_moves();
            let p = &mut pending[slot];
            if moves.is_empty() {
                buckets[0].push(slot as u32);
                continue;
            }
            let mut shortest_win = u32::MAX;
            for mv in &moves {
                let after = position.after(mv);
                let planes = after.planes();
                if Signature::of_planes(&planes) == signature {
                    let next = self.slot(signature, planes, after.side_to_move());
                    inner.push((next as u32, slot as u32));
                    p.open += 1;
                    continue;
                }
                match self.exit(&after) {
                    Solved::Loss(d) => shortest_win = shortest_win.min(d + 1),
                    Solved::Draw => p.exit_draw = true,
                    Solved::Win(d) => p.exit_longest = p.exit_longest.max(d as u8),
                }
            }
            if shortest_win != u32::MAX {
                p.won_in = shortest_win as u8;
                buckets[shortest_win as usize].push(slot as u32);
            } else if p.open == 0 && !p.exit_draw {
                buckets[p.exit_longest as usize + 1].push(slot as u32);
            }
        }
        // Compressed rows of predecessors by successor.
        let mut start = vec![0u32; total + 1];
        for &(next, _) in &inner {
            start[next as usize + 1] += 1;
        }
        for i in 0..total {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut before = vec![0u32; inner.len()];
        for &(next, prev) in &inner {
            before[fill[next as usize] as usize] = prev;
            fill[next as usize] += 1;
        }
        drop(inner);
        let mut decided = vec![false; total];
        for d in 0..buckets.len() {
            let bucket = std::mem::take(&mut buckets[d]);
            for slot in bucket {
                let slot = slot as usize;
                if decided[slot] {
                    continue;
                }
                decided[slot] = true;
                values[slot] = encode(d as u32);
                let won = d % 2 == 1;
                for &prev in &before[start[slot] as usize..start[slot + 1] as usize] {
                    let prev = prev as usize;
                    if decided[prev] {
                        continue;
                    }
                    let p = &mut pending[prev];
                    if !won {
                        // The mover of `prev` reaches a lost position: a win in d + 1, sooner
                        // than any win found through the moves out.
                        if ((d + 1) as u8) < p.won_in {
                            p.won_in = (d + 1) as u8;
                            buckets[d + 1].push(prev as u32);
                        }
                    } else {
                        p.open -= 1;
                        if p.open == 0 && p.won_in == NOT_WON && !p.exit_draw {
                            let longest = (d as u32).max(p.exit_longest as u32) + 1;
                            buckets[longest as usize].push(prev as u32);
                        }
                    }
                }
            }
        }
        (values, positions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::checkers::Checkers;
    use crate::rng::seeded;
    use rand::Rng as _;

    #[test]
    fn ranks_and_unranks_are_inverse() {
        let b = Binomials::new();
        for k in 0..=4usize {
            let n = binomial(32, k as u32);
            for rank in (0..n).step_by(97).chain([n.saturating_sub(1)]) {
                let set = b.unrank(rank, k);
                assert_eq!(set.count_ones() as usize, k);
                assert_eq!(b.rank(set), rank, "k {k}");
            }
        }
    }

    #[test]
    fn known_endings() {
        let db = Endgame::build(3, |_, _| {});
        let verdict = |fen: &str| {
            db.probe(Checkers::from_fen(fen).unwrap().position())
                .unwrap()
        };
        // Two kings against one win; one king against one draws.
        assert!(matches!(verdict("B:WK18:BK1,K32"), Solved::Win(_)));
        assert!(matches!(verdict("W:WK18:BK1,K32"), Solved::Loss(_)));
        assert_eq!(verdict("B:WK18:BK1"), Solved::Draw);
    }

    /// Every position's verdict follows from its successors' by the rules of best play.
    #[test]
    fn every_verdict_agrees_with_its_successors() {
        let db = Endgame::build(3, |_, _| {});
        for signature in Signature::up_to(3) {
            for slot in 0..2 * signature.slots() {
                let Some(position) = db.position_at(signature, slot) else {
                    continue;
                };
                let verdict = db.probe(&position).unwrap();
                let next: Vec<Solved> = position
                    .legal_moves()
                    .iter()
                    .map(|m| db.probe(&position.after(m)).unwrap())
                    .collect();
                let fastest_loss = next
                    .iter()
                    .filter_map(|v| match v {
                        Solved::Loss(d) => Some(*d),
                        _ => None,
                    })
                    .min();
                let expected = if next.is_empty() {
                    Solved::Loss(0)
                } else if let Some(d) = fastest_loss {
                    Solved::Win(d + 1)
                } else if next.contains(&Solved::Draw) {
                    Solved::Draw
                } else {
                    let longest = next
                        .iter()
                        .map(|v| match v {
                            Solved::Win(d) => *d,
                            _ => unreachable!(),
                        })
                        .max()
                        .unwrap();
                    Solved::Loss(longest + 1)
                };
                assert_eq!(verdict, expected, "{position:?}");
            }
        }
    }

    /// Whether the side to move can leave the opponent without a move within `n` plies.
    fn wins_within(position: &Position, n: u32) -> bool {
        n >= 1
            && position.legal_moves().iter().any(|m| {
                let after = position.after(m);
                !after.has_moves() || (n >= 3 && loses_within(&after, n - 1))
            })
    }

    /// Whether the side to move is left without a move within `n` plies whatever it does.
    fn loses_within(position: &Position, n: u32) -> bool {
        let moves = position.legal_moves();
        moves.is_empty() || (n >= 2 && moves.iter().all(|m| wins_within(&position.after(m), n - 1)))
    }

    /// A plain search, which knows nothing of the database, confirms the verdicts of random
    /// positions: wins and losses in exactly their number of plies, draws not decided within
    /// seven.
    #[test]
    fn a_plain_search_confirms_random_verdicts() {
        let db = Endgame::build(3, |_, _| {});
        let signatures = Signature::up_to(3);
        let mut rng = seeded(17);
        let (mut wins, mut losses, mut draws) = (0, 0, 0);
        while wins + losses + draws < 3000 {
            let signature = signatures[rng.random_range(0..signatures.len())];
            let slot = rng.random_range(0..2 * signature.slots());
            let Some(position) = db.position_at(signature, slot) else {
                continue;
            };
            match db.probe(&position).unwrap() {
                Solved::Win(d) if d <= 7 => {
                    assert!(wins_within(&position, d), "{position:?} win in {d}");
                    assert!(
                        d < 3 || !wins_within(&position, d - 2),
                        "{position:?} faster"
                    );
                    wins += 1;
                }
                Solved::Loss(d) if d <= 8 => {
                    assert!(loses_within(&position, d), "{position:?} loss in {d}");
                    assert!(
                        d < 2 || !loses_within(&position, d - 2),
                        "{position:?} sooner"
                    );
                    losses += 1;
                }
                Solved::Draw => {
                    assert!(!wins_within(&position, 7) && !loses_within(&position, 6));
                    draws += 1;
                }
                _ => {}
            }
        }
        assert!(
            wins > 100 && losses > 100 && draws > 100,
            "{wins} {losses} {draws}"
        );
    }

    /// Every signature of up to 4 pieces holds as many positions as counting gives, and the
    /// signature with the colours swapped has the same wins, losses and draws.
    #[test]
    fn mirrored_signatures_have_the_same_results() {
        let db = Endgame::build(4, |_, _| {});
        let tally = |s: Signature| {
            let mut counts = [0u64; 3];
            for v in db.verdicts(s) {
                counts[match v {
                    Solved::Win(_) => 0,
                    Solved::Loss(_) => 1,
                    Solved::Draw => 2,
                }] += 1;
            }
            counts
        };
        for signature in Signature::up_to(4) {
            let [bm, bk, wm, wk] = signature.0;
            let mirrored = Signature([wm, wk, bm, bk]);
            assert_eq!(
                tally(signature),
                tally(mirrored),
                "{signature} and {mirrored}"
            );
            assert_eq!(
                db.verdicts(signature).len() as u64,
                2 * signature.positions_by_formula(),
                "{signature}"
            );
        }
    }

    #[test]
    fn tables_save_and_load_and_damage_is_named() {
        let db = Endgame::build(3, |_, _| {});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("eg3.tmeg");
        db.save(&path).unwrap();
        let loaded = Endgame::load(&path).unwrap();
        assert_eq!(loaded.max_pieces(), 3);
        for signature in Signature::up_to(3) {
            assert_eq!(
                loaded.tables[&signature], db.tables[&signature],
                "{signature}"
            );
        }
        let error = |path: &Path| Endgame::load(path).err().expect("a damaged file loads");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(error(&path).contains("checksum"));
        std::fs::write(&path, b"hello").unwrap();
        assert!(error(&path).contains("not an endgame database"));
        bytes.truncate(bytes.len() - 20);
        std::fs::write(&path, &bytes).unwrap();
        assert!(error(&path).contains("eg3.tmeg"));
    }
}
