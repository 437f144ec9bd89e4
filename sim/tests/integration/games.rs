//! SGF games played by the simulated players: the true board ends as the game ended
//! (sgfmill's final position is the oracle), captures are lifted before each press, the
//! ending is played as players play it, and injected violations happen as asked.

use crate::common;

use common::{pt, rows, run, state_of, states};
use tengen_hal::{Button, ButtonAction, PointState};
use tengen_rules::sgf::{parse, GameRecord};
use tengen_rules::{Color, Game, Move, Superko};
use tengen_sim::side::lower_right_region;
use tengen_sim::{
    Action, GameError, GameInput, GameOptions, Side, SimOptions, Simulation, ThinkTime, Violation,
    ViolationKind,
};

fn fixture(name: &str) -> (GameRecord, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
    let sgf = std::fs::read_to_string(format!("{dir}{name}.sgf")).unwrap();
    let fin = std::fs::read_to_string(format!("{dir}{name}.final")).unwrap();
    (parse(&sgf).unwrap(), fin)
}

fn brisk() -> GameOptions {
    GameOptions {
        think: ThinkTime::brisk(),
        ..GameOptions::default()
    }
}

#[test]
fn games_end_in_their_final_position_on_the_true_board_and_the_sensors() {
    for name in ["even9_a", "even9_b", "even9_c", "handicap9", "even13"] {
        let (record, expected) = fixture(name);
        let mut sim = Simulation::from_sgf(&record, &SimOptions::seeded(3), &brisk()).unwrap();
        let size = record.size;
        assert_eq!(rows(sim.final_board(), size), expected, "{name}");
        let (frames, buttons) = run(&mut sim);
        assert_eq!(rows(sim.true_board(), size), expected, "{name}");
        let last = frames.last().unwrap();
        for (i, s) in states(last).iter().enumerate() {
            assert_eq!(*s, state_of(sim.true_board()[i]), "{name} point {i}");
        }
        // One press per move (passes included), then one by each side to confirm.
        let presses: Vec<Button> = buttons
            .iter()
            .filter(|b| b.action == ButtonAction::Press)
            .map(|b| b.button)
            .collect();
        assert_eq!(presses.len(), record.moves.len() + 2, "{name}");
        let last_two = &presses[presses.len() - 2..];
        assert!(last_two.contains(&Button::Black) && last_two.contains(&Button::White));
    }
}

/// The true board at a time, replaying a fresh copy of the same simulation.
fn board_at(
    record: &GameRecord,
    options: &SimOptions,
    play: &GameOptions,
    t: u64,
) -> Vec<Option<Color>> {
    let mut s = Simulation::from_sgf(record, options, play).unwrap();
    s.advance_to(t);
    s.true_board().to_vec()
}

#[test]
fn every_press_finds_the_board_as_the_rules_have_it() {
    let (record, _) = fixture("even9_a");
    let options = SimOptions::seeded(11);
    let play = brisk();
    let sim = Simulation::from_sgf(&record, &options, &play).unwrap();
    let mut game = Game::new(9, Superko::Situational).unwrap();
    let presses: Vec<_> = sim
        .actions()
        .iter()
        .filter(|a| matches!(a.action, Action::Press { .. }) && a.move_number.is_some())
        .cloned()
        .collect();
    assert_eq!(presses.len(), record.moves.len());
    let mut total_captures = 0;
    for (press, m) in presses.iter().zip(&record.moves) {
        let played = game.play_as(m.color, m.mv).unwrap();
        total_captures += played.captured.len();
        let board = board_at(&record, &options, &play, press.end);
        for (i, stone) in board.iter().enumerate() {
            let p = tengen_rules::Point::from_index(i, 9);
            assert_eq!(
                *stone,
                game.board().get(p),
                "move {:?} point {p}",
                press.move_number
            );
        }
    }
    assert!(total_captures > 0, "the fixture has captures");
}

#[test]
fn thinking_follows_the_pace_asked_for() {
    let (record, _) = fixture("even13");
    let gaps = |think: ThinkTime| {
        let play = GameOptions {
            think,
            ..GameOptions::default()
        };
        let sim = Simulation::from_sgf(&record, &SimOptions::seeded(4), &play).unwrap();
        let mut waits: Vec<u64> = sim
            .actions()
            .iter()
            .zip(sim.actions().iter().skip(1))
            .filter(|(_, b)| b.move_number.is_some() && matches!(b.action, Action::Place { .. }))
            .map(|(a, b)| b.start - a.end)
            .collect();
        waits.sort();
        waits[waits.len() / 2]
    };
    let brisk = gaps(ThinkTime::brisk());
    let human = gaps(ThinkTime::human());
    // The gap before a stone is the think plus the pause after the previous press.
    assert!((600..1400).contains(&brisk), "brisk median gap {brisk}");
    assert!((3500..6500).contains(&human), "human median gap {human}");
}

