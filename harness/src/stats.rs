//! Match statistics as fastchess, cutechess and fishtest compute them: scores with their 95%
//! intervals, Elo, normalised Elo (nElo), likelihood of superiority, the GSPRT log-likelihood
//! ratio for the trinomial (per game) and pentanomial (per colour-reversed pair) models, and
//! Bradley-Terry ratings of a whole round robin.
//!
//! Scores are always per game and from the first player's point of view: 1 a win, 1/2 a draw,
//! 0 a loss.

use serde::{Deserialize, Serialize};

/// The 97.5% quantile of the standard normal distribution (the z of a two-sided 95% interval),
/// to the precision fastchess uses.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Elo per unit of natural log-odds: 400 / ln 10.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Normalised Elo per standard deviation of the score: 800 / ln 10.
const NELO_PER_SD: f64 = 800.0 / std::f64::consts::LN_10;

/// Counts of zero are replaced by this in the SPRT log-likelihood ratio (as fishtest does).
const SPRT_EPSILON: f64 = 1e-3;

/// Fewer trials (games for the trinomial model, pairs for the pentanomial one) than this and
/// the score interval is Wilson's rather than the normal approximation.
const MIN_NORMAL_TRIALS: u64 = 10;

/// The Elo difference of a per-game score `score` in 0..1: -400 log10(1/s - 1).
///
/// Infinite at 0 and 1 (negative and positive), NaN outside 0..1.
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected per-game score of a player `elo` points stronger: 1 / (1 + 10^(-elo/400)).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Win, draw and loss counts of one player (the trinomial model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored: a win 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Counts one game scored `score` (1 a win, 1/2 a draw, 0 a loss; a score is read as the
    /// nearest of the three).
    pub fn add(&mut self, score: f64) {
        match outcome_index(score) {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    /// The counts of `self` and `other` together.
    pub fn merged(&self, other: &Wdl) -> Wdl {
        Wdl {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
        }
    }
}

/// Counts of colour-reversed game pairs by the pair's score (the pentanomial model): the five
/// pair scores 0, 1/4, 1/2, 3/4 and 1 (mean of the two games).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Penta {
    /// Pairs lost twice (pair score 0).
    pub ll: u64,
    /// Pairs with a loss and a draw (pair score 1/4).
    pub ld: u64,
    /// Pairs with a win and a loss, or two draws (pair score 1/2).
    pub wl_dd: u64,
    /// Pairs with a win and a draw (pair score 3/4).
    pub wd: u64,
    /// Pairs won twice (pair score 1).
    pub ww: u64,
}

impl Penta {
    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.ll + self.ld + self.wl_dd + self.wd + self.ww
    }

    /// Counts one pair: `score_a` and `score_b` are the same player's scores (1, 1/2 or 0, each
    /// read as the nearest of the three) in the two games of a colour-swapped pair.
    pub fn add_pair(&mut self, score_a: f64, score_b: f64) {
        match outcome_index(score_a) + outcome_index(score_b) {
            0 => self.ll += 1,
            1 => self.ld += 1,
            2 => self.wl_dd += 1,
            3 => self.wd += 1,
            _ => self.ww += 1,
        }
    }

    fn counts(&self) -> [u64; 5] {
        [self.ll, self.ld, self.wl_dd, self.wd, self.ww]
    }
}

/// A game score as 0 (loss), 1 (draw) or 2 (win), whichever is nearest.
fn outcome_index(score: f64) -> usize {
    if score > 0.75 {
        2
    } else if score > 0.25 {
        1
    } else {
        0
    }
}

/// Outcome scores of the trinomial model, in the order loss, draw, win.
const TRINOMIAL_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// Outcome scores of the pentanomial model (pair means), in the order of [`Penta`]'s fields.
const PENTANOMIAL_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// A match result's score, Elo and related figures, with 95% intervals.
///
/// The score interval is the normal one, score +- 1.96 sigma, as fastchess prints it, unless
/// that approximation is meaningless: fewer than 10 trials (games, or pairs for the
/// pentanomial model), a variance of zero (a perfect or zero score, or only draws), or an
/// interval reaching 0 or 1. Then it is the Wilson score interval (see [`wilson`]), so that
/// 4 wins in 4 games gives 0.51..1 rather than 1..1.
///
/// With the normal interval the Elo interval is fastchess's symmetric one,
/// elo(s) +- [elo(high) - elo(low)] / 2. With the Wilson interval it is the Elo of the
/// interval's ends, and an end at a score of 0 or 1 is `None` (unbounded). `elo` itself is
/// `None` only when the score is exactly 0 or 1 (or there are no games): a perfect score
/// still gets a finite `elo_low`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Number of games.
    pub n: u64,
    /// Mean score per game (1/2 when there are no games).
    pub score: f64,
    /// Lower end of the 95% interval of the score.
    pub score_low: f64,
    /// Upper end of the 95% interval of the score.
    pub score_high: f64,
    /// Elo difference of the score; `None` for a score of exactly 0 or 1, or no games.
    pub elo: Option<f64>,
    /// Lower end of the 95% Elo interval; `None` when unbounded below.
    pub elo_low: Option<f64>,
    /// Upper end of the 95% Elo interval; `None` when unbounded above.
    pub elo_high: Option<f64>,
    /// Normalised Elo, (s - 1/2) / sd * 800 / ln 10 with sd the per-game standard deviation
    /// (for pentanomial counts sqrt(2 var) of the pair variance, as fastchess); `None` when the
    /// variance is zero.
    pub nelo: Option<f64>,
    /// Likelihood of superiority (see [`los`]); `None` when the variance is zero.
    pub los: Option<f64>,
    /// Variance of the mean score: the per-trial variance divided by the number of trials
    /// (games for the trinomial model, pairs for the pentanomial one).
    pub variance: f64,
}

