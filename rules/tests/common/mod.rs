//! Helpers shared by the rules tests.
#![allow(dead_code)]

pub(crate) mod naive;

use tengen_rules::{Board, Color, Game, Move, Point, Superko};

/// A point in GTP notation on a board of `size`.
pub(crate) fn pt(text: &str, size: u8) -> Point {
    Point::parse_gtp(text, size).unwrap_or_else(|e| panic!("bad test point {text}: {e}"))
}

/// A game set up from a diagram (`.`, `X`, `O`, top row first) with `to_move` to play.
pub(crate) fn setup(size: u8, rows: &str, to_move: Color, superko: Superko) -> Game {
    let board = Board::from_rows(size, rows).expect("test diagram");
    let (mut black, mut white) = (vec![], vec![]);
    for (p, c) in board.stones() {
        match c {
            Color::Black => black.push(p),
            Color::White => white.push(p),
        }
    }
    Game::with_setup(size, &black, &white, to_move, superko).expect("test setup")
}

/// Plays a GTP move (`pass` or a point) for the side to move, panicking if illegal.
pub(crate) fn play(game: &mut Game, text: &str) -> Vec<Point> {
    let size = game.board().size();
    let mv = if text.eq_ignore_ascii_case("pass") {
        Move::Pass
    } else {
        Move::Play(pt(text, size))
    };
    match game.play(mv) {
        Ok(p) => p.captured,
        Err(e) => panic!(
            "move {text} by {} rejected: {e}\n{:?}",
            game.to_move(),
            game
        ),
    }
}

/// The GTP form of a list of points.
pub(crate) fn gtp(points: &[Point]) -> Vec<String> {
    points.iter().map(|p| p.to_gtp()).collect()
}

/// A small deterministic random source for reproducible random games (SplitMix64).
pub(crate) struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
