//! The wire format of the serial link (see `hal/PROTOCOL.md`): one message per frame,
//! a fixed header, a typed payload and a CRC-32, COBS-encoded between `0x00` delimiters.
//!
//! This module holds the pure, single-frame part: building a frame from a [`Message`]
//! ([`encode_message`], [`Encoder`]) and checking and parsing one decoded frame
//! ([`parse_frame`]). The byte-stream part (delimiters, statistics, sequence gaps) is in
//! [`super::decoder`].

use crate::traits::{Button, ButtonAction, FrameData, Millis, PointState};
use thiserror::Error;

/// The two bytes every frame starts with (`"TG"`).
pub const MAGIC: [u8; 2] = [0x54, 0x47];
/// The protocol version this code writes and accepts.
pub const VERSION: u8 = 1;
/// Bytes before the payload: magic (2), version, type, sequence (u16), timestamp (u32),
/// payload length (u16).
pub const HEADER_LEN: usize = 12;
/// Bytes of the CRC-32 after the payload.
pub const CRC_LEN: usize = 4;
/// The largest board a scan payload may describe (25x25; a 19x19 board is the usual case).
pub const MAX_BOARD_SIZE: u8 = 25;
/// The largest payload accepted (a raw 25x25 scan in u16 form needs 1251 bytes).
pub const MAX_PAYLOAD_LEN: usize = 1280;
/// The largest decoded frame: header, payload and CRC.
pub const MAX_FRAME_LEN: usize = HEADER_LEN + MAX_PAYLOAD_LEN + CRC_LEN;
/// The largest COBS-encoded frame between two delimiters; anything longer is rejected as
/// oversize without being buffered further.
pub const MAX_ENCODED_LEN: usize = cobs::max_encoding_length(MAX_FRAME_LEN);
/// The frame delimiter.
pub const DELIMITER: u8 = 0x00;

/// Message type: hello/status (board size, firmware, ADC bits).
pub const TYPE_HELLO: u8 = 0x01;
/// Message type: a scan of raw readings, one little-endian u16 per point.
pub const TYPE_SCAN_RAW16: u8 = 0x10;
/// Message type: a scan of raw 12-bit readings, two points packed in three bytes.
pub const TYPE_SCAN_RAW12: u8 = 0x11;
/// Message type: a scan of classified states, two bits per point.
pub const TYPE_SCAN_CLASSIFIED: u8 = 0x12;
/// Message type: one debounced clock-button event.
pub const TYPE_BUTTON: u8 = 0x20;

/// Hello flag bit: this is the first hello since the microcontroller was reset.
pub const HELLO_FLAG_BOOT: u8 = 0x01;
/// Length of a version-1 hello payload (longer ones are accepted, the rest ignored).
pub const HELLO_LEN: usize = 8;

/// The CRC: CRC-32/ISO-HDLC (the zlib/Ethernet CRC-32) over header and payload,
/// computed slice-by-16 (a 16 KiB table; several times faster than byte-wise).
pub const CRC32: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISO_HDLC);

/// The microcontroller introduces itself: sent at boot and then about once a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    /// Lines on the board (19 for a full board).
    pub size: u8,
    /// Bits of the ADC (10 or 12 usually).
    pub adc_bits: u8,
    /// Firmware version: major, minor, patch.
    pub firmware: [u8; 3],
    /// Scans per second the firmware is configured for.
    pub scan_hz: u16,
    /// True on the first hello after a reset: the sequence number and clock start afresh.
    pub boot: bool,
}

/// What a message carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Hello/status.
    Hello(Hello),
    /// One scan of every point: raw readings or classified states.
    Scan(FrameData),
    /// A debounced clock-button edge; it happened at the message's timestamp.
    Button {
        /// Which button.
        button: Button,
        /// Press or release.
        action: ButtonAction,
    },
}

/// One message of the link: the header fields that matter and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Sequence number, one more per message sent (wraps at 65536).
    pub seq: u16,
    /// Microcontroller time in ms. On the wire only the low 32 bits travel; the stream
    /// decoder extends them across wraps.
    pub time: Millis,
    /// The content.
    pub body: Body,
}

