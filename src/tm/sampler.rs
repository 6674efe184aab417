//! Cheap exact Bernoulli subsets: every literal independently with probability p.
//!
//! Poissonization: throw K ~ Poisson(S x m) darts uniformly at the S literal slots, where
//! m = -ln(1 - p). The number of darts landing on each slot is then an independent
//! Poisson(m) count, so every slot is hit at least once with probability 1 - e^(-m) = p,
//! independently of every other slot. A subset costs about 1.05 x p x S short uniform draws
//! (several per 64-bit random word) and one OR each: no duplicate checks and no branches on
//! the data. The padding slots of the literal layout are hit too and masked off afterwards,
//! which leaves the real literals untouched. For p above 1/2 the darts draw the complement.
//!
//! The dart count comes from the exact Poisson distribution by inverting a table of its CDF
//! (scaled to 2^64), and each dart's slot is an exact uniform draw (multiply and shift, with
//! the rare biased draws rejected). The random words come four at a time from a
//! [`WideRng`]; with AVX2 the darts' slots are computed four to a vector instruction.
//!
//! Short layouts, where a subset takes few darts and a draw's fixed costs weigh, draw up to
//! sixteen subsets in one throw at their slots side by side ([`SubsetSource`]): the slots
//! are hit independently whatever their number, so the subsets are independent too.

use crate::rng::WideRng;
use crate::tm::literals::LiteralLayout;

/// Where a feedback takes its random subsets of literals from: the CPU's wide streams, or
/// (feature `cuda`) the GPU trainer's counters computed on the host.
pub trait SubsetDraws {
    /// Draws into `subset` each literal of `sampler`'s layout with `sampler`'s probability;
    /// padding bits are 0.
    fn draw_subset(&mut self, sampler: &SubsetSampler, subset: &mut Subset);

    /// Calls `use_subset` with the next subset, the same one [`SubsetDraws::draw_subset`]
    /// would draw: read where the source holds it ready, else drawn into `subset`.
    #[inline]
    fn with_subset<R>(
        &mut self,
        sampler: &SubsetSampler,
        subset: &mut Subset,
        use_subset: impl FnOnce(&[u64]) -> R,
    ) -> R {
        self.draw_subset(sampler, subset);
        use_subset(subset.words())
    }
}

impl SubsetDraws for WideRng {
    #[inline]
    fn draw_subset(&mut self, sampler: &SubsetSampler, subset: &mut Subset) {
        sampler.draw(self, subset);
    }
}

/// Draws random subsets of the literals, each literal with probability `p`.
#[derive(Clone, Debug)]
pub struct SubsetSampler {
    layout: LiteralLayout,
    /// The layout's valid bits, word by word (padding 0).
    valid: Vec<u64>,
    /// Whether every slot is a literal (no padding bits to clear).
    whole: bool,
    darts: Darts,
}

/// A drawn subset of the literal slots, with the working memory its drawing needs.
#[derive(Clone, Debug)]
pub struct Subset {
    words: Vec<u64>,
    /// One byte per slot, plus one where rejected darts land: the vector throw marks bytes
    /// (no read-modify-write per dart) with the draw's `generation`, then packs the bytes
    /// that carry it into `words`. Older marks need no clearing: they carry older
    /// generations, and the bytes are cleared only when the generation counter wraps.
    marks: Marks,
}

/// Dart marks of the vector throw, one byte per slot, and the mark of the current draw.
#[derive(Clone, Debug)]
struct Marks {
    bytes: Vec<u8>,
    generation: u8,
}

impl Marks {
    /// Marks for `slots` slots (and the spare for rejected darts), none set.
    fn new(slots: usize) -> Marks {
        Marks {
            bytes: vec![0; slots + 1],
            generation: 0,
        }
    }

    /// Starts a draw: a generation no byte carries yet (all bytes cleared after 255 draws).
    fn next_generation(&mut self) -> u8 {
        if self.generation == u8::MAX {
            self.bytes.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
        self.generation
    }
}

impl Subset {
    /// An empty subset of the slots of `layout`.
    pub fn new(layout: LiteralLayout) -> Subset {
        Subset {
            words: vec![0; layout.words()],
            marks: Marks::new(layout.words() * 64),
        }
    }

