//! What each alert says, and which codes carry a penalty (Art. 24).

use tengen_protocol::event::AlertCode;
use tengen_protocol::gtp;
use tengen_rules::{Color, Point};

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

/// One readable English sentence for an alert about `points` (sorted).
pub(super) fn message(code: AlertCode, color: Option<Color>, points: &[Point]) -> String {
    let who = match color {
        Some(Color::Black) => "Black",
        Some(Color::White) => "White",
        None => "Someone",
    };
    let pts = gtp::join(points, ", ");
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
        AlertCode::BoardRestarted => "The board restarted during the game.".to_string(),
        AlertCode::Absent => match color {
            Some(_) => format!("{who} is not seated: the lateness limit is reached."),
            None => "Neither player is seated: the lateness limit is reached.".to_string(),
        },
        // Raised by the board service, never by the referee.
        AlertCode::StorageLow | AlertCode::StorageFull => {
            "The board's storage is low or full.".to_string()
        }
    }
}
