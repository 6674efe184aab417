// The Tsetlin Machine on a CUDA device: training of the per-class machine and batched
// inference. Compiled at run time (NVRTC) by src/tm/cuda/; the layouts are the CPU's:
//
// - literals: 64-bit words, the features in words 0..H and their negations in H..2H
//   (W = 2H words per sample); `allowed[w]` masks the literals that exist and are kept;
// - automaton states, per class, clause by clause: `bits` bit planes of W words each (plane
//   k holds bit k of 64 automata), the top plane being the include mask;
// - one thread per (class, clause) while training, one per sample at inference.
//
// The training's random numbers (mix64, Stream, bernoulli64 and their seeds) are computed on
// the host too, by src/tm/counter_draws.rs, so that `--device cuda-reference` trains the
// GPU's model on the CPU: the two must change together.

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;

// A 64-bit mix (splitmix64's finaliser): the device's counter-based random numbers.
__device__ __forceinline__ u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// A stream of random words for one (sample, class, clause).
struct Stream {
    u64 state;
    __device__ __forceinline__ u64 next() {
        state += 0x9e3779b97f4a7c15ULL;
        return mix64(state);
    }
};

// 64 draws of probability p16 / 65536, one per bit.
__device__ __forceinline__ u64 bernoulli64(Stream &s, u32 p16) {
    u64 bits = 0;
    for (int q = 0; q < 16; q++) {
        u64 r = s.next();
        for (int k = 0; k < 4; k++) {
            u64 hit = ((u32)(r >> (16 * k)) & 0xffffu) < p16;
            bits |= hit << (q * 4 + k);
        }
    }
    return bits;
}

// Adds 1 to the automata set in `up` and takes 1 from those in `down` (disjoint), saturating,
// in one word position of a clause's planes. Returns whether the include bit changed.
__device__ __forceinline__ void step_word(u64 *planes, int words, int bits, u64 up, u64 down) {
    u64 carry = up, borrow = down;
    for (int k = 0; k < bits; k++) {
        u64 old = planes[k * words];
        planes[k * words] = old ^ carry ^ borrow;
        carry &= old;
        borrow &= ~old;
    }
    if (carry | borrow) {
        for (int k = 0; k < bits; k++) {
            planes[k * words] = (planes[k * words] | carry) & ~borrow;
        }
    }
}

// Sum of `value` over the warp, in lane 0.
__device__ __forceinline__ i64 warp_sum(i64 value) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        value += __shfl_down_sync(0xffffffffu, value, offset);
    }
    return value;
}

// Sum of `value` over the `group` lanes (a power of two up to 32) that share a clause; every
// lane of the warp must call it.
__device__ __forceinline__ int group_sum(int value, int group) {
    for (int offset = group >> 1; offset > 0; offset >>= 1) {
        value += __shfl_xor_sync(0xffffffffu, value, offset, group);
    }
    return value;
}

