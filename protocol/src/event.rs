//! The wire contract's events: what the referee, the clock and the service say, one JSON object each,
//! in the envelope `{"seq","time","board","game","type",...}`.
//!
//! Every field is typed (points, colours, times, codes, kinds, calls, reasons); the JSON is
//! exactly the wire contract's, field for field and in the same order, so an event read from a
//! journal written by an older tengen and written again is the same bytes. Fields added
//! since (`paused` on `clock`, the ranks and `event` on `game_started`) are left out of the
//! JSON when an older event did not carry them.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tengen_rules::clock::{Call, LatePolicy, LateRule, TimeControl};
use tengen_rules::{Color, Point, Superko};

use crate::gtp;
use crate::time::Timestamp;

/// A value for each colour, written `{"B":..,"W":..}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PerColor<T> {
    /// Black's value.
    #[serde(rename = "B")]
    pub black: T,
    /// White's value.
    #[serde(rename = "W")]
    pub white: T,
}

impl<T: Copy> PerColor<T> {
    /// Both values.
    pub const fn new(black: T, white: T) -> PerColor<T> {
        PerColor { black, white }
    }

    /// The value for `color`.
    pub fn get(&self, color: Color) -> T {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// The value for `color`, to change.
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }
}

/// One event with its envelope. `seq` and `time` are set by the journal when the event is
/// written; `board` and `game` name where it happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// 1, 2, 3... per board, across games and restarts.
    pub seq: u64,
    /// When it happened (UTC with milliseconds).
    pub time: Timestamp,
    /// The board id (`hall1-07`).
    pub board: String,
    /// The game id (`r3-t07`).
    pub game: String,
    /// Who caused it, for events that answer an arbiter's command (the command's `by`);
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The event itself; its `type` tag is flattened into the envelope.
    #[serde(flatten)]
    pub event: Event,
}

