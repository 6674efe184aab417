//! The one random number generator of the project.
//!
//! Every random choice (playouts, tie breaks, training order, game openings) draws from a
//! [`Rng`] created from an explicit seed, so any game, training run or tournament can be
//! reproduced from its seed and configuration. Xoshiro256++ is fast, has a fixed
//! specification and does not change between crate versions.

use rand::SeedableRng;

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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

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
