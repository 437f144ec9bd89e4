//! What one player's display shows at an instant: a [`Face`], read from the game as the
//! events fold it ([`GameView`]) and quantised to what can be seen.
//!
//! A face holds exactly what [`crate::render()`] draws, in the units it draws them: the time
//! as the whole seconds or tenths on the display (not milliseconds), the names only while
//! they are shown (before the first move), the move number only once there is one. So two
//! equal faces draw the same frame, and a face read ten times a second changes only when
//! the picture does: the caller keeps the last face and redraws on a difference.
//!
//! **The time shown** (Art. 12): the time left in the current phase (base time, then the
//! current byo-yomi or Canadian period). At 10 s or more it is whole seconds rounded
//! *up* (`h:mm:ss` from one hour, `m:ss` below), so a fresh 60 min clock reads `1:00:00`
//! for its whole first second and `0:10` is on the display until exactly 10.000 s are
//! left. Under 10 s it is tenths, rounded *down* (`9.9` from 9.999 s), except that a
//! clock with any time left reads at least `0.1`: `0.0` means the time is out.

use std::fmt;

use tengen_protocol::event::ClockStart;
use tengen_protocol::view::Phase;
use tengen_protocol::{GameView, Timestamp};
use tengen_rules::clock::{Arrivals, Clock, Seat, TimeControl};
use tengen_rules::{Color, Point};

/// Everything one player's display shows at one instant, quantised to what can be seen
/// (see the module documentation). Drawn by [`crate::render()`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Face {
    /// Whose display it is: the player of this colour faces it.
    pub color: Color,
    /// What it shows.
    pub screen: Screen,
}

/// The three kinds of picture a display shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// No game is set up: the board says so, with its id.
    Idle {
        /// The board's id (`hall1-07`), empty when not known yet.
        board: String,
    },
    /// A game is being played (or counted).
    Play(Play),
    /// The game is over: its result.
    Over(Over),
}

/// A player as the display names them: the name (empty when the setup names nobody: the
/// display then says the side, `Black`, `黑方`, in its language) and, apart, the rank where
/// known, so that a line too narrow for both shortens the name and keeps the rank whole
/// (`Gao C. 3D`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The name as the setup gives it, trimmed; empty when it gives none.
    pub name: String,
    /// The rank (`3D`, `12k`, `1p`), trimmed; `None` when not known.
    pub rank: Option<String>,
}

impl fmt::Display for Name {
    /// `Gao Chuande 3D`, or the name alone without a rank.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rank {
            Some(rank) => write!(f, "{} {rank}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// A game in play, as one player sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Play {
    /// The player's name and rank.
    pub name: Name,
    /// The opponent's name and rank, shown before the first move (the players check they
    /// sit at the right board); `None` once the game is under way.
    pub opponent: Option<Name>,
    /// Moves (and passes) played so far.
    pub moves: u32,
    /// The player's clock; `None` in a game without a clock (time control `none`).
    pub clock: Option<ClockFace>,
    /// It is this player's turn: their clock runs (without a clock: they are to move).
    pub turn: bool,
    /// An arbiter's pause (or a restart) holds both clocks. Also true while the game
    /// waits to begin.
    pub paused: bool,
    /// The game waits to begin (both clocks stopped): the display shows the players'
    /// names and what play waits for, not the clock.
    pub waiting: Option<Waiting>,
    /// Both passed: the players lift the dead stones and confirm the count.
    pub counting: bool,
    /// An alert is open at the board: the players call the arbiter.
    pub alert: Option<AlertFace>,
    /// In a game whose players check in (Art. 22): what the display says of this player's
    /// seat, when it says anything (see [`SeatFace`]).
    pub seat: Option<SeatFace>,
}

/// How long a late arrival stays in words on the player's display: a minute of the
/// board's time after the arrival.
pub const LATE_SHOWN_MS: u64 = 60_000;

/// What the display says of a player's seat in a game whose players check in (Art. 22):
/// the check-in before play begins, the late arrival after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatFace {
    /// Play has not begun and the player has not checked in: the display shows the table
    /// and asks them to press their own clock button once seated.
    CheckIn {
        /// The table, as the setup names it (empty: the display shows none).
        table: String,
    },
    /// Checked in before play began: the display says so.
    CheckedIn,
    /// Play began without them: their press (or their first stone) says they arrived.
    Away,
    /// Arrived late, for [`LATE_SHOWN_MS`]: how late, and all it cost them (what their
    /// clock ran while they were away and what was taken on arrival), as whole seconds.
    Late {
        /// How late (`7:12`).
        late: TimeShown,
        /// All their lateness cost them (`14:24` under Art. 22.1: twice the lateness).
        taken: TimeShown,
    },
}

