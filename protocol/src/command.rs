//! Commands on a board's `cmd` topic (docs/mqtt-http.md, "Topics"), and the replies on `cmd/reply`.
//! Decoded strictly: a malformed or unknown command is an error reply that changes nothing.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tengen_rules::Color;
use thiserror::Error;

use crate::event::{EndReason, Penalties};
use crate::signing::{Refusal, SenderPolicy, Stamp};

/// One command with its envelope: `{"id":"...","type":"...","by":"arbiter-name",...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandEnvelope {
    /// The sender's id for this command, echoed in the reply.
    pub id: String,
    /// Who sent it (an arbiter's name or login); recorded by the board.
    #[serde(default)]
    pub by: Option<String>,
    /// The command itself.
    #[serde(flatten)]
    pub command: Command,
}

/// The commands of docs/mqtt-http.md.
// A `new_game` is much larger than the rest, but commands are few and short-lived.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Sets up a new game; absent fields keep the board's configured value.
    NewGame {
        /// Game id (`r3-t07`); lower-case `[a-z0-9-]`.
        #[serde(default)]
        game: Option<String>,
        /// Black's name.
        #[serde(default)]
        black: Option<String>,
        /// White's name.
        #[serde(default)]
        white: Option<String>,
        /// Black's rank (`"4k"`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        black_rank: Option<String>,
        /// White's rank.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        white_rank: Option<String>,
        /// The event (tournament) name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<String>,
        /// Where the game is played (the tournament's location; SGF `PC`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        place: Option<String>,
        /// Round.
        #[serde(default)]
        round: Option<String>,
        /// Table.
        #[serde(default)]
        table: Option<String>,
        /// Board size.
        #[serde(default)]
        size: Option<u8>,
        /// Komi in points.
        #[serde(default)]
        komi: Option<f64>,
        /// Handicap stones.
        #[serde(default)]
        handicap: Option<u8>,
        /// Time control in the script form (`"byoyomi 60m 5x60s"`).
        #[serde(default)]
        time_control: Option<String>,
        /// How penalties are given in this game (`arbiter` or `auto`: a round's setting
        /// sent from the hall); absent: the board's `game.penalties`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        penalties: Option<Penalties>,
    },
    /// Stops both clocks (Art. 14).
    Pause {},
    /// Restarts the clock that was running.
    Resume {},
    /// Sets one side's time (Art. 22.8-9).
    AdjustTime {
        /// Whose clock.
        color: Color,
        /// Milliseconds left in the current period (main time while still in it).
        ms: u64,
        /// Byo-yomi periods (or Canadian stones) left, if changed.
        #[serde(default)]
        periods: Option<u32>,
    },
    /// Confirms an alert as a violation: the penalty (a warning) is given.
    Confirm {
        /// The alert id.
        alert: String,
    },
    /// Dismisses an alert: no violation.
    Dismiss {
        /// The alert id.
        alert: String,
    },
    /// A player resigns.
    Resign {
        /// Who resigns.
        color: Color,
    },
    /// The arbiter sets the result (`"B+R"`, `"W+T"`, `"0"`, `"Void"`...).
    SetResult {
        /// SGF form.
        result: String,
        /// Why the game ended (`time`, `resignation`, `warnings`, `arbiter`, `count`);
        /// absent: `time` while a `time_expired` alert is open, else `arbiter`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<EndReason>,
    },
    /// Play resumes after a disagreement at counting (Art. 21.4), or after a flag fall
    /// ruled a forfeited turn (Art. 22.5).
    ResumePlay {
        /// Who moves first.
        color: Color,
    },
    /// Sends the event stream again from `from_seq`.
    Republish {
        /// First `seq` to send again.
        #[serde(default)]
        from_seq: u64,
    },
    /// A finished game is taken up again (a wrong result, a wrong warning): back to the
    /// phase it ended from, clocks paused, no result, until the next `game_over`.
    Reopen {
        /// Why, in the arbiter's words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// What the sensors saw from `from` to `to` (ms since the game started), read from the
    /// board's black box: answered with the window as a frames file of its own
    /// ([`Answer::Frames`]). Nothing changes on the board. At most [`MAX_FRAMES_WINDOW_MS`].
    Frames {
        /// The window's start.
        from: u64,
        /// Its end, inclusive.
        to: u64,
        /// The game's id (the game being played when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game: Option<String>,
    },
    /// A warning given by mistake (a wrong `confirm`) is taken back: that side has one
    /// warning fewer.
    WithdrawWarning {
        /// Whose warning.
        color: Color,
        /// Why, in the arbiter's words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The arbiter gives a warning on their own finding (Art. 24), not through an alert: a
    /// violation seen at the table, or one found after the board was put right. Event
    /// `warning_given`; the second warning of a side ends the game; `withdraw_warning`
    /// takes it back.
    GiveWarning {
        /// The side penalised.
        color: Color,
        /// The article violated, one of [`WARNING_ARTICLES`].
        article: String,
        /// Why, in the arbiter's words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The game is void (started by mistake): event `game_voided`, the game over with no
    /// result, the board free for the next `new_game`; a void game leaves every public
    /// view.
    VoidGame {
        /// Why, in the arbiter's words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// The articles whose violation the rules punish with one warning (Art. 17.2-17.4,
/// 18.1-18.3, 22.6): what `give_warning` takes.
pub const WARNING_ARTICLES: [&str; 7] = ["17.2", "17.3", "17.4", "18.1", "18.2", "18.3", "22.6"];

impl Command {
    /// The `type` word (`"pause"`, `"adjust_time"`...).
    pub fn kind(&self) -> &'static str {
        match self {
            Command::NewGame { .. } => "new_game",
            Command::Pause {} => "pause",
            Command::Resume {} => "resume",
            Command::AdjustTime { .. } => "adjust_time",
            Command::Confirm { .. } => "confirm",
            Command::Dismiss { .. } => "dismiss",
            Command::Resign { .. } => "resign",
            Command::SetResult { .. } => "set_result",
            Command::ResumePlay { .. } => "resume_play",
            Command::Republish { .. } => "republish",
            Command::Reopen { .. } => "reopen",
            Command::WithdrawWarning { .. } => "withdraw_warning",
            Command::Frames { .. } => "frames",
            Command::GiveWarning { .. } => "give_warning",
            Command::VoidGame { .. } => "void_game",
        }
    }
}

/// The longest window a `frames` command may ask for (ms): five minutes, some 100 KB at the
/// usual sensor noise, within a board's MQTT packet limit at ten times that noise.
pub const MAX_FRAMES_WINDOW_MS: u64 = 300_000;

/// Why a command could not be taken.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    /// Not JSON, an unknown `type`, a missing or extra field.
    #[error("malformed command: {0}")]
    Malformed(String),
    /// The sender is not allowed (see [`crate::signing`]).
    #[error("refused: {0}")]
    Refused(#[from] Refusal),
    /// The payload is longer than a board reads ([`MAX_PAYLOAD`]).
    #[error("command of {len} bytes; a board reads at most {max}")]
    TooLarge {
        /// The payload's length in bytes.
        len: usize,
        /// [`MAX_PAYLOAD`].
        max: usize,
    },
    /// A field is too long, holds a control character, or is not an id.
    #[error("field \"{field}\" {problem}")]
    Field {
        /// The field's JSON name.
        field: &'static str,
        /// What is wrong with it.
        problem: FieldProblem,
    },
}

/// What is wrong with one field of a command (see [`check_fields`]).
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum FieldProblem {
    /// The field is an empty string.
    #[error("is empty")]
    Empty,
    /// The field is longer than its limit.
    #[error("is {len} bytes long; at most {max} are allowed")]
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The field holds a control character (a newline, ESC...): refused, not stripped, so
    /// that what the sender sees is what the board records.
    #[error("holds a control character")]
    Control,
    /// A game id that is not lower-case `[a-z0-9-]`.
    #[error("must be lower-case letters, digits and '-' only")]
    NotAnId,
    /// A time longer than a clock can show ([`MAX_CLOCK_MS`]).
    #[error("is {ms} ms; a clock shows at most 99:59:59 ({max} ms)", max = MAX_CLOCK_MS)]
    TooMuchTime {
        /// The time asked for.
        ms: u64,
    },
    /// A window's end before its start.
    #[error("is before \"from\"")]
    BeforeFrom,
    /// A count over its limit.
    #[error("is {value}; at most {max} are allowed")]
    TooMany {
        /// The value.
        value: u64,
        /// The limit.
        max: u64,
    },
    /// An article that carries no warning in `give_warning`.
    #[error("is not an article that carries a warning (17.2, 17.3, 17.4, 18.1, 18.2, 18.3, 22.6)")]
    NoWarningArticle,
    /// A komi beyond [`MAX_KOMI`] points either way.
    #[error("is {komi}; a komi is at most {max} points either way", max = MAX_KOMI)]
    KomiOutOfRange {
        /// The komi asked for.
        komi: f64,
    },
}

// `f64` has no `Eq`; a komi that is compared is never NaN (JSON cannot write one).
impl Eq for FieldProblem {}

/// The largest `cmd` payload a board reads, in bytes (a signed `new_game` with every field
/// at its limit is under 2 KiB); a longer one is refused before it is parsed.
pub const MAX_PAYLOAD: usize = 8 * 1024;
/// The longest command `id`, in bytes.
pub const MAX_ID: usize = 128;
/// The longest `by` (an arbiter's name or login), in bytes.
pub const MAX_BY: usize = 64;
/// The longest game id (`game` of `new_game`), in bytes: `[a-z0-9-]{1,64}`.
pub const MAX_GAME_ID: usize = 64;
/// The longest player or event name (`black`, `white`, `event`), in bytes.
pub const MAX_NAME: usize = 128;
/// The longest short field (`black_rank`, `white_rank`, `round`, `table`, `alert`,
/// `result`), in bytes.
pub const MAX_SHORT: usize = 32;
/// The longest `time_control` (`"byoyomi 60m 5x60s"`), in bytes.
pub const MAX_TIME_CONTROL: usize = 64;
/// The longest `reason` (of `reopen`, `withdraw_warning`), in bytes: a sentence.
pub const MAX_REASON: usize = 256;
/// The most time `adjust_time` sets, in ms: 99 h 59 min 59 s, what a clock can show (and
/// what an SGF `BL`/`WL` reads back).
pub const MAX_CLOCK_MS: u64 = 359_999_000;
/// The most byo-yomi periods (or Canadian stones) `adjust_time` sets.
pub const MAX_PERIODS: u32 = 99;
/// The largest komi `new_game` takes, in points either way (a 19x19 board has 361
/// points).
pub const MAX_KOMI: f64 = 400.0;

/// A `cmd` payload that was not taken: the id to answer with (the payload's string `id`,
/// if it has one) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The command's `id`, when the payload had a string one.
    pub id: Option<String>,
    /// Why.
    pub error: CommandError,
}

/// Decodes one `cmd` payload (no sender check): at most [`MAX_PAYLOAD`] bytes, and every
/// field within its limits ([`check_fields`]).
pub fn decode(payload: &[u8]) -> Result<CommandEnvelope, CommandError> {
    check_size(payload)?;
    let envelope: CommandEnvelope = serde_json::from_slice(payload)
        .map_err(|e| CommandError::Malformed(one_line(&e.to_string())))?;
    check_fields(&envelope)?;
    Ok(envelope)
}

fn check_size(payload: &[u8]) -> Result<(), CommandError> {
    if payload.len() > MAX_PAYLOAD {
        return Err(CommandError::TooLarge {
            len: payload.len(),
            max: MAX_PAYLOAD,
        });
    }
    Ok(())
}

/// Checks every field of a decoded command against its limit, the one place the board
/// (before it carries a command out) and the hall (before it sends one) both call: `id`
/// (1 to [`MAX_ID`] bytes), `by` ([`MAX_BY`]), the game id (`[a-z0-9-]`, 1 to
/// [`MAX_GAME_ID`]), names, the event and the place ([`MAX_NAME`]), ranks, round, table,
/// alert ids and results ([`MAX_SHORT`]), the time control ([`MAX_TIME_CONTROL`]), reasons
/// ([`MAX_REASON`]); none may hold a control character. Numbers: a komi within
/// [`MAX_KOMI`], a time within [`MAX_CLOCK_MS`] and periods within [`MAX_PERIODS`].
/// Whatever passes fits in an event far below the journal's record limit, and in an SGF
/// record that reads back.
pub fn check_fields(envelope: &CommandEnvelope) -> Result<(), CommandError> {
    let field = |field: &'static str, problem: FieldProblem| CommandError::Field { field, problem };
    let text = |name: &'static str, value: &str, max: usize| {
        text_problem(value, max).map_or(Ok(()), |problem| Err(field(name, problem)))
    };
    let optional = |name: &'static str, value: &Option<String>, max: usize| match value {
        Some(v) => text(name, v, max),
        None => Ok(()),
    };
    if envelope.id.is_empty() {
        return Err(field("id", FieldProblem::Empty));
    }
    text("id", &envelope.id, MAX_ID)?;
    optional("by", &envelope.by, MAX_BY)?;
    match &envelope.command {
        Command::NewGame {
            game,
            black,
            white,
            black_rank,
            white_rank,
            event,
            place,
            round,
            table,
            komi,
            time_control,
            size: _,
            handicap: _,
            penalties: _,
        } => {
            if let Some(game) = game {
                if let Some(problem) = game_id_problem(game) {
                    return Err(field("game", problem));
                }
            }
            optional("black", black, MAX_NAME)?;
            optional("white", white, MAX_NAME)?;
            optional("event", event, MAX_NAME)?;
            optional("place", place, MAX_NAME)?;
            optional("black_rank", black_rank, MAX_SHORT)?;
            optional("white_rank", white_rank, MAX_SHORT)?;
            optional("round", round, MAX_SHORT)?;
            optional("table", table, MAX_SHORT)?;
            optional("time_control", time_control, MAX_TIME_CONTROL)?;
            if let Some(komi) = komi {
                if !komi.is_finite() || komi.abs() > MAX_KOMI {
                    return Err(field("komi", FieldProblem::KomiOutOfRange { komi: *komi }));
                }
            }
        }
        Command::AdjustTime { ms, periods, .. } => {
            if *ms > MAX_CLOCK_MS {
                return Err(field("ms", FieldProblem::TooMuchTime { ms: *ms }));
            }
            if let Some(p) = periods {
                if *p > MAX_PERIODS {
                    return Err(field(
                        "periods",
                        FieldProblem::TooMany {
                            value: u64::from(*p),
                            max: u64::from(MAX_PERIODS),
                        },
                    ));
                }
            }
        }
        Command::Confirm { alert } | Command::Dismiss { alert } => text("alert", alert, MAX_SHORT)?,
        Command::SetResult { result, reason: _ } => text("result", result, MAX_SHORT)?,
        Command::Reopen { reason }
        | Command::WithdrawWarning { reason, .. }
        | Command::VoidGame { reason } => {
            optional("reason", reason, MAX_REASON)?;
        }
        Command::GiveWarning {
            article, reason, ..
        } => {
            if !WARNING_ARTICLES.contains(&article.as_str()) {
                return Err(field("article", FieldProblem::NoWarningArticle));
            }
            optional("reason", reason, MAX_REASON)?;
        }
        Command::Frames { from, to, game } => {
            optional("game", game, MAX_SHORT)?;
            if to < from {
                return Err(field("to", FieldProblem::BeforeFrom));
            }
            if to - from > MAX_FRAMES_WINDOW_MS {
                return Err(field(
                    "to",
                    FieldProblem::TooMany {
                        value: to - from,
                        max: MAX_FRAMES_WINDOW_MS,
                    },
                ));
            }
        }
        Command::Pause {}
        | Command::Resume {}
        | Command::Resign { .. }
        | Command::ResumePlay { .. }
        | Command::Republish { .. } => {}
    }
    Ok(())
}

