//! Commands the hall sends to boards (`.../cmd`) and what became of them: pending until the
//! board's `.../cmd/reply` with the same id arrives, then acknowledged or refused. With a
//! command key, each is stamped for its board (the tournament and board ids of its topics)
//! and the time it is sent, and signed ([`tengen_protocol::signing::sign_for`]).

use std::collections::VecDeque;
use std::time::Instant;

use rand::Rng;
use serde_json::{json, Map, Value};
use tengen_protocol::command::{check_fields, one_line, Command, CommandEnvelope, Reply};
use tengen_protocol::signing::{sign_for, Stamp};
use tengen_protocol::topics::BoardKey;

use crate::wall_clock;
use tengen_protocol::Timestamp;
use thiserror::Error;

/// How many commands the log keeps (the oldest go first).
const KEEP: usize = 500;

/// Why a command from the console was not sent (one line: what serde quotes of the body
/// has its control characters escaped).
#[derive(Debug, Error)]
pub enum CommandError {
    /// The body is not a command of docs/mqtt-http.md (unknown type, missing or extra field).
    #[error("not a valid command: {0}")]
    Invalid(String),
    /// A field is over its limit or holds a control character (the board would refuse it:
    /// [`tengen_protocol::command::check_fields`]).
    #[error("not a valid command: {0}")]
    Field(#[from] tengen_protocol::CommandError),
    /// The body names no board (`"tournament"` and `"board"` ids).
    #[error("give \"tournament\" and \"board\" ids")]
    NoBoard,
    /// The hall has not heard of that board.
    #[error("no board {}/{} in this hall", .0.tournament, .0.board)]
    UnknownBoard(BoardKey),
    /// A command in the hall's own name, from a hall without `[hall] identity`.
    #[error("the hall has no [hall] identity to send its own commands in")]
    NoIdentity,
    /// A hub (`[hall] venues`) sends no command to any board: the arbiters stay in the
    /// venue, at its own hall's console.
    #[error("this hall is a hub: commands go to a board from its venue's console")]
    Hub,
}

impl CommandError {
    /// The error as a message id of the console's (`console-err--{id}`) and its values,
    /// for the console to say in its reader's words.
    pub(crate) fn message(&self) -> (&'static str, Value) {
        match self {
            CommandError::Invalid(e) => ("invalid", json!({"error": e})),
            CommandError::Field(tengen_protocol::CommandError::Field { field, problem }) => (
                "bad-field",
                json!({"field": field, "problem": problem.to_string()}),
            ),
            CommandError::Field(e) => ("invalid", json!({"error": e.to_string()})),
            CommandError::NoBoard => ("no-board", json!({})),
            CommandError::UnknownBoard(k) => ("unknown-board", json!({"board": k.board})),
            CommandError::NoIdentity => ("invalid", json!({"error": self.to_string()})),
            CommandError::Hub => ("hub", json!({})),
        }
    }
}

impl From<serde_json::Error> for CommandError {
    fn from(e: serde_json::Error) -> CommandError {
        CommandError::Invalid(one_line(&e.to_string()))
    }
}

/// Where a command stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// Sent; no reply yet.
    Pending,
    /// The board replied `ok: true`.
    Acked,
    /// The board replied `ok: false` with this error (and its reason, from boards that
    /// give one).
    Refused(String, Option<tengen_protocol::command::RefusalReason>),
}

/// One command sent.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    /// The command's id.
    pub(crate) id: String,
    /// The board it went to.
    pub(crate) key: BoardKey,
    /// The command.
    pub(crate) command: CommandEnvelope,
    /// The whole payload as published (with `sig` when the hall signs).
    pub(crate) payload: Map<String, Value>,
    /// Where it stands.
    outcome: Outcome,
    /// When it was sent.
    at: Instant,
}

/// The hall's commands, newest last.
#[derive(Debug)]
pub(crate) struct CommandLog {
    sent: VecDeque<Sent>,
    /// The command key shared with the boards (`hall.command_key_file`): commands are
    /// signed with it (see [`tengen_protocol::signing`]).
    key: Option<Vec<u8>>,
    /// The commands a previous run of the hall sent (from the console store), as
    /// `/api/console/commands` showed them, with when they were sent; older than `sent`.
    before: VecDeque<(Value, Instant)>,
    /// What arbiters did at the hall rather than on a board (a result confirmed, one a
    /// correction rewrote), as the log shows it, with when; newest last.
    notes: VecDeque<(Value, Instant)>,
}

