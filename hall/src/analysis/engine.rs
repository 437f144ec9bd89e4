//! One GTP engine process (`[analysis] command`): started, asked its name, told a position
//! and asked for its estimate, and killed when dropped.
//!
//! Per position: `boardsize`, `clear_board`, `komi`, the handicap stones with
//! `set_free_handicap` (at the points the game had them), `play` of every move, then
//! `estimate_score` (`W+3.5 (upper bound: ...)` is -3.5 for Black) and
//! `top_moves_black`/`top_moves_white` (`Q16 24.9 D4 24.8 ...`: the points, best first),
//! as GNU Go 3.8 answers them.

use std::process::Stdio;

use tengen_rules::Color;
use thiserror::Error;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::scheduler::{Estimate, Position};

/// At most this many candidate moves are kept per position.
const CANDIDATES: usize = 5;

/// The longest answer line read from an engine (a longer one is an error).
const MAX_LINE: usize = 64 * 1024;

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
}

impl EngineError {
    /// True when the engine is still fine and only this position is refused.
    pub(crate) fn is_refusal(&self) -> bool {
        matches!(
            self,
            EngineError::Refused { .. } | EngineError::BadAnswer { .. }
        )
    }
}

/// A running engine. Dropping it kills the process.
pub(crate) struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    name: String,
}

impl Engine {
    /// Starts `command` (a program and its arguments, split on white space), asks its
    /// `name` and `version`, and sends `level N` when `level` is given.
    pub(crate) async fn start(command: &str, level: Option<u32>) -> Result<Engine, EngineError> {
        let mut words = command.split_whitespace();
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
            name: String::new(),
        };
        let name = engine.ask("name").await?;
        let version = engine.ask("version").await.unwrap_or_default();
        engine.name = format!("{name} {version}").trim().to_string();
        if let Some(level) = level {
            engine.ask(&format!("level {level}")).await?;
        }
        Ok(engine)
    }

    /// The engine's name and version (`GNU Go 3.8`).
    pub(crate) fn name(&self) -> &str {
        &self.name
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
        let command = "estimate_score";
        let answer = self.ask(command).await?;
        let score_lead = parse_score(&answer).ok_or_else(|| EngineError::BadAnswer {
            command: command.to_string(),
            answer: answer.clone(),
        })?;
        let command = match position.to_move() {
            Color::Black => "top_moves_black",
            Color::White => "top_moves_white",
        };
        let answer = self.ask(command).await?;
        let best = parse_top_moves(&answer).ok_or_else(|| EngineError::BadAnswer {
            command: command.to_string(),
            answer: answer.clone(),
        })?;
        Ok(Estimate {
            number,
            score_lead,
            best,
        })
    }

    /// Sends one GTP command and reads its answer (`= ...` or `? ...` up to the empty
    /// line); the text after `=`, trimmed.
    async fn ask(&mut self, command: &str) -> Result<String, EngineError> {
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .await?;
        self.stdin.flush().await?;
        let mut answer = String::new();
        let mut started = false;
        loop {
            let mut line = String::new();
            let n = (&mut self.stdout)
                .take(MAX_LINE as u64)
                .read_line(&mut line)
                .await?;
            if n == 0 {
                return Err(EngineError::Gone);
            }
            if n >= MAX_LINE {
                return Err(EngineError::BadAnswer {
                    command: command.to_string(),
                    answer: "(a line too long)".into(),
                });
            }
            let line = line.trim_end_matches(['\r', '\n']);
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
            answer.push_str(line);
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
        let point = pair[0].to_ascii_uppercase();
        let ok = point == "PASS"
            || (point.len() <= 3
                && point.starts_with(|c: char| c.is_ascii_uppercase() && c != 'I')
                && point[1..].chars().all(|c| c.is_ascii_digit())
                && point.len() >= 2);
        if !ok {
            return None;
        }
        if best.len() < CANDIDATES {
            best.push(if point == "PASS" {
                "pass".into()
            } else {
                point
            });
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::analysis::scheduler::Position;
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
        let mut engine = Engine::start(&command, Some(1))
            .await
            .expect("GNU Go starts");
        assert_eq!(engine.name(), "GNU Go 3.8");
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
