//! Reading the physical board against the record: moves, clock presses, and naming the
//! differences that are not moves.

use tengen_protocol::event::{AlertCode, ClearedHow, ClockStart, RetractReason};
use tengen_protocol::view::Phase;
use tengen_protocol::Event;
use tengen_rules::game::Illegal;
use tengen_rules::{Color, Move, Point};

use super::{is_penalised, Penalties, Referee};
use crate::stabiliser::Stone;

/// True when `a` and `b` are orthogonal neighbours.
fn adjacent(a: Point, b: Point) -> bool {
    a.col.abs_diff(b.col) + a.row.abs_diff(b.row) == 1
}

impl Referee {
    /// Points where the physical board differs from what it must show, ignoring captured
    /// stones still being lifted and handicap stones still being set down.
    fn differences(&self) -> Vec<Point> {
        let size = self.size();
        let pending = self.pending();
        let mut out = Vec::new();
        for (i, &phys) in self.physical.iter().enumerate() {
            let p = Point::from_index(i, size);
            if phys == self.record_at(p)
                || (phys.is_some() && pending.contains(&p))
                || (phys.is_none() && self.setup_missing.contains(&p))
            {
                continue;
            }
            out.push(p);
        }
        out.sort();
        out
    }

    /// Differences not already covered by an alert.
    fn uncovered(&self, diffs: &[Point]) -> Vec<Point> {
        diffs
            .iter()
            .copied()
            .filter(|p| !self.covering().any(|a| a.alert.points.contains(p)))
            .collect()
    }

    /// Re-reads the board after a batch of stable changes.
    pub(super) fn interpret_board(&mut self, out: &mut Vec<Event>) {
        self.observe();
        match self.phase() {
            Phase::Over => return,
            Phase::Counting => {
                if self.confirmed == [false, false] {
                    self.retract_pass_if_stone(out);
                }
                return;
            }
            Phase::Playing => {}
        }
        self.clear_restored(out);
        let diffs = self.differences();
        let open = self.uncovered(&diffs);
        if self.resign_proposal.is_some() && !self.is_resign_gesture(&open) {
            self.resign_proposal = None;
        }
        if open.is_empty() {
            self.unexplained_since = None;
            return;
        }
        if self.is_resign_gesture(&open) {
            self.unexplained_since = None;
            self.resign_proposal = self.physical_at(open[0]);
            return;
        }
        if let [p] = open[..] {
            if self.record_at(p).is_none() {
                if let Some(c) = self.physical_at(p) {
                    if c == self.to_move() && self.setup_missing.is_empty() {
                        self.try_move(out, p, c);
                        return;
                    }
                    if self.retract_pass_for(out, p, c) {
                        return;
                    }
                }
            }
        }
        if let Some((p, c)) = self.capture_lifted_with_its_stone(&open) {
            self.try_move(out, p, c);
            return;
        }
        self.unexplained_since = Some(self.now);
    }

    /// A capturing move whose captured stones were lifted before the new stone's reading
    /// settled: one new stone of the side to move on an empty point, and every other
    /// difference one of the stones it captures, already off the board. The stabiliser
    /// takes a reading as settled only after it has held for a while, and each wrong
    /// reading of a noisy sensor starts that wait again: at one wrong reading in fifty a
    /// player quick to lift the captured stones often had them off before the new stone
    /// counted, and the board saw two differences where a move was (issue 23).
    fn capture_lifted_with_its_stone(&self, open: &[Point]) -> Option<(Point, Color)> {
        if open.len() < 2 || !self.setup_missing.is_empty() {
            return None;
        }
        let c = self.to_move();
        let mut placed = open
            .iter()
            .filter(|&&p| self.record_at(p).is_none() && self.physical_at(p) == Some(c));
        let p = *placed.next()?;
        if placed.next().is_some() {
            return None;
        }
        let captured = self.view.game()?.captures_of(c, p).ok()?;
        open.iter()
            .filter(|&&q| q != p)
            .all(|&q| {
                captured.contains(&q)
                    && self.physical_at(q).is_none()
                    && self.record_at(q) == Some(c.opponent())
            })
            .then_some((p, c))
    }

