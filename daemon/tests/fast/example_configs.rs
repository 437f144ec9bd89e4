//! The shipped examples work together (issue 15, finding 12): mosquitto with
//! `config/mosquitto/mosquitto.conf`, its ACL and a password file made with
//! `mosquitto_passwd -b`; a board with `config/board.toml`; a hall with `config/hall.toml`.
//! Only paths and ports are rewritten (the board's backend becomes `sim`, this machine has
//! no sensors; the hall's example arbiters, placeholders to replace, become one test
//! arbiter `chief`). An arbiter's console command reaches the board, signed with the key
//! both configs name, and the board's reply comes back; the hall publishes the public
//! (delayed) tree, which the ACL's `viewer` reads.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::broker::{self, free_port, Subscriber};
use crate::mqtt_link_errors::ca_and_server;

const TOKEN: &str = "an-arbiter-token-for-tests";

fn example(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../config")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Kills the processes it holds when dropped, even on panic.
struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn replace(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the example no longer holds {from:?}");
    text.replace(from, to)
}

/// One HTTP request to 127.0.0.1:`port`; `None` while nothing answers. Returns the status,
/// the `Set-Cookie` header and the body.
fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Option<(u16, Option<String>, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n\
         Connection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let cookie = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("set-cookie: ")
                .or(l.strip_prefix("Set-Cookie: "))
        })
        .and_then(|c| c.split(';').next())
        .map(str::to_string);
    Some((status, cookie, body.to_string()))
}

