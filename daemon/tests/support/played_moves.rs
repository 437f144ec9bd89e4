//! A game's moves with the stones each one captured: as a board's journal holds them and
//! as the rules core plays them, for tests that compare the two.

use tengen_protocol::{Envelope, Event};
use tengen_rules::{Color, Game, Move, Point, Superko};

/// One move set down: who, where, and the stones it captured.
pub(crate) type PlayedMove = (Color, Point, Vec<Point>);

/// The moves in journal order (passes left out).
pub(crate) fn journal_moves(events: &[Envelope]) -> Vec<PlayedMove> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Move {
                color,
                point,
                captured,
                ..
            } => Some((*color, *point, captured.clone())),
            _ => None,
        })
        .collect()
}

/// `moves` played by the rules core on an empty board of `size` lines; panics on a pass
/// or an illegal move (the tests' games have neither).
pub(crate) fn rules_moves(size: u8, moves: &[(Color, Move)]) -> Vec<PlayedMove> {
    let mut game = Game::new(size, Superko::Situational).expect("a board size the rules take");
    moves
        .iter()
        .map(|&(color, mv)| {
            let played = game.play_as(color, mv).expect("a legal move");
            let Move::Play(point) = mv else {
                panic!("a pass where the test expects a stone");
            };
            (color, point, played.captured)
        })
        .collect()
}
