//! A whole rehearsal (issue 20): `tengen rehearse` as a child process on the Juvisy
//! tournament file, `--round 1 --boards 4 --start --speed 20 --violations 0.5`, run to the
//! end of the round, and checked from outside through the hall it runs, as a director would:
//!
//! - it prints the console's address, a one-time login and where the results go;
//! - the console's Round view (logged in with that login, with `Origin`) shows the four
//!   tables' games over, each with a result pending;
//! - each board's event stream through the hall (`/console/board/rehearsal/table-N/events`)
//!   holds the table's game, set up with the pairing's players (Pinchard - Moscardo at
//!   table 4, taking Black: no stones, komi 0), and an alert for exactly the games that
//!   break a rule (known beforehand: the rehearsal's seed and each board's made-up game
//!   decide it), each cleared `restored`;
//! - *Confirm all pending results* writes the four results into the rehearsal's copy of the
//!   tournament file (read back with the tournament crate), every other game's result as
//!   before, and the real file is not touched;
//! - SIGINT ends it cleanly (exit 0).
//!
//! It prints how long the round took. Starting a rehearsal and reading its banner are
//! shared with `round_feed.rs` (the same round, rehearsing the broadcast).

use crate::http;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use http::{console_cookie, get, request, TEST_ORIGIN};
use serde_json::{json, Value};
use tengen_sim::{GameInput, Violation};
use tengen_tournament::{GameResult, Tournament};

const ROUND: u32 = 1;
const BOARDS: u32 = 4;
const VIOLATIONS: [&str; 3] = ["uncaptured_stones", "stone_moved", "double_move"];
/// The whole round must be over by then (it takes about a minute).
const ROUND_WITHIN: Duration = Duration::from_secs(180);

/// The rehearsal process; SIGKILLed if the test fails before it ends it.
pub(crate) struct Rehearsal(pub(crate) Option<Child>);

impl Drop for Rehearsal {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The value after `label` on a line of the banner (`  console   http://...`).
pub(crate) fn field<'a>(lines: &'a [String], label: &str) -> &'a str {
    lines
        .iter()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no '{label}' line in {lines:#?}"))
}

/// The `data:` events of a Server-Sent Events text.
fn sse_events(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

fn results_of(path: &Path) -> Vec<(u32, GameResult)> {
    let t = Tournament::read(path).unwrap();
    let mut r: Vec<(u32, GameResult)> =
        t.round(ROUND).iter().map(|p| (p.table, p.result)).collect();
    r.sort_by_key(|(t, _)| *t);
    r
}

/// A copy of the Juvisy tournament file in `dir`.
pub(crate) fn juvisy_in(dir: &Path) -> PathBuf {
    let file = dir.join("juvisy.xml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tournament/tests/data/opengotha/juvisy.xml"),
        &file,
    )
    .unwrap();
    file
}

/// Starts `tengen rehearse FILE --round 1 --boards 4 --start --speed 20 --http
/// 127.0.0.1:0 --mqtt MQTT --dir FOLDER` with `more` arguments; its output lines come on
/// the channel (and are echoed to stderr).
pub(crate) fn launch(
    file: &Path,
    folder: &Path,
    mqtt: &str,
    more: &[&str],
) -> (Rehearsal, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("rehearse")
        .arg(file)
        .args(["--round", "1", "--boards", "4", "--start", "--speed", "20"])
        .args(["--http", "127.0.0.1:0", "--mqtt", mqtt, "--dir"])
        .arg(folder)
        .args(more)
        .env("RUST_LOG", "warn,rumqttd=off")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn tengen rehearse");
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            eprintln!("rehearse| {line}");
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (Rehearsal(Some(child)), lines)
}

/// The banner, up to the line saying the round is started (at most 90 s).
pub(crate) fn banner(lines: &mpsc::Receiver<String>) -> Vec<String> {
    let mut banner = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(90);
    while !banner
        .iter()
        .any(|l: &String| l.starts_with("Round 1 started"))
    {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(l) => banner.push(l),
            Err(_) => panic!("no 'Round 1 started' line: {banner:#?}"),
        }
    }
    banner
}

/// The hall's address in the banner's `console` line.
pub(crate) fn hall_addr(banner: &[String]) -> SocketAddr {
    field(banner, "console")
        .strip_prefix("http://")
        .and_then(|a| a.strip_suffix("/console"))
        .unwrap()
        .parse()
        .unwrap()
}

