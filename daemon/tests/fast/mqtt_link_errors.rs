//! Why a board or a hall cannot reach its broker, said once (issue 15, findings 10 and 13):
//! a refused login, plain MQTT spoken to a TLS listener, a broker certificate from another
//! CA or for another host name. Each is one clear log line, not repeated on every retry,
//! and shows on the board's `/api/mqtt` and the hall's `/api/broker`; there is no
//! connection. The hall says why it stops. Real mosquitto, real `tengen run` and
//! `tengen hall`; the certificates are made here with `openssl`, the password file with
//! `mosquitto_passwd -b`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::broker::{self, free_port, Mosquitto};

fn have(tool: &str, arg: &str) -> bool {
    let ok = Command::new(tool)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !ok {
        assert!(
            !broker::oracles_required(),
            "{tool} is missing and TENGEN_REQUIRE_ORACLES=1"
        );
        eprintln!("skipped: {tool} is not installed");
    }
    ok
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA `{tag}-ca.pem` and a server certificate `{tag}-server.pem`/`.key` it signs for
/// `san` (e.g. `DNS:localhost,IP:127.0.0.1`), P-256.
pub(crate) fn ca_and_server(dir: &Path, tag: &str, san: &str) {
    let ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    let ca =
        format!("req -x509 {ec} -keyout {tag}-ca.key -out {tag}-ca.pem -days 2 -subj /CN={tag}-ca");
    openssl(dir, &ca.split(' ').collect::<Vec<_>>());
    std::fs::write(
        dir.join(format!("{tag}.ext")),
        format!("subjectAltName={san}\nextendedKeyUsage=serverAuth\n"),
    )
    .unwrap();
    let req =
        format!("req {ec} -keyout {tag}-server.key -out {tag}-server.csr -subj /CN={tag}-broker");
    openssl(dir, &req.split(' ').collect::<Vec<_>>());
    let sign = format!(
        "x509 -req -in {tag}-server.csr -CA {tag}-ca.pem -CAkey {tag}-ca.key -CAcreateserial \
         -out {tag}-server.pem -days 2 -extfile {tag}.ext"
    );
    openssl(dir, &sign.split_whitespace().collect::<Vec<_>>());
}

/// mosquitto with a TLS listener using `{tag}-server.pem` of `dir`, and a plain one; the
/// TLS port.
fn tls_broker(dir: &Path, tag: &str) -> Option<(Mosquitto, u16)> {
    let tls_port = free_port();
    let extra = format!(
        "listener {tls_port} 127.0.0.1\ncafile {d}/{tag}-ca.pem\ncertfile {d}/{tag}-server.pem\n\
         keyfile {d}/{tag}-server.key\n",
        d = dir.display()
    );
    let m = Mosquitto::start_with(&extra)?;
    assert!(broker::wait_listening(tls_port, Duration::from_secs(10)));
    Some((m, tls_port))
}

/// A sim board in `dir` whose `[mqtt]` table is `mqtt`, started with `tengen run`; its
/// log goes to `{dir}/run.log`. Returns the process and its HTTP port.
fn run_board(dir: &Path, mqtt: &str) -> (Child, u16) {
    std::fs::write(dir.join("game.txt"), "size 9\nplace B C3\npress B\n").unwrap();
    std::fs::write(
        dir.join("command.key"),
        "00112233445566778899aabbccddeeff\n",
    )
    .unwrap();
    let http = free_port();
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"b7\"\ntournament = \"open\"\nsize = 9\n\
             [hardware]\nbackend = \"sim\"\n[hardware.sim]\nscript = \"game.txt\"\n\
             [time]\nsystem = \"none\"\n[storage]\ndir = \"data\"\n[voice]\nstyle = \"off\"\n\
             [http]\nlisten = \"127.0.0.1:{http}\"\n\
             [mqtt]\ncommand_key_file = \"command.key\"\n{mqtt}\n"
        ),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["run", "--config", path.to_str().unwrap()])
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("run.log")).unwrap())
        .spawn()
        .unwrap();
    (child, http)
}

