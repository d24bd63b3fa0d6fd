//! `/api/v1/known-divergences`: rules that mark matching findings as known (still counted).
//! Triagers create and delete them; anyone who may read lists them.

use api::findings::{KnownDivergence, KnownDivergenceNew};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::Json;
use crate::auth::{Caller, Reader, Role};
use crate::db;
use crate::db::known::{compare_versions, is_version};
use crate::problem::Problem;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_known, list_known))
        .routes(routes!(delete_known))
}

/// Longest pattern or driver version accepted.
const MAX_PATTERN: usize = 1000;
const MAX_REASON: usize = 10_000;

/// Check a rule; the message says which field is wrong and how.
fn check(rule: &KnownDivergenceNew) -> Result<(), Problem> {
    for (what, v) in [("pattern", &rule.pattern), ("target_pattern", &rule.target_pattern)] {
        if v.trim().is_empty() {
            return Err(Problem::unprocessable(format!(
                "{what} is empty; give a glob such as 'add.rz.*~rounding~*' ('*' matches any run of characters)"
            )));
        }
        if v.len() > MAX_PATTERN {
            return Err(Problem::unprocessable(format!("{what} is longer than {MAX_PATTERN} bytes")));
        }
    }
    for (what, v) in [("driver_min", &rule.driver_min), ("driver_max", &rule.driver_max)] {
        if let Some(v) = v {
            if v.len() > MAX_PATTERN || !is_version(v) {
                return Err(Problem::unprocessable(format!(
                    "{what} '{v}' is not a dotted driver version such as 550.54.14; leave it out for an open range"
                )));
            }
        }
    }
    if let (Some(lo), Some(hi)) = (&rule.driver_min, &rule.driver_max) {
        if compare_versions(lo, hi).is_gt() {
            return Err(Problem::unprocessable(format!("driver_min {lo} is above driver_max {hi}; swap them")));
        }
    }
    if rule.reason.trim().is_empty() {
        return Err(Problem::unprocessable("reason is empty; say why this divergence is accepted"));
    }
    if rule.reason.len() > MAX_REASON {
        return Err(Problem::unprocessable(format!("reason is longer than {MAX_REASON} bytes")));
    }
    if let Some(t) = rule.expires_at {
        if t <= chrono::Utc::now() {
            return Err(Problem::unprocessable(format!("expires_at {t} is in the past; give a future time or none")));
        }
    }
    Ok(())
}

/// Add a known divergence.
#[utoipa::path(post, path = "/known-divergences", tag = "known-divergences", request_body = KnownDivergenceNew,
    responses(
        (status = 201, body = KnownDivergence),
        (status = 400, description = "Malformed body", content_type = "application/problem+json"),
        (status = 403, description = "Needs a triager token", content_type = "application/problem+json"),
        (status = 422, description = "Empty pattern or reason, bad driver version, past expiry, no such cluster", content_type = "application/problem+json"),
    ),
    security(("bearer" = [])))]
async fn create_known(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<KnownDivergenceNew>,
) -> Result<(StatusCode, Json<KnownDivergence>), Problem> {
    caller.require(Role::Triager)?;
    check(&body)?;
    if let Some(c) = body.cluster {
        if db::clusters::get(&state.pool, c).await?.is_none() {
            return Err(Problem::unprocessable(format!("cluster {c} does not exist; pick one from GET /api/v1/clusters")));
        }
    }
    let k = db::known::insert(&state.pool, &body, &caller.name).await?;
    Ok((StatusCode::CREATED, Json(k)))
}

/// The list's query: it takes no parameter (every rule, unpaged), and refuses any, as every
/// other list refuses the ones it does not know (a `?limit=5` must not look obeyed).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {}

/// Every known divergence, expired ones included, newest first.
#[utoipa::path(get, path = "/known-divergences", tag = "known-divergences",
    responses(
        (status = 200, body = Vec<KnownDivergence>),
        (status = 400, description = "A query parameter (the list takes none)", content_type = "application/problem+json"),
    ))]
async fn list_known(
    State(state): State<AppState>,
    _reader: Reader,
    q: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Vec<KnownDivergence>>, Problem> {
    q.map_err(|e| {
        Problem::new(
            StatusCode::BAD_REQUEST,
            "bad-query",
            format!("{}; GET /api/v1/known-divergences takes no parameters (it lists every rule, not paged)", e.body_text()),
        )
    })?;
    Ok(Json(db::known::list(&state.pool).await?))
}

/// Delete a known divergence (findings it matched are no longer shown as known).
#[utoipa::path(delete, path = "/known-divergences/{id}", tag = "known-divergences",
    params(("id" = i64, Path, description = "Known divergence id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 403, description = "Needs a triager token", content_type = "application/problem+json"),
        (status = 404, description = "No such rule", content_type = "application/problem+json"),
    ),
    security(("bearer" = [])))]
async fn delete_known(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<i64>, PathRejection>,
) -> Result<StatusCode, Problem> {
    caller.require(Role::Triager)?;
    let Path(id) = id.map_err(|e| Problem::bad_request(e.body_text()))?;
    if db::known::delete(&state.pool, id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(Problem::not_found(format!("there is no known divergence {id}")))
    }
}
