//! `tengen hall --broker URL [--http ADDR] [--config FILE]` (docs/operating.md, "Commands"): the
//! overview of every board, a page and SGF per board, round zips and the arbiters' console.
//! Runs until SIGINT/SIGTERM. Exit 2 for bad arguments or config, 1 when it cannot start.
//!
//! `tengen hall --add-arbiter NAME [--role commentator]` (this build's addition) prints the
//! `[[arbiter]]` entry for NAME with an Argon2id hash of a password asked on the terminal
//! (twice, not echoed), or read from the first line of standard input when that is not a
//! terminal; `--role commentator` makes a read-only commentator's login.
//!
//! At start the hall logs, as warnings, what its config leaves open
//! ([`HallConfig::warnings`]: arbiters without a command key).

use std::io::{BufRead, IsTerminal, Write};
use std::process::{Command, Stdio};

use tengen_hall::HallConfig;
use tengen_net::broker::BrokerUrl;

use super::args::HallArgs;
use super::CliError;

/// Runs `tengen hall`.
pub(super) fn run(args: HallArgs) -> Result<(), CliError> {
    if let Some(name) = &args.add_arbiter {
        return add_arbiter(name, &args.role);
    }
    let Some(broker) = args.broker.clone() else {
        return Err(CliError::input("--broker: required"));
    };
    let config = match &args.config {
        Some(path) => HallConfig::load(path).map_err(|e| CliError::config(&e))?,
        None => HallConfig::default(),
    };
    BrokerUrl::parse(&broker).map_err(|e| CliError::input(format!("--broker: {e}")))?;
    super::init_logging();
    if let Some(path) = &args.config {
        for risk in config.warnings() {
            tracing::warn!("{}: {risk}", path.display());
        }
    }
    // Each viewer's page and each connection is an open file: the hall sizes its caps on
    // what it may open.
    tengen_net::open_files::raise_and_log();
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::work(format!("tokio runtime: {e}")))?;
    runtime.block_on(async {
        // A hall that cannot start (its address taken, a file unreadable) says why in its
        // one error line.
        let mut hall = tengen_hall::start(&broker, &args.http, &config)
            .await
            .map_err(|e| CliError::work(e.to_string()))?;
        let scheme = if hall.https { "https" } else { "http" };
        eprintln!("tengen hall: {scheme}://{}/ (broker {broker})", hall.addr);
        // Whatever ends the hall, the log says what (the broker going away does not: the
        // hall keeps retrying and says why it cannot connect).
        let why = tokio::select! {
            signal = wait_for_stop() => format!("{signal} received"),
            () = hall.http_ended() => "its HTTP server stopped".to_string(),
        };
        tracing::info!("tengen hall stops: {why}");
        hall.stop();
        Ok(())
    })
}

/// `--add-arbiter NAME --role ROLE`: the entry on standard output; the prompts on
/// standard error.
fn add_arbiter(name: &str, role: &str) -> Result<(), CliError> {
    let password = if std::io::stdin().is_terminal() {
        let first = prompt_hidden(&format!("Password for {name}: "))?;
        let again = prompt_hidden("The same again: ")?;
        if first != again {
            return Err(CliError::input("--add-arbiter: the two passwords differ"));
        }
        first
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| CliError::input(format!("--add-arbiter: standard input: {e}")))?;
        line.trim_end_matches(['\n', '\r']).to_string()
    };
    let entry = tengen_hall::arbiter_entry(name, &password, role)
        .map_err(|e| CliError::input(format!("--add-arbiter: {e}")))?;
    print!("{entry}");
    std::io::stdout()
        .flush()
        .map_err(|e| CliError::work(format!("standard output: {e}")))
}

/// Asks on standard error and reads a line from the terminal without echoing it.
fn prompt_hidden(prompt: &str) -> Result<String, CliError> {
    eprint!("{prompt}");
    let echo = |on: bool| {
        Command::new("stty")
            .arg(if on { "echo" } else { "-echo" })
            .stdin(Stdio::inherit())
            .status()
            .is_ok_and(|s| s.success())
    };
    let hidden = echo(false);
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    if hidden {
        echo(true);
    }
    eprintln!();
    read.map_err(|e| CliError::input(format!("--add-arbiter: terminal: {e}")))?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

/// Waits for SIGTERM or SIGINT and names it.
async fn wait_for_stop() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => return "SIGTERM",
                _ = tokio::signal::ctrl_c() => return "SIGINT",
            }
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    "SIGINT"
}
