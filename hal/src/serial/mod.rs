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
//!
//! The daemon's scan loop can use the traits, or drive the link itself:
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use tengen_hal::serial::{LinkEvent, SerialConfig, SerialLink};
//!
//! let config = SerialConfig {
//!     path: "/dev/ttyACM0".into(),
//!     baud: 1_000_000,
//!     ..SerialConfig::default()
//! };
//! let mut link = SerialLink::new(config);
//! let start = Instant::now();
//! loop {
//!     let now = start.elapsed().as_millis() as u64; // the caller's monotonic ms
//!     link.pump(now, Duration::from_millis(10));
//!     while let Some(frame) = link.next_frame() {
//!         // classify (raw) and stabilise; frame.time is on the caller's clock
//! #       let _ = frame;
//!     }
//!     for press in link.take_buttons() {
//!         // the clock
//! #       let _ = press;
//!     }
//!     for event in link.take_events() {
//!         match event {
//!             LinkEvent::Lost { reason } => { /* sensor_fault, kind "link_lost" */ }
//!             LinkEvent::Restored => { /* sensor_fault, kind "link_restored" */ }
//!             LinkEvent::FramesLost { count } => { /* log it */ }
//!             LinkEvent::WrongSize { .. } => { /* sensor_fault, kind "wrong_size" */ }
//!         }
//!     }
//! }
//! ```

pub mod clock;
pub mod decoder;
pub mod link;
pub mod protocol;
pub mod reader;

pub use decoder::{Decoder, DecoderStats, Received};
pub use link::{LinkEvent, LinkTiming};
pub use protocol::{Body, Encoder, Hello, Message, RawFormat};
pub use reader::{LinkStats, SerialConfig, SerialError, SerialLink};
