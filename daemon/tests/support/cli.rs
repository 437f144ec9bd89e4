//! Running the `tengen` binary from tests: its output as text, a temp file to hand it, and
//! where the fixture games are.
//!
//! Include with `#[path = "support/cli.rs"] mod cli;`. Not every test binary uses every
//! helper.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `tengen ARGS...` to completion.
pub(crate) fn tengen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("run tengen")
}

/// Standard output as text.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard output, line by line.
pub(crate) fn stdout_lines(o: &Output) -> Vec<String> {
    stdout(o).lines().map(str::to_string).collect()
}

/// Standard error as text.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `text` to `name` in `dir` and returns its path as a string argument.
pub(crate) fn sgf_file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write sgf");
    path.to_string_lossy().into_owned()
}

/// `rules/tests/fixtures`: the GNU Go games and their oracle files.
pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules/tests/fixtures")
}
