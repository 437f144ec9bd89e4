//! `tengen replay` run as a binary: output format, exit codes and error lines, and its
//! replay of GNU Go self-play games checked move by move against sgfmill's.

use crate::cli;

use cli::*;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

#[test]
fn json_lines_for_moves_captures_passes_and_the_final_position() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 5x5: Black captures the white stone in the corner (A1) with B1; passes as [tt] and [].
    let f = sgf_file(
        &dir,
        "cap.sgf",
        "(;GM[1]FF[4]SZ[5];B[ad];W[ae];B[cc];W[tt];B[be];W[])",
    );
    let o = tengen(&["replay", &f, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout_lines(&o),
        [
            r#"{"number":1,"color":"B","point":"A2","captured":[]}"#,
            r#"{"number":2,"color":"W","point":"A1","captured":[]}"#,
            r#"{"number":3,"color":"B","point":"C3","captured":[]}"#,
            r#"{"number":4,"color":"W","point":"pass","captured":[]}"#,
            r#"{"number":5,"color":"B","point":"B1","captured":["A1"]}"#,
            r#"{"number":6,"color":"W","point":"pass","captured":[]}"#,
            concat!(
                r#"{"final":{"board":"............X..X.....X...","#,
                r#""to_move":"B","captured_by_B":1,"captured_by_W":0}}"#
            ),
        ]
    );
    // Readable form: one line per move, then the board and a summary.
    let o = tengen(&["replay", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = stdout_lines(&o);
    assert_eq!(lines[4], "5 B B1 captures A1");
    assert_eq!(lines[6], " 5 .....");
    assert_eq!(lines[10], " 1 .X...");
    assert_eq!(lines[11], "B to move; captured by B: 1, by W: 0");
}

#[test]
fn setup_stones_are_the_start_position() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = sgf_file(&dir, "ha.sgf", "(;SZ[9]HA[2]KM[0.5]AB[cg][gc];W[ee])");
    let o = tengen(&["replay", &f, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let last: Value = serde_json::from_str(&stdout_lines(&o)[1]).expect("json");
    let board = last["final"]["board"].as_str().expect("board");
    assert_eq!(board.matches('X').count(), 2);
    assert_eq!(&board[2 * 9 + 6..2 * 9 + 7], "X"); // G7 (row 7 is the 3rd from the top)
    assert_eq!(last["final"]["to_move"], "B");
}

#[test]
fn an_illegal_move_stops_with_exit_1_naming_move_point_and_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        // suicide in the corner
        (
            "suicide.sgf",
            "(;SZ[5];B[ba];W[cc];B[ab];W[aa])",
            "move 4 (W A5) is illegal: suicide",
        ),
        // occupied point
        (
            "occupied.sgf",
            "(;SZ[5];B[cc];W[cc])",
            "move 2 (W C3) is illegal: occupied",
        ),
        // immediate ko recapture
        (
            "ko.sgf",
            "(;SZ[5];B[bb];W[cb];B[ac];W[dc];B[bd];W[cd];B[cc];W[bc];B[cc])",
            "move 9 (B C3) is illegal: ko",
        ),
    ];
    for (name, text, want) in cases {
        let f = sgf_file(&dir, name, text);
        let o = tengen(&["replay", &f, "--json"]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(err.contains(want), "{name}: '{err}' should name '{want}'");
        // The legal moves before it were printed.
        let n: usize = want[5..]
            .split(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        assert_eq!(stdout_lines(&o).len(), n - 1, "{name}");
    }
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("nope.sgf");
    let cases = [
        (
            missing.to_string_lossy().into_owned(),
            "nope.sgf: cannot read",
        ),
        (
            sgf_file(&dir, "trunc.sgf", "(;SZ[9]\n;B[aa];W[b"),
            "trunc.sgf: malformed SGF at 2:9",
        ),
        (
            sgf_file(&dir, "off.sgf", "(;SZ[9];B[aa]\n;W[jj])"),
            "W[jj] at 2:2: point off the 9x9 board",
        ),
        (sgf_file(&dir, "gm.sgf", "(;GM[2];B[aa])"), "not a Go game"),
        (sgf_file(&dir, "size.sgf", "(;SZ[40];B[aa])"), "SZ[40]"),
    ];
    for (file, want) in cases {
        let o = tengen(&["replay", &file, "--json"]);
        assert_eq!(o.status.code(), Some(2), "{file}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains(want), "'{err}' should contain '{want}'");
        assert!(o.stdout.is_empty());
    }
    let bytes_file = dir.path().join("gb.sgf");
    std::fs::write(&bytes_file, b"(;SZ[9]PB[\xba\xda];B[aa])").expect("write");
    let o = tengen(&["replay", &bytes_file.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not UTF-8 text at byte 10"),
        "{}",
        stderr(&o)
    );
    let f = sgf_file(&dir, "ok.sgf", "(;SZ[9];B[aa])");
    let o = tengen(&["replay", &f, "--superko", "sometimes"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Positional and situational superko differ: on 3x3, White's 8th move recreates an
/// earlier position with the other side to move (found by a search with sgfmill).
#[test]
fn superko_option_is_passed_to_the_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = sgf_file(
        &dir,
        "psk.sgf",
        "(;SZ[3];B[ac];W[ba];B[bb];W[cb];B[ab];W[aa];B[ca];W[ba])",
    );
    let o = tengen(&["replay", &f, "--json", "--superko", "situational"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout_lines(&o).len(), 9);
    let o = tengen(&["replay", &f, "--json"]);
    assert_eq!(o.status.code(), Some(0), "situational is the default");
    let o = tengen(&["replay", &f, "--json", "--superko", "positional"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("move 8 (W B3) is illegal: superko"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout_lines(&o).len(), 7);
}

/// All GNU Go self-play games in the fixtures (and the ones generated for this command),
/// replayed by tengen and by sgfmill: every move's captures and the final board, side to
/// move and capture counts agree.
#[test]
fn replay_agrees_with_sgfmill_on_gnugo_games() {
    let python = Command::new("python3")
        .args(["-c", "import sgfmill"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !python {
        if std::env::var("TENGEN_REQUIRE_ORACLES").as_deref() == Ok("1") {
            panic!("python3 with sgfmill is required (TENGEN_REQUIRE_ORACLES=1)");
        }
        eprintln!("note: python3/sgfmill missing, replay oracle test skipped");
        return;
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        "gnugo/games/9",
        "gnugo/games/13",
        "gnugo/games/19",
        "sgf/selfplay",
    ] {
        let Ok(entries) = std::fs::read_dir(fixtures().join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().extension().and_then(|x| x.to_str()) == Some("sgf") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    assert!(
        files.len() >= 40,
        "expected the GNU Go games, found {}",
        files.len()
    );
    let oracle = Command::new("python3")
        .arg(fixtures().join("sgf/sgfmill_replay.py"))
        .args(&files)
        .output()
        .expect("run sgfmill");
    assert!(oracle.status.success(), "{}", stderr(&oracle));
    let mut expected: HashMap<String, Value> = HashMap::new();
    for line in String::from_utf8_lossy(&oracle.stdout).lines() {
        let v: Value = serde_json::from_str(line).expect("oracle json");
        expected.insert(v["file"].as_str().unwrap_or("").to_string(), v);
    }
    let mut captures = 0;
    for file in &files {
        let name = file.to_string_lossy().into_owned();
        let want = &expected[&name];
        let o = tengen(&["replay", &name, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let lines: Vec<Value> = stdout_lines(&o)
            .iter()
            .map(|l| serde_json::from_str(l).expect("tengen json"))
            .collect();
        let moves = want["moves"].as_array().expect("moves");
        assert_eq!(lines.len(), moves.len() + 1, "{name}");
        for (i, (got, m)) in lines.iter().zip(moves).enumerate() {
            assert_eq!(got["number"], i + 1, "{name}");
            assert_eq!(got["color"], m[0], "{name} move {}", i + 1);
            assert_eq!(got["point"], m[1], "{name} move {}", i + 1);
            assert_eq!(got["captured"], m[2], "{name} move {}", i + 1);
            captures += m[2].as_array().map_or(0, Vec::len);
        }
        assert_eq!(lines[moves.len()]["final"], want["final"], "{name}");
    }
    assert!(
        captures > 100,
        "the games should capture stones, saw {captures}"
    );
}
