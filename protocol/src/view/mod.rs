//! The one fold of an event stream into a game: [`GameView`].
//!
//! Apply a board's events in `seq` order ([`GameView::apply_envelope`], or
//! [`GameView::apply`] with each event's time) and the view holds what they add up to:
//! the setup, the position and the record (a rules [`Game`]), the clocks (a rules
//! [`Clock`] run on the events' own times), the open alerts, the warnings, the phase, the
//! result, and the board's standing hardware faults. From it come the wire contract's `state`
//! snapshot ([`GameView::snapshot`]), the SGF ([`GameView::sgf`]) and `alerts/active`
//! ([`GameView::active_alerts_json`]).
//!
//! The referee is built on this view (restoring after a power cut is replaying the same
//! `apply`), the board's outputs come from it, and so do the hall's live and delayed views.
//! What each event means, decided here once:
//!
//! - `game_started` begins a new game (alerts, warnings and clocks start afresh; hardware
//!   faults and the alert numbering are the board's and carry on).
//! - `move` plays the stone; a move whose number is already in the record replaces that
//!   move and everything after it. The captured stones are to be lifted by the mover.
//! - `move_retracted` takes the move with that number, and only it, out of the record (the
//!   moves after it are replayed; any the rules then refuse are dropped and reported).
//! - `clock` is authoritative: the clocks are run from one event to the next with the
//!   rules clock, and each `clock` event (and each `move`'s `clock`) sets them to exactly
//!   what the board said. A press, a pause, a resume, an adjustment, a forfeited turn after
//!   a flag (Art. 22.5) are told apart by what changed.
//! - time passes between events for the running clock, except across a restart: a
//!   `status` `restoring` with `off_since` means the board was off, so the clocks stand
//!   still from the board's last sign of life (`off_since`, at the earliest the last event
//!   before it) and stay paused until an arbiter resumes them. No downtime is charged to
//!   anyone, and a flag that fell before the board went down stays fallen. (A `restoring`
//!   without `off_since` comes from a journal written before tengen did this: those
//!   boards ran their clocks on, and so does the fold.)
//! - a game whose `game_started` has `clock_start` `arbiter` or `white` *waits to begin*
//!   ([`GameView::waiting`]): its first `clock` event starts the clock of the side to move
//!   and pauses it in the same instant, and it waits until a `clock` event leaves the
//!   clocks running (the arbiter's `resume`, or with `white` the starting press). A
//!   restart while waiting keeps it waiting.
//! - `alert` opens an alert (and comments the last move in the SGF); `alert_cleared`
//!   `restored` closes it; `confirmed` or `dismissed` closes it for the arbiters, while an
//!   alert about the board's contents keeps covering its points (hidden) until the board
//!   is put right.
//! - `counting` enters counting, `play_resumed` leaves it, `game_over` ends the game and
//!   stops the clocks. `game_reopened` takes the game up again: the phase it names
//!   (`counting` or `playing`), no result (the SGF loses its `RE` until the next
//!   `game_over`, whose result then stands everywhere), the clocks still stopped (paused)
//!   until an arbiter resumes them.
//! - `alert_cleared` `restored` with `warning_pending` keeps the alert open for the
//!   arbiters, marked restored ([`OpenAlert::restored`]): it no longer covers its points,
//!   and the next `alert_cleared` of it (the arbiter's `confirmed` or `dismissed`) closes it.
//! - `warning` sets that side's warnings to its `count`, and so do `warning_given` (an
//!   arbiter's own finding) and `warning_withdrawn` (the count left).
//! - `game_voided` ends the game with no result and marks it void ([`GameView::voided`]):
//!   the public snapshot is then none.
//!
//! Events that cannot be applied (a move the rules refuse, a point off the board, a move
//! before any `game_started`) leave the view as it was and are reported as a
//! [`FoldError`], which callers log.

mod clocks;
mod record;
mod snapshot;

use tengen_rules::clock::{Arrivals, Clock, ClockEvent, TimeControl};
use tengen_rules::game::{Illegal, SetupError};
use tengen_rules::{Color, Game, Move, Point};
use thiserror::Error;

