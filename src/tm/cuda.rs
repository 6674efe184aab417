//! The Tsetlin Machine on a CUDA GPU (feature `cuda`): `kernels/tm.cu`, compiled at run time
//! by NVRTC and loaded through the driver, both found at run time (no CUDA at build time).
//!
//! - [`PerClassTrainer`] keeps a training set and a per-class machine's automata on the
//!   device; the host steps the samples: each epoch it draws the order, the negative classes
//!   and the drops from the machine's main stream exactly as the CPU does, uploads them, and
//!   launches one round per sample (the feedback of the sample before, then the votes of
//!   this one; a group of up to 32 lanes per clause, one per literal word). The feedback's own random numbers are drawn on the
//!   device from a key taken from the main stream, so a seed gives one model, but not the
//!   CPU's: the two reach the same accuracy (tests/cuda.rs).
//! - [`Inference`] holds compiled clauses and computes class sums (and clause outputs) of
//!   many samples per launch, one thread per sample, equal to the CPU's bit for bit.

use crate::tm::bank::ClauseBank;
use crate::tm::data::Dataset;
use crate::tm::inference::InferenceModel;
use crate::tm::literals::LiteralLayout;
use crate::tm::multiclass::MultiClassTm;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use std::sync::{Arc, Mutex, OnceLock};

/// The kernels' source.
const SOURCE: &str = include_str!("../../kernels/tm.cu");

/// Threads per block of the training rounds.
const TRAIN_BLOCK: u32 = 256;

/// Most classes the inference kernel tallies (`MAX_CLASSES` in the kernel).
const MAX_CLASSES: usize = 16;

/// The device and the compiled kernels, set up once per process.
struct Gpu {
    context: Arc<CudaContext>,
    module: Arc<CudaModule>,
}

fn gpu() -> Result<&'static Gpu, String> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(open).as_ref().map_err(Clone::clone)
}

/// Finds the driver, the first GPU and NVRTC, and compiles the kernels.
fn open() -> Result<Gpu, String> {
    // SAFETY: these only try to load the shared libraries.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(
            "no CUDA driver (libcuda.so) on this machine: the cuda device needs an \
                    NVIDIA GPU and its driver"
                .into(),
        );
    }
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(
            "no CUDA runtime compiler (libnvrtc.so): install the CUDA toolkit or put \
                    the folder holding libnvrtc.so on LD_LIBRARY_PATH"
                .into(),
        );
    }
    let context = CudaContext::new(0).map_err(|e| format!("no usable CUDA GPU: {e}"))?;
    // One stream per user of the device: no cross-stream bookkeeping needed.
    // SAFETY: every buffer is used by the one stream that made it.
    unsafe { context.disable_event_tracking() };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(
        SOURCE,
        cudarc::nvrtc::CompileOptions {
            name: Some("tm.cu".into()),
            ..Default::default()
        },
    )
    .map_err(|e| format!("kernels/tm.cu does not compile: {e}"))?;
    let module = context
        .load_module(ptx)
        .map_err(|e| format!("cannot load the compiled kernels: {e}"))?;
    Ok(Gpu { context, module })
}

/// The GPU's name and memory, for reports.
pub fn describe() -> Result<String, String> {
    let gpu = gpu()?;
    let name = gpu.context.name().map_err(|e| e.to_string())?;
    let memory = gpu.context.total_mem().map_err(|e| e.to_string())?;
    Ok(format!("{name}, {} MiB", memory >> 20))
}

/// A driver error as a message naming what failed.
fn fail(what: &str) -> impl Fn(cudarc::driver::DriverError) -> String + '_ {
    move |e| format!("cuda: {what}: {e}")
}

fn function(name: &str) -> Result<CudaFunction, String> {
    gpu()?
        .module
        .load_function(name)
        .map_err(fail("loading a kernel"))
}

fn stream() -> Result<Arc<CudaStream>, String> {
    gpu()?
        .context
        .new_stream()
        .map_err(fail("creating a stream"))
}

/// Every sample's full literal vector (features, then negations), sample-major.
fn literal_rows(data: &Dataset) -> Vec<u64> {
    let layout = *data.layout();
    let mut rows = vec![0u64; data.len() * layout.words()];
    for (i, out) in rows.chunks_mut(layout.words()).enumerate() {
        layout.fill_literals(data.row(i), out);
    }
    rows
}

