//! `tengen run` as systemd runs it: a sim-backed board plays a short script through the
//! whole pipeline, journals and writes its SGF; SIGTERM ends it with `status offline` and
//! exit 0; a restart takes the same game up with the next seq.

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use tengen_daemon::journal::Journal;
use tengen_protocol::event::BoardState;
use tengen_protocol::Event;

const SCRIPT: &str = "size 9\nplace B C3\npress B\nplace W G7\npress W\nplace B E5\npress B\n";

/// A port free right now (for the embedded broker, which needs a fixed one).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn config(dir: &Path) -> std::path::PathBuf {
    std::fs::write(dir.join("game.txt"), SCRIPT).unwrap();
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"test-01\"\ngame = \"g1\"\nsize = 9\n\
         [hardware]\nbackend = \"sim\"\n[hardware.sim]\nscript = \"game.txt\"\nspeed = 20.0\n\
         [time]\nsystem = \"none\"\n[storage]\ndir = \"data\"\n\
         [http]\nlisten = \"127.0.0.1:0\"\n[mqtt]\nlisten = \"127.0.0.1:{}\"\n",
            free_port()
        ),
    )
    .unwrap();
    path
}

fn spawn(config: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["run", "--config", config.to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .spawn()
        .unwrap()
}

/// Waits (up to a minute) until `file` holds `needle`.
fn wait_for(file: &Path, needle: &str) {
    let start = Instant::now();
    loop {
        if std::fs::read_to_string(file).is_ok_and(|t| t.contains(needle)) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} never held {needle}",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn terminate(mut child: Child) -> i32 {
    let ok = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    child.wait().unwrap().code().unwrap_or(-1)
}

#[test]
fn run_plays_journals_and_stops_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let data = dir.path().join("data");

    let child = spawn(&cfg);
    wait_for(&data.join("game-g1.sgf"), "B[ee]");
    assert_eq!(terminate(child), 0);

    let (journal, recovery) = Journal::open(&data, "test-01").unwrap();
    assert_eq!(
        recovery.truncated_at, None,
        "a clean stop leaves no torn tail"
    );
    let all = journal.read_from(1).unwrap();
    let moves: Vec<_> = all
        .iter()
        .filter_map(|e| match &e.event {
            Event::Move { number, point, .. } => Some(format!("{number} {point}")),
            _ => None,
        })
        .collect();
    assert_eq!(moves, ["1 C3", "2 G7", "3 E5"]);
    assert!(matches!(&all[0].event, Event::GameStarted(s) if s.size == 9));
    assert!(matches!(
        &all.last().unwrap().event,
        Event::Status {
            state: BoardState::Offline,
            ..
        }
    ));
    assert!(all.iter().all(|e| e.board == "test-01" && e.game == "g1"));
    let seqs: Vec<u64> = all.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=all.len() as u64).collect::<Vec<_>>());
    let last = journal.last_seq();
    drop(journal);

    // Restarted, the simulated board takes its game up where the journal ends (here:
    // every action is done, so it only shows the position); seq goes on, same game.
    let child = spawn(&cfg);
    let start = Instant::now();
    loop {
        let (journal, _) = Journal::open(&data, "test-01").unwrap();
        let online = journal.read_from(last + 1).unwrap().iter().any(|e| {
            matches!(
                &e.event,
                Event::Status {
                    state: BoardState::Online,
                    ..
                }
            )
        });
        if online {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no status online"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(terminate(child), 0);
    let (journal, _) = Journal::open(&data, "test-01").unwrap();
    let second = journal.read_from(last + 1).unwrap();
    assert_eq!(second[0].seq, last + 1);
    assert!(matches!(
        &second[0].event,
        Event::Status {
            state: BoardState::Restoring,
            ..
        }
    ));
    let kinds: Vec<&str> = second
        .iter()
        .map(|e| match &e.event {
            Event::Status { state, .. } => state.as_str(),
            Event::Alert(a) => a.code.as_str(),
            _ => "other",
        })
        .collect();
    // The game was not over: the arbiter is told the board restarted. Nothing replayed.
    assert_eq!(
        kinds,
        ["restoring", "board_restarted", "online", "offline"],
        "nothing replayed"
    );
    assert!(second.iter().all(|e| e.game == "g1"));
    assert!(std::fs::read_to_string(data.join("game-g1.sgf"))
        .unwrap()
        .contains("B[ee]"));
}

#[test]
fn a_bad_config_exits_2_and_an_unusable_backend_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[board]\nid = \"x\"\n[time]\nperods = 3\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["run", "--config", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("time.perods: unknown key"));

    let missing = dir.path().join("missing.toml");
    std::fs::write(
        &missing,
        format!(
            "[board]\nid = \"x\"\n[hardware.sim]\nsgf = \"nope.sgf\"\n[storage]\ndir = \"{}\"\n",
            dir.path().join("d").display()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["run", "--config", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope.sgf"), "{err}");
}