    /// The chosen slots, one bit each.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The chosen slots, for callers that reuse the words in place.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }
}

/// How a subset is drawn.
#[derive(Clone, Debug)]
enum Darts {
    /// p = 0: nothing.
    None,
    /// p = 1: every literal.
    All,
    /// Darts at the slots; `invert` keeps the literals NOT hit (p above 1/2).
    Throw {
        /// One subset's throw.
        single: Throw,
        /// Where the slots of several subsets fit 16-bit draws: one throw over all of them
        /// (a [`SubsetSource`]'s stock).
        stock: Option<Throw>,
        invert: bool,
    },
}

/// The settings of a dart throw over a number of slots, each hit with one probability.
#[derive(Clone, Debug)]
struct Throw {
    slots: u64,
    /// `cdf[k]` = P(K <= first + k) x 2^64 for the dart count K.
    cdf: Vec<u64>,
    /// The smallest count with a non-zero entry.
    first: usize,
    /// `guide[j]`: the number of `cdf` entries not above j x 2^56, where the search for
    /// a draw with top byte j starts.
    guide: Vec<u32>,
    /// Bits of one uniform draw (16 or 32): 64 / lane_bits draws per random word.
    lane_bits: u32,
    /// Draws whose low part is below this are rejected (2^lane_bits mod S).
    reject_below: u64,
}

/// At most this many subsets are drawn in one throw ...
const STOCK_SUBSETS: u64 = 16;

/// ... over at most this many slots, so that a stock's marks stay in the first-level cache
/// (a stock pays where a subset takes few darts and a throw's fixed costs weigh).
const STOCK_SLOTS: u64 = 8192;

impl Throw {
    /// A throw at `slots` slots that hits each slot with probability `hit` (below 1).
    fn new(slots: u64, hit: f64) -> Throw {
        let lambda = slots as f64 * -(-hit).ln_1p();
        let (first, cdf) = poisson_cdf(lambda);
        let guide = (0..256u64)
            .map(|j| cdf.partition_point(|&c| c <= j << 56) as u32)
            .collect();
        let lane_bits = if Throw::fits_16_bits(slots) { 16 } else { 32 };
        Throw {
            slots,
            cdf,
            first,
            guide,
            lane_bits,
            reject_below: (1u64 << lane_bits) % slots,
        }
    }

    /// Whether 16-bit draws (four per random word) suit `slots` slots: they waste under 2%
    /// to rejection.
    fn fits_16_bits(slots: u64) -> bool {
        slots <= 1 << 16 && (1 << 16) % slots <= (1 << 16) / 50
    }

    /// The throw for a stock of subsets of `slots` slots: the most subsets (2 to
    /// [`STOCK_SUBSETS`], [`STOCK_SLOTS`] slots in all) whose slots together fit 16-bit
    /// draws, if any.
    fn stock(slots: u64, hit: f64) -> Option<Throw> {
        (2..=STOCK_SUBSETS)
            .rev()
            .find(|n| n * slots <= STOCK_SLOTS && Throw::fits_16_bits(n * slots))
            .map(|n| Throw::new(n * slots, hit))
    }

    /// Hits the slots of `chosen` (`slots` / 64 words, overwritten): each independently
    /// with the throw's probability.
    #[inline]
    fn throw(&self, rng: &mut WideRng, chosen: &mut [u64], marks: &mut Marks) {
        let Throw {
            slots,
            cdf,
            first,
            guide,
            lane_bits,
            reject_below,
        } = self;
        // The dart count: `first` plus the CDF entries not above a uniform word.
        let count_of = |u: u64| {
            let mut below = guide[(u >> 56) as usize] as usize;
            while below < cdf.len() && cdf[below] <= u {
                below += 1;
            }
            first + below
        };
        throw_dispatch(
            *lane_bits,
            rng,
            count_of,
            *slots,
            *reject_below,
            chosen,
            marks,
        );
    }
}

impl SubsetSampler {
    /// A sampler over the literals of `layout` with inclusion probability `p` (0..=1).
    pub fn new(layout: LiteralLayout, p: f64) -> SubsetSampler {
        let p = p.clamp(0.0, 1.0);
        let darts = if p <= 0.0 {
            Darts::None
        } else if p >= 1.0 {
            Darts::All
        } else {
            let invert = p > 0.5;
            let hit = if invert { 1.0 - p } else { p };
            let slots = layout.words() as u64 * 64;
            Darts::Throw {
                single: Throw::new(slots, hit),
                stock: Throw::stock(slots, hit),
                invert,
            }
        };
        let valid: Vec<u64> = (0..layout.words()).map(|w| layout.valid(w)).collect();
        SubsetSampler {
            layout,
            whole: valid.iter().all(|&v| v == u64::MAX),
            valid,
            darts,
        }
    }

