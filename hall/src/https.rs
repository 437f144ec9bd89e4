//! HTTPS for the hall (`[hall] tls_cert`, `tls_key`): the rustls server configuration (ring
//! provider) and a listener that hands `axum::serve` only connections whose TLS handshake
//! has completed. Handshakes run in their own tasks (at most [`MAX_HANDSHAKES`] at once,
//! each given [`HANDSHAKE_TIMEOUT`]), so a client that connects and says nothing holds up
//! no one.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;
use thiserror::Error;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// Handshakes under way at most; more connections wait in the kernel's backlog.
const MAX_HANDSHAKES: usize = 64;
/// How long a client has for its handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the HTTPS configuration could not be built.
#[derive(Debug, Error)]
pub enum HttpsError {
    /// A PEM file could not be read or holds nothing usable.
    #[error("hall.{key}: {path}: {message}")]
    Pem {
        /// The config key naming the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// rustls refused the certificate and key (e.g. a key of another certificate).
    #[error("hall.tls_cert/tls_key: {0}")]
    Rustls(#[from] rustls::Error),
}

fn pem_err(key: &'static str, path: &Path, message: impl ToString) -> HttpsError {
    HttpsError::Pem {
        key,
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// The server configuration of the certificate chain in `cert` and the key in `key`.
pub(crate) fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, HttpsError> {
    let chain = CertificateDer::pem_file_iter(cert)
        .map_err(|e| pem_err("tls_cert", cert, e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pem_err("tls_cert", cert, e))?;
    if chain.is_empty() {
        return Err(pem_err("tls_cert", cert, "no certificate in the file"));
    }
    let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| pem_err("tls_key", key, e))?;
    let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key_der)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A TCP listener whose connections come out after their TLS handshake. Dropping it stops
/// the accepting (and closes the port).
pub(crate) struct TlsListener {
    local: SocketAddr,
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
}

impl TlsListener {
    /// Accepts on `tcp` and shakes hands with `acceptor`, in a task of its own until the
    /// listener is dropped.
    pub(crate) fn new(tcp: TcpListener, acceptor: TlsAcceptor) -> std::io::Result<TlsListener> {
        let local = tcp.local_addr()?;
        let (tx, ready) = mpsc::channel(MAX_HANDSHAKES);
        let permits = Arc::new(Semaphore::new(MAX_HANDSHAKES));
        tokio::spawn(async move {
            loop {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    return;
                };
                let accepted = tokio::select! {
                    _ = tx.closed() => return,
                    a = tcp.accept() => a,
                };
                let (stream, peer) = match accepted {
                    Ok(c) => c,
                    Err(e) => {
                        // Out of file descriptors and the like: wait, as axum does.
                        tracing::warn!("hall https: accept: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    let _permit = permit;
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let _ = tx.send((tls, peer)).await;
                        }
                        Ok(Err(e)) => tracing::debug!("hall https: handshake with {peer}: {e}"),
                        Err(_) => tracing::debug!("hall https: handshake with {peer}: timed out"),
                    }
                });
            }
        });
        Ok(TlsListener { local, ready })
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(c) => c,
            // The accepting task ends only when this listener is dropped.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}

/// The client's address, for the login limit, over plain HTTP or HTTPS.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientAddr(pub(crate) SocketAddr);

impl Connected<IncomingStream<'_, TcpListener>> for ClientAddr {
    fn connect_info(stream: IncomingStream<'_, TcpListener>) -> ClientAddr {
        ClientAddr(*stream.remote_addr())
    }
}

impl Connected<IncomingStream<'_, TlsListener>> for ClientAddr {
    fn connect_info(stream: IncomingStream<'_, TlsListener>) -> ClientAddr {
        ClientAddr(*stream.remote_addr())
    }
}
