//! A move as the rules see it: a stone on a point, or a pass.

use crate::Point;

/// A move: a stone on a point, or a pass (Art. 2: either side may pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// A stone set down on this point.
    Play(Point),
    /// A pass.
    Pass,
}

impl Move {
    /// GTP form: `Q16` or `pass` (the wire contract writes a pass as the point `"pass"`).
    pub fn to_gtp(self) -> String {
        match self {
            Move::Play(p) => p.to_gtp(),
            Move::Pass => "pass".to_string(),
        }
    }

    /// The point, or `None` for a pass.
    pub fn point(self) -> Option<Point> {
        match self {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        }
    }
}
