//! The referee: compares the stable physical board and the clock presses with the rules
//! position and produces SPEC.md's events (moves, passes, alerts, warnings, counting, the
//! end of the game).
//!
//! Pure and sans-IO: every input carries its time (ms on the caller's clock) and every
//! output is a list of [`Event`] bodies; whoever writes them adds `seq` and `time`.
//!
//! The referee holds the rules [`Game`] (the record: it never contains an illegal move), the
//! clock, the captured stones still physically on the board (the mover lifts them one by one
//! at any pace), and the open alerts. What the board must show is always the record's
//! position (captured stones still being lifted may be present or gone); an alert names the
//! points that differ and clears with `how:"restored"` once they match again.
//!
//! Decisions not fixed by SPEC.md (documented here and in the README):
//! - `wrong_color`: a stone of the colour *not* to move set down before the first move of
//!   the game (players took the wrong bowls); the offending side is the side to move.
//!   Later, the same action is `double_move`.
//! - A stone lifted that is the last move's stone waits up to `pass_grace_ms` to be put
//!   back or played elsewhere (`takeback`) before it is a `mismatch`; other lone lifts of
//!   the side to move's stones are `wrong_capture` by the last mover.
//! - Differences that are not a move are classified once they have held unchanged for
//!   twice the stable time, so a stone pushed along the board or lifted and replayed is seen
//!   whole before it is named.
//! - The clock of the side to move starts when the game starts.

mod alerts;
mod commands;
mod interpret;
mod outcome;
mod record;
mod restore;
mod settings;

use std::collections::BTreeSet;

pub use alerts::{is_penalised, message, OpenAlert};
pub use settings::{Penalties, RefereeSettings, Side};

use tengen_hal::{Button, ButtonAction, ButtonEvent, Millis};
use tengen_rules::clock::{Clock, ClockEvent, TimeControl};
use tengen_rules::game::{Game, SetupError};
use tengen_rules::{Color, Point};

use crate::event::{Event, PerColor};
use crate::stabiliser::{Change, Stone};

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Stones are being played.
    Playing,
    /// Both passed: players lift dead stones; each side's press confirms.
    Counting {
        /// Which sides have pressed to confirm (indexed by `Color::index`).
        confirmed: [bool; 2],
    },
    /// The game is over; board changes are ignored.
    Over,
}

/// Why a referee could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    /// The rules core refused the game's setup (size, handicap...).
    #[error("bad game setup: {0}")]
    Setup(#[from] SetupError),
}

/// A pass that the same player may still retract by setting a stone down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RecentPass {
    color: Color,
    at: Millis,
    number: u32,
}

/// The referee of one game.
#[derive(Debug, Clone)]
pub struct Referee {
    settings: RefereeSettings,
    game: Game,
    clock: Option<Clock>,
    /// The stable physical board, index order of `Point::index`.
    physical: Vec<Stone>,
    /// When each point's current physical state began.
    onset: Vec<Millis>,
    /// Stones the last move captured that are still on the board (being lifted).
    pending: BTreeSet<Point>,
    /// Handicap stones not yet set down before the first move.
    setup_missing: BTreeSet<Point>,
    alerts: Vec<OpenAlert>,
    next_alert: u32,
    warnings: [u32; 2],
    phase: Phase,
    /// The side that set a stone down and has not pressed the clock yet.
    moved: Option<Color>,
    recent_pass: Option<RecentPass>,
    /// The last move's point and when its stone arrived.
    last_move: Option<(Point, Color, Millis)>,
    /// Since when the board has shown a difference that is not a move, unclassified.
    unexplained_since: Option<Millis>,
    /// Two stones of this colour in its player's resignation corner, awaiting the press.
    resign_proposal: Option<Color>,
    /// Per-move data for the SGF (one entry per entry of the game's history).
    record: Vec<record::MoveNote>,
    result: Option<String>,
    now: Millis,
}

