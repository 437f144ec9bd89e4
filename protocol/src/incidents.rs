//! A game's incident log (issue 31): what the arbiters' record holds for an appeals
//! committee, folded from the board's own events. Every alert (those put right on the board
//! too), what was decided about it and by whom, every warning (through an alert, on the
//! arbiter's own finding, withdrawn), the arbiter's changes to the clocks, restarts, a late
//! arrival and what it cost (Art. 22), the game reopened and why, each result and a void
//! game. One line per event, in `seq`
//! order, with the move number it happened at; the hall puts them in its readers' words.
//!
//! Moves, passes, byo-yomi calls and ordinary clock presses are not incidents: the SGF has
//! them.

use serde::Serialize;
use tengen_rules::Color;

use crate::event::{AlertCode, BoardState, ClearedHow, EndReason, Envelope, Event};
use crate::time::Timestamp;
use crate::view::GameView;

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Incident {
    /// The event's `seq`.
    pub seq: u64,
    /// When it happened (the board's time).
    pub time: Timestamp,
    /// Moves and passes played when it happened.
    pub number: u32,
    /// The arbiter whose command it answers, if any (the envelope's `by`).
    pub by: Option<String>,
    /// What happened.
    #[serde(flatten)]
    pub what: What,
}

/// What an incident is (`"kind"` in JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum What {
    /// An alert raised.
    Alert {
        /// Its id.
        id: String,
        /// Its code.
        code: AlertCode,
        /// The article it names (maybe empty).
        article: String,
        /// The offending side, if any.
        color: Option<Color>,
        /// The points involved (GTP).
        points: Vec<String>,
    },
    /// An alert closed: put right on the board (`restored`, maybe with its warning
    /// pending), confirmed or dismissed by an arbiter.
    Cleared {
        /// The alert's id.
        id: String,
        /// Its code (when the log saw it raised).
        code: Option<AlertCode>,
        /// How.
        how: ClearedHow,
        /// Put right with its warning still to decide.
        warning_pending: bool,
    },
    /// A warning (Art. 24): through a confirmed alert, automatic, or on the arbiter's own
    /// finding (`given`).
    Warning {
        /// The side.
        color: Color,
        /// The article.
        article: String,
        /// That side's warnings in the game now.
        count: u32,
        /// Given by `give_warning` (the arbiter's own finding).
        given: bool,
        /// Why, in the arbiter's words.
        reason: Option<String>,
    },
    /// A warning taken back.
    WarningWithdrawn {
        /// The side.
        color: Color,
        /// That side's warnings left.
        count: u32,
        /// Why.
        reason: Option<String>,
    },
    /// The clocks paused, resumed or set by an arbiter.
    Clock {
        /// Paused after it.
        paused: bool,
        /// Black's time left (ms).
        black: u64,
        /// White's time left (ms).
        white: u64,
        /// A side's time set (`adjust_time`), not a pause or a resume.
        set: bool,
    },
    /// A player not seated when play began arrived (Art. 22.1-22.4).
    LateArrival {
        /// Who.
        color: Color,
        /// How late (ms of running time since play began).
        late_ms: u64,
        /// Taken from their base time on arrival.
        deducted_ms: u64,
        /// All their lateness cost them (their clock's run while away and `deducted_ms`).
        taken_ms: u64,
    },
    /// The board restarted during the game; it was off from `off_since`.
    Restarted {
        /// Its last sign of life before.
        off_since: Option<Timestamp>,
    },
    /// The game ended.
    Result {
        /// SGF form.
        result: String,
        /// Why.
        reason: EndReason,
    },
    /// A finished game reopened.
    Reopened {
        /// The result it had.
        previous_result: String,
        /// Why.
        reason: Option<String>,
    },
    /// The game voided.
    Voided {
        /// Why.
        reason: Option<String>,
    },
}

