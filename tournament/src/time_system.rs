//! The time system of `GeneralParameterSet`, written in tengen's script syntax.

/// The thinking time of a tournament, from `GeneralParameterSet`'s `basicTime` (minutes)
/// and `complementaryTimeSystem` with its own attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeSystem {
    /// `SUDDENDEATH`: the basic time only.
    SuddenDeath {
        /// `basicTime`, minutes per player.
        basic_minutes: u32,
    },
    /// `STDBYOYOMI`: basic time, then byo-yomi periods of `stdByoYomiTime` seconds.
    ///
    /// OpenGotha records no number of periods (its `GeneralParameterSet` has no such
    /// attribute, the DTD none, and its EGD export calls it "Standard byo-yomi"): standard
    /// byo-yomi there is one period, restarted after every move made within it. So
    /// [`TimeSystem::script`] writes one period (`byoyomi 60m 1x30s`). the wire contract's example
    /// `byoyomi 60m 5x30s` has five, which no OpenGotha file can say; a tournament playing
    /// several periods has to set them elsewhere.
    StandardByoyomi {
        /// `basicTime`, minutes per player.
        basic_minutes: u32,
        /// `stdByoYomiTime`, seconds per period.
        period_seconds: u32,
    },
    /// `CANBYOYOMI`: basic time, then `nbMovesCanTime` moves in every
    /// `canByoYomiTime` seconds.
    CanadianByoyomi {
        /// `basicTime`, minutes per player.
        basic_minutes: u32,
        /// `nbMovesCanTime`, stones per period.
        moves: u32,
        /// `canByoYomiTime`, seconds per period.
        period_seconds: u32,
    },
    /// `FISCHER`: basic time plus `fischerTime` seconds per move.
    Fischer {
        /// `basicTime`, minutes per player.
        basic_minutes: u32,
        /// `fischerTime`, seconds added at each move.
        increment_seconds: u32,
    },
}

impl TimeSystem {
    /// The time control in the syntax of the simulator's scripts (sim/README.md) (the `time` line
    /// without the word `time`), which `tengen_rules::clock::TimeControl::parse` reads:
    /// `absolute 60m`, `byoyomi 60m 1x30s`, `canadian 80m 15/5m`, `fischer 60m +10s`.
    /// Durations are written in the largest unit that divides them, except one minute,
    /// written `60s`, as the rules crate writes them.
    pub fn script(&self) -> String {
        match *self {
            TimeSystem::SuddenDeath { basic_minutes } => {
                format!("absolute {}", minutes(basic_minutes))
            }
            TimeSystem::StandardByoyomi {
                basic_minutes,
                period_seconds,
            } => format!(
                "byoyomi {} 1x{}",
                minutes(basic_minutes),
                seconds(period_seconds)
            ),
            TimeSystem::CanadianByoyomi {
                basic_minutes,
                moves,
                period_seconds,
            } => format!(
                "canadian {} {}/{}",
                minutes(basic_minutes),
                moves,
                seconds(period_seconds)
            ),
            TimeSystem::Fischer {
                basic_minutes,
                increment_seconds,
            } => format!(
                "fischer {} +{}",
                minutes(basic_minutes),
                seconds(increment_seconds)
            ),
        }
    }

    /// The basic time per player, in minutes.
    pub fn basic_minutes(&self) -> u32 {
        match *self {
            TimeSystem::SuddenDeath { basic_minutes }
            | TimeSystem::StandardByoyomi { basic_minutes, .. }
            | TimeSystem::CanadianByoyomi { basic_minutes, .. }
            | TimeSystem::Fischer { basic_minutes, .. } => basic_minutes,
        }
    }
}

/// A whole number of minutes in the script's notation.
fn minutes(m: u32) -> String {
    seconds_u64(u64::from(m) * 60)
}

/// A whole number of seconds in the script's notation.
fn seconds(s: u32) -> String {
    seconds_u64(u64::from(s))
}

/// `0s`, `45s`, `60s`, `90s`, `5m`, `120m`: as `tengen_rules`' `format_duration` writes
/// it: minutes when they divide the duration, but one minute as `60s`.
fn seconds_u64(s: u64) -> String {
    if s > 60 && s % 60 == 0 {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}
