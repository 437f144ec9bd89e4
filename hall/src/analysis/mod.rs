//! Engine analysis of the public games (`[analysis]`): a GTP engine's score lead and
//! candidate moves for every position the public has seen, served as JSON at
//! `/board/{t}/{b}/api/analysis`.
//!
//! Only the public (delayed) stream is analysed: the hall hands [`Analysis::offer`] each
//! board's *public* view when it changes (after the broadcast delay released events, or
//! the live view when the hall has no delay, which is then what the public sees). The
//! arbiters' live pages never show analysis.
//!
//! - `scheduler`: which position next, sans-IO (bounded: the latest public position per
//!   board; the newest position of each board first).
//! - `engine`: one GTP engine process, speaking KataGo's `kata-analyze` or GNU Go's
//!   `estimate_score`/`top_moves_*` (whichever its `list_commands` has).
//! - `kata_analyze`: reading `kata-analyze`'s lines.
//! - `route`: the HTTP route.
//!
//! Best-effort and apart from the hall: `offer` only takes a short lock on the scheduler,
//! and `[analysis] boards` worker tasks, each with its own engine process, do the rest. An
//! engine that dies is started again (with a growing pause when it cannot start); one that
//! takes more than twice the `budget` on a position is killed and started again, and the
//! position is tried once more before it is given up. An engine that runs but cannot do
//! what `[analysis]` asks (neither dialect; `visits` for GNU Go; `level` for an engine
//! without it) is said once in the log, and then nothing is analysed: starting it again
//! would not help.

mod engine;
mod kata_analyze;
pub(crate) mod route;
mod scheduler;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tengen_protocol::topics::BoardKey;
use tengen_protocol::GameView;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::config::AnalysisSection;
use engine::Engine;
use scheduler::{Estimate, Job, Outcome, Scheduler};

/// How long an engine may take to start and answer `name` and `list_commands` (at least;
/// twice the budget when that is longer).
const START_LIMIT: Duration = Duration::from_secs(120);

/// The longest pause between two attempts to start an engine that does not start.
const MAX_RESTART_PAUSE: Duration = Duration::from_secs(30);

/// What the workers and the hall share.
struct Inner {
    scheduler: Mutex<Scheduler>,
    /// Rung when there may be new work.
    work: Notify,
    /// The engine's name and version, once an engine answered (before: the program's
    /// file name).
    engine: Mutex<String>,
    /// An engine could not be used ([`engine::EngineError::is_permanent`]): said once, and
    /// every worker stops.
    unusable: AtomicBool,
}

impl Inner {
    fn scheduler(&self) -> MutexGuard<'_, Scheduler> {
        self.scheduler.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for the next job.
    async fn next_job(&self) -> Job {
        loop {
            let notified = self.work.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(job) = self.scheduler().next_job() {
                return job;
            }
            notified.await;
        }
    }
}

/// The running analysis: its workers, and what they found. Cloned handles share it.
#[derive(Clone)]
pub(crate) struct Analysis {
    inner: Arc<Inner>,
    workers: Arc<Vec<JoinHandle<()>>>,
}

