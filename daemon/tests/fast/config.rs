//! The config file: the wire contract's keys and defaults, errors named by key path, every problem
//! reported, and no panic on any text.

use std::net::SocketAddr;
use std::path::PathBuf;

use proptest::prelude::*;
use tengen_daemon::config::*;

fn problems(text: &str) -> Vec<String> {
    match Config::from_toml_str(text, "t.toml") {
        Ok(_) => Vec::new(),
        Err(ConfigError::Invalid { problems, .. }) => {
            problems.iter().map(|p| p.to_string()).collect()
        }
        Err(other) => vec![other.to_string()],
    }
}

fn ok(text: &str) -> Config {
    match Config::from_toml_str(text, "t.toml") {
        Ok(c) => c,
        Err(e) => panic!("{text}\n=> {:?}", e.lines()),
    }
}

#[test]
fn every_key_has_specs_default() {
    let c = ok("[board]\nid = \"hall1-07\"\n");
    assert_eq!(c.board.id, "hall1-07");
    assert_eq!(c.board.tournament, "demo");
    assert_eq!(c.board.size, 19);
    assert_eq!(c.board.black_side, Side::South);
    assert_eq!(c.board.game, "game-1");
    assert_eq!(c.hardware.backend, Backend::Sim);
    assert_eq!(c.hardware.scan_hz, 100);
    assert_eq!(
        c.hardware.calibration,
        PathBuf::from("/var/lib/tengen/calibration.json")
    );
    assert_eq!(
        c.hardware.sim.source,
        SimSource::Sgf(PathBuf::from("games/demo.sgf"))
    );
    assert_eq!(c.hardware.sim.seed, 1);
    assert_eq!(c.hardware.sim.noise, 0.0);
    assert_eq!(c.hardware.sim.speed, 1.0);
    assert_eq!(c.hardware.serial.path, PathBuf::from("/dev/ttyACM0"));
    assert_eq!(c.hardware.serial.baud, 1_000_000);
    assert!(c.hardware.rpi.is_empty());
    assert_eq!(c.detection.stable_ms, 150);
    assert_eq!(c.detection.pass_grace_ms, 2000);
    assert_eq!(c.detection.disturbed_points, 6);
    assert_eq!(c.game.komi, 7.5);
    assert_eq!(c.game.handicap, 0);
    assert_eq!(c.game.superko, Superko::Situational);
    assert_eq!(c.game.penalties, Penalties::Arbiter);
    assert_eq!(
        (
            &*c.game.black,
            &*c.game.white,
            &*c.game.round,
            &*c.game.table
        ),
        ("", "", "", "")
    );
    assert_eq!(c.time.system, TimeSystem::Byoyomi);
    assert_eq!(c.time.main_ms, 3_600_000);
    assert_eq!(c.time.periods, 5);
    assert_eq!(c.time.period_ms, 60_000);
    assert_eq!(c.time.stones, 25);
    assert_eq!(c.time.increment_ms, 20_000);
    assert_eq!(c.time_control().to_string(), "byoyomi 60m 5x60s");
    assert_eq!(c.mqtt.url, MqttUrl::Embedded);
    assert_eq!(
        c.mqtt.listen,
        "127.0.0.1:1883".parse::<SocketAddr>().unwrap()
    );
    assert_eq!(c.mqtt.prefix, "tengen");
    assert_eq!(c.mqtt.client_id, "tengen-hall1-07");
    assert_eq!(c.mqtt.keepalive_ms, 30_000);
    assert_eq!(c.mqtt.ca_file, None);
    assert_eq!(c.mqtt.cert_file, None);
    assert_eq!(c.mqtt.key_file, None);
    assert_eq!(c.mqtt.username, None);
    assert_eq!(c.mqtt.password_file, None);
    assert_eq!(
        c.http.listen,
        "127.0.0.1:8080".parse::<SocketAddr>().unwrap()
    );
    assert_eq!(c.storage.dir, PathBuf::from("/var/lib/tengen"));
    assert_eq!(c.storage.low_mb, 64);
    assert_eq!(c.topic_root(), "tengen/demo/hall1-07");
    assert_eq!(c, Config::default_for("hall1-07"));
}

