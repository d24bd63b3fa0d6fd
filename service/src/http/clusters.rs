//! `/api/v1/clusters`: root-cause clusters (docs/triage.md), each the findings one explanation
//! (or, unexplained, one form and mismatch class) accounts for; triagers set the status of a
//! whole cluster at once. Its findings: `GET /api/v1/findings?cluster=ID`.

use api::findings::Status;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{Caller, Reader, Role};
use crate::db::clusters::{self as db, Cluster, ClusterPage, ClusterTriage, ClusterTriaged};
use crate::http::campaigns::{bad_path, no_nul, page_limit};
use crate::http::Json;
use crate::problem::Problem;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_clusters)).routes(routes!(get_cluster)).routes(routes!(triage))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    /// The cluster's triage status (`new`, `confirmed-hardware`, ...).
    status: Option<String>,
    /// Items per page (default 50, at most 500).
    limit: Option<i64>,
    /// The `next` cursor of the previous page.
    after: Option<String>,
}

/// Clusters in the order they were first created; page on with `after=<next>`.
#[utoipa::path(get, path = "/clusters", tag = "clusters", params(ListQuery),
    responses(
        (status = 200, body = ClusterPage),
        (status = 400, description = "An unknown status, a bad limit or cursor"),
    ))]
async fn list_clusters(
    State(state): State<AppState>,
    _reader: Reader,
    q: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<ClusterPage>, Problem> {
    let Query(q) = q?;
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(s.parse::<Status>().map_err(|e| Problem::bad_request(format!("status: {e}")))?),
    };
    let after = match q.after.as_deref() {
        None => None,
        Some(s) => Some(s.parse::<i64>().map_err(|_| {
            Problem::bad_request(format!("after='{s}' is not a cursor; pass the `next` value of the previous page"))
        })?),
    };
    let limit = page_limit(q.limit)?;
    let (items, next) = db::list(&state.pool, None, status, limit, after).await?;
    Ok(Json(ClusterPage { items, next: next.map(|id| id.to_string()) }))
}

fn no_cluster(id: i64) -> Problem {
    Problem::not_found(format!("no cluster {id}; list them with GET /api/v1/clusters"))
}

/// One cluster.
#[utoipa::path(get, path = "/clusters/{id}", tag = "clusters",
    params(("id" = i64, Path, description = "Cluster id")),
    responses((status = 200, body = Cluster), (status = 400, description = "A non-numeric id"),
              (status = 404, description = "No such cluster")))]
async fn get_cluster(
    State(state): State<AppState>,
    _reader: Reader,
    id: Result<Path<i64>, PathRejection>,
) -> Result<Json<Cluster>, Problem> {
    let Path(id) = id.map_err(bad_path)?;
    Ok(Json(db::get(&state.pool, id).await?.ok_or_else(|| no_cluster(id))?))
}

/// Triage a whole cluster: set its status and that of every one of its findings, each change
/// recorded in the finding's history with the token's name and the note.
#[utoipa::path(post, path = "/clusters/{id}/triage", tag = "clusters",
    params(("id" = i64, Path, description = "Cluster id")),
    request_body = ClusterTriage,
    responses(
        (status = 200, description = "The cluster after the change", body = Cluster),
        (status = 404, description = "No such cluster"),
        (status = 422, description = "Status 'duplicate' (triage findings one by one for that)"),
    ),
    security(("bearer" = [])))]
async fn triage(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<i64>, PathRejection>,
    Json(t): Json<ClusterTriage>,
) -> Result<Json<Cluster>, Problem> {
    caller.require(Role::Triager)?;
    let Path(id) = id.map_err(bad_path)?;
    no_nul("note", &t.note)?;
    match db::triage(&state.pool, id, &t, &caller.name).await? {
        ClusterTriaged::Done(_) => {}
        ClusterTriaged::NotFound => return Err(no_cluster(id)),
        ClusterTriaged::Invalid(why) => return Err(Problem::unprocessable(why)),
    }
    Ok(Json(db::get(&state.pool, id).await?.ok_or_else(|| no_cluster(id))?))
}