pub use record::MoveNote;
pub use snapshot::{ClocksNow, SeatNow, SeatState, SeatsNow, StateSnapshot};

use crate::event::{
    Alert, AlertCode, BoardState, ClearedHow, ClockStart, EndReason, Envelope, Event, FaultKind,
    GameSetup, PerColor, ReopenedPhase,
};
use crate::time::Timestamp;

/// How many `stuck`/`noisy` reports the view keeps (the newest).
pub const FAULTS_KEPT: usize = 10;

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    /// Stones are being played.
    #[default]
    Playing,
    /// Both passed: the players lift the dead stones and confirm.
    Counting,
    /// The game is over.
    Over,
}

impl Phase {
    /// `"playing"`, `"counting"`, `"over"`, as the `state` snapshot writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Playing => "playing",
            Phase::Counting => "counting",
            Phase::Over => "over",
        }
    }
}

/// Why an event could not be applied; the view is left as it was.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FoldError {
    /// A game event before any `game_started`.
    #[error("{0} before any game_started")]
    NoGame(&'static str),
    /// The `game_started` cannot be set up by the rules.
    #[error("game_started: {0}")]
    Setup(#[from] SetupError),
    /// A point off this board.
    #[error("move {number}: {point} is off a {size}x{size} board")]
    OffBoard {
        /// The move's number.
        number: u32,
        /// The point, in GTP.
        point: String,
        /// The board size.
        size: u8,
    },
    /// The rules refuse a move or pass (or a move after a retraction no longer replays).
    #[error("move {number} ({color} {point}) does not replay: {reason}")]
    Illegal {
        /// The move's number.
        number: u32,
        /// Who played it.
        color: Color,
        /// Where (`pass` for a pass).
        point: String,
        /// Why (`suicide`, `ko`, `superko`, `occupied`, ...).
        reason: &'static str,
    },
    /// `move_retracted` names a move the record does not have.
    #[error("move_retracted: there is no move {0}")]
    NoSuchMove(u32),
}

/// A pass its player may still take back by setting a stone down (Art. 17.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecentPass {
    /// Who passed.
    pub color: Color,
    /// When.
    pub at: Timestamp,
    /// Its move number.
    pub number: u32,
}

/// An alert as the view holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAlert {
    /// The alert.
    pub alert: Alert,
    /// False once an arbiter confirmed or dismissed it while the board still differed: it
    /// then only covers its points until the board is put right.
    pub visible: bool,
    /// The envelope it came in, when the view was fed envelopes (for `alerts/active`).
    pub envelope: Option<Envelope>,
    /// When the board was put right, for an alert left open with its warning pending
    /// (`alert_cleared` `restored` with `warning_pending`): it covers no point any more
    /// and waits for an arbiter's decision.
    pub restored: Option<Timestamp>,
}

/// One standing `sensor_fault`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultReport {
    /// The event's seq (0 when applied without an envelope).
    pub seq: u64,
    /// When.
    pub time: Timestamp,
    /// What kind.
    pub kind: FaultKind,
    /// Where (empty for link faults).
    pub points: Vec<Point>,
}

/// The current game, from its `game_started`.
#[derive(Debug, Clone)]
struct Current {
    setup: GameSetup,
    /// When the game was set up (its `game_started`).
    started: Timestamp,
    game: Game,
    record: Vec<MoveNote>,
    clock: Option<Clock>,
    alerts: Vec<OpenAlert>,
    warnings: PerColor<u32>,
    phase: Phase,
    result: Option<String>,
    /// Why the game ended, with `result`.
    end_reason: Option<EndReason>,
    /// The stones the last move captured, until the next move or an `uncaptured_stones`
    /// alert names them.
    to_lift: Vec<Point>,
    /// The side that set a stone down and has not pressed its clock yet.
    awaiting_press: Option<Color>,
    /// The last pass, while its player may still take it back.
    recent_pass: Option<RecentPass>,
    /// The last move's point (None after a pass).
    last_move: Option<Point>,
    /// A pass was withdrawn as `clock_before_move`: its press counts for the next stone.
    pressed_for_next: bool,
    /// The game waits to begin (its setup's `clock_start` is not `now`): both clocks are
    /// stopped until a `clock` event leaves them running.
    waiting: bool,
    /// An arbiter voided the game (`game_voided`).
    voided: bool,
    /// Who is seated, who is late (Art. 22), in a game whose players check in (its setup
    /// gives `late_limit_s` and it has a clock).
    arrivals: Option<Arrivals>,
}

