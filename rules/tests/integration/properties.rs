//! Invariants over random legal sequences (proptest), and the naive flood-fill reference
//! (`common/naive.rs`) as a second oracle on random games: same legal moves every turn,
//! same captures, same boards. Also the collision test: a game whose Zobrist keys are all
//! zero (every position collides) must give exactly the same answers.

use crate::common;

use common::naive::{chain, Naive};
use common::Rng;
use proptest::prelude::*;
use tengen_rules::{Board, Color, Game, Move, Point, Superko};

/// The grid of a board in `Point::index` order, as the naive code keeps it.
fn grid(b: &Board) -> Vec<Option<Color>> {
    let n = b.size() as usize * b.size() as usize;
    (0..n)
        .map(|k| b.get(Point::from_index(k, b.size())))
        .collect()
}

/// Picks a move from `choice`: a pass now and then, otherwise a legal point.
fn pick(legal: &[Point], choice: u16) -> Move {
    if legal.is_empty() || choice % 23 == 0 {
        Move::Pass
    } else {
        Move::Play(legal[choice as usize % legal.len()])
    }
}

fn superko_strategy() -> impl Strategy<Value = Superko> {
    prop_oneof![Just(Superko::Situational), Just(Superko::Positional)]
}

/// Everything the undo test compares.
fn snapshot(
    g: &Game,
) -> (
    String,
    u64,
    Color,
    u32,
    u32,
    u32,
    u32,
    Vec<Point>,
    Vec<Point>,
) {
    (
        g.board().to_rows(),
        g.board().hash(),
        g.to_move(),
        g.prisoners(Color::Black),
        g.prisoners(Color::White),
        g.move_number(),
        g.consecutive_passes(),
        g.legal_moves(Color::Black),
        g.legal_moves(Color::White),
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn invariants_hold_after_any_legal_sequence(
        size in 2u8..=7,
        sk in superko_strategy(),
        choices in prop::collection::vec(any::<u16>(), 1..160),
        probes in prop::collection::vec((any::<u8>(), any::<u8>(), any::<bool>()), 160),
    ) {
        let mut g = Game::new(size, sk).unwrap();
        let mut placed = 0u32;
        let mut snapshots = vec![snapshot(&g)];
        for (k, &choice) in choices.iter().enumerate() {
            // is_legal agrees with play succeeding, and captures_of with what play removes,
            // for any point and colour (legal or not).
            let (pc, pr, white) = probes[k];
            let probe = Point::new(pc % size, pr % size);
            let color = if white { Color::White } else { Color::Black };
            let mut trial = g.clone();
            let played = trial.play_as(color, Move::Play(probe));
            prop_assert_eq!(g.is_legal(color, Move::Play(probe)), played.is_ok());
            prop_assert_eq!(
                g.captures_of(color, probe),
                played.map(|p| p.captured)
            );

            let legal = g.legal_moves(g.to_move());
            let mv = pick(&legal, choice);
            g.play(mv).unwrap();
            if mv != Move::Pass {
                placed += 1;
            }
            let b = g.board();
            // No chain without liberties.
            let cells = grid(b);
            for (p, _) in b.stones() {
                prop_assert!(chain(&cells, size, p).1 > 0, "chain at {} has no liberty", p);
            }
            // Incremental hash == hash from scratch.
            prop_assert_eq!(b.hash(), b.hash_from_scratch());
            // Stones placed - stones captured == stones on the board.
            let captured = g.prisoners(Color::Black) + g.prisoners(Color::White);
            prop_assert_eq!(
                (placed - captured) as usize,
                b.count(Color::Black) + b.count(Color::White)
            );
            snapshots.push(snapshot(&g));
        }
        // Undo restores every earlier state exactly.
        snapshots.pop();
        while let Some(want) = snapshots.pop() {
            prop_assert!(g.undo().is_some());
            prop_assert_eq!(snapshot(&g), want);
            prop_assert_eq!(g.board().hash(), g.board().hash_from_scratch());
        }
        prop_assert!(g.undo().is_none());
    }

    #[test]
    fn naive_reference_and_colliding_hash_agree_every_turn(
        size in 2u8..=6,
        sk in superko_strategy(),
        choices in prop::collection::vec(any::<u16>(), 1..150),
    ) {
        let mut g = Game::new(size, sk).unwrap();
        let mut collide = Game::with_degenerate_hash(size, sk).unwrap();
        let mut naive = Naive::new(size, sk);
        for &choice in &choices {
            let color = g.to_move();
            let legal = g.legal_moves(color);
            prop_assert_eq!(&legal, &naive.legal(color));
            prop_assert_eq!(&legal, &collide.legal_moves(color));
            let mv = pick(&legal, choice);
            let a = g.play(mv).unwrap();
            let c = collide.play(mv).unwrap();
            let n = naive.play(color, mv.point()).unwrap();
            prop_assert_eq!(&a.captured, &n);
            prop_assert_eq!(&a, &c);
            prop_assert_eq!(g.board().to_rows(), naive.rows());
        }
    }
}

/// Longer random games on 9x9 against the naive reference, including illegal attempts:
/// every reason (occupied, suicide, ko, superko) must be the same.
#[test]
fn long_random_games_match_the_naive_reference() {
    let mut reasons = std::collections::BTreeMap::new();
    for (seed, sk) in [
        (1u64, Superko::Situational),
        (2, Superko::Positional),
        (3, Superko::Situational),
    ] {
        let size = 9;
        let mut rng = Rng(seed);
        let mut g = Game::new(size, sk).unwrap();
        let mut naive = Naive::new(size, sk);
        for _ in 0..400 {
            let color = g.to_move();
            // A few random attempts, legal or not: same verdict and reason.
            for _ in 0..4 {
                let p = Point::new(rng.below(9) as u8, rng.below(9) as u8);
                let mine = g.captures_of(color, p);
                let theirs = naive.try_move(color, p).map(|(_, caps)| caps);
                assert_eq!(mine, theirs, "{color} {p}\n{g:?}");
                if let Err(e) = mine {
                    *reasons.entry(e.as_str()).or_insert(0) += 1;
                }
            }
            let legal = g.legal_moves(color);
            assert_eq!(legal, naive.legal(color));
            // Random play that does not fill its own single-point eyes, so games last.
            let good: Vec<Point> = legal
                .iter()
                .copied()
                .filter(|&p| !own_eye(g.board(), color, p))
                .collect();
            let mv = if good.is_empty() {
                Move::Pass
            } else {
                Move::Play(good[rng.below(good.len())])
            };
            let caps = g.play(mv).unwrap().captured;
            assert_eq!(caps, naive.play(color, mv.point()).unwrap());
            assert_eq!(g.board().to_rows(), naive.rows());
        }
    }
    // The games did exercise the rules that reject moves.
    for r in ["occupied", "suicide"] {
        assert!(
            reasons.get(r).copied().unwrap_or(0) > 0,
            "no '{r}' seen: {reasons:?}"
        );
    }
}

/// True when every on-board neighbour of `p` is a stone of `c`.
fn own_eye(b: &Board, c: Color, p: Point) -> bool {
    let s = b.size() as i16;
    [(-1i16, 0i16), (1, 0), (0, -1), (0, 1)]
        .iter()
        .all(|(dc, dr)| {
            let (col, row) = (p.col as i16 + dc, p.row as i16 + dr);
            col < 0
                || row < 0
                || col >= s
                || row >= s
                || b.get(Point::new(col as u8, row as u8)) == Some(c)
        })
}

/// Random 5x5 games are dense in kos and repetition bans: count the verdicts where the
/// two superko rules disagree and check both implementations see the same ones,
/// including bans of moves that capture nothing.
#[test]
fn superko_bans_including_non_capturing_repetitions_match_the_reference() {
    let mut bans = 0;
    let mut non_capturing_bans = 0;
    for seed in 0..60u64 {
        for sk in [Superko::Situational, Superko::Positional] {
            let mut rng = Rng(seed * 2 + (sk == Superko::Positional) as u64);
            let mut g = Game::new(5, sk).unwrap();
            let mut naive = Naive::new(5, sk);
            for _ in 0..300 {
                let color = g.to_move();
                for col in 0..5 {
                    for row in 0..5 {
                        let p = Point::new(col, row);
                        let mine = g.captures_of(color, p);
                        assert_eq!(mine, naive.try_move(color, p).map(|(_, c)| c));
                        if mine == Err(tengen_rules::Illegal::Superko) {
                            bans += 1;
                            let (grid2, _) = common::naive::after_move(&naive.grid, 5, color, p)
                                .expect("a superko ban is not suicide");
                            let stones = |g: &Vec<Option<Color>>| g.iter().flatten().count();
                            if stones(&grid2) == stones(&naive.grid) + 1 {
                                non_capturing_bans += 1;
                            }
                        }
                    }
                }
                let legal = g.legal_moves(color);
                let mv = if legal.is_empty() || rng.below(30) == 0 {
                    Move::Pass
                } else {
                    Move::Play(legal[rng.below(legal.len())])
                };
                assert_eq!(
                    g.play(mv).unwrap().captured,
                    naive.play(color, mv.point()).unwrap()
                );
            }
        }
    }
    assert!(bans > 50, "only {bans} superko bans");
    assert!(
        non_capturing_bans > 0,
        "no non-capturing repetition was seen"
    );
    println!("superko bans: {bans}, of which non-capturing: {non_capturing_bans}");
}
