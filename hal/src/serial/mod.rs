//! The serial link to a scanning microcontroller (the frame format is in
//! `hal/PROTOCOL.md`).
//!
//! - [`protocol`]: one frame: header, payloads, CRC; the encoder the microcontroller side
//!   (and the simulator) uses.
//! - [`decoder`]: the byte-stream decoder (sans-IO): delimiters, COBS, statistics,
//!   sequence gaps, 32-bit clock wraps.
//! - [`clock`]: mapping the microcontroller's clock onto the caller's.
//! - [`link`]: link health (back-off, silence, `Lost`/`Restored`) as a state machine.
//! - [`reader`]: [`SerialLink`], the I/O shell over `serialport` that implements
//!   [`crate::SensorMatrix`] and [`crate::ClockButtons`].

pub mod clock;
pub mod decoder;
pub mod link;
pub mod protocol;
pub mod reader;

pub use decoder::{Decoder, DecoderStats, Received};
pub use link::{LinkEvent, LinkTiming};
pub use protocol::{Body, Encoder, Hello, Message, RawFormat};
pub use reader::{LinkStats, SerialConfig, SerialError, SerialLink};
