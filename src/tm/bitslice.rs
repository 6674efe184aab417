//! Bit-sliced saturating counters: bit k of 64 Tsetlin automata's states in one word.
//!
//! `planes[k]` holds bit k of the states of the 64 automata of one word position, plane 0 the
//! least significant. Adding or subtracting 1 on a masked subset is a ripple carry over the
//! planes; the lanes that overflow (or underflow) are then clamped to the maximum (or 0).

/// Words moved together by [`step_clause`] (one 256-bit vector where the CPU has them).
const CHUNK: usize = 4;

/// Which automata of a clause move: per word, the lanes that go up and the lanes that go
/// down (disjoint), as slices of at least one word per plane word.
#[derive(Clone, Copy, Debug)]
pub enum Moves<'a> {
    /// Only steps up.
    Up(&'a [u64]),
    /// Only steps down.
    Down(&'a [u64]),
    /// Steps both ways.
    Both {
        /// The lanes that go up.
        up: &'a [u64],
        /// The lanes that go down.
        down: &'a [u64],
    },
}

/// Moves the automata of one clause one step. `planes` holds the clause's `bits` planes of
/// `words` words, least significant first. Steps saturate at all ones and at 0. Returns
/// whether the include plane (the top one) changed.
///
/// Words are handled [`CHUNK`] at a time with the carries and borrows in registers: the lanes
/// already at the end they move toward are dropped first (a read of the planes), then both
/// ripples run over every plane without branches on the data. A one-way step skips the other
/// ripple. Deep counters (more than [`SETTLING_ABOVE_BITS`] bits) instead stop rippling where
/// the carries and borrows die out, a few planes up, and set back the rare lanes that wrapped
/// round.
#[inline(always)]
pub fn step_clause(planes: &mut [u64], words: usize, bits: usize, moves: Moves) -> bool {
    match moves {
        Moves::Up(up) => step_masked::<true, false>(planes, words, bits, up, up),
        Moves::Down(down) => step_masked::<false, true>(planes, words, bits, down, down),
        Moves::Both { up, down } => step_masked::<true, true>(planes, words, bits, up, down),
    }
}

/// [`step_clause`] with the directions known at compile time (`up` is read only when UP,
/// `down` only when DOWN).
#[inline(always)]
fn step_masked<const UP: bool, const DOWN: bool>(
    planes: &mut [u64],
    words: usize,
    bits: usize,
    up: &[u64],
    down: &[u64],
) -> bool {
    assert!(planes.len() == bits * words && bits > 0, "plane size");
    let (up, down) = (&up[..words], &down[..words]);
    let top = (bits - 1) * words;
    let mut changed = [0u64; CHUNK];
    let mut w = 0;
    while w + CHUNK <= words {
        let mut carry = [0u64; CHUNK];
        let mut borrow = [0u64; CHUNK];
        if UP {
            carry.copy_from_slice(&up[w..w + CHUNK]);
        }
        if DOWN {
            borrow.copy_from_slice(&down[w..w + CHUNK]);
        }
        let include: [u64; CHUNK] = planes[top + w..top + w + CHUNK].try_into().unwrap();
        ripple::<CHUNK, UP, DOWN>(planes, words, bits, w, &mut carry, &mut borrow);
        for i in 0..CHUNK {
            changed[i] |= include[i] ^ planes[top + w + i];
        }
        w += CHUNK;
    }
    changed[0] |= step_words::<UP, DOWN>(planes, words, bits, w, up, down);
    changed.iter().any(|&c| c != 0)
}

/// The words from `from` on, one at a time (the tail after the whole chunks); returns the
/// include-plane bits that changed.
#[inline(always)]
fn step_words<const UP: bool, const DOWN: bool>(
    planes: &mut [u64],
    words: usize,
    bits: usize,
    from: usize,
    up: &[u64],
    down: &[u64],
) -> u64 {
    let top = (bits - 1) * words;
    let mut changed = 0;
    for w in from..words {
        let include = planes[top + w];
        let mut carry = [if UP { up[w] } else { 0 }];
        let mut borrow = [if DOWN { down[w] } else { 0 }];
        ripple::<1, UP, DOWN>(planes, words, bits, w, &mut carry, &mut borrow);
        changed |= include ^ planes[top + w];
    }
    changed
}

/// Counters with more bits than this ripple until their carries and borrows die out
/// ([`ripple_settling`]) rather than over every plane.
pub(crate) const SETTLING_ABOVE_BITS: usize = 8;

/// Adds `carry` and subtracts `borrow` (disjoint lanes) on the N words from `w`,
/// saturating: lanes at all ones do not go up and lanes at 0 do not go down. A direction that
/// is off at compile time costs nothing.
#[inline(always)]
fn ripple<const N: usize, const UP: bool, const DOWN: bool>(
    planes: &mut [u64],
    stride: usize,
    bits: usize,
    w: usize,
    carry: &mut [u64; N],
    borrow: &mut [u64; N],
) {
    debug_assert!(
        (0..N).all(|i| carry[i] & borrow[i] == 0),
        "a lane moves both ways"
    );
    if bits > SETTLING_ABOVE_BITS {
        return ripple_settling::<N, UP, DOWN>(planes, stride, bits, w, carry, borrow);
    }
    let (mut all_ones, mut any_one) = ([u64::MAX; N], [0u64; N]);
    for k in 0..bits {
        let p = plane_words::<N>(planes, stride, w, k);
        for i in 0..N {
            all_ones[i] &= p[i];
            any_one[i] |= p[i];
        }
    }
    for i in 0..N {
        carry[i] &= !all_ones[i];
        borrow[i] &= any_one[i];
    }
    for k in 0..bits {
        ripple_plane::<N, UP, DOWN>(plane_words(planes, stride, w, k), carry, borrow);
    }
}

/// [`ripple`] for deep counters: a carry stops at the first 0 bit of its lane and a borrow at
/// the first 1, so after a few planes nothing moves and the planes above are neither read
/// nor written. A lane whose carry (borrow) runs past the top plane was all ones (0) and has
/// wrapped round: it is set back.
#[inline(always)]
fn ripple_settling<const N: usize, const UP: bool, const DOWN: bool>(
    planes: &mut [u64],
    stride: usize,
    bits: usize,
    w: usize,
    carry: &mut [u64; N],
    borrow: &mut [u64; N],
) {
    for k in 0..bits {
        if (0..N).all(|i| carry[i] | borrow[i] == 0) {
            return;
        }
        ripple_plane::<N, UP, DOWN>(plane_words(planes, stride, w, k), carry, borrow);
    }
    if (0..N).any(|i| carry[i] | borrow[i] != 0) {
        for k in 0..bits {
            let p = plane_words::<N>(planes, stride, w, k);
            for i in 0..N {
                p[i] = (p[i] | carry[i]) & !borrow[i];
            }
        }
    }
}

/// The N words from `w` of plane `k` (planes `stride` words apart).
#[inline(always)]
fn plane_words<const N: usize>(
    planes: &mut [u64],
    stride: usize,
    w: usize,
    k: usize,
) -> &mut [u64; N] {
    (&mut planes[k * stride + w..k * stride + w + N])
        .try_into()
        .unwrap()
}

/// One plane of a ripple: flips the bits `carry` and `borrow` reach, and passes on the carry
/// of the lanes whose bit was 1 and the borrow of those whose bit was 0.
#[inline(always)]
fn ripple_plane<const N: usize, const UP: bool, const DOWN: bool>(
    p: &mut [u64; N],
    carry: &mut [u64; N],
    borrow: &mut [u64; N],
) {
    for i in 0..N {
        let old = p[i];
        let mut new = old;
        if UP {
            new ^= carry[i];
            carry[i] &= old;
        }
        if DOWN {
            new ^= borrow[i];
            borrow[i] &= !old;
        }
        p[i] = new;
    }
}

/// [`step_clause`] for 8-bit automata with AVX2 intrinsics: a chunk's eight planes are
/// loaded into vector registers once, and the words past the last whole chunk go through the
/// portable ripple.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::{step_words, Moves, CHUNK};
    use std::arch::x86_64::*;

    /// State bits of the automata this path handles.
    pub const BITS: usize = 8;

    /// Words of a plane that one vector holds (a layout of this many words is one chunk).
    pub const CHUNK_WORDS: usize = CHUNK;

    /// [`super::step_clause`] with `bits` = [`BITS`]: the same states and the same answer.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn step_clause8(planes: &mut [u64], words: usize, moves: Moves) -> bool {
        match moves {
            Moves::Up(up) => step8::<true, false>(planes, words, up, up),
            Moves::Down(down) => step8::<false, true>(planes, words, down, down),
            Moves::Both { up, down } => step8::<true, true>(planes, words, up, down),
        }
    }

    /// [`step_clause8`] for a layout of one chunk a plane (checkers' 256 literals) stepping
    /// down only, as a Type Ib feedback does: no branch on the layout or the moves.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn step_chunk8_down(planes: &mut [u64], down: &[u64]) -> bool {
        assert!(
            planes.len() == BITS * CHUNK && down.len() >= CHUNK,
            "plane size"
        );
        let changed = chunk8::<false, true>(planes, CHUNK, 0, down, down);
        _mm256_testz_si256(changed, changed) == 0
    }

    /// [`step_clause8`] with the directions known at compile time.
    #[inline(always)]
    unsafe fn step8<const UP: bool, const DOWN: bool>(
        planes: &mut [u64],
        words: usize,
        up: &[u64],
        down: &[u64],
    ) -> bool {
        assert!(planes.len() == BITS * words, "plane size");
        let (up, down) = (&up[..words], &down[..words]);
        if words == CHUNK {
            // A layout of one vector a plane (checkers' 256 literals): no loop and no tail.
            let changed = chunk8::<UP, DOWN>(planes, words, 0, up, down);
            return _mm256_testz_si256(changed, changed) == 0;
        }
        let mut changed = _mm256_setzero_si256();
        let mut w = 0;
        while w + CHUNK <= words {
            changed = _mm256_or_si256(changed, chunk8::<UP, DOWN>(planes, words, w, up, down));
            w += CHUNK;
        }
        let tail_changed = step_words::<UP, DOWN>(planes, words, BITS, w, up, down);
        tail_changed != 0 || _mm256_testz_si256(changed, changed) == 0
    }

    /// One chunk of [`step8`] (the words `w..w + CHUNK` of every plane): the lanes whose
    /// include bit changed.
    #[inline(always)]
    unsafe fn chunk8<const UP: bool, const DOWN: bool>(
        planes: &mut [u64],
        words: usize,
        w: usize,
        up: &[u64],
        down: &[u64],
    ) -> __m256i {
        // SAFETY (all loads and stores): every access reads or writes CHUNK words (one
        // 32-byte vector) inside `planes`, `up` or `down`, as the callers' bounds ensure;
        // the unaligned intrinsics accept any address.
        let load = |words: &[u64], at: usize| unsafe {
            _mm256_loadu_si256(words[at..at + CHUNK].as_ptr().cast())
        };
        let mut p = [_mm256_setzero_si256(); BITS];
        for (k, plane) in p.iter_mut().enumerate() {
            *plane = load(planes, k * words + w);
        }
        let (mut all_ones, mut any_one) = (p[0], p[0]);
        for &plane in &p[1..] {
            all_ones = _mm256_and_si256(all_ones, plane);
            any_one = _mm256_or_si256(any_one, plane);
        }
        let zero = _mm256_setzero_si256();
        let mut carry = if UP {
            _mm256_andnot_si256(all_ones, load(up, w))
        } else {
            zero
        };
        let mut borrow = if DOWN {
            _mm256_and_si256(any_one, load(down, w))
        } else {
            zero
        };
        let mut changed = zero;
        for (k, &old) in p.iter().enumerate() {
            let mut new = old;
            if UP {
                new = _mm256_xor_si256(new, carry);
                carry = _mm256_and_si256(carry, old);
            }
            if DOWN {
                new = _mm256_xor_si256(new, borrow);
                borrow = _mm256_andnot_si256(old, borrow);
            }
            if k == BITS - 1 {
                changed = _mm256_xor_si256(old, new);
            }
            let at = k * words + w;
            unsafe { _mm256_storeu_si256(planes[at..at + CHUNK].as_mut_ptr().cast(), new) };
        }
        changed
    }
}