impl Envelope {
    /// The envelope as one line of JSON (what the journal stores and MQTT carries).
    pub fn to_json(&self) -> String {
        // Every field serialises (strings, numbers, enums): this cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The body of an event; serialised with `"type": "<snake_case name>"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A new game is set up.
    GameStarted(GameSetup),
    /// A legal stone of the side to move, stable on the board.
    Move {
        /// Move number (handicap stones are not moves; the first move is 1).
        number: u32,
        /// Who played.
        color: Color,
        /// Where.
        #[serde(with = "gtp::point")]
        point: Point,
        /// What the rules remove, sorted.
        #[serde(with = "gtp::points")]
        captured: Vec<Point>,
        /// Time left on both clocks after the move, or null without a clock.
        clock: Option<PerColor<u64>>,
    },
    /// A clock press with no stone placed.
    Pass {
        /// Move number of the pass.
        number: u32,
        /// Who passed.
        color: Color,
    },
    /// A published move or pass withdrawn: the move with this number, and only it, leaves
    /// the record.
    MoveRetracted {
        /// The number of the move withdrawn.
        number: u32,
        /// Why.
        reason: RetractReason,
    },
    /// A player said they are seated: their clock press (or their first stone) while the
    /// game waits for play to begin (Art. 22: the board knows who is there). Never a clock
    /// press. Added by tengen beyond its first contract.
    CheckedIn {
        /// Who.
        color: Color,
    },
    /// A player not seated when play began arrived (their press or their first stone):
    /// how late (the time the clocks ran since play began) and what was taken from their
    /// base time at once (Art. 22.1, 22.2: twice the lateness in all, their clock having
    /// run for part of it; 0 under Art. 22.4). A `clock` event with the clocks after it
    /// follows. Added by tengen beyond its first contract.
    LateArrival {
        /// Who.
        color: Color,
        /// How late, in ms of running time since play began.
        late_ms: u64,
        /// Taken from their base time now, in ms.
        deducted_ms: u64,
    },
    /// A clock press, pause, resume or adjustment: the clocks as they stand after it.
    Clock(ClockReading),
    /// A counting call of Art. 12.3.
    Byoyomi {
        /// Whose clock.
        color: Color,
        /// `"30"`, `"40"`, `"50"`, `"55"`, `"58"`, `"minute_used"`, `"1"`..`"10"`.
        #[serde(with = "call")]
        call: Call,
        /// Periods left.
        periods_left: u32,
    },
    /// A violation or a doubt, for the arbiter.
    Alert(Alert),
    /// An alert closed.
    AlertCleared {
        /// The alert's id.
        id: String,
        /// How.
        how: ClearedHow,
        /// With `restored`: the violation carries a warning (Art. 17.2-17.4, 18.1-18.3,
        /// 22.6) that no arbiter has decided yet, so the alert stays open for the arbiters
        /// as *restored, warning pending* until a `confirm` (the warning) or a `dismiss`
        /// (none); it no longer covers its points. Added by tengen beyond its first contract; absent
        /// (false) otherwise.
        #[serde(default, skip_serializing_if = "is_false")]
        warning_pending: bool,
    },
    /// A penalty (Art. 24) confirmed.
    Warning {
        /// The side penalised.
        color: Color,
        /// The article violated.
        article: String,
        /// That side's warnings in this game.
        count: u32,
    },
    /// Both passed and counting began, or dead stones were confirmed.
    Counting {
        /// The points lifted as dead, sorted.
        #[serde(with = "gtp::points")]
        dead: Vec<Point>,
    },
    /// Play goes on after counting began (Art. 21.4: the players disagree on life and
    /// death; the arbiter's `resume_play`). Added by tengen beyond its first contract.
    PlayResumed {
        /// Who moves first.
        color: Color,
    },
    /// The game ended.
    GameOver(GameEnd),
    /// A finished game is taken up again on an arbiter's `reopen` (added by tengen beyond
    /// The wire contract's list): no result until the next `game_over`, the clocks paused, the game
    /// back in `phase`.
    GameReopened {
        /// The result it had (SGF form).
        previous_result: String,
        /// Why, in the arbiter's words (null when not given).
        reason: Option<String>,
        /// Where the game is now: `"counting"` after a counted result, else `"playing"`.
        phase: ReopenedPhase,
    },
    /// A warning an arbiter gives on their own finding (`give_warning`), not through an
    /// alert: a violation seen at the table, or found after the board was put right. It
    /// counts toward Art. 24 as any warning; `withdraw_warning` takes it back.
    WarningGiven {
        /// The side penalised.
        color: Color,
        /// The article violated (`"17.2"`).
        article: String,
        /// Why, in the arbiter's words (null when not given).
        reason: Option<String>,
        /// That side's warnings in this game, this one included.
        count: u32,
    },
    /// The game is void (an arbiter's `void_game`: a game started by mistake, at the wrong
    /// table or with the wrong players): it is over with no result, the board is free for
    /// the next `new_game`, and a void game leaves every public view. Nothing of it counts.
    GameVoided {
        /// Why, in the arbiter's words (null when not given).
        reason: Option<String>,
    },
    /// A warning given by mistake taken back on an arbiter's `withdraw_warning` (added by
    /// tengen beyond its first contract).
    WarningWithdrawn {
        /// Whose warning.
        color: Color,
        /// That side's warnings left in this game.
        count: u32,
        /// Why, in the arbiter's words (null when not given).
        reason: Option<String>,
    },
    /// Hardware trouble, kept apart from rule alerts.
    SensorFault {
        /// Points involved (empty for link events).
        #[serde(with = "gtp::points")]
        points: Vec<Point>,
        /// What kind of trouble.
        kind: FaultKind,
    },
    /// Service state.
    Status {
        /// `"online"`, `"offline"`, `"restoring"`.
        state: BoardState,
        /// The tengen version.
        version: String,
        /// With `restoring`: the board's last sign of life before it went off (added by
        /// tengen beyond its first contract: the clocks stand as they were then).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        off_since: Option<Timestamp>,
    },
}

impl Event {
    /// The `type` tag (`"move"`, `"alert_cleared"`...).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::GameStarted(_) => "game_started",
            Event::Move { .. } => "move",
            Event::Pass { .. } => "pass",
            Event::MoveRetracted { .. } => "move_retracted",
            Event::CheckedIn { .. } => "checked_in",
            Event::LateArrival { .. } => "late_arrival",
            Event::Clock(_) => "clock",
            Event::Byoyomi { .. } => "byoyomi",
            Event::Alert(_) => "alert",
            Event::AlertCleared { .. } => "alert_cleared",
            Event::Warning { .. } => "warning",
            Event::Counting { .. } => "counting",
            Event::PlayResumed { .. } => "play_resumed",
            Event::GameOver(_) => "game_over",
            Event::GameReopened { .. } => "game_reopened",
            Event::WarningWithdrawn { .. } => "warning_withdrawn",
            Event::WarningGiven { .. } => "warning_given",
            Event::GameVoided { .. } => "game_voided",
            Event::SensorFault { .. } => "sensor_fault",
            Event::Status { .. } => "status",
        }
    }

    /// True for what only arbiters see: alerts and their clearing, hardware faults. The
    /// public (broadcast) stream never carries them.
    pub fn is_private(&self) -> bool {
        matches!(
            self,
            Event::Alert(_) | Event::AlertCleared { .. } | Event::SensorFault { .. }
        )
    }

    /// True for what goes to `.../alerts` too: `alert`, `alert_cleared`, `warning`.
    pub fn is_for_arbiters(&self) -> bool {
        type_is_for_arbiters(self.kind())
    }

    /// `alert_cleared` of alert `id`, `how`, with no warning pending.
    pub fn cleared(id: impl Into<String>, how: ClearedHow) -> Event {
        Event::AlertCleared {
            id: id.into(),
            how,
            warning_pending: false,
        }
    }

    /// A `status` event of this build (`version`).
    pub fn status(state: BoardState, version: &str) -> Event {
        Event::Status {
            state,
            version: version.to_string(),
            off_since: None,
        }
    }
}

