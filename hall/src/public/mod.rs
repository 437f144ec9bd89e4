//! What viewers and commentators see, apart from HTTP: the rounds' games as the public may
//! have them (`round_games`), a round's zip (`round_zip`, `zip_cache`), the public round
//! feed (`round_feed`), the static export (`static_export`), the overview (`overview_cache`
//! and its page). All of it reads the hall through one narrow input, [`Sources`], built once
//! at start; `routes/` serves it.

pub(crate) mod overview_cache;
pub(crate) mod round_feed;
pub(crate) mod round_games;
pub(crate) mod round_zip;
pub(crate) mod static_export;
pub(crate) mod zip_cache;

use std::sync::{Arc, Mutex};

use crate::boards::archive::SharedArchive;
use crate::boards::hall_state::Shared;
use crate::tournament::link::TournamentLink;

/// The overview page: every board, small and live.
pub(crate) const OVERVIEW: &str = include_str!("overview.html");

/// What the public side reads: the boards, the archive and the tournament file.
#[derive(Clone)]
pub(crate) struct Sources {
    /// The hall's boards (their public side).
    pub(crate) hall: Shared,
    /// Every game the hall has followed (`[hall] archive_dir`), if configured.
    pub(crate) archive: Option<SharedArchive>,
    /// The tournament file's rounds and results (`[tournament]`), if configured.
    pub(crate) tournament: Option<Arc<Mutex<TournamentLink>>>,
}
