//! Made-up games for rehearsals (`GameInput::generated`) and the violations a rehearsal
//! draws (`Violation::draw`): every move legal by the rules core, the length and the
//! ending as promised, the pairing's handicap set up, the same seed the same game, and each
//! game played through by the simulated players, resignation gesture included.

use crate::common;

use common::run;
use tengen_hal::{Button, ButtonAction};
use tengen_rules::{handicap_points, Color, Game, Move, Superko};
use tengen_sim::side::lower_right_region;
use tengen_sim::{
    Action, GameInput, GameOptions, GeneratedSetup, Side, SimOptions, Simulation, ThinkTime,
    Violation, ViolationKind, GENERATED_MOVES,
};

fn setup(size: u8, handicap: u8, seed: u64) -> GeneratedSetup {
    GeneratedSetup {
        size,
        handicap,
        komi: if handicap >= 2 { 0.5 } else { 7.5 },
        seed,
    }
}

/// Replays `game` through the rules core from its setup: every move must be legal.
fn replay(game: &GameInput) -> Game {
    let first = game.moves.first().map_or(Color::Black, |(c, _)| *c);
    let mut rules = Game::with_setup(
        game.size,
        &game.black_setup,
        &game.white_setup,
        first,
        Superko::Situational,
    )
    .unwrap();
    for (i, (c, m)) in game.moves.iter().enumerate() {
        rules
            .play_as(*c, *m)
            .unwrap_or_else(|e| panic!("move {} ({c} {}): {}", i + 1, m.to_gtp(), e.as_str()));
    }
    rules
}

