//! The signed command ids a board has taken within the command window
//! (`mqtt.command_window`), kept across restarts so that a command seen on the network
//! cannot be carried out again after the board restarts.
//!
//! They live in a small file beside the journal (`command-ids` in `storage.dir`), replaced
//! atomically (a temporary file, synced, renamed over the old one, the directory synced)
//! each time a signed command is taken, before it is carried out. A file and not journal
//! records: the journal is the game's record, which every consumer reads, folds and
//! republishes; the ids are the board's own short-lived bookkeeping (forgotten once older
//! than the window, when any replay of them is refused as stale anyway), rewritten whole,
//! and a lost or damaged file costs only the safe fallback below, never the journal.
//!
//! When the file is missing or unreadable the board does not know what it took before it
//! started: it says so in one log line and refuses every signed command issued before its
//! start (see [`tengen_protocol::signing::Scope::not_before_ms`]). That start goes into the
//! file (written at once), so a restart soon after still refuses them.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tengen_protocol::signing::Scope;
use thiserror::Error;

/// The ids taken, each with the `at` of its stamp (ms since the epoch), and the earliest
/// `at` taken (0, or the start of a run that did not know the ids taken before it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TakenIds {
    ids: BTreeMap<String, u64>,
    not_before_ms: u64,
}

impl TakenIds {
    /// No ids known, and nothing issued before `start_ms` taken.
    pub(crate) fn forgotten_before(start_ms: u64) -> TakenIds {
        TakenIds {
            ids: BTreeMap::new(),
            not_before_ms: start_ms,
        }
    }

    /// Commands issued before this (ms since the epoch) are refused.
    pub(crate) fn not_before_ms(&self) -> u64 {
        self.not_before_ms
    }

    /// True when `id` was taken (and not forgotten yet).
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.ids.contains_key(id)
    }

    /// Remembers `id`, issued at `at`.
    pub(crate) fn insert(&mut self, id: &str, at: u64) {
        self.ids.insert(id.to_string(), at);
    }

    /// Forgets the ids whose commands `scope` would refuse as stale at `now_ms` anyway.
    pub(crate) fn prune(&mut self, scope: &Scope, now_ms: u64) {
        self.ids.retain(|_, at| !scope.expired(*at, now_ms));
    }
}

/// Why the ids file could not be read or written.
#[derive(Debug, Error)]
pub(crate) enum IdsFileError {
    /// There is no file (a first start, or it was removed).
    #[error("{}: no record of the command ids taken before", .0.display())]
    Missing(PathBuf),
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is not what this module writes.
    #[error("{}: not a command ids file ({reason})", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The file's content.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    format: String,
    not_before: u64,
    ids: BTreeMap<String, u64>,
}

const FORMAT: &str = "tengen-command-ids-1";

/// The file of taken ids (conventionally `command-ids` in the storage directory).
#[derive(Debug, Clone)]
pub struct IdsFile {
    path: PathBuf,
}

impl IdsFile {
    /// The file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> IdsFile {
        IdsFile { path: path.into() }
    }

    /// Where it lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The ids stored.
    pub(crate) fn load(&self) -> Result<TakenIds, IdsFileError> {
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(IdsFileError::Missing(self.path.clone()))
            }
            Err(source) => {
                return Err(IdsFileError::Io {
                    path: self.path.clone(),
                    source,
                })
            }
        };
        let corrupt = |reason: String| IdsFileError::Corrupt {
            path: self.path.clone(),
            reason,
        };
        let stored: Stored = serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
        if stored.format != FORMAT {
            return Err(corrupt(format!("format {:?}", stored.format)));
        }
        Ok(TakenIds {
            ids: stored.ids,
            not_before_ms: stored.not_before,
        })
    }

    /// Replaces the stored ids with `ids`, atomically.
    pub(crate) fn store(&self, ids: &TakenIds) -> Result<(), IdsFileError> {
        let io = |source| IdsFileError::Io {
            path: self.path.clone(),
            source,
        };
        let stored = Stored {
            format: FORMAT.into(),
            not_before: ids.not_before_ms,
            ids: ids.ids.clone(),
        };
        let bytes = serde_json::to_vec(&stored).map_err(|e| io(e.into()))?;
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let mut f = fs::File::create(&tmp).map_err(io)?;
        f.write_all(&bytes).map_err(io)?;
        f.sync_data().map_err(io)?;
        drop(f);
        fs::rename(&tmp, &self.path).map_err(io)?;
        if let Some(dir) = self.path.parent() {
            crate::journal::sync_dir(dir).map_err(io)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::signing::DEFAULT_WINDOW_MS;

    #[test]
    fn ids_survive_a_store_and_a_load() {
        let dir = tempfile::tempdir().unwrap();
        let file = IdsFile::new(dir.path().join("command-ids"));
        assert!(matches!(file.load(), Err(IdsFileError::Missing(_))));
        let mut ids = TakenIds::forgotten_before(500);
        ids.insert("h-1", 1_000);
        ids.insert("id with \"quotes\"\n", 2_000);
        file.store(&ids).unwrap();
        assert_eq!(file.load().unwrap(), ids);
        assert_eq!(file.load().unwrap().not_before_ms(), 500);
        assert!(!dir.path().join("command-ids.tmp").exists());
    }

    #[test]
    fn a_damaged_file_is_an_error_on_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = IdsFile::new(dir.path().join("command-ids"));
        for bad in [
            &b"{\"format\":\"other\",\"ids\":{}}"[..],
            b"\x00\x01garbage",
            b"",
        ] {
            std::fs::write(file.path(), bad).unwrap();
            let e = file.load().unwrap_err();
            assert!(matches!(e, IdsFileError::Corrupt { .. }), "{e}");
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }

    #[test]
    fn ids_older_than_the_window_are_forgotten() {
        let scope = Scope {
            tournament: "t".into(),
            board: "b".into(),
            window_ms: DEFAULT_WINDOW_MS,
            not_before_ms: 0,
        };
        let now = 10 * DEFAULT_WINDOW_MS;
        let mut ids = TakenIds::default();
        ids.insert("old", now - DEFAULT_WINDOW_MS - 1);
        ids.insert("edge", now - DEFAULT_WINDOW_MS);
        ids.insert("ahead", now + DEFAULT_WINDOW_MS);
        ids.prune(&scope, now);
        assert!(!ids.contains("old"));
        assert!(ids.contains("edge") && ids.contains("ahead"));
        assert_eq!(ids, {
            let mut kept = TakenIds::default();
            kept.insert("edge", now - DEFAULT_WINDOW_MS);
            kept.insert("ahead", now + DEFAULT_WINDOW_MS);
            kept
        });
    }
}
