//! Checkers search knowledge: positions with a capture pending are not quiet (alpha-beta
//! extends them), random playouts are capped (a capped playout scores as a draw), and the
//! endgame databases ([`crate::game::checkers::endgame`]), once loaded, answer for the
//! positions they cover.

use super::SearchGame;
use crate::game::checkers::endgame::Endgame;
use crate::game::checkers::Checkers;
use crate::game::{Color, Solved};
use std::sync::OnceLock;

/// The process's endgame databases (built once, by the first player that asks).
static ENDGAME: OnceLock<Endgame> = OnceLock::new();

impl SearchGame for Checkers {
    const PLAYOUT_CAP: usize = 200;

    fn is_quiet(&self) -> bool {
        !self.position().must_capture()
    }

    fn solved(&self) -> Option<Solved> {
        let db = ENDGAME.get()?;
        let position = self.position();
        let pieces = position.count(Color::Black) + position.count(Color::White);
        if pieces > db.max_pieces() {
            return None;
        }
        db.probe(position)
    }

    fn load_solved(pieces: u32) -> Result<(), String> {
        if !(2..=4).contains(&pieces) {
            return Err(format!(
                "endgame databases cover 2 to 4 pieces, not {pieces}"
            ));
        }
        let db = ENDGAME.get_or_init(|| Endgame::build(pieces, |_, _| {}));
        if db.max_pieces() < pieces {
            return Err(format!(
                "this process already loaded the endgame databases of up to {} pieces",
                db.max_pieces()
            ));
        }
        Ok(())
    }
}
