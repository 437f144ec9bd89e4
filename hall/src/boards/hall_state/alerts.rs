//! The alerts for the console: every open alert with its board and what the board should
//! show, who took which, the hall's own `board_offline` dismissed, and the boards' standing
//! hardware trouble.

use serde::Serialize;
use serde_json::{json, Map, Value};
use tengen_protocol::event::Expected;
use tengen_protocol::topics::BoardKey;
use tengen_protocol::{AlertCode, Timestamp};
use tengen_rules::Color;

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
    /// `/api/console/alerts`: every open alert in the hall, newest first, each a
    /// card (`AlertCard`): the alert with its board and a picture of what the board should look
    /// like (`expected` over the board's recorded position). For the console only.
    pub fn alerts_json(&self) -> Value {
        let mut all: Vec<(u64, i64, Value)> = Vec::new();
        let wall = Timestamp::now();
        for (k, b) in &self.boards {
            let hall_alert = self
                .fleet
                .alert(k)
                .map(|(_, _, order)| order)
                .zip(self.fleet.alert_json(k, wall));
            if hall_alert.is_none() && b.alerts().next().is_none() {
                // Most boards have no open alert: no copy of their position for them.
                continue;
            }
            let (size, position, who) = b.with_live(|s| match s {
                Some(s) => (
                    s.size,
                    s.board.clone(),
                    Some((s.table.clone(), s.black.clone(), s.white.clone(), s.number)),
                ),
                None => (19, String::new(), None),
            });
            // The board's alerts as it sent them, and the hall's own (`board_offline`).
            let raised = b
                .alerts()
                .map(|(a, seen)| (a.to_value(), Some(&a.alert.expected), a.seq, seen))
                .chain(hall_alert.map(|(seen, a)| (a, None, None, seen)));
            for (alert, expected, seq, seen) in raised {
                let Value::Object(mut fields) = alert else {
                    continue;
                };
                // The card's board is the one the hall heard it on.
                fields.remove("board");
                let id = fields.get("id").and_then(Value::as_str).unwrap_or("");
                let taken_by = self.taken.get(&(k.clone(), id.to_string())).cloned();
                let card = AlertCard {
                    fields,
                    tournament: &k.tournament,
                    board: &k.board,
                    size,
                    table: who.as_ref().map(|w| w.0.as_str()),
                    black: who.as_ref().map(|w| w.1.as_str()),
                    white: who.as_ref().map(|w| w.2.as_str()),
                    number: who.as_ref().map(|w| w.3),
                    should_look: expected_position(&position, size, expected),
                    taken_by,
                };
                let seq = seq.and_then(|s| i64::try_from(s).ok()).unwrap_or(-1);
                all.push((seen, seq, serde_json::to_value(card).unwrap_or(Value::Null)));
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
        let open = |b: &BoardView, id: &str| b.alerts().any(|(a, _)| a.alert.id == id);
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
                let code = a.alert.code;
                if !matches!(code, AlertCode::StorageLow | AlertCode::StorageFull) {
                    continue;
                }
                let at = a.time.unwrap_or(Timestamp::from_millis(0));
                let time = json!(a.time);
                let seq = a.seq.unwrap_or(0);
                all.push((
                    at,
                    seq,
                    json!({
                        "tournament": k.tournament,
                        "board": k.board,
                        "kind": code.as_str(),
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

/// One alert's card in the console (`/api/console/alerts`): the alert as the board (or the
/// hall) raised it, with where it is, who plays there and how far the game is.
#[derive(Serialize)]
struct AlertCard<'a> {
    /// The alert's own fields (`id`, `code`, `article`, `color`, `points`, `expected`,
    /// `message`, and its envelope's `seq`, `time`, `game`), as raised.
    #[serde(flatten)]
    fields: Map<String, Value>,
    /// The tournament.
    tournament: &'a str,
    /// The board.
    board: &'a str,
    /// The board's size.
    size: u8,
    /// The table, the players and the move number, from the board's `state` (null
    /// before the hall has one).
    table: Option<&'a str>,
    black: Option<&'a str>,
    white: Option<&'a str>,
    number: Option<u32>,
    /// What the board should look like: its position with the alert's `expected` points
    /// set (`X`, `O`, `.`), empty when the hall has no position.
    should_look: String,
    /// The arbiter on the way, if one took it.
    taken_by: Option<String>,
}

/// The board's `state.board` string with the alert's `expected` points set (`B`, `W`,
/// `empty`): what the physical board should show. An empty string when there is no usable
/// position.
pub(super) fn expected_position(position: &str, size: u8, expected: Option<&Expected>) -> String {
    let n = size as usize * size as usize;
    if position.len() != n || !position.is_ascii() {
        return String::new();
    }
    let mut cells: Vec<u8> = position.bytes().collect();
    for (p, what) in expected.into_iter().flat_map(Expected::iter) {
        if !p.on_board(size) {
            continue;
        }
        let c = match what {
            Some(Color::Black) => b'X',
            Some(Color::White) => b'O',
            None => b'.',
        };
        if let Some(cell) = cells.get_mut(p.index(size)) {
            *cell = c;
        }
    }
    String::from_utf8(cells).unwrap_or_default()
}
