//! `tengen run [--config FILE]` (docs/operating.md, "Commands"): the board service as
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
    super::init_logging();
    // The journal, the SGF and the page's viewers must never run out of open files.
    tengen_net::open_files::raise_and_log();
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
