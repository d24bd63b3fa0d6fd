//! The regressions page's matrix: one page of regressions (keyset by id, newest first) and, per
//! (regression, GPU, driver) cell, its last runs. Bounded: the cells are found by a skip scan
//! of `regression_runs_matrix` (one index probe per cell, however many runs a cell has) and
//! each cell reads at most [`HISTORY`] runs.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// Runs shown per cell.
pub const HISTORY: i64 = 10;
/// Most cells read per regression (GPU/driver pairs): a page of 50 regressions reads at most
/// 4,000 cells.
pub const MAX_CELLS_PER_REGRESSION: i64 = 80;

/// A regression's row header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegressionHead {
    pub id: i64,
    pub finding_id: Option<i64>,
    pub title: String,
    pub sm: i32,
    pub created_at: DateTime<Utc>,
}

/// One run in a cell's history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub passed: bool,
    pub at: DateTime<Utc>,
    pub interpreter_commit: String,
    pub worker: String,
}

/// The runs of one regression on one GPU and driver, newest first (at most [`HISTORY`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub regression_id: i64,
    pub gpu_name: String,
    pub driver_version: String,
    pub runs: Vec<Run>,
}

/// Up to `limit` regressions with id below `before`, newest first.
pub async fn page(pool: &PgPool, before: Option<i64>, limit: i64) -> Result<Vec<RegressionHead>, sqlx::Error> {
    sqlx::query_as!(
        RegressionHead,
        "SELECT id, finding_id, title, sm, created_at FROM regressions
         WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2",
        before,
        limit
    )
    .fetch_all(pool)
    .await
}

/// The cells of regressions `ids`, each with its last runs.
pub async fn cells(pool: &PgPool, ids: &[i64]) -> Result<Vec<Cell>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query!(
        // One skip scan per regression (GPU, driver) keys in index order: starting each scan
        // from its own regression id keeps every step one index probe (a scan over all the
        // page's ids at once searched the index once per id per step: 140 ms at 50 ids).
        r#"WITH RECURSIVE keys AS (
               SELECT f.regression_id, f.gpu_name, f.driver_version, 1 AS n
               FROM unnest($1::int8[]) AS u(rid)
               CROSS JOIN LATERAL (
                   SELECT r.regression_id, r.gpu_name, r.driver_version FROM regression_runs r
                   WHERE r.regression_id = u.rid
                   ORDER BY r.gpu_name, r.driver_version LIMIT 1) f
               UNION ALL
               SELECT nx.regression_id, nx.gpu_name, nx.driver_version, k.n + 1 FROM keys k
               CROSS JOIN LATERAL (
                   SELECT r.regression_id, r.gpu_name, r.driver_version FROM regression_runs r
                   WHERE r.regression_id = k.regression_id
                     AND (r.gpu_name, r.driver_version) > (k.gpu_name, k.driver_version)
                   ORDER BY r.gpu_name, r.driver_version LIMIT 1) nx
               WHERE k.n < $3
           )
           SELECT k.regression_id AS "regression_id!", k.gpu_name AS "gpu_name!", k.driver_version AS "driver_version!",
                  h.passed, h.at, h.interpreter_commit, h.worker
           FROM keys k CROSS JOIN LATERAL (
               SELECT r.passed, r.at, r.interpreter_commit, r.worker FROM regression_runs r
               WHERE r.regression_id = k.regression_id AND r.gpu_name = k.gpu_name AND r.driver_version = k.driver_version
               ORDER BY r.at DESC, r.id DESC LIMIT $2) h
           ORDER BY 1, 2, 3, h.at DESC"#,
        ids,
        HISTORY,
        MAX_CELLS_PER_REGRESSION as i32,
    )
    .fetch_all(pool)
    .await?;
    let mut out: Vec<Cell> = Vec::new();
    for r in rows {
        let run = Run { passed: r.passed, at: r.at, interpreter_commit: r.interpreter_commit, worker: r.worker };
        match out.last_mut() {
            Some(c) if c.regression_id == r.regression_id && c.gpu_name == r.gpu_name && c.driver_version == r.driver_version => {
                c.runs.push(run)
            }
            _ => out.push(Cell {
                regression_id: r.regression_id,
                gpu_name: r.gpu_name,
                driver_version: r.driver_version,
                runs: vec![run],
            }),
        }
    }
    Ok(out)
}

/// What a cell shows: its latest run, and `Fixed` when that passed after a failure in the
/// history read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fixed,
    Fail,
}

impl Cell {
    pub fn verdict(&self) -> Verdict {
        match self.runs.first() {
            Some(r) if r.passed && self.runs.iter().any(|o| !o.passed) => Verdict::Fixed,
            Some(r) if r.passed => Verdict::Pass,
            _ => Verdict::Fail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(history: &[bool]) -> Cell {
        let runs = history
            .iter()
            .map(|&passed| Run { passed, at: Utc::now(), interpreter_commit: "c".into(), worker: "w".into() })
            .collect();
        Cell { regression_id: 1, gpu_name: "g".into(), driver_version: "d".into(), runs }
    }

    #[test]
    fn a_pass_after_a_failure_is_fixed() {
        assert_eq!(cell(&[true, true]).verdict(), Verdict::Pass);
        assert_eq!(cell(&[true, false, true]).verdict(), Verdict::Fixed);
        assert_eq!(cell(&[false, true]).verdict(), Verdict::Fail);
    }
}
