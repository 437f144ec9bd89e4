//! `tengen sim` (SPEC.md, "Command line").

use super::args::SimArgs;
use super::CliError;

/// Runs `tengen sim`.
pub fn run(_args: SimArgs) -> Result<(), CliError> {
    Err(CliError::work("tengen sim: not built yet"))
}
