//! # tengen-mcu
//!
//! The scanning microcontroller, simulated: it scans a [`tengen_sim`] board (or any source
//! of frames) and writes the serial protocol (`hal/PROTOCOL.md`) to a pseudo-terminal in
//! real time, with the faults of a serial line on command. The simulator is the physical
//! board on virtual time; this crate is what puts it on a wire.
//!
//! - [`FakeMcu`]: the sans-IO microcontroller ([`FakeMcu::tick`]: one scan period's
//!   bytes) and its real-time loop ([`FakeMcu::run`]), fed by a [`ScanSource`]
//!   ([`BoardSource`] for anything implementing the hal traits, [`FnSource`] for a
//!   closure).
//! - [`PtyMcu`]: a [`FakeMcu`] on its own thread writing to a fresh pseudo-terminal, for
//!   tests of the serial link.
//! - [`live::LiveBoard`]: a simulated game in real time on a pseudo-terminal, with the
//!   faults of [`faults`] (unplug, silence, garbage, corrupted frames, and the simulator's
//!   stuck and flickering sensors) and a JSON-lines log of when each move touched down and
//!   was first read; the engine of the `tengen-mcu` binary.

pub mod error;
pub mod fake_mcu;
pub mod faults;
pub mod live;
pub mod move_tracker;
pub mod pty_mcu;
pub mod source;

pub use error::McuError;
pub use fake_mcu::{FakeMcu, McuConfig, McuStats};
pub use faults::{Fault, FaultCommand, FaultError, When};
pub use live::{wall_us, LiveBoard, LiveOptions, LiveReport};
pub use move_tracker::{MoveStamp, MoveTracker};
pub use pty_mcu::PtyMcu;
pub use source::{BoardSource, FnSource, ScanSource};
