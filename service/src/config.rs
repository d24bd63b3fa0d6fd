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
    /// Largest request body, in bytes: an ingest batch of 1,000 findings is about 2 MB. At
    /// least 65536 (64 KiB).
    #[arg(long, env = "PTXFUZZ_MAX_BODY", default_value_t = 32 << 20, value_parser = parse_max_body)]
    pub max_body: usize,
    /// Database connections in the pool. 16 serves 8 workers ingesting at once with room for
    /// reads; PostgreSQL's default limit is 100.
    #[arg(long, env = "PTXFUZZ_DB_CONNECTIONS", default_value_t = 16, value_parser = parse_db_connections)]
    pub db_connections: u32,
    /// Mark the dashboard's session cookie `Secure` (sent over https only). Off by default
    /// for a server on loopback; turn it on behind a TLS proxy.
    #[arg(long, env = "PTXFUZZ_SECURE_COOKIES")]
    pub secure_cookies: bool,
}

/// Smallest `--max-body`: below it even one report or a minimized program is refused with 413,
/// so a smaller value is a mistake to report at startup rather than a server that refuses
/// every write.
pub const MIN_MAX_BODY: usize = 64 << 10;

/// `--max-body`: bytes, at least [`MIN_MAX_BODY`].
fn parse_max_body(s: &str) -> Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|_| format!("'{s}' is not a number of bytes (such as 33554432 for 32 MiB)"))?;
    if n < MIN_MAX_BODY {
        return Err(format!(
            "{n} bytes is too small for a request (one ingest report or a minimized program needs more); give at least {MIN_MAX_BODY} (64 KiB), default 33554432 (32 MiB)"
        ));
    }
    Ok(n)
}

/// `--db-connections`: at least 1 (the pool cannot be built empty: sqlx panics on 0).
fn parse_db_connections(s: &str) -> Result<u32, String> {
    let n: u32 = s.trim().parse().map_err(|_| format!("'{s}' is not a number of connections (such as 16)"))?;
    if n == 0 {
        return Err("the pool needs at least 1 connection; give 1 or more (default 16)".to_string());
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Serve {
        #[command(flatten)]
        config: Config,
    }

    fn parse(args: &[&str]) -> Result<Config, String> {
        let argv = std::iter::once("serve").chain(args.iter().copied());
        Serve::try_parse_from(argv).map(|s| s.config).map_err(|e| e.to_string())
    }

    #[test]
    fn zero_db_connections_is_refused_at_parsing() {
        let e = parse(&["--db-connections", "0"]).unwrap_err();
        assert!(e.contains("at least 1 connection"), "{e}");
        assert_eq!(parse(&["--db-connections", "1"]).unwrap().db_connections, 1);
    }

    #[test]
    fn a_max_body_too_small_for_any_request_is_refused_at_parsing() {
        for small in ["0", "1", "65535"] {
            let e = parse(&["--max-body", small]).unwrap_err();
            assert!(e.contains("at least 65536"), "{small}: {e}");
        }
        assert!(parse(&["--max-body", "64k"]).unwrap_err().contains("not a number of bytes"));
        assert_eq!(parse(&["--max-body", "65536"]).unwrap().max_body, 65536);
        assert_eq!(parse(&[]).unwrap().max_body, 32 << 20);
    }
}
