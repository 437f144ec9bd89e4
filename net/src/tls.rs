//! The rustls client configuration for `mqtts://` brokers, with the `ring` provider (no C
//! toolchain needed on a Pi): trusted CA certificates from a PEM file, and optionally a
//! client certificate and key for brokers that authenticate boards by certificate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};
use thiserror::Error;

use crate::broker::TlsFiles;

/// Why the TLS configuration could not be built.
#[derive(Debug, Error)]
pub enum TlsError {
    /// `mqtts` needs a CA file: a tournament broker's certificate is not in any web root.
    #[error("mqtt.ca_file: required for an mqtts:// broker")]
    NoCa,
    /// A PEM file could not be read or holds no usable item.
    #[error("{key}: {path}: {message}")]
    Pem {
        /// The config key naming the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Only one of the client certificate and key was given.
    #[error("mqtt.cert_file and mqtt.key_file must be given together")]
    HalfClientAuth,
    /// rustls refused the material (e.g. a key that does not match the certificate).
    #[error("TLS: {0}")]
    Rustls(#[from] rustls::Error),
}

fn pem_err(key: &'static str, path: &Path, message: impl ToString) -> TlsError {
    TlsError::Pem {
        key,
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

fn read_certs(key: &'static str, path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| pem_err(key, path, e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pem_err(key, path, e))?;
    if certs.is_empty() {
        return Err(pem_err(key, path, "no certificate in the file"));
    }
    Ok(certs)
}

/// Builds the client configuration from `files`.
pub fn client_config(files: &TlsFiles) -> Result<Arc<ClientConfig>, TlsError> {
    let provider = Arc::new(ring::default_provider());
    // Other parts of the process (rumqttd, axum) may ask rustls for the process default;
    // make it ring too. An error only means one is installed already.
    let _ = ring::default_provider().install_default();

    if files.cert_file.is_some() != files.key_file.is_some() {
        return Err(TlsError::HalfClientAuth);
    }
    let ca = files.ca_file.as_deref().ok_or(TlsError::NoCa)?;
    let mut roots = RootCertStore::empty();
    for cert in read_certs("mqtt.ca_file", ca)? {
        roots
            .add(cert)
            .map_err(|e| pem_err("mqtt.ca_file", ca, e))?;
    }
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots);
    let config = match (&files.cert_file, &files.key_file) {
        (None, None) => builder.with_no_client_auth(),
        (Some(cert), Some(key)) => {
            let chain = read_certs("mqtt.cert_file", cert)?;
            let key_der =
                PrivateKeyDer::from_pem_file(key).map_err(|e| pem_err("mqtt.key_file", key, e))?;
            builder.with_client_auth_cert(chain, key_der)?
        }
        _ => return Err(TlsError::HalfClientAuth),
    };
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explains_missing_or_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let e = client_config(&TlsFiles::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "mqtt.ca_file: required for an mqtts:// broker"
        );

        let missing = dir.path().join("nope.pem");
        let e = client_config(&TlsFiles {
            ca_file: Some(missing.clone()),
            ..TlsFiles::default()
        })
        .unwrap_err();
        assert!(e.to_string().starts_with("mqtt.ca_file: "), "{e}");

        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "hello\n").unwrap();
        let e = client_config(&TlsFiles {
            ca_file: Some(empty.clone()),
            ..TlsFiles::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("no certificate"), "{e}");

        let e = client_config(&TlsFiles {
            ca_file: Some(empty),
            cert_file: Some(missing),
            key_file: None,
        })
        .unwrap_err();
        assert!(matches!(e, TlsError::HalfClientAuth), "{e}");
    }
}
