//! How the sensors are wired: which multiplexer channel sees which point, and which ADC
//! channel each multiplexer feeds. Written in the board config (serde), validated into a
//! [`ScanPlan`] so a scan is a plain walk over precomputed reads.
//!
//! ```toml
//! size = 19
//! adc = "mcp3008"      # or "mcp3208"
//! settle_ns = 2000     # after switching the address lines, before the first conversion
//!
//! [[mux]]
//! adc = 0              # which ADC (its chip select: the n-th SPI device given)
//! channel = 0          # the ADC input this multiplexer's output feeds (0..=7)
//! points = ["A19", "B19", "C19", "D19", "E19", "F19", "G19", "H19",
//!           "J19", "K19", "L19", "M19", "N19", "O19", "P19", "Q19"]  # mux inputs 0..=15; "-" = unused
//! ```

use serde::{Deserialize, Serialize};
use tengen_rules::Point;
use thiserror::Error;

use super::adc::AdcKind;

/// The number of inputs of one analog multiplexer (CD74HC4067).
pub const MUX_CHANNELS: usize = 16;

/// The marker for a multiplexer input that sees no point.
pub const UNUSED: &str = "-";

/// The default settle time after switching the address lines, in nanoseconds.
pub const DEFAULT_SETTLE_NS: u32 = 2_000;

/// The whole sensor wiring of a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wiring {
    /// The board size (lines).
    pub size: u8,
    /// The ADC chip.
    pub adc: AdcKind,
    /// Nanoseconds to wait after switching the address lines before converting.
    #[serde(default = "default_settle")]
    pub settle_ns: u32,
    /// Every multiplexer.
    pub mux: Vec<MuxWiring>,
}

fn default_settle() -> u32 {
    DEFAULT_SETTLE_NS
}

/// One multiplexer: where its output goes and what each of its inputs sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MuxWiring {
    /// The ADC its output feeds: an index into the SPI devices (one chip select each).
    pub adc: u8,
    /// The ADC input channel (0..=7).
    pub channel: u8,
    /// The point (GTP, e.g. `Q16`) on each of its inputs 0..=15, `"-"` for none; fewer
    /// than 16 entries leave the last inputs unused.
    pub points: Vec<String>,
}

/// One conversion of a scan: read `adc_channel` of ADC `adc` into point `index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScanRead {
    /// The ADC (SPI device) index.
    pub adc: usize,
    /// The ADC input channel.
    pub adc_channel: u8,
    /// The point's row-major index (row 0 at the top).
    pub index: usize,
}

/// A validated wiring: for each multiplexer address 0..=15, the conversions to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanPlan {
    /// The board size.
    pub size: u8,
    /// The ADC chip.
    pub adc: AdcKind,
    /// How many ADCs (SPI devices) the wiring uses: the highest index + 1.
    pub adcs: usize,
    /// Settle time after switching the address lines (ns).
    pub settle_ns: u32,
    /// The reads at each multiplexer address, in wiring order.
    pub steps: [Vec<ScanRead>; MUX_CHANNELS],
}

/// Why a wiring is not usable. Every message is one line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WiringError {
    /// The board size is not supported.
    #[error("wiring: board size {0} is not supported (2..=25)")]
    BadSize(u8),
    /// A multiplexer names an ADC input that does not exist.
    #[error("wiring: mux {mux} feeds ADC channel {channel}, the ADC has channels 0..=7")]
    BadChannel {
        /// The multiplexer (0-based, in file order).
        mux: usize,
        /// The channel given.
        channel: u8,
    },
    /// Two multiplexers feed the same ADC input.
    #[error("wiring: mux {first} and mux {second} both feed ADC {adc} channel {channel}")]
    SharedChannel {
        /// The ADC.
        adc: u8,
        /// The channel.
        channel: u8,
        /// The first multiplexer.
        first: usize,
        /// The second multiplexer.
        second: usize,
    },
    /// A multiplexer lists more points than it has inputs.
    #[error("wiring: mux {mux} lists {count} points, a mux has 16 inputs")]
    TooManyPoints {
        /// The multiplexer.
        mux: usize,
        /// The entries given.
        count: usize,
    },
    /// A point name that is not a point of this board.
    #[error("wiring: mux {mux} input {input}: {message}")]
    BadPoint {
        /// The multiplexer.
        mux: usize,
        /// The input (0..=15).
        input: usize,
        /// What is wrong with the name.
        message: String,
    },
    /// A point wired twice.
    #[error("wiring: point {point} is on mux {first_mux} input {first_input} and again on mux {mux} input {input}")]
    Duplicate {
        /// The point (GTP).
        point: String,
        /// Where it was first.
        first_mux: usize,
        /// Where it was first.
        first_input: usize,
        /// Where it is again.
        mux: usize,
        /// Where it is again.
        input: usize,
    },
    /// Points no multiplexer sees.
    #[error("wiring: {count} point(s) not wired: {list}")]
    Missing {
        /// How many.
        count: usize,
        /// The first few (GTP).
        list: String,
    },
    /// Fewer SPI devices were given than the wiring uses.
    #[error("wiring uses {needed} ADC(s) but {given} SPI device(s) were given")]
    AdcCount {
        /// ADCs the wiring names.
        needed: usize,
        /// SPI devices given.
        given: usize,
    },
    /// The wiring file could not be parsed.
    #[error("wiring file{where_}: {message}")]
    Syntax {
        /// ` line N` or empty.
        where_: String,
        /// The parser's message, on one line.
        message: String,
    },
}

