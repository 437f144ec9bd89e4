//! The referee: compares the stable physical board and the clock presses with the rules
//! position and produces the wire contract's events (moves, passes, alerts, warnings, counting, the
//! end of the game).
//!
//! **Event-sourced.** The game (record, clocks, open alerts, warnings, phase, result) lives
//! in a [`GameView`], the protocol's one fold of an event stream. The referee decides what
//! happened and *emits* events; emitting applies the event to the view ([`Referee::apply`])
//! and nothing else changes the game. So rebuilding the referee from its journal after a
//! power cut ([`Referee::replay`]) is applying the same events again, and what the referee
//! believes is exactly what every consumer of its events believes. Besides the view it
//! keeps what it *observes* (the stable physical board and when each point last changed,
//! a difference not yet named, a resignation gesture, the counting confirmations, the
//! captured stones already lifted), which the board gives back after a restart.
//!
//! Sans-IO: every input carries its time (ms on the caller's clock) and every output is a
//! list of [`Event`] bodies, each happening at the input's time; whoever writes them adds
//! `seq` and `time`.
//!
//! Decisions not fixed by docs/mqtt-http.md (documented here and in the README):
//! - `wrong_color`: a stone of the colour *not* to move set down before the first move of
//!   the game (players took the wrong bowls); the offending side is the side to move.
//!   Later, the same action is `double_move`.
//! - A stone lifted that is the last move's stone waits up to `pass_grace_ms` to be put
//!   back or played elsewhere (`takeback`) before it is a `mismatch`; other lone lifts of
//!   the side to move's stones are `wrong_capture` by the last mover.
//! - Differences that are not a move are classified once they have held unchanged for
//!   twice the stable time, so a stone pushed along the board or lifted and replayed is seen
//!   whole before it is named.
//! - The clock of the side to move starts when the game starts (`clock_start` `now`), or
//!   the game waits to begin with both clocks stopped, paused as by an arbiter's pause,
//!   until the arbiter's `resume` (`arbiter`), or that or the press of the side that does
//!   not move first (`white`: White in an even game, Black in a handicap game, where White
//!   moves first). That press is not a pass, and neither is any other press while waiting
//!   (it does nothing). A stone set down while waiting is read as during a pause: a stone
//!   of the side to move is a move (its press completes it, the clocks stay stopped). No
//!   time runs for anyone while waiting. A `new_game` command waits as
//!   [`RefereeSettings::clock_start`] says; the game a board sets up by itself as its
//!   setup's `clock_start` says.
//! - A restart during a game pauses the clocks as they stood when the board went down and
//!   raises `board_restarted` for the arbiter ([`Referee::restart`]); the arbiter's
//!   `resume` clears it.
//! - Everything decisive can be undone: `reopen` takes a finished game back to the phase
//!   it ended from (`counting` after a counted result, else `playing`) with its clocks
//!   paused and no result; back in play the board is read again, and what differs from the
//!   record is a `mismatch` (or `board_disturbed`) alert showing what it must look like,
//!   never a move. `withdraw_warning` takes back a warning given by mistake (while the game
//!   is on: reopen a game a second warning ended first). `set_result` takes a `reason`
//!   that must fit the result (`time` needs `B+T` or `W+T`...). A side whose flag fell and
//!   whose game was reopened reads 0: `resume` is refused until `adjust_time` sets it.
//! - A violation that carries a warning, put right on the board before an arbiter decided
//!   (penalties `arbiter`), is cleared `restored` with `warning_pending`: play goes on, and
//!   the alert stays open for the arbiters until a `confirm` (the warning: Art. 17.2, 18.2
//!   and 22.6 give it whether or not the board was put right) or a `dismiss`.
//!   `give_warning` gives one on the arbiter's own finding (`warning_given`), counted as
//!   any other; `void_game` ends a game started by mistake with no result
//!   (`game_voided`), its open alerts dismissed; a game an arbiter ends (`set_result`,
//!   `resign`) closes the alerts about the board that carry no warning (`mismatch`,
//!   `board_disturbed`...: a finished game has no board to put right).

mod alerts;
mod arbiter;
mod arrival;
mod board_reading;
mod ending;
mod restart;
mod settings;

use std::collections::BTreeSet;

pub use alerts::is_penalised;
pub use arbiter::CommandRefused;
pub use settings::{Penalties, RefereeSettings};

use tengen_hal::{Button, ButtonAction, ButtonEvent, Millis};
use tengen_protocol::event::{Alert, AlertCode, ClearedHow, ClockReading, Expected, PerColor};
use tengen_protocol::view::{ClocksNow, Phase};
use tengen_protocol::{Event, GameView, Timestamp};
use tengen_rules::clock::{Clock, ClockEvent};
use tengen_rules::game::SetupError;
use tengen_rules::{Color, Game, Point};