/// What is wrong with a text field of at most `max` bytes, if anything. Names may be empty
/// (a player not yet known), ids may not: the caller checks `id` apart.
fn text_problem(value: &str, max: usize) -> Option<FieldProblem> {
    if value.len() > max {
        return Some(FieldProblem::TooLong {
            len: value.len(),
            max,
        });
    }
    if value.chars().any(char::is_control) {
        return Some(FieldProblem::Control);
    }
    None
}

/// What is wrong with a game id, if anything: it must match `[a-z0-9-]{1,64}` (it goes
/// into every envelope and into the SGF file's name).
pub fn game_id_problem(game: &str) -> Option<FieldProblem> {
    if game.is_empty() {
        return Some(FieldProblem::Empty);
    }
    if game.len() > MAX_GAME_ID {
        return Some(FieldProblem::TooLong {
            len: game.len(),
            max: MAX_GAME_ID,
        });
    }
    if !game
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some(FieldProblem::NotAnId);
    }
    None
}

/// A command whose sender passed [`SenderPolicy::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The command.
    pub command: CommandEnvelope,
    /// Its stamp, for [`crate::signing::Scope::check`]: always there when the board has a
    /// key, never without one.
    pub stamp: Option<Stamp>,
}

/// Decodes a `cmd` payload after checking its sender against `senders` (the arbiter list
/// and the signature): a refused sender is answered before anything else is looked at.
/// The `sig` field and the stamp (`tournament`, `board`, `at`) are checked and taken off,
/// so a signed command also reaches a board that has no key.
///
/// A payload over [`MAX_PAYLOAD`] bytes is refused before it is parsed, with no id; the
/// reply echoes the `id` only when it is a valid one (at most [`MAX_ID`] bytes, no control
/// character). Every error is one line.
pub fn decode_checked(payload: &[u8], senders: &SenderPolicy) -> Result<Checked, Rejected> {
    check_size(payload).map_err(|error| Rejected { id: None, error })?;
    let id_of = |v: &Map<String, Value>| {
        v.get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty() && text_problem(id, MAX_ID).is_none())
            .map(str::to_string)
    };
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(payload) else {
        // Whatever is not an object is never taken, even if serde could read it as one.
        let error = match decode(payload) {
            Err(error) => error,
            Ok(_) => CommandError::Malformed("a command is a JSON object".into()),
        };
        return Err(Rejected { id: None, error });
    };
    let id = id_of(&object);
    let stamp = match senders.check(&mut object) {
        Ok(stamp) => stamp,
        Err(refusal) => {
            return Err(Rejected {
                id,
                error: refusal.into(),
            })
        }
    };
    let command: CommandEnvelope =
        serde_json::from_value(Value::Object(object)).map_err(|e| Rejected {
            id: id.clone(),
            error: CommandError::Malformed(one_line(&e.to_string())),
        })?;
    check_fields(&command).map_err(|error| Rejected { id, error })?;
    Ok(Checked { command, stamp })
}

