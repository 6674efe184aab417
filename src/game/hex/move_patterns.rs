//! Move patterns: how likely a strong player is to play each empty cell of a Hex position,
//! from a few local features whose weights are learned from games. A conditional logit
//! model, as in move-pattern ratings for Go: the chance of a cell is proportional to the
//! exponential of the sum of its features' weights.
//!
//! Every feature is read from the side to move's point of view (White's positions through
//! the reflection (x, y) -> (y, x), which makes White's edges Black's), and each has one
//! weight:
//! - `ring`: the six sides around the cell (empty, the mover's, the opponent's, a corner;
//!   an edge counts as its colour), up to the 180-degree rotation;
//! - `last`: where the opponent's last move lies: nowhere (or farther than the rest), next
//!   to the cell, a bridge away, or two cells away in a line;
//! - `own`: the same for the mover's previous move;
//! - `edge`: the distance to the mover's nearer edge and to the opponent's nearer edge
//!   (0 to 4, 4 meaning 4 or more), as one feature of 25 values;
//! - `bridges-own` / `bridges-opp`: how many of the mover's (the opponent's) stones are a
//!   bridge away from the cell with both carrier cells empty (0 to 3, 3 meaning 3 or more).

use super::ring::{side, sides, Side, CYCLE};
use super::state::{Hex, HexMove};
use crate::game::{Color, Game};
use std::sync::OnceLock;

/// The blocks of the weight vector: name, first index, size.
const BLOCKS: [(&str, usize, usize); 6] = [
    ("ring", RING, 4096),
    ("last", LAST, 4),
    ("own", OWN, 4),
    ("edge", EDGE, 25),
    ("bridges-own", BRIDGES_OWN, 4),
    ("bridges-opp", BRIDGES_OPP, 4),
];
const RING: usize = 0;
const LAST: usize = 4096;
const OWN: usize = LAST + 4;
const EDGE: usize = OWN + 4;
const BRIDGES_OWN: usize = EDGE + 25;
const BRIDGES_OPP: usize = BRIDGES_OWN + 4;
/// Weights of a model.
pub const WEIGHT_COUNT: usize = BRIDGES_OPP + 4;
/// Features of one cell (one per block).
pub const FEATURES: usize = BLOCKS.len();

/// The first line of a weights file.
pub const WEIGHTS_HEADER: &str = "# tmbot hex move patterns, version 1";

/// The built-in weights, fitted to MoHex 2.0's moves (the file says how).
const BUILT_IN: &str = include_str!("move_patterns.weights");

/// The weights of the features' values.
#[derive(Clone, Debug, PartialEq)]
pub struct MovePatterns {
    weights: Vec<f64>,
}

/// The feature indices of every candidate cell of one position, and which one was played.
#[derive(Clone, Debug)]
pub struct Example {
    candidates: Vec<[u16; FEATURES]>,
    chosen: usize,
}

/// How [`MovePatterns::fit`] learns.
#[derive(Clone, Copy, Debug)]
pub struct FitOptions {
    /// Full-batch gradient steps.
    pub steps: usize,
    /// Step size of the Adam updates.
    pub rate: f64,
    /// Weight of the L2 penalty per example.
    pub l2: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            steps: 400,
            rate: 0.05,
            l2: 1e-4,
        }
    }
}

/// How well a model predicts a set of examples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Mean log-probability of the moves played.
    pub log_likelihood: f64,
    /// Share of examples whose played move has the highest score.
    pub top1: f64,
    /// Mean log-probability under a uniform choice among the candidates.
    pub uniform_log_likelihood: f64,
}

/// 0 nowhere or far, 1 next to `cell`, 2 a bridge away, 3 two cells away in a line.
fn relation(game: &Hex, cell: usize, other: Option<(Color, HexMove)>) -> usize {
    let Some((_, HexMove::Cell(other))) = other else {
        return 0;
    };
    let (x, y) = game.xy(cell);
    let (ox, oy) = game.xy(usize::from(other));
    let d = (ox as i32 - x as i32, oy as i32 - y as i32);
    if d.0.abs() > 2 || d.1.abs() > 2 {
        return 0;
    }
    for k in 0..6 {
        let (a, b) = (CYCLE[k], CYCLE[(k + 1) % 6]);
        if d == a {
            return 1;
        }
        if d == (a.0 + b.0, a.1 + b.1) {
            return 2;
        }
        if d == (2 * a.0, 2 * a.1) {
            return 3;
        }
    }
    0
}

