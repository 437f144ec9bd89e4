//! `tengen calibrate [--config FILE]` (docs/operating.md, "Commands"): guided calibration on real
//! hardware. Prompts on stdout, Enter on stdin: the empty board, then black stones, then
//! white stones (a full bowl laid out, or a few stones moved around until every point has
//! had one); the hal's `Calibrator` computes each point's levels and flags bad sensors;
//! the file named by `hardware.calibration` is written. Exit 2 for a bad config, 1 when
//! the backend is not real hardware or the calibration fails.

use std::io::{BufRead, Write};

use tengen_hal::calibration::guided::{Calibrator, Outcome, Stage};
use tengen_hal::calibration::AdcBits;
use tengen_hal::{Frame, FrameData};

use super::args::CalibrateArgs;
use super::CliError;
use crate::config::{Backend, Config};

/// Scans taken for the empty board, and per round of stones.
pub const FRAMES_PER_ROUND: usize = 100;

/// Runs `tengen calibrate`.
pub fn run(args: CalibrateArgs) -> Result<(), CliError> {
    let config = Config::load(&args.config).map_err(|e| CliError::config(&e))?;
    let (mut scan, bits) = open_scanner(&config)?;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let outcome = guide(
        &mut *scan,
        config.board.size,
        bits,
        &mut stdin.lock(),
        &mut stdout.lock(),
    )?;
    save(&config, &outcome, &mut std::io::stdout())
}

/// Writes the calibration file and says what was flagged.
pub fn save(config: &Config, outcome: &Outcome, out: &mut dyn Write) -> Result<(), CliError> {
    let path = &config.hardware.calibration;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::work(format!("{}: {e}", dir.display())))?;
    }
    outcome
        .calibration
        .save(path)
        .map_err(|e| CliError::work(e.to_string()))?;
    let say = |out: &mut dyn Write, line: String| {
        writeln!(out, "{line}").map_err(|e| CliError::work(format!("stdout: {e}")))
    };
    for issue in &outcome.issues {
        say(out, format!("  {issue}"))?;
    }
    say(
        out,
        format!(
            "Calibration written to {} ({}).",
            path.display(),
            if outcome.is_clean() {
                "every point is usable".to_string()
            } else {
                let faults = outcome.issues.iter().filter(|i| i.kind.is_fault()).count();
                format!("{faults} points have faults and use default levels: check their sensors")
            }
        ),
    )
}

/// Why a scan for the calibration did not come.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The microcontroller sent no scan in time.
    #[error("{path}: no scan for 2 s{reason}")]
    Silent {
        /// Its device.
        path: std::path::PathBuf,
        /// The link's last failure, as ` (why)`, or nothing.
        reason: String,
    },
    /// The sensors could not be read.
    #[error("sensor scan: {0}")]
    Sensors(Box<dyn std::error::Error + Send + Sync>),
}

/// One raw scan from the hardware.
pub type Scanner = dyn FnMut() -> Result<Frame, ScanError>;

/// The guided procedure over any scanner and any terminal: prompts on `out`, Enter on
/// `input`, frames from `scan`.
pub fn guide(
    scan: &mut Scanner,
    size: u8,
    bits: AdcBits,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let mut cal = Calibrator::new(size, bits).map_err(|e| CliError::work(e.to_string()))?;
    let mut say = |text: &str| -> Result<(), CliError> {
        write!(out, "{text}")
            .and_then(|_| out.flush())
            .map_err(|e| CliError::work(format!("stdout: {e}")))
    };
    let enter = |input: &mut dyn BufRead| -> Result<String, CliError> {
        let mut line = String::new();
        let n = input
            .read_line(&mut line)
            .map_err(|e| CliError::work(format!("stdin: {e}")))?;
        if n == 0 {
            return Err(CliError::work("calibration cancelled (end of input)"));
        }
        Ok(line.trim().to_lowercase())
    };
    say("Step 1 of 3: clear the board (no stones, no hands near it), then press Enter. ")?;
    enter(input)?;
    feed(&mut cal, scan, Stage::Empty, FRAMES_PER_ROUND)?;
    say(&format!(
        "  {FRAMES_PER_ROUND} scans of the empty board taken.\n"
    ))?;
    for (step, stage, colour) in [(2, Stage::Black, "black"), (3, Stage::White, "white")] {
        say(&format!(
            "Step {step} of 3: lay {colour} stones on the board (all points, or as many as you \
             have), then press Enter. "
        ))?;
        enter(input)?;
        loop {
            feed(&mut cal, scan, stage, FRAMES_PER_ROUND)?;
            let missing = cal.missing(stage);
            if missing.is_empty() {
                say(&format!("  every point has seen a {colour} stone.\n"))?;
                break;
            }
            let shown: Vec<String> = missing.iter().take(12).map(|p| p.to_gtp()).collect();
            say(&format!(
                "  {} points still need a {colour} stone ({}{}).\n  Move the {colour} stones \
                 there and press Enter, or type 'done' to finish with what was seen. ",
                missing.len(),
                shown.join(" "),
                if missing.len() > shown.len() {
                    " ..."
                } else {
                    ""
                }
            ))?;
            if enter(input)? == "done" {
                break;
            }
        }
    }
    cal.finish().map_err(|e| CliError::work(e.to_string()))
}

