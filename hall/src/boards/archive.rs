//! The hall's archive (`[hall] archive_dir`): every game the hall has followed, kept on disk
//! so a past round's games, results and zip are there after the boards have moved on and
//! after the hall restarts.
//!
//! One file per game, `{dir}/{tournament}/{board}/{game}.jsonl`, one event line per event
//! (the wire contract's event line, the envelope as the board published it), appended in the order the
//! hall follows them and flushed line by line (synced to disk when the game ends). Each
//! game is also kept as the protocol's fold of its events ([`GameView`]), so the archive
//! knows its round, players and result and gives its SGF. [`Archive::open`] reads every
//! file back; a line that does not parse (a crash mid-write leaves a truncated last line)
//! is skipped with a warning.
//!
//! An event the archive already has (same game, same `seq`: the board's republished history
//! after a hall restart) is not written again. One older than the game's newest is written
//! and the game is folded again from its file, in `seq` order.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tengen_protocol::topics::{is_valid_id, BoardKey};
use tengen_protocol::view::Phase;
use tengen_protocol::{Envelope, Event, GameView, Timestamp};
use thiserror::Error;

/// The archive shared by the MQTT task (which appends) and the HTTP routes (which read).
pub(crate) type SharedArchive = Arc<Mutex<Archive>>;

/// Locks the shared archive; a holder that panicked leaves usable data.
pub(crate) fn lock(archive: &SharedArchive) -> MutexGuard<'_, Archive> {
    archive.lock().unwrap_or_else(|p| p.into_inner())
}

/// Appends what the hall followed to the archive; a failure is logged, once per batch.
pub(crate) fn store(archive: &SharedArchive, followed: Vec<(BoardKey, Envelope)>) {
    if followed.is_empty() {
        return;
    }
    let mut a = lock(archive);
    let mut failed = None;
    for (key, e) in &followed {
        if let Err(err) = a.append(key, e) {
            failed.get_or_insert(err);
        }
    }
    if let Some(err) = failed {
        tracing::warn!("archive: {err}");
    }
}

/// Why the archive could not be read or written.
#[derive(Debug, Error)]
pub enum ArchiveError {
    /// A file or directory of the archive could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// An id that would not make a file name inside the archive.
    #[error("{path}: {what} id {id:?} is not lower-case letters, digits and '-'")]
    BadId {
        /// What kind of id (`tournament`, `board`, `game`).
        what: &'static str,
        /// The id.
        id: String,
        /// The directory the file would have been in.
        path: PathBuf,
    },
    /// The event could not be written as JSON.
    #[error("{path}: {source}")]
    Encode {
        /// The game's file.
        path: PathBuf,
        /// The error.
        source: serde_json::Error,
    },
}

/// One archived game: the fold of its events and which `seq`s it has.
#[derive(Default)]
struct Kept {
    view: GameView,
    seqs: BTreeSet<u64>,
}

impl Kept {
    /// The game folded from `events` (any order, maybe with duplicates).
    fn from_events(mut events: Vec<Envelope>) -> Kept {
        events.sort_by_key(|e| e.seq);
        events.dedup_by_key(|e| e.seq);
        let mut kept = Kept::default();
        for e in &events {
            kept.apply(e);
        }
        kept
    }

    fn apply(&mut self, e: &Envelope) {
        self.seqs.insert(e.seq);
        if let Err(err) = self.view.apply_envelope(e) {
            tracing::trace!("archive {}/{}, seq {}: {err}", e.board, e.game, e.seq);
        }
    }

    fn first_seq(&self) -> u64 {
        self.seqs.first().copied().unwrap_or(0)
    }

    fn last_seq(&self) -> u64 {
        self.seqs.last().copied().unwrap_or(0)
    }
}

