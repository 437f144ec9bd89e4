//! Bounds on the labels the hall takes from its boards (issue 34): a game's round and
//! table, the players' names and ranks, the event and the place, no longer than a command
//! may set them ([`tengen_protocol::command`]'s limits: 32 bytes for round, table and
//! ranks, 128 for names, event and place), control characters made spaces. They name files
//! and paths (the round zip, the feed, the export) and fill every page: a board that sends
//! longer ones (a bug, or someone posing as a board) has them cut, not the export stopped.
//! Sans-IO.

use tengen_protocol::command::{MAX_NAME, MAX_SHORT};
use tengen_protocol::event::GameSetup;
use tengen_protocol::view::StateSnapshot;

/// `text` cut to at most `max` bytes (on a character boundary), its control characters
/// made spaces; whether it changed.
pub(crate) fn bound(text: &mut String, max: usize) -> bool {
    let clean = !text.chars().any(char::is_control);
    if clean && text.len() <= max {
        return false;
    }
    let mut out = String::with_capacity(text.len().min(max));
    for c in text.chars() {
        let c = if c.is_control() { ' ' } else { c };
        if out.len() + c.len_utf8() > max {
            break;
        }
        out.push(c);
    }
    *text = out;
    true
}

fn bound_opt(text: &mut Option<String>, max: usize) -> bool {
    text.as_mut().is_some_and(|t| bound(t, max))
}

/// A game's setup with its labels bounded; whether any was cut.
pub(crate) fn bound_setup(s: &mut GameSetup) -> bool {
    let cut = [
        bound(&mut s.round, MAX_SHORT),
        bound(&mut s.table, MAX_SHORT),
        bound(&mut s.black, MAX_NAME),
        bound(&mut s.white, MAX_NAME),
        bound_opt(&mut s.black_rank, MAX_SHORT),
        bound_opt(&mut s.white_rank, MAX_SHORT),
        bound_opt(&mut s.event, MAX_NAME),
        bound_opt(&mut s.place, MAX_NAME),
    ];
    cut.contains(&true)
}

/// A board's `state` with its labels bounded; whether any was cut.
pub(crate) fn bound_snapshot(s: &mut StateSnapshot) -> bool {
    let cut = [
        bound(&mut s.round, MAX_SHORT),
        bound(&mut s.table, MAX_SHORT),
        bound(&mut s.black, MAX_NAME),
        bound(&mut s.white, MAX_NAME),
        bound_opt(&mut s.black_rank, MAX_SHORT),
        bound_opt(&mut s.white_rank, MAX_SHORT),
        bound_opt(&mut s.event, MAX_NAME),
        bound_opt(&mut s.place, MAX_NAME),
    ];
    cut.contains(&true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_cut_on_a_character_and_control_characters_made_spaces() {
        let mut round = "7".repeat(300);
        assert!(bound(&mut round, MAX_SHORT));
        assert_eq!(round, "7".repeat(32));
        let mut ok = "Round 3".to_string();
        assert!(!bound(&mut ok, MAX_SHORT));
        // Three bytes a character: ten fit in 32.
        let mut cjk = "第".repeat(20);
        assert!(bound(&mut cjk, MAX_SHORT));
        assert_eq!(cjk, "第".repeat(10));
        let mut name = "Ann\nBo\u{7}".to_string();
        assert!(bound(&mut name, MAX_NAME));
        assert_eq!(name, "Ann Bo ");
        let mut setup = GameSetup {
            round: "r".repeat(300),
            black: "b".repeat(1000),
            event: Some("e".repeat(129)),
            ..GameSetup::default()
        };
        assert!(bound_setup(&mut setup));
        assert_eq!(
            (
                setup.round.len(),
                setup.black.len(),
                setup.event.map(|e| e.len())
            ),
            (32, 128, Some(128))
        );
        assert!(!bound_setup(&mut GameSetup::default()));
    }
}
