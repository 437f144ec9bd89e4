//! Stone colours and the letters the wire contract writes them with.

use serde::{Deserialize, Serialize};

/// The colour of a stone or of a player. Serialised as `"B"` / `"W"` (docs/mqtt-http.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Color {
    /// Black, who moves first in an even game.
    #[serde(rename = "B")]
    Black,
    /// White.
    #[serde(rename = "W")]
    White,
}

impl Color {
    /// The other colour.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `"B"` or `"W"`, as in events and SGF property names.
    pub fn letter(self) -> &'static str {
        match self {
            Color::Black => "B",
            Color::White => "W",
        }
    }

    /// Parses `B`/`W` (also `b`, `w`, `black`, `white`).
    pub fn parse(s: &str) -> Option<Color> {
        match s.to_ascii_lowercase().as_str() {
            "b" | "black" => Some(Color::Black),
            "w" | "white" => Some(Color::White),
            _ => None,
        }
    }

    /// Index 0 for Black, 1 for White: for per-colour arrays.
    pub fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }
}

impl std::fmt::Display for Color {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.letter())
    }
}