/// Why a board refused a `republish`: it resends its stream at most once every `every_s`
/// seconds. The reply's `error` is this text, so a sender can read it back with
/// [`RepublishRefused::parse`] and ask again in `wait_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("republish refused: this board resends its stream at most once every {every_s} s; ask again in {wait_ms} ms")]
pub struct RepublishRefused {
    /// The board's interval, in seconds.
    pub every_s: u64,
    /// How long until the board takes the next one, in milliseconds.
    pub wait_ms: u64,
}

impl RepublishRefused {
    /// Reads a `cmd/reply` error written by this type back (`None` for any other error).
    pub fn parse(error: &str) -> Option<RepublishRefused> {
        let rest = error
            .strip_prefix("republish refused: this board resends its stream at most once every ")?;
        let (every, rest) = rest.split_once(" s; ask again in ")?;
        let wait = rest.strip_suffix(" ms")?;
        Some(RepublishRefused {
            every_s: every.parse().ok()?,
            wait_ms: wait.parse().ok()?,
        })
    }
}

/// What a board answers to a command, as `cmd/reply` carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Carried out: `{"id":..,"ok":true}`.
    Done,
    /// Not carried out, and why (one sentence): `{"id":..,"ok":false,"error":".."}`.
    Refused(String),
    /// A `frames` command's answer: the window as a frames file, in standard base64:
    /// `{"id":..,"ok":true,"frames":".."}`.
    Frames(String),
    /// Not carried out, why in one sentence and as a [`RefusalReason`] a console can put
    /// in its reader's words: `{"id":..,"ok":false,"error":"..","reason":{..}}`.
    Reasoned(String, RefusalReason),
}

