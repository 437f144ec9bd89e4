//! The serial stream decoder against the protocol document, arbitrary bytes, and valid
//! streams with random corruption, garbage and chunking.

use proptest::prelude::*;
use tengen_hal::serial::protocol::{encode_message, frame_bytes, DELIMITER};
use tengen_hal::serial::{Body, Decoder, Hello, Message, RawFormat, Received};
use tengen_hal::{Button, ButtonAction, FrameData, PointState};

#[test]
fn protocol_example_is_what_the_document_says() {
    // The bytes below were computed independently (Python's zlib.crc32 and a COBS written
    // from the paper) and are printed in hal/PROTOCOL.md, section 7.
    let msg = Message {
        seq: 5,
        time: 1000,
        body: Body::Button {
            button: Button::Black,
            action: ButtonAction::Press,
        },
    };
    let decoded = [
        0x54, 0x47, 0x01, 0x20, 0x05, 0x00, 0xe8, 0x03, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x8c,
        0x4e, 0x26, 0x1f,
    ];
    let wire = [
        0x00, 0x06, 0x54, 0x47, 0x01, 0x20, 0x05, 0x03, 0xe8, 0x03, 0x01, 0x02, 0x02, 0x01, 0x01,
        0x05, 0x8c, 0x4e, 0x26, 0x1f, 0x00,
    ];
    assert_eq!(frame_bytes(&msg, RawFormat::U16).unwrap(), decoded);
    let mut out = Vec::new();
    encode_message(&msg, RawFormat::U16, &mut out).unwrap();
    assert_eq!(out, wire);
    let mut received = Vec::new();
    Decoder::new().feed(&wire, &mut received);
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].message, msg);
}

#[test]
fn raw_19x19_frame_is_about_one_kilobyte_on_the_wire() {
    let msg = Message {
        seq: 0,
        time: 0,
        body: Body::Scan(FrameData::Raw((0..361).map(|i| 1000 + i as u16).collect())),
    };
    let mut u16_wire = Vec::new();
    encode_message(&msg, RawFormat::U16, &mut u16_wire).unwrap();
    let mut packed_wire = Vec::new();
    encode_message(&msg, RawFormat::Packed12, &mut packed_wire).unwrap();
    // PROTOCOL.md section 4: ~744 and ~564 bytes.
    assert!((739..=748).contains(&u16_wire.len()), "{}", u16_wire.len());
    assert!(
        (559..=568).contains(&packed_wire.len()),
        "{}",
        packed_wire.len()
    );
}

fn arb_state() -> impl Strategy<Value = PointState> {
    prop_oneof![
        Just(PointState::Empty),
        Just(PointState::Black),
        Just(PointState::White),
        Just(PointState::Unknown),
    ]
}

fn arb_body() -> impl Strategy<Value = Body> {
    prop_oneof![
        (1u8..=19).prop_flat_map(|s| {
            let n = s as usize * s as usize;
            proptest::collection::vec(0u16..4096, n).prop_map(|v| Body::Scan(FrameData::Raw(v)))
        }),
        (1u8..=19).prop_flat_map(|s| {
            let n = s as usize * s as usize;
            proptest::collection::vec(arb_state(), n)
                .prop_map(|v| Body::Scan(FrameData::Classified(v)))
        }),
        (any::<bool>(), any::<bool>()).prop_map(|(w, r)| Body::Button {
            button: if w { Button::White } else { Button::Black },
            action: if r {
                ButtonAction::Release
            } else {
                ButtonAction::Press
            },
        }),
        (1u8..=25, any::<[u8; 3]>(), any::<u16>()).prop_map(|(size, firmware, scan_hz)| {
            Body::Hello(Hello {
                size,
                adc_bits: 12,
                firmware,
                scan_hz,
                boot: false,
            })
        }),
    ]
}

/// What to do with one frame of the stream.
#[derive(Debug, Clone)]
enum Fate {
    Intact,
    /// XOR these (position, non-zero mask) pairs into the encoded bytes.
    Corrupt(Vec<(usize, u8)>),
    /// Cut the frame short after this fraction (per mille) of its bytes.
    Truncate(u16),
}