use crate::stabiliser::{Change, Stone};

/// Why a referee could not be set up or rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    /// The rules core refused the game's setup (size, handicap...).
    #[error("bad game setup: {0}")]
    Setup(#[from] SetupError),
    /// The events to replay hold no game.
    #[error("the events hold no game_started to rebuild the game from")]
    NoGame,
}

/// The referee of a board: see the module documentation.
#[derive(Debug, Clone)]
pub struct Referee {
    settings: RefereeSettings,
    /// The game, folded from the events the referee emitted (or replayed).
    view: GameView,
    /// What the board's events said that the view does not keep: handicap stones not yet
    /// set down (cleared by the first move).
    setup_missing: BTreeSet<Point>,
    /// Observed: the last move's captured stones seen off the board.
    lifted: BTreeSet<Point>,
    /// Observed: hidden alerts (confirmed or dismissed while the board differed) whose
    /// points have been put right; they no longer cover anything.
    retired: BTreeSet<String>,
    /// Observed: which sides have pressed to confirm the count (`Color::index`).
    confirmed: [bool; 2],
    /// The stable physical board, index order of `Point::index`.
    physical: Vec<Stone>,
    /// When each point's current physical state began.
    onset: Vec<Millis>,
    /// Since when the board has shown a difference that is not a move, unclassified.
    unexplained_since: Option<Millis>,
    /// Two stones of this colour in its player's resignation corner, awaiting the press.
    resign_proposal: Option<Color>,
    now: Millis,
}

fn ts(ms: Millis) -> Timestamp {
    Timestamp::from_millis(ms)
}

impl Referee {
    /// A referee with no game yet, for `settings`.
    fn blank(settings: RefereeSettings) -> Referee {
        let n = usize::from(settings.game.size).pow(2);
        Referee {
            settings,
            view: GameView::new(),
            setup_missing: BTreeSet::new(),
            lifted: BTreeSet::new(),
            retired: BTreeSet::new(),
            confirmed: [false; 2],
            physical: vec![None; n],
            onset: vec![0; n],
            unexplained_since: None,
            resign_proposal: None,
            now: 0,
        }
    }

    /// A referee for a new game set up from `settings.game`, starting at `now`. Returns the
    /// referee and its first events (`game_started`, and a `clock` when a clock runs).
    pub fn start(
        settings: RefereeSettings,
        now: Millis,
    ) -> Result<(Referee, Vec<Event>), RefereeError> {
        let setup = settings.game.clone();
        let mut r = Referee::blank(settings);
        let events = r.new_game(setup, now)?;
        Ok((r, events))
    }

    /// Rebuilds the referee from the events it emitted before (the current game of its
    /// journal, from its `game_started` on, each with its time): the same `apply`, event by
    /// event. Events that do not apply are skipped and returned (with their position in
    /// `events`) for the caller to log. The physical board is not in the events: the
    /// referee expects what the record says ([`Referee::expected_physical`]) until told
    /// otherwise ([`Referee::resync_physical`]).
    pub fn replay(
        settings: RefereeSettings,
        events: &[(Timestamp, Event)],
    ) -> Result<(Referee, Vec<(usize, tengen_protocol::view::FoldError)>), RefereeError> {
        let mut r = Referee::blank(settings);
        let mut skipped = Vec::new();
        for (i, (at, e)) in events.iter().enumerate() {
            r.now = r.now.max(at.millis());
            if let Err(why) = r.apply(e, *at) {
                skipped.push((i, why));
            }
        }
        let Some(setup) = r.view.setup() else {
            return Err(RefereeError::NoGame);
        };
        r.settings.game = setup.clone();
        r.physical = r.expected_physical();
        Ok((r, skipped))
    }

    /// Applies one event (emitted by this referee, now or before a restart) at `at`: the
    /// view folds it, and the referee's bookkeeping of the board follows. The only place
    /// the game changes.
    pub fn apply(
        &mut self,
        event: &Event,
        at: Timestamp,
    ) -> Result<(), tengen_protocol::view::FoldError> {
        let applied = self.view.apply(event, at);
        match event {
            Event::GameStarted(setup) => {
                let n = usize::from(setup.size).pow(2);
                if self.physical.len() != n {
                    self.physical = vec![None; n];
                    self.onset = vec![at.millis(); n];
                }
                self.setup_missing = self
                    .view
                    .game()
                    .map(|g| g.board().stones().into_iter().map(|(p, _)| p).collect())
                    .unwrap_or_default();
                self.lifted.clear();
                self.retired.clear();
                self.confirmed = [false; 2];
                self.unexplained_since = None;
                self.resign_proposal = None;
            }
            Event::Move { .. } => {
                self.setup_missing.clear();
                self.lifted.clear();
                self.unexplained_since = None;
            }
            Event::Counting { .. } | Event::PlayResumed { .. } => self.confirmed = [false; 2],
            Event::GameReopened { .. } => {
                // Counting starts afresh (both confirm again); a gesture or a difference
                // seen while the game was over is not carried into it.
                self.confirmed = [false; 2];
                self.unexplained_since = None;
                self.resign_proposal = None;
            }
            Event::Alert(_) => self.unexplained_since = None,
            _ => {}
        }
        applied
    }

