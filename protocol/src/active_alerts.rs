//! A board's `alerts/active` (retained): a JSON array of the alerts open now, each the
//! `alert` event as it came, with its envelope (`seq`, `time`, `board`, `game`; an event the
//! board could not write to its journal has none), and `restored` when the board was put
//! right while the alert stays open with its warning pending (docs/mqtt-http.md). Built by
//! [`crate::view::GameView::active_alerts_json`]; read once through [`ActiveAlert::parse_all`].

use serde::Deserialize;
use serde_json::Value;

use crate::event::{Alert, Envelope, Event};
use crate::Timestamp;

/// One open alert of `alerts/active`.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveAlert {
    /// Its envelope's `seq`, when it has one.
    pub seq: Option<u64>,
    /// Its envelope's `time`, when it has one.
    pub time: Option<Timestamp>,
    /// Its envelope's board and game, when it has them.
    pub board_game: Option<(String, String)>,
    /// Its envelope's `by`, when given.
    pub by: Option<String>,
    /// The alert.
    pub alert: Alert,
    /// When the board was put right, the alert staying open with its warning pending.
    pub restored: Option<Timestamp>,
}

/// Why an `alerts/active` payload was not taken.
#[derive(Debug, thiserror::Error)]
pub enum BadAlerts {
    /// Not a JSON array of objects, or an item is not an alert.
    #[error("not a list of alerts: {0}")]
    Json(#[from] serde_json::Error),
    /// An item is another event.
    #[error("not a list of alerts: item {index} is a {kind} event")]
    NotAnAlert {
        /// Its place in the list.
        index: usize,
        /// Its `type`.
        kind: &'static str,
    },
}

/// What an item carries beside the alert's own fields.
#[derive(Deserialize)]
struct Around {
    seq: Option<u64>,
    time: Option<Timestamp>,
    board: Option<String>,
    game: Option<String>,
    by: Option<String>,
    restored: Option<Timestamp>,
}

impl ActiveAlert {
    /// Reads an `alerts/active` payload: every item, or why not (one line).
    pub fn parse_all(payload: &[u8]) -> Result<Vec<ActiveAlert>, BadAlerts> {
        let items: Vec<Value> = serde_json::from_slice(payload)?;
        items
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                let around = Around::deserialize(&item)?;
                match Event::deserialize(item)? {
                    Event::Alert(alert) => Ok(ActiveAlert {
                        seq: around.seq,
                        time: around.time,
                        board_game: around.board.zip(around.game),
                        by: around.by,
                        alert,
                        restored: around.restored,
                    }),
                    other => Err(BadAlerts::NotAnAlert {
                        index,
                        kind: other.kind(),
                    }),
                }
            })
            .collect()
    }

    /// The item as `alerts/active` carries it.
    pub fn to_value(&self) -> Value {
        let event = Event::Alert(self.alert.clone());
        let envelope = match (self.seq, self.time, &self.board_game) {
            (Some(seq), Some(time), Some((board, game))) => serde_json::to_value(Envelope {
                seq,
                time,
                board: board.clone(),
                game: game.clone(),
                by: self.by.clone(),
                event,
            }),
            _ => serde_json::to_value(event),
        };
        // Strings, numbers and points always serialise.
        let mut v = envelope.unwrap_or(Value::Null);
        if let (Some(at), Some(o)) = (self.restored, v.as_object_mut()) {
            o.insert("restored".into(), serde_json::json!(at));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::AlertCode;
    use crate::view::GameView;

    #[test]
    fn what_the_board_publishes_reads_back_as_it_was() {
        let payload = r#"[{"seq":12,"time":"2026-11-29T13:45:01.250Z","board":"hall1-07","game":"r3-t07","type":"alert","id":"a3","code":"stone_moved","article":"17.5","color":"B","points":["D4"],"expected":{"D4":"B"},"message":"a stone moved","restored":"2026-11-29T13:46:00.000Z"},{"type":"alert","id":"a4","code":"storage_low","article":"","color":null,"points":[],"expected":{},"message":"storage low"}]"#;
        let alerts = ActiveAlert::parse_all(payload.as_bytes()).expect("reads");
        assert_eq!(alerts.len(), 2);
        assert_eq!(alerts[0].alert.code, AlertCode::StoneMoved);
        assert_eq!(alerts[0].seq, Some(12));
        assert!(alerts[0].restored.is_some());
        assert_eq!(alerts[1].board_game, None, "written nowhere, no envelope");
        let again: Vec<Value> = alerts.iter().map(ActiveAlert::to_value).collect();
        let sent: Value = serde_json::from_str(payload).expect("JSON");
        assert_eq!(Value::Array(again), sent);
        assert_eq!(
            ActiveAlert::parse_all(GameView::new().active_alerts_json().as_bytes())
                .expect("an empty list")
                .len(),
            0
        );
        for bad in [
            &b"{}"[..],
            b"not json",
            br#"[{"id":"a1"}]"#,
            br#"[{"type":"move","number":1,"color":"B","point":"D4","captured":[],"clock":null}]"#,
        ] {
            let e = ActiveAlert::parse_all(bad).expect_err("refused");
            assert!(!e.to_string().contains('\n'), "one line: {e}");
        }
    }
}
