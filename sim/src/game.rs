//! A recorded game turned into what two players physically do: think, reach and place the
//! stone, lift each captured stone one at a time, press the clock; pass with a bare press;
//! finish a game that ends in two passes (lift the dead stones, both press to confirm) or
//! in resignation (two stones in the resigning player's lower-right corner, then their
//! press). Violations can be injected at chosen moves for the referee's tests.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_distr::{Distribution, LogNormal};
use tengen_hal::Millis;
use tengen_rules::{handicap_points, Color, Game, Move, Point, Superko};

use crate::action::{Action, Step};
use crate::choreography::{Choreographer, Origin};
use crate::options::SimOptions;
use crate::script::{ScriptError, Setup};
use crate::seeds::timing_rng;
use crate::side::{lower_right_region, Side};

pub use crate::violation::{Violation, ViolationKind};

/// A game to be played on the simulated board: what an SGF record gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameInput {
    /// Board size.
    pub size: u8,
    /// Komi in points, if the record gives it.
    pub komi: Option<f64>,
    /// Handicap stones (`HA`); placed on the star points unless `black_setup` lists them.
    pub handicap: u8,
    /// Black stones set up before move 1 (SGF `AB`, e.g. free handicap placement).
    pub black_setup: Vec<Point>,
    /// White stones set up before move 1 (SGF `AW`).
    pub white_setup: Vec<Point>,
    /// The moves of the main line.
    pub moves: Vec<(Color, Move)>,
    /// The result in SGF form (`B+R`, `W+3.5`...), if known.
    pub result: Option<String>,
    /// Stones the players agree are dead at the end (lifted before both confirm).
    pub dead: Vec<Point>,
}

/// How long a player thinks before a move: log-normal around a median, clamped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThinkTime {
    /// The median thinking time.
    pub median_ms: Millis,
    /// The spread (sigma of the logarithm): 0.9 gives the long tail of real games.
    pub sigma: f64,
    /// The shortest think.
    pub min_ms: Millis,
    /// The longest think.
    pub max_ms: Millis,
}

impl ThinkTime {
    /// A tournament player's pace: median 4 s, long tail up to 2 minutes.
    pub fn human() -> ThinkTime {
        ThinkTime {
            median_ms: 4000,
            sigma: 0.9,
            min_ms: 500,
            max_ms: 120_000,
        }
    }

    /// The same pace played `speed` times faster (the spread kept; no think under 1 ms), as
    /// `tengen-mcu --speed` plays a recorded game.
    pub fn faster(self, speed: f64) -> ThinkTime {
        let scale = |ms: Millis| ((ms as f64 / speed).round() as Millis).max(1);
        ThinkTime {
            median_ms: scale(self.median_ms),
            min_ms: scale(self.min_ms),
            max_ms: scale(self.max_ms),
            ..self
        }
    }

    /// A brisk pace for tests: median 600 ms, 200 ms to 3 s.
    pub fn brisk() -> ThinkTime {
        ThinkTime {
            median_ms: 600,
            sigma: 0.5,
            min_ms: 200,
            max_ms: 3000,
        }
    }

    fn sample(&self, rng: &mut impl Rng) -> Millis {
        let median = self.median_ms.max(1) as f64;
        let sigma = if self.sigma.is_finite() && self.sigma > 0.0 {
            self.sigma
        } else {
            0.0
        };
        let t = match LogNormal::new(median.ln(), sigma) {
            Ok(d) => d.sample(rng),
            Err(_) => median,
        };
        (t.round() as Millis).clamp(self.min_ms, self.max_ms.max(self.min_ms))
    }
}

impl Default for ThinkTime {
    fn default() -> ThinkTime {
        ThinkTime::human()
    }
}

/// How a game is played on the simulated board.
#[derive(Debug, Clone, PartialEq)]
pub struct GameOptions {
    /// Thinking time before each move.
    pub think: ThinkTime,
    /// Violations to inject.
    pub violations: Vec<Violation>,
    /// Play the ending (dead stones and confirmation after two passes, the resignation
    /// gesture for `B+R`/`W+R`); `false` stops after the last move's press.
    pub finish: bool,
    /// The size of the square corner region the resignation stones go in (4: a 4x4 square
    /// in the resigning player's lower-right corner, nearest the corner first).
    pub resign_region: u8,
    /// Stones the players lift as dead after two passes when the game itself does not say
    /// (SGF has no field for them); used only if [`GameInput::dead`] is empty.
    pub dead: Vec<Point>,
}

impl Default for GameOptions {
    fn default() -> GameOptions {
        GameOptions {
            think: ThinkTime::human(),
            violations: Vec::new(),
            finish: true,
            resign_region: 4,
            dead: Vec::new(),
        }
    }
}

