//! Serial and sensor faults, end to end (issue 7, item 4, the serial half): a simulated
//! board on a pseudo-terminal (`tengen_mcu::live`, the engine of `tengen-mcu`) plays a
//! short 9x9 game into `tengen run` (`hardware.backend = "serial"`), which publishes to a
//! real mosquitto; a de-duplicating subscriber in this process takes every event.
//!
//! Each scenario checks: no event lost (every journaled seq arrives), no duplicate seq,
//! the game recorded exactly (every move, nothing invented), and what the arbiter sees
//! (alerts, `sensor_fault` events). The recovery times are printed (`--nocapture`).
//!
//! Short form (in `cargo test --workspace`): one run per scenario, about 15 s each, run in
//! parallel. Long form: `TENGEN_FAULT_RUNS=10 cargo test -p tengen-daemon --test realtime
//! fault_serial -- --nocapture` runs each scenario that many times with other seeds.

use crate::broker;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use broker::{Mosquitto, SubEvent, Subscriber};
use serde_json::Value;
use tengen_daemon::journal::Journal;
use tengen_hal::Millis;
use tengen_mcu::faults::FaultCommand;
use tengen_mcu::live::{wall_us, LiveBoard, LiveOptions};
use tengen_sim::action::Action;
use tengen_sim::{SimOptions, Simulation};

/// Eight moves on 9x9, each stone set down and the clock pressed, with a quiet moment
/// (`wait`) after moves 2 and 5 where faults can happen between moves.
const GAME: &str = "size 9\n\
    place B C3\npress B\nplace W G7\npress W\nwait 4s\n\
    place B C7\npress B\nplace W G3\npress W\nplace B E5\npress B\nwait 4s\n\
    place W E3\npress W\nplace B E7\npress B\nplace W D5\npress W\n";

/// The moves of [`GAME`] as (colour, point).
const MOVES: [(&str, &str); 8] = [
    ("B", "C3"),
    ("W", "G7"),
    ("B", "C7"),
    ("W", "G3"),
    ("B", "E5"),
    ("W", "E3"),
    ("B", "E7"),
    ("W", "D5"),
];

const STABLE_MS: u64 = 150;

