//! The controller's side of GTP framing (HTP and the checkers protocol use it alike): every
//! command goes out with a numeric id (`7 genmove b`); answers are `=7 text` or `?7 message`
//! and end with an empty line, possibly after more lines of text. Commands may be pipelined:
//! answers are matched to commands in order, and an answer that carries another command's
//! id, or any line that is not part of an answer, breaks the protocol. Engines that answer
//! without ids (`= text`) are accepted.

use super::channel::{ChannelError, LineChannel};
use crate::stop::StopFlag;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::time::{Duration, Instant};
use thiserror::Error;

/// How often a wait that can be stopped looks at its stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

/// What went wrong with a command.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ClientError {
    /// Writing to the engine, or reading from it, failed.
    #[error("'{command}': {message}")]
    Transport {
        /// The command concerned.
        command: String,
        /// The system's words.
        message: String,
    },
    /// The engine closed its output (exited) before answering.
    #[error("the engine closed its output before answering '{command}'")]
    Closed {
        /// The command left unanswered.
        command: String,
    },
    /// No answer came in time.
    #[error("no answer to '{command}' within {:.3} s", after.as_secs_f64())]
    Timeout {
        /// The command left unanswered.
        command: String,
        /// How long the answer was waited for since the command was sent.
        after: Duration,
    },
    /// The engine broke the framing: garbage, an answer to another command, a bad line.
    #[error("answering '{command}': {message}")]
    Protocol {
        /// The command being answered.
        command: String,
        /// What was wrong.
        message: String,
    },
    /// The engine answered with a failure (`? message`).
    #[error("'{command}' failed: {message}")]
    Failed {
        /// The command that failed.
        command: String,
        /// The engine's message.
        message: String,
    },
    /// The wait was stopped by the stop flag.
    #[error("stopped while waiting for '{command}'")]
    Interrupted {
        /// The command being waited for.
        command: String,
    },
}

/// A command sent and not yet answered.
#[derive(Debug)]
struct Pending {
    id: u64,
    command: String,
    sent: Instant,
}

/// A GTP-framed client over a line channel.
pub struct Client<C> {
    channel: C,
    next_id: u64,
    pending: VecDeque<Pending>,
    out: String,
}

impl<C: LineChannel> Client<C> {
    /// A client whose first command gets id 1.
    pub fn new(channel: C) -> Client<C> {
        Client {
            channel,
            next_id: 1,
            pending: VecDeque::new(),
            out: String::with_capacity(256),
        }
    }

    /// Sends `commands` in one write; their answers are read in order with
    /// [`Client::answer`].
    pub fn send<S: AsRef<str>>(&mut self, commands: &[S]) -> Result<(), ClientError> {
        self.out.clear();
        let sent = Instant::now();
        for command in commands {
            let command = command.as_ref();
            let id = self.next_id;
            self.next_id += 1;
            let _ = writeln!(self.out, "{id} {command}");
            self.pending.push_back(Pending {
                id,
                command: command.to_string(),
                sent,
            });
        }
        self.channel
            .send(&self.out)
            .map_err(|error| ClientError::Transport {
                command: commands
                    .first()
                    .map_or_else(String::new, |c| c.as_ref().to_string()),
                message: error.to_string(),
            })
    }

