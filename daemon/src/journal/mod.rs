//! The journal: every event of a board, appended to one file and synced to the disk before
//! anyone publishes it, so no event is lost to a power cut, a crash or a broker outage.
//!
//! Layout: one file per board, `{storage.dir}/events.journal`, holding every event of every
//! game the board has played (`seq` runs across games and restarts, as the wire contract wants; a
//! game is about 110 kB, so there is no rotation — archive the file between tournaments
//! with the service stopped, and the next event starts again at seq 1). The file starts
//! with [`MAGIC`], then one record per event (see [`framing`]): its JSON is the
//! [`Envelope`] exactly as published.
//!
//! Recovery on [`Journal::open`]: the records are read and checked in order. A tail that
//! is not a whole record (a write torn by a power cut, or zeros the file system left) is
//! cut off and reported in the [`Recovery`]. A damaged record FOLLOWED by good ones is
//! not a torn write but real corruption: the journal refuses to open
//! ([`JournalError::Corrupt`]) rather than drop events that were already published.
//!
//! A full disk ([`Journal::record`]): a write that fails for lack of space is taken back
//! (the file is cut to its last whole record), and the event is numbered and held in
//! memory, as is every event after it, in order, up to [`HELD_MAX_BYTES`]; beyond that
//! events are dropped, not numbered (so no `seq` is ever missing), and counted
//! ([`DroppedRun`]). [`Journal::flush`] writes the held records when there is space again;
//! only then do readers (the MQTT publisher) see them. The file stays what it always is:
//! whole records, in `seq` order.

mod held;

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Deserialize;
use tengen_protocol::{Envelope, Event, Timestamp};
use thiserror::Error;

pub use held::{DroppedRun, HELD_MAX_BYTES};
use held::{Held, HeldRecord};
use tengen_protocol::framing::{self, Decoded};

/// The first bytes of every journal file: the format's name and version.
pub const MAGIC: &[u8; 8] = b"TGNJRNL1";

/// The journal's file name inside `storage.dir`.
pub const FILE_NAME: &str = "events.journal";

/// Why the journal could not be opened, read or appended to.
#[derive(Debug, Error)]
pub enum JournalError {
    /// A file system operation failed.
    #[error("journal {path}: {action}: {source}")]
    Io {
        /// The journal file (or its directory).
        path: PathBuf,
        /// What was being done (`sync`, `open`...).
        action: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file does not start with the journal's magic bytes.
    #[error("journal {path}: not a tengen journal (bad header)")]
    NotAJournal {
        /// The file.
        path: PathBuf,
    },
    /// A damaged record with good records after it, or a whole record that is not an
    /// event in sequence: not a torn tail, so nothing is cut off.
    #[error("journal {path}: corrupt record at byte {offset}: {detail}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the damaged record.
        offset: u64,
        /// What is wrong with it.
        detail: String,
    },
    /// An event whose record would be larger than the reader accepts
    /// ([`framing::MAX_PAYLOAD`]): refused on append, nothing written, so the journal stays
    /// readable at the next start.
    #[error("journal {path}: event {seq} is {len} bytes; a record holds at most {max}")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The seq the event would have had.
        seq: u64,
        /// The event's JSON length in bytes.
        len: usize,
        /// [`framing::MAX_PAYLOAD`].
        max: usize,
    },
    /// An earlier write or sync failed, so the file's tail is in doubt; reopen the journal
    /// (recovery cuts off whatever was not written whole).
    #[error("journal {path}: an earlier write failed; reopen to recover")]
    Poisoned {
        /// The file.
        path: PathBuf,
    },
    /// [`Journal::append`] while events wait in memory for space ([`Journal::record`]
    /// held them): writing now would put this one before them.
    #[error("journal {path}: {held} events wait in memory for disk space; flush them first")]
    Behind {
        /// The file.
        path: PathBuf,
        /// How many wait.
        held: usize,
    },
}

impl JournalError {
    /// True when the file system had no space (or quota) left for a write.
    pub fn is_out_of_space(&self) -> bool {
        matches!(self, JournalError::Io { source, .. } if out_of_space(source))
    }
}

