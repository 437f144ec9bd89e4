//! One test (or a few) per article of docs/rules.md that the rules core decides: captures
//! (Art. 4), suicide (Art. 5), ko and whole-board repetition (Art. 6, 18.3, 20), passes
//! (Art. 7), handicap placement, and counting with komi, handicap and warnings (Art. 9,
//! 11, 24), including every example at the end of docs/rules.md.

use crate::common;

use common::{gtp, naive::Naive, play, pt, setup};
use tengen_rules::{
    handicap_points, score, Board, Color, Game, Illegal, Move, Point, ScoreError, ScoreRules,
    Superko,
};

const BOTH: [Superko; 2] = [Superko::Situational, Superko::Positional];

// ----- Art. 2, 7: turns and passes -------------------------------------------------------

#[test]
fn black_moves_first_and_turns_alternate_passes_end_play() {
    let mut g = Game::new(9, Superko::default()).unwrap();
    assert_eq!(g.superko(), Superko::Situational);
    assert_eq!(g.to_move(), Color::Black);
    play(&mut g, "E5");
    assert_eq!(g.to_move(), Color::White);
    play(&mut g, "pass");
    assert_eq!(g.consecutive_passes(), 1);
    play(&mut g, "D4"); // Art. 21.1: a move after one pass is normal play
    assert_eq!(g.consecutive_passes(), 0);
    play(&mut g, "pass");
    play(&mut g, "pass");
    assert_eq!(g.consecutive_passes(), 2);
    assert_eq!(g.move_number(), 5);
    assert_eq!(g.history()[1].mv, Move::Pass);
    assert_eq!(g.history()[2].color, Color::Black);
}

#[test]
fn occupied_and_off_board_points_are_refused_without_change() {
    let mut g = Game::new(9, Superko::default()).unwrap();
    play(&mut g, "E5");
    let before = g.board().clone();
    assert_eq!(g.play(Move::Play(pt("E5", 9))), Err(Illegal::Occupied));
    assert_eq!(g.play(Move::Play(Point::new(9, 0))), Err(Illegal::OffBoard));
    assert_eq!(
        g.captures_of(Color::White, Point::new(0, 12)),
        Err(Illegal::OffBoard)
    );
    assert_eq!(g.board(), &before);
    assert_eq!(g.to_move(), Color::White);
    assert_eq!(Illegal::OffBoard.as_str(), "off_board");
    assert_eq!(Illegal::Occupied.to_string(), "occupied");
}

// ----- Art. 4: captures, capture before suicide ------------------------------------------

#[test]
fn capture_that_fills_the_capturers_last_liberty_takes_two_chains() {
    // Black A1 has no empty neighbour; it is legal only because it captures the white
    // stones A2 and B1 (two separate chains) first.
    let diagram = "
        ....
        X...
        OX..
        .OX.";
    for sk in BOTH {
        let g = setup(4, diagram, Color::Black, sk);
        assert_eq!(
            gtp(&g.captures_of(Color::Black, pt("A1", 4)).unwrap()),
            ["A2", "B1"]
        );
        let mut g2 = g.clone();
        let caps = play(&mut g2, "A1");
        assert_eq!(gtp(&caps), ["A2", "B1"]);
        assert_eq!(g2.board().to_rows(), "....X....X..X.X.");
        assert_eq!(g2.prisoners(Color::Black), 2);
        assert_eq!(g2.prisoners(Color::White), 0);
        // For White the same point is suicide.
        assert_eq!(
            g.captures_of(Color::White, pt("A1", 4)),
            Err(Illegal::Suicide)
        );
    }
}

#[test]
fn one_move_captures_several_separate_chains() {
    let diagram = "
        .....
        XX.XX
        OO.OO
        XX.XX
        .....";
    let mut g = setup(5, diagram, Color::Black, Superko::Situational);
    let caps = play(&mut g, "C3");
    assert_eq!(gtp(&caps), ["A3", "B3", "D3", "E3"]);
    assert_eq!(g.board().count(Color::White), 0);
    assert_eq!(g.prisoners(Color::Black), 4);
}

