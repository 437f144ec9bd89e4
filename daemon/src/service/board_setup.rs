//! What a config asks for, built: the backend the scans come from, the referee's settings,
//! the calibration, and the engine (the pipeline), new or rebuilt from the journal.
//!
//! Time: the service's clock is ms since the Unix epoch. The `sim` backend plays its game
//! on a timeline anchored at the service's start and running `speed` times faster than
//! the wall clock, and stamps its frames on that timeline, so clocks and event times are
//! the game's own (equal to the wall clock at `speed = 1`).

use tengen_hal::calibration::Calibration;
use tengen_hal::Millis;
use tengen_protocol::{Event, GameView};
use tengen_referee::{Pipeline, Referee, RefereeSettings};
use tengen_rules::clock::TimeControl;
use tengen_sim::GameOptions;

use super::backend::Backend;
use super::engine::Engine;
use super::resume::resume_point;
use super::serial_backend::SerialBackend;
use super::sim_backend::SimBackend;
use super::{restoring, EngineFactory, Opening, ServiceError, VERSION};
use crate::config::{Backend as BackendKind, Config};
use crate::sim_game;

/// Builds the engine for the journal's opening: the referee rebuilt by replaying the
/// journal's current game and restarted (when `restore` and there is a game), else a new
/// game. A board that was off says so first (`status restoring`).
pub(crate) fn engine_factory(
    settings: RefereeSettings,
    calibration: Option<Calibration>,
    restore: bool,
) -> Box<EngineFactory<'static>> {
    Box::new(move |opening: &Opening, now: Millis| {
        let has_game = opening
            .past
            .iter()
            .any(|(_, e)| matches!(e, Event::GameStarted(_)));
        if let (true, true, Some(off_since)) = (restore, has_game, opening.off_since) {
            let (mut referee, skipped) = Referee::replay(settings, &opening.past)?;
            for (i, why) in skipped {
                tracing::warn!("journal's current game, event {}: {why}", i + 1);
            }
            let events = referee.restart(off_since, now, VERSION);
            let engine: Box<dyn Engine> = Box::new(Pipeline::from_referee(referee, calibration));
            return Ok((engine, events));
        }
        let (pipeline, new_game) = Pipeline::new(settings, calibration, now)?;
        let mut events = Vec::new();
        if opening.off_since.is_some() {
            events.push(restoring(opening.off_since));
        }
        events.extend(new_game);
        let engine: Box<dyn Engine> = Box::new(pipeline);
        Ok((engine, events))
    })
}

