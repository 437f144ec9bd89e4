//! The Raspberry Pi build, run (issue 12, item 6): the aarch64 `tengen` that CI
//! cross-builds (`--target aarch64-unknown-linux-gnu --features rpi`) runs under
//! `qemu-aarch64` (user-mode emulation) as `tengen run` with the `serial` backend. A
//! simulated microcontroller in this process (`tengen_mcu::live`, the engine of the x86_64
//! `tengen-mcu`) plays the first moves of a GNU Go game, captures included, onto a
//! pseudo-terminal. The emulated service must record exactly that game: in `/game.sgf` over
//! HTTP, in the retained MQTT `sgf` of its embedded broker, in `{storage.dir}/game-g1.sgf`
//! and in its journal (each move with the stones the rules core captures), and stop cleanly
//! on SIGTERM. The binary must be an aarch64 ELF and the process running it qemu, so the
//! host build cannot stand in for it.
//!
//! `TENGEN_PI_BIN` names the binary (CI sets it to the one it built); without it the test
//! skips, as it does without `qemu-aarch64` on `PATH`. A missing emulator is a failure when
//! `TENGEN_PI_BIN` is set or `TENGEN_REQUIRE_ORACLES=1`; with `TENGEN_PI_BIN` set, so is a
//! missing binary, aarch64 glibc (`libc6-dev-arm64-cross`) or `aarch64-linux-gnu-gcc`.
//! Locally:
//!
//! ```text
//! cargo build --release --target aarch64-unknown-linux-gnu -p tengen-daemon --features rpi
//! TENGEN_PI_BIN=target/aarch64-unknown-linux-gnu/release/tengen \
//!     cargo test -p tengen-daemon --test realtime pi_qemu -- --nocapture
//! ```
//!
//! One gap of the emulator, not of the Pi: qemu-user as Debian 12 ships it (7.2; upstream
//! took termios2 patches only in late 2025) does not know the `termios2` ioctls
//! (`TCGETS2`/`TCSETS2`, 0x802c542a/0x402c542b), which the `serialport` crate uses on Linux
//! to set up the port, so opening the serial device fails there with ENOSYS ("Function not
//! implemented", seen with `QEMU_STRACE=1`); a Linux kernel, the Pi's included, has had
//! them since 2.6.20. The test preloads into the emulated process a small shim, built here
//! with `aarch64-linux-gnu-gcc`, that passes every ioctl through and only when a `termios2`
//! one comes back ENOSYS does it with `TCGETS`/`TCSETS` (the old ioctls, which qemu
//! translates) and the same speed. It says on stderr whether it had to, and the test prints
//! that.

use crate::broker;
use crate::http;
use crate::played_moves;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tengen_daemon::journal::Journal;
use tengen_mcu::live::{LiveBoard, LiveOptions};
use tengen_protocol::Event;
use tengen_rules::{Color, Move};
use tengen_sim::{GameInput, GameOptions, SimOptions, Simulation, ThinkTime};

/// The source game: a 9x9 GNU Go game of the rules fixtures whose move 23 captures.
const GAME: &str = "../rules/tests/fixtures/gnugo/games/9/game_0020.sgf";
/// How many of its moves are played (about 1.3 s each with human hands).
const MOVES: usize = 24;
/// Thinking time divided by this, as `tengen-mcu --speed` does (hands keep human timing).
const SPEED: f64 = 50.0;
const STABLE_MS: u64 = 150;
const BOARD: &str = "pi-01";
const TOURNAMENT: &str = "pi";

/// `EM_AARCH64`, the ELF machine number of 64-bit Arm.
const EM_AARCH64: u16 = 183;

/// The `termios2` shim preloaded into the emulated process (see the module doc).
const TERMIOS2_SHIM: &str = r#"
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <asm/ioctls.h>
#include <asm/termbits.h>

