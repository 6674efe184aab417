//! The referee: games end with the right termination class and result, faults are blamed on
//! the agent at fault, records replay, and the same seed gives the same game.

use std::time::Duration;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::game::{Color, Game};
use tmbot::play::record::{GameResult, Termination};
use tmbot::play::{
    play_game, Agent, AgentError, Choice, GameSettings, PlayerAgent, TimeControl, Turn,
};
use tmbot::stop::StopFlag;

/// An agent that plays the first legal move, then after `good` moves does what `fault` says.
struct Scripted {
    good: usize,
    played: usize,
    fault: Fault,
}

#[derive(Clone, Copy)]
enum Fault {
    Error(fn() -> AgentError),
    Sleep(Duration),
    Resign,
    SetupFails,
}

impl Scripted {
    fn new(good: usize, fault: Fault) -> Scripted {
        Scripted {
            good,
            played: 0,
            fault,
        }
    }
}

impl<G: Game> Agent<G> for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    fn new_game(&mut self, _start: &G, _seed: u64) -> Result<(), AgentError> {
        self.played = 0;
        match self.fault {
            Fault::SetupFails => Err(AgentError::Setup("cannot start".into())),
            _ => Ok(()),
        }
    }

    fn genmove(&mut self, turn: &Turn<'_, G>) -> Result<Choice<G::Move>, AgentError> {
        self.played += 1;
        if self.played > self.good {
            match self.fault {
                Fault::Error(make) => return Err(make()),
                Fault::Sleep(time) => std::thread::sleep(time),
                Fault::Resign => return Ok(Choice::resign()),
                Fault::SetupFails => {}
            }
        }
        let mut moves = Vec::new();
        turn.game.legal_moves(&mut moves);
        Ok(Choice::bare(moves[0]))
    }
}

fn hex(size: usize) -> Hex {
    Hex::new(size, size).unwrap()
}

fn random() -> PlayerAgent<Hex> {
    PlayerAgent::from_spec("random").unwrap()
}

#[test]
fn a_normal_game_replays_from_its_record_and_repeats_with_its_seed() {
    let start = hex(5);
    let settings = GameSettings::default();
    let mut a = PlayerAgent::<Hex>::from_spec("mcts:playouts=100").unwrap();
    let mut b = random();
    let record = play_game(&start, &[], [&mut a, &mut b], &settings, 42);
    assert_eq!(record.termination, Termination::Normal);
    assert_eq!(record.players[0], "mcts:playouts=100");
    let text = record.to_text(&start);
    let replayed: Hex = text.replay().unwrap();
    let outcome = replayed.outcome().expect("the game is over");
    assert_eq!(GameResult::win(outcome.winner.unwrap()), record.result);
    // Black's moves carry MCTS's report.
    assert!(record
        .moves
        .iter()
        .step_by(2)
        .all(|m| m.decision.playouts == Some(100)));
    // The same seed gives the same game (times aside).
    let moves = |t: &tmbot::play::record::TextRecord| -> Vec<(String, Option<f64>)> {
        t.moves.iter().map(|m| (m.mv.clone(), m.value)).collect()
    };
    let again = play_game(&start, &[], [&mut a, &mut b], &settings, 42).to_text(&start);
    assert_eq!((moves(&again), again.result), (moves(&text), text.result));
    let other = play_game(&start, &[], [&mut a, &mut b], &settings, 43);
    assert_ne!(other.to_text(&start).moves, text.moves);
}

#[test]
fn openings_are_played_before_the_agents_and_recorded_apart() {
    let start = hex(4);
    let opening = [start.parse_move("b2").unwrap()];
    let (mut a, mut b) = (random(), random());
    let record = play_game(
        &start,
        &opening,
        [&mut a, &mut b],
        &GameSettings::default(),
        1,
    );
    let text = record.to_text(&start);
    assert_eq!(text.opening, vec!["b2".to_string()]);
    assert_ne!(text.moves[0].mv, "b2");
    // After the opening White is to move, so White's agent plays first.
    let replayed: Hex = text.replay().unwrap();
    assert_eq!(
        replayed.stone(start.parse_cell("b2").unwrap()),
        Some(Color::Black)
    );
}