    /// The answer to the oldest command sent and not answered, waiting until `deadline`
    /// (and no longer than until `stop` is raised): its text for `=`, [`ClientError::Failed`]
    /// for `?`.
    pub fn answer(
        &mut self,
        deadline: Instant,
        stop: Option<&StopFlag>,
    ) -> Result<String, ClientError> {
        let Some(pending) = self.pending.pop_front() else {
            return Err(ClientError::Protocol {
                command: String::new(),
                message: "no command is waiting for an answer".to_string(),
            });
        };
        let first = self.line(&pending, deadline, stop)?;
        let protocol = |message: String| ClientError::Protocol {
            command: pending.command.clone(),
            message,
        };
        let (success, rest) = match first.as_bytes().first() {
            Some(b'=') => (true, &first[1..]),
            Some(b'?') => (false, &first[1..]),
            _ => return Err(protocol(format!("unexpected line '{first}'"))),
        };
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (id, after) = rest.split_at(digits);
        if !id.is_empty() && id.parse::<u64>().ok() != Some(pending.id) {
            return Err(protocol(format!(
                "the answer '{first}' carries id {id}, expected {} (an answer to another \
                 command)",
                pending.id
            )));
        }
        let mut text = match after.chars().next() {
            None => String::new(),
            Some(c) if c.is_whitespace() => after[c.len_utf8()..].to_string(),
            Some(_) => return Err(protocol(format!("malformed answer line '{first}'"))),
        };
        loop {
            let line = self.line(&pending, deadline, stop)?;
            if line.is_empty() {
                break;
            }
            text.push('\n');
            text.push_str(&line);
        }
        let text = text.trim_end().to_string();
        if success {
            Ok(text)
        } else {
            Err(ClientError::Failed {
                command: pending.command,
                message: text,
            })
        }
    }

    /// Sends one command and reads its answer within `timeout`.
    pub fn command(&mut self, command: &str, timeout: Duration) -> Result<String, ClientError> {
        self.send(&[command])?;
        self.answer(Instant::now() + timeout, None)
    }

    /// Sends `commands` in one write and reads every answer by `deadline`; the first
    /// failure or error ends the reading.
    pub fn run<S: AsRef<str>>(
        &mut self,
        commands: &[S],
        deadline: Instant,
    ) -> Result<Vec<String>, ClientError> {
        self.send(commands)?;
        commands
            .iter()
            .map(|_| self.answer(deadline, None))
            .collect()
    }

    /// Sends `quit` and waits up to `grace` for the engine to close its output (anything
    /// it writes meanwhile is ignored); true when it did.
    pub fn quit(&mut self, grace: Duration) -> bool {
        let deadline = Instant::now() + grace;
        let _ = self.send(&["quit"]);
        loop {
            match self.channel.recv(deadline) {
                Ok(_) => {}
                Err(ChannelError::Closed) => return true,
                Err(_) => return false,
            }
        }
    }

