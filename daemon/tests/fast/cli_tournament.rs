//! `tengen pairings` and `tengen results` on the real OpenGotha files, checked with an
//! independent reader: Python's `xml.etree.ElementTree` (a failure when python3 is missing
//! under `TENGEN_REQUIRE_ORACLES=1`, else a skip).
//!
//! - pairings: every round of the three sample tournaments, `--json`, field by field
//!   against the XML read in Python (players by OpenGotha's key, names, ranks, handicap,
//!   the board's komi, size, the time line, board ids from `--boards`);
//! - results: a round's records (a folder and a zip, as the hall serves them) written
//!   back; Python finds exactly that round's `result`s changed as the records say and
//!   every other element and attribute as it was; unknown results left; a record on the
//!   wrong table, or a tournament file as `--out`, is exit 2 with nothing written; CSV
//!   and AGA formats.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn tengen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
}

pub(crate) fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tournament/tests/data/opengotha")
        .join(name)
}

const SAMPLES: [&str; 3] = ["juvisy.xml", "tournoi-chinois.xml", "cdfo2020.xml"];

pub(crate) fn python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("TENGEN_REQUIRE_ORACLES").as_deref() != Ok("1"),
            "python3 is missing and TENGEN_REQUIRE_ORACLES=1"
        );
        eprintln!("skipped: python3 is not installed");
    }
    ok
}