impl CommandLog {
    /// An empty log. Each command's id is a random 64-bit number in hex: unique among
    /// halls and across restarts (a board refuses an id it has seen), and it tells whoever
    /// reads a `cmd` topic nothing of the hall (no client id, no count) (issue 21).
    pub(crate) fn new() -> CommandLog {
        CommandLog {
            sent: VecDeque::new(),
            key: None,
            before: VecDeque::new(),
            notes: VecDeque::new(),
        }
    }

    /// Signs every command from now on with `key` (`None`: unsigned); boards with
    /// `mqtt.command_key_file` take only signed commands.
    pub(crate) fn set_key(&mut self, key: Option<Vec<u8>>) {
        self.key = key;
    }

    /// The wire payload of `envelope` for board `to`, with the stamp (`tournament`,
    /// `board`, `at` = `wall`) and `sig` when the hall has a command key.
    fn seal(
        &self,
        envelope: &CommandEnvelope,
        to: &BoardKey,
        wall: Timestamp,
    ) -> Result<Map<String, Value>, serde_json::Error> {
        let mut object = match serde_json::to_value(envelope)? {
            Value::Object(object) => object,
            // A struct always serialises as an object.
            _ => Map::new(),
        };
        if let Some(key) = &self.key {
            let stamp = Stamp::new(&to.tournament, &to.board, wall.millis());
            sign_for(key, &stamp, &mut object);
        }
        Ok(object)
    }

    /// Builds a command from the console's JSON `body` (`{"type":"confirm","alert":"a3"}`),
    /// signed `by`, checks it against the wire contract's commands, and logs it as pending; `wall` is
    /// `now` on the wall clock (the stamp's `at`). Returns what to publish.
    pub(crate) fn prepare(
        &mut self,
        key: &BoardKey,
        by: &str,
        body: Map<String, Value>,
        now: Instant,
        wall: Timestamp,
    ) -> Result<Sent, CommandError> {
        let (envelope, payload) = self.build(key, by, body, wall)?;
        Ok(self.remember(key, envelope, payload, now))
    }

    /// As [`CommandLog::prepare`], but not logged: the hall's own errands in its own name
    /// (fetching a finished game's black box, a command a window), which are not the
    /// arbiters' doing and would push their commands out of the log.
    pub(crate) fn prepare_unlogged(
        &mut self,
        key: &BoardKey,
        by: &str,
        body: Map<String, Value>,
        now: Instant,
        wall: Timestamp,
    ) -> Result<Sent, CommandError> {
        let (command, payload) = self.build(key, by, body, wall)?;
        Ok(Sent {
            id: command.id.clone(),
            key: key.clone(),
            command,
            payload,
            outcome: Outcome::Pending,
            at: now,
        })
    }

    /// Whether `body` from `by` is a command [`CommandLog::prepare`] would send, without
    /// sending or logging it: a sequence of commands checks them all before the first goes.
    pub(crate) fn check(
        &self,
        key: &BoardKey,
        by: &str,
        body: Map<String, Value>,
    ) -> Result<(), CommandError> {
        self.build(key, by, body, Timestamp::now()).map(|_| ())
    }

    /// The command of `body` from `by`, checked, and its payload, sealed.
    fn build(
        &self,
        key: &BoardKey,
        by: &str,
        body: Map<String, Value>,
        wall: Timestamp,
    ) -> Result<(CommandEnvelope, Map<String, Value>), CommandError> {
        // The hall sets the id and the sender, whatever the body says.
        let mut object = body;
        object.insert("id".into(), Value::String(self.next_id()));
        object.insert("by".into(), Value::String(by.to_string()));
        let envelope: CommandEnvelope = serde_json::from_value(Value::Object(object))?;
        check_fields(&envelope)?;
        let payload = self.seal(&envelope, key, wall)?;
        Ok((envelope, payload))
    }

    /// A `republish` from `from_seq`, signed `by` (the hall's identity), at `now` (`wall`
    /// on the wall clock).
    pub(crate) fn republish(
        &mut self,
        key: &BoardKey,
        by: &str,
        from_seq: u64,
        now: Instant,
        wall: Timestamp,
    ) -> Result<Sent, CommandError> {
        let envelope = CommandEnvelope {
            id: self.next_id(),
            by: Some(by.to_string()),
            command: Command::Republish { from_seq },
        };
        let payload = self.seal(&envelope, key, wall)?;
        Ok(self.remember(key, envelope, payload, now))
    }

