//! Clock buttons: the debouncer over timestamped edges, the polled GPIO buttons on mock
//! pins, the interrupt-fed buttons, and the indicator on a mock output pin.

use std::time::{Duration, Instant};

use embedded_hal_mock::eh1::digital::{Mock as PinMock, State, Transaction as PinTx};
use proptest::prelude::*;
use tengen_hal::driver::{
    edge_instant, Debouncer, EdgeQueue, GpioButtons, InterruptButtons, LedIndicator, RawEdge,
};
use tengen_hal::{Button, ButtonAction, ButtonEvent, ClockButtons, Indicator, Millis};

use ButtonAction::{Press, Release};

/// Feeds (time, pressed) edges, settling at each, and collects (time, action).
fn run(d: &mut Debouncer, edges: &[(Millis, bool)], end: Millis) -> Vec<(Millis, ButtonAction)> {
    let mut out = Vec::new();
    for &(t, p) in edges {
        if let Some((at, a)) = d.settle(t) {
            out.push((at, a));
        }
        if let Some(a) = d.sample(t, p) {
            out.push((t, a));
        }
    }
    if let Some(e) = d.settle(end) {
        out.push(e);
    }
    out
}

#[test]
fn a_bouncing_press_counts_once_at_its_first_edge() {
    let mut d = Debouncer::new(30);
    let edges = [
        (1000, true),
        (1001, false),
        (1003, true),
        (1004, false),
        (1006, true),
        // held ... then a bouncing release
        (1800, false),
        (1801, true),
        (1802, false),
    ];
    assert_eq!(
        run(&mut d, &edges, 2000),
        vec![(1000, Press), (1800, Release)]
    );
    assert!(!d.is_pressed());
}

#[test]
fn a_glitch_is_a_press_and_a_release_not_a_stuck_button() {
    // The contact closes and opens again within the window and then stays open: the
    // press counted, and the release is reported once the window is over.
    let mut d = Debouncer::new(30);
    assert_eq!(d.sample(500, true), Some(Press));
    assert_eq!(d.sample(505, false), None);
    assert_eq!(d.settle(520), None);
    assert!(d.is_pressed());
    assert_eq!(d.settle(530), Some((505, Release)));
    assert_eq!(d.settle(600), None);
    assert!(!d.is_pressed());
}

#[test]
fn quick_deliberate_presses_all_count() {
    let mut d = Debouncer::new(30);
    let edges = [(0, true), (80, false), (160, true), (240, false)];
    assert_eq!(
        run(&mut d, &edges, 1000),
        vec![(0, Press), (80, Release), (160, Press), (240, Release)]
    );
}

proptest! {
    /// Any number of presses, each with bursts of bounce shorter than the window at both
    /// ends, gives exactly one press and one release each, stamped with the first edge of
    /// the burst.
    #[test]
    fn bounces_never_double_count(
        presses in prop::collection::vec(
            (1u64..200, prop::collection::vec(1u64..5, 0..6), 40u64..400,
             prop::collection::vec(1u64..5, 0..6), 40u64..400),
            1..8,
        )
    ) {
        let window = 30;
        let mut d = Debouncer::new(window);
        let mut edges = Vec::new();
        let mut expected = Vec::new();
        let mut t = 0;
        for (gap, down_bounce, held, up_bounce, rest) in presses {
            t += gap + window;
            expected.push((t, Press));
            // bounce: alternate levels, ending pressed; total bounce length < window.
            edges.push((t, true));
            let mut level = true;
            let mut bt = t;
            for step in down_bounce {
                bt += step;
                level = !level;
                edges.push((bt, level));
            }
            if !level {
                bt += 1;
                edges.push((bt, true));
            }
            t = t + window + held;
            expected.push((t, Release));
            edges.push((t, false));
            let mut level = false;
            let mut bt = t;
            for step in up_bounce {
                bt += step;
                level = !level;
                edges.push((bt, level));
            }
            if level {
                bt += 1;
                edges.push((bt, false));
            }
            t += window + rest;
        }
        prop_assert_eq!(run(&mut d, &edges, t + 1000), expected);
    }
}