/// How raw readings are put on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RawFormat {
    /// One little-endian u16 per point (722 bytes for 19x19).
    #[default]
    U16,
    /// Two 12-bit readings in three bytes (542 bytes for 19x19); readings must be < 4096.
    Packed12,
}

/// Why a message could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    /// The scan does not hold a square number of points.
    #[error("scan holds {0} points, which is not the square of a board size")]
    NotSquare(usize),
    /// The board is larger than the protocol allows.
    #[error("board size {0} is out of range 1..={MAX_BOARD_SIZE}")]
    BoardSize(usize),
    /// A reading does not fit the 12-bit packed format.
    #[error("reading {value} at point {index} does not fit in 12 bits")]
    ReadingTooLarge {
        /// Index of the point.
        index: usize,
        /// The reading.
        value: u16,
    },
}

/// Why one decoded frame was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrameError {
    /// The delimiters enclosed nothing that COBS can decode.
    #[error("invalid COBS encoding")]
    Cobs,
    /// Shorter than a header and a CRC.
    #[error("frame of {0} bytes is shorter than header and CRC")]
    TooShort(usize),
    /// Longer than [`MAX_ENCODED_LEN`] between delimiters.
    #[error("frame longer than {MAX_ENCODED_LEN} bytes")]
    Oversize,
    /// The CRC does not match the content.
    #[error("CRC mismatch: frame says {sent:#010x}, content gives {computed:#010x}")]
    Crc {
        /// The CRC the frame carries.
        sent: u32,
        /// The CRC of the content as received.
        computed: u32,
    },
    /// The frame does not start with [`MAGIC`].
    #[error("bad magic {0:02x?}")]
    BadMagic([u8; 2]),
    /// A protocol version this reader does not speak.
    #[error("unsupported protocol version {0}")]
    Version(u8),
    /// The header's payload length disagrees with the frame.
    #[error("header announces {declared} payload bytes, frame holds {actual}")]
    Length {
        /// The length in the header.
        declared: usize,
        /// The bytes actually there.
        actual: usize,
    },
    /// A message type this reader does not know (skipped; the sequence still counts).
    #[error("unknown message type {0:#04x}")]
    UnknownType(u8),
    /// The payload does not fit its type.
    #[error("bad payload for type {kind:#04x}: {reason}")]
    Payload {
        /// The message type.
        kind: u8,
        /// What is wrong.
        reason: &'static str,
    },
}

/// The checked header of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Message type (`TYPE_*`).
    pub kind: u8,
    /// Sequence number.
    pub seq: u16,
    /// Microcontroller time, low 32 bits of ms.
    pub time: u32,
}

fn board_size_of(points: usize) -> Result<u8, EncodeError> {
    let size = (points as f64).sqrt().round() as usize;
    if size * size != points {
        return Err(EncodeError::NotSquare(points));
    }
    if size == 0 || size > MAX_BOARD_SIZE as usize {
        return Err(EncodeError::BoardSize(size));
    }
    Ok(size as u8)
}

fn state_bits(state: PointState) -> u8 {
    match state {
        PointState::Empty => 0,
        PointState::Black => 1,
        PointState::White => 2,
        PointState::Unknown => 3,
    }
}

fn bits_state(bits: u8) -> PointState {
    match bits & 3 {
        0 => PointState::Empty,
        1 => PointState::Black,
        2 => PointState::White,
        _ => PointState::Unknown,
    }
}

/// Bytes of a packed 12-bit payload for `n` readings (after the size byte).
pub const fn packed12_len(n: usize) -> usize {
    (3 * n).div_ceil(2)
}

