//! Turns actions into timed physical changes: where a hand passes, when a stone touches
//! down, when a button goes down and up, each with seeded human timing.
//!
//! Human time of each action (uniform ranges, ms; the pause is the time before the next
//! action starts):
//!
//! | action | motion | pause |
//! |---|---|---|
//! | `place` | 1-2 hover transients on the way in (40-70 each, from the player's side), a half-set stone (30-60) | 200-400 |
//! | `lift` | the stone half-lifted (30-60), carried over a neighbour (30-50) | 200-400 |
//! | `press` | reach (150-300), button held (60-140) | 150-300 |
//! | `slide` | per point crossed: between two points (40-70), over a point on the way (20-40) | 200-400 |
//! | `hover` | 100 per point (a 20-40 ms flash reading the stone's colour with chance 0.3) | 0 |
//! | `knock` | every stone leaves (0-30), crosses (20-40), lands (20-40) | 400-800 |
//!
//! A hand carrying a stone adds 0.32-0.45 of a stone's field (reads `Unknown`); a flash adds
//! 0.60-0.75 (reads the stone's colour, always shorter than 50 ms). A half-set or
//! half-lifted stone gives 0.35-0.45 (`Unknown`).

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use tengen_hal::{Button, ButtonAction, Millis, PointState};
use tengen_rules::{Color, Point};

use crate::action::{Action, Step, TimedAction};
use crate::physics::stone_field;
use crate::script::ScriptError;
use crate::side::Side;
use crate::violation::ViolationKind;

/// One change of the physical board at one instant.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A stone appears on or leaves a point (the ground truth).
    Stone(Point, Option<Color>),
    /// The field a hand adds at a point (0.0 clears it).
    Hand(Point, f32),
    /// A clock button goes down or up.
    Button(Button, ButtonAction),
    /// The sensor noise changes.
    Noise(f64),
    /// A sensor gets stuck (or free).
    Stuck(Point, Option<PointState>),
}

/// A change at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    /// When (ms of virtual time).
    pub time: Millis,
    /// What.
    pub change: Change,
}

/// Context for an action that is part of a game.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Origin {
    pub(crate) move_number: Option<usize>,
    pub(crate) violation: Option<ViolationKind>,
}

/// Builds the timeline from actions while keeping the board as it will be.
pub(crate) struct Choreographer {
    pub(crate) size: u8,
    black_side: Side,
    rng: ChaCha8Rng,
    pub(crate) board: Vec<Option<Color>>,
    pub(crate) t: Millis,
    changes: Vec<Timed>,
    pub(crate) actions: Vec<TimedAction>,
    pub(crate) to_move: Color,
}

fn sign(color: Color) -> f32 {
    stone_field(color)
}

impl Choreographer {
    /// An empty board of `size` lines at virtual time `start`; `rng` draws human timing.
    pub(crate) fn new(size: u8, black_side: Side, rng: ChaCha8Rng, start: Millis) -> Choreographer {
        Choreographer {
            size,
            black_side,
            rng,
            board: vec![None; size as usize * size as usize],
            t: start,
            changes: Vec::new(),
            actions: Vec::new(),
            to_move: Color::Black,
        }
    }

    /// The timeline, ordered by time (changes at one instant keep their order).
    pub(crate) fn finish(mut self) -> (Vec<Timed>, Vec<TimedAction>, Vec<Option<Color>>, Millis) {
        self.changes.sort_by_key(|c| c.time);
        (self.changes, self.actions, self.board, self.t)
    }

    /// The timing RNG (a game's thinking and pauses draw from it too).
    pub(crate) fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// The stone on a point once the actions so far are done.
    pub(crate) fn stone(&self, p: Point) -> Option<Color> {
        self.board[p.index(self.size)]
    }

    fn at(&mut self, time: Millis, change: Change) {
        if let Change::Stone(p, s) = change {
            self.board[p.index(self.size)] = s;
        }
        self.changes.push(Timed { time, change });
    }

    fn range(&mut self, lo: Millis, hi: Millis) -> Millis {
        self.rng.random_range(lo..=hi)
    }

    fn frange(&mut self, lo: f32, hi: f32) -> f32 {
        self.rng.random_range(lo..=hi)
    }

    fn offset(&self, p: Point, (dc, dr): (i8, i8), k: i8) -> Option<Point> {
        let c = p.col as i16 + dc as i16 * k as i16;
        let r = p.row as i16 + dr as i16 * k as i16;
        let s = self.size as i16;
        ((0..s).contains(&c) && (0..s).contains(&r)).then(|| Point::new(c as u8, r as u8))
    }

