//! The black box on disk: each game's frames file (`{storage.dir}/frames/{game}.frames`,
//! the format in `tengen_protocol::frames` and docs/frames-format.md), written beside the
//! journal from every scan.
//!
//! - About once a second the encoder's finished block is appended and synced
//!   (`fdatasync`): a power cut loses at most the last second of frames, never the file.
//! - Reopened after a restart, a torn tail is cut at the last whole record and a new
//!   session (header and key block) is appended.
//! - A new game starts a new file; the newest [`KEEP_GAMES`] files are kept (rotated with
//!   the game).
//! - A write that fails (a full disk) is said once in the log and the frames of that second
//!   are dropped: the black box never holds the clock or the journal up.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use tengen_hal::{Button, ButtonAction, ButtonEvent, Millis, PointState};
use tengen_protocol::frames::{FramesEncoder, FramesHeader, FramesRecord, Seen, MAGIC};
use tengen_rules::Color;

/// The folder of the frames files inside `storage.dir`.
pub const FRAMES_DIR: &str = "frames";

/// How many games' frames files are kept (some 5 MB each for four hours).
pub const KEEP_GAMES: usize = 32;

/// A classified reading as the frames file writes it.
pub fn seen_of(state: PointState) -> Seen {
    match state {
        PointState::Empty => Seen::Empty,
        PointState::Black => Seen::Black,
        PointState::White => Seen::White,
        PointState::Unknown => Seen::Unknown,
    }
}

/// The clock presses among a scan's button events.
pub fn presses_of(buttons: &[ButtonEvent]) -> Vec<Color> {
    buttons
        .iter()
        .filter(|b| b.action == ButtonAction::Press)
        .map(|b| match b.button {
            Button::Black => Color::Black,
            Button::White => Color::White,
        })
        .collect()
}

/// The file name of a game's frames: its id with anything but `[A-Za-z0-9._-]` as `_`.
pub fn file_name(game: &str) -> String {
    let clean: String = game
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let clean = clean.trim_start_matches('.');
    format!("{}.frames", if clean.is_empty() { "game" } else { clean })
}

/// Why a frames file could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum FramesReadError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The bytes are not a frames file.
    #[error("{path}: {source}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: tengen_protocol::frames::FramesError,
    },
    /// [`READS_AT_ONCE`] windows were being read for [`READ_WAIT`]: asked again later.
    #[error("the board is reading {READS_AT_ONCE} windows of its black box already: ask again")]
    Busy,
}

/// Windows of the black box read at once on a board (each holds its window's bytes and
/// decodes them, on a thread beside the scan loop); more wait their turn (issue 34: 120
/// requests at once took a board from 15 MB to 2 GB).
pub const READS_AT_ONCE: usize = 2;
/// How long a read waits for its turn before it is refused ([`FramesReadError::Busy`]).
pub const READ_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The windows being read now, and the wait for a turn.
static READING: (std::sync::Mutex<usize>, std::sync::Condvar) =
    (std::sync::Mutex::new(0), std::sync::Condvar::new());

/// A turn to read a window, given back when dropped.
struct ReadTurn;

impl ReadTurn {
    /// Waits up to [`READ_WAIT`] for one of the [`READS_AT_ONCE`] turns.
    fn take() -> Result<ReadTurn, FramesReadError> {
        let (count, freed) = &READING;
        let reading = count.lock().unwrap_or_else(|p| p.into_inner());
        let (mut reading, _) = freed
            .wait_timeout_while(reading, READ_WAIT, |n| *n >= READS_AT_ONCE)
            .unwrap_or_else(|p| p.into_inner());
        if *reading >= READS_AT_ONCE {
            return Err(FramesReadError::Busy);
        }
        *reading += 1;
        Ok(ReadTurn)
    }
}

impl Drop for ReadTurn {
    fn drop(&mut self) {
        let (count, freed) = &READING;
        let mut reading = count.lock().unwrap_or_else(|p| p.into_inner());
        *reading = reading.saturating_sub(1);
        freed.notify_one();
    }
}

