//! Fast perft: leaf moves are counted without being played (bulk counting), in either
//! capture mode (every jump path, as the published tables count, or distinct positions).

use super::board::Position;
use super::movegen::CaptureMode;
use super::moves::Move;

/// Counts the leaves of the move tree of `pos` to `depth` plies.
///
/// With [`CaptureMode::Paths`] every distinct jump path counts (the published numbers:
/// 7, 49, 302, ... from the start); with [`CaptureMode::Distinct`] capture paths with the same
/// effect count once.
pub fn perft(pos: &Position, depth: u32, mode: CaptureMode) -> u64 {
    let mut lists: Vec<Vec<Move>> = (0..depth.max(1)).map(|_| Vec::with_capacity(64)).collect();
    count(pos, depth, mode, &mut lists)
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

fn count(pos: &Position, depth: u32, mode: CaptureMode, lists: &mut [Vec<Move>]) -> u64 {
    let Some((moves, deeper)) = lists.split_first_mut() else {
        return 1;
    };
    match depth {
        0 => 1,
        1 => pos.count_moves(mode, moves),
        _ => {
            pos.generate_moves(mode, moves);
            moves
                .iter()
                .map(|mv| count(&pos.after(mv), depth - 1, mode, deeper))
                .sum()
        }
    }
}
