//! Asking a board for a window of its black box: a signed `frames` command, from an
//! arbiter (logged with the arbiters' commands) or from the hall itself, and its reply
//! awaited up to [`ANSWER_WITHIN`]. The console's black-box view and the archive's fetch of
//! finished games ([`super::frames_archive`]) both ask through [`ask_bytes`].

use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Map, Value};
use tengen_protocol::topics::BoardKey;

use crate::boards::command_log::CommandError;
use crate::boards::hall_state::{lock, Shared};
use crate::boards::mqtt_client::MqttLink;

/// How long the hall waits for a board's frames.
pub(crate) const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// Why a board's frames could not be had.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AskError {
    /// The hall does not know the board.
    #[error("{0}")]
    UnknownBoard(String),
    /// The hall would not send the command.
    #[error("{0}")]
    Refused(String),
    /// The broker is out of reach.
    #[error("{0}")]
    Unreachable(String),
    /// The board did not answer in time.
    #[error("board {0} did not answer within {secs} s", secs = ANSWER_WITHIN.as_secs())]
    NoAnswer(String),
    /// The board answered with an error, or with something that is not frames.
    #[error("board {board}: {why}")]
    BadAnswer {
        /// The board.
        board: String,
        /// What it said, or what is wrong with its answer.
        why: String,
    },
}

/// Asks the board for the window `from..=to` of its game (`game`: another of its recent
/// games) with a signed `frames` command from arbiter `by` (logged with the arbiters'
/// commands), or, with `None`, from the hall itself (not logged): the frames file it
/// answers with.
pub(crate) async fn ask_bytes(
    hall: &Shared,
    mqtt: &MqttLink,
    key: &BoardKey,
    by: Option<&str>,
    from: u64,
    to: u64,
    game: Option<String>,
) -> Result<Vec<u8>, AskError> {
    let mut body = Map::new();
    body.insert("type".into(), json!("frames"));
    body.insert("from".into(), json!(from));
    body.insert("to".into(), json!(to));
    if let Some(game) = game {
        body.insert("game".into(), Value::String(game));
    }
    let (id, out, answer) = {
        let mut hall = lock(hall);
        let prepared = match by {
            Some(by) => hall.command(key, by, body, Instant::now()),
            None => hall.own_command(key, body, Instant::now()),
        };
        match prepared {
            Ok((id, out)) => {
                let answer = hall.wait_reply(&id);
                (id, out, answer)
            }
            Err(e @ CommandError::UnknownBoard(_)) => {
                return Err(AskError::UnknownBoard(e.to_string()))
            }
            Err(e) => return Err(AskError::Refused(e.to_string())),
        }
    };
    tracing::info!(
        "{}: frames {from}-{to} ms of {}/{} ({id})",
        by.unwrap_or("the hall's archive"),
        key.tournament,
        key.board
    );
    if let Err(e) = mqtt.publish(out).await {
        return Err(AskError::Unreachable(e.to_string()));
    }
    let Ok(Ok(reply)) = tokio::time::timeout(ANSWER_WITHIN, answer).await else {
        return Err(AskError::NoAnswer(key.board.clone()));
    };
    let bad = |why: String| AskError::BadAnswer {
        board: key.board.clone(),
        why,
    };
    let Some(b64) = reply.frames.filter(|_| reply.ok) else {
        return Err(bad(reply
            .error
            .unwrap_or_else(|| "no frames in the reply".into())));
    };
    base64::engine::general_purpose::STANDARD
        .decode(b64.as_bytes())
        .map_err(|e| bad(format!("its frames are not base64: {e}")))
}