    /// A new command id: 16 hex digits of a random 64-bit number, none of the log's.
    fn next_id(&self) -> String {
        loop {
            let id = format!("{:016x}", rand::rng().random::<u64>());
            if !self.sent.iter().any(|s| s.id == id) {
                return id;
            }
        }
    }

    /// Records a command as pending (keeping the last `KEEP`) and returns it.
    fn remember(
        &mut self,
        key: &BoardKey,
        command: CommandEnvelope,
        payload: Map<String, Value>,
        now: Instant,
    ) -> Sent {
        let sent = Sent {
            id: command.id.clone(),
            key: key.clone(),
            command,
            payload,
            outcome: Outcome::Pending,
            at: now,
        };
        self.sent.push_back(sent.clone());
        while self.sent.len() > KEEP {
            self.sent.pop_front();
        }
        sent
    }

    /// A `.../cmd/reply` from board `key`: marks the matching command. Returns the command
    /// when the reply was for one of this hall's commands (other halls' replies are ignored).
    pub(crate) fn on_reply(&mut self, key: &BoardKey, reply: &Reply) -> Option<&Sent> {
        let id = reply.id.as_deref()?;
        let sent = self
            .sent
            .iter_mut()
            .rev()
            .find(|s| s.id == id && &s.key == key)?;
        sent.outcome = if reply.ok {
            Outcome::Acked
        } else {
            let error = reply.error.as_deref().unwrap_or("refused without a reason");
            Outcome::Refused(error.to_string(), reply.reason.clone())
        };
        Some(sent)
    }

    /// Logs what arbiter `by` did at the hall, not on a board (`what`: `{"type":
    /// "confirm_result", ...}`), for board `key` when there is one: shown with the commands,
    /// done at once.
    pub(crate) fn note(&mut self, key: Option<&BoardKey>, by: &str, what: Value, now: Instant) {
        let entry = json!({
            "id": self.next_id(),
            "tournament": key.map(|k| k.tournament.clone()),
            "board": key.map(|k| k.board.clone()),
            "type": what.get("type"),
            "by": by,
            "command": what,
            "status": "acked",
            "error": null,
        });
        self.notes.push_back((entry, now));
        while self.notes.len() > KEEP {
            self.notes.pop_front();
        }
    }

    /// The notes about game `game` of board `key` (this run's and the previous run's),
    /// oldest first, each with when it was made (ms since the epoch, the wall clock being
    /// `wall_ms` at `now`).
    pub(crate) fn notes_for(
        &self,
        key: &BoardKey,
        game: &str,
        now: Instant,
        wall_ms: u64,
    ) -> Vec<(Value, u64)> {
        let about = |e: &Value| {
            e["tournament"] == json!(key.tournament)
                && e["board"] == json!(key.board)
                && e["command"]["game"] == json!(game)
        };
        let mut out: Vec<(Value, u64)> = self
            .before
            .iter()
            .chain(self.notes.iter())
            .filter(|(e, _)| about(e))
            .map(|(e, at)| (e.clone(), wall_clock::wall_of(*at, now, wall_ms)))
            .collect();
        out.sort_by_key(|(_, at)| *at);
        out
    }

    /// The log as JSON for `/api/console/commands`, newest first: the arbiters' commands
    /// (the hall's own `republish` requests are its business, not the arbiters').
    pub(crate) fn to_json(&self, now: Instant) -> Value {
        let age = |at: Instant| {
            u64::try_from(now.saturating_duration_since(at).as_millis()).unwrap_or(u64::MAX)
        };
        let before = self.before.iter().map(|(entry, at)| {
            let mut entry = entry.clone();
            if let Some(o) = entry.as_object_mut() {
                o.insert("age_ms".into(), json!(age(*at)));
            }
            entry
        });
        let live = self.live_entries(now).map(|(mut e, at)| {
            if let Some(o) = e.as_object_mut() {
                o.insert("age_ms".into(), json!(age(at)));
            }
            e
        });
        Value::Array(live.chain(before).take(KEEP).collect())
    }

    /// The log for the console store, newest first: each entry as `to_json` gives it, with
    /// `at_ms` (when it was sent, ms since the epoch, the wall clock being `wall_ms` at
    /// `now`) instead of its age.
    pub(crate) fn saved(&self, now: Instant, wall_ms: u64) -> Vec<Value> {
        self.live_entries(now)
            .chain(self.before.iter().cloned())
            .take(KEEP)
            .map(|(mut entry, at)| {
                if let Some(o) = entry.as_object_mut() {
                    o.remove("age_ms");
                    o.insert("at_ms".into(), json!(wall_clock::wall_of(at, now, wall_ms)));
                }
                entry
            })
            .collect()
    }

