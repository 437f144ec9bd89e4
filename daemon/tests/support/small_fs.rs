//! A small file system for the tests of a full disk: a tmpfs of a given size mounted on a
//! temporary directory, filled and freed on demand with filler files, unmounted on drop
//! (even on panic). Mounting needs root (CI runs as root); elsewhere the test says it is
//! skipped and passes, except with `TENGEN_REQUIRE_ORACLES=1`, where that is a failure.
//!
//! Include with `#[path = "support/small_fs.rs"] mod small_fs;`.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use tengen_daemon::service::disk_watch::free_bytes;

/// A mounted tmpfs.
pub(crate) struct SmallFs {
    dir: tempfile::TempDir,
    fillers: u32,
}

impl SmallFs {
    /// Mounts a tmpfs of `bytes` (rounded to pages by the kernel). `None` (the test should
    /// return, skipped) when that is not allowed here, unless `TENGEN_REQUIRE_ORACLES=1`.
    pub(crate) fn mount(bytes: u64) -> Option<SmallFs> {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(dir.path())
            .output();
        let why = match out {
            Ok(o) if o.status.success() => {
                return Some(SmallFs { dir, fillers: 0 });
            }
            Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
            Err(e) => e.to_string(),
        };
        let required = std::env::var("TENGEN_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "a tmpfs cannot be mounted ({why}) and TENGEN_REQUIRE_ORACLES=1: run as root"
        );
        eprintln!("skipped: a tmpfs cannot be mounted here (needs root): {why}");
        None
    }

    /// The mount point.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Bytes free now.
    pub(crate) fn free(&self) -> u64 {
        free_bytes(self.path()).expect("statvfs of the small file system")
    }

    fn filler(&mut self) -> PathBuf {
        self.fillers += 1;
        self.path().join(format!("filler-{}", self.fillers))
    }

    /// Writes a filler file until at most `leave` bytes are free (as the board's other files
    /// or logs would fill its disk).
    pub(crate) fn fill_to(&mut self, leave: u64) {
        let path = self.filler();
        let mut f = std::fs::File::create(&path).expect("create a filler");
        let chunk = vec![0x55u8; 16 << 10];
        while self.free() > leave {
            let step = (self.free() - leave).min(chunk.len() as u64) as usize;
            if f.write_all(&chunk[..step]).is_err() {
                break;
            }
            f.sync_data().expect("sync the filler");
        }
    }

    /// Writes a filler file until the file system refuses (no space left).
    pub(crate) fn fill_up(&mut self) {
        let path = self.filler();
        let mut f = std::fs::File::create(&path).expect("create a filler");
        let chunk = vec![0xAAu8; 4 << 10];
        loop {
            if let Err(e) = f.write_all(&chunk) {
                assert_eq!(e.kind(), std::io::ErrorKind::StorageFull, "{e}");
                break;
            }
        }
        // Also the last bytes of a page the chunks did not fill.
        while f.write_all(&[0xAA]).is_ok() {}
    }

    /// Removes every filler file.
    pub(crate) fn empty_fillers(&mut self) {
        for n in 1..=self.fillers {
            let _ = std::fs::remove_file(self.path().join(format!("filler-{n}")));
        }
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.path()).status();
    }
}