/// Runs a Python script with `args`, returning its stdout as JSON lines.
fn py(script: &str, args: &[&str]) -> Vec<Value> {
    let mut child = Command::new("python3")
        .arg("-")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("script");
    let out = child.wait_with_output().expect("python3 runs");
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines(&out)
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The pairings of a round as read by ElementTree, in `tengen pairings --json`'s shape.
const PAIRINGS_PY: &str = r#"
import json, sys, xml.etree.ElementTree as ET
path, rnd, pad = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
root = ET.parse(path).getroot()
players = {}
for p in root.iter('Player'):
    key = (p.get('name') + p.get('firstName')).replace(' ', '').upper()
    players[key] = p
gps = root.find('TournamentParameterSet/GeneralParameterSet')
komi = float(gps.get('komi'))
size = int(gps.get('size', '19'))
def dur(s):
    if s % 60 == 0 and s > 60: return '%dm' % (s // 60)
    return '%ds' % s
basic = dur(int(gps.get('basicTime')) * 60)
system = gps.get('complementaryTimeSystem')
if system == 'SUDDENDEATH': time = 'absolute %s' % basic
elif system == 'STDBYOYOMI': time = 'byoyomi %s 1x%s' % (basic, dur(int(gps.get('stdByoYomiTime'))))
elif system == 'CANBYOYOMI': time = 'canadian %s %s/%s' % (basic, gps.get('nbMovesCanTime'), dur(int(gps.get('canByoYomiTime'))))
else: time = 'fischer %s +%s' % (basic, dur(int(gps.get('fischerTime'))))
games = [g for g in root.iter('Game') if int(g.get('roundNumber')) == rnd]
for g in sorted(games, key=lambda g: int(g.get('tableNumber'))):
    t = int(g.get('tableNumber'))
    b, w = players[g.get('blackPlayer')], players[g.get('whitePlayer')]
    hc = int(g.get('handicap', '0'))
    print(json.dumps({'round': rnd, 'table': t, 'board': 'hall1-%0*d' % (pad, t),
        'game': 'r%d-t%d' % (rnd, t),
        'black': b.get('name') + ' ' + b.get('firstName'), 'black_rank': b.get('rank'),
        'white': w.get('name') + ' ' + w.get('firstName'), 'white_rank': w.get('rank'),
        'handicap': hc, 'komi': komi if hc == 0 else 0.0, 'size': size, 'time': time},
        ensure_ascii=False))
"#;

/// The round numbers of a file.
fn rounds(path: &Path) -> Vec<u32> {
    let script = "import json,sys,xml.etree.ElementTree as ET\n\
        r=sorted({int(g.get('roundNumber')) for g in ET.parse(sys.argv[1]).getroot().iter('Game')})\n\
        print(json.dumps(r))";
    let v = py(script, &[path.to_str().expect("utf-8 path")]);
    serde_json::from_value(v[0].clone()).expect("round list")
}

#[test]
fn pairings_of_every_round_match_the_xml() {
    if !python() {
        return;
    }
    let mut checked = 0;
    for name in SAMPLES {
        let path = sample(name);
        let all = rounds(&path);
        assert!(!all.is_empty(), "{name} has rounds");
        for round in all {
            let out = tengen()
                .arg("pairings")
                .arg(&path)
                .args(["--round", &round.to_string()])
                .args(["--boards", "hall1-{table:02}", "--json"])
                .output()
                .expect("tengen runs");
            assert!(out.status.success(), "{name} round {round}: {out:?}");
            let ours: Vec<Value> = lines(&out)
                .into_iter()
                .filter(|v| v.get("bye").is_none())
                .collect();
            let theirs = py(
                PAIRINGS_PY,
                &[path.to_str().expect("utf-8"), &round.to_string(), "2"],
            );
            assert_eq!(ours.len(), theirs.len(), "{name} round {round}: games");
            for (a, b) in ours.iter().zip(&theirs) {
                assert_eq!(a, b, "{name} round {round}");
                checked += 1;
            }
            // The key order is the wire contract's.
            let first = String::from_utf8_lossy(&out.stdout);
            assert!(first.starts_with("{\"round\":"), "{first}");
        }
    }
    assert!(checked > 100, "{checked} games checked");
}

#[test]
fn pairings_errors_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xml");
    std::fs::write(&bad, "<Tournament><Players>").unwrap();
    for (args, says) in [
        (
            vec![
                sample("juvisy.xml").display().to_string(),
                "--round".into(),
                "9".into(),
            ],
            "round 9 has no games",
        ),
        (
            vec![
                sample("juvisy.xml").display().to_string(),
                "--round".into(),
                "1".into(),
                "--boards".into(),
                "x{tab}".into(),
            ],
            "--boards",
        ),
        (
            vec![bad.display().to_string(), "--round".into(), "1".into()],
            "bad.xml",
        ),
    ] {
        let out = tengen().arg("pairings").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
    }
}

/// Every element of a file with its attributes (a round's `result`s left out), and that
/// round's results by table.
const SNAPSHOT_PY: &str = r#"
import json, sys, xml.etree.ElementTree as ET
path, rnd = sys.argv[1], int(sys.argv[2])
root = ET.parse(path).getroot()
elements, results = [], {}
for e in root.iter():
    a = dict(e.attrib)
    if e.tag == 'Game' and int(a.get('roundNumber', 0)) == rnd:
        results[a['tableNumber']] = a.pop('result', None)
    elements.append([e.tag, a, (e.text or '').strip(), (e.tail or '').strip()])
print(json.dumps({'elements': elements, 'results': results}, ensure_ascii=False))
"#;

pub(crate) fn snapshot(path: &Path, round: u32) -> Value {
    py(
        SNAPSHOT_PY,
        &[path.to_str().expect("utf-8"), &round.to_string()],
    )
    .remove(0)
}

/// Round 1 of tournoi-chinois as `(table, black, white)` from `tengen pairings`.
fn round_one() -> Vec<(u64, String, String)> {
    let out = tengen()
        .arg("pairings")
        .arg(sample("tournoi-chinois.xml"))
        .args(["--round", "1", "--json"])
        .output()
        .unwrap();
    lines(&out)
        .into_iter()
        .filter(|v| v.get("table").is_some())
        .map(|v| {
            (
                v["table"].as_u64().unwrap(),
                v["black"].as_str().unwrap().to_string(),
                v["white"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// What a hall's round zip holds for a table of round 1 (board `table-{table}`, the
/// default `--boards`), with `re` as the result (`None`: no RE at all), with two moves or
/// none.
/// A result written `"B+F absent"` is a board's loss for a player not seated in time
/// (`TENGENREASON[absent]`, Art. 22).
fn record(table: u64, black: &str, white: &str, re: Option<&str>, moves: bool) -> String {
    let re = re
        .map(|r| match r.strip_suffix(" absent") {
            Some(r) => format!("RE[{r}]TENGENREASON[absent]"),
            None => format!("RE[{r}]"),
        })
        .unwrap_or_default();
    let moves = if moves {
        ";B[pd]BL[3590];W[dp]WL[3588]"
    } else {
        ""
    };
    format!(
        "(;FF[4]GM[1]CA[UTF-8]RU[Chinese]SZ[19]KM[7.5]PB[{black}]PW[{white}]{re}\nGN[r1-t{table}]\nRO[1]\nTENGENBOARD[table-{table}]TENGENTOURNAMENT[cup]\n{moves}\n)\n"
    )
}

/// The result each table gets in the records, whether moves were played, and the
/// OpenGotha value expected.
fn planned(table: u64) -> (Option<&'static str>, bool, Option<&'static str>) {
    match table % 8 {
        0 => (Some("B+R"), true, Some("RESULT_BLACKWINS")),
        1 => (Some("W+3.5"), true, Some("RESULT_WHITEWINS")),
        2 => (Some("W+T"), true, Some("RESULT_WHITEWINS")),
        // White did not come: a win by default.
        3 => (Some("B+F"), false, Some("RESULT_BLACKWINS_BYDEF")),
        // Black's second warning (Art. 24): a game played and lost, not one by default.
        4 => (Some("W+F"), true, Some("RESULT_WHITEWINS")),
        5 => (Some("Void"), true, None),
        // White not seated at the limit; Black had played a first move (Art. 22.1).
        6 => (Some("B+F absent"), true, Some("RESULT_BLACKWINS_BYDEF")),
        _ => (None, true, None),
    }
}

#[test]
fn results_from_records_are_written_back_and_nothing_else_changes() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("t.xml");
    std::fs::copy(sample("tournoi-chinois.xml"), &xml).unwrap();
    let games = round_one();
    assert!(games.len() >= 6);
    let sgf_dir = dir.path().join("round-1");
    std::fs::create_dir(&sgf_dir).unwrap();
    let zip_path = dir.path().join("1.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    for (table, black, white) in &games {
        let (re, moves, _) = planned(*table);
        let text = record(*table, black, white, re, moves);
        let name = format!("r1-t{table}.sgf");
        std::fs::write(sgf_dir.join(&name), &text).unwrap();
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    let before = snapshot(&xml, 1);

    for (source, out_name) in [("--sgf", "from-dir.xml"), ("--zip", "from-zip.xml")] {
        let input = if source == "--sgf" {
            &sgf_dir
        } else {
            &zip_path
        };
        let out_path = dir.path().join(out_name);
        let out = tengen()
            .arg("results")
            .arg(&xml)
            .args(["--round", "1", source])
            .arg(input)
            .arg("--out")
            .arg(&out_path)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{source}: {out:?}");
        assert!(said.contains("result unknown"), "{said}");
        let after = snapshot(&out_path, 1);
        assert_eq!(
            after["elements"], before["elements"],
            "{source}: the rest unchanged"
        );
        for (table, _, _) in &games {
            let want = match planned(*table).2 {
                Some(r) => Value::from(r),
                None => before["results"][table.to_string()].clone(),
            };
            assert_eq!(
                after["results"][table.to_string()],
                want,
                "{source} table {table}"
            );
        }
        // The tournament file itself is untouched.
        assert_eq!(snapshot(&xml, 1), before);
    }

    // The CSV, read by Python's csv module.
    let csv_path = dir.path().join("r1.csv");
    let out = tengen()
        .arg("results")
        .arg(&xml)
        .args(["--round", "1", "--zip"])
        .arg(&zip_path)
        .arg("--out")
        .arg(&csv_path)
        .args(["--format", "csv"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let rows = py(
        "import csv,json,sys\nfor r in csv.DictReader(open(sys.argv[1], encoding='utf-8')): print(json.dumps(r, ensure_ascii=False))",
        &[csv_path.to_str().unwrap()],
    );
    assert_eq!(rows.len(), games.len());
    for row in &rows {
        let table: u64 = row["table"].as_str().unwrap().parse().unwrap();
        let (_, black, _) = games.iter().find(|g| g.0 == table).unwrap();
        assert_eq!(row["black"], Value::from(black.as_str()));
        if planned(table).2 == Some("RESULT_BLACKWINS") {
            assert_eq!(row["result"], "B+");
        }
    }
    // AGA: one game line per game of the round.
    let aga_path = dir.path().join("r1.aga");
    let out = tengen()
        .arg("results")
        .arg(&xml)
        .args(["--round", "1", "--sgf"])
        .arg(&sgf_dir)
        .arg("--out")
        .arg(&aga_path)
        .args(["--format", "aga"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let aga = std::fs::read_to_string(&aga_path).unwrap();
    assert!(aga.contains("TOURNEY"), "{aga}");
}

#[test]
fn a_record_on_the_wrong_table_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("t.xml");
    std::fs::copy(sample("tournoi-chinois.xml"), &xml).unwrap();
    let games = round_one();
    let sgf_dir = dir.path().join("round-1");
    std::fs::create_dir(&sgf_dir).unwrap();
    // Table 1's record carries table 2's players.
    let (_, b2, w2) = &games[1];
    std::fs::write(sgf_dir.join("a.sgf"), record(1, b2, w2, Some("B+R"), true)).unwrap();
    let out_path = dir.path().join("out.xml");
    let out = tengen()
        .arg("results")
        .arg(&xml)
        .args(["--round", "1", "--sgf"])
        .arg(&sgf_dir)
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("table 1:") && err.contains("PB["), "{err}");
    assert!(!out_path.exists(), "nothing written");

    // The tournament file as --out, a corrupt record, a bad format: exit 2, one line.
    std::fs::write(sgf_dir.join("a.sgf"), "(;GM[1]SZ[19];B[pd").unwrap();
    for (extra, says) in [
        (
            vec!["--out".to_string(), xml.display().to_string()],
            "is the tournament file",
        ),
        (
            vec!["--out".to_string(), out_path.display().to_string()],
            "a.sgf",
        ),
        (
            vec![
                "--out".to_string(),
                out_path.display().to_string(),
                "--format".to_string(),
                "xls".to_string(),
            ],
            "--format",
        ),
    ] {
        let out = tengen()
            .arg("results")
            .arg(&xml)
            .args(["--round", "1", "--sgf"])
            .arg(&sgf_dir)
            .args(&extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!out_path.exists());
    }
}

/// A zip at `path` with one entry per `(name, text)`.
fn zip_of(path: &Path, entries: &[(String, String)]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, text) in entries {
        zip.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

/// Round `round` of sample `name` as `(table, black, white)` from `tengen pairings`.
pub(crate) fn pairings_of(name: &str, round: u32) -> Vec<(u64, String, String)> {
    let out = tengen()
        .arg("pairings")
        .arg(sample(name))
        .args(["--round", &round.to_string(), "--json"])
        .output()
        .unwrap();
    lines(&out)
        .into_iter()
        .filter(|v| v.get("table").is_some())
        .map(|v| {
            (
                v["table"].as_u64().unwrap(),
                v["black"].as_str().unwrap().to_string(),
                v["white"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `tengen results XML --round R --zip ZIP --out OUT EXTRA...`.
fn results(xml: &Path, round: u32, zip: &Path, out: &Path, extra: &[&str]) -> Output {
    tengen()
        .arg("results")
        .arg(xml)
        .args(["--round", &round.to_string(), "--zip"])
        .arg(zip)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_zip_of_another_round_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("juvisy.xml");
    std::fs::copy(sample("juvisy.xml"), &xml).unwrap();
    let entries: Vec<(String, String)> = pairings_of("juvisy.xml", 1)
        .iter()
        .map(|(t, b, w)| (format!("r1-t{t}.sgf"), record(*t, b, w, Some("B+R"), true)))
        .collect();
    let zip = dir.path().join("1.zip");
    zip_of(&zip, &entries);
    let out = dir.path().join("out.xml");
    // Round 1's zip given for round 2: no record of it, nothing written.
    let o = results(&xml, 2, &zip, &out, &[]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("no record of round 2 (its records are of round 1); nothing written"),
        "{err}"
    );
    assert!(!out.exists());
    // For round 1 it is the round's zip.
    let o = results(&xml, 1, &zip, &out, &[]);
    assert!(o.status.success(), "{o:?}");
    assert!(out.exists());
}

#[test]
fn a_record_of_another_board_or_tournament_is_refused() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("t.xml");
    std::fs::copy(sample("tournoi-chinois.xml"), &xml).unwrap();
    let games = round_one();
    let (_, black, white) = &games[2];
    // Table 3's record as the hall writes it, and forgeries with the pairing's names.
    let good = record(3, black, white, Some("B+R"), true);
    let cases = [
        (
            good.replace("TENGENBOARD[table-3]", "TENGENBOARD[evil-1]"),
            "is the record of board evil-1 (TENGENBOARD), not of table 3's board table-3 \
             (--boards table-{table})",
        ),
        (
            good.replace("TENGENTOURNAMENT[cup]", "TENGENTOURNAMENT[other]"),
            "is of tournament \"other\" (TENGENTOURNAMENT), not \"cup\" (--tournament)",
        ),
        (
            good.replace("RO[1]", "RO[1]EV[Another cup]"),
            "has EV[Another cup] but the tournament file is \"Tournoi chinois\"",
        ),
        (
            good.replace("RO[1]", "RO[2]"),
            "has RO[2] but GN[r1-t3] is of round 1",
        ),
        (
            good.replace("TENGENBOARD[table-3]", ""),
            "names no board (TENGENBOARD): not a record of a hall's round zip",
        ),
    ];
    let out = dir.path().join("out.xml");
    let zip = dir.path().join("1.zip");
    for (forged, says) in &cases {
        zip_of(&zip, &[("r1-t3.sgf".to_string(), forged.clone())]);
        let o = results(&xml, 1, &zip, &out, &["--tournament", "cup"]);
        assert_eq!(o.status.code(), Some(2), "{says}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!(
                "table 3: {}:r1-t3.sgf {says}; nothing written",
                zip.display()
            )),
            "{says}\n{err}"
        );
        assert!(!out.exists(), "{says}: nothing written");
    }
    // The hall's record is written; the result an arbiter confirmed (TENGENRESULT) wins
    // over the board's RE.
    let confirmed = good.replace("RE[B+R]", "RE[W+F]TENGENRESULT[RESULT_BLACKWINS]");
    zip_of(&zip, &[("r1-t3.sgf".to_string(), confirmed)]);
    let o = results(&xml, 1, &zip, &out, &["--tournament", "cup"]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(snapshot(&out, 1)["results"]["3"], "RESULT_BLACKWINS");
    // A record typed in by hand, in a folder, names no board: it is taken.
    let folder = dir.path().join("by-hand");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("t3.sgf"),
        good.replace("TENGENBOARD[table-3]TENGENTOURNAMENT[cup]", ""),
    )
    .unwrap();
    let o = tengen()
        .arg("results")
        .arg(&xml)
        .args(["--round", "1", "--sgf"])
        .arg(&folder)
        .arg("--out")
        .arg(dir.path().join("by-hand.xml"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        snapshot(&dir.path().join("by-hand.xml"), 1)["results"]["3"],
        "RESULT_BLACKWINS"
    );
}

#[test]
fn pairings_into_a_closed_pipe_stop_quietly() {
    // `tengen pairings ... | head -1`: the reader has gone before the writing starts.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = tengen()
        .arg("pairings")
        .arg(sample("juvisy.xml"))
        .args(["--round", "1"])
        .stdout(writer)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_name_with_a_control_character_is_refused_by_pairings() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("juvisy.xml");
    let text = std::fs::read_to_string(sample("juvisy.xml"))
        .unwrap()
        .replace("name=\"Vargas\"", "name=\"Vargas&#27;[2J\"");
    std::fs::write(&xml, text).unwrap();
    let out = tengen()
        .arg("pairings")
        .arg(&xml)
        .args(["--round", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "nothing printed raw");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(
        err.contains(
            "Player \"Vargas\\u{1b}[2J Olga\" at line 5: name holds the control character U+001B"
        ),
        "{err}"
    );
}
