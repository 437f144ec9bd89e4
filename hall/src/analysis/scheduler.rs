//! Which position an engine analyses next, sans-IO: the boards' latest *public* positions
//! come in ([`Scheduler::offer`]), jobs go out ([`Scheduler::next_job`]) and their outcomes
//! come back ([`Scheduler::finish`]).
//!
//! Bounded by construction: per board only the latest public position is kept (the game so
//! far; every earlier position is a prefix of it) and the estimates of the current game.
//! When the engines fall behind, the positions in between are not queued: a free engine
//! always takes the newest position of a board not yet analysed, so the latest public
//! position of each board comes first and older ones are filled in when there is time.
//! Boards take turns (the one served longest ago first), and a board is analysed by one
//! engine at a time.

use std::collections::BTreeMap;

use tengen_protocol::topics::BoardKey;
use tengen_protocol::GameView;
use tengen_rules::{handicap_points, Color, Move};

/// How often a position is tried before it is given up (an engine that died or hung on it).
const ATTEMPTS: u8 = 2;

/// A position as a GTP engine is told it: the game's setup and the moves before it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Position {
    /// Board size.
    pub(crate) size: u8,
    /// Komi in points.
    pub(crate) komi: f64,
    /// Black's handicap stones, GTP points (empty in an even game).
    pub(crate) handicap: Vec<String>,
    /// The moves played (passes included), in order.
    pub(crate) moves: Vec<(Color, Move)>,
}

impl Position {
    /// The public game of `view` so far; `None` before its `game_started`.
    pub(crate) fn of(view: &GameView) -> Option<Position> {
        let setup = view.setup()?;
        let handicap = if setup.handicap >= 2 {
            handicap_points(setup.size, setup.handicap)
                .unwrap_or_default()
                .into_iter()
                .map(|p| p.to_gtp())
                .collect()
        } else {
            Vec::new()
        };
        Some(Position {
            size: setup.size,
            komi: setup.komi,
            handicap,
            moves: view.record().iter().map(|n| (n.color, n.mv)).collect(),
        })
    }

    /// Who is to play: the other side of the last move, else White after handicap stones
    /// and Black in an even game.
    pub(crate) fn to_move(&self) -> Color {
        match self.moves.last() {
            Some((c, _)) => c.opponent(),
            None if !self.handicap.is_empty() => Color::White,
            None => Color::Black,
        }
    }

    /// The same game before its move `number + 1` (the first `number` moves).
    fn before(&self, number: usize) -> Position {
        Position {
            moves: self.moves[..number.min(self.moves.len())].to_vec(),
            ..self.clone()
        }
    }

    /// How many of the first moves `self` and `other` share, with the same setup.
    fn common(&self, other: &Position) -> usize {
        if self.size != other.size || self.komi != other.komi || self.handicap != other.handicap {
            return 0;
        }
        self.moves
            .iter()
            .zip(&other.moves)
            .take_while(|(a, b)| a == b)
            .count()
    }
}

/// The engine's view of one position.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Estimate {
    /// The moves played before the position.
    pub(crate) number: u32,
    /// Points ahead from Black's side (negative: White leads).
    pub(crate) score_lead: f64,
    /// The engine's candidate moves for the side to play, best first (GTP points).
    pub(crate) best: Vec<String>,
}

/// One position for an engine.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Job {
    /// The board.
    pub(crate) key: BoardKey,
    /// The game, so that an answer for a game that has since changed is dropped.
    pub(crate) game: String,
    /// The moves played before the position.
    pub(crate) number: u32,
    /// The position.
    pub(crate) position: Position,
}

/// What came of a job.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// The engine answered.
    Done(Estimate),
    /// The engine died or hung on it: tried again later, up to [`ATTEMPTS`] times.
    Retry,
    /// The engine refused the position: never tried again.
    GiveUp,
}

/// One board's public game and what is known of it.
#[derive(Debug)]
struct BoardWork {
    game: String,
    latest: Position,
    estimates: BTreeMap<u32, Estimate>,
    /// Positions tried and not answered: how many times.
    failed: BTreeMap<u32, u8>,
    /// An engine has one of its positions.
    busy: bool,
    /// When it was last given to an engine (the scheduler's turn counter).
    served: u64,
}

impl BoardWork {
    /// The newest position still to analyse.
    fn wanted(&self) -> Option<u32> {
        let last = u32::try_from(self.latest.moves.len()).ok()?;
        (0..=last).rev().find(|n| {
            !self.estimates.contains_key(n)
                && self.failed.get(n).is_none_or(|&tries| tries < ATTEMPTS)
        })
    }
}

