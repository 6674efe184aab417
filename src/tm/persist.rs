//! The model file: versioned, checksummed, self-describing.
//!
//! Layout (little-endian): the magic `TMBOTTM\0`, format version (u32), machine kind (u8),
//! the hyper-parameters, feature and class counts, the feature encoder's name and the
//! feature names, then every clause bank's state words and weights, and last an FNV-1a
//! 64-bit checksum of everything before it. Files are written to a temporary file and
//! renamed. A loaded machine predicts exactly as the saved one; further training restarts
//! its random streams from the seed.

use crate::tm::bank::ClauseBank;
use crate::tm::literals::LiteralLayout;
use crate::tm::multiclass::MultiClassTm;
use crate::tm::params::Params;
use std::path::Path;

const MAGIC: &[u8; 8] = b"TMBOTTM\0";
/// Current format version.
pub const VERSION: u32 = 1;
const KIND_PER_CLASS: u8 = 1;

/// Why a model file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file system said no.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
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

/// A saved model: the machine plus the description of its input features.
#[derive(Clone, Debug)]
pub struct SavedModel {
    /// Name of the feature encoder that produced the inputs (`csv` for raw columns).
    pub encoder: String,
    /// One name per feature.
    pub feature_names: Vec<String>,
    /// The machine.
    pub machine: MultiClassTm,
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
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)?;
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
        w.u8(KIND_PER_CLASS);
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
        w.u64(tm.features() as u64);
        w.u64(tm.classes() as u64);
        w.text(&self.encoder);
        for name in &self.feature_names {
            w.text(name);
        }
        for (bank, weights) in tm.banks() {
            for &s in bank.raw_states() {
                w.u64(s);
            }
            for &x in weights {
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
        if version != VERSION {
            return Err(format!(
                "format version {version}, this program reads {VERSION}"
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
        if kind != KIND_PER_CLASS {
            return Err(format!("unknown machine kind {kind}"));
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
        };
        let features = r.size("feature count", 1 << 24)?;
        let classes = r.size("class count", 1 << 16)?;
        let encoder = r.text("encoder name")?;
        let feature_names = (0..features)
            .map(|i| r.text(&format!("feature name {i}")))
            .collect::<Result<Vec<_>, _>>()?;
        // Check the size before allocating anything the header asks for.
        let words = LiteralLayout::new(features).words();
        let expected = (classes as u128)
            * (params.clauses as u128)
            * ((params.state_bits.clamp(1, 16) * words * 8 + 4) as u128);
        let left = (body.len() - r.at) as u128;
        if expected != left {
            return Err(format!(
                "the header describes {expected} bytes of clause state, the file holds {left}"
            ));
        }
        let mut machine = MultiClassTm::new(params, features, classes)
            .map_err(|e| format!("bad hyper-parameters: {e}"))?;
        let mut parts = Vec::new();
        let shapes: Vec<(usize, usize, usize)> = machine
            .banks()
            .map(|(b, _)| (b.clauses(), b.bits(), b.raw_states().len()))
            .collect();
        let layout = *machine.banks().next().expect("a bank").0.layout();
        for (clauses, bits, words) in shapes {
            let states = (0..words)
                .map(|_| r.u64("clause states"))
                .collect::<Result<Vec<_>, _>>()?;
            let weights = (0..clauses)
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
        write_atomically(path, &self.to_bytes()).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })
    }

    /// Loads from `path`.
    pub fn load(path: &Path) -> Result<SavedModel, ModelError> {
        let bytes = std::fs::read(path).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        SavedModel::from_bytes(&bytes, &path.display().to_string())
    }
}
