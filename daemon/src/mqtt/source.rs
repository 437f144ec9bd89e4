//! Where the publisher reads events from: the journal in the service ([`EventSource`] is
//! implemented for `JournalReader` in [`super::wiring`]), memory in `tengen sim --broker`
//! and in tests ([`MemorySource`]).
//!
//! A source gives [`Record`]s: the event's JSON exactly as it was written (the journal's
//! bytes), so what MQTT carries, live or re-read after a reconnect, a restart or a
//! `republish`, is byte for byte what the journal holds. The publisher reads nothing of an
//! event but its `seq` and `type` (which topics it goes to).

use std::sync::{Arc, Mutex, MutexGuard};

use serde::Deserialize;
use tengen_protocol::Envelope;
use thiserror::Error;

use crate::journal::JournalError;

/// Why a source could not give its records.
#[derive(Debug, Error)]
pub enum SourceError {
    /// The journal could not be read.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// A record is not a JSON object with a `seq` and a `type`.
    #[error("event record is not an event: {0}")]
    NotAnEvent(#[from] serde_json::Error),
    /// An event appended out of order.
    #[error("event seq {got} appended where {want} was due")]
    OutOfSequence {
        /// The appended event's `seq`.
        got: u64,
        /// The `seq` that was due.
        want: u64,
    },
}

/// Which topics an event goes to besides `events`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// `events` only.
    Plain,
    /// An `alert`, `alert_cleared` or `warning`: also `alerts`.
    ForArbiters,
    /// A `status`: also the retained `status`.
    Status,
}

impl RecordKind {
    /// The kind of an event of type `kind` (the JSON's `type`), as
    /// [`tengen_protocol::Event::is_for_arbiters`] and the wire contract's topic table say.
    pub fn of_type(kind: &str) -> RecordKind {
        if tengen_protocol::event::type_is_for_arbiters(kind) {
            RecordKind::ForArbiters
        } else if kind == "status" {
            RecordKind::Status
        } else {
            RecordKind::Plain
        }
    }
}

/// One event as written: its `seq`, its JSON (the bytes MQTT carries) and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The event's `seq`.
    pub seq: u64,
    /// The event's JSON, byte for byte as written.
    pub json: Vec<u8>,
    /// Which topics it goes to.
    pub kind: RecordKind,
}

/// What the publisher reads of an event: its `seq` and `type`.
#[derive(Deserialize)]
struct Header {
    seq: u64,
    #[serde(rename = "type")]
    kind: String,
}

impl Record {
    /// The record of an event's JSON, as written.
    pub fn from_json(json: Vec<u8>) -> Result<Record, SourceError> {
        let header: Header = serde_json::from_slice(&json)?;
        Ok(Record {
            seq: header.seq,
            kind: RecordKind::of_type(&header.kind),
            json,
        })
    }
}

/// A stream of events by `seq` (1, 2, 3...), read again after a reconnect, a restart or a
/// `republish` command.
pub trait EventSource: Send + Sync {
    /// The records with `seq >= from`, in order, at most `max` of them.
    fn read_from(&self, from: u64, max: usize) -> Result<Vec<Record>, SourceError>;

    /// The highest `seq` written so far (0 when none).
    fn last_seq(&self) -> u64;
}

/// An in-memory event source: the events appended so far, `seq` consecutive from 1.
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    records: Arc<Mutex<Vec<Record>>>,
}

impl MemorySource {
    /// An empty source.
    pub fn new() -> MemorySource {
        MemorySource::default()
    }

    fn records(&self) -> MutexGuard<'_, Vec<Record>> {
        // Every update is one push: a panic elsewhere cannot leave the list half-changed.
        self.records.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends `envelope` as its JSON ([`Envelope::to_json`], what the journal writes);
    /// its `seq` must be the next one.
    pub fn push(&self, envelope: &Envelope) -> Result<(), SourceError> {
        self.push_json(envelope.to_json().into_bytes())
    }

    /// Appends an event's JSON as written; its `seq` must be the next one.
    pub fn push_json(&self, json: Vec<u8>) -> Result<(), SourceError> {
        let record = Record::from_json(json)?;
        let mut records = self.records();
        let want = records.len() as u64 + 1;
        if record.seq != want {
            return Err(SourceError::OutOfSequence {
                got: record.seq,
                want,
            });
        }
        records.push(record);
        Ok(())
    }
}

impl EventSource for MemorySource {
    fn read_from(&self, from: u64, max: usize) -> Result<Vec<Record>, SourceError> {
        let start = usize::try_from(from.max(1) - 1).unwrap_or(usize::MAX);
        Ok(self
            .records()
            .iter()
            .skip(start)
            .take(max)
            .cloned()
            .collect())
    }

    fn last_seq(&self) -> u64 {
        self.records().len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::event::{BoardState, ClearedHow};
    use tengen_protocol::{Event, Timestamp};
    use tengen_rules::Color;

    fn envelope(seq: u64, event: Event) -> Envelope {
        Envelope {
            seq,
            time: Timestamp::parse("2026-11-29T13:45:01.250Z").unwrap(),
            board: "b1".into(),
            game: "g1".into(),
            by: None,
            event,
        }
    }

    #[test]
    fn the_kind_follows_the_protocol() {
        let events = [
            Event::Pass {
                number: 3,
                color: Color::Black,
            },
            Event::cleared("a1", ClearedHow::Restored),
            Event::Warning {
                color: Color::White,
                article: "18.2".into(),
                count: 1,
            },
            Event::status(BoardState::Online, "0.1.0"),
        ];
        for (i, event) in events.into_iter().enumerate() {
            let e = envelope(i as u64 + 1, event);
            let r = Record::from_json(e.to_json().into_bytes()).unwrap();
            assert_eq!(r.seq, e.seq);
            assert_eq!(r.kind == RecordKind::ForArbiters, e.event.is_for_arbiters());
            assert_eq!(
                r.kind == RecordKind::Status,
                matches!(e.event, Event::Status { .. })
            );
        }
        assert_eq!(RecordKind::of_type("alert"), RecordKind::ForArbiters);
        assert_eq!(RecordKind::of_type("move"), RecordKind::Plain);
    }

    #[test]
    fn memory_keeps_the_bytes_and_the_order() {
        let s = MemorySource::new();
        // Unusual spacing survives: the bytes are never written again.
        let odd = br#"{ "seq": 1, "type": "move", "extra":  [1,2] }"#.to_vec();
        s.push_json(odd.clone()).unwrap();
        s.push(&envelope(
            2,
            Event::Pass {
                number: 1,
                color: Color::White,
            },
        ))
        .unwrap();
        let e = s
            .push(&envelope(
                4,
                Event::Pass {
                    number: 2,
                    color: Color::White,
                },
            ))
            .unwrap_err();
        assert_eq!(e.to_string(), "event seq 4 appended where 3 was due");
        assert!(matches!(
            s.push_json(b"not json".to_vec()),
            Err(SourceError::NotAnEvent(_))
        ));
        assert_eq!(s.last_seq(), 2);
        let all = s.read_from(0, 10).unwrap();
        assert_eq!(all[0].json, odd);
        assert_eq!(all.iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(s.read_from(2, 10).unwrap().len(), 1);
        assert_eq!(s.read_from(1, 1).unwrap().len(), 1);
        assert!(s.read_from(3, 10).unwrap().is_empty());
    }
}
