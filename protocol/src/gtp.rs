//! Points on the wire: GTP strings (`Q16`), as the wire contract writes them. The serde helpers here
//! (`#[serde(with = "gtp::point")]`, `gtp::points`) read a point without knowing the board
//! (any GTP point up to 25x25); whether it is on *this* board is the fold's question.

use tengen_rules::point::MAX_SIZE;
use tengen_rules::{CoordError, Point};

/// Reads a GTP point on a board of any supported size (`A1`..`Z25` without `I`).
pub fn parse(text: &str) -> Result<Point, CoordError> {
    Point::parse_gtp(text, MAX_SIZE)
}

/// Serde for one point as a GTP string.
pub mod point {
    use serde::{Deserialize, Deserializer, Serializer};
    use tengen_rules::Point;

    /// Writes `Q16`.
    pub fn serialize<S: Serializer>(p: &Point, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&p.to_gtp())
    }

    /// Reads `Q16`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Point, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        super::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Serde for a list of points as a JSON array of GTP strings, in the order given.
pub mod points {
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serializer};
    use tengen_rules::Point;

    /// Writes `["D4","Q16"]`.
    pub fn serialize<S: Serializer>(points: &[Point], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(points.len()))?;
        for p in points {
            seq.serialize_element(&p.to_gtp())?;
        }
        seq.end()
    }

    /// Reads `["D4","Q16"]`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Point>, D::Error> {
        let texts = Vec::<std::borrow::Cow<str>>::deserialize(d)?;
        texts
            .iter()
            .map(|t| super::parse(t).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// `points` sorted in the wire contract's natural order (column, then row), without repeats.
pub fn sorted(points: impl IntoIterator<Item = Point>) -> Vec<Point> {
    let mut v: Vec<Point> = points.into_iter().collect();
    v.sort();
    v.dedup();
    v
}

/// `points` as GTP strings joined by `sep` (`D4, E5`), for sentences.
pub fn join(points: &[Point], sep: &str) -> String {
    points
        .iter()
        .map(|p| p.to_gtp())
        .collect::<Vec<_>>()
        .join(sep)
}
