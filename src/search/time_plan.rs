//! Time management of an iterative-deepening search that has a planned time for the move
//! (`target`) and a limit it must not pass (`hard`): a move whose best choice stays put
//! stops early, a critical one (its best move changes between iterations, or its score
//! falls) runs on toward the limit.
//!
//! After each finished iteration the plan sets an allowance: the target times a factor,
//! 1 for a stable best move, growing by one for a change of best move in the last
//! iteration (half of that for one in the iteration before, and so on), times 1.5 when the
//! score fell by at least [`SCORE_DROP`] centi-scores; never above the hard limit. A new
//! iteration starts only while the time spent is under [`START_SHARE`] of the allowance
//! (an iteration takes about as long as all the previous ones together), and a running
//! iteration stops at [`RUN_ON`] times the allowance, or at the hard limit once the best
//! move of the last iteration has failed low in this one.

use std::time::Duration;

/// Share of the allowance after which no new iteration starts.
pub const START_SHARE: f64 = 0.7;
/// A running iteration may use this multiple of the allowance (a best move failing low may
/// use all the time up to the hard limit).
pub const RUN_ON: f64 = 1.3;
/// A fall of the score this large (centi-scores) from one iteration to the next makes the
/// move critical.
pub const SCORE_DROP: i32 = 25;
/// The allowance factor of a best move that has not changed for many iterations.
const STABLE_FACTOR: f64 = 1.0;
/// Extra allowance factor after a fall of the score.
const DROP_FACTOR: f64 = 1.5;

/// The plan of one move.
#[derive(Clone, Debug)]
pub struct TimePlan {
    target: Duration,
    hard: Duration,
    /// Changes of best move, the latest counting 1, the one before 1/2, and so on.
    instability: f64,
    last_score: Option<i32>,
    allowance: Duration,
}

impl TimePlan {
    /// A plan aiming at `target` and never passing `hard` (at least `target`).
    pub fn new(target: Duration, hard: Duration) -> TimePlan {
        let hard = hard.max(target);
        TimePlan {
            target,
            hard,
            instability: 0.0,
            last_score: None,
            allowance: target.min(hard),
        }
    }

    /// Records a finished iteration: whether its best move differs from the previous
    /// iteration's, and its score (centi-scores for the side to move). Returns the new
    /// allowance.
    pub fn iteration_done(&mut self, best_changed: bool, score: i32) -> Duration {
        self.instability = self.instability / 2.0 + f64::from(u8::from(best_changed));
        let fell = self
            .last_score
            .is_some_and(|last| last.saturating_sub(score) >= SCORE_DROP);
        self.last_score = Some(score);
        let factor = (STABLE_FACTOR + self.instability) * if fell { DROP_FACTOR } else { 1.0 };
        self.allowance = self.target.mul_f64(factor).min(self.hard);
        self.allowance
    }

    /// Whether a new iteration should start after `elapsed`.
    pub fn deepen(&self, elapsed: Duration) -> bool {
        elapsed < self.allowance.mul_f64(START_SHARE)
    }

    /// How long the running iteration may go on (from the start of the move): `RUN_ON` times
    /// the allowance, or the hard limit when the last best move has failed low.
    pub fn iteration_limit(&self, failed_low: bool) -> Duration {
        if failed_low {
            self.hard
        } else {
            self.allowance.mul_f64(RUN_ON).min(self.hard)
        }
    }
}

/// A clock's plan for one move with `left` seconds on it, `increment` seconds added after
/// each move and `moves` moves still expected (at least 8 are assumed): the planned time,
/// an even share of what is left plus most of the increment (never more than 90% of what is
/// left), and the most the move may take, three times that but at most a third of what is
/// left plus the increment. Both at least a millisecond.
pub fn clock_share(left: f64, increment: f64, moves: usize) -> (Duration, Duration) {
    let left = left.max(0.0);
    let share = (left / moves.max(8) as f64 + 0.8 * increment).min(0.9 * left + 0.8 * increment);
    let most = (3.0 * share).min(left / 3.0 + increment).max(share);
    let seconds = |s: f64| Duration::from_secs_f64(s.max(0.001));
    (seconds(share), seconds(most))
}

/// The time limit and the planned time (when it differs) of a move whose clock plans
/// `target` and allows `most`, both scaled by `share` (the part of the time before the
/// search's deadline): a player with a time of its own (`own`) keeps it, within the plan;
/// otherwise a critical move may run on toward `most`.
pub fn move_times(
    target: Duration,
    most: Duration,
    own: Option<Duration>,
    share: f64,
) -> (Duration, Option<Duration>) {
    match own {
        Some(own) => (own.min(target).mul_f64(share), None),
        None => (
            most.mul_f64(share),
            (most > target).then_some(target.mul_f64(share)),
        ),
    }
}

/// How a player with a time per move spreads it over a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pace {
    /// Every move takes the time per move.
    #[default]
    Even,
    /// Every move takes the time per move and half the time the game's earlier moves left
    /// unused (a search that stops early, its choice settled or its win proven, saves time
    /// for the moves still in doubt).
    Carry,
    /// The time per move is the average over a game: the opening moves take more, the later
    /// ones less ([`front_loaded`]), and unused time is carried as under [`Pace::Carry`].
    Front,
}

