//! The referee's settings: the parts of the board configuration (docs/configuration.md)
//! that the referee reads, with the wire contract's defaults.

use tengen_hal::{Millis, Side};
pub use tengen_protocol::event::Penalties;
use tengen_protocol::event::{ClockStart, GameSetup};
use tengen_rules::clock::LatePolicy;
use tengen_rules::sgf::GameRecord;

/// Everything the referee needs to know about the board and its first game.
#[derive(Debug, Clone, PartialEq)]
pub struct RefereeSettings {
    /// The first game's setup (`board.size`, `[game]`, `[time]`); a `new_game` command
    /// starts from the current game's setup and changes what it names. Its `clock_start`
    /// is how the game a board sets up by itself (at power-on) begins.
    pub game: GameSetup,
    /// How the clocks of a game set up by a `new_game` command begin (`game.clock_start`;
    /// default `arbiter`: the game waits for the arbiter's `resume`).
    pub clock_start: ClockStart,
    /// Penalty mode (`game.penalties`).
    pub penalties: Penalties,
    /// Lateness (`game.late_limit_s`, `game.late_rule`; Art. 22.1-22.4) for the games that
    /// wait for play to begin and have a clock: their players check in, whoever is not
    /// seated when play begins is late. `None`: no check-in.
    pub late: Option<LatePolicy>,
    /// Where Black sits (`board.black_side`).
    pub black_side: Side,
    /// A change counts once it has held this long (`detection.stable_ms`).
    pub stable_ms: Millis,
    /// A stone set down this soon after its player's pass retracts the pass
    /// (`detection.pass_grace_ms`).
    pub pass_grace_ms: Millis,
    /// This many points changing at once is `board_disturbed` (`detection.disturbed_points`).
    pub disturbed_points: usize,
}

impl RefereeSettings {
    /// The same settings for playing `record` on the board: its size, komi, handicap and
    /// players' names (an SGF game on the simulated board).
    pub fn for_record(mut self, record: &GameRecord) -> RefereeSettings {
        let g = &mut self.game;
        g.size = record.size;
        if let Some(k) = record.komi {
            g.komi = k;
        }
        g.handicap = record.handicap;
        if let Some(b) = &record.black_name {
            g.black.clone_from(b);
        }
        if let Some(w) = &record.white_name {
            g.white.clone_from(w);
        }
        self
    }
}

impl Default for RefereeSettings {
    fn default() -> RefereeSettings {
        RefereeSettings {
            game: GameSetup::default(),
            clock_start: ClockStart::Arbiter,
            penalties: Penalties::Arbiter,
            late: Some(LatePolicy::default()),
            black_side: Side::South,
            stable_ms: 150,
            pass_grace_ms: 2000,
            disturbed_points: 6,
        }
    }
}
