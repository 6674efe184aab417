//! Players: a search, an evaluator and default limits, built from a spec string
//! (see [`spec`] for the grammar). [`PLAYERS`] documents every player and option; it is
//! also the table that spec validation reads, so the listing cannot drift from the parser.

pub mod book;
pub mod spec;

use crate::eval::{EvalGame, Evaluator};
use crate::game::Color;
use crate::rng::Rng;
use crate::search::alphabeta::{
    score_value, AlphaBeta, DEFAULT_ETC_FROM_DEPTH, DEFAULT_THREAT_EXTENSIONS,
};
use crate::search::avgtree::{self, AvgTreeConfig};
use crate::search::mcts::{BiasDecay, Mcts, MctsConfig, Prior};
use crate::search::time_plan::{front_loaded, Pace};
use crate::search::{flatmc, greedy, Decision, Limits, SearchGame, TreePatterns};
use book::MoveBook;
use spec::{parse_duration, parse_switch, Spec, SpecError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A player kind: its spec name, what it does, and its options (`name`, doc).
#[derive(Clone, Copy, Debug)]
pub struct PlayerKind {
    /// The spec name.
    pub name: &'static str,
    /// What the player does.
    pub doc: &'static str,
    /// `(option, doc)` pairs.
    pub options: &'static [(&'static str, &'static str)],
}

/// Largest transposition table, as a power of two (2^26 entries of 16 bytes take 1 GiB).
pub const MAX_TABLE_BITS: u32 = 26;
/// Most threat extensions along one line of alpha-beta (`threats=`).
const MAX_THREAT_EXTENSIONS: u32 = 16;
/// Smallest transposition table, as a power of two.
pub const MIN_TABLE_BITS: u32 = 10;
/// Most MCTS threads a player may ask for.
pub const MAX_THREADS: usize = 256;
/// Most playouts per move a player may ask for.
pub const MAX_PLAYOUTS: u64 = 1_000_000_000_000;
/// Most nodes per move an alpha-beta player may ask for (a count: they take no memory).
pub const MAX_NODES: u64 = 1_000_000_000_000;
/// Most tree nodes an MCTS player may ask for (the tree keeps them all: this many take a
/// few GiB).
pub const MAX_TREE_NODES: u64 = 100_000_000;
/// Deepest alpha-beta search a player may ask for, in plies.
pub const MAX_DEPTH: u32 = 64;
/// Deepest averaging tree: every line to this depth is kept and evaluated in one batch, so
/// memory grows with the branching factor to this power.
pub const MAX_AVGTREE_DEPTH: u32 = 8;
/// Most visits before an MCTS leaf is expanded.
pub const MAX_EXPAND: u32 = 1_000_000;

const BOOK_DOC: &str = "move book file (arena book --out): its positions are answered with \
                        the book's move, without a search";
const EVAL_DOC: &str = "evaluator spec (see the evaluator list; default: the game's own)";
const EVAL_WHITE_DOC: &str = "evaluator used when the player has White (default: eval), as the \
                              checkers thesis's player kept one model per colour";

/// Every player kind with its options.
pub const PLAYERS: &[PlayerKind] = &[
    PlayerKind {
        name: "random",
        doc: "a uniformly random legal move",
        options: &[],
    },
    PlayerKind {
        name: "greedy",
        doc: "the move whose resulting position the evaluator likes best (one ply)",
        options: &[("eval", EVAL_DOC), ("eval-white", EVAL_WHITE_DOC)],
    },
    PlayerKind {
        name: "avgtree",
        doc: "averaging tree of the checkers thesis: every line to a fixed depth, leaves \
              evaluated in one batch, nodes worth the mean of their children",
        options: &[
            (
                "depth",
                "plies, 1 to 8, fewer where the tree would pass 4 million positions (default 3)",
            ),
            ("eval", EVAL_DOC),
            ("eval-white", EVAL_WHITE_DOC),
            ("win", "value of a forced win (default 9)"),
            ("loss", "value of a forced loss (default -9)"),
        ],
    },
    PlayerKind {
        name: "alphabeta",
        doc:
            "negamax alpha-beta with iterative deepening, aspiration windows, principal-variation \
              search, late-move reductions, transposition table, killer and history ordering, \
              quiescence on captures and a threat extension",
        options: &[
            (
                "depth",
                "maximum depth in plies, 1 to 64 (default 6 when no other limit is set)",
            ),
            ("time", "time per move: 500ms, 2s, 1.5"),
            ("nodes", "node limit per move, at most 10^12"),
            ("eval", EVAL_DOC),
            ("eval-white", EVAL_WHITE_DOC),
            (
                "tt",
                "transposition table size as a power of two, 10 to 26 (default 20; 16 bytes an entry)",
            ),
            (
                "endgame",
                "checkers endgame databases probed in the search: N (2 to 4) builds those of \
                 up to N pieces when the player is made (about 6 s for 4), a file name reads \
                 them (arena endgame --out); the first player's serve the whole process",
            ),
            ("book", BOOK_DOC),
            (
                "threats",
                "threatened horizons searched one ply more along a line, 0 to 16 (default 1): \
                 the side to move answers a capture the opponent threatens; after the first, \
                 only near the search window",
            ),
            (
                "etc",
                "enhanced transposition cutoffs at nodes with at least this many plies left, \
                 0 to 64 (default 0: none): a node first looks up the table entries of the \
                 positions its moves lead to and cuts when one proves a move good enough",
            ),
        ],
    },
    PlayerKind {
        name: "mcts",
        doc: "UCT Monte Carlo tree search with random playouts (or the game's playout patterns)",
        options: &[
            (
                "playouts",
                "simulations per move, at most 10^12 (default 10000 when no other limit is set)",
            ),
            ("time", "time per move: 500ms, 2s, 1.5"),
            (
                "pace",
                "even (every move takes the time per move, the default), carry (each move \
                 also takes half the time earlier moves left unused) or front (the time \
                 per move is a game's average: Hex's first move takes three times it, each \
                 later move of the side 3/E less, E its usual number of moves, never under \
                 a quarter, plus half the time earlier moves left unused)",
            ),
            ("nodes", "tree node limit, at most 10^8"),
            (
                "c",
                "exploration constant C in V + C sqrt(2 ln N / N_i) (default 0.25)",
            ),
            ("rave", "RAVE equivalence parameter k, or off (default off)"),
            (
                "bias",
                "progressive bias W from the game's move priors (Hex: move patterns learned \
                 from MoHex's games): a child of chance p gains W p, faded by decay=, and \
                 unvisited children are valued at their AMAF mean (default 0: off)",
            ),
            (
                "decay",
                "how the progressive bias fades: visits (W p / (visits + 1), the default) or \
                 sqrt (W p / sqrt(visits + 1))",
            ),
            (
                "eval",
                "evaluate leaves with this evaluator instead of a random playout",
            ),
            (
                "patterns",
                "the game's move patterns at the tree's nodes: prune (leave out the moves \
                 that cannot matter: Hex's dead cells and captured pairs), dominated (also \
                 the moves another move dominates: Hex's vulnerable cells whose killer is \
                 among the moves), forced (prune, and answer a forcing pattern with its \
                 reply alone: Hex answers an intrusion into a bridge at once), on (forced) \
                 or off (the default)",
            ),
            (
                "playout",
                "random (uniform moves, the default), patterns (the game's playout \
                 patterns: Hex answers an intrusion into a bridge at once) or weighted (the \
                 patterns, and Hex plays next to the last move by the move patterns' local \
                 weights)",
            ),
            (
                "threads",
                "threads searching in parallel, 1 to 256 (default 1)",
            ),
            (
                "parallel",
                "root (one tree per thread, statistics summed at the root; reproducible from \
                 the seed) or tree (one tree shared with virtual losses) (default root)",
            ),
            (
                "reuse",
                "keep the subtree between moves, on/off (default off)",
            ),
            (
                "expand",
                "visits before a leaf is expanded, at most 10^6 (default 2)",
            ),
            (
                "prior",
                "evaluator giving new children virtual visits worth its value (default none)",
            ),
            (
                "prior-visits",
                "virtual visits of a prior, 1 to 10^6 (default 20)",
            ),
            (
                "prior-depth",
                "tree levels whose new children get priors, 1 to 64 (default 1: the root's)",
            ),
            (
                "prove",
                "propagate proven wins and losses up the tree (MCTS-solver), on/off (default \
                 off): moves proven to lose are passed over, a move proven to win is played",
            ),
            (
                "knowledge",
                "visits at which a node asks the game's own analysis (Hex: H-search for \
                 both colours, about a millisecond on 9x9): a proven position is scored \
                 without playouts and moves outside the must-play region are proven to \
                 lose; implies prove=on's proof handling, at most 10^6 (default 0: off)",
            ),
            (
                "solver",
                "Hex: solver nodes spent on the root first, at most 10^8 (at most a quarter \
                 of the move's time, less in the first half of a game's usual length): a \
                 proven win is played at once, moves proven to lose are left out (default \
                 0: off)",
            ),
        ],
    },
    PlayerKind {
        name: "flatmc",
        doc: "flat Monte Carlo: playouts spread evenly over the moves, best mean wins",
        options: &[
            (
                "playouts",
                "simulations per move, at most 10^12 (default 10000)",
            ),
            ("time", "time per move: 500ms, 2s, 1.5"),
        ],
    },
];

/// The search a player runs, with its state.
enum Search<G: SearchGame> {
    Random,
    Greedy,
    AvgTree(AvgTreeConfig),
    AlphaBeta(Box<AlphaBeta<G>>),
    Mcts(Box<Mcts<G>>),
    FlatMc,
}

/// A configured player.
pub struct Player<G: SearchGame> {
    spec: String,
    search: Search<G>,
    evaluator: Arc<dyn Evaluator<G>>,
    /// The evaluator's spec (named when it cannot judge a game).
    eval_spec: String,
    /// The evaluator used when the player has White, and its spec, if not `evaluator`.
    white: Option<(Arc<dyn Evaluator<G>>, String)>,
    /// The MCTS prior's evaluator and spec, checked with the others before a game.
    prior: Option<(Arc<dyn Evaluator<G>>, String)>,
    limits: Limits,
    /// How the spec's time per move is spread over a game.
    pace: Pace,
    /// Under [`Pace::Carry`] and [`Pace::Front`]: the time earlier moves of this game left
    /// unused; each move may take half of it on top of its share.
    banked: Duration,
    /// Positions answered without a search.
    book: Option<Arc<MoveBook<G>>>,
    /// Scratch move list of the random player.
    moves: Vec<G::Move>,
}

impl<G: SearchGame> std::fmt::Debug for Player<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player").field("spec", &self.spec).finish()
    }
}