#[test]
fn gpio_buttons_sample_active_low_pins() {
    use State::{High, Low};
    // Black: released, pressed, bounce open, pressed, released (after the window).
    let black = PinMock::new(&[
        PinTx::get(High),
        PinTx::get(Low),
        PinTx::get(High),
        PinTx::get(Low),
        PinTx::get(High),
    ]);
    // White: released throughout, then pressed at the last poll.
    let white = PinMock::new(&[
        PinTx::get(High),
        PinTx::get(High),
        PinTx::get(High),
        PinTx::get(High),
        PinTx::get(Low),
    ]);
    let mut b = GpioButtons::new(black, white, true, 30);
    let mut all = Vec::new();
    for now in [0, 10, 12, 14, 100] {
        all.extend(b.poll(now).unwrap());
    }
    let ev = |time, button, action| ButtonEvent {
        time,
        button,
        action,
    };
    assert_eq!(
        all,
        vec![
            ev(10, Button::Black, Press),
            ev(100, Button::Black, Release),
            ev(100, Button::White, Press),
        ]
    );
    let (mut black, mut white) = b.release();
    black.done();
    white.done();
}

#[test]
fn interrupt_edges_are_stamped_on_the_callers_clock() {
    let q = EdgeQueue::new();
    let mut b = InterruptButtons::new(q.clone(), 30);
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    // White presses at +100 ms with bounce; Black presses at +150; pushed out of order as
    // two interrupt threads might.
    q.push(RawEdge {
        button: Button::Black,
        pressed: true,
        at: at(150),
    });
    q.push(RawEdge {
        button: Button::White,
        pressed: true,
        at: at(100),
    });
    q.push(RawEdge {
        button: Button::White,
        pressed: false,
        at: at(102),
    });
    q.push(RawEdge {
        button: Button::White,
        pressed: true,
        at: at(104),
    });
    // The caller's clock reads 10_200 at t0 + 200 ms.
    let events = b.poll_at(10_200, at(200));
    assert_eq!(
        events,
        vec![
            ButtonEvent {
                time: 10_100,
                button: Button::White,
                action: Press
            },
            ButtonEvent {
                time: 10_150,
                button: Button::Black,
                action: Press
            },
        ]
    );
    assert!(b.poll_at(10_300, at(300)).is_empty());
    q.push(RawEdge {
        button: Button::White,
        pressed: false,
        at: at(350),
    });
    assert_eq!(
        b.poll_at(10_400, at(400)),
        vec![ButtonEvent {
            time: 10_350,
            button: Button::White,
            action: Release
        }]
    );
}

#[test]
fn indicator_drives_its_pin_with_either_polarity() {
    let mut led = LedIndicator::new(
        PinMock::new(&[PinTx::set(State::High), PinTx::set(State::Low)]),
        false,
    );
    led.set(true).unwrap();
    led.set(false).unwrap();
    led.into_inner().done();

    let mut led = LedIndicator::new(
        PinMock::new(&[PinTx::set(State::Low), PinTx::set(State::High)]),
        true,
    );
    led.set(true).unwrap();
    led.set(false).unwrap();
    led.into_inner().done();
}

#[test]
fn kernel_timestamps_place_edges_before_the_handler_ran() {
    let now = Instant::now() + Duration::from_secs(10);
    let clock = Duration::from_secs(5_000);
    // The edge happened 3 ms before the handler read the clock.
    assert_eq!(
        edge_instant(now, clock, clock - Duration::from_millis(3)),
        now - Duration::from_millis(3)
    );
    // A timestamp from the future or from long ago: clocks disagree, use the handler's.
    assert_eq!(
        edge_instant(now, clock, clock + Duration::from_millis(1)),
        now
    );
    assert_eq!(
        edge_instant(now, clock, clock - Duration::from_secs(2)),
        now
    );
}
