//! `/api/v1/sweeps`: workers post the reports of `ptxfuzz sweep` and `ptxfuzz math-check`
//! (error histograms in ulps against the documented bound); anyone who may read lists the
//! latest report of each (kind, name, target).

use api::sweeps::{StoredSweep, SweepKind, SweepList, SweepReport, MAX_BUCKETS, MAX_LIST};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::campaigns::no_nul;
use super::Json;
use crate::auth::{Caller, Reader, Role};
use crate::db;
use crate::problem::Problem;
use crate::state::AppState;
use crate::validate::fields::check_time;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(post_sweep, list_sweeps))
}

/// Longest name, target, device, GPU, driver, commit or flags string accepted.
const MAX_NAME: usize = 500;
/// Most bound lines, and the longest one.
const MAX_BOUND_LINES: usize = 64;
const MAX_BOUND_LINE: usize = 2000;

/// What is wrong with a report, as a 422 that names the field.
pub fn validate(r: &SweepReport) -> Result<(), Problem> {
    if r.name.trim().is_empty() || r.target.trim().is_empty() {
        return Err(Problem::unprocessable("name and target must not be empty (name: the instruction or function checked)"));
    }
    for (field, v) in [("name", Some(&r.name)), ("target", Some(&r.target)), ("device", Some(&r.device)),
        ("gpu_name", r.gpu_name.as_ref()), ("driver_version", r.driver_version.as_ref()),
        ("interpreter_commit", Some(&r.interpreter_commit)), ("flags", Some(&r.flags))]
    {
        let Some(v) = v else { continue };
        no_nul(field, v)?;
        if v.len() > MAX_NAME {
            return Err(Problem::unprocessable(format!("{field} is {} bytes long; at most {MAX_NAME}", v.len())));
        }
    }
    if r.histogram.len() > MAX_BUCKETS {
        return Err(Problem::unprocessable(format!(
            "histogram has {} buckets; at most {MAX_BUCKETS} (merge the sparse ones)",
            r.histogram.len()
        )));
    }
    if r.bound_text.len() > MAX_BOUND_LINES || r.bound_text.iter().any(|b| b.len() > MAX_BOUND_LINE) {
        return Err(Problem::unprocessable(format!(
            "bound_text: at most {MAX_BOUND_LINES} lines of at most {MAX_BOUND_LINE} bytes"
        )));
    }
    for (i, b) in r.histogram.iter().enumerate() {
        no_nul("histogram label", &b.label)?;
        if b.label.len() > 64 {
            return Err(Problem::unprocessable(format!("histogram[{i}].label is longer than 64 bytes")));
        }
    }
    for b in &r.bound_text {
        no_nul("bound_text", b)?;
    }
    if r.histogram.windows(2).any(|w| w[0].lo >= w[1].lo) {
        return Err(Problem::unprocessable("histogram buckets must be in increasing `lo` order, each `lo` once"));
    }
    let sum = r.histogram.iter().try_fold(0u64, |s, b| s.checked_add(b.count));
    if sum.is_none_or(|s| s > r.inputs) {
        return Err(Problem::unprocessable(format!(
            "histogram counts sum to more than inputs ({}); every count is of checked inputs",
            r.inputs
        )));
    }
    for (field, v) in [("inputs", r.inputs), ("mismatches", r.mismatches), ("bound_ulps", r.bound_ulps.unwrap_or(0))] {
        if i64::try_from(v).is_err() {
            return Err(Problem::unprocessable(format!("{field}: {v} is out of range")));
        }
    }
    if r.mismatches > r.inputs {
        return Err(Problem::unprocessable(format!("mismatches ({}) exceed inputs ({})", r.mismatches, r.inputs)));
    }
    check_histogram(r)?;
    if r.kind == SweepKind::Sweep {
        check_form(&r.name)?;
    }
    check_time("at", r.at, chrono::Utc::now()).map_err(Problem::unprocessable)?;
    Ok(())
}

