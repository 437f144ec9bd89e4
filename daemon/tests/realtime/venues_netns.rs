//! Many venues, one broadcast, nothing lost (issue 37; docs/venues.md), with real parts:
//! three venues and a hub, each in its own network namespace, each venue joined to the hub
//! by a veth link; in each a mosquitto and a `tengen hall` on the files `tengen
//! broker-config` wrote (a venue's bridge dialling out to the hub over TLS), and two real
//! `tengen run` boards per venue playing a simulated game. While they play, the chaos,
//! bounded: links cut, lossy and throttled, brokers SIGKILLed (a venue's during a cut, its
//! bridge queue lost with it), a venue's hall killed, the hub's hall and broker restarted.
//! Then:
//!
//! - every venue's hall holds each of its boards' games whole (every `seq` from the game's
//!   start to its `game_over`), and the hub's archive holds the same events, event for
//!   event, none twice;
//! - the hub's public side is three moves behind during play (its `[broadcast]` delay),
//!   and once the games are over its round feed serves each game's public events as the
//!   venue's own hall does, byte for byte, its index covering every venue's tables;
//! - what the brokers lost, the hub asked its venues for (counted on the director's view),
//!   which showed the cut venue down while it was cut;
//! - the hub's own account can put nothing on a venue's boards' topics: no command crosses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::broker;
use crate::venue_lab::{self, Cut, Held, Lab, LabOptions, Proc, DIRECTOR, HTTP_PORT, TOURNAMENT};

/// Venues, and boards in each.
const VENUES: usize = 3;
const BOARDS: usize = 2;

/// The simulated players' pace (virtual ms per wall ms): a 9x9 game in about 40 s, long
/// enough for the chaos (about 22 s) to happen while the boards play.
const SPEED: f64 = 12.0;

/// Writes board `id`'s `tengen run` config (table `table`) into `dir`.
fn board_config(dir: &Path, id: &str, password: &str, table: usize) -> PathBuf {
    std::fs::create_dir_all(dir).expect("board dir");
    std::fs::write(dir.join("pw"), password).expect("write pw");
    let sgf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rules/tests/fixtures/gnugo/games/9/game_0000.sgf");
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"{id}\"\ntournament = \"{TOURNAMENT}\"\ngame = \"{id}-r1\"\n\
             size = 9\n\
             [game]\nround = \"1\"\ntable = \"{table}\"\nblack = \"Black {id}\"\n\
             white = \"White {id}\"\nclock_start = \"now\"\n\
             [hardware]\nbackend = \"sim\"\n\
             [hardware.sim]\nsgf = \"{}\"\nseed = {table}\nspeed = {SPEED:?}\n\
             [time]\nsystem = \"byoyomi\"\nmain = \"10m\"\nperiods = 3\nperiod = \"30s\"\n\
             [mqtt]\nurl = \"mqtt://127.0.0.1:{}\"\nusername = \"{id}\"\n\
             password_file = \"pw\"\nkeepalive = \"5s\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[storage]\ndir = \"data\"\n",
            sgf.display(),
            venue_lab::MQTT_PORT,
        ),
    )
    .expect("write board.toml");
    path
}

/// The boards of `held` whose game is not whole yet: no `game_over`, or a `seq` missing
/// between the game's start and its end.
fn unfinished(held: &Held, boards: &[String]) -> Vec<String> {
    boards
        .iter()
        .filter(|b| {
            let Some(events) = held.get(&(TOURNAMENT.to_string(), (*b).clone())) else {
                return true;
            };
            let over = events.values().any(|e| e["type"] == "game_over");
            let start = events
                .iter()
                .find(|(_, e)| e["type"] == "game_started")
                .map(|(s, _)| *s);
            let last = events.keys().next_back().copied().unwrap_or(0);
            let whole = start.is_some_and(|s| (s..=last).all(|q| events.contains_key(&q)));
            !(over && whole)
        })
        .cloned()
        .collect()
}

/// The boards whose events the hub holds differently from their venue's hall.
fn differing(hub: &Held, venue: &Held) -> Vec<String> {
    venue
        .iter()
        .filter(|(k, events)| hub.get(*k) != Some(*events))
        .map(|(k, _)| k.1.clone())
        .collect()
}

