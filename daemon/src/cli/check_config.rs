//! `tengen check-config FILE` (SPEC.md, "Command line"): loads and validates a config and
//! prints every problem, one line each naming the file and the key path. Exit 0 when the
//! file is clean (it prints a one-line summary, a warning for each file the config names
//! that is missing here, and one for each risk it leaves open: [`Config::warnings`]), 2
//! when it is not.

use super::args::CheckConfigArgs;
use super::CliError;
use crate::config::{check_config, Config};

/// Runs `tengen check-config`.
pub(super) fn run(args: CheckConfigArgs) -> Result<(), CliError> {
    match check_config(&args.file) {
        Ok(checked) => {
            let file = args.file.display().to_string();
            for missing in &checked.missing_files {
                eprintln!("tengen: warning: {file}: {missing}");
            }
            for risk in checked.config.warnings() {
                eprintln!("tengen: warning: {file}: {risk}");
            }
            println!("{}", summary(&file, &checked.config));
            Ok(())
        }
        Err(e) => Err(CliError::config(&e)),
    }
}

/// The one line printed for a clean file.
fn summary(file: &str, c: &Config) -> String {
    format!(
        "{file}: ok (board {}, tournament {}, backend {}, {}x{}, time {}, mqtt {}, display {}, voice {} {})",
        c.board.id,
        c.board.tournament,
        c.hardware.backend.as_str(),
        c.board.size,
        c.board.size,
        c.time_control(),
        c.mqtt.url,
        c.display.driver.as_str(),
        c.voice.style.as_str(),
        c.voice.lang
    )
}
