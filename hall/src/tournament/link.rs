//! The tournament around the boards (`[tournament]` in `hall.toml`): the rounds of an
//! OpenGotha file started on the boards, and the boards' results confirmed by an arbiter
//! and written back. Sans-IO apart from reading the tournament file at start and writing
//! the results file: the routes send what [`TournamentLink::start_round`] and
//! [`TournamentLink::begin_play`] plan, through the hall's signed commands.
//!
//! - **Round view** ([`TournamentLink::round_json`]): each table of a round with its
//!   players, its board (found by the `boards` pattern, under `id` when given) and the
//!   board's state: `no board` (never heard of), `offline`, `idle` (nothing played in its
//!   current game), `other game` (a game in progress that is not this table's), `set up`
//!   (this table's game, no move yet), `playing`, `counting`, `over`. Byes are listed.
//! - **Start round**: a `new_game` to each table's board with the game id
//!   `r{round}-t{table}`, the players (`name firstName`) and ranks, the handicap (OpenGotha's
//!   handicap 1, "taking Black", is no stones and no komi), the komi under the Chinese rules
//!   ([`Tournament::komi_for`]), the time system, the round, the table and the tournament's
//!   name. Not sent, and listed: tables whose board is unknown or offline, and boards with
//!   a game in progress (unless forced) or already set up for this game (unless forced).
//! - **Begin play**: `resume` to each board set up for its table's game of the round: a
//!   game set up by `new_game` waits with its clocks stopped until then.
//! - **Results**: a board's `game_over` in this table's game is the table's *pending*
//!   result; an arbiter confirms it (or gives another: a forfeit, both win, both lose,
//!   jigo). A forfeit (`W+F`) is OpenGotha's win *by default* only when no move was
//!   played ([`GameResult::from_game`]): a game lost by a second warning was played. Each
//!   confirmation writes the results file: the tournament file as it was read, with every
//!   confirmed game's `result` set and nothing else changed, written atomically, the
//!   previous one kept as `.bak` (the newest 20 kept). Beside it, `RESULTS.confirmations.json`
//!   says who confirmed each result. A hall started again reads its confirmations back
//!   from the two: a result there is "confirmed by" the arbiter who did; one the results
//!   file holds without a record of who (edited by hand, or the companion file lost) is
//!   "confirmed by file".
//! - **Paper tables**: a table whose board no board has been heard of is played without a
//!   board; *Start round* and *Begin play* list those tables once, apart from the boards
//!   left out for a reason.
//! - **Round in play** ([`TournamentLink::round_in_play`]): the round whose games the
//!   boards hold now, so the console opens on it.
//! - **The records**: a round zip's record of a table whose result an arbiter confirmed
//!   carries the confirmed result ([`TournamentLink::confirmed_for`]).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tengen_protocol::topics::BoardKey;
use tengen_tournament::{
    replace_atomically, round_and_table, write_atomically, GameResult, Pairing, Tournament,
    TournamentError,
};
use thiserror::Error;

use crate::boards::hall_state::HallState;
use crate::config::TournamentSection;

/// Why a tournament action failed.
#[derive(Debug, Error)]
pub enum LinkError {
    /// The tournament file (or the results file) cannot be read or used.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: TournamentError,
    },
    /// The tournament file cannot be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// No such game in the file.
    #[error("round {round} has no table {table}")]
    NoSuchTable {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
    },
    /// A confirmation without a result, where the board has none.
    #[error("table {table}: its board has no result for this game yet; give one")]
    NoResult {
        /// The table.
        table: u32,
    },
}

/// A result an arbiter confirmed.
#[derive(Debug, Clone, PartialEq)]
struct Confirmed {
    result: GameResult,
    /// The arbiter (`file` for one read back from the results file).
    by: String,
}

/// One line of the companion file that says who confirmed each result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Confirmation {
    round: u32,
    table: u32,
    /// The OpenGotha result confirmed (`RESULT_BLACKWINS`).
    result: String,
    /// The arbiter.
    by: String,
}

/// The file beside the results file that says who confirmed each result:
/// `NAME-results.xml.confirmations.json`.
pub(crate) fn confirmations_file(results_file: &Path) -> PathBuf {
    let mut name = results_file.as_os_str().to_owned();
    name.push(".confirmations.json");
    PathBuf::from(name)
}

