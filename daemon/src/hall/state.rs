//! The whole hall: every board heard of under the prefix, and the commands sent. Fed with
//! MQTT messages (topic, payload, time); answers with what to publish. Sans-IO, so the MQTT
//! task and the tests drive it the same way.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::board::{BoardView, Need};
use super::commands::{CommandError, CommandLog, Sent};
use super::topic::{self, BoardKey, Leaf};
use crate::event::Envelope;
use crate::http::LiveFeed;
use crate::mqtt::topics::Topics;

/// A message for the MQTT client to publish (QoS 1, not retained).
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The topic.
    pub topic: String,
    /// The payload.
    pub payload: Vec<u8>,
}

/// Every board under the prefix, and the hall's commands.
pub struct HallState {
    prefix: String,
    identity: Option<String>,
    boards: BTreeMap<BoardKey, BoardView>,
    commands: CommandLog,
    messages: u64,
}

impl HallState {
    /// An empty hall reading `{prefix}/+/+/#`. `identity`: the name the hall signs its own
    /// `republish` commands with (none: it never sends one). `tag` makes command ids unique
    /// among halls running side by side.
    pub fn new(prefix: &str, identity: Option<String>, tag: &str) -> HallState {
        HallState {
            prefix: prefix.to_string(),
            identity,
            boards: BTreeMap::new(),
            commands: CommandLog::new(tag),
            messages: 0,
        }
    }

    /// The subscription: `{prefix}/+/+/#`.
    pub fn filter(&self) -> String {
        format!("{}/+/+/#", self.prefix)
    }

    /// One message from the broker. Bad payloads are logged and dropped.
    pub fn on_message(&mut self, topic: &str, payload: &[u8], now: Instant) -> Vec<Outgoing> {
        let Some((key, leaf)) = topic::parse(&self.prefix, topic) else {
            return Vec::new();
        };
        self.messages += 1;
        let order = self.messages;
        let can_ask = self.identity.is_some();
        let need = match leaf {
            Leaf::CmdReply => {
                let Ok(reply) = serde_json::from_slice::<Value>(payload) else {
                    return Vec::new();
                };
                let refused_republish = self.commands.on_reply(&key, &reply).is_some_and(|s| {
                    s.payload.get("type").and_then(Value::as_str) == Some("republish")
                        && reply.get("ok").and_then(Value::as_bool) != Some(true)
                });
                if refused_republish {
                    if let Some(b) = self.boards.get_mut(&key) {
                        b.history_refused();
                    }
                }
                Need::Nothing
            }
            Leaf::Events => match serde_json::from_slice::<Envelope>(payload) {
                Ok(e) => self.board(&key).on_event(e, now, can_ask),
                Err(e) => {
                    tracing::warn!("{topic}: not an event: {e}");
                    Need::Nothing
                }
            },
            Leaf::State => match serde_json::from_slice::<Value>(payload) {
                Ok(v) if v.is_object() => self.board(&key).on_state(v, now, can_ask),
                _ => {
                    tracing::warn!("{topic}: not a JSON object");
                    Need::Nothing
                }
            },
            Leaf::Sgf => {
                self.board(&key)
                    .on_sgf(String::from_utf8_lossy(payload).into_owned());
                Need::Nothing
            }
            Leaf::Status => {
                let v: Value = serde_json::from_slice(payload).unwrap_or(Value::Null);
                match v.get("state").and_then(Value::as_str) {
                    Some(s) => self.board(&key).on_status(s),
                    None => tracing::warn!("{topic}: no \"state\" in the status"),
                }
                Need::Nothing
            }
            Leaf::AlertsActive => {
                match serde_json::from_slice::<Value>(payload) {
                    Ok(Value::Array(a)) => self.board(&key).on_alerts_active(a, order),
                    _ => tracing::warn!("{topic}: not a JSON array"),
                }
                Need::Nothing
            }
        };
        match (need, &self.identity) {
            (Need::History, Some(by)) => {
                let by = by.clone();
                let sent = self.commands.republish(&key, &by, 1, now);
                self.outgoing(&sent).into_iter().collect()
            }
            _ => Vec::new(),
        }
    }

    /// Time passes: boards stop waiting for history that does not come.
    pub fn tick(&mut self, now: Instant) {
        for b in self.boards.values_mut() {
            b.tick(now);
        }
    }

    fn board(&mut self, key: &BoardKey) -> &mut BoardView {
        self.boards.entry(key.clone()).or_default()
    }

    fn outgoing(&self, sent: &Sent) -> Option<Outgoing> {
        let topics = Topics::new(&self.prefix, &sent.key.tournament, &sent.key.board).ok()?;
        Some(Outgoing {
            topic: topics.cmd(),
            payload: sent.payload.to_string().into_bytes(),
        })
    }

    /// The feed of one board, if the hall has heard of it.
    pub fn feed(&self, key: &BoardKey) -> Option<LiveFeed> {
        self.boards.get(key).map(|b| b.feed().clone())
    }

    /// The number of boards heard of.
    pub fn board_count(&self) -> usize {
        self.boards.len()
    }

    /// `/api/boards`: every board's public summary, by tournament and board id.
    pub fn boards_json(&self, now: Instant) -> Value {
        Value::Array(
            self.boards
                .iter()
                .map(|(k, b)| b.summary(&k.tournament, &k.board, now))
                .collect(),
        )
    }

