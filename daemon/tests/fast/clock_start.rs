//! Clocks start when the round starts (issue 13, part 7), through the real scan loop,
//! referee and journal on virtual time: after the hall's `new_game` a board waits with
//! both clocks stopped until the arbiter's `resume`; `game.clock_start` and its defaults.

use crate::virtual_time;
use virtual_time::Virtual;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tengen_daemon::config::{ClockStart, Config};
use tengen_daemon::journal::Journal;
use tengen_daemon::service::alive::AliveFile;
use tengen_daemon::service::backend::{Backend, Polled};
use tengen_daemon::service::engine::Engine;
use tengen_daemon::service::notify::Notifier;
use tengen_daemon::service::outputs::Outputs;
use tengen_daemon::service::recorder::Recorder;
use tengen_daemon::service::scan_loop::Request;
use tengen_daemon::service::{open_game, Opening, Parts, Service};
use tengen_hal::{Frame, FrameData, Millis, PointState};
use tengen_protocol::event::AlertCode;
use tengen_protocol::{Answer, Command, CommandEnvelope, Event, GameView, Timestamp};
use tengen_referee::Pipeline;
use tengen_rules::Color;
use tokio::sync::oneshot;

const T0: Millis = 1_764_000_000_000;
const MAIN: u64 = 600_000;

fn config(extra: &str) -> Result<Config, tengen_net::config_reader::ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("board.toml");
    std::fs::write(&path, format!("[board]\nid = \"b-1\"\nsize = 9\n{extra}")).unwrap();
    Config::load(&path)
}

/// An empty 9x9 board, scanned for ever.
struct Empty;

impl Backend for Empty {
    fn poll(&mut self, now: Millis) -> Polled {
        Polled {
            scans: vec![(
                Frame {
                    time: now,
                    data: FrameData::Classified(vec![PointState::Empty; 81]),
                },
                vec![],
            )],
            faults: vec![],
            finished: false,
        }
    }

    fn describe(&self) -> String {
        "empty".into()
    }
}

struct Board {
    service: Service,
    now: Arc<Mutex<Millis>>,
    _dir: tempfile::TempDir,
}

impl Board {
    /// The board of `config` on the real pipeline, its power-on game set up at T0.
    fn start(config: &Config) -> Board {
        let dir = tempfile::tempdir().unwrap();
        let (journal, _) = Journal::open(dir.path(), "b-1").unwrap();
        let mut recorder = Recorder::new(journal, Outputs::new(), dir.path()).unwrap();
        recorder.set_game("g-0");
        let settings = config.referee_settings();
        let engine = open_game(
            &mut recorder,
            &Opening::default(),
            Box::new(move |_: &Opening, now| {
                let (pipeline, events) = Pipeline::new(settings.clone(), None, now)?;
                let e: Box<dyn Engine> = Box::new(pipeline);
                Ok((e, events))
            }),
            T0,
        )
        .unwrap();
        let now = Arc::new(Mutex::new(T0));
        let service = Service::spawn(Parts {
            engine,
            backend: Box::new(Empty),
            recorder,
            pacer: Box::new(Virtual(now.clone())),
            notifier: Notifier::from_env(),
            exit_when_finished: false,
            alive: AliveFile::in_dir(dir.path()),
        })
        .unwrap();
        Board {
            service,
            now,
            _dir: dir,
        }
    }

    fn send(&self, command: Command) -> Answer {
        let (reply, rx) = oneshot::channel();
        self.service
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
    }

    fn new_game(&self) -> Answer {
        let cmd: Command = serde_json::from_value(serde_json::json!({
            "type": "new_game", "game": "r1-t1", "black": "Shusaku", "white": "Gennan"
        }))
        .unwrap();
        self.send(cmd)
    }

    fn now(&self) -> Millis {
        *self.now.lock().unwrap()
    }