/// Why a board refused a command, for a console to say in its reader's language: a code
/// (`no_such_alert`, `game_over`...) and the values its sentence names, as text. The
/// reply's `error` says the same in English.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusalReason {
    /// What kind of refusal (`snake_case`).
    pub code: String,
    /// The values the sentence names (`alert`, `color`, `result`...).
    #[serde(default)]
    pub args: std::collections::BTreeMap<String, String>,
}

impl RefusalReason {
    /// A reason with `code` and `args`.
    pub fn new(code: &str, args: &[(&str, String)]) -> RefusalReason {
        RefusalReason {
            code: code.to_string(),
            args: args
                .iter()
                .map(|(k, v)| ((*k).to_string(), one_line(v)))
                .collect(),
        }
    }
}

impl Answer {
    /// A refusal saying `why`, on one line (control characters escaped as [`one_line`]
    /// does): whatever the reason quotes, the reply and its log line stay one line.
    pub fn refused(why: impl std::fmt::Display) -> Answer {
        Answer::Refused(one_line(&why.to_string()))
    }

    /// A refusal saying `why` in English, with its `reason` for other languages.
    pub fn refused_because(why: impl std::fmt::Display, reason: RefusalReason) -> Answer {
        Answer::Reasoned(one_line(&why.to_string()), reason)
    }

