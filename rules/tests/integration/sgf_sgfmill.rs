//! Files written by sgfmill (a Python SGF library tengen did not write) read correctly:
//! the committed fixtures always, and freshly written ones when python3 and sgfmill are
//! installed (required when `TENGEN_REQUIRE_ORACLES=1`, as in CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tengen_rules::sgf::{self, GameRecord};
use tengen_rules::{Color, Move, Point};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sgf")
}

fn points(v: &Value) -> Vec<Point> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            Point::new(
                p[0].as_u64().unwrap_or(99) as u8,
                p[1].as_u64().unwrap_or(99) as u8,
            )
        })
        .collect()
}

/// Compares a parsed record with what the sgfmill script says it wrote.
fn check(rec: &GameRecord, want: &Value, what: &str) {
    assert_eq!(
        rec.size as u64,
        want["size"].as_u64().unwrap_or(0),
        "{what}: size"
    );
    assert_eq!(rec.komi, want["komi"].as_f64(), "{what}: komi");
    assert_eq!(
        rec.handicap as u64,
        want["handicap"].as_u64().unwrap_or(99),
        "{what}"
    );
    assert_eq!(rec.black_setup, points(&want["black_setup"]), "{what}: AB");
    assert_eq!(rec.white_setup, points(&want["white_setup"]), "{what}: AW");
    assert_eq!(
        rec.black_name.as_deref(),
        want["black_name"].as_str(),
        "{what}: PB"
    );
    assert_eq!(
        rec.white_name.as_deref(),
        want["white_name"].as_str(),
        "{what}: PW"
    );
    assert_eq!(rec.result.as_deref(), want["result"].as_str(), "{what}: RE");
    assert_eq!(rec.date.as_deref(), want["date"].as_str(), "{what}: DT");
    let moves = want["moves"].as_array().cloned().unwrap_or_default();
    assert_eq!(rec.moves.len(), moves.len(), "{what}: number of moves");
    for (i, (got, m)) in rec.moves.iter().zip(&moves).enumerate() {
        let color = Color::parse(m["color"].as_str().unwrap_or("?"));
        assert_eq!(Some(got.color), color, "{what}: move {}", i + 1);
        let mv = if m["point"].is_null() {
            Move::Pass
        } else {
            Move::Play(points(&Value::Array(vec![m["point"].clone()]))[0])
        };
        assert_eq!(got.mv, mv, "{what}: move {}", i + 1);
        assert_eq!(
            got.time_left_ms,
            m["time_left_ms"].as_u64(),
            "{what}: move {} time",
            i + 1
        );
        assert_eq!(
            got.periods_left.map(u64::from),
            m["periods_left"].as_u64(),
            "{what}: move {} periods",
            i + 1
        );
        assert_eq!(
            got.comment.as_deref(),
            m["comment"].as_str(),
            "{what}: move {} C",
            i + 1
        );
    }
}

#[test]
fn committed_sgfmill_files_read_correctly() {
    let mut n = 0;
    for entry in std::fs::read_dir(fixtures()).expect("fixtures dir") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("");
        if !(name.starts_with("sgfmill_") && name.ends_with(".sgf")) {
            continue;
        }
        let bytes = std::fs::read(&path).expect("read fixture");
        let rec = sgf::parse_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let json = std::fs::read_to_string(path.with_extension("json")).expect("json beside");
        let want: Value = serde_json::from_str(&json).expect("json");
        check(&rec, &want, name);
        // And what tengen writes, sgfmill's record read back, is the same record.
        assert_eq!(
            sgf::parse(&sgf::write(&rec)).map(|r| r.moves),
            Ok(rec.moves.clone())
        );
        n += 1;
    }
    assert!(n >= 6, "expected the sgfmill fixtures, found {n}");
}

fn sgfmill_available() -> bool {
    Command::new("python3")
        .args(["-c", "import sgfmill"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn fresh_sgfmill_files_read_correctly() {
    if !sgfmill_available() {
        if std::env::var("TENGEN_REQUIRE_ORACLES").as_deref() == Ok("1") {
            panic!("python3 with sgfmill is required (TENGEN_REQUIRE_ORACLES=1)");
        }
        eprintln!("note: python3/sgfmill missing, fresh sgfmill files not checked");
        return;
    }
    let dir = std::env::temp_dir().join(format!("tengen-sgfmill-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let run = Command::new("python3")
        .arg(fixtures().join("sgfmill_write.py"))
        .args(["--many", "100", "40"])
        .arg(&dir)
        .output()
        .expect("run python3");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut n = 0;
    for line in String::from_utf8_lossy(&run.stdout).lines() {
        let want: Value = serde_json::from_str(line).expect("json from script");
        let seed = want["seed"].as_u64().unwrap_or(0);
        let bytes = std::fs::read(dir.join(format!("g{seed}.sgf"))).expect("sgf written");
        let rec = sgf::parse_bytes(&bytes).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        check(&rec, &want, &format!("seed {seed}"));
        n += 1;
    }
    assert_eq!(n, 40);
    let _ = std::fs::remove_dir_all(&dir);
}
