//! `tengen sim` (SPEC.md, "Command line"): the whole pipeline (simulated hardware ->
//! stabiliser -> referee -> clock -> outputs) on virtual time.
//!
//! Virtual time starts at a fixed epoch ([`EPOCH_UNIX_MS`], 2026-01-01T00:00:00.000Z), so
//! the `time` fields are deterministic: the same seed and input give the same files, byte
//! for byte. Board and game ids come from the config (`sim`/`sim` without one).

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant, UNIX_EPOCH};

use tengen_hal::Millis;
use tengen_rules::sgf;
use tengen_sim::{GameOptions, Script, SimOptions, Simulation};

use super::args::SimArgs;
use super::CliError;
use crate::config::Config;
use crate::event::{Envelope, Event};
use crate::pipeline::Pipeline;
use crate::referee::{RefereeSettings, Side};

/// Virtual time 0 of `tengen sim`, in ms since the Unix epoch: 2026-01-01T00:00:00.000Z.
pub const EPOCH_UNIX_MS: u64 = 1_767_225_600_000;

/// UTC with milliseconds (`2026-01-01T00:00:01.250Z`) for ms since the Unix epoch.
pub fn utc_millis(unix_ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(unix_ms)).to_string()
}

/// Everything one simulated run produced.
#[derive(Debug, Clone)]
pub struct SimRun {
    /// Every event with the virtual time (ms) it was emitted at.
    pub events: Vec<(Millis, Event)>,
    /// The pipeline at the end (referee, record, stable board).
    pub pipeline: Pipeline,
}