/// Reads a frames file whole (a writer may be appending: its unfinished tail is left out).
pub fn read(path: &Path) -> Result<FramesRecord, FramesReadError> {
    read_with(path, FramesRecord::parse)
}

/// Reads what the window `from..=to` of a frames file needs
/// ([`FramesRecord::parse_window`]): what every reader of a window uses, so that a window
/// of a four-hour noisy game costs a minute's changes, not the game's. Only the window's
/// blocks are read from the disk ([`window_bytes`]), and at most [`READS_AT_ONCE`] windows
/// at once.
pub fn read_window(path: &Path, from: Millis, to: Millis) -> Result<FramesRecord, FramesReadError> {
    let _turn = ReadTurn::take()?;
    let io = |source| FramesReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = window_bytes(path, from, to).map_err(io)?;
    FramesRecord::parse_window(&bytes, from, to).map_err(|source| FramesReadError::Format {
        path: path.to_path_buf(),
        source,
    })
}

/// The bytes of the frames file at `path` that the window `from..=to` needs: its magic
/// and first header, then its records from the last key block at or before `from` to the
/// last block that starts at or before `to`. Each record's head (its length and the first
/// bytes of its payload) is read to find them; the other blocks are skipped on the disk,
/// unread and unchecked. A file whose records cannot be walked so (a damaged length) is
/// read whole, for [`FramesRecord::parse_window`] to deal with as it does.
pub fn window_bytes(path: &Path, from: Millis, to: Millis) -> std::io::Result<Vec<u8>> {
    use std::io::{BufReader, Read, Seek, SeekFrom};
    use tengen_protocol::frames::{record_head, RecordHead, RECORD_HEAD_LEN};
    use tengen_protocol::framing::{HEADER_LEN, MAX_PAYLOAD};

    let file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut r = BufReader::with_capacity(64 * 1024, file);
    let mut magic = [0u8; 8];
    if r.read_exact(&mut magic).is_err() || &magic != MAGIC {
        return std::fs::read(path);
    }
    // (offset, whole length, what it is)
    let mut records: Vec<(u64, u64, RecordHead)> = Vec::new();
    let mut at = MAGIC.len() as u64;
    let mut head = [0u8; HEADER_LEN + RECORD_HEAD_LEN];
    while at + HEADER_LEN as u64 <= size {
        let want = (size - at).min(head.len() as u64) as usize;
        r.read_exact(&mut head[..want])?;
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as u64;
        if len == 0 || len > MAX_PAYLOAD as u64 {
            return std::fs::read(path);
        }
        let whole = HEADER_LEN as u64 + len;
        if at + whole > size {
            break; // a torn tail, or a writer at work
        }
        let payload = &head[HEADER_LEN..want.min(HEADER_LEN + len as usize)];
        let Some(kind) = record_head(payload) else {
            return std::fs::read(path);
        };
        records.push((at, whole, kind));
        at += whole;
        r.seek(SeekFrom::Start(at))?;
    }
    let start_of = |i: usize| match records[i].2 {
        RecordHead::Block { ms, .. } => Some(ms),
        RecordHead::Header => None,
    };
    let first = (0..records.len())
        .rev()
        .find(|&i| matches!(records[i].2, RecordHead::Block { key: true, ms } if ms <= from))
        .or_else(|| (0..records.len()).find(|&i| start_of(i).is_some()));
    let mut out = MAGIC.to_vec();
    let mut take = |out: &mut Vec<u8>, from: u64, len: u64| -> std::io::Result<()> {
        r.seek(SeekFrom::Start(from))?;
        let mut buf = vec![0u8; usize::try_from(len).unwrap_or(usize::MAX)];
        r.read_exact(&mut buf)?;
        out.extend_from_slice(&buf);
        Ok(())
    };
    let header = records.iter().find(|(_, _, k)| *k == RecordHead::Header);
    let Some(first) = first else {
        // No block: the header alone.
        if let Some(&(o, len, _)) = header {
            take(&mut out, o, len)?;
        }
        return Ok(out);
    };
    let last = (first..records.len())
        .take_while(|&i| start_of(i).is_none_or(|ms| ms <= to))
        .last()
        .unwrap_or(first);
    if let Some(&(o, len, _)) = header.filter(|(o, _, _)| *o < records[first].0) {
        take(&mut out, o, len)?;
    }
    let (begin, _, _) = records[first];
    let (end_at, end_len, _) = records[last];
    take(&mut out, begin, end_at + end_len - begin)?;
    Ok(out)
}

