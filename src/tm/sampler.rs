//! Cheap exact Bernoulli subsets: every candidate literal independently with probability p.
//!
//! Instead of one coin flip per literal, walk the candidates in slot order and jump over a
//! geometrically distributed number of them between chosen ones (Geometric(p) gaps between
//! successes are exactly independent Bernoulli(p) trials). A gap is drawn from one 64-bit
//! random number by inverting the geometric distribution with a precomputed table, so the
//! cost is about p x (number of candidates) draws, and candidates that cannot change (an
//! automaton already at state 0 cannot go lower) cost nothing.
//!
//! When most literals are candidates (early training), drawing the subset of ALL literals
//! is cheaper: the subset size comes from the exact binomial distribution (inverse CDF over
//! a table), then that many distinct positions are drawn uniformly; the result is restricted
//! to the candidates, which leaves each candidate in with probability p, independently.

use crate::rng::Rng;
use crate::tm::literals::LiteralLayout;
use rand::RngCore;

/// Mantissa bits of a 64-bit draw that index the gap table (after its leading one).
const MANTISSA_BITS: u32 = 8;

/// Draws random subsets of candidate literals, each with probability `p`.
#[derive(Clone, Debug)]
pub struct SubsetSampler {
    layout: LiteralLayout,
    all: bool,
    /// `size_cdf[k]` = P(subset of all literals has at most k members) x 2^64.
    size_cdf: Vec<u64>,
    /// `survive[k]` = q^k x 2^64 (q = 1 - p), decreasing, ending with 0: a gap is at least k
    /// iff the draw is below `survive[k]`.
    survive: Vec<u64>,
    /// Smallest gap of each (leading zeros, mantissa) bucket of draws.
    bucket_gap: Vec<u32>,
}

impl SubsetSampler {
    /// A sampler over the literals of `layout` with inclusion probability `p` (0..=1).
    pub fn new(layout: LiteralLayout, p: f64) -> SubsetSampler {
        let p = p.clamp(0.0, 1.0);
        if p >= 1.0 || p <= 0.0 {
            return SubsetSampler {
                layout,
                all: p >= 1.0,
                size_cdf: Vec::new(),
                survive: vec![u64::MAX, 0],
                bucket_gap: Vec::new(),
            };
        }
        const SCALE: f64 = 18_446_744_073_709_551_616.0;
        let ln_q = (-p).ln_1p();
        let mut survive = vec![u64::MAX];
        for k in 1.. {
            let t = (k as f64 * ln_q).exp() * SCALE;
            if t < 1.0 {
                break;
            }
            survive.push(if t >= SCALE { u64::MAX } else { t as u64 });
        }
        survive.push(0);
        let mut sampler = SubsetSampler {
            size_cdf: binomial_cdf(layout.literals(), p),
            layout,
            all: false,
            survive,
            bucket_gap: Vec::new(),
        };
        let buckets = 64usize << MANTISSA_BITS;
        let mut bucket_gap = vec![0u32; buckets];
        for lz in 0..=(63 - MANTISSA_BITS) {
            let shift = 63 - MANTISSA_BITS - lz;
            for m in 0..(1u64 << MANTISSA_BITS) {
                let lead = (1u64 << MANTISSA_BITS) | m;
                // The bucket's largest draw (the top bucket wraps to u64::MAX).
                let highest = ((lead + 1) << shift).wrapping_sub(1);
                bucket_gap[((lz as usize) << MANTISSA_BITS) | m as usize] =
                    sampler.gap_slow(highest);
            }
        }
        sampler.bucket_gap = bucket_gap;
        sampler
    }

    /// The gap for draw `u` by binary search: the number of k >= 1 with u < survive[k].
    fn gap_slow(&self, u: u64) -> u32 {
        self.survive[1..].partition_point(|&t| u < t) as u32
    }

    /// A Geometric(p) gap: the number of candidates skipped before the next chosen one.
    #[inline]
    pub fn gap(&self, rng: &mut Rng) -> u32 {
        let u = rng.next_u64();
        let lz = u.leading_zeros();
        if lz > 63 - MANTISSA_BITS {
            return self.gap_slow(u);
        }
        let m = (u >> (63 - MANTISSA_BITS - lz)) & ((1 << MANTISSA_BITS) - 1);
        let mut k = self.bucket_gap[((lz as usize) << MANTISSA_BITS) | m as usize];
        // A bucket spans a tiny range of gaps: one branch-free step nearly always suffices.
        k += (u < self.survive[k as usize + 1]) as u32;
        while u < self.survive[k as usize + 1] {
            k += 1;
        }
        k
    }

