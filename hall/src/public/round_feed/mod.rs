//! The public round feed (docs/round-feed.md): every
//! game of every round as the public may see it (behind the broadcast delay), as files a
//! tournament site, a relay or a viewer's own tool polls, and a CDN carries:
//!
//! | path | what |
//! |---|---|
//! | `/feed/tournament.json` | the tournament and its rounds |
//! | `/feed/round/{round}/index.json` | the round's games: players, state, moves, result, links |
//! | `/feed/round/{round}/{table}.sgf` | a game's public record |
//! | `/feed/round/{round}/{table}.json` | a game's public events, one per line, growing at the end |
//!
//! The games are the rounds' ([`round_games::round_games`]: the boards' current games from
//! their public side, the archive's once released), so the feed shows exactly what
//! `/round/{round}.zip` holds. [`RoundFeed::refresh`] writes again only the games whose
//! public events changed (a board's public `seq`, an archived game's events, an arbiter's
//! confirmed result), and keeps a file whose bytes did not change as it was: its `ETag`
//! and `Last-Modified` stay, so a poll between two moves costs headers only. Each file is
//! gzipped once, when it changes.
//!
//! A game's files are *finished* (served `immutable` for a year) once it is over and its
//! board has begun a later game: a board reopens only its current game. Until then an
//! arbiter may still reopen it, confirmed or not, so it is served as live (`max-age=1`;
//! issue 34). What can still change a finished game's record is a correction of its
//! confirmed result: docs/round-feed.md says how that reaches viewers.
//!
//! Built from [`Sources`] alone (no HTTP): the hall serves the files (`routes/round_feed/`)
//! and `[broadcast] export_dir` holds the same bytes at the same paths
//! ([`super::static_export`]).

pub(crate) mod game_files;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use axum::body::Bytes;
use serde_json::{json, Value};
use tengen_protocol::topics::BoardKey;
use tengen_protocol::Envelope;

use crate::boards::archive;
use crate::boards::hall_state::lock;
use crate::public::round_games::{self, sanitize, RoundGame};
use crate::public::Sources;
use game_files::{game_files, number_or_text, GameFiles};

/// The version of the feed's format (`"format"` in `tournament.json` and each index); a
/// change a reader could trip on gets a new one (docs/round-feed.md).
pub(crate) const FORMAT: u32 = 1;

/// How old the feed may be when the hall serves it: a request after that refreshes it first.
const FRESH: Duration = Duration::from_millis(200);

/// What a file of the feed is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// `tournament.json`, an index or a game's events.
    Json,
    /// A game's record.
    Sgf,
}

impl FileKind {
    /// Its `Content-Type`.
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            FileKind::Json => "application/json; charset=utf-8",
            FileKind::Sgf => "application/x-go-sgf; charset=utf-8",
        }
    }
}

/// One file of the feed, as served and exported.
#[derive(Debug)]
pub(crate) struct FeedFile {
    /// Its bytes.
    pub(crate) body: Bytes,
    /// The same, gzipped.
    pub(crate) gzip: Bytes,
    /// Its entity tag, quoted (`"…"`), from its bytes; the gzipped body's is the same with
    /// `-gz` before the closing quote.
    pub(crate) etag: String,
    /// When its bytes last changed (whole seconds, as HTTP dates say it).
    pub(crate) modified: SystemTime,
    /// What it is.
    pub(crate) kind: FileKind,
    /// A finished game's: served `immutable`.
    pub(crate) finished: bool,
}

impl FeedFile {
    /// The file of `body`, gzipped once, its bytes changed at `now`.
    pub(crate) fn new(body: Bytes, kind: FileKind, finished: bool, now: SystemTime) -> FeedFile {
        let mut gz = flate2::write::GzEncoder::new(
            Vec::with_capacity(body.len() / 4 + 64),
            flate2::Compression::default(),
        );
        // Writing to a Vec cannot fail.
        let gzip = gz
            .write_all(&body)
            .and_then(|()| gz.finish())
            .unwrap_or_default();
        let secs = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        FeedFile {
            etag: etag_of(&body, finished),
            body,
            gzip: Bytes::from(gzip),
            modified: SystemTime::UNIX_EPOCH + Duration::from_secs(secs),
            kind,
            finished,
        }
    }

    /// Its `Cache-Control`.
    pub(crate) fn cache_control(&self) -> &'static str {
        if self.finished {
            "max-age=31536000, immutable"
        } else {
            "max-age=1"
        }
    }
}

