//! The checkers protocol as a controller uses it: golden transcripts (deterministic seed,
//! depth-limited player), positions given as FEN, seed 001's digit boards and CheckerBoard's
//! game history, finished positions, clocks, parameters, PDN files, error wording, and a
//! test per listed command.

#[allow(dead_code)] // each test file uses some of the helpers
mod common;

use common::{assert_golden, responses, run_engine, run_engine_output};

const ENGINE: [&str; 5] = ["checkers", "--player", "alphabeta:depth=4", "--seed", "7"];

const START: &str = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

const TINSLEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/checkers/tinsley.pdn"
);

#[test]
fn game_start_transcript() {
    let input = format!(
        "name\nprotocol_version\nget protocolversion\nget gametype\nsetboard {START}\ngetboard\n\
         legal_moves\ngenmove\nplay 22-18\nshowboard\nlegal_moves\ngenmove\ngetboard\n"
    );
    let out = run_engine(&ENGINE, &input);
    let replies = responses(&out);
    assert_eq!(replies.len(), 13);
    assert_eq!(
        &replies[..4],
        ["= tmbot\n\n", "= 2\n\n", "= 2\n\n", "= 21\n\n"]
    );
    assert_eq!(replies[5], format!("= {START}\n\n"));
    // The seven opening moves of Black (reference: 9-13 ... 12-16).
    let mut opening: Vec<&str> = replies[6][2..].split_whitespace().collect();
    opening.sort_unstable();
    assert_eq!(
        opening,
        ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    );
    assert!(
        opening.contains(&replies[7][2..].trim_end()),
        "{}",
        replies[7]
    );
    assert!(replies[9].contains("black to move"), "{}", replies[9]);
    assert_golden("checkers_start.txt", &out);
}

#[test]
fn setboard_reads_digit_boards_as_eight_words_and_in_one_string() {
    // Seed 001's format: squares 1-4 in the first word; 1 black man, 2 black king, 3 white
    // man, 4 white king.
    let input = "setboard 1111 1111 1111 0000 0000 3333 3333 3333\ngetboard\n\
                 setboard w 0000 0200 0000 0000 0000 0000 0040 0000\ngetboard\n\
                 setboard 00000000000000000000000010000003\ngetboard\n\
                 setboard W 1111 1111 1111 0000 0000 3333 3333 3333\ngetboard\nshowboard\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(replies.len(), 9);
    assert_eq!(replies[1], format!("= {START}\n\n"));
    assert_eq!(replies[3], "= W:WK27:BK6\n\n");
    assert_eq!(replies[5], "= B:W32:B25\n\n");
    assert_eq!(replies[7], format!("= W{}\n\n", &START[1..]));
    assert_golden("checkers_digits.txt", &out);
}

#[test]
fn game_history_and_undo() {
    // CheckerBoard sends the last irreversible position and the moves since.
    let input = "set gamehist B:W21-32:B1-12 11-15 23-19 8-11\ngetboard\nundo\ngetboard\nundo\nundo\nundo\n\
                 set gamehist W:W 18, 32:B 14 14x23\ngetboard\nset gamehist B:W21-32:B1-12 11-15 11-16\n\
                 set gamehist 11-15\ngetboard\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(
        replies[1],
        "= W:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,9,10,11,12,15\n\n"
    );
    assert_eq!(
        replies[3],
        "= B:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15\n\n"
    );
    assert_eq!(&replies[4..6], ["= \n\n", "= \n\n"]);
    assert_eq!(replies[6], "? cannot undo\n\n");
    // White to move must capture 18x9 on that board; 14x23 is Black's, so it is rejected.
    assert!(
        replies[7].starts_with("? gamehist move 1 (14x23): "),
        "{}",
        replies[7]
    );
    assert!(
        replies[9].starts_with("? gamehist move 2 (11-16): illegal move 11-16"),
        "{}",
        replies[9]
    );
    assert_eq!(replies[10], "? set gamehist needs a FEN\n\n");
    assert_eq!(
        replies[11],
        format!("= {START}\n\n"),
        "a failed set keeps the game"
    );
    assert_golden("checkers_gamehist.txt", &out);
}

