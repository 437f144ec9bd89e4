//! The integration tests that run in real time, in one test binary: pages in headless
//! Chromium (`browser_*`), the serial and service fault campaigns (`fault_serial`,
//! `fault_service`), kills and restarts of `tengen run` (`service_kill`, `service_restart`),
//! a full disk under a playing board (`storage_full`), the Pi build under qemu
//! (`pi_qemu`), the scanning firmware under its emulator (`firmware_emulated`), a rehearsed round (`rehearsal`) and its public feed behind nginx
//! (`round_feed`).
//!
//! They spend their time waiting on processes, brokers and browsers, not on the CPU (a CI
//! run measured 297 s of wall time against about 25 s of CPU), so they run side by side:
//! `.cargo/config.toml` sets `RUST_TEST_THREADS` for `cargo test` (8 at once), and at most
//! [`browser::MAX_OPEN`] browsers are open at a time. They were seven binaries run one after
//! another; `-- --test-threads=1` runs them one at a time again.

// Helpers shared with the other test binaries (`tests/support/`).
#[path = "../support/board.rs"]
mod board;
#[path = "../support/broker.rs"]
mod broker;
#[path = "../support/browser.rs"]
mod browser;
#[path = "../support/http.rs"]
mod http;
#[path = "../support/played_moves.rs"]
mod played_moves;
#[path = "../support/small_fs.rs"]
mod small_fs;
#[path = "../support/tls.rs"]
mod tls;
#[path = "../support/venue_lab.rs"]
mod venue_lab;

mod browser_arrival;
mod browser_clock;
mod browser_console;
mod browser_hall;
mod browser_lang;
mod browser_live;
mod browser_record;
mod browser_round;
mod fault_serial;
mod fault_service;
mod feed_cache_front;
mod firmware_emulated;
mod hall_limits;
mod hall_new_journal;
mod pi_qemu;
mod rehearsal;
mod round_feed;
mod service_kill;
mod service_restart;
mod status_heartbeat;
mod storage_full;
mod venues_netns;
