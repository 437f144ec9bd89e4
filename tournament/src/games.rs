//! Games, their results, and a round's pairings with the players resolved.

use std::fmt;

use crate::players::Player;

/// A game's result as OpenGotha stores it in `Game`'s `result` attribute.
///
/// The spellings are OpenGotha's (`ExternalDocument.importGamesFromXMLFile`): the five
/// results and their `_BYDEF` forms, for a game won (or drawn, lost) by default, i.e. not
/// played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `RESULT_UNKNOWN`: not played yet or not entered (the DTD's default).
    Unknown,
    /// `RESULT_WHITEWINS`.
    WhiteWins,
    /// `RESULT_BLACKWINS`.
    BlackWins,
    /// `RESULT_EQUAL`: a draw (jigo).
    Equal,
    /// `RESULT_BOTHWIN`: both players are given the win.
    BothWin,
    /// `RESULT_BOTHLOSE`: both players are given the loss.
    BothLose,
    /// `RESULT_WHITEWINS_BYDEF`.
    WhiteWinsByDefault,
    /// `RESULT_BLACKWINS_BYDEF`.
    BlackWinsByDefault,
    /// `RESULT_EQUAL_BYDEF`.
    EqualByDefault,
    /// `RESULT_BOTHWIN_BYDEF`.
    BothWinByDefault,
    /// `RESULT_BOTHLOSE_BYDEF`.
    BothLoseByDefault,
}

impl GameResult {
    /// Every result, in OpenGotha's order.
    pub const ALL: [GameResult; 11] = [
        GameResult::Unknown,
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Equal,
        GameResult::BothWin,
        GameResult::BothLose,
        GameResult::WhiteWinsByDefault,
        GameResult::BlackWinsByDefault,
        GameResult::EqualByDefault,
        GameResult::BothWinByDefault,
        GameResult::BothLoseByDefault,
    ];

