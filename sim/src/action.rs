//! The physical actions a simulated player (or a script) performs, before they are turned
//! into timed changes of the board by [`crate::choreography`].

use tengen_hal::{Millis, PointState};
use tengen_rules::{Color, Point};

use crate::violation::ViolationKind;

/// One physical action on the board or the clock.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A stone of `color` reached over, set down on `point` and released (`place B Q16`).
    Place {
        /// The stone's colour.
        color: Color,
        /// Where it is set down.
        point: Point,
    },
    /// Several stones of one colour set down together, as in the resignation gesture
    /// (`place B S1 T1`, an addition to the script language of sim/README.md).
    PlaceTogether {
        /// The stones' colour.
        color: Color,
        /// Where they are set down (two or more points).
        points: Vec<Point>,
    },
    /// A clock button pressed and released by that side (`press B`).
    Press {
        /// Whose button.
        color: Color,
    },
    /// A stone lifted off the board (`lift D4`).
    Lift {
        /// Where the stone is.
        point: Point,
    },
    /// A stone pushed along the board to another point, crossing the points between
    /// (`slide Q16 R16`).
    Slide {
        /// Where the stone starts.
        from: Point,
        /// Where it ends.
        to: Point,
    },
    /// A hand holding a stone passes near these points (`hover Q15 R15 200ms`).
    Hover {
        /// The colour of the stone in the hand; `None`: the side to move's.
        color: Option<Color>,
        /// The points passed over, in order.
        points: Vec<Point>,
    },
    /// Time passes with nothing happening (`wait 3s`).
    Wait,
    /// `count` stones near one spot displaced at once to random nearby points (`knock 12`).
    Knock {
        /// How many stones (all of them if fewer are on the board).
        count: usize,
    },
    /// The sensor noise from here on (`noise 0.001`).
    Noise {
        /// Probability that a point reads wrong in one scan.
        probability: f64,
    },
    /// A sensor that reads `state` whatever is there (`stuck K10 B`); `None` frees it
    /// (`stuck K10 off`).
    Stuck {
        /// The sensor's point.
        point: Point,
        /// What it reads.
        state: Option<PointState>,
    },
}

impl Action {
    /// The script keyword of this action.
    pub fn keyword(&self) -> &'static str {
        match self {
            Action::Place { .. } | Action::PlaceTogether { .. } => "place",
            Action::Press { .. } => "press",
            Action::Lift { .. } => "lift",
            Action::Slide { .. } => "slide",
            Action::Hover { .. } => "hover",
            Action::Wait => "wait",
            Action::Knock { .. } => "knock",
            Action::Noise { .. } => "noise",
            Action::Stuck { .. } => "stuck",
        }
    }
}

/// An action with the time it may take and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What is done.
    pub action: Action,
    /// The time from this action's start to the next action's start; `None`: human time
    /// (see the crate docs). The physical motion is compressed if it does not fit.
    /// Required for `wait`.
    pub budget: Option<Millis>,
    /// The script line it came from (1-based), if any.
    pub line: Option<usize>,
}

impl Step {
    /// A step with human timing and no script line.
    pub fn new(action: Action) -> Step {
        Step {
            action,
            budget: None,
            line: None,
        }
    }

    /// A step that takes exactly `budget` ms before the next one starts.
    pub fn timed(action: Action, budget: Millis) -> Step {
        Step {
            action,
            budget: Some(budget),
            line: None,
        }
    }
}

/// An action as it was carried out: when it started and ended on the virtual clock.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedAction {
    /// When the hand started moving (ms of virtual time).
    pub start: Millis,
    /// When the action was complete (the stone released, the button let go...), before the
    /// pause that follows it.
    pub end: Millis,
    /// What was done.
    pub action: Action,
    /// The script line, for script actions.
    pub line: Option<usize>,
    /// The game move this action belongs to, for actions made from an SGF game (1-based).
    pub move_number: Option<usize>,
    /// Set when the action was injected as a rule violation.
    pub violation: Option<ViolationKind>,
}