/// Reads one option value, wrapping the message with the option's `key=value` text.
fn read<T>(
    key: &str,
    value: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, SpecError> {
    parse(value).map_err(|message| SpecError::new(format!("{key}={value}"), message))
}

fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("'{text}' is not a valid number here"))
}

impl<G: SearchGame> Player<G> {
    /// Builds a player from a spec such as `mcts:playouts=20000,c=0.9`.
    pub fn from_spec(text: &str) -> Result<Player<G>, SpecError> {
        let parsed = Spec::parse(text)?;
        let kind = PLAYERS
            .iter()
            .find(|k| k.name == parsed.name)
            .ok_or_else(|| {
                let names: Vec<&str> = PLAYERS.iter().map(|k| k.name).collect();
                SpecError::new(
                    &parsed.name,
                    format!("unknown player; known: {}", names.join(", ")),
                )
            })?;
        let mut limits = Limits::default();
        let mut eval_spec = G::DEFAULT_EVAL.to_string();
        let mut white_spec = None;
        let mut prior_spec: Option<String> = None;
        let (mut prior_visits, mut prior_depth) = (20, 1);
        let mut avg = AvgTreeConfig::default();
        let mut mcts = MctsConfig::<G>::default();
        let mut mcts_eval = false;
        let mut table_bits = 20;
        let mut probe_solved = false;
        let mut threat_extensions = DEFAULT_THREAT_EXTENSIONS;
        let mut etc_from_depth = DEFAULT_ETC_FROM_DEPTH;
        let mut book = None;
        let mut pace = Pace::Even;
        for (key, value) in &parsed.options {
            if !kind.options.iter().any(|(name, _)| name == key) {
                let known: Vec<&str> = kind.options.iter().map(|(n, _)| *n).collect();
                return Err(SpecError::new(
                    format!("{key}={value}"),
                    format!(
                        "unknown option for {}; known: {}",
                        kind.name,
                        known.join(", ")
                    ),
                ));
            }
            match key.as_str() {
                "eval" => {
                    eval_spec = value.clone();
                    mcts_eval = true;
                }
                "eval-white" => white_spec = Some(value.clone()),
                "time" => limits.time = Some(read(key, value, parse_duration)?),
                "pace" => {
                    pace = read(key, value, |v| match v {
                        "even" => Ok(Pace::Even),
                        "carry" => Ok(Pace::Carry),
                        "front" => Ok(Pace::Front),
                        _ => Err(format!("'{v}' is neither even, carry nor front")),
                    })?
                }
                "playouts" => {
                    limits.playouts = Some(read(key, value, |v| bounded(v, 1, MAX_PLAYOUTS))?)
                }
                "nodes" => {
                    let most = if kind.name == "mcts" {
                        MAX_TREE_NODES
                    } else {
                        MAX_NODES
                    };
                    limits.nodes = Some(read(key, value, |v| bounded(v, 1, most))?)
                }
                "depth" => {
                    let most = if kind.name == "avgtree" {
                        MAX_AVGTREE_DEPTH
                    } else {
                        MAX_DEPTH
                    };
                    let depth = read(key, value, |v| bounded(v, 1, most))?;
                    limits.depth = Some(depth);
                    avg.depth = depth;
                }
                "win" => avg.forced_win = read(key, value, finite)?,
                "loss" => avg.forced_loss = read(key, value, finite)?,
                "tt" => {
                    table_bits = read(key, value, |v| bounded(v, MIN_TABLE_BITS, MAX_TABLE_BITS))?
                }
                "threats" => {
                    threat_extensions = read(key, value, |v| bounded(v, 0, MAX_THREAT_EXTENSIONS))?
                }
                "etc" => etc_from_depth = read(key, value, |v| bounded(v, 0, 64))?,
                "book" => {
                    book = Some(Arc::new(
                        MoveBook::load(std::path::Path::new(value))
                            .map_err(|e| SpecError::new(format!("{key}={value}"), e))?,
                    ))
                }
                "endgame" => {
                    G::load_solved(value)
                        .map_err(|e| SpecError::new(format!("{key}={value}"), e))?;
                    probe_solved = true;
                }
                "c" => {
                    mcts.c = read(key, value, |v| match finite(v)? {
                        c if c >= 0.0 => Ok(c),
                        _ => Err("C must be a finite number of at least 0".into()),
                    })?
                }
                "rave" => {
                    mcts.rave = read(key, value, |v| match parse_switch(v) {
                        Ok(false) => Ok(None),
                        Ok(true) => Ok(Some(1000.0)),
                        Err(_) => match finite(v) {
                            Ok(k) if k > 0.0 => Ok(Some(k)),
                            _ => Err(format!("'{v}' is neither on, off nor a positive number")),
                        },
                    })?
                }
                "patterns" => {
                    mcts.patterns = read(key, value, |v| match v.to_ascii_lowercase().as_str() {
                        "prune" => Ok(TreePatterns::Prune),
                        "dominated" => Ok(TreePatterns::Dominated),
                        "forced" => Ok(TreePatterns::Forced),
                        _ => parse_switch(v)
                            .map(|on| {
                                if on {
                                    TreePatterns::Forced
                                } else {
                                    TreePatterns::Off
                                }
                            })
                            .map_err(|_| {
                                format!("'{v}' is neither on, off, prune, dominated nor forced")
                            }),
                    })?
                }
                "playout" => {
                    (mcts.pattern_playouts, mcts.weighted_playouts) =
                        read(key, value, |v| match v {
                            "random" => Ok((false, false)),
                            "patterns" => Ok((true, false)),
                            "weighted" => Ok((true, true)),
                            _ => Err(format!("'{v}' is neither random, patterns nor weighted")),
                        })?
                }
                "threads" => mcts.threads = read(key, value, |v| bounded(v, 1, MAX_THREADS))?,
                "parallel" => {
                    mcts.shared_tree = read(key, value, |v| match v {
                        "root" => Ok(false),
                        "tree" => Ok(true),
                        _ => Err(format!("'{v}' is neither root nor tree")),
                    })?
                }
                "reuse" => mcts.reuse = read(key, value, parse_switch)?,
                "expand" => mcts.expand_after = read(key, value, |v| bounded(v, 1, MAX_EXPAND))?,
                "bias" => {
                    mcts.bias = read(key, value, |v| match finite(v)? {
                        b if b >= 0.0 => Ok(b),
                        _ => Err("the bias must be a finite number of at least 0".into()),
                    })?
                }
                "decay" => {
                    mcts.bias_decay = read(key, value, |v| match v {
                        "visits" => Ok(BiasDecay::Visits),
                        "sqrt" => Ok(BiasDecay::SqrtVisits),
                        _ => Err(format!("'{v}' is neither visits nor sqrt")),
                    })?
                }
                "solver" => mcts.solver = read(key, value, |v| bounded(v, 0, MAX_NODES))?,
                "prove" => mcts.prove = read(key, value, parse_switch)?,
                "knowledge" => mcts.knowledge = read(key, value, |v| bounded(v, 0, MAX_EXPAND))?,
                "prior" => prior_spec = Some(value.clone()),
                "prior-visits" => prior_visits = read(key, value, |v| bounded(v, 1, MAX_EXPAND))?,
                "prior-depth" => {
                    prior_depth = read(key, value, |v| bounded(v, 1, MAX_DEPTH as usize))?
                }
                _ => unreachable!("every option of the table is handled"),
            }
        }
        let evaluator = G::evaluators()
            .build(&eval_spec)
            .map_err(|e| SpecError::new(format!("eval={eval_spec}"), e.message))?;
        let white = match white_spec {
            Some(spec) => Some((
                G::evaluators()
                    .build(&spec)
                    .map_err(|e| SpecError::new(format!("eval-white={spec}"), e.message))?,
                spec,
            )),
            None => None,
        };
        let prior = match prior_spec {
            Some(spec) => {
                let evaluator = G::evaluators()
                    .build(&spec)
                    .map_err(|e| SpecError::new(format!("prior={spec}"), e.message))?;
                mcts.prior = Some(Prior {
                    evaluator: evaluator.clone(),
                    visits: prior_visits,
                    depth: prior_depth,
                });
                Some((evaluator, spec))
            }
            None => None,
        };
        if mcts_eval {
            mcts.evaluator = Some(evaluator.clone());
        }
        let search = match kind.name {
            "random" => Search::Random,
            "greedy" => Search::Greedy,
            "avgtree" => {
                limits.depth = None;
                Search::AvgTree(avg)
            }
            "alphabeta" => {
                let search = AlphaBeta::try_new(table_bits).map_err(|err| {
                    SpecError::new(
                        format!("tt={table_bits}"),
                        format!("cannot allocate the transposition table: {err}"),
                    )
                })?;
                let search = search
                    .with_threat_extensions(threat_extensions)
                    .with_transposition_cutoffs(etc_from_depth);
                Search::AlphaBeta(Box::new(if probe_solved {
                    search.probing_solved()
                } else {
                    search
                }))
            }
            "mcts" => Search::Mcts(Box::new(Mcts::new(mcts))),
            "flatmc" => Search::FlatMc,
            _ => unreachable!("every player of the table is handled"),
        };
        Ok(Player {
            spec: text.trim().to_string(),
            search,
            evaluator,
            eval_spec,
            white,
            prior,
            limits,
            pace,
            banked: Duration::ZERO,
            book,
            moves: Vec::new(),
        })
    }