/// Who confirmed what, from the companion file; empty when there is none, and (with a
/// warning) when it cannot be read: the results file itself is what counts.
fn read_confirmations(results_file: &Path) -> HashMap<(u32, u32), Confirmation> {
    let path = confirmations_file(results_file);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return HashMap::new(),
        Err(e) => {
            tracing::warn!(
                "{}: {e}; results read back as confirmed by file",
                path.display()
            );
            return HashMap::new();
        }
    };
    match serde_json::from_str::<Vec<Confirmation>>(&text) {
        Ok(list) => list.into_iter().map(|c| ((c.round, c.table), c)).collect(),
        Err(e) => {
            tracing::warn!(
                "{}: not a list of confirmations ({e}); results read back as confirmed by file",
                path.display()
            );
            HashMap::new()
        }
    }
}

/// What *Start round* or *Begin play* is to do: the commands to send, the tables left out
/// with why, and the paper tables (no board with their id has been heard of: played
/// without one), said once.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Plan {
    /// The commands to send.
    pub(crate) send: Vec<Planned>,
    /// The tables with a board that were left out, and why.
    pub(crate) skipped: Vec<Skipped>,
    /// The paper tables.
    pub(crate) paper: Vec<u32>,
}

/// A command the routes are to send: to which board, and its body (without `id`/`by`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Planned {
    /// The table it is for.
    pub(crate) table: u32,
    /// The board.
    pub(crate) key: BoardKey,
    /// The command (`type` and its fields).
    pub(crate) body: Map<String, Value>,
}

/// A table left out of a start or a begin, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skipped {
    /// The table.
    pub(crate) table: u32,
    /// The board id the table maps to.
    pub(crate) board: String,
    /// Why, for the console (`offline`, `no board`, `game in progress (r2-t4, move 87)`).
    pub(crate) why: String,
}

/// What a table's board is doing, from its status and `state` snapshot.
#[derive(Debug, Clone, PartialEq)]
struct TableBoard {
    key: Option<BoardKey>,
    /// `no board`, `offline`, `idle`, `other game`, `set up`, `playing`, `counting`, `over`.
    state: &'static str,
    /// The board's current game id and move number, and its result in that game.
    game: String,
    number: u64,
    result: Option<String>,
    /// The clocks stand still (paused, or waiting for play to begin).
    stopped: bool,
}

/// The tournament file and the results confirmed so far.
pub(crate) struct TournamentLink {
    section: TournamentSection,
    /// The file's text as read at start: results are written into a copy of it.
    original: String,
    tournament: Tournament,
    confirmed: BTreeMap<(u32, u32), Confirmed>,
}

impl TournamentLink {
    /// Reads the tournament file, and the results file when there is one (its results that
    /// differ from the tournament file's are taken as confirmed).
    pub(crate) fn load(section: &TournamentSection) -> Result<TournamentLink, LinkError> {
        let file_error = |path: &PathBuf| {
            let path = path.clone();
            move |source| LinkError::File { path, source }
        };
        let original =
            std::fs::read_to_string(&section.file).map_err(|source| LinkError::Read {
                path: section.file.clone(),
                source,
            })?;
        let tournament = Tournament::parse(&original).map_err(file_error(&section.file))?;
        let mut link = TournamentLink {
            section: section.clone(),
            original,
            tournament,
            confirmed: BTreeMap::new(),
        };
        if section.results_file.exists() {
            let written = Tournament::read(&section.results_file)
                .map_err(file_error(&section.results_file))?;
            let by_whom = read_confirmations(&section.results_file);
            for g in written.games() {
                let before = link
                    .tournament
                    .games()
                    .find(|o| o.round == g.round && o.table == g.table);
                let recorded = by_whom
                    .get(&(g.round, g.table))
                    .filter(|c| c.result == g.result.as_opengotha());
                let by = match recorded {
                    Some(c) => c.by.clone(),
                    None if before.is_some_and(|o| o.result != g.result) => "file".to_string(),
                    None => continue,
                };
                link.confirmed.insert(
                    (g.round, g.table),
                    Confirmed {
                        result: g.result,
                        by,
                    },
                );
            }
        }
        Ok(link)
    }

