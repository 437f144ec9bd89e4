//! Fault campaign, the service's half (issue #7): the real `tengen run` on the sim backend,
//! a real mosquitto, and a consumer de-duplicating by seq, under
//!
//! - broker restarts (mosquitto SIGKILLed and started again: no session survives), and
//!   restarts of a broker that keeps its sessions (`persistence true`, stopped cleanly);
//! - network cuts between the board and the broker (a TCP proxy drops every connection and
//!   refuses new ones for a second);
//! - silent network cuts (the proxy stops every byte for 10 s and closes nothing: the
//!   broker and the board find out by their keep-alive, 5 s here);
//! - the service SIGKILLed at random moments and restarted;
//! - a journal torn inside its last record (a write cut by a power loss), and a journal
//!   cut anywhere (a disk that lost synced, published records).
//!
//! Each scenario prints one `FAULT` line: runs, events lost (must be 0), raw duplicate
//! messages, duplicates left after de-duplication that differ from the first copy (must be
//! 0), seqs that needed a `republish`, and the time to recover (from the restart, the
//! broker back or the link back, to the first new event at the consumer).
//!
//! Short form (the default, in `cargo test`): a few runs of each. Long form:
//! `TENGEN_FAULT_RUNS=50 cargo test -p tengen-daemon --test realtime fault_service -- --nocapture
//! --test-threads 1` (50 kills and torn journals, 20 broker restarts and network cuts, 10
//! silent cuts and journals cut anywhere).

use crate::board;
use crate::broker;

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use board::{median_ms, BoardProcess, Consumer};
use rand::{Rng, SeedableRng};
use tengen_daemon::journal::Journal;
use tengen_protocol::event::{BoardState, FaultKind};
use tengen_protocol::framing;
use tengen_protocol::Event;

