//! The simulated board as a backend of `tengen run` (`hardware.backend = "sim"`), paced in
//! real time at `hardware.sim.speed`.
//!
//! What the board shows is a *scene*: a [`Simulation`] placed on the service's clock (its
//! time 0 at some instant of game time), which may be held at one of its instants (the
//! players wait). The board is scanned at `hardware.scan_hz` of game time whatever the
//! scene does: once a game's actions are over its last position stays on the board and is
//! still scanned, so the clocks run on and a flag falls (`time_expired`), as on a real
//! board.
//!
//! Without `hardware.sim.rehearse` the scene is the config's game, played from power-on,
//! once. With it the simulated players follow the referee's game from the events the
//! service journals ([`Backend::heard`]):
//!
//! - idle from power-on: an empty board (the game the board sets up by itself is not
//!   theirs);
//! - `game_started` (a `new_game`): the next game of their [`GameBook`]; in a handicap game
//!   Black sets the handicap stones down at once, then both wait; in a game whose players
//!   check in (Art. 22, `late_limit_s`), Black then White press their button to check in,
//!   except a player set to be late or absent (`hardware.sim.black_late_s`, `white_late_s`);
//! - play begins: a late player sits down and presses their button that long after it
//!   began (their arrival), an absent one never does; until then the game waits before
//!   their first action (the opponent plays up to it: their clock runs);
//! - the clocks start (a `clock` event that leaves a clock running and not paused: the
//!   arbiter's *Begin play*, or at once with `game.clock_start = "now"`; a game with no
//!   clock starts at once): they play;
//! - a pause holds them where they are, the resume lets them go on;
//! - with `hardware.sim.alert_hold`, an alert about the board (their violation) holds them
//!   where they are until an arbiter acts (the alert confirmed or dismissed, or any event an
//!   arbiter's command caused): then they put it right and play on;
//! - `game_over`: they clear the board and wait for the next `new_game`;
//! - after a restart in the middle of one of their games, they take it up where the
//!   journal ends once the clocks run again ([`SimBackend::taking_up`]).
//!
//! Everything here is a plain function of the events and of the time passed in; but a
//! rehearsal board's clock is kept in its storage folder (`sim-clock`, [`SimBackend::kept_in`])
//! so that a board started again goes on on the same clock: the time it was off is the
//! real time off at its pace, as its `board_restarted` says.

use tengen_hal::{Button, ButtonAction, ButtonEvent, ClockButtons, Millis, SensorMatrix};
use tengen_protocol::event::{ClockReading, GameSetup};
use tengen_protocol::{Envelope, Event};
use tengen_rules::clock::TimeControl;
use tengen_rules::{Color, Point};
use tengen_sim::{Action, ScriptError, Setup, SimOptions, Simulation, Step};

use super::backend::{Backend, Polled};
use crate::config::SimArrival;
use crate::sim_game::GameBook;

/// A simulation placed on the service's clock.
#[derive(Debug)]
struct Scene {
    sim: Simulation,
    /// The game time of the simulation's time 0.
    offset: Millis,
    /// The simulation's time stops here (the players wait) until released.
    hold: Option<Millis>,
    /// The simulation's time also stops here until opened: the first action of a player
    /// not at the board yet (late, or absent).
    gate: Option<Millis>,
}

impl Scene {
    fn new(sim: Simulation, offset: Millis, hold: Option<Millis>) -> Scene {
        Scene {
            sim,
            offset,
            hold,
            gate: None,
        }
    }

    /// The simulation's time at game time `t`.
    fn local(&self, t: Millis) -> Millis {
        let l = t.saturating_sub(self.offset);
        let l = self.hold.map_or(l, |h| l.min(h));
        self.gate.map_or(l, |g| l.min(g))
    }

