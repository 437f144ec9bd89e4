//! The free space of `storage.dir`, read with `statvfs` on a thread of its own every
//! [`EVERY`] (never in the scan loop, which only reads the last figure from an atomic).
//! The space counted is what the board's user may write (`f_bavail`: blocks reserved for
//! root are not counted).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the free space is read.
pub const EVERY: Duration = Duration::from_secs(5);

/// No reading yet, or the last one failed.
const UNKNOWN: u64 = u64::MAX;

/// The bytes free for the board in the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    let st = rustix::fs::statvfs(dir)?;
    Ok(st.f_bavail.saturating_mul(st.f_frsize))
}

/// The last reading, shared with the scan loop.
#[derive(Debug, Clone)]
pub struct FreeSpace(Arc<AtomicU64>);

impl FreeSpace {
    /// No reading yet.
    pub fn unknown() -> FreeSpace {
        FreeSpace(Arc::new(AtomicU64::new(UNKNOWN)))
    }

    /// The bytes free at the last reading (`None`: none yet, or it failed).
    pub fn get(&self) -> Option<u64> {
        Some(self.0.load(Ordering::Relaxed)).filter(|&b| b != UNKNOWN)
    }

    fn set(&self, reading: Option<u64>) {
        let value = reading.map_or(UNKNOWN, |b| b.min(UNKNOWN - 1));
        self.0.store(value, Ordering::Relaxed);
    }
}

/// The thread that reads the free space; stops when dropped.
#[derive(Debug)]
pub struct DiskWatch {
    free: FreeSpace,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl DiskWatch {
    /// Reads the free space of `dir` once now, then every `every` on a thread. A failed
    /// reading is logged once (until one succeeds again) and leaves the figure unknown.
    pub fn start(dir: &Path, every: Duration) -> DiskWatch {
        let free = FreeSpace::unknown();
        let mut failed = false;
        read_into(dir, &free, &mut failed);
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (path, free, stop) = (dir.to_path_buf(), free.clone(), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("tengen-disk".into())
                .spawn(move || watch(&path, &free, &stop, every, failed))
                .map_err(|e| tracing::warn!("free space of {} not watched: {e}", dir.display()))
                .ok()
        };
        DiskWatch { free, stop, thread }
    }

    /// The readings.
    pub fn free(&self) -> FreeSpace {
        self.free.clone()
    }
}

impl Drop for DiskWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

fn watch(dir: &Path, free: &FreeSpace, stop: &AtomicBool, every: Duration, mut failed: bool) {
    while !stop.load(Ordering::Relaxed) {
        std::thread::park_timeout(every);
        if stop.load(Ordering::Relaxed) {
            return;
        }
        read_into(dir, free, &mut failed);
    }
}

fn read_into(dir: &Path, free: &FreeSpace, failed: &mut bool) {
    match free_bytes(dir) {
        Ok(bytes) => {
            free.set(Some(bytes));
            *failed = false;
        }
        Err(e) => {
            free.set(None);
            if !*failed {
                tracing::warn!("free space of {}: {e}", dir.display());
            }
            *failed = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_free_space_at_once_and_says_unknown_for_a_missing_directory() {
        let dir = tempfile::tempdir().unwrap();
        let watch = DiskWatch::start(dir.path(), Duration::from_secs(60));
        let free = watch.free().get().expect("a reading at once");
        assert!(free > 0);
        let gone = DiskWatch::start(&dir.path().join("nope"), Duration::from_secs(60));
        assert_eq!(gone.free().get(), None);
        drop(watch);
    }
}
