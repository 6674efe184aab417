//! Engine processes: command lines split shell-style, children spawned with pipes, a
//! registry of every live child so that none outlives the controller, and the Ctrl-C
//! handler that uses it.
//!
//! Children are spawned in their own process group (a terminal's Ctrl-C reaches only the
//! controller, which decides what to do) and, on Linux, with `PR_SET_PDEATHSIG` so that
//! they are killed when the controller dies, even by `SIGKILL`. The death signal follows
//! the thread that forked, so every child is forked by one spawner thread that lives as long
//! as the process.

use super::channel::PipeChannel;
use crate::stop::StopFlag;
use crossbeam_channel::{bounded, unbounded, Sender};
use std::collections::{BTreeSet, VecDeque};
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread;

/// Lines of an engine's standard error kept for error messages.
const STDERR_TAIL_LINES: usize = 20;

/// Splits a command line into words as a POSIX shell would for simple words: blanks
/// separate words, single quotes keep everything literally, double quotes keep everything
/// but `\"` and `\\` escapes, and a backslash outside quotes escapes the next character.
/// No expansion of any kind is done.
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated ' in command '{line}'")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unterminated \" in command '{line}'")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated \" in command '{line}'")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(format!("command '{line}' ends with a backslash")),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("empty command".to_string());
    }
    Ok(words)
}

/// The registry of live children: their process ids.
fn registry() -> MutexGuard<'static, BTreeSet<u32>> {
    static LIVE: OnceLock<Mutex<BTreeSet<u32>>> = OnceLock::new();
    LIVE.get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The process ids of every engine started and not yet reaped.
pub fn live_children() -> Vec<u32> {
    registry().iter().copied().collect()
}

/// Kills and reaps every registered child (at an emergency exit).
pub fn kill_all() {
    let mut live = registry();
    for pid in std::mem::take(&mut *live) {
        kill_and_reap(pid);
    }
}

/// Kills and reaps the registered child `pid`.
#[cfg_attr(not(unix), allow(unused_variables))]
fn kill_and_reap(pid: u32) {
    kill_group(pid);
    #[cfg(unix)]
    // SAFETY: waits for a child of this process that is still registered, so not yet
    // reaped: the id cannot have been reused.
    unsafe {
        libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0);
    }
}

/// Kills the process group of the registered child `pid` (the child and anything it
/// started), so no helper of an engine survives it.
#[cfg_attr(not(unix), allow(unused_variables))]
fn kill_group(pid: u32) {
    #[cfg(unix)]
    // SAFETY: a plain system call; the child leads its own group (`process_group(0)`) and is
    // not yet reaped, so the group id cannot have been reused.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

/// Installs the Ctrl-C (and `SIGTERM`) handler of a controller: the first signal raises
/// `stop` (games then end as interrupted), the second kills every registered child and exits
/// with status 130. Fails when a handler was installed already.
pub fn install_interrupt_handler(stop: StopFlag) -> Result<(), String> {
    ctrlc::set_handler(move || {
        if stop.is_raised() {
            kill_all();
            std::process::exit(130);
        }
        eprintln!("interrupted: finishing the games in progress (again to kill the engines)");
        stop.raise();
    })
    .map_err(|e| format!("cannot install the interrupt handler: {e}"))
}

/// What the engine wrote last on its standard error.
#[derive(Clone, Debug, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    /// The kept lines, joined by ` | ` (empty when the engine wrote nothing).
    pub fn text(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        lines
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" | ")
    }

    fn drain(self, stderr: ChildStderr) {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
            if lines.len() == STDERR_TAIL_LINES {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    }
}

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory (the controller's when `None`).
    pub dir: Option<PathBuf>,
}

impl Launch {
    /// The launch of a command line (see [`split_command`]).
    pub fn parse(command: &str, dir: Option<&Path>) -> Result<Launch, String> {
        let mut words = split_command(command)?.into_iter();
        let program = PathBuf::from(words.next().expect("split_command gives a word"));
        Ok(Launch {
            program,
            args: words.collect(),
            dir: dir.map(Path::to_path_buf),
        })
    }

    /// The program's file name (`mohex` for `/usr/bin/mohex --quiet`).
    pub fn program_name(&self) -> String {
        self.program.file_name().map_or_else(
            || self.program.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// The program to run: a relative path with a folder in it (`target/release/cbhost`)
    /// is taken from the controller's working directory, whatever `dir` the engine runs
    /// in; a bare name is looked up on `PATH`.
    fn resolved_program(&self) -> PathBuf {
        let relative_with_folder =
            self.program.is_relative() && self.program.components().count() > 1;
        match std::env::current_dir() {
            Ok(here) if relative_with_folder && self.dir.is_some() => here.join(&self.program),
            _ => self.program.clone(),
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(self.resolved_program());
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
            #[cfg(target_os = "linux")]
            {
                // SAFETY: getpid is async-signal-safe.
                let parent = unsafe { libc::getpid() };
                // SAFETY: the closure runs in the forked child before exec and only makes
                // async-signal-safe system calls; it allocates nothing.
                unsafe {
                    command.pre_exec(move || {
                        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0
                        {
                            return Err(io::Error::last_os_error());
                        }
                        // The parent may have died before the death signal was armed.
                        if libc::getppid() != parent {
                            return Err(io::Error::from_raw_os_error(libc::ESRCH));
                        }
                        Ok(())
                    });
                }
            }
        }
        command
    }
}

/// A request to the spawner thread.
type SpawnRequest = (Command, Sender<io::Result<Child>>);

/// Spawns `command` from the one long-lived spawner thread and registers the child.
fn spawn_registered(command: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<Mutex<Sender<SpawnRequest>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (requests, inbox) = unbounded::<SpawnRequest>();
        thread::Builder::new()
            .name("engine-spawner".into())
            .spawn(move || {
                for (mut command, reply) in inbox {
                    // Registered before the reply leaves, under the registry lock, so that
                    // kill_all never misses a child that exists.
                    let mut live = registry();
                    let child = command.spawn();
                    if let Ok(child) = &child {
                        live.insert(child.id());
                    }
                    drop(live);
                    let _ = reply.send(child);
                }
            })
            .expect("the engine spawner thread starts");
        Mutex::new(requests)
    });
    let (reply, answer) = bounded(1);
    spawner
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((command, reply))
        .map_err(|_| io::Error::other("the engine spawner thread is gone"))?;
    answer
        .recv()
        .map_err(|_| io::Error::other("the engine spawner thread is gone"))?
}

