//! # tengen-fuzz
//!
//! AFL++ fuzz targets for every input tengen reads from outside: one binary per target in
//! `src/bin/`, each calling its input function in [`targets`]. The same functions run in
//! the CI short form (`daemon/tests/fast/fuzz_inputs.rs`) over the seed corpus (`corpus/`) and
//! the inputs AFL found (`found/`).

pub mod targets;
