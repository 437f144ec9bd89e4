//! `tengen check-config` as a user runs it: the shipped example configs pass, a bad file
//! prints every problem with its key path and exits 2.

use std::path::{Path, PathBuf};
use std::process::Command;

fn tengen(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("run tengen");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("config")
        .join(name)
}

#[test]
fn the_shipped_example_configs_pass() {
    for name in ["board.toml", "serial.toml", "demo.toml"] {
        let path = example(name);
        let (code, stdout, stderr) = tengen(&["check-config", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{name}: {stdout}{stderr}");
        assert!(stdout.contains(": ok (board "), "{stdout}");
        if name == "board.toml" {
            // The Pi's TLS, password and command key files and its voice clips are not on
            // this machine: warnings, not errors.
            assert_eq!(stderr.lines().count(), 4, "{stderr}");
            assert!(stderr.contains("voice.dir: /var/lib/tengen/voice/30.wav"));
            assert!(stderr.lines().all(|l| l.starts_with("tengen: warning: ")));
            assert!(stderr.contains("mqtt.ca_file: /etc/tengen/hall-ca.pem"));
            assert!(stderr.contains("mqtt.command_key_file: /etc/tengen/command.key"));
        } else {
            assert!(stderr.is_empty(), "{name}: {stderr}");
        }
    }
    let (_, stdout, _) = tengen(&["check-config", example("board.toml").to_str().unwrap()]);
    assert!(stdout.contains("backend rpi"), "{stdout}");
    assert!(stdout.contains("byoyomi 60m 5x60s"), "{stdout}");
}

#[test]
fn a_bad_config_prints_every_problem_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        "[board]\nid = \"Hall 7\"\n[time]\nperods = 5\nmain = \"60q\"\n[game]\nkomi = 7.3\n[detection]\nstable_ms = 0\n",
    )
    .unwrap();
    let (code, stdout, stderr) = tengen(&["check-config", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 5, "{stderr}");
    for key in [
        "board.id: \"Hall 7\" is not [a-z0-9-]",
        "time.perods: unknown key",
        "time.main: \"60q\" is not a duration",
        "game.komi: 7.3 is not a multiple of 0.5",
        "detection.stable_ms: must be > 0",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("tengen: ") && l.contains("bad.toml: ") && l.ends_with(key)),
            "{key} missing in\n{stderr}"
        );
    }
    // Every command that reads a board config says the same five lines, and starts nothing.
    for command in [
        &["run", "--config"][..],
        &["sim", "--sgf", "/nonexistent/game.sgf", "--config"],
        &["calibrate", "--config"],
    ] {
        let mut args = command.to_vec();
        args.push(path.to_str().unwrap());
        let (code, _, again) = tengen(&args);
        assert_eq!((code, again.as_str()), (2, stderr.as_str()), "{args:?}");
    }
}

#[test]
fn a_bad_hall_config_prints_every_problem_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hall.toml");
    std::fs::write(&path, "colour = 1\n[broadcast]\ndelay = \"soon\"\n").unwrap();
    let (code, stdout, stderr) = tengen(&[
        "hall",
        "--broker",
        "mqtt://127.0.0.1:1",
        "--config",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with("tengen: ") && lines[0].ends_with("hall.toml: colour: unknown key"),
        "{stderr}"
    );
    assert!(
        lines[1].contains("hall.toml: broadcast.delay: "),
        "{stderr}"
    );
}

#[test]
fn a_missing_or_malformed_file_is_one_line_and_exit_2() {
    let (code, _, stderr) = tengen(&["check-config", "/nonexistent/board.toml"]);
    assert_eq!(code, 2);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/nonexistent/board.toml"), "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    std::fs::write(&path, "[board\nid = 1\n").unwrap();
    let (code, _, stderr) = tengen(&["check-config", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("broken.toml:1:"), "{stderr}");
}

#[test]
fn check_config_checks_a_hall_config() {
    // The example hall.toml: its placeholder logins, each named by key, exit 2.
    let (code, stdout, stderr) = tengen(&["check-config", example("hall.toml").to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].contains("hall.toml: arbiter[0].password_hash: the example file's secret"));
    assert!(lines[1].contains("hall.toml: arbiter[1].token: the example file's secret"));

    // A sound one: exit 0 and a summary; an arbiter without the command key, a warning.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tournament/tests/data/opengotha/juvisy.xml"),
        dir.path().join("juvisy.xml"),
    )
    .unwrap();
    let path = dir.path().join("hall.toml");
    let sound = "[hall]\narchive_dir = \"archive\"\n\
                 [tournament]\nfile = \"juvisy.xml\"\nboards = \"hall1-{table:02}\"\nid = \"juvisy\"\n\
                 [[arbiter]]\nname = \"chief\"\ntoken = \"0123456789abcdef\"\n";
    std::fs::write(&path, sound).unwrap();
    let (code, stdout, stderr) = tengen(&["check-config", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "{}: ok (hall: prefix tengen, 1 arbiter(s)",
            path.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("boards hall1-{table:02}, id juvisy"),
        "{stdout}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("tengen: warning: ")
            && stderr
                .contains("hall.toml: arbiter: 1 arbiter login(s) but no hall.command_key_file"),
        "{stderr}"
    );
    // With the key, no warning.
    let key = dir.path().join("command.key");
    std::fs::write(&key, "0123456789abcdef0123456789abcdef\n").unwrap();
    std::fs::write(
        &path,
        sound.replace("[hall]\n", "[hall]\ncommand_key_file = \"command.key\"\n"),
    )
    .unwrap();
    let (code, _, stderr) = tengen(&["check-config", path.to_str().unwrap()]);
    assert_eq!((code, stderr.as_str()), (0, ""));

    // A wrong key, or a tournament file that is not one: exit 2, one line naming the key.
    for (text, says) in [
        (
            sound.replace("archive_dir", "archive"),
            "hall.toml: hall.archive: unknown key",
        ),
        (
            sound.replace("juvisy.xml", "hall.toml"),
            "hall.toml: tournament.file: ",
        ),
    ] {
        std::fs::write(&path, text).unwrap();
        let (code, stdout, stderr) = tengen(&["check-config", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{says}: {stdout}{stderr}");
        assert!(stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("tengen: ") && stderr.contains(says),
            "{says}: {stderr}"
        );
    }
    // A board's config is still a board's.
    let (code, stdout, _) = tengen(&["check-config", example("demo.toml").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains(": ok (board "), "{stdout}");
}