/// A strong entity tag of `body`: the first 16 hex digits of its SHA-256, quoted, with
/// `-final` for a finished file. A cache that revalidates a file keeps the headers it
/// stored when the answer is 304: a game that becomes finished with the same bytes (its
/// board moved on) must change its tag, or caches would go on serving it as live.
fn etag_of(body: &[u8], finished: bool) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, body);
    let hex: String = digest.as_ref()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let end = if finished { "-final" } else { "" };
    format!("\"{hex}{end}\"")
}

/// What a followed game's files were written from: when this changes, they are written
/// again.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stamp {
    /// From its board's public feed: the feed's journal count and newest `seq`.
    Live { journal: u64, seq: u64 },
    /// From the archive: [`archive::GameInfo::held`].
    Archived((u64, usize)),
}

/// One game the feed follows.
struct Followed {
    /// What its files were written from, and the arbiter's result then.
    stamp: Stamp,
    confirmed: Option<tengen_tournament::GameResult>,
    /// Its public events so far (from its `game_started`), for a board's current game.
    events: Vec<Envelope>,
    /// Its files (`None` before its `game_started` is public).
    files: Option<GameFiles>,
    /// Its round and its file name in the round (the table, else the board), as paths.
    round: String,
    name: String,
    /// When its game started (its first event), to choose between two games at one table.
    started: u64,
    /// Its board began a later game (a game from the archive).
    superseded: bool,
}

/// The feed: every file, by path (`feed/...`, no leading `/`).
#[derive(Default)]
pub(crate) struct RoundFeed {
    games: HashMap<(BoardKey, String), Followed>,
    files: BTreeMap<String, Arc<FeedFile>>,
    refreshed: Option<Instant>,
}

/// The feed shared by the routes and the export.
pub(crate) type SharedFeed = Arc<Mutex<RoundFeed>>;

/// Locks the shared feed; a holder that panicked leaves usable data.
pub(crate) fn lock_feed(feed: &SharedFeed) -> MutexGuard<'_, RoundFeed> {
    feed.lock().unwrap_or_else(|p| p.into_inner())
}

impl RoundFeed {
    /// Every file of the feed, by path (`feed/...`).
    pub(crate) fn files(&self) -> &BTreeMap<String, Arc<FeedFile>> {
        &self.files
    }

    /// The file at `path` (`feed/...`).
    pub(crate) fn file(&self, path: &str) -> Option<Arc<FeedFile>> {
        self.files.get(path).cloned()
    }

    /// Catches up with the public side of the hall: the games whose public events changed
    /// are written again, then the indexes and `tournament.json`.
    pub(crate) fn refresh(&mut self, src: &Sources) {
        let now = SystemTime::now();
        self.refreshed = Some(Instant::now());
        let games = round_games::round_games(src, None, false);
        let mut present = Vec::with_capacity(games.len());
        for g in games {
            let id = (g.key.clone(), g.game.clone());
            self.follow(src, &g);
            present.push(id);
        }
        // A game no longer in any round (an archive without it after a restart): gone.
        let keep: std::collections::HashSet<_> = present.into_iter().collect();
        self.games.retain(|id, _| keep.contains(id));
        self.write_files(src, now)
    }

    /// Refreshes when the last refresh is older than [`FRESH`] (the hall's routes).
    pub(crate) fn refresh_if_stale(&mut self, src: &Sources) {
        if self.refreshed.is_none_or(|t| t.elapsed() >= FRESH) {
            self.refresh(src);
        }
    }

