//! The board's heartbeat for the hall's fleet watch (issue 20): while its scan loop turns,
//! a board publishes its retained `status` again every 5 s, `{"state":"online",...,"at"}`,
//! so a hall can tell a board silent for 15 s. The real service (scan loop, recorder,
//! links, publisher) against a real mosquitto; the backend can freeze the scan loop, as a
//! hung driver would: the heartbeat stops with it and comes back with it. `status` is not
//! an event: the journal holds no heartbeat.

use crate::broker::{Mosquitto, Subscriber};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tengen_daemon::config::{Config, MqttUrl};
use tengen_daemon::journal::Journal;
use tengen_daemon::service::alive::AliveFile;
use tengen_daemon::service::backend::{Backend, Polled};
use tengen_daemon::service::engine::Engine;
use tengen_daemon::service::links::{start_links, LinkOptions, ServiceEnds};
use tengen_daemon::service::notify::Notifier;
use tengen_daemon::service::outputs::Outputs;
use tengen_daemon::service::recorder::Recorder;
use tengen_daemon::service::scan_loop::RealPacer;
use tengen_daemon::service::{open_game, Opening, Parts, Service};
use tengen_hal::{Frame, FrameData, Millis, PointState};
use tengen_protocol::{Event, Timestamp};
use tengen_referee::Pipeline;

const TOPIC: &str = "tengen/t1/hb-01/status";

/// An empty 9x9 board whose scans stop (the loop hangs in `poll`) while `frozen`.
struct Freezable {
    frozen: Arc<AtomicBool>,
}

impl Backend for Freezable {
    fn poll(&mut self, now: Millis) -> Polled {
        while self.frozen.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(20));
        }
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
        "an empty board that can hang".into()
    }
}

/// The next `status` online with an `at`, within `timeout`: the payload and when it came.
async fn next_beat(sub: &mut Subscriber, timeout: Duration) -> Option<(Value, Instant, bool)> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let m = sub.next_on(TOPIC, left).await?;
        let v = m.json();
        if v["state"] == "online" && v["at"].is_string() {
            return Some((v, Instant::now(), m.retain));
        }
    }
}

fn at(v: &Value) -> Timestamp {
    Timestamp::parse(v["at"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retained_status_comes_again_every_five_seconds_while_the_scan_loop_turns() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default_for("hb-01");
    config.board.tournament = "t1".into();
    config.board.size = 9;
    config.mqtt.url = MqttUrl::Broker {
        tls: false,
        host: "127.0.0.1".into(),
        port: broker.port(),
    };
    config.storage.dir = dir.path().to_path_buf();
    config.http.listen = "127.0.0.1:0".parse().unwrap();

    let (journal, _) = Journal::open(dir.path(), "hb-01").unwrap();
    let mut recorder = Recorder::new(journal, Outputs::new(), dir.path()).unwrap();
    recorder.set_game("g1");
    let settings = config.referee_settings();
    let engine = open_game(
        &mut recorder,
        &Opening::default(),
        Box::new(move |_: &Opening, now| {
            let (pipeline, events) = Pipeline::new(settings.clone(), None, now)?;
            let e: Box<dyn Engine> = Box::new(pipeline);
            Ok((e, events))
        }),
        Timestamp::now().millis(),
    )
    .unwrap();
    let frozen = Arc::new(AtomicBool::new(false));
    let service = Service::spawn(Parts {
        engine,
        backend: Box::new(Freezable {
            frozen: frozen.clone(),
        }),
        recorder,
        pacer: Box::new(RealPacer::new(100)),
        notifier: Notifier::from_env(),
        exit_when_finished: false,
        alive: AliveFile::in_dir(dir.path()),
    })
    .unwrap();
    let mut sub = Subscriber::connect(&broker.url(), "fleet-watch", &[TOPIC]).await;
    let links = start_links(&config, ServiceEnds::of(&service), &LinkOptions::default())
        .await
        .unwrap();

    // Online at the connection, then again and again, each within 6 s of the last.
    let (first, mut last_came, _) = next_beat(&mut sub, Duration::from_secs(15))
        .await
        .expect("status online with at");
    assert_eq!(first["board"], "hb-01");
    assert!(first["version"].is_string());
    let mut last_at = at(&first);
    for _ in 0..2 {
        let (beat, came, _) = next_beat(&mut sub, Duration::from_secs(6))
            .await
            .expect("the status again within 6 s");
        assert!(
            came - last_came <= Duration::from_secs(6),
            "{:?}",
            came - last_came
        );
        assert!(at(&beat) > last_at, "{beat}");
        let age = Timestamp::now().since(at(&beat));
        assert!(age < 1_000, "at is the board's time now: {age} ms old");
        (last_came, last_at) = (came, at(&beat));
    }
    // It is the retained status: a hall that connects now gets it, fresh.
    let mut late = Subscriber::connect(&broker.url(), "late-hall", &[TOPIC]).await;
    let (kept, _, retained) = next_beat(&mut late, Duration::from_secs(6))
        .await
        .expect("the retained status");
    assert!(retained, "{kept}");
    assert!(Timestamp::now().since(at(&kept)) <= 6_000, "{kept}");
    late.stop();

    // The scan loop hangs: at most one more beat (the loop turned since the last tick),
    // then none.
    frozen.store(true, Ordering::SeqCst);
    let settled = tokio::time::Instant::now() + Duration::from_millis(5_500);
    loop {
        let left = settled.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() || next_beat(&mut sub, left).await.is_none() {
            break;
        }
    }
    assert!(
        next_beat(&mut sub, Duration::from_secs(6)).await.is_none(),
        "a hung scan loop stops the heartbeat"
    );
    // The loop turns again: so does the heartbeat.
    frozen.store(false, Ordering::SeqCst);
    let (back, _, _) = next_beat(&mut sub, Duration::from_secs(6))
        .await
        .expect("the heartbeat again once the loop turns");
    assert!(at(&back) > last_at);

    // Nothing of it is an event: the journal holds the start's `status` online only.
    let statuses = service
        .journal()
        .read_from(1)
        .unwrap()
        .into_iter()
        .filter(|e| matches!(e.event, Event::Status { .. }))
        .count();
    assert_eq!(statuses, 1);
    sub.stop();
    links.shutdown(Duration::from_secs(10)).await.unwrap();
    service.request_stop();
    tokio::task::spawn_blocking(move || service.join().unwrap())
        .await
        .unwrap();
}