    /// The tournament id the boards publish under (`[tournament] id`), if given.
    pub(crate) fn tournament_id(&self) -> Option<&str> {
        self.section.id.as_deref()
    }

    /// The tournament as read.
    pub(crate) fn tournament(&self) -> &Tournament {
        &self.tournament
    }

    /// The board of `table`, and what it is doing with respect to `game`.
    fn table_board(&self, hall: &HallState, table: u32, game: &str) -> TableBoard {
        let id = self.section.boards.board(table);
        let found = hall.boards_named(self.section.id.as_deref(), &id);
        // Several tournaments with this board id: the one playing this game, else the first.
        let chosen = found
            .iter()
            .find(|(_, _, s)| s.as_ref().is_some_and(|s| s.game_id == game))
            .or(found.first());
        let Some((key, status, state)) = chosen else {
            return TableBoard {
                key: None,
                state: "no board",
                game: String::new(),
                number: 0,
                result: None,
                stopped: false,
            };
        };
        let board_game = state
            .as_ref()
            .map_or("", |s| s.game_id.as_str())
            .to_string();
        let number = state.as_ref().map_or(0, |s| u64::from(s.number));
        let phase = state.as_ref().map_or("", |s| s.phase.as_str());
        let result = state
            .as_ref()
            .and_then(|s| s.result.as_deref())
            .filter(|r| !r.is_empty())
            .map(str::to_string);
        let this_game = board_game == game;
        let stopped = state
            .as_ref()
            .and_then(|s| s.clocks.as_ref())
            .is_some_and(|c| c.paused);
        let what = if *status == Some("offline") {
            "offline"
        } else if this_game {
            match phase {
                "over" => "over",
                "counting" => "counting",
                _ if number == 0 => "set up",
                _ => "playing",
            }
        } else if phase == "over" || number == 0 {
            "idle"
        } else {
            "other game"
        };
        TableBoard {
            key: Some((*key).clone()),
            state: what,
            game: board_game,
            number,
            result: if this_game { result } else { None },
            stopped,
        }
    }

    /// The board's result for a table's game, as OpenGotha would have it: a forfeit after
    /// moves were played (two warnings) is a plain win, not one by default.
    fn pending(&self, board: &TableBoard) -> Option<GameResult> {
        if board.state != "over" {
            return None;
        }
        let re = board.result.as_deref()?;
        GameResult::from_game(re, board.number > 0)
    }

    /// The round whose games the boards hold now: the latest round with a game in play on
    /// its table's board, else the latest with a finished one still on it; `None` when no
    /// board holds a game of the tournament.
    pub(crate) fn round_in_play(&self, hall: &HallState) -> Option<u32> {
        let mut playing = None;
        let mut held = None;
        for g in hall.current_games(false) {
            let Some((round, table)) = round_and_table(&g.game) else {
                continue;
            };
            if !self.is_tables_board(&g.key, round, table) {
                continue;
            }
            held = held.max(Some(round));
            if !g.over {
                playing = playing.max(Some(round));
            }
        }
        playing.or(held)
    }

    /// Whether `key` is the board of table `table` of round `round` (a game of the file).
    fn is_tables_board(&self, key: &BoardKey, round: u32, table: u32) -> bool {
        let in_file = self
            .tournament
            .games()
            .any(|g| g.round == round && g.table == table);
        in_file
            && key.board == self.section.boards.board(table)
            && self
                .section
                .id
                .as_deref()
                .is_none_or(|id| id == key.tournament)
    }

    /// The result an arbiter confirmed for game `game` of board `key`, when that is a game
    /// of the file on its table's board.
    pub(crate) fn confirmed_for(&self, key: &BoardKey, game: &str) -> Option<GameResult> {
        let (round, table) = round_and_table(game)?;
        if !self.is_tables_board(key, round, table) {
            return None;
        }
        self.confirmed.get(&(round, table)).map(|c| c.result)
    }

