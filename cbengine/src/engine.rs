//! The engine behind the library functions: one player, the game history CheckerBoard sent,
//! and the seeded random generator, kept between calls.

use crate::board::{describe_move, read_board, write_board, CbBoard, CbMove};
use crate::{CB_DRAW, CB_LOSS, CB_UNKNOWN, CB_WIN};
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::Duration;
use tmbot::game::checkers::{Checkers, Position};
use tmbot::game::{Color, Game};
use tmbot::player::book::MoveBook;
use tmbot::player::spec::{Spec, SpecError};
use tmbot::player::{Player, MAX_TABLE_BITS, MIN_TABLE_BITS};
use tmbot::protocol::checkers::game_history;
use tmbot::protocol::engine::{ProtocolGame, AFTER_DEADLINE_SHARE};
use tmbot::rng::{seeded, Rng};
use tmbot::search::alphabeta::AlphaBeta;
use tmbot::search::Limits;
use tmbot::stop::StopFlag;

/// The most a move may take, in multiples of CheckerBoard's time a move (`cbhost` cuts a
/// move at twice its time).
pub const CRITICAL_MOVE_FACTOR: f64 = 2.0;

/// The paces `set pace` accepts: from a quarter of CheckerBoard's time a move to the most a
/// move may take.
const PACE_RANGE: std::ops::RangeInclusive<f64> = 0.25..=CRITICAL_MOVE_FACTOR;

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
    /// The player's spec as set, before [`Engine::sized`] adds the table size.
    asked: String,
    seed: u64,
    rng: Rng,
    history: Option<Checkers>,
    hash_mb: u64,
    book: u64,
    /// The share of CheckerBoard's time a move aims at ([`PACE_RANGE`]; 1: the time itself).
    pace: f64,
}

impl Engine {
    fn new() -> Engine {
        let mut engine = Engine {
            player: Player::from_spec(Checkers::DEFAULT_PLAYER)
                .expect("the default player spec is valid"),
            asked: Checkers::DEFAULT_PLAYER.to_string(),
            seed: 1,
            rng: seeded(1),
            history: None,
            hash_mb: 64,
            book: 1,
            pace: 1.0,
        };
        engine.player = engine
            .sized(Checkers::DEFAULT_PLAYER.to_string())
            .expect("the default player spec is valid");
        engine
    }

    /// The player of `spec`, its alpha-beta table sized to CheckerBoard's hash size when
    /// the spec sets none (`tt=`: the largest power of two of entries that fits).
    fn sized(&self, spec: String) -> Result<Player<Checkers>, SpecError> {
        let parsed = Spec::parse(&spec)?;
        let spec = if parsed.name == "alphabeta" && parsed.options.iter().all(|(k, _)| k != "tt") {
            let entries =
                self.hash_mb.saturating_mul(1 << 20) / AlphaBeta::<Checkers>::entry_bytes() as u64;
            let bits = entries.max(1).ilog2().clamp(MIN_TABLE_BITS, MAX_TABLE_BITS);
            let joint = if parsed.options.is_empty() { ':' } else { ',' };
            format!("{spec}{joint}tt={bits}")
        } else {
            spec
        };
        let mut player = Player::from_spec(&spec)?;
        player.set_book(self.book());
        Ok(player)
    }

    /// The built-in move book while CheckerBoard's book setting is on (1 to 3).
    fn book(&self) -> Option<Arc<MoveBook<Checkers>>> {
        (self.book > 0).then(builtin_book)
    }

    /// The game to search from: the history (CheckerBoard's `gamehist`, or the game this
    /// engine has been playing) when it ends in `position` or reaches it by one legal move,
    /// the opponent's reply to the engine's last move, which then joins the history; so
    /// repetitions and the draw rules count over the whole game. Else a game starting at
    /// `position`.
    fn game_at(&mut self, position: Position) -> Checkers {
        if let Some(game) = &mut self.history {
            let reply = game
                .position()
                .legal_moves()
                .into_iter()
                .find(|m| game.position().after(m) == position);
            if let Some(mv) = reply {
                game.play(mv);
            }
            if *game.position() == position {
                return game.clone();
            }
        }
        Checkers::from_position(position)
    }