/// True for the event types that go to `.../alerts` too (`alert`, `alert_cleared`,
/// `warning`: the wire contract's list, exactly; `warning_given` and `warning_withdrawn` go on
/// `events` only, and `state`'s `warnings` counts them), by their `type` tag: for readers
/// of raw events.
pub fn type_is_for_arbiters(kind: &str) -> bool {
    matches!(kind, "alert" | "alert_cleared" | "warning")
}

/// For `skip_serializing_if`: leaves a false flag out of the JSON.
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

/// The rules a game is played under; only the Chinese competition rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// `"chinese"`.
    #[default]
    Chinese,
}

/// The setup of a game, as `game_started` announces it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameSetup {
    /// Board size.
    pub size: u8,
    /// Komi in points.
    pub komi: f64,
    /// Number of handicap stones (0 = even game).
    pub handicap: u8,
    /// Always `"chinese"`.
    pub rules: Rules,
    /// `"situational"` or `"positional"`.
    #[serde(with = "superko")]
    pub superko: Superko,
    /// The time control in the wire contract's script form (`"byoyomi 60m 5x60s"`, `"none"`).
    #[serde(with = "time_control")]
    pub time_control: TimeControl,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// Round, as the organiser names it.
    pub round: String,
    /// Table number or name.
    pub table: String,
    /// Black's rank (`"4k"`, `"1d"`), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_rank: Option<String>,
    /// White's rank, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_rank: Option<String>,
    /// The event (tournament) name, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Where the game is played (the tournament's location; SGF `PC`), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// How the game's clocks begin (`game.clock_start`): `"arbiter"` or `"white"` while
    /// the game waits with both clocks stopped for the arbiter's `resume` (or, with
    /// `"white"`, the first press of the side that does not move first); absent for
    /// `"now"`, the clocks running from `game_started` on (as before this field existed).
    #[serde(default, skip_serializing_if = "ClockStart::is_now")]
    pub clock_start: ClockStart,
    /// How penalties are given in this game, when the `new_game` that set it up said
    /// (a round's setting sent from the hall); absent: the board's `game.penalties`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penalties: Option<Penalties>,
    /// The lateness limit in seconds (`game.late_limit_s`, Art. 22.1: 3600; 22.2: 900), for
    /// a game that waits for play to begin with a clock: its players check in, and whoever
    /// is not seated when play begins is late. Absent: no check-in (`clock_start` `now`, no
    /// clock, or a journal older than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_limit_s: Option<u32>,
    /// What a late arrival costs (`game.late_rule`): `"double"` (Art. 22.1, 22.2) or
    /// `"byoyomi"` (Art. 22.4); with `late_limit_s`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "late_rule_word"
    )]
    pub late_rule: Option<LateRule>,
}

impl GameSetup {
    /// The game's rule for lateness, when its players check in (`late_limit_s` given).
    pub fn late_policy(&self) -> Option<LatePolicy> {
        let limit = self.late_limit_s?;
        Some(LatePolicy {
            limit_ms: u64::from(limit) * 1_000,
            rule: self.late_rule.unwrap_or_default(),
        })
    }
}

/// Serde for an optional [`LateRule`] as its word.
mod late_rule_word {
    use serde::{Deserialize, Deserializer, Serializer};
    use tengen_rules::clock::LateRule;

