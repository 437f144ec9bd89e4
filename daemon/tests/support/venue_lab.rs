//! Many venues on one machine (issue 37, docs/venues.md): a hub and N venues, each in its
//! own network namespace, each venue joined to the hub by a veth link of its own; in each
//! venue a mosquitto and a `tengen hall` on the files `tengen broker-config` wrote (its
//! bridge dialling out to the hub over TLS), in the hub the same on the hub's files. Nothing
//! in a venue listens beyond its loopback: the hub cannot dial in. The chaos: a venue's
//! link cut (`ip link set down`), lossy (nftables drops a share of its packets: this
//! kernel has no `netem`) or throttled (`tc tbf`), and any broker or hall killed
//! (SIGKILL) or stopped and started again.
//!
//! Used by `tests/realtime/venues_netns.rs` (a few boards, real `tengen run`) and
//! `benches/venues.rs` (hundreds of simulated boards per venue). Needs root, `ip`, `tc`,
//! `nft`, `openssl` and mosquitto; [`Lab::missing`] says which is not there.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Where mosquitto is installed on Debian.
pub(crate) const MOSQUITTO: &str = "/usr/sbin/mosquitto";

/// The tournament every venue's boards play in.
pub(crate) const TOURNAMENT: &str = "league";

/// The port the hub's mosquitto takes the venues' bridges on (TLS).
pub(crate) const HUB_TLS_PORT: u16 = 8883;

/// The plain port each broker has on its namespace's loopback.
pub(crate) const MQTT_PORT: u16 = 1883;

/// The HTTP port each hall listens on, on its namespace's loopback.
pub(crate) const HTTP_PORT: u16 = 8090;

/// The director's login on the hub (a token).
pub(crate) const DIRECTOR: (&str, &str) = ("director", "lab-director-token-0123");

/// What the lab needs that this machine lacks (`None`: all there).
pub(crate) fn missing() -> Option<String> {
    // SAFETY: geteuid only reads the process's credentials.
    if unsafe { libc::geteuid() } != 0 {
        return Some("root (network namespaces)".into());
    }
    for (what, path) in [
        ("ip", "/usr/sbin/ip"),
        ("tc", "/usr/sbin/tc"),
        ("nft", "/usr/sbin/nft"),
        ("mosquitto", MOSQUITTO),
    ] {
        if !Path::new(path).exists() && which(what).is_none() {
            return Some(what.into());
        }
    }
    if which("openssl").is_none() {
        return Some("openssl".into());
    }
    None
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.exists())
    })
}

