//! `tengen score` run as a binary: the exact output line, dead stones, komi from the file
//! or the command line, handicap compensation, exit codes, and agreement with GNU Go's
//! count on played-out self-play games.

use crate::cli;

use cli::*;

use std::path::PathBuf;

use serde_json::Value;

/// 5x5: a black wall on column C, a white wall on column D, a white stone at A1 inside
/// Black's area.
const WALLS: &str = "(;SZ[5]KM[0]AB[ca][cb][cc][cd][ce]AW[da][db][dc][dd][de][ae])";

#[test]
fn prints_the_spec_line_with_whole_numbers_unadorned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = sgf_file(&dir, "walls.sgf", WALLS);
    // A1 dead: Black has columns A-C = 15, White 10; par 12.5, no komi: B+2.5 stones.
    let o = tengen(&["score", &f, "--dead", "A1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        concat!(
            r#"{"black_area":15,"white_area":10,"dame":0,"komi_stones":0,"#,
            r#""result":"B+5","margin_stones":2.5,"margin_points":5}"#,
            "\n"
        )
    );
    // --komi overrides KM: 7.5 points = 3.75 stones, Black 15 - 12.5 - 3.75 = -1.25.
    let o = tengen(&["score", &f, "--dead", "A1", "--komi", "7.5"]);
    let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["result"], "W+2.5");
    assert_eq!(v["komi_stones"], 3.75);
    assert_eq!(v["margin_stones"], 1.25);
    // Without --dead the white stone lives: A-B columns touch both colours, dame.
    let o = tengen(&["score", &f]);
    let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["dame"], 9);
    assert_eq!(v["black_area"], 9.5);
    assert_eq!(v["white_area"], 15.5);
    // Negative komi is accepted.
    let o = tengen(&["score", &f, "--dead", "A1", "--komi", "-5"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["result"], "B+10");
}

/// docs/rules.md: Black 185 with komi 3.75 wins by 0.75 stones (1.5 points); 184 loses by
/// 0.25; 184.5 (odd dame) wins by 0.25. Built on 19x19 from setup stones: Black's region
/// is the first `black` points in column order (A1, A2, ..., A19, B1, ...), then `dame`
/// empty points, then White's region; each side has stones only where its region borders
/// something else, so the inside is its territory.
#[test]
fn rules_md_counting_examples() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (black, dame, want) in [
        (185u32, 0u32, "B+1.5"),
        (184, 0, "W+0.5"),
        (184, 1, "B+0.5"),
    ] {
        // 0 = Black's region, 1 = dame, 2 = White's region.
        let region = |col: i32, row: i32| -> Option<u32> {
            if !(0..19).contains(&col) || !(0..19).contains(&row) {
                return None;
            }
            let k = (col * 19 + row) as u32;
            Some(if k < black {
                0
            } else if k < black + dame {
                1
            } else {
                2
            })
        };
        let mut ab = String::new();
        let mut aw = String::new();
        for col in 0..19 {
            for row in 0..19 {
                let mine = region(col, row);
                let border = [(1, 0), (-1, 0), (0, 1), (0, -1)].iter().any(
                    |(dc, dr)| matches!(region(col + dc, row + dr), Some(r) if Some(r) != mine),
                );
                let sgf = format!(
                    "[{}{}]",
                    (b'a' + col as u8) as char,
                    (b'a' + 18 - row as u8) as char
                );
                match mine {
                    Some(0) if border => ab.push_str(&sgf),
                    Some(2) if border => aw.push_str(&sgf),
                    _ => {}
                }
            }
        }
        let f = sgf_file(&dir, "r.sgf", &format!("(;SZ[19]KM[7.5]AB{ab}AW{aw})"));
        let o = tengen(&["score", &f]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
        assert_eq!(v["dame"], dame);
        assert_eq!(v["result"], want, "Black {black} + dame {dame}: {v}");
    }
}

