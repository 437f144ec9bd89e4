//! `[broadcast] export_dir`: the public site as static files, for audiences the hall should
//! not serve itself. Any static web server, object store or CDN serves the folder; the hall
//! only writes it.
//!
//! The files are the hall's public paths (docs/mqtt-http.md, "HTTP"):
//!
//! | file | what |
//! |---|---|
//! | `index.html`, `api/boards` | the overview and its JSON |
//! | `board/{t}/{b}/index.html` | the board's page, marked static: it polls `events.json` instead of SSE |
//! | `board/{t}/{b}/events.json` | every public event of the board so far, as a JSON array |
//! | `board/{t}/{b}/game.sgf`, `board/{t}/{b}/api/state` | the public record and snapshot |
//! | `board/{t}/{b}/api/analysis` | the engine's estimates (with `[analysis]`) |
//! | `rounds/index.html`, `api/rounds`, `round/{round}.zip` | the rounds and their records |
//! | `feed/...` | the public round feed ([`super::round_feed`]), each file with its gzipped copy `X.gz`, and `X.final` beside a game's file once the game is finished |
//!
//! Everything comes from the public (delayed) side of the hall, never the live one: the
//! export shows exactly what `/board/...` shows. Each file is written beside its final name
//! and renamed over it, so a server never hands out half a file. A board's files are
//! rewritten only when its public stream has grown; a round's zip when its count of games
//! or finished games changed; a file of the round feed when its bytes changed (its
//! modification time is the hall's `Last-Modified` for it, one second later when that
//! would leave a static server's `ETag`, made of time and size, unchanged).
//!
//! [`Exporter::sync`] does one pass; [`spawn`] runs a pass every second on a blocking
//! thread, so neither the MQTT task nor the web server waits for the disk, and a pass of the
//! round feed alone every quarter second between them.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tengen_l10n::Render;
use tengen_net::live_view::PageOptions;
use tengen_protocol::topics::BoardKey;
use thiserror::Error;

use crate::analysis::route::analysis_value;
use crate::analysis::Analysis;
use crate::boards::hall_state::lock;
use crate::public::round_feed::{lock_feed, FeedFile, SharedFeed};
use crate::public::round_games as rounds;
use crate::public::round_zip::round_zip_bytes;
use crate::public::{Sources, OVERVIEW};

/// How often the export catches up with the public stream.
const EVERY: Duration = Duration::from_secs(1);

/// How often the round feed's files catch up, between two whole passes: a move reaches a
/// CDN's viewers through the export no later than through the hall (whose feed is at most
/// 200 ms old), though the CDN's own second and the viewers' polls come on top.
const FEED_EVERY: Duration = Duration::from_millis(250);

/// The marker the board page looks for to poll `events.json` instead of opening SSE.
pub(crate) const STATIC_MARK: &str = "<meta name=\"tengen-static\" content=\"1\">";

/// A file of the export that could not be written.
#[derive(Debug, Error)]
#[error("export: cannot write {path}: {source}")]
pub(crate) struct ExportError {
    path: PathBuf,
    source: std::io::Error,
}

/// What one pass wrote.
#[derive(Debug, Default)]
pub(crate) struct Pass {
    /// Files written (renamed into place).
    pub(crate) files: usize,
    /// Bytes written.
    pub(crate) bytes: usize,
    /// The first file that could not be written, if any: the pass went on with the others
    /// (issue 34: one bad file must not stop a pass), and the file is tried again next.
    pub(crate) failed: Option<ExportError>,
}

/// The export folder and what is in it already.
pub(crate) struct Exporter {
    dir: PathBuf,
    /// The last `seq` exported per board.
    boards: HashMap<BoardKey, u64>,
    /// Per round, the (games, finished) count its zip was written for.
    rounds: HashMap<String, (usize, usize)>,
    /// The overview written once.
    started: bool,
    /// The rounds page written at least once.
    rounds_page: bool,
    /// The engine's estimates (with `[analysis]`), and what was written per board.
    analysis: Option<Analysis>,
    analysed: HashMap<BoardKey, String>,
    /// Per file of the round feed: the tag, modification time and size written.
    feed: HashMap<String, Written>,
    /// The round feed, shared with the hall's routes.
    round_feed: SharedFeed,
    /// The pages' language (`[hall] lang`).
    lang: tengen_l10n::Lang,
}

/// A file of the round feed as written.
struct Written {
    etag: String,
    modified: std::time::SystemTime,
    len: usize,
    finished: bool,
}