    /// The player of `search_spec` (greedy, avgtree or alphabeta, naming no `eval`) judging
    /// positions with `evaluator` instead of a registered one (evolution hands in its
    /// networks this way); `eval_name` stands for the evaluator in the spec and errors.
    pub fn with_evaluator(
        search_spec: &str,
        evaluator: Arc<dyn Evaluator<G>>,
        eval_name: &str,
    ) -> Result<Player<G>, SpecError> {
        let parsed = Spec::parse(search_spec)?;
        if let Some((key, value)) = parsed
            .options
            .iter()
            .find(|(key, _)| key == "eval" || key == "eval-white")
        {
            return Err(SpecError::new(
                format!("{key}={value}"),
                "this player's evaluator is given, not named",
            ));
        }
        let mut player = Player::from_spec(search_spec)?;
        if !matches!(
            player.search,
            Search::Greedy | Search::AvgTree(_) | Search::AlphaBeta(_)
        ) {
            return Err(SpecError::new(
                &parsed.name,
                "only greedy, avgtree and alphabeta players take a given evaluator",
            ));
        }
        let separator = if parsed.options.is_empty() { ':' } else { ',' };
        player.spec = format!("{}{separator}eval={eval_name}", player.spec);
        player.evaluator = evaluator;
        player.eval_spec = eval_name.to_string();
        Ok(player)
    }