#[test]
fn a_side_without_moves_has_lost() {
    // White to move, blocked: Black has won. Then Black to move without pieces: White has.
    let input = "setboard W:W32:B23,27,28\nresult\nfinal_score\nlegal_moves\ngenmove\nplay 32-28\n\
                 setboard B:W21-32:B1-12\nresult\nfinal_score\nsetboard B:W9:B\nresult\nfinal_score\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(
        replies,
        [
            "= \n\n",
            "= 1-0\n\n",
            "= B+\n\n",
            "= \n\n",
            "= resign\n\n",
            "? illegal move: the game is over\n\n",
            "= \n\n",
            "= *\n\n",
            "? cannot score\n\n",
            "= \n\n",
            "= 0-1\n\n",
            "= W+\n\n",
        ]
    );
}

#[test]
fn a_king_capture_loop_is_one_move() {
    // Reference perft: W:WK27:B23,24,15,16 has 2 capture paths to 1 position at depth 1.
    let input = "setboard W:WK27:B23,24,15,16\nlegal_moves\nplay 27x27\ngetboard\nresult\nundo\n\
                 play 27x18x11x20x27\ngetboard\nundo\nplay 27x20\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(replies[1], "= 27x27\n\n");
    assert_eq!(replies[3], "= B:WK27:B\n\n");
    assert_eq!(replies[4], "= 0-1\n\n", "Black has no piece left");
    assert_eq!(replies[7], replies[3], "the full path names the same move");
    assert!(
        replies[9].starts_with("? illegal move 27x20"),
        "{}",
        replies[9]
    );
}

#[test]
fn draw_rules_end_a_king_shuffle() {
    // Two kings each: with a no-progress limit of 4 plies the fourth king move draws.
    let input = "setboard B:WK29,K31:BK1,K3\nget drawplies\nset drawplies 4\nget drawplies\n\
                 play 1-5\nplay 29-25\nplay 5-1\nresult\nplay 25-29\nresult\nfinal_score\nundo\nresult\n\
                 set drawplies off\nget drawplies\nset drawplies many\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(replies[1], "= 79\n\n", "CheckerBoard's default");
    assert_eq!(replies[3], "= 4\n\n");
    assert_eq!(replies[7], "= *\n\n");
    assert_eq!(replies[9], "= 1/2-1/2\n\n");
    assert_eq!(replies[10], "= 0\n\n");
    assert_eq!(replies[12], "= *\n\n");
    assert_eq!(replies[14], "= off\n\n");
    assert_eq!(
        replies[15],
        "? drawplies must be a number or off, not 'many'\n\n"
    );
}

