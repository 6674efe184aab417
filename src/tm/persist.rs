//! The model file: versioned, checksummed, self-describing.
//!
//! Layout (little-endian): the magic `TMBOTTM\0`, format version (u32), machine kind (u8:
//! 1 per-class, 2 convolutional, 3 coalesced), the hyper-parameters (since version 3 ending
//! with the coalesced update, a u8: 0 joint, 1 sequential), feature and class counts, for a
//! convolutional machine its patch grid (width, height, planes, window as u32), the feature
//! encoder's name and the feature names, then every clause block's state words and
//! weights, and last an FNV-1a 64-bit checksum of everything before it. Per-class and
//! convolutional blocks hold one unsigned weight (u32) per clause, whose polarity comes from
//! the clause index; coalesced blocks hold one signed weight (i32) per clause and class,
//! clause-major. Version 1 files (per-class machines only) and version 2 files still load,
//! as machines of the joint update. Files are written to a temporary file and renamed. A
//! loaded machine predicts exactly as the saved one; further training restarts its random
//! streams from the seed.
//!
//! The inference export (magic `TMBOTIM\0`, version 2) keeps only what prediction needs:
//! feature count (u64), class count (u64), T (u32), the encoder's name (u32 length, UTF-8;
//! version 1 files, which lack it, still load), clause count (u64), then per non-empty
//! clause its literal count (u32), literals (u32 each, `0..F` plain, `F..2F` negated) and
//! one signed weight per class (i32), and the same checksum. [`read_inference`] turns it
//! into an [`InferenceModel`].

use crate::tm::bank::ClauseBank;
use crate::tm::coalesced::CoalescedTm;
use crate::tm::conv::ConvTm;
use crate::tm::data::Dataset;
use crate::tm::inference::{CompiledClause, InferenceModel};
use crate::tm::multiclass::MultiClassTm;
use crate::tm::params::{CoalescedUpdate, Params};
use crate::tm::patches::PatchGrid;
use std::borrow::Cow;
use std::path::Path;

const MAGIC: &[u8; 8] = b"TMBOTTM\0";
/// Current format version.
pub const VERSION: u32 = 3;
/// Oldest format version this program reads.
pub const OLDEST_VERSION: u32 = 1;
const KIND_PER_CLASS: u8 = 1;
const KIND_CONV: u8 = 2;
const KIND_COALESCED: u8 = 3;
const INFERENCE_MAGIC: &[u8; 8] = b"TMBOTIM\0";
/// Format version of the inference export.
pub const INFERENCE_VERSION: u32 = 2;

/// Why a model file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file system said no. The cause is part of the message, not a separate source,
    /// so that error chains print it once.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        cause: std::io::Error,
    },
    /// The file is not a model file, is damaged, or does not fit this program.
    #[error("{path}: {message}")]
    Format {
        /// The file (or `<bytes>`).
        path: String,
        /// What is wrong, and where.
        message: String,
    },
}

/// The machines a model file can hold.
#[derive(Clone, Debug)]
pub enum Machine {
    /// One clause bank per class.
    PerClass(MultiClassTm),
    /// Clauses over the patches of a board.
    Conv(ConvTm),
    /// One clause pool shared by all classes, with a signed weight per (clause, class).
    Coalesced(CoalescedTm),
}

impl Machine {
    /// The hyper-parameters.
    pub fn params(&self) -> &Params {
        match self {
            Machine::PerClass(tm) => tm.params(),
            Machine::Conv(tm) => tm.params(),
            Machine::Coalesced(tm) => tm.params(),
        }
    }

    /// Number of input features.
    pub fn features(&self) -> usize {
        match self {
            Machine::PerClass(tm) => tm.features(),
            Machine::Conv(tm) => tm.features(),
            Machine::Coalesced(tm) => tm.features(),
        }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        match self {
            Machine::PerClass(tm) => tm.classes(),
            Machine::Conv(tm) => tm.classes(),
            Machine::Coalesced(tm) => tm.classes(),
        }
    }

    /// Clamped class sums of one sample (packed features).
    pub fn class_sums(&self, features: &[u64]) -> Vec<i32> {
        match self {
            Machine::PerClass(tm) => tm.class_sums(features),
            Machine::Conv(tm) => tm.class_sums(features),
            Machine::Coalesced(tm) => tm.class_sums(features),
        }
    }

    /// One training epoch over `data`.
    pub fn fit_epoch(&mut self, data: &Dataset) {
        match self {
            Machine::PerClass(tm) => tm.fit_epoch(data),
            Machine::Conv(tm) => tm.fit_epoch(data),
            Machine::Coalesced(tm) => tm.fit_epoch(data),
        }
    }