#[test]
fn specs_example_block_reads_as_written() {
    let c = ok(r#"
[board]
id = "hall1-07"
tournament = "demo"
size = 19
black_side = "north"

[hardware]
backend = "serial"
scan_hz = 50

[hardware.sim]
script = "scenario.txt"
seed = 9
noise = 0.01
speed = 10.0

[detection]
stable_ms = 200
pass_grace_ms = 1500
disturbed_points = 8

[game]
komi = 6
handicap = 3
superko = "positional"
penalties = "auto"

[time]
system = "canadian"
main = "10m"
stones = 15
period = "10m"

[mqtt]
url = "mqtt://10.0.0.2"
listen = "0.0.0.0:1884"
prefix = "club/tengen"

[http]
listen = "[::1]:8081"

[storage]
dir = "data"
"#);
    assert_eq!(c.board.black_side, Side::North);
    assert_eq!(c.hardware.backend, Backend::Serial);
    assert_eq!(c.hardware.scan_hz, 50);
    assert_eq!(
        c.hardware.sim.source,
        SimSource::Script("scenario.txt".into())
    );
    assert_eq!(
        (
            c.hardware.sim.seed,
            c.hardware.sim.noise,
            c.hardware.sim.speed
        ),
        (9, 0.01, 10.0)
    );
    assert_eq!(
        (
            c.detection.stable_ms,
            c.detection.pass_grace_ms,
            c.detection.disturbed_points
        ),
        (200, 1500, 8)
    );
    assert_eq!((c.game.komi, c.game.handicap), (6.0, 3));
    assert_eq!(c.game.superko, Superko::Positional);
    assert_eq!(c.game.penalties, Penalties::Auto);
    assert_eq!(c.time_control().to_string(), "canadian 10m 15/10m");
    assert_eq!(
        c.mqtt.url,
        MqttUrl::Broker {
            tls: false,
            host: "10.0.0.2".into(),
            port: 1883
        }
    );
    assert_eq!(c.mqtt.url.to_string(), "mqtt://10.0.0.2:1883");
    assert_eq!(c.topic_root(), "club/tengen/demo/hall1-07");
    assert_eq!(c.http.listen, "[::1]:8081".parse::<SocketAddr>().unwrap());
    assert_eq!(c.storage.dir, PathBuf::from("data"));
}

#[test]
fn time_controls_are_written_in_the_script_form() {
    let tc = |body: &str| {
        ok(&format!("[board]\nid = \"b\"\n[time]\n{body}"))
            .time_control()
            .to_string()
    };
    assert_eq!(tc("system = \"none\""), "none");
    assert_eq!(tc("system = \"absolute\"\nmain = \"30m\""), "absolute 30m");
    assert_eq!(
        tc("system = \"byoyomi\"\nmain = \"1h\"\nperiods = 3\nperiod = \"30s\""),
        "byoyomi 60m 3x30s"
    );
    assert_eq!(
        tc("system = \"fischer\"\nmain = \"10m\"\nincrement = \"20s\""),
        "fischer 10m +20s"
    );
    assert_eq!(
        tc("system = \"byoyomi\"\nmain = \"0s\"\nperiod = \"1500ms\""),
        "byoyomi 0s 5x1500ms"
    );
}

#[test]
fn unknown_keys_are_named_by_path() {
    assert_eq!(
        problems("[board]\nid = \"b\"\n[time]\nperods = 5\n"),
        vec!["time.perods: unknown key"]
    );
    assert_eq!(
        problems("colour = 1\n[board]\nid = \"b\"\n[hardware.sim]\nsed = 3\n[hardware.serial]\nbaut = 9600\n[network]\n"),
        vec![
            "colour: unknown key",
            "network: unknown key",
            "hardware.sim.sed: unknown key",
            "hardware.serial.baut: unknown key",
        ]
    );
}

#[test]
fn bad_values_are_named_by_path() {
    let cases = [
        ("[board]\nid = \"Hall 7\"", r#"board.id: "Hall 7" is not [a-z0-9-]"#),
        ("[board]\nid = \"b\"\n[time]\nmain = \"60q\"", r#"time.main: "60q" is not a duration"#),
        ("[board]\nid = \"b\"\n[game]\nkomi = 7.3", "game.komi: 7.3 is not a multiple of 0.5"),
        ("[board]\nid = \"b\"\n[detection]\nstable_ms = 0", "detection.stable_ms: must be > 0"),
        ("[board]\nid = \"b\"\n[detection]\nstable_ms = -5", "detection.stable_ms: must be > 0"),
        ("[board]\nid = \"b\"\nsize = 26", "board.size: 26 is not in 2..=25"),
        ("[board]\nid = \"b\"\nsize = \"19\"", "board.size: expected an integer, found a string"),
        ("[board]\nid = \"b\"\nblack_side = \"up\"", r#"board.black_side: "up" is not one of south|north|east|west"#),
        ("[board]\nid = \"b\"\nlang = \"fr\"", r#"board.lang: "fr" is not one of en|zh|zh-Hant|ja"#),
        ("[board]\nid = \"b\"\n[display]\nlang = \"ko\"", r#"display.lang: "ko" is not one of en|zh|zh-Hant|ja"#),
        ("[board]\nid = \"b\"\ntournament = \"Open\"", r#"board.tournament: "Open" is not [a-z0-9-]"#),
        ("[board]\nid = \"b\"\ngame = \"\"", r#"board.game: "" is not [a-z0-9-]"#),
        ("[board]\nid = \"b\"\n[hardware]\nbackend = \"usb\"", r#"hardware.backend: "usb" is not one of rpi|serial|sim"#),
        ("[board]\nid = \"b\"\n[hardware]\nscan_hz = 0", "hardware.scan_hz: 0 is not in 1..=1000"),
        ("[board]\nid = \"b\"\n[hardware.sim]\nnoise = 1.5", "hardware.sim.noise: 1.5 is not in 0 <= p < 1"),
        ("[board]\nid = \"b\"\n[hardware.sim]\nspeed = 0", "hardware.sim.speed: 0 is not in 0 < speed <= 10000"),
        ("[board]\nid = \"b\"\n[hardware.sim]\nseed = -1", "hardware.sim.seed: -1 must be >= 0"),
        ("[board]\nid = \"b\"\n[hardware.sim]\nsgf = \"a.sgf\"\nscript = \"b.txt\"", "hardware.sim: give sgf or script, not both"),
        ("[board]\nid = \"b\"\n[hardware.serial]\nbaud = 0", "hardware.serial.baud: 0 is not in 300..=20000000"),
        ("[board]\nid = \"b\"\n[hardware]\nsim = 3", "hardware.sim: expected a table, found an integer"),
        ("[board]\nid = \"b\"\n[detection]\ndisturbed_points = 1", "detection.disturbed_points: 1 is not in 2..=625"),
        ("[board]\nid = \"b\"\n[game]\nhandicap = 1", "game.handicap: 1 is not 0 or 2..=9"),
        ("[board]\nid = \"b\"\n[game]\nsuperko = \"japanese\"", r#"game.superko: "japanese" is not one of situational|positional"#),
        ("[board]\nid = \"b\"\n[game]\npenalties = \"none\"", r#"game.penalties: "none" is not one of arbiter|auto"#),
        ("[board]\nid = \"b\"\n[game]\nclock_start = \"later\"", r#"game.clock_start: "later" is not one of arbiter|white|now"#),
        ("[board]\nid = \"b\"\n[game]\nlate_limit_s = 0", "game.late_limit_s: 0 is not in 1..=86400"),
        ("[board]\nid = \"b\"\n[game]\nlate_rule = \"triple\"", r#"game.late_rule: "triple" is not one of double|byoyomi"#),
        ("[board]\nid = \"b\"\n[game]\nkomi = \"7.5\"", "game.komi: expected a number, found a string"),
        ("[board]\nid = \"b\"\n[game]\nkomi = nan", "game.komi: NaN is not a finite number"),
        ("[board]\nid = \"b\"\n[time]\nsystem = \"hourglass\"", r#"time.system: "hourglass" is not one of none|absolute|byoyomi|canadian|fischer"#),
        ("[board]\nid = \"b\"\n[time]\nmain = 60", "time.main: expected a string, found an integer"),
        ("[board]\nid = \"b\"\n[time]\nperiods = 0", "time.periods: 0 is not in 1..=1000"),
        ("[board]\nid = \"b\"\n[time]\nsystem = \"absolute\"\nmain = \"0s\"", r#"time.main: must be > 0 with system = "absolute""#),
        ("[board]\nid = \"b\"\n[time]\nperiod = \"0s\"", r#"time.period: must be at least 1s with system = "byoyomi""#),
        ("[board]\nid = \"b\"\n[mqtt]\nurl = \"http://x\"", r#"mqtt.url: "http://x" is not embedded, mqtt://host:port or mqtts://host:port"#),
        ("[board]\nid = \"b\"\n[mqtt]\nurl = \"mqtt://h:99999\"", r#"mqtt.url: "mqtt://h:99999" has no valid port"#),
        ("[board]\nid = \"b\"\n[mqtt]\nlisten = \"localhost\"", r#"mqtt.listen: "localhost" is not an address:port like "127.0.0.1:1883""#),
        ("[board]\nid = \"b\"\n[mqtt]\nprefix = \"a/#\"", r#"mqtt.prefix: "a/#" is not [a-z0-9-] levels separated by '/'"#),
        ("[board]\nid = \"b\"\n[mqtt]\nkeepalive = \"1s\"", "mqtt.keepalive: must be between 5s and 65535s"),
        ("[board]\nid = \"b\"\n[mqtt]\nclient_id = \"a b\"", r#"mqtt.client_id: "a b" is not 1..=64 printable ASCII characters"#),
        ("[board]\nid = \"b\"\n[mqtt]\nurl = \"mqtts://h\"", "mqtt.ca_file: required with an mqtts:// url"),
        ("[board]\nid = \"b\"\n[mqtt]\nurl = \"mqtt://h\"\nca_file = \"ca.pem\"", r#"mqtt.ca_file: needs url = "mqtts://host:port""#),
        ("[board]\nid = \"b\"\n[mqtt]\nurl = \"mqtts://h\"\nca_file = \"ca.pem\"\ncert_file = \"c.pem\"", "mqtt.key_file: cert_file and key_file go together: give both"),
        ("[board]\nid = \"b\"\n[mqtt]\nurl = \"mqtt://h\"\npassword_file = \"pw\"", "mqtt.username: required with password_file"),
        ("[board]\nid = \"b\"\n[mqtt]\nusername = \"u\"", "mqtt.username: the embedded broker takes no login: set url to an external broker"),
        ("[board]\nid = \"b\"\n[http]\nlisten = \"8080\"", r#"http.listen: "8080" is not an address:port like "127.0.0.1:1883""#),
        ("[board]\nid = \"b\"\n[storage]\ndir = \"\"", "storage.dir: must not be empty"),
        ("[board]\nid = \"b\"\n[storage]\nlow_mb = -1", "storage.low_mb: -1 is not in 0..=1000000"),
        ("[board]\nid = \"b\"\n[storage]\nlow_mb = \"64M\"", "storage.low_mb: expected an integer, found a string"),
        ("[board]\nid = \"b\"\nsize = 5\n[game]\nhandicap = 2", "game.handicap: a handicap needs a board of at least 7x7, not 5"),
        ("[board]\ntournament = \"t\"", "board.id: required"),
        ("", "board.id: required"),
        ("board = 5", "board: expected a table, found an integer"),
    ];
    for (text, expected) in cases {
        let got = problems(text);
        assert!(
            got.iter().any(|p| p == expected),
            "for {text:?}\nexpected {expected:?}\ngot {got:?}"
        );
    }
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let got = problems(
        "[board]\nid = \"Hall 7\"\n[time]\nperods = 5\nmain = \"60q\"\n[game]\nkomi = 7.3\n[detection]\nstable_ms = 0\n",
    );
    assert_eq!(got.len(), 5, "{got:?}");
    for expected in [
        "board.id: \"Hall 7\" is not [a-z0-9-]",
        "time.perods: unknown key",
        "time.main: \"60q\" is not a duration",
        "game.komi: 7.3 is not a multiple of 0.5",
        "detection.stable_ms: must be > 0",
    ] {
        assert!(
            got.iter().any(|p| p == expected),
            "{expected} missing in {got:?}"
        );
    }
    let err = Config::from_toml_str("[board]\nid = \"Hall 7\"\n[time]\nperods = 5\n", "b.toml")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "b.toml: board.id: \"Hall 7\" is not [a-z0-9-] (and 1 more problems)"
    );
    assert_eq!(
        err.lines(),
        vec![
            "b.toml: board.id: \"Hall 7\" is not [a-z0-9-]",
            "b.toml: time.perods: unknown key"
        ]
    );
}

#[test]
fn syntax_errors_name_line_and_column_on_one_line() {
    let err = Config::from_toml_str("[board]\nid = \"b\"\nsize = = 3\n", "x.toml").unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("x.toml:3:"), "{text}");
    assert!(!text.contains('\n'), "{text}");
}

#[test]
fn load_resolves_relative_paths_against_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.toml");
    std::fs::write(
        &path,
        "[board]\nid = \"b\"\n[hardware]\ncalibration = \"cal.json\"\n[hardware.sim]\nscript = \"s.txt\"\n[storage]\ndir = \"/abs\"\n",
    )
    .unwrap();
    let c = Config::load(&path).unwrap();
    assert_eq!(c.hardware.calibration, dir.path().join("cal.json"));
    assert_eq!(
        c.hardware.sim.source,
        SimSource::Script(dir.path().join("s.txt"))
    );
    assert_eq!(c.storage.dir, PathBuf::from("/abs"));
    let missing = Config::load(dir.path().join("nope.toml")).unwrap_err();
    assert!(missing.to_string().contains("nope.toml"), "{missing}");
}

#[test]
fn check_config_looks_for_the_files_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.toml");
    std::fs::write(
        &path,
        "[board]\nid = \"b\"\n[hardware.sim]\nsgf = \"games/none.sgf\"\n[mqtt]\nurl = \"mqtts://h\"\nca_file = \"ca.pem\"\nopen_commands = true\n",
    )
    .unwrap();
    let missing: Vec<String> = check_config(&path)
        .unwrap()
        .missing_files
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(missing.len(), 3, "{missing:?}");
    assert!(missing[0].starts_with("hardware.sim.sgf: ") && missing[0].contains("none.sgf"));
    assert!(missing[1].starts_with("mqtt.ca_file: ") && missing[1].contains("ca.pem"));
    assert!(
        missing[2].starts_with("voice.dir: ")
            && missing[2].contains("25 more clips missing")
            && missing[2].contains("tengen voice --lang en --out /var/lib/tengen/voice"),
        "{}",
        missing[2]
    );
    std::fs::create_dir(dir.path().join("games")).unwrap();
    std::fs::write(dir.path().join("games/none.sgf"), "(;)").unwrap();
    std::fs::write(dir.path().join("ca.pem"), "").unwrap();
    // The clips, where the config says they are.
    let text = std::fs::read_to_string(&path).unwrap() + "[voice]\ndir = \"clips\"\n";
    std::fs::write(&path, text).unwrap();
    std::fs::create_dir(dir.path().join("clips")).unwrap();
    for name in tengen_table::sound::clip_names() {
        std::fs::write(dir.path().join("clips").join(format!("{name}.wav")), "").unwrap();
    }
    assert!(check_config(&path).unwrap().missing_files.is_empty());
}

#[test]
fn durations_read_and_write_in_specs_forms() {
    assert_eq!(parse_duration_ms("60m"), Some(3_600_000));
    assert_eq!(parse_duration_ms("250ms"), Some(250));
    assert_eq!(parse_duration_ms("1h 30m"), Some(5_400_000));
    assert_eq!(parse_duration_ms("60q"), None);
    assert_eq!(format_duration_ms(3_600_000), "60m");
    assert_eq!(format_duration_ms(30_000), "30s");
    assert_eq!(format_duration_ms(0), "0s");
    assert_eq!(format_duration_ms(1500), "1500ms");
}

const KEYS: &[(&str, &str)] = &[
    ("board", "id"),
    ("board", "size"),
    ("board", "black_side"),
    ("hardware", "backend"),
    ("hardware", "scan_hz"),
    ("hardware.sim", "noise"),
    ("hardware.sim", "seed"),
    ("detection", "stable_ms"),
    ("game", "komi"),
    ("game", "handicap"),
    ("time", "main"),
    ("time", "system"),
    ("mqtt", "url"),
    ("mqtt", "listen"),
    ("storage", "dir"),
    ("storage", "low_mb"),
    ("game", "nonsense"),
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        (-1e6f64..1e6).prop_map(|f| format!("{f:?}")),
        "[a-z0-9: ./-]{0,12}".prop_map(|s| format!("{s:?}")),
        Just("true".to_string()),
        Just("[1, 2]".to_string()),
        Just("{ a = 1 }".to_string()),
    ]
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = Config::from_toml_str(&text, "fuzz.toml");
    }

    #[test]
    fn arbitrary_values_give_a_config_or_problems_at_known_paths(
        entries in proptest::collection::vec((0..KEYS.len(), value()), 0..10)
    ) {
        let mut tables: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
        for (k, v) in entries {
            let (table, key) = KEYS[k];
            let lines = tables.entry(table).or_default();
            if !lines.iter().any(|l| l.starts_with(&format!("{key} ="))) {
                lines.push(format!("{key} = {v}"));
            }
        }
        let text: String = tables
            .iter()
            .map(|(t, lines)| format!("[{t}]\n{}\n", lines.join("\n")))
            .collect();
        match Config::from_toml_str(&text, "fuzz.toml") {
            Ok(c) => prop_assert!(is_id(&c.board.id)),
            Err(ConfigError::Invalid { problems, .. }) => {
                for p in problems {
                    prop_assert!(
                        ["board", "hardware", "detection", "game", "time", "mqtt", "storage"]
                            .iter()
                            .any(|s| p.path.starts_with(s)),
                        "{p}"
                    );
                }
            }
            Err(other) => prop_assert!(false, "valid TOML gave {other}"),
        }
    }
}

#[test]
fn the_displays_and_the_voice_have_their_defaults_and_their_checks() {
    let c = ok("[board]\nid = \"b\"\n");
    assert_eq!(c.display.driver, DisplayDriver::Ssd1306);
    assert_eq!(
        (
            c.display.i2c_bus,
            c.display.black_address,
            c.display.white_address
        ),
        (1, 0x3C, 0x3D)
    );
    assert!(!c.display.rotate_black && !c.display.rotate_white);
    assert_eq!(c.voice.style, tengen_table::VoiceStyle::Voice);
    assert_eq!(c.voice.lang, tengen_l10n::Lang::En);
    assert_eq!(c.voice.dir, PathBuf::from("/var/lib/tengen/voice"));
    assert_eq!(c.voice.volume, 1.0);
    let c = ok("[board]\nid = \"b\"\n[display]\ndriver = \"none\"\ni2c_bus = 3\nblack_address = 0x3D\nwhite_address = 0x3C\nrotate_white = true\n[voice]\nstyle = \"beep\"\nlang = \"ja\"\nvolume = 0.25\n");
    assert_eq!(c.display.driver, DisplayDriver::None);
    assert_eq!(
        (
            c.display.i2c_bus,
            c.display.black_address,
            c.display.white_address
        ),
        (3, 0x3D, 0x3C)
    );
    assert!(c.display.rotate_white);
    assert_eq!(c.voice.style, tengen_table::VoiceStyle::Beep);
    assert_eq!((c.voice.lang.tag(), c.voice.volume), ("ja", 0.25));
    let p = problems(
        "[board]\nid = \"b\"\n[display]\ndriver = \"lcd\"\nblack_address = 0x7F\nwhite_address = 0x3C\nrotate_black = \"yes\"\nsize = 2\n[voice]\nstyle = \"loud\"\nlang = \"fr\"\nvolume = 1.5\n",
    );
    for want in [
        "display.driver: \"lcd\" is not one of ssd1306, none",
        "display.black_address: 127 is not in 8..=119",
        "display.rotate_black: ",
        "display.size: unknown key",
        "voice.style: \"loud\" is not one of voice, beep, off",
        "voice.lang: \"fr\" is not one of en, zh, ja",
        "voice.volume: 1.5 is not in 0.0..=1.0",
    ] {
        assert!(p.iter().any(|l| l.starts_with(want)), "{want} in {p:#?}");
    }
    // display.lang: board.lang's by default, else its own.
    assert_eq!(c.display.lang, tengen_l10n::Lang::En);
    let c = ok("[board]\nid = \"b\"\nlang = \"ja\"\n");
    assert_eq!(c.display.lang, tengen_l10n::Lang::Ja);
    let c = ok("[board]\nid = \"b\"\nlang = \"ja\"\n[display]\nlang = \"zh-Hant\"\n");
    assert_eq!(c.display.lang, tengen_l10n::Lang::ZhHant);
    assert_eq!(c.board.lang, tengen_l10n::Lang::Ja);
    let p = problems("[board]\nid = \"b\"\n[display]\nblack_address = 0x3D\n");
    assert_eq!(
        p,
        ["display.white_address: 0x3d is Black's display's address too"]
    );
}
