//! The service skeleton on its own: a scripted backend and a small counting engine drive
//! the real scan loop, journal, SGF file and outputs on virtual time.

use crate::virtual_time;
use virtual_time::Virtual;

use std::sync::{Arc, Mutex};

use tengen_daemon::journal::Journal;
use tengen_daemon::service::alive::AliveFile;
use tengen_daemon::service::backend::{Backend, Polled};
use tengen_daemon::service::engine::Engine;
use tengen_daemon::service::notify::Notifier;
use tengen_daemon::service::outputs::Outputs;
use tengen_daemon::service::recorder::Recorder;
use tengen_daemon::service::scan_loop::{LoopEnd, Request};
use tengen_daemon::service::{open_game, opening, restoring, Opening, Parts, Service};
use tengen_hal::{ButtonEvent, Frame, FrameData, Millis, PointState};
use tengen_protocol::event::{BoardState, FaultKind, GameSetup};
use tengen_protocol::{Answer, Command, CommandEnvelope, Envelope, Event, Timestamp};
use tengen_referee::{CommandRefused, PipelineError};
use tengen_rules::{Color, Point};
use tokio::sync::oneshot;

const T0: Millis = 1_764_000_000_000;

/// Counts black stones appearing on a tiny board; each new one is a move.
struct Counter {
    moves: u32,
    seen: Vec<bool>,
}

impl Engine for Counter {
    fn step(&mut self, frame: &Frame, _: &[ButtonEvent]) -> Result<Vec<Event>, PipelineError> {
        let FrameData::Classified(states) = &frame.data else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (i, s) in states.iter().enumerate() {
            if *s == PointState::Black && !self.seen[i] {
                self.seen[i] = true;
                self.moves += 1;
                out.push(Event::Move {
                    number: self.moves,
                    color: Color::Black,
                    point: Point::from_index(i, 3),
                    captured: vec![],
                    clock: None,
                });
            }
        }
        Ok(out)
    }

    fn tick(&mut self, _: Millis) -> Vec<Event> {
        Vec::new()
    }

    fn command(&mut self, cmd: &CommandEnvelope, _: Millis) -> Result<Vec<Event>, CommandRefused> {
        match cmd.command {
            Command::Pause {} => Ok(vec![Event::SensorFault {
                points: vec![],
                kind: FaultKind::Noisy,
            }]),
            Command::NewGame { .. } => {
                self.moves = 0;
                self.seen.iter_mut().for_each(|s| *s = false);
                Ok(vec![game_started()])
            }
            _ => Err(CommandRefused::NothingToResume),
        }
    }
}

fn game_started() -> Event {
    Event::GameStarted(GameSetup {
        size: 3,
        ..GameSetup::default()
    })
}

/// Frames from a list, one per poll, then finished.
struct Scripted {
    frames: Vec<Vec<PointState>>,
    next: usize,
}

impl Backend for Scripted {
    fn poll(&mut self, now: Millis) -> Polled {
        let Some(states) = self.frames.get(self.next) else {
            return Polled {
                finished: true,
                ..Polled::default()
            };
        };
        self.next += 1;
        Polled {
            scans: vec![(
                Frame {
                    time: now,
                    data: FrameData::Classified(states.clone()),
                },
                vec![],
            )],
            faults: vec![],
            finished: false,
        }
    }

    fn describe(&self) -> String {
        "scripted".into()
    }
}

fn frames(stones: &[usize]) -> Vec<Vec<PointState>> {
    // One frame per step, each adding the next stone (points 0..9 of a 3x3 board).
    let mut board = vec![PointState::Empty; 9];
    let mut out = vec![board.clone()];
    for &i in stones {
        board[i] = PointState::Black;
        out.push(board.clone());
    }
    out
}

