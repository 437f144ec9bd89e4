//! The cost of classifying one full 19x19 frame (the scan loop runs it 100 times a second).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tengen_hal::calibration::{AdcBits, Calibration};
use tengen_hal::classify::Classifier;

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

criterion_group!(benches, bench);
criterion_main!(benches);
