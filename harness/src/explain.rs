//! `arena explain MODEL`: a trained model's clauses as readable rules, in seed 000's style
//! (`Clause 585: CR_3_0_5_5 AND NOT CB_4_0_1_6`), with polarity and weight, heaviest first,
//! and the literals the clauses include most often. Convolutional clauses are written over
//! the patch features (window cells `p{plane}_{dx}_{dy}` and position bits `x>k`, `y>k`).
//! A coalesced machine's clauses are the whole shared pool for every class, ranked by the
//! size of their weight for that class; the weight's sign is the polarity.

use std::path::PathBuf;
use tmbot::tm::persist::{Machine, SavedModel};

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

/// Runs `arena explain`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let model = SavedModel::load(&args.model)?;
    let tm = &model.machine;
    let names = tm.literal_names(&model.feature_names);
    let classes: Vec<usize> = match args.class {
        Some(c) if c < tm.classes() => vec![c],
        Some(c) => anyhow::bail!("--class {c}: the model has classes 0..{}", tm.classes() - 1),
        None => (0..tm.classes()).collect(),
    };
    let kind = match tm {
        Machine::PerClass(_) => "per-class".to_string(),
        Machine::Coalesced(_) => "coalesced".to_string(),
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
    for class in classes {
        let mut clauses: Vec<(usize, i32, Vec<usize>)> = (0..tm.params().clauses)
            .map(|j| (j, tm.weight(class, j), tm.clause_literals(class, j)))
            .filter(|(_, _, lits)| !lits.is_empty())
            .collect();
        clauses.sort_by(|a, b| b.1.abs().cmp(&a.1.abs()).then(a.0.cmp(&b.0)));
        println!("\nclass {class}: {} non-empty clauses", clauses.len());
        for (j, weight, literals) in clauses.iter().take(args.top) {
            let sign = match weight.signum() {
                1 => '+',
                -1 => '-',
                _ => '0',
            };
            let body: Vec<String> = literals.iter().map(|&l| literal_name(&names, l)).collect();
            println!(
                "{sign} weight {:>4}  Clause {j}: {}",
                weight.unsigned_abs(),
                body.join(" AND ")
            );
        }
        // Clauses with weight 0 vote neither way.
        let mut counts = vec![[0u32; 2]; 2 * names.len()];
        for (_, weight, literals) in clauses.iter().filter(|c| c.1 != 0) {
            let side = (*weight < 0) as usize;
            for &l in literals {
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
