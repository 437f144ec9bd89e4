//! Reading the hall's subscription `{prefix}/+/+/#`: which board and which of its topics a
//! message came on.

use crate::mqtt::topics::is_valid_id;

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

/// The board topics the hall reads (SPEC.md, "MQTT").
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
pub fn parse(prefix: &str, topic: &str) -> Option<(BoardKey, Leaf)> {
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
    fn reads_board_topics() {
        let (k, l) = parse("tengen", "tengen/open-2026/hall1-07/alerts/active").unwrap();
        assert_eq!(
            (k.tournament.as_str(), k.board.as_str(), l),
            ("open-2026", "hall1-07", Leaf::AlertsActive)
        );
        assert_eq!(
            parse("club/tengen", "club/tengen/t/b/cmd/reply").unwrap().1,
            Leaf::CmdReply
        );
        assert_eq!(
            parse("tengen", "tengen/t/b/events").unwrap().1,
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
            assert_eq!(parse("tengen", t), None, "{t}");
        }
    }
}
