//! What every handler shares: the database pool, the configuration that matters per request,
//! and the process's request counters for `/metrics`.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

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
        AppState { pool, private, secure_cookies: false, counters: Arc::new(Counters::default()) }
    }

    /// The same state, with the session cookie marked `Secure` or not.
    pub fn with_secure_cookies(self, secure: bool) -> AppState {
        AppState { secure_cookies: secure, ..self }
    }
}