    /// The attribute value, e.g. `RESULT_BLACKWINS_BYDEF`.
    pub fn as_opengotha(self) -> &'static str {
        match self {
            GameResult::Unknown => "RESULT_UNKNOWN",
            GameResult::WhiteWins => "RESULT_WHITEWINS",
            GameResult::BlackWins => "RESULT_BLACKWINS",
            GameResult::Equal => "RESULT_EQUAL",
            GameResult::BothWin => "RESULT_BOTHWIN",
            GameResult::BothLose => "RESULT_BOTHLOSE",
            GameResult::WhiteWinsByDefault => "RESULT_WHITEWINS_BYDEF",
            GameResult::BlackWinsByDefault => "RESULT_BLACKWINS_BYDEF",
            GameResult::EqualByDefault => "RESULT_EQUAL_BYDEF",
            GameResult::BothWinByDefault => "RESULT_BOTHWIN_BYDEF",
            GameResult::BothLoseByDefault => "RESULT_BOTHLOSE_BYDEF",
        }
    }

    /// The result for an attribute value, exactly as OpenGotha spells it.
    pub fn from_opengotha(value: &str) -> Option<GameResult> {
        GameResult::ALL
            .into_iter()
            .find(|r| r.as_opengotha() == value)
    }

    /// The result of an SGF `RE` value as a board writes it: `B+...` and `W+...` (by
    /// resignation, time or count), `B+F`/`W+F` or `+Forfeit` (a forfeit: a win by
    /// default), `0`, `Draw` or `Jigo` (a draw). `None` for a result that says nothing
    /// (`?`, `Void`, empty, anything else): the game's result stays unknown.
    pub fn from_sgf(re: &str) -> Option<GameResult> {
        let re = re.trim();
        if matches!(re.to_ascii_lowercase().as_str(), "0" | "draw" | "jigo") {
            return Some(GameResult::Equal);
        }
        let (winner, how) = re.split_once('+')?;
        let forfeit = matches!(how.to_ascii_lowercase().as_str(), "f" | "forfeit");
        match (winner, forfeit) {
            ("B", false) => Some(GameResult::BlackWins),
            ("W", false) => Some(GameResult::WhiteWins),
            ("B", true) => Some(GameResult::BlackWinsByDefault),
            ("W", true) => Some(GameResult::WhiteWinsByDefault),
            _ => None,
        }
    }

    /// The result of a game a board ended with `re` (SGF form, as [`GameResult::from_sgf`]
    /// reads it), `played` telling whether any move was played.
    ///
    /// A forfeit (`B+F`, `W+F`) is *by default* only when the game was not played. In
    /// OpenGotha a by-default result is a game that did not take place: its help says a
    /// result is by default "when one player or both did not show up",
    /// `ScoredPlayer.gameWasPlayed` is false for every `_BYDEF` result,
    /// `Tournament.getPlayersWhoDidNotShowUp` lists their losers, the tie-breaks count them
    /// apart, and the EGF export can drop them from rating. A game that was played and then
    /// lost by a second warning (Art. 24, reason `warnings`) or forfeited on the arbiter's
    /// decision is an ordinary win: `RESULT_WHITEWINS`, not `RESULT_WHITEWINS_BYDEF`.
    pub fn from_game(re: &str, played: bool) -> Option<GameResult> {
        let result = GameResult::from_sgf(re)?;
        Some(if played { result.as_played() } else { result })
    }

    /// The result of a game a board ended with `re`, as [`GameResult::from_game`], where
    /// `absent` says the board ended it for a player not seated in time (Art. 22.1-22.4,
    /// reason `absent`): then a forfeit (`B+F`, `W+F`) is by default whether or not a move
    /// was played (the opponent may have played their first move while waiting), and `Void`
    /// is both losing (`RESULT_BOTHLOSE`, Art. 22.3).
    pub fn from_ending(re: &str, played: bool, absent: bool) -> Option<GameResult> {
        if !absent {
            return GameResult::from_game(re, played);
        }
        if re.trim().eq_ignore_ascii_case("void") {
            return Some(GameResult::BothLose);
        }
        GameResult::from_sgf(re)
    }

    /// The same result for a game that was played: a `_BYDEF` result without `_BYDEF`.
    pub fn as_played(self) -> GameResult {
        match self {
            GameResult::WhiteWinsByDefault => GameResult::WhiteWins,
            GameResult::BlackWinsByDefault => GameResult::BlackWins,
            GameResult::EqualByDefault => GameResult::Equal,
            GameResult::BothWinByDefault => GameResult::BothWin,
            GameResult::BothLoseByDefault => GameResult::BothLose,
            other => other,
        }
    }

    /// The SGF `RE` of a game whose result an arbiter confirmed as `self`, where the board's
    /// record says `re` (`played`: moves were played). The board's own `RE` is kept when
    /// it says the same (it has the margin or the reason: `B+3.5`, `W+T`); otherwise the
    /// confirmed result in SGF's words: `B+`, `W+` (a win, reason not recorded), `B+F`,
    /// `W+F` (by default), `0` (a draw), `Void` (both win, both lose: no game result SGF
    /// can say), and no `RE` for an unknown result.
    pub fn record_result(self, re: Option<&str>, played: bool) -> Option<String> {
        if let Some(re) = re.filter(|re| GameResult::from_game(re, played) == Some(self)) {
            return Some(re.to_string());
        }
        let sgf = match self {
            GameResult::Unknown => return None,
            GameResult::BlackWins => "B+",
            GameResult::WhiteWins => "W+",
            GameResult::Equal | GameResult::EqualByDefault => "0",
            GameResult::BlackWinsByDefault => "B+F",
            GameResult::WhiteWinsByDefault => "W+F",
            GameResult::BothWin
            | GameResult::BothLose
            | GameResult::BothWinByDefault
            | GameResult::BothLoseByDefault => "Void",
        };
        Some(sgf.to_string())
    }

    /// True for the `_BYDEF` results (the game was not played).
    pub fn is_by_default(self) -> bool {
        matches!(
            self,
            GameResult::WhiteWinsByDefault
                | GameResult::BlackWinsByDefault
                | GameResult::EqualByDefault
                | GameResult::BothWinByDefault
                | GameResult::BothLoseByDefault
        )
    }

    /// A short label for people and the CSV export: `B+`, `W+`, `jigo`, `both win`,
    /// `both lose`, `?`; a by-default result adds ` by default` (`W+ by default`).
    pub fn label(self) -> &'static str {
        match self {
            GameResult::Unknown => "?",
            GameResult::WhiteWins => "W+",
            GameResult::BlackWins => "B+",
            GameResult::Equal => "jigo",
            GameResult::BothWin => "both win",
            GameResult::BothLose => "both lose",
            GameResult::WhiteWinsByDefault => "W+ by default",
            GameResult::BlackWinsByDefault => "B+ by default",
            GameResult::EqualByDefault => "jigo by default",
            GameResult::BothWinByDefault => "both win by default",
            GameResult::BothLoseByDefault => "both lose by default",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_opengotha())
    }
}

/// One `Game` element: the players by key, as in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    /// `roundNumber`, from 1.
    pub round: u32,
    /// `tableNumber`, from 1.
    pub table: u32,
    /// `blackPlayer`: the black player's key.
    pub black: String,
    /// `whitePlayer`: the white player's key.
    pub white: String,
    /// `handicap` (0 when absent, the DTD's default).
    pub handicap: u32,
    /// `knownColor` (true when absent): false when OpenGotha let the players choose colours.
    pub known_color: bool,
    /// `result` (`RESULT_UNKNOWN` when absent).
    pub result: GameResult,
}

impl Game {
    /// The game id of docs/mqtt-http.md: `r{round}-t{table}` (`r6-t12`).
    pub fn id(&self) -> String {
        game_id(self.round, self.table)
    }
}

