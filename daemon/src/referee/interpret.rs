//! Reading the physical board against the record: moves, clock presses, and naming the
//! differences that are not moves.

use tengen_hal::Millis;
use tengen_rules::game::Illegal;
use tengen_rules::{Color, Move, Point};

use super::{record::MoveNote, Phase, RecentPass, Referee};
use crate::event::{AlertCode, Event};
use crate::stabiliser::Stone;

/// True when `a` and `b` are orthogonal neighbours.
fn adjacent(a: Point, b: Point) -> bool {
    a.col.abs_diff(b.col) + a.row.abs_diff(b.row) == 1
}

impl Referee {
    /// Points where the physical board differs from what it must show, ignoring captured
    /// stones still being lifted and handicap stones still being set down.
    pub(super) fn differences(&self) -> Vec<Point> {
        let size = self.settings.size;
        let mut out = Vec::new();
        for (i, &phys) in self.physical.iter().enumerate() {
            let p = Point::from_index(i, size);
            let want = self.record_at(p);
            if phys == want {
                continue;
            }
            if phys.is_some() && self.pending.contains(&p) {
                continue;
            }
            if phys.is_none() && self.setup_missing.contains(&p) {
                continue;
            }
            out.push(p);
        }
        out.sort();
        out
    }

    /// Differences not already covered by an open alert.
    fn uncovered(&self, diffs: &[Point]) -> Vec<Point> {
        diffs
            .iter()
            .copied()
            .filter(|p| !self.alerts.iter().any(|a| a.points.contains(p)))
            .collect()
    }

    /// Re-reads the board after a batch of stable changes.
    pub(super) fn interpret_board(&mut self, now: Millis) -> Vec<Event> {
        let size = self.settings.size;
        let physical = &self.physical;
        self.pending.retain(|p| physical[p.index(size)].is_some());
        self.setup_missing
            .retain(|p| physical[p.index(size)].is_none());
        let mut events = Vec::new();
        match self.phase {
            Phase::Over => return events,
            Phase::Counting { confirmed } => {
                if confirmed == [false, false] {
                    events.extend(self.retract_pass_if_stone(now));
                }
                return events;
            }
            Phase::Playing => {}
        }
        events.extend(self.clear_restored());
        let diffs = self.differences();
        let open = self.uncovered(&diffs);
        if self.resign_proposal.is_some() && !self.is_resign_gesture(&open) {
            self.resign_proposal = None;
        }
        if open.is_empty() {
            self.unexplained_since = None;
            return events;
        }
        if self.is_resign_gesture(&open) {
            self.unexplained_since = None;
            self.resign_proposal = self.physical_at(open[0]);
            return events;
        }
        if let [p] = open[..] {
            if self.record_at(p).is_none() {
                if let Some(c) = self.physical_at(p) {
                    if c == self.game.to_move() && self.setup_missing.is_empty() {
                        events.extend(self.try_move(p, c, now));
                        return events;
                    }
                    if let Some(e) = self.retract_pass_for(p, c, now) {
                        events.extend(e);
                        return events;
                    }
                }
            }
        }
        self.unexplained_since = Some(now);
        events
    }

    /// Clears every board alert whose points match again.
    fn clear_restored(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        let size = self.settings.size;
        let mut keep = Vec::new();
        for a in std::mem::take(&mut self.alerts) {
            let restored = a.is_board_alert()
                && a.expected
                    .iter()
                    .all(|&(p, want)| self.physical[p.index(size)] == want);
            if restored {
                if a.visible {
                    events.push(Event::AlertCleared {
                        id: a.id,
                        how: "restored".to_string(),
                    });
                }
            } else {
                keep.push(a);
            }
        }
        self.alerts = keep;
        events
    }