fn read_with(
    path: &Path,
    parse: impl FnOnce(&[u8]) -> Result<FramesRecord, tengen_protocol::frames::FramesError>,
) -> Result<FramesRecord, FramesReadError> {
    let bytes = std::fs::read(path).map_err(|source| FramesReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&bytes).map_err(|source| FramesReadError::Format {
        path: path.to_path_buf(),
        source,
    })
}

/// The newest frames file in `dir` (the game being played), if any.
pub fn newest(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "frames"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
}

/// The answer to a `frames` command: the window of the game `game` (the newest file when
/// `None`) as a frames file of its own, in base64, or why not.
pub fn excerpt_answer(
    dir: &Path,
    game: Option<&str>,
    from: Millis,
    to: Millis,
    request: &str,
) -> tengen_protocol::Answer {
    use base64::Engine as _;
    let path = match game {
        Some(g) => Some(dir.join(file_name(g))),
        None => newest(dir),
    };
    let Some(path) = path.filter(|p| p.is_file()) else {
        return tengen_protocol::Answer::refused("no frames for this game on this board");
    };
    // From just before `from`: the excerpt starts with the board then.
    match read_window(&path, from.saturating_sub(1), to) {
        Ok(record) => {
            let bytes = record.excerpt(from, to, Some(request));
            tengen_protocol::Answer::Frames(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
        Err(e) => tengen_protocol::Answer::refused(e),
    }
}

/// The game a black box writes now.
struct Open {
    game: String,
    start_ms: Millis,
    path: PathBuf,
    file: File,
    encoder: FramesEncoder,
}

/// Every scan of the current game, into its frames file.
pub struct BlackBox {
    dir: PathBuf,
    open: Option<Open>,
    /// A write failed and was said; said again only after one succeeds.
    failed: bool,
    seen: Vec<Seen>,
}

impl std::fmt::Debug for BlackBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlackBox")
            .field("dir", &self.dir)
            .field("game", &self.open.as_ref().map(|o| &o.game))
            .finish()
    }
}

/// The game a scan belongs to.
pub struct GameOfScan<'a> {
    /// The board's id.
    pub board: &'a str,
    /// The game's id.
    pub game: &'a str,
    /// Lines on the board.
    pub size: u8,
    /// The game's start (ms since the Unix epoch).
    pub start_ms: Millis,
}

impl BlackBox {
    /// A black box writing into `storage_dir/frames`.
    pub fn new(storage_dir: &Path) -> BlackBox {
        BlackBox {
            dir: storage_dir.join(FRAMES_DIR),
            open: None,
            failed: false,
            seen: Vec::new(),
        }
    }

    /// The file of the game being written, if any.
    pub fn path(&self) -> Option<&Path> {
        self.open.as_ref().map(|o| o.path.as_path())
    }

    /// One scan at `now` of the game `game`: what the sensors saw and the buttons.
    pub fn scan(
        &mut self,
        game: &GameOfScan<'_>,
        now: Millis,
        states: &[PointState],
        buttons: &[ButtonEvent],
    ) {
        if states.is_empty() {
            return;
        }
        let same = self
            .open
            .as_ref()
            .is_some_and(|o| o.game == game.game && o.start_ms == game.start_ms);
        if !same {
            self.finish();
            self.open = self.open_game(game);
        }
        let Some(open) = self.open.as_mut() else {
            return;
        };
        let ms = now.saturating_sub(open.start_ms);
        self.seen.clear();
        self.seen.extend(states.iter().map(|s| seen_of(*s)));
        open.encoder.scan(ms, &self.seen, &presses_of(buttons));
        let bytes = open.encoder.take(ms);
        self.write(&bytes);
    }