#[test]
fn clocks_and_parameters() {
    let input = "time_left\ntime_left w 60\ntime_left w\ntime_left\ntime_left b 30.25 0\ntime_left black\n\
                 time_left x 1\ntime_left b abc\ntime_left b 1 2 3\nclear_board\ntime_left\n\
                 param_tmbot\nparam_tmbot max_time 2\nparam_tmbot increment 0.5\nparam_tmbot seed 9\n\
                 param_tmbot player random\nget player\nparam_tmbot\nparam_tmbot bogus 1\nparam_tmbot seed\n\
                 param_tmbot player nonsense\nset max_time 3\nset colour 1\nget colour\nget\nset\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(replies[0], "= Black: 1800, White: 1800\n\n");
    assert_eq!(replies[2], "= 60\n\n");
    assert_eq!(replies[3], "= Black: 1800, White: 60\n\n");
    assert_eq!(replies[5], "= 30\n\n", "clocks print whole seconds");
    assert_eq!(replies[6], "? invalid color: x\n\n");
    assert_eq!(replies[7], "? 'abc' is not a number of seconds\n\n");
    assert_eq!(
        replies[8],
        "? usage: time_left [COLOR [SECONDS [STONES]]]\n\n"
    );
    assert_eq!(replies[10], "= Black: 1800, White: 1800\n\n", "a new game");
    assert_eq!(
        replies[11],
        "= [string] player alphabeta:depth=4\n[string] seed 7\n[string] max_time 10\n[string] increment 0\n[string] resign_threshold off\n\n"
    );
    assert_eq!(&replies[12..16], ["= \n\n"; 4]);
    assert_eq!(replies[16], "= random\n\n");
    assert_eq!(
        replies[17],
        "= [string] player random\n[string] seed 9\n[string] max_time 2\n[string] increment 0.5\n[string] resign_threshold off\n\n"
    );
    assert_eq!(replies[18], "? unknown parameter: bogus\n\n");
    assert_eq!(replies[19], "? missing value for parameter seed\n\n");
    assert!(
        replies[20].starts_with("? bad spec part 'nonsense': unknown player"),
        "{}",
        replies[20]
    );
    assert_eq!(
        replies[21], "= \n\n",
        "set NAME VALUE reaches the parameters"
    );
    assert_eq!(replies[22], "? unknown parameter: colour\n\n");
    assert_eq!(replies[23], "? unknown setting: colour\n\n");
    assert_eq!(replies[24], "? usage: get NAME\n\n");
    assert_eq!(replies[25], "? usage: set NAME VALUE\n\n");
}

#[test]
fn errors_name_the_offending_part() {
    let input = "setboard B:W21-32:B1-12:X\nsetboard B:W21,22,33:B1\nsetboard Q:W21:B1\nsetboard 1111\n\
                 setboard 1111111111110000000033333333333\nsetboard 11111111111100000000333333333339\n\
                 play 11-19\nplay 11-15 12-16\nplay\nplay 9-13x\nplay b 11-15\ngenmove purple\n\
                 loadpdn\nloadpdn /nonexistent/games.pdn\nsavepdn\nsavepdn /nonexistent/dir/x.pdn\nfly\n\
                 1 getboard\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    for (i, part) in [
        "X",
        "33",
        "Q",
        "1111",
        "found 31",
        "9",
        "11-19",
        "usage",
        "usage",
        "9-13x",
        "usage",
        "purple",
        "usage",
        "/nonexistent/games.pdn",
        "usage",
        "/nonexistent/dir/x.pdn",
        "unknown command: fly",
    ]
    .iter()
    .enumerate()
    {
        assert!(
            replies[i].starts_with('?') && replies[i].contains(part),
            "reply {i} should name {part:?}: {}",
            replies[i]
        );
    }
    assert_eq!(
        replies[17],
        format!("=1 {START}\n\n"),
        "errors change nothing"
    );
    assert_golden("checkers_errors.txt", &out);
}

