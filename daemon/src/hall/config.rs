//! The hall's configuration file (`tengen hall --config FILE`, example `config/hall.toml`):
//! how to reach the broker beyond `--broker`, the identity the hall signs its own commands
//! with, and the arbiters who may log in to the console.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::mqtt::settings::TlsFiles;
use crate::mqtt::topics::is_valid_id;

/// Why the hall configuration is unusable; one line naming the file and the key or line.
#[derive(Debug, Error)]
pub enum HallConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Not TOML, an unknown key or a value of the wrong type.
    #[error("{path}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line.
        message: String,
    },
    /// A value that parses but cannot be used.
    #[error("{path}: {key}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key path (`arbiter[1].password_hash`).
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// The whole hall configuration. Every key has a default; an empty file is valid (a public
/// hall without a console login).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HallConfig {
    /// `[mqtt]`: topic prefix, client id, credentials, TLS.
    #[serde(default)]
    pub mqtt: HallMqtt,
    /// `[hall]`: the hall's own identity.
    #[serde(default)]
    pub hall: HallSection,
    /// `[[arbiter]]`: who may log in to the console.
    #[serde(default)]
    pub arbiter: Vec<Arbiter>,
    /// `[broadcast]`: a delay for the public pages and the public topic tree. Without the
    /// section the public pages show every board live (alert counts included) and the
    /// hall publishes nothing of its own.
    #[serde(default)]
    pub broadcast: Option<Broadcast>,
}

/// `[broadcast]`: what the public (the hall's public pages and `{topic_prefix}/...`) sees,
/// and how late. The console and the arbiters' board view stay live.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Broadcast {
    /// Hold back the last this many moves of each game (0: none).
    #[serde(default)]
    pub delay_moves: u32,
    /// Hold back what happened in the last this many minutes (0: none; fractions allowed).
    #[serde(default)]
    pub delay_minutes: f64,
    /// When a game ends the whole game becomes public at once (default true).
    #[serde(default = "yes")]
    pub release_at_end: bool,
    /// The public topic tree: `{topic_prefix}/{tournament}/{board}/{events,state,sgf,status}`
    /// (default `public`).
    #[serde(default = "default_public_prefix")]
    pub topic_prefix: String,
    /// Whether this hall publishes the public tree (default true). With several halls side
    /// by side, exactly one should.
    #[serde(default = "yes")]
    pub republish: bool,
}

impl Broadcast {
    /// The delay as the sans-IO policy.
    pub fn policy(&self) -> crate::hall::delay::DelayPolicy {
        crate::hall::delay::DelayPolicy {
            moves: self.delay_moves,
            // Checked in `HallConfig::check`: finite, 0..=1440.
            window_ms: (self.delay_minutes * 60_000.0).round() as u64,
            release_at_end: self.release_at_end,
        }
    }
}

fn yes() -> bool {
    true
}

fn default_public_prefix() -> String {
    "public".to_string()
}

/// `[mqtt]` of the hall.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HallMqtt {
    /// Topic prefix (default `tengen`): the hall subscribes to `{prefix}/+/+/#`.
    #[serde(default = "default_prefix")]
    pub prefix: String,
    /// Client id; default `tengen-hall-` and random hex, so several halls never clash.
    #[serde(default)]
    pub client_id: Option<String>,
    /// Broker user name.
    #[serde(default)]
    pub username: Option<String>,
    /// File holding the broker password (one line).
    #[serde(default)]
    pub password_file: Option<PathBuf>,
    /// CA certificates for `mqtts://`.
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// Client certificate for brokers that authenticate by certificate.
    #[serde(default)]
    pub cert_file: Option<PathBuf>,
    /// The client certificate's key.
    #[serde(default)]
    pub key_file: Option<PathBuf>,
}

impl Default for HallMqtt {
    fn default() -> Self {
        HallMqtt {
            prefix: default_prefix(),
            client_id: None,
            username: None,
            password_file: None,
            ca_file: None,
            cert_file: None,
            key_file: None,
        }
    }
}

impl HallMqtt {
    /// The TLS files as the MQTT client wants them.
    pub fn tls(&self) -> TlsFiles {
        TlsFiles {
            ca_file: self.ca_file.clone(),
            cert_file: self.cert_file.clone(),
            key_file: self.key_file.clone(),
        }
    }
}

