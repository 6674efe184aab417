//! The engine behind the library functions: one player, the game history CheckerBoard sent,
//! and the seeded random generator, kept between calls.

use crate::board::{describe_move, read_board, write_board, CbBoard, CbMove};
use crate::{CB_DRAW, CB_LOSS, CB_UNKNOWN, CB_WIN};
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;
use tmbot::game::checkers::{Checkers, Position};
use tmbot::game::{Color, Game};
use tmbot::player::Player;
use tmbot::protocol::checkers::game_history;
use tmbot::protocol::engine::{ProtocolGame, AFTER_DEADLINE_SHARE};
use tmbot::rng::{seeded, Rng};
use tmbot::search::Limits;
use tmbot::stop::StopFlag;

/// What `getmove` hands back to CheckerBoard.
pub struct Played {
    /// The position after the move.
    pub board: CbBoard,
    /// The move.
    pub cb_move: CbMove,
    /// A one-line status for CheckerBoard's status bar.
    pub status: String,
    /// `CB_WIN`, `CB_LOSS`, `CB_DRAW` or `CB_UNKNOWN`.
    pub result: c_int,
}

/// The engine's state between calls.
pub struct Engine {
    player: Player<Checkers>,
    seed: u64,
    rng: Rng,
    history: Option<Checkers>,
    hash_mb: u64,
    book: u64,
}

impl Engine {
    fn new() -> Engine {
        Engine {
            player: Player::from_spec(Checkers::DEFAULT_PLAYER)
                .expect("the default player spec is valid"),
            seed: 1,
            rng: seeded(1),
            history: None,
            hash_mb: 64,
            book: 0,
        }
    }

    /// The game to search from: the history CheckerBoard sent if it ends in `position`
    /// (so repetitions count), else a game starting at `position`.
    fn game_at(&self, position: Position) -> Checkers {
        match &self.history {
            Some(game) if *game.position() == position => game.clone(),
            _ => Checkers::from_position(position),
        }
    }

    /// Plays a move for `side` on `board`.
    pub fn getmove(
        &mut self,
        board: &CbBoard,
        side: Color,
        maxtime: f64,
        stop: StopFlag,
    ) -> Result<Played, String> {
        let position = read_board(board, side).map_err(|e| e.to_string())?;
        let game = self.game_at(position);
        let seconds = if maxtime.is_finite() {
            maxtime.clamp(0.01, 3600.0)
        } else {
            1.0
        };
        // Leave the same margin as the protocol engine for freeing the search tree.
        let time = Duration::from_secs_f64(seconds * (1.0 - AFTER_DEADLINE_SHARE));
        let limits = Limits {
            time: Some(time),
            stop: Some(stop),
            ..Limits::default()
        };
        let Some(mv) = self.player.choose(&game, &limits, &mut self.rng) else {
            let result = match game.outcome().and_then(|o| o.winner) {
                None if game.outcome().is_some() => CB_DRAW,
                Some(winner) if winner == side => CB_WIN,
                _ => CB_LOSS,
            };
            return Ok(Played {
                board: *board,
                cb_move: CbMove::default(),
                status: "tmbot: no move".into(),
                result,
            });
        };
        let mut after = game.clone();
        after.play(mv);
        let mut out = [[0; 8]; 8];
        write_board(after.position(), &mut out);
        let result = match after.outcome() {
            None => CB_UNKNOWN,
            Some(o) if o.winner == Some(side) => CB_WIN,
            Some(o) if o.winner.is_none() => CB_DRAW,
            Some(_) => CB_LOSS,
        };
        let status = format!("tmbot ({}): {}", self.player.spec(), game.move_to_text(mv));
        self.history = Some(after);
        Ok(Played {
            board: out,
            cb_move: describe_move(game.position(), &mv),
            status,
            result,
        })
    }

    /// Answers a text command; `None` for a command the engine does not know.
    pub fn command(&mut self, text: &str) -> Option<String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let answer = match words.as_slice() {
            ["name"] => "tmbot".to_string(),
            ["about"] => format!(
                "tmbot {}: Tsetlin Machine evaluators and classic searches for English checkers.\nplayer: {}",
                env!("CARGO_PKG_VERSION"),
                self.player.spec()
            ),
            ["help"] => "name, about, help, get/set protocolversion, gametype, hashsize, book, player, seed; set gamehist FEN [moves]".to_string(),
            ["get", "protocolversion"] => "2".to_string(),
            ["get", "gametype"] => "21".to_string(),
            ["get", "hashsize"] => self.hash_mb.to_string(),
            ["set", "hashsize", n] => match n.parse() {
                Ok(mb) => {
                    self.hash_mb = mb;
                    n.to_string()
                }
                Err(_) => format!("? bad hash size '{n}'"),
            },
            ["get", "book"] => self.book.to_string(),
            ["set", "book", n] => match n.parse() {
                Ok(b) => {
                    self.book = b;
                    n.to_string()
                }
                Err(_) => format!("? bad book setting '{n}'"),
            },
            ["get", "player"] => self.player.spec().to_string(),
            ["set", "player", spec @ ..] => match Player::from_spec(&spec.join(" ")) {
                Ok(player) => {
                    self.player = player;
                    self.player.spec().to_string()
                }
                Err(err) => format!("? {err}"),
            },
            ["get", "seed"] => self.seed.to_string(),
            ["set", "seed", n] => match n.parse() {
                Ok(seed) => {
                    self.seed = seed;
                    self.rng = seeded(seed);
                    n.to_string()
                }
                Err(_) => format!("? bad seed '{n}'"),
            },
            ["set", "gamehist", rest @ ..] => match game_history(rest) {
                Ok(game) => {
                    self.history = Some(game);
                    String::new()
                }
                Err(message) => {
                    self.history = None;
                    format!("? {message}")
                }
            },
            _ => return None,
        };
        Some(answer)
    }
}

static ENGINE: Mutex<Option<Engine>> = Mutex::new(None);

/// Runs `f` on the process's engine, creating it on first use (a poisoned lock is taken over:
/// a panic in one call must not disable the engine).
pub fn with_engine<T>(f: impl FnOnce(&mut Engine) -> T) -> T {
    let mut guard = ENGINE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(guard.get_or_insert_with(Engine::new))
}

/// Watches CheckerBoard's `playnow` flag on a thread while a search runs, and raises the
/// search's stop flag when it becomes non-zero.
pub struct StopWatcher {
    flag: StopFlag,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl StopWatcher {
    /// Starts watching `playnow` (nothing to watch when it is null).
    ///
    /// # Safety
    /// `playnow` must stay valid until the watcher is dropped.
    pub unsafe fn start(playnow: *const c_int) -> StopWatcher {
        let flag = StopFlag::default();
        let done = Arc::new(AtomicBool::new(false));
        let thread = (!playnow.is_null()).then(|| {
            let address = playnow as usize;
            let (flag, done) = (flag.clone(), Arc::clone(&done));
            thread::spawn(move || {
                while !done.load(Ordering::Acquire) {
                    // SAFETY: the caller keeps the int alive until this thread is joined.
                    if unsafe { std::ptr::read_volatile(address as *const c_int) } != 0 {
                        flag.raise();
                    }
                    thread::sleep(Duration::from_millis(5));
                }
            })
        });
        StopWatcher { flag, done, thread }
    }

    /// The stop flag to give the search.
    pub fn flag(&self) -> StopFlag {
        self.flag.clone()
    }
}

impl Drop for StopWatcher {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
