//! The firmware's main loop (`Firmware::poll`) on a board made in software: a virtual
//! microsecond clock that each conversion moves on by 2 µs (the RP2040 ADC's time), sensors
//! wired as `docs/hardware.md` says, bouncing buttons; what the loop writes is read with
//! the Pi's own decoder.

use tengen_firmware::frame::parse_status;
use tengen_firmware::{Board, Config, Firmware, Link, ScanBus, Status};
use tengen_hal::serial::protocol::split_frame;
use tengen_hal::serial::{Body, Decoder, Received};
use tengen_hal::{Button, ButtonAction, FrameData};

/// The board: lines, ADC and buttons on a virtual clock.
struct SoftBoard {
    now_us: u64,
    size: u8,
    address: u8,
    adc_address: u8,
    /// (time µs, Black's contact, White's contact) from that time on.
    contacts: Vec<(u64, [bool; 2])>,
    conversions: u64,
}

impl SoftBoard {
    fn new(size: u8) -> SoftBoard {
        SoftBoard {
            now_us: 0,
            size,
            address: 0,
            adc_address: 0,
            contacts: vec![(0, [false; 2])],
            conversions: 0,
        }
    }

    /// What point `index`'s sensor reads: distinct for every point.
    fn reading(index: usize) -> u16 {
        (index as u16 * 11 + 7) % 4096
    }
}

impl ScanBus for SoftBoard {
    fn select(&mut self, address: u8, adc_address: u8) {
        self.address = address;
        self.adc_address = adc_address;
    }

    fn settle(&mut self) {
        self.now_us += 2;
    }

    fn convert(&mut self, input: u8) -> u16 {
        self.now_us += 2;
        self.conversions += 1;
        // The wiring as docs/hardware.md gives it: ADC input i carries second-level
        // multiplexer i, whose input T is first-level multiplexer 16 i + T, whose input S
        // is point 16 (16 i + T) + S.
        let mux = 16 * usize::from(input) + usize::from(self.adc_address);
        let point = 16 * mux + usize::from(self.address);
        let points = usize::from(self.size) * usize::from(self.size);
        if point < points {
            SoftBoard::reading(point)
        } else {
            0
        }
    }
}

impl Board for SoftBoard {
    fn now_us(&mut self) -> u64 {
        self.now_us
    }

    fn buttons(&mut self) -> [bool; 2] {
        self.contacts
            .iter()
            .rev()
            .find(|c| c.0 <= self.now_us)
            .map_or([false; 2], |c| c.1)
    }
}

/// The transmit queue: keeps every frame, or refuses every `refuse_every`-th.
#[derive(Default)]
struct Queue {
    bytes: Vec<u8>,
    offered: u64,
    refuse_every: Option<u64>,
}

impl Link for Queue {
    fn send(&mut self, frame: &[u8]) -> bool {
        self.offered += 1;
        if self.refuse_every.is_some_and(|n| self.offered % n == 0) {
            return false;
        }
        self.bytes.extend_from_slice(frame);
        true
    }
}

/// Runs the loop until `until_us`, sleeping to the time each call asks for.
fn run(fw: &mut Firmware, board: &mut SoftBoard, queue: &mut Queue, until_us: u64) {
    while board.now_us < until_us {
        let next = fw.poll(board, queue);
        board.now_us = board.now_us.max(next);
    }
}

fn decode(bytes: &[u8]) -> (Vec<Received>, Decoder) {
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    decoder.feed(bytes, &mut out);
    (out, decoder)
}

/// The firmware's status in each hello of the stream.
fn statuses(bytes: &[u8]) -> Vec<Status> {
    bytes
        .split(|&b| b == 0)
        .filter(|f| !f.is_empty())
        .filter_map(|f| cobs::decode_vec(f).ok())
        .filter_map(|f| {
            let (head, payload) = split_frame(&f).ok()?;
            (head.kind == 0x01).then(|| parse_status(payload)).flatten()
        })
        .collect()
}

#[test]
fn it_boots_with_a_hello_then_scans_every_10_ms_with_every_point_in_its_place() {
    let mut fw = Firmware::new(Config::standard()).expect("the standard configuration");
    let mut board = SoftBoard::new(19);
    let mut queue = Queue::default();
    run(&mut fw, &mut board, &mut queue, 1_005_000);
    let (got, decoder) = decode(&queue.bytes);
    assert_eq!(decoder.stats().rejected(), 0);
    assert_eq!(decoder.stats().lost, 0);

    let first = &got[0].message;
    assert_eq!(first.seq, 0);
    let Body::Hello(h) = &first.body else {
        panic!("the first message is a hello: {first:?}")
    };
    assert!(h.boot);
    assert_eq!((h.size, h.adc_bits, h.scan_hz), (19, 12, 100));

    let want: Vec<u16> = (0..361).map(SoftBoard::reading).collect();
    let scans: Vec<u64> = got
        .iter()
        .filter_map(|r| match &r.message.body {
            Body::Scan(FrameData::Raw(readings)) => {
                assert_eq!(readings, &want, "every point's reading in its place");
                Some(r.message.time)
            }
            _ => None,
        })
        .collect();
    let grid: Vec<u64> = (0..=100).map(|k| k * 10).collect();
    assert_eq!(scans, grid, "one scan per 10 ms slot, stamped at its start");
    let hellos: Vec<(u64, bool)> = got
        .iter()
        .filter_map(|r| match &r.message.body {
            Body::Hello(h) => Some((r.message.time, h.boot)),
            _ => None,
        })
        .collect();
    assert_eq!(hellos.len(), 2, "at boot and a second later: {hellos:?}");
    assert_eq!(hellos[0], (0, true));
    assert!(!hellos[1].1 && (1000..1002).contains(&hellos[1].0));

    let status = fw.status();
    assert_eq!(status.overruns, 0);
    assert_eq!(status.dropped, 0);
    assert_eq!(status.scans, 101);
    // 256 selects (each with a settle) and 361 conversions at 2 µs each.
    assert_eq!(status.scan_us, 2 * (256 + 361));
    assert_eq!(board.conversions, 101 * 361);
    let last = statuses(&queue.bytes);
    assert_eq!(last.len(), 2);
    assert_eq!(
        last[1].scans, 101,
        "the second hello counts the scan of its own slot too"
    );
}

