//! Arbiters' secrets: the Argon2id hashes the hall makes (`tengen hall --add-arbiter NAME`)
//! and accepts, and the example file's secrets it refuses.
//!
//! The hall makes Argon2id hashes with OWASP's parameters (m = 19456 KiB, t = 2, p = 1) and
//! refuses, when it reads its config, any hash that is not Argon2id or is cheaper than that
//! (less memory, or fewer passes), so a password hash copied from an old guide cannot be
//! cracked at a guess-a-millisecond rate.

use argon2::password_hash::{PasswordHash, PasswordHasher, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::Rng;
use thiserror::Error;

/// The least memory (KiB) a password hash may cost (OWASP's Argon2id figure).
pub(crate) const MIN_M_COST: u32 = 19_456;
/// The fewest passes a password hash may make.
pub(crate) const MIN_T_COST: u32 = 2;
/// The shortest password `--add-arbiter` takes (tokens: the same).
pub(crate) const MIN_PASSWORD_CHARS: usize = 12;

/// The secrets the example files and old guides printed: the hall refuses to start with any.
pub(crate) const EXAMPLE_SECRETS: &[&str] = &[
    // config/hall.toml before: `chief` / `change-me-please`, and the deputy's token.
    "$argon2id$v=19$m=4096,t=3,p=1$MDkwMDJlMTkwNzJiNDcyZQ$9jBgyEA6n/eGNHoN15svkzWuFegL2LzgIpaGAobcGY0",
    "replace-this-token-before-the-event",
    "change-me-please",
    // config/hall.toml now: placeholders with the shape of a real entry.
    "$argon2id$v=19$m=19456,t=2,p=1$RVhBTVBMRS1OT1QtQS1TRUNSRVQ$RVhBTVBMRS1OT1QtQS1TRUNSRVQtRVhBTVBMRS1OTw",
    "EXAMPLE-token-make-your-own",
];

/// Why `--add-arbiter` could not make an entry.
#[derive(Debug, Error)]
pub enum ArbiterError {
    /// The name is empty or has control characters.
    #[error("the arbiter's name must not be empty nor hold control characters")]
    BadName,
    /// The password is too short.
    #[error("use a password of at least {MIN_PASSWORD_CHARS} characters")]
    ShortPassword,
    /// Argon2 refused (not expected with these parameters).
    #[error("argon2: {0}")]
    Hash(String),
    /// A role other than `arbiter` and `commentator`.
    #[error("role {0:?}: give arbiter or commentator")]
    BadRole(String),
}

/// The Argon2id hasher with the parameters the hall makes hashes with.
pub(crate) fn hasher() -> Argon2<'static> {
    // The constants are within Argon2's limits: `new` cannot fail.
    let params = Params::new(MIN_M_COST, MIN_T_COST, 1, None).unwrap_or_else(|_| Params::default());
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// An Argon2id PHC string of `password` with a random salt.
pub(crate) fn hash_password(password: &str) -> Result<String, ArbiterError> {
    let salt_bytes: [u8; 16] = rand::rng().random();
    let salt =
        SaltString::encode_b64(&salt_bytes).map_err(|e| ArbiterError::Hash(e.to_string()))?;
    hasher()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| ArbiterError::Hash(e.to_string()))
}

/// The `[[arbiter]]` entry for `name` with the hash of `password`, as `config/hall.toml`
/// writes it (`tengen hall --add-arbiter NAME [--role commentator]`). `role` is `arbiter`
/// (the console; the entry then has no `role` line, arbiter being the default) or
/// `commentator` (read-only commentary pages: `role = "commentator"`).
pub fn arbiter_entry(name: &str, password: &str, role: &str) -> Result<String, ArbiterError> {
    let role_line = match role {
        "arbiter" => "",
        "commentator" => "role = \"commentator\"\n",
        other => return Err(ArbiterError::BadRole(other.to_string())),
    };
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(ArbiterError::BadName);
    }
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(ArbiterError::ShortPassword);
    }
    let hash = hash_password(password)?;
    let quoted_name = toml::Value::String(name.to_string()).to_string();
    let quoted_hash = toml::Value::String(hash).to_string();
    Ok(format!(
        "[[arbiter]]\nname = {quoted_name}\npassword_hash = {quoted_hash}\n{role_line}"
    ))
}

/// What is wrong with a configured `password_hash`, if anything: not a PHC string, not
/// Argon2id, or cheaper than the floor.
pub(crate) fn hash_problem(hash: &str) -> Option<String> {
    if EXAMPLE_SECRETS.contains(&hash) {
        return Some(example_problem());
    }
    let Ok(parsed) = PasswordHash::new(hash) else {
        return Some("not an Argon2 PHC string ($argon2id$v=19$m=...)".to_string());
    };
    let fix = "make one with `tengen hall --add-arbiter NAME`";
    if parsed.algorithm != Algorithm::Argon2id.ident() {
        return Some(format!(
            "{} is not accepted, only argon2id: {fix}",
            parsed.algorithm
        ));
    }
    let Ok(params) = Params::try_from(&parsed) else {
        return Some(format!("unreadable Argon2 parameters: {fix}"));
    };
    if params.m_cost() < MIN_M_COST || params.t_cost() < MIN_T_COST {
        return Some(format!(
            "too weak (m={},t={}; at least m={MIN_M_COST},t={MIN_T_COST}): {fix}",
            params.m_cost(),
            params.t_cost()
        ));
    }
    None
}