/// Builds the payload of `body`; returns the message type and appends the bytes to `out`.
fn write_payload(body: &Body, raw: RawFormat, out: &mut Vec<u8>) -> Result<u8, EncodeError> {
    match body {
        Body::Hello(h) => {
            out.extend_from_slice(&[h.size, h.adc_bits]);
            out.extend_from_slice(&h.firmware);
            out.push(if h.boot { HELLO_FLAG_BOOT } else { 0 });
            out.extend_from_slice(&h.scan_hz.to_le_bytes());
            Ok(TYPE_HELLO)
        }
        Body::Button { button, action } => {
            out.push(match button {
                Button::Black => 0,
                Button::White => 1,
            });
            out.push(match action {
                ButtonAction::Press => 0,
                ButtonAction::Release => 1,
            });
            Ok(TYPE_BUTTON)
        }
        Body::Scan(FrameData::Raw(readings)) => {
            out.push(board_size_of(readings.len())?);
            match raw {
                RawFormat::U16 => {
                    for r in readings {
                        out.extend_from_slice(&r.to_le_bytes());
                    }
                    Ok(TYPE_SCAN_RAW16)
                }
                RawFormat::Packed12 => {
                    if let Some((index, &value)) =
                        readings.iter().enumerate().find(|(_, &v)| v > 0x0FFF)
                    {
                        return Err(EncodeError::ReadingTooLarge { index, value });
                    }
                    for pair in readings.chunks(2) {
                        let a = pair[0];
                        let b = pair.get(1).copied().unwrap_or(0);
                        out.push((a & 0xFF) as u8);
                        out.push(((a >> 8) as u8) | (((b & 0x0F) as u8) << 4));
                        if pair.len() == 2 {
                            out.push((b >> 4) as u8);
                        }
                    }
                    Ok(TYPE_SCAN_RAW12)
                }
            }
        }
        Body::Scan(FrameData::Classified(states)) => {
            out.push(board_size_of(states.len())?);
            for quad in states.chunks(4) {
                let mut byte = 0u8;
                for (i, &s) in quad.iter().enumerate() {
                    byte |= state_bits(s) << (2 * i);
                }
                out.push(byte);
            }
            Ok(TYPE_SCAN_CLASSIFIED)
        }
    }
}

/// Builds the decoded (pre-COBS) frame of `msg`: header, payload, CRC.
pub fn frame_bytes(msg: &Message, raw: RawFormat) -> Result<Vec<u8>, EncodeError> {
    // Room for the largest usual payload (a raw 19x19 scan) without reallocating.
    let mut frame = Vec::with_capacity(HEADER_LEN + 1 + 2 * 361 + CRC_LEN);
    frame.extend_from_slice(&MAGIC);
    frame.push(VERSION);
    frame.push(0); // type, filled in below
    frame.extend_from_slice(&msg.seq.to_le_bytes());
    frame.extend_from_slice(&(msg.time as u32).to_le_bytes());
    frame.extend_from_slice(&[0, 0]); // payload length, filled in below
    let kind = write_payload(&msg.body, raw, &mut frame)?;
    let payload_len = frame.len() - HEADER_LEN;
    frame[3] = kind;
    // The board-size check bounds the payload well below u16::MAX.
    frame[10..12].copy_from_slice(&(payload_len as u16).to_le_bytes());
    let crc = CRC32.checksum(&frame);
    frame.extend_from_slice(&crc.to_le_bytes());
    Ok(frame)
}

/// Appends the wire form of `msg` to `out`: a delimiter, the COBS-encoded frame, a
/// delimiter. The leading delimiter lets a receiver resynchronise right after garbage.
pub fn encode_message(msg: &Message, raw: RawFormat, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let frame = frame_bytes(msg, raw)?;
    out.push(DELIMITER);
    let start = out.len();
    out.resize(start + cobs::max_encoding_length(frame.len()), 0);
    let n = cobs::encode(&frame, &mut out[start..]);
    out.truncate(start + n);
    out.push(DELIMITER);
    Ok(())
}

/// The microcontroller side: numbers messages and encodes them.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    seq: u16,
    raw: RawFormat,
}

impl Encoder {
    /// A fresh encoder (sequence 0) writing raw scans in `raw` form.
    pub fn new(raw: RawFormat) -> Self {
        Self { seq: 0, raw }
    }

    /// The sequence number the next message will carry.
    pub fn next_seq(&self) -> u16 {
        self.seq
    }