/// The fold of one board's events: see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct GameView {
    board_id: String,
    game_id: String,
    seq: u64,
    last_time: Option<Timestamp>,
    current: Option<Current>,
    faults: Vec<FaultReport>,
    next_alert: u32,
}

impl GameView {
    /// A view of nothing yet.
    pub fn new() -> GameView {
        GameView::default()
    }

    /// Applies one event with its envelope (seq, time, board and game ids).
    pub fn apply_envelope(&mut self, envelope: &Envelope) -> Result<(), FoldError> {
        self.seq = self.seq.max(envelope.seq);
        self.board_id.clone_from(&envelope.board);
        if !envelope.game.is_empty() {
            self.game_id.clone_from(&envelope.game);
        }
        self.fold(&envelope.event, envelope.time, Some(envelope))
    }

    /// Applies one event that happened at `at`.
    pub fn apply(&mut self, event: &Event, at: Timestamp) -> Result<(), FoldError> {
        self.fold(event, at, None)
    }

    /// Time passes to `now` with no event: the running clock is charged and the byo-yomi
    /// calls and the flag that fell due are returned, each once, in order (the referee
    /// turns them into events). Nothing happens while the clocks are paused.
    pub fn advance(&mut self, now: Timestamp) -> Vec<ClockEvent> {
        match self.current.as_mut().and_then(|c| c.clock.as_mut()) {
            Some(clock) => clock.tick(now.millis()),
            None => Vec::new(),
        }
    }

