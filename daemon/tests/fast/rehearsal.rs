//! Simulated boards for rehearsals (issue 20), through the real `tengen run` and a real
//! mosquitto, and `tengen sim` on virtual time:
//!
//! - a board with `[hardware.sim] rehearse = true` plays nothing from power-on, sets its
//!   game up from a signed `new_game`, still plays nothing until the arbiter's `resume`
//!   (*Begin play*), then plays the first file of its `sgf` list; after that game is over it
//!   waits again (also across a restart) and plays the second file for the next
//!   `new_game` (a handicap game, its stones set first); the players are the commands', and
//!   with `violations = 1` each game breaks a rule once, alerted and put right
//!   (`restored`);
//! - a rehearsal board restarted mid-game takes its game up where the journal ends once
//!   the arbiter resumes the clocks;
//! - a script that has ended leaves the board scanning: the clock runs on and the flag
//!   falls (`time_expired`);
//! - a board playing an SGF at power-on shows its config's players, not the record's;
//! - `tengen sim` with `game.clock_start = "arbiter"` begins play at once and says so;
//!   with `violations = 1` every game breaks one rule and is put right.

use crate::board;
use crate::broker;

use std::path::{Path, PathBuf};
use std::time::Duration;

use board::{BoardProcess, Consumer, Seen, BOARD};
use broker::Mosquitto;
use serde_json::{json, Value};
use tengen_protocol::signing::{sign_for, Stamp};
use tengen_protocol::Timestamp;

const KEY: &str = "the-rehearsal-hall-and-its-boards";
const TOURNAMENT: &str = "faults";
/// The alert codes of the violations a rehearsal board commits.
const VIOLATIONS: [&str; 3] = ["uncaptured_stones", "stone_moved", "double_move"];

fn nine(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rules/tests/fixtures/gnugo/games/9")
        .join(name)
}

fn handicap_game() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/handicap9.sgf")
}

/// The main line of an SGF file as `(colour, point)` text pairs.
fn moves_of(path: &Path) -> Vec<(String, String)> {
    let record = tengen_rules::sgf::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    tengen_sim::GameInput::from_record(&record)
        .moves
        .iter()
        .map(|(c, m)| (c.to_string(), m.to_gtp()))
        .collect()
}

/// Writes `board.toml` for the consumer's board (`kill-01` of `faults`), signed commands
/// only, with `sim` as its `[hardware.sim]` table's body and `extra` appended.
fn config(dir: &Path, broker: &Mosquitto, sim: &str, extra: &str) -> PathBuf {
    std::fs::write(dir.join("command.key"), format!("{KEY}\n")).unwrap();
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"{BOARD}\"\ntournament = \"{TOURNAMENT}\"\ngame = \"g1\"\nsize = 9\n\
             [hardware]\nbackend = \"sim\"\n[hardware.sim]\n{sim}\n\
             [mqtt]\nurl = \"{}\"\nkeepalive = \"5s\"\ncommand_key_file = \"command.key\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[storage]\ndir = \"data\"\n\
             [display]\ndriver = \"none\"\n[voice]\nstyle = \"off\"\n{extra}",
            broker.url()
        ),
    )
    .unwrap();
    path
}

/// The time control of the rehearsal boards' configs.
const TIME: &str = "[time]\nsystem = \"byoyomi\"\nmain = \"20m\"\nperiods = 3\nperiod = \"30s\"\n";

/// Starts the board of `path` and waits for its power-on game (then it takes commands).
async fn power_on(consumer: &Consumer, path: &Path) -> BoardProcess {
    let mut board = BoardProcess::start(path);
    let up = consumer
        .wait_until(Duration::from_secs(15), |s| {
            s.events.values().any(|e| e["type"] == "game_started")
        })
        .await;
    board.assert_running();
    assert!(up, "the board's power-on game");
    board
}

/// Switches `board` off and on, and waits until it says it is online again.
async fn switch_off_and_on(consumer: &Consumer, board: &mut BoardProcess) {
    let onlines = consumer.with(|s| s.statuses.iter().filter(|(_, st)| st == "online").count());
    assert_eq!(board.terminate(), 0);
    board.restart();
    let back = consumer
        .wait_until(Duration::from_secs(15), |s| {
            s.statuses.iter().filter(|(_, st)| st == "online").count() > onlines
        })
        .await;
    assert!(back, "the board is back");
}

