//! External engines as agents, driven over tmbot's two protocols (HTP for Hex, the checkers
//! board-string protocol), both GTP-framed.
//!
//! ```text
//! external:cmd="mohex --quiet",init="param_mohex max_time 1",protocol=htp
//! ```
//!
//! Options: `cmd` (required; split shell-style and run directly, without a shell), `init`
//! (commands sent once after start-up, separated by `;`, each must succeed), `protocol`
//! (`htp` or `checkers`; defaults from the game), `name` (the name records use; default the
//! engine's own `name` and `version`, or the program's file name until it has started),
//! `dir` (working directory; a relative `cmd` program with a folder still starts from the
//! controller's), `startup` (how long the first answer and the init commands
//! may take, default 10s), `ping` (how long any command but `genmove` may take, default 5s),
//! `restart` (`on`, the default: an engine that faulted is killed and started again before
//! its next game; `off`: its next games fail at setup), `seed` (`per-game`: send
//! `param_tmbot seed N` with each game's seed, so that a tmbot engine plays as the same
//! player in process would; `off`, the default).
//!
//! An engine starts at its first game and is kept between games. Each game starts with the
//! game's setup commands (`boardsize W H` and `clear_board` for Hex, `clear_board` and a
//! `setboard FEN` off the standard start for checkers); before each `genmove` the moves the
//! engine has not seen are sent as `play` commands and, in games with a clock, both clocks
//! as `time_left` (when the engine knows it), all in one write. Any fault (no answer, a
//! closed pipe, broken framing, an illegal move) kills the engine at once.
//!
//! - [`process`]: spawning, the registry of live children, the interrupt handler;
//! - [`channel`]: the line transport (pipes, or an in-process engine for tests);
//! - [`client`]: the GTP framing with ids and typed errors.

pub mod channel;
pub mod client;
pub mod process;

pub use channel::{ChannelError, LineChannel, MemoryChannel, PipeChannel};
pub use client::{Client, ClientError};
pub use process::{
    install_interrupt_handler, kill_all, live_children, split_command, EngineProcess, Launch,
};

use super::agent::{Agent, AgentError, Turn};
use super::choice::Choice;
use super::clock::TimeControl;
use crate::game::checkers::Checkers;
use crate::game::hex::{Hex, SwapRule};
use crate::game::Game;
use crate::player::spec::{parse_duration, parse_switch, Spec, SpecError};
use crate::protocol::engine::ProtocolGame;
use crate::stop::StopFlag;
use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The spec name of external engines.
pub const SPEC_NAME: &str = "external";

/// How long a closing engine may take to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// The protocols external engines speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The Hex Text Protocol (Benzene, MoHex, HexGui; `tmbot hex`).
    Htp,
    /// tmbot's checkers protocol (GTP framing, FEN positions, PDN moves; `tmbot checkers`).
    Checkers,
}

