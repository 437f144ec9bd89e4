//! Helpers shared by the referee's tests: running simulations through the pipeline and
//! reading the events back.

#![allow(dead_code)]

use std::path::PathBuf;

use tengen_daemon::cli::sim::{run_simulation, settings_for_record, SimRun};
use tengen_daemon::config::Config;
use tengen_daemon::event::{AlertCode, Event};
use tengen_daemon::referee::RefereeSettings;
use tengen_rules::clock::TimeControl;
use tengen_rules::sgf::{self, GameRecord};
use tengen_sim::{GameOptions, SimOptions, Simulation};

/// The GNU Go fixture games of the rules crate, by size.
pub fn fixture_games(size: u8) -> Vec<(PathBuf, GameRecord)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rules/tests/fixtures/gnugo/games")
        .join(size.to_string());
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "sgf"));
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            // A fixture that does not read is a failure, never a game silently left out.
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let rec = sgf::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, rec)
        })
        .collect()
}

/// Referee settings for a fixture game, with `time` as the clock.
pub fn settings(record: &GameRecord, time: TimeControl) -> RefereeSettings {
    let mut config = Config::default_for("sim");
    config.board.game = "sim".into();
    let mut s = settings_for_record(&config, record);
    s.time = time;
    s
}

/// Plays `record` on the simulated board (brisk players) through the pipeline.
pub fn play_game(
    record: &GameRecord,
    seed: u64,
    noise: f64,
    play: GameOptions,
    time: TimeControl,
) -> SimRun {
    try_play_game(record, seed, noise, play, time).expect("fixture game plays")
}

/// Like [`play_game`], or `None` when the simulator cannot play the game with these options
/// (e.g. a violation that needs a capture in a game without one).
pub fn try_play_game(
    record: &GameRecord,
    seed: u64,
    noise: f64,
    play: GameOptions,
    time: TimeControl,
) -> Option<SimRun> {
    let mut options = SimOptions::seeded(seed);
    options.noise = noise;
    let mut sim = Simulation::from_sgf(record, &options, &play).ok()?;
    Some(run_simulation(&mut sim, settings(record, time), false, |_, _| {}).expect("pipeline runs"))
}

/// Brisk players (short thinking) so whole games stay fast in tests.
pub fn brisk() -> GameOptions {
    GameOptions {
        think: tengen_sim::ThinkTime::brisk(),
        ..GameOptions::default()
    }
}

/// The alerts in an event list: (code, points).
pub fn alerts(events: &[(u64, Event)]) -> Vec<(AlertCode, Vec<String>)> {
    events
        .iter()
        .filter_map(|(_, e)| match e {
            Event::Alert { code, points, .. } => Some((*code, points.clone())),
            _ => None,
        })
        .collect()
}
