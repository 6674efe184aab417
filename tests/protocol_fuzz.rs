//! Robustness of both protocols: a million random and mutated command lines per protocol fed
//! in-process through `session::respond` (cheap `random` player, fixed seed), then a few
//! thousand junk lines (invalid UTF-8, a 100 KB line) through the real binary. Every command
//! line must get exactly one well-framed response and the engine must still answer `name`.
//! Random sequences of lines, most with a command id, go through the session loop: each line
//! that carries a command is answered exactly once, in order, whatever came before it.

#[allow(dead_code)] // each test file uses some of the helpers
mod common;

use rand::Rng as _;
use std::io::{Read, Write};
use std::path::Path;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::protocol::engine::{Engine, ProtocolGame};
use tmbot::protocol::registry::Registry;
use tmbot::protocol::session::{self, MAX_LINE};
use tmbot::protocol::{checkers, htp, line};
use tmbot::rng::{seeded, Rng};

/// Command lines fed to each protocol in-process.
const LINES_PER_PROTOCOL: usize = 1_000_000;

/// The player every fuzzed session keeps (anything else is reset to it after each command).
const CHEAP_PLAYER: &str = "random";

/// Words that are not commands of either protocol.
const JUNK_NAMES: [&str; 10] = [
    "",
    "playy",
    "GENMOVE",
    "Name",
    "list-commands",
    "#",
    "=",
    "?",
    "\u{0}",
    "ünïcode",
];

/// Argument words shared by both protocols: colours, numbers, swaps, parameter names.
const COMMON_WORDS: [&str; 40] = [
    "b",
    "black",
    "W",
    "white",
    "BLACK",
    "purple",
    "",
    "-",
    "0",
    "1",
    "2",
    "3",
    "7",
    "19",
    "20",
    "-1",
    "-0",
    "99999999999999999999999",
    "18446744073709551616",
    "1e308",
    "-1e308",
    "NaN",
    "inf",
    "0.5",
    "1.",
    "resign",
    "swap",
    "swap-pieces",
    "swap-sides",
    "pass",
    "allow_swap",
    "game_time",
    "player",
    "seed",
    "max_time",
    "increment",
    "random",
    "mcts:playouts=3",
    "mcts:playouts=-1",
    "alphabeta:depth=x",
];

/// Hex-specific arguments: cells on and off the board.
const HEX_WORDS: [&str; 14] = [
    "a1",
    "A1",
    "k11",
    "s19",
    "t20",
    "z99",
    "a0",
    "a-1",
    "aa1",
    "a",
    "1a",
    "c3",
    "e5",
    "a18446744073709551617",
];

/// Checkers-specific arguments: moves, FENs, digit boards, `set`/`get` names.
const CHECKERS_WORDS: [&str; 30] = [
    "11-15",
    "22x15",
    "9-13",
    "22-18",
    "24x15x6",
    "33-1",
    "0-4",
    "1x2x3x4x5x6x7x8x9x10",
    "15-11",
    "x",
    "-15",
    "B:W21-32:B1-12",
    "W:W32:B23,27,28",
    "B:WK12,K27,30,32:B21,K24,28,K31",
    ":::",
    "B:WK:B",
    "B:W1,1,1:B1",
    "B:W0:B33",
    "B:W21,22,:B1,",
    "[FEN \"B:W21-32:B1-12\"]",
    "1111",
    "0000",
    "3333",
    "5555",
    "11111111111100000000333333333333",
    "gamehist",
    "drawplies",
    "protocolversion",
    "gametype",
    "off",
];

/// Valid command lines of each protocol, the seeds of the mutations.
const HEX_LINES: [&str; 16] = [
    "boardsize 11 11",
    "boardsize 19",
    "boardsize 5 3",
    "clear_board",
    "play black e5",
    "play white a1",
    "play b swap-pieces",
    "genmove black",
    "reg_genmove white",
    "undo",
    "showboard",
    "showposition",
    "param_game allow_swap 1",
    "time_left b 30",
    "all_legal_moves w",
    "final_score",
];

