//! The one random number generator of the project.
//!
//! Every random choice (playouts, tie breaks, training order, game openings) draws from a
//! [`Rng`] created from an explicit seed, so any game, training run or tournament can be
//! reproduced from its seed and configuration. Xoshiro256++ is fast, has a fixed
//! specification and does not change between crate versions.

use rand::{RngCore, SeedableRng};

/// The project's seeded generator (Xoshiro256++).
pub type Rng = rand_xoshiro::Xoshiro256PlusPlus;

/// A generator seeded from a 64-bit seed (expanded with SplitMix64, as the algorithm's
/// authors recommend).
pub fn seeded(seed: u64) -> Rng {
    Rng::seed_from_u64(seed)
}

/// A generator for an independent sub-stream `stream` of a run seeded with `seed` (one per
/// game, per thread or per fold), so parallel work stays reproducible whatever the schedule.
pub fn substream(seed: u64, stream: u64) -> Rng {
    // Mix the stream index into the seed with a SplitMix64 step so neighbouring streams
    // start far apart.
    let mut z = seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    seeded(z ^ (z >> 31))
}

/// A draw from the standard normal distribution, Normal(0, 1), by the Box-Muller transform
/// (written here so that draws never change with a crate's version).
pub fn normal(rng: &mut Rng) -> f64 {
    use rand::Rng as _;
    // u1 in (0, 1]: the logarithm stays finite.
    let u1 = 1.0 - rng.random::<f64>();
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The two streams of one unit of parallel work: sub-stream `stream` of `seed`, and a
/// [`WideRng`] seeded from its first words.
pub fn substream_pair(seed: u64, stream: u64) -> (Rng, WideRng) {
    let mut rng = substream(seed, stream);
    let wide = WideRng::from_rng(&mut rng);
    (rng, wide)
}

/// Four Xoshiro256++ generators stepped together, one per lane: a bulk source of random
/// words (the four lanes fit one 256-bit vector where the CPU has them). Each lane produces
/// exactly the stream of an [`Rng`] started from the same state words.
#[derive(Clone, Debug)]
pub struct WideRng {
    /// `s[i][lane]`: state word i of each lane.
    s: [[u64; 4]; 4],
}

impl WideRng {
    /// Four lanes whose states are the next 16 words of `rng` (a lane that came out all
    /// zero, a state Xoshiro never leaves, starts from 1 instead).
    pub fn from_rng(rng: &mut Rng) -> WideRng {
        let mut s = [[0u64; 4]; 4];
        for lane in 0..4 {
            for word in &mut s {
                word[lane] = rng.next_u64();
            }
            if s.iter().all(|word| word[lane] == 0) {
                s[0][lane] = 1;
            }
        }
        WideRng { s }
    }

    /// Bernoulli bits for `pairs` pairs of events, from uniform 32-bit draws: the two draws
    /// of pair i are the low and the high half of lane i % 4's word in step i / 4 (a last
    /// partial step is taken whole), and bit 2i + u of `bits` (32 pairs a word,
    /// `pairs.div_ceil(32)` words, overwritten) is set when draw u is below `limits[u]`
    /// (at most 2^32: 2^32 sets every bit, 0 none). Bits past the pairs are 0.
    #[inline]
    pub fn pair_bits_below(&mut self, limits: [u64; 2], pairs: usize, bits: &mut [u64]) {
        assert!(limits.iter().all(|&l| l <= 1 << 32), "a limit above 2^32");
        assert_eq!(bits.len(), pairs.div_ceil(32), "one word per 32 pairs");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has just been found to support AVX2.
            unsafe { avx2::pair_bits_below(self, limits, pairs, bits) };
            return;
        }
        self.pair_bits_below_portable(limits, pairs, bits);
    }

    /// [`WideRng::pair_bits_below`] without vector intrinsics.
    fn pair_bits_below_portable(&mut self, limits: [u64; 2], pairs: usize, bits: &mut [u64]) {
        for (j, word) in bits.iter_mut().enumerate() {
            let in_word = (pairs - 32 * j).min(32);
            let mut w = 0u64;
            for step in 0..in_word.div_ceil(4) {
                for (lane, x) in self.next4().into_iter().enumerate() {
                    let bit = 8 * step + 2 * lane;
                    w |= (((x & 0xFFFF_FFFF) < limits[0]) as u64) << bit;
                    w |= (((x >> 32) < limits[1]) as u64) << (bit + 1);
                }
            }
            *word = w & pair_mask(in_word);
        }
    }

    /// The next word of each lane.
    #[inline(always)]
    pub fn next4(&mut self) -> [u64; 4] {
        let [s0, s1, s2, s3] = &mut self.s;
        let mut out = [0u64; 4];
        for lane in 0..4 {
            out[lane] = s0[lane]
                .wrapping_add(s3[lane])
                .rotate_left(23)
                .wrapping_add(s0[lane]);
            let t = s1[lane] << 17;
            s2[lane] ^= s0[lane];
            s3[lane] ^= s1[lane];
            s1[lane] ^= s2[lane];
            s0[lane] ^= s3[lane];
            s2[lane] ^= t;
            s3[lane] = s3[lane].rotate_left(45);
        }
        out
    }
}

