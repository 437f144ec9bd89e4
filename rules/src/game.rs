//! A game under the Chinese rules: whose turn it is, legality (occupied, suicide, ko,
//! whole-board repetition), passes, prisoners, history and undo.
//!
//! Repetition (Art. 6, 20) is checked against every earlier position of the game,
//! including the start position (the handicap position in a handicap game). Positions are
//! found by Zobrist hash and then compared stone by stone, so a hash collision can never
//! make a legal move illegal.
//!
//! Situational superko here means: a move may not produce stones that already occurred
//! with the same player to move; passes count as turns (a pass hands the move over, so the
//! same stones with the other side to move are a new situation). This is also what GNU Go's
//! `--situational-superko` checks (tested against it in `tests/gnugo_oracle.rs`); GNU Go
//! however forgets the oldest positions once its 500-move history is full, tengen never
//! does. [`Illegal::Ko`] is the name given to a forbidden repetition that is the immediate
//! recapture of a simple ko; every other one is [`Illegal::Superko`].

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use thiserror::Error;

use crate::board::{Board, MoveInfo, EMPTY};
use crate::handicap::handicap_points;
use crate::{Color, Move, Point};

pub use crate::setup_error::SetupError;

/// Which whole-board repetitions are forbidden (Art. 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Superko {
    /// A move may not recreate the same stones with the same player to move (the default).
    #[default]
    Situational,
    /// A move may not recreate the same stones, whoever is to move.
    Positional,
}

impl Superko {
    /// Parses `situational` or `positional` (case-insensitive; also `ssk` / `psk`).
    pub fn parse(s: &str) -> Option<Superko> {
        match s.trim().to_ascii_lowercase().as_str() {
            "situational" | "ssk" => Some(Superko::Situational),
            "positional" | "psk" => Some(Superko::Positional),
            _ => None,
        }
    }

    /// `"situational"` or `"positional"`, as config files and events write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Superko::Situational => "situational",
            Superko::Positional => "positional",
        }
    }
}

/// Why a move is not allowed. `Display` writes the reason as the wire contract names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Error)]
pub enum Illegal {
    /// The point already holds a stone.
    #[error("occupied")]
    Occupied,
    /// The stone would have no liberty and captures nothing (Art. 5).
    #[error("suicide")]
    Suicide,
    /// Immediate recapture of a ko (Art. 18.3, 20.1): it would recreate the position
    /// before the opponent's last move.
    #[error("ko")]
    Ko,
    /// Any other whole-board repetition (Art. 6, 20).
    #[error("superko")]
    Superko,
    /// The point is not on the board.
    #[error("off_board")]
    OffBoard,
}

impl Illegal {
    /// The reason as the wire contract names it: `occupied`, `suicide`, `ko`, `superko`, `off_board`.
    pub fn as_str(self) -> &'static str {
        match self {
            Illegal::Occupied => "occupied",
            Illegal::Suicide => "suicide",
            Illegal::Ko => "ko",
            Illegal::Superko => "superko",
            Illegal::OffBoard => "off_board",
        }
    }
}

/// A move that was played, with what it captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// Who played it.
    pub color: Color,
    /// The move (a point or a pass).
    pub mv: Move,
    /// The stones it removed, sorted in point order (column, then row).
    pub captured: Vec<Point>,
}

/// Hasher for keys that are already uniformly random (Zobrist hashes).
#[derive(Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Marks the end of a chain of same-key entries.
const NONE: u32 = u32::MAX;

/// One earlier position of the game.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    to_move: Color,
    prev_same: u32,
}

/// Every position of the game so far, as a stack: hash index plus the packed positions
/// for the exact comparison behind a hash hit.
#[derive(Clone)]
struct Repetition {
    mode: Superko,
    words: usize,
    arena: Vec<u64>,
    entries: Vec<Entry>,
    index: HashMap<u64, u32, BuildHasherDefault<IdentityHasher>>,
}

impl Repetition {
    fn new(mode: Superko, board: &Board) -> Repetition {
        Repetition {
            mode,
            words: board.packed_words(),
            // Grown as the game goes: reserving 512 positions up front cost ~100 KB per
            // game, which a hall following 1,000 boards (two folds each under a broadcast
            // delay) paid for every board (BENCHMARKS.md, "One state per board").
            arena: Vec::new(),
            entries: Vec::new(),
            index: HashMap::default(),
        }
    }

    #[inline]
    fn key(&self, board: &Board, hash: u64, to_move: Color) -> u64 {
        match (self.mode, to_move) {
            (Superko::Situational, Color::White) => hash ^ board.keys().side,
            _ => hash,
        }
    }

    fn push(&mut self, board: &Board, to_move: Color) {
        let key = self.key(board, board.hash(), to_move);
        let n = self.entries.len() as u32;
        let prev_same = self.index.insert(key, n).unwrap_or(NONE);
        self.entries.push(Entry {
            key,
            to_move,
            prev_same,
        });
        self.arena.extend_from_slice(board.packed());
    }

