//! The arbiters' side: logins, sessions, the commands sent and what is kept across restarts.

pub(crate) mod auth;
pub(crate) mod login_limit;
pub(crate) mod store;
