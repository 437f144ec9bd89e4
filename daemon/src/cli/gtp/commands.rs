//! The GTP side of `tengen gtp`, sans-IO: a line of the controller's becomes a [`Request`]
//! ([`parse_line`], GTP 2's preprocessing), and a [`Session`] answers it from the board's
//! public game as the one fold ([`GameView`]) has it, or says to wait for the board.
//!
//! The session holds the controller's own position: the moves it has taken from the board
//! (`play` checked, `genmove` answered), from the start of the game it follows. The board
//! decides everything; the controller can only agree with it, and is told where it does
//! not.

use tengen_protocol::view::Phase;
use tengen_protocol::GameView;
use tengen_rules::{handicap_points, Color, Game, Move, Point, Superko};

/// The commands answered, as `list_commands` gives them.
pub(crate) const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "time_settings",
    "time_left",
    "kgs-time_settings",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
];

/// One command of the controller's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// The optional numeric id, echoed in the answer.
    pub(crate) id: Option<u64>,
    /// The command name (may be empty when a line held only an id).
    pub(crate) name: String,
    /// The arguments.
    pub(crate) args: Vec<String>,
}

/// GTP 2's preprocessing (section 3.1) and parsing of one line: control characters but
/// HT and LF removed, HT turned into a space, everything from `#` dropped; `None` for a
/// line left empty.
pub(crate) fn parse_line(raw: &str) -> Option<Request> {
    let mut line = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '#' => break,
            '\t' => line.push(' '),
            c if c.is_control() => {}
            c => line.push(c),
        }
    }
    let mut words = line.split_whitespace();
    let first = words.next()?;
    let (id, name) = match first.parse::<u64>() {
        Ok(id) => (Some(id), words.next().unwrap_or("").to_string()),
        Err(_) => (None, first.to_string()),
    };
    Some(Request {
        id,
        name,
        args: words.map(str::to_string).collect(),
    })
}

/// The answer to a request as GTP writes it: `=id text\n\n` or `?id text\n\n`.
pub(crate) fn format_answer(id: Option<u64>, answer: &Result<String, Refusal>) -> String {
    let (mark, text) = match answer {
        Ok(t) => ('=', t.clone()),
        Err(why) => ('?', why.to_string()),
    };
    let id = id.map(|i| i.to_string()).unwrap_or_default();
    // No empty line inside an answer: that would end it early for the controller.
    let body: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let body = if text.starts_with('\n') {
        format!("\n{}", body.join("\n"))
    } else {
        body.join("\n")
    };
    format!("{mark}{id} {body}\n\n")
}

/// Why a command failed: the text after GTP's `?`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// One of GTP 2's own failure messages (`syntax error`, `unknown command`, ...) or a
    /// fixed one of this engine's.
    #[error("{0}")]
    Said(&'static str),
    /// The board cannot be followed: the one-line reason (`no board T/B on the hall`, ...).
    #[error("{0}")]
    Unavailable(String),
    /// A `game_started` since the controller's `clear_board`.
    #[error("the board started a new game ({game}): send clear_board")]
    NewGame {
        /// The board's new game id.
        game: String,
    },
    /// An arbiter took back a move the controller already has.
    #[error("the board took back move {number} ({color} {point}): undo to move {}", number - 1)]
    TakenBack {
        /// The move's number (from 1).
        number: usize,
        /// Its colour.
        color: Color,
        /// Its point (GTP) or `pass`.
        point: String,
    },
    /// `play` of a move the board did not play.
    #[error("the board played {color} {point} at move {number}")]
    BoardPlayed {
        /// The board's move there.
        color: Color,
        /// Its point (GTP) or `pass`.
        point: String,
        /// Its number.
        number: usize,
    },
    /// `genmove` for the side whose move the board's next is not.
    #[error("it is {side}'s turn on the board: move {number} is {color} {point}")]
    OtherSidesMove {
        /// Who played it (`black`, `white`).
        side: &'static str,
        /// Its number.
        number: usize,
        /// Its colour.
        color: Color,
        /// Its point (GTP) or `pass`.
        point: String,
    },
    /// `genmove` for the side not to move, the board's move not yet public.
    #[error("it is {side}'s turn on the board (move {number})")]
    OtherSidesTurn {
        /// The side to move (`black`, `white`).
        side: &'static str,
        /// The move's number.
        number: usize,
    },
    /// No move will come: the game's result.
    #[error("the game ended: {0}")]
    GameEnded(String),
    /// `fixed_handicap` with another number than the board's.
    #[error("the board's handicap is {0} stones")]
    HandicapIs(u8),
    /// `set_free_handicap` with other stones than the board's.
    #[error("the board's handicap stones are {0}")]
    HandicapStonesAre(String),
    /// A waiting command ended by a `quit` behind it.
    #[error("interrupted by quit")]
    Interrupted,
}

