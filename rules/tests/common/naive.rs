//! A deliberately naive second implementation of the rules, used as an oracle: a plain
//! grid, flood-fill liberties, and the whole list of earlier positions compared one by one.
//! Nothing here is shared with the real board code.

use std::collections::HashSet;

use tengen_rules::{Color, Illegal, Point, Superko};

/// A position: the grid (index = Point::index) and who is to move.
pub(crate) type Grid = Vec<Option<Color>>;

/// The naive game.
#[derive(Clone, Debug)]
pub(crate) struct Naive {
    pub size: u8,
    pub grid: Grid,
    pub to_move: Color,
    pub superko: Superko,
    /// Every earlier situation (stones, player to move), including the current one.
    pub seen: HashSet<(Grid, Color)>,
    /// Every earlier position (stones only), including the current one.
    pub seen_stones: HashSet<Grid>,
    /// The simple-ko point for the next move: (point, colour that may not retake).
    pub ko: Option<(Point, Color)>,
}

fn neighbours(p: Point, size: u8) -> impl Iterator<Item = Point> {
    let (c, r) = (p.col as i16, p.row as i16);
    [(c - 1, r), (c + 1, r), (c, r - 1), (c, r + 1)]
        .into_iter()
        .filter(move |&(c, r)| c >= 0 && r >= 0 && c < size as i16 && r < size as i16)
        .map(|(c, r)| Point::new(c as u8, r as u8))
}

/// The chain through `p` and whether it has any liberty.
pub(crate) fn chain(grid: &Grid, size: u8, p: Point) -> (Vec<Point>, usize) {
    let color = grid[p.index(size)];
    let mut seen = vec![false; grid.len()];
    let mut libs = vec![false; grid.len()];
    let mut stack = vec![p];
    let mut out = vec![];
    seen[p.index(size)] = true;
    while let Some(q) = stack.pop() {
        out.push(q);
        for n in neighbours(q, size) {
            let k = n.index(size);
            if grid[k].is_none() {
                libs[k] = true;
            } else if grid[k] == color && !seen[k] {
                seen[k] = true;
                stack.push(n);
            }
        }
    }
    (out, libs.iter().filter(|&&l| l).count())
}

/// The grid after `color` plays `p` (assumed empty) and the captured points; `None` if
/// the stone has no liberty afterwards (suicide).
pub(crate) fn after_move(
    grid: &Grid,
    size: u8,
    color: Color,
    p: Point,
) -> Option<(Grid, Vec<Point>)> {
    let mut g = grid.clone();
    g[p.index(size)] = Some(color);
    let mut captured = vec![];
    for n in neighbours(p, size) {
        if g[n.index(size)] == Some(color.opponent()) {
            let (stones, libs) = chain(&g, size, n);
            if libs == 0 {
                for s in stones {
                    g[s.index(size)] = None;
                    captured.push(s);
                }
            }
        }
    }
    if chain(&g, size, p).1 == 0 {
        return None;
    }
    captured.sort();
    Some((g, captured))
}

impl Naive {
    pub(crate) fn new(size: u8, superko: Superko) -> Naive {
        let grid = vec![None; size as usize * size as usize];
        Naive::from_grid(size, grid, Color::Black, superko)
    }

    /// A game starting from `grid` with `to_move` to play.
    pub(crate) fn from_grid(size: u8, grid: Grid, to_move: Color, superko: Superko) -> Naive {
        Naive {
            size,
            seen: HashSet::from([(grid.clone(), to_move)]),
            seen_stones: HashSet::from([grid.clone()]),
            grid,
            to_move,
            superko,
            ko: None,
        }
    }

    /// A game from a diagram (`.`, `X`, `O`, top row first).
    pub(crate) fn from_rows(size: u8, rows: &str, to_move: Color, superko: Superko) -> Naive {
        let grid = rows
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| match c {
                'X' => Some(Color::Black),
                'O' => Some(Color::White),
                _ => None,
            })
            .collect();
        Naive::from_grid(size, grid, to_move, superko)
    }

    /// The result of `color` playing `p`, or why it is illegal.
    pub(crate) fn try_move(&self, color: Color, p: Point) -> Result<(Grid, Vec<Point>), Illegal> {
        if self.grid[p.index(self.size)].is_some() {
            return Err(Illegal::Occupied);
        }
        let (g, caps) = after_move(&self.grid, self.size, color, p).ok_or(Illegal::Suicide)?;
        let next = color.opponent();
        let repeated = self
            .seen
            .iter()
            .any(|(old, who)| old == &g && (self.superko == Superko::Positional || *who == next));
        if repeated {
            return Err(if self.ko == Some((p, color)) {
                Illegal::Ko
            } else {
                Illegal::Superko
            });
        }
        Ok((g, caps))
    }

    pub(crate) fn legal(&self, color: Color) -> Vec<Point> {
        let mut out = vec![];
        for col in 0..self.size {
            for row in 0..self.size {
                let p = Point::new(col, row);
                if self.try_move(color, p).is_ok() {
                    out.push(p);
                }
            }
        }
        out
    }

    /// Plays (None = pass) for `color`; returns the captures.
    pub(crate) fn play(&mut self, color: Color, mv: Option<Point>) -> Result<Vec<Point>, Illegal> {
        let caps = match mv {
            None => {
                self.ko = None;
                vec![]
            }
            Some(p) => {
                let (g, caps) = self.try_move(color, p)?;
                self.grid = g;
                self.ko = None;
                if caps.len() == 1 {
                    let (stones, libs) = chain(&self.grid, self.size, p);
                    if stones.len() == 1 && libs == 1 {
                        self.ko = Some((caps[0], color.opponent()));
                    }
                }
                caps
            }
        };
        self.to_move = color.opponent();
        self.seen.insert((self.grid.clone(), self.to_move));
        self.seen_stones.insert(self.grid.clone());
        Ok(caps)
    }

    pub(crate) fn rows(&self) -> String {
        self.grid
            .iter()
            .map(|c| match c {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None => '.',
            })
            .collect()
    }

    /// Naive area count (stones + regions reached by one colour; dame counted apart).
    pub(crate) fn area(&self) -> (usize, usize, usize) {
        let size = self.size;
        let n = self.grid.len();
        let (mut b, mut w, mut d) = (0, 0, 0);
        let mut seen = vec![false; n];
        for k in 0..n {
            match self.grid[k] {
                Some(Color::Black) => b += 1,
                Some(Color::White) => w += 1,
                None if !seen[k] => {
                    let mut stack = vec![Point::from_index(k, size)];
                    seen[k] = true;
                    let (mut cnt, mut rb, mut rw) = (0, false, false);
                    while let Some(q) = stack.pop() {
                        cnt += 1;
                        for nb in neighbours(q, size) {
                            let j = nb.index(size);
                            match self.grid[j] {
                                Some(Color::Black) => rb = true,
                                Some(Color::White) => rw = true,
                                None if !seen[j] => {
                                    seen[j] = true;
                                    stack.push(nb);
                                }
                                None => {}
                            }
                        }
                    }
                    match (rb, rw) {
                        (true, false) => b += cnt,
                        (false, true) => w += cnt,
                        _ => d += cnt,
                    }
                }
                None => {}
            }
        }
        (b, w, d)
    }
}
