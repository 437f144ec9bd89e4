//! The reader through the hal traits over a real pseudo-terminal, with the test writing
//! the microcontroller's side by hand: an absent device, classified scans and buttons,
//! wrong-size scans, and a microcontroller that falls silent and comes back.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tengen_hal::serial::{
    Body, Encoder, Hello, LinkEvent, LinkTiming, RawFormat, SerialConfig, SerialError, SerialLink,
};
use tengen_hal::{Button, ButtonAction, ClockButtons, FrameData, Millis, PointState, SensorMatrix};

const DEADLINE: Duration = Duration::from_secs(10);

fn config(path: PathBuf) -> SerialConfig {
    SerialConfig {
        path,
        size: 9,
        read_timeout_ms: 20,
        // The test keeps its own handle on the slave side open.
        exclusive: false,
        timing: LinkTiming {
            backoff_min_ms: 20,
            backoff_max_ms: 100,
            silence_ms: 300,
        },
        ..SerialConfig::default()
    }
}

fn board(k: usize) -> Vec<PointState> {
    (0..81)
        .map(|i| match (i + k) % 5 {
            0 => PointState::Black,
            1 => PointState::White,
            2 => PointState::Unknown,
            _ => PointState::Empty,
        })
        .collect()
}

/// The caller's clock: a monotonic clock that has been running for a while.
fn ms(start: Instant) -> Millis {
    10_000 + start.elapsed().as_millis() as Millis
}

#[test]
fn an_absent_device_is_reported_once_and_scans_say_link_down() {
    let path = std::env::temp_dir().join(format!("tengen-no-such-tty-{}", std::process::id()));
    let mut link = SerialLink::new(config(path));
    let start = Instant::now();
    let mut events = vec![];
    while link.stats().failures < 3 {
        assert!(start.elapsed() < DEADLINE);
        let err = link.scan(ms(start)).unwrap_err();
        assert!(matches!(err, SerialError::LinkDown { .. }), "{err}");
        events.extend(link.take_events());
    }
    assert_eq!(events.len(), 1, "{events:?}");
    let LinkEvent::Lost { reason } = &events[0] else {
        panic!("{events:?}")
    };
    assert!(reason.contains("cannot open"), "{reason}");
    assert!(!link.is_up());
}

#[test]
fn scans_and_buttons_come_through_the_traits_and_silence_is_a_lost_link() {
    let (mut master, slave) = serialport::TTYPort::pair().unwrap();
    serialport::SerialPort::set_timeout(&mut master, Duration::from_secs(5)).unwrap();
    let path = PathBuf::from(serialport::SerialPort::name(&slave).unwrap());
    let mut link = SerialLink::new(config(path));
    let start = Instant::now();
    // Open the port before anything is written: the first poll opens it.
    link.pump(ms(start), Duration::ZERO);

    let mut mcu = Encoder::new(RawFormat::U16);
    let mut bytes = vec![];
    let hello = Hello {
        size: 9,
        adc_bits: 10,
        firmware: [2, 0, 1],
        scan_hz: 50,
        boot: true,
    };
    // The hello is stamped after the scans (at 1100): read first, it sets the latency
    // estimate, and the scans, stamped earlier, map to earlier times with their spacing.
    // (Written in one burst, scans stamped later than the first message read would all
    // map to the moment they were read: nothing is ever placed in the future.)
    mcu.encode(1_100, Body::Hello(hello), &mut bytes).unwrap();
    for k in 0..5u64 {
        if k == 2 {
            let press = Body::Button {
                button: Button::White,
                action: ButtonAction::Press,
            };
            mcu.encode(1_000 + 20 * k - 5, press, &mut bytes).unwrap();
        }
        let scan = Body::Scan(FrameData::Classified(board(k as usize)));
        mcu.encode(1_000 + 20 * k, scan, &mut bytes).unwrap();
    }
    // A 19x19 scan on a link configured for 9x9: dropped and counted.
    let wrong = Body::Scan(FrameData::Classified(vec![PointState::Empty; 361]));
    mcu.encode(1_090, wrong, &mut bytes).unwrap();
    master.write_all(&bytes).unwrap();

    let mut scans = vec![];
    let mut buttons = vec![];
    while scans.len() < 5 {
        assert!(start.elapsed() < DEADLINE, "{link:?}");
        if let Ok(frame) = link.scan(ms(start)) {
            scans.push(frame);
        }
        buttons.extend(ClockButtons::poll(&mut link, ms(start)).unwrap());
    }
    for (k, frame) in scans.iter().enumerate() {
        assert_eq!(frame.data, FrameData::Classified(board(k)));
    }
    // Stamped 20 ms apart by the microcontroller, and so on our clock.
    assert!(
        scans.windows(2).all(|w| w[1].time - w[0].time == 20),
        "{scans:?}"
    );
    assert_eq!(buttons.len(), 1);
    assert_eq!(
        (buttons[0].button, buttons[0].action),
        (Button::White, ButtonAction::Press)
    );
    assert_eq!(scans[2].time - buttons[0].time, 5);
    assert_eq!(link.hello(), Some(&hello));
    assert_eq!(link.size(), 9);
    // Wait for the wrong-size scan (written last) to be read.
    while link.stats().wrong_size == 0 {
        assert!(start.elapsed() < DEADLINE, "{link:?}");
        link.pump(ms(start), Duration::from_millis(20));
    }
    assert!(link.is_up());
    assert_eq!(
        link.take_events(),
        vec![LinkEvent::WrongSize {
            points: 361,
            expected: 81
        }]
    );

    // Silence: the link is lost, the port closed and reopened.
    while link.is_up() {
        assert!(start.elapsed() < DEADLINE, "{link:?}");
        link.pump(ms(start), Duration::from_millis(20));
    }
    let events = link.take_events();
    assert!(
        matches!(&events[..], [LinkEvent::Lost { reason }] if reason.contains("no valid message")),
        "{events:?}"
    );
    // The microcontroller speaks again (the sequence continues: nothing was lost).
    bytes.clear();
    let scan = Body::Scan(FrameData::Classified(board(7)));
    mcu.encode(5_000, scan, &mut bytes).unwrap();
    let mut restored = None;
    while restored.is_none() {
        assert!(start.elapsed() < DEADLINE, "{link:?}");
        // Keep sending until the reopened port picks a frame up.
        master.write_all(&bytes).unwrap();
        link.pump(ms(start), Duration::from_millis(20));
        restored = link.next_frame();
    }
    assert_eq!(restored.unwrap().data, FrameData::Classified(board(7)));
    assert_eq!(link.take_events(), vec![LinkEvent::Restored]);
    assert!(link.stats().opens >= 2);
    drop(slave);
}

