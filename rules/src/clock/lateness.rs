//! The players' arrival at the start of a game (Art. 22.1-22.4), as a pure state machine
//! over injected time, like the clock beside it.
//!
//! The rules (Art. 22, the rules' own words in `docs/operating.md`):
//! - 22.1: venue and lodging apart, a player late at the start of the game by the limit
//!   (1 hour, inclusive) or more loses; one less late has **twice** the time late taken
//!   from their time limit. Late after a pause, the clock simply runs: no doubling and no
//!   limit.
//! - 22.2: venue and lodging together, the limit is 15 minutes; otherwise as 22.1.
//! - 22.3: both late: each is dealt with on their own, down to both losing.
//! - 22.4: quick games with no or a very short base time: the absent player's clock counts
//!   (byo-yomi) while they are away; seated within it, they play; if it runs out, they
//!   have lost the game.
//!
//! How the board counts (decided here once, for the referee, the fold and the hall alike):
//! - Lateness counts from the moment play begins (the clocks first run after the game
//!   waited for its start), for each player not seated then, and only while the clocks
//!   run: a pause (an arbiter's, a restart's) stops it as it stops the clocks. It is never
//!   counted again once play has begun: a player away after a pause only loses clock time.
//! - A player arrives by their first sign at the board: their clock press, or their first
//!   stone, whichever comes first ([`Arrivals::arrival`]).
//! - `double` (22.1, 22.2): on arrival, their time is charged twice the lateness in all.
//!   Their clock already ran for whatever part of the lateness was their turn; the rest is
//!   taken at once from their base time ([`LatePolicy::deduction`]), never from byo-yomi
//!   periods or Canadian stones; base time taken to nothing begins the overtime (or, with
//!   no overtime, is a time-out).
//! - `byoyomi` (22.4): nothing is taken on arrival; the absent player's clock runs as it
//!   does, and running out while still away loses the game.
//! - The limit applies under both rules: a player still away when the lateness reaches it
//!   (inclusive) has lost the game ([`Arrivals::due`]).

use super::Clock;
use crate::Color;

/// How lateness costs a player who arrives in time (`[game] late_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LateRule {
    /// `"double"` (Art. 22.1, 22.2): twice the time late is taken from the player's time.
    #[default]
    Double,
    /// `"byoyomi"` (Art. 22.4, quick games): the absent player's clock counts, nothing more.
    Byoyomi,
}

impl LateRule {
    /// `double` or `byoyomi`, as the config and `game_started` write it.
    pub fn as_str(self) -> &'static str {
        match self {
            LateRule::Double => "double",
            LateRule::Byoyomi => "byoyomi",
        }
    }

    /// Reads `double` or `byoyomi`.
    pub fn parse(text: &str) -> Option<LateRule> {
        match text {
            "double" => Some(LateRule::Double),
            "byoyomi" => Some(LateRule::Byoyomi),
            _ => None,
        }
    }
}

/// A game's rule for lateness: the limit and what an arrival in time costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LatePolicy {
    /// A player away this long after play began (inclusive) has lost.
    pub limit_ms: u64,
    /// What an arrival within the limit costs.
    pub rule: LateRule,
}

impl Default for LatePolicy {
    /// Art. 22.1's: one hour, doubled.
    fn default() -> LatePolicy {
        LatePolicy {
            limit_ms: LatePolicy::VENUE_APART_MS,
            rule: LateRule::Double,
        }
    }
}

impl LatePolicy {
    /// Art. 22.1's limit, venue and lodging apart: one hour.
    pub const VENUE_APART_MS: u64 = 3_600_000;
    /// Art. 22.2's limit, venue and lodging together: 15 minutes.
    pub const VENUE_TOGETHER_MS: u64 = 900_000;

    /// The article that rules on one player's lateness under this policy: `22.4` under
    /// `byoyomi`, `22.2` for a limit of 15 minutes or less (venue and lodging together),
    /// else `22.1`.
    pub fn article(&self) -> &'static str {
        match self.rule {
            LateRule::Byoyomi => "22.4",
            LateRule::Double if self.limit_ms <= LatePolicy::VENUE_TOGETHER_MS => "22.2",
            LateRule::Double => "22.1",
        }
    }

    /// Art. 22.3: both players late, each dealt with on their own.
    pub const BOTH_ARTICLE: &'static str = "22.3";

    /// True when `late_ms` of lateness has reached the limit (the limit itself included:
    /// "1 hour (inclusive)").
    pub fn is_over(&self, late_ms: u64) -> bool {
        late_ms >= self.limit_ms
    }

    /// What an arrival `late_ms` after play began takes at once from the player's base
    /// time, when their clock has already run `run_ms` of that time and `base_left` is
    /// left: under `double` the rest of twice the lateness (never more than the base time
    /// left); under `byoyomi` nothing.
    pub fn deduction(&self, late_ms: u64, run_ms: u64, base_left: u64) -> u64 {
        match self.rule {
            LateRule::Byoyomi => 0,
            LateRule::Double => late_ms
                .saturating_mul(2)
                .saturating_sub(run_ms)
                .min(base_left),
        }
    }
}

