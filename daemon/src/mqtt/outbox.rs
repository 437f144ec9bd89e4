//! The outbox: which events the broker has acknowledged.
//!
//! The journal holds every event; this module only remembers how far the broker has
//! acknowledged them. `AckTracker` is the sans-IO bookkeeping of one publisher (what to
//! send next, what is in flight, the highest contiguous acknowledged `seq`), and
//! [`AckFile`] persists that one number so a restarted board resends exactly the rest.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// What the publisher must send and what the broker has acknowledged.
///
/// Events are sent in `seq` order; each may take several publishes (an alert goes to
/// `events` and `alerts`) and counts as acknowledged when all of them are. After a
/// disconnection everything not acknowledged is sent again, from the lowest such `seq`.
#[derive(Debug, Clone)]
pub(crate) struct AckTracker {
    acked_through: u64,
    acked_above: BTreeSet<u64>,
    outstanding: HashMap<u64, u32>,
    /// The sum of `outstanding`: publishes of events not acknowledged.
    publishes_out: usize,
    next: u64,
    force_until: u64,
}

impl AckTracker {
    /// A tracker for a stream whose events up to `acked_through` were acknowledged before.
    pub(crate) fn new(acked_through: u64) -> AckTracker {
        AckTracker {
            acked_through,
            acked_above: BTreeSet::new(),
            outstanding: HashMap::new(),
            publishes_out: 0,
            next: acked_through + 1,
            force_until: 0,
        }
    }

    /// The highest `seq` such that it and every `seq` below it were acknowledged.
    pub(crate) fn acked_through(&self) -> u64 {
        self.acked_through
    }

    /// Publishes of events sent on this connection and not yet acknowledged (an alert
    /// counts twice until both its copies are).
    pub(crate) fn in_flight(&self) -> usize {
        self.publishes_out
    }

    /// The next `seq` to send, if any is due up to `last_seq`; skips events already
    /// acknowledged out of order (unless a republish asked for them). Asking again gives
    /// the same `seq` until [`AckTracker::sent`] says it went out.
    pub(crate) fn next_due(&mut self, last_seq: u64) -> Option<u64> {
        while self.next <= last_seq {
            let seq = self.next;
            if seq > self.force_until && self.acked_above.contains(&seq) {
                self.next += 1;
                continue;
            }
            return Some(seq);
        }
        None
    }

    /// `publishes` messages carrying `seq` (the one [`AckTracker::next_due`] gave) were
    /// handed to the client.
    pub(crate) fn sent(&mut self, seq: u64, publishes: u32) {
        *self.outstanding.entry(seq).or_insert(0) += publishes;
        self.publishes_out += publishes as usize;
        self.next = self.next.max(seq + 1);
    }

    /// One publish carrying `seq` was acknowledged. Returns true when the highest
    /// contiguous acknowledged `seq` moved.
    pub(crate) fn acked(&mut self, seq: u64) -> bool {
        match self.outstanding.get_mut(&seq) {
            Some(n) if *n > 1 => {
                *n -= 1;
                self.publishes_out -= 1;
                return false;
            }
            Some(_) => {
                self.outstanding.remove(&seq);
                self.publishes_out -= 1;
            }
            None => return false,
        }
        if seq <= self.acked_through {
            return false;
        }
        self.acked_above.insert(seq);
        let before = self.acked_through;
        while self.acked_above.remove(&(self.acked_through + 1)) {
            self.acked_through += 1;
        }
        self.acked_through != before
    }

    /// The connection was lost: whatever was in flight is sent again on the next one.
    pub(crate) fn disconnected(&mut self) {
        self.outstanding.clear();
        self.publishes_out = 0;
        self.next = self.acked_through + 1;
    }

    /// Sends the stream again from `from` (a `republish` command), acknowledged or not.
    pub(crate) fn rewind(&mut self, from: u64) {
        let from = from.max(1);
        self.force_until = self.force_until.max(self.next.saturating_sub(1));
        self.next = self.next.min(from);
    }
}

/// Why the acknowledgement file could not be read or written.
#[derive(Debug, Error)]
pub enum OutboxError {
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The file holds something else than an acknowledgement record.
    #[error("{path}: not an MQTT acknowledgement record: {content:?}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The first bytes found.
        content: String,
    },
}

/// The persisted highest contiguous acknowledged `seq`: one line `tengen-mqtt-acked N`,
/// replaced atomically (write, sync, rename).
#[derive(Debug, Clone)]
pub struct AckFile {
    path: PathBuf,
}

const MAGIC: &str = "tengen-mqtt-acked";

impl AckFile {
    /// The record at `path` (conventionally `mqtt-acked` in the storage directory).
    pub fn new(path: impl Into<PathBuf>) -> AckFile {
        AckFile { path: path.into() }
    }

