//! Neural network players: the network's arithmetic against hand computation, seed 003's
//! fast Hex player against the general evaluator on random positions, model files through
//! `eval=ann:PATH`, and networks inside searches.

use std::sync::Arc;
use tmbot::eval::ann::AnnEvaluator;
use tmbot::eval::Evaluator;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::{Hex, HexMove};
use tmbot::game::Game;
use tmbot::nn::encoding::Encoding;
use tmbot::nn::fast_hex;
use tmbot::nn::network::{Activation, Shape};
use tmbot::nn::{NetModel, Network};
use tmbot::player::Player;
use tmbot::rng::{normal, seeded};

fn random_network(sizes: &[usize], activation: Activation, skip: usize, seed: u64) -> Network {
    let shape = Shape {
        sizes: sizes.to_vec(),
        activation,
        skip,
    };
    let mut rng = seeded(seed);
    let weights = (0..shape.genome_len()).map(|_| normal(&mut rng)).collect();
    Network::new(shape, weights).unwrap()
}

#[test]
fn forward_matches_a_hand_computation() {
    // 2 inputs -> 2 hidden -> 1, sigmoid, one direct input.
    let shape = Shape {
        sizes: vec![2, 2, 1],
        activation: Activation::Sigmoid,
        skip: 1,
    };
    assert_eq!(shape.genome_len(), 2 * 3 + 3 + 1);
    #[rustfmt::skip]
    let weights = vec![
        0.5, -1.0,  2.0, 0.25,  // first layer rows
        0.1, -0.2,              // first layer biases
        1.5, -0.5,              // output row
        0.3,                    // output bias
        0.7,                    // direct weight of input 2
    ];
    let net = Network::new(shape, weights).unwrap();
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    let (x0, x1) = (1.0, -2.0);
    let h0 = sig(0.5 * x0 - 1.0 * x1 + 0.1);
    let h1 = sig(2.0 * x0 + 0.25 * x1 - 0.2);
    let expected = sig(1.5 * h0 - 0.5 * h1 + 0.3 + 0.7 * x1);
    assert!((net.forward(&[x0, x1]) - expected).abs() < 1e-15);
}

#[test]
fn activations_and_their_unit_maps_are_monotonic() {
    for activation in Activation::ALL {
        let mut last = f64::NEG_INFINITY;
        for i in -40..=40 {
            let y = activation.to_unit(activation.apply(i as f64 * 0.25));
            assert!((0.0..=1.0).contains(&y), "{activation:?}");
            assert!(y >= last, "{activation:?} at {i}");
            last = y;
        }
        assert_eq!(Activation::parse(activation.name()), Ok(activation));
    }
    assert!(Activation::parse("cubic").unwrap_err().contains("sigmoid"));
}

/// A position reached by `plies` random moves on a 7x7 board.
fn random_position(plies: usize, seed: u64) -> Hex {
    let mut game = Hex::new(7, 7).unwrap();
    let mut rng = seeded(seed);
    let mut moves = Vec::new();
    for _ in 0..plies {
        game.legal_moves(&mut moves);
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        let mv = moves[rand::Rng::random_range(&mut rng, 0..moves.len())];
        game.play(mv);
    }
    game
}

#[test]
fn the_fast_hex_player_agrees_with_the_general_evaluator() {
    for (encoding, hidden, seed) in [
        (Encoding::HexSigned, vec![5], 1),
        (Encoding::HexPlanes, vec![5], 2),
        (Encoding::HexSigned, vec![25, 5], 3),
    ] {
        let inputs = encoding.inputs(49);
        let sizes: Vec<usize> = std::iter::once(inputs).chain(hidden).chain([1]).collect();
        let net = random_network(&sizes, Activation::Sigmoid, 0, seed);
        let model = NetModel::new(encoding, 7, net.clone()).unwrap();
        let eval = AnnEvaluator::new(model);
        let mut scratch = fast_hex::Scratch::default();
        for position in 0..40 {
            let game = random_position(position % 30, seed * 100 + position as u64);
            if game.outcome().is_some() {
                continue;
            }
            let (cells, outputs) = fast_hex::scores(&net, encoding, &game, &mut scratch);
            assert_eq!(
                cells.len(),
                49 - game.board().stones(tmbot::game::Color::Black).len()
                    - game.board().stones(tmbot::game::Color::White).len()
            );
            for (&cell, &out) in cells.iter().zip(outputs) {
                let mut child = game.clone();
                child.play(HexMove::Cell(cell as u16));
                // The evaluator's value is for the side to move after the move (the
                // opponent): one minus the mover's verdict.
                let value = Evaluator::<Hex>::evaluate_one(&eval, &child).value;
                let verdict = Activation::Sigmoid.apply(out);
                assert!((1.0 - value - verdict).abs() < 1e-12, "cell {cell}");
            }
        }
    }
}

