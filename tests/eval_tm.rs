//! The Tsetlin Machine as a game evaluator: models trained here, saved in the model format,
//! loaded through `eval=tm:PATH` and used by searches.

#[allow(dead_code)] // each test file uses some of the helpers
mod common;

use rand::Rng as _;
use tmbot::eval::tm::{TmEncoding, TmEvaluator};
use tmbot::eval::Evaluator;
use tmbot::features::hex_connection::HexConnection;
use tmbot::features::Encoder;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::game::{Color, Game};
use tmbot::play::agent::{Agent, AgentError, PlayerAgent};
use tmbot::player::Player;
use tmbot::rng::seeded;
use tmbot::search::Limits;
use tmbot::tm::coalesced::CoalescedTm;
use tmbot::tm::data::Dataset;
use tmbot::tm::multiclass::MultiClassTm;
use tmbot::tm::params::Params;
use tmbot::tm::persist::{Machine, SavedModel};

/// A position's features through the encoder `name`, as the evaluator computes them.
fn bits<G: TmEncoding>(game: &G, name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    Encoder::parse(name)
        .unwrap()
        .encode(game.sample(), &mut out)
        .unwrap();
    out
}

fn save(machine: Machine, encoder: &str, names: Vec<String>, path: &std::path::Path) {
    SavedModel {
        encoder: encoder.to_string(),
        feature_names: names,
        machine,
    }
    .save(path)
    .unwrap();
}

/// Random full 3x3 Hex boards and their winners (class 0: Black wins, 1: White wins).
fn hex_boards(count: usize, seed: u64) -> Vec<(Hex, usize)> {
    let mut rng = seeded(seed);
    (0..count)
        .map(|_| {
            let mut game = Hex::new(3, 3).unwrap();
            for cell in 0..9 {
                game.set_stone(
                    cell,
                    Some(if rng.random_bool(0.5) {
                        Color::Black
                    } else {
                        Color::White
                    }),
                );
            }
            let winner = game.winner().expect("a full board has a winner");
            (game, usize::from(winner == Color::White))
        })
        .collect()
}

/// Connection features and winners of random full 3x3 boards.
fn hex_data(encoder: &HexConnection, count: usize, seed: u64) -> Dataset {
    let mut data = Dataset::with_names(encoder.feature_names());
    for (game, label) in hex_boards(count, seed) {
        data.push(&bits(&game, "hex-connection"), label as u32);
    }
    data
}

/// The machine settings of the 3x3 Hex models.
fn hex_params() -> Params {
    Params {
        clauses: 40,
        threshold: 20,
        specificity: 3.0,
        seed: 5,
        ..Params::default()
    }
}

/// `machine` trained 30 epochs on 400 random full 3x3 boards, also saved at `path`.
fn train_hex_model(mut machine: Machine, path: &std::path::Path) -> Machine {
    let encoder = HexConnection::new(3, 3);
    let data = hex_data(&encoder, 400, 1);
    for _ in 0..30 {
        machine.fit_epoch(&data);
    }
    save(
        machine.clone(),
        "hex-connection",
        encoder.feature_names(),
        path,
    );
    machine
}

#[test]
fn a_hex_model_judges_full_boards_through_the_evaluator() {
    let features = HexConnection::new(3, 3).feature_count();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hex3.tm");
    let machine = MultiClassTm::new(hex_params(), features, 2).unwrap();
    train_hex_model(Machine::PerClass(machine), &path);

    let evaluator = TmEvaluator::<Hex>::load(path.to_str().unwrap()).unwrap();
    let test = hex_boards(300, 2);
    let positions: Vec<Hex> = test.iter().map(|(g, _)| g.clone()).collect();
    let values = evaluator.evaluate(&positions);
    let correct = test
        .iter()
        .zip(&values)
        .filter(|((game, label), value)| {
            // Values are for the side to move; turn them to Black's view.
            let black = if game.side_to_move() == Color::Black {
                value.value
            } else {
                1.0 - value.value
            };
            (black > 0.5) == (*label == 0)
        })
        .count();
    assert!(correct >= 270, "{correct}/300 winners predicted");
    assert!(values
        .iter()
        .all(|v| v.certainty.is_some_and(|c| (0.0..=1.0).contains(&c))));

    // A model for 3x3 on a 5x5 board: neutral values, not a crash.
    let big = Hex::new(5, 5).unwrap();
    assert_eq!(evaluator.evaluate(&[big])[0].value, 0.5);
}