const CHECKERS_LINES: [&str; 16] = [
    "setboard B:W21-32:B1-12",
    "setboard W 1111 1111 1111 0000 0000 3333 3333 3333",
    "setboard 11111111111100000000333333333333",
    "getboard",
    "play 11-15",
    "play 22x15",
    "genmove",
    "genmove w",
    "undo",
    "showboard",
    "legal_moves",
    "set gamehist B:W21-32:B1-12 11-15 23-19",
    "set drawplies 40",
    "get gametype",
    "result",
    "clear_board",
];

/// What varies between the two protocols in the fuzzer.
struct Vocabulary {
    names: Vec<String>,
    valid_lines: &'static [&'static str],
    words: &'static [&'static str],
    /// Commands that read or write files; their paths are redirected into `scratch`.
    file_commands: [&'static str; 2],
}

/// A random word: from the word pools, a command name, a number, or random characters.
fn random_word(rng: &mut Rng, vocab: &Vocabulary) -> String {
    match rng.random_range(0..10) {
        0..=3 => vocab.words[rng.random_range(0..vocab.words.len())].to_string(),
        4..=6 => COMMON_WORDS[rng.random_range(0..COMMON_WORDS.len())].to_string(),
        7 => vocab.names[rng.random_range(0..vocab.names.len())].clone(),
        8 => match rng.random_range(0..3) {
            0 => rng.random::<u64>().to_string(),
            1 => rng.random::<i32>().to_string(),
            _ => format!("{}", rng.random::<f64>() * 1e12 - 5e11),
        },
        _ => {
            let len = rng.random_range(0..12);
            random_chars(rng, len)
        }
    }
}

/// `len` random characters: printable ASCII, control characters and some non-ASCII.
fn random_chars(rng: &mut Rng, len: usize) -> String {
    (0..len)
        .map(|_| match rng.random_range(0..8) {
            0 => char::from(rng.random_range(0u8..32)),
            1 => char::from_u32(rng.random_range(0x80..0x3000)).unwrap_or('\u{fffd}'),
            _ => char::from(rng.random_range(32u8..127)),
        })
        .collect()
}

/// A command line built from parts: optional id, a (sometimes bogus) name, random arguments.
fn generated_line(rng: &mut Rng, vocab: &Vocabulary) -> String {
    let mut parts = Vec::new();
    match rng.random_range(0..6) {
        0 => parts.push(rng.random::<u32>().to_string()),
        1 => parts.push("99999999999999999999999".to_string()),
        _ => {}
    }
    if rng.random_range(0..8) == 0 {
        parts.push(JUNK_NAMES[rng.random_range(0..JUNK_NAMES.len())].to_string());
    } else {
        parts.push(vocab.names[rng.random_range(0..vocab.names.len())].clone());
    }
    for _ in 0..rng.random_range(0..7) {
        parts.push(random_word(rng, vocab));
    }
    let separator = [" ", "  ", "\t", " \r "][rng.random_range(0..4)];
    parts.join(separator)
}

/// A valid line with a few character- or word-level mutations.
fn mutated_line(rng: &mut Rng, vocab: &Vocabulary) -> String {
    let base = vocab.valid_lines[rng.random_range(0..vocab.valid_lines.len())];
    let mut words: Vec<String> = base.split(' ').map(str::to_string).collect();
    for _ in 0..rng.random_range(1..4) {
        let at = rng.random_range(0..words.len());
        match rng.random_range(0..7) {
            0 => words[at] = random_word(rng, vocab),
            1 => words.insert(at, random_word(rng, vocab)),
            2 if words.len() > 1 => {
                words.remove(at);
            }
            3 => {
                let other = rng.random_range(0..words.len());
                words.swap(at, other);
            }
            4 => {
                let mut chars: Vec<char> = words[at].chars().collect();
                let pos = rng.random_range(0..=chars.len());
                chars.insert(pos, random_chars(rng, 1).chars().next().unwrap_or('x'));
                words[at] = chars.into_iter().collect();
            }
            5 => {
                let keep = rng.random_range(0..=words[at].chars().count());
                words[at] = words[at].chars().take(keep).collect();
            }
            _ => words.push(words[at].clone()),
        }
    }
    words.join(" ")
}

