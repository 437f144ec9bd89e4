//! `tengen-emulated-board`: plays a game on the emulated board (tengen's RP2040 firmware
//! image on rp2040js, the board modelled by tengen-sim) under `tengen run` with the
//! `serial` backend, and writes the board's record. `firmware/run-emulated` is the way in:
//!
//! ```text
//! firmware/run-emulated GAME.sgf --out RECORD.sgf [--report REPORT.json]
//! ```
//!
//! Exit codes: 0 when the record is written, 2 when something is missing (Node.js, the
//! emulator's packages, the image, the service) or the input is bad, 1 when the run fails.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tengen_firmware_host::{play, BoardOptions, EmulatorError, GameSpec, PlayOptions, Source};

/// Plays a game on the emulated RP2040 board under `tengen run` and writes its record.
#[derive(Debug, Parser)]
#[command(name = "tengen-emulated-board", version)]
struct Args {
    /// The game: an SGF file (played by simulated players), or a simulator script (any
    /// other extension).
    game: PathBuf,
    /// Where to write the board's record (SGF).
    #[arg(long)]
    out: PathBuf,
    /// Also write what was measured (JSON): frames, the firmware's counters, scan period,
    /// latency.
    #[arg(long)]
    report: Option<PathBuf>,
    /// The firmware image (default: firmware/rp2040's release build).
    #[arg(long)]
    image: Option<PathBuf>,
    /// The board service (default: `tengen` beside this program).
    #[arg(long)]
    tengen: Option<PathBuf>,
    /// Seed of the players' timing and the noise (`[hardware.sim] seed`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Thinking time divided by this (hands keep human timing); 1 is human pace.
    #[arg(long, default_value_t = 10.0)]
    speed: f64,
    /// Each point reads wrong in each scan with this probability.
    #[arg(long, default_value_t = 0.0)]
    noise: f64,
    /// The chance that the game breaks a rule once (a stone moved, a capture not lifted...).
    #[arg(long, default_value_t = 0.0)]
    violations: f64,
    /// Play only the SGF game's first N moves.
    #[arg(long)]
    moves: Option<usize>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let tengen = args.tengen.clone().unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(|d| d.join("tengen")))
            .unwrap_or_else(|| PathBuf::from("tengen"))
    });
    let is_sgf = args
        .game
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("sgf"));
    let source = if is_sgf {
        Source::Sgf(args.game.clone())
    } else {
        Source::Script(args.game.clone())
    };
    let options = PlayOptions {
        spec: GameSpec {
            source,
            seed: args.seed,
            noise: args.noise,
            violations: args.violations,
            speed: args.speed,
            moves: args.moves,
        },
        image: args.image.clone(),
        tengen,
        board: BoardOptions::default(),
    };
    let played = match play(&options) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tengen-emulated-board: {e}");
            return match e {
                EmulatorError::NoNode
                | EmulatorError::NoEmulator(_)
                | EmulatorError::NoImage(_)
                | EmulatorError::NoService(_)
                | EmulatorError::Game(_) => ExitCode::from(2),
                _ => ExitCode::from(1),
            };
        }
    };
    if let Err(e) = std::fs::write(&args.out, &played.sgf) {
        eprintln!("tengen-emulated-board: write {}: {e}", args.out.display());
        return ExitCode::from(1);
    }
    let r = &played.report;
    let status = r.status.unwrap_or_default();
    eprintln!(
        "record: {} ({} moves read by the firmware's scans, {} not)",
        args.out.display(),
        r.moves_read,
        r.moves_unread
    );
    eprintln!(
        "line: {} bytes, {} messages, {} rejected, {} lost; firmware: {} scans, {} overruns, \
         {} dropped",
        r.bytes,
        r.decoder.messages,
        r.decoder.rejected(),
        r.decoder.lost,
        status.scans,
        status.overruns,
        status.dropped
    );
    eprintln!(
        "scan period {:.1} us (min {:.1}, max {:.1}); a scan takes {:.1} us; stone settled to \
         frame sent: median {:.2} ms, max {:.2} ms",
        r.scan_period_us.median,
        r.scan_period_us.min,
        r.scan_period_us.max,
        r.scan_time_us.median,
        r.latency_ms.median,
        r.latency_ms.max
    );
    eprintln!(
        "emulation: {:.1} s of RP2040 time in {:.1} s, at worst {:.0} ms behind the wall clock",
        r.virtual_ms as f64 / 1000.0,
        r.wall.as_secs_f64(),
        r.max_lag.as_secs_f64() * 1000.0
    );
    if let Some(path) = &args.report {
        let text = serde_json::to_string_pretty(&r.to_json()).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("tengen-emulated-board: write {}: {e}", path.display());
            return ExitCode::from(1);
        }
    }
    if r.frames_bad() > 0 || status.overruns > 0 || status.dropped > 0 {
        eprintln!("tengen-emulated-board: the line or the firmware lost data (see above)");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
