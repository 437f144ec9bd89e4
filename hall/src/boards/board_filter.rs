//! Which boards the hall believes (issue 21): anyone with a broker account may publish under
//! `{prefix}/{tournament}/{board}/...`, so the hall follows only the tournaments and boards
//! its config names: `[hall] tournaments` (else `[tournament] id`) and `[hall] boards` (else
//! the `[tournament] boards` pattern, for the tables the tournament file has: issue 34).
//! Anything else it hears is dropped before it becomes a board: never archived, counted,
//! listed, alerted or written as a result. Each dropped board is logged once (up to
//! [`MAX_LOGGED`] of them, then only a count).

use std::collections::BTreeSet;

use tengen_protocol::topics::BoardKey;
use tengen_tournament::{BoardPattern, Tournament};

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
    /// The `[tournament] boards` pattern: a board some table has, of the tables from 1 to
    /// the last the tournament can have (`None` until the tournament file is read).
    Pattern(BoardPattern, Option<u32>),
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
            (None, Some(t)) => Boards::Pattern(t.boards.clone(), None),
            (None, None) => Boards::Any,
        };
        BoardFilter {
            tournaments,
            boards,
            ..BoardFilter::default()
        }
    }

    /// The same filter admitting, by the `[tournament] boards` pattern, only the tables
    /// `tournament` has: from 1 to the last table of its pairings, or to half its players
    /// (rounded up) where that is more (the rounds paired later).
    pub(crate) fn with_tables_of(mut self, tournament: &Tournament) -> BoardFilter {
        if let Boards::Pattern(_, tables) = &mut self.boards {
            let paired = tournament
                .rounds()
                .into_iter()
                .flat_map(|r| tournament.round(r).into_iter().map(|p| p.table))
                .max()
                .unwrap_or(0);
            let seated = u32::try_from(tournament.players().len().div_ceil(2)).unwrap_or(u32::MAX);
            *tables = Some(paired.max(seated));
        }
        self
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
                Boards::Pattern(p, None) => p.matches(&key.board),
                Boards::Pattern(p, Some(last)) => p
                    .table_of(&key.board)
                    .is_some_and(|t| (1..=*last).contains(&t)),
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
    fn by_the_pattern_only_the_tables_the_tournament_file_has() {
        let text = std::fs::read_to_string(format!(
            "{}/../tournament/tests/data/opengotha/juvisy.xml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("the sample");
        // 19 players, 4 rounds of up to 9 tables: tables 1 to 10 (half the players, up).
        let juvisy = Tournament::parse(&text).expect("a tournament");
        let f =
            filter("[tournament]\nfile = \"t.xml\"\nboards = \"hall1-{table:02}\"\nid = \"cup\"\n")
                .with_tables_of(&juvisy);
        for (board, admitted) in [
            ("hall1-01", true),
            ("hall1-09", true),
            ("hall1-10", true),
            ("hall1-11", false),
            ("hall1-99", false),
            ("hall1-2000", false),
            ("hall1-00", false),
        ] {
            assert_eq!(f.admits(&key("cup", board)), admitted, "{board}");
        }
        // The list path is as it was: no table bound.
        let listed = filter("[hall]\ntournaments = [\"cup\"]\nboards = [\"hall1-50\"]\n")
            .with_tables_of(&juvisy);
        assert!(listed.admits(&key("cup", "hall1-50")));
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