#[test]
fn a_hex_model_for_another_board_size_is_refused_with_both_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hex3.tm");
    let encoder = HexConnection::new(3, 3);
    let machine = MultiClassTm::new(hex_params(), encoder.feature_count(), 2).unwrap();
    save(
        Machine::PerClass(machine),
        "hex-connection",
        encoder.feature_names(),
        &path,
    );
    let path = path.to_str().unwrap();
    let evaluator = TmEvaluator::<Hex>::load(path).unwrap();
    assert_eq!(evaluator.check(&Hex::new(3, 3).unwrap()), Ok(()));
    let err = evaluator.check(&Hex::new(5, 5).unwrap()).unwrap_err();
    assert!(err.contains("3x3") && err.contains("5x5"), "{err}");

    let spec = format!("greedy:eval=tm:{path}");
    let player = Player::<Hex>::from_spec(&spec).unwrap();
    let err = player.check_game(&Hex::new(7, 7).unwrap()).unwrap_err();
    assert_eq!(err.part, format!("eval=tm:{path}"));

    // A match refuses to start the game rather than play it without an evaluation.
    let mut agent = PlayerAgent::<Hex>::from_spec(&spec).unwrap();
    let err = agent.new_game(&Hex::new(5, 5).unwrap(), 1).unwrap_err();
    assert!(
        matches!(&err, AgentError::Setup(m) if m.contains("5x5")),
        "{err}"
    );
    assert!(agent.new_game(&Hex::new(3, 3).unwrap(), 1).is_ok());

    // The engine refuses it at start-up on another size...
    let output = common::run_engine_output(&["hex", "--size", "5", "--player", &spec], "");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("3x3") && stderr.contains("5x5"), "{stderr}");

    // ...and `boardsize` or `param_tmbot player` to a size the model cannot evaluate.
    let out = common::run_engine(
        &["hex", "--size", "3", "--player", &spec],
        &format!("boardsize 7 7\nshowposition\nboardsize 3 3\nparam_tmbot player mcts\nboardsize 4 4\nparam_tmbot player {spec}\n"),
    );
    let replies = common::responses(&out);
    assert!(
        replies[0].starts_with("? ") && replies[0].contains("3x3") && replies[0].contains("7x7"),
        "{}",
        replies[0]
    );
    assert_eq!(replies[1], "= 3/3/3 b\n\n", "the board is unchanged");
    assert_eq!(&replies[2..5], ["= \n\n"; 3]);
    assert!(
        replies[5].starts_with("? ") && replies[5].contains("4x4"),
        "{}",
        replies[5]
    );
}

#[test]
fn a_coalesced_hex_model_evaluates_as_the_machine_predicts() {
    let encoder = HexConnection::new(3, 3);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hex3c.tm");
    let machine = CoalescedTm::new(hex_params(), encoder.feature_count(), 2).unwrap();
    let machine = train_hex_model(Machine::Coalesced(machine), &path);
    let evaluator = TmEvaluator::<Hex>::load(path.to_str().unwrap()).unwrap();
    let test = hex_boards(300, 2);
    let positions: Vec<Hex> = test.iter().map(|(g, _)| g.clone()).collect();
    let values = evaluator.evaluate(&positions);
    let mut correct = 0;
    for ((game, label), value) in test.iter().zip(&values) {
        // The machine's own verdict: class 0 (Black wins) unless class 1 has more votes.
        let mut one = Dataset::new(encoder.feature_count());
        one.push(&bits(game, "hex-connection"), 0);
        let sums = machine.class_sums(one.row(0));
        let black = if sums[1] > sums[0] { 0.0 } else { 1.0 };
        let expected = if game.side_to_move() == Color::Black {
            black
        } else {
            1.0 - black
        };
        assert_eq!(value.value, expected);
        let margin = f64::from((sums[0] - sums[1]).abs()) / 40.0;
        assert_eq!(value.certainty, Some(margin.min(1.0)));
        correct += usize::from((black > 0.5) == (*label == 0));
    }
    assert!(correct >= 270, "{correct}/300 winners predicted");
}

