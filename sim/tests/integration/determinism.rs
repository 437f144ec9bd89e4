//! Same seed, same frames, bit for bit; another seed, another stream.

use crate::common;

use common::stream_hash;
use tengen_sim::{FrameKind, GameOptions, SimOptions, Simulation, ThinkTime};

const SCRIPT: &str = "size 9\nnoise 0.01\n\
    place B C3\npress B\nplace W G7\npress W\nhover B D4 E4 300ms\nplace B D4\n\
    slide D4 D6\nknock 2\nstuck E5 W\nwait 2s\n";

fn options(seed: u64, frames: FrameKind) -> SimOptions {
    SimOptions {
        seed,
        frames,
        ..SimOptions::default()
    }
}

#[test]
fn same_seed_same_stream_in_both_frame_kinds() {
    for kind in [FrameKind::Classified, FrameKind::Raw] {
        let a = stream_hash(&mut Simulation::from_script(SCRIPT, &options(42, kind)).unwrap());
        let b = stream_hash(&mut Simulation::from_script(SCRIPT, &options(42, kind)).unwrap());
        assert_eq!(a, b, "{kind:?}");
        assert!(a.1 > 300, "a few seconds of scans: {}", a.1);
    }
}

#[test]
fn another_seed_gives_another_stream() {
    let a = stream_hash(&mut Simulation::from_script(SCRIPT, &options(1, FrameKind::Raw)).unwrap());
    let b = stream_hash(&mut Simulation::from_script(SCRIPT, &options(2, FrameKind::Raw)).unwrap());
    assert_ne!(a.0, b.0);
}

#[test]
fn the_script_seed_line_overrides_the_option() {
    let text = format!("seed 5\n{SCRIPT}");
    let a = stream_hash(
        &mut Simulation::from_script(&text, &options(1, FrameKind::Classified)).unwrap(),
    );
    let b = stream_hash(
        &mut Simulation::from_script(&text, &options(2, FrameKind::Classified)).unwrap(),
    );
    assert_eq!(a, b);
}

#[test]
fn a_game_replays_identically_and_its_timing_ignores_the_noise_level() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/even9_a.sgf"
    ))
    .unwrap();
    let record = tengen_rules::sgf::parse(&text).unwrap();
    let play = GameOptions {
        think: ThinkTime::brisk(),
        ..GameOptions::default()
    };
    let run = |seed: u64, noise: f64| {
        let o = SimOptions {
            seed,
            noise,
            ..SimOptions::default()
        };
        Simulation::from_sgf(&record, &o, &play).unwrap()
    };
    assert_eq!(
        stream_hash(&mut run(9, 0.001)),
        stream_hash(&mut run(9, 0.001))
    );
    assert_eq!(run(9, 0.0).actions(), run(9, 0.05).actions());
    assert_ne!(run(9, 0.0).actions(), run(10, 0.0).actions());
}