// One round of training: every clause of sample r-1's two classes (label, negative) gets
// that sample's feedback, then every clause of sample r's two classes is evaluated and its
// vote added to `sums[2r]` (label) or `sums[2r + 1]` (negative). Launch r = 0..samples, in
// order: round r's decisions read sums that round r-1's launch completed.
//
// A clause is served by `group` consecutive lanes of a warp (a power of two up to 32), lane
// j owning words j, j + group, ...: reads of a clause's planes are contiguous across its
// lanes. The random numbers of a clause's selection and of each of its words come from
// their own counters, so the model does not depend on the group size.
//
// plan[3i..3i+3] = (row, label, negative) of sample i; outputs[c] holds clause c's learning
// output on the last sample it evaluated; active (may be null) marks the clauses that are
// not dropped this epoch; budget < 0 means no literal budget.
extern "C" __global__ void train_round(
    u64 *states, u32 *weights, unsigned char *outputs, const unsigned char *active,
    const u64 *literals, const u64 *allowed, const int *plan, i64 *sums, int samples,
    int round, int classes, int clauses, int words, int bits, int threshold, u32 p16,
    int boost, int weighted, int budget, u64 key, int group) {
    int thread = blockIdx.x * blockDim.x + threadIdx.x;
    int gid = thread / group;
    int lane = thread % group;
    bool mine = gid < classes * clauses;
    int cls = mine ? gid / clauses : 0;
    int clause = mine ? gid % clauses : 0;
    bool is_active = mine && (active == 0 || active[gid]);
    u64 *planes = states + (u64)gid * bits * words;
    const u64 *include = planes + (bits - 1) * words;
    int polarity = (clause % 2 == 0) ? 1 : -1;

    // The clause's include count before its feedback (for the literal budget).
    int count = 0;
    if (budget >= 0) {
        if (is_active) {
            for (int w = lane; w < words; w += group) count += __popcll(include[w]);
        }
        count = group_sum(count, group);
    }

    if (is_active && round > 0) {
        const int *p = plan + 3 * (round - 1);
        int label = p[1], negative = p[2];
        if (cls == label || cls == negative) {
            bool target = cls == label;
            i64 raw = sums[2 * (round - 1) + (target ? 0 : 1)];
            int sum = (int)max((i64)-threshold, min((i64)threshold, raw));
            u64 seed = mix64(key ^ mix64(((u64)(round - 1) << 32) ^ (u64)gid));
            Stream s;
            s.state = seed;
            u32 draw = (u32)(((s.next() >> 32) * (2 * (u64)threshold)) >> 32);
            bool chosen = target ? (int)draw < threshold - sum : (int)draw < threshold + sum;
            bool type_i = target == (polarity > 0);
            bool matched = outputs[gid] != 0;
            if (chosen && (type_i || matched)) {
                const u64 *lits = literals + (u64)p[0] * words;
                if (type_i) {
                    bool ia = matched && (budget < 0 || count < budget);
                    for (int w = lane; w < words; w += group) {
                        Stream word_stream;
                        word_stream.state = mix64(seed ^ (0xd1b54a32d192ed03ULL * (u64)(w + 1)));
                        u64 d = bernoulli64(word_stream, p16) & allowed[w];
                        if (ia) {
                            u64 l = lits[w];
                            u64 up = (boost ? l : (l & ~d)) & allowed[w];
                            step_word(planes + w, words, bits, up, d & ~l);
                        } else {
                            step_word(planes + w, words, bits, 0, d);
                        }
                    }
                    if (weighted && ia && lane == 0) weights[gid] += 1;
                } else {
                    for (int w = lane; w < words; w += group) {
                        u64 up = ~lits[w] & ~include[w] & allowed[w];
                        step_word(planes + w, words, bits, up, 0);
                    }
                    if (weighted && lane == 0 && weights[gid] > 1) weights[gid] -= 1;
                }
            }
        }
    }

    if (round < samples) {
        const int *p = plan + 3 * round;
        int label = p[1], negative = p[2];
        bool voting = is_active && (cls == label || cls == negative);
        int violated = 0;
        if (voting) {
            const u64 *lits = literals + (u64)p[0] * words;
            for (int w = lane; w < words; w += group) {
                violated |= (include[w] & allowed[w] & ~lits[w]) != 0;
            }
        }
        violated = group_sum(violated, group);
        i64 vote_label = 0, vote_negative = 0;
        if (voting && lane == 0) {
            bool out = violated == 0;
            outputs[gid] = out;
            i64 vote = out ? (i64)polarity * (i64)weights[gid] : 0;
            if (cls == label) vote_label = vote; else vote_negative = vote;
        }
        vote_label = warp_sum(vote_label);
        vote_negative = warp_sum(vote_negative);
        if ((threadIdx.x & 31) == 0) {
            if (vote_label != 0) atomicAdd((u64 *)&sums[2 * round], (u64)vote_label);
            if (vote_negative != 0) atomicAdd((u64 *)&sums[2 * round + 1], (u64)vote_negative);
        }
    }
}

