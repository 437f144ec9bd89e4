//! # tengen-protocol
//!
//! The wire contract of a tengen board, in one place, with no I/O: what a board says
//! (the wire contract's events, [`event`]), what it is told ([`command`]), where it says it
//! ([`topics`]), how a command proves who sent it ([`signing`]), and the one fold of an
//! event stream into a game ([`view::GameView`]): position, record, clocks, open alerts,
//! warnings, hardware faults, the `state` snapshot and the SGF.
//!
//! Every consumer of events folds them with [`view::GameView`]: the referee rebuilding
//! itself from its journal, the board's outputs (`state`, `sgf`, `alerts/active`), the
//! hall's live and delayed views. So a `move_retracted`, a restart or a paused clock
//! means the same thing everywhere.
//!
//! The JSON of every type here is byte for byte what the wire contract fixes (field names, field
//! order, points as GTP strings, colours `"B"`/`"W"`, times as UTC with milliseconds).

pub mod active_alerts;
pub mod board_status;
pub mod command;
pub mod describe;
pub mod event;
pub mod frames;
pub mod framing;
pub mod gtp;
pub mod incidents;
pub mod signing;
pub mod time;
pub mod topics;
pub mod view;

pub use board_status::BoardStatus;
pub use command::{Answer, Command, CommandEnvelope, CommandError};
pub use event::{AlertCode, Envelope, Event, PerColor};
pub use time::Timestamp;
pub use topics::Topics;
pub use view::GameView;
