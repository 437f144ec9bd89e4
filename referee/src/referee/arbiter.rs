//! Arbiter commands (docs/mqtt-http.md, the `cmd` topic). A command that cannot be carried out (unknown
//! alert id, wrong phase, no clock) is refused with one sentence and changes nothing.

use tengen_hal::Millis;
use tengen_protocol::command::{check_result, BadResult, RefusalReason};
use tengen_protocol::event::{
    AlertCode, ClearedHow, ClockStart, EndReason, GameEnd, GameSetup, ReopenedPhase,
};
use tengen_protocol::view::Phase;
use tengen_protocol::{Command, CommandEnvelope, Event};
use tengen_rules::clock::{ClockError, TimeControl};
use tengen_rules::{Color, Game};
use thiserror::Error;

use super::{is_penalised, Penalties, Referee, RefereeError};

/// Why the referee refused a command; the reply's error.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandRefused {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// A clock command in a game without a clock.
    #[error("this game has no clock")]
    NoClock,
    /// `pause` while paused.
    #[error("the clock is already paused")]
    AlreadyPaused,
    /// `resume` while running.
    #[error("the clock is not paused")]
    NotPaused,
    /// `confirm` or `dismiss` of an alert that is not open.
    #[error("no open alert '{0}'")]
    NoSuchAlert(String),
    /// `set_result` with something else than an SGF result.
    #[error("{0}")]
    BadResult(#[from] BadResult),
    /// `resume_play` naming the wrong side.
    #[error("{0} is to move in the record; resume with that side")]
    WrongSide(Color),
    /// `resume_play` after a time-out where no turn can be forfeited instead of the loss:
    /// Art. 22.5 is for byo-yomi; under sudden death or Fischer (12.4) and Canadian
    /// periods (12.5) a time-out loses.
    #[error("a forfeited turn is for byo-yomi only (Art. 22.5): under this time control a time-out loses (Art. {0}); record the result")]
    NoForfeitedTurn(&'static str),
    /// `resume_play` with no flag fall and not counting.
    #[error("nothing to resume: no flag fall and not counting")]
    NothingToResume,
    /// `new_game` with a time control that does not read.
    #[error("time_control: {0}")]
    TimeControl(#[from] ClockError),
    /// `new_game` the rules cannot set up.
    #[error("{0}")]
    Setup(String),
    /// `reopen` of a game that is not over.
    #[error("the game is not over: only a finished game can be reopened")]
    NotOver,
    /// `withdraw_warning` once the game is over.
    #[error("the game is over: reopen it first, then withdraw the warning")]
    ReopenFirst,
    /// `withdraw_warning` for a side without a warning.
    #[error("{} has no warning to withdraw", name(*.0))]
    NoWarning(Color),
    /// `set_result` whose `reason` does not fit the result (`time` with `B+1.5`).
    #[error("reason \"{reason}\" needs a result such as {wants}, not \"{result}\"", wants = fitting(*.reason))]
    ResultReason {
        /// The result asked for.
        result: String,
        /// The reason given.
        reason: EndReason,
    },
    /// `resume` of a clock whose flag fell with no `time_expired` open (a game lost on
    /// time and reopened): nothing would run.
    #[error("{}'s clock reads 0 (the flag fell): set it with adjust_time first, then resume", name(*.0))]
    Flagged(Color),
    /// `give_warning` once the game is over.
    #[error("the game is over: reopen it first, then give the warning")]
    ReopenToWarn,
    /// `void_game` of a game already void.
    #[error("the game is void already")]
    AlreadyVoid,
    /// `new_game` on another size than the board's sensors read: accepted, the board would
    /// drop every scan from then on.
    #[error("this board is {board}x{board}; a {asked}x{asked} game cannot be played on it")]
    BoardSize {
        /// The size the command asked for.
        asked: u8,
        /// The hardware's size.
        board: u8,
    },
}

impl CommandRefused {
    /// The refusal as a code and its values, for a console to say in its reader's words
    /// (the reply's `reason`; [`std::fmt::Display`] says it in English).
    pub fn reason(&self) -> RefusalReason {
        let color = |c: &Color| ("color", c.letter().to_string());
        match self {
            CommandRefused::GameOver => RefusalReason::new("game_over", &[]),
            CommandRefused::NoClock => RefusalReason::new("no_clock", &[]),
            CommandRefused::AlreadyPaused => RefusalReason::new("already_paused", &[]),
            CommandRefused::NotPaused => RefusalReason::new("not_paused", &[]),
            CommandRefused::NoSuchAlert(id) => {
                RefusalReason::new("no_such_alert", &[("alert", id.clone())])
            }
            CommandRefused::BadResult(BadResult(r)) => {
                RefusalReason::new("bad_result", &[("result", r.clone())])
            }
            CommandRefused::WrongSide(c) => RefusalReason::new("wrong_side", &[color(c)]),
            CommandRefused::NothingToResume => RefusalReason::new("nothing_to_resume", &[]),
            CommandRefused::NoForfeitedTurn(article) => {
                RefusalReason::new("no_forfeited_turn", &[("article", (*article).to_string())])
            }
            CommandRefused::TimeControl(e) => {
                RefusalReason::new("time_control", &[("error", e.to_string())])
            }
            CommandRefused::Setup(e) => RefusalReason::new("setup", &[("error", e.clone())]),
            CommandRefused::NotOver => RefusalReason::new("not_over", &[]),
            CommandRefused::ReopenFirst => RefusalReason::new("reopen_first", &[]),
            CommandRefused::NoWarning(c) => RefusalReason::new("no_warning", &[color(c)]),
            CommandRefused::ResultReason { result, reason } => RefusalReason::new(
                "result_reason",
                &[
                    ("result", result.clone()),
                    ("reason", reason.as_str().to_string()),
                    ("wants", fitting(*reason).to_string()),
                ],
            ),
            CommandRefused::Flagged(c) => RefusalReason::new("flagged", &[color(c)]),
            CommandRefused::ReopenToWarn => RefusalReason::new("reopen_to_warn", &[]),
            CommandRefused::AlreadyVoid => RefusalReason::new("already_void", &[]),
            CommandRefused::BoardSize { asked, board } => RefusalReason::new(
                "board_size",
                &[("asked", asked.to_string()), ("board", board.to_string())],
            ),
        }
    }
}

impl Referee {
    /// Carries out one arbiter command at `now`; returns the events it causes.
    pub fn on_command(
        &mut self,
        cmd: &CommandEnvelope,
        now: Millis,
    ) -> Result<Vec<Event>, CommandRefused> {
        self.now = now;
        let mut out = Vec::new();
        if !matches!(
            cmd.command,
            Command::NewGame { .. } | Command::Republish { .. } | Command::Frames { .. }
        ) {
            self.clock_due(&mut out);
        }
        let over = self.phase() == Phase::Over;
        match &cmd.command {
            Command::Pause {} => {
                let clock = self.view.clock().ok_or(CommandRefused::NoClock)?;
                if over {
                    return Err(CommandRefused::GameOver);
                }
                if clock.is_paused() {
                    return Err(CommandRefused::AlreadyPaused);
                }
                self.clock_change(&mut out, |c, now| c.pause(now));
            }
            Command::Resume {} => {
                let clock = self.view.clock().ok_or(CommandRefused::NoClock)?;
                if over {
                    return Err(CommandRefused::GameOver);
                }
                if !clock.is_paused() {
                    return Err(CommandRefused::NotPaused);
                }
                if let Some(flagged) = clock.flagged() {
                    if !self.time_expired_open() {
                        return Err(CommandRefused::Flagged(flagged));
                    }
                }
                self.clock_change(&mut out, |c, now| c.resume(now));
                // The arbiter has seen the board come back: its alert is dealt with.
                let restarts: Vec<String> = self
                    .view
                    .open_alerts()
                    .filter(|a| a.code == AlertCode::BoardRestarted)
                    .map(|a| a.id.clone())
                    .collect();
                for id in restarts {
                    self.emit(&mut out, Event::cleared(id, ClearedHow::Dismissed));
                }
            }
            Command::AdjustTime { color, ms, periods } => {
                if over {
                    return Err(CommandRefused::GameOver);
                }
                self.view.clock().ok_or(CommandRefused::NoClock)?;
                let (color, ms, periods) = (*color, *ms, *periods);
                self.clock_change(&mut out, |c, now| c.adjust(color, ms, periods, now));
            }
            Command::Confirm { alert } => self.close_alert(&mut out, alert, true)?,
            Command::Dismiss { alert } => self.close_alert(&mut out, alert, false)?,
            Command::Resign { color } => {
                if over {
                    return Err(CommandRefused::GameOver);
                }
                self.close_moot_alerts(&mut out);
                self.resign(&mut out, *color);
            }
            Command::SetResult { result, reason } => {
                if over {
                    return Err(CommandRefused::GameOver);
                }
                check_result(result)?;
                if let Some(reason) = reason {
                    if !result_fits(result, *reason) {
                        return Err(CommandRefused::ResultReason {
                            result: result.clone(),
                            reason: *reason,
                        });
                    }
                }
                // The alerts a result decides: a flag fall (time), a player away at the
                // limit (absent).
                let deciding: Vec<(String, EndReason)> = self
                    .view
                    .open_alerts()
                    .filter_map(|a| match a.code {
                        AlertCode::TimeExpired => Some((a.id.clone(), EndReason::Time)),
                        AlertCode::Absent => Some((a.id.clone(), EndReason::Absent)),
                        _ => None,
                    })
                    .collect();
                // As before the reason could be given: the open alert's when there is one
                // (and the result fits it).
                let reason = reason.unwrap_or_else(|| {
                    deciding
                        .iter()
                        .map(|(_, r)| *r)
                        .find(|r| result_fits(result, *r))
                        .unwrap_or(EndReason::Arbiter)
                });
                for (id, decides) in deciding {
                    let how = if reason == decides {
                        ClearedHow::Confirmed
                    } else {
                        ClearedHow::Dismissed
                    };
                    self.emit(&mut out, Event::cleared(id, how));
                }
                self.close_moot_alerts(&mut out);
                self.emit(
                    &mut out,
                    Event::GameOver(GameEnd::uncounted(result.clone(), reason)),
                );
            }
            Command::Reopen { reason } => self.reopen(&mut out, reason.clone())?,
            Command::WithdrawWarning { color, reason } => {
                if over {
                    return Err(CommandRefused::ReopenFirst);
                }
                let count = self.view.warnings().get(*color);
                if count == 0 {
                    return Err(CommandRefused::NoWarning(*color));
                }
                self.emit(
                    &mut out,
                    Event::WarningWithdrawn {
                        color: *color,
                        count: count - 1,
                        reason: reason.clone(),
                    },
                );
            }
            Command::GiveWarning {
                color,
                article,
                reason,
            } => {
                if over {
                    return Err(CommandRefused::ReopenToWarn);
                }
                let count = self.view.warnings().get(*color) + 1;
                self.emit(
                    &mut out,
                    Event::WarningGiven {
                        color: *color,
                        article: article.clone(),
                        reason: reason.clone(),
                        count,
                    },
                );
                if count >= 2 {
                    self.close_moot_alerts(&mut out);
                    self.emit(
                        &mut out,
                        Event::GameOver(GameEnd::uncounted(
                            format!("{}+F", color.opponent().letter()),
                            EndReason::Warnings,
                        )),
                    );
                }
            }
            Command::VoidGame { reason } => {
                if self.view.voided() {
                    return Err(CommandRefused::AlreadyVoid);
                }
                // Nothing of a void game is for anyone to decide: its alerts close.
                let open: Vec<String> = self.view.open_alerts().map(|a| a.id.clone()).collect();
                for id in open {
                    self.emit(&mut out, Event::cleared(id, ClearedHow::Dismissed));
                }
                self.emit(
                    &mut out,
                    Event::GameVoided {
                        reason: reason.clone(),
                    },
                );
            }
            Command::ResumePlay { color } => self.resume_play(&mut out, *color)?,
            Command::NewGame {
                black,
                white,
                black_rank,
                white_rank,
                event,
                place,
                round,
                table,
                size,
                komi,
                handicap,
                time_control,
                penalties,
                ..
            } => {
                let mut s: GameSetup = self
                    .view
                    .setup()
                    .cloned()
                    .unwrap_or_else(|| self.settings.game.clone());
                let set = |slot: &mut String, v: &Option<String>| {
                    if let Some(v) = v {
                        slot.clone_from(v);
                    }
                };
                set(&mut s.black, black);
                set(&mut s.white, white);
                set(&mut s.round, round);
                set(&mut s.table, table);
                // Ranks and the event name belong to the players and the tournament
                // named in this command: not carried over from the last game.
                s.black_rank.clone_from(black_rank);
                s.white_rank.clone_from(white_rank);
                s.event.clone_from(event);
                s.place.clone_from(place);
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
                    s.time_control = TimeControl::parse(tc)?;
                }
                // How the clocks begin is the board's (its config), not the last game's;
                // so are the penalties, unless this command says (a round's setting).
                s.clock_start = self.settings.clock_start;
                s.penalties = *penalties;
                out = self.new_game(s, now).map_err(|e| match e {
                    RefereeError::Setup(e) => CommandRefused::Setup(e.to_string()),
                    other => CommandRefused::Setup(other.to_string()),
                })?;
            }
            // Read from the black box by the board's service; nothing of the game's.
            Command::Republish { .. } | Command::Frames { .. } => {}
        }
        Ok(out)
    }

    /// Sets a new game up from `setup` at `now`: its `game_started`, and the start of its
    /// clock: running (`clock_start` `now`), or started and paused in the same instant
    /// while the game waits to begin (`arbiter`, `white`). The setup is checked first, so a
    /// refused one changes nothing.
    pub(super) fn new_game(
        &mut self,
        setup: GameSetup,
        now: Millis,
    ) -> Result<Vec<Event>, RefereeError> {
        if setup.handicap >= 2 {
            Game::with_handicap(setup.size, setup.handicap, setup.superko)?;
        } else {
            Game::new(setup.size, setup.superko)?;
        }
        self.now = now;
        let mut setup = setup;
        // Its players check in, and lateness counts, when it waits for play to begin and
        // has a clock (Art. 22): the board's rule, whatever the last game had.
        let checks_in = !setup.clock_start.is_now() && setup.time_control != TimeControl::None;
        let late = self.settings.late.filter(|_| checks_in);
        setup.late_limit_s = late.map(|p| u32::try_from(p.limit_ms / 1_000).unwrap_or(u32::MAX));
        setup.late_rule = late.map(|p| p.rule);
        self.settings.game = setup.clone();
        let mut out = Vec::new();
        self.emit(&mut out, Event::GameStarted(setup));
        let to_move = self.to_move();
        let wait = !self.settings.game.clock_start.is_now();
        if let Some(r) = self.reading_after(None, |c, now| {
            c.start(to_move, now);
            if wait {
                c.pause(now);
            }
        }) {
            self.emit(&mut out, Event::Clock(r));
        }
        Ok(out)
    }

    /// A press while the game waits to begin with `clock_start` `white`: the press of the
    /// side that does not move first starts the other side's clock, as at a club game.
    /// Returns false (nothing done) for any other press, which is read as during a pause.
    pub(super) fn starting_press(&mut self, out: &mut Vec<Event>, color: Color) -> bool {
        if self.view.waiting() != Some(ClockStart::White) {
            return false;
        }
        if self.view.awaiting_press().is_some() {
            // A stone was set down before play began: its own press starts the clocks
            // (see `on_press`), not the opponent's, which would start the mover's clock.
            return false;
        }
        let starter = self
            .view
            .clock()
            .and_then(|c| c.running())
            .map(Color::opponent);
        if starter != Some(color) {
            return false;
        }
        if let Some(r) = self.reading_after(Some(color), |c, now| c.resume(now)) {
            self.emit(out, Event::Clock(r));
        }
        true
    }

    /// True while a `time_expired` alert is open.
    fn time_expired_open(&self) -> bool {
        self.view
            .open_alerts()
            .any(|a| a.code == AlertCode::TimeExpired)
    }

    /// A finished game taken up again: `game_reopened` into the phase it ended from
    /// (`counting` for a counted result, else `playing`), and a `clock` event showing the
    /// clocks paused as they stood at the end (an arbiter resumes them, after adjusting a
    /// side whose flag fell). Back in play, the board is read again at once: what differs
    /// from the record (stones moved to count by hand, a resignation's corner stones) is an
    /// alert showing what the board must look like, never a move.
    fn reopen(
        &mut self,
        out: &mut Vec<Event>,
        reason: Option<String>,
    ) -> Result<(), CommandRefused> {
        if self.phase() != Phase::Over {
            return Err(CommandRefused::NotOver);
        }
        let previous_result = if self.view.voided() {
            "Void".to_string()
        } else {
            self.view.result().unwrap_or("?").to_string()
        };
        let phase = if self.view.end_reason() == Some(EndReason::Count) {
            ReopenedPhase::Counting
        } else {
            ReopenedPhase::Playing
        };
        self.emit(
            out,
            Event::GameReopened {
                previous_result,
                reason,
                phase,
            },
        );
        self.clock_change(out, |c, now| c.pause(now));
        if phase == ReopenedPhase::Playing {
            self.reread_after_reopen(out);
        }
        Ok(())
    }

    /// An arbiter's change to the clocks: its `clock` event (who: null).
    fn clock_change(
        &mut self,
        out: &mut Vec<Event>,
        change: impl FnOnce(&mut tengen_rules::clock::Clock, Millis),
    ) {
        if let Some(r) = self.reading_after(None, change) {
            self.emit(out, Event::Clock(r));
        }
    }

    /// `confirm` (a violation: the warning is given) or `dismiss` (no violation).
    fn close_alert(
        &mut self,
        out: &mut Vec<Event>,
        id: &str,
        confirm: bool,
    ) -> Result<(), CommandRefused> {
        let alert = self
            .view
            .open_alerts()
            .find(|a| a.id == id)
            .cloned()
            .ok_or_else(|| CommandRefused::NoSuchAlert(id.to_string()))?;
        let restored = self.view.pending_warnings().any(|(a, _)| a.id == alert.id);
        let board_differs = !restored
            && alert.is_board_alert()
            && alert
                .expected
                .iter()
                .any(|(p, want)| self.physical_at(p) != want);
        let mut over = None;
        let already = self.penalties() == Penalties::Auto;
        if confirm && is_penalised(alert.code) && !already {
            if let Some(c) = alert.color {
                over = self.give_warning(out, c, alert.code);
            }
        }
        let how = if confirm {
            ClearedHow::Confirmed
        } else {
            ClearedHow::Dismissed
        };
        self.emit(out, Event::cleared(alert.id.clone(), how));
        if !board_differs {
            // Put right already: it covers nothing.
            self.retired.insert(alert.id);
        }
        if let Some(over) = over {
            self.close_moot_alerts(out);
            self.emit(out, over);
        }
        Ok(())
    }

    /// Before an arbiter ends the game: closes (`dismissed`) the open alerts about the board
    /// that carry no warning to decide (`mismatch`, `board_disturbed`, `stone_moved`...): a
    /// finished game has no board to put right, and an alert left open would ring on it.
    fn close_moot_alerts(&mut self, out: &mut Vec<Event>) {
        let moot: Vec<String> = self
            .view
            .alerts()
            .iter()
            .filter(|a| a.visible && a.restored.is_none() && a.alert.is_board_alert())
            .filter(|a| !(is_penalised(a.alert.code) && a.alert.color.is_some()))
            .map(|a| a.alert.id.clone())
            .collect();
        for id in moot {
            self.emit(out, Event::cleared(id, ClearedHow::Dismissed));
        }
    }

    /// Play goes on after a flag fall ruled a forfeited turn (Art. 22.5) or after a
    /// disagreement at counting (Art. 21.4).
    fn resume_play(&mut self, out: &mut Vec<Event>, color: Color) -> Result<(), CommandRefused> {
        let flag = self
            .view
            .open_alerts()
            .find(|a| a.code == AlertCode::TimeExpired)
            .cloned();
        if let Some(alert) = flag {
            let tc = self.view.setup().map(|s| &s.time_control);
            if let Some(tc) = tc.filter(|tc| !matches!(tc, TimeControl::Byoyomi { .. })) {
                return Err(CommandRefused::NoForfeitedTurn(
                    AlertCode::time_out_article(tc),
                ));
            }
            let flagged = alert.color.unwrap_or(color.opponent());
            self.emit(out, Event::cleared(alert.id, ClearedHow::Confirmed));
            let to_move = self.to_move();
            if to_move == flagged && self.view.awaiting_press().is_none() {
                let number = self.view.game().map_or(0, |g| g.move_number()) + 1;
                self.emit(
                    out,
                    Event::Pass {
                        number,
                        color: flagged,
                    },
                );
            }
            self.clock_change(out, |c, now| c.forfeit_turn_after_flag(flagged, now));
            return Ok(());
        }
        match self.phase() {
            Phase::Counting => {
                let to_move = self.to_move();
                if to_move != color {
                    return Err(CommandRefused::WrongSide(to_move));
                }
                self.emit(out, Event::PlayResumed { color });
                Ok(())
            }
            _ => Err(CommandRefused::NothingToResume),
        }
    }
}

/// "Black" or "White".
fn name(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// The results that fit `reason`, in words, for a refusal.
fn fitting(reason: EndReason) -> &'static str {
    match reason {
        EndReason::Time => "B+T or W+T",
        EndReason::Resignation => "B+R or W+R",
        EndReason::Warnings => "B+F or W+F",
        EndReason::Count => "B+1.5, W+0.5 or 0 (a draw)",
        EndReason::Arbiter => "any SGF result",
        EndReason::Absent => "B+F, W+F or Void (both lose)",
    }
}

/// True when `result` (an SGF result that [`check_result`] accepts) is one a game ending
/// for `reason` can have: won on time for `time`, by resignation for `resignation`, by
/// forfeit for `warnings`, a margin or a draw for `count`, a forfeit or `Void` (both lose)
/// for `absent`; anything for `arbiter`.
fn result_fits(result: &str, reason: EndReason) -> bool {
    let how = result.split_once('+').map(|(_, how)| how);
    match reason {
        EndReason::Arbiter => true,
        EndReason::Time => matches!(how, Some("T" | "Time")),
        EndReason::Resignation => matches!(how, Some("R" | "Resign")),
        EndReason::Warnings => matches!(how, Some("F" | "Forfeit")),
        EndReason::Absent => matches!(how, Some("F" | "Forfeit")) || result == "Void",
        EndReason::Count => match how {
            Some(margin) => margin.parse::<f64>().is_ok(),
            None => matches!(result, "0" | "Draw"),
        },
    }
}
