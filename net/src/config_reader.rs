//! Reading a parsed TOML table against the schema while collecting EVERY problem with its
//! key path (`time.perods: unknown key`), instead of stopping at the first one as serde
//! would. Each getter returns `None` (and records why) when a value is unusable, so the
//! caller falls back to the default and goes on checking the rest.

use std::path::{Path, PathBuf};

use thiserror::Error;
use toml::{Table, Value};

/// Why a configuration file (the board's or the hall's) could not be used. Its message is
/// one line naming the file and the first problem; [`ConfigError::lines`] lists every one.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The text is not TOML.
    #[error("{origin}:{line}:{column}: {message}")]
    Syntax {
        /// The file name (or what the text came from).
        origin: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's message, on one line.
        message: String,
    },
    /// The TOML is well formed but keys or values are wrong.
    #[error("{origin}: {}{}", problems.first().map(ToString::to_string).unwrap_or_default(),
        if problems.len() > 1 { format!(" (and {} more problems)", problems.len() - 1) } else { String::new() })]
    Invalid {
        /// The file name (or what the text came from).
        origin: String,
        /// Every problem found, at least one.
        problems: Vec<Problem>,
    },
}

impl ConfigError {
    /// Every problem as its own line, each naming the file and the key path
    /// (`hall.toml: mqtt.prefix: ...`); one line for a file that cannot be read or parsed.
    pub fn lines(&self) -> Vec<String> {
        match self {
            ConfigError::Invalid { origin, problems } => {
                problems.iter().map(|p| format!("{origin}: {p}")).collect()
            }
            other => vec![other.to_string()],
        }
    }
}

/// Reads the file at `path` and checks it with `read` (see [`parse_with`]).
pub fn load_with<T>(
    path: &Path,
    read: impl FnOnce(&Table, &mut Reader) -> T,
) -> Result<T, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_with(&text, &path.display().to_string(), read)
}

/// Parses `text` as TOML and hands the table to `read`, which takes what it needs through
/// a [`Reader`]; the value is returned only when not one problem was recorded. `origin`
/// (a file name) starts every error line.
pub fn parse_with<T>(
    text: &str,
    origin: &str,
    read: impl FnOnce(&Table, &mut Reader) -> T,
) -> Result<T, ConfigError> {
    let table = text
        .parse::<Table>()
        .map_err(|e| syntax_error(text, origin, &e))?;
    let mut reader = Reader::default();
    let value = read(&table, &mut reader);
    if reader.problems.is_empty() {
        Ok(value)
    } else {
        Err(ConfigError::Invalid {
            origin: origin.to_string(),
            problems: reader.problems,
        })
    }
}

/// A TOML syntax error as one line with its line and column.
fn syntax_error(text: &str, origin: &str, e: &toml::de::Error) -> ConfigError {
    let offset = e.span().map_or(0, |s| s.start).min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let message = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    ConfigError::Syntax {
        origin: origin.to_string(),
        line,
        column,
        message,
    }
}

/// One thing wrong in a config, at a key path (`time.main`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The dotted key path (`hardware.sim.noise`), or the table's path for a problem
    /// between keys.
    pub path: String,
    /// What is wrong, in a few words.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Walks tables and records problems.
#[derive(Debug, Default)]
pub struct Reader {
    /// Everything wrong so far, in file order of the checks.
    pub problems: Vec<Problem>,
}

/// `prefix.key`, or `key` at the top level.
pub fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

