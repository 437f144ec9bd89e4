//! the script language of sim/README.md: setup lines first, then one action per line.
//!
//! ```text
//! size 19                 # setup lines come first: size, komi, handicap, time, seed, noise
//! komi 7.5
//! time byoyomi 60m 5x60s
//! place B Q16             # a stone set down and released
//! press B                 # a clock button pressed by that side
//! lift D4                 # a stone lifted off the board
//! slide Q16 R16           # a stone pushed along the board to another point
//! hover Q15 R15 200ms     # a hand holding a stone passes near these points
//! wait 3s                 # time passes with no action
//! knock 12                # 12 stones near one spot are displaced at once
//! noise 0.001             # sensor noise from here on
//! stuck K10 B             # a sensor that reads a black stone whatever is there
//! ```
//!
//! Additions (documented in the crate docs): `place`, `press`, `lift`, `slide` and `knock`
//! take an optional last time (`place B Q16 80ms`: the time until the next action starts);
//! `hover` takes an optional colour first (`hover W Q15 R15 200ms`); `place B S1 T1` sets
//! several stones down together; `stuck K10 off` frees a sensor; stuck states are `B`, `W`,
//! `E` (empty) and `U` (unknown); `stuck` lines before any other action hold from the first
//! scan (a sensor dead at power on). Keywords and points are case-insensitive.

use std::fmt;

use tengen_hal::{Millis, PointState};
use tengen_rules::clock::{parse_duration, TimeControl};
use tengen_rules::point::MAX_SIZE;
use tengen_rules::{Color, Point};

use crate::action::{Action, Step};

/// The longest time a script may name (a day), so that timelines stay finite.
pub const MAX_TIME_MS: Millis = 24 * 3600 * 1000;

/// The most stones a `knock` may displace (more than a full board holds).
pub const MAX_KNOCK: usize = 1000;

/// The script's setup lines; `None` where the script does not say (the caller's default,
/// e.g. the config, applies).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Setup {
    /// `size N`: the board size.
    pub size: Option<u8>,
    /// `komi K`: komi in points.
    pub komi: Option<f64>,
    /// `handicap N`: handicap stones (the simulator's Black sets them down first).
    pub handicap: Option<u8>,
    /// `time ...`: the time control (`byoyomi 60m 5x60s`, `none`...).
    pub time: Option<TimeControl>,
    /// `seed N`: the seed for human timing and noise.
    pub seed: Option<u64>,
    /// `noise P`: the sensor noise from the start.
    pub noise: Option<f64>,
}

/// A parsed script.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    /// The setup lines.
    pub setup: Setup,
    /// The actions, in order, with their line numbers.
    pub steps: Vec<Step>,
    /// The line of each setup keyword given (`("handicap", 3)`).
    pub setup_lines: Vec<(&'static str, usize)>,
}

impl Script {
    /// The line a setup keyword was given on.
    pub fn setup_line(&self, keyword: &str) -> Option<usize> {
        self.setup_lines
            .iter()
            .find(|(k, _)| *k == keyword)
            .map(|(_, l)| *l)
    }
}

/// A script that cannot be read or carried out: names the line, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    /// The script's name (its file), if known.
    pub source_name: Option<String>,
    /// The 1-based line at fault.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl ScriptError {
    /// An error at `line`.
    pub fn new(line: usize, message: impl Into<String>) -> ScriptError {
        ScriptError {
            source_name: None,
            line,
            message: message.into(),
        }
    }

    /// The same error naming the script's file (`script.txt:7: ...`).
    pub fn with_source(mut self, name: impl Into<String>) -> ScriptError {
        self.source_name = Some(name.into());
        self
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source_name {
            Some(name) => write!(f, "{name}:{}: {}", self.line, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
    }
}

impl std::error::Error for ScriptError {}

/// One word of a script (or of a fault command) that does not read, and why: the
/// sentence a [`ScriptError`] carries for its line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadWord(pub String);

impl From<String> for BadWord {
    fn from(why: String) -> BadWord {
        BadWord(why)
    }
}

impl From<&str> for BadWord {
    fn from(why: &str) -> BadWord {
        BadWord(why.to_string())
    }
}

impl Script {
    /// Parses a script. Points are checked for form here and against the board size when
    /// the script is carried out.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut script = Script::default();
        let mut first_action: Option<usize> = None;
        for (i, raw_line) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw_line.split('#').next().unwrap_or("");
            let tokens: Vec<&str> = content.split_whitespace().collect();
            let Some((&keyword, args)) = tokens.split_first() else {
                continue;
            };
            let err = |m: BadWord| ScriptError::new(line, m.0);
            let kw = keyword.to_ascii_lowercase();
            let setup_kw = match kw.as_str() {
                "size" => Some("size"),
                "komi" => Some("komi"),
                "handicap" => Some("handicap"),
                "time" => Some("time"),
                "seed" => Some("seed"),
                "noise" if first_action.is_none() => Some("noise"),
                _ => None,
            };
            if let Some(name) = setup_kw {
                if let Some(first) = first_action {
                    return Err(ScriptError::new(
                        line,
                        format!(
                            "setup line '{name}' must come before the first action (line {first})"
                        ),
                    ));
                }
                if let Some(at) = script.setup_line(name) {
                    return Err(ScriptError::new(
                        line,
                        format!("'{name}' is already set on line {at}"),
                    ));
                }
                script.setup_lines.push((name, line));
                parse_setup(&mut script.setup, name, args).map_err(err)?;
                continue;
            }
            let step = parse_action(&kw, keyword, args).map_err(err)?;
            first_action.get_or_insert(line);
            script.steps.push(Step {
                line: Some(line),
                ..step
            });
        }
        Ok(script)
    }
}

