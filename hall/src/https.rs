//! HTTPS for the hall (`[hall] tls_cert`, `tls_key`): the rustls server configuration (ring
//! provider). The handshakes are the listener's (`crate::listener`): each in a task of its
//! own, within a few seconds and a few at once per address.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;
use thiserror::Error;
use tokio_rustls::TlsAcceptor;

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
