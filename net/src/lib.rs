//! # tengen-net
//!
//! What the two long-running programs, the board service (`tengen run`) and the hall
//! (`tengen hall`), share to reach the world; none of it knows about the referee, the
//! journal or a board's configuration:
//!
//! - [`broker`]: a broker's address (`mqtt://host:port`, `mqtts://...`) and TLS files;
//! - [`tls`]: the rustls client configuration (ring provider) for `mqtts://`;
//! - [`backoff`]: reconnect back-off with jitter, so 500 boards do not come back in
//!   lock-step;
//! - [`secrets`]: password and command-key files;
//! - [`link`]: why a broker connection fails, in one line said once, and the link's state
//!   for a status page;
//! - [`live_view`]: one board's live web view (the page, `/events` as Server-Sent Events,
//!   `/api/state`, `/game.sgf`), served by the board itself and by the hall per board;
//! - [`clock_view`]: `/clock`, the players' two faces for a tablet beside the board, drawn
//!   by [`tengen_table::render()`], served by the board and by the hall per board;
//! - [`config_reader`]: reading a TOML file against a schema while collecting *every*
//!   problem with its key path, the style of both configs;
//! - [`open_files`]: the open-files limit, raised to the hard one at start and read by the
//!   hall to size its caps.

pub mod backoff;
pub mod broker;
pub mod clock_view;
pub mod config_reader;
pub mod link;
pub mod live_view;
pub mod open_files;
pub mod secrets;
pub mod tls;
