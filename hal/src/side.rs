//! Where the players sit around the board (`board.black_side`), and the corners that
//! follow from it: the simulator's players, the referee's resignation gesture and the
//! config all use this one [`Side`].

use std::fmt;
use std::str::FromStr;

use tengen_rules::{Color, Point};

/// A side of the board, as seen on the board diagram (south = row 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Side {
    /// The row-1 edge (the bottom of the diagram).
    #[default]
    South,
    /// The top row's edge.
    North,
    /// The edge of the last column (`T` on 19x19).
    East,
    /// The edge of column `A`.
    West,
}

/// A side name that is not one of `south`, `north`, `east`, `west`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a side (south, north, east or west)")]
pub struct SideError(pub String);

impl FromStr for Side {
    type Err = SideError;
    fn from_str(s: &str) -> Result<Side, SideError> {
        match s.to_ascii_lowercase().as_str() {
            "south" => Ok(Side::South),
            "north" => Ok(Side::North),
            "east" => Ok(Side::East),
            "west" => Ok(Side::West),
            _ => Err(SideError(s.to_string())),
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::South => "south",
            Side::North => "north",
            Side::East => "east",
            Side::West => "west",
        })
    }
}

impl Side {
    /// The side across the board.
    pub fn opposite(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
            Side::East => Side::West,
            Side::West => Side::East,
        }
    }

    /// Where the player of `color` sits when Black sits at `black_side`.
    pub fn of(color: Color, black_side: Side) -> Side {
        match color {
            Color::Black => black_side,
            Color::White => black_side.opposite(),
        }
    }

    /// One step towards this side, as (column, row) deltas.
    pub fn towards(self) -> (i8, i8) {
        match self {
            Side::South => (0, -1),
            Side::North => (0, 1),
            Side::East => (1, 0),
            Side::West => (-1, 0),
        }
    }

    /// The board corner at the lower right of a player sitting on this side: South sits
    /// facing north, so their lower right is the board's row-1/last-column corner (T1 on
    /// 19x19); North's is A19, East's T19, West's A1.
    pub fn lower_right_corner(self, size: u8) -> Point {
        let last = size.saturating_sub(1);
        match self {
            Side::South => Point::new(last, 0),
            Side::North => Point::new(0, last),
            Side::East => Point::new(last, last),
            Side::West => Point::new(0, 0),
        }
    }
}

/// The points of `color`'s own lower-right corner region: the `extent` x `extent` square in
/// that corner, nearest the corner first (by distance, then row, then column).
pub fn lower_right_region(color: Color, black_side: Side, size: u8, extent: u8) -> Vec<Point> {
    let corner = Side::of(color, black_side).lower_right_corner(size);
    let extent = extent.min(size);
    let near = |v: u8| -> std::ops::Range<u8> {
        if v == 0 {
            0..extent
        } else {
            size - extent..size
        }
    };
    let mut pts: Vec<Point> = near(corner.col)
        .flat_map(|c| near(corner.row).map(move |r| Point::new(c, r)))
        .collect();
    let d = |p: &Point| {
        let dc = p.col.abs_diff(corner.col) as u32;
        let dr = p.row.abs_diff(corner.row) as u32;
        dc * dc + dr * dr
    };
    pts.sort_by_key(|p| (d(p), p.row, p.col));
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_follow_the_seat() {
        let t1 = Point::parse_gtp("T1", 19).unwrap();
        let a19 = Point::parse_gtp("A19", 19).unwrap();
        assert_eq!(Side::South.lower_right_corner(19), t1);
        assert_eq!(Side::North.lower_right_corner(19), a19);
        assert_eq!(lower_right_region(Color::White, Side::South, 19, 4)[0], a19);
        assert_eq!(
            lower_right_region(Color::Black, Side::East, 19, 4)[0],
            Point::parse_gtp("T19", 19).unwrap()
        );
        let region = lower_right_region(Color::Black, Side::South, 19, 4);
        assert_eq!(region.len(), 16);
        assert!(region.iter().all(|p| p.col >= 15 && p.row <= 3));
        assert_eq!("west".parse::<Side>(), Ok(Side::West));
        assert!("up".parse::<Side>().is_err());
    }
}
