//! `arena explain MODEL`: a trained model's clauses as readable rules, in seed 000's style
//! (`Clause 12: CR_c3_e7 AND NOT CB_a1_b2`), with polarity and weight, and the literals the
//! clauses include most often.
//!
//! Hex connection features are shown with cell names (`a1` is the top-left cell; the model
//! file keeps the encoder's `x_y` names); checkers features are plane and square (`BM_5`).
//! Convolutional clauses are written over the patch features (window cells
//! `p{plane}_{dx}_{dy}` and position bits `x>k`, `y>k`). A coalesced machine's clauses are
//! the whole shared pool for every class, with that class's weight; its sign is the
//! polarity. Classes are named after the seed datasets' labels.
//!
//! Clauses are ranked by the votes they cast on a dataset given with `--data` (the samples
//! on which the clause fires times its |weight|), else by |weight| (in an unweighted model
//! every weight is 1, so the shorter clause comes first). Each clause shows at most
//! `--literals` literals and counts the rest.

use rayon::prelude::*;
use std::path::PathBuf;
use tmbot::features::encoder::Kind;
use tmbot::features::{read_dataset, Encoder};
use tmbot::game::hex::geometry::cell_name;
use tmbot::tm::persist::{Machine, SavedModel};
use tmbot::tm::Dataset;

/// Arguments of `arena explain`.
#[derive(clap::Args)]
pub struct Args {
    /// The model file.
    model: PathBuf,
    /// Only this class.
    #[arg(long)]
    class: Option<usize>,
    /// Clauses (and literals) shown per class.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Most literals written per clause (the rest are counted).
    #[arg(long, default_value_t = 8)]
    literals: usize,
    /// A dataset (read through the model's encoder) on which to count each clause's votes.
    #[arg(long)]
    data: Option<PathBuf>,
}

/// A feature's name as shown: Hex connection features (`B_x_y`, `CR_x0_y0_x1_y1`) with cell
/// names (`B_a1`, `CR_c3_e7`); every other name as it is.
fn shown_name(encoder: &Encoder, name: &str) -> String {
    if encoder.kind != Kind::HexConnection {
        return name.to_string();
    }
    let mut parts = name.split('_');
    let prefix = parts.next().unwrap_or_default();
    let numbers: Option<Vec<usize>> = parts.map(|p| p.parse().ok()).collect();
    match numbers {
        Some(xy) if !xy.is_empty() && xy.len() % 2 == 0 => {
            let cells: Vec<String> = xy.chunks(2).map(|c| cell_name(c[0], c[1])).collect();
            format!("{prefix}_{}", cells.join("_"))
        }
        _ => name.to_string(),
    }
}

/// The meaning of class `class` in a model of `classes` classes over `encoder`'s features
/// (see [`Encoder::class_names`]).
fn class_name(encoder: &Encoder, classes: usize, class: usize) -> String {
    match encoder.class_names(classes).get(class) {
        Some(name) => format!("class {class} ({name})"),
        None => format!("class {class}"),
    }
}

/// The name of literal `literal` (`NOT name` for a negated one).
fn literal_name(names: &[String], literal: usize) -> String {
    let f = names.len();
    if literal < f {
        names[literal].clone()
    } else {
        format!("NOT {}", names[literal - f])
    }
}

/// The body of a clause: at most `limit` literals joined by AND, then `... and N more`.
fn clause_text(names: &[String], literals: &[usize], limit: usize) -> String {
    let shown: Vec<String> = literals
        .iter()
        .take(limit)
        .map(|&l| literal_name(names, l))
        .collect();
    let mut text = shown.join(" AND ");
    if literals.len() > limit {
        text += &format!(" ... and {} more", literals.len() - limit);
    }
    text
}

/// On how many samples of `data` a clause including `literals` fires.
fn fires(data: &Dataset, literals: &[usize]) -> u64 {
    let f = data.features();
    (0..data.len())
        .filter(|&i| {
            literals.iter().all(|&l| match l < f {
                true => data.value(i, l),
                false => !data.value(i, l - f),
            })
        })
        .count() as u64
}

/// One clause of a class, as ranked.
struct Ranked {
    index: usize,
    weight: i32,
    literals: Vec<usize>,
    votes: Option<u64>,
}

