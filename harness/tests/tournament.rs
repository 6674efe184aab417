//! `arena tournament` and `arena merge` end to end: resuming after a SIGKILL, a SIGINT and a
//! torn journal line, shards joined by `merge`, game records read back, refused files and
//! folders, determinism, colour-swapped pairs, external `tmbot` engines playing as their
//! in-process selves, and misbehaving external engines (fake engines written as bash scripts)
//! classified, counted as losses or voided and replayed, and never left running.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use tmbot::game::checkers::record::parse_pdn;
use tmbot::game::hex::sgf::SgfRecord;
use tmbot::game::hex::SwapRule;
use tmbot::game::{Color, Game};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const CHECKERS_BOOK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../openings/checkers-3move.txt"
);

/// Held for reading by every test while it runs `arena`, and for writing by the tests that
/// check that no child of this process is left: they run alone.
static PROCESSES: RwLock<()> = RwLock::new(());

fn shared() -> RwLockReadGuard<'static, ()> {
    PROCESSES.read().unwrap_or_else(|p| p.into_inner())
}

fn exclusive() -> RwLockWriteGuard<'static, ()> {
    PROCESSES.write().unwrap_or_else(|p| p.into_inner())
}

/// Runs arena to its end. Callers that hold [`exclusive`] use [`arena_alone`].
fn arena(args: &[&str]) -> Output {
    let _guard = shared();
    arena_alone(args)
}

fn arena_alone(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("arena runs")
}