    pub(super) fn serialize<S: Serializer>(r: &Option<LateRule>, s: S) -> Result<S::Ok, S::Error> {
        match r {
            Some(r) => s.serialize_str(r.as_str()),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<LateRule>, D::Error> {
        let text = Option::<std::borrow::Cow<'_, str>>::deserialize(d)?;
        text.map(|t| {
            LateRule::parse(&t)
                .ok_or_else(|| serde::de::Error::custom(format!("{t:?} is not double or byoyomi")))
        })
        .transpose()
    }
}

/// How penalties (Art. 24) are given in a game (`game.penalties`, and `game_started`'s
/// and `new_game`'s `penalties`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Penalties {
    /// `"arbiter"`: an arbiter's `confirm` (or `give_warning`) gives the warning; a
    /// violation put right stays open as *restored, warning pending* until one decides.
    #[default]
    Arbiter,
    /// `"auto"`: penalised alerts give their warning at once.
    Auto,
}

impl Penalties {
    /// `arbiter` or `auto`, as the config writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Penalties::Arbiter => "arbiter",
            Penalties::Auto => "auto",
        }
    }

    /// Reads `arbiter` or `auto`.
    pub fn parse(text: &str) -> Option<Penalties> {
        match text {
            "arbiter" => Some(Penalties::Arbiter),
            "auto" => Some(Penalties::Auto),
            _ => None,
        }
    }
}

/// How a new game's clocks begin (`game.clock_start`, and `game_started`'s
/// `clock_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockStart {
    /// `"now"`: the clock of the side to move runs from `game_started` on.
    #[default]
    Now,
    /// `"arbiter"`: both clocks stay stopped (paused) until an arbiter's `resume`.
    Arbiter,
    /// `"white"`: as `arbiter`, and also the press of the side that does not move first
    /// (White in an even game, Black in a handicap game) starts the other side's clock.
    White,
}

impl ClockStart {
    /// `now`, `arbiter` or `white`, as the config writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ClockStart::Now => "now",
            ClockStart::Arbiter => "arbiter",
            ClockStart::White => "white",
        }
    }

    /// Reads `now`, `arbiter` or `white`.
    pub fn parse(text: &str) -> Option<ClockStart> {
        match text {
            "now" => Some(ClockStart::Now),
            "arbiter" => Some(ClockStart::Arbiter),
            "white" => Some(ClockStart::White),
            _ => None,
        }
    }

    /// True for [`ClockStart::Now`] (which `game_started` leaves out).
    pub fn is_now(&self) -> bool {
        *self == ClockStart::Now
    }
}

impl Default for GameSetup {
    /// The wire contract's defaults: 19x19, komi 7.5, no handicap, situational superko, no clock.
    fn default() -> GameSetup {
        GameSetup {
            size: 19,
            komi: 7.5,
            handicap: 0,
            rules: Rules::Chinese,
            superko: Superko::Situational,
            time_control: TimeControl::None,
            black: String::new(),
            white: String::new(),
            round: String::new(),
            table: String::new(),
            black_rank: None,
            white_rank: None,
            event: None,
            place: None,
            clock_start: ClockStart::Now,
            penalties: None,
            late_limit_s: None,
            late_rule: None,
        }
    }
}

/// The clocks as a `clock` event shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockReading {
    /// Who pressed (null for an arbiter action or the start of the game).
    pub color: Option<Color>,
    /// Black's ms left in the current period (main time while still in it).
    #[serde(rename = "B")]
    pub black: u64,
    /// White's ms left in the current period.
    #[serde(rename = "W")]
    pub white: u64,
    /// Byo-yomi periods (or Canadian stones) left.
    pub periods: PerColor<u32>,
    /// Whose clock runs, or null.
    pub running: Option<Color>,
    /// True while an arbiter's pause (or a restart) holds both clocks. Every event tengen
    /// writes has it; events written before it existed do not (read as "not known").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
}

impl ClockReading {
    /// The ms left for `color`.
    pub fn left(&self, color: Color) -> u64 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }
}

/// A violation or a doubt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alert {
    /// Unique per board (e.g. `"a12"`).
    pub id: String,
    /// What it is.
    pub code: AlertCode,
    /// The article of docs/rules.md (`"18.2"`).
    pub article: String,
    /// Offending side, or null.
    pub color: Option<Color>,
    /// The points involved, sorted.
    #[serde(with = "gtp::points")]
    pub points: Vec<Point>,
    /// What the board should show at those points.
    pub expected: Expected,
    /// One readable English sentence.
    pub message: String,
    /// With `absent`: how late the player (or both) was when the alert was raised, in ms
    /// of running time since play began. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_ms: Option<u64>,
}

impl Alert {
    /// True for alerts about the board's contents, which clear when the board matches.
    pub fn is_board_alert(&self) -> bool {
        !self.expected.is_empty()
    }
}

/// What the board should show at some points: `{"D4":"B","E5":"empty"}`. Written with the
/// points in the order of their GTP strings (as a JSON object sorted by key).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expected(Vec<(Point, Option<Color>)>);

impl Expected {
    /// The points and what each should hold (`None`: empty).
    pub fn new(mut points: Vec<(Point, Option<Color>)>) -> Expected {
        points.sort_by_key(|(p, _)| *p);
        points.dedup_by_key(|(p, _)| *p);
        Expected(points)
    }

