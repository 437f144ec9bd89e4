//! `tengen hall` (SPEC.md, "Command line").

use super::args::HallArgs;
use super::CliError;

/// Runs `tengen hall`.
pub fn run(_args: HallArgs) -> Result<(), CliError> {
    Err(CliError::work("tengen hall: not built yet"))
}