/// Every analysed board's work, the analysis without its engines.
#[derive(Debug, Default)]
pub(crate) struct Scheduler {
    boards: BTreeMap<BoardKey, BoardWork>,
    turn: u64,
}

impl Scheduler {
    /// An empty scheduler.
    pub(crate) fn new() -> Scheduler {
        Scheduler::default()
    }

    /// Board `key`'s public view now: when its game or moves changed, it replaces what the
    /// board had (estimates of a game replaced, or of moves taken back, are dropped).
    /// Returns true when there may be new work. Cheap when nothing changed.
    pub(crate) fn offer(&mut self, key: &BoardKey, view: &GameView) -> bool {
        if let Some(w) = self.boards.get(key) {
            let same = w.game == view.game_id()
                && w.latest.moves.len() == view.record().len()
                && w.latest.moves.last().copied() == view.record().last().map(|n| (n.color, n.mv));
            if same {
                return false;
            }
        }
        let Some(position) = Position::of(view) else {
            return false;
        };
        self.offer_position(key, view.game_id(), position)
    }

    /// [`Scheduler::offer`] with the position already taken out of the view.
    pub(crate) fn offer_position(
        &mut self,
        key: &BoardKey,
        game: &str,
        position: Position,
    ) -> bool {
        match self.boards.get_mut(key) {
            Some(w) if w.game == game => {
                let keep = u32::try_from(w.latest.common(&position)).unwrap_or(u32::MAX);
                if keep < u32::try_from(w.latest.moves.len()).unwrap_or(u32::MAX) {
                    w.estimates.retain(|&n, _| n <= keep);
                    w.failed.retain(|&n, _| n <= keep);
                }
                w.latest = position;
            }
            _ => {
                self.boards.insert(
                    key.clone(),
                    BoardWork {
                        game: game.to_string(),
                        latest: position,
                        estimates: BTreeMap::new(),
                        failed: BTreeMap::new(),
                        busy: false,
                        served: 0,
                    },
                );
            }
        }
        true
    }

    /// The next position for a free engine: of the boards no engine is on and with work,
    /// the one served longest ago; its newest position not yet analysed.
    pub(crate) fn next_job(&mut self) -> Option<Job> {
        let (key, number) = self
            .boards
            .iter()
            .filter(|(_, w)| !w.busy)
            .filter_map(|(k, w)| w.wanted().map(|n| (w.served, k, n)))
            .min_by_key(|(served, _, _)| *served)
            .map(|(_, k, n)| (k.clone(), n))?;
        self.turn += 1;
        let w = self.boards.get_mut(&key)?;
        w.busy = true;
        w.served = self.turn;
        Some(Job {
            key,
            game: w.game.clone(),
            number,
            position: w.latest.before(number as usize),
        })
    }

    /// What came of `job`. An answer for a game or moves the board no longer has is
    /// dropped.
    pub(crate) fn finish(&mut self, job: &Job, outcome: Outcome) {
        let Some(w) = self.boards.get_mut(&job.key) else {
            return;
        };
        w.busy = false;
        let still =
            w.game == job.game && w.latest.common(&job.position) == job.position.moves.len();
        if !still {
            return;
        }
        match outcome {
            Outcome::Done(e) => {
                w.failed.remove(&job.number);
                w.estimates.insert(job.number, e);
            }
            Outcome::Retry => *w.failed.entry(job.number).or_default() += 1,
            Outcome::GiveUp => {
                w.failed.insert(job.number, ATTEMPTS);
            }
        }
    }

    /// Board `key`'s estimates of its current public game, by move number; `None` for a
    /// board with no public game yet.
    pub(crate) fn estimates(&self, key: &BoardKey) -> Option<Vec<Estimate>> {
        self.boards
            .get(key)
            .map(|w| w.estimates.values().cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_rules::Point;

    fn key(b: &str) -> BoardKey {
        BoardKey::new("t", b).unwrap()
    }

    /// An even 19x19 game of `moves` (alternating from Black).
    fn game(moves: &[&str]) -> Position {
        Position {
            size: 19,
            komi: 7.5,
            handicap: Vec::new(),
            moves: moves
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let c = if i % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    (c, Move::Play(Point::parse_gtp(m, 19).unwrap()))
                })
                .collect(),
        }
    }

    fn done(job: &Job) -> Outcome {
        Outcome::Done(Estimate {
            number: job.number,
            score_lead: -1.0,
            best: vec!["D4".into()],
        })
    }