fn faulty_game(fault: Fault, settings: &GameSettings) -> (Termination, GameResult) {
    let start = hex(5);
    let mut good = random();
    let mut bad = Scripted::new(2, fault);
    // The faulty agent plays White.
    let record = play_game(&start, &[], [&mut good, &mut bad], settings, 7);
    (record.termination, record.result)
}

#[test]
fn faults_are_classified_and_lose_for_the_agent_at_fault() {
    let untimed = GameSettings::default();
    let cases: [(fn() -> AgentError, Termination); 5] = [
        (|| AgentError::Closed("eof".into()), Termination::Disconnect),
        (
            || AgentError::Transport("broken pipe".into()),
            Termination::Disconnect,
        ),
        (|| AgentError::Illegal("z9".into()), Termination::Illegal),
        (
            || AgentError::Protocol("garbage".into()),
            Termination::Illegal,
        ),
        (
            || AgentError::NoAnswer {
                command: "genmove w".into(),
                after: Duration::from_secs(1),
            },
            Termination::Stall,
        ),
    ];
    for (make, expected) in cases {
        assert_eq!(
            faulty_game(Fault::Error(make), &untimed),
            (expected, GameResult::BlackWins)
        );
    }
    let timed = GameSettings {
        time_control: TimeControl::parse("60+1").unwrap(),
        ..GameSettings::default()
    };
    let no_answer = || AgentError::NoAnswer {
        command: "genmove w".into(),
        after: Duration::from_secs(61),
    };
    assert_eq!(
        faulty_game(Fault::Error(no_answer), &timed),
        (Termination::Timeout, GameResult::BlackWins)
    );
    assert_eq!(
        faulty_game(Fault::SetupFails, &untimed),
        (Termination::Disconnect, GameResult::BlackWins)
    );
    assert_eq!(
        faulty_game(Fault::Error(|| AgentError::Interrupted), &untimed),
        (Termination::Interrupt, GameResult::Unfinished)
    );
    assert_eq!(
        faulty_game(Fault::Resign, &untimed),
        (Termination::Normal, GameResult::BlackWins)
    );
}

#[test]
fn a_move_over_its_time_and_margin_loses_on_time() {
    let settings = GameSettings {
        time_control: TimeControl::PerMove(Duration::from_millis(5)),
        margin: Duration::from_millis(5),
        ..GameSettings::default()
    };
    let (termination, result) = faulty_game(Fault::Sleep(Duration::from_millis(60)), &settings);
    assert_eq!(
        (termination, result),
        (Termination::Timeout, GameResult::BlackWins)
    );
}

#[test]
fn the_ply_limit_and_the_checkers_draw_rules_adjudicate() {
    let start = hex(7);
    let capped = GameSettings {
        max_plies: Some(6),
        ..GameSettings::default()
    };
    let (mut a, mut b) = (random(), random());
    let record = play_game(&start, &[], [&mut a, &mut b], &capped, 3);
    assert_eq!(record.termination, Termination::Adjudication);
    assert_eq!(record.result, GameResult::Draw);
    assert_eq!(record.plies(), 6);

    // Kings that always take their first move shuttle back and forth: a repetition draw.
    let kings = Checkers::from_fen("B:WK29,K31:BK4,K2").unwrap();
    let mut black = Scripted::new(usize::MAX, Fault::Resign);
    let mut white = Scripted::new(usize::MAX, Fault::Resign);
    let record = play_game(
        &kings,
        &[],
        [&mut black, &mut white],
        &GameSettings::default(),
        5,
    );
    assert_eq!(
        record.termination,
        Termination::Adjudication,
        "{}",
        record.detail
    );
    assert_eq!(record.result, GameResult::Draw);
}

