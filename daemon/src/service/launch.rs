//! Starting and stopping the whole service from a config: storage directory, journal
//! (with recovery), backend, game, scan loop, readiness; then SIGTERM/SIGINT to stop.

use std::time::Duration;

use super::alive::AliveFile;
use super::board_setup::{build_resumed, engine_factory};
use super::disk_watch::{self, DiskWatch};
use super::notify::Notifier;
use super::outputs::Outputs;
use super::players::PlayerOutputs;
use super::recorder::Recorder;
use super::scan_loop::{LoopEnd, Pacer, RealPacer};
use super::{open_game, opening, Parts, Service, ServiceError};
use crate::config::Config;
use crate::journal::Journal;
use crate::mqtt::outbox::AckFile;
use tengen_sim::GameOptions;

/// Opens the board as configured and starts its scan loop. With `exit_when_finished` the
/// loop ends by itself once a simulated game is over (`tengen demo`).
pub(crate) fn start(config: &Config, exit_when_finished: bool) -> Result<Service, ServiceError> {
    start_with(config, exit_when_finished, &GameOptions::default())
}

/// As [`start`], with how the simulated players play an SGF game.
pub(crate) fn start_with(
    config: &Config,
    exit_when_finished: bool,
    play: &GameOptions,
) -> Result<Service, ServiceError> {
    let dir = &config.storage.dir;
    let (journal, recovery) = Journal::open(dir, &config.board.id)?;
    tracing::info!("journal {}: {recovery}", journal.path().display());
    check_published(dir, &journal)?;
    let alive = AliveFile::in_dir(dir);
    let mut recorder = Recorder::new(journal, Outputs::new(), dir)?;
    recorder.watch_storage(
        DiskWatch::start(dir, disk_watch::EVERY),
        config.storage.low_bytes(),
    );
    let opened = opening(&recorder, &alive)?;
    let mut built = build_resumed(config, play, &opened)?;
    if recorder.journal().game().is_empty() {
        recorder.set_game(&config.board.game);
    } else if !built.restore {
        // The simulator replays its game from the start: a new game id, seq goes on.
        let id = format!(
            "{}-{}",
            config.board.game,
            recorder.journal().last_seq() + 1
        );
        recorder.set_game(&id);
    }
    let mut pacer = RealPacer::new(config.hardware.scan_hz);
    let now = built.backend.clock(pacer.now());
    let engine = open_game(
        &mut recorder,
        &opened,
        engine_factory(built.settings, built.calibration, built.restore),
        now,
    )?;
    tracing::info!(
        "board {} game {} on {}, {} Hz",
        config.board.id,
        recorder.journal().game(),
        built.backend.describe(),
        config.hardware.scan_hz
    );
    let players = PlayerOutputs::start(config, recorder.outputs());
    Ok(Service::spawn(Parts {
        engine,
        backend: built.backend,
        recorder,
        pacer: Box::new(pacer),
        notifier: Notifier::from_env(),
        exit_when_finished,
        alive,
    })?
    .with_players(players))
}

/// Tells systemd the service is ready, then waits for SIGTERM or SIGINT (or the loop
/// ending by itself), stops the loop and waits for its `status offline`.
pub(crate) async fn serve_until_stopped(service: Service) -> Result<LoopEnd, ServiceError> {
    use tokio::signal::unix::{signal, SignalKind};
    let notifier = Notifier::from_env();
    let mut term =
        signal(SignalKind::terminate()).map_err(|e| ServiceError::Thread(e.to_string()))?;
    let mut int =
        signal(SignalKind::interrupt()).map_err(|e| ServiceError::Thread(e.to_string()))?;
    notifier.ready("online");
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = tokio::time::sleep(Duration::from_millis(200)) => {
                if service.is_finished() {
                    break;
                }
            }
        }
    }
    notifier.stopping();
    service.request_stop();
    let (_, end) = tokio::task::spawn_blocking(move || service.join())
        .await
        .map_err(|e| ServiceError::Thread(e.to_string()))??;
    Ok(end)
}

/// Refuses a journal that ends before the last event the MQTT publisher saw acknowledged
/// (`{storage.dir}/mqtt-acked`): those events were published, so the journal lost records
/// it had synced (a restored backup, a disk that lied). Going on would give new events the
/// seqs consumers already hold; the operator must put the journal right (or archive both
/// files to start the board afresh).
pub(crate) fn check_published(
    dir: &std::path::Path,
    journal: &Journal,
) -> Result<(), ServiceError> {
    let acks = AckFile::new(dir.join("mqtt-acked"));
    let acked = acks
        .load()
        .map_err(|e| ServiceError::Config(format!("{}: {e}", acks.path().display())))?;
    let last = journal.last_seq();
    if acked > last {
        return Err(ServiceError::Refused(format!(
            "journal {} ends at seq {last} but seq {acked} was already published ({}): \
             events are missing from the journal; refusing to number new events again \
             (restore the journal, or archive both files to start afresh)",
            journal.path().display(),
            acks.path().display()
        )));
    }
    Ok(())
}
