//! Topic names and ids (docs/mqtt-http.md, "Topics"): a board's topics under the root
//! `{prefix}/{tournament}/{board}`, and reading a topic back into its board and leaf (what
//! the hall does with every message of its subscription `{prefix}/+/+/#`).

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
    tournament: String,
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
            tournament: tournament.to_string(),
            board: board.to_string(),
        })
    }

    /// `{prefix}/{tournament}/{board}`.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The tournament id.
    pub fn tournament(&self) -> &str {
        &self.tournament
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

/// A board in the hall: its tournament and board ids (both `[a-z0-9-]`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoardKey {
    /// The tournament id.
    pub tournament: String,
    /// The board id.
    pub board: String,
}

impl BoardKey {
    /// A key from two ids; `None` when either is not a valid topic id.
    pub fn new(tournament: &str, board: &str) -> Option<BoardKey> {
        (is_valid_id(tournament) && is_valid_id(board)).then(|| BoardKey {
            tournament: tournament.to_string(),
            board: board.to_string(),
        })
    }
}

/// The board topics a reader of the whole tree (the hall) takes (docs/mqtt-http.md, "Topics").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// `.../events`.
    Events,
    /// `.../state` (retained).
    State,
    /// `.../sgf` (retained).
    Sgf,
    /// `.../status` (retained, the last will).
    Status,
    /// `.../alerts/active` (retained).
    AlertsActive,
    /// `.../cmd/reply`.
    CmdReply,
}

/// The board and topic of `topic` under `prefix`; `None` for topics the hall ignores
/// (`alerts`, `cmd`, anything unknown or with invalid ids).
pub fn parse_board_topic(prefix: &str, topic: &str) -> Option<(BoardKey, Leaf)> {
    let rest = topic.strip_prefix(prefix)?.strip_prefix('/')?;
    let mut parts = rest.splitn(3, '/');
    let tournament = parts.next()?;
    let board = parts.next()?;
    let leaf = match parts.next()? {
        "events" => Leaf::Events,
        "state" => Leaf::State,
        "sgf" => Leaf::Sgf,
        "status" => Leaf::Status,
        "alerts/active" => Leaf::AlertsActive,
        "cmd/reply" => Leaf::CmdReply,
        _ => return None,
    };
    Some((BoardKey::new(tournament, board)?, leaf))
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

#[cfg(test)]
mod hall_tests {
    use super::*;

    #[test]
    fn reads_board_topics() {
        let (k, l) =
            parse_board_topic("tengen", "tengen/open-2026/hall1-07/alerts/active").unwrap();
        assert_eq!(
            (k.tournament.as_str(), k.board.as_str(), l),
            ("open-2026", "hall1-07", Leaf::AlertsActive)
        );
        assert_eq!(
            parse_board_topic("club/tengen", "club/tengen/t/b/cmd/reply")
                .unwrap()
                .1,
            Leaf::CmdReply
        );
        assert_eq!(
            parse_board_topic("tengen", "tengen/t/b/events").unwrap().1,
            Leaf::Events
        );
    }

    #[test]
    fn ignores_the_rest() {
        for t in [
            "tengen/t/b/alerts",
            "tengen/t/b/cmd",
            "tengen/t/b",
            "tengenx/t/b/state",
            "other/t/b/state",
            "tengen/T/b/state",
            "tengen/t/b/state/extra",
        ] {
            assert_eq!(parse_board_topic("tengen", t), None, "{t}");
        }
    }
}
