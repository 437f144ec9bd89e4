//! A frames file read back: the board as the sensors saw it at any moment, and each change
//! in a window (docs/operating.md, "The black box": `tengen frames`, `/api/frames`).

use serde::Serialize;

use tengen_rules::Color;

use super::{
    board_text, get_varint, FramesEncoder, FramesError, FramesHeader, Seen, MAGIC, MAX_POINTS,
    PRESS_INDEX,
};
use crate::framing::{self, Decoded};

/// One change read from the file: a point's new reading or a press, at `ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    ms: u64,
    /// The item as written (without the continuation bit).
    item: u16,
}

impl Change {
    fn index(self) -> u16 {
        self.item >> 2
    }

    fn code(self) -> u8 {
        (self.item & 3) as u8
    }
}

/// A key: the whole board at `ms`, before the changes from `at` on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    ms: u64,
    at: usize,
    board: Vec<Seen>,
}

/// One line of a window: the board as seen at `ms` (after that scan's changes), and the
/// clock presses of that scan (`"B"`, `"W"`). Serialises as the wire contract's `--json` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrameLine {
    /// Ms since the game's start.
    pub ms: u64,
    /// `size * size` characters `.XO?`, rows from the top.
    pub board: String,
    /// The presses of that scan.
    pub presses: Vec<&'static str>,
}

/// A frames file, read: its header, its changes and keys, and what was wrong with its bytes.
#[derive(Debug, Clone)]
pub struct FramesRecord {
    header: FramesHeader,
    changes: Vec<Change>,
    keys: Vec<Key>,
    /// Where the whole records end (a writer appends here).
    end: usize,
    /// Bytes after `end` that are not a whole record (a torn write, or a writer at work).
    torn: usize,
    /// Damaged records skipped (with good records after them), by offset.
    damaged: Vec<usize>,
}

impl FramesRecord {
    /// Reads a whole file's bytes. A tail that is not a whole record is left out and
    /// counted ([`FramesRecord::torn_bytes`]); a damaged record followed by good ones is
    /// skipped and listed ([`FramesRecord::damaged`]).
    pub fn parse(bytes: &[u8]) -> Result<FramesRecord, FramesError> {
        FramesRecord::parse_blocks(bytes, None)
    }

    /// Reads what a window `from..=to` needs of a file's bytes: every record is checked,
    /// but only the blocks from the last key block at or before `from` up to `to` are
    /// decoded and kept. [`FramesRecord::window`] and [`FramesRecord::board_at`] within
    /// the window answer as after [`FramesRecord::parse`]; the counts
    /// ([`FramesRecord::changes`], [`FramesRecord::span`]) cover only what was kept. A
    /// four-hour game on a noisy board is millions of changes: a window costs a minute's.
    pub fn parse_window(bytes: &[u8], from: u64, to: u64) -> Result<FramesRecord, FramesError> {
        FramesRecord::parse_blocks(bytes, Some((from, to)))
    }

    fn parse_blocks(bytes: &[u8], window: Option<(u64, u64)>) -> Result<FramesRecord, FramesError> {
        if !bytes.starts_with(MAGIC) {
            return Err(FramesError::NotFrames);
        }
        let mut header: Option<FramesHeader> = None;
        // Each block: where its payload is, whether it is a key, its start, the board's
        // points then and where the record starts.
        let mut blocks: Vec<(std::ops::Range<usize>, bool, u64, usize, usize)> = Vec::new();
        let mut damaged = Vec::new();
        let mut offset = MAGIC.len();
        let mut end = offset;
        while offset < bytes.len() {
            match framing::decode(&bytes[offset..]) {
                Decoded::Record(payload, len) => {
                    let points = header.as_ref().map(|h| h.size as usize * h.size as usize);
                    match payload.first() {
                        Some(b'H') => {
                            let h = read_header(&payload[1..], offset)?;
                            if let Some(first) = &header {
                                if first.size != h.size {
                                    return Err(FramesError::BadHeader {
                                        offset,
                                        detail: format!(
                                            "size {} after size {}",
                                            h.size, first.size
                                        ),
                                    });
                                }
                            } else {
                                header = Some(h);
                            }
                        }
                        Some(kind @ (b'K' | b'D')) => {
                            let points = points.ok_or(FramesError::NoHeader)?;
                            let mut at = 1;
                            let t0 = get_varint(payload, &mut at).ok_or(FramesError::BadBlock {
                                offset,
                                detail: "no start time",
                            })?;
                            let start = offset + framing::HEADER_LEN + 1;
                            blocks.push((
                                start..start + payload.len() - 1,
                                *kind == b'K',
                                t0,
                                points,
                                offset,
                            ));
                        }
                        _ => {
                            return Err(FramesError::BadBlock {
                                offset,
                                detail: "unknown record kind",
                            })
                        }
                    }
                    offset += len;
                    end = offset;
                }
                Decoded::Incomplete | Decoded::Bad => match whole_record_after(bytes, offset + 1) {
                    Some(next) => {
                        damaged.push(offset);
                        offset = next;
                    }
                    None => break,
                },
            }
        }
        let header = header.ok_or(FramesError::NoHeader)?;
        let (first, last) = match window {
            None => (0, blocks.len()),
            Some((from, to)) => {
                let first = blocks.iter().rposition(|b| b.1 && b.2 <= from).unwrap_or(0);
                let last = blocks[first..]
                    .iter()
                    .position(|b| b.2 > to)
                    .map_or(blocks.len(), |n| first + n);
                (first, last)
            }
        };
        let mut changes = Vec::new();
        let mut keys = Vec::new();
        for (range, key, _, points, offset) in &blocks[first..last] {
            read_block(
                &bytes[range.clone()],
                *key,
                *points,
                &mut changes,
                &mut keys,
            )
            .map_err(|detail| FramesError::BadBlock {
                offset: *offset,
                detail,
            })?;
        }
        Ok(FramesRecord {
            header,
            changes,
            keys,
            end,
            torn: bytes.len() - end,
            damaged,
        })
    }

