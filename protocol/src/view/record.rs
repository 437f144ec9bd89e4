//! The game record as SGF: one note per move and pass (with the time left when a clock
//! runs, and the alerts raised after it as comments), the setup and the result.

use tengen_rules::clock::{Clock, LatePolicy, Seat, TimeControl};
use tengen_rules::sgf::{self, GameRecord, RecordedMove};
use tengen_rules::{Color, Move};

use super::GameView;
use crate::event::{EndReason, PerColor};
use crate::time::clock_text;
use crate::time::Timestamp;

/// One move or pass of the record.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveNote {
    /// Who played it.
    pub color: Color,
    /// The stone's point, or a pass.
    pub mv: Move,
    /// The mover's time left (ms in the current period) when it was played.
    pub time_left_ms: Option<u64>,
    /// The mover's byo-yomi periods (or Canadian stones) left then.
    pub periods_left: Option<u32>,
    /// The alerts raised after it, as sentences.
    pub comments: Vec<String>,
    /// When it was played (its event's time): where an arbiter looks in the black box.
    pub played_at: Timestamp,
}

impl MoveNote {
    /// The note of `mv` by `color`, played at `now` with `clock`.
    pub fn new(color: Color, mv: Move, clock: Option<&Clock>, now: Timestamp) -> MoveNote {
        MoveNote {
            color,
            mv,
            time_left_ms: clock.map(|c| c.remaining(color, now.millis())),
            periods_left: clock.map(|c| c.periods_left(color)),
            comments: Vec::new(),
            played_at: now,
        }
    }
}

impl GameView {
    /// The position after the first `moves` moves and passes of the record (the handicap
    /// stones set), as the `state` snapshot writes a board (`.XO`, rows from the top): what
    /// the board had to show at that move. `None` before any `game_started`, or past the
    /// record's end.
    pub fn position_at(&self, moves: u32) -> Option<String> {
        let setup = self.setup()?;
        let record = self.record();
        if moves as usize > record.len() {
            return None;
        }
        let mut game = if setup.handicap >= 2 {
            tengen_rules::Game::with_handicap(setup.size, setup.handicap, setup.superko).ok()?
        } else {
            tengen_rules::Game::new(setup.size, setup.superko).ok()?
        };
        for n in &record[..moves as usize] {
            game.play_as(n.color, n.mv).ok()?;
        }
        Some(game.board().to_rows())
    }

    /// The game record so far: the moves (retracted ones never appear) with the time left
    /// when a clock runs, the alerts as comments when `comments` (never for the public),
    /// the result at the end. `None` before any `game_started`.
    pub fn sgf_record(&self, comments: bool) -> Option<GameRecord> {
        let setup = self.setup()?;
        let black_setup = if setup.handicap >= 2 {
            tengen_rules::handicap_points(setup.size, setup.handicap).unwrap_or_default()
        } else {
            Vec::new()
        };
        let moves = self
            .record()
            .iter()
            .map(|n| RecordedMove {
                color: n.color,
                mv: n.mv,
                time_left_ms: n.time_left_ms,
                periods_left: n.periods_left,
                comment: (comments && !n.comments.is_empty()).then(|| n.comments.join("\n")),
            })
            .collect();
        let name = |n: &str| (!n.is_empty()).then(|| n.to_string());
        let mut extra_root = Vec::new();
        if !self.game_id().is_empty() {
            extra_root.push(("GN".to_string(), self.game_id().to_string()));
        }
        if let Some((tm, ot)) = sgf_time(&setup.time_control) {
            extra_root.push(("TM".to_string(), tm));
            if let Some(ot) = ot {
                extra_root.push(("OT".to_string(), ot));
            }
        }
        if let Some(event) = &setup.event {
            extra_root.push(("EV".to_string(), event.clone()));
        }
        if let Some(place) = &setup.place {
            extra_root.push(("PC".to_string(), place.clone()));
        }
        if !setup.round.is_empty() {
            extra_root.push(("RO".to_string(), setup.round.clone()));
        }
        if let Some(rank) = &setup.black_rank {
            extra_root.push(("BR".to_string(), rank.clone()));
        }
        if let Some(rank) = &setup.white_rank {
            extra_root.push(("WR".to_string(), rank.clone()));
        }
        if self.end_reason() == Some(EndReason::Absent) {
            // A loss for not being seated in time (Art. 22): by default, whatever was
            // played meanwhile; `tengen results` and the hall read it.
            extra_root.push(("TENGENREASON".to_string(), "absent".to_string()));
        }
        Some(GameRecord {
            size: setup.size,
            komi: Some(setup.komi),
            handicap: setup.handicap,
            black_setup,
            white_setup: Vec::new(),
            moves,
            black_name: name(&setup.black),
            white_name: name(&setup.white),
            rules: Some("Chinese".to_string()),
            result: self.result().map(str::to_string),
            // The day the game was set up (UTC), as SGF's DT wants it: YYYY-MM-DD.
            date: self
                .started()
                .map(|t| t.to_string().chars().take(10).collect()),
            game_comment: self.game_comment(),
            extra_root,
        })
    }

