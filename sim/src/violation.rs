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
    /// neighbouring point (`stone_moved`), then 2-4 s later pushes it back. At the first
    /// move that sets a stone down at or after the given one (after a pass it would read as
    /// the pass taken back, `clock_before_move`).
    MoveStone,
    /// After the press, the mover sets a second stone down on an empty point where it
    /// captures nothing (`double_move`), then lifts it again 2-4 s later. At the first move
    /// that sets a stone down at or after the given one, as for [`ViolationKind::MoveStone`].
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

/// The RNG stream violations are drawn from (timing, noise and made-up moves are 1 to 3).
const VIOLATION_STREAM: u64 = 4;

impl Violation {
    /// Whether a game breaks a rule, drawn from `seed` with `probability` (0 never, 1
    /// always), and if so which rule and where: one of the three kinds, each as likely, at
    /// a move in the middle half of the game. An uncaptured stone needs a capturing move:
    /// it is put at one (a game with none moves a stone instead). `None` when the game
    /// keeps the rules or is too short (under 8 moves) to break one in.
    pub fn draw(game: &crate::GameInput, probability: f64, seed: u64) -> Option<Violation> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(VIOLATION_STREAM);
        let p = if probability.is_finite() {
            probability.clamp(0.0, 1.0)
        } else {
            0.0
        };
        if !rng.random_bool(p) {
            return None;
        }
        let n = game.moves.len();
        if n < 8 {
            return None;
        }
        let (from, to) = (n / 4 + 1, (3 * n) / 4);
        let kind = match rng.random_range(0..3) {
            0 => ViolationKind::LeaveCapture,
            1 => ViolationKind::MoveStone,
            _ => ViolationKind::DoubleMove,
        };
        if kind == ViolationKind::LeaveCapture {
            let captures = capturing_moves(game);
            if let Some(&at_move) = captures.get(rng.random_range(0..captures.len().max(1))) {
                return Some(Violation { at_move, kind });
            }
            return Some(Violation {
                at_move: rng.random_range(from..=to),
                kind: ViolationKind::MoveStone,
            });
        }
        Some(Violation {
            at_move: rng.random_range(from..=to),
            kind,
        })
    }
}

/// The numbers (1-based) of the game's moves that capture, as the rules core plays them.
fn capturing_moves(game: &crate::GameInput) -> Vec<usize> {
    let black_setup = if game.black_setup.is_empty() {
        tengen_rules::handicap_points(game.size, game.handicap).unwrap_or_default()
    } else {
        game.black_setup.clone()
    };
    let first = game
        .moves
        .first()
        .map_or(tengen_rules::Color::Black, |(c, _)| *c);
    let Ok(mut rules) = tengen_rules::Game::with_setup(
        game.size,
        &black_setup,
        &game.white_setup,
        first,
        tengen_rules::Superko::Situational,
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, (color, mv)) in game.moves.iter().enumerate() {
        match rules.play_as(*color, *mv) {
            Ok(played) if !played.captured.is_empty() => out.push(i + 1),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    out
}
