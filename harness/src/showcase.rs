//! `arena showcase`: a quick tour on built-in defaults. Built-in players meet in a small
//! round robin in each game (every pairing played with colours alternating), and a results
//! table with each player's score is printed.

use crate::matches::play_one;
use rayon::prelude::*;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::search::SearchGame;

/// Hex players of the showcase, weakest first.
const HEX_PLAYERS: [&str; 4] = [
    "random",
    "greedy:eval=twodistance",
    "flatmc:playouts=400",
    "mcts:playouts=400",
];

/// Checkers players of the showcase, weakest first.
const CHECKERS_PLAYERS: [&str; 4] = ["random", "greedy", "avgtree:depth=3", "alphabeta:depth=6"];

/// Arguments of `arena showcase`.
#[derive(clap::Args)]
pub struct Args {
    /// Games per pairing (colours alternate).
    #[arg(long, default_value_t = 10)]
    games: u64,
    /// Hex board size.
    #[arg(long, default_value_t = 7)]
    size: usize,
    /// Seed of the whole showcase.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// One player's line in the table.
struct Standing {
    spec: &'static str,
    points: f64,
    games: u64,
}

/// Plays the round robin among `players` from `start` and prints the table.
fn round_robin<G: SearchGame>(
    title: &str,
    start: G,
    players: &[&'static str],
    args: &Args,
) -> anyhow::Result<()> {
    let pairings: Vec<(usize, usize)> = (0..players.len())
        .flat_map(|a| (a + 1..players.len()).map(move |b| (a, b)))
        .collect();
    let jobs: Vec<(usize, usize, u64)> = pairings
        .iter()
        .flat_map(|&(a, b)| (0..args.games).map(move |g| (a, b, g)))
        .collect();
    let results = jobs
        .par_iter()
        .enumerate()
        .map(|(k, &(a, b, g))| {
            let (score, _plies) = play_one(
                &start,
                players[a],
                players[b],
                args.seed.wrapping_add(k as u64),
                g,
            )?;
            Ok((a, b, score))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut table: Vec<Standing> = players
        .iter()
        .map(|&spec| Standing {
            spec,
            points: 0.0,
            games: 0,
        })
        .collect();
    let mut cross = vec![vec![0.0; players.len()]; players.len()];
    for (a, b, score) in results {
        table[a].points += score;
        table[b].points += 1.0 - score;
        table[a].games += 1;
        table[b].games += 1;
        cross[a][b] += score;
        cross[b][a] += 1.0 - score;
    }
    println!(
        "\n{title}: round robin, {} games per pairing, colours alternating, seed {}",
        args.games, args.seed
    );
    let header: String = (1..=players.len()).map(|i| format!("{i:>6}")).collect();
    println!("  {:<28}{header}   points  score", "player");
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&x, &y| table[y].points.total_cmp(&table[x].points));
    for &i in &order {
        let row: String = (0..players.len())
            .map(|j| {
                if i == j {
                    format!("{:>6}", "-")
                } else {
                    format!("{:>6.1}", cross[i][j])
                }
            })
            .collect();
        let s = &table[i];
        println!(
            "{} {:<28}{row}   {:>6.1}  {:>4.0}%",
            i + 1,
            s.spec,
            s.points,
            100.0 * s.points / s.games.max(1) as f64
        );
    }
    Ok(())
}

/// Runs `arena showcase`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.games == 0 {
        anyhow::bail!("--games must be at least 1");
    }
    let hex = Hex::new(args.size, args.size).map_err(|e| anyhow::anyhow!("--size: {e}"))?;
    round_robin(&format!("Hex {0}x{0}", args.size), hex, &HEX_PLAYERS, &args)?;
    round_robin(
        "English checkers",
        Checkers::new(),
        &CHECKERS_PLAYERS,
        &args,
    )?;
    println!(
        "\nReproduce any pairing with `arena match`; see `tmbot --list-players` for every player."
    );
    Ok(())
}
