//! Taking a simulated game up again after a restart (`hardware.backend = "sim"`).
//!
//! A real board keeps its stones when the power goes; the simulated one must do the same.
//! The journal's current game says what the referee has recorded; this module finds the
//! simulator's action from which the game goes on, and the simulator
//! ([`tengen_sim::Simulation::resumed_from`]) starts with every earlier action's stones
//! already on the board.
//!
//! The recorded moves are matched, in order, against the simulator's actions (a move
//! against the `place` of that colour on that point, a pass against a `press` of that
//! colour), skipping only actions that set no stone down (or injected violations). Then:
//!
//! - the last recorded move was a pass, or a stone whose mover's clock press is in the
//!   journal: the game goes on with the first action after that press (the violations
//!   injected after it are taken as done: the board was put right);
//! - a stone whose press is not in the journal: the game goes on with that press (the
//!   captured stones are already lifted);
//! - `game_over` is in the journal: nothing is left to play, the board shows the final
//!   position.
//!
//! This works the same for an SGF game and for a script. A journal whose moves do not
//! match the simulator's input (the config now names another game) cannot be taken up:
//! [`resume_point`] says why and the service starts the game again as a new game.

use tengen_protocol::view::Phase;
use tengen_protocol::GameView;
use tengen_rules::{Color, Move};
use tengen_sim::{Action, TimedAction};

/// One recorded move: who, and where (`None` for a pass).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Recorded {
    color: Color,
    point: Option<String>,
}

fn places(action: &Action) -> bool {
    matches!(action, Action::Place { .. } | Action::PlaceTogether { .. })
}

fn is_move(action: &Action, m: &Recorded) -> bool {
    match (action, &m.point) {
        (Action::Place { color, point }, Some(p)) => *color == m.color && point.to_gtp() == *p,
        (Action::PlaceTogether { color, points }, Some(p)) => {
            *color == m.color && points.iter().any(|q| q.to_gtp() == *p)
        }
        (Action::Press { color }, None) => *color == m.color,
        _ => false,
    }
}

fn press_of(actions: &[TimedAction], from: usize, color: Color) -> Option<usize> {
    (from..actions.len()).find(|&i| {
        actions[i].violation.is_none()
            && matches!(actions[i].action, Action::Press { color: c } if c == color)
    })
}

/// Why the journal's game is not the simulator's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotThisGame {
    /// The journal's current game has no `game_started`.
    #[error("the journal holds no game_started")]
    NoGame,
    /// A recorded move is not among the simulator's actions.
    #[error("move {number} ({color} {point}) is not in the simulator's game")]
    Missing {
        /// The move's number.
        number: usize,
        /// Who played it.
        color: Color,
        /// Where (`pass`).
        point: String,
    },
    /// A recorded move comes after a stone the journal does not have.
    #[error("move {number} ({color} {point}) comes after an unrecorded stone in the simulator's game (action {action})")]
    Unrecorded {
        /// The move's number.
        number: usize,
        /// Who played it.
        color: Color,
        /// Where (`pass`).
        point: String,
        /// The simulator's action (1-based) that set the unrecorded stone down.
        action: usize,
    },
}