/// Runs a command to its end; panics with its stderr when it fails.
pub(crate) fn run(args: &[&str]) {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", args.join(" ")));
    assert!(
        out.status.success(),
        "{}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs a command, whatever becomes of it.
fn run_quiet(args: &[&str]) {
    let _ = Command::new(args[0])
        .args(&args[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// A process started in a namespace (`ip netns exec NS ...`, which execs it: the pid is
/// the process's own), its output appended to a log; killed on drop.
pub(crate) struct Proc {
    ns: String,
    argv: Vec<String>,
    env: Vec<(String, String)>,
    log: PathBuf,
    child: Option<Child>,
    /// How many times it was started.
    pub(crate) starts: u32,
}

impl Proc {
    /// Starts `argv` in namespace `ns`, logging to `log`.
    pub(crate) fn start(
        ns: &str,
        argv: Vec<String>,
        env: Vec<(String, String)>,
        log: PathBuf,
    ) -> Proc {
        let mut p = Proc {
            ns: ns.to_string(),
            argv,
            env,
            log,
            child: None,
            starts: 0,
        };
        p.restart();
        p
    }

    /// Starts it again (after a kill or a stop).
    pub(crate) fn restart(&mut self) {
        assert!(self.child.is_none(), "still running: {:?}", self.argv);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("open the log");
        let err = log.try_clone().expect("clone the log");
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.ns]).args(&self.argv);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        let child = c
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(err))
            .spawn()
            .expect("spawn in the namespace");
        self.child = Some(child);
        self.starts += 1;
    }

    /// SIGKILL, reaped.
    pub(crate) fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGTERM, then waits (SIGKILL after 10 s).
    pub(crate) fn stop(&mut self) {
        let Some(mut c) = self.child.take() else {
            return;
        };
        // SAFETY: kill only sends a signal to the pid given.
        unsafe {
            libc::kill(c.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = c.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = c.kill();
        let _ = c.wait();
    }

    /// Its pid, while it runs.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// True while it runs (a process that died by itself is reaped and reported).
    pub(crate) fn running(&mut self) -> bool {
        match self.child.as_mut().map(Child::try_wait) {
            Some(Ok(None)) => true,
            Some(_) => {
                self.child = None;
                false
            }
            None => false,
        }
    }

    /// Its log so far.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A network namespace, deleted on drop (its end of each veth link with it).
pub(crate) struct Ns(pub String);

impl Ns {
    fn new(name: String) -> Ns {
        run_quiet(&["ip", "netns", "del", &name]);
        run(&["ip", "netns", "add", &name]);
        run(&["ip", "-n", &name, "link", "set", "lo", "up"]);
        Ns(name)
    }
}

impl Drop for Ns {
    fn drop(&mut self) {
        run_quiet(&["ip", "netns", "del", &self.0]);
    }
}

/// Connects to `addr` from inside namespace `ns` (a thread enters it, opens the socket and
/// leaves; the socket stays the namespace's).
pub(crate) fn connect_in(ns: &str, addr: &str) -> std::io::Result<std::net::TcpStream> {
    let ns = ns.to_string();
    let addr = addr.to_string();
    std::thread::spawn(move || {
        enter(&ns)?;
        let s = std::net::TcpStream::connect(&addr)?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        Ok(s)
    })
    .join()
    .unwrap_or_else(|_| Err(std::io::Error::other("the thread panicked")))
}

/// Moves the calling thread into namespace `ns` (for good: call it on a thread of its own).
pub(crate) fn enter(ns: &str) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(format!("/var/run/netns/{ns}"))?;
    // SAFETY: setns on an open namespace file, for this thread only.
    if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// One blocking HTTP/1.1 request inside namespace `ns` to `127.0.0.1:port`: its status and
/// body (`Connection: close`; chunked bodies joined).
pub(crate) fn http(
    ns: &str,
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    use std::io::{Read, Write};
    let mut s = match connect_in(ns, &format!("127.0.0.1:{port}")) {
        Ok(s) => s,
        Err(e) => return (0, String::new(), e.to_string()),
    };
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: lab\r\nConnection: close\r\nOrigin: http://lab\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    if s.write_all(req.as_bytes()).is_err() {
        return (0, String::new(), String::new());
    }
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let Some((head, rest)) = text.split_once("\r\n\r\n") else {
        return (0, text, String::new());
    };
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    (status, head.to_string(), body)
}

fn dechunk(mut b: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = b.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        b = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// Logs in to a hall's console in namespace `ns`: the session cookie.
pub(crate) fn login(ns: &str, name: &str, token: &str) -> Option<String> {
    let (status, head, _) = http(
        ns,
        HTTP_PORT,
        "POST",
        "/console/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &format!("name={name}&password={token}"),
    );
    if status != 303 {
        return None;
    }
    head.lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().split(';').next().unwrap_or_default().to_string())
}

/// One venue of the lab.
pub(crate) struct Venue {
    /// Its id (`v1`, `v2`, ...).
    pub(crate) id: String,
    /// Its namespace.
    pub(crate) ns: Ns,
    /// Its end of the link to the hub (in its namespace).
    pub(crate) dev: String,
    /// Its broker and its hall.
    pub(crate) mosquitto: Proc,
    /// Its hall.
    pub(crate) hall: Proc,
    /// Its boards' ids (`v1-01`, ...), with each one's broker password.
    pub(crate) boards: Vec<(String, String)>,
    /// Its folder (configs, logs, the hall's archive).
    pub(crate) dir: PathBuf,
}

impl Venue {
    /// Its hall's archive.
    pub(crate) fn archive(&self) -> PathBuf {
        self.dir.join("archive")
    }
}

/// The hub of the lab.
pub(crate) struct Hub {
    /// Its namespace.
    pub(crate) ns: Ns,
    /// Its broker.
    pub(crate) mosquitto: Proc,
    /// Its hall.
    pub(crate) hall: Proc,
    /// Its folder.
    pub(crate) dir: PathBuf,
}

impl Hub {
    /// Its hall's archive.
    pub(crate) fn archive(&self) -> PathBuf {
        self.dir.join("archive")
    }
}

/// A hub and its venues, built and running.
pub(crate) struct Lab {
    /// The venues (their processes stop before the hub's).
    pub(crate) venues: Vec<Venue>,
    /// The hub.
    pub(crate) hub: Hub,
    /// The lab's folder.
    pub(crate) dir: PathBuf,
    /// The `tengen` binary.
    pub(crate) tengen: PathBuf,
}

/// How the lab is made.
pub(crate) struct LabOptions {
    /// A short tag that keeps its namespaces and links apart from another lab's.
    pub(crate) tag: String,
    /// How many venues.
    pub(crate) venues: usize,
    /// Boards per venue (the broker accounts; what plays on them is the caller's).
    pub(crate) boards: usize,
    /// The halls' log level (`RUST_LOG`).
    pub(crate) log: String,
    /// The hub's `[broadcast]` section, if any (the delay at the hub).
    pub(crate) broadcast: Option<String>,
}

/// The interface names of venue `i`'s link: its own end, the hub's end.
fn devs(tag: &str, i: usize) -> (String, String) {
    (format!("t{tag}v{i}a"), format!("t{tag}v{i}b"))
}

/// The CA, and the hub's certificate for `ips`, made by openssl in `dir`.
fn certificates(dir: &Path, ips: &[String]) -> (PathBuf, PathBuf, PathBuf) {
    let ossl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ossl(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=lab hub CA",
    ]);
    ossl(&[
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "hub.key",
        "-out",
        "hub.csr",
        "-subj",
        "/CN=hub",
    ]);
    let san: Vec<String> = ips.iter().map(|ip| format!("IP:{ip}")).collect();
    std::fs::write(
        dir.join("hub.ext"),
        format!(
            "subjectAltName={}\nbasicConstraints=critical,CA:FALSE\n",
            san.join(",")
        ),
    )
    .expect("write hub.ext");
    ossl(&[
        "x509",
        "-req",
        "-in",
        "hub.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "hub.pem",
        "-days",
        "2",
        "-extfile",
        "hub.ext",
    ]);
    (dir.join("ca.pem"), dir.join("hub.pem"), dir.join("hub.key"))
}

/// `tengen broker-config ...` into `out`: each account's password.
fn broker_config(tengen: &Path, args: &[&str]) -> BTreeMap<String, String> {
    let out = Command::new(tengen)
        .arg("broker-config")
        .args(args)
        .output()
        .expect("tengen broker-config");
    assert!(
        out.status.success(),
        "broker-config {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(n, p)| (n.to_string(), p.to_string()))
        .collect()
}

/// The broker config `broker-config` wrote in `dir`, made to run here: the TLS listener's
/// files are the lab's (`tls`: CA, certificate, key; none: the TLS listener goes), the
/// plain listener on the namespace's loopback, persistence in `dir`, run as root, logged.
fn lab_conf(dir: &Path, tls: Option<(&Path, &Path, &Path)>) -> PathBuf {
    let conf = std::fs::read_to_string(dir.join("mosquitto.conf")).expect("the conf");
    let mut text = String::new();
    let mut in_tls = false;
    for line in conf.lines() {
        if line == "listener 8883" {
            in_tls = true;
        } else if line.is_empty() {
            in_tls = false;
        }
        let key = line.split_whitespace().next().unwrap_or_default();
        if in_tls && tls.is_none() {
            continue;
        }
        let replaced = match (key, tls) {
            ("cafile", Some((ca, _, _))) if in_tls => format!("cafile {}", ca.display()),
            ("certfile", Some((_, cert, _))) if in_tls => format!("certfile {}", cert.display()),
            ("keyfile", Some((_, _, k))) if in_tls => format!("keyfile {}", k.display()),
            _ if line == "listener 1883 127.0.0.1" => format!("listener {MQTT_PORT} 127.0.0.1"),
            ("connection", _) => {
                // The general options go before the bridge's section.
                text.push_str(&format!(
                    "persistence_location {}/\nuser root\nlog_dest file {}\n\n",
                    dir.display(),
                    dir.join("mosquitto.log").display()
                ));
                line.to_string()
            }
            _ => line.to_string(),
        };
        text.push_str(&replaced);
        text.push('\n');
    }
    if !text.contains("persistence_location") {
        text.push_str(&format!(
            "persistence_location {}/\nuser root\nlog_dest file {}\n",
            dir.display(),
            dir.join("mosquitto.log").display()
        ));
    }
    let path = dir.join("lab.conf");
    std::fs::write(&path, text).expect("write lab.conf");
    path
}

/// Writes `text` to `path`.
fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Waits until something listens on `127.0.0.1:port` in namespace `ns`.
pub(crate) fn wait_listening(ns: &str, port: u16, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if connect_in(ns, &format!("127.0.0.1:{port}")).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

impl Lab {
    /// Builds the namespaces and links, writes every config with `tengen broker-config`,
    /// and starts every broker and hall.
    pub(crate) fn start(tengen: &Path, dir: &Path, o: &LabOptions) -> Lab {
        let ids: Vec<String> = (1..=o.venues).map(|i| format!("v{i}")).collect();
        let hub_ips: Vec<String> = (1..=o.venues).map(|i| format!("10.77.{i}.1")).collect();
        let (ca, cert, key) = certificates(dir, &hub_ips);
        let hub_ns = Ns::new(format!("tengen-{}-hub", o.tag));
        // The hub's broker: an account per venue.
        let hub_dir = dir.join("hub");
        std::fs::create_dir_all(&hub_dir).expect("hub dir");
        let hub_pw = broker_config(
            tengen,
            &[
                "--venues",
                &ids.join(","),
                "--out",
                hub_dir.join("broker").to_str().expect("utf-8"),
            ],
        );
        let hub_conf = lab_conf(&hub_dir.join("broker"), Some((&ca, &cert, &key)));
        write(&hub_dir.join("hub-hall.pw"), &hub_pw["hub-hall"]);
        let venues_toml: Vec<String> = ids
            .iter()
            .map(|v| {
                format!(
                    "  {{id = \"{v}\", tournaments = [\"{TOURNAMENT}\"], boards = \
                     \"{v}-{{table:02}}\"}},"
                )
            })
            .collect();
        write(
            &hub_dir.join("hub.toml"),
            &format!(
                "[mqtt]\nusername = \"hub-hall\"\npassword_file = \"hub-hall.pw\"\n\
                 client_id = \"hub-hall\"\n\
                 [hall]\narchive_dir = \"archive\"\nvenues = [\n{}\n]\n{}\
                 [[arbiter]]\nname = \"{}\"\ntoken = \"{}\"\n",
                venues_toml.join("\n"),
                o.broadcast.clone().unwrap_or_default(),
                DIRECTOR.0,
                DIRECTOR.1
            ),
        );
        let mut venues = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let n = i + 1;
            let ns = Ns::new(format!("tengen-{}-{id}", o.tag));
            let (dev, hub_dev) = devs(&o.tag, n);
            run_quiet(&["ip", "link", "del", &dev]);
            run(&[
                "ip", "-n", &ns.0, "link", "add", &dev, "type", "veth", "peer", "name", &hub_dev,
                "netns", &hub_ns.0,
            ]);
            run(&[
                "ip",
                "-n",
                &ns.0,
                "addr",
                "add",
                &format!("10.77.{n}.2/24"),
                "dev",
                &dev,
            ]);
            run(&["ip", "-n", &ns.0, "link", "set", &dev, "up"]);
            run(&[
                "ip",
                "-n",
                &hub_ns.0,
                "addr",
                "add",
                &format!("10.77.{n}.1/24"),
                "dev",
                &hub_dev,
            ]);
            run(&["ip", "-n", &hub_ns.0, "link", "set", &hub_dev, "up"]);
            let vdir = dir.join(id);
            std::fs::create_dir_all(&vdir).expect("venue dir");
            write(&vdir.join("hub.pw"), &hub_pw[&format!("venue-{id}")]);
            let pw = broker_config(
                tengen,
                &[
                    "--boards",
                    &format!("{id}-{{table:02}}"),
                    "--count",
                    &o.boards.to_string(),
                    "--tournament",
                    TOURNAMENT,
                    "--out",
                    vdir.join("broker").to_str().expect("utf-8"),
                    "--venue",
                    id,
                    "--hub",
                    &format!("10.77.{n}.1:{HUB_TLS_PORT}"),
                    "--hub-password-file",
                    vdir.join("hub.pw").to_str().expect("utf-8"),
                    "--hub-ca",
                    ca.to_str().expect("utf-8"),
                ],
            );
            let conf = lab_conf(&vdir.join("broker"), None);
            write(&vdir.join("hall-desk.pw"), &pw["hall-desk"]);
            write(
                &vdir.join("hall.toml"),
                &format!(
                    "[mqtt]\nusername = \"hall-desk\"\npassword_file = \"hall-desk.pw\"\n\
                     client_id = \"hall-desk\"\n\
                     [hall]\nidentity = \"{id}-desk\"\narchive_dir = \"archive\"\n\
                     tournaments = [\"{TOURNAMENT}\"]\n\
                     [venue]\nid = \"{id}\"\n"
                ),
            );
            let boards = (1..=o.boards)
                .map(|t| {
                    let b = format!("{id}-{t:02}");
                    let p = pw[&b].clone();
                    (b, p)
                })
                .collect();
            let mosquitto = Proc::start(
                &ns.0,
                vec![MOSQUITTO.into(), "-c".into(), conf.display().to_string()],
                Vec::new(),
                vdir.join("mosquitto.out"),
            );
            assert!(
                wait_listening(&ns.0, MQTT_PORT, Duration::from_secs(10)),
                "venue {id}'s mosquitto did not start: {}",
                std::fs::read_to_string(vdir.join("broker/mosquitto.log")).unwrap_or_default()
            );
            let hall = hall_proc(tengen, &ns.0, &vdir, "hall.toml", &o.log);
            venues.push(Venue {
                id: id.clone(),
                ns,
                dev,
                mosquitto,
                hall,
                boards,
                dir: vdir,
            });
        }
        let mosquitto = Proc::start(
            &hub_ns.0,
            vec![
                MOSQUITTO.into(),
                "-c".into(),
                hub_conf.display().to_string(),
            ],
            Vec::new(),
            hub_dir.join("mosquitto.out"),
        );
        assert!(
            wait_listening(&hub_ns.0, MQTT_PORT, Duration::from_secs(10)),
            "the hub's mosquitto did not start: {}",
            std::fs::read_to_string(hub_dir.join("broker/mosquitto.log")).unwrap_or_default()
        );
        let hall = hall_proc(tengen, &hub_ns.0, &hub_dir, "hub.toml", &o.log);
        for v in &venues {
            assert!(
                wait_listening(&v.ns.0, HTTP_PORT, Duration::from_secs(20)),
                "venue {}'s hall did not start: {}",
                v.id,
                v.hall.log()
            );
        }
        assert!(
            wait_listening(&hub_ns.0, HTTP_PORT, Duration::from_secs(20)),
            "the hub's hall did not start: {}",
            hall.log()
        );
        Lab {
            venues,
            hub: Hub {
                ns: hub_ns,
                mosquitto,
                hall,
                dir: hub_dir,
            },
            dir: dir.to_path_buf(),
            tengen: tengen.to_path_buf(),
        }
    }

    /// Restarts a hall (after [`Proc::kill`] or [`Proc::stop`]) and waits for its HTTP.
    pub(crate) fn wait_hall(ns: &str, hall: &Proc) {
        assert!(
            wait_listening(ns, HTTP_PORT, Duration::from_secs(20)),
            "a hall did not start again: {}",
            hall.log()
        );
    }

    /// The director's view of the venues' links (`/api/console/venues`, `?boards=1`).
    pub(crate) fn venues_json(&self, cookie: &str, boards: bool) -> Option<Value> {
        let path = if boards {
            "/api/console/venues?boards=1"
        } else {
            "/api/console/venues"
        };
        let (status, _, body) = http(
            &self.hub.ns.0,
            HTTP_PORT,
            "GET",
            path,
            &[("Cookie", cookie)],
            "",
        );
        (status == 200)
            .then(|| serde_json::from_str(&body).ok())
            .flatten()
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for v in &mut self.venues {
            v.hall.kill();
            v.mosquitto.kill();
        }
        self.hub.hall.kill();
        self.hub.mosquitto.kill();
    }
}

/// `tengen hall` in namespace `ns` on `dir/config`.
fn hall_proc(tengen: &Path, ns: &str, dir: &Path, config: &str, log: &str) -> Proc {
    Proc::start(
        ns,
        vec![
            tengen.display().to_string(),
            "hall".into(),
            "--broker".into(),
            format!("mqtt://127.0.0.1:{MQTT_PORT}"),
            "--http".into(),
            format!("127.0.0.1:{HTTP_PORT}"),
            "--config".into(),
            dir.join(config).display().to_string(),
        ],
        vec![("RUST_LOG".into(), log.into())],
        dir.join("hall.log"),
    )
}

/// The chaos a venue's link can suffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// `ip link set DEV down`: nothing passes.
    Down,
    /// nftables drops this share (percent) of the packets both ways.
    Loss(u8),
    /// `tc tbf`: the link throttled to this many kbit/s (queues fill: delay, then drops).
    Throttle(u32),
}

impl Venue {
    /// Applies `cut` to the venue's link.
    pub(crate) fn cut(&self, cut: Cut) {
        let ns = &self.ns.0;
        match cut {
            Cut::Down => run(&["ip", "-n", ns, "link", "set", &self.dev, "down"]),
            Cut::Loss(pct) => {
                let nft = |args: &[&str]| {
                    let mut a = vec!["ip", "netns", "exec", ns, "nft"];
                    a.extend_from_slice(args);
                    run(&a);
                };
                nft(&["add", "table", "inet", "chaos"]);
                for (chain, hook, dir) in [("out", "output", "oifname"), ("in", "input", "iifname")]
                {
                    nft(&[
                        "add",
                        "chain",
                        "inet",
                        "chaos",
                        chain,
                        &format!("{{ type filter hook {hook} priority 0; }}"),
                    ]);
                    nft(&[
                        "add",
                        "rule",
                        "inet",
                        "chaos",
                        chain,
                        dir,
                        &self.dev,
                        "numgen",
                        "random",
                        "mod",
                        "100",
                        "<",
                        &pct.to_string(),
                        "drop",
                    ]);
                }
            }
            Cut::Throttle(kbit) => run(&[
                "tc",
                "-n",
                ns,
                "qdisc",
                "add",
                "dev",
                &self.dev,
                "root",
                "tbf",
                "rate",
                &format!("{kbit}kbit"),
                "burst",
                "16kbit",
                "latency",
                "3s",
            ]),
        }
    }

    /// Takes `cut` off the venue's link.
    pub(crate) fn mend(&self, cut: Cut) {
        let ns = &self.ns.0;
        match cut {
            Cut::Down => run(&["ip", "-n", ns, "link", "set", &self.dev, "up"]),
            Cut::Loss(_) => run(&[
                "ip", "netns", "exec", ns, "nft", "delete", "table", "inet", "chaos",
            ]),
            Cut::Throttle(_) => run(&["tc", "-n", ns, "qdisc", "del", "dev", &self.dev, "root"]),
        }
    }
}

/// Every board's events in an archive: `(tournament, board)` to `seq` to event.
pub(crate) type Held = BTreeMap<(String, String), BTreeMap<u64, Value>>;

/// Every event of every game an archive holds, per board: `(tournament, board)` to
/// `seq` to the event line as written (JSON, re-serialised so that key order does not
/// matter), with the count of lines that repeat a `seq` of their game.
pub(crate) fn read_archive(dir: &Path) -> (Held, u64) {
    let mut out = Held::new();
    let mut repeats = 0;
    let Ok(tournaments) = std::fs::read_dir(dir) else {
        return (out, 0);
    };
    for t in tournaments.flatten().filter(|e| e.path().is_dir()) {
        let Ok(boards) = std::fs::read_dir(t.path()) else {
            continue;
        };
        for b in boards.flatten().filter(|e| e.path().is_dir()) {
            let key = (
                t.file_name().to_string_lossy().into_owned(),
                b.file_name().to_string_lossy().into_owned(),
            );
            let Ok(games) = std::fs::read_dir(b.path()) else {
                continue;
            };
            for g in games.flatten() {
                if g.path().extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let text = std::fs::read_to_string(g.path()).unwrap_or_default();
                let mut seen = std::collections::BTreeSet::new();
                for line in text.lines() {
                    let Ok(v) = serde_json::from_str::<Value>(line) else {
                        continue;
                    };
                    let Some(seq) = v.get("seq").and_then(Value::as_u64) else {
                        continue;
                    };
                    if !seen.insert(seq) {
                        repeats += 1;
                    }
                    out.entry(key.clone()).or_default().insert(seq, v);
                }
            }
        }
    }
    (out, repeats)
}