    fn check(&self, p: Point, line: Option<usize>) -> Result<(), ScriptError> {
        if p.on_board(self.size) {
            Ok(())
        } else {
            Err(ScriptError::new(
                line.unwrap_or(0),
                format!("{p} is off a {0}x{0} board", self.size),
            ))
        }
    }

    /// Fits drawn motion phases into an optional budget: returns the phases (compressed if
    /// they do not fit) and the pause after them.
    fn fit(phases: &mut [Millis], pause: Millis, budget: Option<Millis>) -> Millis {
        let Some(budget) = budget else {
            return pause;
        };
        let total: Millis = phases.iter().sum();
        if total <= budget {
            return budget - total;
        }
        for d in phases.iter_mut() {
            *d = (*d * budget / total.max(1)).max(u64::from(budget > 0));
        }
        let total: Millis = phases.iter().sum();
        budget.saturating_sub(total)
    }

    /// A hand with a stone of `color` over `p` from `t` for `d` ms; with `flash` it reads
    /// as the stone briefly in the middle.
    fn hand_over(&mut self, p: Point, color: Color, t: Millis, d: Millis, flash: bool) {
        let f = sign(color) * self.frange(0.32, 0.45);
        self.at(t, Change::Hand(p, f));
        if flash && d >= 40 {
            let len = self.range(20, 40).min(d - 10);
            let start = t + (d - len) / 2;
            let ff = sign(color) * self.frange(0.60, 0.75);
            self.at(start, Change::Hand(p, ff));
            self.at(start + len, Change::Hand(p, f));
        }
        self.at(t + d, Change::Hand(p, 0.0));
    }

    /// Carries out one step and records it.
    pub(crate) fn step(&mut self, step: &Step) -> Result<(), ScriptError> {
        self.step_as(step, Origin::default())
    }

    /// Carries out one step of a game and records it with its move and violation.
    pub(crate) fn step_as(&mut self, step: &Step, origin: Origin) -> Result<(), ScriptError> {
        let line = step.line;
        let err = |m: String| ScriptError::new(line.unwrap_or(0), m);
        let start = self.t;
        let (end, pause) = match &step.action {
            Action::Place { color, point } => {
                self.check(*point, line)?;
                if self.stone(*point).is_some() {
                    return Err(err(format!("place {color} {point}: {point} is taken")));
                }
                self.place(*color, &[*point], step.budget)
            }
            Action::PlaceTogether { color, points } => {
                if points.is_empty() {
                    return Err(err("place: no point given".into()));
                }
                for p in points {
                    self.check(*p, line)?;
                    if self.stone(*p).is_some() {
                        return Err(err(format!("place {color} {p}: {p} is taken")));
                    }
                }
                self.place(*color, points, step.budget)
            }
            Action::Lift { point } => {
                self.check(*point, line)?;
                let Some(color) = self.stone(*point) else {
                    return Err(err(format!("lift {point}: there is no stone on {point}")));
                };
                self.lift(*point, color, step.budget)
            }
            Action::Press { color } => self.press(*color, step.budget),
            Action::Slide { from, to } => {
                self.check(*from, line)?;
                self.check(*to, line)?;
                let Some(color) = self.stone(*from) else {
                    return Err(err(format!(
                        "slide {from} {to}: there is no stone on {from}"
                    )));
                };
                if self.stone(*to).is_some() {
                    return Err(err(format!("slide {from} {to}: {to} is taken")));
                }
                self.slide(*from, *to, color, step.budget)
            }
            Action::Hover { color, points } => {
                if points.is_empty() {
                    return Err(err("hover: no point given".into()));
                }
                for p in points {
                    self.check(*p, line)?;
                }
                let color = color.unwrap_or(self.to_move);
                self.hover(color, points, step.budget)
            }
            Action::Wait => (self.t, step.budget.unwrap_or(0)),
            Action::Knock { count } => self.knock(*count, step.budget),
            Action::Noise { probability } => {
                self.at(self.t, Change::Noise(*probability));
                (self.t, step.budget.unwrap_or(0))
            }
            Action::Stuck { point, state } => {
                self.check(*point, line)?;
                // A sensor stuck before anything happens is stuck from power on: the
                // first scan already reads it so (what the sensor check must catch).
                let from_power_on = self
                    .actions
                    .iter()
                    .all(|a| matches!(a.action, Action::Stuck { .. }));
                let at = if from_power_on { 0 } else { self.t };
                self.at(at, Change::Stuck(*point, *state));
                (self.t, step.budget.unwrap_or(0))
            }
        };
        self.actions.push(TimedAction {
            start,
            end,
            action: step.action.clone(),
            line,
            move_number: origin.move_number,
            violation: origin.violation,
        });
        self.t = end + pause;
        Ok(())
    }