#[test]
fn pdn_load_and_save_round_trip() {
    if !std::path::Path::new(TINSLEY).exists() {
        eprintln!("skipped: {TINSLEY} is absent");
        assert!(
            std::env::var_os("TMBOT_REQUIRE_SHARED_DATA").is_none(),
            "{TINSLEY} is absent but TMBOT_REQUIRE_SHARED_DATA is set"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("game.pdn");
    let saved = saved.to_str().unwrap();
    let mut input = format!(
        "loadpdn {TINSLEY}\ngetboard\nsavepdn {saved}\nclear_board\nloadpdn {saved}\ngetboard\n\
         loadpdn {TINSLEY} 2\ngetboard\nloadpdn {TINSLEY} 999\nloadpdn {TINSLEY} 0\nloadpdn {saved} 1\n"
    );
    // Game 1 has 28 moves each: 56 undos lead back to the start, the 57th fails.
    input.push_str(&"undo\n".repeat(57));
    input.push_str("getboard\n");
    let out = run_engine(&ENGINE, &input);
    let replies = responses(&out);
    // The end of Tinsley - Rex 1946 (game 1): ... 27. 3x12 10x3 28. 17x10 24x15x6.
    assert_eq!(replies[1], "= B:WK3,6,28:B5,12,K26\n\n");
    assert_eq!(replies[2], "= \n\n");
    assert_eq!(replies[5], replies[1], "the saved game reads back");
    assert_ne!(replies[7], replies[1]);
    assert!(
        replies[8].ends_with("has 724 games, not 999\n\n"),
        "{}",
        replies[8]
    );
    assert_eq!(replies[9], "? game number must be 1 or more, not '0'\n\n");
    assert_eq!(&replies[11..67], ["= \n\n"; 56]);
    assert_eq!(replies[67], "? cannot undo\n\n");
    assert_eq!(replies[68], format!("= {START}\n\n"));
    let text = std::fs::read_to_string(saved).unwrap();
    assert!(text.contains("1. 11-15 23-18 2. 8-11 27-23"), "{text}");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
}

#[test]
fn savepdn_keeps_loaded_tags_and_names_players_and_result() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = dir.path().join("club.pdn");
    std::fs::write(
        &loaded,
        "[Event \"Club night\"]\n[Black \"Ann\"]\n[White \"Bob\"]\n\n1. 11-15 23-19 2. 8-11 *\n",
    )
    .unwrap();
    let saved = dir.path().join("saved.pdn");
    let input = format!(
        "loadpdn {}\nparam_tmbot resign_threshold 1\ngenmove\nsavepdn {}\n",
        loaded.display(),
        saved.display()
    );
    let output = run_engine_output(&ENGINE, &input);
    let out = String::from_utf8(output.stdout).unwrap();
    assert_eq!(responses(&out)[2], "= resign\n\n");
    let text = std::fs::read_to_string(&saved).unwrap();
    for tag in [
        "[Event \"Club night\"]",
        "[Black \"Ann\"]",
        "[White \"alphabeta:depth=4\"]",
        "[GameType \"21\"]",
        "[Result \"1-0\"]",
    ] {
        assert!(text.contains(tag), "{tag} in {text}");
    }
    let stderr = String::from_utf8(output.stderr).unwrap();
    let summary = stderr
        .lines()
        .find(|l| l.starts_with("genmove white: resign value "))
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    assert!(summary.contains("playouts - depth 4 nodes "), "{summary}");

    // A new game: no loaded tags, unknown names for the sides the engine did not play.
    let input = format!("play 11-15\ngenmove\nsavepdn {}\n", saved.display());
    run_engine(&ENGINE, &input);
    let text = std::fs::read_to_string(&saved).unwrap();
    for tag in [
        "[Black \"unknown\"]",
        "[White \"alphabeta:depth=4\"]",
        "[GameType \"21\"]",
        "[Result \"*\"]",
    ] {
        assert!(text.contains(tag), "{tag} in {text}");
    }
}

#[test]
fn help_ids_and_quit() {
    let out = run_engine(
        &ENGINE,
        "help\n5 known_command setboard\n6 known_command boardsize\nversion\nquit\nname\n",
    );
    let replies = responses(&out);
    assert!(replies[0].contains("setboard FEN"), "{}", replies[0]);
    assert_eq!(replies[1], "=5 true\n\n");
    assert_eq!(replies[2], "=6 false\n\n", "boardsize is Hex only");
    assert_eq!(replies[3], "= 0.1.0\n\n");
    assert_eq!(replies.len(), 5, "nothing answered after quit");
}

#[test]
fn every_listed_command_is_known_and_tested_here() {
    let out = run_engine(&ENGINE, "list_commands\n");
    let listed: Vec<&str> = out.trim_start_matches("= ").trim_end().lines().collect();
    assert!(listed.len() >= 23, "{listed:?}");
    let this_file = include_str!("protocol_checkers.rs");
    for name in &listed {
        let known = run_engine(&ENGINE, &format!("known_command {name}\n"));
        assert_eq!(known, "= true\n\n", "{name}");
        assert!(
            this_file.contains(&format!("\"{name}\\n"))
                || this_file.contains(&format!("\\n{name}\\n"))
                || this_file.contains(&format!("\\n{name} "))
                || this_file.contains(&format!("\"{name} ")),
            "no test sends {name}"
        );
    }
    assert_eq!(run_engine(&ENGINE, "known_command fly\n"), "= false\n\n");
}

#[test]
fn the_listed_default_player_is_the_one_that_plays() {
    let listing = run_engine(&["checkers", "--list-players"], "");
    let default = listing
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("Default player (without --player): "))
        .unwrap_or_else(|| panic!("no default in the listing:\n{listing}"));
    assert!(default.starts_with("alphabeta"), "{default}");
    let own = run_engine(&["checkers"], "get player\n");
    assert_eq!(own, format!("= {default}\n\n"));
    let named = run_engine(&["checkers", "--player", default], "get player\n");
    assert_eq!(named, own);
}

