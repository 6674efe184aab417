//! Responses in GTP v2 framing: `=id text` or `?id text`, ended by one empty line.

use std::fmt::Write as _;

/// Formats a response. The text never contains an empty line (inner blank lines are replaced
/// by a single space) and the response ends with exactly one empty line.
pub fn format(success: bool, id: Option<u64>, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    out.push(if success { '=' } else { '?' });
    if let Some(id) = id {
        let _ = write!(out, "{id}");
    }
    out.push(' ');
    let body = text.trim_end_matches(['\n', '\r', ' ']);
    if !body.is_empty() {
        for (i, line) in body.split('\n').enumerate() {
            let line = line.trim_end_matches('\r');
            let blank = line.trim().is_empty();
            match (i, blank) {
                (0, true) => {}
                (0, false) => out.push_str(line),
                (_, true) => out.push_str("\n "),
                (_, false) => {
                    out.push('\n');
                    out.push_str(line);
                }
            }
        }
    }
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_success_is_exact() {
        assert_eq!(format(true, None, ""), "= \n\n");
        assert_eq!(format(true, Some(3), ""), "=3 \n\n");
    }

    #[test]
    fn text_and_errors() {
        assert_eq!(format(true, None, "tmbot"), "= tmbot\n\n");
        assert_eq!(
            format(false, Some(9), "unknown command"),
            "?9 unknown command\n\n"
        );
    }

    #[test]
    fn no_blank_line_inside() {
        let r = format(true, None, "a\n\nb\n\n");
        assert_eq!(r, "= a\n \nb\n\n");
        assert_eq!(r.matches("\n\n").count(), 1);
    }
}
