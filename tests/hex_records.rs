//! Hex state bookkeeping and records: play/undo round trips, incremental hash, swap rules
//! (Benzene and HexGui meanings), SGF and position-string round trips, bad input.

use proptest::prelude::*;
use rand::Rng as _;
use tmbot::game::hex::notation::{diagram, parse_position_text};
use tmbot::game::hex::sgf::SgfRecord;
use tmbot::game::hex::{Hex, HexMove, SwapRule};
use tmbot::game::{Color, Game, MoveError, Reason};
use tmbot::rng;

const RULES: [SwapRule; 3] = [SwapRule::Off, SwapRule::Benzene, SwapRule::HexGui];

/// Plays `plies` random legal moves (swaps included when offered), checking the hash.
fn random_game(seed: u64, w: usize, h: usize, swap: SwapRule, plies: usize) -> Hex {
    let mut rng = rng::seeded(seed);
    let mut game = Hex::new(w, h).unwrap().with_swap(swap);
    let mut moves = Vec::new();
    for _ in 0..plies {
        game.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        // Prefer a swap when one is offered, so the swap paths get exercised.
        let swap_move = moves
            .iter()
            .copied()
            .find(|m| !matches!(m, HexMove::Cell(_)));
        let mv = match swap_move {
            Some(m) if rng.random_bool(0.5) => m,
            _ => moves[rng.random_range(0..moves.len())],
        };
        game.play(mv);
        assert_eq!(game.hash(), game.recompute_hash());
    }
    game
}

proptest! {
    #[test]
    fn play_undo_round_trips(seed in any::<u64>(), w in 1usize..=13, h in 1usize..=13,
                             rule in 0usize..3, plies in 0usize..80) {
        let game = random_game(seed, w, h, RULES[rule], plies);
        let mut back = game.clone();
        let mut snapshots = Vec::new();
        let mut undone = Vec::new();
        while let Some(mv) = back.undo() {
            prop_assert_eq!(back.hash(), back.recompute_hash());
            snapshots.push((back.position_text(), back.hash(), back.winner()));
            undone.push(mv);
        }
        let fresh = Hex::new(w, h).unwrap();
        prop_assert_eq!(back.position_text(), fresh.position_text());
        prop_assert_eq!(back.hash(), fresh.hash());
        prop_assert_eq!(back.winner(), None);
        // Replaying the same moves gives back every intermediate position.
        for mv in undone.into_iter().rev() {
            let (text, hash, winner) = snapshots.pop().unwrap();
            prop_assert_eq!((back.position_text(), back.hash(), back.winner()), (text, hash, winner));
            back.play(mv);
        }
        prop_assert_eq!(back.position_text(), game.position_text());
        prop_assert_eq!(back.hash(), game.hash());
        prop_assert_eq!(back.outcome(), game.outcome());
    }

    #[test]
    fn sgf_round_trips(seed in any::<u64>(), w in 1usize..=19, h in 1usize..=19,
                       rule in 0usize..3, plies in 0usize..60) {
        let swap = RULES[rule];
        let game = random_game(seed, w, h, swap, plies);
        let record = SgfRecord::from_game(&game);
        let text = record.to_sgf();
        let read = SgfRecord::parse(&text).unwrap();
        prop_assert_eq!(&read.nodes, &record.nodes);
        let replayed = read.replay(swap).unwrap();
        prop_assert_eq!(replayed.position_text(), game.position_text());
        prop_assert_eq!(replayed.hash(), game.hash());
        prop_assert_eq!(replayed.moves().collect::<Vec<_>>(), game.moves().collect::<Vec<_>>());
    }

    #[test]
    fn position_text_round_trips(seed in any::<u64>(), w in 1usize..=19, h in 1usize..=19,
                                 plies in 0usize..100) {
        let game = random_game(seed, w, h, SwapRule::Off, plies);
        let parsed = parse_position_text(&game.position_text()).unwrap();
        prop_assert_eq!(parsed.position_text(), game.position_text());
        prop_assert_eq!(parsed.hash(), game.hash());
        prop_assert_eq!(parsed.winner(), game.winner());
    }

    #[test]
    fn random_text_never_panics_the_readers(text in ".{0,200}") {
        let _ = SgfRecord::parse(&text);
        let _ = parse_position_text(&text);
        let game = Hex::new(11, 11).unwrap();
        let _ = game.parse_move(&text);
    }

    #[test]
    fn mutated_records_never_panic(seed in any::<u64>(), edits in proptest::collection::vec(
            (any::<usize>(), any::<char>(), 0u8..3), 1..6)) {
        let game = random_game(seed, 7, 5, SwapRule::HexGui, 20);
        let mut record = SgfRecord::from_game(&game);
        record.nodes[0].comment = Some("a [tricky] \\ comment: yes".into());
        let mut chars: Vec<char> = record.to_sgf().chars().collect();
        for (at, ch, kind) in edits {
            let at = at % (chars.len() + 1);
            match kind {
                0 => chars.insert(at, ch),
                1 if at < chars.len() => { chars.remove(at); }
                _ => chars.truncate(at),
            }
        }
        let text: String = chars.into_iter().collect();
        if let Ok(read) = SgfRecord::parse(&text) {
            for rule in RULES {
                let _ = read.replay(rule);
            }
        }
    }
}

