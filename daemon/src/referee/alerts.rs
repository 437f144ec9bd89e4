//! Open alerts: what each one is about, which points it covers and what the board must show
//! there, and which codes carry a penalty (Art. 24).

use std::collections::BTreeMap;

use tengen_rules::{Color, Point};

use crate::event::{AlertCode, Event};

/// One alert the referee raised and has not yet seen resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAlert {
    /// Unique per board (`"a1"`, `"a2"`...).
    pub id: String,
    /// What it is.
    pub code: AlertCode,
    /// The article(s) of RULES.md.
    pub article: String,
    /// The offending side, if known.
    pub color: Option<Color>,
    /// The points involved (sorted).
    pub points: Vec<Point>,
    /// What the board must show at those points (`None` = empty).
    pub expected: Vec<(Point, Option<Color>)>,
    /// The sentence sent with it.
    pub message: String,
    /// False once an arbiter confirmed or dismissed it while the board still differs: it then
    /// covers its points silently until the board is restored.
    pub visible: bool,
}

impl OpenAlert {
    /// True for alerts about the board's contents, which clear when the board matches.
    pub fn is_board_alert(&self) -> bool {
        !self.expected.is_empty()
    }

    /// The `alert` event announcing it.
    pub fn to_event(&self) -> Event {
        Event::Alert {
            id: self.id.clone(),
            code: self.code,
            article: self.article.clone(),
            color: self.color,
            points: tengen_rules::point::sorted_gtp(self.points.iter().copied()),
            expected: expected_map(&self.expected),
            message: self.message.clone(),
        }
    }
}

/// `expected` as SPEC.md writes it: GTP point -> `"B"`, `"W"` or `"empty"`.
pub fn expected_map(expected: &[(Point, Option<Color>)]) -> BTreeMap<String, String> {
    expected
        .iter()
        .map(|(p, c)| {
            let v = match c {
                Some(c) => c.letter().to_string(),
                None => "empty".to_string(),
            };
            (p.to_gtp(), v)
        })
        .collect()
}

/// Parses SPEC.md's `expected` map back (for restoring from the event log).
pub fn parse_expected(map: &BTreeMap<String, String>, size: u8) -> Vec<(Point, Option<Color>)> {
    map.iter()
        .filter_map(|(k, v)| {
            let p = Point::parse_gtp(k, size).ok()?;
            let c = if v == "empty" {
                None
            } else {
                Some(Color::parse(v)?)
            };
            Some((p, c))
        })
        .collect()
}

/// True for the violations the rules punish with a warning (Art. 17.2-17.4, 18.1-18.3).
pub fn is_penalised(code: AlertCode) -> bool {
    matches!(
        code,
        AlertCode::UncapturedStones
            | AlertCode::WrongCapture
            | AlertCode::Takeback
            | AlertCode::DoubleMove
            | AlertCode::Ko
            | AlertCode::ClockBeforeMove
    )
}

/// One readable English sentence for an alert.
pub fn message(code: AlertCode, color: Option<Color>, points: &[Point]) -> String {
    let who = match color {
        Some(Color::Black) => "Black",
        Some(Color::White) => "White",
        None => "Someone",
    };
    let pts = tengen_rules::point::sorted_gtp(points.iter().copied()).join(", ");
    match code {
        AlertCode::UncapturedStones => {
            format!("{who} pressed the clock with captured stones still on the board at {pts}.")
        }
        AlertCode::WrongCapture => format!("{who} removed stones that were not captured: {pts}."),
        AlertCode::StoneMoved => format!("A stone was moved on the board: {pts}."),
        AlertCode::Takeback => {
            format!("{who} took back the last move and played elsewhere: {pts}.")
        }
        AlertCode::DoubleMove => format!("{who} played twice in a row at {pts}."),
        AlertCode::WrongColor => format!("{who} opened the game with the wrong colour at {pts}."),
        AlertCode::Suicide => format!("{who} played a suicide at {pts}."),
        AlertCode::Ko => format!("{who} retook the ko at once at {pts}."),
        AlertCode::Superko => format!("{who}'s stone at {pts} repeats an earlier position."),
        AlertCode::ClockBeforeMove => {
            format!("{who} pressed the clock before setting the stone down at {pts}.")
        }
        AlertCode::BoardDisturbed => format!("The position was disturbed at {pts}."),
        AlertCode::TimeExpired => format!("{who}'s time has expired."),
        AlertCode::Mismatch => format!("The board does not match the game at {pts}."),
    }
}
