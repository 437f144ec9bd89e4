//! A board as the public sees it under a broadcast delay: the game rebuilt from the events
//! released so far (SPEC.md's `state` snapshot and the SGF, in the same shapes the board
//! publishes), with nothing for arbiters only: no alerts, no sensor faults, no comments.
//! Sans-IO.
//!
//! The public view of a game starts at its `game_started`: a hall that never saw it (no
//! `[hall] identity` to ask for the history, started mid-game) shows no public position for
//! that board until its next game, rather than the live one.

use serde_json::{json, Value};
use tengen_rules::game::{Game, Superko};
use tengen_rules::sgf::{GameRecord, RecordedMove};
use tengen_rules::{Color, Move, Point};

use crate::event::{Envelope, Event, PerColor};

/// True for events the public never sees: alerts and their clearing, hardware faults.
pub fn is_private(event: &Event) -> bool {
    matches!(
        event,
        Event::Alert { .. } | Event::AlertCleared { .. } | Event::SensorFault { .. }
    )
}

/// The game's setup, from `game_started`.
#[derive(Debug, Clone)]
struct Setup {
    size: u8,
    komi: f64,
    handicap: u8,
    superko: String,
    time_control: String,
    black: String,
    white: String,
    round: String,
    table: String,
}

/// One move or pass as released.
#[derive(Debug, Clone)]
struct Played {
    number: u32,
    color: Color,
    mv: Move,
    clock: Option<PerColor<u64>>,
}

/// The clocks as the last released event showed them.
#[derive(Debug, Clone, Copy)]
struct Clocks {
    left: PerColor<u64>,
    periods: Option<PerColor<u32>>,
    running: Option<Color>,
}

/// The public game of one board, rebuilt from released events.
#[derive(Debug, Default)]
pub struct PublicGame {
    board_id: String,
    game_id: String,
    seq: u64,
    setup: Option<Setup>,
    moves: Vec<Played>,
    game: Option<Game>,
    clocks: Option<Clocks>,
    warnings: [u32; 2],
    phase: Phase,
    result: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    #[default]
    Playing,
    Counting,
    Over,
}

impl PublicGame {
    /// Nothing released yet.
    pub fn new() -> PublicGame {
        PublicGame::default()
    }

    /// The `seq` of the last event applied (0 before any).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Applies one released event (private ones only move `seq` on).
    pub fn apply(&mut self, e: &Envelope) {
        self.seq = self.seq.max(e.seq);
        self.board_id.clone_from(&e.board);
        if !e.game.is_empty() {
            self.game_id.clone_from(&e.game);
        }
        match &e.event {
            Event::GameStarted {
                size,
                komi,
                handicap,
                superko,
                time_control,
                black,
                white,
                round,
                table,
                ..
            } => {
                *self = PublicGame {
                    board_id: e.board.clone(),
                    game_id: e.game.clone(),
                    seq: e.seq,
                    setup: Some(Setup {
                        size: *size,
                        komi: *komi,
                        handicap: *handicap,
                        superko: superko.clone(),
                        time_control: time_control.clone(),
                        black: black.clone(),
                        white: white.clone(),
                        round: round.clone(),
                        table: table.clone(),
                    }),
                    ..PublicGame::default()
                };
                self.rebuild();
            }
            Event::Move {
                number,
                color,
                point,
                clock,
                ..
            } => {
                let Some(size) = self.setup.as_ref().map(|s| s.size) else {
                    return;
                };
                let Ok(p) = Point::parse_gtp(point, size) else {
                    tracing::warn!("public view: move {number} at {point:?} is not on the board");
                    return;
                };
                self.play(Played {
                    number: *number,
                    color: *color,
                    mv: Move::Play(p),
                    clock: *clock,
                });
                if let (Some(c), Some(shown)) = (clock, self.clocks.as_mut()) {
                    shown.left = *c;
                } else if let Some(c) = clock {
                    self.clocks = Some(Clocks {
                        left: *c,
                        periods: None,
                        running: None,
                    });
                }
            }
            Event::Pass { number, color } => {
                if self.setup.is_some() {
                    self.play(Played {
                        number: *number,
                        color: *color,
                        mv: Move::Pass,
                        clock: None,
                    });
                }
            }
            Event::MoveRetracted { number, .. } => {
                if self.moves.iter().any(|m| m.number == *number) {
                    self.moves.retain(|m| m.number != *number);
                    self.rebuild();
                }
            }
            Event::Clock {
                black,
                white,
                periods,
                running,
                ..
            } => {
                self.clocks = Some(Clocks {
                    left: PerColor {
                        black: *black,
                        white: *white,
                    },
                    periods: Some(*periods),
                    running: *running,
                });
            }
            Event::Warning { color, count, .. } => {
                self.warnings[usize::from(*color == Color::White)] = *count;
            }
            Event::Counting { .. } => self.phase = Phase::Counting,
            Event::GameOver { result, .. } => {
                self.phase = Phase::Over;
                self.result = Some(result.clone());
                if let Some(c) = self.clocks.as_mut() {
                    c.running = None;
                }
            }
            Event::Byoyomi { .. }
            | Event::Alert { .. }
            | Event::AlertCleared { .. }
            | Event::SensorFault { .. }
            | Event::Status { .. } => {}
        }
    }

