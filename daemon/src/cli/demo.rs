//! `tengen demo [--http ADDR] [--mqtt ADDR] [--speed X]` (docs/operating.md, "Commands"): the
//! main job on embedded defaults. A simulated board plays the bundled Ear-Reddening game
//! (Shusaku vs Gennan, 1846) with human timing, hands and a little sensor noise through
//! the full service: journal, embedded MQTT broker, live web view. At move 40 (the first
//! capture from move 30 on) the mover presses the clock with a captured stone still on the
//! board and lifts it a moment later, so the arbiter's alert and its restoration show.
//! Events print as readable lines. The journal lives in a temporary directory, so every
//! run starts fresh.

use std::time::Duration;

use tengen_sim::{GameOptions, Violation, ViolationKind};

use super::args::DemoArgs;
use super::CliError;
use crate::config::{Config, SimSource, TimeSystem};
use crate::service::launch::{serve_until_stopped, start_with};
use crate::service::links::{start_links, LinkOptions, ServiceEnds};
use tengen_protocol::describe::describe;

/// The bundled game.
pub(super) const GAME: &str = include_str!("../../assets/ear-reddening.sgf");

/// The move from which the injected violation is looked for.
pub(super) const VIOLATION_FROM_MOVE: usize = 30;

/// The stones left dead on the board at the end of the bundled game, lifted by the players
/// at counting. The record (played under the Japanese rules of 1846) leaves them on the
/// board; this list is GNU Go's `final_status_list dead` for its final position.
pub(super) const DEAD_STONES: &str = "K16,F15,K14,L14,P12,C6,C5,F6,G6,O6,O5,T6";

fn dead_stones() -> Result<Vec<tengen_rules::Point>, CliError> {
    tengen_rules::point::parse_gtp_list(DEAD_STONES, 19)
        .map_err(|e| CliError::work(format!("the demo's dead stones: {e}")))
}

/// Runs `tengen demo`.
pub(super) fn run(args: DemoArgs) -> Result<(), CliError> {
    if !(args.speed > 0.0 && args.speed <= 10_000.0) {
        return Err(CliError::input(format!(
            "--speed: {} is not in 0 < speed <= 10000",
            args.speed
        )));
    }
    let mqtt_listen = args
        .mqtt
        .parse()
        .map_err(|_| CliError::input(format!("--mqtt: {:?} is not an address:port", args.mqtt)))?;
    super::init_logging_quiet();
    let dir = tempfile::Builder::new()
        .prefix("tengen-demo-")
        .tempdir()
        .map_err(|e| CliError::work(format!("temporary directory: {e}")))?;
    let game = dir.path().join("ear-reddening.sgf");
    std::fs::write(&game, GAME).map_err(|e| CliError::work(format!("{}: {e}", game.display())))?;
    let config = demo_config(dir.path(), &game, args.speed);
    let play = GameOptions {
        violations: vec![Violation {
            at_move: VIOLATION_FROM_MOVE,
            kind: ViolationKind::LeaveCapture,
        }],
        dead: dead_stones()?,
        ..GameOptions::default()
    };
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::work(format!("tokio runtime: {e}")))?;
    runtime.block_on(async {
        let service =
            start_with(&config, true, &play).map_err(|e| CliError::work(e.to_string()))?;
        let mut events = service.outputs().subscribe_events();
        let options = LinkOptions {
            http: Some(args.http.clone()),
            mqtt_listen: Some(mqtt_listen),
        };
        let links = match start_links(&config, ServiceEnds::of(&service), &options).await {
            Ok(l) => l,
            Err(e) => {
                service.request_stop();
                let _ = tokio::task::spawn_blocking(move || service.join()).await;
                return Err(CliError::work(e.to_string()));
            }
        };
        println!(
            "tengen demo: Kuwahara Shusaku vs Gennan Inseki (1846), x{} pace",
            args.speed
        );
        println!("  live view  http://{}/", links.http.addr);
        println!(
            "  MQTT       {}   (mosquitto_sub -h {} -p {} -t 'tengen/#' -v)",
            links.broker_url,
            mqtt_listen.ip(),
            mqtt_listen.port()
        );
        println!("  Ctrl-C to stop.\n");
        let mut printed = 0;
        for env in service.journal().read_from(1).unwrap_or_default() {
            printed = env.seq;
            println!("{}", describe(&env));
        }
        let printer = tokio::spawn(async move {
            while let Ok(env) = events.recv().await {
                if env.seq > printed {
                    println!("{}", describe(&env));
                }
            }
        });
        let result = serve_until_stopped(service).await;
        if let Err(e) = links.shutdown(Duration::from_secs(3)).await {
            tracing::warn!("{e}");
        }
        printer.abort();
        result.map_err(|e| CliError::work(e.to_string()))?;
        Ok(())
    })
}

/// The demo board's configuration: the defaults, the bundled game on the simulator at
/// `speed`, a little noise, a byo-yomi clock, storage in `dir`.
pub(super) fn demo_config(dir: &std::path::Path, game: &std::path::Path, speed: f64) -> Config {
    let mut c = Config::default_for("demo-01");
    c.board.game = "ear-reddening".into();
    // A board takes its players from its config, not from the record it plays.
    c.game.black = "Kuwahara Shusaku".into();
    c.game.white = "Gennan Inseki".into();
    c.hardware.sim.source = SimSource::Sgf(game.to_path_buf());
    c.hardware.sim.seed = 1846;
    c.hardware.sim.noise = 0.0002;
    c.hardware.sim.speed = speed;
    c.time.system = TimeSystem::Byoyomi;
    c.time.main_ms = 20 * 60_000;
    c.time.periods = 3;
    c.time.period_ms = 30_000;
    c.storage.dir = dir.to_path_buf();
    c
}
