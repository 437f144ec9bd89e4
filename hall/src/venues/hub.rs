//! The hub's side (`[hall] venues`), sans-IO: what arrives under `venues/{venue}/` goes to
//! the [`HallState`] (a hub's, whose boards are followed strictly) if that venue may carry
//! the board, and what the boards miss is asked of their venue. The hub believes a board
//! only from the one venue its config names for it (the first heard, when two venues'
//! entries could both carry it), and only boards that entry names.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use serde_json::{json, Value};
use tengen_protocol::topics::{parse_board_topic, BoardKey, Leaf};
use tengen_protocol::Timestamp;

use crate::boards::hall_state::{HallState, Outgoing};
use crate::config::venues::Venue;
use crate::venues::link::VenueLink;
use crate::venues::wire::{self, Ask, Asks, Fill, Heads};

/// How many refused (venue, board) pairs are remembered to log each once.
const MAX_LOGGED: usize = 1024;

/// Every venue of the hub and its link.
pub(crate) struct Hub {
    venues: Vec<Venue>,
    links: Vec<VenueLink>,
    /// Which venue carries each board (its index), from the first heard.
    owner: HashMap<BoardKey, usize>,
    /// What was refused and logged once: (topic's venue, board or topic).
    logged: BTreeSet<(String, String)>,
}

impl Hub {
    /// A hub of `venues`, none heard from yet.
    pub(crate) fn new(venues: Vec<Venue>) -> Hub {
        Hub {
            links: venues.iter().map(|_| VenueLink::default()).collect(),
            venues,
            owner: HashMap::new(),
            logged: BTreeSet::new(),
        }
    }

    /// Whether some venue may carry board `key` (the archive seeds only those).
    pub(crate) fn carried(&self, key: &BoardKey) -> bool {
        self.venues.iter().any(|v| v.carries(key))
    }

    /// Logs `what` once per (venue, subject).
    fn refuse(&mut self, venue: &str, subject: String, what: impl FnOnce() -> String) {
        if self.logged.len() < MAX_LOGGED && self.logged.insert((venue.to_string(), subject)) {
            tracing::warn!("{}", what());
        }
    }

    /// The index of venue `venue` if it may carry board `key` and no other venue has it.
    fn claim(&mut self, venue: usize, key: &BoardKey) -> bool {
        let id = self.venues[venue].id.clone();
        if !self.venues[venue].carries(key) {
            self.refuse(&id, format!("{}/{}", key.tournament, key.board), || {
                format!(
                    "venue {id}: board {} of {} is not one it may carry ([hall] venues): \
                     dropped",
                    key.board, key.tournament
                )
            });
            return false;
        }
        let owner = *self.owner.entry(key.clone()).or_insert(venue);
        if owner != venue {
            let other = self.venues[owner].id.clone();
            self.refuse(&id, format!("{}/{}", key.tournament, key.board), || {
                format!(
                    "venue {id}: board {} of {} comes from venue {other} already: dropped",
                    key.board, key.tournament
                )
            });
            return false;
        }
        true
    }

