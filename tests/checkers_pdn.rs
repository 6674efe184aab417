//! PDN records: the real-world file shared/data/checkers/tinsley.pdn (724 games, one corrupt),
//! the dialect's quirks, and writer round trips.

use std::path::Path;
use tmbot::game::checkers::{
    parse_pdn, read_pdn_file, save_pdn, write_pdn, Checkers, GameError, PdnGame, PdnResult,
};
use tmbot::game::{Color, Game};

const TINSLEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/checkers/tinsley.pdn"
);

fn tinsley() -> Option<Vec<PdnGame>> {
    if !Path::new(TINSLEY).exists() {
        eprintln!("skipping: {TINSLEY} is absent");
        assert!(
            std::env::var_os("TMBOT_REQUIRE_SHARED_DATA").is_none(),
            "{TINSLEY} is absent but TMBOT_REQUIRE_SHARED_DATA is set"
        );
        return None;
    }
    let games = read_pdn_file(Path::new(TINSLEY)).unwrap();
    assert_eq!(games.len(), 724);
    Some(
        games
            .into_iter()
            .map(|g| g.expect("every game parses"))
            .collect(),
    )
}

#[test]
fn tinsley_games_parse_and_all_but_the_corrupt_one_replay() {
    let Some(games) = tinsley() else { return };
    let count = |r: PdnResult| games.iter().filter(|g| g.result == r).count();
    assert_eq!(
        (
            count(PdnResult::Draw),
            count(PdnResult::BlackWins),
            count(PdnResult::WhiteWins)
        ),
        (533, 66, 125)
    );
    let mut failures = Vec::new();
    for (index, game) in games.iter().enumerate() {
        if let Err(error) = game.replay() {
            failures.push((index + 1, error));
        }
    }
    assert_eq!(failures.len(), 1, "{failures:?}");
    let (number, GameError::Replay(error)) = &failures[0] else {
        panic!("expected a replay error: {failures:?}");
    };
    assert_eq!(*number, 541);
    assert_eq!(error.text, "32-28");
    assert_eq!(error.color, Color::Black);
    assert_eq!(error.fen, "B:WK26,K27,K30:B16,K28,K29");
    assert!(
        error.to_string().contains("move 62 (black) '32-28'"),
        "{error}"
    );
    // Glued comment text is dropped: the game with `8-11Redoverstepped...` keeps its move.
    assert!(games
        .iter()
        .any(|g| g.moves.last().map(String::as_str) == Some("8-11")));
}

#[test]
fn tinsley_written_back_reads_equal() {
    let Some(games) = tinsley() else { return };
    let text = write_pdn(&games);
    let again: Vec<PdnGame> = parse_pdn(&text).into_iter().map(Result::unwrap).collect();
    assert_eq!(again, games);
    // Records rebuilt from the replayed games (canonical move text) replay to the same end.
    for game in games.iter().take(100) {
        let played = game.replay().unwrap();
        let rebuilt = PdnGame::from_game(&played, game.tags.clone());
        let back = parse_pdn(&write_pdn(std::slice::from_ref(&rebuilt)));
        let replayed = back[0].as_ref().unwrap().replay().unwrap();
        assert_eq!(replayed.position(), played.position());
        assert_eq!(replayed.ply(), game.moves.len());
    }
    // The file writes full paths; the writer uses them only when needed.
    let first = games[0].replay().unwrap();
    let rebuilt = PdnGame::from_game(&first, vec![]);
    assert_eq!(games[0].moves.last().unwrap(), "24x15x6");
    assert_eq!(rebuilt.moves.last().unwrap(), "24x6");
}

#[test]
fn ambiguous_captures_are_written_with_their_path() {
    // Black 6 reaches 22 over 10 and 18 or over 9 and 17.
    let game = Checkers::from_fen("B:W9,10,17,18:B6").unwrap();
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let mut texts: Vec<String> = moves.iter().map(|m| game.move_to_text(*m)).collect();
    texts.sort();
    assert_eq!(texts, ["6x13x22", "6x15x22"]);
    assert!(game.parse_move("6x22").is_err());
    assert_eq!(
        game.parse_move("6x15x22").unwrap().captured(),
        (1 << 9) | (1 << 17)
    );
    assert_eq!(
        game.parse_move("6-13-22").unwrap().captured(),
        (1 << 8) | (1 << 16)
    );
}

