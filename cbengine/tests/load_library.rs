//! Loads the built engine library the way a CheckerBoard host does (dlopen + symbol lookup)
//! and plays a whole game through `getmove`, checking every move against the rules.

use std::ffi::{c_char, c_int, CStr, CString};
use tmbot::game::checkers::{Checkers, Position};
use tmbot::game::{Color, Game};
use tmbot_cb::board::{read_board, write_board, CbBoard, CbMove, CB_BLACK, CB_WHITE};
use tmbot_cb::host::{EngineCommand, GetMove};

mod common;
use common::library_path;

struct Library {
    _lib: libloading::Library,
    getmove: GetMove,
    command: EngineCommand,
}

impl Library {
    fn load() -> Library {
        let path = library_path();
        // SAFETY: the library is ours; its initialisers are Rust statics only.
        unsafe {
            let lib = libloading::Library::new(&path)
                .unwrap_or_else(|e| panic!("loading {}: {e}", path.display()));
            let getmove = *lib.get::<GetMove>(b"getmove\0").unwrap();
            let command = *lib.get::<EngineCommand>(b"enginecommand\0").unwrap();
            Library {
                _lib: lib,
                getmove,
                command,
            }
        }
    }

    fn command(&self, text: &str) -> (c_int, String) {
        let command = CString::new(text).unwrap();
        let mut reply = [0 as c_char; 1024];
        // SAFETY: valid NUL-terminated command and a 1024-byte reply buffer.
        let handled = unsafe { (self.command)(command.as_ptr(), reply.as_mut_ptr()) };
        let reply = unsafe { CStr::from_ptr(reply.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        (handled, reply)
    }
}

#[test]
fn identifies_itself_as_an_english_checkers_engine() {
    let lib = Library::load();
    assert_eq!(lib.command("name"), (1, "tmbot".to_string()));
    assert_eq!(lib.command("get protocolversion"), (1, "2".to_string()));
    assert_eq!(lib.command("get gametype"), (1, "21".to_string()));
    assert_eq!(lib.command("no such command").0, 0);
    let (handled, reply) = lib.command("set player nonsense:x=1");
    assert_eq!(handled, 1);
    assert!(reply.starts_with('?'), "{reply}");
}

#[test]
fn command_errors_name_the_real_cause_as_the_text_protocol_does() {
    let lib = Library::load();
    let (handled, reply) = lib.command("set player foo");
    assert_eq!(handled, 1);
    assert!(
        reply.starts_with("? bad spec part 'foo': unknown player"),
        "{reply}"
    );
    assert_eq!(
        lib.command("set gamehist B:W21-32:B1-12 11-15 zz"),
        (
            1,
            "? gamehist move 2 (zz): bad PDN move 'zz': 'zz' is not a square number 1..32"
                .to_string()
        )
    );
    let (_, reply) = lib.command("set gamehist B:W21-32:B1-12,29");
    assert!(reply.contains("square 29 is given twice"), "{reply}");
    let (_, reply) = lib.command("set gamehist W:W21-28:B1-11,30");
    assert!(
        reply.contains("a black man cannot stand on square 30"),
        "{reply}"
    );
}

#[test]
fn plays_a_legal_game_through_getmove() {
    let lib = Library::load();
    assert_eq!(
        lib.command("set player alphabeta:depth=4,eval=material").0,
        1
    );
    assert_eq!(lib.command("set seed 5").0, 1);
    let mut game = Checkers::new();
    let mut board: CbBoard = [[0; 8]; 8];
    write_board(&Position::start(), &mut board);
    let playnow: c_int = 0;
    for _ply in 0..300 {
        if game.outcome().is_some() {
            break;
        }
        let side = game.side_to_move();
        let colour = if side == Color::Black {
            CB_BLACK
        } else {
            CB_WHITE
        };
        let mut status = [0 as c_char; 1024];
        let mut mv = CbMove::default();
        // SAFETY: all pointers are valid for the duration of the call.
        let result = unsafe {
            (lib.getmove)(
                &mut board,
                colour,
                0.5,
                status.as_mut_ptr(),
                &playnow,
                0,
                0,
                &mut mv,
            )
        };
        assert!((0..=3).contains(&result));
        let after = read_board(&board, side.opponent()).unwrap();
        let mut legal = Vec::new();
        game.legal_moves(&mut legal);
        let played = legal
            .iter()
            .copied()
            .find(|m| game.position().after(m) == after);
        let played = played
            .unwrap_or_else(|| panic!("illegal board from getmove after {}", game.position_text()));
        assert_eq!(mv.jumps as u32, played.capture_count());
        game.play(played);
    }
    assert!(game.ply() > 10, "the game went on for a while");
}
