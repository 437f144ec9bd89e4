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
//! - the stamp ([`Stamp`]): a signed command also carries `tournament`, `board` and `at`
//!   (when it was issued, ms since the epoch), all covered by `sig`, so a command seen on
//!   the network cannot be replayed on another board, in another tournament, or later.
//!   [`Scope::check`] is the board's judgement of a stamp: for this board and tournament,
//!   issued within the window (default 5 minutes) either side of the board's clock, not
//!   before the board's start when the board does not know what it took before, and with
//!   an id not taken yet. It is a pure function of the command, the board, the time and
//!   the ids taken: the board passes its wall clock and its memory in.
//!
//! Senders sign with [`sign_for`]; the board checks with [`SenderPolicy::check`], then
//! [`Scope::check`].

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
    /// A signed command without `tournament`, `board` and `at`.
    #[error("the signed command does not say which tournament, board and time it is for (\"tournament\", \"board\", \"at\")")]
    Unstamped,
    /// `tournament` or `board` is not a string, or `at` not a whole number of milliseconds.
    #[error("{0:?} has the wrong type (\"tournament\" and \"board\" are strings, \"at\" milliseconds since the epoch)")]
    BadStamp(&'static str),
    /// The command is for another board.
    #[error("the command is for board {0:?}, not this one")]
    WrongBoard(String),
    /// The command is for another tournament.
    #[error("the command is for tournament {0:?}, not this board's")]
    WrongTournament(String),
    /// `at` is older than the window.
    #[error("the command was issued {age_ms} ms ago, more than the {window_ms} ms the board accepts (a replay, or a clock that is off)")]
    Stale {
        /// How long ago it was issued, by the board's clock.
        age_ms: u64,
        /// The window.
        window_ms: u64,
    },
    /// `at` is further ahead of the board's clock than the window allows.
    #[error("the command is dated {ahead_ms} ms ahead of the board's clock, more than the {window_ms} ms the board accepts (a clock that is off?)")]
    Future {
        /// How far ahead.
        ahead_ms: u64,
        /// The window.
        window_ms: u64,
    },
    /// Issued before the board started, and the board lost the ids it took before.
    #[error("the command was issued before the board started, and the board has no record of the commands it took before then (a replay?)")]
    BeforeStart,
    /// The id was taken already within the window.
    #[error("the command id {0:?} was taken already (a replay)")]
    Replayed(String),
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

    /// True when commands must be signed (and so stamped).
    pub fn is_signed(&self) -> bool {
        self.key.is_some()
    }

    /// Checks one `cmd` payload (a JSON object) and takes its `sig` and stamp fields
    /// (`tournament`, `board`, `at`) off, so what is left decodes as a command. With a key,
    /// returns the stamp (required) for [`Scope::check`]; without one, the stamp fields are
    /// taken off and not looked at (`None`): a board without a key takes the hall's signed
    /// commands as it takes unsigned ones.
    pub fn check(&self, command: &mut Map<String, Value>) -> Result<Option<Stamp>, Refusal> {
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
            // Taken off only: a board without a key does not judge stamps.
            let _ = Stamp::take(command);
            return Ok(None);
        };
        let sig = sig
            .as_ref()
            .and_then(Value::as_str)
            .ok_or(Refusal::Unsigned)?;
        let tag = hex::decode(sig).map_err(|_| Refusal::NotHex)?;
        let message = canonical(&Value::Object(command.clone()));
        hmac::verify(key, message.as_bytes(), &tag).map_err(|_| Refusal::BadSignature)?;
        Stamp::take(command)?.ok_or(Refusal::Unstamped).map(Some)
    }
}

/// What a signed command says of where and when it is meant: the wire contract's `tournament`,
/// `board` and `at` (ms since the epoch), covered by `sig`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// The tournament of the board it is for.
    pub tournament: String,
    /// The board it is for.
    pub board: String,
    /// When it was issued, in milliseconds since the Unix epoch.
    pub at: u64,
}