/// The incident log of game `game` in `events` (a board's envelopes, any games, in `seq`
/// order): every incident of that game.
pub fn incidents(events: &[Envelope], game: &str) -> Vec<Incident> {
    let mut view = GameView::new();
    let mut codes: Vec<(String, AlertCode)> = Vec::new();
    let mut out = Vec::new();
    let mut paused = false;
    for e in events.iter().filter(|e| e.game == game) {
        // A fold error leaves the view as it was: the log still shows the event.
        let _ = view.apply_envelope(e);
        let number = view.game().map_or(0, |g| g.move_number());
        let what = match &e.event {
            Event::Alert(a) => {
                codes.push((a.id.clone(), a.code));
                Some(What::Alert {
                    id: a.id.clone(),
                    code: a.code,
                    article: a.article.clone(),
                    color: a.color,
                    points: a.points.iter().map(|p| p.to_gtp()).collect(),
                })
            }
            Event::AlertCleared {
                id,
                how,
                warning_pending,
            } => Some(What::Cleared {
                id: id.clone(),
                code: codes.iter().rev().find(|(i, _)| i == id).map(|(_, c)| *c),
                how: *how,
                warning_pending: *warning_pending,
            }),
            Event::Warning {
                color,
                article,
                count,
            } => Some(What::Warning {
                color: *color,
                article: article.clone(),
                count: *count,
                given: false,
                reason: None,
            }),
            Event::WarningGiven {
                color,
                article,
                reason,
                count,
            } => Some(What::Warning {
                color: *color,
                article: article.clone(),
                count: *count,
                given: true,
                reason: reason.clone(),
            }),
            Event::WarningWithdrawn {
                color,
                count,
                reason,
            } => Some(What::WarningWithdrawn {
                color: *color,
                count: *count,
                reason: reason.clone(),
            }),
            Event::Clock(r) => {
                let now_paused = r.paused == Some(true);
                let was = std::mem::replace(&mut paused, now_paused);
                // An arbiter's: a pause, a resume, or a time set (the game's own start,
                // paused while it waits, is no incident).
                (e.by.is_some() && r.color.is_none()).then_some(What::Clock {
                    paused: now_paused,
                    black: r.black,
                    white: r.white,
                    set: was == now_paused,
                })
            }
            Event::LateArrival {
                color,
                late_ms,
                deducted_ms,
            } => {
                let taken_ms = match view.arrivals().map(|a| a.seat(*color)) {
                    Some(tengen_rules::clock::Seat::Arrived { ran_ms, .. }) => {
                        ran_ms.saturating_add(*deducted_ms)
                    }
                    _ => *deducted_ms,
                };
                Some(What::LateArrival {
                    color: *color,
                    late_ms: *late_ms,
                    deducted_ms: *deducted_ms,
                    taken_ms,
                })
            }
            Event::Status {
                state: BoardState::Restoring,
                off_since,
                ..
            } => Some(What::Restarted {
                off_since: *off_since,
            }),
            Event::GameOver(end) => Some(What::Result {
                result: end.result.clone(),
                reason: end.reason,
            }),
            Event::GameReopened {
                previous_result,
                reason,
                ..
            } => Some(What::Reopened {
                previous_result: previous_result.clone(),
                reason: reason.clone(),
            }),
            Event::GameVoided { reason } => Some(What::Voided {
                reason: reason.clone(),
            }),
            _ => None,
        };
        if let Some(what) = what {
            out.push(Incident {
                seq: e.seq,
                time: e.time,
                number,
                by: e.by.clone(),
                what,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Alert, ClockReading, Expected, GameEnd, GameSetup, PerColor};

    fn env(seq: u64, by: Option<&str>, event: Event) -> Envelope {
        Envelope {
            seq,
            time: Timestamp::from_millis(1_000 * seq),
            board: "b".into(),
            game: "r1-t1".into(),
            by: by.map(str::to_string),
            event,
        }
    }

    #[test]
    fn the_log_holds_alerts_decisions_warnings_and_results_with_who_and_when() {
        let p = crate::gtp::parse("A1").unwrap();
        let events = vec![
            env(1, None, Event::GameStarted(GameSetup::default())),
            env(
                2,
                None,
                Event::Move {
                    number: 1,
                    color: Color::Black,
                    point: crate::gtp::parse("D4").unwrap(),
                    captured: vec![],
                    clock: None,
                },
            ),
            env(
                3,
                None,
                Event::Alert(Alert {
                    id: "a1".into(),
                    code: AlertCode::UncapturedStones,
                    article: "18.2".into(),
                    color: Some(Color::White),
                    points: vec![p],
                    expected: Expected::new(vec![(p, None)]),
                    message: "x".into(),
                    late_ms: None,
                }),
            ),
            env(
                4,
                None,
                Event::AlertCleared {
                    id: "a1".into(),
                    how: ClearedHow::Restored,
                    warning_pending: true,
                },
            ),
            env(
                5,
                Some("chief"),
                Event::Warning {
                    color: Color::White,
                    article: "18.2".into(),
                    count: 1,
                },
            ),
            env(
                6,
                Some("chief"),
                Event::cleared("a1", ClearedHow::Confirmed),
            ),
            env(
                7,
                Some("chief"),
                Event::Clock(ClockReading {
                    color: None,
                    black: 1,
                    white: 2,
                    periods: PerColor::new(1, 1),
                    running: None,
                    paused: Some(true),
                }),
            ),
            env(
                8,
                Some("chief"),
                Event::GameOver(GameEnd::uncounted("B+R", EndReason::Arbiter)),
            ),
            env(
                9,
                Some("deputy"),
                Event::GameReopened {
                    previous_result: "B+R".into(),
                    reason: Some("wrong side".into()),
                    phase: crate::event::ReopenedPhase::Playing,
                },
            ),
        ];
        let mut other = events[2].clone();
        other.game = "r1-t2".into();
        let mut all = events.clone();
        all.push(other);
        let log = incidents(&all, "r1-t1");
        let kinds: Vec<String> = log
            .iter()
            .map(|i| {
                serde_json::to_value(i).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            ["alert", "cleared", "warning", "cleared", "clock", "result", "reopened"]
        );
        assert_eq!(log[0].number, 1, "raised after move 1");
        assert_eq!(
            log[1].what,
            What::Cleared {
                id: "a1".into(),
                code: Some(AlertCode::UncapturedStones),
                how: ClearedHow::Restored,
                warning_pending: true
            }
        );
        assert_eq!(log[3].by.as_deref(), Some("chief"));
        assert_eq!(
            log[4].what,
            What::Clock {
                paused: true,
                black: 1,
                white: 2,
                set: false
            }
        );
        assert_eq!(log[6].by.as_deref(), Some("deputy"));
        let json = serde_json::to_value(&log[2]).unwrap();
        assert_eq!(
            (
                &json["color"],
                &json["article"],
                &json["count"],
                &json["time"]
            ),
            (
                &serde_json::json!("W"),
                &serde_json::json!("18.2"),
                &serde_json::json!(1),
                &serde_json::json!("1970-01-01T00:00:05.000Z")
            )
        );
    }
}
