//! A math check's report as the server takes it (`POST /api/v1/sweeps`, kind `math-check`).

use api::sweeps::{SweepKind, SweepReport};
use mathlib::table::Bound;
use mathlib::Flags;

use super::report::Report;

/// The documented bound in ulps of `func` under `flags`: the largest plain ulp row (0 for the
/// correctly rounded ones); `None` when its rows are of another kind.
pub fn bound_ulps(func: &str, flags: &Flags) -> Option<u64> {
    mathlib::table::rows_named(mathlib::table::effective_name(func, flags))
        .filter_map(|row| match row.bound {
            Bound::Ulp(k) => Some(k.ceil() as u64),
            Bound::Ieee => Some(0),
            _ => None,
        })
        .max()
}

/// `target`: the GPU ordinal as an engine spec (`cuda:0`), or `reference` for --reference-only.
pub fn server_report(r: &Report, target: &str, gpu_name: Option<&str>, flags: &Flags) -> SweepReport {
    SweepReport {
        kind: SweepKind::MathCheck,
        name: r.func.clone(),
        target: target.to_string(),
        device: r.device.clone(),
        gpu_name: gpu_name.map(str::to_string),
        driver_version: None,
        interpreter_commit: crate::server::interpreter_commit(),
        flags: r.flags.clone(),
        inputs: r.inputs,
        exhaustive: r.exhaustive,
        mismatches: r.mismatches,
        max_ulps: r.max_ulps,
        histogram: crate::sweep::post::buckets(&r.histogram),
        bound_text: r.bounds.clone(),
        bound_ulps: bound_ulps(&r.func, flags),
        at: chrono::Utc::now(),
    }
}
