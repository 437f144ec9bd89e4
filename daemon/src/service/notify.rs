//! systemd readiness and watchdog (`Type=notify`, `WatchdogSec=`) through `sd-notify`.
//! Outside systemd (no `NOTIFY_SOCKET`) every call does nothing.

use std::time::{Duration, Instant};

use sd_notify::NotifyState;

/// Tells systemd how the service is doing and keeps its watchdog fed.
#[derive(Debug)]
pub struct Notifier {
    /// Half the watchdog interval, when systemd set one (`WATCHDOG_USEC`).
    every: Option<Duration>,
    last: Option<Instant>,
}

impl Notifier {
    /// Reads the watchdog interval from the environment systemd gave the service.
    pub fn from_env() -> Notifier {
        let every = sd_notify::watchdog_enabled()
            .filter(|d| !d.is_zero())
            .map(|d| d / 2);
        Notifier { every, last: None }
    }

    /// How often [`Notifier::alive`] sends `WATCHDOG=1` (half systemd's interval).
    pub fn watchdog_every(&self) -> Option<Duration> {
        self.every
    }

    /// `READY=1` with a status line.
    pub fn ready(&self, status: &str) {
        let _ = sd_notify::notify(&[NotifyState::Ready, NotifyState::Status(status)]);
    }

    /// A status line (`systemctl status` shows it).
    pub fn status(&self, status: &str) {
        let _ = sd_notify::notify(&[NotifyState::Status(status)]);
    }

    /// Called from the scan loop on every turn: sends `WATCHDOG=1` when half the interval
    /// has passed, so a stuck loop stops feeding the watchdog and systemd restarts it.
    pub fn alive(&mut self, now: Instant) {
        let Some(every) = self.every else { return };
        if self
            .last
            .is_none_or(|last| now.duration_since(last) >= every)
        {
            let _ = sd_notify::notify(&[NotifyState::Watchdog]);
            self.last = Some(now);
        }
    }

    /// `STOPPING=1`.
    pub fn stopping(&self) {
        let _ = sd_notify::notify(&[NotifyState::Stopping]);
    }
}