    /// From game time `at` the players go on up to `next` (or to the end): from where the
    /// gate held them, if they got there.
    fn open_gate(&mut self, at: Millis, next: Option<Millis>) {
        if let Some(g) = self.gate.take() {
            if self.hold.is_none() && at.saturating_sub(self.offset) >= g {
                self.offset = at - g;
            }
        }
        self.gate = next;
    }

    /// The start of `color`'s first action in a move of the game (not a handicap stone),
    /// if they have one: where the game waits while they are away.
    fn first_action_of(&self, color: Color) -> Option<Millis> {
        self.sim
            .actions()
            .iter()
            .filter(|a| a.move_number.is_some())
            .find(|a| match &a.action {
                Action::Place { color: c, .. }
                | Action::PlaceTogether { color: c, .. }
                | Action::Press { color: c } => *c == color,
                Action::Hover { color: c, .. } => *c == Some(color),
                _ => false,
            })
            .map(|a| a.start)
    }

    /// The players wait from game time `at` (a pause).
    fn hold_at(&mut self, at: Millis) {
        if self.hold.is_none() {
            self.hold = Some(self.local(at));
        }
    }

    /// The players go on from game time `at`: where they were held, if they got there.
    fn release(&mut self, at: Millis) {
        if let Some(h) = self.hold.take() {
            if at.saturating_sub(self.offset) >= h {
                self.offset = at - h;
            }
        }
    }
}

/// What a rehearsal board's simulated players are doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a game set up by `new_game`.
    Idle,
    /// A game is set up: waiting for its clocks to start.
    Waiting,
    /// Playing the game.
    Playing,
}

/// The players of a rehearsal board: their games and what they are doing.
#[derive(Debug)]
struct Rehearsal {
    book: GameBook,
    phase: Phase,
    /// `hardware.sim.alert_hold`: a violation's alert holds the players until an arbiter
    /// acts.
    alert_hold: bool,
    /// The alert they wait on, if any.
    held_for: Option<String>,
    /// An empty board nobody plays on, never scanned: the scene while the players wait
    /// (a copy each time).
    empty: Simulation,
    /// The check-in presses still to make (game time, who), in time order: in a game whose
    /// players check in (Art. 22), each presses their own button just after it is set up,
    /// or a late player on arrival.
    check_ins: Vec<(Millis, Color)>,
    /// When each player arrives in a game whose players check in (Black, White).
    arrive: [SimArrival; 2],
    /// The players away since play began (late, or absent), in a game whose players check
    /// in: the game waits before the first action of any of them.
    away: Vec<Color>,
    /// The game set up checks its players in.
    checks_in: bool,
}

/// The simulated board paced in real time at `speed`.
///
/// Its clock ([`Backend::clock`]) is game time: it starts at the wall clock of the first
/// reading, or at the journal's last event when that is later (a sped-up game runs ahead
/// of the wall clock, and a restarted one must not go back in time), and runs `speed`
/// times faster than the wall clock. Frames are stamped on it.
#[derive(Debug)]
pub(crate) struct SimBackend {
    scene: Scene,
    speed: f64,
    scan_hz: u32,
    /// The earliest game time to start at (the journal's last event).
    floor: Millis,
    /// (wall clock, game time) when the clock started.
    anchor: Option<(Millis, Millis)>,
    /// Where the clock's anchor is kept across restarts (a rehearsal board).
    anchor_file: Option<std::path::PathBuf>,
    /// Scans made since the clock started.
    scans: u64,
    rehearsal: Option<Rehearsal>,
}

impl SimBackend {
    /// Plays `sim` from power-on, `speed` times faster than human pace.
    pub(crate) fn new(sim: Simulation, speed: f64) -> SimBackend {
        SimBackend {
            scan_hz: sim.scan_hz(),
            scene: Scene::new(sim, 0, None),
            speed,
            floor: 0,
            anchor: None,
            anchor_file: None,
            scans: 0,
            rehearsal: None,
        }
    }

