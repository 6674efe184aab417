//! Boolean datasets: packed feature rows with class labels, and the CSV reader.
//!
//! CSV format: one sample per line, 0/1 feature columns, the class label (0..K-1) in the LAST
//! column; an optional header line (recognised when its first field is not a number) gives
//! the feature names.

use crate::tm::literals::LiteralLayout;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;

/// A problem with a dataset file: which file, where, and why.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {location}: {message}")]
pub struct DataError {
    /// The file.
    pub path: String,
    /// Line (1-based) and column, or `file`.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

/// Labelled boolean samples, packed one row of [`LiteralLayout::feature_words`] words each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dataset {
    layout: LiteralLayout,
    rows: Vec<u64>,
    labels: Vec<u32>,
    /// One name per feature (empty for [`Dataset::unnamed`] batches).
    pub feature_names: Vec<String>,
}

impl Dataset {
    /// An empty dataset of `features` features with default names `x0`, `x1`, ...
    pub fn new(features: usize) -> Dataset {
        Dataset::with_names((0..features).map(|i| format!("x{i}")).collect())
    }

    /// An empty dataset of `features` features without names (`feature_names` stays empty):
    /// the batches evaluators build at every search node, which must not allocate a name
    /// per feature.
    pub fn unnamed(features: usize) -> Dataset {
        Dataset {
            layout: LiteralLayout::new(features),
            rows: Vec::new(),
            labels: Vec::new(),
            feature_names: Vec::new(),
        }
    }

    /// An empty dataset whose features are named `names`.
    pub fn with_names(names: Vec<String>) -> Dataset {
        Dataset {
            layout: LiteralLayout::new(names.len()),
            rows: Vec::new(),
            labels: Vec::new(),
            feature_names: names,
        }
    }

    /// Adds a sample given as 0/1 values (non-zero counts as 1).
    pub fn push(&mut self, values: &[u8], label: u32) {
        assert_eq!(values.len(), self.layout.features, "feature count");
        self.rows.extend(self.layout.pack_features(values));
        self.labels.push(label);
    }

    /// Adds a sample given as packed feature words.
    pub fn push_packed(&mut self, words: &[u64], label: u32) {
        assert_eq!(words.len(), self.layout.feature_words(), "word count");
        self.rows.extend_from_slice(words);
        self.labels.push(label);
    }

    /// The literal layout of the features.
    pub fn layout(&self) -> &LiteralLayout {
        &self.layout
    }

    /// Number of features.
    pub fn features(&self) -> usize {
        self.layout.features
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// True when there are no samples.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Packed features of sample `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &[u64] {
        let h = self.layout.feature_words();
        &self.rows[i * h..(i + 1) * h]
    }

    /// Feature `f` of sample `i`.
    pub fn value(&self, i: usize, f: usize) -> bool {
        (self.row(i)[f / 64] >> (f % 64)) & 1 == 1
    }