/// Publishes `body` on the board's `cmd`, stamped and signed as the hall does.
async fn command(consumer: &Consumer, body: Value) {
    let Value::Object(mut c) = body else {
        unreachable!("test commands are objects")
    };
    let at = Timestamp::now().millis();
    sign_for(KEY.as_bytes(), &Stamp::new(TOURNAMENT, BOARD, at), &mut c);
    consumer.command(&Value::Object(c)).await;
}

/// The events of game `game`, in seq order.
fn of_game<'a>(seen: &'a Seen, game: &str) -> Vec<&'a Value> {
    seen.events.values().filter(|e| e["game"] == game).collect()
}

/// The moves and passes of game `game`, as `(colour, point)`.
fn moves(seen: &Seen, game: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for e in of_game(seen, game) {
        match e["type"].as_str() {
            Some("move") => out.push((
                e["color"].as_str().unwrap_or("").into(),
                e["point"].as_str().unwrap_or("").into(),
            )),
            Some("pass") => out.push((e["color"].as_str().unwrap_or("").into(), "pass".into())),
            Some("move_retracted") => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

fn count(seen: &Seen, game: &str, kind: &str) -> usize {
    of_game(seen, game)
        .iter()
        .filter(|e| e["type"] == kind)
        .count()
}

fn over(seen: &Seen, game: &str) -> bool {
    count(seen, game, "game_over") > 0
}

/// Sends the arbiter's `resume` (*Begin play*, *Resume clocks*) as command `id`, and
/// waits until game `game` is over, the board running all along.
async fn resume_until_over(consumer: &Consumer, board: &mut BoardProcess, id: &str, game: &str) {
    command(consumer, json!({"id": id, "type": "resume", "by": "chief"})).await;
    let done = consumer
        .wait_until(Duration::from_secs(60), |s| over(s, game))
        .await;
    board.assert_running();
    assert!(
        done,
        "{game} over; moves so far: {}",
        consumer.with(|s| moves(s, game).len())
    );
}

/// Each alert of game `game` is one of the violations and is cleared as `restored`, and
/// there is exactly one.
fn one_violation_put_right(seen: &Seen, game: &str) {
    let events = of_game(seen, game);
    let alerts: Vec<&&Value> = events.iter().filter(|e| e["type"] == "alert").collect();
    let codes: Vec<&str> = alerts.iter().filter_map(|a| a["code"].as_str()).collect();
    assert_eq!(codes.len(), 1, "{game}: one violation, not {codes:?}");
    assert!(VIOLATIONS.contains(&codes[0]), "{game}: {codes:?}");
    let id = &alerts[0]["id"];
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "alert_cleared" && e["id"] == *id && e["how"] == "restored"),
        "{game}: the {} alert was not put right",
        codes[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rehearsal_board_waits_for_new_game_and_begin_play_then_plays_each_game_of_its_list() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (nine("game_0000.sgf"), handicap_game());
    let path = config(
        dir.path(),
        &mosq,
        &format!(
            "sgf = [\"{}\", \"{}\"]\nrehearse = true\nseed = 3\nspeed = 60.0\nviolations = 1.0",
            first.display(),
            second.display()
        ),
        TIME,
    );
    let consumer = Consumer::connect(mosq.port(), "rehearsal-test").await;
    let mut board = power_on(&consumer, &path).await;
    // A minute of game time at x60: nobody plays.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        consumer.with(|s| s.moves().len()),
        0,
        "moves before any new_game"
    );
    let power_on = consumer.with(|s| {
        s.events
            .values()
            .find(|e| e["type"] == "game_started")
            .cloned()
            .unwrap()
    });
    assert_eq!(power_on["clock_start"], "arbiter", "{power_on}");

    for (n, (game, black, white, handicap, sgf)) in [
        ("r1-t1", "Alice Anders", "Bob Brown", 0, &first),
        ("r2-t1", "Carol Chen", "Dai Deng", 3, &second),
    ]
    .into_iter()
    .enumerate()
    {
        command(
            &consumer,
            json!({"id": format!("set-up-{n}"), "type": "new_game", "by": "chief",
                   "game": game, "black": black, "white": white, "size": 9,
                   "komi": if handicap > 0 { 0.5 } else { 7.5 }, "handicap": handicap,
                   "time_control": "byoyomi 20m 3x30s"}),
        )
        .await;
        let set_up = consumer
            .wait_until(Duration::from_secs(10), |s| {
                count(s, game, "game_started") == 1
            })
            .await;
        assert!(set_up, "{game} set up");
        // The clocks wait for the arbiter: still nobody plays (a minute of game time).
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(
            consumer.with(|s| moves(s, game)),
            vec![],
            "{game} before play"
        );
        resume_until_over(&consumer, &mut board, &format!("begin-{n}"), game).await;
        consumer.with(|s| {
            assert_eq!(moves(s, game), moves_of(sgf), "{game} is {}", sgf.display());
            let started = of_game(s, game)
                .into_iter()
                .find(|e| e["type"] == "game_started")
                .unwrap();
            assert_eq!(
                (&started["black"], &started["white"], &started["handicap"]),
                (&json!(black), &json!(white), &json!(handicap)),
                "the command's players, never the SGF's"
            );
            one_violation_put_right(s, game);
        });
        if n == 0 {
            // Between two games the board is switched off and on: it comes back idle.
            switch_off_and_on(&consumer, &mut board).await;
        }
    }
    assert_eq!(board.terminate(), 0);
}

/// A rehearsal board switched off in the middle of its game comes back with the game's
/// position, its clocks stopped; on the arbiter's *Resume clocks* its players take the game
/// up where the journal ends and play it to its end: every move of the file once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rehearsal_board_restarted_mid_game_takes_its_game_up_when_the_clocks_resume() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sgf = nine("game_0000.sgf");
    let path = config(
        dir.path(),
        &mosq,
        &format!(
            "sgf = [\"{}\"]\nrehearse = true\nseed = 5\nspeed = 30.0",
            sgf.display()
        ),
        TIME,
    );
    let consumer = Consumer::connect(mosq.port(), "take-up-test").await;
    let mut board = power_on(&consumer, &path).await;
    let game = "r1-t2";
    command(
        &consumer,
        json!({"id": "set-up", "type": "new_game", "by": "chief", "game": game,
               "black": "Eve Eng", "white": "Fay Fung", "size": 9, "komi": 7.5,
               "handicap": 0, "time_control": "byoyomi 20m 3x30s"}),
    )
    .await;
    let set_up = consumer
        .wait_until(Duration::from_secs(15), |s| {
            count(s, game, "game_started") == 1
        })
        .await;
    assert!(set_up, "the game set up");
    command(
        &consumer,
        json!({"id": "begin", "type": "resume", "by": "chief"}),
    )
    .await;
    let under_way = consumer
        .wait_until(Duration::from_secs(30), |s| moves(s, game).len() >= 8)
        .await;
    assert!(under_way, "the game under way");
    // Off for a second of wall time: at x30 that is 30 s of the board's clock, which is
    // what its restart says (issue 31: it said about nothing, its clock starting again
    // from the journal's last event).
    let onlines = consumer.with(|s| s.statuses.iter().filter(|(_, st)| st == "online").count());
    assert_eq!(board.terminate(), 0);
    tokio::time::sleep(Duration::from_secs(1)).await;
    board.restart();
    let back = consumer
        .wait_until(Duration::from_secs(15), |s| {
            s.statuses.iter().filter(|(_, st)| st == "online").count() > onlines
                && s.events.values().any(|e| e["code"] == "board_restarted")
        })
        .await;
    assert!(back, "the board is back");
    let off_ms = consumer.with(|s| {
        let restoring = s
            .events
            .values()
            .find(|e| e["type"] == "status" && e["state"] == "restoring")
            .expect("status restoring");
        let at = |v: &Value| Timestamp::parse(v.as_str().unwrap()).unwrap().millis();
        at(&restoring["time"]) - at(&restoring["off_since"])
    });
    assert!(
        (25_000..120_000).contains(&off_ms),
        "off for about a second at x30: {off_ms} ms of the board's clock"
    );
    let before = consumer.with(|s| moves(s, game).len());
    // The clocks stay stopped until the arbiter resumes them: nobody plays.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        consumer.with(|s| moves(s, game).len()),
        before,
        "before the resume"
    );
    resume_until_over(&consumer, &mut board, "resume", game).await;
    consumer.with(|s| {
        assert_eq!(moves(s, game), moves_of(&sgf), "every move once, in order");
        assert_eq!(
            count(s, game, "game_started"),
            1,
            "the same game, not a new one"
        );
        let alerts: Vec<&Value> = of_game(s, game)
            .into_iter()
            .filter(|e| e["type"] == "alert" && e["code"] != "board_restarted")
            .collect();
        assert!(alerts.is_empty(), "no alert but the restart: {alerts:?}");
    });
    assert_eq!(board.terminate(), 0);
}

