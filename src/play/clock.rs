//! Time controls and the clock of one game, with fastchess's semantics: an engine may
//! overrun its time by the margin; it loses on time only when its clock falls below minus the
//! margin; a negative remainder counts as zero before the increment is added. Games without
//! a clock never time out (searches then stop at their own playout, node or depth limits).

use crate::game::Color;
use crate::player::spec::parse_duration;
use crate::search::time_plan::clock_share;
use std::fmt;
use std::time::Duration;

/// How much time each side has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// No clock: searches stop at their own limits.
    Unlimited,
    /// A fixed time for every move (`0.5s/move`).
    PerMove(Duration),
    /// `moves/base+increment`: `base` for every `moves` moves (the whole game when `None`),
    /// plus `increment` after each move (`40/60+0.6`, `10+0.1`, `60`).
    Period {
        /// Moves per period (`None`: one period for the whole game).
        moves: Option<u32>,
        /// Time of each period.
        base: Duration,
        /// Time added after each move.
        increment: Duration,
    },
}

impl TimeControl {
    /// Parses `none`, `X/move` (X a duration such as `500ms` or `1.5s`), or
    /// `[MOVES/]SECONDS[+INCREMENT]` in seconds.
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let text = text.trim();
        let bad = |why: &str| {
            format!("time control '{text}': {why} (expected none, 0.5s/move, 40/60+0.6 or 10+0.1)")
        };
        if matches!(text, "none" | "inf" | "unlimited") {
            return Ok(TimeControl::Unlimited);
        }
        if let Some(per_move) = text.strip_suffix("/move") {
            return parse_duration(per_move)
                .map(TimeControl::PerMove)
                .map_err(|e| bad(&e));
        }
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => {
                let moves: u32 = moves
                    .parse()
                    .ok()
                    .filter(|&m| m > 0)
                    .ok_or_else(|| bad("moves per period must be a positive whole number"))?;
                (Some(moves), rest)
            }
            None => (None, text),
        };
        let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
        let seconds = |t: &str| -> Result<Duration, String> {
            t.parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| bad(&format!("'{t}' is not a number of seconds")))
        };
        let (base, increment) = (seconds(base)?, seconds(increment)?);
        if base.is_zero() {
            return Err(bad("the base time must be positive"));
        }
        Ok(TimeControl::Period {
            moves,
            base,
            increment,
        })
    }

    /// True when the game has a clock.
    pub fn is_timed(&self) -> bool {
        !matches!(self, TimeControl::Unlimited)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Unlimited => f.write_str("none"),
            TimeControl::PerMove(t) => write!(f, "{}s/move", t.as_secs_f64()),
            TimeControl::Period {
                moves,
                base,
                increment,
            } => {
                if let Some(m) = moves {
                    write!(f, "{m}/")?;
                }
                write!(f, "{}", base.as_secs_f64())?;
                if !increment.is_zero() {
                    write!(f, "+{}", increment.as_secs_f64())?;
                }
                Ok(())
            }
        }
    }
}

/// What an agent is told about its clock before a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockView {
    /// The time control of the game.
    pub control: TimeControl,
    /// Time left on the mover's clock (`Period` only).
    pub remaining: Option<Duration>,
    /// Time left on the opponent's clock (`Period` only).
    pub opponent_remaining: Option<Duration>,
    /// Moves until the next period starts (`Period` with a move count only).
    pub moves_to_go: Option<u32>,
    /// The latest the answer may come before the move is lost: the time left (or the time
    /// per move) plus the margin; for untimed games the stall timeout.
    pub deadline: Duration,
}

impl ClockView {
    /// A view without a clock whose answers may take up to `stall`.
    pub fn untimed(stall: Duration) -> ClockView {
        ClockView {
            control: TimeControl::Unlimited,
            remaining: None,
            opponent_remaining: None,
            moves_to_go: None,
            deadline: stall,
        }
    }

    /// The time a search should plan for this move and the most it may take when the move
    /// is critical (`None` without a clock): the time per move for both, or
    /// [`clock_share`] of the time left over the moves to go (the period's, else
    /// `moves_left_estimate`; at least 8).
    pub fn plan(&self, moves_left_estimate: usize) -> Option<(Duration, Duration)> {
        match self.control {
            TimeControl::Unlimited => None,
            TimeControl::PerMove(t) => Some((t, t)),
            TimeControl::Period { increment, .. } => {
                let moves = self.moves_to_go.map_or(moves_left_estimate, |m| m as usize);
                Some(clock_share(
                    self.remaining.unwrap_or_default().as_secs_f64(),
                    increment.as_secs_f64(),
                    moves,
                ))
            }
        }
    }
}

/// Both sides' clocks during one game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameClock {
    control: TimeControl,
    margin: Duration,
    stall: Duration,
    left: [Duration; 2],
    moves_made: [u32; 2],
}

