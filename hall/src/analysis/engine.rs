//! One GTP engine process (`[analysis] command`): started, asked its name and which
//! analysis it speaks, told a position and asked for its estimate, and killed when dropped.
//!
//! Per position: `boardsize`, `clear_board`, `komi`, the handicap stones with
//! `set_free_handicap` (at the points the game had them), `play` of every move, then, in
//! the engine's dialect (from its `list_commands` at start):
//!
//! - KataGo's: `kata-analyze B interval 10 maxmoves 5` (the interval in centiseconds), its
//!   `info move ...` lines read until the budget is spent (`[analysis] budget`, or the best
//!   move's `visits` reached `[analysis] visits`), then stopped with an empty line and read
//!   to the empty line that ends its answer (KataGo's `docs/GTP_Extensions.md`). The last
//!   line counts: the best move's (`order 0`) `scoreLead`, from the side to move, turned to
//!   Black's side; the moves by `order`.
//! - GNU Go's: `estimate_score` (`W+3.5 (upper bound: ...)` is -3.5 for Black) and
//!   `top_moves_black`/`top_moves_white` (`Q16 24.9 D4 24.8 ...`: the points, best first),
//!   as GNU Go 3.8 answers them. `estimate_score` is a static count of the stones'
//!   influence: it does not know who moves next (GNU Go's `gnugo_estimate_score` runs
//!   `compute_influence` with no colour to move; its manual keeps "taking into account
//!   which player moves next" for `experimental_score`), so it gives the side that just
//!   moved the stone it played and not the reply it is owed. Read alone, the lead swings
//!   by a move's worth at every move (-7.5, +2.8, -7.5, +6.4 over the first moves of a
//!   19x19 game, whoever leads). The lead of a position is therefore the mean of the
//!   estimate as it stands and the estimate after the best move of the side to move
//!   (`play`, `estimate_score`, `undo`): one move each way, which is fair to both. (GNU
//!   Go's `experimental_score` adds a raw move value instead and swings by tens of points
//!   in the opening.)

use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::Duration;

use tengen_rules::Color;
use thiserror::Error;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::Instant;

use super::kata_analyze::{parse_info_line, Candidate, InfoLineError};
use super::scheduler::{Estimate, Position};
use crate::config::AnalysisSection;

/// At most this many candidate moves are kept per position.
const CANDIDATES: usize = 5;

/// The longest answer line read from an engine (a longer one is an error).
const MAX_LINE: usize = 64 * 1024;

/// How often `kata-analyze` writes a line at most, in centiseconds (its unit).
const KATA_INTERVAL_CS: u64 = 10;

/// Why the engine did not answer.
#[derive(Debug, Error)]
pub(crate) enum EngineError {
    /// The command line is empty.
    #[error("analysis.command is empty")]
    NoCommand,
    /// The program could not be started.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// Talking to the process failed (it died, or closed its pipes).
    #[error("the engine's pipes: {0}")]
    Io(#[from] std::io::Error),
    /// The process closed its output (it died).
    #[error("the engine stopped")]
    Gone,
    /// The engine wrote a line longer than [`MAX_LINE`].
    #[error("the engine wrote a line longer than {MAX_LINE} bytes")]
    LineTooLong,
    /// The engine answered a command with `? ...`.
    #[error("the engine refused `{command}`: {answer}")]
    Refused {
        /// The command.
        command: String,
        /// Its answer.
        answer: String,
    },
    /// An answer the hall cannot read.
    #[error("unreadable answer to `{command}`: {answer:?}")]
    BadAnswer {
        /// The command.
        command: String,
        /// Its answer.
        answer: String,
    },
    /// A `kata-analyze` line the hall cannot read.
    #[error("`{command}`: {source}")]
    InfoLine {
        /// The command.
        command: String,
        /// What is wrong with the line.
        source: InfoLineError,
    },
    /// An answer that is not GTP's (`=` or `?` first): what follows cannot be trusted.
    #[error("not a GTP answer to `{command}`: {answer:?}")]
    OutOfStep {
        /// The command.
        command: String,
        /// The line.
        answer: String,
    },
    /// The engine runs but cannot do what `[analysis]` asks: starting it again will not
    /// help.
    #[error("{engine} ({command}) cannot be used: {why}")]
    Unusable {
        /// Its name and version.
        engine: String,
        /// Its command line.
        command: String,
        /// What it lacks.
        why: String,
    },
}

impl EngineError {
    /// True when the engine is still fine and only this position is refused.
    pub(crate) fn is_refusal(&self) -> bool {
        matches!(
            self,
            EngineError::Refused { .. }
                | EngineError::BadAnswer { .. }
                | EngineError::InfoLine { .. }
        )
    }