    /// Draws into `subset` (made for the same layout) each literal with probability p,
    /// independently of the others; padding bits are 0.
    #[inline]
    pub fn draw(&self, rng: &mut WideRng, subset: &mut Subset) {
        let Subset { words, marks } = subset;
        let chosen = &mut words[..self.layout.words()];
        match &self.darts {
            Darts::None => chosen.fill(0),
            Darts::All => {
                for (w, c) in chosen.iter_mut().enumerate() {
                    *c = self.layout.valid(w);
                }
            }
            Darts::Throw { single, invert, .. } => {
                single.throw(rng, chosen, marks);
                self.finish(chosen, *invert);
            }
        }
    }

    /// Draws into `subset` as [`SubsetSampler::draw`] does, from `source`'s stock where
    /// this sampler draws several subsets in one throw (refilled when empty), else from its
    /// stream directly.
    #[inline]
    pub fn draw_from(&self, source: &mut SubsetSource, subset: &mut Subset) {
        match self.next_stocked(source) {
            Some((start, invert)) => self.copy_stocked(&source.stock[start..], invert, subset),
            None => self.draw(&mut source.rng, subset),
        }
    }

    /// [`SubsetDraws::with_subset`] for `source`: a stocked subset that needs no finishing
    /// (no padding, no complement) is read in the stock itself.
    #[inline]
    fn with_subset_from<R>(
        &self,
        source: &mut SubsetSource,
        subset: &mut Subset,
        use_subset: impl FnOnce(&[u64]) -> R,
    ) -> R {
        match self.next_stocked(source) {
            Some((start, false)) if self.whole => {
                return use_subset(&source.stock[start..start + self.layout.words()]);
            }
            Some((start, invert)) => self.copy_stocked(&source.stock[start..], invert, subset),
            None => self.draw(&mut source.rng, subset),
        }
        use_subset(subset.words())
    }

    /// Copies the stocked subset that `stocked` starts with into `subset`, finished in the
    /// same pass as [`SubsetSampler::finish`] does in place.
    #[inline]
    fn copy_stocked(&self, stocked: &[u64], invert: bool, subset: &mut Subset) {
        let flip = flip_mask(invert);
        for ((c, &s), &valid) in subset.words.iter_mut().zip(stocked).zip(&self.valid) {
            *c = (s ^ flip) & valid;
        }
    }

    /// Where this sampler draws from a stock: the first word of the next stocked subset in
    /// `source` (thrown when the stock is empty) and whether the darts draw the complement.
    #[inline(always)]
    fn next_stocked(&self, source: &mut SubsetSource) -> Option<(usize, bool)> {
        let Darts::Throw {
            stock: Some(stock),
            invert,
            ..
        } = &self.darts
        else {
            return None;
        };
        let words = self.layout.words();
        if source.left == 0 {
            Self::refill(stock, words, source);
        }
        source.left -= 1;
        Some((source.left * words, *invert))
    }

    /// Throws a new stock of subsets of `words` words into `source`.
    #[cold]
    #[inline(never)]
    fn refill(stock: &Throw, words: usize, source: &mut SubsetSource) {
        let stocked = stock.slots as usize / 64;
        source.stock.resize(stocked, 0);
        if source.marks.bytes.len() != stocked * 64 + 1 {
            source.marks = Marks::new(stocked * 64);
        }
        stock.throw(&mut source.rng, &mut source.stock, &mut source.marks);
        source.left = stocked / words;
    }

    /// Turns the hit slots into the subset: their complement when `invert`, padding cleared.
    #[inline]
    fn finish(&self, chosen: &mut [u64], invert: bool) {
        let flip = flip_mask(invert);
        for (c, &valid) in chosen.iter_mut().zip(&self.valid) {
            *c = (*c ^ flip) & valid;
        }
    }
}

/// The mask that a hit word is XORed with: all ones where the darts draw the complement.
#[inline]
fn flip_mask(invert: bool) -> u64 {
    if invert {
        u64::MAX
    } else {
        0
    }
}

/// A unit of work's source of 1/s subsets: its wide random stream and, for short layouts,
/// a stock of subsets thrown together. One throw of Poisson(n S m) darts at the slots of n
/// subsets hits every slot independently with probability p (see the module doc), so the n
/// subsets are independent too, and the fixed costs of a throw (the dart count, the
/// generator's trip through vector registers, the last partial step) are paid once per n.
#[derive(Clone, Debug)]
pub struct SubsetSource {
    rng: WideRng,
    /// Subsets thrown and not handed out yet: the first `left` of them.
    stock: Vec<u64>,
    left: usize,
    marks: Marks,
}

impl SubsetSource {
    /// A source drawing from `rng`, with an empty stock.
    pub fn new(rng: WideRng) -> SubsetSource {
        SubsetSource {
            rng,
            stock: Vec::new(),
            left: 0,
            marks: Marks::new(0),
        }
    }
}

impl SubsetDraws for SubsetSource {
    #[inline]
    fn draw_subset(&mut self, sampler: &SubsetSampler, subset: &mut Subset) {
        sampler.draw_from(self, subset);
    }

