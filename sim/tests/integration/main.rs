//! The simulator's integration tests, in one test binary (one link instead of eight).

#[path = "../common/mod.rs"]
mod common;

mod actions;
mod determinism;
mod games;
mod generated;
mod noise;
mod resume;
mod scripts;
mod ssd1306_emulator;