    fn pop(&mut self) {
        if let Some(e) = self.entries.pop() {
            self.arena.truncate(self.entries.len() * self.words);
            if e.prev_same == NONE {
                self.index.remove(&e.key);
            } else {
                self.index.insert(e.key, e.prev_same);
            }
        }
    }

    /// True when `c` playing `i` (as `info` describes) recreates an earlier position
    /// (with `to_move_after` to move, in situational mode).
    #[inline]
    fn repeats(
        &self,
        board: &Board,
        c: Color,
        i: usize,
        info: &MoveInfo,
        to_move_after: Color,
    ) -> bool {
        let key = self.key(board, info.new_hash, to_move_after);
        let Some(&first) = self.index.get(&key) else {
            return false;
        };
        let after = board.packed_after(c, i, info);
        let after = &after[..self.words];
        let mut e = first;
        while e != NONE {
            let entry = &self.entries[e as usize];
            let start = e as usize * self.words;
            if (self.mode == Superko::Positional || entry.to_move == to_move_after)
                && &self.arena[start..start + self.words] == after
            {
                return true;
            }
            e = entry.prev_same;
        }
        false
    }
}

/// State a move changes besides the board, kept for [`Game::undo`].
#[derive(Debug, Clone, Copy)]
struct UndoInfo {
    to_move: Color,
    ko: Option<(u16, Color)>,
    passes: u32,
}

/// A game in progress: the board, the side to move, ko and repetition history, passes,
/// prisoners and the moves played.
#[derive(Clone)]
pub struct Game {
    board: Board,
    to_move: Color,
    /// The point (padded index) a simple-ko recapture would retake, and who may not.
    ko: Option<(u16, Color)>,
    passes: u32,
    prisoners: [u32; 2],
    history: Vec<Played>,
    undo: Vec<UndoInfo>,
    rep: Repetition,
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("board", &self.board)
            .field("to_move", &self.to_move)
            .field("superko", &self.rep.mode)
            .field("move_number", &self.move_number())
            .field("passes", &self.passes)
            .field("prisoners", &self.prisoners)
            .finish()
    }
}

impl Game {
    /// An empty board, Black to move.
    pub fn new(size: u8, superko: Superko) -> Result<Game, SetupError> {
        let board = Board::new(size).map_err(|_| SetupError::BadSize(size))?;
        Ok(Game::from_board(board, Color::Black, superko))
    }

    /// An empty board whose Zobrist keys are all zero: every position collides, so every
    /// repetition check goes to the full comparison. Only for testing collision handling.
    #[doc(hidden)]
    pub fn with_degenerate_hash(size: u8, superko: Superko) -> Result<Game, SetupError> {
        let board = Board::new_degenerate_hash(size).map_err(|_| SetupError::BadSize(size))?;
        Ok(Game::from_board(board, Color::Black, superko))
    }

    /// A handicap game: `handicap` (0 or 2..=9) black stones on the standard star points
    /// (GNU Go's placement), White to move. The handicap position is the first position
    /// of the game for superko. Handicap 0 is an even game with Black to move.
    pub fn with_handicap(size: u8, handicap: u8, superko: Superko) -> Result<Game, SetupError> {
        let stones = handicap_points(size, handicap)?;
        let to_move = if stones.is_empty() {
            Color::Black
        } else {
            Color::White
        };
        Game::with_setup(size, &stones, &[], to_move, superko)
    }

    /// A game from setup stones (SGF `AB`/`AW`) with the given player to move. The setup
    /// position is the first position for superko.
    pub fn with_setup(
        size: u8,
        black: &[Point],
        white: &[Point],
        to_move: Color,
        superko: Superko,
    ) -> Result<Game, SetupError> {
        let mut board = Board::new(size).map_err(|_| SetupError::BadSize(size))?;
        for (list, color) in [(black, Color::Black), (white, Color::White)] {
            for &p in list {
                if !p.on_board(size) {
                    return Err(SetupError::OffBoard {
                        col: p.col as u16 + 1,
                        row: p.row as u16 + 1,
                        size,
                    });
                }
                let i = board.idx(p);
                if board.cell(i) != EMPTY && board.get(p) != Some(color) {
                    return Err(SetupError::Overlap(p));
                }
                board.set_raw(i, Some(color));
            }
        }
        board.rebuild();
        if let Some(p) = board.chain_without_liberty() {
            return Err(SetupError::NoLiberties(p));
        }
        Ok(Game::from_board(board, to_move, superko))
    }

    fn from_board(board: Board, to_move: Color, superko: Superko) -> Game {
        let mut rep = Repetition::new(superko, &board);
        rep.push(&board, to_move);
        Game {
            board,
            to_move,
            ko: None,
            passes: 0,
            prisoners: [0; 2],
            history: Vec::new(),
            undo: Vec::new(),
            rep,
        }
    }