/// The ring feature of a cell with sides `around` for `mover`: each side as empty, the
/// mover's, the opponent's or a corner, read in reverse for White (the reflection that
/// shows White's position as Black's), the same under the half turn.
fn ring_index(around: &[Side; 6], mover: Color) -> u16 {
    let code = |s: Side| match s {
        Side::Empty => 0u16,
        Side::Owned(c) if c == mover => 1,
        Side::Owned(_) => 2,
        Side::Corner => 3,
    };
    let mut ring = 0u16;
    for k in 0..6 {
        let real = if mover == Color::Black { k } else { 5 - k };
        ring |= code(around[real]) << (2 * k);
    }
    let rotated = (ring >> 6) | ((ring & 63) << 6);
    ring.min(rotated)
}

/// The features of the empty `cell` for the side to move.
pub fn features(game: &Hex, cell: usize) -> [u16; FEATURES] {
    let mover = game.side_to_move();
    let black = mover == Color::Black;
    let (x, y) = game.xy(cell);
    let (xi, yi) = (x as i32, y as i32);
    let around = sides(game, cell);
    let ring = ring_index(&around, mover);
    let last = relation(game, cell, game.nth_last_move(0));
    let own = relation(game, cell, game.nth_last_move(1));
    let rows = y.min(game.height() - 1 - y).min(4);
    let cols = x.min(game.width() - 1 - x).min(4);
    let (to_own, to_opp) = if black { (rows, cols) } else { (cols, rows) };
    let mut bridges = [0usize; 2];
    for k in 0..6 {
        // The carriers are the sides k and k + 1; the far cell must be on the board.
        if around[k] != Side::Empty || around[(k + 1) % 6] != Side::Empty {
            continue;
        }
        let (a, b) = (CYCLE[k], CYCLE[(k + 1) % 6]);
        let (fx, fy) = (xi + a.0 + b.0, yi + a.1 + b.1);
        let on_board = fx >= 0 && fy >= 0 && fx < game.width() as i32 && fy < game.height() as i32;
        if let (true, Side::Owned(c)) = (on_board, side(game, fx, fy)) {
            bridges[usize::from(c != mover)] += 1;
        }
    }
    [
        (RING + usize::from(ring)) as u16,
        (LAST + last) as u16,
        (OWN + own) as u16,
        (EDGE + 5 * to_own + to_opp) as u16,
        (BRIDGES_OWN + bridges[0].min(3)) as u16,
        (BRIDGES_OPP + bridges[1].min(3)) as u16,
    ]
}

impl Example {
    /// The example of `game` with `chosen` played; `None` unless `chosen` is an empty cell
    /// and another cell is empty too (a forced move teaches nothing).
    pub fn new(game: &Hex, chosen: usize) -> Option<Example> {
        if chosen >= game.cell_count() || game.stone(chosen).is_some() {
            return None;
        }
        let cells: Vec<usize> = (0..game.cell_count())
            .filter(|&c| game.stone(c).is_none())
            .collect();
        (cells.len() > 1).then(|| Example {
            chosen: cells
                .iter()
                .position(|&c| c == chosen)
                .expect("chosen is empty"),
            candidates: cells.iter().map(|&c| features(game, c)).collect(),
        })
    }
}

impl MovePatterns {
    /// All weights 0: every cell equally likely.
    pub fn uniform() -> MovePatterns {
        MovePatterns {
            weights: vec![0.0; WEIGHT_COUNT],
        }
    }