fn text_of(out: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `arena tournament FILE --out DIR --concurrency C --json EXTRA...` and requires success.
fn tournament(file: &Path, out: &Path, concurrency: usize, extra: &[&str]) {
    let concurrency = concurrency.to_string();
    let mut args = vec![
        "tournament",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        &concurrency,
        "--json",
    ];
    args.extend_from_slice(extra);
    let result = arena(&args);
    assert!(
        result.status.success(),
        "arena {args:?} failed\n{}",
        text_of(&result)
    );
}

/// Runs `arena tournament` expecting failure; returns stderr.
fn tournament_fails(file: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "tournament",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let result = arena(&args);
    assert!(
        !result.status.success(),
        "arena {args:?} should fail\n{}",
        text_of(&result)
    );
    stderr_of(&result)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Writes the opening books the tournament files name (relative to the files) into `dir`.
fn write_books(dir: &Path) {
    std::fs::write(
        dir.join("hex-5.txt"),
        tmbot::play::openings::hex_book_text(5),
    )
    .unwrap();
    std::fs::write(
        dir.join("hex-7.txt"),
        tmbot::play::openings::hex_book_text(7),
    )
    .unwrap();
    std::fs::copy(CHECKERS_BOOK, dir.join("checkers.txt")).unwrap();
}

/// Games per pairing of the small file's events.
const SMALL_HEX_GAMES: u64 = 4;
const SMALL_CHECKERS_GAMES: u64 = 6;
/// Games of the small file: 3 pairings in each event.
const SMALL_TOTAL: usize = 3 * (SMALL_HEX_GAMES + SMALL_CHECKERS_GAMES) as usize;

/// A small tournament: Hex 5x5 and checkers, both from books, three players each.
fn small_file(seed: u64) -> String {
    format!(
        r#"seed = {seed}

[[event]]
name = "hex5"
game = "hex"
size = 5
games = {SMALL_HEX_GAMES}
openings = "hex-5.txt"
opening_order = "shuffled"
players = ["random", "mcts:playouts=300", "flatmc:playouts=200"]

[[event]]
name = "checkers"
game = "checkers"
games = {SMALL_CHECKERS_GAMES}
max_plies = 120
openings = "checkers.txt"
opening_order = "shuffled"
players = ["random", "alphabeta:depth=5", {{ name = "flat", spec = "flatmc:playouts=100" }}]
"#
    )
}

/// Games of the big file (3 pairings of 12 Hex games, 3 of 6 checkers games).
const BIG_TOTAL: usize = 3 * 12 + 3 * 6;

/// A tournament that takes a few seconds; `scale` multiplies the Hex players' playouts.
fn big_file(scale: u64) -> String {
    format!(
        r#"seed = 5

[[event]]
name = "hex7"
game = "hex"
size = 7
games = 12
openings = "hex-7.txt"
opening_order = "shuffled"
players = [
    "flatmc:playouts={}",
    "mcts:playouts={}",
    {{ name = "mcts-half", spec = "mcts:playouts={}" }},
]

[[event]]
name = "checkers"
game = "checkers"
games = 6
max_plies = 150
openings = "checkers.txt"
players = ["random", "alphabeta:depth=5", "flatmc:playouts=200"]
"#,
        3000 * scale,
        20000 * scale,
        10000 * scale
    )
}

/// A tempdir holding the books and `text` as `name`; returns the dir and the file's path.
fn setup(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    write_books(dir.path());
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

/// One row of results.csv.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    event: String,
    index: u64,
    black: String,
    white: String,
    result: String,
    termination: String,
    plies: usize,
    opening: String,
    detail: String,
}

/// Splits one CSV line into fields (double-quoted fields may hold commas and `""`).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

fn rows(dir: &Path) -> Vec<Row> {
    let text = read(&dir.join("results.csv"));
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("event,index,black,white,result,termination,plies,opening,seed,detail")
    );
    lines
        .map(|line| {
            let f = csv_fields(line);
            assert_eq!(f.len(), 10, "CSV line {line}");
            Row {
                event: f[0].clone(),
                index: f[1].parse().unwrap(),
                black: f[2].clone(),
                white: f[3].clone(),
                result: f[4].clone(),
                termination: f[5].clone(),
                plies: f[6].parse().unwrap(),
                opening: f[7].clone(),
                detail: f[9].clone(),
            }
        })
        .collect()
}

/// The (event, index) of every journal line, in file order; every line must be complete.
fn journal_keys(dir: &Path) -> Vec<(String, u64)> {
    journal_games(&dir.join("journal.jsonl"))
        .into_iter()
        .map(|(event, index, _)| (event, index))
        .collect()
}

/// Asserts that the journal of `dir` holds every game of `reference`'s journal exactly once.
fn assert_same_games(dir: &Path, reference: &Path) {
    let keys = journal_keys(dir);
    let set: BTreeSet<_> = keys.iter().cloned().collect();
    assert_eq!(set.len(), keys.len(), "a game is journaled twice: {keys:?}");
    let expected: BTreeSet<_> = journal_keys(reference).into_iter().collect();
    assert_eq!(set, expected);
}

/// Every file under `dir/records`, path relative to it and bytes.
fn records(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(base: &Path, at: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(path.strip_prefix(base).unwrap().to_path_buf(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&dir.join("records"), &dir.join("records"), &mut out);
    out
}

/// Asserts that two output folders hold the same results, summary and records.
fn assert_same_outputs(dir: &Path, reference: &Path) {
    assert_eq!(
        read(&dir.join("results.csv")),
        read(&reference.join("results.csv")),
        "results.csv of {} and {} differ",
        dir.display(),
        reference.display()
    );
    assert_eq!(
        read(&dir.join("summary.json")),
        read(&reference.join("summary.json"))
    );
    assert!(records(dir) == records(reference), "the records differ");
}

fn complete_lines(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

#[test]
fn resume_after_sigkill_equals_uninterrupted_run() {
    let mut attempt = None;
    for scale in [1, 3, 9] {
        let (dir, file) = setup("big.toml", &big_file(scale));
        let killed = dir.path().join("killed");
        match run_and_signal(&file, &killed, "KILL") {
            Some(_) => {
                let lines = complete_lines(&killed.join("journal.jsonl"));
                attempt = Some((dir, file, killed, lines));
                break;
            }
            None => eprintln!("the run at scale {scale} finished before the kill; enlarging"),
        }
    }
    let Some((dir, file, killed, lines)) = attempt else {
        panic!("every run finished before it could be killed: enlarge big_file's workload");
    };
    eprintln!("killed after {lines} of {BIG_TOTAL} games");
    assert!(lines < BIG_TOTAL, "{lines} games journaled before the kill");
    assert!(
        !killed.join("results.csv").exists(),
        "the killed run got to its results"
    );

    let whole = dir.path().join("whole");
    tournament(&file, &whole, 2, &[]);
    assert_eq!(journal_keys(&whole).len(), BIG_TOTAL);

    tournament(&file, &killed, 2, &["--resume"]);
    assert_same_games(&killed, &whole);
    assert_same_outputs(&killed, &whole);
}

#[test]
fn resume_drops_a_torn_journal_line() {
    let (dir, file) = setup("small.toml", &small_file(1));
    let whole = dir.path().join("whole");
    tournament(&file, &whole, 2, &[]);
    let journal = read(&whole.join("journal.jsonl"));
    let lines: Vec<&str> = journal.lines().collect();
    assert_eq!(lines.len(), SMALL_TOTAL);

    // A copy cut inside line `keep`: the games from there on are replayed.
    let keep = SMALL_TOTAL - 4;
    let torn = dir.path().join("torn");
    std::fs::create_dir(&torn).unwrap();
    std::fs::copy(whole.join("tournament.toml"), torn.join("tournament.toml")).unwrap();
    let mut text: String = lines[..keep].iter().map(|l| format!("{l}\n")).collect();
    text.push_str(&lines[keep][..lines[keep].len() / 2]);
    std::fs::File::create(torn.join("journal.jsonl"))
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();

    tournament(&file, &torn, 2, &["--resume"]);
    assert_same_games(&torn, &whole);
    assert_same_outputs(&torn, &whole);
}

#[test]
fn shards_merge_to_the_unsharded_results() {
    let (dir, file) = setup("small.toml", &small_file(1));
    let whole = dir.path().join("whole");
    tournament(&file, &whole, 2, &[]);
    let shards: Vec<PathBuf> = (1..=3).map(|k| dir.path().join(format!("s{k}"))).collect();
    let mut seen = BTreeSet::new();
    for (k, shard) in shards.iter().enumerate() {
        tournament(&file, shard, 1, &["--shard", &format!("{}/3", k + 1)]);
        let keys = journal_keys(shard);
        assert!(!keys.is_empty(), "shard {} played nothing", k + 1);
        for key in keys {
            assert!(seen.insert(key.clone()), "{key:?} is in two shards");
        }
    }
    assert_eq!(seen.len(), SMALL_TOTAL);

    let s = |p: &PathBuf| p.to_str().unwrap().to_string();
    let merged = dir.path().join("merged");
    let out = arena(&[
        "merge",
        &s(&shards[0]),
        &s(&shards[1]),
        &s(&shards[2]),
        "--out",
        &s(&merged),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text_of(&out));
    assert_same_games(&merged, &whole);
    assert_same_outputs(&merged, &whole);

    let twice = dir.path().join("twice");
    let out = arena(&[
        "merge",
        &s(&shards[0]),
        &s(&shards[1]),
        &s(&shards[1]),
        "--out",
        &s(&twice),
    ]);
    assert!(!out.status.success(), "merging a shard twice succeeded");
    assert!(stderr_of(&out).contains("twice"), "{}", text_of(&out));

    // Shard 2 of another tournament (another seed) does not join shards 1 and 3 of this one.
    let other_file = dir.path().join("other.toml");
    std::fs::write(&other_file, small_file(2)).unwrap();
    let other = dir.path().join("other-s2");
    tournament(&other_file, &other, 1, &["--shard", "2/3"]);
    let mixed = dir.path().join("mixed");
    let out = arena(&[
        "merge",
        &s(&shards[0]),
        &s(&other),
        &s(&shards[2]),
        "--out",
        &s(&mixed),
    ]);
    assert!(!out.status.success(), "merging other tournaments succeeded");
    assert!(
        stderr_of(&out).contains("another tournament"),
        "{}",
        text_of(&out)
    );
}

fn winner_of(result: &str) -> Option<Color> {
    match result {
        "1-0" => Some(Color::Black),
        "0-1" => Some(Color::White),
        "1/2-1/2" => None,
        other => panic!("unexpected result '{other}'"),
    }
}

#[test]
fn records_read_back_and_match_results() {
    let (dir, file) = setup("small.toml", &small_file(3));
    let out = dir.path().join("out");
    tournament(&file, &out, 2, &[]);
    let rows = rows(&out);
    assert_eq!(rows.len(), SMALL_TOTAL);

    let hex: Vec<&Row> = rows.iter().filter(|r| r.event == "hex5").collect();
    let sgf_files = std::fs::read_dir(out.join("records/hex5")).unwrap().count();
    assert_eq!(sgf_files, hex.len());
    for row in &hex {
        let path = out.join(format!("records/hex5/{:05}.sgf", row.index));
        let sgf = SgfRecord::parse(&read(&path)).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let info = |key: &str| {
            sgf.info
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(info("PB").as_deref(), Some(row.black.as_str()));
        assert_eq!(info("PW").as_deref(), Some(row.white.as_str()));
        let game = sgf
            .replay(SwapRule::Off)
            .unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let outcome = game
            .outcome()
            .unwrap_or_else(|| panic!("{path:?} does not replay to a finished game"));
        assert_eq!(outcome.winner, winner_of(&row.result), "{path:?}");
        assert!(
            outcome.winner.is_some(),
            "{path:?}: a Hex game is never drawn"
        );
        assert_eq!(game.moves().count(), row.plies, "{path:?}");
    }

    let checkers: Vec<&Row> = rows.iter().filter(|r| r.event == "checkers").collect();
    let pdn_path = out.join("records/checkers.pdn");
    let games = parse_pdn(&read(&pdn_path));
    assert_eq!(games.len(), checkers.len());
    for (game, row) in games.into_iter().zip(&checkers) {
        let game = game.unwrap_or_else(|e| panic!("game {}: {e}", row.index));
        assert_eq!(game.tag("Round"), Some(row.index.to_string().as_str()));
        assert_eq!(game.tag("Black"), Some(row.black.as_str()));
        assert_eq!(game.tag("White"), Some(row.white.as_str()));
        assert_eq!(game.result.as_str(), row.result, "game {}", row.index);
        assert_eq!(game.moves.len(), row.plies, "game {}", row.index);
        let played = game
            .replay()
            .unwrap_or_else(|e| panic!("game {}: {e}", row.index));
        match winner_of(&row.result) {
            Some(color) => assert_eq!(
                played.outcome().map(|o| o.winner),
                Some(Some(color)),
                "game {} does not end in {color}'s win",
                row.index
            ),
            // A draw is adjudicated (ply limit, draw rules): the game may go on.
            None => assert!(
                !matches!(played.outcome(), Some(o) if o.winner.is_some()),
                "game {} is drawn but replays to a win",
                row.index
            ),
        }
    }

    pydraughts_reads(&pdn_path, &checkers);
}

/// Reads the PDN with pydraughts when it is installed, replaying every game on its English
/// checkers board: each move must be legal there, the move counts match, and a decided game
/// ends with the winner results.csv names.
fn pydraughts_reads(pdn: &Path, rows: &[&Row]) {
    let available = Command::new("python3")
        .args(["-c", "import draughts"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        eprintln!("skipping the pydraughts check: python3 cannot import draughts");
        return;
    }
    // Prints per game: round, result tag, moves read, and the outcome of the replay
    // ("1-0": Black, who moves first, won; "0-1"; "1/2-1/2"; "*": not over).
    let script = r#"import sys
from draughts import Board, Move, BLACK, WHITE
from draughts.PDN import PDNReader
for game in PDNReader(filename=sys.argv[1]).games:
    if game.variant != "english":
        sys.exit("round %s: variant %s, not english" % (game.tags.get("Round"), game.variant))
    board = Board(variant="english", fen=game.tags.get("FEN", "startpos"))
    for number, text in enumerate(game.moves):
        try:
            move = Move(board, pdn_move=text)
        except Exception as error:
            sys.exit("round %s move %d '%s' is not legal: %r"
                     % (game.tags.get("Round"), number + 1, text, error))
        board.push(move)
    outcome = "*"
    if board.is_over():
        outcome = {BLACK: "1-0", WHITE: "0-1"}.get(board.winner(), "1/2-1/2")
    print(game.tags.get("Round"), game.tags.get("Result"), len(game.moves), outcome)
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(pdn)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "pydraughts: {}", text_of(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), rows.len(), "pydraughts read {printed}");
    for (line, row) in lines.iter().zip(rows) {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields.len(), 4, "pydraughts: {line}");
        assert_eq!(fields[0], row.index.to_string(), "pydraughts: {line}");
        assert_eq!(fields[1], row.result, "pydraughts: {line}");
        assert_eq!(fields[2], row.plies.to_string(), "pydraughts: {line}");
        if row.result == "1/2-1/2" {
            assert!(
                fields[3] == "*" || fields[3] == row.result,
                "pydraughts: a drawn game replays to {line}"
            );
        } else {
            assert_eq!(fields[3], row.result, "pydraughts: {line}");
        }
    }
}

#[test]
fn bad_files_and_folders_are_refused() {
    let (dir, file) = setup("small.toml", &small_file(1));
    let good = small_file(1);
    std::fs::write(dir.path().join("bad-book.txt"), "c3\nb2 b2\n").unwrap();
    let cases = [
        (
            "unknown key",
            good.replace("games = 4\n", "games = 4\ncolour = \"black\"\n"),
            "colour",
        ),
        (
            "missing size",
            good.replace("size = 5\n", ""),
            "needs a size",
        ),
        (
            "bad spec",
            good.replace("\"mcts:playouts=300\"", "\"mcts:c=fast\""),
            "c=fast",
        ),
        (
            "illegal book move",
            good.replace("\"hex-5.txt\"", "\"bad-book.txt\""),
            "b2",
        ),
    ];
    for (what, text, needle) in cases {
        assert_ne!(text, good, "{what}: the edit did not apply");
        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, &text).unwrap();
        let out = dir.path().join(format!("out-{}", what.replace(' ', "-")));
        let message = tournament_fails(&bad, &out, &[]);
        assert!(
            message.contains(needle),
            "{what}: '{needle}' not in\n{message}"
        );
        assert!(
            !out.join("journal.jsonl").exists() && !out.join("tournament.toml").exists(),
            "{what}: the failed run wrote into {}",
            out.display()
        );
    }

    let out = dir.path().join("out");
    tournament(&file, &out, 2, &[]);
    let journal = read(&out.join("journal.jsonl"));
    let message = tournament_fails(&file, &out, &[]);
    assert!(message.contains("--resume"), "{message}");

    let changed = dir.path().join("changed.toml");
    std::fs::write(&changed, small_file(2)).unwrap();
    let message = tournament_fails(&changed, &out, &["--resume"]);
    assert!(message.contains("another tournament"), "{message}");
    let message = tournament_fails(&file, &out, &["--resume", "--shard", "1/2"]);
    assert!(message.contains("another tournament"), "{message}");
    assert_eq!(read(&out.join("journal.jsonl")), journal);
}

#[test]
fn same_seed_same_results_other_seed_other_results() {
    let (dir, file) = setup("small.toml", &small_file(7));
    let other_file = dir.path().join("other.toml");
    std::fs::write(&other_file, small_file(8)).unwrap();
    let [a, b, c] = ["a", "b", "c"].map(|n| dir.path().join(n));
    // Different numbers of workers: a game's moves depend on its seed only.
    tournament(&file, &a, 2, &[]);
    tournament(&file, &b, 1, &[]);
    tournament(&other_file, &c, 2, &[]);
    assert_same_outputs(&b, &a);
    assert_ne!(
        read(&a.join("results.csv")),
        read(&c.join("results.csv")),
        "another seed gave the same results"
    );
}

#[test]
fn colour_swapped_pairs_share_their_opening() {
    let (dir, file) = setup("small.toml", &small_file(4));
    let out = dir.path().join("out");
    tournament(&file, &out, 2, &[]);
    let rows = rows(&out);
    for (event, games) in [
        ("hex5", SMALL_HEX_GAMES),
        ("checkers", SMALL_CHECKERS_GAMES),
    ] {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.event == event).collect();
        assert_eq!(mine.len() as u64, 3 * games);
        for (i, row) in mine.iter().enumerate() {
            assert_eq!(row.index, i as u64, "{event}: rows out of order");
        }
        for pair in mine.chunks(2) {
            let [first, second] = pair else {
                panic!("{event}: an odd number of games")
            };
            assert!(!first.opening.is_empty(), "{event} game {}", first.index);
            assert_eq!(
                first.opening, second.opening,
                "{event} game {}",
                first.index
            );
            assert_eq!(
                (&first.black, &first.white),
                (&second.white, &second.black),
                "{event} game {}",
                first.index
            );
        }
        // Pair k of every pairing plays the same opening; the pairs differ.
        let per_pairing: Vec<Vec<&String>> = mine
            .chunks(games as usize)
            .map(|c| c.iter().map(|r| &r.opening).collect())
            .collect();
        assert!(per_pairing.iter().all(|p| *p == per_pairing[0]));
        let distinct: BTreeSet<_> = per_pairing[0].iter().collect();
        assert_eq!(distinct.len() as u64, games / 2, "{event}: openings repeat");
    }
}

/// The `tmbot` engine built next to `arena` (`cargo build --workspace` builds both).
fn tmbot_binary() -> PathBuf {
    let path = Path::new(ARENA).with_file_name("tmbot");
    assert!(
        path.is_file(),
        "{} is missing: build the workspace (cargo build --workspace) first",
        path.display()
    );
    path
}

/// A tournament whose players are all in process.
const IN_PROCESS_PLAYERS: &str = r#"seed = 11

[[event]]
name = "hex5"
game = "hex"
size = 5
games = 4
openings = "hex-5.txt"
opening_order = "shuffled"
players = ["random", "mcts:playouts=100", "alphabeta:depth=2"]

[[event]]
name = "checkers"
game = "checkers"
games = 4
max_plies = 120
openings = "checkers.txt"
players = ["random", "alphabeta:depth=2", "mcts:playouts=100"]
"#;

/// `IN_PROCESS_PLAYERS` with the in-process `player` of `game` (the first one in the file
/// after its event's header) replaced by the same player run as an external `tmbot`.
fn as_external(text: &str, game: &str, player: &str) -> String {
    let header = format!("game = \"{game}\"");
    let at = text.find(&header).expect("the event is in the file");
    let (before, after) = text.split_at(at);
    let quoted = format!("\"{player}\"");
    assert!(after.contains(&quoted), "{player} does not play {game}");
    let external = format!(
        r#"{{ name = "{player}", spec = 'external:cmd="{} {game} --player {player}",seed=per-game,restart=on,startup=60s,name="{player}"' }}"#,
        tmbot_binary().display()
    );
    format!("{before}{}", after.replacen(&quoted, &external, 1))
}

#[test]
fn external_tmbot_tournament_equals_in_process() {
    let (dir, file) = setup("inside.toml", IN_PROCESS_PLAYERS);
    let mut text = as_external(IN_PROCESS_PLAYERS, "hex", "mcts:playouts=100");
    text = as_external(&text, "checkers", "alphabeta:depth=2");
    assert_eq!(text.matches("external:").count(), 2, "{text}");
    let outside_file = dir.path().join("outside.toml");
    std::fs::write(&outside_file, &text).unwrap();

    let [inside, outside] = ["inside", "outside"].map(|n| dir.path().join(n));
    tournament(&file, &inside, 2, &[]);
    tournament(&outside_file, &outside, 2, &[]);
    let rows = rows(&outside);
    assert_eq!(rows.len(), 3 * 4 + 3 * 4);
    assert!(
        rows.iter().all(|r| r.termination != "DISCONNECT"
            && r.termination != "ILLEGAL"
            && r.termination != "STALL"),
        "an external engine faulted: {rows:?}"
    );
    assert_same_outputs(&outside, &inside);
}

/// A fake HTP engine for Hex: `fake.sh MODE GOOD` answers the set-up commands, plays the
/// first free cell for its first GOOD genmoves (counted per process), then misbehaves as
/// MODE says. `flaky` crashes at its first genmove unless the file `started` beside the
/// script exists, and creates it: only its very first process crashes.
const FAKE_HTP: &str = r#"#!/bin/bash
mode="$1"; good="${2:-0}"; genmoves=0; size=0; last=""
here="$(dirname "$0")"
columns=(a b c d e f g h i j k l m n o p q r s)
declare -A taken
reply() { echo "=$id $1"; echo; }
while read -r line; do
  set -- $line
  id=""
  if [[ "$1" =~ ^[0-9]+$ ]]; then id="$1"; shift; fi
  command="$1"; shift
  case "$command" in
    protocol_version) reply 2 ;;
    name) reply "fake-$mode" ;;
    version) reply 0 ;;
    known_command) reply false ;;
    boardsize) size="$1"; taken=(); reply "" ;;
    clear_board) taken=(); reply "" ;;
    play) taken[$2]=1; reply "" ;;
    quit) reply ""; exit 0 ;;
    genmove)
      genmoves=$((genmoves + 1))
      if [ "$mode" = flaky ] && [ ! -e "$here/started" ]; then touch "$here/started"; exit 4; fi
      if ((genmoves > good)); then
        case "$mode" in
          crash) exit 3 ;;
          garbage) echo "no idea"; echo; continue ;;
          hang) while read -r _; do :; done; exit 0 ;;
          illegal) reply "$last"; continue ;;
        esac
      fi
      free=""
      for ((y = 1; y <= size; y++)); do
        for ((x = 0; x < size; x++)); do
          cell="${columns[$x]}$y"
          if [ -z "${taken[$cell]}" ]; then free="$cell"; break 2; fi
        done
      done
      taken[$free]=1; last="$free"; reply "$free" ;;
    *) echo "?$id unknown command"; echo ;;
  esac