/// Why a game cannot be played on the simulated board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The setup (size, handicap, setup stones) is not valid.
    #[error("game setup: {0}")]
    Setup(String),
    /// A move of the record is not legal.
    #[error("move {number} ({color} {point}): {reason}")]
    IllegalMove {
        /// The 1-based move number.
        number: usize,
        /// Who played it.
        color: Color,
        /// The point in GTP form.
        point: String,
        /// Why the rules refuse it.
        reason: String,
    },
    /// A violation cannot be injected where asked.
    #[error("violation {kind:?} at move {at_move}: {why}")]
    Violation {
        /// The violation.
        kind: ViolationKind,
        /// The move asked for.
        at_move: usize,
        /// Why not.
        why: String,
    },
    /// The physical actions could not be carried out (a bug, reported rather than a panic).
    #[error("{0}")]
    Action(#[from] ScriptError),
}

struct Player<'a> {
    ch: Choreographer,
    options: &'a GameOptions,
}

impl Player<'_> {
    /// Time passes (thinking, human delays): not recorded as an action.
    fn wait(&mut self, ms: Millis) -> Result<(), GameError> {
        self.ch.t += ms;
        Ok(())
    }

    fn pause(&mut self, lo: Millis, hi: Millis) -> Result<(), GameError> {
        let ms = self.ch.rng().random_range(lo..=hi);
        self.wait(ms)
    }

    fn think(&mut self) -> Result<(), GameError> {
        let ms = self.options.think.sample(self.ch.rng());
        self.wait(ms)
    }

    fn act(&mut self, action: Action, origin: Origin) -> Result<(), GameError> {
        self.ch.step_as(&Step::new(action), origin)?;
        Ok(())
    }
}

/// A recorded game as what two simulated players physically do (see [`GameOptions`]):
/// the setup it gives and the choreography, ready for the simulation to assemble.
/// `options.size` is ignored (the game has its own).
pub(crate) fn choreograph(
    game: &GameInput,
    options: &SimOptions,
    play: &GameOptions,
) -> Result<(Setup, Choreographer), GameError> {
    let size = game.size;
    tengen_rules::point::check_size(size).map_err(|e| GameError::Setup(e.to_string()))?;
    let black_setup = if game.black_setup.is_empty() {
        handicap_points(size, game.handicap).map_err(|e| GameError::Setup(e.to_string()))?
    } else {
        game.black_setup.clone()
    };
    let first = match game.moves.first() {
        Some((c, _)) => *c,
        None if black_setup.is_empty() => Color::Black,
        None => Color::White,
    };
    let mut rules = Game::with_setup(
        size,
        &black_setup,
        &game.white_setup,
        first,
        Superko::Situational,
    )
    .map_err(|e| GameError::Setup(e.to_string()))?;

    let mut p = Player {
        ch: Choreographer::new(
            size,
            options.black_side,
            timing_rng(options.seed),
            options.lead_in_ms,
        ),
        options: play,
    };
    let setup_origin = Origin::default();
    for (list, color) in [
        (&black_setup, Color::Black),
        (&game.white_setup, Color::White),
    ] {
        for point in list.iter() {
            p.act(
                Action::Place {
                    color,
                    point: *point,
                },
                setup_origin,
            )?;
        }
    }
    p.ch.to_move = first;

    let mut pending: Vec<Violation> = play.violations.clone();
    pending.sort_by_key(|v| v.at_move);
    for (i, (color, mv)) in game.moves.iter().enumerate() {
        let number = i + 1;
        let origin = Origin {
            move_number: Some(number),
            violation: None,
        };
        p.think()?;
        let captured = match rules.play_as(*color, *mv) {
            Ok(played) => played.captured,
            Err(e) => {
                return Err(GameError::IllegalMove {
                    number,
                    color: *color,
                    point: mv.to_gtp(),
                    reason: e.as_str().to_string(),
                })
            }
        };
        let mut left_on_board: Option<Point> = None;
        if let Move::Play(point) = mv {
            p.act(
                Action::Place {
                    color: *color,
                    point: *point,
                },
                origin,
            )?;
            let mut order = captured.clone();
            order.shuffle(p.ch.rng());
            if !order.is_empty() {
                if let Some(k) = pending
                    .iter()
                    .position(|v| v.kind == ViolationKind::LeaveCapture && v.at_move <= number)
                {
                    pending.remove(k);
                    left_on_board = order.pop();
                }
            }
            for q in order {
                p.pause(100, 500)?;
                p.act(Action::Lift { point: q }, origin)?;
            }
        }
        p.pause(100, 400)?;
        p.act(Action::Press { color: *color }, origin)?;
        if let Some(q) = left_on_board {
            p.pause(1500, 3000)?;
            p.act(
                Action::Lift { point: q },
                Origin {
                    violation: Some(ViolationKind::LeaveCapture),
                    ..origin
                },
            )?;
        }
        inject_after_press(&mut p, &rules, &mut pending, number, *color, *mv)?;
    }
    if let Some(v) = pending.first() {
        return Err(GameError::Violation {
            kind: v.kind,
            at_move: v.at_move,
            why: "no move in the game allows it".into(),
        });
    }
    if play.finish {
        finish(&mut p, &rules, game, options.black_side)?;
    }
    let setup = Setup {
        size: Some(size),
        komi: game.komi,
        handicap: Some(game.handicap),
        time: None,
        seed: Some(options.seed),
        noise: None,
    };
    Ok((setup, p.ch))
}

