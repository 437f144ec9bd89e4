//! The portable core of tengen's scanning firmware: everything the microcontroller decides,
//! with no hardware type in it, so the host runs and tests exactly what the board runs.
//!
//! - [`mux_scan`]: the scan schedule over two levels of 16-channel multiplexers (address
//!   lines, settle, conversions, which reading is which point);
//! - [`debounce`]: the clock buttons, debounced leading-edge;
//! - [`frame`]: the frames of `hal/PROTOCOL.md` (header, payloads, CRC-32, COBS, the
//!   sequence number and timestamp, the hello with the firmware's status);
//! - [`tx_queue`]: the transmit queue that takes frames whole or not at all;
//! - [`scheduler`]: [`Firmware::poll`], the main loop as one call (scan slots, button
//!   samples, hellos, the rate and overrun accounting).
//!
//! The RP2040 image (`firmware/rp2040/`, built for `thumbv6m-none-eabi`) implements
//! [`Board`] and [`Link`] on the chip's GPIO, ADC, timer and UART and calls
//! [`Firmware::poll`] from its main loop.

#![no_std]

pub mod cobs;
pub mod crc32;
pub mod debounce;
pub mod frame;
pub mod mux_scan;
pub mod scheduler;
pub mod tx_queue;

pub use frame::{Action, Button, FrameEncoder, Hello, Message, Status};
pub use mux_scan::{MuxPlan, ScanBus};
pub use scheduler::{Board, Config, ConfigError, Firmware, Link, ScanFormat};
pub use tx_queue::TxQueue;

/// The firmware's version, announced in every hello.
pub const FIRMWARE_VERSION: [u8; 3] = [0, 1, 0];
