//! Results written back: only the round's `result` values change (checked byte by byte
//! here, and element by element, attribute by attribute by python3's ElementTree), the
//! DTD's verdict (`xmllint --dtdvalid`) is the same before and after, and the file is
//! replaced atomically with the old one kept.

use crate::support;

use std::path::Path;
use std::process::Command;

use support::{data, have_python, installed, python, sample};
use tengen_tournament::{write_atomically, GameResult, Tournament, TournamentError, BACKUPS_KEPT};

/// The text with every `result="..."` value emptied: what must not change.
fn without_results(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" result=\"") {
        let value = at + " result=\"".len();
        out.push_str(&rest[..value]);
        let end = rest[value..].find('"').expect("closing quote");
        rest = &rest[value + end..];
    }
    out.push_str(rest);
    out
}

/// A result for every table of the round, all different from what the file says.
fn new_results(t: &Tournament, round: u32) -> Vec<(u32, GameResult)> {
    t.round(round)
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut r = GameResult::ALL[(i + 1) % GameResult::ALL.len()];
            if r == p.result {
                r = GameResult::ALL[(i + 2) % GameResult::ALL.len()];
            }
            (p.table, r)
        })
        .collect()
}

/// ElementTree's comparison of two files: every element, attribute, text and tail the
/// same, apart from the `result` of round R's games, which must be the given ones.
const SAME_BUT_RESULTS: &str = r#"
import sys, json, xml.etree.ElementTree as ET
before = ET.parse(sys.argv[1]).getroot()
after = ET.parse(sys.argv[2]).getroot()
round_ = int(sys.argv[3])
expected = json.loads(sys.stdin.read())
seen = {}
def walk(a, b, path):
    assert a.tag == b.tag, (path, a.tag, b.tag)
    aa, ba = dict(a.attrib), dict(b.attrib)
    if path == 'Tournament/Games/Game' and int(a.get('roundNumber')) == round_ and a.get('tableNumber') in expected:
        table = a.get('tableNumber')
        assert ba.get('result') == expected[table], (table, ba.get('result'), expected[table])
        seen[table] = True
        aa.pop('result', None)
        ba.pop('result')
    assert aa == ba, (path, aa, ba)
    assert (a.text or '') == (b.text or ''), path
    assert (a.tail or '') == (b.tail or ''), path
    assert len(a) == len(b), path
    for x, y in zip(a, b):
        walk(x, y, path + '/' + x.tag)
walk(before, after, before.tag)
assert sorted(seen) == sorted(expected), (sorted(seen), sorted(expected))
print(len(seen))
"#;

fn check_round(name: &str, round: u32) {
    let original = sample(name);
    let t = Tournament::parse(&original).expect(name);
    let results = new_results(&t, round);
    assert!(!results.is_empty(), "{name} round {round} has games");
    let written = Tournament::with_results(&original, round, &results).expect("write back");

    // Byte by byte: only result values differ.
    assert_eq!(without_results(&written), without_results(&original));
    // Read back by this crate: the round's results as set, the other rounds unchanged.
    let again = Tournament::parse(&written).expect("re-read");
    for r in t.rounds() {
        for (before, after) in t.round(r).iter().zip(again.round(r)) {
            let want = if r == round {
                results
                    .iter()
                    .find(|(table, _)| *table == before.table)
                    .map_or(before.result, |&(_, res)| res)
            } else {
                before.result
            };
            assert_eq!(
                after.result, want,
                "{name} round {r} table {}",
                before.table
            );
            assert_eq!(after.black, before.black);
            assert_eq!(after.white, before.white);
        }
    }

    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in.xml");
    let output = dir.path().join("out.xml");
    std::fs::write(&input, &original).expect("write");
    std::fs::write(&output, &written).expect("write");

    if have_python() {
        let expected: serde_json::Map<String, serde_json::Value> = results
            .iter()
            .map(|(table, r)| (table.to_string(), r.as_opengotha().into()))
            .collect();
        let seen = python(
            SAME_BUT_RESULTS,
            &[
                input.to_str().expect("path"),
                output.to_str().expect("path"),
                &round.to_string(),
            ],
            Some(&serde_json::Value::Object(expected).to_string()),
        );
        assert_eq!(seen.trim(), results.len().to_string());
    }

    if installed("xmllint", "--version", "libxml2-utils") {
        let dtd = data("tournament.dtd");
        let verdict = |file: &Path| {
            let out = Command::new("xmllint")
                .arg("--noout")
                .arg("--dtdvalid")
                .arg(&dtd)
                .arg(file)
                .output()
                .expect("run xmllint");
            let name = file.to_str().expect("path");
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).replace(name, "FILE"),
            )
        };
        let (before, after) = (verdict(&input), verdict(&output));
        assert_eq!(
            before, after,
            "{name}: xmllint differs after the write-back"
        );
        let valid = before.0 == Some(0);
        // juvisy.xml has attributes the DTD does not declare; the other two validate.
        assert_eq!(valid, name != "juvisy.xml", "{name}: {}", before.1);
    }
}

