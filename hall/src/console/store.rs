//! The console's memory across a hall restart, with the archive (`[hall] archive_dir`): the
//! open logins and the commands sent, in `{archive_dir}/console.json`. A hall restarted in
//! the middle of a round keeps its arbiters logged in (their phones' cookies still work) and
//! shows the commands sent before, with the state they had reached.
//!
//! A session is kept as the SHA-256 of its cookie value, never the value itself: the file
//! opens no session to whoever reads it. Times are kept on the wall clock (ms since the
//! epoch) and turned back into the hall's monotonic clock when read. The file is written
//! beside its name and renamed over it, readable by its owner only, at most every
//! [`EVERY`] and only when something changed, at once when an arbiter takes an alert
//! (*I'll go*, [`Kept::wake`]), and once more when the hall stops gracefully
//! ([`save_now`]): an *I'll go* taken a moment before a restart is not lost (issue 31). A
//! file that cannot be read is one warning and the hall starts without it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::boards::hall_state::TakenAlert;
use crate::boards::hall_state::{lock, Shared};
use crate::console::auth::{SavedSession, Sessions};
use crate::wall_clock::wall_ms;

/// How often the store is brought up to date.
const EVERY: Duration = Duration::from_secs(2);

/// The file's name in the archive directory.
pub(crate) const FILE: &str = "console.json";

/// What the file holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Saved {
    /// The open logins.
    pub(crate) sessions: Vec<SavedSession>,
    /// The commands, newest first, as `/api/console/commands` shows them, each with
    /// `at_ms` (when it was sent, ms since the epoch) instead of its age.
    pub(crate) commands: Vec<Value>,
    /// Which arbiter took which open alert (*I'll go*).
    #[serde(default)]
    pub(crate) taken: Vec<TakenAlert>,
}

/// The store could not be read or written.
#[derive(Debug, Error)]
pub(crate) enum StoreError {
    /// Reading or writing the file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not what this hall writes.
    #[error("{path}: not a console store: {source}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}

/// Reads the store; `Ok(None)` when there is none yet.
pub(crate) fn load(path: &Path) -> Result<Option<Saved>, StoreError> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StoreError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    serde_json::from_slice(&text)
        .map(Some)
        .map_err(|source| StoreError::Format {
            path: path.to_path_buf(),
            source,
        })
}

/// Writes `text` to `path`: beside it, owner-only, then renamed over it.
fn write(path: &Path, text: &[u8]) -> Result<(), StoreError> {
    let io = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&tmp).map_err(io)?;
    file.write_all(text).map_err(io)?;
    file.sync_all().map_err(io)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(io)
}

/// What the console store keeps: the hall (its commands) and the console's logins.
#[derive(Clone)]
pub(crate) struct Kept {
    /// The hall.
    pub(crate) hall: Shared,
    /// The console's logins.
    pub(crate) sessions: Arc<Mutex<Sessions>>,
    /// Woken to write at once (an alert taken).
    pub(crate) wake: Arc<tokio::sync::Notify>,
}

/// What the hall holds now, as the file would hold it.
fn snapshot(app: &Kept) -> Saved {
    let now = Instant::now();
    let wall = wall_ms();
    let sessions = app
        .sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .saved(now, wall);
    let hall = lock(&app.hall);
    let commands = hall.commands_saved(now, wall);
    let taken = hall.taken_saved();
    Saved {
        sessions,
        commands,
        taken,
    }
}

/// Puts what `path` holds (if anything) into the hall: the logins and the commands.
/// Called before the hall serves its first request.
pub(crate) fn restore(app: &Kept, path: &Path) {
    match load(path) {
        Ok(None) => {}
        Ok(Some(saved)) => {
            let now = Instant::now();
            let wall = wall_ms();
            app.sessions
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .restore(&saved.sessions, now, wall);
            let mut hall = lock(&app.hall);
            hall.restore_commands(saved.commands, now, wall);
            hall.restore_taken(saved.taken);
            drop(hall);
            tracing::info!(
                "console: {} login(s) and the commands sent before the restart taken back from {}",
                saved.sessions.len(),
                path.display()
            );
        }
        Err(e) => tracing::warn!("console: {e}; starting without the logins and commands"),
    }
}

/// Writes what the hall holds to `path` now (a graceful stop), whether or not it changed;
/// a failure is one warning.
pub(crate) fn save_now(app: &Kept, path: &Path) {
    let text = serde_json::to_string(&snapshot(app)).unwrap_or_default();
    match write(path, text.as_bytes()) {
        Ok(()) => tracing::info!(
            "console: logins, commands and alerts taken kept in {}",
            path.display()
        ),
        Err(e) => tracing::warn!("console: cannot keep the logins and commands: {e}"),
    }
}

/// Keeps `path` up to date with the hall's logins and commands, every [`EVERY`] and when
/// woken, on a blocking thread, until the runtime stops.
pub(crate) fn spawn(app: Kept, path: PathBuf) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut last = String::new();
        let mut said = String::new();
        let mut tick = tokio::time::interval(EVERY);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = app.wake.notified() => {}
            }
            let text = serde_json::to_string(&snapshot(&app)).unwrap_or_default();
            if text == last {
                continue;
            }
            let (p, t) = (path.clone(), text.clone());
            let done = tokio::task::spawn_blocking(move || write(&p, t.as_bytes())).await;
            match done {
                Ok(Ok(())) => {
                    last = text;
                    said.clear();
                }
                Ok(Err(e)) => {
                    let line = e.to_string();
                    if line != said {
                        tracing::warn!("console: cannot keep the logins and commands: {line}");
                        said = line;
                    }
                }
                Err(_) => return,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_none_and_a_bad_one_a_one_line_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        assert!(matches!(load(&path), Ok(None)));
        std::fs::write(&path, "{not json").unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("not a console store"), "{e}");
        assert!(!e.contains('\n'));
        let saved = Saved {
            sessions: vec![SavedSession {
                id_sha256: "ab".repeat(32),
                arbiter: "chief".into(),
                until_ms: 1,
            }],
            commands: vec![serde_json::json!({"id": "h-1", "at_ms": 5})],
            taken: vec![TakenAlert {
                tournament: "open".into(),
                board: "b1".into(),
                alert: "3".into(),
                by: "chief".into(),
            }],
        };
        write(&path, serde_json::to_string(&saved).unwrap().as_bytes()).unwrap();
        assert_eq!(load(&path).unwrap(), Some(saved));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "owner only: {mode:o}");
        }
    }
}