fn default_prefix() -> String {
    "tengen".to_string()
}

/// `[hall]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HallSection {
    /// The name the hall signs its own commands with (`republish`, to fill the history of a
    /// board it did not see from the start). Without it the hall sends no command of its own
    /// and shows a board from its retained `state` and the events it sees live.
    #[serde(default)]
    pub identity: Option<String>,
    /// How long a console login lasts, in hours (default 12).
    #[serde(default)]
    pub session_hours: Option<u64>,
    /// The command key shared with the boards (their `mqtt.command_key_file`): every
    /// command the hall sends is signed with it.
    #[serde(default)]
    pub command_key_file: Option<std::path::PathBuf>,
}

/// One `[[arbiter]]`: a name and either an Argon2 password hash or a token.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arbiter {
    /// Shown in the console and sent as `by` in every command.
    pub name: String,
    /// An Argon2 PHC string (`$argon2id$v=19$m=...`), e.g. from `argon2 SALT -id -e`.
    #[serde(default)]
    pub password_hash: Option<String>,
    /// A shared secret typed instead of a password (for a tablet at the arbiters' desk).
    #[serde(default)]
    pub token: Option<String>,
}

impl HallConfig {
    /// Reads and checks `path`.
    pub fn load(path: &Path) -> Result<HallConfig, HallConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| HallConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        HallConfig::parse(&text, path)
    }

    /// Parses and checks the text of a hall configuration; `path` is only for messages.
    pub fn parse(text: &str, path: &Path) -> Result<HallConfig, HallConfigError> {
        let config: HallConfig = toml::from_str(text).map_err(|e| HallConfigError::Syntax {
            path: path.to_path_buf(),
            message: one_line(text, &e),
        })?;
        config.check(path)?;
        Ok(config)
    }

    fn check(&self, path: &Path) -> Result<(), HallConfigError> {
        let invalid = |key: String, message: &str| HallConfigError::Invalid {
            path: path.to_path_buf(),
            key,
            message: message.to_string(),
        };
        if !self.mqtt.prefix.split('/').all(is_valid_id) {
            return Err(invalid(
                "mqtt.prefix".into(),
                "use lower-case letters, digits and '-' (levels joined by '/')",
            ));
        }
        if self.mqtt.cert_file.is_some() != self.mqtt.key_file.is_some() {
            return Err(invalid(
                "mqtt.cert_file".into(),
                "cert_file and key_file must be given together",
            ));
        }
        if let Some(id) = &self.hall.identity {
            if id.trim().is_empty() {
                return Err(invalid("hall.identity".into(), "must not be empty"));
            }
        }
        if let Some(b) = &self.broadcast {
            if !(b.delay_minutes.is_finite() && (0.0..=1440.0).contains(&b.delay_minutes)) {
                return Err(invalid(
                    "broadcast.delay_minutes".into(),
                    "give minutes from 0 to 1440",
                ));
            }
            if !b.topic_prefix.split('/').all(is_valid_id) {
                return Err(invalid(
                    "broadcast.topic_prefix".into(),
                    "use lower-case letters, digits and '-' (levels joined by '/')",
                ));
            }
            let p = &self.mqtt.prefix;
            let (a, c) = (format!("{p}/"), format!("{}/", b.topic_prefix));
            if a.starts_with(&c) || c.starts_with(&a) {
                return Err(invalid(
                    "broadcast.topic_prefix".into(),
                    "must be a tree of its own, neither inside nor around mqtt.prefix",
                ));
            }
        }
        if self.hall.session_hours == Some(0) {
            return Err(invalid("hall.session_hours".into(), "must be at least 1"));
        }
        for (i, a) in self.arbiter.iter().enumerate() {
            let key = |k: &str| format!("arbiter[{i}].{k}");
            if a.name.trim().is_empty() {
                return Err(invalid(key("name"), "must not be empty"));
            }
            if self.arbiter[..i].iter().any(|b| b.name == a.name) {
                return Err(invalid(key("name"), "the same name is given twice"));
            }
            match (&a.password_hash, &a.token) {
                (None, None) => {
                    return Err(invalid(key("password_hash"), "give password_hash or token"))
                }
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        key("token"),
                        "give password_hash or token, not both",
                    ))
                }
                (Some(h), None) => {
                    if argon2::PasswordHash::new(h).is_err() {
                        return Err(invalid(
                            key("password_hash"),
                            "not an Argon2 PHC string ($argon2id$v=19$m=...)",
                        ));
                    }
                }
                (None, Some(t)) => {
                    if t.chars().count() < 12 {
                        return Err(invalid(key("token"), "use at least 12 characters"));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The TOML error as one line: `line N: message`.
fn one_line(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let line = text
                .get(..span.start)
                .map_or(1, |before| before.matches('\n').count() + 1);
            format!("line {line}: {message}")
        }
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HallConfig, HallConfigError> {
        HallConfig::parse(text, Path::new("hall.toml"))
    }

    #[test]
    fn empty_file_is_a_public_hall() {
        let c = parse("").unwrap();
        assert_eq!(c.mqtt.prefix, "tengen");
        assert!(c.arbiter.is_empty());
        assert!(c.hall.identity.is_none());
    }

    #[test]
    fn reads_arbiters_and_identity() {
        let c = parse(
            "[hall]\nidentity = \"hall-main\"\n[[arbiter]]\nname = \"chief\"\ntoken = \"0123456789abcdef\"\n",
        )
        .unwrap();
        assert_eq!(c.hall.identity.as_deref(), Some("hall-main"));
        assert_eq!(c.arbiter[0].name, "chief");
    }

    #[test]
    fn the_example_file_is_valid_and_its_password_works() {
        let c = parse(include_str!("../../../config/hall.toml")).unwrap();
        assert_eq!(c.hall.identity.as_deref(), Some("hall-desk"));
        let who = crate::hall::auth::verify(&c.arbiter, "chief", "change-me-please");
        assert_eq!(who.as_deref(), Some("chief"));
        assert_eq!(
            crate::hall::auth::verify(&c.arbiter, "chief", "change-me"),
            None
        );
    }

    #[test]
    fn broadcast_section() {
        let c = parse("").unwrap();
        assert!(
            c.broadcast.is_none(),
            "no section: no delay, no public tree"
        );
        let c = parse("[broadcast]\n").unwrap();
        let b = c.broadcast.unwrap();
        assert_eq!(
            (
                b.delay_moves,
                b.topic_prefix.as_str(),
                b.republish,
                b.release_at_end
            ),
            (0, "public", true, true)
        );
        let c = parse("[broadcast]\ndelay_moves = 10\ndelay_minutes = 2.5\nrepublish = false\n")
            .unwrap();
        let p = c.broadcast.unwrap().policy();
        assert_eq!((p.moves, p.window_ms), (10, 150_000));
        for (text, key) in [
            (
                "[broadcast]\ndelay_minutes = -1\n",
                "broadcast.delay_minutes",
            ),
            (
                "[broadcast]\ntopic_prefix = \"tengen\"\n",
                "broadcast.topic_prefix",
            ),
            (
                "[broadcast]\ntopic_prefix = \"tengen/pub\"\n",
                "broadcast.topic_prefix",
            ),
            (
                "[broadcast]\ntopic_prefix = \"Pub\"\n",
                "broadcast.topic_prefix",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with(&format!("hall.toml: {key}: ")), "{e}");
        }
        let e = parse("[broadcast]\ndelay = 3\n").unwrap_err().to_string();
        assert!(e.starts_with("hall.toml: line 2: "), "{e}");
    }

    #[test]
    fn bad_files_name_the_key_or_line() {
        let e = parse("[mqtt]\nprefix = \"tengen\"\ncolour = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("hall.toml: line 3: "), "{e}");
        assert!(!e.contains('\n'));
        let e = parse("[[arbiter]]\nname = \"a\"\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "hall.toml: arbiter[0].password_hash: give password_hash or token"
        );
        let e = parse("[[arbiter]]\nname = \"a\"\npassword_hash = \"plain\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("hall.toml: arbiter[0].password_hash: not an Argon2"),
            "{e}"
        );
        let e = parse("[[arbiter]]\nname = \"a\"\ntoken = \"short\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("arbiter[0].token"), "{e}");
        let e = parse("[mqtt]\nprefix = \"Tengen\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("mqtt.prefix"), "{e}");
    }
}