#[test]
fn handicap_compensation_and_default_komi() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Handicap 4, no KM: komi 0, Black gives back 2 stones. Board split 15/10 as above.
    let f = sgf_file(
        &dir,
        "h.sgf",
        "(;SZ[5]HA[4]AB[ca][cb][cc][cd][ce]AW[da][db][dc][dd][de])",
    );
    let o = tengen(&["score", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["komi_stones"], 0);
    // 15 - 12.5 - 2 = 0.5 stones.
    assert_eq!(v["result"], "B+1");
    // An even game without KM gets 7.5.
    let f = sgf_file(
        &dir,
        "e.sgf",
        "(;SZ[5]AB[ca][cb][cc][cd][ce]AW[da][db][dc][dd][de])",
    );
    let v: Value = serde_json::from_str(&stdout(&tengen(&["score", &f]))).expect("json");
    assert_eq!(v["komi_stones"], 3.75);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = sgf_file(&dir, "walls.sgf", WALLS);
    let missing = dir.path().join("gone.sgf").to_string_lossy().into_owned();
    let bad_km = sgf_file(&dir, "km.sgf", "(;SZ[5]KM[7.3];B[aa])");
    let malformed = sgf_file(&dir, "m.sgf", "(;SZ[5];B[aa]");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["score", &missing], "gone.sgf: cannot read"),
        (vec!["score", &malformed], "malformed SGF at 1:14"),
        (
            vec!["score", &f, "--dead", "Z9"],
            "--dead: 'Z9' is off a 5x5 board",
        ),
        (
            vec!["score", &f, "--dead", "A1,X"],
            "--dead: 'X' is not a point",
        ),
        (
            vec!["score", &f, "--dead", "B2"],
            "--dead: dead point B2 is empty",
        ),
        (
            vec!["score", &f, "--komi", "0.3"],
            "--komi: komi 0.3 is not a multiple of 0.5",
        ),
        (
            vec!["score", &bad_km],
            "km.sgf: KM: komi 7.3 is not a multiple of 0.5",
        ),
    ];
    for (args, want) in cases {
        let o = tengen(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains(want), "'{err}' should contain '{want}'");
        assert!(o.stdout.is_empty());
    }
    // An illegal move in the file is a failure of the work, as in replay.
    let f = sgf_file(&dir, "ill.sgf", "(;SZ[5];B[cc];W[cc])");
    let o = tengen(&["score", &f]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("move 2 (W C3) is illegal: occupied"));
}

/// An SGF result as (winner, margin in points): `B+18.0` and `B+18` are the same, `0` is
/// a draw.
fn parse_result(re: &str) -> Option<(char, f64)> {
    if re == "0" || re == "Draw" {
        return Some(('0', 0.0));
    }
    let (who, margin) = re.split_once('+')?;
    Some((who.chars().next()?, margin.parse().ok()?))
}

fn game_files() -> Vec<PathBuf> {
    let root = fixtures();
    let mut files = Vec::new();
    for dir in [
        "gnugo/games/9",
        "gnugo/games/13",
        "gnugo/games/19",
        "sgf/selfplay",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().extension().and_then(|x| x.to_str()) == Some("sgf") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}

/// GNU Go's own count after playing out every dead stone (`kgs-genmove_cleanup`), stored
/// as `RE` in each self-play file, equals tengen's count of the final position
/// (handicap games included: GNU Go gives White one point per handicap stone, the rules'
/// half a stone each).
#[test]
fn score_agrees_with_gnugo_on_played_out_games() {
    let files = game_files();
    assert!(
        files.len() >= 40,
        "expected the GNU Go games, found {}",
        files.len()
    );
    let mut handicap_games = 0;
    for file in &files {
        let name = file.to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).expect("read");
        let re = text
            .split("RE[")
            .nth(1)
            .and_then(|s| s.split(']').next())
            .expect("RE in the file");
        if text.contains("HA[") {
            handicap_games += 1;
        }
        let o = tengen(&["score", &name]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
        let got = v["result"].as_str().unwrap_or("");
        assert_eq!(
            parse_result(got),
            parse_result(re),
            "{name}: GNU Go {re}, tengen {v}"
        );
    }
    assert!(handicap_games >= 3, "handicap games are part of the check");
}