    /// True when no engine started from this `[analysis]` can work (the hall says so once
    /// and analyses nothing).
    pub(crate) fn is_permanent(&self) -> bool {
        matches!(self, EngineError::Unusable { .. })
    }
}

/// Which commands an engine analyses a position with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// KataGo's `kata-analyze`.
    KataGo,
    /// GNU Go's `estimate_score` and `top_moves_black`/`top_moves_white`.
    GnuGo,
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dialect::KataGo => "KataGo's kata-analyze",
            Dialect::GnuGo => "GNU Go's estimate_score and top_moves",
        })
    }
}

/// A running engine. Dropping it kills the process.
pub(crate) struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// What was read of a line not yet complete.
    pending: Vec<u8>,
    name: String,
    dialect: Dialect,
    budget: Duration,
    visits: Option<u64>,
}

impl Engine {
    /// Starts `section.command` (a program and its arguments, split on white space), asks
    /// its `name`, `version` and `list_commands`, and sends `level N` when `section.level`
    /// is given. An engine that speaks neither KataGo's nor GNU Go's analysis, a `visits`
    /// budget for GNU Go, or a `level` for an engine without that command, is
    /// [`EngineError::Unusable`].
    pub(crate) async fn start(section: &AnalysisSection) -> Result<Engine, EngineError> {
        let mut words = section.command.split_whitespace();
        let program = words.next().ok_or(EngineError::NoCommand)?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| EngineError::Spawn {
                program: program.to_string(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(EngineError::Gone);
        };
        let mut engine = Engine {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            pending: Vec::new(),
            name: String::new(),
            dialect: Dialect::GnuGo,
            budget: Duration::from_millis(section.budget_ms),
            visits: section.visits,
        };
        let name = engine.ask("name").await?;
        let version = engine.ask("version").await.unwrap_or_default();
        engine.name = format!("{name} {version}").trim().to_string();
        let known: BTreeSet<String> = match engine.ask("list_commands").await {
            Ok(list) => list.split_whitespace().map(str::to_string).collect(),
            Err(e) if e.is_refusal() => BTreeSet::new(),
            Err(e) => return Err(e),
        };
        let unusable = |why: &str| EngineError::Unusable {
            engine: format!("`{}`", engine.name),
            command: section.command.trim().to_string(),
            why: why.to_string(),
        };
        let knows = |c: &str| known.contains(c);
        engine.dialect = if knows("kata-analyze") {
            Dialect::KataGo
        } else if knows("estimate_score") && knows("top_moves_black") && knows("top_moves_white") {
            Dialect::GnuGo
        } else {
            return Err(unusable(
                "its list_commands has neither `kata-analyze` (KataGo) nor `estimate_score` \
                 with `top_moves_black` and `top_moves_white` (GNU Go)",
            ));
        };
        if engine.dialect == Dialect::GnuGo && section.visits.is_some() {
            return Err(unusable(
                "[analysis] visits needs KataGo's kata-analyze, and GNU Go's estimate_score \
                 counts no visits: remove `visits` (`budget` is the time per position)",
            ));
        }
        if let Some(level) = section.level {
            if !knows("level") {
                return Err(unusable(
                    "it has no `level` command ([analysis] level is GNU Go's): remove `level`",
                ));
            }
            engine.ask(&format!("level {level}")).await?;
        }
        Ok(engine)
    }

    /// The engine's name and version (`GNU Go 3.8`).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The analysis it speaks.
    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The process id, while it runs.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// True while the process has not exited.
    pub(crate) fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the process now (it is also killed when dropped).
    pub(crate) fn kill(&mut self) {
        if let Err(e) = self.child.start_kill() {
            tracing::debug!("analysis engine kill: {e}");
        }
    }

    /// The engine's estimate of `position` (`number` moves played).
    pub(crate) async fn analyse(
        &mut self,
        number: u32,
        position: &Position,
    ) -> Result<Estimate, EngineError> {
        self.ask(&format!("boardsize {}", position.size)).await?;
        self.ask("clear_board").await?;
        self.ask(&format!("komi {}", position.komi)).await?;
        if !position.handicap.is_empty() {
            self.ask(&format!(
                "set_free_handicap {}",
                position.handicap.join(" ")
            ))
            .await?;
        }
        for (color, mv) in &position.moves {
            self.ask(&format!("play {} {}", color.letter(), mv.to_gtp()))
                .await?;
        }
        let (score_lead, best) = match self.dialect {
            Dialect::KataGo => self.kata_analyze(position.to_move()).await?,
            Dialect::GnuGo => self.gnugo_estimate(position.to_move()).await?,
        };
        Ok(Estimate {
            number,
            score_lead,
            best,
        })
    }

    /// GNU Go's score lead (Black's side) with `to_move` to play, and its best moves for
    /// `to_move`: the mean of `estimate_score` now and after the best move (see the module
    /// documentation).
    async fn gnugo_estimate(&mut self, to_move: Color) -> Result<(f64, Vec<String>), EngineError> {
        let standing = self.gnugo_score().await?;
        let command = match to_move {
            Color::Black => "top_moves_black",
            Color::White => "top_moves_white",
        };
        let answer = self.ask(command).await?;
        let best = parse_top_moves(&answer).ok_or_else(|| EngineError::BadAnswer {
            command: command.to_string(),
            answer: answer.clone(),
        })?;
        // No move worth playing (the end of the game): the position as it stands.
        let Some(first) = best.first().filter(|m| *m != "pass") else {
            return Ok((standing, best));
        };
        self.ask(&format!("play {} {first}", to_move.letter()))
            .await?;
        let after = self.gnugo_score().await?;
        self.ask("undo").await?;
        Ok(((standing + after) / 2.0, best))
    }

    /// GNU Go's `estimate_score` of the board as it stands, in points from Black's side.
    async fn gnugo_score(&mut self) -> Result<f64, EngineError> {
        let command = "estimate_score";
        let answer = self.ask(command).await?;
        parse_score(&answer).ok_or_else(|| EngineError::BadAnswer {
            command: command.to_string(),
            answer,
        })
    }

    /// KataGo's analysis for `to_move` within the budget: the best move's score lead (turned
    /// to Black's side) and the moves by KataGo's `order`.
    async fn kata_analyze(&mut self, to_move: Color) -> Result<(f64, Vec<String>), EngineError> {
        let budget_ms = u64::try_from(self.budget.as_millis()).unwrap_or(u64::MAX);
        let interval = (budget_ms / 40).clamp(1, KATA_INTERVAL_CS);
        let command = format!(
            "kata-analyze {} interval {interval} maxmoves {CANDIDATES}",
            to_move.letter()
        );
        self.send(&command).await?;
        let deadline = Instant::now() + self.budget;
        // The answer starts with `=` on a line of its own (or `? ...` and the empty line).
        let first = loop {
            let line = self.next_line().await?;
            if !line.trim().is_empty() {
                break line;
            }
        };
        let bad = |answer: String| EngineError::BadAnswer {
            command: command.clone(),
            answer,
        };
        if let Some(rest) = first.strip_prefix('?') {
            let mut answer = rest.trim().to_string();
            loop {
                let line = self.next_line().await?;
                if line.trim().is_empty() {
                    break;
                }
                answer.push('\n');
                answer.push_str(&line);
            }
            return Err(EngineError::Refused {
                command: command.clone(),
                answer,
            });
        }
        let Some(rest) = first.strip_prefix('=') else {
            return Err(EngineError::OutOfStep {
                command: command.clone(),
                answer: first,
            });
        };
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
        // The latest readable line, or the first unreadable one.
        let mut latest: Option<Vec<Candidate>> = None;
        let mut wrong = None;
        let visits = self.visits;
        let mut take = |line: &str, latest: &mut Option<Vec<Candidate>>| -> bool {
            if wrong.is_some() {
                return true;
            }
            match parse_info_line(line) {
                Ok(c) if c.is_empty() => false,
                Ok(c) => {
                    let best = c.iter().filter(|c| c.order == 0).map(|c| c.visits).max();
                    *latest = Some(c);
                    visits.is_some_and(|n| best.is_some_and(|v| v >= n))
                }
                Err(e) => {
                    wrong = Some(e);
                    true
                }
            }
        };
        let mut done = !rest.is_empty() && take(rest, &mut latest);
        let mut ended = false;
        while !done {
            // A slow start: the first line is waited for up to half a budget more (the
            // worker kills an engine at twice the budget).
            let until = if latest.is_some() {
                deadline
            } else {
                deadline + self.budget / 2
            };
            match self.read_line(Some(until)).await? {
                None => done = true,
                Some(line) if line.trim().is_empty() => {
                    ended = true;
                    done = true;
                }
                Some(line) => done = take(&line, &mut latest),
            }
        }
        if !ended {
            // Any line stops it; an empty one is no command. Lines written meanwhile count.
            self.send("").await?;
            loop {
                let line = self.next_line().await?;
                if line.trim().is_empty() {
                    break;
                }
                take(&line, &mut latest);
            }
        }
        if let Some(source) = wrong {
            return Err(EngineError::InfoLine { command, source });
        }
        let mut candidates = latest.ok_or_else(|| bad("no `info` line".into()))?;
        candidates.sort_by_key(|c| c.order);
        let lead = candidates.first().map(|c| c.score_lead).unwrap_or(0.0);
        let lead = match to_move {
            Color::Black => lead,
            Color::White => -lead,
        };
        let mut best = Vec::new();
        for c in candidates.iter().take(CANDIDATES) {
            best.push(
                gtp_point(&c.point).ok_or_else(|| bad(format!("`{}` is not a point", c.point)))?,
            );
        }
        // `+ 0.0` makes a -0 lead 0.
        Ok((lead + 0.0, best))
    }

    /// Writes one command line.
    async fn send(&mut self, command: &str) -> Result<(), EngineError> {
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .await?;
        self.stdin.flush().await?;
        Ok(())
    }

    /// The next line the engine writes, without its end.
    async fn next_line(&mut self) -> Result<String, EngineError> {
        Ok(self.read_line(None).await?.unwrap_or_default())
    }

    /// The next line the engine writes (without its end), or `None` when `deadline` comes
    /// first. What was read of an unfinished line is kept for the next call.
    async fn read_line(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<String>, EngineError> {
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let rest = self.pending.split_off(end + 1);
                let line = std::mem::replace(&mut self.pending, rest);
                let text = String::from_utf8_lossy(&line);
                return Ok(Some(text.trim_end_matches(['\r', '\n']).to_string()));
            }
            if self.pending.len() >= MAX_LINE {
                return Err(EngineError::LineTooLong);
            }
            let room = (MAX_LINE - self.pending.len()) as u64;
            let mut limited = (&mut self.stdout).take(room);
            // `read_until` keeps what it read in `pending` when the deadline cuts it short.
            let read = limited.read_until(b'\n', &mut self.pending);
            let n = match deadline {
                Some(d) => match tokio::time::timeout_at(d, read).await {
                    Ok(n) => n?,
                    Err(_) => return Ok(None),
                },
                None => read.await?,
            };
            if n == 0 {
                return Err(EngineError::Gone);
            }
        }
    }

