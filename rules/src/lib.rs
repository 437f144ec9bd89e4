//! # tengen-rules
//!
//! The pure core of tengen: the Chinese Go competition rules (see `../shared/RULES.md`),
//! with no I/O and no async. Everything else in tengen asks this crate whether a move is
//! legal, what it captures, who won and how much time is left.

pub mod color;
pub mod moves;
pub mod point;

pub use color::Color;
pub use moves::Move;
pub use point::{CoordError, Point};
