//! HTP as HexGui and Benzene's tools use it: golden transcripts of their command sequences
//! (deterministic seeds and playout limits), byte-exact framing, and a test per command.

#[allow(dead_code)] // each test file uses some of the helpers
mod common;

use common::{assert_golden, responses, run_engine, run_engine_output};

const ENGINE: [&str; 5] = ["hex", "--player", "mcts:playouts=300", "--seed", "7"];

#[test]
fn hexgui_connect_sequence() {
    let input = "name\nversion\nhexgui-analyze_commands\nboardsize 7 7\nclear_board\nplay black d4\nplay white c5\nshowboard\n";
    let out = run_engine(&ENGINE, input);
    assert_eq!(responses(&out).len(), 8);
    assert!(out.starts_with("= tmbot\n\n= 0.1.0\n\n= param/Game Param/param_game\n"));
    assert_golden("hexgui_connect.txt", &out);
}

#[test]
fn hexgui_new_game_and_human_move_with_auto_respond() {
    let input = "boardsize 9 9\nclear_board\nshowboard\nplay black e5\nshowboard\ngenmove white\nshowboard\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(replies.len(), 7);
    assert!(
        replies[5].starts_with("= ") && replies[5].len() <= 8,
        "a cell: {:?}",
        replies[5]
    );
    assert_golden("hexgui_human_move.txt", &out);
}

#[test]
fn hexgui_swap_is_resent_as_a_white_first_stone() {
    // After a human swap HexGui clears the board and re-sends the stone as White's.
    let input = "boardsize 5 5\nclear_board\nplay black c1\nclear_board\nplay white c1\ngenmove black\nall_legal_moves black\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(&replies[..5], ["= \n\n"; 5]);
    assert!(!replies[6].contains("c1"), "c1 is occupied: {}", replies[6]);
    assert_golden("hexgui_swap.txt", &out);
}

#[test]
fn undo_takes_back_moves() {
    let out = run_engine(
        &ENGINE,
        "boardsize 3 3\nplay b a1\nplay w b2\nundo\nundo\nundo\nshowposition\n",
    );
    let replies = responses(&out);
    assert_eq!(replies[3], "= \n\n");
    assert_eq!(replies[4], "= \n\n");
    assert_eq!(replies[5], "? cannot undo\n\n");
}

#[test]
fn benzene_match_loop_ends_with_resign() {
    // Benzene's match script alternates genmove/play until a reply contains `resign`.
    let mut input = String::from("boardsize 5 5\nclear_board\n");
    for _ in 0..15 {
        input.push_str("genmove black\ngenmove white\n");
    }
    input.push_str("final_score\n");
    let out = run_engine(&ENGINE, &input);
    assert!(out.contains("= resign\n\n"), "{out}");
    let last = *responses(&out).last().unwrap();
    assert!(last == "= B+\n\n" || last == "= W+\n\n", "{last}");
    assert_golden("benzene_match.txt", &out);
}

#[test]
fn framing_is_byte_exact_and_ids_are_echoed() {
    let out = run_engine(&ENGINE, "1 boardsize 5 5\n2 play black a1\n3 nonsense\n\n# comment\n4 known_command play\n  5\tname  \r\n");
    assert_eq!(
        out,
        "=1 \n\n=2 \n\n?3 unknown command: nonsense\n\n=4 true\n\n=5 tmbot\n\n"
    );
}

#[test]
fn errors_mirror_mohex_wording() {
    let out = run_engine(
        &ENGINE,
        "boardsize 20\nboardsize 5\nplay white a1\nplay white a1\nplay black z9\nplay purple a2\n",
    );
    let replies = responses(&out);
    assert_eq!(replies[0], "? argument 1 (20) must be less or equal 19\n\n");
    assert_eq!(replies[3], "? illegal move:  white a1 (occupied)\n\n");
    assert!(replies[4].starts_with("? invalid move"), "{}", replies[4]);
    assert_eq!(replies[5], "? invalid color: purple\n\n");
}

#[test]
fn the_solver_commands_answer_as_mohex_does() {
    // On 4x4 Black's a4 wins and a1 loses (the reference's solved openings).
    let input = "boardsize 4 4\nplay black a4\ndfpn-solve-state white\n\
                 dfpn-solver-find-winning white\ndfpn-clear-tt\nparam_dfpn timelimit 5\n\
                 param_dfpn\nundo\nplay black a1\ndfpn-solve-state\n\
                 dfpn-solver-find-winning white\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(replies[2], "= black\n\n");
    assert_eq!(replies[3], "= \n\n", "every White reply loses");
    assert_eq!(replies[4], "= \n\n");
    assert_eq!(replies[5], "= \n\n");
    assert_eq!(
        replies[6],
        "= [string] timelimit 5\n[string] tt_entries 4194304\n\n"
    );
    assert_eq!(replies[9], "= white\n\n");
    let winning = replies[10].trim_start_matches("= ").trim_end();
    assert!(
        !winning.is_empty() && winning.split(' ').all(|cell| cell.len() == 2),
        "White's winning replies: {winning:?}"
    );
}

