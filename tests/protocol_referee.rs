//! Whole games between two `tmbot` processes, driven over pipes by a small referee that keeps
//! its own copy of the game: every generated move must be legal there, and at the end both
//! engines must report the referee's position and result.

#[allow(dead_code)] // each test file uses some of the helpers
mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout};
use tmbot::game::checkers::{record::PdnResult, to_fen, Checkers};
use tmbot::game::hex::Hex;
use tmbot::game::{Color, Game};

/// Longest checkers game the referee lets run (the draw rules normally end it sooner).
const CHECKERS_PLY_CAP: usize = 400;

/// One engine process and its pipes.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    fn spawn(args: &[&str]) -> Peer {
        let mut child = common::spawn_engine(args);
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Peer {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends one command and returns its response text without the `= ` and the blank
    /// line; a `?` answer fails the test.
    fn ask(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        let mut response = String::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap();
            assert!(n > 0, "engine closed its output after {command:?}");
            if line == "\n" {
                break;
            }
            response.push_str(&line);
        }
        let text = response
            .strip_prefix("= ")
            .unwrap_or_else(|| panic!("{command:?} failed: {response:?}"));
        text.trim_end_matches('\n').to_string()
    }

    fn quit(mut self) {
        assert_eq!(self.ask("quit"), "");
        assert!(self.child.wait().unwrap().success());
    }
}

/// The two engines indexed by colour (Black first).
fn peers(black: &[&str], white: &[&str]) -> [Peer; 2] {
    [Peer::spawn(black), Peer::spawn(white)]
}

/// One ply: the side to move's engine generates a move, which must be legal in the referee's
/// `game`; the referee plays it and tells the other engine with the command `tell` builds.
fn referee_ply<G: Game>(
    engines: &mut [Peer; 2],
    game: &mut G,
    tell: impl Fn(Color, &str) -> String,
) {
    let color = game.side_to_move();
    let reply = engines[color.index()].ask(&format!("genmove {color}"));
    let mv = game
        .parse_move(&reply)
        .unwrap_or_else(|e| panic!("{color} generated {reply:?}, illegal here: {e}"));
    game.play(mv);
    let other = &mut engines[color.opponent().index()];
    assert_eq!(other.ask(&tell(color, &reply)), "");
}

#[test]
fn hex_7x7_game_between_mcts_and_random() {
    let mut engines = peers(
        &["hex", "--player", "mcts:playouts=500", "--seed", "3"],
        &["hex", "--player", "random", "--seed", "4"],
    );
    let mut game = Hex::new(7, 7).unwrap();
    for peer in &mut engines {
        assert_eq!(peer.ask("boardsize 7 7"), "");
        assert_eq!(peer.ask("clear_board"), "");
    }
    let mut plies = 0;
    while game.outcome().is_none() {
        referee_ply(&mut engines, &mut game, |color, reply| {
            format!("play {color} {reply}")
        });
        plies += 1;
    }
    let winner = game.outcome().unwrap().winner.unwrap();
    eprintln!("hex 7x7: {winner} won in {plies} plies");
    assert!(
        plies >= 13,
        "a 7x7 connection needs at least 7 stones of the winner"
    );
    let score = if winner == Color::Black { "B+" } else { "W+" };
    for mut peer in engines {
        assert_eq!(peer.ask("showposition"), game.position_text());
        assert_eq!(peer.ask("final_score"), score);
        assert_eq!(
            peer.ask(&format!("genmove {}", game.side_to_move())),
            "resign"
        );
        peer.quit();
    }
}

#[test]
fn checkers_game_between_alphabeta_and_mcts() {
    let mut engines = peers(
        &["checkers", "--player", "alphabeta:depth=4", "--seed", "5"],
        &["checkers", "--player", "mcts:playouts=200", "--seed", "6"],
    );
    let mut game = Checkers::new();
    while game.outcome().is_none() && game.ply() < CHECKERS_PLY_CAP {
        referee_ply(&mut engines, &mut game, |_, reply| format!("play {reply}"));
    }
    let result = PdnResult::from_outcome(game.outcome()).as_str();
    eprintln!(
        "checkers: {result} after {} plies ({:?})",
        game.ply(),
        game.outcome()
    );
    for mut peer in engines {
        assert_eq!(peer.ask("getboard"), to_fen(game.position()));
        assert_eq!(peer.ask("result"), result);
        peer.quit();
    }
}
