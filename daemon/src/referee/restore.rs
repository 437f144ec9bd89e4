//! Rebuilding a referee from the events it emitted before (the service's journal after a
//! power cut): position, record, clocks, warnings, open alerts and the move count.
//!
//! Each event comes with the referee time (ms) it was emitted at, so the clock's presses,
//! pauses and adjustments are replayed at their own times and the clock is exactly what it
//! was. Two things are not in the event log and are rebuilt from the board instead: the
//! physical board (call [`Referee::resync_physical`] with what the sensors show, or start
//! the stabiliser from [`Referee::expected_physical`]) and a counting confirmation press
//! made just before the cut (the player presses again).

use tengen_hal::Millis;
use tengen_rules::{Color, Move, Point};

use super::alerts::{parse_expected, OpenAlert};
use super::record::MoveNote;
use super::{Phase, RecentPass, Referee, RefereeError, RefereeSettings};
use crate::event::{AlertCode, Event};
use crate::stabiliser::Stone;

impl Referee {
    /// Rebuilds the referee from `events` (each with the time it was emitted at), as it was
    /// at `now`. `settings` supplies what `game_started` does not carry (detection
    /// thresholds, penalties, board side).
    pub fn restore(
        settings: RefereeSettings,
        events: &[(Millis, Event)],
        now: Millis,
    ) -> Result<Referee, RefereeError> {
        let start = events.first().map(|(t, _)| *t).unwrap_or(now);
        let (mut r, _) = Referee::new(settings.clone(), start)?;
        let mut skip_start_clock = false;
        let mut after_retraction = false;
        for (t, e) in events {
            let t = *t;
            if let Some(clock) = r.clock.as_mut() {
                clock.tick(t);
            }
            r.now = t;
            let retracted_before = std::mem::take(&mut after_retraction);
            match e {
                Event::GameStarted {
                    size,
                    komi,
                    handicap,
                    superko,
                    time_control,
                    black,
                    white,
                    round,
                    table,
                    ..
                } => {
                    let mut s = settings.clone();
                    s.size = *size;
                    s.komi = *komi;
                    s.handicap = *handicap;
                    if let Some(k) = tengen_rules::Superko::parse(superko) {
                        s.superko = k;
                    }
                    if let Ok(tc) = tengen_rules::clock::TimeControl::parse(time_control) {
                        s.time = tc;
                    }
                    s.black = black.clone();
                    s.white = white.clone();
                    s.round = round.clone();
                    s.table = table.clone();
                    let next_alert = r.next_alert;
                    r = Referee::new(s, t)?.0;
                    r.next_alert = next_alert;
                    skip_start_clock = r.clock.is_some();
                }
                Event::Move {
                    color,
                    point,
                    captured,
                    ..
                } => {
                    let Ok(p) = Point::parse_gtp(point, r.settings.size) else {
                        continue;
                    };
                    if r.game.play_as(*color, Move::Play(p)).is_err() {
                        continue;
                    }
                    r.pending = captured
                        .iter()
                        .filter_map(|q| Point::parse_gtp(q, r.settings.size).ok())
                        .collect();
                    r.setup_missing.clear();
                    // A stone that replaced a retracted pass was pressed for already.
                    r.moved = (!retracted_before).then_some(*color);
                    r.recent_pass = None;
                    r.last_move = Some((p, *color, t));
                    r.record
                        .push(MoveNote::new(*color, Move::Play(p), r.clock.as_ref(), t));
                }
                Event::Pass { number, color } => {
                    if r.game.play_as(*color, Move::Pass).is_err() {
                        continue;
                    }
                    r.moved = None;
                    r.record
                        .push(MoveNote::new(*color, Move::Pass, r.clock.as_ref(), t));
                    r.recent_pass = Some(RecentPass {
                        color: *color,
                        at: t,
                        number: *number,
                    });
                    r.last_move = None;
                }
                Event::MoveRetracted { .. } => {
                    r.game.undo();
                    r.record.pop();
                    r.recent_pass = None;
                    if matches!(r.phase, Phase::Counting { .. }) {
                        r.phase = Phase::Playing;
                    }
                    after_retraction = true;
                }
                Event::Clock {
                    color,
                    black,
                    white,
                    periods,
                    running,
                } => {
                    if std::mem::take(&mut skip_start_clock) && color.is_none() {
                        continue;
                    }
                    r.replay_clock(
                        *color,
                        [*black, *white],
                        [periods.black, periods.white],
                        *running,
                        t,
                    );
                }
                Event::Alert {
                    id,
                    code,
                    color,
                    points,
                    expected,
                    message,
                    article,
                } => {
                    let size = r.settings.size;
                    let points: Vec<Point> = points
                        .iter()
                        .filter_map(|q| Point::parse_gtp(q, size).ok())
                        .collect();
                    if *code == AlertCode::UncapturedStones {
                        r.pending.retain(|p| !points.contains(p));
                    }
                    if let Some(n) = id.strip_prefix('a').and_then(|n| n.parse::<u32>().ok()) {
                        r.next_alert = r.next_alert.max(n + 1);
                    }
                    if let Some(note) = r.record.last_mut() {
                        note.comments.push(message.clone());
                    }
                    r.unexplained_since = None;
                    r.alerts.push(OpenAlert {
                        id: id.clone(),
                        code: *code,
                        article: article.clone(),
                        color: *color,
                        points,
                        expected: parse_expected(expected, size),
                        message: message.clone(),
                        visible: true,
                    });
                }
                Event::AlertCleared { id, how } => {
                    if how == "restored" {
                        r.alerts.retain(|a| &a.id != id);
                    } else if let Some(i) = r.alerts.iter().position(|a| &a.id == id) {
                        if r.alerts[i].is_board_alert() {
                            r.alerts[i].visible = false;
                        } else {
                            r.alerts.remove(i);
                        }
                    }
                }
                Event::Warning { color, count, .. } => {
                    r.warnings[color.index()] = *count;
                }
                Event::Counting { .. } => {
                    if r.phase == Phase::Playing {
                        r.phase = Phase::Counting {
                            confirmed: [false, false],
                        };
                    }
                }
                Event::GameOver { result, .. } => {
                    r.phase = Phase::Over;
                    r.result = Some(result.clone());
                    if let Some(clock) = r.clock.as_mut() {
                        clock.pause(t);
                    }
                }
                Event::Byoyomi { .. } | Event::SensorFault { .. } | Event::Status { .. } => {}
            }
        }
        if let Some(clock) = r.clock.as_mut() {
            clock.tick(now);
        }
        r.now = now;
        r.physical = r.expected_physical();
        Ok(r)
    }

