//! The cost of classifying one full 19x19 frame (the scan loop runs it 100 times a second),
//! and the CPU cost of the direct driver's scan logic with the bus time taken out (no-op
//! SPI devices and pins).

use criterion::{criterion_group, criterion_main, Criterion};
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{ErrorType as PinErrorType, OutputPin};
use embedded_hal::spi::{ErrorType as SpiErrorType, Operation, SpiDevice};
use std::hint::black_box;
use tengen_hal::calibration::{AdcBits, Calibration};
use tengen_hal::classify::Classifier;
use tengen_hal::driver::{AdcKind, MuxAdcMatrix, Wiring};

/// A frame with a realistic mix: empty points near the baseline, stones at their levels,
/// and a few in-between readings, with small deterministic noise.
fn frame(bits: AdcBits) -> Vec<u16> {
    let mid = i32::from(bits.mid());
    let swing = i32::from(bits.default_swing());
    (0..361)
        .map(|i: i32| {
            let noise = (i * 7919) % 9 - 4;
            let base = match i % 7 {
                0 | 3 => mid + swing,
                1 => mid - swing,
                5 => mid + swing / 2,
                _ => mid,
            };
            (base + noise) as u16
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    for bits in [AdcBits::Ten, AdcBits::Twelve] {
        let cal = match Calibration::default_for(19, bits) {
            Ok(c) => c,
            Err(e) => panic!("default calibration: {e}"),
        };
        let mut classifier = Classifier::new(&cal);
        let raw = frame(bits);
        c.bench_function(&format!("classify 19x19 frame ({bits})"), |b| {
            b.iter(|| {
                let states = classifier.classify_raw(black_box(&raw));
                black_box(states.map(|s| s.len()).unwrap_or(0))
            })
        });
    }
}

/// An ADC that answers every conversion with mid-scale.
struct NullAdc;
impl SpiErrorType for NullAdc {
    type Error = embedded_hal::spi::ErrorKind;
}
impl SpiDevice<u8> for NullAdc {
    fn transaction(&mut self, ops: &mut [Operation<'_, u8>]) -> Result<(), Self::Error> {
        for op in ops {
            if let Operation::Transfer(read, _) = op {
                read.copy_from_slice(&[0, 0x02, 0x00]);
            }
        }
        Ok(())
    }
}

/// A pin that does nothing.
struct NullPin;
impl PinErrorType for NullPin {
    type Error = std::convert::Infallible;
}
impl OutputPin for NullPin {
    fn set_low(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn set_high(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A delay that returns at once.
struct NoDelay;
impl DelayNs for NoDelay {
    fn delay_ns(&mut self, _ns: u32) {}
}

fn bench_scan(c: &mut Criterion) {
    let wiring = Wiring::standard(19, AdcKind::Mcp3008);
    let adcs = vec![NullAdc, NullAdc, NullAdc];
    let mut m =
        match MuxAdcMatrix::new(&wiring, adcs, [NullPin, NullPin, NullPin, NullPin], NoDelay) {
            Ok(m) => m,
            Err(e) => panic!("standard wiring: {e}"),
        };
    let mut readings = Vec::with_capacity(361);
    c.bench_function("driver scan logic 19x19 (no bus time)", |b| {
        b.iter(|| {
            let r = m.scan_into(&mut readings);
            black_box((r.is_ok(), readings[180]))
        })
    });
}

criterion_group!(benches, bench, bench_scan);
criterion_main!(benches);
