//! The board: stones on a padded flat array, chains with pseudo-liberty counts, and an
//! incremental Zobrist hash. Legality (suicide, ko, superko) lives in [`crate::game`]; this
//! module only knows how stones go down and come off.
//!
//! Representation: the `size` x `size` grid sits inside a border one point wide, so every
//! point has four neighbours without bounds checks. Each chain is a circular list of its
//! stones; its head keeps the number of pseudo-liberties (empty neighbours counted once per
//! adjacent stone) together with their sum and sum of squares, which tells in O(1) whether
//! the chain has no liberty (count 0) or exactly one distinct liberty (count * sum of
//! squares == sum²).

use crate::point::{check_size, MAX_SIZE};
use crate::setup_error::SetupError;
use crate::{Color, CoordError, Point};

/// Points on the largest padded board (25 + 2 border lines squared).
pub(crate) const MAX_PAD: usize = (MAX_SIZE as usize + 2) * (MAX_SIZE as usize + 2);
/// 64-bit words of the packed position (2 bits per padded point).
pub(crate) const WORDS: usize = (MAX_PAD * 2).div_ceil(64);

/// Cell values of the padded array.
pub(crate) const EMPTY: u8 = 0;
const BORDER: u8 = 3;

/// Cell value of a stone of `c` (1 black, 2 white).
#[inline]
pub(crate) fn cell_of(c: Color) -> u8 {
    c.index() as u8 + 1
}

/// The colour of a cell value 1 or 2.
#[inline]
fn color_of_cell(v: u8) -> Option<Color> {
    match v {
        1 => Some(Color::Black),
        2 => Some(Color::White),
        _ => None,
    }
}

/// Zobrist keys: one per colour and padded point, plus a side-to-move key (used by the
/// situational superko table in [`crate::game`], never by [`Board::hash`]).
pub(crate) struct Zobrist {
    pub(crate) stones: [[u64; MAX_PAD]; 2],
    pub(crate) side: u64,
}

/// SplitMix64 step, usable at compile time.
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn build_keys() -> Zobrist {
    let mut stones = [[0u64; MAX_PAD]; 2];
    let mut state = 0x7465_6E67_656E_0001u64; // "tengen"
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < MAX_PAD {
            let (s, v) = splitmix(state);
            state = s;
            stones[c][i] = v;
            i += 1;
        }
        c += 1;
    }
    let (_, side) = splitmix(state);
    Zobrist { stones, side }
}

/// The keys every ordinary board uses.
static KEYS: Zobrist = build_keys();

/// All-zero keys: every position hashes to 0, so every lookup is a hash hit and the
/// repetition check must fall back on comparing whole positions. Test-only use.
static DEGENERATE_KEYS: Zobrist = Zobrist {
    stones: [[0; MAX_PAD]; 2],
    side: 0,
};

/// What placing one stone would do, computed without changing the board.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MoveInfo {
    /// Heads of the distinct opposing chains the stone captures.
    pub(crate) captures: [u16; 4],
    /// How many entries of `captures` are used.
    pub(crate) n_captures: u8,
    /// Number of stones captured.
    pub(crate) captured_stones: u32,
    /// True when the stone would have no liberty and captures nothing.
    pub(crate) suicide: bool,
    /// The board hash after the move.
    pub(crate) new_hash: u64,
}

/// A square Go board of size 2..=25 with its stones, chains and Zobrist hash.
#[derive(Clone)]
pub struct Board {
    size: u8,
    stride: usize,
    cells: [u8; MAX_PAD],
    next: [u16; MAX_PAD],
    head: [u16; MAX_PAD],
    libs: [u16; MAX_PAD],
    lib_sum: [u32; MAX_PAD],
    lib_sq: [u64; MAX_PAD],
    chain_len: [u16; MAX_PAD],
    chain_hash: [u64; MAX_PAD],
    packed: [u64; WORDS],
    hash: u64,
    counts: [u32; 2],
    keys: &'static Zobrist,
}

impl PartialEq for Board {
    /// Two boards are equal when they have the same size and the same stones (chain
    /// bookkeeping and the hash table in use do not matter).
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size && self.cells[..] == other.cells[..]
    }
}

