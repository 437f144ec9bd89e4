//! OpenGotha tournament files for the tengen board: who plays whom at which table in a
//! round, with which time system, and the results written back.
//!
//! Sans-IO apart from [`Tournament::read`] and [`write_atomically`]: everything else is a
//! function of the file's text.
//!
//! # Modules
//!
//! - `xml_reader`: the one pass over the XML (quick-xml's pull reader over the borrowed
//!   text) that builds a [`Tournament`] and notes the byte range of each game's `result`.
//! - `model`: [`Tournament`]'s data as the reader builds it (no behaviour), so the reader
//!   and the methods do not depend on each other.
//! - `tournament`: [`Tournament`]'s methods: reading a file, the general parameters,
//!   players, games, byes, and [`Tournament::round`], a round's [`Pairing`]s.
//! - `players`: [`Player`] and [`player_key`], OpenGotha's key of a player.
//! - `games`: [`Game`], [`GameResult`], [`Pairing`], [`round_and_table`] (a game id read).
//! - `time_system`: [`TimeSystem`] and its script form ([`TimeSystem::script`]).
//! - `board_pattern`: [`BoardPattern`], table number to board id.
//! - `write_back`: [`Tournament::with_results`] (a byte-exact edit of the `result`
//!   attributes), [`write_atomically`] and [`replace_atomically`].
//! - `exports`: [`aga_results`] and [`csv_results`].
//! - `error`: [`TournamentError`], one-line messages naming the element.
//!
//! # The OpenGotha format, as relied on here
//!
//! From the DTD OpenGotha ships (`tournament.dtd`), its sources
//! (`ExternalDocument.java`, `Player.java`, `Game.java`, `GeneralParameterSet.java`) and
//! real files:
//!
//! - The root is `<Tournament>`, holding `Players/Player`, `Games/Game`,
//!   `ByePlayers/ByePlayer` and `TournamentParameterSet/GeneralParameterSet` (read at
//!   those places only; `Teams`, the other parameter sets and unknown attributes are
//!   skipped). Files are UTF-8.
//! - A player is named in games by a key: `name` + `firstName`, spaces removed,
//!   upper-cased (`Nemo` `André` is `NEMOANDRÉ`, `高` `传德` is `高传德`). No two players
//!   share a key.
//! - `Game` has `roundNumber`, `tableNumber` (both from 1), `blackPlayer`, `whitePlayer`
//!   (required), `handicap` (default 0), `knownColor` (default `true`) and `result`
//!   (default `RESULT_UNKNOWN`; `RESULT_WHITEWINS`, `RESULT_BLACKWINS`, `RESULT_EQUAL`,
//!   `RESULT_BOTHWIN`, `RESULT_BOTHLOSE` and each with `_BYDEF`).
//! - `ByePlayer` has `roundNumber` and `player` (a key).
//! - `GeneralParameterSet` has `name`, `shortName`, `location`, `director`, `beginDate`,
//!   `endDate` (`yyyy-MM-dd`), `basicTime` (minutes), `complementaryTimeSystem`
//!   (`SUDDENDEATH`, `STDBYOYOMI`, `CANBYOYOMI`, `FISCHER`), `stdByoYomiTime` (seconds),
//!   `nbMovesCanTime`, `canByoYomiTime` (seconds), `fischerTime` (seconds), `komi`,
//!   `size`, `numberOfRounds`. An absent attribute takes the DTD's default, as a
//!   validating parser would supply it. Standard byo-yomi has no number of periods in
//!   OpenGotha: one period (see [`TimeSystem::StandardByoyomi`]).
//!
//! Stricter than OpenGotha, which skips what it cannot use: a game naming an unknown
//! player, a value that is not a number, an unknown result or time system, two games at
//! one table or a player twice in a round are errors naming the element. So is a control
//! character (`&#27;`, a C1 character) in a player's name, rank, club or country or in the
//! tournament's name, location or director: those are printed on the director's terminal
//! and the players' displays, where they would act as commands.

mod board_pattern;
mod error;
mod exports;
mod games;
mod model;
mod players;
mod time_system;
mod tournament;
mod write_back;
mod xml_reader;

pub use board_pattern::{BoardPattern, BoardPatternError};
pub use error::TournamentError;
pub use exports::{aga_results, csv_results};
pub use games::{round_and_table, Game, GameResult, Pairing};
pub use model::Tournament;
pub use players::{player_key, Player};
pub use time_system::TimeSystem;
pub use write_back::{replace_atomically, write_atomically, BACKUPS_KEPT};
