//! The spec-string grammar shared by the CLI, tournament files and the engine:
//!
//! ```text
//! spec   = name [ ":" option { "," option } ]
//! name   = letter { letter | digit | "_" | "-" }
//! option = key "=" value
//! value  = '"' { any char but '"' or '\', or '\' any char } '"'  |  { any char but ',' or '"' }
//! ```
//! e.g. `mcts:playouts=20000,c=0.9`, `alphabeta:depth=8,eval=material`,
//! `avgtree:depth=3,eval=tm:models/ck-black.tm`.

use nom::branch::alt;
use nom::bytes::complete::{escaped_transform, is_not, take_while, take_while1};
use nom::character::complete::{anychar, char, satisfy};
use nom::combinator::{map, opt, recognize};
use nom::sequence::{delimited, pair, separated_pair};
use nom::IResult;
use std::time::Duration;
use thiserror::Error;

/// A spec string (or one of its parts) that was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad spec part '{part}': {message}")]
pub struct SpecError {
    /// The offending part of the spec.
    pub part: String,
    /// Why it was rejected.
    pub message: String,
}

impl SpecError {
    /// An error about `part`.
    pub fn new(part: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError {
            part: part.into(),
            message: message.into(),
        }
    }
}

/// A parsed spec: a name and its `key=value` options in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The name before the colon (`mcts`, `alphabeta`, ...).
    pub name: String,
    /// The options, in order.
    pub options: Vec<(String, String)>,
}

fn identifier(input: &str) -> IResult<&str, &str> {
    recognize(pair(
        satisfy(|c| c.is_ascii_alphabetic()),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
    ))(input)
}

fn quoted(input: &str) -> IResult<&str, String> {
    delimited(
        char('"'),
        map(
            opt(escaped_transform(is_not("\"\\"), '\\', anychar)),
            Option::unwrap_or_default,
        ),
        char('"'),
    )(input)
}

fn bare(input: &str) -> IResult<&str, String> {
    map(take_while1(|c| c != ',' && c != '"'), str::to_string)(input)
}

fn option(input: &str) -> IResult<&str, (String, String)> {
    separated_pair(
        map(identifier, str::to_string),
        char('='),
        alt((quoted, bare)),
    )(input)
}

impl Spec {
    /// Parses a spec, naming the part where it stops making sense.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let text = text.trim();
        let (mut rest, name) = identifier(text)
            .map_err(|_| SpecError::new(text, "expected a name such as mcts or alphabeta"))?;
        let mut options = Vec::new();
        if !rest.is_empty() {
            rest = rest
                .strip_prefix(':')
                .ok_or_else(|| SpecError::new(rest, "expected ':' and options after the name"))?;
            loop {
                let (after, pair) = option(rest).map_err(|_| {
                    let chunk = rest.split(',').next().unwrap_or(rest);
                    let part = [chunk, rest, text].into_iter().find(|p| !p.is_empty());
                    SpecError::new(part.unwrap_or_default(), "expected key=value")
                })?;
                options.push(pair);
                match after.strip_prefix(',') {
                    Some(next) => rest = next,
                    None if after.is_empty() => break,
                    None => return Err(SpecError::new(after, "expected ',' between options")),
                }
            }
        }
        Ok(Spec {
            name: name.to_string(),
            options,
        })
    }
}

/// Parses a duration: `250ms`, `2s`, `1.5` (seconds), `1m`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60.0)
    } else {
        (text, 1.0)
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a duration such as 500ms, 2s or 1.5"))?;
    if !(value.is_finite() && value > 0.0) {
        return Err(format!("duration '{text}' must be positive"));
    }
    let seconds = value * scale;
    if seconds > MAX_DURATION.as_secs_f64() {
        return Err(format!(
            "duration '{text}' is longer than {} hours",
            MAX_DURATION.as_secs() / 3600
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Longest duration a spec may give (a day: longer times are typing errors, and durations
/// past `Duration`'s range would abort the process).
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);

/// Parses `on`/`off`/`true`/`false`/`yes`/`no`/`1`/`0` (any case).
pub fn parse_switch(text: &str) -> Result<bool, String> {
    match text.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("'{text}' is not a switch (on or off)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_options_and_quotes() {
        let spec = Spec::parse("avgtree:depth=3,eval=tm:models/ck-black.tm").unwrap();
        assert_eq!(spec.name, "avgtree");
        assert_eq!(
            spec.options,
            vec![
                ("depth".into(), "3".into()),
                ("eval".into(), "tm:models/ck-black.tm".into())
            ]
        );
        let spec = Spec::parse(r#"external:cmd="mohex \"q\", x",init=y"#).unwrap();
        assert_eq!(spec.options[0].1, "mohex \"q\", x");
        assert_eq!(Spec::parse("random").unwrap().options, vec![]);
    }

    #[test]
    fn rejects_bad_specs_naming_the_part() {
        let err = Spec::parse("mcts:playouts").unwrap_err();
        assert_eq!(err.part, "playouts");
        let err = Spec::parse("mcts:c=1,,x=2").unwrap_err();
        assert_eq!(err.part, ",x=2", "{err}");
        assert_eq!(Spec::parse("mcts:c=1,x=\"a\"b").unwrap_err().part, "b");
        assert_eq!(Spec::parse("mcts;c=1").unwrap_err().part, ";c=1");
        assert!(Spec::parse("").is_err());
        assert!(Spec::parse("9mcts").is_err());
        assert!(Spec::parse("mcts:").is_err());
    }

    #[test]
    fn durations_and_switches() {
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("1e300").is_err());
        assert!(parse_duration("1441m").is_err());
        assert_eq!(parse_duration("1440m").unwrap(), MAX_DURATION);
        assert!(parse_switch("ON").unwrap());
        assert!(!parse_switch("0").unwrap());
        assert!(parse_switch("maybe").is_err());
    }
}
