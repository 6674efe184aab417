//! The referee: plays one game between two agents from an opening under a clock and the
//! adjudication rules, and returns its [`GameRecord`]. Every game the project plays goes
//! through [`play_game`].

use super::agent::{Agent, AgentError, Turn};
use super::clock::{GameClock, TimeControl};
use super::record::{GameRecord, GameResult, MoveRecord, Termination};
use crate::game::{Color, Game, Reason};
use crate::rng::substream;
use crate::stop::StopFlag;
use rand::Rng as _;
use std::time::{Duration, Instant};

/// The rules a game is played under besides the game's own.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The clock.
    pub time_control: TimeControl,
    /// How far an answer may overrun the clock before the move is lost.
    pub margin: Duration,
    /// How long an untimed agent may think before it counts as stalled.
    pub stall: Duration,
    /// Plies (book moves included) after which the game is adjudicated a draw.
    pub max_plies: Option<usize>,
    /// Adjudicate a position the game reports decided ([`Game::decided_winner`]).
    pub adjudicate_decided: bool,
    /// Raised to stop the game (Ctrl-C): it ends as [`Termination::Interrupt`].
    pub stop: Option<StopFlag>,
}

impl Default for GameSettings {
    fn default() -> GameSettings {
        GameSettings {
            time_control: TimeControl::Unlimited,
            margin: Duration::from_millis(100),
            stall: Duration::from_secs(60),
            max_plies: None,
            adjudicate_decided: false,
            stop: None,
        }
    }
}

/// The seed agent `seat` (0 Black, 1 White) gets for the game seeded `seed`.
pub fn agent_seed(seed: u64, seat: usize) -> u64 {
    substream(seed, seat as u64).random()
}

/// Plays one game from `start` after the book moves `opening`: `agents[0]` plays Black and
/// `agents[1]` White. Faults end the game as a loss of the agent at fault, classified by
/// [`AgentError::termination`]; a stop request ends it without a result.
pub fn play_game<G: Game>(
    start: &G,
    opening: &[G::Move],
    agents: [&mut dyn Agent<G>; 2],
    settings: &GameSettings,
    seed: u64,
) -> GameRecord<G::Move> {
    let [black, white] = agents;
    let mut seats: [&mut dyn Agent<G>; 2] = [black, white];
    let mut record = GameRecord {
        start: start.position_text(),
        opening: opening.to_vec(),
        moves: Vec::with_capacity(128),
        players: [seats[0].name().to_string(), seats[1].name().to_string()],
        result: GameResult::Unfinished,
        termination: Termination::Normal,
        detail: String::new(),
        seed,
    };
    let (result, termination, detail) = referee(start, &mut seats, settings, &mut record);
    record.result = result;
    record.termination = termination;
    record.detail = detail;
    for seat in seats.iter_mut() {
        seat.end_game(termination);
    }
    record
}

/// The loss of `color` for a fault.
fn fault(color: Color, error: &AgentError, timed: bool) -> (GameResult, Termination, String) {
    (
        GameResult::win(color.opponent()),
        error.termination(timed),
        format!("{color}: {error}"),
    )
}

fn referee<G: Game>(
    start: &G,
    seats: &mut [&mut dyn Agent<G>; 2],
    settings: &GameSettings,
    record: &mut GameRecord<G::Move>,
) -> (GameResult, Termination, String) {
    let timed = settings.time_control.is_timed();
    for (seat, color) in Color::BOTH.into_iter().enumerate() {
        if let Err(error) = seats[seat].new_game(start, agent_seed(record.seed, seat)) {
            return fault(color, &error, timed);
        }
    }
    // An external engine learns its name when it starts.
    for (seat, name) in record.players.iter_mut().enumerate() {
        if name != seats[seat].name() {
            *name = seats[seat].name().to_string();
        }
    }
    let mut game = start.clone();
    let mut moves: Vec<G::Move> = Vec::with_capacity(128);
    for &mv in &record.opening {
        game.play(mv);
        moves.push(mv);
    }
    let mut clock = GameClock::new(settings.time_control, settings.margin, settings.stall);
    // One clock reading per move: a move's time runs from the end of the previous one, so
    // the referee's own bookkeeping (microseconds) is charged to the next mover.
    let mut mark = Instant::now();
    loop {
        if let Some(outcome) = game.outcome() {
            let termination = match outcome.reason {
                Reason::Repetition | Reason::NoProgress => Termination::Adjudication,
                _ => Termination::Normal,
            };
            let result = outcome.winner.map_or(GameResult::Draw, GameResult::win);
            return (result, termination, reason_text(outcome.reason).to_string());
        }
        if settings.adjudicate_decided {
            if let Some(winner) = game.decided_winner() {
                return (
                    GameResult::win(winner),
                    Termination::Adjudication,
                    format!("decided: {} can no longer win", winner.opponent()),
                );
            }
        }
        if settings.max_plies.is_some_and(|cap| moves.len() >= cap) {
            return (
                GameResult::Draw,
                Termination::Adjudication,
                format!("ply limit {}", moves.len()),
            );
        }
        if settings.stop.as_ref().is_some_and(StopFlag::is_raised) {
            return (
                GameResult::Unfinished,
                Termination::Interrupt,
                "stopped".to_string(),
            );
        }
        let color = game.side_to_move();
        let seat = color.index();
        let turn = Turn {
            start,
            moves: &moves,
            game: &game,
            clock: clock.view(color),
        };
        let answer = seats[seat].genmove(&turn);
        let now = Instant::now();
        let used = now - mark;
        mark = now;
        let choice = match answer {
            Ok(choice) => choice,
            Err(AgentError::Interrupted) => {
                return (
                    GameResult::Unfinished,
                    Termination::Interrupt,
                    format!("{color}: interrupted"),
                )
            }
            Err(error) => return fault(color, &error, timed),
        };
        if let Err(why) = clock.charge(color, used) {
            return (GameResult::win(color.opponent()), Termination::Timeout, why);
        }
        let Some(mv) = choice.mv else {
            return (
                GameResult::win(color.opponent()),
                Termination::Normal,
                format!("{color} resigns"),
            );
        };
        game.play(mv);
        moves.push(mv);
        record.moves.push(MoveRecord {
            mv,
            decision: choice.decision,
            time: used,
        });
    }
}

/// A reason in the words records use.
fn reason_text(reason: Reason) -> &'static str {
    match reason {
        Reason::Connection => "connection",
        Reason::NoLegalMove => "no legal move",
        Reason::Resignation => "resignation",
        Reason::Repetition => "threefold repetition",
        Reason::NoProgress => "no progress",
    }
}