/// The state of lane `lane` (bits planes at stride `stride`).
pub fn lane_value(planes: &[u64], stride: usize, bits: usize, lane: u32) -> u32 {
    (0..bits).fold(0, |acc, k| {
        acc | ((((planes[k * stride] >> lane) & 1) as u32) << k)
    })
}

/// Sets lane `lane` to `value` (its low `bits` bits).
pub fn set_lane(planes: &mut [u64], stride: usize, bits: usize, lane: u32, value: u32) {
    for k in 0..bits {
        let p = &mut planes[k * stride];
        *p = (*p & !(1 << lane)) | ((((value >> k) & 1) as u64) << lane);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;
    use rand::{Rng as _, RngCore};

    #[test]
    fn eight_bit_vector_step_equals_the_portable_one() {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut rng = seeded(29);
            let bits = avx2::BITS;
            // One to three chunks with and without a tail (four words: the single-chunk
            // path); states near both ends often.
            for words in [1usize, 3, 4, 5, 8, 11] {
                let mut portable: Vec<u64> = (0..bits * words)
                    .map(|_| match rng.random_range(0..3) {
                        0 => 0,
                        1 => u64::MAX,
                        _ => rng.next_u64(),
                    })
                    .collect();
                let mut vector = portable.clone();
                for round in 0..500 {
                    let split: Vec<u64> = (0..words).map(|_| rng.next_u64()).collect();
                    let moving: Vec<u64> = (0..words)
                        .map(|_| rng.next_u64() | rng.next_u64())
                        .collect();
                    let up: Vec<u64> = moving.iter().zip(&split).map(|(m, s)| m & s).collect();
                    let down: Vec<u64> = moving.iter().zip(&split).map(|(m, s)| m & !s).collect();
                    let moves = match round % 3 {
                        0 => Moves::Up(&moving),
                        1 => Moves::Down(&moving),
                        _ => Moves::Both {
                            up: &up,
                            down: &down,
                        },
                    };
                    let expected = step_clause(&mut portable, words, bits, moves);
                    // SAFETY: AVX2 was just detected.
                    let got = unsafe {
                        match moves {
                            // One chunk stepping down has a path of its own.
                            Moves::Down(down) if words == CHUNK => {
                                avx2::step_chunk8_down(&mut vector, down)
                            }
                            _ => avx2::step_clause8(&mut vector, words, moves),
                        }
                    };
                    assert_eq!(got, expected, "{words} words, round {round}: change");
                    assert_eq!(vector, portable, "{words} words, round {round}: states");
                }
            }
        } else {
            eprintln!("skipping: this CPU has no AVX2");
        }
    }

    #[test]
    fn matches_naive_saturating_counters() {
        let mut rng = seeded(11);
        for bits in [1usize, 2, 3, 8, 12, 16] {
            let max = (1u32 << bits) - 1;
            // Six words: a whole chunk and a tail; the test watches word 5 (the tail) while
            // the moves of word 1 (in the chunk) are the same, and checks both.
            let words = 6;
            let mut planes = vec![0u64; bits * words];
            let mut naive = [0u32; 64];
            for (lane, value) in naive.iter_mut().enumerate() {
                // Half the lanes start at or next to an end, where the deep counters' ripple
                // runs past the top plane and must be set back.
                *value = match rng.random_range(0..8) {
                    0 => 0,
                    1 => 1,
                    2 => max - 1,
                    3 => max,
                    _ => rng.random_range(0..=max),
                };
                set_lane(&mut planes[1..], words, bits, lane as u32, *value);
                set_lane(&mut planes[5..], words, bits, lane as u32, *value);
            }
            for round in 0..2000 {
                // Sparse masks, and more steps one way for a while, so lanes saturate often.
                let moving = rng.next_u64() & rng.next_u64();
                let split = rng.next_u64();
                let (mut up, mut down) = (moving & split, moving & !split);
                if round % 400 < 150 {
                    up |= down;
                    down = 0;
                } else if round % 400 < 300 {
                    down |= up;
                    up = 0;
                }
                let top = (bits - 1) * words;
                let before = planes.clone();
                let mut up_words = vec![0u64; words];
                let mut down_words = vec![0u64; words];
                for w in [1, 5] {
                    up_words[w] = up;
                    down_words[w] = down;
                }
                let moves = match (up, down) {
                    (_, 0) => Moves::Up(&up_words),
                    (0, _) => Moves::Down(&down_words),
                    _ => Moves::Both {
                        up: &up_words,
                        down: &down_words,
                    },
                };
                let changed = step_clause(&mut planes, words, bits, moves);
                for (lane, value) in naive.iter_mut().enumerate() {
                    if up >> lane & 1 == 1 {
                        *value = (*value + 1).min(max);
                    } else if down >> lane & 1 == 1 {
                        *value = value.saturating_sub(1);
                    }
                    for w in [1, 5] {
                        let lane_now = lane_value(&planes[w..], words, bits, lane as u32);
                        assert_eq!(lane_now, *value, "bits {bits} word {w} lane {lane}");
                    }
                }
                let top_changed = (0..words).any(|w| planes[top + w] != before[top + w]);
                assert_eq!(changed, top_changed, "include change reported");
                for w in [0, 2, 3, 4] {
                    for k in 0..bits {
                        assert_eq!(planes[k * words + w], 0, "untouched word {w}");
                    }
                }
            }
        }
    }
}