/// What the session knows of the board's public game.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Public<'a> {
    /// Still reading the hall's stream up to where it stood when it was opened.
    Loading,
    /// Never reached: the one-line reason (`no board T/B on the hall`, `cannot reach ...`).
    Unavailable(&'a str),
    /// The public game (or nothing yet, before the board's first `game_started`).
    Game(&'a GameView),
}

/// What to do with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Answer it (success or failure text).
    Answer(Result<String, Refusal>),
    /// The board has not got there yet: ask again when the public game changes.
    Wait,
    /// Answer `=` and stop.
    Quit,
}

/// The game the controller follows: its identity on the board and its setup.
#[derive(Debug, Clone, PartialEq)]
struct Followed {
    /// The board's game id and when it was set up: a new `game_started` is a new game.
    game: (String, Option<tengen_protocol::Timestamp>),
    size: u8,
    handicap: u8,
    superko: Superko,
    komi: f64,
}

/// What [`Session::followed`] gives before a game is followed (never read: every command
/// that reads it follows the board's game first).
static UNSET: Followed = Followed {
    game: (String::new(), None),
    size: 19,
    handicap: 0,
    superko: Superko::Situational,
    komi: 0.0,
};

/// The controller's side of the conversation: the game it follows and the moves it has
/// taken from the board.
#[derive(Debug, Clone, Default)]
pub(crate) struct Session {
    followed: Option<Followed>,
    moves: Vec<(Color, Move)>,
    komi: Option<f64>,
}

fn answer(text: impl Into<String>) -> Outcome {
    Outcome::Answer(Ok(text.into()))
}

fn refuse(why: impl Into<Refusal>) -> Outcome {
    Outcome::Answer(Err(why.into()))
}

impl From<&'static str> for Refusal {
    fn from(text: &'static str) -> Refusal {
        Refusal::Said(text)
    }
}