    /// Lets virtual time run until at least `until`.
    fn run_until(&self, until: Millis) {
        while self.now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The journal's events folded, and every event of it.
    fn view(&self) -> (GameView, Vec<Event>) {
        let mut view = GameView::new();
        let mut events = Vec::new();
        for e in self.service.journal().read_from(1).unwrap() {
            view.apply_envelope(&e).unwrap();
            events.push(e.event);
        }
        (view, events)
    }

    /// The time of the last `clock` event in the journal.
    fn last_clock_time(&self) -> Millis {
        self.service
            .journal()
            .read_from(1)
            .unwrap()
            .iter()
            .rev()
            .find(|e| matches!(e.event, Event::Clock(_)))
            .unwrap()
            .time
            .millis()
    }

    fn stop(self) {
        self.service.request_stop();
        self.service.join().unwrap();
    }
}

const SIM: &str = "[hardware]\nbackend = \"sim\"\n[time]\nsystem = \"absolute\"\nmain = \"10m\"\n";

#[test]
fn after_new_game_the_board_waits_a_quarter_of_an_hour_until_resume() {
    let board = Board::start(&config(SIM).unwrap());
    board.run_until(T0 + 1_000);
    assert_eq!(board.new_game(), Answer::Done);
    let set_up = board.now();
    board.run_until(set_up + 15 * 60_000);
    let at = board.now();
    let (view, events) = board.view();
    let state = view.snapshot(Timestamp::from_millis(at)).unwrap();
    let clocks = state.clocks.unwrap();
    assert_eq!((clocks.black, clocks.white), (MAIN, MAIN), "{clocks:?}");
    assert!(clocks.paused);
    assert_eq!(clocks.waiting, Some(ClockStart::Arbiter));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::Alert(a) if a.code == AlertCode::TimeExpired)),
        "no flag after 15 minutes of waiting"
    );
    assert_eq!(
        state.to_value()["clocks"]["paused"],
        serde_json::json!(true)
    );

    assert_eq!(board.send(Command::Resume {}), Answer::Done);
    let resumed = board.last_clock_time();
    board.run_until(resumed + 60_000);
    let at = board.now();
    let (view, _) = board.view();
    let clocks = view.clocks_at(Timestamp::from_millis(at)).unwrap();
    assert_eq!(clocks.running, Some(Color::Black));
    assert!(!clocks.paused);
    assert_eq!(
        clocks.black,
        MAIN - (at - resumed),
        "Black runs from the full time"
    );
    assert_eq!(clocks.white, MAIN);
    board.stop();
}

#[test]
fn with_now_the_clock_runs_from_new_game_as_before() {
    let board = Board::start(&config(&format!("{SIM}[game]\nclock_start = \"now\"\n")).unwrap());
    assert_eq!(board.new_game(), Answer::Done);
    let set_up = board.last_clock_time();
    board.run_until(set_up + 60_000);
    let at = board.now();
    let (view, _) = board.view();
    let clocks = view.clocks_at(Timestamp::from_millis(at)).unwrap();
    assert_eq!(clocks.black, MAIN - (at - set_up));
    assert!(!clocks.paused);
    assert_eq!(clocks.waiting, None);
    board.stop();
}

#[test]
fn the_power_on_game_runs_at_once_on_the_sim_backend_and_waits_on_a_real_board() {
    // sim: today's behaviour.
    let sim = config(SIM).unwrap();
    assert_eq!(sim.power_on_clock_start(), ClockStart::Now);
    assert_eq!(sim.clock_start(), ClockStart::Arbiter);
    assert_eq!(sim.referee_settings().game.clock_start, ClockStart::Now);
    assert_eq!(sim.referee_settings().clock_start, ClockStart::Arbiter);
    // A real board (serial, rpi): waits for the arbiter.
    for backend in ["serial", "rpi"] {
        let c = config(&format!("[hardware]\nbackend = \"{backend}\"\n")).unwrap();
        assert_eq!(c.power_on_clock_start(), ClockStart::Arbiter, "{backend}");
        assert_eq!(c.clock_start(), ClockStart::Arbiter, "{backend}");
    }
    // The key always wins.
    for (word, want) in [
        ("now", ClockStart::Now),
        ("white", ClockStart::White),
        ("arbiter", ClockStart::Arbiter),
    ] {
        for backend in ["sim", "serial"] {
            let c = config(&format!(
                "[hardware]\nbackend = \"{backend}\"\n[game]\nclock_start = \"{word}\"\n"
            ))
            .unwrap();
            assert_eq!(c.power_on_clock_start(), want, "{backend} {word}");
            assert_eq!(c.clock_start(), want, "{backend} {word}");
        }
    }
    // On the sim backend with the default, the board's own game's clock runs at once.
    let board = Board::start(&sim);
    board.run_until(T0 + 30_000);
    let at = board.now();
    let (view, _) = board.view();
    let clocks = view.clocks_at(Timestamp::from_millis(at)).unwrap();
    assert_eq!(clocks.black, MAIN - (at - T0));
    board.stop();
}

#[test]
fn a_bad_clock_start_is_named_by_its_key_path() {
    let err = config("[game]\nclock_start = \"later\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(r#"game.clock_start: "later" is not one of arbiter|white|now"#),
        "{err}"
    );
}
