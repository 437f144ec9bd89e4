//! Link health as a pure state machine (sans-IO): when to (re)open the port, with
//! exponential back-off, and when to report the link lost or restored.

use crate::traits::Millis;
use serde::{Deserialize, Serialize};

/// What the link reports to the daemon (which turns `Lost`/`Restored`/`WrongSize` into
/// `sensor_fault` events with kind `link_lost`/`link_restored`/`wrong_size`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum LinkEvent {
    /// The device vanished, failed, fell silent, or could not be opened.
    Lost {
        /// One readable line saying why.
        reason: String,
    },
    /// Valid messages flow again after a `Lost`.
    Restored,
    /// Messages went missing (a sequence gap).
    FramesLost {
        /// How many.
        count: u32,
    },
    /// Scans with another number of points than the configured board arrive (the
    /// microcontroller is set up for another board size): they are dropped and counted,
    /// and this is reported once per run of them (the daemon sends one `sensor_fault` with
    /// kind `wrong_size`).
    WrongSize {
        /// Points in the scan.
        points: usize,
        /// Points on the configured board.
        expected: usize,
    },
}

/// Timing of the link monitor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkTiming {
    /// First retry delay after a failure (ms).
    pub backoff_min_ms: u64,
    /// Longest retry delay (ms); the delay doubles up to this.
    pub backoff_max_ms: u64,
    /// An open link with no valid message for this long counts as lost (ms).
    pub silence_ms: u64,
}

impl Default for LinkTiming {
    fn default() -> Self {
        Self {
            backoff_min_ms: 100,
            backoff_max_ms: 5000,
            silence_ms: 1000,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PortState {
    Closed { retry_at: Millis },
    Open { last_rx: Millis },
}

/// Decides when to open the port and what to report.
#[derive(Debug, Clone)]
pub struct LinkMonitor {
    timing: LinkTiming,
    port: PortState,
    backoff: u64,
    up: bool,
    lost_reported: bool,
    events: Vec<LinkEvent>,
}

impl LinkMonitor {
    /// A monitor whose port is closed and may be opened at once.
    pub fn new(timing: LinkTiming) -> Self {
        Self {
            timing,
            port: PortState::Closed { retry_at: 0 },
            backoff: timing.backoff_min_ms.max(1),
            up: false,
            lost_reported: false,
            events: Vec::new(),
        }
    }

    /// True when valid messages are flowing.
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// True when the port should be (re)opened now.
    pub fn should_open(&self, now: Millis) -> bool {
        matches!(self.port, PortState::Closed { retry_at } if now >= retry_at)
    }

    /// The port was opened at `now`.
    pub fn opened(&mut self, now: Millis) {
        self.port = PortState::Open { last_rx: now };
    }

    /// Opening failed, or the open port failed (read error, end of file): the port is
    /// closed and a retry scheduled.
    pub fn failed(&mut self, now: Millis, reason: impl Into<String>) {
        self.down(reason.into());
        self.port = PortState::Closed {
            retry_at: now.saturating_add(self.backoff),
        };
        self.backoff = (self.backoff.saturating_mul(2)).min(self.timing.backoff_max_ms.max(1));
    }

    /// A valid message arrived at `now`, after `lost_before` missing ones.
    pub fn received(&mut self, now: Millis, lost_before: u32) {
        if let PortState::Open { last_rx } = &mut self.port {
            *last_rx = now;
        }
        self.backoff = self.timing.backoff_min_ms.max(1);
        if !self.up {
            self.up = true;
            if self.lost_reported {
                self.lost_reported = false;
                self.events.push(LinkEvent::Restored);
            }
        } else if lost_before > 0 {
            self.events
                .push(LinkEvent::FramesLost { count: lost_before });
        }
    }

    /// Checks for silence; returns true when the port must be closed (it then counts as
    /// failed and a reopen is scheduled).
    pub fn tick(&mut self, now: Millis) -> bool {
        match self.port {
            PortState::Open { last_rx }
                if now.saturating_sub(last_rx) >= self.timing.silence_ms =>
            {
                let ms = now.saturating_sub(last_rx);
                self.failed(now, format!("no valid message for {ms} ms"));
                true
            }
            _ => false,
        }
    }

    /// The events since the last call, oldest first.
    pub fn take_events(&mut self) -> Vec<LinkEvent> {
        std::mem::take(&mut self.events)
    }

    fn down(&mut self, reason: String) {
        if self.up || !self.lost_reported {
            self.events.push(LinkEvent::Lost { reason });
            self.lost_reported = true;
        }
        self.up = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing() -> LinkTiming {
        LinkTiming {
            backoff_min_ms: 100,
            backoff_max_ms: 400,
            silence_ms: 1000,
        }
    }

    #[test]
    fn first_good_connection_reports_nothing() {
        let mut m = LinkMonitor::new(timing());
        assert!(m.should_open(0));
        m.opened(0);
        assert!(!m.should_open(0));
        m.received(10, 0);
        assert!(m.is_up());
        assert_eq!(m.take_events(), vec![]);
    }

    #[test]
    fn absent_device_is_reported_once_and_retried_with_backoff() {
        let mut m = LinkMonitor::new(timing());
        let mut now = 0;
        let mut attempts = vec![];
        while now < 2000 {
            if m.should_open(now) {
                attempts.push(now);
                m.failed(now, "no such file");
            }
            now += 10;
        }
        assert_eq!(attempts, vec![0, 100, 300, 700, 1100, 1500, 1900]);
        assert_eq!(
            m.take_events(),
            vec![LinkEvent::Lost {
                reason: "no such file".into()
            }]
        );
        m.opened(2000);
        m.received(2010, 0);
        assert_eq!(m.take_events(), vec![LinkEvent::Restored]);
    }

    #[test]
    fn unplug_then_replug_reports_lost_then_restored() {
        let mut m = LinkMonitor::new(timing());
        m.opened(0);
        m.received(5, 0);
        m.failed(50, "broken pipe");
        assert!(!m.should_open(60));
        assert!(m.should_open(150));
        m.failed(150, "no such file");
        assert!(m.should_open(350));
        m.opened(350);
        // Opening alone is not "restored": data must flow.
        assert_eq!(m.take_events().len(), 1);
        m.received(360, 0);
        assert_eq!(m.take_events(), vec![LinkEvent::Restored]);
        // The back-off starts small again.
        m.failed(400, "broken pipe");
        assert!(m.should_open(500));
    }

    #[test]
    fn silence_closes_the_port_and_gaps_are_reported() {
        let mut m = LinkMonitor::new(timing());
        m.opened(0);
        m.received(10, 0);
        m.received(20, 2);
        assert!(!m.tick(1009));
        assert!(m.tick(1020));
        assert!(!m.is_up());
        assert_eq!(
            m.take_events(),
            vec![
                LinkEvent::FramesLost { count: 2 },
                LinkEvent::Lost {
                    reason: "no valid message for 1000 ms".into()
                }
            ]
        );
        assert!(m.should_open(1120));
    }
}