static const struct { unsigned code, baud; } speeds[] = {
    {B0, 0}, {B50, 50}, {B75, 75}, {B110, 110}, {B134, 134}, {B150, 150}, {B200, 200},
    {B300, 300}, {B600, 600}, {B1200, 1200}, {B1800, 1800}, {B2400, 2400}, {B4800, 4800},
    {B9600, 9600}, {B19200, 19200}, {B38400, 38400}, {B57600, 57600}, {B115200, 115200},
    {B230400, 230400}, {B460800, 460800}, {B500000, 500000}, {B576000, 576000},
    {B921600, 921600}, {B1000000, 1000000}, {B1152000, 1152000}, {B1500000, 1500000},
    {B2000000, 2000000}, {B2500000, 2500000}, {B3000000, 3000000}, {B3500000, 3500000},
    {B4000000, 4000000},
};

static unsigned baud_of(unsigned code) {
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (speeds[i].code == code) return speeds[i].baud;
    return 0;
}

static int code_of(unsigned baud, unsigned *code) {
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (speeds[i].baud == baud) { *code = speeds[i].code; return 1; }
    return 0;
}

/* One line on stderr per kind of translation, the first time. */
static void note(int *said, const char *line) {
    if (*said) return;
    *said = 1;
    ssize_t n = write(2, line, strlen(line));
    (void)n;
}

int ioctl(int fd, unsigned long req, ...) {
    static int said_get, said_set;
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    long r = syscall(SYS_ioctl, fd, req, arg);
    if (r != -1 || errno != ENOSYS) return (int)r;
    if (req == TCGETS2) {
        struct termios t;
        struct termios2 *t2 = arg;
        if (syscall(SYS_ioctl, fd, TCGETS, &t) == -1) return -1;
        memset(t2, 0, sizeof *t2);
        memcpy(t2, &t, sizeof t);
        t2->c_ospeed = baud_of(t.c_cflag & CBAUD);
        unsigned in = (t.c_cflag >> IBSHIFT) & CBAUD;
        t2->c_ispeed = in ? baud_of(in) : t2->c_ospeed;
        note(&said_get, "termios2 shim: TCGETS2 is ENOSYS here, done with TCGETS\n");
        return 0;
    }
    unsigned long set = req == TCSETS2 ? TCSETS : req == TCSETSW2 ? TCSETSW
                      : req == TCSETSF2 ? TCSETSF : 0;
    if (set) {
        const struct termios2 *t2 = arg;
        struct termios t;
        memcpy(&t, t2, sizeof t);
        unsigned out = t.c_cflag & CBAUD, in = (t.c_cflag >> IBSHIFT) & CBAUD;
        if (out == BOTHER && !code_of(t2->c_ospeed, &out)) { errno = EINVAL; return -1; }
        if (in == BOTHER && !code_of(t2->c_ispeed, &in)) { errno = EINVAL; return -1; }
        if (in == out) in = 0;
        t.c_cflag = (t.c_cflag & ~(CBAUD | (CBAUD << IBSHIFT))) | out | (in << IBSHIFT);
        if (syscall(SYS_ioctl, fd, set, &t) == -1) return -1;
        note(&said_set, "termios2 shim: TCSETS2 is ENOSYS here, done with TCSETS\n");
        return 0;
    }
    errno = ENOSYS;
    return -1;
}
"#;