fn ok() -> Outcome {
    answer("")
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The colour who lost by resignation, for a result `B+R` / `W+Resign`.
fn resigned(result: &str) -> Option<Color> {
    let (winner, how) = result.split_once('+')?;
    if !how.to_ascii_uppercase().starts_with('R') {
        return None;
    }
    Color::parse(winner).map(Color::opponent)
}

impl Session {
    /// A session that follows nothing yet: it takes up the board's game at its first
    /// command that needs one.
    pub(crate) fn new() -> Session {
        Session::default()
    }

    /// The komi the controller gave, if any.
    pub(crate) fn komi(&self) -> Option<f64> {
        self.komi
    }

    /// Answers `req` from `public`, or says to wait.
    pub(crate) fn handle(&mut self, req: &Request, public: Public<'_>) -> Outcome {
        let args: Vec<&str> = req.args.iter().map(String::as_str).collect();
        match req.name.as_str() {
            "protocol_version" => answer("2"),
            "name" => answer("tengen"),
            "version" => answer(env!("CARGO_PKG_VERSION")),
            "known_command" => match args.first() {
                Some(c) => answer(if COMMANDS.contains(c) {
                    "true"
                } else {
                    "false"
                }),
                None => refuse("syntax error"),
            },
            "list_commands" => answer(COMMANDS.join("\n")),
            "quit" => Outcome::Quit,
            "komi" => match args.first().and_then(|k| k.parse::<f64>().ok()) {
                Some(k) if k.is_finite() => {
                    self.komi = Some(k);
                    ok()
                }
                _ => refuse("komi not a float"),
            },
            "time_settings" | "time_left" | "kgs-time_settings" => ok(),
            "" => refuse("unknown command"),
            name if COMMANDS.contains(&name) => match public {
                Public::Loading => Outcome::Wait,
                Public::Unavailable(why) => refuse(Refusal::Unavailable(why.to_string())),
                Public::Game(view) => match view.setup() {
                    None => Outcome::Wait,
                    Some(_) => self.with_board(name, &args, view),
                },
            },
            _ => refuse("unknown command"),
        }
    }

    /// The commands that need the board's game (which `view` has).
    fn with_board(&mut self, name: &str, args: &[&str], view: &GameView) -> Outcome {
        if self.followed.is_none() {
            self.follow(view);
        }
        match name {
            "boardsize" => match args.first().and_then(|s| s.parse::<u32>().ok()) {
                None => refuse("boardsize not an integer"),
                Some(n) if n == u32::from(current(view).size) => {
                    self.follow(view);
                    ok()
                }
                Some(_) => refuse("unacceptable size"),
            },
            "clear_board" => {
                self.follow(view);
                ok()
            }
            "play" => self.play(args, view),
            "genmove" => self.genmove(args, view),
            "undo" => match self.moves.pop() {
                Some(_) => ok(),
                None => refuse("cannot undo"),
            },
            "showboard" => self.showboard(),
            "final_score" => match self.same_game(view) {
                Err(e) => refuse(e),
                Ok(()) => match (view.phase(), view.result()) {
                    (Phase::Over, Some(r)) => answer(r),
                    _ => refuse("the game is not over"),
                },
            },
            "fixed_handicap" | "place_free_handicap" => self.handicap(name, args),
            "set_free_handicap" => self.set_handicap(args),
            _ => refuse("unknown command"),
        }
    }

    /// Takes up the board's current game, from its start.
    fn follow(&mut self, view: &GameView) {
        self.followed = Some(current(view));
        self.moves.clear();
    }

    fn followed(&self) -> &Followed {
        // `with_board` sets it before any command that reads it.
        self.followed.as_ref().unwrap_or(&UNSET)
    }

    /// The board's game is still the one followed, and the controller's moves are still
    /// the start of its record.
    fn same_game(&self, view: &GameView) -> Result<(), Refusal> {
        let now = current(view);
        if now.game != self.followed().game {
            return Err(Refusal::NewGame { game: now.game.0 });
        }
        let record = view.record();
        for (i, (color, mv)) in self.moves.iter().enumerate() {
            match record.get(i) {
                Some(n) if n.color == *color && n.mv == *mv => {}
                _ => {
                    return Err(Refusal::TakenBack {
                        number: i + 1,
                        color: *color,
                        point: mv.to_gtp(),
                    })
                }
            }
        }
        Ok(())
    }

    fn play(&mut self, args: &[&str], view: &GameView) -> Outcome {
        let [color, vertex] = args else {
            return refuse("syntax error");
        };
        let Some(color) = Color::parse(color) else {
            return refuse("invalid color");
        };
        let mv = if vertex.eq_ignore_ascii_case("pass") {
            Move::Pass
        } else {
            match Point::parse_gtp(vertex, self.followed().size) {
                Ok(p) => Move::Play(p),
                Err(_) => return refuse("invalid coordinate"),
            }
        };
        if let Err(e) = self.same_game(view) {
            return refuse(e);
        }
        let number = self.moves.len() + 1;
        match view.record().get(self.moves.len()) {
            Some(n) if n.color == color && n.mv == mv => {
                self.moves.push((color, mv));
                ok()
            }
            Some(n) => refuse(Refusal::BoardPlayed {
                color: n.color,
                point: n.mv.to_gtp(),
                number,
            }),
            None => match view.result() {
                Some(r) if view.phase() == Phase::Over => refuse(Refusal::GameEnded(r.to_string())),
                _ => Outcome::Wait,
            },
        }
    }

    fn genmove(&mut self, args: &[&str], view: &GameView) -> Outcome {
        let [color] = args else {
            return refuse("syntax error");
        };
        let Some(color) = Color::parse(color) else {
            return refuse("invalid color");
        };
        if let Err(e) = self.same_game(view) {
            return refuse(e);
        }
        let number = self.moves.len() + 1;
        match view.record().get(self.moves.len()) {
            Some(n) if n.color == color => {
                self.moves.push((n.color, n.mv));
                answer(n.mv.to_gtp())
            }
            Some(n) => refuse(Refusal::OtherSidesMove {
                side: color_name(n.color),
                number,
                color: n.color,
                point: n.mv.to_gtp(),
            }),
            None => {
                if let (Phase::Over, Some(r)) = (view.phase(), view.result()) {
                    return if resigned(r) == Some(color) {
                        answer("resign")
                    } else {
                        refuse(Refusal::GameEnded(r.to_string()))
                    };
                }
                // The side to move after the controller's moves (the record so far is
                // theirs: `same_game` checked it).
                let to_move = view
                    .game()
                    .filter(|g| g.move_number() as usize == self.moves.len())
                    .map(Game::to_move);
                match to_move {
                    Some(side) if side != color => refuse(Refusal::OtherSidesTurn {
                        side: color_name(side),
                        number,
                    }),
                    _ => Outcome::Wait,
                }
            }
        }
    }

    /// The controller's position: the followed game's setup and its moves.
    fn position(&self) -> Option<Game> {
        let f = self.followed();
        let mut game = Game::with_handicap(f.size, f.handicap, f.superko).ok()?;
        for (color, mv) in &self.moves {
            game.play_as(*color, *mv).ok()?;
        }
        Some(game)
    }

    fn showboard(&self) -> Outcome {
        let Some(game) = self.position() else {
            return refuse("the position cannot be set up");
        };
        let board = game.board();
        let size = board.size();
        let letters: String = (0..size)
            .map(|c| format!(" {}", &Point::new(c, 0).to_gtp()[..1]))
            .collect();
        let mut out = format!("\n  {letters}");
        for row in (0..size).rev() {
            let mut line = format!("\n{:>2} ", row + 1);
            for col in 0..size {
                line.push(match board.get(Point::new(col, row)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                });
                line.push(' ');
            }
            line.push_str(&format!("{}", row + 1));
            out.push_str(&line);
        }
        out.push_str(&format!("\n  {letters}"));
        out.push_str(&format!(
            "\nmove {}, {} to play; captured: black {}, white {}; komi {}",
            game.move_number(),
            color_name(game.to_move()),
            game.prisoners(Color::Black),
            game.prisoners(Color::White),
            self.komi.unwrap_or(self.followed().komi)
        ));
        answer(out)
    }

    fn handicap_stones(&self) -> Vec<Point> {
        let f = self.followed();
        handicap_points(f.size, f.handicap).unwrap_or_default()
    }

    fn handicap(&self, name: &str, args: &[&str]) -> Outcome {
        let Some(n) = args.first().and_then(|s| s.parse::<u8>().ok()) else {
            return refuse("number of handicap stones not an integer");
        };
        let have = self.followed().handicap;
        if have < 2 {
            return refuse("the board's game has no handicap");
        }
        if n != have && name == "fixed_handicap" {
            return refuse(Refusal::HandicapIs(have));
        }
        if !self.moves.is_empty() {
            return refuse("board not empty");
        }
        let stones: Vec<String> = self.handicap_stones().iter().map(|p| p.to_gtp()).collect();
        answer(stones.join(" "))
    }

    fn set_handicap(&self, args: &[&str]) -> Outcome {
        let size = self.followed().size;
        let mut given = Vec::new();
        for a in args {
            match Point::parse_gtp(a, size) {
                Ok(p) => given.push(p),
                Err(_) => return refuse("invalid coordinate"),
            }
        }
        given.sort_unstable();
        given.dedup();
        let mut want = self.handicap_stones();
        want.sort_unstable();
        if given == want {
            ok()
        } else if want.is_empty() {
            refuse("the board's game has no handicap")
        } else {
            let names: Vec<String> = want.iter().map(|p| p.to_gtp()).collect();
            refuse(Refusal::HandicapStonesAre(names.join(" ")))
        }
    }
}

/// The view's current game as the session follows it (the view has a setup).
fn current(view: &GameView) -> Followed {
    let setup = view.setup();
    Followed {
        game: (view.game_id().to_string(), view.started()),
        size: setup.map_or(19, |s| s.size),
        handicap: setup.map_or(0, |s| s.handicap),
        superko: setup.map_or(Superko::Situational, |s| s.superko),
        komi: setup.map_or(0.0, |s| s.komi),
    }
}

#[cfg(test)]
mod tests;