/// Raw bytes read as a line would be (lossy UTF-8).
fn junk_line(rng: &mut Rng, len: usize) -> String {
    let bytes: Vec<u8> = (0..len).map(|_| rng.random::<u8>()).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One fuzzed line: mostly generated or mutated commands, some raw junk, rarely a long line.
fn fuzz_line(rng: &mut Rng, vocab: &Vocabulary) -> String {
    match rng.random_range(0..1000) {
        0 => {
            let len = rng.random_range(1_000..20_000);
            let word = random_word(rng, vocab);
            format!("play {}", vec![word; len / 8 + 1].join(" "))
        }
        1..=60 => {
            let len = rng.random_range(0..200);
            junk_line(rng, len)
        }
        61..=500 => mutated_line(rng, vocab),
        _ => generated_line(rng, vocab),
    }
}

/// Checks GTP framing: `=`/`?` (with the id echoed), one empty line at the very end, none
/// inside.
fn assert_framed(reply: &str, id: Option<u64>, sent: &str) {
    let head = match id {
        Some(id) => format!("{id} "),
        None => " ".to_string(),
    };
    assert!(
        (reply.starts_with('=') || reply.starts_with('?')) && reply[1..].starts_with(&head),
        "bad start of the answer to {sent:?}: {reply:?}"
    );
    let body = reply
        .strip_suffix("\n\n")
        .unwrap_or_else(|| panic!("answer to {sent:?} does not end with one empty line"));
    assert!(
        !body.ends_with('\n') && !body.split('\n').any(str::is_empty),
        "empty line inside the answer to {sent:?}: {reply:?}"
    );
}

/// Sends file commands' paths into `scratch` so the fuzzer never touches other files.
fn confine_paths(command: &mut line::CommandLine, vocab: &Vocabulary, scratch: &Path) {
    if vocab.file_commands.contains(&command.name.as_str()) {
        if let Some(path) = command.args.first_mut() {
            let name: String = path.chars().filter(char::is_ascii_alphanumeric).collect();
            *path = scratch
                .join(format!("f{}", &name[..name.len().min(2)]))
                .display()
                .to_string();
        }
    }
}

/// Feeds [`LINES_PER_PROTOCOL`] fuzzed lines to a fresh session; returns (commands
/// answered, lines with no command).
fn fuzz<G: ProtocolGame>(
    registry: &Registry<Engine<G>>,
    game: G,
    vocab: &Vocabulary,
    seed: u64,
) -> (usize, usize) {
    let scratch = tempfile::tempdir().unwrap();
    let mut engine = Engine::new(game, CHEAP_PLAYER, seed).unwrap();
    let mut rng = seeded(seed);
    let (mut answered, mut silent) = (0, 0);
    for _ in 0..LINES_PER_PROTOCOL {
        let raw = fuzz_line(&mut rng, vocab);
        let Some(mut command) = line::parse(&raw) else {
            silent += 1;
            continue;
        };
        confine_paths(&mut command, vocab, scratch.path());
        let reply = session::respond(registry, &mut engine, &command);
        assert_framed(&reply.text, command.id, &raw);
        assert_eq!(reply.quit, command.name == "quit", "{raw:?}");
        answered += 1;
        if engine.player_spec() != CHEAP_PLAYER {
            engine
                .param(&["player".to_string(), CHEAP_PLAYER.to_string()])
                .unwrap();
        }
    }
    let name = line::parse("name").unwrap();
    assert_eq!(
        session::respond(registry, &mut engine, &name).text,
        "= tmbot\n\n"
    );
    (answered, silent)
}

/// The solver's commands search until the position is solved (minutes or more on the
/// fuzzed 11x11 board); their arguments and limits are tested in `protocol::htp_solver`.
const SOLVING_COMMANDS: [&str; 2] = ["dfpn-solve-state", "dfpn-solver-find-winning"];

/// Both protocols' command names but the solving ones, the protocol's own first and weighted
/// twice: a session also gets the other protocol's commands with random arguments.
fn names_with_own_first<A, B>(own: &Registry<A>, other: &Registry<B>) -> Vec<String> {
    let own_names = own.list();
    own_names
        .lines()
        .chain(own_names.lines())
        .chain(other.list().lines())
        .filter(|name| !SOLVING_COMMANDS.contains(name))
        .map(str::to_string)
        .collect()
}

fn hex_vocabulary() -> Vocabulary {
    Vocabulary {
        names: names_with_own_first(&htp::registry(), &checkers::registry()),
        valid_lines: &HEX_LINES,
        words: &HEX_WORDS,
        file_commands: ["loadsgf", "savesgf"],
    }
}

fn checkers_vocabulary() -> Vocabulary {
    Vocabulary {
        names: names_with_own_first(&checkers::registry(), &htp::registry()),
        valid_lines: &CHECKERS_LINES,
        words: &CHECKERS_WORDS,
        file_commands: ["loadpdn", "savepdn"],
    }
}

#[test]
fn a_million_hex_lines_get_one_framed_answer_each() {
    let (answered, silent) = fuzz(
        &htp::registry(),
        Hex::new(11, 11).unwrap(),
        &hex_vocabulary(),
        2026,
    );
    eprintln!(
        "hex: {LINES_PER_PROTOCOL} lines fed, {answered} answered, {silent} without a command"
    );
    assert_eq!(answered + silent, LINES_PER_PROTOCOL);
    assert!(answered > LINES_PER_PROTOCOL * 9 / 10);
}

#[test]
fn a_million_checkers_lines_get_one_framed_answer_each() {
    let (answered, silent) = fuzz(
        &checkers::registry(),
        Checkers::new(),
        &checkers_vocabulary(),
        2027,
    );
    eprintln!(
        "checkers: {LINES_PER_PROTOCOL} lines fed, {answered} answered, {silent} without a command"
    );
    assert_eq!(answered + silent, LINES_PER_PROTOCOL);
    assert!(answered > LINES_PER_PROTOCOL * 9 / 10);
}

/// Random line sequences fed to each protocol's session loop.
const SEQUENCES_PER_PROTOCOL: usize = 300;

/// Lines that once made the checkers protocol read the lines after them as part of the
/// command (a bare `setboard` took the next 8 as digit rows), and rows of digits.
const MULTI_LINE_TRAPS: [&str; 9] = [
    "setboard",
    "setboard w",
    "setboard B",
    "0000",
    "1111",
    "3333",
    "0200",
    "",
    "# comment",
];

/// One line of a sequence: a fuzzed line or a trap, prefixed with command id `id` half of
/// the time; never a line break inside, never `quit` or a file command.
fn sequence_line(rng: &mut Rng, vocab: &Vocabulary, id: u64) -> String {
    loop {
        let mut text = if rng.random_range(0..3) == 0 {
            MULTI_LINE_TRAPS[rng.random_range(0..MULTI_LINE_TRAPS.len())].to_string()
        } else {
            fuzz_line(rng, vocab)
        };
        text.retain(|c| c != '\n');
        if rng.random_range(0..2) == 0 {
            text = format!("{id} {text}");
        }
        let excluded = line::parse(&text)
            .is_some_and(|c| c.name == "quit" || vocab.file_commands.contains(&c.name.as_str()));
        if !excluded {
            return text;
        }
    }
}

/// The command id an answer echoes (`=12 ...` or `?12 ...`), if any.
fn answered_id(reply: &str) -> Option<u64> {
    reply[1..].split(' ').next().and_then(|id| id.parse().ok())
}

/// Feeds [`SEQUENCES_PER_PROTOCOL`] random line sequences through `session::serve`; the
/// answers must match the lines that carry a command one to one, in order, each echoing
/// its line's id. Returns (lines, answers).
fn sequences<G: ProtocolGame + Clone>(
    registry: &Registry<Engine<G>>,
    game: G,
    vocab: &Vocabulary,
    seed: u64,
) -> (usize, usize) {
    let mut rng = seeded(seed);
    let (mut lines, mut answers) = (0, 0);
    for sequence in 0..SEQUENCES_PER_PROTOCOL {
        let mut engine = Engine::new(game.clone(), CHEAP_PLAYER, seed).unwrap();
        let sent: Vec<String> = (0..rng.random_range(1..40u64))
            .map(|n| sequence_line(&mut rng, vocab, 1000 + n))
            .collect();
        let commands: Vec<(&String, Option<u64>)> = sent
            .iter()
            .filter_map(|text| line::parse(text).map(|c| (text, c.id)))
            .collect();
        let input = sent.iter().map(|l| format!("{l}\n")).collect::<String>();
        let mut out = Vec::new();
        let stop = engine.stop.clone();
        session::serve(
            registry,
            &mut engine,
            std::io::Cursor::new(input.into_bytes()),
            &mut out,
            stop,
        )
        .unwrap();
        let out = String::from_utf8(out).expect("answers are UTF-8");
        let replies = common::responses(&out);
        assert_eq!(
            replies.len(),
            commands.len(),
            "sequence {sequence}: {} command lines, {} answers\nsent: {sent:#?}\nanswers: {replies:#?}",
            commands.len(),
            replies.len()
        );
        for ((text, id), reply) in commands.iter().zip(&replies) {
            assert_framed(reply, *id, text);
            assert_eq!(answered_id(reply), *id, "{text:?} answered by {reply:?}");
        }
        lines += sent.len();
        answers += replies.len();
    }
    (lines, answers)
}

#[test]
fn every_command_line_of_random_sequences_is_answered_once_in_order() {
    let (lines, answers) = sequences(
        &checkers::registry(),
        Checkers::new(),
        &checkers_vocabulary(),
        2029,
    );
    eprintln!("checkers: {lines} lines in sequences, {answers} answers");
    let (lines, answers) = sequences(
        &htp::registry(),
        Hex::new(7, 7).unwrap(),
        &hex_vocabulary(),
        2030,
    );
    eprintln!("hex: {lines} lines in sequences, {answers} answers");
}

/// Junk bytes for the binary: no `quit` and no file command, so each answer maps to one
/// line.
fn binary_junk(rng: &mut Rng, vocab: &Vocabulary) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for i in 0..3000 {
        let mut line: Vec<u8> = match i % 4 {
            0 => (0..rng.random_range(0..300))
                .map(|_| rng.random::<u8>())
                .collect(),
            1 => mutated_line(rng, vocab).into_bytes(),
            _ => generated_line(rng, vocab).into_bytes(),
        };
        line.retain(|&b| b != b'\n');
        let text = String::from_utf8_lossy(&line);
        let skip = line::parse(&text)
            .is_some_and(|c| c.name == "quit" || vocab.file_commands.contains(&c.name.as_str()));
        if !skip {
            lines.push(line);
        }
    }
    let long: Vec<u8> = (0..100 * 1024).map(|i| b"play b a1 \xff"[i % 11]).collect();
    lines.insert(lines.len() / 2, long);
    lines
}