    /// A rehearsal board (`hardware.sim.rehearse`): the players wait, on a board showing
    /// `stones` (empty, or the journal's game after a restart), for a game set up by
    /// `new_game`, and play the games of `book`.
    pub(crate) fn rehearsal(
        book: GameBook,
        options: &SimOptions,
        stones: &[(Point, Color)],
        speed: f64,
    ) -> Result<SimBackend, ScriptError> {
        let empty = still_board(options, &[])?;
        let scene = Scene::new(still_board(options, stones)?, 0, None);
        Ok(SimBackend {
            scan_hz: options.scan_hz.clamp(1, 10_000),
            scene,
            speed,
            floor: 0,
            anchor: None,
            anchor_file: None,
            scans: 0,
            rehearsal: Some(Rehearsal {
                book,
                phase: Phase::Idle,
                alert_hold: false,
                held_for: None,
                empty,
                check_ins: Vec::new(),
                arrive: [SimArrival::OnTime; 2],
                away: Vec::new(),
                checks_in: false,
            }),
        })
    }

    /// The same rehearsal board taking up `sim` (the journal's game, taken up where the
    /// journal ends: [`Simulation::resumed_from`]) after a restart: its players wait for
    /// the clocks to run again, or play at once when the game has no clock (`at_once`).
    pub(crate) fn taking_up(mut self, sim: Simulation, at_once: bool) -> SimBackend {
        if let Some(r) = self.rehearsal.as_mut() {
            self.scene = Scene::new(sim, 0, (!at_once).then_some(0));
            r.phase = if at_once {
                Phase::Playing
            } else {
                Phase::Waiting
            };
        }
        self
    }

    /// The players wait for an arbiter after a violation (`hardware.sim.alert_hold`).
    pub(crate) fn holding_alerts(mut self, on: bool) -> SimBackend {
        if let Some(r) = self.rehearsal.as_mut() {
            r.alert_hold = on;
        }
        self
    }

    /// When the players arrive in a game whose players check in (`hardware.sim.black_late_s`,
    /// `white_late_s`).
    pub(crate) fn arriving(mut self, black: SimArrival, white: SimArrival) -> SimBackend {
        if let Some(r) = self.rehearsal.as_mut() {
            r.arrive = [black, white];
        }
        self
    }

    /// Keeps the clock's anchor in `file`: started again, the board goes on on the same
    /// clock (game time = the anchor's game time + the wall time since, at its pace), so
    /// the time it was off is the real time off at its pace.
    pub(crate) fn kept_in(mut self, file: std::path::PathBuf) -> SimBackend {
        self.anchor_file = Some(file);
        self
    }

    /// Starts the game clock no earlier than `time` (ms since the epoch).
    pub(crate) fn not_before(mut self, time: Millis) -> SimBackend {
        self.floor = time;
        self
    }