    /// A move or pass: replaces any move with its number or a later one (as the live page
    /// does), then plays it on the rebuilt position.
    fn play(&mut self, m: Played) {
        let replaces = self.moves.iter().any(|x| x.number >= m.number);
        self.moves.retain(|x| x.number < m.number);
        let mv = (m.color, m.mv);
        self.moves.push(m);
        match (&mut self.game, replaces) {
            (Some(g), false) => {
                if let Err(e) = g.play_as(mv.0, mv.1) {
                    tracing::warn!("public view: a released move does not replay: {e}");
                    self.moves.pop();
                }
            }
            _ => self.rebuild(),
        }
    }

    /// Replays the released moves from the setup (dropping any the rules refuse).
    fn rebuild(&mut self) {
        let Some(s) = &self.setup else {
            self.game = None;
            return;
        };
        let superko = Superko::parse(&s.superko).unwrap_or(Superko::Situational);
        let Ok(mut g) = Game::with_handicap(s.size, s.handicap, superko) else {
            self.game = None;
            return;
        };
        self.moves.retain(|m| g.play_as(m.color, m.mv).is_ok());
        self.game = Some(g);
    }

    /// SPEC.md's `state` snapshot as of the last released event (`alerts` always empty);
    /// `null` when the game's setup has not been released (or was never seen).
    pub fn state(&self) -> Value {
        let (Some(s), Some(g)) = (&self.setup, &self.game) else {
            return Value::Null;
        };
        let phase = match self.phase {
            Phase::Playing => "playing",
            Phase::Counting => "counting",
            Phase::Over => "over",
        };
        let clocks = self.clocks.map(|c| {
            json!({
                "B": c.left.black,
                "W": c.left.white,
                "periods": c.periods,
                "running": c.running,
                "paused": false,
            })
        });
        json!({
            "size": s.size,
            "komi": s.komi,
            "handicap": s.handicap,
            "rules": "chinese",
            "superko": s.superko,
            "time_control": s.time_control,
            "black": s.black,
            "white": s.white,
            "round": s.round,
            "table": s.table,
            "phase": phase,
            "board": g.board().to_rows(),
            "to_move": g.to_move(),
            "number": g.move_number(),
            "captured": {"B": g.prisoners(Color::Black), "W": g.prisoners(Color::White)},
            "clocks": clocks,
            "warnings": {"B": self.warnings[0], "W": self.warnings[1]},
            "alerts": [],
            "result": self.result,
            "seq": self.seq,
            "board_id": self.board_id,
            "game_id": self.game_id,
        })
    }

