//! The byo-yomi count (Art. 12.3) and the events the clock emits.
//!
//! In a 60 s period the rules call 30, 40, 50, 55 and 58 seconds, then "1 minute used,
//! N left" when the period runs out; in the last period they call 30, 40 and 50, then
//! 1, 2, ... 10 once a second, and "10" with the stone not yet down means the last minute
//! is used: the flag falls at that same millisecond.
//!
//! **Other period lengths.** Art. 12.3 leaves fast games to set their own count "by the
//! same principle". tengen keeps each call at the same *time left* as in a 60 s period:
//! `"30"` when 30 s are left, `"40"` at 20 s left, `"50"` at 10 s, `"55"` at 5 s, `"58"`
//! at 2 s, and in the last period the count `"1"`..`"10"` at 9 s .. 0 s left. A call whose
//! moment would fall at or before the start of the period is not made (a 30 s period has
//! no `"30"` call; a 10 s last period starts at `"1"`). A period longer than 60 s simply
//! has more silence before the first call. So a 60 s period follows the rules text
//! exactly, and every other length still warns at 20, 10, 5 and 2 seconds before the end.

use crate::Color;

/// One call of the byo-yomi count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Call {
    /// "30 seconds" (30 s left in the period).
    S30,
    /// "40 seconds" (20 s left).
    S40,
    /// "50 seconds" (10 s left).
    S50,
    /// "55 seconds" (5 s left).
    S55,
    /// "58 seconds" (2 s left).
    S58,
    /// "1 minute used, N left": a period (not the last) ran out.
    MinuteUsed,
    /// The last period's count, `1`..=`10` (`10` = the period is used, the flag falls).
    Count(u8),
}

impl Call {
    /// The call as the wire contract's `byoyomi` event writes it: `"30"`, `"40"`, `"50"`, `"55"`,
    /// `"58"`, `"minute_used"`, `"1"`..`"10"`.
    pub fn as_str(self) -> &'static str {
        const COUNTS: [&str; 11] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
        match self {
            Call::S30 => "30",
            Call::S40 => "40",
            Call::S50 => "50",
            Call::S55 => "55",
            Call::S58 => "58",
            Call::MinuteUsed => "minute_used",
            Call::Count(n) => COUNTS.get(n as usize).copied().unwrap_or("10"),
        }
    }
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the clock reports as time passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockEvent {
    /// A byo-yomi call for `color`. `periods_left` counts the periods left *including* the
    /// one being counted; for [`Call::MinuteUsed`] it is the number left after the one that
    /// just ran out ("1 minute used, N left").
    Call {
        /// Whose clock.
        color: Color,
        /// The call.
        call: Call,
        /// Periods left (see above).
        periods_left: u32,
    },
    /// `color` has run out of time (Art. 12.4, 22.5). Both clocks stop.
    Flag {
        /// Who ran out.
        color: Color,
    },
}

/// The calls of an ordinary period, by time left in ms (descending).
pub(crate) const PERIOD_CALLS: [(u64, Call); 5] = [
    (30_000, Call::S30),
    (20_000, Call::S40),
    (10_000, Call::S50),
    (5_000, Call::S55),
    (2_000, Call::S58),
];

/// The calls of the last period, by time left in ms (descending); `Count(10)` comes with
/// the flag at 0 ms left. The same count serves any last minute before a flag (the table
/// says it for sudden death, Fischer and Canadian time).
pub const LAST_PERIOD_CALLS: [(u64, Call); 12] = [
    (30_000, Call::S30),
    (20_000, Call::S40),
    (10_000, Call::S50),
    (9_000, Call::Count(1)),
    (8_000, Call::Count(2)),
    (7_000, Call::Count(3)),
    (6_000, Call::Count(4)),
    (5_000, Call::Count(5)),
    (4_000, Call::Count(6)),
    (3_000, Call::Count(7)),
    (2_000, Call::Count(8)),
    (1_000, Call::Count(9)),
];
