//! A round's zip as the public has it, `/round/{round}.zip` and the static export's
//! `round/{round}.zip`: its games' records as [`super::round_games`] finds them. The zip an
//! arbiter downloads is built here too, with what only arbiters see added by the caller
//! (each game's black box the archive holds is added here; the incident logs by the
//! console's routes).

use std::collections::BTreeMap;
use std::io::Write;

use crate::boards::archive;
use crate::public::round_games::{games_of, sanitize, zip_record, RoundGame};
use crate::public::Sources;

/// What the arbiters' zip holds beyond the public's: files to add for a game (its incident
/// log), by name in the zip.
pub(crate) type ArbitersFiles<'a> = &'a dyn Fn(&RoundGame) -> Vec<(String, Vec<u8>)>;

/// The zip of round `round`'s records (`/round/{round}.zip`); `None` when the hall has no
/// game of that round. With `arbiters` (an arbiter asks), the void games go in too (marked
/// `-void`), each game's confirmed result at once, each game's black box the archive holds
/// as `frames/{table}.frames` (`frames/{board}.frames` for a game without a table), and
/// the files `arbiters` gives for each game.
pub(crate) fn round_zip_bytes(
    src: &Sources,
    round: &str,
    arbiters: Option<ArbitersFiles<'_>>,
) -> Option<Result<Vec<u8>, zip::result::ZipError>> {
    let frames = arbiters.is_some();
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for g in games_of(src, Some(round), true, frames) {
        let name = if g.voided {
            g.name.replacen(".sgf", "-void.sgf", 1)
        } else {
            g.name.clone()
        };
        if g.sgf.trim().is_empty() || files.contains_key(&name) {
            continue;
        }
        // A confirmation goes public with the game's end, not ahead of the delay (issue 34);
        // the arbiters' zip has it at once.
        let confirmed = src
            .tournament
            .as_ref()
            .filter(|_| g.over || frames)
            .and_then(|link| {
                let link = link.lock().unwrap_or_else(|p| p.into_inner());
                link.confirmed_for(&g.key, &g.game)
            });
        let (sgf, _) = zip_record(&g.sgf, &g.key, confirmed.filter(|_| !g.voided));
        if let Some(more) = arbiters {
            if let Some((name, bytes)) = archived_frames(src, &g) {
                files.insert(name, bytes);
            }
            files.extend(more(&g));
        }
        files.insert(name, sgf.into_bytes());
    }
    (!files.is_empty()).then(|| zip_games(&files))
}

/// A game's black box as the archive holds it, with its name in the zip.
fn archived_frames(src: &Sources, g: &RoundGame) -> Option<(String, Vec<u8>)> {
    let shared = src.archive.as_ref()?;
    let (path, table) = {
        let a = archive::lock(shared);
        (
            a.frames_path(&g.key, &g.game).ok()?,
            a.table(&g.key, &g.game),
        )
    };
    let bytes = std::fs::read(path).ok()?;
    let name = table
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| g.key.board.clone());
    Some((format!("frames/{}.frames", sanitize(&name)), bytes))
}

/// The files as one zip archive (deflated), one entry per name.
fn zip_games(files: &BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>, zip::result::ZipError> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        w.start_file(name.as_str(), options)?;
        w.write_all(bytes)?;
    }
    Ok(w.finish()?.into_inner())
}
