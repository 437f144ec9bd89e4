//! The tournament's data as the reader builds it: general parameters, players, games with
//! where their results are in the text, byes. Its methods are in `tournament`.

use std::collections::HashMap;
use std::ops::Range;

use crate::games::Game;
use crate::players::Player;
use crate::time_system::TimeSystem;

/// An OpenGotha tournament file, read.
///
/// Built by [`Tournament::parse`] or [`Tournament::read`]; every game's players are known
/// players, no table holds two games of a round and no player plays twice in a round.
#[derive(Debug, Clone)]
pub struct Tournament {
    pub(crate) general: General,
    pub(crate) players: Vec<Player>,
    pub(crate) index: HashMap<String, usize>,
    pub(crate) games: Vec<GameRecord>,
    pub(crate) byes: Vec<(u32, usize)>,
}

/// `GeneralParameterSet`, as read.
#[derive(Debug, Clone)]
pub(crate) struct General {
    pub(crate) name: String,
    pub(crate) short_name: String,
    pub(crate) location: String,
    pub(crate) director: String,
    pub(crate) begin_date: String,
    pub(crate) end_date: String,
    pub(crate) time: TimeSystem,
    pub(crate) komi: f64,
    pub(crate) size: u32,
    pub(crate) number_of_rounds: u32,
}

/// A game, its players' indices and where its `result` attribute is in the text.
#[derive(Debug, Clone)]
pub(crate) struct GameRecord {
    pub(crate) game: Game,
    pub(crate) black: usize,
    pub(crate) white: usize,
    pub(crate) result_at: ResultAt,
}

/// Where a game's result is written in the file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResultAt {
    /// The byte range of the `result` attribute's value (inside the quotes).
    Value(Range<usize>),
    /// No `result` attribute: the byte offset right after the element's last attribute,
    /// where ` result="..."` goes.
    Insert(usize),
}
