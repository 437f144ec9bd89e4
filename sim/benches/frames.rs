//! Simulated frames generated per second on a 19x19 board in play: classified and raw
//! frames, with and without noise, and a whole game's scan loop.
//!
//! `CARGO_TARGET_DIR=/work/target-sim cargo bench -p tengen-sim --bench frames`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tengen_sim::{FrameKind, GameOptions, SimOptions, Simulation, ThinkTime};

/// A 19x19 board with 120 stones, a hand hovering now and then, for ten minutes.
fn busy_board(noise: f64) -> String {
    let mut s = format!("size 19\nnoise {noise}\n");
    let cols = "ABCDEFGHJKLMNOPQRST".as_bytes();
    for i in 0..120 {
        let (c, r) = (i % 19, (i / 19) * 3 % 19 + 1);
        let color = if i % 2 == 0 { "B" } else { "W" };
        s.push_str(&format!("place {color} {}{} 20ms\n", cols[c] as char, r));
    }
    for _ in 0..600 {
        s.push_str("hover K10 L10 M10 200ms\nwait 800ms\n");
    }
    s
}

fn scans(c: &mut Criterion, name: &str, kind: FrameKind, noise: f64) {
    let text = busy_board(noise);
    let options = SimOptions {
        frames: kind,
        ..SimOptions::seeded(1)
    };
    let fresh = || Simulation::from_script(&text, &options).expect("bench script");
    let mut sim = fresh();
    let mut g = c.benchmark_group("sim_19x19");
    g.throughput(Throughput::Elements(1));
    g.bench_function(name, |b| {
        b.iter(|| {
            if let Some(scan) = sim.next_scan() {
                black_box(scan);
            } else {
                sim = fresh();
            }
        })
    });
    g.finish();
}

fn frames(c: &mut Criterion) {
    scans(c, "classified", FrameKind::Classified, 0.0);
    scans(c, "classified_noise_0.001", FrameKind::Classified, 0.001);
    scans(c, "raw", FrameKind::Raw, 0.0);
    scans(c, "raw_noise_0.001", FrameKind::Raw, 0.001);
}

fn game(c: &mut Criterion) {
    let sgf = include_str!("../tests/fixtures/even13.sgf");
    let record = tengen_rules::sgf::parse(sgf).expect("fixture");
    let play = GameOptions {
        think: ThinkTime::brisk(),
        ..GameOptions::default()
    };
    let mut g = c.benchmark_group("sim_game_13x13");
    g.sample_size(20);
    g.bench_function("build_and_scan_whole_game", |b| {
        b.iter(|| {
            let mut sim =
                Simulation::from_sgf(&record, &SimOptions::seeded(2), &play).expect("fixture game");
            let mut n = 0u64;
            while let Some(scan) = sim.next_scan() {
                black_box(scan);
                n += 1;
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, frames, game);
criterion_main!(benches);