    /// Replays one `clock` event: a press, or an arbiter's pause, resume or adjustment.
    fn replay_clock(
        &mut self,
        color: Option<Color>,
        ms: [u64; 2],
        periods: [u32; 2],
        running: Option<Color>,
        t: Millis,
    ) {
        if let Some(c) = color {
            if self.moved == Some(c) {
                self.moved = None;
            }
            if let Some(clock) = self.clock.as_mut() {
                clock.press(c, t);
            }
            return;
        }
        let Some(clock) = self.clock.as_mut() else {
            return;
        };
        if running.is_none() && clock.running().is_some() && !clock.is_paused() {
            clock.pause(t);
        } else if running.is_some() && clock.is_paused() {
            clock.resume(t);
        } else {
            for c in [Color::Black, Color::White] {
                if clock.remaining(c, t) != ms[c.index()]
                    || clock.periods_left(c) != periods[c.index()]
                {
                    clock.adjust(c, ms[c.index()], Some(periods[c.index()]), t);
                }
            }
        }
    }

    /// Tells the referee what the physical board shows, without interpreting it (after a
    /// restore): captured stones already lifted stop being expected.
    pub fn resync_physical(&mut self, stones: &[Stone]) {
        if stones.len() != self.physical.len() {
            return;
        }
        self.physical = stones.to_vec();
        let size = self.settings.size;
        let physical = &self.physical;
        self.pending.retain(|p| physical[p.index(size)].is_some());
        self.setup_missing
            .retain(|p| physical[p.index(size)].is_none());
        let alerts = std::mem::take(&mut self.alerts);
        self.alerts = alerts
            .into_iter()
            .filter(|a| {
                a.visible
                    || !a
                        .expected
                        .iter()
                        .all(|&(p, want)| physical[p.index(size)] == want)
            })
            .collect();
    }
}
