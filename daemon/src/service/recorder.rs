//! Writing events in the one safe order: journal (synced) first, then the outputs, then
//! what the outputs show (the `state` snapshot, `alerts/active`, and the SGF file,
//! rewritten atomically when the record changed).
//!
//! What is shown comes from the protocol's one fold ([`GameView`]) of the journaled
//! envelopes, exactly as any consumer of the events would fold them; the players' faces and
//! calls come from the same fold through the table's [`Schedule`], polled once per turn of
//! the scan loop ([`Recorder::poll_table`]).

use std::path::{Path, PathBuf};

use tengen_hal::Millis;
use tengen_protocol::{Envelope, Event, GameView, Timestamp};
use tengen_table::{Schedule, Sound};

use super::outputs::{Outputs, Shown};
use super::ServiceError;
use crate::journal::{Journal, JournalReader};
use crate::sgf_file;

/// The journal, the SGF file and the outputs of one board.
#[derive(Debug)]
pub struct Recorder {
    journal: Journal,
    outputs: Outputs,
    dir: PathBuf,
    view: GameView,
    sgf: String,
    table: Schedule,
}

impl Recorder {
    /// A recorder writing to `journal`, SGF files in `dir`, and `outputs`; what is shown
    /// starts from the journal's current game.
    pub fn new(journal: Journal, outputs: Outputs, dir: &Path) -> Result<Recorder, ServiceError> {
        let mut view = GameView::new();
        for env in journal.current_game()? {
            if let Err(e) = view.apply_envelope(&env) {
                tracing::warn!("journal event {}: {e}", env.seq);
            }
        }
        Ok(Recorder {
            journal,
            outputs,
            dir: dir.to_path_buf(),
            view,
            sgf: String::new(),
            table: Schedule::new(),
        })
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

    /// The game as the recorded events fold it.
    pub fn view(&self) -> &GameView {
        &self.view
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

    /// Journals `events`, all happening at `at` (ms since the epoch), each synced before it
    /// is sent to the outputs; then refreshes what the outputs show. A journal failure
    /// stops here (nothing unjournaled is ever published).
    pub fn record(
        &mut self,
        events: Vec<Event>,
        at: Millis,
    ) -> Result<Vec<Envelope>, ServiceError> {
        if events.is_empty() {
            return Ok(Vec::new());
        }
        let time = Timestamp::from_millis(at);
        let mut written = Vec::with_capacity(events.len());
        for event in events {
            let envelope = self.journal.append(event, time)?;
            if let Err(e) = self.view.apply_envelope(&envelope) {
                tracing::warn!("event {} does not fold: {e}", envelope.seq);
            }
            self.table.on_event(&envelope.event, envelope.time);
            self.outputs.event(&envelope);
            written.push(envelope);
        }
        self.refresh(at);
        Ok(written)
    }

    /// The players' side at `now` (once per turn of the loop, after the turn's events are
    /// recorded): the faces that changed go to the outputs, and so does a call that is due,
    /// which is also returned (for a backend that beeps it).
    pub fn poll_table(&mut self, now: Millis) -> Option<Sound> {
        let now = Timestamp::from_millis(now).max(self.view.last_time().unwrap_or_default());
        let due = self.table.poll(&self.view, now);
        for (color, face) in due.faces {
            self.outputs.face(color, face);
        }
        if let Some(sound) = due.sound {
            self.outputs.sound(sound);
        }
        due.sound
    }

    /// Calls the table dropped because the loop came too late to say them in time.
    pub fn dropped_calls(&self) -> u64 {
        self.table.dropped()
    }

    /// Shows the game as of `now` and, when the record changed, rewrites the SGF file. A
    /// failed SGF write is logged, not fatal: the journal holds the whole game.
    pub fn refresh(&mut self, now: Millis) {
        let state = self
            .view
            .snapshot(Timestamp::from_millis(now))
            .map_or(serde_json::Value::Null, |s| s.to_value());
        let sgf = self.view.sgf(true);
        if sgf != self.sgf {
            let path = self.sgf_path();
            if let Err(e) = sgf_file::write_atomic(&path, &sgf) {
                tracing::warn!("SGF not written: {e}");
            }
            self.sgf.clone_from(&sgf);
        }
        self.outputs.show(Shown {
            state,
            sgf,
            alerts_active: self.view.active_alerts_json(),
        });
    }
}
