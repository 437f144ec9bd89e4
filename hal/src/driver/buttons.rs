//! The clock buttons: a pure debouncer over timestamped samples or edges, and two
//! [`ClockButtons`] built on it: [`GpioButtons`] samples two input pins at each poll,
//! [`InterruptButtons`] takes the edges an interrupt handler queued (rppal's
//! `set_async_interrupt` under the `rpi` feature).
//!
//! Debouncing is leading-edge: the first edge that changes the button's state counts at
//! once, with its own timestamp (the moment that matters for the clock), and every edge in
//! the next `window` ms is ignored as contact bounce. If, when the window has passed, the
//! contact rests in the other state, that change is reported then (stamped with the edge
//! that brought it), so a press is never lost and never counted twice.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use embedded_hal::digital::{Error as _, InputPin};
use thiserror::Error;

use crate::traits::{Button, ButtonAction, ButtonEvent, ClockButtons, Millis};

/// The default debounce window (ms): longer than the bounce of a tactile or arcade switch
/// (1-10 ms), far shorter than two deliberate presses.
pub const DEFAULT_DEBOUNCE_MS: Millis = 30;

/// The debounced state of one button, fed with timestamped samples or edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Debouncer {
    window: Millis,
    stable: bool,
    raw: bool,
    raw_since: Millis,
    locked_until: Millis,
}

impl Debouncer {
    /// A released button; changes within `window` ms of a reported change are bounces.
    pub fn new(window: Millis) -> Debouncer {
        Debouncer {
            window,
            stable: false,
            raw: false,
            raw_since: 0,
            locked_until: 0,
        }
    }

    /// The debounced state: true while pressed.
    pub fn is_pressed(&self) -> bool {
        self.stable
    }

    /// Feeds the contact's level at `time` (a sample, or the level after an edge); returns
    /// the change it causes. Samples must come in time order.
    pub fn sample(&mut self, time: Millis, pressed: bool) -> Option<ButtonAction> {
        if pressed != self.raw {
            self.raw = pressed;
            self.raw_since = time;
        }
        self.settle(time).map(|(_, action)| action)
    }

    /// Reports a change the contact made during the bounce window once the window is over
    /// (call it at every poll): the time of the edge and the action.
    pub fn settle(&mut self, now: Millis) -> Option<(Millis, ButtonAction)> {
        if now < self.locked_until || self.raw == self.stable {
            return None;
        }
        let at = self.raw_since;
        self.stable = self.raw;
        self.locked_until = at.saturating_add(self.window);
        Some((
            at,
            if self.stable {
                ButtonAction::Press
            } else {
                ButtonAction::Release
            },
        ))
    }
}

/// A pin failed while reading a button.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{button:?} clock button pin: {kind}: {detail}")]
pub struct ButtonPinError {
    /// Which button.
    pub button: Button,
    /// The embedded-hal error kind.
    pub kind: embedded_hal::digital::ErrorKind,
    /// The driver's own description.
    pub detail: String,
}

/// Two buttons on input pins, sampled at every [`ClockButtons::poll`]. With pull-ups and
/// the switch to ground, a pressed button reads low (`active_low`).
#[derive(Debug)]
pub struct GpioButtons<P> {
    black: P,
    white: P,
    active_low: bool,
    debounce: [Debouncer; 2],
}

impl<P: InputPin> GpioButtons<P> {
    /// The two buttons, debounced over `window` ms.
    pub fn new(black: P, white: P, active_low: bool, window: Millis) -> GpioButtons<P> {
        GpioButtons {
            black,
            white,
            active_low,
            debounce: [Debouncer::new(window), Debouncer::new(window)],
        }
    }

    /// Gives back the Black and White pins.
    pub fn release(self) -> (P, P) {
        (self.black, self.white)
    }
}

impl<P: InputPin> ClockButtons for GpioButtons<P> {
    type Error = ButtonPinError;

    fn poll(&mut self, now: Millis) -> Result<Vec<ButtonEvent>, ButtonPinError> {
        let mut events = Vec::new();
        for (i, button) in [Button::Black, Button::White].into_iter().enumerate() {
            let pin = if i == 0 {
                &mut self.black
            } else {
                &mut self.white
            };
            let low = pin.is_low().map_err(|e| ButtonPinError {
                button,
                kind: e.kind(),
                detail: format!("{e:?}"),
            })?;
            if let Some(action) = self.debounce[i].sample(now, low == self.active_low) {
                events.push(ButtonEvent {
                    time: now,
                    button,
                    action,
                });
            }
        }
        Ok(events)
    }
}