    fn fold(
        &mut self,
        event: &Event,
        at: Timestamp,
        envelope: Option<&Envelope>,
    ) -> Result<(), FoldError> {
        let previous = self.last_time;
        self.last_time = Some(previous.map_or(at, |p| p.max(at)));
        if let Event::GameStarted(setup) = event {
            return self.start(setup, at);
        }
        if let Event::SensorFault { points, kind } = event {
            self.fault(*kind, points, at, envelope.map_or(0, |e| e.seq));
            return Ok(());
        }
        if let Event::Status {
            state, off_since, ..
        } = event
        {
            // A `restoring` written before tengen stopped the clocks at a restart (no
            // `off_since`) is read as those boards behaved: their clocks ran on.
            if let (BoardState::Restoring, Some(off)) = (state, off_since) {
                let last = previous.unwrap_or(at);
                self.restored((*off).max(last).min(at));
            }
            return Ok(());
        }
        let Some(cur) = self.current.as_mut() else {
            return match event {
                Event::Byoyomi { .. }
                | Event::AlertCleared { .. }
                | Event::Warning { .. }
                | Event::WarningGiven { .. }
                | Event::WarningWithdrawn { .. } => Ok(()),
                other => Err(FoldError::NoGame(other.kind())),
            };
        };
        if let Some(clock) = cur.clock.as_mut() {
            clock.tick(at.millis());
        }
        match event {
            Event::Move {
                number,
                color,
                point,
                captured,
                clock,
            } => {
                cur.play(*number, *color, Move::Play(*point), at)?;
                if let (Some(shown), Some(clk)) = (clock, cur.clock.as_mut()) {
                    clocks::correct(clk, *shown, None, at);
                }
                if let Some(note) = cur.record.last_mut() {
                    if let Some(shown) = clock {
                        note.time_left_ms = Some(shown.get(*color));
                    }
                }
                cur.to_lift.clone_from(captured);
                cur.awaiting_press = (!std::mem::take(&mut cur.pressed_for_next)).then_some(*color);
                cur.recent_pass = None;
                cur.last_move = Some(*point);
            }
            Event::Pass { number, color } => {
                cur.play(*number, *color, Move::Pass, at)?;
                cur.awaiting_press = None;
                cur.recent_pass = Some(RecentPass {
                    color: *color,
                    at,
                    number: *number,
                });
                cur.last_move = None;
            }
            Event::MoveRetracted { number, reason } => {
                cur.retract(*number)?;
                cur.recent_pass = None;
                if cur.phase == Phase::Counting {
                    cur.phase = Phase::Playing;
                }
                cur.pressed_for_next = *reason == crate::event::RetractReason::ClockBeforeMove;
            }
            Event::Clock(reading) => {
                if let Some(clock) = cur.clock.as_mut() {
                    clocks::apply_reading(clock, reading, at);
                    if !clock.is_paused() {
                        cur.waiting = false;
                    }
                }
                if let Some(mover) = cur.awaiting_press {
                    if reading.color == Some(mover) || reading.running == Some(mover.opponent()) {
                        cur.awaiting_press = None;
                    }
                }
            }
            Event::CheckedIn { color } => {
                if let Some(a) = cur.arrivals.as_mut() {
                    a.seated(*color, at.millis());
                }
            }
            Event::LateArrival {
                color,
                late_ms,
                deducted_ms,
            } => {
                if let Some(a) = cur.arrivals.as_mut() {
                    a.arrived(
                        *color,
                        at.millis(),
                        *late_ms,
                        *deducted_ms,
                        cur.clock.as_ref(),
                    );
                }
                if let Some(clock) = cur.clock.as_mut() {
                    clock.deduct(*color, *deducted_ms, at.millis());
                }
            }
            Event::Byoyomi { .. } => {}
            Event::Alert(alert) => {
                if alert.code == AlertCode::Absent {
                    if let Some(a) = cur.arrivals.as_mut() {
                        let sides = match alert.color {
                            Some(c) => vec![c],
                            None => vec![Color::Black, Color::White],
                        };
                        for c in sides {
                            a.report(c);
                        }
                    }
                }
                if let Some(n) = alert_number(&alert.id) {
                    self.next_alert = self.next_alert.max(n + 1);
                }
                if alert.code == AlertCode::UncapturedStones {
                    cur.to_lift.retain(|p| !alert.points.contains(p));
                }
                if let Some(note) = cur.record.last_mut() {
                    note.comments.push(alert.message.clone());
                }
                cur.alerts.retain(|a| a.alert.id != alert.id);
                cur.alerts.push(OpenAlert {
                    alert: alert.clone(),
                    visible: true,
                    envelope: envelope.cloned(),
                    restored: None,
                });
            }
            Event::AlertCleared {
                id,
                how,
                warning_pending,
            } => {
                if let Some(i) = cur.alerts.iter().position(|a| &a.alert.id == id) {
                    let a = &mut cur.alerts[i];
                    if *how == ClearedHow::Restored && *warning_pending && a.visible {
                        a.restored = Some(at);
                    } else if *how != ClearedHow::Restored
                        && a.alert.is_board_alert()
                        && a.restored.is_none()
                    {
                        a.visible = false;
                    } else {
                        cur.alerts.remove(i);
                    }
                }
            }
            Event::Warning { color, count, .. }
            | Event::WarningGiven { color, count, .. }
            | Event::WarningWithdrawn { color, count, .. } => {
                *cur.warnings.get_mut(*color) = *count;
            }
            Event::GameVoided { .. } => {
                cur.phase = Phase::Over;
                cur.result = None;
                cur.end_reason = None;
                cur.voided = true;
                cur.recent_pass = None;
                if let Some(clock) = cur.clock.as_mut() {
                    clock.pause(at.millis());
                }
            }
            Event::Counting { .. } => {
                if cur.phase == Phase::Playing {
                    cur.phase = Phase::Counting;
                }
            }
            Event::PlayResumed { .. } => {
                cur.phase = Phase::Playing;
                cur.recent_pass = None;
            }
            Event::GameOver(end) => {
                cur.phase = Phase::Over;
                cur.result = Some(end.result.clone());
                cur.end_reason = Some(end.reason);
                if let Some(clock) = cur.clock.as_mut() {
                    clock.pause(at.millis());
                }
            }
            Event::GameReopened { phase, .. } => {
                cur.phase = match phase {
                    ReopenedPhase::Playing => Phase::Playing,
                    ReopenedPhase::Counting => Phase::Counting,
                };
                cur.result = None;
                cur.end_reason = None;
                cur.recent_pass = None;
                cur.voided = false;
                // Stopped since the end: they stay so until an arbiter resumes them.
                if let Some(clock) = cur.clock.as_mut() {
                    clock.pause(at.millis());
                }
            }
            Event::GameStarted(_) | Event::SensorFault { .. } | Event::Status { .. } => {}
        }
        cur.follow_clocks(at);
        Ok(())
    }