/// The wire contract's game id, `r{round}-t{table}`.
pub(crate) fn game_id(round: u32, table: u32) -> String {
    format!("r{round}-t{table}")
}

/// The round and table of a game id `r{round}-t{table}` (`r6-t12` is `(6, 12)`); `None` for
/// any other id (a friendly game, `r6-t12b`).
pub fn round_and_table(game: &str) -> Option<(u32, u32)> {
    let (round, table) = game.strip_prefix('r')?.split_once("-t")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(round) || !digits(table) {
        return None;
    }
    Some((round.parse().ok()?, table.parse().ok()?))
}

/// A game of a round with its players resolved: what a board needs to start the game.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairing<'a> {
    /// The round, from 1.
    pub round: u32,
    /// The table, from 1.
    pub table: u32,
    /// The black player.
    pub black: &'a Player,
    /// The white player.
    pub white: &'a Player,
    /// Handicap stones (0: even game).
    pub handicap: u32,
    /// Whether the colours were assigned by the pairing.
    pub known_color: bool,
    /// The result so far.
    pub result: GameResult,
    /// The game id, `r{round}-t{table}`.
    pub game: String,
}

#[cfg(test)]
mod tests {
    use super::GameResult::{self, *};

    #[test]
    fn game_ids_read_back() {
        assert_eq!(super::round_and_table("r6-t12"), Some((6, 12)));
        assert_eq!(super::round_and_table(&super::game_id(1, 3)), Some((1, 3)));
        for other in ["friendly", "r6-t12b", "r-t1", "r1-t", "6-12", "r+1-t2", ""] {
            assert_eq!(super::round_and_table(other), None, "{other}");
        }
    }

    #[test]
    fn a_forfeit_is_by_default_only_when_nothing_was_played() {
        for (re, played, want) in [
            // Lost by a second warning, or forfeited by the arbiter, after moves: played.
            ("W+F", true, Some(WhiteWins)),
            ("B+Forfeit", true, Some(BlackWins)),
            // A player who never came: no move, by default.
            ("W+F", false, Some(WhiteWinsByDefault)),
            ("B+F", false, Some(BlackWinsByDefault)),
            ("B+R", true, Some(BlackWins)),
            ("W+T", false, Some(WhiteWins)),
            ("0", true, Some(Equal)),
            ("Void", true, None),
            ("?", false, None),
        ] {
            assert_eq!(GameResult::from_game(re, played), want, "{re} {played}");
            assert_eq!(
                GameResult::from_ending(re, played, false),
                want,
                "{re} {played}"
            );
        }
    }

    #[test]
    fn a_player_not_seated_in_time_loses_by_default_even_after_a_first_move() {
        // Black played their first move while White was away (Art. 22.1).
        assert_eq!(
            GameResult::from_ending("B+F", true, true),
            Some(BlackWinsByDefault)
        );
        assert_eq!(
            GameResult::from_ending("W+F", false, true),
            Some(WhiteWinsByDefault)
        );
        // Both away at the limit: both lose (Art. 22.3).
        assert_eq!(GameResult::from_ending("Void", false, true), Some(BothLose));
    }

    #[test]
    fn a_confirmed_result_in_the_record() {
        // The board's RE stays when it says the same.
        assert_eq!(
            BlackWins.record_result(Some("B+3.5"), true).as_deref(),
            Some("B+3.5")
        );
        assert_eq!(
            WhiteWins.record_result(Some("W+F"), true).as_deref(),
            Some("W+F")
        );
        assert_eq!(
            WhiteWinsByDefault
                .record_result(Some("W+F"), false)
                .as_deref(),
            Some("W+F")
        );
        // Otherwise the arbiter's result, in SGF's words.
        assert_eq!(
            BlackWins.record_result(Some("W+F"), true).as_deref(),
            Some("B+")
        );
        assert_eq!(WhiteWins.record_result(None, true).as_deref(), Some("W+"));
        assert_eq!(
            WhiteWinsByDefault
                .record_result(Some("W+F"), true)
                .as_deref(),
            Some("W+F")
        );
        assert_eq!(Equal.record_result(Some("B+R"), true).as_deref(), Some("0"));
        assert_eq!(
            BothLose.record_result(Some("B+R"), true).as_deref(),
            Some("Void")
        );
        assert_eq!(Unknown.record_result(Some("B+R"), true), None);
        // Each SGF form reads back as the result confirmed (the by-default ones with no
        // move played), apart from both-win and both-lose, which SGF cannot say.
        for r in GameResult::ALL {
            let Some(re) = r.record_result(None, !r.is_by_default()) else {
                continue;
            };
            let back = GameResult::from_game(&re, !r.is_by_default());
            match r {
                BothWin | BothLose | BothWinByDefault | BothLoseByDefault => {
                    assert_eq!(back, None, "{r}")
                }
                EqualByDefault => assert_eq!(back, Some(Equal)),
                _ => assert_eq!(back, Some(r), "{r}"),
            }
        }
    }
}