    /// Right after a reopen into play: what differs from the record now (stones moved to
    /// count by hand, a resignation's stones) is one alert, `board_disturbed` when it is
    /// many points, else `mismatch`, showing what the board must look like; it clears once
    /// the board is put right. Nothing is read as a move.
    pub(super) fn reread_after_reopen(&mut self, out: &mut Vec<Event>) {
        self.unexplained_since = None;
        let diffs = self.differences();
        let open = self.uncovered(&diffs);
        if open.is_empty() {
            return;
        }
        let code = if open.len() >= self.settings.disturbed_points {
            AlertCode::BoardDisturbed
        } else {
            AlertCode::Mismatch
        };
        let expected = open.iter().map(|&p| (p, self.record_at(p))).collect();
        let message = format!(
            "The game was reopened and the board differs from the record at {}: set the stones as the record shows before play goes on.",
            tengen_protocol::gtp::join(&open, ", ")
        );
        self.raise_with(out, code, None, open, expected, message);
    }

    /// Clears every visible board alert whose points match again. One whose violation
    /// carries a warning that is the arbiter's to give (penalties `arbiter`) stays open for
    /// the arbiters, its warning pending (`warning_pending`).
    fn clear_restored(&mut self, out: &mut Vec<Event>) {
        let arbiter = self.penalties() == Penalties::Arbiter;
        let restored: Vec<(String, bool)> = self
            .view
            .alerts()
            .iter()
            .filter(|a| a.visible && a.restored.is_none() && a.alert.is_board_alert())
            .filter(|a| {
                a.alert
                    .expected
                    .iter()
                    .all(|(p, want)| self.physical_at(p) == want)
            })
            .map(|a| {
                let pending = arbiter && is_penalised(a.alert.code) && a.alert.color.is_some();
                (a.alert.id.clone(), pending)
            })
            .collect();
        for (id, warning_pending) in restored {
            self.emit(
                out,
                Event::AlertCleared {
                    id,
                    how: ClearedHow::Restored,
                    warning_pending,
                },
            );
        }
    }

    /// A stone of the side to move on an empty point: a move if the rules allow it.
    fn try_move(&mut self, out: &mut Vec<Event>, p: Point, c: Color) {
        let captured = match self.view.game().map(|g| g.captures_of(c, p)) {
            Some(Ok(captured)) => captured,
            Some(Err(illegal)) => {
                let code = match illegal {
                    Illegal::Suicide => AlertCode::Suicide,
                    Illegal::Ko => AlertCode::Ko,
                    Illegal::Superko => AlertCode::Superko,
                    _ => AlertCode::Mismatch,
                };
                self.unexplained_since = None;
                self.raise(out, code, Some(c), vec![p], vec![(p, None)]);
                return;
            }
            None => return,
        };
        // The opponent's next stone makes the previous move final: its captures must be off.
        let pending = self.pending();
        if !pending.is_empty() {
            let expected = pending.iter().map(|&q| (q, None)).collect();
            self.raise(
                out,
                AlertCode::UncapturedStones,
                Some(c.opponent()),
                pending,
                expected,
            );
        }
        self.record_move(out, p, c, captured);
    }

    /// Plays a legal move into the record and announces it.
    fn record_move(&mut self, out: &mut Vec<Event>, p: Point, c: Color, captured: Vec<Point>) {
        // A first stone is its player's check-in, or their arrival.
        self.arrive(out, c);
        let number = self.view.game().map_or(0, |g| g.move_number()) + 1;
        let clock = self.clocks_now();
        self.emit(
            out,
            Event::Move {
                number,
                color: c,
                point: p,
                captured: tengen_protocol::gtp::sorted(captured),
                clock,
            },
        );
        // Captured stones the mover lifted before the move settled are off already.
        self.observe();
    }

