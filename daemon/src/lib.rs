//! # tengen-daemon
//!
//! The board service and its commands. The pipeline, left to right:
//! hal (sensors, buttons) -> stabiliser -> referee (with the clock) -> journal -> outputs
//! (MQTT, SGF, HTTP). Everything left of the journal is sans-IO.

pub mod cli;
pub mod command;
pub mod config;
pub mod event;
pub mod hall;
pub mod http;
pub mod journal;
pub mod mqtt;
pub mod pipeline;
pub mod referee;
pub mod sender;
pub mod sensors;
pub mod service;
pub mod sgf_file;
pub mod stabiliser;
