//! Console logins: checking an arbiter's password (Argon2) or token, and the cookie sessions
//! that follow. Sessions live in memory only: a restarted hall asks the arbiters to log in
//! again. Time is an input, so expiry is tested without waiting.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use argon2::{Argon2, PasswordHash, PasswordVerifier};
use rand::Rng;
use ring::digest::{digest, SHA256};
use subtle::ConstantTimeEq;

use crate::config::arbiter_secret;
use crate::config::Arbiter;
use serde::{Deserialize, Serialize};

use crate::wall_clock;

/// The name of the session cookie.
pub(crate) const COOKIE: &str = "tengen_hall_session";

/// Checks a name and a password or token against the configured arbiters; the arbiter's
/// name when they match. Unknown names and wrong secrets look the same to the caller, and
/// cost the same: every call makes exactly one Argon2 check (against a hash of a random
/// password when the name is unknown or has a token), and tokens are compared by their
/// SHA-256 in constant time, so neither the time nor the token's length tells anything.
pub(crate) fn verify(arbiters: &[Arbiter], name: &str, secret: &str) -> Option<String> {
    let found = arbiters.iter().find(|a| a.name == name);
    let hash = found
        .and_then(|a| a.password_hash.as_deref())
        .unwrap_or_else(|| dummy_hash());
    let hash_ok = PasswordHash::new(hash)
        .map(|h| {
            Argon2::default()
                .verify_password(secret.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false);
    let a = found?;
    let ok = match (&a.password_hash, &a.token) {
        (Some(_), _) => hash_ok,
        (None, Some(token)) => tokens_equal(token, secret),
        (None, None) => false,
    };
    ok.then(|| a.name.clone())
}

/// A hash made with the hall's parameters of a password nobody knows: what an unknown name
/// is checked against, so that it costs what a known one does.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let random: [u8; 16] = rand::rng().random();
        let password: String = random.iter().map(|b| format!("{b:02x}")).collect();
        arbiter_secret::hash_password(&password).unwrap_or_default()
    })
}

/// Whether two tokens are equal, in a time that depends on neither's content or length.
fn tokens_equal(a: &str, b: &str) -> bool {
    let (da, db) = (digest(&SHA256, a.as_bytes()), digest(&SHA256, b.as_bytes()));
    bool::from(da.as_ref().ct_eq(db.as_ref()))
}

/// The open console sessions: a random id (the cookie's value) to the arbiter's name.
#[derive(Debug)]
pub(crate) struct Sessions {
    lifetime: Duration,
    /// By the SHA-256 (hex) of the session id: what the console store keeps on disk, so
    /// that neither memory nor the file holds a cookie that could be replayed.
    open: HashMap<String, (String, Instant)>,
}

/// One open login: the SHA-256 (hex) of its cookie value, the arbiter, when it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SavedSession {
    /// SHA-256 of the session id, lower-case hex.
    pub(crate) id_sha256: String,
    /// The arbiter's name.
    pub(crate) arbiter: String,
    /// When the session ends, ms since the epoch.
    pub(crate) until_ms: u64,
}

