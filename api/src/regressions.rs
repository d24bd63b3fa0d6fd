//! Regression bodies: filing (`POST /api/v1/regressions`), listing and reading them, and the
//! worker side: leasing work (`POST /api/v1/leases`) and posting each result
//! (`POST /api/v1/leases/{lease_id}/result`).
//!
//! A lease lasts `lease_seconds`; a worker that dies loses it, and the regression returns to
//! the pool. Each lease takes one result: posting it again is a no-op (idempotent retry).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A regression to file: from a finding (its newest reproducer, or the one named), or from a
/// raw program, inputs and (optionally) the results the filer expects. The server parses the
/// program with the `ptx` crate and re-evaluates it with the interpreter; the interpreter's
/// expectation is stored, and an `expected` that the interpreter does not allow is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RegressionSource {
    FromFinding { finding_id: i64, reproducer_id: Option<i64> },
    Raw {
        /// PTX program text (`// inputs:` / `// outputs:` header, docs/programs) or its JSON.
        program: String,
        /// One hex value per program input.
        inputs: Vec<String>,
        /// Per output, a hex value the filer says is right; checked against the interpreter.
        expected: Option<Vec<String>>,
        /// The execution mode to run it in on a GPU (default `compiled`).
        #[serde(default)]
        exec: crate::Exec,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RegressionNew {
    #[serde(default)]
    pub title: String,
    pub source: RegressionSource,
}

/// The latest result of a regression on one GPU and driver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatrixCell {
    pub gpu_name: String,
    pub driver_version: String,
    pub passed: bool,
    /// Failed there before and passes now.
    pub fixed: bool,
    pub at: DateTime<Utc>,
    pub interpreter_commit: String,
}

/// A stored regression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Regression {
    pub id: i64,
    pub finding_id: Option<i64>,
    pub title: String,
    pub program_text: String,
    pub inputs: Vec<String>,
    /// The interpreter's allowed results per output (as `ptxfuzz eval --accept` prints them).
    pub expected: Vec<String>,
    pub sm: u32,
    /// The execution mode workers run it in: a finding's own (its reproducer's `exec`).
    #[serde(default)]
    pub exec: crate::Exec,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub matrix: Vec<MatrixCell>,
}

/// A worker asks for work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LeaseRequest {
    pub worker: String,
    /// At most this many regressions (1 to 1000).
    pub max: u32,
    /// How long the worker may hold them (10 s to 1 h).
    pub lease_seconds: u32,
}

/// Leased work: run `program` on `inputs`, then post a [`RunResult`] to the lease.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Leased {
    pub lease_id: Uuid,
    pub regression_id: i64,
    /// ptx::program JSON.
    pub program: serde_json::Value,
    pub inputs: Vec<String>,
    pub expected: Vec<String>,
    pub sm: u32,
    /// Run it in this execution mode (absent from older servers: `compiled`).
    #[serde(default)]
    pub exec: crate::Exec,
    pub leased_until: DateTime<Utc>,
}

/// The outcome of one leased regression on the worker's target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RunResult {
    pub worker: String,
    pub target: String,
    pub gpu_name: String,
    pub driver_version: String,
    pub interpreter_commit: String,
    /// Every output in its allowed set (judged by the worker's interpreter, re-checked by the
    /// server).
    pub passed: bool,
    /// The target's bits per output, hex.
    pub actual: Vec<String>,
    /// An engine fault or other remark.
    #[serde(default)]
    pub message: String,
}

/// A page of regressions, newest first; `next` is the cursor of the following page (`?after=`),
/// absent at the end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RegressionPage {
    pub items: Vec<Regression>,
    pub next: Option<String>,
}

/// A stored run: the answer to a posted [`RunResult`] (the same run again for a retried post).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RegressionRun {
    pub id: i64,
    pub regression_id: i64,
    pub lease_id: Uuid,
    pub at: DateTime<Utc>,
    pub worker: String,
    pub target: String,
    pub gpu_name: String,
    pub driver_version: String,
    pub interpreter_commit: String,
    /// The server's verdict (it re-checks `actual` with its interpreter).
    pub passed: bool,
    pub actual: Vec<String>,
    /// The worker's remark, and a note where the server's verdict differs from the worker's.
    pub message: String,
}