/// `alert_hold` (`tengen rehearse --alert-hold`): after its violation the players wait for
/// the arbiter: no move and the board not put right until an arbiter acts; then they put it
/// right and play on to the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_alert_hold_the_players_wait_for_the_arbiter_before_putting_a_violation_right() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sgf = nine("game_0000.sgf");
    let path = config(
        dir.path(),
        &mosq,
        &format!(
            "sgf = [\"{}\"]\nrehearse = true\nseed = 3\nspeed = 60.0\nviolations = 1.0\nalert_hold = true",
            sgf.display()
        ),
        TIME,
    );
    let consumer = Consumer::connect(mosq.port(), "hold-test").await;
    let mut board = power_on(&consumer, &path).await;
    let game = "r1-t3";
    command(
        &consumer,
        json!({"id": "set-up", "type": "new_game", "by": "chief", "game": game,
               "size": 9, "komi": 7.5, "handicap": 0, "time_control": "byoyomi 20m 3x30s"}),
    )
    .await;
    assert!(
        consumer
            .wait_until(Duration::from_secs(15), |s| count(s, game, "game_started")
                == 1)
            .await
    );
    command(
        &consumer,
        json!({"id": "begin", "type": "resume", "by": "chief"}),
    )
    .await;
    let alert_of = |s: &Seen| {
        of_game(s, game)
            .into_iter()
            .find(|e| {
                e["type"] == "alert" && VIOLATIONS.contains(&e["code"].as_str().unwrap_or(""))
            })
            .cloned()
    };
    let alerted = consumer
        .wait_until(Duration::from_secs(60), |s| alert_of(s).is_some())
        .await;
    assert!(alerted, "the violation's alert");
    let (alert, moves_then) = consumer.with(|s| (alert_of(s).unwrap(), moves(s, game).len()));
    // Two seconds of wall time, two minutes at x60: nobody moves, nothing is put right.
    tokio::time::sleep(Duration::from_secs(2)).await;
    consumer.with(|s| {
        assert_eq!(moves(s, game).len(), moves_then, "the players wait");
        assert!(
            !of_game(s, game)
                .iter()
                .any(|e| e["type"] == "alert_cleared" && e["id"] == alert["id"]),
            "not put right before the arbiter came"
        );
    });
    // The arbiter confirms it: they put it right and play on to the end.
    command(
        &consumer,
        json!({"id": "decide", "type": "confirm", "alert": alert["id"], "by": "chief"}),
    )
    .await;
    let done = consumer
        .wait_until(Duration::from_secs(60), |s| over(s, game))
        .await;
    board.assert_running();
    assert!(done, "the game goes on to its end");
    consumer.with(|s| assert_eq!(moves(s, game), moves_of(&sgf), "every move once"));
    assert_eq!(board.terminate(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_that_has_ended_leaves_the_board_scanning_and_the_flag_falls() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("short.txt"),
        "size 9\ntime absolute 20s\nplace B E5\npress B\n",
    )
    .unwrap();
    let path = config(
        dir.path(),
        &mosq,
        "script = \"short.txt\"\nspeed = 10.0",
        "",
    );
    let consumer = Consumer::connect(mosq.port(), "flag-test").await;
    let mut board = BoardProcess::start(&path);
    // White's 20 s run out two seconds after the press at x10, long after the script.
    let fell = consumer
        .wait_until(Duration::from_secs(15), |s| {
            s.events
                .values()
                .any(|e| e["type"] == "alert" && e["code"] == "time_expired")
        })
        .await;
    board.assert_running();
    assert!(fell, "White's flag falls after the script ended");
    let flag = consumer.with(|s| {
        s.events
            .values()
            .find(|e| e["code"] == "time_expired")
            .cloned()
            .unwrap()
    });
    assert_eq!(flag["color"], "W", "{flag}");
    assert_eq!(board.terminate(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_playing_an_sgf_shows_its_config_players_not_the_records() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("named.sgf");
    let text = std::fs::read_to_string(nine("game_0001.sgf")).unwrap();
    std::fs::write(
        &game,
        text.replacen("SZ[9]", "SZ[9]PB[Record Black]PW[Record White]", 1),
    )
    .unwrap();
    let path = config(
        dir.path(),
        &mosq,
        &format!("sgf = \"{}\"\nspeed = 5.0", game.display()),
        "[game]\nblack = \"Board Black\"\nwhite = \"Board White\"\n",
    );
    let consumer = Consumer::connect(mosq.port(), "names-test").await;
    let mut board = BoardProcess::start(&path);
    let started = consumer
        .wait_until(Duration::from_secs(15), |s| {
            s.events.values().any(|e| e["type"] == "game_started")
        })
        .await;
    board.assert_running();
    assert!(started);
    let e = consumer.with(|s| {
        s.events
            .values()
            .find(|e| e["type"] == "game_started")
            .cloned()
            .unwrap()
    });
    assert_eq!(
        (&e["black"], &e["white"]),
        (&json!("Board Black"), &json!("Board White"))
    );
    board.kill();
}

/// `tengen sim --config CONFIG --sgf GAME --seed SEED --events OUT`: exit code, stderr and
/// the events.
fn sim(config: &Path, game: &Path, seed: u64) -> (Option<i32>, String, Vec<Value>) {
    let dir = config.parent().unwrap();
    let events = dir.join(format!("events-{seed}.jsonl"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("sim")
        .arg("--config")
        .arg(config)
        .arg("--sgf")
        .arg(game)
        .args(["--seed", &seed.to_string(), "--events"])
        .arg(&events)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&events).unwrap_or_default();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

#[test]
fn tengen_sim_with_clock_start_arbiter_begins_play_at_once_and_ends_its_game() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("board.toml");
    std::fs::write(
        &config,
        "[board]\nid = \"sim\"\nsize = 9\n[game]\nclock_start = \"arbiter\"\n",
    )
    .unwrap();
    let (code, err, events) = sim(&config, &nine("game_0000.sgf"), 1);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no arbiter") && err.contains("begins at once"),
        "{err}"
    );
    assert_eq!(events[0]["clock_start"], "arbiter", "{}", events[0]);
    // Set up waiting, then begun at the same instant, as by the arbiter's resume.
    let clocks: Vec<(&Value, &Value, &Value)> = events[1..3]
        .iter()
        .map(|e| (&e["type"], &e["paused"], &e["time"]))
        .collect();
    assert_eq!(
        clocks,
        vec![
            (&json!("clock"), &json!(true), &events[0]["time"]),
            (&json!("clock"), &json!(false), &events[0]["time"])
        ]
    );
    assert_eq!(events[2]["running"], "B");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "game_over", "{last}");
    assert_eq!(last["reason"], "count");
}

#[test]
fn with_violations_1_every_simulated_game_breaks_one_rule_and_puts_it_right() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("board.toml");
    std::fs::write(
        &config,
        "[board]\nid = \"sim\"\nsize = 9\n[hardware.sim]\nviolations = 1.0\n",
    )
    .unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    let games = ["game_0000.sgf", "game_0001.sgf", "game_0002.sgf"];
    for (seed, game) in (1..=12u64).map(|s| (s, games[s as usize % games.len()])) {
        let (code, err, events) = sim(&config, &nine(game), seed);
        assert_eq!(code, Some(0), "{err}");
        let alerts: Vec<&Value> = events.iter().filter(|e| e["type"] == "alert").collect();
        assert_eq!(alerts.len(), 1, "{game} seed {seed}: {alerts:?}");
        let code = alerts[0]["code"].as_str().unwrap();
        assert!(VIOLATIONS.contains(&code), "{code}");
        kinds.insert(code.to_string());
        assert!(events.iter().any(|e| e["type"] == "alert_cleared"
            && e["id"] == alerts[0]["id"]
            && e["how"] == "restored"));
        assert_eq!(events.last().unwrap()["type"], "game_over");
    }
    assert_eq!(kinds.len(), 3, "each kind: {kinds:?}");
}

