//! The serial link end to end over real pseudo-terminals, with the fake microcontroller
//! playing the board: full rate, garbage and corruption on the line, unplug and replug.
//! Each test runs for about a second of real time; deadlines are generous and only bound
//! a failing test, they never decide a passing one.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tengen_hal::serial::{LinkEvent, LinkTiming, SerialConfig, SerialLink};
use tengen_hal::{Button, ButtonAction, ButtonEvent, Frame, FrameData, Millis};
use tengen_mcu::{FakeMcu, FnSource, McuConfig, PtyMcu, ScanSource};

const DEADLINE: Duration = Duration::from_secs(10);

/// Scan `k` of a 19x19 board: point 0 carries `k`, the others a pattern of `k`.
fn readings(k: u64) -> Vec<u16> {
    (0..361u64)
        .map(|i| {
            if i == 0 {
                k as u16
            } else {
                ((k * 7 + i * 13) % 4096) as u16
            }
        })
        .collect()
}

/// A source whose scan at `now` is `readings(now / 10)`, with a press of Black's button
/// every 500 ms, for `scans` scans.
fn source(scans: u64) -> impl ScanSource + Send + 'static {
    FnSource::new(19, move |now: Millis| {
        let k = now / 10;
        let buttons = if k % 50 == 25 {
            vec![ButtonEvent {
                time: now - 3,
                button: Button::Black,
                action: ButtonAction::Press,
            }]
        } else {
            vec![]
        };
        (k < scans).then(|| (FrameData::Raw(readings(k)), buttons))
    })
}

fn scan_index(frame: &Frame) -> u64 {
    match &frame.data {
        FrameData::Raw(r) => {
            assert_eq!(r, &readings(r[0] as u64), "scan arrived intact");
            r[0] as u64
        }
        FrameData::Classified(_) => panic!("raw scans were sent"),
    }
}

fn config(path: PathBuf) -> SerialConfig {
    SerialConfig {
        path,
        baud: 1_000_000,
        timing: LinkTiming {
            backoff_min_ms: 20,
            backoff_max_ms: 200,
            silence_ms: 500,
        },
        ..SerialConfig::default()
    }
}

/// Polls `link` until `done` says so (or the deadline), collecting scans and link events.
struct Harness {
    link: SerialLink,
    start: Instant,
    scans: Vec<Frame>,
    buttons: Vec<ButtonEvent>,
    events: Vec<LinkEvent>,
}

impl Harness {
    fn new(config: SerialConfig) -> Self {
        Self {
            link: SerialLink::new(config),
            start: Instant::now(),
            scans: vec![],
            buttons: vec![],
            events: vec![],
        }
    }

    fn poll_until(&mut self, what: &str, done: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + DEADLINE;
        while !done(self) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {:?}",
                self.link
            );
            let now = self.start.elapsed().as_millis() as Millis;
            self.link.pump(now, Duration::from_millis(20));
            while let Some(frame) = self.link.next_frame() {
                self.scans.push(frame);
            }
            self.buttons.extend(self.link.take_buttons());
            self.events.extend(self.link.take_events());
        }
    }
}

