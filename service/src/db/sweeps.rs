//! Storage of sweep and math-check reports: insert, and the latest report of each
//! (kind, name, target). `max_ulps` is a u64, stored as NUMERIC (passed as text both ways).

use api::sweeps::{Bucket, StoredSweep, SweepKind, SweepReport};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

struct Row {
    id: i64,
    kind: String,
    name: String,
    target: String,
    device: String,
    gpu_name: Option<String>,
    driver_version: Option<String>,
    interpreter_commit: String,
    flags: String,
    inputs: i64,
    exhaustive: bool,
    mismatches: i64,
    max_ulps: String,
    histogram: serde_json::Value,
    bound_text: Vec<String>,
    bound_ulps: Option<i64>,
    reported_by: String,
    at: DateTime<Utc>,
}

impl TryFrom<Row> for StoredSweep {
    type Error = sqlx::Error;

    fn try_from(r: Row) -> Result<StoredSweep, sqlx::Error> {
        let bad = |what: &str| sqlx::Error::Decode(format!("sweeps.{what} of row {} is malformed", r.id).into());
        let kind = SweepKind::parse(&r.kind).ok_or_else(|| bad("kind"))?;
        let histogram: Vec<Bucket> = serde_json::from_value(r.histogram.clone()).map_err(|_| bad("histogram"))?;
        let max_ulps = r.max_ulps.parse().map_err(|_| bad("max_ulps"))?;
        Ok(StoredSweep {
            id: r.id,
            report: SweepReport {
                kind,
                name: r.name,
                target: r.target,
                device: r.device,
                gpu_name: r.gpu_name,
                driver_version: r.driver_version,
                interpreter_commit: r.interpreter_commit,
                flags: r.flags,
                inputs: r.inputs as u64,
                exhaustive: r.exhaustive,
                mismatches: r.mismatches as u64,
                max_ulps,
                histogram,
                bound_text: r.bound_text,
                bound_ulps: r.bound_ulps.map(|b| b as u64),
                at: r.at,
            },
            reported_by: r.reported_by,
        })
    }
}

/// Store a report the caller has validated (counts fit a BIGINT, no NUL characters).
pub async fn insert(pool: &PgPool, r: &SweepReport, reported_by: &str) -> Result<StoredSweep, sqlx::Error> {
    let histogram = serde_json::to_value(&r.histogram).expect("buckets serialise");
    let row = sqlx::query_as!(
        Row,
        r#"INSERT INTO sweeps (kind, name, target, device, gpu_name, driver_version, interpreter_commit, flags, inputs,
                               exhaustive, mismatches, max_ulps, histogram, bound_text, bound_ulps, reported_by, at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text::numeric, $13, $14, $15, $16, $17)
           RETURNING id, kind, name, target, device, gpu_name, driver_version, interpreter_commit, flags, inputs,
                     exhaustive, mismatches, max_ulps::text AS "max_ulps!", histogram, bound_text, bound_ulps,
                     reported_by, at"#,
        r.kind.name(),
        r.name,
        r.target,
        r.device,
        r.gpu_name,
        r.driver_version,
        r.interpreter_commit,
        r.flags,
        r.inputs as i64,
        r.exhaustive,
        r.mismatches as i64,
        r.max_ulps.to_string(),
        histogram,
        &r.bound_text,
        r.bound_ulps.map(|b| b as i64),
        reported_by,
        r.at,
    )
    .fetch_one(pool)
    .await?;
    row.try_into()
}

/// The latest report of each (kind, name, target), by kind, name and target; at most `limit`.
/// The table holds a few reports per instruction and GPU, so DISTINCT ON over its
/// `sweeps_latest` index stays small; the limit bounds the page all the same.
pub async fn latest(pool: &PgPool, kind: Option<SweepKind>, limit: i64) -> Result<Vec<StoredSweep>, sqlx::Error> {
    let rows = sqlx::query_as!(
        Row,
        r#"SELECT DISTINCT ON (kind, name, target)
                  id, kind, name, target, device, gpu_name, driver_version, interpreter_commit, flags, inputs,
                  exhaustive, mismatches, max_ulps::text AS "max_ulps!", histogram, bound_text, bound_ulps,
                  reported_by, at
           FROM sweeps
           WHERE $1::text IS NULL OR kind = $1
           ORDER BY kind, name, target, at DESC, id DESC
           LIMIT $2"#,
        kind.map(|k| k.name()),
        limit
    )
    .fetch_all(pool)
    .await?;
    rows.into_iter().map(StoredSweep::try_from).collect()
}