fn cell(game: &Hex, name: &str) -> HexMove {
    HexMove::Cell(game.parse_cell(name).unwrap() as u16)
}

#[test]
fn swap_is_off_by_default() {
    let mut game = Hex::new(5, 5).unwrap();
    game.play(cell(&game, "a2"));
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert!(moves.iter().all(|m| matches!(m, HexMove::Cell(_))));
    assert!(matches!(
        game.parse_move("swap-pieces"),
        Err(MoveError::Illegal(_))
    ));
}

#[test]
fn benzene_swap_pieces_keeps_the_board_and_white_moves_again() {
    let mut game = Hex::new(7, 7).unwrap().with_swap(SwapRule::Benzene);
    game.play(cell(&game, "a2"));
    let before = game.position_text();
    let mv = game.parse_move("swap-pieces").unwrap();
    assert!(game.parse_move("swap-sides").is_err());
    game.play(mv);
    assert_eq!(game.position_text(), before);
    assert_eq!(game.side_to_move(), Color::White);
    game.play(cell(&game, "g5"));
    assert_eq!(game.side_to_move(), Color::Black);
    assert!(game.parse_move("swap").is_err(), "only as move 2");
    // The record reads back in Benzene's form, naming its swap rule.
    let text = SgfRecord::from_game(&game).to_sgf();
    let expected = format!(
        "(;FF[4]AP[tmbot:{}]GM[11]SZ[7]RU[swap:benzene];B[a2];W[swap-pieces];W[g5])",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(text.trim_end(), expected);
}

#[test]
fn hexgui_swap_pieces_reflects_and_recolours_the_stone() {
    let mut game = Hex::new(7, 7).unwrap().with_swap(SwapRule::HexGui);
    game.play(cell(&game, "a2"));
    let hash_after_first = game.hash();
    game.play(game.parse_move("swap-pieces").unwrap());
    assert_eq!(game.stone(game.parse_cell("a2").unwrap()), None);
    assert_eq!(
        game.stone(game.parse_cell("b1").unwrap()),
        Some(Color::White)
    );
    assert_eq!(game.side_to_move(), Color::Black);
    assert_eq!(game.hash(), game.recompute_hash());
    assert_eq!(game.undo(), Some(HexMove::SwapPieces));
    assert_eq!(
        game.stone(game.parse_cell("a2").unwrap()),
        Some(Color::Black)
    );
    assert_eq!(game.hash(), hash_after_first);
}

#[test]
fn hexgui_swap_pieces_keeps_connectivity_exact() {
    // On a 1x1 board... use 2x2: Black b1 then swap-pieces puts White on a2, which touches
    // White's left edge only; White's b2 then joins the right edge: White wins.
    let mut game = Hex::new(2, 2).unwrap().with_swap(SwapRule::HexGui);
    game.play(cell(&game, "b1"));
    game.play(HexMove::SwapPieces);
    assert_eq!(game.winner(), None);
    game.play(cell(&game, "a1"));
    game.play(cell(&game, "b2"));
    assert_eq!(game.winner(), Some(Color::White));
    game.undo();
    game.undo();
    game.undo();
    game.undo();
    game.play(cell(&game, "b2"));
    assert_eq!(
        game.winner(),
        None,
        "b1 and b2 join Black's edges only with b1 present"
    );
}

#[test]
fn hexgui_swap_sides_changes_nothing_on_the_board() {
    let mut game = Hex::new(6, 6).unwrap().with_swap(SwapRule::HexGui);
    game.play(cell(&game, "c3"));
    let (text, hash) = (game.position_text(), game.hash());
    let mv = game.parse_move("swap").unwrap();
    assert_eq!(mv, HexMove::SwapSides);
    game.play(mv);
    assert_eq!((game.position_text(), game.hash()), (text, hash));
    assert_eq!(game.side_to_move(), Color::White);
}

#[test]
fn hexgui_swap_pieces_needs_the_reflection_on_the_board() {
    let mut game = Hex::new(3, 5).unwrap().with_swap(SwapRule::HexGui);
    game.play(cell(&game, "a5"));
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert!(moves.contains(&HexMove::SwapSides));
    assert!(
        !moves.contains(&HexMove::SwapPieces),
        "e1 is off a 3x5 board"
    );
}

#[test]
fn place_has_no_turn_order_and_resign_ends_the_game() {
    let mut game = Hex::new(11, 11).unwrap();
    game.place(Color::White, game.parse_cell("C1").unwrap())
        .unwrap();
    game.place(Color::White, game.parse_cell("d1").unwrap())
        .unwrap();
    assert_eq!(game.side_to_move(), Color::Black);
    assert!(game
        .place(Color::Black, game.parse_cell("c1").unwrap())
        .is_err());
    game.play(HexMove::Resign);
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason),
        (Some(Color::White), Reason::Resignation)
    );
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert!(moves.is_empty());
    game.undo();
    assert!(game.outcome().is_none());
}

