//! tmbot as a CheckerBoard engine library.
//!
//! CheckerBoard (and compatible hosts) load an engine as a shared library and call two
//! functions: [`getmove`] to play a move on the board it passes, and [`enginecommand`] for
//! text commands (`name`, `get protocolversion`, `set gamehist ...`). Both are backed by the
//! same players as the `tmbot` binary; the player is chosen with `set player SPEC`.

pub mod board;
mod engine;
pub mod host;
pub mod hosted;

use board::{CbBoard, CbMove, CB_BLACK, CB_WHITE};
use std::ffi::{c_char, c_int, CStr};

/// `getmove` result: the game is a draw.
pub const CB_DRAW: c_int = 0;
/// `getmove` result: the engine wins.
pub const CB_WIN: c_int = 1;
/// `getmove` result: the engine loses.
pub const CB_LOSS: c_int = 2;
/// `getmove` result: unknown.
pub const CB_UNKNOWN: c_int = 3;

/// Size of the text buffers CheckerBoard passes (`str` of getmove, `reply` of enginecommand).
const TEXT_BUFFER: usize = 1024;

/// Copies `text` into a C buffer of [`TEXT_BUFFER`] bytes, truncated and NUL-terminated.
///
/// # Safety
/// `out` must be null or point to at least [`TEXT_BUFFER`] writable bytes.
unsafe fn write_text(out: *mut c_char, text: &str) {
    if out.is_null() {
        return;
    }
    let bytes = text.as_bytes();
    let n = bytes.len().min(TEXT_BUFFER - 1);
    std::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), out, n);
    *out.add(n) = 0;
}

/// CheckerBoard's move request: plays a move for `color` on `board` within about `maxtime`
/// seconds, writes the new position back into `board`, the move into `mv` and a status line
/// into `str`, and returns [`CB_WIN`], [`CB_LOSS`], [`CB_DRAW`] or [`CB_UNKNOWN`]. The search
/// returns soon after `*playnow` becomes non-zero.
///
/// # Safety
/// `board` must point to a valid `int[8][8]`; `str` to 1024 writable bytes (or be null);
/// `playnow` to a readable int that stays valid during the call (or be null); `mv` to a
/// writable `CBmove` (or be null).
#[no_mangle]
pub unsafe extern "C" fn getmove(
    board: *mut CbBoard,
    color: c_int,
    maxtime: f64,
    str: *mut c_char,
    playnow: *const c_int,
    _info: c_int,
    _moreinfo: c_int,
    mv: *mut CbMove,
) -> c_int {
    if board.is_null() {
        return CB_UNKNOWN;
    }
    let side = match color {
        CB_BLACK => tmbot::game::Color::Black,
        CB_WHITE => tmbot::game::Color::White,
        _ => {
            write_text(str, &format!("tmbot: bad colour {color}"));
            return CB_UNKNOWN;
        }
    };
    let outcome = shielded(|| {
        let stop = engine::StopWatcher::start(playnow);
        engine::with_engine(|engine| engine.getmove(&*board, side, maxtime, stop.flag()))
    })
    .and_then(|outcome| outcome);
    match outcome {
        Ok(played) => {
            *board = played.board;
            if !mv.is_null() {
                *mv = played.cb_move;
            }
            write_text(str, &played.status);
            played.result
        }
        Err(message) => {
            write_text(str, &format!("tmbot: {message}"));
            CB_UNKNOWN
        }
    }
}

/// CheckerBoard's text commands. Returns 1 and writes the answer into `reply` when the
/// command is understood, else returns 0 (and writes `?`).
///
/// # Safety
/// `command` must be null or a NUL-terminated string; `reply` must be null or point to 1024
/// writable bytes.
#[no_mangle]
pub unsafe extern "C" fn enginecommand(command: *const c_char, reply: *mut c_char) -> c_int {
    if command.is_null() {
        write_text(reply, "?");
        return 0;
    }
    let text = CStr::from_ptr(command).to_string_lossy();
    match shielded(|| engine::with_engine(|engine| engine.command(&text))) {
        Ok(Some(answer)) => {
            write_text(reply, &answer);
            1
        }
        Ok(None) => {
            write_text(reply, "?");
            0
        }
        Err(message) => {
            write_text(reply, &format!("? tmbot: {message}"));
            0
        }
    }
}

/// Runs `f`, turning a panic into an error message: a panic must not unwind into the host
/// (undefined behaviour across `extern "C"`, and an abort of the GUI).
fn shielded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let reason = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_string());
        format!("internal error ({reason})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_message() {
        assert_eq!(shielded(|| 7), Ok(7));
        let err = shielded(|| -> u8 { panic!("board on fire") }).unwrap_err();
        assert_eq!(err, "internal error (board on fire)");
        let err = shielded(|| -> u8 { panic!("{} squares", 32) }).unwrap_err();
        assert_eq!(err, "internal error (32 squares)");
    }

    #[test]
    fn the_engine_still_answers_after_a_panic_inside_it() {
        let caught = shielded(|| engine::with_engine(|_| panic!("inside the engine lock")));
        assert!(caught.is_err());
        let mut reply = [0 as c_char; TEXT_BUFFER];
        let command = c"name";
        // SAFETY: a NUL-terminated command and a buffer of TEXT_BUFFER bytes.
        let understood = unsafe { enginecommand(command.as_ptr(), reply.as_mut_ptr()) };
        assert_eq!(understood, 1);
        // SAFETY: enginecommand NUL-terminates the reply.
        let answer = unsafe { CStr::from_ptr(reply.as_ptr()) }.to_string_lossy();
        assert!(answer.starts_with("tmbot"), "{answer}");
    }
}
