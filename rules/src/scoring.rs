//! Area counting (Art. 9), komi (Art. 11), handicap compensation and warnings (Art. 24).
//!
//! Everything is computed in exact integers (quarter stones) and only converted to
//! floating point for the result fields, so no rounding can move a result across par.

use serde::Serialize;
use thiserror::Error;

use crate::{Board, Color, Point};

/// What the count needs besides the board.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreRules {
    /// Komi in points (7.5 = 3¾ stones); must be a multiple of 0.5 points. May be 0 or
    /// negative.
    pub komi_points: f64,
    /// Number of handicap stones; from 2 up, Black gives back half of them in stones.
    pub handicap: u8,
    /// Warnings per player, indexed by [`Color::index`]; each costs one stone (Art. 24).
    pub warnings: [u32; 2],
}

impl Default for ScoreRules {
    /// An even game with the standard komi of 7.5 points and no warnings.
    fn default() -> ScoreRules {
        ScoreRules {
            komi_points: 7.5,
            handicap: 0,
            warnings: [0, 0],
        }
    }
}

/// The result of a count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    /// Black's stones plus empty points only Black reaches, plus half the dame.
    pub black_area: f64,
    /// White's stones plus empty points only White reaches, plus half the dame.
    pub white_area: f64,
    /// Empty points reached by both colours (or by neither).
    pub dame: u32,
    /// Komi in stones (komi points / 2).
    pub komi_stones: f64,
    /// The winner, `None` for a draw at exactly par.
    pub winner: Option<Color>,
    /// The winner's margin in stones (0.25 steps, ≥ 0).
    pub margin_stones: f64,
    /// The winner's margin in points (twice the stones, ≥ 0).
    pub margin_points: f64,
    /// The result in SGF form: `B+1.5`, `W+0.5`, `B+12`, or `0` for a draw.
    pub result: String,
}

/// Why a position could not be counted.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ScoreError {
    /// A point given as dead holds no stone.
    #[error("dead point {0} is empty")]
    DeadPointEmpty(Point),
    /// A point given as dead is off the board.
    #[error("dead point at column {col}, row {row} (1-based) is off the {size}x{size} board")]
    OffBoard {
        /// 1-based column.
        col: u16,
        /// 1-based row from the bottom.
        row: u16,
        /// The board size.
        size: u8,
    },
    /// Komi is not a whole number of half points (or not a finite number).
    #[error("komi {0} is not a multiple of 0.5 points")]
    BadKomi(f64),
}

/// Counts `board` after lifting the `dead` stones, under `rules`.
///
/// Each empty region (after lifting) that touches only black stones is Black's, only
/// white stones White's; a region touching both or neither is dame and shared half and
/// half, so `black_area + white_area == size²`. Black's margin in stones is
/// `black_area − size²/2 − komi_stones − handicap/2 − warnings_B + warnings_W`.
pub fn score(board: &Board, dead: &[Point], rules: &ScoreRules) -> Result<Score, ScoreError> {
    let size = board.size();
    let komi_half_points = rules.komi_points * 2.0;
    if !komi_half_points.is_finite()
        || komi_half_points.fract() != 0.0
        || komi_half_points.abs() > 1e9
    {
        return Err(ScoreError::BadKomi(rules.komi_points));
    }
    // komi in quarter stones = komi points * 2.
    let komi_q = komi_half_points as i64;

    let n = size as usize;
    let mut grid: Vec<Option<Color>> = (0..n * n)
        .map(|k| board.get(Point::from_index(k, size)))
        .collect();
    for &p in dead {
        if !p.on_board(size) {
            return Err(ScoreError::OffBoard {
                col: p.col as u16 + 1,
                row: p.row as u16 + 1,
                size,
            });
        }
        let k = p.index(size);
        if grid[k].is_none() && board.get(p).is_none() {
            return Err(ScoreError::DeadPointEmpty(p));
        }
        grid[k] = None;
    }

    let (mut black, mut white, mut dame) = (0i64, 0i64, 0i64);
    for c in grid.iter().flatten() {
        match c {
            Color::Black => black += 1,
            Color::White => white += 1,
        }
    }
    let mut seen = vec![false; n * n];
    let mut stack = Vec::with_capacity(n * n);
    for start in 0..n * n {
        if seen[start] || grid[start].is_some() {
            continue;
        }
        let (mut region, mut reach_b, mut reach_w) = (0i64, false, false);
        seen[start] = true;
        stack.push(start);
        while let Some(k) = stack.pop() {
            region += 1;
            let (r, c) = (k / n, k % n);
            let mut visit = |j: usize| match grid[j] {
                Some(Color::Black) => reach_b = true,
                Some(Color::White) => reach_w = true,
                None => {
                    if !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            };
            if r > 0 {
                visit(k - n);
            }
            if r + 1 < n {
                visit(k + n);
            }
            if c > 0 {
                visit(k - 1);
            }
            if c + 1 < n {
                visit(k + 1);
            }
        }
        match (reach_b, reach_w) {
            (true, false) => black += region,
            (false, true) => white += region,
            _ => dame += region,
        }
    }

    // Quarter stones from here on.
    let black_q = 4 * black + 2 * dame;
    let white_q = 4 * white + 2 * dame;
    let par_q = 2 * (n as i64 * n as i64);
    let handicap_q = if rules.handicap >= 2 {
        2 * rules.handicap as i64
    } else {
        0
    };
    let warn_q = 4 * (rules.warnings[Color::Black.index()] as i64)
        - 4 * (rules.warnings[Color::White.index()] as i64);
    let margin_q = black_q - par_q - komi_q - handicap_q - warn_q;

    let winner = match margin_q.signum() {
        1 => Some(Color::Black),
        -1 => Some(Color::White),
        _ => None,
    };
    let abs_q = margin_q.abs();
    let margin_points = abs_q as f64 / 2.0;
    let result = match winner {
        Some(c) => format!("{}+{}", c.letter(), format_half(abs_q)),
        None => "0".to_string(),
    };
    Ok(Score {
        black_area: black_q as f64 / 4.0,
        white_area: white_q as f64 / 4.0,
        dame: dame as u32,
        komi_stones: komi_q as f64 / 4.0,
        winner,
        margin_stones: abs_q as f64 / 4.0,
        margin_points,
        result,
    })
}

/// Writes `q / 2` exactly: `12`, `1.5`.
fn format_half(q: i64) -> String {
    if q % 2 == 0 {
        format!("{}", q / 2)
    } else {
        format!("{}.5", q / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::format_half;

    #[test]
    fn halves_are_written_like_sgf() {
        assert_eq!(format_half(3), "1.5");
        assert_eq!(format_half(1), "0.5");
        assert_eq!(format_half(24), "12");
        assert_eq!(format_half(0), "0");
    }
}