    /// Takes back the log a previous run kept (`saved`), shown after this run's commands.
    pub(crate) fn restore(&mut self, saved: Vec<Value>, now: Instant, wall_ms: u64) {
        self.before = saved
            .into_iter()
            .take(KEEP)
            .map(|mut entry| {
                let at_ms = entry
                    .get("at_ms")
                    .and_then(Value::as_u64)
                    .unwrap_or(wall_ms);
                if let Some(o) = entry.as_object_mut() {
                    o.remove("at_ms");
                }
                (entry, wall_clock::instant_of(at_ms, now, wall_ms))
            })
            .collect();
    }

    /// This run's commands and notes as `to_json` shows them (without `age_ms`), newest
    /// first, each with when it was sent.
    fn live_entries(&self, _now: Instant) -> impl Iterator<Item = (Value, Instant)> + '_ {
        let commands = self
            .sent
            .iter()
            .filter(|s| !matches!(s.command.command, Command::Republish { .. }))
            .map(move |s| {
                let (status, error, reason) = match &s.outcome {
                    Outcome::Pending => ("pending", Value::Null, Value::Null),
                    Outcome::Acked => ("acked", Value::Null, Value::Null),
                    Outcome::Refused(e, r) => (
                        "refused",
                        Value::String(e.clone()),
                        serde_json::to_value(r).unwrap_or(Value::Null),
                    ),
                };
                let entry = json!({
                    "id": s.id,
                    "tournament": s.key.tournament,
                    "board": s.key.board,
                    "type": s.payload.get("type"),
                    "by": s.command.by,
                    "command": s.payload,
                    "status": status,
                    "error": error,
                    "reason": reason,
                });
                (entry, s.at)
            });
        let mut all: Vec<(Value, Instant)> = commands.chain(self.notes.iter().cloned()).collect();
        // Oldest first within each, then all newest first (a stable sort keeps the order of
        // two at the same instant).
        all.sort_by_key(|(_, at)| std::cmp::Reverse(*at));
        all.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::command::decode_checked;
    use tengen_protocol::signing::SenderPolicy;

    /// The wall clock of the tests.
    const WALL: Timestamp = Timestamp::from_millis(1_800_000_000_000);

    fn key() -> BoardKey {
        BoardKey::new("t", "b1").unwrap()
    }

