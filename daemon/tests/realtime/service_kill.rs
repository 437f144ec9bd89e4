//! The real `tengen run` SIGKILLed mid-game, several times, against a real mosquitto: the
//! board takes its game up from the journal each time (the simulated board keeps its
//! stones), and a consumer de-duplicating by seq ends with every seq from 1 to the last, no
//! gap, the SGF's moves, exactly the journal's events; the retained `state` and `sgf` are
//! the game's; the last will turns `status` to `offline` on every kill.

use crate::board;
use crate::broker;

use std::time::{Duration, Instant};

use board::{BoardProcess, Consumer, ROOT};
use tengen_daemon::journal::Journal;
use tengen_protocol::event::{AlertCode, BoardState};
use tengen_protocol::Event;

/// The moves (as seen by the consumer) after which the process is SIGKILLed, each a
/// different moment of a move: the extra delay puts the kill at another point of the
/// place / lift / press sequence.
const KILL_AFTER_MOVES: [(usize, u64); 4] = [(4, 0), (13, 60), (26, 130), (40, 35)];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkilled_mid_game_the_board_goes_on_and_nothing_is_lost() {
    let Some(mosquitto) = broker::Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = board::write_config(dir.path(), &mosquitto.url(), 40.0);
    let consumer = Consumer::connect(mosquitto.port(), "kill-consumer").await;
    let mut process = BoardProcess::start(&cfg);
    let expected = board::game_moves();

    let mut will_ms = Vec::new();
    for (after, extra_ms) in KILL_AFTER_MOVES {
        let reached = consumer
            .wait_until(Duration::from_secs(60), |s| s.moves().len() >= after)
            .await;
        process.assert_running();
        assert!(reached, "move {after} never arrived");
        tokio::time::sleep(Duration::from_millis(extra_ms)).await;
        // The moment is taken before the kill: the kernel closes the process's socket
        // (and mosquitto sends the will) before `wait` returns, so a will can arrive
        // before a timestamp taken after the reaping.
        let killed = Instant::now();
        process.kill();
        let offline = consumer
            .wait_until(Duration::from_secs(15), |s| {
                s.statuses
                    .iter()
                    .any(|(t, state)| *t >= killed && state == "offline")
            })
            .await;
        assert!(
            offline,
            "the last will did not set status offline after SIGKILL"
        );
        let arrived = consumer.with(|s| {
            s.statuses
                .iter()
                .find(|(t, state)| *t >= killed && state == "offline")
                .map(|(t, _)| *t)
        });
        if let Some(at) = arrived {
            will_ms.push((at - killed).as_secs_f64() * 1000.0);
        }
        process.restart();
    }
    let over = consumer
        .wait_until(Duration::from_secs(120), |s| s.game_over())
        .await;
    process.assert_running();
    assert!(over, "the game never ended");
    assert_eq!(process.terminate(), 0);

    let (journal, recovery) = Journal::open(&process.data(), board::BOARD).unwrap();
    assert_eq!(recovery.truncated_at, None);
    let all = journal.read_from(1).unwrap();
    let last = journal.last_seq();
    let complete = consumer
        .wait_until(Duration::from_secs(20), |s| s.contiguous() == last)
        .await;
    consumer.with(|s| {
        assert!(
            complete,
            "consumer holds up to {} of {last}; gaps {:?}",
            s.contiguous(),
            s.gaps()
        );
        assert_eq!(s.max_seq(), last, "nothing beyond the journal");
        assert_eq!(s.moves(), expected, "the moves are the SGF's");
        for env in &all {
            assert_eq!(
                s.events[&env.seq],
                serde_json::to_value(env).unwrap(),
                "seq {} differs from the journal",
                env.seq
            );
        }
        eprintln!(
            "service_kill: {} events, {} raw messages, {} duplicates, last will after {:?} ms",
            last, s.raw, s.duplicates, will_ms
        );
    });

    // One game across five processes: one game_started, one game id, four restorations.
    let count = |f: &dyn Fn(&Event) -> bool| all.iter().filter(|e| f(&e.event)).count();
    assert_eq!(count(&|e| matches!(e, Event::GameStarted(_))), 1);
    assert_eq!(
        count(&|e| matches!(
            e,
            Event::Status {
                state: BoardState::Restoring,
                ..
            }
        )),
        KILL_AFTER_MOVES.len()
    );
    assert!(all.iter().all(|e| e.game == "g1"));
    // Each restart in the middle of the game tells the arbiter (its clocks are paused
    // until resumed); taking the game up raises nothing else.
    assert_eq!(
        count(&|e| matches!(e, Event::Alert(a) if a.code == AlertCode::BoardRestarted)),
        KILL_AFTER_MOVES.len()
    );
    assert_eq!(
        count(&|e| matches!(e, Event::Alert(a) if a.code != AlertCode::BoardRestarted)),
        0,
        "taking the game up raised alerts"
    );

    // A late subscriber sees the retained state and record of the whole game.
    let late = broker::Subscriber::connect(
        &mosquitto.url(),
        "kill-late",
        &[
            &format!("{ROOT}/state"),
            &format!("{ROOT}/sgf"),
            &format!("{ROOT}/status"),
        ],
    )
    .await;
    let mut late = late;
    let mut state = None;
    let mut sgf = None;
    let mut status = None;
    let deadline = Instant::now() + Duration::from_secs(10);
    while (state.is_none() || sgf.is_none() || status.is_none()) && Instant::now() < deadline {
        if let Some(broker::SubEvent::Msg(m)) = late.next_event(Duration::from_secs(1)).await {
            let topic = m.topic.rsplit('/').next().unwrap_or("").to_string();
            match topic.as_str() {
                "state" => state = Some(m.json()),
                "sgf" => sgf = Some(String::from_utf8(m.payload.clone()).unwrap()),
                "status" => status = Some(m.json()),
                _ => {}
            }
        }
    }
    let state = state.expect("retained state");
    assert_eq!(state["seq"].as_u64(), Some(last), "{state}");
    assert_eq!(status.expect("retained status")["state"], "offline");
    let record = tengen_rules::sgf::parse(&sgf.expect("retained sgf")).unwrap();
    let moves: Vec<(String, String)> = tengen_sim::GameInput::from_record(&record)
        .moves
        .iter()
        .map(|(c, m)| (c.to_string(), m.to_gtp()))
        .collect();
    assert_eq!(moves, expected, "the retained SGF is the game");
    late.stop();
    consumer.stop();
}
