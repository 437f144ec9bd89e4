//! What the pages read: each board's feeds (live, public, commentators'), the boards'
//! summaries for the overviews, the boards found by id, and the current games of the rounds.

use std::time::Instant;

use serde_json::Value;
use tengen_net::live_view::LiveFeed;
use tengen_protocol::topics::BoardKey;
use tengen_protocol::view::{Phase, StateSnapshot};

use super::HallState;
use crate::boards::board_view::{Audience, BoardView, Ending};

impl HallState {
    /// The live feed of one board, if the hall has heard of it (for arbiters).
    pub(crate) fn feed(&self, key: &BoardKey) -> Option<LiveFeed> {
        self.boards.get(key).map(|b| b.feed().clone())
    }

    /// The feed the public pages of one board are served from: delayed under a broadcast
    /// delay, else the live one.
    pub(crate) fn public_feed(&self, key: &BoardKey) -> Option<LiveFeed> {
        self.boards.get(key).map(|b| b.public_feed().clone())
    }

    /// The feed the commentators' pages of one board are served from: live without the
    /// arbiters' events under `[hall] commentary = "live"`, else the public one.
    pub(crate) fn commentary_feed(&self, key: &BoardKey) -> Option<LiveFeed> {
        self.boards.get(key).map(|b| {
            if self.live_commentary {
                b.commentary_feed().clone()
            } else {
                b.public_feed().clone()
            }
        })
    }

    /// What the hall knows of one board, if it has heard of it.
    pub(crate) fn board_view(&self, key: &BoardKey) -> Option<&BoardView> {
        self.boards.get(key)
    }

    /// True when the public pages lag behind (a `[broadcast]` section).
    pub(crate) fn is_delayed(&self) -> bool {
        self.delay.is_some()
    }

    /// Every board heard of, by tournament and board id.
    pub(crate) fn board_keys(&self) -> Vec<BoardKey> {
        self.boards.keys().cloned().collect()
    }

    /// The number of boards heard of.
    pub fn board_count(&self) -> usize {
        self.boards.len()
    }

    /// `/api/boards`: every board's public summary, by tournament and board id.
    pub fn boards_json(&self, now: Instant) -> Value {
        self.summaries(now, Audience::Public, "")
    }

    /// [`HallState::boards_json`] as JSON text, each board's part serialised only when the
    /// board changed (the overview, once a second for every viewer).
    pub(crate) fn boards_json_text(&mut self, now: Instant) -> String {
        let mut out = String::with_capacity(self.boards.len() * 1024 + 2);
        out.push('[');
        for (i, (k, b)) in self.boards.iter_mut().enumerate() {
            if i > 0 {
                out.push(',');
            }
            b.write_public_summary(&mut out, &k.tournament, &k.board, now);
        }
        out.push(']');
        out
    }

    /// `/api/console/boards`: every board as the arbiters see it, live (never delayed),
    /// with its open alerts counted. For the console only.
    pub(crate) fn live_boards_json(&self, now: Instant) -> Value {
        self.summaries(now, Audience::Arbiters, "/console")
    }

    /// `/api/commentary/boards`: every board as the commentators see it, live (a closed
    /// commentary room, `[hall] commentary = "live"`) or as the public does, never with
    /// its alerts, each linking to its `/commentary/board/...` page.
    pub(crate) fn commentary_boards_json(&self, now: Instant) -> Value {
        let audience = if self.live_commentary {
            Audience::Commentators
        } else {
            Audience::Public
        };
        self.summaries(now, audience, "/commentary")
    }

    fn summaries(&self, now: Instant, audience: Audience, pages: &str) -> Value {
        Value::Array(
            self.boards
                .iter()
                .map(|(k, b)| b.summary(&k.tournament, &k.board, now, audience, pages))
                .collect(),
        )
    }

    /// The boards heard of with board id `board`, under tournament id `tournament` when one
    /// is given: each key with the board's status (`online`, `offline`, `restoring`, or
    /// `None` before its first status) and its latest `state` snapshot (live, never
    /// delayed: for the console).
    pub(crate) fn boards_named(
        &self,
        tournament: Option<&str>,
        board: &str,
    ) -> Vec<NamedBoard<'_>> {
        self.boards
            .iter()
            .filter(|(k, _)| k.board == board && tournament.is_none_or(|t| k.tournament == t))
            .map(|(k, b)| NamedBoard {
                key: k,
                status: b.status(),
                state: b.with_live(|s| s.cloned()),
                ending: b.ending().cloned(),
            })
            .collect()
    }

    /// Every board's current game that has a round, as the public sees it (delayed under
    /// `[broadcast]`), for the round zips and `/rounds`; with its public SGF when `sgf`
    /// (else the SGF is left empty).
    pub(crate) fn current_games(&self, sgf: bool) -> Vec<CurrentGame> {
        self.boards
            .iter()
            .filter(|(_, b)| !b.round().is_empty())
            .map(|(k, b)| {
                let feed = b.public_feed();
                CurrentGame {
                    key: k.clone(),
                    game: b.game().to_string(),
                    round: b.round().to_string(),
                    over: feed.with_snapshot(|s| s.is_some_and(|s| s.phase == Phase::Over)),
                    sgf: if sgf { feed.sgf() } else { String::new() },
                    voided: b.live_view().voided(),
                }
            })
            .collect()
    }
}

/// A board found by its id ([`HallState::boards_named`]).
pub(crate) struct NamedBoard<'a> {
    /// Its tournament and board ids.
    pub(crate) key: &'a BoardKey,
    /// Its status (`online`, `offline`, `restoring`, or none before the first).
    pub(crate) status: Option<&'a str>,
    /// Its latest `state` snapshot (live, never delayed).
    pub(crate) state: Option<StateSnapshot>,
    /// How its current game last ended, as followed.
    pub(crate) ending: Option<Ending>,
}

/// A board's current game as the public sees it ([`HallState::current_games`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CurrentGame {
    /// The board.
    pub(crate) key: BoardKey,
    /// The game id (maybe empty: a board known only from a `state` without one).
    pub(crate) game: String,
    /// The round.
    pub(crate) round: String,
    /// True when the public side shows the game over.
    pub(crate) over: bool,
    /// The public SGF (empty before the setup is public, or when not asked for).
    pub(crate) sgf: String,
    /// An arbiter voided it (live, whatever the delay has let out): it leaves every public
    /// view at once.
    pub(crate) voided: bool,
}

/// The name of a game's SGF in a round zip: `{tournament}-{board}-{game}.sgf`.
pub(crate) fn zip_name(key: &BoardKey, game: &str) -> String {
    let game = if game.is_empty() { "game" } else { game };
    format!("{}-{}-{}.sgf", key.tournament, key.board, safe(game))
}

/// `s` with every character outside `[A-Za-z0-9._-]` replaced by `_` (zip entry names).
fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
