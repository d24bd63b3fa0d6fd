//! The findings list: filters and keyset pagination ordered by (last_seen DESC, id DESC).
//!
//! Static queries with `($n IS NULL OR ...)` conditions (one with the driver filter, one
//! without). They run with `plan_cache_mode = force_custom_plan` so that PostgreSQL plans
//! every call with its actual values: a generic plan cannot drop the absent filters and would scan the whole
//! `findings_last_seen` index for a selective one (a rare opcode) at a million findings.

use api::findings::{FindingSummary, Status};
use api::MismatchClass;
use chrono::{DateTime, Utc};
use sqlx::PgPool;

use super::SummaryRow;

/// What to list; every field narrows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub instruction: Option<String>,
    pub opcode: Option<String>,
    pub ty: Option<String>,
    /// The finding's modifiers contain this one.
    pub modifier: Option<String>,
    pub class: Option<MismatchClass>,
    pub status: Option<Status>,
    pub sm: Option<i32>,
    /// Some report of the finding came from a campaign with this driver version.
    pub driver: Option<String>,
    /// last_seen >= since.
    pub since: Option<DateTime<Utc>>,
    /// last_seen < until.
    pub until: Option<DateTime<Utc>>,
    /// In this cluster.
    pub cluster: Option<i64>,
}

/// Where a page starts: strictly after this (last_seen, id) in list order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub last_seen: DateTime<Utc>,
    pub id: i64,
}

impl Cursor {
    /// `<micros since the epoch>_<id>`: opaque to clients.
    pub fn encode(&self) -> String {
        format!("{}_{}", self.last_seen.timestamp_micros(), self.id)
    }

    pub fn decode(s: &str) -> Option<Cursor> {
        let (micros, id) = s.split_once('_')?;
        Some(Cursor { last_seen: DateTime::from_timestamp_micros(micros.parse().ok()?)?, id: id.parse().ok()? })
    }
}

/// Up to `limit` findings after `after`, and the cursor of the next page when there is one.
pub async fn list(
    pool: &PgPool,
    filter: &Filter,
    limit: i64,
    after: Option<Cursor>,
) -> Result<(Vec<FindingSummary>, Option<Cursor>), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET LOCAL plan_cache_mode = force_custom_plan").execute(&mut *tx).await?;
    // The driver filter is a semi-join, which PostgreSQL can start from `reproducers_driver`
    // (a rare driver) or probe per finding (a common one); under `$n IS NULL OR ...` it could
    // not be pulled up into a join and would scan every finding. Hence two statements.
    let rows = match &filter.driver {
        None => sqlx::query_as!(
            SummaryRow,
            r#"SELECT id, signature, instruction, opcode, type AS ty, modifiers, class, operand_classes, sm, status,
                      duplicate_of, first_seen, last_seen, occurrences, reproducers, cluster_id
               FROM findings f
               WHERE ($1::text IS NULL OR f.instruction = $1)
                 AND ($2::text IS NULL OR f.opcode = $2)
                 AND ($3::text IS NULL OR f.type = $3)
                 AND ($4::text IS NULL OR f.modifiers @> ARRAY[$4::text])
                 AND ($5::text IS NULL OR f.class = $5)
                 AND ($6::text IS NULL OR f.status = $6)
                 AND ($7::int4 IS NULL OR f.sm = $7)
                 AND ($13::int8 IS NULL OR f.cluster_id = $13)
                 AND ($8::timestamptz IS NULL OR f.last_seen >= $8)
                 AND ($9::timestamptz IS NULL OR f.last_seen < $9)
                 AND ($10::timestamptz IS NULL OR (f.last_seen, f.id) < ($10, $11::int8))
               ORDER BY f.last_seen DESC, f.id DESC
               LIMIT $12"#,
            filter.instruction,
            filter.opcode,
            filter.ty,
            filter.modifier,
            filter.class.map(|c| c.name()),
            filter.status.map(|s| s.name()),
            filter.sm,
            filter.since,
            filter.until,
            after.map(|c| c.last_seen),
            after.map(|c| c.id),
            limit + 1,
            filter.cluster,
        )
        .fetch_all(&mut *tx)
        .await?,
        Some(driver) => sqlx::query_as!(
            SummaryRow,
            r#"SELECT id, signature, instruction, opcode, type AS ty, modifiers, class, operand_classes, sm, status,
                      duplicate_of, first_seen, last_seen, occurrences, reproducers, cluster_id
               FROM findings f
               WHERE f.id IN (SELECT r.finding_id FROM reproducers r WHERE r.driver_version = $8)
                 AND ($1::text IS NULL OR f.instruction = $1)
                 AND ($2::text IS NULL OR f.opcode = $2)
                 AND ($3::text IS NULL OR f.type = $3)
                 AND ($4::text IS NULL OR f.modifiers @> ARRAY[$4::text])
                 AND ($5::text IS NULL OR f.class = $5)
                 AND ($6::text IS NULL OR f.status = $6)
                 AND ($7::int4 IS NULL OR f.sm = $7)
                 AND ($14::int8 IS NULL OR f.cluster_id = $14)
                 AND ($9::timestamptz IS NULL OR f.last_seen >= $9)
                 AND ($10::timestamptz IS NULL OR f.last_seen < $10)
                 AND ($11::timestamptz IS NULL OR (f.last_seen, f.id) < ($11, $12::int8))
               ORDER BY f.last_seen DESC, f.id DESC
               LIMIT $13"#,
            filter.instruction,
            filter.opcode,
            filter.ty,
            filter.modifier,
            filter.class.map(|c| c.name()),
            filter.status.map(|s| s.name()),
            filter.sm,
            driver,
            filter.since,
            filter.until,
            after.map(|c| c.last_seen),
            after.map(|c| c.id),
            limit + 1,
            filter.cluster,
        )
        .fetch_all(&mut *tx)
        .await?,
    };
    tx.commit().await?;
    let mut items = rows.into_iter().map(FindingSummary::try_from).collect::<Result<Vec<_>, _>>()?;
    let next = if items.len() as i64 > limit {
        items.truncate(limit as usize);
        items.last().map(|f| Cursor { last_seen: f.last_seen, id: f.id })
    } else {
        None
    };
    Ok((items, next))
}

