//! mosquitto's password file, as `mosquitto_passwd` writes it (mosquitto 2.0):
//! `user:$7$101$<salt>$<hash>`, where 7 is PBKDF2-HMAC-SHA512, 101 its iterations, the salt
//! 12 random bytes and the hash 64 bytes, both in standard base64 with padding.

use std::num::NonZeroU32;

use ring::pbkdf2;
use ring::rand::{SecureRandom, SystemRandom};

/// mosquitto's `$7$`: PBKDF2-HMAC-SHA512.
const HASH_TYPE: u32 = 7;

/// mosquitto's default iterations (`PW_DEFAULT_ITERATIONS`).
const ITERATIONS: u32 = 101;

/// The salt's length (`SALT_LEN`).
pub(crate) const SALT_LEN: usize = 12;

/// The hash's length: SHA-512's output.
const HASH_LEN: usize = 64;

/// The characters of a generated password (letters and digits: nothing a shell, a TOML
/// string or mosquitto's files would read differently).
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A generated password's length: 24 of 62 characters, about 143 bits.
pub(crate) const PASSWORD_LEN: usize = 24;

/// The system's random source failed (no entropy to be had).
#[derive(Debug, thiserror::Error)]
#[error("no random numbers from the system")]
pub(crate) struct NoRandom;

/// `user:$7$101$<salt>$<hash>` for `password` with `salt`.
pub(crate) fn line(user: &str, password: &str, salt: &[u8; SALT_LEN]) -> String {
    let mut hash = [0u8; HASH_LEN];
    let iterations = NonZeroU32::new(ITERATIONS).unwrap_or(NonZeroU32::MIN);
    pbkdf2::derive(
        pbkdf2::PBKDF2_HMAC_SHA512,
        iterations,
        salt,
        password.as_bytes(),
        &mut hash,
    );
    format!(
        "{user}:${HASH_TYPE}${ITERATIONS}${}${}",
        base64(salt),
        base64(&hash)
    )
}

/// A new random salt.
pub(crate) fn salt(random: &SystemRandom) -> Result<[u8; SALT_LEN], NoRandom> {
    let mut salt = [0u8; SALT_LEN];
    random.fill(&mut salt).map_err(|_| NoRandom)?;
    Ok(salt)
}

/// A new random password of [`PASSWORD_LEN`] letters and digits.
pub(crate) fn password(random: &SystemRandom) -> Result<String, NoRandom> {
    // Bytes below 248 (4 x 62) map evenly onto the alphabet; the others are drawn again.
    let mut out = String::with_capacity(PASSWORD_LEN);
    let mut bytes = [0u8; 64];
    while out.len() < PASSWORD_LEN {
        random.fill(&mut bytes).map_err(|_| NoRandom)?;
        for b in bytes.iter().filter(|&&b| b < 248) {
            if out.len() == PASSWORD_LEN {
                break;
            }
            out.push(char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]));
        }
    }
    Ok(out)
}

/// Standard base64 (RFC 4648, `+/`, with `=` padding), as OpenSSL's that mosquitto uses.
fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(TABLE[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line `mosquitto_passwd -b passwd alice secret` wrote (mosquitto 2.0.11).
    #[test]
    fn the_same_line_as_mosquitto_passwd() {
        let salt = [29, 202, 188, 88, 82, 77, 16, 98, 174, 221, 209, 12];
        assert_eq!(
            line("alice", "secret", &salt),
            "alice:$7$101$Hcq8WFJNEGKu3dEM$j1TVu+seTa2lBNWrCwvQFeKuwBCrwu4O/FZUiGFzFvI6bQdKXNh5dfpBWo7U/CiypZTAHs9piMvBPIuIO54mpw=="
        );
    }

    #[test]
    fn base64_pads_as_the_rfc_says() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"\xfb\xff", "+/8="),
        ] {
            assert_eq!(base64(bytes), text);
        }
    }

    #[test]
    fn passwords_are_letters_and_digits_and_differ() {
        let random = SystemRandom::new();
        let a = password(&random).unwrap();
        let b = password(&random).unwrap();
        assert_eq!(a.len(), PASSWORD_LEN);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric()), "{a}");
        assert_ne!(a, b);
        assert_ne!(salt(&random).unwrap(), salt(&random).unwrap());
    }
}
