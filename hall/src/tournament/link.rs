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
//! - **A confirmation's life** (issue 31): each keeps the board's own result it took (`W+3.5`,
//!   `W+R`: the margin and the reason, as on the players' signed slip) and the `seq` of
//!   that `game_over`. [`TournamentLink::reconcile`] holds every confirmation against its
//!   board: a later `game_over` an arbiter caused (*Correct the result*: a reopen and a
//!   `set_result`) *rewrites* the confirmation, by that arbiter, in the results file and so
//!   in the round zip and the feed; a game reopened, played on to another result, or voided
//!   is *flagged* on its row (`confirmation`: `reopened`, `differs`, `void`) and its
//!   confirmation set aside ([`TournamentLink::confirmed_for`] gives none) until an arbiter
//!   confirms again.
//! - **Which round** ([`TournamentLink::round_to_open`]): the round in play, else the first
//!   round with a game that has no result yet; *Start round* on a round whose results are
//!   already in the file is refused ([`LinkError::HasResults`]) until asked again.
//! - **Void games**: a table whose board voided its game (`void_game`) reads `void`, and
//!   *Start round* sets it up again without forcing.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tengen_protocol::event::EndReason;
use tengen_protocol::topics::BoardKey;
use tengen_tournament::{
    replace_atomically, round_and_table, write_atomically, GameResult, Pairing, Tournament,
    TournamentError,
};
use thiserror::Error;

use crate::boards::board_view::Ending;
use crate::boards::hall_state::HallState;
use crate::config::TournamentSection;
use tengen_protocol::view::{SeatState, SeatsNow};

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
    /// *Start round* on a round whose results are already in the file (match morning:
    /// yesterday's round), not asked again.
    #[error("round {round}: {known} of its {games} games already have a result in the file")]
    HasResults {
        /// The round.
        round: u32,
        /// Its games with a result.
        known: usize,
        /// Its games.
        games: usize,
    },
}

impl LinkError {
    /// The error as a message id of the console's and its values, for the console to say
    /// in its reader's words (`None`: the English line is all there is).
    pub(crate) fn message(&self) -> Option<(&'static str, Value)> {
        match self {
            LinkError::NoSuchTable { round, table } => {
                Some(("no-such-table", json!({"round": round, "table": table})))
            }
            LinkError::NoResult { table } => Some(("no-result", json!({"table": table}))),
            LinkError::HasResults {
                round,
                known,
                games,
            } => Some((
                "has-results",
                json!({"round": round, "known": known, "games": games}),
            )),
            LinkError::File { .. } | LinkError::Read { .. } => None,
        }
    }
}

/// A result an arbiter confirmed.
#[derive(Debug, Clone, PartialEq)]
struct Confirmed {
    result: GameResult,
    /// The arbiter (`file` for one read back from the results file).
    by: String,
    /// The board's result when it was confirmed (`W+3.5`, `B+R`), if it had one.
    sgf: Option<String>,
    /// The `seq` of the board's `game_over` it took, if any.
    seq: Option<u64>,
    /// The board's result a correction replaced (`B+R`), for the row and the log.
    corrected_from: Option<String>,
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
    /// The board's result it took (`W+3.5`), when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sgf: Option<String>,
    /// The `seq` of that `game_over`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
    /// The result a correction replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    corrected_from: Option<String>,
}

/// Where a confirmation stands against its board's game ([`TournamentLink::reconcile`]).
#[derive(Debug, Clone, PartialEq)]
enum Standing {
    /// The board agrees, or no longer holds the game.
    Agrees,
    /// The game was reopened: it is being played again.
    Reopened,
    /// The board's result is another (`W+2.5`), not by an arbiter's correction.
    Differs(String),
    /// The game was voided.
    Void,
    /// An arbiter ended the game again after the confirmation: the confirmation is
    /// rewritten to this result.
    Corrected(Ending),
}

impl Standing {
    fn word(&self) -> &'static str {
        match self {
            Standing::Agrees | Standing::Corrected(_) => "ok",
            Standing::Reopened => "reopened",
            Standing::Differs(_) => "differs",
            Standing::Void => "void",
        }
    }
}

/// A confirmation a correction rewrote ([`TournamentLink::reconcile`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Correction {
    /// The round.
    pub(crate) round: u32,
    /// The table.
    pub(crate) table: u32,
    /// The board.
    pub(crate) key: Option<BoardKey>,
    /// The arbiter who corrected it.
    pub(crate) by: String,
    /// The result before (SGF form, or OpenGotha's when the board's was not known).
    pub(crate) from: String,
    /// The result now, SGF form.
    pub(crate) to: String,
    /// The OpenGotha result now.
    pub(crate) result: GameResult,
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
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Skipped {
    /// The table.
    pub(crate) table: u32,
    /// The board id the table maps to.
    pub(crate) board: String,
    /// Why, for the console (`offline`, `game in progress (r2-t4, move 87)`).
    pub(crate) why: Why,
}

/// Why something was left out: a message id of the console's (`console-why--{id}`) with
/// its values, and the same in English for the log and older consoles.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Why {
    /// The message id (`offline`, `game-in-progress`).
    pub(crate) id: &'static str,
    /// Its values.
    pub(crate) args: Value,
    /// In English.
    pub(crate) text: String,
}