    /// Predicted class of every sample of `data`.
    pub fn predict_all(&self, data: &Dataset) -> Vec<usize> {
        match self {
            Machine::PerClass(tm) => tm.compile().predict(data),
            Machine::Conv(tm) => tm.predict_all(data),
            Machine::Coalesced(tm) => tm.compile().predict(data),
        }
    }

    /// The signed vote of (`class`, `clause`) when the clause fires: polarity times weight
    /// for the per-class and convolutional machines, the coalesced machine's own weight.
    pub fn weight(&self, class: usize, clause: usize) -> i32 {
        let unsigned = match self {
            Machine::PerClass(tm) => tm.weight(class, clause),
            Machine::Conv(tm) => tm.weight(class, clause),
            Machine::Coalesced(tm) => return tm.weight(clause, class),
        };
        MultiClassTm::polarity(clause) * unsigned as i32
    }

    /// The literals `clause` of `class` includes, over the features that
    /// [`Machine::literal_names`] names (a coalesced clause is the same for every class).
    pub fn clause_literals(&self, class: usize, clause: usize) -> Vec<usize> {
        match self {
            Machine::PerClass(tm) => tm.clause_literals(class, clause),
            Machine::Conv(tm) => tm.clause_literals(class, clause),
            Machine::Coalesced(tm) => tm.clause_literals(clause),
        }
    }

    /// The names of the features clauses are written over: the input features, or for a
    /// convolutional machine the patch features.
    pub fn literal_names(&self, input_names: &[String]) -> Vec<String> {
        match self {
            Machine::PerClass(_) | Machine::Coalesced(_) => input_names.to_vec(),
            Machine::Conv(tm) => tm.grid().patch_feature_names(),
        }
    }

    fn kind(&self) -> u8 {
        match self {
            Machine::PerClass(_) => KIND_PER_CLASS,
            Machine::Conv(_) => KIND_CONV,
            Machine::Coalesced(_) => KIND_COALESCED,
        }
    }

    /// Every clause block with its weights as the file stores them: 32-bit words, signed
    /// weights in two's complement.
    fn banks(&self) -> Box<dyn Iterator<Item = (&ClauseBank, Cow<'_, [u32]>)> + '_> {
        match self {
            Machine::PerClass(tm) => Box::new(tm.banks().map(|(b, w)| (b, Cow::Borrowed(w)))),
            Machine::Conv(tm) => Box::new(tm.banks().map(|(b, w)| (b, Cow::Borrowed(w)))),
            Machine::Coalesced(tm) => Box::new(
                tm.banks()
                    .map(|(b, w)| (b, Cow::Owned(w.iter().map(|&x| x as u32).collect()))),
            ),
        }
    }

    /// Replaces every block's bank and weights (in [`Machine::banks`] order and encoding).
    fn restore(&mut self, parts: Vec<(ClauseBank, Vec<u32>)>) -> Result<(), String> {
        match self {
            Machine::PerClass(tm) => tm.restore(parts),
            Machine::Conv(tm) => tm.restore(parts),
            Machine::Coalesced(tm) => tm.restore(
                parts
                    .into_iter()
                    .map(|(bank, w)| (bank, w.into_iter().map(|x| x as i32).collect()))
                    .collect(),
            ),
        }
    }
}

/// A saved model: the machine plus the description of its input features.
#[derive(Clone, Debug)]
pub struct SavedModel {
    /// Name of the feature encoder that produced the inputs (`csv` for raw columns).
    pub encoder: String,
    /// One name per feature.
    pub feature_names: Vec<String>,
    /// The machine.
    pub machine: Machine,
}

/// FNV-1a, 64 bits.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so a
/// reader never sees a half-written file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |out| std::io::Write::write_all(out, bytes))
}

