//! The hardware layer's integration tests (buttons, calibration, the serial link, the SSD1306
//! driver on embedded-hal-mock), in one test binary (one link instead of seven).

mod buttons;
mod calibration;
mod classify;
mod driver_mock;
mod serial_decode;
mod serial_reader;
mod ssd1306;