    /// The stone of a player who passed moments ago: the pass is withdrawn
    /// (`clock_before_move`) and the stone is the move. False when it is not that.
    fn retract_pass_for(&mut self, out: &mut Vec<Event>, p: Point, c: Color) -> bool {
        let Some(pass) = self.view.recent_pass() else {
            return false;
        };
        let Some(game) = self.view.game() else {
            return false;
        };
        let last_is_pass = game
            .history()
            .last()
            .is_some_and(|pl| pl.mv == Move::Pass && pl.color == c);
        if pass.color != c
            || !last_is_pass
            || self.now > pass.at.millis() + self.settings.pass_grace_ms
        {
            return false;
        }
        // Only withdraw the pass if the stone is a legal move in its place.
        let mut probe = game.clone();
        probe.undo();
        let Ok(captured) = probe.captures_of(c, p) else {
            return false;
        };
        self.emit(
            out,
            Event::MoveRetracted {
                number: pass.number,
                reason: RetractReason::ClockBeforeMove,
            },
        );
        self.record_move(out, p, c, captured);
        self.raise(
            out,
            AlertCode::ClockBeforeMove,
            Some(c),
            vec![p],
            Vec::new(),
        );
        true
    }

    /// In counting, a stone set down by the player who just passed retracts that pass.
    fn retract_pass_if_stone(&mut self, out: &mut Vec<Event>) {
        let diffs = self.differences();
        if let [p] = diffs[..] {
            if self.record_at(p).is_none() {
                if let Some(c) = self.physical_at(p) {
                    self.retract_pass_for(out, p, c);
                }
            }
        }
    }

    /// A clock press by `color` at the referee's now.
    pub(super) fn on_press(&mut self, out: &mut Vec<Event>, color: Color) {
        match self.phase() {
            Phase::Over => return,
            Phase::Counting => {
                self.confirmed[color.index()] = true;
                if self.confirmed == [true, true] {
                    self.finish_count(out);
                }
                return;
            }
            Phase::Playing => {}
        }
        // A player not seated yet: the press is their check-in (before play began) or their
        // arrival (after), never a clock press.
        if self.arrive(out, color) {
            return;
        }
        if self.view.waiting().is_some()
            && (self.starting_press(out, color) || self.view.awaiting_press() != Some(color))
        {
            // Before play begins a press starts the clocks (`white`) or does nothing: it
            // is not a pass. Only a stone already set down is completed by its press.
            return;
        }
        if self.resign_proposal == Some(color) {
            self.resign(out, color);
            return;
        }
        self.clock_due(out);
        if self.view.awaiting_press() == Some(color) {
            // A stone set down before play began: its press hands the turn to the opponent
            // at no cost (the stopped clock would ignore a press, and play would begin on
            // the mover's time); with `clock_start` `white` it also starts the opponent's
            // clock, as on a club clock.
            let waiting = self.view.waiting();
            if let Some(r) = self.reading_after(Some(color), |c, now| match waiting {
                Some(ClockStart::White) => {
                    c.resume(now);
                    c.press(color, now);
                }
                Some(_) => c.start(color.opponent(), now),
                None => {
                    c.press(color, now);
                }
            }) {
                self.emit(out, Event::Clock(r));
            }
            let pending = self.pending();
            if !pending.is_empty() {
                let expected = pending.iter().map(|&q| (q, None)).collect();
                self.raise(
                    out,
                    AlertCode::UncapturedStones,
                    Some(color),
                    pending,
                    expected,
                );
            }
            return;
        }
        if color == self.to_move() {
            // The opponent's press while the last mover has not pressed is still a pass.
            self.pass(out, color);
        }
    }

    /// Presses `color`'s side of the clock: its `clock` event.
    fn press_clock(&mut self, out: &mut Vec<Event>, color: Color) {
        if let Some(r) = self.reading_after(Some(color), |c, now| {
            c.press(color, now);
        }) {
            self.emit(out, Event::Clock(r));
        }
    }

    /// A press with no stone placed: a pass.
    fn pass(&mut self, out: &mut Vec<Event>, color: Color) {
        let Some(game) = self.view.game() else {
            return;
        };
        if !game.is_legal(color, Move::Pass) {
            return;
        }
        let number = game.move_number() + 1;
        self.emit(out, Event::Pass { number, color });
        self.press_clock(out, color);
        if self
            .view
            .game()
            .is_some_and(|g| g.consecutive_passes() >= 2)
        {
            self.unexplained_since = None;
            self.resign_proposal = None;
            self.emit(out, Event::Counting { dead: Vec::new() });
        }
    }