    /// Sets in `chosen` (literal words, all zero on entry) each bit of `candidates` with
    /// probability p, independently. Dense candidate sets (over a quarter of the literals)
    /// thin a subset of all literals; sparse ones are walked with geometric gaps.
    #[inline]
    pub fn fill(&self, rng: &mut Rng, candidates: &[u64], chosen: &mut [u64]) {
        if self.all {
            chosen.copy_from_slice(candidates);
            return;
        }
        if self.bucket_gap.is_empty() {
            return;
        }
        let count: u32 = candidates.iter().map(|w| w.count_ones()).sum();
        if count as usize > self.layout.literals() / 4 {
            self.fill_all(rng, chosen);
            for (c, &m) in chosen.iter_mut().zip(candidates) {
                *c &= m;
            }
        } else {
            self.walk(rng, candidates, chosen);
        }
    }

    /// A Bernoulli(p) subset of all literals: binomial size, then distinct uniform positions.
    fn fill_all(&self, rng: &mut Rng, chosen: &mut [u64]) {
        let n = self.layout.literals() as u64;
        let features = self.layout.features;
        let negated_offset = self.layout.half_words * 64 - features;
        let mut remaining = self.size_cdf.partition_point(|&c| c <= rng.next_u64());
        while remaining > 0 {
            let r = rng.next_u64();
            for half in [r & 0xFFFF_FFFF, r >> 32] {
                let literal = ((half * n) >> 32) as usize;
                let slot = literal + (literal >= features) as usize * negated_offset;
                let bit = 1u64 << (slot % 64);
                let word = &mut chosen[slot / 64];
                if *word & bit == 0 {
                    *word |= bit;
                    remaining -= 1;
                    if remaining == 0 {
                        break;
                    }
                }
            }
        }
    }

    /// Walks the candidates with geometric gaps.
    fn walk(&self, rng: &mut Rng, candidates: &[u64], chosen: &mut [u64]) {
        let mut w = 0;
        let mut word = match candidates.first() {
            Some(&c) => c,
            None => return,
        };
        loop {
            let mut skip = self.gap(rng);
            loop {
                let available = word.count_ones();
                if skip < available {
                    break;
                }
                skip -= available;
                w += 1;
                if w == candidates.len() {
                    return;
                }
                word = candidates[w];
            }
            let bit = select(word, skip);
            chosen[w] |= 1 << bit;
            // Later candidates of this word lie above the chosen bit.
            word &= (u64::MAX << bit) << 1;
        }
    }
}