    /// Where the record lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored `seq`; 0 when the file does not exist yet.
    pub fn load(&self) -> Result<u64, OutboxError> {
        let text = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(source) => {
                return Err(OutboxError::Io {
                    path: self.path.clone(),
                    source,
                })
            }
        };
        let corrupt = || OutboxError::Corrupt {
            path: self.path.clone(),
            content: String::from_utf8_lossy(&text[..text.len().min(40)]).into_owned(),
        };
        let s = std::str::from_utf8(&text).map_err(|_| corrupt())?;
        let rest = s
            .strip_prefix(MAGIC)
            .and_then(|r| r.strip_prefix(' '))
            .and_then(|r| r.strip_suffix('\n'))
            .ok_or_else(corrupt)?;
        rest.parse::<u64>().map_err(|_| corrupt())
    }

    /// Replaces the stored `seq`.
    pub fn store(&self, seq: u64) -> Result<(), OutboxError> {
        let io = |source| OutboxError::Io {
            path: self.path.clone(),
            source,
        };
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let mut f = fs::File::create(&tmp).map_err(io)?;
        f.write_all(format!("{MAGIC} {seq}\n").as_bytes())
            .map_err(io)?;
        f.sync_data().map_err(io)?;
        drop(f);
        fs::rename(&tmp, &self.path).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends every due event up to `last`, one publish each; returns their seqs.
    fn send_all(t: &mut AckTracker, last: u64) -> Vec<u64> {
        let mut sent = Vec::new();
        while let Some(s) = t.next_due(last) {
            t.sent(s, 1);
            sent.push(s);
        }
        sent
    }

    #[test]
    fn sends_in_order_and_tracks_contiguous_acks() {
        let mut t = AckTracker::new(0);
        assert_eq!(send_all(&mut t, 5), [1, 2, 3, 4, 5]);
        assert_eq!(t.in_flight(), 5);
        assert!(!t.acked(2));
        assert_eq!(t.acked_through(), 0);
        assert!(t.acked(1));
        assert_eq!(t.acked_through(), 2);
        assert!(!t.acked(4));
        assert_eq!(t.acked_through(), 2);
        // An unknown or repeated ack changes nothing.
        assert!(!t.acked(4));
        assert!(!t.acked(99));
        assert_eq!(t.in_flight(), 2);
    }

    #[test]
    fn an_event_with_two_publishes_needs_both_acks() {
        let mut t = AckTracker::new(0);
        assert_eq!(t.next_due(1), Some(1));
        assert_eq!(t.next_due(1), Some(1), "asking again gives the same seq");
        t.sent(1, 2);
        assert_eq!(t.next_due(1), None);
        assert_eq!(t.in_flight(), 2);
        assert!(!t.acked(1));
        assert_eq!(t.in_flight(), 1);
        assert_eq!(t.acked_through(), 0);
        assert!(t.acked(1));
        assert_eq!(t.acked_through(), 1);
    }

    #[test]
    fn reconnect_resends_only_what_was_not_acked() {
        let mut t = AckTracker::new(10);
        assert_eq!(send_all(&mut t, 15), [11, 12, 13, 14, 15]);
        t.acked(11);
        t.acked(13);
        t.disconnected();
        assert_eq!(t.in_flight(), 0);
        let again = send_all(&mut t, 16);
        assert_eq!(again, [12, 14, 15, 16]);
        for s in again {
            t.acked(s);
        }
        assert_eq!(t.acked_through(), 16);
    }

    #[test]
    fn republish_rewinds_even_over_acked_events() {
        let mut t = AckTracker::new(0);
        send_all(&mut t, 4);
        t.acked(1);
        t.acked(3);
        t.rewind(2);
        assert_eq!(send_all(&mut t, 5), [2, 3, 4, 5]);
        // A rewind to 0 means from the first event.
        t.rewind(0);
        assert_eq!(t.next_due(5), Some(1));
    }

    #[test]
    fn file_round_trips_and_rejects_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let f = AckFile::new(dir.path().join("mqtt-acked"));
        assert_eq!(f.load().unwrap(), 0);
        f.store(42).unwrap();
        assert_eq!(f.load().unwrap(), 42);
        f.store(7).unwrap();
        assert_eq!(f.load().unwrap(), 7);
        for bad in [
            &b"tengen-mqtt-acked x\n"[..],
            b"42\n",
            b"tengen-mqtt-acked 4",
            b"\xff",
        ] {
            fs::write(f.path(), bad).unwrap();
            let e = f.load().unwrap_err();
            assert!(
                e.to_string().contains("not an MQTT acknowledgement record"),
                "{e}"
            );
        }
    }
}
