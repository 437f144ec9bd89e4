//! Board ids from table numbers: `hall1-{table:02}` makes table 7 the board `hall1-07`.

use std::fmt;
use std::str::FromStr;

/// A pattern that names the board at each table: literal text (the wire contract's id characters,
/// `a-z`, `0-9`, `-`) and `{table}` (the number as is) or `{table:0N}` (zero-padded to
/// N digits, N from 1 to 9), at least once.
///
/// `{round}` is refused: a board id names a physical board, the same in every round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardPattern {
    text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Table { width: usize },
}

/// Why a board pattern was refused; the message quotes the pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardPatternError {
    /// No `{table}` placeholder: every table would get the same board.
    #[error("board pattern {pattern:?}: no {{table}} placeholder")]
    NoTable {
        /// The pattern.
        pattern: String,
    },
    /// A placeholder other than `{table}` and `{table:0N}`.
    #[error("board pattern {pattern:?}: unknown placeholder {placeholder:?} (use {{table}} or {{table:0N}})")]
    UnknownPlaceholder {
        /// The pattern.
        pattern: String,
        /// The placeholder with its braces.
        placeholder: String,
    },
    /// `{round}`: board ids do not change with the round.
    #[error("board pattern {pattern:?}: {{round}} cannot be in a board id (a board is the same in every round)")]
    Round {
        /// The pattern.
        pattern: String,
    },
    /// A `{` never closed, or a `}` never opened.
    #[error("board pattern {pattern:?}: unbalanced {brace:?} at byte {at}")]
    Unbalanced {
        /// The pattern.
        pattern: String,
        /// The brace.
        brace: char,
        /// Its byte offset.
        at: usize,
    },
    /// A character that a board id cannot hold.
    #[error("board pattern {pattern:?}: {character:?} cannot be in a board id (a-z, 0-9 and -)")]
    BadCharacter {
        /// The pattern.
        pattern: String,
        /// The character.
        character: char,
    },
}

impl BoardPattern {
    /// Reads a pattern such as `hall1-{table:02}`.
    pub fn parse(pattern: &str) -> Result<BoardPattern, BoardPatternError> {
        let owned = || pattern.to_string();
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = pattern.char_indices();
        while let Some((at, c)) = rest.next() {
            match c {
                '{' => {
                    let close = pattern[at..].find('}').map(|i| at + i);
                    let Some(close) = close.filter(|&i| !pattern[at + 1..i].contains('{')) else {
                        return Err(BoardPatternError::Unbalanced {
                            pattern: owned(),
                            brace: '{',
                            at,
                        });
                    };
                    let inside = &pattern[at + 1..close];
                    let part = placeholder(inside).ok_or_else(|| {
                        if inside == "round" || inside.starts_with("round:") {
                            BoardPatternError::Round { pattern: owned() }
                        } else {
                            BoardPatternError::UnknownPlaceholder {
                                pattern: owned(),
                                placeholder: format!("{{{inside}}}"),
                            }
                        }
                    })?;
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(part);
                    // Skip to the closing brace.
                    for (i, _) in rest.by_ref() {
                        if i == close {
                            break;
                        }
                    }
                }
                '}' => {
                    return Err(BoardPatternError::Unbalanced {
                        pattern: owned(),
                        brace: '}',
                        at,
                    })
                }
                c if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' => literal.push(c),
                character => {
                    return Err(BoardPatternError::BadCharacter {
                        pattern: owned(),
                        character,
                    })
                }
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        if !parts.iter().any(|p| matches!(p, Part::Table { .. })) {
            return Err(BoardPatternError::NoTable { pattern: owned() });
        }
        Ok(BoardPattern {
            text: pattern.to_string(),
            parts,
        })
    }

    /// The board id of a table: `hall1-{table:02}` gives `hall1-07` for 7 and
    /// `hall1-123` for 123 (padding never cuts).
    pub fn board(&self, table: u32) -> String {
        let mut id = String::with_capacity(self.text.len() + 8);
        for part in &self.parts {
            match part {
                Part::Literal(s) => id.push_str(s),
                Part::Table { width } => id.push_str(&format!("{table:0width$}")),
            }
        }
        id
    }

    /// The table whose board `id` is, when the pattern yields `id` for some table from 1
    /// (`hall1-{table:02}`: `hall1-07` is table 7; `hall1-7`, `hall1-00` and `hall2-07`
    /// are no table's). The hall believes only the boards its pattern names.
    pub fn table_of(&self, id: &str) -> Option<u32> {
        // The literal text before the first placeholder, then that placeholder's digits:
        // each number they may start with is tried, and kept if it gives `id` back whole.
        let mut rest = id;
        for part in &self.parts {
            match part {
                Part::Literal(s) => rest = rest.strip_prefix(s.as_str())?,
                Part::Table { .. } => {
                    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                    return (1..=digits.min(10))
                        .filter_map(|n| rest[..n].parse::<u32>().ok())
                        .find(|&t| t >= 1 && self.board(t) == id);
                }
            }
        }
        None
    }

    /// Whether `id` is the board of some table ([`BoardPattern::table_of`]).
    pub fn matches(&self, id: &str) -> bool {
        self.table_of(id).is_some()
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// `table` or `table:0N`.
fn placeholder(inside: &str) -> Option<Part> {
    if inside == "table" {
        return Some(Part::Table { width: 0 });
    }
    let digits = inside.strip_prefix("table:0")?;
    if digits.len() != 1 {
        return None;
    }
    let width = digits.parse::<usize>().ok().filter(|&w| w >= 1)?;
    Some(Part::Table { width })
}

impl Default for BoardPattern {
    /// The wire contract's default, `table-{table}`.
    fn default() -> Self {
        BoardPattern {
            text: "table-{table}".to_string(),
            parts: vec![
                Part::Literal("table-".to_string()),
                Part::Table { width: 0 },
            ],
        }
    }
}

impl FromStr for BoardPattern {
    type Err = BoardPatternError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BoardPattern::parse(s)
    }
}

impl fmt::Display for BoardPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