/// The name and one-time password of the banner's `login` line.
pub(crate) fn login(banner: &[String]) -> (String, String) {
    let login = field(banner, "login");
    let (name, rest) = login.split_once(" / ").unwrap();
    let password = rest.split_whitespace().next().unwrap();
    (name.to_string(), password.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_is_rehearsed_from_start_to_confirmed_results_with_one_command() {
    let work = tempfile::tempdir().unwrap();
    let file = juvisy_in(work.path());
    let original = std::fs::read(&file).unwrap();
    let folder = work.path().join("rehearsal");
    let mqtt = format!("127.0.0.1:{}", free_port());
    let started = Instant::now();
    let (mut process, lines) = launch(
        &file,
        &folder,
        &mqtt,
        &["--violations", "0.5", "--seed", "2"],
    );
    let banner = banner(&lines);
    let set_up_after = started.elapsed();
    let addr = hall_addr(&banner);
    let (name, password) = login(&banner);
    let results_line = field(&banner, "results");
    let results = PathBuf::from(results_line.split(" (").next().unwrap());
    assert!(results.starts_with(&folder), "{results:?}");

    let cookie = console_cookie(addr, &name, &password).await;
    let auth = [("Cookie", cookie.as_str()), TEST_ORIGIN];

    // The round, played out on the four boards.
    let over_by = Instant::now() + ROUND_WITHIN;
    let round = loop {
        let r = get(addr, "/api/console/round/1", &auth).await;
        assert_eq!(r.status, 200, "{}", r.text());
        let view = r.json();
        let tables = view["tables"].as_array().unwrap().clone();
        let first: Vec<&Value> = tables
            .iter()
            .filter(|t| t["table"].as_u64() <= Some(4))
            .collect();
        if first.iter().all(|t| t["state"] == "over") {
            break view;
        }
        assert!(
            Instant::now() < over_by,
            "the round is not over after {ROUND_WITHIN:?}: {:?}",
            first
                .iter()
                .map(|t| (&t["table"], &t["state"], &t["number"]))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let round_took = started.elapsed();
    let tables = round["tables"].as_array().unwrap();
    for t in tables.iter().filter(|t| t["table"].as_u64() <= Some(4)) {
        assert_eq!(t["result_state"], "pending", "{t}");
        assert!(t["board_result"].is_string(), "{t}");
    }

    // Each board's events through the hall: the pairing's game, and a violation exactly
    // where the rehearsal drew one, put right.
    let tournament = Tournament::read(&file).unwrap();
    let mut broke = 0;
    for p in tournament.round(ROUND).iter().take(BOARDS as usize) {
        let path = format!("/console/board/rehearsal/table-{}/events", p.table);
        // Read until the game's `game_over` has come whole: the reader stops as soon as
        // the marker is in, which can be in the middle of its line (then read again).
        let mut events = Vec::new();
        for _ in 0..5 {
            let r = request(addr, "GET", &path, &auth, b"", Some("\"game_over\"")).await;
            assert_eq!(r.status, 200, "{path}");
            events = sse_events(&r.text());
            if events
                .iter()
                .any(|e| e["game"] == p.game && e["type"] == "game_over")
            {
                break;
            }
        }
        let game: Vec<&Value> = events.iter().filter(|e| e["game"] == p.game).collect();
        let started = game
            .iter()
            .find(|e| e["type"] == "game_started")
            .unwrap_or_else(|| panic!("table {}: no game_started in {events:?}", p.table));
        assert_eq!(
            started["black"],
            p.black.display_name(),
            "table {}",
            p.table
        );
        assert_eq!(
            started["white"],
            p.white.display_name(),
            "table {}",
            p.table
        );
        assert_eq!(started["komi"], json!(tournament.komi_for(p.handicap)));
        assert_eq!(
            started["handicap"],
            json!(if p.handicap >= 2 { p.handicap } else { 0 })
        );
        assert!(
            game.iter().any(|e| e["type"] == "game_over"),
            "table {}",
            p.table
        );
        let alerts: Vec<&&Value> = game.iter().filter(|e| e["type"] == "alert").collect();
        // What the rehearsal drew for this table's game (its board's seed and game).
        let board_dir = folder.join(format!("boards/table-{}", p.table));
        let record =
            tengen_rules::sgf::parse(&std::fs::read_to_string(board_dir.join("game.sgf")).unwrap())
                .unwrap();
        let config = tengen_daemon::config::Config::load(board_dir.join("board.toml")).unwrap();
        let drawn = Violation::draw(
            &GameInput::from_record(&record),
            0.5,
            config.hardware.sim.seed,
        );
        match drawn {
            Some(v) => {
                broke += 1;
                let codes: Vec<&str> = alerts.iter().filter_map(|a| a["code"].as_str()).collect();
                assert_eq!(codes, vec![v.kind.alert_code()], "table {}: {v:?}", p.table);
                assert!(VIOLATIONS.contains(&codes[0]));
                assert!(
                    game.iter().any(|e| e["type"] == "alert_cleared"
                        && e["id"] == alerts[0]["id"]
                        && e["how"] == "restored"),
                    "table {}: the alert was not put right",
                    p.table
                );
            }
            None => assert!(alerts.is_empty(), "table {}: {alerts:?}", p.table),
        }
    }
    assert!(
        broke >= 1,
        "seed 2 was chosen so that some game breaks a rule"
    );

    // Confirm all pending results: into the rehearsal's copy, never the real file.
    let before = results_of(&file);
    confirm_all(addr, &cookie).await;
    let written = results_of(&results);
    for (table, result) in &written {
        let expected = match tables.iter().find(|t| t["table"] == json!(table)) {
            Some(t) if *table <= BOARDS => {
                GameResult::from_sgf(t["board_result"].as_str().unwrap()).unwrap()
            }
            _ => before.iter().find(|(t, _)| t == table).unwrap().1,
        };
        assert_eq!(*result, expected, "table {table}");
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        original,
        "the real file is untouched"
    );

    // Ctrl-C ends it cleanly.
    let mut child = process.0.take().unwrap();
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let ended = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            ended.elapsed() < Duration::from_secs(20),
            "still running after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    eprintln!(
        "rehearsal of {BOARDS} boards at x20: round started after {set_up_after:?}, over after \
         {round_took:?}, {broke} game(s) broke a rule"
    );
}

/// *Confirm all pending results* of round 1 in the console, as the arbiter logged in with
/// `cookie`: the four tables' results confirmed.
pub(crate) async fn confirm_all(addr: SocketAddr, cookie: &str) {
    let r = request(
        addr,
        "POST",
        "/api/console/round/1/confirm",
        &[
            ("Cookie", cookie),
            TEST_ORIGIN,
            ("Content-Type", "application/json"),
        ],
        br#"{"all":true}"#,
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["confirmed"], json!([1, 2, 3, 4]), "{}", r.text());
}

/// Sends a console command as the arbiter logged in with `cookie`.
async fn console_command(addr: SocketAddr, cookie: &str, body: Value) {
    let r = request(
        addr,
        "POST",
        "/api/console/command",
        &[
            ("Cookie", cookie),
            TEST_ORIGIN,
            ("Content-Type", "application/json"),
        ],
        body.to_string().as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());
}

/// Issue 31: `--alert-hold --kill-board 2 3`, every game breaking a rule. Each violation's
/// alert stays as it is (nothing put right) until the arbiter confirms it through the
/// console; table 2's board dies 3 s in (`board_offline` in the console) and comes back
/// 20 s later on its own clock: its `status restoring` says it was off that long at the
/// rehearsal's pace, and once the arbiter resumes its clocks its players play on. The
/// round ends; the rehearsal's hall has an identity, so the arbiters' zip holds the black
/// boxes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rehearsal_holds_violations_for_the_arbiter_and_a_board_dies_and_comes_back() {
    let work = tempfile::tempdir().unwrap();
    let file = juvisy_in(work.path());
    let folder = work.path().join("rehearsal");
    let mqtt = format!("127.0.0.1:{}", free_port());
    let (_process, lines) = launch(
        &file,
        &folder,
        &mqtt,
        &[
            "--violations",
            "1",
            "--seed",
            "2",
            "--alert-hold",
            "--kill-board",
            "2",
            "3",
        ],
    );
    let banner = banner(&lines);
    let addr = hall_addr(&banner);
    let (name, password) = login(&banner);
    let cookie = console_cookie(addr, &name, &password).await;
    let auth = [("Cookie", cookie.as_str()), TEST_ORIGIN];
    let mut first_seen: std::collections::HashMap<String, Instant> = Default::default();
    let (mut held, mut offline, mut restarted) = (0, false, false);
    let over_by = Instant::now() + ROUND_WITHIN;
    loop {
        let alerts = get(addr, "/api/console/alerts", &auth).await.json();
        for a in alerts.as_array().cloned().unwrap_or_default() {
            let key = format!("{}/{}", a["board"], a["id"]);
            let code = a["code"].as_str().unwrap_or("");
            let target = json!({"tournament": a["tournament"], "board": a["board"]});
            if code == "board_offline" && a["board"] == "table-2" {
                offline = true;
            }
            if code == "board_restarted" && !restarted {
                restarted = true;
                assert_eq!(a["board"], "table-2", "{a}");
                let mut body = target.clone();
                body["type"] = json!("resume");
                console_command(addr, &cookie, body).await;
            }
            if !VIOLATIONS.contains(&code) || a["restored"].is_string() {
                continue;
            }
            // A violation, not put right: held for the arbiter. After 1.5 s of wall
            // time (30 s at x20; a player not held puts it right within 4 s of game
            // time), the arbiter decides.
            let seen = *first_seen.entry(key.clone()).or_insert_with(Instant::now);
            if seen.elapsed() >= Duration::from_millis(1500) {
                held += 1;
                first_seen.insert(key, Instant::now() + Duration::from_secs(3600));
                let mut body = target;
                body["type"] = json!("confirm");
                body["alert"] = a["id"].clone();
                console_command(addr, &cookie, body).await;
            }
        }
        let view = get(addr, "/api/console/round/1", &auth).await.json();
        let states: Vec<Value> = view["tables"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["table"].as_u64() <= Some(4))
            .map(|t| t["state"].clone())
            .collect();
        if states.iter().all(|s| s == "over") && restarted {
            break;
        }
        assert!(
            Instant::now() < over_by,
            "the round is not over: {states:?}, held {held}, offline {offline}, restarted {restarted}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(held >= 2, "violations held for the arbiter: {held}");
    assert!(offline, "table 2's board_offline rang");
    // Table 2 came back on its own clock: off for about 20 s at x20.
    let r = request(
        addr,
        "GET",
        "/console/board/rehearsal/table-2/events",
        &auth,
        b"",
        Some("\"game_over\""),
    )
    .await;
    let events = sse_events(&r.text());
    let restoring = events
        .iter()
        .find(|e| e["type"] == "status" && e["state"] == "restoring")
        .expect("table 2's restoring");
    let at = |v: &Value| {
        tengen_protocol::Timestamp::parse(v.as_str().unwrap())
            .unwrap()
            .millis()
    };
    let off = at(&restoring["time"]) - at(&restoring["off_since"]);
    assert!(
        (300_000..900_000).contains(&off),
        "20 s off at x20 is 400 s of the board's clock: {off} ms"
    );
    // The arbiters' zip holds the black boxes (the hall has an identity now).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = get(addr, "/round/1.zip", &auth).await;
        assert_eq!(r.status, 200);
        let names: Vec<String> = {
            let mut zip = zip::ZipArchive::new(std::io::Cursor::new(r.body.clone())).unwrap();
            (0..zip.len())
                .map(|i| zip.by_index(i).unwrap().name().to_string())
                .collect()
        };
        if names.iter().any(|n| n.starts_with("frames/"))
            && names.iter().any(|n| n.starts_with("incidents/"))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no frames in the arbiters' zip: {names:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The events of table `table`'s board through the hall (`/console/board/.../events`) once
/// `done` holds for them (read again every half second, at most [`ROUND_WITHIN`]).
async fn events_once(
    addr: SocketAddr,
    auth: &[(&str, &str)],
    table: u32,
    marker: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let path = format!("/console/board/rehearsal/table-{table}/events");
    let by = Instant::now() + ROUND_WITHIN;
    loop {
        let read = request(addr, "GET", &path, auth, b"", Some(marker));
        if let Ok(r) = tokio::time::timeout(Duration::from_secs(10), read).await {
            let events = sse_events(&r.text());
            if done(&events) {
                return events;
            }
        }
        assert!(
            Instant::now() < by,
            "table {table}: no {marker} in {ROUND_WITHIN:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// `--late 0.25 --absent 0.125 --late-limit 20` on four boards (eight players: two late,
/// one never there, drawn from the seed): every late player's board says `late_arrival`
/// about as late as drawn, and takes twice the lateness in all from their time (Art.
/// 22.1): what their clock ran and `deducted_ms`, the same again when it was their clock
/// that ran; the absent player's board raises `absent` at the limit. The Round view shows
/// the seats as the boards' events left them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rehearsal_with_late_and_absent_players_takes_twice_the_lateness_and_raises_absent() {
    let work = tempfile::tempdir().unwrap();
    let file = juvisy_in(work.path());
    let folder = work.path().join("rehearsal");
    let mqtt = format!("127.0.0.1:{}", free_port());
    let (_process, lines) = launch(
        &file,
        &folder,
        &mqtt,
        &["--late", "0.25", "--absent", "0.125", "--late-limit", "20"],
    );
    let banner = banner(&lines);
    assert!(
        field(&banner, "arrivals").contains("limit 20 s"),
        "{banner:#?}"
    );
    let addr = hall_addr(&banner);
    let (name, password) = login(&banner);
    let cookie = console_cookie(addr, &name, &password).await;
    let auth = [("Cookie", cookie.as_str()), TEST_ORIGIN];
    use tengen_daemon::config::SimArrival;
    let (mut late, mut absent) = (0, 0);
    for table in 1..=BOARDS {
        let config = tengen_daemon::config::Config::load(
            folder.join(format!("boards/table-{table}/board.toml")),
        )
        .unwrap();
        assert_eq!(config.game.late_limit_s, 20);
        let sim = &config.hardware.sim;
        let sides = [("B", sim.black_arrives), ("W", sim.white_arrives)];
        let never: Vec<&str> = sides
            .iter()
            .filter(|(_, a)| *a == SimArrival::Never)
            .map(|(c, _)| *c)
            .collect();
        for (color, arrive) in sides {
            let SimArrival::Late(after) = arrive else {
                continue;
            };
            late += 1;
            let events = events_once(addr, &auth, table, "\"late_arrival\"", |e| {
                e.iter()
                    .position(|e| e["type"] == "late_arrival" && e["color"] == color)
                    .is_some_and(|i| e.get(i + 1).is_some_and(|n| n["type"] == "clock"))
            })
            .await;
            let i = events
                .iter()
                .position(|e| e["type"] == "late_arrival" && e["color"] == color)
                .unwrap();
            let (arrival, after_it) = (&events[i], &events[i + 1]);
            let late_ms = arrival["late_ms"].as_u64().unwrap();
            let deducted = arrival["deducted_ms"].as_u64().unwrap();
            // Pressed `after` ms of the board's time after play began (scans of 10 ms).
            assert!(late_ms.abs_diff(after) <= 500, "{arrival} drawn {after}");
            // Twice the lateness in all: what their clock ran, and the rest on arrival.
            let started = events.iter().find(|e| e["type"] == "game_started").unwrap();
            let tc = started["time_control"].as_str().unwrap();
            let main = tengen_rules::clock::TimeControl::parse(tc)
                .unwrap()
                .main_ms();
            let left = after_it[color].as_u64().unwrap();
            assert_eq!(main - left, 2 * late_ms, "{arrival} then {after_it}");
            assert!((late_ms..=2 * late_ms).contains(&deducted), "{arrival}");
            // The side whose clock ran from the start: the same again.
            let begun = events
                .iter()
                .find(|e| e["type"] == "clock" && e["paused"] == false && e["running"].is_string())
                .unwrap();
            if begun["running"] == color {
                assert_eq!(deducted, late_ms, "{arrival}");
            }
        }
        if !never.is_empty() {
            absent += never.len();
            let events = events_once(addr, &auth, table, "\"absent\"", |e| {
                e.iter()
                    .any(|e| e["type"] == "alert" && e["code"] == "absent")
            })
            .await;
            let alert = events
                .iter()
                .find(|e| e["type"] == "alert" && e["code"] == "absent")
                .unwrap();
            match never.as_slice() {
                [one] => assert_eq!(alert["color"], *one, "{alert}"),
                _ => assert!(alert["color"].is_null(), "{alert}"),
            }
            assert!(alert["late_ms"].as_u64() >= Some(20_000), "{alert}");
        }
    }
    assert_eq!((late, absent), (2, 1), "{banner:#?}");
    // The Round view: the seats as the boards' events left them.
    let by = Instant::now() + ROUND_WITHIN;
    loop {
        let view = get(addr, "/api/console/round/1", &auth).await.json();
        let states: Vec<String> = view["tables"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["table"].as_u64() <= Some(u64::from(BOARDS)))
            .flat_map(|t| {
                ["B", "W"].map(|c| t["seats"][c]["state"].as_str().unwrap_or("").to_string())
            })
            .collect();
        let n = |s: &str| states.iter().filter(|x| *x == s).count();
        if n("arrived") == 2 && n("absent") == 1 && n("seated") == 5 {
            break;
        }
        assert!(Instant::now() < by, "the Round view's seats: {states:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}