    /// A stone of the side to move on an empty point: a move if the rules allow it.
    fn try_move(&mut self, p: Point, c: Color, now: Millis) -> Vec<Event> {
        let mut events = Vec::new();
        let captured = match self.game.captures_of(c, p) {
            Ok(captured) => captured,
            Err(illegal) => {
                let code = match illegal {
                    Illegal::Suicide => AlertCode::Suicide,
                    Illegal::Ko => AlertCode::Ko,
                    Illegal::Superko => AlertCode::Superko,
                    _ => AlertCode::Mismatch,
                };
                self.unexplained_since = None;
                return self.raise(code, Some(c), vec![p], vec![(p, None)]);
            }
        };
        // The opponent's next stone makes the previous move final: its captures must be off.
        if !self.pending.is_empty() {
            let points: Vec<Point> = std::mem::take(&mut self.pending).into_iter().collect();
            let expected = points.iter().map(|&q| (q, None)).collect();
            events.extend(self.raise(
                AlertCode::UncapturedStones,
                Some(c.opponent()),
                points,
                expected,
            ));
        }
        events.extend(self.record_move(p, c, captured, now));
        events
    }

    /// Plays a legal move into the record and announces it.
    fn record_move(&mut self, p: Point, c: Color, captured: Vec<Point>, now: Millis) -> Vec<Event> {
        if self.game.play_as(c, Move::Play(p)).is_err() {
            return Vec::new();
        }
        let size = self.settings.size;
        self.pending = captured
            .iter()
            .copied()
            .filter(|q| self.physical[q.index(size)].is_some())
            .collect();
        self.moved = Some(c);
        self.recent_pass = None;
        self.unexplained_since = None;
        self.last_move = Some((p, c, self.onset[p.index(size)]));
        self.record
            .push(MoveNote::new(c, Move::Play(p), self.clock.as_ref(), now));
        vec![Event::Move {
            number: self.game.move_number(),
            color: c,
            point: p.to_gtp(),
            captured: tengen_rules::point::sorted_gtp(captured),
            clock: self.clocks(),
        }]
    }

    /// The stone of a player who passed moments ago: the pass is withdrawn
    /// (`clock_before_move`) and the stone is the move.
    fn retract_pass_for(&mut self, p: Point, c: Color, now: Millis) -> Option<Vec<Event>> {
        let pass = self.recent_pass?;
        let last_is_pass = self
            .game
            .history()
            .last()
            .is_some_and(|pl| pl.mv == Move::Pass && pl.color == c);
        if pass.color != c || !last_is_pass || now > pass.at + self.settings.pass_grace_ms {
            return None;
        }
        // Only withdraw the pass if the stone is a legal move in its place.
        let mut probe = self.game.clone();
        probe.undo();
        probe.captures_of(c, p).ok()?;
        self.game.undo();
        self.record.pop();
        self.recent_pass = None;
        if matches!(self.phase, Phase::Counting { .. }) {
            self.phase = Phase::Playing;
        }
        let mut events = vec![Event::MoveRetracted {
            number: pass.number,
            reason: "clock_before_move".to_string(),
        }];
        let captured = match self.game.captures_of(c, p) {
            Ok(captured) => captured,
            Err(_) => return Some(events),
        };
        events.extend(self.record_move(p, c, captured, now));
        // The clock was already pressed for this move.
        self.moved = None;
        events.extend(self.raise(AlertCode::ClockBeforeMove, Some(c), vec![p], Vec::new()));
        Some(events)
    }

    /// In counting, a stone set down by the player who just passed retracts that pass.
    fn retract_pass_if_stone(&mut self, now: Millis) -> Vec<Event> {
        let diffs = self.differences();
        if let [p] = diffs[..] {
            if self.record_at(p).is_none() {
                if let Some(c) = self.physical_at(p) {
                    if let Some(e) = self.retract_pass_for(p, c, now) {
                        return e;
                    }
                }
            }
        }
        Vec::new()
    }

