//! SGF (`FF[4]`) read and write for Go game records, on top of the `sgf-parse` crate.
//!
//! Reading keeps the first game tree's main line (the first variation at every branch):
//! the game information tengen uses (`SZ KM HA AB AW PB PW RU RE DT GC`), the moves with
//! their time left (`BL`/`WL`, `OB`/`OW`) and comments, and any other root property
//! with a text or number value in [`GameRecord::extra_root`] (e.g. `EV RO TM OT`), so
//! they are written back. Passes may be written `[]` or, on boards up to 19x19, `[tt]`.
//! Setup stones are taken from the nodes before the first move; setup later in the game,
//! `AE`, boards that are not square and other games than Go (`GM` other than 1) are
//! refused with an error. Text before the first `(` is skipped. Errors name the place in
//! the text as `line:column`.
//!
//! Writing produces `FF[4]GM[1]CA[UTF-8]`, the rules (`RU[Chinese]` unless the record says
//! otherwise), the game information, one node per move with `BL`/`WL` and `OB`/`OW` when
//! the times are known and `C[]` comments (the board puts its alerts there), escaping `\`
//! and `]`. [`parse`] of [`write()`]'s output gives back the same record.

mod locate;

pub use locate::Pos;

use sgf_parse::go::{Move as SgfMove, Point as SgfPoint, Prop};
use sgf_parse::{GameTree, SgfNode, SgfProp};
use thiserror::Error;

use crate::point::{check_size, MAX_SIZE};
use crate::{Color, Move, Point};

/// The longest chain of nodes accepted (a game has a few hundred moves; refusing absurd
/// depths keeps the recursive tree of `sgf-parse` within the stack).
pub const MAX_NODE_DEPTH: usize = 5_000;

/// A game as an SGF file holds it (main line only).
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    /// Board size (`SZ`, default 19).
    pub size: u8,
    /// Komi in points (`KM`).
    pub komi: Option<f64>,
    /// Handicap stones (`HA`; 0 without).
    pub handicap: u8,
    /// Black stones set up before the first move (`AB`), sorted.
    pub black_setup: Vec<Point>,
    /// White stones set up before the first move (`AW`), sorted.
    pub white_setup: Vec<Point>,
    /// The moves of the main line.
    pub moves: Vec<RecordedMove>,
    /// Black player's name (`PB`).
    pub black_name: Option<String>,
    /// White player's name (`PW`).
    pub white_name: Option<String>,
    /// Rules (`RU`); written as `Chinese` when `None`.
    pub rules: Option<String>,
    /// Result in SGF form (`RE`), e.g. `B+1.5`, `W+R`, `0`.
    pub result: Option<String>,
    /// Date (`DT`).
    pub date: Option<String>,
    /// Game comment (`GC`).
    pub game_comment: Option<String>,
    /// Other root properties as (identifier, value), written back as they are: `EV`, `RO`,
    /// `TM`, `OT`, `PC`, a root `C`, ... A property with several values has one entry per
    /// value.
    pub extra_root: Vec<(String, String)>,
}

impl GameRecord {
    /// An empty record for a board of `size`.
    pub fn new(size: u8) -> GameRecord {
        GameRecord {
            size,
            komi: None,
            handicap: 0,
            black_setup: Vec::new(),
            white_setup: Vec::new(),
            moves: Vec::new(),
            black_name: None,
            white_name: None,
            rules: None,
            result: None,
            date: None,
            game_comment: None,
            extra_root: Vec::new(),
        }
    }
}

/// One move of the record.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedMove {
    /// Who played it.
    pub color: Color,
    /// The stone or the pass.
    pub mv: Move,
    /// The mover's time left after it, in ms (`BL`/`WL`, seconds in the file).
    pub time_left_ms: Option<u64>,
    /// The mover's byo-yomi periods (or Canadian stones) left (`OB`/`OW`).
    pub periods_left: Option<u32>,
    /// The node's comment (`C`).
    pub comment: Option<String>,
}

impl RecordedMove {
    /// A move with no time and no comment.
    pub fn new(color: Color, mv: Move) -> RecordedMove {
        RecordedMove {
            color,
            mv,
            time_left_ms: None,
            periods_left: None,
            comment: None,
        }
    }
}