/// `tengen ARGS`: exit code and stderr.
fn tengen(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_rehearsal_keys_are_checked_and_each_problem_names_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let check = |sim: &str| {
        let path = dir.path().join("board.toml");
        std::fs::write(
            &path,
            format!("[board]\nid = \"b-1\"\n[hardware.sim]\n{sim}\n"),
        )
        .unwrap();
        tengen(&["check-config".as_ref(), path.as_os_str()])
    };
    for (sim, key) in [
        ("violations = 1.5", "hardware.sim.violations"),
        ("violations = -0.1", "hardware.sim.violations"),
        ("rehearse = \"yes\"", "hardware.sim.rehearse"),
        ("sgf = []", "hardware.sim.sgf"),
        (
            "sgf = [\"a.sgf\", 3]\nrehearse = true",
            "hardware.sim.sgf[1]",
        ),
        ("sgf = [\"a.sgf\", \"b.sgf\"]", "hardware.sim.sgf"),
        ("black_late_s = -3", "hardware.sim.black_late_s"),
        ("white_late_s = \"soon\"", "hardware.sim.white_late_s"),
        ("white_late_s = true", "hardware.sim.white_late_s"),
    ] {
        let (code, err) = check(sim);
        assert_eq!(code, Some(2), "{sim}: {err}");
        assert_eq!(err.lines().count(), 1, "{sim}: {err}");
        assert!(err.contains(key), "{sim}: {err}");
    }
    // A list is for a rehearsal board; files not there are warnings, not errors.
    let (code, err) = check("sgf = [\"a.sgf\", \"b.sgf\"]\nrehearse = true\nviolations = 0.5");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("hardware.sim.sgf") && err.contains("b.sgf"),
        "{err}"
    );
}

