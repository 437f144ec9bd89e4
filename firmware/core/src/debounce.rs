//! Clock-button debouncing, leading-edge, the same rule as the Pi's own
//! (`hal::driver::Debouncer`): the first sample that changes the button's state counts at
//! once, stamped with its own time (the moment that matters for the clock); every change
//! in the next `window` ms is contact bounce. If, once the window has passed, the contact
//! rests in the other state, that change is reported then, stamped with the sample that
//! brought it: a press is never lost and never counted twice.

use crate::frame::Action;

/// The debounce window the firmware uses (ms), the Pi's `debounce_ms` default: longer
/// than a switch's bounce, far shorter than two deliberate presses.
pub const DEBOUNCE_MS: u32 = 30;

/// One button's debounced state, fed with timestamped samples (ms, wrapping u32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Debouncer {
    window: u32,
    stable: bool,
    raw: bool,
    raw_since: u32,
    /// While `Some(t)`, changes before `t` are bounce.
    locked_until: Option<u32>,
}

impl Debouncer {
    /// A released button.
    pub const fn new(window_ms: u32) -> Self {
        Debouncer {
            window: window_ms,
            stable: false,
            raw: false,
            raw_since: 0,
            locked_until: None,
        }
    }

    /// True while the button is (debounced) pressed.
    pub const fn is_pressed(&self) -> bool {
        self.stable
    }

    /// Takes the contact's level at `now`; returns the change it causes, with the time of
    /// the sample that made it.
    pub fn sample(&mut self, now: u32, pressed: bool) -> Option<(u32, Action)> {
        if pressed != self.raw {
            self.raw = pressed;
            self.raw_since = now;
        }
        if let Some(until) = self.locked_until {
            // Wrapping comparison: `now` is before `until` when the difference is
            // "negative".
            if (now.wrapping_sub(until) as i32) < 0 {
                return None;
            }
            self.locked_until = None;
        }
        if self.raw == self.stable {
            return None;
        }
        self.stable = self.raw;
        let at = self.raw_since;
        self.locked_until = Some(at.wrapping_add(self.window));
        let action = if self.stable {
            Action::Press
        } else {
            Action::Release
        };
        Some((at, action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bouncy_press_counts_once_at_its_first_edge() {
        let mut d = Debouncer::new(30);
        assert_eq!(d.sample(0, false), None);
        assert_eq!(d.sample(100, true), Some((100, Action::Press)));
        assert_eq!(d.sample(101, false), None);
        assert_eq!(d.sample(102, true), None);
        assert_eq!(d.sample(129, true), None);
        assert!(d.is_pressed());
        assert_eq!(d.sample(200, false), Some((200, Action::Release)));
    }

    #[test]
    fn a_release_inside_the_window_is_reported_when_it_ends() {
        let mut d = Debouncer::new(30);
        assert_eq!(d.sample(10, true), Some((10, Action::Press)));
        assert_eq!(d.sample(20, false), None);
        assert_eq!(d.sample(39, false), None);
        assert_eq!(d.sample(40, false), Some((20, Action::Release)));
    }

    #[test]
    fn the_window_works_across_the_clock_wrap() {
        let mut d = Debouncer::new(30);
        let t = u32::MAX - 5;
        assert_eq!(d.sample(t, true), Some((t, Action::Press)));
        assert_eq!(d.sample(t.wrapping_add(10), false), None);
        assert_eq!(
            d.sample(t.wrapping_add(30), false),
            Some((t.wrapping_add(10), Action::Release))
        );
    }
}
