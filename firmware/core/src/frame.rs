//! The frames of the serial link (`hal/PROTOCOL.md`), written into the caller's buffers:
//! header (magic, version, type, sequence, timestamp, length), payload, CRC-32, then COBS
//! between two `0x00` delimiters. No allocation: a frame is built in a scratch buffer and
//! encoded into the output.

use crate::cobs;
use crate::crc32::crc32;

/// The two bytes every frame starts with (`"TG"`).
pub const MAGIC: [u8; 2] = [0x54, 0x47];
/// The protocol version written.
pub const VERSION: u8 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 12;
/// Bytes of the CRC after the payload.
pub const CRC_LEN: usize = 4;
/// The largest payload the protocol allows.
pub const MAX_PAYLOAD_LEN: usize = 1280;
/// The largest decoded frame: header, payload, CRC.
pub const MAX_FRAME_LEN: usize = HEADER_LEN + MAX_PAYLOAD_LEN + CRC_LEN;
/// The largest frame on the wire: both delimiters and the COBS encoding of the largest
/// decoded frame.
pub const MAX_WIRE_LEN: usize = cobs::max_encoded_len(MAX_FRAME_LEN) + 2;
/// The largest board a scan may describe.
pub const MAX_BOARD_SIZE: u8 = 25;

/// Message type: hello and status.
pub const TYPE_HELLO: u8 = 0x01;
/// Message type: raw readings, a little-endian u16 each.
pub const TYPE_SCAN_RAW16: u8 = 0x10;
/// Message type: raw 12-bit readings, two in three bytes.
pub const TYPE_SCAN_RAW12: u8 = 0x11;
/// Message type: classified states, two bits each.
pub const TYPE_SCAN_CLASSIFIED: u8 = 0x12;
/// Message type: a debounced clock-button edge.
pub const TYPE_BUTTON: u8 = 0x20;

/// Hello flag bit 0: the first hello since reset.
pub const HELLO_FLAG_BOOT: u8 = 0x01;
/// Bytes of the version-1 hello.
pub const HELLO_LEN: usize = 8;
/// Bytes of the status that follows the version-1 hello (`hal/PROTOCOL.md`, "HELLO").
pub const STATUS_LEN: usize = 16;

/// A classified point: empty.
pub const STATE_EMPTY: u8 = 0;
/// A classified point: a black stone.
pub const STATE_BLACK: u8 = 1;
/// A classified point: a white stone.
pub const STATE_WHITE: u8 = 2;
/// A classified point: between the bands (a hand, a fault).
pub const STATE_UNKNOWN: u8 = 3;

/// What the firmware has done since reset, sent after the version-1 hello's 8 bytes (a
/// receiver that does not know it ignores it, as the protocol says).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Status {
    /// Scans taken (each one sent, or dropped whole and counted in `dropped`).
    pub scans: u32,
    /// Scan periods that passed without a scan because the firmware was late by a whole
    /// period or more (0 on a healthy board).
    pub overruns: u32,
    /// Messages dropped whole because the transmit queue had no room (the receiver sees a
    /// sequence gap).
    pub dropped: u32,
    /// How long the last scan took, first select to last conversion (µs).
    pub scan_us: u16,
    /// The latest a scan has started after its slot (µs), saturated.
    pub max_late_us: u16,
}

/// The hello: what the board is, sent at boot and about once a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    /// Lines on the board.
    pub size: u8,
    /// Bits of the ADC.
    pub adc_bits: u8,
    /// Firmware version: major, minor, patch.
    pub firmware: [u8; 3],
    /// True on the first hello since reset.
    pub boot: bool,
    /// Scans per second.
    pub scan_hz: u16,
    /// The firmware's counters, if sent.
    pub status: Option<Status>,
}

/// Which clock button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    /// Black's button (`0` on the wire).
    Black,
    /// White's button (`1`).
    White,
}

/// A button's debounced edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Pressed (`0` on the wire).
    Press,
    /// Released (`1`).
    Release,
}

/// One message to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message<'a> {
    /// Hello and status.
    Hello(Hello),
    /// Raw readings below 4096, packed two in three bytes.
    ScanRaw12 {
        /// Board size.
        size: u8,
        /// `size * size` readings, row-major, row 0 at the top.
        readings: &'a [u16],
    },
    /// Raw readings, a u16 each.
    ScanRaw16 {
        /// Board size.
        size: u8,
        /// `size * size` readings.
        readings: &'a [u16],
    },
    /// Classified states (`STATE_*`), two bits each.
    ScanClassified {
        /// Board size.
        size: u8,
        /// `size * size` states.
        states: &'a [u8],
    },
    /// A debounced clock-button edge.
    Button {
        /// Which button.
        button: Button,
        /// Press or release.
        action: Action,
    },
}