    /// Sets stones of `color` down on `points` together. Returns (end of motion, pause).
    fn place(
        &mut self,
        color: Color,
        points: &[Point],
        budget: Option<Millis>,
    ) -> (Millis, Millis) {
        let target = points[0];
        let towards = Side::of(color, self.black_side).towards();
        let n_approach = self.range(1, 2) as i8;
        let mut approach = Vec::new();
        for k in (1..=n_approach).rev() {
            let mut q = self.offset(target, towards, k);
            if k == 2 {
                let side = self.rng.random_range(-1i8..=1);
                let across = (towards.1.abs(), towards.0.abs());
                q = q.and_then(|q| self.offset(q, across, side));
            }
            if let Some(q) = q {
                if !points.contains(&q) {
                    approach.push(q);
                }
            }
        }
        let mut phases: Vec<Millis> = approach.iter().map(|_| 0).collect();
        for d in phases.iter_mut() {
            *d = self.rng.random_range(40..=70);
        }
        phases.push(self.range(30, 60));
        let pause = self.range(200, 400);
        let pause = Self::fit(&mut phases, pause, budget);
        let mut t = self.t;
        for (i, q) in approach.iter().enumerate() {
            let flash = self.rng.random_bool(0.3);
            self.hand_over(*q, color, t, phases[i], flash);
            t += phases[i];
        }
        let descent = phases[phases.len() - 1];
        for p in points {
            let f = sign(color) * self.frange(0.35, 0.45);
            self.at(t, Change::Hand(*p, f));
        }
        let mut end = t + descent;
        for (i, p) in points.iter().enumerate() {
            let jitter = if i == 0 { 0 } else { self.range(0, 20) };
            let down = t + descent + jitter;
            self.at(down, Change::Hand(*p, 0.0));
            self.at(down, Change::Stone(*p, Some(color)));
            end = end.max(down);
        }
        self.to_move = color.opponent();
        (end, pause)
    }

    fn lift(&mut self, p: Point, color: Color, budget: Option<Millis>) -> (Millis, Millis) {
        let mut phases = vec![self.range(30, 60), self.range(30, 50)];
        let pause = self.range(200, 400);
        let pause = Self::fit(&mut phases, pause, budget);
        let t = self.t;
        let f = sign(color) * self.frange(0.35, 0.45);
        self.at(t, Change::Stone(p, None));
        self.at(t, Change::Hand(p, f));
        let t1 = t + phases[0];
        self.at(t1, Change::Hand(p, 0.0));
        let lifter = self.to_move.opponent();
        let towards = Side::of(lifter, self.black_side).towards();
        let end = t1 + phases[1];
        if let Some(q) = self.offset(p, towards, 1) {
            self.hand_over(q, color, t1, phases[1], false);
        }
        (end, pause)
    }

    fn press(&mut self, color: Color, budget: Option<Millis>) -> (Millis, Millis) {
        let mut phases = vec![self.range(150, 300), self.range(60, 140)];
        let pause = self.range(150, 300);
        let pause = Self::fit(&mut phases, pause, budget);
        let button = match color {
            Color::Black => Button::Black,
            Color::White => Button::White,
        };
        let down = self.t + phases[0];
        let up = down + phases[1].max(1);
        self.at(down, Change::Button(button, ButtonAction::Press));
        self.at(up, Change::Button(button, ButtonAction::Release));
        (up, pause)
    }

