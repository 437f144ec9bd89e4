//! The alerts for the console: every open alert with its board and what the board should
//! show, who took which, the hall's own `board_offline` dismissed, and the boards' standing
//! hardware trouble.

use serde_json::{json, Value};
use tengen_protocol::topics::BoardKey;
use tengen_protocol::{gtp, Timestamp};

use super::HallState;
use crate::boards::board_view::BoardView;

/// The board has no such open alert (`take_alert`).
#[derive(Debug, thiserror::Error)]
#[error("no such open alert on this board")]
pub(crate) struct NoSuchAlert;

/// An alert taken by an arbiter, as the console store keeps it across a restart.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct TakenAlert {
    /// The tournament.
    pub(crate) tournament: String,
    /// The board.
    pub(crate) board: String,
    /// The alert's id.
    pub(crate) alert: String,
    /// The arbiter on the way.
    pub(crate) by: String,
}

impl HallState {
    /// `/api/console/alerts`: every open alert in the hall, newest first, with its board
    /// and a picture of what the board should look like (`expected` over the board's
    /// recorded position). For the console only.
    pub fn alerts_json(&self) -> Value {
        let mut all: Vec<(u64, i64, Value)> = Vec::new();
        let wall = Timestamp::now();
        for (k, b) in &self.boards {
            let hall_alert = self
                .fleet
                .alert(k)
                .map(|(_, _, order)| order)
                .zip(self.fleet.alert_json(k, wall));
            let hall_alert = hall_alert.as_ref().map(|(order, a)| (a, *order));
            if hall_alert.is_none() && b.alerts().next().is_none() {
                // Most boards have no open alert: no copy of their position for them.
                continue;
            }
            let (size, position, who) = b.with_live(|s| match s {
                Some(s) => (
                    s.size,
                    s.board.clone(),
                    [
                        json!(s.table),
                        json!(s.black),
                        json!(s.white),
                        json!(s.number),
                    ],
                ),
                None => (
                    19,
                    String::new(),
                    [Value::Null, Value::Null, Value::Null, Value::Null],
                ),
            });
            for (alert, seen) in b.alerts().chain(hall_alert) {
                let mut a = alert.clone();
                let seq = a.get("seq").and_then(Value::as_i64).unwrap_or(-1);
                if let Some(o) = a.as_object_mut() {
                    o.insert("tournament".into(), json!(k.tournament));
                    o.insert("board".into(), json!(k.board));
                    o.insert("size".into(), json!(size));
                    // Who plays there and how far the game is, for the alert's card.
                    for (key, v) in ["table", "black", "white", "number"].iter().zip(&who) {
                        o.insert((*key).into(), v.clone());
                    }
                    o.insert(
                        "should_look".into(),
                        json!(expected_position(&position, size, alert.get("expected"))),
                    );
                    let id = alert.get("id").and_then(Value::as_str).unwrap_or("");
                    let taken = self.taken.get(&(k.clone(), id.to_string()));
                    o.insert("taken_by".into(), json!(taken));
                }
                all.push((seen, seq, a));
            }
        }
        all.sort_by_key(|a| std::cmp::Reverse((a.0, a.1)));
        Value::Array(all.into_iter().map(|(_, _, a)| a).collect())
    }

    /// An arbiter takes an open alert (`POST /api/console/alert/take`): the consoles show
    /// who went to the board. Taking it again (the same or another arbiter) replaces the
    /// name. Errors when the board has no such open alert. Alerts closed since are
    /// forgotten here.
    pub(crate) fn take_alert(
        &mut self,
        key: &BoardKey,
        alert: &str,
        arbiter: &str,
    ) -> Result<(), NoSuchAlert> {
        let open = |b: &BoardView, id: &str| {
            b.alerts()
                .any(|(a, _)| a.get("id").and_then(Value::as_str) == Some(id))
        };
        let board = self.boards.get(key).ok_or(NoSuchAlert)?;
        if !open(board, alert) && !self.fleet.is_open(key, alert) {
            return Err(NoSuchAlert);
        }
        let (boards, fleet) = (&self.boards, &self.fleet);
        self.taken.retain(|(k, id), _| {
            boards.get(k).is_some_and(|b| open(b, id)) || fleet.is_open(k, id)
        });
        self.taken
            .insert((key.clone(), alert.to_string()), arbiter.to_string());
        Ok(())
    }

