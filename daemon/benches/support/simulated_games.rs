//! Simulated games for the load benches (`hall_scale`, `feed_pollers`): a real game (an SGF
//! of the repo) run through the simulator and the board's whole pipeline once, each scan's
//! events kept with the state and SGF after it, for every simulated board to replay at its
//! own pace. Included by each bench with `#[path]`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use tengen_daemon::config::Config;
use tengen_daemon::sim_game::settings_for_record;
use tengen_protocol::{Event, Timestamp};
use tengen_referee::Pipeline;
use tengen_rules::sgf;
use tengen_sim::{GameOptions, SimOptions, Simulation};

/// Why a bench stopped.
pub(crate) type Failure = Box<dyn std::error::Error + Send + Sync>;

/// What one scan of a simulated game produced: its events, and the state and SGF after it.
pub(crate) struct Batch {
    /// Virtual ms since the game's start.
    pub(crate) at: u64,
    /// The events of the scan.
    pub(crate) events: Vec<Event>,
    /// The `state` snapshot after it.
    pub(crate) state: Value,
    /// The SGF after this batch, when it changed.
    pub(crate) sgf: Option<Arc<str>>,
}

/// One simulated game, replayed by every board that plays it.
pub(crate) struct Game {
    /// The SGF's file name.
    pub(crate) name: String,
    /// Its scans that produced events, in order.
    pub(crate) batches: Vec<Batch>,
}

/// The repo's 19x19 fixture games and the Ear-Reddening game.
pub(crate) fn default_games() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut v: Vec<PathBuf> = std::fs::read_dir(root.join("rules/tests/fixtures/gnugo/games/19"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v.push(root.join("daemon/assets/ear-reddening.sgf"));
    v
}

/// Runs `path`'s game through the simulator and the pipeline, keeping each scan's events
/// with the state and SGF after it.
pub(crate) fn simulate(path: &Path, seed: u64) -> Result<Game, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let record = sgf::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut options = SimOptions::seeded(seed);
    options.size = record.size;
    let mut sim = Simulation::from_sgf(&record, &options, &GameOptions::default())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let config = Config::default_for("bench");
    let settings = settings_for_record(&config, &record);
    let start = sim.now();
    let (mut pipeline, first) =
        Pipeline::new(settings, None, start).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut last_sgf = String::new();
    let mut batch = |at: u64, events: Vec<Event>, p: &Pipeline| {
        let view = p.referee().view();
        let sgf = view.sgf(true);
        let changed = sgf != last_sgf;
        if changed {
            last_sgf = sgf.clone();
        }
        Batch {
            at,
            events,
            state: view
                .snapshot(Timestamp::from_millis(start + at))
                .map_or(Value::Null, |s| s.to_value()),
            sgf: changed.then(|| Arc::from(sgf.as_str())),
        }
    };
    let mut batches = vec![batch(0, first, &pipeline)];
    while let Some((frame, buttons)) = sim.next_scan() {
        let events = pipeline
            .step(&frame, &buttons)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if !events.is_empty() {
            batches.push(batch(frame.time - start, events, &pipeline));
        }
    }
    Ok(Game {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        batches,
    })
}
