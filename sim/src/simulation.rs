//! The simulated board on virtual time: a compiled timeline of physical changes, the
//! [`World`] it acts on, and the scan loop (or the hal traits) that reads it. Its
//! constructors compile a script ([`Simulation::from_script`]), steps built in code or a
//! game played by simulated players ([`Simulation::from_game`], [`Simulation::from_sgf`])
//! into that timeline.

use std::convert::Infallible;

use tengen_hal::{ButtonEvent, ClockButtons, Frame, Millis, SensorMatrix};
use tengen_rules::sgf::GameRecord;
use tengen_rules::{handicap_points, Color, Point};

use crate::action::{Action, Step, TimedAction};
use crate::choreography::{Change, Choreographer, Timed};
use crate::game::{self, GameError, GameInput, GameOptions};
use crate::physics::{FrameKind, World};
use crate::script::{Script, ScriptError, Setup};
use crate::seeds::{noise_rng, timing_rng};

pub use crate::options::SimOptions;

/// The simulated board: ground truth, timeline and scanner, on virtual time.
#[derive(Debug, Clone)]
pub struct Simulation {
    setup: Setup,
    size: u8,
    seed: u64,
    world: World,
    timeline: Vec<Timed>,
    next_change: usize,
    buttons: Vec<ButtonEvent>,
    actions: Vec<TimedAction>,
    final_board: Vec<Option<Color>>,
    now: Millis,
    scans: u64,
    scan_hz: u32,
    end: Millis,
    frames: FrameKind,
    /// Raw frames before this virtual time ([`SimOptions::raw_lead_ms`]).
    raw_until: Millis,
    lead_in: Millis,
}

impl Simulation {
    /// A simulation of a script (the script language of sim/README.md). Errors name the line
    /// (`line 7: unknown action 'plaec'`; add the file with [`ScriptError::with_source`]).
    pub fn from_script(text: &str, options: &SimOptions) -> Result<Simulation, ScriptError> {
        let script = Script::parse(text)?;
        Simulation::from_parsed(&script, options)
    }

    /// A simulation of a parsed script: its setup lines override `options` (size, seed,
    /// noise); with `handicap N` the simulator's Black first sets the N handicap stones
    /// down (on the rules core's star points), as a player would.
    pub fn from_parsed(script: &Script, options: &SimOptions) -> Result<Simulation, ScriptError> {
        let size = script.setup.size.unwrap_or(options.size);
        tengen_rules::point::check_size(size).map_err(|e| ScriptError::new(0, e.to_string()))?;
        let seed = script.setup.seed.unwrap_or(options.seed);
        let mut steps = Vec::new();
        let handicap = script.setup.handicap.unwrap_or(0);
        if handicap > 0 {
            let line = script.setup_line("handicap").unwrap_or(1);
            let points = handicap_points(size, handicap)
                .map_err(|e| ScriptError::new(line, e.to_string()))?;
            for point in points {
                steps.push(Step {
                    line: Some(line),
                    ..Step::new(Action::Place {
                        color: Color::Black,
                        point,
                    })
                });
            }
        }
        steps.extend(script.steps.iter().cloned());
        let mut ch = Choreographer::new(
            size,
            options.black_side,
            timing_rng(seed),
            options.lead_in_ms,
        );
        for step in &steps {
            ch.step(step)?;
        }
        let noise = script.setup.noise.unwrap_or(options.noise);
        Ok(Simulation::assemble(
            script.setup.clone(),
            size,
            seed,
            noise,
            ch,
            options,
        ))
    }

    /// A simulation of steps built in code (no script lines: errors name the step's index,
    /// 1-based, as the line).
    pub fn from_steps(
        setup: Setup,
        steps: &[Step],
        options: &SimOptions,
    ) -> Result<Simulation, ScriptError> {
        let mut numbered: Vec<Step> = steps.to_vec();
        for (i, s) in numbered.iter_mut().enumerate() {
            s.line.get_or_insert(i + 1);
        }
        Simulation::from_parsed(
            &Script {
                setup,
                steps: numbered,
                setup_lines: Vec::new(),
            },
            options,
        )
    }