/// Why an SGF text could not be read. Each message is one line and names the place.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SgfError {
    /// The bytes are not UTF-8.
    #[error("not UTF-8 text at byte {offset} (only UTF-8 SGF files are read)")]
    NotUtf8 {
        /// Offset of the first bad byte.
        offset: usize,
    },
    /// The text is not well-formed SGF.
    #[error("malformed SGF at {at}: {message}")]
    Syntax {
        /// Where.
        at: Pos,
        /// What.
        message: String,
    },
    /// The game is not Go.
    #[error("GM[{gm}] at {at}: not a Go game (GM[1])")]
    NotGo {
        /// The `GM` value.
        gm: String,
        /// Where.
        at: Pos,
    },
    /// `SZ` is not a supported square board.
    #[error("SZ[{value}] at {at}: board size must be square, {min}..={max}", min = crate::point::MIN_SIZE, max = MAX_SIZE)]
    BadSize {
        /// The value as written.
        value: String,
        /// Where.
        at: Pos,
    },
    /// A point lies outside the board.
    #[error("{ident}[{value}] at {at}: point off the {size}x{size} board")]
    OffBoard {
        /// The property.
        ident: String,
        /// The value as written.
        value: String,
        /// Board size.
        size: u8,
        /// Where.
        at: Pos,
    },
    /// A property value that cannot be read.
    #[error("{ident}[{value}] at {at}: {reason}")]
    BadValue {
        /// The property.
        ident: String,
        /// The value(s) as written.
        value: String,
        /// What is wrong.
        reason: String,
        /// Where.
        at: Pos,
    },
    /// Something valid in SGF that tengen does not take.
    #[error("at {at}: {what} is not supported")]
    Unsupported {
        /// What.
        what: String,
        /// Where.
        at: Pos,
    },
}

/// Reads an SGF file's bytes (which must be UTF-8).
pub fn parse_bytes(bytes: &[u8]) -> Result<GameRecord, SgfError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => Err(SgfError::NotUtf8 {
            offset: e.valid_up_to(),
        }),
    }
}

/// Reads the first game of an SGF text (main line only).
pub fn parse(text: &str) -> Result<GameRecord, SgfError> {
    // Skip anything before the first '(' (mail headers, a BOM, notes).
    let skip = text.find('(').unwrap_or(0);
    let body = &text[skip..];
    let at = |offset: usize| Pos::of(text, skip + offset);
    let syntax = |offset: usize, message: String| SgfError::Syntax {
        at: at(offset),
        message,
    };
    if let Some((offset, message)) = locate::syntax_fault(body) {
        return Err(syntax(offset, message));
    }
    if locate::node_depth(body) > MAX_NODE_DEPTH {
        return Err(SgfError::Unsupported {
            what: format!("a main line or variation deeper than {MAX_NODE_DEPTH} nodes"),
            at: at(0),
        });
    }
    let trees = sgf_parse::parse(body).map_err(|e| syntax(body.len(), e.to_string()))?;
    let nodes = locate::main_line(body);
    let place = |node: usize, ident: &str| -> Pos {
        nodes
            .get(node)
            .and_then(|props| props.iter().find(|(id, _)| id == ident))
            .map_or_else(|| at(0), |&(_, off)| at(off))
    };
    let Some(tree) = trees.first() else {
        return Err(syntax(0, "no game tree '(;...)' found".into()));
    };
    let root = match tree {
        GameTree::GoGame(root) => root,
        GameTree::Unknown(root) => {
            let gm = root
                .get_property("GM")
                .map_or_else(String::new, |p| p.to_string());
            let gm = gm
                .strip_prefix("GM[")
                .and_then(|g| g.strip_suffix(']'))
                .unwrap_or(&gm)
                .to_string();
            return Err(SgfError::NotGo {
                gm: locate::short(&gm),
                at: place(0, "GM"),
            });
        }
    };
    Reader {
        place: &place,
        size: 19,
    }
    .read(root)
}

/// Turns the parsed tree into a [`GameRecord`], naming places through `place`.
struct Reader<'a> {
    place: &'a dyn Fn(usize, &str) -> Pos,
    size: u8,
}

