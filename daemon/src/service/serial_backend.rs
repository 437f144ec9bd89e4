//! A scanning microcontroller on a serial line as a backend of `tengen run`
//! (`hardware.backend = "serial"`): the hal's reconnecting reader.

use std::time::Duration;

use tengen_hal::serial::{LinkEvent, SerialConfig as LinkConfig, SerialLink};
use tengen_hal::{ButtonEvent, Millis};
use tengen_protocol::event::FaultKind;
use tengen_protocol::Event;

use super::backend::{Backend, Polled};
use crate::config::Config;

/// A scanning microcontroller on a serial line (hal's reconnecting reader).
#[derive(Debug)]
pub(crate) struct SerialBackend {
    link: SerialLink,
    buttons: Vec<ButtonEvent>,
}

impl SerialBackend {
    /// The reader for `config.hardware.serial` on a board of `config.board.size`.
    pub(crate) fn new(config: &Config) -> SerialBackend {
        let link = SerialLink::new(LinkConfig {
            path: config.hardware.serial.path.clone(),
            baud: config.hardware.serial.baud,
            size: config.board.size,
            ..LinkConfig::default()
        });
        SerialBackend {
            link,
            buttons: Vec::new(),
        }
    }
}

impl Backend for SerialBackend {
    fn poll(&mut self, now: Millis) -> Polled {
        self.link.pump(now, Duration::ZERO);
        self.buttons.extend(self.link.take_buttons());
        let mut scans = Vec::new();
        while let Some(frame) = self.link.next_frame() {
            // Buttons pressed up to this scan go with it; later ones wait for the next.
            let (before, after): (Vec<_>, Vec<_>) =
                self.buttons.iter().partition(|b| b.time <= frame.time);
            self.buttons = after;
            scans.push((frame, before));
        }
        let faults = self
            .link
            .take_events()
            .into_iter()
            .filter_map(|e| match e {
                LinkEvent::Lost { reason } => {
                    tracing::warn!("serial link lost: {reason}");
                    Some(FaultKind::LinkLost)
                }
                LinkEvent::Restored => Some(FaultKind::LinkRestored),
                // Logged by the link, at most once a minute.
                LinkEvent::WrongSize { .. } => Some(FaultKind::WrongSize),
                other => {
                    tracing::info!("serial link: {other:?}");
                    None
                }
            })
            .map(|kind| Event::SensorFault {
                points: Vec::new(),
                kind,
            })
            .collect();
        Polled {
            scans,
            faults,
            finished: false,
        }
    }

    fn idle(&mut self, budget: Duration) {
        // Wake on the first bytes from the microcontroller; they are decoded and stamped
        // with the moment they arrived, and taken by the next poll.
        self.link
            .pump_with_clock(budget, &mut super::scan_loop::wall_ms);
    }

    fn describe(&self) -> String {
        format!("serial {}", self.link.config().path.display())
    }
}
