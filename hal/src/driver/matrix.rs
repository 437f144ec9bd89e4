//! The sensor matrix read directly: CD74HC4067 multiplexers on four shared address lines
//! S0..S3, each multiplexer's output on one input of an MCP3008/MCP3208 ADC.
//!
//! A scan walks the multiplexer addresses 0..=15: it sets S0..S3 (S0 = bit 0), waits the
//! settle time, then converts every ADC input that has a multiplexer on it. So the
//! address lines switch 16 times per scan, whatever the number of multiplexers.

use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{Error as _, OutputPin};
use embedded_hal::spi::{Error as _, SpiDevice};
use thiserror::Error;

use super::adc::AdcKind;
use super::wiring::{ScanPlan, Wiring, WiringError, MUX_CHANNELS};
use crate::traits::{Frame, FrameData, Millis, SensorMatrix};

/// A bus or pin failure during a scan.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DriverError {
    /// An SPI transfer to an ADC failed.
    #[error("ADC {adc} (SPI): {kind}: {detail}")]
    Spi {
        /// The ADC (SPI device) index.
        adc: usize,
        /// The embedded-hal error kind.
        kind: embedded_hal::spi::ErrorKind,
        /// The driver's own description.
        detail: String,
    },
    /// Setting a multiplexer address line failed.
    #[error("mux address line S{line}: {kind}: {detail}")]
    Pin {
        /// The line (0..=3).
        line: u8,
        /// The embedded-hal error kind.
        kind: embedded_hal::digital::ErrorKind,
        /// The driver's own description.
        detail: String,
    },
}

/// The direct sensor matrix, generic over the SPI devices (one per ADC chip select), the
/// four address-line pins and a delay.
#[derive(Debug)]
pub struct MuxAdcMatrix<SPI, PIN, D> {
    adcs: Vec<SPI>,
    address: [PIN; 4],
    delay: D,
    plan: ScanPlan,
}

impl<SPI, PIN, D> MuxAdcMatrix<SPI, PIN, D>
where
    SPI: SpiDevice<u8>,
    PIN: OutputPin,
    D: DelayNs,
{
    /// A driver for `wiring`, with `adcs[i]` the SPI device of ADC `i` and `address` the
    /// pins driving S0, S1, S2, S3. Fails when the wiring is invalid or names an ADC that
    /// was not given.
    pub fn new(
        wiring: &Wiring,
        adcs: Vec<SPI>,
        address: [PIN; 4],
        delay: D,
    ) -> Result<Self, WiringError> {
        let plan = wiring.plan()?;
        if plan.adcs > adcs.len() {
            return Err(WiringError::AdcCount {
                needed: plan.adcs,
                given: adcs.len(),
            });
        }
        Ok(MuxAdcMatrix {
            adcs,
            address,
            delay,
            plan,
        })
    }

    /// The validated scan plan.
    pub fn plan(&self) -> &ScanPlan {
        &self.plan
    }

    /// The ADC chip the board uses.
    pub fn adc_kind(&self) -> AdcKind {
        self.plan.adc
    }

    /// Gives back the SPI devices, the address pins and the delay.
    pub fn release(self) -> (Vec<SPI>, [PIN; 4], D) {
        (self.adcs, self.address, self.delay)
    }

    /// Drives S0..S3 to select multiplexer input `channel` (0..=15).
    pub fn select(&mut self, channel: u8) -> Result<(), DriverError> {
        for (line, pin) in self.address.iter_mut().enumerate() {
            let high = channel & (1 << line) != 0;
            let r = if high { pin.set_high() } else { pin.set_low() };
            r.map_err(|e| DriverError::Pin {
                line: line as u8,
                kind: e.kind(),
                detail: format!("{e:?}"),
            })?;
        }
        Ok(())
    }

    /// One conversion of `channel` on ADC `adc` (one SPI transaction).
    pub fn convert(&mut self, adc: usize, channel: u8) -> Result<u16, DriverError> {
        let kind = self.plan.adc;
        let spi = self.adcs.get_mut(adc).ok_or(DriverError::Spi {
            adc,
            kind: embedded_hal::spi::ErrorKind::Other,
            detail: "no such ADC".into(),
        })?;
        let mut response = [0u8; 3];
        spi.transfer(&mut response, &kind.command(channel))
            .map_err(|e| DriverError::Spi {
                adc,
                kind: e.kind(),
                detail: format!("{e:?}"),
            })?;
        Ok(kind.decode(response))
    }

    /// Scans every point into `readings` (row-major, row 0 at the top), reusing its
    /// allocation.
    pub fn scan_into(&mut self, readings: &mut Vec<u16>) -> Result<(), DriverError> {
        let n = usize::from(self.plan.size) * usize::from(self.plan.size);
        readings.clear();
        readings.resize(n, 0);
        for address in 0..MUX_CHANNELS {
            if self.plan.steps[address].is_empty() {
                continue;
            }
            self.select(address as u8)?;
            if self.plan.settle_ns > 0 {
                self.delay.delay_ns(self.plan.settle_ns);
            }
            for k in 0..self.plan.steps[address].len() {
                let read = self.plan.steps[address][k];
                readings[read.index] = self.convert(read.adc, read.adc_channel)?;
            }
        }
        Ok(())
    }
}

impl<SPI, PIN, D> SensorMatrix for MuxAdcMatrix<SPI, PIN, D>
where
    SPI: SpiDevice<u8>,
    PIN: OutputPin,
    D: DelayNs,
{
    type Error = DriverError;

    fn size(&self) -> u8 {
        self.plan.size
    }

    fn scan(&mut self, now: Millis) -> Result<Frame, DriverError> {
        let mut readings = Vec::new();
        self.scan_into(&mut readings)?;
        Ok(Frame {
            time: now,
            data: FrameData::Raw(readings),
        })
    }
}
