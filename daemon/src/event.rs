//! The events of SPEC.md: what the referee, the clock and the service say, one JSON object
//! each, in the envelope `{"seq","time","board","game","type",...}`.
//!
//! Points are GTP strings (`"Q16"`), colours `"B"`/`"W"`; every field name here is part of
//! the external contract and must stay as SPEC.md writes it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tengen_rules::Color;

/// Milliseconds left on each side's clock, as `{"B":ms,"W":ms}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerColor<T> {
    /// Black's value.
    #[serde(rename = "B")]
    pub black: T,
    /// White's value.
    #[serde(rename = "W")]
    pub white: T,
}

impl<T: Copy> PerColor<T> {
    /// The value for `color`.
    pub fn get(&self, color: Color) -> T {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }
}

/// One event with its envelope. `seq` and `time` are set by the journal when it is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// 1, 2, 3... per board, across restarts.
    pub seq: u64,
    /// UTC with milliseconds, `2026-11-29T13:45:01.250Z`.
    pub time: String,
    /// The board id (`hall1-07`).
    pub board: String,
    /// The game id (`r3-t07`).
    pub game: String,
    /// Who caused it, for events that answer an arbiter's command (the command's `by`);
    /// absent otherwise. The board's record of who confirmed, dismissed or adjusted what.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The event itself; its `type` tag is flattened into the envelope.
    #[serde(flatten)]
    pub event: Event,
}

/// The body of an event; serialised with `"type": "<snake_case name>"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A new game is set up.
    GameStarted {
        /// Board size.
        size: u8,
        /// Komi in points.
        komi: f64,
        /// Number of handicap stones (0 = even game).
        handicap: u8,
        /// Always `"chinese"`.
        rules: String,
        /// `"situational"` or `"positional"`.
        superko: String,
        /// The time control, as written in config (`"byoyomi 60m 5x60s"`, `"none"`).
        time_control: String,
        /// Black's name.
        black: String,
        /// White's name.
        white: String,
        /// Round, as the organiser names it.
        round: String,
        /// Table number or name.
        table: String,
    },
    /// A legal stone of the side to move, stable on the board.
    Move {
        /// Move number (handicap stones are not moves; the first move is 1).
        number: u32,
        /// Who played.
        color: Color,
        /// Where (GTP).
        point: String,
        /// What the rules remove, sorted.
        captured: Vec<String>,
        /// Time left after the move, or null without a clock.
        clock: Option<PerColor<u64>>,
    },
    /// A clock press with no stone placed.
    Pass {
        /// Move number of the pass.
        number: u32,
        /// Who passed.
        color: Color,
    },
    /// A published move or pass withdrawn; viewers drop it and the SGF is rewritten.
    MoveRetracted {
        /// The number of the move withdrawn.
        number: u32,
        /// Why, in a word or a sentence.
        reason: String,
    },
    /// A clock press, pause, resume or adjustment.
    Clock {
        /// Who pressed (null for an arbiter action).
        color: Option<Color>,
        /// Black's ms left in the current period.
        #[serde(rename = "B")]
        black: u64,
        /// White's ms left in the current period.
        #[serde(rename = "W")]
        white: u64,
        /// Byo-yomi periods (or Canadian stones) left.
        periods: PerColor<u32>,
        /// Whose clock runs, or null.
        running: Option<Color>,
    },
    /// A counting call of Art. 12.3.
    Byoyomi {
        /// Whose clock.
        color: Color,
        /// `"30"`, `"40"`, `"50"`, `"55"`, `"58"`, `"minute_used"`, `"1"`..`"10"`.
        call: String,
        /// Periods left.
        periods_left: u32,
    },
    /// A violation or a doubt, for the arbiter.
    Alert {
        /// Unique per board (e.g. `"a12"`).
        id: String,
        /// One of SPEC.md's codes.
        code: AlertCode,
        /// The article of RULES.md (`"18.2"`).
        article: String,
        /// Offending side, or null.
        color: Option<Color>,
        /// The points involved, sorted (GTP).
        points: Vec<String>,
        /// What the board should show at those points: `"B"`, `"W"` or `"empty"`.
        expected: BTreeMap<String, String>,
        /// One readable English sentence.
        message: String,
    },
    /// An alert closed.
    AlertCleared {
        /// The alert's id.
        id: String,
        /// `"restored"`, `"dismissed"` or `"confirmed"`.
        how: String,
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
        dead: Vec<String>,
    },
    /// The game ended.
    GameOver {
        /// SGF form: `"B+1.5"`, `"W+R"`, `"B+T"`, `"W+F"`, `"0"`, `"Void"`.
        result: String,
        /// `"count"`, `"resignation"`, `"time"`, `"warnings"`, `"arbiter"`.
        reason: String,
        /// Black's area in stones, or null.
        black_area: Option<f64>,
        /// White's area in stones, or null.
        white_area: Option<f64>,
        /// Dame points, or null.
        dame: Option<u32>,
        /// Margin in stones (positive: the winner's), or null.
        margin_stones: Option<f64>,
        /// Margin in points, or null.
        margin_points: Option<f64>,
    },
    /// Hardware trouble, kept apart from rule alerts.
    SensorFault {
        /// Points involved (empty for link events).
        points: Vec<String>,
        /// `"stuck"`, `"noisy"`, `"link_lost"`, `"link_restored"`.
        kind: String,
    },
    /// Service state.
    Status {
        /// `"online"`, `"offline"`, `"restoring"`.
        state: String,
        /// The tengen version.
        version: String,
    },
}