    /// The first session's header (board, game, size, the game's start).
    pub fn header(&self) -> &FramesHeader {
        &self.header
    }

    /// Where the last whole record ends: a writer cuts a torn tail here and appends.
    pub fn end(&self) -> usize {
        self.end
    }

    /// Bytes at the end that are not a whole record.
    pub fn torn_bytes(&self) -> usize {
        self.torn
    }

    /// Offsets of damaged records that were skipped.
    pub fn damaged(&self) -> &[usize] {
        &self.damaged
    }

    /// The number of changes and presses in the file.
    pub fn changes(&self) -> usize {
        self.changes.len()
    }

    /// When each key block starts (ms since the game's start).
    pub fn key_times(&self) -> Vec<u64> {
        self.keys.iter().map(|k| k.ms).collect()
    }

    /// The first and last times with anything seen (ms since the game's start).
    pub fn span(&self) -> Option<(u64, u64)> {
        let first = self.keys.first()?.ms;
        let last = self.changes.last().map_or(first, |c| c.ms);
        Some((first, last.max(self.keys.last().map_or(first, |k| k.ms))))
    }

    /// The board as seen at `ms` (after that scan); `None` before the first scan.
    pub fn board_at(&self, ms: u64) -> Option<Vec<Seen>> {
        let key = self.keys.iter().rev().find(|k| k.ms <= ms)?;
        let mut board = key.board.clone();
        self.apply(&mut board, key, ms);
        Some(board)
    }

    /// Applies the changes after `key` up to `ms` to `board`; returns where it stopped.
    fn apply(&self, board: &mut [Seen], key: &Key, ms: u64) -> usize {
        let mut at = key.at;
        // Later keys up to `ms` (a restart) replace the board where they stand.
        let mut next_key = self.keys.iter().filter(|k| k.at > key.at).peekable();
        loop {
            while let Some(k) = next_key.peek().filter(|k| k.at <= at && k.ms <= ms) {
                board.copy_from_slice(&k.board);
                next_key.next();
            }
            match self.changes.get(at) {
                Some(c) if c.ms <= ms => {
                    set(board, *c);
                    at += 1;
                }
                _ => break,
            }
        }
        at
    }

    /// The board at `from` and then each scan with a change or a press up to `to`,
    /// inclusive (the `--json` lines). Empty when nothing was seen by `to`.
    pub fn window(&self, from: u64, to: u64) -> Vec<FrameLine> {
        let size = self.header.size;
        let first_ms = self.keys.first().map_or(u64::MAX, |k| k.ms);
        let start = from.max(first_ms);
        if start > to {
            return Vec::new();
        }
        let Some(key) = self.keys.iter().rev().find(|k| k.ms <= start) else {
            return Vec::new();
        };
        let mut board = key.board.clone();
        let mut at = self.apply(&mut board, key, start);
        let presses_at = |ms: u64, upto: usize| -> Vec<&'static str> {
            self.changes[..upto]
                .iter()
                .rev()
                .take_while(|c| c.ms == ms)
                .filter(|c| c.index() == PRESS_INDEX)
                .map(|c| press_name(c.code()))
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect()
        };
        let mut lines = vec![FrameLine {
            ms: start,
            board: board_text(&board, size, ""),
            presses: presses_at(start, at),
        }];
        let from_at = at;
        let mut keys = self.keys.iter().filter(|k| k.at >= from_at).peekable();
        while let Some(first) = self.changes.get(at) {
            let ms = first.ms;
            if ms > to {
                break;
            }
            let mut presses = Vec::new();
            while let Some(c) = self.changes.get(at).filter(|c| c.ms == ms) {
                while let Some(k) = keys.peek().filter(|k| k.at <= at) {
                    board.copy_from_slice(&k.board);
                    keys.next();
                }
                if c.index() == PRESS_INDEX {
                    presses.push(press_name(c.code()));
                } else {
                    set(&mut board, *c);
                }
                at += 1;
            }
            lines.push(FrameLine {
                ms,
                board: board_text(&board, size, ""),
                presses,
            });
        }
        lines
    }
}