/// A per-class machine's training on the GPU (see the module's documentation).
pub struct PerClassTrainer {
    stream: Arc<CudaStream>,
    round: CudaFunction,
    literals: CudaSlice<u64>,
    rows: usize,
    features: usize,
}

impl PerClassTrainer {
    /// Uploads the training set `data`.
    pub fn new(data: &Dataset) -> Result<PerClassTrainer, String> {
        let stream = stream()?;
        let literals = stream
            .clone_htod(&literal_rows(data))
            .map_err(fail("uploading the training set"))?;
        Ok(PerClassTrainer {
            round: function("train_round")?,
            stream,
            literals,
            rows: data.len(),
            features: data.features(),
        })
    }

    /// One epoch of `tm` over the training set given to [`PerClassTrainer::new`] (`data`,
    /// which must be that set: the labels and the order come from the host).
    pub fn fit_epoch(&mut self, tm: &mut MultiClassTm, data: &Dataset) -> Result<(), String> {
        if data.len() != self.rows || data.features() != self.features {
            return Err(format!(
                "cuda: the trainer holds {} samples of {} features, not {} of {}",
                self.rows,
                self.features,
                data.len(),
                data.features()
            ));
        }
        let plan = tm.begin_epoch(data);
        let result = self.run_epoch(tm, &plan);
        tm.clear_drops();
        result
    }

