//! Faults of a live simulated board, as commands: the serial device unplugged, the line
//! silent, garbage bytes, corrupted frames, a stuck sensor, a flickering sensor.
//!
//! One command per line (the `tengen-mcu` control input and its `--fault` flags):
//!
//! ```text
//! [at TIME | move N] unplug 2s         # the device disappears, comes back reset after 2 s
//! [at TIME | move N] silence 1500ms    # the microcontroller sends nothing for 1.5 s
//! [at TIME | move N] garbage 200       # 200 random bytes between two frames
//! [at TIME | move N] corrupt 5         # the next 5 frames each get one byte flipped
//! [at TIME | move N] stuck K10 B       # a sensor reads B whatever is there (B|W|E|U|off)
//! [at TIME | move N] flicker K10 0.3   # a sensor reads wrong in 30% of scans (or off)
//! ```
//!
//! `at 5s`: that far into the simulated game (from its first scan); `move 12`: the instant
//! move 12's stone touches down; no prefix: at once. The line's faults are this crate's
//! ([`corrupt_frame`] is the sans-IO part [`crate::live`] applies to a frame); the sensor
//! faults are the simulator's physical model (`tengen_sim::physics::World::set_stuck`,
//! [`tengen_sim::Flickers`]), which [`crate::live`] applies to the board it scans.

use rand::RngCore;
use tengen_hal::{Millis, PointState};
use tengen_rules::Point;
use tengen_sim::script::{parse_stuck_state, parse_time};
use thiserror::Error;

/// A fault command that cannot be read; the message names the word at fault.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("fault '{line}': {why}")]
pub struct FaultError {
    /// The command as given.
    pub line: String,
    /// What is wrong with it.
    pub why: String,
}

/// One fault of the board or its serial line.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// The device disappears (the pseudo-terminal is closed) for `ms`, then comes back as
    /// a freshly reset microcontroller on a new pseudo-terminal.
    Unplug {
        /// How long it stays unplugged (ms).
        ms: Millis,
    },
    /// The microcontroller sends nothing for `ms`; the device stays.
    Silence {
        /// How long (ms).
        ms: Millis,
    },
    /// Random bytes written between two frames.
    Garbage {
        /// How many.
        bytes: usize,
    },
    /// The next frames each get one byte flipped (their CRC rejects them).
    Corrupt {
        /// How many frames (ticks' worth of frames).
        frames: u32,
    },
    /// A sensor reads `state` whatever is there; `None` frees it.
    Stuck {
        /// The sensor's point.
        point: Point,
        /// What it reads.
        state: Option<PointState>,
    },
    /// A sensor reads a wrong state in each scan with this probability (0 stops it).
    Flicker {
        /// The sensor's point.
        point: Point,
        /// Probability of a wrong reading per scan.
        probability: f64,
    },
}

/// When a fault happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// At once (a command typed while the board runs).
    Now,
    /// At this virtual time of the simulated game (ms from its first scan).
    At(Millis),
    /// The instant this move's stone touches down (1-based move number).
    Move(usize),
}

/// A fault and when it happens.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultCommand {
    /// When.
    pub when: When,
    /// What.
    pub fault: Fault,
}

impl FaultCommand {
    /// Parses one command (see the module docs) for a board of `size` lines.
    pub fn parse(line: &str, size: u8) -> Result<FaultCommand, FaultError> {
        let err = |why: String| FaultError {
            line: line.trim().to_string(),
            why,
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let (when, rest) = match words.as_slice() {
            ["at", t, rest @ ..] => (When::At(parse_time(t).map_err(|e| err(e.0))?), rest),
            ["move", n, rest @ ..] => {
                let n: usize = n
                    .parse()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| err(format!("'{n}' is not a move number")))?;
                (When::Move(n), rest)
            }
            rest => (When::Now, rest),
        };
        let point = |v: &str| Point::parse_gtp(v, size).map_err(|e| err(e.to_string()));
        let fault = match rest {
            ["unplug", t] => Fault::Unplug {
                ms: parse_time(t).map_err(|e| err(e.0))?,
            },
            ["silence", t] => Fault::Silence {
                ms: parse_time(t).map_err(|e| err(e.0))?,
            },
            ["garbage", n] => Fault::Garbage {
                bytes: n
                    .parse()
                    .ok()
                    .filter(|n| *n <= 1 << 20)
                    .ok_or_else(|| err(format!("'{n}' is not a byte count (up to 1 MiB)")))?,
            },
            ["corrupt", n] => Fault::Corrupt {
                frames: n
                    .parse()
                    .map_err(|_| err(format!("'{n}' is not a frame count")))?,
            },
            ["stuck", p, s] => Fault::Stuck {
                point: point(p)?,
                state: parse_stuck_state(s).map_err(|e| err(e.0))?,
            },
            ["flicker", p, q] => Fault::Flicker {
                point: point(p)?,
                probability: if q.eq_ignore_ascii_case("off") {
                    0.0
                } else {
                    q.parse()
                        .ok()
                        .filter(|v: &f64| (0.0..=1.0).contains(v))
                        .ok_or_else(|| {
                            err(format!("'{q}' is not a probability from 0 to 1 (or off)"))
                        })?
                },
            },
            [] => return Err(err("no fault given".into())),
            [kind, ..] => {
                return Err(err(format!(
                    "'{kind}' takes other arguments, or is not a fault \
                     (unplug T, silence T, garbage N, corrupt N, stuck P S, flicker P X)"
                )))
            }
        };
        Ok(FaultCommand { when, fault })
    }
}

