//! Who may command a board. MQTT does not tell a board who published a message, so the
//! broker's ACL (only arbiters may write `cmd`) is one lock and this is the second, on the
//! board itself:
//!
//! - the arbiters' names (`mqtt.arbiters`): the names a command's `by` may carry; a command
//!   from anyone else is refused. Empty lets any sender through (a club board on the
//!   embedded broker).
//! - the command key (`mqtt.command_key_file`, the hall's `hall.command_key_file`): a
//!   secret shared by the boards and the hall. Every command must then carry `"sig"`:
//!   HMAC-SHA256 of the command without `sig`, in canonical JSON (object keys sorted, no
//!   spaces), as lower-case hex. A client that can write `cmd` but does not hold the key (a
//!   player's phone on the hall network, a mis-set ACL) cannot forge `by`.
//!
//! Senders sign with [`sign`]; the board checks with [`SenderPolicy::check`].

use ring::hmac;
use serde_json::{Map, Value};
use thiserror::Error;

/// The shortest command key accepted, in bytes.
pub const MIN_KEY_LEN: usize = 16;

/// Why a board refuses a command's sender.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Refusal {
    /// No `by`, and the board takes commands only from its arbiters.
    #[error("the command names no sender (\"by\"), and this board takes commands only from its arbiters")]
    NoSender,
    /// `by` is not one of the board's arbiters.
    #[error("{0:?} is not an arbiter of this board")]
    NotAnArbiter(String),
    /// No `sig`, and the board takes only signed commands.
    #[error("the command is not signed (\"sig\"), and this board takes only signed commands")]
    Unsigned,
    /// `sig` is not hexadecimal.
    #[error("\"sig\" is not hexadecimal")]
    NotHex,
    /// The signature does not match the command.
    #[error("the signature does not match (wrong command key?)")]
    BadSignature,
}

/// The board's rule for who may send commands: see the module documentation.
#[derive(Clone, Default)]
pub struct SenderPolicy {
    arbiters: Vec<String>,
    key: Option<hmac::Key>,
}

impl std::fmt::Debug for SenderPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SenderPolicy")
            .field("arbiters", &self.arbiters)
            .field("signed", &self.key.is_some())
            .finish()
    }
}

impl SenderPolicy {
    /// A policy from the arbiters' names (empty: anyone) and the shared key (`None`: no
    /// signature needed).
    pub fn new(arbiters: Vec<String>, key: Option<&[u8]>) -> SenderPolicy {
        SenderPolicy {
            arbiters,
            key: key.map(|k| hmac::Key::new(hmac::HMAC_SHA256, k)),
        }
    }

    /// True when every sender is let through (no arbiter list, no key).
    pub fn is_open(&self) -> bool {
        self.arbiters.is_empty() && self.key.is_none()
    }

    /// Checks one `cmd` payload (a JSON object) and takes its `sig` off, so what is left
    /// decodes as a command.
    pub fn check(&self, command: &mut Map<String, Value>) -> Result<(), Refusal> {
        let sig = command.remove("sig");
        let by = command.get("by").and_then(Value::as_str).unwrap_or("");
        if !self.arbiters.is_empty() && !self.arbiters.iter().any(|a| a == by) {
            return Err(if by.is_empty() {
                Refusal::NoSender
            } else {
                Refusal::NotAnArbiter(by.to_string())
            });
        }
        let Some(key) = &self.key else {
            return Ok(());
        };
        let sig = sig
            .as_ref()
            .and_then(Value::as_str)
            .ok_or(Refusal::Unsigned)?;
        let tag = hex::decode(sig).map_err(|_| Refusal::NotHex)?;
        let message = canonical(&Value::Object(command.clone()));
        hmac::verify(key, message.as_bytes(), &tag).map_err(|_| Refusal::BadSignature)
    }
}