    /// [`GameView::sgf_record`] as SGF text; empty before any `game_started`.
    pub fn sgf(&self, comments: bool) -> String {
        self.sgf_record(comments)
            .map(|r| sgf::write(&r))
            .unwrap_or_default()
    }
}

impl GameView {
    /// The record's game comment: the late arrivals and a loss by absence (Art. 22), the
    /// warnings given (Art. 24); `None` when there is nothing to say.
    fn game_comment(&self) -> Option<String> {
        let mut lines = Vec::new();
        if let Some(arrivals) = self.arrivals() {
            let policy = arrivals.policy();
            for c in [Color::Black, Color::White] {
                if let Seat::Arrived {
                    late_ms,
                    deducted_ms,
                    ran_ms,
                    ..
                } = arrivals.seat(c)
                {
                    lines.push(format!(
                        "{} arrived {} late (Art. {}): {} taken from the time limit in all, {} of it on arrival.",
                        side(c),
                        clock_text(late_ms),
                        policy.article(),
                        clock_text(ran_ms.saturating_add(deducted_ms)),
                        clock_text(deducted_ms),
                    ));
                }
            }
            if self.end_reason() == Some(EndReason::Absent) {
                let limit = clock_text(policy.limit_ms);
                let line = match self.result().and_then(|r| r.split_once('+')) {
                    Some((winner, _)) => {
                        let winner = Color::parse(winner).unwrap_or(Color::Black);
                        format!(
                            "{} was not seated within {limit} of the start of play (Art. {}): a win by default for {}.",
                            side(winner.opponent()),
                            policy.article(),
                            side(winner),
                        )
                    }
                    None => format!(
                        "Neither player was seated within {limit} of the start of play (Art. {}): both lose by default.",
                        LatePolicy::BOTH_ARTICLE
                    ),
                };
                lines.push(line);
            }
        }
        lines.extend(warnings_comment(self.warnings()));
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// "Black" or "White".
fn side(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// SGF's `TM` (the main time in seconds) and `OT` (the overtime, as FF[4] suggests:
/// `5x30 byo-yomi`, `25/600 Canadian`, `+10 Fischer`) of a time control; `None` without one.
fn sgf_time(tc: &TimeControl) -> Option<(String, Option<String>)> {
    let secs = |ms: u64| {
        if ms % 1_000 == 0 {
            (ms / 1_000).to_string()
        } else {
            format!("{:.1}", ms as f64 / 1_000.0)
        }
    };
    match *tc {
        TimeControl::None => None,
        TimeControl::Absolute { main_ms } => Some((secs(main_ms), None)),
        TimeControl::Byoyomi {
            main_ms,
            periods,
            period_ms,
        } => Some((
            secs(main_ms),
            Some(format!("{periods}x{} byo-yomi", secs(period_ms))),
        )),
        TimeControl::Canadian {
            main_ms,
            stones,
            period_ms,
        } => Some((
            secs(main_ms),
            Some(format!("{stones}/{} Canadian", secs(period_ms))),
        )),
        TimeControl::Fischer {
            main_ms,
            increment_ms,
        } => Some((
            secs(main_ms),
            Some(format!("+{} Fischer", secs(increment_ms))),
        )),
    }
}

/// The warnings given in the game (Art. 24: each is one stone deducted at the count; a
/// second one loses the game), as the record's game comment, so a result a penalty moved
/// adds up in the record.
fn warnings_comment(w: PerColor<u32>) -> Option<String> {
    (w.black > 0 || w.white > 0).then(|| {
        format!(
            "Warnings (Art. 24, one stone deducted at the count each): Black {}, White {}",
            w.black, w.white
        )
    })
}
