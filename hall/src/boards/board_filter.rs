//! Which boards the hall believes (issue 21): anyone with a broker account may publish under
//! `{prefix}/{tournament}/{board}/...`, so the hall follows only the tournaments and boards
//! its config names: `[hall] tournaments` (else `[tournament] id`) and `[hall] boards` (else
//! the `[tournament] boards` pattern). Anything else it hears is dropped before it becomes
//! a board: never archived, counted, listed, alerted or written as a result. Each dropped
//! board is logged once (up to [`MAX_LOGGED`] of them, then only a count).

use std::collections::BTreeSet;

use tengen_protocol::topics::BoardKey;
use tengen_tournament::BoardPattern;

use crate::config::HallConfig;

/// How many dropped (tournament, board) pairs are remembered to log each once; past that,
/// every further one is only counted (a flood of made-up ids must not grow the hall).
pub(crate) const MAX_LOGGED: usize = 1024;

/// The boards the hall follows.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Boards {
    /// Every board (no `[hall] boards`, no `[tournament]`).
    Any,
    /// `[hall] boards`.
    Listed(BTreeSet<String>),
    /// The `[tournament] boards` pattern: a board some table has.
    Pattern(BoardPattern),
}

/// The hall's trust boundary: which (tournament, board) it believes, and the log of what it
/// dropped.
#[derive(Debug, Clone)]
pub(crate) struct BoardFilter {
    /// `None`: every tournament.
    tournaments: Option<BTreeSet<String>>,
    boards: Boards,
    /// The dropped pairs logged so far (at most [`MAX_LOGGED`]).
    logged: BTreeSet<BoardKey>,
    /// Messages dropped, in all.
    dropped: u64,
}

impl Default for BoardFilter {
    /// Every board of every tournament, as before issue 21.
    fn default() -> BoardFilter {
        BoardFilter {
            tournaments: None,
            boards: Boards::Any,
            logged: BTreeSet::new(),
            dropped: 0,
        }
    }
}

impl BoardFilter {
    /// The filter `config` sets up.
    pub(crate) fn from_config(config: &HallConfig) -> BoardFilter {
        let section = config.tournament.as_ref();
        let tournaments = match (
            &config.hall.tournaments,
            section.and_then(|t| t.id.as_ref()),
        ) {
            (Some(list), _) => Some(list.iter().cloned().collect()),
            (None, Some(id)) => Some(BTreeSet::from([id.clone()])),
            (None, None) => None,
        };
        let boards = match (&config.hall.boards, section) {
            (Some(list), _) => Boards::Listed(list.iter().cloned().collect()),
            (None, Some(t)) => Boards::Pattern(t.boards.clone()),
            (None, None) => Boards::Any,
        };
        BoardFilter {
            tournaments,
            boards,
            ..BoardFilter::default()
        }
    }

    /// Whether the hall believes board `key`.
    pub(crate) fn admits(&self, key: &BoardKey) -> bool {
        let tournament = self
            .tournaments
            .as_ref()
            .is_none_or(|t| t.contains(&key.tournament));
        tournament
            && match &self.boards {
                Boards::Any => true,
                Boards::Listed(list) => list.contains(&key.board),
                Boards::Pattern(p) => p.matches(&key.board),
            }
    }

    /// [`BoardFilter::admits`], logging (once per board, `warn`) what it drops.
    pub(crate) fn check(&mut self, key: &BoardKey, topic: &str) -> bool {
        if self.admits(key) {
            return true;
        }
        self.dropped = self.dropped.saturating_add(1);
        if self.logged.len() < MAX_LOGGED && self.logged.insert(key.clone()) {
            tracing::warn!(
                "{topic}: dropped: board {} of tournament {} is not one of this hall's \
                 ([hall] tournaments and boards, or [tournament] id and boards); its \
                 messages are ignored from now on",
                key.board,
                key.tournament
            );
            if self.logged.len() == MAX_LOGGED {
                tracing::warn!(
                    "{MAX_LOGGED} boards that are not this hall's were heard: the others \
                     are dropped without a word (someone on the broker is making them up?)"
                );
            }
        }
        false
    }

    /// How many messages were dropped.
    #[cfg(test)]
    fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn filter(text: &str) -> BoardFilter {
        let c = HallConfig::parse(text, Path::new("hall.toml")).expect("valid");
        BoardFilter::from_config(&c)
    }

    fn key(t: &str, b: &str) -> BoardKey {
        BoardKey::new(t, b).expect("ids")
    }

    #[test]
    fn the_hall_keys_come_first_then_the_tournament_file() {
        let listed = filter(
            "[hall]\ntournaments = [\"open-2026\"]\nboards = [\"hall1-01\", \"hall1-02\"]\n",
        );
        assert!(listed.admits(&key("open-2026", "hall1-01")));
        assert!(!listed.admits(&key("open-2026", "hall1-03")));
        assert!(!listed.admits(&key("open-2026", "viewer")));
        assert!(!listed.admits(&key("fl2-1", "hall1-01")));

        let tournament = "[tournament]\nfile = \"t.xml\"\nboards = \"hall1-{table:02}\"\n\
                          id = \"open-2026\"\n";
        let pattern = filter(tournament);
        assert!(pattern.admits(&key("open-2026", "hall1-17")));
        assert!(!pattern.admits(&key("open-2026", "hall1-7")));
        assert!(!pattern.admits(&key("open-2026", "viewer")));
        assert!(!pattern.admits(&key("other", "hall1-17")));
        // [hall] boards wins over the pattern.
        let both = filter(&format!("[hall]\nboards = [\"x-1\"]\n{tournament}"));
        assert!(both.admits(&key("open-2026", "x-1")));
        assert!(!both.admits(&key("open-2026", "hall1-01")));
        assert_eq!(
            HallConfig::parse(tournament, Path::new("hall.toml"))
                .expect("valid")
                .trust_warning(),
            None
        );
    }

    #[test]
    fn with_neither_it_follows_everything_and_says_so() {
        let open = filter("");
        assert!(open.admits(&key("any", "viewer")));
        let w = HallConfig::default().trust_warning().expect("a warning");
        assert!(
            w.contains("[hall] tournaments") && w.contains("boards = ["),
            "{w}"
        );
        assert!(!w.contains('\n'));
        // A tournament without an id: every tournament's boards of the pattern.
        let c = HallConfig::parse("[tournament]\nfile = \"t.xml\"\n", Path::new("hall.toml"))
            .expect("valid");
        let w = c.trust_warning().expect("a warning");
        assert!(
            w.contains("[hall] tournaments") && !w.contains("[hall] boards"),
            "{w}"
        );
    }

    #[test]
    fn each_dropped_board_is_logged_once_and_the_log_is_bounded() {
        let mut f = filter("[hall]\ntournaments = [\"t\"]\nboards = [\"b1\"]\n");
        assert!(f.check(&key("t", "b1"), "tengen/t/b1/events"));
        for n in 0..(MAX_LOGGED + 500) {
            let k = key(&format!("fl2-{n}"), "viewer");
            assert!(!f.check(&k, "x"));
            assert!(!f.check(&k, "x"));
        }
        assert_eq!(f.logged.len(), MAX_LOGGED);
        assert_eq!(f.dropped(), 2 * (MAX_LOGGED as u64 + 500));
    }
}