#[test]
fn made_up_games_are_legal_of_the_promised_length_and_end_as_their_result_says() {
    let mut resigned = 0;
    let mut counted = 0;
    for seed in 0..40 {
        let game = GameInput::generated(&setup(19, 0, seed)).unwrap();
        assert!(
            GENERATED_MOVES.contains(&game.moves.len()),
            "seed {seed}: {} moves",
            game.moves.len()
        );
        assert_eq!(game.moves[0].0, Color::Black, "Black first in an even game");
        let rules = replay(&game);
        let result = game.result.clone().unwrap();
        let passes = game.moves[game.moves.len() - 2..]
            .iter()
            .all(|(_, m)| *m == Move::Pass);
        if result.ends_with("+R") {
            resigned += 1;
            assert!(!passes, "seed {seed}: a resigned game ends on a stone");
        } else {
            counted += 1;
            assert!(passes, "seed {seed}: {result} without two passes");
            let score = tengen_rules::score(
                rules.board(),
                &[],
                &tengen_rules::ScoreRules {
                    komi_points: 7.5,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(result, score.result, "seed {seed}");
        }
        // The 2x2 corner squares stay free for the resignation stones.
        for (p, _) in rules.board().stones() {
            let edge = |v: u8| !(2..=16).contains(&v);
            assert!(
                !(edge(p.col) && edge(p.row)),
                "seed {seed}: a stone on {p:?}"
            );
        }
    }
    assert!(
        resigned > 5 && counted > 5,
        "{resigned} resigned, {counted} counted"
    );
    assert_eq!(
        GameInput::generated(&setup(19, 0, 7)).unwrap(),
        GameInput::generated(&setup(19, 0, 7)).unwrap(),
        "the same seed, the same game"
    );
    assert_ne!(
        GameInput::generated(&setup(19, 0, 7)).unwrap(),
        GameInput::generated(&setup(19, 0, 8)).unwrap()
    );
}

#[test]
fn a_made_up_handicap_game_has_its_stones_on_the_star_points_and_white_first() {
    for handicap in [2, 3, 7, 9] {
        let game = GameInput::generated(&setup(19, handicap, 11)).unwrap();
        assert_eq!(game.handicap, handicap);
        let mut stars = handicap_points(19, handicap).unwrap();
        let mut set = game.black_setup.clone();
        stars.sort();
        set.sort();
        assert_eq!(set, stars);
        assert_eq!(game.moves[0].0, Color::White);
        replay(&game);
    }
    // OpenGotha's handicap 1 (taking Black) has no stones.
    let game = GameInput::generated(&setup(19, 1, 11)).unwrap();
    assert_eq!((game.handicap, game.black_setup.len()), (0, 0));
    assert_eq!(game.moves[0].0, Color::Black);
}

#[test]
fn the_simulated_players_play_a_made_up_game_to_its_end_wherever_they_sit() {
    let play = GameOptions {
        think: ThinkTime::brisk(),
        ..GameOptions::default()
    };
    for (seed, side) in [
        (1, Side::South),
        (2, Side::North),
        (3, Side::East),
        (4, Side::West),
    ] {
        for handicap in [0, 4] {
            let game = GameInput::generated(&setup(19, handicap, seed)).unwrap();
            let options = SimOptions {
                black_side: side,
                ..SimOptions::seeded(seed)
            };
            let mut sim = Simulation::from_game(&game, &options, &play).unwrap();
            let result = game.result.clone().unwrap();
            if let Some(winner) = result.strip_suffix("+R") {
                let loser = if winner == "B" {
                    Color::White
                } else {
                    Color::Black
                };
                let last_place = sim
                    .actions()
                    .iter()
                    .rev()
                    .find_map(|a| match &a.action {
                        Action::PlaceTogether { color, points } => Some((*color, points.clone())),
                        _ => None,
                    })
                    .expect("the resignation gesture");
                assert_eq!(last_place.0, loser);
                let region = lower_right_region(loser, side, 19, 4);
                assert!(last_place.1.iter().all(|p| region.contains(p)));
            }
            let (_, buttons) = run(&mut sim);
            let presses = buttons
                .iter()
                .filter(|b| b.action == ButtonAction::Press)
                .count();
            assert!(
                presses >= game.moves.len(),
                "seed {seed}: {presses} presses"
            );
            assert!(buttons.iter().any(|b| b.button == Button::White));
        }
    }
}

#[test]
fn violations_are_drawn_with_their_probability_and_each_can_be_played() {
    let play = |violations: Vec<Violation>| GameOptions {
        think: ThinkTime::brisk(),
        violations,
        ..GameOptions::default()
    };
    let mut kinds = std::collections::BTreeSet::new();
    let mut drawn = 0;
    for seed in 0..60 {
        let game = GameInput::generated(&setup(19, 0, seed)).unwrap();
        assert_eq!(Violation::draw(&game, 0.0, seed), None);
        let v = Violation::draw(&game, 1.0, seed).expect("P = 1 always breaks a rule");
        assert_eq!(
            Violation::draw(&game, 1.0, seed),
            Some(v),
            "drawn from the seed"
        );
        let n = game.moves.len();
        assert!(v.at_move >= 1 && v.at_move <= n, "{v:?} of {n}");
        kinds.insert(format!("{:?}", v.kind));
        let sim = Simulation::from_game(&game, &SimOptions::seeded(seed), &play(vec![v]))
            .unwrap_or_else(|e| panic!("seed {seed}: {v:?}: {e}"));
        let injected: Vec<ViolationKind> =
            sim.actions().iter().filter_map(|a| a.violation).collect();
        assert!(injected.contains(&v.kind), "seed {seed}: {v:?} not played");
        if Violation::draw(&game, 0.5, seed).is_some() {
            drawn += 1;
        }
    }
    assert_eq!(kinds.len(), 3, "every kind is drawn: {kinds:?}");
    assert!((15..=45).contains(&drawn), "P = 0.5: {drawn} of 60");
}

#[test]
fn a_made_up_game_written_as_sgf_reads_back_the_same() {
    let game = GameInput::generated(&setup(19, 3, 5)).unwrap();
    let text = tengen_rules::sgf::write(&game.to_record());
    let back = GameInput::from_record(&tengen_rules::sgf::parse(&text).unwrap());
    assert_eq!(back, game);
}
