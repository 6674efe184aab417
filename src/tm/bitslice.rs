//! Bit-sliced saturating counters: bit k of 64 Tsetlin automata's states in one word.
//!
//! `planes[k]` holds bit k of the states of the 64 automata of one word position, plane 0 the
//! least significant. Adding or subtracting 1 on a masked subset is a ripple carry over the
//! planes; the lanes that overflow (or underflow) are then clamped to the maximum (or 0).

/// Adds 1 to the lanes of `mask`, saturating at all ones. `planes` are the bit planes of one
/// word position, least significant first, accessed with a stride of `stride` words.
#[inline]
pub fn increment(planes: &mut [u64], stride: usize, bits: usize, mask: u64) {
    let mut carry = mask;
    for k in 0..bits {
        if carry == 0 {
            return;
        }
        let p = &mut planes[k * stride];
        let next = *p & carry;
        *p ^= carry;
        carry = next;
    }
    if carry != 0 {
        for k in 0..bits {
            planes[k * stride] |= carry;
        }
    }
}

/// Subtracts 1 from the lanes of `mask`, saturating at 0 (same layout as [`increment`]).
#[inline]
pub fn decrement(planes: &mut [u64], stride: usize, bits: usize, mask: u64) {
    let mut borrow = mask;
    for k in 0..bits {
        if borrow == 0 {
            return;
        }
        let p = &mut planes[k * stride];
        let next = !*p & borrow;
        *p ^= borrow;
        borrow = next;
    }
    if borrow != 0 {
        for k in 0..bits {
            planes[k * stride] &= !borrow;
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
            let stride = 3;
            let mut planes = vec![0u64; bits * stride];
            let mut naive = [0u32; 64];
            for (lane, value) in naive.iter_mut().enumerate() {
                *value = rng.random_range(0..=max);
                set_lane(&mut planes, stride, bits, lane as u32, *value);
            }
            for step in 0..2000 {
                // Masks biased toward the extremes so saturation happens often.
                let mask = rng.next_u64() & rng.next_u64();
                let up = step % 7 < 3 || (bits > 4 && step % 5 == 0);
                if up {
                    increment(&mut planes, stride, bits, mask);
                } else {
                    decrement(&mut planes, stride, bits, mask);
                }
                for (lane, value) in naive.iter_mut().enumerate() {
                    if mask >> lane & 1 == 1 {
                        *value = if up {
                            (*value + 1).min(max)
                        } else {
                            value.saturating_sub(1)
                        };
                    }
                    assert_eq!(lane_value(&planes, stride, bits, lane as u32), *value);
                }
            }
        }
    }
}
