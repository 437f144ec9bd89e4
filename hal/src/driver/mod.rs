//! The direct driver: the sensor matrix read through analog multiplexers into SPI ADCs,
//! the clock buttons on GPIO inputs, the indicator on a GPIO output and the player displays
//! on I2C, all written against `embedded-hal` 1.0 traits only (the `rpi` feature
//! instantiates them with rppal).

pub mod adc;
pub mod buttons;
pub mod indicator;
pub mod matrix;
pub mod pins;
pub mod ssd1306;
pub mod wiring;

pub use self::ssd1306::{
    DisplayStats, SharedI2c, Ssd1306Config, Ssd1306Display, Ssd1306Error, BLACK_ADDRESS,
    DEFAULT_CONTRAST, WHITE_ADDRESS,
};
pub use adc::AdcKind;
pub use buttons::{edge_instant, Debouncer, EdgeQueue, GpioButtons, InterruptButtons, RawEdge};
pub use indicator::LedIndicator;
pub use matrix::{DriverError, MuxAdcMatrix};
pub use pins::PinConfig;
pub use wiring::{MuxWiring, ScanPlan, ScanRead, Wiring, WiringError};