    #[inline]
    fn with_subset<R>(
        &mut self,
        sampler: &SubsetSampler,
        subset: &mut Subset,
        use_subset: impl FnOnce(&[u64]) -> R,
    ) -> R {
        sampler.with_subset_from(self, subset, use_subset)
    }
}

/// Draws the dart count with `count_of` from the first word of the generator's next step,
/// then [`throw`]s the darts with 16- or 32-bit lanes into `chosen` (overwritten); 16-bit
/// lanes go through [`avx2::throw16`] where the CPU has AVX2 (the same draws, four lanes per
/// instruction, marked in `marks`).
#[inline]
fn throw_dispatch(
    lane_bits: u32,
    rng: &mut WideRng,
    count_of: impl FnOnce(u64) -> usize,
    slots: u64,
    reject_below: u64,
    chosen: &mut [u64],
    marks: &mut Marks,
) {
    if lane_bits == 16 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let generation = marks.next_generation();
            // SAFETY: the CPU has just been found to support AVX2.
            unsafe {
                avx2::throw16(
                    rng,
                    count_of,
                    slots,
                    reject_below,
                    &mut marks.bytes,
                    generation,
                );
                if std::arch::is_x86_feature_detected!("avx512bw") {
                    avx512::pack(&marks.bytes, generation, chosen);
                } else {
                    avx2::pack(&marks.bytes, generation, chosen);
                }
            }
            return;
        }
        let count = count_of(rng.next4()[0]);
        chosen.fill(0);
        throw::<16>(rng, count, slots, reject_below, chosen);
    } else {
        let count = count_of(rng.next4()[0]);
        chosen.fill(0);
        throw::<32>(rng, count, slots, reject_below, chosen);
    }
}

/// Throws `count` darts uniformly at the `slots` bits of `chosen`. Each step takes four
/// random words and cuts them into `BITS`-bit lanes; a lane times `slots` has the dart's
/// slot in its high part, and a low part below `reject_below` rejects the lane (those
/// values would make some slots likelier). The slots of a step are computed together,
/// then set without branches (a rejected lane sets no bit); only the last step checks the
/// count lane by lane.
#[inline(always)]
fn throw<const BITS: u32>(
    rng: &mut WideRng,
    mut count: usize,
    slots: u64,
    reject_below: u64,
    chosen: &mut [u64],
) {
    const MAX_DARTS: usize = 16;
    let per_word = (64 / BITS) as usize;
    let darts = 4 * per_word;
    let lane_mask = (1u64 << BITS) - 1;
    let mut slot = [0u64; MAX_DARTS];
    let mut accepted = [0u64; MAX_DARTS];
    while count > 0 {
        let words = rng.next4();
        for k in 0..per_word {
            for (lane, &word) in words.iter().enumerate() {
                let m = ((word >> (k as u32 * BITS)) & lane_mask) * slots;
                slot[4 * k + lane] = m >> BITS;
                accepted[4 * k + lane] = (m & lane_mask >= reject_below) as u64;
            }
        }
        if count >= darts {
            for (&s, &a) in slot[..darts].iter().zip(&accepted[..darts]) {
                chosen[(s / 64) as usize] |= a << (s % 64);
                count -= a as usize;
            }
        } else {
            for (&s, &a) in slot[..darts].iter().zip(&accepted[..darts]) {
                chosen[(s / 64) as usize] |= a << (s % 64);
                count -= a as usize;
                if count == 0 {
                    return;
                }
            }
        }
    }
}

/// The CDF of Poisson(`lambda`) scaled to 2^64, from the first count whose scaled value is
/// not 0 up to where it reaches 1: the count is `first` plus the number of entries not above
/// a uniform 64-bit draw.
fn poisson_cdf(lambda: f64) -> (usize, Vec<u64>) {
    const SCALE: f64 = 18_446_744_073_709_551_616.0;
    let ln_lambda = lambda.ln();
    let mut log_pmf = -lambda;
    let mut cumulative = 0.0f64;
    let mut first = 0;
    let mut cdf = Vec::new();
    for k in 0usize.. {
        if k > 0 {
            log_pmf += ln_lambda - (k as f64).ln();
        }
        cumulative += log_pmf.exp();
        // Past the mode, stop once the rest of the tail is below the table's resolution.
        if cumulative >= 1.0 - 1e-17 || (k as f64 > lambda && log_pmf < -46.0) {
            break;
        }
        let scaled = (cumulative * SCALE) as u64;
        if scaled == 0 {
            first = k + 1;
        } else {
            cdf.push(scaled);
        }
    }
    (first, cdf)
}

