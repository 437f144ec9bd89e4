//! The rule violations simulated players can commit, for the referee's tests: what
//! [`crate::GameOptions::violations`] asks for and what [`crate::TimedAction::violation`]
//! marks.

/// A rule violation the players commit, for the referee's tests. Each one is undone by
/// the players afterwards so the game goes on (the referee clears its alert as
/// `restored`), and each should raise exactly one alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViolationKind {
    /// The mover presses the clock with one captured stone still on the board
    /// (`uncaptured_stones`), then lifts it 1.5-3 s later. Needs a capturing move: it
    /// happens at the first capturing move at or after the given one.
    LeaveCapture,
    /// After the press, the mover pushes one of their older stones onto an empty
    /// neighbouring point (`stone_moved`), then 2-4 s later pushes it back.
    MoveStone,
    /// After the press, the mover sets a second stone down on an empty point where it
    /// captures nothing (`double_move`), then lifts it again 2-4 s later.
    DoubleMove,
}

impl ViolationKind {
    /// The referee's alert code this violation should raise.
    pub fn alert_code(self) -> &'static str {
        match self {
            ViolationKind::LeaveCapture => "uncaptured_stones",
            ViolationKind::MoveStone => "stone_moved",
            ViolationKind::DoubleMove => "double_move",
        }
    }
}

/// A violation injected at a move (1-based move number of the record's main line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Violation {
    /// The move at (or, where it needs one, after) which it happens.
    pub at_move: usize,
    /// What is done.
    pub kind: ViolationKind,
}
