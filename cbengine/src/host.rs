//! The host side of the CheckerBoard API: loads an engine library (tmbot's own, or any other
//! built for CheckerBoard's interface such as Cake or simplech), passes it positions through
//! `getmove` and reads back its moves, so that tmbot's harness can play such engines.

use crate::board::{read_board, square_at, write_board, CbBoard, CbMove, CB_BLACK, CB_WHITE};
use libloading::Library;
use std::ffi::{c_char, c_int, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};
use tmbot::game::checkers::{Move, Position};
use tmbot::game::Color;
use tmbot::stop::StopFlag;

/// `getmove(board, color, maxtime, str, playnow, info, moreinfo, move)`.
pub type GetMove = unsafe extern "C" fn(
    *mut CbBoard,
    c_int,
    f64,
    *mut c_char,
    *const c_int,
    c_int,
    c_int,
    *mut CbMove,
) -> c_int;

/// `enginecommand(command, reply)`.
pub type EngineCommand = unsafe extern "C" fn(*const c_char, *mut c_char) -> c_int;

/// `info` bit 0 of `getmove`: the game did not follow on from the engine's last move (a new
/// game, a set-up position), so the engine forgets its history.
const INFO_RESET: c_int = 1;

/// Bytes of the text buffers handed to the library (CheckerBoard passes 1,024).
const TEXT_BUFFER: usize = 1024;

/// How often a running `getmove` looks at the stop flag to raise the library's `playnow`.
const STOP_POLL: Duration = Duration::from_millis(5);

/// A loaded CheckerBoard engine library.
pub struct EngineLibrary {
    getmove: GetMove,
    enginecommand: Option<EngineCommand>,
    path: PathBuf,
    // Declared last: the function pointers above must not outlive the library.
    _library: Library,
}

/// The engine's answer to one `getmove`.
#[derive(Clone, Debug)]
pub struct EngineMove {
    /// The move, one of the position's legal moves.
    pub mv: Move,
    /// The status line the engine wrote (its search figures).
    pub status: String,
    /// The engine's verdict: `CB_WIN`, `CB_LOSS`, `CB_DRAW` or `CB_UNKNOWN`.
    pub verdict: c_int,
}

impl EngineLibrary {
    /// Loads the library at `path`; it must export `getmove` (`enginecommand` is optional).
    pub fn load(path: &Path) -> Result<EngineLibrary, String> {
        let named = |err: libloading::Error| format!("{}: {err}", path.display());
        // A path without a directory would be searched for on the system's library path.
        let path = if path.components().count() == 1 {
            Path::new(".").join(path)
        } else {
            path.to_path_buf()
        };
        // SAFETY: loading runs the library's initialisers; a CheckerBoard engine library is
        // plain C that sets up its own state.
        let library = unsafe { Library::new(&path) }.map_err(named)?;
        // SAFETY: the symbols are declared with CheckerBoard's documented signatures.
        let getmove = *unsafe { library.get::<GetMove>(b"getmove\0") }.map_err(named)?;
        // SAFETY: as above.
        let enginecommand = unsafe { library.get::<EngineCommand>(b"enginecommand\0") }
            .ok()
            .map(|symbol| *symbol);
        Ok(EngineLibrary {
            getmove,
            enginecommand,
            path,
            _library: library,
        })
    }

    /// Where the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sends `text` through `enginecommand`: the reply when the engine understood it, `None`
    /// when it did not (or exports no `enginecommand`).
    pub fn command(&self, text: &str) -> Option<String> {
        let function = self.enginecommand?;
        let command = CString::new(text).ok()?;
        let mut reply = vec![0 as c_char; TEXT_BUFFER];
        // SAFETY: a NUL-terminated command and a reply buffer of TEXT_BUFFER bytes, the
        // sizes CheckerBoard passes.
        let understood = unsafe { function(command.as_ptr(), reply.as_mut_ptr()) };
        (understood != 0).then(|| buffer_text(&mut reply))
    }

    /// The engine's name (`enginecommand name`), or the library's file name.
    pub fn name(&self) -> String {
        self.command("name")
            .map(|name| name.lines().next().unwrap_or_default().trim().to_string())
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| {
                self.path
                    .file_stem()
                    .map_or("engine".to_string(), |s| s.to_string_lossy().into_owned())
            })
    }

    /// Asks the engine for its move in `position` (its side to move) within about
    /// `maxtime` seconds; `new_game` tells it that the position does not follow from its
    /// last move. Raising `stop`, or the move lasting `cap` (engines take `maxtime` as an
    /// average and may overrun it several times over), sets the engine's `playnow`, so it
    /// answers at once.
    pub fn getmove(
        &self,
        position: &Position,
        maxtime: f64,
        cap: Duration,
        new_game: bool,
        stop: &StopFlag,
    ) -> Result<EngineMove, String> {
        let color = match position.side_to_move() {
            Color::Black => CB_BLACK,
            Color::White => CB_WHITE,
        };
        let mut board: CbBoard = [[0; 8]; 8];
        write_board(position, &mut board);
        let before = board;
        let mut status = vec![0 as c_char; TEXT_BUFFER];
        let mut cb_move = CbMove::default();
        let playnow = AtomicI32::new(0);
        let thinking = std::sync::atomic::AtomicBool::new(true);
        let started = Instant::now();
        let verdict = std::thread::scope(|scope| {
            scope.spawn(|| {
                while thinking.load(Ordering::Acquire) {
                    if stop.is_raised() || started.elapsed() >= cap {
                        playnow.store(1, Ordering::Release);
                    }
                    std::thread::sleep(STOP_POLL);
                }
            });
            // SAFETY: every pointer is valid for the call: a board, a 1,024-byte status
            // buffer, `playnow` (an AtomicI32 has the layout of a C int, and the engine only
            // reads it) and a CbMove.
            let verdict = unsafe {
                (self.getmove)(
                    &mut board,
                    color,
                    maxtime,
                    status.as_mut_ptr(),
                    playnow.as_ptr().cast_const(),
                    if new_game { INFO_RESET } else { 0 },
                    0,
                    &mut cb_move,
                )
            };
            thinking.store(false, Ordering::Release);
            verdict
        });
        let status = buffer_text(&mut status);
        let changed = (board != before).then_some(&board);
        let mv = identify_move(position, changed, &cb_move)?;
        Ok(EngineMove {
            mv,
            status,
            verdict,
        })
    }
}

