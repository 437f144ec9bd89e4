//! Commands on `{root}/cmd`: decoded strictly and their sender checked with
//! [`tengen_protocol::command::decode_checked`] (by the publisher's core, see
//! `super::publisher_state`); a malformed, unknown or refused command is answered with an
//! error on `{root}/cmd/reply` and goes nowhere else; a valid one goes to the service as a
//! [`CommandRequest`] and the service's answer is the reply. `RecentCommands` remembers
//! the ids taken lately so a repeated one is answered again, never carried out twice.
//! A `republish` beyond one every 10 s is refused with
//! [`tengen_protocol::command::RepublishRefused`]. Each command taken is logged once, in
//! words, when it is carried out or refused (`log_outcome`).

use std::collections::{HashMap, VecDeque};

use tengen_protocol::{Answer, CommandEnvelope};
use tokio::sync::{mpsc, oneshot};

/// A decoded command handed to the service, with the channel its answer goes back on:
/// [`Answer::Done`] or why it was refused.
#[derive(Debug)]
pub struct CommandRequest {
    /// The command.
    pub command: CommandEnvelope,
    /// Where the service answers.
    pub reply: oneshot::Sender<Answer>,
}

/// The channel pair the service owns: it receives [`CommandRequest`]s from the publisher.
pub fn channel(capacity: usize) -> (mpsc::Sender<CommandRequest>, mpsc::Receiver<CommandRequest>) {
    mpsc::channel(capacity)
}

/// A command as the board's log names it: `c-12 from chief: pause`, `c-13 from chief:
/// adjust_time W to 5:00, 3 periods` (its id, who sent it, what it asks in a few words).
/// Every text in it passed [`tengen_protocol::command::check_fields`], so it is one line.
pub(crate) fn named(command: &CommandEnvelope) -> String {
    let who = match &command.by {
        Some(by) => format!("from {by}"),
        None => "from an unnamed sender".to_string(),
    };
    format!(
        "{} {who}: {}",
        command.id,
        tengen_protocol::describe::command(&command.command)
    )
}

/// The log line of a command carried out or refused: `command c-12 from chief: pause -
/// done`, `command c-12 from chief: pause - refused: the game is over`.
pub(crate) fn outcome_line(named: &str, answer: &Answer) -> String {
    match answer {
        Answer::Done => format!("command {named} - done"),
        Answer::Refused(why) | Answer::Reasoned(why, _) => {
            format!("command {named} - refused: {why}")
        }
        Answer::Frames(b64) => format!(
            "command {named} - answered ({} bytes of frames)",
            b64.len() * 3 / 4
        ),
    }
}

/// Logs (INFO, one line) what became of a command: [`outcome_line`].
pub(crate) fn log_outcome(named: &str, answer: &Answer) {
    tracing::info!("{}", outcome_line(named, answer));
}

/// Why a command handed to the service got no answer from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unanswered {
    /// The service's queue is full.
    #[error("the board is busy; send the command again")]
    Busy,
    /// The service is gone.
    #[error("the board service is not running")]
    NotRunning,
    /// The service dropped the command without answering.
    #[error("the board service dropped the command")]
    Dropped,
    /// The service did not answer within [`super::publisher_state::ANSWER_TIMEOUT`].
    #[error("the board service did not answer in time")]
    TimedOut,
}

/// The command ids a board has taken lately in this run, with their answers: MQTT delivers a
/// command at least once, so a repeated id is never carried out twice; its answer is sent
/// again when it is known. (Replays of signed commands across boards, out of their time
/// window and across restarts are refused before this, see
/// [`tengen_protocol::signing::Scope::check`] and [`super::taken_ids`].)
#[derive(Debug, Default)]
pub(crate) struct RecentCommands {
    order: VecDeque<String>,
    answers: HashMap<String, Option<Answer>>,
}

/// What to do with a command, by its id.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seen {
    /// A new id: carry it out.
    New,
    /// Being carried out: its answer will go out once; say nothing now.
    Pending,
    /// Already answered: send this answer again.
    Answered(Answer),
}

impl RecentCommands {
    /// How many ids are remembered.
    pub(crate) const KEEP: usize = 1024;

    /// Looks `id` up; a new id is remembered as pending.
    pub(crate) fn take(&mut self, id: &str) -> Seen {
        match self.answers.get(id) {
            Some(None) => Seen::Pending,
            Some(Some(answer)) => Seen::Answered(answer.clone()),
            None => {
                self.answers.insert(id.to_string(), None);
                self.order.push_back(id.to_string());
                while self.order.len() > Self::KEEP {
                    if let Some(old) = self.order.pop_front() {
                        self.answers.remove(&old);
                    }
                }
                Seen::New
            }
        }
    }

    /// True when `id` is remembered (pending or answered).
    pub(crate) fn knows(&self, id: &str) -> bool {
        self.answers.contains_key(id)
    }

    /// Records the answer to `id`.
    pub(crate) fn answered(&mut self, id: &str, answer: &Answer) {
        if let Some(slot) = self.answers.get_mut(id) {
            *slot = Some(answer.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_is_logged_in_words_on_one_line() {
        let command = |json: &str| tengen_protocol::command::decode(json.as_bytes()).unwrap();
        let pause = command(r#"{"id":"c-12","by":"chief","type":"pause"}"#);
        assert_eq!(
            outcome_line(&named(&pause), &Answer::Done),
            "command c-12 from chief: pause - done"
        );
        assert_eq!(
            outcome_line(&named(&pause), &Answer::refused("the game is over")),
            "command c-12 from chief: pause - refused: the game is over"
        );
        for (json, line) in [
            (
                r#"{"id":"c-13","by":"chief","type":"adjust_time","color":"W","ms":300000,"periods":3}"#,
                "command c-13 from chief: adjust_time W to 5:00, 3 periods - done",
            ),
            (
                r#"{"id":"c-14","by":"chief","type":"reopen","reason":"wrong card"}"#,
                "command c-14 from chief: reopen: \"wrong card\" - done",
            ),
            (
                r#"{"id":"c-15","type":"withdraw_warning","color":"B"}"#,
                "command c-15 from an unnamed sender: withdraw_warning B - done",
            ),
            (
                r#"{"id":"c-16","by":"hall","type":"set_result","result":"W+T","reason":"time"}"#,
                "command c-16 from hall: set_result W+T (time) - done",
            ),
            (
                r#"{"id":"c-17","by":"hall","type":"new_game","game":"r1-t3","black":"Lee\\]","white":"Gao"}"#,
                "command c-17 from hall: new_game r1-t3, Lee\\] (B) vs Gao (W) - done",
            ),
        ] {
            assert_eq!(outcome_line(&named(&command(json)), &Answer::Done), line);
        }
    }

    #[test]
    fn a_repeated_id_is_not_carried_out_twice() {
        let mut recent = RecentCommands::default();
        assert_eq!(recent.take("a"), Seen::New);
        assert_eq!(recent.take("a"), Seen::Pending);
        recent.answered("a", &Answer::refused("no such alert"));
        assert_eq!(
            recent.take("a"),
            Seen::Answered(Answer::refused("no such alert"))
        );
        for i in 0..RecentCommands::KEEP {
            assert_eq!(recent.take(&format!("n{i}")), Seen::New);
        }
        assert_eq!(recent.take("a"), Seen::New, "the oldest ids are forgotten");
    }
}
