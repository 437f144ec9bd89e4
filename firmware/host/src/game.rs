//! The game the emulated board plays: an SGF game played by tengen-sim's simulated
//! players, or a simulator script, with the options `tengen sim` takes from the same board
//! config (`[hardware.sim]` seed, noise and violations), so that both play the same moves
//! on the same timeline (an SGF game's thinking may be made faster; hands keep human time).

use std::path::Path;

use tengen_rules::sgf::GameRecord;
use tengen_sim::{
    FrameKind, GameInput, GameOptions, RawModel, Script, SimOptions, Simulation, ThinkTime,
    Violation,
};

use crate::error::EmulatorError;

/// What to play.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// An SGF file's main line.
    Sgf(std::path::PathBuf),
    /// A simulator script.
    Script(std::path::PathBuf),
}

/// A game and how it is played.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSpec {
    /// The game.
    pub source: Source,
    /// `[hardware.sim] seed`: human timing, noise.
    pub seed: u64,
    /// `[hardware.sim] noise`.
    pub noise: f64,
    /// `[hardware.sim] violations`: the chance that an SGF game breaks a rule once.
    pub violations: f64,
    /// Thinking time divided by this (SGF games; 1 is human pace, as `tengen sim`).
    pub speed: f64,
    /// Only the SGF game's first moves (its result dropped), if given.
    pub moves: Option<usize>,
}

/// What the board config needs from the game.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSetup {
    /// Lines.
    pub size: u8,
    /// Komi (from the record or the script), if given.
    pub komi: Option<f64>,
    /// Handicap stones, if given.
    pub handicap: Option<u8>,
}

fn read(path: &Path) -> Result<String, EmulatorError> {
    std::fs::read_to_string(path).map_err(EmulatorError::io(format!("read {}", path.display())))
}

/// The simulation options `tengen sim` uses for this spec, with raw 12-bit frames
/// throughout (what the firmware's ADC gives).
fn options(spec: &GameSpec, size: u8) -> SimOptions {
    SimOptions {
        noise: spec.noise,
        size,
        frames: FrameKind::Raw,
        raw: RawModel::adc12(),
        ..SimOptions::seeded(spec.seed)
    }
}

/// The simulation of `spec` and the setup the board config must carry.
pub fn simulation(spec: &GameSpec) -> Result<(Simulation, GameSetup), EmulatorError> {
    match &spec.source {
        Source::Sgf(path) => {
            let text = read(path)?;
            let mut record: GameRecord = tengen_rules::sgf::parse(&text)
                .map_err(|e| EmulatorError::Game(format!("{}: {e}", path.display())))?;
            if let Some(n) = spec.moves.filter(|&n| n < record.moves.len()) {
                record.moves.truncate(n);
                record.result = None;
            }
            let input = GameInput::from_record(&record);
            let mut play = GameOptions {
                think: ThinkTime::human().faster(spec.speed.max(0.001)),
                ..GameOptions::default()
            };
            // As `tengen sim` draws it (daemon/src/sim_game.rs): same game, seed, chance.
            if let Some(v) = Violation::draw(&input, spec.violations, spec.seed) {
                play.violations.push(v);
            }
            let sim = Simulation::from_sgf(&record, &options(spec, record.size), &play)
                .map_err(|e| EmulatorError::Game(format!("{}: {e}", path.display())))?;
            Ok((
                sim,
                GameSetup {
                    size: record.size,
                    komi: record.komi,
                    handicap: Some(record.handicap),
                },
            ))
        }
        Source::Script(path) => {
            let text = read(path)?;
            let script = Script::parse(&text).map_err(|e| {
                EmulatorError::Game(e.with_source(path.display().to_string()).to_string())
            })?;
            if script.setup.time.is_some() {
                return Err(EmulatorError::Game(format!(
                    "{}: a `time` line is not carried into the board config; give the time \
                     control in the config instead",
                    path.display()
                )));
            }
            let size = script.setup.size.unwrap_or(19);
            let sim = Simulation::from_parsed(&script, &options(spec, size)).map_err(|e| {
                EmulatorError::Game(e.with_source(path.display().to_string()).to_string())
            })?;
            Ok((
                sim,
                GameSetup {
                    size,
                    komi: script.setup.komi,
                    handicap: script.setup.handicap,
                },
            ))
        }
    }
}
