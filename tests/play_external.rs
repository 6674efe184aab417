//! External engines through the referee: misbehaving fake engines (bash scripts written here)
//! end games with the right termination class and leave no process behind; tmbot itself as
//! an external engine plays whole games, and plays exactly as the same player in process.
//!
//! Every test that starts processes holds [`PROCESSES`], so that "no child of this process
//! remains" can be checked without other tests' engines in the way.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::game::{Color, Game};
use tmbot::play::external::{live_children, ExternalEngine, ExternalGame};
use tmbot::play::{
    agent_from_spec, play_game, Agent, AgentOptions, GameRecord, GameSettings, PlayerAgent,
    Termination, TimeControl,
};
use tmbot::player::spec::Spec;

static PROCESSES: Mutex<()> = Mutex::new(());

fn exclusive() -> MutexGuard<'static, ()> {
    PROCESSES.lock().unwrap_or_else(|p| p.into_inner())
}

/// A fake HTP engine: it answers the set-up commands and plays the first free cell, and
/// misbehaves on `genmove` as `$1` says (`$2`: genmoves answered well before that).
const FAKE_ENGINE: &str = r#"#!/bin/bash
mode="$1"; good="${2:-0}"; genmoves=0; width=0; height=0
declare -A taken
columns=(a b c d e f g h i j k l m n o p q r s)
[ "$mode" = slowstart ] && sleep 30
answer() { echo "=$id $1"; echo; }
while read -r line; do
  set -- $line
  id=""
  if [[ "$1" =~ ^[0-9]+$ ]]; then id="$1"; shift; fi
  command="$1"; shift
  case "$command" in
    protocol_version) answer 2 ;;
    name) answer fake ;;
    version) answer 1.0 ;;
    known_command) answer false ;;
    boardsize) width="$1"; height="${2:-$1}"; taken=(); answer "" ;;
    clear_board) taken=(); answer "" ;;
    play) taken[$2]=1; answer "" ;;
    quit) answer ""; exit 0 ;;
    genmove)
      genmoves=$((genmoves + 1))
      free=""
      for ((y = 1; y <= height; y++)); do
        for ((x = 0; x < width; x++)); do
          cell="${columns[$x]}$y"
          if [ -z "${taken[$cell]}" ]; then free="$cell"; break 2; fi
        done
      done
      if ((genmoves <= good)); then taken[$free]=1; last="$free"; answer "$free"; continue; fi
      case "$mode" in
        crash) exit 3 ;;
        hang) read -r _ ;;
        illegal) answer "${last:-z99}" ;;
        offboard) answer z99 ;;
        garbage) echo "hello world"; echo ;;
        double) taken[$free]=1; answer "$free"; answer "$free" ;;
        closed) exec 1>&-; while read -r _; do :; done; exec sleep 100000 ;;
        *) taken[$free]=1; answer "$free" ;;
      esac ;;
    *) answer "" ;;
  esac
done
# Outlive the controller unless something kills us.
[ "$mode" = immortal ] && exec sleep 100000
"#;

/// The fake engine's script, written once into a temporary directory.
fn fake_engine() -> PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"));
    let path = dir.path().join("fake-engine.sh");
    if !path.exists() {
        fs::write(&path, FAKE_ENGINE).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    path
}

fn engine<G: ExternalGame>(spec: &str) -> ExternalEngine<G> {
    ExternalEngine::from_spec(&Spec::parse(spec).unwrap()).unwrap()
}

fn fake(mode: &str, good: u32, extra: &str) -> ExternalEngine<Hex> {
    let script = fake_engine();
    engine(&format!(
        r#"external:cmd="'{}' {mode} {good}",startup=1s,ping=1s{extra}"#,
        script.display()
    ))
}

fn random<G: tmbot::protocol::engine::ProtocolGame>() -> PlayerAgent<G> {
    PlayerAgent::from_spec("random").unwrap()
}

fn settings(stall_ms: u64) -> GameSettings {
    GameSettings {
        stall: Duration::from_millis(stall_ms),
        ..GameSettings::default()
    }
}

/// Plays one 4x4 game with `engine` as `color` against in-process random.
fn game_against_random(
    engine: &mut dyn Agent<Hex>,
    color: Color,
    settings: &GameSettings,
    seed: u64,
) -> GameRecord<tmbot::game::hex::HexMove> {
    let start = Hex::new(4, 4).unwrap();
    let mut other = random::<Hex>();
    let agents: [&mut dyn Agent<Hex>; 2] = match color {
        Color::Black => [engine, &mut other],
        Color::White => [&mut other, engine],
    };
    play_game(&start, &[], agents, settings, seed)
}

