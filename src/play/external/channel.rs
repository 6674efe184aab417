//! The line transport between a controller and an engine: whole lines written in batches,
//! lines read with a deadline. [`PipeChannel`] talks to a child process through its pipes;
//! [`MemoryChannel`] talks to an engine written in Rust on a thread (for tests).

use crossbeam_channel::{unbounded, Receiver, RecvTimeoutError, Sender};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::{ChildStdin, ChildStdout};
use std::thread;
use std::time::Instant;
use thiserror::Error;

/// Why a channel could not deliver a line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ChannelError {
    /// Writing or reading failed (a broken pipe: the engine is gone or closed its input).
    #[error("{0}")]
    Transport(String),
    /// The engine closed its output (it exited).
    #[error("the engine closed its output")]
    Closed,
    /// No line came before the deadline.
    #[error("no line before the deadline")]
    Timeout,
}

/// A two-way line transport.
pub trait LineChannel: Send {
    /// Writes `text` (whole lines, each ending in `\n`) and flushes it.
    fn send(&mut self, text: &str) -> Result<(), ChannelError>;

    /// The next line (without its line end), waiting until `deadline` at most.
    fn recv(&mut self, deadline: Instant) -> Result<String, ChannelError>;
}

/// What the reader thread passes on: a line, or the read error that ended the stream.
type Incoming = Result<String, String>;

/// The pipes of a child process. A thread reads the child's output lines into a channel,
/// so reads can wait with a deadline; writes go through a buffer flushed once per batch.
#[derive(Debug)]
pub struct PipeChannel {
    input: BufWriter<ChildStdin>,
    lines: Receiver<Incoming>,
}

impl PipeChannel {
    /// Wraps a child's standard input and output; `pid` names the reader thread.
    pub fn new(stdin: ChildStdin, stdout: ChildStdout, pid: u32) -> Result<PipeChannel, String> {
        let (sender, lines) = unbounded();
        thread::Builder::new()
            .name(format!("engine-{pid}-stdout"))
            .spawn(move || read_lines(BufReader::new(stdout), &sender))
            .map_err(|e| format!("cannot start a thread for the engine: {e}"))?;
        Ok(PipeChannel {
            input: BufWriter::new(stdin),
            lines,
        })
    }
}

/// Forwards lines until the end of the stream (the sender is then dropped, which the
/// receiving side sees as [`ChannelError::Closed`]) or a read error.
fn read_lines(mut reader: impl BufRead, sender: &Sender<Incoming>) {
    let mut buffer = Vec::with_capacity(256);
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer);
                let line = line.trim_end_matches(['\n', '\r']).to_string();
                if sender.send(Ok(line)).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                let _ = sender.send(Err(format!("reading from the engine failed: {e}")));
                return;
            }
        }
    }
}

/// Waits for the next message of `lines` until `deadline`.
fn receive<T>(lines: &Receiver<T>, deadline: Instant) -> Result<T, ChannelError> {
    match lines.recv_deadline(deadline) {
        Ok(item) => Ok(item),
        Err(RecvTimeoutError::Timeout) => Err(ChannelError::Timeout),
        Err(RecvTimeoutError::Disconnected) => Err(ChannelError::Closed),
    }
}

impl LineChannel for PipeChannel {
    fn send(&mut self, text: &str) -> Result<(), ChannelError> {
        self.input
            .write_all(text.as_bytes())
            .and_then(|()| self.input.flush())
            .map_err(|e| ChannelError::Transport(format!("writing to the engine failed: {e}")))
    }

    fn recv(&mut self, deadline: Instant) -> Result<String, ChannelError> {
        // Lines already read are delivered even past the deadline.
        if let Ok(item) = self.lines.try_recv() {
            return item.map_err(ChannelError::Transport);
        }
        receive(&self.lines, deadline)?.map_err(ChannelError::Transport)
    }
}

/// A channel to an engine that runs on a thread of this process: `engine` gets each
/// command line and answers with the text to write back (any number of lines, each ending
/// in `\n`; empty to write nothing), or `None` to close its output and stop.
#[derive(Debug)]
pub struct MemoryChannel {
    commands: Sender<String>,
    lines: Receiver<String>,
}

impl MemoryChannel {
    /// Starts `engine` on its own thread.
    pub fn connect<F>(mut engine: F) -> MemoryChannel
    where
        F: FnMut(&str) -> Option<String> + Send + 'static,
    {
        let (commands, inbox) = unbounded::<String>();
        let (outbox, lines) = unbounded::<String>();
        thread::spawn(move || {
            'serve: while let Ok(command) = inbox.recv() {
                let Some(reply) = engine(&command) else {
                    break;
                };
                for line in reply.lines() {
                    if outbox.send(line.to_string()).is_err() {
                        break 'serve;
                    }
                }
            }
            // Input first: once the output is seen closed, writes fail.
            drop(inbox);
            drop(outbox);
        });
        MemoryChannel { commands, lines }
    }
}

impl LineChannel for MemoryChannel {
    fn send(&mut self, text: &str) -> Result<(), ChannelError> {
        for line in text.lines() {
            self.commands.send(line.to_string()).map_err(|_| {
                ChannelError::Transport("writing to the engine failed: it stopped".into())
            })?;
        }
        Ok(())
    }

    fn recv(&mut self, deadline: Instant) -> Result<String, ChannelError> {
        if let Ok(line) = self.lines.try_recv() {
            return Ok(line);
        }
        receive(&self.lines, deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A deadline for lines that are on their way (reached only if something is wrong).
    fn far() -> Instant {
        Instant::now() + Duration::from_secs(30)
    }

    #[test]
    fn a_memory_engine_answers_line_by_line_and_can_close() {
        let mut channel = MemoryChannel::connect(|line| match line {
            "quit" => None,
            "silent" => Some(String::new()),
            other => Some(format!("= {other}\n\n")),
        });
        channel.send("a\nb\n").unwrap();
        let got: Vec<String> = (0..4).map(|_| channel.recv(far()).unwrap()).collect();
        assert_eq!(got, ["= a", "", "= b", ""]);
        channel.send("silent\n").unwrap();
        let soon = Instant::now() + Duration::from_millis(20);
        assert_eq!(channel.recv(soon), Err(ChannelError::Timeout));
        channel.send("quit\n").unwrap();
        assert_eq!(channel.recv(far()), Err(ChannelError::Closed));
        // The engine dropped its input before its output: writing fails.
        assert!(matches!(
            channel.send("x\n"),
            Err(ChannelError::Transport(_))
        ));
    }

    #[test]
    fn the_reader_strips_line_ends_and_reports_the_end() {
        let (sender, lines) = unbounded();
        read_lines(&b"= x\r\n\nlast"[..], &sender);
        drop(sender);
        let got: Vec<Incoming> = lines.iter().collect();
        assert_eq!(
            got,
            [
                Ok("= x".to_string()),
                Ok(String::new()),
                Ok("last".to_string())
            ]
        );
    }
}
