//! The `tengen` binary: parses the command line (docs/operating.md, "Commands") and runs one command.
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
    match cli::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