/// What a game waiting to begin waits for (`game.clock_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    /// The arbiter's `resume` ("waiting for the arbiter").
    Arbiter,
    /// That, or this side's press, which starts the other side's clock (`white`: White in
    /// an even game, Black in a handicap game): "White starts the clock".
    Press(Color),
}

/// One player's clock, as the display shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockFace {
    /// The time left in the current phase, as shown.
    pub time: TimeShown,
    /// Where the player is in the time control (main time, periods, stones).
    pub stage: Stage,
    /// The player's time ran out (the flag fell), until the arbiter acts.
    pub flagged: bool,
}

/// A time as the display shows it: whole seconds from 10 s up, tenths below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeShown {
    /// Whole seconds, rounded up (10 or more): `h:mm:ss` from an hour, `m:ss` below.
    Seconds(u64),
    /// Tenths of a second, rounded down (0..=99, at least 1 while any time is left):
    /// `9.7`.
    Tenths(u8),
}

impl TimeShown {
    /// `ms` milliseconds left, as shown (see the module documentation).
    pub fn from_ms(ms: u64) -> TimeShown {
        if ms >= 10_000 {
            TimeShown::Seconds(ms.div_ceil(1000))
        } else {
            // ms < 10_000, so the tenths fit in a u8.
            let tenths = (ms / 100) as u8;
            TimeShown::Tenths(if ms > 0 { tenths.max(1) } else { 0 })
        }
    }
}

impl fmt::Display for TimeShown {
    /// `1:00:00`, `59:59`, `0:10`, `9.7`, `0.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeShown::Seconds(s) if s >= 3600 => {
                write!(f, "{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
            }
            TimeShown::Seconds(s) => write!(f, "{}:{:02}", s / 60, s % 60),
            TimeShown::Tenths(t) => write!(f, "{}.{}", t / 10, t % 10),
        }
    }
}

/// Where a player is in the time control: what the display says beside the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Absolute time (Art. 12.4): the base time is all there is.
    Absolute,
    /// Fischer: the base time, and `increment_ms` added at each press.
    Fischer {
        /// The increment.
        increment_ms: u64,
    },
    /// Byo-yomi, still in the base time; then `periods` periods of `period_ms`.
    ByoyomiMain {
        /// The periods waiting.
        periods: u32,
        /// The length of one.
        period_ms: u64,
    },
    /// Byo-yomi periods (Art. 12.3): the time shown is the current period's.
    Byoyomi {
        /// Periods left, the current one included (1: the last period).
        periods_left: u32,
    },
    /// Canadian, still in the base time; then `stones` moves in each `period_ms`.
    CanadianMain {
        /// Moves to play in each period.
        stones: u32,
        /// The length of one.
        period_ms: u64,
    },
    /// Canadian periods (Art. 12.5): the time shown is the current period's.
    Canadian {
        /// Moves still to play in this period.
        stones_left: u32,
    },
}

/// An open alert, as the players see it: "call the arbiter", and where the board must be
/// put right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertFace {
    /// The points named by the open alerts (what to restore), sorted, each once.
    pub points: Vec<Point>,
}

/// A finished game, as one player sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Over {
    /// The player's name and rank (as in [`Play::name`]).
    pub name: Name,
    /// The result in SGF form (`B+1.5`, `W+R`, `B+T`, `0`, `Void`).
    pub result: String,
    /// Moves (and passes) played.
    pub moves: u32,
}

impl Face {
    /// What `color`'s display shows at `now`, from the game as `view` folds it.
    pub fn of(view: &GameView, color: Color, now: Timestamp) -> Face {
        let screen = match view.setup() {
            None => Screen::Idle {
                board: view.board_id().to_string(),
            },
            Some(setup) => {
                let name = display_name(setup, color);
                let moves = u32::try_from(view.record().len()).unwrap_or(u32::MAX);
                match view.phase() {
                    Phase::Over => Screen::Over(Over {
                        name,
                        result: view.result().unwrap_or("?").to_string(),
                        moves,
                    }),
                    phase => {
                        let waiting = waiting_for(view);
                        let mut play = Play {
                            name,
                            opponent: (moves == 0 || waiting.is_some())
                                .then(|| display_name(setup, color.opponent())),
                            moves,
                            clock: None,
                            turn: false,
                            paused: false,
                            waiting,
                            counting: phase == Phase::Counting,
                            alert: alert_face(view),
                            seat: None,
                        };
                        play.seat = view
                            .arrivals()
                            .and_then(|a| seat_face(a, &setup.table, color, waiting, now));
                        match view.clock() {
                            Some(clock) => read_clock(&mut play, clock, color, now),
                            None => {
                                play.turn = phase == Phase::Playing
                                    && view.game().is_some_and(|g| g.to_move() == color);
                            }
                        }
                        Screen::Play(play)
                    }
                }
            }
        };
        Face { color, screen }
    }
}

