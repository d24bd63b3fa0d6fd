//! Campaigns: registration (idempotent by id and body), heartbeats (counters only grow, the end
//! is recorded once) and the newest-first list with a keyset cursor.

use api::campaigns::{Campaign, CampaignStart, Counters, Heartbeat};
use chrono::{DateTime, SubsecRound, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// What registering a campaign did.
#[derive(Debug)]
pub enum Registered {
    /// A new campaign.
    Created(Campaign),
    /// The same id with the same body: nothing changed (a retry).
    Unchanged(Campaign),
    /// The id exists with another body: the caller reused an id by mistake.
    Conflict(Campaign),
}

/// Where a list page starts: strictly after this (started_at, id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub started_at: DateTime<Utc>,
    pub id: Uuid,
}

impl Cursor {
    /// `<micros since the epoch>_<uuid>`: opaque to clients.
    pub fn encode(&self) -> String {
        format!("{}_{}", self.started_at.timestamp_micros(), self.id.simple())
    }

    pub fn decode(s: &str) -> Option<Cursor> {
        let (micros, id) = s.split_once('_')?;
        Some(Cursor { started_at: DateTime::from_timestamp_micros(micros.parse().ok()?)?, id: id.parse().ok()? })
    }
}

struct Row {
    id: Uuid,
    worker_host: String,
    target: String,
    device: String,
    gpu_name: Option<String>,
    sm: Option<i32>,
    driver_version: Option<String>,
    cuda_version: Option<String>,
    interpreter_commit: String,
    seed: Option<i64>,
    started_at: DateTime<Utc>,
    ended_at: Option<DateTime<Utc>>,
    last_heartbeat_at: DateTime<Utc>,
    cases: i64,
    programs: i64,
    mismatches: i64,
    findings: i64,
    signatures: i64,
    engine_faults: i64,
    cases_isa: i64,
    cases_compiled: i64,
}

impl From<Row> for Campaign {
    fn from(r: Row) -> Campaign {
        // Counters and the seed are stored as BIGINT: the seed's bits round-trip as they are,
        // counters are checked to fit on the way in.
        Campaign {
            id: r.id,
            start: CampaignStart {
                worker_host: r.worker_host,
                target: r.target,
                device: r.device,
                gpu_name: r.gpu_name,
                sm: r.sm.map(|s| s as u32),
                driver_version: r.driver_version,
                cuda_version: r.cuda_version,
                interpreter_commit: r.interpreter_commit,
                seed: r.seed.map(|s| s as u64),
                started_at: r.started_at,
            },
            counters: Counters {
                cases: r.cases as u64,
                programs: r.programs as u64,
                mismatches: r.mismatches as u64,
                findings: r.findings as u64,
                signatures: r.signatures as u64,
                engine_faults: r.engine_faults as u64,
                cases_isa: r.cases_isa as u64,
                cases_compiled: r.cases_compiled as u64,
            },
            last_heartbeat_at: r.last_heartbeat_at,
            ended_at: r.ended_at,
        }
    }
}

/// The body as the database will hold it (timestamps have microsecond precision), so that a
/// retried registration compares equal to the stored one.
pub fn normalized(start: &CampaignStart) -> CampaignStart {
    CampaignStart { started_at: start.started_at.trunc_subsecs(6), ..start.clone() }
}

/// Register campaign `id`; the caller has validated `start` (sm fits an INTEGER, no NUL).
pub async fn register(pool: &PgPool, id: Uuid, start: &CampaignStart) -> Result<Registered, sqlx::Error> {
    let start = normalized(start);
    let inserted = sqlx::query_as!(
        Row,
        r#"INSERT INTO campaigns (id, worker_host, target, device, gpu_name, sm, driver_version, cuda_version,
                                  interpreter_commit, seed, started_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (id) DO NOTHING
           RETURNING id, worker_host, target, device, gpu_name, sm, driver_version, cuda_version, interpreter_commit,
                     seed, started_at, ended_at, last_heartbeat_at, cases, programs, mismatches, findings, signatures,
                     engine_faults, cases_isa, cases_compiled"#,
        id,
        start.worker_host,
        start.target,
        start.device,
        start.gpu_name,
        start.sm.map(|s| s as i32),
        start.driver_version,
        start.cuda_version,
        start.interpreter_commit,
        start.seed.map(|s| s as i64),
        start.started_at,
    )
    .fetch_optional(pool)
    .await?;
    if let Some(row) = inserted {
        return Ok(Registered::Created(row.into()));
    }
    let existing = get(pool, id).await?.ok_or(sqlx::Error::RowNotFound)?;
    Ok(if existing.start == start { Registered::Unchanged(existing) } else { Registered::Conflict(existing) })
}

