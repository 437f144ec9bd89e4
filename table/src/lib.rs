//! # tengen-table
//!
//! The clock at the table (Art. 12.1, 12.3): what each player sees and hears, with no I/O.
//!
//! - [`face`]: what one player's display shows, from the game as the events fold it
//!   ([`tengen_protocol::GameView`]) at an instant, quantised to what can be seen;
//! - [`mod@render`] and [`frame`]: the one pure function from a face to a 128x64 one-bit frame
//!   (what the SSD1306 displays, the tablet page `/clock`, the live page and
//!   `tengen sim --clock-frames` all show), and its PNG;
//! - [`schedule`]: when to redraw a face and when to say a call, as a state machine over
//!   injected time, driven by the board's loop and by the simulator alike;
//! - [`sound`]: the calls as sounds at their instants, and how each voice style says them;
//! - [`wav`], [`clips`] and [`track`]: WAV clips as `tengen voice` writes them, the texts
//!   they say in each language, and a sound track on a game's timeline
//!   (`tengen sim --audio-out`).

pub mod clips;
pub mod face;
pub mod frame;
pub mod glyphs;
pub mod render;
pub mod schedule;
pub mod sound;
pub mod track;
pub mod wav;
mod words;

pub use face::{Face, PlayerFaces};
pub use frame::MonoFrame;
pub use render::{render, render_in};
pub use schedule::{Due, Schedule};
pub use sound::{BeepPlayer, Sound, VoiceStyle};
pub use tengen_l10n::Lang;
pub use words::FACE_MESSAGES;
