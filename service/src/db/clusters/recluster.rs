//! `ptxfuzz-server recluster`: recompute every finding's cluster from its first report, after
//! the explanation catalogue changed. Findings are read in id order, a batch at a time, each
//! batch clustered off the async threads and written in its own short transaction (ingest and
//! triage go on meanwhile); clusters left without findings are removed at the end. A
//! cluster's status survives as long as its key does.

use std::collections::HashMap;

use api::{Reproducer, Signature};

use super::{ids_for, ClusterInfo};
use crate::db::findings::ingest::FindingKey;
use sqlx::PgPool;

/// Findings per batch: one read, one clustering pass, one transaction.
pub const BATCH: i64 = 2000;

/// Where a recluster stands, after each batch and at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Findings clustered so far.
    pub findings: u64,
    /// Of those, findings whose cluster changed.
    pub moved: u64,
    pub clusters_before: i64,
    /// Set at the end (after the empty clusters are removed).
    pub clusters_after: i64,
    /// Empty clusters removed at the end.
    pub removed: u64,
}

/// Recluster every finding, calling `progress` after each batch; returns the summary.
pub async fn recluster(pool: &PgPool, batch: i64, mut progress: impl FnMut(&Progress)) -> Result<Progress, sqlx::Error> {
    let mut p = Progress { clusters_before: count(pool).await?, ..Progress::default() };
    let mut after = 0i64;
    loop {
        // The first report of each finding: the one ingest clustered it by.
        let rows = sqlx::query!(
            r#"SELECT f.id, f.signature, f.cluster_id, r.reproducer AS "reproducer?"
               FROM findings f
               LEFT JOIN LATERAL (SELECT reproducer FROM reproducers WHERE finding_id = f.id ORDER BY id LIMIT 1) r ON true
               WHERE f.id > $1
               ORDER BY f.id
               LIMIT $2"#,
            after,
            batch
        )
        .fetch_all(pool)
        .await?;
        let Some(last) = rows.last() else { break };
        after = last.id;
        let inputs: Vec<(i64, Option<i64>, String, Option<serde_json::Value>)> =
            rows.into_iter().map(|r| (r.id, r.cluster_id, r.signature, r.reproducer)).collect();
        let infos = tokio::task::spawn_blocking(move || {
            inputs.into_iter().map(|(id, old, sig, repro)| (id, old, info(&sig, repro))).collect::<Vec<_>>()
        })
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
        let mut tx = pool.begin().await?;
        let refs: Vec<&ClusterInfo> = infos.iter().map(|(_, _, i)| i).collect();
        let id_of: HashMap<String, i64> = ids_for(&mut tx, &refs).await?;
        let (ids, clusters): (Vec<i64>, Vec<i64>) = infos.iter().map(|(id, _, i)| (*id, id_of[&i.key])).unzip();
        p.moved += infos.iter().filter(|(_, old, i)| *old != Some(id_of[&i.key])).count() as u64;
        sqlx::query!(
            r#"UPDATE findings f SET cluster_id = u.c
               FROM UNNEST($1::int8[], $2::int8[]) AS u(id, c)
               WHERE f.id = u.id AND f.cluster_id IS DISTINCT FROM u.c"#,
            &ids,
            &clusters
        )
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        p.findings += ids.len() as u64;
        progress(&p);
    }
    p.removed = sqlx::query!("DELETE FROM clusters c WHERE NOT EXISTS (SELECT 1 FROM findings f WHERE f.cluster_id = c.id)")
        .execute(pool)
        .await?
        .rows_affected();
    p.clusters_after = count(pool).await?;
    Ok(p)
}

async fn count(pool: &PgPool) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar!(r#"SELECT count(*) AS "n!" FROM clusters"#).fetch_one(pool).await
}

/// A finding's cluster from its signature and stored report; a report this version cannot
/// read clusters as unexplained by form and class.
fn info(signature: &str, repro: Option<serde_json::Value>) -> ClusterInfo {
    let key = match signature.parse::<Signature>() {
        Ok(sig) => FindingKey::of(&sig),
        // Stored signatures were parsed at ingest; a future format falls back to the text.
        Err(_) => FindingKey {
            signature: signature.into(),
            instruction: signature.split('~').next().unwrap_or(signature).into(),
            opcode: String::new(),
            ty: String::new(),
            modifiers: Vec::new(),
            class: signature.split('~').nth(1).unwrap_or("-").into(),
            operand_classes: String::new(),
            sm: None,
        },
    };
    match repro.and_then(|v| serde_json::from_value::<Reproducer>(v).ok()) {
        Some(r) => ClusterInfo::of(&r, &key),
        None => ClusterInfo::unreadable(&key),
    }
}