/// True for the errors of a full file system or an exhausted quota.
pub fn out_of_space(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

/// What became of an event given to [`Journal::record`].
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    /// Written and synced: it may be published.
    Written(Envelope),
    /// The disk is full: numbered and held in memory, to be written by [`Journal::flush`]
    /// in order; not yet to be published.
    Held(Envelope),
    /// The disk is full and [`HELD_MAX_BYTES`] are held already: never written. Its `seq`
    /// is 0: it was not numbered.
    Dropped(Envelope),
}

/// What [`Journal::open`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// True when the file did not exist (or held only a torn header) and was created.
    pub created: bool,
    /// Whole records read.
    pub records: u64,
    /// The last record's seq (0 when empty).
    pub last_seq: u64,
    /// Bytes of a torn tail that were cut off (0 when the file ended cleanly).
    pub truncated_bytes: u64,
    /// Where the cut was made, when one was.
    pub truncated_at: Option<u64>,
    /// The time of the last record (`None` when empty).
    pub last_time: Option<Timestamp>,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.created {
            return write!(f, "new journal");
        }
        write!(f, "{} records, last seq {}", self.records, self.last_seq)?;
        if let Some(at) = self.truncated_at {
            write!(
                f,
                "; cut off a torn tail of {} bytes at byte {at}",
                self.truncated_bytes
            )?;
        }
        Ok(())
    }
}

/// Where each whole record lies: shared by the writer and its readers, and updated only
/// after a record is synced.
#[derive(Debug, Default)]
struct Index {
    /// Seq of the first record in the file (1 for a board's first journal).
    first_seq: u64,
    /// Byte offset of each record, `offsets[seq - first_seq]`.
    offsets: Vec<u64>,
    /// End of the last whole record.
    end: u64,
    /// Seq of the last `game_started`, if any.
    last_game_start: Option<u64>,
    /// Time of the last record.
    last_time: Option<Timestamp>,
}

impl Index {
    fn last_seq(&self) -> u64 {
        if self.offsets.is_empty() {
            self.first_seq.saturating_sub(1)
        } else {
            self.first_seq + self.offsets.len() as u64 - 1
        }
    }
}

/// The writer of a board's journal. One per file: the service owns it.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    board: String,
    game: String,
    /// The `by` written into new envelopes (set while a command's events are appended).
    by: Option<String>,
    index: Arc<Mutex<Index>>,
    poisoned: bool,
    /// Events waiting in memory for space.
    held: Held,
    /// The file was created on a full disk: its header goes in front of the first record.
    header_pending: bool,
}

/// Reads a journal while its writer appends: sees exactly the records already synced.
/// Cheap to clone and `Send`, for the MQTT outbox and the HTTP view.
#[derive(Debug, Clone)]
pub struct JournalReader {
    path: PathBuf,
    index: Arc<Mutex<Index>>,
}

fn io<'a>(
    path: &'a Path,
    action: &'static str,
) -> impl FnOnce(std::io::Error) -> JournalError + 'a {
    move |source| JournalError::Io {
        path: path.to_path_buf(),
        action,
        source,
    }
}

fn lock(index: &Mutex<Index>) -> MutexGuard<'_, Index> {
    // A panic while holding the lock cannot leave the index half-updated (every update
    // is a single push or assignment), so a poisoned lock is still usable.
    index.lock().unwrap_or_else(|p| p.into_inner())
}

/// Syncs a directory so that a file created or renamed in it survives a power cut.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Syncs the directory holding `path` (a journal just created).
fn sync_parent(path: &Path) -> Result<(), JournalError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    sync_dir(dir).map_err(io(dir, "sync directory"))
}

fn is_start(envelope: &Envelope) -> bool {
    matches!(envelope.event, Event::GameStarted(_))
}

impl Journal {
    /// Opens (or creates) `dir/events.journal` for board `board`, recovering from a torn
    /// tail as the module documentation says.
    pub fn open(dir: &Path, board: &str) -> Result<(Journal, Recovery), JournalError> {
        std::fs::create_dir_all(dir).map_err(io(dir, "create directory"))?;
        Journal::open_file(&dir.join(FILE_NAME), board)
    }

