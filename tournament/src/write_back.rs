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

/// Writes `text` to `path` atomically: a temporary file in the same directory, written
/// and synced, renamed over `path`, then the directory synced. A crash leaves either the
/// old file or the new one, never a mix.
///
/// An existing file is never lost: before the rename it is kept as `path.bak`, or, when
/// that exists, the first free of `path.1.bak`, `path.2.bak`... (a hard link, so `path`
/// itself exists at every moment; a copy where the file system has no hard links).
/// Returns the backup's path, `None` when there was no file before.
pub fn write_atomically(
    path: impl AsRef<Path>,
    text: &str,
) -> Result<Option<PathBuf>, TournamentError> {
    let path = path.as_ref();
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
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (tmp_path, mut tmp) =
        temp_file(&dir, &file_name.to_string_lossy()).map_err(io_err(&dir))?;
    let written = tmp.write_all(text.as_bytes()).and_then(|()| tmp.sync_all());
    drop(tmp);
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp_path);
        return Err(io_err(&tmp_path)(e));
    }
    let backup = match fs::symlink_metadata(path) {
        Ok(_) => match keep_copy(path) {
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
    Ok(backup)
}

/// A new file `.NAME.PID.N.tmp` in `dir`, never one that exists.
fn temp_file(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    for n in 0..10_000u32 {
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

/// Keeps the current `path` as the first free `path.bak`, `path.1.bak`...; returns it.
fn keep_copy(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for n in 0..10_000u32 {
        let backup = if n == 0 {
            path.with_file_name(format!("{name}.bak"))
        } else {
            path.with_file_name(format!("{name}.{n}.bak"))
        };
        match fs::hard_link(path, &backup) {
            Ok(()) => return Ok(backup),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(_) => match copy_new(path, &backup) {
                Ok(()) => return Ok(backup),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            },
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free backup file name",
    ))
}

/// Copies `from` to a new file `to` (never overwriting), synced.
fn copy_new(from: &Path, to: &Path) -> io::Result<()> {
    let mut source = File::open(from)?;
    let mut target = OpenOptions::new().write(true).create_new(true).open(to)?;
    io::copy(&mut source, &mut target)?;
    target.sync_all()
}