#[test]
fn a_checkers_model_plugs_into_every_search_by_spec() {
    let (_dir, path) = material_model();
    let path = path.as_str();

    let game = Checkers::new();
    for spec in [
        format!("greedy:eval=tm:{path}"),
        format!("avgtree:depth=2,eval=tm:{path}"),
        format!("alphabeta:depth=3,eval=tm:{path}"),
        format!("alphabeta:depth=3,eval=\"knowledge-tm:{path},weight=80\""),
    ] {
        let mut player =
            Player::<Checkers>::from_spec(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let mv = player
            .choose(&game, &Limits::default(), &mut seeded(1))
            .expect("a move");
        let mut legal = Vec::new();
        game.legal_moves(&mut legal);
        assert!(legal.contains(&mv), "{spec} chose an illegal move");
    }

    // Wrong game, missing file and missing path are clear errors.
    let err = Player::<Hex>::from_spec(&format!("greedy:eval=tm:{path}"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("checkers-planes") && err.contains("hex-connection"),
        "{err}"
    );
    let err = Player::<Checkers>::from_spec("greedy:eval=tm:/nonexistent/model.tm")
        .unwrap_err()
        .to_string();
    assert!(err.contains("/nonexistent/model.tm"), "{err}");
    assert!(Player::<Checkers>::from_spec("greedy:eval=tm").is_err());
    let err =
        Player::<Checkers>::from_spec(&format!("greedy:eval=\"knowledge-tm:{path},weight=lots\""))
            .unwrap_err()
            .to_string();
    assert!(err.contains("bad weight 'lots'"), "{err}");
}

#[test]
fn the_knowledge_tm_term_adds_the_machines_expected_outcome() {
    use tmbot::eval::checkers_knowledge::Knowledge;
    use tmbot::eval::checkers_tm_term::KnowledgeWithTm;
    let (_dir, path) = material_model();
    let path = path.as_str();
    let knowledge = Knowledge::default();
    let votes = TmEvaluator::<Checkers>::load(path).unwrap().graded();
    let unweighted = KnowledgeWithTm::new(TmEvaluator::load(path).unwrap(), 0.0);
    let weighted = KnowledgeWithTm::new(TmEvaluator::load(path).unwrap(), 80.0);
    let mut rng = seeded(11);
    let mut compared = 0;
    for _ in 0..200 {
        let mut game = Checkers::new();
        let plies = rng.random_range(0..50);
        tmbot::game::play_random_plies(&mut game, &mut rng, plies, |_, _| {});
        if game.outcome().is_some() {
            continue;
        }
        // Weight 0 is the knowledge evaluation itself.
        assert_eq!(
            unweighted.evaluate_one(&game).value,
            knowledge.evaluate_one(&game).value
        );
        // Otherwise the score moves by the weight times the machine's expected outcome.
        let logit = |v: f64| knowledge.scale * (v / (1.0 - v)).ln();
        let score = knowledge.score(game.position(), game.side_to_move());
        let outcome = 2.0 * votes.evaluate_one(&game).value - 1.0;
        let got = logit(weighted.evaluate_one(&game).value);
        assert!(
            (got - (score + 80.0 * outcome)).abs() < 1e-6,
            "{got} {score} {outcome}"
        );
        // The batch and the single position agree.
        assert_eq!(
            weighted.evaluate(std::slice::from_ref(&game))[0],
            weighted.evaluate_one(&game)
        );
        compared += 1;
    }
    assert!(compared > 150, "{compared}");
}

/// A small checkers-planes model of random positions labelled by material from Black's
/// view (0 behind, 1 ahead, 2 level), saved in a temporary folder: the folder (removed when
/// dropped) and the model's path.
fn material_model() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("checkers.tm");
    let mut rng = seeded(3);
    let mut data = Dataset::with_names(tmbot::features::checkers_planes::feature_names());
    for _ in 0..300 {
        let mut game = Checkers::new();
        let plies = rng.random_range(0..60);
        tmbot::game::play_random_plies(&mut game, &mut rng, plies, |_, _| {});
        let p = game.position();
        let label = match p.count(Color::Black).cmp(&p.count(Color::White)) {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Equal => 2,
        };
        data.push(&bits(&game, "checkers-planes"), label);
    }
    let params = Params {
        clauses: 60,
        threshold: 30,
        specificity: 4.0,
        seed: 9,
        ..Params::default()
    };
    let mut machine = MultiClassTm::new(params, 128, 3).unwrap();
    for _ in 0..10 {
        machine.fit_epoch(&data);
    }
    save(
        Machine::PerClass(machine),
        "checkers-planes",
        tmbot::features::checkers_planes::feature_names(),
        &path,
    );
    let path = path.to_str().unwrap().to_string();
    (dir, path)
}

#[test]
fn a_convolutional_checkers_model_evaluates_positions() {
    use tmbot::tm::conv::ConvTm;
    // Label: does Black have a king anywhere? A pattern with no fixed square.
    let mut rng = seeded(11);
    let mut data = Dataset::with_names(tmbot::features::checkers_planes::feature_names());
    let mut positions = Vec::new();
    for _ in 0..200 {
        let mut squares = [0u8; 32];
        for sq in squares.iter_mut() {
            *sq = [0, 0, 0, 1, 3][rng.random_range(0..5)];
        }
        let king = rng.random_bool(0.5);
        if king {
            squares[rng.random_range(0..32)] = 2;
        }
        data.push(
            &tmbot::features::checkers_planes::encode(&squares).unwrap(),
            u32::from(king),
        );
        positions.push(squares);
    }
    // Over seeds 1 to 60 this small machine gets 127 to 187 of the 200 right (mean 162, 34
    // seeds at 160 or more; a machine that learned nothing gets about 100): it sometimes
    // settles early. Seed 1 gets 168.
    let params = Params {
        clauses: 20,
        threshold: 10,
        specificity: 3.0,
        seed: 1,
        ..Params::default()
    };
    let mut machine = ConvTm::new(
        params,
        tmbot::features::checkers_planes::patch_grid(2).unwrap(),
        2,
    )
    .unwrap();
    for _ in 0..10 {
        machine.fit_epoch(&data);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conv.tm");
    SavedModel {
        encoder: "checkers-planes".to_string(),
        feature_names: tmbot::features::checkers_planes::feature_names(),
        machine: Machine::Conv(machine.clone()),
    }
    .save(&path)
    .unwrap();
    let evaluator = TmEvaluator::<Checkers>::load(path.to_str().unwrap()).unwrap();
    // The evaluator's value is the machine's own prediction (2 classes: loss 0, win 1; ties
    // to the lower class), Black to move at the start.
    let game = Checkers::new();
    let value = evaluator.evaluate(std::slice::from_ref(&game))[0];
    let mut start = Dataset::new(128);
    start.push(&bits(&game, "checkers-planes"), 0);
    let sums = machine.class_sums(start.row(0));
    let predicted = if sums[1] > sums[0] { 1.0 } else { 0.0 };
    assert_eq!(value.value, predicted);
    // And it learned the position-free pattern on its training data.
    let correct = (0..data.len()).filter(|&i| {
        let sums = machine.class_sums(data.row(i));
        usize::from(sums[1] > sums[0]) == data.labels()[i] as usize
    });
    let correct = correct.count();
    assert!(
        correct >= 160,
        "a black king anywhere is learned: {correct} of {}",
        data.len()
    );
    let mut player =
        Player::<Checkers>::from_spec(&format!("greedy:eval=tm:{}", path.display())).unwrap();
    assert!(player
        .choose(&game, &Limits::default(), &mut seeded(2))
        .is_some());
}

#[test]
fn the_votes_value_follows_the_class_sums() {
    let encoder = HexConnection::new(3, 3);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hex3v.tm");
    let machine = CoalescedTm::new(hex_params(), encoder.feature_count(), 2).unwrap();
    let machine = train_hex_model(Machine::Coalesced(machine), &path);
    let t = f64::from(hex_params().threshold);
    let by_class = TmEvaluator::<Hex>::load(path.to_str().unwrap()).unwrap();
    let by_votes = TmEvaluator::<Hex>::load(path.to_str().unwrap())
        .unwrap()
        .graded();
    let positions: Vec<Hex> = hex_boards(200, 3).into_iter().map(|(g, _)| g).collect();
    let classes = by_class.evaluate(&positions);
    let votes = by_votes.evaluate(&positions);
    let mut between = 0;
    for ((game, class), vote) in positions.iter().zip(&classes).zip(&votes) {
        let mut one = Dataset::new(encoder.feature_count());
        one.push(&bits(game, "hex-connection"), 0);
        let sums = machine.class_sums(one.row(0));
        // Black's value: class 0 (Black wins, worth 1) weighted e^(4 s0 / T) against class 1.
        let (w0, w1) = (
            (4.0 * f64::from(sums[0]) / t).exp(),
            (4.0 * f64::from(sums[1]) / t).exp(),
        );
        let black = w0 / (w0 + w1);
        let expected = if game.side_to_move() == Color::Black {
            black
        } else {
            1.0 - black
        };
        assert!((vote.value - expected).abs() < 1e-12);
        // The same side of one half as the winning class, and the same certainty.
        assert!((vote.value - 0.5) * (class.value - 0.5) >= 0.0 || sums[0] == sums[1]);
        assert_eq!(vote.certainty, class.certainty);
        between += usize::from(vote.value > 0.0 && vote.value < 1.0 && vote.value != 0.5);
    }
    assert!(between > 150, "graded values: {between}/200");
    let spec = format!("greedy:eval=tm-votes:{}", path.display());
    assert!(tmbot::player::Player::<Hex>::from_spec(&spec).is_ok());
}
