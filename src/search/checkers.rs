//! Checkers search knowledge: positions with a capture pending are not quiet (alpha-beta
//! extends them), and random playouts are capped (a capped playout scores as a draw).

use super::SearchGame;
use crate::game::checkers::Checkers;

impl SearchGame for Checkers {
    const PLAYOUT_CAP: usize = 200;

    fn is_quiet(&self) -> bool {
        !self.position().must_capture()
    }
}
