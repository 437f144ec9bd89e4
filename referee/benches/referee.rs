//! Wall time per scan of the referee pipeline (classified frame -> stabiliser -> referee ->
//! clock) over a whole 19x19 GNU Go game played at human pace on the simulated board,
//! 100 scans per second of virtual time, noise 0.001. The frames are generated first, so
//! only the pipeline is timed.
//!
//! `cargo bench -p tengen-referee --bench referee`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use tengen_hal::{ButtonEvent, Frame};
use tengen_referee::{Pipeline, RefereeSettings};
use tengen_rules::sgf;
use tengen_sim::{GameOptions, SimOptions, Simulation};

fn scans() -> (Vec<(Frame, Vec<ButtonEvent>)>, RefereeSettings) {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rules/tests/fixtures/gnugo/games/19");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("19x19 fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sgf"))
        .collect();
    paths.sort();
    let text = std::fs::read_to_string(&paths[0]).expect("fixture");
    let record = sgf::parse(&text).expect("sgf");
    let mut options = SimOptions::seeded(1);
    options.noise = 0.001;
    let mut sim = Simulation::from_sgf(&record, &options, &GameOptions::default()).expect("sim");
    let mut out = Vec::new();
    while let Some(s) = sim.next_scan() {
        out.push(s);
    }
    // As a board's default config: a byo-yomi clock of 60 min and 5 x 60 s.
    let mut settings = RefereeSettings::default().for_record(&record);
    settings.game.time_control =
        tengen_rules::clock::TimeControl::parse("byoyomi 60m 5x60s").expect("time control");
    (out, settings)
}

fn bench(c: &mut Criterion) {
    let (scans, settings) = scans();
    eprintln!(
        "game: {} scans ({:.1} min of virtual time)",
        scans.len(),
        scans.len() as f64 / 100.0 / 60.0
    );
    let mut group = c.benchmark_group("referee");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("full 19x19 game, per scan", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (mut p, _) = Pipeline::new(settings.clone(), None, 0).expect("pipeline");
                let start = Instant::now();
                let mut n = 0usize;
                for (frame, buttons) in &scans {
                    n += p.step(frame, buttons).expect("step").len();
                }
                std::hint::black_box(n);
                total += start.elapsed();
            }
            // Report per scan: criterion divides by iterations; divide by scans here.
            total / scans.len() as u32
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