#[test]
fn resignation_is_two_stones_in_the_losers_corner_then_their_press() {
    let (record, before) = fixture("resign9");
    assert_eq!(record.result.as_deref(), Some("W+R"));
    for side in [Side::South, Side::North, Side::East] {
        let options = SimOptions {
            black_side: side,
            ..SimOptions::seeded(5)
        };
        let mut sim = Simulation::from_sgf(&record, &options, &brisk()).unwrap();
        let (_, buttons) = run(&mut sim);
        let final_rows = rows(sim.final_board(), 9);
        let added: Vec<_> = (0..81)
            .filter(|i| {
                final_rows.replace('\n', "").as_bytes()[*i]
                    != before.replace('\n', "").as_bytes()[*i]
            })
            .map(|i| tengen_rules::Point::from_index(i, 9))
            .collect();
        assert_eq!(added.len(), 2, "{side}");
        let region = lower_right_region(Color::Black, side, 9, 4);
        for p in &added {
            assert_eq!(sim.truth(*p), Some(Color::Black));
            assert!(region.contains(p), "{side}: {p}");
        }
        let together = sim
            .actions()
            .iter()
            .find(|a| matches!(a.action, Action::PlaceTogether { .. }))
            .unwrap();
        assert!(together.end - together.start < 300);
        let last_press = buttons
            .iter()
            .rev()
            .find(|b| b.action == ButtonAction::Press)
            .unwrap();
        assert_eq!(last_press.button, Button::Black);
        assert!(last_press.time > together.end);
    }
    // South: Black's lower right is the J1 corner of a 9x9 board.
    let sim = Simulation::from_sgf(&record, &SimOptions::seeded(5), &brisk()).unwrap();
    let j1 = pt("J1", 9);
    assert!(sim.final_board()[j1.index(9)].is_some());
}

fn violation_sim(kind: ViolationKind, at_move: usize) -> (GameRecord, String, Simulation) {
    let (record, expected) = fixture("even9_a");
    let play = GameOptions {
        violations: vec![Violation { at_move, kind }],
        ..brisk()
    };
    let sim = Simulation::from_sgf(&record, &SimOptions::seeded(7), &play).unwrap();
    (record, expected, sim)
}

#[test]
fn a_captured_stone_left_at_the_press_is_lifted_after_it() {
    let (record, expected, mut sim) = violation_sim(ViolationKind::LeaveCapture, 1);
    let late = sim
        .actions()
        .iter()
        .find(|a| a.violation == Some(ViolationKind::LeaveCapture))
        .cloned()
        .unwrap();
    let Action::Lift { point } = late.action else {
        panic!("{late:?}")
    };
    let n = late.move_number.unwrap();
    let press = sim
        .actions()
        .iter()
        .find(|a| a.move_number == Some(n) && matches!(a.action, Action::Press { .. }))
        .cloned()
        .unwrap();
    assert!(press.end < late.start);
    // At the press the captured stone is still there; afterwards it is gone.
    let mut probe = Simulation::from_sgf(
        &record,
        &SimOptions::seeded(7),
        &GameOptions {
            violations: vec![Violation {
                at_move: 1,
                kind: ViolationKind::LeaveCapture,
            }],
            ..brisk()
        },
    )
    .unwrap();
    probe.advance_to(press.end);
    assert!(probe.truth(point).is_some());
    run(&mut sim);
    assert_eq!(rows(sim.final_board(), 9), expected);
    assert_eq!(
        sim.actions()
            .iter()
            .filter(|a| a.violation.is_some())
            .count(),
        1
    );
}