    /// One message from the hub's broker, received `now` (`wall` in UTC). Returns what to
    /// publish: the public tree's messages, the asks to the venues.
    pub(crate) fn on_message(
        &mut self,
        hall: &mut HallState,
        topic: &str,
        payload: &[u8],
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Outgoing> {
        let Some((venue, rest)) = wire::split_hub_topic(topic) else {
            return Vec::new();
        };
        let Some(v) = self.venues.iter().position(|e| e.id == venue) else {
            let venue = venue.to_string();
            self.refuse(&venue, String::new(), || {
                format!("{topic}: venue {venue} is not one of this hub's ([hall] venues)")
            });
            return Vec::new();
        };
        self.links[v].heard(now, wall);
        let mut out = match rest {
            "bridge" => {
                self.links[v].bridge(payload == b"1", wall);
                Vec::new()
            }
            "hall/heads" => {
                self.on_heads(v, hall, payload, now, wall);
                Vec::new()
            }
            "hall/fill" => self.on_fill(v, hall, payload, now, wall),
            _ => match parse_board_topic("boards", rest) {
                Some((key, leaf @ (Leaf::Events | Leaf::Status))) => {
                    if !self.claim(v, &key) {
                        return Vec::new();
                    }
                    if leaf == Leaf::Events {
                        self.links[v].events_live += 1;
                    }
                    hall.on_board_message(&key, leaf, topic, payload, now, wall)
                }
                _ => Vec::new(),
            },
        };
        out.extend(self.asks(hall));
        out
    }

    /// The venue hall's heads: what the hub lacks is asked for.
    fn on_heads(
        &mut self,
        v: usize,
        hall: &mut HallState,
        payload: &[u8],
        now: Instant,
        wall: Timestamp,
    ) {
        let id = self.venues[v].id.clone();
        let heads: Heads = match serde_json::from_slice(payload) {
            Ok(h) => h,
            Err(e) => {
                self.refuse(&id, "heads".into(), || {
                    format!("venue {id}: heads that do not parse: {e}")
                });
                return;
            }
        };
        if heads.venue != id {
            self.refuse(&id, "heads-id".into(), || {
                format!(
                    "venue {id}: its hall says it is venue {:?} ([venue] id): check the \
                     bridge's topics and the hall's config",
                    heads.venue
                )
            });
        }
        self.links[v].heads_came(now, wall);
        let mut seen = HashMap::new();
        for (t, boards) in heads.boards {
            for (b, seq) in boards {
                let Some(key) = BoardKey::new(&t, &b) else {
                    continue;
                };
                if self.claim(v, &key) {
                    hall.on_head(&key, seq, now, wall);
                    seen.insert(key, seq);
                }
            }
        }
        self.links[v].heads = seen;
    }

    /// A venue's answer for one board.
    fn on_fill(
        &mut self,
        v: usize,
        hall: &mut HallState,
        payload: &[u8],
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Outgoing> {
        let id = self.venues[v].id.clone();
        let fill: Fill = match serde_json::from_slice(payload) {
            Ok(f) => f,
            Err(e) => {
                self.refuse(&id, "fill".into(), || {
                    format!("venue {id}: an answer that does not parse: {e}")
                });
                return Vec::new();
            }
        };
        let Some(key) = BoardKey::new(&fill.tournament, &fill.board) else {
            return Vec::new();
        };
        if !self.claim(v, &key) {
            return Vec::new();
        }
        let events: Vec<_> = fill
            .events
            .into_iter()
            .filter(|e| e.board == key.board && (fill.from..=fill.to).contains(&e.seq))
            .collect();
        let new = events.iter().filter(|e| !hall.holds(&key, e.seq)).count();
        let link = &mut self.links[v];
        link.fills += 1;
        link.events_filled += new as u64;
        hall.on_filled(&key, (fill.from, fill.to), events, now, wall)
    }

    /// A second has passed: what the boards still miss is asked for again.
    pub(crate) fn tick(&mut self, hall: &mut HallState) -> Vec<Outgoing> {
        self.asks(hall)
    }

    /// The asks for what the hall's boards miss, one message per venue.
    fn asks(&mut self, hall: &mut HallState) -> Vec<Outgoing> {
        let mut by_venue: BTreeMap<usize, Vec<Ask>> = BTreeMap::new();
        for w in hall.take_wanted() {
            if let Some(&v) = self.owner.get(&w.key) {
                by_venue.entry(v).or_default().push(Ask {
                    tournament: w.key.tournament,
                    board: w.key.board,
                    from: w.from,
                });
            }
        }
        by_venue
            .into_iter()
            .filter_map(|(v, asks)| {
                self.links[v].asks += asks.len() as u64;
                let payload = serde_json::to_vec(&Asks { asks }).ok()?;
                Some(Outgoing {
                    topic: wire::ask_topic(&self.venues[v].id),
                    payload,
                    retain: false,
                })
            })
            .collect()
    }

    /// The director's view (`/api/console/venues`): each venue's link, with how many
    /// events the hub lacks of what the venue holds and how many boards wait for an
    /// answer; with `boards`, each board's `seq` at the hub and at the venue.
    pub(crate) fn to_json(&self, hall: &HallState, now: Instant, boards: bool) -> Value {
        let mut carried: Vec<Vec<&BoardKey>> = vec![Vec::new(); self.venues.len()];
        for (key, &v) in &self.owner {
            carried[v].push(key);
        }
        let venues: Vec<Value> = self
            .venues
            .iter()
            .zip(&self.links)
            .zip(&mut carried)
            .map(|((venue, link), keys)| {
                keys.sort();
                let mut behind = 0u64;
                let mut waiting = 0usize;
                let mut rows = Vec::new();
                for key in keys.iter() {
                    let (seq, _, wait) = hall.following(key).unwrap_or((0, 0, true));
                    let head = link.heads.get(*key).copied().unwrap_or(0);
                    behind += head.saturating_sub(seq);
                    waiting += usize::from(wait);
                    if boards {
                        rows.push(json!([key.tournament, key.board, seq, head, wait]));
                    }
                }
                let mut v = link.to_json(&venue.id, now, keys.len(), behind, waiting);
                if boards {
                    v["board_seqs"] = Value::Array(rows);
                }
                v
            })
            .collect();
        json!({ "venues": venues })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::json;
    use tengen_protocol::Envelope;

    use super::*;
    use crate::config::venues::VenueBoards;
    use crate::test_support::{env, game_started, mv};

    fn venue(id: &str, boards: &[&str]) -> Venue {
        Venue {
            id: id.into(),
            tournaments: BTreeSet::from(["t".to_string()]),
            boards: VenueBoards::Listed(boards.iter().map(|b| b.to_string()).collect()),
        }
    }

    fn hub() -> (Hub, HallState) {
        (
            Hub::new(vec![venue("paris", &["b1"]), venue("lyon", &["b2"])]),
            HallState::new("tengen", None).into_hub(),
        )
    }

    fn event(seq: u64) -> Envelope {
        if seq == 1 {
            env(1, game_started(19, 0, "none"))
        } else {
            env(
                seq,
                mv(
                    seq as u32 - 1,
                    ["D4", "Q16", "C3", "R17", "E5"][seq as usize % 5],
                ),
            )
        }
    }

    fn at(h: &mut Hub, hall: &mut HallState, topic: &str, payload: &[u8]) -> Vec<Outgoing> {
        h.on_message(hall, topic, payload, Instant::now(), Timestamp::now())
    }

    fn live(h: &mut Hub, hall: &mut HallState, seq: u64) -> Vec<Outgoing> {
        let e = serde_json::to_vec(&event(seq)).unwrap();
        at(h, hall, "venues/paris/boards/t/b1/events", &e)
    }

    fn seq(hall: &HallState) -> u64 {
        hall.following(&BoardKey::new("t", "b1").unwrap())
            .unwrap()
            .0
    }

    #[test]
    fn a_gap_is_asked_of_the_venue_and_filled_from_its_answer() {
        let (mut h, mut hall) = hub();
        assert!(live(&mut h, &mut hall, 1).is_empty());
        live(&mut h, &mut hall, 2);
        assert_eq!(seq(&hall), 2);
        // 3 and 4 lost by the brokers on the way.
        let out = live(&mut h, &mut hall, 5);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].topic, "venues/paris/hub/ask");
        let asks: Value = serde_json::from_slice(&out[0].payload).unwrap();
        assert_eq!(
            asks,
            json!({"asks": [{"tournament": "t", "board": "b1", "from": 3}]})
        );
        assert_eq!(seq(&hall), 2, "held");
        let fill = Fill {
            tournament: "t".into(),
            board: "b1".into(),
            from: 3,
            to: 5,
            events: (3..=5).map(event).collect(),
        };
        at(
            &mut h,
            &mut hall,
            "venues/paris/hall/fill",
            &serde_json::to_vec(&fill).unwrap(),
        );
        assert_eq!(seq(&hall), 5);
        let v = h.to_json(&hall, Instant::now(), true);
        let paris = &v["venues"][0];
        assert_eq!(
            (
                &paris["events_live"],
                &paris["events_filled"],
                &paris["asks"],
                &paris["state"]
            ),
            (&json!(3), &json!(2), &json!(1), &json!("up")),
            "{v}"
        );
        assert_eq!(paris["board_seqs"], json!([["t", "b1", 5, 0, false]]));
    }

    #[test]
    fn a_venue_is_believed_only_for_its_own_boards() {
        let (mut h, mut hall) = hub();
        let e = serde_json::to_vec(&event(1)).unwrap();
        at(&mut h, &mut hall, "venues/lyon/boards/t/b1/events", &e);
        at(&mut h, &mut hall, "venues/nice/boards/t/b1/events", &e);
        at(&mut h, &mut hall, "venues/paris/boards/t/b9/events", &e);
        assert_eq!(hall.board_count(), 0);
        // Nor in its answers.
        let fill = json!({"tournament": "t", "board": "b1", "from": 1, "to": 1,
            "events": [event(1)]});
        at(
            &mut h,
            &mut hall,
            "venues/lyon/hall/fill",
            fill.to_string().as_bytes(),
        );
        assert_eq!(hall.board_count(), 0);
        // Another board's event in an answer is left out.
        let mut other = event(1);
        other.board = "b2".into();
        let fill = json!({"tournament": "t", "board": "b1", "from": 1, "to": 1,
            "events": [other]});
        at(
            &mut h,
            &mut hall,
            "venues/paris/hall/fill",
            fill.to_string().as_bytes(),
        );
        assert_eq!(seq(&hall), 0);
    }

    #[test]
    fn heads_reveal_a_lost_tail_and_the_link_goes_down_with_the_bridge() {
        let (mut h, mut hall) = hub();
        live(&mut h, &mut hall, 1);
        live(&mut h, &mut hall, 2);
        let heads = json!({"venue": "paris", "boards": {"t": {"b1": 4}}});
        let out = at(
            &mut h,
            &mut hall,
            "venues/paris/hall/heads",
            heads.to_string().as_bytes(),
        );
        let asks: Value = serde_json::from_slice(&out[0].payload).unwrap();
        assert_eq!(asks["asks"][0]["from"], 3);
        let v = h.to_json(&hall, Instant::now(), false);
        assert_eq!(
            (&v["venues"][0]["state"], &v["venues"][0]["behind"]),
            (&json!("lagging"), &json!(2))
        );
        at(&mut h, &mut hall, "venues/paris/bridge", b"0");
        let v = h.to_json(&hall, Instant::now(), false);
        assert_eq!(v["venues"][0]["state"], "down");
        assert!(v["venues"][0]["down_since"].is_string());
        assert_eq!(v["venues"][1]["state"], "unknown");
    }

    #[test]
    fn a_hub_sends_no_command() {
        let (mut h, mut hall) = hub();
        live(&mut h, &mut hall, 1);
        let key = BoardKey::new("t", "b1").unwrap();
        let mut body = serde_json::Map::new();
        body.insert("type".into(), json!("pause"));
        let e = hall
            .command(&key, "chief", body, Instant::now())
            .unwrap_err();
        assert!(e.to_string().contains("hub"), "{e}");
        assert!(hall.republish(&key, 1, Instant::now()).is_empty());
    }
}
