//! Where things are in SGF text. `sgf-parse` reports *what* is wrong but not *where*; this
//! module re-reads the text with the same tokenising rules to give errors a line and a
//! column, and records where each node of the main line starts.

use std::fmt;

/// A place in the text: 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub column: usize,
}

impl Pos {
    /// The line and column of byte `offset` in `text`.
    pub fn of(text: &str, offset: usize) -> Pos {
        let mut end = offset.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let before = &text[..end];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Pos {
            line,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A token with the byte offset where it starts.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    Node,
    /// A property: identifier as written and the number of values.
    Prop(String),
}

/// The first syntax fault of the text, as byte offset and a short description, following
/// the grammar `sgf-parse` accepts. `None` when this reading finds no fault.
pub(crate) fn syntax_fault(text: &str) -> Option<(usize, String)> {
    let tokens = match tokenize(text) {
        Ok(t) => t,
        Err(e) => return Some(e),
    };
    let mut depth = 0usize;
    // Per open tree: whether a node has been read in it yet.
    let mut has_node: Vec<bool> = Vec::new();
    let mut open_at: Vec<usize> = Vec::new();
    let mut in_node = false;
    let mut trees = 0;
    for (tok, at) in &tokens {
        match tok {
            Tok::Open => {
                if depth > 0 && has_node.last() == Some(&false) {
                    return Some((*at, "a variation '(' must follow a node ';'".into()));
                }
                depth += 1;
                has_node.push(false);
                open_at.push(*at);
                in_node = false;
            }
            Tok::Close => {
                if depth == 0 {
                    return Some((*at, "')' closes nothing".into()));
                }
                if has_node.last() == Some(&false) {
                    return Some((*at, "a game tree needs at least one node ';'".into()));
                }
                depth -= 1;
                has_node.pop();
                open_at.pop();
                in_node = false;
                if depth == 0 {
                    trees += 1;
                }
            }
            Tok::Node => {
                if depth == 0 {
                    return Some((*at, "';' outside a game tree '(...)'".into()));
                }
                if let Some(h) = has_node.last_mut() {
                    *h = true;
                }
                in_node = true;
            }
            Tok::Prop(ident) => {
                if !in_node {
                    return Some((*at, format!("property {} outside a node", short(ident))));
                }
            }
        }
    }
    if let Some(&at) = open_at.first() {
        return Some((
            text.len(),
            format!(
                "unexpected end of file: '(' at {} is never closed",
                Pos::of(text, at)
            ),
        ));
    }
    if trees == 0 {
        return Some((0, "no game tree '(;...)' found".into()));
    }
    None
}

/// Byte offsets of the main line's nodes in the first game tree, each with the offsets of
/// its properties by identifier (uppercase letters only, as `sgf-parse` keeps them).
pub(crate) fn main_line(text: &str) -> Vec<Vec<(String, usize)>> {
    let Ok(tokens) = tokenize(text) else {
        return Vec::new();
    };
    let mut nodes: Vec<Vec<(String, usize)>> = Vec::new();
    let mut started = false;
    let mut current: Option<usize> = None;
    for (tok, at) in tokens {
        match tok {
            Tok::Open => started = true,
            Tok::Close => break,
            Tok::Node if started => {
                nodes.push(Vec::new());
                current = Some(nodes.len() - 1);
            }
            Tok::Prop(ident) => {
                if let Some(node) = current.and_then(|i| nodes.get_mut(i)) {
                    let id: String = ident.chars().filter(char::is_ascii_uppercase).collect();
                    node.push((id, at));
                }
            }
            Tok::Node => {}
        }
    }
    nodes
}

/// The deepest nesting of nodes (a node's children count one deeper) in the text, without
/// building the tree: long chains are refused before `sgf-parse` builds (and later drops)
/// them recursively.
pub(crate) fn node_depth(text: &str) -> usize {
    let Ok(tokens) = tokenize(text) else { return 0 };
    let mut depth = 0usize;
    let mut max = 0usize;
    // Node depth at each open '('.
    let mut stack: Vec<usize> = Vec::new();
    for (tok, _) in tokens {
        match tok {
            Tok::Open => stack.push(depth),
            Tok::Close => depth = stack.pop().unwrap_or(0),
            Tok::Node => {
                depth += 1;
                max = max.max(depth);
            }
            Tok::Prop(_) => {}
        }
    }
    max
}

/// Splits the text into tokens exactly as `sgf-parse`'s lexer does (same whitespace
/// rules, same identifier rules, `\` escapes inside values), with byte offsets.
fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, (usize, String)> {
    let bytes = text.as_bytes();
    let mut i = text.len() - text.trim_start().len();
    let end = text.trim_end().len().max(i);
    let mut out = Vec::new();
    let skip_ws = |mut i: usize| {
        while i < end && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    while i < end {
        let at = i;
        match bytes[i] {
            b'(' => {
                out.push((Tok::Open, at));
                i += 1;
            }
            b')' => {
                out.push((Tok::Close, at));
                i += 1;
            }
            b';' => {
                out.push((Tok::Node, at));
                i += 1;
            }
            _ => {
                // Identifier: ASCII characters up to '['.
                while i < end && bytes[i] != b'[' {
                    if !bytes[i].is_ascii() {
                        return Err((i, "property identifiers must be ASCII letters".into()));
                    }
                    i += 1;
                }
                if i >= end {
                    return Err((
                        at,
                        format!(
                            "'{}' is not a property (no value '[...]' follows)",
                            short(&text[at..end])
                        ),
                    ));
                }
                let ident = text[at..i].to_string();
                // Values.
                loop {
                    i = skip_ws(i);
                    if i >= end || bytes[i] != b'[' {
                        break;
                    }
                    let open = i;
                    i += 1;
                    let mut escaped = false;
                    loop {
                        if i >= end {
                            return Err((
                                open,
                                format!("value of {} is never closed with ']'", short(&ident)),
                            ));
                        }
                        match bytes[i] {
                            b']' if !escaped => break,
                            b'\\' if !escaped => escaped = true,
                            _ => escaped = false,
                        }
                        i += 1;
                    }
                    i += 1;
                }
                out.push((Tok::Prop(ident), at));
                continue;
            }
        }
        i = skip_ws(i);
    }
    Ok(out)
}

/// At most 20 characters of `s`, on one line (control characters escaped), for
/// messages.
pub(crate) fn short(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 20 {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
