//! Fixed handicap placement on the standard star points, as GNU Go's `fixed_handicap`
//! places them (checked against GNU Go 3.8 on 7x7 to 19x19 in the tests).
//!
//! The corner star points lie on the 3rd line on boards up to 11x11 and on the 4th line
//! above. Odd boards from 9x9 take up to 9 stones (sides and centre), other boards from
//! 7x7 up to 4 (corners only). Boards smaller than 7x7 have no fixed handicap. Sizes above
//! 19 follow the same pattern (GNU Go does not go beyond 19x19).

use crate::point::check_size;
use crate::setup_error::SetupError;
use crate::Point;

/// The largest fixed handicap on a `size` x `size` board (0 when there is none).
pub fn max_handicap(size: u8) -> u8 {
    if size % 2 == 1 && size >= 9 {
        9
    } else if size >= 7 {
        4
    } else {
        0
    }
}

/// The star points of a fixed handicap of `n` stones (0 or 2..=9) on a `size` board, in
/// point order (column, then row). `n = 0` gives no stones.
pub fn handicap_points(size: u8, n: u8) -> Result<Vec<Point>, SetupError> {
    check_size(size).map_err(|_| SetupError::BadSize(size))?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let max = max_handicap(size);
    if n < 2 || n > max {
        return Err(SetupError::BadHandicap {
            handicap: n,
            size,
            max,
        });
    }
    let lo = if size > 11 { 3 } else { 2 };
    let hi = size - 1 - lo;
    let mid = size / 2;
    let mut pts = vec![Point::new(hi, hi), Point::new(lo, lo)];
    if n >= 3 {
        pts.push(Point::new(lo, hi));
    }
    if n >= 4 {
        pts.push(Point::new(hi, lo));
    }
    if n >= 6 {
        pts.push(Point::new(lo, mid));
        pts.push(Point::new(hi, mid));
    }
    if n >= 8 {
        pts.push(Point::new(mid, lo));
        pts.push(Point::new(mid, hi));
    }
    if n % 2 == 1 && n >= 5 {
        pts.push(Point::new(mid, mid));
    }
    pts.sort_unstable();
    Ok(pts)
}
