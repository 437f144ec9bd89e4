//! A small HTTP/1.1 client over one kept-alive TCP connection, for many thousands of pollers
//! in one process: a request is one write, an answer is read into the connection's own
//! buffer, and every byte that came off the socket is counted (status line, headers, body,
//! chunk framing), which is what a viewer pays for.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Why a request failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fail {
    /// No connection could be made.
    Connect,
    /// The connection broke during the exchange.
    Io,
    /// No whole answer within the deadline.
    Timeout,
    /// Not an HTTP/1.1 answer this client understands.
    Malformed,
}

/// One answer.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) etag: Option<String>,
    /// `Content-Encoding: gzip`.
    pub(crate) gzip: bool,
    /// The body (without chunk framing; still gzipped when `gzip`).
    pub(crate) body: Vec<u8>,
    /// Bytes read off the socket for this answer: head and body.
    pub(crate) wire: usize,
}

/// One kept-alive connection to `addr`, made again when the server closed it.
pub(crate) struct Conn {
    addr: String,
    stream: Option<TcpStream>,
    buf: Vec<u8>,
    /// Connections made.
    pub(crate) connects: u64,
}

/// What went wrong in one exchange.
enum Broke {
    /// The server had closed the kept connection before answering: try once more.
    Stale,
    Fail(Fail),
}

impl Conn {
    pub(crate) fn new(addr: &str) -> Conn {
        Conn {
            addr: addr.to_string(),
            stream: None,
            buf: Vec::new(),
            connects: 0,
        }
    }

    /// Sends `request` (a whole HTTP/1.1 request head) and reads the answer, within
    /// `deadline`.
    pub(crate) async fn send(
        &mut self,
        request: &[u8],
        deadline: Duration,
    ) -> Result<Answer, Fail> {
        match tokio::time::timeout(deadline, self.send_inner(request)).await {
            Ok(r) => r,
            Err(_) => {
                self.stream = None;
                Err(Fail::Timeout)
            }
        }
    }

    async fn send_inner(&mut self, request: &[u8]) -> Result<Answer, Fail> {
        for attempt in 0..2 {
            let reused = self.stream.is_some();
            if self.stream.is_none() {
                let s = TcpStream::connect(&self.addr)
                    .await
                    .map_err(|_| Fail::Connect)?;
                let _ = s.set_nodelay(true);
                self.stream = Some(s);
                self.connects += 1;
            }
            match self.exchange(request).await {
                Ok(a) => {
                    // A whole file at the start: not kept for the 304s that follow.
                    if self.buf.capacity() > 16 * 1024 {
                        self.buf = Vec::new();
                    }
                    return Ok(a);
                }
                Err(Broke::Stale) if reused && attempt == 0 => {
                    self.stream = None;
                }
                Err(Broke::Stale) => {
                    self.stream = None;
                    return Err(Fail::Io);
                }
                Err(Broke::Fail(f)) => {
                    self.stream = None;
                    return Err(f);
                }
            }
        }
        Err(Fail::Io)
    }

    /// Reads more into the buffer; false at the end of the stream.
    async fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<bool, Broke> {
        if buf.capacity() - buf.len() < 2048 {
            buf.reserve(8192);
        }
        match stream.read_buf(buf).await {
            Ok(0) => Ok(false),
            Ok(_) => Ok(true),
            Err(_) => Err(Broke::Fail(Fail::Io)),
        }
    }

    async fn exchange(&mut self, request: &[u8]) -> Result<Answer, Broke> {
        let Some(stream) = self.stream.as_mut() else {
            return Err(Broke::Fail(Fail::Io));
        };
        let buf = &mut self.buf;
        buf.clear();
        if stream.write_all(request).await.is_err() {
            return Err(Broke::Stale);
        }
        // The head.
        let head_end = loop {
            if let Some(p) = find(buf, b"\r\n\r\n") {
                break p + 4;
            }
            if !Self::fill(stream, buf).await.map_err(|e| match e {
                // A reset on a kept connection before any answer: the server closed it.
                Broke::Fail(Fail::Io) if buf.is_empty() => Broke::Stale,
                e => e,
            })? {
                return Err(if buf.is_empty() {
                    Broke::Stale
                } else {
                    Broke::Fail(Fail::Io)
                });
            }
        };
        let head = Head::parse(&buf[..head_end]).ok_or(Broke::Fail(Fail::Malformed))?;
        let mut body = Vec::new();
        let wire;
        if head.status == 304 || head.status == 204 || (100..200).contains(&head.status) {
            wire = head_end;
        } else if head.chunked {
            let mut pos = head_end;
            loop {
                let line_end = loop {
                    if let Some(p) = find(&buf[pos..], b"\r\n") {
                        break pos + p;
                    }
                    if !Self::fill(stream, buf).await? {
                        return Err(Broke::Fail(Fail::Io));
                    }
                };
                let size_text = std::str::from_utf8(&buf[pos..line_end])
                    .ok()
                    .and_then(|s| s.split(';').next())
                    .map(str::trim)
                    .ok_or(Broke::Fail(Fail::Malformed))?;
                let size = usize::from_str_radix(size_text, 16)
                    .map_err(|_| Broke::Fail(Fail::Malformed))?;
                let data = line_end + 2;
                while buf.len() < data + size + 2 {
                    if !Self::fill(stream, buf).await? {
                        return Err(Broke::Fail(Fail::Io));
                    }
                }
                body.extend_from_slice(&buf[data..data + size]);
                pos = data + size + 2;
                if size == 0 {
                    break;
                }
            }
            wire = pos;
        } else if let Some(len) = head.length {
            while buf.len() < head_end + len {
                if !Self::fill(stream, buf).await? {
                    return Err(Broke::Fail(Fail::Io));
                }
            }
            body.extend_from_slice(&buf[head_end..head_end + len]);
            wire = head_end + len;
        } else {
            // Until the server closes the connection.
            while Self::fill(stream, buf).await? {}
            body.extend_from_slice(&buf[head_end..]);
            wire = buf.len();
            self.stream = None;
        }
        if head.close {
            self.stream = None;
        }
        Ok(Answer {
            status: head.status,
            etag: head.etag,
            gzip: head.gzip,
            body,
            wire,
        })
    }
}

/// The first place `needle` occurs in `hay`.
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// What this client reads of an answer's head.
struct Head {
    status: u16,
    length: Option<usize>,
    chunked: bool,
    close: bool,
    gzip: bool,
    etag: Option<String>,
}

impl Head {
    fn parse(head: &[u8]) -> Option<Head> {
        let text = std::str::from_utf8(head).ok()?;
        let mut lines = text.split("\r\n");
        let status_line = lines.next()?;
        let mut parts = status_line.split(' ');
        let version = parts.next()?;
        if !version.starts_with("HTTP/1.") {
            return None;
        }
        let status: u16 = parts.next()?.parse().ok()?;
        let mut h = Head {
            status,
            length: None,
            chunked: false,
            close: version == "HTTP/1.0",
            gzip: false,
            etag: None,
        };
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                h.length = value.parse().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                h.chunked = value.to_ascii_lowercase().contains("chunked");
            } else if name.eq_ignore_ascii_case("connection") {
                let v = value.to_ascii_lowercase();
                if v.contains("close") {
                    h.close = true;
                } else if v.contains("keep-alive") {
                    h.close = false;
                }
            } else if name.eq_ignore_ascii_case("content-encoding") {
                h.gzip = value.eq_ignore_ascii_case("gzip");
            } else if name.eq_ignore_ascii_case("etag") {
                h.etag = Some(value.to_string());
            }
        }
        Some(h)
    }
}
