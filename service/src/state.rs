//! What every handler shares: the database pool, the configuration that matters per request,
//! and the process's request counters for `/metrics`.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use sqlx::PgPool;

/// Shared state (cheap to clone).
#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    /// Reads need a token too.
    pub private: bool,
    /// The dashboard's session cookie carries `Secure` (`--secure-cookies`).
    pub secure_cookies: bool,
    pub counters: Arc<Counters>,
    /// The one-click login of the private cluster's `dashboard:` line (`/?login=SECRET`).
    pub login_link: Option<Arc<LoginLink>>,
}

/// A single-use secret that opens an admin dashboard session (`serve` with the private
/// cluster prints it). Kept in memory only: a restart makes a new one, the old one dies.
#[derive(Debug)]
pub struct LoginLink {
    /// The admin token the session is opened for.
    pub token_id: i64,
    /// SHA-256 of the secret until it is used (comparing digests leaks nothing useful by timing).
    secret_sha256: Mutex<Option<Vec<u8>>>,
}

impl LoginLink {
    pub fn new(token_id: i64, secret: String) -> LoginLink {
        LoginLink { token_id, secret_sha256: Mutex::new(Some(Sha256::digest(secret.as_bytes()).to_vec())) }
    }

    /// Whether `secret` is the link's, using it up: a second call with it is refused.
    pub fn take(&self, secret: &str) -> bool {
        let mut s = self.secret_sha256.lock().unwrap_or_else(|p| p.into_inner());
        match s.as_deref() {
            Some(expected) if expected == &Sha256::digest(secret.as_bytes())[..] => {
                *s = None;
                true
            }
            _ => false,
        }
    }
}

/// Process counters, exported by `/metrics`.
#[derive(Default, Debug)]
pub struct Counters {
    pub requests: AtomicU64,
    pub client_errors: AtomicU64,
    pub server_errors: AtomicU64,
    pub reports_ingested: AtomicU64,
    pub reports_duplicate: AtomicU64,
}

impl AppState {
    pub fn new(pool: PgPool, private: bool) -> AppState {
        AppState { pool, private, secure_cookies: false, counters: Arc::new(Counters::default()), login_link: None }
    }

    /// The same state, with a one-click login link.
    pub fn with_login_link(self, link: LoginLink) -> AppState {
        AppState { login_link: Some(Arc::new(link)), ..self }
    }

    /// The same state, with the session cookie marked `Secure` or not.
    pub fn with_secure_cookies(self, secure: bool) -> AppState {
        AppState { secure_cookies: secure, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_link_works_once_and_only_with_its_secret() {
        let l = LoginLink::new(7, "s3cret".into());
        assert!(!l.take("other"));
        assert!(l.take("s3cret"));
        assert!(!l.take("s3cret"));
    }
}
