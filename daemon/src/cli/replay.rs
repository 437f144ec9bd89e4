//! `tengen replay` (SPEC.md, "Command line").

use super::args::ReplayArgs;
use super::CliError;

/// Runs `tengen replay`.
pub fn run(_args: ReplayArgs) -> Result<(), CliError> {
    Err(CliError::work("tengen replay: not built yet"))
}
