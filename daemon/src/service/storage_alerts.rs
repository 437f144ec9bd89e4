//! When the board says its storage is low or full: sans-IO, from what the disk watch last
//! read, what the journal holds in memory, and the alerts open in the fold of the recorded
//! events.
//!
//! - `storage_low`: the free space of `storage.dir` fell below `storage.low_mb`. Raised once
//!   per episode; cleared (`alert_cleared` `restored`) when the free space is back above
//!   the threshold plus a margin ([`clear_margin`]), so a disk hovering at the threshold
//!   does not ring again and again.
//! - `storage_full`: a write failed for lack of space and events wait in memory. Cleared
//!   once every held event is written. If events had to be dropped meanwhile (the memory
//!   bound), the open alert's message is changed at once to say the board stopped
//!   recording, and when recording is back a notice (`storage_full`, id ending `-lost`)
//!   says which events are missing; that one stays until an arbiter dismisses it.
//!
//! The alerts are the service's, not the referee's: their ids are `s{seq}` (the seq the
//! alert event gets), apart from the referee's `a{n}`. An arbiter may dismiss (or
//! confirm) them; a dismissed alert is not raised again in the same episode. A new game
//! folds away the open alerts of the last one: a condition that still holds is raised
//! again in the new game.

use tengen_protocol::event::{Alert, AlertCode, ClearedHow, Expected};
use tengen_protocol::{Event, GameView, Timestamp};

use crate::journal::{DroppedRun, HELD_MAX_BYTES};

/// The suffix of the id of a notice of events not recorded (never cleared by the board).
const LOST: &str = "-lost";

/// How far above `low` the free space must be before `storage_low` clears: a quarter of
/// the threshold, at least 1 MB.
pub(crate) fn clear_margin(low: u64) -> u64 {
    (low / 4).max(1_000_000)
}

/// What the disk and the journal say now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Disk {
    /// Bytes free at the last reading (`None`: not known).
    pub free: Option<u64>,
    /// Events waiting in memory for space.
    pub held: usize,
    /// Events dropped since the disk filled, while some are still held.
    pub dropping: Option<DroppedRun>,
    /// The events dropped in a run that has just ended (every held event is written).
    pub lost: Option<DroppedRun>,
}

/// One condition and its alert.
#[derive(Debug, Default)]
struct Episode {
    /// An arbiter dismissed its alert: not raised again until the condition ends.
    dismissed: bool,
    /// The game (its `game_started` time) the alert was raised in.
    raised_in: Option<Timestamp>,
}

/// The storage alerts of one board.
#[derive(Debug)]
pub(crate) struct StorageAlerts {
    low_bytes: u64,
    low: Episode,
    /// Below the threshold now (`storage_low` wanted).
    is_low: bool,
    full: Episode,
    /// The open `storage_full` says the board stopped recording.
    said_stopped: bool,
}

impl StorageAlerts {
    /// Alerts for a threshold of `low_bytes` free (0: no `storage_low`).
    pub(crate) fn new(low_bytes: u64) -> StorageAlerts {
        StorageAlerts {
            low_bytes,
            low: Episode::default(),
            is_low: false,
            full: Episode::default(),
            said_stopped: false,
        }
    }

    /// The events to record now, for the game `view` folds; `next_seq` is the seq the
    /// first of them will get.
    pub(crate) fn check(&mut self, view: &GameView, disk: &Disk, next_seq: u64) -> Vec<Event> {
        let mut out = Vec::new();
        let id = |out: &Vec<Event>| format!("s{}", next_seq + out.len() as u64);
        if let (Some(free), true) = (disk.free, self.low_bytes > 0) {
            self.is_low = if self.is_low {
                free < self.low_bytes.saturating_add(clear_margin(self.low_bytes))
            } else {
                free < self.low_bytes
            };
            if self.is_low {
                let next = id(&out);
                raise(
                    &mut out,
                    &mut self.low,
                    view,
                    AlertCode::StorageLow,
                    next,
                    || low_message(free),
                );
            } else {
                clear(&mut out, &mut self.low, view, AlertCode::StorageLow);
            }
        } else if self.low_bytes == 0 {
            clear(&mut out, &mut self.low, view, AlertCode::StorageLow);
        }
        if disk.held > 0 || disk.dropping.is_some() {
            let next = id(&out);
            raise(
                &mut out,
                &mut self.full,
                view,
                AlertCode::StorageFull,
                next,
                full_message,
            );
            if let (Some(run), false) = (disk.dropping, self.said_stopped) {
                let raised = out.iter().find_map(|e| match e {
                    Event::Alert(a) if a.code == AlertCode::StorageFull => Some(a.id.clone()),
                    _ => None,
                });
                let open = open(view, AlertCode::StorageFull)
                    .next()
                    .map(|a| a.id.clone());
                if let Some(id) = raised.or(open) {
                    out.push(alert(AlertCode::StorageFull, id, stopped_message(&run)));
                    self.said_stopped = true;
                }
            }
        } else {
            clear(&mut out, &mut self.full, view, AlertCode::StorageFull);
            self.said_stopped = false;
        }
        if let (Some(run), Some(_)) = (disk.lost, view.started()) {
            let notice = format!("{}{LOST}", id(&out));
            out.push(alert(AlertCode::StorageFull, notice, lost_message(&run)));
        }
        out
    }