/// Signs a command (without `sig`) with `key`: adds `"sig"`.
pub fn sign(key: &[u8], command: &mut Map<String, Value>) {
    command.remove("sig");
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    let message = canonical(&Value::Object(command.clone()));
    let tag = hmac::sign(&key, message.as_bytes());
    command.insert("sig".into(), Value::String(hex::encode(tag.as_ref())));
}

/// Canonical JSON: object keys sorted at every level, no whitespace. Both sides compute it
/// from the parsed value, so neither key order nor spacing on the wire matters.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!("test values are objects"),
        }
    }

    const KEY: &[u8] = b"0123456789abcdef-hall-key";

    #[test]
    fn canonical_form_ignores_key_order_and_spacing() {
        let a: Value =
            serde_json::from_str(r#"{"type":"adjust_time","id":"h-1","color":"B","ms":60000}"#)
                .unwrap();
        let b: Value = serde_json::from_str(
            r#"{ "ms" : 60000, "color":"B",
                 "id":"h-1", "type":"adjust_time" }"#,
        )
        .unwrap();
        assert_eq!(canonical(&a), canonical(&b));
        assert_eq!(
            canonical(&a),
            r#"{"color":"B","id":"h-1","ms":60000,"type":"adjust_time"}"#
        );
        assert_eq!(
            canonical(&json!({"z":[{"b":1,"a":"é\""}],"a":null})),
            r#"{"a":null,"z":[{"a":"é\"","b":1}]}"#
        );
    }

    #[test]
    fn an_open_policy_lets_anything_through_and_drops_sig() {
        let mut c = object(json!({"id":"1","type":"pause","sig":"zz"}));
        assert!(SenderPolicy::default().is_open());
        assert_eq!(SenderPolicy::default().check(&mut c), Ok(()));
        assert!(!c.contains_key("sig"), "sig never reaches the decoder");
    }

    #[test]
    fn only_listed_arbiters_pass() {
        let p = SenderPolicy::new(vec!["chief".into(), "deputy".into()], None);
        assert_eq!(
            p.check(&mut object(json!({"id":"1","type":"pause","by":"chief"}))),
            Ok(())
        );
        let e = p
            .check(&mut object(json!({"id":"1","type":"pause","by":"player"})))
            .unwrap_err();
        assert_eq!(e.to_string(), "\"player\" is not an arbiter of this board");
        let e = p
            .check(&mut object(json!({"id":"1","type":"pause"})))
            .unwrap_err();
        assert_eq!(e, Refusal::NoSender);
    }

    #[test]
    fn signed_commands_pass_and_any_change_breaks_the_signature() {
        let p = SenderPolicy::new(vec!["chief".into()], Some(KEY));
        let mut c =
            object(json!({"id":"h-7","by":"chief","type":"adjust_time","color":"W","ms":300000}));
        sign(KEY, &mut c);
        let wire = serde_json::to_string(&c).unwrap();
        let mut good: Map<String, Value> = serde_json::from_str(&wire).unwrap();
        assert_eq!(p.check(&mut good), Ok(()));
        assert!(!good.contains_key("sig"));

        for (field, value) in [
            ("ms", json!(3_000_000)),
            ("by", json!("chief ")),
            ("color", json!("B")),
            ("id", json!("h-8")),
        ] {
            let mut forged: Map<String, Value> = serde_json::from_str(&wire).unwrap();
            forged.insert(field.into(), value);
            assert!(
                p.check(&mut forged).is_err(),
                "a changed {field} must not pass"
            );
        }
        let mut other_key = c.clone();
        sign(b"another-key-of-sixteen", &mut other_key);
        assert_eq!(p.check(&mut other_key), Err(Refusal::BadSignature));
        let mut unsigned = object(json!({"id":"h-9","by":"chief","type":"pause"}));
        assert_eq!(p.check(&mut unsigned), Err(Refusal::Unsigned));
        let mut not_hex = object(json!({"id":"h-9","by":"chief","type":"pause","sig":"xyz"}));
        assert_eq!(p.check(&mut not_hex), Err(Refusal::NotHex));
    }
}