    fn numbers(s: &Scheduler, b: &str) -> Vec<u32> {
        s.estimates(&key(b))
            .unwrap_or_default()
            .iter()
            .map(|e| e.number)
            .collect()
    }

    #[test]
    fn the_latest_position_first_then_the_older_ones() {
        let mut s = Scheduler::new();
        assert!(s.next_job().is_none(), "nothing offered, nothing to do");
        s.offer_position(&key("b1"), "g1", game(&["Q16", "D4", "Q4"]));
        let j = s.next_job().unwrap();
        assert_eq!((j.number, j.position.moves.len()), (3, 3));
        assert_eq!(j.position.to_move(), Color::White);
        assert!(s.next_job().is_none(), "one engine per board at a time");
        // The engines fall behind: two more moves become public meanwhile.
        s.offer_position(&key("b1"), "g1", game(&["Q16", "D4", "Q4", "D16", "C3"]));
        s.finish(&j, done(&j));
        let order: Vec<u32> = std::iter::from_fn(|| {
            let j = s.next_job()?;
            s.finish(&j, done(&j));
            Some(j.number)
        })
        .collect();
        assert_eq!(
            order,
            [5, 4, 2, 1, 0],
            "newest first, then filled in backwards"
        );
        assert_eq!(numbers(&s, "b1"), [0, 1, 2, 3, 4, 5]);
        assert!(s.next_job().is_none());
    }

    #[test]
    fn boards_take_turns_and_a_busy_board_waits() {
        let mut s = Scheduler::new();
        s.offer_position(&key("b1"), "g1", game(&["Q16", "D4"]));
        s.offer_position(&key("b2"), "g2", game(&["C3"]));
        let a = s.next_job().unwrap();
        let b = s.next_job().unwrap();
        assert_eq!((a.key.board.as_str(), a.number), ("b1", 2));
        assert_eq!((b.key.board.as_str(), b.number), ("b2", 1));
        assert!(s.next_job().is_none(), "both boards busy");
        s.finish(&a, done(&a));
        s.finish(&b, done(&b));
        // b1 was served first, so it goes first again; then b2.
        let c = s.next_job().unwrap();
        let d = s.next_job().unwrap();
        assert_eq!((c.key.board.as_str(), d.key.board.as_str()), ("b1", "b2"));
    }

    #[test]
    fn an_engine_that_dies_gets_a_second_try_and_a_refusal_none() {
        let mut s = Scheduler::new();
        s.offer_position(&key("b1"), "g1", game(&["Q16"]));
        let j = s.next_job().unwrap();
        s.finish(&j, Outcome::Retry);
        let again = s.next_job().unwrap();
        assert_eq!(again.number, 1, "tried again");
        s.finish(&again, Outcome::Retry);
        let next = s.next_job().unwrap();
        assert_eq!(next.number, 0, "given up after two tries");
        s.finish(&next, Outcome::GiveUp);
        assert!(s.next_job().is_none());
        assert_eq!(numbers(&s, "b1"), Vec::<u32>::new());
    }

    #[test]
    fn a_new_game_or_a_retraction_drops_what_no_longer_holds() {
        let mut s = Scheduler::new();
        s.offer_position(&key("b1"), "g1", game(&["Q16", "D4"]));
        let j = s.next_job().unwrap();
        s.finish(&j, done(&j));
        let j = s.next_job().unwrap();
        s.finish(&j, done(&j));
        assert_eq!(numbers(&s, "b1"), [1, 2]);
        // Move 2 taken back and played elsewhere: its estimate goes, move 1's stays.
        s.offer_position(&key("b1"), "g1", game(&["Q16", "C3"]));
        assert_eq!(numbers(&s, "b1"), [1]);
        // An answer that comes back for a position the board no longer has is dropped.
        let stale = Job {
            key: key("b1"),
            game: "g1".into(),
            number: 2,
            position: game(&["Q16", "D4"]),
        };
        s.finish(&stale, done(&stale));
        assert_eq!(numbers(&s, "b1"), [1]);
        // A new game starts afresh.
        s.offer_position(&key("b1"), "g2", game(&[]));
        assert_eq!(numbers(&s, "b1"), Vec::<u32>::new());
        assert_eq!(s.next_job().unwrap().number, 0);
        assert_eq!(s.estimates(&key("nope")), None);
    }

    #[test]
    fn handicap_games_start_with_white() {
        let p = Position {
            handicap: vec!["D4".into(), "Q16".into()],
            ..game(&[])
        };
        assert_eq!(p.to_move(), Color::White);
        assert_eq!(game(&[]).to_move(), Color::Black);
    }
}