impl Referee {
    /// A referee for a new game set up from `settings`, starting at `now`. Returns the
    /// referee and its `game_started` event (and a `clock` event when a clock runs).
    pub fn new(
        settings: RefereeSettings,
        now: Millis,
    ) -> Result<(Referee, Vec<Event>), RefereeError> {
        let game = if settings.handicap >= 2 {
            Game::with_handicap(settings.size, settings.handicap, settings.superko)?
        } else {
            Game::new(settings.size, settings.superko)?
        };
        let n = settings.size as usize * settings.size as usize;
        let setup_missing = game.board().stones().into_iter().map(|(p, _)| p).collect();
        let clock = match settings.time {
            TimeControl::None => None,
            tc => Some(Clock::new(tc)),
        };
        let mut r = Referee {
            settings,
            game,
            clock,
            physical: vec![None; n],
            onset: vec![now; n],
            pending: BTreeSet::new(),
            setup_missing,
            alerts: Vec::new(),
            next_alert: 1,
            warnings: [0, 0],
            phase: Phase::Playing,
            moved: None,
            recent_pass: None,
            last_move: None,
            unexplained_since: None,
            resign_proposal: None,
            record: Vec::new(),
            result: None,
            now,
        };
        let mut events = vec![r.game_started()];
        let to_move = r.game.to_move();
        if let Some(clock) = r.clock.as_mut() {
            clock.start(to_move, now);
            events.push(r.clock_event(None));
        }
        Ok((r, events))
    }

    /// The `game_started` event of the current game.
    pub fn game_started(&self) -> Event {
        let s = &self.settings;
        Event::GameStarted {
            size: s.size,
            komi: s.komi,
            handicap: s.handicap,
            rules: "chinese".to_string(),
            superko: s.superko.as_str().to_string(),
            time_control: s.time.to_string(),
            black: s.black.clone(),
            white: s.white.clone(),
            round: s.round.clone(),
            table: s.table.clone(),
        }
    }

    /// The settings the current game was set up with.
    pub fn settings(&self) -> &RefereeSettings {
        &self.settings
    }

    /// The record: the rules position and every move and pass played.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Where the game stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The alerts open right now (as arbiters see them).
    pub fn open_alerts(&self) -> impl Iterator<Item = &OpenAlert> {
        self.alerts.iter().filter(|a| a.visible)
    }

    /// Warnings given so far, indexed by `Color::index`.
    pub fn warnings(&self) -> [u32; 2] {
        self.warnings
    }

    /// The result once the game is over (SGF form).
    pub fn result(&self) -> Option<&str> {
        self.result.as_deref()
    }

    /// The stable physical board as the referee last saw it (index order).
    pub fn physical(&self) -> &[Stone] {
        &self.physical
    }

    /// What the physical board should show right now (index order): the record's position,
    /// plus captured stones not yet lifted and minus handicap stones not yet set down. A
    /// stabiliser restarted after a power cut starts from this.
    pub fn expected_physical(&self) -> Vec<Stone> {
        let size = self.settings.size;
        let mut v: Vec<Stone> = (0..self.physical.len())
            .map(|i| self.game.board().get(Point::from_index(i, size)))
            .collect();
        for p in &self.pending {
            v[p.index(size)] = Some(self.game.to_move());
        }
        for p in &self.setup_missing {
            v[p.index(size)] = None;
        }
        v
    }

    /// A batch of stable changes from the stabiliser, at `now`.
    pub fn on_changes(&mut self, changes: &[Change], now: Millis) -> Vec<Event> {
        self.now = now;
        let size = self.settings.size;
        for c in changes {
            if c.point.on_board(size) {
                let i = c.point.index(size);
                self.physical[i] = c.to;
                self.onset[i] = c.onset;
            }
        }
        self.interpret_board(now)
    }

    /// Clock-button events (only presses count), at their own times.
    pub fn on_buttons(&mut self, buttons: &[ButtonEvent]) -> Vec<Event> {
        let mut events = Vec::new();
        for b in buttons {
            if b.action != ButtonAction::Press {
                continue;
            }
            let color = match b.button {
                Button::Black => Color::Black,
                Button::White => Color::White,
            };
            events.extend(self.on_press(color, b.time));
        }
        events
    }

