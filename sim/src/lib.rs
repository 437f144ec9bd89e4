//! # tengen-sim
//!
//! A simulated tengen board on virtual time: it implements the `tengen-hal` traits, and
//! turns an SGF game or a script (SPEC.md's language) into physical actions.
