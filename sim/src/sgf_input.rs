//! SGF records (the rules core's [`GameRecord`]) as games for the simulated players.

use tengen_rules::sgf::GameRecord;

use crate::game::GameInput;

impl GameInput {
    /// The game an SGF record holds: size, komi, handicap, setup stones, the main line's
    /// moves and the result. SGF carries no list of dead stones, so none are lifted at the
    /// end (GNU Go games played out with `kgs-genmove_cleanup` leave none); set
    /// [`GameInput::dead`] to have them lifted.
    pub fn from_record(record: &GameRecord) -> GameInput {
        GameInput {
            size: record.size,
            komi: record.komi,
            handicap: record.handicap,
            black_setup: record.black_setup.clone(),
            white_setup: record.white_setup.clone(),
            moves: record.moves.iter().map(|m| (m.color, m.mv)).collect(),
            result: record.result.clone(),
            dead: Vec::new(),
        }
    }
}

impl GameInput {
    /// The game as an SGF record (no players' names: a board takes them from its game's
    /// setup), for a made-up game written to a file.
    pub fn to_record(&self) -> GameRecord {
        let mut record = GameRecord::new(self.size);
        record.komi = self.komi;
        record.handicap = self.handicap;
        record.black_setup = self.black_setup.clone();
        record.white_setup = self.white_setup.clone();
        record.moves = self
            .moves
            .iter()
            .map(|(c, m)| tengen_rules::sgf::RecordedMove::new(*c, *m))
            .collect();
        record.result = self.result.clone();
        record
    }
}
