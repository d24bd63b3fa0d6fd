//! Storage: the pool, migrations, and one module per table family. Queries are checked at
//! compile time by sqlx (offline data in `.sqlx/` at the workspace root; regenerate with
//! `scripts/sqlx-prepare` after changing a query or a migration).

pub mod campaigns;
pub mod clusters;
pub mod findings;
pub mod known;
pub mod leases;
pub mod matrix;
pub mod open;
pub mod overview;
pub mod regressions;
pub mod sweeps;

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::PgPool;

/// Connect and apply pending migrations.
pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<PgPool> {
    // sqlx's parse error repeats its cause in its own message: the message alone, once.
    let options: PgConnectOptions = url.parse().map_err(|e| {
        anyhow::anyhow!("DATABASE_URL {} is not a PostgreSQL URL ({e}): give postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE", redact(url))
    })?;
    connect_with(options, max_connections, &format!("the database at {}; is PostgreSQL running and DATABASE_URL right?", redact(url))).await
}

/// Connect with `options` (the private cluster's socket) and apply pending migrations; `what`
/// names the database in the error.
pub async fn connect_with(options: PgConnectOptions, max_connections: u32, what: &str) -> anyhow::Result<PgPool> {
    use anyhow::Context;
    let pool = PgPoolOptions::new()
        .max_connections(max_connections)
        // A request waits this long for a connection, then gets a 503 (Problem::from).
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await
        .with_context(|| format!("cannot connect to {what}"))?;
    crate::MIGRATOR.run(&pool).await.context("applying migrations (migrations/) failed")?;
    Ok(pool)
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            let user = creds.split(':').next().unwrap_or("");
            format!("{}://{}@{}", &url[..s], user, &url[at + 1..])
        }
        _ => url.to_string(),
    }
}