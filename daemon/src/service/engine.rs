//! What the service drives: the pipeline (stabiliser + referee) behind a small trait, so the
//! scan loop, the journal and the outputs can be tested on their own.

use tengen_hal::{ButtonEvent, Frame, Millis};

use crate::command::CommandEnvelope;
use crate::event::Event;

/// The game logic as the service sees it: scans and commands in, events out, plus what
/// the outputs show. Time is the service's clock in ms since the Unix epoch.
pub trait Engine: Send {
    /// One scan and the button events since the previous one.
    fn step(&mut self, frame: &Frame, buttons: &[ButtonEvent]) -> Result<Vec<Event>, String>;
    /// Time passes with no scan (a link down): clock calls and flag falls.
    fn tick(&mut self, now: Millis) -> Vec<Event>;
    /// An arbiter command; an `Err` is the reply's error and changes nothing.
    fn command(&mut self, cmd: &CommandEnvelope, now: Millis) -> Result<Vec<Event>, String>;
    /// SPEC.md's `state` snapshot (without `seq`, which the service adds).
    fn snapshot(&self) -> serde_json::Value;
    /// The game record so far, as SGF text.
    fn sgf(&self) -> String;
}