    /// Writes what is pending (the board stops, or the game changes).
    pub fn finish(&mut self) {
        let bytes = match self.open.as_mut() {
            Some(open) => open.encoder.finish(),
            None => return,
        };
        self.write(&bytes);
    }

    fn write(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let Some(open) = self.open.as_mut() else {
            return;
        };
        match open
            .file
            .write_all(bytes)
            .and_then(|()| open.file.sync_data())
        {
            Ok(()) => self.failed = false,
            Err(e) => {
                if !self.failed {
                    tracing::warn!(
                        "frames {}: {e}; this second's frames are lost",
                        open.path.display()
                    );
                }
                self.failed = true;
                // Whole records only: cut what this write may have left half done.
                if let Ok(len) = open.file.metadata().map(|m| m.len()) {
                    let keep = len.saturating_sub(bytes.len() as u64);
                    let _ = open.file.set_len(keep);
                }
            }
        }
    }

    fn open_game(&mut self, game: &GameOfScan<'_>) -> Option<Open> {
        let path = self.dir.join(file_name(game.game));
        match open_file(&self.dir, &path) {
            Ok(file) => {
                rotate(&self.dir, &path);
                let header = FramesHeader::new(game.board, game.game, game.size, game.start_ms);
                Some(Open {
                    game: game.game.to_string(),
                    start_ms: game.start_ms,
                    path,
                    file,
                    encoder: FramesEncoder::new(header),
                })
            }
            Err(e) => {
                if !self.failed {
                    tracing::warn!(
                        "frames {}: {e}; this game's frames are not kept",
                        path.display()
                    );
                }
                self.failed = true;
                None
            }
        }
    }
}

