//! The match contract: every game the project plays (arena verbs, tournaments, baselines,
//! self-play, evolution, tests) goes through one referee, so records, faults and clocks
//! mean the same everywhere.
//!
//! - [`agent`]: the [`Agent`] interface, implemented by in-process players
//!   ([`PlayerAgent`]) and by external engines;
//! - [`choice`]: a move with what the search knew about it;
//! - [`clock`]: time controls and the game clock;
//! - [`record`]: the [`GameRecord`] of a finished game and its [`Termination`] class;
//! - [`referee`]: the one loop that plays a game from an opening under a clock;
//! - [`external`]: external engines over HTP or the checkers protocol;
//! - [`spec`]: agents built from spec strings;
//! - [`openings`]: opening books and their schedules.

pub mod agent;
pub mod choice;
pub mod clock;
pub mod external;
pub mod openings;
pub mod record;
pub mod referee;
pub mod spec;

pub use agent::{Agent, AgentError, PlayerAgent, Turn};
pub use choice::Choice;
pub use clock::{ClockView, GameClock, TimeControl};
pub use record::{GameRecord, MoveRecord, Termination};
pub use referee::{play_game, GameSettings};
pub use spec::{agent_from_spec, AgentGame, AgentOptions};
