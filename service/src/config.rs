//! Server configuration: flags, each with an environment variable (`ptxfuzz-server serve --help`).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// How logs are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per event (for log collectors).
    Json,
}

/// Where a command's database is: a URL, or the private cluster of a data directory (every
/// subcommand takes these, so that `token create` reaches the database `serve` uses).
#[derive(Clone, Debug, Args)]
pub struct Database {
    /// PostgreSQL connection URL; pending migrations are applied on connecting. Without it, the
    /// private cluster in --data-dir: `serve` runs it; the other commands reach it through its
    /// socket while that server runs, or start it for themselves and stop it after.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// The private cluster's folder (PostgreSQL data, socket, log, lock), used without
    /// --database-url. Default: $XDG_DATA_HOME/ptxfuzz (~/.local/share/ptxfuzz; as root
    /// without XDG_DATA_HOME: /var/lib/ptxfuzz, which the --pg-user can enter).
    #[arg(long, env = "PTXFUZZ_DATA_DIR", conflicts_with = "database_url")]
    pub data_dir: Option<PathBuf>,
    /// The unprivileged user the private cluster runs as when ptxfuzz-server runs as root
    /// (PostgreSQL refuses root). Default: postgres.
    #[arg(long, env = "PTXFUZZ_PG_USER", conflicts_with = "database_url")]
    pub pg_user: Option<String>,
}

/// `ptxfuzz-server serve` options.
#[derive(Clone, Debug, Args)]
pub struct Config {
    #[command(flatten)]
    pub database: Database,
    /// Address and port to listen on. Default: 127.0.0.1:8080 with --database-url, a free port
    /// on 127.0.0.1 with the private cluster.
    #[arg(long, env = "PTXFUZZ_BIND")]
    pub bind: Option<SocketAddr>,
    /// A campaign's --out folder whose finding folders (SIGNATURE/repro.json) are stored before
    /// serving; repeatable. Folders the database holds already are counted, not added twice.
    #[arg(long, value_name = "DIR")]
    pub import: Vec<PathBuf>,
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