#[test]
fn full_rate_raw_scans_arrive_intact_and_in_order() {
    const SCANS: u64 = 200; // 2 s at 100 Hz
    let mcu = PtyMcu::spawn(FakeMcu::new(source(SCANS), McuConfig::default())).unwrap();
    let mut h = Harness::new(config(mcu.path().to_path_buf()));
    h.poll_until("every scan", |h| h.scans.len() as u64 >= SCANS);
    let sent = mcu.stop().unwrap();

    let ks: Vec<u64> = h.scans.iter().map(scan_index).collect();
    assert_eq!(ks, (0..SCANS).collect::<Vec<_>>());
    let stats = h.link.stats();
    assert_eq!(stats.decoder.lost, 0);
    assert_eq!(stats.decoder.rejected(), 0);
    assert_eq!(stats.opens, 1);
    assert_eq!(sent.scans, SCANS);
    assert_eq!(sent.write_timeouts, 0);
    assert!(h.events.is_empty(), "{:?}", h.events);
    let hello = h.link.hello().copied().unwrap();
    assert_eq!((hello.size, hello.scan_hz, hello.adc_bits), (19, 100, 12));
    // Times are the microcontroller's, mapped onto ours: spaced by its 10 ms period,
    // except the few times the latency estimate improves (a frame read sooner after its
    // stamp than any before), and never after the moment of reading.
    let times: Vec<Millis> = h.scans.iter().map(|f| f.time).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    let exact = times.windows(2).filter(|w| w[1] - w[0] == 10).count();
    assert!(
        exact >= times.len() * 9 / 10,
        "{exact} of {} gaps are 10 ms: {times:?}",
        times.len() - 1
    );
    assert!(times[times.len() - 1] <= h.start.elapsed().as_millis() as Millis);
    // Black's button, pressed 3 ms before scans 25, 75, 125, 175.
    assert_eq!(h.buttons.len(), 4);
    for (b, k) in h.buttons.iter().zip([25usize, 75, 125, 175]) {
        assert_eq!((b.button, b.action), (Button::Black, ButtonAction::Press));
        let before = h.scans[k].time as i64 - b.time as i64;
        assert!(
            (0..=10).contains(&before),
            "press {before} ms before scan {k}"
        );
    }
}

#[test]
fn garbage_and_corrupted_frames_are_rejected_while_good_ones_arrive() {
    const TICKS: u64 = 100;
    let (mut master, slave) = serialport::TTYPort::pair().unwrap();
    // A late reader delays the writer instead of losing bytes.
    serialport::SerialPort::set_timeout(&mut master, Duration::from_secs(5)).unwrap();
    let path = PathBuf::from(serialport::SerialPort::name(&slave).unwrap());
    let writer = std::thread::spawn(move || {
        let mut mcu = FakeMcu::new(source(TICKS), McuConfig::default());
        let start = Instant::now();
        let mut bytes = Vec::new();
        for k in 0..TICKS {
            if let Some(wait) =
                (start + Duration::from_millis(10 * k)).checked_duration_since(Instant::now())
            {
                std::thread::sleep(wait);
            }
            bytes.clear();
            assert!(mcu.tick(10 * k, &mut bytes).unwrap());
            if k % 10 == 7 {
                // Damage the scan (the last frame of the tick) in its middle.
                let at = bytes.len() - 300;
                bytes[at] = if bytes[at] ^ 0x5A != 0 {
                    bytes[at] ^ 0x5A
                } else {
                    0xA5
                };
            }
            if k % 10 == 3 {
                // Line noise between frames: 40 bytes, no delimiter among them.
                bytes.extend((0..40u8).map(|i| i.wrapping_mul(37) | 1));
            }
            if k == 50 {
                // A long babble: more than any frame can be.
                bytes.extend(std::iter::repeat_n(0x55u8, 3000));
            }
            master.write_all(&bytes).unwrap();
        }
        drop(slave);
        master
    });
    let mut h = Harness::new(config(path));
    // Every intact scan: all but the 10 damaged ones.
    h.poll_until("the intact scans", |h| {
        h.scans.last().is_some_and(|f| scan_index(f) == TICKS - 1)
    });
    let _master = writer.join().unwrap();

    let ks: Vec<u64> = h.scans.iter().map(scan_index).collect();
    let intact: Vec<u64> = (0..TICKS).filter(|k| k % 10 != 7).collect();
    assert_eq!(ks, intact);
    let d = h.link.stats().decoder;
    assert_eq!(d.lost, 10, "{d:?}");
    assert_eq!(d.oversize, 1, "{d:?}");
    assert_eq!(d.rejected(), 10 + 10 + 1, "{d:?}");
    let reported: u32 = h
        .events
        .iter()
        .map(|e| match e {
            LinkEvent::FramesLost { count } => *count,
            other => panic!("unexpected {other:?}"),
        })
        .sum();
    assert_eq!(reported, 10);
}

/// A directory of our own for the symlink, removed at the end.
struct LinkDir(PathBuf);