#[test]
fn a_device_path_that_disappears_is_a_lost_link_even_while_the_port_still_reads() {
    let dir = std::env::temp_dir().join(format!("tengen-path-gone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link_path = dir.join("tty");
    let (mut master, slave) = serialport::TTYPort::pair().unwrap();
    serialport::SerialPort::set_timeout(&mut master, Duration::from_secs(5)).unwrap();
    let target = PathBuf::from(serialport::SerialPort::name(&slave).unwrap());
    std::os::unix::fs::symlink(&target, &link_path).unwrap();
    let mut link = SerialLink::new(config(link_path.clone()));
    let start = Instant::now();
    let mut mcu = Encoder::new(RawFormat::Packed12);
    let mut send = |master: &mut serialport::TTYPort, k: u64| {
        let mut bytes = vec![];
        let scan = Body::Scan(FrameData::Raw(vec![(k % 4096) as u16; 81]));
        mcu.encode(20 * k, scan, &mut bytes).unwrap();
        master.write_all(&bytes).unwrap();
    };
    let mut k = 0;
    let mut step = |link: &mut SerialLink, master: &mut serialport::TTYPort| {
        assert!(start.elapsed() < DEADLINE, "{link:?}");
        send(master, k);
        k += 1;
        link.pump(ms(start), Duration::from_millis(20));
        while link.next_frame().is_some() {}
    };
    while !link.is_up() {
        step(&mut link, &mut master);
    }
    std::fs::remove_file(&link_path).unwrap();
    while link.is_up() {
        step(&mut link, &mut master);
    }
    let events = link.take_events();
    assert!(
        matches!(&events[..], [LinkEvent::Lost { reason }] if reason.contains("is gone")),
        "{events:?}"
    );
    std::os::unix::fs::symlink(&target, &link_path).unwrap();
    while !link.is_up() {
        step(&mut link, &mut master);
    }
    assert_eq!(link.take_events(), vec![LinkEvent::Restored]);
    drop(slave);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_of_wrong_size_scans_is_reported_once_and_again_after_right_ones() {
    // Before, they were dropped and counted with no report: a board set up for another size
    // than its microcontroller scans was deaf without a word.
    let (mut master, slave) = serialport::TTYPort::pair().unwrap();
    serialport::SerialPort::set_timeout(&mut master, Duration::from_secs(5)).unwrap();
    let path = PathBuf::from(serialport::SerialPort::name(&slave).unwrap());
    let mut link = SerialLink::new(config(path));
    let start = Instant::now();
    link.pump(ms(start), Duration::ZERO);
    let mut mcu = Encoder::new(RawFormat::U16);
    let mut t = 1_000;
    let mut send = |master: &mut serialport::TTYPort, points: usize, count: usize| {
        let mut bytes = vec![];
        for _ in 0..count {
            let scan = Body::Scan(FrameData::Classified(vec![PointState::Empty; points]));
            mcu.encode(t, scan, &mut bytes).unwrap();
            t += 10;
        }
        master.write_all(&bytes).unwrap();
    };
    let mut events = vec![];
    let mut good = 0;
    let mut pump_until = |link: &mut SerialLink, wrong: u64, good_wanted: usize| {
        while link.stats().wrong_size < wrong || good < good_wanted {
            assert!(start.elapsed() < DEADLINE, "{link:?}");
            link.pump(ms(start), Duration::from_millis(20));
            while link.next_frame().is_some() {
                good += 1;
            }
            events.extend(link.take_events());
        }
    };
    // A 13x13 microcontroller on a 9x9 board: 100 scans, one report.
    send(&mut master, 169, 100);
    pump_until(&mut link, 100, 0);
    // Right scans end the run; the next wrong one is a new run, reported again.
    send(&mut master, 81, 3);
    pump_until(&mut link, 100, 3);
    send(&mut master, 361, 50);
    pump_until(&mut link, 150, 3);
    assert_eq!(
        events,
        vec![
            LinkEvent::WrongSize {
                points: 169,
                expected: 81
            },
            LinkEvent::WrongSize {
                points: 361,
                expected: 81
            },
        ]
    );
    assert_eq!(link.stats().wrong_size, 150);
    drop(slave);
}
