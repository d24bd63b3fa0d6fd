//! Leases of regression work: handing regressions to workers (`FOR UPDATE SKIP LOCKED`, so two
//! workers never get the same one, and a lease past `leased_until` returns to the pool) and
//! recording each lease's one result.

use api::regressions::{Leased, RegressionRun, RunResult};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::validate::Verdict;

/// Lease up to `max` free (or expired) regressions to `worker` for `seconds`; the least
/// recently run first. Every lease is also written to `regression_leases`, so that a late
/// result can be told apart from an unknown lease.
pub async fn lease(pool: &PgPool, worker: &str, max: i64, seconds: f64) -> Result<Vec<Leased>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"WITH picked AS (
               SELECT id FROM regressions
               WHERE leased_until IS NULL OR leased_until < now()
               ORDER BY last_run_at NULLS FIRST, id
               LIMIT $2
               FOR UPDATE SKIP LOCKED),
           upd AS (
               UPDATE regressions r
               SET leased_by = $1, leased_until = now() + make_interval(secs => $3), lease_id = gen_random_uuid()
               FROM picked WHERE r.id = picked.id
               RETURNING r.id, r.lease_id, r.program, r.inputs, r.expected, r.sm, r.exec, r.leased_until, r.last_run_at),
           hist AS (
               INSERT INTO regression_leases (lease_id, regression_id, worker, leased_until)
               SELECT lease_id, id, $1, leased_until FROM upd)
           SELECT id AS "id!", lease_id AS "lease_id!", program AS "program!", inputs AS "inputs!",
                  expected AS "expected!", sm AS "sm!", exec AS "exec!", leased_until AS "leased_until!"
           FROM upd ORDER BY last_run_at NULLS FIRST, id"#,
        worker,
        max,
        seconds
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| Leased {
            lease_id: r.lease_id,
            regression_id: r.id,
            program: r.program,
            inputs: r.inputs,
            expected: r.expected,
            sm: r.sm.max(0) as u32,
            // The column's CHECK allows only the two names.
            exec: r.exec.parse().unwrap_or_default(),
            leased_until: r.leased_until,
        })
        .collect())
}

/// A lease as handed out, with what judging its result needs.
#[derive(Debug)]
pub struct LeaseInfo {
    pub regression_id: i64,
    pub worker: String,
    pub leased_until: DateTime<Utc>,
    /// The regression's lease now: this one, another (leased again), or none.
    pub current_lease: Option<Uuid>,
    pub program: serde_json::Value,
    pub inputs: Vec<String>,
}

pub async fn find(pool: &PgPool, lease_id: Uuid) -> Result<Option<LeaseInfo>, sqlx::Error> {
    let row = sqlx::query!(
        "SELECT l.regression_id, l.worker, l.leased_until, r.lease_id AS current_lease, r.program, r.inputs
         FROM regression_leases l JOIN regressions r ON r.id = l.regression_id
         WHERE l.lease_id = $1",
        lease_id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| LeaseInfo {
        regression_id: r.regression_id,
        worker: r.worker,
        leased_until: r.leased_until,
        current_lease: r.current_lease,
        program: r.program,
        inputs: r.inputs,
    }))
}

/// The run recorded for `lease_id`, if any.
pub async fn run_of(pool: &PgPool, lease_id: Uuid) -> Result<Option<RegressionRun>, sqlx::Error> {
    sqlx::query_as!(
        RegressionRun,
        "SELECT id, regression_id, lease_id, at, worker, target, gpu_name, driver_version, interpreter_commit,
                passed, actual, message
         FROM regression_runs WHERE lease_id = $1",
        lease_id
    )
    .fetch_optional(pool)
    .await
}

/// What recording a result did.
#[derive(Debug)]
pub enum Recorded {
    /// A new run.
    Created(RegressionRun),
    /// The lease had its result already (a retried post): that run.
    Replayed(RegressionRun),
    /// The lease expired and the regression was leased again; the result is refused.
    Superseded,
}

/// Record the result of `lease_id` on `regression_id` with the server's `verdict`, and free
/// the regression. Idempotent per lease.
pub async fn record(
    pool: &PgPool,
    lease_id: Uuid,
    regression_id: i64,
    result: &RunResult,
    verdict: &Verdict,
) -> Result<Recorded, sqlx::Error> {
    let mut tx = pool.begin().await?;
    // Lock the regression: a concurrent lease or a concurrent retry of this post waits here.
    let current = sqlx::query_scalar!("SELECT lease_id FROM regressions WHERE id = $1 FOR UPDATE", regression_id)
        .fetch_one(&mut *tx)
        .await?;
    if current != Some(lease_id) {
        drop(tx);
        return Ok(match run_of(pool, lease_id).await? {
            Some(run) => Recorded::Replayed(run),
            None => Recorded::Superseded,
        });
    }
    let message = match (result.message.trim(), verdict.note.as_str()) {
        (w, "") => w.to_string(),
        ("", s) => format!("server: {s}"),
        (w, s) => format!("{w}; server: {s}"),
    };
    let run = sqlx::query_as!(
        RegressionRun,
        "INSERT INTO regression_runs (regression_id, lease_id, worker, target, gpu_name, driver_version,
                                      interpreter_commit, passed, actual, message)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (lease_id) DO NOTHING
         RETURNING id, regression_id, lease_id, at, worker, target, gpu_name, driver_version, interpreter_commit,
                   passed, actual, message",
        regression_id,
        lease_id,
        result.worker,
        result.target,
        result.gpu_name,
        result.driver_version,
        result.interpreter_commit,
        verdict.passed,
        &result.actual,
        message
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(run) = run else {
        drop(tx);
        return Ok(run_of(pool, lease_id).await?.map_or(Recorded::Superseded, Recorded::Replayed));
    };
    sqlx::query!(
        "UPDATE regressions SET leased_by = NULL, leased_until = NULL, lease_id = NULL, last_run_at = now()
         WHERE id = $1",
        regression_id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Recorded::Created(run))
}