#[test]
fn captures_of_does_not_change_the_board() {
    let diagram = "
        .....
        XX.XX
        OO.OO
        XX.XX
        .....";
    let g = setup(5, diagram, Color::Black, Superko::Situational);
    let rows = g.board().to_rows();
    let hash = g.board().hash();
    assert_eq!(g.captures_of(Color::Black, pt("C3", 5)).unwrap().len(), 4);
    assert_eq!(g.captures_of(Color::Black, pt("C1", 5)).unwrap(), vec![]);
    assert_eq!(g.board().to_rows(), rows);
    assert_eq!(g.board().hash(), hash);
}

// ----- Art. 5: suicide -------------------------------------------------------------------

#[test]
fn single_stone_suicide_is_illegal_filling_own_eye_is_not() {
    let diagram = "
        .O.
        O.O
        .O.";
    let g = setup(3, diagram, Color::Black, Superko::Situational);
    assert_eq!(
        g.captures_of(Color::Black, pt("B2", 3)),
        Err(Illegal::Suicide)
    );
    assert!(!g.is_legal(Color::Black, Move::Play(pt("B2", 3))));
    assert!(g.is_legal(Color::White, Move::Play(pt("B2", 3))));
    assert!(!g.legal_moves(Color::Black).contains(&pt("B2", 3)));
}

#[test]
fn two_stone_suicide_is_illegal() {
    // Black A2 has one liberty, A1; playing there leaves the pair without liberty and the
    // white wall keeps the liberty C2, so nothing is captured.
    let diagram = "
        ....
        OO..
        XO..
        .O..";
    let mut g = setup(4, diagram, Color::Black, Superko::Situational);
    let before = g.board().clone();
    assert_eq!(g.play(Move::Play(pt("A1", 4))), Err(Illegal::Suicide));
    assert_eq!(g.board(), &before);
    assert_eq!(g.to_move(), Color::Black);
    assert_eq!(g.move_number(), 0);
}

// ----- Art. 18.3, 20: simple ko ----------------------------------------------------------

const KO: &str = "
    .....
    .XO..
    XO.O.
    .XO..
    .....";

#[test]
fn simple_ko_cannot_be_retaken_at_once_but_can_after_a_ko_threat() {
    for sk in BOTH {
        let mut g = setup(5, KO, Color::Black, sk);
        assert_eq!(gtp(&play(&mut g, "C3")), ["B3"]);
        assert_eq!(g.captures_of(Color::White, pt("B3", 5)), Err(Illegal::Ko));
        assert_eq!(g.play(Move::Play(pt("B3", 5))), Err(Illegal::Ko));
        play(&mut g, "E1"); // a ko threat elsewhere
        play(&mut g, "A5"); // Black answers it
        assert_eq!(gtp(&play(&mut g, "B3")), ["C3"]); // the retake is now legal
        assert_eq!(g.play(Move::Play(pt("C3", 5))), Err(Illegal::Ko));
    }
}

// ----- Art. 6, 20: whole-board repetition ------------------------------------------------

/// Three kos on an 11x11 board (rows 2, 6, 10). In ko `k` White's capturing point is
/// B{row} and Black's is C{row}. Start: ko 1 and 3 held by White, ko 2 by Black.
fn triple_ko(sk: Superko) -> Game {
    let (mut black, mut white) = (vec![], vec![]);
    for r in [1u8, 5, 9] {
        black.extend([Point::new(1, r + 1), Point::new(0, r), Point::new(1, r - 1)]);
        white.extend([Point::new(2, r + 1), Point::new(3, r), Point::new(2, r - 1)]);
    }
    white.push(Point::new(1, 1));
    black.push(Point::new(2, 5));
    white.push(Point::new(1, 9));
    Game::with_setup(11, &black, &white, Color::Black, sk).unwrap()
}

#[test]
fn triple_ko_cycle_back_to_the_start_position_is_forbidden_in_both_rules() {
    for sk in BOTH {
        let mut g = triple_ko(sk);
        for mv in ["C2", "B6", "C10", "B2", "C6"] {
            assert_eq!(play(&mut g, mv).len(), 1, "{mv} takes a ko");
        }
        // White's sixth take would recreate the setup position (the first position of the
        // game) with Black to move.
        assert_eq!(
            g.captures_of(Color::White, pt("B10", 11)),
            Err(Illegal::Superko)
        );
        assert_eq!(g.play(Move::Play(pt("B10", 11))), Err(Illegal::Superko));
        // The immediate retake of the last ko is a plain ko.
        assert_eq!(g.play(Move::Play(pt("B6", 11))), Err(Illegal::Ko));
    }
}