    /// The next line for `pending`.
    fn line(
        &mut self,
        pending: &Pending,
        deadline: Instant,
        stop: Option<&StopFlag>,
    ) -> Result<String, ClientError> {
        loop {
            let wait_until = match stop {
                Some(_) => deadline.min(Instant::now() + STOP_POLL),
                None => deadline,
            };
            match self.channel.recv(wait_until) {
                Ok(line) => return Ok(line),
                Err(ChannelError::Timeout) if Instant::now() < deadline => {
                    if stop.is_some_and(StopFlag::is_raised) {
                        return Err(ClientError::Interrupted {
                            command: pending.command.clone(),
                        });
                    }
                }
                Err(ChannelError::Timeout) => {
                    return Err(ClientError::Timeout {
                        command: pending.command.clone(),
                        after: deadline.saturating_duration_since(pending.sent),
                    })
                }
                Err(ChannelError::Closed) => {
                    return Err(ClientError::Closed {
                        command: pending.command.clone(),
                    })
                }
                Err(ChannelError::Transport(message)) => {
                    return Err(ClientError::Transport {
                        command: pending.command.clone(),
                        message,
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::channel::MemoryChannel;
    use super::*;

    /// A client of an engine that answers each command with `reply(id, name)`.
    fn client<F>(mut reply: F) -> Client<MemoryChannel>
    where
        F: FnMut(&str, &str) -> Option<String> + Send + 'static,
    {
        Client::new(MemoryChannel::connect(move |line| {
            let (id, name) = line.split_once(' ').unwrap_or(("", line));
            reply(id, name)
        }))
    }

    const WAIT: Duration = Duration::from_secs(30);

    #[test]
    fn ids_go_out_and_come_back_with_single_and_multi_line_answers() {
        let mut c = client(|id, name| match name {
            "list" => Some(format!("={id} a\nb\n c\n\n")),
            "fail" => Some(format!("?{id} no such thing\n\n")),
            "empty" => Some(format!("={id} \n\n")),
            "bare" => Some(format!("={id}\n\n")),
            _ => Some(format!("={id} {name}\n\n")),
        });
        assert_eq!(c.command("name", WAIT).unwrap(), "name");
        assert_eq!(c.command("list", WAIT).unwrap(), "a\nb\n c");
        assert_eq!(c.command("empty", WAIT).unwrap(), "");
        assert_eq!(c.command("bare", WAIT).unwrap(), "");
        assert_eq!(
            c.command("fail", WAIT),
            Err(ClientError::Failed {
                command: "fail".into(),
                message: "no such thing".into()
            })
        );
        let answers = c.run(&["x", "y", "z"], Instant::now() + WAIT).unwrap();
        assert_eq!(answers, ["x", "y", "z"]);
    }

    #[test]
    fn answers_without_ids_are_accepted() {
        let mut c = client(|_, name| Some(format!("= {}\n\n", name.to_uppercase())));
        assert_eq!(c.command("genmove b", WAIT).unwrap(), "GENMOVE B");
        assert_eq!(c.command("play b a1", WAIT).unwrap(), "PLAY B A1");
    }

    #[test]
    fn a_second_answer_to_one_command_is_caught_by_its_id() {
        let mut c = client(|id, name| Some(format!("={id} {name}\n\n={id} {name}\n\n")));
        assert_eq!(c.command("genmove b", WAIT).unwrap(), "genmove b");
        let err = c.command("play w a1", WAIT).unwrap_err();
        assert!(
            matches!(&err, ClientError::Protocol { command, message }
                if command == "play w a1" && message.contains("carries id 1, expected 2")),
            "{err}"
        );
    }

    #[test]
    fn garbage_and_malformed_lines_break_the_protocol() {
        for bad in ["hello world", "", "=x1 e5", "% e5"] {
            let text = format!("{bad}\n= e5\n\n");
            let mut c = client(move |_, _| Some(text.clone()));
            let err = c.command("genmove b", WAIT).unwrap_err();
            assert!(matches!(err, ClientError::Protocol { .. }), "{bad}: {err}");
        }
    }

    #[test]
    fn silence_closing_and_stopping_are_told_apart() {
        let mut c = client(|id, name| match name {
            "hang" => Some(String::new()),
            "exit" => None,
            _ => Some(format!("={id}\n\n")),
        });
        let err = c.command("hang", Duration::from_millis(30)).unwrap_err();
        assert!(
            matches!(&err, ClientError::Timeout { command, after }
                if command == "hang" && *after >= Duration::from_millis(30)),
            "{err}"
        );
        let stop = StopFlag::default();
        stop.raise();
        c.send(&["hang"]).unwrap();
        let err = c.answer(Instant::now() + WAIT, Some(&stop)).unwrap_err();
        assert_eq!(
            err,
            ClientError::Interrupted {
                command: "hang".into()
            }
        );
        let err = c.command("exit", WAIT).unwrap_err();
        assert_eq!(
            err,
            ClientError::Closed {
                command: "exit".into()
            }
        );
        assert!(matches!(
            c.command("more", WAIT),
            Err(ClientError::Transport { .. })
        ));
    }

    #[test]
    fn quit_waits_for_the_output_to_close() {
        let mut c = client(|id, name| match name {
            "quit" => None,
            _ => Some(format!("={id}\n\n")),
        });
        assert!(c.quit(WAIT));
        let mut stubborn = client(|id, _| Some(format!("={id}\n\n")));
        assert!(!stubborn.quit(Duration::from_millis(20)));
    }
}
