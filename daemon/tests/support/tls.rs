//! HTTPS for the tests of the hall: a self-signed certificate made by `openssl` for
//! `localhost` and 127.0.0.1, and a client (rustls) that trusts it and connects from a
//! loopback address of the test's choosing, for the requests of `support/http.rs`.
//!
//! Include with `#[path = "support/tls.rs"] mod tls;` (it uses `broker` for
//! [`broker::oracles_required`]).
#![allow(dead_code)]

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::broker;

/// Makes `hall.pem` and `hall.key` in `dir` (P-256, two days, for `localhost` and
/// 127.0.0.1): their paths, or `None` (the test should return, skipped) without openssl,
/// unless `TENGEN_REQUIRE_ORACLES=1`.
pub(crate) fn self_signed(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let out = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "hall.key",
            "-out",
            "hall.pem",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            // Not a CA: rustls refuses a CA's certificate as a server's own.
            "-addext",
            "basicConstraints=critical,CA:FALSE",
        ])
        .current_dir(dir)
        .output();
    match out {
        Ok(out) => {
            assert!(
                out.status.success(),
                "openssl: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            Some((dir.join("hall.pem"), dir.join("hall.key")))
        }
        Err(_) => {
            assert!(
                !broker::oracles_required(),
                "openssl is missing and TENGEN_REQUIRE_ORACLES=1"
            );
            eprintln!("skipped: openssl is not installed");
            None
        }
    }
}

/// A TLS client trusting one certificate, for `localhost`.
#[derive(Clone)]
pub(crate) struct TlsClient {
    connector: TlsConnector,
}

impl TlsClient {
    /// Trusts the certificate (PEM) at `cert`, and nothing else.
    pub(crate) fn trusting(cert: &Path) -> TlsClient {
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_file_iter(cert).expect("read the certificate") {
            roots.add(c.expect("a certificate")).expect("a usable root");
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        TlsClient {
            connector: TlsConnector::from(Arc::new(config)),
        }
    }

    /// Connects from `from` (a loopback address) to `to` and shakes hands, within 5 s.
    pub(crate) async fn connect(
        &self,
        from: IpAddr,
        to: SocketAddr,
    ) -> std::io::Result<TlsStream<TcpStream>> {
        let socket = TcpSocket::new_v4()?;
        socket.bind(SocketAddr::new(from, 0))?;
        self.connect_on(socket, to).await
    }

    async fn connect_on(
        &self,
        socket: TcpSocket,
        to: SocketAddr,
    ) -> std::io::Result<TlsStream<TcpStream>> {
        let shake = async {
            let tcp = socket.connect(to).await?;
            let name = ServerName::try_from("localhost").expect("a name");
            self.connector.connect(name, tcp).await
        };
        tokio::time::timeout(Duration::from_secs(5), shake)
            .await
            .unwrap_or_else(|_| {
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "no TLS handshake within 5 s",
                ))
            })
    }
}