    fn run_epoch(
        &mut self,
        tm: &mut MultiClassTm,
        plan: &[(usize, usize, usize)],
    ) -> Result<(), String> {
        let params = tm.params().clone();
        let layout = tm.layout();
        let (classes, clauses) = (tm.classes(), params.clauses);
        let key = tm.draw_word();
        let s = &self.stream;
        let (states, weights) = host_banks(tm);
        let mut d_states = s.clone_htod(&states).map_err(fail("uploading states"))?;
        let mut d_weights = s.clone_htod(&weights).map_err(fail("uploading weights"))?;
        let mut outputs = s
            .alloc_zeros::<u8>(classes * clauses)
            .map_err(fail("allocating outputs"))?;
        // The clauses that sit this epoch out, when clauses are dropped at all.
        let d_active = (params.clause_drop > 0.0)
            .then(|| {
                let active: Vec<u8> = tm
                    .blocks
                    .iter()
                    .flatten()
                    .flat_map(|b| b.active.iter().map(|&a| a as u8))
                    .collect();
                s.clone_htod(&active)
            })
            .transpose()
            .map_err(fail("uploading drops"))?;
        let allowed: Vec<u64> = (0..layout.words())
            .map(|w| layout.valid(w) & tm.literal_keep().map_or(u64::MAX, |k| k[w]))
            .collect();
        let d_allowed = s
            .clone_htod(&allowed)
            .map_err(fail("uploading the keep mask"))?;
        let triples: Vec<i32> = plan
            .iter()
            .flat_map(|&(row, label, negative)| [row as i32, label as i32, negative as i32])
            .collect();
        let d_plan = s
            .clone_htod(&triples)
            .map_err(fail("uploading the epoch's order"))?;
        let mut sums = s
            .alloc_zeros::<i64>(2 * plan.len().max(1))
            .map_err(fail("allocating sums"))?;
        // Lanes per clause: one per word, at most a warp.
        let group = layout.words().next_power_of_two().min(32) as i32;
        let threads = (classes * clauses * group as usize) as u32;
        let config = LaunchConfig {
            grid_dim: (threads.div_ceil(TRAIN_BLOCK), 1, 1),
            block_dim: (TRAIN_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let null = 0u64;
        let p16 = crate::tm::counter_draws::p16(params.specificity);
        let args = [
            plan.len() as i32,
            classes as i32,
            clauses as i32,
            layout.words() as i32,
            params.state_bits as i32,
            params.threshold,
        ];
        let (boost, weighted) = (params.boost_true_positive as i32, params.weighted as i32);
        let budget = params
            .literal_budget
            .map_or(-1, |b| b.min(i32::MAX as u32) as i32);
        for round in 0..=plan.len() as i32 {
            let mut launch = s.launch_builder(&self.round);
            launch
                .arg(&mut d_states)
                .arg(&mut d_weights)
                .arg(&mut outputs);
            match &d_active {
                Some(a) => launch.arg(a),
                None => launch.arg(&null),
            };
            launch
                .arg(&self.literals)
                .arg(&d_allowed)
                .arg(&d_plan)
                .arg(&mut sums)
                .arg(&args[0])
                .arg(&round)
                .arg(&args[1])
                .arg(&args[2])
                .arg(&args[3])
                .arg(&args[4])
                .arg(&args[5])
                .arg(&p16)
                .arg(&boost)
                .arg(&weighted)
                .arg(&budget)
                .arg(&key)
                .arg(&group);
            // SAFETY: the arguments match train_round's parameters in type and order, and
            // every buffer has the size the kernel indexes (classes x clauses clauses, the
            // plan's samples, the training set's rows).
            unsafe { launch.launch(config) }.map_err(fail("a training round"))?;
        }
        let states = s
            .clone_dtoh(&d_states)
            .map_err(fail("downloading states"))?;
        let weights = s
            .clone_dtoh(&d_weights)
            .map_err(fail("downloading weights"))?;
        restore_banks(tm, layout, &states, &weights)
    }
}

/// A per-class machine's states and weights, class after class, clause after clause (the
/// concatenation of its blocks).
fn host_banks(tm: &MultiClassTm) -> (Vec<u64>, Vec<u32>) {
    let mut states = Vec::new();
    let mut weights = Vec::new();
    for (bank, w) in tm.banks() {
        states.extend_from_slice(bank.raw_states());
        weights.extend_from_slice(w);
    }
    (states, weights)
}

/// Puts states and weights in [`host_banks`]'s order back into `tm`.
fn restore_banks(
    tm: &mut MultiClassTm,
    layout: LiteralLayout,
    states: &[u64],
    weights: &[u32],
) -> Result<(), String> {
    let bits = tm.params().state_bits;
    let per_clause = bits * layout.words();
    let mut parts = Vec::new();
    let (mut at_state, mut at_weight) = (0, 0);
    for (bank, _) in tm.banks() {
        let n = bank.clauses();
        let raw = states[at_state..at_state + n * per_clause].to_vec();
        let bank = ClauseBank::from_raw(layout, bits, n, raw)
            .ok_or("cuda: downloaded states do not fit the machine")?;
        parts.push((bank, weights[at_weight..at_weight + n].to_vec()));
        at_state += n * per_clause;
        at_weight += n;
    }
    tm.restore(parts)
}

/// Compiled clauses on the GPU: class sums of many samples per launch.
pub struct Inference {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    clamp: CudaFunction,
    features: usize,
    classes: usize,
    threshold: i32,
    clause_count: usize,
    valid: CudaSlice<u64>,
    start: CudaSlice<u32>,
    word_of: CudaSlice<u16>,
    mask_of: CudaSlice<u64>,
    weights: CudaSlice<i32>,
    tile_first: CudaSlice<u32>,
    tiles: usize,
    /// The clauses in [`DENSE_WORDS`] words each, for `class_sums_dense`, when the inputs
    /// have at most two feature words and the model at most four classes.
    dense: Option<(CudaFunction, CudaSlice<u64>)>,
    /// Launches of one stream go one at a time.
    lock: Mutex<()>,
}

/// Most clauses and include words of a tile (`TILE_CLAUSES`, `TILE_ENTRIES` in the kernel).
const TILE_CLAUSES: usize = 128;
const TILE_ENTRIES: usize = 512;

/// A clause's words in `class_sums_dense` (`DENSE_WORDS` in the kernel): four literal-slot
/// masks, then four 32-bit votes.
const DENSE_WORDS: usize = 6;

/// Clauses of a tile of `class_sums_dense` (`DENSE_TILE` in the kernel).
const DENSE_TILE: usize = 256;

/// Threads per block of `class_sums_dense` (two samples each).
const DENSE_BLOCK: u32 = 128;

/// `model`'s clauses laid out for `class_sums_dense`, or `None` when its inputs have more
/// than two feature words or it has more than four classes. Literal words map to the
/// kernel's slots: feature words 0, 1 to slots 0, 1, their negations to slots 2, 3.
fn dense_clauses(model: &InferenceModel) -> Option<Vec<u64>> {
    let layout = LiteralLayout::new(model.features());
    let half = layout.feature_words();
    if half > 2 || model.classes() > 4 {
        return None;
    }
    let mut words = Vec::with_capacity(DENSE_WORDS * model.clauses().len().max(1));
    for clause in model.clauses() {
        let mut masks = [0u64; 4];
        for &l in &clause.literals {
            let (w, b) = layout.slot(l);
            let slot = if w < half { w } else { 2 + w - half };
            masks[slot] |= 1 << b;
        }
        let mut votes = [0u32; 4];
        for (v, &w) in votes.iter_mut().zip(&clause.weights) {
            *v = w as u32;
        }
        words.extend_from_slice(&masks);
        words.push(votes[0] as u64 | (votes[1] as u64) << 32);
        words.push(votes[2] as u64 | (votes[3] as u64) << 32);
    }
    if words.is_empty() {
        // Empty buffers cannot be allocated: a record no launch reads.
        words.resize(DENSE_WORDS, 0);
    }
    Some(words)
}

/// Blocks that keep every multiprocessor of a large GPU busy.
const BUSY_BLOCKS: usize = 1024;

/// Cuts the clauses (clause c has `start[c + 1] - start[c]` include words) into tiles of at
/// most [`TILE_CLAUSES`] clauses and [`TILE_ENTRIES`] words: the tiles' first clauses, then
/// the clause count.
fn tiles(start: &[u32]) -> Result<Vec<u32>, String> {
    let mut first = vec![0u32];
    let (mut clauses, mut entries) = (0, 0);
    for (c, pair) in start.windows(2).enumerate() {
        let e = (pair[1] - pair[0]) as usize;
        if e > TILE_ENTRIES {
            return Err(format!(
                "cuda: clause {c} includes literals in {e} words; the GPU takes at most                  {TILE_ENTRIES}"
            ));
        }
        if clauses == TILE_CLAUSES || entries + e > TILE_ENTRIES {
            first.push(c as u32);
            (clauses, entries) = (0, 0);
        }
        clauses += 1;
        entries += e;
    }
    first.push((start.len() - 1) as u32);
    Ok(first)
}

impl Inference {
    /// Uploads `model`'s clauses.
    pub fn new(model: &InferenceModel) -> Result<Inference, String> {
        let classes = model.classes();
        if classes > MAX_CLASSES {
            return Err(format!(
                "cuda: inference tallies at most {MAX_CLASSES} classes, the model has {classes}"
            ));
        }
        let layout = LiteralLayout::new(model.features());
        let (mut start, mut word_of, mut mask_of, mut weights) =
            (vec![0u32], vec![], vec![], vec![]);
        for clause in model.clauses() {
            let mut masks = vec![0u64; layout.words()];
            for &l in &clause.literals {
                let (w, b) = layout.slot(l);
                masks[w] |= 1 << b;
            }
            for (w, &m) in masks.iter().enumerate().filter(|(_, &m)| m != 0) {
                word_of.push(w as u16);
                mask_of.push(m);
            }
            start.push(word_of.len() as u32);
            weights.extend_from_slice(&clause.weights);
        }
        let tile_first = tiles(&start)?;
        // Empty buffers cannot be allocated: pad with an entry no clause reads.
        word_of.push(0);
        mask_of.push(0);
        weights.push(0);
        let valid: Vec<u64> = (0..layout.feature_words())
            .map(|w| layout.valid(w))
            .collect();
        let stream = stream()?;
        let up = fail("uploading the model");
        let dense = match dense_clauses(model) {
            Some(words) => Some((
                function("class_sums_dense")?,
                stream.clone_htod(&words).map_err(&up)?,
            )),
            None => None,
        };
        Ok(Inference {
            dense,
            kernel: function("class_sums")?,
            clamp: function("clamp_sums")?,
            features: model.features(),
            classes,
            threshold: model.threshold(),
            clause_count: model.clauses().len(),
            valid: stream.clone_htod(&valid).map_err(&up)?,
            start: stream.clone_htod(&start).map_err(&up)?,
            word_of: stream.clone_htod(&word_of).map_err(&up)?,
            mask_of: stream.clone_htod(&mask_of).map_err(&up)?,
            weights: stream.clone_htod(&weights).map_err(&up)?,
            tiles: tile_first.len() - 1,
            tile_first: stream.clone_htod(&tile_first).map_err(&up)?,
            stream,
            lock: Mutex::new(()),
        })
    }

    /// Clamped class sums of every sample of `data`, `classes` per sample (sample-major),
    /// as [`InferenceModel::class_sums`] gives them.
    pub fn class_sums(&self, data: &Dataset) -> Result<Vec<i32>, String> {
        self.run(data, false).map(|(sums, _)| sums)
    }

    /// Each compiled clause's output on every sample (`clauses` per sample, sample-major).
    pub fn clause_outputs(&self, data: &Dataset) -> Result<Vec<bool>, String> {
        self.run(data, true)
            .map(|(_, fired)| fired.into_iter().map(|f| f != 0).collect())
    }

    fn run(&self, data: &Dataset, want_outputs: bool) -> Result<(Vec<i32>, Vec<u8>), String> {
        if data.features() != self.features {
            return Err(format!(
                "cuda: the model reads {} features, the samples have {}",
                self.features,
                data.features()
            ));
        }
        if data.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let _one_at_a_time = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let s = &self.stream;
        let values = data.len() * self.classes;
        let half = LiteralLayout::new(self.features).feature_words();
        let mut rows = Vec::with_capacity(data.len() * half);
        for i in 0..data.len() {
            rows.extend_from_slice(data.row(i));
        }
        let features = s.clone_htod(&rows).map_err(fail("uploading samples"))?;
        let mut totals = s
            .alloc_zeros::<i64>(values)
            .map_err(fail("allocating sums"))?;
        let mut sums = s
            .alloc_zeros::<i32>(values)
            .map_err(fail("allocating sums"))?;
        let mut fired = s
            .alloc_zeros::<u8>(if want_outputs {
                data.len() * self.clause_count.max(1)
            } else {
                1
            })
            .map_err(fail("allocating clause outputs"))?;
        match &self.dense {
            Some((kernel, clauses)) => self.launch_dense(
                kernel,
                clauses,
                &features,
                data.len(),
                &mut totals,
                &mut fired,
                want_outputs,
            )?,
            None => {
                self.launch_sparse(&features, data.len(), &mut totals, &mut fired, want_outputs)?
            }
        }
        let values_i32 = values as i32;
        let mut launch = s.launch_builder(&self.clamp);
        launch
            .arg(&totals)
            .arg(&values_i32)
            .arg(&self.threshold)
            .arg(&mut sums);
        // SAFETY: clamp_sums reads and writes `values` elements of the two buffers.
        unsafe { launch.launch(LaunchConfig::for_num_elems(values as u32)) }
            .map_err(fail("clamping sums"))?;
        let sums = s.clone_dtoh(&sums).map_err(fail("downloading sums"))?;
        let fired = if want_outputs {
            s.clone_dtoh(&fired)
                .map_err(fail("downloading clause outputs"))?
        } else {
            Vec::new()
        };
        Ok((sums, fired))
    }

    /// `class_sums` over `samples` packed samples: clauses by include words, tile by tile.
    fn launch_sparse(
        &self,
        features: &CudaSlice<u64>,
        samples: usize,
        totals: &mut CudaSlice<i64>,
        fired: &mut CudaSlice<u8>,
        want_outputs: bool,
    ) -> Result<(), String> {
        let s = &self.stream;
        let half = LiteralLayout::new(self.features).feature_words();
        // Each thread's features in shared memory when 128 threads' (or at least 32
        // threads') fit in 32 KiB, else read from device memory; then the tile.
        let row_bytes = 8 * half;
        let block = [128u32, 64, 32]
            .into_iter()
            .find(|&b| row_bytes * b as usize <= 32768);
        let (block, staged) = (block.unwrap_or(128), block.is_some() as i32);
        let tile_bytes = 8 * TILE_ENTRIES
            + 4 * TILE_CLAUSES * self.classes
            + 4 * (TILE_CLAUSES + 1)
            + 2 * TILE_ENTRIES;
        let sample_blocks = samples.div_ceil(block as usize);
        // Enough runs of tiles that a small batch still fills the GPU.
        let chunks = BUSY_BLOCKS
            .div_ceil(sample_blocks)
            .clamp(1, self.tiles.max(1));
        let tiles_per_chunk = self.tiles.div_ceil(chunks).max(1);
        let chunks = self.tiles.div_ceil(tiles_per_chunk).max(1);
        let config = LaunchConfig {
            grid_dim: (sample_blocks as u32, chunks as u32, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: (tile_bytes + staged as usize * row_bytes * block as usize) as u32,
        };
        let (n, half, clause_count, classes, tiles, tiles_per_chunk) = (
            samples as i32,
            half as i32,
            self.clause_count as i32,
            self.classes as i32,
            self.tiles as i32,
            tiles_per_chunk as i32,
        );
        let null = 0u64;
        let mut launch = s.launch_builder(&self.kernel);
        launch
            .arg(features)
            .arg(&n)
            .arg(&half)
            .arg(&staged)
            .arg(&self.valid)
            .arg(&self.start)
            .arg(&self.word_of)
            .arg(&self.mask_of)
            .arg(&self.weights)
            .arg(&clause_count)
            .arg(&classes)
            .arg(&self.tile_first)
            .arg(&tiles)
            .arg(&tiles_per_chunk)
            .arg(totals);
        if want_outputs {
            launch.arg(fired);
        } else {
            launch.arg(&null);
        }
        // SAFETY: the arguments match class_sums's parameters in type and order; `features`
        // holds n samples of `half` words, `totals` n x classes values, `fired` (when
        // passed) n x clause_count bytes; the clause arrays are indexed through `start` and
        // the tiles through `tile_first`, whose tiles fit the shared memory asked for.
        unsafe { launch.launch(config) }.map_err(fail("class sums"))?;
        Ok(())
    }

    /// `class_sums_dense` over `samples` packed samples of at most two words.
    #[allow(clippy::too_many_arguments)]
    fn launch_dense(
        &self,
        kernel: &CudaFunction,
        clauses: &CudaSlice<u64>,
        features: &CudaSlice<u64>,
        samples: usize,
        totals: &mut CudaSlice<i64>,
        fired: &mut CudaSlice<u8>,
        want_outputs: bool,
    ) -> Result<(), String> {
        let layout = LiteralLayout::new(self.features);
        let half = layout.feature_words();
        let valid = [0, 1].map(|w| if w < half { layout.valid(w) } else { 0 });
        let sample_blocks = samples.div_ceil(2 * DENSE_BLOCK as usize);
        let tiles = self.clause_count.div_ceil(DENSE_TILE).max(1);
        let chunks = BUSY_BLOCKS.div_ceil(sample_blocks).clamp(1, tiles);
        let tiles_per_chunk = tiles.div_ceil(chunks);
        let chunks = tiles.div_ceil(tiles_per_chunk);
        let config = LaunchConfig {
            grid_dim: (sample_blocks as u32, chunks as u32, 1),
            block_dim: (DENSE_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let (n, half, clause_count, classes, tiles_per_chunk) = (
            samples as i32,
            half as i32,
            self.clause_count as i32,
            self.classes as i32,
            tiles_per_chunk as i32,
        );
        let null = 0u64;
        let mut launch = self.stream.launch_builder(kernel);
        launch
            .arg(features)
            .arg(&n)
            .arg(&half)
            .arg(&valid[0])
            .arg(&valid[1])
            .arg(clauses)
            .arg(&clause_count)
            .arg(&classes)
            .arg(&tiles_per_chunk)
            .arg(totals);
        if want_outputs {
            launch.arg(fired);
        } else {
            launch.arg(&null);
        }
        // SAFETY: the arguments match class_sums_dense's parameters in type and order;
        // `features` holds n samples of `half` (1 or 2) words, `clauses` clause_count records
        // of DENSE_WORDS words, `totals` n x classes values, `fired` (when passed) n x
        // clause_count bytes; the grid covers every sample and every tile once.
        unsafe { launch.launch(config) }.map_err(fail("class sums"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_hold_at_most_their_clauses_and_words() {
        // Clauses of 1, 511, 2, 512 and 3 words, then 300 clauses of one word.
        let mut start = vec![0u32];
        for e in [1, 511, 2, 512, 3].into_iter().chain([1; 300]) {
            start.push(start.last().unwrap() + e);
        }
        let first = tiles(&start).unwrap();
        assert_eq!(first[..4], [0, 2, 3, 4]);
        assert_eq!(*first.last().unwrap() as usize, start.len() - 1);
        for pair in first.windows(2) {
            let (a, b) = (pair[0] as usize, pair[1] as usize);
            assert!(b > a && b - a <= TILE_CLAUSES);
            assert!((start[b] - start[a]) as usize <= TILE_ENTRIES);
        }
        start.push(start.last().unwrap() + 513);
        assert!(tiles(&start).unwrap_err().contains("513 words"));
    }
}
