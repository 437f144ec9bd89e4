//! The simulated board's game, from a config: the simulator's options, the game it plays
//! (an SGF record or a script of physical actions) and the referee's settings for it.
//! Shared by `tengen sim` (virtual time) and the `sim` backend of `tengen run`; and the
//! games of a rehearsal board ([`GameBook`], `hardware.sim.rehearse`), one per `new_game`.
//!
//! The players' names are the config's (or, on a rehearsal board, the `new_game`'s), never
//! the SGF's `PB`/`PW`: the record is only what the simulated players play. `tengen sim`
//! alone, replaying a record, shows the record's names where the config gives none.

use std::path::{Path, PathBuf};

use tengen_protocol::event::{ClockStart, GameSetup};
use tengen_referee::RefereeSettings;
use tengen_rules::sgf::{self, GameRecord, SgfError};
use tengen_sim::{
    GameError, GameInput, GameOptions, GeneratedSetup, Script, ScriptError, SimOptions, Simulation,
    Violation,
};
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
    /// The game set up cannot be played with this file.
    #[error("{path}: {why}")]
    Unfit {
        /// The file.
        path: PathBuf,
        /// Why (one sentence).
        why: String,
    },
    /// A made-up game could not be drawn for the game set up.
    #[error("a made-up game for this setup: {0}")]
    Generated(GameError),
}

