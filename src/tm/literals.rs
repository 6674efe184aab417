//! Literal layout: how F boolean features become 2F literals packed in 64-bit words.
//!
//! The literal vector holds the features in words `0..half_words` and their negations in
//! words `half_words..2 * half_words`; both halves start on a word boundary and the unused
//! high bits of each half's last word are always 0 (the [`LiteralLayout::valid`] mask).

/// The word layout of the literals of `features` boolean features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiteralLayout {
    /// Number of boolean features F.
    pub features: usize,
    /// Words per half (features, then negated features).
    pub half_words: usize,
}

impl LiteralLayout {
    /// A literal-drop mask for one epoch: each literal is kept (bit set) with probability
    /// `1 - drop`, one draw per literal in order.
    pub(crate) fn keep_mask(&self, drop: f64, rng: &mut crate::rng::Rng) -> Vec<u64> {
        use rand::Rng as _;
        let mut keep = vec![0u64; self.words()];
        for l in 0..self.literals() {
            if rng.random::<f64>() >= drop {
                let (w, b) = self.slot(l);
                keep[w] |= 1 << b;
            }
        }
        keep
    }

    /// The layout for `features` features.
    pub fn new(features: usize) -> LiteralLayout {
        LiteralLayout {
            features,
            half_words: features.div_ceil(64).max(1),
        }
    }

    /// Words of a literal vector (and of one bit plane of a clause).
    #[inline]
    pub fn words(&self) -> usize {
        2 * self.half_words
    }

    /// Number of literals 2F.
    #[inline]
    pub fn literals(&self) -> usize {
        2 * self.features
    }

    /// The (word, bit) slot of literal `literal` (`0..F` plain, `F..2F` negated).
    #[inline]
    pub fn slot(&self, literal: usize) -> (usize, u32) {
        let (base, index) = if literal < self.features {
            (0, literal)
        } else {
            (self.half_words, literal - self.features)
        };
        (base + index / 64, (index % 64) as u32)
    }

    /// The literal stored at (word, bit), if that slot is a real literal.
    pub fn literal_at(&self, word: usize, bit: u32) -> Option<usize> {
        let (negated, w) = if word < self.half_words {
            (false, word)
        } else {
            (true, word - self.half_words)
        };
        let index = w * 64 + bit as usize;
        (index < self.features).then_some(index + if negated { self.features } else { 0 })
    }

    /// Mask of the real literal bits of word `word`.
    #[inline]
    pub fn valid(&self, word: usize) -> u64 {
        let w = if word >= self.half_words {
            word - self.half_words
        } else {
            word
        };
        let used = self.features.saturating_sub(w * 64).min(64);
        if used == 64 {
            u64::MAX
        } else {
            (1u64 << used) - 1
        }
    }

    /// Words of a packed feature vector (the plain half).
    #[inline]
    pub fn feature_words(&self) -> usize {
        self.half_words
    }

    /// Packs 0/1 feature values (any non-zero is 1) into `half_words` words.
    pub fn pack_features(&self, values: &[u8]) -> Vec<u64> {
        let mut words = vec![0u64; self.half_words];
        for (i, &v) in values.iter().enumerate().take(self.features) {
            if v != 0 {
                words[i / 64] |= 1 << (i % 64);
            }
        }
        words
    }

    /// Fills `literals` (length [`LiteralLayout::words`]) from packed features.
    #[inline]
    pub fn fill_literals(&self, features: &[u64], literals: &mut [u64]) {
        let h = self.half_words;
        literals[..h].copy_from_slice(&features[..h]);
        for w in 0..h {
            literals[h + w] = !features[w] & self.valid(w);
        }
    }

    /// The literal vector of packed features.
    pub fn literals_of(&self, features: &[u64]) -> Vec<u64> {
        let mut literals = vec![0u64; self.words()];
        self.fill_literals(features, &mut literals);
        literals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_round_trip_and_are_valid() {
        for f in [1, 63, 64, 65, 130, 2450] {
            let layout = LiteralLayout::new(f);
            for l in 0..layout.literals() {
                let (w, b) = layout.slot(l);
                assert_eq!(layout.literal_at(w, b), Some(l));
                assert_ne!(layout.valid(w) & (1 << b), 0);
            }
            let total: u32 = (0..layout.words())
                .map(|w| layout.valid(w).count_ones())
                .sum();
            assert_eq!(total as usize, layout.literals());
        }
    }

    #[test]
    fn negations_are_complements() {
        let layout = LiteralLayout::new(70);
        let values: Vec<u8> = (0..70).map(|i| (i % 3 == 0) as u8).collect();
        let lits = layout.literals_of(&layout.pack_features(&values));
        for (i, &v) in values.iter().enumerate() {
            let (w, b) = layout.slot(i);
            let (nw, nb) = layout.slot(i + 70);
            assert_eq!((lits[w] >> b) & 1, v as u64);
            assert_eq!((lits[nw] >> nb) & 1, 1 - v as u64);
        }
    }
}
