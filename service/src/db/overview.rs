//! The overview's numbers. Finding counts come from `finding_count_totals` (status x opcode x
//! day of first_seen, kept by triggers on `findings`, migrations/0004_sweeps.sql and 0011):
//! grouping 1 M findings takes 250-550 ms per query, these counts a few ms, so the page stays
//! fast at any size. The triggers append deltas, which [`compact_finding_counts`] folds back.
//! Live campaigns and the regression summary read bounded slices through their own indexes.

use api::campaigns::Campaign;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::PgPool;

/// How recent a heartbeat keeps a campaign live.
pub const LIVE_WITHIN_MINUTES: i32 = 5;
/// Most live campaigns shown.
pub const MAX_LIVE: i64 = 50;
/// Days of the "new findings" plot, today included.
pub const DAYS: i32 = 30;

/// Finding counts by status, by opcode, and new per day.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FindingCounts {
    pub total: i64,
    /// Status name and count, largest first.
    pub by_status: Vec<(String, i64)>,
    /// Opcode (instruction family) and count, largest first.
    pub by_opcode: Vec<(String, i64)>,
    /// New findings per day of the last [`DAYS`] days (UTC), only days with some.
    pub per_day: Vec<(NaiveDate, i64)>,
    /// The first and last day of the plot.
    pub first_day: NaiveDate,
    pub today: NaiveDate,
}

pub async fn finding_counts(pool: &PgPool) -> Result<FindingCounts, sqlx::Error> {
    let by_status = sqlx::query!(
        r#"SELECT status AS "status!", sum(n)::int8 AS "n!" FROM finding_count_totals GROUP BY status HAVING sum(n) > 0 ORDER BY 2 DESC, 1"#
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.status, r.n))
    .collect::<Vec<_>>();
    let by_opcode = sqlx::query!(
        r#"SELECT opcode AS "opcode!", sum(n)::int8 AS "n!" FROM finding_count_totals GROUP BY opcode HAVING sum(n) > 0 ORDER BY 2 DESC, 1"#
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.opcode, r.n))
    .collect();
    let days = sqlx::query!(
        r#"SELECT (now() AT TIME ZONE 'UTC')::date AS "today!", ((now() AT TIME ZONE 'UTC')::date - ($1::int4 - 1)) AS "first!""#,
        DAYS
    )
    .fetch_one(pool)
    .await?;
    let per_day = sqlx::query!(
        r#"SELECT day AS "day!", sum(n)::int8 AS "n!" FROM finding_count_totals WHERE day >= $1 GROUP BY day HAVING sum(n) > 0 ORDER BY day"#,
        days.first
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.day, r.n))
    .collect();
    let total = by_status.iter().map(|s| s.1).sum();
    Ok(FindingCounts { total, by_status, by_opcode, per_day, first_day: days.first, today: days.today })
}

/// The advisory lock key of [`compact_finding_counts`] ("ptxfuzz" in ASCII): one compactor at
/// a time, so that two never wait on each other's deleted deltas.
pub const COMPACT_LOCK: i64 = 0x70_74_78_66_75_7a_7a;

/// Fold the deltas the triggers appended (migrations/0011) into one row per (status, opcode,
/// day), so that the overview sums a bounded table. Returns the number of deltas folded; 0 when
/// another compactor holds the lock (it, or the next one, takes the rest). It locks nothing a
/// trigger or an ingest waits for: deltas are only ever inserted, and `finding_counts` has no
/// other writer. Deltas of transactions not yet committed are not in its snapshot and stay.
pub async fn compact_finding_counts(pool: &PgPool) -> Result<u64, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let locked = sqlx::query_scalar!(r#"SELECT pg_try_advisory_xact_lock($1) AS "locked!""#, COMPACT_LOCK)
        .fetch_one(&mut *tx)
        .await?;
    if !locked {
        return Ok(0);
    }
    let folded = sqlx::query_scalar!(
        r#"WITH moved AS (DELETE FROM finding_count_deltas RETURNING status, opcode, day, n),
                summed AS (SELECT status, opcode, day, sum(n)::int8 AS n, count(*) AS rows FROM moved GROUP BY 1, 2, 3),
                upserted AS (INSERT INTO finding_counts AS c (status, opcode, day, n)
                             SELECT status, opcode, day, n FROM summed ORDER BY 1, 2, 3
                             ON CONFLICT (status, opcode, day) DO UPDATE SET n = c.n + EXCLUDED.n)
           SELECT coalesce(sum(rows), 0)::int8 AS "folded!" FROM summed"#
    )
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(folded as u64)
}

/// A live campaign and its rate.
#[derive(Clone, Debug, PartialEq)]
pub struct Live {
    pub campaign: Campaign,
    /// Seconds from its start to its last heartbeat.
    pub seconds: f64,
}

impl Live {
    /// Cases per second since the start (0 before the first second).
    pub fn cases_per_second(&self) -> f64 {
        self.per_second(self.campaign.counters.cases)
    }

    /// Cases per second in each execution mode (`isa`, `compiled`), over the same time.
    pub fn cases_per_second_by_exec(&self) -> (f64, f64) {
        let c = &self.campaign.counters;
        (self.per_second(c.cases_isa), self.per_second(c.cases_compiled))
    }

    fn per_second(&self, n: u64) -> f64 {
        if self.seconds < 1.0 {
            0.0
        } else {
            n as f64 / self.seconds
        }
    }
}

/// Campaigns not ended whose last heartbeat is recent, newest heartbeat first.
pub async fn live_campaigns(pool: &PgPool) -> Result<Vec<Live>, sqlx::Error> {
    let ids = sqlx::query_scalar!(
        "SELECT id FROM campaigns
         WHERE ended_at IS NULL AND last_heartbeat_at > now() - make_interval(mins => $1)
         ORDER BY last_heartbeat_at DESC LIMIT $2",
        LIVE_WITHIN_MINUTES,
        MAX_LIVE
    )
    .fetch_all(pool)
    .await?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(c) = super::campaigns::get(pool, id).await? {
            let seconds = (c.last_heartbeat_at - c.start.started_at).num_milliseconds().max(0) as f64 / 1000.0;
            out.push(Live { campaign: c, seconds });
        }
    }
    Ok(out)
}

/// Regressions at a glance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegressionSummary {
    pub regressions: i64,
    /// Runs of the last 7 days.
    pub runs_passed: i64,
    pub runs_failed: i64,
    pub last_run: Option<DateTime<Utc>>,
}

pub async fn regression_summary(pool: &PgPool) -> Result<RegressionSummary, sqlx::Error> {
    // Regressions are filed by hand (thousands at most): counting them is cheap. Runs are read
    // through regression_runs_at, only the last week's.
    let regressions = sqlx::query_scalar!(r#"SELECT count(*) AS "n!" FROM regressions"#).fetch_one(pool).await?;
    let r = sqlx::query!(
        r#"SELECT count(*) FILTER (WHERE passed) AS "passed!", count(*) FILTER (WHERE NOT passed) AS "failed!",
                  max(at) AS last
           FROM regression_runs WHERE at > now() - interval '7 days'"#
    )
    .fetch_one(pool)
    .await?;
    Ok(RegressionSummary { regressions, runs_passed: r.passed, runs_failed: r.failed, last_run: r.last })
}
