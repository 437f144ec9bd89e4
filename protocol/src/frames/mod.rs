//! The black box: what a board's sensors saw, scan by scan, for the whole game, in a
//! `.frames` file beside the journal (docs/operating.md, "The black box"). An arbiter settling a
//! dispute reads the evidence (the classified board at every change of any point and
//! every clock press), not only the verdict (the events).
//!
//! The format is documented for readers without tengen in `docs/frames-format.md`. In
//! short: the eight bytes [`MAGIC`], then records framed as in [`crate::framing`]
//! (`[len u32 LE][CRC-32C u32 LE][payload]`). A payload's first byte says what it is:
//!
//! - `H` a header, JSON: `{"format":"tengen-frames","version":1,"board","game","size",
//!   "start_ms"}` (`start_ms`: the game's start, ms since the Unix epoch). One per writing
//!   session: a board that restarts writes it again, then a key block.
//! - `K` a key block: varint `t0` (ms since the game's start), then the whole board as seen
//!   just before `t0`, four points to a byte (two bits each, low bits first, row-major from
//!   the top row), then changes as in `D`.
//! - `D` a delta block: varint `t0`, then changes. A change is a varint `dt` (ms after the
//!   previous change of the block, the first after `t0`) and one or more 16-bit items (LE):
//!   bit 15 set when another item of the same scan follows, bits 14..2 the point's index
//!   (row-major) or [`PRESS_INDEX`] for a clock press, bits 1..0 the point's new reading
//!   ([`Seen`] codes 0 empty, 1 black, 2 white, 3 between the bands) or the button pressed
//!   (1 Black's, 2 White's).
//!
//! A block covers about a second of scans ([`BLOCK_MS`]); a key block starts each
//! [`KEY_EVERY_MS`] and each writing session, so a reader can start there. Sans-IO: the
//! [`FramesEncoder`] turns scans into records, [`FramesRecord`] reads a file's bytes.

mod encoder;
mod reader;

pub use encoder::FramesEncoder;
pub use reader::{FrameLine, FramesRecord};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use tengen_rules::Color;

/// The first bytes of a frames file: the format's name and version.
pub const MAGIC: &[u8; 8] = b"TGNFRMS1";

/// The format's version in the header.
pub const VERSION: u32 = 1;

/// About how much scan time one block covers (ms).
pub const BLOCK_MS: u64 = 1_000;

/// How often a key block (the whole board) starts (ms).
pub const KEY_EVERY_MS: u64 = 60_000;

/// The item index that marks a clock press rather than a point.
pub const PRESS_INDEX: u16 = 0x1fff;

/// The largest board the item layout can index.
pub const MAX_POINTS: usize = PRESS_INDEX as usize;

/// What one sensor read, classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seen {
    /// No stone.
    Empty,
    /// A black stone.
    Black,
    /// A white stone.
    White,
    /// A reading between the bands (a hand, a stone half down, a fault).
    Unknown,
}

impl Seen {
    /// The two-bit code in the file.
    pub fn code(self) -> u8 {
        match self {
            Seen::Empty => 0,
            Seen::Black => 1,
            Seen::White => 2,
            Seen::Unknown => 3,
        }
    }

    /// The reading of a two-bit code.
    pub fn from_code(code: u8) -> Seen {
        match code & 3 {
            0 => Seen::Empty,
            1 => Seen::Black,
            2 => Seen::White,
            _ => Seen::Unknown,
        }
    }

    /// The character in a written board: `.`, `X`, `O`, `?`.
    pub fn char(self) -> char {
        match self {
            Seen::Empty => '.',
            Seen::Black => 'X',
            Seen::White => 'O',
            Seen::Unknown => '?',
        }
    }
}

/// The header of a writing session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FramesHeader {
    /// Always `"tengen-frames"`.
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// The board's id.
    pub board: String,
    /// The game's id.
    pub game: String,
    /// Lines on the board.
    pub size: u8,
    /// The game's start, ms since the Unix epoch: the time base of every block.
    pub start_ms: u64,
    /// In an excerpt sent over MQTT: the id of the `frames` command it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
}

impl FramesHeader {
    /// The header of a game on `board`.
    pub fn new(board: &str, game: &str, size: u8, start_ms: u64) -> FramesHeader {
        FramesHeader {
            format: "tengen-frames".into(),
            version: VERSION,
            board: board.into(),
            game: game.into(),
            size,
            start_ms,
            request: None,
        }
    }
}

/// Why a frames file could not be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum FramesError {
    /// The file does not start with [`MAGIC`].
    #[error("not a tengen frames file (bad header)")]
    NotFrames,
    /// The file has no header record.
    #[error("the frames file has no header")]
    NoHeader,
    /// A header is not one this reader knows.
    #[error("frames header at byte {offset}: {detail}")]
    BadHeader {
        /// Where the record starts.
        offset: usize,
        /// What is wrong with it.
        detail: String,
    },
    /// A block's contents do not decode (its checksum matched: a writer's bug).
    #[error("frames block at byte {offset}: {detail}")]
    BadBlock {
        /// Where the record starts.
        offset: usize,
        /// What is wrong with it.
        detail: &'static str,
    },
}

/// The most bytes of a record's payload [`record_head`] reads.
pub const RECORD_HEAD_LEN: usize = 11;

/// What a record of a frames file is, as its payload's first bytes say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordHead {
    /// A writing session's header.
    Header,
    /// A block of scans from `ms` (since the game's start); `key` when it holds the whole
    /// board.
    Block {
        /// A key block (the whole board), else the changes since the block before.
        key: bool,
        /// The block's start.
        ms: u64,
    },
}

/// What the record whose payload starts with `prefix` (at least its first
/// [`RECORD_HEAD_LEN`] bytes, or all of a shorter payload) is; `None` for bytes that are
/// no record of a frames file. A reader of one window finds its blocks by this, without
/// reading the others (issue 34).
pub fn record_head(prefix: &[u8]) -> Option<RecordHead> {
    match prefix.first()? {
        b'H' => Some(RecordHead::Header),
        kind @ (b'K' | b'D') => {
            let mut at = 1;
            let ms = get_varint(prefix, &mut at)?;
            Some(RecordHead::Block {
                key: *kind == b'K',
                ms,
            })
        }
        _ => None,
    }
}

/// The button code of a press in an item.
fn press_code(color: Color) -> u8 {
    match color {
        Color::Black => 1,
        Color::White => 2,
    }
}

/// Appends `v` as an unsigned LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned LEB128 varint at `*at`, moving past it.
fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Writes a board (row-major, top row first) as `size` rows of `.XO?` joined by `sep`.
pub fn board_text(board: &[Seen], size: u8, sep: &str) -> String {
    let n = size.max(1) as usize;
    board
        .chunks(n)
        .map(|row| row.iter().map(|s| s.char()).collect::<String>())
        .collect::<Vec<_>>()
        .join(sep)
}

#[cfg(test)]
mod tests;