/// The bits of the first `pairs` pairs of a word (at most 32).
fn pair_mask(pairs: usize) -> u64 {
    if pairs >= 32 {
        u64::MAX
    } else {
        (1 << (2 * pairs)) - 1
    }
}

/// [`WideRng`]'s lanes stepped in one AVX2 register each state word.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::{pair_mask, WideRng};
    use std::arch::x86_64::*;

    /// The lanes' state words in registers (`[i]`: state word i of the four lanes).
    #[inline(always)]
    pub(crate) fn load_lanes(rng: &WideRng) -> [__m256i; 4] {
        // SAFETY: `[u64; 4]` and `__m256i` are both 32 bytes, and the unaligned load
        // accepts any address.
        rng.s
            .map(|words| unsafe { _mm256_loadu_si256(words.as_ptr().cast()) })
    }

    /// The state words back from registers.
    #[inline(always)]
    pub(crate) fn store_lanes(rng: &mut WideRng, lanes: [__m256i; 4]) {
        for (words, lane) in rng.s.iter_mut().zip(lanes) {
            // SAFETY: as in `load_lanes`, with the unaligned store.
            unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), lane) };
        }
    }

    /// `x` rotated left by `K` bits in each 64-bit lane (`L` = 64 - `K`).
    #[inline(always)]
    fn rotate_left<const K: i32, const L: i32>(x: __m256i) -> __m256i {
        unsafe { _mm256_or_si256(_mm256_slli_epi64::<K>(x), _mm256_srli_epi64::<L>(x)) }
    }

    /// One step of the four xoshiro256++ lanes held in registers (as
    /// [`WideRng::next4`]): the four output words.
    #[inline(always)]
    pub(crate) fn step(s: &mut [__m256i; 4]) -> __m256i {
        unsafe {
            let [s0, s1, s2, s3] = s;
            let words = _mm256_add_epi64(rotate_left::<23, 41>(_mm256_add_epi64(*s0, *s3)), *s0);
            let t = _mm256_slli_epi64::<17>(*s1);
            *s2 = _mm256_xor_si256(*s2, *s0);
            *s3 = _mm256_xor_si256(*s3, *s1);
            *s1 = _mm256_xor_si256(*s1, *s2);
            *s0 = _mm256_xor_si256(*s0, *s3);
            *s2 = _mm256_xor_si256(*s2, t);
            *s3 = rotate_left::<45, 19>(*s3);
            words
        }
    }

    /// [`WideRng::pair_bits_below`] with the generator in registers: a step's eight 32-bit
    /// halves (low then high of each lane, the pair order) are compared at once, and their
    /// sign bits are the step's eight bits.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn pair_bits_below(
        rng: &mut WideRng,
        limits: [u64; 2],
        pairs: usize,
        bits: &mut [u64],
    ) {
        // A draw is below a limit L when it is not above L - 1, compared as signed numbers
        // after flipping the top bits; a limit of 0 selects nothing and is masked instead.
        const FLIP: u32 = 1 << 31;
        let [first, second] = limits.map(|l| ((l.max(1) - 1) as u32 ^ FLIP) as i32);
        let bounds = _mm256_setr_epi32(first, second, first, second, first, second, first, second);
        let flip = _mm256_set1_epi32(FLIP as i32);
        let live = ((limits[0] > 0) as u64 * 0x5555_5555_5555_5555)
            | ((limits[1] > 0) as u64 * 0xAAAA_AAAA_AAAA_AAAA);
        let mut lanes = load_lanes(rng);
        for (j, word) in bits.iter_mut().enumerate() {
            let in_word = (pairs - 32 * j).min(32);
            let mut w = 0u64;
            for step_index in 0..in_word.div_ceil(4) {
                let above = _mm256_cmpgt_epi32(_mm256_xor_si256(step(&mut lanes), flip), bounds);
                let below = !_mm256_movemask_ps(_mm256_castsi256_ps(above)) as u64 & 0xFF;
                w |= below << (8 * step_index);
            }
            *word = w & live & pair_mask(in_word);
        }
        store_lanes(rng, lanes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_draws_have_mean_zero_and_variance_one() {
        let mut rng = seeded(3);
        let draws: Vec<f64> = (0..200_000).map(|_| normal(&mut rng)).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((var - 1.0).abs() < 0.01, "{var}");
        let beyond = draws.iter().filter(|x| x.abs() > 1.96).count() as f64 / draws.len() as f64;
        assert!((beyond - 0.05).abs() < 0.003, "{beyond}");
    }

    #[test]
    fn pair_bits_compare_the_halves_of_the_lanes_words_in_order() {
        let limit_sets = [
            [0, 1 << 32],
            [1 << 32, 0],
            [1 << 31, 1 << 31],
            [1, (1 << 32) - 1],
            [123_456_789, 3_000_000_000],
        ];
        for pairs in [1usize, 3, 4, 5, 31, 32, 33, 64, 80, 128] {
            for (n, &limits) in limit_sets.iter().enumerate() {
                let mut drawn = WideRng::from_rng(&mut seeded(5 + n as u64));
                let (mut portable, mut stepped) = (drawn.clone(), drawn.clone());
                let mut bits = vec![0u64; pairs.div_ceil(32)];
                drawn.pair_bits_below(limits, pairs, &mut bits);
                // The draws one by one from the lanes' words.
                let draws: Vec<u64> = (0..pairs.div_ceil(4))
                    .flat_map(|_| stepped.next4())
                    .flat_map(|w| [w & 0xFFFF_FFFF, w >> 32])
                    .collect();
                let mut expected = vec![0u64; bits.len()];
                for (k, &draw) in draws.iter().enumerate().take(2 * pairs) {
                    expected[k / 64] |= ((draw < limits[k % 2]) as u64) << (k % 64);
                }
                let case = format!("{pairs} pairs, limits {limits:?}");
                assert_eq!(bits, expected, "{case}");
                // Every partial step was taken whole.
                assert_eq!(drawn.next4(), stepped.next4(), "generator state, {case}");
                let mut portable_bits = vec![0u64; bits.len()];
                portable.pair_bits_below_portable(limits, pairs, &mut portable_bits);
                assert_eq!(portable_bits, expected, "portable, {case}");
            }
        }
    }

    #[test]
    fn wide_lanes_are_xoshiro_streams() {
        let mut source = seeded(21);
        let mut wide = WideRng::from_rng(&mut source.clone());
        // Each lane's state words, in the byte order the generator's seed uses.
        let mut lanes: Vec<Rng> = (0..4)
            .map(|_| {
                let mut seed = [0u8; 32];
                for chunk in seed.chunks_exact_mut(8) {
                    chunk.copy_from_slice(&source.next_u64().to_le_bytes());
                }
                Rng::from_seed(seed)
            })
            .collect();
        for _ in 0..1000 {
            let words = wide.next4();
            for (lane, rng) in lanes.iter_mut().enumerate() {
                assert_eq!(words[lane], rng.next_u64(), "lane {lane}");
            }
        }
    }

    #[test]
    fn same_seed_same_stream() {
        let mut a = seeded(7);
        let mut b = seeded(7);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn substreams_differ() {
        let mut a = substream(7, 0);
        let mut b = substream(7, 1);
        assert_ne!(a.next_u64(), b.next_u64());
    }
}