    /// The record of the released moves as SGF (no comments); empty before the setup.
    pub fn sgf(&self) -> String {
        let Some(s) = &self.setup else {
            return String::new();
        };
        let name = |n: &str| (!n.is_empty()).then(|| n.to_string());
        let mut rec = GameRecord::new(s.size);
        rec.komi = Some(s.komi);
        rec.handicap = s.handicap;
        if s.handicap >= 2 {
            rec.black_setup = tengen_rules::handicap_points(s.size, s.handicap).unwrap_or_default();
        }
        rec.moves = self
            .moves
            .iter()
            .map(|m| RecordedMove {
                time_left_ms: m.clock.map(|c| c.get(m.color)),
                ..RecordedMove::new(m.color, m.mv)
            })
            .collect();
        rec.black_name = name(&s.black);
        rec.white_name = name(&s.white);
        rec.rules = Some("Chinese".to_string());
        rec.result.clone_from(&self.result);
        if !s.round.is_empty() {
            rec.extra_root.push(("RO".to_string(), s.round.clone()));
        }
        tengen_rules::sgf::write(&rec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    use crate::event::test_envelope as env;

    fn started(size: u8, handicap: u8) -> Event {
        Event::GameStarted {
            size,
            komi: 7.5,
            handicap,
            rules: "chinese".into(),
            superko: "situational".into(),
            time_control: "byoyomi 60m 5x30s".into(),
            black: "Shusaku".into(),
            white: "Gennan".into(),
            round: "3".into(),
            table: "7".into(),
        }
    }

    fn mv(number: u32, color: Color, point: &str, ms: u64) -> Event {
        Event::Move {
            number,
            color,
            point: point.into(),
            captured: vec![],
            clock: Some(PerColor {
                black: ms,
                white: ms + 1000,
            }),
        }
    }

    /// The 9x9 board string with stones at (GTP point, 'X'/'O').
    fn rows(stones: &[(&str, char)]) -> String {
        let mut cells = vec!['.'; 81];
        for (p, c) in stones {
            let p = Point::parse_gtp(p, 9).unwrap();
            cells[p.index(9)] = *c;
        }
        cells.into_iter().collect()
    }

    #[test]
    fn nothing_public_before_the_setup() {
        let mut g = PublicGame::new();
        g.apply(&env(4, mv(3, Color::Black, "C3", 1000)));
        assert_eq!(g.state(), Value::Null);
        assert_eq!(g.sgf(), "");
        assert_eq!(g.seq(), 4);
    }

    #[test]
    fn rebuilds_position_clocks_and_captures() {
        let mut g = PublicGame::new();
        g.apply(&env(1, started(9, 0)));
        // White's E5 is captured by Black's four stones around it.
        let moves = [
            ("D5", Color::Black),
            ("E5", Color::White),
            ("F5", Color::Black),
            ("A1", Color::White),
            ("E4", Color::Black),
            ("A2", Color::White),
            ("E6", Color::Black),
        ];
        for (i, (p, c)) in moves.iter().enumerate() {
            g.apply(&env(
                2 + i as u64,
                mv(i as u32 + 1, *c, p, 60_000 - i as u64),
            ));
        }
        let s = g.state();
        assert_eq!(
            s["board"],
            rows(&[
                ("D5", 'X'),
                ("F5", 'X'),
                ("E4", 'X'),
                ("E6", 'X'),
                ("A1", 'O'),
                ("A2", 'O')
            ])
        );
        assert_eq!(s["captured"], json!({"B": 1, "W": 0}));
        assert_eq!(s["number"], 7);
        assert_eq!(s["to_move"], "W");
        assert_eq!(s["clocks"]["B"], 59_994);
        assert_eq!(s["seq"], 8);
        assert_eq!(s["alerts"], json!([]));
        assert_eq!(s["black"], "Shusaku");
        assert_eq!(s["phase"], "playing");
    }

    #[test]
    fn retractions_clock_presses_warnings_and_the_end() {
        let mut g = PublicGame::new();
        g.apply(&env(1, started(9, 0)));
        g.apply(&env(2, mv(1, Color::Black, "E5", 500_000)));
        g.apply(&env(
            3,
            Event::Pass {
                number: 2,
                color: Color::White,
            },
        ));
        g.apply(&env(
            4,
            Event::MoveRetracted {
                number: 2,
                reason: "clock_before_move".into(),
            },
        ));
        g.apply(&env(5, mv(2, Color::White, "C3", 400_000)));
        g.apply(&env(
            6,
            Event::Clock {
                color: Some(Color::White),
                black: 1234,
                white: 5678,
                periods: PerColor { black: 5, white: 4 },
                running: Some(Color::Black),
            },
        ));
        g.apply(&env(
            7,
            Event::Alert {
                id: "a1".into(),
                code: crate::event::AlertCode::StoneMoved,
                article: "17.5".into(),
                color: Some(Color::Black),
                points: vec!["E5".into()],
                expected: BTreeMap::new(),
                message: "secret".into(),
            },
        ));
        g.apply(&env(
            8,
            Event::Warning {
                color: Color::White,
                article: "17.4".into(),
                count: 1,
            },
        ));
        let s = g.state();
        assert_eq!(s["board"], rows(&[("E5", 'X'), ("C3", 'O')]));
        assert_eq!(s["number"], 2);
        assert_eq!(
            s["clocks"],
            json!({"B": 1234, "W": 5678, "periods": {"B": 5, "W": 4}, "running": "B", "paused": false})
        );
        assert_eq!(s["warnings"], json!({"B": 0, "W": 1}));
        assert!(!s.to_string().contains("secret"));
        g.apply(&env(9, crate::event::test_resignation("B+R")));
        let s = g.state();
        assert_eq!(
            (s["phase"].as_str(), s["result"].as_str()),
            (Some("over"), Some("B+R"))
        );
        assert_eq!(s["clocks"]["running"], Value::Null);
        let sgf = tengen_rules::sgf::parse(&g.sgf()).unwrap();
        assert_eq!(sgf.moves.len(), 2);
        assert_eq!(sgf.result.as_deref(), Some("B+R"));
        assert_eq!(sgf.black_name.as_deref(), Some("Shusaku"));
        assert_eq!(
            sgf.moves[1].time_left_ms,
            Some(401_000),
            "White's time after move 2"
        );
    }

    #[test]
    fn a_new_game_starts_afresh_with_its_handicap() {
        let mut g = PublicGame::new();
        g.apply(&env(1, started(9, 0)));
        g.apply(&env(2, mv(1, Color::Black, "E5", 500)));
        g.apply(&env(3, started(9, 2)));
        let s = g.state();
        assert_eq!(s["board"].as_str().unwrap().matches('X').count(), 2);
        assert_eq!(s["to_move"], "W");
        assert_eq!(s["number"], 0);
        let sgf = tengen_rules::sgf::parse(&g.sgf()).unwrap();
        assert_eq!(sgf.handicap, 2);
        assert_eq!(sgf.black_setup.len(), 2);
    }

    #[test]
    fn private_events_are_named() {
        assert!(is_private(&Event::SensorFault {
            points: vec![],
            kind: "stuck".into()
        }));
        assert!(!is_private(&Event::Pass {
            number: 1,
            color: Color::Black
        }));
    }
}
