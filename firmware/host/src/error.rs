//! Why an emulated run could not start or stopped. Every message is one line.

use std::path::PathBuf;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum EmulatorError {
    /// Node.js is not on `PATH`.
    #[error(
        "node is not on PATH: install Node.js 18 or later (Debian: apt-get install nodejs npm)"
    )]
    NoNode,
    /// The harness's npm packages are not installed.
    #[error("rp2040js is not installed in {0}: run `npm ci --prefix {0}`")]
    NoEmulator(PathBuf),
    /// The firmware image is not built.
    #[error(
        "the firmware image {0} is missing: run firmware/build-image \
         (it needs `rustup target add thumbv6m-none-eabi`)"
    )]
    NoImage(PathBuf),
    /// The board service's binary is missing.
    #[error("the board service {0} is missing: cargo build --release -p tengen-daemon")]
    NoService(PathBuf),
    /// A file or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// The emulator process ended or broke the protocol.
    #[error("the emulator stopped ({status}): {detail}")]
    Died {
        /// Its exit status, or "running".
        status: String,
        /// The error and its last line on stderr.
        detail: String,
    },
    /// The emulator said something unexpected.
    #[error("the emulator: {0}")]
    Protocol(String),
    /// The game could not be set up.
    #[error("{0}")]
    Game(String),
    /// The board service failed.
    #[error("the board service: {0}")]
    Service(String),
}

impl EmulatorError {
    /// An I/O error while doing `what`.
    pub fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> EmulatorError {
        let what = what.into();
        move |source| EmulatorError::Io { what, source }
    }
}
