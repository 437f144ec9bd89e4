//! `tengen sim` (docs/operating.md, "Commands"): the whole pipeline (simulated hardware ->
//! stabiliser -> referee -> clock -> outputs) on virtual time.
//!
//! A game whose clocks wait for an arbiter (`game.clock_start = "arbiter"` or `"white"`)
//! has no arbiter here: play begins at once, with the `resume` an arbiter's *Begin play*
//! sends (its `clock` event follows `game_started`), and one line on stderr says so.
//!
//! Virtual time starts at a fixed epoch ([`EPOCH_UNIX_MS`], 2026-01-01T00:00:00.000Z), so
//! the `time` fields are deterministic: the same seed and input give the same files, byte
//! for byte. Board and game ids come from the config (`sim`/`sim` without one).

use std::io::Write;
use std::time::{Duration, Instant};

use tengen_hal::{ButtonEvent, Millis, PointState};
use tengen_protocol::frames::{FramesEncoder, FramesHeader, MAGIC};
use tengen_protocol::{Command, CommandEnvelope, Envelope, Event, GameView, Timestamp};
use tengen_referee::{Pipeline, RefereeSettings};
use tengen_sim::{GameOptions, Simulation};

use super::args::SimArgs;
use super::sim_table::SimTable;
use super::CliError;
use crate::config::Config;
use crate::sim_game;

/// Virtual time 0 of `tengen sim`, in ms since the Unix epoch: 2026-01-01T00:00:00.000Z.
pub(super) const EPOCH_UNIX_MS: u64 = 1_767_225_600_000;