/// What the routes need to know of an archived game (one with a `game_started`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GameInfo {
    /// The board (tournament and board ids).
    pub(crate) key: BoardKey,
    /// The game id.
    pub(crate) game: String,
    /// The round, from its `game_started`.
    pub(crate) round: String,
    /// True once the game is over (`game_over`).
    pub(crate) over: bool,
    /// The time of its latest event.
    pub(crate) last_time: Option<Timestamp>,
    /// True when the archive holds a later game of the same board (one that started after
    /// this game's last event).
    pub(crate) superseded: bool,
    /// The `seq` of its newest event and how many events the archive holds of it: what
    /// changes when an event comes (the round feed writes the game again then).
    pub(crate) held: (u64, usize),
    /// An arbiter voided it (`game_voided`): kept for the arbiters, marked, never public.
    pub(crate) voided: bool,
}

/// A finished game whose black box the hall should fetch from its board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FramesDue {
    /// The board.
    pub(crate) key: BoardKey,
    /// The game id.
    pub(crate) game: String,
    /// Its table (empty when its `game_started` named none).
    pub(crate) table: String,
    /// When it started (the time base of its frames).
    pub(crate) started: Timestamp,
    /// Its latest event (its end, or a later correction).
    pub(crate) last_time: Timestamp,
    /// Where its frames file goes.
    pub(crate) path: PathBuf,
}

/// Every game the hall has followed, on disk and folded in memory.
pub(crate) struct Archive {
    dir: PathBuf,
    games: BTreeMap<(BoardKey, String), Kept>,
    /// Per board, the game file appended to last (one open file per board at most).
    open: HashMap<BoardKey, (String, File)>,
}

