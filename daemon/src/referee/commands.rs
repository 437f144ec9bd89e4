//! Arbiter commands (SPEC.md, `cmd` topic). An invalid command (unknown alert id, wrong
//! phase, no clock) is an `Err` with one sentence and changes nothing.

use tengen_hal::Millis;
use tengen_rules::clock::TimeControl;
use tengen_rules::Move;

use super::{is_penalised, Penalties, Phase, Referee, RefereeSettings};
use crate::command::{Command, CommandEnvelope};
use crate::event::{AlertCode, Event};

impl Referee {
    /// Applies one arbiter command at `now`; returns the events it causes.
    pub fn on_command(&mut self, cmd: &CommandEnvelope, now: Millis) -> Result<Vec<Event>, String> {
        self.now = now;
        match &cmd.command {
            Command::Pause {} => {
                self.playing("pause")?;
                let clock = self.clock.as_mut().ok_or("this game has no clock")?;
                if clock.is_paused() {
                    return Err("the clock is already paused".to_string());
                }
                clock.pause(now);
                Ok(vec![self.clock_event(None)])
            }
            Command::Resume {} => {
                self.playing("resume")?;
                let clock = self.clock.as_mut().ok_or("this game has no clock")?;
                if !clock.is_paused() {
                    return Err("the clock is not paused".to_string());
                }
                clock.resume(now);
                Ok(vec![self.clock_event(None)])
            }
            Command::AdjustTime { color, ms, periods } => {
                if self.phase == Phase::Over {
                    return Err("the game is over".to_string());
                }
                let clock = self.clock.as_mut().ok_or("this game has no clock")?;
                clock.adjust(*color, *ms, *periods, now);
                Ok(vec![self.clock_event(None)])
            }
            Command::Confirm { alert } => self.close_alert(alert, true),
            Command::Dismiss { alert } => self.close_alert(alert, false),
            Command::Resign { color } => {
                if self.phase == Phase::Over {
                    return Err("the game is over".to_string());
                }
                Ok(self.resign(*color, now))
            }
            Command::SetResult { result } => {
                if self.phase == Phase::Over {
                    return Err("the game is over".to_string());
                }
                check_result(result)?;
                let mut events = Vec::new();
                let mut reason = "arbiter";
                let flags: Vec<String> = self
                    .alerts
                    .iter()
                    .filter(|a| a.code == AlertCode::TimeExpired)
                    .map(|a| a.id.clone())
                    .collect();
                for id in flags {
                    reason = "time";
                    self.alerts.retain(|a| a.id != id);
                    events.push(Event::AlertCleared {
                        id,
                        how: "confirmed".to_string(),
                    });
                }
                events.extend(self.game_over(result.clone(), reason));
                Ok(events)
            }
            Command::ResumePlay { color } => self.resume_play(*color, now),
            Command::NewGame {
                black,
                white,
                round,
                table,
                size,
                komi,
                handicap,
                time_control,
                ..
            } => {
                let mut s: RefereeSettings = self.settings.clone();
                if let Some(v) = black {
                    s.black = v.clone();
                }
                if let Some(v) = white {
                    s.white = v.clone();
                }
                if let Some(v) = round {
                    s.round = v.clone();
                }
                if let Some(v) = table {
                    s.table = v.clone();
                }
                if let Some(v) = size {
                    s.size = *v;
                }
                if let Some(v) = komi {
                    s.komi = *v;
                }
                if let Some(v) = handicap {
                    s.handicap = *v;
                }
                if let Some(tc) = time_control {
                    s.time = TimeControl::parse(tc).map_err(|e| format!("time_control: {e}"))?;
                }
                let (r, events) = Referee::new(s, now).map_err(|e| e.to_string())?;
                *self = r;
                Ok(events)
            }
            Command::Republish { .. } => Ok(Vec::new()),
        }
    }

    fn playing(&self, what: &str) -> Result<(), String> {
        match self.phase {
            Phase::Over => Err(format!("cannot {what}: the game is over")),
            _ => Ok(()),
        }
    }

    /// `confirm` (a violation: the warning is given) or `dismiss` (no violation).
    fn close_alert(&mut self, id: &str, confirm: bool) -> Result<Vec<Event>, String> {
        let idx = self
            .alerts
            .iter()
            .position(|a| a.id == id && a.visible)
            .ok_or_else(|| format!("no open alert '{id}'"))?;
        let alert = self.alerts[idx].clone();
        let board_differs = alert.is_board_alert()
            && alert
                .expected
                .iter()
                .any(|&(p, want)| self.physical_at(p) != want);
        if board_differs {
            self.alerts[idx].visible = false;
        } else {
            self.alerts.remove(idx);
        }
        let mut events = Vec::new();
        let mut over = Vec::new();
        let already = self.settings.penalties == Penalties::Auto;
        if confirm && is_penalised(alert.code) && !already {
            if let Some(c) = alert.color {
                let (w, o) = self.give_warning(c, alert.code);
                events.extend(w);
                over = o;
            }
        }
        events.push(Event::AlertCleared {
            id: alert.id,
            how: if confirm { "confirmed" } else { "dismissed" }.to_string(),
        });
        events.extend(over);
        Ok(events)
    }

    /// Play goes on after a flag fall ruled a forfeited turn (Art. 22.5) or after a
    /// disagreement at counting (Art. 21.4).
    fn resume_play(
        &mut self,
        color: tengen_rules::Color,
        now: Millis,
    ) -> Result<Vec<Event>, String> {
        if let Some(idx) = self
            .alerts
            .iter()
            .position(|a| a.code == AlertCode::TimeExpired)
        {
            let alert = self.alerts.remove(idx);
            let flagged = alert.color.unwrap_or(color.opponent());
            let mut events = vec![Event::AlertCleared {
                id: alert.id,
                how: "confirmed".to_string(),
            }];
            if let Some(clock) = self.clock.as_mut() {
                clock.forfeit_turn_after_flag(flagged, now);
            }
            if self.game.to_move() == flagged
                && self.moved.is_none()
                && self.game.play_as(flagged, Move::Pass).is_ok()
            {
                self.record.push(super::record::MoveNote::new(
                    flagged,
                    Move::Pass,
                    self.clock.as_ref(),
                    now,
                ));
                events.push(Event::Pass {
                    number: self.game.move_number(),
                    color: flagged,
                });
            }
            self.moved = None;
            events.push(self.clock_event(None));
            return Ok(events);
        }
        match self.phase {
            Phase::Counting { .. } => {
                if self.game.to_move() != color {
                    return Err(format!(
                        "{} is to move in the record; resume with that side",
                        self.game.to_move().letter()
                    ));
                }
                self.phase = Phase::Playing;
                self.recent_pass = None;
                Ok(Vec::new())
            }
            _ => Err("nothing to resume: no flag fall and not counting".to_string()),
        }
    }
}

/// Accepts SGF results: `B+R`, `W+T`, `B+F`, `B+1.5`, `0`, `Void`, `?`.
fn check_result(result: &str) -> Result<(), String> {
    if matches!(result, "0" | "Void" | "?" | "Draw") {
        return Ok(());
    }
    let bad = || format!("'{result}' is not an SGF result");
    let (who, how) = result.split_once('+').ok_or_else(bad)?;
    if !matches!(who, "B" | "W") {
        return Err(bad());
    }
    if how.is_empty() || matches!(how, "R" | "T" | "F" | "Resign" | "Time" | "Forfeit") {
        return Ok(());
    }
    how.parse::<f64>().map(|_| ()).map_err(|_| bad())
}
