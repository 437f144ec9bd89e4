//! The count the board says, on virtual time, against Art. 12.3 as docs/rules.md gives it: in a
//! 60 s period "30", "40", "50", "55", "58" seconds and "1 minute used, N left" when it runs
//! out; in the last period "30", "40", "50", then "1" .. "10" once a second, "10" being the
//! flag. The real referee (stabiliser, clock) is fed exact scans and button presses, its
//! events are folded as a board folds them, and the table's schedule is polled after every
//! scan as the board's loop polls it. The expected instants are computed here from the
//! rules text and the presses, not from the clock engine.
//!
//! One game covers: a move made at 58 s (no "minute used"), a press at 59.9 s (none
//! either), a whole period used and the next one started, an arbiter's pause in the middle
//! of a period (the count resumes where it stopped), and the last period to the flag.

use tengen_hal::{Button, ButtonAction, ButtonEvent, Frame, FrameData, Millis, PointState};
use tengen_protocol::command::{Command, CommandEnvelope};
use tengen_protocol::{Event, GameView, Timestamp};
use tengen_referee::{Pipeline, RefereeSettings};
use tengen_rules::clock::{Call, TimeControl};
use tengen_rules::{Color, Point};
use tengen_table::{Schedule, Sound};

const SIZE: u8 = 9;
const SCAN_MS: Millis = 10;
const PERIOD_MS: Millis = 60_000;

/// A board driven scan by scan: the referee, the fold, the schedule.
struct Table {
    pipeline: Pipeline,
    view: GameView,
    schedule: Schedule,
    now: Millis,
    stones: Vec<PointState>,
    presses: Vec<ButtonEvent>,
    /// Each sound handed out, with the poll that handed it out.
    said: Vec<(Sound, Millis)>,
    events: Vec<(Millis, Event)>,
}

impl Table {
    fn new() -> Table {
        let mut settings = RefereeSettings::default();
        settings.game.size = SIZE;
        settings.game.time_control = TimeControl::Byoyomi {
            main_ms: 0,
            periods: 3,
            period_ms: PERIOD_MS,
        };
        let (pipeline, first) = Pipeline::new(settings, None, 0).expect("game set up");
        let mut t = Table {
            pipeline,
            view: GameView::new(),
            schedule: Schedule::new(),
            now: 0,
            stones: vec![PointState::Empty; usize::from(SIZE) * usize::from(SIZE)],
            presses: Vec::new(),
            said: Vec::new(),
            events: Vec::new(),
        };
        t.record(first, 0);
        t
    }

    fn record(&mut self, events: Vec<Event>, at: Millis) {
        for e in events {
            self.view
                .apply(&e, Timestamp::from_millis(at))
                .expect("the referee's events fold");
            self.schedule.on_event(&e, Timestamp::from_millis(at));
            self.events.push((at, e));
        }
    }

    /// Scans every 10 ms until `until` (inclusive); each press is delivered with the first
    /// scan at or after its instant, stamped with its own instant.
    fn run_until(&mut self, until: Millis) {
        while self.now + SCAN_MS <= until {
            self.now += SCAN_MS;
            let now = self.now;
            let (due, later): (Vec<ButtonEvent>, Vec<ButtonEvent>) =
                self.presses.drain(..).partition(|p| p.time <= now);
            self.presses = later;
            let frame = Frame {
                time: now,
                data: FrameData::Classified(self.stones.clone()),
            };
            let events = self.pipeline.step(&frame, &due).expect("scan");
            self.record(events, now);
            let polled = self.schedule.poll(&self.view, Timestamp::from_millis(now));
            if let Some(sound) = polled.sound {
                self.said.push((sound, now));
            }
        }
    }

    fn place(&mut self, at: Millis, point: &str, color: Color) {
        self.run_until(at);
        let p = Point::parse_gtp(point, SIZE).expect("point");
        self.stones[p.index(SIZE)] = match color {
            Color::Black => PointState::Black,
            Color::White => PointState::White,
        };
    }

    fn press(&mut self, at: Millis, color: Color) {
        self.run_until(at.saturating_sub(SCAN_MS));
        self.presses.push(ButtonEvent {
            time: at,
            button: match color {
                Color::Black => Button::Black,
                Color::White => Button::White,
            },
            action: ButtonAction::Press,
        });
        self.run_until(at + SCAN_MS);
    }

    fn command(&mut self, at: Millis, command: Command) {
        self.run_until(at);
        let env = CommandEnvelope {
            id: format!("c{at}"),
            by: Some("chief".into()),
            command,
        };
        let events = self.pipeline.command(&env, at).expect("command accepted");
        self.record(events, at);
    }
}

/// What Art. 12.3 says for one period, by thinking time in the period (ms), and the periods
/// left as the `byoyomi` event counts them.
fn period_calls(last: bool) -> Vec<(Millis, Call)> {
    let mut calls = vec![
        (30_000, Call::S30),
        (40_000, Call::S40),
        (50_000, Call::S50),
    ];
    if last {
        calls.extend((1..=10).map(|n| (50_000 + u64::from(n) * 1000, Call::Count(n))));
    } else {
        calls.extend([
            (55_000, Call::S55),
            (58_000, Call::S58),
            (60_000, Call::MinuteUsed),
        ]);
    }
    calls
}