    /// Names a difference that has held long enough and is not a move.
    pub(super) fn classify(&mut self, out: &mut Vec<Event>, since: u64) {
        let diffs = self.differences();
        let open = self.uncovered(&diffs);
        if open.is_empty() {
            self.unexplained_since = None;
            return;
        }
        if self.is_resign_gesture(&open) {
            self.unexplained_since = None;
            self.resign_proposal = open.first().and_then(|&p| self.physical_at(p));
            return;
        }
        let mut lifted: Vec<(Point, Color)> = Vec::new();
        let mut placed: Vec<(Point, Color)> = Vec::new();
        let mut swapped = false;
        for &p in &open {
            match (self.record_at(p), self.physical_at(p)) {
                (Some(c), None) => lifted.push((p, c)),
                (None, Some(c)) => placed.push((p, c)),
                _ => swapped = true,
            }
        }
        let to_move = self.to_move();
        let (last_mover, first_move) = match self.view.game() {
            Some(g) => (
                g.history().last().map(|pl| pl.color),
                g.history().is_empty(),
            ),
            None => (None, true),
        };
        let expected: Vec<(Point, Stone)> = open.iter().map(|&p| (p, self.record_at(p))).collect();
        let last_point = self.view.last_move();
        let stable = self.settings.stable_ms;
        // The last move's stone in the hand: give the player time to put it somewhere.
        if !swapped
            && placed.is_empty()
            && lifted.len() == 1
            && Some(lifted[0].0) == last_point
            && self.now < since + self.settings.pass_grace_ms.max(2 * stable)
        {
            return;
        }
        self.unexplained_since = None;
        let (code, color) = if open.len() >= self.settings.disturbed_points {
            (AlertCode::BoardDisturbed, None)
        } else if swapped {
            (AlertCode::Mismatch, None)
        } else if let ([(a, ca)], [(b, cb)]) = (&lifted[..], &placed[..]) {
            let (a, b, c) = (*a, *b, *ca);
            if c != *cb {
                (AlertCode::Mismatch, None)
            } else if Some(a) == last_point {
                let size = self.size();
                let gap = self.onset[b.index(size)].abs_diff(self.onset[a.index(size)]);
                if adjacent(a, b) && gap <= stable {
                    (AlertCode::StoneMoved, None)
                } else {
                    (AlertCode::Takeback, Some(c))
                }
            } else if adjacent(a, b) {
                (AlertCode::StoneMoved, None)
            } else {
                (AlertCode::Mismatch, None)
            }
        } else if lifted.is_empty() && placed.len() == 1 {
            let c = placed[0].1;
            if c == to_move {
                (AlertCode::Mismatch, None)
            } else if first_move {
                (AlertCode::WrongColor, Some(to_move))
            } else {
                (AlertCode::DoubleMove, Some(c))
            }
        } else if placed.is_empty()
            && !lifted.is_empty()
            && lifted.iter().all(|&(_, c)| c == to_move)
        {
            match last_mover {
                Some(m) if m != to_move => (AlertCode::WrongCapture, Some(m)),
                _ => (AlertCode::Mismatch, None),
            }
        } else {
            (AlertCode::Mismatch, None)
        };
        self.raise(out, code, color, open, expected);
    }

    /// The corner region where `color`'s player puts two stones to resign: the lower-right
    /// corner as that player sees it, `min(4, size / 2)` lines deep.
    pub fn resign_corner(&self, color: Color, p: Point) -> bool {
        let size = self.size();
        let depth = 4.min(size / 2).max(1);
        let side = tengen_hal::side::Side::of(color, self.settings.black_side);
        let near = |v: u8| v < depth;
        let far = |v: u8| v >= size.saturating_sub(depth);
        match side {
            tengen_hal::Side::South => far(p.col) && near(p.row),
            tengen_hal::Side::North => near(p.col) && far(p.row),
            tengen_hal::Side::East => far(p.col) && far(p.row),
            tengen_hal::Side::West => near(p.col) && near(p.row),
        }
    }

    /// True when `open` is exactly two new stones of one colour in that colour's corner.
    fn is_resign_gesture(&self, open: &[Point]) -> bool {
        let [a, b] = open else { return false };
        if self.record_at(*a).is_some() || self.record_at(*b).is_some() {
            return false;
        }
        match (self.physical_at(*a), self.physical_at(*b)) {
            (Some(ca), Some(cb)) if ca == cb => {
                self.resign_corner(ca, *a) && self.resign_corner(ca, *b)
            }
            _ => false,
        }
    }
}
