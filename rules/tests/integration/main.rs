//! The rules' integration tests (articles, clock, SGF, the GNU Go and sgfmill oracles, properties),
//! in one test binary (one link instead of six).

#[path = "../common/mod.rs"]
mod common;

mod articles;
mod clock;
mod gnugo_oracle;
mod properties;
mod sgf;
mod sgf_sgfmill;