fn parse_setup(setup: &mut Setup, name: &str, args: &[&str]) -> Result<(), BadWord> {
    let one = || -> Result<&str, BadWord> {
        match args {
            [a] => Ok(a),
            [] => Err(BadWord(format!("'{name}' needs a value"))),
            _ => Err(BadWord(format!(
                "'{name}' takes one value, got {}",
                args.len()
            ))),
        }
    };
    match name {
        "size" => {
            let v = one()?;
            let n: u8 = v
                .parse()
                .map_err(|_| BadWord(format!("size '{v}' is not a number")))?;
            tengen_rules::point::check_size(n).map_err(|e| e.to_string())?;
            setup.size = Some(n);
        }
        "komi" => {
            let v = one()?;
            let k: f64 = v
                .parse()
                .ok()
                .filter(|k: &f64| k.is_finite() && k.abs() <= 1000.0)
                .ok_or_else(|| BadWord(format!("komi '{v}' is not a number of points")))?;
            setup.komi = Some(k);
        }
        "handicap" => {
            let v = one()?;
            let n: u8 =
                v.parse().ok().filter(|n| *n <= 9).ok_or_else(|| {
                    BadWord(format!("handicap '{v}' is not a number from 0 to 9"))
                })?;
            setup.handicap = Some(n);
        }
        "time" => {
            if args.is_empty() {
                return Err("'time' needs a time control (e.g. 'byoyomi 60m 5x60s')".into());
            }
            let tc = TimeControl::parse(&args.join(" ")).map_err(|e| e.to_string())?;
            setup.time = Some(tc);
        }
        "seed" => {
            let v = one()?;
            let s: u64 = v
                .parse()
                .map_err(|_| BadWord(format!("seed '{v}' is not a whole number")))?;
            setup.seed = Some(s);
        }
        _ => {
            setup.noise = Some(parse_probability(one()?)?);
        }
    }
    Ok(())
}

fn parse_probability(v: &str) -> Result<f64, BadWord> {
    v.parse()
        .ok()
        .filter(|p: &f64| (0.0..=1.0).contains(p))
        .ok_or_else(|| BadWord(format!("noise '{v}' is not a probability from 0 to 1")))
}

/// Parses a time: `250ms`, `3s`, `2m`, `1h` (the rules core's notation, as in the config).
pub fn parse_time(v: &str) -> Result<Millis, BadWord> {
    let ms = parse_duration(v)
        .map_err(|_| BadWord(format!("'{v}' is not a time (e.g. 250ms, 3s, 2m)")))?;
    if ms > MAX_TIME_MS {
        return Err(BadWord(format!("time '{v}' is longer than a day")));
    }
    Ok(ms)
}

fn looks_like_time(v: &str) -> bool {
    v.starts_with(|c: char| c.is_ascii_digit()) && v.ends_with(|c: char| c.is_ascii_alphabetic())
}

fn parse_point(v: &str) -> Result<Point, BadWord> {
    Point::parse_gtp(v, MAX_SIZE).map_err(|_| BadWord(format!("'{v}' is not a point (e.g. Q16)")))
}

fn parse_color(v: &str) -> Result<Color, BadWord> {
    match v.to_ascii_lowercase().as_str() {
        "b" => Ok(Color::Black),
        "w" => Ok(Color::White),
        _ => Err(BadWord(format!("'{v}' is not a colour (B or W)"))),
    }
}

