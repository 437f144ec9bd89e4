//! Helpers shared by the referee's tests: a simulated board played through the pipeline,
//! the GNU Go fixture games, and the events read back.

#![allow(dead_code)]

use std::path::PathBuf;

use tengen_hal::Millis;
use tengen_protocol::event::AlertCode;
use tengen_protocol::{Event, GameView, Timestamp};
use tengen_referee::{Pipeline, RefereeSettings};
use tengen_rules::clock::TimeControl;
use tengen_rules::sgf::{self, GameRecord};
use tengen_rules::Point;
use tengen_sim::{GameOptions, Script, SimOptions, Simulation};

/// Everything one simulated run produced.
pub(crate) struct SimRun {
    /// Every event with the virtual time (ms) it happened at.
    pub(crate) events: Vec<(Millis, Event)>,
    /// The pipeline at the end.
    pub(crate) pipeline: Pipeline,
}

impl SimRun {
    /// The events as the one fold reads them.
    pub(crate) fn view(&self) -> GameView {
        let mut v = GameView::new();
        for (t, e) in &self.events {
            v.apply(e, Timestamp::from_millis(*t))
                .expect("own events apply");
        }
        v
    }

    /// The recorded moves and passes.
    pub(crate) fn moves(&self) -> Vec<(tengen_rules::Color, tengen_rules::Move)> {
        self.pipeline
            .referee()
            .view()
            .record()
            .iter()
            .map(|n| (n.color, n.mv))
            .collect()
    }
}

/// Plays `sim` to its end through a new pipeline for `settings`, every scan in order.
pub(crate) fn run(sim: &mut Simulation, settings: RefereeSettings) -> SimRun {
    let (mut pipeline, first) = Pipeline::new(settings, None, sim.now()).expect("pipeline");
    let mut events: Vec<(Millis, Event)> = first.into_iter().map(|e| (sim.now(), e)).collect();
    while let Some((frame, buttons)) = sim.next_scan() {
        for e in pipeline.step(&frame, &buttons).expect("step") {
            events.push((frame.time, e));
        }
    }
    SimRun { events, pipeline }
}

/// The referee's settings for a script: the defaults, with the script's setup lines.
pub(crate) fn settings_for_script(script: &Script) -> RefereeSettings {
    let mut s = RefereeSettings::default();
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

/// The GNU Go fixture games of the rules crate, by size.
pub(crate) fn fixture_games(size: u8) -> Vec<(PathBuf, GameRecord)> {
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
pub(crate) fn settings(record: &GameRecord, time: TimeControl) -> RefereeSettings {
    let mut s = RefereeSettings::default().for_record(record);
    s.game.time_control = time;
    s
}

/// Plays `record` on the simulated board (brisk players) through the pipeline.
pub(crate) fn play_game(
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
pub(crate) fn try_play_game(
    record: &GameRecord,
    seed: u64,
    noise: f64,
    play: GameOptions,
    time: TimeControl,
) -> Option<SimRun> {
    let mut options = SimOptions::seeded(seed);
    options.noise = noise;
    let mut sim = Simulation::from_sgf(record, &options, &play).ok()?;
    Some(run(&mut sim, settings(record, time)))
}

/// Brisk players (short thinking) so whole games stay fast in tests.
pub(crate) fn brisk() -> GameOptions {
    GameOptions {
        think: tengen_sim::ThinkTime::brisk(),
        ..GameOptions::default()
    }
}

/// The alerts in an event list: (code, points).
pub(crate) fn alerts(events: &[(u64, Event)]) -> Vec<(AlertCode, Vec<Point>)> {
    events
        .iter()
        .filter_map(|(_, e)| match e {
            Event::Alert(a) => Some((a.code, a.points.clone())),
            _ => None,
        })
        .collect()
}