/// The violations that happen after a move's press.
fn inject_after_press(
    p: &mut Player<'_>,
    rules: &Game,
    pending: &mut Vec<Violation>,
    number: usize,
    color: Color,
    mv: Move,
) -> Result<(), GameError> {
    if mv == Move::Pass {
        // After a pass, the passer's stone set down (or pushed) within the pass grace
        // would read as a retracted pass (`clock_before_move`): these wait for a stone move.
        return Ok(());
    }
    let size = rules.board().size();
    let due = |kind: ViolationKind, pending: &[Violation]| {
        pending
            .iter()
            .position(|v| v.kind == kind && v.at_move <= number)
    };
    if let Some(k) = due(ViolationKind::MoveStone, pending) {
        // One of the mover's older stones with an empty orthogonal neighbour.
        let mut candidates: Vec<(Point, Point)> = Vec::new();
        for (q, c) in rules.board().stones() {
            if c != color || Some(q) == mv.point() {
                continue;
            }
            for (dc, dr) in [(0i16, 1i16), (0, -1), (1, 0), (-1, 0)] {
                let (nc, nr) = (q.col as i16 + dc, q.row as i16 + dr);
                if (0..size as i16).contains(&nc) && (0..size as i16).contains(&nr) {
                    let n = Point::new(nc as u8, nr as u8);
                    if rules.board().get(n).is_none() {
                        candidates.push((q, n));
                    }
                }
            }
        }
        if !candidates.is_empty() {
            pending.remove(k);
            let (from, to) = candidates[p.ch.rng().random_range(0..candidates.len())];
            let origin = Origin {
                move_number: Some(number),
                violation: Some(ViolationKind::MoveStone),
            };
            p.pause(500, 1500)?;
            p.act(Action::Slide { from, to }, origin)?;
            p.pause(2000, 4000)?;
            p.act(Action::Slide { from: to, to: from }, origin)?;
        }
    }
    if let Some(k) = due(ViolationKind::DoubleMove, pending) {
        let quiet: Vec<Point> = rules
            .legal_moves(color)
            .into_iter()
            .filter(|q| rules.captures_of(color, *q).is_ok_and(|c| c.is_empty()))
            .collect();
        if !quiet.is_empty() {
            pending.remove(k);
            let q = quiet[p.ch.rng().random_range(0..quiet.len())];
            let origin = Origin {
                move_number: Some(number),
                violation: Some(ViolationKind::DoubleMove),
            };
            let to_move = p.ch.to_move;
            p.pause(500, 1500)?;
            p.act(Action::Place { color, point: q }, origin)?;
            p.pause(2000, 4000)?;
            p.act(Action::Lift { point: q }, origin)?;
            p.ch.to_move = to_move;
        }
    }
    Ok(())
}

/// The end of the game as players finish it.
fn finish(
    p: &mut Player<'_>,
    rules: &Game,
    game: &GameInput,
    black_side: Side,
) -> Result<(), GameError> {
    let origin = Origin::default();
    let two_passes = game.moves.len() >= 2
        && game.moves[game.moves.len() - 2..]
            .iter()
            .all(|(_, m)| *m == Move::Pass);
    let result = game.result.as_deref().unwrap_or("").to_ascii_uppercase();
    if two_passes {
        let mut dead: Vec<Point> = game
            .dead
            .iter()
            .copied()
            .filter(|q| rules.board().get(*q).is_some())
            .collect();
        dead.shuffle(p.ch.rng());
        for q in dead {
            p.pause(300, 900)?;
            p.act(Action::Lift { point: q }, origin)?;
        }
        let first = rules.to_move();
        for color in [first, first.opponent()] {
            p.pause(800, 2500)?;
            p.act(Action::Press { color }, origin)?;
        }
    } else if result.starts_with("B+R") || result.starts_with("W+R") {
        let loser = if result.starts_with("B+") {
            Color::White
        } else {
            Color::Black
        };
        let size = rules.board().size();
        let region = lower_right_region(loser, black_side, size, p.options.resign_region);
        let free: Vec<Point> = region
            .into_iter()
            .filter(|q| p.ch.stone(*q).is_none())
            .take(2)
            .collect();
        if free.len() < 2 {
            return Err(GameError::Setup(format!(
                "no room for the resignation stones in {loser}'s corner"
            )));
        }
        p.think()?;
        p.act(
            Action::PlaceTogether {
                color: loser,
                points: free,
            },
            origin,
        )?;
        p.pause(300, 1000)?;
        p.act(Action::Press { color: loser }, origin)?;
    }
    Ok(())
}