/// What the two player displays show (`None` for a display not drawn yet): what the board's
/// loop hands its displays and its tablet page, and what the hall draws for a board's
/// `/clock` from its fold of the board's events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerFaces {
    /// Black's display.
    pub black: Option<Face>,
    /// White's display.
    pub white: Option<Face>,
}

impl PlayerFaces {
    /// Both faces at `now`, from the game as `view` folds it.
    pub fn of(view: &GameView, now: Timestamp) -> PlayerFaces {
        PlayerFaces {
            black: Some(Face::of(view, Color::Black, now)),
            white: Some(Face::of(view, Color::White, now)),
        }
    }

    /// `color`'s face.
    pub fn get(&self, color: Color) -> Option<&Face> {
        match color {
            Color::Black => self.black.as_ref(),
            Color::White => self.white.as_ref(),
        }
    }
}

/// The clock part of a play face: the view's clock run on to `now`, so that a phase that
/// began or a flag that fell since the last event shows at once.
fn read_clock(play: &mut Play, clock: &Clock, color: Color, now: Timestamp) {
    let mut clock = clock.clone();
    // The calls due are the referee's business; the display only needs the state.
    drop(clock.tick(now.millis()));
    let flagged = clock.flagged() == Some(color);
    let left = if flagged {
        0
    } else {
        clock.remaining(color, now.millis())
    };
    let overtime = clock.in_overtime(color);
    let periods = clock.periods_left(color);
    let stage = match *clock.time_control() {
        TimeControl::Byoyomi { period_ms, .. } if !overtime => {
            Stage::ByoyomiMain { periods, period_ms }
        }
        TimeControl::Byoyomi { .. } => Stage::Byoyomi {
            periods_left: periods,
        },
        TimeControl::Canadian {
            stones, period_ms, ..
        } if !overtime => Stage::CanadianMain { stones, period_ms },
        TimeControl::Canadian { .. } => Stage::Canadian {
            stones_left: periods,
        },
        TimeControl::Fischer { increment_ms, .. } => Stage::Fischer { increment_ms },
        TimeControl::Absolute { .. } | TimeControl::None => Stage::Absolute,
    };
    play.clock = Some(ClockFace {
        time: TimeShown::from_ms(left),
        stage,
        flagged,
    });
    play.turn = clock.running() == Some(color);
    play.paused = clock.is_paused();
}

/// What the display says of `color`'s seat at `now` (see [`SeatFace`]); `waiting`: the
/// game waits for play to begin.
fn seat_face(
    arrivals: &Arrivals,
    table: &str,
    color: Color,
    waiting: Option<Waiting>,
    now: Timestamp,
) -> Option<SeatFace> {
    match arrivals.seat(color) {
        Seat::Expected => waiting.map(|_| SeatFace::CheckIn {
            table: table.trim().to_string(),
        }),
        Seat::Seated { .. } => waiting.map(|_| SeatFace::CheckedIn),
        Seat::Absent => Some(SeatFace::Away),
        Seat::Arrived {
            at,
            late_ms,
            deducted_ms,
            ran_ms,
        } => (now.millis() < at.saturating_add(LATE_SHOWN_MS)).then(|| SeatFace::Late {
            late: TimeShown::Seconds(late_ms / 1000),
            taken: TimeShown::Seconds(ran_ms.saturating_add(deducted_ms) / 1000),
        }),
    }
}

/// What the game waits for before it begins, if it does.
fn waiting_for(view: &GameView) -> Option<Waiting> {
    match view.waiting()? {
        ClockStart::White => {
            // The side that does not move first: the opponent of the clock set to run.
            let first = view
                .clock()
                .and_then(Clock::running)
                .unwrap_or(Color::Black);
            Some(Waiting::Press(first.opponent()))
        }
        ClockStart::Arbiter | ClockStart::Now => Some(Waiting::Arbiter),
    }
}

/// "Call the arbiter" while any alert is open for the arbiters, with the points they name.
fn alert_face(view: &GameView) -> Option<AlertFace> {
    let mut open = view.open_alerts().peekable();
    open.peek()?;
    let mut points: Vec<Point> = open.flat_map(|a| a.points.iter().copied()).collect();
    points.sort_unstable();
    points.dedup();
    Some(AlertFace { points })
}