    /// The games of round `round` (any tournament): a file name and the SGF of each board
    /// whose current game is in that round and has a record.
    pub fn round_games(&self, round: &str) -> Vec<(String, String)> {
        self.boards
            .iter()
            .filter(|(_, b)| b.round() == round)
            .filter_map(|(k, b)| {
                let sgf = b.feed().sgf();
                if sgf.trim().is_empty() {
                    return None;
                }
                let game = if b.game().is_empty() {
                    "game"
                } else {
                    b.game()
                };
                let name = format!("{}-{}-{}.sgf", k.tournament, k.board, safe(game));
                Some((name, sgf))
            })
            .collect()
    }

    /// Every open alert in the hall, newest first, with its board and a picture of what the
    /// board should look like (`expected` over the board's recorded position). For the
    /// console only.
    pub fn alerts_json(&self) -> Value {
        let mut all: Vec<(u64, i64, Value)> = Vec::new();
        for (k, b) in &self.boards {
            let state = b.feed().state();
            let size = state.get("size").and_then(Value::as_u64).unwrap_or(19);
            let position = state.get("board").and_then(Value::as_str).unwrap_or("");
            for (alert, seen) in b.alerts() {
                let mut a = alert.clone();
                let seq = a.get("seq").and_then(Value::as_i64).unwrap_or(-1);
                if let Some(o) = a.as_object_mut() {
                    o.insert("tournament".into(), json!(k.tournament));
                    o.insert("board".into(), json!(k.board));
                    o.insert("size".into(), json!(size));
                    o.insert(
                        "should_look".into(),
                        json!(expected_position(position, size, alert.get("expected"))),
                    );
                }
                all.push((seen, seq, a));
            }
        }
        all.sort_by_key(|a| std::cmp::Reverse((a.0, a.1)));
        Value::Array(all.into_iter().map(|(_, _, a)| a).collect())
    }

    /// Prepares a console command for board `key`, signed `by`; returns its id and what to
    /// publish. The command is pending until the board replies.
    pub fn command(
        &mut self,
        key: &BoardKey,
        by: &str,
        body: Map<String, Value>,
        now: Instant,
    ) -> Result<(String, Outgoing), CommandError> {
        if !self.boards.contains_key(key) {
            return Err(CommandError::UnknownBoard(format!(
                "{}/{}",
                key.tournament, key.board
            )));
        }
        let sent = self.commands.prepare(key, by, body, now)?;
        let out = self
            .outgoing(&sent)
            .ok_or_else(|| CommandError::UnknownBoard(key.board.clone()))?;
        Ok((sent.id, out))
    }

    /// `/api/console/commands`: the commands sent, newest first, pending/acked/refused.
    pub fn commands_json(&self, now: Instant) -> Value {
        self.commands.to_json(now)
    }
}

/// The board's `state.board` string with the alert's `expected` points set (`B`, `W`,
/// `empty`): what the physical board should show. An empty string when there is no usable
/// position.
pub fn expected_position(position: &str, size: u64, expected: Option<&Value>) -> String {
    let Ok(size) = u8::try_from(size) else {
        return String::new();
    };
    let n = size as usize * size as usize;
    if position.len() != n || !position.is_ascii() {
        return String::new();
    }
    let mut cells: Vec<u8> = position.bytes().collect();
    if let Some(Value::Object(map)) = expected {
        for (point, what) in map {
            let Ok(p) = tengen_rules::Point::parse_gtp(point, size) else {
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

/// `s` with every character outside `[A-Za-z0-9._-]` replaced by `_` (zip entry names).
fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_points_are_drawn_over_the_position() {
        let pos = ".".repeat(9 * 9);
        let exp = json!({"A9": "B", "J1": "W", "E5": "empty"});
        let out = expected_position(&pos, 9, Some(&exp));
        assert_eq!(&out[0..1], "X", "A9 is the top-left corner");
        assert_eq!(&out[80..81], "O", "J1 is the bottom-right corner");
        assert_eq!(out.matches('.').count(), 79);
        assert_eq!(expected_position("...", 9, Some(&exp)), "");
    }

    #[test]
    fn messages_build_boards_and_ignore_junk() {
        let now = Instant::now();
        let mut h = HallState::new("tengen", None, "h");
        assert_eq!(h.filter(), "tengen/+/+/#");
        h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, now);
        h.on_message(
            "tengen/t/b1/state",
            br#"{"number":4,"round":"2","seq":9}"#,
            now,
        );
        h.on_message("tengen/t/b2/state", b"not json", now);
        h.on_message("tengen/t/b2/events", b"{\"seq\":1}", now);
        h.on_message("elsewhere/t/b3/state", b"{}", now);
        let boards = h.boards_json(now);
        assert_eq!(boards[0]["board"], "b1");
        assert_eq!(boards[0]["status"], "online");
        assert_eq!(boards[0]["number"], 4);
        assert_eq!(h.round_games("2"), vec![], "no SGF yet");
        h.on_message("tengen/t/b1/sgf", b"(;GM[1])", now);
        assert_eq!(
            h.round_games("2"),
            vec![("t-b1-game.sgf".to_string(), "(;GM[1])".to_string())]
        );
    }

    #[test]
    fn a_hall_with_an_identity_asks_for_missing_history() {
        let now = Instant::now();
        let mut h = HallState::new("tengen", Some("hall-main".into()), "h");
        let out = h.on_message("tengen/t/b1/state", br#"{"seq":9}"#, now);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].topic, "tengen/t/b1/cmd");
        let v: Value = serde_json::from_slice(&out[0].payload).unwrap();
        assert_eq!(
            v,
            json!({"id": "h-1", "by": "hall-main", "type": "republish", "from_seq": 1})
        );
        assert!(h
            .on_message("tengen/t/b1/state", br#"{"seq":10}"#, now)
            .is_empty());
    }
}