/// Why a message was not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeError {
    /// A scan's board size is 0 or above 25, or its points are not `size * size`.
    BadScan,
    /// A reading does not fit 12 bits (packed scans).
    ReadingTooLarge,
    /// A buffer is too small for the frame.
    BufferTooSmall,
}

/// Writes the payload of `msg` into `out`; returns the type and the length.
fn write_payload(msg: &Message<'_>, out: &mut [u8]) -> Result<(u8, usize), EncodeError> {
    let scan_len = |size: u8, points: usize| -> Result<usize, EncodeError> {
        if size == 0 || size > MAX_BOARD_SIZE || points != size as usize * size as usize {
            return Err(EncodeError::BadScan);
        }
        Ok(points)
    };
    let room = |need: usize| {
        if out.len() < need {
            Err(EncodeError::BufferTooSmall)
        } else {
            Ok(())
        }
    };
    match *msg {
        Message::Hello(h) => {
            let len = HELLO_LEN + if h.status.is_some() { STATUS_LEN } else { 0 };
            room(len)?;
            out[0] = h.size;
            out[1] = h.adc_bits;
            out[2..5].copy_from_slice(&h.firmware);
            out[5] = if h.boot { HELLO_FLAG_BOOT } else { 0 };
            out[6..8].copy_from_slice(&h.scan_hz.to_le_bytes());
            if let Some(s) = h.status {
                out[8..12].copy_from_slice(&s.scans.to_le_bytes());
                out[12..16].copy_from_slice(&s.overruns.to_le_bytes());
                out[16..20].copy_from_slice(&s.dropped.to_le_bytes());
                out[20..22].copy_from_slice(&s.scan_us.to_le_bytes());
                out[22..24].copy_from_slice(&s.max_late_us.to_le_bytes());
            }
            Ok((TYPE_HELLO, len))
        }
        Message::Button { button, action } => {
            room(2)?;
            out[0] = match button {
                Button::Black => 0,
                Button::White => 1,
            };
            out[1] = match action {
                Action::Press => 0,
                Action::Release => 1,
            };
            Ok((TYPE_BUTTON, 2))
        }
        Message::ScanRaw16 { size, readings } => {
            let n = scan_len(size, readings.len())?;
            room(1 + 2 * n)?;
            out[0] = size;
            for (i, r) in readings.iter().enumerate() {
                out[1 + 2 * i..3 + 2 * i].copy_from_slice(&r.to_le_bytes());
            }
            Ok((TYPE_SCAN_RAW16, 1 + 2 * n))
        }
        Message::ScanRaw12 { size, readings } => {
            let n = scan_len(size, readings.len())?;
            let len = 1 + (3 * n).div_ceil(2);
            room(len)?;
            if readings.iter().any(|&r| r > 0x0FFF) {
                return Err(EncodeError::ReadingTooLarge);
            }
            out[0] = size;
            let mut o = 1;
            for pair in readings.chunks(2) {
                let a = pair[0];
                out[o] = a as u8;
                match pair.get(1) {
                    Some(&b) => {
                        out[o + 1] = (a >> 8) as u8 | ((b & 0x0F) as u8) << 4;
                        out[o + 2] = (b >> 4) as u8;
                        o += 3;
                    }
                    None => {
                        out[o + 1] = (a >> 8) as u8;
                        o += 2;
                    }
                }
            }
            Ok((TYPE_SCAN_RAW12, len))
        }
        Message::ScanClassified { size, states } => {
            let n = scan_len(size, states.len())?;
            let len = 1 + n.div_ceil(4);
            room(len)?;
            out[0] = size;
            out[1..len].fill(0);
            for (i, &s) in states.iter().enumerate() {
                out[1 + i / 4] |= (s & 3) << (2 * (i % 4));
            }
            Ok((TYPE_SCAN_CLASSIFIED, len))
        }
    }
}

/// Numbers the messages and writes them as frames.
#[derive(Debug, Clone, Default)]
pub struct FrameEncoder {
    seq: u16,
}

impl FrameEncoder {
    /// A fresh encoder: its first message carries sequence 0 (as after reset).
    pub const fn new() -> Self {
        FrameEncoder { seq: 0 }
    }

    /// An encoder whose next message carries `seq` (tests of the wrap).
    pub const fn starting_at(seq: u16) -> Self {
        FrameEncoder { seq }
    }

    /// The sequence number the next message will carry.
    pub const fn next_seq(&self) -> u16 {
        self.seq
    }