fn feed(cal: &mut Calibrator, scan: &mut Scanner, stage: Stage, n: usize) -> Result<(), CliError> {
    for _ in 0..n {
        let frame = scan().map_err(|e| CliError::work(e.to_string()))?;
        if !matches!(frame.data, FrameData::Raw(_)) {
            return Err(CliError::work(
                "the hardware sends classified states, not raw readings: calibrate its \
                 microcontroller instead",
            ));
        }
        cal.feed(stage, &frame)
            .map_err(|e| CliError::work(e.to_string()))?;
    }
    Ok(())
}

/// The configured hardware as a scanner of raw frames, with its ADC resolution. The
/// simulator is not hardware: exit 1.
fn open_scanner(config: &Config) -> Result<(Box<Scanner>, AdcBits), CliError> {
    match config.hardware.backend {
        Backend::Sim => Err(CliError::work(
            "tengen calibrate needs real hardware: hardware.backend is \"sim\" (use rpi or serial)",
        )),
        Backend::Serial => serial_scanner(config),
        Backend::Rpi => rpi_scanner(config),
    }
}

fn serial_scanner(config: &Config) -> Result<(Box<Scanner>, AdcBits), CliError> {
    use std::time::{Duration, Instant};
    use tengen_hal::serial::{SerialConfig, SerialLink};
    let mut link = SerialLink::new(SerialConfig {
        path: config.hardware.serial.path.clone(),
        baud: config.hardware.serial.baud,
        size: config.board.size,
        ..SerialConfig::default()
    });
    let start = Instant::now();
    let now = move || start.elapsed().as_millis() as u64;
    // Wait for the link and its hello (which says the ADC resolution).
    let deadline = Instant::now() + Duration::from_secs(5);
    while link.hello().is_none() && Instant::now() < deadline {
        link.pump(now(), Duration::from_millis(50));
    }
    let bits = match link.hello().map(|h| h.adc_bits) {
        Some(10) => AdcBits::Ten,
        Some(_) => AdcBits::Twelve,
        None => {
            return Err(CliError::work(format!(
                "{}: no microcontroller answered within 5 s{}",
                config.hardware.serial.path.display(),
                link.last_failure()
                    .map(|f| format!(" ({f})"))
                    .unwrap_or_default()
            )))
        }
    };
    let scanner = move || -> Result<Frame, ScanError> {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            if let Some(frame) = link.next_frame() {
                return Ok(frame);
            }
            if Instant::now() > deadline {
                return Err(ScanError::Silent {
                    path: link.config().path.clone(),
                    reason: link
                        .last_failure()
                        .map(|f| format!(" ({f})"))
                        .unwrap_or_default(),
                });
            }
            link.pump(now(), Duration::from_millis(20));
        }
    };
    Ok((Box::new(scanner), bits))
}

#[cfg(feature = "rpi")]
fn rpi_scanner(config: &Config) -> Result<(Box<Scanner>, AdcBits), CliError> {
    use tengen_hal::SensorMatrix;
    let (pins, wiring) = crate::service::board_setup::rpi_layout(config)
        .map_err(|e| CliError::input(e.to_string()))?;
    let bits = wiring.adc.bits();
    let mut matrix =
        tengen_hal::rpi::open_matrix(&wiring, &pins).map_err(|e| CliError::work(e.to_string()))?;
    let period = std::time::Duration::from_secs(1) / config.hardware.scan_hz;
    let start = std::time::Instant::now();
    let scanner = move || -> Result<Frame, ScanError> {
        std::thread::sleep(period);
        matrix
            .scan(start.elapsed().as_millis() as u64)
            .map_err(|e| ScanError::Sensors(Box::new(e)))
    };
    Ok((Box::new(scanner), bits))
}

#[cfg(not(feature = "rpi"))]
fn rpi_scanner(_config: &Config) -> Result<(Box<Scanner>, AdcBits), CliError> {
    Err(CliError::work(
        "hardware.backend = \"rpi\" needs a build with `--features rpi`",
    ))
}