/// Writes to `path` through `write`, which streams into a buffered temporary file in the
/// same folder; the file is renamed into place only when `write` and the flush succeed.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    let written = write(&mut out).and_then(|()| std::io::Write::flush(&mut out));
    drop(out);
    if let Err(err) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(err);
    }
    std::fs::rename(&tmp, path)
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn text(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], String> {
        if self.bytes.len() - self.at < n {
            return Err(format!("truncated at byte {} reading {what}", self.at));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }
    fn f64(&mut self, what: &str) -> Result<f64, String> {
        Ok(f64::from_bits(self.u64(what)?))
    }
    fn size(&mut self, what: &str, limit: usize) -> Result<usize, String> {
        let v = self.u64(what)?;
        if v > limit as u64 {
            return Err(format!("{what} {v} is implausible (limit {limit})"));
        }
        Ok(v as usize)
    }
    fn text(&mut self, what: &str) -> Result<String, String> {
        let n = self.u32(what)? as usize;
        let bytes = self.take(n, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
    }
}

impl SavedModel {
    /// The model as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let tm = &self.machine;
        let p = tm.params();
        let mut w = Writer(Vec::new());
        w.0.extend_from_slice(MAGIC);
        w.u32(VERSION);
        w.u8(tm.kind());
        w.u64(p.clauses as u64);
        w.u32(p.threshold as u32);
        w.f64(p.specificity);
        w.u32(p.state_bits as u32);
        w.u8(p.boost_true_positive as u8);
        w.u8(p.weighted as u8);
        w.u32(p.literal_budget.map_or(0, |b| b + 1));
        w.f64(p.clause_drop);
        w.f64(p.literal_drop);
        w.u64(p.seed);
        w.u8(match p.coalesced_update {
            CoalescedUpdate::Joint => 0,
            CoalescedUpdate::Sequential => 1,
        });
        w.u64(tm.features() as u64);
        w.u64(tm.classes() as u64);
        if let Machine::Conv(conv) = tm {
            let g = conv.grid();
            for v in [g.width, g.height, g.planes, g.window] {
                w.u32(v as u32);
            }
        }
        w.text(&self.encoder);
        for name in &self.feature_names {
            w.text(name);
        }
        for (bank, weights) in tm.banks() {
            for &s in bank.raw_states() {
                w.u64(s);
            }
            for &x in weights.iter() {
                w.u32(x);
            }
        }
        let sum = checksum(&w.0);
        w.u64(sum);
        w.0
    }

    /// Reads a model from bytes; `source` names them in errors.
    pub fn from_bytes(bytes: &[u8], source: &str) -> Result<SavedModel, ModelError> {
        Self::parse(bytes).map_err(|message| ModelError::Format {
            path: source.to_string(),
            message,
        })
    }

    fn parse(bytes: &[u8]) -> Result<SavedModel, String> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not a tmbot model file (bad magic)".into());
        }
        if bytes.len() < MAGIC.len() + 4 + 8 {
            return Err(format!("truncated: only {} bytes", bytes.len()));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version < OLDEST_VERSION {
            return Err(format!(
                "format version {version} is older than the oldest this program reads \
                 ({OLDEST_VERSION})"
            ));
        }
        if version > VERSION {
            return Err(format!(
                "format version {version} is newer than this program's ({VERSION})"
            ));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let stored = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
        if checksum(body) != stored {
            return Err("checksum mismatch: the file is damaged or truncated".into());
        }
        let mut r = Reader {
            bytes: body,
            at: 12,
        };
        let kind = r.u8("machine kind")?;
        match (kind, version) {
            (KIND_PER_CLASS, _) | (KIND_CONV | KIND_COALESCED, 2..) => {}
            (KIND_CONV, _) => {
                return Err(format!(
                    "machine kind {kind} (convolutional) in a version {version} file"
                ))
            }
            (KIND_COALESCED, _) => {
                return Err(format!(
                    "machine kind {kind} (coalesced) in a version {version} file"
                ))
            }
            _ => return Err(format!("unknown machine kind {kind}")),
        }
        let clauses = r.size("clause count", 1 << 24)?;
        let params = Params {
            clauses,
            threshold: r.u32("T")? as i32,
            specificity: r.f64("s")?,
            state_bits: r.u32("state bits")? as usize,
            boost_true_positive: r.u8("boost")? != 0,
            weighted: r.u8("weighted")? != 0,
            literal_budget: r.u32("literal budget")?.checked_sub(1),
            clause_drop: r.f64("clause drop")?,
            literal_drop: r.f64("literal drop")?,
            seed: r.u64("seed")?,
            coalesced_update: if version >= 3 {
                match r.u8("coalesced update")? {
                    0 => CoalescedUpdate::Joint,
                    1 => CoalescedUpdate::Sequential,
                    other => return Err(format!("unknown coalesced update {other}")),
                }
            } else {
                CoalescedUpdate::Joint
            },
        };
        let features = r.size("feature count", 1 << 24)?;
        let classes = r.size("class count", 1 << 16)?;
        let grid = if kind == KIND_CONV {
            let mut side = |what: &str| -> Result<usize, String> {
                let v = r.u32(what)? as usize;
                if v > 1 << 12 {
                    return Err(format!("{what} {v} is implausible (limit 4096)"));
                }
                Ok(v)
            };
            let (width, height) = (side("grid width")?, side("grid height")?);
            let (planes, window) = (side("grid planes")?, side("window")?);
            let grid = PatchGrid::new(width, height, planes, window)
                .map_err(|e| format!("bad patch grid: {e}"))?;
            if grid.input_features() != features {
                return Err(format!(
                    "the patch grid has {} input features, the header says {features}",
                    grid.input_features()
                ));
            }
            Some(grid)
        } else {
            None
        };
        let encoder = r.text("encoder name")?;
        let feature_names = (0..features)
            .map(|i| r.text(&format!("feature name {i}")))
            .collect::<Result<Vec<_>, _>>()?;
        // Check the size before allocating anything the header asks for.
        let literal_features = grid.map_or(features, |g| g.patch_features());
        let words = crate::tm::literals::LiteralLayout::new(literal_features).words();
        // Per-class and convolutional: a bank per class, a weight per clause; coalesced: one
        // pool, a weight per clause and class.
        let (pools, weights_per_clause) = if kind == KIND_COALESCED {
            (1, classes)
        } else {
            (classes, 1)
        };
        let expected = (pools as u128)
            * (params.clauses as u128)
            * ((params.state_bits.clamp(1, 16) * words * 8 + 4 * weights_per_clause) as u128);
        let left = (body.len() - r.at) as u128;
        if expected != left {
            return Err(format!(
                "the header describes {expected} bytes of clause state, the file holds {left}"
            ));
        }
        let mut machine = match grid {
            Some(grid) => ConvTm::new(params, grid, classes).map(Machine::Conv),
            None if kind == KIND_COALESCED => {
                CoalescedTm::new(params, features, classes).map(Machine::Coalesced)
            }
            None => MultiClassTm::new(params, features, classes).map(Machine::PerClass),
        }
        .map_err(|e| format!("bad hyper-parameters: {e}"))?;
        let mut parts = Vec::new();
        let shapes: Vec<(usize, usize, usize, usize)> = machine
            .banks()
            .map(|(b, w)| (b.clauses(), b.bits(), b.raw_states().len(), w.len()))
            .collect();
        let layout = *machine.banks().next().expect("a bank").0.layout();
        for (clauses, bits, words, weight_count) in shapes {
            let states = (0..words)
                .map(|_| r.u64("clause states"))
                .collect::<Result<Vec<_>, _>>()?;
            let weights = (0..weight_count)
                .map(|_| r.u32("clause weights"))
                .collect::<Result<Vec<_>, _>>()?;
            let bank = ClauseBank::from_raw(layout, bits, clauses, states)
                .ok_or("clause bank shape mismatch")?;
            parts.push((bank, weights));
        }
        machine.restore(parts)?;
        Ok(SavedModel {
            encoder,
            feature_names,
            machine,
        })
    }

    /// Saves to `path` (temporary file, then rename).
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        write_atomically(path, &self.to_bytes()).map_err(|cause| ModelError::Io {
            path: path.display().to_string(),
            cause,
        })
    }

    /// Loads from `path`.
    pub fn load(path: &Path) -> Result<SavedModel, ModelError> {
        let bytes = std::fs::read(path).map_err(|cause| ModelError::Io {
            path: path.display().to_string(),
            cause,
        })?;
        SavedModel::from_bytes(&bytes, &path.display().to_string())
    }
}