impl Stamp {
    /// A stamp for board `board` of `tournament`, issued at `at` (ms since the epoch).
    pub fn new(tournament: &str, board: &str, at: u64) -> Stamp {
        Stamp {
            tournament: tournament.to_string(),
            board: board.to_string(),
            at,
        }
    }

    /// Takes the stamp fields off `command`: `Ok(None)` when there are none, an error when
    /// only some are there or one has the wrong type (all are taken off either way).
    fn take(command: &mut Map<String, Value>) -> Result<Option<Stamp>, Refusal> {
        let tournament = command.remove("tournament");
        let board = command.remove("board");
        let at = command.remove("at");
        let (tournament, board, at) = match (tournament, board, at) {
            (None, None, None) => return Ok(None),
            (Some(t), Some(b), Some(a)) => (t, b, a),
            _ => return Err(Refusal::Unstamped),
        };
        let text = |v: Value, name| match v {
            Value::String(s) => Ok(s),
            _ => Err(Refusal::BadStamp(name)),
        };
        Ok(Some(Stamp {
            tournament: text(tournament, "tournament")?,
            board: text(board, "board")?,
            at: at.as_u64().ok_or(Refusal::BadStamp("at"))?,
        }))
    }
}

/// Where and when a board judges a stamp: its tournament and id, how far `at` may be from
/// its clock (`window_ms`, both ways), and the earliest `at` it takes (`not_before_ms`: the
/// board's start when it does not know the ids it took before, else 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The board's tournament.
    pub tournament: String,
    /// The board's id.
    pub board: String,
    /// How old (and how far ahead) a command may be, in milliseconds.
    pub window_ms: u64,
    /// Commands issued before this (ms since the epoch) are refused.
    pub not_before_ms: u64,
}

/// The default window: 5 minutes.
pub const DEFAULT_WINDOW_MS: u64 = 5 * 60_000;

impl Scope {
    /// Judges the stamp of command `id` at `now_ms` (the board's wall clock, ms since the
    /// epoch); `seen` says whether an id was taken already within the window. Checked in
    /// this order: tournament, board, too old, too far ahead, before the start, replayed.
    pub fn check(
        &self,
        id: &str,
        stamp: &Stamp,
        now_ms: u64,
        seen: impl Fn(&str) -> bool,
    ) -> Result<(), Refusal> {
        if stamp.tournament != self.tournament {
            return Err(Refusal::WrongTournament(stamp.tournament.clone()));
        }
        if stamp.board != self.board {
            return Err(Refusal::WrongBoard(stamp.board.clone()));
        }
        let window_ms = self.window_ms;
        if now_ms > stamp.at && now_ms - stamp.at > window_ms {
            return Err(Refusal::Stale {
                age_ms: now_ms - stamp.at,
                window_ms,
            });
        }
        if stamp.at > now_ms && stamp.at - now_ms > window_ms {
            return Err(Refusal::Future {
                ahead_ms: stamp.at - now_ms,
                window_ms,
            });
        }
        if stamp.at < self.not_before_ms {
            return Err(Refusal::BeforeStart);
        }
        if seen(id) {
            return Err(Refusal::Replayed(id.to_string()));
        }
        Ok(())
    }

    /// Whether an id taken with a stamp issued at `at` can be forgotten at `now_ms`: any
    /// command issued then is refused as stale now, whatever its id.
    pub fn expired(&self, at: u64, now_ms: u64) -> bool {
        now_ms.saturating_sub(at) > self.window_ms
    }
}

/// Stamps a command (without `sig`) for `stamp`'s board and time and signs it with `key`:
/// adds `tournament`, `board`, `at` and `sig`. How every sender signs.
pub fn sign_for(key: &[u8], stamp: &Stamp, command: &mut Map<String, Value>) {
    command.insert("tournament".into(), Value::String(stamp.tournament.clone()));
    command.insert("board".into(), Value::String(stamp.board.clone()));
    command.insert("at".into(), Value::from(stamp.at));
    sign(key, command);
}

