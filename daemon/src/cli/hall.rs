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
        let hall = tengen_hall::start(&args.broker, &args.http, &config)
            .await
            .map_err(|e| CliError::work(e.to_string()))?;
        eprintln!(
            "tengen hall: http://{}/ (broker {})",
            hall.addr, args.broker
        );
        wait_for_stop().await;
        hall.stop();
        Ok(())
    })
}

async fn wait_for_stop() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
