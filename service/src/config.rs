//! Server configuration: flags, each with an environment variable (`ptxfuzz-server serve --help`).

use std::net::SocketAddr;

use clap::{Args, ValueEnum};

/// How logs are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per event (for log collectors).
    Json,
}

/// `ptxfuzz-server serve` options.
#[derive(Clone, Debug, Args)]
pub struct Config {
    /// PostgreSQL connection URL. Migrations are applied at start.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: String,
    /// Address and port to listen on.
    #[arg(long, env = "PTXFUZZ_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Log format.
    #[arg(long, env = "PTXFUZZ_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Require a token for reads too (by default reads are public; writes always need one).
    #[arg(long, env = "PTXFUZZ_PRIVATE")]
    pub private: bool,
    /// Largest request body, in bytes: an ingest batch of 1,000 findings is about 2 MB.
    #[arg(long, env = "PTXFUZZ_MAX_BODY", default_value_t = 32 << 20)]
    pub max_body: usize,
    /// Database connections in the pool. 16 serves 8 workers ingesting at once with room for
    /// reads; PostgreSQL's default limit is 100.
    #[arg(long, env = "PTXFUZZ_DB_CONNECTIONS", default_value_t = 16)]
    pub db_connections: u32,
    /// Mark the dashboard's session cookie `Secure` (sent over https only). Off by default
    /// for a server on loopback; turn it on behind a TLS proxy.
    #[arg(long, env = "PTXFUZZ_SECURE_COOKIES")]
    pub secure_cookies: bool,
}