/// Where one player is, as far as the board knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seat {
    /// Play has not begun and the player has not checked in.
    Expected,
    /// Checked in (pressed their clock, or set their first stone down) before play began,
    /// at `at`.
    Seated {
        /// When.
        at: u64,
    },
    /// Not seated when play began: late ever since (see [`Arrivals::late_ms`]).
    Absent,
    /// Arrived after play began, at `at`.
    Arrived {
        /// When.
        at: u64,
        /// How late (running time since play began).
        late_ms: u64,
        /// What was taken from their base time on arrival (on top of what their clock ran).
        deducted_ms: u64,
        /// What their clock ran while they were away: with `deducted_ms`, all their
        /// lateness cost them (twice the lateness under `double`, unless their base time
        /// ran short).
        ran_ms: u64,
    },
}

impl Seat {
    /// True for a player at the board (seated, or arrived).
    pub fn is_present(self) -> bool {
        matches!(self, Seat::Seated { .. } | Seat::Arrived { .. })
    }
}

/// What a sign of a player at the board (a press, a stone) means now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Already seated (or arrived): nothing.
    Present,
    /// A check-in before play began.
    CheckIn,
    /// A late arrival: how late, and what to take from their base time.
    Late {
        /// Running time since play began.
        late_ms: u64,
        /// To take at once from their base time ([`LatePolicy::deduction`]).
        deducted_ms: u64,
    },
}

/// Both players' arrival in one game: see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrivals {
    policy: LatePolicy,
    seats: [Seat; 2],
    /// When play began (the clocks first ran), if it has.
    began: Option<u64>,
    /// Since when the clocks stand still, once play began.
    paused_since: Option<u64>,
    /// Time the clocks stood still since play began, before `paused_since`.
    paused_ms: u64,
    /// What each side's clock had run when play began.
    run_at_begin: [u64; 2],
    /// The sides whose lateness has been reported as a loss (an `absent` alert).
    reported: [bool; 2],
}

impl Arrivals {
    /// A game under `policy`, nobody seated yet, play not begun.
    pub fn new(policy: LatePolicy) -> Arrivals {
        Arrivals {
            policy,
            seats: [Seat::Expected; 2],
            began: None,
            paused_since: None,
            paused_ms: 0,
            run_at_begin: [0; 2],
            reported: [false; 2],
        }
    }

    /// The game's policy.
    pub fn policy(&self) -> LatePolicy {
        self.policy
    }

    /// Where `color` is.
    pub fn seat(&self, color: Color) -> Seat {
        self.seats[color.index()]
    }

    /// When play began, if it has.
    pub fn began(&self) -> Option<u64> {
        self.began
    }

    /// True once `color`'s loss by lateness has been reported ([`Arrivals::report`]).
    pub fn reported(&self, color: Color) -> bool {
        self.reported[color.index()]
    }

    /// True when `color` is away after play began: late, and not yet arrived.
    pub fn is_absent(&self, color: Color) -> bool {
        self.seat(color) == Seat::Absent
    }

    /// `color`'s lateness at `now`: the time the clocks ran since play began; `None` unless
    /// the player is away after play began.
    pub fn late_ms(&self, color: Color, now: u64) -> Option<u64> {
        self.is_absent(color).then(|| self.running_since_begin(now))
    }

    /// The time the clocks ran since play began, up to `now`.
    fn running_since_begin(&self, now: u64) -> u64 {
        let Some(began) = self.began else { return 0 };
        let stood = self.paused_ms + self.paused_since.map_or(0, |p| now.saturating_sub(p));
        now.saturating_sub(began).saturating_sub(stood)
    }

    /// When `color`'s lateness reaches the limit, if the clocks run on from `now` without a
    /// pause; `None` unless the player is away, play has begun and the clocks run.
    pub fn limit_at(&self, color: Color, now: u64) -> Option<u64> {
        if self.paused_since.is_some() {
            return None;
        }
        let late = self.late_ms(color, now)?;
        Some(now + self.policy.limit_ms.saturating_sub(late))
    }