impl Archive {
    /// Opens the archive in `dir` (created if missing) and reads every game in it back.
    /// Lines that do not parse are skipped with a warning; files and directories whose
    /// names are not ids are left alone.
    pub(crate) fn open(dir: &Path) -> Result<Archive, ArchiveError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ArchiveError::Io { path, source }
        };
        fs::create_dir_all(dir).map_err(io(dir))?;
        let mut games = BTreeMap::new();
        for (tournament, t_dir) in id_entries(dir, true)? {
            for (board, b_dir) in id_entries(&t_dir, true)? {
                let Some(key) = BoardKey::new(&tournament, &board) else {
                    continue;
                };
                for (game, file) in id_entries(&b_dir, false)? {
                    let kept = Kept::from_events(read_events(&file)?);
                    games.insert((key.clone(), game), kept);
                }
            }
        }
        Ok(Archive {
            dir: dir.to_path_buf(),
            games,
            open: HashMap::new(),
        })
    }

    /// The number of games in the archive.
    pub(crate) fn len(&self) -> usize {
        self.games.len()
    }

    /// The file of game `game` of board `key`, after checking that every id is one.
    fn path(&self, key: &BoardKey, game: &str) -> Result<PathBuf, ArchiveError> {
        let mut path = self.dir.clone();
        for (what, id) in [
            ("tournament", key.tournament.as_str()),
            ("board", key.board.as_str()),
            ("game", game),
        ] {
            if !is_valid_id(id) {
                return Err(ArchiveError::BadId {
                    what,
                    id: id.to_string(),
                    path,
                });
            }
            path.push(id);
        }
        path.set_extension("jsonl");
        Ok(path)
    }

    /// Appends one event of board `key` (followed by the hall, in `seq` order) to its
    /// game's file and fold. An event the game has already is left out; an event without a
    /// game id has no game to go to and is left out too.
    pub(crate) fn append(
        &mut self,
        key: &BoardKey,
        envelope: &Envelope,
    ) -> Result<(), ArchiveError> {
        if envelope.game.is_empty() {
            return Ok(());
        }
        let path = self.path(key, &envelope.game)?;
        let id = (key.clone(), envelope.game.clone());
        if self
            .games
            .get(&id)
            .is_some_and(|k| k.seqs.contains(&envelope.seq))
        {
            return Ok(());
        }
        let mut line = serde_json::to_string(envelope).map_err(|source| ArchiveError::Encode {
            path: path.clone(),
            source,
        })?;
        line.push('\n');
        let ends = matches!(envelope.event, Event::GameOver(_));
        if let Err(source) = self.write(key, &envelope.game, &path, line.as_bytes(), ends) {
            self.open.remove(key);
            return Err(ArchiveError::Io { path, source });
        }
        let kept = self.games.entry(id).or_default();
        if kept.seqs.is_empty() || envelope.seq > kept.last_seq() {
            kept.apply(envelope);
        } else {
            // Older than the game's newest event: fold the game again, in order.
            *kept = Kept::from_events(read_events(&path)?);
        }
        Ok(())
    }

    /// Writes `line` to the game's file (opened for appending if it is not the board's open
    /// one); syncs it when `sync`.
    fn write(
        &mut self,
        key: &BoardKey,
        game: &str,
        path: &Path,
        line: &[u8],
        sync: bool,
    ) -> std::io::Result<()> {
        let reuse = self.open.get(key).is_some_and(|(g, _)| g == game);
        if !reuse {
            self.open.remove(key);
            let file = open_for_append(path)?;
            self.open.insert(key.clone(), (game.to_string(), file));
        }
        let Some((_, file)) = self.open.get_mut(key) else {
            return Err(std::io::Error::other("no open file"));
        };
        file.write_all(line)?;
        if sync {
            file.sync_data()?;
        }
        Ok(())
    }

    /// Every archived game that has its `game_started`, by tournament, board and game id.
    pub(crate) fn games(&self) -> Vec<GameInfo> {
        let mut latest_start: HashMap<&BoardKey, u64> = HashMap::new();
        for ((key, _), kept) in &self.games {
            let first = latest_start.entry(key).or_default();
            *first = (*first).max(kept.first_seq());
        }
        self.games
            .iter()
            .filter_map(|((key, game), kept)| {
                let setup = kept.view.setup()?;
                Some(GameInfo {
                    key: key.clone(),
                    game: game.clone(),
                    round: setup.round.clone(),
                    over: kept.view.phase() == Phase::Over,
                    last_time: kept.view.last_time(),
                    superseded: latest_start
                        .get(key)
                        .is_some_and(|&start| start > kept.last_seq()),
                    held: (kept.last_seq(), kept.seqs.len()),
                    voided: kept.view.voided(),
                })
            })
            .collect()
    }

    /// Where the black box (what the sensors saw, docs/mqtt-http.md) of game `game` of board `key` is
    /// kept beside its events: `{dir}/{tournament}/{board}/{game}.frames`.
    pub(crate) fn frames_path(&self, key: &BoardKey, game: &str) -> Result<PathBuf, ArchiveError> {
        let mut path = self.path(key, game)?;
        path.set_extension("frames");
        Ok(path)
    }

    /// The games over whose black box the archive does not hold yet, with their table
    /// (empty when none) and the times they started and last heard of.
    pub(crate) fn frames_missing(&self) -> Vec<FramesDue> {
        self.games
            .iter()
            .filter(|(_, kept)| kept.view.phase() == Phase::Over)
            .filter_map(|((key, game), kept)| {
                let path = self.frames_path(key, game).ok()?;
                if path.exists() {
                    return None;
                }
                Some(FramesDue {
                    key: key.clone(),
                    game: game.clone(),
                    table: kept.view.setup()?.table.clone(),
                    started: kept.view.started()?,
                    last_time: kept.view.last_time()?,
                    path,
                })
            })
            .collect()
    }

    /// The table of an archived game, from its `game_started` (empty when it named none).
    pub(crate) fn table(&self, key: &BoardKey, game: &str) -> Option<String> {
        let kept = self.games.get(&(key.clone(), game.to_string()))?;
        Some(kept.view.setup()?.table.clone())
    }

    /// The whole SGF of an archived game (public: no comments), if it has a record.
    pub(crate) fn sgf(&self, key: &BoardKey, game: &str) -> Option<String> {
        let kept = self.games.get(&(key.clone(), game.to_string()))?;
        kept.view.setup()?;
        Some(kept.view.sgf(false)).filter(|s| !s.trim().is_empty())
    }

    /// Every event of an archived game in `seq` order, read from its file (`None` when the
    /// archive has no such game or its file cannot be read: logged).
    pub(crate) fn events(&self, key: &BoardKey, game: &str) -> Option<Vec<Envelope>> {
        if !self.games.contains_key(&(key.clone(), game.to_string())) {
            return None;
        }
        let path = self.path(key, game).ok()?;
        match read_events(&path) {
            Ok(mut events) => {
                events.sort_by_key(|e| e.seq);
                events.dedup_by_key(|e| e.seq);
                Some(events)
            }
            Err(err) => {
                tracing::warn!("archive: {err}");
                None
            }
        }
    }

    /// The result of an archived game, once it is over.
    #[cfg(test)]
    fn result(&self, key: &BoardKey, game: &str) -> Option<String> {
        let kept = self.games.get(&(key.clone(), game.to_string()))?;
        kept.view.result().map(str::to_string)
    }
}