/// Under [`Pace::Front`], the multiple of the average time the next move takes after
/// `played` plies of a game that usually lasts `expected` plies. A side expects
/// `E = expected / 2` moves (at least 4); its k-th move (`k = played / 2`, from 0) takes
/// `FRONT_FIRST (1 - FRONT_FIRST / E)^k` times the average, never under [`FRONT_FLOOR`]:
/// the shares of all moves from the first on add up to E, the time a game of the usual
/// length has at the average.
pub fn front_loaded(played: usize, expected: usize) -> f64 {
    let own_moves = (expected as f64 / 2.0).max(4.0);
    let k = (played / 2).min(i32::MAX as usize) as i32;
    (FRONT_FIRST * (1.0 - FRONT_FIRST / own_moves).powi(k)).max(FRONT_FLOOR)
}

/// The share of the average time the first move takes under [`Pace::Front`].
pub const FRONT_FIRST: f64 = 3.0;
/// The least share of the average time a move takes under [`Pace::Front`].
pub const FRONT_FLOOR: f64 = 0.25;

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_stable_best_move_stops_early() {
        let mut plan = TimePlan::new(ms(1000), ms(2000));
        let mut allowance = Duration::ZERO;
        for _ in 0..8 {
            allowance = plan.iteration_done(false, 40);
        }
        assert_eq!(allowance, ms(1000));
        assert!(plan.deepen(ms(699)));
        assert!(!plan.deepen(ms(700)));
        assert_eq!(plan.iteration_limit(false), ms(1300));
    }

    #[test]
    fn a_changing_best_move_gets_more_time_up_to_the_hard_limit() {
        let mut plan = TimePlan::new(ms(1000), ms(3000));
        plan.iteration_done(false, 40);
        assert_eq!(plan.iteration_done(true, 40), ms(2000));
        assert!(plan.deepen(ms(1399)));
        // Two changes in a row: 1 + 1 + 1/2, then the hard limit caps 1 + 1 + 1/2 + 1/4.
        assert_eq!(plan.iteration_done(true, 40), ms(2500));
        assert_eq!(plan.iteration_done(true, 40), ms(2750));
        assert_eq!(plan.iteration_done(true, 40), ms(2875));
        assert_eq!(
            plan.iteration_done(true, 40),
            Duration::from_micros(2_937_500)
        );
        assert_eq!(plan.iteration_limit(false), ms(3000));
        // The changes fade.
        let mut plan = TimePlan::new(ms(1000), ms(3000));
        plan.iteration_done(true, 40);
        assert_eq!(plan.iteration_done(false, 40), ms(1500));
        assert_eq!(plan.iteration_done(false, 40), ms(1250));
    }

    #[test]
    fn a_falling_score_gets_more_time() {
        let mut plan = TimePlan::new(ms(1000), ms(3000));
        plan.iteration_done(false, 40);
        assert_eq!(plan.iteration_done(false, 40 - SCORE_DROP + 1), ms(1000));
        assert_eq!(plan.iteration_done(false, 40 - 2 * SCORE_DROP), ms(1500));
        // A rising score is no alarm.
        assert_eq!(plan.iteration_done(false, 200), ms(1000));
        // Both: (1 + 1) x 1.5, capped.
        assert_eq!(plan.iteration_done(true, 200 - SCORE_DROP), ms(3000));
    }

    #[test]
    fn a_clock_shares_its_time() {
        // 60 s for 30 moves: 2 s planned, 6 s at most.
        let (target, most) = clock_share(60.0, 0.0, 30);
        assert!((target.as_secs_f64() - 2.0).abs() < 1e-9);
        assert!((most.as_secs_f64() - 6.0).abs() < 1e-9);
        // Little left: a third of it plus the increment at most; never below the plan.
        let (target, most) = clock_share(3.0, 1.0, 40);
        assert!((target.as_secs_f64() - (3.0 / 40.0 + 0.8)).abs() < 1e-9);
        assert!((most.as_secs_f64() - 2.0).abs() < 1e-9);
        let (target, most) = clock_share(0.0, 0.0, 40);
        assert_eq!((target, most), (ms(1), ms(1)));
    }

    #[test]
    fn a_failed_low_iteration_may_run_to_the_hard_limit() {
        let mut plan = TimePlan::new(ms(100), ms(200));
        plan.iteration_done(false, 0);
        assert_eq!(plan.iteration_limit(true), ms(200));
        assert_eq!(plan.iteration_limit(false), ms(130));
        // The hard limit is never below the target.
        assert_eq!(
            TimePlan::new(ms(100), ms(50)).iteration_limit(true),
            ms(100)
        );
    }

    #[test]
    fn a_front_loaded_game_spends_its_usual_time() {
        // 9x9 Hex: about 40 plies, 20 moves a side; the first takes three times the average,
        // each later one 3/20 less.
        assert!((front_loaded(0, 40) - FRONT_FIRST).abs() < 1e-12);
        assert!((front_loaded(1, 40) - FRONT_FIRST).abs() < 1e-12);
        assert!((front_loaded(2, 40) - FRONT_FIRST * 0.85).abs() < 1e-12);
        // Every move of a game of the usual length together: about 20 averages (the
        // shares' whole series adds up to 20; the late moves are held at the floor).
        let game: f64 = (0..20).map(|k| front_loaded(2 * k, 40)).sum();
        assert!((19.0..20.5).contains(&game), "{game}");
        assert_eq!(front_loaded(200, 40), FRONT_FLOOR);
        // Tiny boards still give a positive share.
        assert!(front_loaded(3, 0) > 0.0);
    }
}