#[test]
fn the_fast_player_plays_legal_moves_and_can_take_wins() {
    let net = random_network(&[49, 5, 1], Activation::Sigmoid, 0, 4);
    let mut game = Hex::new(7, 7).unwrap();
    let mut rng = seeded(1);
    let mut scratch = fast_hex::Scratch::default();
    while game.outcome().is_none() {
        let mv = fast_hex::choose(
            &net,
            Encoding::HexSigned,
            &game,
            false,
            &mut rng,
            &mut scratch,
        )
        .unwrap();
        let mut legal = Vec::new();
        game.legal_moves(&mut legal);
        assert!(legal.contains(&mv));
        game.play(mv);
    }
    assert_eq!(
        fast_hex::choose(
            &net,
            Encoding::HexSigned,
            &game,
            false,
            &mut rng,
            &mut scratch
        ),
        None
    );
    // Black to move with a column of six: a1..a6 stones; a7 wins at once.
    let mut game = Hex::new(7, 7).unwrap();
    for (b, w) in [
        ("a1", "g1"),
        ("a2", "g2"),
        ("a3", "g3"),
        ("a4", "g4"),
        ("a5", "g5"),
        ("a6", "g6"),
    ] {
        game.try_play(b).unwrap();
        game.try_play(w).unwrap();
    }
    let win = game.parse_move("a7").unwrap();
    let mv = fast_hex::choose(
        &net,
        Encoding::HexSigned,
        &game,
        true,
        &mut rng,
        &mut scratch,
    );
    assert_eq!(mv, Some(win));
}

#[test]
fn model_files_drive_players_by_spec() {
    let dir = tempfile::tempdir().unwrap();
    let net = random_network(&[49, 5, 1], Activation::Sigmoid, 0, 5);
    let path = dir.path().join("hex7.ann");
    NetModel::new(Encoding::HexSigned, 7, net)
        .unwrap()
        .save(&path)
        .unwrap();
    let spec = format!("greedy:eval=ann:{}", path.display());
    let mut player = Player::<Hex>::from_spec(&spec).unwrap();
    let game = Hex::new(7, 7).unwrap();
    player.check_game(&game).unwrap();
    assert!(player
        .choose(&game, &Default::default(), &mut seeded(1))
        .is_some());
    // Another board size, another game, a missing file: named errors.
    let err = player.check_game(&Hex::new(9, 9).unwrap()).unwrap_err();
    assert!(err.to_string().contains("size 7"), "{err}");
    let err = Player::<Checkers>::from_spec(&spec).unwrap_err();
    assert!(err.to_string().contains("hex network"), "{err}");
    let err = Player::<Hex>::from_spec("greedy:eval=ann:/nonexistent.ann").unwrap_err();
    assert!(err.to_string().contains("/nonexistent.ann"), "{err}");
    std::fs::write(&path, "{\"format\": \"tmbot-ann\"}").unwrap();
    let err = Player::<Hex>::from_spec(&spec).unwrap_err();
    assert!(err.to_string().contains("hex7.ann"), "{err}");
}

#[test]
fn a_blondie_network_searches_checkers() {
    let net = random_network(&[33, 40, 10, 1], Activation::Tanh, 1, 6);
    let model = NetModel::new(Encoding::CheckersBlondie, 0, net).unwrap();
    let eval = Arc::new(AnnEvaluator::new(model));
    let mut player =
        Player::<Checkers>::with_evaluator("alphabeta:depth=4,tt=12", eval, "net").unwrap();
    assert_eq!(player.spec(), "alphabeta:depth=4,tt=12,eval=net");
    let game = Checkers::new();
    let decision = player.decide(&game, &Default::default(), &mut seeded(1));
    assert!(decision.best.is_some());
    assert_eq!(decision.depth, Some(4));
    let eval = Arc::new(AnnEvaluator::new(
        NetModel::new(
            Encoding::CheckersBlondie,
            0,
            random_network(&[33, 40, 10, 1], Activation::Tanh, 1, 6),
        )
        .unwrap(),
    ));
    let err = Player::<Checkers>::with_evaluator("mcts", eval.clone(), "net").unwrap_err();
    assert!(err.to_string().contains("only greedy"), "{err}");
    let err = Player::<Checkers>::with_evaluator("greedy:eval=material", eval, "net").unwrap_err();
    assert!(err.to_string().contains("given"), "{err}");
}