    /// The search limits of a move under CheckerBoard's `maxtime` (seconds).
    fn limits(&self, maxtime: f64, stop: StopFlag) -> Limits {
        let seconds = if maxtime.is_finite() {
            maxtime.clamp(0.01, 3600.0)
        } else {
            1.0
        };
        // Leave the same margin as the protocol engine for freeing the search tree.
        let time = Duration::from_secs_f64(seconds * (1.0 - AFTER_DEADLINE_SHARE));
        // CheckerBoard's time (times the pace) is what a move aims at, as its engines read
        // it: a stable move stops sooner and a critical one may run on.
        Limits {
            time: Some(time.mul_f64(CRITICAL_MOVE_FACTOR)),
            target: Some(time.mul_f64(self.pace)),
            stop: Some(stop),
            ..Limits::default()
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
        let limits = self.limits(maxtime, stop);
        // One legal move (a forced capture, say) is played at once.
        let only = match game.position().legal_moves().as_slice() {
            &[mv] => Some(mv),
            _ => None,
        };
        let chosen = only.or_else(|| self.player.choose(&game, &limits, &mut self.rng));
        let Some(mv) = chosen else {
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
        let status = format!(
            "tmbot ({}): {}{}",
            self.player.spec(),
            game.move_to_text(mv),
            if only.is_some() {
                " (the only move)"
            } else {
                ""
            }
        );
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
            ["help"] => "name, about, help, get/set protocolversion, gametype, hashsize, book, pace, player, seed; set gamehist FEN [moves]".to_string(),
            ["get", "protocolversion"] => "2".to_string(),
            ["get", "gametype"] => "21".to_string(),
            ["get", "hashsize"] => self.hash_mb.to_string(),
            ["set", "hashsize", n] => match n.parse() {
                Ok(mb) => {
                    self.hash_mb = mb;
                    match self.sized(self.asked.clone()) {
                        Ok(player) => {
                            self.player = player;
                            n.to_string()
                        }
                        Err(err) => format!("? {err}"),
                    }
                }
                Err(_) => format!("? bad hash size '{n}'"),
            },
            ["get", "book"] => self.book.to_string(),
            ["set", "book", n] => match n.parse() {
                Ok(b) => {
                    self.book = b;
                    self.player.set_book(self.book());
                    n.to_string()
                }
                Err(_) => format!("? bad book setting '{n}'"),
            },
            ["get", "pace"] => self.pace.to_string(),
            ["set", "pace", n] => match n.parse::<f64>() {
                Ok(pace) if PACE_RANGE.contains(&pace) => {
                    self.pace = pace;
                    n.to_string()
                }
                _ => format!(
                    "? bad pace '{n}' (a share of the time a move, {} to {})",
                    PACE_RANGE.start(),
                    PACE_RANGE.end()
                ),
            },
            ["get", "player"] => self.player.spec().to_string(),
            ["set", "player", spec @ ..] => match self.sized(spec.join(" ")) {
                Ok(player) => {
                    self.player = player;
                    self.asked = spec.join(" ");
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

/// The project's checkers move book (`openings/checkers-book.txt`, made by `arena book`),
/// built into the library.
fn builtin_book() -> Arc<MoveBook<Checkers>> {
    static BOOK: OnceLock<Arc<MoveBook<Checkers>>> = OnceLock::new();
    BOOK.get_or_init(|| {
        Arc::new(
            MoveBook::parse(include_str!("../../openings/checkers-book.txt"))
                .expect("the built-in move book is valid (tested)"),
        )
    })
    .clone()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn board_of(game: &Checkers) -> CbBoard {
        let mut board = [[0; 8]; 8];
        write_board(game.position(), &mut board);
        board
    }

    #[test]
    fn the_built_in_book_answers_its_positions_while_the_setting_is_on() {
        let book = builtin_book();
        assert!(book.len() > 500, "{} positions", book.len());
        // The book starts at the end of every ballot (this one leaves White two captures).
        let mut game = Checkers::new();
        for mv in ["10-14", "24-20", "14-18"] {
            game.try_play(mv).unwrap();
        }
        let expected = book.probe(&game).expect("a ballot's end is in the book");
        let expected = describe_move(game.position(), &expected);
        let mut engine = Engine::new();
        engine.command("set player random").unwrap();
        let answers = |engine: &mut Engine| {
            (0..8)
                .map(|seed| {
                    engine.command(&format!("set seed {seed}")).unwrap();
                    let side = game.side_to_move();
                    engine
                        .getmove(&board_of(&game), side, 0.05, StopFlag::default())
                        .unwrap()
                        .cb_move
                })
                .collect::<Vec<_>>()
        };
        assert!(answers(&mut engine).iter().all(|m| *m == expected));
        assert_eq!(engine.command("set book 0").unwrap(), "0");
        assert!(answers(&mut engine).iter().any(|m| *m != expected));
    }

    #[test]
    fn the_game_grows_with_each_reply_so_repetitions_count() {
        let mut engine = Engine::new();
        engine.command("set player random").unwrap();
        let mut game = Checkers::new();
        for _ in 0..6 {
            let side = game.side_to_move();
            let played = engine
                .getmove(&board_of(&game), side, 0.05, StopFlag::default())
                .unwrap();
            let ours = game
                .position()
                .legal_moves()
                .into_iter()
                .find(|m| {
                    let mut after = [[0; 8]; 8];
                    write_board(&game.position().after(m), &mut after);
                    after == played.board
                })
                .expect("the engine's board follows by a legal move");
            game.play(ours);
            // The opponent's reply, which the engine sees only as the next board.
            let reply = game.position().legal_moves()[0];
            game.play(reply);
        }
        // Six of our moves and six replies: the engine's game holds the last reply too once
        // it is asked again, and not a game restarted at the current board.
        let side = game.side_to_move();
        engine
            .getmove(&board_of(&game), side, 0.05, StopFlag::default())
            .unwrap();
        assert_eq!(engine.history.as_ref().unwrap().ply(), 13);
        // A board that does not follow from the game starts a new one.
        let elsewhere = Checkers::from_fen("B:W18,24:B6").unwrap();
        engine
            .getmove(
                &board_of(&elsewhere),
                Color::Black,
                0.05,
                StopFlag::default(),
            )
            .unwrap();
        assert_eq!(engine.history.as_ref().unwrap().ply(), 1);
    }

    #[test]
    fn an_only_move_is_played_at_once() {
        let mut engine = Engine::new();
        // Black must take 14x23: no search (which would take its 60 s) is needed.
        let game = Checkers::from_fen("B:W18,30:B14").unwrap();
        assert_eq!(game.position().legal_moves().len(), 1);
        let played = engine
            .getmove(&board_of(&game), Color::Black, 60.0, StopFlag::default())
            .unwrap();
        assert!(
            played.status.contains("(the only move)"),
            "{}",
            played.status
        );
        assert!(played.status.contains("14x23"), "{}", played.status);
    }

    #[test]
    fn the_hash_size_sizes_the_search_table_unless_the_spec_does() {
        let mut engine = Engine::new();
        let bits = |mb: u64| {
            let entries = (mb << 20) / AlphaBeta::<Checkers>::entry_bytes() as u64;
            entries.ilog2().clamp(MIN_TABLE_BITS, MAX_TABLE_BITS)
        };
        assert!(engine.player.spec().ends_with(&format!(",tt={}", bits(64))));
        assert_eq!(engine.command("set hashsize 16").unwrap(), "16");
        assert_eq!(
            engine.command("get player").unwrap(),
            format!("alphabeta:eval=knowledge:patterns=built-in,tt={}", bits(16))
        );
        assert_eq!(engine.command("set hashsize 1").unwrap(), "1");
        assert!(engine.player.spec().ends_with(&format!("tt={}", bits(1))));
        // A spec's own table size stays; other players have no table.
        engine
            .command("set player alphabeta:depth=3,tt=12")
            .unwrap();
        assert_eq!(engine.player.spec(), "alphabeta:depth=3,tt=12");
        engine.command("set player alphabeta").unwrap();
        assert_eq!(engine.player.spec(), format!("alphabeta:tt={}", bits(1)));
        engine.command("set player mcts:playouts=10").unwrap();
        assert_eq!(engine.player.spec(), "mcts:playouts=10");
        assert!(engine
            .command("set hashsize lots")
            .unwrap()
            .starts_with('?'));
    }

    #[test]
    fn the_pace_scales_the_planned_time_and_not_the_limit() {
        let mut engine = Engine::new();
        assert_eq!(engine.command("get pace").unwrap(), "1");
        let at_one = engine.limits(0.5, StopFlag::default());
        assert_eq!(engine.command("set pace 1.5").unwrap(), "1.5");
        let longer = engine.limits(0.5, StopFlag::default());
        assert_eq!(longer.target, at_one.target.map(|t| t.mul_f64(1.5)));
        assert_eq!(longer.time, at_one.time);
        assert!(longer.target < longer.time);
        for bad in ["set pace 0.1", "set pace 2.5", "set pace fast"] {
            let answer = engine.command(bad).unwrap();
            assert!(answer.starts_with("? bad pace"), "{bad}: {answer}");
        }
        assert_eq!(engine.command("get pace").unwrap(), "1.5");
    }
}