/// Opens the board in `dir` (restoring what the journal holds) and starts the loop.
fn start(
    dir: &std::path::Path,
    stones: &[usize],
    seen_past: Arc<Mutex<Vec<(Timestamp, Event)>>>,
) -> Service {
    let (journal, _) = Journal::open(dir, "b-1").unwrap();
    let mut recorder = Recorder::new(journal, Outputs::new(), dir).unwrap();
    if recorder.journal().game().is_empty() {
        recorder.set_game("g-1");
    }
    let alive = AliveFile::in_dir(dir);
    let opened = opening(&recorder, &alive).unwrap();
    let engine = open_game(
        &mut recorder,
        &opened,
        Box::new(move |opening: &Opening, _now| {
            *seen_past.lock().unwrap() = opening.past.clone();
            let moves = opening
                .past
                .iter()
                .filter(|(_, e)| matches!(e, Event::Move { .. }))
                .count() as u32;
            let engine: Box<dyn Engine> = Box::new(Counter {
                moves,
                seen: vec![false; 9],
            });
            let first = match opening.off_since {
                None => vec![game_started()],
                Some(t) => vec![restoring(Some(t))],
            };
            Ok((engine, first))
        }),
        T0,
    )
    .unwrap();
    Service::spawn(Parts {
        engine,
        backend: Box::new(Scripted {
            frames: frames(stones),
            next: 0,
        }),
        recorder,
        pacer: Box::new(Virtual(Arc::new(Mutex::new(T0)))),
        notifier: Notifier::from_env(),
        exit_when_finished: true,
        alive,
    })
    .unwrap()
}

fn kinds(events: &[Envelope]) -> Vec<String> {
    events
        .iter()
        .map(|e| match &e.event {
            Event::Status { state, .. } => format!("status {state}"),
            Event::Move { number, .. } => format!("move {number}"),
            Event::GameStarted { .. } => "game_started".into(),
            other => format!("{other:?}"),
        })
        .collect()
}

#[test]
fn a_run_journals_publishes_and_writes_the_sgf_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let past = Arc::new(Mutex::new(vec![]));
    let service = start(dir.path(), &[0, 4, 8], past.clone());
    let mut rx = service.outputs().subscribe_events();
    let shown = service.outputs().subscribe_shown();
    let reader = service.journal();
    let (_, end) = service.join().unwrap();
    assert_eq!(end, LoopEnd::Finished);

    let all = reader.read_from(1).unwrap();
    assert_eq!(
        kinds(&all),
        [
            "game_started",
            "status online",
            "move 1",
            "move 2",
            "move 3",
            "status offline"
        ]
    );
    assert_eq!(
        all.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    assert!(all.iter().all(|e| e.board == "b-1" && e.game == "g-1"));
    // Virtual time: the first stone is on the second scan, 10 ms after the start.
    assert_eq!(all[2].time.to_string(), "2025-11-24T16:00:00.010Z");
    // Subscribers saw the events recorded after they subscribed, in the same order.
    let mut published = Vec::new();
    while let Ok(e) = rx.try_recv() {
        published.push(e);
    }
    assert_eq!(published, all[2..].to_vec());
    // What is shown is the fold of the journaled events.
    let now = shown.borrow().clone();
    assert_eq!(now.state["number"], 3);
    assert_eq!(now.state["seq"], 6);
    assert_eq!(now.state["board"], "X...X...X");
    assert!(now.sgf.contains(";B[aa]\n;B[bb]\n;B[cc]"), "{}", now.sgf);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("game-g-1.sgf")).unwrap(),
        now.sgf
    );
    assert!(
        past.lock().unwrap().is_empty(),
        "a new journal restores nothing"
    );
}

