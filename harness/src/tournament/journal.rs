//! The results journal: one JSON line per finished game, appended and synced before the next
//! is written, so an interrupted run (even a SIGKILL) loses at most the games in progress. A
//! torn last line is dropped when the journal is reopened.

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use tmbot::play::record::TextRecord;

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The event's name.
    pub event: String,
    /// The game's index in the event's schedule.
    pub index: u64,
    /// The index of Black's player in the event's list.
    pub black: usize,
    /// The index of White's player.
    pub white: usize,
    /// The game.
    pub record: TextRecord,
}

/// An append-only journal file.
pub struct Journal {
    file: File,
    path: PathBuf,
}

/// Reads the entries of the journal at `path` (none when it does not exist). A last line
/// without its newline (a write cut short) is left out and reported in the second value;
/// any other unreadable line is an error naming its line number.
pub fn read(path: &Path) -> anyhow::Result<(Vec<Entry>, Option<usize>)> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), None)),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    let torn = (complete < text.len()).then_some(complete);
    let mut entries = Vec::new();
    for (number, line) in text[..complete].lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = serde_json::from_str(line).with_context(|| {
            format!(
                "{} line {}: not a journal entry",
                path.display(),
                number + 1
            )
        })?;
        entries.push(entry);
    }
    Ok((entries, torn))
}

impl Journal {
    /// Opens the journal at `path` for appending, after cutting off a torn last line.
    pub fn open(path: &Path) -> anyhow::Result<(Journal, Vec<Entry>)> {
        let (entries, torn) = read(path)?;
        if let Some(length) = torn {
            let file = OpenOptions::new().write(true).open(path)?;
            file.set_len(length as u64)?;
            file.sync_all()?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok((
            Journal {
                file,
                path: path.to_path_buf(),
            },
            entries,
        ))
    }

    /// Appends `entry` as one line and syncs it to disk.
    pub fn append(&mut self, entry: &Entry) -> anyhow::Result<()> {
        let mut line = serde_json::to_string(entry)?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// Writes `entries` as a new journal at `path` (temporary file, then rename).
pub fn write_all(path: &Path, entries: &[Entry]) -> anyhow::Result<()> {
    let mut text = String::new();
    for entry in entries {
        text += &serde_json::to_string(entry)?;
        text.push('\n');
    }
    write_atomically(path, &text)
}

/// Writes `text` to `path` through a temporary file in the same folder and a rename, so the
/// file is either the old one or the new one.
pub fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    };
    write().with_context(|| format!("cannot write {}", path.display()))
}

/// Fails when `entries` holds the same game twice.
pub fn check_unique(entries: &[Entry]) -> anyhow::Result<()> {
    let mut seen = std::collections::HashSet::new();
    for entry in entries {
        if !seen.insert((entry.event.as_str(), entry.index)) {
            bail!(
                "game {} of event '{}' is in the journals twice",
                entry.index,
                entry.event
            );
        }
    }
    Ok(())
}
