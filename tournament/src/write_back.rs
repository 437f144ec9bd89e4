//! Results written back into the tournament file: a byte-exact edit of the `result`
//! attributes, and a file write that is atomic and keeps the previous file.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::TournamentError;
use crate::games::GameResult;
use crate::model::{ResultAt, Tournament};

impl Tournament {
    /// The same text with the `result` of round `round`'s games at the given tables set,
    /// every other byte unchanged.
    ///
    /// `results` pairs a table with its result. The text is read (so a file this crate
    /// cannot read is refused the same way), then each game's `result` value is replaced
    /// at the byte range the parser saw it at; a game without a `result` attribute gets
    /// ` result="..."` right after its last attribute. A table with no game in the round,
    /// or a table given twice, is an error and nothing is written.
    pub fn with_results(
        original_text: &str,
        round: u32,
        results: &[(u32, GameResult)],
    ) -> Result<String, TournamentError> {
        let tournament = Tournament::parse(original_text)?;
        let records = tournament.round_records(round);
        let mut seen = HashSet::with_capacity(results.len());
        let mut edits: Vec<(usize, usize, String)> = Vec::with_capacity(results.len());
        for &(table, result) in results {
            if !seen.insert(table) {
                return Err(TournamentError::DuplicateResult { round, table });
            }
            let record = records
                .iter()
                .find(|r| r.game.table == table)
                .ok_or(TournamentError::NoSuchTable { round, table })?;
            let value = result.as_opengotha();
            edits.push(match &record.result_at {
                ResultAt::Value(span) => (span.start, span.end, value.to_string()),
                ResultAt::Insert(at) => (*at, *at, format!(" result=\"{value}\"")),
            });
        }
        edits.sort_by_key(|&(start, _, _)| start);
        let mut out = String::with_capacity(original_text.len() + 32 * edits.len());
        let mut copied = 0;
        for (start, end, replacement) in edits {
            // The spans come from the parse of this very text: in order, apart, and on
            // character boundaries (they sit between ASCII quotes).
            out.push_str(original_text.get(copied..start).unwrap_or_default());
            out.push_str(&replacement);
            copied = end.max(copied);
        }
        out.push_str(original_text.get(copied..).unwrap_or_default());
        Ok(out)
    }
}

/// How many backups of a file [`write_atomically`] keeps; the oldest beyond are removed.
pub const BACKUPS_KEPT: usize = 20;

/// How old a temporary file of a write must be to be taken as left by a crash when it
/// cannot be told whether its writer still runs (no `/proc`).
const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Writes `text` to `path` atomically: a temporary file in the same directory, written
/// and synced, renamed over `path`, then the directory synced. A crash leaves either the
/// old file or the new one, never a mix.
///
/// An existing file is never lost: before the rename it is kept as `path.bak`, then (once
/// that exists) `path.1.bak`, `path.2.bak`..., each one number past the newest (a hard
/// link, so `path` itself exists at every moment; a copy where the file system has no
/// hard links). The [`BACKUPS_KEPT`] newest backups are kept and older ones removed, so a
/// file confirmed thousands of times keeps a bounded folder. A temporary file left by a
/// write that was killed (`.NAME.PID.N.tmp` of a process that no longer runs) is removed.
/// Returns the backup's path, `None` when there was no file before.
pub fn write_atomically(
    path: impl AsRef<Path>,
    text: &str,
) -> Result<Option<PathBuf>, TournamentError> {
    write(path.as_ref(), text, true)
}

/// As [`write_atomically`], without keeping the file before: for a file that is only ever
/// a companion of one that is kept (the record of who confirmed each result).
pub fn replace_atomically(path: impl AsRef<Path>, text: &str) -> Result<(), TournamentError> {
    write(path.as_ref(), text, false).map(|_| ())
}

