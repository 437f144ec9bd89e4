//! The wire contract's `state` snapshot: the game info, the position, whose turn, the clocks now,
//! warnings, open alerts, the result and the last `seq`, in one JSON object.

use serde::{Deserialize, Serialize};
use tengen_rules::clock::{Arrivals, Clock, Seat, TimeControl};
use tengen_rules::{Color, Superko};

use super::{GameView, Phase};
use crate::event::{ClockReading, ClockStart, Event, PerColor, Rules};
use crate::time::Timestamp;

/// The clocks as they read at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClocksNow {
    /// Black's ms left in the current period (main time while still in it).
    #[serde(rename = "B")]
    pub black: u64,
    /// White's ms left.
    #[serde(rename = "W")]
    pub white: u64,
    /// Byo-yomi periods (or Canadian stones) left.
    pub periods: PerColor<u32>,
    /// Whose clock runs (null before the start, after a flag, and at the end).
    pub running: Option<Color>,
    /// True while paused (an arbiter's pause, or a restart until the arbiter resumes).
    pub paused: bool,
    /// While a new game waits to begin (paused too): what it waits for, `"arbiter"` (the
    /// arbiter's `resume`) or `"white"` (that, or the first press of the side that does
    /// not move first). Absent once the clocks have run (and in a `clock` event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<ClockStart>,
}

impl ClocksNow {
    /// `clock` read at `now`.
    pub fn read(clock: &Clock, now: Timestamp) -> ClocksNow {
        let now = now.millis();
        ClocksNow {
            black: clock.remaining(Color::Black, now),
            white: clock.remaining(Color::White, now),
            periods: PerColor::new(
                clock.periods_left(Color::Black),
                clock.periods_left(Color::White),
            ),
            running: clock.running(),
            paused: clock.is_paused(),
            waiting: None,
        }
    }

    /// This reading as a `clock` event carries it (`color`: who pressed, if anyone).
    pub fn as_event_reading(self, color: Option<Color>) -> ClockReading {
        ClockReading {
            color,
            black: self.black,
            white: self.white,
            periods: self.periods,
            running: self.running,
            paused: Some(self.paused),
        }
    }

    /// The ms left for `color`.
    pub fn left(&self, color: Color) -> u64 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }
}

/// Who is seated and who is late (Art. 22), as the `state` snapshot gives it for a game
/// whose players check in: `{"late_limit_s":3600,"late_rule":"double","began":null,
/// "B":{"state":"seated","at":"..."},"W":{"state":"expected"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatsNow {
    /// The lateness limit, in seconds.
    pub late_limit_s: u32,
    /// `"double"` or `"byoyomi"`.
    pub late_rule: String,
    /// When play began (lateness counts from then), or null while the game waits.
    pub began: Option<Timestamp>,
    /// Each player.
    #[serde(flatten)]
    pub seats: PerColor<SeatNow>,
}

/// One player's seat at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatNow {
    /// `"expected"` (not checked in, play not begun), `"seated"` (checked in before play
    /// began), `"absent"` (not seated when play began, not arrived yet), `"arrived"` (late).
    pub state: SeatState,
    /// When they checked in or arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
    /// How late: now while absent, on arrival once arrived (ms of running time since play
    /// began).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_ms: Option<u64>,
    /// Once arrived: what was taken from their base time on arrival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deducted_ms: Option<u64>,
    /// Once arrived: all their lateness cost them, what their clock ran while they were away
    /// and `deducted_ms` (twice the lateness under `double`, unless the base time ran short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken_ms: Option<u64>,
    /// True once the board raised `absent` for them (still away at the limit).
    #[serde(default, skip_serializing_if = "crate::event::is_false")]
    pub defaulted: bool,
}

/// Where a player is ([`SeatNow::state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatState {
    /// Not checked in, play not begun.
    Expected,
    /// Checked in before play began.
    Seated,
    /// Away since play began.
    Absent,
    /// Arrived late.
    Arrived,
}

impl SeatsNow {
    /// `arrivals` read at `now`.
    pub fn read(arrivals: &Arrivals, now: Timestamp) -> SeatsNow {
        let policy = arrivals.policy();
        let one = |c: Color| {
            let mut seat = SeatNow {
                state: SeatState::Expected,
                at: None,
                late_ms: None,
                deducted_ms: None,
                taken_ms: None,
                defaulted: arrivals.reported(c),
            };
            match arrivals.seat(c) {
                Seat::Expected => {}
                Seat::Seated { at } => {
                    seat.state = SeatState::Seated;
                    seat.at = Some(Timestamp::from_millis(at));
                }
                Seat::Absent => {
                    seat.state = SeatState::Absent;
                    seat.late_ms = arrivals.late_ms(c, now.millis());
                }
                Seat::Arrived {
                    at,
                    late_ms,
                    deducted_ms,
                    ran_ms,
                } => {
                    seat.state = SeatState::Arrived;
                    seat.at = Some(Timestamp::from_millis(at));
                    seat.late_ms = Some(late_ms);
                    seat.deducted_ms = Some(deducted_ms);
                    seat.taken_ms = Some(ran_ms.saturating_add(deducted_ms));
                }
            }
            seat
        };
        SeatsNow {
            late_limit_s: u32::try_from(policy.limit_ms / 1_000).unwrap_or(u32::MAX),
            late_rule: policy.rule.as_str().to_string(),
            began: arrivals.began().map(Timestamp::from_millis),
            seats: PerColor::new(one(Color::Black), one(Color::White)),
        }
    }
}