#[test]
fn every_listed_command_is_known_and_tested_here() {
    let out = run_engine(&ENGINE, "list_commands\n");
    let listed: Vec<&str> = out.trim_start_matches("= ").trim_end().lines().collect();
    let this_file = include_str!("protocol_htp.rs");
    for name in &listed {
        let known = run_engine(&ENGINE, &format!("known_command {name}\n"));
        assert_eq!(known, "= true\n\n", "{name}");
        assert!(
            this_file.contains(&format!("\"{name}"))
                || this_file.contains(&format!("\\n{name}"))
                || this_file.contains(&format!("{name} ")),
            "no test sends {name}"
        );
    }
    assert_eq!(run_engine(&ENGINE, "known_command fly\n"), "= false\n\n");
}

#[test]
fn parameters_clock_and_scoring() {
    let input = "param_game\nparam_game allow_swap 1\nparam_game game_time 600\ntime_left\ntime_left b 120\ntime_left black\ntime_left w 30 0\n\
                 param_tmbot\nparam_tmbot max_time 0.5\nparam_tmbot seed x\nprotocol_version\nboardsize 2 2\nplay b a1\nplay b a2\nfinal_score\n\
                 all_legal_moves b\nreg_genmove w\nhelp\nquit\nname\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(
        replies[0],
        "= [bool] allow_swap 0\n[list/off/benzene/hexgui] swap_rule off\n[string] game_time 1800\n\n"
    );
    assert_eq!(replies[3], "= Black: 600, White: 600\n\n");
    assert_eq!(replies[5], "= 120\n\n");
    assert!(
        replies[7].starts_with("= [string] player mcts:playouts=300\n"),
        "{}",
        replies[7]
    );
    assert!(
        replies[9].starts_with("? seed must be an integer"),
        "{}",
        replies[9]
    );
    assert_eq!(replies[10], "= 2\n\n");
    assert_eq!(replies[14], "= B+\n\n");
    assert_eq!(replies[15], "= \n\n", "no legal moves once decided");
    assert_eq!(replies[16], "= resign\n\n");
    assert!(replies[17].contains("genmove"));
    assert_eq!(replies.len(), 19, "nothing answered after quit");
}

#[test]
fn genmove_prints_the_search_summary_on_stderr() {
    let output = run_engine_output(
        &ENGINE,
        "boardsize 5 5\nplay b c3\ngenmove white\nparam_tmbot player alphabeta:depth=2\nreg_genmove black\n",
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    let replies = responses(std::str::from_utf8(&output.stdout).unwrap()).len();
    assert_eq!(replies, 5);
    let mcts = stderr
        .lines()
        .find(|l| l.starts_with("genmove white: "))
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    for part in [
        "value 0.",
        "visits ",
        "/300 playouts 300",
        "depth -",
        "nodes ",
        " time ",
    ] {
        assert!(mcts.contains(part), "{part} in {mcts}");
    }
    // The expected line starts with the move played.
    let played = mcts["genmove white: ".len()..].split(' ').next().unwrap();
    assert!(mcts.contains(&format!("s line {played}")), "{mcts}");
    let alphabeta = stderr
        .lines()
        .find(|l| l.starts_with("reg_genmove black: "))
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    assert!(
        alphabeta.contains("visits - playouts - depth 2 nodes "),
        "{alphabeta}"
    );
    assert!(alphabeta.ends_with('s'), "{alphabeta}");
}

#[test]
fn genmove_resigns_below_the_threshold_only_when_asked() {
    let moves = "boardsize 5 5\nplay b c3\nplay w b2\nplay b d2\n";
    let asked = run_engine(
        &ENGINE,
        &format!("{moves}param_tmbot resign_threshold 1\ngenmove white\nparam_tmbot resign_threshold 2\nparam_tmbot\n"),
    );
    let replies = responses(&asked);
    assert_eq!(replies[5], "= resign\n\n");
    assert!(replies[6].starts_with("? resign_threshold must be off or a value from 0 to 1"));
    assert!(
        replies[7].contains("[string] resign_threshold 1\n"),
        "{}",
        replies[7]
    );
    let default = run_engine(&ENGINE, &format!("{moves}param_tmbot\ngenmove white\n"));
    let replies = responses(&default);
    assert!(
        replies[4].contains("[string] resign_threshold off\n"),
        "{}",
        replies[4]
    );
    assert_ne!(replies[5], "= resign\n\n", "off by default");
    let opening = run_engine(
        &ENGINE,
        "boardsize 5 5\nparam_tmbot resign_threshold 1\ngenmove black\n",
    );
    assert_ne!(
        responses(&opening)[2],
        "= resign\n\n",
        "never in the opening"
    );
}

#[test]
fn savesgf_writes_players_result_and_swap_rule() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.sgf");
    let path = path.to_str().unwrap();
    let input = format!(
        "boardsize 5 5\nparam_game swap_rule hexgui\nplay b c3\nplay w b2\nplay b d2\n\
         param_tmbot resign_threshold 1\ngenmove white\nsavesgf {path}\n"
    );
    let replies = run_engine(&ENGINE, &input);
    assert_eq!(responses(&replies)[6], "= resign\n\n");
    let saved = std::fs::read_to_string(path).unwrap();
    for property in [
        "PB[unknown]",
        "PW[mcts:playouts=300]",
        "RE[B+R]",
        "RU[swap:hexgui]",
    ] {
        assert!(saved.contains(property), "{property} in {saved}");
    }
    // A finished game: the winner without R; names of both sides the engine played.
    let input =
        format!("boardsize 2 2\ngenmove b\ngenmove w\ngenmove b\ngenmove w\nsavesgf {path}\n");
    run_engine(&ENGINE, &input);
    let saved = std::fs::read_to_string(path).unwrap();
    assert!(
        saved.contains("PB[mcts:playouts=300]PW[mcts:playouts=300]RE["),
        "{saved}"
    );
    assert!(
        saved.contains("RE[B+]") || saved.contains("RE[W+]"),
        "{saved}"
    );
    assert!(!saved.contains("RU["), "swap off: {saved}");
}