    fn slide(
        &mut self,
        from: Point,
        to: Point,
        color: Color,
        budget: Option<Millis>,
    ) -> (Millis, Millis) {
        let mut path = vec![from];
        let mut cur = from;
        while cur != to {
            let step = |a: u8, b: u8| -> u8 {
                match a.cmp(&b) {
                    std::cmp::Ordering::Less => a + 1,
                    std::cmp::Ordering::Greater => a - 1,
                    std::cmp::Ordering::Equal => a,
                }
            };
            cur = Point::new(step(cur.col, to.col), step(cur.row, to.row));
            path.push(cur);
        }
        // Phases: between each pair, then over each intermediate point.
        let mut phases = Vec::new();
        for i in 1..path.len() {
            phases.push(self.range(40, 70));
            if i + 1 < path.len() {
                phases.push(self.range(20, 40));
            }
        }
        let pause = self.range(200, 400);
        let pause = Self::fit(&mut phases, pause, budget);
        let s = sign(color);
        let mut t = self.t;
        self.at(t, Change::Stone(from, None));
        let mut ph = phases.into_iter();
        for i in 1..path.len() {
            let (a, b) = (path[i - 1], path[i]);
            let between = ph.next().unwrap_or(1);
            let f = s * self.frange(0.40, 0.48);
            self.at(t, Change::Hand(a, f));
            self.at(t, Change::Hand(b, f));
            t += between;
            self.at(t, Change::Hand(a, 0.0));
            if b == to {
                self.at(t, Change::Hand(b, 0.0));
                self.at(t, Change::Stone(to, Some(color)));
            } else {
                let over = ph.next().unwrap_or(1);
                self.at(t, Change::Hand(b, s));
                t += over;
            }
        }
        (t, pause)
    }

    fn hover(
        &mut self,
        color: Color,
        points: &[Point],
        budget: Option<Millis>,
    ) -> (Millis, Millis) {
        let n = points.len() as Millis;
        let (each, rest) = match budget {
            Some(b) => (b / n, b % n),
            None => (100, 0),
        };
        let mut t = self.t;
        for (i, p) in points.iter().enumerate() {
            let d = each + if (i as Millis) < rest { 1 } else { 0 };
            let flash = self.rng.random_bool(0.3);
            if d > 0 {
                self.hand_over(*p, color, t, d, flash);
            }
            t += d;
        }
        (t, 0)
    }

    fn knock(&mut self, count: usize, budget: Option<Millis>) -> (Millis, Millis) {
        let stones: Vec<Point> = (0..self.board.len())
            .filter(|i| self.board[*i].is_some())
            .map(|i| Point::from_index(i, self.size))
            .collect();
        let pause = self.range(400, 800);
        if stones.is_empty() {
            return (self.t, budget.unwrap_or(pause));
        }
        let centre = stones[self.rng.random_range(0..stones.len())];
        let mut keyed: Vec<(u32, u32, Point)> = stones
            .iter()
            .map(|p| {
                let dc = p.col.abs_diff(centre.col) as u32;
                let dr = p.row.abs_diff(centre.row) as u32;
                (dc * dc + dr * dr, self.rng.random::<u32>(), *p)
            })
            .collect();
        keyed.sort();
        let moved: Vec<Point> = keyed.iter().take(count).map(|k| k.2).collect();
        let mut taken: Vec<Point> = Vec::new();
        let mut plans = Vec::new();
        for p in &moved {
            let mut free: Vec<Point> = Vec::new();
            for dc in -2i8..=2 {
                for dr in -2i8..=2 {
                    if (dc, dr) == (0, 0) {
                        continue;
                    }
                    if let Some(q) = self.offset(*p, (dc, dr), 1) {
                        if self.stone(q).is_none() && !taken.contains(&q) {
                            free.push(q);
                        }
                    }
                }
            }
            let dest = if free.is_empty() {
                None
            } else {
                Some(free[self.rng.random_range(0..free.len())])
            };
            if let Some(q) = dest {
                taken.push(q);
            }
            let color = self.stone(*p).unwrap_or(Color::Black);
            let mut phases = vec![self.range(0, 30), self.range(20, 40), self.range(20, 40)];
            // A knock is over in about 100 ms; a shorter budget compresses it.
            Self::fit(&mut phases, 0, budget.filter(|b| *b < 100));
            plans.push((*p, dest, color, phases));
        }
        let t = self.t;
        let mut end = t;
        for (p, dest, color, ph) in &plans {
            let leave = t + ph[0];
            let cross = leave + ph[1];
            let land = cross + ph[2];
            let f = sign(*color) * 0.4;
            self.at(leave, Change::Stone(*p, None));
            self.at(leave, Change::Hand(*p, f));
            self.at(cross, Change::Hand(*p, 0.0));
            if let Some(q) = dest {
                self.at(cross, Change::Hand(*q, f));
                self.at(land, Change::Hand(*q, 0.0));
                self.at(land, Change::Stone(*q, Some(*color)));
            }
            end = end.max(land);
        }
        let pause = match budget {
            Some(b) => b.saturating_sub(end - t),
            None => pause,
        };
        (end, pause)
    }
}