#[test]
fn legal_moves_are_empty_once_connected() {
    let mut game = Hex::new(3, 3).unwrap();
    for name in ["b1", "a1", "b2", "a2", "b3"] {
        game.play(cell(&game, name));
    }
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason),
        (Some(Color::Black), Reason::Connection)
    );
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert!(game.parse_move("c1").is_err());
}

#[test]
fn boards_from_1_to_19_and_past_z() {
    for (w, h) in [(1, 1), (19, 19), (19, 20), (30, 12), (1, 63)] {
        let game = Hex::new(w, h).unwrap();
        assert_eq!(game.cell_count(), w * h);
    }
    let wide = Hex::new(30, 12).unwrap();
    assert_eq!(wide.cell_name(wide.cell(27, 11)), "ab12");
    assert!(Hex::new(0, 5).is_err());
    assert!(Hex::new(20, 20).is_err(), "more than 384 cells");
    let mut one = Hex::new(1, 1).unwrap();
    one.play(HexMove::Cell(0));
    assert_eq!(one.winner(), Some(Color::Black));
}

#[test]
fn diagram_shifts_each_row_right() {
    let mut game = Hex::new(3, 3).unwrap();
    game.play(cell(&game, "b2"));
    game.play(cell(&game, "c1"));
    let expected = concat!(
        "   a b c\n",
        "1  . . W 1\n",
        " 2  . B . 2\n",
        "  3  . . . 3\n",
        "     a b c\n",
    );
    assert_eq!(diagram(&game), expected);
    assert_eq!(game.position_text(), "2w/1b1/3 b");
}

#[test]
fn sgf_reads_setup_comments_and_non_square_sizes() {
    let text = "(;FF[4]AP[HexGui:0.10]GM[11]SZ[4:3]AB[a1][B2]AW[c3]C[start \\] here]\n\
                ;W[d1];B[resign])";
    let record = SgfRecord::parse(text).unwrap();
    assert_eq!((record.width, record.height), (4, 3));
    assert_eq!(record.nodes[0].comment.as_deref(), Some("start ] here"));
    let game = record.replay(SwapRule::Off).unwrap();
    assert_eq!(game.position_text(), "b2w/1b2/2w1 b");
    assert_eq!(game.outcome().unwrap().winner, Some(Color::White));
    let again = SgfRecord::parse(&record.to_sgf()).unwrap();
    assert_eq!(again, record);
}

