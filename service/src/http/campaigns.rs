//! `/api/v1/campaigns`: a worker registers its campaign (`PUT /campaigns/{id}`, idempotent)
//! and sends heartbeats with absolute counters; anyone who may read lists them.

use api::campaigns::{Campaign, CampaignPage, CampaignStart, Counters, Heartbeat};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::{Caller, Reader, Role};
use crate::db::campaigns::{self as db, Cursor, Registered};
use crate::db::known;
use crate::http::Json;
use crate::problem::Problem;
use crate::state::AppState;
use crate::validate::fields::{cap, check_time, MAX_NAME};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(get_one, register))
        .routes(routes!(heartbeat))
}

/// Most items one list page returns.
pub const MAX_LIMIT: i64 = 500;
/// Items per page when `limit` is absent.
pub const DEFAULT_LIMIT: i64 = 50;

/// 422 when `value` holds a NUL character, which PostgreSQL text cannot store.
pub(crate) fn no_nul(field: &str, value: &str) -> Result<(), Problem> {
    if value.contains('\0') {
        return Err(Problem::unprocessable(format!("{field}: contains a NUL character, which cannot be stored; remove it")));
    }
    Ok(())
}

/// A path parameter axum could not read (`/findings/abc`): 400 as problem+json.
pub(crate) fn bad_path(r: PathRejection) -> Problem {
    Problem::bad_request(r.body_text())
}

/// A page size: default 50, 1..=500 (400 otherwise).
pub(crate) fn page_limit(limit: Option<i64>) -> Result<i64, Problem> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(n) => Err(Problem::bad_request(format!("limit={n}: must be between 1 and {MAX_LIMIT}"))),
    }
}

/// The sms a campaign may name: `major * 10 + minor` of a CUDA GPU (`sm_75` is 75, `sm_121`
/// 121); 0, or a CUDA compute capability typed as `9.0`, is a worker bug.
const SMS: std::ops::RangeInclusive<u32> = 10..=999;

fn validate_start(s: &CampaignStart) -> Result<(), Problem> {
    let unprocessable = |e: String| Problem::unprocessable(e);
    for (field, v) in [("worker_host", Some(&s.worker_host)), ("target", Some(&s.target)), ("device", Some(&s.device)),
        ("gpu_name", s.gpu_name.as_ref()), ("driver_version", s.driver_version.as_ref()),
        ("cuda_version", s.cuda_version.as_ref()), ("interpreter_commit", Some(&s.interpreter_commit))]
    {
        if let Some(v) = v {
            no_nul(field, v)?;
            cap(field, v, MAX_NAME, "send the name, not a description or a log").map_err(unprocessable)?;
        }
    }
    if s.worker_host.trim().is_empty() || s.target.trim().is_empty() {
        return Err(Problem::unprocessable("worker_host and target must not be empty"));
    }
    if s.interpreter_commit.trim().is_empty() {
        return Err(Problem::unprocessable(
            "interpreter_commit: empty; send the interpreter's version as `ptxfuzz --version` prints it (`ptxfuzz 0.1.0 (abc1234)`)",
        ));
    }
    // A campaign on a CPU engine has no GPU or driver (the worker sends null): absent is
    // fine, present must be a real one.
    if s.gpu_name.as_ref().is_some_and(|g| g.trim().is_empty()) {
        return Err(Problem::unprocessable("gpu_name: empty; send the GPU's name, or null for a campaign without a GPU"));
    }
    for (field, v) in [("driver_version", &s.driver_version), ("cuda_version", &s.cuda_version)] {
        if let Some(v) = v.as_deref().filter(|v| !known::is_version(v)) {
            return Err(Problem::unprocessable(format!(
                "{field}: '{}' is not a dotted version of digits (such as 12.8 or 570.86.15); send the version, or null when there is none",
                v.chars().take(40).collect::<String>()
            )));
        }
    }
    if let Some(sm) = s.sm {
        if !SMS.contains(&sm) {
            return Err(Problem::unprocessable(format!(
                "sm: {sm} is out of range; an sm is the GPU's compute capability as major * 10 + minor ({} to {}, such as 90), or null",
                SMS.start(),
                SMS.end()
            )));
        }
    }
    check_time("started_at", s.started_at, chrono::Utc::now()).map_err(unprocessable)?;
    Ok(())
}

/// Counters that contradict each other: every case ran in one execution mode, and every
/// finding was a mismatch first (the worker counts a new finding's hits as mismatches,
/// worker/src/campaign/batch.rs).
fn validate_counters(c: &Counters) -> Result<(), Problem> {
    if c.cases_isa.checked_add(c.cases_compiled).is_none_or(|n| n > c.cases) {
        return Err(Problem::unprocessable(format!(
            "counters: cases_isa ({}) + cases_compiled ({}) exceed cases ({}); each case runs in one mode, so send counts of the same moment",
            c.cases_isa, c.cases_compiled, c.cases
        )));
    }
    if c.findings > c.mismatches {
        return Err(Problem::unprocessable(format!(
            "counters: findings ({}) exceed mismatches ({}); every finding is a mismatch first, so send counts of the same moment",
            c.findings, c.mismatches
        )));
    }
    Ok(())
}

