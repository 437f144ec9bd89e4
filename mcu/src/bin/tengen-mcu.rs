//! `tengen-mcu`: a simulated tengen board on a pseudo-terminal, speaking the serial
//! protocol (`hal/PROTOCOL.md`) as the scanning microcontroller would, in real time.
//!
//! It plays an SGF game (simulated players, human hands, sensor noise) or a script, prints
//! the device path (and keeps `--link` pointing at it), logs every move's touch-down and
//! stable instants (CLOCK_REALTIME µs) as JSON lines to `--log`, and takes faults from
//! `--fault` flags and, with `--control`, from standard input (one command per line; see
//! `tengen_mcu::faults`). Exit: 0 when the game is over, 2 on bad input, 1 on a failure.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

use clap::Parser;
use tengen_hal::serial::RawFormat;
use tengen_hal::Millis;
use tengen_mcu::faults::{FaultCommand, When};
use tengen_mcu::live::{LiveBoard, LiveOptions};
use tengen_mcu::McuConfig;
use tengen_sim::script::parse_time;
use tengen_sim::{FrameKind, GameOptions, Script, Side, SimOptions, Simulation, ThinkTime};

/// A simulated tengen board on a pseudo-terminal.
#[derive(Debug, Parser)]
#[command(name = "tengen-mcu", version)]
struct Args {
    /// The game to play (simulated players with human timing).
    #[arg(long, conflicts_with = "script", required_unless_present = "script")]
    sgf: Option<PathBuf>,
    /// A script to play (the script language of sim/README.md).
    #[arg(long)]
    script: Option<PathBuf>,
    /// Seed of the human timing, the noise and the faults' random bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Each point reads wrong in each scan with this probability.
    #[arg(long, default_value_t = 0.0)]
    noise: f64,
    /// Thinking time divided by this (an SGF game's hands keep human timing, so the
    /// stable time means what it says): 10 makes the median think 0.4 s.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Scans per second.
    #[arg(long, default_value_t = 100)]
    scan_hz: u16,
    /// Send raw 16-bit readings instead of classified states.
    #[arg(long)]
    raw: bool,
    /// Where Black sits: south, north, east or west.
    #[arg(long, default_value = "south")]
    black_side: String,
    /// Keep this symbolic link pointing at the current pseudo-terminal.
    #[arg(long)]
    link: Option<PathBuf>,
    /// Write the log (JSON lines: plug, fault, move with touch_us/stable_us, end) here.
    #[arg(long)]
    log: Option<PathBuf>,
    /// A fault to apply: `[at TIME | move N] unplug T | silence T | garbage N |
    /// corrupt N | stuck P B|W|E|U|off | flicker P X|off` (repeatable).
    #[arg(long = "fault")]
    faults: Vec<String>,
    /// Read fault commands from standard input, one per line, while the game runs.
    #[arg(long)]
    control: bool,
    /// Empty board scanned before the first action (time for the reader to connect).
    #[arg(long, default_value = "3s")]
    lead_in: String,
    /// Scans sent after the last action.
    #[arg(long, default_value = "2s")]
    tail: String,
    /// The reader's stable time: the log says when the scan completing each move was
    /// sent (`accept` lines).
    #[arg(long, default_value = "150ms")]
    stable: String,
}

/// A failure with its exit code (2: bad input, 1: the run failed).
struct Failure(i32, String);

fn main() {
    let args = Args::parse();
    if let Err(Failure(code, message)) = run(args) {
        eprintln!("tengen-mcu: {message}");
        std::process::exit(code);
    }
}

fn bad(message: impl Into<String>) -> Failure {
    Failure(2, message.into())
}

fn time_arg(name: &str, value: &str) -> Result<Millis, Failure> {
    parse_time(value).map_err(|e| bad(format!("--{name}: {e}")))
}

fn simulation(args: &Args) -> Result<Simulation, Failure> {
    if !(args.speed.is_finite() && args.speed > 0.0) {
        return Err(bad(format!("--speed {}: must be above 0", args.speed)));
    }
    if !(0.0..=1.0).contains(&args.noise) {
        return Err(bad(format!("--noise {}: not a probability", args.noise)));
    }
    let black_side = match args.black_side.as_str() {
        "south" => Side::South,
        "north" => Side::North,
        "east" => Side::East,
        "west" => Side::West,
        other => return Err(bad(format!("--black-side {other}: south|north|east|west"))),
    };
    let options = SimOptions {
        seed: args.seed,
        noise: args.noise,
        scan_hz: u32::from(args.scan_hz.max(1)),
        frames: if args.raw {
            FrameKind::Raw
        } else {
            FrameKind::Classified
        },
        black_side,
        lead_in_ms: time_arg("lead-in", &args.lead_in)?,
        ..SimOptions::default()
    };
    if let Some(path) = &args.sgf {
        let name = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("{name}: {e}")))?;
        let record = tengen_rules::sgf::parse(&text).map_err(|e| bad(format!("{name}: {e}")))?;
        let play = GameOptions {
            think: ThinkTime::human().faster(args.speed),
            ..GameOptions::default()
        };
        Simulation::from_sgf(&record, &options, &play).map_err(|e| bad(format!("{name}: {e}")))
    } else if let Some(path) = &args.script {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("{name}: {e}")))?;
        let script = Script::parse(&text).map_err(|e| bad(e.with_source(&name).to_string()))?;
        Simulation::from_parsed(&script, &options)
            .map_err(|e| bad(e.with_source(&name).to_string()))
    } else {
        Err(bad("give --sgf FILE or --script FILE"))
    }
}

fn run(args: Args) -> Result<(), Failure> {
    let sim = simulation(&args)?;
    let size = sim.size();
    let schedule = args
        .faults
        .iter()
        .map(|f| FaultCommand::parse(f, size).map_err(|e| bad(format!("--fault: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let log: Box<dyn Write + Send> = match &args.log {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| bad(format!("{}: {e}", path.display())))?,
        )),
        None => Box::new(std::io::sink()),
    };
    let options = LiveOptions {
        mcu: McuConfig {
            scan_hz: args.scan_hz.max(1),
            raw_format: RawFormat::U16,
            ..McuConfig::default()
        },
        link: args.link.clone(),
        tail_ms: time_arg("tail", &args.tail)?,
        seed: args.seed,
        stable_ms: time_arg("stable", &args.stable)?,
        ..LiveOptions::default()
    };
    let mut board = LiveBoard::new(sim, options, schedule, log).map_err(|e| bad(e.to_string()))?;
    board.on_plug(|path| {
        println!("pty {}", path.display());
        let _ = std::io::stdout().flush();
    });
    let control = if args.control {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                match FaultCommand::parse(line, size) {
                    Ok(c) if c.when == When::Now => {
                        if tx.send(c).is_err() {
                            break;
                        }
                    }
                    Ok(_) => {
                        eprintln!("tengen-mcu: '{line}': give control commands without a time")
                    }
                    Err(e) => eprintln!("tengen-mcu: {e}"),
                }
            }
        });
        Some(rx)
    } else {
        None
    };
    let stop = AtomicBool::new(false);
    let report = board
        .run(control.as_ref(), &stop)
        .map_err(|e| Failure(1, e.to_string()))?;
    println!(
        "done: {} moves logged, {} scans, {} faults, {} plug-ins",
        report.moves, report.mcu.scans, report.faults, report.plugs
    );
    Ok(())
}