    /// Each point and what it should hold.
    pub fn iter(&self) -> impl Iterator<Item = (Point, Option<Color>)> + '_ {
        self.0.iter().copied()
    }

    /// True when there is nothing to restore.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Expected {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let map: BTreeMap<String, &str> = self
            .0
            .iter()
            .map(|(p, c)| (p.to_gtp(), c.map_or("empty", Color::letter)))
            .collect();
        map.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Expected {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Expected, D::Error> {
        let map = BTreeMap::<String, String>::deserialize(d)?;
        let mut points = Vec::with_capacity(map.len());
        for (k, v) in map {
            let p = gtp::parse(&k).map_err(D::Error::custom)?;
            let c =
                match v.as_str() {
                    "empty" => None,
                    other => Some(Color::parse(other).ok_or_else(|| {
                        D::Error::custom(format!("{other:?} is not B, W or empty"))
                    })?),
                };
            points.push((p, c));
        }
        Ok(Expected::new(points))
    }
}

/// How a game ended, as `game_over` says it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameEnd {
    /// SGF form: `"B+1.5"`, `"W+R"`, `"B+T"`, `"W+F"`, `"0"`, `"Void"`.
    pub result: String,
    /// Why the game ended.
    pub reason: EndReason,
    /// Black's area in stones, or null.
    pub black_area: Option<f64>,
    /// White's area in stones, or null.
    pub white_area: Option<f64>,
    /// Dame points, or null.
    pub dame: Option<u32>,
    /// Margin in stones (positive: the winner's), or null.
    pub margin_stones: Option<f64>,
    /// Margin in points, or null.
    pub margin_points: Option<f64>,
}

impl GameEnd {
    /// An end without a count (`result` and why).
    pub fn uncounted(result: impl Into<String>, reason: EndReason) -> GameEnd {
        GameEnd {
            result: result.into(),
            reason,
            black_area: None,
            white_area: None,
            dame: None,
            margin_stones: None,
            margin_points: None,
        }
    }
}

/// Declares a string enum: each variant and its JSON word, with `as_str`, `parse`,
/// `Display` and serde as that word.
macro_rules! words {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $word:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
        }

        impl $name {
            /// The word as events write it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)+
                }
            }

            /// Reads the word.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($word => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let text = std::borrow::Cow::<str>::deserialize(d)?;
                $name::parse(&text).ok_or_else(|| {
                    D::Error::custom(format!(
                        concat!("{:?} is not one of ", $(stringify!($word), " "),+),
                        text
                    ))
                })
            }
        }
    };
}

words! {
    /// The alert codes of docs/mqtt-http.md, and `board_restarted`, which tengen adds.
    AlertCode {
        /// Captured stones left on the board at the clock press (18.2, 22.6).
        UncapturedStones = "uncaptured_stones",
        /// A stone with liberties removed (18.1).
        WrongCapture = "wrong_capture",
        /// A stone on the board moved (17.5).
        StoneMoved = "stone_moved",
        /// The last move's stone picked up and played elsewhere (17.3).
        Takeback = "takeback",
        /// The same side played twice (17.2).
        DoubleMove = "double_move",
        /// Stones of the wrong colour (17.1).
        WrongColor = "wrong_color",
        /// A suicide (5, 19): the article is 19, which rules on it.
        Suicide = "suicide",
        /// An immediate ko recapture (18.3, 20.1).
        Ko = "ko",
        /// A whole-board repetition (6, 20): the article is 20, which rules on it.
        Superko = "superko",
        /// The clock pressed before the stone was placed (17.4).
        ClockBeforeMove = "clock_before_move",
        /// Many stones displaced at once (17.6).
        BoardDisturbed = "board_disturbed",
        /// A flag fell (12, 22.5): the article is the one that rules on the time-out under
        /// the game's time control ([`AlertCode::time_out_article`]).
        TimeExpired = "time_expired",
        /// A difference that fits none of the above.
        Mismatch = "mismatch",
        /// The board was off (power cut, crash, update) during a game: the clocks came
        /// back paused as they stood when it went down (22.8).
        BoardRestarted = "board_restarted",
        /// The board's storage (`storage.dir`) has less free space than `storage.low_mb`:
        /// it still records, but will not for long. Raised by the service, not the
        /// referee; no article, no colour, no points.
        StorageLow = "storage_low",
        /// The board's storage is full: an event could not be written. The game goes on;
        /// events wait in memory until space is freed. Raised by the service.
        StorageFull = "storage_full",
        /// A player (or both: no colour) not seated when play began is still away at the
        /// lateness limit, or their clock ran out while away under Art. 22.4: they have lost
        /// the game by default (Art. 22.1-22.4). `late_ms` says how late.
        Absent = "absent",
    }
}

