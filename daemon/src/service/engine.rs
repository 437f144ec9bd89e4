//! What the service drives: the pipeline (stabiliser + referee) behind a small trait, so the
//! scan loop, the journal and the outputs can be tested on their own.

use tengen_hal::{ButtonEvent, Frame, Millis, PointState};
use tengen_protocol::{CommandEnvelope, Event};
use tengen_referee::{CommandRefused, Pipeline, PipelineError};

/// The game logic as the service sees it: scans and commands in, events out. Every event
/// returned happens at the time of its input (the frame's, or `now`). Time is the
/// service's clock in ms since the Unix epoch.
pub trait Engine: Send {
    /// One scan and the button events since the previous one.
    fn step(&mut self, frame: &Frame, buttons: &[ButtonEvent])
        -> Result<Vec<Event>, PipelineError>;
    /// Time passes with no scan (a link down): clock calls and flag falls.
    fn tick(&mut self, now: Millis) -> Vec<Event>;
    /// An arbiter command; a refusal is the reply's error and changes nothing.
    fn command(&mut self, cmd: &CommandEnvelope, now: Millis)
        -> Result<Vec<Event>, CommandRefused>;
    /// The last scan's classified readings as the sensors gave them (for the black box;
    /// empty when not known).
    fn seen(&self) -> &[PointState] {
        &[]
    }
}

impl Engine for Pipeline {
    fn step(
        &mut self,
        frame: &Frame,
        buttons: &[ButtonEvent],
    ) -> Result<Vec<Event>, PipelineError> {
        Pipeline::step(self, frame, buttons)
    }

    fn tick(&mut self, _now: Millis) -> Vec<Event> {
        // The pipeline ticks the clock on every scan; with no scan (a link down) the
        // clock's calls are made up, each once, when scans come back.
        Vec::new()
    }

    fn command(
        &mut self,
        cmd: &CommandEnvelope,
        now: Millis,
    ) -> Result<Vec<Event>, CommandRefused> {
        Pipeline::command(self, cmd, now)
    }

    fn seen(&self) -> &[PointState] {
        Pipeline::seen(self)
    }
}