/// GET `path` on 127.0.0.1:`port` as JSON, `None` while nothing answers.
fn get_json(port: u16, path: &str) -> Option<Value> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (_, body) = text.split_once("\r\n\r\n")?;
    serde_json::from_str(body).ok()
}

/// Waits (at most 20 s) until the status at `path` has an error; then lets the client retry
/// for a few more seconds, and returns the status and the log at `log`.
fn failure(port: u16, path: &str, log: &Path) -> (Value, String) {
    let start = Instant::now();
    loop {
        if let Some(v) = get_json(port, path) {
            if v["error"].is_string() {
                break;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no error on {path}; log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The back-off starts at 500 ms: several more attempts fail with the same reason.
    std::thread::sleep(Duration::from_millis(3000));
    let status = get_json(port, path).expect("status");
    (status, std::fs::read_to_string(log).unwrap_or_default())
}

/// The status says `needle` and is not connected; the log says it exactly once, as a
/// warning; nothing ever connected.
fn said_once(status: &Value, log: &str, needle: &str) -> String {
    assert_eq!(status["connected"], false, "{status}");
    let error = status["error"].as_str().unwrap_or_default().to_string();
    assert!(error.contains(needle), "{status}");
    assert!(!error.contains('\n'), "{error}");
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(needle)).collect();
    assert_eq!(lines.len(), 1, "said more than once:\n{log}");
    assert!(lines[0].contains("WARN"), "{}", lines[0]);
    assert!(lines[0].ends_with(&error), "{}\n{error}", lines[0]);
    assert!(!log.contains(": connected"), "{log}");
    error
}

/// The hall's public `/api/broker` says no more than `connected`: waits (at most 20 s) until
/// the log at `log` has `needle`, lets the client retry for a few more seconds, and returns
/// the public status and the log.
fn hall_failure(port: u16, log: &Path, needle: &str) -> (Value, String) {
    let start = Instant::now();
    while !std::fs::read_to_string(log)
        .unwrap_or_default()
        .contains(needle)
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no {needle:?} in the log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(3000));
    let status = get_json(port, "/api/broker").expect("status");
    (status, std::fs::read_to_string(log).unwrap_or_default())
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_refused_password_is_said_once_and_shown_on_the_board_and_the_hall() {
    if !have("mosquitto_passwd", "--help") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let passwd = d.join("passwd");
    std::fs::write(&passwd, "").unwrap();
    for (user, pw) in [("b7", "right-one"), ("hall-desk", "right-too")] {
        let out = Command::new("mosquitto_passwd")
            .arg("-b")
            .arg(&passwd)
            .args([user, pw])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let Some(m) = Mosquitto::start_with(&format!(
        "allow_anonymous false\npassword_file {}\n",
        passwd.display()
    )) else {
        return;
    };
    std::fs::write(d.join("pw"), "wrong-one\n").unwrap();
    let (board, http) = run_board(
        d,
        &format!(
            "url = \"{}\"\nusername = \"b7\"\npassword_file = \"pw\"",
            m.url()
        ),
    );
    let (status, log) = failure(http, "/api/mqtt", &d.join("run.log"));
    stop(board);
    let error = said_once(&status, &log, "the broker refused the login of user \"b7\"");
    assert!(error.contains("wrong user name or password"), "{error}");
    assert_eq!(status["broker"], m.url().as_str());

    // The hall: the same line in its log, and on the arbiters' /api/console/broker (the
    // hall's own tests); the public /api/broker says only that it is not connected.
    let hall_dir = d.join("hall");
    std::fs::create_dir(&hall_dir).unwrap();
    std::fs::write(hall_dir.join("pw"), "not-it\n").unwrap();
    std::fs::write(
        hall_dir.join("hall.toml"),
        "[mqtt]\nusername = \"hall-desk\"\npassword_file = \"pw\"\n",
    )
    .unwrap();
    let port = free_port();
    let log_path = hall_dir.join("hall.log");
    let hall = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["hall", "--broker", &m.url(), "--http"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("--config")
        .arg(hall_dir.join("hall.toml"))
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .unwrap();
    let refused = "the broker refused the login of user \"hall-desk\"";
    let (status, log) = hall_failure(port, &log_path, refused);
    assert_eq!(status, serde_json::json!({"connected": false}), "no detail");
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(refused)).collect();
    assert_eq!(lines.len(), 1, "said more than once:\n{log}");
    assert!(lines[0].contains("WARN"), "{}", lines[0]);
    // A password over plain mqtt:// is said too, once.
    let cleartext = format!(
        "mqtt.password_file: the password goes to {} in clear text",
        m.url()
    );
    assert_eq!(log.matches(&cleartext).count(), 1, "{log}");
    let page = {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(s, "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").unwrap();
        let mut t = String::new();
        s.read_to_string(&mut t).unwrap();
        t
    };
    assert!(
        page.contains("fetch(BROKER)") && page.contains("\"/api/broker\""),
        "the overview shows it"
    );

    // SIGTERM: the hall says why it stops.
    let ok = Command::new("kill")
        .args(["-TERM", &hall.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let mut hall = hall;
    let code = hall.wait().unwrap().code();
    assert_eq!(code, Some(0));
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(log.contains("tengen hall stops: SIGTERM received"), "{log}");
}

#[test]
fn plain_mqtt_to_a_tls_listener_says_use_mqtts() {
    if !have("openssl", "version") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ca_and_server(d, "hall", "DNS:localhost,IP:127.0.0.1");
    let Some((_m, tls_port)) = tls_broker(d, "hall") else {
        return;
    };
    let (board, http) = run_board(d, &format!("url = \"mqtt://127.0.0.1:{tls_port}\""));
    let (status, log) = failure(http, "/api/mqtt", &d.join("run.log"));
    stop(board);
    said_once(
        &status,
        &log,
        &format!("127.0.0.1:{tls_port} hung up on the MQTT CONNECT (",),
    );
    assert!(
        status["error"].as_str().unwrap().ends_with(&format!(
            "the url must be mqtts://127.0.0.1:{tls_port} with mqtt.ca_file"
        )),
        "{status}"
    );
}

#[test]
fn a_broker_certificate_from_another_ca_does_not_connect() {
    if !have("openssl", "version") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ca_and_server(d, "hall", "DNS:localhost,IP:127.0.0.1");
    ca_and_server(d, "other", "DNS:localhost,IP:127.0.0.1");
    let Some((_m, tls_port)) = tls_broker(d, "other") else {
        return;
    };
    let (board, http) = run_board(
        d,
        &format!("url = \"mqtts://localhost:{tls_port}\"\nca_file = \"hall-ca.pem\""),
    );
    let (status, log) = failure(http, "/api/mqtt", &d.join("run.log"));
    stop(board);
    let error = said_once(
        &status,
        &log,
        "the broker's certificate does not verify: it is not signed by the CA in ",
    );
    assert!(error.contains("hall-ca.pem"), "{error}");
}

#[test]
fn a_broker_certificate_for_another_host_does_not_connect() {
    if !have("openssl", "version") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ca_and_server(d, "hall", "DNS:broker.elsewhere.lan");
    let Some((_m, tls_port)) = tls_broker(d, "hall") else {
        return;
    };
    let (board, http) = run_board(
        d,
        &format!("url = \"mqtts://localhost:{tls_port}\"\nca_file = \"hall-ca.pem\""),
    );
    let (status, log) = failure(http, "/api/mqtt", &d.join("run.log"));
    stop(board);
    said_once(
        &status,
        &log,
        "the broker's certificate does not verify: it is not issued for \"localhost\"",
    );
}

#[test]
fn a_hall_whose_address_is_taken_says_so_and_exits_1() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["hall", "--broker", "mqtt://127.0.0.1:1", "--http", &addr])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("tengen: --http ") && last.contains(&addr) && last.contains("in use"),
        "{err}"
    );
}

#[test]
fn mqtts_to_a_plain_listener_says_a_plain_port_needs_mqtt() {
    let Some(m) = Mosquitto::start() else {
        return;
    };
    if !have("openssl", "version") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ca_and_server(d, "hall", "DNS:localhost,IP:127.0.0.1");
    let (board, http) = run_board(
        d,
        &format!(
            "url = \"mqtts://127.0.0.1:{}\"\nca_file = \"hall-ca.pem\"",
            m.port()
        ),
    );
    let (status, log) = failure(http, "/api/mqtt", &d.join("run.log"));
    stop(board);
    let error = said_once(
        &status,
        &log,
        &format!("127.0.0.1:{} hung up during the TLS handshake (", m.port()),
    );
    assert!(
        error.ends_with("is it a TLS listener? A plain MQTT port needs mqtt://"),
        "{error}"
    );
}

#[test]
fn a_hall_that_loses_its_broker_says_so_once_and_then_why_it_cannot_reconnect() {
    let Some(mut m) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("hall.log");
    let port = free_port();
    let mut hall = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["hall", "--broker", &m.url(), "--http"])
        .arg(format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while get_json(port, "/api/broker").is_none_or(|v| v["connected"] != true) {
        assert!(start.elapsed() < Duration::from_secs(20), "never connected");
        std::thread::sleep(Duration::from_millis(50));
    }
    m.kill();
    let error = format!("nothing listens on 127.0.0.1:{}", m.port());
    let (status, log) = hall_failure(port, &log_path, &error);
    let _ = Command::new("kill")
        .args(["-TERM", &hall.id().to_string()])
        .status();
    let _ = hall.wait();
    assert_eq!(log.matches(": connection lost: ").count(), 1, "{log}");
    assert_eq!(status, serde_json::json!({"connected": false}));
    assert_eq!(log.matches(&error).count(), 1, "{log}");
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(log.contains("tengen hall stops: SIGTERM received"), "{log}");
}

#[test]
fn a_new_reason_is_said_again_once() {
    if !have("mosquitto_passwd", "--help") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let passwd = d.join("passwd");
    std::fs::write(&passwd, "").unwrap();
    let out = Command::new("mosquitto_passwd")
        .arg("-b")
        .arg(&passwd)
        .args(["b7", "right-one"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let Some(mut m) = Mosquitto::start_with(&format!(
        "allow_anonymous false\npassword_file {}\n",
        passwd.display()
    )) else {
        return;
    };
    // First nothing listens; then the broker is there and refuses the password.
    m.kill();
    std::fs::write(d.join("pw"), "wrong-one\n").unwrap();
    let (board, http) = run_board(
        d,
        &format!(
            "url = \"{}\"\nusername = \"b7\"\npassword_file = \"pw\"",
            m.url()
        ),
    );
    let log_path = d.join("run.log");
    let (status, _) = failure(http, "/api/mqtt", &log_path);
    let first = status["error"].as_str().unwrap().to_string();
    assert!(first.starts_with("nothing listens on "), "{first}");
    m.restart();
    let start = Instant::now();
    let second = loop {
        let v = get_json(http, "/api/mqtt").expect("status");
        let e = v["error"].as_str().unwrap_or_default().to_string();
        if e != first {
            break e;
        }
        assert!(
            start.elapsed() < Duration::from_secs(40),
            "the reason never changed"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        second.starts_with("the broker refused the login"),
        "{second}"
    );
    std::thread::sleep(Duration::from_millis(2000));
    stop(board);
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert_eq!(log.matches(first.as_str()).count(), 1, "{log}");
    assert_eq!(log.matches(second.as_str()).count(), 1, "{log}");
}
