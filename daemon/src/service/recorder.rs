//! Writing events in the one safe order: journal (synced) first, then the outputs, then
//! the state snapshot and the SGF file (rewritten atomically when the record changed).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tengen_hal::Millis;

use super::engine::Engine;
use super::outputs::Outputs;
use super::ServiceError;
use crate::event::{Envelope, Event};
use crate::journal::{Journal, JournalReader};
use crate::sgf_file;

/// The journal, the SGF file and the outputs of one board.
#[derive(Debug)]
pub struct Recorder {
    journal: Journal,
    outputs: Outputs,
    dir: PathBuf,
    sgf: String,
}

/// Milliseconds since the Unix epoch as a time stamp.
pub fn system_time(ms: Millis) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// A stamp written by the journal (`2026-11-29T13:45:01.250Z`) back to ms since the epoch.
pub fn parse_time(text: &str) -> Option<Millis> {
    let t = humantime::parse_rfc3339(text).ok()?;
    u64::try_from(t.duration_since(UNIX_EPOCH).ok()?.as_millis()).ok()
}

impl Recorder {
    /// A recorder writing to `journal`, SGF files in `dir`, and `outputs`.
    pub fn new(journal: Journal, outputs: Outputs, dir: &Path) -> Recorder {
        Recorder {
            journal,
            outputs,
            dir: dir.to_path_buf(),
            sgf: String::new(),
        }
    }

    /// The journal (seq, game id).
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// A reader of the journal for other threads.
    pub fn reader(&self) -> JournalReader {
        self.journal.reader()
    }

    /// The outputs.
    pub fn outputs(&self) -> &Outputs {
        &self.outputs
    }

    /// Sets the game id of the events that follow (a new game).
    pub fn set_game(&mut self, game: &str) {
        self.journal.set_game(game);
    }

    /// Stamps the events recorded from now on with `by` (an arbiter command's sender), until
    /// set back to `None`.
    pub fn set_by(&mut self, by: Option<String>) {
        self.journal.set_by(by);
    }

    /// The current game's SGF file.
    pub fn sgf_path(&self) -> PathBuf {
        sgf_file::path_for(&self.dir, self.journal.game())
    }

    /// Journals `events` at `now` (ms since the epoch), each synced before it is sent to
    /// the outputs; then refreshes the state and the SGF. A journal failure stops here
    /// (nothing unjournaled is ever published).
    pub fn record(
        &mut self,
        events: Vec<Event>,
        now: Millis,
        engine: &dyn Engine,
    ) -> Result<Vec<Envelope>, ServiceError> {
        if events.is_empty() {
            return Ok(Vec::new());
        }
        let mut written = Vec::with_capacity(events.len());
        for event in events {
            let envelope = self.journal.append(event, system_time(now))?;
            self.outputs.event(&envelope);
            written.push(envelope);
        }
        self.refresh(engine);
        Ok(written)
    }

    /// Sends the current state and, when the record changed, rewrites the SGF file. A
    /// failed SGF write is logged, not fatal: the journal holds the whole game.
    pub fn refresh(&mut self, engine: &dyn Engine) {
        let mut state = engine.snapshot();
        if let Some(map) = state.as_object_mut() {
            map.insert("seq".into(), self.journal.last_seq().into());
            map.entry("board_id")
                .or_insert_with(|| self.journal.board().into());
            map.entry("game_id")
                .or_insert_with(|| self.journal.game().into());
        }
        self.outputs.state(state);
        let sgf = engine.sgf();
        if sgf != self.sgf {
            let path = self.sgf_path();
            if let Err(e) = sgf_file::write_atomic(&path, &sgf) {
                tracing::warn!("SGF not written: {e}");
            }
            self.outputs.sgf(sgf.clone());
            self.sgf = sgf;
        }
    }
}
