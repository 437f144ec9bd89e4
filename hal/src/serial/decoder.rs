//! The stream decoder (sans-IO): bytes in, in any chunking; checked messages out, with
//! every rejected frame and every sequence gap counted in [`DecoderStats`].

use super::protocol::{
    parse_body, split_frame, Body, FrameError, Message, DELIMITER, MAX_ENCODED_LEN,
};
use crate::traits::Millis;

/// Counters of what the decoder has seen since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecoderStats {
    /// Bytes fed in.
    pub bytes: u64,
    /// Bytes skipped while hunting for the first delimiter (after start or a resync).
    pub skipped_bytes: u64,
    /// Messages decoded and handed out.
    pub messages: u64,
    /// Frames that were not valid COBS.
    pub cobs_errors: u64,
    /// Frames shorter than a header and a CRC (truncated frames, line noise).
    pub too_short: u64,
    /// Runs of bytes longer than the largest frame between two delimiters.
    pub oversize: u64,
    /// Frames whose CRC did not match.
    pub crc_errors: u64,
    /// Frames with a good CRC but a bad magic, version or length field.
    pub bad_header: u64,
    /// Frames with a good header whose payload did not fit its type.
    pub bad_payload: u64,
    /// Frames of a message type this decoder does not know (skipped).
    pub unknown_type: u64,
    /// Messages missing according to the sequence numbers.
    pub lost: u64,
    /// Times the sequence started afresh (microcontroller reset, or a jump backwards).
    pub restarts: u64,
}

impl DecoderStats {
    /// Frames rejected for any reason (not counting skipped bytes or unknown types).
    pub fn rejected(&self) -> u64 {
        self.cobs_errors
            + self.too_short
            + self.oversize
            + self.crc_errors
            + self.bad_header
            + self.bad_payload
    }
}

/// A message as the stream decoder hands it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The message; its `time` is the microcontroller's clock extended past 32-bit wraps.
    pub message: Message,
    /// Messages missing just before this one (a sequence gap).
    pub lost_before: u32,
    /// The sequence and clock start afresh at this message (reset, first message).
    pub restarted: bool,
}

/// What the sequence number says about a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqCheck {
    /// The first message since start or a reset of the tracker.
    First,
    /// The one expected.
    InOrder,
    /// This many were skipped before it.
    Gap(u32),
    /// The numbering started over (a reset, or a jump backwards).
    Restart,
}

/// Follows the 16-bit sequence number across wraps.
#[derive(Debug, Clone, Copy, Default)]
pub struct SeqTracker {
    expected: Option<u16>,
}

impl SeqTracker {
    /// Takes in the next sequence number; `fresh` says the sender announced a restart.
    pub fn observe(&mut self, seq: u16, fresh: bool) -> SeqCheck {
        let check = match self.expected {
            None => SeqCheck::First,
            _ if fresh => SeqCheck::Restart,
            Some(e) if seq == e => SeqCheck::InOrder,
            Some(e) => {
                let gap = seq.wrapping_sub(e);
                if gap < 0x8000 {
                    SeqCheck::Gap(gap as u32)
                } else {
                    SeqCheck::Restart
                }
            }
        };
        self.expected = Some(seq.wrapping_add(1));
        check
    }

    /// Forgets the numbering (after a reconnect).
    pub fn reset(&mut self) {
        self.expected = None;
    }
}

/// Extends a wrapping 32-bit millisecond clock to 64 bits. Timestamps may step back a
/// little (a button edge stamped before the last scan was sent) without being taken for a
/// wrap: any step of less than 2^31 ms either way is taken at face value.
#[derive(Debug, Clone, Copy, Default)]
pub struct TimeUnwrapper {
    last: Option<(u32, u64)>,
}

impl TimeUnwrapper {
    /// The 64-bit time of `raw`.
    pub fn extend(&mut self, raw: u32) -> u64 {
        match self.last {
            None => {
                self.last = Some((raw, raw as u64));
                raw as u64
            }
            Some((last_raw, last_ext)) => {
                let forward = raw.wrapping_sub(last_raw);
                if forward < 0x8000_0000 {
                    let ext = last_ext + forward as u64;
                    self.last = Some((raw, ext));
                    ext
                } else {
                    last_ext.saturating_sub(last_raw.wrapping_sub(raw) as u64)
                }
            }
        }
    }

