//! Storage of regressions: filing, reading (with the per-GPU/driver result matrix), keyset
//! listing, and reading the reproducer a regression is filed from.

use std::collections::HashMap;

use api::regressions::{MatrixCell, Regression};
use sqlx::PgPool;

use crate::validate::Checked;

/// What to store for a new regression (validated by `crate::validate`).
pub struct NewRegression<'a> {
    pub finding_id: Option<i64>,
    pub title: &'a str,
    pub checked: &'a Checked,
    pub created_by: &'a str,
}

pub async fn insert(pool: &PgPool, n: &NewRegression<'_>) -> Result<Regression, sqlx::Error> {
    let c = n.checked;
    let row = sqlx::query!(
        "INSERT INTO regressions (finding_id, title, program, program_text, inputs, expected, sm, created_by, exec)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id, created_at",
        n.finding_id,
        n.title,
        c.program_json,
        c.program_text,
        &c.inputs,
        &c.expected,
        c.sm as i32,
        n.created_by,
        c.exec.name()
    )
    .fetch_one(pool)
    .await?;
    Ok(Regression {
        id: row.id,
        finding_id: n.finding_id,
        title: n.title.to_string(),
        program_text: c.program_text.clone(),
        inputs: c.inputs.clone(),
        expected: c.expected.clone(),
        sm: c.sm,
        exec: c.exec,
        created_by: n.created_by.to_string(),
        created_at: row.created_at,
        matrix: Vec::new(),
    })
}

/// A `regressions` row as `get` and `list` read it.
struct Row {
    id: i64,
    finding_id: Option<i64>,
    title: String,
    program_text: String,
    inputs: Vec<String>,
    expected: Vec<String>,
    sm: i32,
    exec: String,
    created_by: String,
    created_at: chrono::DateTime<chrono::Utc>,
}

impl Row {
    fn with_matrix(self, matrix: Vec<MatrixCell>) -> Regression {
        Regression {
            id: self.id,
            finding_id: self.finding_id,
            title: self.title,
            program_text: self.program_text,
            inputs: self.inputs,
            expected: self.expected,
            sm: self.sm.max(0) as u32,
            // The column's CHECK allows only the two names.
            exec: self.exec.parse().unwrap_or_default(),
            created_by: self.created_by,
            created_at: self.created_at,
            matrix,
        }
    }
}

/// One regression with its matrix, or `None`.
pub async fn get(pool: &PgPool, id: i64) -> Result<Option<Regression>, sqlx::Error> {
    let Some(r) = sqlx::query_as!(
        Row,
        "SELECT id, finding_id, title, program_text, inputs, expected, sm, exec, created_by, created_at
         FROM regressions WHERE id = $1",
        id
    )
    .fetch_optional(pool)
    .await?
    else {
        return Ok(None);
    };
    let matrix = matrices(pool, &[id]).await?.remove(&id).unwrap_or_default();
    Ok(Some(r.with_matrix(matrix)))
}

/// Up to `limit` regressions with id below `before` (all when `None`), newest first.
pub async fn list(pool: &PgPool, before: Option<i64>, limit: i64) -> Result<Vec<Regression>, sqlx::Error> {
    let rows = sqlx::query_as!(
        Row,
        "SELECT id, finding_id, title, program_text, inputs, expected, sm, exec, created_by, created_at
         FROM regressions WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2",
        before,
        limit
    )
    .fetch_all(pool)
    .await?;
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut m = matrices(pool, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let matrix = m.remove(&r.id).unwrap_or_default();
            r.with_matrix(matrix)
        })
        .collect())
}

/// Per regression, the latest run on each (GPU, driver); `fixed` when that run passed and an
/// earlier one on the same GPU and driver failed.
pub async fn matrices(pool: &PgPool, ids: &[i64]) -> Result<HashMap<i64, Vec<MatrixCell>>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = sqlx::query!(
        r#"SELECT DISTINCT ON (r.regression_id, r.gpu_name, r.driver_version)
                  r.regression_id, r.gpu_name, r.driver_version, r.passed, r.at, r.interpreter_commit,
                  (r.passed AND EXISTS (
                      SELECT 1 FROM regression_runs e
                      WHERE e.regression_id = r.regression_id AND e.gpu_name = r.gpu_name
                        AND e.driver_version = r.driver_version AND NOT e.passed
                        AND (e.at, e.id) < (r.at, r.id))) AS "fixed!"
           FROM regression_runs r
           WHERE r.regression_id = ANY($1)
           ORDER BY r.regression_id, r.gpu_name, r.driver_version, r.at DESC, r.id DESC"#,
        ids
    )
    .fetch_all(pool)
    .await?;
    let mut out: HashMap<i64, Vec<MatrixCell>> = HashMap::new();
    for r in rows {
        out.entry(r.regression_id).or_default().push(MatrixCell {
            gpu_name: r.gpu_name,
            driver_version: r.driver_version,
            passed: r.passed,
            fixed: r.fixed,
            at: r.at,
            interpreter_commit: r.interpreter_commit,
        });
    }
    Ok(out)
}

/// The reproducer a regression is filed from.
#[derive(Debug)]
pub enum Source {
    NoFinding,
    /// The named reproducer does not exist.
    NoReproducer(i64),
    /// The named reproducer belongs to another finding.
    OtherFinding { reproducer_id: i64, finding_id: i64 },
    /// The finding has no reproducers at all.
    Empty,
    Found { reproducer_id: i64, signature: String, reproducer: serde_json::Value },
}

/// The named reproducer of `finding_id`, or its newest.
pub async fn source(pool: &PgPool, finding_id: i64, reproducer_id: Option<i64>) -> Result<Source, sqlx::Error> {
    let Some(signature) = sqlx::query_scalar!("SELECT signature FROM findings WHERE id = $1", finding_id)
        .fetch_optional(pool)
        .await?
    else {
        return Ok(Source::NoFinding);
    };
    let row = match reproducer_id {
        Some(rid) => {
            let Some(r) = sqlx::query!("SELECT id, finding_id, reproducer FROM reproducers WHERE id = $1", rid)
                .fetch_optional(pool)
                .await?
            else {
                return Ok(Source::NoReproducer(rid));
            };
            if r.finding_id != finding_id {
                return Ok(Source::OtherFinding { reproducer_id: rid, finding_id: r.finding_id });
            }
            (r.id, r.reproducer)
        }
        None => {
            let Some(r) = sqlx::query!(
                "SELECT id, reproducer FROM reproducers WHERE finding_id = $1 ORDER BY id DESC LIMIT 1",
                finding_id
            )
            .fetch_optional(pool)
            .await?
            else {
                return Ok(Source::Empty);
            };
            (r.id, r.reproducer)
        }
    };
    Ok(Source::Found { reproducer_id: row.0, signature, reproducer: row.1 })
}