/// `mosquitto_sub` in namespace `ns` on its broker as `user`, for `secs`: every message on
/// `topic` (its lines).
fn subscribe_for(
    ns: &str,
    user: &str,
    password: &str,
    topic: &str,
    secs: u32,
) -> std::process::Child {
    std::process::Command::new("ip")
        .args([
            "netns",
            "exec",
            ns,
            "mosquitto_sub",
            "-h",
            "127.0.0.1",
            "-p",
            "1883",
            "-u",
            user,
            "-P",
            password,
            "-i",
            "lab-watch",
            "-t",
            topic,
            "-v",
            "-W",
            &secs.to_string(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("mosquitto_sub")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_venues_one_hub_nothing_lost_through_cuts_and_restarts() {
    if let Some(what) = venue_lab::missing() {
        assert!(
            !broker::oracles_required(),
            "the venues' lab needs {what} (TENGEN_REQUIRE_ORACLES=1)"
        );
        eprintln!("skipped: the venues' lab needs {what}");
        return;
    }
    let started = Instant::now();
    let tmp = tempfile::tempdir().expect("temp dir");
    // TENGEN_KEEP_LAB=1 keeps the lab's folder (configs, logs, archives) to look at.
    let dir = tmp.path().to_path_buf();
    let _tmp = if std::env::var("TENGEN_KEEP_LAB").is_ok_and(|v| v == "1") {
        eprintln!("the lab's folder: {}", tmp.keep().display());
        None
    } else {
        Some(tmp)
    };
    let tengen = PathBuf::from(env!("CARGO_BIN_EXE_tengen"));
    let tag = format!("{:03x}", std::process::id() % 0xfff);
    let options = LabOptions {
        tag,
        venues: VENUES,
        boards: BOARDS,
        log: "info".into(),
        // The broadcast delay at the hub: the public three moves behind.
        broadcast: Some("[broadcast]\ndelay_moves = 3\n".into()),
    };
    let mut lab = tokio::task::spawn_blocking({
        let (tengen, dir) = (tengen.clone(), dir.clone());
        move || Lab::start(&tengen, &dir, &options)
    })
    .await
    .expect("the lab");
    let mut boards: Vec<Proc> = Vec::new();
    let mut board_ids: Vec<Vec<String>> = Vec::new();
    for (i, v) in lab.venues.iter().enumerate() {
        let mut ids = Vec::new();
        for (t, (id, pw)) in v.boards.iter().enumerate() {
            let table = i * BOARDS + t + 1;
            let cfg = board_config(&v.dir.join(id), id, pw, table);
            boards.push(Proc::start(
                &v.ns.0,
                vec![
                    tengen.display().to_string(),
                    "run".into(),
                    "--config".into(),
                    cfg.display().to_string(),
                ],
                vec![("RUST_LOG".into(), "warn".into())],
                v.dir.join(format!("{id}.log")),
            ));
            ids.push(id.clone());
        }
        board_ids.push(ids);
    }
    let hub_ns = lab.hub.ns.0.clone();
    let cookie = {
        let ns = hub_ns.clone();
        tokio::task::spawn_blocking(move || venue_lab::login(&ns, DIRECTOR.0, DIRECTOR.1))
            .await
            .expect("login")
            .expect("the director logs in to the hub")
    };
    let pause = |s: f64| tokio::time::sleep(Duration::from_secs_f64(s));
    let view = |lab: &Lab| lab.venues_json(&cookie, false).unwrap_or(Value::Null);

    // Every board on the hub's pages before the chaos begins.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = view(&lab);
        let seen: u64 = v["venues"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x["boards"].as_u64()).sum())
            .unwrap_or(0);
        if seen == (VENUES * BOARDS) as u64 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the hub never saw every board: {v}"
        );
        pause(0.5).await;
    }

    // 1. Venue 1's link cut long enough for the director to see it down.
    lab.venues[0].cut(Cut::Down);
    let cut_at = Instant::now();
    let mut shown_down = false;
    while cut_at.elapsed() < Duration::from_secs(12) {
        if view(&lab)["venues"][0]["state"] == "down" {
            shown_down = true;
            break;
        }
        pause(0.5).await;
    }
    lab.venues[0].mend(Cut::Down);
    assert!(
        shown_down,
        "the director never saw venue 1 down: {}",
        view(&lab)
    );
    // 2. Venue 2's link loses 40% of its packets.
    lab.venues[1].cut(Cut::Loss(40));
    pause(3.0).await;
    lab.venues[1].mend(Cut::Loss(40));
    // The delay holds at the hub: its public side three moves behind its live one (the
    // public read first: the live one can only be further on).
    let get_json = |path: &str| {
        let (status, _, body) = venue_lab::http(
            &hub_ns,
            HTTP_PORT,
            "GET",
            path,
            &[("Cookie", cookie.as_str())],
            "",
        );
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str::<Value>(&body).expect("JSON")
    };
    let public = get_json("/api/boards");
    let live = get_json("/api/console/boards");
    let numbers = |v: &Value| -> BTreeMap<String, u64> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| Some((b["board"].as_str()?.to_string(), b["number"].as_u64()?)))
            .collect()
    };
    let (public, live) = (numbers(&public), numbers(&live));
    let playing: Vec<(&String, u64, u64)> = live
        .iter()
        .filter(|(_, n)| **n >= 5)
        .map(|(b, n)| (b, *n, public.get(b).copied().unwrap_or(0)))
        .collect();
    assert!(!playing.is_empty(), "games under way at the hub: {live:?}");
    for (b, live_n, public_n) in playing {
        assert!(
            public_n + 3 <= live_n,
            "{b}: the hub's public pages show move {public_n}, its live side {live_n}"
        );
    }
    // 3. Venue 3's broker SIGKILLed.
    lab.venues[2].mosquitto.kill();
    pause(1.0).await;
    lab.venues[2].mosquitto.restart();
    // 4. The hub's broker SIGKILLed.
    lab.hub.mosquitto.kill();
    pause(1.0).await;
    lab.hub.mosquitto.restart();
    // 5. Venue 3's link throttled to a trickle.
    lab.venues[2].cut(Cut::Throttle(24));
    pause(3.0).await;
    lab.venues[2].mend(Cut::Throttle(24));
    // 6. Venue 1's hall SIGKILLed, started again.
    lab.venues[0].hall.kill();
    pause(1.0).await;
    lab.venues[0].hall.restart();
    // 7. The hub's hall stopped and started again (its archive stays).
    lab.hub.hall.stop();
    pause(1.0).await;
    lab.hub.hall.restart();
    // 8. Venue 2's link cut, and its broker SIGKILLed during the cut: what its bridge
    // held for the hub is gone; only its hall has it.
    lab.venues[1].cut(Cut::Down);
    pause(2.0).await;
    lab.venues[1].mosquitto.kill();
    pause(0.5).await;
    lab.venues[1].mosquitto.restart();
    pause(1.0).await;
    lab.venues[1].mend(Cut::Down);
    eprintln!("chaos over after {:?}", started.elapsed());

    // No command crosses: the hub's own account publishes on every topic a command could
    // take, and nothing reaches a venue's broker.
    let hub_pw = std::fs::read_to_string(lab.hub.dir.join("hub-hall.pw")).expect("pw");
    let desk_pw = std::fs::read_to_string(lab.venues[0].dir.join("hall-desk.pw")).expect("pw");
    let watch = subscribe_for(&lab.venues[0].ns.0, "hall-desk", &desk_pw, "#", 4);
    let hub_watch = subscribe_for(&hub_ns, "hub-hall", &hub_pw, "venues/v2/#", 4);
    pause(1.0).await;
    // Nor can a venue write in another venue's tree on the hub (the hub believes the tree
    // a message comes in for its boards).
    let v1_pw = std::fs::read_to_string(lab.venues[0].dir.join("hub.pw")).expect("pw");
    for topic in [
        "venues/v2/boards/league/v2-01/events",
        "venues/v2/hall/fill",
    ] {
        venue_lab::run(&[
            "ip",
            "netns",
            "exec",
            &hub_ns,
            "mosquitto_pub",
            "-h",
            "127.0.0.1",
            "-p",
            "1883",
            "-u",
            "venue-v1",
            "-P",
            &v1_pw,
            "-i",
            "venue-v1",
            "-q",
            "1",
            "-t",
            topic,
            "-m",
            r#"{"seq":1,"board":"v2-01","forged":"x-probe"}"#,
        ]);
    }
    for topic in [
        "venues/v1/boards/league/v1-01/cmd",
        "venues/v1/hub/cmd",
        "tengen/league/v1-01/cmd",
        "venues/v1/boards/league/v1-01/events",
    ] {
        venue_lab::run(&[
            "ip",
            "netns",
            "exec",
            &hub_ns,
            "mosquitto_pub",
            "-h",
            "127.0.0.1",
            "-p",
            "1883",
            "-u",
            "hub-hall",
            "-P",
            &hub_pw,
            "-i",
            "hub-probe",
            "-q",
            "1",
            "-t",
            topic,
            "-m",
            r#"{"id":"x-probe","type":"pause","by":"hub"}"#,
        ]);
    }
    let seen = watch.wait_with_output().expect("mosquitto_sub");
    let seen = String::from_utf8_lossy(&seen.stdout);
    assert!(
        !seen.contains("x-probe"),
        "a message of the hub reached the venue's broker: {seen}"
    );
    let seen = hub_watch.wait_with_output().expect("mosquitto_sub");
    let seen = String::from_utf8_lossy(&seen.stdout);
    assert!(
        !seen.contains("x-probe"),
        "venue 1 wrote in venue 2's tree on the hub: {seen}"
    );

    // The games end; the hub catches up with every venue.
    let all: Vec<String> = board_ids.iter().flatten().cloned().collect();
    let deadline = Instant::now() + Duration::from_secs(90);
    let (hub_held, repeats) = loop {
        let (hub_held, repeats) = venue_lab::read_archive(&lab.hub.archive());
        let mut venue_held = Held::new();
        for v in &lab.venues {
            venue_held.extend(venue_lab::read_archive(&v.archive()).0);
        }
        let open = unfinished(&venue_held, &all);
        let differ = differing(&hub_held, &venue_held);
        if open.is_empty() && differ.is_empty() {
            break (hub_held, repeats);
        }
        if Instant::now() > deadline {
            for v in &lab.venues {
                eprintln!("venue {} hall log:\n{}", v.id, v.hall.log());
            }
            eprintln!("hub hall log:\n{}", lab.hub.hall.log());
            panic!(
                "after {:?}: games not whole at their venue {open:?}; boards the hub holds \
                 differently {differ:?}; the director: {}",
                started.elapsed(),
                view(&lab)
            );
        }
        pause(1.0).await;
    };
    assert_eq!(repeats, 0, "no event twice in the hub's archive");
    assert_eq!(
        hub_held.len(),
        VENUES * BOARDS,
        "every board of every venue"
    );
    for b in &mut boards {
        assert!(b.running(), "a board stopped by itself: {}", b.log());
    }

    // The director's counts: the brokers lost events, the hub asked for them.
    let v = view(&lab);
    eprintln!("the director's view: {v}");
    let filled: u64 = v["venues"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["events_filled"].as_u64()).sum())
        .unwrap_or(0);
    assert!(
        v["venues"][1]["events_filled"].as_u64() > Some(0),
        "venue 2's broker died with events its bridge had not passed on; the hub filled \
         them from the venue's hall: {v}"
    );
    for (i, venue) in v["venues"].as_array().expect("venues").iter().enumerate() {
        assert_eq!(venue["behind"], 0, "venue {} behind: {v}", i + 1);
    }

    // The round feed: the hub's covers every venue's tables, each game's events as the
    // venue's own hall serves them.
    let feed = |ns: &str, path: &str| {
        let (status, _, body) = venue_lab::http(ns, HTTP_PORT, "GET", path, &[], "");
        assert_eq!(status, 200, "{path} in {ns}: {body}");
        body
    };
    let index: Value =
        serde_json::from_str(&feed(&hub_ns, "/feed/round/1/index.json")).expect("the index");
    let tables: Vec<String> = index["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| g["table"].to_string().trim_matches('"').to_string())
        .collect();
    assert_eq!(tables.len(), VENUES * BOARDS, "{index}");
    for (i, venue) in lab.venues.iter().enumerate() {
        for t in 0..BOARDS {
            let table = i * BOARDS + t + 1;
            let path = format!("/feed/round/1/{table}.json");
            assert_eq!(
                feed(&hub_ns, &path),
                feed(&venue.ns.0, &path),
                "table {table}'s public events at the hub and at venue {}",
                venue.id
            );
        }
    }
    eprintln!(
        "venues test: {} boards, {} events at the hub, {filled} filled from the venues, in {:?}",
        all.len(),
        hub_held.values().map(BTreeMap::len).sum::<usize>(),
        started.elapsed()
    );
    drop(boards);
    drop(lab);
}
