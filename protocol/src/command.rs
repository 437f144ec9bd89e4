//! Commands on a board's `cmd` topic (SPEC.md, MQTT), and the replies on `cmd/reply`.
//! Decoded strictly: a malformed or unknown command is an error reply that changes nothing.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tengen_rules::Color;
use thiserror::Error;

use crate::signing::{Refusal, SenderPolicy, Stamp};

/// One command with its envelope: `{"id":"...","type":"...","by":"arbiter-name",...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandEnvelope {
    /// The sender's id for this command, echoed in the reply.
    pub id: String,
    /// Who sent it (an arbiter's name or login); recorded by the board.
    #[serde(default)]
    pub by: Option<String>,
    /// The command itself.
    #[serde(flatten)]
    pub command: Command,
}

/// The commands of SPEC.md.
// A `new_game` is much larger than the rest, but commands are few and short-lived.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Sets up a new game; absent fields keep the board's configured value.
    NewGame {
        /// Game id (`r3-t07`); lower-case `[a-z0-9-]`.
        #[serde(default)]
        game: Option<String>,
        /// Black's name.
        #[serde(default)]
        black: Option<String>,
        /// White's name.
        #[serde(default)]
        white: Option<String>,
        /// Black's rank (`"4k"`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        black_rank: Option<String>,
        /// White's rank.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        white_rank: Option<String>,
        /// The event (tournament) name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<String>,
        /// Where the game is played (the tournament's location; SGF `PC`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        place: Option<String>,
        /// Round.
        #[serde(default)]
        round: Option<String>,
        /// Table.
        #[serde(default)]
        table: Option<String>,
        /// Board size.
        #[serde(default)]
        size: Option<u8>,
        /// Komi in points.
        #[serde(default)]
        komi: Option<f64>,
        /// Handicap stones.
        #[serde(default)]
        handicap: Option<u8>,
        /// Time control in the script form (`"byoyomi 60m 5x60s"`).
        #[serde(default)]
        time_control: Option<String>,
    },
    /// Stops both clocks (Art. 14).
    Pause {},
    /// Restarts the clock that was running.
    Resume {},
    /// Sets one side's time (Art. 22.8-9).
    AdjustTime {
        /// Whose clock.
        color: Color,
        /// Milliseconds left in the current period (main time while still in it).
        ms: u64,
        /// Byo-yomi periods (or Canadian stones) left, if changed.
        #[serde(default)]
        periods: Option<u32>,
    },
    /// Confirms an alert as a violation: the penalty (a warning) is given.
    Confirm {
        /// The alert id.
        alert: String,
    },
    /// Dismisses an alert: no violation.
    Dismiss {
        /// The alert id.
        alert: String,
    },
    /// A player resigns.
    Resign {
        /// Who resigns.
        color: Color,
    },
    /// The arbiter sets the result (`"B+R"`, `"W+T"`, `"0"`, `"Void"`...).
    SetResult {
        /// SGF form.
        result: String,
    },
    /// Play resumes after a disagreement at counting (Art. 21.4), or after a flag fall
    /// ruled a forfeited turn (Art. 22.5).
    ResumePlay {
        /// Who moves first.
        color: Color,
    },
    /// Sends the event stream again from `from_seq`.
    Republish {
        /// First `seq` to send again.
        #[serde(default)]
        from_seq: u64,
    },
}

/// Why a command could not be taken.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    /// Not JSON, an unknown `type`, a missing or extra field.
    #[error("malformed command: {0}")]
    Malformed(String),
    /// The sender is not allowed (see [`crate::signing`]).
    #[error("refused: {0}")]
    Refused(#[from] Refusal),
}

/// A `cmd` payload that was not taken: the id to answer with (the payload's string `id`,
/// if it has one) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The command's `id`, when the payload had a string one.
    pub id: Option<String>,
    /// Why.
    pub error: CommandError,
}

/// Decodes one `cmd` payload (no sender check).
pub fn decode(payload: &[u8]) -> Result<CommandEnvelope, CommandError> {
    serde_json::from_slice(payload).map_err(|e| CommandError::Malformed(one_line(&e.to_string())))
}

