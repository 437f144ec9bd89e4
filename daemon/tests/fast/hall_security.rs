//! The hall's console against the attacks of issue 15, over real TCP (and real TLS with a
//! certificate made by `openssl`, read with `curl`), the hall on a real mosquitto:
//! no usable secret in the example file and `tengen hall --add-arbiter` (finding 3), HTTPS
//! with a `Secure` cookie and a warning for plain HTTP beyond the loopback (4), the login
//! limit (5), and the Origin check of every state-changing request (6).

use crate::broker;
use crate::cli;
use crate::http;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use broker::Mosquitto;
use http::{console_login, get, request};
use serde_json::json;
use tengen_hall::HallConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "security-token-0123";
const FORM: (&str, &str) = ("Content-Type", "application/x-www-form-urlencoded");
/// The test client sends `Host: test`; a browser on the hall's own page sends this.
const ORIGIN: (&str, &str) = ("Origin", "http://test");

fn example_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/hall.toml")
}

/// `tengen hall ARGS` with `input` on standard input.
fn tengen_with_input(args: &[&str], input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tengen");
    // A command that refuses its arguments exits before it reads its input: the pipe is
    // then closed under the writer, which is no failure of the test's.
    let written = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    child.wait_with_output().expect("tengen finishes")
}

async fn start_hall(mosq: &Mosquitto, toml: &str) -> tengen_hall::RunningHall {
    let config = HallConfig::parse(toml, Path::new("hall.toml")).expect("a valid hall.toml");
    tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts")
}

/// Runs `tengen ARGS` for at most 20 s: its exit code (None if it was still running and
/// was killed) and standard error.
fn run_at_most_20_s(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tengen");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    (code, err)
}

#[test]
fn the_example_config_does_not_start() {
    let (code, err) = run_at_most_20_s(&[
        "hall",
        "--broker",
        "mqtt://127.0.0.1:9",
        "--http",
        "127.0.0.1:0",
        "--config",
        example_config().to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].ends_with(
            "hall.toml: arbiter[0].password_hash: the example file's secret, known to \
             everyone: make your own with `tengen hall --add-arbiter NAME`"
        ),
        "{err}"
    );
    assert!(lines[1].contains("arbiter[1].token: the example file's secret"));
    // The docs print no working password either.
    for doc in [
        "../README.md",
        "../docs/configuration.md",
        "../docs/operating.md",
    ] {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc))
            .expect("read the doc");
        assert!(!text.contains("change-me-please"), "{doc}");
    }
}

#[test]
fn a_hall_log_in_a_file_has_no_colour_and_says_commands_go_unsigned() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hall.toml");
    std::fs::write(
        &config,
        format!("[[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"),
    )
    .unwrap();
    let log = dir.path().join("hall.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "hall",
            "--broker",
            "mqtt://127.0.0.1:9",
            "--http",
            "127.0.0.1:0",
        ])
        .arg("--config")
        .arg(&config)
        .env("RUST_LOG", "info")
        .env_remove("NO_COLOR")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("run tengen hall");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("hall serving") || std::time::Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // SAFETY: kill(2) with the id of our own child, which has not been waited for.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let status = child.wait().expect("the hall stops");
    assert!(text.contains("hall serving"), "{text}");
    assert!(status.success(), "{status:?}");
    assert!(
        !text.contains('\u{1b}'),
        "escape codes in a log file: {text:?}"
    );
    let warning = text
        .lines()
        .find(|l| l.contains(" WARN ") && l.contains("no hall.command_key_file"))
        .unwrap_or_else(|| panic!("no warning of unsigned commands in {text}"));
    assert!(
        warning.contains("anyone on the broker can send a command"),
        "{warning}"
    );
}