    /// Opens (or creates) the journal at exactly `path`.
    pub fn open_file(path: &Path, board: &str) -> Result<(Journal, Recovery), JournalError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io(path, "open"))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io(path, "read"))?;
        let mut recovery = Recovery {
            created: false,
            records: 0,
            last_seq: 0,
            truncated_bytes: 0,
            truncated_at: None,
            last_time: None,
        };
        let mut header_pending = false;
        if bytes.len() < MAGIC.len() && MAGIC.starts_with(&bytes) {
            // New, or a creation torn before the header was whole.
            file.set_len(0).map_err(io(path, "truncate"))?;
            match file.write_all(MAGIC).and_then(|()| file.sync_all()) {
                Ok(()) => sync_parent(path)?,
                Err(e) if out_of_space(&e) => {
                    // Created on a full disk: the header goes with the first record.
                    file.set_len(0).map_err(io(path, "truncate"))?;
                    header_pending = true;
                }
                Err(e) => return Err(io(path, "write")(e)),
            }
            bytes = MAGIC.to_vec();
            recovery.created = true;
        }
        if !bytes.starts_with(MAGIC) {
            return Err(JournalError::NotAJournal {
                path: path.to_path_buf(),
            });
        }
        let mut index = Index {
            first_seq: 1,
            end: MAGIC.len() as u64,
            ..Index::default()
        };
        // (the last record's time is filled in after the scan below)
        let mut game = String::new();
        let mut last_time = None;
        let mut offset = MAGIC.len();
        while offset < bytes.len() {
            match framing::decode(&bytes[offset..]) {
                Decoded::Record(payload, len) => {
                    let env = parse_header(payload).map_err(|e| JournalError::Corrupt {
                        path: path.to_path_buf(),
                        offset: offset as u64,
                        detail: format!("not an event: {e}"),
                    })?;
                    if index.offsets.is_empty() {
                        index.first_seq = env.seq.max(1);
                    }
                    let expected = index.last_seq() + 1;
                    if env.seq != expected {
                        return Err(JournalError::Corrupt {
                            path: path.to_path_buf(),
                            offset: offset as u64,
                            detail: format!("seq {} where {expected} was expected", env.seq),
                        });
                    }
                    if env.kind == "game_started" {
                        index.last_game_start = Some(env.seq);
                    }
                    index.offsets.push(offset as u64);
                    offset += len;
                    index.end = offset as u64;
                    game = env.game;
                    last_time = env.time.or(last_time);
                }
                Decoded::Incomplete | Decoded::Bad => {
                    if let Some(good) = whole_record_after(&bytes, offset + 1) {
                        return Err(JournalError::Corrupt {
                            path: path.to_path_buf(),
                            offset: offset as u64,
                            detail: format!("damaged record followed by a good one at byte {good}"),
                        });
                    }
                    recovery.truncated_at = Some(offset as u64);
                    recovery.truncated_bytes = (bytes.len() - offset) as u64;
                    file.set_len(offset as u64).map_err(io(path, "truncate"))?;
                    file.sync_all().map_err(io(path, "sync"))?;
                    break;
                }
            }
        }
        file.seek(SeekFrom::End(0)).map_err(io(path, "seek"))?;
        index.last_time = last_time;
        recovery.records = index.offsets.len() as u64;
        recovery.last_seq = index.last_seq();
        recovery.last_time = last_time;
        Ok((
            Journal {
                path: path.to_path_buf(),
                file,
                board: board.to_string(),
                game,
                by: None,
                index: Arc::new(Mutex::new(index)),
                poisoned: false,
                held: Held::default(),
                header_pending,
            },
            recovery,
        ))
    }

    /// Appends one event with the next seq and `time` (UTC, written with milliseconds),
    /// and syncs it to the disk before returning the envelope (publish only after). An
    /// event over [`framing::MAX_PAYLOAD`] bytes of JSON is refused
    /// ([`JournalError::TooLarge`]) and nothing is written: the reader would refuse it. A
    /// full disk is an error here, with nothing written; [`Journal::record`] holds the event
    /// instead. Refused while [`Journal::record`] holds events ([`JournalError::Behind`]).
    pub fn append(&mut self, event: Event, time: Timestamp) -> Result<Envelope, JournalError> {
        if !self.held.is_empty() {
            return Err(JournalError::Behind {
                path: self.path.clone(),
                held: self.held.len(),
            });
        }
        let (envelope, bytes) = self.frame(event, time)?;
        self.write_synced(&bytes)?;
        self.indexed([(
            bytes.len(),
            envelope.seq,
            envelope.time,
            is_start(&envelope),
        )]);
        Ok(envelope)
    }

    /// Records one event as [`Journal::append`] does, except on a full disk: the event is
    /// then numbered and held in memory ([`Recorded::Held`]), and so is every event after
    /// it until [`Journal::flush`] has written them all, in order; beyond
    /// [`HELD_MAX_BYTES`] held it is dropped ([`Recorded::Dropped`]). Any other failure
    /// is an error, as with [`Journal::append`].
    pub fn record(&mut self, event: Event, time: Timestamp) -> Result<Recorded, JournalError> {
        let (mut envelope, bytes) = self.frame(event, time)?;
        if self.held.is_empty() {
            match self.write_synced(&bytes) {
                Ok(()) => {
                    self.indexed([(
                        bytes.len(),
                        envelope.seq,
                        envelope.time,
                        is_start(&envelope),
                    )]);
                    return Ok(Recorded::Written(envelope));
                }
                Err(e) if e.is_out_of_space() && !self.poisoned => {}
                Err(e) => return Err(e),
            }
        }
        let held = self.held.push(HeldRecord {
            seq: envelope.seq,
            bytes,
            time: envelope.time,
            game_start: is_start(&envelope),
        });
        if held {
            Ok(Recorded::Held(envelope))
        } else {
            envelope.seq = 0;
            Ok(Recorded::Dropped(envelope))
        }
    }

    /// Writes the oldest held records, as many as fit in `max_bytes` (at least one), with
    /// one write and one sync, and returns their envelopes (now for the readers, so to be
    /// published). Nothing when nothing is held, or when the disk is still full (the
    /// records stay held; the file is cut back to its last whole record).
    pub fn flush(&mut self, max_bytes: usize) -> Result<Vec<Envelope>, JournalError> {
        if self.held.is_empty() {
            return Ok(Vec::new());
        }
        if self.poisoned {
            return Err(JournalError::Poisoned {
                path: self.path.clone(),
            });
        }
        let mut chunk = Vec::new();
        let mut entries = Vec::new();
        for r in self.held.front(max_bytes) {
            entries.push((chunk.len(), r.bytes.len(), r.seq, r.time, r.game_start));
            chunk.extend_from_slice(&r.bytes);
        }
        match self.write_synced(&chunk) {
            Ok(()) => {}
            Err(e) if e.is_out_of_space() && !self.poisoned => return Ok(Vec::new()),
            Err(e) => return Err(e),
        }
        self.indexed(
            entries
                .iter()
                .map(|&(_, len, seq, time, start)| (len, seq, time, start)),
        );
        self.held.pop_front(entries.len());
        let mut written = Vec::with_capacity(entries.len());
        for &(at, len, seq, ..) in &entries {
            let record = &chunk[at..at + len];
            match serde_json::from_slice(&record[framing::HEADER_LEN..]) {
                Ok(envelope) => written.push(envelope),
                Err(e) => tracing::warn!("journal {}: event {seq}: {e}", self.path.display()),
            }
        }
        Ok(written)
    }

    /// Events waiting in memory for space.
    pub fn held_events(&self) -> usize {
        self.held.len()
    }

    /// Bytes of the records waiting in memory.
    pub fn held_bytes(&self) -> usize {
        self.held.bytes()
    }

    /// The events dropped since the disk filled (held ones still waiting).
    pub fn dropped(&self) -> Option<DroppedRun> {
        self.held.dropped()
    }

    /// Once every held event is written: the events dropped meanwhile, said once.
    pub fn take_dropped(&mut self) -> Option<DroppedRun> {
        self.held.take_dropped()
    }

    /// The seq the next event gets (after those held).
    pub fn next_seq(&self) -> u64 {
        self.last_seq() + self.held.len() as u64 + 1
    }

    /// The next envelope (`seq` after those held) and its framed record.
    fn frame(&self, event: Event, time: Timestamp) -> Result<(Envelope, Vec<u8>), JournalError> {
        if self.poisoned {
            return Err(JournalError::Poisoned {
                path: self.path.clone(),
            });
        }
        let seq = self.next_seq();
        let envelope = Envelope {
            seq,
            time,
            board: self.board.clone(),
            game: self.game.clone(),
            by: self.by.clone(),
            event,
        };
        let payload = serde_json::to_vec(&envelope).map_err(|e| JournalError::Corrupt {
            path: self.path.clone(),
            offset: lock(&self.index).end,
            detail: format!("event not serialisable: {e}"),
        })?;
        if payload.len() > framing::MAX_PAYLOAD {
            return Err(JournalError::TooLarge {
                path: self.path.clone(),
                seq,
                len: payload.len(),
                max: framing::MAX_PAYLOAD,
            });
        }
        Ok((envelope, framing::encode(&payload)))
    }

    /// Writes `bytes` (whole records) at the end and syncs them. On failure the file is cut
    /// back to its last whole record; when even that fails, or a sync failed for another
    /// reason than space, the journal is poisoned (its tail is in doubt until a reopen).
    fn write_synced(&mut self, bytes: &[u8]) -> Result<(), JournalError> {
        let end = lock(&self.index).end;
        let with_header;
        let (data, keep) = if self.header_pending {
            with_header = [MAGIC.as_slice(), bytes].concat();
            (with_header.as_slice(), 0)
        } else {
            (bytes, end)
        };
        let fail = |action, source| JournalError::Io {
            path: self.path.clone(),
            action,
            source,
        };
        if let Err(source) = self.file.write_all(data) {
            // Take back a partial write so the next record does not follow garbage.
            if self.file.set_len(keep).is_err() {
                self.poisoned = true;
            }
            return Err(fail("write", source));
        }
        if let Err(source) = self.file.sync_data() {
            // After a failed fsync the kernel may have dropped the pages: the tail is in
            // doubt. Out of space (a file system that allocates at sync), cutting the file
            // back to what was synced before puts it right.
            if !out_of_space(&source) || self.file.set_len(keep).is_err() {
                self.poisoned = true;
            }
            return Err(fail("sync", source));
        }
        if self.header_pending {
            self.header_pending = false;
            sync_parent(&self.path)?;
        }
        Ok(())
    }

    /// The records just written at the end (each its length in bytes, seq, time, and
    /// whether it is a `game_started`) become visible to readers.
    fn indexed(&mut self, records: impl IntoIterator<Item = (usize, u64, Timestamp, bool)>) {
        let mut index = lock(&self.index);
        for (len, seq, time, game_start) in records {
            let at = index.end;
            index.offsets.push(at);
            index.end = at + len as u64;
            if game_start {
                index.last_game_start = Some(seq);
            }
            index.last_time = Some(time);
        }
    }

    /// The seq of the last event written (0 when none).
    pub fn last_seq(&self) -> u64 {
        lock(&self.index).last_seq()
    }

    /// The board id written into every envelope.
    pub fn board(&self) -> &str {
        &self.board
    }

    /// The game id written into new envelopes (the last record's after a restart; empty
    /// in a new journal until [`Journal::set_game`]).
    pub fn game(&self) -> &str {
        &self.game
    }

    /// Sets who causes the events that follow (an arbiter command's `by`; `None` after).
    pub fn set_by(&mut self, by: Option<String>) {
        self.by = by;
    }

    /// Sets the game id for the events that follow (a new game).
    pub fn set_game(&mut self, game: &str) {
        self.game = game.to_string();
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A reader that follows this journal from other threads or tasks.
    pub fn reader(&self) -> JournalReader {
        JournalReader {
            path: self.path.clone(),
            index: Arc::clone(&self.index),
        }
    }

    /// Every event with `seq >= from` (for re-sending), oldest first.
    pub fn read_from(&self, from: u64) -> Result<Vec<Envelope>, JournalError> {
        self.reader().read_from(from)
    }

    /// The events of the current game: from its last `game_started` on (every event when
    /// there is none yet), to rebuild the game after a restart.
    pub fn current_game(&self) -> Result<Vec<Envelope>, JournalError> {
        self.reader().current_game()
    }
}