/// Sends `lines` then `name` to `tmbot ARGS` and returns its whole output.
fn feed_binary(args: &[&str], lines: &[Vec<u8>]) -> String {
    let mut child = common::spawn_engine(args);
    let mut stdin = child.stdin.take().unwrap();
    let mut input = Vec::new();
    for line in lines {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    input.extend_from_slice(b"name\n");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    writer.join().unwrap().unwrap();
    assert!(child.wait().unwrap().success());
    String::from_utf8(out).expect("answers are UTF-8")
}

fn junk_through_the_binary(args: &[&str], vocab: &Vocabulary, seed: u64) {
    let mut rng = seeded(seed);
    let lines = binary_junk(&mut rng, vocab);
    let expected = lines
        .iter()
        .filter(|l| l.len() > MAX_LINE || line::parse(&String::from_utf8_lossy(l)).is_some())
        .count()
        + 1;
    let out = feed_binary(args, &lines);
    let replies = common::responses(&out);
    eprintln!(
        "{}: {} junk lines fed to the binary, {} answers",
        args[0],
        lines.len() + 1,
        replies.len()
    );
    assert_eq!(replies.len(), expected);
    for reply in &replies {
        assert!(
            reply.starts_with('=') || reply.starts_with('?'),
            "{reply:?}"
        );
        assert!(!reply[..reply.len() - 2].split('\n').any(str::is_empty));
    }
    assert!(replies.contains(&format!("? line longer than {MAX_LINE} bytes\n\n").as_str()));
    assert_eq!(*replies.last().unwrap(), "= tmbot\n\n");
}

#[test]
fn the_binary_survives_junk_invalid_utf8_and_a_100kb_line() {
    let hex = ["hex", "--player", "random", "--size", "7"];
    junk_through_the_binary(&hex, &hex_vocabulary(), 11);
    junk_through_the_binary(
        &["checkers", "--player", "random"],
        &checkers_vocabulary(),
        12,
    );
}