impl Estimate {
    /// The Elo of the score with its 95% interval as text; open ends where the interval
    /// reaches a score of 0 or 1 (`Elo +12.3 [-4.1, +28.6]`, `Elo [+7.0, +inf]`).
    pub fn elo_text(&self) -> String {
        let bound = |v: Option<f64>, edge: &str| v.map_or(edge.to_string(), |v| format!("{v:+.1}"));
        let interval = format!(
            "[{}, {}]",
            bound(self.elo_low, "-inf"),
            bound(self.elo_high, "+inf")
        );
        match self.elo {
            Some(elo) => format!("Elo {elo:+.1} {interval}"),
            None => format!("Elo {interval}"),
        }
    }
}

/// The Wilson score interval of `points` successes in `n` trials at normal quantile `z`
/// (1.96 for 95%).
///
/// It stays inside 0..1 and is honest at the extremes: a score of 0 gives a lower end of
/// exactly 0 and a positive upper end, a perfect score the mirror image. With draws counted as
/// half points it is conservative (a draw has less variance than a coin toss). No trials give
/// 0..1.
pub fn wilson(points: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = (points / n).clamp(0.0, 1.0);
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let low = if p <= 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if p >= 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

/// Likelihood of superiority: the probability that the true score exceeds 1/2 given the
/// observed mean `score` with variance `variance` (of the mean), under the normal
/// approximation: 1/2 [1 + erf((s - 1/2) / sqrt(2 variance))]. A variance of zero gives 1, 0
/// or 1/2 by the side of 1/2 the score is on.
pub fn los(score: f64, variance: f64) -> f64 {
    if variance > 0.0 {
        0.5 * (1.0 + erf((score - 0.5) / (2.0 * variance).sqrt()))
    } else if score > 0.5 {
        1.0
    } else if score < 0.5 {
        0.0
    } else {
        0.5
    }
}

/// The error function, to about 1e-15: a series of positive terms below 2.5 and a continued
/// fraction for erfc above.
fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return -erf(-x);
    }
    let two_over_sqrt_pi = 2.0 / std::f64::consts::PI.sqrt();
    if x < 2.5 {
        // erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1 3 5 ... (2n+1)).
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        let mut k = 1.0;
        while term > sum * 1e-17 {
            k += 2.0;
            term *= 2.0 * x2 / k;
            sum += term;
        }
        two_over_sqrt_pi * (-x2).exp() * sum
    } else {
        // erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))).
        let mut f = x;
        for k in (1..=120).rev() {
            f = x + (k as f64 / 2.0) / f;
        }
        1.0 - 0.5 * two_over_sqrt_pi * (-x * x).exp() / f
    }
}

