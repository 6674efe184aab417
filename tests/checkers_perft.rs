//! Perft oracles: the published start-position table (every jump path counted) and the
//! reference positions of shared/reference/checkers.md.

use tmbot::game::checkers::{parse_fen, perft, CaptureMode, Checkers, Position};

const START_PATHS: [u64; 11] = [
    7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564, 85242128,
];

fn check(fen: &str, expected: &[u64], mode: CaptureMode) {
    let pos = parse_fen(fen).unwrap();
    for (depth, &nodes) in (1..).zip(expected) {
        assert_eq!(
            perft(&pos, depth, mode),
            nodes,
            "{fen} depth {depth} {mode:?}"
        );
    }
}

#[test]
fn start_position_paths_depths_1_to_11() {
    let pos = Position::start();
    for (depth, &nodes) in (1..).zip(&START_PATHS) {
        assert_eq!(
            perft(&pos, depth, CaptureMode::Paths),
            nodes,
            "depth {depth}"
        );
    }
    // Duplicate capture paths first arise at ply 12, so both modes agree up to 11.
    assert_eq!(perft(&pos, 11, CaptureMode::Distinct), START_PATHS[10]);
}

#[test]
fn start_position_depth_12_in_both_modes() {
    // The first duplicate capture paths arise at ply 12: 5674 of them.
    assert_eq!(
        perft(&Position::start(), 12, CaptureMode::Paths),
        388_623_673
    );
    assert_eq!(
        perft(&Position::start(), 12, CaptureMode::Distinct),
        388_617_999
    );
}

#[test]
fn reference_positions() {
    check(
        "B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29",
        &[5, 38, 178, 1378, 5836, 40745, 197933, 1377007],
        CaptureMode::Paths,
    );
    check(
        "B:WK1,K2,K3,K4,K5,K6:BK29,K30,K31,K32,K28,K27",
        &[7, 49, 420, 3600, 33890, 317006, 3210054, 32172512],
        CaptureMode::Paths,
    );
    check("W:WK27:B23,24,15,16", &[2], CaptureMode::Paths);
    check("W:WK27:B23,24,15,16", &[1], CaptureMode::Distinct);
    check("B:W27,26,18:B22", &[1, 4, 6], CaptureMode::Paths);
    check("W:W32:B23,27,28", &[0], CaptureMode::Paths);
}

#[test]
fn fast_perft_agrees_with_the_generic_play_undo_perft() {
    let mut game = Checkers::new().with_rules(tmbot::game::checkers::DrawRules::NONE);
    for depth in 1..=7 {
        assert_eq!(
            tmbot::game::perft(&mut game, depth),
            perft(&Position::start(), depth, CaptureMode::Distinct)
        );
    }
}