    /// Replaces the player's move book (`None`: search every position).
    pub fn set_book(&mut self, book: Option<Arc<MoveBook<G>>>) {
        self.book = book;
    }

    /// The spec this player was built from.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// Whether the player's evaluator can judge `game`'s positions (a Tsetlin Machine
    /// model trained on another board size cannot); the error names the evaluator.
    pub fn check_game(&self, game: &G) -> Result<(), SpecError> {
        let own = (&self.evaluator, "eval", &self.eval_spec);
        let white = self.white.as_ref().map(|(e, s)| (e, "eval-white", s));
        let prior = self.prior.as_ref().map(|(e, s)| (e, "prior", s));
        for (evaluator, key, spec) in std::iter::once(own).chain(white).chain(prior) {
            evaluator
                .check(game)
                .map_err(|message| SpecError::new(format!("{key}={spec}"), message))?;
        }
        if self.pace == Pace::Front && game.game_length().is_none() {
            return Err(SpecError::new(
                "pace=front",
                "this game has no usual length to spread the time over",
            ));
        }
        Ok(())
    }

    /// The limits the spec sets (protocols combine them with the clock).
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The spec's time for the next move of `game`: its time per move, spread over the game
    /// by its pace (plus half the time earlier moves left unused, except under
    /// [`Pace::Even`]).
    pub fn own_time(&self, game: &G) -> Option<Duration> {
        let time = self.limits.time?;
        Some(match (self.pace, game.game_length()) {
            (Pace::Even, _) => time,
            (Pace::Carry, _) => time + self.banked / 2,
            (Pace::Front, Some((played, expected))) => {
                time.mul_f64(front_loaded(played, expected)) + self.banked / 2
            }
            (Pace::Front, None) => time,
        })
    }