    fn start(&mut self, setup: &GameSetup, started: Timestamp) -> Result<(), FoldError> {
        let game = if setup.handicap >= 2 {
            Game::with_handicap(setup.size, setup.handicap, setup.superko)
        } else {
            Game::new(setup.size, setup.superko)
        };
        let game = match game {
            Ok(g) => g,
            Err(e) => {
                self.current = None;
                return Err(e.into());
            }
        };
        let clock = match setup.time_control {
            TimeControl::None => None,
            tc => Some(Clock::new(tc)),
        };
        let clock_runs = clock.is_some();
        self.current = Some(Current {
            setup: setup.clone(),
            started,
            game,
            record: Vec::new(),
            clock,
            alerts: Vec::new(),
            warnings: PerColor::default(),
            phase: Phase::Playing,
            result: None,
            end_reason: None,
            to_lift: Vec::new(),
            awaiting_press: None,
            recent_pass: None,
            last_move: None,
            pressed_for_next: false,
            waiting: !setup.clock_start.is_now() && clock_runs,
            voided: false,
            arrivals: setup
                .late_policy()
                .filter(|_| clock_runs)
                .map(Arrivals::new),
        });
        Ok(())
    }

    /// A `status` `restoring`: the board was off since `stop` (its last sign of life).
    /// The running clock is charged up to then (a flag due by then falls) and both stay
    /// paused from then on.
    fn restored(&mut self, stop: Timestamp) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        if let Some(clock) = cur.clock.as_mut() {
            if cur.phase != Phase::Over {
                clock.tick(stop.millis());
                clock.pause(stop.millis());
            }
        }
        cur.follow_clocks(stop);
    }

    fn fault(&mut self, kind: FaultKind, points: &[Point], at: Timestamp, seq: u64) {
        if seq != 0 && self.faults.iter().any(|f| f.seq == seq) {
            return;
        }
        if kind == FaultKind::LinkRestored {
            self.faults.retain(|f| f.kind != FaultKind::LinkLost);
            return;
        }
        self.faults.push(FaultReport {
            seq,
            time: at,
            kind,
            points: points.to_vec(),
        });
        let kept = |f: &FaultReport| f.kind != FaultKind::LinkLost;
        while self.faults.iter().filter(|f| kept(f)).count() > FAULTS_KEPT {
            if let Some(i) = self.faults.iter().position(kept) {
                self.faults.remove(i);
            }
        }
    }

    /// The highest `seq` applied (0 before any envelope).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The board id of the envelopes applied.
    pub fn board_id(&self) -> &str {
        &self.board_id
    }

    /// The current game's id (from the envelopes).
    pub fn game_id(&self) -> &str {
        &self.game_id
    }

    /// The time of the latest event applied.
    pub fn last_time(&self) -> Option<Timestamp> {
        self.last_time
    }

    /// The number the next alert of this board gets (`a{n}`): one more than the highest
    /// seen (1 at first).
    pub fn next_alert_number(&self) -> u32 {
        self.next_alert.max(1)
    }

    /// When the current game was set up (its `game_started`'s time).
    pub fn started(&self) -> Option<Timestamp> {
        self.current.as_ref().map(|c| c.started)
    }

    /// The current game's setup, once its `game_started` is applied.
    pub fn setup(&self) -> Option<&GameSetup> {
        self.current.as_ref().map(|c| &c.setup)
    }

    /// The rules game: position, side to move, history.
    pub fn game(&self) -> Option<&Game> {
        self.current.as_ref().map(|c| &c.game)
    }

    /// The record: one note per move and pass of the game's history.
    pub fn record(&self) -> &[MoveNote] {
        self.current.as_ref().map_or(&[], |c| &c.record)
    }

    /// Where the game stands (`Playing` before any game).
    pub fn phase(&self) -> Phase {
        self.current.as_ref().map_or(Phase::Playing, |c| c.phase)
    }

    /// The clocks (`None` without a game or with no time control).
    pub fn clock(&self) -> Option<&Clock> {
        self.current.as_ref().and_then(|c| c.clock.as_ref())
    }

    /// The clocks as they read at `now`.
    pub fn clocks_at(&self, now: Timestamp) -> Option<ClocksNow> {
        let waiting = self.waiting();
        self.clock().map(|c| ClocksNow {
            waiting,
            ..ClocksNow::read(c, now)
        })
    }

    /// While the game waits to begin (set up with `clock_start` `arbiter` or `white`, its
    /// clocks not yet run): what it waits for. `None` once the clocks have run, at the end,
    /// and in a game set up with `now` or without a clock.
    pub fn waiting(&self) -> Option<ClockStart> {
        let cur = self.current.as_ref()?;
        (cur.waiting && cur.phase != Phase::Over).then_some(cur.setup.clock_start)
    }

    /// Who is seated and who is late (Art. 22), in a game whose players check in (its
    /// `game_started` gives `late_limit_s`, and it has a clock); `None` otherwise.
    pub fn arrivals(&self) -> Option<&Arrivals> {
        self.current.as_ref().and_then(|c| c.arrivals.as_ref())
    }

    /// Every alert the view holds, visible or not, oldest first.
    pub fn alerts(&self) -> &[OpenAlert] {
        self.current.as_ref().map_or(&[], |c| &c.alerts)
    }

    /// The alerts open for the arbiters, oldest first.
    pub fn open_alerts(&self) -> impl Iterator<Item = &Alert> {
        self.alerts().iter().filter(|a| a.visible).map(|a| &a.alert)
    }

    /// True once an arbiter voided the current game (`game_voided`).
    pub fn voided(&self) -> bool {
        self.current.as_ref().is_some_and(|c| c.voided)
    }

    /// The alerts left open with their warning pending after the board was put right, with
    /// when it was (see [`OpenAlert::restored`]).
    pub fn pending_warnings(&self) -> impl Iterator<Item = (&Alert, Timestamp)> {
        self.alerts()
            .iter()
            .filter(|a| a.visible)
            .filter_map(|a| a.restored.map(|t| (&a.alert, t)))
    }

    /// Warnings given in this game.
    pub fn warnings(&self) -> PerColor<u32> {
        self.current
            .as_ref()
            .map_or(PerColor::default(), |c| c.warnings)
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&str> {
        self.current.as_ref().and_then(|c| c.result.as_deref())
    }

    /// Why the game ended, once it is over.
    pub fn end_reason(&self) -> Option<EndReason> {
        self.current.as_ref().and_then(|c| c.end_reason)
    }

    /// The stones the last move captured that the mover has still to lift (as far as the
    /// events tell: the referee also sees them go).
    pub fn captures_to_lift(&self) -> &[Point] {
        self.current.as_ref().map_or(&[], |c| &c.to_lift)
    }

    /// The side that set a stone down and has not pressed its clock yet.
    pub fn awaiting_press(&self) -> Option<Color> {
        self.current.as_ref().and_then(|c| c.awaiting_press)
    }

    /// The last pass, while its player may still take it back.
    pub fn recent_pass(&self) -> Option<RecentPass> {
        self.current.as_ref().and_then(|c| c.recent_pass)
    }

    /// The last move's point (`None` after a pass or before the first move).
    pub fn last_move(&self) -> Option<Point> {
        self.current.as_ref().and_then(|c| c.last_move)
    }

    /// The board's standing hardware trouble, oldest first: a lost link until restored,
    /// the newest [`FAULTS_KEPT`] stuck or noisy sensors.
    pub fn faults(&self) -> &[FaultReport] {
        &self.faults
    }

    /// `alerts/active`: the open alerts as a JSON array, each the `alert` event as it came
    /// (with its envelope when the view was fed envelopes), oldest first. An alert left open
    /// with its warning pending has `restored` too: when the board was put right.
    pub fn active_alerts_json(&self) -> String {
        let items: Vec<serde_json::Value> = self
            .alerts()
            .iter()
            .filter(|a| a.visible)
            .filter_map(|a| {
                let mut v = match &a.envelope {
                    Some(e) => serde_json::to_value(e),
                    None => serde_json::to_value(Event::Alert(a.alert.clone())),
                }
                .ok()?;
                if let (Some(at), Some(o)) = (a.restored, v.as_object_mut()) {
                    o.insert("restored".into(), serde_json::json!(at));
                }
                Some(v)
            })
            .collect();
        serde_json::Value::Array(items).to_string()
    }
}

