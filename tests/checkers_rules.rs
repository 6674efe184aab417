//! Rules edge cases of English checkers (shared/reference/checkers.md).

use tmbot::game::checkers::{
    parse_fen, zobrist, CaptureMode, Checkers, DrawRules, Piece, Position,
};
use tmbot::game::{Color, Game, MoveError, Outcome, Reason};

fn texts(game: &Checkers) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let mut texts: Vec<String> = moves.iter().map(|m| game.move_to_text(*m)).collect();
    texts.sort();
    texts
}

#[test]
fn black_opens_with_seven_moves_and_white_replies() {
    let game = Checkers::new();
    assert_eq!(
        texts(&game),
        ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    );
    let white_first = Checkers::from_fen("W:W21-32:B1-12").unwrap();
    assert_eq!(
        texts(&white_first),
        ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"]
    );
}

#[test]
fn capture_is_compulsory_and_any_sequence_may_be_chosen() {
    // Black 15 can take 18 and then 26 (crowning on 31), 23 can take 26 (crowning on 30):
    // every legal move captures, and the jump 15x22 must go on.
    let mut game = Checkers::from_fen("B:W18,26:B15,23").unwrap();
    assert_eq!(texts(&game), ["15x31", "23x30"]);
    assert!(game.parse_move("15x22").is_err());
    let refused = game.parse_move("15-19");
    assert!(
        matches!(&refused, Err(MoveError::Illegal(e)) if e.reason.contains("compulsory")),
        "{refused:?}"
    );
    game.try_play("23x30").unwrap();
    assert_eq!(
        game.position().piece_at(30),
        Some(Piece::King(Color::Black))
    );
    // Free choice (no maximum-capture rule): the single jump 3x12 is as legal as the double
    // 6x15x24, and a sequence must be completed (no stopping on 15).
    let game = Checkers::from_fen("B:W8,10,19:B3,6").unwrap();
    assert_eq!(texts(&game), ["3x12", "6x24"]);
    assert!(game.parse_move("6x15").is_err());
    assert!(game.parse_move("6x15x24").is_ok());
}

#[test]
fn crowning_ends_the_move() {
    // 22x31 crowns; the new king could jump 27 but the move ends on the king row.
    let mut game = Checkers::from_fen("B:W27,26,18:B22").unwrap();
    assert_eq!(texts(&game), ["22x31"]);
    game.try_play("22x31").unwrap();
    assert_eq!(game.position().piece_at(27), Some(Piece::Man(Color::White)));
    assert_eq!(game.position_text(), "W:W18,27:BK31");
}

#[test]
fn a_jumping_king_may_end_on_its_origin_and_loops_count_once() {
    let game = Checkers::from_fen("W:WK27:B23,24,15,16").unwrap();
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert_eq!(moves.len(), 1);
    let mv = moves[0];
    assert_eq!((mv.from(), mv.to(), mv.capture_count()), (27, 27, 4));
    let mut paths = Vec::new();
    game.position()
        .generate_moves(CaptureMode::Paths, &mut paths);
    assert_eq!(paths.len(), 2);
    assert!(paths[0].same_effect(&paths[1]) && paths[0] != paths[1]);
    // Both loop directions name the one legal move.
    for path in &paths {
        assert_eq!(game.parse_move(&path.path_text()), Ok(mv));
    }
    let mut after = game.clone();
    after.play(mv);
    assert_eq!(after.position_text(), "B:WK27:B");
    assert_eq!(
        after.outcome(),
        Some(Outcome::win(Color::White, Reason::NoLegalMove))
    );
}

#[test]
fn a_blocked_side_loses() {
    let game = Checkers::from_fen("W:W32:B23,27,28").unwrap();
    let mut moves = vec![];
    game.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(
        game.outcome(),
        Some(Outcome::win(Color::Black, Reason::NoLegalMove))
    );
}

#[test]
fn threefold_repetition_is_a_draw_when_enabled() {
    let shuffle = ["1-5", "32-28", "5-1", "28-32"];
    let mut game = Checkers::from_fen("B:WK32:BK1").unwrap();
    let start_hash = game.hash();
    for (ply, text) in shuffle.iter().cycle().take(8).enumerate() {
        assert_eq!(game.outcome(), None, "ply {ply}");
        game.try_play(text).unwrap();
    }
    assert_eq!(game.hash(), start_hash);
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.outcome(), Some(Outcome::draw(Reason::Repetition)));
    let mut moves = vec![];
    game.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert!(game.parse_move("1-5").is_err());
    game.undo();
    assert_eq!(game.outcome(), None);
    let off = game.clone().with_rules(DrawRules {
        threefold_repetition: false,
        ..DrawRules::default()
    });
    let mut off = off;
    off.try_play("28-32").unwrap();
    assert_eq!(off.outcome(), None);
}

#[test]
fn no_progress_limit_draws_and_man_moves_reset_it() {
    let no_repetition = DrawRules {
        threefold_repetition: false,
        no_progress_plies: Some(10),
    };
    let mut game = Checkers::from_fen("B:WK32,21:BK1,12")
        .unwrap()
        .with_rules(no_repetition);
    let shuffle = ["1-5", "32-28", "5-1", "28-32"];
    for text in shuffle.iter().cycle().take(9) {
        game.try_play(text).unwrap();
    }
    assert_eq!((game.no_progress_plies(), game.outcome()), (9, None));
    // A man move resets the counter.
    game.try_play("21-17").unwrap();
    assert_eq!((game.no_progress_plies(), game.outcome()), (0, None));
    for text in [
        "5-1", "32-28", "1-5", "28-32", "5-1", "32-28", "1-5", "28-32", "5-1",
    ] {
        game.try_play(text).unwrap();
    }
    assert_eq!(game.no_progress_plies(), 9);
    game.try_play("32-28").unwrap();
    assert_eq!(game.outcome(), Some(Outcome::draw(Reason::NoProgress)));
    assert_eq!(DrawRules::default().no_progress_plies, Some(79));
}

#[test]
fn zobrist_hash_follows_play_and_undo() {
    let mut game = Checkers::new();
    for text in [
        "11-15", "23-18", "8-11", "27-23", "4-8", "23-19", "10x14", "19x10",
    ] {
        game.try_play(text).unwrap();
        assert_eq!(game.hash(), zobrist::hash(game.position()));
    }
    while game.undo().is_some() {
        assert_eq!(game.hash(), zobrist::hash(game.position()));
    }
    assert_eq!(*game.position(), Position::start());
    assert_ne!(
        zobrist::hash(&parse_fen("B:W21:B1").unwrap()),
        zobrist::hash(&parse_fen("W:W21:B1").unwrap())
    );
}
