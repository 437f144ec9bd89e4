//! `[hardware.rpi]`: the direct driver's pins (`pins`, the hal's
//! [`PinConfig`]) and sensor wiring (`wiring`, the hal's [`Wiring`]), read and checked key
//! by key on any machine, with or without the `rpi` feature, so `tengen check-config`
//! names the key at fault (`hardware.rpi.pins.white_button: GPIO 5 is used for both
//! address line S0 and the White button`). The checks are the hal's own
//! ([`PinConfig::validate`], [`Wiring::plan`]) plus the ones between the two tables and the
//! board: the wiring's size is `board.size`, and there is an SPI device for every ADC the
//! wiring uses.

use serde::de::DeserializeOwned;
use tengen_hal::driver::pins::{PinConfigError, SpiSelect};
use tengen_hal::driver::{AdcKind, MuxWiring, PinConfig, Wiring, WiringError};
use toml::{Table, Value};

use super::Problem;

const P: &str = "hardware.rpi";
const PINS: &str = "hardware.rpi.pins";
const WIRING: &str = "hardware.rpi.wiring";

/// The pins and wiring of `[hardware.rpi]` for a board of `size` lines (the hal's
/// defaults where a table is left out: [`PinConfig::default`] and the standard wiring of
/// MCP3208s), or every problem found, each at its key path.
pub fn rpi_layout(table: &Table, size: u8) -> Result<(PinConfig, Wiring), Vec<Problem>> {
    let mut problems = Vec::new();
    for key in table.keys() {
        if key != "pins" && key != "wiring" {
            problems.push(problem(format!("{P}.{key}"), "unknown key"));
        }
    }
    let pins = match table.get("pins") {
        None => Some(PinConfig::default()),
        Some(Value::Table(t)) => read_pins(t, &mut problems),
        Some(_) => {
            problems.push(problem(PINS, "must be a table"));
            None
        }
    };
    let wiring = match table.get("wiring") {
        None => Some(Wiring::standard(size, AdcKind::Mcp3208)),
        Some(Value::Table(t)) => read_wiring(t, size, &mut problems),
        Some(_) => {
            problems.push(problem(WIRING, "must be a table"));
            None
        }
    };
    if let Some(pins) = &pins {
        if let Err(e) = pins.validate() {
            problems.push(pin_problem(pins, &e));
        }
    }
    if let Some(wiring) = &wiring {
        if wiring.size != size {
            problems.push(problem(
                format!("{WIRING}.size"),
                format!("{} but board.size is {size}", wiring.size),
            ));
        } else {
            match wiring.plan() {
                Err(e) => problems.push(wiring_problem(&e)),
                Ok(plan) => {
                    if let Some(pins) = &pins {
                        if plan.adcs > pins.spi.len() {
                            problems.push(problem(
                                format!("{PINS}.spi"),
                                format!(
                                    "the wiring uses {} ADC(s) but {} SPI device(s) are given",
                                    plan.adcs,
                                    pins.spi.len()
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    match (pins, wiring) {
        (Some(p), Some(w)) if problems.is_empty() => Ok((p, w)),
        _ => Err(problems),
    }
}

fn problem(path: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        path: path.into(),
        message: message.into(),
    }
}

/// A serde message on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `table[key]` as a `T`, recording a problem at `prefix.key` when it is not one.
fn field<T: DeserializeOwned>(
    table: &Table,
    prefix: &str,
    key: &str,
    problems: &mut Vec<Problem>,
) -> Option<T> {
    let value = table.get(key)?.clone();
    match value.try_into::<T>() {
        Ok(v) => Some(v),
        Err(e) => {
            problems.push(problem(format!("{prefix}.{key}"), one_line(e.message())));
            None
        }
    }
}

/// Each element of the array `table[key]` as a `T`, problems at `prefix.key[i]`.
fn list<T: DeserializeOwned>(
    table: &Table,
    prefix: &str,
    key: &str,
    problems: &mut Vec<Problem>,
) -> Option<Vec<T>> {
    let value = table.get(key)?;
    let Value::Array(items) = value else {
        problems.push(problem(format!("{prefix}.{key}"), "must be an array"));
        return None;
    };
    let before = problems.len();
    let out: Vec<T> = items
        .iter()
        .enumerate()
        .filter_map(|(i, v)| match v.clone().try_into::<T>() {
            Ok(v) => Some(v),
            Err(e) => {
                problems.push(problem(
                    format!("{prefix}.{key}[{i}]"),
                    one_line(e.message()),
                ));
                None
            }
        })
        .collect();
    (problems.len() == before).then_some(out)
}

fn unknown(table: &Table, prefix: &str, known: &[&str], problems: &mut Vec<Problem>) {
    for key in table.keys() {
        if !known.contains(&key.as_str()) {
            problems.push(problem(format!("{prefix}.{key}"), "unknown key"));
        }
    }
}

fn read_pins(t: &Table, problems: &mut Vec<Problem>) -> Option<PinConfig> {
    unknown(
        t,
        PINS,
        &[
            "spi",
            "spi_clock_hz",
            "address",
            "black_button",
            "white_button",
            "led",
            "led_active_low",
            "debounce_ms",
        ],
        problems,
    );
    let before = problems.len();
    let d = PinConfig::default();
    let pins = PinConfig {
        spi: list::<SpiSelect>(t, PINS, "spi", problems).unwrap_or(d.spi),
        spi_clock_hz: field(t, PINS, "spi_clock_hz", problems).unwrap_or(d.spi_clock_hz),
        address: field(t, PINS, "address", problems).unwrap_or(d.address),
        black_button: field(t, PINS, "black_button", problems).unwrap_or(d.black_button),
        white_button: field(t, PINS, "white_button", problems).unwrap_or(d.white_button),
        led: match t.get("led") {
            Some(Value::Boolean(false)) => None,
            Some(_) => field(t, PINS, "led", problems).or(d.led),
            None => d.led,
        },
        led_active_low: field(t, PINS, "led_active_low", problems).unwrap_or(d.led_active_low),
        debounce_ms: field(t, PINS, "debounce_ms", problems).unwrap_or(d.debounce_ms),
    };
    (problems.len() == before).then_some(pins)
}

fn read_wiring(t: &Table, size: u8, problems: &mut Vec<Problem>) -> Option<Wiring> {
    unknown(t, WIRING, &["size", "adc", "settle_ns", "mux"], problems);
    let before = problems.len();
    let standard = Wiring::standard(size, AdcKind::Mcp3208);
    let mux = match t.get("mux") {
        None => {
            problems.push(problem(
                format!("{WIRING}.mux"),
                "missing: the list of multiplexers ({ adc, channel, points })",
            ));
            Vec::new()
        }
        Some(_) => list::<MuxWiring>(t, WIRING, "mux", problems).unwrap_or_default(),
    };
    let wiring = Wiring {
        size: field(t, WIRING, "size", problems).unwrap_or(size),
        adc: field(t, WIRING, "adc", problems).unwrap_or(standard.adc),
        settle_ns: field(t, WIRING, "settle_ns", problems).unwrap_or(standard.settle_ns),
        mux,
    };
    (problems.len() == before).then_some(wiring)
}

/// The keys holding a GPIO number, in the order [`PinConfig::validate`] checks them.
fn pin_keys(p: &PinConfig) -> Vec<(String, u8)> {
    let mut keys: Vec<(String, u8)> = p
        .address
        .iter()
        .enumerate()
        .map(|(i, &pin)| (format!("{PINS}.address[{i}]"), pin))
        .collect();
    keys.push((format!("{PINS}.black_button"), p.black_button));
    keys.push((format!("{PINS}.white_button"), p.white_button));
    if let Some(led) = p.led {
        keys.push((format!("{PINS}.led"), led));
    }
    keys
}

fn pin_problem(p: &PinConfig, e: &PinConfigError) -> Problem {
    let text = e.to_string();
    let message = text.strip_prefix("pins: ").unwrap_or(&text).to_string();
    let holding = |pin: u8, nth: usize| {
        pin_keys(p)
            .into_iter()
            .filter(|(_, v)| *v == pin)
            .nth(nth)
            .map_or_else(|| PINS.to_string(), |(k, _)| k)
    };
    let path = match e {
        PinConfigError::NoSuchPin { pin, .. } | PinConfigError::SpiPin { pin, .. } => {
            holding(*pin, 0)
        }
        PinConfigError::Shared { pin, .. } => holding(*pin, 1),
        PinConfigError::BadSpi { bus, cs, .. } => p
            .spi
            .iter()
            .rposition(|s| s.bus == *bus && s.cs == *cs)
            .map_or_else(|| format!("{PINS}.spi"), |i| format!("{PINS}.spi[{i}]")),
        PinConfigError::ZeroClock => format!("{PINS}.spi_clock_hz"),
    };
    problem(path, message)
}

fn wiring_problem(e: &WiringError) -> Problem {
    let text = e.to_string();
    let message = text.strip_prefix("wiring: ").unwrap_or(&text).to_string();
    let path = match e {
        WiringError::BadSize(_) => format!("{WIRING}.size"),
        WiringError::BadChannel { mux, .. } => format!("{WIRING}.mux[{mux}].channel"),
        WiringError::SharedChannel { second, .. } => format!("{WIRING}.mux[{second}].channel"),
        WiringError::TooManyPoints { mux, .. } => format!("{WIRING}.mux[{mux}].points"),
        WiringError::BadPoint { mux, input, .. } | WiringError::Duplicate { mux, input, .. } => {
            format!("{WIRING}.mux[{mux}].points[{input}]")
        }
        WiringError::Missing { .. } => format!("{WIRING}.mux"),
        WiringError::AdcCount { .. } => format!("{PINS}.spi"),
        WiringError::Syntax { .. } => WIRING.to_string(),
    };
    problem(path, message)
}