    /// Forgets what the search kept from earlier moves (transposition table, MCTS trees), so
    /// a game's moves do not depend on the games played before it.
    pub fn new_game(&mut self) {
        self.banked = Duration::ZERO;
        match &mut self.search {
            Search::AlphaBeta(search) => search.new_game(),
            Search::Mcts(search) => search.new_game(),
            Search::Random | Search::Greedy | Search::AvgTree(_) | Search::FlatMc => {}
        }
    }

    /// Chooses a move for the side to move in `game` (`None` when the game is over).
    /// Limits set in `limits` replace the spec's own.
    pub fn choose(&mut self, game: &G, limits: &Limits, rng: &mut Rng) -> Option<G::Move> {
        self.decide(game, limits, rng).best
    }

    /// Chooses a move like [`Player::choose`] and keeps what the search measured on the way
    /// (value, depth, nodes, playouts, visits).
    pub fn decide(&mut self, game: &G, limits: &Limits, rng: &mut Rng) -> Decision<G::Move> {
        if let Some(mv) = self.book.as_ref().and_then(|book| book.probe(game)) {
            return Decision::bare(Some(mv));
        }
        let own = Limits {
            time: self.own_time(game),
            ..self.limits.clone()
        };
        let limits = own.overridden_by(limits);
        // Under a pace that carries time, the move's unused time goes to the later ones.
        let started = (self.pace != Pace::Even).then(Instant::now);
        let decision = self.run_search(game, &limits, rng);
        if let (Some(started), Some(allowed)) = (started, limits.time) {
            self.banked = self.banked - self.banked / 2 + allowed.saturating_sub(started.elapsed());
        }
        decision
    }