/// Flips one byte of an encoded frame (not a delimiter, never into one), so that the
/// receiver's CRC (or COBS) check rejects that frame and only that frame.
pub fn corrupt_frame(bytes: &mut [u8], rng: &mut impl RngCore) {
    let inner: Vec<usize> = (0..bytes.len()).filter(|i| bytes[*i] != 0).collect();
    if inner.is_empty() {
        return;
    }
    let i = inner[(rng.next_u32() as usize) % inner.len()];
    let mut flip = (rng.next_u32() % 255 + 1) as u8;
    if bytes[i] ^ flip == 0 {
        flip ^= 0x01;
    }
    bytes[i] ^= flip;
}

/// A fault as one readable command.
pub fn describe(fault: &Fault) -> String {
    match fault {
        Fault::Unplug { ms } => format!("unplug {ms}ms"),
        Fault::Silence { ms } => format!("silence {ms}ms"),
        Fault::Garbage { bytes } => format!("garbage {bytes}"),
        Fault::Corrupt { frames } => format!("corrupt {frames}"),
        Fault::Stuck { point, state } => format!(
            "stuck {point} {}",
            match state {
                Some(PointState::Black) => "B",
                Some(PointState::White) => "W",
                Some(PointState::Empty) => "E",
                Some(PointState::Unknown) => "U",
                None => "off",
            }
        ),
        Fault::Flicker { point, probability } => format!("flicker {point} {probability}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use tengen_hal::serial::{Body, Decoder, Encoder, RawFormat};
    use tengen_hal::FrameData;

    fn parse(line: &str) -> Result<FaultCommand, FaultError> {
        FaultCommand::parse(line, 19)
    }

    #[test]
    fn commands_parse_with_their_time() {
        let k10 = Point::parse_gtp("K10", 19).unwrap();
        assert_eq!(
            parse("at 5s unplug 1500ms").unwrap(),
            FaultCommand {
                when: When::At(5000),
                fault: Fault::Unplug { ms: 1500 }
            }
        );
        assert_eq!(
            parse("move 12 stuck K10 B").unwrap(),
            FaultCommand {
                when: When::Move(12),
                fault: Fault::Stuck {
                    point: k10,
                    state: Some(PointState::Black)
                }
            }
        );
        assert_eq!(
            parse("flicker K10 off").unwrap().fault,
            Fault::Flicker {
                point: k10,
                probability: 0.0
            }
        );
        assert_eq!(parse("garbage 300").unwrap().when, When::Now);
        assert_eq!(
            parse("corrupt 4").unwrap().fault,
            Fault::Corrupt { frames: 4 }
        );
        assert_eq!(
            parse("silence 2s").unwrap().fault,
            Fault::Silence { ms: 2000 }
        );
    }

    #[test]
    fn bad_commands_say_what_is_wrong() {
        for (line, needle) in [
            ("unplug", "takes other arguments"),
            ("explode 3", "is not a fault"),
            ("at soon unplug 1s", "is not a time"),
            ("move 0 garbage 3", "is not a move number"),
            ("flicker K10 1.5", "probability"),
            ("stuck Z99 B", "Z99"),
            ("stuck K10 Q", "sensor state"),
            ("", "no fault"),
        ] {
            let e = parse(line).unwrap_err().to_string();
            assert!(e.contains(needle), "{line}: {e}");
        }
    }

    #[test]
    fn a_corrupted_frame_is_rejected_and_the_next_one_read() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for _ in 0..200 {
            let mut enc = Encoder::new(RawFormat::U16);
            let mut bad = Vec::new();
            enc.encode(
                10,
                Body::Scan(FrameData::Classified(vec![PointState::Black; 9])),
                &mut bad,
            )
            .unwrap();
            corrupt_frame(&mut bad, &mut rng);
            let mut good = Vec::new();
            enc.encode(
                20,
                Body::Scan(FrameData::Classified(vec![PointState::White; 9])),
                &mut good,
            )
            .unwrap();
            let mut out = Vec::new();
            let mut d = Decoder::new();
            d.feed(&[bad, good].concat(), &mut out);
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].message.time, 20);
        }
    }
}