/// Runs `arena explain`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let model = SavedModel::load(&args.model)?;
    let tm = &model.machine;
    let encoder = Encoder::parse(&model.encoder)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.model.display()))?;
    let raw = tm.literal_names(&model.feature_names);
    let names: Vec<String> = raw.iter().map(|n| shown_name(&encoder, n)).collect();
    let classes: Vec<usize> = match args.class {
        Some(c) if c < tm.classes() => vec![c],
        Some(c) => anyhow::bail!("--class {c}: the model has classes 0..{}", tm.classes() - 1),
        None => (0..tm.classes()).collect(),
    };
    let kind = match tm {
        Machine::PerClass(_) => "per-class".to_string(),
        Machine::Coalesced(tm) => format!("coalesced ({} update)", tm.params().coalesced_update),
        Machine::Conv(conv) => {
            let g = conv.grid();
            format!(
                "convolutional over {}x{} windows of a {}x{}x{} board",
                g.window, g.window, g.width, g.height, g.planes
            )
        }
    };
    let pool = match tm {
        Machine::Coalesced(_) => "shared by all classes",
        Machine::PerClass(_) | Machine::Conv(_) => "per class",
    };
    println!(
        "model: {kind}, {} features ({} encoder), {} classes, {} clauses {pool}",
        tm.features(),
        model.encoder,
        tm.classes(),
        tm.params().clauses
    );
    let data = match (&args.data, tm) {
        (None, _) => None,
        (Some(path), Machine::Conv(_)) => {
            println!(
                "note: {} is not used: a convolutional clause matches board patches, not the whole input",
                path.display()
            );
            None
        }
        (Some(path), _) => {
            let data = read_dataset(path, &encoder)?;
            anyhow::ensure!(
                data.features() == tm.features(),
                "{}: {} features, the model has {}",
                path.display(),
                data.features(),
                tm.features()
            );
            Some((path, data))
        }
    };
    let weighted = classes
        .iter()
        .any(|&c| (0..tm.params().clauses).any(|j| tm.weight(c, j).abs() > 1));
    let measure = match (&data, weighted) {
        (Some((path, d)), _) => format!(
            "ranked by votes cast on {} ({} samples): samples on which the clause fires x |weight|",
            path.display(),
            d.len()
        ),
        (None, true) => "ranked by |weight| (give --data FILE to rank by votes cast)".to_string(),
        (None, false) => "ranked by |weight|, all 1 in this unweighted model, so shorter clauses first (give --data FILE to rank by votes cast)".to_string(),
    };
    println!("{measure}");
    for class in classes {
        let mut clauses: Vec<Ranked> = (0..tm.params().clauses)
            .into_par_iter()
            .filter_map(|j| {
                let literals = tm.clause_literals(class, j);
                if literals.is_empty() {
                    return None;
                }
                let weight = tm.weight(class, j);
                let votes = data
                    .as_ref()
                    .map(|(_, d)| fires(d, &literals) * u64::from(weight.unsigned_abs()));
                Some(Ranked {
                    index: j,
                    weight,
                    literals,
                    votes,
                })
            })
            .collect();
        clauses.sort_by(|a, b| {
            (b.votes, b.weight.unsigned_abs())
                .cmp(&(a.votes, a.weight.unsigned_abs()))
                .then(a.literals.len().cmp(&b.literals.len()))
                .then(a.index.cmp(&b.index))
        });
        println!(
            "\n{}: {} non-empty clauses",
            class_name(&encoder, tm.classes(), class),
            clauses.len()
        );
        for c in clauses.iter().take(args.top) {
            let sign = match c.weight.signum() {
                1 => '+',
                -1 => '-',
                _ => '0',
            };
            let votes = c.votes.map_or(String::new(), |v| format!("  votes {v:>7}"));
            println!(
                "{sign} weight {:>4}{votes}  Clause {}: {}",
                c.weight.unsigned_abs(),
                c.index,
                clause_text(&names, &c.literals, args.literals)
            );
        }
        // Clauses with weight 0 vote neither way.
        let mut counts = vec![[0u32; 2]; 2 * names.len()];
        for c in clauses.iter().filter(|c| c.weight != 0) {
            let side = (c.weight < 0) as usize;
            for &l in &c.literals {
                counts[l][side] += 1;
            }
        }
        let mut ranked: Vec<usize> = (0..counts.len()).filter(|&l| counts[l] != [0, 0]).collect();
        ranked.sort_by_key(|&l| std::cmp::Reverse(counts[l][0] + counts[l][1]));
        println!("most included literals (in clauses for / against class {class}):");
        for &l in ranked.iter().take(args.top) {
            println!(
                "  {:<24} {:>5} / {:<5}",
                literal_name(&names, l),
                counts[l][0],
                counts[l][1]
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_features_get_cell_names() {
        let named = |e: &str, n: &str| shown_name(&Encoder::parse(e).unwrap(), n);
        assert_eq!(named("hex-connection", "CR_2_2_4_6"), "CR_c3_e7");
        assert_eq!(named("hex-connection:edges=on", "B_0_0"), "B_a1");
        assert_eq!(named("checkers-planes", "BM_5"), "BM_5");
        assert_eq!(named("csv", "f_1_2"), "f_1_2");
    }

    #[test]
    fn long_clauses_are_cut_and_counted() {
        let names: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        let literals: Vec<usize> = (0..12).chain([25]).collect();
        assert_eq!(
            clause_text(&names, &literals, 2),
            "f0 AND f1 ... and 11 more"
        );
        assert_eq!(clause_text(&names, &[1, 25], 8), "f1 AND NOT f5");
    }
}