/// The index in `actions` (the simulator's, in order) from which the game of `past` (the
/// fold of the journal's current game) goes on; `actions.len()` when nothing is left.
/// An error says why the journal's game is not the simulator's.
pub(crate) fn resume_point(actions: &[TimedAction], past: &GameView) -> Result<usize, NotThisGame> {
    if past.game().is_none() {
        return Err(NotThisGame::NoGame);
    }
    if past.phase() == Phase::Over {
        return Ok(actions.len());
    }
    let moves: Vec<Recorded> = past
        .record()
        .iter()
        .map(|n| Recorded {
            color: n.color,
            point: match n.mv {
                Move::Play(p) => Some(p.to_gtp()),
                Move::Pass => None,
            },
        })
        .collect();
    // The last stone's mover pressed the clock after it (always so after a pass, and for
    // a stone that replaced a withdrawn pass).
    let pressed = past.awaiting_press().is_none();
    let mut cursor = 0;
    let mut last = None;
    for (n, m) in moves.iter().enumerate() {
        let found = (cursor..actions.len()).find(|&i| is_move(&actions[i].action, m));
        let point = || m.point.clone().unwrap_or_else(|| "pass".into());
        let Some(i) = found else {
            return Err(NotThisGame::Missing {
                number: n + 1,
                color: m.color,
                point: point(),
            });
        };
        if let Some(j) =
            (cursor..i).find(|&j| actions[j].violation.is_none() && places(&actions[j].action))
        {
            return Err(NotThisGame::Unrecorded {
                number: n + 1,
                color: m.color,
                point: point(),
                action: j + 1,
            });
        }
        cursor = i + 1;
        last = Some((i, m));
    }
    let Some((i, m)) = last else {
        return Ok(0);
    };
    let mut k = if m.point.is_none() {
        i + 1
    } else if pressed {
        press_of(actions, i + 1, m.color).map_or(i + 1, |j| j + 1)
    } else {
        press_of(actions, i + 1, m.color).unwrap_or(i + 1)
    };
    while actions.get(k).is_some_and(|a| a.violation.is_some()) {
        k += 1;
    }
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::event::{
        ClockReading, EndReason, GameEnd, GameSetup, PerColor, RetractReason,
    };
    use tengen_protocol::{Event, Timestamp};
    use tengen_sim::{SimOptions, Simulation};

    const SCRIPT: &str = "size 9\nplace B C3\npress B\nplace W G7\npress W\nplace B E5\npress B\n";

    fn started() -> Event {
        Event::GameStarted(GameSetup {
            size: 9,
            ..GameSetup::default()
        })
    }

    fn mv(number: u32, color: Color, point: &str) -> Event {
        Event::Move {
            number,
            color,
            point: tengen_protocol::gtp::parse(point).unwrap(),
            captured: vec![],
            clock: None,
        }
    }

    fn press(color: Color) -> Event {
        Event::Clock(ClockReading {
            color: Some(color),
            black: 0,
            white: 0,
            periods: PerColor::new(0, 0),
            running: Some(color.opponent()),
            paused: Some(false),
        })
    }

    fn view(events: &[Event]) -> GameView {
        let mut v = GameView::new();
        for e in events {
            v.apply(e, Timestamp::from_millis(0)).unwrap();
        }
        v
    }

    fn actions() -> Vec<TimedAction> {
        Simulation::from_script(SCRIPT, &SimOptions::seeded(1))
            .unwrap()
            .actions()
            .to_vec()
    }

    #[test]
    fn goes_on_after_the_last_press_or_at_the_missing_press() {
        let a = actions();
        let mut past = vec![started()];
        assert_eq!(resume_point(&a, &view(&past)), Ok(0));
        past.push(mv(1, Color::Black, "C3"));
        assert_eq!(
            resume_point(&a, &view(&past)),
            Ok(1),
            "B's press is still to come"
        );
        past.push(press(Color::Black));
        assert_eq!(resume_point(&a, &view(&past)), Ok(2));
        past.push(mv(2, Color::White, "G7"));
        past.push(press(Color::White));
        past.push(mv(3, Color::Black, "E5"));
        past.push(press(Color::Black));
        assert_eq!(resume_point(&a, &view(&past)), Ok(a.len()), "nothing left");
    }

    #[test]
    fn a_stone_that_replaced_a_withdrawn_pass_was_pressed_for() {
        // B passes, then sets C3 down at once: the pass is withdrawn and the press counts
        // for the stone, so the game goes on with White's move.
        let script = "size 9\npress B\nplace B C3 100ms\nplace W G7\npress W\n";
        let a = Simulation::from_script(script, &SimOptions::seeded(1))
            .unwrap()
            .actions()
            .to_vec();
        let past = vec![
            started(),
            Event::Pass {
                number: 1,
                color: Color::Black,
            },
            press(Color::Black),
            Event::MoveRetracted {
                number: 1,
                reason: RetractReason::ClockBeforeMove,
            },
            mv(1, Color::Black, "C3"),
        ];
        assert_eq!(
            resume_point(&a, &view(&past)),
            Ok(2),
            "White's stone comes next"
        );
    }

    #[test]
    fn a_finished_game_stays_finished_and_a_foreign_one_is_refused() {
        let a = actions();
        let over = Event::GameOver(GameEnd::uncounted("W+R", EndReason::Resignation));
        assert_eq!(resume_point(&a, &view(&[started(), over])), Ok(a.len()));
        let e = resume_point(&a, &view(&[started(), mv(1, Color::Black, "D4")])).unwrap_err();
        assert!(e.to_string().contains("move 1 (B D4)"), "{e}");
        let e = resume_point(&a, &view(&[started(), mv(1, Color::Black, "E5")])).unwrap_err();
        assert!(e.to_string().contains("unrecorded stone"), "{e}");
        assert_eq!(resume_point(&a, &GameView::new()), Err(NotThisGame::NoGame));
    }
}
