//! `tengen hall --broker URL [--http ADDR] [--config FILE]` (SPEC.md, "Command line"): the
//! overview of every board, a page and SGF per board, round zips and the arbiters' console.
//! Runs until SIGINT/SIGTERM. Exit 2 for bad arguments or config, 1 when it cannot start.

use super::args::HallArgs;
use super::CliError;
use crate::hall::config::HallConfig;

/// Runs `tengen hall`.
pub fn run(args: HallArgs) -> Result<(), CliError> {
    let config = match &args.config {
        Some(path) => HallConfig::load(path).map_err(|e| CliError::input(e.to_string()))?,
        None => HallConfig::default(),
    };
    crate::mqtt::settings::BrokerUrl::parse(&args.broker).map_err(|_| {
        CliError::input(format!(
            "--broker: {:?} is not mqtt://host:port",
            args.broker
        ))
    })?;
    super::run::init_logging();
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::work(format!("tokio runtime: {e}")))?;
    runtime.block_on(async {
        let hall = crate::hall::start(&args.broker, &args.http, &config)
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