    /// Brings one game's events and files up to date.
    fn follow(&mut self, src: &Sources, g: &RoundGame) {
        let id = (g.key.clone(), g.game.clone());
        let confirmed = src.tournament.as_ref().and_then(|link| {
            let link = link.lock().unwrap_or_else(|p| p.into_inner());
            link.confirmed_for(&g.key, &g.game)
        });
        let superseded = g.archived.is_some_and(|a| a.superseded);
        let feed = match g.archived {
            Some(_) => None,
            None => match lock(&src.hall).public_feed(&g.key) {
                Some(feed) => Some(feed),
                None => return,
            },
        };
        let now_stamp = match (&feed, g.archived) {
            (Some(feed), _) => Stamp::Live {
                journal: feed.journal(),
                seq: feed.last_seq(),
            },
            (None, Some(a)) => Stamp::Archived(a.held),
            (None, None) => return,
        };
        let old = match self.games.remove(&id) {
            Some(mut f) if f.stamp == now_stamp && f.confirmed == confirmed => {
                f.superseded = superseded;
                self.games.insert(id, f);
                return;
            }
            other => other,
        };
        let public = |e: &Envelope| e.game == g.game && !e.event.is_private();
        let (stamp, events) = match &feed {
            Some(feed) => {
                let journal = feed.journal();
                // Usually a few events after the ones already held, from the same journal.
                let (after, mut events) = match old {
                    Some(Followed {
                        stamp: Stamp::Live { journal: j, seq },
                        events,
                        ..
                    }) if j == journal => (seq, events),
                    _ => (0, Vec::new()),
                };
                let new = feed.events_after(after);
                let seq = new.last().map_or(after, |e| e.seq);
                events.extend(new.into_iter().filter(public));
                (Stamp::Live { journal, seq }, events)
            }
            None => {
                let Some(shared) = &src.archive else {
                    return;
                };
                let all = archive::lock(shared).events(&g.key, &g.game);
                let events = all.unwrap_or_default().into_iter().filter(public).collect();
                (now_stamp, events)
            }
        };
        let mut files = game_files(&g.key, &g.game, &events, confirmed);
        // With `[tournament]` a board's game sits at its board's table (issue 34: a board
        // that says another table's number cannot take that table's place).
        let table = src.tournament.as_ref().and_then(|link| {
            let link = link.lock().unwrap_or_else(|p| p.into_inner());
            link.table_of(&g.key)
        });
        if let (Some(t), Some(f)) = (table, files.as_mut()) {
            f.line["table"] = json!(t);
        }
        let name = match files.as_ref().and_then(|f| f.line.get("table")) {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(t)) if !t.is_empty() => sanitize(t),
            _ => sanitize(&g.key.board),
        };
        let started = events.first().map_or(0, |e| e.time.millis());
        // A game from the archive is written again from the archive when it changes: its
        // events are not kept (only a board's current game grows event by event).
        let events = if matches!(stamp, Stamp::Live { .. }) {
            events
        } else {
            Vec::new()
        };
        self.games.insert(
            id,
            Followed {
                stamp,
                confirmed,
                events,
                files,
                round: g.round.clone(),
                name,
                started,
                superseded,
            },
        );
    }

    /// Writes the files from the games followed: each game's two, each round's index and
    /// `tournament.json`; a file whose bytes are the same is kept as it was.
    fn write_files(&mut self, src: &Sources, now: SystemTime) {
        // One game per table of a round: the one that started last (a game set up again).
        let mut chosen: BTreeMap<(RoundOrder, String), &Followed> = BTreeMap::new();
        for f in self.games.values() {
            if f.files.is_none() {
                continue;
            }
            let slot = chosen
                .entry((RoundOrder::of(&f.round), f.name.clone()))
                .or_insert(f);
            if f.started > slot.started {
                *slot = f;
            }
        }
        let mut want: BTreeMap<String, (Bytes, FileKind, bool)> = BTreeMap::new();
        let mut rounds: BTreeMap<RoundOrder, Vec<(RoundOrder, Value)>> = BTreeMap::new();
        for ((round, name), f) in &chosen {
            let Some(files) = &f.files else {
                continue;
            };
            let finished = files.over && f.superseded;
            let base = format!("feed/round/{}/{name}", round.path);
            let mut line = files.line.clone();
            line["sgf"] = json!(format!("/{base}.sgf"));
            line["events"] = json!(format!("/{base}.json"));
            want.insert(
                format!("{base}.json"),
                (files.events.clone(), FileKind::Json, finished),
            );
            want.insert(
                format!("{base}.sgf"),
                (files.sgf.clone(), FileKind::Sgf, finished),
            );
            rounds
                .entry(round.clone())
                .or_default()
                .push((RoundOrder::of(name), line));
        }
        let mut listed = Vec::new();
        for (round, mut games) in rounds {
            games.sort_by(|a, b| a.0.cmp(&b.0));
            let url = format!("/feed/round/{}/index.json", round.path);
            let index = json!({
                "format": FORMAT,
                "round": number_or_text(&round.label),
                "games": games.into_iter().map(|(_, l)| l).collect::<Vec<_>>(),
            });
            want.insert(
                url.trim_start_matches('/').to_string(),
                (Bytes::from(pretty(&index)), FileKind::Json, false),
            );
            listed.push(json!({"round": number_or_text(&round.label), "url": url}));
        }
        let (id, name) = tournament_names(src, &chosen);
        let tournament = json!({
            "format": FORMAT,
            "id": id,
            "name": name,
            "rounds": listed,
        });
        want.insert(
            "feed/tournament.json".to_string(),
            (Bytes::from(pretty(&tournament)), FileKind::Json, false),
        );
        let mut files = BTreeMap::new();
        for (path, (body, kind, finished)) in want {
            let file = match self.files.remove(&path) {
                Some(old) if old.body == body && old.finished == finished => old,
                _ => Arc::new(FeedFile::new(body, kind, finished, now)),
            };
            files.insert(path, file);
        }
        self.files = files;
    }
}