done
"#;

/// A tempdir holding the fake engine as `fake.sh`.
fn fake_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("fake.sh");
    std::fs::write(&script, FAKE_HTP).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, script)
}

/// A player entry running the fake engine in `mode` after `good` good genmoves.
fn fake_player(script: &Path, name: &str, mode: &str, good: u32) -> String {
    format!(
        r#"{{ name = "{name}", spec = 'external:cmd="{} {mode} {good}",protocol=htp,restart=on,startup=30s,ping=30s' }}"#,
        script.display()
    )
}

/// Processes whose command line mentions `dir` (the fake engines started from it).
fn processes_from(dir: &Path) -> Vec<(u32, String)> {
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(&needle) {
            found.push((pid, cmdline));
        }
    }
    found
}

/// Children of this process that are zombies (exited, never waited for).
fn zombie_children() -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("?");
        let ppid: u32 = fields.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if ppid == me && state == "Z" {
            found.push(pid);
        }
    }
    found
}

/// Asserts that no fake engine started from `dir` runs and no child of this process is a
/// zombie.
fn assert_nothing_left(dir: &Path) {
    assert_eq!(processes_from(dir), vec![], "fake engines left running");
    assert_eq!(zombie_children(), Vec::<u32>::new(), "zombie children");
}

#[test]
fn faulty_engines_are_classified_and_the_tournament_completes() {
    let _guard = exclusive();
    let (fakes, script) = fake_dir();
    let players = [
        ("crash", "crash", 2, "DISCONNECT"),
        ("garbage", "garbage", 1, "ILLEGAL"),
        ("hang", "hang", 1, "STALL"),
        ("illegal", "illegal", 1, "ILLEGAL"),
    ];
    let entries: Vec<String> = players
        .iter()
        .map(|(name, mode, good, _)| fake_player(&script, name, mode, *good))
        .collect();
    let text = format!(
        r#"seed = 3

[[event]]
name = "faults"
game = "hex"
size = 4
format = "gauntlet"
games = 2
stall = "1s"
on_fault = "loss"
players = [
    "random",
    {},
]
"#,
        entries.join(",\n    ")
    );
    let (dir, file) = setup("faults.toml", &text);
    let out = dir.path().join("out");
    let result = arena_alone(&[
        "tournament",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "2",
        "--json",
    ]);
    assert!(result.status.success(), "{}", text_of(&result));
    assert_nothing_left(fakes.path());

    let rows = rows(&out);
    assert_eq!(rows.len(), players.len() * 2);
    for (name, _, good, termination) in players {
        let games: Vec<&Row> = rows
            .iter()
            .filter(|r| r.black == name || r.white == name)
            .collect();
        assert_eq!(games.len(), 2, "{name}: {rows:?}");
        for row in games {
            assert_eq!(row.termination, termination, "{name}: {row:?}");
            let lost = if row.black == name { "0-1" } else { "1-0" };
            assert_eq!(row.result, lost, "{name} did not lose: {row:?}");
            assert!(!row.detail.is_empty(), "{name}: no detail: {row:?}");
            assert!(
                row.plies >= 2 * good as usize - 1,
                "{name} did not play its good moves: {row:?}"
            );
        }
    }
}

