//! Where scans come from: the hardware backends behind one small trait, polled by the scan
//! loop once per tick with the service's time.

use std::time::Duration;

use tengen_hal::{ButtonEvent, Frame, Millis};

use tengen_protocol::{Envelope, Event};
use tengen_table::Sound;

/// What one poll of a backend gave.
#[derive(Debug, Default)]
pub struct Polled {
    /// The full scans since the previous poll (usually one, none when the link is
    /// down), oldest first, each with the button events that came before it.
    pub scans: Vec<(Frame, Vec<ButtonEvent>)>,
    /// Hardware trouble to report (`sensor_fault` events: link lost or restored...).
    pub faults: Vec<Event>,
    /// True when the backend has nothing more to play (a simulated game's actions are
    /// over; its board is still scanned, so clocks run on and flags fall).
    pub finished: bool,
}

/// A source of scans. `now` is the service's clock in ms since the Unix epoch; frames and
/// button events come back stamped on that clock.
pub trait Backend: Send {
    /// The service's clock for a wall-clock reading (ms since the Unix epoch). Hardware
    /// runs on the wall clock; the simulator runs its own game time (sped up by `speed`,
    /// and never before the journal's last event), so that every event the service
    /// records, scans, commands and `status` alike, carries one time base.
    fn clock(&mut self, wall: Millis) -> Millis {
        wall
    }
    /// One poll: a scan, faults, or nothing this time. `now` is [`Backend::clock`]'s.
    fn poll(&mut self, now: Millis) -> Polled;
    /// Waits up to `budget` for the next tick. A backend whose input arrives on its own
    /// (a serial line) returns as soon as there is some, so a scan is handled when it
    /// comes rather than on the next tick; the default just sleeps.
    fn idle(&mut self, budget: Duration) {
        std::thread::sleep(budget);
    }
    /// A call is due (`[voice] style = "beep"` drives the buzzer on the indicator pin; the
    /// default does nothing: the voice plays on its own thread).
    fn sound(&mut self, _sound: &Sound, _now: Millis) {}
    /// The events the service has just journaled (each with its time on the service's
    /// clock), while the loop runs: commands' and scans' alike. Hardware has no use for
    /// them (the default does nothing); the simulated players of a rehearsal board follow
    /// the referee's game from them (a game set up, its clocks started or paused, the game
    /// over). What the board recorded before its loop started (the game it set up by
    /// itself at power-on, or took up from its journal) is not told here.
    fn heard(&mut self, _journaled: &[Envelope]) {}
    /// A word for logs and the startup line (`sim`, `serial /dev/ttyACM0`...).
    fn describe(&self) -> String;
}