    /// Applies `event` now and adds it to `out`.
    fn emit(&mut self, out: &mut Vec<Event>, event: Event) {
        // The referee's own events always apply: it decides them from the same view.
        let _ = self.apply(&event, ts(self.now));
        out.push(event);
    }

    /// The settings the current game was set up with.
    pub fn settings(&self) -> &RefereeSettings {
        &self.settings
    }

    /// The game as the referee's events fold it: record, clocks, alerts, `state`, SGF.
    pub fn view(&self) -> &GameView {
        &self.view
    }

    /// Where the game stands.
    pub fn phase(&self) -> Phase {
        self.view.phase()
    }

    /// The stable physical board as the referee last saw it (index order).
    pub fn physical(&self) -> &[Stone] {
        &self.physical
    }

    fn size(&self) -> u8 {
        self.view
            .setup()
            .map_or(self.settings.game.size, |s| s.size)
    }

    /// The game's stone at `p` in the record.
    fn record_at(&self, p: Point) -> Stone {
        self.view.game().and_then(|g| g.board().get(p))
    }

    fn physical_at(&self, p: Point) -> Stone {
        self.physical.get(p.index(self.size())).copied().flatten()
    }

    fn to_move(&self) -> Color {
        self.view.game().map_or(Color::Black, Game::to_move)
    }

    /// The last move's captured stones still on the board (being lifted).
    fn pending(&self) -> Vec<Point> {
        self.view
            .captures_to_lift()
            .iter()
            .copied()
            .filter(|p| !self.lifted.contains(p))
            .collect()
    }

    /// What the physical board should show right now (index order): the record's position,
    /// plus captured stones not yet lifted and minus handicap stones not yet set down. A
    /// stabiliser restarted after a power cut starts from this.
    pub fn expected_physical(&self) -> Vec<Stone> {
        let size = self.size();
        let n = usize::from(size).pow(2);
        let mut v: Vec<Stone> = (0..n)
            .map(|i| self.record_at(Point::from_index(i, size)))
            .collect();
        let to_move = self.to_move();
        for p in self.pending() {
            v[p.index(size)] = Some(to_move);
        }
        for p in &self.setup_missing {
            v[p.index(size)] = None;
        }
        v
    }

    /// The alerts that cover points: every alert of the view but the retired ones and those
    /// put right whose warning is pending.
    fn covering(&self) -> impl Iterator<Item = &tengen_protocol::view::OpenAlert> {
        self.view
            .alerts()
            .iter()
            .filter(|a| !self.retired.contains(&a.alert.id) && a.restored.is_none())
    }

    /// How penalties are given in the current game: as its `new_game` said, else as the
    /// board's settings say.
    fn penalties(&self) -> Penalties {
        self.view
            .setup()
            .and_then(|s| s.penalties)
            .unwrap_or(self.settings.penalties)
    }

    /// Takes in what the physical board shows without interpreting it: captured stones
    /// already off the board, handicap stones set down, hidden alerts put right.
    fn observe(&mut self) {
        let size = self.size();
        let physical = &self.physical;
        let at = |p: &Point| physical.get(p.index(size)).copied().flatten();
        for p in self.view.captures_to_lift() {
            if at(p).is_none() {
                self.lifted.insert(*p);
            }
        }
        self.setup_missing.retain(|p| at(p).is_none());
        for a in self.view.alerts() {
            if !a.visible && a.alert.expected.iter().all(|(p, want)| at(&p) == want) {
                self.retired.insert(a.alert.id.clone());
            }
        }
    }

    /// Tells the referee what the physical board shows, without interpreting it (after a
    /// restart): captured stones already lifted stop being expected.
    pub fn resync_physical(&mut self, stones: &[Stone]) {
        if stones.len() != self.physical.len() {
            return;
        }
        self.physical = stones.to_vec();
        self.observe();
    }

    /// A batch of stable changes from the stabiliser, at `now`.
    pub fn on_changes(&mut self, changes: &[Change], now: Millis) -> Vec<Event> {
        self.now = now;
        let mut out = Vec::new();
        self.clock_due(&mut out);
        let size = self.size();
        for c in changes {
            if c.point.on_board(size) {
                let i = c.point.index(size);
                self.physical[i] = c.to;
                self.onset[i] = c.onset;
            }
        }
        self.interpret_board(&mut out);
        out
    }

