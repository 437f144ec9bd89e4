//! Games made up for a rehearsal (`tengen rehearse`): random legal moves from the rules
//! core, drawn from a seed, 60 to 150 moves, ending in a resignation or in two passes and
//! a count, with the handicap of the pairing set up first.
//!
//! The moves are not good Go, only legal and plausible enough for the board: a player
//! never fills one of their own eyes (an empty point whose every neighbour is their
//! stone), and no stone goes in the 2x2 square at each corner, so that the resignation
//! gesture (two stones in the loser's lower-right corner) always finds room, wherever the
//! players sit.

use std::ops::RangeInclusive;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tengen_rules::scoring::{score, ScoreRules};
use tengen_rules::{Color, Game, Move, Point, Superko};

use crate::game::{GameError, GameInput};

/// The RNG stream of the made-up moves (the timing and noise streams are 1 and 2).
const MOVES_STREAM: u64 = 3;

/// How long a made-up game is, in moves (passes included).
pub const GENERATED_MOVES: RangeInclusive<usize> = 60..=150;

/// What a made-up game is set up with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeneratedSetup {
    /// Board size (7 and up for a handicap).
    pub size: u8,
    /// Handicap stones (0, or 2..=9): on the star points, White moves first.
    pub handicap: u8,
    /// Komi in points, for the count of a game that ends in two passes.
    pub komi: f64,
    /// The seed the moves and the ending are drawn from.
    pub seed: u64,
}

impl GameInput {
    /// A made-up game for `setup`: 60 to 150 random legal moves (see the module
    /// documentation), then either a resignation by a side drawn at random (`B+R`/`W+R`) or
    /// two passes, counted with no dead stones (the result in SGF form, as the board will
    /// count it). The same setup gives the same game.
    pub fn generated(setup: &GeneratedSetup) -> Result<GameInput, GameError> {
        let size = setup.size;
        let mut rules = if setup.handicap >= 2 {
            Game::with_handicap(size, setup.handicap, Superko::Situational)
        } else {
            Game::new(size, Superko::Situational)
        }
        .map_err(|e| GameError::Setup(e.to_string()))?;
        let black_setup: Vec<Point> = rules.board().stones().into_iter().map(|(p, _)| p).collect();
        let handicap = if setup.handicap >= 2 {
            setup.handicap
        } else {
            0
        };
        let mut rng = ChaCha8Rng::seed_from_u64(setup.seed);
        rng.set_stream(MOVES_STREAM);
        let length = rng.random_range(GENERATED_MOVES);
        let resign = rng.random_bool(0.5);
        // Two passes end a counted game: leave room for them.
        let stones = if resign { length } else { length - 2 };
        let mut moves: Vec<(Color, Move)> = Vec::with_capacity(length);
        while moves.len() < stones {
            let color = rules.to_move();
            let choices: Vec<Point> = rules
                .legal_moves(color)
                .into_iter()
                .filter(|p| !in_corner(*p, size) && !own_eye(&rules, color, *p))
                .collect();
            let Some(point) = choices.choose(&mut rng).copied() else {
                // Nowhere sensible to play (a tiny board filled up): end by counting.
                break;
            };
            rules
                .play_as(color, Move::Play(point))
                .map_err(|e| GameError::IllegalMove {
                    number: moves.len() + 1,
                    color,
                    point: point.to_gtp(),
                    reason: e.as_str().to_string(),
                })?;
            moves.push((color, Move::Play(point)));
        }
        let result = if resign && moves.len() == stones {
            let loser = if rng.random_bool(0.5) {
                Color::Black
            } else {
                Color::White
            };
            format!("{}+R", loser.opponent())
        } else {
            for _ in 0..2 {
                let color = rules.to_move();
                rules
                    .play_as(color, Move::Pass)
                    .map_err(|e| GameError::Setup(e.to_string()))?;
                moves.push((color, Move::Pass));
            }
            let counted = score(
                rules.board(),
                &[],
                &ScoreRules {
                    komi_points: setup.komi,
                    handicap,
                    warnings: [0, 0],
                },
            )
            .map_err(|e| GameError::Setup(e.to_string()))?;
            counted.result
        };
        Ok(GameInput {
            size,
            komi: Some(setup.komi),
            handicap,
            black_setup,
            white_setup: Vec::new(),
            moves,
            result: Some(result),
            dead: Vec::new(),
        })
    }
}

/// True for the 2x2 square at each corner, kept free for the resignation stones.
fn in_corner(p: Point, size: u8) -> bool {
    let edge = |v: u8| v < 2 || v + 2 >= size;
    edge(p.col) && edge(p.row)
}

/// True when every on-board neighbour of `p` is a stone of `color`.
fn own_eye(rules: &Game, color: Color, p: Point) -> bool {
    let size = rules.board().size();
    [(0i16, 1i16), (0, -1), (1, 0), (-1, 0)]
        .into_iter()
        .filter_map(|(dc, dr)| {
            let (c, r) = (p.col as i16 + dc, p.row as i16 + dr);
            ((0..size as i16).contains(&c) && (0..size as i16).contains(&r))
                .then(|| Point::new(c as u8, r as u8))
        })
        .all(|n| rules.board().get(n) == Some(color))
}