/// Opens `path` for appending (creating it and its directory), first ending a truncated
/// last line so the next line starts on a line of its own.
fn open_for_append(path: &Path) -> std::io::Result<File> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)?;
    let len = file.metadata()?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1)?;
        if last[0] != b'\n' {
            file.write_all(b"\n")?;
        }
    }
    Ok(file)
}

/// The entries of `dir` whose names are ids (`{id}.jsonl` files when not `dirs`), with
/// their paths, sorted.
fn id_entries(dir: &Path, dirs: bool) -> Result<Vec<(String, PathBuf)>, ArchiveError> {
    let io = |source| ArchiveError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let id = if dirs {
            path.is_dir().then_some(name.as_str())
        } else {
            name.strip_suffix(".jsonl").filter(|_| path.is_file())
        };
        match id {
            Some(id) if is_valid_id(id) => out.push((id.to_string(), path)),
            _ => tracing::debug!("archive: {} left alone", path.display()),
        }
    }
    out.sort();
    Ok(out)
}

/// The events of one game file; lines that do not parse are skipped with a warning.
fn read_events(path: &Path) -> Result<Vec<Envelope>, ArchiveError> {
    let bytes = fs::read(path).map_err(|source| ArchiveError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let mut events = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Envelope>(line) {
            Ok(e) => events.push(e),
            Err(e) if i + 1 == lines.len() => tracing::warn!(
                "{}:{}: skipped a truncated last line (a crash while writing?): {e}",
                path.display(),
                i + 1
            ),
            Err(e) => tracing::warn!("{}:{}: skipped: {e}", path.display(), i + 1),
        }
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::event::{EndReason, GameEnd};

    use crate::test_support::{env, game_started, mv};

    fn key() -> BoardKey {
        BoardKey::new("t", "b1").unwrap()
    }

    fn game(seq: u64, game: &str, event: Event) -> Envelope {
        Envelope {
            game: game.into(),
            ..env(seq, event)
        }
    }

    fn over() -> Event {
        Event::GameOver(GameEnd::uncounted("B+R", EndReason::Resignation))
    }

    fn play(a: &mut Archive, events: Vec<Envelope>) {
        for e in events {
            a.append(&key(), &e).unwrap();
        }
    }

    #[test]
    fn appends_reopens_and_knows_round_result_and_record() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = Archive::open(dir.path()).unwrap();
        assert_eq!(a.len(), 0);
        play(
            &mut a,
            vec![
                env(1, game_started(9, 0, "none")),
                env(2, mv(1, "E5")),
                env(3, mv(2, "C3")),
                env(4, over()),
                game(5, "g2", game_started(9, 0, "none")),
                game(6, "g2", mv(1, "D4")),
            ],
        );
        let file = dir.path().join("t/b1/g1.jsonl");
        let text = fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), 4);
        assert_eq!(text.lines().nth(1).unwrap(), env(2, mv(1, "E5")).to_json());
        for a in [a, Archive::open(dir.path()).unwrap()] {
            assert_eq!(a.len(), 2);
            let games = a.games();
            let g1 = &games[0];
            assert_eq!((g1.game.as_str(), g1.round.as_str()), ("g1", "3"));
            assert!(g1.over && g1.superseded);
            assert!(!games[1].over && !games[1].superseded);
            assert_eq!(a.result(&key(), "g1").as_deref(), Some("B+R"));
            let sgf = tengen_rules::sgf::parse(&a.sgf(&key(), "g1").unwrap()).unwrap();
            assert_eq!(sgf.moves.len(), 2);
            assert_eq!(sgf.result.as_deref(), Some("B+R"));
            assert_eq!(sgf.black_name.as_deref(), Some("Shusaku"));
        }
    }

    #[test]
    fn duplicates_are_written_once_and_late_events_fold_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = Archive::open(dir.path()).unwrap();
        // A hall that started mid-game, then the board's republished history.
        play(&mut a, vec![env(3, mv(2, "C3")), env(4, mv(3, "D4"))]);
        assert!(a.games().is_empty(), "no game_started yet");
        play(
            &mut a,
            vec![
                env(1, game_started(9, 0, "none")),
                env(2, mv(1, "E5")),
                env(3, mv(2, "C3")),
                env(4, mv(3, "D4")),
            ],
        );
        let text = fs::read_to_string(dir.path().join("t/b1/g1.jsonl")).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        let sgf = tengen_rules::sgf::parse(&a.sgf(&key(), "g1").unwrap()).unwrap();
        assert_eq!(sgf.moves.len(), 3);
        assert_eq!(a.games()[0].round, "3");
    }

    #[test]
    fn a_truncated_last_line_is_skipped_and_the_next_line_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = Archive::open(dir.path()).unwrap();
        play(
            &mut a,
            vec![env(1, game_started(9, 0, "none")), env(2, mv(1, "E5"))],
        );
        drop(a);
        let file = dir.path().join("t/b1/g1.jsonl");
        let whole = env(3, mv(2, "C3")).to_json();
        let mut f = OpenOptions::new().append(true).open(&file).unwrap();
        f.write_all(&whole.as_bytes()[..whole.len() / 2]).unwrap();
        drop(f);

        let mut a = Archive::open(dir.path()).unwrap();
        let sgf = tengen_rules::sgf::parse(&a.sgf(&key(), "g1").unwrap()).unwrap();
        assert_eq!(sgf.moves.len(), 1, "the torn move is not there");
        play(&mut a, vec![env(3, mv(2, "C3")), env(4, over())]);
        let a = Archive::open(dir.path()).unwrap();
        let sgf = tengen_rules::sgf::parse(&a.sgf(&key(), "g1").unwrap()).unwrap();
        assert_eq!(sgf.moves.len(), 2);
        assert_eq!(sgf.result.as_deref(), Some("B+R"));
        assert!(a.games()[0].over);
    }

    #[test]
    fn ids_that_are_not_ids_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("archive");
        let mut a = Archive::open(&inner).unwrap();
        for bad in ["..", "../x", "G1", "a/b", "a.b"] {
            let e = a
                .append(&key(), &game(1, bad, game_started(9, 0, "none")))
                .unwrap_err();
            let text = e.to_string();
            assert!(text.contains("game id"), "{text}");
            assert!(!text.contains('\n'));
        }
        assert!(!dir.path().join("x.jsonl").exists());
        assert_eq!(fs::read_dir(&inner).unwrap().count(), 0, "nothing written");
        // Files that are not games are left alone when the archive is read.
        fs::create_dir_all(inner.join("t/b1")).unwrap();
        fs::write(inner.join("t/b1/notes.txt"), "hello").unwrap();
        fs::write(inner.join("t/b1/Bad.jsonl"), "junk").unwrap();
        assert_eq!(Archive::open(&inner).unwrap().len(), 0);
    }

    #[test]
    fn an_unreadable_directory_is_one_line_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        fs::write(&file, "x").unwrap();
        let e = Archive::open(&file).err().expect("not a directory");
        let text = e.to_string();
        assert!(text.starts_with(&file.display().to_string()), "{text}");
        assert!(!text.contains('\n'));
    }
}