#[test]
fn tengen_rehearse_refuses_bad_input_with_one_line() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tournament/tests/data/opengotha/juvisy.xml");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("left-over"), "a file").unwrap();
    for (args, culprit) in [
        (vec!["--round", "9"], "round 9 has no games"),
        (
            vec!["--round", "1", "--boards", "10"],
            "--boards: 10: round 1 has 9 tables",
        ),
        (vec!["--round", "1", "--boards", "0"], "--boards"),
        (vec!["--round", "1", "--speed", "0"], "--speed"),
        (vec!["--round", "1", "--violations", "2"], "--violations"),
        (vec!["--round", "1", "--mqtt", "nowhere"], "--mqtt"),
        (vec!["--round", "1", "--late", "1.5"], "--late"),
        (vec!["--round", "1", "--absent=-0.1"], "--absent"),
        (
            vec!["--round", "1", "--late", "0.6", "--absent", "0.5"],
            "more than all the players",
        ),
        (vec!["--round", "1", "--late-limit", "0"], "--late-limit"),
        (
            vec!["--round", "1", "--late-limit", "90000"],
            "--late-limit",
        ),
    ] {
        let mut all: Vec<&std::ffi::OsStr> = vec!["rehearse".as_ref(), file.as_os_str()];
        all.extend(args.iter().map(|a| std::ffi::OsStr::new(*a)));
        let (code, err) = tengen(&all);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(culprit), "{args:?}: {err}");
    }
    let (code, err) = tengen(&[
        "rehearse".as_ref(),
        file.as_os_str(),
        "--round".as_ref(),
        "1".as_ref(),
        "--dir".as_ref(),
        dir.path().as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not empty"), "{err}");
    let missing = dir.path().join("nothing.xml");
    let (code, err) = tengen(&[
        "rehearse".as_ref(),
        missing.as_os_str(),
        "--round".as_ref(),
        "1".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("nothing.xml"), "{err}");
}
