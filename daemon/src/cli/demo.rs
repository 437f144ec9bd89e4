//! `tengen demo` (SPEC.md, "Command line").

use super::args::DemoArgs;
use super::CliError;

/// Runs `tengen demo`.
pub fn run(_args: DemoArgs) -> Result<(), CliError> {
    Err(CliError::work("tengen demo: not built yet"))
}
