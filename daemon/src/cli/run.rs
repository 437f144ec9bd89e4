//! `tengen run [--config FILE]` (SPEC.md, "Command line"): the board service as
//! configured, until SIGTERM; then it finishes writing and says `offline`. Exit 2 for a
//! bad config, 1 when the service cannot start or fails.

use super::args::RunArgs;
use super::CliError;
use crate::config::Config;
use std::time::Duration;

use crate::service::launch::{serve_until_stopped, start};
use crate::service::links::{start_links, LinkOptions, ServiceEnds};

/// Runs `tengen run`.
pub(super) fn run(args: RunArgs) -> Result<(), CliError> {
    let config = Config::load(&args.config).map_err(|e| CliError::config(&e))?;
    init_logging();
    let file = args.config.display();
    for risk in config.warnings() {
        tracing::warn!("{file}: {risk}");
    }
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::work(format!("tokio runtime: {e}")))?;
    runtime.block_on(async {
        let service = start(&config, false).map_err(|e| CliError::work(e.to_string()))?;
        let ends = ServiceEnds::of(&service);
        let links = match start_links(&config, ends, &LinkOptions::default()).await {
            Ok(links) => links,
            Err(e) => {
                service.request_stop();
                let _ = tokio::task::spawn_blocking(move || service.join()).await;
                return Err(CliError::work(e.to_string()));
            }
        };
        let result = serve_until_stopped(service).await;
        if let Err(e) = links.shutdown(Duration::from_secs(5)).await {
            tracing::warn!("{e}");
        }
        result.map_err(|e| CliError::work(e.to_string()))?;
        Ok(())
    })
}

/// Logs to stderr (journald keeps it under systemd); `RUST_LOG` filters, default `info`.
pub(super) fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// As [`init_logging`] with `warn` as the default level (the demo prints events itself)
/// and the embedded broker silent (it logs every client that hangs up as an error).
pub(super) fn init_logging_quiet() {
    init_logging_default("warn,rumqttd=off");
}

/// Logs to stderr with `default` as the filter unless `RUST_LOG` gives one.
pub(super) fn init_logging_default(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