    /// The current board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The player to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// The repetition rule this game uses.
    pub fn superko(&self) -> Superko {
        self.rep.mode
    }

    /// Checks `color` playing on padded index `i`; returns what the move would do.
    #[inline]
    fn check(&self, color: Color, i: usize) -> Result<MoveInfo, Illegal> {
        if self.board.cell(i) != EMPTY {
            return Err(Illegal::Occupied);
        }
        let info = self.board.analyze(color, i);
        if info.suicide {
            return Err(Illegal::Suicide);
        }
        if self
            .rep
            .repeats(&self.board, color, i, &info, color.opponent())
        {
            return Err(if self.ko == Some((i as u16, color)) {
                Illegal::Ko
            } else {
                Illegal::Superko
            });
        }
        Ok(info)
    }

    /// The exact set of stones (sorted) that `color` playing on `p` now would capture,
    /// without changing anything; an error if the move is illegal for `color`.
    pub fn captures_of(&self, color: Color, p: Point) -> Result<Vec<Point>, Illegal> {
        if !p.on_board(self.board.size()) {
            return Err(Illegal::OffBoard);
        }
        let info = self.check(color, self.board.idx(p))?;
        let mut out = Vec::with_capacity(info.captured_stones as usize);
        for &h in &info.captures[..info.n_captures as usize] {
            self.board.chain_points(h as usize, &mut out);
        }
        out.sort_unstable();
        Ok(out)
    }

    /// True when `color` may play `mv` now (a pass is always legal).
    pub fn is_legal(&self, color: Color, mv: Move) -> bool {
        match mv {
            Move::Pass => true,
            Move::Play(p) => {
                p.on_board(self.board.size()) && self.check(color, self.board.idx(p)).is_ok()
            }
        }
    }

    /// Every point where `color` may play now, in point order (column, then row).
    pub fn legal_moves(&self, color: Color) -> Vec<Point> {
        let size = self.board.size();
        let mut out = Vec::new();
        for col in 0..size {
            for row in 0..size {
                let p = Point::new(col, row);
                if self.check(color, self.board.idx(p)).is_ok() {
                    out.push(p);
                }
            }
        }
        out
    }

    /// Plays `mv` for the side to move.
    pub fn play(&mut self, mv: Move) -> Result<Played, Illegal> {
        self.play_as(self.to_move, mv)
    }

    /// Plays `mv` for `color`, whoever is to move; afterwards `color.opponent()` is to
    /// move. Returns the move with its captures, or why it is illegal (nothing changes).
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<Played, Illegal> {
        let undo = UndoInfo {
            to_move: self.to_move,
            ko: self.ko,
            passes: self.passes,
        };
        let captured = match mv {
            Move::Pass => {
                self.passes += 1;
                self.ko = None;
                Vec::new()
            }
            Move::Play(p) => {
                if !p.on_board(self.board.size()) {
                    return Err(Illegal::OffBoard);
                }
                let i = self.board.idx(p);
                let info = self.check(color, i)?;
                let mut captured = Vec::with_capacity(info.captured_stones as usize);
                self.board.place(color, i, &mut captured);
                captured.sort_unstable();
                self.ko = match captured.as_slice() {
                    [single] if self.board.is_lone_in_atari(i) => {
                        Some((self.board.idx(*single) as u16, color.opponent()))
                    }
                    _ => None,
                };
                self.prisoners[color.index()] += captured.len() as u32;
                self.passes = 0;
                captured
            }
        };
        self.to_move = color.opponent();
        self.rep.push(&self.board, self.to_move);
        self.undo.push(undo);
        let played = Played {
            color,
            mv,
            captured,
        };
        self.history.push(played.clone());
        Ok(played)
    }

    /// Takes back the last move or pass exactly: board, hash, repetition history, side to
    /// move, ko, passes and prisoners. `None` when nothing has been played.
    pub fn undo(&mut self) -> Option<Played> {
        let played = self.history.pop()?;
        let undo = self.undo.pop()?;
        if let Move::Play(p) = played.mv {
            self.board.set_raw(self.board.idx(p), None);
            for &q in &played.captured {
                self.board
                    .set_raw(self.board.idx(q), Some(played.color.opponent()));
            }
            self.board.rebuild();
            self.prisoners[played.color.index()] -= played.captured.len() as u32;
        }
        self.rep.pop();
        self.to_move = undo.to_move;
        self.ko = undo.ko;
        self.passes = undo.passes;
        Some(played)
    }

    /// The moves and passes played so far, in order.
    pub fn history(&self) -> &[Played] {
        &self.history
    }

    /// Moves plus passes played so far.
    pub fn move_number(&self) -> u32 {
        self.history.len() as u32
    }

    /// Passes in a row at the end of the history; 2 means play has ended (Art. 7).
    pub fn consecutive_passes(&self) -> u32 {
        self.passes
    }

    /// Stones captured by `color` so far.
    pub fn prisoners(&self, color: Color) -> u32 {
        self.prisoners[color.index()]
    }
}
