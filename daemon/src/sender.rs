//! Who may command a board. MQTT does not tell a board who published a message, so the
//! broker's ACL (only arbiters may write `cmd`) is one lock and this is the second, on the
//! board itself:
//!
//! - `mqtt.arbiters`: the names a command's `by` may carry; a command from anyone else is
//!   refused. Empty (the default) lets any sender through, for a club board on the embedded
//!   broker.
//! - `mqtt.command_key_file`: a secret shared by the boards and the hall. Every command must
//!   then carry `"sig"`: HMAC-SHA256 of the command without `sig`, in canonical JSON (object
//!   keys sorted, no spaces), as lower-case hex. A client that can write `cmd` but does not
//!   hold the key (a player's phone on the hall network, a mis-set ACL) cannot forge `by`.
//!
//! The hall signs with [`sign`]; the board checks with [`SenderPolicy::check`].

use std::path::{Path, PathBuf};

use ring::hmac;
use serde_json::{Map, Value};
use thiserror::Error;

/// The shortest key accepted, in bytes of the file's first line.
pub const MIN_KEY_LEN: usize = 16;

/// Why a command key file could not be used.
#[derive(Debug, Error)]
pub enum KeyError {
    /// The file could not be read.
    #[error("{path}: cannot read the command key: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The key is too short to be a secret.
    #[error("{path}: the command key must be at least {MIN_KEY_LEN} characters on its first line (e.g. `openssl rand -hex 32`)")]
    TooShort {
        /// The file.
        path: PathBuf,
    },
}

/// Reads a command key: the file's first line, without its line ending.
pub fn read_key(path: &Path) -> Result<Vec<u8>, KeyError> {
    let text = std::fs::read_to_string(path).map_err(|source| KeyError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let key = text.lines().next().unwrap_or("").trim();
    if key.len() < MIN_KEY_LEN {
        return Err(KeyError::TooShort {
            path: path.to_path_buf(),
        });
    }
    Ok(key.as_bytes().to_vec())
}

/// The board's policy from its `[mqtt]` section: `arbiters` and `command_key_file` (read now).
pub fn policy(mqtt: &crate::config::MqttConfig) -> Result<SenderPolicy, KeyError> {
    let key = match &mqtt.command_key_file {
        Some(path) => Some(read_key(path)?),
        None => None,
    };
    Ok(SenderPolicy::new(mqtt.arbiters.clone(), key.as_deref()))
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

    /// Checks one `cmd` payload (already known to be a JSON object) and takes its `sig`
    /// off, so what is left decodes as a command. `Err` is the one-line refusal to send back.
    pub fn check(&self, command: &mut Map<String, Value>) -> Result<(), String> {
        let sig = command.remove("sig");
        let by = command.get("by").and_then(Value::as_str).unwrap_or("");
        if !self.arbiters.is_empty() && !self.arbiters.iter().any(|a| a == by) {
            return Err(if by.is_empty() {
                "refused: the command names no sender (\"by\"), and this board takes commands only from its arbiters".to_string()
            } else {
                format!("refused: {by:?} is not an arbiter of this board")
            });
        }
        let Some(key) = &self.key else {
            return Ok(());
        };
        let Some(sig) = sig.as_ref().and_then(Value::as_str) else {
            return Err("refused: the command is not signed (\"sig\"), and this board takes only signed commands".to_string());
        };
        let Ok(tag) = hex::decode(sig) else {
            return Err("refused: \"sig\" is not hexadecimal".to_string());
        };
        let message = canonical(&Value::Object(command.clone()));
        hmac::verify(key, message.as_bytes(), &tag)
            .map_err(|_| "refused: the signature does not match (wrong command key?)".to_string())
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
        assert_eq!(e, "refused: \"player\" is not an arbiter of this board");
        let e = p
            .check(&mut object(json!({"id":"1","type":"pause"})))
            .unwrap_err();
        assert!(e.contains("names no sender"), "{e}");
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
            let e = p.check(&mut forged);
            assert!(e.is_err(), "a changed {field} must not pass");
        }
        let mut other_key = c.clone();
        sign(b"another-key-of-sixteen", &mut other_key);
        assert_eq!(
            p.check(&mut other_key),
            Err("refused: the signature does not match (wrong command key?)".to_string())
        );
        let mut unsigned = object(json!({"id":"h-9","by":"chief","type":"pause"}));
        assert!(p.check(&mut unsigned).unwrap_err().contains("not signed"));
        let mut not_hex = object(json!({"id":"h-9","by":"chief","type":"pause","sig":"xyz"}));
        assert!(p.check(&mut not_hex).unwrap_err().contains("hexadecimal"));
    }

    #[test]
    fn key_files_need_a_real_secret() {
        let dir = tempfile::tempdir().unwrap();
        let short = dir.path().join("short");
        std::fs::write(&short, "abc\n").unwrap();
        assert!(matches!(read_key(&short), Err(KeyError::TooShort { .. })));
        let good = dir.path().join("good");
        std::fs::write(&good, "0123456789abcdef0123\nignored").unwrap();
        assert_eq!(read_key(&good).unwrap(), b"0123456789abcdef0123".to_vec());
        let e = read_key(&dir.path().join("none")).unwrap_err().to_string();
        assert!(e.contains("cannot read the command key"), "{e}");
    }
}
