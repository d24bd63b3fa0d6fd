//! Sweep and math-check bodies: a worker posts the report of `ptxfuzz sweep INSTR` or
//! `ptxfuzz math-check FUNC` (`POST /api/v1/sweeps`), and anyone lists the latest report of each
//! (kind, name, target) (`GET /api/v1/sweeps`): the error histogram in ulps against the
//! documented bound.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Most histogram buckets in one report (the worker's have 66 at most).
pub const MAX_BUCKETS: usize = 256;
/// Most reports `GET /api/v1/sweeps` returns (one per kind, name and target).
pub const MAX_LIST: usize = 500;

/// Which command made the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SweepKind {
    /// `ptxfuzz sweep INSTR`: one PTX instruction on every (or a sample of) input.
    Sweep,
    /// `ptxfuzz math-check FUNC`: a CUDA math-library function on the GPU.
    MathCheck,
}

impl SweepKind {
    pub fn name(self) -> &'static str {
        match self {
            SweepKind::Sweep => "sweep",
            SweepKind::MathCheck => "math-check",
        }
    }

    pub fn parse(s: &str) -> Option<SweepKind> {
        [SweepKind::Sweep, SweepKind::MathCheck].into_iter().find(|k| k.name() == s)
    }
}

impl fmt::Display for SweepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One histogram bucket: errors of `lo` ulps up to the next bucket's `lo` (exclusive).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Bucket {
    /// As the worker prints it: `0`, `1`, `4-7`, `8-15`, ...
    pub label: String,
    /// The smallest error (ulps) the bucket holds.
    pub lo: u64,
    pub count: u64,
}

/// The report of one sweep or math check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SweepReport {
    pub kind: SweepKind,
    /// The instruction (`rcp.approx.f32`) or function (`sinf`).
    pub name: String,
    /// The engine spec or GPU ordinal it ran on (`cuda:0`, `interp`).
    pub target: String,
    /// The engine's own description (GPU name, CPU model).
    #[serde(default)]
    pub device: String,
    pub gpu_name: Option<String>,
    pub driver_version: Option<String>,
    /// The worker's interpreter version (`ptxfuzz --version`).
    pub interpreter_commit: String,
    /// Compiler flags of a math check (`-use_fast_math`); empty for sweeps.
    #[serde(default)]
    pub flags: String,
    /// Inputs checked.
    pub inputs: u64,
    /// Every input of the space was checked.
    #[serde(default)]
    pub exhaustive: bool,
    /// Results outside what the documentation allows.
    pub mismatches: u64,
    /// The largest error in ulps from the correctly rounded result.
    pub max_ulps: u64,
    /// Errors per bucket, in increasing `lo` order; counts sum to at most `inputs` (a NaN
    /// against a number has no ulp distance and is in no bucket).
    pub histogram: Vec<Bucket>,
    /// The documented bound(s), as the spec or the CUDA guide words them.
    pub bound_text: Vec<String>,
    /// The documented bound in ulps when it is one (0: correctly rounded).
    pub bound_ulps: Option<u64>,
    /// When the check finished.
    pub at: DateTime<Utc>,
}

impl SweepReport {
    /// Whether the results kept to the documentation: no mismatches, and the largest error
    /// within the bound in ulps when there is one.
    pub fn passed(&self) -> bool {
        self.mismatches == 0 && self.bound_ulps.is_none_or(|b| self.max_ulps <= b)
    }
}

/// A stored report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StoredSweep {
    pub id: i64,
    #[serde(flatten)]
    pub report: SweepReport,
    /// The name of the token that posted it.
    pub reported_by: String,
}

/// The latest report of each (kind, name, target), by kind then name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SweepList {
    pub items: Vec<StoredSweep>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> SweepReport {
        SweepReport {
            kind: SweepKind::MathCheck,
            name: "sinf".into(),
            target: "cuda:0".into(),
            device: String::new(),
            gpu_name: None,
            driver_version: None,
            interpreter_commit: "ptxfuzz 0.1.0".into(),
            flags: String::new(),
            inputs: 10,
            exhaustive: false,
            mismatches: 0,
            max_ulps: 2,
            histogram: vec![Bucket { label: "0".into(), lo: 0, count: 8 }, Bucket { label: "2".into(), lo: 2, count: 2 }],
            bound_text: vec!["2 ulp".into()],
            bound_ulps: Some(2),
            at: Utc::now(),
        }
    }

    #[test]
    fn kind_is_kebab_case_on_the_wire() {
        let v = serde_json::to_value(report()).unwrap();
        assert_eq!(v["kind"], "math-check");
        assert_eq!(SweepKind::parse("sweep"), Some(SweepKind::Sweep));
        assert_eq!(SweepKind::parse("Sweep"), None);
    }

    #[test]
    fn passing_needs_no_mismatch_and_the_max_within_the_bound() {
        let mut r = report();
        assert!(r.passed());
        r.max_ulps = 3;
        assert!(!r.passed());
        r.bound_ulps = None;
        assert!(r.passed());
        r.mismatches = 1;
        assert!(!r.passed());
    }
}