impl JournalReader {
    /// The seq of the last event synced (0 when none).
    pub fn last_seq(&self) -> u64 {
        lock(&self.index).last_seq()
    }

    /// Every synced event with `seq >= from`, oldest first. A record that is whole but
    /// not an event this build can read (written by a newer tengen) is left out, with a
    /// warning: the raw records ([`JournalReader::read_raw_from`]) still have it.
    pub fn read_from(&self, from: u64) -> Result<Vec<Envelope>, JournalError> {
        Ok(self
            .read_raw_from(from)?
            .into_iter()
            .filter_map(|(seq, payload)| match serde_json::from_slice(&payload) {
                Ok(e) => Some(e),
                Err(e) => {
                    tracing::warn!("journal {}: event {seq} left out: {e}", self.path.display());
                    None
                }
            })
            .collect())
    }

    /// The time of the last event synced (`None` when none).
    pub fn last_time(&self) -> Option<Timestamp> {
        lock(&self.index).last_time
    }

    /// Every synced record with `seq >= from` as it is on disk (seq, the event's JSON),
    /// oldest first: what MQTT publishes, byte for byte.
    pub fn read_raw_from(&self, from: u64) -> Result<Vec<(u64, Vec<u8>)>, JournalError> {
        self.read_raw(from, usize::MAX)
    }

