//! What the fake microcontroller scans: any source of frames and button events — a board
//! implementing the hal traits (a [`tengen_sim::Simulation`], a driver) or a closure.

use tengen_hal::{ButtonEvent, ClockButtons, Frame, FrameData, Millis, SensorMatrix};

use crate::error::McuError;

/// What the microcontroller scans: one frame and the button events since the last call.
pub trait ScanSource {
    /// Lines on the board.
    fn size(&self) -> u8;
    /// The scan at `now` (ms) and the button events up to then; `None` when the source is
    /// exhausted (a finished script).
    fn next_scan(&mut self, now: Millis) -> Result<Option<(Frame, Vec<ButtonEvent>)>, McuError>;
}

/// Any board implementing the hal traits (the [`tengen_sim::Simulation`], a driver) as a source.
#[derive(Debug)]
pub struct BoardSource<B>(pub B);

impl<B: SensorMatrix + ClockButtons> ScanSource for BoardSource<B> {
    fn size(&self) -> u8 {
        self.0.size()
    }

    fn next_scan(&mut self, now: Millis) -> Result<Option<(Frame, Vec<ButtonEvent>)>, McuError> {
        let frame = self
            .0
            .scan(now)
            .map_err(|e| McuError::Source(e.to_string()))?;
        let buttons = self
            .0
            .poll(now)
            .map_err(|e| McuError::Source(e.to_string()))?;
        Ok(Some((frame, buttons)))
    }
}

/// A closure as a source: called with the scan time, returns the readings and the button
/// events, or `None` to stop.
pub struct FnSource<F> {
    size: u8,
    f: F,
}

impl<F> FnSource<F>
where
    F: FnMut(Millis) -> Option<(FrameData, Vec<ButtonEvent>)>,
{
    /// A source of `size` x `size` scans produced by `f`.
    pub fn new(size: u8, f: F) -> Self {
        Self { size, f }
    }
}

impl<F> ScanSource for FnSource<F>
where
    F: FnMut(Millis) -> Option<(FrameData, Vec<ButtonEvent>)>,
{
    fn size(&self) -> u8 {
        self.size
    }

    fn next_scan(&mut self, now: Millis) -> Result<Option<(Frame, Vec<ButtonEvent>)>, McuError> {
        Ok((self.f)(now).map(|(data, buttons)| (Frame { time: now, data }, buttons)))
    }
}