#[test]
fn a_bouncing_press_counts_once_at_its_first_edge_and_the_release_follows() {
    let mut fw = Firmware::new(Config::standard()).expect("config");
    let mut board = SoftBoard::new(19);
    // White's button: closes at 123.4 ms and bounces for 3 ms, opens at 300.2 ms and
    // bounces for 2 ms. Black's stays open.
    let mut contacts = vec![(0, [false, false])];
    for k in 0..10 {
        contacts.push((123_400 + k * 300, [false, k % 2 == 0]));
    }
    contacts.push((126_400, [false, true]));
    for k in 0..6 {
        contacts.push((300_200 + k * 300, [false, k % 2 == 1]));
    }
    contacts.push((302_200, [false, false]));
    board.contacts = contacts;
    let mut queue = Queue::default();
    run(&mut fw, &mut board, &mut queue, 500_000);
    let (got, _) = decode(&queue.bytes);
    let presses: Vec<(u64, Button, ButtonAction)> = got
        .iter()
        .filter_map(|r| match r.message.body {
            Body::Button { button, action } => Some((r.message.time, button, action)),
            _ => None,
        })
        .collect();
    assert_eq!(presses.len(), 2, "{presses:?}");
    assert_eq!(presses[0].1, Button::White);
    assert_eq!(presses[0].2, ButtonAction::Press);
    assert!(
        (123..=124).contains(&presses[0].0),
        "stamped at the first edge, within the 1 ms sampling: {presses:?}"
    );
    assert_eq!(presses[1].2, ButtonAction::Release);
    assert!((300..=301).contains(&presses[1].0), "{presses:?}");
}

#[test]
fn a_late_loop_counts_overruns_and_keeps_the_slot_grid() {
    let mut fw = Firmware::new(Config::standard()).expect("config");
    let mut board = SoftBoard::new(19);
    let mut queue = Queue::default();
    run(&mut fw, &mut board, &mut queue, 100_500);
    // Something held the core until 135.5 ms: the slots at 110 and 120 ms pass unscanned,
    // the one at 130 ms gets its scan 5.5 ms late.
    board.now_us = 135_500;
    run(&mut fw, &mut board, &mut queue, 1_100_000);
    let (got, _) = decode(&queue.bytes);
    let scans: Vec<u64> = got
        .iter()
        .filter(|r| matches!(r.message.body, Body::Scan(_)))
        .map(|r| r.message.time)
        .collect();
    let around: Vec<u64> = scans
        .iter()
        .copied()
        .filter(|t| (90..=160).contains(t))
        .collect();
    assert_eq!(around.len(), 6, "{around:?}");
    assert_eq!(around[..2], [90, 100]);
    assert_eq!(around[2], 135, "one scan as soon as the loop runs again");
    assert_eq!(around[3..], [140, 150, 160], "no burst, the grid kept");
    assert_eq!(fw.status().overruns, 2);
    assert_eq!(fw.status().max_late_us, 5_500);
    let last = statuses(&queue.bytes);
    assert_eq!(
        last.last().map(|s| s.overruns),
        Some(2),
        "the hello says so"
    );
}

#[test]
fn a_full_queue_drops_whole_frames_and_the_receiver_counts_the_gap() {
    let mut fw = Firmware::new(Config::standard()).expect("config");
    let mut board = SoftBoard::new(9);
    let mut queue = Queue {
        refuse_every: Some(7),
        ..Queue::default()
    };
    let config = Config {
        size: 9,
        ..Config::standard()
    };
    fw = Firmware::new(config).unwrap_or(fw);
    run(&mut fw, &mut board, &mut queue, 2_000_000);
    let (got, decoder) = decode(&queue.bytes);
    let dropped = fw.status().dropped;
    assert_eq!(u64::from(dropped), queue.offered / 7);
    assert!(dropped > 20);
    assert_eq!(decoder.stats().rejected(), 0, "what was sent is whole");
    assert_eq!(
        decoder.stats().lost,
        u64::from(dropped),
        "each drop is a sequence gap"
    );
    assert!(got.iter().all(|r| match &r.message.body {
        Body::Scan(FrameData::Raw(r)) => r.len() == 81,
        _ => true,
    }));
}

#[test]
fn bad_configurations_are_refused() {
    for (size, hz) in [(0u8, 100u16), (26, 100), (19, 0), (19, 1001)] {
        let config = Config {
            size,
            scan_hz: hz,
            ..Config::standard()
        };
        assert!(Firmware::new(config).is_err(), "size {size}, {hz} Hz");
    }
}