    fn body(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn reply(id: &str, ok: bool, error: Option<&str>) -> Reply {
        Reply {
            id: Some(id.to_string()),
            ok,
            error: error.map(str::to_string),
            frames: None,
            reason: None,
        }
    }

    #[test]
    fn with_a_key_every_command_is_signed_so_a_strict_board_takes_it() {
        let secret = b"hall-and-boards-share-this".to_vec();
        let board = SenderPolicy::new(vec!["chief".into()], Some(&secret));
        let now = Instant::now();
        let mut log = CommandLog::new();
        log.set_key(Some(secret));
        let sent = log
            .prepare(&key(), "chief", body(json!({"type": "pause"})), now, WALL)
            .unwrap();
        let again = log.republish(&key(), "chief", 5, now, WALL).unwrap();
        for s in [sent, again] {
            let wire = serde_json::to_vec(&s.payload).unwrap();
            let checked = decode_checked(&wire, &board);
            assert!(checked.is_ok(), "{:?}", checked.err());
            let checked = checked.unwrap();
            assert_eq!(checked.command, s.command);
            // Stamped for its board, at the time it was sent.
            assert_eq!(checked.stamp, Some(Stamp::new("t", "b1", WALL.millis())));
        }
        let mut unsigned = CommandLog::new();
        let s = unsigned
            .prepare(&key(), "chief", body(json!({"type": "pause"})), now, WALL)
            .unwrap();
        let wire = serde_json::to_vec(&s.payload).unwrap();
        assert!(decode_checked(&wire, &board).is_err());
    }

    #[test]
    fn the_halls_own_republish_requests_are_not_listed() {
        let now = Instant::now();
        let mut log = CommandLog::new();
        log.republish(&key(), "hall-desk", 1, now, WALL).unwrap();
        log.prepare(&key(), "chief", body(json!({"type": "pause"})), now, WALL)
            .unwrap();
        log.republish(&key(), "hall-desk", 9, now, WALL).unwrap();
        let listed = log.to_json(now);
        assert_eq!(listed.as_array().map(Vec::len), Some(1));
        assert_eq!(listed[0]["type"], "pause");
    }

    #[test]
    fn pending_until_the_board_replies() {
        let now = Instant::now();
        let mut log = CommandLog::new();
        let s = log
            .prepare(
                &key(),
                "chief",
                body(json!({"type": "confirm", "alert": "a3"})),
                now,
                WALL,
            )
            .unwrap();
        let id = s.id.clone();
        assert_eq!(
            Value::Object(s.payload),
            json!({"id": id, "by": "chief", "type": "confirm", "alert": "a3"})
        );
        assert_eq!(log.to_json(now)[0]["status"], "pending");
        // A reply for another board or another hall's id changes nothing.
        let other = BoardKey::new("t", "b2").unwrap();
        assert!(log.on_reply(&other, &reply(&id, true, None)).is_none());
        assert!(log.on_reply(&key(), &reply("h2-1", true, None)).is_none());
        assert_eq!(log.to_json(now)[0]["status"], "pending");
        assert!(log.on_reply(&key(), &reply(&id, true, None)).is_some());
        assert_eq!(log.to_json(now)[0]["status"], "acked");
        assert_eq!(log.to_json(now)[0]["by"], "chief");
    }

    #[test]
    fn the_console_cannot_choose_the_id_or_the_sender() {
        let now = Instant::now();
        let mut log = CommandLog::new();
        let s = log
            .prepare(
                &key(),
                "chief",
                body(json!({"type": "pause", "id": "x", "by": "someone"})),
                now,
                WALL,
            )
            .unwrap();
        let id = s.id.clone();
        assert_ne!(id, "x");
        assert_eq!(
            Value::Object(s.payload),
            json!({"id": id, "by": "chief", "type": "pause"})
        );
    }

    #[test]
    fn refusals_keep_the_reason() {
        let now = Instant::now();
        let mut log = CommandLog::new();
        let id = log
            .prepare(&key(), "chief", body(json!({"type": "pause"})), now, WALL)
            .unwrap()
            .id;
        log.on_reply(&key(), &reply(&id, false, Some("no game")));
        let j = log.to_json(now);
        assert_eq!(
            (j[0]["status"].as_str(), j[0]["error"].as_str()),
            (Some("refused"), Some("no game"))
        );
    }

    #[test]
    fn invalid_commands_are_not_logged() {
        let now = Instant::now();
        let mut log = CommandLog::new();
        for bad in [
            json!({"type": "explode"}),
            json!({"type": "confirm"}),
            json!({"type": "adjust_time", "color": "X", "ms": 1}),
        ] {
            let e = log
                .prepare(&key(), "chief", body(bad), now, WALL)
                .unwrap_err();
            assert!(matches!(e, CommandError::Invalid(_)));
        }
        for bad in [
            json!({"type": "new_game", "black": "Lee\nSedol"}),
            json!({"type": "new_game", "game": "R1/T2"}),
        ] {
            let e = log
                .prepare(&key(), "chief", body(bad), now, WALL)
                .unwrap_err();
            assert!(matches!(e, CommandError::Field(_)), "{e}");
        }
        let e = log
            .prepare(
                &key(),
                "chief",
                body(json!({"type": "new\ngame"})),
                now,
                WALL,
            )
            .unwrap_err();
        assert!(!e.to_string().contains('\n'), "{e}");
        assert_eq!(log.to_json(now), json!([]));
        assert!(log
            .prepare(&key(), "chief", body(json!({"type": "pause"})), now, WALL)
            .is_ok());
    }

    /// Issue 21: an id is 16 hex digits of chance, none like another, and nothing in it
    /// names the hall or counts its commands.
    #[test]
    fn command_ids_are_random_and_unique() {
        let now = Instant::now();
        let mut log = CommandLog::new();
        let mut ids = std::collections::BTreeSet::new();
        for n in 0..300 {
            let s = if n % 2 == 0 {
                log.prepare(&key(), "chief", body(json!({"type": "pause"})), now, WALL)
            } else {
                log.republish(&key(), "hall-desk", 1, now, WALL)
            }
            .unwrap();
            assert_eq!(s.id.len(), 16, "{}", s.id);
            assert!(s.id.bytes().all(|b| b.is_ascii_hexdigit()), "{}", s.id);
            assert!(ids.insert(s.id.clone()), "{} twice", s.id);
        }
        let other = CommandLog::new().next_id();
        assert!(!ids.contains(&other));
    }
}