impl GameClock {
    /// Clocks for `control`; answers may overrun by `margin`; untimed answers may take up to
    /// `stall` before the agent counts as stalled.
    pub fn new(control: TimeControl, margin: Duration, stall: Duration) -> GameClock {
        let start = match control {
            TimeControl::Period { base, .. } => base,
            _ => Duration::ZERO,
        };
        GameClock {
            control,
            margin,
            stall,
            left: [start; 2],
            moves_made: [0; 2],
        }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Time left for `color` (zero without a period clock).
    pub fn left(&self, color: Color) -> Duration {
        self.left[color.index()]
    }

    /// What `color` is told before its move.
    pub fn view(&self, color: Color) -> ClockView {
        match self.control {
            TimeControl::Unlimited => ClockView::untimed(self.stall),
            TimeControl::PerMove(t) => ClockView {
                control: self.control,
                remaining: None,
                opponent_remaining: None,
                moves_to_go: None,
                deadline: t + self.margin,
            },
            TimeControl::Period { moves, .. } => ClockView {
                control: self.control,
                remaining: Some(self.left(color)),
                opponent_remaining: Some(self.left(color.opponent())),
                moves_to_go: moves.map(|m| m - self.moves_made[color.index()] % m),
                deadline: self.left(color) + self.margin,
            },
        }
    }

    /// Charges `color` for a move that took `used`; `Err` says how the time was exceeded.
    pub fn charge(&mut self, color: Color, used: Duration) -> Result<(), String> {
        let i = color.index();
        match self.control {
            TimeControl::Unlimited => Ok(()),
            TimeControl::PerMove(t) => {
                if used > t + self.margin {
                    Err(format!(
                        "{color} took {:.3} s for a move of {:.3} s (margin {:.3} s)",
                        used.as_secs_f64(),
                        t.as_secs_f64(),
                        self.margin.as_secs_f64()
                    ))
                } else {
                    Ok(())
                }
            }
            TimeControl::Period {
                moves,
                base,
                increment,
            } => {
                let left = self.left[i];
                if used > left + self.margin {
                    return Err(format!(
                        "{color} took {:.3} s with {:.3} s left (margin {:.3} s)",
                        used.as_secs_f64(),
                        left.as_secs_f64(),
                        self.margin.as_secs_f64()
                    ));
                }
                self.left[i] = left.saturating_sub(used) + increment;
                self.moves_made[i] += 1;
                if moves.is_some_and(|m| self.moves_made[i].is_multiple_of(m)) {
                    self.left[i] += base;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn parses_the_usual_forms_and_prints_them_back() {
        for text in ["none", "0.5s/move", "40/60+0.6", "10+0.1", "60"] {
            let tc = TimeControl::parse(text).unwrap();
            assert_eq!(TimeControl::parse(&tc.to_string()).unwrap(), tc, "{text}");
        }
        assert_eq!(
            TimeControl::parse("40/60+0.6").unwrap(),
            TimeControl::Period {
                moves: Some(40),
                base: secs(60.0),
                increment: secs(0.6)
            }
        );
        assert_eq!(
            TimeControl::parse("200ms/move").unwrap(),
            TimeControl::PerMove(secs(0.2))
        );
        for bad in ["", "0/60", "x+1", "60+y", "-5", "0+1", "fast/move"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_period_clock_clamps_overruns_within_the_margin_and_adds_increments() {
        let control = TimeControl::parse("2/1+0.5").unwrap();
        let mut clock = GameClock::new(control, secs(0.1), secs(60.0));
        assert_eq!(clock.view(Color::Black).deadline, secs(1.1));
        assert_eq!(clock.view(Color::Black).moves_to_go, Some(2));
        // 1.05 s of 1 s: within the margin; the remainder counts as 0, then +0.5.
        clock.charge(Color::Black, secs(1.05)).unwrap();
        assert_eq!(clock.left(Color::Black), secs(0.5));
        assert_eq!(clock.view(Color::Black).moves_to_go, Some(1));
        // Second move of the period: the next period's second is added.
        clock.charge(Color::Black, secs(0.25)).unwrap();
        assert_eq!(clock.left(Color::Black), secs(1.75));
        assert!(clock.charge(Color::Black, secs(1.9)).is_err());
        assert_eq!(clock.left(Color::White), secs(1.0));
    }

    #[test]
    fn per_move_and_untimed_clocks() {
        let mut clock = GameClock::new(TimeControl::PerMove(secs(0.5)), secs(0.1), secs(9.0));
        assert_eq!(clock.view(Color::White).deadline, secs(0.6));
        assert!(clock.charge(Color::White, secs(0.55)).is_ok());
        assert!(clock.charge(Color::White, secs(0.65)).is_err());
        let mut untimed = GameClock::new(TimeControl::Unlimited, secs(0.1), secs(9.0));
        assert_eq!(untimed.view(Color::Black).deadline, secs(9.0));
        assert!(untimed.charge(Color::Black, secs(1e4)).is_ok());
        assert_eq!(untimed.view(Color::Black).plan(30), None);
        assert_eq!(
            clock.view(Color::Black).plan(30),
            Some((secs(0.5), secs(0.5)))
        );
    }

    #[test]
    fn budgets_share_the_time_left() {
        let clock = GameClock::new(TimeControl::parse("60+1").unwrap(), secs(0.1), secs(9.0));
        let (budget, most) = clock.view(Color::Black).plan(30).unwrap();
        assert!(
            (budget.as_secs_f64() - (2.0 + 0.8)).abs() < 1e-9,
            "{budget:?}"
        );
        // A critical move may take three times as long.
        assert!((most.as_secs_f64() - 3.0 * 2.8).abs() < 1e-9, "{most:?}");
    }
}
