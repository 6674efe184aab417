//! Checkers search knowledge: positions with a capture pending are not quiet (alpha-beta
//! extends them), random playouts are capped (a capped playout scores as a draw), and the
//! endgame databases ([`crate::game::checkers::endgame`]), once loaded, answer for the
//! positions they cover.

use super::SearchGame;
use crate::game::checkers::endgame::Endgame;
use crate::game::checkers::{zobrist, Checkers, Move};
use crate::game::{Color, Game, Solved};
use std::path::Path;
use std::sync::OnceLock;

/// Most pieces of the databases a player builds when it is made (about 6 s for four).
const BUILT_AT_START: u32 = 4;

/// The process's endgame databases (built or read once, by the first player that asks).
static ENDGAME: OnceLock<Endgame> = OnceLock::new();

impl SearchGame for Checkers {
    const PLAYOUT_CAP: usize = 200;

    fn is_quiet(&self) -> bool {
        !self.position().must_capture()
    }

    fn is_threatened(&self) -> bool {
        let mut turned = *self.position();
        turned.set_side_to_move(turned.side_to_move().opponent());
        turned.must_capture()
    }

    fn hash_after(&self, mv: Move) -> Option<u64> {
        Some(self.hash() ^ zobrist::move_delta(self.position(), &mv))
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

    fn load_solved(source: &str) -> Result<(), String> {
        let wanted = source.parse::<u32>().ok();
        if let Some(pieces) = wanted {
            if !(2..=BUILT_AT_START).contains(&pieces) {
                return Err(format!(
                    "players build endgame databases of 2 to {BUILT_AT_START} pieces, not \
                     {pieces} (more: `arena endgame --pieces N --out FILE`, then endgame=FILE)"
                ));
            }
        }
        if ENDGAME.get().is_none() {
            let db = match wanted {
                Some(pieces) => Endgame::build(pieces, |_, _| {}),
                None => Endgame::load(Path::new(source))?,
            };
            // Another player may have loaded its tables meanwhile: the first ones stay.
            let _ = ENDGAME.set(db);
        }
        let loaded = ENDGAME.get().map_or(0, Endgame::max_pieces);
        match wanted {
            Some(pieces) if loaded < pieces => Err(format!(
                "this process already loaded the endgame databases of up to {loaded} pieces"
            )),
            _ => Ok(()),
        }
    }
}
