//! `tengen gtp --hall URL --board T/B` (issue 14, part 5): the board as a GTP engine for
//! the tools commentators already use (Sabaki, GoGui, gogui-twogtp). GTP 2 on standard
//! input and output, diagnostics on standard error.
//!
//! It follows the board's public stream on the hall ([`hall_stream`]: the same events, and
//! the same broadcast delay, as the public pages) and folds it with the one fold,
//! [`GameView`]. The controller's commands are answered by a [`commands::Session`]; one
//! the board has not got to yet (`genmove`, a `play` ahead of the public game) waits, and
//! is asked again each time the public game changes. The commands behind it wait their
//! turn (GTP answers in order), but a `quit` among them ends the wait at once: the waiting
//! command is answered `? interrupted by quit`. At the end of the input the commands read
//! are answered (a waiting one when the board gets there or the game ends), then the
//! process ends.

mod commands;
mod hall_stream;

use std::collections::VecDeque;
use std::io::{BufRead, Read, Write};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use tengen_protocol::topics::BoardKey;
use tengen_protocol::GameView;

use super::args::GtpArgs;
use super::CliError;
use commands::{format_answer, parse_line, Outcome, Public, Refusal, Request, Session};
use hall_stream::{BoardOnHall, News};

/// The longest line read from the controller (a GTP command is a few dozen bytes).
const MAX_LINE: usize = 64 * 1024;

/// Runs `tengen gtp`.
pub(super) fn run(args: GtpArgs) -> Result<(), CliError> {
    let (t, b) = args
        .board
        .split_once('/')
        .filter(|(t, b)| BoardKey::new(t, b).is_some())
        .ok_or_else(|| {
            CliError::input(format!(
                "--board {}: give the tournament and board ids as T/B, as in the hall's /board/T/B",
                args.board
            ))
        })?;
    let hall = BoardOnHall::new(&args.hall, &format!("{t}/{b}"))
        .map_err(|e| CliError::input(e.to_string()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::work(format!("tokio runtime: {e}")))?;
    runtime.block_on(serve(hall))
}

/// A line from the controller, or the end of its input.
enum Input {
    Line(String),
    End,
}

/// Reads standard input on a thread of its own (a blocking read cannot be cancelled).
fn read_stdin(lines: mpsc::UnboundedSender<Input>) {
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let read = (&mut input)
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut buf);
            match read {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if lines.send(Input::Line(line)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = lines.send(Input::End);
    });
}

/// How long the stream's backlog may take to arrive once it is open. The public `state`'s
/// `seq` can be that of an arbiters-only event the stream never carries: then this tells
/// when the backlog is in.
const CATCH_UP: Duration = Duration::from_secs(1);

/// Where the follower stands, as the session sees it.
struct Follower {
    view: GameView,
    /// The public stream's `seq` when it was first opened, and when: until the view has
    /// that `seq` (or [`CATCH_UP`] has passed), the game is still loading.
    target: Option<(u64, Instant)>,
    /// The backlog is in: the view is the public game.
    caught_up: bool,
    /// Why the hall could not be read, while it never was.
    unavailable: Option<String>,
}

impl Follower {
    fn public(&self) -> Public<'_> {
        match (self.caught_up, &self.unavailable) {
            (true, _) => Public::Game(&self.view),
            (false, Some(why)) => Public::Unavailable(why),
            (false, None) => Public::Loading,
        }
    }

    /// When the backlog is taken as in if nothing else says so.
    fn catch_up_deadline(&self) -> Option<Instant> {
        match self.target {
            Some((_, opened)) if !self.caught_up => Some(opened + CATCH_UP),
            _ => None,
        }
    }

    fn check_caught_up(&mut self) {
        if let Some((seq, opened)) = self.target {
            self.caught_up |= self.view.seq() >= seq || opened.elapsed() >= CATCH_UP;
        }
    }

    fn take(&mut self, news: News) {
        match news {
            News::Opened { seq } => {
                self.target.get_or_insert((seq, Instant::now()));
                self.unavailable = None;
            }
            News::Event(e) => {
                if e.seq > self.view.seq() || self.view.seq() == 0 {
                    if let Err(err) = self.view.apply_envelope(&e) {
                        eprintln!("tengen gtp: event {}: {err}", e.seq);
                    }
                }
            }
            News::Down(why) => {
                eprintln!("tengen gtp: {why}");
                if !self.caught_up {
                    self.unavailable = Some(why);
                }
            }
        }
    }
}

async fn serve(hall: BoardOnHall) -> Result<(), CliError> {
    let (news_tx, mut news) = mpsc::unbounded_channel();
    let follower = tokio::spawn(hall_stream::follow(hall, news_tx));
    let (lines_tx, mut lines) = mpsc::unbounded_channel();
    read_stdin(lines_tx);
    let mut state = Follower {
        view: GameView::new(),
        target: None,
        caught_up: false,
        unavailable: None,
    };
    let mut session = Session::new();
    let mut queue: VecDeque<Request> = VecDeque::new();
    let mut komi_told = None;
    // At the end of the input, the commands read are still answered (as GNU Go answers a
    // file of commands), then the process ends.
    let mut input_ended = false;
    let stdout = std::io::stdout();
    let result = loop {
        state.check_caught_up();
        match answer_queue(&mut session, &mut queue, &state, &mut stdout.lock()) {
            Ok(true) => break Ok(()),
            Ok(false) => {}
            Err(e) => break Err(CliError::work(format!("standard output: {e}"))),
        }
        if input_ended && queue.is_empty() {
            break Ok(());
        }
        // The controller's komi is noted, and said once when it is not the board's.
        let board_komi = state.view.setup().map(|s| s.komi);
        if let (Some(k), Some(b)) = (session.komi(), board_komi) {
            if komi_told != Some(k) {
                komi_told = Some(k);
                if k != b {
                    eprintln!("tengen gtp: komi {k} noted; the board's game has komi {b}");
                }
            }
        }
        tokio::select! {
            line = lines.recv(), if !input_ended => match line {
                Some(Input::Line(l)) => queue.extend(parse_line(&l)),
                Some(Input::End) | None => input_ended = true,
            },
            n = news.recv() => match n {
                Some(n) => state.take(n),
                None => break Err(CliError::work("the hall's follower stopped")),
            },
            () = sleep_until(state.catch_up_deadline()) => {}
        }
    };
    follower.abort();
    result
}

/// Sleeps until `at`; for ever without one.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// Answers the queued requests in order until one must wait; `Ok(true)` after `quit`.
fn answer_queue(
    session: &mut Session,
    queue: &mut VecDeque<Request>,
    state: &Follower,
    out: &mut impl Write,
) -> std::io::Result<bool> {
    while let Some(req) = queue.front() {
        let outcome = session.handle(req, state.public());
        let text = match outcome {
            Outcome::Answer(a) => format_answer(req.id, &a),
            Outcome::Quit => {
                out.write_all(format_answer(req.id, &Ok(String::new())).as_bytes())?;
                out.flush()?;
                return Ok(true);
            }
            Outcome::Wait if queue.iter().any(|r| r.name == "quit") => {
                format_answer(req.id, &Err(Refusal::Interrupted))
            }
            Outcome::Wait => break,
        };
        out.write_all(text.as_bytes())?;
        out.flush()?;
        queue.pop_front();
    }
    Ok(false)
}