#[test]
fn an_engine_that_cannot_start_stops_the_run_before_its_games() {
    // A mistyped program, and a program that starts but refuses its `init` command: the
    // run stops with the player's name and the reason, and no game of theirs is journaled.
    let _guard = exclusive();
    let (fakes, script) = fake_dir();
    for (name, spec, reason) in [
        (
            "missing",
            "external:cmd=\"/nonexistent/engine-xyz\",protocol=htp".to_string(),
            "cannot start '/nonexistent/engine-xyz'".to_string(),
        ),
        (
            "refuses",
            format!(
                "external:cmd=\"{} crash 9\",protocol=htp,init=\"no_such_command\"",
                script.display()
            ),
            "no_such_command".to_string(),
        ),
    ] {
        let text = format!(
            "seed = 3\n\n[[event]]\nname = \"start\"\ngame = \"hex\"\nsize = 4\n\
             format = \"gauntlet\"\ngames = 4\n\
             players = [{{ name = \"{name}\", spec = '{spec}' }}, \"random\", \"greedy\"]\n"
        );
        let (dir, file) = setup("start.toml", &text);
        let out = dir.path().join("out");
        let result = run_alone(&file, &out);
        assert!(!result.status.success(), "{name}: {}", text_of(&result));
        let message = stderr_of(&result);
        assert!(
            message.contains(&format!("player '{name}'")) && message.contains(&reason),
            "{name}: {message}"
        );
        assert_eq!(
            journal_games(&out.join("journal.jsonl")),
            vec![],
            "{name}: games were journaled"
        );
        assert_nothing_left(fakes.path());
    }
}