    /// A clock press by `color` at `now`.
    pub(super) fn on_press(&mut self, color: Color, now: Millis) -> Vec<Event> {
        self.now = now;
        let mut events = Vec::new();
        match self.phase {
            Phase::Over => return events,
            Phase::Counting { mut confirmed } => {
                confirmed[color.index()] = true;
                self.phase = Phase::Counting { confirmed };
                if confirmed == [true, true] {
                    events.extend(self.finish_count());
                }
                return events;
            }
            Phase::Playing => {}
        }
        if self.resign_proposal == Some(color) {
            return self.resign(color, now);
        }
        if self.moved == Some(color) {
            self.moved = None;
            events.extend(self.press_clock(color, now));
            if !self.pending.is_empty() {
                let points: Vec<Point> = std::mem::take(&mut self.pending).into_iter().collect();
                let expected = points.iter().map(|&q| (q, None)).collect();
                events.extend(self.raise(
                    AlertCode::UncapturedStones,
                    Some(color),
                    points,
                    expected,
                ));
            }
            return events;
        }
        if color == self.game.to_move() {
            // The opponent's press while the last mover has not pressed is still a pass.
            self.moved = None;
            events.extend(self.pass(color, now));
        }
        events
    }

    /// Presses `color`'s side of the clock, with its `clock` and `byoyomi` events.
    fn press_clock(&mut self, color: Color, now: Millis) -> Vec<Event> {
        let Some(clock) = self.clock.as_mut() else {
            return Vec::new();
        };
        let calls = clock.press(color, now);
        let mut events = self.clock_events(calls);
        events.push(self.clock_event(Some(color)));
        events
    }

    /// A press with no stone placed: a pass.
    fn pass(&mut self, color: Color, now: Millis) -> Vec<Event> {
        if self.game.play_as(color, Move::Pass).is_err() {
            return Vec::new();
        }
        self.record
            .push(MoveNote::new(color, Move::Pass, self.clock.as_ref(), now));
        let number = self.game.move_number();
        self.recent_pass = Some(RecentPass {
            color,
            at: now,
            number,
        });
        self.last_move = None;
        let mut events = vec![Event::Pass { number, color }];
        events.extend(self.press_clock(color, now));
        if self.game.consecutive_passes() >= 2 {
            self.phase = Phase::Counting {
                confirmed: [false, false],
            };
            self.unexplained_since = None;
            self.resign_proposal = None;
            events.push(Event::Counting { dead: Vec::new() });
        }
        events
    }

    /// Names a difference that has held long enough and is not a move.
    pub(super) fn classify(&mut self, now: Millis, since: Millis) -> Vec<Event> {
        let diffs = self.differences();
        let open = self.uncovered(&diffs);
        if open.is_empty() {
            self.unexplained_since = None;
            return Vec::new();
        }
        if self.is_resign_gesture(&open) {
            self.unexplained_since = None;
            self.resign_proposal = open.first().and_then(|&p| self.physical_at(p));
            return Vec::new();
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
        let to_move = self.game.to_move();
        let last_mover = self.game.history().last().map(|pl| pl.color);
        let expected: Vec<(Point, Stone)> = open.iter().map(|&p| (p, self.record_at(p))).collect();
        let last_point = self.last_move.map(|(p, _, _)| p);
        // The last move's stone in the hand: give the player time to put it somewhere.
        if !swapped
            && placed.is_empty()
            && lifted.len() == 1
            && Some(lifted[0].0) == last_point
            && now < since + self.settings.pass_grace_ms.max(2 * self.settings.stable_ms)
        {
            return Vec::new();
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
                let size = self.settings.size;
                let gap = self.onset[b.index(size)].abs_diff(self.onset[a.index(size)]);
                if adjacent(a, b) && gap <= self.settings.stable_ms {
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
            } else if self.game.history().is_empty() {
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
        self.raise(code, color, open, expected)
    }

    /// The corner region where `color`'s player puts two stones to resign: the lower-right
    /// corner as that player sees it, `max(2, size / 4)` lines deep.
    pub fn resign_corner(&self, color: Color, p: Point) -> bool {
        let size = self.settings.size;
        let depth = 4.min(size / 2).max(1);
        let side = match color {
            Color::Black => self.settings.black_side,
            Color::White => self.settings.black_side.opposite(),
        };
        let near = |v: u8| v < depth;
        let far = |v: u8| v >= size.saturating_sub(depth);
        match side {
            super::Side::South => far(p.col) && near(p.row),
            super::Side::North => near(p.col) && far(p.row),
            super::Side::East => far(p.col) && far(p.row),
            super::Side::West => near(p.col) && near(p.row),
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
