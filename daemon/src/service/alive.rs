//! The board's last sign of life, kept beside the journal (`{storage.dir}/alive`): the
//! service's clock, rewritten every [`EVERY_MS`] while the scan loop runs. A board cut off
//! (power, crash, SIGKILL) may have written its last event minutes before it went down (a
//! player thinking in main time makes no events); this file says when it really stopped,
//! so the clocks come back as they stood then, and the arbiter is told how long the board
//! was off.
//!
//! Written with write-and-rename and no sync: a power cut can lose the last few seconds
//! (then the board is taken to have stopped a little earlier), never leave a torn file.

use std::path::{Path, PathBuf};

use tengen_hal::Millis;
use tengen_protocol::Timestamp;

/// How often the file is rewritten (ms of the service's clock).
pub const EVERY_MS: Millis = 2_000;

const MAGIC: &str = "tengen-alive";

/// The `alive` file of a storage directory.
#[derive(Debug)]
pub struct AliveFile {
    path: PathBuf,
    last: Option<Millis>,
    failed: bool,
}

impl AliveFile {
    /// The file in `dir`.
    pub fn in_dir(dir: &Path) -> AliveFile {
        AliveFile {
            path: dir.join("alive"),
            last: None,
            failed: false,
        }
    }

    /// The last sign of life it holds (`None`: no file, or not one of ours).
    pub fn load(&self) -> Option<Timestamp> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        let ms = text.strip_prefix(MAGIC)?.trim().parse().ok()?;
        Some(Timestamp::from_millis(ms))
    }

    /// The loop is alive at `now`: rewrites the file when [`EVERY_MS`] have passed.
    pub fn beat(&mut self, now: Millis) {
        if self.last.is_some_and(|l| now < l.saturating_add(EVERY_MS)) {
            return;
        }
        self.last = Some(now);
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".tmp");
        let written = std::fs::write(&tmp, format!("{MAGIC} {now}\n"))
            .and_then(|()| std::fs::rename(&tmp, &self.path));
        match written {
            Ok(()) => self.failed = false,
            Err(e) if !self.failed => {
                self.failed = true;
                tracing::warn!(
                    "{}: {e} (a restart will count the board off since its last event)",
                    self.path.display()
                );
            }
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_beat_every_two_seconds() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = AliveFile::in_dir(dir.path());
        assert_eq!(f.load(), None);
        f.beat(10_000);
        assert_eq!(f.load(), Some(Timestamp::from_millis(10_000)));
        f.beat(11_999);
        assert_eq!(f.load(), Some(Timestamp::from_millis(10_000)));
        f.beat(12_000);
        assert_eq!(f.load(), Some(Timestamp::from_millis(12_000)));
        std::fs::write(dir.path().join("alive"), "garbage").unwrap();
        assert_eq!(f.load(), None);
    }
}
