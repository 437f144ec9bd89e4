//! Board points and their two written forms: GTP (`Q16`, used everywhere in tengen's
//! outputs) and SGF (`pd`, used only at the SGF boundary).

use thiserror::Error;

/// The smallest board size the rules core accepts.
pub const MIN_SIZE: u8 = 2;
/// The largest board size the rules core accepts (GTP letters stop at Z without I).
pub const MAX_SIZE: u8 = 25;

/// GTP column letters: `A`..`Z` without `I`.
const GTP_COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// A point on the board: `col` counts from the left (0 = `A`), `row` from the bottom
/// (0 = row 1), as GTP does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// Column from the left, 0-based (`A` = 0, `J` = 8).
    pub col: u8,
    /// Row from the bottom, 0-based (row `1` = 0).
    pub row: u8,
}

/// Why a written point could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CoordError {
    /// The text is not a point in the expected notation.
    #[error("'{0}' is not a point")]
    Malformed(String),
    /// The point is well formed but outside a board of this size.
    #[error("'{text}' is off a {size}x{size} board")]
    OffBoard {
        /// The text as given.
        text: String,
        /// The board size.
        size: u8,
    },
    /// The board size itself is not supported.
    #[error("board size {0} is not supported (2..=25)")]
    BadSize(u8),
}

impl Point {
    /// A point from 0-based column (from the left) and row (from the bottom).
    pub const fn new(col: u8, row: u8) -> Point {
        Point { col, row }
    }

    /// True when the point lies on a `size` x `size` board.
    pub fn on_board(self, size: u8) -> bool {
        self.col < size && self.row < size
    }

    /// Row-major index with row 0 at the *top* (the order of the wire contract's `board` string):
    /// `(size - 1 - row) * size + col`.
    pub fn index(self, size: u8) -> usize {
        (size as usize - 1 - self.row as usize) * size as usize + self.col as usize
    }

    /// Inverse of [`Point::index`].
    pub fn from_index(index: usize, size: u8) -> Point {
        let s = size as usize;
        Point {
            col: (index % s) as u8,
            row: (s - 1 - index / s) as u8,
        }
    }

    /// GTP form, e.g. `Q16`.
    pub fn to_gtp(self) -> String {
        let mut s = String::with_capacity(3);
        s.push(GTP_COLUMNS[self.col as usize] as char);
        s.push_str(&(self.row as u32 + 1).to_string());
        s
    }

    /// Parses a GTP point (`Q16`, case-insensitive) on a board of `size`.
    pub fn parse_gtp(text: &str, size: u8) -> Result<Point, CoordError> {
        check_size(size)?;
        let t = text.trim();
        let bytes = t.as_bytes();
        let malformed = || CoordError::Malformed(text.to_string());
        if bytes.len() < 2 || bytes.len() > 3 {
            return Err(malformed());
        }
        let letter = bytes[0].to_ascii_uppercase();
        let col = GTP_COLUMNS
            .iter()
            .position(|&c| c == letter)
            .ok_or_else(malformed)? as u8;
        let digits = &t[1..];
        if !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
            return Err(malformed());
        }
        let row: u32 = digits.parse().map_err(|_| malformed())?;
        let p = Point {
            col,
            row: (row.saturating_sub(1)).min(255) as u8,
        };
        if row == 0 || row > size as u32 || !p.on_board(size) {
            return Err(CoordError::OffBoard {
                text: text.to_string(),
                size,
            });
        }
        Ok(p)
    }

    /// SGF form, e.g. `pd` for Q16 on 19x19 (SGF counts rows from the top).
    pub fn to_sgf(self, size: u8) -> String {
        let c = (b'a' + self.col) as char;
        let r = (b'a' + (size - 1 - self.row)) as char;
        format!("{c}{r}")
    }

    /// Parses an SGF point on a board of `size`. Returns `Ok(None)` for a pass (`""`, or
    /// `tt` on boards up to 19x19).
    pub fn parse_sgf(text: &str, size: u8) -> Result<Option<Point>, CoordError> {
        check_size(size)?;
        let b = text.as_bytes();
        if b.is_empty() || (text == "tt" && size <= 19) {
            return Ok(None);
        }
        if b.len() != 2 {
            return Err(CoordError::Malformed(text.to_string()));
        }
        let val = |c: u8| -> Result<u8, CoordError> {
            match c {
                b'a'..=b'z' => Ok(c - b'a'),
                b'A'..=b'Z' => Ok(c - b'A' + 26),
                _ => Err(CoordError::Malformed(text.to_string())),
            }
        };
        let (c, r) = (val(b[0])?, val(b[1])?);
        if c >= size || r >= size {
            return Err(CoordError::OffBoard {
                text: text.to_string(),
                size,
            });
        }
        Ok(Some(Point {
            col: c,
            row: size - 1 - r,
        }))
    }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_gtp())
    }
}

/// Checks that `size` is a supported board size.
pub fn check_size(size: u8) -> Result<(), CoordError> {
    if (MIN_SIZE..=MAX_SIZE).contains(&size) {
        Ok(())
    } else {
        Err(CoordError::BadSize(size))
    }
}

/// Sorts points into the wire contract's natural order (column, then row) and writes them in GTP form.
pub fn sorted_gtp(points: impl IntoIterator<Item = Point>) -> Vec<String> {
    let mut v: Vec<Point> = points.into_iter().collect();
    v.sort();
    v.dedup();
    v.into_iter().map(Point::to_gtp).collect()
}

/// Parses a comma-separated list of GTP points (`D4,E5`), as `--dead` takes them.
pub fn parse_gtp_list(text: &str, size: u8) -> Result<Vec<Point>, CoordError> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| Point::parse_gtp(s, size))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_round_trip_skips_i() {
        assert_eq!(Point::new(8, 9).to_gtp(), "J10");
        assert_eq!(Point::parse_gtp("Q16", 19), Ok(Point::new(15, 15)));
        assert_eq!(Point::parse_gtp("k10", 19), Ok(Point::new(9, 9)));
        assert!(Point::parse_gtp("I5", 19).is_err());
        assert!(Point::parse_gtp("T20", 19).is_err());
        assert!(Point::parse_gtp("K0", 19).is_err());
        assert!(Point::parse_gtp("K", 19).is_err());
        for size in [2u8, 9, 13, 19, 25] {
            for col in 0..size {
                for row in 0..size {
                    let p = Point::new(col, row);
                    assert_eq!(Point::parse_gtp(&p.to_gtp(), size), Ok(p));
                    assert_eq!(Point::parse_sgf(&p.to_sgf(size), size), Ok(Some(p)));
                    assert_eq!(Point::from_index(p.index(size), size), p);
                }
            }
        }
    }

    #[test]
    fn sgf_points_and_passes() {
        assert_eq!(Point::parse_sgf("pd", 19), Ok(Some(Point::new(15, 15))));
        assert_eq!(Point::new(15, 15).to_sgf(19), "pd");
        assert_eq!(Point::parse_sgf("", 19), Ok(None));
        assert_eq!(Point::parse_sgf("tt", 19), Ok(None));
        assert!(Point::parse_sgf("tt", 25).unwrap().is_some());
        assert!(Point::parse_sgf("zz", 19).is_err());
    }

    #[test]
    fn natural_order() {
        let pts = vec![Point::new(3, 4), Point::new(0, 10), Point::new(3, 2)];
        assert_eq!(sorted_gtp(pts), vec!["A11", "D3", "D5"]);
    }
}