fn phase_word<S: serde::Serializer>(p: &Phase, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.as_str())
}

fn phase_from<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Phase, D::Error> {
    let text = String::deserialize(d)?;
    match text.as_str() {
        "playing" => Ok(Phase::Playing),
        "counting" => Ok(Phase::Counting),
        "over" => Ok(Phase::Over),
        _ => Err(serde::de::Error::custom(format!("{text:?} is not a phase"))),
    }
}

/// The `state` snapshot (docs/mqtt-http.md: MQTT `.../state`, HTTP `/api/state`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateSnapshot {
    /// Board size.
    pub size: u8,
    /// Komi in points.
    pub komi: f64,
    /// Handicap stones.
    pub handicap: u8,
    /// `"chinese"`.
    pub rules: Rules,
    /// `"situational"` or `"positional"`.
    #[serde(with = "crate::event::superko")]
    pub superko: Superko,
    /// The time control, in the script form.
    #[serde(with = "crate::event::time_control")]
    pub time_control: TimeControl,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// Round.
    pub round: String,
    /// Table.
    pub table: String,
    /// Black's rank, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_rank: Option<String>,
    /// White's rank, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_rank: Option<String>,
    /// The event's name, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Where the game is played, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// `"playing"`, `"counting"` or `"over"`.
    #[serde(serialize_with = "phase_word", deserialize_with = "phase_from")]
    pub phase: Phase,
    /// size*size characters, `.` empty, `X` black, `O` white, rows from the top down.
    pub board: String,
    /// Whose move it is in the record.
    pub to_move: Color,
    /// Moves and passes played.
    pub number: u32,
    /// Stones each side has captured.
    pub captured: PerColor<u32>,
    /// The clocks now, or null without a clock.
    pub clocks: Option<ClocksNow>,
    /// Warnings given in this game.
    pub warnings: PerColor<u32>,
    /// The open alerts (each an `alert` event without its envelope); always empty in the
    /// public (delayed) view.
    pub alerts: Vec<Event>,
    /// The result once the game is over.
    pub result: Option<String>,
    /// The last `seq` applied.
    pub seq: u64,
    /// The board's id.
    pub board_id: String,
    /// The game's id.
    pub game_id: String,
    /// True once an arbiter voided the game (`game_voided`): over, with no result, and
    /// shown to no one but the arbiters. Absent (false) otherwise.
    #[serde(default, skip_serializing_if = "crate::event::is_false")]
    pub voided: bool,
    /// Who is seated and who is late, in a game whose players check in (Art. 22); absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<SeatsNow>,
    /// Why the game ended, once it is over (`count`, `resignation`, `absent`...). Absent
    /// before the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<crate::event::EndReason>,
}

impl GameView {
    /// The `state` snapshot as of `now` (the running clock counted down to `now`), with
    /// the open alerts; `None` before any `game_started`.
    pub fn snapshot(&self, now: Timestamp) -> Option<StateSnapshot> {
        let setup = self.setup()?;
        let game = self.game()?;
        Some(StateSnapshot {
            size: setup.size,
            komi: setup.komi,
            handicap: setup.handicap,
            rules: setup.rules,
            superko: setup.superko,
            time_control: setup.time_control,
            black: setup.black.clone(),
            white: setup.white.clone(),
            round: setup.round.clone(),
            table: setup.table.clone(),
            black_rank: setup.black_rank.clone(),
            white_rank: setup.white_rank.clone(),
            event: setup.event.clone(),
            place: setup.place.clone(),
            phase: self.phase(),
            board: game.board().to_rows(),
            to_move: game.to_move(),
            number: game.move_number(),
            captured: PerColor::new(game.prisoners(Color::Black), game.prisoners(Color::White)),
            clocks: self.clocks_at(now),
            warnings: self.warnings(),
            alerts: self.open_alerts().cloned().map(Event::Alert).collect(),
            result: self.result().map(str::to_string),
            seq: self.seq(),
            board_id: self.board_id().to_string(),
            game_id: self.game_id().to_string(),
            voided: self.voided(),
            seats: self.arrivals().map(|a| SeatsNow::read(a, now)),
            end_reason: self.end_reason(),
        })
    }

    /// The snapshot the public sees: [`GameView::snapshot`] without alerts; none for a
    /// void game (it leaves every public view).
    pub fn public_snapshot(&self, now: Timestamp) -> Option<StateSnapshot> {
        if self.voided() {
            return None;
        }
        let mut s = self.snapshot(now)?;
        s.alerts.clear();
        Some(s)
    }
}

impl StateSnapshot {
    /// As JSON.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}