impl LinkDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("tengen-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn plug(&self, target: &std::path::Path) -> PathBuf {
        let link = self.0.join("board-tty");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(target, &link).unwrap();
        link
    }
}

impl Drop for LinkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn unplug_and_replug_is_survived() {
    let dir = LinkDir::new("replug");
    let mcu = PtyMcu::spawn(FakeMcu::new(source(u64::MAX), McuConfig::default())).unwrap();
    let link_path = dir.plug(mcu.path());
    let mut h = Harness::new(config(link_path.clone()));
    h.poll_until("scans before the unplug", |h| h.scans.len() >= 20);
    assert!(h.events.is_empty(), "{:?}", h.events);

    // Unplug: the device goes away and its path with it.
    mcu.stop().unwrap();
    std::fs::remove_file(&link_path).unwrap();
    h.poll_until("link_lost", |h| !h.events.is_empty());
    assert!(
        matches!(h.events[0], LinkEvent::Lost { .. }),
        "{:?}",
        h.events
    );
    assert!(!h.link.is_up());
    // While it is away the reader keeps retrying, without repeating the report.
    let failures = h.link.stats().failures;
    h.poll_until("a few retries", |h| h.link.stats().failures >= failures + 2);
    assert_eq!(h.events.len(), 1, "{:?}", h.events);

    // Replug: a new device (a freshly reset microcontroller) at the same path.
    let before = h.scans.len();
    let mcu = PtyMcu::spawn(FakeMcu::new(source(u64::MAX), McuConfig::default())).unwrap();
    dir.plug(mcu.path());
    h.poll_until("scans after the replug", |h| h.scans.len() >= before + 20);
    drop(mcu);

    assert!(
        matches!(
            h.events.as_slice(),
            [LinkEvent::Lost { .. }, LinkEvent::Restored]
        ),
        "{:?}",
        h.events
    );
    assert!(h.link.is_up());
    assert_eq!(h.link.stats().opens, 2);
    // The new microcontroller starts from scan 0 again; its scans arrive in order.
    let after: Vec<u64> = h.scans[before..].iter().map(scan_index).collect();
    assert_eq!(after, (0..after.len() as u64).collect::<Vec<_>>());
    assert_eq!(h.link.stats().decoder.lost, 0);
}

#[test]
fn a_simulated_board_is_read_through_the_serial_link() {
    use tengen_hal::PointState;
    use tengen_mcu::BoardSource;
    use tengen_rules::Point;
    use tengen_sim::{SimOptions, Simulation};

    let options = SimOptions {
        lead_in_ms: 100,
        tail_ms: 200,
        ..SimOptions::seeded(3)
    };
    let sim =
        Simulation::from_script("size 9\nplace B C3 100ms\npress B 100ms\n", &options).unwrap();
    let mcu = PtyMcu::spawn(FakeMcu::new(BoardSource(sim), McuConfig::default())).unwrap();
    let mut h = Harness::new(SerialConfig {
        size: 9,
        ..config(mcu.path().to_path_buf())
    });
    let c3 = Point::parse_gtp("C3", 9).unwrap().index(9);
    let black_at_c3 =
        |f: &Frame| matches!(&f.data, FrameData::Classified(s) if s[c3] == PointState::Black);
    h.poll_until("the stone and the press", |h| {
        h.scans.iter().any(black_at_c3) && !h.buttons.is_empty()
    });
    drop(mcu);

    // The board was empty before the stone, and the press came after it was set down.
    let first = h.scans.iter().position(black_at_c3).unwrap();
    assert!(first > 0);
    assert!(h.scans[..first].iter().all(|f| matches!(&f.data,
        FrameData::Classified(s) if s.iter().all(|&p| p != PointState::Black && p != PointState::White))));
    assert_eq!(
        (h.buttons[0].button, h.buttons[0].action),
        (Button::Black, ButtonAction::Press)
    );
    assert!(h.buttons[0].time >= h.scans[first].time);
    assert_eq!(h.link.stats().decoder.rejected(), 0);
    assert_eq!(h.link.stats().decoder.lost, 0);
}
