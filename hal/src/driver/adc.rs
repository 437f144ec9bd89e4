//! The SPI protocol of the 8-channel ADCs: MCP3008 (10 bit) and MCP3208 (12 bit), both
//! read single-ended with one 3-byte full-duplex transfer per conversion.

use serde::{Deserialize, Serialize};

use crate::calibration::AdcBits;

/// Which ADC chip is on the bus (all ADCs of a board are the same kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AdcKind {
    /// Microchip MCP3008: 8 channels, 10 bit.
    Mcp3008,
    /// Microchip MCP3208: 8 channels, 12 bit.
    Mcp3208,
}

impl AdcKind {
    /// The number of input channels of the chip.
    pub const CHANNELS: u8 = 8;

    /// The resolution of its readings.
    pub fn bits(self) -> AdcBits {
        match self {
            AdcKind::Mcp3008 => AdcBits::Ten,
            AdcKind::Mcp3208 => AdcBits::Twelve,
        }
    }

    /// The three bytes to clock out to convert single-ended `channel` (0..=7).
    ///
    /// MCP3008: `0000_0001` (start), `1ccc_0000` (single-ended, channel), `0000_0000`.
    /// MCP3208: `0000_011c` (start, single-ended, channel bit 2), `cc00_0000`, `0000_0000`.
    pub fn command(self, channel: u8) -> [u8; 3] {
        let ch = channel & 0x07;
        match self {
            AdcKind::Mcp3008 => [0x01, 0x80 | (ch << 4), 0x00],
            AdcKind::Mcp3208 => [0x06 | (ch >> 2), (ch & 0x03) << 6, 0x00],
        }
    }

    /// The reading in the three bytes clocked in during [`AdcKind::command`]'s transfer.
    /// Bits the chip leaves undefined (before the null bit) are masked off.
    pub fn decode(self, response: [u8; 3]) -> u16 {
        match self {
            AdcKind::Mcp3008 => (u16::from(response[1] & 0x03) << 8) | u16::from(response[2]),
            AdcKind::Mcp3208 => (u16::from(response[1] & 0x0F) << 8) | u16::from(response[2]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_bytes_match_the_datasheets() {
        assert_eq!(AdcKind::Mcp3008.command(0), [0x01, 0x80, 0x00]);
        assert_eq!(AdcKind::Mcp3008.command(5), [0x01, 0xD0, 0x00]);
        assert_eq!(AdcKind::Mcp3008.command(7), [0x01, 0xF0, 0x00]);
        assert_eq!(AdcKind::Mcp3208.command(0), [0x06, 0x00, 0x00]);
        assert_eq!(AdcKind::Mcp3208.command(3), [0x06, 0xC0, 0x00]);
        assert_eq!(AdcKind::Mcp3208.command(6), [0x07, 0x80, 0x00]);
    }

    #[test]
    fn decode_masks_undefined_bits() {
        assert_eq!(AdcKind::Mcp3008.decode([0xFF, 0xFE, 0x34]), 0x234);
        assert_eq!(AdcKind::Mcp3008.decode([0x00, 0x03, 0xFF]), 1023);
        assert_eq!(AdcKind::Mcp3208.decode([0xFF, 0xFA, 0xBC]), 0xABC);
        assert_eq!(AdcKind::Mcp3208.decode([0x00, 0x0F, 0xFF]), 4095);
    }
}
