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
/// Words are handled [`CHUNK`] at a time with the carries and borrows in registers: both
/// ripples run over every plane without branches on the data, and the lanes that wrapped
/// around are put back afterwards. A one-way step skips the other ripple.
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
    for w in w..words {
        let include = planes[top + w];
        let mut carry = [if UP { up[w] } else { 0 }];
        let mut borrow = [if DOWN { down[w] } else { 0 }];
        ripple::<1, UP, DOWN>(planes, words, bits, w, &mut carry, &mut borrow);
        changed[0] |= include ^ planes[top + w];
    }
    changed.iter().any(|&c| c != 0)
}

/// Adds `carry` and subtracts `borrow` (disjoint lanes) on the N words from `w`,
/// saturating; a direction that is off at compile time costs nothing.
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
    for k in 0..bits {
        let p: &mut [u64; N] = (&mut planes[k * stride + w..k * stride + w + N])
            .try_into()
            .unwrap();
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
    if (0..N).fold(0, |acc, i| acc | carry[i] | borrow[i]) != 0 {
        for k in 0..bits {
            let p = &mut planes[k * stride + w..k * stride + w + N];
            for i in 0..N {
                p[i] = (p[i] | carry[i]) & !borrow[i];
            }
        }
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
                *value = rng.random_range(0..=max);
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