impl Reader {
    /// Records one problem at `path`.
    pub fn problem(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    /// Flags every key of `table` (at `prefix`) that is not in `known`.
    pub fn unknown_keys(&mut self, table: &Table, prefix: &str, known: &[&str]) {
        for key in table.keys() {
            if !known.contains(&key.as_str()) {
                self.problem(join(prefix, key), "unknown key");
            }
        }
    }

    /// The sub-table `key` of `table`; an empty table when absent (all defaults).
    pub fn table<'t>(&mut self, table: &'t Table, prefix: &str, key: &str) -> Option<&'t Table> {
        match table.get(key) {
            None => None,
            Some(Value::Table(t)) => Some(t),
            Some(other) => {
                self.wrong_type(prefix, key, "a table", other);
                None
            }
        }
    }

    /// A string value, or `None` when absent or of another type (recorded).
    pub fn string(&mut self, table: &Table, prefix: &str, key: &str) -> Option<String> {
        match table.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.wrong_type(prefix, key, "a string", other);
                None
            }
        }
    }

    /// An integer value, or `None` when absent or of another type (recorded).
    pub fn integer(&mut self, table: &Table, prefix: &str, key: &str) -> Option<i64> {
        match table.get(key)? {
            Value::Integer(i) => Some(*i),
            other => {
                self.wrong_type(prefix, key, "an integer", other);
                None
            }
        }
    }

    /// A boolean, or `None` when absent or of another type (recorded).
    pub fn boolean(&mut self, table: &Table, prefix: &str, key: &str) -> Option<bool> {
        match table.get(key)? {
            Value::Boolean(b) => Some(*b),
            other => {
                self.wrong_type(prefix, key, "true or false", other);
                None
            }
        }
    }

    /// A number (integer or float), or `None` when absent or of another type (recorded).
    pub fn number(&mut self, table: &Table, prefix: &str, key: &str) -> Option<f64> {
        match table.get(key)? {
            Value::Integer(i) => Some(*i as f64),
            Value::Float(f) if f.is_finite() => Some(*f),
            Value::Float(f) => {
                self.problem(join(prefix, key), format!("{f} is not a finite number"));
                None
            }
            other => {
                self.wrong_type(prefix, key, "a number", other);
                None
            }
        }
    }

    /// An integer within `min..=max`, or `None` (recorded) when outside.
    pub fn integer_in(
        &mut self,
        table: &Table,
        prefix: &str,
        key: &str,
        min: i64,
        max: i64,
    ) -> Option<i64> {
        let value = self.integer(table, prefix, key)?;
        if value < min || value > max {
            let message = if max == i64::MAX {
                format!("{value} must be >= {min}")
            } else {
                format!("{value} is not in {min}..={max}")
            };
            self.problem(join(prefix, key), message);
            return None;
        }
        Some(value)
    }

    /// A duration written as a string (`"60m"`, `"30s"`, `"250ms"`), in milliseconds.
    pub fn duration_ms(&mut self, table: &Table, prefix: &str, key: &str) -> Option<u64> {
        let text = self.string(table, prefix, key)?;
        match parse_duration_ms(&text) {
            Some(ms) => Some(ms),
            None => {
                self.problem(join(prefix, key), format!("{text:?} is not a duration"));
                None
            }
        }
    }

    /// A string from a fixed set of words, parsed by `parse`.
    pub fn word<T>(
        &mut self,
        table: &Table,
        prefix: &str,
        key: &str,
        words: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Option<T> {
        let text = self.string(table, prefix, key)?;
        match parse(&text) {
            Some(v) => Some(v),
            None => {
                self.problem(join(prefix, key), format!("{text:?} is not one of {words}"));
                None
            }
        }
    }

    /// An id as topics need it: non-empty, lower-case `[a-z0-9-]`.
    pub fn id(&mut self, table: &Table, prefix: &str, key: &str) -> Option<String> {
        let text = self.string(table, prefix, key)?;
        if is_id(&text) {
            Some(text)
        } else {
            self.problem(join(prefix, key), format!("{text:?} is not [a-z0-9-]"));
            None
        }
    }

    fn wrong_type(&mut self, prefix: &str, key: &str, expected: &str, found: &Value) {
        self.problem(
            join(prefix, key),
            format!("expected {expected}, found {}", article(found.type_str())),
        );
    }
}

/// "a string", "an integer", ...
fn article(type_name: &str) -> String {
    match type_name.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {type_name}"),
        _ => format!("a {type_name}"),
    }
}

/// True for a non-empty lower-case `[a-z0-9-]` id.
pub fn is_id(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Parses `"60m"`, `"1h 30m"`, `"30s"`, `"250ms"` (humantime's forms) to milliseconds.
pub fn parse_duration_ms(text: &str) -> Option<u64> {
    let duration = humantime::parse_duration(text.trim()).ok()?;
    u64::try_from(duration.as_millis()).ok()
}

/// Writes milliseconds as the wire contract does: whole minutes above one minute (`60m`), else
/// seconds (`60s`, `30s`), else milliseconds (`250ms`).
pub fn format_duration_ms(ms: u64) -> String {
    if ms > 60_000 && ms % 60_000 == 0 {
        format!("{}m", ms / 60_000)
    } else if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}