    /// What a press or a stone of `color` at `now` means (`clock`: the game's clock, for
    /// what its base time holds and what it ran). Changes nothing: the event that says it
    /// ([`Arrivals::seated`], [`Arrivals::arrived`]) does.
    pub fn arrival(&self, color: Color, now: u64, clock: Option<&Clock>) -> Arrival {
        match self.seat(color) {
            Seat::Seated { .. } | Seat::Arrived { .. } => Arrival::Present,
            Seat::Expected => Arrival::CheckIn,
            Seat::Absent => {
                let late_ms = self.running_since_begin(now);
                let run = self.ran_while_away(color, now, clock);
                let base_left = clock.map_or(0, |c| c.base_left(color, now));
                Arrival::Late {
                    late_ms,
                    deducted_ms: self.policy.deduction(late_ms, run, base_left),
                }
            }
        }
    }

    /// `color` checked in at `at` (before play began; after, an arrival is
    /// [`Arrivals::arrived`]).
    pub fn seated(&mut self, color: Color, at: u64) {
        if self.seat(color) == Seat::Expected {
            self.seats[color.index()] = Seat::Seated { at };
        }
    }

    /// `color` arrived at `at`, `late_ms` late, `deducted_ms` taken (`clock`: the game's,
    /// before the deduction, for what it ran while they were away).
    pub fn arrived(
        &mut self,
        color: Color,
        at: u64,
        late_ms: u64,
        deducted_ms: u64,
        clock: Option<&Clock>,
    ) {
        if !self.seat(color).is_present() {
            self.seats[color.index()] = Seat::Arrived {
                at,
                late_ms,
                deducted_ms,
                ran_ms: self.ran_while_away(color, at, clock),
            };
        }
    }

    /// What `color`'s clock ran between the start and `now`.
    fn ran_while_away(&self, color: Color, now: u64, clock: Option<&Clock>) -> u64 {
        clock.map_or(0, |c| {
            c.run_ms(color, now)
                .saturating_sub(self.run_at_begin[color.index()])
        })
    }

    /// The clocks at `at`: running (`paused` false) or standing still, with `clock` to note
    /// what each side's had run when play begins. The first time they run, play begins:
    /// whoever has not checked in is late from then on. Later, a pause stops the lateness
    /// and a resume lets it go on.
    pub fn clocks(&mut self, paused: bool, at: u64, clock: Option<&Clock>) {
        match (self.began, paused) {
            (None, true) => {}
            (None, false) => {
                self.began = Some(at);
                for c in [Color::Black, Color::White] {
                    if self.seat(c) == Seat::Expected {
                        self.seats[c.index()] = Seat::Absent;
                    }
                    self.run_at_begin[c.index()] = clock.map_or(0, |k| k.run_ms(c, at));
                }
            }
            (Some(_), true) => {
                if self.paused_since.is_none() {
                    self.paused_since = Some(at);
                }
            }
            (Some(_), false) => {
                if let Some(p) = self.paused_since.take() {
                    self.paused_ms += at.saturating_sub(p);
                }
            }
        }
    }

