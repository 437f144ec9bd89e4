//! What the referee shows of the game: the SGF record so far and the `state` snapshot.

use serde_json::{json, Value};
use tengen_rules::clock::Clock;
use tengen_rules::sgf::{GameRecord, RecordedMove};
use tengen_rules::{Color, Move};

use super::{Phase, Referee};
use crate::event::Event;

/// Per-move data kept beside the rules history for the SGF.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MoveNote {
    pub color: Color,
    pub mv: Move,
    pub time_left_ms: Option<u64>,
    pub periods_left: Option<u32>,
    /// Alerts raised after this move, as sentences.
    pub comments: Vec<String>,
}

impl MoveNote {
    pub fn new(color: Color, mv: Move, clock: Option<&Clock>, now: u64) -> MoveNote {
        MoveNote {
            color,
            mv,
            time_left_ms: clock.map(|c| c.remaining(color, now)),
            periods_left: clock.map(|c| c.periods_left(color)),
            comments: Vec::new(),
        }
    }
}

impl Referee {
    /// The game record so far: moves with the time left when a clock runs, alerts as
    /// comments, the result at the end. Retracted moves never appear.
    pub fn sgf_record(&self) -> GameRecord {
        let s = &self.settings;
        let black_setup = if s.handicap >= 2 {
            tengen_rules::handicap_points(s.size, s.handicap).unwrap_or_default()
        } else {
            Vec::new()
        };
        let moves = self
            .record
            .iter()
            .map(|n| RecordedMove {
                color: n.color,
                mv: n.mv,
                time_left_ms: n.time_left_ms,
                periods_left: n.periods_left,
                comment: if n.comments.is_empty() {
                    None
                } else {
                    Some(n.comments.join("\n"))
                },
            })
            .collect();
        let name = |n: &str| (!n.is_empty()).then(|| n.to_string());
        let mut extra_root = Vec::new();
        if !s.round.is_empty() {
            extra_root.push(("RO".to_string(), s.round.clone()));
        }
        GameRecord {
            size: s.size,
            komi: Some(s.komi),
            handicap: s.handicap,
            black_setup,
            white_setup: Vec::new(),
            moves,
            black_name: name(&s.black),
            white_name: name(&s.white),
            rules: Some("Chinese".to_string()),
            result: self.result.clone(),
            date: None,
            game_comment: None,
            extra_root,
        }
    }

    /// The snapshot for SPEC.md's `state` topic (the service adds the last `seq`).
    pub fn snapshot(&self) -> Value {
        let s = &self.settings;
        let phase = match self.phase {
            Phase::Playing => "playing",
            Phase::Counting { .. } => "counting",
            Phase::Over => "over",
        };
        let clocks = self.clock.as_ref().map(|c| {
            json!({
                "B": c.remaining(Color::Black, self.now),
                "W": c.remaining(Color::White, self.now),
                "periods": {"B": c.periods_left(Color::Black), "W": c.periods_left(Color::White)},
                "running": c.running(),
                "paused": c.is_paused(),
            })
        });
        let alerts: Vec<Event> = self.open_alerts().map(|a| a.to_event()).collect();
        json!({
            "size": s.size,
            "komi": s.komi,
            "handicap": s.handicap,
            "rules": "chinese",
            "superko": s.superko.as_str(),
            "time_control": s.time.to_string(),
            "black": s.black,
            "white": s.white,
            "round": s.round,
            "table": s.table,
            "phase": phase,
            "board": self.game.board().to_rows(),
            "to_move": self.game.to_move(),
            "number": self.game.move_number(),
            "captured": {"B": self.game.prisoners(Color::Black), "W": self.game.prisoners(Color::White)},
            "clocks": clocks,
            "warnings": {"B": self.warnings[0], "W": self.warnings[1]},
            "alerts": alerts,
            "result": self.result,
        })
    }
}