#[test]
fn a_whole_path_names_its_move_even_inside_a_king_loop() {
    // The king on 10 may take 6 alone (10x1) or run the loop 10x19x12x3x10x1 taking all five:
    // both paths contain 10 then 1, but `10x1` is the whole path of the first.
    let game = Checkers::from_fen("B:W6,7,8,15,16:BK10").unwrap();
    let single = game.parse_move("10x1").unwrap();
    assert_eq!(single.captured(), 1 << 5);
    let looped = game.parse_move("10x19x12x3x10x1").unwrap();
    assert_eq!(looped.capture_count(), 5);
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    for mv in moves {
        assert_eq!(game.parse_move(&game.move_to_text(mv)), Ok(mv), "{mv:#}");
    }
}

#[test]
fn dialect_quirks_and_bad_games_are_reported_with_their_place() {
    let text = "[Event \"quirks\"]  \n[Black \"A\"] \n[White \"B \\\"C\\\"\"]\n[Result \"1-0\"]\n\
        1. 11-15 {a comment} 23-18 2. 8-11 ; to the end of line\n27-23 (2... 9-14 (3. 1-5)) \
        3. 4-8 $1 23-19 4. 10x14 19x10 5. 14x23 26x19 6. 7x14 24-20Blackthinks 1-0\n\n\
        [Event \"illegal\"]\n1. 11-15 23-19 2. 9-14 15x24 *\n\n\
        [Event \"syntax\"]\n1. 11-15 {unterminated\n\n\
        [Event \"white first\"]\n[FEN \"W:W21-32:B1-12\"]\n1. ... 23-18 2. 11-15 18x11 0-1\n\
        [Event \"no result token\"]\n1. 9-13 21-17\n";
    let games = parse_pdn(text);
    assert_eq!(games.len(), 5, "{games:?}");
    let first = games[0].as_ref().unwrap();
    assert_eq!(first.tag("White"), Some("B \"C\""));
    assert_eq!(first.result, PdnResult::BlackWins);
    assert_eq!(first.moves.len(), 12);
    assert_eq!(first.moves[11], "24-20");
    first.replay().unwrap();
    let Err(GameError::Replay(bad)) = games[1].as_ref().unwrap().replay() else {
        panic!("game 2 must fail to replay");
    };
    assert_eq!(
        (bad.number, bad.color, bad.text.as_str()),
        (2, Color::White, "15x24")
    );
    assert!(
        matches!(games[2], Err(GameError::Syntax { line: 12, .. })),
        "{:?}",
        games[2]
    );
    let white = games[3].as_ref().unwrap();
    let played = white.replay().unwrap();
    assert_eq!(played.ply(), 3);
    assert_eq!(white.result, PdnResult::WhiteWins);
    assert!(write_pdn(std::slice::from_ref(white)).contains("1. ... 23-18 2. 11-15 18x11 0-1"));
    assert_eq!(games[4].as_ref().unwrap().moves, ["9-13", "21-17"]);
    // An unterminated tag value at the end of the input is an error, not a crash.
    assert!(matches!(
        parse_pdn("[x\"")[..],
        [Err(GameError::Syntax { line: 1, .. })]
    ));
}

#[test]
fn saved_files_read_back_equal() {
    let mut game = Checkers::new();
    for text in [
        "11-15", "23-18", "8-11", "27-23", "4-8", "23-19", "10x14", "19x10", "14x23",
    ] {
        game.try_play(text).unwrap();
    }
    let record = PdnGame::from_game(
        &game,
        vec![
            ("Event".into(), "test".into()),
            ("Result".into(), "*".into()),
        ],
    );
    assert_eq!(
        write_pdn(std::slice::from_ref(&record)),
        "[Event \"test\"]\n[Result \"*\"]\n\
         1. 11-15 23-18 2. 8-11 27-23 3. 4-8 23-19 4. 10-14 19x10 5. 14x23 *\n\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.pdn");
    save_pdn(&path, &[record.clone(), record.clone()]).unwrap();
    let back: Vec<PdnGame> = read_pdn_file(&path)
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back, [record.clone(), record]);
}

#[test]
fn records_of_played_games_carry_result_and_set_up() {
    // Finished: White to move is blocked, so Black won; the set-up is recorded as a FEN tag.
    let blocked = Checkers::from_fen("W:W32:B23,27,28").unwrap();
    let record = PdnGame::from_game(&blocked, vec![("Event".into(), "end".into())]);
    assert_eq!(record.result, PdnResult::BlackWins);
    assert_eq!(record.tag("Result"), Some("1-0"));
    assert_eq!(record.tag("FEN"), Some("W:W32:B23,27,28"));
    // Unfinished: an agreed result in the tags is kept.
    let agreed = PdnGame::from_game(&Checkers::new(), vec![("Result".into(), "1/2-1/2".into())]);
    assert_eq!(agreed.result, PdnResult::Draw);
    assert_eq!(agreed.tags.len(), 1);
}