/// The simulator's options from the config: seed, noise, scan rate, size, Black's side,
/// and raw readings for the sensor check's first seconds.
pub fn options(config: &Config) -> SimOptions {
    let mut options = SimOptions::seeded(config.hardware.sim.seed);
    options.noise = config.hardware.sim.noise;
    options.scan_hz = config.hardware.scan_hz.max(1);
    options.size = config.board.size;
    options.black_side = config.board.black_side;
    // Raw readings while the board's sensor check before play watches them (docs/operating.md:
    // `tengen sim` runs the raw reading model), classified after: the same game, at a
    // seventh of the cost per scan.
    options.raw_lead_ms = tengen_referee::CHECK_MS + 1_000;
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

/// The referee's settings for an SGF game on a board: the config, with the game's size,
/// komi and handicap; the players are the config's (not the record's `PB`/`PW`).
pub fn settings_for_record(config: &Config, record: &GameRecord) -> RefereeSettings {
    let s = simulated(config);
    let (black, white) = (s.game.black.clone(), s.game.white.clone());
    let mut s = s.for_record(record);
    s.game.black = black;
    s.game.white = white;
    s
}

/// `tengen sim` replaying a record: the record's players where the config names none.
pub fn with_record_names(mut settings: RefereeSettings, record: &GameRecord) -> RefereeSettings {
    let name = |slot: &mut String, from: &Option<String>| {
        if let (true, Some(v)) = (slot.is_empty(), from) {
            slot.clone_from(v);
        }
    };
    name(&mut settings.game.black, &record.black_name);
    name(&mut settings.game.white, &record.white_name);
    settings
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

/// The simulation of an SGF game (played by simulated humans as `play` says, with a
/// violation drawn as `hardware.sim.violations` says) and the referee's settings for it, as
/// `tengen sim` replays a record: the record's players where the config names none.
pub fn from_record(
    config: &Config,
    path: &Path,
    options: &SimOptions,
    play: &GameOptions,
) -> Result<(Simulation, RefereeSettings), SimGameError> {
    let (sim, record) = record_game(config, path, options, play)?;
    let settings = with_record_names(settings_for_record(config, &record), &record);
    Ok((sim, settings))
}

/// An SGF game's simulation (with a violation drawn as `hardware.sim.violations` says) and
/// its record.
fn record_game(
    config: &Config,
    path: &Path,
    options: &SimOptions,
    play: &GameOptions,
) -> Result<(Simulation, GameRecord), SimGameError> {
    let record = read_sgf(path)?;
    let play = with_drawn_violation(
        play,
        &GameInput::from_record(&record),
        config.hardware.sim.violations,
        options.seed,
    );
    let sim =
        Simulation::from_sgf(&record, options, &play).map_err(|source| SimGameError::Game {
            path: path.to_path_buf(),
            source,
        })?;
    Ok((sim, record))
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

/// The game `hardware.sim` names, on the config's simulator options, played at power-on
/// (`tengen run` without `rehearse`; a list of files plays its first), with a violation
/// drawn as `hardware.sim.violations` says.
pub fn from_config(
    config: &Config,
    play: &GameOptions,
) -> Result<(Simulation, RefereeSettings), SimGameError> {
    let options = options(config);
    match &config.hardware.sim.source {
        SimSource::Sgf(path) => power_on_record(config, path, &options, play),
        SimSource::SgfList(paths) => match paths.first() {
            Some(path) => power_on_record(config, path, &options, play),
            None => Err(SimGameError::Unfit {
                path: PathBuf::from("hardware.sim.sgf"),
                why: "no file given".into(),
            }),
        },
        SimSource::Script(path) => from_script(config, path, &options),
    }
}

fn power_on_record(
    config: &Config,
    path: &Path,
    options: &SimOptions,
    play: &GameOptions,
) -> Result<(Simulation, RefereeSettings), SimGameError> {
    let (sim, record) = record_game(config, path, options, play)?;
    Ok((sim, settings_for_record(config, &record)))
}

/// `play` with one more violation, drawn for `game` with `probability` from `seed`.
fn with_drawn_violation(
    play: &GameOptions,
    game: &GameInput,
    probability: f64,
    seed: u64,
) -> GameOptions {
    let mut play = play.clone();
    if let Some(v) = Violation::draw(game, probability, seed) {
        tracing::debug!("sim: this game breaks a rule: {v:?}");
        play.violations.push(v);
    }
    play
}

/// What a rehearsal board's players play (`hardware.sim.rehearse`): one game per game set
/// up by `new_game`, from `hardware.sim.sgf` (the files in turn) or `script`. The files
/// are read once, at start, so a bad one stops the board with one line naming it.
#[derive(Debug)]
pub struct GameBook {
    games: Games,
    options: SimOptions,
    play: GameOptions,
    violations: f64,
    /// Games handed out so far.
    played: u64,
    /// The file to look at first for the next game.
    next: usize,
}

#[derive(Debug)]
enum Games {
    Records(Vec<(PathBuf, GameRecord)>),
    Script(PathBuf, Script),
}

impl GameBook {
    /// The book of `config`'s `[hardware.sim]`, the players playing as `play` says.
    pub fn from_config(config: &Config, play: &GameOptions) -> Result<GameBook, SimGameError> {
        let games = match &config.hardware.sim.source {
            SimSource::Script(path) => Games::Script(path.clone(), read_script(path)?),
            source => Games::Records(
                source
                    .files()
                    .into_iter()
                    .map(|(_, path)| Ok((path.to_path_buf(), read_sgf(path)?)))
                    .collect::<Result<_, SimGameError>>()?,
            ),
        };
        Ok(GameBook {
            games,
            options: options(config),
            play: play.clone(),
            violations: config.hardware.sim.violations,
            played: 0,
            next: 0,
        })
    }

    /// The game of the list that a board restarted mid-game was playing, taken up where
    /// `resume_at` (the journal's game against a candidate's actions) says it goes on: the
    /// games are drawn again in turn, as [`GameBook::next_game`] drew them (the first for
    /// the first game since power-on, with the same seed), until one fits, at most once
    /// each. `None` when none does (then the players wait for the next `new_game`).
    pub fn take_up(
        &mut self,
        setup: &GameSetup,
        resume_at: impl Fn(&Simulation) -> Option<usize>,
    ) -> Option<Simulation> {
        let tries = match &self.games {
            Games::Records(records) => records.len().max(1),
            Games::Script(..) => 1,
        };
        for _ in 0..tries {
            let Ok(sim) = self.next_game(setup) else {
                continue;
            };
            if let Some(k) = resume_at(&sim) {
                return Some(sim.resumed_from(k));
            }
        }
        None
    }

    /// The next game, for a game set up as `setup` says: the next file's game in turn
    /// whose size and handicap are the setup's (the files that do not fit are passed
    /// over; when none fits, the next file: another size is refused, another handicap is
    /// replaced by a made-up game with the setup's, said in the log), timed with its own
    /// seed (the config's plus the number of games played before), with a violation drawn
    /// as `hardware.sim.violations` says.
    pub fn next_game(&mut self, setup: &GameSetup) -> Result<Simulation, SimGameError> {
        let k = self.played;
        self.played += 1;
        let mut options = self.options.clone();
        options.seed = options.seed.wrapping_add(k);
        options.size = setup.size;
        if let Games::Records(records) = &self.games {
            let n = records.len().max(1);
            let fits = |i: &usize| {
                records
                    .get(*i)
                    .is_some_and(|(_, r)| r.size == setup.size && r.handicap == setup.handicap)
            };
            let i = (0..n)
                .map(|j| (self.next + j) % n)
                .find(fits)
                .unwrap_or(self.next % n);
            self.next = i;
        }
        match &self.games {
            Games::Script(path, script) => {
                if let Some(size) = script.setup.size.filter(|s| *s != setup.size) {
                    return Err(SimGameError::Unfit {
                        path: path.clone(),
                        why: format!(
                            "the script is {size}x{size}, the game set up is {0}x{0}",
                            setup.size
                        ),
                    });
                }
                Simulation::from_parsed(script, &options)
                    .map_err(|e| SimGameError::Script(e.with_source(path.display().to_string())))
            }
            Games::Records(records) => {
                let Some((path, record)) = records.get(self.next) else {
                    return Err(SimGameError::Generated(GameError::Setup("no game".into())));
                };
                self.next = (self.next + 1) % records.len();
                if record.size != setup.size {
                    return Err(SimGameError::Unfit {
                        path: path.clone(),
                        why: format!(
                            "the game is {0}x{0}, the game set up is {1}x{1}",
                            record.size, setup.size
                        ),
                    });
                }
                let mut input = GameInput::from_record(record);
                if input.dead.is_empty() {
                    input.dead.clone_from(&self.play.dead);
                }
                if input.handicap != setup.handicap {
                    tracing::warn!(
                        "{}: handicap {}, the game set up has {}: the simulated players play a \
                         made-up game with its handicap instead",
                        path.display(),
                        input.handicap,
                        setup.handicap
                    );
                    input = GameInput::generated(&GeneratedSetup {
                        size: setup.size,
                        handicap: setup.handicap,
                        komi: setup.komi,
                        seed: options.seed,
                    })
                    .map_err(SimGameError::Generated)?;
                }
                let play = with_drawn_violation(&self.play, &input, self.violations, options.seed);
                Simulation::from_game(&input, &options, &play).map_err(|source| {
                    SimGameError::Game {
                        path: path.clone(),
                        source,
                    }
                })
            }
        }
    }
}

fn read(path: &Path) -> Result<String, SimGameError> {
    std::fs::read_to_string(path).map_err(|source| SimGameError::Read {
        path: path.to_path_buf(),
        source,
    })
}