    /// An arbiter dismisses the hall's own alert `alert` (`board_offline`) on board `key`
    /// (`POST /api/console/alert/dismiss`): the board was taken off on purpose. It comes
    /// back if the board is heard again and then drops off again.
    pub(crate) fn dismiss_hall_alert(
        &mut self,
        key: &BoardKey,
        alert: &str,
    ) -> Result<(), NoSuchAlert> {
        if self.fleet.dismiss(key, alert) {
            self.taken.remove(&(key.clone(), alert.to_string()));
            Ok(())
        } else {
            Err(NoSuchAlert)
        }
    }

    /// Who took which alert, for the console store.
    pub(crate) fn taken_saved(&self) -> Vec<TakenAlert> {
        self.taken
            .iter()
            .map(|((k, alert), by)| TakenAlert {
                tournament: k.tournament.clone(),
                board: k.board.clone(),
                alert: alert.clone(),
                by: by.clone(),
            })
            .collect()
    }

    /// Takes back who took which alert before a restart (the alerts themselves come back
    /// with the boards' retained `alerts/active`).
    pub(crate) fn restore_taken(&mut self, saved: Vec<TakenAlert>) {
        for t in saved {
            if let Some(key) = BoardKey::new(&t.tournament, &t.board) {
                self.taken.insert((key, t.alert), t.by);
            }
        }
    }

    /// `/api/console/hardware`: every board's standing hardware trouble (`sensor_fault`:
    /// link lost, stuck or noisy sensors; an open `storage_low` or `storage_full` alert),
    /// newest first, with its board. For the console only.
    pub(crate) fn hardware_json(&self) -> Value {
        let mut all: Vec<(Timestamp, u64, Value)> = Vec::new();
        for (k, b) in &self.boards {
            for (a, _) in b.alerts() {
                let code = a.get("code").and_then(Value::as_str).unwrap_or_default();
                if !matches!(code, "storage_low" | "storage_full") {
                    continue;
                }
                let time = a.get("time").cloned().unwrap_or(Value::Null);
                let at = time
                    .as_str()
                    .and_then(|t| Timestamp::parse(t).ok())
                    .unwrap_or(Timestamp::from_millis(0));
                let seq = a.get("seq").and_then(Value::as_u64).unwrap_or(0);
                all.push((
                    at,
                    seq,
                    json!({
                        "tournament": k.tournament,
                        "board": k.board,
                        "kind": code,
                        "points": [],
                        "time": time,
                        "seq": seq,
                    }),
                ));
            }
            for f in b.hardware() {
                let points: Vec<String> = f.points.iter().map(|p| p.to_gtp()).collect();
                all.push((
                    f.time,
                    f.seq,
                    json!({
                        "tournament": k.tournament,
                        "board": k.board,
                        "kind": f.kind,
                        "points": points,
                        "time": f.time,
                        "seq": f.seq,
                    }),
                ));
            }
        }
        all.sort_by_key(|a| std::cmp::Reverse((a.0, a.1)));
        Value::Array(all.into_iter().map(|(_, _, v)| v).collect())
    }
}

/// The board's `state.board` string with the alert's `expected` points set (`B`, `W`,
/// `empty`): what the physical board should show. An empty string when there is no usable
/// position.
pub(super) fn expected_position(position: &str, size: u8, expected: Option<&Value>) -> String {
    let n = size as usize * size as usize;
    if position.len() != n || !position.is_ascii() {
        return String::new();
    }
    let mut cells: Vec<u8> = position.bytes().collect();
    if let Some(Value::Object(map)) = expected {
        for (point, what) in map {
            let Some(p) = gtp::parse(point).ok().filter(|p| p.on_board(size)) else {
                continue;
            };
            let c = match what.as_str() {
                Some("B") => b'X',
                Some("W") => b'O',
                Some("empty") => b'.',
                _ => continue,
            };
            if let Some(cell) = cells.get_mut(p.index(size)) {
                *cell = c;
            }
        }
    }
    String::from_utf8(cells).unwrap_or_default()
}
