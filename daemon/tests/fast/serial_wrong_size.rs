//! A microcontroller set up for another board size than the board's config: `tengen run`
//! (`hardware.backend = "serial"`, 9x9) reads a simulated 13x13 microcontroller on a
//! pseudo-terminal (`tengen_mcu::live`) for a few seconds, 100 scans a second. Before, every
//! scan was dropped without a word; now the arbiter gets one `sensor_fault` with kind
//! `wrong_size`, and the log one line (at most one a minute), not one per scan.

use crate::broker::Mosquitto;

use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tengen_daemon::journal::Journal;
use tengen_mcu::live::{LiveBoard, LiveOptions};
use tengen_protocol::event::FaultKind;
use tengen_protocol::Event;
use tengen_sim::{SimOptions, Simulation};

#[test]
fn scans_of_another_size_give_one_sensor_fault_and_one_log_line() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("tty");
    let data = dir.path().join("data");
    let config = dir.path().join("board.toml");
    std::fs::write(
        &config,
        format!(
            "[board]\nid = \"size-01\"\ntournament = \"t\"\nsize = 9\n\
             [hardware]\nbackend = \"serial\"\n[hardware.serial]\npath = \"{}\"\n\
             [time]\nsystem = \"none\"\n[mqtt]\nurl = \"{}\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[storage]\ndir = \"{}\"\n",
            tty.display(),
            broker.url(),
            data.display()
        ),
    )
    .unwrap();
    let stderr = std::fs::File::create(dir.path().join("stderr")).unwrap();
    let mut run = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["run", "--config"])
        .arg(&config)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();

    // A 13x13 microcontroller, scanning an empty board for 4 s.
    let options = SimOptions {
        size: 13,
        lead_in_ms: 500,
        ..SimOptions::seeded(1)
    };
    let sim = Simulation::from_script("size 13\nwait 4s\n", &options).unwrap();
    let live = LiveOptions {
        link: Some(tty.clone()),
        tail_ms: 500,
        ..LiveOptions::default()
    };
    let mut mcu = LiveBoard::new(sim, live, Vec::new(), Box::new(std::io::sink())).unwrap();
    let report = mcu.run(None, &AtomicBool::new(false)).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let _ = Command::new("kill")
        .args(["-TERM", &run.id().to_string()])
        .status();
    let status = run.wait().unwrap();
    assert!(status.success(), "tengen run: {status}");

    let (journal, _) = Journal::open(&data, "size-01").unwrap();
    let faults: Vec<FaultKind> = journal
        .read_from(1)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.event {
            Event::SensorFault { kind, .. } => Some(kind),
            _ => None,
        })
        .collect();
    let wrong = faults
        .iter()
        .filter(|k| **k == FaultKind::WrongSize)
        .count();
    assert_eq!(wrong, 1, "{faults:?} ({report:?})");
    let log = std::fs::read_to_string(dir.path().join("stderr")).unwrap();
    // One line for the scans, one for the hello (sent every second) that announces 13x13.
    let lines = |what: &str| log.lines().filter(|l| l.contains(what)).count();
    assert_eq!(lines("scans of another board size"), 1, "{log}");
    assert_eq!(lines("another board size"), 2, "{log}");
}
