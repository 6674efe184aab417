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

    /// The state words (`[i][lane]`), for code that steps the lanes in vector registers.
    pub(crate) fn state_mut(&mut self) -> &mut [[u64; 4]; 4] {
        &mut self.s
    }

    /// Fills `out` with uniform 32-bit draws: the low then the high half of each lane's next
    /// word, lane by lane (a last partial step's unused halves are dropped).
    #[inline]
    pub fn fill_u32(&mut self, out: &mut [u32]) {
        for chunk in out.chunks_mut(8) {
            let words = self.next4();
            let halves = words.iter().flat_map(|&w| [w as u32, (w >> 32) as u32]);
            for (o, h) in chunk.iter_mut().zip(halves) {
                *o = h;
            }
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
    fn u32_draws_are_the_halves_of_the_lanes_words_in_order() {
        let mut filled = WideRng::from_rng(&mut seeded(5));
        let mut stepped = filled.clone();
        let mut out = [0u32; 20];
        filled.fill_u32(&mut out);
        let expected: Vec<u32> = (0..3)
            .flat_map(|_| stepped.next4())
            .flat_map(|w| [w as u32, (w >> 32) as u32])
            .take(20)
            .collect();
        assert_eq!(out.to_vec(), expected);
        // The last, partial step was taken whole.
        assert_eq!(filled.next4(), stepped.next4());
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
