//! `tengen check-config FILE` (docs/operating.md, "Commands"): loads and validates a config and
//! prints every problem, one line each naming the file and the key path. Exit 0 when the
//! file is clean (it prints a one-line summary, a warning for each file the config names
//! that is missing here, and one for each risk it leaves open), 2 when it is not.
//!
//! A board's config, or a hall's (docs/mqtt-http.md, "Additions"): a file with a `[hall]` table, or
//! without `[board]` and with one of the hall's own tables (`[[arbiter]]`, `[tournament]`,
//! `[broadcast]`, `[analysis]`, `[venue]`), is checked as `tengen hall --config` reads it
//! ([`HallConfig::check`]: every key, and the tournament file it names when that is here),
//! with the hall's risks ([`HallConfig::warnings`]: arbiters without a command key).

use std::path::Path;

use tengen_hall::HallConfig;

use super::args::CheckConfigArgs;
use super::CliError;
use crate::config::{check_config, Config};

/// The tables only a hall's config has.
const HALL_TABLES: [&str; 5] = ["arbiter", "tournament", "broadcast", "analysis", "venue"];

/// Runs `tengen check-config`.
pub(super) fn run(args: CheckConfigArgs) -> Result<(), CliError> {
    if is_hall_config(&args.file) {
        return check_hall(&args.file);
    }
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

/// Whether the file reads as a hall's config. A file that cannot be read or is not TOML is
/// not: the board's checker says why, as it always has.
fn is_hall_config(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let Ok(table) = text.parse::<toml::Table>() else {
        return false;
    };
    table.contains_key("hall")
        || (!table.contains_key("board") && HALL_TABLES.iter().any(|t| table.contains_key(*t)))
}

/// `check-config` of a hall's config.
fn check_hall(path: &Path) -> Result<(), CliError> {
    let config = HallConfig::check(path).map_err(|e| CliError::config(&e))?;
    let file = path.display();
    for missing in config.missing_files() {
        eprintln!("tengen: warning: {file}: {missing}");
    }
    for risk in config.warnings().into_iter().chain(config.trust_warning()) {
        eprintln!("tengen: warning: {file}: {risk}");
    }
    println!("{file}: ok ({})", config.summary());
    Ok(())
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
