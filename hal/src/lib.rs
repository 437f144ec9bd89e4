//! # tengen-hal
//!
//! The board's eyes and hands: traits for the sensor matrix, the clock buttons and the
//! player displays, the per-point classification of raw Hall readings, drivers written
//! against `embedded-hal` 1.0, and the serial link to a scanning microcontroller. Time
//! always comes in from outside (sans-IO): a driver stamps a frame with the time it is given.

pub mod calibration;
pub mod classify;
pub mod display;
pub mod driver;
#[cfg(feature = "rpi")]
pub mod rpi;
pub mod serial;
pub mod side;
pub mod traits;

pub use display::{PlayerDisplay, Rotation};
pub use side::Side;
pub use traits::*;
