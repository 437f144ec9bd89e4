//! The firmware core's frames against the Pi's own decoder (`tengen_hal::serial`): every
//! frame the core writes is read back exactly, in any chunking of the stream, across the
//! sequence number's wrap, with nothing counted as lost or rejected; the bytes are the
//! hal encoder's own for the same message (two implementations of hal/PROTOCOL.md, whose
//! CRC-32 and COBS share no code).

use proptest::prelude::*;
use tengen_firmware::frame::{self, parse_status, Action, Button, Hello, Message, Status};
use tengen_firmware::FrameEncoder;
use tengen_hal::serial::protocol::{encode_message, split_frame, RawFormat};
use tengen_hal::serial::{Body, Decoder, Hello as HalHello, Message as HalMessage};
use tengen_hal::{Button as HalButton, ButtonAction, FrameData, PointState};

/// A message in owned form, to generate.
#[derive(Debug, Clone)]
enum Owned {
    Hello(Hello),
    Raw12(u8, Vec<u16>),
    Raw16(u8, Vec<u16>),
    Classified(u8, Vec<u8>),
    Button(Button, Action),
}

impl Owned {
    fn message(&self) -> Message<'_> {
        match self {
            Owned::Hello(h) => Message::Hello(*h),
            Owned::Raw12(size, r) => Message::ScanRaw12 {
                size: *size,
                readings: r,
            },
            Owned::Raw16(size, r) => Message::ScanRaw16 {
                size: *size,
                readings: r,
            },
            Owned::Classified(size, s) => Message::ScanClassified {
                size: *size,
                states: s,
            },
            Owned::Button(button, action) => Message::Button {
                button: *button,
                action: *action,
            },
        }
    }

    /// What the Pi's decoder should make of it.
    fn as_hal(&self) -> Body {
        match self {
            Owned::Hello(h) => Body::Hello(HalHello {
                size: h.size,
                adc_bits: h.adc_bits,
                firmware: h.firmware,
                scan_hz: h.scan_hz,
                boot: h.boot,
            }),
            Owned::Raw12(_, r) | Owned::Raw16(_, r) => Body::Scan(FrameData::Raw(r.clone())),
            Owned::Classified(_, s) => Body::Scan(FrameData::Classified(
                s.iter()
                    .map(|&b| match b {
                        frame::STATE_EMPTY => PointState::Empty,
                        frame::STATE_BLACK => PointState::Black,
                        frame::STATE_WHITE => PointState::White,
                        _ => PointState::Unknown,
                    })
                    .collect(),
            )),
            Owned::Button(b, a) => Body::Button {
                button: match b {
                    Button::Black => HalButton::Black,
                    Button::White => HalButton::White,
                },
                action: match a {
                    Action::Press => ButtonAction::Press,
                    Action::Release => ButtonAction::Release,
                },
            },
        }
    }

    /// The raw format the hal encoder needs for the same bytes.
    fn raw_format(&self) -> RawFormat {
        match self {
            Owned::Raw12(..) => RawFormat::Packed12,
            _ => RawFormat::U16,
        }
    }
}

fn status() -> impl Strategy<Value = Option<Status>> {
    prop::option::of(
        (
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u16>(),
            any::<u16>(),
        )
            .prop_map(|(scans, overruns, dropped, scan_us, max_late_us)| Status {
                scans,
                overruns,
                dropped,
                scan_us,
                max_late_us,
            }),
    )
}

fn message() -> impl Strategy<Value = Owned> {
    let size = 1u8..=25;
    prop_oneof![
        (
            any::<u8>(),
            any::<u8>(),
            any::<[u8; 3]>(),
            any::<bool>(),
            any::<u16>(),
            status()
        )
            .prop_map(|(size, adc_bits, firmware, boot, scan_hz, status)| {
                Owned::Hello(Hello {
                    size,
                    adc_bits,
                    firmware,
                    boot,
                    scan_hz,
                    status,
                })
            }),
        size.clone().prop_flat_map(|s| {
            prop::collection::vec(0u16..4096, s as usize * s as usize)
                .prop_map(move |r| Owned::Raw12(s, r))
        }),
        size.clone().prop_flat_map(|s| {
            prop::collection::vec(any::<u16>(), s as usize * s as usize)
                .prop_map(move |r| Owned::Raw16(s, r))
        }),
        size.prop_flat_map(|s| {
            prop::collection::vec(0u8..4, s as usize * s as usize)
                .prop_map(move |st| Owned::Classified(s, st))
        }),
        (any::<bool>(), any::<bool>()).prop_map(|(b, a)| Owned::Button(
            if b { Button::Black } else { Button::White },
            if a { Action::Press } else { Action::Release }
        )),
    ]
}