impl Eq for Board {}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Board {}x{} (hash {:016x})",
            self.size, self.size, self.hash
        )?;
        let rows = self.to_rows();
        for line in rows.as_bytes().chunks(self.size as usize) {
            writeln!(f, "  {}", String::from_utf8_lossy(line))?;
        }
        Ok(())
    }
}

impl Board {
    /// An empty board of `size` x `size` (2..=25).
    pub fn new(size: u8) -> Result<Board, CoordError> {
        Board::new_with_keys(size, &KEYS)
    }

    /// An empty board whose Zobrist keys are all zero, so that every position has the
    /// same hash. Only for tests of the collision handling: the rules must give exactly the
    /// same answers as with real keys, just slower.
    #[doc(hidden)]
    pub fn new_degenerate_hash(size: u8) -> Result<Board, CoordError> {
        Board::new_with_keys(size, &DEGENERATE_KEYS)
    }

    fn new_with_keys(size: u8, keys: &'static Zobrist) -> Result<Board, CoordError> {
        check_size(size)?;
        let stride = size as usize + 2;
        let mut cells = [BORDER; MAX_PAD];
        for row in 0..size as usize {
            for col in 0..size as usize {
                cells[(row + 1) * stride + col + 1] = EMPTY;
            }
        }
        Ok(Board {
            size,
            stride,
            cells,
            next: [0; MAX_PAD],
            head: [0; MAX_PAD],
            libs: [0; MAX_PAD],
            lib_sum: [0; MAX_PAD],
            lib_sq: [0; MAX_PAD],
            chain_len: [0; MAX_PAD],
            chain_hash: [0; MAX_PAD],
            packed: [0; WORDS],
            hash: 0,
            counts: [0; 2],
            keys,
        })
    }

    /// Reads a diagram in the form [`Board::to_rows`] writes (`.` empty, `X` black, `O`
    /// white, top row first); whitespace is ignored. Every chain must have a liberty.
    pub fn from_rows(size: u8, text: &str) -> Result<Board, SetupError> {
        let mut board = Board::new(size).map_err(|_| SetupError::BadSize(size))?;
        let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let n = size as usize * size as usize;
        if chars.len() != n {
            return Err(SetupError::BadDiagram(format!(
                "{} points given, a {size}x{size} board has {n}",
                chars.len()
            )));
        }
        for (k, ch) in chars.iter().enumerate() {
            let p = Point::from_index(k, size);
            let i = board.idx(p);
            board.cells[i] = match ch {
                '.' | '+' => EMPTY,
                'X' | 'x' | 'B' | 'b' => cell_of(Color::Black),
                'O' | 'o' | 'W' | 'w' => cell_of(Color::White),
                other => {
                    return Err(SetupError::BadDiagram(format!(
                        "unexpected character '{other}' at {p}"
                    )))
                }
            };
        }
        board.rebuild();
        match board.chain_without_liberty() {
            Some(p) => Err(SetupError::NoLiberties(p)),
            None => Ok(board),
        }
    }

    /// The board size (lines per side).
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The stone on `p`, or `None` if `p` is empty or off the board.
    pub fn get(&self, p: Point) -> Option<Color> {
        if !p.on_board(self.size) {
            return None;
        }
        color_of_cell(self.cells[self.idx(p)])
    }

    /// Every stone on the board, in point order (column, then row).
    pub fn stones(&self) -> Vec<(Point, Color)> {
        let mut out = Vec::with_capacity((self.counts[0] + self.counts[1]) as usize);
        for col in 0..self.size {
            for row in 0..self.size {
                let p = Point::new(col, row);
                if let Some(c) = color_of_cell(self.cells[self.idx(p)]) {
                    out.push((p, c));
                }
            }
        }
        out
    }

    /// Number of stones of colour `c` on the board.
    pub fn count(&self, c: Color) -> usize {
        self.counts[c.index()] as usize
    }