impl Analysis {
    /// Starts `section.boards` workers on the current tokio runtime, each with its own
    /// engine process.
    pub(crate) fn start(section: &AnalysisSection) -> Analysis {
        let program = section
            .command
            .split_whitespace()
            .next()
            .and_then(|p| std::path::Path::new(p).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let inner = Arc::new(Inner {
            scheduler: Mutex::new(Scheduler::new()),
            work: Notify::new(),
            engine: Mutex::new(program),
            unusable: AtomicBool::new(false),
        });
        let workers = (0..section.boards.max(1))
            .map(|i| tokio::spawn(worker(i, inner.clone(), section.clone())))
            .collect();
        Analysis {
            inner,
            workers: Arc::new(workers),
        }
    }

    /// Board `key`'s public view has changed (or may have): its latest public position
    /// replaces the one waiting. Cheap, never waits for an engine.
    pub(crate) fn offer(&self, key: &BoardKey, view: &GameView) {
        if self.inner.scheduler().offer(key, view) {
            self.inner.work.notify_waiters();
        }
    }

    /// The engine's name, and board `key`'s estimates of its public game so far (empty
    /// before any).
    pub(crate) fn estimates(&self, key: &BoardKey) -> (String, Vec<Estimate>) {
        let name = self
            .inner
            .engine
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let estimates = self.inner.scheduler().estimates(key).unwrap_or_default();
        (name, estimates)
    }

    /// Stops the workers; their engines are killed.
    pub(crate) fn stop(&self) {
        for w in self.workers.iter() {
            w.abort();
        }
    }
}

/// One worker: an engine of its own, started again whenever it died or hung, fed one job
/// after another.
async fn worker(index: u32, inner: Arc<Inner>, section: AnalysisSection) {
    let limit = Duration::from_millis(section.budget_ms.saturating_mul(2).max(1));
    // KataGo loads its model (and may tune its GPU kernels) before it answers `name`.
    let start_limit = limit.max(START_LIMIT);
    let mut engine: Option<Engine> = None;
    let mut pause = Duration::from_millis(500);
    loop {
        let job = inner.next_job().await;
        if inner.unusable.load(Ordering::Relaxed) {
            inner.scheduler().finish(&job, Outcome::Retry);
            return;
        }
        if engine.as_mut().is_some_and(|e| !e.is_running()) {
            tracing::warn!("analysis engine {index} has stopped; starting it again");
            engine = None;
        }
        let running = match engine.as_mut() {
            Some(e) => e,
            None => match tokio::time::timeout(start_limit, Engine::start(&section)).await {
                Ok(Ok(e)) => {
                    tracing::info!(
                        "analysis engine {index}: {}, with {} (pid {:?})",
                        e.name(),
                        e.dialect(),
                        e.pid()
                    );
                    *inner.engine.lock().unwrap_or_else(|p| p.into_inner()) = e.name().to_string();
                    pause = Duration::from_millis(500);
                    engine.insert(e)
                }
                Ok(Err(err)) if err.is_permanent() => {
                    if !inner.unusable.swap(true, Ordering::Relaxed) {
                        tracing::error!(
                            "analysis engine {index}: {err}; the hall analyses nothing \
                                 until it is restarted with another [analysis]"
                        );
                    }
                    inner.scheduler().finish(&job, Outcome::Retry);
                    return;
                }
                Ok(Err(err)) => {
                    tracing::error!("analysis engine {index}: {err}; trying again in {pause:?}");
                    inner.scheduler().finish(&job, Outcome::Retry);
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(MAX_RESTART_PAUSE);
                    continue;
                }
                Err(_) => {
                    tracing::error!(
                        "analysis engine {index} did not answer `name` and `list_commands` \
                         within {start_limit:?}; \
                         trying again in {pause:?}"
                    );
                    inner.scheduler().finish(&job, Outcome::Retry);
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(MAX_RESTART_PAUSE);
                    continue;
                }
            },
        };
        let outcome =
            match tokio::time::timeout(limit, running.analyse(job.number, &job.position)).await {
                Ok(Ok(estimate)) => Outcome::Done(estimate),
                Ok(Err(err)) if err.is_refusal() => {
                    tracing::debug!(
                        "{}/{} move {}: {err}",
                        job.key.tournament,
                        job.key.board,
                        job.number
                    );
                    Outcome::GiveUp
                }
                Ok(Err(err)) => {
                    tracing::warn!("analysis engine {index}: {err}; starting it again");
                    engine = None;
                    Outcome::Retry
                }
                Err(_) => {
                    tracing::warn!(
                        "analysis engine {index} took more than {limit:?} on {}/{} move {}; \
                     killed, starting it again",
                        job.key.tournament,
                        job.key.board,
                        job.number
                    );
                    running.kill();
                    engine = None;
                    Outcome::Retry
                }
            };
        inner.scheduler().finish(&job, outcome);
        inner.work.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use tengen_protocol::event::{Event, GameSetup};
    use tengen_protocol::Timestamp;

    /// How many times the stand-in logging to `log` was started.
    fn starts(log: &std::path::Path) -> usize {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .count()
    }

    #[tokio::test]
    async fn an_unusable_engine_is_started_once_not_in_a_loop() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let log = dir.path().join("starts");
        // The KataGo stand-in without `kata-analyze`: an engine that speaks neither dialect.
        let command = format!(
            "{} --no-analysis --log {}",
            engine::tests::standin(""),
            log.display()
        );
        let analysis = Analysis::start(&AnalysisSection {
            command,
            budget_ms: 200,
            boards: 1,
            level: None,
            visits: None,
        });
        let mut view = GameView::new();
        view.apply(&Event::GameStarted(GameSetup::default()), Timestamp::now())
            .expect("a game");
        analysis.offer(&BoardKey::new("t", "b1").expect("a key"), &view);
        let t = std::time::Instant::now();
        while !analysis.workers[0].is_finished() {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "the worker still runs"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(analysis.inner.unusable.load(Ordering::Relaxed));
        // Restarting started again after 0.5 s, then 1 s: none of that, whatever comes.
        analysis.offer(&BoardKey::new("t", "b2").expect("a key"), &view);
        tokio::time::sleep(Duration::from_millis(1200)).await;
        assert_eq!(starts(&log), 1, "started once");
        let (name, estimates) = analysis.estimates(&BoardKey::new("t", "b1").expect("a key"));
        assert_eq!((name.as_str(), estimates.len()), ("python3", 0));
        analysis.stop();
    }
}