/// The `[hardware.rpi]` table: `pins` (the hal's `PinConfig`) and `wiring` (the hal's
/// `Wiring`), each defaulting to the hal's standard layout (see [`crate::config::rpi`]);
/// the problems, each with its key path, on one line.
pub(crate) fn rpi_layout(
    config: &Config,
) -> Result<(tengen_hal::driver::PinConfig, tengen_hal::driver::Wiring), ServiceError> {
    crate::config::rpi::rpi_layout(&config.hardware.rpi, config.board.size).map_err(|problems| {
        ServiceError::Config(
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })
}

/// What [`build`] made from a config.
pub(crate) struct Built {
    /// The scans.
    pub backend: Box<dyn Backend>,
    /// The referee's settings (from the config; for the simulator, the game's own size,
    /// komi and handicap).
    pub settings: RefereeSettings,
    /// The calibration for raw frames (`None`: the hal's default).
    pub calibration: Option<Calibration>,
    /// Rebuild the journal's game (hardware, and the simulator when it takes the journal's
    /// game up) or start a new one (the simulator playing its game again).
    pub restore: bool,
}

/// Builds the backend and the referee settings the config asks for, for the journal's
/// `opening`: the simulator (which plays its players as `play` says; `tengen demo`
/// injects a violation this way) goes on with the journal's game from where it ends (see
/// [`super::resume`]), its clock never earlier than the board's last sign of life. When
/// the journal's game is not the simulator's (the config names another game now), the
/// simulator plays its game again as a new one.
pub(crate) fn build_resumed(
    config: &Config,
    play: &GameOptions,
    opening: &Opening,
) -> Result<Built, ServiceError> {
    let settings = config.referee_settings();
    match config.hardware.backend {
        BackendKind::Sim if config.hardware.sim.rehearse => rehearsal(config, play, opening),
        BackendKind::Sim => {
            let (sim, settings) = sim_game::from_config(config, play)
                .map_err(|e| ServiceError::Backend(e.to_string()))?;
            let (sim, restore) = if opening.past.is_empty() {
                (sim, false)
            } else {
                let mut past = GameView::new();
                for (at, e) in &opening.past {
                    // What does not fold is reported when the referee replays it.
                    let _ = past.apply(e, *at);
                }
                match resume_point(sim.actions(), &past) {
                    Ok(k) => {
                        tracing::info!(
                            "sim: taking the journal's game up at action {k} of {}",
                            sim.actions().len()
                        );
                        (sim.resumed_from(k), true)
                    }
                    Err(why) => {
                        tracing::warn!(
                            "sim: the journal's game is not the simulator's ({why}); \
                             playing it again as a new game"
                        );
                        (sim, false)
                    }
                }
            };
            let not_before = opening.off_since.map_or(0, |t| t.millis());
            Ok(Built {
                backend: Box::new(
                    SimBackend::new(sim, config.hardware.sim.speed).not_before(not_before),
                ),
                settings,
                calibration: None,
                restore,
            })
        }
        BackendKind::Serial => Ok(Built {
            backend: Box::new(SerialBackend::new(config)),
            settings,
            calibration: load_calibration(config)?,
            restore: true,
        }),
        BackendKind::Rpi => rpi(config, settings),
    }
}

/// A rehearsal board (`hardware.sim.rehearse`): the config's game at power-on (which its
/// players leave alone; its clocks wait for an arbiter, as on a real board), the players
/// waiting for a `new_game`. After a restart the journal's game is rebuilt as on a real
/// board and the simulated board shows its position; a game in play that is one of the
/// list's (drawn again as it was: [`sim_game::GameBook::take_up`]) is taken up where the
/// journal ends once the clocks run again (the arbiter's *Resume clocks*); otherwise the
/// players wait for the next `new_game`.
fn rehearsal(
    config: &Config,
    play: &GameOptions,
    opening: &Opening,
) -> Result<Built, ServiceError> {
    let mut book = sim_game::GameBook::from_config(config, play)
        .map_err(|e| ServiceError::Backend(e.to_string()))?;
    let mut past = GameView::new();
    for (at, e) in &opening.past {
        // What does not fold is reported when the referee replays it.
        let _ = past.apply(e, *at);
    }
    let stones = past.game().map(|g| g.board().stones()).unwrap_or_default();
    let restore = past.setup().is_some();
    let moves = past.game().map_or(0, |g| g.move_number());
    let in_play = moves > 0 && past.phase() != tengen_protocol::view::Phase::Over;
    let taken_up = match past.setup() {
        Some(setup) if in_play => {
            let found = book.take_up(setup, |sim| resume_point(sim.actions(), &past).ok());
            match &found {
                Some(_) => tracing::info!(
                    "rehearsal: the simulated players take the journal's game up at move \
                     {moves} once the clocks run again"
                ),
                None => tracing::warn!(
                    "rehearsal: the journal's game goes on with its position on the board, \
                     but it is none of the simulated players' games: end it from the \
                     console, or set the next game up"
                ),
            }
            found.map(|sim| (sim, setup.time_control == TimeControl::None))
        }
        _ => None,
    };
    let not_before = opening.off_since.map_or(0, |t| t.millis());
    let backend = SimBackend::rehearsal(
        book,
        &sim_game::options(config),
        &stones,
        config.hardware.sim.speed,
    )
    .map_err(|e| ServiceError::Backend(e.to_string()))?;
    let backend = match taken_up {
        Some((sim, at_once)) => backend.taking_up(sim, at_once),
        None => backend,
    }
    .holding_alerts(config.hardware.sim.alert_hold)
    .arriving(
        config.hardware.sim.black_arrives,
        config.hardware.sim.white_arrives,
    )
    .kept_in(config.storage.dir.join("sim-clock"));
    Ok(Built {
        backend: Box::new(backend.not_before(not_before)),
        settings: config.referee_settings(),
        calibration: None,
        restore,
    })
}

#[cfg(feature = "rpi")]
fn rpi(config: &Config, settings: RefereeSettings) -> Result<Built, ServiceError> {
    let (pins, wiring) = rpi_layout(config)?;
    let matrix = tengen_hal::rpi::open_matrix(&wiring, &pins)
        .map_err(|e| ServiceError::Backend(e.to_string()))?;
    let buttons =
        tengen_hal::rpi::open_buttons(&pins).map_err(|e| ServiceError::Backend(e.to_string()))?;
    let buzzer = if config.voice.style == tengen_table::VoiceStyle::Beep {
        let pin = tengen_hal::rpi::open_indicator(&pins)
            .map_err(|e| ServiceError::Backend(e.to_string()))?;
        if pin.is_none() {
            tracing::warn!(
                "voice.style = \"beep\" but hardware.rpi.pins.led names no pin: the count is not beeped"
            );
        }
        pin.map(|pin| super::rpi_backend::Buzzer {
            pin: Box::new(pin),
            player: tengen_table::BeepPlayer::new(),
            on: false,
        })
    } else {
        None
    };
    Ok(Built {
        backend: Box::new(super::rpi_backend::RpiBackend {
            matrix,
            buttons,
            fault: false,
            buzzer,
        }),
        settings,
        calibration: load_calibration(config)?,
        restore: true,
    })
}

#[cfg(not(feature = "rpi"))]
fn rpi(config: &Config, _settings: RefereeSettings) -> Result<Built, ServiceError> {
    rpi_layout(config)?;
    Err(ServiceError::Backend(
        "hardware.backend = \"rpi\" needs a build with `--features rpi`".into(),
    ))
}

/// The calibration file of `hardware.calibration`; a missing file means the hal's default
/// (with a warning: run `tengen calibrate`), a bad one is an error.
pub(crate) fn load_calibration(config: &Config) -> Result<Option<Calibration>, ServiceError> {
    let path = &config.hardware.calibration;
    if !path.exists() {
        tracing::warn!(
            "{}: no calibration yet, using the default (run `tengen calibrate`)",
            path.display()
        );
        return Ok(None);
    }
    Calibration::load_for(path, config.board.size)
        .map(Some)
        .map_err(|e| ServiceError::Config(e.to_string()))
}