#[test]
fn triple_ko_with_a_pass_positional_and_situational_differ() {
    // B takes ko 1, W takes ko 2, B passes, W takes ko 1 back, B takes ko 2 back: the
    // stones are those of the start, but now White is to move (at the start Black was).
    let seq = ["C2", "B6", "pass", "B2"];
    let mut pos = triple_ko(Superko::Positional);
    let mut sit = triple_ko(Superko::Situational);
    for mv in seq {
        play(&mut pos, mv);
        play(&mut sit, mv);
    }
    assert_eq!(pos.play(Move::Play(pt("C6", 11))), Err(Illegal::Superko));
    let start = triple_ko(Superko::Situational);
    assert_eq!(gtp(&play(&mut sit, "C6")), ["B6"]);
    assert_eq!(sit.board(), start.board());
    assert_eq!(sit.to_move(), Color::White);
}

#[test]
fn sending_two_returning_one_positional_forbids_situational_allows() {
    // Black throws in at A1 (two stones in atari), White takes two with C1, Black takes
    // one back at B1: the stones repeat the start with White to move.
    let diagram = "
        .....
        .....
        .....
        OOX..
        .X.X.";
    for (sk, expect_ok) in [(Superko::Positional, false), (Superko::Situational, true)] {
        let mut g = setup(5, diagram, Color::Black, sk);
        let start = g.board().clone();
        assert!(play(&mut g, "A1").is_empty());
        assert_eq!(gtp(&play(&mut g, "C1")), ["A1", "B1"]);
        let r = g.play(Move::Play(pt("B1", 5)));
        if expect_ok {
            assert_eq!(gtp(&r.unwrap().captured), ["C1"]);
            assert_eq!(g.board(), &start);
        } else {
            assert_eq!(r, Err(Illegal::Superko));
        }
        // The naive oracle agrees.
        let mut n = Naive::from_rows(5, diagram, Color::Black, sk);
        n.play(Color::Black, Some(pt("A1", 5))).unwrap();
        n.play(Color::White, Some(pt("C1", 5))).unwrap();
        assert_eq!(n.try_move(Color::Black, pt("B1", 5)).is_ok(), expect_ok);
    }
}

#[test]
fn eternal_life_cycle_positional_stops_it_at_move_three_situational_at_move_six() {
    // Two sending-two-returning-one shapes, one for each side (bottom left for Black,
    // its colour-swapped mirror top right for White). Black sends two and takes one back
    // (3 moves: the start stones recur with White to move), then White does the same (3
    // more: the start recurs with Black to move). An endless cycle unless a rule stops it.
    let diagram = "
        .....O.O.
        ......OXX
        .........
        .........
        .........
        .........
        .........
        OOX......
        .X.X.....";
    let mut pos = setup(9, diagram, Color::Black, Superko::Positional);
    let mut sit = setup(9, diagram, Color::Black, Superko::Situational);
    let start = sit.board().clone();
    for g in [&mut pos, &mut sit] {
        assert!(play(g, "A1").is_empty());
        assert_eq!(gtp(&play(g, "C1")), ["A1", "B1"]);
    }
    assert_eq!(pos.play(Move::Play(pt("B1", 9))), Err(Illegal::Superko));
    assert_eq!(gtp(&play(&mut sit, "B1")), ["C1"]);
    assert_eq!(sit.board(), &start);
    assert!(play(&mut sit, "J9").is_empty());
    assert_eq!(gtp(&play(&mut sit, "G9")), ["H9", "J9"]);
    // White's return would bring back the start with Black to move.
    assert_eq!(sit.play(Move::Play(pt("H9", 9))), Err(Illegal::Superko));
    // The naive reference gives the same two verdicts.
    for (sk, moves, last) in [
        (Superko::Positional, &["A1", "C1"][..], "B1"),
        (
            Superko::Situational,
            &["A1", "C1", "B1", "J9", "G9"][..],
            "H9",
        ),
    ] {
        let mut n = Naive::from_rows(9, diagram, Color::Black, sk);
        for m in moves {
            let c = n.to_move;
            n.play(c, Some(pt(m, 9))).unwrap();
        }
        let c = n.to_move;
        assert_eq!(n.try_move(c, pt(last, 9)).err(), Some(Illegal::Superko));
    }
}

