//! What a valid board config leaves open (issue 15, findings 2 and 12): a board that takes
//! commands from anyone who can write its `cmd` topic, and a password sent in clear text,
//! are each one warning line from `tengen check-config` and from `tengen run`; an `mqtts://`
//! board without a command key does not start unless `mqtt.open_commands = true`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli::{stderr, tengen};

/// A sim board's config with `mqtt` as its `[mqtt]` table, in `dir`.
fn board(dir: &Path, mqtt: &str) -> PathBuf {
    std::fs::write(dir.join("game.txt"), "size 9\nplace B C3\npress B\n").unwrap();
    std::fs::write(dir.join("pw"), "s3cret\n").unwrap();
    std::fs::write(dir.join("ca.pem"), "not read by check-config\n").unwrap();
    std::fs::write(
        dir.join("command.key"),
        "00112233445566778899aabbccddeeff\n",
    )
    .unwrap();
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"b7\"\ntournament = \"open\"\nsize = 9\n\
             [hardware]\nbackend = \"sim\"\n[hardware.sim]\nscript = \"game.txt\"\n\
             [time]\nsystem = \"none\"\n[storage]\ndir = \"data\"\n[voice]\nstyle = \"off\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[mqtt]\n{mqtt}\n"
        ),
    )
    .unwrap();
    path
}

fn check(path: &Path) -> (i32, String) {
    let out = tengen(&["check-config", path.to_str().unwrap()]);
    (out.status.code().unwrap_or(-1), stderr(&out))
}

#[test]
fn an_external_broker_without_arbiters_or_key_is_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = board(dir.path(), "url = \"mqtt://127.0.0.1:1\"");
    let (code, err) = check(&path);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("tengen: warning: "), "{err}");
    assert!(
        lines[0].contains(
            "board.toml: mqtt.command_key_file: not set, nor mqtt.arbiters: anyone who can \
             write tengen/open/b7/cmd on mqtt://127.0.0.1:1 can resign, score or restart"
        ),
        "{err}"
    );

    // Said on purpose, or closed by the key: no warning.
    for mqtt in [
        "url = \"mqtt://127.0.0.1:1\"\nopen_commands = true",
        "url = \"mqtt://127.0.0.1:1\"\narbiters = [\"chief\"]\ncommand_key_file = \"command.key\"",
        "url = \"mqtt://127.0.0.1:1\"\ncommand_key_file = \"command.key\"",
        // The embedded broker on the loopback: nobody else can reach it.
        "url = \"embedded\"",
    ] {
        let path = board(dir.path(), mqtt);
        let (code, err) = check(&path);
        assert_eq!((code, err.as_str()), (0, ""), "{mqtt}");
    }
    // The embedded broker open to the network is the same risk.
    let path = board(dir.path(), "url = \"embedded\"\nlisten = \"0.0.0.0:1883\"");
    let (_, err) = check(&path);
    assert!(
        err.contains("on the embedded broker on 0.0.0.0:1883 can resign"),
        "{err}"
    );
}

/// Issue 34, item 7: arbiters named without the key that proves a command is theirs, and
/// the live page (alerts, no delay) on the network, are each one warning.
#[test]
fn arbiters_without_a_key_and_a_live_page_on_the_network_are_warned() {
    let dir = tempfile::tempdir().unwrap();
    let path = board(
        dir.path(),
        "url = \"mqtt://127.0.0.1:1\"\narbiters = [\"chief\"]",
    );
    let (code, err) = check(&path);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "board.toml: mqtt.arbiters: set without mqtt.command_key_file: a command's \"by\" \
             is not signed, so anyone who can write tengen/open/b7/cmd can send one in an \
             arbiter's name"
        ),
        "{err}"
    );
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "listen = \"127.0.0.1:0\"\n[mqtt]\nurl = \"mqtt://127.0.0.1:1\"\narbiters = [\"chief\"]",
        "listen = \"0.0.0.0:8080\"\n[mqtt]\nurl = \"embedded\"",
    );
    std::fs::write(&path, text).unwrap();
    let (code, err) = check(&path);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "board.toml: http.listen: 0.0.0.0:8080: the live page (position, clocks and open \
             alerts, with no broadcast delay) is open to the network"
        ),
        "{err}"
    );
}

#[test]
fn a_password_over_plain_mqtt_is_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = board(
        dir.path(),
        "url = \"mqtt://192.0.2.1:1883\"\nusername = \"b7\"\npassword_file = \"pw\"\n\
         command_key_file = \"command.key\"",
    );
    let (code, err) = check(&path);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "board.toml: mqtt.password_file: the password goes to mqtt://192.0.2.1:1883 in \
             clear text"
        ),
        "{err}"
    );
}

#[test]
fn an_mqtts_board_without_a_key_refuses_to_start_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let path = board(
        dir.path(),
        "url = \"mqtts://127.0.0.1:1\"\nca_file = \"ca.pem\"\narbiters = [\"chief\"]",
    );
    let expected = "mqtt.command_key_file: required with an mqtts:// url: without it anyone \
                    who can write the board's cmd topic commands it (set open_commands = true \
                    to allow that on purpose)";
    let (code, err) = check(&path);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.trim_end().ends_with(expected), "{err}");

    // `tengen run` refuses before it touches anything.
    let out = tengen(&["run", "--config", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), err);
    assert!(!dir.path().join("data").exists());

    let path = board(
        dir.path(),
        "url = \"mqtts://127.0.0.1:1\"\nca_file = \"ca.pem\"\nopen_commands = true",
    );
    let (code, err) = check(&path);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn tengen_run_says_the_warning_once_in_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = board(dir.path(), "url = \"mqtt://127.0.0.1:1\"");
    let log = dir.path().join("run.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["run", "--config", path.to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let needle = "mqtt.command_key_file: not set, nor mqtt.arbiters: anyone who can write \
                  tengen/open/b7/cmd";
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains(needle) || start.elapsed() > Duration::from_secs(30) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // Let it run on a little: the warning is said at start, not on every retry.
    std::thread::sleep(Duration::from_millis(1500));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let text = std::fs::read_to_string(&log).unwrap_or(text);
    assert_eq!(text.matches(needle).count(), 1, "{text}");
    let line = text.lines().find(|l| l.contains(needle)).unwrap();
    assert!(line.contains("WARN"), "{line}");
    assert!(line.contains("board.toml: "), "{line}");
}
