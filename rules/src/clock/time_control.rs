//! Time controls (Art. 12) and the duration notation of the simulator's scripts (sim/README.md) and config
//! (`250ms`, `3s`, `2m`, `1h`).

use std::fmt;

use super::ClockError;

/// How much thinking time each side gets (Art. 12.2-12.5, plus Fischer).
///
/// The written form (parsed by [`TimeControl::parse`], written by `Display`) is the wire contract's
/// script form: `none`, `absolute 30m`, `byoyomi 60m 5x60s`, `canadian 10m 15/10m`,
/// `fischer 10m +20s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// No clock: nobody runs out of time.
    None,
    /// Sudden death (Art. 12.4): whoever uses up `main_ms` loses.
    Absolute {
        /// Base time per side.
        main_ms: u64,
    },
    /// Base time, then `periods` byo-yomi periods of `period_ms` (Art. 12.3). A move made
    /// within a period costs nothing; each period used up in full is gone.
    Byoyomi {
        /// Base time per side.
        main_ms: u64,
        /// Number of periods (at least 1).
        periods: u32,
        /// Length of one period (60 s in Art. 12.3).
        period_ms: u64,
    },
    /// Base time, then `stones` moves in each `period_ms` (Art. 12.5); time left over when
    /// the stones are played carries into the next period.
    Canadian {
        /// Base time per side.
        main_ms: u64,
        /// Moves to play in each period (at least 1).
        stones: u32,
        /// Length of one period.
        period_ms: u64,
    },
    /// Base time plus `increment_ms` after every move.
    Fischer {
        /// Base time per side.
        main_ms: u64,
        /// Time added at each clock press.
        increment_ms: u64,
    },
}

impl TimeControl {
    /// Parses the script form, e.g. `byoyomi 60m 5x60s` (keywords case-insensitive,
    /// any whitespace between the parts).
    pub fn parse(text: &str) -> Result<TimeControl, ClockError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let bad = |why: &str| ClockError::TimeControl {
            text: text.trim().to_string(),
            reason: why.to_string(),
        };
        let Some(kind) = words.first() else {
            return Err(bad("empty"));
        };
        let want = |n: usize, form: &str| {
            if words.len() == n {
                Ok(())
            } else {
                Err(bad(&format!("expected `{form}`")))
            }
        };
        match kind.to_ascii_lowercase().as_str() {
            "none" => {
                want(1, "none")?;
                Ok(TimeControl::None)
            }
            "absolute" => {
                want(2, "absolute MAIN")?;
                Ok(TimeControl::Absolute {
                    main_ms: parse_duration(words[1])?,
                })
            }
            "byoyomi" => {
                want(3, "byoyomi MAIN NxPERIOD")?;
                let main_ms = parse_duration(words[1])?;
                let (n, p) = words[2]
                    .split_once(['x', 'X'])
                    .ok_or_else(|| bad("periods must be written NxPERIOD, e.g. 5x60s"))?;
                let periods =
                    parse_count(n).ok_or_else(|| bad("period count must be 1 or more"))?;
                let period_ms = parse_duration(p)?;
                if period_ms == 0 {
                    return Err(bad("a period must be longer than 0"));
                }
                Ok(TimeControl::Byoyomi {
                    main_ms,
                    periods,
                    period_ms,
                })
            }
            "canadian" => {
                want(3, "canadian MAIN STONES/PERIOD")?;
                let main_ms = parse_duration(words[1])?;
                let (n, p) = words[2]
                    .split_once('/')
                    .ok_or_else(|| bad("periods must be written STONES/PERIOD, e.g. 15/10m"))?;
                let stones =
                    parse_count(n).ok_or_else(|| bad("stones per period must be 1 or more"))?;
                let period_ms = parse_duration(p)?;
                if period_ms == 0 {
                    return Err(bad("a period must be longer than 0"));
                }
                Ok(TimeControl::Canadian {
                    main_ms,
                    stones,
                    period_ms,
                })
            }
            "fischer" => {
                want(3, "fischer MAIN +INCREMENT")?;
                let main_ms = parse_duration(words[1])?;
                let inc = words[2]
                    .strip_prefix('+')
                    .ok_or_else(|| bad("the increment must be written +TIME, e.g. +20s"))?;
                Ok(TimeControl::Fischer {
                    main_ms,
                    increment_ms: parse_duration(inc)?,
                })
            }
            other => Err(bad(&format!(
                "unknown system '{other}' (none, absolute, byoyomi, canadian, fischer)"
            ))),
        }
    }

    /// The base time per side (0 for [`TimeControl::None`]).
    pub fn main_ms(&self) -> u64 {
        match *self {
            TimeControl::None => 0,
            TimeControl::Absolute { main_ms }
            | TimeControl::Byoyomi { main_ms, .. }
            | TimeControl::Canadian { main_ms, .. }
            | TimeControl::Fischer { main_ms, .. } => main_ms,
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::None => f.write_str("none"),
            TimeControl::Absolute { main_ms } => {
                write!(f, "absolute {}", format_duration(main_ms))
            }
            TimeControl::Byoyomi {
                main_ms,
                periods,
                period_ms,
            } => write!(
                f,
                "byoyomi {} {}x{}",
                format_duration(main_ms),
                periods,
                format_duration(period_ms)
            ),
            TimeControl::Canadian {
                main_ms,
                stones,
                period_ms,
            } => write!(
                f,
                "canadian {} {}/{}",
                format_duration(main_ms),
                stones,
                format_duration(period_ms)
            ),
            TimeControl::Fischer {
                main_ms,
                increment_ms,
            } => write!(
                f,
                "fischer {} +{}",
                format_duration(main_ms),
                format_duration(increment_ms)
            ),
        }
    }
}

impl std::str::FromStr for TimeControl {
    type Err = ClockError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TimeControl::parse(s)
    }
}

/// A positive whole count (`5` in `5x60s`).
fn parse_count(text: &str) -> Option<u32> {
    text.parse::<u32>().ok().filter(|&n| n > 0)
}

/// Parses a duration written as a whole number and a unit: `250ms`, `3s`, `2m`, `1h`
/// (the wire contract's notation). Returns milliseconds.
pub fn parse_duration(text: &str) -> Result<u64, ClockError> {
    let t = text.trim();
    let bad = || ClockError::Duration(t.to_string());
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (digits, unit) = t.split_at(split);
    if digits.is_empty() {
        return Err(bad());
    }
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let scale: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(bad()),
    };
    n.checked_mul(scale).ok_or_else(bad)
}

/// Writes milliseconds in the largest unit that divides them exactly (`90m`, `30s`,
/// `250ms`), except that one minute is written `60s` as byo-yomi periods usually are;
/// [`parse_duration`] reads it back to the same value.
pub fn format_duration(ms: u64) -> String {
    if ms == 0 {
        "0s".to_string()
    } else if ms % 60_000 == 0 && ms > 60_000 {
        format!("{}m", ms / 60_000)
    } else if ms % 1_000 == 0 {
        format!("{}s", ms / 1_000)
    } else {
        format!("{ms}ms")
    }
}
