//! `tengen sim` as a command: deterministic files, exit codes, one-line errors.

use std::path::PathBuf;
use std::process::Command;

fn tengen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
}

fn fixture_game() -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rules/tests/fixtures/gnugo/games/9");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture games")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sgf"))
        .collect();
    v.sort();
    v.into_iter().next().expect("a 9x9 fixture game")
}

/// `tengen sim --script SCRIPT`, run to completion.
fn sim_script(script: &std::path::Path) -> std::process::Output {
    tengen()
        .arg("sim")
        .arg("--script")
        .arg(script)
        .output()
        .expect("runs")
}

/// Exit 2 with one line on stderr that names `culprit` (docs/operating.md, "Commands": bad input).
fn bad_input(out: &std::process::Output, culprit: &str) {
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(culprit), "{err}");
}

fn run_sim(input: &[&str], dir: &std::path::Path, tag: &str, seed: &str) -> (Vec<u8>, Vec<u8>) {
    let events = dir.join(format!("{tag}.jsonl"));
    let sgf = dir.join(format!("{tag}.sgf"));
    let out = tengen()
        .arg("sim")
        .args(input)
        .args(["--seed", seed, "--noise", "0.001", "--events"])
        .arg(&events)
        .arg("--sgf-out")
        .arg(&sgf)
        .output()
        .expect("tengen runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        std::fs::read(events).expect("events written"),
        std::fs::read(sgf).expect("sgf written"),
    )
}

#[test]
fn same_seed_same_files_byte_for_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let game = fixture_game();
    let game = game.to_string_lossy().to_string();
    let a = run_sim(&["--sgf", &game], dir.path(), "a", "5");
    let b = run_sim(&["--sgf", &game], dir.path(), "b", "5");
    assert_eq!(a, b);
    let events = String::from_utf8(a.0).expect("utf-8");
    let first = events.lines().next().expect("events");
    let v: serde_json::Value = serde_json::from_str(first).expect("json");
    assert_eq!(v["seq"], 1);
    assert_eq!(v["type"], "game_started");
    assert_eq!(v["board"], "sim");
    assert_eq!(v["time"], "2026-01-01T00:00:00.000Z");
    let last: serde_json::Value =
        serde_json::from_str(events.lines().last().expect("events")).expect("json");
    assert_eq!(last["type"], "game_over");
    // A different seed changes the human timing, so the times differ.
    let c = run_sim(&["--sgf", &game], dir.path(), "c", "6");
    assert_ne!(events.as_bytes(), &c.0[..]);
    // The recorded SGF has the source game's moves.
    let source =
        tengen_rules::sgf::parse(&std::fs::read_to_string(&game).expect("sgf")).expect("sgf");
    let recorded = tengen_rules::sgf::parse(&String::from_utf8(a.1).expect("utf-8")).expect("sgf");
    let mv = |r: &tengen_rules::sgf::GameRecord| {
        r.moves.iter().map(|m| (m.color, m.mv)).collect::<Vec<_>>()
    };
    assert_eq!(mv(&source), mv(&recorded));
    assert!(recorded.result.is_some());
}

#[test]
fn bad_script_exits_2_naming_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("bad.txt");
    std::fs::write(&script, "size 9\nplace B C3\nplaec W D4\n").expect("write");
    let out = sim_script(&script);
    bad_input(&out, "bad.txt:3");
}

#[test]
fn missing_file_is_a_clear_error() {
    let out = tengen()
        .args(["sim", "--sgf", "/nonexistent/game.sgf"])
        .output()
        .expect("runs");
    bad_input(&out, "/nonexistent/game.sgf");
}

#[test]
fn script_events_go_to_stdout_without_events_flag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("s.txt");
    std::fs::write(&script, "size 9\ntime none\nplace B C3\nplace W G7\n").expect("write");
    let out = sim_script(&script);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let moves: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .filter(|v: &serde_json::Value| v["type"] == "move")
        .collect();
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[0]["point"], "C3");
    assert_eq!(moves[1]["point"], "G7");
    assert_eq!(moves[1]["clock"], serde_json::Value::Null);
}
