//! How much of the hall one client, and all of them, may hold at once, so that nothing a
//! stranger on the hall network can reach exhausts it (issues 21 and 34): connections the
//! hall is waiting on ("idle": the TLS handshake, waiting for a request, a kept-alive
//! connection between requests, a request's body still coming), the public's requests
//! being answered ("busy") and the public pages' event streams. Each costs an open file;
//! the defaults are sized on the process's open-files limit, with room kept for the hall's
//! own files, its broker connection and the arbiters.

pub(crate) mod address_counts;
pub(crate) mod refusal_log;
pub(crate) mod waiting_room;

use std::time::Duration;

use crate::config::HallConfig;

/// Open files kept for the hall itself: its log, the broker, the archive, the engine's
/// pipes, and the arbiters' and commentators' connections and streams (never refused by
/// the public caps).
const RESERVED: usize = 128;
/// `[hall] idle_per_address` when not given: a browser opens at most six connections to a
/// host at once.
const IDLE_PER_ADDRESS: usize = 8;
/// `[hall] streams_per_address` when not given: a browser keeps at most six HTTP/1.1
/// connections to a host, so this is several devices behind one address.
const STREAMS_PER_ADDRESS: usize = 32;
/// `[hall] busy_per_address` when not given: the public's requests being answered at once
/// for one address (a page and its assets, several devices behind one address; a cache in
/// front of the hall needs more, docs/configuration.md).
const BUSY_PER_ADDRESS: usize = 32;
/// The most public streams by default, whatever the open-files limit: each costs about
/// 32 kB of memory (BENCHMARKS.md, "Viewers").
const MOST_STREAMS: usize = 10_000;
/// Bounds of the idle connections, and of the busy ones, in total (an eighth of the open
/// files each; an idle connection costs a few kB, over TLS some 30 kB).
const FEWEST_IDLE: usize = 32;
const MOST_IDLE: usize = 16_384;
/// The fewest public streams a default gives.
const FEWEST_STREAMS: usize = 16;

/// How long a connection may make the hall wait, by what it is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timeouts {
    /// The TLS handshake (3 s: a phone on a poor Wi-Fi needs one round trip or two).
    pub(crate) handshake: Duration,
    /// The first request, from the accept (the handshake included).
    pub(crate) first_request: Duration,
    /// The next request on a kept-alive connection.
    pub(crate) between_requests: Duration,
    /// A request's body, whole, from its head (10 s: the hall's bodies are a few kB).
    pub(crate) body: Duration,
    /// How long a body may come slower than [`Timeouts::body_rate`] before it is judged.
    pub(crate) body_grace: Duration,
    /// The slowest a body may come after its grace, in bytes a second on average: a body
    /// has until `head + grace + bytes received / rate` (and [`Timeouts::body`] at most).
    pub(crate) body_rate: u64,
    /// An answer that cannot be written (the client reads nothing) for this long.
    pub(crate) write: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            handshake: Duration::from_secs(3),
            first_request: Duration::from_secs(10),
            between_requests: Duration::from_secs(20),
            body: Duration::from_secs(10),
            body_grace: Duration::from_secs(2),
            body_rate: 1024,
            write: Duration::from_secs(15),
        }
    }
}

/// The hall's caps, from `[hall]` and the open-files limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The soft open-files limit they were sized on (`None`: unlimited or unknown).
    pub(crate) open_files: Option<u64>,
    /// Idle connections from one address; more are closed at once.
    pub(crate) idle_per_address: usize,
    /// Idle connections in all; beyond, the longest waiting of the address waited on most
    /// is closed to make room.
    pub(crate) max_idle: usize,
    /// The public's requests being answered at once from one address; more get 503.
    pub(crate) busy_per_address: usize,
    /// The public's requests being answered at once in all; more get 503.
    pub(crate) max_busy: usize,
    /// Public event streams from one address; more get 503.
    pub(crate) streams_per_address: usize,
    /// Public event streams in all; more get 503.
    pub(crate) max_streams: usize,
    /// How long a connection may be idle.
    pub(crate) timeouts: Timeouts,
}