    /// The built-in model (parsed once).
    pub fn built_in() -> &'static MovePatterns {
        static MODEL: OnceLock<MovePatterns> = OnceLock::new();
        MODEL.get_or_init(|| {
            MovePatterns::parse(BUILT_IN).expect("the built-in move patterns are well formed")
        })
    }

    fn score(&self, features: &[u16; FEATURES]) -> f64 {
        features.iter().map(|&f| self.weights[usize::from(f)]).sum()
    }

    /// The chance of each of `cells` (empty cells of `game`) among them, into `out`.
    pub fn probabilities(&self, game: &Hex, cells: &[usize], out: &mut Vec<f64>) {
        out.clear();
        out.extend(cells.iter().map(|&c| self.score(&features(game, c))));
        softmax(out);
    }

    /// The weight, relative to an open cell far from the last move, of an empty cell next
    /// to the opponent's last move whose six sides are `around`, for `mover`: the
    /// exponential of the model's ring and "next to the last move" weights.
    pub fn local_weight(&self, around: &[Side; 6], mover: Color) -> f64 {
        let ring = usize::from(ring_index(around, mover));
        let open = self.weights[RING] + self.weights[LAST];
        (self.weights[RING + ring] + self.weights[LAST + 1] - open).exp()
    }

    /// Reads a weights file: the header line, then `BLOCK INDEX WEIGHT` lines (blocks
    /// `ring`, `last`, `own`, `edge`, `bridges-own`, `bridges-opp`); `#` starts a comment;
    /// weights not given are 0. Errors name the line and what is wrong.
    pub fn parse(text: &str) -> Result<MovePatterns, String> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, first)) if first.trim() == WEIGHTS_HEADER => {}
            _ => return Err(format!("line 1: expected '{WEIGHTS_HEADER}'")),
        }
        let mut model = MovePatterns::uniform();
        for (n, line) in lines {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = n + 1;
            let [block, index, weight] = line.split_whitespace().collect::<Vec<_>>()[..] else {
                return Err(format!(
                    "line {at}: expected BLOCK INDEX WEIGHT, got '{line}'"
                ));
            };
            let (_, first, size) = BLOCKS
                .iter()
                .find(|(name, _, _)| *name == block)
                .ok_or_else(|| format!("line {at}: unknown block '{block}'"))?;
            let index: usize = index
                .parse()
                .ok()
                .filter(|&i| i < *size)
                .ok_or_else(|| format!("line {at}: index '{index}' is not below {size}"))?;
            let weight: f64 = weight
                .parse()
                .ok()
                .filter(|w: &f64| w.is_finite())
                .ok_or_else(|| format!("line {at}: weight '{weight}' is not a finite number"))?;
            model.weights[first + index] = weight;
        }
        Ok(model)
    }

    /// The weights file ([`MovePatterns::parse`] reads it back exactly); `comment` lines
    /// follow the header, each starting with `# `.
    pub fn to_text(&self, comment: &str) -> String {
        let mut text = format!("{WEIGHTS_HEADER}\n");
        for line in comment.lines() {
            text += &format!("# {line}\n");
        }
        for (name, first, size) in BLOCKS {
            for index in 0..size {
                let w = self.weights[first + index];
                if w != 0.0 {
                    text += &format!("{name} {index} {w:?}\n");
                }
            }
        }
        text
    }

    /// How well the model predicts `examples`.
    pub fn assess(&self, examples: &[Example]) -> Fit {
        let mut fit = Fit {
            log_likelihood: 0.0,
            top1: 0.0,
            uniform_log_likelihood: 0.0,
        };
        let mut scores = Vec::new();
        for e in examples {
            scores.clear();
            scores.extend(e.candidates.iter().map(|f| self.score(f)));
            let best = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            if scores[e.chosen] == best && scores.iter().filter(|&&s| s == best).count() == 1 {
                fit.top1 += 1.0;
            }
            softmax(&mut scores);
            fit.log_likelihood += scores[e.chosen].max(1e-300).ln();
            fit.uniform_log_likelihood -= (e.candidates.len() as f64).ln();
        }
        let n = examples.len().max(1) as f64;
        fit.log_likelihood /= n;
        fit.top1 /= n;
        fit.uniform_log_likelihood /= n;
        fit
    }

    /// Maximum likelihood weights for `examples` (full-batch Adam from all zeros, with an L2
    /// penalty): deterministic.
    pub fn fit(examples: &[Example], options: FitOptions) -> MovePatterns {
        let mut model = MovePatterns::uniform();
        let (mut m, mut v) = (vec![0.0; WEIGHT_COUNT], vec![0.0; WEIGHT_COUNT]);
        let (beta1, beta2) = (0.9f64, 0.999f64);
        let n = examples.len().max(1) as f64;
        let mut scores = Vec::new();
        for step in 1..=options.steps {
            // The gradient of the mean log-likelihood minus the penalty.
            let mut grad: Vec<f64> = model.weights.iter().map(|w| -options.l2 * w).collect();
            for e in examples {
                scores.clear();
                scores.extend(e.candidates.iter().map(|f| model.score(f)));
                softmax(&mut scores);
                for (k, features) in e.candidates.iter().enumerate() {
                    let target = if k == e.chosen { 1.0 } else { 0.0 };
                    for &f in features {
                        grad[usize::from(f)] += (target - scores[k]) / n;
                    }
                }
            }
            let (c1, c2) = (1.0 - beta1.powi(step as i32), 1.0 - beta2.powi(step as i32));
            for i in 0..WEIGHT_COUNT {
                m[i] = beta1 * m[i] + (1.0 - beta1) * grad[i];
                v[i] = beta2 * v[i] + (1.0 - beta2) * grad[i] * grad[i];
                model.weights[i] += options.rate * (m[i] / c1) / ((v[i] / c2).sqrt() + 1e-8);
            }
        }
        // A feature value no example has keeps weight 0: its gradient is the penalty's, 0 at 0.
        model
    }
}

