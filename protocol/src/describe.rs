//! Events as readable lines, for people watching a terminal (`tengen demo`):
//! `   17  13:45:01.250  move 37  W  R14   captures Q14 Q15  [B 59:58 W 59:12]`.

use crate::command::Command;
use crate::event::{Envelope, Event};
use crate::gtp;
use crate::time::clock_text;

/// One readable line for an event: seq, time of day, what happened.
pub fn describe(envelope: &Envelope) -> String {
    let stamp = envelope.time.to_string();
    format!(
        "{:>5}  {}  {}",
        envelope.seq,
        stamp.get(11..23).unwrap_or(""),
        sentence(&envelope.event)
    )
}

/// What an event says, in a few words.
pub fn sentence(event: &Event) -> String {
    match event {
        Event::GameStarted(s) => format!(
            "game started: {size}x{size}, komi {}, {} (B) vs {} (W), {}",
            s.komi,
            s.black,
            s.white,
            s.time_control,
            size = s.size
        ),
        Event::Move {
            number,
            color,
            point,
            captured,
            clock,
        } => {
            let mut s = format!("move {number:<3} {color}  {:<4}", point.to_gtp());
            if !captured.is_empty() {
                s.push_str(&format!("  captures {}", gtp::join(captured, " ")));
            }
            if let Some(c) = clock {
                s.push_str(&format!(
                    "  [B {} W {}]",
                    clock_text(c.black),
                    clock_text(c.white)
                ));
            }
            s
        }
        Event::Pass { number, color } => format!("move {number:<3} {color}  pass"),
        Event::MoveRetracted { number, reason } => format!("move {number} retracted: {reason}"),
        Event::CheckedIn { color } => format!("{color} checked in (seated)"),
        Event::LateArrival {
            color,
            late_ms,
            deducted_ms,
        } => format!(
            "{color} arrived {} late, {} taken from the base time",
            clock_text(*late_ms),
            clock_text(*deducted_ms)
        ),
        Event::Clock(r) => {
            let who = r.color.map_or("arbiter".to_string(), |c| c.to_string());
            let next = r.running.map_or("nobody".to_string(), |c| c.to_string());
            if r.paused == Some(true) {
                format!("clock: paused ({who}), {next} to play")
            } else {
                format!("clock: {who} pressed, {next} to play")
            }
        }
        Event::Byoyomi {
            color,
            call,
            periods_left,
        } => format!("byo-yomi {color}: {call} ({periods_left} periods left)"),
        Event::Alert(a) => format!(
            "ALERT {} {} at {} ({}): {}",
            a.article,
            a.code.as_str().replace('_', " "),
            gtp::join(&a.points, " "),
            a.id,
            a.message
        ),
        Event::AlertCleared { id, how, .. } => format!("alert {id} cleared: {how}"),
        Event::Warning {
            color,
            article,
            count,
        } => format!("WARNING {color} ({article}), {count} this game"),
        Event::Counting { dead } => format!("counting; dead stones: {}", gtp::join(dead, " ")),
        Event::PlayResumed { color } => format!("play resumes, {color} to move"),
        Event::GameOver(end) => match (end.black_area, end.white_area) {
            (Some(b), Some(w)) => format!(
                "game over: {} by {} (Black {b}, White {w})",
                end.result, end.reason
            ),
            _ => format!("game over: {} by {}", end.result, end.reason),
        },
        Event::GameReopened {
            previous_result,
            reason,
            phase,
        } => format!(
            "game reopened ({phase}), was {previous_result}{}",
            because(reason.as_deref())
        ),
        Event::WarningWithdrawn {
            color,
            count,
            reason,
        } => format!(
            "warning of {color} withdrawn, {count} left{}",
            because(reason.as_deref())
        ),
        Event::WarningGiven {
            color,
            article,
            reason,
            count,
        } => format!(
            "WARNING {color} ({article}) given by the arbiter, {count} this game{}",
            because(reason.as_deref())
        ),
        Event::GameVoided { reason } => format!("game voided{}", because(reason.as_deref())),
        Event::SensorFault { points, kind } => {
            format!("sensor fault: {kind} {}", gtp::join(points, " "))
        }
        Event::Status { state, version, .. } => format!("board {state} (tengen {version})"),
    }
}

/// `: "the reason"` when there is one.
fn because(reason: Option<&str>) -> String {
    reason.map_or(String::new(), |r| format!(": \"{r}\""))
}

/// What a command asks, in a few words, its `type` first: `pause`, `adjust_time W to
/// 5:00, 3 periods`, `set_result W+T (time)`, `reopen: "wrong card confirmed"`. For the
/// board's log line of each command it carries out or refuses.
pub fn command(command: &Command) -> String {
    let kind = command.kind();
    match command {
        Command::NewGame {
            game, black, white, ..
        } => {
            let mut s = kind.to_string();
            if let Some(g) = game {
                s.push_str(&format!(" {g}"));
            }
            if let (Some(b), Some(w)) = (black, white) {
                s.push_str(&format!(", {b} (B) vs {w} (W)"));
            }
            s
        }
        Command::AdjustTime { color, ms, periods } => {
            let mut s = format!("{kind} {color} to {}", clock_text(*ms));
            if let Some(p) = periods {
                s.push_str(&format!(", {p} periods"));
            }
            s
        }
        Command::Confirm { alert } | Command::Dismiss { alert } => format!("{kind} {alert}"),
        Command::Resign { color } | Command::ResumePlay { color } => format!("{kind} {color}"),
        Command::SetResult { result, reason } => match reason {
            Some(r) => format!("{kind} {result} ({r})"),
            None => format!("{kind} {result}"),
        },
        Command::Republish { from_seq } => format!("{kind} from seq {from_seq}"),
        Command::Frames { from, to, game } => match game {
            Some(game) => format!("{kind} of {game} from {from} ms to {to} ms"),
            None => format!("{kind} from {from} ms to {to} ms"),
        },
        Command::Reopen { reason } => format!("{kind}{}", because(reason.as_deref())),
        Command::WithdrawWarning { color, reason } => {
            format!("{kind} {color}{}", because(reason.as_deref()))
        }
        Command::GiveWarning {
            color,
            article,
            reason,
        } => format!("{kind} {color} ({article}){}", because(reason.as_deref())),
        Command::VoidGame { reason } => format!("{kind}{}", because(reason.as_deref())),
        Command::Pause {} | Command::Resume {} => kind.to_string(),
    }
}