#[test]
fn situational_superko_after_a_pass_repeats_with_the_other_side_to_move() {
    // Same throw-in, but White passes first: then Black's A1, White's C1 and Black's B1
    // bring back the start stones with White to move, which did occur (after the pass),
    // so both rules forbid it.
    let diagram = "
        .....
        .....
        .....
        OOX..
        .X.X.";
    for sk in BOTH {
        let mut g = setup(5, diagram, Color::White, sk);
        play(&mut g, "pass");
        play(&mut g, "A1");
        play(&mut g, "C1");
        assert_eq!(g.play(Move::Play(pt("B1", 5))), Err(Illegal::Superko));
    }
}

#[test]
fn handicap_game_starts_from_the_handicap_position_with_white_to_move() {
    let g = Game::with_handicap(19, 4, Superko::Situational).unwrap();
    assert_eq!(g.to_move(), Color::White);
    assert_eq!(g.board().count(Color::Black), 4);
    let stones: Vec<Point> = g.board().stones().into_iter().map(|(p, _)| p).collect();
    assert_eq!(gtp(&stones), ["D4", "D16", "Q4", "Q16"]);
    let setup = Game::with_setup(19, &stones, &[], Color::White, Superko::Situational).unwrap();
    assert_eq!(g.board(), setup.board());
    let even = Game::with_handicap(19, 0, Superko::Situational).unwrap();
    assert_eq!(even.to_move(), Color::Black);
    assert_eq!(even.board().count(Color::Black), 0);
    assert!(Game::with_handicap(19, 1, Superko::Situational).is_err());
    assert!(Game::with_handicap(19, 10, Superko::Situational).is_err());
    assert!(Game::with_handicap(8, 5, Superko::Situational).is_err());
}

#[test]
fn setup_errors_are_reported() {
    let p = pt("A1", 5);
    assert!(Game::with_setup(5, &[p], &[p], Color::Black, Superko::Situational).is_err());
    let off = Point::new(7, 1);
    let e = Game::with_setup(5, &[off], &[], Color::Black, Superko::Situational).unwrap_err();
    assert!(e.to_string().contains("off the 5x5 board"), "{e}");
    // A black stone with no liberty.
    let e = Game::with_setup(
        3,
        &[pt("A1", 3)],
        &[pt("A2", 3), pt("B1", 3)],
        Color::Black,
        Superko::Situational,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "the setup chain at A1 has no liberty");
    assert!(Game::new(1, Superko::Situational).is_err());
    assert!(Game::new(26, Superko::Situational).is_err());
}

#[test]
fn undo_restores_ko_state_and_repetition_history() {
    let mut g = setup(5, KO, Color::Black, Superko::Situational);
    let start = g.clone();
    play(&mut g, "C3");
    let after = g.clone();
    play(&mut g, "E1");
    play(&mut g, "A5");
    play(&mut g, "B3");
    for _ in 0..3 {
        assert!(g.undo().is_some());
    }
    assert_eq!(g.board(), after.board());
    assert_eq!(g.board().hash(), after.board().hash());
    assert_eq!(g.play(Move::Play(pt("B3", 5))), Err(Illegal::Ko));
    assert_eq!(
        g.undo().map(|p| gtp(&p.captured)),
        Some(vec!["B3".to_string()])
    );
    assert_eq!(g.board(), start.board());
    assert_eq!(g.prisoners(Color::Black), 0);
    assert_eq!(g.to_move(), Color::Black);
    assert!(g.undo().is_none());
}

#[test]
fn superko_names_parse() {
    assert_eq!(Superko::parse("Positional"), Some(Superko::Positional));
    assert_eq!(Superko::parse("situational"), Some(Superko::Situational));
    assert_eq!(Superko::parse("simple"), None);
    assert_eq!(Superko::Positional.as_str(), "positional");
}

// ----- handicap placement ----------------------------------------------------------------