/// Process ids whose parent is this process, with their states (`Z` for a zombie).
fn children() -> Vec<(u32, char)> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().and_then(|s| s.chars().next()).unwrap_or('?');
        let ppid: u32 = fields.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if ppid == me {
            found.push((pid, state));
        }
    }
    found
}

fn assert_no_children() {
    assert_eq!(live_children(), Vec::<u32>::new(), "registered children");
    assert_eq!(
        children(),
        vec![],
        "children (pid, state) of the test process"
    );
}

/// Plays the fake in `mode` once as Black and once as White and checks the class, the loss
/// and that no process is left.
fn misbehaves(mode: &str, good: u32, settings: &GameSettings, expected: Termination) {
    let _guard = exclusive();
    for (i, color) in Color::BOTH.into_iter().enumerate() {
        let mut engine = fake(mode, good, "");
        let record = game_against_random(&mut engine, color, settings, 11 + i as u64);
        assert_eq!(
            record.termination, expected,
            "{mode} as {color}: {record:?}"
        );
        assert_eq!(
            record.result.winner(),
            Some(color.opponent()),
            "{mode}: the fake engine's side lost"
        );
        assert!(record.detail.starts_with(color.name()), "{}", record.detail);
        assert!(
            record.moves.len() as u32 >= good,
            "{mode}: the fake played its good moves first"
        );
        drop(engine);
        assert_no_children();
    }
}

#[test]
fn an_engine_that_crashes_mid_game_disconnects() {
    misbehaves("crash", 2, &settings(5_000), Termination::Disconnect);
}

#[test]
fn an_engine_that_hangs_stalls_an_untimed_game() {
    misbehaves("hang", 1, &settings(300), Termination::Stall);
}

#[test]
fn an_engine_that_hangs_loses_a_timed_game_on_time() {
    let timed = GameSettings {
        time_control: TimeControl::PerMove(Duration::from_millis(200)),
        margin: Duration::from_millis(100),
        ..settings(5_000)
    };
    misbehaves("hang", 1, &timed, Termination::Timeout);
}

#[test]
fn an_engine_slower_to_start_than_its_startup_timeout_fails_at_setup() {
    let _guard = exclusive();
    let mut engine = fake("slowstart", 0, "");
    let record = game_against_random(&mut engine, Color::White, &settings(5_000), 1);
    assert_eq!(record.termination, Termination::Disconnect, "{record:?}");
    assert_eq!(record.result.winner(), Some(Color::Black));
    assert!(
        record.detail.contains("setup failed") && record.detail.contains("protocol_version"),
        "{}",
        record.detail
    );
    assert!(record.moves.is_empty());
    drop(engine);
    assert_no_children();
}

#[test]
fn illegal_and_unparsable_moves_are_illegal() {
    misbehaves("illegal", 1, &settings(5_000), Termination::Illegal);
    misbehaves("offboard", 0, &settings(5_000), Termination::Illegal);
}

#[test]
fn garbage_and_double_answers_break_the_protocol() {
    misbehaves("garbage", 1, &settings(5_000), Termination::Illegal);
    misbehaves("double", 1, &settings(5_000), Termination::Illegal);
}

#[test]
fn an_engine_that_closes_its_output_disconnects() {
    misbehaves("closed", 1, &settings(5_000), Termination::Disconnect);
}

#[test]
fn a_faulted_engine_restarts_for_its_next_game_only_when_allowed() {
    let _guard = exclusive();
    for restart in ["on", "off"] {
        let mut engine = fake("crash", 1, &format!(",restart={restart}"));
        let first = game_against_random(&mut engine, Color::Black, &settings(5_000), 3);
        assert_eq!(first.termination, Termination::Disconnect);
        assert!(engine.pid().is_none(), "the crashed engine is gone");
        let second = game_against_random(&mut engine, Color::Black, &settings(5_000), 4);
        assert_eq!(second.termination, Termination::Disconnect);
        if restart == "on" {
            // Restarted: it played its good move again before crashing.
            assert_eq!(second.moves.len(), first.moves.len(), "{second:?}");
            assert!(
                second.detail.contains("closed its output"),
                "{}",
                second.detail
            );
        } else {
            assert!(second.moves.is_empty());
            assert!(second.detail.contains("restart=off"), "{}", second.detail);
        }
        drop(engine);
        assert_no_children();
    }
}

