//! The fake microcontroller on a pseudo-terminal: [`PtyMcu::spawn`] runs a [`FakeMcu`] on
//! its own thread and tells the path a [`tengen_hal::serial::SerialLink`] should open, for
//! the tests and for `tengen run` with the `serial` backend on a machine with no hardware.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serialport::SerialPort;

use crate::error::McuError;
use crate::fake_mcu::{FakeMcu, McuStats};
use crate::source::ScanSource;

/// How long a write to the pseudo-terminal may wait for the reader to drain it.
const PTY_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// A fake microcontroller running on its own thread, writing to the master side of a
/// pseudo-terminal whose slave is at [`PtyMcu::path`].
///
/// The slave side stays open as long as this lives, so the bytes written before the
/// reader opens the device wait in the terminal's buffer (a reader that is late by more
/// than the buffer and one second loses data, as with a real UART). A reader
/// that opens it with `exclusive` set locks out other non-root openers until this is
/// dropped.
#[derive(Debug)]
pub struct PtyMcu {
    path: PathBuf,
    _slave: serialport::TTYPort,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<McuStats, McuError>>>,
}

impl PtyMcu {
    /// Creates a pseudo-terminal pair and starts `mcu` writing to it in real time.
    pub fn spawn<S>(mut mcu: FakeMcu<S>) -> Result<Self, McuError>
    where
        S: ScanSource + Send + 'static,
    {
        let (mut master, slave) = serialport::TTYPort::pair()?;
        master.set_timeout(PTY_WRITE_TIMEOUT)?;
        let path = slave
            .name()
            .map(PathBuf::from)
            .ok_or_else(|| McuError::Source("pseudo-terminal has no slave path".into()))?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("fake-mcu".into())
            .spawn(move || mcu.run(&mut master, &flag, None))?;
        Ok(Self {
            path,
            _slave: slave,
            stop,
            thread: Some(thread),
        })
    }

    /// The slave device to open (e.g. `/dev/pts/7`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stops the microcontroller and closes the master side: the device "unplugs".
    pub fn stop(mut self) -> Result<McuStats, McuError> {
        self.halt()
    }

    fn halt(&mut self) -> Result<McuStats, McuError> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.take() {
            Some(t) => t.join().map_err(|_| McuError::Panicked)?,
            None => Ok(McuStats::default()),
        }
    }
}

impl Drop for PtyMcu {
    fn drop(&mut self) {
        if let Err(e) = self.halt() {
            eprintln!("fake microcontroller: {e}");
        }
    }
}