/// Runs `arena tournament` on a fake engine's event alone (concurrency 1).
fn run_alone(file: &Path, out: &Path) -> Output {
    arena_alone(&[
        "tournament",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "1",
        "--json",
    ])
}

/// The journal at `path` as (event, index, termination) triples.
fn journal_games(path: &Path) -> Vec<(String, u64, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "torn line in {path:?}"
    );
    text.lines()
        .map(|line| {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            (
                v["event"].as_str().unwrap().to_string(),
                v["index"].as_u64().unwrap(),
                v["record"]["termination"].to_string(),
            )
        })
        .collect()
}

#[test]
fn void_games_are_replayed_then_the_run_stops() {
    let _guard = exclusive();
    let (fakes, script) = fake_dir();
    let event = |players: &str| {
        format!(
            "seed = 5\n\n[[event]]\nname = \"void\"\ngame = \"hex\"\nsize = 4\ngames = 2\n\
             on_fault = \"void\"\nplayers = [{players}]\n"
        )
    };

    // Crashes at every first genmove: every game of it is void, and the first one voided
    // twice stops the run; the games between in-process players are journaled.
    let crasher = fake_player(&script, "crasher", "crash", 0);
    let (dir, file) = setup(
        "void.toml",
        &event(&format!("\"random\", \"mcts:playouts=20\", {crasher}")),
    );
    let out = dir.path().join("out");
    let result = run_alone(&file, &out);
    assert!(!result.status.success(), "{}", text_of(&result));
    assert_nothing_left(fakes.path());
    let message = stderr_of(&result);
    assert!(message.contains("void twice"), "{message}");
    let twice = (2..6)
        .find(|k| message.contains(&format!("game {k} of event 'void'")))
        .unwrap_or_else(|| panic!("no crasher's game named in {message}"));
    let voids = journal_games(&out.join("void.jsonl"));
    assert!(voids.len() >= 2, "{voids:?}");
    for (event, index, termination) in &voids {
        assert_eq!(event, "void");
        assert!((2..6).contains(index), "game {index} is not the crasher's");
        assert_eq!(termination, "\"DISCONNECT\"", "game {index}");
    }
    assert_eq!(
        voids.iter().filter(|(_, k, _)| *k == twice).count(),
        2,
        "game {twice} in void.jsonl: {voids:?}"
    );
    let journal = journal_games(&out.join("journal.jsonl"));
    let journaled: Vec<u64> = journal.iter().map(|(_, k, _)| *k).collect();
    assert!(!journaled.contains(&twice), "{journaled:?}");
    assert_eq!(journaled, vec![0, 1], "the in-process games are journaled");

    // Crashes in its first process only: the voided game is replayed and the run finishes.
    let flaky = fake_player(&script, "flaky", "flaky", 0);
    let file = dir.path().join("flaky.toml");
    std::fs::write(&file, event(&format!("\"random\", {flaky}"))).unwrap();
    let out = dir.path().join("flaky");
    let result = run_alone(&file, &out);
    assert!(result.status.success(), "{}", text_of(&result));
    assert!(
        fakes.path().join("started").exists(),
        "the flaky fake never started"
    );
    assert_nothing_left(fakes.path());
    let voids = journal_games(&out.join("void.jsonl"));
    assert_eq!(voids.len(), 1, "{voids:?}");
    assert_eq!(voids[0].2, "\"DISCONNECT\"");
    let mut journaled: Vec<u64> = journal_games(&out.join("journal.jsonl"))
        .iter()
        .map(|(_, k, _)| *k)
        .collect();
    assert!(
        journaled.contains(&voids[0].1),
        "the void game was not replayed"
    );
    journaled.sort_unstable();
    assert_eq!(journaled, vec![0, 1], "each game once");
    assert!(rows(&out).iter().all(|r| r.termination == "NORMAL"));
}