/// The alert codes of SPEC.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertCode {
    /// Captured stones left on the board at the clock press (18.2, 22.6).
    UncapturedStones,
    /// A stone with liberties removed (18.1).
    WrongCapture,
    /// A stone on the board moved (17.5).
    StoneMoved,
    /// The last move's stone picked up and played elsewhere (17.3).
    Takeback,
    /// The same side played twice (17.2).
    DoubleMove,
    /// Stones of the wrong colour (17.1).
    WrongColor,
    /// A suicide (5, 19).
    Suicide,
    /// An immediate ko recapture (18.3, 20.1).
    Ko,
    /// A whole-board repetition (6, 20).
    Superko,
    /// The clock pressed before the stone was placed (17.4).
    ClockBeforeMove,
    /// Many stones displaced at once (17.6).
    BoardDisturbed,
    /// A flag fell (12, 22.5).
    TimeExpired,
    /// A difference that fits none of the above.
    Mismatch,
}

impl AlertCode {
    /// The article of RULES.md that the code names.
    pub fn article(self) -> &'static str {
        match self {
            AlertCode::UncapturedStones => "18.2",
            AlertCode::WrongCapture => "18.1",
            AlertCode::StoneMoved => "17.5",
            AlertCode::Takeback => "17.3",
            AlertCode::DoubleMove => "17.2",
            AlertCode::WrongColor => "17.1",
            AlertCode::Suicide => "5",
            AlertCode::Ko => "18.3",
            AlertCode::Superko => "6",
            AlertCode::ClockBeforeMove => "17.4",
            AlertCode::BoardDisturbed => "17.6",
            AlertCode::TimeExpired => "12",
            AlertCode::Mismatch => "",
        }
    }

    /// The code as written in events (`"uncaptured_stones"`).
    pub fn as_str(self) -> &'static str {
        match self {
            AlertCode::UncapturedStones => "uncaptured_stones",
            AlertCode::WrongCapture => "wrong_capture",
            AlertCode::StoneMoved => "stone_moved",
            AlertCode::Takeback => "takeback",
            AlertCode::DoubleMove => "double_move",
            AlertCode::WrongColor => "wrong_color",
            AlertCode::Suicide => "suicide",
            AlertCode::Ko => "ko",
            AlertCode::Superko => "superko",
            AlertCode::ClockBeforeMove => "clock_before_move",
            AlertCode::BoardDisturbed => "board_disturbed",
            AlertCode::TimeExpired => "time_expired",
            AlertCode::Mismatch => "mismatch",
        }
    }
}

/// A test envelope: event `seq` of board `b1`, game `g1`, at a fixed time.
#[cfg(test)]
pub(crate) fn test_envelope(seq: u64, event: Event) -> Envelope {
    Envelope {
        seq,
        time: "2026-11-29T13:45:01.250Z".into(),
        board: "b1".into(),
        game: "g1".into(),
        by: None,
        event,
    }
}

/// A test `game_started`: a `size` x `size` even game, komi 7.5, no clock, no names.
#[cfg(test)]
pub(crate) fn test_game_started(size: u8) -> Event {
    Event::GameStarted {
        size,
        komi: 7.5,
        handicap: 0,
        rules: "chinese".into(),
        superko: "situational".into(),
        time_control: "none".into(),
        black: String::new(),
        white: String::new(),
        round: String::new(),
        table: String::new(),
    }
}

/// A test `game_over` by resignation with `result` (`"B+R"`, `"W+R"`).
#[cfg(test)]
pub(crate) fn test_resignation(result: &str) -> Event {
    Event::GameOver {
        result: result.into(),
        reason: "resignation".into(),
        black_area: None,
        white_area: None,
        dame: None,
        margin_stones: None,
        margin_points: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_is_flat_with_type_tag() {
        let e = Envelope {
            seq: 17,
            time: "2026-11-29T13:45:01.250Z".into(),
            board: "hall1-07".into(),
            game: "r3-t07".into(),
            by: None,
            event: Event::Move {
                number: 37,
                color: Color::White,
                point: "R14".into(),
                captured: vec!["Q14".into(), "Q15".into()],
                clock: Some(PerColor {
                    black: 1000,
                    white: 2000,
                }),
            },
        };
        let s = serde_json::to_string(&e).unwrap();
        assert_eq!(
            s,
            r#"{"seq":17,"time":"2026-11-29T13:45:01.250Z","board":"hall1-07","game":"r3-t07","type":"move","number":37,"color":"W","point":"R14","captured":["Q14","Q15"],"clock":{"B":1000,"W":2000}}"#
        );
        let back: Envelope = serde_json::from_str(&s).unwrap();
        assert_eq!(back, e);
    }
}
