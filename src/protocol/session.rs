//! The engine loop: read command lines, dispatch them through a [`Registry`], write framed
//! responses. A reader thread watches the input so that `# interrupt` can stop a running
//! search; the loop ends on `quit` or when the input closes.

use super::line::{self, CommandLine};
use super::registry::Registry;
use super::response;
use crate::stop::StopFlag;
use std::io::{BufRead, Write};
use std::sync::{mpsc, Arc, Mutex, MutexGuard, PoisonError};
use std::thread;

/// Longest accepted command line in bytes; longer lines are answered with an error.
pub const MAX_LINE: usize = 64 * 1024;

/// The result of one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The framed response, ready to write.
    pub text: String,
    /// True after `quit`.
    pub quit: bool,
}

/// Runs one parsed command against `state` and returns the framed reply.
pub fn respond<S>(registry: &Registry<S>, state: &mut S, command: &CommandLine) -> Reply {
    let (result, quit) = run(registry, state, command);
    let text = match result {
        Ok(text) => response::format(true, command.id, &text),
        Err(message) => response::format(false, command.id, &message),
    };
    Reply { text, quit }
}

fn run<S>(
    registry: &Registry<S>,
    state: &mut S,
    command: &CommandLine,
) -> (Result<String, String>, bool) {
    let id = &registry.identity;
    let result = match command.name.as_str() {
        "protocol_version" => Ok(id.protocol_version.to_string()),
        "name" => Ok(id.name.to_string()),
        "version" => Ok(id.version.to_string()),
        "known_command" => match command.args.first() {
            Some(name) => Ok(registry.knows(name).to_string()),
            None => Err("missing argument: command name".to_string()),
        },
        "list_commands" => Ok(registry.list()),
        "help" => Ok(registry.help()),
        "quit" => return (Ok(String::new()), true),
        name => match registry.find(name) {
            Some(cmd) => (cmd.handler)(state, &command.args),
            None => Err(format!("unknown command: {name}")),
        },
    };
    (result, false)
}

/// What the reader thread passes to the loop.
enum Input {
    Line(String),
    TooLong,
}

/// Reads one line of at most [`MAX_LINE`] bytes (lossy UTF-8); `None` at end of input.
fn read_line(input: &mut impl BufRead) -> Option<Input> {
    let mut buf = Vec::new();
    let n = std::io::Read::take(&mut *input, MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)
        .ok()?;
    if n == 0 {
        return None;
    }
    if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
        // Skip the rest of the overlong line.
        let mut rest = Vec::new();
        let _ = input.read_until(b'\n', &mut rest);
        return Some(Input::TooLong);
    }
    Some(Input::Line(String::from_utf8_lossy(&buf).into_owned()))
}

/// The counter behind a lock, even if a thread panicked while holding it.
fn lock(counter: &Mutex<u64>) -> MutexGuard<'_, u64> {
    counter.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Serves commands from `input` to `output` until `quit` or end of input. `stop` is raised