/// Why a simulated run stopped.
#[derive(Debug, thiserror::Error)]
pub(super) enum SimError {
    /// The referee could not set the game up.
    #[error("{0}")]
    Setup(#[from] tengen_referee::RefereeError),
    /// A scan could not be used.
    #[error("{0}")]
    Pipeline(#[from] tengen_referee::PipelineError),
}

/// What a simulated run reports as it goes.
pub(super) enum SimStep<'a> {
    /// An event, at the virtual time (ms) it happened.
    Event(Millis, &'a Event),
    /// A scan was handled (its events reported first), at its virtual time: what a board's
    /// loop does once per turn happens here. With what the sensors saw and the buttons.
    Scanned(Millis, &'a [PointState], &'a [ButtonEvent]),
}

/// Runs `sim` to its end through a new pipeline for `settings`. With `realtime`, each scan
/// waits for its moment on the wall clock. `on_step` sees each event as it comes and each
/// scan once handled. Returns the pipeline at the end.
pub(super) fn run_simulation(
    sim: &mut Simulation,
    settings: RefereeSettings,
    realtime: bool,
    mut on_step: impl FnMut(SimStep<'_>),
) -> Result<Pipeline, SimError> {
    let start = Instant::now();
    let waits = settings.game.clock_start;
    let (mut pipeline, first) = Pipeline::new(settings, None, sim.now())?;
    for e in first {
        on_step(SimStep::Event(sim.now(), &e));
    }
    if !waits.is_now() {
        // The game waits for an arbiter's Begin play, and no arbiter is here: the
        // simulation begins play at once, as the arbiter's `resume` would.
        eprintln!(
            "tengen sim: game.clock_start = \"{}\" and no arbiter here: play begins at once",
            waits.as_str()
        );
        let begin = CommandEnvelope {
            id: "begin-play".into(),
            by: None,
            command: Command::Resume {},
        };
        match pipeline.command(&begin, sim.now()) {
            Ok(events) => {
                for e in events {
                    on_step(SimStep::Event(sim.now(), &e));
                }
            }
            Err(why) => tracing::warn!("beginning play: {why}"),
        }
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
            on_step(SimStep::Event(frame.time, &e));
        }
        on_step(SimStep::Scanned(frame.time, pipeline.seen(), &buttons));
    }
    Ok(pipeline)
}

/// Runs `tengen sim`.
pub(super) fn run(args: SimArgs) -> Result<(), CliError> {
    let mut config = match &args.config {
        Some(path) => Config::load(path).map_err(|e| CliError::config(&e))?,
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
    config.hardware.sim.seed = args.seed;
    let options = sim_game::options(&config);
    let game = if let Some(path) = &args.sgf {
        sim_game::from_record(&config, path, &options, &GameOptions::default())
    } else if let Some(path) = &args.script {
        sim_game::from_script(&config, path, &options)
    } else {
        return Err(CliError::input(
            "tengen sim: give --sgf FILE or --script FILE",
        ));
    };
    let (mut sim, settings) = game.map_err(|e| CliError::input(e.to_string()))?;
    let mut out: Box<dyn Write> = match &args.events {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| CliError::work(format!("{}: {e}", path.display())))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    let board = config.board.id.clone();
    let game = config.board.game.clone();
    let base = if args.realtime {
        Timestamp::now().millis()
    } else {
        EPOCH_UNIX_MS
    };
    let mut seq = 0u64;
    let mut write_error: Option<std::io::Error> = None;
    // The run's events as the outputs of a board fold them (the SGF, the final state).
    let mut view = GameView::new();
    // With --broker, every event is kept to be published once the run is over.
    let mut for_broker: Vec<Envelope> = Vec::new();
    let keep_for_broker = args.broker.is_some();
    let mut end = Timestamp::from_millis(base);
    let mut table = SimTable::new(&args, &config)?;
    let mut table_error: Option<CliError> = None;
    let mut frames = match &args.frames_out {
        Some(path) => Some(FramesOut::create(path, &board, &game, sim.size(), base)?),
        None => None,
    };
    run_simulation(&mut sim, settings, args.realtime, |step| {
        let (t, e) = match step {
            SimStep::Event(t, e) => (t, e),
            SimStep::Scanned(t, seen, buttons) => {
                if let Some(frames) = &mut frames {
                    frames.scan(t, seen, buttons);
                }
                if let (Some(table), None) = (&mut table, &table_error) {
                    let now = Timestamp::from_millis(base + t).max(end);
                    if let Err(e) = table.poll(&view, now) {
                        table_error = Some(e);
                    }
                }
                return;
            }
        };
        seq += 1;
        end = Timestamp::from_millis(base + t);
        let env = Envelope {
            seq,
            time: end,
            board: board.clone(),
            game: game.clone(),
            by: None,
            event: e.clone(),
        };
        if let Err(why) = view.apply_envelope(&env) {
            tracing::warn!("event {seq}: {why}");
        }
        if let Some(table) = &mut table {
            table.on_event(&env.event, env.time);
        }
        if write_error.is_none() {
            if let Err(err) = writeln!(out, "{}", env.to_json()) {
                write_error = Some(err);
            }
        }
        if keep_for_broker {
            for_broker.push(env);
        }
    })
    .map_err(|e| CliError::work(format!("tengen sim: {e}")))?;
    if let Some(err) = write_error {
        return Err(CliError::work(format!("writing events: {err}")));
    }
    if let Some(err) = table_error {
        return Err(err);
    }
    if let Some(table) = table {
        table.finish(end)?;
    }
    if let Some(frames) = frames {
        frames.finish()?;
    }
    out.flush()
        .map_err(|e| CliError::work(format!("writing events: {e}")))?;
    if let Some(path) = &args.sgf_out {
        std::fs::write(path, view.sgf(true))
            .map_err(|e| CliError::work(format!("{}: {e}", path.display())))?;
    }
    if let Some(url) = &args.broker {
        publish_to_broker(url, &config, &view, end, for_broker)?;
    }
    Ok(())
}

/// `--frames-out FILE`: the black box of the simulated game, as a board writes it.
struct FramesOut {
    path: std::path::PathBuf,
    out: std::io::BufWriter<std::fs::File>,
    encoder: FramesEncoder,
    seen: Vec<tengen_protocol::frames::Seen>,
    error: Option<std::io::Error>,
}

impl FramesOut {
    fn create(
        path: &std::path::Path,
        board: &str,
        game: &str,
        size: u8,
        start_ms: u64,
    ) -> Result<FramesOut, CliError> {
        let fail =
            |e: std::io::Error| CliError::work(format!("--frames-out {}: {e}", path.display()));
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
        out.write_all(MAGIC).map_err(fail)?;
        Ok(FramesOut {
            path: path.to_path_buf(),
            out,
            encoder: FramesEncoder::new(FramesHeader::new(board, game, size, start_ms)),
            seen: Vec::new(),
            error: None,
        })
    }

    fn scan(&mut self, t: Millis, seen: &[PointState], buttons: &[ButtonEvent]) {
        self.seen.clear();
        self.seen
            .extend(seen.iter().map(|s| crate::black_box::seen_of(*s)));
        self.encoder
            .scan(t, &self.seen, &crate::black_box::presses_of(buttons));
        let bytes = self.encoder.take(t);
        if self.error.is_none() && !bytes.is_empty() {
            self.error = self.out.write_all(&bytes).err();
        }
    }

    fn finish(mut self) -> Result<(), CliError> {
        let bytes = self.encoder.finish();
        let result = match self.error.take() {
            Some(e) => Err(e),
            None => self.out.write_all(&bytes).and_then(|()| self.out.flush()),
        };
        result.map_err(|e| CliError::work(format!("--frames-out {}: {e}", self.path.display())))
    }
}

/// `--broker URL`: publishes the run's events and its final `state`, `sgf` and
/// `alerts/active` to the broker, and returns once the broker acknowledged every message.
fn publish_to_broker(
    url: &str,
    config: &Config,
    view: &GameView,
    end: Timestamp,
    events: Vec<Envelope>,
) -> Result<(), CliError> {
    use crate::mqtt::{batch, board_config, Retained};
    let topics = board_config::topics(config).map_err(|e| CliError::input(e.to_string()))?;
    let retained = Retained {
        state: view.snapshot(end).map(|s| s.to_value().to_string()),
        sgf: Some(view.sgf(true)),
        alerts_active: Some(view.active_alerts_json()),
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