impl Current {
    /// Tells the arrivals whether the clocks run at `at` (play begins the first time they
    /// do; a pause, a flag, the end stop the lateness).
    fn follow_clocks(&mut self, at: Timestamp) {
        let (Some(arrivals), Some(clock)) = (self.arrivals.as_mut(), self.clock.as_ref()) else {
            return;
        };
        let stopped = self.waiting
            || self.phase == Phase::Over
            || clock.is_paused()
            || clock.flagged().is_some();
        arrivals.clocks(stopped, at.millis(), Some(clock));
    }

    /// Plays move `number` (a stone or a pass) into the record; a number already in the
    /// record replaces that move and the ones after it.
    fn play(
        &mut self,
        number: u32,
        color: Color,
        mv: Move,
        at: Timestamp,
    ) -> Result<(), FoldError> {
        let size = self.setup.size;
        if let Move::Play(p) = mv {
            if !p.on_board(size) {
                return Err(FoldError::OffBoard {
                    number,
                    point: p.to_gtp(),
                    size,
                });
            }
        }
        if number >= 1 && number <= self.game.move_number() {
            self.truncate(number - 1);
        }
        self.game
            .play_as(color, mv)
            .map_err(|why| illegal(number, color, mv, why))?;
        self.record
            .push(MoveNote::new(color, mv, self.clock.as_ref(), at));
        Ok(())
    }

