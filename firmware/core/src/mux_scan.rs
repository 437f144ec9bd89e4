//! The scan schedule: which address lines to drive, when to wait, and which ADC input to
//! convert into which point.
//!
//! The board is the direct-wired board's sensor side (`hal/README.md`): each sensor on an
//! input of a 16-channel multiplexer (CD74HC4067), every first-level multiplexer on the
//! same four address lines (`address`, S0..S3). Where the Raspberry Pi's direct driver
//! puts their outputs on SPI ADCs, the microcontroller puts them on two more
//! multiplexers (the second level, on four more address lines, `adc_address`), whose
//! outputs go to the microcontroller's own ADC inputs 0 and 1.
//!
//! The standard wiring takes the points in board order (row 0 at the top, left to right),
//! 16 per first-level multiplexer: multiplexer `k` sees points `16k .. 16k + 15` on its
//! inputs 0..15 and feeds input `k % 16` of second-level multiplexer `k / 16`, which feeds
//! ADC input `k / 16`. A 19x19 board has 23 first-level multiplexers (the last uses 9
//! inputs): 16 on ADC input 0, 7 on ADC input 1.

/// Inputs of one multiplexer.
pub const MUX_INPUTS: usize = 16;
/// The most ADC inputs the schedule uses (the RP2040 has four on pins).
pub const MAX_ADC_INPUTS: usize = 4;

/// What a scan needs from the hardware. Times are the caller's: the portable core never
/// waits by itself.
pub trait ScanBus {
    /// Drives the first-level address lines to `address` and the second-level ones to
    /// `adc_address` (both 0..=15).
    fn select(&mut self, address: u8, adc_address: u8);
    /// Waits until the selected sensor's voltage has reached the ADC input.
    fn settle(&mut self);
    /// One conversion of ADC input `input`.
    fn convert(&mut self, input: u8) -> u16;
    /// Called after each first-level address is done (16 times a scan): a place to sample
    /// the buttons without waiting for the scan to end.
    fn between_rows(&mut self) {}
}

/// The standard wiring of a board of `size` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MuxPlan {
    size: u8,
    points: usize,
    muxes: usize,
}

impl MuxPlan {
    /// The plan for a board of `size` lines; `None` beyond what four ADC inputs of 16
    /// multiplexers each can carry (or a size of 0).
    pub const fn standard(size: u8) -> Option<MuxPlan> {
        let points = size as usize * size as usize;
        let muxes = points.div_ceil(MUX_INPUTS);
        if size == 0 || muxes > MAX_ADC_INPUTS * MUX_INPUTS {
            return None;
        }
        Some(MuxPlan {
            size,
            points,
            muxes,
        })
    }

    /// The board size.
    pub const fn size(&self) -> u8 {
        self.size
    }

    /// Points on the board.
    pub const fn points(&self) -> usize {
        self.points
    }

    /// First-level multiplexers.
    pub const fn muxes(&self) -> usize {
        self.muxes
    }

    /// ADC inputs used (second-level multiplexers).
    pub const fn adc_inputs(&self) -> usize {
        self.muxes.div_ceil(MUX_INPUTS)
    }

    /// The point (row-major index) that ADC input `input` sees with the lines at
    /// `address` and `adc_address`, if any.
    pub const fn point_at(&self, address: u8, adc_address: u8, input: u8) -> Option<usize> {
        let mux = input as usize * MUX_INPUTS + adc_address as usize;
        let point = mux * MUX_INPUTS + address as usize;
        if mux < self.muxes && point < self.points && (address as usize) < MUX_INPUTS {
            Some(point)
        } else {
            None
        }
    }

    /// Where point `index` is wired: first-level address, second-level address, ADC
    /// input.
    pub const fn wiring_of(&self, index: usize) -> Option<(u8, u8, u8)> {
        if index >= self.points {
            return None;
        }
        let mux = index / MUX_INPUTS;
        Some((
            (index % MUX_INPUTS) as u8,
            (mux % MUX_INPUTS) as u8,
            (mux / MUX_INPUTS) as u8,
        ))
    }

    /// Scans every point into `readings` (at least [`MuxPlan::points`] long): for each
    /// first-level address, each second-level address that reaches a point, one select,
    /// one settle and the conversions of the ADC inputs that see a point. Returns the
    /// conversions made.
    pub fn scan<B: ScanBus>(&self, bus: &mut B, readings: &mut [u16]) -> usize {
        let mut conversions = 0;
        for address in 0..MUX_INPUTS as u8 {
            for adc_address in 0..MUX_INPUTS as u8 {
                if self.point_at(address, adc_address, 0).is_none() {
                    // Input 0 carries the lowest multiplexers: nothing further either.
                    continue;
                }
                bus.select(address, adc_address);
                bus.settle();
                for input in 0..self.adc_inputs() as u8 {
                    if let Some(point) = self.point_at(address, adc_address, input) {
                        readings[point] = bus.convert(input);
                        conversions += 1;
                    }
                }
            }
            bus.between_rows();
        }
        conversions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nineteen_lines_take_23_muxes_on_two_adc_inputs() {
        let plan = MuxPlan::standard(19).unwrap();
        assert_eq!(plan.muxes(), 23);
        assert_eq!(plan.adc_inputs(), 2);
        assert_eq!(plan.point_at(0, 0, 0), Some(0));
        assert_eq!(plan.point_at(15, 15, 0), Some(255));
        assert_eq!(plan.point_at(0, 0, 1), Some(256));
        assert_eq!(plan.point_at(8, 6, 1), Some(360));
        assert_eq!(plan.point_at(9, 6, 1), None);
        assert_eq!(plan.point_at(0, 7, 1), None);
        assert_eq!(plan.wiring_of(360), Some((8, 6, 1)));
        assert_eq!(plan.wiring_of(361), None);
        assert!(MuxPlan::standard(25).is_some());
        assert!(MuxPlan::standard(0).is_none());
    }

    #[test]
    fn every_wiring_is_the_inverse_of_point_at() {
        for size in 1..=25 {
            let plan = MuxPlan::standard(size).unwrap();
            for index in 0..plan.points() {
                let (a, b, input) = plan.wiring_of(index).unwrap();
                assert_eq!(plan.point_at(a, b, input), Some(index));
            }
        }
    }
}