/// A command whose sender passed [`SenderPolicy::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The command.
    pub command: CommandEnvelope,
    /// Its stamp, for [`crate::signing::Scope::check`]: always there when the board has a
    /// key, never without one.
    pub stamp: Option<Stamp>,
}

/// Decodes a `cmd` payload after checking its sender against `senders` (the arbiter list
/// and the signature): a refused sender is answered before anything else is looked at.
/// The `sig` field and the stamp (`tournament`, `board`, `at`) are checked and taken off,
/// so a signed command also reaches a board that has no key.
pub fn decode_checked(payload: &[u8], senders: &SenderPolicy) -> Result<Checked, Rejected> {
    let id_of = |v: &Map<String, Value>| v.get("id").and_then(Value::as_str).map(str::to_string);
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(payload) else {
        // Whatever is not an object is never taken, even if serde could read it as one.
        let error = match decode(payload) {
            Err(error) => error,
            Ok(_) => CommandError::Malformed("a command is a JSON object".into()),
        };
        return Err(Rejected { id: None, error });
    };
    let id = id_of(&object);
    let stamp = match senders.check(&mut object) {
        Ok(stamp) => stamp,
        Err(refusal) => {
            return Err(Rejected {
                id,
                error: refusal.into(),
            })
        }
    };
    match serde_json::from_value(Value::Object(object)) {
        Ok(command) => Ok(Checked { command, stamp }),
        Err(e) => Err(Rejected {
            id,
            error: CommandError::Malformed(one_line(&e.to_string())),
        }),
    }
}

/// Why a board refused a `republish`: it resends its stream at most once every `every_s`
/// seconds. The reply's `error` is this text, so a sender can read it back with
/// [`RepublishRefused::parse`] and ask again in `wait_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("republish refused: this board resends its stream at most once every {every_s} s; ask again in {wait_ms} ms")]
pub struct RepublishRefused {
    /// The board's interval, in seconds.
    pub every_s: u64,
    /// How long until the board takes the next one, in milliseconds.
    pub wait_ms: u64,
}

impl RepublishRefused {
    /// Reads a `cmd/reply` error written by this type back (`None` for any other error).
    pub fn parse(error: &str) -> Option<RepublishRefused> {
        let rest = error
            .strip_prefix("republish refused: this board resends its stream at most once every ")?;
        let (every, rest) = rest.split_once(" s; ask again in ")?;
        let wait = rest.strip_suffix(" ms")?;
        Some(RepublishRefused {
            every_s: every.parse().ok()?,
            wait_ms: wait.parse().ok()?,
        })
    }
}

/// What a board answers to a command, as `cmd/reply` carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Carried out: `{"id":..,"ok":true}`.
    Done,
    /// Not carried out, and why (one sentence): `{"id":..,"ok":false,"error":".."}`.
    Refused(String),
}

impl Answer {
    /// A refusal saying `why`.
    pub fn refused(why: impl std::fmt::Display) -> Answer {
        Answer::Refused(why.to_string())
    }

    /// True when the command was carried out.
    pub fn is_done(&self) -> bool {
        *self == Answer::Done
    }
}

/// The `cmd/reply` payload for `answer` (`id` null when the command had none).
pub fn reply_payload(id: Option<&str>, answer: &Answer) -> Vec<u8> {
    let v = match answer {
        Answer::Done => json!({"id": id, "ok": true}),
        Answer::Refused(e) => json!({"id": id, "ok": false, "error": e}),
    };
    v.to_string().into_bytes()
}

/// A `cmd/reply` as a sender reads it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Reply {
    /// The command's id.
    pub id: Option<String>,
    /// Whether the board took it.
    pub ok: bool,
    /// Why not.
    #[serde(default)]
    pub error: Option<String>,
}

/// Why a result is not one the board accepts.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("'{0}' is not an SGF result")]
pub struct BadResult(pub String);