/// Where everything the run needs is.
struct Pi {
    /// The aarch64 `tengen`.
    bin: PathBuf,
    /// `qemu-aarch64`.
    qemu: PathBuf,
    /// The aarch64 glibc (qemu's `-L`).
    sysroot: PathBuf,
    /// `aarch64-linux-gnu-gcc`, for the shim.
    gcc: PathBuf,
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `None` (skipped, with one line) when the binary or the emulator is missing and nobody
/// asked for the run; a failure when `TENGEN_PI_BIN` is set or, for the emulator,
/// `TENGEN_REQUIRE_ORACLES=1`.
fn pi() -> Option<Pi> {
    let bin = std::env::var_os("TENGEN_PI_BIN").filter(|v| !v.is_empty());
    let asked = bin.is_some();
    let must = asked || broker::oracles_required();
    let Some(qemu) = on_path("qemu-aarch64") else {
        assert!(
            !must,
            "qemu-aarch64 is not on PATH (TENGEN_PI_BIN set or TENGEN_REQUIRE_ORACLES=1): \
             apt-get install qemu-user"
        );
        eprintln!("skipping: qemu-aarch64 is not on PATH (apt-get install qemu-user)");
        return None;
    };
    let Some(bin) = bin.map(PathBuf::from) else {
        eprintln!(
            "skipping: TENGEN_PI_BIN is not set (cargo build --release --target \
             aarch64-unknown-linux-gnu -p tengen-daemon --features rpi, then \
             TENGEN_PI_BIN=target/aarch64-unknown-linux-gnu/release/tengen)"
        );
        return None;
    };
    // A relative path is taken from the test's directory (the package), else from the
    // workspace root, where the build command leaves the binary.
    let bin = if bin.is_file() {
        bin
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(&bin)
    };
    assert!(
        bin.is_file(),
        "TENGEN_PI_BIN={}: no such file",
        bin.display()
    );
    let sysroot = std::env::var_os("QEMU_LD_PREFIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/aarch64-linux-gnu"));
    assert!(
        sysroot.join("lib/ld-linux-aarch64.so.1").is_file(),
        "{}/lib/ld-linux-aarch64.so.1 is missing: apt-get install libc6-dev-arm64-cross \
         (or set QEMU_LD_PREFIX)",
        sysroot.display()
    );
    let gcc = on_path("aarch64-linux-gnu-gcc")
        .expect("aarch64-linux-gnu-gcc is not on PATH: apt-get install gcc-aarch64-linux-gnu");
    Some(Pi {
        bin,
        qemu,
        sysroot,
        gcc,
    })
}

/// The ELF header says 64-bit little-endian Arm; `file` agrees when it is installed.
fn assert_aarch64(bin: &Path) {
    let bytes = std::fs::read(bin).expect("read the Pi binary");
    assert!(
        bytes.len() > 20 && bytes[..4] == *b"\x7fELF",
        "{}: not an ELF file",
        bin.display()
    );
    assert_eq!(bytes[4], 2, "{}: not a 64-bit ELF", bin.display());
    assert_eq!(bytes[5], 1, "{}: not little-endian", bin.display());
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    assert_eq!(
        machine,
        EM_AARCH64,
        "{}: ELF machine {machine}, not aarch64 ({EM_AARCH64})",
        bin.display()
    );
    if let Ok(out) = Command::new("file").arg("-bL").arg(bin).output() {
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains("aarch64"), "file says: {said}");
        println!("file: {}", said.trim());
    }
}

/// Builds the `termios2` shim into `dir`.
fn build_shim(gcc: &Path, dir: &Path) -> PathBuf {
    let src = dir.join("termios2.c");
    let lib = dir.join("termios2.so");
    std::fs::write(&src, TERMIOS2_SHIM).expect("write the shim's source");
    let out = Command::new(gcc)
        .args([
            "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o",
        ])
        .arg(&lib)
        .arg(&src)
        .output()
        .expect("run aarch64-linux-gnu-gcc");
    assert!(
        out.status.success(),
        "building the termios2 shim: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    lib
}

/// The first [`MOVES`] moves of [`GAME`].
fn source_game() -> GameInput {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GAME);
    let text = std::fs::read_to_string(&path).expect("read the source game");
    let record = tengen_rules::sgf::parse(&text).expect("parse the source game");
    let mut input = GameInput::from_record(&record);
    assert!(input.moves.len() > MOVES, "the game is long enough");
    input.moves.truncate(MOVES);
    input.result = None;
    input
}

/// The moves of an SGF text's main line.
fn sgf_moves(text: &str) -> Vec<(Color, Move)> {
    tengen_rules::sgf::parse(text)
        .unwrap_or_else(|e| panic!("the board's SGF does not parse ({e}): {text}"))
        .moves
        .iter()
        .map(|m| (m.color, m.mv))
        .collect()
}