    /// A simulation of a recorded game played by two simulated players (see
    /// [`GameOptions`]); `options.size` is ignored (the game has its own).
    pub fn from_game(
        game: &GameInput,
        options: &SimOptions,
        play: &GameOptions,
    ) -> Result<Simulation, GameError> {
        let (setup, ch) = game::choreograph(game, options, play)?;
        Ok(Simulation::assemble(
            setup,
            game.size,
            options.seed,
            options.noise,
            ch,
            options,
        ))
    }

    /// A simulation of an SGF game played by two simulated players (see [`GameOptions`]).
    pub fn from_sgf(
        record: &GameRecord,
        options: &SimOptions,
        play: &GameOptions,
    ) -> Result<Simulation, GameError> {
        let mut input = GameInput::from_record(record);
        if input.dead.is_empty() {
            input.dead.clone_from(&play.dead);
        }
        Simulation::from_game(&input, options, play)
    }

    /// Wraps up a finished choreography.
    fn assemble(
        setup: Setup,
        size: u8,
        seed: u64,
        noise: f64,
        ch: Choreographer,
        options: &SimOptions,
    ) -> Simulation {
        let (timeline, actions, final_board, last) = ch.finish();
        let mut world = World::new(size, options.raw, noise_rng(seed));
        world.set_noise(noise);
        let last_change = timeline.last().map_or(0, |c| c.time);
        Simulation {
            setup,
            size,
            seed,
            world,
            timeline,
            next_change: 0,
            buttons: Vec::new(),
            actions,
            final_board,
            now: 0,
            scans: 0,
            scan_hz: options.scan_hz.clamp(1, 10_000),
            end: last.max(last_change) + options.tail_ms,
            frames: options.frames,
            raw_until: options.raw_lead_ms,
            lead_in: options.lead_in_ms,
        }
    }

    /// The setup as the script gave it (`None` where it said nothing); for an SGF game,
    /// what the record gave.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The board size.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The seed in use.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Scans per second of virtual time.
    pub fn scan_hz(&self) -> u32 {
        self.scan_hz
    }

    /// The kind of frame scanned at `t`.
    fn frame_kind(&self, t: Millis) -> FrameKind {
        if t < self.raw_until {
            FrameKind::Raw
        } else {
            self.frames
        }
    }

    /// Switches between classified and raw frames.
    pub fn set_frames(&mut self, kind: FrameKind) {
        self.frames = kind;
    }

    /// Sets the sensor noise from now on (a later `noise` action still changes it).
    pub fn set_noise(&mut self, p: f64) {
        self.world.set_noise(p);
    }

    /// The virtual time of the last scan or poll.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// When the last action is over and the tail scanned: [`Simulation::next_scan`] returns
    /// `None` after this time.
    pub fn end_time(&self) -> Millis {
        self.end
    }

    /// True once virtual time has passed [`Simulation::end_time`].
    pub fn is_finished(&self) -> bool {
        self.now >= self.end
    }

    /// Every action with its start and end times (ground truth).
    pub fn actions(&self) -> &[TimedAction] {
        &self.actions
    }

    /// The stone truly on a point now (ground truth).
    pub fn truth(&self, p: Point) -> Option<Color> {
        self.world.stone(p)
    }

    /// The true board now, in `Point::index` order.
    pub fn true_board(&self) -> &[Option<Color>] {
        self.world.stones()
    }

    /// The true board once every action is done.
    pub fn final_board(&self) -> &[Option<Color>] {
        &self.final_board
    }

    /// The physical model (fields, clean states, stuck sensors) as it is now.
    pub fn world(&mut self) -> &mut World {
        &mut self.world
    }

