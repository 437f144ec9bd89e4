//! The black box (docs/operating.md, "The black box"; issue 23): what the sensors saw, written by
//! `tengen sim --frames-out` and read back with `tengen frames`, shows each hidden act the
//! referee alerts on in the 20 s around its alert; the sensor check before play finds a
//! stuck sensor before move 1 and nothing on a sound board in noisy games.

use std::path::{Path, PathBuf};

use crate::cli::{fixtures, stderr, stdout, tengen};

/// A scenario of the referee's scripts.
fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../referee/tests/scenarios")
        .join(name)
}

/// Milliseconds of the day in an event's `time` (`2026-01-01T00:00:01.234Z`).
fn ms_of_day(time: &str) -> u64 {
    let clock = time.get(11..23).expect("a timestamp");
    let h: u64 = clock[0..2].parse().expect("hours");
    let m: u64 = clock[3..5].parse().expect("minutes");
    let s: u64 = clock[6..8].parse().expect("seconds");
    let ms: u64 = clock[9..12].parse().expect("milliseconds");
    ((h * 60 + m) * 60 + s) * 1000 + ms
}

/// What a simulated game left: its events and its frames file.
struct Played {
    events: Vec<serde_json::Value>,
    frames: PathBuf,
    _dir: tempfile::TempDir,
}

impl Played {
    /// The first event of `type`, and its time in ms since the game started.
    fn first(&self, kind: &str) -> Option<(&serde_json::Value, u64)> {
        let start = self
            .events
            .iter()
            .find(|e| e["type"] == "game_started")
            .map(|e| ms_of_day(e["time"].as_str().expect("time")))
            .expect("game_started");
        self.events
            .iter()
            .find(|e| e["type"] == kind)
            .map(|e| (e, ms_of_day(e["time"].as_str().expect("time")) - start))
    }

    /// `tengen frames FILE --from --to --json`, one value per line.
    fn window(&self, from: u64, to: u64) -> Vec<Frame> {
        let file = self.frames.to_string_lossy().into_owned();
        let out = tengen(&[
            "frames",
            &file,
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
            "--json",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
                Frame {
                    ms: v["ms"].as_u64().expect("ms"),
                    board: v["board"].as_str().expect("board").to_string(),
                    presses: v["presses"]
                        .as_array()
                        .expect("presses")
                        .iter()
                        .map(|p| p.as_str().expect("a colour").to_string())
                        .collect(),
                }
            })
            .collect()
    }
}

/// One line of `tengen frames --json`.
#[derive(Debug)]
struct Frame {
    ms: u64,
    board: String,
    presses: Vec<String>,
}

impl Frame {
    /// What the sensor at `point` (GTP, e.g. `C3`) read: `.`, `X`, `O` or `?`.
    fn at(&self, point: &str, size: usize) -> char {
        let letters = "ABCDEFGHJKLMNOPQRST";
        let col = letters
            .find(point.chars().next().expect("a letter"))
            .expect("a column");
        let row: usize = point[1..].parse().expect("a row");
        let index = (size - row) * size + col;
        self.board.as_bytes()[index] as char
    }
}

/// Plays `script` (a path) in the simulator with extra `args`, keeping events and frames.
fn play(script: &Path, args: &[&str]) -> Played {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = dir.path().join("events.jsonl");
    let frames = dir.path().join("game.frames");
    let out = tengen(
        &[
            vec![
                "sim",
                "--script",
                script.to_str().expect("utf-8 path"),
                "--events",
                events.to_str().expect("utf-8 path"),
                "--frames-out",
                frames.to_str().expect("utf-8 path"),
            ],
            args.to_vec(),
        ]
        .concat(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let events = std::fs::read_to_string(&events)
        .expect("events written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event"))
        .collect();
    Played {
        events,
        frames,
        _dir: dir,
    }
}

/// The alert of `kind`'s time, and the frames 10 s either side of it.
fn around_alert(played: &Played, kind: &str) -> (u64, Vec<Frame>) {
    let (alert, at) = played.first("alert").expect("an alert");
    assert_eq!(alert["code"], kind, "{alert}");
    (at, played.window(at.saturating_sub(10_000), at + 10_000))
}

#[test]
fn a_moved_stone_shows_in_the_frames_around_its_alert() {
    let played = play(&scenario("stone_moved.txt"), &[]);
    let (_, frames) = around_alert(&played, "stone_moved");
    // The board before: Black on C3; then the stone pushed to C4 with C3 empty.
    assert!(frames
        .iter()
        .any(|f| f.at("C3", 9) == 'X' && f.at("C4", 9) == '.'));
    assert!(
        frames
            .iter()
            .any(|f| f.at("C3", 9) == '.' && f.at("C4", 9) == 'X'),
        "no frame with the stone on C4: {frames:?}"
    );
}

#[test]
fn a_double_move_shows_in_the_frames_around_its_alert() {
    let played = play(&scenario("double_move.txt"), &[]);
    let (_, frames) = around_alert(&played, "double_move");
    // Black's press, then a second black stone (E5) down before White moved.
    let press = frames
        .iter()
        .find(|f| f.presses.contains(&"B".to_string()))
        .expect("Black's press in the window");
    let second = frames
        .iter()
        .find(|f| f.at("E5", 9) == 'X')
        .expect("the second black stone in the window");
    assert!(second.ms > press.ms);
    assert_eq!(second.at("C3", 9), 'X');
    assert_eq!(second.at("G7", 9), '.', "White had not moved");
}

#[test]
fn an_uncaptured_stone_shows_in_the_frames_around_its_alert() {
    let played = play(&scenario("uncaptured_stones.txt"), &[]);
    let (_, frames) = around_alert(&played, "uncaptured_stones");
    // Black's press with E6 down and the captured white stone still on E5.
    assert!(
        frames.iter().any(|f| f.presses.contains(&"B".to_string())
            && f.at("E6", 9) == 'X'
            && f.at("E5", 9) == 'O'),
        "no press with E5 still on the board: {frames:?}"
    );
    // And its removal later.
    assert!(frames
        .iter()
        .any(|f| f.at("E6", 9) == 'X' && f.at("E5", 9) == '.'));
}

#[test]
fn a_stone_set_down_after_the_flag_fell_shows_after_its_alert() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("late.txt");
    std::fs::write(
        &script,
        "size 9\ntime absolute 5s\nplace B C3\npress B\nwait 6s\nplace W D4\npress W\n",
    )
    .expect("script");
    let played = play(&script, &[]);
    let (at, frames) = around_alert(&played, "time_expired");
    let down = frames
        .iter()
        .find(|f| f.at("D4", 9) == 'O')
        .expect("White's stone in the window");
    assert!(
        down.ms > at,
        "White's stone at {} ms, the flag at {at} ms",
        down.ms
    );
    // Before the flag fell, D4 was empty.
    assert_eq!(
        frames
            .iter()
            .rev()
            .find(|f| f.ms <= at)
            .map(|f| f.at("D4", 9)),
        Some('.')
    );
}