    /// Labels of all samples.
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }

    /// The fraction of samples whose label is the `predicted` class (one per sample).
    pub fn accuracy(&self, predicted: &[usize]) -> f64 {
        let hits = predicted
            .iter()
            .zip(&self.labels)
            .filter(|(&p, &y)| p == y as usize)
            .count();
        hits as f64 / self.len() as f64
    }

    /// Number of classes (largest label + 1; 0 when empty).
    pub fn classes(&self) -> usize {
        self.labels.iter().max().map_or(0, |&m| m as usize + 1)
    }

    /// The samples at `indices`, in that order.
    pub fn subset(&self, indices: &[usize]) -> Dataset {
        let mut out = Dataset::with_names(self.feature_names.clone());
        for &i in indices {
            out.push_packed(self.row(i), self.labels[i]);
        }
        out
    }

    /// Appends every sample of `other` (same features).
    pub fn extend(&mut self, other: &Dataset) {
        assert_eq!(self.layout, other.layout, "feature count");
        self.rows.extend_from_slice(&other.rows);
        self.labels.extend_from_slice(&other.labels);
    }

    /// Reads a CSV file of 0/1 features with the label in the last column. The file is
    /// read a line at a time and packed as it goes: memory follows the packed bits, not the
    /// text.
    pub fn read_csv(path: &Path) -> Result<Dataset, DataError> {
        let source = path.display().to_string();
        let io_error = |e: std::io::Error| DataError {
            path: source.clone(),
            location: "file".into(),
            message: e.to_string(),
        };
        let file = std::fs::File::open(path).map_err(io_error)?;
        let reader = BufReader::with_capacity(1 << 16, file);
        Dataset::parse_lines(reader.lines().map(|line| line.map_err(io_error)), &source)
    }

    /// Parses CSV text (see the module docs); `source` names it in errors.
    pub fn parse_csv(text: &str, source: &str) -> Result<Dataset, DataError> {
        Dataset::parse_lines(text.lines().map(Ok), source)
    }

    /// Parses CSV lines one at a time (see the module docs); `source` names them in errors.
    fn parse_lines<L: AsRef<str>>(
        lines: impl Iterator<Item = Result<L, DataError>>,
        source: &str,
    ) -> Result<Dataset, DataError> {
        let err = |line: usize, message: String| DataError {
            path: source.to_string(),
            location: format!("line {line}"),
            message,
        };
        let mut names: Option<Vec<String>> = None;
        let mut first = true;
        let mut data: Option<Dataset> = None;
        let mut values = Vec::new();
        for (index, line) in lines.enumerate() {
            let line = line?;
            let line = line.as_ref();
            if line.trim().is_empty() {
                continue;
            }
            let n = index + 1;
            if std::mem::take(&mut first) {
                let head = line.split(',').next().unwrap_or("").trim();
                if head.trim_start_matches('-').parse::<u64>().is_err() {
                    let fields: Vec<String> =
                        line.split(',').map(|f| f.trim().to_string()).collect();
                    names = Some(fields[..fields.len().saturating_sub(1)].to_vec());
                    continue;
                }
            }
            let (features, label_text) = match line.rsplit_once(',') {
                Some((features, label)) => (features, label.trim()),
                None => return Err(err(n, "expected feature columns and a label".into())),
            };
            values.clear();
            for (c, f) in features.split(',').enumerate() {
                values.push(match f.trim() {
                    "0" => 0,
                    "1" => 1,
                    other => {
                        return Err(err(
                            n,
                            format!("column {}: expected 0 or 1, got '{other}'", c + 1),
                        ))
                    }
                });
            }
            let label: u32 = label_text.parse().map_err(|_| {
                err(
                    n,
                    format!(
                        "label (last column): expected a class number 0..K-1, got '{label_text}'"
                    ),
                )
            })?;
            let ds = data.get_or_insert_with(|| match &names {
                Some(names) if names.len() == values.len() => Dataset::with_names(names.clone()),
                _ => Dataset::new(values.len()),
            });
            if ds.features() != values.len() {
                return Err(err(
                    n,
                    format!(
                        "{} feature columns, expected {}",
                        values.len(),
                        ds.features()
                    ),
                ));
            }
            ds.push(&values, label);
        }
        data.ok_or_else(|| DataError {
            path: source.to_string(),
            location: "file".into(),
            message: "no samples".into(),
        })
    }

    /// Writes the dataset as CSV (no header), streamed to a temporary file then renamed.
    pub fn write_csv(&self, path: &Path) -> std::io::Result<()> {
        crate::tm::persist::write_atomically_with(path, |out| {
            let mut line = String::with_capacity(2 * self.features() + 12);
            for i in 0..self.len() {
                line.clear();
                for f in 0..self.features() {
                    line.push(if self.value(i, f) { '1' } else { '0' });
                    line.push(',');
                }
                line.push_str(&self.labels[i].to_string());
                line.push('\n');
                out.write_all(line.as_bytes())?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_with_and_without_header() {
        let a = Dataset::parse_csv("a,b,y\n1,0,1\n0,1,0\n", "t").unwrap();
        assert_eq!(a.feature_names, ["a", "b"]);
        assert_eq!(a.labels(), [1, 0]);
        assert!(a.value(0, 0) && !a.value(0, 1));
        let b = Dataset::parse_csv("1,0,1\n0,1,0\n", "t").unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b.row(1), a.row(1));
    }

    #[test]
    fn files_are_read_line_by_line_like_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.csv");
        let text = "a,b,c,y\n1,0,1,2\n\n0,1,1,0\r\n1,1,0,1\n";
        std::fs::write(&path, text).unwrap();
        let read = Dataset::read_csv(&path).unwrap();
        assert_eq!(read, Dataset::parse_csv(text, "t").unwrap());
        assert_eq!(read.len(), 3);
        assert_eq!(read.labels(), [2, 0, 1]);
        std::fs::write(&path, "1,0,1\n\n1,x,0\n").unwrap();
        let e = Dataset::read_csv(&path).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("line 3: column 2: expected 0 or 1, got 'x'"),
            "{e}"
        );
        let e = Dataset::read_csv(&dir.path().join("missing.csv")).unwrap_err();
        assert!(e.to_string().contains("missing.csv: file"), "{e}");
    }

    #[test]
    fn bad_rows_name_the_line_and_column() {
        let e = Dataset::parse_csv("1,0,1\n0,2,0\n", "f.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.csv: line 2: column 2: expected 0 or 1, got '2'"
        );
        let e = Dataset::parse_csv("1,0,1\n0,1\n", "f.csv").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = Dataset::parse_csv("1,0,x\n", "f.csv").unwrap_err();
        assert!(e.to_string().contains("label"), "{e}");
        assert!(Dataset::parse_csv("", "f.csv").is_err());
    }
}
