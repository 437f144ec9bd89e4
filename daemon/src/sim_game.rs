//! The simulated board's game, from a config: the simulator's options, the game it plays
//! (an SGF record or a script of physical actions) and the referee's settings for it.
//! Shared by `tengen sim` (virtual time) and the `sim` backend of `tengen run`.

use std::path::{Path, PathBuf};

use tengen_protocol::event::ClockStart;
use tengen_referee::RefereeSettings;
use tengen_rules::sgf::{self, GameRecord, SgfError};
use tengen_sim::{GameError, GameOptions, Script, ScriptError, SimOptions, Simulation};
use thiserror::Error;

use crate::config::{Config, SimSource};

/// Why the simulated game could not be set up; one line naming the file.
#[derive(Debug, Error)]
pub enum SimGameError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Not an SGF game.
    #[error("{path}: {source}")]
    Sgf {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: SgfError,
    },
    /// The simulator cannot play the game.
    #[error("{path}: {source}")]
    Game {
        /// The file.
        path: PathBuf,
        /// Why.
        source: GameError,
    },
    /// A script that does not read (the error names the file and line).
    #[error("{0}")]
    Script(ScriptError),
}

/// The simulator's options from the config: seed, noise, scan rate, size, Black's side.
pub fn options(config: &Config) -> SimOptions {
    let mut options = SimOptions::seeded(config.hardware.sim.seed);
    options.noise = config.hardware.sim.noise;
    options.scan_hz = config.hardware.scan_hz.max(1);
    options.size = config.board.size;
    options.black_side = config.board.black_side;
    options
}

/// The referee's settings of a simulated game: the config's, with the game's clocks
/// starting at once unless `game.clock_start` says otherwise (the simulated players play
/// at once, and no arbiter is there to begin play), whatever the config's backend.
fn simulated(config: &Config) -> RefereeSettings {
    let mut s = config.referee_settings();
    s.game.clock_start = config.game.clock_start.unwrap_or(ClockStart::Now);
    s
}

/// The referee's settings for a script: the config, overridden by the script's setup lines.
pub fn settings_for_script(config: &Config, script: &Script) -> RefereeSettings {
    let mut s = simulated(config);
    let setup = &script.setup;
    if let Some(v) = setup.size {
        s.game.size = v;
    }
    if let Some(v) = setup.komi {
        s.game.komi = v;
    }
    if let Some(v) = setup.handicap {
        s.game.handicap = v;
    }
    if let Some(v) = setup.time {
        s.game.time_control = v;
    }
    s
}

/// The referee's settings for an SGF game: the config, with the game's size, komi,
/// handicap and players.
pub fn settings_for_record(config: &Config, record: &GameRecord) -> RefereeSettings {
    simulated(config).for_record(record)
}

/// Reads and parses an SGF file.
pub fn read_sgf(path: &Path) -> Result<GameRecord, SimGameError> {
    let text = read(path)?;
    sgf::parse(&text).map_err(|source| SimGameError::Sgf {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads and parses a script file.
pub fn read_script(path: &Path) -> Result<Script, SimGameError> {
    let text = read(path)?;
    Script::parse(&text)
        .map_err(|e| SimGameError::Script(e.with_source(path.display().to_string())))
}

/// The simulation of an SGF game (played by simulated humans as `play` says) and the
/// referee's settings for it.
pub fn from_record(
    config: &Config,
    path: &Path,
    options: &SimOptions,
    play: &GameOptions,
) -> Result<(Simulation, RefereeSettings), SimGameError> {
    let record = read_sgf(path)?;
    let sim =
        Simulation::from_sgf(&record, options, play).map_err(|source| SimGameError::Game {
            path: path.to_path_buf(),
            source,
        })?;
    Ok((sim, settings_for_record(config, &record)))
}

/// The simulation of a script and the referee's settings for it.
pub fn from_script(
    config: &Config,
    path: &Path,
    options: &SimOptions,
) -> Result<(Simulation, RefereeSettings), SimGameError> {
    let script = read_script(path)?;
    let sim = Simulation::from_parsed(&script, options)
        .map_err(|e| SimGameError::Script(e.with_source(path.display().to_string())))?;
    Ok((sim, settings_for_script(config, &script)))
}

/// The game `hardware.sim` names, on the config's simulator options.
pub fn from_config(
    config: &Config,
    play: &GameOptions,
) -> Result<(Simulation, RefereeSettings), SimGameError> {
    let options = options(config);
    match &config.hardware.sim.source {
        SimSource::Sgf(path) => from_record(config, path, &options, play),
        SimSource::Script(path) => from_script(config, path, &options),
    }
}

fn read(path: &Path) -> Result<String, SimGameError> {
    std::fs::read_to_string(path).map_err(|source| SimGameError::Read {
        path: path.to_path_buf(),
        source,
    })
}