    /// Forgets the clock (after a reset of the sender).
    pub fn reset(&mut self) {
        self.last = None;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Skipping bytes until a delimiter: at start and after [`Decoder::resync`].
    Hunting,
    /// Collecting the bytes of a frame.
    Collecting,
    /// Skipping the rest of an oversize run until the next delimiter.
    Discarding,
}

/// The stream decoder. Feed it bytes as they come; it never panics and never buffers more
/// than one maximum-size frame.
#[derive(Debug, Clone)]
pub struct Decoder {
    state: State,
    buf: Vec<u8>,
    stats: DecoderStats,
    seq: SeqTracker,
    clock: TimeUnwrapper,
    last_error: Option<FrameError>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// A decoder that starts by hunting for a delimiter (it may be joining mid-stream).
    pub fn new() -> Self {
        Self {
            state: State::Hunting,
            buf: Vec::with_capacity(MAX_ENCODED_LEN),
            stats: DecoderStats::default(),
            seq: SeqTracker::default(),
            clock: TimeUnwrapper::default(),
            last_error: None,
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> &DecoderStats {
        &self.stats
    }

    /// Why the last rejected frame was rejected, if any was.
    pub fn last_error(&self) -> Option<&FrameError> {
        self.last_error.as_ref()
    }

    /// Starts over after a reconnect: drops any partial frame, hunts for a delimiter and
    /// forgets the sequence numbering and clock (the counters stay).
    pub fn resync(&mut self) {
        self.state = State::Hunting;
        self.buf.clear();
        self.seq.reset();
        self.clock.reset();
    }

    /// Feeds bytes in; every message completed by them is appended to `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Received>) {
        self.stats.bytes += bytes.len() as u64;
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == DELIMITER);
            let (piece, delimited) = match end {
                Some(i) => (&bytes[..i], true),
                None => (bytes, false),
            };
            bytes = match end {
                Some(i) => &bytes[i + 1..],
                None => &[],
            };
            match self.state {
                State::Hunting => self.stats.skipped_bytes += piece.len() as u64,
                State::Discarding => {}
                State::Collecting => {
                    if self.buf.len() + piece.len() > MAX_ENCODED_LEN {
                        self.stats.oversize += 1;
                        self.last_error = Some(FrameError::Oversize);
                        self.buf.clear();
                        self.state = State::Discarding;
                    } else {
                        self.buf.extend_from_slice(piece);
                    }
                }
            }
            if delimited {
                if self.state == State::Collecting && !self.buf.is_empty() {
                    let mut frame = std::mem::take(&mut self.buf);
                    self.frame(&mut frame, out);
                    frame.clear();
                    self.buf = frame;
                }
                self.state = State::Collecting;
            }
        }
    }

    /// Handles the bytes between two delimiters.
    fn frame(&mut self, encoded: &mut [u8], out: &mut Vec<Received>) {
        let len = match cobs::decode_in_place(encoded) {
            Ok(len) => len,
            Err(_) => return self.reject(FrameError::Cobs),
        };
        let (header, payload) = match split_frame(&encoded[..len]) {
            Ok(split) => split,
            Err(e) => return self.reject(e),
        };
        let body = parse_body(header.kind, payload);
        // A valid header counts for the sequence even if the payload is unknown or bad:
        // the message did arrive.
        let fresh = matches!(&body, Ok(Body::Hello(h)) if h.boot);
        let check = self.seq.observe(header.seq, fresh);
        let (lost_before, restarted) = match check {
            SeqCheck::First => (0, true),
            SeqCheck::InOrder => (0, false),
            SeqCheck::Gap(n) => (n, false),
            SeqCheck::Restart => (0, true),
        };
        self.stats.lost += lost_before as u64;
        if restarted {
            if check == SeqCheck::Restart {
                self.stats.restarts += 1;
            }
            self.clock.reset();
        }
        let time: Millis = self.clock.extend(header.time);
        match body {
            Ok(body) => {
                self.stats.messages += 1;
                out.push(Received {
                    message: Message {
                        seq: header.seq,
                        time,
                        body,
                    },
                    lost_before,
                    restarted,
                });
            }
            Err(e @ FrameError::UnknownType(_)) => {
                self.stats.unknown_type += 1;
                self.last_error = Some(e);
            }
            Err(e) => self.reject(e),
        }
    }

