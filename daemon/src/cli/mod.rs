//! The commands of SPEC.md's command line, one module each. `main.rs` parses the
//! arguments (clap) and calls `run` here; a command returns a [`CliError`] whose exit code
//! is 1 for a failure of the work and 2 for bad usage or bad input.

pub mod args;
pub mod calibrate;
mod check_config;
mod demo;
mod gtp;
mod hall;
mod pairings;
mod rehearse;
mod replay;
mod results;
mod run;
mod score;
mod sim;
mod sim_table;
mod voice;

use args::Command;

/// Carries out one command of the command line.
pub fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Demo(a) => demo::run(a),
        Command::Run(a) => run::run(a),
        Command::Sim(a) => sim::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Score(a) => score::run(a),
        Command::Hall(a) => hall::run(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::CheckConfig(a) => check_config::run(a),
        Command::Voice(a) => voice::run(a),
        Command::Pairings(a) => pairings::run(a),
        Command::Results(a) => results::run(a),
        Command::Gtp(a) => gtp::run(a),
        Command::Rehearse(a) => rehearse::run(a),
    }
}

/// A command's failure: a one-line message and the exit code SPEC.md gives it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    /// 1: the work failed; 2: bad usage or bad input.
    pub code: u8,
    /// One line naming the file, line or field at fault.
    pub message: String,
}

impl CliError {
    /// Bad usage or bad input (exit 2).
    pub fn input(message: impl Into<String>) -> CliError {
        CliError {
            code: 2,
            message: message.into(),
        }
    }

    /// A failure of the work itself (exit 1).
    pub fn work(message: impl Into<String>) -> CliError {
        CliError {
            code: 1,
            message: message.into(),
        }
    }

    /// A config file that cannot be used (exit 2): every problem is printed once, one line
    /// each, all but the last here on stderr and the last as the command's error line
    /// (main prints it).
    pub(crate) fn config(e: &tengen_net::config_reader::ConfigError) -> CliError {
        let lines = e.lines();
        let (last, rest) = lines
            .split_last()
            .map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
        for line in rest {
            eprintln!("tengen: {line}");
        }
        CliError::input(last)
    }
}