#[test]
fn a_restart_restores_the_game_and_seq_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let past = Arc::new(Mutex::new(vec![]));
    start(dir.path(), &[0, 1], past.clone()).join().unwrap();
    let service = start(dir.path(), &[0, 1, 2], past.clone());
    let reader = service.journal();
    service.join().unwrap();

    let restored = past.lock().unwrap().clone();
    let restored_kinds: Vec<_> = restored
        .iter()
        .map(|(_, e)| match e {
            Event::Move { number, .. } => format!("move {number}"),
            Event::Status { state, .. } => format!("status {state}"),
            _ => "game_started".into(),
        })
        .collect();
    assert_eq!(
        restored_kinds,
        [
            "game_started",
            "status online",
            "move 1",
            "move 2",
            "status offline"
        ]
    );
    assert_eq!(
        restored[2].0,
        Timestamp::from_millis(T0 + 10),
        "each event comes back with its time"
    );

    let all = reader.read_from(1).unwrap();
    let second_run: Vec<_> = kinds(&all[5..]);
    // (This test engine keeps no physical board across a restart and counts every stone
    // again; what matters here is the status lines and that seq goes on.)
    assert_eq!(second_run[0], "status restoring");
    assert_eq!(second_run[1], "status online");
    assert_eq!(second_run.last().unwrap(), "status offline");
    assert_eq!(
        all.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=all.len() as u64).collect::<Vec<_>>()
    );
    assert!(
        all.iter().all(|e| e.game == "g-1"),
        "the game id comes back too"
    );
}

#[test]
fn commands_are_answered_and_a_refused_one_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (journal, _) = Journal::open(dir.path(), "b-1").unwrap();
    let mut recorder = Recorder::new(journal, Outputs::new(), dir.path()).unwrap();
    recorder.set_game("g-1");
    let engine = open_game(
        &mut recorder,
        &Opening::default(),
        Box::new(|_: &Opening, _| {
            let e: Box<dyn Engine> = Box::new(Counter {
                moves: 0,
                seen: vec![false; 9],
            });
            Ok((e, vec![game_started()]))
        }),
        T0,
    )
    .unwrap();
    // A backend that never finishes: the loop runs until asked to stop.
    let endless = Scripted {
        frames: vec![vec![PointState::Empty; 9]; 1_000_000],
        next: 0,
    };
    let service = Service::spawn(Parts {
        engine,
        backend: Box::new(endless),
        recorder,
        pacer: Box::new(Virtual(Arc::new(Mutex::new(T0)))),
        notifier: Notifier::from_env(),
        exit_when_finished: false,
        alive: AliveFile::in_dir(dir.path()),
    })
    .unwrap();
    let send = |command: Command| {
        let (reply, rx) = oneshot::channel();
        service
            .commands()
            .blocking_send(Request {
                command: CommandEnvelope {
                    id: "c".into(),
                    by: Some("chief".into()),
                    command,
                },
                reply,
            })
            .unwrap();
        rx.blocking_recv().unwrap()
    };
    let before = service.journal().last_seq();
    assert_eq!(
        send(Command::Resume {}),
        Answer::refused_because(
            CommandRefused::NothingToResume,
            CommandRefused::NothingToResume.reason()
        )
    );
    assert_eq!(
        service.journal().last_seq(),
        before,
        "a refused command writes nothing"
    );
    assert_eq!(send(Command::Pause {}), Answer::Done);
    assert_eq!(service.journal().last_seq(), before + 1);
    assert_eq!(
        send(Command::NewGame {
            game: Some("r2-t1".into()),
            black: None,
            white: None,
            black_rank: None,
            white_rank: None,
            event: None,
            place: None,
            round: None,
            table: None,
            size: None,
            komi: None,
            handicap: None,
            time_control: None,
            penalties: None,
        }),
        Answer::Done
    );
    let reader = service.journal();
    service.request_stop();
    let (recorder, end) = service.join().unwrap();
    assert_eq!(end, LoopEnd::Stopped);
    let all = reader.read_from(1).unwrap();
    let last_two = &all[all.len() - 2..];
    assert!(matches!(last_two[0].event, Event::GameStarted(_)));
    assert_eq!(last_two[0].game, "r2-t1");
    assert_eq!(
        last_two[0].by.as_deref(),
        Some("chief"),
        "the board records who sent the command"
    );
    assert_eq!(last_two[1].by, None, "events of its own carry no sender");
    assert!(matches!(
        &last_two[1].event,
        Event::Status {
            state: BoardState::Offline,
            ..
        }
    ));
    assert_eq!(recorder.sgf_path(), dir.path().join("game-r2-t1.sgf"));
}