/// How many runs per scenario (`TENGEN_FAULT_RUNS`, default 1).
fn runs() -> u64 {
    std::env::var("TENGEN_FAULT_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// What one run gave.
struct Outcome {
    /// Events as the subscriber kept them (first copy of each seq), with arrival (µs).
    events: Vec<(u64, Value)>,
    /// Copies of a seq already seen.
    duplicates: usize,
    /// Journaled seqs that never arrived.
    lost: Vec<u64>,
    /// tengen-mcu's log (plug, fault, move lines).
    log: Vec<Value>,
}

impl Outcome {
    fn of_type(&self, t: &str) -> Vec<&Value> {
        self.events
            .iter()
            .map(|(_, e)| e)
            .filter(|e| e["type"] == t)
            .collect()
    }

    /// The game as recorded: moves not retracted, in order.
    fn moves(&self) -> Vec<(String, String)> {
        let retracted: HashSet<u64> = self
            .of_type("move_retracted")
            .iter()
            .filter_map(|e| e["number"].as_u64())
            .collect();
        self.of_type("move")
            .iter()
            .filter(|e| !e["number"].as_u64().is_some_and(|n| retracted.contains(&n)))
            .map(|e| {
                (
                    e["color"].as_str().unwrap_or("").to_string(),
                    e["point"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    fn alerts(&self) -> Vec<String> {
        self.of_type("alert")
            .iter()
            .map(|e| e["code"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// The `sensor_fault` kinds that arrived while the board ran (when it stops at the
    /// end, its link is lost too).
    fn faults(&self) -> Vec<String> {
        let end = self
            .log
            .iter()
            .find(|r| r["event"] == "end")
            .and_then(|r| r["wall_us"].as_u64())
            .unwrap_or(u64::MAX);
        self.events
            .iter()
            .filter(|(at, e)| *at < end && e["type"] == "sensor_fault")
            .map(|(_, e)| e["kind"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// Arrival of the first event of type `t` (and `kind`, for sensor faults) after `from`.
    fn arrival(&self, t: &str, kind: Option<&str>, from: u64) -> Option<u64> {
        self.events
            .iter()
            .find(|(at, e)| *at >= from && e["type"] == t && kind.is_none_or(|k| e["kind"] == k))
            .map(|(at, _)| *at)
    }

    /// Per move: arrival - stable instant - stable time (ms), by move number.
    fn beyond_stable(&self) -> BTreeMap<u64, f64> {
        let mut stable = BTreeMap::new();
        for r in &self.log {
            if r["event"] == "move" {
                stable.insert(r["number"].as_u64().unwrap_or(0), r["stable_us"].as_u64());
            }
        }
        let mut out = BTreeMap::new();
        for (at, e) in &self.events {
            if e["type"] != "move" {
                continue;
            }
            let n = e["number"].as_u64().unwrap_or(0);
            if let Some(Some(s)) = stable.get(&n) {
                out.insert(n, (*at as f64 - *s as f64) / 1000.0 - STABLE_MS as f64);
            }
        }
        out
    }

    fn fault_at(&self, needle: &str) -> Option<u64> {
        self.log
            .iter()
            .find(|r| {
                r["event"] == "fault" && r["fault"].as_str().is_some_and(|f| f.starts_with(needle))
            })
            .and_then(|r| r["wall_us"].as_u64())
    }

    fn plugs(&self) -> Vec<u64> {
        self.log
            .iter()
            .filter(|r| r["event"] == "plug")
            .filter_map(|r| r["wall_us"].as_u64())
            .collect()
    }

    /// The checks every scenario shares: nothing lost, no duplicate, the game exact.
    fn assert_exact(&self, name: &str) {
        assert!(self.lost.is_empty(), "{name}: events lost: {:?}", self.lost);
        assert_eq!(self.duplicates, 0, "{name}: duplicate seq");
        let want: Vec<(String, String)> = MOVES
            .iter()
            .map(|(c, p)| (c.to_string(), p.to_string()))
            .collect();
        assert_eq!(self.moves(), want, "{name}: the record is not the game");
    }
}

/// The virtual time the `n`-th `press` of [`GAME`] is over (ms), to place faults between
/// moves.
fn after_press(sim: &Simulation, n: usize) -> Millis {
    sim.actions()
        .iter()
        .filter(|a| matches!(a.action, Action::Press { .. }))
        .nth(n - 1)
        .map(|a| a.end)
        .expect("the game has that press")
}

fn write_config(dir: &Path, port: u16) -> std::path::PathBuf {
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"fault-01\"\ntournament = \"t\"\nsize = 9\n\
             [hardware]\nbackend = \"serial\"\n\
             [hardware.serial]\npath = \"{}\"\n\
             [detection]\nstable_ms = {STABLE_MS}\n[time]\nsystem = \"none\"\n\
             [mqtt]\nurl = \"mqtt://127.0.0.1:{port}\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[storage]\ndir = \"{}\"\n",
            dir.join("tty").display(),
            dir.join("data").display()
        ),
    )
    .expect("write the config");
    path
}

fn terminate(mut child: Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

/// Plays [`GAME`] with `faults` (each made by `faults(sim)`, so they can be placed at the
/// game's own times) through `tengen run` and mosquitto. `None` when mosquitto is missing
/// (and not required).
async fn play(seed: u64, faults: impl Fn(&Simulation) -> Vec<String>) -> Option<Outcome> {
    let broker = Mosquitto::start()?;
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write_config(dir.path(), broker.port());
    let options = SimOptions {
        size: 9,
        lead_in_ms: 1500,
        ..SimOptions::seeded(seed)
    };
    let sim = Simulation::from_script(GAME, &options).expect("the game script");
    let commands: Vec<FaultCommand> = faults(&sim)
        .iter()
        .map(|f| FaultCommand::parse(f, 9).expect("fault command"))
        .collect();
    let log_path = dir.path().join("mcu.jsonl");
    let log = std::fs::File::create(&log_path).expect("mcu log");
    let live = LiveOptions {
        link: Some(dir.path().join("tty")),
        tail_ms: 1500,
        seed,
        ..LiveOptions::default()
    };
    let mut board = LiveBoard::new(sim, live, commands, Box::new(log)).expect("live board");

    let mut sub = Subscriber::connect(&broker.url(), "fault-test", &["tengen/+/+/events"]).await;
    let run = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["run", "--config", config.to_str().expect("utf-8 path")])
        .env("RUST_LOG", "error")
        .spawn()
        .expect("start tengen run");
    let board = std::thread::spawn(move || board.run(None, &AtomicBool::new(false)));

    let mut seen = HashSet::new();
    let mut events = Vec::new();
    let mut duplicates = 0;
    let mut collect = |ev: Option<SubEvent>| -> bool {
        match ev {
            Some(SubEvent::Msg(m)) => {
                let at = wall_us();
                let v = m.json();
                let seq = v["seq"].as_u64().unwrap_or(0);
                if seen.insert(seq) {
                    events.push((at, v));
                } else {
                    duplicates += 1;
                }
                true
            }
            Some(SubEvent::Subscribed) => true,
            None => false,
        }
    };
    while !board.is_finished() {
        let ev = sub.next_event(Duration::from_millis(100)).await;
        collect(ev);
    }
    let report = board.join().expect("board thread").expect("board run");
    assert!(report.moves >= MOVES.len(), "the board played the game");
    // What is still on its way.
    while collect(sub.next_event(Duration::from_millis(1500)).await) {}
    terminate(run);
    while collect(sub.next_event(Duration::from_millis(1000)).await) {}
    sub.stop();

    let (journal, _) = Journal::open(&dir.path().join("data"), "fault-01").expect("journal");
    let lost = journal
        .read_from(1)
        .expect("read the journal")
        .iter()
        .filter(|e| !seen.contains(&e.seq))
        // The service's last word may go out after the subscriber stopped listening.
        .filter(|e| !serde_json::to_value(e).is_ok_and(|v| v["state"] == "offline"))
        .map(|e| e.seq)
        .collect();
    let log = std::fs::read_to_string(&log_path)
        .expect("read the mcu log")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    drop(broker);
    Some(Outcome {
        events,
        duplicates,
        lost,
        log,
    })
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unplugged_between_moves_the_board_reconnects_and_loses_nothing() {
    for seed in 0..runs() {
        let Some(o) = play(seed + 1, |sim| {
            vec![format!("at {}ms unplug 1500ms", after_press(sim, 2) + 300)]
        })
        .await
        else {
            return;
        };
        o.assert_exact("unplug");
        let faults = o.faults();
        assert_eq!(faults, ["link_lost", "link_restored"], "sensor faults");
        assert!(o.alerts().is_empty(), "alerts: {:?}", o.alerts());
        let unplug = o.fault_at("unplug").expect("unplug logged");
        let plugs = o.plugs();
        assert_eq!(plugs.len(), 2, "plugged in twice");
        let lost_at = o
            .arrival("sensor_fault", Some("link_lost"), 0)
            .expect("link_lost");
        let back = o
            .arrival("sensor_fault", Some("link_restored"), 0)
            .expect("link_restored");
        println!(
            "unplug run {seed}: link_lost {:.0} ms after the unplug, link_restored {:.0} ms \
             after the replug ({:.0} ms after the unplug)",
            ms(lost_at - unplug),
            ms(back - plugs[1]),
            ms(back - unplug)
        );
        // The reader retries with back-off (100 ms doubling): back within 5 s of the replug.
        assert!(back - plugs[1] < 5_000_000);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_and_corrupted_frames_cost_only_the_damaged_frames() {
    for seed in 0..runs() {
        let Some(o) = play(seed + 1, |_| {
            vec![
                "move 2 garbage 3000".to_string(),
                // 300 ms of frames rejected by their CRC from move 4's touch-down: the
                // stone is stable only 150 ms after the first good frame, and the player's
                // press may come first; the press waits for the stone (before that wait
                // was added, it once read as a pass: see RELIABILITY.md).
                "move 4 corrupt 30".to_string(),
                "move 6 garbage 20000".to_string(),
            ]
        })
        .await
        else {
            return;
        };
        o.assert_exact("garbage");
        assert!(o.alerts().is_empty(), "alerts: {:?}", o.alerts());
        // Usually nothing; under a heavy load the 20,000-byte burst has once made the
        // reader report the link lost and restored (see RELIABILITY.md): it must recover.
        let faults = o.faults();
        assert!(
            faults.is_empty() || faults == ["link_lost", "link_restored"],
            "sensor faults: {faults:?}"
        );
        let beyond = o.beyond_stable();
        println!(
            "garbage run {seed}: sensor faults {faults:?}; ms beyond the stable time per \
             move: {beyond:?}"
        );
        // Move 4's stone is read once the corrupted frames are over (300 ms).
        let late = beyond.get(&4).copied().unwrap_or(f64::MAX);
        assert!(late < 1000.0, "move 4 arrived {late} ms late");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sensor_stuck_empty_under_a_stone_raises_an_alert_until_it_reads_again() {
    for seed in 0..runs() {
        let Some(o) = play(seed + 1, |sim| {
            let t = after_press(sim, 2) + 300;
            vec![
                format!("at {t}ms stuck C3 E"),
                format!("at {}ms stuck C3 off", t + 2000),
            ]
        })
        .await
        else {
            return;
        };
        o.assert_exact("stuck empty");
        let alerts = o.alerts();
        println!(
            "stuck empty run {seed}: alerts {alerts:?}, faults {:?}",
            o.faults()
        );
        assert_eq!(
            alerts.len(),
            1,
            "one alert for the vanished stone: {alerts:?}"
        );
        let cleared = o.of_type("alert_cleared");
        assert_eq!(cleared.len(), 1);
        assert_eq!(cleared[0]["how"], "restored");
        let stuck = o.fault_at("stuck C3 E").expect("stuck logged");
        let raised = o.arrival("alert", None, 0).expect("alert");
        let freed = o.fault_at("stuck C3 off").expect("freed logged");
        let restored = o.arrival("alert_cleared", None, 0).expect("cleared");
        println!(
            "stuck empty run {seed}: alert {:.0} ms after the sensor stuck, cleared {:.0} ms \
             after it read again",
            ms(raised - stuck),
            ms(restored - freed)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sensor_stuck_on_black_on_an_empty_point_raises_an_alert_until_it_reads_again() {
    for seed in 0..runs() {
        let Some(o) = play(seed + 1, |sim| {
            // After move 2 (White's) Black is to move: J9 stuck black would look like
            // Black's move, so it is stuck after move 5 (Black's), White to move.
            let t = after_press(sim, 5) + 300;
            vec![
                format!("at {t}ms stuck J9 B"),
                format!("at {}ms stuck J9 off", t + 2000),
                // A sensor stuck between the bands reads as nothing at all.
                "stuck A9 U".to_string(),
            ]
        })
        .await
        else {
            return;
        };
        o.assert_exact("stuck black");
        let alerts = o.alerts();
        println!(
            "stuck black run {seed}: alerts {alerts:?}, faults {:?}",
            o.faults()
        );
        assert_eq!(
            alerts.len(),
            1,
            "one alert for the phantom stone: {alerts:?}"
        );
        let cleared = o.of_type("alert_cleared");
        assert_eq!(cleared.len(), 1);
        assert_eq!(cleared[0]["how"], "restored");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flickering_sensor_invents_nothing_and_a_light_flicker_delays_a_move_only() {
    for seed in 0..runs() {
        let Some(o) = play(seed + 1, |_| {
            vec![
                // Wrong in half the scans, on a point nobody plays.
                "flicker J1 0.5".to_string(),
                // Wrong in 5% of the scans, on the point of move 5.
                "flicker E5 0.05".to_string(),
            ]
        })
        .await
        else {
            return;
        };
        o.assert_exact("flicker");
        assert!(o.alerts().is_empty(), "alerts: {:?}", o.alerts());
        // Both sensors are reported noisy (J1 within about half a second, E5 within about
        // three), once each, and nothing else is.
        let noisy: Vec<String> = o
            .of_type("sensor_fault")
            .iter()
            .filter(|e| e["kind"] == "noisy")
            .flat_map(|e| e["points"].as_array().cloned().unwrap_or_default())
            .map(|p| p.as_str().unwrap_or("").to_string())
            .collect();
        assert!(noisy.contains(&"J1".to_string()), "noisy: {noisy:?}");
        assert!(
            noisy.iter().all(|p| p == "J1" || p == "E5") && noisy.len() <= 2,
            "noisy: {noisy:?}"
        );
        let beyond = o.beyond_stable();
        println!(
            "flicker run {seed}: noisy {noisy:?}; ms beyond the stable time per move: {beyond:?}"
        );
    }
}
