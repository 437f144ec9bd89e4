//! The short form of the fuzzing (the long run is AFL++ on `fuzz/`, see `fuzz/run.sh`):
//! every reader of outside input — SGF, serial frames, simulator scripts, config, MQTT
//! commands (the decoder and the board's checked path), the hall's intake, the hall's
//! config, the console's command POST — gets its seed corpus (`fuzz/corpus/`), the inputs AFL
//! found (`fuzz/found/`: its queue and any crash, each crash fixed), arbitrary bytes and
//! mutated seeds, and must answer each with an acceptance or a one-line error, never a
//! panic. The input functions are the AFL targets' own (`fuzz/src/targets.rs`).

#[path = "../../../fuzz/src/targets.rs"]
// The AFL crate uses these as its public API; here they are a private module.
#[allow(dead_code, unreachable_pub)]
mod targets;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use targets::{Verdict, TARGETS};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The files of `fuzz/{dir}/{target}` (empty when the directory does not exist), sorted.
fn inputs(dir: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let path = repo().join("fuzz").join(dir).join(target);
    let Ok(entries) = std::fs::read_dir(&path) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, bytes)
        })
        .collect()
}

fn target(name: &str) -> fn(&[u8]) -> Verdict {
    TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .unwrap_or_else(|| panic!("no target {name}"))
}

