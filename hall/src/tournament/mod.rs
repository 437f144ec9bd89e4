//! The tournament file: rounds started on the boards, results confirmed and written back.

pub(crate) mod link;
pub(crate) mod watch;