impl AlertCode {
    /// The article that rules on the code (its `alert`'s `article`): where a violation is
    /// defined in one article and ruled on in another (a forbidden point, Art. 5 and 19),
    /// the ruling one. A time-out's depends on the time control: see
    /// [`AlertCode::time_out_article`]; this gives `12`, the article of time itself.
    pub fn article(self) -> &'static str {
        match self {
            AlertCode::UncapturedStones => "18.2",
            AlertCode::WrongCapture => "18.1",
            AlertCode::StoneMoved => "17.5",
            AlertCode::Takeback => "17.3",
            AlertCode::DoubleMove => "17.2",
            AlertCode::WrongColor => "17.1",
            AlertCode::Suicide => "19",
            AlertCode::Ko => "18.3",
            AlertCode::Superko => "20",
            AlertCode::ClockBeforeMove => "17.4",
            AlertCode::BoardDisturbed => "17.6",
            AlertCode::TimeExpired => "12",
            AlertCode::Mismatch => "",
            AlertCode::BoardRestarted => "22.8",
            AlertCode::Absent => "22.1",
            AlertCode::StorageLow | AlertCode::StorageFull => "",
        }
    }

    /// The article that rules on a time-out under `tc`: `22.5` under byo-yomi (a time-out
    /// in the last period loses in principle, or on request counts as a forfeited turn);
    /// `12.4` under sudden death, and under Fischer, which like it has no byo-yomi (the
    /// time-out loses); `12.5` under Canadian periods (no forfeited turn: 22.5 is for
    /// byo-yomi); `12` without a clock.
    pub fn time_out_article(tc: &TimeControl) -> &'static str {
        match tc {
            TimeControl::Byoyomi { .. } => "22.5",
            TimeControl::Absolute { .. } | TimeControl::Fischer { .. } => "12.4",
            TimeControl::Canadian { .. } => "12.5",
            TimeControl::None => "12",
        }
    }
}

words! {
    /// How an alert was closed.
    ClearedHow {
        /// The board matches again.
        Restored = "restored",
        /// An arbiter found no violation.
        Dismissed = "dismissed",
        /// An arbiter confirmed the violation.
        Confirmed = "confirmed",
    }
}

words! {
    /// The kinds of hardware trouble.
    FaultKind {
        /// A sensor read between the bands for a long time.
        Stuck = "stuck",
        /// A sensor's reading changes too often.
        Noisy = "noisy",
        /// The sensors stopped answering (serial line or SPI).
        LinkLost = "link_lost",
        /// They answer again.
        LinkRestored = "link_restored",
        /// Scans of another board size arrive from the microcontroller and are dropped (once
        /// per run of them).
        WrongSize = "wrong_size",
    }
}

words! {
    /// The service's state in `status`.
    BoardState {
        /// Running.
        Online = "online",
        /// Stopped (also the MQTT last will).
        Offline = "offline",
        /// Started again and rebuilding its game from the journal.
        Restoring = "restoring",
    }
}

words! {
    /// Where a reopened game goes back to (`game_reopened`'s `phase`).
    ReopenedPhase {
        /// Play goes on.
        Playing = "playing",
        /// Counting (the result was counted): the dead stones are lifted and confirmed
        /// again.
        Counting = "counting",
    }
}

words! {
    /// Why a game ended.
    EndReason {
        /// Counted.
        Count = "count",
        /// A player resigned.
        Resignation = "resignation",
        /// A flag fell and the arbiter ruled the loss.
        Time = "time",
        /// Two warnings (Art. 24).
        Warnings = "warnings",
        /// The arbiter set the result.
        Arbiter = "arbiter",
        /// A player (or both) did not arrive within the lateness limit (Art. 22.1-22.4):
        /// a win by default (`B+F`, `W+F`), or both lose (`Void`). Not a penalty loss
        /// (Art. 24: `warnings`).
        Absent = "absent",
    }
}

/// Why a move was retracted: `"clock_before_move"` (a pass withdrawn because its player
/// set a stone down at once), or any other word or sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetractReason {
    /// The pass was a clock pressed before the stone (Art. 17.4).
    ClockBeforeMove,
    /// Anything else, as written.
    Other(String),
}

impl RetractReason {
    /// The reason as events write it.
    pub fn as_str(&self) -> &str {
        match self {
            RetractReason::ClockBeforeMove => "clock_before_move",
            RetractReason::Other(s) => s,
        }
    }
}