fn arb_fate() -> impl Strategy<Value = Fate> {
    prop_oneof![
        6 => Just(Fate::Intact),
        3 => proptest::collection::vec((any::<usize>(), 1u8..=255), 1..4).prop_map(Fate::Corrupt),
        1 => (0u16..1000).prop_map(Fate::Truncate),
    ]
}

fn feed_chunked(dec: &mut Decoder, bytes: &[u8], cuts: &[usize]) -> Vec<Received> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut i = 0;
    while !rest.is_empty() {
        let n = (cuts.get(i).copied().unwrap_or(64) % 700 + 1).min(rest.len());
        dec.feed(&rest[..n], &mut out);
        rest = &rest[n..];
        i += 1;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic_and_are_counted(
        bytes in proptest::collection::vec(any::<u8>(), 0..4000),
        cuts in proptest::collection::vec(any::<usize>(), 0..50),
    ) {
        let mut dec = Decoder::new();
        let out = feed_chunked(&mut dec, &bytes, &cuts);
        let stats = *dec.stats();
        prop_assert_eq!(stats.bytes, bytes.len() as u64);
        let runs = bytes.iter().filter(|&&b| b == DELIMITER).count() as u64;
        prop_assert!(stats.messages + stats.rejected() + stats.unknown_type <= runs);
        prop_assert_eq!(stats.messages, out.len() as u64);
    }

    #[test]
    fn corrupted_frames_are_rejected_and_intact_ones_all_arrive(
        frames in proptest::collection::vec((arb_body(), arb_fate()), 1..24),
        garbage in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 24),
        first_seq in any::<u16>(),
        raw12 in any::<bool>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..200),
    ) {
        let raw = if raw12 { RawFormat::Packed12 } else { RawFormat::U16 };
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        let mut damaged = 0u64;
        let mut intact_index = Vec::new();
        for (i, (body, fate)) in frames.into_iter().enumerate() {
            let msg = Message {
                seq: first_seq.wrapping_add(i as u16),
                time: 1_000 + 10 * i as u64,
                body,
            };
            let mut wire = Vec::new();
            encode_message(&msg, raw, &mut wire).unwrap();
            // The frame's bytes between its two delimiters.
            let inner = 1..wire.len() - 1;
            match fate {
                Fate::Intact => {
                    expected.push(msg);
                    intact_index.push(i);
                }
                Fate::Corrupt(flips) => {
                    let before = wire.clone();
                    for (pos, mask) in flips {
                        let at = inner.start + pos % inner.len();
                        wire[at] ^= mask;
                    }
                    if wire == before {
                        // Two flips of one byte with the same mask cancel out: the frame
                        // is intact, and must arrive.
                        expected.push(msg);
                        intact_index.push(i);
                    } else {
                        damaged += 1;
                    }
                }
                Fate::Truncate(per_mille) => {
                    let keep = (inner.len() * per_mille as usize / 1000).max(1);
                    wire.truncate(1 + keep);
                    wire.push(DELIMITER);
                    damaged += 1;
                }
            }
            stream.extend_from_slice(&wire);
            stream.extend_from_slice(&garbage[i]);
        }
        let mut dec = Decoder::new();
        let out = feed_chunked(&mut dec, &stream, &cuts);
        let got: Vec<Message> = out.iter().map(|r| r.message.clone()).collect();
        prop_assert_eq!(&got, &expected);
        let stats = *dec.stats();
        prop_assert!(stats.rejected() >= damaged, "{:?} damaged {}", stats, damaged);
        // Lost messages: the damaged ones between the first and the last intact one.
        let lost = match (intact_index.first(), intact_index.last()) {
            (Some(a), Some(b)) => (b - a + 1 - intact_index.len()) as u64,
            _ => 0,
        };
        prop_assert_eq!(stats.lost, lost);
    }
}
