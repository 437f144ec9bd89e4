//! # tengen-rules
//!
//! The pure core of tengen: the Chinese Go competition rules (see `docs/rules.md`),
//! with no I/O and no async. Everything else in tengen asks this crate whether a move is
//! legal, what it captures, who won and how much time is left.

pub mod board;
pub mod clock;
pub mod color;
pub mod game;
pub mod handicap;
pub mod moves;
pub mod point;
pub mod scoring;
mod setup_error;
pub mod sgf;

pub use board::Board;
pub use color::Color;
pub use game::{Game, Illegal, Played, SetupError, Superko};
pub use handicap::{handicap_points, max_handicap};
pub use moves::Move;
pub use point::{CoordError, Point};
pub use scoring::{score, Score, ScoreError, ScoreRules};