/// The 16-bit dart throw with AVX2 intrinsics: the four generator lanes live in one vector
/// register for the whole throw, and each random vector gives 16 darts' slots in a few
/// instructions.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::WideRng;
    use crate::rng::avx2::{load_lanes, step, store_lanes};
    use std::arch::x86_64::*;

    /// The scalar dart count and [`super::throw`] with 16-bit lanes: the count from the
    /// first word of one generator step (as `count_of(rng.next4()[0])`), then the same darts
    /// in the same order, and the same generator state afterwards, without the generator
    /// leaving the vector registers in between. A dart sets its byte of `marks` (`slots` + 1
    /// bytes; a rejected one sets the last byte) to `generation` instead of a bit.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn throw16(
        rng: &mut WideRng,
        count_of: impl FnOnce(u64) -> usize,
        slots: u64,
        reject_below: u64,
        marks: &mut [u8],
        generation: u8,
    ) {
        assert!(
            marks.len() > slots as usize,
            "one mark per slot and one for rejects"
        );
        let mut lanes = load_lanes(rng);
        let count = count_of(_mm256_extract_epi64::<0>(step(&mut lanes)) as u64);
        if reject_below == 0 {
            darts16::<false>(&mut lanes, count, slots, 0, marks, generation);
        } else {
            darts16::<true>(&mut lanes, count, slots, reject_below, marks, generation);
        }
        store_lanes(rng, lanes);
    }

    /// The darts of [`throw16`]: `count` accepted darts from the generator `lanes`, marked
    /// in `marks` (`slots` + 1 bytes, asserted by the caller). While 16 darts or more are
    /// due, a step's 16 are all marked (the rejected ones at the spare mark), in any order;
    /// a last step that may pass the count marks its darts in order up to it. Without
    /// `REJECTS` (`reject_below` 0: 2^16 is a multiple of `slots`) no lane is rejected and
    /// the checks are left out.
    #[inline(always)]
    fn darts16<const REJECTS: bool>(
        lanes: &mut [__m256i; 4],
        mut count: usize,
        slots: u64,
        reject_below: u64,
        marks: &mut [u8],
        generation: u8,
    ) {
        // A step's 16 darts in one vector of 16-bit parts: part k of lane l's word is dart
        // 4k + l, and its slot is the high half of the part times `slots` (at 2^16 slots,
        // the part itself). Rejected darts go to the spare mark after the slots.
        let whole = slots == 1 << 16;
        let slots16 = unsafe { _mm256_set1_epi16(slots as u16 as i16) };
        let reject16 = unsafe { _mm256_set1_epi16(reject_below as u16 as i16) };
        // Every target is a slot (below `slots`) or the spare mark after them (`slots`).
        let mut mark = |s: u64| {
            debug_assert!(s <= slots);
            // SAFETY: `s` is at most `slots`, and `marks` holds `slots` + 1 bytes.
            unsafe { *marks.get_unchecked_mut(s as usize) = generation };
        };
        while count > 0 {
            // SAFETY: AVX2 arithmetic on registers.
            let (target, accepted) = unsafe {
                let words = step(lanes);
                let mut target = if whole {
                    words
                } else {
                    _mm256_mulhi_epu16(words, slots16)
                };
                // Two bits a dart, set when it is accepted (its low half at least
                // `reject_below`).
                let mut accepted = u32::MAX;
                if REJECTS {
                    let low = _mm256_mullo_epi16(words, slots16);
                    let ok = _mm256_cmpeq_epi16(_mm256_max_epu16(low, reject16), low);
                    target = _mm256_blendv_epi8(slots16, target, ok);
                    accepted = _mm256_movemask_epi8(ok) as u32;
                }
                (target, accepted)
            };
            if count >= 16 {
                // Every dart of the step counts: marked in any order, from four general
                // registers.
                // SAFETY: AVX2 extractions from a register.
                let words = unsafe {
                    [
                        _mm256_extract_epi64::<0>(target) as u64,
                        _mm256_extract_epi64::<1>(target) as u64,
                        _mm256_extract_epi64::<2>(target) as u64,
                        _mm256_extract_epi64::<3>(target) as u64,
                    ]
                };
                for word in words {
                    mark(word & 0xFFFF);
                    mark((word >> 16) & 0xFFFF);
                    mark((word >> 32) & 0xFFFF);
                    mark(word >> 48);
                }
                count -= (accepted.count_ones() / 2) as usize;
            } else {
                // The last step: darts in order until the count is reached.
                let mut parts = [0u16; 16];
                // SAFETY: the unaligned store writes the 32 bytes of `parts`.
                unsafe { _mm256_storeu_si256(parts.as_mut_ptr().cast(), target) };
                for dart in 0..16 {
                    let part = 4 * (dart % 4) + dart / 4;
                    mark(parts[part] as u64);
                    count -= ((accepted >> (2 * part)) & 1) as usize;
                    if count == 0 {
                        break;
                    }
                }
            }
        }
    }

    /// Packs the marks of [`throw16`] that carry `generation` into one bit per slot in
    /// `chosen` (64 marks a word).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn pack(marks: &[u8], generation: u8, chosen: &mut [u64]) {
        let mark = _mm256_set1_epi8(generation as i8);
        for (word, group) in chosen.iter_mut().zip(marks.chunks_exact(64)) {
            let (low, high) = group.split_at(32);
            // SAFETY: each half is 32 bytes, the size of a vector.
            let (low_v, high_v) = unsafe {
                (
                    _mm256_loadu_si256(low.as_ptr().cast()),
                    _mm256_loadu_si256(high.as_ptr().cast()),
                )
            };
            *word = _mm256_movemask_epi8(_mm256_cmpeq_epi8(low_v, mark)) as u32 as u64
                | (_mm256_movemask_epi8(_mm256_cmpeq_epi8(high_v, mark)) as u32 as u64) << 32;
        }
    }
}