/// Starts the big tournament into `out` and sends it `signal` (`KILL`, `INT`) once a few
/// games are journaled. Returns the exit and the complete journal lines at the signal, or
/// `None` when the run finished first.
fn run_and_signal(file: &Path, out: &Path, signal: &str) -> Option<(Output, usize)> {
    let _guard = shared();
    let mut child = Command::new(ARENA)
        .args(["tournament", file.to_str().unwrap(), "--out"])
        .arg(out)
        .args(["--concurrency", "2", "--json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena starts");
    let journal = out.join("journal.jsonl");
    loop {
        if child.try_wait().unwrap().is_some() {
            child.wait_with_output().unwrap();
            return None;
        }
        let lines = complete_lines(&journal);
        if (3..BIG_TOTAL).contains(&lines) {
            let sent = Command::new("kill")
                .args([&format!("-{signal}"), &child.id().to_string()])
                .status()
                .expect("kill runs");
            assert!(sent.success());
            return Some((child.wait_with_output().unwrap(), lines));
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
fn interrupted_by_sigint_resumes() {
    let mut attempt = None;
    for scale in [1, 3, 9] {
        let (dir, file) = setup("big.toml", &big_file(scale));
        let stopped = dir.path().join("stopped");
        match run_and_signal(&file, &stopped, "INT") {
            Some((output, lines)) => {
                attempt = Some((dir, file, stopped, output, lines));
                break;
            }
            None => eprintln!("the run at scale {scale} finished before SIGINT; enlarging"),
        }
    }
    let Some((dir, file, stopped, output, lines)) = attempt else {
        panic!("every run finished before SIGINT: enlarge big_file's workload");
    };
    assert!(!output.status.success(), "{}", text_of(&output));
    assert!(
        stderr_of(&output).contains("--resume"),
        "{}",
        text_of(&output)
    );
    let journaled = journal_keys(&stopped).len();
    eprintln!("interrupted with {lines} games journaled, {journaled} at exit of {BIG_TOTAL}");
    assert!(journaled >= lines, "journal lines were lost");
    assert!(
        journaled < BIG_TOTAL,
        "the interrupted run played every game"
    );

    let whole = dir.path().join("whole");
    tournament(&file, &whole, 2, &[]);
    tournament(&file, &stopped, 2, &["--resume"]);
    assert_same_games(&stopped, &whole);
    assert_same_outputs(&stopped, &whole);
}

/// The main job: the showcase plays the shipped quickstart file to the end, both events, the
/// Tsetlin-Machine player included, and a second run only prints the finished tables.
#[test]
fn the_showcase_plays_the_quickstart_tournament() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tournaments/quickstart.toml"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("quick");
    let out_text = out.to_str().unwrap();
    let first = arena(&["showcase", "--file", file, "--out", out_text]);
    assert!(first.status.success(), "{}", text_of(&first));
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let events = summary["events"].as_array().unwrap();
    assert_eq!(events.len(), 2);
    for event in events {
        assert_eq!(event["games"], event["scheduled"], "{}", event["name"]);
        assert!(event["games"].as_u64().unwrap() > 0);
    }
    let tm = events[1]["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "avgtree-tm")
        .expect("the Tsetlin Machine player takes part");
    assert_eq!(tm["games"], 24);
    let stdout = String::from_utf8_lossy(&first.stdout).into_owned();
    assert!(stdout.contains("hex7: 48 of 48 games") && stdout.contains("avgtree-tm"));
    // Each player's mean time per move closes its row of the table.
    let header = stdout.lines().find(|l| l.contains("points")).unwrap();
    assert!(header.trim_end().ends_with("ms/move"), "{header}");
    let row = stdout.lines().find(|l| l.contains("avgtree-tm")).unwrap();
    let ms: f64 = row.split_whitespace().last().unwrap().parse().unwrap();
    assert!(ms >= 0.0, "{row}");
    let journal = read(&out.join("journal.jsonl"));
    let again = arena(&["showcase", "--file", file, "--out", out_text]);
    assert!(again.status.success(), "{}", text_of(&again));
    assert_eq!(
        read(&out.join("journal.jsonl")),
        journal,
        "nothing is played twice"
    );
    assert_eq!(String::from_utf8_lossy(&again.stdout), stdout);
}
