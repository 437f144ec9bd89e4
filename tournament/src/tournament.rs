//! The tournament as read (its data in `model`): the file read, its parameters, players,
//! games, byes and a round's pairings.

use std::path::Path;

use crate::error::{line_of, TournamentError};
use crate::games::{game_id, Game, Pairing};
use crate::model::{GameRecord, Tournament};
use crate::players::Player;
use crate::time_system::TimeSystem;

impl Tournament {
    /// Reads a tournament from the text of an OpenGotha file.
    pub fn parse(text: &str) -> Result<Tournament, TournamentError> {
        crate::xml_reader::parse(text)
    }

    /// Reads a tournament file (UTF-8, as OpenGotha writes it).
    pub fn read(path: impl AsRef<Path>) -> Result<Tournament, TournamentError> {
        let text = read_text(path.as_ref())?;
        Tournament::parse(&text)
    }

    /// `GeneralParameterSet`'s `name`, e.g. `Tournoi de Juvisy`.
    pub fn name(&self) -> &str {
        &self.general.name
    }

    /// `shortName`.
    pub fn short_name(&self) -> &str {
        &self.general.short_name
    }

    /// `location`.
    pub fn location(&self) -> &str {
        &self.general.location
    }

    /// `director`.
    pub fn director(&self) -> &str {
        &self.general.director
    }

    /// `beginDate` as written (`yyyy-MM-dd`).
    pub fn begin_date(&self) -> &str {
        &self.general.begin_date
    }

    /// `endDate` as written (`yyyy-MM-dd`).
    pub fn end_date(&self) -> &str {
        &self.general.end_date
    }

    /// The time system.
    pub fn time_system(&self) -> TimeSystem {
        self.general.time
    }

    /// `komi`, in points: the komi of an even game.
    pub fn komi(&self) -> f64 {
        self.general.komi
    }

    /// The komi of a game with `handicap` as OpenGotha gives it, under the Chinese rules the
    /// board plays (docs/rules.md, "Handicap"): an even game has the file's `komi`; a handicap game
    /// has none (Black gives back half the handicap stones at the count instead), and
    /// handicap 1, "taking Black" (rang xian), has no komi and no stones. OpenGotha keeps a
    /// single komi for the tournament, so this is the board's rule, not the file's.
    pub fn komi_for(&self, handicap: u32) -> f64 {
        if handicap == 0 {
            self.general.komi
        } else {
            0.0
        }
    }

    /// `size`, the board's side.
    pub fn size(&self) -> u32 {
        self.general.size
    }

    /// `numberOfRounds`.
    pub fn number_of_rounds(&self) -> u32 {
        self.general.number_of_rounds
    }

    /// The players in file order.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The player with this OpenGotha key (see [`crate::player_key`]).
    pub fn player(&self, key: &str) -> Option<&Player> {
        self.index.get(key).map(|&i| &self.players[i])
    }

    /// Every game, in file order.
    pub fn games(&self) -> impl Iterator<Item = &Game> + '_ {
        self.games.iter().map(|g| &g.game)
    }

    /// The rounds that have at least one game, in increasing order.
    pub fn rounds(&self) -> Vec<u32> {
        let mut rounds: Vec<u32> = self.games.iter().map(|g| g.game.round).collect();
        rounds.sort_unstable();
        rounds.dedup();
        rounds
    }

    /// Round `n`'s games with their players, sorted by table; empty for a round without
    /// games.
    pub fn round(&self, n: u32) -> Vec<Pairing<'_>> {
        let mut pairings: Vec<Pairing<'_>> = self
            .games
            .iter()
            .filter(|g| g.game.round == n)
            .map(|g| Pairing {
                round: g.game.round,
                table: g.game.table,
                black: &self.players[g.black],
                white: &self.players[g.white],
                handicap: g.game.handicap,
                known_color: g.game.known_color,
                result: g.game.result,
                game: game_id(g.game.round, g.game.table),
            })
            .collect();
        pairings.sort_by_key(|p| p.table);
        pairings
    }

    /// The players with a bye (`ByePlayer`) in round `n`, in file order.
    pub fn byes(&self, n: u32) -> Vec<&Player> {
        self.byes
            .iter()
            .filter(|(round, _)| *round == n)
            .map(|&(_, i)| &self.players[i])
            .collect()
    }

    /// Round `n`'s game records, sorted by table.
    pub(crate) fn round_records(&self, n: u32) -> Vec<&GameRecord> {
        let mut records: Vec<&GameRecord> =
            self.games.iter().filter(|g| g.game.round == n).collect();
        records.sort_by_key(|g| g.game.table);
        records
    }
}

/// A file's text; a file that is not UTF-8 is not XML as OpenGotha writes it.
pub(crate) fn read_text(path: &Path) -> Result<String, TournamentError> {
    let bytes = std::fs::read(path).map_err(|source| TournamentError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let valid = String::from_utf8_lossy(&e.as_bytes()[..at]).into_owned();
        TournamentError::NotXml {
            line: line_of(&valid, at),
            reason: format!("not UTF-8 at byte {at}"),
        }
    })
}