/// Apply a heartbeat; `None` for an unknown campaign. Counters keep the larger value (a late,
/// replayed heartbeat never moves them back); the end is recorded once.
pub async fn heartbeat(pool: &PgPool, id: Uuid, hb: &Heartbeat, counters: [i64; 8]) -> Result<Option<Campaign>, sqlx::Error> {
    let [cases, programs, mismatches, findings, signatures, engine_faults, cases_isa, cases_compiled] = counters;
    let row = sqlx::query_as!(
        Row,
        r#"UPDATE campaigns SET
               cases = GREATEST(cases, $2), programs = GREATEST(programs, $3),
               mismatches = GREATEST(mismatches, $4), findings = GREATEST(findings, $5),
               signatures = GREATEST(signatures, $6), engine_faults = GREATEST(engine_faults, $7),
               cases_isa = GREATEST(cases_isa, $9), cases_compiled = GREATEST(cases_compiled, $10),
               last_heartbeat_at = now(),
               ended_at = COALESCE(ended_at, CASE WHEN $8 THEN now() END)
           WHERE id = $1
           RETURNING id, worker_host, target, device, gpu_name, sm, driver_version, cuda_version, interpreter_commit,
                     seed, started_at, ended_at, last_heartbeat_at, cases, programs, mismatches, findings, signatures,
                     engine_faults, cases_isa, cases_compiled"#,
        id,
        cases,
        programs,
        mismatches,
        findings,
        signatures,
        engine_faults,
        hb.ended,
        cases_isa,
        cases_compiled,
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(Campaign::from))
}

pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<Campaign>, sqlx::Error> {
    let row = sqlx::query_as!(
        Row,
        r#"SELECT id, worker_host, target, device, gpu_name, sm, driver_version, cuda_version, interpreter_commit,
                  seed, started_at, ended_at, last_heartbeat_at, cases, programs, mismatches, findings, signatures,
                  engine_faults, cases_isa, cases_compiled
           FROM campaigns WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(Campaign::from))
}

/// The driver version a campaign reported; `None` for an unknown campaign, `Some(None)` when
/// it did not report one.
pub async fn driver_version(
    conn: &mut sqlx::PgConnection,
    id: Uuid,
) -> Result<Option<Option<String>>, sqlx::Error> {
    sqlx::query_scalar!("SELECT driver_version FROM campaigns WHERE id = $1", id).fetch_optional(conn).await
}

/// Up to `limit` campaigns, newest start first, strictly after `after`; the cursor of the next
/// page when there may be one.
pub async fn list(pool: &PgPool, limit: i64, after: Option<Cursor>) -> Result<(Vec<Campaign>, Option<Cursor>), sqlx::Error> {
    let rows = sqlx::query_as!(
        Row,
        r#"SELECT id, worker_host, target, device, gpu_name, sm, driver_version, cuda_version, interpreter_commit,
                  seed, started_at, ended_at, last_heartbeat_at, cases, programs, mismatches, findings, signatures,
                  engine_faults, cases_isa, cases_compiled
           FROM campaigns
           WHERE $1::timestamptz IS NULL OR (started_at, id) < ($1, $2::uuid)
           ORDER BY started_at DESC, id DESC
           LIMIT $3"#,
        after.map(|c| c.started_at),
        after.map(|c| c.id),
        limit
    )
    .fetch_all(pool)
    .await?;
    let items: Vec<Campaign> = rows.into_iter().map(Campaign::from).collect();
    let next = (items.len() as i64 == limit)
        .then(|| items.last().map(|c| Cursor { started_at: c.start.started_at, id: c.id }))
        .flatten();
    Ok((items, next))
}
