//! `tengen hall --broker URL [--http ADDR] [--config FILE]` (SPEC.md, "Command line"): the
//! overview of every board, a page and SGF per board, round zips and the arbiters' console.
//! Runs until SIGINT/SIGTERM. Exit 2 for bad arguments or config, 1 when it cannot start.

use tengen_hall::HallConfig;
use tengen_net::broker::BrokerUrl;

use super::args::HallArgs;
use super::CliError;

/// Runs `tengen hall`.
pub(super) fn run(args: HallArgs) -> Result<(), CliError> {
    let config = match &args.config {
        Some(path) => HallConfig::load(path).map_err(|e| CliError::config(&e))?,
        None => HallConfig::default(),
    };
    BrokerUrl::parse(&args.broker).map_err(|e| CliError::input(format!("--broker: {e}")))?;
    super::run::init_logging();
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::work(format!("tokio runtime: {e}")))?;
    runtime.block_on(async {
        // A hall that cannot start (its address taken, a file unreadable) says why in its
        // one error line.
        let mut hall = tengen_hall::start(&args.broker, &args.http, &config)
            .await
            .map_err(|e| CliError::work(e.to_string()))?;
        eprintln!(
            "tengen hall: http://{}/ (broker {})",
            hall.addr, args.broker
        );
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