    /// Encodes `body` stamped with `time` (ms, low 32 bits sent), appending the bytes to
    /// `out`, and returns the sequence number used. A message that cannot be encoded does
    /// not use up a sequence number.
    pub fn encode(
        &mut self,
        time: Millis,
        body: Body,
        out: &mut Vec<u8>,
    ) -> Result<u16, EncodeError> {
        let seq = self.seq;
        encode_message(&Message { seq, time, body }, self.raw, out)?;
        self.seq = self.seq.wrapping_add(1);
        Ok(seq)
    }
}

/// Checks a decoded frame (CRC, magic, version, length) and returns its header and payload.
pub fn split_frame(frame: &[u8]) -> Result<(Header, &[u8]), FrameError> {
    if frame.len() < HEADER_LEN + CRC_LEN {
        return Err(FrameError::TooShort(frame.len()));
    }
    if frame.len() > MAX_FRAME_LEN {
        return Err(FrameError::Oversize);
    }
    let (content, crc_bytes) = frame.split_at(frame.len() - CRC_LEN);
    let sent = u32::from_le_bytes([crc_bytes[0], crc_bytes[1], crc_bytes[2], crc_bytes[3]]);
    let computed = CRC32.checksum(content);
    if sent != computed {
        return Err(FrameError::Crc { sent, computed });
    }
    if content[0..2] != MAGIC {
        return Err(FrameError::BadMagic([content[0], content[1]]));
    }
    if content[2] != VERSION {
        return Err(FrameError::Version(content[2]));
    }
    let declared = u16::from_le_bytes([content[10], content[11]]) as usize;
    let payload = &content[HEADER_LEN..];
    if declared != payload.len() {
        return Err(FrameError::Length {
            declared,
            actual: payload.len(),
        });
    }
    let header = Header {
        kind: content[3],
        seq: u16::from_le_bytes([content[4], content[5]]),
        time: u32::from_le_bytes([content[6], content[7], content[8], content[9]]),
    };
    Ok((header, payload))
}

fn scan_points(kind: u8, payload: &[u8]) -> Result<(usize, &[u8]), FrameError> {
    let (&size, rest) = payload.split_first().ok_or(FrameError::Payload {
        kind,
        reason: "empty scan payload",
    })?;
    if size == 0 || size > MAX_BOARD_SIZE {
        return Err(FrameError::Payload {
            kind,
            reason: "board size out of range",
        });
    }
    Ok((size as usize * size as usize, rest))
}

/// Parses the payload of a message of type `kind`.
pub fn parse_body(kind: u8, payload: &[u8]) -> Result<Body, FrameError> {
    let bad = |reason| FrameError::Payload { kind, reason };
    match kind {
        TYPE_HELLO => {
            if payload.len() < HELLO_LEN {
                return Err(bad("hello shorter than 8 bytes"));
            }
            Ok(Body::Hello(Hello {
                size: payload[0],
                adc_bits: payload[1],
                firmware: [payload[2], payload[3], payload[4]],
                boot: payload[5] & HELLO_FLAG_BOOT != 0,
                scan_hz: u16::from_le_bytes([payload[6], payload[7]]),
            }))
        }
        TYPE_BUTTON => {
            let [b, a] = payload else {
                return Err(bad("button payload is not 2 bytes"));
            };
            let button = match b {
                0 => Button::Black,
                1 => Button::White,
                _ => return Err(bad("unknown button")),
            };
            let action = match a {
                0 => ButtonAction::Press,
                1 => ButtonAction::Release,
                _ => return Err(bad("unknown button action")),
            };
            Ok(Body::Button { button, action })
        }
        TYPE_SCAN_RAW16 => {
            let (n, data) = scan_points(kind, payload)?;
            if data.len() != 2 * n {
                return Err(bad("raw16 length does not match board size"));
            }
            let readings = data
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            Ok(Body::Scan(FrameData::Raw(readings)))
        }
        TYPE_SCAN_RAW12 => {
            let (n, data) = scan_points(kind, payload)?;
            if data.len() != packed12_len(n) {
                return Err(bad("raw12 length does not match board size"));
            }
            let mut readings = Vec::with_capacity(n + 1);
            for c in data.chunks(3) {
                let b0 = c[0] as u16;
                let b1 = c.get(1).copied().unwrap_or(0) as u16;
                readings.push(b0 | ((b1 & 0x0F) << 8));
                if let Some(&b2) = c.get(2) {
                    readings.push((b1 >> 4) | ((b2 as u16) << 4));
                }
            }
            readings.truncate(n);
            Ok(Body::Scan(FrameData::Raw(readings)))
        }
        TYPE_SCAN_CLASSIFIED => {
            let (n, data) = scan_points(kind, payload)?;
            if data.len() != n.div_ceil(4) {
                return Err(bad("classified length does not match board size"));
            }
            let states = (0..n)
                .map(|i| bits_state(data[i / 4] >> (2 * (i % 4))))
                .collect();
            Ok(Body::Scan(FrameData::Classified(states)))
        }
        other => Err(FrameError::UnknownType(other)),
    }
}