impl Limits {
    /// The caps `config` gives, the rest sized on `open_files` (the soft limit).
    pub(crate) fn new(config: &HallConfig, open_files: Option<u64>) -> Limits {
        let files = open_files
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .unwrap_or(usize::MAX);
        let max_idle = (files / 8).clamp(FEWEST_IDLE, MOST_IDLE);
        let max_busy = max_idle;
        let default_streams = files
            .saturating_sub(RESERVED + max_idle + max_busy)
            .clamp(FEWEST_STREAMS, MOST_STREAMS);
        let hall = &config.hall;
        Limits {
            open_files,
            idle_per_address: hall.idle_per_address.unwrap_or(IDLE_PER_ADDRESS),
            max_idle,
            busy_per_address: hall.busy_per_address.unwrap_or(BUSY_PER_ADDRESS),
            max_busy,
            streams_per_address: hall.streams_per_address.unwrap_or(STREAMS_PER_ADDRESS),
            max_streams: hall.max_streams.unwrap_or(default_streams),
            timeouts: Timeouts::default(),
        }
    }

    /// The line the hall logs at start.
    pub(crate) fn describe(&self) -> String {
        let files = self
            .open_files
            .map_or("no open-files limit".to_string(), |n| {
                format!("an open-files limit of {n}")
            });
        format!(
            "at most {} public event streams ({} from one address), {} idle connections \
             ({} from one address) and {} public requests answered at once ({} from one \
             address), for {files}",
            self.max_streams,
            self.streams_per_address,
            self.max_idle,
            self.idle_per_address,
            self.max_busy,
            self.busy_per_address
        )
    }

    /// A warning when the caps let the hall open more files than it may.
    pub(crate) fn overcommitted(&self) -> Option<String> {
        let files = usize::try_from(self.open_files?).unwrap_or(usize::MAX);
        let needs = self
            .max_streams
            .saturating_add(self.max_idle)
            .saturating_add(self.max_busy)
            .saturating_add(RESERVED);
        (needs > files).then(|| {
            format!(
                "hall: its caps ({} public event streams, {} idle connections, {} busy, \
                 {RESERVED} kept for itself) need {needs} open files and the limit is {files}: \
                 past that, connections fail with \"Too many open files\". Raise \
                 LimitNOFILE= (docs/operating.md, \"Sizing a hall\") or lower [hall] \
                 max_streams",
                self.max_streams, self.max_idle, self.max_busy
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(text: &str) -> HallConfig {
        HallConfig::parse(text, Path::new("hall.toml")).expect("valid")
    }

    #[test]
    fn the_defaults_leave_room_for_the_hall_within_the_open_files_limit() {
        let l = Limits::new(&config(""), Some(1024));
        assert_eq!(
            (
                l.max_streams,
                l.streams_per_address,
                l.max_idle,
                l.idle_per_address
            ),
            (640, 32, 128, 8)
        );
        assert_eq!((l.max_busy, l.busy_per_address), (128, 32));
        assert!(l.max_streams + l.max_idle + l.max_busy + RESERVED <= 1024);
        assert_eq!(l.overcommitted(), None);
        assert_eq!(
            l.describe(),
            "at most 640 public event streams (32 from one address), 128 idle \
             connections (8 from one address) and 128 public requests answered at once \
             (32 from one address), for an open-files limit of 1024"
        );
        // A raised limit: memory, not files, bounds the streams.
        let big = Limits::new(&config(""), Some(524_288));
        assert_eq!((big.max_streams, big.max_idle), (MOST_STREAMS, MOST_IDLE));
        assert_eq!(Limits::new(&config(""), None).max_streams, MOST_STREAMS);
        // A tiny limit still serves a few.
        let tiny = Limits::new(&config(""), Some(100));
        assert_eq!(
            (tiny.max_streams, tiny.max_idle),
            (FEWEST_STREAMS, FEWEST_IDLE)
        );
    }

    #[test]
    fn the_config_overrides_and_is_warned_about_when_it_cannot_be_kept() {
        let c = config(
            "[hall]\nmax_streams = 5000\nstreams_per_address = 5000\nidle_per_address = 64\n\
             busy_per_address = 300\n",
        );
        let l = Limits::new(&c, Some(1024));
        assert_eq!(
            (
                l.max_streams,
                l.streams_per_address,
                l.idle_per_address,
                l.busy_per_address
            ),
            (5000, 5000, 64, 300)
        );
        let warning = l
            .overcommitted()
            .expect("5000 streams do not fit in 1024 files");
        assert!(
            warning.starts_with(
                "hall: its caps (5000 public event streams, 128 idle connections, 128 busy, \
                 128 kept for itself) need 5384 open files and the limit is 1024: "
            ),
            "{warning}"
        );
        assert_eq!(Limits::new(&c, Some(65_536)).overcommitted(), None);
    }
}