    /// The decision of the player's search (or evaluator) within `limits`.
    fn run_search(&mut self, game: &G, limits: &Limits, rng: &mut Rng) -> Decision<G::Move> {
        let evaluator = match &self.white {
            Some((white, _)) if game.side_to_move() == Color::White => white.as_ref(),
            _ => self.evaluator.as_ref(),
        };
        match &mut self.search {
            Search::Random => Decision::bare(game.random_move(rng, &mut self.moves)),
            Search::Greedy => greedy::choose(game, evaluator, rng),
            Search::AvgTree(config) => {
                let mut config = *config;
                if let Some(depth) = limits.depth {
                    config.depth = depth;
                }
                avgtree::choose(game, evaluator, &config, rng)
            }
            Search::AlphaBeta(search) => {
                let report = search.search(game, evaluator, limits, rng);
                Decision {
                    best: report.best,
                    value: report.best.map(|_| score_value(report.score)),
                    depth: Some(report.depth),
                    nodes: Some(report.nodes),
                    ..Decision::bare(None)
                }
            }
            Search::Mcts(search) => {
                let report = search.search(game, limits, rng);
                let visits = report
                    .visits
                    .iter()
                    .find(|(mv, _)| Some(*mv) == report.best)
                    .map(|&(_, v)| u64::from(v));
                Decision {
                    best: report.best,
                    value: report.value,
                    nodes: Some(report.tree_nodes as u64),
                    playouts: Some(report.simulations),
                    visits,
                    line: report.line,
                    ..Decision::bare(None)
                }
            }
            Search::FlatMc => flatmc::choose(game, limits, rng),
        }
    }
}

/// Parses an integer in `least..=most`.
fn bounded<T>(text: &str, least: T, most: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    match number::<T>(text)? {
        v if v >= least && v <= most => Ok(v),
        _ => Err(format!("'{text}' must be between {least} and {most}")),
    }
}

/// Parses a finite number (no `inf` or `NaN`).
fn finite(text: &str) -> Result<f64, String> {
    let value = number::<f64>(text)?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!("'{text}' is not a finite number"))
    }
}

