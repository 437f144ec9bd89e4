//! The random streams of a seed: human timing (placement paths, delays, thinking) and
//! sensor noise draw from separate ChaCha8 streams, so the timing of a game does not
//! change with the noise level.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The RNG stream that draws human timing (placement paths, delays, thinking).
const TIMING_STREAM: u64 = 1;
/// The RNG stream that draws sensor noise and raw jitter.
const NOISE_STREAM: u64 = 2;

/// The timing RNG for a seed.
pub(crate) fn timing_rng(seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(TIMING_STREAM);
    rng
}

/// The noise RNG for a seed.
pub(crate) fn noise_rng(seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(NOISE_STREAM);
    rng
}
