//! Checkers searches against oracles: forced wins found at their exact distance (checked
//! by an independent brute-force minimax), quiescence, and the material evaluator.

use tmbot::eval::checkers::Material;
use tmbot::eval::Evaluator;
use tmbot::game::checkers::Checkers;
use tmbot::game::Game;
use tmbot::rng::seeded;
use tmbot::search::alphabeta::{centi_score, AlphaBeta, WIN};
use tmbot::search::Limits;

/// Brute force: can the side to move force a win within `plies` plies?
fn forced_win(game: &mut Checkers, plies: u32) -> bool {
    if plies == 0 {
        return false;
    }
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    moves.iter().any(|&mv| {
        game.play(mv);
        let won = match game.outcome() {
            Some(outcome) => outcome.winner.is_some(),
            None => forced_loss(game, plies - 1),
        };
        game.undo();
        won
    })
}

/// Brute force: does the side to move lose within `plies` plies whatever it does?
fn forced_loss(game: &mut Checkers, plies: u32) -> bool {
    if let Some(outcome) = game.outcome() {
        return outcome.winner == Some(game.side_to_move().opponent());
    }
    if plies == 0 {
        return false;
    }
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    moves.iter().all(|&mv| {
        game.play(mv);
        let lost = forced_win(game, plies - 1);
        game.undo();
        lost
    })
}

/// The length in plies of the shortest forced win (positive) or loss (negative) of the side
/// to move, if one ends within `max` plies.
fn forced_distance(fen: &str, max: u32) -> Option<i32> {
    let mut game = Checkers::from_fen(fen).unwrap();
    (1..=max).find_map(|plies| {
        if forced_win(&mut game, plies) {
            Some(plies as i32)
        } else if forced_loss(&mut game, plies) {
            Some(-(plies as i32))
        } else {
            None
        }
    })
}

fn search(
    fen: &str,
    depth: u32,
) -> tmbot::search::alphabeta::SearchReport<tmbot::game::checkers::Move> {
    let game = Checkers::from_fen(fen).unwrap();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    AlphaBeta::new(16).search(&game, &Material::default(), &limits, &mut seeded(1))
}

#[test]
fn forced_results_are_found_at_their_exact_distance() {
    // (position, plies to the forced result for the side to move: + win, - loss), the
    // distances confirmed by brute force below.
    let positions = [
        ("B:W18:B14", 1),
        ("W:W18:B14", 1),
        ("B:W27,31:BK19,K22", 7),
        ("B:W29,30:BK22,K26", 9),
        ("W:WK24:BK15,K23,K28", -4),
    ];
    for (fen, distance) in positions {
        assert_eq!(forced_distance(fen, 9), Some(distance), "oracle for {fen}");
        let report = search(fen, 12);
        let expected = if distance > 0 {
            WIN - distance
        } else {
            -(WIN + distance)
        };
        assert_eq!(report.score, expected, "{fen}");
        // Found no deeper than the distance (quiescence may see captures sooner).
        assert!(
            report.depth as i32 <= distance.abs(),
            "{fen}: depth {}",
            report.depth
        );
        // The move played keeps the win: after it, the opponent loses within distance - 1.
        if distance > 0 {
            let mut game = Checkers::from_fen(fen).unwrap();
            game.play(report.best.unwrap());
            assert!(
                game.outcome()
                    .is_some_and(|o| o.winner == Some(game.side_to_move().opponent()))
                    || forced_loss(&mut game, distance as u32 - 1),
                "{fen}"
            );
        }
    }
}

#[test]
fn quiescence_sees_the_exchange_beyond_the_horizon() {
    // Black must take 14x22; White's 27 then takes back 27x18. A depth-1 search stops in a
    // position with White's capture pending, so quiescence plays it out: the score is the
    // evaluation of the quiet position after the exchange (Black 1 against White 18, 32).
    let report = search("B:W18,27,32:B14,1", 1);
    let quiet = Checkers::from_fen("B:W18,32:B1").unwrap();
    let expected = centi_score(Material::default().evaluate(&[quiet])[0].value);
    assert_eq!(report.score, expected);
    assert_eq!(report.nodes, 2);
}

#[test]
fn same_seed_same_search() {
    let a = search("B:W21-32:B1-12", 6);
    let b = search("B:W21-32:B1-12", 6);
    assert_eq!(a, b);
    assert_eq!(a.depth, 6);
}

/// With the endgame databases loaded, alpha-beta scores solved positions at their exact
/// distance to the end from the first ply, and a player that probes them converts two kings
/// against one, which a search of the same depth without them need not.
#[test]
fn endgame_databases_give_exact_scores_and_convert_won_endings() {
    use tmbot::game::Solved;
    use tmbot::player::Player;
    use tmbot::search::SearchGame;
    Checkers::load_solved("3").unwrap();
    let limits = Limits {
        depth: Some(2),
        ..Limits::default()
    };
    for fen in [
        "B:WK18:BK1,K32",
        "B:WK6:BK27,K28",
        "W:WK18:BK1,K32",
        "B:W18:BK1",
    ] {
        let game = Checkers::from_fen(fen).unwrap();
        let expected = match game.solved().unwrap() {
            Solved::Win(plies) => WIN - plies as i32,
            Solved::Loss(plies) => -(WIN - plies as i32),
            Solved::Draw => 0,
        };
        let report = AlphaBeta::new(12).probing_solved().search(
            &game,
            &Material::default(),
            &limits,
            &mut seeded(1),
        );
        assert_eq!(report.score, expected, "{fen}");
    }
    // Two kings against one, the defender searching as deep without the databases.
    let mut attacker = Player::<Checkers>::from_spec("alphabeta:depth=4,endgame=3").unwrap();
    let mut defender = Player::<Checkers>::from_spec("alphabeta:depth=4").unwrap();
    let mut game = Checkers::from_fen("B:WK14:BK1,K32").unwrap();
    let Some(Solved::Win(plies)) = game.solved() else {
        panic!("two kings against one is a win");
    };
    let mut rng = seeded(3);
    while game.outcome().is_none() && game.ply() <= plies as usize {
        let player = if game.side_to_move() == tmbot::game::Color::Black {
            &mut attacker
        } else {
            &mut defender
        };
        let mv = player.choose(&game, &Limits::default(), &mut rng).unwrap();
        game.play(mv);
    }
    let outcome = game.outcome().expect("the win within its distance");
    assert_eq!(outcome.winner, Some(tmbot::game::Color::Black));
    // Asking for more pieces than a game has databases for, or for another game, is an error.
    let err = Player::<Checkers>::from_spec("alphabeta:endgame=5").unwrap_err();
    assert!(err.to_string().contains("endgame=5"), "{err}");
}
