//! The public round feed (issue 24) through a whole simulated round, behind a cache:
//! `tengen rehearse` on the Juvisy file (`--round 1 --boards 4 --start --speed 20
//! --broadcast-delay 3 --violations 0`) as a child process, and nginx, run as a plain
//! process on the repository's own `config/nginx-feed.conf` and `config/nginx-feed-origin.conf`
//! (only their ports and folders replaced), in front of both of the feed's origins: one cache
//! proxying the hall's `/feed/...`, one proxying a static server on the rehearsal's
//! `[broadcast] export_dir`. Two followers, one per cache, poll the feed every 300 ms through
//! the whole round, as an outside site would: `tournament.json`, the round's `index.json`,
//! each game's `.sgf` whole and its `.json` by `Range: bytes={len-3}-` with `If-None-Match`.
//! The truth is the boards' own stream, read off the rehearsal's broker
//! (`tengen/rehearsal/{board}/events`), each message stamped when it arrived. It proves:
//!
//! - the delay: at every poll, for every game, the moves (`move` and `pass` events) in the
//!   events file, the index's `moves` and the record's moves are at most the moves the board
//!   had published when the response was read, minus 3, unless the board had ended the game
//!   (`release_at_end`); no private event (`alert`, `alert_cleared`, `sensor_fault`) ever
//!   shows; a live game's files say `max-age=1`; every answer carries `ETag` and
//!   `Last-Modified`, and a range request gets 206 or 304 only;
//! - at the end (all four games over in the index, with results; then confirmed by the
//!   arbiter, which changes their records): each game rebuilt from the range tails is byte for byte
//!   the whole file fetched fresh from the cache and from the hall, and, event for event,
//!   the board's public events of that game, as on the wire; the `.sgf`'s moves
//!   are the events' moves and the board's own record's (`boards/table-N/data/`), and its
//!   root names the board and tournament; every file of the export (and its gunzipped `.gz`)
//!   is the hall's bytes for the same path, and gzip through each cache and the hall unpacks
//!   to them; a game over and confirmed is still served live (`max-age=1`, never
//!   `immutable`: an arbiter may reopen it; issue 34) on all three paths, each with the
//!   hall's current bytes within seconds; a conditional GET with the current `ETag` gets
//!   304 with an empty body on all three.
//!
//! It prints polls, the share of 304s, the bytes per move per follower, how far the feed
//! lagged behind the delay, and how long it took (about a minute). Without nginx it says so
//! and is skipped, unless `TENGEN_REQUIRE_ORACLES=1`.

use crate::broker::{self, Msg, SubEvent, Subscriber};
use crate::http::{self, console_cookie, Resp};
use crate::rehearsal;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tengen_tournament::Tournament;

/// Where nginx is installed on Debian.
pub(crate) const NGINX: &str = "/usr/sbin/nginx";
/// `--broadcast-delay`.
const DELAY: usize = 3;
/// `--boards`.
const TABLES: usize = 4;
/// How often each follower polls.
const POLL_EVERY: Duration = Duration::from_millis(300);
/// The whole round must be over by then (it takes about a minute).
const ROUND_WITHIN: Duration = Duration::from_secs(180);
/// After the arbiter's confirmation, every path must serve the confirmed records by then.
const FINISHED_WITHIN: Duration = Duration::from_secs(20);
/// The events a board publishes that the public never sees.
const PRIVATE: [&str; 3] = ["alert", "alert_cleared", "sensor_fault"];
/// The literal strings of the two config files that the test replaces, and nothing else.
const CACHE_LISTEN: &str = "listen 8080;";
const CACHE_UPSTREAM: &str = "proxy_pass http://127.0.0.1:8081;";
const CACHE_FOLDER: &str = "/var/cache/nginx/tengen-feed";
const ORIGIN_LISTEN: &str = "listen 127.0.0.1:8081;";
const ORIGIN_ROOT: &str = "root /srv/tengen/export;";

/// An nginx process on its own config in a temporary folder; stopped (SIGQUIT, then
/// SIGKILL) on drop.
pub(crate) struct Nginx {
    child: Option<Child>,
    port: u16,
    origin_port: Option<u16>,
    dir: tempfile::TempDir,
}

impl Nginx {
    /// A cache (`config/nginx-feed.conf`) in front of `upstream`.
    pub(crate) fn cache_of(upstream: SocketAddr) -> Nginx {
        Nginx::start(&format!("127.0.0.1:{}", upstream.port()), None)
    }

    /// A cache in front of a static server (`config/nginx-feed-origin.conf`) on `export`,
    /// both in one nginx.
    pub(crate) fn cache_of_export(export: &Path) -> Nginx {
        let origin = broker::free_port();
        Nginx::start(&format!("127.0.0.1:{origin}"), Some((origin, export)))
    }