/// Runs a target on one input, naming the input if it panics.
fn run(name: &str, path: &Path, bytes: &[u8]) -> Verdict {
    let f = target(name);
    match std::panic::catch_unwind(|| f(bytes)) {
        Ok(v) => v,
        Err(_) => panic!("target {name} panicked on {}", path.display()),
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn every_target_has_seeds() {
    for (name, _) in TARGETS {
        assert!(
            inputs("corpus", name).len() >= 3,
            "fuzz/corpus/{name} has fewer than 3 seeds (run python3 fuzz/make_seeds.py)"
        );
    }
}

#[test]
fn real_inputs_in_the_seed_corpus_are_accepted() {
    // Every seed is a real input of the repo; the ones tengen refuses are named, with why.
    let refused_on_purpose = [
        // The hall's config is not a board config.
        "config_hall.toml",
        // sgfmill's reader fixtures: property tests, not legal games (a stone is played
        // on an occupied point), so the replay through the rules refuses them.
        "rules_tests_fixtures_sgf_sgfmill_1.sgf",
        "rules_tests_fixtures_sgf_sgfmill_2.sgf",
        "rules_tests_fixtures_sgf_sgfmill_3.sgf",
        "rules_tests_fixtures_sgf_sgfmill_4.sgf",
    ];
    let mut wrong = Vec::new();
    for (name, _) in TARGETS {
        for (path, bytes) in inputs("corpus", name) {
            let verdict = run(name, &path, &bytes);
            let expected_refusal = refused_on_purpose.contains(&file_name(&path).as_str());
            match verdict {
                Verdict::Accepted if expected_refusal => {
                    wrong.push(format!("{}: accepted", path.display()))
                }
                Verdict::Refused(why) if !expected_refusal => {
                    wrong.push(format!("{}: refused: {why}", path.display()))
                }
                _ => {}
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn inputs_afl_found_give_no_panic() {
    // The queue and crashes of the long runs (small, minimised); each crash found was a
    // bug, fixed, and stays here as a regression input.
    let mut total = 0;
    for (name, _) in TARGETS {
        for (path, bytes) in inputs("found", name) {
            let _ = run(name, &path, &bytes);
            total += 1;
        }
    }
    assert!(total > 0, "fuzz/found is empty");
}

/// A `pause` whose id is a megabyte long.
static MEGABYTE_ID: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
    format!("{{\"id\":\"{}\",\"type\":\"pause\"}}", "x".repeat(1 << 20)).into_bytes()
});

#[test]
fn broken_inputs_get_a_one_line_error() {
    let cases: &[(&str, &[u8])] = &[
        ("sgf", b"(;FF[4]GM[1]SZ[19];B[zz])"),
        ("sgf", b"(;SZ[9];B[aa];W[aa])"),
        ("sgf", b"\xff\xfe(;"),
        ("serial", b"\x00\x05TG\x01\x12garbage\x00"),
        ("serial", b"\x12\x00\x00\x00\x00\x00\x00\x13"),
        ("script", b"size 9\nplace B Z99\n"),
        ("script", b"plaec B C3\n"),
        ("config", b"[board\nid = 1"),
        (
            "config",
            b"[board]\nid = \"Bad Id\"\n[time]\nmain = \"soon\"\n",
        ),
        ("command", br#"{"id":"1","type":"explode"}"#),
        // Found by AFL: serde quotes the unknown name as sent, here with a newline in it.
        (
            "command",
            b"{\"id\":\"c3\",\"type\":\"c\\nfirm\",\"alert\":\"a1\"}",
        ),
        (
            "command",
            b"{\"id\":\"1\",\n\"type\":\"pause\",\"extra\":1}",
        ),
        ("hall", b"not/a/topic\npayload"),
        // The board's own path (decode_checked): a newline in `type`, in an unknown field's
        // name, in a field the service would quote back; a megabyte id.
        (
            "command_checked",
            b"{\"id\":\"c3\",\"type\":\"c\\nfirm\",\"alert\":\"a1\"}",
        ),
        (
            "command_checked",
            b"{\"id\":\"c4\",\"type\":\"pause\",\"ex\\ntra\":1}",
        ),
        (
            "command_checked",
            b"{\"id\":\"c5\",\"type\":\"confirm\",\"alert\":\"a1\\nb\"}",
        ),
        ("command_checked", &MEGABYTE_ID),
        ("hall_config", b"[hall\nidentity = 1"),
        ("hall_config", b"[hall]\nnot_a_key = true\n[broadcast]\ndelay_moves = -1\n"),
        (
            "console_command",
            b"{\"tournament\":\"open-2026\",\"board\":\"hall1-07\",\"type\":\"new\\ngame\"}",
        ),
        (
            "console_command",
            b"{\"tournament\":\"open-2026\",\"board\":\"hall1-07\",\"type\":\"new_game\",\"black\":\"a\\u001b[2J\"}",
        ),
        ("console_command", br#"{"type":"pause"}"#),
        ("console_command", b"[1,2]"),
    ];
    for (name, bytes) in cases {
        match target(name)(bytes) {
            Verdict::Refused(why) => assert!(!why.contains('\n'), "{why}"),
            Verdict::Accepted => panic!("{name} accepted {:?}", String::from_utf8_lossy(bytes)),
        }
    }
}

#[test]
fn sgf_value_list_without_identifier_is_dropped_not_moved() {
    // Found by AFL (fuzz/found/sgf/crash-*): `[1]` after two control bytes was kept as a
    // property with an empty name, written back as `[1]` after `RE[...]`, and read again as a
    // second value of RE. It is now dropped, and the record reads back the same.
    let text = "(;FF[4]CA[UTF-8]\u{10}\u{0}[1]KM[7.5]RE[B+11.5]RU[Chinese]SZ[9];B[dg];W[ai])";
    let rec = tengen_rules::sgf::parse(text).expect("the game itself is fine");
    assert!(rec.extra_root.iter().all(|(ident, _)| !ident.is_empty()));
    assert_eq!(rec.result.as_deref(), Some("B+11.5"));
    let again = tengen_rules::sgf::parse(&tengen_rules::sgf::write(&rec)).expect("reads back");
    assert_eq!(again, rec);
    assert_eq!(targets::sgf(text.as_bytes()), Verdict::Accepted);
}

/// A seed changed the way AFL's havoc stage changes it: bytes flipped, set, removed,
/// inserted, and a piece duplicated.
fn mutate(seed: &[u8], ops: &[(u8, u16, u8)]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for &(op, at, byte) in ops {
        let at = if v.is_empty() {
            0
        } else {
            at as usize % v.len()
        };
        match op % 6 {
            0 if !v.is_empty() => v[at] ^= 1 << (byte % 8),
            1 if !v.is_empty() => v[at] = byte,
            2 if !v.is_empty() => {
                v.remove(at);
            }
            3 => v.insert(at, byte),
            4 if !v.is_empty() => {
                let end = (at + byte as usize % 16 + 1).min(v.len());
                let piece = v[at..end].to_vec();
                v.splice(at..at, piece);
            }
            _ => {
                // Interesting values for lengths and counts.
                let special = [0u8, 0xFF, 0x7F, 0x80, b'[', b']', b'\\', b'"', b'\n', b'9'];
                let b = special[byte as usize % special.len()];
                if v.is_empty() {
                    v.push(b);
                } else {
                    v[at] = b;
                }
            }
        }
    }
    v
}

/// Every seed with its target's index, read once.
fn seed_corpus() -> &'static [(usize, Vec<u8>)] {
    static SEEDS: std::sync::OnceLock<Vec<(usize, Vec<u8>)>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(|| {
        TARGETS
            .iter()
            .enumerate()
            .flat_map(|(i, (name, _))| inputs("corpus", name).into_iter().map(move |(_, b)| (i, b)))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_give_no_panic(t in 0..TARGETS.len(), bytes in any::<Vec<u8>>()) {
        let (name, f) = TARGETS[t];
        let verdict = std::panic::catch_unwind(|| f(&bytes));
        prop_assert!(verdict.is_ok(), "target {} panicked on {:?}", name, bytes);
    }

    #[test]
    fn mutated_seeds_give_no_panic(
        pick in any::<prop::sample::Index>(),
        ops in prop::collection::vec((any::<u8>(), any::<u16>(), any::<u8>()), 1..12),
    ) {
        let seeds = seed_corpus();
        prop_assume!(!seeds.is_empty());
        let (t, seed) = &seeds[pick.index(seeds.len())];
        let (name, f) = TARGETS[*t];
        let input = mutate(seed, &ops);
        let verdict = std::panic::catch_unwind(|| f(&input));
        prop_assert!(verdict.is_ok(), "target {} panicked on {:?}", name, String::from_utf8_lossy(&input));
    }
}
