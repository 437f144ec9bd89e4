//! The `tengen` binary: parses the command line (SPEC.md) and runs one command.
//! Exit codes: 0 success, 1 a failure of the work, 2 bad usage or bad input.

use std::process::ExitCode;

use clap::Parser;
use tengen_daemon::cli::{self, args::Command};

/// tengen: the electronic Go board for tournaments.
#[derive(Parser, Debug)]
#[command(name = "tengen", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Demo(a) => cli::demo::run(a),
        Command::Run(a) => cli::run::run(a),
        Command::Sim(a) => cli::sim::run(a),
        Command::Replay(a) => cli::replay::run(a),
        Command::Score(a) => cli::score::run(a),
        Command::Hall(a) => cli::hall::run(a),
        Command::Calibrate(a) => cli::calibrate::run(a),
        Command::CheckConfig(a) => cli::check_config::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
