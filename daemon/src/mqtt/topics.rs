//! The topic names of SPEC.md under the root `{prefix}/{tournament}/{board}`.

use thiserror::Error;

/// A topic root segment that is not a valid id.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{what} {value:?} is not a valid topic id: use lower-case letters, digits and '-'")]
pub struct TopicError {
    /// Which part of the root (`prefix`, `tournament`, `board`).
    pub what: &'static str,
    /// The value given.
    pub value: String,
}

/// The topics of one board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topics {
    root: String,
    board: String,
}

/// True if `s` is a non-empty lower-case `[a-z0-9-]` id.
pub fn is_valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Topics {
    /// The topics under `{prefix}/{tournament}/{board}`; `tournament` and `board` must be
    /// valid ids, `prefix` one or more valid ids joined by `/` (`tengen`, `club/tengen`).
    pub fn new(prefix: &str, tournament: &str, board: &str) -> Result<Topics, TopicError> {
        if !prefix.split('/').all(is_valid_id) {
            return Err(TopicError {
                what: "prefix",
                value: prefix.to_string(),
            });
        }
        for (what, value) in [("tournament", tournament), ("board", board)] {
            if !is_valid_id(value) {
                return Err(TopicError {
                    what,
                    value: value.to_string(),
                });
            }
        }
        Ok(Topics {
            root: format!("{prefix}/{tournament}/{board}"),
            board: board.to_string(),
        })
    }

    /// `{prefix}/{tournament}/{board}`.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The board id.
    pub fn board(&self) -> &str {
        &self.board
    }

    fn sub(&self, leaf: &str) -> String {
        format!("{}/{leaf}", self.root)
    }

    /// Retained online/offline status; the last will.
    pub fn status(&self) -> String {
        self.sub("status")
    }

    /// Every event, QoS 1, not retained.
    pub fn events(&self) -> String {
        self.sub("events")
    }

    /// Only `alert`, `alert_cleared` and `warning` events.
    pub fn alerts(&self) -> String {
        self.sub("alerts")
    }

    /// Retained JSON array of the alerts open right now.
    pub fn alerts_active(&self) -> String {
        self.sub("alerts/active")
    }

    /// Retained snapshot of the game.
    pub fn state(&self) -> String {
        self.sub("state")
    }

    /// Retained game record.
    pub fn sgf(&self) -> String {
        self.sub("sgf")
    }

    /// Commands in.
    pub fn cmd(&self) -> String {
        self.sub("cmd")
    }

    /// Replies to commands.
    pub fn cmd_reply(&self) -> String {
        self.sub("cmd/reply")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_spec() {
        let t = Topics::new("tengen", "open-2026", "hall1-07").unwrap();
        assert_eq!(t.root(), "tengen/open-2026/hall1-07");
        assert_eq!(t.status(), "tengen/open-2026/hall1-07/status");
        assert_eq!(t.events(), "tengen/open-2026/hall1-07/events");
        assert_eq!(t.alerts(), "tengen/open-2026/hall1-07/alerts");
        assert_eq!(t.alerts_active(), "tengen/open-2026/hall1-07/alerts/active");
        assert_eq!(t.state(), "tengen/open-2026/hall1-07/state");
        assert_eq!(t.sgf(), "tengen/open-2026/hall1-07/sgf");
        assert_eq!(t.cmd(), "tengen/open-2026/hall1-07/cmd");
        assert_eq!(t.cmd_reply(), "tengen/open-2026/hall1-07/cmd/reply");
    }

    #[test]
    fn rejects_ids_that_would_break_topics() {
        for bad in ["", "Hall1", "a/b", "a+b", "#", "a b", "é"] {
            let e = Topics::new("tengen", "demo", bad).unwrap_err();
            assert_eq!(e.what, "board");
        }
        assert_eq!(Topics::new("Ten", "demo", "b1").unwrap_err().what, "prefix");
        assert_eq!(
            Topics::new("a//b", "demo", "b1").unwrap_err().what,
            "prefix"
        );
        assert_eq!(Topics::new("a/", "demo", "b1").unwrap_err().what, "prefix");
        let t = Topics::new("club/tengen", "demo", "b1").unwrap();
        assert_eq!(t.cmd(), "club/tengen/demo/b1/cmd");
        assert_eq!(
            Topics::new("t", "de/mo", "b1").unwrap_err().what,
            "tournament"
        );
    }
}
