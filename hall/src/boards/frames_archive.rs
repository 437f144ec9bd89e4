//! The black boxes of finished games, fetched from their boards into the archive (docs/operating.md,
//! "The black box": the round zip holds `frames/{table}.frames`).
//!
//! A board keeps the frames of its 32 latest games; an appeal may come after the round,
//! when the board is packed away. So once a game the archive holds is over, the hall asks
//! its board for the whole game, [`WINDOW_MS`] at a time with signed `frames` commands
//! (in its own name, `[hall] identity`), and keeps the answers, one after the other, as
//! `{archive}/{tournament}/{board}/{game}.frames`: each answer is a frames file of its own,
//! and its records after the first eight bytes continue the file (a new writing session
//! each, which every reader of the format takes). Written whole to a temporary file and
//! renamed, so a file there is complete. One game at a time, after the game has been over
//! for a few seconds (its board's last block written); a board that cannot answer is asked
//! again later, [`ATTEMPTS`] times.
//!
//! How far it asks is bounded by what the board journalled, not by its clock (issue 34): the
//! game's events give its length, at most [`LONGEST_MS`], and the asking stops once
//! [`EMPTY_WINDOWS`] windows in a row hold nothing after the frames' last record (a board
//! writes a key block every minute while it records). A board whose clock jumped a year
//! mid-game costs a few windows, not a quarter of a million.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tengen_protocol::frames::{FramesRecord, MAGIC};

use crate::boards::archive::{self, FramesDue, SharedArchive};
use crate::boards::command_ask::{ask_bytes, AskError};
use crate::boards::hall_state::Shared;
use crate::boards::mqtt_client::MqttLink;

/// How much of a game one command asks for (ms): two minutes of scans, well under the
/// MQTT packet limit even on a noisy board.
pub(crate) const WINDOW_MS: u64 = 120_000;
/// How often the hall looks for finished games.
const POLL: Duration = Duration::from_secs(3);
/// Scan time after a game's last event that is still fetched (ms).
const TAIL_MS: u64 = 2_000;
/// How long after the hall first sees a game over it fetches the game's frames.
const SETTLE: Duration = Duration::from_secs(3);
/// The longest game the hall fetches the frames of (ms): twelve hours.
pub(crate) const LONGEST_MS: u64 = 12 * 60 * 60 * 1000;
/// Windows in a row with no record, after the frames' last, that end the fetch (ten
/// minutes: a board's restart mid-game leaves a gap of a minute or two).
const EMPTY_WINDOWS: u32 = 5;
/// How many times a game is tried before the hall gives up on its frames.
pub(crate) const ATTEMPTS: u32 = 5;
/// How long after a failed try the next comes.
const RETRY: Duration = Duration::from_secs(60);

