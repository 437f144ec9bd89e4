//! Scans in, records out: the writing side of the frames format (see the module above).

use tengen_rules::Color;

use super::{press_code, put_varint, FramesHeader, Seen, BLOCK_MS, KEY_EVERY_MS, PRESS_INDEX};
use crate::framing;

/// The block being filled.
#[derive(Debug, Clone)]
struct OpenBlock {
    /// Its start (ms since the game's start).
    t0: u64,
    /// The payload so far.
    payload: Vec<u8>,
    /// The time of its last change.
    prev: u64,
}

/// Turns a game's scans into the records of its frames file. Each scan gives the classified
/// board and the clock presses it reported; [`FramesEncoder::take`] hands out the records
/// whose second has passed (with the session's header first), ready to append.
#[derive(Debug, Clone)]
pub struct FramesEncoder {
    header: FramesHeader,
    points: usize,
    /// The board as last seen (empty before the first scan of the session).
    last: Vec<Seen>,
    block: Option<OpenBlock>,
    /// When the last key block started.
    last_key: Option<u64>,
    header_due: bool,
}

impl FramesEncoder {
    /// An encoder for a writing session of the game `header` describes.
    pub fn new(header: FramesHeader) -> FramesEncoder {
        let points = header.size as usize * header.size as usize;
        FramesEncoder {
            header,
            points,
            last: Vec::new(),
            block: None,
            last_key: None,
            header_due: true,
        }
    }

    /// The session's header.
    pub fn header(&self) -> &FramesHeader {
        &self.header
    }

    /// One scan at `ms` (since the game's start): the board as classified and the clock
    /// presses it reported. A scan of another size than the header's is ignored (the
    /// pipeline drops it too). Times are expected not to go back; a scan earlier than the
    /// last is taken at the last one's time.
    pub fn scan(&mut self, ms: u64, seen: &[Seen], presses: &[Color]) {
        if seen.len() != self.points || self.points > super::MAX_POINTS {
            return;
        }
        let first = self.last.is_empty();
        let mut items: Vec<u16> = Vec::new();
        if !first {
            for (i, (now, was)) in seen.iter().zip(self.last.iter()).enumerate() {
                if now != was {
                    items.push(((i as u16) << 2) | u16::from(now.code()));
                }
            }
        }
        items.extend(
            presses
                .iter()
                .map(|&c| (PRESS_INDEX << 2) | u16::from(press_code(c))),
        );
        if first {
            // The session's first scan: a key block showing it whole.
            self.open_with(ms, Some(seen));
        } else if !items.is_empty() && self.block.is_none() {
            let key = self
                .last_key
                .is_none_or(|k| ms.saturating_sub(k) >= KEY_EVERY_MS);
            // A key block shows the board before this scan's changes.
            let board = key.then(|| self.last.clone());
            self.open_with(ms, board.as_deref());
        }
        self.last.clear();
        self.last.extend_from_slice(seen);
        if items.is_empty() {
            return;
        }
        let Some(block) = self.block.as_mut() else {
            return;
        };
        let ms = ms.max(block.prev);
        put_varint(&mut block.payload, ms - block.prev);
        block.prev = ms;
        let last = items.len() - 1;
        for (k, item) in items.iter().enumerate() {
            let more = if k < last { 0x8000 } else { 0 };
            block
                .payload
                .extend_from_slice(&(item | more).to_le_bytes());
        }
    }

    fn open_with(&mut self, t0: u64, key: Option<&[Seen]>) {
        let mut payload = Vec::with_capacity(256);
        match key {
            Some(board) => {
                payload.push(b'K');
                put_varint(&mut payload, t0);
                let mut byte = 0u8;
                for (i, s) in board.iter().enumerate() {
                    byte |= s.code() << ((i % 4) * 2);
                    if i % 4 == 3 {
                        payload.push(byte);
                        byte = 0;
                    }
                }
                if board.len() % 4 != 0 {
                    payload.push(byte);
                }
                self.last_key = Some(t0);
            }
            None => {
                payload.push(b'D');
                put_varint(&mut payload, t0);
            }
        }
        self.block = Some(OpenBlock {
            t0,
            payload,
            prev: t0,
        });
    }

    /// The records due at `ms`: the header once per session, and the open block once it
    /// covers [`BLOCK_MS`]. Empty when nothing is due.
    pub fn take(&mut self, ms: u64) -> Vec<u8> {
        let mut out = self.header_record();
        if self
            .block
            .as_ref()
            .is_some_and(|b| ms.saturating_sub(b.t0) >= BLOCK_MS)
        {
            self.close_into(&mut out);
        }
        out
    }

    /// Every record not yet handed out, the open block included (the game ends, or the
    /// board stops).
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = self.header_record();
        self.close_into(&mut out);
        out
    }

    fn header_record(&mut self) -> Vec<u8> {
        if !self.header_due {
            return Vec::new();
        }
        self.header_due = false;
        let mut payload = vec![b'H'];
        if let Ok(json) = serde_json::to_vec(&self.header) {
            payload.extend_from_slice(&json);
        }
        framing::encode(&payload)
    }

    fn close_into(&mut self, out: &mut Vec<u8>) {
        if let Some(block) = self.block.take() {
            out.extend_from_slice(&framing::encode(&block.payload));
        }
    }
}
