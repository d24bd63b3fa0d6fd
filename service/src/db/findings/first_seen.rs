//! Moving a finding's `first_seen` back to an earlier worker meeting (`Reproducer::found_at`),
//! after the batch that reported it has committed.
//!
//! Why not inside the ingest transaction: `first_seen` feeds the overview's `finding_counts`
//! (per status, opcode and day; kept by the row trigger of migrations/0004_sweeps.sql). An
//! ingest locks counts rows first (the insert trigger of its new findings) and finding rows
//! last (its counters); a `first_seen` move locks a finding row first and then, through the
//! trigger, counts rows. Two batches doing both deadlocked (service/tests/concurrency.rs, eight
//! workers). Here the move runs alone, waits at most 50 ms for any lock (far below
//! PostgreSQL's 1 s `deadlock_timeout`, so a batch waiting on it is never the one aborted),
//! and retries; a move that still cannot run leaves `first_seen` at the delivery time, which
//! is where it stood before `found_at` existed, and says so in the log.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// Attempts before giving up; with the backoff below, about 2 s in all.
const ATTEMPTS: u32 = 20;

/// Move each finding's `first_seen` to `found` where that is earlier (a worker clock ahead of
/// the server's counts as now). `moves` holds (finding id, earliest `found_at`).
pub(super) async fn move_back(pool: &PgPool, mut moves: Vec<(i64, DateTime<Utc>)>) -> Result<(), sqlx::Error> {
    if moves.is_empty() {
        return Ok(());
    }
    moves.sort();
    let (ids, found): (Vec<i64>, Vec<DateTime<Utc>>) = moves.into_iter().unzip();
    for attempt in 1..=ATTEMPTS {
        match try_move(pool, &ids, &found).await {
            Ok(()) => return Ok(()),
            Err(e) if is_lock_conflict(&e) && attempt < ATTEMPTS => {
                tokio::time::sleep(Duration::from_millis(10 * u64::from(attempt))).await;
            }
            Err(e) if is_lock_conflict(&e) => {
                tracing::warn!(findings = ids.len(), "first_seen not moved back after {ATTEMPTS} attempts (lock conflicts): {e}");
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

async fn try_move(pool: &PgPool, ids: &[i64], found: &[DateTime<Utc>]) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    // The longest one attempt waits for a lock.
    sqlx::query("SET LOCAL lock_timeout = '50ms'").execute(&mut *tx).await?;
    // Only rows that move are locked (the WHERE is checked before the lock).
    sqlx::query!(
        r#"UPDATE findings f SET first_seen = LEAST(u.found, now())
           FROM UNNEST($1::int8[], $2::timestamptz[]) AS u(id, found)
           WHERE f.id = u.id AND LEAST(u.found, now()) < f.first_seen"#,
        ids,
        found
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

/// `lock_not_available` (our own lock_timeout) or `deadlock_detected`.
fn is_lock_conflict(e: &sqlx::Error) -> bool {
    matches!(e.as_database_error().and_then(|d| d.code()).as_deref(), Some("55P03") | Some("40P01"))
}
