//! The simulated board as a backend of `tengen run` (`hardware.backend = "sim"`), paced in
//! real time at `hardware.sim.speed`.

use tengen_hal::Millis;
use tengen_sim::Simulation;

use super::backend::{Backend, Polled};

/// The simulated board paced in real time at `speed`.
///
/// Its clock ([`Backend::clock`]) is game time: it starts at the wall clock of the first
/// reading, or at the journal's last event when that is later (a sped-up game runs ahead
/// of the wall clock, and a restarted one must not go back in time), and runs `speed`
/// times faster than the wall clock. Frames are stamped on it.
#[derive(Debug)]
pub(crate) struct SimBackend {
    sim: Simulation,
    speed: f64,
    /// The earliest game time to start at (the journal's last event).
    floor: Millis,
    /// (wall clock, game time) when the clock started.
    anchor: Option<(Millis, Millis)>,
    finished: bool,
}

impl SimBackend {
    /// Plays `sim`, `speed` times faster than human pace.
    pub(crate) fn new(sim: Simulation, speed: f64) -> SimBackend {
        SimBackend {
            sim,
            speed,
            floor: 0,
            anchor: None,
            finished: false,
        }
    }

    /// Starts the game clock no earlier than `time` (ms since the epoch).
    pub(crate) fn not_before(mut self, time: Millis) -> SimBackend {
        self.floor = time;
        self
    }

    fn anchor(&mut self, wall: Millis) -> (Millis, Millis) {
        let floor = self.floor;
        *self.anchor.get_or_insert((wall, wall.max(floor)))
    }
}

impl Backend for SimBackend {
    fn clock(&mut self, wall: Millis) -> Millis {
        let (wall0, base) = self.anchor(wall);
        base + (wall.saturating_sub(wall0) as f64 * self.speed) as Millis
    }

    fn poll(&mut self, now: Millis) -> Polled {
        let (_, base) = self.anchor(now);
        let due = now.saturating_sub(base);
        // Every scan of the simulator's own period up to the due time, so the stabiliser
        // sees the same scans at any speed.
        let mut scans = Vec::new();
        while !self.finished && self.sim.now() <= due {
            match self.sim.next_scan() {
                Some((mut frame, mut buttons)) => {
                    frame.time += base;
                    for b in &mut buttons {
                        b.time += base;
                    }
                    scans.push((frame, buttons));
                }
                None => self.finished = true,
            }
        }
        Polled {
            scans,
            faults: Vec::new(),
            finished: self.finished,
        }
    }

    fn describe(&self) -> String {
        format!("sim x{}", self.speed)
    }
}