/// Checks and parses one decoded frame. `time` in the result is the raw 32-bit timestamp.
pub fn parse_frame(frame: &[u8]) -> Result<Message, FrameError> {
    let (header, payload) = split_frame(frame)?;
    Ok(Message {
        seq: header.seq,
        time: header.time as Millis,
        body: parse_body(header.kind, payload)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_one(bytes: &[u8]) -> Result<Message, FrameError> {
        let inner = bytes
            .strip_prefix(&[DELIMITER])
            .and_then(|b| b.strip_suffix(&[DELIMITER]))
            .ok_or(FrameError::Cobs)?;
        let frame = cobs::decode_vec(inner).map_err(|_| FrameError::Cobs)?;
        parse_frame(&frame)
    }

    fn roundtrip(msg: Message, raw: RawFormat) -> Message {
        let mut out = Vec::new();
        encode_message(&msg, raw, &mut out).unwrap();
        assert_eq!(
            out.iter().filter(|&&b| b == 0).count(),
            2,
            "only the two delimiters"
        );
        decode_one(&out).unwrap()
    }

    #[test]
    fn raw_scans_roundtrip_in_both_formats() {
        let readings: Vec<u16> = (0..361).map(|i| (i * 11 % 4096) as u16).collect();
        for raw in [RawFormat::U16, RawFormat::Packed12] {
            let msg = Message {
                seq: 65535,
                time: 0xFFFF_FFF0,
                body: Body::Scan(FrameData::Raw(readings.clone())),
            };
            assert_eq!(roundtrip(msg.clone(), raw), msg);
        }
    }

    #[test]
    fn packed12_handles_odd_counts_and_extremes() {
        for size in [1usize, 3, 9, 19] {
            let readings: Vec<u16> = (0..size * size)
                .map(|i| if i % 2 == 0 { 0x0FFF } else { 0x0001 })
                .collect();
            let msg = Message {
                seq: 1,
                time: 2,
                body: Body::Scan(FrameData::Raw(readings)),
            };
            assert_eq!(roundtrip(msg.clone(), RawFormat::Packed12), msg);
        }
    }

    #[test]
    fn frame_sizes_match_the_protocol_document() {
        let raw = Message {
            seq: 0,
            time: 0,
            body: Body::Scan(FrameData::Raw(vec![2048; 361])),
        };
        assert_eq!(
            frame_bytes(&raw, RawFormat::U16).unwrap().len(),
            16 + 1 + 722
        );
        assert_eq!(
            frame_bytes(&raw, RawFormat::Packed12).unwrap().len(),
            16 + 1 + 542
        );
        let classified = Message {
            seq: 0,
            time: 0,
            body: Body::Scan(FrameData::Classified(vec![PointState::Empty; 361])),
        };
        assert_eq!(
            frame_bytes(&classified, RawFormat::U16).unwrap().len(),
            16 + 1 + 91
        );
    }

    #[test]
    fn limits_are_the_ones_in_the_protocol_document() {
        assert_eq!(MAX_FRAME_LEN, 1296);
        assert_eq!(MAX_ENCODED_LEN, 1302);
        // The largest scan fits the payload limit.
        let raw = Message {
            seq: 0,
            time: 0,
            body: Body::Scan(FrameData::Raw(vec![0xFFFF; 25 * 25])),
        };
        let frame = frame_bytes(&raw, RawFormat::U16).unwrap();
        assert!(frame.len() <= MAX_FRAME_LEN);
        assert_eq!(CRC32.checksum(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn classified_hello_and_buttons_roundtrip() {
        let states = [
            PointState::Empty,
            PointState::Black,
            PointState::White,
            PointState::Unknown,
        ];
        let msgs = [
            Message {
                seq: 7,
                time: 1234,
                body: Body::Scan(FrameData::Classified(
                    (0..361).map(|i| states[i * 7 % 4]).collect(),
                )),
            },
            Message {
                seq: 8,
                time: 1235,
                body: Body::Hello(Hello {
                    size: 19,
                    adc_bits: 12,
                    firmware: [1, 2, 3],
                    scan_hz: 100,
                    boot: true,
                }),
            },
            Message {
                seq: 9,
                time: 1236,
                body: Body::Button {
                    button: Button::White,
                    action: ButtonAction::Release,
                },
            },
        ];
        for msg in msgs {
            assert_eq!(roundtrip(msg.clone(), RawFormat::U16), msg);
        }
    }

    #[test]
    fn encoder_rejects_bad_scans_without_using_a_sequence_number() {
        let mut enc = Encoder::new(RawFormat::Packed12);
        let mut out = Vec::new();
        assert_eq!(
            enc.encode(0, Body::Scan(FrameData::Raw(vec![0; 360])), &mut out),
            Err(EncodeError::NotSquare(360))
        );
        assert_eq!(
            enc.encode(0, Body::Scan(FrameData::Raw(vec![0; 26 * 26])), &mut out),
            Err(EncodeError::BoardSize(26))
        );
        let mut readings = vec![0; 4];
        readings[3] = 4096;
        assert_eq!(
            enc.encode(0, Body::Scan(FrameData::Raw(readings)), &mut out),
            Err(EncodeError::ReadingTooLarge {
                index: 3,
                value: 4096
            })
        );
        assert!(out.is_empty());
        assert_eq!(enc.next_seq(), 0);
    }

    #[test]
    fn header_checks_reject_what_they_should() {
        let msg = Message {
            seq: 3,
            time: 4,
            body: Body::Button {
                button: Button::Black,
                action: ButtonAction::Press,
            },
        };
        let good = frame_bytes(&msg, RawFormat::U16).unwrap();
        let reseal = |mut f: Vec<u8>| {
            let n = f.len() - CRC_LEN;
            let crc = CRC32.checksum(&f[..n]);
            f[n..].copy_from_slice(&crc.to_le_bytes());
            f
        };
        let mut bad_crc = good.clone();
        bad_crc[12] ^= 0x40;
        assert!(matches!(parse_frame(&bad_crc), Err(FrameError::Crc { .. })));
        let mut magic = good.clone();
        magic[0] = b'X';
        assert_eq!(
            parse_frame(&reseal(magic)),
            Err(FrameError::BadMagic([b'X', 0x47]))
        );
        let mut version = good.clone();
        version[2] = 2;
        assert_eq!(parse_frame(&reseal(version)), Err(FrameError::Version(2)));
        let mut length = good.clone();
        length[10] = 3;
        assert_eq!(
            parse_frame(&reseal(length)),
            Err(FrameError::Length {
                declared: 3,
                actual: 2
            })
        );
        let mut kind = good.clone();
        kind[3] = 0x7E;
        assert_eq!(
            parse_frame(&reseal(kind)),
            Err(FrameError::UnknownType(0x7E))
        );
        let mut button = good.clone();
        button[12] = 5;
        assert!(matches!(
            parse_frame(&reseal(button)),
            Err(FrameError::Payload {
                kind: TYPE_BUTTON,
                ..
            })
        ));
        assert_eq!(parse_frame(&good[..10]), Err(FrameError::TooShort(10)));
    }
}