    fn reject(&mut self, e: FrameError) {
        match e {
            FrameError::Cobs => self.stats.cobs_errors += 1,
            FrameError::TooShort(_) => self.stats.too_short += 1,
            FrameError::Oversize => self.stats.oversize += 1,
            FrameError::Crc { .. } => self.stats.crc_errors += 1,
            FrameError::BadMagic(_) | FrameError::Version(_) | FrameError::Length { .. } => {
                self.stats.bad_header += 1
            }
            FrameError::Payload { .. } => self.stats.bad_payload += 1,
            FrameError::UnknownType(_) => self.stats.unknown_type += 1,
        }
        tracing::debug!(error = %e, "serial frame rejected");
        self.last_error = Some(e);
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{encode_message, Hello, RawFormat};
    use super::*;
    use crate::traits::{Button, ButtonAction, FrameData};

    fn button(seq: u16, time: Millis) -> Message {
        Message {
            seq,
            time,
            body: Body::Button {
                button: Button::Black,
                action: ButtonAction::Press,
            },
        }
    }

    fn wire(msgs: &[Message]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in msgs {
            encode_message(m, RawFormat::U16, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn byte_at_a_time_equals_all_at_once() {
        let msgs: Vec<Message> = (0..5)
            .map(|i| Message {
                seq: i,
                time: 10 * i as u64,
                body: Body::Scan(FrameData::Raw(vec![i * 100; 361])),
            })
            .collect();
        let bytes = wire(&msgs);
        let mut whole = Vec::new();
        Decoder::new().feed(&bytes, &mut whole);
        let mut dec = Decoder::new();
        let mut single = Vec::new();
        for b in &bytes {
            dec.feed(std::slice::from_ref(b), &mut single);
        }
        assert_eq!(whole, single);
        let got: Vec<Message> = whole.into_iter().map(|r| r.message).collect();
        assert_eq!(got, msgs);
        assert_eq!(dec.stats().rejected(), 0);
        assert_eq!(dec.stats().messages, 5);
    }

    #[test]
    fn joining_mid_frame_skips_to_the_next_delimiter() {
        let bytes = wire(&[button(0, 0), button(1, 1)]);
        let mut dec = Decoder::new();
        let mut out = Vec::new();
        dec.feed(&bytes[3..], &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].message.seq, 1);
        assert_eq!(dec.stats().rejected(), 0);
        assert!(dec.stats().skipped_bytes > 0);
    }

    #[test]
    fn gaps_are_counted_and_wraps_are_not_gaps() {
        let bytes = wire(&[
            button(65534, 0),
            button(65535, 1),
            button(0, 2),
            button(4, 3),
        ]);
        let mut dec = Decoder::new();
        let mut out = Vec::new();
        dec.feed(&bytes, &mut out);
        let lost: Vec<u32> = out.iter().map(|r| r.lost_before).collect();
        assert_eq!(lost, vec![0, 0, 0, 3]);
        assert_eq!(dec.stats().lost, 3);
    }

    #[test]
    fn boot_hello_restarts_numbering_and_clock() {
        let hello = Message {
            seq: 0,
            time: 5,
            body: Body::Hello(Hello {
                size: 19,
                adc_bits: 12,
                firmware: [1, 0, 0],
                scan_hz: 100,
                boot: true,
            }),
        };
        let bytes = wire(&[button(100, 900_000), hello, button(1, 15)]);
        let mut dec = Decoder::new();
        let mut out = Vec::new();
        dec.feed(&bytes, &mut out);
        assert_eq!(out.len(), 3);
        assert!(out[1].restarted);
        assert_eq!(out[1].lost_before, 0);
        assert_eq!(out[2].message.time, 15);
        assert_eq!(dec.stats().lost, 0);
        assert_eq!(dec.stats().restarts, 1);
    }

    #[test]
    fn clock_is_extended_across_the_32_bit_wrap() {
        let mut u = TimeUnwrapper::default();
        assert_eq!(u.extend(u32::MAX - 5), u32::MAX as u64 - 5);
        assert_eq!(u.extend(4), u32::MAX as u64 + 5);
        // A small step back (a button stamped before the last scan) is not a wrap.
        assert_eq!(u.extend(2), u32::MAX as u64 + 3);
        assert_eq!(u.extend(10), u32::MAX as u64 + 11);
    }

    #[test]
    fn oversize_runs_are_dropped_and_the_next_frame_decodes() {
        let mut bytes = vec![0u8];
        bytes.extend(std::iter::repeat_n(0x55, MAX_ENCODED_LEN + 10));
        bytes.extend(wire(&[button(0, 0)]));
        let mut dec = Decoder::new();
        let mut out = Vec::new();
        for chunk in bytes.chunks(97) {
            dec.feed(chunk, &mut out);
        }
        assert_eq!(out.len(), 1);
        assert_eq!(dec.stats().oversize, 1);
        assert_eq!(dec.stats().rejected(), 1);
        assert_eq!(dec.last_error(), Some(&FrameError::Oversize));
    }

    #[test]
    fn garbage_between_frames_is_counted_once_per_run() {
        let mut bytes = wire(&[button(0, 0)]);
        bytes.extend_from_slice(b"hello world");
        bytes.push(0);
        bytes.extend_from_slice(&[1, 2]);
        bytes.extend(wire(&[button(1, 1)]));
        let mut dec = Decoder::new();
        let mut out = Vec::new();
        dec.feed(&bytes, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(dec.stats().rejected(), 2);
        assert_eq!(dec.stats().lost, 0);
    }
}