    /// The incremental Zobrist hash of the stones (the side to move is not included).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The Zobrist hash recomputed from the stones alone, in O(size²): for consistency
    /// checks of the incremental [`Board::hash`].
    pub fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for (i, &v) in self.cells.iter().enumerate() {
            if let Some(c) = color_of_cell(v) {
                h ^= self.keys.stones[c.index()][i];
            }
        }
        h
    }

    /// The wire contract's `state.board`: `size*size` characters `.`, `X` (black), `O` (white), rows
    /// from the top row down, columns left to right.
    pub fn to_rows(&self) -> String {
        let mut s = String::with_capacity(self.size as usize * self.size as usize);
        for k in 0..self.size as usize * self.size as usize {
            let p = Point::from_index(k, self.size);
            s.push(match self.cells[self.idx(p)] {
                1 => 'X',
                2 => 'O',
                _ => '.',
            });
        }
        s
    }

    // ----- crate-internal machinery -------------------------------------------------

    /// Padded index of an on-board point.
    #[inline]
    pub(crate) fn idx(&self, p: Point) -> usize {
        (p.row as usize + 1) * self.stride + p.col as usize + 1
    }

    /// The point of a padded index.
    #[inline]
    pub(crate) fn point_of(&self, i: usize) -> Point {
        Point::new((i % self.stride - 1) as u8, (i / self.stride - 1) as u8)
    }

    /// The four neighbours of a padded index.
    #[inline]
    fn nbrs(&self, i: usize) -> [usize; 4] {
        [i - self.stride, i - 1, i + 1, i + self.stride]
    }

    /// The raw cell value (0 empty, 1 black, 2 white, 3 border).
    #[inline]
    pub(crate) fn cell(&self, i: usize) -> u8 {
        self.cells[i]
    }

    /// Padded indices of all on-board points.
    pub(crate) fn on_board_indices(&self) -> impl Iterator<Item = usize> + '_ {
        let s = self.size as usize;
        let stride = self.stride;
        (0..s).flat_map(move |r| (0..s).map(move |c| (r + 1) * stride + c + 1))
    }

    /// The keys this board hashes with.
    pub(crate) fn keys(&self) -> &'static Zobrist {
        self.keys
    }

    /// Number of packed words a position of this size needs.
    pub(crate) fn packed_words(&self) -> usize {
        (self.stride * self.stride * 2).div_ceil(64)
    }

    /// The packed position (2 bits per padded point).
    pub(crate) fn packed(&self) -> &[u64] {
        &self.packed[..self.packed_words()]
    }

    #[inline]
    fn pack_set(packed: &mut [u64], i: usize, v: u8) {
        let bit = i * 2;
        let w = &mut packed[bit / 64];
        *w = (*w & !(3u64 << (bit % 64))) | ((v as u64) << (bit % 64));
    }

    /// True when the chain headed by `h` has exactly one distinct liberty.
    #[inline]
    fn in_atari(&self, h: usize) -> bool {
        let n = self.libs[h] as u64;
        let s = self.lib_sum[h] as u64;
        n > 0 && n * self.lib_sq[h] == s * s
    }

    /// True when the chain headed by `h` has no liberty at all.
    #[inline]
    fn no_liberty(&self, h: usize) -> bool {
        self.libs[h] == 0
    }

    #[inline]
    fn add_lib(&mut self, h: usize, lib: usize) {
        self.libs[h] += 1;
        self.lib_sum[h] += lib as u32;
        self.lib_sq[h] += (lib * lib) as u64;
    }

    #[inline]
    fn remove_lib(&mut self, h: usize, lib: usize) {
        self.libs[h] -= 1;
        self.lib_sum[h] -= lib as u32;
        self.lib_sq[h] -= (lib * lib) as u64;
    }

    /// What `c` playing on the empty point `i` would do, without changing the board.
    #[inline]
    pub(crate) fn analyze(&self, c: Color, i: usize) -> MoveInfo {
        let own = cell_of(c);
        let opp = cell_of(c.opponent());
        let mut info = MoveInfo {
            captures: [0; 4],
            n_captures: 0,
            captured_stones: 0,
            suicide: false,
            new_hash: self.hash ^ self.keys.stones[c.index()][i],
        };
        let mut has_liberty = false;
        for n in self.nbrs(i) {
            let v = self.cells[n];
            if v == EMPTY {
                has_liberty = true;
            } else if v == own {
                if !self.in_atari(self.head[n] as usize) {
                    has_liberty = true;
                }
            } else if v == opp {
                let h = self.head[n];
                if self.in_atari(h as usize)
                    && !info.captures[..info.n_captures as usize].contains(&h)
                {
                    info.captures[info.n_captures as usize] = h;
                    info.n_captures += 1;
                    info.captured_stones += self.chain_len[h as usize] as u32;
                    info.new_hash ^= self.chain_hash[h as usize];
                }
            }
        }
        info.suicide = !has_liberty && info.n_captures == 0;
        info
    }

    /// The packed position after the move `analyze` described (for exact repetition
    /// checks behind a hash hit).
    pub(crate) fn packed_after(&self, c: Color, i: usize, info: &MoveInfo) -> [u64; WORDS] {
        let mut p = self.packed;
        Board::pack_set(&mut p, i, cell_of(c));
        for &h in &info.captures[..info.n_captures as usize] {
            let mut s = h as usize;
            loop {
                Board::pack_set(&mut p, s, EMPTY);
                s = self.next[s] as usize;
                if s == h as usize {
                    break;
                }
            }
        }
        p
    }

    /// Puts a stone of `c` on the empty point `i` and removes what it captures, pushing
    /// the captured points (unsorted) onto `captured`. The caller has checked legality.
    pub(crate) fn place(&mut self, c: Color, i: usize, captured: &mut Vec<Point>) {
        let own = cell_of(c);
        let opp = cell_of(c.opponent());
        let key = self.keys.stones[c.index()][i];
        self.cells[i] = own;
        Board::pack_set(&mut self.packed, i, own);
        self.hash ^= key;
        self.counts[c.index()] += 1;
        self.head[i] = i as u16;
        self.next[i] = i as u16;
        self.chain_len[i] = 1;
        self.chain_hash[i] = key;
        self.libs[i] = 0;
        self.lib_sum[i] = 0;
        self.lib_sq[i] = 0;
        let nbrs = self.nbrs(i);
        for n in nbrs {
            let v = self.cells[n];
            if v == EMPTY {
                self.add_lib(i, n);
            } else if v != BORDER {
                let h = self.head[n] as usize;
                self.remove_lib(h, i);
            }
        }
        for n in nbrs {
            if self.cells[n] == own {
                let (a, b) = (self.head[i] as usize, self.head[n] as usize);
                if a != b {
                    self.merge(a, b);
                }
            }
        }
        for n in nbrs {
            if self.cells[n] == opp {
                let h = self.head[n] as usize;
                if self.no_liberty(h) {
                    self.remove_chain(h, captured);
                }
            }
        }
    }

    /// Merges the chains headed by `a` and `b` (the longer one keeps its head).
    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = if self.chain_len[a] >= self.chain_len[b] {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            self.head[s] = big as u16;
            s = self.next[s] as usize;
            if s == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.libs[big] += self.libs[small];
        self.lib_sum[big] += self.lib_sum[small];
        self.lib_sq[big] += self.lib_sq[small];
        self.chain_len[big] += self.chain_len[small];
        self.chain_hash[big] ^= self.chain_hash[small];
    }

    /// Takes the chain headed by `h` off the board, giving liberties back to the chains
    /// around it.
    fn remove_chain(&mut self, h: usize, captured: &mut Vec<Point>) {
        let Some(c) = color_of_cell(self.cells[h]) else {
            return;
        };
        let other = cell_of(c.opponent());
        let mut s = h;
        loop {
            self.cells[s] = EMPTY;
            Board::pack_set(&mut self.packed, s, EMPTY);
            self.hash ^= self.keys.stones[c.index()][s];
            self.counts[c.index()] -= 1;
            captured.push(self.point_of(s));
            for n in self.nbrs(s) {
                if self.cells[n] == other {
                    let hn = self.head[n] as usize;
                    self.add_lib(hn, s);
                }
            }
            s = self.next[s] as usize;
            if s == h {
                break;
            }
        }
    }

    /// Sets a cell without any chain bookkeeping; call [`Board::rebuild`] afterwards.
    pub(crate) fn set_raw(&mut self, i: usize, v: Option<Color>) {
        self.cells[i] = v.map_or(EMPTY, cell_of);
    }

    /// Recomputes chains, liberties, counts, the packed position and the hash from the
    /// cells alone (O(size²); used after setup and undo).
    pub(crate) fn rebuild(&mut self) {
        self.packed = [0; WORDS];
        self.hash = 0;
        self.counts = [0; 2];
        let indices: Vec<usize> = self.on_board_indices().collect();
        for &i in &indices {
            self.head[i] = u16::MAX;
        }
        for &i in &indices {
            let v = self.cells[i];
            Board::pack_set(&mut self.packed, i, v);
            let Some(c) = color_of_cell(v) else {
                continue;
            };
            self.hash ^= self.keys.stones[c.index()][i];
            self.counts[c.index()] += 1;
            if self.head[i] != u16::MAX {
                continue;
            }
            // Flood-fill the chain of i and link it into a circular list headed by i.
            let h = i;
            self.head[h] = h as u16;
            self.next[h] = h as u16;
            self.chain_len[h] = 1;
            self.chain_hash[h] = self.keys.stones[c.index()][h];
            self.libs[h] = 0;
            self.lib_sum[h] = 0;
            self.lib_sq[h] = 0;
            let mut stack = vec![h];
            while let Some(s) = stack.pop() {
                for n in self.nbrs(s) {
                    let nv = self.cells[n];
                    if nv == EMPTY {
                        self.add_lib(h, n);
                    } else if nv == v && self.head[n] == u16::MAX {
                        self.head[n] = h as u16;
                        self.next[n] = self.next[h];
                        self.next[h] = n as u16;
                        self.chain_len[h] += 1;
                        self.chain_hash[h] ^= self.keys.stones[c.index()][n];
                        stack.push(n);
                    }
                }
            }
        }
    }

    /// Pushes the points of the chain headed by `h` onto `out`.
    pub(crate) fn chain_points(&self, h: usize, out: &mut Vec<Point>) {
        let mut s = h;
        loop {
            out.push(self.point_of(s));
            s = self.next[s] as usize;
            if s == h {
                break;
            }
        }
    }

    /// True when the stone on `i` is a chain of its own with exactly one liberty (the
    /// shape of a stone that has just taken a ko).
    pub(crate) fn is_lone_in_atari(&self, i: usize) -> bool {
        let h = self.head[i] as usize;
        self.chain_len[h] == 1 && self.in_atari(h)
    }

    /// A stone of some chain that has no liberty, if any (setups must not contain one).
    pub(crate) fn chain_without_liberty(&self) -> Option<Point> {
        self.on_board_indices()
            .find(|&i| self.cells[i] != EMPTY && self.libs[self.head[i] as usize] == 0)
            .map(|i| self.point_of(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut all: Vec<u64> = KEYS.stones.iter().flatten().copied().collect();
        all.push(KEYS.side);
        assert!(all.iter().all(|&k| k != 0));
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 2 * MAX_PAD + 1);
    }

    #[test]
    fn rows_round_trip() {
        let text = ".X.O\nXX..\n....\nO..X";
        let b = Board::from_rows(4, text).unwrap();
        assert_eq!(b.to_rows(), ".X.OXX......O..X");
        assert_eq!(b.get(Point::new(1, 3)), Some(Color::Black));
        assert_eq!(b.get(Point::new(0, 0)), Some(Color::White));
        assert_eq!(b.count(Color::Black), 4);
        assert_eq!(b.count(Color::White), 2);
        assert_eq!(b.hash(), b.hash_from_scratch());
    }

    #[test]
    fn atari_detection_by_pseudo_liberties() {
        // The black pair A1-B1 under white A2-B2 has the single liberty C1.
        let b = Board::from_rows(3, "...\nOO.\nXX.").unwrap();
        let h = b.head[b.idx(Point::new(0, 0))] as usize;
        assert!(b.in_atari(h));
        let b = Board::from_rows(3, "...\n.O.\nXX.").unwrap();
        let h = b.head[b.idx(Point::new(0, 0))] as usize;
        assert!(!b.in_atari(h));
    }
}