impl Drop for BlackBox {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Opens (or creates) a frames file for appending, its torn tail cut.
fn open_file(dir: &Path, path: &Path) -> std::io::Result<File> {
    std::fs::create_dir_all(dir)?;
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    let bytes = std::fs::read(path)?;
    if bytes.len() < MAGIC.len() || !bytes.starts_with(MAGIC) {
        // New (or not a frames file, or a creation torn before its header): start it.
        file.set_len(0)?;
        file.write_all(MAGIC)?;
        file.sync_all()?;
        return Ok(file);
    }
    let keep = match FramesRecord::parse(&bytes) {
        Ok(record) => record.end(),
        // A header torn before it was whole: keep the magic only.
        Err(_) => MAGIC.len(),
    };
    if keep < bytes.len() {
        tracing::warn!(
            "frames {}: cut {} bytes of a torn tail",
            path.display(),
            bytes.len() - keep
        );
        file.set_len(keep as u64)?;
        file.sync_all()?;
    }
    Ok(file)
}

/// Removes the oldest frames files beyond [`KEEP_GAMES`] (never `current`).
fn rotate(dir: &Path, current: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "frames") && p != current)
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    if files.len() < KEEP_GAMES {
        return;
    }
    files.sort();
    for (_, old) in files.iter().take(files.len() + 1 - KEEP_GAMES) {
        if let Err(e) = std::fs::remove_file(old) {
            tracing::warn!("frames {}: cannot remove an old file: {e}", old.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> GameOfScan<'static> {
        GameOfScan {
            board: "b1",
            game: "r1/t1",
            size: 3,
            start_ms: 1_000_000,
        }
    }

    fn scan(bb: &mut BlackBox, t: Millis, black_at: Option<usize>, press: bool) {
        let mut states = vec![PointState::Empty; 9];
        if let Some(i) = black_at {
            states[i] = PointState::Black;
        }
        let buttons = if press {
            vec![ButtonEvent {
                time: t,
                button: Button::Black,
                action: ButtonAction::Press,
            }]
        } else {
            Vec::new()
        };
        bb.scan(&game(), 1_000_000 + t, &states, &buttons);
    }

    #[test]
    fn a_restart_and_a_torn_tail_keep_every_whole_second() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut bb = BlackBox::new(dir.path());
        for t in (0..5_000).step_by(10) {
            scan(&mut bb, t, (t >= 1_200).then_some(4), t == 1_500);
        }
        let path = bb.path().expect("open").to_path_buf();
        assert_eq!(
            path.file_name().and_then(|n| n.to_str()),
            Some("r1_t1.frames")
        );
        drop(bb);
        // A power cut tore the last write: three bytes of a record.
        let mut bytes = std::fs::read(&path).expect("read");
        let whole = bytes.len();
        bytes.extend_from_slice(&[7, 0, 0]);
        std::fs::write(&path, &bytes).expect("write");
        // The board comes back and goes on.
        let mut bb = BlackBox::new(dir.path());
        for t in (5_000..8_000).step_by(10) {
            scan(&mut bb, t, (t < 6_000).then_some(4), false);
        }
        drop(bb);
        let bytes = std::fs::read(&path).expect("read");
        assert!(bytes.len() > whole);
        let record = FramesRecord::parse(&bytes).expect("parse");
        assert_eq!(record.torn_bytes(), 0);
        assert!(record.damaged().is_empty());
        let at = |ms| record.board_at(ms).map(|b| b[4]);
        assert_eq!(at(1_000), Some(Seen::Empty));
        assert_eq!(at(1_200), Some(Seen::Black));
        assert_eq!(at(5_500), Some(Seen::Black));
        assert_eq!(at(6_000), Some(Seen::Empty));
        let lines = record.window(1_400, 1_600);
        assert!(lines
            .iter()
            .any(|l| l.ms == 1_500 && l.presses == vec!["B"]));
    }

    #[test]
    fn file_names_keep_to_safe_characters() {
        assert_eq!(file_name("r3-t07"), "r3-t07.frames");
        assert_eq!(file_name("../x y"), "_x_y.frames");
        assert_eq!(file_name(""), "game.frames");
    }

    /// A 3x3 game of `seconds` with a stone coming and going every second (a block each
    /// second, a key block each minute), restarted once at half time; its file.
    fn long_game(dir: &Path, seconds: u64) -> PathBuf {
        let mut bb = BlackBox::new(dir);
        for t in (0..seconds * 1000).step_by(250) {
            if t == seconds * 500 {
                bb = BlackBox::new(dir);
            }
            scan(&mut bb, t, Some(((t / 1000) % 9) as usize), t % 7_000 == 0);
        }
        let path = bb.path().expect("open").to_path_buf();
        drop(bb);
        path
    }

    #[test]
    fn a_window_reads_only_its_blocks_and_reads_as_the_whole_file_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = long_game(dir.path(), 1_800);
        let whole = std::fs::read(&path).expect("read");
        for (from, to) in [
            (0, 0),
            (0, 60_000),
            (600_123, 660_000),
            (899_000, 901_000),
            (1_799_000, 9_999_999),
            (5_000_000, 6_000_000),
        ] {
            let part = window_bytes(&path, from, to).expect("read");
            let mine = FramesRecord::parse_window(&part, from, to).expect("parse");
            let all = FramesRecord::parse_window(&whole, from, to).expect("parse");
            assert_eq!(
                mine.json_lines(from, to),
                all.json_lines(from, to),
                "{from}..{to}"
            );
            if to - from <= 60_000 {
                assert!(
                    part.len() * 10 < whole.len(),
                    "{from}..{to}: {} of {} bytes read",
                    part.len(),
                    whole.len()
                );
            }
        }
        let read = read_window(&path, 600_000, 660_000).expect("read");
        assert_eq!(read.header().game, "r1/t1");
    }

    #[test]
    fn windows_are_read_two_at_a_time() {
        let _one = ReadTurn::take().expect("a turn");
        let _two = ReadTurn::take().expect("a turn");
        let started = std::time::Instant::now();
        let waiting = std::thread::spawn(move || {
            let turn = ReadTurn::take();
            (turn.is_ok(), started.elapsed())
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(_one);
        let (got, after) = waiting.join().expect("the third");
        assert!(got, "a turn once one is given back");
        assert!(
            after >= std::time::Duration::from_millis(250),
            "it waited: {after:?}"
        );
    }
}