impl Protocol {
    /// The name specs use: `htp` or `checkers`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Htp => "htp",
            Protocol::Checkers => "checkers",
        }
    }

    /// Parses a protocol name.
    pub fn parse(text: &str) -> Result<Protocol, String> {
        match text.to_ascii_lowercase().as_str() {
            "htp" => Ok(Protocol::Htp),
            "checkers" => Ok(Protocol::Checkers),
            _ => Err(format!(
                "unknown protocol '{text}' (expected htp or checkers)"
            )),
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What differs between the games' protocols.
pub trait ExternalGame: ProtocolGame {
    /// The protocol engines of this game speak.
    const PROTOCOL: Protocol;

    /// The commands that start a game from `start` whatever the engine did before; `Err`
    /// when the protocol cannot set up such a start.
    fn setup_commands(start: &Self) -> Result<Vec<String>, String>;

    /// The command that plays `mv` in this position (the mover is the side to move).
    fn play_command(&self, mv: Self::Move) -> String;

    /// The command asking for the move of the side to move.
    fn genmove_command(&self) -> String {
        format!("genmove {}", self.side_to_move().name())
    }

    /// Reads the answer to `genmove` in this position: `None` for `resign`, else a legal
    /// move; `Err` says why the text is not one.
    fn parse_genmove(&self, answer: &str) -> Result<Option<Self::Move>, String> {
        let answer = answer.trim();
        if answer.eq_ignore_ascii_case("resign") {
            return Ok(None);
        }
        self.parse_move(answer).map(Some).map_err(|e| e.to_string())
    }
}

impl ExternalGame for Hex {
    const PROTOCOL: Protocol = Protocol::Htp;

    fn setup_commands(start: &Hex) -> Result<Vec<String>, String> {
        if start.board().empty_cells().len() != start.cell_count() {
            return Err(
                "an external Hex engine's game must start on an empty board (openings are \
                 sent as moves)"
                    .to_string(),
            );
        }
        let mut commands = vec![
            format!("boardsize {} {}", start.width(), start.height()),
            "clear_board".to_string(),
        ];
        match start.swap_rule() {
            SwapRule::Off => {}
            SwapRule::Benzene => commands.push("param_game allow_swap 1".to_string()),
            SwapRule::HexGui => {
                return Err("HexGui's swap rule has no HTP setting; use Benzene's".to_string())
            }
        }
        Ok(commands)
    }

    fn play_command(&self, mv: Self::Move) -> String {
        format!(
            "play {} {}",
            self.side_to_move().name(),
            self.move_to_text(mv)
        )
    }
}

impl ExternalGame for Checkers {
    const PROTOCOL: Protocol = Protocol::Checkers;

    fn setup_commands(start: &Checkers) -> Result<Vec<String>, String> {
        let mut commands = vec!["clear_board".to_string()];
        let fen = start.position_text();
        if fen != Checkers::new().position_text() {
            commands.push(format!("setboard {fen}"));
        }
        Ok(commands)
    }

    fn play_command(&self, mv: Self::Move) -> String {
        format!("play {}", self.move_to_text(mv))
    }
}

/// An external engine's settings from its spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// The command line as given.
    pub cmd: String,
    /// The program, arguments and working directory.
    pub launch: Launch,
    /// Commands sent once after start-up.
    pub init: Vec<String>,
    /// The protocol, when the spec names one.
    pub protocol: Option<Protocol>,
    /// The name records use, when the spec gives one.
    pub name: Option<String>,
    /// How long the first answer and each init command may take.
    pub startup: Duration,
    /// How long any command but `genmove` may take.
    pub ping: Duration,
    /// Restart an engine that faulted before its next game.
    pub restart: bool,
    /// Send each game's seed as `param_tmbot seed N`.
    pub seed_per_game: bool,
}

impl EngineConfig {
    /// Reads the spec's options (nothing is started).
    pub fn from_spec(spec: &Spec) -> Result<EngineConfig, SpecError> {
        if spec.name != SPEC_NAME {
            return Err(SpecError::new(&spec.name, "not an external engine spec"));
        }
        let mut cmd = None;
        let mut dir = None;
        let mut config = EngineConfig {
            cmd: String::new(),
            launch: Launch {
                program: PathBuf::new(),
                args: Vec::new(),
                dir: None,
            },
            init: Vec::new(),
            protocol: None,
            name: None,
            startup: Duration::from_secs(10),
            ping: Duration::from_secs(5),
            restart: true,
            seed_per_game: false,
        };
        for (key, value) in &spec.options {
            let bad = |why: String| SpecError::new(format!("{key}={value}"), why);
            match key.as_str() {
                "cmd" => cmd = Some(value.clone()),
                "init" => {
                    config.init = value
                        .split(';')
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                        .map(str::to_string)
                        .collect();
                }
                "protocol" => config.protocol = Some(Protocol::parse(value).map_err(bad)?),
                "name" if value.trim().is_empty() => return Err(bad("empty name".into())),
                "name" => config.name = Some(value.trim().to_string()),
                "dir" => dir = Some(PathBuf::from(value)),
                "startup" => config.startup = parse_duration(value).map_err(bad)?,
                "ping" => config.ping = parse_duration(value).map_err(bad)?,
                "restart" => config.restart = parse_switch(value).map_err(bad)?,
                "seed" => {
                    config.seed_per_game = match value.as_str() {
                        "per-game" => true,
                        "off" => false,
                        _ => return Err(bad("expected per-game or off".into())),
                    }
                }
                _ => {
                    return Err(SpecError::new(
                        key,
                        "unknown option; known: cmd, init, protocol, name, dir, startup, \
                         ping, restart, seed",
                    ))
                }
            }
        }
        let cmd = cmd.ok_or_else(|| {
            SpecError::new(
                &spec.name,
                "missing cmd=\"PROGRAM ARGS\" (the engine's command line)",
            )
        })?;
        config.launch = Launch::parse(&cmd, dir.as_deref())
            .map_err(|e| SpecError::new(format!("cmd={cmd}"), e))?;
        config.cmd = cmd;
        Ok(config)
    }
}

/// A running engine: its process and the client on its pipes.
struct Session {
    process: EngineProcess,
    client: Client<PipeChannel>,
    knows_time_left: bool,
}

impl Session {
    /// Starts the engine: waits for its first answer, learns its name, version and whether
    /// it knows `time_left`, then sends the init commands. Returns the session and the
    /// engine's name (with its version).
    fn start(config: &EngineConfig) -> Result<(Session, String), String> {
        let (process, channel) = EngineProcess::spawn(&config.launch)?;
        let mut session = Session {
            process,
            client: Client::new(channel),
            knows_time_left: false,
        };
        match session.handshake(config) {
            Ok(name) => Ok((session, name)),
            Err(error) => {
                let message = session.describe(&error);
                session.process.kill();
                Err(message)
            }
        }
    }

    fn handshake(&mut self, config: &EngineConfig) -> Result<String, ClientError> {
        let client = &mut self.client;
        let startup = Instant::now() + config.startup;
        // Any answer shows that the engine is up; GTP 1 engines may not know the command.
        optional(client.command("protocol_version", config.startup))?;
        client.send(&["name", "version", "known_command time_left"])?;
        let ping = Instant::now() + config.ping;
        let name = optional(client.answer(ping, None))?;
        let version = optional(client.answer(ping, None))?;
        let known = optional(client.answer(ping, None))?;
        self.knows_time_left = known.as_deref() == Some("true");
        if !config.init.is_empty() {
            client.run(&config.init, startup.max(Instant::now() + config.startup))?;
        }
        let first_line = |text: Option<String>| {
            text.and_then(|t| t.lines().next().map(|l| l.trim().to_string()))
                .filter(|t| !t.is_empty())
        };
        Ok(match (first_line(name), first_line(version)) {
            (Some(name), Some(version)) => format!("{name} {version}"),
            (Some(name), None) => name,
            (None, _) => config.launch.program_name(),
        })
    }

    /// `error` in words, with what the engine last wrote on standard error.
    fn describe(&self, error: &ClientError) -> String {
        let tail = self.process.stderr().text();
        if tail.is_empty() {
            error.to_string()
        } else {
            format!("{error} (engine stderr: {tail})")
        }
    }

    /// Asks the engine to quit; kills it if it has not exited within [`QUIT_GRACE`].
    fn close(mut self) {
        let deadline = Instant::now() + QUIT_GRACE;
        if self.client.quit(QUIT_GRACE) {
            // The output is closed; the exit follows at once unless the engine only closed
            // its output and lives on.
            while !self.process.try_reap() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        self.process.kill();
    }
}

/// An answer that may be a failure: `?` answers read as `None`.
fn optional(answer: Result<String, ClientError>) -> Result<Option<String>, ClientError> {
    match answer {
        Ok(text) => Ok(Some(text)),
        Err(ClientError::Failed { .. }) => Ok(None),
        Err(error) => Err(error),
    }
}

/// The state of the game being played.
struct Board<G> {
    /// The position after the moves sent so far.
    game: G,
    /// How many moves of the game the engine knows (its own included).
    sent: usize,
}

/// An external engine playing through its protocol.
pub struct ExternalEngine<G: ExternalGame> {
    config: EngineConfig,
    name: String,
    stop: Option<StopFlag>,
    session: Option<Session>,
    board: Option<Board<G>>,
    /// Why the engine was last killed for a fault.
    fault: Option<String>,
}

impl<G: ExternalGame> ExternalEngine<G> {
    /// The engine of `spec` (started at its first game); fails when the spec's protocol is
    /// not the game's.
    pub fn from_spec(spec: &Spec) -> Result<ExternalEngine<G>, SpecError> {
        let config = EngineConfig::from_spec(spec)?;
        if let Some(protocol) = config.protocol {
            if protocol != G::PROTOCOL {
                return Err(SpecError::new(
                    format!("protocol={protocol}"),
                    format!("this game's engines speak {}", G::PROTOCOL),
                ));
            }
        }
        Ok(ExternalEngine::new(config))
    }

    /// The engine of `config`.
    pub fn new(config: EngineConfig) -> ExternalEngine<G> {
        ExternalEngine {
            name: config
                .name
                .clone()
                .unwrap_or_else(|| config.launch.program_name()),
            config,
            stop: None,
            session: None,
            board: None,
            fault: None,
        }
    }

    /// Raising `stop` ends a wait for `genmove` at once (the engine is then killed).
    pub fn with_stop(mut self, stop: StopFlag) -> ExternalEngine<G> {
        self.stop = Some(stop);
        self
    }

    /// The settings.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The process id of the running engine, if one runs.
    pub fn pid(&self) -> Option<u32> {
        self.session.as_ref().map(|s| s.process.pid())
    }

    /// Why the engine was last killed for a fault.
    pub fn last_fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    /// Kills the engine for a fault described by `why`.
    fn kill(&mut self, why: String) {
        if let Some(mut session) = self.session.take() {
            session.process.kill();
        }
        self.board = None;
        self.fault = Some(why);
    }

    /// Kills the engine after `error` and returns the agent error it amounts to.
    fn fail(&mut self, error: ClientError) -> AgentError {
        let message = self
            .session
            .as_ref()
            .map_or_else(|| error.to_string(), |s| s.describe(&error));
        self.kill(message.clone());
        match error {
            ClientError::Transport { .. } => AgentError::Transport(message),
            ClientError::Closed { .. } => AgentError::Closed(message),
            ClientError::Timeout { command, after } => AgentError::NoAnswer { command, after },
            ClientError::Protocol { .. } | ClientError::Failed { .. } => {
                AgentError::Protocol(message)
            }
            ClientError::Interrupted { .. } => AgentError::Interrupted,
        }
    }

    /// The running session, started if need be.
    fn session(&mut self) -> Result<&mut Session, AgentError> {
        if self.session.is_none() {
            if let (Some(why), false) = (&self.fault, self.config.restart) {
                return Err(AgentError::Setup(format!(
                    "the engine faulted earlier and restart=off: {why}"
                )));
            }
            let (session, name) = Session::start(&self.config).map_err(|why| {
                self.fault = Some(why.clone());
                AgentError::Setup(why)
            })?;
            if self.config.name.is_none() {
                self.name = name;
            }
            self.session = Some(session);
        }
        Ok(self.session.as_mut().expect("started above"))
    }
}

impl<G: ExternalGame> Agent<G> for ExternalEngine<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn start(&mut self) -> Result<(), AgentError> {
        self.session().map(|_| ())
    }

    fn new_game(&mut self, start: &G, seed: u64) -> Result<(), AgentError> {
        self.board = None;
        let mut commands = G::setup_commands(start).map_err(AgentError::Setup)?;
        if self.config.seed_per_game {
            commands.push(format!("param_tmbot seed {seed}"));
        }
        let ping = self.config.ping;
        let session = self.session()?;
        if let Err(error) = session.client.run(&commands, Instant::now() + ping) {
            return Err(match self.fail(error) {
                AgentError::Interrupted => AgentError::Interrupted,
                error => AgentError::Setup(error.to_string()),
            });
        }
        self.board = Some(Board {
            game: start.clone(),
            sent: 0,
        });
        Ok(())
    }

    fn genmove(&mut self, turn: &Turn<'_, G>) -> Result<Choice<G::Move>, AgentError> {
        let (Some(session), Some(board)) = (self.session.as_mut(), self.board.as_mut()) else {
            return Err(AgentError::Setup(
                "the engine has no game (new_game failed or was not called)".to_string(),
            ));
        };
        let Some(unsent) = turn.moves.get(board.sent..) else {
            return Err(AgentError::Setup(format!(
                "the game has {} moves but the engine was sent {}",
                turn.moves.len(),
                board.sent
            )));
        };
        let mut commands = Vec::with_capacity(unsent.len() + 3);
        for &mv in unsent {
            commands.push(board.game.play_command(mv));
            board.game.play(mv);
        }
        board.sent = turn.moves.len();
        let mover = board.game.side_to_move();
        if let (TimeControl::Period { .. }, true) = (turn.clock.control, session.knows_time_left) {
            for (color, left) in [
                (mover, turn.clock.remaining),
                (mover.opponent(), turn.clock.opponent_remaining),
            ] {
                let seconds = left.unwrap_or_default().as_secs_f64();
                commands.push(format!("time_left {} {seconds:.3}", color.name()));
            }
        }
        commands.push(board.game.genmove_command());
        let deadline = Instant::now() + turn.clock.deadline;
        let stop = self.stop.as_ref();
        let answer = session.client.send(&commands).and_then(|()| {
            for _ in 1..commands.len() {
                session.client.answer(deadline, stop)?;
            }
            session.client.answer(deadline, stop)
        });
        let text = match answer {
            Ok(text) => text,
            Err(error) => return Err(self.fail(error)),
        };
        match board.game.parse_genmove(&text) {
            Ok(Some(mv)) => {
                board.game.play(mv);
                board.sent += 1;
                Ok(Choice::bare(mv))
            }
            Ok(None) => Ok(Choice::resign()),
            Err(why) => {
                let why = if why.contains(text.trim()) {
                    why
                } else {
                    format!("'{text}': {why}")
                };
                self.kill(format!("illegal move {why}"));
                Err(AgentError::Illegal(why))
            }
        }
    }

    fn end_game(&mut self, _termination: super::record::Termination) {
        self.board = None;
    }
}

impl<G: ExternalGame> Drop for ExternalEngine<G> {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            session.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(spec: &str) -> Result<EngineConfig, SpecError> {
        EngineConfig::from_spec(&Spec::parse(spec).unwrap())
    }

    #[test]
    fn specs_give_every_option() {
        let c = config(
            r#"external:cmd="'/opt/mo hex/mohex' --quiet",init="a 1; b 2;",protocol=htp,name=Mo,dir=/tmp,startup=2s,ping=500ms,restart=off,seed=per-game"#,
        )
        .unwrap();
        assert_eq!(c.launch.program, PathBuf::from("/opt/mo hex/mohex"));
        assert_eq!(c.launch.args, ["--quiet"]);
        assert_eq!(c.launch.dir, Some(PathBuf::from("/tmp")));
        assert_eq!(c.init, ["a 1", "b 2"]);
        assert_eq!(c.protocol, Some(Protocol::Htp));
        assert_eq!(c.name.as_deref(), Some("Mo"));
        assert_eq!(c.startup, Duration::from_secs(2));
        assert_eq!(c.ping, Duration::from_millis(500));
        assert!(!c.restart && c.seed_per_game);
        let d = config(r#"external:cmd="tmbot hex""#).unwrap();
        assert_eq!(
            (d.startup, d.ping),
            (Duration::from_secs(10), Duration::from_secs(5))
        );
        assert!(d.restart && !d.seed_per_game && d.init.is_empty() && d.protocol.is_none());
        let engine = ExternalEngine::<Hex>::new(d);
        assert_eq!(engine.name(), "tmbot");
        assert_eq!(engine.pid(), None);
    }

    #[test]
    fn bad_specs_are_clear_errors() {
        let part = |spec: &str| config(spec).unwrap_err().part;
        assert_eq!(part("external:init=x"), "external");
        assert_eq!(part(r#"external:cmd="a 'b""#), "cmd=a 'b");
        assert_eq!(part("external:cmd=a,protocol=gtp"), "protocol=gtp");
        assert_eq!(part("external:cmd=a,startup=soon"), "startup=soon");
        assert_eq!(part("external:cmd=a,restart=maybe"), "restart=maybe");
        assert_eq!(part("external:cmd=a,seed=7"), "seed=7");
        assert_eq!(part("external:cmd=a,colour=red"), "colour");
        let err = ExternalEngine::<Hex>::from_spec(
            &Spec::parse("external:cmd=a,protocol=checkers").unwrap(),
        )
        .err()
        .unwrap();
        assert_eq!(err.part, "protocol=checkers");
        assert!(err.message.contains("speak htp"), "{err}");
        assert!(ExternalEngine::<Checkers>::from_spec(
            &Spec::parse("external:cmd=a,protocol=checkers").unwrap()
        )
        .is_ok());
    }

    #[test]
    fn hex_commands() {
        let mut game = Hex::new(5, 4).unwrap();
        assert_eq!(
            Hex::setup_commands(&game).unwrap(),
            ["boardsize 5 4", "clear_board"]
        );
        let swap = game.clone().with_swap(SwapRule::Benzene);
        assert_eq!(
            Hex::setup_commands(&swap).unwrap()[2],
            "param_game allow_swap 1"
        );
        assert!(Hex::setup_commands(&game.clone().with_swap(SwapRule::HexGui)).is_err());
        let mv = game.parse_move("c2").unwrap();
        assert_eq!(game.play_command(mv), "play black c2");
        assert_eq!(game.genmove_command(), "genmove black");
        game.play(mv);
        assert!(Hex::setup_commands(&game).is_err());
        assert_eq!(game.genmove_command(), "genmove white");
        assert_eq!(
            game.parse_genmove(" D3 ").unwrap(),
            game.parse_move("d3").ok()
        );
        assert_eq!(game.parse_genmove("RESIGN").unwrap(), None);
        assert!(game.parse_genmove("c2").unwrap_err().contains("occupied"));
        assert!(game.parse_genmove("z99").is_err());
    }

    #[test]
    fn checkers_commands() {
        let game = Checkers::new();
        assert_eq!(Checkers::setup_commands(&game).unwrap(), ["clear_board"]);
        let kings = Checkers::from_position_text("W:WK27:BK6").unwrap();
        assert_eq!(
            Checkers::setup_commands(&kings).unwrap(),
            ["clear_board", "setboard W:WK27:BK6"]
        );
        let mv = game.parse_move("11-15").unwrap();
        assert_eq!(game.play_command(mv), "play 11-15");
        assert_eq!(game.genmove_command(), "genmove black");
        assert_eq!(game.parse_genmove("resign").unwrap(), None);
        assert!(game.parse_genmove("11-19").is_err());
    }
}
