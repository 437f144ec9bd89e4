//! The simulated board on virtual time: a compiled timeline of physical changes, the
//! [`World`] it acts on, and the scan loop (or the hal traits) that reads it.

use std::convert::Infallible;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tengen_hal::{ButtonEvent, ClockButtons, Frame, Millis, SensorMatrix};
use tengen_rules::{handicap_points, Color, Point};

use crate::action::{Action, Step, TimedAction};
use crate::choreography::{Change, Choreographer, Timed};
use crate::physics::{FrameKind, RawModel, World};
use crate::script::{Script, ScriptError, Setup};
use crate::side::Side;

/// The RNG stream that draws human timing (placement paths, delays, thinking).
const TIMING_STREAM: u64 = 1;
/// The RNG stream that draws sensor noise and raw jitter.
const NOISE_STREAM: u64 = 2;

/// How a simulation runs, whatever it plays.
#[derive(Debug, Clone, PartialEq)]
pub struct SimOptions {
    /// The seed for human timing and noise, unless the script has a `seed` line.
    pub seed: u64,
    /// The board size, unless the script has a `size` line (SGF games carry their own).
    pub size: u8,
    /// The sensor noise at the start, unless the script has a `noise` setup line.
    pub noise: f64,
    /// Scans per second of virtual time (`hardware.scan_hz`, default 100).
    pub scan_hz: u32,
    /// Classified frames (fast) or raw readings.
    pub frames: FrameKind,
    /// How raw readings are made.
    pub raw: RawModel,
    /// Where Black sits (`board.black_side`): hands come from the players' sides and the
    /// resignation corner follows it.
    pub black_side: Side,
    /// Virtual time before the first action (the empty board settles).
    pub lead_in_ms: Millis,
    /// Virtual time scanned after the last action (the last change settles).
    pub tail_ms: Millis,
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            seed: 1,
            size: 19,
            noise: 0.0,
            scan_hz: 100,
            frames: FrameKind::Classified,
            raw: RawModel::adc12(),
            black_side: Side::South,
            lead_in_ms: 500,
            tail_ms: 1000,
        }
    }
}

impl SimOptions {
    /// The defaults with this seed.
    pub fn seeded(seed: u64) -> SimOptions {
        SimOptions {
            seed,
            ..SimOptions::default()
        }
    }
}

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
    lead_in: Millis,
}

impl Simulation {
    /// A simulation of a script (SPEC.md's language). Errors name the line
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

    /// Wraps up a finished choreography.
    pub(crate) fn assemble(
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
            // From the end of the action before it: the pause before action `first` (a
            // player's thinking, which went on through the restart) is kept.
            Some(a) => first
                .checked_sub(1)
                .and_then(|i| self.actions.get(i))
                .map_or(a.start, |before| before.end.min(a.start)),
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
            data: self.world.scan(self.frames),
        };
        Some((frame, std::mem::take(&mut self.buttons)))
    }
}

/// The timing RNG for a seed.
pub(crate) fn timing_rng(seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(TIMING_STREAM);
    rng
}

fn noise_rng(seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(NOISE_STREAM);
    rng
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
            data: self.world.scan(self.frames),
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