/// Writes `text` to `path` atomically, keeping the file before when `keep`.
fn write(path: &Path, text: &str, keep: bool) -> Result<Option<PathBuf>, TournamentError> {
    let io_err = |p: &Path| {
        let p = p.to_path_buf();
        move |source| TournamentError::Io { path: p, source }
    };
    let file_name = path.file_name().ok_or_else(|| {
        io_err(path)(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a file name",
        ))
    })?;
    let file_name = file_name.to_string_lossy().into_owned();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    remove_stale_temps(&dir, &file_name);
    let (tmp_path, mut tmp) = temp_file(&dir, &file_name).map_err(io_err(&dir))?;
    let written = tmp.write_all(text.as_bytes()).and_then(|()| tmp.sync_all());
    drop(tmp);
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp_path);
        return Err(io_err(&tmp_path)(e));
    }
    let backup = match fs::symlink_metadata(path) {
        Ok(_) if !keep => None,
        Ok(_) => match keep_copy(path, &dir, &file_name) {
            Ok(b) => Some(b),
            Err(e) => {
                let _ = fs::remove_file(&tmp_path);
                return Err(io_err(path)(e));
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => {
            let _ = fs::remove_file(&tmp_path);
            return Err(io_err(path)(e));
        }
    };
    if let Err(e) = fs::rename(&tmp_path, path) {
        let _ = fs::remove_file(&tmp_path);
        return Err(io_err(path)(e));
    }
    File::open(&dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(&dir))?;
    if keep {
        prune_backups(&dir, &file_name);
    }
    Ok(backup)
}

/// A new file `.NAME.PID.N.tmp` in `dir`, never one that exists.
fn temp_file(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    for n in 0..1_000u32 {
        let candidate = dir.join(format!(".{name}.{pid}.{n}.tmp"));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => return Ok((candidate, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary file name",
    ))
}

/// Removes the temporary files of earlier writes of `name` in `dir` whose writer is gone:
/// its process id no longer runs (or, without `/proc` to tell, the file is an hour old).
/// A write still under way in another process keeps its file. Best effort: what cannot be
/// removed stays.
fn remove_stale_temps(dir: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let own = std::process::id();
    let proc_fs = Path::new("/proc/self").exists();
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| rest.split_once('.'))
            .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let stale = if proc_fs {
            pid != own && !Path::new("/proc").join(pid.to_string()).exists()
        } else {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_TEMP_AGE)
        };
        if stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The backups of `name` in `dir` by number: `NAME.bak` is 0, `NAME.N.bak` is N.
fn backups(dir: &Path, name: &str) -> Vec<(u64, PathBuf)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let file = entry.file_name().to_string_lossy().into_owned();
            let middle = file.strip_prefix(name)?.strip_suffix(".bak")?;
            let n = if middle.is_empty() {
                0
            } else {
                let digits = middle.strip_prefix('.')?;
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                digits.parse::<u64>().ok()?
            };
            Some((n, entry.path()))
        })
        .collect();
    found.sort();
    found
}

/// The backup of number `n`: `NAME.bak` for 0, else `NAME.n.bak`.
fn backup_path(dir: &Path, name: &str, n: u64) -> PathBuf {
    if n == 0 {
        dir.join(format!("{name}.bak"))
    } else {
        dir.join(format!("{name}.{n}.bak"))
    }
}

/// Keeps the current `path` as the backup one past the newest; returns it.
fn keep_copy(path: &Path, dir: &Path, name: &str) -> io::Result<PathBuf> {
    let mut next = backups(dir, name)
        .last()
        .map_or(0, |(n, _)| n.saturating_add(1));
    // Another writer may take the same number at the same moment: then the next one.
    for _ in 0..100 {
        let backup = backup_path(dir, name, next);
        match fs::hard_link(path, &backup) {
            Ok(()) => return Ok(backup),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(_) => match copy_new(path, &backup) {
                Ok(()) => return Ok(backup),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            },
        }
        next = next.saturating_add(1);
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free backup file name",
    ))
}

/// Removes the oldest backups beyond [`BACKUPS_KEPT`]. Best effort: a backup that cannot
/// be removed stays.
fn prune_backups(dir: &Path, name: &str) {
    let found = backups(dir, name);
    let extra = found.len().saturating_sub(BACKUPS_KEPT);
    for (_, old) in found.into_iter().take(extra) {
        let _ = fs::remove_file(old);
    }
}

/// Copies `from` to a new file `to` (never overwriting), synced.
fn copy_new(from: &Path, to: &Path) -> io::Result<()> {
    let mut source = File::open(from)?;
    let mut target = OpenOptions::new().write(true).create_new(true).open(to)?;
    io::copy(&mut source, &mut target)?;
    target.sync_all()
}
