//! Where the publisher re-reads events from: the journal in the service, memory in `tengen
//! sim --broker` and in tests.

use std::sync::{Arc, Mutex};

use tengen_protocol::Envelope;

/// A stream of events by `seq` (1, 2, 3...), read again after a reconnect, a restart or a
/// `republish` command.
pub trait EventSource: Send + Sync {
    /// The events with `seq >= from`, in order, at most `max` of them.
    fn read_from(&self, from: u64, max: usize) -> Result<Vec<Envelope>, String>;

    /// The highest `seq` written so far (0 when none).
    fn last_seq(&self) -> u64;
}

/// An in-memory event source: the events appended so far, `seq` consecutive from 1.
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    events: Arc<Mutex<Vec<Envelope>>>,
}

impl MemorySource {
    /// An empty source.
    pub fn new() -> MemorySource {
        MemorySource::default()
    }

    /// Appends `envelope`; its `seq` must be the next one.
    pub fn push(&self, envelope: Envelope) -> Result<(), String> {
        let mut events = self.events.lock().map_err(|_| "event source poisoned")?;
        let want = events.len() as u64 + 1;
        if envelope.seq != want {
            return Err(format!(
                "event seq {} appended where {want} was due",
                envelope.seq
            ));
        }
        events.push(envelope);
        Ok(())
    }
}

impl EventSource for MemorySource {
    fn read_from(&self, from: u64, max: usize) -> Result<Vec<Envelope>, String> {
        let events = self.events.lock().map_err(|_| "event source poisoned")?;
        let start = usize::try_from(from.max(1) - 1).unwrap_or(usize::MAX);
        Ok(events.iter().skip(start).take(max).cloned().collect())
    }

    fn last_seq(&self) -> u64 {
        self.events.lock().map(|e| e.len() as u64).unwrap_or(0)
    }
}