#[test]
fn juvisy_round_results_written_back() {
    for round in 1..=4 {
        check_round("juvisy.xml", round);
    }
}

#[test]
fn tournoi_chinois_results_written_back() {
    check_round("tournoi-chinois.xml", 1);
}

#[test]
fn cdfo_results_written_back() {
    check_round("cdfo2020.xml", 7);
}

#[test]
fn a_missing_result_attribute_is_added() {
    let text = sample("tournoi-chinois.xml").replace(
        "<Game blackPlayer=\"李凡\" handicap=\"0\" knownColor=\"true\" result=\"RESULT_BLACKWINS\" roundNumber=\"1\" tableNumber=\"2\" whitePlayer=\"赵敏\"/>",
        "<Game blackPlayer=\"李凡\" handicap=\"0\" knownColor=\"true\" roundNumber=\"1\" tableNumber=\"2\" whitePlayer=\"赵敏\"   />",
    );
    let t = Tournament::parse(&text).expect("read");
    assert_eq!(t.round(1)[1].result, GameResult::Unknown);
    let written =
        Tournament::with_results(&text, 1, &[(2, GameResult::WhiteWinsByDefault)]).expect("write");
    assert!(written.contains(
        "<Game blackPlayer=\"李凡\" handicap=\"0\" knownColor=\"true\" roundNumber=\"1\" tableNumber=\"2\" whitePlayer=\"赵敏\" result=\"RESULT_WHITEWINS_BYDEF\"   />"
    ));
    assert_eq!(
        written.len(),
        text.len() + " result=\"RESULT_WHITEWINS_BYDEF\"".len()
    );
    let again = Tournament::parse(&written).expect("re-read");
    assert_eq!(again.round(1)[1].result, GameResult::WhiteWinsByDefault);
}

#[test]
fn no_change_asked_is_the_same_text() {
    let original = sample("juvisy.xml");
    assert_eq!(
        Tournament::with_results(&original, 2, &[]).expect("write"),
        original
    );
}

#[test]
fn a_table_not_in_the_round_is_an_error() {
    let original = sample("juvisy.xml");
    let err = Tournament::with_results(
        &original,
        1,
        &[(1, GameResult::BlackWins), (42, GameResult::BlackWins)],
    )
    .expect_err("table 42");
    assert_eq!(err.to_string(), "round 1 has no game at table 42");
    let err =
        Tournament::with_results(&original, 9, &[(1, GameResult::BlackWins)]).expect_err("round 9");
    assert_eq!(err.to_string(), "round 9 has no game at table 1");
    let err = Tournament::with_results(
        &original,
        1,
        &[(3, GameResult::BlackWins), (3, GameResult::WhiteWins)],
    )
    .expect_err("twice");
    assert_eq!(
        err.to_string(),
        "round 1 table 3: two results given for one game"
    );
    let err = Tournament::with_results("<html/>", 1, &[]).expect_err("not a tournament");
    assert!(matches!(err, TournamentError::NotOpenGotha(_)));
}