    /// Writes `msg`, stamped `time_ms`, as a whole wire frame (delimiter, COBS, delimiter)
    /// into `out`, using `scratch` for the decoded frame; returns the bytes written. A
    /// message that cannot be written uses up no sequence number.
    pub fn encode(
        &mut self,
        time_ms: u32,
        msg: &Message<'_>,
        scratch: &mut [u8],
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        if scratch.len() < HEADER_LEN + CRC_LEN {
            return Err(EncodeError::BufferTooSmall);
        }
        let payload_room = (scratch.len() - HEADER_LEN - CRC_LEN).min(MAX_PAYLOAD_LEN);
        let (kind, len) = write_payload(msg, &mut scratch[HEADER_LEN..HEADER_LEN + payload_room])?;
        scratch[0..2].copy_from_slice(&MAGIC);
        scratch[2] = VERSION;
        scratch[3] = kind;
        scratch[4..6].copy_from_slice(&self.seq.to_le_bytes());
        scratch[6..10].copy_from_slice(&time_ms.to_le_bytes());
        scratch[10..12].copy_from_slice(&(len as u16).to_le_bytes());
        let body = HEADER_LEN + len;
        let crc = crc32(&scratch[..body]);
        scratch[body..body + CRC_LEN].copy_from_slice(&crc.to_le_bytes());
        let frame = &scratch[..body + CRC_LEN];
        if out.len() < cobs::max_encoded_len(frame.len()) + 2 {
            return Err(EncodeError::BufferTooSmall);
        }
        out[0] = 0;
        let n = cobs::encode(frame, &mut out[1..]).ok_or(EncodeError::BufferTooSmall)?;
        out[1 + n] = 0;
        self.seq = self.seq.wrapping_add(1);
        Ok(n + 2)
    }
}

/// Reads the status that follows a version-1 hello's payload (for tests and tools on the
/// receiving side): `None` when the payload is a plain 8-byte hello.
pub fn parse_status(hello_payload: &[u8]) -> Option<Status> {
    let s = hello_payload.get(HELLO_LEN..HELLO_LEN + STATUS_LEN)?;
    let u32_at = |i: usize| u32::from_le_bytes([s[i], s[i + 1], s[i + 2], s[i + 3]]);
    let u16_at = |i: usize| u16::from_le_bytes([s[i], s[i + 1]]);
    Some(Status {
        scans: u32_at(0),
        overruns: u32_at(4),
        dropped: u32_at(8),
        scan_us: u16_at(12),
        max_late_us: u16_at(14),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_button_example() {
        // hal/PROTOCOL.md, section 7: Black's button pressed, sequence 5, at 1000 ms.
        let mut enc = FrameEncoder::starting_at(5);
        let mut scratch = [0u8; 64];
        let mut out = [0u8; 64];
        let msg = Message::Button {
            button: Button::Black,
            action: Action::Press,
        };
        let n = enc.encode(1000, &msg, &mut scratch, &mut out).unwrap();
        assert_eq!(
            &out[..n],
            &[
                0x00, 0x06, 0x54, 0x47, 0x01, 0x20, 0x05, 0x03, 0xe8, 0x03, 0x01, 0x02, 0x02, 0x01,
                0x01, 0x05, 0x8c, 0x4e, 0x26, 0x1f, 0x00
            ]
        );
        assert_eq!(enc.next_seq(), 6);
    }

    #[test]
    fn bad_scans_and_small_buffers_use_no_sequence_number() {
        let mut enc = FrameEncoder::new();
        let mut scratch = [0u8; 1400];
        let mut out = [0u8; 1400];
        let readings = [0u16; 8];
        let bad = Message::ScanRaw12 {
            size: 3,
            readings: &readings,
        };
        assert_eq!(
            enc.encode(0, &bad, &mut scratch, &mut out),
            Err(EncodeError::BadScan)
        );
        let big = [4096u16; 4];
        let too_large = Message::ScanRaw12 {
            size: 2,
            readings: &big,
        };
        assert_eq!(
            enc.encode(0, &too_large, &mut scratch, &mut out),
            Err(EncodeError::ReadingTooLarge)
        );
        let ok = [1u16; 361];
        let scan = Message::ScanRaw16 {
            size: 19,
            readings: &ok,
        };
        assert_eq!(
            enc.encode(0, &scan, &mut scratch, &mut out[..100]),
            Err(EncodeError::BufferTooSmall)
        );
        assert_eq!(
            enc.encode(0, &scan, &mut scratch[..200], &mut out),
            Err(EncodeError::BufferTooSmall)
        );
        assert_eq!(enc.next_seq(), 0);
    }

    #[test]
    fn the_wire_limit_is_the_protocols() {
        assert_eq!(MAX_FRAME_LEN, 1296);
        assert_eq!(MAX_WIRE_LEN, 1302 + 2);
    }
}
