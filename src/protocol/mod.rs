//! GTP-style text protocols: line parsing, response framing, command registries and the
//! engine loop shared by HTP (Hex) and the checkers board-string protocol.

pub mod checkers;
pub mod clock;
pub mod engine;
pub mod htp;
pub mod htp_solver;
pub mod line;
pub mod registry;
pub mod response;
pub mod session;

/// Writes `text` to `path` through a temporary file and a rename, so an existing file is
/// never left half-written. Returns the protocol's answer (empty on success).
pub fn write_atomically(path: &str, text: &str) -> Result<String, String> {
    let target = std::path::Path::new(path);
    let temp = target.with_extension("tmp-write");
    std::fs::write(&temp, text)
        .and_then(|()| std::fs::rename(&temp, target))
        .map(|()| String::new())
        .map_err(|err| {
            let _ = std::fs::remove_file(&temp);
            format!("cannot write {path}: {err}")
        })
}