    /// `GET /api/console/round/{round}`: the round's tables, boards, states and results.
    pub(crate) fn round_json(&self, hall: &HallState, round: u32) -> Value {
        let t = &self.tournament;
        let tables: Vec<Value> = t
            .round(round)
            .iter()
            .map(|p| {
                let board = self.table_board(hall, p.table, &p.game);
                let pending = self.pending(&board);
                let confirmed = self.confirmed.get(&(round, p.table));
                let (result, result_state, by) = match (confirmed, pending, p.result) {
                    (Some(c), _, _) => (c.result, "confirmed", Some(c.by.clone())),
                    (None, Some(r), _) => (r, "pending", None),
                    (None, None, r) if r != GameResult::Unknown => (r, "in file", None),
                    (None, None, r) => (r, "none", None),
                };
                json!({
                    "table": p.table,
                    "game": p.game,
                    "board": self.section.boards.board(p.table),
                    "tournament": board.key.as_ref().map(|k| k.tournament.clone()),
                    "black": p.black.display_name(),
                    "black_rank": p.black.rank,
                    "white": p.white.display_name(),
                    "white_rank": p.white.rank,
                    "handicap": p.handicap,
                    "komi": t.komi_for(p.handicap),
                    "state": board.state,
                    "board_game": board.game,
                    "number": board.number,
                    "clocks_stopped": board.stopped,
                    "board_result": board.result,
                    "result": result.as_opengotha(),
                    "result_label": result.label(),
                    "result_state": result_state,
                    "confirmed_by": by,
                })
            })
            .collect();
        let byes: Vec<Value> = t
            .byes(round)
            .iter()
            .map(|p| json!({"name": p.display_name(), "rank": p.rank}))
            .collect();
        json!({
            "tournament": t.name(),
            "round": round,
            "rounds": t.rounds(),
            "round_in_play": self.round_in_play(hall),
            "time": t.time_system().script(),
            "results_file": self.section.results_file.display().to_string(),
            "tables": tables,
            "byes": byes,
        })
    }