#[test]
fn size_is_refused_for_checkers() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tmbot"))
        .args(["checkers", "--size", "5"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("--size") && stderr.contains("hex only"),
        "{stderr}"
    );
}

#[test]
fn every_line_is_one_command_answered_once_in_order() {
    // A bare `setboard` used to read the next 8 lines as a digit board and swallow them.
    let input = "setboard\nname\nversion\nlegal_moves\nsetboard w\n1111\n2 getboard\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert_eq!(
        replies,
        [
            "? usage: setboard FEN | setboard [COLOR] DIGITS\n\n",
            "= tmbot\n\n",
            &format!("= {}\n\n", env!("CARGO_PKG_VERSION")),
            "= 9-13 10-14 11-15 12-16 9-14 10-15 11-16\n\n",
            "? bad FEN 'w': no ':' after the side to move (expected like B:W21,...,32:B1,...,12)\n\n",
            "? unknown command: 1111\n\n",
            &format!("=2 {START}\n\n"),
        ]
    );
}

#[test]
fn positions_no_game_reaches_are_refused_with_the_square_and_rule() {
    let input = "setboard 00000000000000000000000000001111\n\
                 setboard W 0000 0000 0000 0000 0000 0000 0000 1000\n\
                 setboard 3000 0000 0000 0000 0000 0000 0000 0000\n\
                 setboard B:W20-32:B1-12\nsetboard B:W21-32:B1-13\nsetboard B:W21:B1,21\n\
                 setboard B:W21,0:B1\nsetboard B:W21:B33\nsetboard W:W5:B32\n\
                 set gamehist B:W21-32:BK1-13\n\
                 setboard 00000000000000000000000000002222\ngetboard\n\
                 setboard B:WK5-8,29-32:B1-4,25-28\ngetboard\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    let crowning = "on the row where black men are crowned";
    for (i, part) in [
        "a black man cannot stand on square 29",
        "a black man cannot stand on square 29",
        "a white man cannot stand on square 1",
        "white has 13 pieces; a side has at most 12",
        "black has 13 pieces; a side has at most 12",
        "square 21 is given twice",
        "square 0 is not one of the 32 dark squares 1..32",
        "square 33 is not one of the 32 dark squares 1..32",
        "a black man cannot stand on square 32",
        "black has 13 pieces",
    ]
    .iter()
    .enumerate()
    {
        assert!(
            replies[i].starts_with("? bad ") && replies[i].contains(part),
            "reply {i} should say {part:?}: {}",
            replies[i]
        );
    }
    assert!(replies[0].contains(crowning), "{}", replies[0]);
    // Kings stand on any row, and men on their own first row.
    assert_eq!(replies[10], "= \n\n");
    assert_eq!(replies[11], "= B:W:BK29,K30,K31,K32\n\n");
    assert_eq!(replies[12], "= \n\n");
    assert_eq!(
        replies[13],
        "= B:WK5,K6,K7,K8,29,30,31,32:B1,2,3,4,25,26,27,28\n\n"
    );
}

