//! Commands on `{root}/cmd`: decoded strictly with [`crate::command::decode`]; a malformed or
//! unknown command is answered with an error on `{root}/cmd/reply` and goes nowhere else;
//! a valid one goes to the service as a [`CommandRequest`] and the service's answer is the
//! reply.

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::command::{decode, CommandEnvelope};

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
    fn replies_have_the_spec_shape() {
        let ok: Value = serde_json::from_slice(&reply_payload(&json!("a"), &Ok(()))).unwrap();
        assert_eq!(ok, json!({"id":"a","ok":true}));
        let err: Value =
            serde_json::from_slice(&reply_payload(&json!("b"), &Err("no such alert".into())))
                .unwrap();
        assert_eq!(err, json!({"id":"b","ok":false,"error":"no such alert"}));
    }
}
