//! `tengen check-config` (SPEC.md, "Command line").

use super::args::CheckConfigArgs;
use super::CliError;

/// Runs `tengen check-config`.
pub fn run(_args: CheckConfigArgs) -> Result<(), CliError> {
    Err(CliError::work("tengen check-config: not built yet"))
}
