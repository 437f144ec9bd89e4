//! The records that wait in memory while the disk is full: numbered, framed and in order,
//! written by [`super::Journal::flush`] once there is space again. Bounded by
//! [`HELD_MAX_BYTES`]; an event beyond the bound is not held, not numbered, and counted in
//! a [`DroppedRun`].

use std::collections::VecDeque;

use tengen_protocol::Timestamp;

/// The most bytes of records held in memory while the disk is full: 16 MiB. A 272-move
/// game played into byo-yomi journals 111 kB in 34 minutes (about 200 kB an hour), so this
/// holds some 80 hours of play, more than a tournament day.
pub const HELD_MAX_BYTES: usize = 16 << 20;

/// One record waiting for space.
#[derive(Debug)]
pub(super) struct HeldRecord {
    /// Its seq.
    pub seq: u64,
    /// The framed record, as it will be written.
    pub bytes: Vec<u8>,
    /// The event's time.
    pub time: Timestamp,
    /// True for a `game_started`.
    pub game_start: bool,
}

/// Events that could be neither written nor held (the memory bound was reached): they are
/// not in the journal, so nothing publishes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DroppedRun {
    /// How many.
    pub events: u64,
    /// The time of the first.
    pub first: Timestamp,
    /// The time of the last.
    pub last: Timestamp,
}

/// The queue of held records.
#[derive(Debug, Default)]
pub(super) struct Held {
    records: VecDeque<HeldRecord>,
    bytes: usize,
    dropped: Option<DroppedRun>,
}

impl Held {
    /// Records held.
    pub(super) fn len(&self) -> usize {
        self.records.len()
    }

    /// True when nothing is held.
    pub(super) fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Holds `record` if it fits under [`HELD_MAX_BYTES`]; otherwise counts it as dropped
    /// and returns false.
    pub(super) fn push(&mut self, record: HeldRecord) -> bool {
        if self.bytes + record.bytes.len() > HELD_MAX_BYTES {
            let time = record.time;
            let run = self.dropped.get_or_insert(DroppedRun {
                events: 0,
                first: time,
                last: time,
            });
            run.events += 1;
            run.last = time;
            return false;
        }
        self.bytes += record.bytes.len();
        self.records.push_back(record);
        true
    }

    /// The oldest records whose bytes add up to at most `max` (always at least one when
    /// any is held).
    pub(super) fn front(&self, max: usize) -> impl Iterator<Item = &HeldRecord> {
        let mut total = 0;
        self.records
            .iter()
            .enumerate()
            .take_while(move |(i, r)| {
                total += r.bytes.len();
                *i == 0 || total <= max
            })
            .map(|(_, r)| r)
    }

    /// Takes the oldest `n` records off (they are written).
    pub(super) fn pop_front(&mut self, n: usize) {
        for r in self.records.drain(..n.min(self.records.len())) {
            self.bytes -= r.bytes.len();
        }
    }

    /// The events dropped since the last call, once nothing is held any more (the run is
    /// over); `None` while records still wait or when none was dropped.
    pub(super) fn take_dropped(&mut self) -> Option<DroppedRun> {
        if self.records.is_empty() {
            self.dropped.take()
        } else {
            None
        }
    }

    /// The events dropped so far in this run.
    pub(super) fn dropped(&self) -> Option<DroppedRun> {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(seq: u64, len: usize) -> HeldRecord {
        HeldRecord {
            seq,
            bytes: vec![0; len],
            time: Timestamp::from_millis(seq),
            game_start: false,
        }
    }

    #[test]
    fn holds_up_to_the_bound_then_counts_what_it_drops() {
        let mut held = Held::default();
        let big = HELD_MAX_BYTES / 4;
        for seq in 1..=4 {
            assert!(held.push(record(seq, big)));
        }
        assert!(!held.push(record(5, 1)), "the fifth does not fit");
        assert!(!held.push(record(6, 1)));
        assert_eq!(held.len(), 4);
        assert_eq!(held.bytes(), HELD_MAX_BYTES);
        assert_eq!(held.take_dropped(), None, "still held: the run goes on");
        let chunk: Vec<u64> = held.front(2 * big).map(|r| r.seq).collect();
        assert_eq!(chunk, vec![1, 2]);
        held.pop_front(2);
        assert_eq!(held.front(1).map(|r| r.seq).collect::<Vec<_>>(), vec![3]);
        held.pop_front(2);
        assert!(held.is_empty());
        assert_eq!(held.bytes(), 0);
        assert_eq!(
            held.take_dropped(),
            Some(DroppedRun {
                events: 2,
                first: Timestamp::from_millis(5),
                last: Timestamp::from_millis(6),
            })
        );
        assert_eq!(held.take_dropped(), None, "said once");
    }
}
