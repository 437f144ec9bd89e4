//! Why a position could not be set up: a board from a diagram ([`crate::Board::from_rows`]),
//! fixed handicap stones ([`crate::handicap_points`]) or a game's setup stones
//! ([`crate::Game::with_setup`]). Its own module so that the board and the handicap
//! placement, which the game is built on, can report it without depending on the game.

use thiserror::Error;

use crate::Point;

/// Why a game could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    /// The board size is outside 2..=25.
    #[error("board size {0} is not supported (2..=25)")]
    BadSize(u8),
    /// The handicap is not 0 or 2..=max for this board size.
    #[error("handicap {handicap} is not available on a {size}x{size} board (0 or 2..={max})")]
    BadHandicap {
        /// The handicap asked for.
        handicap: u8,
        /// The board size.
        size: u8,
        /// The largest fixed handicap this size supports (0 if none).
        max: u8,
    },
    /// A setup stone lies off the board.
    #[error("setup stone at column {col}, row {row} (1-based) is off the {size}x{size} board")]
    OffBoard {
        /// 1-based column.
        col: u16,
        /// 1-based row from the bottom.
        row: u16,
        /// The board size.
        size: u8,
    },
    /// The same point is given both a black and a white setup stone.
    #[error("point {0} has both a black and a white setup stone")]
    Overlap(Point),
    /// The setup leaves a chain with no liberty.
    #[error("the setup chain at {0} has no liberty")]
    NoLiberties(Point),
    /// A board diagram could not be read.
    #[error("bad board diagram: {0}")]
    BadDiagram(String),
}