/// What is wrong with a configured `token`, if anything.
pub(crate) fn token_problem(token: &str) -> Option<String> {
    if EXAMPLE_SECRETS.contains(&token) {
        Some(example_problem())
    } else if token.chars().count() < MIN_PASSWORD_CHARS {
        Some(format!("use at least {MIN_PASSWORD_CHARS} characters"))
    } else {
        None
    }
}

fn example_problem() -> String {
    "the example file's secret, known to everyone: make your own with \
     `tengen hall --add-arbiter NAME`"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::PasswordVerifier;

    #[test]
    fn entries_hold_a_strong_hash_of_the_password() {
        let entry = arbiter_entry("chief \"A\"", "a long enough password", "arbiter").unwrap();
        let table: toml::Table = entry.parse().expect("the entry is TOML");
        let a = &table["arbiter"].as_array().unwrap()[0];
        assert_eq!(a["name"].as_str(), Some("chief \"A\""));
        let hash = a["password_hash"].as_str().unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert_eq!(hash_problem(hash), None);
        let parsed = PasswordHash::new(hash).unwrap();
        assert!(Argon2::default()
            .verify_password(b"a long enough password", &parsed)
            .is_ok());
        assert!(Argon2::default()
            .verify_password(b"a long enough passwore", &parsed)
            .is_err());
        // Two entries of the same password differ (a random salt each).
        assert_ne!(
            arbiter_entry("chief", "a long enough password", "arbiter").unwrap(),
            arbiter_entry("chief", "a long enough password", "arbiter").unwrap()
        );
    }

    #[test]
    fn a_commentator_entry_is_a_commentator_login() {
        let entry = arbiter_entry("press", "a long enough password", "commentator").unwrap();
        assert!(entry.ends_with("role = \"commentator\"\n"), "{entry}");
        let config = crate::HallConfig::parse(&entry, std::path::Path::new("hall.toml"))
            .expect("a valid hall.toml");
        assert_eq!(config.arbiters[0].role, crate::config::Role::Commentator);
        assert_eq!(config.arbiters[0].name, "press");
        // An arbiter's entry has no role line: arbiter is the default.
        let entry = arbiter_entry("chief", "a long enough password", "arbiter").unwrap();
        assert!(!entry.contains("role"), "{entry}");
        assert!(matches!(
            arbiter_entry("chief", "a long enough password", "chief"),
            Err(ArbiterError::BadRole(_))
        ));
    }

    #[test]
    fn bad_names_and_short_passwords_are_refused() {
        assert!(matches!(
            arbiter_entry(" ", "a long enough password", "arbiter"),
            Err(ArbiterError::BadName)
        ));
        assert!(matches!(
            arbiter_entry("chief\nname = \"x\"", "a long enough password", "arbiter"),
            Err(ArbiterError::BadName)
        ));
        let e = arbiter_entry("chief", "short", "arbiter").unwrap_err();
        assert_eq!(e.to_string(), "use a password of at least 12 characters");
    }

    #[test]
    fn weak_and_foreign_hashes_are_refused() {
        let weak = "$argon2id$v=19$m=4096,t=3,p=1$c29tZXNhbHRzb21lc2FsdA$9jBgyEA6n/eGNHoN15svkzWuFegL2LzgIpaGAobcGY0";
        let e = hash_problem(weak).unwrap();
        assert!(
            e.starts_with("too weak (m=4096,t=3; at least m=19456,t=2)"),
            "{e}"
        );
        let one_pass = "$argon2id$v=19$m=65536,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$9jBgyEA6n/eGNHoN15svkzWuFegL2LzgIpaGAobcGY0";
        assert!(hash_problem(one_pass).unwrap().starts_with("too weak"));
        let argon2i = "$argon2i$v=19$m=65536,t=3,p=1$c29tZXNhbHRzb21lc2FsdA$9jBgyEA6n/eGNHoN15svkzWuFegL2LzgIpaGAobcGY0";
        assert!(hash_problem(argon2i)
            .unwrap()
            .starts_with("argon2i is not accepted, only argon2id"));
        assert!(hash_problem("plain").unwrap().starts_with("not an Argon2"));
        for example in EXAMPLE_SECRETS {
            assert!(
                hash_problem(example).is_some() && token_problem(example).is_some(),
                "{example}"
            );
        }
        assert!(token_problem("EXAMPLE-token-make-your-own")
            .unwrap()
            .starts_with("the example file's secret"));
        assert_eq!(token_problem("0123456789abcdef"), None);
        assert_eq!(
            token_problem("short").as_deref(),
            Some("use at least 12 characters")
        );
    }
}
