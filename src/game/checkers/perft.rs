//! Fast perft: leaf moves are counted without being played (bulk counting), in either
//! capture mode (every jump path, as the published tables count, or distinct positions).
//!
//! The fast recursion works on the bitboards of the side to move and its opponent passed in
//! registers, with the colour a type parameter. On x86-64 it is compiled for the `popcnt`,
//! `bmi1` and `bmi2` instructions (x86-64 processors since about 2013) and used where they are
//! detected; elsewhere a portable recursion over [`Position::generate_moves`] gives the same
//! counts.

use super::board::{Position, PLAYABLE};
use super::movegen::{
    side_capture_count, side_capture_moves, side_jumpers, side_man_captures, side_position,
    side_step_count, side_steps, BlackSide, CaptureMode, Side, WhiteSide,
};
use super::moves::Move;
use crate::game::Color;

/// Counts the leaves of the move tree of `pos` to `depth` plies.
///
/// With [`CaptureMode::Paths`] every distinct jump path counts (the published numbers:
/// 7, 49, 302, ... from the start); with [`CaptureMode::Distinct`] capture paths with the same
/// effect count once.
pub fn perft(pos: &Position, depth: u32, mode: CaptureMode) -> u64 {
    let mut lists: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(64)).collect();
    if depth <= 1 {
        return portable(pos, depth, mode, &mut lists);
    }
    #[cfg(target_arch = "x86_64")]
    if !(std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2"))
    {
        return portable(pos, depth, mode, &mut lists);
    }
    let [black, white] = pos.pieces;
    // SAFETY: on x86-64 the features that `count` is compiled with were detected above;
    // elsewhere `count` has no target feature.
    unsafe {
        match pos.side_to_move() {
            Color::Black => count::<BlackSide>(black, white, pos.kings, depth, mode, &mut lists),
            Color::White => count::<WhiteSide>(white, black, pos.kings, depth, mode, &mut lists),
        }
    }
}

/// [`perft`] with the root moves shared among the threads of the current rayon pool.
pub fn perft_parallel(pos: &Position, depth: u32, mode: CaptureMode) -> u64 {
    use rayon::prelude::*;
    if depth <= 1 {
        return perft(pos, depth, mode);
    }
    let mut moves = Vec::new();
    pos.generate_moves(mode, &mut moves);
    moves
        .par_iter()
        .map(|mv| perft(&pos.after(mv), depth - 1, mode))
        .sum()
}

/// Leaf counts for each root move of `pos` (a divide), in move-generation order.
pub fn perft_divide(pos: &Position, depth: u32, mode: CaptureMode) -> Vec<(Move, u64)> {
    let mut moves = Vec::new();
    pos.generate_moves(mode, &mut moves);
    moves
        .into_iter()
        .map(|mv| (mv, perft(&pos.after(&mv), depth.saturating_sub(1), mode)))
        .collect()
}

/// The plain recursion: generate, play, recurse; count at depth 1.
fn portable(pos: &Position, depth: u32, mode: CaptureMode, lists: &mut [Vec<Move>]) -> u64 {
    let Some((moves, deeper)) = lists.split_first_mut() else {
        return 1;
    };
    if depth == 1 {
        return pos.count_moves(mode, moves);
    }
    pos.generate_moves(mode, moves);
    moves
        .iter()
        .map(|mv| portable(&pos.after(mv), depth - 1, mode, deeper))
        .sum()
}

/// Number of legal moves of side `S` (leaf of the tree: the moves are not played).
#[inline(always)]
fn leaf<S: Side>(
    own: u64,
    opp: u64,
    kings: u64,
    mode: CaptureMode,
    scratch: &mut Vec<Move>,
) -> u64 {
    let empty = PLAYABLE & !(own | opp);
    let jumpers = side_jumpers::<S>(own, opp, kings, empty);
    if jumpers != 0 {
        side_capture_count::<S>(own, opp, kings, jumpers, mode, scratch)
    } else {
        side_step_count::<S>(own, kings, empty)
    }
}

/// The leaves `depth >= 2` plies below the position of side `S` (pieces `own`) against
/// `opp`; `lists` holds one move buffer per remaining ply.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "popcnt,bmi1,bmi2"))]
fn count<S: Side>(
    own: u64,
    opp: u64,
    kings: u64,
    depth: u32,
    mode: CaptureMode,
    lists: &mut [Vec<Move>],
) -> u64 {
    let (moves, deeper) = lists.split_first_mut().expect("one buffer per ply");
    // The leaves below a child, given as (side to move's pieces, opponent's pieces, kings).
    // (A macro rather than a closure: the closure is not inlined into the move loops.)
    macro_rules! below {
        ($own:expr, $opp:expr, $kings:expr) => {
            if depth == 2 {
                leaf::<S::Other>($own, $opp, $kings, mode, &mut deeper[0])
            } else {
                count::<S::Other>($own, $opp, $kings, depth - 1, mode, deeper)
            }
        };
    }
    let empty = PLAYABLE & !(own | opp);
    let jumpers = side_jumpers::<S>(own, opp, kings, empty);
    let mut nodes = 0;
    if jumpers != 0 && jumpers & kings == 0 {
        // Only men capture: play their sequences straight from the bulk enumeration.
        side_man_captures::<S>(jumpers, opp, empty, |from, to, captured, _| {
            let kings_after = (kings & !captured) | (to & S::KING_ROW);
            nodes += below!(opp & !captured, own ^ from ^ to, kings_after);
        });
    } else if jumpers != 0 {
        let pos = side_position::<S>(own, opp, kings);
        moves.clear();
        side_capture_moves::<S>(&pos, jumpers, mode, moves);
        for mv in moves.iter() {
            let next = pos.after(mv);
            nodes += below!(next.pieces[1 - S::US], next.pieces[S::US], next.kings);
        }
    } else {
        // Men and kings apart: a man may be crowned, a king carries its crown along.
        side_steps::<S>(own & !kings, 0, empty, |from, to| {
            nodes += below!(opp, own ^ from ^ to, kings | (to & S::KING_ROW));
        });
        let own_kings = own & kings;
        if own_kings != 0 {
            side_steps::<S>(own_kings, own_kings, empty, |from, to| {
                nodes += below!(opp, own ^ from ^ to, kings ^ from ^ to);
            });
        }
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_recursion_gives_the_published_counts() {
        // Used where popcnt is missing; checked here against the table and the fast path.
        let start = Position::start();
        let mut lists: Vec<Vec<Move>> = (0..8).map(|_| Vec::new()).collect();
        assert_eq!(portable(&start, 8, CaptureMode::Paths, &mut lists), 845_931);
        let kings: Position = "B:WK1,K2,K3,K4,K5,K6:BK29,K30,K31,K32,K28,K27"
            .parse()
            .unwrap();
        for mode in [CaptureMode::Paths, CaptureMode::Distinct] {
            assert_eq!(
                portable(&kings, 5, mode, &mut lists),
                perft(&kings, 5, mode)
            );
        }
        assert_eq!(perft(&kings, 5, CaptureMode::Paths), 33_890);
    }

    #[test]
    fn parallel_perft_and_divide_add_up() {
        let start = Position::start();
        assert_eq!(perft_parallel(&start, 9, CaptureMode::Paths), 3_963_680);
        let divide = perft_divide(&start, 6, CaptureMode::Paths);
        assert_eq!(divide.len(), 7);
        assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 36_768);
    }
}