/// A player as the display names them: the name (empty when the setup names nobody) and
/// the rank where known.
fn display_name(setup: &tengen_protocol::event::GameSetup, color: Color) -> Name {
    let (name, rank) = match color {
        Color::Black => (&setup.black, &setup.black_rank),
        Color::White => (&setup.white, &setup.white_rank),
    };
    let name = name.trim().to_string();
    let rank = rank
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_string);
    Name { name, rank }
}

#[cfg(test)]
mod tests {
    use tengen_protocol::event::{
        Alert, AlertCode, ClockReading, EndReason, Expected, GameEnd, GameSetup,
    };
    use tengen_protocol::{Event, PerColor};

    use super::*;

    const T0: u64 = 1_767_225_600_000;

    fn at(ms: u64) -> Timestamp {
        Timestamp::from_millis(T0 + ms)
    }

    fn p(gtp: &str) -> Point {
        tengen_protocol::gtp::parse(gtp).unwrap()
    }

    /// A game with `tc`, Black's clock started at 0.
    fn started(tc: &str) -> GameView {
        let mut v = GameView::new();
        let setup = GameSetup {
            time_control: TimeControl::parse(tc).unwrap(),
            black: "Shusaku".into(),
            white: "Gennan".into(),
            white_rank: Some("8d".into()),
            ..GameSetup::default()
        };
        v.apply(&Event::GameStarted(setup), at(0)).unwrap();
        if tc != "none" {
            let main = TimeControl::parse(tc).unwrap().main_ms();
            let periods = match TimeControl::parse(tc).unwrap() {
                TimeControl::Byoyomi { periods, .. } => periods,
                TimeControl::Canadian { stones, .. } => stones,
                _ => 0,
            };
            let start = Event::Clock(ClockReading {
                color: None,
                black: main,
                white: main,
                periods: PerColor::new(periods, periods),
                running: Some(Color::Black),
                paused: Some(false),
            });
            v.apply(&start, at(0)).unwrap();
        }
        v
    }

    fn play(face: &Face) -> &Play {
        match &face.screen {
            Screen::Play(p) => p,
            other => panic!("not a play face: {other:?}"),
        }
    }

    fn shown(v: &GameView, color: Color, ms: u64) -> String {
        let face = Face::of(v, color, at(ms));
        play(&face).clock.unwrap().time.to_string()
    }

    #[test]
    fn time_is_quantised_to_what_is_shown() {
        let cases = [
            (3_600_000, "1:00:00"),
            (3_599_001, "1:00:00"),
            (3_599_000, "59:59"),
            (600_000, "10:00"),
            (60_001, "1:01"),
            (60_000, "1:00"),
            (10_001, "0:11"),
            (10_000, "0:10"),
            (9_999, "9.9"),
            (9_900, "9.9"),
            (9_899, "9.8"),
            (100, "0.1"),
            (99, "0.1"),
            (1, "0.1"),
            (0, "0.0"),
            (36_000_000, "10:00:00"),
        ];
        for (ms, want) in cases {
            assert_eq!(TimeShown::from_ms(ms).to_string(), want, "{ms} ms");
        }
    }

    #[test]
    fn a_fresh_hour_shows_one_hour_and_counts_down_by_whole_seconds() {
        let v = started("absolute 60m");
        assert_eq!(shown(&v, Color::Black, 0), "1:00:00");
        assert_eq!(shown(&v, Color::Black, 999), "1:00:00");
        assert_eq!(shown(&v, Color::Black, 1_000), "59:59");
        assert_eq!(shown(&v, Color::White, 50_000), "1:00:00");
        // 10.000 s left is still "0:10"; 9.999 s is "9.9".
        assert_eq!(shown(&v, Color::Black, 3_590_000), "0:10");
        assert_eq!(shown(&v, Color::Black, 3_590_001), "9.9");
        assert_eq!(shown(&v, Color::Black, 3_599_999), "0.1");
        assert_eq!(shown(&v, Color::Black, 3_600_000), "0.0");
        let face = Face::of(&v, Color::Black, at(3_600_000));
        let clock = play(&face).clock.unwrap();
        assert!(clock.flagged);
        assert!(!play(&face).turn);
        assert!(
            !play(&Face::of(&v, Color::Black, at(3_599_999)))
                .clock
                .unwrap()
                .flagged
        );
    }