    /// Sends one GTP command and reads its answer (`= ...` or `? ...` up to the empty
    /// line); the text after `=`, trimmed.
    async fn ask(&mut self, command: &str) -> Result<String, EngineError> {
        self.send(command).await?;
        let mut answer = String::new();
        let mut started = false;
        loop {
            let line = self.next_line().await?;
            if !started {
                if line.trim().is_empty() {
                    continue;
                }
                started = true;
            } else if line.is_empty() {
                break;
            }
            if !answer.is_empty() {
                answer.push('\n');
            }
            answer.push_str(&line);
        }
        let (ok, rest) = match answer.as_bytes().first() {
            Some(b'=') => (true, &answer[1..]),
            Some(b'?') => (false, &answer[1..]),
            _ => {
                return Err(EngineError::BadAnswer {
                    command: command.to_string(),
                    answer,
                })
            }
        };
        // An id may follow the sign (`=12 ...`); the hall sends none.
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
        if ok {
            Ok(rest.to_string())
        } else {
            Err(EngineError::Refused {
                command: command.to_string(),
                answer: rest.to_string(),
            })
        }
    }
}

/// A GTP point (`Q16`, `q16`) upper-cased, or `pass`; `None` for anything else.
fn gtp_point(word: &str) -> Option<String> {
    let point = word.to_ascii_uppercase();
    if point == "PASS" {
        return Some("pass".into());
    }
    let ok = (2..=3).contains(&point.len())
        && point.starts_with(|c: char| c.is_ascii_uppercase() && c != 'I')
        && point[1..].chars().all(|c| c.is_ascii_digit());
    ok.then_some(point)
}

