//! The tournament crate's integration tests (the OpenGotha samples, write-back, exports, bad
//! input), in one test binary (one link instead of six).

#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod board_pattern;
mod exports;
mod generated;
mod samples;
mod write_back;