    #[test]
    fn the_face_changes_only_when_the_picture_does() {
        let v = started("byoyomi 10m 5x30s");
        // Inside one shown second: equal faces.
        let a = Face::of(&v, Color::Black, at(60_001));
        let b = Face::of(&v, Color::Black, at(60_999));
        assert_eq!(a, b);
        assert_eq!(play(&a).clock.unwrap().time.to_string(), "9:00");
        // Across: different.
        let c = Face::of(&v, Color::Black, at(61_000));
        assert_ne!(b, c);
        assert_eq!(play(&c).clock.unwrap().time.to_string(), "8:59");
        // White's face does not move while Black's clock runs.
        assert_eq!(
            Face::of(&v, Color::White, at(1_000)),
            Face::of(&v, Color::White, at(500_000))
        );
        // Tenths: equal within a tenth, different across.
        let under = 600_000 + 30_000 * 4 + 25_000; // the last period, 5 s left
                                                   // 4.999 s and 4.900 s left read 4.9; 4.899 s reads 4.8.
        assert_eq!(
            Face::of(&v, Color::Black, at(under + 1)),
            Face::of(&v, Color::Black, at(under + 100))
        );
        assert_ne!(
            Face::of(&v, Color::Black, at(under + 100)),
            Face::of(&v, Color::Black, at(under + 101))
        );
    }

    #[test]
    fn byoyomi_stages_are_read_at_now() {
        let v = started("byoyomi 1m 3x30s");
        let stage = |ms| {
            play(&Face::of(&v, Color::Black, at(ms)))
                .clock
                .unwrap()
                .stage
        };
        assert_eq!(
            stage(59_000),
            Stage::ByoyomiMain {
                periods: 3,
                period_ms: 30_000
            }
        );
        // No event since the start: the view's clock has not been ticked, the face is.
        assert_eq!(stage(60_000), Stage::Byoyomi { periods_left: 3 });
        assert_eq!(stage(100_000), Stage::Byoyomi { periods_left: 2 });
        assert_eq!(stage(130_000), Stage::Byoyomi { periods_left: 1 });
        assert_eq!(shown(&v, Color::Black, 132_000), "0:18");
        assert_eq!(shown(&v, Color::Black, 145_300), "4.7");
        let face = Face::of(&v, Color::Black, at(150_000));
        assert!(play(&face).clock.unwrap().flagged);
    }

    #[test]
    fn names_before_the_first_move_then_the_move_number() {
        let mut v = started("absolute 60m");
        let face = Face::of(&v, Color::Black, at(0));
        assert_eq!(play(&face).name.to_string(), "Shusaku");
        assert_eq!(
            play(&face).opponent.as_ref().map(ToString::to_string),
            Some("Gennan 8d".to_string())
        );
        assert!(play(&face).turn);
        assert!(!play(&Face::of(&v, Color::White, at(0))).turn);
        v.apply(
            &Event::Move {
                number: 1,
                color: Color::Black,
                point: p("Q16"),
                captured: vec![],
                clock: None,
            },
            at(5_000),
        )
        .unwrap();
        let face = Face::of(&v, Color::White, at(6_000));
        assert_eq!(play(&face).name.to_string(), "Gennan 8d");
        assert_eq!(play(&face).name.rank.as_deref(), Some("8d"));
        assert_eq!(play(&face).opponent, None);
        assert_eq!(play(&face).moves, 1);
    }

    #[test]
    fn no_game_no_clock_alerts_and_the_end() {
        let mut v = GameView::new();
        assert_eq!(
            Face::of(&v, Color::Black, at(0)).screen,
            Screen::Idle {
                board: String::new()
            }
        );
        v = started("none");
        let face = Face::of(&v, Color::Black, at(0));
        assert_eq!(play(&face).clock, None);
        assert!(play(&face).turn);
        let alert = Alert {
            id: "a1".into(),
            code: AlertCode::UncapturedStones,
            article: "18.2".into(),
            color: Some(Color::Black),
            points: vec![p("E5"), p("D4")],
            expected: Expected::new(vec![(p("D4"), None), (p("E5"), None)]),
            message: "Captured stones left on the board.".into(),
            late_ms: None,
        };
        v.apply(&Event::Alert(alert), at(1_000)).unwrap();
        let face = Face::of(&v, Color::White, at(2_000));
        assert_eq!(
            play(&face).alert,
            Some(AlertFace {
                points: vec![p("D4"), p("E5")]
            })
        );
        v.apply(
            &Event::GameOver(GameEnd::uncounted("W+R", EndReason::Resignation)),
            at(3_000),
        )
        .unwrap();
        assert_eq!(
            Face::of(&v, Color::White, at(4_000)).screen,
            Screen::Over(Over {
                name: Name {
                    name: "Gennan".into(),
                    rank: Some("8d".into())
                },
                result: "W+R".into(),
                moves: 0
            })
        );
    }
}