/// Accepts SGF results: `B+R`, `W+T`, `B+F`, `B+1.5`, `0`, `Draw`, `Void`, `?`.
pub fn check_result(result: &str) -> Result<(), BadResult> {
    if matches!(result, "0" | "Void" | "?" | "Draw") {
        return Ok(());
    }
    let bad = || BadResult(result.to_string());
    let (who, how) = result.split_once('+').ok_or_else(bad)?;
    if !matches!(who, "B" | "W") {
        return Err(bad());
    }
    if how.is_empty() || matches!(how, "R" | "T" | "F" | "Resign" | "Time" | "Forfeit") {
        return Ok(());
    }
    how.parse::<f64>().map(|_| ()).map_err(|_| bad())
}

/// serde's messages quote the unknown field or `type` as sent, which may hold a newline
/// (found by fuzzing): control characters are escaped so the error stays one line.
pub fn one_line(message: &str) -> String {
    message
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_known_commands() {
        let c = decode(br#"{"id":"1","type":"confirm","alert":"a3","by":"chief"}"#).unwrap();
        assert_eq!(c.by.as_deref(), Some("chief"));
        assert_eq!(c.command, Command::Confirm { alert: "a3".into() });
        let c = decode(br#"{"id":"2","type":"pause"}"#).unwrap();
        assert_eq!(c.command, Command::Pause {});
        let c = decode(br#"{"id":"3","type":"adjust_time","color":"W","ms":60000}"#).unwrap();
        assert_eq!(
            c.command,
            Command::AdjustTime {
                color: Color::White,
                ms: 60000,
                periods: None
            }
        );
    }

    #[test]
    fn rejects_bad_commands_on_one_line() {
        for bad in [
            &b"not json"[..],
            br#"{"id":"1","type":"explode"}"#,
            br#"{"id":"1","type":"confirm"}"#,
            br#"{"type":"pause"}"#,
            br#"{"id":"1","type":"adjust_time","color":"X","ms":1}"#,
            b"{\"id\":\"1\",\"type\":\"new\\ngame\"}",
        ] {
            let e = decode(bad).unwrap_err().to_string();
            assert!(
                e.starts_with("malformed command: ") && !e.contains('\n'),
                "{e}"
            );
        }
    }

    #[test]
    fn rejections_keep_the_id_when_there_is_one() {
        let open = SenderPolicy::default();
        let r = decode_checked(br#"{"id":"c7","type":"explode"}"#, &open).unwrap_err();
        assert_eq!(r.id.as_deref(), Some("c7"));
        assert_eq!(decode_checked(b"{{{", &open).unwrap_err().id, None);
        assert_eq!(
            decode_checked(br#"{"id":5,"type":"pause"}"#, &open)
                .unwrap_err()
                .id,
            None
        );
        let c = decode_checked(br#"{"id":"c1","type":"pause","sig":"ab"}"#, &open).unwrap();
        assert_eq!(c.command.id, "c1");
        assert_eq!(c.stamp, None);
    }

    #[test]
    fn a_republish_refusal_reads_back() {
        let r = RepublishRefused {
            every_s: 10,
            wait_ms: 4321,
        };
        assert_eq!(RepublishRefused::parse(&r.to_string()), Some(r));
        assert_eq!(RepublishRefused::parse("refused: not an arbiter"), None);
        assert_eq!(
            RepublishRefused::parse(
                "republish refused: this board resends its stream at most once every x s; ask again in 1 ms"
            ),
            None
        );
    }

    #[test]
    fn replies_have_the_spec_shape() {
        let ok: Value = serde_json::from_slice(&reply_payload(Some("a"), &Answer::Done)).unwrap();
        assert_eq!(ok, json!({"id":"a","ok":true}));
        let err: Value =
            serde_json::from_slice(&reply_payload(None, &Answer::refused("no such alert")))
                .unwrap();
        assert_eq!(err, json!({"id":null,"ok":false,"error":"no such alert"}));
    }

    #[test]
    fn results() {
        for good in ["B+R", "W+T", "B+F", "W+1.5", "0", "Void", "?", "B+", "Draw"] {
            assert!(check_result(good).is_ok(), "{good}");
        }
        for bad in ["X+R", "B+x", "", "B", "W+1.5.5"] {
            assert!(check_result(bad).is_err(), "{bad}");
        }
    }
}