/// The SHA-256 of a session id, lower-case hex.
fn session_key(id: &str) -> String {
    digest(&SHA256, id.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Sessions {
    /// No sessions; each one lasts `lifetime` from its login.
    pub(crate) fn new(lifetime: Duration) -> Sessions {
        Sessions {
            lifetime,
            open: HashMap::new(),
        }
    }

    /// Opens a session for `arbiter` at `now`; returns its id (32 random hex digits).
    pub(crate) fn open(&mut self, arbiter: &str, now: Instant) -> String {
        self.open.retain(|_, (_, until)| *until > now);
        let bytes: [u8; 16] = rand::rng().random();
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.open
            .insert(session_key(&id), (arbiter.to_string(), now + self.lifetime));
        id
    }

    /// The arbiter logged in with session `id`, if it is open at `now`.
    pub(crate) fn arbiter(&self, id: &str, now: Instant) -> Option<String> {
        self.open
            .get(&session_key(id))
            .filter(|(_, until)| *until > now)
            .map(|(name, _)| name.clone())
    }

    /// Ends session `id`.
    pub(crate) fn close(&mut self, id: &str) {
        self.open.remove(&session_key(id));
    }

    /// The sessions open at `now` (wall clock `wall_ms`), for the console store.
    pub(crate) fn saved(&self, now: Instant, wall_ms: u64) -> Vec<SavedSession> {
        let mut out: Vec<SavedSession> = self
            .open
            .iter()
            .filter(|(_, (_, until))| *until > now)
            .map(|(key, (arbiter, until))| SavedSession {
                id_sha256: key.clone(),
                arbiter: arbiter.clone(),
                until_ms: wall_clock::wall_of(*until, now, wall_ms),
            })
            .collect();
        out.sort_by(|a, b| a.id_sha256.cmp(&b.id_sha256));
        out
    }

    /// Takes back the sessions a store kept (those still open), at `now` (wall clock
    /// `wall_ms`). A session never outlasts this hall's `lifetime` from now.
    pub(crate) fn restore(&mut self, saved: &[SavedSession], now: Instant, wall_ms: u64) {
        for s in saved {
            if s.until_ms <= wall_ms {
                continue;
            }
            let left = Duration::from_millis(s.until_ms - wall_ms).min(self.lifetime);
            self.open
                .insert(s.id_sha256.clone(), (s.arbiter.clone(), now + left));
        }
    }
}

/// The value of cookie `name` in a `Cookie:` header.
pub(crate) fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|part| {
        let (k, v) = part.trim().split_once('=')?;
        (k == name).then_some(v.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::password_hash::{PasswordHasher, SaltString};

    fn token_arbiter() -> Arbiter {
        Arbiter {
            name: "deputy".into(),
            password_hash: None,
            token: Some("0123456789abcdef".into()),
            role: crate::config::Role::Arbiter,
        }
    }

    #[test]
    fn passwords_and_tokens() {
        let salt = SaltString::from_b64("c29tZXNhbHRzb21lc2FsdA").unwrap();
        let hash = arbiter_secret::hasher()
            .hash_password(b"go-is-fun", &salt)
            .unwrap()
            .to_string();
        let arbiters = vec![
            Arbiter {
                name: "chief".into(),
                password_hash: Some(hash),
                token: None,
                role: crate::config::Role::Arbiter,
            },
            token_arbiter(),
        ];
        assert_eq!(
            verify(&arbiters, "chief", "go-is-fun").as_deref(),
            Some("chief")
        );
        assert_eq!(verify(&arbiters, "chief", "go-is-fun!"), None);
        assert_eq!(
            verify(&arbiters, "deputy", "0123456789abcdef").as_deref(),
            Some("deputy")
        );
        assert_eq!(verify(&arbiters, "deputy", "0123456789abcde"), None);
        assert_eq!(verify(&arbiters, "nobody", "0123456789abcdef"), None);
        assert_eq!(verify(&arbiters, "deputy", ""), None);
        assert_eq!(verify(&arbiters, "deputy", "0123456789abcdef0"), None);
    }

    #[test]
    fn unknown_names_are_checked_against_a_hash_of_the_same_cost() {
        let dummy = PasswordHash::new(dummy_hash()).expect("a PHC string");
        assert_eq!(arbiter_secret::hash_problem(dummy_hash()), None);
        let params = argon2::Params::try_from(&dummy).unwrap();
        assert_eq!(
            (params.m_cost(), params.t_cost(), params.p_cost()),
            (19_456, 2, 1)
        );
        assert!(tokens_equal("0123456789abcdef", "0123456789abcdef"));
        assert!(!tokens_equal("0123456789abcdef", "0123456789abcdeF"));
        assert!(!tokens_equal("0123456789abcdef", "0123456789abcdef "));
    }

    #[test]
    fn sessions_expire_and_close() {
        let t0 = Instant::now();
        let mut s = Sessions::new(Duration::from_secs(60));
        let a = s.open("chief", t0);
        let b = s.open("deputy", t0);
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert_eq!(
            s.arbiter(&a, t0 + Duration::from_secs(59)).as_deref(),
            Some("chief")
        );
        assert_eq!(s.arbiter(&a, t0 + Duration::from_secs(60)), None);
        s.close(&b);
        assert_eq!(s.arbiter(&b, t0), None);
        assert_eq!(s.arbiter("made-up", t0), None);
    }

    #[test]
    fn finds_the_cookie() {
        let h = "a=1; tengen_hall_session=abc ; b=2";
        assert_eq!(cookie_value(h, COOKIE), Some("abc"));
        assert_eq!(cookie_value("x=1", COOKIE), None);
    }
}