    fn anchor(&mut self, wall: Millis) -> (Millis, Millis) {
        if let Some(a) = self.anchor {
            return a;
        }
        let kept = self.anchor_file.as_ref().and_then(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            let (w, g) = text.trim().split_once(' ')?;
            Some((w.parse::<Millis>().ok()?, g.parse::<Millis>().ok()?))
        });
        // The kept clock, where it has not gone back behind the journal.
        let a = match kept {
            Some((w0, g0))
                if w0 <= wall && g0 + ((wall - w0) as f64 * self.speed) as Millis >= self.floor =>
            {
                (w0, g0)
            }
            _ => (wall, wall.max(self.floor)),
        };
        if let (Some(f), None) = (&self.anchor_file, kept.filter(|k| *k == a)) {
            if let Err(e) = std::fs::write(f, format!("{} {}\n", a.0, a.1)) {
                tracing::warn!("{}: the simulated clock is not kept: {e}", f.display());
            }
        }
        // The first scene starts with the clock.
        self.scene.offset += a.1;
        self.anchor = Some(a);
        a
    }

    /// Game time of scan `k` since the clock started.
    fn scan_time(&self, base: Millis, k: u64) -> Millis {
        base + k * 1000 / u64::from(self.scan_hz)
    }

    /// A game is set up at `at`: the next game of the book, its handicap stones set down
    /// at once, the players held before their first move.
    fn game_set_up(&mut self, setup: &GameSetup, at: Millis) {
        let Some(r) = self.rehearsal.as_mut() else {
            return;
        };
        match r.book.next_game(setup) {
            Ok(sim) => {
                // A game's first actions without a move number set the handicap stones.
                let stones = sim
                    .actions()
                    .iter()
                    .take_while(|a| a.move_number.is_none() && a.line.is_none())
                    .last()
                    .map_or(0, |a| a.end);
                self.scene = Scene::new(sim, at, Some(stones));
                r.phase = Phase::Waiting;
                // They sit down and check in, as players do, before play begins (unless
                // they are to be late, or not to come).
                r.checks_in = setup.late_limit_s.is_some();
                r.away.clear();
                r.check_ins = [(500, Color::Black), (800, Color::White)]
                    .into_iter()
                    .filter(|&(_, c)| r.checks_in && r.arrive[c.index()] == SimArrival::OnTime)
                    .map(|(after, c)| (at + after, c))
                    .collect();
                if setup.time_control == TimeControl::None {
                    // No clock to start: they play at once.
                    self.scene.release(at);
                    r.phase = Phase::Playing;
                }
            }
            Err(e) => {
                tracing::warn!(
                    "rehearsal: the simulated players cannot play this game ({e}); they wait \
                     for the next new_game"
                );
                self.scene = Scene::new(r.empty.clone(), at, None);
                r.phase = Phase::Idle;
            }
        }
    }

    /// A `clock` event at `at`: the clocks started (play), paused or resumed.
    fn clock(&mut self, reading: &ClockReading, at: Millis) {
        let Some(r) = self.rehearsal.as_mut() else {
            return;
        };
        let paused = reading.paused == Some(true);
        let running = !paused && reading.running.is_some();
        match r.phase {
            Phase::Waiting if running => {
                self.scene.release(at);
                r.phase = Phase::Playing;
                if r.checks_in {
                    // Play begins: whoever is not seated is away; the late ones come.
                    for c in [Color::Black, Color::White] {
                        match r.arrive[c.index()] {
                            SimArrival::OnTime => {}
                            SimArrival::Late(after) => {
                                r.away.push(c);
                                r.check_ins.push((at + after, c));
                            }
                            SimArrival::Never => r.away.push(c),
                        }
                    }
                    r.check_ins.sort_unstable();
                    self.scene.gate = gate_for(&self.scene, &r.away);
                }
            }
            Phase::Playing if paused => self.scene.hold_at(at),
            // Held for an arbiter (`alert_hold`): a press does not let them go.
            Phase::Playing if running && r.held_for.is_none() => self.scene.release(at),
            _ => {}
        }
    }

    /// The game is over at `at`: the players clear the board and wait.
    fn game_over(&mut self, at: Millis) {
        if let Some(r) = self.rehearsal.as_mut() {
            r.phase = Phase::Idle;
            r.check_ins.clear();
            r.away.clear();
            r.held_for = None;
            self.scene = Scene::new(r.empty.clone(), at, None);
        }
    }

    /// With `alert_hold`: an alert about the board while they play (their violation) holds
    /// the players at `at`; an arbiter's decision on it, or any event an arbiter's command
    /// caused (`by`), lets them go on and put it right.
    fn arbiter_watch(&mut self, env: &Envelope, at: Millis) {
        let Some(r) = self.rehearsal.as_mut().filter(|r| r.alert_hold) else {
            return;
        };
        match &env.event {
            Event::Alert(a)
                if r.phase == Phase::Playing && a.is_board_alert() && r.held_for.is_none() =>
            {
                r.held_for = Some(a.id.clone());
                self.scene.hold_at(at);
            }
            Event::Alert(_) => {}
            _ if r.held_for.is_some() && env.by.is_some() => {
                r.held_for = None;
                // Unless the arbiter paused them: the resume lets them go then.
                if !matches!(&env.event, Event::Clock(c) if c.paused == Some(true)) {
                    self.scene.release(at);
                }
            }
            _ => {}
        }
    }
}

