//! `tengen score` (SPEC.md, "Command line").

use super::args::ScoreArgs;
use super::CliError;

/// Runs `tengen score`.
pub fn run(_args: ScoreArgs) -> Result<(), CliError> {
    Err(CliError::work("tengen score: not built yet"))
}
