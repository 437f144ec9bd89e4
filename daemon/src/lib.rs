//! # tengen-daemon
//!
//! The board service and the `tengen` command line. The pipeline, left to right:
//! hal (sensors, buttons) -> stabiliser -> referee (with the clock) -> journal -> outputs
//! (MQTT, SGF, HTTP), with the black box (what the sensors saw) beside the journal.
//! Everything left of the journal is sans-IO and lives in
//! `tengen-referee`; the events and their fold are `tengen-protocol`'s; this crate is the
//! I/O around them: the journal, the outputs, the service loop, the config, and the CLI
//! (`tengen hall` runs `tengen-hall`).

pub mod black_box;
pub mod cli;
pub mod config;
pub mod journal;
pub mod mqtt;
pub mod service;
pub(crate) mod sgf_file;
pub mod sim_game;