/// Where the game waits while `away` are not at the board: the first action of any of
/// them.
fn gate_for(scene: &Scene, away: &[Color]) -> Option<Millis> {
    away.iter().filter_map(|&c| scene.first_action_of(c)).min()
}

/// A board with `stones` on it from time 0 and nobody at it.
fn still_board(options: &SimOptions, stones: &[(Point, Color)]) -> Result<Simulation, ScriptError> {
    let steps: Vec<Step> = stones
        .iter()
        .map(|(point, color)| {
            Step::timed(
                Action::Place {
                    color: *color,
                    point: *point,
                },
                1,
            )
        })
        .collect();
    let setup = Setup {
        size: Some(options.size),
        ..Setup::default()
    };
    Ok(Simulation::from_steps(setup, &steps, options)?.resumed_from(steps.len()))
}

impl Backend for SimBackend {
    fn clock(&mut self, wall: Millis) -> Millis {
        let (wall0, base) = self.anchor(wall);
        base + (wall.saturating_sub(wall0) as f64 * self.speed) as Millis
    }

    fn poll(&mut self, now: Millis) -> Polled {
        let (_, base) = self.anchor(now);
        // Every scan of the board's own period up to now, so the stabiliser sees the same
        // scans at any speed.
        let mut scans = Vec::new();
        loop {
            let t = self.scan_time(base, self.scans);
            if t > now {
                break;
            }
            self.scans += 1;
            let local = self.scene.local(t);
            let offset = self.scene.offset;
            let (mut frame, mut buttons) = match (
                self.scene.sim.scan(local),
                ClockButtons::poll(&mut self.scene.sim, local),
            ) {
                (Ok(f), Ok(b)) => (f, b),
                (Err(never), _) | (_, Err(never)) => match never {},
            };
            frame.time = t;
            for b in &mut buttons {
                b.time += offset;
            }
            if let Some(r) = self.rehearsal.as_mut() {
                while r.check_ins.first().is_some_and(|(at, _)| *at <= t) {
                    let (_, color) = r.check_ins.remove(0);
                    if r.away.contains(&color) {
                        // A late arrival: the game goes on up to the next one away.
                        r.away.retain(|&c| c != color);
                        let next = gate_for(&self.scene, &r.away);
                        self.scene.open_gate(t, next);
                    }
                    buttons.push(ButtonEvent {
                        time: t,
                        button: match color {
                            Color::Black => Button::Black,
                            Color::White => Button::White,
                        },
                        action: ButtonAction::Press,
                    });
                }
            }
            scans.push((frame, buttons));
        }
        Polled {
            scans,
            faults: Vec::new(),
            finished: self.rehearsal.is_none() && self.scene.sim.is_finished(),
        }
    }

    fn heard(&mut self, journaled: &[Envelope]) {
        if self.rehearsal.is_none() {
            return;
        }
        for env in journaled {
            let at = env.time.millis();
            match &env.event {
                Event::GameStarted(setup) => self.game_set_up(setup, at),
                Event::Clock(reading) => self.clock(reading, at),
                Event::GameOver(_) => self.game_over(at),
                _ => {}
            }
            self.arbiter_watch(env, at);
        }
    }

    fn describe(&self) -> String {
        match self.rehearsal {
            Some(_) => format!(
                "sim x{}, rehearsal: the players wait for new_game",
                self.speed
            ),
            None => format!("sim x{}", self.speed),
        }
    }
}