#[test]
fn set_errors_name_the_real_cause() {
    let input = "set player foo\nparam_tmbot player foo\nset gamehist B:W21-32:B1-12 11-15 zz\n\
                 set gamehist B:W21-32:B1-12 11-15 23-19 zz 8-11\nset gamehist B:W21-32:B1-99 11-15\n\
                 set seed x\nset nothing 1\nget player\ngetboard\n";
    let out = run_engine(&ENGINE, input);
    let replies = responses(&out);
    assert!(
        replies[0].starts_with("? bad spec part 'foo': unknown player"),
        "{}",
        replies[0]
    );
    assert_eq!(
        replies[0], replies[1],
        "set player gives param_tmbot's error"
    );
    assert_eq!(
        replies[2],
        "? gamehist move 2 (zz): bad PDN move 'zz': 'zz' is not a square number 1..32\n\n"
    );
    assert!(
        replies[3].starts_with("? gamehist move 3 (zz): "),
        "{}",
        replies[3]
    );
    assert!(
        replies[4].starts_with("? bad FEN 'B:W21-32:B1-99'"),
        "a bad FEN is still the FEN's fault: {}",
        replies[4]
    );
    assert_eq!(replies[5], "? seed must be an integer, not 'x'\n\n");
    assert_eq!(replies[6], "? unknown parameter: nothing\n\n");
    assert_eq!(
        replies[7], "= alphabeta:depth=4\n\n",
        "failed sets change nothing"
    );
    assert_eq!(replies[8], format!("= {START}\n\n"));
}

/// A player reads endgame databases saved to a file, and wins the ending the tables call
/// won by the moves they say; a missing file is named in the refusal.
#[test]
fn a_player_reads_endgame_databases_from_a_file() {
    use tmbot::game::checkers::endgame::Endgame;
    use tmbot::game::checkers::Checkers;
    use tmbot::game::Game;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("eg3.tmeg");
    Endgame::build(3, |_, _| {}).save(&path).unwrap();
    let player = format!("alphabeta:depth=3,endgame={}", path.display());
    let out = run_engine(
        &["checkers", "--player", &player],
        "setboard B:WK18:BK1,K32\ngenmove\nquit\n",
    );
    let answers = responses(&out);
    let mv = answers[1].strip_prefix("= ").expect("a move");
    // The move keeps the win: the position after it is lost for White.
    let mut game = Checkers::from_fen("B:WK18:BK1,K32").unwrap();
    let played = game.parse_move(mv).unwrap();
    game.play(played);
    let db = Endgame::build(3, |_, _| {});
    assert!(
        matches!(
            db.probe(game.position()),
            Some(tmbot::game::Solved::Loss(_))
        ),
        "{mv} gives the win away"
    );
    let missing = dir.path().join("none.tmeg");
    let player = format!("alphabeta:endgame={}", missing.display());
    // No input: the engine stops before it reads any.
    let output = run_engine_output(&["checkers", "--player", &player], "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("none.tmeg"),
        "{stderr}"
    );
}

/// An only legal move (here a forced capture) is answered without a search: the log shows
/// no depth and no nodes.
#[test]
fn an_only_move_is_answered_without_a_search() {
    let output = run_engine_output(
        &["checkers", "--player", "alphabeta:depth=12"],
        "setboard B:W18,30:B14\ngenmove\nquit\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(responses(&stdout)[1], "= 14x23\n\n", "{stdout}");
    assert!(
        stderr.contains("genmove black: 14x23 value - visits - playouts - depth - nodes -"),
        "{stderr}"
    );
}