#[test]
fn handicap_points_match_gnu_go_fixed_handicap() {
    // Recorded from `/usr/games/gnugo --mode gtp` (GNU Go 3.8): `fixed_handicap N`.
    let text = include_str!("../fixtures/gnugo/fixed_handicap.txt");
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut parts = line.split_whitespace();
        let size: u8 = parts.next().unwrap().parse().unwrap();
        let n: u8 = parts.next().unwrap().parse().unwrap();
        let rest: Vec<&str> = parts.collect();
        if rest == ["invalid"] {
            assert!(handicap_points(size, n).is_err(), "{size} {n}");
            continue;
        }
        let mut want: Vec<Point> = rest.iter().map(|v| pt(v, size)).collect();
        want.sort();
        assert_eq!(
            handicap_points(size, n).unwrap(),
            want,
            "{size}x{size} handicap {n}"
        );
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} placements checked");
}

// ----- Art. 9, 11, 24: counting ----------------------------------------------------------

/// A 19x19 board where, in row-major order from the top, the first `b` points are Black's
/// area, the next `d` points dame and the rest White's area: points next to another kind
/// of point hold a stone of their side, all others are empty.
fn area_board(b: usize, d: usize) -> Board {
    let n = 19usize;
    let kind = |k: usize| {
        if k < b {
            0
        } else if k < b + d {
            1
        } else {
            2
        }
    };
    let mut s = String::new();
    for k in 0..n * n {
        let (r, c) = (k / n, k % n);
        let mut nb = vec![];
        if r > 0 {
            nb.push(k - n)
        }
        if r + 1 < n {
            nb.push(k + n)
        }
        if c > 0 {
            nb.push(k - 1)
        }
        if c + 1 < n {
            nb.push(k + 1)
        }
        let frontier = nb.iter().any(|&j| kind(j) != kind(k));
        s.push(match (kind(k), frontier) {
            (0, true) => 'X',
            (2, true) => 'O',
            _ => '.',
        });
    }
    let board = Board::from_rows(19, &s).unwrap();
    // Check the construction with the naive counter.
    let naive = Naive::from_rows(19, &s, Color::Black, Superko::Situational);
    assert_eq!(naive.area(), (b, n * n - b - d, d));
    board
}

fn even(komi: f64) -> ScoreRules {
    ScoreRules {
        komi_points: komi,
        handicap: 0,
        warnings: [0, 0],
    }
}

#[test]
fn rules_examples_even_game_komi_three_and_three_quarters() {
    // Black 185 wins by 3/4 stone = 1.5 points.
    let s = score(&area_board(185, 0), &[], &even(7.5)).unwrap();
    assert_eq!((s.black_area, s.white_area, s.dame), (185.0, 176.0, 0));
    assert_eq!(s.komi_stones, 3.75);
    assert_eq!(s.result, "B+1.5");
    assert_eq!((s.margin_stones, s.margin_points), (0.75, 1.5));
    assert_eq!(s.winner, Some(Color::Black));
    // Black 184 loses by 1/4 stone; White's 177 is enough.
    let s = score(&area_board(184, 0), &[], &even(7.5)).unwrap();
    assert_eq!(s.white_area, 177.0);
    assert_eq!(s.result, "W+0.5");
    assert_eq!((s.margin_stones, s.margin_points), (0.25, 0.5));
    // Black 184.5 (one dame point) wins by 1/4 stone; White's 176.5 is not enough.
    let s = score(&area_board(184, 1), &[], &even(7.5)).unwrap();
    assert_eq!((s.black_area, s.white_area, s.dame), (184.5, 176.5, 1));
    assert_eq!(s.result, "B+0.5");
}

#[test]
fn rules_examples_handicap_four_no_komi_needs_more_than_182_and_a_half() {
    let h4 = ScoreRules {
        komi_points: 0.0,
        handicap: 4,
        warnings: [0, 0],
    };
    assert_eq!(score(&area_board(183, 0), &[], &h4).unwrap().result, "B+1");
    let s = score(&area_board(182, 1), &[], &h4).unwrap();
    assert_eq!(s.black_area, 182.5);
    assert_eq!(
        (s.result.as_str(), s.winner, s.margin_points),
        ("0", None, 0.0)
    );
    assert_eq!(score(&area_board(182, 0), &[], &h4).unwrap().result, "W+1");
}

#[test]
fn handicap_draw_at_exactly_par() {
    // Handicap 2, no komi: Black gives back one stone, so 181.5 is exactly par.
    let h2 = ScoreRules {
        komi_points: 0.0,
        handicap: 2,
        warnings: [0, 0],
    };
    assert_eq!(score(&area_board(181, 1), &[], &h2).unwrap().result, "0");
    // Taking Black without komi or handicap ("rang xian"): 180.5 is a draw.
    assert_eq!(
        score(&area_board(180, 1), &[], &even(0.0)).unwrap().result,
        "0"
    );
    assert_eq!(
        score(&area_board(181, 0), &[], &even(0.0)).unwrap().result,
        "B+1"
    );
}