    /// An arbiter dismissed (or confirmed) an alert with `code`: not raised again until
    /// its condition has ended.
    pub(crate) fn dismissed(&mut self, code: AlertCode) {
        match code {
            AlertCode::StorageLow => self.low.dismissed = true,
            AlertCode::StorageFull => self.full.dismissed = true,
            _ => {}
        }
    }
}

/// True for the codes of the service's storage alerts.
pub(crate) fn is_storage(code: AlertCode) -> bool {
    matches!(code, AlertCode::StorageLow | AlertCode::StorageFull)
}

/// The open alerts of `code` the board clears by itself (not the notices of lost events).
fn open(view: &GameView, code: AlertCode) -> impl Iterator<Item = &Alert> {
    view.open_alerts()
        .filter(move |a| a.code == code && !a.id.ends_with(LOST))
}

/// Raises `code` unless it is open, was dismissed in this episode, was raised in this
/// game already, or there is no game to raise it in.
fn raise(
    out: &mut Vec<Event>,
    episode: &mut Episode,
    view: &GameView,
    code: AlertCode,
    id: String,
    message: impl FnOnce() -> String,
) {
    let game = view.started();
    if episode.dismissed || game.is_none() || episode.raised_in == game {
        return;
    }
    if open(view, code).next().is_some() {
        episode.raised_in = game;
        return;
    }
    out.push(alert(code, id, message()));
    episode.raised_in = game;
}

/// Clears the open alerts of `code`, and ends the episode.
fn clear(out: &mut Vec<Event>, episode: &mut Episode, view: &GameView, code: AlertCode) {
    for a in open(view, code) {
        out.push(Event::cleared(a.id.clone(), ClearedHow::Restored));
    }
    *episode = Episode::default();
}

