//! A venue hall's side (`[venue]`), sans-IO: every [`HEADS_EVERY`] it tells its hub the
//! newest `seq` it holds of each board, in order (`venue/heads`); it answers each of the
//! hub's asks (`venue/ask`) with what it holds ([`HallState::answer`], in chunks on
//! `venue/fill`), and asks its own board to `republish` what it does not hold (a command
//! from the venue's hall to the venue's board, on the venue's broker: nothing from the hub
//! reaches a board).

use std::collections::BTreeMap;
use std::time::Instant;

use tengen_protocol::topics::BoardKey;

use crate::boards::hall_state::{HallState, Outgoing};
use crate::venues::wire::{Asks, Fill, Heads, FILL_CHUNK, HEADS_EVERY, MAX_ASKS};
use crate::venues::wire::{VENUE_ASK, VENUE_FILL, VENUE_HEADS};

/// The venue's side of its hall.
pub(crate) struct VenueSide {
    id: String,
    heads_at: Option<Instant>,
}

impl VenueSide {
    /// The venue `id` (`[venue] id`).
    pub(crate) fn new(id: &str) -> VenueSide {
        VenueSide {
            id: id.to_string(),
            heads_at: None,
        }
    }

    /// The subscription it adds to the hall's: the hub's asks (QoS 1).
    pub(crate) fn filters() -> Vec<(String, bool)> {
        vec![(VENUE_ASK.to_string(), true)]
    }

    /// True for the hub's asks.
    pub(crate) fn is_ask(topic: &str) -> bool {
        topic == VENUE_ASK
    }