impl Reader<'_> {
    fn bad_value(&self, node: usize, ident: &str, values: &[String], reason: &str) -> SgfError {
        SgfError::BadValue {
            ident: ident.to_string(),
            value: locate::short(&values.join("][")),
            reason: reason.to_string(),
            at: (self.place)(node, ident),
        }
    }

    fn read(mut self, root: &SgfNode<Prop>) -> Result<GameRecord, SgfError> {
        // The size first: every point depends on it.
        if let Some(p) = root.get_property("SZ") {
            match p {
                Prop::SZ((w, h)) if w == h && check_size(*w).is_ok() => self.size = *w,
                Prop::SZ((w, h)) => {
                    let value = if w == h {
                        w.to_string()
                    } else {
                        format!("{w}:{h}")
                    };
                    return Err(SgfError::BadSize {
                        value,
                        at: (self.place)(0, "SZ"),
                    });
                }
                Prop::Invalid(_, values) => {
                    return Err(SgfError::BadSize {
                        value: locate::short(&values.join("][")),
                        at: (self.place)(0, "SZ"),
                    })
                }
                _ => {}
            }
        }
        let mut rec = GameRecord::new(self.size);
        let mut black = Vec::new();
        let mut white = Vec::new();
        for (index, node) in root.main_variation().enumerate() {
            let mut mv: Option<(Color, Move)> = None;
            let mut times: [Option<u64>; 2] = [None, None];
            let mut periods: [Option<u32>; 2] = [None, None];
            let mut comment = None;
            for prop in node.properties() {
                match prop {
                    Prop::B(m) | Prop::W(m) => {
                        let color = if matches!(prop, Prop::B(_)) {
                            Color::Black
                        } else {
                            Color::White
                        };
                        if mv.is_some() {
                            return Err(SgfError::Unsupported {
                                what: "two moves in one node".into(),
                                at: (self.place)(index, color.letter()),
                            });
                        }
                        mv = Some((color, self.read_move(index, color.letter(), m)?));
                    }
                    Prop::AB(points) | Prop::AW(points) => {
                        let ident = if matches!(prop, Prop::AB(_)) {
                            "AB"
                        } else {
                            "AW"
                        };
                        if !rec.moves.is_empty() {
                            return Err(SgfError::Unsupported {
                                what: format!("setup ({ident}) after the first move"),
                                at: (self.place)(index, ident),
                            });
                        }
                        let target = if ident == "AB" {
                            &mut black
                        } else {
                            &mut white
                        };
                        for p in points {
                            target.push(self.read_point(index, ident, p)?);
                        }
                    }
                    Prop::AE(_) => {
                        return Err(SgfError::Unsupported {
                            what: "removing stones (AE)".into(),
                            at: (self.place)(index, "AE"),
                        })
                    }
                    Prop::BL(t) | Prop::WL(t) => {
                        let (ident, c) = if matches!(prop, Prop::BL(_)) {
                            ("BL", 0)
                        } else {
                            ("WL", 1)
                        };
                        if !t.is_finite() || *t < 0.0 || *t > 1e12 {
                            return Err(self.bad_value(
                                index,
                                ident,
                                &[t.to_string()],
                                "not a time left in seconds",
                            ));
                        }
                        times[c] = Some((t * 1000.0).round() as u64);
                    }
                    Prop::OB(n) | Prop::OW(n) => {
                        let (ident, c) = if matches!(prop, Prop::OB(_)) {
                            ("OB", 0)
                        } else {
                            ("OW", 1)
                        };
                        let n = u32::try_from(*n).map_err(|_| {
                            self.bad_value(
                                index,
                                ident,
                                &[n.to_string()],
                                "not a count of periods or stones",
                            )
                        })?;
                        periods[c] = Some(n);
                    }
                    Prop::C(text) if index > 0 => comment = Some(text.text.clone()),
                    Prop::Invalid(ident, values) => {
                        self.invalid(index, ident, values, &mut rec)?;
                    }
                    _ if index == 0 => self.root_prop(prop, &mut rec)?,
                    _ => {}
                }
            }
            if let Some((color, mv)) = mv {
                rec.moves.push(RecordedMove {
                    color,
                    mv,
                    time_left_ms: times[color.index()],
                    periods_left: periods[color.index()],
                    comment,
                });
            }
        }
        black.sort();
        black.dedup();
        white.sort();
        white.dedup();
        rec.black_setup = black;
        rec.white_setup = white;
        Ok(rec)
    }

    /// A property `sgf-parse` could not read: `HA[0]`/`HA[1]` mean no handicap; anything
    /// else is an error.
    fn invalid(
        &self,
        node: usize,
        ident: &str,
        values: &[String],
        rec: &mut GameRecord,
    ) -> Result<(), SgfError> {
        match ident {
            "HA" if node == 0 && matches!(values, [v] if v.trim() == "0" || v.trim() == "1") => {
                rec.handicap = 0;
                Ok(())
            }
            "HA" => Err(self.bad_value(node, ident, values, "not a number of handicap stones")),
            "B" | "W" | "AB" | "AW" => Err(self.bad_value(node, ident, values, "not a point")),
            "KM" => Err(self.bad_value(node, ident, values, "komi must be a number")),
            "BL" | "WL" => Err(self.bad_value(node, ident, values, "not a time left in seconds")),
            "OB" | "OW" => {
                Err(self.bad_value(node, ident, values, "not a count of periods or stones"))
            }
            "GM" | "FF" | "CA" | "AE" => Err(self.bad_value(node, ident, values, "bad value")),
            // Other properties tengen does not use: a bad one does not spoil the game; in
            // the root it is kept as written.
            _ => {
                if node == 0 && is_prop_ident(ident) {
                    for v in values {
                        rec.extra_root.push((ident.to_string(), v.clone()));
                    }
                }
                Ok(())
            }
        }
    }

    /// A root property: game information, or kept in `extra_root`.
    fn root_prop(&self, prop: &Prop, rec: &mut GameRecord) -> Result<(), SgfError> {
        let text = |t: &str| Some(t.to_string());
        match prop {
            Prop::KM(k) => {
                if !k.is_finite() {
                    return Err(self.bad_value(0, "KM", &[k.to_string()], "komi must be a number"));
                }
                rec.komi = Some(*k);
            }
            Prop::HA(h) => {
                rec.handicap = u8::try_from(*h).map_err(|_| {
                    self.bad_value(0, "HA", &[h.to_string()], "not a number of handicap stones")
                })?;
            }
            Prop::PB(t) => rec.black_name = text(&t.text),
            Prop::PW(t) => rec.white_name = text(&t.text),
            Prop::RU(t) => rec.rules = text(&t.text),
            Prop::RE(t) => rec.result = text(&t.text),
            Prop::DT(t) => rec.date = text(&t.text),
            Prop::GC(t) => rec.game_comment = text(&t.text),
            // Written anew by `write`.
            Prop::FF(_) | Prop::GM(_) | Prop::CA(_) | Prop::SZ(_) | Prop::AP(_) | Prop::ST(_) => {}
            Prop::C(t) => rec.extra_root.push(("C".into(), t.text.clone())),
            // A value list without a proper identifier (`[1]` alone, found by fuzzing) is
            // dropped: written back, it would join the property before it.
            Prop::Unknown(ident, _) if !is_prop_ident(ident) => {}
            Prop::Unknown(ident, values) => {
                for v in values {
                    rec.extra_root.push((ident.clone(), v.clone()));
                }
            }
            other => {
                if let Some(value) = simple_value(other) {
                    rec.extra_root.push((other.identifier(), value));
                }
            }
        }
        Ok(())
    }

    fn read_move(&self, node: usize, ident: &str, m: &SgfMove) -> Result<Move, SgfError> {
        match m {
            SgfMove::Pass => Ok(Move::Pass),
            SgfMove::Move(p) if p.x == 19 && p.y == 19 && self.size <= 19 => Ok(Move::Pass),
            SgfMove::Move(p) => Ok(Move::Play(self.read_point(node, ident, p)?)),
        }
    }

    fn read_point(&self, node: usize, ident: &str, p: &SgfPoint) -> Result<Point, SgfError> {
        if p.x >= self.size || p.y >= self.size {
            return Err(SgfError::OffBoard {
                ident: ident.to_string(),
                value: sgf_letters(p.x, p.y),
                size: self.size,
                at: (self.place)(node, ident),
            });
        }
        Ok(Point::new(p.x, self.size - 1 - p.y))
    }
}

