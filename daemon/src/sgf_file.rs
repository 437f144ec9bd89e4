//! The game record on disk, rewritten atomically after each move: the new text goes to a
//! temporary file in the same directory, is synced, renamed over the old file, and the
//! directory is synced. A power cut at any moment leaves either the old record or the new
//! one, never a mix or an empty file.

use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why the record could not be written.
#[derive(Debug, Error)]
#[error("{path}: {action}: {source}")]
pub(crate) struct SgfFileError {
    /// The file being written.
    pub path: PathBuf,
    /// The step that failed (`create temporary file`, `sync`, `rename`...).
    pub action: &'static str,
    /// The OS error.
    pub source: std::io::Error,
}

/// Replaces the contents of `path` with `text`, atomically and durably.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<(), SgfFileError> {
    let fail = |action: &'static str| {
        move |source: std::io::Error| SgfFileError {
            path: path.to_path_buf(),
            action,
            source,
        }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".tengen-sgf-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(fail("create temporary file"))?;
    tmp.write_all(text.as_bytes()).map_err(fail("write"))?;
    tmp.as_file().sync_all().map_err(fail("sync"))?;
    tmp.persist(path).map_err(|e| fail("rename")(e.error))?;
    crate::journal::sync_dir(dir).map_err(fail("sync directory"))?;
    Ok(())
}

/// The record of the board's current game: `{storage.dir}/game-{game id}.sgf`, one file
/// per game, so finished games stay next to the journal. Commands and the config let only
/// `[a-z0-9-]{1,64}` through; a game id from an older journal that is not one has every
/// other character written as `-` (and is cut to 64), so the file stays in `dir`.
pub(crate) fn path_for(dir: &Path, game: &str) -> PathBuf {
    let safe: String = game
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(tengen_protocol::command::MAX_GAME_ID)
        .collect();
    dir.join(format!("game-{safe}.sgf"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_leave_only_the_last_text_and_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_for(dir.path(), "r1-t3");
        write_atomic(&path, "(;GM[1]SZ[19])").unwrap();
        write_atomic(&path, "(;GM[1]SZ[19];B[pd])").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "(;GM[1]SZ[19];B[pd])"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["game-r1-t3.sgf".to_string()]);
    }

    #[test]
    fn a_game_id_that_is_not_one_stays_in_the_directory() {
        let dir = Path::new("/var/lib/tengen");
        assert_eq!(
            path_for(dir, "r3-t07"),
            dir.join("game-r3-t07.sgf"),
            "a valid id is kept"
        );
        assert_eq!(
            path_for(dir, "../../etc/Cron.d"),
            dir.join("game-------etc--ron-d.sgf")
        );
        let long = path_for(dir, &"a".repeat(300));
        assert_eq!(long, dir.join(format!("game-{}.sgf", "a".repeat(64))));
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nope").join("game.sgf");
        let err = write_atomic(&path, "x").unwrap_err();
        assert!(err.to_string().contains("game.sgf"), "{err}");
    }
}
