//! # tengen-referee
//!
//! The sans-IO heart of a tengen board, left of the journal in the pipeline:
//!
//! ```text
//! scan (classified or raw) -> stabiliser -> referee (with the clock) -> events
//!                          \-> sensor check (before play), sensor health -> sensor_fault
//! ```
//!
//! - [`Stabiliser`]: a change counts once it has held `detection.stable_ms`.
//! - [`SensorCheck`]: the check before play; a sensor stuck at any reading is found before
//!   a move is read from it.
//! - [`SensorHealth`]: noisy and stuck sensors, reported apart from the rule alerts.
//! - [`Referee`]: the physical board and the clock presses against the rules position,
//!   producing the wire contract's events. Event-sourced: its decisions are events, and applying an
//!   event (to the protocol's [`tengen_protocol::GameView`], the one fold every consumer
//!   uses) is the only way its game state changes, so rebuilding it from the journal after
//!   a power cut is replaying the same `apply`.
//! - [`Pipeline`]: the three together, the one path that `tengen sim`, `tengen run` and
//!   `tengen demo` all drive.
//!
//! Plain functions of inputs and time: every input carries its time in ms on the caller's
//! clock ([`tengen_hal::Millis`]; ms since the Unix epoch on a board), nothing reads a
//! clock or does I/O, so the simulator drives it on virtual time and every test is exact.

mod pipeline;
mod referee;
mod sensor_check;
mod sensor_health;
mod stabiliser;

pub use pipeline::{Pipeline, PipelineError};
pub use referee::{
    is_penalised, CommandRefused, Penalties, Referee, RefereeError, RefereeSettings,
};
pub use sensor_check::{SensorCheck, CHECK_MS, EARLY_SCANS};
pub use sensor_health::{SensorHealth, NOISY_CHANGES, NOISY_WINDOW_MS, REARM_MS, STUCK_UNKNOWN_MS};
pub use stabiliser::{Change, Stabiliser, Stone};