/// `B+3.5`, `W+11.5 (upper bound: 25.1, lower: -2.0)`, `0`: points from Black's side.
pub(crate) fn parse_score(answer: &str) -> Option<f64> {
    let first = answer.split_whitespace().next()?;
    if first == "0" || first.eq_ignore_ascii_case("jigo") {
        return Some(0.0);
    }
    let (sign, points) = if let Some(p) = first.strip_prefix("B+") {
        (1.0, p)
    } else if let Some(p) = first.strip_prefix("W+") {
        (-1.0, p)
    } else {
        return None;
    };
    let points: f64 = points.parse().ok()?;
    points.is_finite().then_some(sign * points)
}

/// `Q16 24.87 D4 24.85 ...`: the points, best first, at most [`CANDIDATES`].
pub(crate) fn parse_top_moves(answer: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = answer.split_whitespace().collect();
    let mut best = Vec::new();
    for pair in words.chunks(2) {
        let point = gtp_point(pair[0])?;
        if best.len() < CANDIDATES {
            best.push(point);
        }
    }
    Some(best)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    use crate::analysis::scheduler::Position;
    use std::time::Duration;
    use tengen_protocol::event::{Event, GameSetup};
    use tengen_protocol::{GameView, Timestamp};
    use tengen_rules::{Move, Point};

    /// GNU Go's command line, where installed (a failure under `TENGEN_REQUIRE_ORACLES=1`).
    fn gnugo() -> Option<String> {
        let found = std::iter::once(std::path::PathBuf::from("/usr/games/gnugo"))
            .chain(
                std::env::var_os("PATH")
                    .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|d| d.join("gnugo")),
            )
            .find(|p| p.is_file());
        let required = std::env::var("TENGEN_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
        assert!(
            found.is_some() || !required,
            "gnugo is missing (TENGEN_REQUIRE_ORACLES=1)"
        );
        found.map(|p| format!("{} --mode gtp", p.display()))
    }

    /// The command line of the KataGo STAND-IN (hall/tests/fixtures/katago_standin.py: a
    /// Python script answering `kata-analyze` in KataGo's documented format with values
    /// computed from the position; not KataGo, which cannot be installed here), with
    /// `options`.
    pub(crate) fn standin(options: &str) -> String {
        format!(
            "python3 {}/tests/fixtures/katago_standin.py {options}",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    /// `[analysis]` with `command`, a budget of `budget_ms`, `visits` and `level`.
    fn section(
        command: &str,
        budget_ms: u64,
        visits: Option<u64>,
        level: Option<u32>,
    ) -> AnalysisSection {
        AnalysisSection {
            command: command.to_string(),
            budget_ms,
            boards: 1,
            level,
            visits,
        }
    }

    /// A 9x9 game with two handicap stones, and White's first `moves`.
    fn handicap_game(moves: &[&str]) -> Position {
        let mut view = GameView::new();
        let at = Timestamp::now();
        let setup = GameSetup {
            size: 9,
            komi: 0.5,
            handicap: 2,
            ..GameSetup::default()
        };
        view.apply(&Event::GameStarted(setup), at).unwrap();
        for (i, m) in moves.iter().enumerate() {
            let number = i as u32 + 1;
            let color = if number % 2 == 1 {
                Color::White
            } else {
                Color::Black
            };
            let e = Event::Move {
                number,
                color,
                point: Point::parse_gtp(m, 9).unwrap(),
                captured: vec![],
                clock: None,
            };
            view.apply(&e, at).unwrap();
        }
        Position::of(&view).unwrap()
    }

    #[tokio::test]
    async fn gnugo_estimates_a_handicap_game_and_refuses_an_impossible_one() {
        let Some(command) = gnugo() else {
            return;
        };
        let mut engine = Engine::start(&section(&command, 2000, None, Some(1)))
            .await
            .expect("GNU Go starts");
        assert_eq!(engine.name(), "GNU Go 3.8");
        assert_eq!(engine.dialect(), Dialect::GnuGo);
        let p = handicap_game(&[]);
        assert_eq!(p.handicap, ["C3", "G7"], "the board's handicap points");
        assert_eq!(p.to_move(), Color::White);
        let e = engine.analyse(0, &p).await.expect("an estimate");
        assert_eq!(e.number, 0);
        assert!(
            e.score_lead > 0.0,
            "two stones and half a point of komi: {e:?}"
        );
        assert!(!e.best.is_empty() && e.best.len() <= CANDIDATES, "{e:?}");
        for m in &e.best {
            let p = Point::parse_gtp(m, 9).expect("a 9x9 point");
            assert!(!["C3", "G7"].contains(&p.to_gtp().as_str()), "{e:?}");
        }
        let p = handicap_game(&["E5"]);
        assert_eq!(p.to_move(), Color::Black);
        let e = engine.analyse(1, &p).await.expect("an estimate");
        assert_eq!(e.number, 1);
        // A stone on a handicap stone: refused, and the engine carries on.
        let mut bad = handicap_game(&[]);
        bad.moves
            .push((Color::White, Move::Play(Point::parse_gtp("C3", 9).unwrap())));
        let err = engine.analyse(1, &bad).await.expect_err("refused");
        assert!(err.is_refusal(), "{err}");
        assert!(engine.analyse(0, &handicap_game(&[])).await.is_ok());
        assert!(engine.is_running());
    }

    #[tokio::test]
    async fn kata_analyze_of_the_standin_from_blacks_side_by_katagos_order() {
        let mut engine = Engine::start(&section(&standin(""), 300, None, None))
            .await
            .expect("the stand-in starts");
        assert_eq!(engine.name(), "tengen KataGo stand-in 1.0");
        assert_eq!(engine.dialect(), Dialect::KataGo);
        // White to move after two handicap stones: the stand-in says White trails by
        // 2 - 0.5 = 1.5 points (from the side to move), so Black leads by 1.5.
        let p = handicap_game(&[]);
        assert_eq!(p.to_move(), Color::White);
        let t = std::time::Instant::now();
        let e = engine.analyse(0, &p).await.expect("an estimate");
        let took = t.elapsed();
        assert_eq!(e.score_lead, 1.5, "{e:?}");
        // The stand-in writes the candidates worst first; KataGo's `order` decides.
        assert_eq!(e.best, ["A1", "B1", "C1", "D1", "E1"], "{e:?}");
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_secs(2),
            "the whole budget of 300 ms, and no more than that: {took:?}"
        );
        // Black to move after White's A1: Black leads by 2 - 1 - 0.5, from Black's side.
        let p = handicap_game(&["A1"]);
        assert_eq!(p.to_move(), Color::Black);
        let e = engine.analyse(1, &p).await.expect("an estimate");
        assert_eq!((e.number, e.score_lead), (1, 0.5), "{e:?}");
        assert_eq!(e.best, ["B1", "C1", "D1", "E1", "F1"], "{e:?}");
        // A stone on a handicap stone: refused, and the engine carries on.
        let mut bad = handicap_game(&[]);
        bad.moves
            .push((Color::White, Move::Play(Point::parse_gtp("C3", 9).unwrap())));
        let err = engine.analyse(1, &bad).await.expect_err("refused");
        assert!(err.is_refusal(), "{err}");
        let e = engine
            .analyse(0, &handicap_game(&[]))
            .await
            .expect("an estimate");
        assert_eq!(e.score_lead, 1.5);
        assert!(engine.is_running());
    }

    #[tokio::test]
    async fn a_visit_budget_stops_kata_analyze_before_the_time_budget() {
        // 10 visits more on the best move every 100 ms: 30 visits in about 0.3 s.
        let mut engine = Engine::start(&section(&standin(""), 10_000, Some(30), None))
            .await
            .expect("the stand-in starts");
        let t = std::time::Instant::now();
        let e = engine
            .analyse(0, &handicap_game(&["E5"]))
            .await
            .expect("an estimate");
        let took = t.elapsed();
        assert!(
            took < Duration::from_secs(2),
            "stopped at 30 visits, not at the 10 s budget: {took:?}"
        );
        // Black to move: (2 - 1 - 0.5) for Black.
        assert_eq!(e.score_lead, 0.5, "{e:?}");
        assert_eq!(e.best, ["A1", "B1", "C1", "D1", "E1"], "{e:?}");
        assert!(engine.is_running());
    }

    #[tokio::test]
    async fn an_unreadable_info_line_gives_up_the_position_not_the_engine() {
        let mut engine = Engine::start(&section(&standin("--garbled"), 200, None, None))
            .await
            .expect("the stand-in starts");
        let err = engine
            .analyse(0, &handicap_game(&[]))
            .await
            .expect_err("`visits many` is not a number");
        assert!(err.is_refusal(), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("`visits` is not a number: \"many\""),
            "{text}"
        );
        assert!(!text.contains('\n'), "one line: {text}");
        // The analysis was stopped and its answer read to the end: the engine still answers.
        assert_eq!(engine.ask("name").await.unwrap(), "tengen KataGo stand-in");
    }

    #[tokio::test]
    async fn engines_that_cannot_do_what_analysis_asks_are_said_to_be_unusable() {
        let no_analysis = standin("--no-analysis");
        let err = Engine::start(&section(&no_analysis, 200, None, None))
            .await
            .err()
            .expect("neither dialect");
        assert!(err.is_permanent(), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "`tengen KataGo stand-in 1.0` ({no_analysis}) cannot be used: its \
                 list_commands has neither `kata-analyze` (KataGo) nor `estimate_score` with \
                 `top_moves_black` and `top_moves_white` (GNU Go)"
            )
        );
        let err = Engine::start(&section(&standin(""), 200, None, Some(1)))
            .await
            .err()
            .expect("no `level`");
        assert!(
            err.is_permanent() && err.to_string().contains("no `level` command"),
            "{err}"
        );
        let Some(gnugo) = gnugo() else {
            return;
        };
        let err = Engine::start(&section(&gnugo, 200, Some(100), Some(1)))
            .await
            .err()
            .expect("visits for GNU Go");
        assert!(err.is_permanent(), "{err}");
        assert!(
            err.to_string().starts_with("`GNU Go 3.8` (")
                && err.to_string().contains("remove `visits`"),
            "{err}"
        );
    }

    /// The sign of a lead, taking a lead within `band` points as no lead at all.
    fn side(lead: f64, band: f64) -> i8 {
        if lead > band {
            1
        } else if lead < -band {
            -1
        } else {
            0
        }
    }

    /// GNU Go's lead over the first 15 moves of one of its own 19x19 games: the estimate
    /// alone (the lead before) gives the last mover the advantage and changed sides at
    /// every move (-7.5, +2.8, -7.5, +6.4, -3.1, +8.4, ...: nine times in sixteen
    /// positions, 12 points a move). Counted with the side to move's reply, it changes
    /// sides once or twice and by about 4 points a move, over GNU Go's own seeds 1 to 5.
    #[tokio::test]
    async fn gnugo_lead_does_not_flip_with_the_side_to_move() {
        let Some(command) = gnugo() else {
            return;
        };
        let game = tengen_rules::sgf::parse(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../rules/tests/fixtures/gnugo/games/19/game_0000.sgf"
            ))
            .unwrap(),
        )
        .unwrap();
        let mut engine = Engine::start(&section(
            &format!("{command} --seed 3"),
            4000,
            None,
            Some(1),
        ))
        .await
        .expect("GNU Go starts");
        let mut leads = Vec::new();
        for n in 0..16 {
            let p = Position {
                size: game.size,
                komi: game.komi.unwrap_or(7.5),
                handicap: Vec::new(),
                moves: game.moves[..n].iter().map(|m| (m.color, m.mv)).collect(),
            };
            leads.push(
                engine
                    .analyse(n as u32, &p)
                    .await
                    .expect("an estimate")
                    .score_lead,
            );
        }
        let sides: Vec<i8> = leads
            .iter()
            .map(|&l| side(l, 2.0))
            .filter(|&s| s != 0)
            .collect();
        let flips = sides.windows(2).filter(|w| w[0] != w[1]).count();
        let swing =
            leads.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>() / (leads.len() - 1) as f64;
        assert!(
            flips <= 3,
            "the lead changes sides {flips} times: {leads:?}"
        );
        assert!(
            swing < 6.0,
            "the lead swings {swing:.1} points a move: {leads:?}"
        );
    }

    #[test]
    fn scores_are_from_blacks_side() {
        assert_eq!(
            parse_score("W+11.5 (upper bound: 25.1, lower: -2.0)"),
            Some(-11.5)
        );
        assert_eq!(parse_score("B+3.5"), Some(3.5));
        assert_eq!(parse_score("0"), Some(0.0));
        assert_eq!(parse_score("resign"), None);
        assert_eq!(parse_score("B+x"), None);
        assert_eq!(parse_score(""), None);
    }

    #[test]
    fn top_moves_keep_the_points_best_first() {
        assert_eq!(
            parse_top_moves("B6 46.73 O3 24.87 o17 24.87").unwrap(),
            ["B6", "O3", "O17"]
        );
        let many = "A1 9 B1 8 C1 7 D1 6 E1 5 F1 4 G1 3";
        assert_eq!(parse_top_moves(many).unwrap().len(), CANDIDATES);
        assert_eq!(parse_top_moves("").unwrap(), Vec::<String>::new());
        assert_eq!(parse_top_moves("PASS 1.0").unwrap(), ["pass"]);
        assert_eq!(parse_top_moves("hello 1.0"), None);
    }
}