    /// The hub's asks: the answers, and the `republish` commands for what the hall lacks.
    pub(crate) fn on_ask(
        &mut self,
        hall: &mut HallState,
        payload: &[u8],
        now: Instant,
    ) -> Vec<Outgoing> {
        let asks: Asks = match serde_json::from_slice(payload) {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!("{VENUE_ASK}: an ask that does not parse: {e}");
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for ask in asks.asks.into_iter().take(MAX_ASKS) {
            let Some(key) = BoardKey::new(&ask.tournament, &ask.board) else {
                continue;
            };
            let Some(answer) = hall.answer(&key, ask.from) else {
                continue;
            };
            if let Some(from) = answer.republish_from {
                out.extend(hall.republish(&key, from, now));
            }
            out.extend(fills(&key, answer.from, answer.to, answer.events));
        }
        out
    }

    /// Time passes: the heads, when due.
    pub(crate) fn tick(&mut self, hall: &HallState, now: Instant) -> Vec<Outgoing> {
        if self
            .heads_at
            .is_some_and(|at| now.saturating_duration_since(at) < HEADS_EVERY)
        {
            return Vec::new();
        }
        self.heads_at = Some(now);
        let mut heads = Heads {
            venue: self.id.clone(),
            boards: BTreeMap::new(),
        };
        for (key, seq) in hall.heads() {
            heads
                .boards
                .entry(key.tournament)
                .or_default()
                .insert(key.board, seq);
        }
        serde_json::to_vec(&heads)
            .map(|payload| Outgoing {
                topic: VENUE_HEADS.to_string(),
                payload,
                retain: false,
            })
            .into_iter()
            .collect()
    }
}

/// The answer for board `key` from `from` to `to`, in messages of at most [`FILL_CHUNK`]
/// events, each speaking for its own span (together, the whole one).
fn fills(
    key: &BoardKey,
    from: u64,
    to: u64,
    events: Vec<tengen_protocol::Envelope>,
) -> Vec<Outgoing> {
    let mut out = Vec::new();
    let mut start = from;
    let mut events = events.into_iter().peekable();
    loop {
        let chunk: Vec<_> = events.by_ref().take(FILL_CHUNK).collect();
        let end = if events.peek().is_some() {
            chunk.last().map_or(to, |e| e.seq)
        } else {
            to
        };
        let fill = Fill {
            tournament: key.tournament.clone(),
            board: key.board.clone(),
            from: start,
            to: end,
            events: chunk,
        };
        if let Ok(payload) = serde_json::to_vec(&fill) {
            out.push(Outgoing {
                topic: VENUE_FILL.to_string(),
                payload,
                retain: false,
            });
        }
        if end >= to {
            return out;
        }
        start = end + 1;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::test_support::{env, game_started, mv};

    fn hall_with(seqs: std::ops::RangeInclusive<u64>) -> HallState {
        let mut h = HallState::new("tengen", Some("venue-desk".into()));
        let now = Instant::now();
        for seq in seqs {
            let e = if seq == 1 {
                env(1, game_started(19, 0, "none"))
            } else {
                env(seq, mv(seq as u32 - 1, "D4"))
            };
            h.on_message("tengen/t/b1/events", &serde_json::to_vec(&e).unwrap(), now);
        }
        h
    }

    fn payloads(out: &[Outgoing]) -> Vec<(String, Value)> {
        out.iter()
            .map(|o| {
                (
                    o.topic.clone(),
                    serde_json::from_slice(&o.payload).unwrap_or(Value::Null),
                )
            })
            .collect()
    }

    #[test]
    fn heads_name_every_board_followed_every_two_seconds() {
        let mut hall = hall_with(1..=3);
        let mut v = VenueSide::new("paris");
        let t0 = Instant::now();
        let out = payloads(&v.tick(&hall, t0));
        assert_eq!(
            out,
            [(
                "venue/heads".to_string(),
                json!({"venue": "paris", "boards": {"t": {"b1": 3}}})
            )]
        );
        assert!(v.tick(&hall, t0 + HEADS_EVERY / 2).is_empty());
        hall.on_message("tengen/t/b2/status", br#"{"state":"online"}"#, t0);
        assert_eq!(v.tick(&hall, t0 + HEADS_EVERY).len(), 1);
    }

    #[test]
    fn an_ask_is_answered_in_chunks_that_cover_the_span() {
        let n = FILL_CHUNK as u64 + 10;
        let mut hall = hall_with(1..=n);
        let mut v = VenueSide::new("paris");
        let ask = json!({"asks": [{"tournament": "t", "board": "b1", "from": 3},
            {"tournament": "t", "board": "nope", "from": 1}]});
        let out = payloads(&v.on_ask(&mut hall, ask.to_string().as_bytes(), Instant::now()));
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|(t, _)| t == "venue/fill"));
        let spans: Vec<(u64, u64, usize)> = out
            .iter()
            .map(|(_, f)| {
                (
                    f["from"].as_u64().unwrap(),
                    f["to"].as_u64().unwrap(),
                    f["events"].as_array().unwrap().len(),
                )
            })
            .collect();
        assert_eq!(
            spans,
            [
                (3, FILL_CHUNK as u64 + 2, FILL_CHUNK),
                (FILL_CHUNK as u64 + 3, n, 8)
            ]
        );
        // Nothing yet past the newest: one empty answer.
        let ask = json!({"asks": [{"tournament": "t", "board": "b1", "from": n + 1}]});
        let out = payloads(&v.on_ask(&mut hall, ask.to_string().as_bytes(), Instant::now()));
        assert_eq!(out[0].1["events"], json!([]));
        assert!(out[0].1["to"].as_u64() < out[0].1["from"].as_u64());
        // Garbage: nothing, no panic.
        assert!(v
            .on_ask(&mut hall, b"{\"asks\":7}", Instant::now())
            .is_empty());
    }

    #[test]
    fn what_the_venue_lacks_its_board_is_asked_to_resend() {
        let mut hall = HallState::new("tengen", Some("venue-desk".into()));
        let now = Instant::now();
        // The hall came in late: its board's history did not come, it follows from 5.
        for seq in 5..=6 {
            let e = env(seq, mv(seq as u32, "D4"));
            hall.on_message("tengen/t/b1/events", &serde_json::to_vec(&e).unwrap(), now);
        }
        hall.tick(now + crate::boards::board_view::HISTORY_WAIT);
        let mut v = VenueSide::new("paris");
        let ask = json!({"asks": [{"tournament": "t", "board": "b1", "from": 2}]});
        let out = payloads(&v.on_ask(&mut hall, ask.to_string().as_bytes(), now));
        assert_eq!(out[0].0, "tengen/t/b1/cmd");
        assert_eq!(
            (&out[0].1["type"], &out[0].1["from_seq"]),
            (&json!("republish"), &json!(2))
        );
        assert_eq!((&out[1].1["from"], &out[1].1["to"]), (&json!(5), &json!(6)));
    }
}
