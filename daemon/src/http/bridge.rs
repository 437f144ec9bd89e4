//! Keeps a [`LiveFeed`] in step with the running service: the journal's events first (so a
//! viewer who opens the page mid-game sees the whole game), then every event as the service
//! records it, and the latest `state` and SGF.

use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;

use super::LiveFeed;
use crate::journal::JournalReader;
use crate::service::outputs::Outputs;

/// Starts the tasks that feed `feed` from `outputs`, filling gaps (start-up, a lagging
/// receiver) from `journal`. The tasks end when the service's channels close.
pub fn follow(feed: LiveFeed, outputs: &Outputs, journal: JournalReader) -> Vec<JoinHandle<()>> {
    // Subscribe before reading the journal so nothing falls in between; the feed drops
    // anything it already has.
    let mut events = outputs.subscribe_events();
    let mut state = outputs.subscribe_state();
    let mut sgf = outputs.subscribe_sgf();
    let catch_up =
        |feed: &LiveFeed, journal: &JournalReader| match journal.read_from(feed.last_seq() + 1) {
            Ok(missed) => missed.into_iter().for_each(|e| feed.publish(e)),
            Err(e) => tracing::warn!("live view: cannot read the journal: {e}"),
        };
    catch_up(&feed, &journal);
    let f = feed.clone();
    let event_task = tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(e) => f.publish(e),
                Err(RecvError::Lagged(_)) => catch_up(&f, &journal),
                Err(RecvError::Closed) => return,
            }
        }
    });
    let f = feed.clone();
    let state_task = tokio::spawn(async move {
        loop {
            let value = state.borrow_and_update().clone();
            if !value.is_null() {
                f.set_state(value);
            }
            if state.changed().await.is_err() {
                return;
            }
        }
    });
    let sgf_task = tokio::spawn(async move {
        loop {
            let text = sgf.borrow_and_update().clone();
            feed.set_sgf(text);
            if sgf.changed().await.is_err() {
                return;
            }
        }
    });
    vec![event_task, state_task, sgf_task]
}