    /// True when the command was carried out.
    pub fn is_done(&self) -> bool {
        matches!(self, Answer::Done | Answer::Frames(_))
    }
}

/// The `cmd/reply` payload for `answer` (`id` null when the command had none).
pub fn reply_payload(id: Option<&str>, answer: &Answer) -> Vec<u8> {
    let v = match answer {
        Answer::Done => json!({"id": id, "ok": true}),
        Answer::Refused(e) => json!({"id": id, "ok": false, "error": e}),
        Answer::Frames(b64) => json!({"id": id, "ok": true, "frames": b64}),
        Answer::Reasoned(e, reason) => {
            json!({"id": id, "ok": false, "error": e, "reason": reason})
        }
    };
    v.to_string().into_bytes()
}

/// A `cmd/reply` as a sender reads it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Reply {
    /// The command's id.
    pub id: Option<String>,
    /// Whether the board took it.
    pub ok: bool,
    /// Why not.
    #[serde(default)]
    pub error: Option<String>,
    /// A `frames` command's window, a frames file in standard base64.
    #[serde(default)]
    pub frames: Option<String>,
    /// Why not, for a console to say in its reader's words (boards since issue 31).
    #[serde(default)]
    pub reason: Option<RefusalReason>,
}

/// Why a result is not one the board accepts.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("'{0}' is not an SGF result")]
pub struct BadResult(pub String);

/// Accepts SGF results: `B+R`, `W+T`, `B+F`, `B+1.5`, `0`, `Draw`, `Void`, `?`.
pub fn check_result(result: &str) -> Result<(), BadResult> {
    if matches!(result, "0" | "Void" | "?" | "Draw") {
        return Ok(());
    }
    let bad = || BadResult(result.to_string());
    let (who, how) = result.split_once('+').ok_or_else(bad)?;
    if !matches!(who, "B" | "W") {
        return Err(bad());
    }
    if how.is_empty() || matches!(how, "R" | "T" | "F" | "Resign" | "Time" | "Forfeit") {
        return Ok(());
    }
    how.parse::<f64>().map(|_| ()).map_err(|_| bad())
}