/// Encodes `msg` with the core, checking the bytes against the hal's encoder.
fn encode(enc: &mut FrameEncoder, time: u32, msg: &Owned) -> Vec<u8> {
    let mut scratch = vec![0u8; frame::MAX_FRAME_LEN];
    let mut out = vec![0u8; frame::MAX_WIRE_LEN];
    let seq = enc.next_seq();
    let n = enc
        .encode(time, &msg.message(), &mut scratch, &mut out)
        .expect("a valid message encodes");
    out.truncate(n);
    let mut hal = Vec::new();
    encode_message(
        &HalMessage {
            seq,
            time: u64::from(time),
            body: msg.as_hal(),
        },
        msg.raw_format(),
        &mut hal,
    )
    .expect("the hal encodes it too");
    match msg {
        Owned::Hello(Hello {
            status: Some(s), ..
        }) => {
            // The status follows the version-1 hello, which is the hal's: same header
            // fields, the first 8 payload bytes equal, and the status read back.
            let ours = cobs::decode_vec(&out[1..out.len() - 1]).expect("COBS");
            let (head, payload) = split_frame(&ours).expect("a valid frame");
            assert_eq!((head.seq, head.time), (seq, time));
            let theirs = cobs::decode_vec(&hal[1..hal.len() - 1]).expect("COBS");
            let (_, hal_payload) = split_frame(&theirs).expect("a valid frame");
            assert_eq!(&payload[..8], hal_payload);
            assert_eq!(parse_status(payload), Some(*s));
        }
        _ => assert_eq!(out, hal, "the core's bytes are the hal encoder's"),
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_frame_the_core_writes_is_read_back_exactly(
        msgs in prop::collection::vec(message(), 1..12),
        first_seq in prop_oneof![Just(65530u16), Just(65535u16), any::<u16>()],
        first_time in any::<u32>(),
        chunk in 1usize..700,
    ) {
        let mut enc = FrameEncoder::starting_at(first_seq);
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        for (i, msg) in msgs.iter().enumerate() {
            let time = first_time.wrapping_add(i as u32 * 10);
            stream.extend(encode(&mut enc, time, msg));
            expected.push((first_seq.wrapping_add(i as u16), msg.as_hal()));
        }
        let mut decoder = Decoder::new();
        let mut got = Vec::new();
        for piece in stream.chunks(chunk) {
            decoder.feed(piece, &mut got);
        }
        let got: Vec<(u16, Body)> = got.into_iter().map(|r| (r.message.seq, r.message.body)).collect();
        prop_assert_eq!(got, expected);
        let stats = decoder.stats();
        prop_assert_eq!(stats.rejected(), 0);
        prop_assert_eq!(stats.lost, 0);
        // A boot hello after the first message tells the receiver the numbering restarts.
        let boots = msgs
            .iter()
            .skip(1)
            .filter(|m| matches!(m, Owned::Hello(Hello { boot: true, .. })))
            .count();
        prop_assert_eq!(stats.restarts, boots as u64);
        prop_assert_eq!(stats.skipped_bytes, 0);
        prop_assert_eq!(enc.next_seq(), first_seq.wrapping_add(msgs.len() as u16));
    }
}

#[test]
fn the_sequence_wraps_from_65535_to_0_without_a_gap() {
    let mut enc = FrameEncoder::starting_at(65534);
    let msg = Owned::Button(Button::White, Action::Press);
    let mut stream = Vec::new();
    for t in 0..4 {
        stream.extend(encode(&mut enc, t, &msg));
    }
    let mut decoder = Decoder::new();
    let mut got = Vec::new();
    decoder.feed(&stream, &mut got);
    let seqs: Vec<u16> = got.iter().map(|r| r.message.seq).collect();
    assert_eq!(seqs, [65534, 65535, 0, 1]);
    assert!(got
        .iter()
        .all(|r| r.lost_before == 0 && !r.restarted || r.message.seq == 65534));
    assert_eq!(decoder.stats().lost, 0);
    assert_eq!(decoder.stats().restarts, 0);
}

#[test]
fn the_core_constants_are_the_hals() {
    use tengen_hal::serial::protocol as hal;
    assert_eq!(frame::MAGIC, hal::MAGIC);
    assert_eq!(frame::VERSION, hal::VERSION);
    assert_eq!(frame::HEADER_LEN, hal::HEADER_LEN);
    assert_eq!(frame::MAX_FRAME_LEN, hal::MAX_FRAME_LEN);
    assert_eq!(frame::MAX_WIRE_LEN, hal::MAX_ENCODED_LEN + 2);
    assert_eq!(
        [
            frame::TYPE_HELLO,
            frame::TYPE_SCAN_RAW16,
            frame::TYPE_SCAN_RAW12,
            frame::TYPE_SCAN_CLASSIFIED,
            frame::TYPE_BUTTON
        ],
        [
            hal::TYPE_HELLO,
            hal::TYPE_SCAN_RAW16,
            hal::TYPE_SCAN_RAW12,
            hal::TYPE_SCAN_CLASSIFIED,
            hal::TYPE_BUTTON
        ]
    );
    assert_eq!(frame::HELLO_LEN, hal::HELLO_LEN);
}