#[test]
fn a_raised_stop_flag_ends_the_game_without_a_result() {
    let stop = StopFlag::default();
    stop.raise();
    let settings = GameSettings {
        stop: Some(stop.clone()),
        ..GameSettings::default()
    };
    let (mut a, mut b) = (random(), random());
    let record = play_game(&hex(5), &[], [&mut a, &mut b], &settings, 1);
    assert_eq!(record.termination, Termination::Interrupt);
    assert_eq!(record.result, GameResult::Unfinished);
    // An in-process search stopped by the flag is an interrupt, not a move.
    let mut stopped = PlayerAgent::<Hex>::from_spec("mcts:playouts=100000")
        .unwrap()
        .with_stop(stop);
    let mut other = random();
    let record = play_game(
        &hex(5),
        &[],
        [&mut stopped, &mut other],
        &GameSettings::default(),
        1,
    );
    assert_eq!(record.termination, Termination::Interrupt);
}

#[test]
fn position_texts_read_back() {
    let mut game = hex(6);
    for cell in ["a1", "c3", "f6"] {
        game.try_play(cell).unwrap();
    }
    let read = Hex::from_position_text(&game.position_text()).unwrap();
    assert_eq!(read.position_text(), game.position_text());
    assert_eq!(read.side_to_move(), Color::White);
    assert!(read.parse_move("c3").is_err());
    assert_eq!(
        read.parse_move("b2").unwrap(),
        game.parse_move("b2").unwrap()
    );

    let mut checkers = Checkers::new();
    checkers.try_play("11-15").unwrap();
    let read = Checkers::from_position_text(&checkers.position_text()).unwrap();
    assert_eq!(read.position_text(), checkers.position_text());
    assert!(Hex::from_position_text("4/4/x3 b").is_err());
    assert!(Checkers::from_position_text("B:W99:B1").is_err());
}

#[test]
fn an_agent_plays_a_game_as_a_fresh_one_would_whatever_it_played_before() {
    let start = Checkers::new();
    let settings = GameSettings {
        max_plies: Some(60),
        ..GameSettings::default()
    };
    let moves = |a: &mut PlayerAgent<Checkers>, b: &mut PlayerAgent<Checkers>, seed| {
        let record = play_game(&start, &[], [a, b], &settings, seed);
        record
            .to_text(&start)
            .moves
            .into_iter()
            .map(|m| m.mv)
            .collect::<Vec<_>>()
    };
    let make = || {
        (
            PlayerAgent::<Checkers>::from_spec("alphabeta:depth=5,tt=16").unwrap(),
            PlayerAgent::<Checkers>::from_spec("alphabeta:depth=3,tt=16").unwrap(),
        )
    };
    let (mut used_a, mut used_b) = make();
    for seed in 1..=6 {
        let (mut fresh_a, mut fresh_b) = make();
        assert_eq!(
            moves(&mut used_a, &mut used_b, seed),
            moves(&mut fresh_a, &mut fresh_b, seed),
            "seed {seed}"
        );
    }
}

#[test]
fn decided_hex_positions_are_adjudicated_when_asked() {
    // Black b2, c3, d4 on 5x5: bridges and edge templates join top and bottom.
    let mut start = hex(5);
    for mv in ["b2", "a5", "c3", "e1"] {
        start.try_play(mv).unwrap();
    }
    assert_eq!(start.decided_winner(), None);
    start.try_play("d4").unwrap();
    assert_eq!(start.decided_winner(), Some(Color::Black));
    let settings = GameSettings {
        adjudicate_decided: true,
        ..GameSettings::default()
    };
    let opening: Vec<_> = start.moves().map(|(_, mv)| mv).collect();
    let (mut a, mut b) = (random(), random());
    let record = play_game(&hex(5), &opening, [&mut a, &mut b], &settings, 1);
    assert_eq!(
        record.termination,
        Termination::Adjudication,
        "{}",
        record.detail
    );
    assert_eq!(record.result, GameResult::BlackWins);
    assert!(record.moves.is_empty());
    // Without adjudication the game is played out (and a random White cannot save it only
    // if Black's random replies keep the links: so just check it ends normally).
    let record = play_game(
        &hex(5),
        &opening,
        [&mut a, &mut b],
        &GameSettings::default(),
        1,
    );
    assert_eq!(record.termination, Termination::Normal);
}