/// How many findings match `filter`, counting at most `cap` (a count of a million rows is
/// slow; the dashboard shows "cap+"). Same conditions as [`list`].
pub async fn count_capped(pool: &PgPool, filter: &Filter, cap: i64) -> Result<i64, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET LOCAL plan_cache_mode = force_custom_plan").execute(&mut *tx).await?;
    // As in `list`: the driver semi-join under `$n IS NULL OR ...` makes PostgreSQL scan every
    // report for each count (250 ms at 1 M findings); as its own statement it uses the index.
    let n = match &filter.driver {
        None => sqlx::query_scalar!(
            r#"SELECT count(*) AS "n!" FROM (
                 SELECT 1 FROM findings f
                 WHERE ($1::text IS NULL OR f.instruction = $1)
                   AND ($2::text IS NULL OR f.opcode = $2)
                   AND ($3::text IS NULL OR f.type = $3)
                   AND ($4::text IS NULL OR f.modifiers @> ARRAY[$4::text])
                   AND ($5::text IS NULL OR f.class = $5)
                   AND ($6::text IS NULL OR f.status = $6)
                   AND ($7::int4 IS NULL OR f.sm = $7)
                 AND ($11::int8 IS NULL OR f.cluster_id = $11)
                   AND ($8::timestamptz IS NULL OR f.last_seen >= $8)
                   AND ($9::timestamptz IS NULL OR f.last_seen < $9)
                 LIMIT $10) capped"#,
            filter.instruction,
            filter.opcode,
            filter.ty,
            filter.modifier,
            filter.class.map(|c| c.name()),
            filter.status.map(|s| s.name()),
            filter.sm,
            filter.since,
            filter.until,
            cap,
            filter.cluster,
        )
        .fetch_one(&mut *tx)
        .await?,
        Some(driver) => sqlx::query_scalar!(
            r#"SELECT count(*) AS "n!" FROM (
                 SELECT 1 FROM findings f
                 WHERE f.id IN (SELECT r.finding_id FROM reproducers r WHERE r.driver_version = $10)
                   AND ($1::text IS NULL OR f.instruction = $1)
                   AND ($2::text IS NULL OR f.opcode = $2)
                   AND ($3::text IS NULL OR f.type = $3)
                   AND ($4::text IS NULL OR f.modifiers @> ARRAY[$4::text])
                   AND ($5::text IS NULL OR f.class = $5)
                   AND ($6::text IS NULL OR f.status = $6)
                   AND ($7::int4 IS NULL OR f.sm = $7)
                 AND ($12::int8 IS NULL OR f.cluster_id = $12)
                   AND ($8::timestamptz IS NULL OR f.last_seen >= $8)
                   AND ($9::timestamptz IS NULL OR f.last_seen < $9)
                 LIMIT $11) capped"#,
            filter.instruction,
            filter.opcode,
            filter.ty,
            filter.modifier,
            filter.class.map(|c| c.name()),
            filter.status.map(|s| s.name()),
            filter.sm,
            filter.since,
            filter.until,
            driver,
            cap,
            filter.cluster,
        )
        .fetch_one(&mut *tx)
        .await?,
    };
    tx.commit().await?;
    Ok(n)
}
