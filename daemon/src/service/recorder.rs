//! Writing events in the one safe order: journal (synced) first, then the outputs, then
//! what the outputs show (the `state` snapshot, `alerts/active`, and the SGF file,
//! rewritten atomically when the record changed).
//!
//! What is shown comes from the protocol's one fold ([`GameView`]) of the journaled
//! envelopes, exactly as any consumer of the events would fold them; the players' faces and
//! calls come from the same fold through the table's [`Schedule`], polled once per turn of
//! the scan loop ([`Recorder::poll_table`]).
//!
//! A full disk does not stop the board: the journal holds the events in memory
//! ([`Journal::record`]); they are folded at once, so the clocks, the displays, the
//! `state` snapshot and `alerts/active` go on, but published as events only once they are
//! written ([`Recorder::keep_up`] tries again every [`RETRY_MS`]). `storage_low` and
//! `storage_full` are raised and cleared there too (see `super::storage_alerts`).

use std::path::{Path, PathBuf};

use tengen_hal::Millis;
use tengen_protocol::event::ClearedHow;
use tengen_protocol::{Envelope, Event, GameView, Timestamp};
use tengen_table::{Schedule, Sound};

use super::disk_watch::{DiskWatch, FreeSpace};
use super::outputs::{Outputs, Shown};
use super::storage_alerts::{is_storage, Disk, StorageAlerts};
use super::ServiceError;
use crate::black_box::{BlackBox, GameOfScan};
use crate::journal::{Journal, JournalReader, Recorded, HELD_MAX_BYTES};
use crate::sgf_file;

/// While events wait in memory, how often writing them is tried again (ms of the service's
/// clock).
pub const RETRY_MS: Millis = 1_000;

/// The most bytes of held events written at once (one write, one sync): a long backlog is
/// written over several turns of the loop, never holding the clock up for long.
pub const FLUSH_CHUNK: usize = 256 << 10;