impl Why {
    /// A reason `id` with `args`, `text` in English.
    pub(crate) fn new(id: &'static str, args: Value, text: String) -> Why {
        Why { id, args, text }
    }
}

/// How *Start round* goes ([`TournamentLink::start_round`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct StartOptions {
    /// Also boards with a game in progress, or set up for this game already.
    pub(crate) force: bool,
    /// Asked again: the round's results are in the file, and it is started all the same.
    pub(crate) despite_results: bool,
    /// How penalties are given in its games (else `[tournament] penalties`, else each
    /// board's own).
    pub(crate) penalties: Option<tengen_protocol::event::Penalties>,
}

/// What a table's board is doing, from its status and `state` snapshot.
#[derive(Debug, Clone, PartialEq)]
struct TableBoard {
    key: Option<BoardKey>,
    /// `no board`, `offline`, `idle`, `other game`, `set up`, `playing`, `counting`, `over`,
    /// `void` (this table's game, voided).
    state: &'static str,
    /// The board's current game id and move number, and its result in that game.
    game: String,
    number: u64,
    result: Option<String>,
    /// The game ended for a player not seated in time (reason `absent`, Art. 22): a
    /// forfeit is by default even after a first move, `Void` is both losing.
    absent: bool,
    /// The clocks stand still (paused, or waiting for play to begin).
    stopped: bool,
    /// How this table's game last ended, as the hall followed it.
    ending: Option<Ending>,
    /// Who is seated and who is late in this table's game (Art. 22), now; `None` for a
    /// game whose players do not check in.
    seats: Option<SeatsNow>,
}

/// Who is seated and who is late at `key`'s board in `game`, now: from the hall's own fold
/// of the board's events (the lateness of a player still away counted on to the later of
/// the hall's clock and the board's last event); `None` without that fold or check-in.
fn seats_now(hall: &HallState, key: &BoardKey, game: &str) -> Option<SeatsNow> {
    let live = hall.board_view(key)?.live_view();
    if live.game_id() != game {
        return None;
    }
    let now = tengen_protocol::Timestamp::now().max(live.last_time()?);
    live.arrivals().map(|a| SeatsNow::read(a, now))
}

