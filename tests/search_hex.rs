//! Hex searches against oracles: positions whose only winning move is known by brute force,
//! the solved 5x5 openings, and reproducibility from the seed.

use rand::Rng as _;
use tmbot::game::hex::{Hex, HexMove};
use tmbot::game::Game;
use tmbot::player::Player;
use tmbot::rng::{seeded, substream};
use tmbot::search::mcts::{Mcts, MctsConfig};
use tmbot::search::Limits;

/// Brute force: does the side to move win with perfect play?
fn wins(game: &mut Hex) -> bool {
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    moves.into_iter().any(|mv| {
        game.play(mv);
        let won = game.outcome().is_some() || !wins(game);
        game.undo();
        won
    })
}

/// The winning moves of the side to move, by brute force.
fn winning_moves(game: &Hex) -> Vec<HexMove> {
    let mut game = game.clone();
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    moves
        .into_iter()
        .filter(|&mv| {
            game.play(mv);
            let won = game.outcome().is_some() || !wins(&mut game);
            game.undo();
            won
        })
        .collect()
}

/// Random 5x5 positions with `stones` stones, no winner yet and exactly one winning move
/// for the side to move, with that move.
fn single_win_positions(count: usize, stones: usize) -> Vec<(Hex, HexMove)> {
    let mut found = Vec::new();
    for seed in 0.. {
        let mut rng = substream(2024, seed);
        let mut game = Hex::new(5, 5).unwrap();
        let mut moves = Vec::new();
        for _ in 0..stones {
            game.legal_moves(&mut moves);
            game.play(moves[rng.random_range(0..moves.len())]);
        }
        if game.outcome().is_some() {
            continue;
        }
        if let [only] = winning_moves(&game)[..] {
            found.push((game, only));
            if found.len() == count {
                break;
            }
        }
    }
    found
}

fn playouts(n: u64) -> Limits {
    Limits {
        playouts: Some(n),
        ..Limits::default()
    }
}

#[test]
fn mcts_finds_the_only_winning_move() {
    for (game, only) in single_win_positions(4, 14) {
        for spec in [
            "mcts:playouts=20000",
            "mcts:playouts=20000,rave=300",
            "mcts:playouts=20000,patterns=on,threads=2",
            "mcts:playouts=20000,patterns=prune",
        ] {
            let mut player = Player::<Hex>::from_spec(spec).unwrap();
            let chosen = player.choose(&game, &Limits::default(), &mut seeded(5));
            assert_eq!(
                chosen,
                Some(only),
                "{spec} in {}: the only winning move is {}",
                game.position_text(),
                game.move_to_text(only)
            );
        }
    }
}

#[test]
fn alphabeta_solves_the_only_winning_move() {
    for (game, only) in single_win_positions(2, 16) {
        let mut player = Player::<Hex>::from_spec("alphabeta:depth=9").unwrap();
        let chosen = player.choose(&game, &Limits::default(), &mut seeded(5));
        assert_eq!(chosen, Some(only), "{}", game.position_text());
    }
}

#[test]
fn mcts_opens_5x5_on_a_winning_cell() {
    // Solved 5x5 openings (Black moves first): the cells where Black's first stone wins.
    let winning = [
        "e1", "b2", "c2", "d2", "e2", "b3", "c3", "d3", "a4", "b4", "c4", "d4", "a5",
    ];
    let game = Hex::new(5, 5).unwrap();
    for seed in 0..3 {
        let mut mcts = Mcts::new(MctsConfig::default());
        let mv = mcts
            .search(&game, &playouts(30_000), &mut seeded(seed))
            .best
            .unwrap();
        let name = game.move_to_text(mv);
        assert!(
            winning.contains(&name.as_str()),
            "seed {seed} opened {name}"
        );
    }
}

#[test]
fn searches_are_reproducible_from_the_seed() {
    let mut game = Hex::new(9, 9).unwrap();
    game.try_play("e5").unwrap();
    let config = MctsConfig {
        threads: 2,
        rave: Some(500.0),
        ..MctsConfig::default()
    };
    let a = Mcts::new(config.clone()).search(&game, &playouts(5000), &mut seeded(11));
    let b = Mcts::new(config).search(&game, &playouts(5000), &mut seeded(11));
    assert_eq!(a, b);
    assert_eq!(a.simulations, 5000);
}