impl Exporter {
    /// An exporter into `dir` (created when missing, on the first pass) of the round feed
    /// `round_feed` and pages in `lang`.
    pub(crate) fn new(
        dir: &Path,
        analysis: Option<Analysis>,
        round_feed: SharedFeed,
        lang: tengen_l10n::Lang,
    ) -> Exporter {
        Exporter {
            round_feed,
            lang,
            analysis,
            analysed: HashMap::new(),
            dir: dir.to_path_buf(),
            boards: HashMap::new(),
            rounds: HashMap::new(),
            started: false,
            rounds_page: false,
            feed: HashMap::new(),
        }
    }

    /// One pass: writes what changed on the public side since the last pass.
    pub(crate) fn sync(&mut self, src: &Sources) -> Pass {
        let mut pass = Pass::default();
        // The export's pages speak the hall's default language (`[hall] lang`): a static
        // server reads no `?lang=` nor cookie, so they show no language switch.
        let render = Render {
            lang: self.lang,
            switch: false,
        };
        if !self.started {
            self.started = self.write(&mut pass, "index.html", render.page(OVERVIEW).as_bytes());
        }
        // What to write is read under the lock; the disk is written after.
        let (boards_json, feeds) = {
            let mut hall = lock(&src.hall);
            let keys = hall.board_keys();
            let feeds: Vec<_> = keys
                .into_iter()
                .filter_map(|k| hall.public_feed(&k).map(|f| (k, f)))
                .collect();
            (hall.boards_json_text(Instant::now()), feeds)
        };
        self.write(&mut pass, "api/boards", boards_json.as_bytes());
        for (key, feed) in feeds {
            if let Some(analysis) = &self.analysis {
                let text = analysis_value(analysis, &key).to_string();
                if self.analysed.get(&key) != Some(&text) {
                    let path = format!("board/{}/{}/api/analysis", key.tournament, key.board);
                    if self.write(&mut pass, &path, text.as_bytes()) {
                        self.analysed.insert(key.clone(), text);
                    }
                }
            }
            let last = feed.last_seq();
            let done = self.boards.get(&key).copied();
            if done == Some(last) {
                continue;
            }
            let base = format!("board/{}/{}", key.tournament, key.board);
            let mut written = true;
            if done.is_none() {
                let page = PageOptions::default().page(render).replacen(
                    "<head>",
                    &format!("<head>\n{STATIC_MARK}"),
                    1,
                );
                written &= self.write(&mut pass, &format!("{base}/index.html"), page.as_bytes());
            }
            let events = serde_json::to_vec(&feed.events_after(0)).unwrap_or_default();
            written &= self.write(&mut pass, &format!("{base}/events.json"), &events);
            written &= self.write(
                &mut pass,
                &format!("{base}/game.sgf"),
                feed.sgf().as_bytes(),
            );
            let state = feed.state().to_string();
            written &= self.write(&mut pass, &format!("{base}/api/state"), state.as_bytes());
            if written {
                self.boards.insert(key, last);
            }
        }
        let rounds = rounds::rounds(src);
        let mut rounds_changed = false;
        for (round, games, finished) in rounds {
            if self.rounds.get(&round) == Some(&(games, finished)) {
                continue;
            }
            rounds_changed = true;
            let written = match round_zip_bytes(src, &round, None) {
                Some(Ok(zip)) => {
                    let name = rounds::zip_link(&round);
                    self.write(&mut pass, name.trim_start_matches('/'), &zip)
                }
                _ => true,
            };
            if written {
                self.rounds.insert(round, (games, finished));
            }
        }
        if rounds_changed || !self.rounds_page {
            let page = rounds::rounds_html(src, render);
            let list = rounds::rounds_value(src).to_string();
            self.rounds_page = self.write(&mut pass, "rounds/index.html", page.as_bytes())
                & self.write(&mut pass, "api/rounds", list.as_bytes());
        }
        self.sync_feed(&mut pass, src);
        pass
    }

    /// A pass of the round feed alone (see [`FEED_EVERY`]).
    pub(crate) fn sync_feed_only(&mut self, src: &Sources) -> Pass {
        let mut pass = Pass::default();
        self.sync_feed(&mut pass, src);
        pass
    }

