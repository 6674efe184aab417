//! Bit-sliced saturating counters: bit k of 64 Tsetlin automata's states in one word.
//!
//! `planes[k]` holds bit k of the states of the 64 automata of one word position, plane 0 the
//! least significant. Adding or subtracting 1 on a masked subset is a ripple carry over the
//! planes; the lanes that overflow (or underflow) are then clamped to the maximum (or 0).

/// Words moved together by [`step_clause`] (one 256-bit vector where the CPU has them).
const CHUNK: usize = 4;

/// Moves the automata of one clause one step. `planes` holds the clause's `bits` planes of
/// `words` words, least significant first; `moves(w, include word)` gives the disjoint
/// masks of word w that go up and down. Steps saturate at all ones and at 0. Returns whether
/// the include plane (the top one) changed.
///
/// Words are handled [`CHUNK`] at a time with the carries and borrows in registers: both
/// ripples run over every plane without branches on the data, and the lanes that wrapped
/// around are put back afterwards.
#[inline(always)]
pub fn step_clause(
    planes: &mut [u64],
    words: usize,
    bits: usize,
    moves: impl Fn(usize, u64) -> (u64, u64),
) -> bool {
    let top = (bits - 1) * words;
    let mut changed = 0;
    let mut w = 0;
    while w + CHUNK <= words {
        let mut up = [0u64; CHUNK];
        let mut down = [0u64; CHUNK];
        let mut include = [0u64; CHUNK];
        for i in 0..CHUNK {
            include[i] = planes[top + w + i];
            (up[i], down[i]) = moves(w + i, include[i]);
        }
        ripple(planes, words, bits, w, &mut up, &mut down);
        for i in 0..CHUNK {
            changed |= include[i] ^ planes[top + w + i];
        }
        w += CHUNK;
    }
    for w in w..words {
        let include = planes[top + w];
        let (mut up, mut down) = moves(w, include);
        ripple::<1>(
            planes,
            words,
            bits,
            w,
            std::slice::from_mut(&mut up).try_into().unwrap(),
            std::slice::from_mut(&mut down).try_into().unwrap(),
        );
        changed |= include ^ planes[top + w];
    }
    changed != 0
}

/// Adds `up` and subtracts `down` (disjoint lanes) on the N words from `w`, saturating.
#[inline(always)]
fn ripple<const N: usize>(
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
        let p = &mut planes[k * stride + w..k * stride + w + N];
        for i in 0..N {
            let old = p[i];
            p[i] = old ^ carry[i] ^ borrow[i];
            carry[i] &= old;
            borrow[i] &= !old;
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
                let changed = step_clause(&mut planes, words, bits, |w, include| {
                    assert_eq!(include, before[top + w], "include word {w}");
                    if w == 1 || w == 5 {
                        (up, down)
                    } else {
                        (0, 0)
                    }
                });
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
