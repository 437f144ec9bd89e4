//! The one error type of the crate: every message is one line and names the element (and
//! the attribute) it is about.

use std::path::PathBuf;

/// Why a tournament file could not be read, or a result not written back.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The text is not well-formed XML (or not UTF-8).
    #[error("not XML: {reason} (line {line})")]
    NotXml {
        /// 1-based line of the problem.
        line: usize,
        /// What is wrong, on one line.
        reason: String,
    },
    /// Well-formed XML, but not an OpenGotha tournament.
    #[error("not an OpenGotha tournament: {0}")]
    NotOpenGotha(String),
    /// A required attribute is absent.
    #[error("{element}: missing attribute {attribute}")]
    MissingAttribute {
        /// The element, e.g. `Game at line 27` or `Player at line 4`.
        element: String,
        /// The attribute's name as in the file.
        attribute: &'static str,
    },
    /// An attribute whose value cannot be used.
    #[error("{element}: invalid {attribute} {value:?} (expected {expected})")]
    InvalidAttribute {
        /// The element, e.g. `Game round 3 table 12`.
        element: String,
        /// The attribute's name as in the file.
        attribute: &'static str,
        /// The value found.
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// A text the board shows or prints (a player's name, the tournament's name) holding a
    /// control character: `&#27;` (ESC) or a C1 character such as U+009B would reach the
    /// director's terminal and the players' displays as a command. XML 1.0 forbids the
    /// C0 ones (but `&#27;` is read by lenient parsers) and discourages the C1 ones.
    #[error(
        "{element}: {attribute} holds the control character U+{code:04X}; retype it in OpenGotha"
    )]
    ControlCharacter {
        /// The element, e.g. `Player "Vannier Luc\u{1b}" at line 4`.
        element: String,
        /// The attribute's name as in the file.
        attribute: &'static str,
        /// The character's code point.
        code: u32,
    },
    /// A `Game` names a player key that no `Player` has.
    #[error("Game round {round} table {table}: unknown {side} player {key:?}")]
    UnknownPlayer {
        /// The game's round.
        round: u32,
        /// The game's table.
        table: u32,
        /// `black` or `white`.
        side: &'static str,
        /// The key as written in the game.
        key: String,
    },
    /// A `ByePlayer` names a player key that no `Player` has.
    #[error("ByePlayer round {round}: unknown player {key:?}")]
    UnknownByePlayer {
        /// The bye's round.
        round: u32,
        /// The key as written.
        key: String,
    },
    /// Two `Player` elements with the same key (OpenGotha never writes that).
    #[error("Player at line {line}: key {key:?} is already the key of another player")]
    DuplicatePlayer {
        /// The second player's line.
        line: usize,
        /// The shared key.
        key: String,
    },
    /// Two games at one table of one round.
    #[error("Game round {round} table {table}: a second game at the same table")]
    DuplicateTable {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
    },
    /// A game whose black and white player are the same.
    #[error("Game round {round} table {table}: black and white are the same player {key:?}")]
    SamePlayer {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The player's key.
        key: String,
    },
    /// A player with two games in one round.
    #[error(
        "Game round {round} table {table}: player {key:?} already plays at table {other_table}"
    )]
    PlayerTwiceInRound {
        /// The round.
        round: u32,
        /// The later game's table.
        table: u32,
        /// The player's key.
        key: String,
        /// The table of the player's other game.
        other_table: u32,
    },
    /// A result was given for a table that has no game in the round.
    #[error("round {round} has no game at table {table}")]
    NoSuchTable {
        /// The round.
        round: u32,
        /// The table asked for.
        table: u32,
    },
    /// The same table was given two results.
    #[error("round {round} table {table}: two results given for one game")]
    DuplicateResult {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// The 1-based line of a byte offset in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    1 + text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}