/// Signs a command (without `sig`) with `key`: adds `"sig"` over whatever the command
/// holds. A board with a key refuses a command without a stamp: senders use [`sign_for`].
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
        assert_eq!(SenderPolicy::default().check(&mut c), Ok(None));
        assert!(!c.contains_key("sig"), "sig never reaches the decoder");
    }

    #[test]
    fn only_listed_arbiters_pass() {
        let p = SenderPolicy::new(vec!["chief".into(), "deputy".into()], None);
        assert_eq!(
            p.check(&mut object(json!({"id":"1","type":"pause","by":"chief"}))),
            Ok(None)
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

    fn stamp() -> Stamp {
        Stamp::new("open-2026", "hall1-07", 1_800_000_000_000)
    }

    #[test]
    fn signed_commands_pass_and_any_change_breaks_the_signature() {
        let p = SenderPolicy::new(vec!["chief".into()], Some(KEY));
        let mut c =
            object(json!({"id":"h-7","by":"chief","type":"adjust_time","color":"W","ms":300000}));
        sign_for(KEY, &stamp(), &mut c);
        let wire = serde_json::to_string(&c).unwrap();
        let mut good: Map<String, Value> = serde_json::from_str(&wire).unwrap();
        assert_eq!(p.check(&mut good), Ok(Some(stamp())));
        for gone in ["sig", "tournament", "board", "at"] {
            assert!(!good.contains_key(gone), "{gone} never reaches the decoder");
        }

        for (field, value) in [
            ("ms", json!(3_000_000)),
            ("by", json!("chief ")),
            ("color", json!("B")),
            ("id", json!("h-8")),
            ("board", json!("hall1-08")),
            ("tournament", json!("other-cup")),
            ("at", json!(1_800_000_000_001u64)),
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

    #[test]
    fn a_signed_command_must_carry_its_whole_stamp() {
        let p = SenderPolicy::new(Vec::new(), Some(KEY));
        // Signed the old way: the signature is right, the stamp is missing.
        let mut old = object(json!({"id":"h-1","type":"pause"}));
        sign(KEY, &mut old);
        assert_eq!(p.check(&mut old), Err(Refusal::Unstamped));
        let mut partial = object(json!({"id":"h-1","type":"pause","board":"hall1-07","at":5}));
        sign(KEY, &mut partial);
        assert_eq!(p.check(&mut partial), Err(Refusal::Unstamped));
        let mut text_at =
            object(json!({"id":"h-1","type":"pause","board":"b","tournament":"t","at":"soon"}));
        sign(KEY, &mut text_at);
        assert_eq!(p.check(&mut text_at), Err(Refusal::BadStamp("at")));
        let mut number_board =
            object(json!({"id":"h-1","type":"pause","board":7,"tournament":"t","at":5}));
        sign(KEY, &mut number_board);
        assert_eq!(p.check(&mut number_board), Err(Refusal::BadStamp("board")));
        for e in [Refusal::Unstamped, Refusal::BadStamp("at")] {
            assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn a_board_without_a_key_takes_stamped_commands_without_judging_them() {
        let mut c = object(json!({"id":"h-1","type":"pause"}));
        sign_for(KEY, &Stamp::new("elsewhere", "other-board", 1), &mut c);
        assert_eq!(SenderPolicy::default().check(&mut c), Ok(None));
        assert_eq!(c, object(json!({"id":"h-1","type":"pause"})));
    }

    fn scope() -> Scope {
        Scope {
            tournament: "open-2026".into(),
            board: "hall1-07".into(),
            window_ms: DEFAULT_WINDOW_MS,
            not_before_ms: 0,
        }
    }

    const NOW: u64 = 1_800_000_000_000;
    const NOTHING_SEEN: fn(&str) -> bool = |_| false;

    #[test]
    fn the_scope_takes_a_fresh_command_for_this_board() {
        let s = scope();
        assert_eq!(s.check("h-1", &stamp(), NOW, NOTHING_SEEN), Ok(()));
        // Right at both edges of the window.
        let mut at = stamp();
        at.at = NOW - DEFAULT_WINDOW_MS;
        assert_eq!(s.check("h-1", &at, NOW, NOTHING_SEEN), Ok(()));
        at.at = NOW + DEFAULT_WINDOW_MS;
        assert_eq!(s.check("h-1", &at, NOW, NOTHING_SEEN), Ok(()));
    }

    #[test]
    fn the_scope_refuses_another_board_or_tournament() {
        let s = scope();
        let other_board = Stamp::new("open-2026", "hall1-08", NOW);
        assert_eq!(
            s.check("h-1", &other_board, NOW, NOTHING_SEEN),
            Err(Refusal::WrongBoard("hall1-08".into()))
        );
        let other_cup = Stamp::new("other-cup", "hall1-07", NOW);
        let e = s.check("h-1", &other_cup, NOW, NOTHING_SEEN).unwrap_err();
        assert_eq!(e, Refusal::WrongTournament("other-cup".into()));
        assert_eq!(
            e.to_string(),
            "the command is for tournament \"other-cup\", not this board's"
        );
        let newline = Stamp::new("open-2026", "b\nforged line", NOW);
        let e = s.check("h-1", &newline, NOW, NOTHING_SEEN).unwrap_err();
        assert!(!e.to_string().contains('\n'), "{e}");
    }

    #[test]
    fn the_scope_refuses_a_stale_or_future_command() {
        let s = scope();
        let mut old = stamp();
        old.at = NOW - DEFAULT_WINDOW_MS - 1;
        assert_eq!(
            s.check("h-1", &old, NOW, NOTHING_SEEN),
            Err(Refusal::Stale {
                age_ms: DEFAULT_WINDOW_MS + 1,
                window_ms: DEFAULT_WINDOW_MS
            })
        );
        let mut ahead = stamp();
        ahead.at = NOW + DEFAULT_WINDOW_MS + 1;
        let e = s.check("h-1", &ahead, NOW, NOTHING_SEEN).unwrap_err();
        assert_eq!(
            e,
            Refusal::Future {
                ahead_ms: DEFAULT_WINDOW_MS + 1,
                window_ms: DEFAULT_WINDOW_MS
            }
        );
        assert!(e.to_string().contains("ahead of the board's clock"), "{e}");
        let narrow = Scope {
            window_ms: 1000,
            ..scope()
        };
        let mut two_s = stamp();
        two_s.at = NOW - 2000;
        assert!(matches!(
            narrow.check("h-1", &two_s, NOW, NOTHING_SEEN),
            Err(Refusal::Stale { age_ms: 2000, .. })
        ));
        assert!(narrow.expired(two_s.at, NOW));
        assert!(!scope().expired(two_s.at, NOW));
    }

    #[test]
    fn the_scope_refuses_a_taken_id_and_commands_from_before_a_start_it_forgot() {
        let s = scope();
        let seen = |id: &str| id == "h-1";
        assert_eq!(
            s.check("h-1", &stamp(), NOW, seen),
            Err(Refusal::Replayed("h-1".into()))
        );
        assert_eq!(s.check("h-2", &stamp(), NOW, seen), Ok(()));
        let forgetful = Scope {
            not_before_ms: NOW - 1000,
            ..scope()
        };
        let mut before = stamp();
        before.at = NOW - 1001;
        assert_eq!(
            forgetful.check("h-3", &before, NOW, NOTHING_SEEN),
            Err(Refusal::BeforeStart)
        );
        before.at = NOW - 1000;
        assert_eq!(forgetful.check("h-3", &before, NOW, NOTHING_SEEN), Ok(()));
    }
}
