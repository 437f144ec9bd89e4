//! The referee's integration tests, in one test binary (one link instead of six).

#[path = "../common/mod.rs"]
mod common;

mod arrival;
mod clock_start;
mod games;
mod properties;
mod reopen;
mod restart;
mod restore;
mod scenarios;
mod warnings;
