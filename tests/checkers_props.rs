//! Property tests on random games: play/undo, hashing, FEN, digit boards, move text and PDN
//! round trips; readers never panic on arbitrary or mutated input.

use proptest::prelude::*;
use rand::Rng as _;
use tmbot::game::checkers::{
    parse_digits, parse_fen, parse_pdn, to_digits, to_fen, write_pdn, zobrist, CaptureMode,
    Checkers, DrawRules, PdnGame, Position,
};
use tmbot::game::Game;
use tmbot::rng;
use tmbot::search::SearchGame;

/// A random game of up to `plies` moves from the start, drawn from `seed`.
fn random_game(seed: u64, plies: usize) -> Checkers {
    let mut rng = rng::seeded(seed);
    let mut game = Checkers::new();
    tmbot::game::play_random_plies(&mut game, &mut rng, plies, |_, _| {});
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn play_undo_hash_and_text_round_trips(seed in any::<u64>(), plies in 0usize..150) {
        let mut game = random_game(seed, plies);
        let mut moves = Vec::new();
        let mut paths = Vec::new();
        loop {
            let pos = *game.position();
            prop_assert_eq!(game.hash(), zobrist::hash(&pos));
            prop_assert_eq!(parse_fen(&to_fen(&pos)), Ok(pos));
            prop_assert_eq!(parse_digits(&to_digits(&pos), pos.side_to_move()), Ok(pos));
            game.legal_moves(&mut moves);
            for &mv in &moves {
                prop_assert_eq!(game.parse_move(&game.move_to_text(mv)), Ok(mv));
                prop_assert_eq!(game.parse_move(&mv.path_text()), Ok(mv));
                let mut next = game.clone();
                next.play(mv);
                prop_assert_eq!(next.hash(), zobrist::hash(next.position()));
                prop_assert_eq!(game.hash_after(mv), Some(next.hash()));
                prop_assert_eq!(next.undo(), Some(mv));
                prop_assert_eq!(next.position(), &pos);
                prop_assert_eq!(next.hash(), game.hash());
            }
            // Every jump path has the effect of exactly one distinct move.
            // (`moves` is empty once a draw is adjudicated; the position still has its moves.)
            let distinct = pos.legal_moves();
            pos.generate_moves(CaptureMode::Paths, &mut paths);
            for path in &paths {
                prop_assert_eq!(distinct.iter().filter(|m| m.same_effect(path)).count(), 1);
            }
            if game.undo().is_none() {
                break;
            }
        }
        prop_assert_eq!(game.position(), &Position::start());
    }

    #[test]
    fn random_games_survive_pdn_round_trips(seed in any::<u64>(), plies in 0usize..200) {
        let game = random_game(seed, plies).with_rules(DrawRules::NONE);
        let record = PdnGame::from_game(&game, vec![("Event".into(), format!("seed {seed}"))]);
        let text = write_pdn(std::slice::from_ref(&record));
        let back = parse_pdn(&text);
        prop_assert_eq!(back.len(), 1);
        let read = back[0].clone().unwrap();
        prop_assert_eq!(&read, &record);
        let replayed = read.replay().unwrap();
        prop_assert_eq!(replayed.position(), game.position());
        prop_assert_eq!(replayed.moves().collect::<Vec<_>>(), game.moves().collect::<Vec<_>>());
    }

    #[test]
    fn fast_playout_matches_the_generic_one(
        seed in any::<u64>(),
        plies in 0usize..120,
        kings_only in any::<bool>(),
        max_plies in 0usize..300,
    ) {
        // Kings-only positions exercise repetition and the no-progress limit.
        let game = if kings_only {
            let mut game = Checkers::from_fen("B:WK32,K31,K24:BK1,K2,K9").unwrap();
            let mut rng = rng::seeded(seed);
            tmbot::game::play_random_plies(&mut game, &mut rng, plies % 40, |_, _| {});
            game
        } else {
            random_game(seed, plies)
        };
        let mut fast_rng = rng::substream(seed, 1);
        let mut generic_rng = fast_rng.clone();
        let fast = game.random_playout(&mut fast_rng, max_plies);
        let mut generic = game.clone();
        let mut moves = Vec::new();
        for _ in 0..max_plies {
            generic.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            generic.play(moves[generic_rng.random_range(0..moves.len())]);
        }
        prop_assert_eq!(fast, generic.outcome());
        prop_assert_eq!(fast_rng.random::<u64>(), generic_rng.random::<u64>());
    }

    #[test]
    fn fen_reader_never_panics(text in ".{0,80}") {
        let _ = parse_fen(&text);
    }

    #[test]
    fn mutated_fens_never_panic(seed in any::<u64>(), cuts in proptest::collection::vec((0usize..120, any::<char>()), 1..6)) {
        let mut text: Vec<char> = to_fen(random_game(seed, 40).position()).chars().collect();
        for (at, c) in cuts {
            let at = at % (text.len() + 1);
            match c as u32 % 3 {
                0 => text.insert(at, c),
                1 if at < text.len() => { text.remove(at); }
                _ if at < text.len() => text[at] = c,
                _ => {}
            }
        }
        let text: String = text.into_iter().collect();
        if let Ok(pos) = parse_fen(&text) {
            prop_assert_eq!(parse_fen(&to_fen(&pos)), Ok(pos));
        }
    }

    #[test]
    fn pdn_and_move_readers_never_panic(text in "[\\[\\]{}();\"0-9x*/. \\n-]{0,120}") {
        for game in parse_pdn(&text).into_iter().flatten() {
            let _ = game.replay();
        }
        let _ = Checkers::new().parse_move(&text);
        let _ = parse_digits(&text, tmbot::game::Color::Black);
    }
}