/// Polls `check` every 100 ms until it gives `Some`, at most `secs` seconds.
fn wait<T>(what: &str, secs: u64, logs: &[&Path], mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let logs: Vec<String> = logs
                .iter()
                .map(|p| {
                    format!(
                        "--- {}\n{}",
                        p.display(),
                        std::fs::read_to_string(p).unwrap_or_default()
                    )
                })
                .collect();
            panic!("timed out waiting for {what}\n{}", logs.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn passwd(file: &Path, user: &str, password: &str) {
    let out = Command::new("mosquitto_passwd")
        .arg("-b")
        .arg(file)
        .args([user, password])
        .output()
        .expect("run mosquitto_passwd");
    assert!(out.status.success(), "{out:?}");
}

fn have_tools() -> bool {
    for (tool, arg) in [
        (broker::MOSQUITTO, "-h"),
        ("mosquitto_passwd", "--help"),
        ("openssl", "version"),
    ] {
        let found = Command::new(tool)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok();
        if !found {
            assert!(
                !broker::oracles_required(),
                "{tool} is missing and TENGEN_REQUIRE_ORACLES=1"
            );
            eprintln!("skipped: {tool} is not installed");
            return false;
        }
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_broker_board_and_hall_work_together() {
    if !have_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let etc_mosq = root.join("etc/mosquitto/tengen");
    let etc = root.join("etc/tengen");
    let var = root.join("var/lib/tengen");
    let mosq_state = root.join("var/lib/mosquitto");
    for d in [&etc_mosq.join("certs"), &etc, &var, &mosq_state] {
        std::fs::create_dir_all(d).unwrap();
    }

    // The broker, as docs/operating.md sets it up: certificates, users, the example ACL.
    ca_and_server(root, "hall", "DNS:localhost,IP:127.0.0.1");
    for (from, to) in [
        ("hall-ca.pem", "certs/hall-ca.pem"),
        ("hall-server.pem", "certs/broker.pem"),
        ("hall-server.key", "certs/broker.key"),
    ] {
        std::fs::copy(root.join(from), etc_mosq.join(to)).unwrap();
    }
    std::fs::copy(root.join("hall-ca.pem"), etc.join("hall-ca.pem")).unwrap();
    std::fs::write(etc_mosq.join("acl"), example("mosquitto/acl")).unwrap();
    let pw = etc_mosq.join("passwd");
    std::fs::write(&pw, "").unwrap();
    for (user, password) in [
        ("hall1-07", "board-secret"),
        ("hall-desk", "desk-secret"),
        // The read-only overview user, with the same password: a hall.toml that logs in as
        // `hall` connects, and then fails at what the ACL does not let it do.
        ("hall", "desk-secret"),
        ("viewer", "viewer-secret"),
    ] {
        passwd(&pw, user, password);
    }
    let tls_port = free_port();
    let plain_port = free_port();
    let conf = example("mosquitto/mosquitto.conf");
    let conf = replace(&conf, "/etc/mosquitto/tengen", etc_mosq.to_str().unwrap());
    let conf = replace(&conf, "listener 8883\n", &format!("listener {tls_port}\n"));
    let conf = replace(
        &conf,
        "listener 1883 127.0.0.1",
        &format!("listener {plain_port} 127.0.0.1"),
    );
    // Started by root, mosquitto would switch to the user `mosquitto`, who cannot enter
    // this test's private directory; without root the line changes nothing.
    let conf = format!("{conf}\nuser root\n");
    std::fs::write(root.join("mosquitto.conf"), conf).unwrap();
    let mosq_log = root.join("mosquitto.log");
    let mut procs = Procs(Vec::new());
    procs.0.push(
        Command::new(broker::MOSQUITTO)
            .arg("-c")
            .arg(root.join("mosquitto.conf"))
            // Standalone, persistence writes its file in the working directory.
            .current_dir(&mosq_state)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&mosq_log).unwrap())
            .spawn()
            .unwrap(),
    );
    assert!(
        broker::wait_listening(tls_port, Duration::from_secs(10))
            && broker::wait_listening(plain_port, Duration::from_secs(10)),
        "mosquitto with the example config did not start:\n{}",
        std::fs::read_to_string(&mosq_log).unwrap_or_default()
    );

    // The secrets both configs name.
    std::fs::write(etc.join("mqtt.password"), "board-secret\n").unwrap();
    std::fs::write(etc.join("hall.password"), "desk-secret\n").unwrap();
    std::fs::write(
        etc.join("command.key"),
        "3f6c1e9a0b7d4c2e8f5a6b1c9d0e7f3a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e\n",
    )
    .unwrap();

    // The board: config/board.toml with its paths and ports here, on the sim backend.
    std::fs::write(
        root.join("game.txt"),
        "size 19\nplace B Q16\npress B\nplace W D4\npress W\nplace B Q4\npress B\n",
    )
    .unwrap();
    let http_port = free_port();
    let board = example("board.toml");
    let board = replace(&board, "/etc/tengen/", &format!("{}/", etc.display()));
    let board = replace(&board, "/var/lib/tengen", var.to_str().unwrap());
    let board = replace(
        &board,
        "mqtts://broker.hall.lan:8883",
        &format!("mqtts://localhost:{tls_port}"),
    );
    let board = replace(
        &board,
        "listen = \"127.0.0.1:8080\"",
        &format!("listen = \"127.0.0.1:{http_port}\""),
    );
    let board = replace(&board, "backend = \"rpi\"", "backend = \"sim\"");
    let board = format!(
        "{board}\n[hardware.sim]\nscript = \"{}\"\nspeed = 20.0\n",
        root.join("game.txt").display()
    );
    let board_toml = root.join("board.toml");
    std::fs::write(&board_toml, board).unwrap();
    let board_log = root.join("board.log");
    procs.0.push(
        Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["run", "--config"])
            .arg(&board_toml)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&board_log).unwrap())
            .spawn()
            .unwrap(),
    );

    // The hall: config/hall.toml with its paths here and one test arbiter.
    let hall = example("hall.toml");
    let hall = replace(&hall, "/etc/tengen/", &format!("{}/", etc.display()));
    // Plain HTTP for this test's client: the console over HTTPS is hall_security.rs's.
    let hall: String = hall
        .lines()
        .filter(|l| !l.starts_with("tls_cert") && !l.starts_with("tls_key"))
        .map(|l| format!("{l}\n"))
        .collect();
    let cut = hall.find("[[arbiter]]").expect("the example's arbiters");
    let hall = format!(
        "{}[[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n",
        &hall[..cut]
    );
    let hall_toml = root.join("hall.toml");
    std::fs::write(&hall_toml, hall).unwrap();
    let hall_port = free_port();
    let hall_log = root.join("hall.log");
    procs.0.push(
        Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["hall", "--broker"])
            .arg(format!("mqtts://localhost:{tls_port}"))
            .arg("--http")
            .arg(format!("127.0.0.1:{hall_port}"))
            .arg("--config")
            .arg(&hall_toml)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&hall_log).unwrap())
            .spawn()
            .unwrap(),
    );
    let logs: [&Path; 3] = [&board_log, &hall_log, &mosq_log];

    // A viewer on the plain loopback listener reads the public tree, and only that.
    let viewer = format!("mqtt://127.0.0.1:{plain_port}");
    let mut public =
        Subscriber::connect_as(&viewer, "viewer", "viewer-secret", &["public/#"]).await;

    // Both reach the broker; the hall sees the board online.
    wait("the board connected", 20, &logs, || {
        let (_, _, body) = http(http_port, "GET", "/api/mqtt", &[], "")?;
        let v: Value = serde_json::from_str(&body).ok()?;
        (v["connected"] == true).then_some(())
    });
    wait("the hall to see the board online", 20, &logs, || {
        let (_, _, body) = http(hall_port, "GET", "/api/boards", &[], "")?;
        let v: Value = serde_json::from_str(&body).ok()?;
        v.as_array()?
            .iter()
            .any(|b| b["board"] == "hall1-07" && b["status"] == "online")
            .then_some(())
    });

    // The arbiter logs in and sends "Begin play" (resume) from the console.
    let (status, cookie, body) = http(
        hall_port,
        "POST",
        "/console/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &format!("name=chief&password={TOKEN}"),
    )
    .expect("the hall answers");
    assert_eq!(status, 303, "{body}");
    let cookie = cookie.expect("a session cookie");
    let command = json!({"tournament": "open-2026", "board": "hall1-07", "type": "resume"});
    let (status, _, body) = http(
        hall_port,
        "POST",
        "/api/console/command",
        &[("Cookie", &cookie), ("Content-Type", "application/json")],
        &command.to_string(),
    )
    .expect("the hall answers");
    assert_eq!(status, 202, "{body}");
    let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // The board carried it out and its reply came back to the console.
    let done = wait("the board's reply", 20, &logs, || {
        let (_, _, body) = http(
            hall_port,
            "GET",
            "/api/console/commands",
            &[("Cookie", &cookie)],
            "",
        )?;
        let v: Value = serde_json::from_str(&body).ok()?;
        let c = v
            .as_array()?
            .iter()
            .find(|c| c["id"] == id.as_str())?
            .clone();
        (c["status"] != "pending").then_some(c)
    });
    assert_eq!(done["status"], "acked", "{done}");

    // The hall publishes the public tree (ACL: hall-desk writes public/#, viewer reads it).
    let msg = public
        .next_on("public/open-2026/hall1-07/state", Duration::from_secs(20))
        .await
        .unwrap_or_else(|| {
            panic!(
                "nothing on the public tree\n{}",
                std::fs::read_to_string(&hall_log).unwrap_or_default()
            )
        });
    assert_eq!(msg.json()["board"].as_str().map(str::len), Some(361));
    public.stop();

    // Nobody was refused along the way.
    let mosq = std::fs::read_to_string(&mosq_log).unwrap_or_default();
    assert!(!mosq.contains("not authorised"), "{mosq}");
    drop(procs);
}