#[test]
fn sgf_rejects_bad_records_with_locations() {
    let cases = [
        ("(;FF[4]SZ[5])", "missing GM"),
        ("(;GM[11]SZ[5];B[f1])", "line 1, column 15"),
        ("(;GM[11]SZ[5];B[a1];W[a1])", "node 3"),
        ("(;GM[11]SZ[5];B[a1];B[swap-pieces])", "node 3"),
        ("(;GM[11]SZ[5];B[a1]", "line 1, column 20"),
        ("(;GM[11]SZ[5]PL[x])", "line 1, column 14"),
        (
            "(;GM[11]SZ[5]AB[a1][b1]PL[B])",
            "2 black and 0 white stones with black to move",
        ),
        ("(;GM[11]SZ[5];B[a1];AW[c1][c2]PL[W])", "node 3"),
    ];
    for (text, wanted) in cases {
        let err = SgfRecord::parse(text)
            .and_then(|r| r.replay(SwapRule::Benzene))
            .unwrap_err()
            .to_string();
        assert!(err.contains(wanted), "{text}: {err}");
    }
    let mut record = SgfRecord::parse("(;GM[11]SZ[3])").unwrap();
    record.nodes[0].setup.push((9, Some(Color::Black)));
    assert!(record.replay(SwapRule::Off).is_err());
    let deep = format!("(;GM[11]{}", "(;".repeat(10_000));
    assert!(SgfRecord::parse(&deep).is_err());
}

#[test]
fn position_text_errors() {
    for bad in [
        "",
        "3/3/3",
        "3/3/2 b",
        "3/3/3 x",
        "3/3q/3 b",
        "99/99 b",
        "3/3/3 b extra",
    ] {
        assert!(parse_position_text(bad).is_err(), "{bad}");
    }
}

#[test]
fn position_texts_with_stone_counts_no_game_reaches_are_refused() {
    // Each move adds a stone of the mover's colour: the side to move has as many stones as
    // the other side (or, after HexGui's reflecting swap-pieces, one fewer).
    for bad in [
        "3/1b1/3 b",
        "3/bb1/3 w",
        "3/1w1/3 w",
        "3/ww1/3 b",
        "bbb/w2/3 w",
    ] {
        let err = parse_position_text(bad).unwrap_err();
        assert!(err.message.contains("no game reaches that"), "{bad}: {err}");
    }
    let err = parse_position_text("3/bbb/3 b").unwrap_err().to_string();
    assert!(
        err.contains("3 black and 0 white stones with black to move"),
        "{err}"
    );
    for good in [
        "3/3/3 b",
        "3/1b1/3 w",
        "3/bw1/3 b",
        "3/1w1/3 b",
        "3/bw1/3 w",
    ] {
        let game = parse_position_text(good).unwrap();
        assert_eq!(game.position_text(), good);
    }
    // Every position of a game, swaps included, reads back.
    for swap in [SwapRule::Off, SwapRule::Benzene, SwapRule::HexGui] {
        let mut game = random_game(7, 5, 5, swap, 12);
        loop {
            let text = game.position_text();
            assert!(parse_position_text(&text).is_ok(), "{swap:?}: {text}");
            if game.undo().is_none() {
                break;
            }
        }
    }
}

#[test]
fn sgf_files_save_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.sgf");
    let record = SgfRecord::from_game(&random_game(4, 9, 9, SwapRule::HexGui, 30));
    record.save(&path).unwrap();
    assert_eq!(SgfRecord::load(&path).unwrap(), record);
    std::fs::write(&path, "(;GM[1])").unwrap();
    let err = SgfRecord::load(&path).unwrap_err().to_string();
    assert!(err.contains("game.sgf") && err.contains("GM[11]"), "{err}");
}
