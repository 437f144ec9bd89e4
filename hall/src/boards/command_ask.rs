//! Asking a board and awaiting its reply: a signed command, from an arbiter (logged with
//! the arbiters' commands) or from the hall itself, and the board's reply awaited up to
//! [`ANSWER_WITHIN`] ([`ask`]). A window of the black box ([`ask_bytes`]) for the console's
//! black-box view and the archive's fetch of finished games ([`super::frames_archive`]);
//! the steps of a correction the hall sequences ([`crate::routes::correction`]).

use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Map, Value};
use tengen_protocol::command::Reply;
use tengen_protocol::topics::BoardKey;

use crate::boards::command_log::CommandError;
use crate::boards::hall_state::{lock, Shared};
use crate::boards::mqtt_client::MqttLink;

/// How long the hall waits for a board's reply.
pub(crate) const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// Why a board's answer could not be had.
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
    tracing::info!(
        "{}: frames {from}-{to} ms of {}/{}",
        by.unwrap_or("the hall's archive"),
        key.tournament,
        key.board
    );
    let (_, reply) = ask(hall, mqtt, key, by, body).await?;
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

/// Sends the command `body` (`{"type":..,...}`) to board `key`, signed by arbiter `by`
/// (logged with the arbiters' commands) or, with `None`, by the hall itself (not logged),
/// and waits up to [`ANSWER_WITHIN`] for the board's reply: the command's id and the
/// reply, whether the board took the command or refused it.
pub(crate) async fn ask(
    hall: &Shared,
    mqtt: &MqttLink,
    key: &BoardKey,
    by: Option<&str>,
    body: Map<String, Value>,
) -> Result<(String, Reply), AskError> {
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
    if let Err(e) = mqtt.publish(out).await {
        return Err(AskError::Unreachable(e.to_string()));
    }
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(Ok(reply)) => Ok((id, reply)),
        _ => Err(AskError::NoAnswer(key.board.clone())),
    }
}