/// SGF letters for 0-based x, y (a..z, A..Z).
fn sgf_letters(x: u8, y: u8) -> String {
    let letter = |v: u8| match v {
        0..=25 => (b'a' + v) as char,
        26..=51 => (b'A' + v - 26) as char,
        _ => '?',
    };
    format!("{}{}", letter(x), letter(y))
}

/// An SGF property identifier: one or more upper-case letters.
fn is_prop_ident(ident: &str) -> bool {
    !ident.is_empty() && ident.bytes().all(|b| b.is_ascii_uppercase())
}

/// The value of a text or number property, as text (for `extra_root`).
fn simple_value(prop: &Prop) -> Option<String> {
    Some(match prop {
        Prop::AN(t) | Prop::BR(t) | Prop::BT(t) | Prop::CP(t) | Prop::EV(t) | Prop::GN(t) => {
            t.text.clone()
        }
        Prop::ON(t) | Prop::OT(t) | Prop::PC(t) | Prop::RO(t) | Prop::SO(t) | Prop::US(t) => {
            t.text.clone()
        }
        Prop::WR(t) | Prop::WT(t) | Prop::N(t) => t.text.clone(),
        Prop::TM(x) => x.to_string(),
        _ => return None,
    })
}

/// Escapes a text value: `\` and `]` get a backslash.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\\' || c == ']' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Seconds with up to three decimals, without trailing zeros (`12`, `12.5`, `0.001`).
fn seconds(ms: u64) -> String {
    let frac = ms % 1000;
    if frac == 0 {
        (ms / 1000).to_string()
    } else {
        let f = format!("{frac:03}");
        format!("{}.{}", ms / 1000, f.trim_end_matches('0'))
    }
}