fn alert(code: AlertCode, id: String, message: String) -> Event {
    Event::Alert(Alert {
        id,
        code,
        article: code.article().to_string(),
        color: None,
        points: Vec::new(),
        expected: Expected::default(),
        message,
        late_ms: None,
    })
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn low_message(free: u64) -> String {
    format!(
        "The board's storage is nearly full ({} free): the game is still recorded, but ask \
         the technician to free space on the board before it fills up.",
        mb(free)
    )
}

fn full_message() -> String {
    format!(
        "The board's storage is full: the game and the clocks go on and its events wait in \
         the board's memory (up to {} MiB, some 80 hours of play) until the technician frees \
         space; do not switch the board off meanwhile, or they are lost.",
        HELD_MAX_BYTES >> 20
    )
}

fn stopped_message(run: &DroppedRun) -> String {
    format!(
        "The board's storage is full and its memory for waiting events is used up: since {} \
         the board has STOPPED RECORDING the game (clocks and displays go on); free space on \
         it now.",
        run.first
    )
}

fn lost_message(run: &DroppedRun) -> String {
    format!(
        "While the board's storage was full, {} events from {} to {} were not recorded: \
         the published record of this game misses them (the board's SGF file has the whole \
         game); check the game with the players.",
        run.events, run.first, run.last
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::Envelope;

    const LOW: u64 = 10_000_000;

    struct Board {
        view: GameView,
        seq: u64,
        alerts: StorageAlerts,
    }

    impl Board {
        fn new() -> Board {
            let mut b = Board {
                view: GameView::new(),
                seq: 0,
                alerts: StorageAlerts::new(LOW),
            };
            b.new_game();
            b
        }

        fn apply(&mut self, event: Event) {
            self.seq += 1;
            let env = Envelope {
                seq: self.seq,
                time: Timestamp::from_millis(1_000 * self.seq),
                board: "b".into(),
                game: "g".into(),
                by: None,
                event,
            };
            self.view.apply_envelope(&env).unwrap();
        }

        fn new_game(&mut self) {
            let started: Envelope = serde_json::from_str(
                r#"{"seq":0,"time":"2026-11-29T13:45:01.250Z","board":"b","game":"g","type":"game_started","size":9,"komi":7.5,"handicap":0,"rules":"chinese","superko":"situational","time_control":"none","black":"","white":"","round":"","table":""}"#,
            )
            .unwrap();
            self.apply(started.event);
        }

        /// The events of one check, applied as the recorder would.
        fn check(&mut self, disk: Disk) -> Vec<String> {
            let events = self.alerts.check(&self.view, &disk, self.seq + 1);
            let mut said = Vec::new();
            for e in events {
                said.push(match &e {
                    Event::Alert(a) => format!("{} {}", a.code, a.id),
                    Event::AlertCleared { id, .. } => format!("cleared {id}"),
                    other => other.kind().to_string(),
                });
                self.apply(e);
            }
            said
        }

        fn open(&self) -> Vec<String> {
            self.view
                .open_alerts()
                .map(|a| format!("{} {}", a.code, a.id))
                .collect()
        }
    }

    fn free(bytes: u64) -> Disk {
        Disk {
            free: Some(bytes),
            ..Disk::default()
        }
    }

    #[test]
    fn low_is_raised_once_per_episode_and_cleared_above_the_margin() {
        let mut b = Board::new();
        assert!(b.check(free(LOW + 1)).is_empty());
        assert_eq!(b.check(free(LOW - 1)), vec!["storage_low s2"]);
        assert!(b.check(free(LOW - 5)).is_empty(), "once");
        assert!(
            b.check(free(LOW + 1)).is_empty(),
            "just above the threshold: still low"
        );
        assert!(
            b.check(Disk::default()).is_empty(),
            "unknown: nothing changes"
        );
        assert_eq!(b.open(), vec!["storage_low s2"]);
        assert_eq!(b.check(free(LOW + clear_margin(LOW))), vec!["cleared s2"]);
        assert!(b.open().is_empty());
        assert_eq!(
            b.check(free(LOW - 1)),
            vec!["storage_low s4"],
            "a new episode"
        );
    }

    #[test]
    fn full_is_raised_while_events_are_held_and_cleared_when_they_are_written() {
        let mut b = Board::new();
        let held = Disk {
            free: Some(0),
            held: 3,
            ..Disk::default()
        };
        assert_eq!(b.check(held), vec!["storage_low s2", "storage_full s3"]);
        assert!(b.check(held).is_empty());
        assert_eq!(
            b.check(Disk {
                free: Some(2 * LOW),
                ..Disk::default()
            }),
            vec!["cleared s2", "cleared s3"]
        );
    }

    #[test]
    fn dropping_says_the_board_stopped_recording_then_a_notice_stays_until_dismissed() {
        let mut b = Board::new();
        let run = DroppedRun {
            events: 7,
            first: Timestamp::from_millis(5_000),
            last: Timestamp::from_millis(9_000),
        };
        let full = Disk {
            free: Some(0),
            held: 10,
            ..Disk::default()
        };
        b.check(full);
        let dropping = Disk {
            dropping: Some(run),
            ..full
        };
        assert_eq!(
            b.check(dropping),
            vec!["storage_full s3"],
            "the same alert again"
        );
        assert!(b
            .view
            .open_alerts()
            .any(|a| a.message.contains("STOPPED RECORDING")));
        assert!(b.check(dropping).is_empty(), "said once");
        let back = Disk {
            free: Some(2 * LOW),
            lost: Some(run),
            ..Disk::default()
        };
        assert_eq!(
            b.check(back),
            vec!["cleared s2", "cleared s3", "storage_full s7-lost"]
        );
        assert!(b.check(free(2 * LOW)).is_empty(), "the notice stays");
        assert_eq!(b.open(), vec!["storage_full s7-lost"]);
    }

    #[test]
    fn a_dismissed_alert_stays_away_until_the_episode_ends_and_a_new_game_gets_its_own() {
        let mut b = Board::new();
        assert_eq!(b.check(free(1)), vec!["storage_low s2"]);
        b.apply(Event::cleared("s2", ClearedHow::Dismissed));
        b.alerts.dismissed(AlertCode::StorageLow);
        assert!(b.check(free(1)).is_empty(), "dismissed: not again");
        b.check(free(2 * LOW));
        assert_eq!(b.check(free(1)), vec!["storage_low s4"], "a new episode");
        b.new_game();
        assert_eq!(
            b.check(free(1)),
            vec!["storage_low s6"],
            "the new game shows it too"
        );
        assert!(b.check(free(1)).is_empty());
    }

    #[test]
    fn nothing_is_raised_before_a_game_nor_with_no_threshold() {
        let mut b = Board {
            view: GameView::new(),
            seq: 0,
            alerts: StorageAlerts::new(0),
        };
        assert!(b
            .check(Disk {
                free: Some(0),
                held: 1,
                ..Disk::default()
            })
            .is_empty());
        b.new_game();
        assert_eq!(
            b.check(Disk {
                free: Some(0),
                held: 1,
                ..Disk::default()
            }),
            vec!["storage_full s2"],
            "full, but no storage_low with low_mb = 0"
        );
    }
}
