//! Helpers shared by the rules tests.
#![allow(dead_code)]

pub mod naive;

use tengen_rules::{Board, Color, Game, Move, Point, Superko};

/// A point in GTP notation on a board of `size`.
pub fn pt(text: &str, size: u8) -> Point {
    Point::parse_gtp(text, size).unwrap_or_else(|e| panic!("bad test point {text}: {e}"))
}

/// A game set up from a diagram (`.`, `X`, `O`, top row first) with `to_move` to play.
pub fn setup(size: u8, rows: &str, to_move: Color, superko: Superko) -> Game {
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
pub fn play(game: &mut Game, text: &str) -> Vec<Point> {
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
pub fn gtp(points: &[Point]) -> Vec<String> {
    points.iter().map(|p| p.to_gtp()).collect()
}