/// Writes a record as an SGF `FF[4]` file (one game tree, one node per move).
pub fn write(rec: &GameRecord) -> String {
    use std::fmt::Write as _;
    let size = rec.size;
    let mut s = String::from("(;FF[4]GM[1]CA[UTF-8]");
    let _ = write!(
        s,
        "RU[{}]",
        escape(rec.rules.as_deref().unwrap_or("Chinese"))
    );
    let _ = write!(s, "SZ[{size}]");
    if let Some(k) = rec.komi {
        let _ = write!(s, "KM[{k}]");
    }
    if rec.handicap > 0 {
        let _ = write!(s, "HA[{}]", rec.handicap);
    }
    for (ident, name) in [
        ("PB", &rec.black_name),
        ("PW", &rec.white_name),
        ("DT", &rec.date),
        ("RE", &rec.result),
        ("GC", &rec.game_comment),
    ] {
        if let Some(v) = name {
            let _ = write!(s, "{ident}[{}]", escape(v));
        }
    }
    let mut last: Option<&str> = None;
    for (ident, value) in &rec.extra_root {
        if last != Some(ident.as_str()) {
            s.push('\n');
            s.push_str(ident);
        }
        let _ = write!(s, "[{}]", escape(value));
        last = Some(ident);
    }
    for (ident, stones) in [("AB", &rec.black_setup), ("AW", &rec.white_setup)] {
        if !stones.is_empty() {
            s.push('\n');
            s.push_str(ident);
            for p in stones {
                let _ = write!(s, "[{}]", p.to_sgf(size));
            }
        }
    }
    s.push('\n');
    for m in &rec.moves {
        let point = match m.mv {
            Move::Play(p) => p.to_sgf(size),
            Move::Pass => String::new(),
        };
        let _ = write!(s, ";{}[{point}]", m.color.letter());
        if let Some(ms) = m.time_left_ms {
            let _ = write!(s, "{}L[{}]", m.color.letter(), seconds(ms));
        }
        if let Some(n) = m.periods_left {
            let _ = write!(s, "O{}[{n}]", m.color.letter());
        }
        if let Some(c) = &m.comment {
            let _ = write!(s, "C[{}]", escape(c));
        }
        s.push('\n');
    }
    s.push_str(")\n");
    s
}
