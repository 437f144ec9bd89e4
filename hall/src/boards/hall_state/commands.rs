//! Commands to the boards: an arbiter's from the console (logged), the hall's own
//! (`[hall] identity`, unlogged), *pause all* / *resume all*; the boards' replies awaited;
//! the hall's notes and the commands' log for the console.

use std::time::Instant;

use serde_json::{json, Map, Value};
use tengen_protocol::command::Reply;
use tengen_protocol::topics::{BoardKey, Topics};
use tengen_protocol::Timestamp;
use tokio::sync::oneshot;

use super::{HallState, Outgoing};
use crate::boards::command_log::{CommandError, Sent};

/// What *pause all* / *resume all* did ([`HallState::all_boards`]).
#[derive(Debug, Default)]
pub(crate) struct AllBoards {
    /// The commands to publish, with their board and id.
    pub(crate) sent: Vec<(BoardKey, String, Outgoing)>,
    /// The boards in play not reached, and why (`offline`, or the command's error).
    pub(crate) skipped: Vec<(BoardKey, String)>,
}

impl HallState {
    /// Whether this hall sends commands to board `key`: not a hub's, and only to a board
    /// it knows.
    fn may_command(&self, key: &BoardKey) -> Result<(), CommandError> {
        if self.is_hub() {
            return Err(CommandError::Hub);
        }
        if !self.boards.contains_key(key) {
            return Err(CommandError::UnknownBoard(key.clone()));
        }
        Ok(())
    }

    /// Prepares a console command for board `key`, signed `by`; returns its id and what to
    /// publish. The command is pending until the board replies.
    pub(crate) fn command(
        &mut self,
        key: &BoardKey,
        by: &str,
        body: Map<String, Value>,
        now: Instant,
    ) -> Result<(String, Outgoing), CommandError> {
        self.may_command(key)?;
        let sent = self
            .commands
            .prepare(key, by, body, now, Timestamp::now())?;
        let out = self
            .outgoing(&sent)
            .ok_or_else(|| CommandError::UnknownBoard(key.clone()))?;
        Ok((sent.id, out))
    }

    /// Whether the console command `body` for board `key` from `by` would be sent, as
    /// [`HallState::command`] checks it, without sending or logging it.
    pub(crate) fn check_command(
        &self,
        key: &BoardKey,
        by: &str,
        body: Map<String, Value>,
    ) -> Result<(), CommandError> {
        self.may_command(key)?;
        self.commands.check(key, by, body)
    }

    /// A command in the hall's own name (`[hall] identity`), kept out of the commands' log
    /// (see [`CommandLog::prepare_unlogged`]).
    pub(crate) fn own_command(
        &mut self,
        key: &BoardKey,
        body: Map<String, Value>,
        now: Instant,
    ) -> Result<(String, Outgoing), CommandError> {
        self.may_command(key)?;
        let by = self.identity.clone().ok_or(CommandError::NoIdentity)?;
        let sent = self
            .commands
            .prepare_unlogged(key, &by, body, now, Timestamp::now())?;
        let out = self
            .outgoing(&sent)
            .ok_or_else(|| CommandError::UnknownBoard(key.clone()))?;
        Ok((sent.id, out))
    }

    /// The body of the console's command POST (`{"tournament":..,"board":..,"type":..,
    /// ...}`) from arbiter `by`: the board it names, the command's id and what to publish.
    /// Refused, with one line, when it names no board the hall knows or is not a command a
    /// board takes (fields checked as the board checks them).
    pub fn console_command(
        &mut self,
        by: &str,
        mut body: Map<String, Value>,
        now: Instant,
    ) -> Result<(BoardKey, String, Outgoing), CommandError> {
        let t = body.remove("tournament");
        let b = body.remove("board");
        let key = t
            .as_ref()
            .and_then(Value::as_str)
            .zip(b.as_ref().and_then(Value::as_str))
            .and_then(|(t, b)| BoardKey::new(t, b))
            .ok_or(CommandError::NoBoard)?;
        let (id, out) = self.command(&key, by, body, now)?;
        Ok((key, id, out))
    }

    /// *Pause all* or *resume all* (`command` is `pause` or `resume`), signed `by`: the
    /// command to every board with a game in play (of `round`, when given); a board silent
    /// or offline is skipped and named, as is one the command cannot be prepared for.
    pub(crate) fn all_boards(
        &mut self,
        by: &str,
        command: &str,
        round: Option<u32>,
        now: Instant,
    ) -> AllBoards {
        let silence = self.fleet.silence();
        let round = round.map(|r| r.to_string());
        let targets: Vec<(BoardKey, bool)> = self
            .boards
            .iter()
            .filter(|(_, b)| b.in_play())
            .filter(|(_, b)| round.as_deref().is_none_or(|r| b.round() == r))
            .map(|(k, b)| (k.clone(), b.silent(now, silence)))
            .collect();
        let mut done = AllBoards::default();
        for (key, silent) in targets {
            if silent {
                done.skipped.push((key, "offline".into()));
                continue;
            }
            let mut body = Map::new();
            body.insert("type".into(), json!(command));
            match self.command(&key, by, body, now) {
                Ok((id, out)) => done.sent.push((key, id, out)),
                Err(e) => done.skipped.push((key, e.to_string())),
            }
        }
        done
    }

    pub(super) fn outgoing(&self, sent: &Sent) -> Option<Outgoing> {
        let topics = Topics::new(&self.prefix, &sent.key.tournament, &sent.key.board).ok()?;
        Some(Outgoing {
            topic: topics.cmd(),
            payload: Value::Object(sent.payload.clone()).to_string().into_bytes(),
            retain: false,
        })
    }

    /// Waits for the reply to the command `id` ([`crate::boards::command_ask`]).
    pub(crate) fn wait_reply(&mut self, id: &str) -> oneshot::Receiver<Reply> {
        let (tx, rx) = oneshot::channel();
        // Requests that gave up are forgotten here.
        self.replies_waiting.retain(|_, tx| !tx.is_closed());
        self.replies_waiting.insert(id.to_string(), tx);
        rx
    }

    /// Logs what arbiter `by` did at the hall (a result confirmed or corrected) with the
    /// commands, for the console's history ([`CommandLog::note`]).
    pub(crate) fn note(&mut self, key: Option<&BoardKey>, by: &str, what: Value, now: Instant) {
        self.commands.note(key, by, what, now);
    }

    /// The hall's notes about game `game` of board `key` (results confirmed or corrected),
    /// oldest first, with when (ms since the epoch).
    pub(crate) fn notes_for(&self, key: &BoardKey, game: &str, now: Instant) -> Vec<(Value, u64)> {
        self.commands
            .notes_for(key, game, now, crate::wall_clock::wall_ms())
    }

    /// `/api/console/commands`: the commands sent, newest first, pending, acked or refused.
    pub fn commands_json(&self, now: Instant) -> Value {
        self.commands.to_json(now)
    }

    /// The commands sent, for the console store (see [`CommandLog::saved`]).
    pub(crate) fn commands_saved(&self, now: Instant, wall_ms: u64) -> Vec<Value> {
        self.commands.saved(now, wall_ms)
    }

    /// Takes back the commands a previous run sent (see [`CommandLog::restore`]).
    pub(crate) fn restore_commands(&mut self, saved: Vec<Value>, now: Instant, wall_ms: u64) {
        self.commands.restore(saved, now, wall_ms);
    }
}