/// Why a simulated run stopped.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The referee could not set the game up.
    #[error("{0}")]
    Setup(#[from] crate::referee::RefereeError),
    /// A scan could not be used.
    #[error("{0}")]
    Pipeline(#[from] crate::pipeline::PipelineError),
}

/// Runs `sim` to its end through a new pipeline for `settings`. With `realtime`, each scan
/// waits for its moment on the wall clock. `on_event` sees each event as it comes.
pub fn run_simulation(
    sim: &mut Simulation,
    settings: RefereeSettings,
    realtime: bool,
    mut on_event: impl FnMut(Millis, &Event),
) -> Result<SimRun, SimError> {
    let start = Instant::now();
    let (mut pipeline, first) = Pipeline::new(settings, None, sim.now())?;
    let mut events: Vec<(Millis, Event)> = Vec::new();
    for e in first {
        on_event(sim.now(), &e);
        events.push((sim.now(), e));
    }
    while let Some((frame, buttons)) = sim.next_scan() {
        if realtime {
            let due = start + Duration::from_millis(frame.time);
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
        for e in pipeline.step(&frame, &buttons)? {
            on_event(frame.time, &e);
            events.push((frame.time, e));
        }
    }
    Ok(SimRun { events, pipeline })
}

/// The referee's settings for a script: the config, overridden by the script's setup lines.
pub fn settings_for_script(config: &Config, script: &Script) -> RefereeSettings {
    let mut s = RefereeSettings::from_config(config);
    let setup = &script.setup;
    if let Some(v) = setup.size {
        s.size = v;
    }
    if let Some(v) = setup.komi {
        s.komi = v;
    }
    if let Some(v) = setup.handicap {
        s.handicap = v;
    }
    if let Some(v) = &setup.time {
        s.time = *v;
    }
    s
}

/// The referee's settings for an SGF game: the config, with the game's size, komi and
/// handicap.
pub fn settings_for_record(config: &Config, record: &sgf::GameRecord) -> RefereeSettings {
    let mut s = RefereeSettings::from_config(config);
    s.size = record.size;
    if let Some(k) = record.komi {
        s.komi = k;
    }
    s.handicap = record.handicap;
    if let Some(b) = &record.black_name {
        s.black = b.clone();
    }
    if let Some(w) = &record.white_name {
        s.white = w.clone();
    }
    s
}

/// The simulator's seat for the referee's `black_side`.
pub fn sim_side(side: Side) -> tengen_sim::Side {
    match side {
        Side::South => tengen_sim::Side::South,
        Side::North => tengen_sim::Side::North,
        Side::East => tengen_sim::Side::East,
        Side::West => tengen_sim::Side::West,
    }
}

fn read(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError::input(format!("{}: {e}", path.display())))
}

/// Runs `tengen sim`.
pub fn run(args: SimArgs) -> Result<(), CliError> {
    let mut config = match &args.config {
        Some(path) => Config::load(path).map_err(|e| {
            CliError::input(e.lines().first().cloned().unwrap_or_else(|| e.to_string()))
        })?,
        None => {
            let mut c = Config::default_for("sim");
            c.board.game = "sim".to_string();
            c
        }
    };
    if let Some(noise) = args.noise {
        if !(0.0..=1.0).contains(&noise) {
            return Err(CliError::input(format!(
                "--noise: {noise} is not a probability (0..1)"
            )));
        }
        config.hardware.sim.noise = noise;
    }
    let mut options = SimOptions::seeded(args.seed);
    options.noise = config.hardware.sim.noise;
    options.scan_hz = config.hardware.scan_hz.max(1);
    options.size = config.board.size;
    let black_side = RefereeSettings::from_config(&config).black_side;
    options.black_side = sim_side(black_side);
    let (mut sim, settings) = if let Some(path) = &args.sgf {
        let text = read(path)?;
        let record =
            sgf::parse(&text).map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
        let sim = Simulation::from_sgf(&record, &options, &GameOptions::default())
            .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
        (sim, settings_for_record(&config, &record))
    } else if let Some(path) = &args.script {
        let text = read(path)?;
        let name = path.display().to_string();
        let script =
            Script::parse(&text).map_err(|e| CliError::input(e.with_source(&name).to_string()))?;
        let sim = Simulation::from_parsed(&script, &options)
            .map_err(|e| CliError::input(e.with_source(&name).to_string()))?;
        (sim, settings_for_script(&config, &script))
    } else {
        return Err(CliError::input(
            "tengen sim: give --sgf FILE or --script FILE",
        ));
    };
    let mut out: Box<dyn Write> = match &args.events {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| CliError::work(format!("{}: {e}", path.display())))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    let board = config.board.id.clone();
    let game = config.board.game.clone();
    let realtime = args.realtime;
    let wall_start = std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let mut seq = 0u64;
    let mut write_error: Option<std::io::Error> = None;
    // With --broker, every event is kept to be published once the run is over.
    let mut for_broker: Vec<Envelope> = Vec::new();
    let keep_for_broker = args.broker.is_some();
    let run = run_simulation(&mut sim, settings, realtime, |t, e| {
        seq += 1;
        let base = if realtime { wall_start } else { EPOCH_UNIX_MS };
        let env = Envelope {
            seq,
            time: utc_millis(base + t),
            board: board.clone(),
            game: game.clone(),
            by: None,
            event: e.clone(),
        };
        if keep_for_broker {
            for_broker.push(env.clone());
        }
        if write_error.is_none() {
            let line = serde_json::to_string(&env).unwrap_or_default();
            if let Err(err) = writeln!(out, "{line}") {
                write_error = Some(err);
            }
        }
    })
    .map_err(|e| CliError::work(format!("tengen sim: {e}")))?;
    if let Some(err) = write_error {
        return Err(CliError::work(format!("writing events: {err}")));
    }
    out.flush()
        .map_err(|e| CliError::work(format!("writing events: {e}")))?;
    if let Some(path) = &args.sgf_out {
        let text = sgf::write(&run.pipeline.referee().sgf_record());
        std::fs::write(path, text)
            .map_err(|e| CliError::work(format!("{}: {e}", path.display())))?;
    }
    if let Some(url) = &args.broker {
        publish_to_broker(url, &config, &run, for_broker)?;
    }
    Ok(())
}

/// `--broker URL`: publishes the run's events and its final `state`, `sgf` and
/// `alerts/active` to the broker, and returns once the broker acknowledged every message.
fn publish_to_broker(
    url: &str,
    config: &Config,
    run: &SimRun,
    events: Vec<Envelope>,
) -> Result<(), CliError> {
    use crate::mqtt::{batch, wiring, Retained};
    let topics = wiring::topics(config).map_err(|e| CliError::input(e.to_string()))?;
    let mut alerts = wiring::ActiveAlerts::default();
    for e in &events {
        alerts.apply(e);
    }
    let mut state = run.pipeline.referee().snapshot();
    if let Some(obj) = state.as_object_mut() {
        obj.insert("seq".to_string(), events.len().into());
    }
    let retained = Retained {
        state: Some(state.to_string()),
        sgf: Some(sgf::write(&run.pipeline.referee().sgf_record())),
        alerts_active: Some(alerts.to_json()),
    };
    batch::publish_and_wait(url, topics, events, retained, Duration::from_secs(60)).map_err(
        |e| match e {
            batch::BatchError::Url(_) | batch::BatchError::Events(_) => {
                CliError::input(e.to_string())
            }
            _ => CliError::work(e.to_string()),
        },
    )?;
    Ok(())
}