/// The inference export of a saved model: its include masks and weights (see the module
/// documentation). Convolutional machines have no flat export (a clause there is tested
/// against every patch).
pub fn inference_bytes(model: &SavedModel) -> Result<Vec<u8>, String> {
    let compiled = match &model.machine {
        Machine::PerClass(tm) => tm.compile(),
        Machine::Coalesced(tm) => tm.compile(),
        Machine::Conv(_) => {
            return Err("convolutional models cannot be exported as flat include masks".into())
        }
    };
    Ok(export_compiled(
        &compiled,
        model.machine.features(),
        model.machine.params().threshold,
        &model.encoder,
    ))
}

/// The inference export of a compiled model (of any machine, e.g.
/// [`crate::tm::CoalescedTm::compile`]) over `features` features read through `encoder`
/// (its name as model files keep it), with vote clamp `threshold`.
pub fn export_compiled(
    compiled: &InferenceModel,
    features: usize,
    threshold: i32,
    encoder: &str,
) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.0.extend_from_slice(INFERENCE_MAGIC);
    w.u32(INFERENCE_VERSION);
    w.u64(features as u64);
    w.u64(compiled.classes() as u64);
    w.u32(threshold as u32);
    w.text(encoder);
    w.u64(compiled.clauses().len() as u64);
    for clause in compiled.clauses() {
        w.u32(clause.literals.len() as u32);
        for &l in &clause.literals {
            w.u32(l as u32);
        }
        for &x in &clause.weights {
            w.u32(x as u32);
        }
    }
    let sum = checksum(&w.0);
    w.u64(sum);
    w.0
}