/// Parses a stuck sensor's state: `B`, `W`, `E` (empty), `U` (unknown) or `off` (freed).
pub fn parse_stuck_state(v: &str) -> Result<Option<PointState>, BadWord> {
    match v.to_ascii_lowercase().as_str() {
        "b" => Ok(Some(PointState::Black)),
        "w" => Ok(Some(PointState::White)),
        "e" | "empty" => Ok(Some(PointState::Empty)),
        "u" | "unknown" => Ok(Some(PointState::Unknown)),
        "off" => Ok(None),
        _ => Err(BadWord(format!(
            "'{v}' is not a sensor state (B, W, E for empty, U for unknown, or off)"
        ))),
    }
}

/// Splits an optional trailing time off the arguments.
fn split_time<'a>(args: &'a [&'a str]) -> Result<(&'a [&'a str], Option<Millis>), BadWord> {
    match args.split_last() {
        Some((last, rest)) if looks_like_time(last) => Ok((rest, Some(parse_time(last)?))),
        _ => Ok((args, None)),
    }
}

fn parse_action(kw: &str, keyword: &str, args: &[&str]) -> Result<Step, BadWord> {
    let usage = |form: &str| format!("expected '{form}'");
    let (args, budget) = split_time(args)?;
    let action = match kw {
        "place" => match args {
            [c, p] => Action::Place {
                color: parse_color(c)?,
                point: parse_point(p)?,
            },
            [c, ps @ ..] if ps.len() >= 2 => {
                let points = ps
                    .iter()
                    .map(|p| parse_point(p))
                    .collect::<Result<Vec<_>, _>>()?;
                for (i, p) in points.iter().enumerate() {
                    if points[..i].contains(p) {
                        return Err(BadWord(format!("place: {p} is named twice")));
                    }
                }
                Action::PlaceTogether {
                    color: parse_color(c)?,
                    points,
                }
            }
            _ => return Err(BadWord(usage("place B|W POINT [TIME]"))),
        },
        "press" => match args {
            [c] => Action::Press {
                color: parse_color(c)?,
            },
            _ => return Err(BadWord(usage("press B|W [TIME]"))),
        },
        "lift" => match args {
            [p] => Action::Lift {
                point: parse_point(p)?,
            },
            _ => return Err(BadWord(usage("lift POINT [TIME]"))),
        },
        "slide" => match args {
            [a, b] => {
                let (from, to) = (parse_point(a)?, parse_point(b)?);
                if from == to {
                    return Err(BadWord(format!("slide: {from} to itself")));
                }
                Action::Slide { from, to }
            }
            _ => return Err(BadWord(usage("slide FROM TO [TIME]"))),
        },
        "hover" => {
            let (color, pts) = match args.split_first() {
                Some((c, rest)) if parse_color(c).is_ok() => (parse_color(c).ok(), rest),
                _ => (None, args),
            };
            if pts.is_empty() {
                return Err(BadWord(usage("hover [B|W] POINT... [TIME]")));
            }
            let points = pts
                .iter()
                .map(|p| parse_point(p))
                .collect::<Result<_, _>>()?;
            Action::Hover { color, points }
        }
        "wait" => match (args, budget) {
            ([], Some(_)) => Action::Wait,
            _ => return Err(BadWord(usage("wait TIME"))),
        },
        "knock" => match args {
            [n] => {
                let count: usize = n
                    .parse()
                    .ok()
                    .filter(|c| (1..=MAX_KNOCK).contains(c))
                    .ok_or_else(|| BadWord(format!("knock: '{n}' is not a number of stones")))?;
                Action::Knock { count }
            }
            _ => return Err(BadWord(usage("knock N [TIME]"))),
        },
        "noise" => match (args, budget) {
            ([p], None) => Action::Noise {
                probability: parse_probability(p)?,
            },
            _ => return Err(BadWord(usage("noise P"))),
        },
        "stuck" => match (args, budget) {
            ([p, s], None) => Action::Stuck {
                point: parse_point(p)?,
                state: parse_stuck_state(s)?,
            },
            _ => return Err(BadWord(usage("stuck POINT B|W|E|U|off"))),
        },
        _ => return Err(BadWord(format!("unknown action '{keyword}'"))),
    };
    Ok(Step {
        action,
        budget,
        line: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        Point::parse_gtp(s, 19).unwrap()
    }

    #[test]
    fn the_spec_example_parses() {
        let text = "size 19                 # setup lines come first\n\
                    komi 7.5\n\
                    time byoyomi 60m 5x60s  # or: absolute 30m\n\
                    place B Q16\n\
                    press B\n\
                    lift D4\n\
                    slide Q16 R16\n\
                    hover Q15 R15 200ms\n\
                    wait 3s\n\
                    knock 12\n\
                    noise 0.001\n\
                    stuck K10 B\n";
        let s = Script::parse(text).unwrap();
        assert_eq!(s.setup.size, Some(19));
        assert_eq!(s.setup.komi, Some(7.5));
        assert_eq!(
            s.setup.time,
            Some(TimeControl::Byoyomi {
                main_ms: 3_600_000,
                periods: 5,
                period_ms: 60_000
            })
        );
        assert_eq!(s.setup.noise, None);
        let actions: Vec<_> = s.steps.iter().map(|s| s.action.clone()).collect();
        assert_eq!(
            actions,
            vec![
                Action::Place {
                    color: Color::Black,
                    point: p("Q16")
                },
                Action::Press {
                    color: Color::Black
                },
                Action::Lift { point: p("D4") },
                Action::Slide {
                    from: p("Q16"),
                    to: p("R16")
                },
                Action::Hover {
                    color: None,
                    points: vec![p("Q15"), p("R15")]
                },
                Action::Wait,
                Action::Knock { count: 12 },
                Action::Noise { probability: 0.001 },
                Action::Stuck {
                    point: p("K10"),
                    state: Some(PointState::Black)
                },
            ]
        );
        assert_eq!(s.steps[4].budget, Some(200));
        assert_eq!(s.steps[5].budget, Some(3000));
        assert_eq!(s.steps[0].line, Some(4));
        assert_eq!(s.steps[8].line, Some(12));
    }

    #[test]
    fn times_read_as_milliseconds() {
        assert_eq!(parse_time("250ms"), Ok(250));
        assert_eq!(parse_time("3s"), Ok(3000));
        assert_eq!(parse_time("2m"), Ok(120_000));
        assert!(parse_time("ms").is_err());
        assert!(parse_time("3 parsecs").is_err());
        assert!(parse_time("100000h").is_err());
    }

    #[test]
    fn errors_name_the_line() {
        let e = Script::parse("size 9\n\n# c\nplace B C3\nplaec B D4\n")
            .unwrap_err()
            .with_source("script.txt");
        assert_eq!(e.to_string(), "script.txt:5: unknown action 'plaec'");
        let e = Script::parse("place B C3\nsize 9\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: setup line 'size' must come before the first action (line 1)"
        );
        let e = Script::parse("size 9\nsize 13\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: 'size' is already set on line 1");
        let e = Script::parse("place X C3\n").unwrap_err();
        assert_eq!(e.to_string(), "line 1: 'X' is not a colour (B or W)");
        let e = Script::parse("lift I5\n").unwrap_err();
        assert_eq!(e.to_string(), "line 1: 'I5' is not a point (e.g. Q16)");
        let e = Script::parse("size 40\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(Script::parse("wait\n").is_err());
        assert!(Script::parse("noise 2\n").is_err());
        assert!(Script::parse("knock 0\n").is_err());
        assert!(Script::parse("stuck K10 Q\n").is_err());
    }

    #[test]
    fn noise_is_setup_first_and_an_action_later() {
        let s = Script::parse("noise 0.01\nplace B D4\nnoise 0.02\n").unwrap();
        assert_eq!(s.setup.noise, Some(0.01));
        assert_eq!(s.steps[1].action, Action::Noise { probability: 0.02 });
    }

    #[test]
    fn additions_parse() {
        let s = Script::parse(
            "place W D4 80ms\nhover W C3 D3\nplace B S1 T1\nstuck K10 off\nknock 3 1s\n",
        )
        .unwrap();
        assert_eq!(s.steps[0].budget, Some(80));
        assert_eq!(
            s.steps[1].action,
            Action::Hover {
                color: Some(Color::White),
                points: vec![p("C3"), p("D3")]
            }
        );
        assert_eq!(
            s.steps[2].action,
            Action::PlaceTogether {
                color: Color::Black,
                points: vec![p("S1"), p("T1")]
            }
        );
        assert_eq!(
            s.steps[3].action,
            Action::Stuck {
                point: p("K10"),
                state: None
            }
        );
        assert_eq!(s.steps[4].budget, Some(1000));
    }
}