/// The text a library wrote into `buffer`, trimmed (the last byte is made a NUL first, in
/// case the library wrote none).
fn buffer_text(buffer: &mut [c_char]) -> String {
    if let Some(last) = buffer.last_mut() {
        *last = 0;
    }
    // SAFETY: the buffer is NUL-terminated (its last byte at the latest).
    unsafe { CStr::from_ptr(buffer.as_ptr()) }
        .to_string_lossy()
        .trim()
        .to_string()
}

/// The legal move of `before` that an engine answered: by the board it wrote back when it
/// wrote one (`after`), else by its `CbMove` (origin, destination and, among captures that
/// share both, the squares landed on). Engines differ in which of the two they fill in.
pub fn identify_move(
    before: &Position,
    after: Option<&CbBoard>,
    cb_move: &CbMove,
) -> Result<Move, String> {
    let legal = before.legal_moves();
    if legal.is_empty() {
        return Err("the engine moved in a position without legal moves".to_string());
    }
    let path: Vec<Option<u8>> = cb_move.path[1..=cb_move.jumps.clamp(0, 11) as usize]
        .iter()
        .map(|&c| square_at(c))
        .collect();
    let lands_on_path = |mv: &Move| {
        let squares = mv.squares();
        squares.len() == path.len() + 1
            && squares[1..].iter().zip(&path).all(|(s, p)| Some(*s) == *p)
    };
    let candidates: Vec<Move> = match after {
        Some(board) => {
            let position = read_board(board, before.side_to_move().opponent())
                .map_err(|err| format!("the engine's board: {err}"))?;
            let reaching: Vec<Move> = legal
                .into_iter()
                .filter(|mv| before.after(mv) == position)
                .collect();
            if reaching.is_empty() {
                return Err(format!(
                    "the engine's board is not one legal move away: {}",
                    tmbot::game::checkers::to_fen(&position)
                ));
            }
            reaching
        }
        None => {
            let (from, to) = (square_at(cb_move.from), square_at(cb_move.to));
            let matching: Vec<Move> = legal
                .into_iter()
                .filter(|mv| Some(mv.from()) == from && Some(mv.to()) == to)
                .collect();
            if matching.is_empty() {
                return Err(format!(
                    "the engine's move ({:?} to {:?}, {} jumps) is not legal here",
                    from, to, cb_move.jumps
                ));
            }
            matching
        }
    };
    Ok(candidates
        .iter()
        .find(|mv| lands_on_path(mv))
        .copied()
        .unwrap_or(candidates[0]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{coor, describe_move};
    use tmbot::game::checkers::Checkers;

    fn position(fen: &str) -> Position {
        *Checkers::from_fen(fen).unwrap().position()
    }

    #[test]
    fn a_move_is_found_from_the_board_or_from_the_move_alone() {
        let start = Position::start();
        for mv in start.legal_moves() {
            let described = describe_move(&start, &mv);
            let mut board = [[0; 8]; 8];
            write_board(&start.after(&mv), &mut board);
            assert_eq!(identify_move(&start, Some(&board), &described), Ok(mv));
            assert_eq!(identify_move(&start, None, &described), Ok(mv));
        }
    }

    #[test]
    fn captures_with_one_origin_and_end_are_told_apart_by_their_path() {
        // The man on 2 takes two men either way round to 18: 2x11x18 or 2x9x18.
        let before = position("B:W6,7,14,15:B2");
        let captures = before.legal_moves();
        assert_eq!(captures.len(), 2, "{captures:?}");
        assert_eq!(
            (captures[0].from(), captures[0].to()),
            (captures[1].from(), captures[1].to())
        );
        for mv in &captures {
            let described = describe_move(&before, mv);
            assert_eq!(identify_move(&before, None, &described), Ok(*mv));
        }
    }

    #[test]
    fn a_move_that_is_not_legal_is_refused_with_what_the_engine_said() {
        let start = Position::start();
        let bogus = CbMove {
            from: coor(1),
            to: coor(32),
            ..CbMove::default()
        };
        let err = identify_move(&start, None, &bogus).unwrap_err();
        assert!(err.contains("Some(1) to Some(32)"), "{err}");
        let mut board = [[0; 8]; 8];
        write_board(&Position::start(), &mut board);
        board[0][0] = 0;
        let err = identify_move(&start, Some(&board), &bogus).unwrap_err();
        assert!(err.contains("not one legal move away"), "{err}");
    }
}