/// Mean and variance (per trial) of outcome scores `scores` observed `counts` times.
fn moments(scores: &[f64], counts: &[f64]) -> (f64, f64) {
    let n: f64 = counts.iter().sum();
    let mean = scores.iter().zip(counts).map(|(a, c)| a * c).sum::<f64>() / n;
    let variance = scores
        .iter()
        .zip(counts)
        .map(|(a, c)| c * (a - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean, variance)
}

/// The [`Estimate`] of outcomes `scores` observed `counts` times, each trial being
/// `games_per_trial` games.
fn estimate(scores: &[f64], counts: &[u64], games_per_trial: u64) -> Estimate {
    let trials: u64 = counts.iter().sum();
    let games = trials * games_per_trial;
    if trials == 0 {
        return Estimate {
            n: 0,
            score: 0.5,
            score_low: 0.0,
            score_high: 1.0,
            elo: None,
            elo_low: None,
            elo_high: None,
            nelo: None,
            los: None,
            variance: 0.0,
        };
    }
    let counts_f: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
    let (score, var_trial) = moments(scores, &counts_f);
    let variance = var_trial / trials as f64;
    let sigma = variance.sqrt();
    let (normal_low, normal_high) = (score - Z95 * sigma, score + Z95 * sigma);
    let normal =
        trials >= MIN_NORMAL_TRIALS && variance > 0.0 && normal_low > 0.0 && normal_high < 1.0;
    let finite_elo = |s: f64| (s > 0.0 && s < 1.0).then(|| elo_of_score(s));
    let elo = finite_elo(score);
    let (score_low, score_high, elo_low, elo_high) = if normal {
        let half = (elo_of_score(normal_high) - elo_of_score(normal_low)) / 2.0;
        let e = elo_of_score(score);
        (normal_low, normal_high, Some(e - half), Some(e + half))
    } else {
        let (low, high) = wilson(score * trials as f64, trials as f64, Z95);
        (low, high, finite_elo(low), finite_elo(high))
    };
    let var_game = var_trial * games_per_trial as f64;
    let (nelo, los_value) = if variance > 0.0 {
        (
            Some((score - 0.5) / var_game.sqrt() * NELO_PER_SD),
            Some(los(score, variance)),
        )
    } else {
        (None, None)
    };
    Estimate {
        n: games,
        score,
        score_low,
        score_high,
        elo,
        elo_low,
        elo_high,
        nelo,
        los: los_value,
        variance,
    }
}

/// Statistics of win/draw/loss counts, games taken as independent (the trinomial model):
/// s = (W + D/2)/N, var = w(1-s)^2 + d(1/2-s)^2 + l s^2 over frequencies, sigma^2 = var/N.
/// See [`Estimate`] for the intervals and when they are Wilson's.
pub fn trinomial(wdl: &Wdl) -> Estimate {
    estimate(&TRINOMIAL_SCORES, &[wdl.losses, wdl.draws, wdl.wins], 1)
}

/// Statistics of colour-reversed pairs (the pentanomial model): the mean and variance of the
/// pair scores 0, 1/4, 1/2, 3/4, 1 over their frequencies, sigma^2 = var/pairs. The mean is
/// the per-game score. The Wilson fallback counts pairs as the trials (the pairs are
/// independent, the two games of a pair are not). See [`Estimate`].
pub fn pentanomial(penta: &Penta) -> Estimate {
    estimate(&PENTANOMIAL_SCORES, &penta.counts(), 2)
}

/// The SPRT's lower and upper log-likelihood-ratio bounds for false-positive rate `alpha` and
/// false-negative rate `beta`: (ln(beta/(1-alpha)), ln((1-beta)/alpha)); +-2.944 at 0.05/0.05.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// How the SPRT's hypotheses elo0 and elo1 are expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EloModel {
    /// Logistic Elo: the score is 1 / (1 + 10^(-elo/400)).
    Logistic,
    /// Normalised Elo: the score is 1/2 + nelo sd ln 10 / 800, sd the per-game standard
    /// deviation of the (regularised) sample (sqrt(2 var) of the pair variance for pairs).
    Normalized,
}

/// The SPRT's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtState {
    /// Neither bound reached: play on.
    Continue,
    /// The lower bound reached: accept H0 (the change is not elo1 better).
    AcceptH0,
    /// The upper bound reached: accept H1 (the change is not only elo0 better).
    AcceptH1,
}

/// The GSPRT log-likelihood ratio of outcomes `scores` observed `counts` times (zero counts
/// replaced by 1e-3): (N/2) ln(sum p_i (a_i - s0)^2 / sum p_i (a_i - s1)^2). No trials give 0.
fn llr(
    scores: &[f64],
    counts: &[u64],
    games_per_trial: u64,
    elo0: f64,
    elo1: f64,
    model: EloModel,
) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let counts: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0 { SPRT_EPSILON } else { c as f64 })
        .collect();
    let n: f64 = counts.iter().sum();
    let (_, var_trial) = moments(scores, &counts);
    let to_score = |elo: f64| match model {
        EloModel::Logistic => score_of_elo(elo),
        EloModel::Normalized => {
            0.5 + elo * (var_trial * games_per_trial as f64).sqrt() / NELO_PER_SD
        }
    };
    let spread = |s: f64| {
        scores
            .iter()
            .zip(&counts)
            .map(|(a, c)| c / n * (a - s).powi(2))
            .sum::<f64>()
    };
    0.5 * n * (spread(to_score(elo0)) / spread(to_score(elo1))).ln()
}