/// A running engine process. Dropping it kills and reaps the process if that was not done.
#[derive(Debug)]
pub struct EngineProcess {
    child: Child,
    pid: u32,
    stderr: StderrTail,
    reaped: bool,
}

impl EngineProcess {
    /// Starts `launch` with piped standard streams; standard error is drained by a thread
    /// into [`EngineProcess::stderr`]. Returns the process and its line channel.
    pub fn spawn(launch: &Launch) -> Result<(EngineProcess, PipeChannel), String> {
        let mut child = spawn_registered(launch.command())
            .map_err(|e| format!("cannot start '{}': {e}", launch.program.display()))?;
        let pid = child.id();
        let (stdin, stdout, stderr) = (
            child.stdin.take().expect("stdin is piped"),
            child.stdout.take().expect("stdout is piped"),
            child.stderr.take().expect("stderr is piped"),
        );
        let tail = StderrTail::default();
        let drain = tail.clone();
        let spawned = thread::Builder::new()
            .name(format!("engine-{pid}-stderr"))
            .spawn(move || drain.drain(stderr));
        let mut process = EngineProcess {
            child,
            pid,
            stderr: tail,
            reaped: false,
        };
        if let Err(e) = spawned {
            process.kill();
            return Err(format!("cannot start a thread for the engine: {e}"));
        }
        match PipeChannel::new(stdin, stdout, pid) {
            Ok(channel) => Ok((process, channel)),
            Err(e) => {
                process.kill();
                Err(e)
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The engine's last lines on standard error.
    pub fn stderr(&self) -> &StderrTail {
        &self.stderr
    }

    /// Reaps the process if it has exited; true once it is reaped.
    pub fn try_reap(&mut self) -> bool {
        if !self.reaped {
            let mut live = registry();
            if !live.contains(&self.pid) {
                // kill_all reaped it.
                self.reaped = true;
            } else if let Ok(Some(_)) = self.child.try_wait() {
                live.remove(&self.pid);
                self.reaped = true;
            }
        }
        self.reaped
    }

    /// Kills the process and its process group (if it still runs) and reaps it.
    pub fn kill(&mut self) {
        if self.reaped {
            return;
        }
        let mut live = registry();
        if live.remove(&self.pid) {
            kill_group(self.pid);
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        self.reaped = true;
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_command_lines_like_a_shell() {
        let words = |s: &str| split_command(s).unwrap();
        assert_eq!(words("mohex --quiet"), ["mohex", "--quiet"]);
        assert_eq!(words("  a   b\tc "), ["a", "b", "c"]);
        assert_eq!(
            words(r#"x "a b" 'c "d"' e\ f"#),
            ["x", "a b", "c \"d\"", "e f"]
        );
        assert_eq!(words(r#""q\"\\" '' z"#), ["q\"\\", "", "z"]);
        assert_eq!(words(r#"a"b"'c'"#), ["abc"]);
        assert!(split_command("").is_err());
        assert!(split_command("  ").is_err());
        assert!(split_command("a 'b").is_err());
        assert!(split_command("a \"b").is_err());
        assert!(split_command("a\\").is_err());
    }

    #[test]
    fn launches_name_their_program_by_its_file_name() {
        let launch = Launch::parse("/usr/local/bin/mohex --quiet", None).unwrap();
        assert_eq!(launch.program_name(), "mohex");
        assert_eq!(launch.args, ["--quiet"]);
    }

    #[test]
    fn relative_programs_with_a_folder_start_from_the_controller_s_folder() {
        let here = std::env::current_dir().unwrap();
        let launch = Launch::parse("bin/engine --x", Some(Path::new("/tmp"))).unwrap();
        assert_eq!(launch.resolved_program(), here.join("bin/engine"));
        let bare = Launch::parse("mohex", Some(Path::new("/tmp"))).unwrap();
        assert_eq!(bare.resolved_program(), PathBuf::from("mohex"));
        let stay = Launch::parse("bin/engine", None).unwrap();
        assert_eq!(stay.resolved_program(), PathBuf::from("bin/engine"));
    }

    #[test]
    fn a_missing_program_is_a_clear_error() {
        let launch = Launch::parse("/nonexistent/engine-xyz", None).unwrap();
        let err = EngineProcess::spawn(&launch).unwrap_err();
        assert!(
            err.contains("cannot start '/nonexistent/engine-xyz'"),
            "{err}"
        );
    }
}
