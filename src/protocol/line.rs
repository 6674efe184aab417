//! The command line of GTP-style protocols: `[id] name args...`, parsed with nom.
//!
//! Preprocessing follows GTP v2: carriage returns and other control characters are dropped,
//! tabs count as spaces, and a line that is empty or starts with `#` is no command (the
//! controller's `# interrupt` is recognised separately by [`is_interrupt`]).

use nom::bytes::complete::take_while1;
use nom::character::complete::space0;
use nom::multi::many0;
use nom::sequence::preceded;
use nom::IResult;

/// One parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The numeric id, echoed in the response, if the controller sent one.
    pub id: Option<u64>,
    /// The command name, lowercase as sent (command names are case-sensitive in GTP).
    pub name: String,
    /// The arguments, split on white space.
    pub args: Vec<String>,
}

/// Cleans a raw line as GTP asks: control characters other than tab removed, tabs to spaces,
/// comments (from `#`) removed, surrounding white space trimmed.
pub fn clean(raw: &str) -> String {
    let mut text: String = raw
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    if let Some(hash) = text.find('#') {
        text.truncate(hash);
    }
    text.trim().to_string()
}

/// True for the controller's `# interrupt` line, which asks a running search to stop.
pub fn is_interrupt(raw: &str) -> bool {
    raw.trim().trim_start_matches('#').trim() == "interrupt" && raw.trim().starts_with('#')
}

fn token(input: &str) -> IResult<&str, &str> {
    preceded(space0, take_while1(|c: char| c != ' '))(input)
}

/// Parses one raw line; `None` for a line with no command (empty or a comment).
pub fn parse(raw: &str) -> Option<CommandLine> {
    let text = clean(raw);
    let (_, tokens) = many0(token)(text.as_str()).ok()?;
    let mut tokens = tokens.into_iter();
    let first = tokens.next()?;
    let rest: Vec<String> = tokens.map(str::to_string).collect();
    let id = (!rest.is_empty() && first.bytes().all(|b| b.is_ascii_digit()))
        .then(|| first.parse::<u64>().ok())
        .flatten();
    let mut words = rest.into_iter();
    let name = match id {
        Some(_) => words.next()?,
        None => first.to_string(),
    };
    Some(CommandLine {
        id,
        name,
        args: words.collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(id: Option<u64>, name: &str, args: &[&str]) -> Option<CommandLine> {
        Some(CommandLine {
            id,
            name: name.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
        })
    }

    #[test]
    fn plain_and_with_id() {
        assert_eq!(parse("play black e5"), cmd(None, "play", &["black", "e5"]));
        assert_eq!(parse("12 genmove w"), cmd(Some(12), "genmove", &["w"]));
        assert_eq!(parse("  7\tname\r\n"), cmd(Some(7), "name", &[]));
    }

    #[test]
    fn a_lone_number_is_a_command_name() {
        assert_eq!(parse("42"), cmd(None, "42", &[]));
    }

    #[test]
    fn comments_and_blank_lines() {
        assert_eq!(parse(""), None);
        assert_eq!(parse("   "), None);
        assert_eq!(parse("# a comment"), None);
        assert_eq!(parse("name # trailing"), cmd(None, "name", &[]));
        assert!(is_interrupt("# interrupt"));
        assert!(is_interrupt("#interrupt\r"));
        assert!(!is_interrupt("interrupt"));
    }

    #[test]
    fn huge_ids_are_not_ids() {
        let line = "99999999999999999999999 name";
        assert_eq!(parse(line), cmd(None, "99999999999999999999999", &["name"]));
    }
}