    fn start(upstream: &str, origin: Option<(u16, &Path)>) -> Nginx {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        std::fs::create_dir_all(d.join("tmp")).unwrap();
        let port = broker::free_port();
        let cache = replaced(
            &config_file("nginx-feed.conf"),
            &[
                (CACHE_LISTEN, &format!("listen 127.0.0.1:{port};")),
                (CACHE_UPSTREAM, &format!("proxy_pass http://{upstream};")),
                (CACHE_FOLDER, &d.join("cache").display().to_string()),
            ],
        );
        std::fs::write(d.join("feed.conf"), cache).unwrap();
        let mut includes = format!("    include {};\n", d.join("feed.conf").display());
        if let Some((origin_port, export)) = origin {
            let text = replaced(
                &config_file("nginx-feed-origin.conf"),
                &[
                    (ORIGIN_LISTEN, &format!("listen 127.0.0.1:{origin_port};")),
                    (ORIGIN_ROOT, &format!("root {};", export.display())),
                ],
            );
            std::fs::write(d.join("origin.conf"), text).unwrap();
            includes.push_str(&format!(
                "    include {};\n",
                d.join("origin.conf").display()
            ));
        }
        // Run as root (as here), nginx's workers would take `nobody`, who may not read the
        // temporary folders.
        // SAFETY: geteuid has no preconditions and cannot fail.
        let user = if unsafe { libc::geteuid() } == 0 {
            "user root;\n"
        } else {
            ""
        };
        // The feed's own `types` cover `.json` and `.sgf`: no mime.types needed.
        let conf = format!(
            "{user}daemon off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
             error_log {d}/error.log warn;\nevents {{ worker_connections 512; }}\n\
             http {{\n\
             \x20   log_format feed '$server_port \"$request\" $status $upstream_cache_status';\n\
             \x20   access_log {d}/access.log feed;\n\
             \x20   client_body_temp_path {d}/tmp/body;\n\
             \x20   proxy_temp_path {d}/tmp/proxy;\n\
             \x20   fastcgi_temp_path {d}/tmp/fastcgi;\n\
             \x20   uwsgi_temp_path {d}/tmp/uwsgi;\n\
             \x20   scgi_temp_path {d}/tmp/scgi;\n\
             {includes}}}\n",
            d = d.display()
        );
        let conf_path = d.join("nginx.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let child = Command::new(NGINX)
            .arg("-p")
            .arg(d)
            .arg("-c")
            .arg(&conf_path)
            .arg("-e")
            .arg(d.join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(
                std::fs::File::create(d.join("stderr.log")).unwrap(),
            ))
            .spawn()
            .expect("spawn nginx");
        let nginx = Nginx {
            child: Some(child),
            port,
            origin_port: origin.map(|(p, _)| p),
            dir,
        };
        let up = broker::wait_listening(port, Duration::from_secs(10))
            && nginx
                .origin_port
                .is_none_or(|p| broker::wait_listening(p, Duration::from_secs(10)));
        assert!(
            up,
            "nginx did not listen: {}\n{}",
            std::fs::read_to_string(nginx.dir.path().join("stderr.log")).unwrap_or_default(),
            std::fs::read_to_string(nginx.dir.path().join("error.log")).unwrap_or_default()
        );
        nginx
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// How many requests reached the static origin so far.
    pub(crate) fn origin_requests(&self) -> usize {
        let log = std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default();
        let origin = self.origin_port.map(|p| p.to_string());
        log.lines()
            .filter(|l| l.split_whitespace().next() == origin.as_deref())
            .count()
    }

    /// How the cache answered the followers (`$upstream_cache_status`: HIT, REVALIDATED,
    /// EXPIRED, MISS, UPDATING...), and how many requests reached the static origin.
    fn cache_report(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default();
        let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
        let mut origin = 0;
        for line in log.lines() {
            let port = line.split_whitespace().next().unwrap_or("");
            if Some(port) == self.origin_port.map(|p| p.to_string()).as_deref() {
                origin += 1;
                continue;
            }
            let status = line.rsplit(' ').next().unwrap_or("-").to_string();
            *statuses.entry(status).or_default() += 1;
        }
        let mut out: Vec<String> = statuses.iter().map(|(s, n)| format!("{s} {n}")).collect();
        if self.origin_port.is_some() {
            out.push(format!("static origin asked {origin} times"));
        }
        out.join(", ")
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SAFETY: kill with the pid of our own child, still unreaped.
            unsafe {
                libc::kill(c.id() as libc::pid_t, libc::SIGQUIT);
            }
            let until = Instant::now() + Duration::from_secs(3);
            while Instant::now() < until {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A file of the repository's `config/`.
fn config_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../config")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `text` with each `from` (which must be there) replaced by its `to`.
fn replaced(text: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = text.to_string();
    for (from, to) in pairs {
        assert!(
            out.contains(from),
            "the config no longer holds `{from}`, which the test replaces: {text}"
        );
        out = out.replace(from, to);
    }
    out
}

/// `gzip -dc` of `bytes`.
fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut child = Command::new("gzip")
        .arg("-dc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run gzip");
    let mut stdin = child.stdin.take().unwrap();
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    assert!(out.status.success(), "gzip -dc failed");
    out.stdout
}

/// A round or table as text, whether the feed gives it as a number or a string.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The number of `move` and `pass` events (what the delay counts).
fn move_events(events: &[Value]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e["type"].as_str(), Some("move") | Some("pass")))
        .count()
}

/// The game's moves as (colour, GTP point or `pass`), retracted moves taken out.
fn moves_of_events(events: &[Value]) -> Vec<(String, String)> {
    let mut moves: Vec<(u64, String, String)> = Vec::new();
    for e in events {
        let number = e["number"].as_u64().unwrap_or(0);
        match e["type"].as_str() {
            Some("move") => moves.push((
                number,
                text_of(&e["color"]),
                e["point"].as_str().unwrap_or("?").to_string(),
            )),
            Some("pass") => moves.push((number, text_of(&e["color"]), "pass".into())),
            Some("move_retracted") => moves.retain(|(n, _, _)| *n != number),
            _ => {}
        }
    }
    moves.into_iter().map(|(_, c, p)| (c, p)).collect()
}

/// The main line of an SGF as (colour, GTP point or `pass`).
fn moves_of_sgf(text: &str) -> Result<Vec<(String, String)>, tengen_rules::sgf::SgfError> {
    let record = tengen_rules::sgf::parse(text)?;
    Ok(record
        .moves
        .iter()
        .map(|m| (m.color.letter().to_string(), m.mv.to_gtp()))
        .collect())
}

/// One file as a follower holds it.
#[derive(Default, Clone)]
struct Doc {
    body: Vec<u8>,
    etag: Option<String>,
}

/// One game of the index, as a follower follows it.
#[derive(Default)]
struct Followed {
    game: String,
    board: String,
    sgf_url: String,
    events_url: String,
    events: Doc,
    sgf: Doc,
}

/// What one poll saw of one game, and when its response was read.
struct Seen {
    at: Instant,
    game: String,
    what: &'static str,
    moves: usize,
    over: bool,
}

/// The counts of one follower.
#[derive(Default)]
struct Counts {
    polls: usize,
    requests: usize,
    not_modified: usize,
    partial: usize,
    bytes: usize,
}

/// An outside site polling the feed through one cache.
struct Follower {
    name: &'static str,
    addr: SocketAddr,
    tournament: Doc,
    index: Doc,
    index_url: Option<String>,
    games: BTreeMap<String, Followed>,
    counts: Counts,
    seen: Vec<Seen>,
    problems: Vec<String>,
}

impl Follower {
    fn new(name: &'static str, addr: SocketAddr) -> Follower {
        Follower {
            name,
            addr,
            tournament: Doc::default(),
            index: Doc::default(),
            index_url: None,
            games: BTreeMap::new(),
            counts: Counts::default(),
            seen: Vec::new(),
            problems: Vec::new(),
        }
    }

    fn problem(&mut self, text: String) {
        if self.problems.len() < 50 {
            self.problems.push(format!("{}: {text}", self.name));
        }
    }

    /// One GET, counted, with when its response was read whole.
    async fn get(&mut self, path: &str, headers: &[(&str, &str)]) -> (Resp, Instant) {
        let r = http::get(self.addr, path, headers).await;
        let at = Instant::now();
        self.counts.requests += 1;
        self.counts.bytes += r.head.len() + 4 + r.body.len();
        match r.status {
            304 => self.counts.not_modified += 1,
            206 => self.counts.partial += 1,
            _ => {}
        }
        if matches!(r.status, 200 | 206) {
            for h in ["etag", "last-modified", "cache-control"] {
                if r.header(h).is_none() {
                    self.problem(format!("{path}: {} without {h}: {}", r.status, r.head));
                }
            }
        }
        (r, at)
    }

    /// A whole file, asked again with its `ETag`: whether it changed.
    async fn refresh(&mut self, path: &str, doc: &mut Doc) -> (Resp, Instant) {
        let tag = doc.etag.clone();
        let mut headers = Vec::new();
        if let Some(t) = &tag {
            headers.push(("If-None-Match", t.as_str()));
        }
        let (r, at) = self.get(path, &headers).await;
        match r.status {
            200 => {
                doc.body = r.body.clone();
                doc.etag = r.header("etag");
            }
            304 if tag.is_some() => {}
            404 if tag.is_none() => {}
            s => self.problem(format!("{path}: {s} {}", r.text())),
        }
        (r, at)
    }

    /// One poll of the whole feed.
    async fn poll(&mut self) {
        self.counts.polls += 1;
        let mut doc = std::mem::take(&mut self.tournament);
        self.refresh("/feed/tournament.json", &mut doc).await;
        self.tournament = doc;
        if self.tournament.body.is_empty() {
            return;
        }
        let Ok(t) = serde_json::from_slice::<Value>(&self.tournament.body) else {
            let text = String::from_utf8_lossy(&self.tournament.body).into_owned();
            self.problem(format!("tournament.json is not JSON: {text}"));
            return;
        };
        let url = t["rounds"].as_array().and_then(|rounds| {
            rounds
                .iter()
                .find(|r| text_of(&r["round"]) == "1")
                .and_then(|r| r["url"].as_str().map(str::to_string))
        });
        let Some(url) = url else {
            return;
        };
        if url != "/feed/round/1/index.json" {
            self.problem(format!("round 1's url is {url}"));
        }
        self.index_url = Some(url.clone());
        let mut doc = std::mem::take(&mut self.index);
        let (_, index_at) = self.refresh(&url, &mut doc).await;
        self.index = doc;
        if self.index.body.is_empty() {
            return;
        }
        let Ok(index) = serde_json::from_slice::<Value>(&self.index.body) else {
            let text = String::from_utf8_lossy(&self.index.body).into_owned();
            self.problem(format!("{url} is not JSON: {text}"));
            return;
        };
        let games = index["games"].as_array().cloned().unwrap_or_default();
        for g in &games {
            let table = text_of(&g["table"]);
            let entry = self.games.entry(table.clone()).or_default();
            entry.game = g["game"].as_str().unwrap_or_default().to_string();
            entry.board = g["board"].as_str().unwrap_or_default().to_string();
            entry.sgf_url = g["sgf"].as_str().unwrap_or_default().to_string();
            entry.events_url = g["events"].as_str().unwrap_or_default().to_string();
            let (game, sgf_url, events_url) = (
                entry.game.clone(),
                entry.sgf_url.clone(),
                entry.events_url.clone(),
            );
            if sgf_url != format!("/feed/round/1/{table}.sgf")
                || events_url != format!("/feed/round/1/{table}.json")
            {
                self.problem(format!("table {table}: links {sgf_url} {events_url}"));
            }
            self.seen.push(Seen {
                at: index_at,
                game,
                what: "index moves",
                moves: g["moves"].as_u64().unwrap_or(0) as usize,
                over: g["state"] == "over",
            });
        }
        let tables: Vec<String> = self.games.keys().cloned().collect();
        for table in tables {
            self.follow_events(&table).await;
            self.follow_sgf(&table).await;
        }
    }

    /// A game's events: the bytes after the ones in hand (`Range` + `If-None-Match`), or
    /// the whole file the first time.
    async fn follow_events(&mut self, table: &str) {
        let (url, mut doc, game) = {
            let g = &self.games[table];
            (g.events_url.clone(), g.events.clone(), g.game.clone())
        };
        let at = if doc.body.len() < 3 {
            let (r, at) = self.get(&url, &[]).await;
            match r.status {
                200 => {
                    doc.etag = r.header("etag");
                    doc.body = r.body.clone();
                    self.check_live(&url, &r, &doc.body);
                }
                404 => return,
                s => {
                    self.problem(format!("{url}: {s} {}", r.text()));
                    return;
                }
            }
            at
        } else {
            let from = doc.body.len() - 3;
            let range = format!("bytes={from}-");
            let tag = doc.etag.clone().unwrap_or_default();
            let (r, at) = self
                .get(&url, &[("Range", &range), ("If-None-Match", &tag)])
                .await;
            match r.status {
                304 => {}
                206 => {
                    let content_range = r.header("content-range").unwrap_or_default();
                    let total = from + r.body.len();
                    let expected = format!("bytes {from}-{}/{total}", total - 1);
                    if content_range != expected {
                        self.problem(format!(
                            "{url}: Content-Range {content_range:?}, not {expected:?}"
                        ));
                    }
                    doc.body.truncate(from);
                    doc.body.extend_from_slice(&r.body);
                    doc.etag = r.header("etag");
                    self.check_live(&url, &r, &doc.body);
                }
                s => {
                    self.problem(format!(
                        "{url}: {s} to Range {range} + If-None-Match {tag} ({} bytes)",
                        r.body.len()
                    ));
                    if s == 200 {
                        doc.body = r.body.clone();
                        doc.etag = r.header("etag");
                    }
                }
            }
            at
        };
        match serde_json::from_slice::<Vec<Value>>(&doc.body) {
            Ok(events) => {
                let private: Vec<&Value> = events
                    .iter()
                    .filter(|e| PRIVATE.contains(&e["type"].as_str().unwrap_or("")))
                    .collect();
                if !private.is_empty() {
                    self.problem(format!("{url}: private events {private:?}"));
                }
                let over = events.iter().any(|e| e["type"] == "game_over");
                self.seen.push(Seen {
                    at,
                    game,
                    what: "events",
                    moves: move_events(&events),
                    over,
                });
            }
            Err(e) => {
                let text = String::from_utf8_lossy(&doc.body).into_owned();
                self.problem(format!(
                    "{url} as assembled is not a JSON array ({e}): {text}"
                ));
            }
        }
        if let Some(g) = self.games.get_mut(table) {
            g.events = doc;
        }
    }

    /// A game's record, whole, asked again with its `ETag`.
    async fn follow_sgf(&mut self, table: &str) {
        let (url, mut doc, game) = {
            let g = &self.games[table];
            (g.sgf_url.clone(), g.sgf.clone(), g.game.clone())
        };
        let (r, at) = self.refresh(&url, &mut doc).await;
        if r.status == 200 {
            self.check_live(&url, &r, &doc.body);
        }
        if !doc.body.is_empty() {
            match tengen_rules::sgf::parse(&String::from_utf8_lossy(&doc.body)) {
                Ok(record) => self.seen.push(Seen {
                    at,
                    game,
                    what: "sgf moves",
                    moves: record.moves.len(),
                    // A result in the record: the game is over as far as the feed says.
                    over: record.result.is_some(),
                }),
                Err(e) => self.problem(format!("{url}: not an SGF ({e})")),
            }
        }
        if let Some(g) = self.games.get_mut(table) {
            g.sgf = doc;
        }
    }

    /// A game file of a game not over says `max-age=1`, never `immutable`.
    fn check_live(&mut self, url: &str, r: &Resp, body: &[u8]) {
        let cache = r.header("cache-control").unwrap_or_default();
        let text = String::from_utf8_lossy(body);
        let over = text.contains("\"game_over\"") || text.contains("RE[");
        if !over && (cache.contains("immutable") || !cache.contains("max-age=1")) {
            self.problem(format!(
                "{url}: a live game served with Cache-Control {cache:?}"
            ));
        }
    }

    /// Every game of the index over, with a result, and its events file ending the game.
    fn round_over(&self) -> bool {
        let Ok(index) = serde_json::from_slice::<Value>(&self.index.body) else {
            return false;
        };
        let games = index["games"].as_array().cloned().unwrap_or_default();
        games.len() >= TABLES
            && games
                .iter()
                .all(|g| g["state"] == "over" && g["result"].is_string())
            && self
                .games
                .values()
                .all(|g| String::from_utf8_lossy(&g.events.body).contains("\"type\":\"game_over\""))
    }
}

/// The boards' own stream, as the rehearsal's broker delivered it.
#[derive(Default)]
struct Truth {
    /// Events by game, in `seq` order, each with when it arrived.
    games: HashMap<String, Vec<(Value, Instant)>>,
}

impl Truth {
    fn of(messages: &[Msg]) -> Truth {
        let mut by_board: HashMap<String, BTreeMap<u64, (Value, Instant)>> = HashMap::new();
        for m in messages {
            if !m.topic.ends_with("/events") {
                continue;
            }
            let Ok(e) = serde_json::from_slice::<Value>(&m.payload) else {
                continue;
            };
            let board = e["board"].as_str().unwrap_or_default().to_string();
            let seq = e["seq"].as_u64().unwrap_or(0);
            // A message sent again (QoS 1) keeps its first arrival.
            by_board
                .entry(board)
                .or_default()
                .entry(seq)
                .or_insert((e, m.at));
        }
        let mut games: HashMap<String, Vec<(Value, Instant)>> = HashMap::new();
        for events in by_board.into_values() {
            for (e, at) in events.into_values() {
                let game = e["game"].as_str().unwrap_or_default().to_string();
                games.entry(game).or_default().push((e, at));
            }
        }
        Truth { games }
    }

    /// The game's public events, as the feed must hold them.
    fn public_events(&self, game: &str) -> Vec<Value> {
        self.games
            .get(game)
            .map(|events| {
                events
                    .iter()
                    .filter(|(e, _)| !PRIVATE.contains(&e["type"].as_str().unwrap_or("")))
                    .map(|(e, _)| e.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// When each `move` or `pass` of the game arrived, in order.
    fn move_arrivals(&self, game: &str) -> Vec<Instant> {
        self.games
            .get(game)
            .map(|events| {
                events
                    .iter()
                    .filter(|(e, _)| matches!(e["type"].as_str(), Some("move") | Some("pass")))
                    .map(|(_, at)| *at)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// When the game's `game_over` arrived.
    fn over_at(&self, game: &str) -> Option<Instant> {
        self.games.get(game).and_then(|events| {
            events
                .iter()
                .find(|(e, _)| e["type"] == "game_over")
                .map(|(_, at)| *at)
        })
    }
}

/// How far behind what the delay allowed a follower's events files were while the games
/// were live, in moves.
struct Lag {
    mean: f64,
    max: usize,
    /// Polls that showed exactly as many moves as the delay allowed.
    at_limit: usize,
}

/// Checks every poll of `f` against the boards' stream: the problems, and the lag.
fn check_delay(f: &Follower, truth: &Truth) -> (Vec<String>, Lag) {
    let mut problems = Vec::new();
    let mut lags = Vec::new();
    let arrivals: HashMap<&str, (Vec<Instant>, Option<Instant>)> = f
        .seen
        .iter()
        .map(|s| s.game.as_str())
        .map(|g| (g, (truth.move_arrivals(g), truth.over_at(g))))
        .collect();
    for s in &f.seen {
        let (moves, over_at) = &arrivals[s.game.as_str()];
        let over = over_at.is_some_and(|t| t <= s.at);
        if over {
            continue;
        }
        let published = moves.iter().filter(|t| **t <= s.at).count();
        let allowed = published.saturating_sub(DELAY);
        if s.over {
            problems.push(format!(
                "{}: {} of {} says the game is over before its board's game_over arrived ({})",
                f.name,
                s.what,
                s.game,
                match over_at {
                    Some(t) => format!("{} ms later", t.duration_since(s.at).as_millis()),
                    None => "never".into(),
                }
            ));
        }
        if s.moves > allowed {
            // The move that, published, would have allowed this one.
            let needed = moves.get(s.moves + DELAY - 1);
            problems.push(format!(
                "{}: {} of {} shows {} moves when the board had published {published} \
                 (at most {allowed} allowed; move {} arrived {})",
                f.name,
                s.what,
                s.game,
                s.moves,
                s.moves + DELAY,
                match needed {
                    Some(t) => format!(
                        "{} ms after the response",
                        t.duration_since(s.at).as_millis()
                    ),
                    None => "never".into(),
                }
            ));
        } else if s.what == "events" {
            lags.push(allowed - s.moves);
        }
    }
    let lag = Lag {
        mean: if lags.is_empty() {
            0.0
        } else {
            lags.iter().sum::<usize>() as f64 / lags.len() as f64
        },
        max: lags.iter().copied().max().unwrap_or(0),
        at_limit: lags.iter().filter(|l| **l == 0).count(),
    };
    (problems, lag)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_round_feed_follows_a_whole_round_behind_the_delay_through_a_cache() {
    if !Path::new(NGINX).exists() {
        assert!(
            !broker::oracles_required(),
            "{NGINX} is missing and TENGEN_REQUIRE_ORACLES=1: install nginx"
        );
        eprintln!("skipped: {NGINX} is not installed (apt-get install nginx)");
        return;
    }
    let started = Instant::now();
    let work = tempfile::tempdir().unwrap();
    let file = rehearsal::juvisy_in(work.path());
    let folder = work.path().join("rehearsal");
    let mqtt = format!("127.0.0.1:{}", broker::free_port());
    let delay = DELAY.to_string();
    let (_process, lines) = rehearsal::launch(
        &file,
        &folder,
        &mqtt,
        &["--violations", "0", "--broadcast-delay", &delay],
    );

    // The truth: every event the boards publish, stamped as it arrives (from before the
    // round is started: the subscriber retries until the rehearsal's broker is up).
    let mut sub = Subscriber::connect(
        &format!("mqtt://{mqtt}"),
        "round-feed-truth",
        &["tengen/rehearsal/+/events"],
    )
    .await;
    let messages: Arc<Mutex<Vec<Msg>>> = Arc::default();
    let collector = {
        let messages = messages.clone();
        tokio::spawn(async move {
            while let Some(ev) = sub.next_event(Duration::from_secs(3600)).await {
                if let SubEvent::Msg(m) = ev {
                    messages.lock().unwrap().push(m);
                }
            }
        })
    };

    let banner = tokio::task::spawn_blocking(move || {
        let banner = rehearsal::banner(&lines);
        // The rest of the output, echoed, until the rehearsal ends.
        std::thread::spawn(move || while lines.recv().is_ok() {});
        banner
    })
    .await
    .unwrap();
    let hall = rehearsal::hall_addr(&banner);
    let feed = rehearsal::field(&banner, "feed");
    assert!(
        feed.starts_with(&format!("http://{hall}/feed/tournament.json")),
        "{feed}"
    );
    let export = PathBuf::from(
        rehearsal::field(&banner, "export")
            .split("   ")
            .next()
            .unwrap(),
    );
    assert_eq!(export, folder.join("export"));
    let hall_toml = std::fs::read_to_string(folder.join("hall.toml")).unwrap();
    assert!(
        hall_toml.contains("[broadcast]\ndelay_moves = 3\n") && hall_toml.contains("export_dir"),
        "{hall_toml}"
    );

    let hall_cache = Nginx::cache_of(hall);
    let export_cache = Nginx::cache_of_export(&export);
    let mut followers = [
        Follower::new("hall cache", hall_cache.addr()),
        Follower::new("export cache", export_cache.addr()),
    ];

    // The round, followed through both caches until every game is over in the feed.
    let over_by = Instant::now() + ROUND_WITHIN;
    loop {
        let next = tokio::time::Instant::now() + POLL_EVERY;
        let [a, b] = &mut followers;
        tokio::join!(a.poll(), b.poll());
        if followers.iter().all(Follower::round_over) {
            break;
        }
        assert!(
            Instant::now() < over_by,
            "the round is not over in the feed after {ROUND_WITHIN:?}: {}",
            followers
                .iter()
                .map(|f| format!("{}: {}", f.name, String::from_utf8_lossy(&f.index.body)))
                .collect::<Vec<_>>()
                .join("\n")
        );
        tokio::time::sleep_until(next).await;
    }
    let round_over_after = started.elapsed();

    // The arbiter confirms the results: the records change, and stay live (an arbiter may
    // still reopen a game until its board begins a later one).
    let (name, password) = rehearsal::login(&banner);
    let cookie = console_cookie(hall, &name, &password).await;
    rehearsal::confirm_all(hall, &cookie).await;

    // Every path serves the hall's current bytes of the four games, live; the followers go
    // on polling meanwhile.
    let paths = [
        ("hall", hall),
        ("hall cache", hall_cache.addr()),
        ("export cache", export_cache.addr()),
    ];
    let game_urls: Vec<String> = followers[0]
        .games
        .values()
        .flat_map(|g| [g.sgf_url.clone(), g.events_url.clone()])
        .collect();
    let finished_by = Instant::now() + FINISHED_WITHIN;
    let mut problems: Vec<String> = Vec::new();
    loop {
        let mut live = Vec::new();
        for (name, addr) in paths {
            for url in &game_urls {
                let r = http::get(addr, url, &[]).await;
                let cache = r.header("cache-control").unwrap_or_default();
                let theirs = http::get(hall, url, &[]).await;
                let hall_tag = theirs.header("etag");
                // The hall's record says what the arbiter confirmed.
                let confirmed = !url.ends_with(".sgf") || theirs.text().contains("TENGENRESULT[");
                if r.status != 200 || cache != "max-age=1" || r.body != theirs.body || !confirmed {
                    live.push(format!(
                        "{name} {url}: {} Cache-Control {cache:?}, ETag {:?} (the hall's now \
                         {hall_tag:?}), X-Cache-Status {:?}",
                        r.status,
                        r.header("etag"),
                        r.header("x-cache-status")
                    ));
                }
            }
        }
        if live.is_empty() {
            break;
        }
        if Instant::now() >= finished_by {
            problems.push(format!(
                "{FINISHED_WITHIN:?} after the results were confirmed, not served live with \
                 the hall's bytes:"
            ));
            problems.extend(live);
            break;
        }
        let [a, b] = &mut followers;
        tokio::join!(a.poll(), b.poll());
        tokio::time::sleep(POLL_EVERY).await;
    }
    // One more poll each, to take whatever the confirmation changed.
    let [a, b] = &mut followers;
    tokio::join!(a.poll(), b.poll());
    collector.abort();
    let truth = Truth::of(&messages.lock().unwrap());

    let mut figures = Vec::new();
    let total_moves: usize = followers[0]
        .games
        .values()
        .map(|g| move_events(&truth.public_events(&g.game)))
        .sum();
    for f in &followers {
        problems.extend(f.problems.iter().cloned());
        let (late, lag) = check_delay(f, &truth);
        problems.extend(late);
        if lag.at_limit == 0 {
            problems.push(format!(
                "{}: no poll saw a game exactly at the delay's limit: the check of the delay \
                 proved nothing",
                f.name
            ));
        }
        let c = &f.counts;
        figures.push(format!(
            "{}: {} polls, {} requests, {:.0}% 304, {} range tails, {} bytes = {:.0} bytes per \
             move; behind the delay's limit by {:.1} moves on average (at most {}; at the \
             limit in {} polls)",
            f.name,
            c.polls,
            c.requests,
            100.0 * c.not_modified as f64 / c.requests.max(1) as f64,
            c.partial,
            c.bytes,
            c.bytes as f64 / total_moves.max(1) as f64,
            lag.mean,
            lag.max,
            lag.at_limit,
        ));
    }

    // Each game, rebuilt from the feed, is the board's game.
    let tournament = Tournament::read(&file).unwrap();
    assert_eq!(
        followers[0].games.len(),
        TABLES,
        "the index's tables: {:?}",
        followers[0].games.keys().collect::<Vec<_>>()
    );
    for (table, g) in &followers[0].games {
        let truth_events = truth.public_events(&g.game);
        assert!(
            truth_events
                .first()
                .is_some_and(|e| e["type"] == "game_started"),
            "table {table}: the broker's stream of {} does not begin with game_started (the \
             subscriber came too late?): {:?}",
            g.game,
            truth_events.first()
        );
        let board_sgf = folder
            .join("boards")
            .join(format!("table-{table}"))
            .join("data")
            .join(format!("game-{}.sgf", g.game));
        let board_moves = moves_of_sgf(&std::fs::read_to_string(&board_sgf).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", board_sgf.display()));
        let truth_moves = moves_of_events(&truth_events);
        if truth_moves != board_moves {
            problems.push(format!(
                "table {table}: the broker's events and the board's record differ: {} vs {} \
                 moves",
                truth_moves.len(),
                board_moves.len()
            ));
        }
        for f in &followers {
            let Some(fg) = f.games.get(table) else {
                problems.push(format!("{}: no table {table}", f.name));
                continue;
            };
            let events: Vec<Value> = serde_json::from_slice(&fg.events.body).unwrap_or_default();
            if events != truth_events {
                let at = events
                    .iter()
                    .zip(&truth_events)
                    .position(|(a, b)| a != b)
                    .unwrap_or(events.len().min(truth_events.len()));
                problems.push(format!(
                    "{}: table {table}: the events rebuilt from the feed ({}) are not the \
                     board's public events ({}); first difference at {at}: {:?} vs {:?}",
                    f.name,
                    events.len(),
                    truth_events.len(),
                    events.get(at),
                    truth_events.get(at)
                ));
            }
            for (name, addr) in [(f.name, f.addr), ("hall", hall)] {
                let whole = http::get(addr, &fg.events_url, &[]).await;
                if whole.body != fg.events.body {
                    problems.push(format!(
                        "{}: table {table}: the events rebuilt from range tails ({} bytes) \
                         differ from the whole file fetched fresh from the {name} ({} bytes)",
                        f.name,
                        fg.events.body.len(),
                        whole.body.len()
                    ));
                }
            }
            let sgf_text = String::from_utf8_lossy(&fg.sgf.body).into_owned();
            match moves_of_sgf(&sgf_text) {
                Ok(m) if m == truth_moves => {}
                Ok(m) => problems.push(format!(
                    "{}: table {table}: the record's {} moves are not the events' {}",
                    f.name,
                    m.len(),
                    truth_moves.len()
                )),
                Err(e) => problems.push(format!("{}: table {table}: {e}", f.name)),
            }
            let record = tengen_rules::sgf::parse(&sgf_text).ok();
            let root = |key: &str| {
                record.as_ref().and_then(|r| {
                    r.extra_root
                        .iter()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| v.clone())
                })
            };
            if root("TENGENBOARD").as_deref() != Some(g.board.as_str())
                || root("TENGENTOURNAMENT").as_deref() != Some("rehearsal")
            {
                problems.push(format!(
                    "{}: table {table}: the record's root names board {:?}, tournament {:?}",
                    f.name,
                    root("TENGENBOARD"),
                    root("TENGENTOURNAMENT")
                ));
            }
        }
        // The players of the pairing, in the index.
        let index: Value = serde_json::from_slice(&followers[0].index.body).unwrap();
        let line = index["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| text_of(&l["table"]) == *table)
            .unwrap()
            .clone();
        let pairing = tournament
            .round(1)
            .iter()
            .find(|p| p.table.to_string() == *table)
            .unwrap_or_else(|| panic!("no table {table} in round 1"))
            .clone();
        assert_eq!(line["black"], pairing.black.display_name(), "{line}");
        assert_eq!(line["white"], pairing.white.display_name(), "{line}");
        assert_eq!(line["board"], g.board, "{line}");
        assert_eq!(
            line["moves"],
            json!(truth_moves.len()),
            "table {table}: {line}"
        );
        let over = truth_events.iter().find(|e| e["type"] == "game_over");
        assert_eq!(
            line["result"],
            over.map(|e| e["result"].clone()).unwrap_or_default(),
            "table {table}: {line}"
        );
    }

    // The export holds the hall's bytes at the same paths, gzipped beside; gzip through
    // each path unpacks to them; an unchanged file costs a 304 and no body.
    let index_url = followers[0].index_url.clone().unwrap();
    let mut files = vec!["/feed/tournament.json".to_string(), index_url];
    files.extend(game_urls.iter().cloned());
    for url in &files {
        let plain = http::get(hall, url, &[]).await;
        assert_eq!(plain.status, 200, "{url}");
        let kind = if url.ends_with(".sgf") {
            "application/x-go-sgf"
        } else {
            "application/json"
        };
        let on_disk = export.join(url.trim_start_matches('/'));
        let disk = std::fs::read(&on_disk).unwrap_or_default();
        if disk != plain.body {
            problems.push(format!(
                "{}: {} bytes, the hall serves {} at {url}",
                on_disk.display(),
                disk.len(),
                plain.body.len()
            ));
        }
        let gz_path = PathBuf::from(format!("{}.gz", on_disk.display()));
        match std::fs::read(&gz_path) {
            Ok(gz) if gunzip(&gz) == plain.body => {}
            Ok(_) => problems.push(format!("{}: not the file gzipped", gz_path.display())),
            Err(e) => problems.push(format!("{}: {e}", gz_path.display())),
        }
        for (name, addr) in paths {
            let r = http::get(addr, url, &[]).await;
            if r.body != plain.body {
                problems.push(format!("{name} {url}: not the hall's bytes"));
            }
            let content_type = r.header("content-type").unwrap_or_default();
            if !content_type.starts_with(kind) {
                problems.push(format!("{name} {url}: Content-Type {content_type:?}"));
            }
            let gz = http::get(addr, url, &[("Accept-Encoding", "gzip")]).await;
            if gz.header("content-encoding").as_deref() != Some("gzip") {
                problems.push(format!("{name} {url}: not gzipped when asked: {}", gz.head));
            } else if gunzip(&gz.body) != plain.body {
                problems.push(format!("{name} {url}: the gzip is not the file"));
            }
            let tag = r.header("etag").unwrap_or_default();
            let again = http::get(addr, url, &[("If-None-Match", &tag)]).await;
            if again.status != 304 || !again.body.is_empty() {
                problems.push(format!(
                    "{name} {url}: If-None-Match {tag} got {} with {} bytes",
                    again.status,
                    again.body.len()
                ));
            }
        }
    }

    for f in &figures {
        eprintln!("round feed: {f}");
    }
    eprintln!(
        "round feed: hall cache: {}; export cache: {}",
        hall_cache.cache_report(),
        export_cache.cache_report()
    );
    eprintln!(
        "round feed: {TABLES} games, {total_moves} moves at x20 behind a {DELAY}-move delay; \
         the feed said the round was over after {round_over_after:?}, all checked after {:?}",
        started.elapsed()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
