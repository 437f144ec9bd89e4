//! Console logins: checking an arbiter's password (Argon2) or token, and the cookie sessions
//! that follow. Sessions live in memory only: a restarted hall asks the arbiters to log in
//! again. Time is an input, so expiry is tested without waiting.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use argon2::{Argon2, PasswordHash, PasswordVerifier};
use rand::Rng;
use subtle::ConstantTimeEq;

use crate::config::Arbiter;

/// The name of the session cookie.
pub(crate) const COOKIE: &str = "tengen_hall_session";

/// Checks a name and a password or token against the configured arbiters; the arbiter's
/// name when they match. Unknown names and wrong secrets look the same to the caller.
pub(crate) fn verify(arbiters: &[Arbiter], name: &str, secret: &str) -> Option<String> {
    let a = arbiters.iter().find(|a| a.name == name)?;
    let ok = match (&a.password_hash, &a.token) {
        (Some(hash), _) => PasswordHash::new(hash)
            .map(|h| {
                Argon2::default()
                    .verify_password(secret.as_bytes(), &h)
                    .is_ok()
            })
            .unwrap_or(false),
        (None, Some(token)) => bool::from(token.as_bytes().ct_eq(secret.as_bytes())),
        (None, None) => false,
    };
    ok.then(|| a.name.clone())
}

/// The open console sessions: a random id (the cookie's value) to the arbiter's name.
#[derive(Debug)]
pub(crate) struct Sessions {
    lifetime: Duration,
    open: HashMap<String, (String, Instant)>,
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
            .insert(id.clone(), (arbiter.to_string(), now + self.lifetime));
        id
    }

    /// The arbiter logged in with session `id`, if it is open at `now`.
    pub(crate) fn arbiter(&self, id: &str, now: Instant) -> Option<String> {
        self.open
            .get(id)
            .filter(|(_, until)| *until > now)
            .map(|(name, _)| name.clone())
    }

    /// Ends session `id`.
    pub(crate) fn close(&mut self, id: &str) {
        self.open.remove(id);
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
        }
    }

    #[test]
    fn passwords_and_tokens() {
        let salt = SaltString::from_b64("c29tZXNhbHRzb21lc2FsdA").unwrap();
        let hash = Argon2::default()
            .hash_password(b"go-is-fun", &salt)
            .unwrap()
            .to_string();
        let arbiters = vec![
            Arbiter {
                name: "chief".into(),
                password_hash: Some(hash),
                token: None,
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
