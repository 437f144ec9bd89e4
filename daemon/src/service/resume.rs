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

use tengen_rules::Color;
use tengen_sim::{Action, TimedAction};

use crate::event::{Envelope, Event};

/// One recorded move: who, and where (`None` for a pass).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Recorded {
    color: Color,
    point: Option<String>,
}

/// What the journal's current game says about the play so far.
#[derive(Debug, Default)]
struct Progress {
    started: bool,
    over: bool,
    moves: Vec<Recorded>,
    /// The last move's mover pressed the clock after it (always true after a pass).
    pressed: bool,
}

fn progress(past: &[Envelope]) -> Progress {
    let mut p = Progress::default();
    for env in past {
        match &env.event {
            Event::GameStarted { .. } => {
                p = Progress {
                    started: true,
                    ..Progress::default()
                }
            }
            Event::Move { color, point, .. } => {
                p.moves.push(Recorded {
                    color: *color,
                    point: Some(point.clone()),
                });
                p.pressed = false;
            }
            Event::Pass { color, .. } => {
                p.moves.push(Recorded {
                    color: *color,
                    point: None,
                });
                p.pressed = true;
            }
            Event::MoveRetracted { .. } => {
                p.moves.pop();
                // The stone that follows a retracted pass was pressed for already.
                p.pressed = true;
            }
            Event::Clock { color: Some(c), .. }
                if p.moves.last().is_some_and(|m| m.color == *c) =>
            {
                p.pressed = true;
            }
            Event::GameOver { .. } => p.over = true,
            _ => {}
        }
    }
    p
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

/// The index in `actions` (the simulator's, in order) from which the game of `past` (the
/// journal's current game, from its `game_started`) goes on; `actions.len()` when
/// nothing is left. An error says why the journal's game is not the simulator's.
pub fn resume_point(actions: &[TimedAction], past: &[Envelope]) -> Result<usize, String> {
    let p = progress(past);
    if !p.started {
        return Err("the journal holds no game_started".into());
    }
    if p.over {
        return Ok(actions.len());
    }
    let mut cursor = 0;
    let mut last = None;
    for (n, m) in p.moves.iter().enumerate() {
        let found = (cursor..actions.len()).find(|&i| is_move(&actions[i].action, m));
        let Some(i) = found else {
            return Err(format!(
                "move {} ({} {}) is not in the simulator's game",
                n + 1,
                m.color,
                m.point.as_deref().unwrap_or("pass")
            ));
        };
        if let Some(j) =
            (cursor..i).find(|&j| actions[j].violation.is_none() && places(&actions[j].action))
        {
            return Err(format!(
                "move {} ({} {}) comes after an unrecorded stone in the simulator's game (action {})",
                n + 1,
                m.color,
                m.point.as_deref().unwrap_or("pass"),
                j + 1
            ));
        }
        cursor = i + 1;
        last = Some((i, m));
    }
    let Some((i, m)) = last else {
        return Ok(0);
    };
    let mut k = if m.point.is_none() {
        i + 1
    } else if p.pressed {
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
    use tengen_sim::{SimOptions, Simulation};

    use crate::event::test_envelope as env;

    const SCRIPT: &str = "size 9\nplace B C3\npress B\nplace W G7\npress W\nplace B E5\npress B\n";

    fn started() -> Event {
        crate::event::test_game_started(9)
    }

    fn mv(number: u32, color: Color, point: &str) -> Event {
        Event::Move {
            number,
            color,
            point: point.into(),
            captured: vec![],
            clock: None,
        }
    }

    fn press(color: Color) -> Event {
        Event::Clock {
            color: Some(color),
            black: 0,
            white: 0,
            periods: crate::event::PerColor { black: 0, white: 0 },
            running: Some(color.opponent()),
        }
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
        let mut past = vec![env(1, started())];
        assert_eq!(resume_point(&a, &past), Ok(0));
        past.push(env(2, mv(1, Color::Black, "C3")));
        assert_eq!(resume_point(&a, &past), Ok(1), "B's press is still to come");
        past.push(env(3, press(Color::Black)));
        assert_eq!(resume_point(&a, &past), Ok(2));
        past.push(env(4, mv(2, Color::White, "G7")));
        past.push(env(5, press(Color::White)));
        past.push(env(6, mv(3, Color::Black, "E5")));
        past.push(env(7, press(Color::Black)));
        assert_eq!(resume_point(&a, &past), Ok(a.len()), "nothing left");
    }

    #[test]
    fn a_finished_game_stays_finished_and_a_foreign_one_is_refused() {
        let a = actions();
        let over = crate::event::test_resignation("W+R");
        let past = vec![env(1, started()), env(2, over)];
        assert_eq!(resume_point(&a, &past), Ok(a.len()));
        let past = vec![env(1, started()), env(2, mv(1, Color::Black, "D4"))];
        let e = resume_point(&a, &past).unwrap_err();
        assert!(e.contains("move 1 (B D4)"), "{e}");
        let past = vec![env(1, started()), env(2, mv(1, Color::Black, "E5"))];
        let e = resume_point(&a, &past).unwrap_err();
        assert!(e.contains("unrecorded stone"), "{e}");
        assert!(resume_point(&a, &[]).is_err());
    }
}
