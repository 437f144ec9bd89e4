//! The GTP session against public games folded from events, line by line.

use super::*;
use tengen_protocol::event::{EndReason, Event, GameEnd, GameSetup};
use tengen_protocol::{Envelope, Timestamp};

/// A public game: `game_started` (size, handicap) and the moves given (`pass` allowed),
/// alternating from the side that moves first.
struct Board {
    view: GameView,
    seq: u64,
    game: String,
}

impl Board {
    fn new(size: u8, handicap: u8) -> Board {
        let mut b = Board {
            view: GameView::new(),
            seq: 0,
            game: "r1-t1".into(),
        };
        b.push(Event::GameStarted(GameSetup {
            size,
            handicap,
            ..GameSetup::default()
        }));
        b
    }

    fn push(&mut self, event: Event) {
        self.seq += 1;
        let env = Envelope {
            seq: self.seq,
            time: Timestamp::from_millis(1_000 * self.seq),
            board: "b1".into(),
            game: self.game.clone(),
            by: None,
            event,
        };
        self.view.apply_envelope(&env).expect("the event folds");
    }

    fn play(&mut self, moves: &[&str]) {
        for m in moves {
            let game = self.view.game().expect("a game");
            let (color, number) = (game.to_move(), game.move_number() + 1);
            let size = game.board().size();
            self.push(match *m {
                "pass" => Event::Pass { number, color },
                p => Event::Move {
                    number,
                    color,
                    point: Point::parse_gtp(p, size).expect("a point"),
                    captured: vec![],
                    clock: None,
                },
            });
        }
    }

    fn end(&mut self, result: &str, reason: EndReason) {
        self.push(Event::GameOver(GameEnd::uncounted(result, reason)));
    }
}

/// Sends `line` and returns GTP's text of the answer (`None`: it waits).
fn send(s: &mut Session, line: &str, board: &Board) -> Option<String> {
    let req = parse_line(line).expect("a command");
    match s.handle(&req, Public::Game(&board.view)) {
        Outcome::Answer(a) => Some(format_answer(req.id, &a)),
        Outcome::Wait => None,
        Outcome::Quit => Some(format_answer(req.id, &Ok(String::new()))),
    }
}

fn ok(text: &str) -> Option<String> {
    Some(format!("= {text}\n\n"))
}

fn err(text: &str) -> Option<String> {
    Some(format!("? {text}\n\n"))
}

#[test]
fn lines_are_preprocessed_as_gtp_2_says() {
    assert_eq!(parse_line("   \n"), None);
    assert_eq!(parse_line("# a comment\n"), None);
    assert_eq!(
        parse_line("12 play\tB  d4 # why\r\n"),
        Some(Request {
            id: Some(12),
            name: "play".into(),
            args: vec!["B".into(), "d4".into()],
        })
    );
    assert_eq!(
        parse_line("gen\u{7}move w\n"),
        Some(Request {
            id: None,
            name: "genmove".into(),
            args: vec!["w".into()],
        })
    );
    assert_eq!(format_answer(Some(3), &Ok("2".into())), "=3 2\n\n");
    assert_eq!(format_answer(None, &Err(Refusal::Said("no"))), "? no\n\n");
    // A multi-line answer never holds the empty line that would end it.
    assert_eq!(format_answer(None, &Ok("a\n\nb".into())), "= a\nb\n\n");
}

