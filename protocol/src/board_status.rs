//! A board's `status` (`{prefix}/{tournament}/{board}/status`, retained): whether its
//! service runs, which version, and its clock. Built by the board, read by the hall, each
//! once through [`BoardStatus`], so both sides agree on the fields; docs/mqtt-http.md is the
//! contract:
//! `{"at":"2026-11-29T13:45:01.250Z","board":"hall1-07","state":"online","version":"0.1.0"}`.
//! The last will (`offline`) carries no `at`; fields a newer board adds are ignored.

use serde::{Deserialize, Serialize};

use crate::event::BoardState;
use crate::Timestamp;

/// A board's `status` payload. The fields are in the order the payload has always had
/// them (by name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardStatus {
    /// The board's UTC time with ms: on `online`, at each connection and heartbeat (every
    /// 5 s); not on the last will, which the broker sends whenever it finds the board gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
    /// The board's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// `online`, `offline` (also the last will) or `restoring`.
    pub state: BoardState,
    /// The tengen version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// Why a `status` payload was not taken.
#[derive(Debug, thiserror::Error)]
#[error("not a board status: {0}")]
pub struct BadStatus(#[from] serde_json::Error);

impl BoardStatus {
    /// Reads a `status` payload.
    pub fn parse(payload: &[u8]) -> Result<BoardStatus, BadStatus> {
        Ok(serde_json::from_slice(payload)?)
    }

    /// The payload, as JSON text.
    pub fn to_payload(&self) -> Vec<u8> {
        // A struct of strings and a timestamp always serialises.
        serde_json::to_vec(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_is_what_the_board_always_sent_and_reads_back() {
        let status = BoardStatus {
            at: Some(Timestamp::from_millis(1_795_959_901_250)),
            board: Some("hall1-07".into()),
            state: BoardState::Online,
            version: Some("0.1.0".into()),
        };
        let text = String::from_utf8(status.to_payload()).expect("UTF-8");
        assert_eq!(
            text,
            r#"{"at":"2026-11-29T13:45:01.250Z","board":"hall1-07","state":"online","version":"0.1.0"}"#
        );
        assert_eq!(BoardStatus::parse(text.as_bytes()).expect("reads"), status);
        let will = BoardStatus::parse(br#"{"state":"offline","version":"0.1.0","extra":1}"#)
            .expect("a last will, with a field from a newer board");
        assert_eq!((will.state, will.at), (BoardState::Offline, None));
        for bad in [&b"{}"[..], b"{\"state\":\"asleep\"}", b"not json", b"[]"] {
            let e = BoardStatus::parse(bad).expect_err("refused");
            assert!(!e.to_string().contains('\n'), "one line: {e}");
        }
    }
}