/// Turns thinking time into board time for a clock that ran over `running` (wall
/// intervals, in order): the instant the side had thought `think` ms.
fn instant(running: &[(Millis, Millis)], think: Millis) -> Option<Millis> {
    let mut left = think;
    for &(from, to) in running {
        if left <= to - from {
            return Some(from + left);
        }
        left -= to - from;
    }
    None
}

/// The calls of one turn: `color` thinks over `running` (wall intervals, a pause between
/// them), starting in a fresh period with `periods_left` left.
fn turn(
    color: Color,
    running: &[(Millis, Millis)],
    mut periods_left: u32,
) -> Vec<(Millis, Color, Call, u32)> {
    let mut out = Vec::new();
    let mut used = 0; // thinking time of the periods used up in this turn
    loop {
        let last = periods_left == 1;
        for (think, call) in period_calls(last) {
            let Some(at) = instant(running, used + think) else {
                return out;
            };
            let left = if call == Call::MinuteUsed {
                periods_left - 1
            } else {
                periods_left
            };
            out.push((at, color, call, left));
        }
        if last {
            return out;
        }
        periods_left -= 1;
        used += PERIOD_MS;
    }
}

#[test]
fn the_count_follows_article_12_3_to_the_millisecond() {
    let mut t = Table::new();
    // Black thinks 58.5 s: the "58" is said, the minute is not used.
    t.place(20_000, "D4", Color::Black);
    t.press(58_500, Color::Black);
    // White presses at 59.9 s: the last call was "58", nothing more.
    t.place(100_000, "F6", Color::White);
    t.press(58_500 + 59_900, Color::White);
    // Black thinks 75 s: a whole period used, 15 s into the next.
    t.place(190_000, "C3", Color::Black);
    t.press(193_400, Color::Black);
    // White: 10 s, then the arbiter pauses for a minute (Art. 14), then 48.6 s more.
    t.command(203_400, Command::Pause {});
    t.run_until(233_400);
    t.command(263_400, Command::Resume {});
    t.place(300_000, "G7", Color::White);
    t.press(312_000, Color::White);
    // Black uses a second period, then the last one runs out: the flag.
    t.run_until(440_000);

    let mut expected = Vec::new();
    expected.extend(turn(Color::Black, &[(0, 58_500)], 3));
    expected.extend(turn(Color::White, &[(58_500, 118_400)], 3));
    expected.extend(turn(Color::Black, &[(118_400, 193_400)], 3));
    expected.extend(turn(
        Color::White,
        &[(193_400, 203_400), (263_400, 312_000)],
        3,
    ));
    expected.extend(turn(Color::Black, &[(312_000, 440_000)], 2));

    let said: Vec<(Millis, Color, Call, u32)> = t
        .said
        .iter()
        .map(|(s, _)| (s.at.millis(), s.color, s.call, s.periods_left))
        .collect();
    assert_eq!(said, expected, "what was said against Art. 12.3");
    // Every call was handed out at the scan of its instant (the scans are 10 ms apart and
    // the instants fall on them), none dropped.
    for (sound, polled) in &t.said {
        assert_eq!(*polled, sound.at.millis(), "{sound:?}");
    }
    assert_eq!(t.schedule.dropped(), 0);
    // The referee's own `byoyomi` events are the same calls at the same instants.
    let events: Vec<(Millis, Color, Call, u32)> = t
        .events
        .iter()
        .filter_map(|(at, e)| match e {
            Event::Byoyomi {
                color,
                call,
                periods_left,
            } => Some((*at, *color, *call, *periods_left)),
            _ => None,
        })
        .collect();
    assert_eq!(events, expected);
    // Spot checks of the table itself, as docs/rules.md words it.
    assert!(expected.contains(&(58_000, Color::Black, Call::S58, 3)));
    assert!(!expected
        .iter()
        .any(|e| e.1 == Color::Black && e.2 == Call::MinuteUsed && e.0 < 118_400));
    assert!(expected.contains(&(118_400 + 60_000, Color::Black, Call::MinuteUsed, 2)));
    // The pause moves White's "30" by the minute it lasted: 10 s before, 20 s after.
    assert!(expected.contains(&(263_400 + 20_000, Color::White, Call::S30, 3)));
    let last = expected.last().copied();
    assert_eq!(
        last,
        Some((312_000 + 120_000, Color::Black, Call::Count(10), 1))
    );
    assert!(t
        .events
        .iter()
        .any(|(at, e)| *at == 432_000
            && matches!(e, Event::Alert(a) if a.color == Some(Color::Black))));
}

#[test]
fn nothing_is_said_while_paused_and_a_late_poll_drops_the_call() {
    let mut t = Table::new();
    t.command(25_000, Command::Pause {});
    t.run_until(200_000);
    assert!(t.said.is_empty(), "{:?}", t.said);
    // A call whose poll comes more than 30 ms after its instant is dropped, not said late.
    let mut s = Schedule::new();
    let view = t.view.clone();
    s.on_event(
        &Event::Byoyomi {
            color: Color::Black,
            call: Call::S30,
            periods_left: 3,
        },
        Timestamp::from_millis(300_000),
    );
    assert_eq!(s.poll(&view, Timestamp::from_millis(300_031)).sound, None);
    assert_eq!(s.dropped(), 1);
    s.on_event(
        &Event::Byoyomi {
            color: Color::Black,
            call: Call::S40,
            periods_left: 3,
        },
        Timestamp::from_millis(310_000),
    );
    let said = s.poll(&view, Timestamp::from_millis(310_030)).sound;
    assert_eq!(said.map(|s| s.call), Some(Call::S40));
}