    /// The same game taken up at action `first` of [`Simulation::actions`], as a board
    /// that kept its stones through a restart would be: every change of the earlier actions
    /// is already on the board at time 0 (stones, stuck sensors, noise; no hand is over
    /// the board and no button is down), and the remaining actions follow on a timeline
    /// shifted so that action `first` starts after the usual lead-in plus the pause that
    /// came before it (the players kept thinking through the restart). `first` at or past
    /// the end gives a board that shows the final position and only scans its tail.
    /// [`Simulation::actions`] then lists the remaining actions at their new times.
    /// Call it on a simulation that has not been scanned yet.
    pub fn resumed_from(mut self, first: usize) -> Simulation {
        let lead_in = self.lead_in;
        let cut = match self.actions.get(first) {
            // Just after the end of the action before it, whose last change (a stone
            // set down) comes at its very end: the pause before action `first` (a
            // player's thinking, which went on through the restart) is kept.
            Some(a) => first
                .checked_sub(1)
                .and_then(|i| self.actions.get(i))
                .map_or(a.start, |before| (before.end + 1).min(a.start)),
            None => self.end.max(lead_in),
        };
        let shift = cut.saturating_sub(lead_in);
        let done = self.timeline.partition_point(|c| c.time < cut);
        for c in self.timeline.drain(..done) {
            match c.change {
                Change::Stone(p, s) => self.world.set_stone(p, s),
                Change::Noise(p) => self.world.set_noise(p),
                Change::Stuck(p, s) => self.world.set_stuck(p, s),
                Change::Hand(..) | Change::Button(..) => {}
            }
        }
        for c in &mut self.timeline {
            c.time -= shift;
        }
        self.actions.drain(..first.min(self.actions.len()));
        for a in &mut self.actions {
            a.start -= shift;
            a.end -= shift;
        }
        self.end -= shift;
        self.next_change = 0;
        self.buttons.clear();
        self.now = 0;
        self.scans = 0;
        self
    }

    /// The time of scan number `k` (0-based) at the scan rate.
    fn scan_time(&self, k: u64) -> Millis {
        k * 1000 / self.scan_hz as u64
    }

    /// Applies every change up to `now` (virtual time never goes back).
    pub fn advance_to(&mut self, now: Millis) {
        while let Some(c) = self.timeline.get(self.next_change) {
            if c.time > now {
                break;
            }
            let Timed { time, change } = c.clone();
            self.next_change += 1;
            match change {
                Change::Stone(p, s) => self.world.set_stone(p, s),
                Change::Hand(p, f) => self.world.set_hand(p, f),
                Change::Button(button, action) => self.buttons.push(ButtonEvent {
                    time,
                    button,
                    action,
                }),
                Change::Noise(p) => self.world.set_noise(p),
                Change::Stuck(p, s) => self.world.set_stuck(p, s),
            }
        }
        self.now = self.now.max(now);
    }

    /// The next scan at the scan rate: advances virtual time by one period, applies what
    /// happened, and returns the frame with the button events since the previous scan.
    /// `None` once the actions and the tail are over.
    pub fn next_scan(&mut self) -> Option<(Frame, Vec<ButtonEvent>)> {
        let t = self.scan_time(self.scans);
        if t > self.end {
            self.advance_to(self.end);
            return None;
        }
        self.scans += 1;
        self.advance_to(t);
        let frame = Frame {
            time: t,
            data: self.world.scan(self.frame_kind(t)),
        };
        Some((frame, std::mem::take(&mut self.buttons)))
    }
}

/// The simulated sensor matrix, scanned at any virtual time the caller gives (the service
/// paces it with real time times `speed`).
impl SensorMatrix for Simulation {
    type Error = Infallible;

    fn size(&self) -> u8 {
        self.size
    }

    fn scan(&mut self, now: Millis) -> Result<Frame, Infallible> {
        self.advance_to(now);
        Ok(Frame {
            time: now,
            data: self.world.scan(self.frame_kind(now)),
        })
    }
}

/// The simulated clock buttons: the presses and releases up to `now`.
impl ClockButtons for Simulation {
    type Error = Infallible;

    fn poll(&mut self, now: Millis) -> Result<Vec<ButtonEvent>, Infallible> {
        self.advance_to(now);
        Ok(std::mem::take(&mut self.buttons))
    }
}
