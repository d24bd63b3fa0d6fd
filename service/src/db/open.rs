//! The database a command names (`config::Database`): its --database-url, or the private
//! cluster of its --data-dir, started by the command or joined through the socket of the
//! server that runs it.

use std::path::Path;

use anyhow::Context;
use sqlx::PgPool;

use crate::config::Database;
use crate::pgcluster::{self, Cluster, ClusterError, Layout};

/// Whether a command may use a private cluster that another `ptxfuzz-server` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// `serve`: one server per data directory (a second one is refused by the lock).
    Own,
    /// `token`, `migrate`, `recluster`: short commands that connect through the running
    /// server's socket, so that `token create` works beside a running `serve`.
    Join,
}

/// An open database; `cluster` is the private cluster this process started (stopped when the
/// command ends: by [`Opened::close`], or on drop on an error's way out).
pub struct Opened {
    // Declared first, so dropped first: connections close before the cluster stops.
    pub pool: PgPool,
    pub cluster: Option<Cluster>,
    /// What the database is, for messages: the URL without its password, or the cluster's folder.
    pub what: String,
}

impl Opened {
    /// Close the pool, then stop the cluster this process started, if any.
    pub async fn close(self) -> anyhow::Result<()> {
        let Opened { pool, cluster, .. } = self;
        pool.close().await;
        if let Some(mut c) = cluster {
            tokio::task::block_in_place(|| c.stop())?;
        }
        Ok(())
    }
}

/// Connect to `db` (applying pending migrations), with at most `connections` connections.
pub async fn open(db: &Database, connections: u32, sharing: Sharing) -> anyhow::Result<Opened> {
    if let Some(url) = &db.database_url {
        let pool = super::connect(url, connections).await?;
        return Ok(Opened { pool, cluster: None, what: super::redact(url) });
    }
    let dir = db.data_dir.clone().unwrap_or_else(pgcluster::default_data_dir);
    let what = |dir: &Path| format!("the private PostgreSQL cluster in {} (its log: {})", dir.display(), Layout::new(dir).log.display());
    match tokio::task::block_in_place(|| Cluster::start(&dir, db.pg_user.as_deref())) {
        Ok(c) => {
            let dir = c.layout().dir.clone();
            tracing::info!(data_dir = %dir.display(), "private PostgreSQL cluster started");
            let options = c.connect_options();
            // On failure `c` drops here, which stops the cluster it started.
            let pool = super::connect_with(options, connections, &what(&dir)).await?;
            Ok(Opened { pool, cluster: Some(c), what: dir.display().to_string() })
        }
        Err(ClusterError::InUse { .. }) if sharing == Sharing::Join => {
            let dir = std::fs::canonicalize(&dir).with_context(|| format!("cannot read {}", dir.display()))?;
            let pool = super::connect_with(Layout::new(&dir).connect_options(), connections, &what(&dir)).await?;
            Ok(Opened { pool, cluster: None, what: dir.display().to_string() })
        }
        Err(e) => Err(e.into()),
    }
}