/// serde's messages quote the unknown field or `type` as sent, which may hold a newline
/// (found by fuzzing): control characters are escaped so the error stays one line.
pub fn one_line(message: &str) -> String {
    message
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_known_commands() {
        let c = decode(br#"{"id":"1","type":"confirm","alert":"a3","by":"chief"}"#).unwrap();
        assert_eq!(c.by.as_deref(), Some("chief"));
        assert_eq!(c.command, Command::Confirm { alert: "a3".into() });
        let c = decode(br#"{"id":"2","type":"pause"}"#).unwrap();
        assert_eq!(c.command, Command::Pause {});
        let c = decode(br#"{"id":"3","type":"adjust_time","color":"W","ms":60000}"#).unwrap();
        assert_eq!(
            c.command,
            Command::AdjustTime {
                color: Color::White,
                ms: 60000,
                periods: None
            }
        );
    }

    #[test]
    fn the_arbiters_record_commands_decode_and_check_their_fields() {
        let c = decode(
            br#"{"id":"4","type":"give_warning","color":"B","article":"17.3","reason":"takeback"}"#,
        )
        .unwrap();
        assert_eq!(
            c.command,
            Command::GiveWarning {
                color: Color::Black,
                article: "17.3".into(),
                reason: Some("takeback".into())
            }
        );
        let e = decode(br#"{"id":"4","type":"give_warning","color":"B","article":"5"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("field \"article\" is not an article"), "{e}");
        let c = decode(br#"{"id":"5","type":"void_game","reason":"wrong table"}"#).unwrap();
        assert_eq!(c.command.kind(), "void_game");
        let c = decode(br#"{"id":"6","type":"new_game","penalties":"auto"}"#).unwrap();
        assert!(matches!(
            c.command,
            Command::NewGame {
                penalties: Some(Penalties::Auto),
                ..
            }
        ));
        assert!(decode(br#"{"id":"6","type":"new_game","penalties":"never"}"#).is_err());
        let reason = RefusalReason::new("no_such_alert", &[("alert", "a1".into())]);
        let payload = reply_payload(
            Some("c1"),
            &Answer::refused_because("no open alert 'a1'", reason.clone()),
        );
        let reply: Reply = serde_json::from_slice(&payload).unwrap();
        assert_eq!(
            (reply.ok, reply.error.as_deref(), reply.reason),
            (false, Some("no open alert 'a1'"), Some(reason))
        );
    }

    #[test]
    fn rejects_bad_commands_on_one_line() {
        for bad in [
            &b"not json"[..],
            br#"{"id":"1","type":"explode"}"#,
            br#"{"id":"1","type":"confirm"}"#,
            br#"{"type":"pause"}"#,
            br#"{"id":"1","type":"adjust_time","color":"X","ms":1}"#,
            b"{\"id\":\"1\",\"type\":\"new\\ngame\"}",
        ] {
            let e = decode(bad).unwrap_err().to_string();
            assert!(
                e.starts_with("malformed command: ") && !e.contains('\n'),
                "{e}"
            );
        }
    }

    #[test]
    fn rejections_keep_the_id_when_there_is_one() {
        let open = SenderPolicy::default();
        let r = decode_checked(br#"{"id":"c7","type":"explode"}"#, &open).unwrap_err();
        assert_eq!(r.id.as_deref(), Some("c7"));
        assert_eq!(decode_checked(b"{{{", &open).unwrap_err().id, None);
        assert_eq!(
            decode_checked(br#"{"id":5,"type":"pause"}"#, &open)
                .unwrap_err()
                .id,
            None
        );
        let c = decode_checked(br#"{"id":"c1","type":"pause","sig":"ab"}"#, &open).unwrap();
        assert_eq!(c.command.id, "c1");
        assert_eq!(c.stamp, None);
    }

    #[test]
    fn a_republish_refusal_reads_back() {
        let r = RepublishRefused {
            every_s: 10,
            wait_ms: 4321,
        };
        assert_eq!(RepublishRefused::parse(&r.to_string()), Some(r));
        assert_eq!(RepublishRefused::parse("refused: not an arbiter"), None);
        assert_eq!(
            RepublishRefused::parse(
                "republish refused: this board resends its stream at most once every x s; ask again in 1 ms"
            ),
            None
        );
    }

    #[test]
    fn a_megabyte_id_is_refused_before_it_is_parsed_and_not_echoed() {
        let payload = json!({"id": "x".repeat(1 << 20), "type": "pause"}).to_string();
        let open = SenderPolicy::default();
        let r = decode_checked(payload.as_bytes(), &open).unwrap_err();
        assert_eq!(r.id, None);
        assert!(matches!(
            r.error,
            CommandError::TooLarge {
                max: MAX_PAYLOAD,
                ..
            }
        ));
        assert!(matches!(
            decode(payload.as_bytes()),
            Err(CommandError::TooLarge { .. })
        ));
        // Under the payload limit, an id over MAX_ID is refused by name, and not echoed.
        let payload = json!({"id": "x".repeat(MAX_ID + 1), "type": "pause"}).to_string();
        let r = decode_checked(payload.as_bytes(), &open).unwrap_err();
        assert_eq!(r.id, None);
        assert_eq!(
            r.error.to_string(),
            format!(
                "field \"id\" is {} bytes long; at most {MAX_ID} are allowed",
                MAX_ID + 1
            )
        );
        let at_limit = json!({"id": "x".repeat(MAX_ID), "type": "pause"}).to_string();
        assert!(decode_checked(at_limit.as_bytes(), &open).is_ok());
        let long_by = json!({"id": "1", "type": "pause", "by": "b".repeat(MAX_BY + 1)});
        let r = decode_checked(long_by.to_string().as_bytes(), &open).unwrap_err();
        assert_eq!(r.id.as_deref(), Some("1"));
        assert!(
            r.error.to_string().starts_with("field \"by\" is"),
            "{}",
            r.error
        );
        assert!(decode(br#"{"id":"","type":"pause"}"#).is_err());
    }

    #[test]
    fn game_ids_are_lower_case_letters_digits_and_dashes() {
        let open = SenderPolicy::default();
        for bad in [
            "../../etc/passwd",
            "r3/t07",
            "R3-T07",
            "r3 t07",
            "",
            "r3_t07",
            "é",
        ] {
            let c = json!({"id": "g", "type": "new_game", "game": bad}).to_string();
            let r = decode_checked(c.as_bytes(), &open).unwrap_err();
            assert!(
                r.error.to_string().starts_with("field \"game\" "),
                "{bad}: {}",
                r.error
            );
        }
        let long = "a".repeat(MAX_GAME_ID + 1);
        assert_eq!(
            game_id_problem(&long),
            Some(FieldProblem::TooLong {
                len: MAX_GAME_ID + 1,
                max: MAX_GAME_ID
            })
        );
        for good in ["r3-t07", "g1", &"a".repeat(MAX_GAME_ID)] {
            let c = json!({"id": "g", "type": "new_game", "game": good}).to_string();
            assert!(decode_checked(c.as_bytes(), &open).is_ok(), "{good}");
        }
    }

    #[test]
    fn names_with_control_characters_or_over_their_limit_are_refused() {
        let open = SenderPolicy::default();
        for (field, value) in [
            ("black", "Lee\nSedol"),
            ("white", "\u{1b}[31mred"),
            ("event", "Open\r2026"),
            ("round", "3\t"),
            ("time_control", "byoyomi 60m\n5x30s"),
        ] {
            let c = json!({"id": "n", "type": "new_game", field: value}).to_string();
            let r = decode_checked(c.as_bytes(), &open).unwrap_err();
            assert_eq!(
                r.error.to_string(),
                format!("field \"{field}\" holds a control character")
            );
        }
        let c = json!({"id": "n", "type": "new_game", "black": "b".repeat(MAX_NAME + 1)});
        assert!(decode(c.to_string().as_bytes()).is_err());
        let c = json!({"id": "n", "type": "confirm", "alert": "a\nb"});
        assert!(decode(c.to_string().as_bytes()).is_err());
        let c = json!({"id": "n", "type": "set_result", "result": format!("B+{}", "1".repeat(40))});
        assert!(decode(c.to_string().as_bytes()).is_err());
        // Names in any script, at their limit, are fine.
        let c = json!({"id": "n", "type": "new_game", "black": "李昌镐", "white": "w".repeat(MAX_NAME)});
        assert!(decode(c.to_string().as_bytes()).is_ok());
    }

    #[test]
    fn the_checked_path_gives_one_line_errors_too() {
        let open = SenderPolicy::default();
        for bad in [
            &b"{\"id\":\"1\",\"type\":\"new\\ngame\"}"[..],
            b"{\"id\":\"1\",\"type\":\"pause\",\"ex\\ntra\":1}",
            b"{\"id\":\"1\",\"type\":\"confirm\",\"alert\":\"a\\nb\"}",
        ] {
            let e = decode_checked(bad, &open).unwrap_err().error.to_string();
            assert!(!e.contains('\n') && !e.is_empty(), "{e}");
        }
        let Answer::Refused(why) = Answer::refused("no open alert 'a\nb'") else {
            unreachable!()
        };
        assert_eq!(why, "no open alert 'a\\nb'");
    }

    #[test]
    fn replies_have_the_spec_shape() {
        let ok: Value = serde_json::from_slice(&reply_payload(Some("a"), &Answer::Done)).unwrap();
        assert_eq!(ok, json!({"id":"a","ok":true}));
        let err: Value =
            serde_json::from_slice(&reply_payload(None, &Answer::refused("no such alert")))
                .unwrap();
        assert_eq!(err, json!({"id":null,"ok":false,"error":"no such alert"}));
    }

    #[test]
    fn reopen_withdraw_warning_and_a_result_with_its_reason_have_their_exact_json() {
        for (json, want) in [
            (
                r#"{"id":"c1","by":"chief","type":"reopen","reason":"the wrong card was confirmed"}"#,
                Command::Reopen {
                    reason: Some("the wrong card was confirmed".into()),
                },
            ),
            (
                r#"{"id":"c1","by":"chief","type":"reopen"}"#,
                Command::Reopen { reason: None },
            ),
            (
                r#"{"id":"c1","by":"chief","type":"withdraw_warning","color":"B","reason":"a2 was not a takeback"}"#,
                Command::WithdrawWarning {
                    color: Color::Black,
                    reason: Some("a2 was not a takeback".into()),
                },
            ),
            (
                r#"{"id":"c1","by":"chief","type":"withdraw_warning","color":"W"}"#,
                Command::WithdrawWarning {
                    color: Color::White,
                    reason: None,
                },
            ),
            (
                r#"{"id":"c1","by":"chief","type":"set_result","result":"W+T","reason":"time"}"#,
                Command::SetResult {
                    result: "W+T".into(),
                    reason: Some(EndReason::Time),
                },
            ),
            (
                r#"{"id":"c1","by":"chief","type":"set_result","result":"B+R"}"#,
                Command::SetResult {
                    result: "B+R".into(),
                    reason: None,
                },
            ),
        ] {
            let c = decode(json.as_bytes()).unwrap_or_else(|e| panic!("{json}: {e}"));
            assert_eq!(c.command, want, "{json}");
            assert_eq!(serde_json::to_string(&c).unwrap(), json, "written back");
        }
        for bad in [
            r#"{"id":"c1","type":"set_result","result":"W+T","reason":"flag"}"#,
            r#"{"id":"c1","type":"reopen","reason":7}"#,
            r#"{"id":"c1","type":"withdraw_warning"}"#,
            r#"{"id":"c1","type":"withdraw_warning","color":"B","count":1}"#,
        ] {
            let e = decode(bad.as_bytes()).unwrap_err().to_string();
            assert!(e.starts_with("malformed command: "), "{bad}: {e}");
        }
    }

    #[test]
    fn the_place_and_the_reasons_are_checked_like_every_text_field() {
        let open = SenderPolicy::default();
        // The issue's payload: 6 KB of place with `]`, `\`, ESC, NUL and a newline.
        let place = format!("Hall ]\\ \u{1b}[31m\0\n{}", "x".repeat(6000));
        let c = json!({"id": "n", "type": "new_game", "place": place});
        let r = decode_checked(c.to_string().as_bytes(), &open).unwrap_err();
        assert_eq!(
            r.error.to_string(),
            format!(
                "field \"place\" is {} bytes long; at most {MAX_NAME} are allowed",
                place.len()
            )
        );
        for (kind, field, value) in [
            ("new_game", "place", "Hall\u{1b}[31m"),
            ("new_game", "place", "Hall\u{0}B"),
            ("new_game", "place", "Hall\nB"),
            ("reopen", "reason", "wrong\ncard"),
            ("withdraw_warning", "reason", "wrong\u{1b}card"),
        ] {
            let mut c = json!({"id": "n", "type": kind, field: value});
            if kind == "withdraw_warning" {
                c["color"] = json!("B");
            }
            let r = decode_checked(c.to_string().as_bytes(), &open).unwrap_err();
            assert_eq!(
                r.error.to_string(),
                format!("field \"{field}\" holds a control character"),
                "{kind} {value:?}"
            );
        }
        let long = "r".repeat(MAX_REASON + 1);
        let c = json!({"id": "n", "type": "reopen", "reason": long});
        assert!(decode(c.to_string().as_bytes()).is_err());
        // What SGF escapes is fine: `]` and `\` are written `\]` and `\\`.
        let c =
            json!({"id": "n", "type": "new_game", "place": "Salle ]B[ \\ 2", "black": "a]b\\c"});
        assert!(decode(c.to_string().as_bytes()).is_ok());
        let c = json!({"id": "n", "type": "reopen", "reason": "r".repeat(MAX_REASON)});
        assert!(decode(c.to_string().as_bytes()).is_ok());
    }

    #[test]
    fn adjust_time_is_bounded_to_what_a_clock_shows() {
        let open = SenderPolicy::default();
        let ask = |ms: u64, periods: Option<u32>| {
            let mut c = json!({"id": "t", "type": "adjust_time", "color": "W", "ms": ms});
            if let Some(p) = periods {
                c["periods"] = json!(p);
            }
            decode_checked(c.to_string().as_bytes(), &open).map(|_| ())
        };
        let e = ask(u64::MAX, None).unwrap_err();
        assert_eq!(
            e.error.to_string(),
            "field \"ms\" is 18446744073709551615 ms; a clock shows at most 99:59:59 (359999000 ms)"
        );
        assert_eq!(e.id.as_deref(), Some("t"));
        assert!(ask(MAX_CLOCK_MS + 1, None).is_err());
        assert!(ask(MAX_CLOCK_MS, Some(MAX_PERIODS)).is_ok());
        assert_eq!(
            ask(60_000, Some(100)).unwrap_err().error.to_string(),
            "field \"periods\" is 100; at most 99 are allowed"
        );
        assert!(ask(60_000, Some(u32::MAX)).is_err());
    }

    #[test]
    fn a_komi_beyond_any_board_is_refused() {
        for komi in [1e300, -401.0, 400.5] {
            let c = json!({"id": "k", "type": "new_game", "komi": komi});
            let e = decode(c.to_string().as_bytes()).unwrap_err().to_string();
            assert!(e.starts_with("field \"komi\" is "), "{komi}: {e}");
        }
        for komi in [7.5, 0.0, -400.0, 0.5] {
            let c = json!({"id": "k", "type": "new_game", "komi": komi});
            assert!(decode(c.to_string().as_bytes()).is_ok(), "{komi}");
        }
    }

    #[test]
    fn every_command_says_its_type_word() {
        for json in [
            r#"{"id":"1","type":"pause"}"#,
            r#"{"id":"1","type":"reopen"}"#,
            r#"{"id":"1","type":"withdraw_warning","color":"B"}"#,
            r#"{"id":"1","type":"set_result","result":"0"}"#,
            r#"{"id":"1","type":"new_game"}"#,
        ] {
            let c = decode(json.as_bytes()).unwrap();
            let v: Value = serde_json::from_str(json).unwrap();
            assert_eq!(Some(c.command.kind()), v["type"].as_str());
        }
    }

    #[test]
    fn results() {
        for good in ["B+R", "W+T", "B+F", "W+1.5", "0", "Void", "?", "B+", "Draw"] {
            assert!(check_result(good).is_ok(), "{good}");
        }
        for bad in ["X+R", "B+x", "", "B", "W+1.5.5"] {
            assert!(check_result(bad).is_err(), "{bad}");
        }
    }
}