impl FramesRecord {
    /// The window as JSON lines (the wire contract's `--json`), each ending in a newline.
    pub fn json_lines(&self, from: u64, to: u64) -> String {
        let mut out = String::new();
        for line in self.window(from, to) {
            if let Ok(json) = serde_json::to_string(&line) {
                out.push_str(&json);
                out.push('\n');
            }
        }
        out
    }

    /// A frames file of its own holding the window `from..=to` (the board at `from`, then
    /// each change): what a board sends the hall. `request` names the command it answers.
    /// It starts from the board just before `from` (a key at `from - 1`), so that the
    /// changes at `from` are changes in it too: the excerpts of consecutive windows, one
    /// after the other (each but the first without its eight magic bytes), read as the
    /// whole.
    pub fn excerpt(&self, from: u64, to: u64, request: Option<&str>) -> Vec<u8> {
        let mut header = self.header.clone();
        header.request = request.map(str::to_string);
        let mut encoder = FramesEncoder::new(header);
        let mut out = MAGIC.to_vec();
        let mut board = Vec::new();
        let mut presses = Vec::new();
        if let Some(before) = from
            .checked_sub(1)
            .and_then(|b| self.board_at(b).map(|x| (b, x)))
        {
            encoder.scan(before.0, &before.1, &[]);
            out.extend(encoder.take(before.0));
        }
        for line in self.window(from, to) {
            board.clear();
            board.extend(line.board.bytes().map(seen_of_char));
            presses.clear();
            presses.extend(line.presses.iter().map(|p| {
                if *p == "W" {
                    Color::White
                } else {
                    Color::Black
                }
            }));
            encoder.scan(line.ms, &board, &presses);
            out.extend(encoder.take(line.ms));
        }
        out.extend(encoder.finish());
        out
    }
}

/// The reading a written board's character stands for.
fn seen_of_char(c: u8) -> Seen {
    match c {
        b'X' => Seen::Black,
        b'O' => Seen::White,
        b'?' => Seen::Unknown,
        _ => Seen::Empty,
    }
}

fn press_name(code: u8) -> &'static str {
    if code == 2 {
        "W"
    } else {
        "B"
    }
}

fn set(board: &mut [Seen], c: Change) {
    if c.index() == PRESS_INDEX {
        return;
    }
    if let Some(p) = board.get_mut(c.index() as usize) {
        *p = Seen::from_code(c.code());
    }
}

fn read_header(json: &[u8], offset: usize) -> Result<FramesHeader, FramesError> {
    let h: FramesHeader = serde_json::from_slice(json).map_err(|e| FramesError::BadHeader {
        offset,
        detail: e.to_string(),
    })?;
    if h.format != "tengen-frames" || h.version != super::VERSION {
        return Err(FramesError::BadHeader {
            offset,
            detail: format!("format {:?} version {}", h.format, h.version),
        });
    }
    let points = h.size as usize * h.size as usize;
    if h.size == 0 || points > MAX_POINTS {
        return Err(FramesError::BadHeader {
            offset,
            detail: format!("size {}", h.size),
        });
    }
    Ok(h)
}

fn read_block(
    bytes: &[u8],
    key: bool,
    points: usize,
    changes: &mut Vec<Change>,
    keys: &mut Vec<Key>,
) -> Result<(), &'static str> {
    let mut at = 0;
    let t0 = get_varint(bytes, &mut at).ok_or("no start time")?;
    if key {
        let packed = points.div_ceil(4);
        let raw = bytes.get(at..at + packed).ok_or("key board cut short")?;
        at += packed;
        let board = (0..points)
            .map(|i| Seen::from_code(raw[i / 4] >> ((i % 4) * 2)))
            .collect();
        keys.push(Key {
            ms: t0,
            at: changes.len(),
            board,
        });
    } else if keys.is_empty() {
        return Err("a delta block before any key block");
    }
    let mut ms = t0;
    while at < bytes.len() {
        let dt = get_varint(bytes, &mut at).ok_or("change time cut short")?;
        ms = ms.checked_add(dt).ok_or("change time overflows")?;
        loop {
            let two = bytes.get(at..at + 2).ok_or("item cut short")?;
            at += 2;
            let item = u16::from_le_bytes([two[0], two[1]]);
            let index = (item & 0x7fff) >> 2;
            if index != PRESS_INDEX && index as usize >= points {
                return Err("a point off the board");
            }
            changes.push(Change {
                ms,
                item: item & 0x7fff,
            });
            if item & 0x8000 == 0 {
                break;
            }
        }
    }
    Ok(())
}

/// The offset of the first whole record of this format at or after `from`, if any.
fn whole_record_after(bytes: &[u8], from: usize) -> Option<usize> {
    framing::next_whole(bytes, from, |payload| {
        matches!(payload.first(), Some(b'H' | b'K' | b'D'))
    })
}