/// Every error is counted in the bucket whose range holds it (`lo` up to the next bucket's
/// `lo`), and `max_ulps` is the largest of them (worker/src/sweep.rs): no error lies above
/// `max_ulps`, and the bucket holding `max_ulps` counts it.
fn check_histogram(r: &SweepReport) -> Result<(), Problem> {
    if let Some(b) = r.histogram.iter().find(|b| b.count > 0 && b.lo > r.max_ulps) {
        return Err(Problem::unprocessable(format!(
            "histogram: bucket '{}' (lo {}) counts {} error(s) above max_ulps ({}); send the histogram and max_ulps of the same run",
            b.label, b.lo, b.count, r.max_ulps
        )));
    }
    if r.max_ulps > 0 {
        let holder = r.histogram.iter().rev().find(|b| b.lo <= r.max_ulps);
        if holder.is_none_or(|b| b.count == 0) {
            return Err(Problem::unprocessable(format!(
                "histogram: no bucket counts the largest error, max_ulps {}; send the histogram and max_ulps of the same run",
                r.max_ulps
            )));
        }
    }
    Ok(())
}

/// A sweep is of one instruction form, named as `ptxfuzz sweep` takes it: a form of
/// `ptx::form` (`cvt`, `setp`, `set`, `selp`, mixed-precision) or an instruction
/// (`Instr::parse_default`), the worker's own two parsers. Math checks name CUDA functions,
/// whose list lives in the `mathlib` crate, which the server does not link (it builds MPFR).
fn check_form(name: &str) -> Result<(), Problem> {
    let why = match ptx::form::Form::parse(name) {
        Ok(_) => return Ok(()),
        Err(ptx::form::FormError::Unknown(_)) => match ptx::isa::Instr::parse_default(name) {
            Ok(_) => return Ok(()),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    };
    Err(Problem::unprocessable(format!(
        "name: '{}' is not an instruction form `ptxfuzz sweep` takes ({why}); send the form swept, such as rcp.approx.f32",
        name.chars().take(60).collect::<String>()
    )))
}

/// Store the report of a sweep or math check.
#[utoipa::path(post, path = "/sweeps", tag = "sweeps",
    request_body = SweepReport,
    responses(
        (status = 201, description = "Stored", body = StoredSweep),
        (status = 400, description = "Malformed body", content_type = "application/problem+json"),
        (status = 403, description = "Needs a worker token", content_type = "application/problem+json"),
        (status = 422, description = "A field is out of range (the message says which)", content_type = "application/problem+json"),
    ),
    security(("bearer" = [])))]
async fn post_sweep(
    State(state): State<AppState>,
    caller: Caller,
    Json(report): Json<SweepReport>,
) -> Result<(StatusCode, Json<StoredSweep>), Problem> {
    caller.require(Role::Worker)?;
    validate(&report)?;
    let stored = db::sweeps::insert(&state.pool, &report, &caller.name).await?;
    Ok((StatusCode::CREATED, Json(stored)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    /// `sweep` or `math-check` (default: both).
    kind: Option<String>,
}

/// The latest report of each (kind, name, target), at most 500.
#[utoipa::path(get, path = "/sweeps", tag = "sweeps", params(ListQuery),
    responses((status = 200, body = SweepList), (status = 400, description = "Unknown or empty kind, unknown parameter", content_type = "application/problem+json")))]
async fn list_sweeps(
    State(state): State<AppState>,
    _reader: Reader,
    q: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<SweepList>, Problem> {
    let Query(q) = q?;
    // An empty kind is refused like an unknown one: `?kind=` most likely lost its value, and
    // answering both kinds would hide that.
    let kind = match q.kind.as_deref() {
        None => None,
        Some("") => return Err(Problem::bad_request("kind is empty: give sweep or math-check, or leave kind out for both")),
        Some(k) => Some(
            SweepKind::parse(k)
                .ok_or_else(|| Problem::bad_request(format!("kind='{k}': one of sweep, math-check")))?,
        ),
    };
    let items = db::sweeps::latest(&state.pool, kind, MAX_LIST as i64).await?;
    Ok(Json(SweepList { items }))
}