    /// Keeps the first `moves` moves of the record.
    fn truncate(&mut self, moves: u32) {
        while self.game.move_number() > moves && self.game.undo().is_some() {
            self.record.pop();
        }
    }

    /// Takes move `number` out of the record; the moves after it are played again.
    fn retract(&mut self, number: u32) -> Result<(), FoldError> {
        let count = self.game.move_number();
        if number == 0 || number > count {
            return Err(FoldError::NoSuchMove(number));
        }
        let later: Vec<MoveNote> = self.record.split_off(number as usize);
        self.truncate(number - 1);
        let mut first_error = None;
        for (i, note) in later.into_iter().enumerate() {
            let n = number + i as u32 + 1;
            match self.game.play_as(note.color, note.mv) {
                Ok(_) => self.record.push(note),
                Err(why) => {
                    first_error.get_or_insert(illegal(n, note.color, note.mv, why));
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

fn illegal(number: u32, color: Color, mv: Move, why: Illegal) -> FoldError {
    FoldError::Illegal {
        number,
        color,
        point: mv.to_gtp(),
        reason: why.as_str(),
    }
}

/// `12` for `"a12"`.
fn alert_number(id: &str) -> Option<u32> {
    id.strip_prefix('a')?.parse().ok()
}

#[cfg(test)]
mod tests;
