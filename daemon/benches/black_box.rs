//! Reading the black box back (issue 23): a 60-second window of a four-hour 19x19 game's
//! frames file, on the real path of the board's `/api/frames`, `tengen frames --json` and
//! the `frames` command (`black_box::read_window`, then the window as JSON lines), at sensor
//! noise 0.001 and 0.01. Baseline, in the same run: the whole file read and decoded first
//! (`black_box::read`, what every reader did before `parse_window`).
//!
//! The files are written by `tengen sim --frames-out` from a script: 40 moves, then four
//! hours of a board whose sensors read wrong at the given rate (what fills a frames file:
//! each wrong reading is two changes), 100 scans a second.
//!
//! `cargo bench -p tengen-daemon --bench black_box`

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tengen_daemon::black_box;

/// Four hours (ms).
const GAME_MS: u64 = 4 * 3_600_000;
/// The window: a minute in the middle of the game, between two key blocks.
const FROM: u64 = GAME_MS / 2 + 12_345;
const TO: u64 = FROM + 60_000;

/// Writes the four-hour game at `noise` into `dir` and returns the frames file.
fn write_game(dir: &Path, noise: f64) -> PathBuf {
    let mut script = String::from("size 19\ntime absolute 10h\n");
    let cols = "ABCDEFGHJKLMNOPQRST";
    for i in 0..40usize {
        let col = cols.as_bytes()[i % 19] as char;
        let row = 4 + 2 * (i / 19);
        let color = if i % 2 == 0 { "B" } else { "W" };
        script.push_str(&format!("place {color} {col}{row}\npress {color}\n"));
    }
    script.push_str("wait 4h\n");
    let script_path = dir.join(format!("game-{noise}.txt"));
    std::fs::write(&script_path, script).expect("script");
    let frames = dir.join(format!("game-{noise}.frames"));
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["sim", "--script"])
        .arg(&script_path)
        .args(["--noise", &noise.to_string(), "--frames-out"])
        .arg(&frames)
        .output()
        .expect("tengen sim runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    frames
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut group = c.benchmark_group("frames_60s_window_of_4h");
    group.sample_size(20);
    for noise in [0.001, 0.01] {
        let path = write_game(dir.path(), noise);
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let whole = black_box::read(&path).expect("the file reads");
        eprintln!(
            "noise {noise}: {size} bytes, {} changes and presses, span {:?} ms",
            whole.changes(),
            whole.span()
        );
        let window = whole.json_lines(FROM, TO);
        group.bench_with_input(BenchmarkId::new("window", noise), &path, |b, path| {
            b.iter(|| {
                let record = black_box::read_window(path, FROM, TO).expect("reads");
                let lines = record.json_lines(FROM, TO);
                assert_eq!(lines.len(), window.len());
                lines
            })
        });
        group.bench_with_input(BenchmarkId::new("whole_file", noise), &path, |b, path| {
            b.iter(|| {
                let record = black_box::read(path).expect("reads");
                record.json_lines(FROM, TO)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