impl Wiring {
    /// The straightforward wiring of a `size` board: points in board order (row 0 at the
    /// top, left to right), 16 per multiplexer; multiplexer `k` feeds ADC `k / 8`, channel
    /// `k % 8`. A 19x19 board takes 23 multiplexers and 3 ADCs.
    pub fn standard(size: u8, adc: AdcKind) -> Wiring {
        let n = usize::from(size) * usize::from(size);
        let mux = (0..n.div_ceil(MUX_CHANNELS))
            .map(|k| MuxWiring {
                adc: (k / usize::from(AdcKind::CHANNELS)) as u8,
                channel: (k % usize::from(AdcKind::CHANNELS)) as u8,
                points: (k * MUX_CHANNELS..((k + 1) * MUX_CHANNELS).min(n))
                    .map(|i| Point::from_index(i, size).to_gtp())
                    .collect(),
            })
            .collect();
        Wiring {
            size,
            adc,
            settle_ns: DEFAULT_SETTLE_NS,
            mux,
        }
    }

    /// Parses a wiring from TOML.
    pub fn from_toml_str(text: &str) -> Result<Wiring, WiringError> {
        toml::from_str(text).map_err(|e| WiringError::Syntax {
            where_: e
                .span()
                .map(|s| {
                    let line = 1 + text[..s.start.min(text.len())].matches('\n').count();
                    format!(" line {line}")
                })
                .unwrap_or_default(),
            message: e.message().split_whitespace().collect::<Vec<_>>().join(" "),
        })
    }

    /// Checks the wiring (every point exactly once, channels in range, no ADC input fed
    /// twice) and turns it into the reads of each multiplexer address.
    pub fn plan(&self) -> Result<ScanPlan, WiringError> {
        let size = self.size;
        tengen_rules::point::check_size(size).map_err(|_| WiringError::BadSize(size))?;
        let n = usize::from(size) * usize::from(size);
        let mut seen: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut inputs: Vec<((u8, u8), usize)> = Vec::new();
        let mut steps: [Vec<ScanRead>; MUX_CHANNELS] = Default::default();
        let mut adcs = 0;
        for (m, mux) in self.mux.iter().enumerate() {
            if mux.channel >= AdcKind::CHANNELS {
                return Err(WiringError::BadChannel {
                    mux: m,
                    channel: mux.channel,
                });
            }
            if let Some(&(_, first)) = inputs.iter().find(|(k, _)| *k == (mux.adc, mux.channel)) {
                return Err(WiringError::SharedChannel {
                    adc: mux.adc,
                    channel: mux.channel,
                    first,
                    second: m,
                });
            }
            inputs.push(((mux.adc, mux.channel), m));
            if mux.points.len() > MUX_CHANNELS {
                return Err(WiringError::TooManyPoints {
                    mux: m,
                    count: mux.points.len(),
                });
            }
            for (input, name) in mux.points.iter().enumerate() {
                if name.trim() == UNUSED {
                    continue;
                }
                let point = Point::parse_gtp(name, size).map_err(|e| WiringError::BadPoint {
                    mux: m,
                    input,
                    message: e.to_string(),
                })?;
                let index = point.index(size);
                if let Some((first_mux, first_input)) = seen[index] {
                    return Err(WiringError::Duplicate {
                        point: point.to_gtp(),
                        first_mux,
                        first_input,
                        mux: m,
                        input,
                    });
                }
                seen[index] = Some((m, input));
                adcs = adcs.max(usize::from(mux.adc) + 1);
                steps[input].push(ScanRead {
                    adc: usize::from(mux.adc),
                    adc_channel: mux.channel,
                    index,
                });
            }
        }
        let missing: Vec<String> = seen
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_none())
            .map(|(i, _)| Point::from_index(i, size).to_gtp())
            .collect();
        if !missing.is_empty() {
            let mut list = missing
                .iter()
                .take(8)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ");
            if missing.len() > 8 {
                list.push_str(" ...");
            }
            return Err(WiringError::Missing {
                count: missing.len(),
                list,
            });
        }
        Ok(ScanPlan {
            size,
            adc: self.adc,
            adcs,
            settle_ns: self.settle_ns,
            steps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_19_uses_23_muxes_on_3_adcs() {
        let w = Wiring::standard(19, AdcKind::Mcp3008);
        assert_eq!(w.mux.len(), 23);
        assert_eq!(w.mux[22].adc, 2);
        assert_eq!(w.mux[22].channel, 6);
        assert_eq!(w.mux[22].points.len(), 361 - 22 * 16);
        let plan = w.plan().unwrap();
        assert_eq!(plan.adcs, 3);
        assert_eq!(plan.steps.iter().map(Vec::len).sum::<usize>(), 361);
    }

    #[test]
    fn errors_name_the_culprit() {
        let mut w = Wiring::standard(3, AdcKind::Mcp3008);
        w.mux[0].points[4] = "A3".into();
        let e = w.plan().unwrap_err();
        assert_eq!(
            e.to_string(),
            "wiring: point A3 is on mux 0 input 0 and again on mux 0 input 4"
        );

        let mut w = Wiring::standard(3, AdcKind::Mcp3008);
        w.mux[0].points[8] = UNUSED.into();
        assert_eq!(
            w.plan().unwrap_err().to_string(),
            "wiring: 1 point(s) not wired: C1"
        );

        let mut w = Wiring::standard(3, AdcKind::Mcp3008);
        w.mux[0].channel = 8;
        assert!(matches!(
            w.plan(),
            Err(WiringError::BadChannel { mux: 0, channel: 8 })
        ));

        let mut w = Wiring::standard(3, AdcKind::Mcp3008);
        w.mux[0].points[2] = "Z9".into();
        assert_eq!(
            w.plan().unwrap_err().to_string(),
            "wiring: mux 0 input 2: 'Z9' is off a 3x3 board"
        );
    }
}
