//! Commands on `{root}/cmd`: decoded strictly with [`crate::command::decode`]; a malformed or
//! unknown command is answered with an error on `{root}/cmd/reply` and goes nowhere else;
//! a valid one goes to the service as a [`CommandRequest`] and the service's answer is the
//! reply.

use std::collections::{HashMap, VecDeque};

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::command::{decode, CommandEnvelope, CommandError};
use crate::sender::SenderPolicy;

/// A decoded command handed to the service, with the channel its answer goes back on:
/// `Ok(())` or `Err(one readable sentence)`.
#[derive(Debug)]
pub struct CommandRequest {
    /// The command.
    pub command: CommandEnvelope,
    /// Where the service answers.
    pub reply: oneshot::Sender<Result<(), String>>,
}

/// The channel pair the service owns: it receives [`CommandRequest`]s from the publisher.
pub fn channel(capacity: usize) -> (mpsc::Sender<CommandRequest>, mpsc::Receiver<CommandRequest>) {
    mpsc::channel(capacity)
}

/// A `cmd` payload that could not be decoded: the id to answer (from the JSON if it has a
/// string `id`, else null) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// The command's `id`, or null.
    pub id: Value,
    /// One line: what is wrong.
    pub error: String,
}

/// Decodes a `cmd` payload, or says what to answer.
pub fn parse(payload: &[u8]) -> Result<CommandEnvelope, Rejected> {
    decode(payload).map_err(|e| {
        let id = serde_json::from_slice::<Value>(payload)
            .ok()
            .and_then(|v| v.get("id").filter(|id| id.is_string()).cloned())
            .unwrap_or(Value::Null);
        Rejected {
            id,
            error: e.to_string(),
        }
    })
}

/// Decodes a `cmd` payload after checking its sender against `senders` (the arbiter list
/// and the signature, see [`crate::sender`]): a refused sender is answered before anything
/// else is looked at. The `sig` field is checked and taken off, so a signed command also
/// reaches a board that has no key.
pub fn parse_checked(payload: &[u8], senders: &SenderPolicy) -> Result<CommandEnvelope, Rejected> {
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(payload) else {
        return parse(payload);
    };
    let id = object
        .get("id")
        .filter(|id| id.is_string())
        .cloned()
        .unwrap_or(Value::Null);
    if let Err(error) = senders.check(&mut object) {
        return Err(Rejected { id, error });
    }
    serde_json::from_value(Value::Object(object)).map_err(|e| Rejected {
        id,
        error: CommandError::Malformed(e.to_string()).to_string(),
    })
}

/// The command ids a board has taken lately, with their answers: MQTT delivers a command at
/// least once, and a signed command could be replayed by whoever saw it, so a repeated id is
/// never carried out twice. Its answer is sent again when it is known.
#[derive(Debug, Default)]
pub struct RecentCommands {
    order: VecDeque<String>,
    answers: HashMap<String, Option<Result<(), String>>>,
}

/// What to do with a command, by its id.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    /// A new id: carry it out.
    New,
    /// Being carried out: its answer will go out once; say nothing now.
    Pending,
    /// Already answered: send this answer again.
    Answered(Result<(), String>),
}

impl RecentCommands {
    /// How many ids are remembered.
    pub const KEEP: usize = 1024;

    /// Looks `id` up; a new id is remembered as pending.
    pub fn take(&mut self, id: &str) -> Seen {
        match self.answers.get(id) {
            Some(None) => Seen::Pending,
            Some(Some(answer)) => Seen::Answered(answer.clone()),
            None => {
                self.answers.insert(id.to_string(), None);
                self.order.push_back(id.to_string());
                while self.order.len() > Self::KEEP {
                    if let Some(old) = self.order.pop_front() {
                        self.answers.remove(&old);
                    }
                }
                Seen::New
            }
        }
    }

    /// Records the answer to `id`.
    pub fn answered(&mut self, id: &str, answer: &Result<(), String>) {
        if let Some(slot) = self.answers.get_mut(id) {
            *slot = Some(answer.clone());
        }
    }
}

/// The `cmd/reply` payload: `{"id":..,"ok":true}` or `{"id":..,"ok":false,"error":".."}`.
pub fn reply_payload(id: &Value, result: &Result<(), String>) -> Vec<u8> {
    let v = match result {
        Ok(()) => json!({"id": id, "ok": true}),
        Err(e) => json!({"id": id, "ok": false, "error": e}),
    };
    v.to_string().into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_commands_keep_their_id_when_they_have_one() {
        let r = parse(br#"{"id":"c7","type":"explode"}"#).unwrap_err();
        assert_eq!(r.id, json!("c7"));
        assert!(r.error.starts_with("malformed command: "), "{}", r.error);
        assert_eq!(parse(b"{{{").unwrap_err().id, Value::Null);
        assert_eq!(
            parse(br#"{"id":5,"type":"pause"}"#).unwrap_err().id,
            Value::Null
        );
        assert!(parse(br#"{"id":"c8","type":"pause"}"#).is_ok());
    }

    #[test]
    fn senders_are_checked_before_the_command_is_decoded() {
        let open = SenderPolicy::default();
        let c = parse_checked(br#"{"id":"c1","type":"pause","sig":"ab"}"#, &open).unwrap();
        assert_eq!(c.id, "c1");
        let r = parse_checked(br#"{"id":"c2","type":"explode"}"#, &open).unwrap_err();
        assert_eq!(r.id, json!("c2"));
        assert!(r.error.starts_with("malformed command: "), "{}", r.error);
        assert_eq!(parse_checked(b"[1]", &open).unwrap_err().id, Value::Null);

        let key = b"sixteen-bytes-key!";
        let strict = SenderPolicy::new(vec!["chief".into()], Some(key));
        let r = parse_checked(br#"{"id":"c3","by":"kid","type":"explode"}"#, &strict).unwrap_err();
        assert_eq!(r.id, json!("c3"));
        assert_eq!(r.error, "refused: \"kid\" is not an arbiter of this board");
        let mut signed = serde_json::Map::new();
        signed.insert("id".into(), json!("c4"));
        signed.insert("by".into(), json!("chief"));
        signed.insert("type".into(), json!("resign"));
        signed.insert("color".into(), json!("W"));
        crate::sender::sign(key, &mut signed);
        let bytes = serde_json::to_vec(&signed).unwrap();
        let c = parse_checked(&bytes, &strict).unwrap();
        assert_eq!(c.by.as_deref(), Some("chief"));
    }

    #[test]
    fn a_repeated_id_is_not_carried_out_twice() {
        let mut recent = RecentCommands::default();
        assert_eq!(recent.take("a"), Seen::New);
        assert_eq!(recent.take("a"), Seen::Pending);
        recent.answered("a", &Err("no such alert".into()));
        assert_eq!(
            recent.take("a"),
            Seen::Answered(Err("no such alert".into()))
        );
        for i in 0..RecentCommands::KEEP {
            assert_eq!(recent.take(&format!("n{i}")), Seen::New);
        }
        assert_eq!(recent.take("a"), Seen::New, "the oldest ids are forgotten");
    }

    #[test]
    fn replies_have_the_spec_shape() {
        let ok: Value = serde_json::from_slice(&reply_payload(&json!("a"), &Ok(()))).unwrap();
        assert_eq!(ok, json!({"id":"a","ok":true}));
        let err: Value =
            serde_json::from_slice(&reply_payload(&json!("b"), &Err("no such alert".into())))
                .unwrap();
        assert_eq!(err, json!({"id":"b","ok":false,"error":"no such alert"}));
    }
}