impl fmt::Display for RetractReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RetractReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RetractReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RetractReason, D::Error> {
        let text = String::deserialize(d)?;
        Ok(match text.as_str() {
            "clock_before_move" => RetractReason::ClockBeforeMove,
            _ => RetractReason::Other(text),
        })
    }
}

/// Serde for a byo-yomi [`Call`] as its word (`"30"`, `"minute_used"`, `"7"`).
pub mod call {
    use serde::{Deserialize, Deserializer, Serializer};
    use tengen_rules::clock::Call;

    /// Reads a call's word.
    pub fn parse(text: &str) -> Option<Call> {
        Some(match text {
            "30" => Call::S30,
            "40" => Call::S40,
            "50" => Call::S50,
            "55" => Call::S55,
            "58" => Call::S58,
            "minute_used" => Call::MinuteUsed,
            n => {
                let n: u8 = n.parse().ok()?;
                if !(1..=10).contains(&n) || n.to_string() != text {
                    return None;
                }
                Call::Count(n)
            }
        })
    }

    /// Writes the call's word.
    pub fn serialize<S: Serializer>(call: &Call, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(call.as_str())
    }

    /// Reads the call's word.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Call, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        parse(&text).ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a call")))
    }
}

/// Serde for [`Superko`] as `"situational"` / `"positional"`.
pub mod superko {
    use serde::{Deserialize, Deserializer, Serializer};
    use tengen_rules::Superko;

    /// Writes the rule's word.
    pub fn serialize<S: Serializer>(k: &Superko, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(k.as_str())
    }

    /// Reads the rule's word.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Superko, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        Superko::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!("{text:?} is not situational or positional"))
        })
    }
}

/// Serde for a [`TimeControl`] in the wire contract's script form (`"byoyomi 60m 5x60s"`).
pub mod time_control {
    use serde::{Deserialize, Deserializer, Serializer};
    use tengen_rules::clock::TimeControl;

    /// Writes the script form.
    pub fn serialize<S: Serializer>(tc: &TimeControl, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(tc)
    }

