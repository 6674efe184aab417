//! Game clocks as GUIs and match scripts set them (`time_left`, `param_game game_time`), and
//! the time budget of one move derived from them.

use crate::game::Color;
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

    /// The time to spend on one move for `color`: an even share of the time left over the
    /// moves still expected (at least 8), plus most of the increment, never more than
    /// `max_per_move` and never more than 90% of what is left.
    pub fn budget(&self, color: Color, moves_left: usize, max_per_move: Option<f64>) -> Duration {
        let left = self.left(color);
        let share = left / moves_left.max(8) as f64 + 0.8 * self.increment;
        let mut seconds = share.min(0.9 * left + 0.8 * self.increment);
        if let Some(cap) = max_per_move {
            seconds = seconds.min(cap);
        }
        Duration::from_secs_f64(seconds.max(0.001))
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
}