#[test]
fn the_handshake_of_sabaki_and_twogtp_is_answered() {
    let board = Board::new(19, 0);
    let mut s = Session::new();
    assert_eq!(
        send(&mut s, "1 protocol_version", &board),
        Some("=1 2\n\n".into())
    );
    assert_eq!(send(&mut s, "name", &board), ok("tengen"));
    assert!(send(&mut s, "version", &board).is_some_and(|v| v.starts_with("= 0.")));
    let list = send(&mut s, "list_commands", &board).unwrap();
    for c in ["genmove", "play", "final_score", "kgs-time_settings"] {
        assert!(list.lines().any(|l| l.trim_start_matches("= ") == c), "{c}");
    }
    assert_eq!(send(&mut s, "known_command genmove", &board), ok("true"));
    assert_eq!(
        send(&mut s, "known_command lz-analyze", &board),
        ok("false")
    );
    assert_eq!(send(&mut s, "boardsize 19", &board), ok(""));
    assert_eq!(
        send(&mut s, "boardsize 9", &board),
        err("unacceptable size")
    );
    assert_eq!(
        send(&mut s, "boardsize x", &board),
        err("boardsize not an integer")
    );
    assert_eq!(send(&mut s, "clear_board", &board), ok(""));
    assert_eq!(send(&mut s, "komi 6.5", &board), ok(""));
    assert_eq!(s.komi(), Some(6.5));
    assert_eq!(send(&mut s, "komi many", &board), err("komi not a float"));
    assert_eq!(send(&mut s, "time_settings 600 30 1", &board), ok(""));
    assert_eq!(
        send(&mut s, "kgs-time_settings byoyomi 600 30 5", &board),
        ok("")
    );
    assert_eq!(send(&mut s, "time_left b 500 0", &board), ok(""));
    assert_eq!(
        send(&mut s, "lz-analyze 50", &board),
        err("unknown command")
    );
    assert_eq!(
        send(&mut s, "7", &board),
        Some("?7 unknown command\n\n".into())
    );
}

#[test]
fn genmove_follows_the_public_moves_and_waits_for_the_next() {
    let mut board = Board::new(19, 0);
    board.play(&["Q16", "D4"]);
    let mut s = Session::new();
    assert_eq!(send(&mut s, "genmove b", &board), ok("Q16"));
    assert_eq!(
        send(&mut s, "genmove b", &board),
        err("it is white's turn on the board: move 2 is W D4")
    );
    assert_eq!(send(&mut s, "genmove w", &board), ok("D4"));
    assert_eq!(
        send(&mut s, "genmove w", &board),
        err("it is black's turn on the board (move 3)")
    );
    assert_eq!(send(&mut s, "genmove b", &board), None, "not public yet");
    board.play(&["pass"]);
    assert_eq!(send(&mut s, "genmove b", &board), ok("pass"));
    assert_eq!(
        send(&mut s, "showboard", &board).map(|b| b.contains("X")),
        Some(true)
    );
}

#[test]
fn play_is_checked_against_the_board_and_waits_when_ahead() {
    let mut board = Board::new(19, 0);
    board.play(&["Q16", "D4"]);
    let mut s = Session::new();
    assert_eq!(send(&mut s, "play B q16", &board), ok(""));
    assert_eq!(
        send(&mut s, "play W C3", &board),
        err("the board played W D4 at move 2")
    );
    assert_eq!(
        send(&mut s, "play B D4", &board),
        err("the board played W D4 at move 2")
    );
    assert_eq!(send(&mut s, "play W D4", &board), ok(""));
    assert_eq!(
        send(&mut s, "play B Q3", &board),
        None,
        "move 3 is not public yet"
    );
    board.play(&["Q3"]);
    assert_eq!(send(&mut s, "play B Q3", &board), ok(""));
    assert_eq!(send(&mut s, "play B Z9", &board), err("invalid coordinate"));
    assert_eq!(send(&mut s, "play X Q3", &board), err("invalid color"));
    assert_eq!(send(&mut s, "play B", &board), err("syntax error"));
    // Undo steps the controller back: the same move is taken again.
    assert_eq!(send(&mut s, "undo", &board), ok(""));
    assert_eq!(send(&mut s, "genmove b", &board), ok("Q3"));
    // clear_board goes back to the start of the game.
    assert_eq!(send(&mut s, "clear_board", &board), ok(""));
    assert_eq!(send(&mut s, "undo", &board), err("cannot undo"));
    assert_eq!(send(&mut s, "genmove b", &board), ok("Q16"));
}

