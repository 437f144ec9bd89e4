//! The process's open-files limit (`RLIMIT_NOFILE`). Every connection, stream and file is
//! one descriptor; Linux starts most processes with a soft limit of 1,024 while the hard
//! limit allows far more (systemd: 524,288). [`raise_to_hard`] lifts the soft limit to the
//! hard one at start (`tengen run`, `tengen hall`), and [`soft_limit`] tells the hall how
//! many it may count on when it sizes its connection and stream caps.

use thiserror::Error;

/// The open-files limit before and after [`raise_to_hard`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFiles {
    /// The soft limit found at start (`None`: unlimited).
    pub before: Option<u64>,
    /// The soft limit now.
    pub soft: Option<u64>,
    /// The hard limit (`None`: unlimited), the most the soft one may be raised to.
    pub hard: Option<u64>,
}

impl OpenFiles {
    /// One line for the log: what the limit was and is, and how to raise it further when
    /// it is low.
    pub fn describe(&self) -> String {
        let n = |v: Option<u64>| v.map_or("unlimited".to_string(), |v| v.to_string());
        let advice = match self.soft {
            Some(s) if s < 4096 => {
                "; each open web page takes one: raise LimitNOFILE= in the systemd unit (or \
                 `ulimit -n` before starting)"
            }
            _ => "",
        };
        if self.before == self.soft {
            format!(
                "open files: limit {} (the hard limit){advice}",
                n(self.soft)
            )
        } else {
            format!(
                "open files: soft limit raised from {} to {} (the hard limit){advice}",
                n(self.before),
                n(self.soft)
            )
        }
    }
}

/// Why the limit could not be read or raised.
#[derive(Debug, Error)]
pub enum OpenFilesError {
    /// `setrlimit` refused.
    #[error("open files: could not raise the soft limit from {before} to {hard}: {source}")]
    Raise {
        /// The soft limit, which stays.
        before: String,
        /// The hard limit asked for.
        hard: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// This system has no such limit (not Unix).
    #[error("open files: no limit to raise on this system")]
    Unsupported,
}

/// Raises the soft open-files limit to the hard one and says what it was and is.
#[cfg(unix)]
pub fn raise_to_hard() -> Result<OpenFiles, OpenFilesError> {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let now = getrlimit(Resource::Nofile);
    let limits = OpenFiles {
        before: now.current,
        soft: now.current,
        hard: now.maximum,
    };
    if now.current == now.maximum {
        return Ok(limits);
    }
    let raised = Rlimit {
        current: now.maximum,
        maximum: now.maximum,
    };
    let show = |v: Option<u64>| v.map_or("unlimited".to_string(), |v| v.to_string());
    setrlimit(Resource::Nofile, raised).map_err(|e| OpenFilesError::Raise {
        before: show(now.current),
        hard: show(now.maximum),
        source: e.into(),
    })?;
    Ok(OpenFiles {
        soft: getrlimit(Resource::Nofile).current,
        ..limits
    })
}

/// Raises the soft open-files limit to the hard one and says what it was and is.
#[cfg(not(unix))]
pub fn raise_to_hard() -> Result<OpenFiles, OpenFilesError> {
    Err(OpenFilesError::Unsupported)
}

/// [`raise_to_hard`], logged once: the numbers at `info`, a failure at `warn`.
pub fn raise_and_log() {
    match raise_to_hard() {
        Ok(limits) => tracing::info!("{}", limits.describe()),
        Err(OpenFilesError::Unsupported) => {}
        Err(e) => tracing::warn!("{e}"),
    }
}

/// The soft open-files limit now; `None` when unlimited or unknown.
#[cfg(unix)]
pub fn soft_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

/// The soft open-files limit now; `None` when unlimited or unknown.
#[cfg(not(unix))]
pub fn soft_limit() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_line_says_the_numbers_and_how_to_raise_a_low_limit() {
        let raised = OpenFiles {
            before: Some(1024),
            soft: Some(524_288),
            hard: Some(524_288),
        };
        assert_eq!(
            raised.describe(),
            "open files: soft limit raised from 1024 to 524288 (the hard limit)"
        );
        let stuck = OpenFiles {
            before: Some(1024),
            soft: Some(1024),
            hard: Some(1024),
        };
        let line = stuck.describe();
        assert!(
            line.starts_with("open files: limit 1024 (the hard limit); each open web page"),
            "{line}"
        );
        assert!(line.contains("LimitNOFILE="), "{line}");
    }

    #[cfg(unix)]
    #[test]
    fn raising_leaves_the_soft_limit_at_the_hard_one() {
        let limits = raise_to_hard().expect("raising to the hard limit is always allowed");
        assert_eq!(limits.soft, limits.hard);
        assert_eq!(soft_limit(), limits.soft);
    }
}