#[test]
fn a_sensor_stuck_at_a_plausible_reading_is_found_before_move_one() {
    for state in ["B", "W", "E"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("stuck.txt");
        std::fs::write(
            &script,
            format!(
                "size 9\nnoise 0.001\nstuck H8 {state}\nplace B C3\npress B\nplace W G7\npress W\n"
            ),
        )
        .expect("script");
        let played = play(&script, &[]);
        let (fault, at) = played.first("sensor_fault").expect("a sensor fault");
        assert_eq!(fault["kind"], "stuck", "{fault}");
        assert_eq!(fault["points"], serde_json::json!(["H8"]), "{fault}");
        if state == "E" {
            // Reading what the board expects, it cannot be read as a move: found when its
            // reading has not moved for the check's two seconds.
            assert!(at <= 2_100, "stuck {state}: found at {at} ms");
        } else {
            // Reading a stone where there is none: found before the stabiliser could
            // take it for one, and before move 1.
            let (_, first_move) = played.first("move").expect("a move");
            assert!(
                at < first_move,
                "fault at {at} ms, move 1 at {first_move} ms"
            );
        }
        assert!(
            played.first("alert").is_none(),
            "stuck {state}: {:?}",
            played.first("alert")
        );
    }
}

#[test]
fn no_false_faults_or_alerts_in_noisy_games() {
    let games = fixtures().join("gnugo/games/9");
    let mut sgfs: Vec<PathBuf> = std::fs::read_dir(games)
        .expect("fixture games")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sgf"))
        .collect();
    sgfs.sort();
    for (seed, sgf) in sgfs.iter().take(4).enumerate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let events = dir.path().join("events.jsonl");
        let out = tengen(&[
            "sim",
            "--sgf",
            sgf.to_str().expect("utf-8 path"),
            "--noise",
            "0.01",
            "--seed",
            &seed.to_string(),
            "--events",
            events.to_str().expect("utf-8 path"),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = std::fs::read_to_string(&events).expect("events");
        for line in text.lines() {
            let e: serde_json::Value = serde_json::from_str(line).expect("an event");
            assert!(
                e["type"] != "sensor_fault" && e["type"] != "alert",
                "{}: {e}",
                sgf.display()
            );
        }
    }
}

#[test]
fn a_file_that_is_not_frames_gets_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.frames");
    std::fs::write(&bad, b"this is not a frames file at all").expect("write");
    let out = tengen(&["frames", bad.to_str().expect("utf-8 path"), "--at", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    let out = tengen(&["frames", "/nonexistent/game.frames"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}

/// The format's documentation (docs/frames-format.md) is enough to read a file without
/// tengen: its Python reader, written from it, prints what `tengen frames` prints.
#[test]
fn the_documented_python_reader_reads_the_same_frames() {
    let game = fixtures().join("gnugo/games/9/game_0002.sgf");
    let dir = tempfile::tempdir().expect("tempdir");
    let frames = dir.path().join("game.frames");
    let frames_arg = frames.to_str().expect("utf-8 path");
    let out = tengen(&[
        "sim",
        "--sgf",
        game.to_str().expect("utf-8 path"),
        "--noise",
        "0.002",
        "--frames-out",
        frames_arg,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reader = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/frames_reader.py");
    let python = |args: &[&str]| {
        let out = std::process::Command::new("python3")
            .arg(&reader)
            .arg(frames_arg)
            .args(args)
            .output()
            .expect("python3 runs");
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    for (from, to) in [("0", "100000000"), ("30000", "90000"), ("61234", "61234")] {
        let ours = tengen(&["frames", frames_arg, "--from", from, "--to", to, "--json"]);
        assert!(ours.status.success(), "{}", stderr(&ours));
        let theirs = python(&["--from", from, "--to", to]);
        assert!(theirs.lines().count() > 0);
        assert_eq!(stdout(&ours), theirs, "window {from}..{to}");
    }
    let ours = tengen(&["frames", frames_arg, "--at", "45000"]);
    assert_eq!(stdout(&ours), python(&["--at", "45000"]));
}
