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
    let what = format!("the database at {}", redact(url));
    first_connection(&options).await.map_err(|e| connect_error(e, &what, "; is PostgreSQL running and DATABASE_URL right?"))?;
    let pool = pool_options(max_connections).connect_with(options).await.map_err(|e| connect_error(e, &what, ""))?;
    migrate(pool).await
}

/// How long a server that cannot be reached is retried: one that is still starting (compose
/// and Kubernetes start the database beside the service) gets this long to answer.
const CONNECT_WAIT: Duration = Duration::from_secs(10);

/// One connection, retried for [`CONNECT_WAIT`] while the server cannot be reached, so that a
/// failure names its cause: the pool's own retry ends in "pool timed out while waiting for an
/// open connection" after the same wait and drops the cause ("Connection refused"). An answer
/// of the server (no such database, a refused password) is not retried.
async fn first_connection(options: &PgConnectOptions) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let deadline = std::time::Instant::now() + CONNECT_WAIT;
    loop {
        match sqlx::PgConnection::connect_with(options).await {
            Ok(c) => {
                let _ = c.close().await;
                return Ok(());
            }
            Err(e @ sqlx::Error::Database(_)) => return Err(e),
            Err(e) if std::time::Instant::now() >= deadline => return Err(e),
            Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    }
}

/// Connect with `options` (the private cluster's socket) and apply pending migrations; `what`
/// names the database in the error.
pub async fn connect_with(options: PgConnectOptions, max_connections: u32, what: &str) -> anyhow::Result<PgPool> {
    let pool = pool_options(max_connections).connect_with(options).await.map_err(|e| connect_error(e, what, ""))?;
    migrate(pool).await
}

fn pool_options(max_connections: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections)
        // A request waits this long for a connection, then gets a 503 (Problem::from).
        .acquire_timeout(Duration::from_secs(10))
}

async fn migrate(pool: PgPool) -> anyhow::Result<PgPool> {
    use anyhow::Context;
    crate::MIGRATOR.run(&pool).await.context("applying migrations (migrations/) failed")?;
    Ok(pool)
}

/// Why a connection failed, in one line. An answer of the server (a database that does not
/// exist, a refused password) is its message once: sqlx's error prints it, then again as its
/// source, each with the server's C source line ("... does not exist at line 948"); an I/O
/// error ("Connection refused") is printed twice the same way. `hint`
/// follows only a failure to reach the server, where it applies.
fn connect_error(e: sqlx::Error, what: &str, hint: &str) -> anyhow::Error {
    match &e {
        // SQLSTATE 3D000, invalid_catalog_name: the usual slip, a database not created yet.
        sqlx::Error::Database(db) if db.code().as_deref() == Some("3D000") => anyhow::anyhow!(
            "cannot connect to {what}: {}: create it (`createdb NAME`, or CREATE DATABASE in psql) or name an existing one in the URL",
            db.message()
        ),
        sqlx::Error::Database(db) => anyhow::anyhow!("cannot connect to {what}: {}", db.message()),
        // The same repeat: "error communicating with database: X: X".
        sqlx::Error::Io(io) => anyhow::anyhow!("cannot connect to {what}{hint}: {io}"),
        _ => anyhow::Error::new(e).context(format!("cannot connect to {what}{hint}")),
    }
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_server_that_cannot_be_reached_is_named_once_with_the_hint() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused (os error 111)");
        let e = super::connect_error(sqlx::Error::Io(io), "the database at postgres://u@h/d", "; is PostgreSQL running?");
        assert_eq!(format!("{e:#}"), "cannot connect to the database at postgres://u@h/d; is PostgreSQL running?: Connection refused (os error 111)");
        // Anything else keeps its own chain under the hint.
        let e = super::connect_error(sqlx::Error::PoolTimedOut, "the database", "; hint");
        assert_eq!(format!("{e:#}"), "cannot connect to the database; hint: pool timed out while waiting for an open connection");
    }

    #[test]
    fn a_password_in_the_url_is_left_out_of_messages() {
        assert_eq!(super::redact("postgres://u:secret@h:5432/d"), "postgres://u@h:5432/d");
    }
}