/// `cdf[k]` = P(Binomial(n, p) <= k) scaled to 2^64, up to where it reaches 1: the size of a
/// subset is the number of entries not above a uniform 64-bit draw.
fn binomial_cdf(n: usize, p: f64) -> Vec<u64> {
    const SCALE: f64 = 18_446_744_073_709_551_616.0;
    let log_ratio = (p / (1.0 - p)).ln();
    let mut log_pmf = n as f64 * (-p).ln_1p();
    let mut cumulative = 0.0f64;
    let mut cdf = Vec::new();
    for k in 0..n {
        cumulative += log_pmf.exp();
        if cumulative >= 1.0 - 1e-17 {
            break;
        }
        cdf.push((cumulative * SCALE) as u64);
        log_pmf += ((n - k) as f64 / (k + 1) as f64).ln() + log_ratio;
    }
    cdf
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Position of the `k`-th (from 0) set bit of `x` (k < popcount(x)), without branches on
/// the data: byte popcounts locate the byte, a table the bit within it.
#[inline]
fn select(x: u64, k: u32) -> u32 {
    let mut bytes = x - ((x >> 1) & 0x5555_5555_5555_5555);
    bytes = (bytes & 0x3333_3333_3333_3333) + ((bytes >> 2) & 0x3333_3333_3333_3333);
    bytes = (bytes + (bytes >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte i of `cumulative`: set bits in bytes 0..=i (at most 64, so no carries).
    let cumulative = bytes.wrapping_mul(ONES);
    // High bit of byte i set when cumulative[i] <= k: those bytes come before the target.
    let before_mask = ((k as u64 * ONES) | HIGHS).wrapping_sub(cumulative) & HIGHS;
    let byte = before_mask.count_ones();
    let skipped = ((cumulative << 8) >> (byte * 8)) as u32 & 0xFF;
    let within = (x >> (byte * 8)) as u8;
    byte * 8 + SELECT_IN_BYTE[within as usize][(k - skipped) as usize & 7] as u32
}

/// `SELECT_IN_BYTE[b][k]`: position of the k-th set bit of byte b.
static SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 8 {
            if (b >> bit) & 1 == 1 {
                table[b][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;

    #[test]
    fn select_finds_the_kth_set_bit() {
        let mut rng = seeded(4);
        for _ in 0..20_000 {
            let x = rng.next_u64() & rng.next_u64() | (1 << 63);
            let positions: Vec<u32> = (0..64).filter(|b| (x >> b) & 1 == 1).collect();
            for (k, &p) in positions.iter().enumerate() {
                assert_eq!(select(x, k as u32), p, "{x:#x} {k}");
            }
        }
        assert_eq!(select(u64::MAX, 63), 63);
        assert_eq!(select(1, 0), 0);
    }

    #[test]
    fn table_gaps_equal_the_binary_search() {
        let sampler = SubsetSampler::new(LiteralLayout::new(2450), 0.1);
        let mut rng = seeded(2);
        for _ in 0..200_000 {
            let mut probe = rng.clone();
            let u = probe.next_u64();
            assert_eq!(sampler.gap(&mut rng), sampler.gap_slow(u), "{u}");
        }
        for u in [0, 1, 255, 256, 1 << 55, u64::MAX, u64::MAX - 1, 1 << 63] {
            let lz = u.leading_zeros();
            if lz <= 63 - MANTISSA_BITS {
                let m = (u >> (63 - MANTISSA_BITS - lz)) & 255;
                let k = sampler.bucket_gap[((lz as usize) << MANTISSA_BITS) | m as usize];
                assert!(k <= sampler.gap_slow(u), "{u}");
            }
        }
    }

    #[test]
    fn gaps_are_geometric() {
        let p = 0.1;
        let sampler = SubsetSampler::new(LiteralLayout::new(2450), p);
        let mut rng = seeded(5);
        let draws = 200_000;
        let mut hist = [0u32; 5];
        let mut total = 0f64;
        for _ in 0..draws {
            let g = sampler.gap(&mut rng);
            total += g as f64;
            if (g as usize) < hist.len() {
                hist[g as usize] += 1;
            }
        }
        // Mean (1-p)/p = 9, standard error about 0.021.
        let mean = total / draws as f64;
        assert!((mean - 9.0).abs() < 0.1, "mean {mean}");
        for (k, &h) in hist.iter().enumerate() {
            let expected = (1.0 - p).powi(k as i32) * p;
            let f = h as f64 / draws as f64;
            assert!(
                (f - expected).abs() < 0.003,
                "P(gap = {k}) = {f}, expected {expected}"
            );
        }
    }

    #[test]
    fn each_candidate_is_chosen_with_probability_p() {
        // 2 x 100 literals; dense and sparse candidate sets take the two paths.
        let layout = LiteralLayout::new(100);
        let sparse = [0xF0F0u64, 0, 0, 0b1011];
        let dense = [u64::MAX, 0xF_FFFF_FFFF, u64::MAX, 0xF_FFFF_FFFF];
        for candidates in [sparse, dense] {
            assert_eq!(candidates[1] & !layout.valid(1), 0);
            check_probability(&layout, &candidates);
        }
    }

    fn check_probability(layout: &LiteralLayout, candidates: &[u64; 4]) {
        let sampler = SubsetSampler::new(*layout, 0.25);
        let mut rng = seeded(9);
        let mut hits = [[0u32; 64]; 4];
        let rounds = 40_000;
        for _ in 0..rounds {
            let mut chosen = [0u64; 4];
            sampler.fill(&mut rng, candidates, &mut chosen);
            for w in 0..4 {
                assert_eq!(chosen[w] & !candidates[w], 0);
                for (b, h) in hits[w].iter_mut().enumerate() {
                    *h += ((chosen[w] >> b) & 1) as u32;
                }
            }
        }
        for (w, word_hits) in hits.iter().enumerate() {
            for (b, &h) in word_hits.iter().enumerate() {
                let f = h as f64 / rounds as f64;
                if (candidates[w] >> b) & 1 == 1 {
                    // Standard error sqrt(0.25 * 0.75 / 40000) = 0.0022.
                    assert!((f - 0.25).abs() < 0.012, "word {w} bit {b}: {f}");
                }
            }
        }
    }

    #[test]
    fn probability_one_and_zero() {
        let layout = LiteralLayout::new(64);
        let candidates = [7u64, 1 << 40];
        let mut chosen = [0u64; 2];
        SubsetSampler::new(layout, 1.0).fill(&mut seeded(1), &candidates, &mut chosen);
        assert_eq!(chosen, candidates);
        let mut chosen = [0u64; 2];
        SubsetSampler::new(layout, 0.0).fill(&mut seeded(1), &candidates, &mut chosen);
        assert_eq!(chosen, [0, 0]);
    }
}
