//! `tengen run` (SPEC.md, "Command line").

use super::args::RunArgs;
use super::CliError;

/// Runs `tengen run`.
pub fn run(_args: RunArgs) -> Result<(), CliError> {
    Err(CliError::work("tengen run: not built yet"))
}