fn write_config(dir: &Path, mqtt: SocketAddr, http: SocketAddr) -> PathBuf {
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"{BOARD}\"\ntournament = \"{TOURNAMENT}\"\ngame = \"g1\"\n\
             size = 9\n\
             [hardware]\nbackend = \"serial\"\n[hardware.serial]\npath = \"{}\"\n\
             [detection]\nstable_ms = {STABLE_MS}\n\
             [game]\nclock_start = \"now\"\n\
             [time]\nsystem = \"byoyomi\"\nmain = \"10m\"\nperiods = 3\nperiod = \"30s\"\n\
             [mqtt]\nurl = \"embedded\"\nlisten = \"{mqtt}\"\n\
             [http]\nlisten = \"{http}\"\n[storage]\ndir = \"{}\"\n",
            dir.join("tty").display(),
            dir.join("data").display()
        ),
    )
    .expect("write board.toml");
    path
}

/// User plus system CPU time of a process so far (from `/proc`).
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses; utime and stime are the
    // 14th and 15th fields of the whole line.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| Duration::from_secs_f64(ticks as f64 / hz as f64))
}

/// The emulated service; killed if the test fails before it is stopped.
struct Service(Child);

impl Drop for Service {
    fn drop(&mut self) {
        // Nothing to kill once it has been waited for.
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// What the service wrote on stderr (into `path`).
fn read_stderr(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_aarch64_service_records_a_serial_game_under_qemu() {
    let Some(pi) = pi() else {
        return;
    };
    assert_aarch64(&pi.bin);
    let qemu_version = Command::new(&pi.qemu)
        .arg("--version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    println!("{qemu_version}");

    let dir = tempfile::tempdir().expect("temp dir");
    let shim = build_shim(&pi.gcc, dir.path());

    // The simulated board: the game's first moves at SPEED, as `tengen-mcu --speed` plays.
    let input = source_game();
    let want: Vec<(Color, Move)> = input.moves.clone();
    let want_captures = played_moves::rules_moves(input.size, &input.moves);
    let play = GameOptions {
        think: ThinkTime::human().faster(SPEED),
        finish: false,
        ..GameOptions::default()
    };
    let options = SimOptions {
        lead_in_ms: 1500,
        ..SimOptions::seeded(12)
    };
    let sim = Simulation::from_game(&input, &options, &play).expect("the simulated game");
    let live = LiveOptions {
        link: Some(dir.path().join("tty")),
        tail_ms: 1500,
        stable_ms: STABLE_MS,
        seed: 12,
        ..LiveOptions::default()
    };
    let log = std::fs::File::create(dir.path().join("mcu.jsonl")).expect("mcu log");
    let mut board = LiveBoard::new(sim, live, Vec::new(), Box::new(log)).expect("live board");
    let game_ms = board.end_time();

    let mqtt = addr(broker::free_port());
    let http = addr(broker::free_port());
    let config = write_config(dir.path(), mqtt, http);
    // A file, not a pipe: a pipe nobody reads would stop a service that logs much.
    let stderr_path = dir.path().join("tengen.stderr");
    let stderr_file = std::fs::File::create(&stderr_path).expect("stderr file");
    let started = Instant::now();
    let mut run = Service(
        Command::new(&pi.qemu)
            .arg("-L")
            .arg(&pi.sysroot)
            .arg("-E")
            .arg(format!("LD_PRELOAD={}", shim.display()))
            .arg(&pi.bin)
            .args(["run", "--config"])
            .arg(&config)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr_file)
            .spawn()
            .expect("start qemu-aarch64 tengen run"),
    );
    // The process is the emulator (an x86_64 tengen would not be).
    let exe = std::fs::read_link(format!("/proc/{}/exe", run.0.id())).expect("/proc/PID/exe");
    assert_eq!(
        exe,
        std::fs::canonicalize(&pi.qemu).expect("qemu's path"),
        "the service runs in qemu-aarch64"
    );
    let board = std::thread::spawn(move || board.run(None, &AtomicBool::new(false)));

    // Wait for the whole game in `/game.sgf`.
    let deadline = Duration::from_millis(game_ms) + Duration::from_secs(30);
    let mut last = Vec::new();
    let recorded = loop {
        if let Ok(Some(status)) = run.0.try_wait() {
            panic!(
                "tengen run under qemu exited by itself ({status}): {}",
                read_stderr(&stderr_path)
            );
        }
        if broker::wait_listening(http.port(), Duration::from_millis(10)) {
            let r = http::get(http, "/game.sgf", &[]).await;
            // Empty until the service has folded its first events.
            if r.status == 200 && !r.body.is_empty() {
                last = sgf_moves(&r.text());
                if last.len() >= want.len() {
                    break started.elapsed();
                }
            }
        }
        if started.elapsed() > deadline {
            drop(run);
            panic!(
                "after {:?} /game.sgf holds {} of {} moves; stderr: {}",
                started.elapsed(),
                last.len(),
                want.len(),
                read_stderr(&stderr_path)
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(last, want, "/game.sgf is the source game");
    let report = board.join().expect("board thread").expect("board run");
    assert_eq!(
        report.moves,
        want.len(),
        "the simulated board played every move"
    );
    assert_eq!(report.plugs, 1);

    // The retained `sgf` of the embedded broker, which runs in the emulated process too.
    let topic = format!("tengen/{TOURNAMENT}/{BOARD}/sgf");
    let mut sub =
        broker::Subscriber::connect(&format!("mqtt://{mqtt}"), "pi-qemu-test", &[&topic]).await;
    let retained = sub
        .next_on(&topic, Duration::from_secs(10))
        .await
        .expect("a retained sgf");
    sub.stop();
    assert!(retained.retain, "the sgf is retained");
    assert_eq!(
        sgf_moves(&String::from_utf8_lossy(&retained.payload)),
        want,
        "the MQTT sgf is the source game"
    );

    let cpu = cpu_time(run.0.id());
    let _ = Command::new("kill")
        .args(["-TERM", &run.0.id().to_string()])
        .status();
    let status = run.0.wait().expect("wait for tengen run");
    let elapsed = started.elapsed();
    let stderr = read_stderr(&stderr_path);
    assert_eq!(status.code(), Some(0), "SIGTERM ends it cleanly: {stderr}");

    // What it left in its storage directory.
    let data = dir.path().join("data");
    let file = std::fs::read_to_string(data.join("game-g1.sgf")).expect("game-g1.sgf");
    assert_eq!(sgf_moves(&file), want, "game-g1.sgf is the source game");
    let (journal, recovery) = Journal::open(&data, BOARD).expect("open the aarch64 journal");
    assert_eq!(
        recovery.truncated_at, None,
        "a clean stop leaves no torn tail"
    );
    let events = journal.read_from(1).expect("read the journal");
    let journaled = played_moves::journal_moves(&events);
    assert_eq!(
        journaled, want_captures,
        "the journal's moves and captures are the rules core's"
    );
    let captures = want_captures.iter().filter(|m| !m.2.is_empty()).count();
    assert!(captures > 0, "the game captures");
    let alerts = events
        .iter()
        .filter(|e| matches!(e.event, Event::Alert(_)))
        .count();
    assert_eq!(alerts, 0, "a clean game raises no alert");

    let shimmed: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("termios2 shim:"))
        .collect();
    println!(
        "aarch64 tengen run under {}: {} moves ({captures} with captures, no alert) \
         over the serial link, all recorded {:.1} s after the start (the game itself lasts \
         {:.1} s), stopped after {:.1} s, {} CPU",
        pi.qemu.display(),
        want.len(),
        recorded.as_secs_f64(),
        game_ms as f64 / 1000.0,
        elapsed.as_secs_f64(),
        cpu.map_or("unknown".to_string(), |c| format!(
            "{:.1} s",
            c.as_secs_f64()
        ))
    );
    if shimmed.is_empty() {
        println!("this qemu-aarch64 has the termios2 ioctls: the shim passed everything on");
    } else {
        println!(
            "this qemu-aarch64 lacks the termios2 ioctls (a Pi's kernel has them): {}",
            shimmed.join("; ")
        );
    }
}
