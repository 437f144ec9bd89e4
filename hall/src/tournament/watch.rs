//! The confirmations held against the boards every second ([`TournamentLink::reconcile`]):
//! a correction made on a confirmed table (*Correct the result*: a reopen and the arbiter's
//! `set_result`) rewrites the confirmation in the results file at once, so the round zip and
//! the feed carry it, whether or not a console has the Round view open; each rewrite is
//! logged and goes into the console's history.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::boards::hall_state::{lock, Shared};
use crate::tournament::link::TournamentLink;

/// How often the confirmations are held against the boards.
const EVERY: Duration = Duration::from_secs(1);

/// Holds `link`'s confirmations against `hall` once: the corrections it made are logged
/// and noted in the console's history.
pub(crate) fn reconcile_once(link: &Mutex<TournamentLink>, hall: &Shared) {
    let mut link = link.lock().unwrap_or_else(|p| p.into_inner());
    let mut hall = lock(hall);
    match link.reconcile(&hall) {
        Ok(corrections) => {
            let now = Instant::now();
            for c in corrections {
                tracing::info!(
                    "round {} table {}: result corrected by {} from {} to {} ({}): the \
                     results file is rewritten",
                    c.round,
                    c.table,
                    c.by,
                    c.from,
                    c.to,
                    c.result.as_opengotha()
                );
                let note = json!({
                    "type": "correct_result",
                    "round": c.round,
                    "table": c.table,
                    "game": format!("r{}-t{}", c.round, c.table),
                    "result": c.result.as_opengotha(),
                    "sgf": c.to,
                    "from": c.from,
                });
                hall.note(c.key.as_ref(), &c.by, note, now);
            }
        }
        Err(e) => tracing::error!("results: {e}"),
    }
}

/// Reconciles every [`EVERY`] until the runtime stops.
pub(crate) fn spawn(link: Arc<Mutex<TournamentLink>>, hall: Shared) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EVERY);
        loop {
            tick.tick().await;
            reconcile_once(&link, &hall);
        }
    });
}