    /// The sides away whose lateness has reached the limit at `now` and is not reported yet.
    pub fn due(&self, now: u64) -> Vec<Color> {
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| !self.reported(c))
            .filter(|&c| self.late_ms(c, now).is_some_and(|l| self.policy.is_over(l)))
            .collect()
    }

    /// `color`'s loss by lateness has been reported (an `absent` alert): not again.
    pub fn report(&mut self, color: Color) {
        self.reported[color.index()] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TimeControl;
    use Color::{Black, White};

    const M: u64 = 60_000;

    fn double(limit: u64) -> LatePolicy {
        LatePolicy {
            limit_ms: limit,
            rule: LateRule::Double,
        }
    }

    #[test]
    fn the_articles_follow_the_limit_and_the_rule() {
        assert_eq!(LatePolicy::default().article(), "22.1");
        assert_eq!(double(LatePolicy::VENUE_TOGETHER_MS).article(), "22.2");
        let quick = LatePolicy {
            rule: LateRule::Byoyomi,
            ..LatePolicy::default()
        };
        assert_eq!(quick.article(), "22.4");
        assert_eq!(LateRule::parse("byoyomi"), Some(LateRule::Byoyomi));
        assert_eq!(LateRule::parse("triple"), None);
        assert_eq!(LateRule::Double.as_str(), "double");
    }

    #[test]
    fn the_limit_is_inclusive() {
        let p = LatePolicy::default();
        assert!(!p.is_over(60 * M - 1));
        assert!(p.is_over(60 * M));
        let p = double(LatePolicy::VENUE_TOGETHER_MS);
        assert!(!p.is_over(15 * M - 1));
        assert!(p.is_over(15 * M));
    }

    #[test]
    fn the_deduction_is_the_rest_of_twice_the_lateness_within_the_base_time() {
        let p = LatePolicy::default();
        // The late player's clock ran the whole time: the same again.
        assert_eq!(p.deduction(7 * M, 7 * M, 53 * M), 7 * M);
        // It ran only from the opponent's first move on: the rest of twice.
        assert_eq!(p.deduction(10 * M, 9 * M, 51 * M), 11 * M);
        // Never more than the base time left.
        assert_eq!(p.deduction(40 * M, 40 * M, 20 * M), 20 * M);
        let quick = LatePolicy {
            rule: LateRule::Byoyomi,
            ..p
        };
        assert_eq!(quick.deduction(7 * M, 7 * M, 0), 0);
    }

    #[test]
    fn lateness_counts_from_the_start_while_the_clocks_run() {
        let mut a = Arrivals::new(LatePolicy::default());
        let clock = Clock::new(TimeControl::parse("byoyomi 60m 5x30s").unwrap());
        a.seated(Black, 1_000);
        assert_eq!(a.arrival(Black, 2_000, Some(&clock)), Arrival::Present);
        assert_eq!(a.arrival(White, 2_000, Some(&clock)), Arrival::CheckIn);
        a.clocks(true, 5_000, Some(&clock));
        assert_eq!(a.began(), None, "a pause before the start is not the start");
        a.clocks(false, 10_000, Some(&clock));
        assert_eq!(a.seat(White), Seat::Absent);
        assert_eq!(a.late_ms(White, 10_000 + 3 * M), Some(3 * M));
        assert_eq!(a.late_ms(Black, 10_000 + 3 * M), None);
        // A pause of 5 minutes stops the count.
        a.clocks(true, 10_000 + 4 * M, Some(&clock));
        assert_eq!(a.late_ms(White, 10_000 + 9 * M), Some(4 * M));
        assert_eq!(a.limit_at(White, 10_000 + 9 * M), None);
        a.clocks(false, 10_000 + 9 * M, Some(&clock));
        assert_eq!(a.late_ms(White, 10_000 + 10 * M), Some(5 * M));
        assert_eq!(a.limit_at(White, 10_000 + 10 * M), Some(10_000 + 65 * M));
        assert!(a.due(10_000 + 65 * M - 1).is_empty());
        assert_eq!(a.due(10_000 + 65 * M), vec![White]);
        a.report(White);
        assert!(a.due(10_000 + 70 * M).is_empty());
    }

    #[test]
    fn a_late_arrival_costs_twice_the_lateness_in_all() {
        let tc = TimeControl::parse("byoyomi 60m 5x30s").unwrap();
        let mut clock = Clock::new(tc);
        let mut a = Arrivals::new(LatePolicy::default());
        // Black (to move first) is away: Black's clock runs from the start.
        clock.start(Black, 0);
        a.clocks(false, 0, Some(&clock));
        let at = 7 * M + 12_000;
        let Arrival::Late {
            late_ms,
            deducted_ms,
        } = a.arrival(Black, at, Some(&clock))
        else {
            panic!("not late");
        };
        assert_eq!((late_ms, deducted_ms), (at, at));
        assert_eq!(clock.deduct(Black, deducted_ms, at), at);
        assert_eq!(clock.remaining(Black, at), 60 * M - 2 * at);
        a.arrived(Black, at, late_ms, deducted_ms, Some(&clock));
        assert!(
            matches!(a.seat(Black), Seat::Arrived { ran_ms, deducted_ms: d, .. } if ran_ms + d == 2 * at)
        );
        assert_eq!(a.arrival(Black, at + 1, Some(&clock)), Arrival::Present);
        assert_eq!(a.late_ms(Black, at + 1), None);
    }

    #[test]
    fn the_second_mover_late_pays_the_rest_of_twice() {
        let tc = TimeControl::parse("absolute 60m").unwrap();
        let mut clock = Clock::new(tc);
        let mut a = Arrivals::new(LatePolicy::default());
        clock.start(Black, 0);
        a.seated(Black, 0);
        a.clocks(false, 0, Some(&clock));
        // Black plays at 1 minute: White's clock runs while White is away.
        clock.press(Black, M);
        let Arrival::Late {
            late_ms,
            deducted_ms,
        } = a.arrival(White, 10 * M, Some(&clock))
        else {
            panic!("not late");
        };
        assert_eq!(late_ms, 10 * M);
        assert_eq!(
            deducted_ms,
            11 * M,
            "9 minutes ran, 11 more taken: 20 in all"
        );
        clock.deduct(White, deducted_ms, 10 * M);
        assert_eq!(clock.remaining(White, 10 * M), 40 * M);
    }

    #[test]
    fn a_deduction_to_nothing_begins_the_overtime_or_is_a_time_out() {
        let mut clock = Clock::new(TimeControl::parse("byoyomi 10m 3x30s").unwrap());
        clock.start(Black, 0);
        assert_eq!(clock.deduct(White, 30 * M, 0), 10 * M);
        assert!(clock.in_overtime(White));
        assert_eq!(clock.remaining(White, 0), 30_000);
        assert_eq!(clock.periods_left(White), 3);
        assert_eq!(clock.deduct(White, M, 0), 0, "never from the periods");
        let mut clock = Clock::new(TimeControl::parse("absolute 10m").unwrap());
        clock.start(Black, 0);
        clock.deduct(White, 30 * M, 1_000);
        assert_eq!(clock.flagged(), Some(White));
        assert_eq!(
            clock.tick(1_000),
            vec![crate::clock::ClockEvent::Flag { color: White }]
        );
    }

    #[test]
    fn under_22_4_the_absent_clock_counts_byoyomi_and_nothing_is_taken() {
        let quick = LatePolicy {
            rule: LateRule::Byoyomi,
            ..LatePolicy::default()
        };
        let mut clock = Clock::new(TimeControl::parse("byoyomi 0s 3x30s").unwrap());
        let mut a = Arrivals::new(quick);
        clock.start(Black, 0);
        a.clocks(false, 0, Some(&clock));
        // Black away: the periods are used one by one.
        let calls = clock.tick(65_000);
        assert!(calls.iter().any(|c| matches!(
            c,
            crate::clock::ClockEvent::Call {
                call: crate::clock::Call::MinuteUsed,
                periods_left: 1,
                ..
            }
        )));
        assert_eq!(
            a.arrival(Black, 65_000, Some(&clock)),
            Arrival::Late {
                late_ms: 65_000,
                deducted_ms: 0
            }
        );
        // Still away when the last period runs out: the flag falls (the referee rules it a
        // loss by absence).
        let out = clock.tick(90_000);
        assert!(out.contains(&crate::clock::ClockEvent::Flag { color: Black }));
        assert!(a.is_absent(Black));
    }

    #[test]
    fn late_after_a_pause_is_only_the_clock_running() {
        let mut clock = Clock::new(TimeControl::parse("absolute 60m").unwrap());
        let mut a = Arrivals::new(LatePolicy::default());
        a.seated(Black, 0);
        a.seated(White, 0);
        clock.start(Black, 0);
        a.clocks(false, 0, Some(&clock));
        clock.pause(30 * M);
        a.clocks(true, 30 * M, Some(&clock));
        clock.resume(90 * M);
        a.clocks(false, 90 * M, Some(&clock));
        // Black does not come back for 20 minutes: the clock runs, nothing else.
        assert_eq!(a.late_ms(Black, 110 * M), None);
        assert_eq!(a.arrival(Black, 110 * M, Some(&clock)), Arrival::Present);
        assert!(a.due(200 * M).is_empty());
        assert_eq!(clock.remaining(Black, 110 * M), 10 * M);
    }

    #[test]
    fn both_away_are_each_dealt_with_down_to_both_losing() {
        let mut clock = Clock::new(TimeControl::parse("byoyomi 90m 5x30s").unwrap());
        let mut a = Arrivals::new(double(LatePolicy::VENUE_TOGETHER_MS));
        clock.start(Black, 0);
        a.clocks(false, 0, Some(&clock));
        assert_eq!(a.due(15 * M), vec![Black, White]);
        // One arrives in time, the other does not.
        let mut b = a.clone();
        let Arrival::Late { deducted_ms, .. } = b.arrival(White, 5 * M, Some(&clock)) else {
            panic!("not late");
        };
        assert_eq!(deducted_ms, 10 * M, "White's clock never ran");
        b.arrived(White, 5 * M, 5 * M, deducted_ms, Some(&clock));
        assert_eq!(b.due(15 * M), vec![Black]);
    }
}
