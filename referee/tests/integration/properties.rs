//! Property test: any random sequence of physical actions (stones set down and lifted by
//! either side, presses, slides, hovers, knocks, waits) never panics the pipeline, and the
//! recorded game is always legal: it replays move by move through the rules core; and the
//! referee is event-sourced: folding its events gives exactly the game it holds.

use crate::common;
use proptest::prelude::*;

use tengen_protocol::Timestamp;
use tengen_referee::RefereeSettings;
use tengen_rules::clock::TimeControl;
use tengen_rules::{Color, Game, Point, Superko};
use tengen_sim::{SimOptions, Simulation};

const SIZE: u8 = 5;

#[derive(Debug, Clone)]
enum Act {
    Place(bool, u8),
    Lift(u8),
    Press(bool),
    Slide(u8, u8),
    Hover(u8),
    Knock(u8),
    Wait(u16),
}

fn act() -> impl Strategy<Value = Act> {
    let n = SIZE * SIZE;
    prop_oneof![
        6 => (any::<bool>(), 0..n).prop_map(|(b, p)| Act::Place(b, p)),
        3 => (0..n).prop_map(Act::Lift),
        4 => any::<bool>().prop_map(Act::Press),
        1 => (0..n, 0..4u8).prop_map(|(p, d)| Act::Slide(p, d)),
        1 => (0..n).prop_map(Act::Hover),
        1 => (2..8u8).prop_map(Act::Knock),
        2 => (10..3000u16).prop_map(Act::Wait),
    ]
}

/// Turns actions into a script the simulator accepts (placing only on empty points,
/// lifting only stones), tracking the true board.
fn script(acts: &[Act]) -> String {
    let mut board = vec![None::<Color>; (SIZE as usize) * (SIZE as usize)];
    let pt = |i: u8| Point::from_index(i as usize, SIZE);
    let mut s = format!("size {SIZE}\ntime byoyomi 1m 2x10s\n");
    let mut knocked = false;
    for a in acts {
        match *a {
            Act::Place(black, i) if !knocked && board[i as usize].is_none() => {
                let c = if black { Color::Black } else { Color::White };
                board[i as usize] = Some(c);
                s += &format!("place {} {}\n", c.letter(), pt(i));
            }
            Act::Lift(i) if !knocked && board[i as usize].is_some() => {
                board[i as usize] = None;
                s += &format!("lift {}\n", pt(i));
            }
            Act::Press(black) => s += &format!("press {}\n", if black { "B" } else { "W" }),
            Act::Slide(i, d) if !knocked && board[i as usize].is_some() => {
                let p = pt(i);
                let (dc, dr) = [(1i8, 0i8), (-1, 0), (0, 1), (0, -1)][d as usize];
                let (c, r) = (p.col as i8 + dc, p.row as i8 + dr);
                if (0..SIZE as i8).contains(&c) && (0..SIZE as i8).contains(&r) {
                    let q = Point::new(c as u8, r as u8);
                    let j = q.index(SIZE);
                    if board[j].is_none() {
                        board[j] = board[i as usize].take();
                        s += &format!("slide {p} {q}\n");
                    }
                }
            }
            Act::Hover(i) => s += &format!("hover {} 200ms\n", pt(i)),
            Act::Knock(n) if board.iter().flatten().count() >= n as usize => {
                // After a knock the true board is the simulator's business: stop tracking.
                knocked = true;
                s += &format!("knock {n}\n");
            }
            Act::Wait(ms) => s += &format!("wait {ms}ms\n"),
            _ => {}
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_physical_actions_never_panic_and_the_record_is_legal(
        acts in proptest::collection::vec(act(), 1..40),
        seed in 0u64..1000,
        noise in prop_oneof![Just(0.0), Just(0.002)],
    ) {
        let text = script(&acts);
        let mut options = SimOptions::seeded(seed);
        options.noise = noise;
        options.size = SIZE;
        let mut sim = Simulation::from_script(&text, &options).expect("generated script is valid");
        let mut settings = RefereeSettings::default();
        settings.game.size = SIZE;
        settings.game.time_control = TimeControl::parse("byoyomi 1m 2x10s").expect("tc");
        let run = common::run(&mut sim, settings);
        let referee = run.pipeline.referee();
        let record = referee.view().sgf_record(true).expect("a game");
        // Event-sourced: the fold of what the referee said is what the referee holds.
        let end = Timestamp::from_millis(sim.now());
        let folded = run.view();
        prop_assert_eq!(folded.snapshot(end), referee.view().snapshot(end), "in\n{}", text);
        prop_assert_eq!(folded.sgf(true), referee.view().sgf(true));
        let mut game = Game::new(SIZE, Superko::Situational).expect("game");
        for (i, m) in record.moves.iter().enumerate() {
            prop_assert!(game.play_as(m.color, m.mv).is_ok(), "move {} {:?} illegal in\n{}", i + 1, m, text);
        }
        prop_assert_eq!(game.board().to_rows(), referee.view().game().expect("a game").board().to_rows());
        // Alternation: a stone move is always by the side to move (passes alternate too).
        let mut expect = Color::Black;
        for m in &record.moves {
            prop_assert_eq!(m.color, expect, "out of turn in\n{}", text);
            expect = m.color.opponent();
        }
    }
}