#[test]
fn rules_examples_a_warning_costs_one_stone() {
    let mut r = even(7.5);
    r.warnings[Color::Black.index()] = 1;
    let s = score(&area_board(185, 0), &[], &r).unwrap();
    assert_eq!(s.result, "W+0.5"); // 185 - 1 = 184
    r.warnings = [0, 1];
    assert_eq!(score(&area_board(184, 0), &[], &r).unwrap().result, "B+1.5");
}

#[test]
fn odd_and_even_dame_and_large_margins() {
    let b = Board::from_rows(3, "X.O X.O X.O").unwrap();
    let s = score(&b, &[], &even(0.0)).unwrap();
    assert_eq!((s.black_area, s.white_area, s.dame), (4.5, 4.5, 3));
    assert_eq!(s.result, "0");
    let b = Board::from_rows(4, ".X.O .X.O .X.O .X.O").unwrap();
    let s = score(&b, &[], &even(0.0)).unwrap();
    assert_eq!((s.black_area, s.white_area, s.dame), (10.0, 6.0, 4));
    assert_eq!(s.result, "B+4");
    // Regions reached by neither colour (an empty board) are dame too.
    let s = score(&Board::new(9).unwrap(), &[], &even(7.5)).unwrap();
    assert_eq!((s.dame, s.black_area), (81, 40.5));
    assert_eq!(s.result, "W+7.5");
}

#[test]
fn dead_stones_are_lifted_before_counting() {
    // White's B2 sits inside Black's side. Alive, it makes the whole left side dame;
    // lifted as dead, the left side is Black's.
    let b = Board::from_rows(5, "..XO. ..XO. ..XO. .OXO. ..XO.").unwrap();
    let alive = score(&b, &[], &even(0.0)).unwrap();
    assert_eq!(
        (alive.black_area, alive.white_area, alive.dame),
        (9.5, 15.5, 9)
    );
    let dead = score(&b, &[pt("B2", 5)], &even(0.0)).unwrap();
    assert_eq!(
        (dead.black_area, dead.white_area, dead.dame),
        (15.0, 10.0, 0)
    );
    assert_eq!(dead.result, "B+5"); // 15 - 12.5 = 2.5 stones
    assert_eq!(
        score(&b, &[pt("A1", 5)], &even(0.0)),
        Err(ScoreError::DeadPointEmpty(pt("A1", 5)))
    );
    assert!(matches!(
        score(&b, &[Point::new(5, 0)], &even(0.0)),
        Err(ScoreError::OffBoard { .. })
    ));
}

#[test]
fn seki_eyes_count_for_their_owner_shared_liberties_are_dame() {
    //   4  O O O O
    //   3  X X X O
    //   2  . X O O     A2: an eye of Black's
    //   1  X . O .     B1: liberty shared by both sides (dame); D1: an eye of White's
    let b = Board::from_rows(4, "OOOO XXXO .XOO X.O.").unwrap();
    let s = score(&b, &[], &even(0.0)).unwrap();
    // Black: 5 stones + A2 + half of B1; White: 8 stones + D1 + half of B1.
    assert_eq!(s.dame, 1);
    assert_eq!((s.black_area, s.white_area), (6.5, 9.5));
}

#[test]
fn komi_must_be_in_half_points() {
    assert!(matches!(
        score(&Board::new(9).unwrap(), &[], &even(7.25)),
        Err(ScoreError::BadKomi(_))
    ));
    assert!(score(&Board::new(9).unwrap(), &[], &even(f64::NAN)).is_err());
    // 5.5 points = 2.75 stones (the pre-2001 komi) is fine.
    // Black then needs more than 183.25.
    let s = score(&area_board(184, 0), &[], &even(5.5)).unwrap();
    assert_eq!(s.komi_stones, 2.75);
    assert_eq!(s.result, "B+1.5");
    assert_eq!(
        score(&area_board(183, 0), &[], &even(5.5)).unwrap().result,
        "W+0.5"
    );
}