/// Turns scores into probabilities in place.
fn softmax(scores: &mut [f64]) {
    let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for s in scores.iter_mut() {
        *s = (*s - top).exp();
        sum += *s;
    }
    for s in scores.iter_mut() {
        *s /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hex::played as game;

    /// `g`'s stones moved by `map` (a symmetry of the board), colours changed when `swap`,
    /// with `to_move` to move (the record is not kept).
    fn mapped(g: &Hex, map: impl Fn(usize, usize) -> (usize, usize), swap: bool) -> Hex {
        let mut stones = vec![None; g.cell_count()];
        for cell in 0..g.cell_count() {
            let (x, y) = g.xy(cell);
            let (mx, my) = map(x, y);
            stones[g.cell(mx, my)] = g.stone(cell).map(|c| if swap { c.opponent() } else { c });
        }
        let mut out = Hex::new(g.width(), g.height()).unwrap();
        out.set_stones(&stones);
        let mover = g.side_to_move();
        out.set_side_to_move(if swap { mover.opponent() } else { mover });
        out
    }

    #[test]
    fn features_see_both_colours_alike_and_ignore_the_half_turn() {
        let g = game(7, &["d4", "c5", "e3", "b6", "f1", "g2", "a7", "c2"]);
        let n = g.width();
        let plain = mapped(&g, |x, y| (x, y), false);
        let reflected = mapped(&g, |x, y| (y, x), true);
        let turned = mapped(&g, |x, y| (n - 1 - x, n - 1 - y), false);
        assert_eq!(reflected.side_to_move(), Color::White);
        for cell in (0..g.cell_count()).filter(|&c| g.stone(c).is_none()) {
            let (x, y) = g.xy(cell);
            let f = features(&plain, cell);
            assert_eq!(
                f,
                features(&reflected, g.cell(y, x)),
                "{}",
                g.cell_name(cell)
            );
            assert_eq!(f, features(&turned, g.cell(n - 1 - x, n - 1 - y)));
        }
    }

    #[test]
    fn features_name_the_ring_the_last_moves_and_the_bridges() {
        // Black d4, White e3, Black to move. c3 is a bridge away from d4 (carriers d3 and
        // c4, both empty) and two cells left of e3 in a line.
        let g = game(7, &["d4", "e3"]);
        let c3 = g.parse_cell("c3").unwrap();
        let f = features(&g, c3);
        assert_eq!(
            usize::from(f[1]),
            LAST + 3,
            "e3 is two cells from c3 in a line"
        );
        assert_eq!(usize::from(f[2]), OWN + 2, "d4 is a bridge away from c3");
        assert_eq!(usize::from(f[4]), BRIDGES_OWN + 1);
        assert_eq!(usize::from(f[5]), BRIDGES_OPP);
        // e4 touches both stones.
        let e4 = g.parse_cell("e4").unwrap();
        let f = features(&g, e4);
        assert_eq!(usize::from(f[1]), LAST + 1);
        assert_eq!(usize::from(f[2]), OWN + 1);
        // a1 (Black to move): two sides are Black's edge, two White's edge, and the others
        // empty; the distances to both edges are 0.
        let a1 = features(&game(7, &[]), 0);
        assert_eq!(usize::from(a1[3]), EDGE);
        let ring = a1[0] as usize - RING;
        let sides: Vec<usize> = (0..6).map(|k| (ring >> (2 * k)) & 3).collect();
        assert_eq!(sides.iter().filter(|&&s| s == 1).count(), 2);
        assert_eq!(sides.iter().filter(|&&s| s == 2).count(), 2);
    }

    #[test]
    fn weights_files_round_trip_and_bad_lines_are_named() {
        let mut model = MovePatterns::uniform();
        model.weights[RING + 17] = 0.25;
        model.weights[EDGE + 24] = -1.5;
        let text = model.to_text("a test\nof two lines");
        assert_eq!(MovePatterns::parse(&text), Ok(model));
        assert!(MovePatterns::built_in().weights.iter().any(|&w| w != 0.0));
        for (bad, what) in [
            ("nonsense", "line 1"),
            ("ring 1 0.5", "line 1"),
            (
                "# tmbot hex move patterns, version 1\nring 4096 1",
                "line 2: index",
            ),
            (
                "# tmbot hex move patterns, version 1\n\nlast 1 x",
                "line 3: weight",
            ),
            (
                "# tmbot hex move patterns, version 1\nlast 1",
                "line 2: expected",
            ),
            (
                "# tmbot hex move patterns, version 1\nrings 1 1",
                "unknown block",
            ),
        ] {
            let err = MovePatterns::parse(bad).unwrap_err();
            assert!(err.contains(what), "{bad:?}: {err}");
        }
    }

    #[test]
    fn fitting_learns_a_preference_the_examples_show() {
        // Positions where the mover always answers next to the opponent's last move: the
        // fitted model ranks the answer first far more often than chance.
        let mut rng = crate::rng::seeded(3);
        let mut examples = Vec::new();
        use rand::Rng as _;
        for _ in 0..200 {
            let mut g = Hex::new(7, 7).unwrap();
            let cell = rng.random_range(0..49);
            g.play(HexMove::Cell(cell as u16));
            let (x, y) = g.xy(cell);
            let answer = if x > 0 {
                g.cell(x - 1, y)
            } else {
                g.cell(x + 1, y)
            };
            examples.extend(Example::new(&g, answer));
        }
        let model = MovePatterns::fit(&examples, FitOptions::default());
        let fit = model.assess(&examples);
        let before = MovePatterns::uniform().assess(&examples);
        assert!(fit.log_likelihood > before.log_likelihood + 1.0, "{fit:?}");
        assert!((before.log_likelihood - before.uniform_log_likelihood).abs() < 1e-9);
        let mut probabilities = Vec::new();
        let g = game(7, &["d4"]);
        let cells: Vec<usize> = (0..49).filter(|&c| g.stone(c).is_none()).collect();
        model.probabilities(&g, &cells, &mut probabilities);
        assert!((probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let c4 = cells
            .iter()
            .position(|&c| c == g.parse_cell("c4").unwrap())
            .unwrap();
        let far = cells
            .iter()
            .position(|&c| c == g.parse_cell("a7").unwrap())
            .unwrap();
        assert!(probabilities[c4] > 5.0 * probabilities[far]);
    }
}
