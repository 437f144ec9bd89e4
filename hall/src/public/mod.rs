//! What viewers and commentators see: the broadcast delay, the overview, the static export, the archive of rounds.

pub(crate) mod overview_cache;