#[tokio::test]
async fn add_arbiter_makes_an_entry_the_hall_logs_in_with() {
    let o = tengen_with_input(
        &["hall", "--add-arbiter", "chief"],
        "our own long password\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", cli::stderr(&o));
    let entry = cli::stdout(&o);
    let lines: Vec<&str> = entry.lines().collect();
    assert_eq!(lines[..2], ["[[arbiter]]", "name = \"chief\""], "{entry}");
    assert!(
        lines[2].starts_with("password_hash = \"$argon2id$v=19$m=19456,t=2,p=1$"),
        "{entry}"
    );
    assert!(!entry.contains("our own long password"));

    // Too short a password, or no name: one line, exit 2.
    let o = tengen_with_input(&["hall", "--add-arbiter", "chief"], "short\n");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        cli::stderr(&o).trim_end(),
        "tengen: --add-arbiter: use a password of at least 12 characters"
    );
    assert!(cli::stdout(&o).is_empty());
    let o = tengen_with_input(&["hall", "--add-arbiter", ""], "our own long password\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(cli::stderr(&o).contains("name must not be empty"));

    // A commentator's login: the same entry with its role.
    let o = tengen_with_input(
        &["hall", "--add-arbiter", "press", "--role", "commentator"],
        "our own long password\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", cli::stderr(&o));
    let press = cli::stdout(&o);
    assert!(press.ends_with("role = \"commentator\"\n"), "{press}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hall.toml");
    std::fs::write(&file, format!("[hall]\n{entry}{press}")).unwrap();
    let o = cli::tengen(&["check-config", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", cli::stderr(&o));
    assert!(
        cli::stdout(&o).contains("1 arbiter(s), 1 commentator(s)"),
        "{}",
        cli::stdout(&o)
    );
    let o = tengen_with_input(
        &["hall", "--add-arbiter", "press", "--role", "referee"],
        "our own long password\n",
    );
    assert_eq!(o.status.code(), Some(2));

    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let hall = start_hall(&mosq, &entry).await;
    let r = console_login(hall.addr, "chief", "our%20own%20long%20password").await;
    assert_eq!(r.status, 303, "{}", r.text());
    let cookie = r.header("set-cookie").expect("a session");
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    let r = console_login(hall.addr, "chief", "our%20own%20long%20passwore").await;
    assert_eq!(r.status, 401);
    hall.stop();
}

/// One POST of the login form from `from` (a loopback address of our choosing), its status
/// and `Retry-After`.
async fn login_from(from: &str, addr: SocketAddr, name: &str, password: &str) -> (u16, String) {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(format!("{from}:0").parse().expect("an address"))
        .expect("bind");
    let mut s = socket.connect(addr).await.expect("connect");
    let body = format!("name={name}&password={password}");
    let req = format!(
        "POST /console/login HTTP/1.1\r\nHost: test\r\nOrigin: http://test\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.expect("write");
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_string(&mut out))
        .await
        .expect("an answer in time")
        .expect("read");
    let status = out
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let retry = out
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("retry-after")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_default();
    (status, retry)
}

#[tokio::test]
async fn logins_are_limited_per_address_and_per_name() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let hall = start_hall(
        &mosq,
        &format!(
            "[[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n\
             [[arbiter]]\nname = \"deputy\"\ntoken = \"{TOKEN}-d\"\n"
        ),
    )
    .await;
    let addr = hall.addr;
    // Four wrong guesses for chief from 127.0.0.2 are answered as wrong; the fifth locks.
    for i in 0..4 {
        let (status, retry) = login_from("127.0.0.2", addr, "chief", "guess").await;
        assert_eq!((status, retry.as_str()), (401, ""), "guess {i}");
    }
    let (status, retry) = login_from("127.0.0.2", addr, "chief", "guess").await;
    assert_eq!((status, retry.as_str()), (429, "60"));
    // Locked: the right token from that address, for that name or another, is not checked.
    assert_eq!(login_from("127.0.0.2", addr, "chief", TOKEN).await.0, 429);
    let deputy = format!("{TOKEN}-d");
    assert_eq!(
        login_from("127.0.0.2", addr, "deputy", &deputy).await.0,
        429
    );
    // The name is locked from every address; another name from another address is not.
    let (status, retry) = login_from("127.0.0.3", addr, "chief", TOKEN).await;
    assert_eq!(status, 429);
    let secs: u64 = retry.parse().expect("Retry-After in seconds");
    assert!((1..=60).contains(&secs), "{secs}");
    assert_eq!(
        login_from("127.0.0.3", addr, "deputy", &deputy).await.0,
        303
    );
    // Unknown names are limited the same way (and answered like wrong passwords).
    for _ in 0..4 {
        assert_eq!(login_from("127.0.0.4", addr, "nobody", TOKEN).await.0, 401);
    }
    assert_eq!(login_from("127.0.0.4", addr, "nobody", TOKEN).await.0, 429);
    hall.stop();
}

#[tokio::test]
async fn state_changing_requests_need_the_halls_origin() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let hall = start_hall(
        &mosq,
        &format!("[[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"),
    )
    .await;
    let addr = hall.addr;
    let body = format!("name=chief&password={TOKEN}");
    // A login without Origin or Referer, or from another site: 403, no cookie.
    for headers in [
        vec![FORM],
        vec![FORM, ("Origin", "http://evil.example")],
        vec![FORM, ("Origin", "http://test:8090")],
        vec![FORM, ("Origin", "null")],
        vec![FORM, ("Referer", "http://evil.example/test")],
    ] {
        let r = request(
            addr,
            "POST",
            "/console/login",
            &headers,
            body.as_bytes(),
            None,
        )
        .await;
        assert_eq!(r.status, 403, "{headers:?}: {}", r.text());
        assert!(r.header("set-cookie").is_none());
    }
    // The hall's own page: Origin, or only a Referer on the hall.
    let r = request(
        addr,
        "POST",
        "/console/login",
        &[FORM, ("Referer", "http://test/console")],
        body.as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let r = console_login(addr, "chief", TOKEN).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let cookie = r
        .header("set-cookie")
        .and_then(|c| c.split(';').next().map(str::to_string))
        .expect("a session");
    let auth = ("Cookie", cookie.as_str());
    let json_ct = ("Content-Type", "application/json");
    let cmd = json!({"tournament": "t", "board": "b1", "type": "pause"}).to_string();
    // A logged-in arbiter's browser made to post a command by another site: refused, and
    // nothing is sent.
    for what in [
        "/api/console/command",
        "/api/console/round/1/start",
        "/console/logout",
    ] {
        let r = request(
            addr,
            "POST",
            what,
            &[auth, json_ct, ("Origin", "https://evil.example")],
            cmd.as_bytes(),
            None,
        )
        .await;
        assert_eq!(r.status, 403, "{what}: {}", r.text());
        assert_eq!(r.json()["error"], "refused: Origin is not this hall");
    }
    let r = request(addr, "DELETE", "/api/console/command", &[auth], b"", None).await;
    assert_eq!(r.status, 403);
    let sent = get(addr, "/api/console/commands", &[auth]).await;
    assert_eq!(sent.status, 200);
    assert_eq!(sent.json(), json!([]));
    // GETs need no Origin; the session survived the refused logout.
    assert_eq!(get(addr, "/api/console/alerts", &[auth]).await.status, 200);
    assert_eq!(get(addr, "/", &[]).await.status, 200);
    // The same command from the hall's own page passes the check and reaches the console
    // (which knows no board b1: nothing publishes one here).
    let r = request(
        addr,
        "POST",
        "/api/console/command",
        &[auth, json_ct, ORIGIN],
        cmd.as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "no board t/b1 in this hall");
    hall.stop();
}

fn openssl(dir: &Path, args: &[&str]) -> bool {
    match Command::new("openssl").args(args).current_dir(dir).output() {
        Ok(out) => {
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            true
        }
        Err(_) => {
            assert!(
                !broker::oracles_required(),
                "openssl is missing and TENGEN_REQUIRE_ORACLES=1"
            );
            eprintln!("skipped: openssl is not installed");
            false
        }
    }
}

/// `curl ARGS` (status line and headers with `-i`); None when curl is missing.
fn curl(args: &[&str]) -> Option<std::process::Output> {
    match Command::new("curl").args(args).output() {
        Ok(o) => Some(o),
        Err(_) => {
            assert!(
                !broker::oracles_required(),
                "curl is missing and TENGEN_REQUIRE_ORACLES=1"
            );
            eprintln!("skipped: curl is not installed");
            None
        }
    }
}

#[tokio::test]
async fn the_console_over_https_with_a_secure_cookie() {
    let certs = tempfile::tempdir().unwrap();
    let dir = certs.path();
    if !openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "hall.key",
            "-out",
            "hall.pem",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
    ) {
        return;
    }
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let toml = format!(
        "[hall]\ntls_cert = \"{}\"\ntls_key = \"{}\"\n\
         [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n",
        dir.join("hall.pem").display(),
        dir.join("hall.key").display()
    );
    let hall = start_hall(&mosq, &toml).await;
    assert!(hall.https);
    let base = format!("https://localhost:{}", hall.addr.port());
    let ca = dir.join("hall.pem");
    let ca = ca.to_str().unwrap();
    let resolve = format!("localhost:{}:127.0.0.1", hall.addr.port());
    // curl runs blocking: off the runtime the hall runs on.
    let run = |args: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            curl(&args)
        })
    };
    let common = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["-sS", "-i", "--max-time", "10", "--cacert", ca, "--resolve"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.push(resolve.clone());
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let Some(page) = run(common(&[&format!("{base}/")])).await.unwrap() else {
        return;
    };
    let text = String::from_utf8_lossy(&page.stdout).into_owned();
    assert!(
        page.status.success(),
        "{}",
        String::from_utf8_lossy(&page.stderr)
    );
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    // The login over HTTPS: the cookie is Secure.
    let origin = format!("Origin: {base}");
    let form = format!("name=chief&password={TOKEN}");
    let login = run(common(&[
        "-H",
        &origin,
        "--data",
        &form,
        &format!("{base}/console/login"),
    ]))
    .await
    .unwrap()
    .expect("curl");
    let text = String::from_utf8_lossy(&login.stdout).into_owned();
    assert!(text.starts_with("HTTP/1.1 303"), "{text}");
    let cookie = text
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .expect("a session cookie");
    assert!(
        cookie.contains("; Secure") && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    // A client that does not trust the certificate gets nothing.
    let untrusted = run(vec![
        "-sS".into(),
        "--max-time".into(),
        "10".into(),
        "--resolve".into(),
        resolve.clone(),
        format!("{base}/"),
    ])
    .await
    .unwrap()
    .expect("curl");
    assert!(!untrusted.status.success());
    // Plain HTTP on the HTTPS port gets no page.
    let plain = run(vec![
        "-sS".into(),
        "-i".into(),
        "--max-time".into(),
        "10".into(),
        format!("http://127.0.0.1:{}/", hall.addr.port()),
    ])
    .await
    .unwrap()
    .expect("curl");
    assert!(
        !String::from_utf8_lossy(&plain.stdout).contains("200 OK"),
        "{}",
        String::from_utf8_lossy(&plain.stdout)
    );
    hall.stop();

    // A key that is not a key: one line naming the key of the config.
    std::fs::write(dir.join("bad.key"), "not a key\n").unwrap();
    let toml = format!(
        "[hall]\ntls_cert = \"{}\"\ntls_key = \"{}\"\n",
        dir.join("hall.pem").display(),
        dir.join("bad.key").display()
    );
    let config = HallConfig::parse(&toml, Path::new("hall.toml")).unwrap();
    let e = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .err()
        .expect("a bad key stops the hall");
    let e = e.to_string();
    assert!(e.starts_with("hall.tls_key: "), "{e}");
    assert!(!e.contains('\n'));
}

/// `tengen hall --http ADDR` started until it says where it serves: what it wrote to
/// standard error by then.
fn start_line(http: &str, config: Option<&Path>) -> String {
    let mut args = vec![
        "hall".to_string(),
        "--broker".into(),
        "mqtt://127.0.0.1:9".into(),
        "--http".into(),
        http.into(),
    ];
    if let Some(c) = config {
        args.push("--config".into());
        args.push(c.display().to_string());
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(&args)
        .env("RUST_LOG", "warn")
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tengen hall");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut seen = String::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(20)) {
        seen.push_str(&line);
        seen.push('\n');
        if line.starts_with("tengen hall: ") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    seen
}

#[test]
fn plain_http_beyond_the_loopback_warns_at_start() {
    let wide = start_line("0.0.0.0:0", None);
    assert!(wide.contains("tengen hall: http://0.0.0.0:"), "{wide}");
    assert!(
        wide.contains("WARN") && wide.contains("the hall serves plain HTTP on 0.0.0.0:"),
        "{wide}"
    );
    let local = start_line("127.0.0.1:0", None);
    assert!(local.contains("tengen hall: http://127.0.0.1:"), "{local}");
    assert!(!local.contains("plain HTTP"), "{local}");
}
