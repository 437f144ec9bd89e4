//! Why the hall could not start: [`HallError`], each variant one line naming the setting
//! or the file at fault.

use tengen_net::broker::BadUrl;
use tengen_net::secrets::SecretError;
use tengen_net::tls::TlsError;
use thiserror::Error;

use crate::boards::archive::ArchiveError;
use crate::https::HttpsError;
use crate::tournament::link::LinkError;

/// Why the hall could not start (or stopped).
#[derive(Debug, Error)]
pub enum HallError {
    /// `--broker` is not `mqtt://host:port` / `mqtts://host:port`.
    #[error("--broker: {0}")]
    BadBroker(#[from] BadUrl),
    /// The broker password file (`mqtt.password_file`) could not be read.
    #[error("mqtt.password_file: {0}")]
    Password(#[source] SecretError),
    /// The TLS files are unusable.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// The HTTP address could not be bound.
    #[error("--http {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The error.
        source: std::io::Error,
    },
    /// The tournament file (`[tournament] file`) or its results file is unusable.
    #[error("tournament: {0}")]
    Tournament(#[from] LinkError),
    /// `hall.command_key_file` is unusable.
    #[error("hall.command_key_file: {0}")]
    CommandKey(#[source] SecretError),
    /// The archive (`hall.archive_dir`) cannot be read.
    #[error("hall.archive_dir: {0}")]
    Archive(#[from] ArchiveError),
    /// The HTTPS certificate or key (`hall.tls_cert`, `hall.tls_key`) is unusable.
    #[error(transparent)]
    Https(#[from] HttpsError),
}
