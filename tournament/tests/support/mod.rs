//! What the tests share: the sample files, the external oracles (python3's
//! `xml.etree.ElementTree`, `xmllint`) and whether they must be there.

#![allow(dead_code, unreachable_pub)]

pub mod generate;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The three real tournaments.
pub const SAMPLES: [&str; 3] = ["juvisy.xml", "tournoi-chinois.xml", "cdfo2020.xml"];

/// A file of `tests/data/opengotha/`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/opengotha")
        .join(name)
}

/// A sample file's text.
pub fn sample(name: &str) -> String {
    std::fs::read_to_string(data(name)).expect("read sample")
}

/// True when CI demands the external oracles (`TENGEN_REQUIRE_ORACLES=1`).
pub fn oracles_required() -> bool {
    std::env::var("TENGEN_REQUIRE_ORACLES").is_ok_and(|v| v == "1")
}

/// Whether `program ARG` runs; a failure when it does not and the oracles are required,
/// otherwise a note that the test skips.
pub fn installed(program: &str, arg: &str, package: &str) -> bool {
    let ok = Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            !oracles_required(),
            "{program} is missing and TENGEN_REQUIRE_ORACLES=1: install {package}"
        );
        eprintln!("skipped: {program} is not installed (install {package})");
    }
    ok
}

/// Whether python3 runs.
pub fn have_python() -> bool {
    installed("python3", "--version", "python3")
}

/// Runs a Python script with arguments and returns its stdout, panicking with its stderr
/// when it fails.
pub fn python(script: &str, args: &[&str], stdin: Option<&str>) -> String {
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run python3");
    {
        let mut input = child.stdin.take().expect("stdin");
        input
            .write_all(stdin.unwrap_or("").as_bytes())
            .expect("write stdin");
    }
    let out = child.wait_with_output().expect("python3 output");
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("python3 prints UTF-8")
}

/// The independent reader: ElementTree's view of a tournament file, one JSON object a
/// line (`kind` = `general`, `player`, `game`, `bye`), with the time system written in
/// the script syntax by its own rules.
pub const READER: &str = r#"
import sys, json, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == 'Tournament'
def out(o): print(json.dumps(o, ensure_ascii=False))
players = {}
for p in root.findall('./Players/Player'):
    key = (p.get('name') + p.get('firstName')).replace(' ', '').upper()
    players[key] = p
    out({'kind': 'player', 'key': key, 'name': p.get('name'), 'first_name': p.get('firstName'),
         'rank': p.get('rank', '30K'), 'club': p.get('club', ''), 'country': p.get('country', ''),
         'egf_pin': p.get('egfPin', ''), 'display': p.get('name') + ' ' + p.get('firstName')})
g = root.find('./TournamentParameterSet/GeneralParameterSet')
def dur(s):
    if s > 60 and s % 60 == 0: return '%dm' % (s // 60)
    return '%ds' % s
basic = int(g.get('basicTime', '60')) * 60
cts = g.get('complementaryTimeSystem', 'CANBYOYOMI')
if cts == 'SUDDENDEATH': time = 'absolute ' + dur(basic)
elif cts == 'STDBYOYOMI': time = 'byoyomi %s 1x%s' % (dur(basic), dur(int(g.get('stdByoYomiTime', '30'))))
elif cts == 'CANBYOYOMI': time = 'canadian %s %s/%s' % (dur(basic), g.get('nbMovesCanTime', '15'), dur(int(g.get('canByoYomiTime', '300'))))
elif cts == 'FISCHER': time = 'fischer %s +%s' % (dur(basic), dur(int(g.get('fischerTime', '5'))))
out({'kind': 'general', 'name': g.get('name'), 'short_name': g.get('shortName'), 'location': g.get('location'),
     'begin': g.get('beginDate'), 'end': g.get('endDate'), 'komi': float(g.get('komi', '7.5')),
     'size': int(g.get('size', '19')), 'rounds': int(g.get('numberOfRounds', '5')), 'time': time})
for e in root.findall('./Games/Game'):
    b = players[e.get('blackPlayer')]
    w = players[e.get('whitePlayer')]
    out({'kind': 'game', 'round': int(e.get('roundNumber')), 'table': int(e.get('tableNumber')),
         'black': e.get('blackPlayer'), 'white': e.get('whitePlayer'),
         'black_name': b.get('name') + ' ' + b.get('firstName'), 'black_rank': b.get('rank', '30K'),
         'white_name': w.get('name') + ' ' + w.get('firstName'), 'white_rank': w.get('rank', '30K'),
         'handicap': int(e.get('handicap', '0')), 'known_color': e.get('knownColor', 'true') == 'true',
         'result': e.get('result', 'RESULT_UNKNOWN')})
for e in root.findall('./ByePlayers/ByePlayer'):
    out({'kind': 'bye', 'round': int(e.get('roundNumber')), 'player': e.get('player')})
"#;

/// Runs [`READER`] on a file: its JSON objects.
pub fn read_with_python(path: &Path) -> Vec<Value> {
    python(READER, &[path.to_str().expect("utf-8 path")], None)
        .lines()
        .map(|l| serde_json::from_str(l).expect("reader prints JSON"))
        .collect()
}

/// The objects of one kind.
pub fn of_kind<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}
