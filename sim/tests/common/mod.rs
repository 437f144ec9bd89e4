//! Helpers shared by the simulator's integration tests.
#![allow(dead_code)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use tengen_hal::{ButtonEvent, Frame, FrameData, PointState};
use tengen_rules::{Color, Point};
use tengen_sim::Simulation;

/// A point from GTP text on a board of `size`.
pub(crate) fn pt(s: &str, size: u8) -> Point {
    Point::parse_gtp(s, size).unwrap()
}

/// The classified states of a frame (panics on raw frames: tests choose the kind).
pub(crate) fn states(frame: &Frame) -> &[PointState] {
    match &frame.data {
        FrameData::Classified(s) => s,
        FrameData::Raw(_) => panic!("expected a classified frame"),
    }
}

/// Runs a simulation to its end, collecting every frame and button event.
pub(crate) fn run(sim: &mut Simulation) -> (Vec<Frame>, Vec<ButtonEvent>) {
    let mut frames = Vec::new();
    let mut buttons = Vec::new();
    while let Some((f, b)) = sim.next_scan() {
        frames.push(f);
        buttons.extend(b);
    }
    (frames, buttons)
}

/// A hash of everything a simulation emits.
pub(crate) fn stream_hash(sim: &mut Simulation) -> (u64, usize) {
    let mut h = DefaultHasher::new();
    let mut n = 0;
    while let Some((f, b)) = sim.next_scan() {
        f.time.hash(&mut h);
        match &f.data {
            FrameData::Classified(s) => s.hash(&mut h),
            FrameData::Raw(r) => r.hash(&mut h),
        }
        b.hash(&mut h);
        n += 1;
    }
    (h.finish(), n)
}

/// The state a true stone reads as.
pub(crate) fn state_of(stone: Option<Color>) -> PointState {
    match stone {
        None => PointState::Empty,
        Some(Color::Black) => PointState::Black,
        Some(Color::White) => PointState::White,
    }
}

/// A board as rows from the top (`.`, `X`, `O`), as the fixtures' `.final` files hold it.
pub(crate) fn rows(board: &[Option<Color>], size: u8) -> String {
    let mut s = String::new();
    for r in 0..size as usize {
        for c in 0..size as usize {
            s.push(match board[r * size as usize + c] {
                None => '.',
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
            });
        }
        s.push('\n');
    }
    s
}

/// The runs of equal readings at one point: (state, first frame time, last frame time).
pub(crate) fn runs(frames: &[Frame], index: usize) -> Vec<(PointState, u64, u64)> {
    let mut out: Vec<(PointState, u64, u64)> = Vec::new();
    for f in frames {
        let s = states(f)[index];
        match out.last_mut() {
            Some(last) if last.0 == s => last.2 = f.time,
            _ => out.push((s, f.time, f.time)),
        }
    }
    out
}
