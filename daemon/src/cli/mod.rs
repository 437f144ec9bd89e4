//! The commands of the command line (docs/operating.md, "Commands"), one module each. `main.rs` parses the
//! arguments (clap) and calls `run` here; a command returns a [`CliError`] whose exit code
//! is 1 for a failure of the work and 2 for bad usage or bad input.

pub mod args;
mod broker_config;
pub mod calibrate;
mod check_config;
mod demo;
mod frames;
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

use std::io::{IsTerminal, Write};

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
        Command::BrokerConfig(a) => broker_config::run(a),
        Command::Frames(a) => frames::run(a),
    }
}

/// Logs to stderr (journald keeps it under systemd); `RUST_LOG` filters, default `info`.
pub(crate) fn init_logging() {
    logging("info");
}

/// As [`init_logging`] with `warn` as the default level (the demo prints events itself)
/// and the embedded broker silent (it logs every client that hangs up as an error).
pub(crate) fn init_logging_quiet() {
    logging("warn,rumqttd=off");
}

/// The log on stderr, filtered by `RUST_LOG` or `default`. In colour only when stderr is a
/// terminal (and `NO_COLOR` is not set): a log redirected to a file, or kept by journald,
/// has no escape codes in it.
pub(crate) fn logging(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Writes a command's output lines to stdout. A reader that stops reading (`tengen
/// pairings ... | head`) ends the output quietly: the rest is not wanted, and that is no
/// failure (Rust ignores SIGPIPE, so `println!` would panic instead).
pub(crate) fn print_lines(lines: &[String]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let written = lines
        .iter()
        .try_for_each(|line| writeln!(out, "{line}"))
        .and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::work(format!("standard output: {e}")))
        }
        _ => Ok(()),
    }
}

/// A command's failure: a one-line message and the exit code docs/operating.md gives it.
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