/// when the controller sends `# interrupt`, so that the running search returns early; a
/// command sent before the interrupt but not yet started also starts with `stop` raised,
/// and commands sent after it start with `stop` lowered. The end of input stops nothing:
/// the commands already sent are all answered in full, whenever the input closes.
pub fn serve<S, R, W>(
    registry: &Registry<S>,
    state: &mut S,
    input: R,
    mut output: W,
    stop: StopFlag,
) -> std::io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write,
{
    let (tx, rx) = mpsc::channel();
    // How many lines had been passed on when the latest `# interrupt` came: the commands
    // among them are stopped, whether running or still queued; later ones are not. The lock
    // orders the reader's raise against the loop's lower.
    let interrupted_after = Arc::new(Mutex::new(0u64));
    let reader_interrupted = interrupted_after.clone();
    let reader_stop = stop.clone();
    thread::spawn(move || {
        let mut input = input;
        let mut passed = 0u64;
        while let Some(item) = read_line(&mut input) {
            if let Input::Line(text) = &item {
                if line::is_interrupt(text) {
                    *lock(&reader_interrupted) = passed;
                    reader_stop.raise();
                    continue;
                }
            }
            passed += 1;
            if tx.send((passed, item)).is_err() {
                return;
            }
        }
    });
    for (number, item) in rx {
        {
            let after = lock(&interrupted_after);
            if number <= *after {
                stop.raise();
            } else {
                stop.lower();
            }
        }
        let reply = match item {
            Input::Line(text) => {
                line::parse(&text).map(|command| respond(registry, state, &command))
            }
            Input::TooLong => Some(Reply {
                text: response::format(false, None, &format!("line longer than {MAX_LINE} bytes")),
                quit: false,
            }),
        };
        if let Some(reply) = reply {
            output.write_all(reply.text.as_bytes())?;
            output.flush()?;
            if reply.quit {
                break;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::registry::{Command, Identity};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    fn echo(count: &mut u32, args: &[String]) -> Result<String, String> {
        *count += 1;
        match args.first() {
            Some(a) if a == "fail" => Err("asked to fail".into()),
            _ => Ok(args.join(" ")),
        }
    }

    const COMMANDS: [Command<u32>; 1] = [Command {
        name: "echo",
        usage: "echo ARGS",
        handler: echo,
    }];

    fn registry() -> Registry<u32> {
        Registry {
            identity: Identity {
                name: "test",
                version: "1",
                protocol_version: "2",
            },
            commands: &COMMANDS,
        }
    }

    fn transcript(input: &str) -> (String, u32) {
        let mut count = 0;
        let mut out = Vec::new();
        let stop = StopFlag::default();
        serve(
            &registry(),
            &mut count,
            std::io::Cursor::new(input.as_bytes().to_vec()),
            &mut out,
            stop,
        )
        .unwrap();
        (String::from_utf8(out).unwrap(), count)
    }

    #[test]
    fn dispatch_and_framing() {
        let (out, count) = transcript(
            "1 echo a b\n\n# comment\necho fail\nnope\nknown_command echo\nknown_command nope\n",
        );
        assert_eq!(
            out,
            "=1 a b\n\n? asked to fail\n\n? unknown command: nope\n\n= true\n\n= false\n\n"
        );
        assert_eq!(count, 2);
    }

    #[test]
    fn list_commands_includes_registered_ones() {
        let (out, _) = transcript("list_commands\n");
        assert!(out.starts_with("= protocol_version\n"));
        assert!(out.ends_with("quit\necho\n\n"));
    }

    #[test]
    fn every_line_is_one_command() {
        let (out, count) = transcript("echo a\nb c\n0000\necho e\n");
        assert_eq!(
            out,
            "= a\n\n? unknown command: b\n\n? unknown command: 0000\n\n= e\n\n"
        );
        assert_eq!(count, 2);
    }

    #[test]
    fn quit_stops_reading() {
        let (out, count) = transcript("quit\necho after\n");
        assert_eq!(out, "= \n\n");
        assert_eq!(count, 0);
    }

    /// Flags shared by [`LateEnd`] input and the command that waits for it.
    #[derive(Clone, Default)]
    struct Handshake {
        command_started: Arc<AtomicBool>,
        reader_done: Arc<AtomicBool>,
    }

    /// Input whose end is only seen once a command is running; it records when the reader
    /// thread is done with it (has dropped it).
    struct LateEnd {
        input: std::io::Cursor<Vec<u8>>,
        handshake: Handshake,
    }

    impl std::io::Read for LateEnd {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.input.read(buf)?;
            while n == 0 && !self.handshake.command_started.load(Ordering::SeqCst) {
                thread::yield_now();
            }
            Ok(n)
        }
    }

    impl Drop for LateEnd {
        fn drop(&mut self) {
            self.handshake.reader_done.store(true, Ordering::SeqCst);
        }
    }

    /// Lets the input end, waits for the reader thread to finish, then reports whether the
    /// stop flag is up.
    fn stop_after_input_ended(
        state: &mut (StopFlag, Handshake),
        _args: &[String],
    ) -> Result<String, String> {
        state.1.command_started.store(true, Ordering::SeqCst);
        while !state.1.reader_done.load(Ordering::SeqCst) {
            thread::yield_now();
        }
        Ok(state.0.is_raised().to_string())
    }

    /// Serves `input` to `wait` commands; each answers whether the stop flag was up once
    /// the whole input had been read.
    fn stop_seen_by_waits(input: &[u8]) -> String {
        const WAIT: [Command<(StopFlag, Handshake)>; 1] = [Command {
            name: "wait",
            usage: "wait",
            handler: stop_after_input_ended,
        }];
        let registry = Registry {
            identity: Identity {
                name: "test",
                version: "1",
                protocol_version: "2",
            },
            commands: &WAIT,
        };
        let handshake = Handshake::default();
        let input = LateEnd {
            input: std::io::Cursor::new(input.to_vec()),
            handshake: handshake.clone(),
        };
        let stop = StopFlag::default();
        let mut state = (stop.clone(), handshake);
        let mut out = Vec::new();
        serve(
            &registry,
            &mut state,
            std::io::BufReader::new(input),
            &mut out,
            stop,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_end_of_input_does_not_stop_the_running_command() {
        assert_eq!(stop_seen_by_waits(b"wait\n"), "= false\n\n");
    }

    #[test]
    fn an_interrupt_stops_the_commands_sent_before_it_only() {
        // Whether the interrupt is read before or after the first `wait` starts, that
        // command is stopped; the one sent after the interrupt is not.
        assert_eq!(
            stop_seen_by_waits(b"wait\n# interrupt\nwait\n"),
            "= true\n\n= false\n\n"
        );
    }

    #[test]
    fn overlong_lines_are_refused_and_the_loop_goes_on() {
        let long = "x".repeat(MAX_LINE + 10);
        let (out, _) = transcript(&format!("{long}\nname\n"));
        assert_eq!(
            out,
            format!("? line longer than {MAX_LINE} bytes\n\n= test\n\n")
        );
    }
}