/// `TENGEN_FAULT_RUNS` (the long form), or `None` for the short form.
fn long_runs() -> Option<usize> {
    std::env::var("TENGEN_FAULT_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| *n > 0)
}

fn runs(short: usize, cap: usize) -> usize {
    long_runs().map_or(short, |n| n.min(cap))
}

/// The fixture game's length in game time (ms), as the service's simulator plays it.
fn game_ms() -> u64 {
    let text = std::fs::read_to_string(board::game_sgf()).unwrap();
    let record = tengen_rules::sgf::parse(&text).unwrap();
    let mut options = tengen_sim::SimOptions::seeded(7);
    options.size = 9;
    tengen_sim::Simulation::from_sgf(&record, &options, &tengen_sim::GameOptions::default())
        .unwrap()
        .end_time()
}

/// A speed at which the game lasts about `wall` (so every fault lands mid-game).
fn speed_for(wall: Duration) -> f64 {
    (game_ms() as f64 / wall.as_millis().max(1) as f64).clamp(1.0, 60.0)
}

/// The figures of one scenario.
#[derive(Debug, Default)]
struct Figures {
    runs: usize,
    events: u64,
    lost: u64,
    raw_duplicates: u64,
    conflicts: u64,
    republished: u64,
    recover_ms: Vec<f64>,
}

impl Figures {
    fn print(&self, name: &str) {
        let max = self.recover_ms.iter().copied().fold(0.0, f64::max);
        eprintln!(
            "FAULT {name}: runs {} events {} lost {} raw_duplicates {} conflicting_duplicates {} \
             republished {} recover_median_ms {:.0} recover_max_ms {:.0}",
            self.runs,
            self.events,
            self.lost,
            self.raw_duplicates,
            self.conflicts,
            self.republished,
            median_ms(self.recover_ms.clone()),
            max
        );
    }

    fn assert_clean(&self) {
        assert_eq!(self.lost, 0, "events lost: {self:?}");
        assert_eq!(self.conflicts, 0, "an event was numbered again: {self:?}");
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    BrokerRestart,
    PersistentBrokerRestart,
    NetworkCut,
    SilentCut,
    Kill,
}

/// How long a silent cut lasts: longer than the broker's keep-alive timeout for the board
/// (1.5 x its 5 s), so the broker drops the board's session and sends its will.
const SILENCE: Duration = Duration::from_secs(10);

/// Runs [`campaign`], prints its `FAULT` line as `name` and checks that nothing was lost
/// or numbered again (nothing to do without mosquitto).
async fn lose_nothing(fault: Fault, runs: usize, seed: u64, name: &str) {
    if let Some(f) = campaign(fault, runs, seed).await {
        f.print(name);
        f.assert_clean();
    }
}

/// Plays the game with `runs` faults of one kind at random moments, then checks the
/// consumer against the journal (filling gaps with `republish` as a hall would). `None`
/// without mosquitto.
async fn campaign(fault: Fault, runs: usize, seed: u64) -> Option<Figures> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let mut mosquitto = match fault {
        Fault::PersistentBrokerRestart => broker::Mosquitto::start_with(&format!(
            "persistence true\npersistence_location {}/\n",
            dir.path().display()
        )),
        _ => broker::Mosquitto::start(),
    }?;
    let broker_addr = SocketAddr::from(([127, 0, 0, 1], mosquitto.port()));
    let proxy = board::Proxy::start(broker_addr).await;
    let url = match fault {
        Fault::NetworkCut | Fault::SilentCut => format!("mqtt://{}", proxy.addr),
        _ => mosquitto.url(),
    };
    // About 1.5 s of game between faults, plus the fault itself.
    let per_fault = match fault {
        Fault::Kill => 2.5,
        Fault::BrokerRestart | Fault::PersistentBrokerRestart => 2.5,
        Fault::NetworkCut => 3.0,
        Fault::SilentCut => 12.0,
    };
    let speed = speed_for(Duration::from_secs_f64(runs as f64 * per_fault + 4.0));
    let cfg = board::write_config(dir.path(), &url, speed);
    let consumer = Consumer::connect(mosquitto.port(), &format!("fault-{seed}")).await;
    let mut process = BoardProcess::start(&cfg);
    let mut figures = Figures::default();
    for _ in 0..runs {
        let wait = rng.random_range(300..1200);
        tokio::time::sleep(Duration::from_millis(wait)).await;
        process.assert_running();
        if consumer.with(|s| s.game_over()) {
            break;
        }
        let before = consumer.with(|s| s.max_seq());
        let back = match fault {
            Fault::Kill => {
                process.kill();
                process.restart();
                Instant::now()
            }
            Fault::BrokerRestart => {
                mosquitto.restart();
                Instant::now()
            }
            Fault::PersistentBrokerRestart => {
                mosquitto.stop();
                mosquitto.restart();
                Instant::now()
            }
            Fault::NetworkCut => {
                proxy.cut();
                tokio::time::sleep(Duration::from_millis(1000)).await;
                proxy.restore();
                Instant::now()
            }
            Fault::SilentCut => {
                let silenced = Instant::now();
                proxy.silence();
                tokio::time::sleep(SILENCE).await;
                proxy.restore();
                let back = Instant::now();
                // The board found the silence by its keep-alive and connects again: it says
                // it is online on the new connection. (mosquitto 2.0.11 did not drop the
                // silent connection by its own keep-alive timeout within the 10 s, so no
                // will was sent; the new connection took the session over.)
                let online_again = consumer
                    .wait_until(Duration::from_secs(30), |s| {
                        s.statuses
                            .iter()
                            .any(|(t, state)| *t >= back && state == "online")
                    })
                    .await;
                let statuses: Vec<String> = consumer.with(|s| {
                    s.statuses
                        .iter()
                        .filter(|(t, _)| *t >= silenced)
                        .map(|(_, state)| state.clone())
                        .collect()
                });
                eprintln!("silent cut: statuses from the silence on {statuses:?}");
                assert!(online_again, "silent cut: statuses {statuses:?}");
                back
            }
        };
        figures.runs += 1;
        let recovered = consumer
            .wait_until(Duration::from_secs(30), |s| {
                s.first_new_after(back, before).is_some()
            })
            .await;
        process.assert_running();
        assert!(recovered, "{fault:?}: no new event within 30 s of recovery");
        let at = consumer.with(|s| s.first_new_after(back, before)).unwrap();
        figures
            .recover_ms
            .push(at.duration_since(back).as_secs_f64() * 1000.0);
    }
    if fault == Fault::PersistentBrokerRestart {
        // The broker did keep its sessions: it saved them on each clean stop.
        assert!(
            dir.path().join("mosquitto.db").exists(),
            "no mosquitto.db in {}",
            dir.path().display()
        );
    }
    let over = consumer
        .wait_until(Duration::from_secs(180), |s| s.game_over())
        .await;
    process.assert_running();
    assert!(over, "{fault:?}: the game never ended");
    // Let the last events arrive, then fill what is missing as a hall would.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (before_heal, gaps) = consumer.with(|s| (s.events.len() as u64, s.gaps()));
    if let Some(first) = gaps.first() {
        consumer.republish(*first).await;
        let healed = consumer
            .wait_until(Duration::from_secs(20), |s| s.gaps().is_empty())
            .await;
        assert!(
            healed,
            "{fault:?}: republish did not fill the gaps {gaps:?}"
        );
    }
    figures.republished = consumer.with(|s| s.events.len() as u64) - before_heal;
    assert_eq!(process.terminate(), 0);
    let (journal, _) = Journal::open(&process.data(), board::BOARD).unwrap();
    let all = journal.read_from(1).unwrap();
    let last = journal.last_seq();
    consumer
        .wait_until(Duration::from_secs(20), |s| s.contiguous() == last)
        .await;
    consumer.with(|s| {
        figures.events = last;
        figures.lost = (1..=last).filter(|q| !s.events.contains_key(q)).count() as u64;
        figures.raw_duplicates = s.duplicates;
        figures.conflicts = s.conflicts;
        for env in &all {
            if let Some(v) = s.events.get(&env.seq) {
                if *v != serde_json::to_value(env).unwrap() {
                    figures.conflicts += 1;
                }
            }
        }
        assert_eq!(
            s.moves(),
            board::game_moves(),
            "{fault:?}: the moves are the SGF's"
        );
    });
    assert_eq!(
        all.iter()
            .filter(|e| matches!(e.event, Event::GameStarted(_)))
            .count(),
        1,
        "{fault:?}: one game throughout"
    );
    consumer.stop();
    Some(figures)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broker_restarts_lose_nothing() {
    lose_nothing(Fault::BrokerRestart, runs(2, 20), 11, "broker_restart").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restarts_of_a_broker_that_keeps_sessions_lose_nothing() {
    lose_nothing(
        Fault::PersistentBrokerRestart,
        runs(2, 20),
        16,
        "persistent_broker_restart",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_cuts_lose_nothing() {
    lose_nothing(Fault::NetworkCut, runs(2, 20), 12, "network_cut").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_network_cuts_lose_nothing() {
    lose_nothing(Fault::SilentCut, runs(1, 10), 15, "silent_cut").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkills_at_random_moments_lose_nothing() {
    lose_nothing(Fault::Kill, runs(3, 1000), 13, "sigkill").await;
}

/// Plays the whole game once (fast) and stops cleanly: a journal every event of which was
/// published and acknowledged.
async fn finished_board(dir: &Path, mosquitto: &broker::Mosquitto) -> std::path::PathBuf {
    let cfg = board::write_config(dir, &mosquitto.url(), 60.0);
    let consumer = Consumer::connect(mosquitto.port(), "torn-setup").await;
    let mut process = BoardProcess::start(&cfg);
    let over = consumer
        .wait_until(Duration::from_secs(120), |s| s.game_over())
        .await;
    assert!(over, "the game never ended");
    assert_eq!(process.terminate(), 0);
    consumer.stop();
    cfg
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        // The data folder holds the journal and the black box's `frames/` folder.
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_torn_inside_its_last_record_recovers_and_one_cut_anywhere_is_refused() {
    let Some(mosquitto) = broker::Mosquitto::start() else {
        return;
    };
    let torn_runs = runs(3, 1000);
    let cut_runs = runs(3, 10);
    let mut rng = rand::rngs::StdRng::seed_from_u64(14);
    let base = tempfile::tempdir().unwrap();
    let cfg = finished_board(base.path(), &mosquitto).await;
    let data = base.path().join("data");
    let (journal, _) = Journal::open(&data, board::BOARD).unwrap();
    let last = journal.last_seq();
    let whole = std::fs::read(journal.path()).unwrap();
    let template = journal.read_from(last).unwrap().remove(0);
    drop(journal);

    // A record being written when the power went: seq last+1, cut inside.
    let mut next = template.clone();
    next.seq = last + 1;
    next.event = Event::SensorFault {
        points: vec![],
        kind: FaultKind::LinkLost,
    };
    let torn_record = framing::encode(&serde_json::to_vec(&next).unwrap());
    let mut torn = Figures::default();
    for i in 0..torn_runs {
        let copy = base.path().join(format!("torn-{i}"));
        copy_dir(&data, &copy);
        let cut = rng.random_range(1..torn_record.len());
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(copy.join("events.journal"))
            .unwrap();
        f.write_all(&torn_record[..cut]).unwrap();
        drop(f);
        let run_cfg = base.path().join(format!("torn-{i}.toml"));
        let text = std::fs::read_to_string(&cfg)
            .unwrap()
            .replace("dir = \"data\"", &format!("dir = \"torn-{i}\""));
        std::fs::write(&run_cfg, text).unwrap();
        let consumer = Consumer::connect(mosquitto.port(), &format!("torn-{i}")).await;
        let mut process = BoardProcess::start(&run_cfg);
        let started = process.started;
        let arrived = consumer
            .wait_until(Duration::from_secs(20), |s| {
                s.events.contains_key(&(last + 1))
            })
            .await;
        process.assert_running();
        assert!(
            arrived,
            "run {i} (cut {cut}): seq {} never arrived",
            last + 1
        );
        let at = consumer.with(|s| s.arrived[&(last + 1)]);
        torn.recover_ms
            .push(at.duration_since(started).as_secs_f64() * 1000.0);
        assert_eq!(process.terminate(), 0);
        let (journal, recovery) = Journal::open(&copy, board::BOARD).unwrap();
        let events = journal.read_from(1).unwrap();
        // The journal's published part is intact and the torn event left no trace.
        assert_eq!(
            &std::fs::read(journal.path()).unwrap()[..whole.len()],
            &whole[..]
        );
        assert_eq!(
            recovery.truncated_at, None,
            "the restart already cut the tail"
        );
        assert!(matches!(
            &events[last as usize].event,
            Event::Status {
                state: BoardState::Restoring,
                ..
            }
        ));
        assert!(events.iter().all(|e| !matches!(
            &e.event,
            Event::SensorFault {
                kind: FaultKind::LinkLost,
                ..
            }
        )));
        consumer.with(|s| {
            assert!(s.events.keys().all(|q| *q > last), "only new events arrive");
            torn.events += s.events.len() as u64;
            torn.raw_duplicates += s.duplicates;
            torn.conflicts += s.conflicts;
        });
        consumer.stop();
        torn.runs += 1;
    }
    torn.print("journal_torn_tail");
    torn.assert_clean();

    // Cut anywhere: published records are gone. The service must refuse with one line.
    let mut refused = 0;
    for i in 0..cut_runs {
        let copy = base.path().join(format!("cut-{i}"));
        copy_dir(&data, &copy);
        let cut = rng.random_range(0..whole.len() as u64 - 1);
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(copy.join("events.journal"))
            .unwrap();
        f.set_len(cut).unwrap();
        drop(f);
        let run_cfg = base.path().join(format!("cut-{i}.toml"));
        let text = std::fs::read_to_string(&cfg)
            .unwrap()
            .replace("dir = \"data\"", &format!("dir = \"cut-{i}\""));
        std::fs::write(&run_cfg, text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["run", "--config", run_cfg.to_str().unwrap()])
            .env("RUST_LOG", "off")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "cut at {cut}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "cut at {cut}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            err.contains(&format!("seq {last} was already published")),
            "cut at {cut}: {err}"
        );
        refused += 1;
    }
    eprintln!("FAULT journal_cut_anywhere: runs {cut_runs} refused {refused} (one line, exit 1)");
}