/// The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0) for win/draw/loss counts,
/// N the number of games. See [`EloModel`] for the meaning of the bounds.
pub fn llr_trinomial(wdl: &Wdl, elo0: f64, elo1: f64, model: EloModel) -> f64 {
    llr(
        &TRINOMIAL_SCORES,
        &[wdl.losses, wdl.draws, wdl.wins],
        1,
        elo0,
        elo1,
        model,
    )
}

/// The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0) for pair counts, N the
/// number of pairs and the outcomes the per-game pair scores 0, 1/4, 1/2, 3/4, 1.
pub fn llr_pentanomial(penta: &Penta, elo0: f64, elo1: f64, model: EloModel) -> f64 {
    llr(&PENTANOMIAL_SCORES, &penta.counts(), 2, elo0, elo1, model)
}

/// The SPRT's verdict for log-likelihood ratio `llr` and `bounds` from [`sprt_bounds`]:
/// H1 at or above the upper bound, H0 at or below the lower one.
pub fn sprt_decide(llr: f64, bounds: (f64, f64)) -> SprtState {
    if llr >= bounds.1 {
        SprtState::AcceptH1
    } else if llr <= bounds.0 {
        SprtState::AcceptH0
    } else {
        SprtState::Continue
    }
}

/// Bradley-Terry ratings of a pool of players.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ratings {
    /// Elo of each player, the pool's mean 0.
    pub elo: Vec<f64>,
    /// Half-width of each player's 95% interval relative to the pool's mean.
    pub error95: Vec<f64>,
}

/// Bradley-Terry ratings of `players` players from all the games of a round robin (or any
/// schedule): each game is (player a, player b, score of a), a draw half a win. Games of a
/// player against itself or naming a player out of range are ignored.
///
/// Fitted by minorise-maximise, gamma_i <- W_i / sum_j n_ij / (gamma_i + gamma_j), with a
/// small prior: every player also draws one virtual game against a virtual player of rating 0,
/// so that perfect and zero scores stay finite (the pull is about a game's worth: well under
/// an Elo for hundreds of games). Elo = 400 log10 gamma, shifted to mean zero.
///
/// Error bars come from the observed Fisher information (minus the Hessian of the
/// log-likelihood, prior included) in the log-gamma scale: its inverse is projected onto
/// ratings relative to the pool's mean, C = P I^-1 P with P = 1 - 11'/n, and error95 is
/// 1.96 sqrt(C_ii) in Elo.
pub fn bradley_terry(players: usize, games: &[(usize, usize, f64)]) -> Ratings {
    let n = players;
    let mut played = vec![0.0f64; n * n];
    // Half a point from each player's virtual draw.
    let mut points = vec![0.5f64; n];
    for &(a, b, score) in games {
        if a == b || a >= n || b >= n {
            continue;
        }
        played[a * n + b] += 1.0;
        played[b * n + a] += 1.0;
        points[a] += score;
        points[b] += 1.0 - score;
    }
    let mut gamma = vec![1.0f64; n];
    for _ in 0..100_000 {
        let mut largest_step = 0.0f64;
        for i in 0..n {
            // The virtual opponent has gamma 1.
            let mut denominator = 1.0 / (gamma[i] + 1.0);
            for j in 0..n {
                let nij = played[i * n + j];
                if nij > 0.0 {
                    denominator += nij / (gamma[i] + gamma[j]);
                }
            }
            let next = points[i] / denominator;
            largest_step = largest_step.max((next / gamma[i]).ln().abs());
            gamma[i] = next;
        }
        if largest_step < 1e-13 {
            break;
        }
    }
    let theta: Vec<f64> = gamma.iter().map(|g| g.ln()).collect();
    let mean = theta.iter().sum::<f64>() / n.max(1) as f64;
    let elo = theta.iter().map(|t| (t - mean) * ELO_PER_NAT).collect();

    // Observed information in the log-gamma scale.
    let mut info = vec![0.0f64; n * n];
    for i in 0..n {
        let q = gamma[i] / (gamma[i] + 1.0);
        info[i * n + i] += q * (1.0 - q);
        for j in 0..n {
            let nij = played[i * n + j];
            if j != i && nij > 0.0 {
                let p = gamma[i] / (gamma[i] + gamma[j]);
                let w = nij * p * (1.0 - p);
                info[i * n + i] += w;
                info[i * n + j] -= w;
            }
        }
    }
    let cov = invert(&info, n);
    let row_means: Vec<f64> = (0..n)
        .map(|i| cov[i * n..(i + 1) * n].iter().sum::<f64>() / n as f64)
        .collect();
    let grand_mean = row_means.iter().sum::<f64>() / n.max(1) as f64;
    let error95 = (0..n)
        .map(|i| {
            let centred = (cov[i * n + i] - 2.0 * row_means[i] + grand_mean).max(0.0);
            Z95 * centred.sqrt() * ELO_PER_NAT
        })
        .collect();
    Ratings { elo, error95 }
}

