//! The referee's settings: the parts of the board configuration (SPEC.md, "Configuration")
//! that the referee reads, with SPEC.md's defaults.

use tengen_rules::clock::TimeControl;
use tengen_rules::game::Superko;

/// Where Black sits at the board (`board.black_side`); White sits opposite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Side {
    /// Black at the bottom edge (row 1), White at the top.
    #[default]
    South,
    /// Black at the top edge.
    North,
    /// Black at the right edge (column T on 19x19).
    East,
    /// Black at the left edge (column A).
    West,
}

impl Side {
    /// Parses `south`, `north`, `east`, `west`.
    pub fn parse(text: &str) -> Option<Side> {
        match text {
            "south" => Some(Side::South),
            "north" => Some(Side::North),
            "east" => Some(Side::East),
            "west" => Some(Side::West),
            _ => None,
        }
    }

    /// The side across the board.
    pub fn opposite(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
            Side::East => Side::West,
            Side::West => Side::East,
        }
    }
}

/// How penalties (Art. 24) are given (`game.penalties`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Penalties {
    /// An arbiter's `confirm` gives the warning.
    #[default]
    Arbiter,
    /// Penalised alerts give their warning at once.
    Auto,
}

/// Everything the referee needs to know about the game and the board.
#[derive(Debug, Clone)]
pub struct RefereeSettings {
    /// Board size (`board.size`).
    pub size: u8,
    /// Komi in points (`game.komi`).
    pub komi: f64,
    /// Handicap stones (`game.handicap`).
    pub handicap: u8,
    /// Whole-board repetition rule (`game.superko`).
    pub superko: Superko,
    /// Penalty mode (`game.penalties`).
    pub penalties: Penalties,
    /// The time control (`[time]`); `TimeControl::None` without a clock.
    pub time: TimeControl,
    /// Where Black sits (`board.black_side`).
    pub black_side: Side,
    /// A change counts once it has held this long (`detection.stable_ms`).
    pub stable_ms: u64,
    /// A stone set down this soon after its player's pass retracts the pass
    /// (`detection.pass_grace_ms`).
    pub pass_grace_ms: u64,
    /// This many points changing at once is `board_disturbed` (`detection.disturbed_points`).
    pub disturbed_points: usize,
    /// Black's name, for `game_started` and the SGF.
    pub black: String,
    /// White's name.
    pub white: String,
    /// Round, as the organiser names it.
    pub round: String,
    /// Table.
    pub table: String,
}

impl Default for RefereeSettings {
    fn default() -> RefereeSettings {
        RefereeSettings {
            size: 19,
            komi: 7.5,
            handicap: 0,
            superko: Superko::Situational,
            penalties: Penalties::Arbiter,
            time: TimeControl::None,
            black_side: Side::South,
            stable_ms: 150,
            pass_grace_ms: 2000,
            disturbed_points: 6,
            black: String::new(),
            white: String::new(),
            round: String::new(),
            table: String::new(),
        }
    }
}

impl RefereeSettings {
    /// The referee's part of a board configuration.
    pub fn from_config(config: &crate::config::Config) -> RefereeSettings {
        use crate::config::{Penalties as P, Side as S, SuperkoRule};
        let time = TimeControl::parse(&config.time_control_text()).unwrap_or(TimeControl::None);
        RefereeSettings {
            size: config.board.size,
            komi: config.game.komi,
            handicap: config.game.handicap,
            superko: match config.game.superko {
                SuperkoRule::Situational => Superko::Situational,
                SuperkoRule::Positional => Superko::Positional,
            },
            penalties: match config.game.penalties {
                P::Arbiter => Penalties::Arbiter,
                P::Auto => Penalties::Auto,
            },
            time,
            black_side: match config.board.black_side {
                S::South => Side::South,
                S::North => Side::North,
                S::East => Side::East,
                S::West => Side::West,
            },
            stable_ms: config.detection.stable_ms,
            pass_grace_ms: config.detection.pass_grace_ms,
            disturbed_points: config.detection.disturbed_points as usize,
            black: config.game.black.clone(),
            white: config.game.white.clone(),
            round: config.game.round.clone(),
            table: config.game.table.clone(),
        }
    }
}
