//! Finding bodies: ingest (`POST /api/v1/findings/batch`), the grouped list
//! (`GET /api/v1/findings`), one finding (`GET /api/v1/findings/{id}`) and triage
//! (`POST /api/v1/findings/{id}/triage`).
//!
//! A *finding* is every report of one signature; each report is a *reproducer*. Ingest is
//! idempotent by content: the server hashes each report (SHA-256 of its canonical JSON), so a
//! retried batch inserts nothing twice and counts nothing twice.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::repro::Reproducer;

/// Most reports in one ingest batch (the server answers 413 above it).
pub const MAX_BATCH: usize = 5000;

/// One report of a finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct FindingReport {
    /// The minimized reproducer (`repro.json`).
    pub reproducer: Reproducer,
    /// Mismatches the campaign counted under this signature with this report.
    #[serde(default = "one")]
    pub hits: u64,
    /// The standalone `.ptx` file, when the worker has it.
    pub ptx: Option<String>,
    /// SASS of the kernel (`cuobjdump -sass`), when the worker has it.
    pub sass: Option<String>,
}

fn one() -> u64 {
    1
}

/// A batch of reports from one campaign (or none: a file posted by hand).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct IngestBatch {
    pub campaign_id: Option<Uuid>,
    pub findings: Vec<FindingReport>,
}

/// What an ingest did. `inserted + duplicates == received`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IngestResult {
    pub received: u64,
    /// Reports new to the server.
    pub inserted: u64,
    /// Reports it already had (a retried batch).
    pub duplicates: u64,
    /// The finding id of each report, in batch order.
    pub finding_ids: Vec<i64>,
}

/// Triage states of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Not looked at yet.
    New,
    /// The GPU really computes this; the interpreter is right about the spec.
    ConfirmedHardware,
    /// The interpreter is wrong.
    InterpreterBug,
    /// The spec allows more than one reading; see docs/semantics.md.
    SpecAmbiguity,
    /// Another finding says the same (`duplicate_of`).
    Duplicate,
    WontFix,
    /// Fixed (in the interpreter or on the target); regressions keep watching it.
    Fixed,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::New,
        Status::ConfirmedHardware,
        Status::InterpreterBug,
        Status::SpecAmbiguity,
        Status::Duplicate,
        Status::WontFix,
        Status::Fixed,
    ];

    /// The name in the API and the database.
    pub fn name(self) -> &'static str {
        match self {
            Status::New => "new",
            Status::ConfirmedHardware => "confirmed-hardware",
            Status::InterpreterBug => "interpreter-bug",
            Status::SpecAmbiguity => "spec-ambiguity",
            Status::Duplicate => "duplicate",
            Status::WontFix => "wont-fix",
            Status::Fixed => "fixed",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Status {
    type Err = String;
    fn from_str(s: &str) -> Result<Status, String> {
        Status::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| {
            let names: Vec<_> = Status::ALL.iter().map(|x| x.name()).collect();
            format!("unknown status '{s}'; one of {}", names.join(", "))
        })
    }
}

/// One finding in the list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FindingSummary {
    pub id: i64,
    /// The signature key (`add.rz.f32~rounding~normal.subnormal~sm90`).
    pub signature: String,
    pub instruction: String,
    pub opcode: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub modifiers: Vec<String>,
    pub class: String,
    pub operand_classes: String,
    pub sm: Option<u32>,
    pub status: Status,
    pub duplicate_of: Option<i64>,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    pub occurrences: i64,
    pub reproducers: i64,
    /// Its root-cause cluster (`GET /api/v1/clusters/{id}`); null only for a finding stored
    /// before clusters existed, until `ptxfuzz-server recluster` runs.
    #[serde(default)]
    pub cluster_id: Option<i64>,
    /// The known divergence it matches, if any (still counted, shown as known).
    pub known: Option<i64>,
}

/// A page of the list; `next` is the cursor of the following page (`?after=`), absent at the end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FindingPage {
    pub items: Vec<FindingSummary>,
    pub next: Option<String>,
}

/// A stored report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StoredReproducer {
    pub id: i64,
    pub campaign_id: Option<Uuid>,
    pub received_at: DateTime<Utc>,
    pub hits: i64,
    pub driver_version: Option<String>,
    pub reproducer: Reproducer,
    pub ptx: Option<String>,
    pub sass: Option<String>,
}

/// One status change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TriageEvent {
    pub at: DateTime<Utc>,
    pub actor: String,
    pub from: Status,
    pub to: Status,
    pub duplicate_of: Option<i64>,
    pub note: String,
}

/// One finding with its reports (newest first, at most 100) and its history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FindingDetail {
    pub finding: FindingSummary,
    pub reproducers: Vec<StoredReproducer>,
    pub history: Vec<TriageEvent>,
}

/// A triage decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Triage {
    pub status: Status,
    #[serde(default)]
    pub note: String,
    /// Required with `duplicate`, refused otherwise.
    pub duplicate_of: Option<i64>,
}

/// A known divergence: findings whose signature matches `pattern` (a glob, `*` any run of
/// characters) on a matching target and driver, and of `cluster` when given, are shown as
/// known, with `reason`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct KnownDivergenceNew {
    pub pattern: String,
    #[serde(default = "star")]
    pub target_pattern: String,
    /// Inclusive driver range, dotted versions (`550.54`); absent: unbounded.
    pub driver_min: Option<String>,
    pub driver_max: Option<String>,
    pub reason: String,
    pub expires_at: Option<DateTime<Utc>>,
    /// Only the findings of this root-cause cluster (`GET /clusters`) whose signature matches
    /// `pattern`: with `"pattern": "*"`, the whole cluster. Absent: findings of any cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<i64>,
}

fn star() -> String {
    "*".into()
}

/// A stored known divergence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KnownDivergence {
    pub id: i64,
    #[serde(flatten)]
    pub rule: KnownDivergenceNew,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}
