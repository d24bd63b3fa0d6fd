//! `/api/v1/campaigns`: a worker registers its campaign (`PUT /campaigns/{id}`, idempotent)
//! and sends heartbeats with absolute counters; anyone who may read lists them.

use api::campaigns::{Campaign, CampaignPage, CampaignStart, Heartbeat};
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
use crate::http::Json;
use crate::problem::Problem;
use crate::state::AppState;

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

fn validate_start(s: &CampaignStart) -> Result<(), Problem> {
    for (field, v) in [("worker_host", Some(&s.worker_host)), ("target", Some(&s.target)), ("device", Some(&s.device)),
        ("gpu_name", s.gpu_name.as_ref()), ("driver_version", s.driver_version.as_ref()),
        ("cuda_version", s.cuda_version.as_ref()), ("interpreter_commit", Some(&s.interpreter_commit))]
    {
        if let Some(v) = v {
            no_nul(field, v)?;
        }
    }
    if s.worker_host.trim().is_empty() || s.target.trim().is_empty() {
        return Err(Problem::unprocessable("worker_host and target must not be empty"));
    }
    if let Some(sm) = s.sm {
        if i32::try_from(sm).is_err() {
            return Err(Problem::unprocessable(format!("sm: {sm} is out of range (an sm is a number like 90)")));
        }
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
        (status = 422, description = "A field is out of range"),
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
