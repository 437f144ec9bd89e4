//! The board service on the emulated board's line: a pseudo-terminal (the board's USB or
//! UART device), a board config for `tengen run` with the `serial` backend on it, the
//! service itself, and its record over HTTP.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use crate::error::EmulatorError;
use crate::game::GameSetup;

/// How long a write to the pseudo-terminal may wait for the reader.
const PTY_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// A pseudo-terminal: the emulated board writes to the master, the service opens the
/// slave through a symbolic link (as udev's `/dev/serial/by-id/...`).
pub struct Pty {
    /// The master side.
    pub master: TTYPort,
    _slave: TTYPort,
    /// The link to the slave.
    pub link: PathBuf,
}

impl std::fmt::Debug for Pty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pty").field("link", &self.link).finish()
    }
}

impl Pty {
    /// A new pseudo-terminal, linked from `link`.
    pub fn open(link: &Path) -> Result<Pty, EmulatorError> {
        let (mut master, slave) = TTYPort::pair().map_err(|e| EmulatorError::Io {
            what: "open a pseudo-terminal".into(),
            source: std::io::Error::other(e.to_string()),
        })?;
        master
            .set_timeout(PTY_WRITE_TIMEOUT)
            .map_err(|e| EmulatorError::Io {
                what: "set the pseudo-terminal's timeout".into(),
                source: std::io::Error::other(e.to_string()),
            })?;
        let path = slave.name().ok_or_else(|| {
            EmulatorError::Service("the pseudo-terminal has no device path".into())
        })?;
        let _ = std::fs::remove_file(link);
        std::os::unix::fs::symlink(&path, link).map_err(EmulatorError::io(format!(
            "link {} to {path}",
            link.display()
        )))?;
        Ok(Pty {
            master,
            _slave: slave,
            link: link.to_path_buf(),
        })
    }
}

/// A free TCP port on the loopback interface.
pub fn free_port() -> Result<u16, EmulatorError> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(EmulatorError::io("find a free port"))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(EmulatorError::io("find a free port"))
}

/// Where the service listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ports {
    /// The embedded MQTT broker.
    pub mqtt: u16,
    /// The live page and `/game.sgf`.
    pub http: u16,
}

/// Writes the board config for a board reading `serial` at 1 000 000 baud: the game's
/// size, komi and handicap, the clocks running at once, an embedded broker, `dir/data`
/// for storage; `[hardware.sim]` carries the seed, noise and violations so that
/// `tengen sim --config` on the same file plays the same game.
pub fn write_config(
    dir: &Path,
    serial: &Path,
    game: &GameSetup,
    sim: (u64, f64, f64),
    ports: Ports,
) -> Result<PathBuf, EmulatorError> {
    let mut game_table = String::from("[game]\nclock_start = \"now\"\n");
    if let Some(k) = game.komi {
        game_table.push_str(&format!("komi = {k:?}\n"));
    }
    if let Some(h) = game.handicap {
        game_table.push_str(&format!("handicap = {h}\n"));
    }
    let text = format!(
        "# Written by tengen-emulated-board: a board whose microcontroller is the emulated\n\
         # RP2040 running firmware/rp2040.\n\
         [board]\nid = \"emulated-01\"\ntournament = \"emulated\"\ngame = \"g1\"\nsize = {size}\n\n\
         [hardware]\nbackend = \"serial\"\nscan_hz = 100\n\n\
         [hardware.serial]\npath = \"{serial}\"\nbaud = 1000000\n\n\
         [hardware.sim]\nseed = {seed}\nnoise = {noise:?}\nviolations = {violations:?}\n\n\
         {game_table}\n\
         [mqtt]\nurl = \"embedded\"\nlisten = \"127.0.0.1:{mqtt}\"\n\n\
         [http]\nlisten = \"127.0.0.1:{http}\"\n\n\
         [storage]\ndir = \"{data}\"\n\n\
         [voice]\nstyle = \"off\"\n",
        size = game.size,
        serial = serial.display(),
        seed = sim.0,
        noise = sim.1,
        violations = sim.2,
        mqtt = ports.mqtt,
        http = ports.http,
        data = dir.join("data").display(),
    );
    let path = dir.join("board.toml");
    std::fs::write(&path, text).map_err(EmulatorError::io(format!("write {}", path.display())))?;
    Ok(path)
}

/// `tengen run` as a child process; stopped (SIGTERM) when dropped.
#[derive(Debug)]
pub struct BoardService {
    child: Child,
    http: SocketAddr,
    stderr: PathBuf,
}

impl BoardService {
    /// Starts `tengen run --config config`, logging at `info` (the serial link's
    /// `FramesLost` lines) to `dir/tengen.stderr`.
    pub fn start(
        tengen: &Path,
        config: &Path,
        http: u16,
        dir: &Path,
    ) -> Result<BoardService, EmulatorError> {
        if !tengen.is_file() {
            return Err(EmulatorError::NoService(tengen.to_path_buf()));
        }
        let stderr = dir.join("tengen.stderr");
        let file = std::fs::File::create(&stderr)
            .map_err(EmulatorError::io(format!("create {}", stderr.display())))?;
        let child = Command::new(tengen)
            .args(["run", "--config"])
            .arg(config)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .map_err(EmulatorError::io(format!("start {} run", tengen.display())))?;
        Ok(BoardService {
            child,
            http: SocketAddr::from(([127, 0, 0, 1], http)),
            stderr,
        })
    }

    /// What the service logged.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Fails with the service's last log line if it has exited.
    pub fn check_running(&mut self) -> Result<(), EmulatorError> {
        if let Ok(Some(status)) = self.child.try_wait() {
            let log = self.stderr();
            return Err(EmulatorError::Service(format!(
                "tengen run exited ({status}): {}",
                log.lines().last().unwrap_or("").trim()
            )));
        }
        Ok(())
    }

    /// Waits up to `timeout` for the service's HTTP port.
    pub fn wait_ready(&mut self, timeout: Duration) -> Result<(), EmulatorError> {
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            self.check_running()?;
            if TcpStream::connect_timeout(&self.http, Duration::from_millis(100)).is_ok() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(EmulatorError::Service(format!(
            "not listening on {} after {timeout:?}",
            self.http
        )))
    }

    /// `GET path` on the service: the status code and body.
    pub fn get(&self, path: &str) -> Result<(u16, String), EmulatorError> {
        let what = || format!("GET {path} on {}", self.http);
        let mut s = TcpStream::connect_timeout(&self.http, Duration::from_secs(2))
            .map_err(EmulatorError::io(what()))?;
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .map_err(EmulatorError::io(what()))?;
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.http
        )
        .map_err(EmulatorError::io(what()))?;
        let mut response = Vec::new();
        s.read_to_end(&mut response)
            .map_err(EmulatorError::io(what()))?;
        let text = String::from_utf8_lossy(&response);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let code = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| EmulatorError::Service(format!("{}: no status line", what())))?;
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(body)
        } else {
            body.to_string()
        };
        Ok((code, body))
    }

    /// Stops the service (SIGTERM, as systemd does) and waits for it.
    pub fn stop(mut self) -> Result<(), EmulatorError> {
        self.terminate();
        Ok(())
    }

    fn terminate(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: kill(2) with a pid this process spawned and has not reaped.
            unsafe {
                libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
            }
            let until = Instant::now() + Duration::from_secs(10);
            while Instant::now() < until {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Drop for BoardService {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// The body of a chunked HTTP/1.1 response.
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}