#[test]
fn writing_keeps_the_old_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("open.xml");
    assert_eq!(write_atomically(&path, "one").expect("first"), None);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "one");

    let backup = write_atomically(&path, "two")
        .expect("second")
        .expect("a backup");
    assert_eq!(backup, dir.path().join("open.xml.bak"));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "two");
    assert_eq!(std::fs::read_to_string(&backup).expect("read"), "one");

    let backup = write_atomically(&path, "three")
        .expect("third")
        .expect("a backup");
    assert_eq!(backup, dir.path().join("open.xml.1.bak"));
    assert_eq!(std::fs::read_to_string(&backup).expect("read"), "two");
    let backup = write_atomically(&path, "four")
        .expect("fourth")
        .expect("a backup");
    assert_eq!(backup, dir.path().join("open.xml.2.bak"));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "four");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("open.xml.bak")).expect("read"),
        "one"
    );

    // Nothing else is left in the directory: no temporary file.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "open.xml",
            "open.xml.1.bak",
            "open.xml.2.bak",
            "open.xml.bak"
        ]
    );
}

/// The file names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_newest_backups_are_kept_and_the_oldest_removed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.xml");
    let writes = BACKUPS_KEPT + 6;
    for i in 0..writes {
        write_atomically(&path, &format!("version {i}")).expect("write");
    }
    let last = write_atomically(&path, "latest")
        .expect("write")
        .expect("a backup");
    assert_eq!(last, dir.path().join(format!("r.xml.{}.bak", writes - 1)));
    assert_eq!(
        std::fs::read_to_string(&last).expect("read"),
        format!("version {}", writes - 1)
    );
    let names = names(dir.path());
    assert_eq!(names.len(), BACKUPS_KEPT + 1, "{names:?}");
    assert!(names.contains(&"r.xml".to_string()));
    // The oldest went: the first version's backup (r.xml.bak) and the next ones.
    assert!(!names.contains(&"r.xml.bak".to_string()), "{names:?}");
    let oldest_kept = writes - BACKUPS_KEPT;
    assert!(
        names.contains(&format!("r.xml.{oldest_kept}.bak")),
        "{names:?}"
    );
    assert!(
        !names.contains(&format!("r.xml.{}.bak", oldest_kept - 1)),
        "{names:?}"
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "latest");
}

#[test]
fn a_temporary_file_left_by_a_killed_write_is_removed_at_the_next() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.xml");
    write_atomically(&path, "one").expect("write");
    // A process id that no process has now, and one that runs (this test's parent).
    let gone = (100_000u32..)
        .find(|pid| !Path::new("/proc").join(pid.to_string()).exists())
        .expect("a free pid");
    let running = std::os::unix::process::parent_id();
    let stale = dir.path().join(format!(".r.xml.{gone}.0.tmp"));
    let live = dir.path().join(format!(".r.xml.{running}.3.tmp"));
    let other = dir.path().join(format!(".other.xml.{gone}.0.tmp"));
    for f in [&stale, &live, &other] {
        std::fs::write(f, "half a file").expect("write");
    }
    write_atomically(&path, "two").expect("write");
    assert!(!stale.exists(), "the killed write's file is gone");
    assert!(live.exists(), "a write still under way keeps its file");
    assert!(
        other.exists(),
        "another file's temporary file is left alone"
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "two");
}

#[test]
fn writing_into_a_missing_directory_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("no/such/dir/open.xml");
    let err = write_atomically(&path, "x").expect_err("no directory");
    assert!(matches!(err, TournamentError::Io { .. }));
    assert!(err.to_string().contains("no/such/dir"), "{err}");
}

#[test]
fn results_round_trip_through_a_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("juvisy.xml");
    std::fs::copy(data("juvisy.xml"), &path).expect("copy");
    let original = std::fs::read_to_string(&path).expect("read");
    let written = Tournament::with_results(&original, 4, &[(1, GameResult::Equal)]).expect("write");
    let backup = write_atomically(&path, &written)
        .expect("write")
        .expect("backup");
    assert_eq!(std::fs::read_to_string(backup).expect("read"), original);
    let t = Tournament::read(&path).expect("read");
    assert_eq!(t.round(4)[0].result, GameResult::Equal);
}
