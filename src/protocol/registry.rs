//! One table of commands per protocol: it drives dispatch, `list_commands` and
//! `known_command`, so the three can never disagree.

/// A command handler: the engine state and the arguments in, the response text (success) or
/// the error message (failure) out.
pub type Handler<S> = fn(&mut S, &[String]) -> Result<String, String>;

/// One registered command.
pub struct Command<S> {
    /// The command name as sent by controllers.
    pub name: &'static str,
    /// What it does, with its arguments (shown by `help`).
    pub usage: &'static str,
    /// The handler.
    pub handler: Handler<S>,
}

/// What a protocol exposes beyond its commands: identity for the built-in commands.
pub struct Identity {
    /// Answer to `name`.
    pub name: &'static str,
    /// Answer to `version`.
    pub version: &'static str,
    /// Answer to `protocol_version`.
    pub protocol_version: &'static str,
}

impl Identity {
    /// tmbot's identity: name `tmbot`, the crate version, protocol version 2.
    pub const TMBOT: Identity = Identity {
        name: "tmbot",
        version: env!("CARGO_PKG_VERSION"),
        protocol_version: "2",
    };
}

/// The commands every GTP-style protocol has, answered by the session itself.
pub const BUILT_INS: [&str; 7] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "help",
    "quit",
];

/// A protocol's command table.
pub struct Registry<S: 'static> {
    /// Identity answered by the built-in commands.
    pub identity: Identity,
    /// The protocol's own commands, in the order `list_commands` prints them.
    pub commands: &'static [Command<S>],
}

impl<S> Registry<S> {
    /// The handler of `name`, if it is one of the protocol's own commands.
    pub fn find(&self, name: &str) -> Option<&Command<S>> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// True if `name` is a built-in or registered command.
    pub fn knows(&self, name: &str) -> bool {
        BUILT_INS.contains(&name) || self.find(name).is_some()
    }

    /// Every command name, built-ins first, one per line.
    pub fn list(&self) -> String {
        BUILT_INS
            .iter()
            .copied()
            .chain(self.commands.iter().map(|c| c.name))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Each command with its usage, one per line.
    pub fn help(&self) -> String {
        self.commands
            .iter()
            .map(|c| format!("{} - {}", c.name, c.usage))
            .collect::<Vec<_>>()
            .join("\n")
    }
}