/// JSON text for people and programs: indented, with a final newline.
fn pretty(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).unwrap_or_default();
    out.push(b'\n');
    out
}

/// The tournament's id and name for `tournament.json`: `[tournament]`'s (its id and the
/// OpenGotha file's name), else the tournament id most of the games are under.
fn tournament_names(
    src: &Sources,
    chosen: &BTreeMap<(RoundOrder, String), &Followed>,
) -> (String, String) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for ((_, _), f) in chosen {
        if let Some(Value::String(t)) = f.files.as_ref().and_then(|x| x.line.get("tournament")) {
            *counts.entry(t.as_str()).or_default() += 1;
        }
    }
    let heard = counts
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(t, _)| (*t).to_string());
    match &src.tournament {
        Some(link) => {
            let link = link.lock().unwrap_or_else(|p| p.into_inner());
            let id = link
                .tournament_id()
                .map(str::to_string)
                .or(heard)
                .unwrap_or_default();
            (id, link.tournament().name().to_string())
        }
        None => {
            let id = heard.unwrap_or_default();
            (id.clone(), id)
        }
    }
}

/// A round (or a table) in order: numbers first, by value, then names; with its label and
/// its path segment.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct RoundOrder {
    number: u64,
    label: String,
    path: String,
}

impl RoundOrder {
    fn of(label: &str) -> RoundOrder {
        RoundOrder {
            number: label.parse().unwrap_or(u64::MAX),
            label: label.to_string(),
            path: sanitize(label),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boards::hall_state::HallState;
    use crate::test_support::{env, game_started, mv};

    /// A hall that heard board `t/b1` start game `g1` (round 3, table 7) and play `moves`.
    fn sources(moves: &[&str]) -> Sources {
        let now = Instant::now();
        let mut hall = HallState::new("tengen", None);
        let mut events = vec![env(1, game_started(19, 0, "none"))];
        for (n, point) in moves.iter().enumerate() {
            let number = u32::try_from(n + 1).expect("a few moves");
            events.push(env(n as u64 + 2, mv(number, point)));
        }
        for e in events {
            let bytes = serde_json::to_vec(&e).expect("an envelope");
            hall.on_message("tengen/t/b1/events", &bytes, now);
        }
        Sources {
            hall: Arc::new(Mutex::new(hall)),
            archive: None,
            tournament: None,
        }
    }

    fn json_of(feed: &RoundFeed, path: &str) -> Value {
        let file = feed.file(path).unwrap_or_else(|| panic!("no {path}"));
        serde_json::from_slice(&file.body).expect("JSON")
    }

    /// The feed is a plain model of its sources: built and refreshed without a router, it
    /// has the round's files, and a refresh keeps every file whose bytes did not change.
    #[test]
    fn the_feed_is_built_from_its_sources_alone_and_keeps_what_did_not_change() {
        let src = sources(&["D4", "Q16"]);
        let mut feed = RoundFeed::default();
        feed.refresh(&src);
        let paths: Vec<&str> = feed.files().keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [
                "feed/round/3/7.json",
                "feed/round/3/7.sgf",
                "feed/round/3/index.json",
                "feed/tournament.json"
            ]
        );
        let index = json_of(&feed, "feed/round/3/index.json");
        assert_eq!(index["format"], FORMAT);
        assert_eq!(index["games"][0]["sgf"], "/feed/round/3/7.sgf");
        assert_eq!(index["games"][0]["black"], "Shusaku");
        let tournament = json_of(&feed, "feed/tournament.json");
        assert_eq!(tournament["id"], "t");
        assert_eq!(tournament["rounds"][0]["url"], "/feed/round/3/index.json");
        let sgf = feed.file("feed/round/3/7.sgf").expect("the record");
        let record = tengen_rules::sgf::parse(std::str::from_utf8(&sgf.body).expect("UTF-8"))
            .expect("an SGF");
        assert_eq!(record.moves.len(), 2);
        assert!(!sgf.finished, "a game in progress is live");

        // Nothing new: every file is the one already built.
        let before = feed.files().clone();
        feed.refresh(&src);
        for (path, file) in feed.files() {
            assert!(Arc::ptr_eq(file, &before[path]), "{path} was rebuilt");
        }

        // A move more: the game's files change, tournament.json stays as it was.
        let one_more = sources(&["D4", "Q16", "C3"]);
        feed.refresh(&one_more);
        let events = feed.file("feed/round/3/7.json").expect("the events");
        assert_ne!(events.etag, before["feed/round/3/7.json"].etag);
        assert!(Arc::ptr_eq(
            &feed.files()["feed/tournament.json"],
            &before["feed/tournament.json"]
        ));
    }
}
