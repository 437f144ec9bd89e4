//! `tengen-emulated-board` (what `firmware/run-emulated` runs) says in one line what is
//! missing and exits with 2, before starting anything.

use std::process::Command;

fn run(args: &[&str], path: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tengen-emulated-board"));
    cmd.args(args);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    let out = cmd.output().expect("run tengen-emulated-board");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn without_node_it_says_so_in_one_line() {
    let empty = tempfile::tempdir().expect("temp dir");
    let (code, err) = run(
        &["game.sgf", "--out", "record.sgf"],
        Some(&empty.path().display().to_string()),
    );
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("node is not on PATH"), "{err}");
}

#[test]
fn a_missing_image_is_named_with_the_command_that_builds_it() {
    // Only where Node.js and the emulator are installed (CI installs both): otherwise the
    // first thing missing is named instead, which the test above covers.
    if std::env::var_os("TENGEN_FIRMWARE_IMAGE").is_none() {
        eprintln!("skipping: TENGEN_FIRMWARE_IMAGE is not set");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let image = dir.path().join("no-such-image.elf");
    let (code, err) = run(
        &[
            "game.sgf",
            "--out",
            "record.sgf",
            "--image",
            &image.display().to_string(),
        ],
        None,
    );
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no-such-image.elf is missing: run firmware/build-image"),
        "{err}"
    );
}