/// Register a campaign (idempotent: the same body again is 200, another body for the id 409).
#[utoipa::path(put, path = "/campaigns/{id}", tag = "campaigns",
    params(("id" = Uuid, Path, description = "The campaign id the worker picked")),
    request_body = CampaignStart,
    responses(
        (status = 201, description = "Registered", body = Campaign),
        (status = 200, description = "Already registered with this body", body = Campaign),
        (status = 409, description = "The id exists with another body"),
        (status = 422, description = "A field is out of range, too long, or a time outside 2000-01-01 .. now + 1 day"),
    ),
    security(("bearer" = [])))]
async fn register(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<Uuid>, PathRejection>,
    Json(start): Json<CampaignStart>,
) -> Result<(StatusCode, Json<Campaign>), Problem> {
    caller.require(Role::Worker)?;
    let Path(id) = id.map_err(bad_path)?;
    validate_start(&start)?;
    match db::register(&state.pool, id, &start).await? {
        Registered::Created(c) => Ok((StatusCode::CREATED, Json(c))),
        Registered::Unchanged(c) => Ok((StatusCode::OK, Json(c))),
        Registered::Conflict(_) => Err(Problem::conflict(format!(
            "campaign {id} is registered with another body; a new campaign needs a new id (a fresh UUID)"
        ))),
    }
}

/// Record a heartbeat: counters keep the largest value seen, `ended` records the end once.
#[utoipa::path(post, path = "/campaigns/{id}/heartbeat", tag = "campaigns",
    params(("id" = Uuid, Path, description = "Campaign id")),
    request_body = Heartbeat,
    responses(
        (status = 200, description = "The campaign after the heartbeat", body = Campaign),
        (status = 404, description = "Unknown campaign: register it first"),
    ),
    security(("bearer" = [])))]
async fn heartbeat(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<Uuid>, PathRejection>,
    Json(hb): Json<Heartbeat>,
) -> Result<Json<Campaign>, Problem> {
    caller.require(Role::Worker)?;
    let Path(id) = id.map_err(bad_path)?;
    validate_counters(&hb.counters)?;
    let c = hb.counters;
    let mut counters = [0i64; 8];
    for (slot, (name, v)) in counters.iter_mut().zip([
        ("cases", c.cases),
        ("programs", c.programs),
        ("mismatches", c.mismatches),
        ("findings", c.findings),
        ("signatures", c.signatures),
        ("engine_faults", c.engine_faults),
        ("cases_isa", c.cases_isa),
        ("cases_compiled", c.cases_compiled),
    ]) {
        *slot = i64::try_from(v).map_err(|_| Problem::unprocessable(format!("counters.{name}: {v} is out of range")))?;
    }
    db::heartbeat(&state.pool, id, &hb, counters).await?.map(Json).ok_or_else(|| unknown(id))
}

fn unknown(id: Uuid) -> Problem {
    Problem::not_found(format!("unknown campaign {id}; register it first with PUT /api/v1/campaigns/{id}"))
}

/// One campaign.
#[utoipa::path(get, path = "/campaigns/{id}", tag = "campaigns",
    params(("id" = Uuid, Path, description = "Campaign id")),
    responses((status = 200, body = Campaign), (status = 404, description = "Unknown campaign")))]
async fn get_one(State(state): State<AppState>, _reader: Reader, id: Result<Path<Uuid>, PathRejection>) -> Result<Json<Campaign>, Problem> {
    let Path(id) = id.map_err(bad_path)?;
    db::get(&state.pool, id).await?.map(Json).ok_or_else(|| unknown(id))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    /// Items per page (default 50, at most 500).
    limit: Option<i64>,
    /// The `next` cursor of the previous page.
    after: Option<String>,
}

/// Campaigns, newest start first.
#[utoipa::path(get, path = "/campaigns", tag = "campaigns", params(ListQuery),
    responses((status = 200, body = CampaignPage), (status = 400, description = "Bad limit or cursor")))]
async fn list(
    State(state): State<AppState>,
    _reader: Reader,
    q: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<CampaignPage>, Problem> {
    let Query(q) = q?;
    let limit = page_limit(q.limit)?;
    let after = match q.after.as_deref() {
        None => None,
        Some(s) => Some(Cursor::decode(s).ok_or_else(|| {
            Problem::bad_request(format!("after='{s}' is not a cursor; pass the `next` value of the previous page"))
        })?),
    };
    let (items, next) = db::list(&state.pool, limit, after).await?;
    Ok(Json(CampaignPage { items, next: next.map(|c| c.encode()) }))
}