    /// Reads the script form.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        TimeControl::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(json: &str) {
        let e: Envelope = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_eq!(e.to_json(), json, "written back byte for byte");
    }

    #[test]
    fn every_event_type_reads_and_writes_the_same_bytes() {
        for json in [
            r#"{"seq":1,"time":"2026-11-29T13:45:01.250Z","board":"hall1-07","game":"r3-t07","type":"game_started","size":19,"komi":7.5,"handicap":0,"rules":"chinese","superko":"situational","time_control":"byoyomi 60m 5x60s","black":"Shusaku","white":"Gennan","round":"3","table":"7"}"#,
            r#"{"seq":2,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"game_started","size":9,"komi":0.5,"handicap":2,"rules":"chinese","superko":"positional","time_control":"none","black":"Vannier Luc","white":"Gao Chuande","round":"6","table":"12","black_rank":"4k","white_rank":"1d","event":"Open"}"#,
            r#"{"seq":17,"time":"2026-11-29T13:45:01.250Z","board":"hall1-07","game":"r3-t07","type":"move","number":37,"color":"W","point":"R14","captured":["Q14","Q15"],"clock":{"B":1000,"W":2000}}"#,
            r#"{"seq":3,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"move","number":1,"color":"B","point":"A10","captured":[],"clock":null}"#,
            r#"{"seq":4,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"pass","number":2,"color":"W"}"#,
            r#"{"seq":5,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"move_retracted","number":2,"reason":"clock_before_move"}"#,
            r#"{"seq":5,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"move_retracted","number":2,"reason":"the arbiter took it back"}"#,
            r#"{"seq":6,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"clock","color":"B","B":1000,"W":2000,"periods":{"B":5,"W":4},"running":"W"}"#,
            r#"{"seq":6,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"clock","color":null,"B":1000,"W":2000,"periods":{"B":5,"W":4},"running":"W","paused":true}"#,
            r#"{"seq":7,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"byoyomi","color":"W","call":"minute_used","periods_left":2}"#,
            r#"{"seq":7,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"byoyomi","color":"W","call":"10","periods_left":1}"#,
            r#"{"seq":8,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"alert","id":"a1","code":"uncaptured_stones","article":"18.2","color":"W","points":["D4","E5"],"expected":{"A10":"empty","A2":"B","D4":"W"},"message":"White pressed the clock with captured stones still on the board at D4, E5."}"#,
            r#"{"seq":9,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"alert","id":"a2","code":"mismatch","article":"","color":null,"points":[],"expected":{},"message":"x"}"#,
            r#"{"seq":10,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"alert_cleared","id":"a1","how":"confirmed"}"#,
            r#"{"seq":11,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"warning","color":"W","article":"18.2","count":1}"#,
            r#"{"seq":12,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"counting","dead":["C6","T6"]}"#,
            r#"{"seq":12,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"play_resumed","color":"B"}"#,
            r#"{"seq":13,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"game_over","result":"B+1.5","reason":"count","black_area":185.0,"white_area":176.0,"dame":0,"margin_stones":0.75,"margin_points":1.5}"#,
            r#"{"seq":13,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"game_over","result":"W+R","reason":"resignation","black_area":null,"white_area":null,"dame":null,"margin_stones":null,"margin_points":null}"#,
            r#"{"seq":14,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"game_reopened","previous_result":"W+F","reason":"the takeback alert was confirmed by mistake","phase":"playing"}"#,
            r#"{"seq":14,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"game_reopened","previous_result":"B+1.5","reason":null,"phase":"counting"}"#,
            r#"{"seq":15,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"warning_withdrawn","color":"B","count":1,"reason":"wrong card confirmed"}"#,
            r#"{"seq":15,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"warning_withdrawn","color":"W","count":0,"reason":null}"#,
            r#"{"seq":10,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"alert_cleared","id":"a1","how":"restored","warning_pending":true}"#,
            r#"{"seq":16,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"warning_given","color":"W","article":"17.3","reason":"took the stone back","count":1}"#,
            r#"{"seq":16,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"game_voided","reason":null}"#,
            r#"{"seq":2,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"game_started","size":9,"komi":0.5,"handicap":0,"rules":"chinese","superko":"situational","time_control":"none","black":"A","white":"B","round":"1","table":"1","clock_start":"arbiter","penalties":"auto"}"#,
            r#"{"seq":14,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"sensor_fault","points":["K10"],"kind":"stuck"}"#,
            r#"{"seq":2,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"game_started","size":19,"komi":7.5,"handicap":0,"rules":"chinese","superko":"situational","time_control":"byoyomi 60m 5x30s","black":"A","white":"B","round":"1","table":"1","clock_start":"arbiter","late_limit_s":900,"late_rule":"byoyomi"}"#,
            r#"{"seq":3,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"checked_in","color":"W"}"#,
            r#"{"seq":4,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"late_arrival","color":"B","late_ms":432000,"deducted_ms":432000}"#,
            r#"{"seq":5,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"alert","id":"a3","code":"absent","article":"22.3","color":null,"points":[],"expected":{},"message":"x","late_ms":3600000}"#,
            r#"{"seq":6,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","by":"chief","type":"game_over","result":"W+F","reason":"absent","black_area":null,"white_area":null,"dame":null,"margin_stones":null,"margin_points":null}"#,
            r#"{"seq":15,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"status","state":"restoring","version":"0.1.0"}"#,
            r#"{"seq":15,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"status","state":"restoring","version":"0.2.0","off_since":"2026-11-29T13:44:00.000Z"}"#,
        ] {
            round_trip(json);
        }
    }

    #[test]
    fn bad_fields_are_refused_with_the_field() {
        for bad in [
            r#"{"seq":1,"time":"now","board":"b","game":"g","type":"pass","number":1,"color":"B"}"#,
            r#"{"seq":1,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"move","number":1,"color":"B","point":"I5","captured":[],"clock":null}"#,
            r#"{"seq":1,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"byoyomi","color":"B","call":"11","periods_left":1}"#,
            r#"{"seq":1,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"alert_cleared","id":"a1","how":"vanished"}"#,
            r#"{"seq":1,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"explode"}"#,
            r#"{"seq":1,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"game_reopened","previous_result":"W+R","reason":null,"phase":"over"}"#,
            r#"{"seq":1,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"warning_withdrawn","color":"X","count":0,"reason":null}"#,
        ] {
            assert!(serde_json::from_str::<Envelope>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn articles_follow_the_rules_digest() {
        assert_eq!(AlertCode::UncapturedStones.article(), "18.2");
        assert_eq!(AlertCode::BoardRestarted.as_str(), "board_restarted");
        assert_eq!(AlertCode::parse("ko"), Some(AlertCode::Ko));
    }

    #[test]
    fn the_storage_alerts_are_words_without_an_article() {
        for (code, word) in [
            (AlertCode::StorageLow, "storage_low"),
            (AlertCode::StorageFull, "storage_full"),
        ] {
            assert_eq!(code.as_str(), word);
            assert_eq!(AlertCode::parse(word), Some(code));
            assert_eq!(code.article(), "");
        }
        round_trip(
            r#"{"seq":16,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"alert","id":"s16","code":"storage_full","article":"","color":null,"points":[],"expected":{},"message":"x"}"#,
        );
    }
}
