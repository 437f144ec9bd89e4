//! Commands arriving on the `cmd` topic (SPEC.md, MQTT): decoded strictly, so a malformed
//! or unknown command is an error reply that changes nothing.

use serde::{Deserialize, Serialize};
use tengen_rules::Color;
use thiserror::Error;

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

/// Why a command could not be decoded.
#[derive(Debug, Error)]
pub enum CommandError {
    /// Not JSON, an unknown `type`, a missing or extra field.
    #[error("malformed command: {0}")]
    Malformed(String),
}

/// Decodes one `cmd` payload.
pub fn decode(payload: &[u8]) -> Result<CommandEnvelope, CommandError> {
    serde_json::from_slice(payload).map_err(|e| CommandError::Malformed(one_line(&e.to_string())))
}

/// serde's messages quote the unknown field or `type` as sent, which may hold a newline
/// (found by fuzzing): control characters are escaped so the error stays one line.
fn one_line(message: &str) -> String {
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
    fn rejects_bad_commands() {
        for bad in [
            &b"not json"[..],
            br#"{"id":"1","type":"explode"}"#,
            br#"{"id":"1","type":"confirm"}"#,
            br#"{"type":"pause"}"#,
            br#"{"id":"1","type":"adjust_time","color":"X","ms":1}"#,
        ] {
            assert!(decode(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
