//! Game clocks as GUIs and match scripts set them (`time_left`, `param_game game_time`), and
//! the time budget of one move derived from them.

use crate::game::Color;
use crate::search::time_plan::clock_share;
use std::time::Duration;

/// Both players' clocks, in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Clock {
    /// Seconds each side has at the start of a game (`param_game game_time`).
    pub game_time: f64,
    /// Seconds added after each move.
    pub increment: f64,
    left: [f64; 2],
}

impl Clock {
    /// A clock giving each side `game_time` seconds.
    pub fn new(game_time: f64) -> Clock {
        Clock {
            game_time,
            increment: 0.0,
            left: [game_time; 2],
        }
    }

    /// Resets both sides to the full game time (a new game).
    pub fn reset(&mut self) {
        self.left = [self.game_time; 2];
    }

    /// Seconds left for `color`.
    pub fn left(&self, color: Color) -> f64 {
        self.left[color.index()]
    }

    /// Sets the seconds left for `color` (negative values count as 0).
    pub fn set_left(&mut self, color: Color, seconds: f64) {
        self.left[color.index()] = seconds.max(0.0);
    }

    /// Benzene's `time_left` answer without arguments: `Black: 1800, White: 1800`.
    pub fn describe(&self) -> String {
        format!(
            "Black: {}, White: {}",
            seconds_text(self.left[0]),
            seconds_text(self.left[1])
        )
    }

    /// The time to spend on one move for `color`: the planned time of
    /// [`clock_share`] (an even share of the time left over the moves still expected, at
    /// least 8, plus most of the increment, never more than 90% of what is left), never more
    /// than `max_per_move`.
    pub fn budget(&self, color: Color, moves_left: usize, max_per_move: Option<f64>) -> Duration {
        self.plan(color, moves_left, max_per_move).0
    }

    /// The planned time of one move for `color` and the most it may take when it is
    /// critical ([`clock_share`]), both capped by `max_per_move`: equal when the cap, not
    /// the clock, decides.
    pub fn plan(
        &self,
        color: Color,
        moves_left: usize,
        max_per_move: Option<f64>,
    ) -> (Duration, Duration) {
        let (target, most) = clock_share(self.left(color), self.increment, moves_left);
        let cap = max_per_move.map_or(Duration::MAX, Duration::from_secs_f64);
        (target.min(cap), most.min(cap))
    }
}

/// Seconds as protocols print clocks: whole seconds, rounded to the nearest (GTP's
/// `time_left` counts whole seconds, and a clock charged a few milliseconds for a quick move
/// still reads the same).
pub fn seconds_text(seconds: f64) -> String {
    format!("{}", seconds.round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_and_set() {
        let mut clock = Clock::new(1800.0);
        assert_eq!(clock.describe(), "Black: 1800, White: 1800");
        clock.set_left(Color::White, 120.4);
        assert_eq!(clock.left(Color::White), 120.4);
        assert_eq!(clock.describe(), "Black: 1800, White: 120");
        clock.set_left(Color::White, 1799.6);
        assert_eq!(clock.describe(), "Black: 1800, White: 1800");
        clock.set_left(Color::White, 120.5);
        clock.set_left(Color::Black, -4.0);
        assert_eq!(clock.left(Color::Black), 0.0);
        clock.set_left(Color::Black, 1799.9996);
        assert_eq!(clock.describe(), "Black: 1800, White: 121");
        clock.reset();
        assert_eq!(clock.left(Color::White), 1800.0);
    }

    #[test]
    fn budget_shares_and_caps() {
        let clock = Clock::new(100.0);
        assert_eq!(clock.budget(Color::Black, 50, None), Duration::from_secs(2));
        assert_eq!(
            clock.budget(Color::Black, 2, None),
            Duration::from_secs_f64(12.5)
        );
        assert_eq!(
            clock.budget(Color::Black, 50, Some(1.0)),
            Duration::from_secs(1)
        );
        let mut low = Clock::new(1.0);
        low.increment = 10.0;
        // 1/8 + 8 = 8.125 s, but at most 0.9 * 1 + 8 = 8.9 s.
        assert_eq!(
            low.budget(Color::White, 8, None),
            Duration::from_secs_f64(8.125)
        );
    }

    #[test]
    fn a_critical_move_may_take_more_unless_the_cap_decides() {
        let clock = Clock::new(100.0);
        let (target, most) = clock.plan(Color::Black, 50, None);
        assert_eq!(
            (target, most),
            (Duration::from_secs(2), Duration::from_secs(6))
        );
        let (target, most) = clock.plan(Color::Black, 50, Some(4.0));
        assert_eq!(
            (target, most),
            (Duration::from_secs(2), Duration::from_secs(4))
        );
        // The cap below the share: a fixed time a move.
        let (target, most) = clock.plan(Color::Black, 50, Some(1.0));
        assert_eq!(
            (target, most),
            (Duration::from_secs(1), Duration::from_secs(1))
        );
    }
}