    /// Clock-button events (only presses count), at their own times.
    pub fn on_buttons(&mut self, buttons: &[ButtonEvent]) -> Vec<Event> {
        let mut out = Vec::new();
        for b in buttons {
            if b.action != ButtonAction::Press {
                continue;
            }
            let color = match b.button {
                Button::Black => Color::Black,
                Button::White => Color::White,
            };
            self.now = self.now.max(b.time);
            self.on_press(&mut out, color);
        }
        out
    }

    /// Time passes: clock calls, flag fall, and differences that have now held long enough
    /// to be named.
    pub fn tick(&mut self, now: Millis) -> Vec<Event> {
        self.now = now;
        let mut out = Vec::new();
        if self.phase() == Phase::Over {
            return out;
        }
        self.clock_due(&mut out);
        if let Some(since) = self.unexplained_since {
            if self.phase() == Phase::Playing && now >= since + 2 * self.settings.stable_ms {
                self.classify(&mut out, since);
            }
        }
        out
    }

    /// Emits the byo-yomi calls and the flag that fell due up to now.
    fn clock_due(&mut self, out: &mut Vec<Event>) {
        for due in self.view.advance(ts(self.now)) {
            match due {
                ClockEvent::Call {
                    color,
                    call,
                    periods_left,
                } => self.emit(
                    out,
                    Event::Byoyomi {
                        color,
                        call,
                        periods_left,
                    },
                ),
                ClockEvent::Flag { color } => self.flag(out, color),
            }
        }
        self.lateness_due(out);
    }

    /// `color`'s flag fell: `time_expired`, unless one is open already.
    fn flag(&mut self, out: &mut Vec<Event>, color: Color) {
        if self.flag_while_away(out, color) {
            return;
        }
        let open = self
            .view
            .alerts()
            .iter()
            .any(|a| a.alert.code == AlertCode::TimeExpired);
        if !open {
            self.raise(
                out,
                AlertCode::TimeExpired,
                Some(color),
                Vec::new(),
                Vec::new(),
            );
        }
    }

    /// The clocks as `clock` would show them after `change` (a press, a pause...), without
    /// changing them: the event's reading. Emitting the event makes the change.
    fn reading_after(
        &self,
        color: Option<Color>,
        change: impl FnOnce(&mut Clock, Millis),
    ) -> Option<ClockReading> {
        let mut probe = self.view.clock()?.clone();
        change(&mut probe, self.now);
        Some(reading(&probe, color, self.now))
    }

    /// Time left on both clocks now, or `None` without a clock.
    fn clocks_now(&self) -> Option<PerColor<u64>> {
        self.view
            .clocks_at(ts(self.now))
            .map(|c| PerColor::new(c.black, c.white))
    }

    /// Raises an alert: its event, and a warning at once where penalties are automatic.
    fn raise(
        &mut self,
        out: &mut Vec<Event>,
        code: AlertCode,
        color: Option<Color>,
        points: Vec<Point>,
        expected: Vec<(Point, Stone)>,
    ) {
        let points = tengen_protocol::gtp::sorted(points);
        let message = alerts::message(code, color, &points);
        self.raise_with(out, code, color, points, expected, message);
    }

    /// [`Referee::raise`] with its own sentence.
    fn raise_with(
        &mut self,
        out: &mut Vec<Event>,
        code: AlertCode,
        color: Option<Color>,
        points: Vec<Point>,
        expected: Vec<(Point, Stone)>,
        message: String,
    ) {
        // A time-out is ruled by the article of the game's time control (22.5, 12.4, 12.5).
        let article = match (code, self.view.setup()) {
            (AlertCode::TimeExpired, Some(setup)) => {
                AlertCode::time_out_article(&setup.time_control)
            }
            _ => code.article(),
        };
        let alert = Alert {
            id: format!("a{}", self.view.next_alert_number()),
            code,
            article: article.to_string(),
            color,
            points,
            expected: Expected::new(expected),
            message,
            late_ms: None,
        };
        let id = alert.id.clone();
        let board_alert = alert.is_board_alert();
        self.emit(out, Event::Alert(alert));
        let auto = self.penalties() == Penalties::Auto && is_penalised(code);
        if let (true, Some(c)) = (auto, color) {
            let over = self.give_warning(out, c, code);
            if !board_alert {
                self.emit(out, Event::cleared(id, ClearedHow::Confirmed));
            }
            if let Some(over) = over {
                self.emit(out, over);
            }
        }
    }
}

/// The `clock` event's reading of `clock` at `now` (`color`: who pressed, if anyone).
fn reading(clock: &Clock, color: Option<Color>, now: Millis) -> ClockReading {
    ClocksNow::read(clock, Timestamp::from_millis(now)).as_event_reading(color)
}