/// An edge as an interrupt handler saw it: the button, its level after the edge, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEdge {
    /// Which button.
    pub button: Button,
    /// True when the contact is closed (pressed) after the edge.
    pub pressed: bool,
    /// When the handler saw it.
    pub at: Instant,
}

/// The longest plausible delay between an edge and its handler; an older kernel timestamp
/// means the clocks disagree, and the handler's own instant is used instead.
pub const MAX_EDGE_AGE: Duration = Duration::from_secs(1);

/// The instant an edge happened, from the kernel's event timestamp `event` and the same
/// clock read now (`clock_now`, e.g. `CLOCK_MONOTONIC`), with `now` the `Instant` read at
/// the same moment. Removes the handler's wake-up latency from the edge's time.
pub fn edge_instant(now: Instant, clock_now: Duration, event: Duration) -> Instant {
    match clock_now.checked_sub(event) {
        Some(age) if age <= MAX_EDGE_AGE => now.checked_sub(age).unwrap_or(now),
        _ => now,
    }
}

/// The queue interrupt handlers push edges into (cheap to clone, shared across threads).
#[derive(Debug, Clone, Default)]
pub struct EdgeQueue(Arc<Mutex<Vec<RawEdge>>>);

impl EdgeQueue {
    /// An empty queue.
    pub fn new() -> EdgeQueue {
        EdgeQueue::default()
    }

    /// Adds an edge (called from the interrupt thread).
    pub fn push(&self, edge: RawEdge) {
        // A panicking holder cannot leave the Vec inconsistent: keep using it.
        let mut q = self.0.lock().unwrap_or_else(|p| p.into_inner());
        q.push(edge);
    }

    /// Takes every queued edge, oldest first.
    pub fn drain(&self) -> Vec<RawEdge> {
        let mut q = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut edges = std::mem::take(&mut *q);
        edges.sort_by_key(|e| e.at);
        edges
    }
}

/// The clock buttons fed by interrupt edges. Edge instants are turned into the caller's
/// clock at each poll: an edge seen `d` before the poll is stamped `now - d`.
#[derive(Debug)]
pub struct InterruptButtons {
    queue: EdgeQueue,
    debounce: [Debouncer; 2],
}

impl InterruptButtons {
    /// Buttons reading `queue`, debounced over `window` ms.
    pub fn new(queue: EdgeQueue, window: Millis) -> InterruptButtons {
        InterruptButtons {
            queue,
            debounce: [Debouncer::new(window), Debouncer::new(window)],
        }
    }

    /// The queue to hand to the interrupt handlers.
    pub fn queue(&self) -> EdgeQueue {
        self.queue.clone()
    }

    /// Every debounced event since the last poll, given the caller's time `now` and the
    /// monotonic instant `at` that corresponds to it.
    pub fn poll_at(&mut self, now: Millis, at: Instant) -> Vec<ButtonEvent> {
        let mut events = Vec::new();
        for edge in self.queue.drain() {
            let ago = at.saturating_duration_since(edge.at).as_millis();
            let time = now.saturating_sub(Millis::try_from(ago).unwrap_or(Millis::MAX));
            let i = usize::from(edge.button == Button::White);
            if let Some(action) = self.debounce[i].sample(time, edge.pressed) {
                events.push(ButtonEvent {
                    time,
                    button: edge.button,
                    action,
                });
            }
        }
        for (i, button) in [Button::Black, Button::White].into_iter().enumerate() {
            if let Some((time, action)) = self.debounce[i].settle(now) {
                events.push(ButtonEvent {
                    time,
                    button,
                    action,
                });
            }
        }
        events.sort_by_key(|e| e.time);
        events
    }
}

impl ClockButtons for InterruptButtons {
    type Error = std::convert::Infallible;

    fn poll(&mut self, now: Millis) -> Result<Vec<ButtonEvent>, Self::Error> {
        Ok(self.poll_at(now, Instant::now()))
    }
}