    /// The round feed's files whose bytes changed since the last pass, each with its
    /// gzipped copy, and the mark of a finished game.
    fn sync_feed(&mut self, pass: &mut Pass, src: &Sources) {
        let files = {
            let mut feed = lock_feed(&self.round_feed);
            feed.refresh(src);
            feed.files().clone()
        };
        for (path, file) in files {
            if self.feed.get(&path).is_some_and(|w| w.etag == file.etag) {
                continue;
            }
            let modified = match self.feed.get(&path) {
                // A static server's tag is the time (in seconds) and size: make it change.
                Some(w) if w.len == file.body.len() && w.modified >= file.modified => {
                    w.modified + Duration::from_secs(1)
                }
                _ => file.modified,
            };
            // The bytes first, then the mark: a cache that fetches the file between the two
            // keeps it a second (and asks again), never old bytes for a year.
            if !self.write_feed_file(pass, &path, &file, modified) {
                continue;
            }
            let was_finished = self.feed.get(&path).is_some_and(|w| w.finished);
            let game_file = path.starts_with("feed/round/") && !path.ends_with("/index.json");
            if game_file && file.finished != was_finished {
                let mark = format!("{path}.final");
                if file.finished {
                    if !self.write(pass, &mark, b"") {
                        continue;
                    }
                } else {
                    let _ = std::fs::remove_file(self.path_of(&mark));
                }
            }
            self.feed.insert(
                path,
                Written {
                    etag: file.etag.clone(),
                    modified,
                    len: file.body.len(),
                    finished: file.finished,
                },
            );
        }
    }

    /// One file of the feed and its `.gz`, with `modified` as their modification time.
    fn write_feed_file(
        &self,
        pass: &mut Pass,
        path: &str,
        file: &FeedFile,
        modified: std::time::SystemTime,
    ) -> bool {
        self.write_at(pass, &format!("{path}.gz"), &file.gzip, Some(modified))
            && self.write_at(pass, path, &file.body, Some(modified))
    }

    /// The path of `relative` (`/`-separated) under the folder.
    fn path_of(&self, relative: &str) -> PathBuf {
        relative
            .split('/')
            .fold(self.dir.clone(), |p, part| p.join(part))
    }

    /// Writes `bytes` to `relative` (a `/`-separated path under the folder): into a
    /// temporary file beside it, then renamed over it. Whether it was; if not, the pass
    /// keeps the first error and goes on.
    fn write(&self, pass: &mut Pass, relative: &str, bytes: &[u8]) -> bool {
        self.write_at(pass, relative, bytes, None)
    }

    /// [`Exporter::write`], the file's modification time set to `modified` when given.
    fn write_at(
        &self,
        pass: &mut Pass,
        relative: &str,
        bytes: &[u8],
        modified: Option<std::time::SystemTime>,
    ) -> bool {
        match self.try_write_at(relative, bytes, modified) {
            Ok(()) => {
                pass.files += 1;
                pass.bytes += bytes.len();
                true
            }
            Err(e) => {
                pass.failed.get_or_insert(e);
                false
            }
        }
    }

    fn try_write_at(
        &self,
        relative: &str,
        bytes: &[u8],
        modified: Option<std::time::SystemTime>,
    ) -> Result<(), ExportError> {
        let path = self.path_of(relative);
        let error = |source| ExportError {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(error)?;
        }
        let mut tmp = path.clone().into_os_string();
        tmp.push(".part");
        let tmp = PathBuf::from(tmp);
        let mut file = std::fs::File::create(&tmp).map_err(error)?;
        file.write_all(bytes).map_err(error)?;
        if let Some(t) = modified {
            file.set_modified(t).map_err(error)?;
        }
        drop(file);
        std::fs::rename(&tmp, &path).map_err(error)
    }
}

/// Runs the export into `dir` every second until the runtime stops. A failing pass is
/// logged (once until the error changes) and tried again at the next tick.
pub(crate) fn spawn(
    src: Sources,
    round_feed: SharedFeed,
    dir: PathBuf,
    analysis: Option<Analysis>,
    lang: tengen_l10n::Lang,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        tracing::info!("exporting the public site to {}", dir.display());
        let mut exporter = Some(Exporter::new(&dir, analysis, round_feed, lang));
        let mut said = String::new();
        let mut tick = tokio::time::interval(FEED_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let whole_every = (EVERY.as_millis() / FEED_EVERY.as_millis()).max(1);
        let mut ticks: u128 = 0;
        loop {
            tick.tick().await;
            let Some(mut e) = exporter.take() else {
                return;
            };
            let src = src.clone();
            let whole = ticks % whole_every == 0;
            ticks += 1;
            let done = tokio::task::spawn_blocking(move || {
                let r = if whole {
                    e.sync(&src)
                } else {
                    e.sync_feed_only(&src)
                };
                (e, r)
            })
            .await;
            let Ok((e, result)) = done else {
                return;
            };
            exporter = Some(e);
            match result.failed {
                None => said.clear(),
                Some(err) => {
                    let line = err.to_string();
                    if line != said {
                        tracing::warn!("{line}");
                        said = line;
                    }
                }
            }
        }
    })
}
