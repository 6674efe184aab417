//! Hypervector folding: many symbols into a fixed number of bits.
//!
//! Seed 000 fed its Hex symbols to the machine this way: every symbol owns `bits` distinct
//! positions of a vector of `size` bits, and a position is set when any symbol owning it is
//! present. Symbols share positions once there are more of them than bits, which trades
//! some precision for a machine a fraction of the size (seed 000: 6,642 symbols of 9x9
//! boards in 2,048 or 1,024 positions).
//!
//! The positions of a symbol are fixed for good by the symbol's index and the mapping's
//! `seed` (a hash of the two, not a draw from a stream), so a model trained on folded
//! features reads the same features on any machine. Seed 000 drew a new mapping for every
//! run; other seeds give other mappings, seed 0 the one this program always used.

/// How symbols are folded: `bits` positions each, in a vector of `size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hypervector {
    /// Positions in the vector.
    pub size: usize,
    /// Positions per symbol (at most `size`).
    pub bits: usize,
    /// Which mapping of symbols to positions (0: the first).
    pub seed: u64,
}

/// A well-mixed 64-bit hash (the finaliser of SplitMix64).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Hypervector {
    /// The distinct positions of `symbol`, in the order they were drawn.
    pub fn positions(&self, symbol: usize) -> Vec<usize> {
        let mut chosen = Vec::with_capacity(self.bits);
        // mix(0) is 0: seed 0 keeps the mapping of the versions before seeds.
        let salt = 0x6a09_e667_f3bc_c909 ^ mix(self.seed);
        let mut draw = 0u64;
        while chosen.len() < self.bits {
            let h = mix(((symbol as u64) << 20) ^ draw ^ salt);
            draw += 1;
            let position = ((h as u128 * self.size as u128) >> 64) as usize;
            if !chosen.contains(&position) {
                chosen.push(position);
            }
        }
        chosen
    }

    /// The vector of the symbols set in `symbols` (0/1 values), appended to `out`.
    pub fn fold(&self, symbols: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + self.size, 0);
        for (symbol, _) in symbols.iter().enumerate().filter(|(_, &v)| v != 0) {
            for position in self.positions(symbol) {
                out[start + position] = 1;
            }
        }
    }

    /// The names of the positions: `hv0`, `hv1`, ...
    pub fn names(&self) -> Vec<String> {
        (0..self.size).map(|i| format!("hv{i}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_symbol_owns_distinct_positions_spread_over_the_vector() {
        let hv = Hypervector {
            size: 64,
            bits: 3,
            seed: 0,
        };
        let mut hits = vec![0usize; 64];
        for symbol in 0..6400 {
            let p = hv.positions(symbol);
            assert_eq!(p.len(), 3);
            assert!(p[0] != p[1] && p[1] != p[2] && p[0] != p[2]);
            assert_eq!(p, hv.positions(symbol), "fixed for good");
            for q in p {
                hits[q] += 1;
            }
        }
        // 19,200 positions over 64 slots: 300 each on average.
        assert!(hits.iter().all(|&h| (200..400).contains(&h)), "{hits:?}");
    }

    #[test]
    fn seed_zero_keeps_the_first_mapping_and_other_seeds_draw_others() {
        let first = Hypervector {
            size: 1024,
            bits: 2,
            seed: 0,
        };
        // The positions of the mapping models were trained on before seeds existed.
        assert_eq!(first.positions(0), [213, 292]);
        assert_eq!(first.positions(1), [594, 635]);
        assert_eq!(first.positions(6641), [328, 232]);
        let seventh = Hypervector { seed: 7, ..first };
        assert_eq!(seventh.positions(0), [142, 448]);
        let moved = (0..6642)
            .filter(|&s| first.positions(s) != seventh.positions(s))
            .count();
        assert!(moved > 6600, "{moved} of 6,642 symbols moved");
    }

    #[test]
    fn folding_sets_exactly_the_positions_of_present_symbols() {
        let hv = Hypervector {
            size: 16,
            bits: 2,
            seed: 0,
        };
        let symbols = [0u8, 1, 0, 0, 1];
        let mut out = vec![7];
        hv.fold(&symbols, &mut out);
        assert_eq!(out.len(), 17);
        let mut expected = [0u8; 16];
        for s in [1, 4] {
            for p in hv.positions(s) {
                expected[p] = 1;
            }
        }
        assert_eq!(&out[1..], &expected);
        let mut none = Vec::new();
        hv.fold(&[0, 0, 0], &mut none);
        assert!(none.iter().all(|&b| b == 0));
    }
}