#[test]
fn a_well_behaved_fake_is_kept_alive_between_games_and_quits_when_dropped() {
    let _guard = exclusive();
    let mut engine = fake("good", 0, "");
    let mut pids = BTreeSet::new();
    for seed in 0..3 {
        let record = game_against_random(&mut engine, Color::Black, &settings(5_000), seed);
        assert_eq!(record.termination, Termination::Normal, "{record:?}");
        assert_eq!(record.players[0], "fake 1.0", "the engine's own name");
        pids.insert(engine.pid().expect("still running"));
    }
    assert_eq!(pids.len(), 1, "one process for every game");
    drop(engine);
    assert_no_children();
}

fn tmbot_spec(game: &str, player: &str, extra: &str) -> String {
    format!(
        r#"external:cmd="'{}' {game} --player {player} --seed 3"{extra}"#,
        env!("CARGO_BIN_EXE_tmbot")
    )
}

#[test]
fn tmbot_plays_hex_as_an_external_engine_under_a_clock() {
    let _guard = exclusive();
    let mut engine: ExternalEngine<Hex> = engine(&tmbot_spec("hex", "random", ""));
    let timed = GameSettings {
        time_control: TimeControl::parse("60+1").unwrap(),
        ..GameSettings::default()
    };
    for (seed, color) in [(1, Color::Black), (2, Color::White)] {
        let start = Hex::new(5, 5).unwrap();
        let mut other = random::<Hex>();
        let agents: [&mut dyn Agent<Hex>; 2] = match color {
            Color::Black => [&mut engine, &mut other],
            Color::White => [&mut other, &mut engine],
        };
        let record = play_game(&start, &[], agents, &timed, seed);
        assert_eq!(record.termination, Termination::Normal, "{record:?}");
        assert_eq!(
            record.players[color.index()],
            format!("tmbot {}", env!("CARGO_PKG_VERSION"))
        );
        let text = record.to_text(&start);
        assert!(text.replay::<Hex>().unwrap().outcome().is_some());
    }
    drop(engine);
    assert_no_children();
}

#[test]
fn tmbot_plays_checkers_as_an_external_engine_from_any_start() {
    let _guard = exclusive();
    let mut engine: ExternalEngine<Checkers> = engine(&tmbot_spec("checkers", "random", ""));
    let starts = [
        Checkers::new(),
        Checkers::from_position_text("B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29").unwrap(),
    ];
    for (seed, start) in starts.iter().enumerate() {
        let mut other = random::<Checkers>();
        let settings = GameSettings {
            max_plies: Some(300),
            ..GameSettings::default()
        };
        let record = play_game(
            start,
            &[],
            [&mut engine, &mut other],
            &settings,
            seed as u64,
        );
        assert!(!record.termination.is_fault(), "{record:?}");
        assert!(!record.moves.is_empty());
        record.to_text(start).replay::<Checkers>().unwrap();
    }
    drop(engine);
    assert_no_children();
}

/// The moves of a game between two agents built from `specs`.
fn moves_of(specs: [&str; 2], seed: u64) -> Vec<String> {
    let options = AgentOptions::default();
    let mut black = agent_from_spec::<Hex>(specs[0], &options).unwrap();
    let mut white = agent_from_spec::<Hex>(specs[1], &options).unwrap();
    let start = Hex::new(5, 5).unwrap();
    let record = play_game(
        &start,
        &[],
        [black.as_mut(), white.as_mut()],
        &GameSettings::default(),
        seed,
    );
    assert_eq!(record.termination, Termination::Normal, "{record:?}");
    record
        .to_text(&start)
        .all_moves()
        .map(str::to_string)
        .collect()
}

#[test]
fn external_tmbot_with_per_game_seeds_plays_exactly_as_in_process() {
    let _guard = exclusive();
    for player in ["random", "mcts:playouts=50"] {
        let external = tmbot_spec("hex", player, ",seed=per-game");
        for seed in [5, 6] {
            let inside = moves_of([player, player], seed);
            let outside = moves_of([&external, &external], seed);
            assert_eq!(inside, outside, "{player}, seed {seed}");
        }
    }
    assert_no_children();
}

/// True when `program` is found on `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| Path::new(&dir).join(program).is_file())
    })
}

