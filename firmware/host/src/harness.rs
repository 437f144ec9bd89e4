//! The emulator process: `node firmware/emulator/harness.mjs --image ELF`, driven one
//! millisecond of virtual time at a time over its standard input and output (the protocol
//! is described at the top of `harness.mjs`).

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::error::EmulatorError;

/// A byte the firmware wrote to its UART, at virtual time `ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UartByte {
    /// Virtual time of the write (ns since reset).
    pub ns: u64,
    /// The byte.
    pub byte: u8,
}

/// One scan as the emulated ADC saw it: first conversion's start, last one's end (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanSpan {
    /// Start of the first conversion (ns since reset).
    pub start_ns: u64,
    /// End of the last conversion.
    pub end_ns: u64,
}

/// What one millisecond of emulation gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    /// UART bytes, in order.
    pub uart: Vec<UartByte>,
    /// Scans that ended.
    pub scans: Vec<ScanSpan>,
    /// Instructions executed since reset.
    pub instructions: u64,
}

/// The running emulator.
#[derive(Debug)]
pub struct Harness {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    stderr_path: std::path::PathBuf,
}

impl Harness {
    /// Starts `node harness --image image --size size` (the size the board's straps
    /// select) and waits until it has loaded; what it says on stderr goes to
    /// `stderr_path`.
    pub fn spawn(
        node: &Path,
        harness: &Path,
        image: &Path,
        size: u8,
        stderr_path: &Path,
    ) -> Result<Harness, EmulatorError> {
        let stderr = std::fs::File::create(stderr_path).map_err(|e| EmulatorError::Io {
            what: format!("create {}", stderr_path.display()),
            source: e,
        })?;
        let mut child = Command::new(node)
            .arg(harness)
            .arg("--image")
            .arg(image)
            .arg("--size")
            .arg(size.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| EmulatorError::Io {
                what: format!("start {} {}", node.display(), harness.display()),
                source: e,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(EmulatorError::Protocol(
                "the emulator's pipes are missing".into(),
            ));
        };
        let mut harness = Harness {
            child,
            input: BufWriter::new(stdin),
            output: BufReader::new(stdout),
            stderr_path: stderr_path.to_path_buf(),
        };
        // Node.js takes a few hundred ms to load rp2040js and the image: wait for it here,
        // so that a board service started next does not see a silent line meanwhile.
        let mut loaded = [0u8; 1];
        harness.read_exact(&mut loaded)?;
        if loaded[0] != b'H' {
            return Err(EmulatorError::Protocol(format!(
                "expected the emulator's start, got {:#04x}",
                loaded[0]
            )));
        }
        Ok(harness)
    }

    /// What the emulator wrote on stderr so far, for error messages.
    fn stderr(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
        text.lines().last().unwrap_or("").trim().to_string()
    }

    fn broken(&mut self, e: std::io::Error) -> EmulatorError {
        let status = self.child.try_wait().ok().flatten();
        EmulatorError::Died {
            status: status.map_or_else(|| "running".to_string(), |s| s.to_string()),
            detail: format!("{e}; it said: {}", self.stderr()),
        }
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), EmulatorError> {
        match self.output.read_exact(buf) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.broken(e)),
        }
    }

    fn read_u64(&mut self) -> Result<u64, EmulatorError> {
        let mut b = [0u8; 8];
        self.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Runs virtual millisecond `ms` with the board as `readings` and the buttons as
    /// `buttons` (Black's, White's: true while closed).
    pub fn step(
        &mut self,
        ms: u32,
        buttons: [bool; 2],
        readings: &[u16],
    ) -> Result<Chunk, EmulatorError> {
        let mut msg = Vec::with_capacity(8 + 2 * readings.len());
        msg.push(b'B');
        msg.extend_from_slice(&ms.to_le_bytes());
        msg.push(u8::from(buttons[0]) | u8::from(buttons[1]) << 1);
        msg.extend_from_slice(&(readings.len() as u16).to_le_bytes());
        for r in readings {
            msg.extend_from_slice(&r.to_le_bytes());
        }
        if let Err(e) = self.input.write_all(&msg).and_then(|()| self.input.flush()) {
            return Err(self.broken(e));
        }
        let base = u64::from(ms) * 1_000_000;
        let mut chunk = Chunk::default();
        loop {
            let mut kind = [0u8; 1];
            self.read_exact(&mut kind)?;
            match kind[0] {
                b'U' => {
                    let mut n = [0u8; 2];
                    self.read_exact(&mut n)?;
                    let n = u16::from_le_bytes(n) as usize;
                    let mut body = vec![0u8; 5 * n];
                    self.read_exact(&mut body)?;
                    chunk.uart.extend(body.chunks_exact(5).map(|b| UartByte {
                        ns: base + u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                        byte: b[4],
                    }));
                }
                b'S' => {
                    let start_ns = self.read_u64()?;
                    let end_ns = self.read_u64()?;
                    chunk.scans.push(ScanSpan { start_ns, end_ns });
                }
                b'R' => {
                    let mut done = [0u8; 4];
                    self.read_exact(&mut done)?;
                    if u32::from_le_bytes(done) != ms {
                        return Err(EmulatorError::Protocol(format!(
                            "asked for ms {ms}, the emulator answered ms {}",
                            u32::from_le_bytes(done)
                        )));
                    }
                    chunk.instructions = self.read_u64()?;
                    return Ok(chunk);
                }
                other => {
                    return Err(EmulatorError::Protocol(format!(
                        "unknown message {other:#04x} from the emulator"
                    )))
                }
            }
        }
    }

    /// Ends the run and returns the emulator's summary (JSON).
    pub fn finish(mut self) -> Result<serde_json::Value, EmulatorError> {
        if let Err(e) = self.input.write_all(b"E").and_then(|()| self.input.flush()) {
            return Err(self.broken(e));
        }
        let mut head = [0u8; 5];
        self.read_exact(&mut head)?;
        if head[0] != b'Z' {
            return Err(EmulatorError::Protocol(format!(
                "expected the summary, got message {:#04x}",
                head[0]
            )));
        }
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut body = vec![0u8; len];
        self.read_exact(&mut body)?;
        let _ = self.child.wait();
        serde_json::from_slice(&body)
            .map_err(|e| EmulatorError::Protocol(format!("the summary is not JSON: {e}")))
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