#[test]
fn a_double_move_and_a_moved_stone_are_undone_and_the_game_goes_on() {
    for kind in [ViolationKind::DoubleMove, ViolationKind::MoveStone] {
        let (_, expected, mut sim) = violation_sim(kind, 10);
        let marked: Vec<_> = sim
            .actions()
            .iter()
            .filter(|a| a.violation == Some(kind))
            .cloned()
            .collect();
        assert_eq!(marked.len(), 2, "{kind:?}: the violation and its undoing");
        assert!(marked.iter().all(|a| a.move_number == Some(10)));
        match (&marked[0].action, &marked[1].action, kind) {
            (Action::Place { point, .. }, Action::Lift { point: q }, ViolationKind::DoubleMove) => {
                assert_eq!(point, q)
            }
            (
                Action::Slide { from, to },
                Action::Slide { from: f2, to: t2 },
                ViolationKind::MoveStone,
            ) => {
                assert_eq!((from, to), (t2, f2));
                let d = from.col.abs_diff(to.col) + from.row.abs_diff(to.row);
                assert_eq!(d, 1, "a neighbouring point");
            }
            other => panic!("{other:?}"),
        }
        // The extra stone stays long enough to be seen (well past the stable time).
        assert!(marked[1].start - marked[0].end >= 2000);
        let (frames, _) = run(&mut sim);
        assert_eq!(rows(sim.final_board(), 9), expected, "{kind:?}");
        let last = frames.last().unwrap();
        assert!(states(last).iter().all(|s| *s != PointState::Unknown));
    }
}

#[test]
fn an_illegal_record_is_refused_with_the_move_number() {
    let mut record = GameRecord::new(9);
    let d4 = pt("D4", 9);
    for (c, m) in [
        (Color::Black, Move::Play(d4)),
        (Color::White, Move::Play(d4)),
    ] {
        record
            .moves
            .push(tengen_rules::sgf::RecordedMove::new(c, m));
    }
    let err = Simulation::from_sgf(&record, &SimOptions::default(), &brisk()).unwrap_err();
    assert!(
        matches!(err, GameError::IllegalMove { number: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().starts_with("move 2 (W D4): "), "{err}");
}

#[test]
fn a_violation_nothing_allows_is_an_error() {
    let game = GameInput {
        size: 9,
        moves: vec![(Color::Black, Move::Play(pt("E5", 9)))],
        ..GameInput::default()
    };
    let play = GameOptions {
        violations: vec![Violation {
            at_move: 1,
            kind: ViolationKind::LeaveCapture,
        }],
        ..brisk()
    };
    let err = Simulation::from_game(&game, &SimOptions::default(), &play).unwrap_err();
    assert!(matches!(err, GameError::Violation { .. }), "{err}");
}

#[test]
fn dead_stones_are_lifted_before_the_confirmation() {
    let (record, _) = fixture("even9_a");
    let mut game = GameInput::from_record(&record);
    let plain = Simulation::from_game(&game, &SimOptions::seeded(1), &brisk()).unwrap();
    let stones: Vec<_> = (0..81)
        .filter(|i| plain.final_board()[*i].is_some())
        .map(|i| tengen_rules::Point::from_index(i, 9))
        .take(2)
        .collect();
    game.dead = stones.clone();
    let sim = Simulation::from_game(&game, &SimOptions::seeded(1), &brisk()).unwrap();
    for p in &stones {
        assert_eq!(sim.final_board()[p.index(9)], None);
    }
    let tail: Vec<_> = sim.actions()[sim.actions().len() - 4..]
        .iter()
        .map(|a| a.action.clone())
        .collect();
    let mut lifted: Vec<_> = tail[..2]
        .iter()
        .map(|a| match a {
            Action::Lift { point } => *point,
            other => panic!("{other:?}"),
        })
        .collect();
    lifted.sort();
    assert_eq!(lifted, stones);
    assert!(tail[2..].iter().all(|a| matches!(a, Action::Press { .. })));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    #[test]
    fn random_legal_games_end_on_the_rules_board(
        choices in proptest::collection::vec(0u16..1000, 0..80),
        seed in 0u64..1000,
    ) {
        let size = 7;
        let mut game = Game::new(size, Superko::Situational).unwrap();
        let mut moves = Vec::new();
        for c in choices {
            let color = game.to_move();
            let legal = game.legal_moves(color);
            let mv = if legal.is_empty() || c % 20 == 0 {
                Move::Pass
            } else {
                Move::Play(legal[c as usize % legal.len()])
            };
            game.play_as(color, mv).unwrap();
            moves.push((color, mv));
        }
        let input = GameInput { size, moves, ..GameInput::default() };
        let play = GameOptions { finish: false, ..brisk() };
        let mut sim = Simulation::from_game(&input, &SimOptions::seeded(seed), &play).unwrap();
        let (frames, buttons) = run(&mut sim);
        for (i, stone) in sim.final_board().iter().enumerate() {
            let p = tengen_rules::Point::from_index(i, size);
            proptest::prop_assert_eq!(*stone, game.board().get(p));
            proptest::prop_assert_eq!(states(frames.last().unwrap())[i], state_of(*stone));
        }
        let presses = buttons.iter().filter(|b| b.action == ButtonAction::Press).count();
        proptest::prop_assert_eq!(presses, input.moves.len());
    }
}