#[test]
fn mohex_plays_a_7x7_game_when_installed() {
    if !on_path("mohex") {
        println!("skipped: no mohex on PATH");
        return;
    }
    let _guard = exclusive();
    let mut mohex: ExternalEngine<Hex> =
        engine(r#"external:cmd="mohex --quiet",init="param_mohex max_time 0.1""#);
    let mut other = random::<Hex>();
    let start = Hex::new(7, 7).unwrap();
    let record = play_game(
        &start,
        &[],
        [&mut mohex, &mut other],
        &GameSettings::default(),
        1,
    );
    assert_eq!(record.termination, Termination::Normal, "{record:?}");
    drop(mohex);
    assert_no_children();
}

/// Throughput of the pipe path: two `tmbot hex --player random` processes play 7x7 games.
/// Run with `cargo test --test play_external -- --ignored --nocapture throughput`;
/// `TMBOT_ENGINE=path` measures another build of the engine (e.g. target/release/tmbot).
#[test]
#[ignore = "a measurement: prints games per second"]
fn throughput_of_two_external_random_engines() {
    let _guard = exclusive();
    let binary =
        std::env::var("TMBOT_ENGINE").unwrap_or_else(|_| env!("CARGO_BIN_EXE_tmbot").to_string());
    let games: u64 = std::env::var("GAMES").map_or(2000, |g| g.parse().unwrap());
    let spec = format!(r#"external:cmd="'{binary}' hex --player random""#);
    let mut a: ExternalEngine<Hex> = engine(&spec);
    let mut b: ExternalEngine<Hex> = engine(&spec);
    let start = Hex::new(7, 7).unwrap();
    let settings = GameSettings::default();
    // The first game starts both processes.
    play_game(&start, &[], [&mut a, &mut b], &settings, 0);
    let clock = std::time::Instant::now();
    let mut plies = 0;
    for seed in 0..games {
        let agents: [&mut dyn Agent<Hex>; 2] = if seed % 2 == 0 {
            [&mut a, &mut b]
        } else {
            [&mut b, &mut a]
        };
        let record = play_game(&start, &[], agents, &settings, seed);
        assert_eq!(record.termination, Termination::Normal, "{record:?}");
        plies += record.plies();
    }
    let seconds = clock.elapsed().as_secs_f64();
    println!(
        "{games} games, {plies} moves in {seconds:.2} s: {:.0} games/s, {:.0} moves/s ({binary})",
        games as f64 / seconds,
        plies as f64 / seconds
    );
}

/// Set in the environment of the helper process of the death-signal test.
const HELPER: &str = "PLAY_EXTERNAL_HELPER";

/// Not a test on its own: the helper process of
/// [`engines_die_with_a_controller_killed_by_sigkill`] starts an engine that would outlive
/// it, prints the engine's process id and waits to be killed.
#[test]
#[ignore = "the helper process of another test"]
fn helper_holding_an_engine() {
    if std::env::var_os(HELPER).is_none() {
        return;
    }
    let mut engine = fake("immortal", 0, "");
    engine.new_game(&Hex::new(4, 4).unwrap(), 1).unwrap();
    println!("PID {}", engine.pid().unwrap());
    loop {
        std::thread::park();
    }
}

#[test]
fn engines_die_with_a_controller_killed_by_sigkill() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let _guard = exclusive();
    let mut helper = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "helper_holding_an_engine",
            "--nocapture",
        ])
        .env(HELPER, "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let output = BufReader::new(helper.stdout.take().unwrap());
    let pid: u32 = output
        .lines()
        .map_while(Result::ok)
        .find_map(|line| line.strip_prefix("PID ").map(|p| p.trim().parse().unwrap()))
        .expect("the helper names its engine");
    helper.kill().unwrap();
    helper.wait().unwrap();
    // The kernel sends the death signal while the helper exits, before it can be reaped:
    // the engine is gone, dying, or has SIGKILL pending.
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    let dead = status.is_empty()
        || field("State:").is_some_and(|s| s.starts_with('Z') || s.starts_with('X'));
    let sigkill_pending = ["SigPnd:", "ShdPnd:"].iter().any(|name| {
        field(name)
            .and_then(|mask| u64::from_str_radix(&mask, 16).ok())
            .is_some_and(|mask| mask & (1 << 8) != 0)
    });
    assert!(dead || sigkill_pending, "engine {pid} survived:\n{status}");
    assert_no_children();
}