/// [`avx2::pack`] with 512-bit vectors: one comparison gives a word's 64 bits.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// Packs the marks that carry `generation` into one bit per slot in `chosen`, as
    /// [`super::avx2::pack`] does.
    ///
    /// # Safety
    /// The CPU must support AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    pub(super) unsafe fn pack(marks: &[u8], generation: u8, chosen: &mut [u64]) {
        let mark = _mm512_set1_epi8(generation as i8);
        for (word, group) in chosen.iter_mut().zip(marks.chunks_exact(64)) {
            // SAFETY: the group is 64 bytes, the size of a vector.
            let marks = unsafe { _mm512_loadu_si512(group.as_ptr().cast()) };
            *word = _mm512_cmpeq_epi8_mask(marks, mark);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;

    fn wide(seed: u64) -> WideRng {
        WideRng::from_rng(&mut seeded(seed))
    }

    /// Hit frequency of every slot over `rounds` subsets drawn by `draw`, and the subset
    /// sizes' mean and variance.
    fn frequencies(
        layout: LiteralLayout,
        rounds: usize,
        mut draw: impl FnMut(&mut Subset),
    ) -> (Vec<f64>, f64, f64) {
        let mut hits = vec![0u32; layout.words() * 64];
        let (mut sum, mut sum_sq) = (0f64, 0f64);
        let mut subset = Subset::new(layout);
        for _ in 0..rounds {
            draw(&mut subset);
            let chosen = subset.words();
            let size = chosen.iter().map(|w| w.count_ones()).sum::<u32>() as f64;
            sum += size;
            sum_sq += size * size;
            for (slot, h) in hits.iter_mut().enumerate() {
                *h += ((chosen[slot / 64] >> (slot % 64)) & 1) as u32;
            }
        }
        let mean = sum / rounds as f64;
        let freq = hits.iter().map(|&h| h as f64 / rounds as f64).collect();
        (freq, mean, sum_sq / rounds as f64 - mean * mean)
    }

    /// Checks that `draw` chooses each literal of `layout` with probability `p` over `rounds`
    /// subsets, padding never, and subset sizes Binomial(literals, p).
    fn assert_bernoulli(
        layout: LiteralLayout,
        p: f64,
        rounds: usize,
        draw: impl FnMut(&mut Subset),
    ) {
        let features = layout.features;
        let (freq, mean, variance) = frequencies(layout, rounds, draw);
        let n = layout.literals() as f64;
        let tolerance = 5.0 * (p * (1.0 - p) / rounds as f64).sqrt();
        for (slot, &f) in freq.iter().enumerate() {
            if layout.valid(slot / 64) >> (slot % 64) & 1 == 1 {
                assert!((f - p).abs() < tolerance, "{features} slot {slot}: {f}");
            } else {
                assert_eq!(f, 0.0, "padding slot {slot}");
            }
        }
        // Independent literals: the size is Binomial(n, p).
        let (expected_mean, expected_variance) = (n * p, n * p * (1.0 - p));
        let mean_error = 5.0 * (expected_variance / rounds as f64).sqrt();
        assert!((mean - expected_mean).abs() < mean_error, "mean {mean}");
        assert!(
            (variance / expected_variance - 1.0).abs() < 0.1,
            "variance {variance}, expected {expected_variance}"
        );
    }

    #[test]
    fn each_literal_is_chosen_with_probability_p_and_padding_never() {
        // 16-bit draws (small layout), 32-bit draws (large), and the inverted draw.
        for (features, p, rounds) in [(100, 0.25, 40_000), (2450, 0.1, 4_000), (70, 0.8, 40_000)] {
            let layout = LiteralLayout::new(features);
            let sampler = SubsetSampler::new(layout, p);
            let mut rng = wide(9);
            assert_bernoulli(layout, p, rounds, |subset| sampler.draw(&mut rng, subset));
        }
    }

    #[test]
    fn stocked_subsets_are_bernoulli_and_independent_of_each_other() {
        // Checkers' 256 slots (16 subsets a throw), 384 slots (14, with rejections) and the
        // inverted draw.
        for (features, p) in [(128, 1.0 / 9.0), (150, 0.2), (70, 0.8)] {
            let layout = LiteralLayout::new(features);
            let sampler = SubsetSampler::new(layout, p);
            let Darts::Throw { stock, .. } = &sampler.darts else {
                panic!("a throw for p {p}")
            };
            assert!(stock.is_some(), "{features} features");
            let mut source = SubsetSource::new(wide(4));
            assert_bernoulli(layout, p, 40_000, |subset| {
                sampler.draw_from(&mut source, subset)
            });
            // The same literal in consecutive subsets, within a stock and across refills.
            let mut source = SubsetSource::new(wide(5));
            let (a, b) = (layout.slot(3), layout.slot(features + 1));
            let mut subset = Subset::new(layout);
            let bit = |subset: &Subset, (w, k): (usize, u32)| subset.words()[w] >> k & 1 == 1;
            let (mut previous, mut both) = ((false, false), [0u32; 2]);
            let rounds = 100_000;
            for _ in 0..rounds {
                sampler.draw_from(&mut source, &mut subset);
                let now = (bit(&subset, a), bit(&subset, b));
                both[0] += (now.0 && previous.0) as u32;
                both[1] += (now.1 && previous.1) as u32;
                previous = now;
            }
            for h in both {
                let f = h as f64 / rounds as f64;
                let sigma = (p * p * (1.0 - p * p) / rounds as f64).sqrt();
                assert!((f - p * p).abs() < 6.0 * sigma, "{features} features: {f}");
            }
        }
    }

    #[test]
    fn a_layout_without_stock_draws_from_the_stream_itself() {
        let layout = LiteralLayout::new(2450);
        let sampler = SubsetSampler::new(layout, 0.1);
        let Darts::Throw { stock, .. } = &sampler.darts else {
            panic!("a throw")
        };
        assert!(stock.is_none());
        let (mut rng, mut source) = (wide(6), SubsetSource::new(wide(6)));
        let (mut direct, mut sourced) = (Subset::new(layout), Subset::new(layout));
        for _ in 0..20 {
            sampler.draw(&mut rng, &mut direct);
            sampler.draw_from(&mut source, &mut sourced);
            assert_eq!(direct.words(), sourced.words());
        }
    }

    #[test]
    fn pairs_of_literals_are_independent() {
        let layout = LiteralLayout::new(200);
        let p = 0.3;
        let sampler = SubsetSampler::new(layout, p);
        let mut rng = wide(3);
        let pairs = [(0, 1), (5, 63), (64, 65), (10, 300), (199, 200)];
        let mut both = [0u32; 5];
        let rounds = 100_000;
        let bit = |chosen: &[u64], l: usize| {
            let (w, b) = layout.slot(l);
            (chosen[w] >> b) & 1 == 1
        };
        for _ in 0..rounds {
            let mut subset = Subset::new(layout);
            sampler.draw(&mut rng, &mut subset);
            let chosen = subset.words();
            for (k, &(a, b)) in pairs.iter().enumerate() {
                both[k] += (bit(chosen, a) && bit(chosen, b)) as u32;
            }
        }
        for (k, &h) in both.iter().enumerate() {
            let f = h as f64 / rounds as f64;
            // p^2 = 0.09, standard error about 0.0009.
            assert!((f - p * p).abs() < 0.005, "pair {:?}: {f}", pairs[k]);
        }
    }

    #[test]
    fn poisson_table_has_the_right_moments() {
        for lambda in [0.5, 30.0, 526.0, 20_000.0] {
            let (first, cdf) = poisson_cdf(lambda);
            let scale = 2f64.powi(64);
            let mut previous = 0.0;
            let (mut mean, mut second) = (0.0, 0.0);
            for (k, &c) in cdf.iter().enumerate() {
                let x = (first + k) as f64;
                let mass = c as f64 / scale - previous;
                previous = c as f64 / scale;
                mean += mass * x;
                second += mass * x * x;
            }
            let last = (first + cdf.len()) as f64;
            mean += (1.0 - previous) * last;
            second += (1.0 - previous) * last * last;
            let variance = second - mean * mean;
            assert!(
                (mean / lambda - 1.0).abs() < 1e-9,
                "mean {mean} for {lambda}"
            );
            assert!(
                (variance / lambda - 1.0).abs() < 1e-6,
                "variance {variance} for {lambda}"
            );
        }
    }

    #[test]
    fn vector_throw_equals_the_portable_one() {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut rng = seeded(17);
            for words in [1usize, 2, 78, 200, 1024] {
                let slots = words as u64 * 64;
                let reject_below = (1u64 << 16) % slots;
                // The same marks for every draw: 280 draws, so the generation wraps.
                let mut marks = Marks::new(words * 64);
                for round in 0..40 {
                    for count in [0usize, 1, 15, 16, 17, 526, 3000] {
                        let mut wide = WideRng::from_rng(&mut rng);
                        let mut copy = wide.clone();
                        let (mut portable, mut vector) = (vec![0u64; words], vec![0u64; words]);
                        let first_word = wide.next4()[0];
                        throw::<16>(&mut wide, count, slots, reject_below, &mut portable);
                        let mut seen = None;
                        let count_of = |u| {
                            seen = Some(u);
                            count
                        };
                        let generation = marks.next_generation();
                        // SAFETY: AVX2 was just detected.
                        unsafe {
                            avx2::throw16(
                                &mut copy,
                                count_of,
                                slots,
                                reject_below,
                                &mut marks.bytes,
                                generation,
                            );
                            avx2::pack(&marks.bytes, generation, &mut vector);
                        }
                        let case = format!("{words} words, {count} darts, round {round}");
                        assert_eq!(seen, Some(first_word), "the count's word, {case}");
                        assert_eq!(portable, vector, "{case}");
                        if std::arch::is_x86_feature_detected!("avx512bw") {
                            let mut wide_pack = vec![0u64; words];
                            // SAFETY: AVX-512BW was just detected.
                            unsafe { avx512::pack(&marks.bytes, generation, &mut wide_pack) };
                            assert_eq!(wide_pack, vector, "512-bit packing, {case}");
                        }
                        assert_eq!(wide.next4(), copy.next4(), "generator state, {case}");
                    }
                }
            }
        } else {
            eprintln!("skipping: this CPU has no AVX2");
        }
    }

    #[test]
    fn subsets_read_in_place_are_the_drawn_ones() {
        // A whole layout (read in the stock), its complement and a padded layout (finished
        // into the working subset), and a long layout without a stock.
        for (features, p) in [(128, 0.1), (128, 0.7), (70, 0.1), (2450, 0.1)] {
            let layout = LiteralLayout::new(features);
            let sampler = SubsetSampler::new(layout, p);
            let mut drawing = SubsetSource::new(wide(9));
            let mut reading = drawing.clone();
            let (mut drawn, mut scratch) = (Subset::new(layout), Subset::new(layout));
            // Past a stock's refill (at most sixteen subsets a throw).
            for round in 0..40 {
                sampler.draw_from(&mut drawing, &mut drawn);
                let read = reading.with_subset(&sampler, &mut scratch, |words| words.to_vec());
                assert_eq!(
                    read,
                    drawn.words(),
                    "{features} features, p {p}, round {round}"
                );
            }
        }
    }

    #[test]
    fn probability_one_and_zero() {
        let layout = LiteralLayout::new(70);
        let mut subset = Subset::new(layout);
        SubsetSampler::new(layout, 1.0).draw(&mut wide(1), &mut subset);
        let all: Vec<u64> = (0..layout.words()).map(|w| layout.valid(w)).collect();
        assert_eq!(subset.words(), all);
        SubsetSampler::new(layout, 0.0).draw(&mut wide(1), &mut subset);
        assert!(subset.words().iter().all(|&w| w == 0));
    }
}