// Batched inference over compiled clauses. Clause c's include mask is the pairs
// (word_of[i], mask_of[i]) for i in start[c]..start[c + 1] (non-zero words of the literal
// vector); its signed votes are weights[c * classes + k]. The clauses are cut into tiles
// (tile t: clauses tile_first[t]..tile_first[t + 1], at most TILE_CLAUSES clauses and
// TILE_ENTRIES pairs), which a block copies to shared memory one after the other; blockIdx.y
// picks a run of `tiles_per_chunk` tiles, so that few samples still fill the GPU. A thread
// holds one sample: packed features, `half` words, staged in shared memory when `staged`
// (word w of thread t at sample_words[w * blockDim.x + t]) or read from device memory; the
// negated half is built on the fly (valid[w] masks real features). Each thread adds its
// run's votes to totals[sample * classes + k] (zeroed before); `clamp_sums` then clamps.
// When `fired` is not null, each clause's output is written at fired[sample * clause_count
// + c].
#define MAX_CLASSES 16
#define TILE_CLAUSES 128
#define TILE_ENTRIES 512
extern "C" __global__ void class_sums(
    const u64 *features, int samples, int half, int staged, const u64 *valid,
    const u32 *start, const unsigned short *word_of, const u64 *mask_of, const int *weights,
    int clause_count, int classes, const u32 *tile_first, int tiles, int tiles_per_chunk,
    i64 *totals, unsigned char *fired) {
    extern __shared__ u64 shared[];
    u64 *sample_words = shared;
    u64 *tile_mask = sample_words + (staged ? half * blockDim.x : 0);
    int *tile_weight = (int *)(tile_mask + TILE_ENTRIES);
    u32 *tile_start = (u32 *)(tile_weight + TILE_CLAUSES * classes);
    unsigned short *tile_word = (unsigned short *)(tile_start + TILE_CLAUSES + 1);

    int t = threadIdx.x;
    int sample = blockIdx.x * blockDim.x + t;
    bool mine = sample < samples;
    const u64 *words = features + (u64)sample * half;
    int stride = 1;
    if (staged) {
        for (int w = 0; w < half; w++) {
            sample_words[w * blockDim.x + t] = mine ? features[(u64)sample * half + w] : 0;
        }
        words = sample_words + t;
        stride = blockDim.x;
    }
    i64 total[MAX_CLASSES];
    for (int k = 0; k < classes; k++) total[k] = 0;
    int first_tile = blockIdx.y * tiles_per_chunk;
    int last_tile = min(tiles, first_tile + tiles_per_chunk);
    for (int tile = first_tile; tile < last_tile; tile++) {
        u32 c0 = tile_first[tile], c1 = tile_first[tile + 1];
        u32 e0 = start[c0], e1 = start[c1];
        __syncthreads();
        for (u32 i = t; i < e1 - e0; i += blockDim.x) {
            tile_mask[i] = mask_of[e0 + i];
            tile_word[i] = word_of[e0 + i];
        }
        for (u32 i = t; i <= c1 - c0; i += blockDim.x) tile_start[i] = start[c0 + i] - e0;
        for (u32 i = t; i < (c1 - c0) * classes; i += blockDim.x) {
            tile_weight[i] = weights[(u64)c0 * classes + i];
        }
        __syncthreads();
        if (!mine) continue;
        for (u32 c = 0; c < c1 - c0; c++) {
            bool out = true;
            for (u32 i = tile_start[c]; i < tile_start[c + 1]; i++) {
                int w = tile_word[i];
                u64 m = tile_mask[i];
                u64 literal = w < half ? words[w * stride]
                                       : ~words[(w - half) * stride] & valid[w - half];
                if ((literal & m) != m) {
                    out = false;
                    break;
                }
            }
            if (fired) fired[(u64)sample * clause_count + c0 + c] = out;
            if (out) {
                for (int k = 0; k < classes; k++) total[k] += tile_weight[c * classes + k];
            }
        }
    }
    if (mine) {
        for (int k = 0; k < classes; k++) {
            if (total[k] != 0) atomicAdd((u64 *)&totals[(u64)sample * classes + k], (u64)total[k]);
        }
    }
}

