//! Decode throughput of the serial link: a stream of raw 19x19 scans (u16 and packed
//! 12-bit) fed to the stream decoder in 4 KiB reads, as the reader does.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tengen_hal::serial::{Body, Decoder, Encoder, RawFormat};
use tengen_hal::FrameData;

/// Frames in one benchmark iteration (one second of scans at 100 Hz).
const FRAMES: u64 = 100;

fn stream(raw: RawFormat) -> Vec<u8> {
    let mut enc = Encoder::new(raw);
    let mut out = Vec::new();
    for k in 0..FRAMES {
        let readings = (0..361u64)
            .map(|i| (2048 + (k * 31 + i * 97) % 1229) as u16)
            .collect();
        if let Err(e) = enc.encode(k * 10, Body::Scan(FrameData::Raw(readings)), &mut out) {
            panic!("benchmark stream cannot be encoded: {e}");
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("serial_decode_raw19x19");
    for (name, raw) in [("u16", RawFormat::U16), ("packed12", RawFormat::Packed12)] {
        let bytes = stream(raw);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("{name}_100_frames"), |b| {
            let mut out = Vec::with_capacity(FRAMES as usize);
            b.iter(|| {
                let mut dec = Decoder::new();
                out.clear();
                for chunk in bytes.chunks(4096) {
                    dec.feed(black_box(chunk), &mut out);
                }
                assert_eq!(out.len() as u64, FRAMES);
                black_box(&out);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