#[test]
fn loadsgf_infers_hexguis_swap_from_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hexgui.sgf");
    std::fs::write(
        &path,
        "(;FF[4]AP[HexGui:0.10]GM[11]SZ[5]PB[Ann]PW[Bob];B[b1];W[swap-pieces];B[c3])",
    )
    .unwrap();
    let saved = dir.path().join("again.sgf");
    let input = format!(
        "boardsize 5 5\nloadsgf {}\nshowposition\nparam_game\nsavesgf {}\n",
        path.display(),
        saved.display()
    );
    let out = run_engine(&ENGINE, &input);
    let replies = responses(&out);
    assert_eq!(replies[1], "= \n\n", "no param_game needed");
    // HexGui's swap-pieces: b1 (x 1, y 0) is reflected to a2 and turns white.
    assert_eq!(replies[2], "= 5/w4/2b2/5/5 w\n\n");
    assert!(replies[3].contains("swap_rule hexgui"), "{}", replies[3]);
    let again = std::fs::read_to_string(saved).unwrap();
    assert!(
        again.contains("PB[Ann]PW[Bob]"),
        "loaded names kept: {again}"
    );
}

#[test]
fn sgf_save_and_load_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.sgf");
    let path = path.to_str().unwrap();
    let input = format!("boardsize 6 6\nplay b c3\nplay w d4\nsavesgf {path}\nclear_board\nloadsgf {path}\nshowposition\nloadsgf {path} 2\nshowposition\nloadsgf /nonexistent/x.sgf\n");
    let out = run_engine(&ENGINE, &input);
    let replies = responses(&out);
    assert_eq!(replies[3], "= \n\n");
    let saved = std::fs::read_to_string(path).unwrap();
    assert!(
        saved.starts_with("(;FF[4]AP[tmbot:0.1.0]GM[11]SZ[6]"),
        "{saved}"
    );
    assert!(saved.contains(";B[c3];W[d4]"), "{saved}");
    assert_ne!(replies[6], replies[8], "loadsgf FILE 2 stops before move 2");
    assert!(
        replies[9].starts_with("? cannot read /nonexistent/x.sgf"),
        "{}",
        replies[9]
    );
}

#[test]
fn interrupt_stops_a_long_search() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;
    // A search allowed ten minutes must answer soon after `# interrupt`.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmbot"))
        .args(["hex", "--player", "mcts:time=600s", "--seed", "3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    writeln!(stdin, "param_tmbot max_time 600\ngenmove black").unwrap();
    assert_eq!(rx.recv().unwrap(), "= ");
    assert_eq!(rx.recv().unwrap(), "");
    // Let the search start, then interrupt it.
    std::thread::sleep(std::time::Duration::from_millis(300));
    writeln!(stdin, "# interrupt\nname").unwrap();
    // A hang guard, not a speed check: without the interrupt the answer would take 600 s.
    let guard = std::time::Duration::from_secs(120);
    let answer = rx
        .recv_timeout(guard)
        .expect("genmove answered after the interrupt");
    assert!(
        answer.starts_with("= ") && answer.len() > 2,
        "a cell: {answer}"
    );
    assert_eq!(rx.recv_timeout(guard).unwrap(), "");
    assert_eq!(rx.recv_timeout(guard).unwrap(), "= tmbot");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