#[test]
fn the_end_of_the_game_answers_waits_and_final_score() {
    let mut board = Board::new(9, 0);
    board.play(&["E5", "C3"]);
    let mut s = Session::new();
    assert_eq!(
        send(&mut s, "final_score", &board),
        err("the game is not over")
    );
    assert_eq!(send(&mut s, "genmove b", &board), ok("E5"));
    assert_eq!(send(&mut s, "genmove w", &board), ok("C3"));
    assert_eq!(send(&mut s, "genmove b", &board), None);
    board.end("W+R", EndReason::Resignation);
    assert_eq!(send(&mut s, "genmove b", &board), ok("resign"));
    assert_eq!(
        send(&mut s, "genmove w", &board),
        err("the game ended: W+R")
    );
    assert_eq!(
        send(&mut s, "play b D4", &board),
        err("the game ended: W+R")
    );
    assert_eq!(send(&mut s, "final_score", &board), ok("W+R"));

    let mut board = Board::new(9, 0);
    board.play(&["E5", "pass", "pass"]);
    board.end("B+3.5", EndReason::Count);
    let mut s = Session::new();
    for (c, want) in [("b", "E5"), ("w", "pass"), ("b", "pass")] {
        assert_eq!(send(&mut s, &format!("genmove {c}"), &board), ok(want));
    }
    assert_eq!(
        send(&mut s, "genmove w", &board),
        err("the game ended: B+3.5")
    );
    assert_eq!(send(&mut s, "final_score", &board), ok("B+3.5"));
}

#[test]
fn handicap_stones_are_the_boards() {
    let mut board = Board::new(19, 3);
    let mut s = Session::new();
    assert_eq!(send(&mut s, "fixed_handicap 3", &board), ok("D4 D16 Q16"));
    assert_eq!(
        send(&mut s, "place_free_handicap 5", &board),
        ok("D4 D16 Q16")
    );
    assert_eq!(
        send(&mut s, "fixed_handicap 2", &board),
        err("the board's handicap is 3 stones")
    );
    assert_eq!(send(&mut s, "set_free_handicap q16 D16 D4", &board), ok(""));
    assert_eq!(
        send(&mut s, "set_free_handicap D4 Q4", &board),
        err("the board's handicap stones are D4 D16 Q16")
    );
    board.play(&["Q4"]);
    assert_eq!(
        send(&mut s, "genmove b", &board),
        err("it is white's turn on the board: move 1 is W Q4")
    );
    assert_eq!(send(&mut s, "genmove w", &board), ok("Q4"));
    let even = Board::new(19, 0);
    let mut s = Session::new();
    assert_eq!(
        send(&mut s, "fixed_handicap 2", &even),
        err("the board's game has no handicap")
    );
}

#[test]
fn a_new_game_or_a_retraction_on_the_board_is_said() {
    let mut board = Board::new(19, 0);
    board.play(&["Q16", "D4"]);
    let mut s = Session::new();
    assert_eq!(send(&mut s, "genmove b", &board), ok("Q16"));
    assert_eq!(send(&mut s, "genmove w", &board), ok("D4"));
    board.push(Event::MoveRetracted {
        number: 2,
        reason: tengen_protocol::event::RetractReason::Other("arbiter".into()),
    });
    assert_eq!(
        send(&mut s, "genmove b", &board),
        err("the board took back move 2 (W D4): undo to move 1")
    );
    assert_eq!(send(&mut s, "undo", &board), ok(""));
    assert_eq!(send(&mut s, "genmove w", &board), None);
    board.game = "r2-t1".into();
    board.push(Event::GameStarted(GameSetup::default()));
    assert_eq!(
        send(&mut s, "genmove w", &board),
        err("the board started a new game (r2-t1): send clear_board")
    );
    assert_eq!(send(&mut s, "clear_board", &board), ok(""));
    assert_eq!(send(&mut s, "genmove b", &board), None);
}

#[test]
fn without_the_board_only_the_board_free_commands_answer() {
    let mut s = Session::new();
    let req = |l: &str| parse_line(l).expect("a command");
    let why = "no board t/b9 on the hall";
    assert_eq!(
        s.handle(&req("genmove b"), Public::Unavailable(why)),
        Outcome::Answer(Err(Refusal::Unavailable(why.into())))
    );
    assert_eq!(
        s.handle(&req("name"), Public::Unavailable(why)),
        Outcome::Answer(Ok("tengen".into()))
    );
    assert_eq!(
        s.handle(&req("boardsize 19"), Public::Loading),
        Outcome::Wait
    );
    let nothing = GameView::new();
    assert_eq!(
        s.handle(&req("clear_board"), Public::Game(&nothing)),
        Outcome::Wait,
        "no game on the board yet"
    );
    assert_eq!(s.handle(&req("quit"), Public::Loading), Outcome::Quit);
}