/// Writes the inference export of `model` to `path` (temporary file, then rename).
pub fn save_inference(model: &SavedModel, path: &Path) -> Result<(), ModelError> {
    let bytes = inference_bytes(model).map_err(|message| ModelError::Format {
        path: path.display().to_string(),
        message,
    })?;
    write_atomically(path, &bytes).map_err(|cause| ModelError::Io {
        path: path.display().to_string(),
        cause,
    })
}

/// True when `bytes` start as an inference export does (its magic), not a model file.
pub fn is_inference_export(bytes: &[u8]) -> bool {
    bytes.starts_with(INFERENCE_MAGIC)
}

/// An inference export as read: the model and its encoder's name (absent in version 1
/// files).
pub struct Export {
    /// The compiled model.
    pub model: InferenceModel,
    /// The feature encoder, as the model file named it.
    pub encoder: Option<String>,
}

/// Reads an inference export with its encoder; `source` names the bytes in errors.
pub fn read_export(bytes: &[u8], source: &str) -> Result<Export, ModelError> {
    parse_inference(bytes).map_err(|message| ModelError::Format {
        path: source.to_string(),
        message,
    })
}

/// Reads an inference export; `source` names the bytes in errors.
pub fn read_inference(bytes: &[u8], source: &str) -> Result<InferenceModel, ModelError> {
    read_export(bytes, source).map(|e| e.model)
}

/// Loads an inference export from `path`.
pub fn load_inference(path: &Path) -> Result<InferenceModel, ModelError> {
    let bytes = std::fs::read(path).map_err(|cause| ModelError::Io {
        path: path.display().to_string(),
        cause,
    })?;
    read_inference(&bytes, &path.display().to_string())
}

fn parse_inference(bytes: &[u8]) -> Result<Export, String> {
    if bytes.len() < INFERENCE_MAGIC.len() || &bytes[..INFERENCE_MAGIC.len()] != INFERENCE_MAGIC {
        return Err("not a tmbot inference export (bad magic)".into());
    }
    if bytes.len() < INFERENCE_MAGIC.len() + 4 + 8 {
        return Err(format!("truncated: only {} bytes", bytes.len()));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if !(1..=INFERENCE_VERSION).contains(&version) {
        return Err(format!(
            "inference export version {version}, this program reads 1 to {INFERENCE_VERSION}"
        ));
    }
    let (body, tail) = bytes.split_at(bytes.len() - 8);
    if checksum(body) != u64::from_le_bytes(tail.try_into().expect("8 bytes")) {
        return Err("checksum mismatch: the file is damaged or truncated".into());
    }
    let mut r = Reader {
        bytes: body,
        at: 12,
    };
    let features = r.size("feature count", 1 << 24)?;
    let classes = r.size("class count", 1 << 16)?;
    if classes < 2 {
        return Err(format!("{classes} classes, need at least 2"));
    }
    let threshold = r.u32("T")? as i32;
    if threshold < 1 {
        return Err(format!("T must be at least 1, got {threshold}"));
    }
    let encoder = if version >= 2 {
        Some(r.text("encoder name")?)
    } else {
        None
    };
    // Every clause takes at least 4 + 4 * classes bytes: bound the count before allocating.
    let clause_count = r.size("clause count", body.len() / (4 + 4 * classes))?;
    let mut clauses = Vec::with_capacity(clause_count);
    for j in 0..clause_count {
        let what = format!("clause {j}");
        let n = r.u32(&what)? as usize;
        if n == 0 || n > 2 * features {
            return Err(format!(
                "{what}: {n} literals, expected 1..={}",
                2 * features
            ));
        }
        let literals = (0..n)
            .map(|_| {
                let l = r.u32(&what)? as usize;
                if l < 2 * features {
                    Ok(l)
                } else {
                    Err(format!("{what}: literal {l} is not below {}", 2 * features))
                }
            })
            .collect::<Result<Vec<_>, String>>()?;
        let weights = (0..classes)
            .map(|_| r.u32(&what).map(|x| x as i32))
            .collect::<Result<Vec<_>, _>>()?;
        clauses.push(CompiledClause { literals, weights });
    }
    if r.at != body.len() {
        return Err(format!(
            "{} bytes left over after the last clause",
            body.len() - r.at
        ));
    }
    Ok(Export {
        model: InferenceModel::new(features, classes, threshold, clauses),
        encoder,
    })
}