/// The inverse of the `n` by `n` row-major matrix `m` by Gauss-Jordan elimination with partial
/// pivoting (the information matrices here are symmetric positive definite).
fn invert(m: &[f64], n: usize) -> Vec<f64> {
    let mut a = m.to_vec();
    let mut inv = vec![0.0f64; n * n];
    for i in 0..n {
        inv[i * n + i] = 1.0;
    }
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&r, &s| a[r * n + col].abs().total_cmp(&a[s * n + col].abs()))
            .unwrap_or(col);
        if pivot != col {
            for k in 0..n {
                a.swap(pivot * n + k, col * n + k);
                inv.swap(pivot * n + k, col * n + k);
            }
        }
        let d = a[col * n + col];
        for k in 0..n {
            a[col * n + k] /= d;
            inv[col * n + k] /= d;
        }
        for r in 0..n {
            if r != col {
                let f = a[r * n + col];
                if f != 0.0 {
                    for k in 0..n {
                        a[r * n + k] -= f * a[col * n + k];
                        inv[r * n + k] -= f * inv[col * n + k];
                    }
                }
            }
        }
    }
    inv
}

/// The median of `values` (the mean of the two middle ones for an even count; NaN when
/// empty).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_of_a_75_percent_score() {
        // -400 log10(1/0.75 - 1) = 400 log10 3 = 400 x 0.4771213 = 190.8485.
        assert_eq!(format!("{:.2}", elo_of_score(0.75)), "190.85");
        assert!(close(score_of_elo(elo_of_score(0.75)), 0.75, 1e-12));
        assert_eq!(elo_of_score(0.5), 0.0);
        assert!(close(elo_of_score(0.25), -elo_of_score(0.75), 1e-9));
        assert_eq!(elo_of_score(1.0), f64::INFINITY);
    }

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (2.5, 0.999_593_047_982_555),
            (-1.0, -0.842_700_792_949_714_9),
        ] {
            assert!(close(erf(x), want, 1e-14), "erf({x}) = {}", erf(x));
        }
        // erfc(3) = 2.2090496998585e-5.
        assert!(close(1.0 - erf(3.0), 2.209_049_699_858_544e-5, 1e-15));
        assert_eq!(erf(0.0), 0.0);
    }

    #[test]
    fn wdl_and_penta_counting() {
        let mut wdl = Wdl::default();
        for s in [1.0, 0.5, 0.0, 1.0] {
            wdl.add(s);
        }
        assert_eq!(
            wdl,
            Wdl {
                wins: 2,
                draws: 1,
                losses: 1
            }
        );
        assert_eq!(wdl.games(), 4);
        assert_eq!(wdl.points(), 2.5);
        assert_eq!(wdl.merged(&wdl).games(), 8);

        let mut penta = Penta::default();
        penta.add_pair(0.0, 0.0);
        penta.add_pair(0.5, 0.0);
        penta.add_pair(1.0, 0.0);
        penta.add_pair(0.5, 0.5);
        penta.add_pair(0.5, 1.0);
        penta.add_pair(1.0, 1.0);
        assert_eq!(
            penta,
            Penta {
                ll: 1,
                ld: 1,
                wl_dd: 2,
                wd: 1,
                ww: 1
            }
        );
        assert_eq!(penta.pairs(), 6);
    }

    #[test]
    fn trinomial_interval_of_60_20_20() {
        // W 60, D 20, L 20: s = (60 + 10)/100 = 0.7.
        // var = 0.6 (0.3)^2 + 0.2 (0.2)^2 + 0.2 (0.7)^2 = 0.054 + 0.008 + 0.098 = 0.16.
        // sigma = sqrt(0.16/100) = 0.04; 1.959964 x 0.04 = 0.0783986: 0.6216014 .. 0.7783986.
        // elo(0.7) = 400 log10(7/3) = 147.1907; Elo +- = [elo(0.7783986) - elo(0.6216014)]/2
        // = 66.0134. nElo = 0.2/0.4 x 347.4356 = 173.7178.
        let e = trinomial(&Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        });
        assert_eq!(e.n, 100);
        assert!(close(e.score, 0.7, 1e-12));
        assert!(close(e.variance, 0.0016, 1e-12));
        assert!(close(e.score_low, 0.621_601_4, 1e-6));
        assert!(close(e.score_high, 0.778_398_6, 1e-6));
        let elo = e.elo.unwrap();
        assert!(close(elo, 147.1907, 1e-3));
        assert!(close(e.elo_high.unwrap() - elo, 66.0134, 1e-3));
        assert!(close(elo - e.elo_low.unwrap(), 66.0134, 1e-3));
        assert!(close(e.nelo.unwrap(), 173.7178, 1e-3));
        // LOS = 1/2 [1 + erf(0.2 / sqrt(0.0032))] = 1/2 [1 + erf(3.5355)]: all but 3e-7.
        assert!(close(e.los.unwrap(), 1.0, 1e-6));
    }

    #[test]
    fn pentanomial_variance_of_a_small_sample() {
        // LL 0, LD 1, WL+DD 2, WD 3, WW 4: 10 pairs.
        // mean = (1 x 0.25 + 2 x 0.5 + 3 x 0.75 + 4 x 1)/10 = 7.5/10 = 0.75.
        // var = [1 (0.25-0.75)^2 + 2 (0.5-0.75)^2 + 3 x 0 + 4 (1-0.75)^2]/10
        //     = (0.25 + 0.125 + 0 + 0.25)/10 = 0.0625 per pair; / 10 pairs = 0.00625.
        // sigma = 0.0790569; 1.959964 x sigma = 0.1549488: 0.5950512 .. 0.9049488.
        // nElo = 0.25 / sqrt(2 x 0.0625) x 347.4356 = 245.6741.
        let p = Penta {
            ll: 0,
            ld: 1,
            wl_dd: 2,
            wd: 3,
            ww: 4,
        };
        let e = pentanomial(&p);
        assert_eq!(e.n, 20);
        assert!(close(e.score, 0.75, 1e-12));
        assert!(close(e.variance, 0.00625, 1e-12));
        assert!(close(e.score_low, 0.595_051_2, 1e-6));
        assert!(close(e.score_high, 0.904_948_8, 1e-6));
        assert!(close(e.nelo.unwrap(), 245.6741, 1e-3));
        // The pentanomial mean is the game score: the same 20 games as W/D/L.
        // Reading WL+DD as win-loss pairs: W 3 + 2 x 4 + 2 = 13, D 1 + 3 = 4, L 1 + 2 = 3.
        let games = Wdl {
            wins: 13,
            draws: 4,
            losses: 3,
        };
        assert!(close(trinomial(&games).score, e.score, 1e-12));
    }

    #[test]
    fn perfect_scores_get_a_wilson_interval() {
        // Wilson at p = 1, n = 4, z^2 = 3.8415: centre (1 + 0.4802)/1.9604 = 0.7551,
        // half 0.9998 sqrt(3.8415/64) = 0.2449: 0.5101 .. 1.
        let e = trinomial(&Wdl {
            wins: 4,
            draws: 0,
            losses: 0,
        });
        assert_eq!(e.score, 1.0);
        assert!(close(e.score_low, 0.510_109, 1e-5));
        assert_eq!(e.score_high, 1.0);
        assert_eq!(e.elo, None);
        assert_eq!(e.elo_high, None);
        // elo(0.5101) = 7.03.
        assert!(close(
            e.elo_low.unwrap(),
            elo_of_score(0.510_109_163_545_402_7),
            1e-9
        ));
        assert_eq!(e.nelo, None);
        assert_eq!(e.los, None);

        let zero = trinomial(&Wdl {
            wins: 0,
            draws: 0,
            losses: 4,
        });
        assert_eq!(zero.score_low, 0.0);
        assert!(close(zero.score_high, 1.0 - 0.510_109, 1e-5));
        assert_eq!((zero.elo, zero.elo_low), (None, None));
        assert!(zero.elo_high.unwrap() < 0.0);

        // Two pairs won twice: Wilson over 2 pairs, wider than over 4 games.
        let penta = pentanomial(&Penta {
            ww: 2,
            ..Penta::default()
        });
        assert_eq!(penta.n, 4);
        assert!(penta.score_low > 0.0 && penta.score_low < e.score_low);
        assert_eq!(penta.score_high, 1.0);

        // Only draws: zero variance, yet an interval around 1/2.
        let draws = trinomial(&Wdl {
            wins: 0,
            draws: 50,
            losses: 0,
        });
        assert!(draws.score_low < 0.5 && draws.score_high > 0.5);
        assert_eq!(draws.elo, Some(0.0));

        // Few games: Wilson even though the variance is positive.
        let few = trinomial(&Wdl {
            wins: 3,
            draws: 0,
            losses: 1,
        });
        assert!(few.score_low > 0.0 && few.score_high < 1.0);
        assert!(few.elo_low.is_some() && few.elo_high.is_some());

        let none = trinomial(&Wdl::default());
        assert_eq!(
            (none.n, none.score_low, none.score_high, none.elo),
            (0, 0.0, 1.0, None)
        );
    }

    #[test]
    fn wilson_is_symmetric_and_inside_the_unit_interval() {
        let (low, high) = wilson(2.0, 4.0, Z95);
        assert!(close(low + high, 1.0, 1e-12));
        assert!(close(low, 0.150_039, 1e-5));
        assert_eq!(wilson(0.0, 0.0, Z95), (0.0, 1.0));
    }

    #[test]
    fn los_is_one_half_at_an_even_score() {
        assert_eq!(los(0.5, 0.01), 0.5);
        // (0.6 - 0.5)/sqrt(2 x 0.0025) = 1.41421: erf = 0.9544997, LOS = 0.9772499 (Phi(2)).
        assert!(close(los(0.6, 0.0025), 0.977_249_868, 1e-8));
        assert!(close(los(0.4, 0.0025), 1.0 - 0.977_249_868, 1e-8));
    }

    #[test]
    fn sprt_bounds_at_five_percent() {
        let (lower, upper) = sprt_bounds(0.05, 0.05);
        assert_eq!(format!("{lower:.3}"), "-2.944");
        assert_eq!(format!("{upper:.3}"), "2.944");
        assert_eq!(sprt_decide(3.0, (lower, upper)), SprtState::AcceptH1);
        assert_eq!(sprt_decide(-3.0, (lower, upper)), SprtState::AcceptH0);
        assert_eq!(sprt_decide(0.0, (lower, upper)), SprtState::Continue);
    }

    #[test]
    fn llr_signs_follow_lopsided_data() {
        let strong = Wdl {
            wins: 300,
            draws: 100,
            losses: 100,
        };
        let weak = Wdl {
            wins: 100,
            draws: 100,
            losses: 300,
        };
        for model in [EloModel::Logistic, EloModel::Normalized] {
            assert!(llr_trinomial(&strong, 0.0, 10.0, model) > 2.944);
            assert!(llr_trinomial(&weak, 0.0, 10.0, model) < -2.944);
        }
        let strong = Penta {
            ll: 10,
            ld: 20,
            wl_dd: 100,
            wd: 60,
            ww: 30,
        };
        let weak = Penta {
            ll: 30,
            ld: 60,
            wl_dd: 100,
            wd: 20,
            ww: 10,
        };
        let double = |p: Penta| Penta {
            ll: 2 * p.ll,
            ld: 2 * p.ld,
            wl_dd: 2 * p.wl_dd,
            wd: 2 * p.wd,
            ww: 2 * p.ww,
        };
        let (strong, weak) = (double(strong), double(weak));
        for model in [EloModel::Logistic, EloModel::Normalized] {
            assert!(llr_pentanomial(&strong, 0.0, 10.0, model) > 2.944);
            assert!(llr_pentanomial(&weak, 0.0, 10.0, model) < -2.944);
        }
        assert_eq!(
            llr_trinomial(&Wdl::default(), 0.0, 5.0, EloModel::Logistic),
            0.0
        );
    }

    #[test]
    fn llr_trinomial_by_hand() {
        // W 60, D 20, L 20, elo0 = 0, elo1 = 10 (logistic). N = 100; frequencies 0.6, 0.2, 0.2
        // of the scores 1, 0.5, 0; mean 0.7, variance about the mean 0.16.
        // s0 = 0.5: sum p (a - s0)^2 = 0.16 + (0.7 - 0.5)^2 = 0.2.
        // s1 = 1/(1 + 10^(-0.025)) = 1/(1 + 0.9440609) = 0.5143872:
        //   sum p (a - s1)^2 = 0.16 + (0.7 - 0.5143872)^2 = 0.16 + 0.0344521 = 0.1944521.
        // LLR = 100/2 ln(0.2/0.1944521) = 50 ln 1.0285310 = 50 x 0.0281314 = 1.40657.
        let llr = llr_trinomial(
            &Wdl {
                wins: 60,
                draws: 20,
                losses: 20,
            },
            0.0,
            10.0,
            EloModel::Logistic,
        );
        assert!(close(llr, 1.40657, 1e-4), "{llr}");
    }

    #[test]
    fn llr_normalized_by_hand() {
        // The same counts, nElo bounds 0 and 10. Per-game sd = sqrt(0.16) = 0.4, so
        // s1 = 0.5 + 10 x 0.4 / 347.4356 = 0.5115129; (0.7 - 0.5115129)^2 = 0.0355274.
        // LLR = 50 ln(0.2/0.1955274) = 50 x 0.0226170 = 1.13085.
        let llr = llr_trinomial(
            &Wdl {
                wins: 60,
                draws: 20,
                losses: 20,
            },
            0.0,
            10.0,
            EloModel::Normalized,
        );
        assert!(close(llr, 1.13085, 1e-4), "{llr}");
    }

    #[test]
    fn bradley_terry_two_players_at_75_percent() {
        // 400 games, A scores 300: the difference is elo(0.75) = 190.85 up to the prior's pull.
        let mut games = Vec::new();
        for i in 0..400 {
            let score = match i % 8 {
                0..=4 => 1.0,
                5 | 6 => 0.5,
                _ => 0.0,
            };
            games.push(if i % 2 == 0 {
                (0, 1, score)
            } else {
                (1, 0, 1.0 - score)
            });
        }
        let r = bradley_terry(2, &games);
        let difference = r.elo[0] - r.elo[1];
        assert!(close(difference, 190.85, 1.0), "{difference}");
        assert!(difference < 190.85);
        assert!(close(r.elo[0] + r.elo[1], 0.0, 1e-9));
        // Var(difference) = 1/(N p(1-p)) = 1/(400 x 0.1875) = 1/75 in nats^2; each rating is
        // half the difference: 1.96 x 0.5 x sqrt(1/75) x 173.7178 = 19.657 Elo.
        for e in &r.error95 {
            assert!(close(*e, 19.657, 0.3), "{e}");
        }
    }

    #[test]
    fn bradley_terry_orders_transitive_results() {
        let mut games = Vec::new();
        for (a, b, wins_of_a) in [(0, 1, 7), (1, 2, 7), (0, 2, 9)] {
            for k in 0..10 {
                games.push((a, b, if k < wins_of_a { 1.0 } else { 0.0 }));
            }
        }
        let r = bradley_terry(3, &games);
        assert!(r.elo[0] > r.elo[1] && r.elo[1] > r.elo[2], "{:?}", r.elo);
        assert!(close(r.elo.iter().sum::<f64>(), 0.0, 1e-9));
    }

    #[test]
    fn bradley_terry_symmetric_results_are_all_zero() {
        let mut games = Vec::new();
        for a in 0..4 {
            for b in 0..4 {
                if a != b {
                    games.extend([(a, b, 1.0), (a, b, 0.0), (a, b, 0.5)]);
                }
            }
        }
        let r = bradley_terry(4, &games);
        for e in &r.elo {
            assert!(close(*e, 0.0, 1e-9));
        }
        let first = r.error95[0];
        assert!(first > 0.0 && r.error95.iter().all(|e| close(*e, first, 1e-9)));
    }

    #[test]
    fn bradley_terry_error_bars_halve_with_four_times_the_games() {
        let round = [
            (0, 1, 1.0),
            (0, 1, 0.5),
            (1, 2, 1.0),
            (1, 2, 0.0),
            (0, 2, 1.0),
            (2, 0, 0.5),
        ];
        let few: Vec<_> = round
            .iter()
            .cycle()
            .take(round.len() * 20)
            .copied()
            .collect();
        let many: Vec<_> = round
            .iter()
            .cycle()
            .take(round.len() * 80)
            .copied()
            .collect();
        let (small, large) = (bradley_terry(3, &many), bradley_terry(3, &few));
        for i in 0..3 {
            let ratio = small.error95[i] / large.error95[i];
            assert!(close(ratio, 0.5, 0.03), "{ratio}");
        }
    }

    #[test]
    fn bradley_terry_keeps_perfect_scores_finite() {
        let games: Vec<_> = (0..10).map(|_| (0, 1, 1.0)).collect();
        let r = bradley_terry(2, &games);
        assert!(r.elo.iter().chain(&r.error95).all(|x| x.is_finite()));
        assert!(r.elo[0] > 200.0);
        let lone = bradley_terry(1, &[]);
        assert_eq!((lone.elo[0], lone.error95[0]), (0.0, 0.0));
        assert_eq!(bradley_terry(0, &[]).elo, Vec::<f64>::new());
    }
}