/// Why a game's frames were not kept.
#[derive(Debug, thiserror::Error)]
enum KeepError {
    /// The board did not give them.
    #[error(transparent)]
    Ask(#[from] AskError),
    /// What it gave does not read as one frames file.
    #[error("its frames do not read: {0}")]
    Unreadable(#[from] tengen_protocol::frames::FramesError),
    /// The file could not be written.
    #[error("{path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// Starts fetching finished games' frames into the archive, in the hall's own name (not
/// logged with the arbiters' commands).
pub(crate) fn spawn(hall: Shared, mqtt: Arc<MqttLink>, shared: SharedArchive) {
    tokio::spawn(async move {
        // Per game: tries so far and when the next may come. The first sight of a game
        // over sets its first try SETTLE later (by the hall's clock: a board's may differ).
        let mut tries: HashMap<(String, String, String), (u32, Instant)> = HashMap::new();
        loop {
            tokio::time::sleep(POLL).await;
            let due = archive::lock(&shared).frames_missing();
            let now = Instant::now();
            for game in due {
                let id = (
                    game.key.tournament.clone(),
                    game.key.board.clone(),
                    game.game.clone(),
                );
                let (n, next) = *tries.entry(id.clone()).or_insert((0, now + SETTLE));
                if n >= ATTEMPTS || now < next {
                    continue;
                }
                match keep(&hall, &mqtt, &game).await {
                    Ok(bytes) => {
                        tracing::info!(
                            "archive: the frames of {}/{} game {}: {bytes} bytes",
                            game.key.tournament,
                            game.key.board,
                            game.game
                        );
                        tries.remove(&id);
                    }
                    Err(e) => {
                        let n = n + 1;
                        tracing::warn!(
                            "archive: the frames of {}/{} game {} ({n} of {ATTEMPTS} tries): {e}",
                            game.key.tournament,
                            game.key.board,
                            game.game
                        );
                        tries.insert(id, (n, Instant::now() + RETRY));
                    }
                }
            }
        }
    });
}

/// The windows to ask for, in order, of a game whose events span `span_ms`: its length
/// and a tail, at most [`LONGEST_MS`].
fn windows(span_ms: u64) -> impl Iterator<Item = (u64, u64)> {
    let end = span_ms.saturating_add(TAIL_MS).min(LONGEST_MS);
    (0..=end)
        .step_by(usize::try_from(WINDOW_MS).unwrap_or(usize::MAX))
        .map(move |from| (from, (from + WINDOW_MS - 1).min(end)))
}

/// Whether the windows asked so far (`seen`: whether each held a record) show the frames
/// have ended: [`EMPTY_WINDOWS`] empty ones in a row after one that was not.
fn frames_ended(seen: &[bool]) -> bool {
    let empty_run = seen.iter().rev().take_while(|s| !**s).count();
    empty_run >= EMPTY_WINDOWS as usize && seen.iter().any(|s| *s)
}

/// Fetches the whole of `game` from its board and writes it; the file's size.
async fn keep(hall: &Shared, mqtt: &MqttLink, game: &FramesDue) -> Result<usize, KeepError> {
    let mut file = Vec::new();
    let mut seen = Vec::new();
    for (from, to) in windows(game.last_time.since(game.started)) {
        let part = ask_bytes(
            hall,
            mqtt,
            &game.key,
            None,
            from,
            to,
            Some(game.game.clone()),
        )
        .await?;
        seen.push(FramesRecord::parse(&part).is_ok_and(|r| r.span().is_some()));
        let body = if file.is_empty() {
            &part[..]
        } else {
            part.strip_prefix(&MAGIC[..]).unwrap_or(&part[..])
        };
        file.extend_from_slice(body);
        if frames_ended(&seen) {
            break;
        }
    }
    FramesRecord::parse(&file)?;
    write_whole(&game.path, &file).map_err(|source| KeepError::Write {
        path: game.path.display().to_string(),
        source,
    })?;
    Ok(file.len())
}

/// Writes `bytes` to a temporary file beside `path`, syncs it and renames it to `path`.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("frames.tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_windows_cover_the_game_and_are_bounded_whatever_its_clock_says() {
        let w: Vec<(u64, u64)> = windows(300_000).collect();
        assert_eq!(
            w,
            [(0, 119_999), (120_000, 239_999), (240_000, 302_000)],
            "five minutes and the tail"
        );
        assert_eq!(windows(0).collect::<Vec<_>>(), [(0, TAIL_MS)]);
        // A board whose clock jumped a year: twelve hours at most (361 windows, the last
        // of a single millisecond).
        let year = 365 * 24 * 3600 * 1000;
        assert_eq!(windows(year).count(), 361);
        assert_eq!(windows(year).last().map(|(_, to)| to), Some(LONGEST_MS));
    }

    #[test]
    fn the_fetch_ends_after_ten_minutes_of_nothing_past_the_frames() {
        assert!(
            !frames_ended(&[false; 8]),
            "nothing yet: the record may start late"
        );
        assert!(!frames_ended(&[true, true, false, false, false, false]));
        assert!(frames_ended(&[
            true, true, false, false, false, false, false
        ]));
        assert!(!frames_ended(&[true, false, false, true, false]));
    }
}