    /// Time passes: clock calls, flag fall, and differences that have now held long enough
    /// to be named.
    pub fn tick(&mut self, now: Millis) -> Vec<Event> {
        self.now = now;
        let mut events = Vec::new();
        if self.phase == Phase::Over {
            return events;
        }
        if let Some(clock) = self.clock.as_mut() {
            let clock_events = clock.tick(now);
            events.extend(self.clock_events(clock_events));
        }
        if let Some(since) = self.unexplained_since {
            if self.phase == Phase::Playing && now >= since + 2 * self.settings.stable_ms {
                events.extend(self.classify(now, since));
            }
        }
        events
    }

    fn clock_events(&mut self, clock_events: Vec<ClockEvent>) -> Vec<Event> {
        let mut events = Vec::new();
        for ce in clock_events {
            match ce {
                ClockEvent::Call {
                    color,
                    call,
                    periods_left,
                } => events.push(Event::Byoyomi {
                    color,
                    call: call.as_str().to_string(),
                    periods_left,
                }),
                ClockEvent::Flag { color } => {
                    let already = self
                        .alerts
                        .iter()
                        .any(|a| a.code == crate::event::AlertCode::TimeExpired);
                    if !already {
                        events.extend(self.raise(
                            crate::event::AlertCode::TimeExpired,
                            Some(color),
                            Vec::new(),
                            Vec::new(),
                        ));
                    }
                }
            }
        }
        events
    }

    /// The `clock` event for the clock's state now (`color`: who pressed, if anyone).
    fn clock_event(&self, color: Option<Color>) -> Event {
        match &self.clock {
            Some(clock) => Event::Clock {
                color,
                black: clock.remaining(Color::Black, self.now),
                white: clock.remaining(Color::White, self.now),
                periods: PerColor {
                    black: clock.periods_left(Color::Black),
                    white: clock.periods_left(Color::White),
                },
                running: clock.running(),
            },
            None => Event::Clock {
                color,
                black: 0,
                white: 0,
                periods: PerColor { black: 0, white: 0 },
                running: None,
            },
        }
    }

    /// Time left on both clocks now, or `None` without a clock.
    pub fn clocks(&self) -> Option<PerColor<u64>> {
        self.clock.as_ref().map(|c| PerColor {
            black: c.remaining(Color::Black, self.now),
            white: c.remaining(Color::White, self.now),
        })
    }

    /// The game's stone at `p` in the record.
    fn record_at(&self, p: Point) -> Stone {
        self.game.board().get(p)
    }

    fn physical_at(&self, p: Point) -> Stone {
        self.physical[p.index(self.settings.size)]
    }

    /// Raises an alert: its event, and a warning at once where penalties are automatic.
    fn raise(
        &mut self,
        code: crate::event::AlertCode,
        color: Option<Color>,
        points: Vec<Point>,
        expected: Vec<(Point, Stone)>,
    ) -> Vec<Event> {
        let mut points = points;
        points.sort();
        points.dedup();
        let alert = OpenAlert {
            id: format!("a{}", self.next_alert),
            code,
            article: code.article().to_string(),
            color,
            message: message(code, color, &points),
            points,
            expected,
            visible: true,
        };
        self.next_alert += 1;
        if let Some(note) = self.record.last_mut() {
            note.comments.push(alert.message.clone());
        }
        let mut events = vec![alert.to_event()];
        let auto = self.settings.penalties == Penalties::Auto && is_penalised(code);
        let id = alert.id.clone();
        let board_alert = alert.is_board_alert();
        self.alerts.push(alert);
        if auto {
            if let Some(c) = color {
                let (warning, over) = self.give_warning(c, code);
                events.extend(warning);
                if !board_alert {
                    self.alerts.retain(|a| a.id != id);
                    events.push(Event::AlertCleared {
                        id,
                        how: "confirmed".to_string(),
                    });
                }
                events.extend(over);
            }
        }
        events
    }
}