// Batched inference for small inputs: at most two feature words (128 features) and at most
// four classes, as the checkers planes. Clause c is DENSE_WORDS words at clauses[c *
// DENSE_WORDS]: its include masks of literal slots 0..4 (slot 0, 1: feature words 0, 1; slot
// 2, 3: their negations; unused slots 0), then its four votes as 32-bit integers (unused
// classes 0). A block copies DENSE_TILE clauses at a time to shared memory; every thread
// holds two samples (blockIdx.x * 2 * blockDim.x + t and that + blockDim.x) as four literal
// words each in registers, and tests each clause without branches: a clause fires when no
// included literal is 0. blockIdx.y picks a run of `tiles_per_chunk` tiles, as in class_sums;
// totals and fired as there.
#define DENSE_WORDS 6
#define DENSE_TILE 256
__device__ __forceinline__ void dense_literals(const u64 *features, int samples, int half,
                                               u64 valid0, u64 valid1, int sample, u64 *l) {
    u64 f0 = 0, f1 = 0;
    if (sample < samples) {
        f0 = features[(u64)sample * half];
        if (half > 1) f1 = features[(u64)sample * half + 1];
    }
    l[0] = f0;
    l[1] = f1;
    l[2] = ~f0 & valid0;
    l[3] = ~f1 & valid1;
}

extern "C" __global__ void class_sums_dense(
    const u64 *features, int samples, int half, u64 valid0, u64 valid1, const u64 *clauses,
    int clause_count, int classes, int tiles_per_chunk, i64 *totals, unsigned char *fired) {
    __shared__ __align__(16) u64 tile[DENSE_TILE * DENSE_WORDS];
    int t = threadIdx.x;
    int a = blockIdx.x * 2 * blockDim.x + t;
    int b = a + blockDim.x;
    u64 la[4], lb[4];
    dense_literals(features, samples, half, valid0, valid1, a, la);
    dense_literals(features, samples, half, valid0, valid1, b, lb);
    i64 ta[4] = {0, 0, 0, 0}, tb[4] = {0, 0, 0, 0};
    int first = blockIdx.y * tiles_per_chunk * DENSE_TILE;
    int last = min(clause_count, first + tiles_per_chunk * DENSE_TILE);
    for (int c0 = first; c0 < last; c0 += DENSE_TILE) {
        int n = min(DENSE_TILE, last - c0);
        __syncthreads();
        for (int i = t; i < n * DENSE_WORDS; i += blockDim.x) {
            tile[i] = clauses[(u64)c0 * DENSE_WORDS + i];
        }
        __syncthreads();
#pragma unroll 4
        for (int c = 0; c < n; c++) {
            const ulonglong2 *m = (const ulonglong2 *)(tile + c * DENSE_WORDS);
            ulonglong2 m01 = m[0], m23 = m[1];
            int4 w = *(const int4 *)(tile + c * DENSE_WORDS + 4);
            u64 va = (m01.x & ~la[0]) | (m01.y & ~la[1]) | (m23.x & ~la[2]) | (m23.y & ~la[3]);
            u64 vb = (m01.x & ~lb[0]) | (m01.y & ~lb[1]) | (m23.x & ~lb[2]) | (m23.y & ~lb[3]);
            if (va == 0) {
                ta[0] += w.x;
                ta[1] += w.y;
                ta[2] += w.z;
                ta[3] += w.w;
            }
            if (vb == 0) {
                tb[0] += w.x;
                tb[1] += w.y;
                tb[2] += w.z;
                tb[3] += w.w;
            }
            if (fired) {
                if (a < samples) fired[(u64)a * clause_count + c0 + c] = va == 0;
                if (b < samples) fired[(u64)b * clause_count + c0 + c] = vb == 0;
            }
        }
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        if (k >= classes) break;
        if (a < samples && ta[k] != 0) atomicAdd((u64 *)&totals[(u64)a * classes + k], (u64)ta[k]);
        if (b < samples && tb[k] != 0) atomicAdd((u64 *)&totals[(u64)b * classes + k], (u64)tb[k]);
    }
}

// sums[i] = totals[i] clamped to [-threshold, threshold].
extern "C" __global__ void clamp_sums(const i64 *totals, int n, int threshold, int *sums) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sums[i] = (int)max((i64)-threshold, min((i64)threshold, totals[i]));
}