    /// As [`JournalReader::read_raw_from`], at most `max` records (only those are read from
    /// the disk).
    pub fn read_raw(&self, from: u64, max: usize) -> Result<Vec<(u64, Vec<u8>)>, JournalError> {
        let (start, end) = {
            let index = lock(&self.index);
            if from > index.last_seq() || index.offsets.is_empty() || max == 0 {
                return Ok(Vec::new());
            }
            let i = from.saturating_sub(index.first_seq) as usize;
            let end = index
                .offsets
                .get(i.saturating_add(max))
                .copied()
                .unwrap_or(index.end);
            (index.offsets[i], end)
        };
        let mut file = File::open(&self.path).map_err(io(&self.path, "open"))?;
        file.seek(SeekFrom::Start(start))
            .map_err(io(&self.path, "seek"))?;
        let mut bytes = vec![0; (end - start) as usize];
        file.read_exact(&mut bytes)
            .map_err(io(&self.path, "read"))?;
        let mut out = Vec::new();
        let mut offset = 0;
        while offset < bytes.len() {
            let corrupt = |detail: String| JournalError::Corrupt {
                path: self.path.clone(),
                offset: start + offset as u64,
                detail,
            };
            match framing::decode(&bytes[offset..]) {
                Decoded::Record(payload, len) => {
                    let header =
                        parse_header(payload).map_err(|e| corrupt(format!("not an event: {e}")))?;
                    out.push((header.seq, payload.to_vec()));
                    offset += len;
                }
                _ => {
                    return Err(corrupt(
                        "record changed on disk since it was written".into(),
                    ))
                }
            }
        }
        Ok(out)
    }

    /// The events from the last `game_started` on (every event when there is none).
    pub fn current_game(&self) -> Result<Vec<Envelope>, JournalError> {
        let from = {
            let index = lock(&self.index);
            index.last_game_start.unwrap_or(index.first_seq)
        };
        self.read_from(from)
    }
}

/// What the journal itself reads of each record: its seq, type, game and time. The rest
/// of the event is for its readers; a record this build cannot read as an event is still
/// a record (the journal never becomes unreadable for it).
#[derive(Deserialize)]
struct Header {
    seq: u64,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    game: String,
    #[serde(default)]
    time: Option<Timestamp>,
}

fn parse_header(payload: &[u8]) -> Result<Header, serde_json::Error> {
    serde_json::from_slice(payload)
}

/// The offset of the first whole record (with a readable envelope) at or after `from`.
fn whole_record_after(bytes: &[u8], from: usize) -> Option<usize> {
    framing::next_whole(bytes, from, |payload| parse_header(payload).is_ok())
}
