//! Why the fake microcontroller, or the live board around it, stopped.

use std::io;

use tengen_hal::serial::protocol::EncodeError;
use thiserror::Error;

/// Why the fake microcontroller stopped.
#[derive(Debug, Error)]
pub enum McuError {
    /// The source of scans failed.
    #[error("scan source failed: {0}")]
    Source(String),
    /// A scan could not be encoded (wrong point count, reading too large).
    #[error("cannot encode: {0}")]
    Encode(#[from] EncodeError),
    /// The port failed.
    #[error("serial port: {0}")]
    Io(#[from] io::Error),
    /// The pseudo-terminal could not be created.
    #[error("pseudo-terminal: {0}")]
    Pty(#[from] serialport::Error),
    /// The writer thread panicked.
    #[error("the fake microcontroller's thread panicked")]
    Panicked,
}