/// The tournament file and the results confirmed so far.
pub(crate) struct TournamentLink {
    section: TournamentSection,
    /// The file's text as read at start: results are written into a copy of it.
    original: String,
    tournament: Tournament,
    confirmed: BTreeMap<(u32, u32), Confirmed>,
    /// The confirmations set aside by the last [`TournamentLink::reconcile`], and why.
    set_aside: BTreeMap<(u32, u32), Standing>,
    /// `[hall] late_reminder_s` in ms: how long before a board's late limit the Round view
    /// lists the tables still waiting for a player (0: never).
    late_reminder_ms: u64,
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
            set_aside: BTreeMap::new(),
            late_reminder_ms: crate::config::LATE_REMINDER_S * 1_000,
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
                let (sgf, seq, corrected_from) = recorded
                    .map(|c| (c.sgf.clone(), c.seq, c.corrected_from.clone()))
                    .unwrap_or_default();
                link.confirmed.insert(
                    (g.round, g.table),
                    Confirmed {
                        result: g.result,
                        by,
                        sgf,
                        seq,
                        corrected_from,
                    },
                );
            }
        }
        Ok(link)
    }

    /// The same link reminding the arbiters `seconds` before a board's late limit (`[hall]
    /// late_reminder_s`; 0: never).
    pub(crate) fn with_late_reminder(mut self, seconds: u64) -> TournamentLink {
        self.late_reminder_ms = seconds.saturating_mul(1_000);
        self
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
            .find(|b| b.state.as_ref().is_some_and(|s| s.game_id == game))
            .or(found.first());
        let Some(named) = chosen else {
            return TableBoard {
                key: None,
                state: "no board",
                game: String::new(),
                number: 0,
                result: None,
                absent: false,
                stopped: false,
                ending: None,
                seats: None,
            };
        };
        let state = &named.state;
        let board_game = state
            .as_ref()
            .map_or("", |s| s.game_id.as_str())
            .to_string();
        let number = state.as_ref().map_or(0, |s| u64::from(s.number));
        let phase = state.as_ref().map_or("", |s| s.phase.as_str());
        let voided = state.as_ref().is_some_and(|s| s.voided);
        let result = state
            .as_ref()
            .and_then(|s| s.result.as_deref())
            .filter(|r| !r.is_empty())
            .map(str::to_string);
        let absent = state
            .as_ref()
            .is_some_and(|s| s.end_reason == Some(EndReason::Absent));
        let this_game = board_game == game;
        let stopped = state
            .as_ref()
            .and_then(|s| s.clocks.as_ref())
            .is_some_and(|c| c.paused);
        let what = if named.status == Some("offline") {
            "offline"
        } else if this_game {
            match phase {
                _ if voided => "void",
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
            key: Some(named.key.clone()),
            state: what,
            game: board_game,
            number,
            result: if this_game { result } else { None },
            absent: this_game && absent,
            stopped,
            ending: named.ending.clone().filter(|e| e.game == game),
            seats: if this_game {
                seats_now(hall, named.key, game).or_else(|| state.as_ref()?.seats.clone())
            } else {
                None
            },
        }
    }

    /// The board's result for a table's game, as OpenGotha would have it: a forfeit after
    /// moves were played (two warnings) is a plain win, not one by default.
    fn pending(&self, board: &TableBoard) -> Option<GameResult> {
        if board.state != "over" {
            return None;
        }
        let re = board.result.as_deref()?;
        GameResult::from_ending(re, board.number > 0, board.absent)
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

    /// The table whose board `key` is, by the `[tournament] boards` pattern (and id).
    pub(crate) fn table_of(&self, key: &BoardKey) -> Option<u32> {
        let tournament = self.section.id.as_deref();
        if tournament.is_some_and(|id| id != key.tournament) {
            return None;
        }
        self.section.boards.table_of(&key.board)
    }

    /// The round board `key`'s game `game` is of, from the pairings (issue 34: never from
    /// the board's own labels alone): the round of its id (`r{R}-t{T}`, T its board's table),
    /// else `label`, when the file pairs that round at its board's table; `None` when the
    /// file has no such pairing.
    pub(crate) fn round_of(&self, key: &BoardKey, game: &str, label: &str) -> Option<u32> {
        let table = self.table_of(key)?;
        let by_id = round_and_table(game)
            .filter(|&(_, t)| t == table)
            .map(|(r, _)| r);
        let paired = |r: u32| {
            self.tournament
                .games()
                .any(|g| g.round == r && g.table == table)
        };
        by_id
            .into_iter()
            .chain(label.parse::<u32>().ok())
            .find(|&r| paired(r))
    }

    /// The result an arbiter confirmed for game `game` of board `key`, when that is a game
    /// of the file on its table's board.
    pub(crate) fn confirmed_for(&self, key: &BoardKey, game: &str) -> Option<GameResult> {
        let (round, table) = round_and_table(game)?;
        if !self.is_tables_board(key, round, table) {
            return None;
        }
        if self.set_aside.contains_key(&(round, table)) {
            return None;
        }
        self.confirmed.get(&(round, table)).map(|c| c.result)
    }

    /// The console history's note of the confirmation of `(round, table)`: its board (when
    /// heard of) and `{"type":"confirm_result","round","table","result","sgf"}`.
    pub(crate) fn confirmation_note(
        &self,
        hall: &HallState,
        round: u32,
        table: u32,
    ) -> (Option<BoardKey>, Value) {
        let c = self.confirmed.get(&(round, table));
        let game = format!("r{round}-t{table}");
        let key = self
            .tournament
            .round(round)
            .into_iter()
            .find(|p| p.table == table)
            .and_then(|p| self.table_board(hall, table, &p.game).key);
        let note = json!({
            "type": "confirm_result",
            "round": round,
            "table": table,
            "game": game,
            "result": c.map(|c| c.result.as_opengotha()),
            "sgf": c.and_then(|c| c.sgf.clone()),
        });
        (key, note)
    }

    /// Where the confirmation of `(round, table)` stands against its board.
    fn standing(&self, hall: &HallState, round: u32, table: u32, game: &str) -> Standing {
        let Some(c) = self.confirmed.get(&(round, table)) else {
            return Standing::Agrees;
        };
        let board = self.table_board(hall, table, game);
        match board.state {
            "void" => return Standing::Void,
            "playing" | "counting" | "set up" => return Standing::Reopened,
            "over" => {}
            _ => return Standing::Agrees,
        }
        let Some(now) = board.result.clone() else {
            return Standing::Agrees;
        };
        let agrees = match &c.sgf {
            Some(was) => *was == now,
            None => GameResult::from_ending(&now, board.number > 0, board.absent) == Some(c.result),
        };
        if agrees {
            return Standing::Agrees;
        }
        match board.ending {
            // An arbiter ended it again after the confirmation (or, for a confirmation
            // that took no board result, the arbiter's is the latest word).
            Some(e) if e.by.is_some() && c.seq.is_none_or(|seq| e.seq > seq) => {
                Standing::Corrected(e)
            }
            _ => Standing::Differs(now),
        }
    }

    /// Holds every confirmation against its board ([`TournamentLink`]'s module
    /// documentation): rewrites those a correction changed (and the results file), sets
    /// aside those whose game was reopened, played to another result or voided. Returns the
    /// corrections made.
    pub(crate) fn reconcile(&mut self, hall: &HallState) -> Result<Vec<Correction>, LinkError> {
        let mut corrections = Vec::new();
        let mut next = self.confirmed.clone();
        let mut set_aside = BTreeMap::new();
        for (&(round, table), c) in &self.confirmed {
            let Some(p) = self
                .tournament
                .round(round)
                .into_iter()
                .find(|p| p.table == table)
            else {
                continue;
            };
            match self.standing(hall, round, table, &p.game) {
                Standing::Agrees => {}
                Standing::Corrected(e) => {
                    let board = self.table_board(hall, table, &p.game);
                    let Some(result) =
                        GameResult::from_ending(&e.result, board.number > 0, board.absent)
                    else {
                        set_aside.insert((round, table), Standing::Differs(e.result.clone()));
                        continue;
                    };
                    let from = c
                        .sgf
                        .clone()
                        .unwrap_or_else(|| c.result.as_opengotha().to_string());
                    let by = e.by.clone().unwrap_or_default();
                    next.insert(
                        (round, table),
                        Confirmed {
                            result,
                            by: by.clone(),
                            sgf: Some(e.result.clone()),
                            seq: Some(e.seq),
                            corrected_from: Some(from.clone()),
                        },
                    );
                    corrections.push(Correction {
                        round,
                        table,
                        key: board.key,
                        by,
                        from,
                        to: e.result.clone(),
                        result,
                    });
                }
                other => {
                    set_aside.insert((round, table), other);
                }
            }
        }
        if !corrections.is_empty() {
            self.write(&next)?;
            self.confirmed = next;
        }
        self.set_aside = set_aside;
        Ok(corrections)
    }

    /// The round the console opens on: the round in play, else the first round with a
    /// game that has no result yet (confirmed, pending or in the file), else the last.
    pub(crate) fn round_to_open(&self, hall: &HallState) -> Option<u32> {
        let rounds = self.tournament.rounds();
        let in_play = self.round_in_play(hall);
        // A round with a game on a board not over is the one in play; one whose games are
        // all over with their results known gives way to the next that lacks any.
        let unfinished = |round: u32| {
            self.tournament.round(round).iter().any(|p| {
                !self.confirmed.contains_key(&(round, p.table))
                    && p.result == GameResult::Unknown
                    && self
                        .pending(&self.table_board(hall, p.table, &p.game))
                        .is_none()
            })
        };
        if let Some(r) = in_play {
            let playing = hall
                .current_games(false)
                .iter()
                .any(|g| !g.over && round_and_table(&g.game).is_some_and(|(gr, _)| gr == r));
            if playing || unfinished(r) {
                return Some(r);
            }
        }
        rounds
            .iter()
            .copied()
            .find(|&r| unfinished(r))
            .or(rounds.last().copied())
    }

    /// The games of `round` whose result is already known (confirmed or in the file), and
    /// all its games.
    fn results_known(&self, round: u32) -> (usize, usize) {
        let games = self.tournament.round(round);
        let known = games
            .iter()
            .filter(|p| {
                self.confirmed.contains_key(&(round, p.table)) || p.result != GameResult::Unknown
            })
            .count();
        (known, games.len())
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
                let standing = match self.set_aside.get(&(round, p.table)) {
                    Some(s) => s.clone(),
                    None => self.standing(hall, round, p.table, &p.game),
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
                    "confirmed_sgf": confirmed.and_then(|c| c.sgf.clone()),
                    "corrected_from": confirmed.and_then(|c| c.corrected_from.clone()),
                    "confirmation": confirmed.map(|_| standing.word()),
                    "seats": board.seats,
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
            "round_to_open": self.round_to_open(hall),
            "penalties": self.section.penalties.map(|p| p.as_str()),
            "time": t.time_system().script(),
            "results_file": self.section.results_file.display().to_string(),
            "late_reminder": self.late_reminder(&tables),
            "tables": tables,
            "byes": byes,
        })
    }

    /// `[hall] late_reminder_s` before a board's late limit (Art. 22), with players still
    /// missing: every table of the round whose players are not all there (each with who is
    /// missing and how late), for the console to remind the arbiters once; `null` before
    /// any table is that near its limit, and with the reminder off.
    fn late_reminder(&self, tables: &[Value]) -> Value {
        if self.late_reminder_ms == 0 {
            return Value::Null;
        }
        let mut due = false;
        let mut began: Option<u64> = None;
        let waiting: Vec<Value> = tables
            .iter()
            .filter_map(|t| {
                let seats: SeatsNow = serde_json::from_value(t["seats"].clone()).ok()?;
                // The round's start: the first table's, the same for the whole reminder.
                let b = seats.began.map(|b| b.millis());
                began = match (began, b) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                let limit = u64::from(seats.late_limit_s) * 1_000;
                let missing: Vec<Value> = [("B", seats.seats.black), ("W", seats.seats.white)]
                    .into_iter()
                    .filter(|(_, s)| s.state == SeatState::Absent && !s.defaulted)
                    .map(|(side, s)| {
                        let late = s.late_ms.unwrap_or(0);
                        due |= late.saturating_add(self.late_reminder_ms) >= limit;
                        json!({"color": side, "late_ms": late, "limit_ms": limit})
                    })
                    .collect();
                if missing.is_empty() {
                    return None;
                }
                Some(json!({
                    "table": t["table"],
                    "board": t["board"],
                    "missing": missing,
                }))
            })
            .collect();
        if !due {
            return Value::Null;
        }
        json!({
            "reminder_s": self.late_reminder_ms / 1_000,
            "began": began.map(tengen_protocol::Timestamp::from_millis),
            "tables": waiting,
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
        start: &StartOptions,
    ) -> Result<Plan, LinkError> {
        let force = start.force;
        if tables.is_none() && !start.despite_results {
            let (known, games) = self.results_known(round);
            if known > 0 {
                return Err(LinkError::HasResults {
                    round,
                    known,
                    games,
                });
            }
        }
        let pairings = self.pairings(round, tables)?;
        let mut plan = Plan::default();
        for p in &pairings {
            let board = self.table_board(hall, p.table, &p.game);
            let skip = |why: Why| Skipped {
                table: p.table,
                board: self.section.boards.board(p.table),
                why,
            };
            if board.key.is_none() {
                plan.paper.push(p.table);
                continue;
            }
            let why = match board.state {
                "offline" => Some(Why::new("offline", json!({}), "offline".to_string())),
                "other game" if !force => Some(Why::new(
                    "game-in-progress",
                    json!({"game": board.game, "move": board.number}),
                    format!("game in progress ({}, move {})", board.game, board.number),
                )),
                "set up" | "playing" | "counting" | "over" if !force => Some(Why::new(
                    "already-this-game",
                    json!({"state": board.state}),
                    format!("already has this game ({})", board.state),
                )),
                _ => None,
            };
            match (why, board.key) {
                (None, Some(key)) => {
                    let mut body = self.new_game(p);
                    if let Some(penalties) = start.penalties.or(self.section.penalties) {
                        body.insert("penalties".into(), json!(penalties.as_str()));
                    }
                    plan.send.push(Planned {
                        table: p.table,
                        key,
                        body,
                    });
                }
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
                    why: Why::new(
                        "not-set-up",
                        json!({"state": state, "game": p.game}),
                        format!("{state}, not set up with {}", p.game),
                    ),
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
        let mut chosen: Vec<(u32, GameResult, TableBoard)> = Vec::new();
        for &(table, result) in given {
            let p = pairings
                .iter()
                .find(|p| p.table == table)
                .ok_or(LinkError::NoSuchTable { round, table })?;
            let board = self.table_board(hall, table, &p.game);
            let result = match result {
                Some(r) => r,
                None => self.pending(&board).ok_or(LinkError::NoResult { table })?,
            };
            chosen.push((table, result, board));
        }
        if all_pending {
            for p in &pairings {
                if (self.confirmed.contains_key(&(round, p.table))
                    && !self.set_aside.contains_key(&(round, p.table)))
                    || chosen.iter().any(|(t, _, _)| *t == p.table)
                {
                    continue;
                }
                let board = self.table_board(hall, p.table, &p.game);
                if let Some(r) = self.pending(&board) {
                    chosen.push((p.table, r, board));
                }
            }
        }
        drop(pairings);
        if chosen.is_empty() {
            return Ok((Vec::new(), None));
        }
        let mut next = self.confirmed.clone();
        for (table, result, board) in &chosen {
            let over = board.state == "over";
            next.insert(
                (round, *table),
                Confirmed {
                    result: *result,
                    by: by.to_string(),
                    sgf: board.result.clone().filter(|_| over),
                    seq: board.ending.as_ref().map(|e| e.seq).filter(|_| over),
                    corrected_from: None,
                },
            );
        }
        let backup = self.write(&next)?;
        self.confirmed = next;
        for (table, _, _) in &chosen {
            self.set_aside.remove(&(round, *table));
        }
        Ok((chosen.into_iter().map(|(t, _, _)| t).collect(), backup))
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
                sgf: c.sgf.clone(),
                seq: c.seq,
                corrected_from: c.corrected_from.clone(),
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
    use tengen_protocol::Event;
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
            penalties: None,
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

    /// *Start round* forced or not, asked again if the round has results in the file.
    fn opts(force: bool) -> StartOptions {
        StartOptions {
            force,
            despite_results: true,
            penalties: None,
        }
    }

    fn tables(v: &[Planned]) -> Vec<u32> {
        v.iter().map(|p| p.table).collect()
    }

    #[test]
    fn a_boards_round_and_table_come_from_its_tables_pairing() {
        let dir = tempfile::tempdir().unwrap();
        let l = link(dir.path());
        let k = |t: &str, b: &str| BoardKey::new(t, b).unwrap();
        assert_eq!(l.table_of(&k("cup", "hall1-03")), Some(3));
        assert_eq!(l.table_of(&k("other", "hall1-03")), None);
        assert_eq!(l.table_of(&k("cup", "viewer")), None);
        // Its id's round at its own table, else its label, when the file pairs it.
        assert_eq!(l.round_of(&k("cup", "hall1-03"), "r1-t3", "9"), Some(1));
        assert_eq!(l.round_of(&k("cup", "hall1-03"), "r1-t5", "1"), Some(1));
        assert_eq!(l.round_of(&k("cup", "hall1-03"), "mine", "1"), Some(1));
        // Round 2 is not paired in this file; table 13 does not exist.
        assert_eq!(l.round_of(&k("cup", "hall1-03"), "r2-t3", "2"), None);
        assert_eq!(l.round_of(&k("cup", "hall1-13"), "r1-t13", "1"), None);
    }

    #[test]
    fn a_round_starts_on_the_free_boards_and_lists_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let link = link(dir.path());
        let mut h = HallState::new("tengen", None);
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
        let plan = link.start_round(&h, 1, None, &opts(false)).unwrap();
        let sent = &plan.send;
        assert_eq!(tables(sent), [1, 4]);
        let why: Vec<(u32, &str)> = plan
            .skipped
            .iter()
            .map(|s| (s.table, s.why.text.as_str()))
            .collect();
        assert_eq!(
            why,
            [(2, "offline"), (3, "game in progress (friendly, move 87)")]
        );
        // Tables 5-12 have no board: played on paper, said once, not an error each.
        assert_eq!(plan.paper, (5..=12).collect::<Vec<u32>>());
        // What table 1's board is told: the wire contract's new_game, from the file.
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
        let plan = link.start_round(&h, 1, None, &opts(true)).unwrap();
        assert_eq!(tables(&plan.send), [1, 3, 4]);
        let plan = link.start_round(&h, 1, Some(&[4]), &opts(false)).unwrap();
        assert_eq!(
            (tables(&plan.send), plan.skipped.len(), plan.paper.len()),
            (vec![4], 0, 0)
        );
        assert!(matches!(
            link.start_round(&h, 1, Some(&[40]), &opts(false)),
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
        let plan = link.start_round(&h, 1, Some(&[1]), &opts(false)).unwrap();
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
        let mut h = HallState::new("tengen", None);
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
        // Table 3: White not seated at the limit after Black's first move (Art. 22.1);
        // table 4: neither seated (Art. 22.3).
        board(
            &mut h,
            3,
            "online",
            json!({"game_id": "r1-t3", "phase": "over", "number": 1, "result": "B+F", "end_reason": "absent"}),
        );
        board(
            &mut h,
            4,
            "online",
            json!({"game_id": "r1-t4", "phase": "over", "number": 0, "result": "Void", "end_reason": "absent"}),
        );
        let view = link.round_json(&h, 1);
        assert_eq!(view["tables"][0]["result"], "RESULT_WHITEWINS");
        assert_eq!(view["tables"][1]["result"], "RESULT_WHITEWINS_BYDEF");
        assert_eq!(view["tables"][2]["result"], "RESULT_BLACKWINS_BYDEF");
        assert_eq!(view["tables"][3]["result"], "RESULT_BOTHLOSE");
    }

    #[test]
    fn the_round_in_play_is_the_one_on_the_boards() {
        let dir = tempfile::tempdir().unwrap();
        let link = link_of(dir.path(), "juvisy.xml");
        let mut h = HallState::new("tengen", None);
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
        let mut h = HallState::new("tengen", None);
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
        let view = again.round_json(&HallState::new("tengen", None), 1);
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
            .round_json(&HallState::new("tengen", None), 1);
        assert_eq!(row(&view, 3)["confirmed_by"], "file");
        assert_eq!(row(&view, 2)["result_state"], "in file");
        // A companion file that is not one: a warning, and the results all the same.
        std::fs::write(confirmations_file(&link.section.results_file), "{oops").unwrap();
        let view = TournamentLink::load(&link.section)
            .unwrap()
            .round_json(&HallState::new("tengen", None), 1);
        assert_eq!(row(&view, 3)["confirmed_by"], "file");
    }

    /// Board `hall1-{table:02}` of `cup` plays game `game` from its start and ends it with
    /// `result`, by `by` when an arbiter's command ended it; its events from `seq` on.
    fn played(h: &mut HallState, table: u32, game: &str, seq: u64, end: &[(&str, Option<&str>)]) {
        use tengen_protocol::event::{EndReason, GameEnd, ReopenedPhase};
        let now = Instant::now();
        let topic = format!("tengen/cup/hall1-{table:02}/events");
        let mut events = Vec::new();
        if seq == 1 {
            events.push((crate::test_support::game_started(19, 0, "none"), None));
            events.push((crate::test_support::mv(1, "D4"), None));
        }
        let mut first = true;
        for (result, by) in end {
            if !first || seq > 1 {
                events.push((
                    Event::GameReopened {
                        previous_result: "?".into(),
                        reason: None,
                        phase: ReopenedPhase::Playing,
                    },
                    *by,
                ));
            }
            first = false;
            let reason = if by.is_some() {
                EndReason::Arbiter
            } else {
                EndReason::Count
            };
            events.push((Event::GameOver(GameEnd::uncounted(*result, reason)), *by));
        }
        for (n, (event, by)) in (seq..).zip(events) {
            let e = tengen_protocol::Envelope {
                seq: n,
                time: crate::test_support::T0,
                board: format!("hall1-{table:02}"),
                game: game.into(),
                by: by.map(str::to_string),
                event,
            };
            h.on_message(&topic, e.to_json().as_bytes(), now);
        }
    }

    #[test]
    fn match_morning_opens_on_the_first_round_without_results_and_asks_before_a_finished_one() {
        let dir = tempfile::tempdir().unwrap();
        let link = link_of(dir.path(), "cdfo2020.xml");
        let h = HallState::new("tengen", None);
        // Rounds 1 to 6 have their results in the file; round 7 has none.
        assert_eq!(link.round_to_open(&h), Some(7));
        assert_eq!(link.round_json(&h, 1)["round_to_open"], 7);
        let asked = StartOptions::default();
        match link.start_round(&h, 1, None, &asked) {
            Err(e @ LinkError::HasResults { .. }) => {
                assert_eq!(
                    e.to_string(),
                    "round 1: 11 of its 11 games already have a result in the file"
                );
                assert_eq!(e.message().unwrap().0, "has-results");
            }
            other => panic!("{:?}", other.map(|p| p.paper)),
        }
        // Asked again, it goes; round 7 goes at once; one table of a round goes at once.
        let again = StartOptions {
            despite_results: true,
            ..StartOptions::default()
        };
        assert!(link.start_round(&h, 1, None, &again).is_ok());
        assert!(link.start_round(&h, 7, None, &asked).is_ok());
        assert!(link.start_round(&h, 1, Some(&[3]), &asked).is_ok());
    }

    #[test]
    fn a_round_sent_with_its_penalties_and_a_void_game_set_up_again_without_forcing() {
        let dir = tempfile::tempdir().unwrap();
        let link = link(dir.path());
        let mut h = HallState::new("tengen", None);
        board(
            &mut h,
            1,
            "online",
            json!({"game_id": "r1-t1", "phase": "over", "number": 12, "voided": true}),
        );
        let view = link.round_json(&h, 1);
        assert_eq!(view["tables"][0]["state"], "void");
        let start = StartOptions {
            despite_results: true,
            penalties: Some(tengen_protocol::event::Penalties::Auto),
            ..StartOptions::default()
        };
        let plan = link.start_round(&h, 1, Some(&[1]), &start).unwrap();
        assert_eq!(tables(&plan.send), [1], "a void table is free");
        assert_eq!(plan.send[0].body["penalties"], "auto");
        let plan = link
            .start_round(&h, 1, Some(&[1]), &StartOptions::default())
            .unwrap();
        assert!(
            !plan.send[0].body.contains_key("penalties"),
            "none chosen: each board's own"
        );
    }

    #[test]
    fn a_correction_rewrites_the_confirmation_and_a_board_that_differs_is_flagged() {
        let dir = tempfile::tempdir().unwrap();
        let mut link = link(dir.path());
        let mut h = HallState::new("tengen", None);
        played(&mut h, 1, "r1-t1", 1, &[("B+R", None)]);
        played(&mut h, 2, "r1-t2", 1, &[("W+3.5", None)]);
        link.confirm(&h, 1, &[(1, None), (2, None)], false, "chief")
            .unwrap();
        let row = |link: &TournamentLink, h: &HallState, t: usize| {
            link.round_json(h, 1)["tables"][t - 1].clone()
        };
        let r = row(&link, &h, 2);
        assert_eq!(
            (&r["confirmed_sgf"], &r["confirmation"], &r["result"]),
            (&json!("W+3.5"), &json!("ok"), &json!("RESULT_WHITEWINS")),
            "the margin, as on the signed slip"
        );
        assert_eq!(link.reconcile(&h).unwrap(), []);

        // Table 1: *Correct the result*, by the deputy: reopened and ended W+R.
        played(&mut h, 1, "r1-t1", 4, &[("W+R", Some("deputy"))]);
        // Table 2: reopened, played on and counted again by the board: B+0.5.
        played(&mut h, 2, "r1-t2", 4, &[("B+0.5", None)]);
        let done = link.reconcile(&h).unwrap();
        assert_eq!(done.len(), 1);
        assert_eq!(
            (
                done[0].table,
                done[0].by.as_str(),
                done[0].from.as_str(),
                done[0].to.as_str()
            ),
            (1, "deputy", "B+R", "W+R")
        );
        let written = Tournament::read(dir.path().join("t-results.xml")).unwrap();
        let result = |t: u32| {
            written
                .round(1)
                .iter()
                .find(|p| p.table == t)
                .unwrap()
                .result
        };
        assert_eq!(
            result(1),
            GameResult::WhiteWins,
            "the results file is rewritten"
        );
        let r = row(&link, &h, 1);
        assert_eq!(
            (&r["confirmed_by"], &r["corrected_from"], &r["confirmation"]),
            (&json!("deputy"), &json!("B+R"), &json!("ok"))
        );
        let key = |b: &str| BoardKey::new("cup", b).unwrap();
        assert_eq!(
            link.confirmed_for(&key("hall1-01"), "r1-t1"),
            Some(GameResult::WhiteWins),
            "the zip and the feed carry the correction"
        );
        // Table 2 differs: flagged, set aside until confirmed again.
        let r = row(&link, &h, 2);
        assert_eq!(
            (&r["confirmation"], &r["board_result"]),
            (&json!("differs"), &json!("B+0.5"))
        );
        assert_eq!(link.confirmed_for(&key("hall1-02"), "r1-t2"), None);
        assert_eq!(
            result(2),
            GameResult::WhiteWins,
            "the file keeps it until then"
        );
        let (done, _) = link.confirm(&h, 1, &[], true, "chief").unwrap();
        assert_eq!(done, [2], "confirm all takes the flagged table again");
        link.reconcile(&h).unwrap();
        assert_eq!(row(&link, &h, 2)["confirmation"], "ok");
        assert_eq!(
            link.confirmed_for(&key("hall1-02"), "r1-t2"),
            Some(GameResult::BlackWins)
        );
        // A hall started again reads the margins and the correction back.
        let again = TournamentLink::load(&link.section).unwrap();
        let r = row(&again, &h, 1);
        assert_eq!(
            (&r["confirmed_sgf"], &r["corrected_from"]),
            (&json!("W+R"), &json!("B+R"))
        );
    }

    #[test]
    fn a_reopened_or_voided_confirmed_game_is_flagged_and_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let mut link = link(dir.path());
        let mut h = HallState::new("tengen", None);
        played(&mut h, 1, "r1-t1", 1, &[("B+R", None)]);
        link.confirm(&h, 1, &[(1, None)], false, "chief").unwrap();
        let now = Instant::now();
        let reopened = tengen_protocol::Envelope {
            seq: 4,
            time: crate::test_support::T0,
            board: "hall1-01".into(),
            game: "r1-t1".into(),
            by: Some("chief".into()),
            event: Event::GameReopened {
                previous_result: "B+R".into(),
                reason: None,
                phase: tengen_protocol::event::ReopenedPhase::Playing,
            },
        };
        h.on_message(
            "tengen/cup/hall1-01/events",
            reopened.to_json().as_bytes(),
            now,
        );
        link.reconcile(&h).unwrap();
        assert_eq!(
            link.round_json(&h, 1)["tables"][0]["confirmation"],
            "reopened"
        );
        let key = BoardKey::new("cup", "hall1-01").unwrap();
        assert_eq!(link.confirmed_for(&key, "r1-t1"), None);
        let voided = tengen_protocol::Envelope {
            seq: 5,
            event: Event::GameVoided { reason: None },
            ..reopened
        };
        h.on_message(
            "tengen/cup/hall1-01/events",
            voided.to_json().as_bytes(),
            now,
        );
        link.reconcile(&h).unwrap();
        assert_eq!(link.round_json(&h, 1)["tables"][0]["confirmation"], "void");
        assert_eq!(link.round_json(&h, 1)["tables"][0]["state"], "void");
    }

    /// The Round view shows each table's seats (Art. 22) from the board's state: both
    /// seated, who is missing and for how long, a late arrival and what it cost; `[hall]
    /// late_reminder_s` before a late limit, the tables still waiting for a player.
    #[test]
    fn the_round_view_shows_the_seats_and_reminds_of_the_tables_still_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let link = link(dir.path());
        let mut h = HallState::new("tengen", None);
        let seats = |w: Value| {
            json!({"late_limit_s": 3600, "late_rule": "double", "began": "2026-12-05T09:00:00.000Z",
                   "B": {"state": "seated", "at": "2026-12-05T08:50:00.000Z"}, "W": w})
        };
        // Table 1: White away 50 minutes, ten before the limit.
        board(
            &mut h,
            1,
            "online",
            json!({"game_id": "r1-t1", "phase": "playing", "number": 1,
                   "seats": seats(json!({"state": "absent", "late_ms": 3_000_000}))}),
        );
        // Table 2: both seated before play began.
        board(
            &mut h,
            2,
            "online",
            json!({"game_id": "r1-t2", "phase": "playing", "number": 3,
                   "seats": seats(json!({"state": "seated", "at": "2026-12-05T08:55:00.000Z"}))}),
        );
        // Table 3: White came 7:12 late, 14:24 taken.
        board(
            &mut h,
            3,
            "online",
            json!({"game_id": "r1-t3", "phase": "playing", "number": 9,
                   "seats": seats(json!({"state": "arrived", "at": "2026-12-05T09:07:12.000Z",
                     "late_ms": 432_000, "deducted_ms": 432_000, "taken_ms": 864_000}))}),
        );
        let view = link.round_json(&h, 1);
        let row = |t: u32| {
            view["tables"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["table"] == t)
                .unwrap()
                .clone()
        };
        assert_eq!(row(1)["seats"]["W"]["state"], "absent");
        assert_eq!(row(1)["seats"]["W"]["late_ms"], 3_000_000);
        assert_eq!(row(1)["seats"]["B"]["state"], "seated");
        assert_eq!(row(2)["seats"]["W"]["state"], "seated");
        assert_eq!(row(3)["seats"]["W"]["taken_ms"], 864_000);
        // A table with no board has no seats.
        assert_eq!(row(4)["seats"], Value::Null);
        // Ten minutes before table 1's limit (the default 600 s): table 1, White missing.
        let reminder = &view["late_reminder"];
        assert_eq!(reminder["reminder_s"], 600);
        assert_eq!(reminder["began"], "2026-12-05T09:00:00.000Z");
        let waiting = reminder["tables"].as_array().unwrap();
        assert_eq!(waiting.len(), 1, "{reminder}");
        assert_eq!(waiting[0]["table"], 1);
        assert_eq!(
            waiting[0]["missing"],
            json!([{"color": "W", "late_ms": 3_000_000, "limit_ms": 3_600_000}])
        );
        // Not yet within a reminder of five minutes; none at all with the reminder off.
        let link = link.with_late_reminder(300);
        assert_eq!(link.round_json(&h, 1)["late_reminder"], Value::Null);
        let link = link.with_late_reminder(0);
        assert_eq!(link.round_json(&h, 1)["late_reminder"], Value::Null);
        // Once the board raised `absent` (at the limit) the alert is the arbiter's cue,
        // not the reminder.
        board(
            &mut h,
            1,
            "online",
            json!({"game_id": "r1-t1", "phase": "playing", "number": 1,
                   "seats": seats(json!({"state": "absent", "late_ms": 3_600_000, "defaulted": true}))}),
        );
        let link = link.with_late_reminder(600);
        assert_eq!(link.round_json(&h, 1)["late_reminder"], Value::Null);
    }
}