    /// The `new_game` of a table's game.
    fn new_game(&self, p: &Pairing<'_>) -> Map<String, Value> {
        let t = &self.tournament;
        // OpenGotha's handicap 1 is "taking Black": no stones (and no komi).
        let stones = if p.handicap < 2 { 0 } else { p.handicap };
        let body = json!({
            "type": "new_game",
            "game": p.game,
            "black": p.black.display_name(),
            "white": p.white.display_name(),
            "black_rank": p.black.rank,
            "white_rank": p.white.rank,
            "event": t.name(),
            "place": (!t.location().is_empty()).then(|| t.location()),
            "round": p.round.to_string(),
            "table": p.table.to_string(),
            "size": t.size(),
            "komi": t.komi_for(p.handicap),
            "handicap": stones,
            "time_control": t.time_system().script(),
        });
        match body {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// What *Start round* sends (only to `tables` when given): a `new_game` per table whose
    /// board is there and free, and the tables left out with the reason. `force` also
    /// starts boards with a game in progress or already set up for this game.
    pub(crate) fn start_round(
        &self,
        hall: &HallState,
        round: u32,
        tables: Option<&[u32]>,
        force: bool,
    ) -> Result<Plan, LinkError> {
        let pairings = self.pairings(round, tables)?;
        let mut plan = Plan::default();
        for p in &pairings {
            let board = self.table_board(hall, p.table, &p.game);
            let skip = |why: String| Skipped {
                table: p.table,
                board: self.section.boards.board(p.table),
                why,
            };
            if board.key.is_none() {
                plan.paper.push(p.table);
                continue;
            }
            let why = match board.state {
                "offline" => Some("offline".to_string()),
                "other game" if !force => Some(format!(
                    "game in progress ({}, move {})",
                    board.game, board.number
                )),
                "set up" | "playing" | "counting" | "over" if !force => {
                    Some(format!("already has this game ({})", board.state))
                }
                _ => None,
            };
            match (why, board.key) {
                (None, Some(key)) => plan.send.push(Planned {
                    table: p.table,
                    key,
                    body: self.new_game(p),
                }),
                (Some(why), _) => plan.skipped.push(skip(why)),
                (None, None) => plan.paper.push(p.table),
            }
        }
        Ok(plan)
    }

    /// What *Begin play* sends: `resume` to each board set up with its table's game of the
    /// round (only `tables` when given); the others are listed.
    pub(crate) fn begin_play(
        &self,
        hall: &HallState,
        round: u32,
        tables: Option<&[u32]>,
    ) -> Result<Plan, LinkError> {
        let pairings = self.pairings(round, tables)?;
        let mut plan = Plan::default();
        for p in &pairings {
            let board = self.table_board(hall, p.table, &p.game);
            match (board.state, board.key) {
                ("set up" | "playing", Some(key)) => {
                    let mut body = Map::new();
                    body.insert("type".into(), Value::from("resume"));
                    plan.send.push(Planned {
                        table: p.table,
                        key,
                        body,
                    });
                }
                (_, None) => plan.paper.push(p.table),
                (state, Some(_)) => plan.skipped.push(Skipped {
                    table: p.table,
                    board: self.section.boards.board(p.table),
                    why: format!("{state}, not set up with {}", p.game),
                }),
            }
        }
        Ok(plan)
    }

    /// The round's pairings, or only `tables` (each must be a table of the round).
    fn pairings(&self, round: u32, tables: Option<&[u32]>) -> Result<Vec<Pairing<'_>>, LinkError> {
        let all = self.tournament.round(round);
        let Some(tables) = tables else {
            return Ok(all);
        };
        if let Some(&table) = tables.iter().find(|t| !all.iter().any(|p| p.table == **t)) {
            return Err(LinkError::NoSuchTable { round, table });
        }
        Ok(all
            .into_iter()
            .filter(|p| tables.contains(&p.table))
            .collect())
    }

    /// Confirms results and writes the results file: each `(table, result)`, `None` taking
    /// the board's pending result. `all_pending` adds every table of the round whose board
    /// has a pending result not yet confirmed. Returns the tables confirmed and the results
    /// file written (with the previous one's backup, if any).
    pub(crate) fn confirm(
        &mut self,
        hall: &HallState,
        round: u32,
        given: &[(u32, Option<GameResult>)],
        all_pending: bool,
        by: &str,
    ) -> Result<(Vec<u32>, Option<PathBuf>), LinkError> {
        let pairings = self.tournament.round(round);
        let mut chosen: Vec<(u32, GameResult)> = Vec::new();
        for &(table, result) in given {
            let p = pairings
                .iter()
                .find(|p| p.table == table)
                .ok_or(LinkError::NoSuchTable { round, table })?;
            let result = match result {
                Some(r) => r,
                None => self
                    .pending(&self.table_board(hall, table, &p.game))
                    .ok_or(LinkError::NoResult { table })?,
            };
            chosen.push((table, result));
        }
        if all_pending {
            for p in &pairings {
                if self.confirmed.contains_key(&(round, p.table))
                    || chosen.iter().any(|(t, _)| *t == p.table)
                {
                    continue;
                }
                if let Some(r) = self.pending(&self.table_board(hall, p.table, &p.game)) {
                    chosen.push((p.table, r));
                }
            }
        }
        drop(pairings);
        if chosen.is_empty() {
            return Ok((Vec::new(), None));
        }
        let mut next = self.confirmed.clone();
        for &(table, result) in &chosen {
            next.insert(
                (round, table),
                Confirmed {
                    result,
                    by: by.to_string(),
                },
            );
        }
        let backup = self.write(&next)?;
        self.confirmed = next;
        Ok((chosen.into_iter().map(|(t, _)| t).collect(), backup))
    }

    /// Writes `confirmed` into a copy of the tournament file, atomically.
    fn write(
        &self,
        confirmed: &BTreeMap<(u32, u32), Confirmed>,
    ) -> Result<Option<PathBuf>, LinkError> {
        let file_error = |path: &PathBuf| {
            let path = path.clone();
            move |source| LinkError::File { path, source }
        };
        let mut by_round: BTreeMap<u32, Vec<(u32, GameResult)>> = BTreeMap::new();
        for (&(round, table), c) in confirmed {
            by_round.entry(round).or_default().push((table, c.result));
        }
        let mut text = self.original.clone();
        for (round, results) in &by_round {
            text = Tournament::with_results(&text, *round, results)
                .map_err(file_error(&self.section.file))?;
        }
        let backup = write_atomically(&self.section.results_file, &text)
            .map_err(file_error(&self.section.results_file))?;
        // Who confirmed: the results are written whatever happens to this companion file;
        // without it they read back as "confirmed by file".
        let list: Vec<Confirmation> = confirmed
            .iter()
            .map(|(&(round, table), c)| Confirmation {
                round,
                table,
                result: c.result.as_opengotha().to_string(),
                by: c.by.clone(),
            })
            .collect();
        let path = confirmations_file(&self.section.results_file);
        let not_kept = |e: &dyn std::fmt::Display| {
            tracing::warn!(
                "{}: who confirmed the results not kept: {e}",
                path.display()
            );
        };
        match serde_json::to_string_pretty(&list) {
            Ok(json) => {
                if let Err(e) = replace_atomically(&path, &json) {
                    not_kept(&e);
                }
            }
            Err(e) => not_kept(&e),
        }
        Ok(backup)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use tengen_tournament::BoardPattern;

    /// Round 1 of the Chinese sample: 12 tables.
    fn link(dir: &std::path::Path) -> TournamentLink {
        link_of(dir, "tournoi-chinois.xml")
    }

    /// A link to a copy of sample `name` (juvisy.xml: 4 rounds of 9 tables).
    fn link_of(dir: &std::path::Path, name: &str) -> TournamentLink {
        let file = dir.join("t.xml");
        std::fs::copy(
            format!(
                "{}/../tournament/tests/data/opengotha/{name}",
                env!("CARGO_MANIFEST_DIR")
            ),
            &file,
        )
        .unwrap();
        let section = TournamentSection {
            results_file: dir.join("t-results.xml"),
            file,
            boards: BoardPattern::parse("hall1-{table:02}").unwrap(),
            id: Some("cup".into()),
        };
        TournamentLink::load(&section).unwrap()
    }

    fn board(h: &mut HallState, table: u32, status: &str, state: Value) {
        let now = Instant::now();
        let base = format!("tengen/cup/hall1-{table:02}");
        h.on_message(
            &format!("{base}/status"),
            json!({ "state": status }).to_string().as_bytes(),
            now,
        );
        h.on_message(
            &format!("{base}/state"),
            crate::test_support::whole_state(state)
                .to_string()
                .as_bytes(),
            now,
        );
    }

    fn tables(v: &[Planned]) -> Vec<u32> {
        v.iter().map(|p| p.table).collect()
    }

    #[test]
    fn a_round_starts_on_the_free_boards_and_lists_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let link = link(dir.path());
        let mut h = HallState::new("tengen", None, "h");
        board(
            &mut h,
            1,
            "online",
            json!({"game_id": "game-1", "phase": "playing", "number": 0}),
        );
        board(
            &mut h,
            2,
            "offline",
            json!({"game_id": "game-1", "phase": "playing", "number": 0}),
        );
        board(
            &mut h,
            3,
            "online",
            json!({"game_id": "friendly", "phase": "playing", "number": 87}),
        );
        board(
            &mut h,
            4,
            "online",
            json!({"game_id": "old", "phase": "over", "number": 200, "result": "B+R"}),
        );
        let plan = link.start_round(&h, 1, None, false).unwrap();
        let sent = &plan.send;
        assert_eq!(tables(sent), [1, 4]);
        let why: Vec<(u32, &str)> = plan
            .skipped
            .iter()
            .map(|s| (s.table, s.why.as_str()))
            .collect();
        assert_eq!(
            why,
            [(2, "offline"), (3, "game in progress (friendly, move 87)")]
        );
        // Tables 5-12 have no board: played on paper, said once, not an error each.
        assert_eq!(plan.paper, (5..=12).collect::<Vec<u32>>());
        // What table 1's board is told: SPEC.md's new_game, from the file.
        let body = &sent[0].body;
        assert_eq!(sent[0].key.board, "hall1-01");
        assert_eq!(body["type"], "new_game");
        assert_eq!(body["game"], "r1-t1");
        assert_eq!(body["black"], "马 超");
        assert_eq!(body["white"], "Vannier Remi");
        assert_eq!(body["black_rank"], "1D");
        assert_eq!(body["round"], "1");
        assert_eq!(body["table"], "1");
        assert_eq!(body["komi"], 7.5);
        assert_eq!(body["handicap"], 0);
        assert_eq!(body["time_control"], "byoyomi 60m 1x30s");
        assert_eq!(body["event"], "Tournoi chinois");
        assert_eq!(
            body["place"], "Location name",
            "the file's location, the record's PC"
        );
        // Forced, the board in another game is started too; only some tables when asked.
        let plan = link.start_round(&h, 1, None, true).unwrap();
        assert_eq!(tables(&plan.send), [1, 3, 4]);
        let plan = link.start_round(&h, 1, Some(&[4]), false).unwrap();
        assert_eq!(
            (tables(&plan.send), plan.skipped.len(), plan.paper.len()),
            (vec![4], 0, 0)
        );
        assert!(matches!(
            link.start_round(&h, 1, Some(&[40]), false),
            Err(LinkError::NoSuchTable {
                round: 1,
                table: 40
            })
        ));
        // Once set up, it is not started again unless forced, and play can begin.
        board(
            &mut h,
            1,
            "online",
            json!({"game_id": "r1-t1", "phase": "playing", "number": 0}),
        );
        let plan = link.start_round(&h, 1, Some(&[1]), false).unwrap();
        assert!(plan.send.is_empty());
        let begin = link.begin_play(&h, 1, None).unwrap();
        assert_eq!(tables(&begin.send), [1]);
        assert_eq!(begin.send[0].body["type"], "resume");
        assert_eq!(begin.skipped.len(), 3, "tables 2-4 have boards not set up");
        assert_eq!(begin.paper, (5..=12).collect::<Vec<u32>>());
    }

    #[test]
    fn a_forfeit_after_moves_is_a_played_win_and_without_moves_one_by_default() {
        let dir = tempfile::tempdir().unwrap();
        let link = link(dir.path());
        let mut h = HallState::new("tengen", None, "h");
        // Table 1: Black's second warning at move 57; table 2: Black never came.
        board(
            &mut h,
            1,
            "online",
            json!({"game_id": "r1-t1", "phase": "over", "number": 57, "result": "W+F"}),
        );
        board(
            &mut h,
            2,
            "online",
            json!({"game_id": "r1-t2", "phase": "over", "number": 0, "result": "W+F"}),
        );
        let view = link.round_json(&h, 1);
        assert_eq!(view["tables"][0]["result"], "RESULT_WHITEWINS");
        assert_eq!(view["tables"][1]["result"], "RESULT_WHITEWINS_BYDEF");
    }

    #[test]
    fn the_round_in_play_is_the_one_on_the_boards() {
        let dir = tempfile::tempdir().unwrap();
        let link = link_of(dir.path(), "juvisy.xml");
        let mut h = HallState::new("tengen", None, "h");
        assert_eq!(link.round_json(&h, 1)["round_in_play"], Value::Null);
        // A friendly game, and a game of the file on the wrong table's board: not rounds.
        board(
            &mut h,
            1,
            "online",
            json!({"game_id": "friendly", "phase": "playing", "number": 3}),
        );
        board(
            &mut h,
            2,
            "online",
            json!({"game_id": "r2-t5", "round": "2", "phase": "playing", "number": 3}),
        );
        assert_eq!(link.round_in_play(&h), None);
        board(
            &mut h,
            3,
            "online",
            json!({"game_id": "r2-t3", "round": "2", "phase": "over", "number": 90, "result": "B+R"}),
        );
        assert_eq!(
            link.round_in_play(&h),
            Some(2),
            "round 2's game still on its board"
        );
        board(
            &mut h,
            4,
            "online",
            json!({"game_id": "r1-t4", "round": "1", "phase": "playing", "number": 12}),
        );
        assert_eq!(
            link.round_in_play(&h),
            Some(1),
            "a game in play outweighs a finished one"
        );
        assert_eq!(link.round_json(&h, 2)["round_in_play"], 1);
    }

    #[test]
    fn results_are_pending_until_confirmed_then_written_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut link = link(dir.path());
        let mut h = HallState::new("tengen", None, "h");
        board(
            &mut h,
            1,
            "online",
            json!({"game_id": "r1-t1", "phase": "over", "number": 180, "result": "W+R"}),
        );
        board(
            &mut h,
            2,
            "online",
            json!({"game_id": "r1-t2", "phase": "over", "number": 211, "result": "B+2.5"}),
        );
        board(
            &mut h,
            3,
            "online",
            json!({"game_id": "r1-t3", "phase": "playing", "number": 90}),
        );
        let view = link.round_json(&h, 1);
        let row = |v: &Value, t: usize| v["tables"][t - 1].clone();
        assert_eq!(row(&view, 1)["state"], "over");
        assert_eq!(row(&view, 1)["result"], "RESULT_WHITEWINS");
        assert_eq!(row(&view, 1)["result_state"], "pending");
        assert_eq!(row(&view, 3)["state"], "playing");
        assert!(
            !dir.path().join("t-results.xml").exists(),
            "nothing written yet"
        );
        // No result from the board: the arbiter must give one.
        assert!(matches!(
            link.confirm(&h, 1, &[(3, None)], false, "chief"),
            Err(LinkError::NoResult { table: 3 })
        ));
        // Table 1 confirmed as the board says; table 3 overridden (both lose).
        let (done, backup) = link
            .confirm(
                &h,
                1,
                &[(1, None), (3, Some(GameResult::BothLose))],
                false,
                "chief",
            )
            .unwrap();
        assert_eq!((done, backup), (vec![1, 3], None));
        let view = link.round_json(&h, 1);
        assert_eq!(row(&view, 1)["result_state"], "confirmed");
        assert_eq!(row(&view, 1)["confirmed_by"], "chief");
        assert_eq!(row(&view, 2)["result_state"], "pending");
        // Confirm all: the pending table 2; the file keeps the earlier ones.
        let (done, backup) = link.confirm(&h, 1, &[], true, "deputy").unwrap();
        assert_eq!(done, [2]);
        assert_eq!(backup, Some(dir.path().join("t-results.xml.bak")));
        let written = Tournament::read(dir.path().join("t-results.xml")).unwrap();
        let result = |t: u32| {
            written
                .round(1)
                .iter()
                .find(|p| p.table == t)
                .unwrap()
                .result
        };
        assert_eq!(result(1), GameResult::WhiteWins);
        assert_eq!(result(2), GameResult::BlackWins);
        assert_eq!(result(3), GameResult::BothLose);
        // The tournament file itself is untouched.
        let original = Tournament::read(dir.path().join("t.xml")).unwrap();
        assert_eq!(
            original
                .round(1)
                .iter()
                .find(|p| p.table == 3)
                .unwrap()
                .result,
            tengen_tournament::Tournament::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tournament/tests/data/opengotha/tournoi-chinois.xml"
            ))
            .unwrap()
            .round(1)
            .iter()
            .find(|p| p.table == 3)
            .unwrap()
            .result
        );
        // A hall started again reads its confirmations back, and who confirmed them.
        let again = TournamentLink::load(&link.section).unwrap();
        let view = again.round_json(&HallState::new("tengen", None, "h"), 1);
        assert_eq!(row(&view, 3)["result_state"], "confirmed");
        assert_eq!(row(&view, 3)["result"], "RESULT_BOTHLOSE");
        assert_eq!(row(&view, 3)["confirmed_by"], "chief");
        assert_eq!(row(&view, 2)["confirmed_by"], "deputy");
        // Table 2's result was already in the tournament file: confirmed all the same.
        assert_eq!(row(&view, 2)["result_state"], "confirmed");
        // The confirmed results, for the round zip's records of those tables' boards.
        let key = |t: &str, b: &str| BoardKey::new(t, b).unwrap();
        assert_eq!(
            again.confirmed_for(&key("cup", "hall1-03"), "r1-t3"),
            Some(GameResult::BothLose)
        );
        assert_eq!(again.confirmed_for(&key("cup", "hall1-04"), "r1-t3"), None);
        assert_eq!(
            again.confirmed_for(&key("other", "hall1-03"), "r1-t3"),
            None
        );
        assert_eq!(again.confirmed_for(&key("cup", "hall1-05"), "r1-t5"), None);
        // A results file edited by hand (or without its companion): "file".
        std::fs::remove_file(confirmations_file(&link.section.results_file)).unwrap();
        let view = TournamentLink::load(&link.section)
            .unwrap()
            .round_json(&HallState::new("tengen", None, "h"), 1);
        assert_eq!(row(&view, 3)["confirmed_by"], "file");
        assert_eq!(row(&view, 2)["result_state"], "in file");
        // A companion file that is not one: a warning, and the results all the same.
        std::fs::write(confirmations_file(&link.section.results_file), "{oops").unwrap();
        let view = TournamentLink::load(&link.section)
            .unwrap()
            .round_json(&HallState::new("tengen", None, "h"), 1);
        assert_eq!(row(&view, 3)["confirmed_by"], "file");
    }
}
