//! Secrets kept in files beside a config: a broker password and the command key shared by
//! the boards and the hall (see `tengen_protocol::signing`).

use std::path::{Path, PathBuf};

use tengen_protocol::signing::MIN_KEY_LEN;
use thiserror::Error;

/// Why a secret file could not be used.
#[derive(Debug, Error)]
pub enum SecretError {
    /// The file could not be read.
    #[error("{path}: cannot read it: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The command key is too short to be a secret.
    #[error("{path}: the command key must be at least {MIN_KEY_LEN} characters on its first line (e.g. `openssl rand -hex 32`)")]
    ShortKey {
        /// The file.
        path: PathBuf,
    },
}

fn read(path: &Path) -> Result<String, SecretError> {
    std::fs::read_to_string(path).map_err(|source| SecretError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// The password in `path`: its first line (a trailing newline is not part of it).
pub fn read_password_file(path: &Path) -> Result<String, SecretError> {
    Ok(read(path)?.trim_end_matches(['\n', '\r']).to_string())
}

/// A command key: the file's first line, without its line ending, at least
/// [`MIN_KEY_LEN`] bytes.
pub fn read_key(path: &Path) -> Result<Vec<u8>, SecretError> {
    let text = read(path)?;
    let key = text.lines().next().unwrap_or("").trim();
    if key.len() < MIN_KEY_LEN {
        return Err(SecretError::ShortKey {
            path: path.to_path_buf(),
        });
    }
    Ok(key.as_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_files_need_a_real_secret() {
        let dir = tempfile::tempdir().unwrap();
        let short = dir.path().join("short");
        std::fs::write(&short, "abc\n").unwrap();
        assert!(matches!(
            read_key(&short),
            Err(SecretError::ShortKey { .. })
        ));
        let good = dir.path().join("good");
        std::fs::write(&good, "0123456789abcdef0123\nignored").unwrap();
        assert_eq!(read_key(&good).unwrap(), b"0123456789abcdef0123".to_vec());
        let e = read_key(&dir.path().join("none")).unwrap_err().to_string();
        assert!(e.contains("cannot read it"), "{e}");
    }

    #[test]
    fn reads_the_password_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pw");
        std::fs::write(&p, "s3cret\n").unwrap();
        assert_eq!(read_password_file(&p).unwrap(), "s3cret");
        assert!(read_password_file(&dir.path().join("missing")).is_err());
    }
}
