//! `Simulation::resumed_from`: a game taken up part-way starts with the earlier actions'
//! stones already on the board and plays only the rest.

use tengen_hal::{ButtonAction, FrameData, PointState};
use tengen_sim::{Action, SimOptions, Simulation};

const SCRIPT: &str =
    "size 9\nplace B C3\npress B\nplace W G7\npress W\nplace B E5\npress B\nlift E5\n";

fn presses(sim: &mut Simulation) -> (usize, Vec<PointState>) {
    let mut n = 0;
    let mut first = None;
    while let Some((frame, buttons)) = sim.next_scan() {
        if first.is_none() {
            if let FrameData::Classified(states) = &frame.data {
                first = Some(states.clone());
            }
        }
        n += buttons
            .iter()
            .filter(|b| b.action == ButtonAction::Press)
            .count();
    }
    (n, first.unwrap_or_default())
}

#[test]
fn a_resumed_game_starts_from_the_position_and_plays_the_rest() {
    let options = SimOptions::seeded(3);
    let whole = Simulation::from_script(SCRIPT, &options).unwrap();
    let final_board = whole.final_board().to_vec();
    // Take it up at the third place (action 4): C3 and G7 are down, two presses done.
    let pause = whole.actions()[4].start - whole.actions()[3].end;
    assert!(
        pause > 0,
        "the script's actions have human pauses between them"
    );
    let mut resumed = whole.clone().resumed_from(4);
    assert!(matches!(resumed.actions()[0].action, Action::Place { .. }));
    assert_eq!(resumed.actions().len(), 3);
    // The lead-in, then the thinking that came before this move in the whole game (less
    // the millisecond at which the action before it ended, taken as done).
    assert_eq!(resumed.actions()[0].start, options.lead_in_ms + pause - 1);
    let (n, first) = presses(&mut resumed);
    assert_eq!(n, 1, "only the last press is left");
    let stones = first
        .iter()
        .filter(|s| matches!(s, PointState::Black | PointState::White))
        .count();
    assert_eq!(stones, 2, "the first scan shows C3 and G7 already down");
    assert_eq!(resumed.true_board(), &final_board[..]);
    assert!(resumed.end_time() < whole.end_time());
}

/// Taken up at a press whose stone is down (a board switched off between a stone and its
/// press): the stone, set down at the very end of its action, is on the board at once.
#[test]
fn taken_up_at_a_press_the_stone_before_it_is_already_down() {
    let whole = Simulation::from_script(SCRIPT, &SimOptions::seeded(3)).unwrap();
    // Action 3 is White's press after G7 (action 2).
    let mut resumed = whole.resumed_from(3);
    assert!(matches!(resumed.actions()[0].action, Action::Press { .. }));
    let (_, first) = presses(&mut resumed);
    let stones = first
        .iter()
        .filter(|s| matches!(s, PointState::Black | PointState::White))
        .count();
    assert_eq!(stones, 2, "the first scan shows C3 and G7 down");
}

#[test]
fn resumed_past_the_end_shows_the_final_position_and_does_nothing() {
    let whole = Simulation::from_script(SCRIPT, &SimOptions::seeded(3)).unwrap();
    let final_board = whole.final_board().to_vec();
    let mut resumed = whole.resumed_from(usize::MAX);
    assert!(resumed.actions().is_empty());
    let (n, first) = presses(&mut resumed);
    assert_eq!(n, 0);
    let stones = first
        .iter()
        .filter(|s| matches!(s, PointState::Black | PointState::White))
        .count();
    assert_eq!(stones, 2, "C3 and G7 (E5 was lifted)");
    assert_eq!(resumed.true_board(), &final_board[..]);
}