/// The journal, the SGF file and the outputs of one board.
#[derive(Debug)]
pub struct Recorder {
    journal: Journal,
    outputs: Outputs,
    dir: PathBuf,
    view: GameView,
    /// The SGF text last written to the file.
    sgf: String,
    /// The last SGF write failed (said once until one succeeds).
    sgf_failed: bool,
    table: Schedule,
    storage: StorageAlerts,
    free: FreeSpace,
    /// The thread reading `free`, stopped with the recorder.
    _watch: Option<DiskWatch>,
    /// When to try writing the held events again.
    flush_at: Millis,
    /// Said in the log that events are held / dropped, in this episode.
    said_held: bool,
    said_dropped: bool,
    /// What the sensors saw, per game, beside the journal.
    black_box: BlackBox,
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
            sgf_failed: false,
            table: Schedule::new(),
            storage: StorageAlerts::new(0),
            free: FreeSpace::unknown(),
            _watch: None,
            flush_at: 0,
            said_held: false,
            said_dropped: false,
            black_box: BlackBox::new(dir),
        })
    }

    /// Watches the free space of the storage directory with `watch` (stopped with the
    /// recorder): below `low_bytes` free the board raises `storage_low` (0: never).
    /// Without it the board still raises `storage_full` when a write fails for lack of
    /// space.
    pub fn watch_storage(&mut self, watch: DiskWatch, low_bytes: u64) {
        self.free = watch.free();
        self._watch = Some(watch);
        self.storage = StorageAlerts::new(low_bytes);
    }

    /// The journal (seq, game id).
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// A reader of the journal for other threads.
    pub fn reader(&self) -> JournalReader {
        self.journal.reader()
    }

    /// One scan of the sensors, for the black box: what they saw (classified, as read) and
    /// the button events, at `now`, in the game the journal is in.
    pub fn black_box(
        &mut self,
        now: Millis,
        seen: &[tengen_hal::PointState],
        buttons: &[tengen_hal::ButtonEvent],
    ) {
        let (Some(started), Some(setup)) = (self.view.started(), self.view.setup()) else {
            return;
        };
        let game = GameOfScan {
            board: self.journal.board(),
            game: self.journal.game(),
            size: setup.size,
            start_ms: started.millis(),
        };
        self.black_box.scan(&game, now, seen, buttons);
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
    /// is sent to the outputs; then refreshes what the outputs show. Returns the events
    /// written. On a full disk the events are held in memory by the journal: they are
    /// shown (the fold, the players' faces) but sent as events only once written
    /// ([`Recorder::keep_up`]). Any other journal failure stops here (nothing unjournaled
    /// is ever published).
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
            match self.journal.record(event, time)? {
                Recorded::Written(envelope) => {
                    self.fold(&envelope);
                    self.outputs.event(&envelope);
                    written.push(envelope);
                }
                Recorded::Held(envelope) => {
                    self.fold(&envelope);
                    if !self.said_held {
                        self.said_held = true;
                        tracing::error!(
                            "{}: no space left on the board's storage: events from seq {} \
                             on wait in memory (up to {} MiB) and are written when space \
                             is freed; the game goes on",
                            self.journal.path().display(),
                            envelope.seq,
                            HELD_MAX_BYTES >> 20
                        );
                    }
                }
                Recorded::Dropped(envelope) => {
                    // Not numbered, never written: the game and its clocks still go on.
                    if let Err(e) = self.view.apply(&envelope.event, envelope.time) {
                        tracing::warn!(
                            "a {} not recorded does not fold: {e}",
                            envelope.event.kind()
                        );
                    }
                    self.table.on_event(&envelope.event, envelope.time);
                    if !self.said_dropped {
                        self.said_dropped = true;
                        tracing::error!(
                            "{}: storage full and {} MiB of events waiting in memory: the \
                             board STOPPED RECORDING at {}; events from now on are lost \
                             until space is freed",
                            self.journal.path().display(),
                            HELD_MAX_BYTES >> 20,
                            envelope.time
                        );
                    }
                }
            }
        }
        self.refresh(at);
        Ok(written)
    }

    /// Applies one numbered event to what is shown.
    fn fold(&mut self, envelope: &Envelope) {
        if let Err(e) = self.view.apply_envelope(envelope) {
            tracing::warn!("event {} does not fold: {e}", envelope.seq);
        }
        self.table.on_event(&envelope.event, envelope.time);
    }

    /// Once per turn of the loop, at `now`: writes events held for lack of space when
    /// there is space again (then sends them to the outputs, in order), and raises or
    /// clears `storage_low` and `storage_full`.
    pub fn keep_up(&mut self, now: Millis) -> Result<(), ServiceError> {
        let mut wrote = false;
        if self.journal.held_events() > 0 && now >= self.flush_at {
            let written = self.journal.flush(FLUSH_CHUNK)?;
            if written.is_empty() {
                self.flush_at = now.saturating_add(RETRY_MS);
            } else {
                for envelope in &written {
                    self.outputs.event(envelope);
                }
                wrote = true;
                if self.journal.held_events() == 0 {
                    tracing::info!(
                        "{}: space again: every held event is written (to seq {})",
                        self.journal.path().display(),
                        self.journal.last_seq()
                    );
                    self.said_held = false;
                    self.said_dropped = false;
                }
            }
        }
        let disk = Disk {
            free: self.free.get(),
            held: self.journal.held_events(),
            dropping: self.journal.dropped(),
            lost: self.journal.take_dropped(),
        };
        let events = self
            .storage
            .check(&self.view, &disk, self.journal.next_seq());
        if events.is_empty() {
            if wrote {
                self.refresh(now);
            }
            return Ok(());
        }
        self.record(events, now).map(|_| ())
    }

    /// An arbiter's `confirm` or `dismiss` of `alert`, when it is one of the board's open
    /// storage alerts (which the referee does not know): closes it as asked, by `by`, and
    /// does not raise it again while its condition lasts. `None` for any other alert.
    pub fn close_storage_alert(
        &mut self,
        alert: &str,
        confirm: bool,
        by: Option<String>,
        now: Millis,
    ) -> Option<Result<(), ServiceError>> {
        let code = self
            .view
            .open_alerts()
            .find(|a| a.id == alert && is_storage(a.code))?
            .code;
        self.storage.dismissed(code);
        let how = if confirm {
            ClearedHow::Confirmed
        } else {
            ClearedHow::Dismissed
        };
        self.set_by(by);
        let result = self.record(vec![Event::cleared(alert.to_string(), how)], now);
        self.set_by(None);
        Some(result.map(|_| ()))
    }

    /// When the service stops: writes what it can of the held events; logs what is lost.
    pub fn finish(&mut self, now: Millis) {
        self.black_box.finish();
        while self.journal.held_events() > 0 {
            match self.journal.flush(FLUSH_CHUNK) {
                Ok(written) if !written.is_empty() => {
                    for envelope in &written {
                        self.outputs.event(envelope);
                    }
                }
                Ok(_) => break,
                Err(e) => {
                    tracing::error!("{e}");
                    break;
                }
            }
        }
        let held = self.journal.held_events();
        if held > 0 {
            tracing::error!(
                "{}: stopping with {held} events not written for lack of space: they are \
                 lost; the journal ends at seq {}",
                self.journal.path().display(),
                self.journal.last_seq()
            );
        }
        self.refresh(now);
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

    /// Shows the game as of `now` and, when the record differs from the file, rewrites the
    /// SGF file. A failed SGF write is logged once, not fatal (the journal holds the whole
    /// game), and tried again at the next refresh.
    pub fn refresh(&mut self, now: Millis) {
        let state = self
            .view
            .snapshot(Timestamp::from_millis(now))
            .map_or(serde_json::Value::Null, |s| s.to_value());
        let sgf = self.view.sgf(true);
        if sgf != self.sgf {
            let path = self.sgf_path();
            match sgf_file::write_atomic(&path, &sgf) {
                Ok(()) => {
                    if self.sgf_failed {
                        tracing::info!("{}: written again", path.display());
                    }
                    self.sgf_failed = false;
                    self.sgf.clone_from(&sgf);
                }
                Err(e) => {
                    if !self.sgf_failed {
                        tracing::warn!("SGF not written: {e} (tried again with each event)");
                    }
                    self.sgf_failed = true;
                }
            }
        }
        self.outputs.show(Shown {
            state,
            sgf,
            alerts_active: self.view.active_alerts_json(),
        });
    }
}