/// A readable list of every player, option and evaluator of game `G` (for `--list-players`),
/// headed by `default_player`, the spec used when none is given.
pub fn list_players<G: EvalGame>(default_player: &str) -> String {
    let mut text = format!("Default player (without --player): {default_player}\n");
    text.push_str("Players (spec: name[:option=value,...]):\n");
    for kind in PLAYERS {
        text.push_str(&format!("  {:<10} {}\n", kind.name, kind.doc));
        for (option, doc) in kind.options {
            text.push_str(&format!("      {option:<9} {doc}\n"));
        }
    }
    text.push_str("Evaluators (eval=name[:argument]):\n");
    for (name, doc) in G::evaluators().docs() {
        text.push_str(&format!("  {name:<10} {doc}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rng::seeded;
    use crate::search::toy::TicTacToe;

    fn error(spec: &str) -> SpecError {
        Player::<TicTacToe>::from_spec(spec).unwrap_err()
    }

    #[test]
    fn a_white_evaluator_decides_the_white_moves_only() {
        let mut game = crate::game::hex::Hex::new(5, 5).unwrap();
        let choose = |spec: &str, game: &crate::game::hex::Hex| {
            Player::from_spec(spec)
                .unwrap()
                .choose(game, &Limits::default(), &mut seeded(3))
        };
        let both = "greedy:eval=random:1,eval-white=random:2";
        let mut differ = false;
        for _ in 0..6 {
            let own = if game.side_to_move() == Color::White {
                "greedy:eval=random:2"
            } else {
                "greedy:eval=random:1"
            };
            let other = own
                .replace(":1", ":0")
                .replace(":2", ":1")
                .replace(":0", ":2");
            let mv = choose(both, &game).unwrap();
            assert_eq!(Some(mv), choose(own, &game));
            differ |= Some(mv) != choose(&other, &game);
            game.play(mv);
        }
        assert!(
            differ,
            "the two evaluators never disagreed: the test proves nothing"
        );
        assert!(Player::<TicTacToe>::from_spec("mcts:eval-white=random").is_err());
        assert!(Player::<TicTacToe>::from_spec("greedy:eval-white=nonsense").is_err());
    }

    #[test]
    fn every_listed_player_builds_and_plays() {
        let game = TicTacToe::from_moves(&[0, 3, 1, 4]);
        for spec in [
            "random",
            "greedy:eval=random:3",
            "avgtree:depth=2,eval=random",
            "alphabeta:depth=5,tt=12",
            "alphabeta:nodes=2000",
            "alphabeta:depth=3,threats=4",
            "mcts:playouts=500,c=2,rave=on,patterns=off,threads=2,reuse=on,expand=1",
            "mcts:playouts=200,eval=random",
            "mcts:playouts=300,playout=patterns,rave=300,patterns=prune",
            "mcts:playouts=300,patterns=forced",
            "mcts:playouts=300,patterns=dominated",
            "mcts:playouts=400,threads=2,parallel=tree,reuse=on,prove=on",
            "flatmc:playouts=300",
        ] {
            let mut player = Player::<TicTacToe>::from_spec(spec).unwrap();
            let mv = player
                .choose(&game, &Limits::default(), &mut seeded(1))
                .unwrap();
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            assert!(moves.contains(&mv), "{spec} played {mv}");
        }
    }

    #[test]
    fn bad_specs_name_the_offending_part() {
        assert_eq!(error("minimax").part, "minimax");
        assert_eq!(error("mcts:depth=3").part, "depth=3");
        assert_eq!(error("mcts:playouts=-5").part, "playouts=-5");
        assert_eq!(error("mcts:playout=smart").part, "playout=smart");
        assert_eq!(error("alphabeta:time=soon").part, "time=soon");
        assert_eq!(error("alphabeta:tt=40").part, "tt=40");
        assert_eq!(error("alphabeta:threats=17").part, "threats=17");
        assert_eq!(error("alphabeta:threats=many").part, "threats=many");
        assert_eq!(error("greedy:eval=oracle").part, "eval=oracle");
        assert_eq!(error("mcts:rave=maybe").part, "rave=maybe");
        assert_eq!(error("mcts:c=-1").part, "c=-1");
        assert_eq!(error("mcts:bias=-1").part, "bias=-1");
        assert_eq!(error("mcts:bias=lots").part, "bias=lots");
        assert_eq!(error("mcts:decay=fast").part, "decay=fast");
        assert_eq!(error("mcts:patterns=some").part, "patterns=some");
        assert_eq!(error("mcts:parallel=leaf").part, "parallel=leaf");
    }

    #[test]
    fn options_beyond_what_the_machine_can_do_are_refused_before_allocating() {
        for (spec, part) in [
            ("alphabeta:tt=30", "tt=30"),
            ("alphabeta:tt=27", "tt=27"),
            ("mcts:threads=4096", "threads=4096"),
            ("mcts:threads=0", "threads=0"),
            ("mcts:playouts=1000000000001", "playouts=1000000000001"),
            ("alphabeta:nodes=1000000000001", "nodes=1000000000001"),
            ("mcts:nodes=100000001", "nodes=100000001"),
            ("alphabeta:depth=65", "depth=65"),
            ("avgtree:depth=9", "depth=9"),
            ("mcts:expand=4000000000", "expand=4000000000"),
            ("mcts:rave=inf", "rave=inf"),
            ("mcts:c=NaN", "c=NaN"),
            ("avgtree:win=inf", "win=inf"),
            ("alphabeta:time=1e300", "time=1e300"),
            ("flatmc:time=inf", "time=inf"),
        ] {
            let err = error(spec);
            assert_eq!(err.part, part, "{spec}: {err}");
        }
        assert!(Player::<TicTacToe>::from_spec("alphabeta:tt=26,depth=64").is_ok());
        assert!(Player::<TicTacToe>::from_spec("mcts:threads=256").is_ok());
    }

    #[test]
    fn the_listing_names_every_player_and_option() {
        let text = list_players::<TicTacToe>("random");
        assert!(text.starts_with("Default player (without --player): random\n"));
        for kind in PLAYERS {
            assert!(text.contains(kind.name));
            for (option, _) in kind.options {
                assert!(text.contains(option));
            }
        }
        assert!(text.contains("random"));
    }

    #[test]
    fn a_front_pace_spends_more_on_the_first_moves() {
        use crate::game::hex::Hex;
        let mut game = Hex::new(9, 9).unwrap();
        let player = Player::<Hex>::from_spec("mcts:time=1s,pace=front").unwrap();
        let even = Player::<Hex>::from_spec("mcts:time=1s").unwrap();
        player.check_game(&game).unwrap();
        let ms = |d: Option<Duration>| d.unwrap().as_millis();
        assert_eq!(ms(player.own_time(&game)), 3000);
        assert_eq!(ms(even.own_time(&game)), 1000);
        for mv in ["e5", "d6"] {
            game.play(game.parse_move(mv).unwrap());
        }
        // 9x9: 40 plies usual, 20 moves a side; the second takes 3 (1 - 3/20) = 2.55 s.
        assert_eq!(ms(player.own_time(&game)), 2550);
        assert_eq!(ms(even.own_time(&game)), 1000);
        assert_eq!(error("mcts:pace=fast").part, "pace=fast");
        // A move that ends early (here at its playout limit) leaves its time to the later
        // moves of the game, each taking half of what is left; a new game starts afresh.
        let mut quick = Player::<Hex>::from_spec("mcts:time=10s,pace=front,playouts=10").unwrap();
        let paced = quick.own_time(&game).unwrap();
        let mv = quick
            .choose(&game, &Limits::default(), &mut seeded(1))
            .unwrap();
        game.play(mv);
        game.play(game.parse_move("a1").unwrap());
        let unspent = paced.as_secs_f64() - 1.0;
        let next = quick.own_time(&game).unwrap().as_secs_f64();
        assert!(next > 10.0 * 2.55 * 0.85 + unspent / 2.0, "{next}");
        quick.new_game();
        assert_eq!(ms(quick.own_time(&game)), 21_675);
        // Carried time alone: the time per move and half of what was left.
        let mut carry = Player::<Hex>::from_spec("mcts:time=10s,pace=carry,playouts=10").unwrap();
        assert_eq!(ms(carry.own_time(&game)), 10_000);
        carry
            .choose(&game, &Limits::default(), &mut seeded(1))
            .unwrap();
        let next = carry.own_time(&game).unwrap().as_secs_f64();
        assert!((14.0..=15.0).contains(&next), "{next}");
        // Tic-tac-toe has no usual length to spread the time over.
        let ticks = Player::<TicTacToe>::from_spec("mcts:time=1s,pace=front").unwrap();
        assert_eq!(
            ticks
                .check_game(&TicTacToe::from_moves(&[]))
                .unwrap_err()
                .part,
            "pace=front"
        );
    }

    #[test]
    fn limits_passed_in_override_the_spec() {
        let game = TicTacToe::from_moves(&[4]);
        let mut a = Player::<TicTacToe>::from_spec("mcts:playouts=100000").unwrap();
        let mut b = Player::<TicTacToe>::from_spec("mcts:playouts=300").unwrap();
        let limits = Limits {
            playouts: Some(300),
            ..Limits::default()
        };
        assert_eq!(
            a.choose(&game, &limits, &mut seeded(2)),
            b.choose(&game, &Limits::default(), &mut seeded(2))
        );
    }
}
