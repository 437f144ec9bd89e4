//! `tengen calibrate` (SPEC.md, "Command line").

use super::args::CalibrateArgs;
use super::CliError;

/// Runs `tengen calibrate`.
pub fn run(_args: CalibrateArgs) -> Result<(), CliError> {
    Err(CliError::work("tengen calibrate: not built yet"))
}
